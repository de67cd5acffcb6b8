// The shared body of the MPI_Pack family: argument checks in the order the
// system MPIs apply them, then a memcpy (contiguous types) or a Loom plan.
// Inline so that MPI_Pack of a small message costs one lock-free lookup and
// a handful of compares before the copy.
#pragma once
#include "config.hpp"
#include "mirror.hpp"

#include <algorithm>
#include <cstring>

namespace loom_mpi {

// Returned instead of an MPI error class: let the system MPI do this call.
constexpr int kFallback = -1;

// Runs Loom's side of an MPI_Pack-family call.  No C++ exception crosses an
// MPI entry point: one (an allocation failing while a type is mirrored)
// hands the call to the system MPI, before anything was written.
template <class F>
int loom_side(F &&body) noexcept {
  try {
    return body();
  } catch (...) {
    return kFallback;
  }
}

// Looks up the mirror of dt; MPI_SUCCESS, an error class or kFallback.
inline int mirror_of(MPI_Datatype dt, const Mirror **m) {
  if ((*m = find(dt)) != nullptr) return (*m)->type ? MPI_SUCCESS : kFallback;
  switch (resolve(dt, m)) {
    case Resolved::ok: return MPI_SUCCESS;
    case Resolved::fallback: return kFallback;
    default: return MPI_ERR_TYPE;
  }
}

// Base pointer and type to hand Loom for user buffer @p buf: MPI_BOTTOM
// (null) means absolute displacements, served by the shifted type.
inline bool user_base(const Mirror &m, const void *buf, loom_type *t,
                      const void **base) {
  if (buf) {
    *t = m.type;
    *base = buf;
    return true;
  }
  *t = bottom_type(m);
  *base = reinterpret_cast<const void *>((uintptr_t)m.true_lb);
  return *t != nullptr;
}

// A null user buffer is an error unless it can be MPI_BOTTOM with absolute
// addresses: a derived type whose `count` instances lie at real addresses.
// Open MPI applies "named type, or data starting at 0" and crashes on data
// at other addresses in the null page; no address below 4096 is ever
// mapped, so the drop-in rejects those too.  (MPICH 4.0.2 rejects
// MPI_BOTTOM in MPI_Pack outright; the drop-in follows the standard.)
inline bool bad_null(const Mirror &m, const void *buf, int64_t count = 1) {
  if (buf) return false;
  if (m.predefined) return true;
  const __int128 lowest = m.true_lb + std::min<__int128>(0, (__int128)(count - 1) * m.extent);
  return lowest < 4096;
}

// The checks pack and unpack share, in the order Open MPI applies them
// (MPICH's differs only in what it does not check): the type, the count,
// the position and size of the packed buffer, then, when the message has
// bytes (*need of them), null buffers, and last whether they fit (a
// position past the end fits nothing, not even an empty message).  `user`
// is the typed buffer, `packed` the packed one; *m is the type's mirror.
// Always inlined: as a call of its own it saved and restored six registers,
// a quarter of its cost on a small message.
template <class P>
__attribute__((always_inline)) inline int check_args(bool ext32, const void *user, int64_t count,
                                                     MPI_Datatype dt, const void *packed,
                                                     int64_t size, const P *position,
                                                     const Mirror **m, int64_t *need) {
  if (dt == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  if (!position || size < 0 || *position < 0) return MPI_ERR_ARG;
  int rc = mirror_of(dt, m);
  if (rc != MPI_SUCCESS) return rc;
  int64_t unit = ext32 ? (*m)->ext32_size : (*m)->size;
  if (unit < 0) return kFallback;
  if (__builtin_mul_overflow(count, unit, need)) return MPI_ERR_COUNT;
  if (*need > 0) {
    if (bad_null(**m, user, count)) return kErrNullUserBuffer;
    if (!packed) return MPI_ERR_ARG;
  }
  if (*position > size || size - (int64_t)*position < *need) return MPI_ERR_TRUNCATE;
  return MPI_SUCCESS;
}

// Below the size that several threads take (pack_threads), the drop-in
// calls loom_pack and loom_unpack themselves: through the parallel calls
// with one thread, a seventh argument on the stack and a jump cost 10
// instructions of a small message's ~170 outside Loom's kernel.
template <class P>
int pack_core(bool ext32, const void *inbuf, int64_t count, MPI_Datatype dt,
              void *outbuf, int64_t outsize, P *position) {
  const Mirror *m;
  int64_t need;
  int rc = check_args(ext32, inbuf, count, dt, outbuf, outsize, position, &m, &need);
  if (rc != MPI_SUCCESS || need == 0) return rc;
  char *dst = static_cast<char *>(outbuf) + *position;
  if (!ext32 && m->contig) {
    const char *src = inbuf ? static_cast<const char *>(inbuf) + m->true_lb
                            : reinterpret_cast<const char *>((uintptr_t)m->true_lb);
    loom_copy(dst, src, (size_t)need);
  } else {
    loom_type t;
    const void *base;
    if (!user_base(*m, inbuf, &t, &base)) return kFallback;
    size_t pos = 0;
    const int threads = pack_threads((size_t)need);
    loom_status st =
        ext32          ? loom_pack_external32(base, count, t, dst, (size_t)need, &pos)
        : threads == 1 ? loom_pack(base, count, t, dst, (size_t)need, &pos)
                       : loom_pack_parallel(base, count, t, dst, (size_t)need, &pos, threads);
    if (st != LOOM_OK || (int64_t)pos != need) return kFallback;
  }
  *position += (P)need;
  return MPI_SUCCESS;
}

template <class P>
int unpack_core(bool ext32, const void *inbuf, int64_t insize, P *position,
                void *outbuf, int64_t count, MPI_Datatype dt) {
  const Mirror *m;
  int64_t need;
  int rc = check_args(ext32, outbuf, count, dt, inbuf, insize, position, &m, &need);
  if (rc != MPI_SUCCESS || need == 0) return rc;
  const char *src = static_cast<const char *>(inbuf) + *position;
  if (!ext32 && m->contig) {
    char *dst = outbuf ? static_cast<char *>(outbuf) + m->true_lb
                       : reinterpret_cast<char *>((uintptr_t)m->true_lb);
    loom_copy(dst, src, (size_t)need);
  } else {
    loom_type t;
    const void *base;
    if (!user_base(*m, outbuf, &t, &base)) return kFallback;
    size_t pos = 0;
    void *b = const_cast<void *>(base);
    const int threads = pack_threads((size_t)need);
    loom_status st =
        ext32          ? loom_unpack_external32(src, (size_t)need, &pos, b, count, t)
        : threads == 1 ? loom_unpack(src, (size_t)need, &pos, b, count, t)
                       : loom_unpack_parallel(src, (size_t)need, &pos, b, count, t, threads);
    if (st != LOOM_OK || (int64_t)pos != need) return kFallback;
  }
  *position += (P)need;
  return MPI_SUCCESS;
}

}  // namespace loom_mpi
