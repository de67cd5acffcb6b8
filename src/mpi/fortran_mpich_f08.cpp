// MPICH's `use mpi_f08` bindings, routed through the drop-in where they
// bypass it.
//
// Why: MPICH's mpif.h and `use mpi` bindings call the MPI_ functions, but
// its mpi_f08 procedures call PMPI_ for completion (MPI_Wait, MPI_Test and
// their -all/-any/-some forms), probes, persistent starts, type
// constructors, commit and free, communicator constructors and MPI_Init,
// while their sends and receives reach Loom's MPI_ functions (MPICH 4.0.2,
// read from libmpichfort's calls).  A nonblocking receive Loom staged and
// the program completed through PMPI_Wait would never be unpacked; a probe
// would report a rendezvous's size.  These definitions take the place of
// MPICH's mpi_<name>_f08_ procedures (gfortran's names for them) and call
// the drop-in's C entry points.
//
// The f08 ABI in MPICH: handles are INTEGER values identical to the C
// handles, TYPE(MPI_Status) is laid out as the C MPI_Status, LOGICAL is a
// 4-byte integer with .TRUE. = 1, every argument is passed by reference,
// and the optional ierror may be absent (null).  MPI_STATUS(ES)_IGNORE are
// objects in libmpichfort, and MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY arrays in
// its mpi_f08_link_constants module, found by name at first use.  Left to
// MPICH: the _large (MPI-4 count) forms; their point-to-point calls reach
// the drop-in's C `_c` functions (p2p_large_count.cpp).
#include "fortran.hpp"

#if defined(MPICH)
#include <dlfcn.h>

#include <atomic>

using namespace loom_mpi::fortran;

namespace {

using I = int;  // a Fortran INTEGER, and an MPICH handle

static_assert(sizeof(MPI_Request) == sizeof(int) && sizeof(MPI_Datatype) == sizeof(int),
              "MPICH's handles are ints");

void *sentinel(const char *name, std::atomic<void *> &cache) {
  void *p = cache.load(std::memory_order_acquire);
  if (!p) {
    p = dlsym(RTLD_DEFAULT, name);
    cache.store(p, std::memory_order_release);
  }
  return p;
}

MPI_Status *status(void *f) {
  static std::atomic<void *> ignore{nullptr};
  return f == sentinel("MPIR_F08_MPI_STATUS_IGNORE_OBJ", ignore) ? MPI_STATUS_IGNORE
                                                                 : (MPI_Status *)f;
}
MPI_Status *statuses(void *f) {
  static std::atomic<void *> ignore{nullptr};
  return f == sentinel("MPIR_F08_MPI_STATUSES_IGNORE_OBJ", ignore) ? MPI_STATUSES_IGNORE
                                                                   : (MPI_Status *)f;
}

// The graph constructors' weight arrays.
const int *weights(I *f) {
  static std::atomic<void *> unweighted{nullptr}, empty{nullptr};
  if (f == sentinel("__mpi_f08_link_constants_MOD_mpi_unweighted", unweighted))
    return MPI_UNWEIGHTED;
  if (f == sentinel("__mpi_f08_link_constants_MOD_mpi_weights_empty", empty))
    return MPI_WEIGHTS_EMPTY;
  return f;
}

}  // namespace

#define LOOM_F08(lower, args) \
  extern "C" __attribute__((visibility("default"))) void mpi_##lower##_f08_ args

LOOM_F08(init, (I * ierr)) { set_err(ierr, MPI_Init(nullptr, nullptr)); }
LOOM_F08(init_thread, (I * required, I *provided, I *ierr)) {
  set_err(ierr, MPI_Init_thread(nullptr, nullptr, *required, provided));
}

