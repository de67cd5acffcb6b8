// Replay of simulated DMA writes against the host unpack (sim_replay.h).
#include "sim_replay.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace loom_sim {

Replayer::Replayer(const Layout &l) : l_(l), packed_(l.packed()), expected_(l.alloc_bytes()) {
  loom_bench::fill_random(packed_.data(), packed_.size(), 0x51a);
  fill_guards(expected_);
  size_t pos = 0;
  const loom_status s = loom_unpack(packed_.data(), packed_.size(), &pos,
                                    expected_.data() + l.origin(), l.count(), l.type());
  if (s != LOOM_OK) throw std::runtime_error(std::string("loom_unpack: ") + loom_status_string(s));
}

// A position-dependent pattern, so that a write landing a few bytes off (or
// a gap left unwritten) shows even where the data repeats.
void Replayer::fill_guards(std::vector<char> &buf) const {
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = (char)(0xA5 ^ (i * 131 >> 3));
}

std::string Replayer::check(const std::vector<DmaWrite> &writes) const {
  std::vector<std::pair<int64_t, int64_t>> spans;  // (src, len)
  spans.reserve(writes.size());
  std::vector<char> got(l_.alloc_bytes());
  fill_guards(got);
  for (const DmaWrite &w : writes) {
    if (w.src < 0 || w.src + (int64_t)w.len > (int64_t)packed_.size() || w.dest < 0 ||
        w.dest + (int64_t)w.len > (int64_t)got.size())
      return fmt::format("write of {} B from stream {} to {} is out of range", w.len, w.src,
                         w.dest);
    std::memcpy(got.data() + w.dest, packed_.data() + w.src, w.len);
    spans.emplace_back(w.src, (int64_t)w.len);
  }
  std::sort(spans.begin(), spans.end());
  int64_t covered = 0;
  for (const auto &s : spans) {
    if (s.first != covered)
      return fmt::format("stream bytes from {} written {}", covered,
                         s.first < covered ? "twice" : "never");
    covered += s.second;
  }
  if (covered != (int64_t)packed_.size())
    return fmt::format("stream bytes from {} never written", covered);
  const auto diff = std::mismatch(got.begin(), got.end(), expected_.begin());
  if (diff.first != got.end())
    return fmt::format("byte {} of the receive allocation differs from loom_unpack's",
                       (int64_t)(diff.first - got.begin()) - (int64_t)l_.origin());
  return "";
}

}  // namespace loom_sim
