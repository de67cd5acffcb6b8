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

// How many runners a range gets: the caller's count or the automatic
// one, at most one per chunk.
int runners(int threads, int64_t total, size_t offset, size_t len) {
  const int64_t interval = loom::checkpoint_interval(total);
  const int64_t chunks = (int64_t)(offset + len - 1) / interval - (int64_t)offset / interval + 1;
  const int n = threads ? std::min(threads, kMaxRunners) : loom_parallel_threads(len);
  return (int)std::min<int64_t>(n, chunks);
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
  const int64_t interval = loom::checkpoint_interval(total);
  const int64_t first = (int64_t)offset / interval;
  const int64_t last = (int64_t)(offset + len - 1) / interval;
  const int n = runners(threads, total, offset, len);
  std::shared_ptr<const loom::CheckpointSet> set;
  if (n > 1) set = loom::checkpoints_for(t, count);
  if (!set) {  // one runner, or no checkpoints: a plain seek and walk
    return loom::api_call([&] {
      loom::Cursor cur(loom::plan_for(t, count), userbuf);
      cur.seek((int64_t)offset);
      if (pack) cur.pack(static_cast<char *>(stream), (int64_t)len);
      else cur.unpack(static_cast<const char *>(stream), (int64_t)len);
      return LOOM_OK;
    });
  }
  return loom::api_call([&] {
    // Every cursor exists before the first byte moves: a failure to
    // allocate leaves the buffers untouched.
    std::vector<loom::Cursor> cursors(n, set->snaps[0]);
    std::atomic<int64_t> next{first};
    const int64_t end = (int64_t)(offset + len);
    std::function<void(int)> work = [&](int id) {
      loom::Cursor &c = cursors[id];
      bool placed = false;
      for (int64_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) <= last;) {
        const int64_t lo = std::max<int64_t>((int64_t)offset, k * interval);
        const int64_t hi = std::min(end, (k + 1) * interval);
        if (!placed || c.offset() != lo) {
          const loom::Cursor &snap = set->at_or_before(lo);
          c.restore(snap);
          c.rebase(userbuf);
          c.skip(lo - snap.offset());
          placed = true;
        }
        char *at = static_cast<char *>(stream) + (lo - (int64_t)offset);
        if (pack) c.pack(at, hi - lo);
        else c.unpack(at, hi - lo);
      }
    };
    loom::run_parallel(n, work);
    return LOOM_OK;
  });
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
  int64_t n;
  loom_status s = check_whole(threads, t, count, position, outsize, inbuf, outbuf, &n);
  if (s != LOOM_OK || n == 0) return s;
  if (runners(threads, n, 0, (size_t)n) <= 1)  // the whole-message kernels
    return loom_pack(inbuf, count, t, outbuf, outsize, position);
  s = range(true, inbuf, count, t, 0, (size_t)n, static_cast<char *>(outbuf) + *position,
            threads);
  if (s == LOOM_OK) *position += (size_t)n;
  return s;
}

loom_status loom_unpack_parallel(const void *inbuf, size_t insize, size_t *position,
                                 void *outbuf, int64_t count, loom_type t, int threads) {
  int64_t n;
  loom_status s = check_whole(threads, t, count, position, insize, inbuf, outbuf, &n);
  if (s != LOOM_OK || n == 0) return s;
  if (runners(threads, n, 0, (size_t)n) <= 1)
    return loom_unpack(inbuf, insize, position, outbuf, count, t);
  s = range(false, outbuf, count, t, 0, (size_t)n,
            const_cast<char *>(static_cast<const char *>(inbuf)) + *position, threads);
  if (s == LOOM_OK) *position += (size_t)n;
  return s;
}

size_t loom_checkpoint_cache_bytes(void) { return loom::checkpoint_cache_bytes(); }
size_t loom_checkpoint_cache_limit(void) { return loom::checkpoint_cache_limit(); }
void loom_set_checkpoint_cache_limit(size_t bytes) { loom::set_checkpoint_cache_limit(bytes); }

}  // extern "C"
