// The automatic thread choice: see thread_choice.hpp.
#include "thread_choice.hpp"

#include <algorithm>

namespace loom {

ThreadChoice::Call ThreadChoice::plan() {
  std::lock_guard<std::mutex> g(mu_);
  const uint64_t k = calls_++;
  Call c;
  if (k < 2 * kTrials) {  // pairs: several, several, one, one, ...
    c.several = k / 2 % 2 == 0;
  } else if (verdict_ == kUndecided) {  // other callers' trials still run
    c.several = false;
  } else {
    c.several = verdict_ == kSeveral;
    if (probe_left_ == 0 && k >= next_probe_) {
      probe_left_ = probe_calls(verdict_);
      ++probes_;
      next_probe_ = UINT64_MAX;  // one probe at a time: record() sets the next
    }
    if (probe_left_ > 0) {
      c.several = !c.several;
      c.probe = --probe_left_ == 0;  // the probe's second call is its sample
    }
  }
  c.warm = k > 0 && c.several != last_several_;
  last_several_ = c.several;
  return c;
}

uint32_t ThreadChoice::probe_calls(Verdict v) { return v == kSeveral ? 2 : 1; }

ThreadChoice::Verdict ThreadChoice::faster(double several, double one) {
  return several <= 0.95 * one ? kSeveral : kOne;
}

double ThreadChoice::median(int side) const {
  double v[kWindow];
  const size_t n = (size_t)std::min<uint64_t>(samples_[side], kWindow);
  std::copy(window_[side], window_[side] + n, v);
  std::nth_element(v, v + n / 2, v + n);
  return v[n / 2];
}

void ThreadChoice::record(Call c, double per_byte) {
  std::lock_guard<std::mutex> g(mu_);
  if (c.warm && !c.probe) return;
  const int side = c.several;
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
    const Verdict alone = c.several ? faster(per_byte, median(0)) : faster(median(1), per_byte);
    if (alone != verdict_) {
      gap_ = kProbeFirst;
    } else {
      gap_ = std::min(2 * gap_, kProbeMax);
      // Per call, in calls.  A probe of several can lose while up to 5%
      // faster (lost < 0: nothing to pay back), and one of infinite time
      // over another makes NaN: both count as 0.
      const double lost = per_byte / median(verdict_ == kSeveral) - 1;
      const double share = lost > 0 ? lost * (double)probe_calls(verdict_) * kProbeShare : 0;
      next_probe_ = calls_ + std::max<uint64_t>(gap_, (uint64_t)std::min(share, 1e9));
      return;
    }
  } else {
    return;  // an ordinary call that changed nothing
  }
  next_probe_ = calls_ + gap_;
}

ThreadChoice::Verdict ThreadChoice::verdict() const {
  std::lock_guard<std::mutex> g(mu_);
  return verdict_;
}

uint64_t ThreadChoice::calls() const {
  std::lock_guard<std::mutex> g(mu_);
  return calls_;
}

uint64_t ThreadChoice::probes() const {
  std::lock_guard<std::mutex> g(mu_);
  return probes_;
}

}  // namespace loom