// Completion.
LOOM_F08(wait, (MPI_Request * req, void *st, I *ierr)) {
  set_err(ierr, MPI_Wait(req, status(st)));
}
LOOM_F08(test, (MPI_Request * req, I *flag, void *st, I *ierr)) {
  int f = 0;
  int rc = MPI_Test(req, &f, status(st));
  set_logical(flag, f);
  set_err(ierr, rc);
}
LOOM_F08(request_get_status, (MPI_Request * req, I *flag, void *st, I *ierr)) {
  int f = 0;
  int rc = MPI_Request_get_status(*req, &f, status(st));
  set_logical(flag, f);
  set_err(ierr, rc);
}
LOOM_F08(waitall, (I * n, MPI_Request *reqs, void *sts, I *ierr)) {
  set_err(ierr, MPI_Waitall(*n, reqs, statuses(sts)));
}
LOOM_F08(testall, (I * n, MPI_Request *reqs, I *flag, void *sts, I *ierr)) {
  int f = 0;
  int rc = MPI_Testall(*n, reqs, &f, statuses(sts));
  set_logical(flag, f);
  set_err(ierr, rc);
}
LOOM_F08(waitany, (I * n, MPI_Request *reqs, I *index, void *st, I *ierr)) {
  int i = MPI_UNDEFINED;
  int rc = MPI_Waitany(*n, reqs, &i, status(st));
  index_out(index, i);
  set_err(ierr, rc);
}
LOOM_F08(testany, (I * n, MPI_Request *reqs, I *index, I *flag, void *st, I *ierr)) {
  int i = MPI_UNDEFINED, f = 0;
  int rc = MPI_Testany(*n, reqs, &i, &f, status(st));
  index_out(index, i);
  set_logical(flag, f);
  set_err(ierr, rc);
}
#define LOOM_F08_SOME(lower, Call)                                                     \
  LOOM_F08(lower, (I * n, MPI_Request * reqs, I * outcount, I * indices, void *sts,    \
                   I * ierr)) {                                                        \
    int rc = Call(*n, reqs, outcount, indices, statuses(sts));                         \
    indices_out(indices, *outcount);                                                   \
    set_err(ierr, rc);                                                                 \
  }
LOOM_F08_SOME(waitsome, MPI_Waitsome)
LOOM_F08_SOME(testsome, MPI_Testsome)

LOOM_F08(start, (MPI_Request * req, I *ierr)) { set_err(ierr, MPI_Start(req)); }
LOOM_F08(startall, (I * n, MPI_Request *reqs, I *ierr)) {
  set_err(ierr, MPI_Startall(*n, reqs));
}
LOOM_F08(request_free, (MPI_Request * req, I *ierr)) { set_err(ierr, MPI_Request_free(req)); }

// Probes.
LOOM_F08(probe, (I * src, I *tag, MPI_Comm *c, void *st, I *ierr)) {
  set_err(ierr, MPI_Probe(*src, *tag, *c, status(st)));
}
LOOM_F08(iprobe, (I * src, I *tag, MPI_Comm *c, I *flag, void *st, I *ierr)) {
  int f = 0;
  int rc = MPI_Iprobe(*src, *tag, *c, &f, status(st));
  set_logical(flag, f);
  set_err(ierr, rc);
}
LOOM_F08(mprobe, (I * src, I *tag, MPI_Comm *c, MPI_Message *m, void *st, I *ierr)) {
  set_err(ierr, MPI_Mprobe(*src, *tag, *c, m, status(st)));
}
LOOM_F08(improbe,
         (I * src, I *tag, MPI_Comm *c, I *flag, MPI_Message *m, void *st, I *ierr)) {
  int f = 0;
  int rc = MPI_Improbe(*src, *tag, *c, &f, m, status(st));
  set_logical(flag, f);
  set_err(ierr, rc);
}

LOOM_F08(get_elements, (void *st, MPI_Datatype *dt, I *count, I *ierr)) {
  set_err(ierr, MPI_Get_elements((MPI_Status *)st, *dt, count));
}
LOOM_F08(get_elements_x, (void *st, MPI_Datatype *dt, MPI_Count *count, I *ierr)) {
  set_err(ierr, MPI_Get_elements_x((MPI_Status *)st, *dt, count));
}
LOOM_F08(pack_size, (I * n, MPI_Datatype *dt, MPI_Comm *c, I *size, I *ierr)) {
  set_err(ierr, MPI_Pack_size(*n, *dt, *c, size));
}

