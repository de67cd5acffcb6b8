// external32: the MPI standard's portable representation (big-endian, fixed
// sizes: long is 4 bytes, wchar 2, long double a 16-byte IEEE binary128).
// Data are packed natively by the plan, then converted element by element in
// typemap order; the walk yields runs of one primitive so homogeneous types
// convert in one tight loop.
#include <cstring>
#include <vector>

#include "api_call.hpp"
#include "bounds.hpp"
#include "pair.hpp"
#include "type.hpp"

namespace loom {
namespace {

using u128 = unsigned __int128;

// Calls f(prim, n) for the runs of primitives of `count` instances, in
// typemap order.  Raw-bytes types come out as LOOM_BYTE runs.
template <class F>
void walk(const loom_type_s *t, int64_t count, F &f) {
  if (count <= 0) return;
  if (t->homogeneous >= 0) return f((loom_prim)t->homogeneous, count * t->nelems);
  const loom_type_s *k = t->kids.empty() ? nullptr : t->kids[0];
  switch (t->combiner) {
    case LOOM_COMBINER_NAMED:
      if (t->raw_bytes) return f(LOOM_BYTE, count * t->size);
      for (int64_t c = 0; c < count; c++) {
        const PairLayout *p = pair_layout(t->prim);
        f(p->first, 1);
        f(p->second, 1);
      }
      return;
    case LOOM_COMBINER_DUP:
    case LOOM_COMBINER_RESIZED: return walk(k, count, f);
    case LOOM_COMBINER_SUBARRAY:
    case LOOM_COMBINER_DARRAY: return walk(t->layout, count, f);
    case LOOM_COMBINER_CONTIGUOUS:
      for (int64_t c = 0; c < count; c++) walk(k, t->ints[0], f);
      return;
    case LOOM_COMBINER_VECTOR:
    case LOOM_COMBINER_HVECTOR:
      for (int64_t c = 0; c < count * t->ints[0]; c++) walk(k, t->ints[1], f);
      return;
    case LOOM_COMBINER_STRUCT:
      for (int64_t c = 0; c < count; c++)
        for (size_t i = 0; i < t->kids.size(); i++) walk(t->kids[i], t->ints[i], f);
      return;
    default:  // the indexed family
      for (int64_t c = 0; c < count; c++)
        for (int64_t bl : t->ints) walk(k, bl, f);
      return;
  }
}

void reverse(unsigned char *dst, const unsigned char *src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = src[n - 1 - i];
}

// x87 80-bit extended (little-endian in 16 bytes) <-> binary128 big-endian.
void ld_to_ext(unsigned char *out, const unsigned char *in) {
  uint64_t mant;
  uint16_t se;
  std::memcpy(&mant, in, 8);
  std::memcpy(&se, in + 8, 2);
  u128 q = ((u128)se << 112) | ((u128)(mant & 0x7fffffffffffffffULL) << 49);
  unsigned char le[16];
  std::memcpy(le, &q, 16);
  reverse(out, le, 16);
}

void ext_to_ld(unsigned char *out, const unsigned char *in) {
  unsigned char le[16];
  reverse(le, in, 16);
  u128 q;
  std::memcpy(&q, le, 16);
  uint16_t se = (uint16_t)(q >> 112);
  uint64_t mant = (uint64_t)(q >> 49) & 0x7fffffffffffffffULL;
  if (se & 0x7fff) mant |= 1ULL << 63;  // the explicit integer bit
  std::memset(out, 0, 16);
  std::memcpy(out, &mant, 8);
  std::memcpy(out + 8, &se, 2);
}

// One element: native `in` -> external32 `out` (to_ext) or back.
void convert(loom_prim p, bool to_ext, unsigned char *out, const unsigned char *in) {
  const PrimInfo &pi = prim_info(p);
  const int64_t ns = pi.size, es = pi.ext32_size;
  switch (pi.cls) {
    case PrimInfo::LongDouble:
      return to_ext ? ld_to_ext(out, in) : ext_to_ld(out, in);
    case PrimInfo::Complex:
      if (ns == 32) {  // long double complex: two x87 halves
        convert(LOOM_LONG_DOUBLE, to_ext, out, in);
        return convert(LOOM_LONG_DOUBLE, to_ext, out + 16, in + 16);
      }
      reverse(out, in, ns / 2);
      return reverse(out + ns / 2, in + ns / 2, ns / 2);
    case PrimInfo::Int:
    case PrimInfo::Uint:
      if (ns != es) {  // narrower on the wire: keep the low bytes
        if (to_ext) return reverse(out, in, es);
        reverse(out, in, es);
        const bool neg = pi.cls == PrimInfo::Int && (in[0] & 0x80);
        std::memset(out + es, neg ? 0xff : 0, ns - es);
        return;
      }
      return reverse(out, in, ns);
    default:
      return reverse(out, in, ns);
  }
}

}  // namespace
}  // namespace loom

