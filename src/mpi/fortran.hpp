// Open MPI's Fortran bindings, routed through the drop-in.
//
// Why: Open MPI's Fortran bindings (mpif.h and `use mpi`: mpi_send_ in
// libmpi_mpifh; `use mpi_f08`: mpi_send_f08, which calls ompi_send_f) call
// PMPI_Send and friends directly, so a Fortran program would never reach
// Loom's MPI_Send.  Worse, in a program mixing C and Fortran a Fortran
// receive is a PMPI_ receive: a C send to it that went Loom-to-Loom would
// deliver a rendezvous instead of the data (protocol.md, "Who runs Loom").
// MPICH's bindings call the MPI_ functions, so this layer exists for Open
// MPI only and compiles to nothing for MPICH.
//
// Each intercepted call gets two entry points, the gfortran name (mpi_send_:
// mpif.h and `use mpi`) and Open MPI's internal one (ompi_send_f: `use
// mpi_f08`), both defined by LOOM_FORTRAN; twelve get a third
// (LOOM_FORTRAN_PMPI).  A wrapper converts handles and
// the Fortran sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE,
// MPI_UNWEIGHTED: addresses of common blocks) as Open MPI's own bindings
// do, calls the drop-in's C entry point, and converts back.
#pragma once
#include <mpi.h>

// What every Fortran binding the drop-in replaces does alike, on both MPIs
// (here and in fortran_mpich_f08.cpp): an MPI_Fint is a Fortran INTEGER,
// LOGICAL is one with .TRUE. = 1 (gfortran), ierr may be absent (the
// optional ierror of mpi_f08), and indices count from 1.
namespace loom_mpi::fortran {

inline void set_err(MPI_Fint *ierr, int rc) {
  if (ierr) *ierr = (MPI_Fint)rc;
}
inline void set_logical(MPI_Fint *flag, int c) { *flag = c ? 1 : 0; }
// MPI_Waitany/Testany's index.
inline void index_out(MPI_Fint *index, int i) { *index = i == MPI_UNDEFINED ? i : i + 1; }
// MPI_Waitsome/Testsome's n indices, in place.
inline void indices_out(MPI_Fint *indices, int n) {
  if (n == MPI_UNDEFINED) return;
  for (int i = 0; i < n; ++i) ++indices[i];
}

}  // namespace loom_mpi::fortran

#if defined(OPEN_MPI)
#include <vector>

// Fortran INTEGER and LOGICAL are 4 bytes in Debian's Open MPI (gfortran);
// .TRUE. is 1 (OMPI_FORTRAN_VALUE_TRUE).
static_assert(sizeof(MPI_Fint) == sizeof(int), "Open MPI's MPI_Fint is a C int");

// The Fortran sentinels: common blocks whose addresses the program passes.
extern "C" {
extern int mpi_fortran_bottom_;
extern int mpi_fortran_in_place_;
extern int mpi_fortran_status_ignore_;
extern int mpi_fortran_statuses_ignore_;
extern int mpi_fortran_unweighted_;
extern int mpi_fortran_weights_empty_;
}

