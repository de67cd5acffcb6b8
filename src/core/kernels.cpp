// Movers specialised by plan shape.  Fixed leaf-block sizes compile to typed
// moves; large blocks go to memcpy (glibc switches to non-temporal stores
// when the copy exceeds the cache).  Instantiation is bounded: a few shapes
// times the fixed block sizes times {pack, unpack}.
//
// The whole file is compiled once per instruction set (Highway's
// foreach_target re-includes it with each target's code generation
// enabled), so a fixed-size move or a strided loop becomes that target's
// widest loads, stores and shuffles; isa.cpp chooses the set a plan's
// kernels come from.  The code itself stays portable C++.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels.cpp"
// The targets: the compiler's baseline, AVX2, AVX-512 (F/VL/DQ/BW) and
// AVX-512 with VBMI/VBMI2 (Highway's AVX3_DL); the SSE3/SSE4 steps between
// baseline and AVX2 add nothing to byte moves.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif
#define HWY_WANT_AVX3_DL 1
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "long_copy-inl.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "cache_size.hpp"
#include "isa.hpp"
#include "jit_moves.hpp"
#include "permute_table.hpp"
#include "plan.hpp"
#include "run_moves.hpp"
#include "step_table.hpp"

HWY_BEFORE_NAMESPACE();
namespace loom {
namespace HWY_NAMESPACE {
namespace {

template <bool Pack>
inline void mv(char *user, char *s, size_t n) {
  if (Pack) std::memcpy(s, user, n);
  else std::memcpy(user, s, n);
}
// The same for a length known only at run time, possibly long: a
// contiguous region of the user's (`Region`) or a row (long_copy).
template <bool Pack, bool Region = false>
inline void mv_long(char *user, char *s, size_t n) {
  if (Pack) long_copy(s, user, n, Region);
  else long_copy(user, s, n, Region);
}

// AVX-512's unpacking masked-store loops prefetch for writing the lines
// they reach kStoreAhead bytes later where masked stores wait for lines in
// no cache (isa.hpp cold_masked_stores_slow): PREFETCHW, which every CPU
// with AVX-512 has and Highway's targets do not enable by name.  Only in
// loops of kFromMemory packed bytes or more, which cannot all come from
// L2: in cache the prefetches cost unpacks of random float patterns 10%
// at 2 KiB (up to 1.6x) and 7% at 64 KiB (in-process A/B, Zen 5 VM).
constexpr int64_t kStoreAhead = 1024;
inline void prefetch_write(const char *p) { asm volatile("prefetchw %0" : : "m"(*p)); }
inline bool stores_ahead(int64_t bytes) {
  constexpr bool kAvx512 = HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3;
  return kAvx512 && bytes >= kFromMemory && cold_masked_stores_slow();
}

// A table's offsets or masks into locals, one scalar load each.  Copied
// as the compiler copies an array (vector loads and stores), their reloads
// from the stack as scalars wait for those stores to retire: store-to-load
// forwarding from a wider store fails (a kernel's setup cost 3-5 ns more,
// a sixth of a 2 KiB pack's time; AMD EPYC Zen 4 VM).
template <class T, int M>
inline void load_scalars(T (&to)[M], const T *from) {
  for (int j = 0; j < M; j++) {
    to[j] = from[j];
    asm("" : "+r"(to[j]));
  }
}

// Leaf-block size classes.  Positive: that exact size, a typed move.
// Negative: a range of sizes moved branch-free by K overlapping chunks of C
// bytes (chunk i at min(i*C, n-C)), so odd sizes such as 40 or 92 bytes need
// no libc call.  Zero: any size, decided per block.
constexpr int kAnySize = 0;

template <int C>
struct Chunk {
  char b[C];
};

template <bool Pack, int C, int K>
inline void mv_chunks(char *user, char *s, int64_t n) {
  char *dst = Pack ? s : user;
  const char *src = Pack ? user : s;
  for (int i = 0; i < K; i++) {
    const int64_t o = i * C < n - C ? i * C : n - C;
    Chunk<C> v;
    std::memcpy(&v, src + o, C);
    std::memcpy(dst + o, &v, C);
  }
}

// n bytes (H < n <= H + T) as a head of H bytes and a tail of T ending at
// n: two moves where equal chunks would take three.
template <bool Pack, int H, int T>
inline void mv_head_tail(char *user, char *s, int64_t n) {
  char *dst = Pack ? s : user;
  const char *src = Pack ? user : s;
  Chunk<H> h;
  Chunk<T> t;
  std::memcpy(&h, src, H);
  std::memcpy(&t, src + n - T, T);
  std::memcpy(dst, &h, H);
  std::memcpy(dst + n - T, &t, T);
}

constexpr bool kHas32 = HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 ||
                        HWY_TARGET == HWY_AVX3_DL;
constexpr bool kHas64 = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;
constexpr int kVectorBytes = kHas64 ? 64 : kHas32 ? 32 : 16;  // the widest register
// The narrowest lane of a two-source permute (jit_moves): bytes with
// VBMI, words with AVX-512BW, else dwords.
constexpr int kPermuteLane = HWY_TARGET == HWY_AVX3_DL ? 1 : kHas64 ? 2 : 4;

// n bytes (H W < n <= (H + 1) W) as a compiler expands a memcpy of a
// length it knows: H moves of W bytes from the start, then one move of
// the smallest power of two T >= n - H W ending at n (40 bytes: 32 and 8;
// 44: 32 and 16 from byte 28; 36: 32 and 4).  Against a head and a fixed
// tail (32 and 16 bytes, the 16 over bytes the head moved; or 16, 16 and
// 8 for rows more than a page apart, where a tail over moved bytes had
// run 0.62x the hand loop on the AMD EPYC VM): 1020 blocks of 40 bytes
// 40880 apart (NAS LU y) packed 1.12x faster (16, 16, 8: 0.72-0.76x the
// hand loop on the Intel Xeon VM), 33-48-byte blocks 200 bytes apart
// 1.00-1.5x, 5000 apart 1.0-1.4x, unpacking 0.99-1.3x (standalone loops,
// Intel Xeon VM).  A long row chooses T once (row_pairs); 65-96-byte
// blocks by branches (mv_heads_tail), which a run of equal blocks
// predicts.
template <bool Pack, int W, int H, int T>
inline void mv_heads(char *user, char *s, int64_t n) {
  for (int i = 0; i < H; i++) mv<Pack>(user + i * W, s + i * W, W);
  mv<Pack>(user + n - T, s + n - T, T);
}
// Calls f with std::integral_constant<int, T>, T the smallest power of
// two >= r (1 <= r <= W).
template <int W, class F>
inline decltype(auto) by_tail(int64_t r, F &&f) {
  using std::integral_constant;
  if constexpr (W >= 32) if (r > 16) return f(integral_constant<int, 32>());
  if constexpr (W >= 16) if (r > 8) return f(integral_constant<int, 16>());
  if constexpr (W >= 8) if (r > 4) return f(integral_constant<int, 8>());
  if (r > 2) return f(integral_constant<int, 4>());
  if (r > 1) return f(integral_constant<int, 2>());
  return f(integral_constant<int, 1>());
}
template <bool Pack, int W, int H = 1>
inline void mv_heads_tail(char *user, char *s, int64_t n) {
  by_tail<W>(n - H * W, [&](auto t) { mv_heads<Pack, W, H, decltype(t)::value>(user, s, n); });
}
// 33..48 bytes alone without branches: a 32-byte move and a 16-byte tail
// where the target has 32-byte registers, else three 16-byte chunks.
template <bool Pack>
inline void mv_33_48(char *user, char *s, int64_t n) {
  if constexpr (kHas32) mv_head_tail<Pack, 32, 16>(user, s, n);
  else mv_chunks<Pack, 16, 3>(user, s, n);
}
// The heads of the size classes a row moves by mv_heads (-1 to -4, see
// mv_block): W bytes, H of them.
template <int B>
constexpr int pair_head() { return B == -1 ? 4 : B == -2 ? 8 : B == -3 || !kHas32 ? 16 : 32; }
template <int B>
constexpr int pair_heads() { return B == -4 && !kHas32 ? 2 : 1; }

// 49..63 (B = -5) and 97..128 bytes (-7): on AVX-512 a head of 32 or 64
// bytes and a tail of 32 or 64 (2 KiB of 12-16 doubles or 24 floats in
// strided blocks 1.43-1.48x faster packing, 1.39-1.64x unpacking than by
// 16-byte chunks), else chunks of 16 (AVX2's 32-byte chunks lost
// 0.81-0.87x to them on 12-18 doubles).  (In-process A/B, Intel Xeon VM.)
// 65..96 bytes (-6) on AVX-512 as a compiler moves them, a 64-byte head
// and a tail of up to 32 (mv_heads_tail).
template <bool Pack, int B>
inline void mv_49_128(char *user, char *s, int64_t n) {
  if constexpr (kHas64 && B == -6) mv_heads_tail<Pack, 64>(user, s, n);
  else if constexpr (kHas64) mv_head_tail<Pack, B == -5 ? 32 : 64, B == -5 ? 32 : 64>(user, s, n);
  else mv_chunks<Pack, 16, B == -5 ? 4 : B == -6 ? 6 : 8>(user, s, n);
}

#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
// The bytes of a register under mask m (the lanes a run names).
template <bool Pack>
inline void mv_masked(char *user, char *s, uint64_t m) {
  if (Pack) _mm512_mask_storeu_epi8(s, m, _mm512_maskz_loadu_epi8(m, user));
  else _mm512_mask_storeu_epi8(user, m, _mm512_maskz_loadu_epi8(m, s));
}

// A run of any length: whole registers while more than two remain, then
// one or two masked moves.  The second only where the run has bytes for
// it: a masked move of no lanes cost as much as one of 64 on the AMD EPYC
// VM (Zen 4 class), and skipping it ran runs of 1-8 doubles in random
// order (CSR rows) 1.45-1.6x faster, 64 KiB and 1 MiB alike, particle
// runs of 10 doubles 0.9-1.2x (the branch mispredicts around 64 bytes).
// Measured slower: a second move overlapping the first (ending at the
// run's end), whole registers while more than one remains (0.7-0.8x on
// the particle runs).  Exact: whole moves stay inside the run, masked
// loads read only its lanes (a masked-off lane never faults) and masked
// stores write only them.
template <bool Pack>
inline void mv_run(char *user, char *s, int64_t n) {
  if (Pack && n > 128) {
    // Packing runs of more than two registers, the last move is a whole
    // one ending at the run's end, over bytes the one before moved (the
    // same bytes again, exact): runs of 129-1024 bytes packed 1.03-1.07x
    // faster than with masked moves (4 and 64 KiB, none below 0.97x);
    // unpacking so ran 1.02-1.04x on average but down to 0.87x (in-process
    // A/B, AMD EPYC Zen 4 VM).  The last register loads first, as glibc's
    // memcpy loads a copy's tail before its loop: the run's last line is
    // then asked for beside its first.  From beyond L1 that matters: a
    // cube's XZ face (1 KiB rows 256 KiB apart, their lines in few of
    // L1's and L2's sets) packed 1.03x faster so (0.98x -> 1.03x memcpy
    // a row; a standalone loop of these moves 1.23x faster so); in
    // L1 (random blocks of 3-512 bytes at 2 KiB) 1.00x.
    const int64_t last = n - 64;
    const __m512i tail = _mm512_loadu_si512(user + last);
    for (int64_t o = 0; o < last; o += 64)
      _mm512_storeu_si512(s + o, _mm512_loadu_si512(user + o));
    _mm512_storeu_si512(s + last, tail);
    return;
  }
  // Unpacking (packing took longer runs above): whole registers while
  // more than two remain.
  for (; n > 128; n -= 64, user += 64, s += 64)
    _mm512_storeu_si512(user, _mm512_loadu_si512(s));
  const uint64_t all = ~uint64_t(0);
  mv_masked<Pack>(user, s, _bzhi_u64(all, (unsigned)std::min<int64_t>(n, 64)));
  if (n > 64) mv_masked<Pack>(user + 64, s + 64, _bzhi_u64(all, (unsigned)(n - 64)));
}
#endif

// Any length.  With AVX-512, 65 bytes to 1 KiB move by mv_run rather than
// a libc call (with AVX2, to 512 bytes, below): rows of a 3D array's
// interior, from 240 bytes (30^3 of 32^3 doubles, 216 KB) to 800 (100^3
// of 102^3, 8 MB), packed at 0.82-0.92x the hand loop by memcpy and
// 0.94-1.04x so (unpacked 0.85-0.97x / 0.97-1.08x); longer rows as fast
// either way.
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
constexpr int64_t kRunMax = 1024;
#endif
#if HWY_TARGET == HWY_AVX2
// AVX2's register loop for runs of 65 bytes to kRunMax: 128 bytes a step,
// the last step ending at the run's end.  Blocks of 384-512 bytes (rows of
// sub-arrays) packed 0.72-0.89x the hand loop by memcpy, its call and size
// dispatch a block; so 1.09-1.27x faster at 2 and 64 KiB (in-process A/B,
// random wide blocks, AMD EPYC VM).  1 KiB blocks ran 0.90-1.10x so: they
// keep memcpy.
constexpr int64_t kRunMax = 512;
template <bool Pack>
inline void mv_run(char *user, char *s, int64_t n) {
  if (n <= 128) return mv_head_tail<Pack, 64, 64>(user, s, n);
  for (int64_t o = 0; o < n - 128; o += 128) mv<Pack>(user + o, s + o, 128);
  mv<Pack>(user + n - 128, s + n - 128, 128);
}
#endif
template <bool Pack>
inline void mv_any(char *user, char *s, int64_t n) {
  if (n < 4) {
    for (int64_t i = 0; i < n; i++) (Pack ? s : user)[i] = (Pack ? user : s)[i];
  } else if (n <= 8) {
    mv_chunks<Pack, 4, 2>(user, s, n);
  } else if (n <= 16) {
    mv_chunks<Pack, 8, 2>(user, s, n);
  } else if (n <= 32) {
    mv_chunks<Pack, 16, 2>(user, s, n);
  } else if (n <= 64) {
    mv_chunks<Pack, 16, 4>(user, s, n);
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
  } else if (n <= kRunMax) {
    mv_run<Pack>(user, s, n);
#endif
  } else {
    mv_long<Pack>(user, s, n);
  }
}

template <bool Pack, int B>
inline void mv_block(char *user, char *s, int64_t b) {
  if constexpr (B > 0) mv<Pack>(user, s, B);
  // 5..48 bytes a block at a time (short rows, a row's last, an index's
  // blocks) by overlapping chunks without branches: by mv_heads_tail,
  // 28-byte blocks 40 bytes apart unpacked 0.8x as fast (AVX-512: only
  // the row's last block takes it).
  else if constexpr (B == -1) mv_chunks<Pack, 4, 2>(user, s, b);    // 5..7
  else if constexpr (B == -2) mv_chunks<Pack, 8, 2>(user, s, b);    // 9..15
  else if constexpr (B == -3) mv_chunks<Pack, 16, 2>(user, s, b);   // 17..31
  else if constexpr (B == -4) mv_33_48<Pack>(user, s, b);
  else if constexpr (B <= -5 && B >= -7) mv_49_128<Pack, B>(user, s, b);
  else mv_any<Pack>(user, s, b);
}

// The class of a block of b bytes (see mv_block).
int size_class(int64_t b) {
  switch (b) {
    case 1: case 2: case 3: case 4: case 8: case 12: case 16: case 24: case 32: case 64:
      return (int)b;
  }
  if (b < 5) return kAnySize;
  if (b < 8) return -1;
  if (b < 16) return -2;
  if (b < 32) return -3;
  if (b <= 48) return -4;
  if (b < 64) return -5;
  if (b <= 96) return -6;
  if (b <= 128) return -7;
  return kAnySize;
}

// Eight blocks of B bytes st apart, gathered in a register and stored at
// once (packing).
template <int B>
inline char *gather8(const char *p, char *s, int64_t st) {
  Chunk<8 * B> v;
  for (int i = 0; i < 8; i++) std::memcpy(v.b + i * B, p + i * st, B);
  std::memcpy(s, &v, 8 * B);
  return s + 8 * B;
}

// Packing blocks of a size that takes two moves (3, 5-7, 9-15, 17-31
// bytes: RGB pixels, 12-byte float triples, 24-byte double triples), every
// block of a row but its last moves as one move of the next width, W
// bytes: it reads W - b bytes of the user's past the block, and writes
// them to the stream where the next block's move then writes that block
// (nothing outside the stream's range, which the last block ends).  The
// bytes read lie between the block's start and the row's last byte, where
// the stride plus the block is at least W (any stride of a block at least
// its length: blocks take more than W / 2 bytes): on pages the row
// touches where the stride is at most a page, so a fault is impossible.
// Strides below W read into the next blocks: 20 bytes of every 24 packed
// 1.3-1.9x faster so than by two moves a block (2 and 64 KiB, in-process
// A/B, AMD EPYC VM), from 0.52-0.66x the hand loop to 0.94-1.08x.  The vectoriser
// moves a hand loop's 3 floats in one move too: WRF's x faces (12 bytes of
// every 128) packed at 0.6-0.78x its speed, 1.03-1.13x with the wide
// moves.  Time per call on the Intel VM, 100 blocks (in L1) / 20000: 5
// bytes of every 40 0.46 / 0.80x, 6 of 32 0.39 / 0.59x, 12 of 128 0.70 /
// 0.78x, 20 of 64 0.64 / 0.83x, 24 of 256 0.68 / 0.90x; 3 of 64 and of
// 256 (a size class of its own since, before a byte loop) 0.66-0.75x,
// unpacking too.  Unpacking writes only the typemap's bytes.  0: no such
// move.  On AVX-512, 49-63-byte blocks move as one 64-byte move where the
// stride is 64 or more, both ways: 2 KiB of 7 doubles of every 8, 15
// floats of 17 packed 1.35-1.53x faster than by two 32-byte moves (or four
// 16-byte ones), unpacked 1.07-1.32x; 33-48-byte blocks keep their two
// moves (5 doubles of every 8 or 10 unpacked 0.63-0.89x as fast by one).
// (In-process A/B, Intel Xeon VM.)
template <int B>
constexpr int wide_move() {
  if constexpr (B == 3) return 4;
  if constexpr (B == -1) return 8;
  if constexpr (B == 12 || B == -2) return 16;
  if constexpr ((B == 24 || B == -3) && kHas32) return 32;
  if constexpr (B == -5 && kHas64) return 64;
  return 0;
}

#if HWY_TARGET == HWY_AVX2
// Packing blocks of 33-48 bytes two at a time: the pair's 2b bytes of
// stream take three 32-byte stores (the first block's head; its tail and
// the second block's head blended, lanes below b - 32 from the first; the
// second block's last 32 bytes) where a block's head and tail take four,
// as the vectoriser packs a hand loop's 5 or 6 doubles.  Every byte read
// lies between the first block's start and the second one's end, on their
// pages where the stride is at most a page.  In-process A/B against head
// and tail (AMD EPYC VM, 2 KiB): 5 doubles of every 7 or 9 1.14-1.19x,
// 11 floats of every 16 1.14x, 9 of 12 1.08x; 48-byte blocks 1.0x (their
// pair takes 3 stores either way); 64 KiB 1.03-1.06x.
inline char *pair_rows_33_48(char *&p, char *s, int64_t &k, int64_t n, int64_t st,
                             int64_t b) {
  alignas(32) static const char kHeadLanes[64] = {
      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  const __m256i head = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(kHeadLanes + 64 - b));
  auto ld = [](const char *a) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a)); };
  auto sto = [](char *a, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(a), v); };
  for (; k + 2 <= n; k += 2, p += 2 * st, s += 2 * b) {
    const __m256i a = ld(p), t = ld(p + 32), h = ld(p + st + 32 - b), e = ld(p + st + b - 32);
    sto(s, a);
    sto(s + 32, _mm256_blendv_epi8(h, t, head));
    sto(s + 2 * b - 32, e);
  }
  return s;
}
#endif

#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
// The first W (4, 8 or 16) bytes at p in a register's low lanes, and its
// low W bytes to p: a block's wide move on the stream's side.
template <int W>
inline __m128i load_narrow(const char *p) {
  if constexpr (W == 16) return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  if constexpr (W == 8) return _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
  uint32_t w;
  std::memcpy(&w, p, 4);
  return _mm_cvtsi32_si128((int)w);
}
template <int W>
inline void store_narrow(char *p, __m128i v) {
  if constexpr (W == 16) return _mm_storeu_si128(reinterpret_cast<__m128i *>(p), v);
  if constexpr (W == 8) return _mm_storel_epi64(reinterpret_cast<__m128i *>(p), v);
  const uint32_t w = (uint32_t)_mm_cvtsi128_si32(v);
  std::memcpy(p, &w, 4);
}
// The user's bytes m of a block at p from a wide load of the stream at s
// (its bytes and the next block's), by one byte-masked store.
template <int W>
inline void mv_wide_masked(char *p, const char *s, uint64_t m) {
  if constexpr (W == 64) {
    _mm512_mask_storeu_epi8(p, m, _mm512_loadu_si512(s));
  } else if constexpr (W == 32) {
    _mm256_mask_storeu_epi8(p, (__mmask32)m, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s)));
  } else {
    _mm_mask_storeu_epi8(p, (__mmask16)m, load_narrow<W>(s));
  }
}

#endif

// A row of blocks of any size over 128 bytes (size_class), the length's
// dispatch taken once for the row: mv_any's at every block, with
// long_copy's checks, cost 32 instructions a block, 14% more than glibc's
// memcpy of a 2 KiB block (callgrind, AVX2; 128 rows of 2 KiB, NAS MG z:
// 0.95-0.96x the hand loop in half the bench's runs, its memcpy's calls
// in a loop of its own).  long_copy's own checks, inlined here, cost
// about one instruction a block (long_copy-inl.hpp).
template <bool Pack>
inline char *row_any(char *p, char *s, int64_t n, int64_t st, int64_t b) {
  int64_t k = 0;
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
  if (b <= kRunMax) {
    for (; k < n; k++, p += st, s += b) mv_run<Pack>(p, s, b);
    return s;
  }
#endif
  for (; k < n; k++, p += st, s += b) mv_long<Pack>(p, s, b);
  return s;
}

// A row of blocks that take two moves (size classes -1 to -4; mv_heads),
// the tail's width chosen once for the row: chosen a block at a time,
// AVX2's loop branched on it (spilled) at every step of four blocks and
// packed NAS LU y at 0.73-0.83x the hand loop; so 1.2-1.3x faster (blocks
// of 36-44 bytes 40 KB apart; the baseline 1.07-1.22x, AVX-512
// 1.00-1.11x; in-process A/B, Intel Xeon VM).  Blocks under 16 bytes one
// a step (four a step: 6 and 13 bytes 5000 apart 0.92x).
template <bool Pack, int B>
__attribute__((noinline)) char *row_pairs(char *p, char *s, int64_t n, int64_t st, int64_t b) {
  constexpr int W = pair_head<B>(), H = pair_heads<B>();
  return by_tail<W>(b - H * W, [&](auto t) {
    constexpr int T = decltype(t)::value;
    int64_t k = 0;
    if constexpr (W >= 16)
      for (; k + 4 <= n; k += 4, p += 4 * st, s += 4 * b) {
        mv_heads<Pack, W, H, T>(p, s, b);
        mv_heads<Pack, W, H, T>(p + st, s + b, b);
        mv_heads<Pack, W, H, T>(p + 2 * st, s + 2 * b, b);
        mv_heads<Pack, W, H, T>(p + 3 * st, s + 3 * b, b);
      }
    for (; k < n; k++, p += st, s += b) mv_heads<Pack, W, H, T>(p, s, b);
    return s;
  });
}

#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
// row's unpack by wide masked stores (n >= 1 blocks of b bytes: see row),
// each block but the last by one byte-masked store; Ahead: each block but
// the last few with prefetch_stores' prefetches kStoreAhead bytes of the
// user's ahead.  Returns s advanced.  Ahead only over a strided loop's
// whole range (k_vec_blk): checked in row, where nested kernels call it a
// short row at a time, the check cost rows of 63 blocks of 12 bytes 1.35x
// (the block's mask reloaded from memory every block).
template <int W, int B, bool Ahead>
inline char *masked_row(char *p, char *s, int64_t n, int64_t st, int64_t b) {
  const uint64_t m = (uint64_t(1) << b) - 1;
  int64_t k = 0;
  if constexpr (Ahead) {
    const int64_t ahead = std::max<int64_t>(1, kStoreAhead / std::max<int64_t>(1, std::abs(st)));
    for (; k + ahead + 1 < n; k++, p += st, s += b) {
      prefetch_write(p + ahead * st);
      prefetch_write(p + ahead * st + b - 1);
      mv_wide_masked<W>(p, s, m);
    }
  }
  for (; k + 1 < n; k++, p += st, s += b) mv_wide_masked<W>(p, s, m);
  mv_block<false, B>(p, s, b);
  return s + b;
}
#endif