// Types.
LOOM_F08(type_contiguous, (I * n, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_contiguous(*n, *old, out));
}
LOOM_F08(type_vector,
         (I * n, I *blen, I *stride, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_vector(*n, *blen, *stride, *old, out));
}
LOOM_F08(type_create_hvector,
         (I * n, I *blen, MPI_Aint *stride, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_hvector(*n, *blen, *stride, *old, out));
}
LOOM_F08(type_indexed,
         (I * n, I *blens, I *displs, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_indexed(*n, blens, displs, *old, out));
}
LOOM_F08(type_create_hindexed,
         (I * n, I *blens, MPI_Aint *displs, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_hindexed(*n, blens, displs, *old, out));
}
LOOM_F08(type_create_indexed_block,
         (I * n, I *blen, I *displs, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_indexed_block(*n, *blen, displs, *old, out));
}
LOOM_F08(type_create_hindexed_block,
         (I * n, I *blen, MPI_Aint *displs, MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_hindexed_block(*n, *blen, displs, *old, out));
}
LOOM_F08(type_create_struct, (I * n, I *blens, MPI_Aint *displs, MPI_Datatype *types,
                              MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_struct(*n, blens, displs, types, out));
}
LOOM_F08(type_create_subarray, (I * ndims, I *sizes, I *subsizes, I *starts, I *order,
                                MPI_Datatype *old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_subarray(*ndims, sizes, subsizes, starts, *order, *old, out));
}
LOOM_F08(type_create_darray, (I * size, I *rank, I *ndims, I *gsizes, I *distribs, I *dargs,
                              I *psizes, I *order, MPI_Datatype *old, MPI_Datatype *out,
                              I *ierr)) {
  set_err(ierr, MPI_Type_create_darray(*size, *rank, *ndims, gsizes, distribs, dargs, psizes,
                                       *order, *old, out));
}
LOOM_F08(type_create_resized,
         (MPI_Datatype * old, MPI_Aint *lb, MPI_Aint *extent, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_create_resized(*old, *lb, *extent, out));
}
LOOM_F08(type_dup, (MPI_Datatype * old, MPI_Datatype *out, I *ierr)) {
  set_err(ierr, MPI_Type_dup(*old, out));
}
LOOM_F08(type_commit, (MPI_Datatype * dt, I *ierr)) { set_err(ierr, MPI_Type_commit(dt)); }
LOOM_F08(type_free, (MPI_Datatype * dt, I *ierr)) { set_err(ierr, MPI_Type_free(dt)); }

// Communicators (their Loom keys: protocol.md, "Communicator keys").
LOOM_F08(comm_dup, (MPI_Comm * c, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Comm_dup(*c, out));
}
LOOM_F08(comm_dup_with_info, (MPI_Comm * c, MPI_Info *info, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Comm_dup_with_info(*c, *info, out));
}
LOOM_F08(comm_split, (MPI_Comm * c, I *color, I *key, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Comm_split(*c, *color, *key, out));
}
LOOM_F08(comm_split_type,
         (MPI_Comm * c, I *type, I *key, MPI_Info *info, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Comm_split_type(*c, *type, *key, *info, out));
}
LOOM_F08(comm_create, (MPI_Comm * c, MPI_Group *g, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Comm_create(*c, *g, out));
}
LOOM_F08(cart_create,
         (MPI_Comm * c, I *ndims, I *dims, I *periods, I *reorder, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Cart_create(*c, *ndims, dims, periods, *reorder, out));
}
LOOM_F08(cart_sub, (MPI_Comm * c, I *remain, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Cart_sub(*c, remain, out));
}
LOOM_F08(graph_create,
         (MPI_Comm * c, I *nnodes, I *index, I *edges, I *reorder, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Graph_create(*c, *nnodes, index, edges, *reorder, out));
}
LOOM_F08(dist_graph_create, (MPI_Comm * c, I *n, I *sources, I *degrees, I *dests, I *w,
                             MPI_Info *info, I *reorder, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Dist_graph_create(*c, *n, sources, degrees, dests, weights(w), *info,
                                      *reorder, out));
}
LOOM_F08(dist_graph_create_adjacent,
         (MPI_Comm * c, I *indeg, I *sources, I *sw, I *outdeg, I *dests, I *dw,
          MPI_Info *info, I *reorder, MPI_Comm *out, I *ierr)) {
  set_err(ierr, MPI_Dist_graph_create_adjacent(*c, *indeg, sources, weights(sw), *outdeg,
                                               dests, weights(dw), *info, *reorder, out));
}
LOOM_F08(comm_free, (MPI_Comm * c, I *ierr)) { set_err(ierr, MPI_Comm_free(c)); }
LOOM_F08(comm_disconnect, (MPI_Comm * c, I *ierr)) { set_err(ierr, MPI_Comm_disconnect(c)); }

#endif  // MPICH
