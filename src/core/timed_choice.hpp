// A choice between two ways of moving the same (type, count) in one
// direction, decided from the program's own timed calls: the base way, or
// an alternative.  Two choices use it:
//
//   - several threads against one (parallel.cpp; the alternative is
//     several, taken only when at least 5% faster: Tie::kBase);
//   - a plan root's alternative kernel against its base kernel
//     (kernels.cpp, capi.cpp): layouts where which loop shape wins depends
//     on the machine, measured 20% to 2x apart either way (the verdict
//     changes when the other side is 5% faster: Tie::kKeep).
//
// The winner is a property of the layout and the machine, not of the size
// alone, and on a shared or virtual machine it changes while the program
// runs: a runner whose core the host takes away while it holds a chunk
// makes the whole message wait (a 4 MiB face that packs 2x faster on two
// threads packed 0.7-0.8x as fast for minutes at a time on the 2-core
// development VM).  A verdict taken once would keep the wrong side for the
// rest of the run, so every call is timed:
//
//   - the first 2 kTrials calls alternate pairs, alternative and base;
//   - then each call takes the side whose median over its last kWindow
//     samples is faster, by at least 5% (Tie below), so a side that slows
//     down for good loses within a few calls, and a side whose first calls
//     after other work find cold caches does not (a benchmark that
//     alternates contenders, a program that computes between messages);
//   - the other side is tried again now and then (a probe): kProbeFirst
//     calls after the verdict changes or a probe wins, and after a probe
//     that loses twice as long as the last time, up to kProbeMax calls,
//     and at least so long that what the probe lost is 1/kProbeShare of
//     the calls until the next (several threads can lose milliseconds on
//     one call when the host takes a runner's core).  A phase that ends is
//     noticed within kProbeMax calls where probes are cheap and confirmed
//     kProbeFirst later; a stable verdict costs at most a few calls in
//     kProbeMax on the slower side.
//
// A call on the other side than the call before it is not a sample (the
// first of a pair, the first after a probe): it finds the buffers in the
// other side's caches.  On the development VM one thread packing a 4 MiB
// message just packed by two took twice its usual time, half its lines
// sitting dirty in the other core's cache, while two threads after one
// lost ~5%.  So a probe of the base is two calls, the second its sample,
// and a probe of the alternative is one; compared with the other side's
// warm calls, cold samples would keep whichever side ran last.  Two
// kernels of one thread find the bytes where the other left them: there
// every call is a sample and a probe one call (Cache::kSameCore).
//
// Invariant: a call runs the side the state gave it (plan()) and reports
// that side's time (record()); several callers may interleave.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>

namespace loom {

class TimedChoice {
 public:
  /// What a difference of less than 5% between the sides' medians decides.
  ///   - kBase: the base.  The alternative is taken only while at least 5%
  ///     faster: several threads hold a second core, for nothing unless
  ///     they gain.
  ///   - kKeep: the verdict already held (the base before the first).  The
  ///     verdict changes only when the other side is at least 5% faster:
  ///     two loop shapes of one thread cost the same to run, and with
  ///     kBase an alternative 6% faster kept losing its verdict to its own
  ///     samples' noise (NAS MG x unpacking, 16 Ki doubles 2064 bytes
  ///     apart, on the Intel VM: the program ran as fast as the base,
  ///     2511-2575 MB/s, against 2672-2700 for the alternative alone).
  enum class Tie { kBase, kKeep };
  /// Where a call finds the buffers after a call on the other side.
  ///   - kOtherCore: in another core's cache (several threads against
  ///     one): a side's first call after the other side's is not a
  ///     sample; trials alternate pairs and a probe of the base takes two
  ///     calls (above).
  ///   - kSameCore: where they were (two kernels of one thread, the same
  ///     bytes): every call is a sample; trials alternate single calls and
  ///     a probe is one call.  Probes of a base 1.4x slower (NAS MG x
  ///     packing, Intel VM) took 3-5% of a program's calls, pairs
  ///     included, and its median call 1-8% over the alternative's.
  enum class Cache { kOtherCore, kSameCore };
  TimedChoice(Tie tie = Tie::kBase, Cache cache = Cache::kOtherCore)
      : tie_(tie), pairs_(cache == Cache::kOtherCore) {}

  static constexpr uint32_t kTrials = 6;
  static constexpr uint32_t kWindow = 7;
  static constexpr uint64_t kProbeFirst = 16;
  static constexpr uint64_t kProbeMax = 1024;
  static constexpr double kProbeShare = 64;

  /// One call's side.
  struct Call {
    bool alt = false;
    bool probe = false;  ///< a probe's sample
    bool warm = false;   ///< follows a call on the other side: not a sample
  };
  enum Verdict { kUndecided, kBase, kAlt };

  /// The side of the next call.
  Call plan();
  /// The time per packed byte that call took (any unit, the same for every
  /// call; +infinity for a call that failed, so that a verdict still comes).
  void record(Call c, double per_byte);

  Verdict verdict() const;
  uint64_t calls() const;   ///< calls planned
  uint64_t probes() const;  ///< probes planned

 private:
  double median(int side) const;  // of the window's samples so far
  uint32_t probe_calls(Verdict v) const;  // a probe's calls against verdict v
  /// The verdict for these times of the alternative and of the base, from
  /// the verdict held (Tie).
  Verdict faster(double alt, double base) const;

  const Tie tie_;
  const bool pairs_;  // Cache::kOtherCore
  mutable std::mutex mu_;
  uint64_t calls_ = 0, probes_ = 0;
  uint64_t next_probe_ = 0, gap_ = kProbeFirst;
  int probe_left_ = 0;        // calls of the running probe still to plan
  bool last_alt_ = false;     // the side of the last call planned
  Verdict verdict_ = kUndecided;
  double window_[2][kWindow] = {};  // [alt] last kWindow samples, a ring
  uint64_t samples_[2] = {};        // times recorded per side
};

/// Runs f, a call moving `bytes` on the side `call`, and records its time
/// per byte into `choice`; f returns a status whose value-initialised value
/// (LOOM_OK) means success, any other counts as the slowest.
template <class F>
auto timed(TimedChoice &choice, TimedChoice::Call call, size_t bytes, F f) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto s = f();
  const double ns = (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - t0).count();
  choice.record(call, s == decltype(s){} ? ns / (double)bytes
                                         : std::numeric_limits<double>::infinity());
  return s;
}

}  // namespace loom
