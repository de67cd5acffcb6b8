// A small pool of persistent threads for checkpoint-parallel pack and
// unpack: one message's disjoint ranges processed at once.
//
// Threads are made on first use and kept (starting one costs tens of
// microseconds, which is what a parallel pack of a few MiB saves).  A call
// that finds the pool busy (another thread's message) runs its work alone
// rather than wait: the work is written so that any number of runners,
// one included, completes it.
#pragma once
#include <functional>

namespace loom {

/// Runs work(i) on `n` runners at once, the caller being runner 0, and
/// returns when all have returned; with the pool busy or unable to start
/// threads, the caller runs work(0) alone.  Returns how many ran.  work
/// must not throw.
int run_parallel(int n, const std::function<void(int)> &work) noexcept;

/// The hardware threads of this machine (at least 1).
int hardware_threads() noexcept;

}  // namespace loom
