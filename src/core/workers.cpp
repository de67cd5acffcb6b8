// The worker pool: see workers.hpp.
//
// Waking a sleeping thread costs a futex call on each side (tens of
// microseconds under a nested hypervisor), as much as a pack of a few
// hundred KiB.  So a pool thread that finished a message polls for the next
// one for a short while before it sleeps, and the caller polls for the
// pool threads' end before it sleeps: back-to-back messages (a halo
// exchange of several fields, a benchmark) pay no wake-ups.
#include "workers.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace loom {
namespace {

constexpr auto kPoll = std::chrono::microseconds(50);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls pred for up to kPoll; whether it became true.
template <class P>
bool poll(P pred) {
  const auto until = std::chrono::steady_clock::now() + kPoll;
  for (unsigned i = 0;; ++i) {
    if (pred()) return true;
    relax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return false;
  }
}

// A generation (one call) and its runner count in one word, so that a pool
// thread reads both at once: read apart, a thread that one call did not
// need could pair that call's generation with the next call's larger
// runner count, run the next call's work twice and count itself down
// twice, and the caller would return while a runner still used its stack.
constexpr unsigned kRunnerBits = 16;
constexpr uint64_t kRunnerMask = (uint64_t(1) << kRunnerBits) - 1;

struct Pool {
  std::mutex busy;  // one message at a time
  std::mutex mu;    // guards generation changes (for the sleepers) and start-up
  std::condition_variable wake, done;
  // Published by the caller before it stores `state` (release), read by
  // pool threads after they see the new state (acquire); unchanged until
  // every runner of the generation has counted itself down.
  const std::function<void(int)> *work = nullptr;
  // generation << kRunnerBits | runners of that generation (caller included).
  std::atomic<uint64_t> state{0};
  std::atomic<int> pending{0};  // pool threads still running the generation
  int threads = 0;              // pool threads started (under mu)

  // `seen`: the state current when the thread was started, so that it
  // never runs work older than itself.
  void loop(int id, uint64_t seen) {
    for (;;) {
      auto moved = [&] { return state.load(std::memory_order_acquire) != seen; };
      if (!poll(moved)) {
        std::unique_lock<std::mutex> g(mu);
        wake.wait(g, moved);
      }
      seen = state.load(std::memory_order_acquire);
      if ((uint64_t)id >= (seen & kRunnerMask)) continue;
      (*work)(id);
      if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> g(mu);  // the caller tests under mu: no lost wake-up
        done.notify_one();
      }
    }
  }

  // Starts pool threads until n - 1 exist (mu held); false if none could.
  bool grow(int n) {
    while (threads < n - 1) {
      try {
        std::thread(&Pool::loop, this, threads + 1, state.load()).detach();
      } catch (...) {
        return threads > 0;
      }
      ++threads;
    }
    return true;
  }
};

Pool *g_pool = new Pool;  // never destroyed: its threads outlive main

// A child of fork() has none of the parent's threads: it starts afresh
// (the parent's pool object is leaked in the child, never touched).
void after_fork_in_child() { g_pool = new Pool; }
const int g_atfork = pthread_atfork(nullptr, nullptr, after_fork_in_child);

}  // namespace

int hardware_threads() noexcept {
  // Read once: glibc reads /sys for it (an open, a read and a close, 5-10%
  // of a 4 MiB parallel pack on the development VM).
  static const int n = [] {
    const unsigned h = std::thread::hardware_concurrency();
    return h ? (int)h : 1;
  }();
  return n;
}

int run_parallel(int n, const std::function<void(int)> &work) noexcept {
  (void)g_atfork;
  Pool &p = *g_pool;
  std::unique_lock<std::mutex> busy(p.busy, std::try_to_lock);
  if (n <= 1 || !busy.owns_lock()) {
    work(0);
    return 1;
  }
  int runners;
  {
    std::lock_guard<std::mutex> g(p.mu);
    if (!p.grow(n)) {
      work(0);
      return 1;
    }
    runners = std::min(n, p.threads + 1);
    p.work = &work;
    p.pending.store(runners - 1, std::memory_order_relaxed);
    const uint64_t generation = (p.state.load(std::memory_order_relaxed) >> kRunnerBits) + 1;
    p.state.store(generation << kRunnerBits | (uint64_t)runners, std::memory_order_release);
  }
  p.wake.notify_all();  // no system call when every pool thread is polling
  work(0);
  auto finished = [&] { return p.pending.load(std::memory_order_acquire) == 0; };
  if (!poll(finished)) {
    std::unique_lock<std::mutex> g(p.mu);
    p.done.wait(g, finished);
  }
  return runners;
}

}  // namespace loom
