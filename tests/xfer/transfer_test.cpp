// The transfers' own contract (transfer.hpp), beyond the bytes they move
// (cma_test.cpp compares those): a sender's chunked pack equals
// loom_pack and publishes every chunk, and the state machine holds at its
// edges (nothing before start, nothing after cancel, a finished transfer
// stays finished, an empty one is done at once, a bounce goes back to its
// pool).
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "layouts.hpp"
#include "peer.hpp"
#include "run_seed.hpp"
#include "transfer.hpp"

namespace loomtest {
namespace {

using loom::xfer::Side;
using loom::xfer::Step;

Side side(loom_type t, const void *origin, int64_t count) {
  return Side{t, reinterpret_cast<uintptr_t>(origin), count};
}

TEST(Transfer, StreamPackMatchesPackAndPublishesEveryChunk) {
  std::mt19937_64 rng(run_seed("Transfer.StreamPackMatchesPackAndPublishesEveryChunk"));
  for (int trial = 0; trial < 40; trial++) {
    const RandomMessage msg(rng);
    SCOPED_TRACE(describe(msg.spec) + " x" + std::to_string(msg.count));
    Message m(msg.type.get(), msg.count, rng());
    Bytes want(msg.total), got(msg.total + 64, 0xa5);
    size_t pos = 0;
    ASSERT_EQ(loom_pack(m.origin(), msg.count, msg.type.get(), want.data(), want.size(), &pos),
              LOOM_OK);
    const size_t chunk = 1 + rng() % (msg.total + 1);
    std::atomic<uint64_t> published{0};
    loom::xfer::StreamPack t(side(msg.type.get(), m.origin(), msg.count), (char *)got.data(),
                             msg.total, chunk, &published);
    Step s = t.start();
    uint64_t last = 0;
    while (s == Step::more) {
      s = t.step();
      ASSERT_NE(s, Step::blocked);
      ASSERT_EQ(published.load(), t.moved());
      ASSERT_LE(t.moved() - last, chunk);
      last = t.moved();
    }
    ASSERT_EQ(s, Step::done);
    EXPECT_EQ(published.load(), msg.total);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
    for (size_t i = msg.total; i < got.size(); i++) ASSERT_EQ(got[i], 0xa5) << "past the stream";
  }
}

TEST(Transfer, StateMachineEdges) {
  Type t = committed(vector(512, 1, 2, prim(LOOM_INT)));  // 4-byte runs: a receiver bounces
  ASSERT_TRUE(t);
  Peer peer(t.get(), 1, 7);
  ASSERT_GT(peer.pid(), 0);
  Type remote(nullptr);
  {
    loom_type r = nullptr;
    ASSERT_EQ(loom_layout_decode(peer.layout().data(), peer.layout().size(), &r), LOOM_OK);
    remote = Type(r);
  }
  Message here(t.get(), 1, 8);
  const Side local = side(t.get(), here.origin(), 1);
  const Side there{remote.get(), peer.origin(), 1};
  const size_t n = loom_type_size(t.get());
  loom::xfer::StagingPool pool;

  {  // A step before start moves nothing.
    loom::xfer::LayoutRead r(peer.pid(), there, local, 0, n, false, &pool);
    EXPECT_EQ(r.step(), Step::failed);
    EXPECT_EQ(r.moved(), 0u);
  }
  {  // Empty: done at start.
    loom::xfer::LayoutRead r(peer.pid(), there, local, 0, 0, false, &pool);
    EXPECT_EQ(r.start(), Step::done);
    EXPECT_EQ(r.step(), Step::done);
  }
  {  // Cancelled midway: the bounce is back in the pool, later steps fail.
    loom::xfer::LayoutRead r(peer.pid(), there, local, 0, n, false, &pool);
    ASSERT_EQ(r.start(), Step::more);
    const auto before = pool.stats();
    r.cancel();
    EXPECT_GT(pool.stats().cached_bytes, before.cached_bytes) << "bounce not given back";
    EXPECT_EQ(r.step(), Step::failed);
  }
  {  // A stream nobody publishes blocks, and moves nothing.
    std::atomic<uint64_t> published{0};
    loom::xfer::StreamRead r(peer.pid(), peer.packed(), &published, local, 0, n, &pool);
    ASSERT_EQ(r.start(), Step::more);
    EXPECT_EQ(r.step(), Step::blocked);
    EXPECT_EQ(r.step(), Step::blocked);
    EXPECT_EQ(r.moved(), 0u);
    published.store(n);
    EXPECT_EQ(r.step(), Step::done);
    EXPECT_EQ(r.step(), Step::done);
    EXPECT_EQ(r.moved(), n);
  }
  // A peer gone midway: failed, with the reason, and it stays failed.
  const pid_t pid = peer.pid();
  peer.finish();
  loom::xfer::LayoutRead r(pid, there, local, 0, n, false, &pool);
  ASSERT_EQ(r.start(), Step::more);
  EXPECT_EQ(r.step(), Step::failed);
  EXPECT_EQ(r.error().status, loom::xfer::CmaStatus::gone);
  EXPECT_EQ(r.step(), Step::failed);
  EXPECT_EQ(here.buf.guard_error(), "");
}

}  // namespace
}  // namespace loomtest
