#include "iov_pair.hpp"

#include <algorithm>
#include <cstddef>
#include <new>

namespace loom {
namespace xfer {

// The cursor writes loom_iov entries; the kernel reads them as iovec.  Both
// are {void *, size_t}, so the batch is handed over without a copy.
static_assert(sizeof(loom_iov) == sizeof(iovec) && alignof(loom_iov) == alignof(iovec) &&
                  offsetof(loom_iov, base) == offsetof(iovec, iov_base) &&
                  offsetof(loom_iov, len) == offsetof(iovec, iov_len),
              "loom_iov and iovec must share one layout");

loom_type byte_type() noexcept {
  static const loom_type t = [] {
    loom_type b = nullptr;
    if (loom_type_primitive(LOOM_BYTE, &b) != LOOM_OK) return (loom_type) nullptr;
    if (loom_type_commit(b) != LOOM_OK) {
      loom_type_free(b);
      return (loom_type) nullptr;
    }
    return b;
  }();
  return t;
}

IovPair::~IovPair() { close(); }

iovec *IovPair::as_iovec(Walk &w) noexcept { return reinterpret_cast<iovec *>(w.v.data()); }

void IovPair::close() noexcept {
  for (Walk &w : walk_) {
    loom_cursor_free(w.cur);
    w.cur = nullptr;
    w.n = 0;
  }
  left_ = 0;
}

loom_status IovPair::open(const Side &local, const Side &remote, size_t offset, size_t len,
                          IovLimits limits) noexcept {
  close();
  if (limits.local == 0 || limits.remote == 0 || limits.bytes == 0) return LOOM_ERR_ARG;
  const Side *sides[2] = {&local, &remote};
  const size_t max[2] = {limits.local, limits.remote};
  for (int i = 0; i < 2; i++) {
    Walk &w = walk_[i];
    loom_status s = loom_cursor_create(sides[i]->type, sides[i]->count,
                                       reinterpret_cast<const void *>(sides[i]->base), &w.cur);
    if (s != LOOM_OK) return close(), s;
    try {
      w.v.resize(max[i]);
    } catch (const std::bad_alloc &) {
      return close(), LOOM_ERR_NOMEM;
    }
    w.max = max[i];
  }
  // Both streams must hold the range; they may differ beyond it (a
  // message shorter than its receive, or truncated by it).
  const size_t total = std::min(loom_cursor_total(walk_[kLocal].cur),
                                loom_cursor_total(walk_[kRemote].cur));
  if (offset > total || len > total - offset) return close(), LOOM_ERR_RANGE;
  for (Walk &w : walk_) loom_cursor_seek(w.cur, offset);
  first_ = limits.remote < limits.local ? kRemote : kLocal;
  pos_ = offset;
  left_ = len;
  max_bytes_ = limits.bytes;
  return LOOM_OK;
}

void IovPair::trim(Walk &w, size_t covered, size_t bytes) noexcept {
  while (covered - w.v[w.n - 1].len >= bytes) covered -= w.v[--w.n].len;
  w.v[w.n - 1].len -= covered - bytes;
  loom_cursor_seek(w.cur, pos_ + bytes);
}

size_t IovPair::next() noexcept {
  Walk &a = walk_[first_], &b = walk_[1 - first_];
  a.n = b.n = 0;
  if (left_ == 0) return 0;
  size_t got_a, got_b;
  loom_cursor_iov(a.cur, a.v.data(), a.max, std::min(left_, max_bytes_), &a.n, &got_a);
  loom_cursor_iov(b.cur, b.v.data(), b.max, got_a, &b.n, &got_b);
  if (got_b < got_a) trim(a, got_a, got_b);
  pos_ += got_b;
  left_ -= got_b;
  return got_b;
}

}  // namespace xfer
}  // namespace loom
