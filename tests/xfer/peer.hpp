// A forked peer process that holds a message: `count` instances of a type
// over data it fills itself (a pattern the parent can recompute, unlike the
// parent's own copy of the address space), plus the packed stream, and
// reports their addresses and the type's layout encoding through a pipe.
// It lives until the parent lets it go.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "loom.h"

namespace loomtest {

/// Where the bytes `count` instances of `t` touch lie around the origin.
void message_span(loom_type t, int64_t count, int64_t *lo, int64_t *hi);

/// The byte the data of a message holds at distance i from its span's
/// start, for `seed` (the parent's reference and the peer agree on it).
unsigned char pattern(uint64_t seed, size_t i);

class Peer {
 public:
  /// Forks; the child fills `count` instances of committed `t` with
  /// pattern(seed), packs them and reports.  pid() is -1 if that failed.
  Peer(loom_type t, int64_t count, uint64_t seed);
  ~Peer();  // lets the child exit and reaps it
  Peer(const Peer &) = delete;
  Peer &operator=(const Peer &) = delete;

  pid_t pid() const { return pid_; }
  uintptr_t origin() const { return origin_; }  // the message's buffer argument
  uintptr_t packed() const { return packed_; }  // its packed stream
  const std::vector<unsigned char> &layout() const { return layout_; }
  /// Lets the child exit now and reaps it (its pid then names no process).
  void finish();

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  uintptr_t origin_ = 0, packed_ = 0;
  std::vector<unsigned char> layout_;
};

}  // namespace loomtest