// One strided row of n blocks: the innermost loop of every strided kernel,
// unrolled so that short rows (3D faces, Flash) do not pay loop overhead
// per element.
template <bool Pack, int B>
inline char *row(char *p, char *s, int64_t n, int64_t st, int64_t b) {
  int64_t k = 0;
  if constexpr (B == kAnySize) return row_any<Pack>(p, s, n, st, b);
#if HWY_TARGET == HWY_AVX2
  if constexpr (Pack && B == -4)
    if (st >= b && st <= kPage) s = pair_rows_33_48(p, s, k, n, st, b);
#endif
  if constexpr (Pack && wide_move<B>() > 0) {
    constexpr int W = wide_move<B>();
    if (n > 0 && st > 0 && st + b >= W && st <= kPage) {
      for (; k + 4 < n; k += 4, p += 4 * st, s += 4 * b) {
        mv<true>(p, s, W);
        mv<true>(p + st, s + b, W);
        mv<true>(p + 2 * st, s + 2 * b, W);
        mv<true>(p + 3 * st, s + 3 * b, W);
      }
      for (; k + 1 < n; k++, p += st, s += b) mv<true>(p, s, W);
      mv_block<true, B>(p, s, b);
      return s + b;
    }
  }
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
  if constexpr (!Pack && wide_move<B>() > 0) {
    // Unpacking them, AVX-512 stores each block but the row's last with
    // one byte-masked store of a wide load from the stream (its bytes and
    // the next block's): exact on the user's side.  Time against two
    // moves, 100 blocks (in L1): 12 bytes of every 128 0.75-0.85x, 10 of
    // 64 0.60-0.68x, 24 of 128 0.52-0.73x, 6 of 64 0.74x; 20000 (L2 and
    // beyond): 0.89-1.07x, within the runs' noise.
    // 49-63-byte blocks (64-byte moves) only where a block's 64 bytes end
    // before the next one's (see wide_move).
    constexpr int W = wide_move<B>();
    if (W < 64 || st >= W) return n > 0 ? masked_row<W, B, false>(p, s, n, st, b) : s;
  }
#endif
  if constexpr (B > 0) {
    if (n == 8) {  // the common short row (8^3 blocks, 8-wide faces)
      if constexpr (Pack && (B == 4 || B == 8)) {
        // Packing small elements, the row is gathered in a register and
        // stored at once, one store instead of eight, as the compiler
        // vectorises a hand loop: Flash I/O's pack (8 doubles 192 bytes
        // apart, from memory) went from 1.12x the hand loop's time to 1.03x.
        return gather8<B>(p, s, st);
      }
      for (int i = 0; i < 8; i++) mv<Pack>(p + i * st, s + i * B, B);
      return s + 8 * B;
    }
  }
  if constexpr (B >= -4 && B <= -1) {
    // Rows of 8 blocks or more out of line (row_pairs): inlined, its
    // loops made the strided kernels that call this a row at a time
    // (k_vec_vec_blk) call it instead, 0.56-0.76x as fast unpacking rows
    // of 2-6 blocks of 40 bytes (in-process A/B, Intel Xeon VM).  Shorter
    // rows block by block without branches (mv_block).
    if (n - k >= 8) return row_pairs<Pack, B>(p, s, n - k, st, b);
  }
  if constexpr (B > 0 || (B == -4 && kHas32)) {  // a fixed size or two moves
    for (; k + 4 <= n; k += 4, p += 4 * st, s += 4 * b) {
      mv_block<Pack, B>(p, s, b);
      mv_block<Pack, B>(p + st, s + b, b);
      mv_block<Pack, B>(p + 2 * st, s + 2 * b, b);
      mv_block<Pack, B>(p + 3 * st, s + 3 * b, b);
    }
  }
  for (; k < n; k++, p += st, s += b) mv_block<Pack, B>(p, s, b);
  return s;
}

// Rows of blocks of up to a line a kilobyte or more apart (at most four a
// page): every block is a line of its own and nearly every one a TLB miss,
// and which loop shape moves them fastest depends on the machine and on
// where the lines sit, both ways by 15% to 2x (a 2-core Intel Xeon VM,
// 8-byte blocks, 16 Ki to 128 Ki of them, 1-8 KiB apart, MB/s):
//   - one block per iteration against the unrolled row: packing 16 Ki
//     blocks 2064-4112 bytes apart (their lines in L2), 1.2-1.5x faster
//     (NAS MG x: 2217 against 1797), and unpacking them 0-7%; from memory
//     no better packing (4096 apart: 428 against 547); on the AMD EPYC
//     VM no faster, but 1.14-1.6x so where paced (row_far);
//   - unpacking to blocks a multiple of 1 KiB apart (they fall into at
//     most 4 of the L1's 64 sets, and few of L2's) over 128 MiB or more,
//     prefetching 16 blocks ahead ran 1.4-2.3x faster (3D Face YZ DOUBLE:
//     1080 against 744), and 5-18% slower at the other strides;
//   - unpacking at the other strides, each block's address computed from
//     its indices and the strides (as `u[i * st1 + k * st2] = *s++`) ran
//     5-10% faster than the row (NAS MG x: 1829 against 1683, as fast as
//     a hand-written unpack) and 3-7% faster than one block per
//     iteration; packing, it was no faster than one block per iteration.
// So these are alternatives (Node::pack_alt, unpack_alt) that the
// program's own calls choose (timed_choice.hpp), not the default.
//
// The alternatives read the row's length and strides from the plan node
// at every block, by reference: their stores may alias the node, so the
// compiler reloads them after each one.  Those are the loops that
// measured faster on the Intel VM; the same loops with the strides in
// registers ran no faster than the unrolled row.  (Why, the VM's lack of
// performance counters did not let us see; the AMD VM's pacing suggests
// loads that wait are the point.  An alternative is only taken where it
// measures faster.)
constexpr int64_t kFarStride = 1024;
constexpr int64_t kFarAhead = 16;  // blocks prefetched ahead (unpack)
// The loop shapes of far-strided rows: one block per iteration, paced
// (pack), the same with prefetch (unpack), or each block's address from
// its indices (unpack).
enum class Far { Paced, Prefetch, Index };
template <bool Pack, int B, Far F>
inline char *row_far(char *p, char *s, const int64_t &n, const int64_t &st) {
  int64_t k = 0;
  if constexpr (F == Far::Index) {
    for (; k < n; k++, s += B) mv_block<Pack, B>(p + k * st, s, B);
    return s;
  }
  if constexpr (F == Far::Paced) {
    // Packing, each block's address passes through two multiplications
    // (by a one the compiler cannot see), which holds the loop to about a
    // block per two cycles.  Loads issued faster, each on a page of its
    // own, ran slower on the AMD EPYC VM: 16 Ki doubles 2064 bytes apart
    // 1.14-1.21x faster so, 4096 apart 1.18-1.23x, floats 2048 apart
    // 1.58x; 1024 apart 0.93x (four a page), and within L2 (512 doubles)
    // 0.6x, where the timing keeps the base.  NAS MG x's hand loop paces
    // itself so by accident (it reloads its strides and multiplies them
    // after every store) and packed 1.2x faster than the unpaced loops.
    int64_t one = 1;
    asm("" : "+r"(one));
#pragma GCC unroll 1
    for (; k < n; k++, p += st, s += B) {
      int64_t d = k;
      asm("" : "+r"(d));
      mv_block<Pack, B>(p + (d * one * one - d), s, B);
    }
    return s;
  }
  if constexpr (F == Far::Prefetch && !Pack) {
    for (; k + kFarAhead + 4 <= n; k += 4, p += 4 * st, s += 4 * B) {
      for (int j = 0; j < 4; j++) __builtin_prefetch(p + (kFarAhead + j) * st);
      for (int j = 0; j < 4; j++) mv_block<false, B>(p + j * st, s + j * B, B);
    }
  }
#pragma GCC unroll 1
  for (; k < n; k++, p += st, s += B) mv_block<Pack, B>(p, s, B);
  return s;
}

template <bool Pack>
char *k_block(const Node &, char *base, char *s, int64_t i0, int64_t i1) {
  mv_long<Pack, true>(base + i0, s, i1 - i0);
  return s + (i1 - i0);
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Packing 8 (B = 24) or 16 (B = 12) strided blocks a step into three
// whole 64-byte stores: each block's load of the next width (32 or 16
// bytes, wide_move) into its part of a register, two or four a register,
// then two-source permutes of neighbouring registers, as the vectoriser
// packs 3 doubles or floats of every 8 or 12.  The blocks a step reads
// past (W - B bytes each) lie before the next block's end; the row's last
// block is never in a step, so every byte read lies between the row's
// first and last byte, on the row's pages where the stride is at most a
// page (see wide_move).  Returns s advanced; p and i0 past the steps.
// From L1 a step's inserts and permutes (all on one port of the Intel VM)
// cost more than the wide moves' stores: where the range's blocks and
// stream fit L1 (below), 0.82-0.97x as fast at 2-10 KiB; beyond it, 3
// doubles of every 4-40 and 3 floats of every 8-24 1.05-1.22x faster at
// 16 KiB, 1.05-1.24x at 128 KiB, 6 shorts of every 13 1.14-1.15x
// (in-process A/B, Intel Xeon VM).
template <int B>
inline char *blocks_by_threes(char *&p, char *s, int64_t &i0, int64_t i1, int64_t st) {
  constexpr int W = B == 24 ? 32 : 16, K = 64 / W, M = 4 * K;  // blocks a register, a step
  // Store j's lanes (8 bytes for 24-byte blocks, 4 for 12) in registers j
  // and j + 1 (lanes 0-7 or 0-15 the first's, the rest the second's).
  alignas(64) static constexpr int64_t kIdx24[3][8] = {
      {0, 1, 2, 4, 5, 6, 8, 9}, {2, 4, 5, 6, 8, 9, 10, 12}, {5, 6, 8, 9, 10, 12, 13, 14}};
  alignas(64) static constexpr int32_t kIdx12[3][16] = {
      {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20},
      {5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25},
      {10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30}};
  const void *idx = B == 24 ? (const void *)kIdx24 : (const void *)kIdx12;
  const __m512i x0 = _mm512_load_si512(idx), x1 = _mm512_load_si512((const char *)idx + 64),
                x2 = _mm512_load_si512((const char *)idx + 128);
  auto reg = [st](const char *q) {
    if constexpr (B == 24) {
      return _mm512_inserti64x4(
          _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(q))),
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q + st)), 1);
    } else {
      __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i *>(q)));
      v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + st)), 1);
      v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + 2 * st)), 2);
      return _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + 3 * st)), 3);
    }
  };
  auto perm = [](__m512i a, __m512i x, __m512i b) {
    return B == 24 ? _mm512_permutex2var_epi64(a, x, b) : _mm512_permutex2var_epi32(a, x, b);
  };
  for (; i0 + M < i1; i0 += M, p += M * st, s += 3 * 64) {
    const __m512i a = reg(p), b = reg(p + K * st), c = reg(p + 2 * K * st),
                  d = reg(p + 3 * K * st);
    _mm512_storeu_si512(s, perm(a, x0, b));
    _mm512_storeu_si512(s + 64, perm(b, x1, c));
    _mm512_storeu_si512(s + 128, perm(c, x2, d));
  }
  return s;
}
#endif

template <bool Pack, int B>
char *k_vec_blk(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const int64_t b = B > 0 ? B : n.child->count, st = n.stride;
  char *p = base + i0 * st;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (Pack && (B == 24 || B == 12)) {  // the blocks and the stream outgrow L1
    if (st >= 8 && st <= kPage && (i1 - i0) * (st + B) >= l1_data_cache_bytes())
      s = blocks_by_threes<B>(p, s, i0, i1, st);
  }
#endif
  if constexpr (Pack && (B == 4 || B == 8)) {
    // Long rows of small elements pack eight blocks a store, as the
    // vectoriser does (a double of every 6, 64 KiB: 0.77x the hand loop ->
    // 0.98x; of every 16 at 4 MiB: 0.88 -> 1.00x).  Here, not in row():
    // there the compiler folded the 8-block row (Flash I/O) into this
    // loop, and Flash packed 10% slower.
    for (; i0 + 8 <= i1; i0 += 8, p += 8 * st) s = gather8<B>(p, s, st);
  }
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (!Pack && wide_move<B>() > 0) {
    constexpr int W = wide_move<B>();
    if ((W < 64 || st >= W) && i1 > i0 && stores_ahead((i1 - i0) * b))
      return masked_row<W, B, true>(p, s, i1 - i0, st, b);
  }
#endif
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // 16-byte blocks in pairs, one 32-byte store each (vinserti128), as the
  // vectoriser packs two doubles of every four: in L1 stores bound the
  // row, and 128 blocks packed 1.5-1.7x faster so, at strides of 32-200
  // bytes (1.00x from L2 and memory); random 16-byte blocks at 2 KiB
  // 1.03-1.16x through loom_pack (in-process A/B, AMD EPYC VM).  Through
  // a Chunk<32> and memcpy the compiler went through the stack, 10x
  // slower.  AVX-512 likewise: random 16-byte blocks at strides up to 200
  // bytes 1.18x at 2 KiB, 1.00x at 64 KiB (in-process A/B, AMD EPYC Zen 4
  // VM); four a 64-byte store (vinserti64x2) 0.94x as fast as pairs.
  if constexpr (Pack && B == 16) {
    for (; i0 + 4 <= i1; i0 += 4, p += 4 * st, s += 64) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(s), _mm256_loadu2_m128i(
          reinterpret_cast<const __m128i *>(p + st), reinterpret_cast<const __m128i *>(p)));
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(s + 32),
                          _mm256_loadu2_m128i(reinterpret_cast<const __m128i *>(p + 3 * st),
                                              reinterpret_cast<const __m128i *>(p + 2 * st)));
    }
  }
#endif
  return row<Pack, B>(p, s, i1 - i0, st, b);
}

// Elements of 4 or 8 bytes every K-th slot: a constant stride lets the
// compiler use vector shuffles instead of one load per element.
template <class T, int K, bool Pack>
inline __attribute__((always_inline)) char *dense_loop(const Node &n, char *base, char *s,
                                                       int64_t i0, int64_t i1) {
  typedef T U __attribute__((aligned(1), may_alias));
  U *p = reinterpret_cast<U *>(base + i0 * n.stride), *q = reinterpret_cast<U *>(s);
  const int64_t cnt = i1 - i0;
  if (Pack) {
    for (int64_t i = 0; i < cnt; i++) q[i] = p[K * i];
  } else {
    for (int64_t i = 0; i < cnt; i++) p[K * i] = q[i];
  }
  return s + cnt * sizeof(T);
}
template <class T, int K, bool Pack>
char *k_vec_dense(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return dense_loop<T, K, Pack>(n, base, s, i0, i1);
}

namespace hn = hwy::HWY_NAMESPACE;

// Messages packed by non-temporal stores (the streaming alternatives
// below) are at least streaming_from() long (cache_size.hpp): the root's
// timing sees the pack alone, but whoever reads the stream next (the MPI's
// copy to a peer) then finds it in memory, not in cache: every other
// double packed by streaming and then copied once took 1.24-1.56x as long
// as packed plainly at 1-4 MiB (read once: 1.20-1.47x), 0.95x at 8 MiB
// (0.97x) and 0.84x at 16 MiB (0.79x), with a 32 MiB L3 (AMD EPYC Zen 4
// VM; the pack alone streamed 1.3x faster from 4 MiB on).
//
// Whether this target streams T's by non-temporal stores: Highway's
// baseline (HWY_SCALAR, one lane a register) on x86-64 doubles by movnti,
// a store each (floats so, every other one at 4 MiB, lost: 0.87-1.01x the
// hand loop against 0.94-1.01x without); the others whole registers
// (Highway's Stream).
template <class T>
constexpr bool streams() {
  if constexpr (HWY_TARGET == HWY_SCALAR) return HWY_ARCH_X86_64 && sizeof(T) == 8;
  return true;
}

// The baseline's non-temporal store of the 8 bytes at `from` to `to` (8-byte
// aligned); where streams<uint64_t>() is false, never called.
inline void stream_word([[maybe_unused]] void *to, [[maybe_unused]] const void *from) {
#if HWY_TARGET == HWY_SCALAR && HWY_ARCH_X86_64
  long long v;
  std::memcpy(&v, from, 8);
  _mm_stream_si64(static_cast<long long *>(to), v);
#endif
}

// The dense pack again, its stream written by non-temporal stores: whole
// aligned registers that go to memory without first reading the lines
// they fill (a store that misses reads its line first, so a pack from
// memory moves the stream's bytes three times, not twice).  Each register
// is one element of K from K registers of the user's side (Highway's
// LoadInterleaved).  An alternative for messages past streaming_from(): every
// other double, 8 MiB from a 16 MiB source, packed 1.36x faster than the
// hand loop's vectorised stores (1.37x at 32 MiB), 0.84x at 2 MiB, where
// its stream would have stayed in L3 (AMD EPYC Zen 4 VM).  It replaced an
// alternative that packed doubles one element a move (from memory 1.07-
// 1.48x faster than the vectorised loop, which lost there in 512- and
// 256-bit registers alike; the streaming one 1.36x faster than the
// moves): in `loom bench pack` every other double (8 MiB) 0.96-1.11x the
// hand loop by the moves, 1.35-1.55x streaming (AVX2 1.33-1.50x, the
// baseline's movnti 1.20-1.26x).
template <class T, int K>
char *k_vec_dense_stream(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const hn::ScalableTag<T> d;
  constexpr int64_t lanes = (int64_t)hn::MaxLanes(d);
  const int64_t cnt = i1 - i0;
  const uintptr_t skew = reinterpret_cast<uintptr_t>(s) % (lanes * sizeof(T));
  if (skew % sizeof(T) != 0 || cnt < 4 * lanes)  // elements astride the registers
    return dense_loop<T, K, true>(n, base, s, i0, i1);
  const T *p = reinterpret_cast<const T *>(base + i0 * n.stride);
  T *q = reinterpret_cast<T *>(s);
  int64_t i = 0;
  if constexpr (lanes > 1) {
    i = skew ? lanes - (int64_t)(skew / sizeof(T)) : 0;
    for (int64_t j = 0; j < i; j++) std::memcpy(q + j, p + K * j, sizeof(T));
    // A register's K registers of source end K - 1 elements past its
    // last element: the last register waits for the tail, so nothing is
    // read past the message's last element.
    for (; i + lanes < cnt; i += lanes) {
      hn::Vec<decltype(d)> v[4];
      if constexpr (K == 2) hn::LoadInterleaved2(d, p + K * i, v[0], v[1]);
      if constexpr (K == 3) hn::LoadInterleaved3(d, p + K * i, v[0], v[1], v[2]);
      if constexpr (K == 4) hn::LoadInterleaved4(d, p + K * i, v[0], v[1], v[2], v[3]);
      hn::Stream(v[0], d, q + i);
    }
  } else if constexpr (streams<T>()) {
    for (; i < cnt; i++) stream_word(q + i, p + K * i);
  }
  hwy::FlushStream();  // the stream's stores are seen before the call returns
  for (; i < cnt; i++) std::memcpy(q + i, p + K * i, sizeof(T));
  return s + cnt * sizeof(T);
}

// A contiguous pack or unpack (a block: the bytes i0..i1) by non-temporal
// stores, an alternative from streaming_from() as the dense pack: glibc's memcpy
// streams only past its own threshold, which CPUID put at 240 MiB on the
// VM whose last-level cache is 32 MiB.  Alone, 8 MiB streamed 1.13x
// faster than memcpy, 16-32 MiB 1.47-1.51x, 4 MiB 0.68x; followed by a
// copy of the stream, 1.06x at 8 MiB, 1.13-1.15x at 16-32 MiB, 0.81x at 4
// MiB (AMD EPYC Zen 4 VM).
template <bool Pack>
char *k_block_stream(const Node &, char *base, char *stream, int64_t i0, int64_t i1) {
  const char *from = Pack ? base + i0 : stream;
  char *s = Pack ? stream : base + i0;  // where the stores go
  const size_t n = (size_t)(i1 - i0);
  size_t off = 0;
#if HWY_TARGET == HWY_SCALAR
  if constexpr (streams<uint64_t>()) {
    off = std::min(n, (size_t)(-reinterpret_cast<uintptr_t>(s) % 8));
    std::memcpy(s, from, off);
    for (; off + 8 <= n; off += 8) stream_word(s + off, from + off);
  }
#else
  const hn::ScalableTag<uint8_t> d;
  constexpr size_t lanes = hn::MaxLanes(d);
  off = std::min(n, (size_t)(-reinterpret_cast<uintptr_t>(s) % lanes));
  std::memcpy(s, from, off);
  for (; off + lanes <= n; off += lanes)
    hn::Stream(hn::LoadU(d, reinterpret_cast<const uint8_t *>(from + off)), d,
               reinterpret_cast<uint8_t *>(s + off));
#endif
  hwy::FlushStream();
  std::memcpy(s + off, from + off, n - off);
  return stream + n;
}

#undef LOOM_HAVE_DENSE_SCATTER  // per target, as the permutes below
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
#define LOOM_HAVE_DENSE_SCATTER 1
// Unpacking elements of 4 or 8 bytes every K-th slot: each register of the
// stream is spread over K registers of the user's side by lane permutes
// and written with masked stores, the gaps untouched.  The vectoriser
// makes one store per element of `p[K * i] = q[i]`.  4 MiB unpacked on the
// AMD EPYC VM, in cache / from memory, GB/s: every other float 24.5-24.7
// against 17.2-17.5 / 5.9-7.2 against 5.9-7.0; every fourth float
// 10.2-11.8 against 8.0-12.2 / 3.3-5.0 against 3.4-4.2; every fourth
// double 10.8-11.5 against 9.6-10.2 / 3.5-4.0 against 3.2-3.5; every other
// double 25.2 against 27.3, so it keeps plain moves.
template <class T, int K>
char *k_vec_dense_scatter(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  constexpr int L = 64 / (int)sizeof(T);  // lanes of a register
  constexpr int E = L / K;                // elements per user register
  typedef T U __attribute__((aligned(1), may_alias));
  U *p = reinterpret_cast<U *>(base + i0 * n.stride);
  const U *q = reinterpret_cast<const U *>(s);
  const int64_t cnt = i1 - i0;
  __m512i idx[K];
  for (int j = 0; j < K; j++) {
    alignas(64) T lanes[L] = {};
    for (int l = 0; l < L; l += K) lanes[l] = (T)(j * E + l / K);
    idx[j] = _mm512_load_si512(lanes);
  }
  const bool ahead = stores_ahead(cnt * (int64_t)sizeof(T));
  int64_t i = 0;
  for (; i + L <= cnt; i += L) {
    const __m512i v = _mm512_loadu_si512(q + i);
    if (ahead)
      for (int j = 0; j < K; j++)
        prefetch_write(reinterpret_cast<const char *>(p + K * i) + kStoreAhead + 64 * j);
    for (int j = 0; j < K; j++) {
      U *to = p + K * (i + j * E);
      if constexpr (sizeof(T) == 4) {
        constexpr __mmask16 m = K == 2 ? 0x5555 : 0x1111;
        _mm512_mask_storeu_epi32(to, m, _mm512_permutexvar_epi32(idx[j], v));
      } else {
        constexpr __mmask8 m = K == 2 ? 0x55 : 0x11;
        _mm512_mask_storeu_epi64(to, m, _mm512_permutexvar_epi64(idx[j], v));
      }
    }
  }
  for (; i < cnt; i++) p[K * i] = q[i];
  return s + cnt * sizeof(T);
}
#endif

template <bool Pack, int B>
char *k_vec_vec_blk(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node &in = *n.child;
  const int64_t b = B > 0 ? B : in.child->count, st = n.stride, n2 = in.count,
                st2 = in.stride;
  char *p = base + i0 * st;
  for (int64_t i = i0; i < i1; i++, p += st) s = row<Pack, B>(p, s, n2, st2, b);
  return s;
}

template <bool Pack, int B, Far F>
char *k_vec_blk_far(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return row_far<Pack, B, F>(base + i0 * n.stride, s, i1 - i0, n.stride);
}

template <bool Pack, int B, Far F>
char *k_vec_vec_blk_far(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node &in = *n.child;
  if constexpr (F == Far::Index) {  // the row's start from i too: 4% faster
    for (int64_t i = i0; i < i1; i++)
      for (int64_t k = 0; k < in.count; k++, s += B)
        mv_block<Pack, B>(base + i * n.stride + k * in.stride, s, B);
    return s;
  }
  const int64_t st = n.stride;
  char *p = base + i0 * st;
  for (int64_t i = i0; i < i1; i++, p += st) s = row_far<Pack, B, F>(p, s, in.count, in.stride);
  return s;
}

