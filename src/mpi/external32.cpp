// MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the
// "external32" representation (big-endian, the standard's sizes) done by
// Loom, which follows the standard where the systems do not (Open MPI 4.1.4
// sizes MPI_LONG as 8 bytes in external32; the standard says 4).  Other
// data representations go to the system.  Errors are raised on
// MPI_COMM_WORLD, as both system MPIs do for these calls.
#include "engine.hpp"
#include "errors.hpp"

#include <cstring>
#include <limits>

using namespace loom_mpi;

namespace {

bool is_external32(const char *datarep) {
  return datarep && std::strcmp(datarep, "external32") == 0;
}

// external32 bytes for count instances; MPI_SUCCESS, an error class or
// kFallback.  Size queries do not require a committed type, so a type
// the mirror refuses for want of a commit is decoded just for the answer.
int ext32_size(MPI_Datatype dt, int64_t count, int64_t *size) {
  if (dt == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  const Mirror *m = find(dt);
  int64_t unit = -1;
  if (m) {
    unit = m->type ? m->ext32_size : -1;
  } else {
    switch (resolve(dt, &m)) {
      case Resolved::ok: unit = m->ext32_size; break;
      case Resolved::fallback: return kFallback;
      case Resolved::freed: return MPI_ERR_TYPE;
      case Resolved::bad_type: {
        loom_type t = decode_uncached(dt);
        if (!t) return kFallback;
        size_t s = 0;
        if (loom_external32_size(1, t, &s) == LOOM_OK) unit = (int64_t)s;
        loom_type_free(t);
        break;
      }
    }
  }
  if (unit < 0) return kFallback;
  if (__builtin_mul_overflow(count, unit, size)) return MPI_ERR_COUNT;
  return MPI_SUCCESS;
}

template <class S>
int external_size_common(const char *datarep, int64_t count, MPI_Datatype dt,
                         S *size) {
  if (!is_external32(datarep) || !size) return kFallback;
  int64_t s;
  int rc = ext32_size(dt, count, &s);
  if (rc != MPI_SUCCESS) return rc;
  if (s > (int64_t)std::numeric_limits<S>::max()) return kFallback;
  *size = (S)s;
  return MPI_SUCCESS;
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                      MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                      MPI_Aint *position) {
  if (is_external32(datarep)) {
    int rc = loom_side(
        [&] { return pack_core(true, inbuf, incount, datatype, outbuf, outsize, position); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise_nocomm(rc);
  }
  return PMPI_Pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

LOOM_MPI_EXPORT int MPI_Unpack_external(const char datarep[], const void *inbuf,
                        MPI_Aint insize, MPI_Aint *position, void *outbuf,
                        int outcount, MPI_Datatype datatype) {
  if (is_external32(datarep)) {
    int rc = loom_side(
        [&] { return unpack_core(true, inbuf, insize, position, outbuf, outcount, datatype); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise_nocomm(rc);
  }
  return PMPI_Unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

LOOM_MPI_EXPORT int MPI_Pack_external_size(const char datarep[], int incount,
                           MPI_Datatype datatype, MPI_Aint *size) {
  int rc = loom_side([&] { return external_size_common(datarep, incount, datatype, size); });
  if (rc == MPI_SUCCESS) return rc;
  if (rc != kFallback) return raise_nocomm(rc);
  return PMPI_Pack_external_size(datarep, incount, datatype, size);
}

#if LOOM_MPI_HAVE_LARGE_COUNT
LOOM_MPI_EXPORT int MPI_Pack_external_c(const char datarep[], const void *inbuf,
                        MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                        MPI_Count outsize, MPI_Count *position) {
  if (is_external32(datarep)) {
    int rc = loom_side(
        [&] { return pack_core(true, inbuf, incount, datatype, outbuf, outsize, position); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise_nocomm(rc);
  }
  return PMPI_Pack_external_c(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

LOOM_MPI_EXPORT int MPI_Unpack_external_c(const char datarep[], const void *inbuf,
                          MPI_Count insize, MPI_Count *position, void *outbuf,
                          MPI_Count outcount, MPI_Datatype datatype) {
  if (is_external32(datarep)) {
    int rc = loom_side(
        [&] { return unpack_core(true, inbuf, insize, position, outbuf, outcount, datatype); });
    if (rc == MPI_SUCCESS) return rc;
    if (rc != kFallback) return raise_nocomm(rc);
  }
  return PMPI_Unpack_external_c(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

LOOM_MPI_EXPORT int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
                             MPI_Datatype datatype, MPI_Count *size) {
  int rc = loom_side([&] { return external_size_common(datarep, incount, datatype, size); });
  if (rc == MPI_SUCCESS) return rc;
  if (rc != kFallback) return raise_nocomm(rc);
  return PMPI_Pack_external_size_c(datarep, incount, datatype, size);
}
#endif

