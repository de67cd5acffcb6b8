// MPI_Pack, MPI_Unpack, MPI_Pack_size (and their MPI-4 large-count forms
// where the header declares them).
#include "engine.hpp"
#include "errors.hpp"

#include <limits>

using namespace loom_mpi;

namespace {

// MPI_Pack_size of an uncommitted type (MPI_Pack_size does not require a
// commit): MPICH 4.0.2 raises MPI_ERR_TYPE, which the system call does;
// Open MPI 4.1.4 crashes, so there the drop-in answers count * size from
// Loom's decoding of the type.  MPI_SUCCESS, an error class or kFallback.
template <class S>
int uncommitted_size(int64_t incount, MPI_Datatype dt, S *size) {
  const Mirror *m = find(dt);
  Resolved r = m ? Resolved::ok : resolve(dt, &m);
  if (r == Resolved::freed) return MPI_ERR_TYPE;
  if (r != Resolved::bad_type || kSystemRejectsUncommittedPackSize) return kFallback;
  loom_type t = decode_uncached(dt);
  if (!t) return kFallback;
  int64_t need;
  bool fits = !__builtin_mul_overflow(incount, loom_type_size(t), &need) &&
              need <= (int64_t)std::numeric_limits<S>::max();
  loom_type_free(t);
  if (!fits) return MPI_ERR_COUNT;
  *size = (S)need;
  return MPI_SUCCESS;
}

// Pack size: the system's answer (it is what other processes and the
// system's own unpack expect), raised to count * size (what Loom packs)
// should it ever be less.  Where a system answers success with a size that
// is none, the drop-in raises MPI_ERR_COUNT: a negative count (Open MPI
// answers a negative size), or a size S cannot hold (MPICH answers
// MPI_UNDEFINED, Open MPI a wrapped value; MPI_Pack_size_c has the size).
template <class S>
int pack_size_common(int64_t incount, MPI_Datatype dt, MPI_Comm comm, S *size,
                     int (*sys)(MPI_Datatype, MPI_Comm, S *, int64_t)) {
  if (comm != MPI_COMM_NULL && dt != MPI_DATATYPE_NULL && size) {
    if (incount < 0) return raise(comm, MPI_ERR_COUNT);
    int rc = loom_side([&] { return uncommitted_size(incount, dt, size); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise(comm, rc);
  }
  int rc = sys(dt, comm, size, incount);
  if (rc != MPI_SUCCESS || !size || incount <= 0) return rc;
  MPI_Count unit;  // the type is known valid from here on
  int64_t need;
  if (PMPI_Type_size_x(dt, &unit) != MPI_SUCCESS || unit < 0) return rc;
  if (__builtin_mul_overflow(incount, (int64_t)unit, &need) ||
      need > (int64_t)std::numeric_limits<S>::max())
    return raise(comm, MPI_ERR_COUNT);
  if (need > (int64_t)*size) *size = (S)need;
  return rc;
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
             void *outbuf, int outsize, int *position, MPI_Comm comm) {
  if (comm != MPI_COMM_NULL) {
    int rc = loom_side(
        [&] { return pack_core(false, inbuf, incount, datatype, outbuf, outsize, position); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise(comm, rc);
  }
  // MPI_COMM_NULL: the system raises MPI_ERR_COMM on the handler it uses.
  return PMPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, comm);
}

LOOM_MPI_EXPORT int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
               int outcount, MPI_Datatype datatype, MPI_Comm comm) {
  if (comm != MPI_COMM_NULL) {
    int rc = loom_side(
        [&] { return unpack_core(false, inbuf, insize, position, outbuf, outcount, datatype); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise(comm, rc);
  }
  return PMPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype, comm);
}

LOOM_MPI_EXPORT int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                  int *size) {
  return pack_size_common<int>(
      incount, datatype, comm, size,
      [](MPI_Datatype d, MPI_Comm c, int *s, int64_t n) {
        return PMPI_Pack_size((int)n, d, c, s);
      });
}

#if LOOM_MPI_HAVE_LARGE_COUNT
LOOM_MPI_EXPORT int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
               void *outbuf, MPI_Count outsize, MPI_Count *position,
               MPI_Comm comm) {
  if (comm != MPI_COMM_NULL) {
    int rc = loom_side(
        [&] { return pack_core(false, inbuf, incount, datatype, outbuf, outsize, position); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise(comm, rc);
  }
  return PMPI_Pack_c(inbuf, incount, datatype, outbuf, outsize, position, comm);
}

LOOM_MPI_EXPORT int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
                 void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
                 MPI_Comm comm) {
  if (comm != MPI_COMM_NULL) {
    int rc = loom_side(
        [&] { return unpack_core(false, inbuf, insize, position, outbuf, outcount, datatype); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise(comm, rc);
  }
  return PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, datatype, comm);
}

LOOM_MPI_EXPORT int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                    MPI_Count *size) {
  return pack_size_common<MPI_Count>(
      incount, datatype, comm, size,
      [](MPI_Datatype d, MPI_Comm c, MPI_Count *s, int64_t n) {
        return PMPI_Pack_size_c((MPI_Count)n, d, c, s);
      });
}
#endif