// Transposes (a vector of far-strided columns whose columns sit side by
// side): column after column touches every row's cache line once per
// column.  K neighbouring columns together touch it once, while the stream
// side becomes K sequential streams (k_vec_columns, below, which also
// takes deeper nests).  Only for disjoint blocks (the unpack order of
// overlapping ones would matter).
//
// Unpacking, the K streams are first copied into an L1 tile, kTile bytes
// of each at a time, and the rows are written from there: K loads of B
// bytes from K streams for every row ran at 8.9 GB/s on FFT2D's 2 MiB
// (16-byte blocks, K = 4, streams 512 bytes apart; AMD EPYC VM), from the
// tile at 15.9.  Packing through a tile lost (34 -> 28 GB/s), so packs
// store into the streams directly.  The tiled unpack is the base; straight
// from the K streams (k_vec_columns) its alternative: the tile won 1.7x on
// the AMD EPYC VM and lost 15-20% on an Intel Xeon VM (FFT2D's 2 MiB,
// either way in every run).
template <int B, int K>
char *k_vec_vec_tile_unpack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node &in = *n.child;
  const int64_t st = n.stride, n2 = in.count, st2 = in.stride, span = n2 * B;
  char *p = base + i0 * st;
  int64_t i = i0;
  constexpr int64_t kTile = 256, kRows = kTile / B;
  alignas(64) char tile[K][kTile];
  for (; i + K <= i1; i += K, p += K * st, s += K * span) {
    char *q = p, *t = s;
    for (int64_t j = 0; j < n2; j += kRows, t += kRows * B) {
      const int64_t rows = std::min(kRows, n2 - j);
      for (int k = 0; k < K; k++) std::memcpy(tile[k], t + k * span, (size_t)(rows * B));
      for (int64_t r = 0; r < rows; r++, q += st2)
        for (int k = 0; k < K; k++) mv<false>(q + k * st, tile[k] + r * B, B);
    }
  }
  for (; i < i1; i++, p += st) s = row<false, B>(p, s, n2, st2, B);
  return s;
}

template <bool Pack, int B>
char *k_vec3_blk(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node &mid = *n.child, &in = *mid.child;
  const int64_t b = B > 0 ? B : in.child->count, st = n.stride, n2 = mid.count,
                st2 = mid.stride, n3 = in.count, st3 = in.stride;
  char *p = base + i0 * st;
  for (int64_t i = i0; i < i1; i++, p += st) {
    char *q = p;
    for (int64_t j = 0; j < n2; j++, q += st2) s = row<Pack, B>(q, s, n3, st3, b);
  }
  return s;
}

// A strided loop over a small index block (a factored repeating pattern):
// m blocks of b bytes at d in each instance.
template <bool Pack, int B>
inline char *vec_idx_loop(const int64_t *d, int64_t m, int64_t b, int64_t st, char *base,
                          char *s, int64_t i0, int64_t i1) {
  char *p = base + i0 * st;
  if constexpr (Pack && (B == 4 || B == 8)) {
    // Packing words, 32 bytes of them are gathered and stored at once, as
    // k_vec_elements packs shorter blocks: random patterns of 17 or more
    // doubles or floats where the target takes no permute (AVX2 on AMD,
    // the baseline) packed 1.25-1.6x faster at 2 KiB, 1.05-1.12x over all
    // random patterns of one element size at 64 KiB and 1 MiB.
    constexpr int G = 32 / B;
    for (int64_t i = i0; i < i1; i++, p += st) {
      int64_t j = 0;
      for (; j + G <= m; j += G, s += 32) {
        Chunk<32> v;
        for (int g = 0; g < G; g++) std::memcpy(v.b + g * B, p + d[j + g], B);
        std::memcpy(s, &v, 32);
      }
      for (; j < m; j++, s += B) mv<true>(p + d[j], s, B);
    }
    return s;
  }
  for (int64_t i = i0; i < i1; i++, p += st)
    for (int64_t j = 0; j < m; j++, s += b) mv_block<Pack, B>(p + d[j], s, b);
  return s;
}
template <bool Pack, int B>
char *k_vec_idx_blk(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node &in = *n.child;
  return vec_idx_loop<Pack, B>(in.disp.data(), in.count, B > 0 ? B : in.child->count, n.stride,
                               base, s, i0, i1);
}
// The same over the elements of a leaf of runs (Node::elements), too many
// for k_vec_elements.
template <bool Pack, int B>
char *k_vec_elements_loop(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return vec_idx_loop<Pack, B>(n.elements.data(), (int64_t)n.elements.size(), B, n.stride, base,
                               s, i0, i1);
}

// A small leaf repeated, as a hand loop moves it: M moves of B bytes at
// offsets held in registers (Node::elements: an index block's blocks, a
// short strided block's, or a leaf's runs cut into elements).  The loop
// over a period's moves unrolled: in L1 and L2 alike, 1.3-2.1x a loop over
// the index block (4, 8 and 16 bytes, 4 to 14 blocks; AMD EPYC VM).  Short
// strided rows (2 to 12 blocks of 8 bytes, 4 of 4) against the row kernel,
// 2 and 64 KiB: 1.0-1.9x on AVX-512 (one 0.96x), 1.5-3x on AVX2 and the
// baseline, but 8 floats at a stride of 8 packed 0.87-0.98x there.
constexpr int kMaxElements = 16;
// Rows of at most this many blocks an instance are short: compiled loops
// or element lists move them (select_base_kernels).
constexpr int64_t kShortRow = 16;
constexpr int64_t kMaxElementLoop = 64;
template <bool Pack, int B, int M>
char *k_vec_elements(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const int64_t st = n.stride;
  int64_t d[M];
  load_scalars(d, n.elements.data());
  char *p = base + i0 * st;
  int64_t i = i0;
  if constexpr (Pack && (B == 8 || (B == 4 && M <= 8))) {
    // Packing words, G instances' words are gathered in registers and
    // stored at once, as the vectoriser packs a hand loop's (movhpd,
    // insertps): a 16-byte store for every two doubles or four floats
    // instead of a store each.  1.1-1.6x the moves at 2 and 64 KiB (3 to
    // 11 doubles, 3 to 6 floats; baseline, AVX2 and AVX-512 builds alike);
    // not 9 floats or more (0.89-0.94x at 2 KiB).
    constexpr int W = M * B;
    constexpr int G = 4 * W <= 128 && W % 8 != 0 ? 4 : 2 * W <= 128 && W % 16 != 0 ? 2 : 1;
    for (; i + G <= i1; i += G, p += G * st, s += G * W) {
      Chunk<G * W> v;
      for (int g = 0; g < G; g++)
        for (int j = 0; j < M; j++) std::memcpy(v.b + (g * M + j) * B, p + g * st + d[j], B);
      std::memcpy(s, &v, sizeof v);
    }
  }
  for (; i < i1; i++, p += st)
    for (int j = 0; j < M; j++, s += B) mv<Pack>(p + d[j], s, B);
  return s;
}

// A small leaf repeated, a run at a time by fixed-width moves (RunMoves):
// a loop over each width's moves, whose counts repeat with every instance.
// Unpacking the leaves of more than kMaxElements elements without AVX-512
// where no compiled loop takes them (LOOM_JIT=off, or refused; see
// k_vec_jit), where the element loop took a move and a load of its offset
// per element: random run patterns (in-process A/B, AVX2 on an AMD
// EPYC VM, two seeds) unpacked 1.05-1.11x faster at 2 KiB, 1.06-1.12x at
// 64 KiB, those that take the moves 1.1-1.5x (a few 0.87-0.95x); the
// baseline 1.07-1.10x.  Not packing (0.75x: the element loop gathers
// words into registers) nor in place of the unrolled element kernels
// (0.3x on patterns of two or three runs: the loops cost more than their
// moves).
template <bool Pack, int C>
inline const std::array<int32_t, 2> *moves_of(const std::array<int32_t, 2> *m, int32_t k,
                                               char *p, char *s) {
  for (int32_t j = 0; j < k; j++) mv<Pack>(p + m[j][0], s + m[j][1], C);
  return m + k;
}
template <bool Pack>
char *k_vec_moves(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const RunMoves &t = *n.moves;
  const int64_t st = n.stride, w = n.child->packed;
  const std::array<int32_t, 2> *const at = t.at.data();
  const int32_t k32 = t.count[0], k16 = t.count[1], k8 = t.count[2], k4 = t.count[3],
                k2 = t.count[4], k1 = t.count[5];
  char *p = base + i0 * st;
  for (int64_t i = i0; i < i1; i++, p += st, s += w) {
    const std::array<int32_t, 2> *m = at;
    m = moves_of<Pack, 32>(m, k32, p, s);
    m = moves_of<Pack, 16>(m, k16, p, s);
    m = moves_of<Pack, 8>(m, k8, p, s);
    m = moves_of<Pack, 4>(m, k4, p, s);
    m = moves_of<Pack, 2>(m, k2, p, s);
    moves_of<Pack, 1>(m, k1, p, s);
  }
  return s;
}

// A small leaf repeated, by its compiled loop (jit_moves.hpp).
template <bool Pack>
char *k_vec_jit(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return (Pack ? n.jit->pack : n.jit->unpack)(base + i0 * n.stride, s, i1 - i0, nullptr);
}
// Packing whole steps of a few instances by registers (JitCode::groups), the rest
// by the moves (the compiled groups loop runs both).  Where the groups
// store whole cache lines (AVX-512), in ranges from JitCode::aligned_from
// first the instances that bring the stream to a multiple of 64 bytes, by
// the moves; shorter ranges by the groups where the stream lies, or by
// the moves alone where those split fewer stores (JitCode::lines_at).
// (The head apart: its call's saved registers cost short ranges 3%.)
__attribute__((noinline)) char *aligned_jit_groups(const JitCode &j, int64_t stride, char *p,
                                                   char *s, int64_t count) {
  const int64_t k = std::min(j.align.first((uintptr_t)s), count);
  if (k) s = j.pack(p, s, k, nullptr), p += k * stride, count -= k;
  return j.groups(p, s, count, nullptr);
}
char *k_vec_jit_groups(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const JitCode &j = *n.jit;
  char *p = base + i0 * n.stride;
  const int64_t count = i1 - i0;
  if (j.aligned_groups()) {
    if (count >= j.aligned_from) return aligned_jit_groups(j, n.stride, p, s, count);
    if (!(j.lines_at >> ((uintptr_t)s & 63) & 1)) return j.pack(p, s, count, nullptr);
  }
  return j.groups(p, s, count, nullptr);
}
// A strided loop's compiled packing kernel.
Kernel jit_pack(const JitCode &j) { return j.groups ? k_vec_jit_groups : k_vec_jit<true>; }
template <bool Pack>
char *k_idx_jit(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return (Pack ? n.jit->pack : n.jit->unpack)(base, s, i1 - i0, n.disp.data() + i0);
}

template <bool Pack, int B, class D>
inline char *idx_blk(const D *d, int64_t b, char *base, char *s, int64_t i0, int64_t i1) {
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
  // Blocks of 3 or 5-15 bytes, two moves each, take one with AVX-512: a
  // masked load of the block's bytes only (a masked-off byte never
  // faults, wherever the block lies) and a store of the whole 4, 8 or 16
  // bytes into the stream, whose bytes past the block the next block's
  // store writes; unpacking, a wide load from the stream and a masked
  // store.  The last block moves exactly.  500 blocks at random slots of
  // 4000 (in L1 and L2): 3, 6, 10, 12 bytes packed 1.35-1.7x faster,
  // unpacked 1.17-1.43x; 100000 of 400000: 0.94-1.07x, within the runs'
  // spread.  17-31 bytes (32-byte moves) lost in cache (24 bytes 0.90-
  // 0.93x): they keep two moves.  (AMD EPYC Zen 4 VM.)
  if constexpr (wide_move<B>() > 0 && wide_move<B>() <= 16) {
    constexpr int W = wide_move<B>();
    const __mmask16 m = (__mmask16)((1u << b) - 1);
    if (i0 == i1) return s;
    for (int64_t i = i0; i + 1 < i1; i++, s += b) {
      char *u = base + d[i];
      if constexpr (Pack) store_narrow<W>(s, _mm_maskz_loadu_epi8(m, u));
      else _mm_mask_storeu_epi8(u, m, load_narrow<W>(s));
    }
    mv_block<Pack, B>(base + d[i1 - 1], s, b);
    return s + b;
  }
#endif
  // Unrolled: 243-500 doubles or triples of them at random offsets within
  // 35-190 KiB packed 1.1-1.3x faster (unpacked 0.92-1.32x, mostly
  // faster), thousands 1.00-1.06x (in-process A/B, AMD EPYC VM).
#pragma GCC unroll 4
  for (int64_t i = i0; i < i1; i++, s += b) mv_block<Pack, B>(base + d[i], s, b);
  return s;
}

// An index list of blocks, its displacements read in 32 bits where they
// fit (Node::disp32): 131072 doubles of 524288 in random order, 1 MiB,
// packed at 0.86-0.88x the hand loop over int indices with 64-bit ones
// (1.00-1.01x against the hand loop given 64-bit indices).
template <bool Pack, int B>
char *k_idx_blk(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const int64_t b = B > 0 ? B : n.child->count;
  if (!n.disp32.empty()) return idx_blk<Pack, B>(n.disp32.data(), b, base, s, i0, i1);
  return idx_blk<Pack, B>(n.disp.data(), b, base, s, i0, i1);
}

// Runs of different lengths.  With AVX-512 each moves without a branch
// on its length (mv_run), which mispredicts as lengths vary: a particle
// subset (doubles in ascending order, neighbours merged into runs of 10
// on average, 1 MiB) packed at 0.63x the hand loop by size classes and
// 1.04x so (unpacked 0.62x / 1.05x); triples of doubles (runs of 96 bytes
// on average) 0.62x / 1.01x, unpacked 0.52x / 0.80x; from L1 and L2 1.0-
// 1.5x faster too (AMD EPYC VM, in one process).
template <bool Pack, class D>
inline char *idxv(const D *d, const D *l, char *base, char *s, int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; i++) {
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
    mv_run<Pack>(base + d[i], s, l[i]);
#else
    mv_block<Pack, 0>(base + d[i], s, l[i]);
#endif
    s += l[i];
  }
  return s;
}
template <bool Pack>
char *k_idxv(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  if (!n.disp32.empty()) return idxv<Pack>(n.disp32.data(), n.lens32.data(), base, s, i0, i1);
  return idxv<Pack>(n.disp.data(), n.lens.data(), base, s, i0, i1);
}

// Lists of this many runs or more are long: their runs' lengths, in any
// order, are more than the branch predictor learns.
constexpr int64_t kLongRunList = 64;

// A long list of short runs element by element, as a hand loop over an
// index list moves them: no branch on a run's length, which mispredicts
// on lengths in random order (Node::elements32; B bytes an element).
template <bool Pack, int B>
char *k_idxv_elements(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return idx_blk<Pack, B>(n.elements32.data(), B, base, s, n.prefix[i0] / B, n.prefix[i1] / B);
}

#if HWY_TARGET == HWY_AVX2
// The same on AVX2, for long lists whose runs are C bytes or longer (C =
// 8 or 16): a run of up to 128 bytes moves without a branch on its
// length, as 32 / C moves of C bytes at min(k C, n - C) and four of 32 at
// min(32 k, n - 32), each inside the run, so exact both ways.  Below 32 bytes the 32-byte moves would start before the
// run: they go to and from a scratch buffer instead (a select, not a
// branch).  Longer runs first move 128 bytes a step.  A particle subset
// (1 MiB of doubles, runs of 10 on average, lengths in random order) on
// an AVX2 AMD EPYC VM (Zen 3): unpacked at 0.75-0.77x the hand loop by
// size classes, 0.86-0.87x so; packed 0.59-0.64x, 0.70x so, and 1.28-
// 1.30x by the masked loads below (bench pack, Particle q).  Not on the
// baseline, whose 16-byte registers take twice the moves: 0.85x there.
template <bool Pack, int C>
inline void mv_run_clamped(char *user, char *s, int64_t n, char *scratch) {
  char *dst = Pack ? s : user;
  const char *src = Pack ? user : s;
  for (; n > 128; n -= 128, src += 128, dst += 128) mv<true>(const_cast<char *>(src), dst, 128);
  for (int k = 0; k < 32 / C; k++) {
    const int64_t o = std::min<int64_t>(k * C, n - C);
    mv<true>(const_cast<char *>(src + o), dst + o, C);
  }
  // A select by masks: as `n >= 32 ? src : scratch`, GCC branched, and
  // the branch mispredicts on lists of lengths in random order.
  const uintptr_t whole = -uintptr_t(n >= 32), other = (uintptr_t)(scratch + 32) & ~whole;
  const char *bs = (const char *)(((uintptr_t)src & whole) | other);
  char *bd = (char *)(((uintptr_t)dst & whole) | other);
  for (int k = 0; k < 4; k++) {
    const int64_t o = std::min<int64_t>(k * 32, n - 32);
    mv<true>(const_cast<char *>(bs + o), bd + o, 32);
  }
}
template <bool Pack, int C, class D>
inline char *idxv_clamped(const D *d, const D *l, char *base, char *s, int64_t i0, int64_t i1) {
  alignas(32) char scratch[192];
  for (int64_t i = i0; i < i1; i++) {
    mv_run_clamped<Pack, C>(base + d[i], s, l[i], scratch);
    s += l[i];
  }
  return s;
}
template <bool Pack, int C>
char *k_idxv_clamped(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  if (!n.disp32.empty())
    return idxv_clamped<Pack, C>(n.disp32.data(), n.lens32.data(), base, s, i0, i1);
  return idxv_clamped<Pack, C>(n.disp.data(), n.lens.data(), base, s, i0, i1);
}

// Packing runs of whole 4-byte words: each run's first 128 bytes by four
// masked loads (a masked-off lane is not read, so never faults) and four
// whole 32-byte stores, the stores past the run's end landing in the
// stream where the next runs overwrite them; the last runs of a range,
// whose stores would pass its end, as k_idxv_clamped (C, shortest run:
// 8 or 16 bytes) or k_idxv (C = 0).  Masked loads are not the masked
// stores that AMD microcodes.
template <int C, class D>
inline char *idxv_masked_pack(const Node &n, const D *d, const D *l, char *base, char *s,
                              int64_t i0, int64_t i1) {
  const char *const end = s + (n.prefix[i1] - n.prefix[i0]);
  const __m256i lanes = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  int64_t i = i0;
  for (; i < i1 && s + l[i] + 128 <= end; i++) {
    const char *u = base + d[i];
    int64_t r = l[i];
    for (; r > 128; r -= 128, u += 128, s += 128) mv<true>(const_cast<char *>(u), s, 128);
    const __m256i left = _mm256_set1_epi32((int)r);
    for (int k = 0; k < 4; k++) {
      const __m256i m = _mm256_cmpgt_epi32(left, _mm256_add_epi32(lanes, _mm256_set1_epi32(32 * k)));
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(s + 32 * k),
                          _mm256_maskload_epi32(reinterpret_cast<const int *>(u + 32 * k), m));
    }
    s += r;
  }
  if constexpr (C > 0) return idxv_clamped<true, C>(d, l, base, s, i, i1);
  else return idxv<true>(d, l, base, s, i, i1);
}
template <int C>
char *k_idxv_masked_pack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  if (!n.disp32.empty())
    return idxv_masked_pack<C>(n, n.disp32.data(), n.lens32.data(), base, s, i0, i1);
  return idxv_masked_pack<C>(n, n.disp.data(), n.lens.data(), base, s, i0, i1);
}
#endif

// A strided loop over runs of different lengths (an IdxV child, where no
// permute table fits): its runs repeat with each instance, so moves
// chosen by length, branching on it, are predicted, and over 16 bytes
// they beat mv_run's masked moves (branch-free, for lengths that vary
// unpredictably), which cost more as they grow on the AMD EPYC VM.
// 6 and 3 doubles of every 12, 2 KiB: packed in 122 ns by k_vec_any over
// k_idxv, 75 so; random patterns it takes (2 KiB, in-process A/B)
// 1.22-1.47x packing, 1.28-2.09x unpacking; AVX-512 without VBMI, whose
// byte patterns take it, 40 random patterns 1.15x / 1.11x.  Not on AVX2
// or the baseline, whose k_idxv moves by length already: fusing the loops
// there lost 0.75-0.83x on 11-15 runs.
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
template <bool Pack>
inline void mv_repeated(char *user, char *s, int64_t n) {
  if (n <= 16) return mv_run<Pack>(user, s, n);
  if (n <= 32) return mv_chunks<Pack, 16, 2>(user, s, n);
  if (n <= 64) return mv_head_tail<Pack, 32, 32>(user, s, n);
  mv_any<Pack>(user, s, n);
}
template <bool Pack, class D>
inline char *vec_idxv(const Node &n, const D *d, const D *l, char *base, char *s, int64_t i0,
                      int64_t i1) {
  const int64_t runs = (int64_t)n.child->disp.size(), st = n.stride;
  for (int64_t i = i0; i < i1; i++) {
    char *const p = base + i * st;
    for (int64_t j = 0; j < runs; j++) mv_repeated<Pack>(p + d[j], s, l[j]), s += l[j];
  }
  return s;
}
template <bool Pack>
char *k_vec_idxv(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node &c = *n.child;
  if (!c.disp32.empty()) return vec_idxv<Pack>(n, c.disp32.data(), c.lens32.data(), base, s, i0, i1);
  return vec_idxv<Pack>(n, c.disp.data(), c.lens.data(), base, s, i0, i1);
}
#endif

template <bool Pack>
inline char *whole(const Node &c, char *base, char *s) {
  return (Pack ? c.pack : c.unpack)(c, base, s, 0, c.count);
}

template <bool Pack>
char *k_vec_any(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; i++) s = whole<Pack>(*n.child, base + i * n.stride, s);
  return s;
}

template <bool Pack>
char *k_idx_any(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; i++) s = whole<Pack>(*n.child, base + n.disp[i], s);
  return s;
}

// The transpose, also over a deeper nest (Flash I/O: 24 doubles side by side
// in each cell, packed variable by variable over 80 x 8^3 cells): columns
// side by side whose child is strided levels over a block of B bytes.
// Column after column reads each line K times (once per column it holds),
// from L3 or memory; K columns together read it once, the stream side
// becomes K sequential streams.  The levels are walked as an odometer,
// the innermost row by a loop.  Unpacking only where no two blocks
// overlap (pick_columns).
//
// Each line is now read once, so nothing is left in a cache for the next
// column to find, and short rows at far strides leave the hardware
// prefetchers nothing to follow: a second odometer runs kAheadBlocks
// blocks ahead and prefetches its rows.  Flash I/O on the AMD EPYC VM
// (bench pack, 3 runs): pack 0.87-0.97x the hand loop -> 0.51-0.55x in
// this order without prefetches (through an L1 tile as well), 0.97-1.17x
// with them; unpack 1.26-1.49x -> 1.6-2.2x.  Rows of kAheadBlocks blocks
// or more the hardware follows.
constexpr int kMaxColumnLevels = 6;
constexpr int64_t kAheadBlocks = 64;
template <bool Pack, int B, int K>
char *k_vec_columns(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const Node *lv[kMaxColumnLevels];
  int levels = 0;
  for (const Node *x = n.child.get(); x->kind == Kind::Vec; x = x->child.get()) lv[levels++] = x;
  const Node &row = *lv[levels - 1];
  const int64_t st = n.stride, span = n.child->packed, rows = row.count, rst = row.stride;
  int64_t outer = 1;
  for (int l = 0; l + 1 < levels; l++) outer *= lv[l]->count;
  // An odometer over the levels above the row: the next row's start.
  struct Odometer {
    int64_t at[kMaxColumnLevels] = {};
    char *q;
    void next(const Node *const *lv, int levels) {
      for (int l = levels - 2; l >= 0; l--) {
        q += lv[l]->stride;
        if (++at[l] < lv[l]->count) return;
        q -= lv[l]->count * lv[l]->stride, at[l] = 0;
      }
    }
  };
  const int64_t ahead = rows < kAheadBlocks ? (kAheadBlocks + rows - 1) / rows : 0;  // rows
  char *p = base + i0 * st;
  int64_t i = i0;
  for (; i + K <= i1; i += K, p += K * st, s += K * span) {
    Odometer o{{}, p}, f{{}, p};
    for (int64_t r = 0; r < ahead && r < outer; r++) f.next(lv, levels);
    char *t = s;
    for (int64_t r = 0; r < outer; r++) {
      if (r + ahead < outer && ahead > 0) {
        for (int64_t j = 0; j < rows; j++) __builtin_prefetch(f.q + j * rst, Pack ? 0 : 1, 3);
        f.next(lv, levels);
      }
      char *u = o.q;
      for (int64_t j = 0; j < rows; j++, u += rst, t += B)
        for (int k = 0; k < K; k++) mv<Pack>(u + k * st, t + k * span, B);
      o.next(lv, levels);
    }
  }
  for (; i < i1; i++, p += st) s = whole<Pack>(*n.child, p, s);
  return s;
}

// Small repeating patterns in one register (permute_table.hpp): each step
// moves per_vector instances of the child with one masked load (packing,
// unmasked where WholeLoads allows), one lane permute and one masked
// store; the instances left over at the end of a strided range, one step
// with masks cut to them.
#undef LOOM_HAVE_PERMUTE  // per target: this file is compiled once for each
#undef LOOM_HAVE_TWO_SOURCE
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
#define LOOM_HAVE_PERMUTE 1
// Masked loads do not train the hardware prefetchers (AMD Zen 4: a masked
// gather of 4 floats of every 8 ran at 8 GB/s from memory against the
// scalar loop's 19.5, and at the same speed as it in cache), so the
// permute loops prefetch packing's windows and stream themselves,
// kPrefetchSteps registers ahead (about 1 KiB of a dense pattern; far
// strides get no further, since the window of each step is what is
// fetched).  Prefetches never fault, so the last steps of a range may name
// bytes beyond it.  Unpacking prefetches only where AVX-512's masked
// stores wait for uncached lines (prefetch_stores, below): elsewhere its
// prefetches for writing cost more than they hid at every size on the AMD
// EPYC Zen 4 VM (random
// patterns, scripts/ab_libraries.py, unpack without them 1.10x at 2 KiB,
// 1.06x at 64 KiB, 1.07x at 1 MiB, 1.10x at 16 MiB; a struct's 24 + 4
// bytes of every 56, 1 to 28 MB, 0.80-0.86x -> 0.90-1.02x the hand loop).
constexpr int64_t kPrefetchSteps = 16;
template <class User>
inline void prefetch_ahead(int64_t stream_bytes, const char *s, int64_t k, int64_t steps,
                           User &user) {
  if (k + kPrefetchSteps >= steps) return;
  const char *u = user(k + kPrefetchSteps);
  __builtin_prefetch(u, 0, 3);
  __builtin_prefetch(u + 63, 0, 3);  // a window may straddle two lines
  __builtin_prefetch(s + kPrefetchSteps * stream_bytes, 1, 3);
}
// Unpacking, the same with the windows prefetched for writing, where
// AVX-512's masked stores wait for lines in no cache (kStoreAhead): with
// the stream's masked loads unprefetched, {0, 1, 3, 6} of every 8 floats
// unpacked from a flushed stream to a flushed buffer (4 MiB) still ran at
// 8.5 GB/s, the plain loop's 13 (AMD EPYC Zen 5 VM).
template <class User>
inline void prefetch_stores(int64_t stream_bytes, const char *s, int64_t k, int64_t steps,
                            User &user) {
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
  if (k + kPrefetchSteps >= steps) return;
  const char *u = user(k + kPrefetchSteps);
  prefetch_write(u);
  prefetch_write(u + 63);
  __builtin_prefetch(s + kPrefetchSteps * stream_bytes, 0, 3);
#else
  (void)stream_bytes, (void)s, (void)k, (void)steps, (void)user;
#endif
}
// One register under a lane map (LaneMap), 32-bit lanes (vpermd; masked
// moves exact per lane): a masked load, the lane permute and a masked
// store, from the window at u to the packed bytes at s (pack) or back
// (unpack).  The permute kernels below are loops of these, with the masks
// and indices set up once (kept in registers: a struct of them measured
// 5-10% slower in cache, its masks reloaded through general registers).
using Words = hwy::HWY_NAMESPACE::ScalableTag<int32_t>;
inline auto word_mask(uint64_t lanes) {
  uint8_t bits[8];
  std::memcpy(bits, &lanes, 8);  // little-endian: lane i is bit i
  return hwy::HWY_NAMESPACE::LoadMaskBits(Words(), bits);
}
template <bool Pack>
inline auto word_indices(const LaneMap &m) {
  return hwy::HWY_NAMESPACE::SetTableIndices(Words(), Pack ? m.pack32 : m.unpack32);
}
// Whole: packing, the window is loaded unmasked (WholeLoads).
template <bool Pack, bool Whole, class Mask, class Indices>
inline void move_words(Mask um, Mask sm, Indices idx, char *u, char *s) {
  const Words d;
  int32_t *w = reinterpret_cast<int32_t *>(u), *q = reinterpret_cast<int32_t *>(s);
  if (Pack) {
    const auto v = Whole ? hn::LoadU(d, w) : hn::MaskedLoad(um, d, w);
    hn::BlendedStore(hn::TableLookupLanes(v, idx), sm, d, q);
  } else {
    hn::BlendedStore(hn::TableLookupLanes(hn::MaskedLoad(sm, d, q), idx), um, d, w);
  }
}

// Small word patterns in one register: `steps` registers, the user side's
// window at user(k) for step k.
template <bool Pack, bool Whole, bool Ahead = false, class User>
inline char *permute_words(const PermuteTable &t, char *s, int64_t steps, User user) {
  if constexpr (!Pack && !Ahead)
    if (stores_ahead(steps * t.stream_bytes))
      return permute_words<Pack, Whole, true>(t, s, steps, user);
  const auto um = word_mask(t.map.user_lanes), sm = word_mask(t.map.stream_lanes);
  const auto idx = word_indices<Pack>(t.map);
  const int64_t sb = t.stream_bytes;  // a local: the stores may alias t
  for (int64_t k = 0; k < steps; k++, s += sb) {
    if constexpr (Pack) prefetch_ahead(sb, s, k, steps, user);
    if constexpr (Ahead) prefetch_stores(sb, s, k, steps, user);
    move_words<Pack, Whole>(um, sm, idx, user(k), s);
  }
  return s;
}
constexpr int kPermuteWidth = HWY_TARGET == HWY_AVX2 ? 32 : 64;
#endif

#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
#define LOOM_HAVE_TWO_SOURCE 1
// One register under a lane map with AVX-512's own moves, for words or
// (VBMI) bytes, from a window of one register or, with two-source
// permutes, of two (Two): a piece (ChunkTable) then packs a register from
// 128 bytes of the user's with two masked loads and one two-source
// permute, as the vectoriser packs a 112-byte pattern of 16 floats, and
// unpacks it with a one-source permute and a masked store to each register
// of the window the piece names (`idx2`: the second's).  Word patterns in
// one register take move_words, byte ones this: masked stores of words
// measured faster than of bytes.
template <bool Pack, int Lane, bool Two>
inline void move_window(uint64_t um, uint64_t um2, uint64_t sm, __m512i idx, __m512i idx2, char *u,
                        char *s) {
  if constexpr (Lane == 4) {
    if (Pack) {
      const __m512i a = _mm512_maskz_loadu_epi32((__mmask16)um, u);
      const __m512i v =
          Two ? _mm512_permutex2var_epi32(a, idx, _mm512_maskz_loadu_epi32((__mmask16)um2, u + 64))
              : _mm512_permutexvar_epi32(idx, a);
      _mm512_mask_storeu_epi32(s, (__mmask16)sm, v);
    } else {
      const __m512i v = _mm512_maskz_loadu_epi32((__mmask16)sm, s);
      _mm512_mask_storeu_epi32(u, (__mmask16)um, _mm512_permutexvar_epi32(idx, v));
      if (Two && um2) _mm512_mask_storeu_epi32(u + 64, (__mmask16)um2, _mm512_permutexvar_epi32(idx2, v));
    }
  } else {
#if HWY_TARGET == HWY_AVX3_DL
    if (Pack) {
      const __m512i a = _mm512_maskz_loadu_epi8(um, u);
      const __m512i v = Two ? _mm512_permutex2var_epi8(a, idx, _mm512_maskz_loadu_epi8(um2, u + 64))
                            : _mm512_permutexvar_epi8(idx, a);
      _mm512_mask_storeu_epi8(s, sm, v);
    } else {
      const __m512i v = _mm512_maskz_loadu_epi8(sm, s);
      _mm512_mask_storeu_epi8(u, um, _mm512_permutexvar_epi8(idx, v));
      if (Two && um2) _mm512_mask_storeu_epi8(u + 64, um2, _mm512_permutexvar_epi8(idx2, v));
    }
#endif
  }
}
constexpr bool kTwoSource = true;
#else
constexpr bool kTwoSource = false;
#endif

#if HWY_TARGET == HWY_AVX3_DL
// Small byte patterns in one register, as permute_words.
template <bool Pack, bool Whole, bool Ahead = false, class User>
inline char *permute_bytes(const PermuteTable &t, char *s, int64_t steps, User user) {
  if constexpr (!Pack && !Ahead)
    if (stores_ahead(steps * t.stream_bytes))
      return permute_bytes<Pack, Whole, true>(t, s, steps, user);
  const __m512i idx = _mm512_load_si512(Pack ? t.map.pack8 : t.map.unpack8);
  const uint64_t um = Pack && Whole ? ~uint64_t(0) : t.map.user_lanes, sm = t.map.stream_lanes;
  const int64_t sb = t.stream_bytes;  // a local: the stores may alias t
  for (int64_t k = 0; k < steps; k++, s += sb) {
    if constexpr (Pack) prefetch_ahead(sb, s, k, steps, user);
    if constexpr (Ahead) prefetch_stores(sb, s, k, steps, user);
    move_window<Pack, 1, false>(um, 0, sm, idx, idx, user(k), s);
  }
  return s;
}
#endif

#ifdef LOOM_HAVE_TWO_SOURCE
// Packing where two registers' packed bytes fit one (a pattern that keeps
// half its window or less, such as 4 floats of every 8): one two-source
// permute and one full store per pair of registers instead of a masked
// store each, as a vectorised hand loop does.  No software prefetch here:
// two masked loads a line keep the hardware prefetchers going, and the
// prefetches cost more than they hid (AMD EPYC VM, {0, 1, 3, 6} of every 8
// floats, 4 MiB packed: 21 GB/s with them against 25 without and the hand
// loop's 25 in cache, 6.5 against 7.3 and 7.4 from memory).  Returns the
// steps done (whole pairs).  Where two or four pairs fill a register
// exactly (a byte of every 4 or 8, a short of every 8 or 16), they are
// joined and stored at once: bytes of every 8 in L2 went through pairs at
// 0.63x the hand loop, which joins four truncating moves' results.
template <int Lane, bool Whole>
inline __m512i pack_pair(uint64_t um, __m512i idx, const char *u0, const char *u1) {
  if constexpr (Whole) {
    if (Lane == 4)
      return _mm512_permutex2var_epi32(_mm512_loadu_si512(u0), idx, _mm512_loadu_si512(u1));
    return pack_pair<Lane, false>(~uint64_t(0), idx, u0, u1);
  } else if constexpr (Lane == 4) {
    return _mm512_permutex2var_epi32(_mm512_maskz_loadu_epi32((__mmask16)um, u0), idx,
                                     _mm512_maskz_loadu_epi32((__mmask16)um, u1));
  } else {
#if HWY_TARGET == HWY_AVX3_DL
    return _mm512_permutex2var_epi8(_mm512_maskz_loadu_epi8(um, u0), idx,
                                    _mm512_maskz_loadu_epi8(um, u1));
#else
    return _mm512_setzero_si512();  // byte lanes are VBMI's (never taken)
#endif
  }
}

// Whole registers of a stream by non-temporal stores to its aligned lines
// (see k_vec_dense_stream): a register bound for s..s+63, r words past a
// line's start, joins the previous register's last r words in one
// two-source permute to fill a line.  The first and the last line, which
// the stream shares with the bytes around it, take masked plain stores.
// s a multiple of 4 bytes.
class LineStream {
 public:
  explicit LineStream(char *s) : r_(int(reinterpret_cast<uintptr_t>(s) % 64 / 4)) {
    line_ = s - 4 * r_;
    alignas(64) int32_t j[16];
    for (int l = 0; l < 16; l++) j[l] = l < r_ ? 16 - r_ + l : 16 + l - r_;
    join_ = _mm512_load_si512(j);
  }
  void put(__m512i v) {
    const __m512i line = _mm512_permutex2var_epi32(carry_, join_, v);
    if (__builtin_expect(lines_ > 0, 1))
      _mm512_stream_si512(reinterpret_cast<__m512i *>(line_), line);
    else
      _mm512_mask_storeu_epi32(line_, (__mmask16)(0xFFFF << r_), line);
    carry_ = v, line_ += 64, lines_++;
  }
  // The last r words; the stream's end.
  char *finish() {
    if (r_ && lines_)
      _mm512_mask_storeu_epi32(line_, (__mmask16)((1u << r_) - 1),
                               _mm512_permutex2var_epi32(carry_, join_, carry_));
    _mm_sfence();
    return line_ + 4 * r_;
  }

 private:
  int r_;
  char *line_;
  __m512i join_, carry_ = _mm512_setzero_si512();
  int64_t lines_ = 0;
};

// Stores a register packed for s: plainly, or (Stream) into a LineStream.
template <bool Stream>
struct StoreTo;
template <>
struct StoreTo<false> {
  explicit StoreTo(char *) {}
  void put(char *s, __m512i v) { _mm512_storeu_si512(s, v); }
  char *finish(char *s) { return s; }
};
template <>
struct StoreTo<true> {
  explicit StoreTo(char *s) : to(s) {}
  void put(char *, __m512i v) { to.put(v); }
  char *finish(char *) { return to.finish(); }
  LineStream to;
};

template <int Lane, bool Whole, bool Stream, class User>
inline int64_t pack_pairs(const PermuteTable &t, char *&s, int64_t steps, User &user) {
  const uint64_t um = t.map.user_lanes, sm = t.pair_lanes;
  const int64_t pb = 2 * t.stream_bytes;  // a local: the stores may alias t
  const __m512i idx = _mm512_load_si512(Lane == 4 ? static_cast<const void *>(t.pack32x2)
                                                  : static_cast<const void *>(t.pack8x2));
  const auto pair = [&](int64_t k) {
    return pack_pair<Lane, Whole>(um, idx, user(k), user(k + 1));
  };
  int64_t k = 0;
  StoreTo<Stream> out(s);
  if (pb == 32) {
    for (; k + 4 <= steps; k += 4, s += 64)
      out.put(s, _mm512_inserti64x4(pair(k), _mm512_castsi512_si256(pair(k + 2)), 1));
  } else if (pb == 16) {
    for (; k + 8 <= steps; k += 8, s += 64) {
      __m512i v = pair(k);
      v = _mm512_inserti32x4(v, _mm512_castsi512_si128(pair(k + 2)), 1);
      v = _mm512_inserti32x4(v, _mm512_castsi512_si128(pair(k + 4)), 2);
      v = _mm512_inserti32x4(v, _mm512_castsi512_si128(pair(k + 6)), 3);
      out.put(s, v);
    }
  } else if (pb == 64) {
    for (; k + 2 <= steps; k += 2, s += 64) out.put(s, pair(k));
  }
  s = out.finish(s);
  for (; k + 2 <= steps; k += 2, s += pb) {
    const __m512i v = pair(k);
    if (Lane == 4) _mm512_mask_storeu_epi32(s, (__mmask16)sm, v);
    else _mm512_mask_storeu_epi8(s, sm, v);
  }
  return k;
}

template <bool Whole, bool Stream, class User>
inline int64_t pack_pairs(const PermuteTable &t, char *&s, int64_t steps, User &user) {
#if HWY_TARGET == HWY_AVX3_DL
  if (t.lane == 1) return pack_pairs<1, Whole, Stream>(t, s, steps, user);
#endif
  return t.lane == 4 ? pack_pairs<4, Whole, Stream>(t, s, steps, user) : 0;
}
#endif

#ifdef LOOM_HAVE_PERMUTE
template <bool Pack, bool Whole, class User>
inline char *permute_one(const PermuteTable &t, char *s, int64_t steps, User user) {
#if HWY_TARGET == HWY_AVX3_DL
  if (t.lane == 1) return permute_bytes<Pack, Whole>(t, s, steps, user);
#endif
  return permute_words<Pack, Whole>(t, s, steps, user);
}

// Packing, the steps t.whole allows load whole, the rest masked; Stream:
// pairs' whole registers by non-temporal stores (s a multiple of 4).
template <bool Pack, bool Stream = false, class User>
inline char *permute_steps(const PermuteTable &t, char *s, int64_t steps, User user) {
  if constexpr (!Pack) return permute_one<Pack, false>(t, s, steps, user);
  const int64_t whole = t.whole.of(steps);
  int64_t done = 0;
  auto from = [&](int64_t first) { return [=](int64_t k) { return user(first + k); }; };
#ifdef LOOM_HAVE_TWO_SOURCE
  if (t.pair_lanes) {
    done = pack_pairs<true, Stream>(t, s, whole, user);
    auto rest = from(done);
    done += pack_pairs<false, Stream>(t, s, steps - done, rest);
  }
#endif
  if (done < whole) s = permute_one<Pack, true>(t, s, whole - done, from(done)), done = whole;
  if (done == steps) return s;
  return permute_one<Pack, false>(t, s, steps - done, from(done));
}

// The r instances (0 < r < per_vector) at u, a strided loop's last, in one
// step of t with its masks cut to them: the first r instances' window
// lanes and packed bytes.  Unpacking only where t.prefixes_exact.
template <bool Pack>
inline char *permute_part(const PermuteTable &t, char *s, int64_t r, char *u) {
  const int64_t bytes = r * (t.stream_bytes / t.per_vector);
  const uint64_t um = t.first_lanes[r], sm = (uint64_t(1) << (bytes / t.lane)) - 1;
  u += t.map.window;
#if HWY_TARGET == HWY_AVX3_DL
  if (t.lane == 1) {
    const __m512i idx = _mm512_load_si512(Pack ? t.map.pack8 : t.map.unpack8);
    move_window<Pack, 1, false>(um, 0, sm, idx, idx, u, s);
    return s + bytes;
  }
#endif
  move_words<Pack, false>(word_mask(um), word_mask(sm), word_indices<Pack>(t.map), u, s);
  return s + bytes;
}

// A strided loop in steps of m consecutive instances: move(p, s, steps,
// step) moves the whole steps from p, `step` bytes apart, and returns s
// advanced; rest(s, i, i1) moves the instances i..i1-1 left at the end of
// the range (fewer than m) and returns s advanced.
template <class Move, class Rest>
inline char *by_steps(const Node &n, char *base, char *s, int64_t i0, int64_t i1, int64_t m,
                      Move move, Rest rest) {
  // A shift where m is a power of two (every group table's): the
  // division cost a fifth of a 2 KiB pack's time.
  const int64_t st = n.stride,
                steps = (m & (m - 1)) == 0 ? (i1 - i0) >> __builtin_ctzll(m) : (i1 - i0) / m;
  s = move(base + i0 * st, s, steps, m * st);
  const int64_t i = i0 + steps * m;
  return i == i1 ? s : rest(s, i, i1);
}

// by_steps' rest where a step kernel replaced another (Node::pack_rest).
inline auto rest_by_pack_rest(const Node &n, char *base) {
  return [&n, base](char *s, int64_t i, int64_t end) { return n.pack_rest(n, base, s, i, end); };
}

// Before the steps of a kernel that stores whole registers (groups,
// register steps), in ranges of kAlignedFrom packed bytes or more: the
// instances that bring the stream to a multiple of the registers' width
// (`align`), moved by the kernel the steps replaced (Node::pack_rest), so
// that no step's store is split across cache lines; i0 advances past
// them.  Below, from L1, that call cost more than split stores (3 floats
// of every 5 at 8 KiB packed by register steps 1.14x the moves' speed
// with the stores where the stream put them, 1.25x aligned; at 2 KiB 24
// bytes of every 30 0.81x the moves aligned, 0.93x not; random index
// patterns by groups at 2-4 KiB 1.04-1.19x faster not aligned, at 8 KiB
// as fast, at 16-32 KiB 0.77-1.00x; in-process A/B, Intel Xeon VM).
constexpr int64_t kAlignedFrom = 8 << 10;
inline char *aligned_head(const Node &n, const StreamAlign &align, char *base, char *s,
                          int64_t &i0, int64_t i1) {
  if ((i1 - i0) * n.child->packed < kAlignedFrom) return s;
  if (const int64_t k = std::min(align.first((uintptr_t)s), i1 - i0))
    s = n.pack_rest(n, base, s, i0, i0 + k), i0 += k;
  return s;
}

// A strided loop: per_vector consecutive instances per register; the last
// few in one step of masks cut to them, or (unpacking where instances
// overlap) the child's kernel each.
template <bool Pack, bool Stream = false>
char *k_vec_permute(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const PermuteTable &t = Pack && n.permute->pairs ? *n.permute->pairs : *n.permute;
  if (Stream && reinterpret_cast<uintptr_t>(s) % 4 != 0)  // LineStream's lanes are words
    return k_vec_permute<Pack>(n, base, s, i0, i1);
  return by_steps(n, base, s, i0, i1, t.per_vector,
                  [&](char *p, char *out, int64_t steps, int64_t step) {
                    // By value: the stores go through char pointers,
                    // which may alias anything a reference names, and
                    // would reload it every step.
                    char *const w = p + t.map.window;
                    return permute_steps<Pack, Stream>(t, out, steps,
                                                       [=](int64_t k) { return w + k * step; });
                  },
                  [&](char *out, int64_t i, int64_t end) {
                    if (Pack || t.prefixes_exact)
                      return permute_part<Pack>(t, out, end - i, base + i * n.stride);
                    return k_vec_any<Pack>(n, base, out, i, end);
                  });
}

// An index loop: one instance per register, at its displacement.
template <bool Pack>
char *k_idx_permute(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const PermuteTable &t = *n.permute;
  const int64_t *d = n.disp.data() + i0;
  char *const w = base + t.map.window;
  return permute_steps<Pack>(t, s, i1 - i0, [=](int64_t k) { return w + d[k]; });
}
#endif

#ifdef LOOM_HAVE_PERMUTE
// A pattern in pieces (ChunkTable), an instance a step: each piece a masked
// load, a permute and a masked store, as the one-register kernels above.
// AVX2's word pieces prefetch their windows kChunkAhead instances ahead:
// unpacking wide word patterns at 1 MiB gained 5-10% on the Intel VM.
// AVX-512's pieces prefetch nothing (see window_loop).
constexpr int64_t kChunkAhead = 8;

// f(std::integral_constant<int, NC>()) for NC = chunks (1..kMaxChunks), so
// that a piece loop unrolls for each count of pieces (AVX2's chunk_loop;
// AVX-512's window_chunks and shared_steps keep switches, see there).
template <class F>
inline char *by_chunks(int chunks, F f) {
  switch (chunks) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 3: return f(std::integral_constant<int, 3>());
    case 4: return f(std::integral_constant<int, 4>());
    case 5: return f(std::integral_constant<int, 5>());
    case 6: return f(std::integral_constant<int, 6>());
    case 7: return f(std::integral_constant<int, 7>());
    default: return f(std::integral_constant<int, kMaxChunks>());
  }
}

// One-register windows (AVX2, words), NC pieces: with NC fixed the piece
// loop unrolls and its masks and indices stay in registers where they fit
// (as AVX-512's window_loop): random float patterns 1.42x faster both ways
// at 2 KiB than a loop over the pieces, all random patterns 1.21x packing,
// 1.18x unpacking at 64 KiB (LOOM_ISA=avx2, scripts/ab_libraries.py).
template <bool Pack, int NC, class User>
inline char *chunk_loop(const ChunkTable &t, char *s, int64_t steps, User user) {
  const int64_t sb = t.stream_bytes;  // locals: the stores may alias t
  using Mask = decltype(word_mask(0));
  using Indices = decltype(word_indices<Pack>(t.chunk[0]));
  Indices idx[NC];
  Mask um[NC], sm[NC];
  int64_t win[NC], str[NC];
  for (int j = 0; j < NC; j++) {
    const LaneMap &c = t.chunk[j];
    idx[j] = word_indices<Pack>(c), um[j] = word_mask(c.user_lanes), sm[j] = word_mask(c.stream_lanes);
    win[j] = c.window, str[j] = c.stream;
  }
  for (int64_t k = 0; k < steps; k++, s += sb) {
    char *u = user(k);
    if (k + kChunkAhead < steps) {
      const char *a = user(k + kChunkAhead);
      for (int j = 0; j < NC; j++) {
        __builtin_prefetch(a + win[j], Pack ? 0 : 1, 3);
        __builtin_prefetch(a + win[j] + 63, Pack ? 0 : 1, 3);
      }
    }
    for (int j = 0; j < NC; j++)
      move_words<Pack, false>(um[j], sm[j], idx[j], u + win[j], s + str[j]);
  }
  return s;
}
template <bool Pack, class User>
inline char *chunk_steps(const ChunkTable &t, char *s, int64_t steps, User user) {
  return by_chunks(t.chunks, [&](auto nc) { return chunk_loop<Pack, nc()>(t, s, steps, user); });
}

