#include "failing_alloc.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace loomtest::oom {
namespace {

std::atomic<int64_t> g_countdown{0};  // 0: disarmed
std::atomic<bool> g_sticky{false};
std::atomic<int64_t> g_failed{0};
std::atomic<int64_t> g_live{0};

bool should_fail() {
  int64_t c = g_countdown.load(std::memory_order_relaxed);
  if (c == 0) return false;
  if (c > 1) {
    g_countdown.store(c - 1, std::memory_order_relaxed);
    return false;
  }
  if (!g_sticky.load(std::memory_order_relaxed)) g_countdown.store(0, std::memory_order_relaxed);
  g_failed.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void *allocate(std::size_t n, std::size_t align) {
  if (should_fail()) return nullptr;
  if (n == 0) n = 1;
  void *p = align > alignof(std::max_align_t)
                ? std::aligned_alloc(align, (n + align - 1) / align * align)
                : std::malloc(n);
  if (p) g_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void *allocate_or_throw(std::size_t n, std::size_t align) {
  void *p = allocate(n, align);
  if (!p) throw std::bad_alloc();
  return p;
}

void release(void *p) {
  if (!p) return;
  g_live.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

void arm(int64_t n, bool sticky) {
  g_failed.store(0);
  g_sticky.store(sticky);
  g_countdown.store(n);
}

int64_t disarm() {
  g_countdown.store(0);
  return g_failed.load();
}

int64_t live_blocks() { return g_live.load(); }

}  // namespace loomtest::oom

using loomtest::oom::allocate;
using loomtest::oom::allocate_or_throw;
using loomtest::oom::release;
constexpr std::size_t kPlain = alignof(std::max_align_t);

void *operator new(std::size_t n) { return allocate_or_throw(n, kPlain); }
void *operator new[](std::size_t n) { return allocate_or_throw(n, kPlain); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return allocate(n, kPlain); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return allocate(n, kPlain); }
void *operator new(std::size_t n, std::align_val_t a) { return allocate_or_throw(n, std::size_t(a)); }
void *operator new[](std::size_t n, std::align_val_t a) { return allocate_or_throw(n, std::size_t(a)); }
void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
  return allocate(n, std::size_t(a));
}
void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
  return allocate(n, std::size_t(a));
}
void operator delete(void *p) noexcept { release(p); }
void operator delete[](void *p) noexcept { release(p); }
void operator delete(void *p, std::size_t) noexcept { release(p); }
void operator delete[](void *p, std::size_t) noexcept { release(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { release(p); }
void operator delete(void *p, std::align_val_t) noexcept { release(p); }
void operator delete[](void *p, std::align_val_t) noexcept { release(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }
