// The staging pool (src/xfer, no MPI): sizes and alignment, reuse, the two
// bounds on idle memory, buffers beyond the largest class, and concurrent
// acquire/release from several threads, size classes, guard pages.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <unistd.h>

#include "staging_pool.hpp"

using loom::xfer::Buffer;
using loom::xfer::StagingPool;

namespace {

int g_fail = 0;
#define CHECK(c)                                                   \
  do {                                                             \
    if (!(c)) {                                                    \
      ++g_fail;                                                    \
      std::printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__, #c);    \
    }                                                              \
  } while (0)

void basics() {
  StagingPool::Limits lim;
  lim.max_pooled_buffer = 1 << 20;
  lim.max_cached_bytes = 3 << 20;
  lim.per_class = 2;
  lim.per_class_bytes = 0;  // the count bound alone (idle_per_class() checks the byte bound)
  StagingPool p(lim);
  for (size_t n : {size_t(0), size_t(1), size_t(255), size_t(256), size_t(257),
                   size_t(100000), size_t(1) << 20}) {
    Buffer b = p.acquire(n);
    CHECK(b.data && b.capacity >= n && b.cls >= 0);
    CHECK((reinterpret_cast<uintptr_t>(b.data) & 63) == 0);
    std::memset(b.data, 0x5A, b.capacity);  // usable to its capacity (ASan)
    p.release(b);
    CHECK(!b.data && b.capacity == 0);
  }
  // Reuse: the same buffer comes back.
  Buffer a = p.acquire(5000);
  char *first = a.data;
  p.release(a);
  uint64_t hits = p.stats().hits;
  Buffer b = p.acquire(4097);  // same class (8 KiB)
  CHECK(b.data == first && p.stats().hits == hits + 1);
  p.release(b);
  // Beyond the largest class: a buffer of its own, freed on release.
  uint64_t over = p.stats().oversize;
  Buffer big = p.acquire((1 << 20) + 1);
  CHECK(big.data && big.cls == -1 && p.stats().oversize == over + 1);
  std::memset(big.data, 1, big.capacity);
  size_t cached = p.stats().cached_bytes;
  p.release(big);
  CHECK(p.stats().cached_bytes == cached);
  // per_class bound: only two idle buffers of one class are kept.
  p.trim();
  Buffer x[4];
  for (auto &e : x) e = p.acquire(1000);
  for (auto &e : x) p.release(e);
  CHECK(p.stats().cached_bytes == 2 * 1024);
  // Byte bound: 1 MiB buffers, at most 3 MiB idle.
  p.trim();
  Buffer y[2][2];
  for (auto &r : y)
    for (auto &e : r) e = p.acquire(1 << 20);
  Buffer z[2];
  for (auto &e : z) e = p.acquire(512 << 10);
  for (auto &r : y)
    for (auto &e : r) p.release(e);
  for (auto &e : z) p.release(e);
  CHECK(p.stats().cached_bytes <= size_t(3) << 20);
  // Releasing a cleared buffer is harmless.
  Buffer none;
  p.release(none);
}

// Idle buffers per class: per_class_bytes of them, never fewer than
// per_class: a window of many small messages keeps all its buffers.
void idle_per_class() {
  StagingPool::Limits lim;
  lim.per_class = 2;
  lim.per_class_bytes = 8 << 10;
  StagingPool p(lim);
  Buffer x[12];
  for (auto &e : x) e = p.acquire(1000);  // 1 KiB class: 8 kept
  for (auto &e : x) p.release(e);
  CHECK(p.stats().cached_bytes == 8 * 1024);
  p.trim();
  for (auto &e : x) e = p.acquire(8000);  // 8 KiB class: per_class (2) kept
  for (auto &e : x) p.release(e);
  CHECK(p.stats().cached_bytes == 2 * 8192);
  p.trim();
  // The default keeps a window of 1000 one-KiB messages.
  StagingPool d;
  std::vector<Buffer> w(1000);
  for (auto &e : w) e = d.acquire(1024);
  uint64_t misses = d.stats().misses;
  for (auto &e : w) d.release(e);
  for (auto &e : w) e = d.acquire(1024);
  CHECK(d.stats().misses == misses);
  for (auto &e : w) d.release(e);
}

// The class of a request: the smallest power of two that holds it, from
// 256 bytes; every buffer acquire() hands out is of that class.
void classes() {
  CHECK(StagingPool::class_of(0) == 8 && StagingPool::class_of(1) == 8);
  CHECK(StagingPool::class_of(256) == 8 && StagingPool::class_of(257) == 9);
  CHECK(StagingPool::class_of(4096) == 12 && StagingPool::class_of(4097) == 13);
  CHECK(StagingPool::class_of(size_t(1) << 30) == 30);
  CHECK(StagingPool::class_of((size_t(1) << 30) + 1) == StagingPool::kMaxShift);
  CHECK(StagingPool::class_of(~size_t(0)) == StagingPool::kMaxShift);
  StagingPool p;
  for (size_t n : {size_t(300), size_t(5000), size_t(70000)}) {
    Buffer b = p.acquire(n);
    CHECK(b.cls == StagingPool::class_of(n) && b.capacity == size_t(1) << b.cls);
    p.release(b);
  }
}

void threads() {
  StagingPool::Limits lim;
  lim.max_cached_bytes = 8 << 20;
  StagingPool p(lim);
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      uint64_t s = 88172645463325252ull + (uint64_t)t;
      std::vector<Buffer> held;
      for (int i = 0; i < 20000; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (held.size() < 8 && (s & 1)) {
          Buffer b = p.acquire((size_t)(s % 70000));
          if (!b.data) ++bad;
          // Owned exclusively: a stamp that must survive until release.
          std::memset(b.data, t + 1, 64);
          held.push_back(b);
        } else if (!held.empty()) {
          Buffer &b = held.back();
          for (int k = 0; k < 64; ++k)
            if (b.data[k] != (char)(t + 1)) ++bad;
          p.release(b);
          held.pop_back();
        }
      }
      for (auto &b : held) p.release(b);
    });
  for (auto &t : ts) t.join();
  CHECK(bad == 0);
  CHECK(p.stats().cached_bytes <= (size_t(8) << 20) + (size_t(1) << 20));
}