#ifdef LOOM_HAVE_TWO_SOURCE
// AVX-512's pieces, NC of them, each a move_window of one register's
// window or two.  With NC fixed the piece loop unrolls and the masks,
// indices and offsets stay in registers; as a loop over arrays each piece
// cost a dozen loads and moves around its three vector instructions (12
// doubles in 344 bytes, 6 pieces, packed at 64 KiB: 0.69x the hand loop).
// The first `whole` steps load unmasked: packing, the user's windows
// (WholeLoads); unpacking, the stream's registers (ChunkTable::
// stream_tail).  The pieces' masks then no longer spill from the 7 mask
// registers, and a load is one operation instead of two.  Nothing is
// prefetched but where masked stores wait for uncached lines (Ahead,
// prefetch_stores): packing, the windows' loads keep the hardware
// prefetchers going; unpacking, prefetching each window for writing 8
// instances ahead cost more than it hid on the AMD EPYC Zen 4 VM (random float patterns,
// scripts/ab_libraries.py, unpack without 1.05x at 2 KiB, 1.04x at 64
// KiB, 1.08x at 1 MiB, 1.20x at 16 MiB; doubles unchanged), where on
// the Intel Xeon VM it had gained 5-10% at 1 MiB.  Measured on the Intel
// Xeon VM: 15 instances of 17 doubles in
// 224 bytes (2 KiB, in L1) packed in 62 ns against 77 and, with the
// stream's loads whole, unpacked in 74 against 82 (medians of 8-10
// alternating processes; the hand loop packs in 38-46); fresh seeds' 40
// patterns (pattern_sweep, 3 processes each) over the hand loop, packing
// at 2 KiB: 1.21 -> 1.32x (below 0.9: 25 -> 16 of 80, the wide double
// patterns 0.63-0.78 -> 0.73-0.96), 64 KiB: 1.54 -> 1.56x, 1 MiB: equal
// (0.995), 16 MiB: 1.17 -> 1.20x; unpacking at 64 KiB 3-4% faster (the
// wide double patterns 8-14%), at 2 KiB and 1 MiB within 2%.
template <bool Pack, int Lane, bool Two, int NC, bool Ahead = false, class User>
inline char *window_loop(const ChunkTable &t, char *s, int64_t steps, User user, int64_t whole) {
  if constexpr (!Pack && !Ahead)
    if (stores_ahead(steps * t.stream_bytes))
      return window_loop<Pack, Lane, Two, NC, true>(t, s, steps, user, whole);
  constexpr int nc = NC;
  const int64_t sb = t.stream_bytes;  // locals: the stores may alias t
  __m512i idx[kMaxChunks], idx2[kMaxChunks];
  uint64_t um[kMaxChunks], um2[kMaxChunks], sm[kMaxChunks];
  int64_t win[kMaxChunks], str[kMaxChunks];
  for (int j = 0; j < nc; j++) {
    const LaneMap &c = t.chunk[j];
    if (Lane == 4) {
      idx[j] = _mm512_load_si512(Pack ? c.pack32 : c.unpack32);
      idx2[j] = _mm512_load_si512(c.unpack32 + 16);
    } else {
      idx[j] = _mm512_load_si512(Pack ? c.pack8 : c.unpack8);
      idx2[j] = _mm512_load_si512(c.unpack8 + 64);
    }
    um[j] = c.user_lanes, um2[j] = c.user_lanes2, sm[j] = c.stream_lanes;
    win[j] = c.window, str[j] = c.stream;
  }
  // The steps from k up to `to`, their user windows (packing) or stream
  // registers (unpacking) loaded whole or masked.
  int64_t k = 0;
  auto run = [&](auto whole_loads, int64_t to) {
    constexpr bool W = decltype(whole_loads)::value;
    constexpr uint64_t all = ~uint64_t(0);
    for (; k < to; k++, s += sb) {
      char *u = user(k);
      if (Ahead && k + kChunkAhead < steps) {  // prefetch_stores' windows
        const char *a = user(k + kChunkAhead);
        for (int j = 0; j < nc; j++) {
          prefetch_write(a + win[j]);
          prefetch_write(a + win[j] + (Two ? 127 : 63));
        }
      }
      for (int j = 0; j < nc; j++)
        move_window<Pack, Lane, Two>(Pack && W ? all : um[j], Pack && W ? all : um2[j],
                                     !Pack && W ? all : sm[j], idx[j], idx2[j], u + win[j],
                                     s + str[j]);
    }
  };
  run(std::true_type(), whole);
  run(std::false_type(), steps);
  return s;
}

template <bool Pack, int Lane, bool Two, class User>
inline char *window_chunks(const ChunkTable &t, char *s, int64_t steps, User user, int64_t whole) {
  // A switch of its own, not by_chunks: with this and shared_steps
  // dispatched through its lambda, random float and double patterns packed
  // 0.98x as fast (AVX-512, 2 KiB, in-process A/B: the loops' code moved).
  switch (t.chunks) {
    case 1: return window_loop<Pack, Lane, Two, 1>(t, s, steps, user, whole);
    case 2: return window_loop<Pack, Lane, Two, 2>(t, s, steps, user, whole);
    case 3: return window_loop<Pack, Lane, Two, 3>(t, s, steps, user, whole);
    case 4: return window_loop<Pack, Lane, Two, 4>(t, s, steps, user, whole);
    case 5: return window_loop<Pack, Lane, Two, 5>(t, s, steps, user, whole);
    case 6: return window_loop<Pack, Lane, Two, 6>(t, s, steps, user, whole);
    case 7: return window_loop<Pack, Lane, Two, 7>(t, s, steps, user, whole);
    default: return window_loop<Pack, Lane, Two, kMaxChunks>(t, s, steps, user, whole);
  }
}

template <bool Pack, int Lane, bool Two, class User>
inline char *window_steps(const ChunkTable &t, char *s, int64_t steps, User user) {
  // The steps whose loads may be whole.  Packing, the user's windows: all
  // of them, or all but the last, whose next step covers them.
  // Unpacking, the stream's registers: those within the range's stream.
  const int64_t whole =
      Pack ? t.whole.of(steps) : std::max<int64_t>(0, steps - t.stream_tail);
  return window_chunks<Pack, Lane, Two>(t, s, steps, user, whole);
}

template <bool Pack, int Lane, class User>
inline char *window_steps(const ChunkTable &t, char *s, int64_t steps, User user) {
  if (t.registers == 2) return window_steps<Pack, Lane, true>(t, s, steps, user);
  return window_steps<Pack, Lane, false>(t, s, steps, user);
}
#endif

#ifdef LOOM_HAVE_TWO_SOURCE
// Packing pieces from shared windows (ChunkTable::shared): a step loads
// each of its registers once, where pieces loading their own two windows
// loaded most of them twice, as the vectoriser's code loads each element
// once.  Random double patterns whose table has one (3 pieces or more),
// 2 KiB: 1.13-1.14x (word lanes either way).
template <int Lane>
inline __m512i load_lanes(uint64_t m, const char *u) {
  if constexpr (Lane == 4) return _mm512_maskz_loadu_epi32((__mmask16)m, u);
  else return _mm512_maskz_loadu_epi8(m, u);
}
// Of 64-byte registers (groups, pieces) or 32-byte ones (steps).
template <int Lane, class V>
inline V permute2(V a, V idx, V b) {
  constexpr bool wide = sizeof(V) == 64;
  if constexpr (Lane == 4) {
    if constexpr (wide) return _mm512_permutex2var_epi32(a, idx, b);
    else return _mm256_permutex2var_epi32(a, idx, b);
  }
#if HWY_TARGET == HWY_AVX3_DL
  else if constexpr (wide) return _mm512_permutex2var_epi8(a, idx, b);
  else return _mm256_permutex2var_epi8(a, idx, b);
#else
  else return a;  // byte lanes are VBMI's (never taken)
#endif
}
template <int Lane, int NC, class User>
inline char *shared_loop(const ChunkTable &t, char *s, int64_t steps, User user) {
  constexpr int nc = NC;
  const int64_t sb = t.stream_bytes, lo = t.chunk[0].window;  // locals: the stores may alias t
  __m512i idx[kMaxChunks];
  uint64_t um[kMaxChunks + 1], sm[kMaxChunks];
  int64_t str[kMaxChunks];
  for (int j = 0; j < nc; j++) {
    const LaneMap &c = t.chunk[j];
    idx[j] = _mm512_load_si512(Lane == 4 ? (const void *)c.pack32 : c.pack8);
    um[j] = c.user_lanes, um[j + 1] = c.user_lanes2, sm[j] = c.stream_lanes, str[j] = c.stream;
  }
  int64_t k = 0;
  auto run = [&](auto whole_loads, int64_t to) {
    constexpr bool W = decltype(whole_loads)::value;
    constexpr uint64_t all = ~uint64_t(0);
    for (; k < to; k++, s += sb) {
      const char *u = user(k) + lo;
      __m512i b = load_lanes<Lane>(W ? all : um[0], u);
      for (int j = 0; j < nc; j++) {
        const __m512i a = b;
        b = load_lanes<Lane>(W ? all : um[j + 1], u + 64 * (j + 1));
        const __m512i v = permute2<Lane>(a, idx[j], b);
        if constexpr (Lane == 4) _mm512_mask_storeu_epi32(s + str[j], (__mmask16)sm[j], v);
        else _mm512_mask_storeu_epi8(s + str[j], sm[j], v);
      }
    }
  };
  run(std::true_type(), t.whole.of(steps));
  run(std::false_type(), steps);
  return s;
}

template <int Lane, class User>
inline char *shared_steps(const ChunkTable &t, char *s, int64_t steps, User user) {
  switch (t.chunks) {  // as window_chunks
    case 1: return shared_loop<Lane, 1>(t, s, steps, user);
    case 2: return shared_loop<Lane, 2>(t, s, steps, user);
    case 3: return shared_loop<Lane, 3>(t, s, steps, user);
    case 4: return shared_loop<Lane, 4>(t, s, steps, user);
    case 5: return shared_loop<Lane, 5>(t, s, steps, user);
    case 6: return shared_loop<Lane, 6>(t, s, steps, user);
    case 7: return shared_loop<Lane, 7>(t, s, steps, user);
    default: return shared_loop<Lane, kMaxChunks>(t, s, steps, user);
  }
}
#endif

template <bool Pack, class User>
inline char *pieces(const ChunkTable &t, char *s, int64_t steps, User user) {
#ifdef LOOM_HAVE_TWO_SOURCE
  if (Pack && t.packing) {
    const ChunkTable &p = *t.packing;
#if HWY_TARGET == HWY_AVX3_DL
    if (p.lane == 1) return shared_steps<1>(p, s, steps, user);
#endif
    return shared_steps<4>(p, s, steps, user);
  }
#if HWY_TARGET == HWY_AVX3_DL
  if (t.lane == 1) return window_steps<Pack, 1>(t, s, steps, user);
#endif
  return window_steps<Pack, 4>(t, s, steps, user);
#else
  return chunk_steps<Pack>(t, s, steps, user);
#endif
}

template <bool Pack>
char *k_vec_chunks(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const int64_t st = n.stride;
  char *const p = base + i0 * st;
  return pieces<Pack>(*n.chunks, s, i1 - i0, [=](int64_t k) { return p + k * st; });
}

template <bool Pack>
char *k_idx_chunks(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const int64_t *d = n.disp.data() + i0;
  return pieces<Pack>(*n.chunks, s, i1 - i0, [=](int64_t k) { return base + d[k]; });
}

#ifdef LOOM_HAVE_TWO_SOURCE
// Packing a group of consecutive instances a step (make_group_table): its
// pieces fill whole registers, stored at once, where an instance alone
// would leave a register part empty, or a register of instances a store
// (6 of every 8 bytes, 64 KiB: 0.58 -> 0.79x the hand loop; bytes in
// 14-22 bytes, 2-4 runs: 1.2-1.4x faster).  The instances after the
// range's last whole group (up to 63 of a 3-byte pattern) take the kernel
// the groups replaced (pack_rest), in one call, not the child's kernel
// one instance a call; so do the first few from 8 KiB, up to where the
// stream is at a multiple of 64 bytes (aligned_head): the steps' stores
// are then whole cache lines (blocks of 3 doubles of every 4 at 64 KiB:
// 1.2x faster with the stream at a multiple of 64 bytes than 8 to 48
// bytes past one, where the groups had been no faster than the moves;
// Intel Xeon VM).
//
// Strided blocks (MPI_Type_vector) of whole words that one move does not
// take (12, 20-28, 40-60 bytes) pack by groups too, as the vectoriser
// packs a hand loop's: 64 KiB of random ones 1.14-1.36x faster than by
// the row of moves, 16 KiB 1.15-1.5x (but 0.93x on one), 12 KiB
// 1.11-1.17x; below, from L1, the moves are as fast and a call's fixed
// cost counts, more so where each piece loads a window of its own: those
// at 8 KiB 0.91-1.04x, at 4 KiB 0.83-0.93x, whereas groups from shared
// windows (the `packing` table, NC + 1 loads a step) ran 1.06-1.23x at
// 4 KiB and 1.02-1.24x at 5-7 KiB, at 2 KiB 0.85-0.97x (in-process A/B,
// Intel Xeon VM, with group_steps).  So ranges of fewer packed bytes than
// kBlockGroupsFrom (kSharedBlockGroupsFrom from shared windows) keep the
// moves, unless a group is one register (one piece: 2 floats of every 3,
// 2 bytes of every 3), whose first and last instances cost least: those
// packed 1.18-1.30x faster by groups at 2 and 8 KiB (in-process A/B, AMD
// EPYC Zen 4 VM).
constexpr int64_t kBlockGroupsFrom = 8 << 10, kSharedBlockGroupsFrom = 4 << 10;
template <class Steps>
inline char *groups_pack(const Node &n, char *base, char *s, int64_t i0, int64_t i1, Steps steps) {
  const ChunkTable &t = *n.groups;
  if (n.child->kind == Kind::Block && t.chunks > 1 &&
      (i1 - i0) * n.child->packed < (t.packing ? kSharedBlockGroupsFrom : kBlockGroupsFrom))
    return n.pack_rest(n, base, s, i0, i1);
  s = aligned_head(n, t.align, base, s, i0, i1);
  return by_steps(n, base, s, i0, i1, t.instances, steps, rest_by_pack_rest(n, base));
}

// A group table's steps: every piece fills its register (make_group_table),
// stored whole, and only the permutes' indices and the pieces' windows
// stay in registers, where the general loops (shared_loop, window_loop)
// keep every piece's masks and stream offsets too, for the pieces of one
// instance.  Through those a call ran ~200 instructions besides its steps
// (vec(8,+48,blk40): 14.8 ns against 5.0 for the moves; Intel Xeon VM).
// The windows: shared (the table's `packing`: piece j's are registers j
// and j + 1 of the step's, each loaded once), or each piece's own two
// registers (make_group_table makes no other).
template <int Lane, int NC, bool Shared>
inline char *group_steps(const ChunkTable &t, const char *w, char *s, int64_t steps,
                         int64_t step) {
  __m512i idx[NC];
  int64_t win[NC];
  for (int j = 0; j < NC; j++) {
    idx[j] = _mm512_load_si512(Lane == 4 ? (const void *)t.chunk[j].pack32 : t.chunk[j].pack8);
    win[j] = t.chunk[j].window;
  }
  if (Shared) w += win[0];
  // um, um2: a piece's named lanes of its window's registers (shared:
  // um[j] of the step's register j); all where the loads are whole.
  auto run = [&](const uint64_t *um, const uint64_t *um2, int64_t from, int64_t to) {
    for (int64_t k = from; k < to; k++, w += step, s += 64 * NC) {
      if constexpr (Shared) {
        __m512i b = load_lanes<Lane>(um[0], w);
        for (int j = 0; j < NC; j++) {
          const __m512i a = b;
          b = load_lanes<Lane>(um[j + 1], w + 64 * (j + 1));
          _mm512_storeu_si512(s + 64 * j, permute2<Lane>(a, idx[j], b));
        }
      } else {
        for (int j = 0; j < NC; j++) {
          const __m512i a = load_lanes<Lane>(um[j], w + win[j]),
                        b = load_lanes<Lane>(um2[j], w + win[j] + 64);
          _mm512_storeu_si512(s + 64 * j, permute2<Lane>(a, idx[j], b));
        }
      }
    }
  };
  const int64_t whole = t.whole.of(steps);
  uint64_t um[NC + 1], um2[NC];
  std::fill(um, um + NC + 1, ~uint64_t(0));
  std::fill(um2, um2 + NC, ~uint64_t(0));
  run(um, um2, 0, whole);
  if (whole < steps) {
    for (int j = 0; j < NC; j++) um[j] = t.chunk[j].user_lanes, um2[j] = t.chunk[j].user_lanes2;
    um[NC] = t.chunk[NC - 1].user_lanes2;
    run(um, um2, whole, steps);
  }
  return s;
}

template <int Lane, int NC, bool Shared>
char *k_vec_groups_pack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  return groups_pack(n, base, s, i0, i1, [&n](char *p, char *out, int64_t steps, int64_t step) {
    return group_steps<Lane, NC, Shared>(Shared ? *n.groups->packing : *n.groups, p, out, steps,
                                         step);
  });
}

template <int Lane, bool Shared>
Kernel groups_kernel(int nc) {
  switch (nc) {
    case 1: return k_vec_groups_pack<Lane, 1, Shared>;
    case 2: return k_vec_groups_pack<Lane, 2, Shared>;
    case 3: return k_vec_groups_pack<Lane, 3, Shared>;
    case 4: return k_vec_groups_pack<Lane, 4, Shared>;
    case 5: return k_vec_groups_pack<Lane, 5, Shared>;
    case 6: return k_vec_groups_pack<Lane, 6, Shared>;
    case 7: return k_vec_groups_pack<Lane, 7, Shared>;
    default: return k_vec_groups_pack<Lane, kMaxChunks, Shared>;
  }
}

template <int Lane>
Kernel groups_kernel(const ChunkTable &g) {
  return g.packing ? groups_kernel<Lane, true>(g.chunks) : groups_kernel<Lane, false>(g.chunks);
}

// The packing kernel of a group table.  Its pieces (and its packing
// table's) are whole registers in stream order from two-register windows:
// make_group_table keeps only such tables.
Kernel groups_kernel(const ChunkTable &g) {
#if HWY_TARGET == HWY_AVX3_DL
  if (g.lane == 1) return groups_kernel<1>(g);
#endif
  return groups_kernel<4>(g);
}
#endif
#endif

#ifdef LOOM_HAVE_TWO_SOURCE
// Packing a register of instances a step from K registers of the user's
// (ChainTable): K masked loads, K - 1 permutes in a chain, one full store.
template <int Lane, int K, bool Whole>
inline char *chain_steps(const ChainTable &t, const char *w, char *s, int64_t steps, int64_t step) {
  __m512i idx[K - 1];
  uint64_t um[K];
  if (Whole) std::fill(um, um + K, ~uint64_t(0));
  else load_scalars(um, t.lanes);
  for (int r = 0; r + 1 < K; r++) idx[r] = _mm512_load_si512(Lane == 4 ? (const void *)t.idx32[r] : t.idx8[r]);
  for (int64_t k = 0; k < steps; k++, w += step, s += 64) {
    __m512i x;
    if constexpr (Lane == 4) {
      x = _mm512_maskz_loadu_epi32((__mmask16)um[0], w);
      for (int r = 1; r < K; r++)
        x = _mm512_permutex2var_epi32(x, idx[r - 1], _mm512_maskz_loadu_epi32((__mmask16)um[r], w + 64 * r));
    } else {
#if HWY_TARGET == HWY_AVX3_DL
      x = _mm512_maskz_loadu_epi8(um[0], w);
      for (int r = 1; r < K; r++)
        x = _mm512_permutex2var_epi8(x, idx[r - 1], _mm512_maskz_loadu_epi8(um[r], w + 64 * r));
#else
      x = _mm512_setzero_si512();  // byte lanes are VBMI's (never taken)
#endif
    }
    _mm512_storeu_si512(s, x);
  }
  return s;
}

template <int Lane, int K>
char *k_vec_chain_pack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const ChainTable &t = *n.chain;
  return by_steps(
      n, base, s, i0, i1, t.instances,
      [&](char *p, char *out, int64_t steps, int64_t step) {
        const int64_t whole = t.whole.of(steps);
        out = chain_steps<Lane, K, true>(t, p + t.window, out, whole, step);
        return chain_steps<Lane, K, false>(t, p + t.window + whole * step, out, steps - whole,
                                           step);
      },
      rest_by_pack_rest(n, base));
}

template <int Lane>
Kernel chain_pack(int k) {
  switch (k) {
    case 3: return k_vec_chain_pack<Lane, 3>;
    case 4: return k_vec_chain_pack<Lane, 4>;
    case 5: return k_vec_chain_pack<Lane, 5>;
    case 6: return k_vec_chain_pack<Lane, 6>;
    case 7: return k_vec_chain_pack<Lane, 7>;
    default: return k_vec_chain_pack<Lane, kMaxChain>;
  }
}
#endif

#if defined(LOOM_HAVE_TWO_SOURCE) || HWY_TARGET == HWY_AVX2
// Packing short strided blocks a few instances a step into whole 32-byte
// registers (StepTable): per register two (three) loads at the step's
// aligned windows, one (two) two-source permutes (AVX2: a vpermd of each
// window and a blend), one store.  Offsets and index vectors stay in
// registers; R and Three fix the loop's shape.
template <int R, int Lane, bool Three>
char *narrow_steps(const StepTable &t, const char *u, char *s, int64_t steps, int64_t step) {
  __m256i first[R], second[R];
  int64_t w[R];
  const uint32_t three = t.three;
  for (int r = 0; r < R; r++) {
    const void *i0 = Lane == 4 ? (const void *)t.idx32[r][0] : t.idx8[r][0],
               *i1 = Lane == 4 ? (const void *)t.idx32[r][1] : t.idx8[r][1];
    first[r] = _mm256_load_si256(static_cast<const __m256i *>(i0));
    second[r] = _mm256_load_si256(static_cast<const __m256i *>(i1));
  }
  load_scalars(w, t.window);
  const uint32_t fresh = t.fresh;
  for (int64_t k = 0; k < steps; k++, u += step, s += 32 * R) {
    __m256i last = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
      const char *x = u + w[r];
      __m256i a;
      if (fresh >> r & 1) a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x));
      else a = last;
      last = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + 32));
#if HWY_TARGET == HWY_AVX2
      // No two-source permute: each window's lanes by vpermd, blended.
      const __m256i seven = _mm256_set1_epi32(7);
      __m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(a, first[r]),
                                     _mm256_permutevar8x32_epi32(last, first[r]),
                                     _mm256_cmpgt_epi32(first[r], seven));
      if (Three && (three >> r & 1)) {
        last = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + 64));
        v = _mm256_blendv_epi8(v, _mm256_permutevar8x32_epi32(last, second[r]),
                               _mm256_cmpgt_epi32(second[r], seven));
      }
#else
      __m256i v = permute2<Lane>(a, first[r], last);
      if (Three && (three >> r & 1)) {
        last = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + 64));
        v = permute2<Lane>(v, second[r], last);
      }
#endif
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(s + 32 * r), v);
    }
  }
  return s;
}

constexpr int64_t kStepsCostlyFrom = 8 << 10;
// R = 0: by the compiled steps (StepTable::code).
template <int R, int Lane, bool Three>
char *k_vec_steps_pack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const StepTable &t = *n.steps;
  const int64_t st = n.stride, m = t.instances, step = m * st;
  const int64_t b = n.child->packed;
#ifdef LOOM_HAVE_TWO_SOURCE
  if (n.groups && (i1 - i0) * b >= kSharedBlockGroupsFrom)  // see take_steps
    return groups_kernel(*n.groups)(n, base, s, i0, i1);
