// A timed choice between two ways of moving a message: see timed_choice.hpp.
#include "timed_choice.hpp"

#include <algorithm>

namespace loom {

TimedChoice::Call TimedChoice::plan() {
  std::lock_guard<std::mutex> g(mu_);
  const uint64_t k = calls_++;
  Call c;
  if (k < 2 * kTrials) {  // alt, base, ... or pairs: alt, alt, base, base, ...
    c.alt = (pairs_ ? k / 2 : k) % 2 == 0;
  } else if (verdict_ == kUndecided) {  // other callers' trials still run
    c.alt = false;
  } else {
    c.alt = verdict_ == kAlt;
    if (probe_left_ == 0 && k >= next_probe_) {
      probe_left_ = probe_calls(verdict_);
      ++probes_;
      next_probe_ = UINT64_MAX;  // one probe at a time: record() sets the next
    }
    if (probe_left_ > 0) {
      c.alt = !c.alt;
      c.probe = --probe_left_ == 0;  // the probe's second call is its sample
    }
  }
  c.warm = pairs_ && k > 0 && c.alt != last_alt_;
  last_alt_ = c.alt;
  return c;
}

uint32_t TimedChoice::probe_calls(Verdict v) const { return pairs_ && v == kAlt ? 2 : 1; }

TimedChoice::Verdict TimedChoice::faster(double alt, double base) const {
  if (tie_ == Tie::kKeep && verdict_ == kAlt) return base <= 0.95 * alt ? kBase : kAlt;
  return alt <= 0.95 * base ? kAlt : kBase;
}

double TimedChoice::median(int side) const {
  double v[kWindow];
  const size_t n = (size_t)std::min<uint64_t>(samples_[side], kWindow);
  std::copy(window_[side], window_[side] + n, v);
  std::nth_element(v, v + n / 2, v + n);
  return v[n / 2];
}

void TimedChoice::record(Call c, double per_byte) {
  std::lock_guard<std::mutex> g(mu_);
  if (c.warm && !c.probe) return;
  const int side = c.alt;
  window_[side][samples_[side]++ % kWindow] = per_byte;
  if (samples_[0] < kTrials / 2 || samples_[1] < kTrials / 2) return;
  const Verdict was = verdict_;
  verdict_ = faster(median(1), median(0));
  if (verdict_ != was) {
    gap_ = kProbeFirst;
  } else if (c.probe) {
    // A probe that alone would have won is repeated soon (it takes a
    // majority of the other side's window to change the verdict); one
    // that lost waits twice as long as the last, and long enough that
    // what it lost is at most 1/kProbeShare of the calls until the next.
    const Verdict alone = c.alt ? faster(per_byte, median(0)) : faster(median(1), per_byte);
    if (alone != verdict_) {
      gap_ = kProbeFirst;
    } else {
      gap_ = std::min(2 * gap_, kProbeMax);
      // Per call, in calls.  A probe can lose while up to 5% faster (lost
      // < 0: nothing to pay back), and one of infinite time over another
      // makes NaN: both count as 0.
      const double lost = per_byte / median(verdict_ == kAlt) - 1;
      const double share = lost > 0 ? lost * (double)probe_calls(verdict_) * kProbeShare : 0;
      next_probe_ = calls_ + std::max<uint64_t>(gap_, (uint64_t)std::min(share, 1e9));
      return;
    }
  } else {
    return;  // an ordinary call that changed nothing
  }
  next_probe_ = calls_ + gap_;
}

TimedChoice::Verdict TimedChoice::verdict() const {
  std::lock_guard<std::mutex> g(mu_);
  return verdict_;
}

uint64_t TimedChoice::calls() const {
  std::lock_guard<std::mutex> g(mu_);
  return calls_;
}

uint64_t TimedChoice::probes() const {
  std::lock_guard<std::mutex> g(mu_);
  return probes_;
}

}  // namespace loom
