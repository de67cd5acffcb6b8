#include "layouts.hpp"

#include <algorithm>

#include "peer.hpp"

namespace loomtest {

Type scattered_bytes(int64_t size, std::mt19937_64 &rng) {
  std::vector<int64_t> bl, d;
  for (int64_t at = 0, left = size; left > 0;) {
    const int64_t cap = rng() % 8 == 0 ? 2048 : 24;
    bl.push_back(std::min<int64_t>(left, 1 + rng() % cap));
    at += rng() % 3 == 0 ? 0 : 1 + rng() % 16;  // gap (none: runs merge)
    d.push_back(at);
    at += bl.back();
    left -= bl.back();
  }
  if (rng() % 4 == 0) {  // stream order against address order
    std::reverse(bl.begin(), bl.end());
    std::reverse(d.begin(), d.end());
  }
  loom_type byte = nullptr, t = nullptr;
  loom_type_primitive(LOOM_BYTE, &byte);
  loom_type_hindexed(static_cast<int64_t>(bl.size()), bl.data(), d.data(), byte, &t);
  loom_type_free(byte);
  if (t) loom_type_commit(t);
  return Type(t);
}

RandomMessage::RandomMessage(std::mt19937_64 &rng) {
  do {
    spec = random_spec(rng, 4);
    type = committed(spec);
    count = 1 + rng() % 3;
    total = type ? static_cast<size_t>(loom_type_size(type.get()) * count) : 0;
  } while (total == 0);
}

namespace {
int64_t span_of(loom_type t, int64_t count, int64_t *hi) {
  int64_t lo;
  message_span(t, count, &lo, hi);
  return lo;
}
}  // namespace

Message::Message(loom_type t, int64_t count, uint64_t seed)
    : lo(span_of(t, count, &hi)), buf(static_cast<size_t>(hi - lo)) {
  for (int64_t i = 0; i < hi - lo; i++) buf.data()[i] = pattern(seed, i);
}

Bytes peer_stream(loom_type t, int64_t count, uint64_t seed) {
  Message m(t, count, seed);
  Bytes s(static_cast<size_t>(loom_type_size(t) * count));
  size_t pos = 0;
  loom_pack(m.origin(), count, t, s.data(), s.size(), &pos);
  return s;
}

}  // namespace loomtest
