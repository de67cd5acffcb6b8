// Offsets in a fixed region handed out in whole pages, first fit (no MPI in
// here).  The Loom-to-Loom sender places its packed copies in the shared
// arena of its segment with it (docs/protocol.md): the region's memory is
// not touched here, only bookkeeping.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace loom {
namespace xfer {

class PageArena {
 public:
  /// Bytes per page: large enough that the bookkeeping of a 64 MiB region
  /// is 16 words, small enough that a 16 KiB message wastes little.
  static constexpr size_t kPage = size_t(64) << 10;
  /// What take() returns when no run of pages is free.
  static constexpr size_t kNone = SIZE_MAX;

  /// A region of @p bytes (whole pages of it are used).
  explicit PageArena(size_t bytes);

  /// The offset of @p bytes bytes (rounded up to pages; at least one page)
  /// that nobody else holds, at the lowest such offset; kNone when no run
  /// of free pages is long enough.  Thread-safe.
  size_t take(size_t bytes);
  /// Gives back what take(@p bytes) returned at @p off.  Thread-safe.
  void give(size_t off, size_t bytes);
  /// Pages in the region, and pages held now.
  size_t pages() const { return pages_; }
  size_t held() const;

 private:
  static size_t pages_for(size_t bytes) { return bytes == 0 ? 1 : (bytes + kPage - 1) / kPage; }
  bool used(size_t p) const { return (used_[p / 64] >> (p % 64)) & 1; }
  void mark(size_t first, size_t n, bool on);

  mutable std::mutex mu_;
  size_t pages_;
  size_t held_ = 0;
  std::vector<uint64_t> used_;  // a bit per page
};

}  // namespace xfer
}  // namespace loom
