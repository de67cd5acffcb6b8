// The alternative kernels (Node::pack_alt, unpack_alt: kernels.cpp's
// far-strided rows, the transpose's untiled unpack, and on AVX-512 the
// dense pack's moves and the moves beside packing in pairs) against the
// reference interpreter, with guard bytes around every buffer and a
// pattern in every gap: each called directly on the plan root next to its
// base, and through loom_pack/loom_unpack, whose timed choice runs the
// alternative on its first calls and the base on the next.  The core.isa
// runs repeat this under every instruction set.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cache_size.hpp"
#include "guarded.hpp"
#include "loom_handle.hpp"
#include "plan.hpp"
#include "run_seed.hpp"
#include "type.hpp"
#include "type_spec.hpp"

namespace {

using namespace loomtest;

struct Case {
  TypeSpecPtr spec;
  bool pack_alt, unpack_alt;  // the alternatives the root must have
};

std::string plan_of(loom_type t) {
  char buf[256];
  loom_type_plan_string(t, 1, buf, sizeof buf);
  return buf;
}

// "" when every kernel of the root, and loom_pack/loom_unpack over the
// timed choice's trials, give the reference's bytes.
std::string check(const Case &c, uint64_t seed, bool through_api) {
  Type t = committed(c.spec);
  if (!t) return "commit failed";
  const loom::Node &root = *loom::plan_for(t.get(), 1).node;
  const std::string plan = plan_of(t.get());
  if ((c.pack_alt && !root.pack_alt) || (c.unpack_alt && !root.unpack_alt))
    return "no alternative kernel chosen for " + plan;
  if ((root.pack_alt || root.unpack_alt) && !root.choice)
    return "alternatives without a timed choice: " + plan;

  const Layout l = reference_layout(*c.spec);
  int64_t lo, hi;
  reference_span(l, 1, &lo, &hi);
  const size_t span = (size_t)(hi - lo), n = (size_t)loom_type_size(t.get());
  Guarded user(span, seed % 64);
  user.fill(seed);
  unsigned char *origin = user.data() - lo;
  const std::vector<unsigned char> packed = reference_pack(l, 1, origin);
  // The unpack's expected buffer: the gaps keep their pattern.  One
  // destination serves every unpack, reset to the pattern before each.
  Guarded dst(span, seed % 64);
  dst.fill(seed + 1);
  const std::vector<unsigned char> pattern = dst.contents();
  std::vector<unsigned char> unpacked = pattern;
  reference_unpack(l, 1, packed.data(), unpacked.data() - lo);

  auto check_pack = [&](auto run, const char *what) -> std::string {
    Guarded out(n, seed % 61);
    run(out.data());
    if (std::string e = out.guard_error(); !e.empty()) return std::string(what) + ": " + e;
    if (out.contents() != packed) return std::string(what) + " differs from the reference";
    return "";
  };
  auto check_unpack = [&](auto run, const char *what) -> std::string {
    std::copy(pattern.begin(), pattern.end(), dst.data());
    run(dst.data() - lo);
    if (std::string e = dst.guard_error(); !e.empty()) return std::string(what) + ": " + e;
    if (dst.contents() != unpacked) return std::string(what) + " differs from the reference";
    return "";
  };
  char *src = reinterpret_cast<char *>(origin) + root.off;
  char *stream = reinterpret_cast<char *>(const_cast<unsigned char *>(packed.data()));
  for (const auto &[k, what] : {std::pair{root.pack, "base pack"}, {root.pack_alt, "alt pack"}}) {
    if (!k) continue;
    std::string e = check_pack([&](unsigned char *o) {
      k(root, src, reinterpret_cast<char *>(o), 0, root.count);
    }, what);
    if (!e.empty()) return e + " (" + plan + ")";
  }
  for (const auto &[k, what] :
       {std::pair{root.unpack, "base unpack"}, {root.unpack_alt, "alt unpack"}}) {
    if (!k) continue;
    std::string e = check_unpack([&](unsigned char *o) {
      k(root, reinterpret_cast<char *>(o) + root.off, stream, 0, root.count);
    }, what);
    if (!e.empty()) return e + " (" + plan + ")";
  }
  if (!through_api) return "";
  // The trials alternate, alternative first: both kernels run.
  for (uint32_t call = 0; call < 2 * loom::TimedChoice::kTrials + 4; ++call) {
    std::string e = check_pack([&](unsigned char *o) {
      size_t pos = 0;
      if (loom_pack(origin, 1, t.get(), o, n, &pos) != LOOM_OK || pos != n) ADD_FAILURE();
    }, "loom_pack");
    if (e.empty()) {
      e = check_unpack([&](unsigned char *o) {
        size_t pos = 0;
        if (loom_unpack(packed.data(), n, &pos, o, 1, t.get()) != LOOM_OK || pos != n)
          ADD_FAILURE();
      }, "loom_unpack");
    }
    if (!e.empty()) return e + " on call " + std::to_string(call) + " (" + plan + ")";
  }
  return "";
}

TypeSpecPtr element(int64_t bytes) {
  switch (bytes) {
    case 1: return prim(LOOM_BYTE);
    case 2: return prim(LOOM_SHORT);
    case 4: return prim(LOOM_FLOAT);
    case 8: return prim(LOOM_DOUBLE);
    case 12: return contig(3, prim(LOOM_FLOAT));
    default: return contig(bytes / 8, prim(LOOM_DOUBLE));  // 16, 24, 32, 64
  }
}

}  // namespace

