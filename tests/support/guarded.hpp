// A byte buffer with canary zones on both sides, so a test can prove that an
// operation wrote nothing outside the range it was given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace loomtest {

class Guarded {
 public:
  static constexpr size_t kGuard = 64;

  // `phase` picks data() % 64, so callers control the alignment of the
  // buffer origin (misaligned origins catch typed loads that assume it).
  explicit Guarded(size_t n, size_t phase = 0) : n_(n) {
    store_.resize(n + 2 * kGuard + 128);
    for (size_t i = 0; i < store_.size(); ++i) store_[i] = canary(i);
    uintptr_t p = reinterpret_cast<uintptr_t>(store_.data()) + kGuard;
    p = (p + 63) / 64 * 64 + (phase % 64);
    off_ = p - reinterpret_cast<uintptr_t>(store_.data());
  }

  unsigned char *data() { return store_.data() + off_; }
  const unsigned char *data() const { return store_.data() + off_; }
  size_t size() const { return n_; }

  // Fills the inside with a pattern derived from `seed`.
  void fill(uint64_t seed) {
    for (size_t i = 0; i < n_; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      data()[i] = static_cast<unsigned char>(seed >> 56);
    }
  }

  std::vector<unsigned char> contents() const {
    return std::vector<unsigned char>(data(), data() + n_);
  }

  // "" when every byte outside [data, data+size) still holds its canary.
  // The first write outside the buffer ("" when none); with
  // `before_only`, the first before it.
  std::string guard_error(bool before_only = false) const {
    for (size_t i = 0; i < (before_only ? off_ : store_.size()); ++i) {
      if (i >= off_ && i < off_ + n_) continue;
      if (store_[i] != canary(i)) {
        std::ostringstream o;
        o << "write outside buffer at offset "
          << static_cast<long long>(i) - static_cast<long long>(off_)
          << " (buffer size " << n_ << ")";
        return o.str();
      }
    }
    return "";
  }

 private:
  static unsigned char canary(size_t i) {
    return static_cast<unsigned char>(0xC3 ^ (i * 7));
  }
  std::vector<unsigned char> store_;
  size_t n_, off_ = 0;
};

}  // namespace loomtest