// Whether the byte at p can be read: write(2) from it fails with EFAULT
// where it cannot (no signal).
bool readable(const char *p) {
  static int fd[2] = {-1, -1};
  if (fd[0] < 0 && pipe(fd) != 0) return true;
  char c;
  const bool ok = write(fd[1], p, 1) == 1;
  if (ok && read(fd[0], &c, 1) != 1) return true;
  return ok;
}

// With guard pages, whatever was asked for (a fresh buffer, a cached one
// handed out again for another size, one beyond the pool) ends within 64
// bytes of an inaccessible page: a receive the system overfills faults
// there.  Every byte up to the guard is usable.
void guard_pages() {
  StagingPool::Limits lim;
  lim.max_pooled_buffer = 1 << 20;
  lim.guard_pages = true;
  StagingPool p(lim);
  for (int round = 0; round < 2; ++round)  // the second round takes cached buffers
    for (size_t n : {size_t(0), size_t(1), size_t(200), size_t(256), size_t(4095),
                     size_t(4096), size_t(5000), size_t(100000), size_t(3) << 20}) {
      Buffer b = p.acquire(n);
      CHECK(b.data && b.capacity >= n && b.capacity - n < 64);
      CHECK((reinterpret_cast<uintptr_t>(b.data) & 63) == 0);
      std::memset(b.data, 0x5A, b.capacity);
      CHECK(!readable(b.data + b.capacity));
      p.fit(b, n / 2);  // handed out again for fewer bytes
      CHECK(b.capacity >= n / 2 && b.capacity - n / 2 < 64 && !readable(b.data + b.capacity));
      std::memset(b.data, 0x5A, b.capacity);
      p.release(b);
    }
  p.trim();
}

}  // namespace

int main() {
  basics();
  idle_per_class();
  classes();
  threads();
  guard_pages();
  std::printf("xfer_pool: %s (%d failure%s)\n", g_fail ? "FAILED" : "passed", g_fail,
              g_fail == 1 ? "" : "s");
  return g_fail ? 1 : 0;
}
