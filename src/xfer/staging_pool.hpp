// A bounded pool of staging buffers for packed messages (no MPI in here).
//
// Every non-contiguous message the drop-in moves goes through one staging
// buffer: packed into it before a send, received into it before an unpack.
// Allocating those per message would put malloc/free (and, for large
// buffers, mmap/munmap and page faults) on the critical path, so released
// buffers are kept in power-of-two size classes and handed out again.  The
// pool is bounded twice: per class at most `per_class_bytes` of idle
// buffers (but never fewer than `per_class` nor more than kMaxIdle buffers,
// so that a window of thousands of small messages recycles its buffers
// instead of allocating most of them), and at most `max_cached_bytes` idle
// bytes overall; buffers above
// `max_pooled_buffer` are allocated for the message and freed after it (a
// few large messages must not pin memory for the life of the program).
// Thread-safe: one small mutex per size class.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace loom {
namespace xfer {

struct Buffer {
  char *data = nullptr;  // 64-byte aligned; nullptr: none (or out of memory)
  size_t capacity = 0;   // usable bytes, at least what was asked for
  int cls = -1;          // size class; -1: outside the pool (freed on release)
  size_t lead = 0;       // bytes of the allocation before data (guard pages)
};

class StagingPool {
 public:
  struct Limits {
    // Large enough that the messages where staging costs most (MiBs, where
    // a fresh buffer costs a page fault per 4 KiB on every message) are
    // pooled; the idle total stays bounded by max_cached_bytes.
    size_t max_pooled_buffer = size_t(32) << 20;  // larger: allocate + free
    size_t max_cached_bytes = size_t(128) << 20;  // idle bytes kept overall
    unsigned per_class = 16;                     // idle buffers per class, at least
    size_t per_class_bytes = size_t(4) << 20;    // idle bytes per class, up to kMaxIdle
    // Every buffer ends at an inaccessible page, and the bytes asked for
    // end within 64 bytes of it, so that a receive into staging which the
    // system overfills faults there (a system's copy syscall returns an
    // error) instead of overwriting the heap: Open MPI 4.1.4 (vader's
    // single copy) writes a truncated message of more than its eager limit
    // whole into a contiguous receive buffer.  Buffers are then mapped
    // (mmap), at least a page and a guard page each.
    bool guard_pages = false;
  };

  StagingPool();
  explicit StagingPool(const Limits &limits);
  ~StagingPool();
  StagingPool(const StagingPool &) = delete;
  StagingPool &operator=(const StagingPool &) = delete;

  // A buffer of at least @p bytes (a zero-byte request still gets a small
  // valid buffer).  data is nullptr only when memory is exhausted.
  Buffer acquire(size_t bytes);
  // Places @p b, a buffer of this pool with capacity for @p bytes, for a
  // request of @p bytes: with guard pages, data moves so that the bytes
  // end within 64 bytes of the guard (a cached buffer handed out again);
  // otherwise nothing changes.
  void fit(Buffer &b, size_t bytes) const;
  // Returns @p b to the pool (or frees it) and clears it; a cleared buffer
  // may be released again harmlessly.
  void release(Buffer &b);
  // Frees every idle buffer.
  void trim();

  struct Stats {
    uint64_t hits = 0;      // served from an idle buffer
    uint64_t misses = 0;    // allocated for a pooled class
    uint64_t oversize = 0;  // allocated outside the pool
    size_t cached_bytes = 0;
  };
  Stats stats() const;

  static constexpr int kMinShift = 8;   // smallest class: 256 bytes
  static constexpr int kMaxShift = 30;  // classes never exceed 1 GiB
  static constexpr unsigned kMaxIdle = 4096;  // idle buffers per class, at most
  // The size class (log2 of its capacity) that serves @p bytes; kMaxShift
  // for anything larger (then too small: such requests are oversize).
  static int class_of(size_t bytes);

 private:
  struct Class {
    std::mutex mu;
    unsigned n = 0;
    unsigned cap = 0;       // idle slots (the limits' count for this class)
    char **idle = nullptr;  // cap slots, allocated once
  };
  char *allocate(size_t bytes) const;   // span(bytes) usable bytes (and the guard)
  void free_span(char *base, size_t span) const;
  size_t span(size_t bytes) const;      // usable bytes of an allocation for bytes
  Limits lim_;
  int top_shift_;  // largest pooled class
  Class classes_[kMaxShift + 1];
  std::atomic<size_t> cached_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, oversize_{0};
};

}  // namespace xfer
}  // namespace loom
