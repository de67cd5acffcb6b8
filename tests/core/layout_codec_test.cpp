// loom_layout_encode / decode / id: random types of every constructor
// round-trip to types whose cursors walk the same byte runs and produce the
// same pack streams; encodings are as large as the plan, not the data; and
// decoding garbage (random bytes, truncations, bit flips) fails cleanly or
// yields a type whose walks stay inside the bounds it declares.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "guarded.hpp"
#include "loom_handle.hpp"
#include "run_seed.hpp"

namespace loomtest {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes encode(loom_type t) {
  size_t len = 0;
  EXPECT_EQ(loom_layout_encode(t, nullptr, 0, &len), LOOM_ERR_TRUNCATE);
  Bytes b(len);
  size_t again = 0;
  EXPECT_EQ(loom_layout_encode(t, b.data(), b.size(), &again), LOOM_OK);
  EXPECT_EQ(again, len);
  return b;
}

Type decode(const Bytes &b) {
  loom_type t = nullptr;
  EXPECT_EQ(loom_layout_decode(b.data(), b.size(), &t), LOOM_OK);
  return Type(t);
}

// Every (address, length) the cursor of `count` instances at `base` emits,
// fetched in chunks of at most `max_entries`.
std::vector<std::pair<uintptr_t, size_t>> runs(loom_type t, int64_t count, const void *base,
                                               size_t max_entries) {
  std::vector<std::pair<uintptr_t, size_t>> out;
  loom_cursor c;
  if (loom_cursor_create(t, count, base, &c) != LOOM_OK) return out;
  std::vector<loom_iov> v(max_entries);
  size_t n, bytes;
  do {
    loom_cursor_iov(c, v.data(), v.size(), SIZE_MAX, &n, &bytes);
    for (size_t i = 0; i < n; i++) out.push_back({reinterpret_cast<uintptr_t>(v[i].base), v[i].len});
  } while (bytes > 0);
  loom_cursor_free(c);
  return out;
}

// Bytes [lo, hi) around the origin that `count` instances touch.
void span(loom_type t, int64_t count, int64_t *lo, int64_t *hi) {
  int64_t lb, ext, tlb, text;
  loom_type_extent(t, &lb, &ext);
  loom_type_true_extent(t, &tlb, &text);
  const int64_t step = count > 0 ? (count - 1) * ext : 0;
  *lo = tlb + std::min<int64_t>(0, step);
  *hi = tlb + text + std::max<int64_t>(0, step);
}

// Stream bytes [off, off + len) of `count` instances of t over `origin`.
Bytes pack_range(loom_type t, int64_t count, const unsigned char *origin, size_t off, size_t len) {
  Bytes out(len);
  EXPECT_EQ(loom_pack_range(origin, count, t, off, len, out.data()), LOOM_OK);
  return out;
}

void expect_same_walks(loom_type a, loom_type b, int64_t count, std::mt19937_64 &rng) {
  const void *fake = reinterpret_cast<const void *>(uintptr_t(1) << 40);
  const size_t chunk = std::uniform_int_distribution<size_t>(1, 64)(rng);
  ASSERT_EQ(runs(a, count, fake, chunk), runs(b, count, fake, chunk));
  int64_t lo, hi;
  span(a, count, &lo, &hi);
  const size_t total = loom_type_size(a) * count;
  if (total == 0) return;
  Guarded buf(hi - lo, rng() % 64);
  buf.fill(rng());
  const unsigned char *origin = buf.data() - lo;
  const size_t off = std::uniform_int_distribution<size_t>(0, total - 1)(rng);
  const size_t len = std::uniform_int_distribution<size_t>(1, total - off)(rng);
  EXPECT_EQ(pack_range(a, count, origin, 0, total), pack_range(b, count, origin, 0, total));
  EXPECT_EQ(pack_range(a, count, origin, off, len), pack_range(b, count, origin, off, len));
}

TEST(Layout, RandomTypesRoundTrip) {
  std::mt19937_64 rng(run_seed("Layout.RandomTypesRoundTrip"));
  GenOptions opt;
  opt.wild_resize = true;
  for (int trial = 0; trial < 300; trial++) {
    TypeSpecPtr spec = random_spec(rng, 4, opt);
    Type t = committed(spec);
    ASSERT_TRUE(t) << describe(spec);
    Bytes e = encode(t.get());
    Type d = decode(e);
    ASSERT_TRUE(d) << describe(spec);
    SCOPED_TRACE(describe(spec));
    EXPECT_EQ(loom_type_size(d.get()), loom_type_size(t.get()));
    int64_t l1, e1, l2, e2;
    loom_type_extent(t.get(), &l1, &e1);
    loom_type_extent(d.get(), &l2, &e2);
    EXPECT_EQ(l1, l2);
    EXPECT_EQ(e1, e2);
    loom_type_true_extent(t.get(), &l1, &e1);
    loom_type_true_extent(d.get(), &l2, &e2);
    EXPECT_EQ(l1, l2);
    EXPECT_EQ(e1, e2);
    EXPECT_EQ(loom_type_is_contiguous(d.get()), loom_type_is_contiguous(t.get()));
    // The decoded plan is the same plan: it re-encodes to the same bytes.
    Bytes again = encode(d.get());
    EXPECT_EQ(again, e);
    EXPECT_EQ(loom_layout_id(again.data(), again.size()), loom_layout_id(e.data(), e.size()));
    for (int64_t count : {1, 2, 3}) expect_same_walks(t.get(), d.get(), count, rng);
  }
}

TEST(Layout, IdSeparatesLayouts) {
  Type a = committed(vector(1000, 1, 2, prim(LOOM_DOUBLE)));
  Type b = committed(vector(1000, 1, 3, prim(LOOM_DOUBLE)));
  Bytes ea = encode(a.get()), eb = encode(b.get());
  EXPECT_NE(ea, eb);
  EXPECT_NE(loom_layout_id(ea.data(), ea.size()), loom_layout_id(eb.data(), eb.size()));
  EXPECT_EQ(loom_layout_id(nullptr, 1), 0u);
}

TEST(Layout, EncodingIsPlanSized) {
  // 10^8 blocks: a strided loop, a few dozen bytes.
  Type huge = committed(vector(100000000, 1, 2, prim(LOOM_DOUBLE)));
  ASSERT_TRUE(huge);
  EXPECT_LT(encode(huge.get()).size(), 48u);
  // An irregular index: its arrays, a few bytes per block.
  std::vector<int64_t> bl, d;
  std::mt19937_64 rng(7);
  for (int64_t i = 0, at = 0; i < 5000; i++, at += 1 + rng() % 40) bl.push_back(1 + rng() % 7), d.push_back(at), at += bl.back();
  Type idx = committed(indexed(bl, d, prim(LOOM_INT)));
  ASSERT_TRUE(idx);
  const size_t n = encode(idx.get()).size();
  EXPECT_GT(n, 5000u);
  EXPECT_LT(n, 5000u * 6);
  // Shared children are written once: each level refers to the one under
  // it twice (one handle, as an application reuses a type), so a tree
  // encoding would double per level (2^25).
  Type deep = committed(vector(3, 1, 5, prim(LOOM_FLOAT)));
  for (int64_t level = 0; level < 25; level++) {
    const int64_t bl[2] = {1, 2}, d[2] = {0, 1000 + level};
    const loom_type kids[2] = {deep.get(), deep.get()};
    loom_type next;
    ASSERT_EQ(loom_type_struct(2, bl, d, kids, LOOM_BOUNDS_STANDARD, &next), LOOM_OK);
    deep.reset(next);
  }
  ASSERT_EQ(loom_type_commit(deep.get()), LOOM_OK);
  EXPECT_LT(encode(deep.get()).size(), 25u * 16);
  EXPECT_GT(loom_type_num_runs(deep.get()), int64_t(1) << 30);
}

TEST(Layout, Errors) {
  size_t len = 0;
  loom_type t = nullptr, raw = nullptr;
  EXPECT_EQ(loom_layout_encode(nullptr, nullptr, 0, &len), LOOM_ERR_TYPE);
  ASSERT_EQ(loom_type_primitive(LOOM_INT, &raw), LOOM_OK);
  EXPECT_EQ(loom_layout_encode(raw, nullptr, 0, &len), LOOM_ERR_TYPE);  // uncommitted
  ASSERT_EQ(loom_type_commit(raw), LOOM_OK);
  EXPECT_EQ(loom_layout_encode(raw, nullptr, 0, nullptr), LOOM_ERR_ARG);
  EXPECT_EQ(loom_layout_encode(raw, nullptr, 0, &len), LOOM_ERR_TRUNCATE);
  Bytes b(len, 0xEE);
  EXPECT_EQ(loom_layout_encode(raw, b.data(), len - 1, &len), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(b, Bytes(len, 0xEE)) << "wrote past a too-small buffer";
  EXPECT_EQ(loom_layout_encode(raw, nullptr, len, &len), LOOM_ERR_ARG);
  loom_type_free(raw);
  EXPECT_EQ(loom_layout_decode(nullptr, 0, nullptr), LOOM_ERR_ARG);
  EXPECT_EQ(loom_layout_decode(nullptr, 3, &t), LOOM_ERR_ARG);
  EXPECT_EQ(loom_layout_decode(b.data(), 0, &t), LOOM_ERR_ARG);
  Bytes trailing = b;
  trailing.push_back(0);
  EXPECT_EQ(loom_layout_decode(trailing.data(), trailing.size(), &t), LOOM_ERR_ARG);
  EXPECT_EQ(t, nullptr);
  // A plan deeper than the cap: each struct level adds one.
  TypeSpecPtr s = vector(2, 1, 2, prim(LOOM_BYTE));
  for (int level = 0; level <= LOOM_LAYOUT_MAX_DEPTH; level++)
    s = structure({1, 1}, {0, 100000 + level}, {s, prim(LOOM_BYTE)});
  Type deep = committed(s);
  ASSERT_TRUE(deep);
  EXPECT_EQ(loom_layout_encode(deep.get(), nullptr, 0, &len), LOOM_ERR_OVERFLOW);
}

// Exercises a type decoded from damaged input: whatever it declares, its
// walks must stay inside its true bounds (ASan checks the pack below).
void exercise(loom_type t, std::mt19937_64 &rng) {
  const int64_t size = loom_type_size(t);
  int64_t tlb, text;
  loom_type_true_extent(t, &tlb, &text);
  ASSERT_GE(text, 0);
  loom_cursor c;
  ASSERT_EQ(loom_cursor_create(t, 1, reinterpret_cast<void *>(uintptr_t(1) << 44), &c), LOOM_OK);
  loom_iov v[16];
  size_t n, bytes;
  if (size > 0) loom_cursor_seek(c, rng() % size);
  loom_cursor_iov(c, v, 16, SIZE_MAX, &n, &bytes);
  loom_cursor_free(c);
  if (size == 0 || text > (1 << 20)) return;
  Guarded buf(text);
  Bytes out(std::min<int64_t>(size, 1 << 16));
  ASSERT_EQ(loom_pack_range(buf.data() - tlb, 1, t, 0, out.size(), out.data()), LOOM_OK);
}

TEST(Layout, FuzzedInputFailsCleanly) {
  std::mt19937_64 rng(run_seed("Layout.FuzzedInputFailsCleanly"));
  std::vector<Bytes> seeds;
  for (int i = 0; i < 40; i++) {
    Type t = committed(random_spec(rng, 4));
    ASSERT_TRUE(t);
    seeds.push_back(encode(t.get()));
  }
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 20000; iter++) {
    Bytes b = seeds[rng() % seeds.size()];
    switch (iter % 4) {
      case 0: b.resize(rng() % (b.size() + 1)); break;                   // truncation
      case 1: b[rng() % b.size()] ^= uint8_t(1u << (rng() % 8)); break;  // bit flip
      case 2:                                                            // bytes overwritten
        for (int k = 0; k < 3; k++) b[rng() % b.size()] = uint8_t(rng());
        break;
      default:  // random bytes behind a valid header
        b.resize(3 + rng() % 64);
        for (size_t k = 3; k < b.size(); k++) b[k] = uint8_t(rng());
    }
    loom_type t = nullptr;
    const loom_status s = loom_layout_decode(b.data(), b.size(), &t);
    if (s != LOOM_OK) {
      ASSERT_EQ(s, LOOM_ERR_ARG);
      ASSERT_EQ(t, nullptr);
      rejected++;
      continue;
    }
    accepted++;
    Type owned(t);
    ASSERT_NO_FATAL_FAILURE(exercise(t, rng));
  }
  std::printf("fuzz: %d accepted, %d rejected\n", accepted, rejected);
  EXPECT_GT(rejected, 10000);
}

}  // namespace
}  // namespace loomtest
