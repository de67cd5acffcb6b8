// The sender of `loom bench cma`: a forked process that keeps a message
// buffer and a packed buffer alive for the receiver (the parent) to read
// with process_vm_readv, and packs on request, timing its own pack (the
// sender's share of the staged schemes).
#pragma once
#include <sys/types.h>

#include <cstdint>

#include "loom.h"

namespace loom_bench {

class CmaSender {
 public:
  /// Forks a sender whose data buffer spans `span` bytes filled with
  /// fill_random(seed) and whose packed buffer holds `packed` bytes.
  /// ok() is false if that failed.
  CmaSender(size_t span, size_t packed, uint64_t seed);
  ~CmaSender();  // ends the sender and reaps it
  CmaSender(const CmaSender &) = delete;
  CmaSender &operator=(const CmaSender &) = delete;

  bool ok() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  uintptr_t data() const { return data_; }      // the sender's data buffer
  uintptr_t packed() const { return packed_; }  // its packed buffer
  /// Has the sender pack `count` blocks of `block` bytes every 2 * block
  /// bytes of its data into its packed buffer; the seconds the pack took
  /// there, or a negative value if the sender is gone.
  double pack(int64_t count, int64_t block);

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  uintptr_t data_ = 0, packed_ = 0;
};

/// The vector layout every scheme of the benchmark moves: `count` blocks of
/// `block` bytes, one every 2 * block bytes (committed; nullptr on failure).
loom_type cma_bench_vector(int64_t count, int64_t block);

}  // namespace loom_bench
