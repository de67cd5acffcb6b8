// Open MPI's Fortran type constructors, commit and free, and the MPI_Pack
// family (not the external32 forms: they pass to the system), routed
// through the drop-in (fortran.hpp says why).  Through them a Fortran
// program's types are recorded at construction and freed handles are
// known, as a C program's are (dropin.md, "Types").
#include "fortran.hpp"

#if defined(OPEN_MPI)
using namespace loom_mpi::fortran;

using F = MPI_Fint;

LOOM_FORTRAN(type_contiguous, (F * count, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_contiguous(*count, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_vector, (F * count, F *blen, F *stride, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_vector(*count, *blen, *stride, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_create_hvector,
             (F * count, F *blen, MPI_Aint *stride, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_hvector(*count, *blen, *stride, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_indexed, (F * count, F *blens, F *displs, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_indexed(*count, blens, displs, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_create_hindexed,
             (F * count, F *blens, MPI_Aint *displs, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_hindexed(*count, blens, displs, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_create_indexed_block,
             (F * count, F *blen, F *displs, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_indexed_block(*count, *blen, displs, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_create_hindexed_block,
             (F * count, F *blen, MPI_Aint *displs, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_hindexed_block(*count, *blen, displs, type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_create_struct,
             (F * count, F *blens, MPI_Aint *displs, F *types_, F *out, F *ierr)) {
  std::vector<MPI_Datatype> ts = types(types_, *count);
  MPI_Datatype t;
  made(MPI_Type_create_struct(*count, blens, displs, ts.data(), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_create_subarray, (F * ndims, F *sizes, F *subsizes, F *starts, F *order,
                                    F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_subarray(*ndims, sizes, subsizes, starts, *order, type(old), &t), &t,
       out, ierr);
}
LOOM_FORTRAN(type_create_darray,
             (F * size, F *rank, F *ndims, F *gsizes, F *distribs, F *dargs, F *psizes,
              F *order, F *old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_darray(*size, *rank, *ndims, gsizes, distribs, dargs, psizes, *order,
                              type(old), &t),
       &t, out, ierr);
}
LOOM_FORTRAN(type_create_resized,
             (F * old, MPI_Aint *lb, MPI_Aint *extent, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_create_resized(type(old), *lb, *extent, &t), &t, out, ierr);
}
LOOM_FORTRAN(type_dup, (F * old, F *out, F *ierr)) {
  MPI_Datatype t;
  made(MPI_Type_dup(type(old), &t), &t, out, ierr);
}
LOOM_FORTRAN(type_commit, (F * dt, F *ierr)) {
  MPI_Datatype t = type(dt);
  int rc = MPI_Type_commit(&t);
  if (rc == MPI_SUCCESS) *dt = PMPI_Type_c2f(t);
  set_err(ierr, rc);
}
LOOM_FORTRAN(type_free, (F * dt, F *ierr)) {
  MPI_Datatype t = type(dt);
  int rc = MPI_Type_free(&t);
  if (rc == MPI_SUCCESS) *dt = PMPI_Type_c2f(t);
  set_err(ierr, rc);
}

LOOM_FORTRAN(pack, (void *in, F *incount, F *dt, void *out, F *outsize, F *position, F *c,
                    F *ierr)) {
  int pos = *position;
  int rc = MPI_Pack(buf(in), *incount, type(dt), out, *outsize, &pos, comm(c));
  if (rc == MPI_SUCCESS) *position = pos;
  set_err(ierr, rc);
}
LOOM_FORTRAN(unpack, (void *in, F *insize, F *position, void *out, F *outcount, F *dt, F *c,
                      F *ierr)) {
  int pos = *position;
  int rc = MPI_Unpack(in, *insize, &pos, buf(out), *outcount, type(dt), comm(c));
  if (rc == MPI_SUCCESS) *position = pos;
  set_err(ierr, rc);
}
LOOM_FORTRAN(pack_size, (F * incount, F *dt, F *c, F *size, F *ierr)) {
  int n = 0;
  int rc = MPI_Pack_size(*incount, type(dt), comm(c), &n);
  if (rc == MPI_SUCCESS) *size = n;
  set_err(ierr, rc);
}

#endif  // OPEN_MPI