#endif
  if ((i1 - i0) * b < t.from) return n.pack_rest(n, base, s, i0, i1);
  s = aligned_head(n, t.align, base, s, i0, i1);  // stores at multiples of 32 bytes
  // Whole steps whose loads end within the range's bytes (a shift: m is a
  // power of two; a division cost a fifth of a 2 KiB pack's time).
  const int64_t span = (i1 - i0 - 1) * st + t.last;
  int64_t steps = (i1 - i0) >> __builtin_ctzll((uint64_t)m);
  while (steps > 0 && (steps - 1) * step + t.reach > span) steps--;
  if constexpr (R == 0) s = t.code->pack(base + i0 * st, s, steps, nullptr);
  else s = narrow_steps<R, Lane, Three>(t, base + i0 * st, s, steps, step);
  const int64_t i = i0 + steps * m;
  return i == i1 ? s : n.pack_rest(n, base, s, i, i1);
}

template <int Lane, bool Three>
Kernel steps_pack(int registers) {
  switch (registers) {
    case 1: return k_vec_steps_pack<1, Lane, Three>;
    case 2: return k_vec_steps_pack<2, Lane, Three>;
    case 3: return k_vec_steps_pack<3, Lane, Three>;
    case 4: return k_vec_steps_pack<4, Lane, Three>;
    case 5: return k_vec_steps_pack<5, Lane, Three>;
    case 6: return k_vec_steps_pack<6, Lane, Three>;
    case 7: return k_vec_steps_pack<7, Lane, Three>;
    default: return k_vec_steps_pack<kMaxLoopRegisters, Lane, Three>;
  }
}

// Packing short strided blocks by steps (StepTable) over the kernel the
// node has, which packs the instances past the last step; `permuted`: that
// kernel is a permute table's.
//
// The table's own loop (narrow_steps: no AVX-512, or LOOM_JIT=off): a
// step's register cost about 0.45 ns, a register's second permute (three
// windows) about as much again, and the row's moves of a block 0.28-0.37
// (8 KiB, AMD EPYC Zen 4 VM); a step's fixed costs (its index registers,
// the instances before and after the steps by the row) take part of the
// gain at 2 KiB.  So steps where they permute at most 5 registers for 8
// blocks: 12 bytes of every 16, 20 or 24 packed 1.2-1.45x faster at 2
// KiB, 1.45-1.9x at 8 KiB, 10 shorts of every 11 1.2x; not 24 bytes of
// every 25-40 (3 for 4: 0.91-0.93x at 2 KiB, 1.13x at 8 KiB), 5 floats of
// every 10 (9 for 8: 0.81x), 7 of every 8 or 9 (7 for 8, 0.89-0.91x at 8
// KiB).  Over permute tables, at most one register for 2 blocks and none
// from three windows (3 shorts of every 4, 5 of every 6, 14 bytes of 16:
// 1.2-1.37x at 2 and 8 KiB; 5 or 7 bytes of every 9 0.81-0.94x), and not
// where pairs of windows fill a store (every other byte or short:
// 0.77-0.83x).
//
// The compiled steps (jit_steps) cost less: a step's permutes and stores
// against the row's one move a block of up to 32 bytes, its loads (a
// window of 32 bytes for every 32 of the user's) at half a permute, steps
// pay where they cost at most 1.25 moves a block, from 8 KiB at most 1.5:
// random blocks of up to 24 elements (seeds 644, 645) packed 1.02-1.05x
// faster at 2 KiB on average (up to 1.65x), 1.03x at 8 KiB (up to 1.56x:
// 9 shorts of every 11), 1.01x at 64 KiB, none slower beyond the runs'
// spread; 24 bytes of every 36, 28 of every 44 or 48 lost at 2 KiB
// (0.88-0.95x) and gained at 8.  Blocks of 32 bytes and more keep the
// rule above (the row moves them in one or two moves: 0.71-0.93x by
// steps), as do pairs of windows over blocks of one or two bytes
// (0.71-0.76x at 8 KiB), while pairs over longer blocks gain (6 bytes of
// every 12, 5 of every 10: 1.07-1.59x at 2 KiB, 1.1x at 8 and 64).
// (In-process A/B, four placements in a line, AMD EPYC Zen 4 VM.)
// A compiled step's cost in 64ths of a move: its permutes (a register's
// one, or two from three windows) plus half a permute per 32-byte window
// of the user's it loads.
int64_t compiled_steps_cost(const StepTable &t, int64_t stride) {
  return 64 * (t.registers + __builtin_popcount(t.three)) + t.instances * stride;
}

// n now packs by t's steps, through `kernel`.  The groups and chains the
// steps replace packed their last instances by the kernel they had
// replaced: so do the steps.  But groups from shared windows (blocks of
// 12-28 bytes 16-32 apart) stay for ranges of kSharedBlockGroupsFrom
// packed bytes and more (k_vec_steps_pack hands those over): against the
// compiled steps, groups at 1 KiB 0.83-0.99x as fast, 2 KiB 0.98-1.13x,
// 6 KiB 1.13-1.42x, 12 KiB 0.94-1.31x (3 doubles of every 4 at 16 KiB:
// 0.54x the hand loop by steps), 64 KiB as fast (in-process A/B, Intel
// Xeon VM).  The steps take the call: a call through the groups' kernel
// to the steps cost smaller ranges 3-8%.
void take_steps(Node &n, std::shared_ptr<StepTable> t, Kernel kernel) {
  if (!n.pack_rest) n.pack_rest = n.pack;
  if (!n.groups || !n.groups->packing) n.groups = nullptr;
  n.chain = nullptr;
  n.pack = kernel;
  n.steps = std::move(t);
}

bool pick_steps(Node &n, bool permuted = false) {
  if (n.kind != Kind::Vec || n.child->kind != Kind::Block) return false;
  // Not blocks of 4, 8 or 16 bytes, which the row gathers or pairs into
  // whole registers already.
  const int64_t b = n.child->count;
  if (b == 4 || b == 8 || b == 16) return false;
  const bool pairs = permuted && n.permute->pair_lanes;
  if (pairs && b < 3) return false;
  std::shared_ptr<StepTable> t = make_step_table(n, 4);
#if HWY_TARGET == HWY_AVX3_DL
  if (!t) t = make_step_table(n, 1);
#endif
  if (!t) return false;
  const int64_t permutes = t->registers + __builtin_popcount(t->three), m = t->instances;
  const bool loop_pays = !pairs && 16 * permutes <= (permuted ? 8 : 10) * m &&
                         !(permuted && t->three) && t->registers <= kMaxLoopRegisters;
  bool compiled_pays = false;
#if HWY_TARGET != HWY_AVX2
  const int64_t steps = compiled_steps_cost(*t, n.stride), row = 64 * m;
  compiled_pays = b < 32 && 2 * steps <= 3 * row;
  // Compiled only where taken (a mapping and two system calls a layout).
  if (compiled_pays || loop_pays) t->code = jit_steps(*t, n.stride * m);
  if (t->code && compiled_pays && !loop_pays && 4 * steps > 5 * row) t->from = kStepsCostlyFrom;
#endif
  if (!(t->code && compiled_pays) && !loop_pays) return false;
  const bool three = t->three != 0;
  const int r = t->registers;
  const Kernel kernel = t->code        ? k_vec_steps_pack<0, 4, false>
                        : t->lane == 4 ? (three ? steps_pack<4, true>(r) : steps_pack<4, false>(r))
                                       : (three ? steps_pack<1, true>(r) : steps_pack<1, false>(r));
  take_steps(n, std::move(t), kernel);
  return true;
}

#ifdef LOOM_HAVE_TWO_SOURCE
// Packing rows of words (a submatrix's rows of every other double, of
// float pairs) by compiled steps (make_step_table's rising leaves) over the
// kernel chosen for them, which moves a run at a time (the compiled loop,
// k_vec_any) and packs the instances past the last step: where the step's
// permutes and half a permute per 32-byte window cost at most 1.25 moves
// of the runs they replace, and no register takes a third window (a
// second permute after the first: 4 pairs of floats in 72 bytes packed
// 0.91x as fast, 2 doubles 16 bytes apart of every 7 0.91x, where all
// those without gained).  2 KiB, every other double in rows of 8-24:
// 1.15-1.3x; every other float in rows of 16 and 40: 4.5x and 2.2x (the
// rows' vectorised kernel a row at a time); 3 rows of 4 floats of every
// 9 1.19x (AMD EPYC Zen 4 VM, one process).
void pick_row_steps(Node &n) {
  if (n.kind != Kind::Vec || n.child->kind != Kind::Vec || n.steps) return;
  std::shared_ptr<StepTable> t = make_step_table(n, 4);
  std::vector<Run> runs;
  if (!t || t->three || !runs_of(*n.child, 0, (size_t)kMaxElementLoop, runs)) return;
  const int64_t moves = 64 * t->instances * (int64_t)runs.size();
  if (4 * compiled_steps_cost(*t, n.stride) > 5 * moves) return;
  t->code = jit_steps(*t, n.stride * t->instances);
  if (t->code) take_steps(n, std::move(t), k_vec_steps_pack<0, 4, false>);
}
#endif
#endif
#ifndef LOOM_HAVE_TWO_SOURCE
void pick_row_steps(Node &) {}
#endif

// Packing by chains where a register's packed bytes span 3 to 8 of the
// user's (make_chain_table), over the kernels n has where those store
// registers in part: 64 KiB, medians of 3 alternating processes, a byte of
// every 3: 0.62 -> 0.96x the hand loop; of every 6: 4.9 -> 6.3x; a short
// of every 3: 0.61 -> 0.94x; a float of every 5, 6, 7: 1.26, 1.20, 1.14
// -> 1.56, 1.34, 1.22x.  Not where pairs of registers fill a store (a
// byte of every 8: 1.00 -> 0.88x with chains; a short of every 8: 1.05 ->
// 0.92x), nor over strided doubles, which the row moves whole (every 6th:
// 0.99 -> 0.93x).
bool pick_chain([[maybe_unused]] Node &n) {
#ifdef LOOM_HAVE_TWO_SOURCE
  if (n.kind != Kind::Vec || n.groups) return false;
  if (n.child->kind == Kind::Block && n.child->count % 8 == 0) return false;
  if (n.permute) {
    const PermuteTable &t = n.permute->pairs ? *n.permute->pairs : *n.permute;
    const int64_t pb = 2 * t.stream_bytes;
    if (t.pair_lanes && (pb == 64 || pb == 32 || pb == 16)) return false;
  }
  n.chain = make_chain_table(n, 4);
#if HWY_TARGET == HWY_AVX3_DL
  if (!n.chain) n.chain = make_chain_table(n, 1);
#endif
  if (!n.chain) return false;
  n.pack_rest = n.pack;
  n.pack = n.chain->lane == 4 ? chain_pack<4>(n.chain->registers) : chain_pack<1>(n.chain->registers);
  return true;
#else
  return false;
#endif
}

// Packing pieces for an instance of words too wide for a register (8
// floats in 88 bytes), from two-register windows: a piece pays where it
// replaces 6 moves or more.  In one process, against the moves (64 and
// 2048 instances): 8 floats a piece 1.6-1.8x, 7 1.2-1.4x, 6 1.15-1.2x,
// 4 floats or doubles 0.95-1.17x, 3 floats 0.5-0.75x.  Unpacking keeps
// the moves: the masked stores ran 0.5-0.9x.
#ifdef LOOM_HAVE_PERMUTE
std::shared_ptr<const ChunkTable> packing_pieces(const Node &n) {
  auto t = make_chunk_table(n, kPermuteWidth, 4, 2);
  return t && n.child->count >= 6 * t->chunks ? t : nullptr;
}
#endif

// A Vec or an Idx over a small leaf whose pattern fits this target's
// register (none on the baseline: SSE2 has no variable lane permute).
//
// Measured against the scalar kernels on this target (in cache and from
// memory, pack and unpack): the permute wins 1.2x to 9x where those move
// one short element at a time (blocks of 1, 2, 3, 6 bytes; mixed runs; a
// few short blocks per instance) and loses up to 0.6x (unpack: masked
// stores) where they move whole 4- and 8-byte elements with fixed offsets
// (a strided 8-byte block; 4 doubles of every 8, one instance per
// register), while 4 floats of every 8, two instances per register, gain.
// So it leaves one-instance word patterns and strided words to them, but
// for packing them in pairs (pack_in_pairs).
bool pick_permute([[maybe_unused]] Node &n) {
#ifdef LOOM_HAVE_PERMUTE
#if HWY_TARGET == HWY_AVX2
  // Every AVX2 permute kernel stores masked (vpmaskmovd): where that is
  // microcoded (AMD), random float patterns ran 1.7-2.0x and double ones
  // 1.3-1.9x faster by plain moves (2 to 64 KiB, scripts/ab_libraries.py).
  if (masked_stores_slow()) return false;
#endif
  const Node &c = *n.child;
  // Words with offsets in registers (pick_elements: an index block
  // or a short strided one) take the permute only where a register holds
  // several instances: two doubles of every 7 unpacked 1.4-1.5x, two
  // pairs of doubles in 80 bytes 1.1-1.8x faster by the moves.
  bool words_in_registers = false;
  if (c.kind == Kind::Block) {
    if (c.count % 4 == 0) {  // row kernels: whole words
#if HWY_TARGET == HWY_AVX3_DL
      // Blocks of one or two words at a stride of no whole words (4 bytes
      // of every 7), which the row moves a block a time: packing takes
      // byte permutes where pairs of registers fill a store (4 of every 7
      // bytes, 64 KiB: 0.76 -> 1.83x the hand loop; 8 of every 15: 0.70
      // -> 0.91x).  Not 16 bytes, which the row moves in one (of every
      // 17: 1.5 -> 1.2x).
      if (n.kind == Kind::Vec && n.stride % 4 != 0 && c.count <= 8) {
        auto t = make_permute_table(n, kPermuteWidth, 1, kTwoSource);
        if (t && (t->pair_lanes || t->pairs)) n.permute = t;
      }
#endif
#ifdef LOOM_HAVE_TWO_SOURCE
      // Blocks that one move takes (16, 32, 64 bytes) keep the row: 8
      // floats of every 9 packed 0.57x as fast by groups.  But 8 bytes of
      // every 12 (2 floats of 3, the only 8-byte blocks whose groups fit
      // windows of two registers that the dense kernels do not take):
      // 2.0-2.6x faster at 16 KiB, 1.07-1.16x at 64 KiB.
      if (!n.permute && n.kind == Kind::Vec && ((c.count & (c.count - 1)) != 0 || c.count == 8))
        n.groups = make_group_table(n, 4);  // see k_vec_groups_pack
#endif
      return false;
    }
  } else if ((c.kind == Kind::Idx || c.kind == Kind::Vec) && c.child->kind == Kind::Block) {
    words_in_registers = c.child->count % 4 == 0 && c.count <= 8;
  }
  n.permute = make_permute_table(n, kPermuteWidth, 4, kTwoSource);
#if HWY_TARGET == HWY_AVX3_DL
  if (!n.permute) n.permute = make_permute_table(n, kPermuteWidth, 1, kTwoSource);
#endif
  if (words_in_registers && (!n.permute || n.permute->per_vector < 2)) {
    // The caller's moves; packing keeps the table where two instances
    // fit one store, or takes groups of them, or pieces of one
    // (pack_in_pairs).
    if (n.permute && !(kTwoSource && n.permute->pair_lanes)) n.permute = nullptr;
    if (kTwoSource && !n.permute) n.groups = make_group_table(n, 4);
    if (kTwoSource && !n.permute && !n.groups) n.chunks = packing_pieces(n);
    return false;
  }
  if (n.permute) {
    if (n.kind == Kind::Vec) n.pack = k_vec_permute<true>, n.unpack = k_vec_permute<false>;
    else n.pack = k_idx_permute<true>, n.unpack = k_idx_permute<false>;
#ifdef LOOM_HAVE_TWO_SOURCE
    if (!n.permute->pair_lanes) {
      n.groups = make_group_table(n, n.permute->lane);
      if (n.groups) n.pack_rest = n.pack, n.pack = groups_kernel(*n.groups);
    }
#endif
    return true;
  }
  n.chunks = make_chunk_table(n, kPermuteWidth, 4, kTwoSource ? 2 : 1);
#if HWY_TARGET == HWY_AVX3_DL
  // Word lanes where they fit: for doubles 1.6-1.8x faster than the moves
  // (2 KiB to 1 MiB; up to 5x where those moved the runs by k_vec_any),
  // and than byte lanes (whose two-source permute costs more on the AMD
  // EPYC VM): random double patterns, with shared windows for packing,
  // against byte lanes without (in-process A/B), 2 KiB 1.23x packing,
  // 1.28x unpacking; 64 KiB 1.11x, 1.06x.
  if (!n.chunks) n.chunks = make_chunk_table(n, kPermuteWidth, 1, kTwoSource ? 2 : 1);
#endif
  if (!n.chunks) return false;
  if (n.kind == Kind::Vec) n.pack = k_vec_chunks<true>, n.unpack = k_vec_chunks<false>;
  else n.pack = k_idx_chunks<true>, n.unpack = k_idx_chunks<false>;
  return true;
#else
  return false;
#endif
}

// One-instance word patterns whose packed words, two instances' worth, fit
// one register (4 doubles of every 8): pick_permute left their table, and
// packing takes pack_pairs (two masked loads, a two-source permute, one
// store, as the vectoriser packs them) over the moves, which n's unpack
// keeps but where the table was measured faster (below).
// 4 doubles of every 8 from memory: 0.95-1.03x the hand loop -> 1.02-1.08x;
// 6 floats in 40 bytes at 1 MiB: 0.72x -> 0.94x.  Where two instances
// overfill a register (5 doubles in 72 bytes), a strided loop packs a
// group of them a step, as the vectoriser does with 4 (k_vec_groups_pack);
// where one instance overfills a register (8 floats in 88 bytes), it
// packs pieces of one (packing_pieces).
// Those figures are the Intel VM's; on the AMD EPYC VM the same 4 doubles
// of every 8 from 16 MiB packed at 0.86-0.90x by pairs against 1.00x by
// the moves (bench pack, Indexed (DOUBLE)), so the moves stay as the
// alternative (Node::pack_alt) that timing chooses where a message is
// large enough.
void pack_in_pairs([[maybe_unused]] Node &n) {
  [[maybe_unused]] const Kernel moves = n.pack;
#ifdef LOOM_HAVE_PERMUTE
  if (n.permute) {
    n.pack = n.kind == Kind::Vec ? k_vec_permute<true> : k_idx_permute<true>;
    // Unpacking by the table too (its masked stores cost a plain store on
    // AVX-512, AMD EPYC VM): float patterns of one instance a register
    // that two a store pack (3 to 6 runs in 52 to 72 bytes) unpacked
    // 1.07-1.72x faster than by the moves, but doubles (2-3 of every 6 to
    // 9) 0.71-0.85x: they keep the moves; blocks of a word or two at
    // strides of no whole words, four or more a register
    // (4 bytes of every 6 to 17, 8 of every 9 to 17), 0.83-2.3x (most
    // 1.1-2.1x; 8 of every 17 0.83-0.89x at 2 KiB, 1.21x at 64 KiB) the
    // speed of the row's masked stores, but two or three a register (8
    // of every 19 to 30) 0.6-0.9x (scripts/ab_libraries.py and in-process
    // A/B, 2 and 64 KiB).
    const Node &c = *n.child;  // a block, or an index or strided one
    const bool doubles = c.kind != Kind::Block && c.child && c.child->kind == Kind::Block &&
                         c.child->count % 8 == 0;
    if (c.kind == Kind::Block ? n.permute->per_vector >= 4 : !doubles)
      n.unpack = n.kind == Kind::Vec ? k_vec_permute<false> : k_idx_permute<false>;
  }
#endif
#ifdef LOOM_HAVE_TWO_SOURCE
  if (n.groups) n.pack_rest = n.pack, n.pack = groups_kernel(*n.groups);
  if (n.chunks) n.pack = n.kind == Kind::Vec ? k_vec_chunks<true> : k_idx_chunks<true>;
  // Pairs whose packed bytes fill whole registers (16, 32 or 64 bytes a
  // pair) have a streaming alternative instead (LineStream, from
  // streaming_from()): random float patterns, those that pack in pairs, 1.12x
  // faster at 16 MiB, 1.12-1.18x at 4 MiB (were it taken there: 1.03-
  // 1.24x against pairs alone), the rest unchanged (in-process A/B, AMD
  // EPYC Zen 4 VM).
  if (n.permute && n.kind == Kind::Vec && n.pack == k_vec_permute<true>) {
    const PermuteTable &t = n.permute->pairs ? *n.permute->pairs : *n.permute;
    const int64_t pb = 2 * t.stream_bytes;
    if (t.pair_lanes && (pb == 16 || pb == 32 || pb == 64))
      n.pack_alt = k_vec_permute<true, true>, n.timed_from = streaming_from();
  }
#endif
  if (n.pack != moves && !n.pack_alt) n.pack_alt = moves, n.timed_from = kFromMemory;
}

template <bool Pack>
char *k_struct(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; i++) s = whole<Pack>(*n.kids[i], base + n.disp[i], s);
  return s;
}

template <template <bool, int> class K>
struct BySize {
  static void pick(int64_t b, Kernel *pk, Kernel *uk) {
    switch (size_class(b)) {
#define LOOM_CASE(N) \
  case N: *pk = K<true, N>::f; *uk = K<false, N>::f; return;
      LOOM_CASE(1) LOOM_CASE(2) LOOM_CASE(3) LOOM_CASE(4) LOOM_CASE(8) LOOM_CASE(12)
      LOOM_CASE(16) LOOM_CASE(24) LOOM_CASE(32) LOOM_CASE(64)
      LOOM_CASE(-1) LOOM_CASE(-2) LOOM_CASE(-3) LOOM_CASE(-4) LOOM_CASE(-5)
      LOOM_CASE(-6) LOOM_CASE(-7)
#undef LOOM_CASE
      default: *pk = K<true, kAnySize>::f; *uk = K<false, kAnySize>::f;
    }
  }
};
template <bool P, int B> struct VecBlk { static constexpr Kernel f = k_vec_blk<P, B>; };
template <bool P, int B> struct VecVecBlk { static constexpr Kernel f = k_vec_vec_blk<P, B>; };
template <bool P, int B> struct Vec3Blk { static constexpr Kernel f = k_vec3_blk<P, B>; };
template <bool P, int B> struct VecIdxBlk { static constexpr Kernel f = k_vec_idx_blk<P, B>; };
template <bool P, int B> struct IdxBlk { static constexpr Kernel f = k_idx_blk<P, B>; };


// The widest element, 1 to 16 bytes, that runs whose lengths have gcd g
// split into.
int64_t element_width(int64_t g) {
  return g % 16 == 0 ? 16 : g % 8 == 0 ? 8 : g % 4 == 0 ? 4 : g % 2 == 0 ? 2 : 1;
}
// The same for runs: the widest element all their lengths split into.
int64_t element_width(const std::vector<Run> &runs) {
  int64_t g = 0;
  for (const Run &r : runs) g = std::gcd(g, r.len);
  return element_width(g);
}

template <int B, int M = 2>
void pick_elements_of(int64_t m, Node &n) {
  if constexpr (M < kMaxElements)
    if (m != M) return pick_elements_of<B, M + 1>(m, n);
  n.pack = k_vec_elements<true, B, M>, n.unpack = k_vec_elements<false, B, M>;
}
template <int B>
void pick_elements_of(Node &n) {
  const int64_t m = (int64_t)n.elements.size();
  if (m <= kMaxElements) return pick_elements_of<B>(m, n);
  n.pack = k_vec_elements_loop<true, B>, n.unpack = k_vec_elements_loop<false, B>;
}