// Defines `void ompi_<lower>_f(args)` and its alias mpi_<lower>_.
#define LOOM_FORTRAN(lower, args)                                                      \
  extern "C" __attribute__((visibility("default"))) void ompi_##lower##_f args;        \
  extern "C" __attribute__((visibility("default"), alias("ompi_" #lower "_f"))) void   \
      mpi_##lower##_ args;                                                             \
  extern "C" void ompi_##lower##_f args

// The same, and the alias pmpi_<lower>_: for the calls whose `use mpi_f08`
// procedure calls the mpif.h binding's PMPI name (the LOGICAL arguments:
// the tests and probes, the topology constructors) instead of ompi_*_f.
#define LOOM_FORTRAN_PMPI(lower, args)                                                 \
  extern "C" __attribute__((visibility("default"))) void ompi_##lower##_f args;        \
  extern "C" __attribute__((visibility("default"), alias("ompi_" #lower "_f"))) void   \
      pmpi_##lower##_ args;                                                            \
  LOOM_FORTRAN(lower, args)

namespace loom_mpi::fortran {

inline void *buf(void *p) { return p == &mpi_fortran_bottom_ ? MPI_BOTTOM : p; }
inline void *inbuf(void *p) {
  if (p == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  return buf(p);
}
inline MPI_Datatype type(const MPI_Fint *f) { return PMPI_Type_f2c(*f); }
inline MPI_Comm comm(const MPI_Fint *f) { return PMPI_Comm_f2c(*f); }

// A C status for a Fortran one; written back by Status::out after the call.
// It starts as a copy of the Fortran one: a call leaves some fields alone
// (MPI_ERROR, except in the -all and -some calls), and Open MPI's bindings,
// which hand the Fortran status over as it is, keep them.
class Status {
 public:
  explicit Status(MPI_Fint *f) : f_(f == &mpi_fortran_status_ignore_ ? nullptr : f) {
    if (f_) PMPI_Status_f2c(f_, &c_);
  }
  MPI_Status *c() { return f_ ? &c_ : MPI_STATUS_IGNORE; }
  void out(int rc) {
    if (f_ && rc == MPI_SUCCESS) PMPI_Status_c2f(&c_, f_);
  }

 private:
  MPI_Fint *f_;
  MPI_Status c_{};
};

// C statuses for an array of n Fortran ones (MPI_STATUS_SIZE integers each),
// copied in and out as Status does.
class Statuses {
 public:
  Statuses(MPI_Fint *f, int n)
      : f_(f == &mpi_fortran_statuses_ignore_ ? nullptr : f), c_(f_ && n > 0 ? n : 0) {
    for (size_t i = 0; i < c_.size(); ++i) PMPI_Status_f2c(f_ + i * kInts, &c_[i]);
  }
  MPI_Status *c() { return f_ ? c_.data() : MPI_STATUSES_IGNORE; }
  // Statuses 0..n-1 (where the call filled them: MPI_ERR_IN_STATUS too).
  void out(int rc, int n) {
    if (!f_ || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) return;
    for (int i = 0; i < n; ++i)
      PMPI_Status_c2f(&c_[(size_t)i], f_ + (size_t)i * kInts);
  }

 private:
  static constexpr size_t kInts = sizeof(MPI_Status) / sizeof(MPI_Fint);  // MPI_STATUS_SIZE
  MPI_Fint *f_;
  std::vector<MPI_Status> c_;
};

// C requests for an array of n Fortran ones, written back after the call.
class Requests {
 public:
  Requests(MPI_Fint *f, int n) : f_(f), c_(n > 0 ? n : 0) {
    for (int i = 0; i < n; ++i) c_[(size_t)i] = PMPI_Request_f2c(f[i]);
  }
  MPI_Request *c() { return c_.data(); }
  void out() {
    for (size_t i = 0; i < c_.size(); ++i) f_[i] = PMPI_Request_c2f(c_[i]);
  }

 private:
  MPI_Fint *f_;
  std::vector<MPI_Request> c_;
};

// C datatypes for an array of n Fortran ones (Alltoallw, Type_create_struct).
inline std::vector<MPI_Datatype> types(const MPI_Fint *f, int n) {
  std::vector<MPI_Datatype> t(n > 0 ? (size_t)n : 0);
  for (int i = 0; i < n; ++i) t[(size_t)i] = PMPI_Type_f2c(f[i]);
  return t;
}

// A new handle (a constructor's, a nonblocking call's request), written
// back when the call succeeded.  The handle comes by address: it is read
// after the call that sets it.
inline MPI_Fint c2f(MPI_Datatype t) { return PMPI_Type_c2f(t); }
inline MPI_Fint c2f(MPI_Comm c) { return PMPI_Comm_c2f(c); }
inline MPI_Fint c2f(MPI_Request r) { return PMPI_Request_c2f(r); }
template <class Handle>
void made(int rc, const Handle *h, MPI_Fint *out, MPI_Fint *ierr) {
  if (rc == MPI_SUCCESS) *out = c2f(*h);
  set_err(ierr, rc);
}

// MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY arrays of the graph constructors.
inline const int *weights(MPI_Fint *w) {
  if (w == &mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (w == &mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return w;
}

}  // namespace loom_mpi::fortran

#endif  // OPEN_MPI
