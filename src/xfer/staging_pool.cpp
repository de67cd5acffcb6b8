// Staging buffers: power-of-two classes, bounded idle lists (see the header).
#include "staging_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace loom {
namespace xfer {
namespace {

constexpr size_t kAlign = 64;  // cache line: kernels may use aligned stores

size_t page_bytes() {
  static const size_t p = (size_t)sysconf(_SC_PAGESIZE);
  return p;
}

}  // namespace

size_t StagingPool::span(size_t bytes) const {
  const size_t a = lim_.guard_pages ? page_bytes() : kAlign;
  return bytes ? (bytes + a - 1) / a * a : a;
}

char *StagingPool::allocate(size_t bytes) const {
  const size_t n = span(bytes);
  if (!lim_.guard_pages) return static_cast<char *>(std::aligned_alloc(kAlign, n));
  void *m = mmap(nullptr, n + page_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  char *base = static_cast<char *>(m);
  if (mprotect(base + n, page_bytes(), PROT_NONE) != 0) {
    munmap(base, n + page_bytes());
    return nullptr;
  }
  return base;
}

void StagingPool::free_span(char *base, size_t n) const {
  if (lim_.guard_pages) munmap(base, n + page_bytes());
  else std::free(base);
}

void StagingPool::fit(Buffer &b, size_t bytes) const {
  if (!lim_.guard_pages || !b.data) return;
  char *const base = b.data - b.lead;
  const size_t n = b.capacity + b.lead;  // up to the guard
  const uintptr_t at = ((uintptr_t)(base + n) - std::min(bytes, n)) & ~uintptr_t(kAlign - 1);
  b.data = reinterpret_cast<char *>(at);
  b.lead = (size_t)(b.data - base);
  b.capacity = n - b.lead;
}

int StagingPool::class_of(size_t bytes) {
  if (bytes <= (size_t(1) << kMinShift)) return kMinShift;
  const int s = 64 - __builtin_clzll((unsigned long long)(bytes - 1));
  return s < kMaxShift ? s : kMaxShift;
}

StagingPool::StagingPool() : StagingPool(Limits()) {}

StagingPool::StagingPool(const Limits &limits) : lim_(limits) {
  if (lim_.max_pooled_buffer < (size_t(1) << kMinShift))
    lim_.max_pooled_buffer = size_t(1) << kMinShift;
  top_shift_ = kMinShift;
  while (top_shift_ < kMaxShift &&
         (size_t(1) << (top_shift_ + 1)) <= lim_.max_pooled_buffer)
    ++top_shift_;
  // The idle-slot arrays are allocated once here, so release() never
  // allocates.
  for (int s = kMinShift; s <= top_shift_; ++s) {
    const size_t by_bytes = lim_.per_class_bytes >> s;
    Class &c = classes_[s];
    c.cap = (unsigned)std::min<size_t>(kMaxIdle, std::max<size_t>(lim_.per_class, by_bytes));
    c.idle = new char *[c.cap ? c.cap : 1];
  }
}

StagingPool::~StagingPool() {
  trim();
  for (auto &c : classes_) delete[] c.idle;
}

Buffer StagingPool::acquire(size_t bytes) {
  Buffer b;
  int s = class_of(bytes);
  if (s > top_shift_ || (size_t(1) << s) < bytes) {
    // Beyond the pool: this message's own allocation.
    b.data = allocate(bytes);
    b.capacity = b.data ? span(bytes) : 0;
    b.cls = -1;
    oversize_.fetch_add(1, std::memory_order_relaxed);
    fit(b, bytes);
    return b;
  }
  size_t cap = size_t(1) << s;
  Class &c = classes_[s];
  {
    std::lock_guard<std::mutex> g(c.mu);
    if (c.n) {
      b.data = c.idle[--c.n];
      cached_.fetch_sub(cap, std::memory_order_relaxed);
    }
  }
  if (b.data) {
    hits_.fetch_add(1, std::memory_order_relaxed);
  } else {
    b.data = allocate(cap);
    misses_.fetch_add(1, std::memory_order_relaxed);
  }
  if (b.data) {
    b.capacity = span(cap);
    b.cls = s;
    fit(b, bytes);
  }
  return b;
}

void StagingPool::release(Buffer &b) {
  char *p = b.data - b.lead;  // what allocate() returned
  const size_t n = b.capacity + b.lead;
  int s = b.cls;
  const bool none = !b.data;
  b = Buffer();
  if (none) return;
  if (s >= kMinShift && s <= top_shift_) {
    size_t cap = size_t(1) << s;
    Class &c = classes_[s];
    std::lock_guard<std::mutex> g(c.mu);
    // The byte budget is checked under the class lock only, so it can be
    // overshot by one buffer per class under contention: still bounded.
    if (c.n < c.cap &&
        cached_.load(std::memory_order_relaxed) + cap <= lim_.max_cached_bytes) {
      c.idle[c.n++] = p;
      cached_.fetch_add(cap, std::memory_order_relaxed);
      return;
    }
  }
  free_span(p, n);
}

void StagingPool::trim() {
  for (int s = kMinShift; s <= top_shift_; ++s) {
    Class &c = classes_[s];
    std::lock_guard<std::mutex> g(c.mu);
    while (c.n) {
      free_span(c.idle[--c.n], span(size_t(1) << s));
      cached_.fetch_sub(size_t(1) << s, std::memory_order_relaxed);
    }
  }
}

StagingPool::Stats StagingPool::stats() const {
  Stats st;
  st.hits = hits_.load(std::memory_order_relaxed);
  st.misses = misses_.load(std::memory_order_relaxed);
  st.oversize = oversize_.load(std::memory_order_relaxed);
  st.cached_bytes = cached_.load(std::memory_order_relaxed);
  return st;
}

}  // namespace xfer
}  // namespace loom