// A small leaf repeated, moved as elements of B bytes (k_vec_elements, or
// k_vec_elements_loop past kMaxElements): an index or short strided block
// of 4-, 8- or 16-byte blocks (or a small tile of them, a strided block of
// strided blocks), or runs (an IdxV leaf) of any lengths, B
// the widest of 16, 8, 4, 2 and 1 bytes dividing all (at least min_b).
// Runs move so as a hand loop moves them, where the alternatives moved
// them a run at a time (k_vec_any, k_vec_idxv: a branch on each run's
// length) or by permutes (in-process A/B against those,
// scripts/ab_libraries.py, random patterns, pack / unpack):
//   LOOM_ISA=avx2 2 KiB 1.29x / 1.50x (byte patterns unpacked 3.3-6.3x,
//     doubles 1.5-3.5x both ways), 64 KiB 1.18x / 1.34x;
//   LOOM_ISA=baseline 2 KiB 1.41x / 1.35x;
//   LOOM_ISA=avx512 (no VBMI) 2 KiB 1.07x / 1.08x, 64 KiB 1.21x / 1.19x;
//   AVX-512 with VBMI 2 KiB 1.01x / 1.02x (few patterns got here, before
//     doubles were taken before permutes on AVX-512 too, below).
// Runs of up to 3.5 elements on average: shorts in runs of 4 (9 runs, 36
// shorts) unpacked 0.66x as fast as by runs, of 3.3 1.09x; runs of 3 and
// 7 doubles packed 0.57x (64 KiB).  min_b: on AVX2, words that a permute
// moves faster (floats) are left to it.
bool pick_elements(Node &n, int64_t min_b = 1) {
  const Node &c = *n.child;
  if (c.kind != Kind::IdxV) {
    if (c.kind != Kind::Idx && c.kind != Kind::Vec) return false;
    const Node *leaf = c.child.get();  // a Vec of Vecs: their block
    while (c.kind == Kind::Vec && leaf->kind == Kind::Vec) leaf = leaf->child.get();
    if (leaf->kind != Kind::Block) return false;
    const int64_t b = leaf->count;
    if (b != 4 && b != 8 && b != 16) return false;
  }
  // More runs than either limit below allows elements: not listed whole
  // (a row of a million elements).
  std::vector<Run> runs;  // the leaf's
  if (!runs_of(c, 0, (size_t)kMaxElementLoop, runs)) return false;
  const int64_t B = element_width(runs);
  const int64_t m = c.packed / B;
  if (B < min_b || m < 2) return false;
  if (c.kind == Kind::IdxV ? m > kMaxElementLoop || 2 * m > 7 * c.count : m > kMaxElements)
    return false;
  n.elements.clear();
  for (const Run &r : runs)
    for (int64_t o = 0; o < r.len; o += B) n.elements.push_back(r.off + o);
  switch (B) {
    case 1: pick_elements_of<1>(n); break;
    case 2: pick_elements_of<2>(n); break;
    case 4: pick_elements_of<4>(n); break;
    case 8: pick_elements_of<8>(n); break;
    default: pick_elements_of<16>(n);
  }
  // The compiled loop, but with AVX-512 only for doubles (and 16-byte
  // words), which it had permuted: random double patterns packed
  // 1.25-1.32x, unpacked 1.23-1.27x faster compiled at 2 KiB, 1.03x /
  // 1.04x at 64 KiB; floats 0.99x as fast, so they keep the element
  // kernels (in-process A/B, AMD EPYC Zen 4 VM, LOOM_ISA=avx512vbmi).
  if (!kHas64 || B >= 8) {
    auto t = make_run_moves(n, kMaxElementLoop);
    if (t) n.jit = jit_moves(*t, n.stride, c.packed, kVectorBytes, kPermuteLane);
    if (n.jit) {
      n.unpack = k_vec_jit<false>;
      // Not over the element kernel's gathers of up to 8 floats into a
      // register (4 floats in 40 bytes: 0.83x by the loop), but with AVX
      // where runs of floats take fewer moves than their floats (the
      // loop's fours of floats a store, jit_moves.cpp): 3 runs of 1-3
      // floats 1.5-2.1x, random float patterns 1.01-1.04x (a few
      // 0.91-0.95x; in-process A/B, AMD EPYC VM; the baseline, without
      // those fours, lost 0.78-0.88x on single floats).
      if (!(B == 4 && m <= 8) || (kHas32 && (int64_t)t->at.size() < m)) n.pack = jit_pack(*n.jit);
    } else if (t && m > kMaxElements && (int64_t)t->at.size() < m) {
      n.moves = t, n.unpack = k_vec_moves<false>;
    }
  }
  return true;
}

// Whether a small leaf's runs are all whole doubles (or 16-byte words).
bool in_doubles(const Node &c) {
  std::vector<Run> runs;
  return runs_of(c, 0, (size_t)kMaxElementLoop, runs) && element_width(runs) >= 8;
}

// A strided loop over any other small child (an index block of more than
// 16 elements, nested loops, a struct, a long block: up to kMaxElementLoop
// moves), or an
// index loop over one, by a loop compiled for it, where the alternatives
// move it through the child's own kernel an instance at a time
// (k_vec_any, k_idx_any: 3.3-5.9x slower on 3 runs of doubles or shorts
// and on a struct's 3 doubles and a float, 2 and 64 KiB) or by a loop
// over an offset table (k_vec_idx_blk).  With AVX-512 too, since the
// compiled loops move in stream order: where AVX-512's own kernels had
// been chosen over them (permutes, row kernels, k_vec_any), random
// tiles packed 2.1x and unpacked 1.4x faster compiled, rows of blocks
// 1.3x / 1.06x, single blocks 1.12x / 1.08x (2 KiB; 64 KiB tiles 1.58x
// / 1.30x, others 1.02-1.04x; in-process A/B, AMD EPYC Zen 4 VM,
// LOOM_ISA=avx512vbmi; avx512 alike).
bool pick_compiled(Node &n) {
  if (n.kind == Kind::Struct || n.kind == Kind::IdxV) return false;
  const bool indexed = n.kind == Kind::Idx;
  auto t = make_run_moves(n, kMaxElementLoop);
  if (t) n.jit = jit_moves(*t, n.stride, n.child->packed, kVectorBytes, kPermuteLane, indexed);
  if (!n.jit) return false;
  if (indexed) n.pack = k_idx_jit<true>, n.unpack = k_idx_jit<false>;
  else n.pack = jit_pack(*n.jit), n.unpack = k_vec_jit<false>;
  return true;
}

// Packing strided blocks by whole registers of the stream (JitCode::
// groups): blocks of more than 32 bytes, where the row takes two moves or
// more a block and its stores cross registers of the stream (40-112
// bytes at 2 KiB 1.09-1.31x faster, random strides; 64 KiB 1.00x), and
// smaller ones where a permute places three blocks or more a register (3
// floats of every 4: 1.35-1.5x).  Not 48 bytes, whose pairs the row
// stores as three whole registers already (0.93-0.96x), nor 32 k bytes
// (no blend), nor 16-32 bytes a blend each (0.85-0.94x against the row's
// one move a block).  (In-process A/B, AMD EPYC VM.)  The rows' kernels
// unpack.  AVX2 (AVX-512 has register kernels of its own).
void pick_groups([[maybe_unused]] Node &n) {
#if HWY_TARGET == HWY_AVX2
  const int64_t b = n.child->count;
  if (b == 48) return;
  auto t = make_run_moves(n, kMaxElementLoop);
  auto code = t ? jit_moves(*t, n.stride, n.child->packed, 32, 4) : nullptr;
  if (!code || !code->groups) return;
  if (b <= 32 && !code->group_permutes) return;
  n.jit = code;
  n.pack = k_vec_jit_groups;
#endif
}

template <class T, int K>
bool set_dense(Node &n) {
  n.pack = k_vec_dense<T, K, true>, n.unpack = k_vec_dense<T, K, false>;
  if (streams<T>()) n.pack_alt = k_vec_dense_stream<T, K>, n.timed_from = streaming_from();
  return true;
}
template <class T>
bool pick_dense(Node &n, int64_t k) {
  switch (k) {
    case 2: return set_dense<T, 2>(n);
    case 3: return set_dense<T, 3>(n);
    case 4: return set_dense<T, 4>(n);
    default: return false;
  }
}

// Vec over 4- or 8-byte blocks 2-4 elements apart: the vectorised
// kernels; without AVX-512 also 1- and 2-byte ones (AVX-512 packs those
// by its byte permutes and shuffles, measured against other kernels, not
// against these).
bool small_stride(const Node &n) {
  if (n.kind != Kind::Vec || n.child->kind != Kind::Block) return false;
  const int64_t b = n.child->count;
  return (b == 4 || b == 8 || (!kHas64 && (b == 1 || b == 2))) && n.stride > 0 &&
         n.stride % b == 0 && n.stride / b >= 2 && n.stride / b <= 4;
}

// n packs by `kernel`, which needs none of the tables the packing
// kernels it replaces read (register steps, groups, chains, their rest).
void pack_without_tables(Node &n, Kernel kernel) {
  n.pack = kernel;
  n.steps = nullptr, n.groups = nullptr, n.chain = nullptr, n.pack_rest = nullptr;
}

// Whether n's permutes, by pairs that store whole registers, pack an
// instance in fewer uops than the line groups of `code` (a pair: two
// loads, a permute and a store).  Instances 2 to 3 times their packed
// bytes apart take two or three windows a register: 32 bytes of every
// 84 (a pair from 2 windows, a line group from 3) packed 0.77-0.88x as
// fast by the groups at 2-64 KiB; where the pairs cost as much (16
// floats of every 32) 1.03-1.64x faster, and where their stores are
// masked (48 bytes, floats {0, 3, 5} of every 6) 1.2-2.2x (in-process
// A/B, four placements, Intel Xeon VM).
bool permutes_cheaper([[maybe_unused]] const Node &n, [[maybe_unused]] const JitCode &code) {
#ifdef LOOM_HAVE_PERMUTE
  if (!n.permute || n.pack != k_vec_permute<true>) return false;
  const PermuteTable &t = n.permute->pairs ? *n.permute->pairs : *n.permute;
  const int64_t pair = 2 * t.stream_bytes;
  if (!t.pair_lanes || (pair != 16 && pair != 32 && pair != 64)) return false;
  // group_ops / group > 2 / per_vector
  return code.group_ops * t.per_vector > 2 * code.group;
#else
  return false;
#endif
}

// AVX-512: packing a strided loop that took no compiled loop (blocks
// shorter than pick_compiled takes, index leaves of floats and shorts) by
// the compiled loop's line groups where it has them (jit_moves.cpp
// line_groups: g instances a step into whole 64-byte registers of the
// stream by two-window permutes, as the vectoriser packs 3 floats of
// every 4), over the kernels picked for them (register steps, permutes,
// pairs, groups): 3-12 floats, 6 shorts, 3-5 doubles of every 4-17 at 2
// KiB 1.2-1.6x faster, at 16 KiB 1.0-1.3x; random MPI_Type_vector blocks
// 1.05-1.06x (geometric mean) at 1-2 KiB, 1.03x at 8 KiB, 1.01x at 64 KiB;
// random index leaves (with the compiled loops' own line groups of index
// leaves) 1.03x at 2 KiB, 1.10x at 4, 1.06x at 16, 1.02x at 64 KiB, up
// to 1.95x; none slower beyond the runs' spread (scripts/ab_libraries.py
// and in-process A/B, four placements, Intel Xeon VM).  The unpack stays.
// Instances 2-3 times their bytes apart and blocks of bytes or shorts
// (lanes of words or bytes) where line_groups admits them, unless the
// permutes' pairs are cheaper (permutes_cheaper).
void pack_by_lines([[maybe_unused]] Node &n) {
  if constexpr (kHas64) {
    // Not blocks of 32 bytes, one move each, two a line: 8 floats of
    // every 9-14, 4 doubles of every 5-7 0.76-0.87x as fast by lines at
    // 2 KiB, 0.61-1.36x by the stream's placement at 16 KiB.
    if (n.kind != Kind::Vec || n.jit || small_stride(n) ||
        (n.child->kind == Kind::Block && n.child->count == 32))
      return;
    auto t = make_run_moves(n, kMaxElementLoop);
    auto code = t ? jit_moves(*t, n.stride, n.child->packed, kVectorBytes, kPermuteLane) : nullptr;
    if (!code || !code->aligned_groups() || permutes_cheaper(n, *code)) return;
    n.jit = code;
    pack_without_tables(n, k_vec_jit_groups);
  }
}

// AVX-512: every other byte or short (a byte block or a short every 2
// or 4 bytes) packs by the vectorised dense loop, as the hand loop is
// vectorised (two loads and a truncating move a register), over the byte
// permutes small_stride left them: at 2 KiB 1.17-1.48x faster (0.63-0.73x
// the hand loop -> 0.86-0.99x), at 16 KiB 1.05-1.10x, from 256 KiB
// 1.00-1.04x (in-process A/B, Intel Xeon VM); every fourth lost at 2 KiB
// (0.92x) and keeps the permutes.  The permutes still unpack: the dense
// loop's stores unpacked 0.13-0.49x as fast.
void pack_every_other([[maybe_unused]] Node &n) {
  if constexpr (kHas64) {
    if (n.kind != Kind::Vec || n.child->kind != Kind::Block) return;
    const int64_t b = n.child->count;
    if ((b != 1 && b != 2) || n.stride != 2 * b) return;
    const Kernel unpack = n.unpack;
    (b == 1 ? set_dense<uint8_t, 2> : set_dense<uint16_t, 2>)(n);
    n.unpack = unpack;
    pack_without_tables(n, n.pack);
  }
}

// A transpose of one level (k_vec_columns, k_vec_vec_tile_unpack): K
// columns fill at most a cache line, blocks disjoint, and a column spans
// more than L1 holds.
template <int B, int K>
bool pick_tile(Node &n, Kernel *pk, Kernel *uk) {
  const Node &in = *n.child;
  const int64_t st = n.stride < 0 ? -n.stride : n.stride,
                st2 = in.stride < 0 ? -in.stride : in.stride;
  if (in.child->count != B || st < B || st * K > 64 || st2 < K * st ||
      in.count * st2 < (int64_t(32) << 10) || n.count < K)
    return false;
  *pk = k_vec_columns<true, B, K>, *uk = k_vec_vec_tile_unpack<B, K>;
  n.unpack_alt = k_vec_columns<false, B, K>;
  return true;
}

// k_vec_columns where n's child is 2 to kMaxColumnLevels strided levels
// over a block of B bytes, K columns fill at most a line, and a column
// spans 32 KiB or more.  Unpacking too where the levels nest (each
// level's instances within its stride, all columns within the innermost
// row's stride): then no two blocks overlap and the order is free.
template <int B, int K>
bool pick_columns(Node &n) {
  const int64_t st = n.stride;
  if (st < B || st * K > 64 || n.count < K) return false;
  const Node *lv[kMaxColumnLevels], *x = n.child.get();
  int levels = 0;
  for (; x->kind == Kind::Vec; x = x->child.get()) {
    if (levels == kMaxColumnLevels || x->off != 0) return false;
    lv[levels++] = x;
  }
  if (levels < 2 || x->kind != Kind::Block || x->count != B || x->off != 0) return false;
  // From the innermost level out: each spans count strides of the one within.
  bool nested = true;
  int64_t inner = n.count * st;  // what the level below spans
  for (int l = levels - 1; l >= 0; l--) {
    if (lv[l]->stride < inner) nested = false;
    inner = lv[l]->count * lv[l]->stride;
  }
  if (lv[0]->count * lv[0]->stride < (int64_t(32) << 10)) return false;
  n.pack = k_vec_columns<true, B, K>;
  if (nested) n.unpack = k_vec_columns<false, B, K>;
  return true;
}

bool pick_columns(Node &n) {
  return pick_columns<4, 8>(n) || pick_columns<8, 8>(n) || pick_columns<16, 4>(n);
}

bool pick_transpose(Node &n, Kernel *pk, Kernel *uk) {
  return pick_tile<4, 8>(n, pk, uk) || pick_tile<8, 8>(n, pk, uk) ||
         pick_tile<16, 4>(n, pk, uk);
}

// The alternatives of a row kernel whose rows are blocks of b bytes
// `row_stride` apart (row_far), for the fixed block sizes up to a line.
template <template <bool, int, Far> class K>
void pick_far(Node &n, int64_t b, int64_t row_stride) {
  if (row_stride < kFarStride && row_stride > -kFarStride) return;
  const bool few_sets = row_stride % kFarStride == 0;
  switch (b) {
#define LOOM_CASE(N)                                                                      \
  case N:                                                                                 \
    n.pack_alt = K<true, N, Far::Paced>::f;                                               \
    n.unpack_alt = few_sets ? K<false, N, Far::Prefetch>::f : K<false, N, Far::Index>::f; \
    return;
    LOOM_CASE(1) LOOM_CASE(2) LOOM_CASE(4) LOOM_CASE(8) LOOM_CASE(12) LOOM_CASE(16)
    LOOM_CASE(24) LOOM_CASE(32) LOOM_CASE(64)
#undef LOOM_CASE
    default: return;
  }
}
template <bool P, int B, Far F> struct VecBlkFar {
  static constexpr Kernel f = k_vec_blk_far<P, B, F>;
};
template <bool P, int B, Far F> struct VecVecBlkFar {
  static constexpr Kernel f = k_vec_vec_blk_far<P, B, F>;
};

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
// Packing a strided loop of a byte pattern whose instances fit 16 or 32
// bytes by pshufb (a byte shuffle within 16-byte lanes; across AVX2's two
// lanes, two of them), as the vectoriser packs a hand loop's bytes: each
// step loads the window whole, shuffles its named bytes into stream order
// and stores W bytes, the bytes past the step's own stored over by the
// steps after it.  The steps that may load whole (WholeLoads) and whose
// store ends within the steps' bytes take it; the rest the kernel this
// replaced (Node::pack_rest).  AVX2 has no byte-masked store, so
// unpacking keeps the moves.  Random byte patterns in one process
// against the moves: 16-byte steps 2.09x at 2 KiB (seed 4717), 32-byte
// ones 3.1x more at 2 KiB and 1.8x at 64 KiB (seeds 4719, 4722), shorts
// 1.28x (AMD EPYC VM, LOOM_ISA=avx2).  AVX-512 without VBMI (no byte
// lane permute) packs them so too: bytes 3.9x, shorts 1.47x the moves
// (2 KiB, LOOM_ISA=avx512, seed 4810).
// pshufb shuffles within 16-byte lanes: under a map of 32 byte indices
// (PermuteTable's pack8 or unpack8), a byte takes its source from its own
// lane of the register (ia) or from the other (ib, the lanes swapped); the
// index not used is 0x80, which gives 0.
struct LaneSplit {
  __m256i ia, ib;
  explicit LaneSplit(const uint8_t *map) {
    const __m256i p8 = _mm256_load_si256(reinterpret_cast<const __m256i *>(map));
    const __m256i lo4 = _mm256_set1_epi8(15), none = _mm256_set1_epi8((char)0x80);
    const __m256i same = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_srli_epi16(p8, 4), lo4),
                                           _mm256_set_m128i(_mm_set1_epi8(1), _mm_set1_epi8(0)));
    const __m256i at = _mm256_and_si256(p8, lo4);
    ia = _mm256_blendv_epi8(none, at, same), ib = _mm256_blendv_epi8(at, none, same);
  }
  __m256i shuffle(__m256i v) const {
    return _mm256_or_si256(_mm256_shuffle_epi8(v, ia),
                           _mm256_shuffle_epi8(_mm256_permute2x128_si256(v, v, 1), ib));
  }
};

template <int W>
char *k_vec_shuffle_pack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const PermuteTable &t = *n.shuffle;
  const int64_t m = t.per_vector, sb = t.stream_bytes, step = m * n.stride;
  const int64_t steps = (i1 - i0) / m, past = (W + sb - 1) / sb;
  const int64_t k1 = std::min(t.whole.of(steps), steps - past + 1);
  const char *w = base + i0 * n.stride + t.map.window;
  int64_t k = 0;
  if constexpr (W == 16) {
    const __m128i idx = _mm_load_si128(reinterpret_cast<const __m128i *>(t.map.pack8));
    for (; k < k1; k++, w += step, s += sb)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(s),
                       _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(w)), idx));
  } else {
    const LaneSplit x(t.map.pack8);
    for (; k < k1; k++, w += step, s += sb)
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(s),
                          x.shuffle(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(w))));
  }
  return n.pack_rest(n, base, s, i0 + k * m, i1);
}

// A piece from its K windows at `from` + at[w] (each shuffled by idx[w],
// then or-ed).
template <int K, class Offset>
inline __m128i gather_piece(const __m128i *idx, const Offset *at, const char *from) {
  __m128i v = _mm_setzero_si128();
  for (int w = 0; w < K; w++)
    v = _mm_or_si128(v, _mm_shuffle_epi8(
                            _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + at[w])),
                            _mm_load_si128(idx + w)));
  return v;
}
// Piece j of t.
template <int K>
inline __m128i gather_piece(const ShufflePieces &t, int j, const char *from) {
  return gather_piece<K>(reinterpret_cast<const __m128i *>(t.idx[j]), t.at[j], from);
}

// Packing by ShufflePieces: NP pieces of K windows each, an instance a
// step; the instances whose windows may not load whole, and the last of
// the range where its last piece's store would pass the stream's end, by
// the kernel it replaced (pack_rest).
template <int NP, int K>
char *shuffle_pieces_loop(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const ShufflePieces &t = *n.shuffle_pieces;
  const int64_t st = n.stride, sb = t.packed, steps = i1 - i0;
  const int64_t k1 = std::min(t.whole.of(steps), sb % 16 ? steps - 1 : steps);
  // The table in locals: the stream's stores (char) may alias the table,
  // which the loop loaded again after each one; random byte patterns
  // packed 1.22x faster so, shorts 1.08-1.09x (in-process A/B, AVX2 AMD
  // EPYC VM, 2 and 64 KiB).
  __m128i idx[NP][K];
  int64_t at[NP][K];
  for (int j = 0; j < NP; j++)
    for (int w = 0; w < K; w++)
      idx[j][w] = _mm_load_si128(reinterpret_cast<const __m128i *>(t.idx[j][w])),
      at[j][w] = t.at[j][w];
  const char *u = base + i0 * st;
  int64_t k = 0;
  for (; k < k1; k++, u += st, s += sb)
    for (int j = 0; j < NP; j++)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(s + 16 * j), gather_piece<K>(idx[j], at[j], u));
  return n.pack_rest(n, base, s, i0 + k, i1);
}
template <int NP, int K> struct PackPieces { static constexpr Kernel f = shuffle_pieces_loop<NP, K>; };

#if HWY_TARGET == HWY_AVX3
// Unpacking by ShufflePieces (make_shuffle_unpieces): each piece gathers a
// user window's bytes from windows of the packed bytes and stores the
// named ones; the last instances, whose windows would read past the
// range's stream, each by the child's kernel.
template <int NP, int K>
char *shuffle_unpieces_loop(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const ShufflePieces &t = *n.unshuffle_pieces;
  const int64_t st = n.stride, sb = t.packed, k1 = std::max<int64_t>(0, i1 - i0 - t.tail);
  char *u = base + i0 * st;
  for (int64_t k = 0; k < k1; k++, u += st, s += sb)
    for (int j = 0; j < NP; j++)
      _mm_mask_storeu_epi8(u + t.to[j], (__mmask16)t.named[j], gather_piece<K>(t, j, s));
  return k_vec_any<false>(n, base, s, i0 + k1, i1);
}
template <int NP, int K> struct UnpackPieces { static constexpr Kernel f = shuffle_unpieces_loop<NP, K>; };
#endif

// The kernel of np pieces of k windows: Loop<np, k>::f.
template <template <int, int> class Loop, int NP = 1, int K = 1>
Kernel pieces_kernel(int np, int k) {
  if constexpr (NP < ShufflePieces::kMaxPieces)
    if (np != NP) return pieces_kernel<Loop, NP + 1, K>(np, k);
  if constexpr (K < ShufflePieces::kMaxWindows)
    if (k != K) return pieces_kernel<Loop, NP, K + 1>(np, k);
  return Loop<NP, K>::f;
}

#if HWY_TARGET == HWY_AVX3
// Unpacking the same where byte-masked stores exist (AVX-512 without VBMI,
// whose byte patterns have no lane permute): each step loads its packed
// bytes masked, shuffles them to their window bytes (pshufb as above) and
// stores those under the typemap's mask; the last instances, fewer than a
// step, in one step of masks cut to them (where no later instance's byte
// would win, PermuteTable::prefixes_exact; else each by the child's
// kernel).  Random patterns against the moves (2 KiB, LOOM_ISA=avx512,
// seed 4810): bytes 4.35x, shorts 1.58x.
template <int W>
inline __m256i unpack_shuffle(__m256i v, const LaneSplit &x) {
  if constexpr (W == 16) return _mm256_shuffle_epi8(v, x.ia);  // one lane
  else return x.shuffle(v);
}
template <int W>
char *k_vec_shuffle_unpack(const Node &n, char *base, char *s, int64_t i0, int64_t i1) {
  const PermuteTable &t = *n.shuffle;
  const int64_t m = t.per_vector, sb = t.stream_bytes, step = m * n.stride;
  const int64_t steps = (i1 - i0) / m, r = (i1 - i0) - steps * m;
  const LaneSplit x(t.map.unpack8);
  const __mmask32 um = (__mmask32)t.map.user_lanes, sm = (__mmask32)((uint64_t(1) << sb) - 1);
  char *w = base + i0 * n.stride + t.map.window;
  for (int64_t k = 0; k < steps; k++, w += step, s += sb)
    _mm256_mask_storeu_epi8(w, um, unpack_shuffle<W>(_mm256_maskz_loadu_epi8(sm, s), x));
  if (r == 0) return s;
  if (!t.prefixes_exact) return k_vec_any<false>(n, base, s, i1 - r, i1);
  const int64_t bytes = r * (sb / m);
  const __mmask32 ur = (__mmask32)t.first_lanes[r], sr = (__mmask32)((uint64_t(1) << bytes) - 1);
  _mm256_mask_storeu_epi8(w, ur, unpack_shuffle<W>(_mm256_maskz_loadu_epi8(sr, s), x));
  return s + bytes;
}
#endif
#endif

