// IovPair in one process: batches obey the entry and byte limits, both
// lists of a batch cover the same stream bytes, and copying each batch as
// process_vm_readv would (remote list read as one stream into the local
// list) reproduces loom_unpack_range of the remote side's packed stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "iov_pair.hpp"
#include "layouts.hpp"
#include "run_seed.hpp"
#include "type_spec.hpp"

namespace loomtest {
namespace {

using loom::xfer::IovLimits;
using loom::xfer::IovPair;
using loom::xfer::Side;

size_t sum(const iovec *v, size_t n) {
  size_t s = 0;
  for (size_t i = 0; i < n; i++) s += v[i].iov_len;
  return s;
}

// What process_vm_readv does with one batch, within this process.
void copy_batch(const iovec *local, size_t nl, const iovec *remote, size_t nr) {
  size_t i = 0, io = 0;
  for (size_t j = 0; j < nr; j++)
    for (size_t jo = 0; jo < remote[j].iov_len;) {
      const size_t k = std::min(remote[j].iov_len - jo, local[i].iov_len - io);
      std::memcpy(static_cast<char *>(local[i].iov_base) + io,
                  static_cast<const char *>(remote[j].iov_base) + jo, k);
      jo += k, io += k;
      if (io == local[i].iov_len) i++, io = 0;
    }
  ASSERT_LE(i, nl);
}

struct Walked {
  size_t batches = 0, bytes = 0;
};

// Walks [off, off + len) from `remote` into `local` under `lim`, checking
// every batch.
Walked walk(const Side &local, const Side &remote, size_t off, size_t len, IovLimits lim) {
  Walked w;
  IovPair p;
  EXPECT_EQ(p.open(local, remote, off, len, lim), LOOM_OK);
  while (size_t b = p.next()) {
    w.batches++;
    w.bytes += b;
    EXPECT_GE(p.local_count(), 1u);
    EXPECT_LE(p.local_count(), lim.local);
    EXPECT_LE(p.remote_count(), lim.remote);
    EXPECT_LE(b, lim.bytes);
    EXPECT_EQ(sum(p.local(), p.local_count()), b);
    EXPECT_EQ(sum(p.remote(), p.remote_count()), b);
    copy_batch(p.local(), p.local_count(), p.remote(), p.remote_count());
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(p.left(), 0u);
  return w;
}

TEST(IovPair, RandomLayoutsAndLimits) {
  std::mt19937_64 rng(run_seed("IovPair.RandomLayoutsAndLimits"));
  for (int trial = 0; trial < 150 && !HasFailure(); trial++) {
    const RandomMessage msg(rng);
    const Type &rt = msg.type;
    const int64_t count = msg.count;
    const size_t total = msg.total;
    SCOPED_TRACE(describe(msg.spec));
    Type lt = scattered_bytes(total, rng);
    const uint64_t seed = rng(), lseed = rng();
    Message src(rt.get(), count, seed);
    const Bytes stream = peer_stream(rt.get(), count, seed);
    const size_t off = rng() % total, len = 1 + rng() % (total - off);
    IovLimits lim;
    lim.local = 1 + rng() % 8;
    lim.remote = 1 + rng() % 8;
    if (rng() % 2) lim.bytes = 1 + rng() % 64;
    Message want(lt.get(), 1, lseed), got(lt.get(), 1, lseed);
    ASSERT_EQ(loom_unpack_range(stream.data() + off, off, len, want.origin(), 1, lt.get()), LOOM_OK);
    Walked w = walk(Side{lt.get(), reinterpret_cast<uintptr_t>(got.origin()), 1},
                    Side{rt.get(), reinterpret_cast<uintptr_t>(src.origin()), count}, off, len, lim);
    EXPECT_EQ(w.bytes, len);
    EXPECT_EQ(got.buf.contents(), want.buf.contents());
    EXPECT_EQ(got.buf.guard_error(), "");
  }
}

TEST(IovPair, ContiguousSidesTakeOneEntry) {
  std::mt19937_64 rng(run_seed("IovPair.ContiguousSidesTakeOneEntry"));
  Type dense = committed(contig(1 << 16, prim(LOOM_DOUBLE)));
  Type strided = committed(vector(1 << 13, 8, 16, prim(LOOM_DOUBLE)));  // 8192 runs
  ASSERT_TRUE(dense && strided);
  Message a(dense.get(), 1, 1), b(strided.get(), 1, 2), c(dense.get(), 1, 3);
  const size_t n = loom_type_size(dense.get());
  const Side d1{dense.get(), reinterpret_cast<uintptr_t>(a.origin()), 1};
  const Side d2{dense.get(), reinterpret_cast<uintptr_t>(c.origin()), 1};
  const Side s{strided.get(), reinterpret_cast<uintptr_t>(b.origin()), 1};
  // Dense to dense: one batch of one entry each, whatever the range.
  const size_t off = rng() % n;
  EXPECT_EQ(walk(d1, d2, off, n - off, IovLimits()).batches, 1u);
  IovPair p;
  ASSERT_EQ(p.open(s, d1, 0, n), LOOM_OK);
  size_t batches = 0;
  while (p.next()) {
    batches++;
    EXPECT_EQ(p.remote_count(), 1u);
    EXPECT_EQ(p.local_count(), std::min<size_t>(IOV_MAX, 8192 - (batches - 1) * IOV_MAX));
  }
  EXPECT_EQ(batches, (8192 + IOV_MAX - 1) / IOV_MAX);
  // One remote entry per batch: one batch per remote run.
  IovLimits one;
  one.remote = 1;
  EXPECT_EQ(walk(d1, s, 0, n, one).batches, 8192u);
}

TEST(IovPair, Errors) {
  Type a = committed(contig(10, prim(LOOM_INT)));
  Type b = committed(contig(11, prim(LOOM_INT)));
  IovPair p;
  const Side sa{a.get(), 4096, 1}, sb{b.get(), 4096, 1};
  // Streams of different lengths: any range both hold.
  EXPECT_EQ(p.open(sa, sb, 0, 40), LOOM_OK);
  EXPECT_EQ(p.open(sb, sa, 0, 41), LOOM_ERR_RANGE);
  EXPECT_EQ(p.open(sa, sa, 0, 41), LOOM_ERR_RANGE);
  EXPECT_EQ(p.open(sa, sa, 41, 0), LOOM_ERR_RANGE);
  EXPECT_EQ(p.open(Side{nullptr, 4096, 1}, sa, 0, 4), LOOM_ERR_TYPE);
  EXPECT_EQ(p.open(Side{a.get(), 4096, -1}, sa, 0, 4), LOOM_ERR_COUNT);
  IovLimits none;
  none.local = 0;
  EXPECT_EQ(p.open(sa, sa, 0, 4, none), LOOM_ERR_ARG);
  EXPECT_EQ(p.next(), 0u);
  ASSERT_EQ(p.open(sa, sa, 40, 0), LOOM_OK);
  EXPECT_EQ(p.next(), 0u);
}

}  // namespace
}  // namespace loomtest
