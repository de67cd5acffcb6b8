// The CMA movers against a forked peer: for random sender layouts (decoded
// from the peer's own encoding) and random receiver layouts of the same
// size, every mover must leave the receiver's buffer exactly as
// loom_unpack_range of the sender's packed stream would, for random byte
// ranges, with gaps and guard zones untouched; so must the transfers the
// drop-in drives step by step (transfer.hpp: through a bounce, and reading
// a stream the sender publishes piece by piece).  Then batching past
// IOV_MAX and the failure classes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <random>

#include "cma.hpp"
#include "layouts.hpp"
#include "peer.hpp"
#include "transfer.hpp"
#include "run_seed.hpp"
#include "type_spec.hpp"

namespace loomtest {
namespace {

using loom::xfer::CmaResult;
using loom::xfer::CmaStatus;
using loom::xfer::Side;

Type decoded(const Bytes &layout) {
  loom_type t = nullptr;
  EXPECT_EQ(loom_layout_decode(layout.data(), layout.size(), &t), LOOM_OK);
  return Type(t);
}

Side side(loom_type t, const void *origin, int64_t count) {
  return Side{t, reinterpret_cast<uintptr_t>(origin), count};
}

enum class Mover {
  single_copy,
  per_block,
  from_packed,
  layout_bounced,
  stream_bounced,
  published,
  mapped
};
constexpr Mover kMovers[] = {Mover::single_copy,    Mover::per_block,      Mover::from_packed,
                             Mover::layout_bounced, Mover::stream_bounced, Mover::published,
                             Mover::mapped};
const char *name(Mover m) {
  switch (m) {
    case Mover::single_copy: return "single_copy";
    case Mover::per_block: return "per_block";
    case Mover::from_packed: return "from_packed";
    case Mover::layout_bounced: return "layout_bounced";
    case Mover::stream_bounced: return "stream_bounced";
    case Mover::published: return "published";
    default: return "mapped";
  }
}

// Drives t to its end as the drop-in does; on every blocked step the
// "sender" publishes a random further piece of its stream (published
// bytes only grow, and a step must never read past them: the rest of the
// peer's packed copy is there, so only the stepping shows it).
CmaResult drive(loom::xfer::Transfer &t, std::atomic<uint64_t> *published, size_t end,
                std::mt19937_64 &rng) {
  using loom::xfer::Step;
  Step s = t.start();
  int blocked = 0;
  while (s == Step::more || s == Step::blocked) {
    if (s == Step::blocked) {
      EXPECT_TRUE(published) << "blocked without a publisher";
      if (!published) break;
      EXPECT_LE(t.offset() + t.moved(), std::max<uint64_t>(t.offset(), published->load()))
          << "read past the published bytes";
      const uint64_t now = published->load();
      published->store(std::min<uint64_t>(end, now + 1 + rng() % (loom::xfer::kChunk / 2)));
      if (++blocked > 1 << 20) break;
    }
    s = t.step();
  }
  EXPECT_EQ(t.step(), s) << "a finished transfer changed state";
  if (s != Step::done) return t.error();
  CmaResult r;
  r.bytes = t.moved();
  return r;
}

// `stream`: the message's packed stream in this process (the mapped mover
// unpacks from it as a receiver does from a sender's shared arena).
CmaResult run(Mover m, const Side &local, const Peer &peer, const Side &remote, size_t off,
              size_t len, const Bytes &stream) {
  static loom::xfer::StagingPool pool;
  std::mt19937_64 rng(off * 31 + len);
  switch (m) {
    case Mover::single_copy: return loom::xfer::cma_single_copy(local, peer.pid(), remote, off, len);
    case Mover::per_block: return loom::xfer::cma_per_block(local, peer.pid(), remote, off, len);
    case Mover::from_packed:
      return loom::xfer::cma_from_packed(local, peer.pid(), peer.packed(), off, len);
    case Mover::layout_bounced: {
      loom::xfer::LayoutRead t(peer.pid(), remote, local, off, len, false, &pool);
      return drive(t, nullptr, 0, rng);
    }
    case Mover::stream_bounced: {
      loom::xfer::StreamRead t(peer.pid(), peer.packed(), nullptr, local, off, len, &pool);
      return drive(t, nullptr, 0, rng);
    }
    case Mover::published: {
      std::atomic<uint64_t> published{off > 0 ? rng() % off : 0};
      loom::xfer::StreamRead t(peer.pid(), peer.packed(), &published, local, off, len,
                               rng() % 2 ? &pool : nullptr);
      return drive(t, &published, off + len, rng);
    }
    default: {
      // Only the published bytes are there: the rest of the copy is poison.
      Bytes partial(stream.size(), 0xee);
      std::atomic<uint64_t> published{0};
      loom::xfer::MappedRead t((const char *)partial.data(), &published, local, off, len);
      using loom::xfer::Step;
      Step st = t.start();
      size_t have = 0;
      while (st == Step::more || st == Step::blocked) {
        if (st == Step::blocked) {
          const size_t to = std::min(off + len, have + 1 + rng() % (loom::xfer::kChunk / 2));
          std::copy(stream.begin() + have, stream.begin() + to, partial.begin() + have);
          have = to;
          published.store(to, std::memory_order_release);
        }
        st = t.step();
      }
      if (st != Step::done) return t.error();
      CmaResult r;
      r.bytes = t.moved();
      return r;
    }
  }
}

// Moves [off, off + len) with every mover into a fresh receiver buffer and
// compares it with the reference.
void check_range(int64_t rcount, const Peer &peer, loom_type lt, int64_t lcount,
                 const Bytes &stream, size_t off, size_t len, uint64_t seed) {
  Message want(lt, lcount, seed);
  ASSERT_EQ(loom_unpack_range(stream.data() + off, off, len, want.origin(), lcount, lt), LOOM_OK);
  Type remote = decoded(peer.layout());
  ASSERT_TRUE(remote);
  for (Mover m : kMovers) {
    SCOPED_TRACE(name(m));
    Message got(lt, lcount, seed);
    CmaResult r = run(m, side(lt, got.origin(), lcount), peer,
                      Side{remote.get(), peer.origin(), rcount}, off, len, stream);
    ASSERT_EQ(r.status, CmaStatus::ok) << loom::xfer::cma_status_name(r.status) << " errno " << r.error
                                      << " loom " << r.loom;
    EXPECT_EQ(r.bytes, len);
    EXPECT_EQ(got.buf.contents(), want.buf.contents()) << "range " << off << "+" << len;
    EXPECT_EQ(got.buf.guard_error(), "");
  }
}

// The receiver: the sender's own layout (when unpacking into it is
// defined) or scattered bytes of the same size.
Type receiver(const TypeSpecPtr &spec, loom_type sender, int64_t count, std::mt19937_64 &rng,
              int64_t *lcount) {
  if (rng() % 2 == 0 && !reference_overlaps(reference_layout(*spec), count)) {
    *lcount = count;
    return Type(loom_type_ref(sender));
  }
  *lcount = 1;
  return scattered_bytes(loom_type_size(sender) * count, rng);
}

TEST(Cma, RandomLayoutsMatchUnpack) {
  std::mt19937_64 rng(run_seed("Cma.RandomLayoutsMatchUnpack"));
  for (int trial = 0; trial < 40; trial++) {
    const RandomMessage msg(rng);
    const TypeSpecPtr &spec = msg.spec;
    const Type &st = msg.type;
    const int64_t count = msg.count;
    const size_t total = msg.total;
    SCOPED_TRACE(describe(spec) + " x" + std::to_string(count));
    const uint64_t seed = rng();
    Peer peer(st.get(), count, seed);
    ASSERT_GT(peer.pid(), 0);
    const Bytes stream = peer_stream(st.get(), count, seed);
    int64_t lcount;
    Type lt = receiver(spec, st.get(), count, rng, &lcount);
    ASSERT_TRUE(lt);
    check_range(count, peer, lt.get(), lcount, stream, 0, total, rng());
    for (int k = 0; k < 3; k++) {
      const size_t off = rng() % total, len = 1 + rng() % (total - off);
      check_range(count, peer, lt.get(), lcount, stream, off, len, rng());
    }
  }
}

TEST(Cma, BatchesPastIovMax) {
  // 5000 runs of 4 bytes on the sender, 3000+ scattered runs here: several
  // batches, each at the kernel's IOV_MAX.
  std::mt19937_64 rng(run_seed("Cma.BatchesPastIovMax"));
  Type st = committed(vector(5000, 1, 3, prim(LOOM_INT)));
  ASSERT_TRUE(st);
  ASSERT_GT(loom_type_num_runs(st.get()), 3000);
  const uint64_t seed = rng();
  Peer peer(st.get(), 1, seed);
  ASSERT_GT(peer.pid(), 0);
  const Bytes stream = peer_stream(st.get(), 1, seed);
  Type lt = scattered_bytes(stream.size(), rng);
  ASSERT_TRUE(lt);
  check_range(1, peer, lt.get(), 1, stream, 0, stream.size(), rng());
  check_range(1, peer, st.get(), 1, stream, 3, stream.size() - 10, rng());
}

TEST(Cma, Failures) {
  Type t = committed(vector(64, 2, 3, prim(LOOM_INT)));
  ASSERT_TRUE(t);
  Peer peer(t.get(), 1, 1);
  ASSERT_GT(peer.pid(), 0);
  Type remote = decoded(peer.layout());
  Message here(t.get(), 1, 2);
  const Side local = side(t.get(), here.origin(), 1);
  const Side there{remote.get(), peer.origin(), 1};
  const size_t n = loom_type_size(t.get());
  EXPECT_EQ(loom::xfer::cma_available(peer.pid(), peer.origin() + 4), CmaStatus::ok);
  // Addresses nothing maps, on either side.
  EXPECT_EQ(loom::xfer::cma_available(peer.pid(), 16), CmaStatus::fault);
  const Side nowhere{remote.get(), 4096, 1};
  EXPECT_EQ(loom::xfer::cma_single_copy(local, peer.pid(), nowhere, 0, n).status, CmaStatus::fault);
  EXPECT_EQ(loom::xfer::cma_single_copy(Side{t.get(), 4096, 1}, peer.pid(), there, 0, n).status,
            CmaStatus::fault);
  // Unusable arguments.
  CmaResult r = loom::xfer::cma_single_copy(local, peer.pid(), there, 1, n);
  EXPECT_EQ(r.status, CmaStatus::invalid);
  EXPECT_EQ(r.loom, LOOM_ERR_RANGE);
  r = loom::xfer::cma_per_block(local, peer.pid(), Side{remote.get(), peer.origin(), 2}, 0,
                                n + 1);
  EXPECT_EQ(r.status, CmaStatus::invalid);
  EXPECT_EQ(r.loom, LOOM_ERR_RANGE);
  // The peer exits: its pid names no process.
  const pid_t pid = peer.pid();
  peer.finish();
  EXPECT_EQ(loom::xfer::cma_available(pid, there.base), CmaStatus::gone);
  r = loom::xfer::cma_single_copy(local, pid, there, 0, n);
  EXPECT_EQ(r.status, CmaStatus::gone);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(here.buf.guard_error(), "");
}

TEST(Cma, StatusClasses) {
  using loom::xfer::cma_classify;
  EXPECT_EQ(cma_classify(EPERM), CmaStatus::refused);
  EXPECT_EQ(cma_classify(EACCES), CmaStatus::refused);
  EXPECT_EQ(cma_classify(ESRCH), CmaStatus::gone);
  EXPECT_EQ(cma_classify(EFAULT), CmaStatus::fault);
  EXPECT_EQ(cma_classify(ENOSYS), CmaStatus::unsupported);
  EXPECT_EQ(cma_classify(EINVAL), CmaStatus::unsupported);
  EXPECT_EQ(cma_classify(ENOMEM), CmaStatus::failed);
}

}  // namespace
}  // namespace loomtest