using namespace loom;

namespace {

// Checks shared by pack and unpack: *need is the external32 length and
// *native the native packed length of the message.
loom_status check_ext32(int64_t count, loom_type t, size_t *need, int64_t *native) {
  loom_status s = loom_external32_size(count, t, need);
  if (s != LOOM_OK) return s;
  if (!loom_type_is_committed(t)) return LOOM_ERR_TYPE;
  return message_bytes(t, count, native);
}

}  // namespace

extern "C" {

loom_status loom_external32_size(int64_t count, loom_type t, size_t *size) {
  if (!t) return LOOM_ERR_TYPE;
  if (count < 0) return LOOM_ERR_COUNT;
  if (!size) return LOOM_ERR_ARG;
  int64_t n;
  if (__builtin_mul_overflow(count, t->ext32_size, &n)) return LOOM_ERR_OVERFLOW;
  *size = (size_t)n;
  return LOOM_OK;
}

loom_status loom_pack_external32(const void *inbuf, int64_t count, loom_type t,
                                 void *outbuf, size_t outsize, size_t *position) {
  size_t need;
  int64_t native_bytes;
  loom_status s = check_ext32(count, t, &need, &native_bytes);
  if (s != LOOM_OK) return s;
  if (!position || *position > outsize) return LOOM_ERR_ARG;
  if (need == 0) return LOOM_OK;
  if (!inbuf || !outbuf) return LOOM_ERR_ARG;
  if (need > outsize - *position) return LOOM_ERR_TRUNCATE;
  return api_call([&] {
    std::vector<unsigned char> native(native_bytes);
    size_t pos = 0;
    loom_status st = loom_pack(inbuf, count, t, native.data(), native.size(), &pos);
    if (st != LOOM_OK) return st;
    const unsigned char *in = native.data();
    unsigned char *out = static_cast<unsigned char *>(outbuf) + *position;
    auto conv = [&](loom_prim p, int64_t k) {
      const PrimInfo &pi = prim_info(p);
      for (int64_t i = 0; i < k; i++, in += pi.size, out += pi.ext32_size)
        convert(p, true, out, in);
    };
    walk(t, count, conv);
    *position += need;
    return LOOM_OK;
  });
}

loom_status loom_unpack_external32(const void *inbuf, size_t insize, size_t *position,
                                   void *outbuf, int64_t count, loom_type t) {
  size_t need;
  int64_t native_bytes;
  loom_status s = check_ext32(count, t, &need, &native_bytes);
  if (s != LOOM_OK) return s;
  if (!position || *position > insize) return LOOM_ERR_ARG;
  if (need == 0) return LOOM_OK;
  if (!inbuf || !outbuf) return LOOM_ERR_ARG;
  if (need > insize - *position) return LOOM_ERR_TRUNCATE;
  return api_call([&] {
    std::vector<unsigned char> native(native_bytes);
    const unsigned char *in = static_cast<const unsigned char *>(inbuf) + *position;
    unsigned char *out = native.data();
    auto conv = [&](loom_prim p, int64_t k) {
      const PrimInfo &pi = prim_info(p);
      for (int64_t i = 0; i < k; i++, in += pi.ext32_size, out += pi.size)
        convert(p, false, out, in);
    };
    walk(t, count, conv);
    size_t pos = 0;
    loom_status st = loom_unpack(native.data(), native.size(), &pos, outbuf, count, t);
    if (st != LOOM_OK) return st;
    *position += need;
    return LOOM_OK;
  });
}

}  // extern "C"
