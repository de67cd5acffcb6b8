// PageArena: first fit over a bitmap of pages.
#include "page_arena.hpp"

namespace loom {
namespace xfer {

PageArena::PageArena(size_t bytes) : pages_(bytes / kPage), used_((pages_ + 63) / 64, 0) {}

void PageArena::mark(size_t first, size_t n, bool on) {
  for (size_t p = first; p < first + n; ++p) {
    const uint64_t bit = uint64_t(1) << (p % 64);
    used_[p / 64] = on ? used_[p / 64] | bit : used_[p / 64] & ~bit;
  }
}

size_t PageArena::take(size_t bytes) {
  const size_t want = pages_for(bytes);
  std::lock_guard<std::mutex> g(mu_);
  if (want > pages_ - held_) return kNone;
  size_t run = 0;
  for (size_t p = 0; p < pages_;) {
    if (p % 64 == 0 && used_[p / 64] == ~uint64_t(0)) {  // a full word: skip it
      run = 0;
      p += 64;
      continue;
    }
    run = used(p) ? 0 : run + 1;
    ++p;
    if (run == want) {
      mark(p - want, want, true);
      held_ += want;
      return (p - want) * kPage;
    }
  }
  return kNone;
}

void PageArena::give(size_t off, size_t bytes) {
  const size_t n = pages_for(bytes);
  std::lock_guard<std::mutex> g(mu_);
  if (off % kPage != 0 || off / kPage + n > pages_) return;  // not ours
  mark(off / kPage, n, false);
  held_ -= n;
}

size_t PageArena::held() const {
  std::lock_guard<std::mutex> g(mu_);
  return held_;
}

}  // namespace xfer
}  // namespace loom
