// Checkpoint-parallel pack and unpack (the sPIN paper's RW-CP on CPU
// cores): a message's range is cut at checkpoint boundaries into chunks
// that runners take in any order from a shared counter.  A runner restores
// the checkpoint at its chunk's start, rebased onto the user's buffer, and
// when the next chunk it takes follows the one it finished, it simply goes
// on (its cursor is already there: the progressing checkpoint).  Chunks
// write disjoint ranges of the packed stream, or, unpacking, disjoint
// parts of the receive buffer (MPI forbids receive types that overlap).
#include <algorithm>
#include <atomic>
#include <vector>

#include "api_call.hpp"
#include "bounds.hpp"
#include "checkpoint_cache.hpp"
#include "cursor.hpp"
#include "type.hpp"
#include "workers.hpp"

namespace {

// Below this many packed bytes per runner a second runner costs more (its
// wake-up and a second pass over the plan's top levels) than it saves:
// measured with `loom bench pack --threads` (docs/benchmarks.md).
constexpr size_t kBytesPerRunner = size_t(1) << 20;
constexpr int kMaxRunners = 256;

// How many runners a range gets: the caller's count or the size's, at most
// one per chunk.
int runners(int threads, int64_t total, size_t offset, size_t len) {
  const int64_t interval = loom::checkpoint_interval(total);
  const int64_t chunks = (int64_t)(offset + len - 1) / interval - (int64_t)offset / interval + 1;
  const int n = threads ? std::min(threads, kMaxRunners) : loom_parallel_threads(len);
  return (int)std::min<int64_t>(n, chunks);
}

// One call's runners, and the checkpoints they start from.
//
// threads == 0 leaves the choice to Loom: where the size would give several
// runners, the (type, count)'s TimedChoice picks one or several from the
// program's own earlier calls, timed (timed_choice.hpp): they pay a
// wake-up and a restore per chunk, and where one core already streams at
// memory speed, or the data sits in the calling core's cache, or the host
// takes a runner's core away, several are slower than one.
struct Choice {
  int runners = 1;
  std::shared_ptr<const loom::CheckpointSet> set;  // when runners > 1, or timed
  loom::TimedChoice *timer = nullptr;              // time this call into it
  loom::TimedChoice::Call call;
  size_t len = 0;
};

Choice choose(int threads, loom_type t, int64_t count, int64_t total, size_t offset, size_t len,
              bool pack) {
  Choice c;
  c.runners = runners(threads, total, offset, len);
  if (c.runners <= 1) return c;
  c.set = loom::checkpoints_for(t, count);
  if (!c.set) c.runners = 1;
  if (!c.set || threads != 0) return c;
  c.timer = &c.set->choice[pack];
  c.call = c.timer->plan();
  c.len = len;
  if (!c.call.alt) c.runners = 1;
  return c;
}

// Runs f (a loom_status) and, when the choice is automatic, times it into
// the choice.
template <class F>
loom_status timed(const Choice &c, F f) {
  return c.timer ? loom::timed(*c.timer, c.call, c.len, f) : f();
}

// Moves stream bytes [offset, offset + len) on c.runners runners: arguments
// checked, len > 0.
loom_status run(bool pack, const void *userbuf, int64_t count, loom_type t, size_t offset,
                size_t len, void *stream, const Choice &c) {
  if (c.runners <= 1) {  // a plain seek and walk
    return loom::api_call([&] {
      loom::Cursor cur(loom::plan_for(t, count), userbuf);
      cur.seek((int64_t)offset);
      if (pack) cur.pack(static_cast<char *>(stream), (int64_t)len);
      else cur.unpack(static_cast<const char *>(stream), (int64_t)len);
      return LOOM_OK;
    });
  }
  const loom::CheckpointSet &set = *c.set;
  const int64_t interval = set.interval;
  const int64_t first = (int64_t)offset / interval;
  const int64_t last = (int64_t)(offset + len - 1) / interval;
  return loom::api_call([&] {
    // Every cursor exists before the first byte moves: a failure to
    // allocate leaves the buffers untouched.
    std::vector<loom::Cursor> cursors(c.runners, set.snaps[0]);
    std::atomic<int64_t> next{first};
    const int64_t end = (int64_t)(offset + len);
    std::function<void(int)> work = [&](int id) {
      loom::Cursor &cur = cursors[id];
      bool placed = false;
      for (int64_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) <= last;) {
        const int64_t lo = std::max<int64_t>((int64_t)offset, k * interval);
        const int64_t hi = std::min(end, (k + 1) * interval);
        if (!placed || cur.offset() != lo) {
          const loom::Cursor &snap = set.at_or_before(lo);
          cur.restore(snap);
          cur.rebase(userbuf);
          cur.skip(lo - snap.offset());
          placed = true;
        }
        char *at = static_cast<char *>(stream) + (lo - (int64_t)offset);
        if (pack) cur.pack(at, hi - lo);
        else cur.unpack(at, hi - lo);
      }
    };
    loom::run_parallel(c.runners, work);
    return LOOM_OK;
  });
}