// Rows of 1- to 64-byte blocks 1 KiB or more apart, one or two levels,
// strides powers of two or not, rows of a few blocks to thousands (the
// prefetching unpack's tail and body), some through the API at the sizes
// the timed choice starts at (64 KiB).
TEST(Kernels, FarStridedAlternativesGiveTheReferenceBytes) {
  const uint64_t seed = run_seed("Kernels.FarStridedAlternativesGiveTheReferenceBytes");
  std::mt19937_64 rng(seed);
  auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  static const int64_t kSizes[] = {1, 2, 4, 8, 12, 16, 24, 32, 64};
  for (int i = 0; i < 40; ++i) {
    // Through loom_pack/loom_unpack: 64 KiB of 16-byte blocks at most
    // 1.5 KiB apart (buffers of at most 6 MiB).
    const bool big = i % 8 == 0;
    const int64_t b = big ? 16 : kSizes[uni(0, 8)];
    const int64_t stride = uni(0, 1) ? int64_t(1024) << (big ? 0 : uni(0, 2))
                                     : uni(1024, big ? 1536 : 5000);
    TypeSpecPtr spec;
    if (uni(0, 1)) {
      const int64_t rows = big ? (int64_t(64) << 10) / b + uni(0, 40) : uni(2, 300);
      spec = hvector(rows, 1, stride, element(b));
    } else {
      const int64_t n2 = uni(1, 40), n1 = big ? (int64_t(64) << 10) / (n2 * b) + 1 : uni(2, 12);
      spec = hvector(n1, 1, n2 * stride + 8 * uni(1, 4), hvector(n2, 1, stride, element(b)));
    }
    const std::string e = check({spec, true, true}, seed + (uint64_t)i, big);
    EXPECT_EQ(e, "") << "case " << i << " of seed " << seed << ": " << describe(*spec);
  }
}

// The transposes of Kernels.Transposes that take the tiled kernel: its
// unpack straight from the streams is the alternative.
TEST(Kernels, TransposeAlternativeGivesTheReferenceBytes) {
  auto column = [](int64_t rows, int64_t stride, int64_t elem, TypeSpecPtr e) {
    return resized(vector(rows, 1, stride, e), 0, elem);
  };
  const TypeSpecPtr dbl = prim(LOOM_DOUBLE), flt = prim(LOOM_FLOAT), cplx = contig(2, dbl);
  const TypeSpecPtr cases[] = {
      contig(64, column(64, 512, 16, cplx)),           // FFT2D's shape
      contig(37, column(100, 1000, 4, flt)),           // K = 8, remainder 5
      contig(19, column(80, 600, 8, dbl)),             // K = 8, remainder 3
      hvector(21, 1, -8, column(70, 700, 8, dbl)),     // negative column step
      hvector(9, 1, 32, column(50, -1200, 16, cplx)),  // gaps, rows upward
      contig(512, column(256, 512, 16, cplx)),         // FFT2D at 2 MiB: the API
  };
  uint64_t seed = 0x7A12;
  for (const TypeSpecPtr &c : cases) {
    const bool big = c == cases[5];
    const std::string e = check({c, false, true}, seed++, big);
    EXPECT_EQ(e, "") << describe(*c);
  }
}

// Strided doubles and floats 2 to 4 slots apart pack vectorised into the
// caches or by non-temporal stores (kernels.cpp k_vec_dense_stream; the
// baseline streams doubles only), and on AVX-512 a few floats of every
// instance in pairs of instances, or the same streamed (LineStream), or by
// moves (pack_in_pairs); the stream at every alignment (the streaming
// kernels' head, registers and tail differ).  Some through the API at 1
// MiB, where the moves' timing starts (the streaming ones start at a
// quarter of the last-level cache, too large for a test: they run called
// directly).
TEST(Kernels, PackingAlternativesGiveTheReferenceBytes) {
  const uint64_t seed = run_seed("Kernels.PackingAlternativesGiveTheReferenceBytes");
  std::mt19937_64 rng(seed);
  auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  const std::string isa = loom_isa();
  const bool wide = isa == "avx512" || isa == "avx512vbmi";
  for (int i = 0; i < 40; ++i) {
    const bool big = i % 8 == 0, doubles = uni(0, 1);
    const TypeSpecPtr e = prim(doubles ? LOOM_DOUBLE : LOOM_FLOAT);
    const int64_t size = doubles ? 8 : 4;
    TypeSpecPtr spec;
    const bool dense = uni(0, 1);
    if (dense) {  // every 2nd to 4th element
      const int64_t n = big ? (int64_t(1) << 20) / size + uni(0, 40) : uni(2, 300);
      spec = vector(n, 1, uni(2, 4), e);
    } else {  // 4 doubles of every 8 (Ross's Indexed) or 4 or 8 floats of every 16, in any order
      std::vector<int64_t> at = {0, 1, 3, 6};
      if (!doubles) {
        at.resize(16);
        std::iota(at.begin(), at.end(), 0);
        std::shuffle(at.begin(), at.end(), rng);
        at.resize(size_t(4) << uni(0, 1));  // a pair's packed bytes: 32 or 64
      }
      std::shuffle(at.begin(), at.end(), rng);
      const int64_t k = (int64_t)at.size();
      const int64_t n = big ? (int64_t(1) << 20) / (k * size) + uni(0, 9) : uni(2, 200);
      spec = contig(n, resized(indexed_block(1, at, e), 0, 64));
    }
    // On AVX-512 floats that stay an index list pack in pairs (their
    // alternative streams the pairs' whole registers; floats at regular
    // offsets become strided loops); the doubles by their compiled loop,
    // which has no alternative.
    const bool listed = plan_of(committed(spec).get()).find("idx(") != std::string::npos;
    const bool alt = dense ? doubles || isa != "baseline" : wide && !doubles && listed;
    const std::string err = check({spec, alt, false}, seed + (uint64_t)i, big);
    EXPECT_EQ(err, "") << "case " << i << " of seed " << seed << ": " << describe(*spec);
  }
}

