// The worker pool: see workers.hpp.
#include "workers.hpp"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace loom {
namespace {

struct Pool {
  std::mutex busy;  // one message at a time
  std::mutex mu;
  std::condition_variable wake, done;
  const std::function<void(int)> *work = nullptr;
  unsigned long generation = 0;
  int runners = 0;   // runners of the current generation (caller included)
  int pending = 0;   // pool threads still running it
  int threads = 0;   // pool threads started

  // `seen`: the generation current when the thread was started (under mu),
  // so that it never runs work older than itself.
  void loop(int id, unsigned long seen) {
    for (;;) {
      const std::function<void(int)> *w;
      {
        std::unique_lock<std::mutex> g(mu);
        wake.wait(g, [&] { return generation != seen && id < runners; });
        seen = generation;
        w = work;
      }
      (*w)(id);
      std::lock_guard<std::mutex> g(mu);
      if (--pending == 0) done.notify_one();
    }
  }

  // Starts pool threads until n - 1 exist (mu held); false if none could.
  bool grow(int n) {
    while (threads < n - 1) {
      try {
        std::thread(&Pool::loop, this, threads + 1, generation).detach();
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
  unsigned n = std::thread::hardware_concurrency();
  return n ? (int)n : 1;
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
    p.runners = runners;
    p.pending = runners - 1;
    ++p.generation;
  }
  p.wake.notify_all();
  work(0);
  std::unique_lock<std::mutex> g(p.mu);
  p.done.wait(g, [&] { return p.pending == 0; });
  return runners;
}

}  // namespace loom