void pack_by_shuffle([[maybe_unused]] Node &n) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  // Not over a kernel that packs its last instances by pack_rest (chains,
  // groups): this one would take that kernel as its own rest, and that
  // kernel itself as its rest.  Nor over register steps (pick_groups,
  // jit_pack), a whole register a store too: 3 floats of every 4 packed
  // 1.35-1.5x faster by the steps than by shuffles.
  if (n.kind != Kind::Vec || n.permute || n.chunks || n.chain || n.groups || n.steps ||
      small_stride(n) || n.pack == k_vec_jit_groups)
    return;
  // Blocks of 4 or 8 bytes k_vec_blk gathers 8 a step, as the vectoriser
  // does: on AVX2 shuffles only where a window holds 4 or more (every
  // fifth float, two a window, packed 0.47x the hand loop by shuffles,
  // 0.89x gathered; 4 bytes of every 5, six a window, 0.76-0.78x
  // gathered).  AVX-512 without VBMI not measured: unchanged.
  const bool gathered = !kHas64 && n.child->kind == Kind::Block &&
                        (n.child->count == 4 || n.child->count == 8);
  auto usable = [&](int width) {
    // Shuffles pay wherever they replace two moves or more: 3 runs of
    // shorts in 28 bytes (12 packed) at 2 KiB, LOOM_ISA=avx512: 618 ns
    // by the moves, 114 so.
    auto t = make_permute_table(n, width, 1, false, INT64_MAX, true);
    return t && t->whole.next ? t : nullptr;
  };
  // 32 bytes a step where they hold more instances than 16: random byte
  // patterns 3.1x the 16-byte steps at 2 KiB, 1.8x at 64 KiB; where both
  // hold one instance (7 runs in 19 bytes), 0.67x.
  auto narrow = usable(16), wide = usable(32);
  const bool w32 = wide && (!narrow || wide->per_vector > narrow->per_vector);
  n.shuffle = w32 ? wide : narrow;
  if (gathered && (!n.shuffle || n.shuffle->per_vector < 4)) return (void)(n.shuffle = nullptr);
  // One block an instance, one an instance a window or in pieces: the
  // shuffles only move the block's bytes where the block's own moves put
  // them (17 shorts of every 20 packed 0.49x the hand loop in pieces;
  // by the moves 2.6x faster, bytes in blocks of 34-50 2.3-2.5x, 17 of
  // 20 1.6x; in-process A/B, 2 KiB, AVX2).  AVX-512 without VBMI not
  // measured: the same identity shuffles there.
  if (n.child->kind == Kind::Block && (!n.shuffle || n.shuffle->per_vector < 2))
    return (void)(n.shuffle = nullptr);
  if (!n.shuffle) {
    // Wider instances in pieces of 16 bytes: random byte and short
    // patterns (LOOM_ISA=avx2, in-process A/B against the moves) packed
    // 1.7-5x faster at 2 KiB (all patterns 1.18x), 1.23x at 64 KiB on
    // the one that took them there (all 1.06x); LOOM_ISA=avx512 2.7-5x.
    n.shuffle_pieces = make_shuffle_pieces(n);
    // Not over a compiled loop (jit_moves) of no more stores an instance
    // than the pieces take windows (each a load and a shuffle; the most
    // a piece needs, times the pieces): against the loop's stores, after
    // its gathers, random short patterns packed 1.11-1.15x faster than
    // against twice its moves (in-process A/B, 2 and 64 KiB; bytes and
    // tiles 1.00-1.02x), 34 bytes of every 50 in 3 pieces of up to 2
    // windows 0.84x as fast by pieces as by 4 stores (AVX2 AMD EPYC VM).
    if (n.shuffle_pieces && n.jit &&
        n.shuffle_pieces->pieces * n.shuffle_pieces->windows >= n.jit->stores)
      n.shuffle_pieces = nullptr;
#if HWY_TARGET == HWY_AVX3
    // Unpacking too, under byte masks: random short patterns 1.7-2.95x
    // faster at 2 KiB (all random patterns 1.16x), bytes and shorts
    // 2.4-3.3x at 64 KiB (all 1.22x; LOOM_ISA=avx512, in-process A/B).
    n.unshuffle_pieces = make_shuffle_unpieces(n);
    if (n.unshuffle_pieces)
      n.unpack = pieces_kernel<UnpackPieces>(n.unshuffle_pieces->pieces, n.unshuffle_pieces->windows);
#endif
    if (!n.shuffle_pieces) return;
    n.pack_rest = n.pack;
    n.pack = pieces_kernel<PackPieces>(n.shuffle_pieces->pieces, n.shuffle_pieces->windows);
    return;
  }
  n.pack_rest = n.pack;
  n.pack = w32 ? k_vec_shuffle_pack<32> : k_vec_shuffle_pack<16>;
#if HWY_TARGET == HWY_AVX3
  n.unpack = w32 ? k_vec_shuffle_unpack<32> : k_vec_shuffle_unpack<16>;
#endif
#endif
}

// Long lists of short runs, without AVX-512 (whose masked moves take a
// run without a branch on its length: 1.04x the hand loop at 10 doubles a
// run), move element by element where their runs average at most
// kRunElementsUnpack elements unpacking, kRunElementsPack packing.
// Particle subsets (doubles kept with probability p, 1 MiB, runs of
// 1/(1-p) on average, lengths in random order; AMD EPYC VM), over the
// hand loop, runs against elements (which run as the hand loop, 0.99-
// 1.04x):
//   AVX2, unpacking (clamped moves): 5 a run 0.34x, 10 0.72x, 15 0.97x,
//     20 1.07-1.11x, 30 1.45x; packing (masked loads): 5 0.86x, 10
//     1.00-1.06x, 20 1.04-1.09x;
//   baseline, unpacking: 10 1.04x, 20 1.10x, 25 1.22x; packing 10 0.54x,
//     15 0.70x, 20 0.87x, 25 0.98x, 30 1.09x.
// At most kMaxRunElements elements (a list of 16 MiB beside the runs'):
// longer lists keep the runs.
constexpr int64_t kRunElementsUnpack = 16, kRunElementsPack = kHas32 ? 8 : 24;
constexpr int64_t kMaxRunElements = int64_t(1) << 22;
void pick_run_elements([[maybe_unused]] Node &n) {
  if constexpr (!kHas64) {
    if (n.count < kLongRunList) return;
    int64_t g = 0;
    for (int64_t x : n.lens) g = std::gcd(g, x);
    const int64_t w = element_width(g), B = w >= 4 ? w : 0;  // whole words only
    const bool unpack = n.packed <= kRunElementsUnpack * B * n.count,
               pack = n.packed <= kRunElementsPack * B * n.count;
    if (!B || !(unpack || pack) || n.packed / B > kMaxRunElements) return;
    std::vector<int32_t> e;
    e.reserve((size_t)(n.packed / B));
    for (int64_t i = 0; i < n.count; i++)
      for (int64_t o = 0; o < n.lens[i]; o += B) {
        if (n.disp[i] + o < INT32_MIN || n.disp[i] + o > INT32_MAX) return;
        e.push_back((int32_t)(n.disp[i] + o));
      }
    n.elements32 = std::move(e);
    switch (B) {
      case 4:
        if (unpack) n.unpack = k_idxv_elements<false, 4>;
        if (pack) n.pack = k_idxv_elements<true, 4>;
        break;
      case 8:
        if (unpack) n.unpack = k_idxv_elements<false, 8>;
        if (pack) n.pack = k_idxv_elements<true, 8>;
        break;
      default:
        if (unpack) n.unpack = k_idxv_elements<false, 16>;
        if (pack) n.pack = k_idxv_elements<true, 16>;
    }
  }
}

// A freshly built node's kernels, but for those that replace its pack
// kernel on some targets whatever it is (pack_by_shuffle).
void select_base_kernels(Node &n) {
  const Node *c = n.child.get();
  switch (n.kind) {
    case Kind::Block:
      n.pack = k_block<true>, n.unpack = k_block<false>;
      // Only blocks that long: every node with an alternative carries a
      // timed choice, and blocks are every plan's leaves.
      if (streams<uint64_t>() && n.count >= streaming_from())
        n.pack_alt = k_block_stream<true>, n.unpack_alt = k_block_stream<false>,
        n.timed_from = streaming_from();
      return;
    case Kind::Vec:
      if (small_stride(n)) {
        const int64_t b = c->count;
        if (b < 4) {
          // Bytes and shorts: packed as a hand loop is vectorised (every
          // other byte: two loads, masks, one pack), unpacked a block a
          // move (the loop's stores, as the compiler leaves them).
          (b == 1 ? pick_dense<uint8_t> : pick_dense<uint16_t>)(n, n.stride / b);
          n.unpack = b == 1 ? k_vec_blk<false, 1> : k_vec_blk<false, 2>;
          return;
        }
        (b == 4 ? pick_dense<uint32_t> : pick_dense<uint64_t>)(n, n.stride / b);
        // Scattering 8-byte elements, the vectoriser's shuffles and
        // extracts (AVX2, AVX-512) lost to plain moves: 0.55-0.8x in cache,
        // 0.75-0.85x from memory at 3 and 4 slots apart.
        if (b == 8) n.unpack = k_vec_blk<false, 8>;
        // SSE2's vectorised gather of every third float ran at 1.6 GB/s,
        // a sixth of plain moves.
        if (b == 4 && n.stride == 12 && !kHas32) n.pack = k_vec_blk<true, 4>;
#ifdef LOOM_HAVE_DENSE_SCATTER
        // Not every other double: plain moves kept up there (0.92-0.97x).
        if (n.stride == 8) n.unpack = k_vec_dense_scatter<uint32_t, 2>;
        if (n.stride == 16 && b == 4) n.unpack = k_vec_dense_scatter<uint32_t, 4>;
        if (n.stride == 32 && b == 8) n.unpack = k_vec_dense_scatter<uint64_t, 4>;
#endif
        return;
      }
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      // Doubles before permutes, which move 4 a register here: random
      // double patterns 1.09x faster so at 2 KiB than by the unrolled
      // pieces (chunk_loop), 0.98x / 1.00x at 64 KiB; floats, 8 a
      // register, 0.75-0.83x at 64 KiB, keep the permutes.  AVX-512
      // likewise, 8 doubles a register: by the compiled loop (pick_elements)
      // 1.25-1.32x faster at 2 KiB.
      if ((c->kind == Kind::Idx || c->kind == Kind::IdxV) && pick_elements(n, 8)) return;
#endif
      // AVX-512: doubles in runs too long for elements (3.5 a run or more)
      // by the compiled loop before the permutes too: where it differs,
      // random double patterns 1.2-1.7x faster (all 1.03-1.06x; 64 KiB
      // 1.02x; in-process A/B, AMD EPYC Zen 4 VM).
      if (kHas64 && (c->kind == Kind::Idx || c->kind == Kind::IdxV) && in_doubles(*c) &&
          pick_compiled(n))
        return;
      if (pick_permute(n)) {  // a small leaf repeated
        pick_chain(n);
#ifdef LOOM_HAVE_TWO_SOURCE
        // Short blocks whose permutes store part of a register a window
        // (3 shorts of every 4, 5 of every 6, 3 or 5 bytes of every 4 or
        // 7, 14 of every 16) may pack faster by steps (pick_steps).
        if (n.permute) pick_steps(n, true);
#endif
        return;
      }
      if (c->kind == Kind::Block) {
        pick_far<VecBlkFar>(n, c->count, n.stride);
        BySize<VecBlk>::pick(c->count, &n.pack, &n.unpack);
        // Blocks of 49-256 bytes of no fixed size (a row of a submatrix)
        // by the compiled loop, each block's moves fixed as the compiler
        // inlines a memcpy of a constant length: MPI_Type_vector rows of
        // 49-232 bytes, random strides, 1.1-2.2x at 2 KiB, 1.0-1.5x at 64
        // KiB (in-process A/B, AVX2 AMD EPYC VM); blocks of 64 (two moves
        // already) 0.87-0.90x, of 33-48 0.8-0.9x so.  Longer blocks gain
        // less (504-1040 bytes: 1.1-1.3x in L1, 1.0x beyond) and lost
        // where each is a TLB miss (a cube's XZ face, 1 KiB blocks 256 KiB
        // apart, 0.9x).  Not on the baseline, whose 16-byte moves double
        // the count: 0.62-0.96x there for blocks of 256-1040 bytes.
        // AVX-512 packs from 36 bytes so (36-48: 1.10-1.31x; 33 bytes
        // 0.85-0.93x) where they are near (NAS LU y's 40 bytes 40 KiB
        // apart packed 0.93x as fast), but unpacks blocks of up to 48
        // bytes by the row's one masked store each (the loop's two
        // moves: 0.75-0.98x as fast; 49-64 bytes 0.73-0.93x by the row;
        // 2 KiB, AMD EPYC Zen 4 VM), and keeps its groups of blocks
        // (make_group_table, from 4-8 KiB) over the loop.
        const int64_t b = c->count;
        const bool near = n.stride < kFarStride && n.stride > -kFarStride;
        const Kernel row_unpack = n.unpack;
        if (kHas32 && b >= (kHas64 && near ? 36 : 49) && b <= 256 && size_class(b) <= 0 &&
            pick_compiled(n)) {
          if (!kHas64) return;
          if (b <= 48) n.unpack = row_unpack;
        }
        // The compiled loop's groups of whole cache lines (AVX-512) over
        // the group table's (pick_permute): 5-7 doubles of every 6-11, 10-14
        // floats of every 13-16 packed 1.03-1.39x faster at 8 and 16 KiB,
        // 1.00-1.06x at 64 KiB (in-process A/B, four placements, Intel
        // Xeon VM).
        if (n.jit && n.jit->aligned_groups()) n.groups = nullptr;
        pick_groups(n);
        pack_in_pairs(n);
        pick_chain(n);
#if defined(LOOM_HAVE_TWO_SOURCE) || HWY_TARGET == HWY_AVX2
        // AVX2 by two permutes and a blend a register, over its compiled
        // register groups or the row: 12 bytes of every 16-24 1.07-1.38x
        // at 2 and 8 KiB, 1.06-1.12x at 64 KiB, none slower (LOOM_ISA=avx2
        // on the AMD EPYC Zen 4 VM, in-process A/B).
        pick_steps(n);
#endif
#if HWY_TARGET == HWY_AVX3_DL
        // Blocks of words no one move takes, four or more to a register (3
        // floats of every 4, 6 shorts of every 8), unpack by word permutes:
        // 1.45-1.64x at 2 KiB, 1.15-1.18x at 64 KiB, 1.10-1.20x at 1 MiB;
        // packing so 0.82-0.96x from 64 KiB: it keeps the row (in-process
        // A/B, AMD EPYC Zen 4 VM).  AVX-512 without VBMI not measured.
        if (!n.permute && n.stride % 4 == 0 && b % 4 == 0 && (b & (b - 1)) != 0) {
          auto t = make_permute_table(n, kPermuteWidth, 4, kTwoSource);
          if (t && t->per_vector >= 4) n.permute = t, n.unpack = k_vec_permute<false>;
        }
#endif
        return;
      }
      // Rows long enough for the vectorised row kernel go through it.
      if (c->kind == Kind::Vec && c->child->kind == Kind::Block &&
          !(small_stride(*c) && c->count >= 16)) {
        if (pick_transpose(n, &n.pack, &n.unpack)) return;
        pick_far<VecVecBlkFar>(n, c->child->count, c->stride);
        // Rows of up to kMaxElementLoop other blocks (bytes, shorts, float
        // triples) by the compiled loop: the row kernel's setup and
        // branches an instance cost more than its moves (2 shorts 3 apart
        // of every 9 bytes unpacked at 0.21-0.43x the hand loop; 1.7-3.4x
        // faster so; rows of 2-16 blocks 1.1-3.4x unpacking, packing
        // 1.03x; of 17-40 blocks of 1-4 elements, random strides, packing
        // 1.2x, unpacking 1.09x at 2 KiB (up to 1.8x; none below 0.98x),
        // 1.06x / 1.06x at 64 KiB, the baseline 1.09x / 1.05x; 20 float
        // triples 1.5x; in-process A/B, AMD EPYC VM).  Longer rows keep
        // the row kernel.
        const int64_t b = c->child->count;
        BySize<VecVecBlk>::pick(b, &n.pack, &n.unpack);
        const Kernel row_unpack = n.unpack;
        // With AVX-512 the row kernel unpacks a block of up to 32 bytes by
        // one masked store, the compiled loop by two moves (three floats:
        // two of 8 bytes, overlapping): rows of 3-6 floats, 3 shorts or 6
        // bytes unpacked 0.81-0.88x as fast compiled, powers of two
        // 1.07-1.9x faster (2 KiB, seed 5810); 33-48 bytes 0.80-1.18x
        // (the row's head and tail).  Longer blocks the row moves by head
        // and tail too, each block's moves decided at run time: 49-128
        // bytes unpacked 1.14x faster compiled at 2 KiB (up to 2x), 1.07-
        // 1.08x at 64 KiB, none 2% slower; 129-512 bytes 1.07x at 8 KiB
        // (in-process A/B, AMD EPYC Zen 4 VM).
        if ((pick_elements(n) || (c->count <= kMaxElementLoop && pick_compiled(n))) && kHas64 &&
            n.jit && (b & (b - 1)) != 0 && b <= 48)
          n.unpack = row_unpack;
        pack_in_pairs(n);
        return pick_row_steps(n);
      }
      if (c->kind == Kind::Vec && c->child->kind == Kind::Vec &&
          c->child->child->kind == Kind::Block && !small_stride(*c->child)) {
        // Columns over two levels (a 3D transpose) stream like deeper
        // ones: 8 doubles at a stride of 8 over 64 x 64 rows, 256 KiB:
        // pack 1.2-1.6x, unpack 2-3x the Vec3Blk kernel.
        BySize<Vec3Blk>::pick(c->child->child->count, &n.pack, &n.unpack);
        if (pick_columns(n)) return;
        // Small tiles (rows of rows, kMaxElementLoop blocks at most) as
        // short rows above: Vec3Blk's two loops an instance cost more than
        // the tile's moves.  Random tiles (in-process A/B, AVX2 AMD EPYC
        // VM): up to kShortRow blocks (2-6 rows of 2-6) 2-3.7x faster at 2
        // KiB, 1.1-2.9x at 64 KiB, by element lists or the compiled loop;
        // 2-7 rows of 9-17 blocks 1.04-1.7x compiled, blocks that the row
        // packs by wider moves too (3 shorts, floats or doubles: 1.2-3.1x
        // at 2 and 64 KiB, where an earlier measurement had found them
        // 0.72-0.94x as fast).
        const int64_t blocks = c->count <= kMaxElementLoop && c->child->count <= kMaxElementLoop
                                   ? c->count * c->child->count : INT64_MAX;
        if (blocks <= kShortRow && (pick_elements(n) || pick_compiled(n))) return pack_in_pairs(n);
        if (blocks > kShortRow) pick_compiled(n);
        return;
      }
      if (c->kind == Kind::Idx && c->child->kind == Kind::Block) {
        if (!pick_elements(n) && !pick_compiled(n))
          BySize<VecIdxBlk>::pick(c->child->count, &n.pack, &n.unpack);
        return pack_in_pairs(n);
      }
      if (c->kind == Kind::IdxV && pick_elements(n)) return;
      // Rows of every other float (or 4 bytes of every 8) keep AVX-512's
      // vectorised row (k_vec_dense through k_vec_any): compiled, 16-58
      // of them in a row packed 0.76-0.87x as fast; other rows of words
      // 2-4 apart 1.03-1.9x faster compiled (2 KiB, AMD EPYC Zen 4 VM).
      // Either packs by steps where those pay (pick_row_steps).
      if (!(kHas64 && c->kind == Kind::Vec && small_stride(*c) && c->child->count == 4 &&
            c->stride == 8) &&
          pick_compiled(n))
        return pick_row_steps(n);
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3
      if (c->kind == Kind::IdxV) {
        n.pack = k_vec_idxv<true>, n.unpack = k_vec_idxv<false>;
        return;
      }
#endif
      n.pack = k_vec_any<true>, n.unpack = k_vec_any<false>;
      if (pick_columns(n)) return;
      return pick_row_steps(n);
    case Kind::Idx:
      if (c->kind == Kind::Block) return BySize<IdxBlk>::pick(c->count, &n.pack, &n.unpack);
      if (pick_permute(n) || pick_compiled(n)) return;
      n.pack = k_idx_any<true>, n.unpack = k_idx_any<false>;
      return pack_in_pairs(n);
    case Kind::IdxV:
      n.pack = k_idxv<true>, n.unpack = k_idxv<false>;
#if HWY_TARGET == HWY_AVX2
      if (n.count >= kLongRunList) {
        const int64_t shortest = *std::min_element(n.lens.begin(), n.lens.end());
        if (shortest >= 16) n.pack = k_idxv_clamped<true, 16>, n.unpack = k_idxv_clamped<false, 16>;
        else if (shortest >= 8) n.pack = k_idxv_clamped<true, 8>, n.unpack = k_idxv_clamped<false, 8>;
        int64_t g = 0;
        for (int64_t x : n.lens) g = std::gcd(g, x);
        if (g % 4 == 0)
          n.pack = shortest >= 16 ? k_idxv_masked_pack<16>
                   : shortest >= 8 ? k_idxv_masked_pack<8> : k_idxv_masked_pack<0>;
      }
#endif
      return pick_run_elements(n);
    case Kind::Struct:
      n.pack = k_struct<true>, n.unpack = k_struct<false>;
      return;
  }
}

// Rows and small tiles of whole words (floats, doubles) whose row
// kernels, compiled loops or element kernels move a block at a time
// unpack with AVX-512 in pieces (make_chunk_table's word_rows: 8 blocks
// or more a piece): random rows and tiles of floats unpacked 1.06-1.85x
// faster at 2 and 64 KiB (in-process A/B, AMD EPYC Zen 4 VM), every
// third float (9 a row) 1.0-1.28x -> 1.5-1.66x the hand loop.  Packing
// keeps its kernel: in pieces random rows packed 0.63-1.39x as fast
// (every other float in its dense row kernel lost).
void unpack_rows_in_pieces([[maybe_unused]] Node &n) {
#ifdef LOOM_HAVE_TWO_SOURCE
  if ((n.kind != Kind::Vec && n.kind != Kind::Idx) || n.chunks || n.permute) return;
  auto t = make_chunk_table(n, kPermuteWidth, 4, 2, true);
  if (!t) return;
  n.chunks = t;
  n.unpack = n.kind == Kind::Vec ? k_vec_chunks<false> : k_idx_chunks<false>;
#endif
}

}  // namespace

// The kernels of a freshly built node, from this target's set.
void select_kernels_for_target(Node &n) {
  select_base_kernels(n);
  pack_by_lines(n);
  pack_every_other(n);
  pack_by_shuffle(n);
  unpack_rows_in_pieces(n);
}

void copy_for_target(char *dst, const char *src, size_t n) { long_copy(dst, src, n, true); }
CopyWays copy_ways_for_target() { return copy_ways(); }

}  // namespace HWY_NAMESPACE
}  // namespace loom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom {

const KernelSet *kernel_sets(size_t *n) {
  static const KernelSet sets[] = {
#if (HWY_TARGETS & HWY_AVX3_DL) && HWY_STATIC_TARGET != HWY_AVX3_DL
      {"avx512vbmi", HWY_AVX3_DL, N_AVX3_DL::select_kernels_for_target,
       N_AVX3_DL::copy_for_target, N_AVX3_DL::copy_ways_for_target},
#endif
#if (HWY_TARGETS & HWY_AVX3) && HWY_STATIC_TARGET != HWY_AVX3
      {"avx512", HWY_AVX3, N_AVX3::select_kernels_for_target, N_AVX3::copy_for_target,
       N_AVX3::copy_ways_for_target},
#endif
#if (HWY_TARGETS & HWY_AVX2) && HWY_STATIC_TARGET != HWY_AVX2
      {"avx2", HWY_AVX2, N_AVX2::select_kernels_for_target, N_AVX2::copy_for_target,
       N_AVX2::copy_ways_for_target},
#endif
      {"baseline", HWY_STATIC_TARGET, HWY_NAMESPACE::select_kernels_for_target,
       HWY_NAMESPACE::copy_for_target, HWY_NAMESPACE::copy_ways_for_target},
  };
  *n = sizeof sets / sizeof sets[0];
  return sets;
}

}  // namespace loom
#endif  // HWY_ONCE
