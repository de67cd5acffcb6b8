// Layouts and reference results shared by the xfer tests.
#pragma once
#include <random>
#include <vector>

#include "guarded.hpp"
#include "loom_handle.hpp"
#include "type_spec.hpp"

namespace loomtest {

using Bytes = std::vector<unsigned char>;

/// A committed layout of `size` bytes in random runs (1 byte to 2 KiB) with
/// random gaps, in address order or reversed; never overlapping.
Type scattered_bytes(int64_t size, std::mt19937_64 &rng);

/// A random committed type (random_spec, depth 4) and a count of 1 to 3
/// whose packed stream is `total` > 0 bytes.
struct RandomMessage {
  explicit RandomMessage(std::mt19937_64 &rng);
  TypeSpecPtr spec;
  Type type;
  int64_t count;
  size_t total;
};

/// A buffer for `count` instances of `t` with guard zones around it, the
/// message's origin inside it, filled with pattern(seed).
struct Message {
  Message(loom_type t, int64_t count, uint64_t seed);
  unsigned char *origin() { return buf.data() - lo; }
  int64_t lo, hi;
  Guarded buf;
};

/// The packed stream of `count` instances of `t` holding pattern(seed), as
/// a Peer made with the same arguments holds it.
Bytes peer_stream(loom_type t, int64_t count, uint64_t seed);

}  // namespace loomtest
