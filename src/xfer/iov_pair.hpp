// Paired scatter/gather lists for single-copy transfers between two address
// spaces: the local layout and a peer's layout (a type decoded from the
// peer's loom_layout_encode, at the peer's address) walked side by side over
// one range of their common packed stream, in batches of at most a given
// number of iovec entries per side that cover the same stream bytes.  A
// process_vm_readv/writev call moves exactly such a batch: it copies the
// remote list's bytes, as one stream, into the local list's (entries need
// not pair one to one).
#pragma once
#include <limits.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "loom.h"

namespace loom {
namespace xfer {

/// `count` instances of committed `type` with their origin at `base`, an
/// address in this process or in the peer's.  The pair never dereferences it.
struct Side {
  loom_type type = nullptr;
  uintptr_t base = 0;
  int64_t count = 0;
};

/// A committed type of one byte, made once and never freed (runs of bytes
/// are described with it); null when it could not be made (no memory).
loom_type byte_type() noexcept;
/// @p bytes bytes in one run at @p base.
inline Side byte_run(uintptr_t base, size_t bytes) noexcept {
  return Side{byte_type(), base, (int64_t)bytes};
}

/// Most entries per batch on each side (the kernel accepts IOV_MAX), and
/// most stream bytes per batch.
struct IovLimits {
  size_t local = IOV_MAX;
  size_t remote = IOV_MAX;
  size_t bytes = SIZE_MAX;
};

class IovPair {
 public:
  IovPair() = default;
  ~IovPair();
  IovPair(const IovPair &) = delete;
  IovPair &operator=(const IovPair &) = delete;

  /// Starts a walk over stream bytes [offset, offset + len) of both sides.
  /// LOOM_ERR_TYPE/COUNT/OVERFLOW as loom_cursor_create reports them,
  /// LOOM_ERR_ARG when a limit is 0, LOOM_ERR_RANGE when the range leaves
  /// either stream (they may differ in length beyond it),
  /// LOOM_ERR_NOMEM.  May be called again to start over.
  loom_status open(const Side &local, const Side &remote, size_t offset, size_t len,
                   IovLimits limits = IovLimits()) noexcept;

  /// The next batch: fills local()/remote() and returns the stream bytes
  /// both cover, 0 once the range is done.  Amortised O(1) per entry: the
  /// side with fewer entries allowed is walked first and the other stops
  /// at its end, so at most that many entries are walked and dropped.
  size_t next() noexcept;

  /// The current batch (valid until the next call; a mover may consume the
  /// entries in place).
  iovec *local() noexcept { return as_iovec(walk_[kLocal]); }
  iovec *remote() noexcept { return as_iovec(walk_[kRemote]); }
  size_t local_count() const noexcept { return walk_[kLocal].n; }
  size_t remote_count() const noexcept { return walk_[kRemote].n; }
  /// Stream bytes not yet handed out.
  size_t left() const noexcept { return left_; }
  /// Ends the walk and frees its cursors (open() starts a new one).
  void close() noexcept;

 private:
  struct Walk {
    loom_cursor cur = nullptr;
    std::vector<loom_iov> v;
    size_t max = 0, n = 0;
  };
  static constexpr int kLocal = 0, kRemote = 1;
  static iovec *as_iovec(Walk &w) noexcept;
  /// Cuts walk `w`'s batch to its first `bytes` stream bytes and moves its
  /// cursor back to where they end.
  void trim(Walk &w, size_t covered, size_t bytes) noexcept;

  Walk walk_[2];
  int first_ = kLocal;  // the side with fewer entries allowed
  size_t pos_ = 0, left_ = 0, max_bytes_ = 0;
};

}  // namespace xfer
}  // namespace loom