// Threads packing and unpacking the same type at once share its root's
// timed choice: every call still gives the reference bytes.
TEST(Kernels, AlternativesUnderConcurrentCalls) {
  const TypeSpecPtr spec = hvector(4200, 1, 1040, contig(2, prim(LOOM_DOUBLE)));
  Type t = committed(spec);
  ASSERT_TRUE(t);
  ASSERT_TRUE(loom::plan_for(t.get(), 1).node->pack_alt);
  const Layout l = reference_layout(*spec);
  int64_t lo, hi;
  reference_span(l, 1, &lo, &hi);
  const size_t span = (size_t)(hi - lo), n = (size_t)loom_type_size(t.get());
  std::vector<unsigned char> user(span);
  for (size_t i = 0; i < span; ++i) user[i] = (unsigned char)(i * 131 >> 3);
  const std::vector<unsigned char> packed = reference_pack(l, 1, user.data() - lo);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&] {
      std::vector<unsigned char> out(n), back(span, 0);
      for (int call = 0; call < 40; ++call) {
        size_t pos = 0;
        if (loom_pack(user.data() - lo, 1, t.get(), out.data(), n, &pos) != LOOM_OK ||
            out != packed)
          ++bad;
        pos = 0;
        std::fill(back.begin(), back.end(), 0);
        if (loom_unpack(packed.data(), n, &pos, back.data() - lo, 1, t.get()) != LOOM_OK)
          ++bad;
        std::vector<unsigned char> again = reference_pack(l, 1, back.data() - lo);
        if (again != packed) ++bad;
      }
    });
  }
  for (std::thread &th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

// A contiguous message from loom::streaming_from() bytes on packs and
// unpacks by non-temporal stores as its alternatives (on the baseline too:
// movnti), their head, registers and tail at several alignments.
TEST(Kernels, ContiguousStreamingGivesTheReferenceBytes) {
  const int64_t from = loom::streaming_from();
  if (from > (int64_t(64) << 20)) GTEST_SKIP() << "streaming from " << from << " bytes";
  for (uint64_t seed : {1, 22, 40}) {  // stream phases 1, 22, 40 bytes past a line
    const TypeSpecPtr spec = contig(from / 8 + 5 + (int64_t)seed, prim(LOOM_DOUBLE));
    const std::string e = check({spec, true, true}, seed, false);
    EXPECT_EQ(e, "") << describe(*spec);
  }
}

// The streaming alternatives start at a quarter of the last-level cache
// (src/core/cache_size.hpp): the size read from sysfs, where it lists
// caches, is the largest unified one's ("32768K" -> 32 MiB).
TEST(Kernels, LastLevelCacheSizeIsTheLargestUnifiedCache) {
  const int64_t llc = loom::last_level_cache_bytes();
  EXPECT_EQ(loom_last_level_cache_bytes(), (size_t)llc);  // the C API's answer
  EXPECT_GE(llc, int64_t(256) << 10);
  EXPECT_LE(llc, int64_t(64) << 30);
  int64_t largest = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::FILE *type = std::fopen((dir + "type").c_str(), "r");
    std::FILE *size = std::fopen((dir + "size").c_str(), "r");
    char t[32] = {}, unit = 0;
    long long v = 0;
    if (type && size && std::fscanf(type, "%31s", t) == 1 && std::string(t) == "Unified" &&
        std::fscanf(size, "%lld%c", &v, &unit) >= 1)
      largest = std::max<int64_t>(largest, unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v);
    if (type) std::fclose(type);
    if (size) std::fclose(size);
  }
  if (largest == 0) GTEST_SKIP() << "no unified cache in sysfs; sysconf's size used: " << llc;
  EXPECT_EQ(llc, largest);
}