loom_status range(bool pack, const void *userbuf, int64_t count, loom_type t, size_t offset,
                  size_t len, void *stream, int threads) {
  if (threads < 0) return LOOM_ERR_ARG;
  if (!t || !t->committed.load(std::memory_order_acquire)) return LOOM_ERR_TYPE;
  if (count < 0) return LOOM_ERR_COUNT;
  int64_t total;
  loom_status s = loom::message_bytes(t, count, &total);
  if (s != LOOM_OK) return s;
  if (offset > (uint64_t)total || len > (uint64_t)total - offset) return LOOM_ERR_RANGE;
  if (len == 0) return LOOM_OK;
  if (!userbuf || !stream) return LOOM_ERR_ARG;
  const Choice c = choose(threads, t, count, total, offset, len, pack);
  return timed(c, [&] { return run(pack, userbuf, count, t, offset, len, stream, c); });
}

// The checks of loom_pack and loom_unpack, in their order (threads first):
// LOOM_OK with *n the stream's length; nothing to move when it is 0.
loom_status check_whole(int threads, loom_type t, int64_t count, const size_t *position,
                        size_t size, const void *a, const void *b, int64_t *n) {
  if (threads < 0) return LOOM_ERR_ARG;
  if (!t || !t->committed.load(std::memory_order_acquire)) return LOOM_ERR_TYPE;
  if (count < 0) return LOOM_ERR_COUNT;
  loom_status s = loom::message_bytes(t, count, n);
  if (s != LOOM_OK) return s;
  if (!position || *position > size) return LOOM_ERR_ARG;
  if (*n == 0) return LOOM_OK;
  if (!a || !b) return LOOM_ERR_ARG;
  if ((uint64_t)*n > size - *position) return LOOM_ERR_TRUNCATE;
  return LOOM_OK;
}

// loom_pack_parallel / loom_unpack_parallel for threads != 1 (out of line:
// their one-thread call is a tail call).  `stream` holds `size` bytes.
__attribute__((noinline)) loom_status whole(bool pack, void *userbuf, int64_t count, loom_type t,
                                            void *stream, size_t size, size_t *position,
                                            int threads) {
  int64_t n;
  loom_status s = check_whole(threads, t, count, position, size, userbuf, stream, &n);
  if (s != LOOM_OK || n == 0) return s;
  const Choice c = choose(threads, t, count, n, 0, (size_t)n, pack);
  if (c.runners <= 1)  // the whole-message kernels
    return timed(c, [&] {
      return pack ? loom_pack(userbuf, count, t, stream, size, position)
                  : loom_unpack(stream, size, position, userbuf, count, t);
    });
  char *at = static_cast<char *>(stream) + *position;
  s = timed(c, [&] { return run(pack, userbuf, count, t, 0, (size_t)n, at, c); });
  if (s == LOOM_OK) *position += (size_t)n;
  return s;
}

}  // namespace

extern "C" {

int loom_parallel_threads(size_t bytes) {
  const size_t n = bytes / kBytesPerRunner;
  return (int)std::max<size_t>(1, std::min<size_t>(n, (size_t)loom::hardware_threads()));
}

loom_status loom_pack_range_parallel(const void *inbuf, int64_t count, loom_type t,
                                     size_t offset, size_t len, void *out, int threads) {
  return range(true, inbuf, count, t, offset, len, out, threads);
}

loom_status loom_unpack_range_parallel(const void *in, size_t offset, size_t len, void *outbuf,
                                       int64_t count, loom_type t, int threads) {
  return range(false, outbuf, count, t, offset, len, const_cast<void *>(in), threads);
}

loom_status loom_pack_parallel(const void *inbuf, int64_t count, loom_type t, void *outbuf,
                               size_t outsize, size_t *position, int threads) {
  // One thread asked for: the whole-message call itself (it checks the
  // same things in the same order), without the runners' bookkeeping,
  // which costs as much as packing a small message.
  if (threads == 1) return loom_pack(inbuf, count, t, outbuf, outsize, position);
  return whole(true, const_cast<void *>(inbuf), count, t, outbuf, outsize, position, threads);
}

loom_status loom_unpack_parallel(const void *inbuf, size_t insize, size_t *position,
                                 void *outbuf, int64_t count, loom_type t, int threads) {
  if (threads == 1) return loom_unpack(inbuf, insize, position, outbuf, count, t);
  return whole(false, outbuf, count, t, const_cast<void *>(inbuf), insize, position, threads);
}

size_t loom_checkpoint_cache_bytes(void) { return loom::checkpoint_cache_bytes(); }
size_t loom_checkpoint_cache_limit(void) { return loom::checkpoint_cache_limit(); }
void loom_set_checkpoint_cache_limit(size_t bytes) { loom::set_checkpoint_cache_limit(bytes); }

}  // extern "C"
