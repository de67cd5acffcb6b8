// The transfers of transfer.hpp.
#include "transfer.hpp"

#include <algorithm>

namespace loom {
namespace xfer {

bool wants_bounce(const Side &local) noexcept {
  if (!local.type || loom_type_is_contiguous(local.type)) return false;
  const int64_t runs = loom_type_num_runs(local.type);
  return runs > 0 && loom_type_size(local.type) / runs < kBounceRun;
}

Step Transfer::fail(CmaStatus s, int err, loom_status why) noexcept {
  error_.status = s == CmaStatus::ok ? CmaStatus::failed : s;
  error_.error = err;
  error_.loom = why;
  error_.bytes = moved_;
  return Step::failed;
}

bool Transfer::finished(Step *out) const noexcept {
  if (cancelled_ || error_.status != CmaStatus::ok || !started_) {
    // A step before start() or after cancel() is the caller's error; the
    // transfer says so rather than touch memory it no longer holds.
    *out = Step::failed;
    return true;
  }
  if (moved_ == len_) return *out = Step::done, true;
  return false;
}

size_t Transfer::published_piece(const std::atomic<uint64_t> *published) const noexcept {
  const size_t end = offset_ + len_;
  const size_t upto =
      published ? std::min<size_t>(published->load(std::memory_order_acquire), end) : end;
  return upto <= pos() ? 0 : std::min(kChunk, upto - pos());
}

namespace {

// Unpacks stream bytes [offset, offset + len) of `local` from `src`.
bool unpack(const Side &local, const char *src, size_t offset, size_t len, int threads) {
  return loom_unpack_range_parallel(src, offset, len, reinterpret_cast<void *>(local.base),
                                    local.count, local.type, threads) == LOOM_OK;
}

// Moves every batch of an opened pair, one process_vm_readv each, until at
// least kChunk bytes have moved or the pair is done; *moved counts them.
CmaResult read_batches(pid_t pid, IovPair &pair, size_t *moved) {
  CmaResult r;
  for (size_t n = 0; n < kChunk && pair.next() > 0;) {
    r = cma_readv(pid, pair.local(), pair.local_count(), pair.remote(), pair.remote_count());
    *moved += r.bytes;
    n += r.bytes;
    if (r.status != CmaStatus::ok) break;
  }
  return r;
}

// Moves the whole of a pair opened for exactly `piece` <= kChunk bytes
// (one read_batches call walks all of it); *got counts what moved.  A
// pair that ends short is an unusable pair of layouts, not progress.
CmaResult read_piece(pid_t pid, IovPair &pair, size_t piece, size_t *got) {
  CmaResult r = read_batches(pid, pair, got);
  if (r.status == CmaStatus::ok && *got != piece) {
    r.status = CmaStatus::invalid;
    r.loom = LOOM_ERR_RANGE;
  }
  return r;
}

}  // namespace

// --- LayoutRead ------------------------------------------------------------

LayoutRead::LayoutRead(pid_t pid, const Side &remote, const Side &local, size_t offset,
                       size_t len, bool per_block, StagingPool *pool, int unpack_threads) noexcept
    : Transfer(offset, len), pid_(pid), remote_(remote), local_(local), per_block_(per_block),
      pool_(per_block ? nullptr : pool), threads_(unpack_threads) {}

Step LayoutRead::start() noexcept {
  started_ = true;
  if (!local_.type || !remote_.type) return fail(CmaStatus::invalid, 0, LOOM_ERR_TYPE);
  // Without a bounce (none wanted, or no memory for one) the kernel
  // scatters into the local runs: slower for short ones, as correct.
  if (pool_ && len_ > 0 && wants_bounce(local_)) bounce_ = pool_->acquire(std::min(kChunk, len_));
  if (!bounce_.data) {
    IovLimits lim;
    if (per_block_) lim.remote = 1;
    const loom_status s = pair_.open(local_, remote_, offset_, len_, lim);
    if (s != LOOM_OK) return fail(CmaStatus::invalid, 0, s);
  }
  return len_ == 0 ? Step::done : Step::more;
}

Step LayoutRead::direct() noexcept {
  const size_t before = moved_;
  const CmaResult r = read_batches(pid_, pair_, &moved_);
  if (r.status != CmaStatus::ok) return fail(r);
  // A walk that ends before len_ would otherwise say `more` forever.
  if (moved_ == before) return fail(CmaStatus::invalid, 0, LOOM_ERR_RANGE);
  return moved_ == len_ ? Step::done : Step::more;
}

Step LayoutRead::bounced() noexcept {
  // The kernel gathers the sender's runs into the bounce (a byte run whose
  // stream byte pos() is the bounce's first byte; only the range is ever
  // addressed), then Loom unpacks it into the short local runs.
  const size_t piece = std::min(kChunk, len_ - moved_);
  const Side into = byte_run((uintptr_t)bounce_.data - pos(), pos() + piece);
  const loom_status s = pair_.open(into, remote_, pos(), piece);
  if (s != LOOM_OK) return fail(CmaStatus::invalid, 0, s);
  size_t got = 0;
  const CmaResult r = read_piece(pid_, pair_, piece, &got);
  if (r.status != CmaStatus::ok) return fail(r);  // the bounce's bytes are not in place
  if (!unpack(local_, bounce_.data, pos(), piece, threads_))
    return fail(CmaStatus::invalid, 0, LOOM_ERR_TYPE);
  moved_ += piece;
  return moved_ == len_ ? Step::done : Step::more;
}

Step LayoutRead::step() noexcept {
  Step out;
  if (finished(&out)) return out;
  return bounce_.data ? bounced() : direct();
}

void LayoutRead::cancel() noexcept {
  cancelled_ = true;
  if (pool_) pool_->release(bounce_);
  pair_.close();
}

// --- StreamRead ------------------------------------------------------------

StreamRead::StreamRead(pid_t pid, uintptr_t packed, const std::atomic<uint64_t> *published,
                       const Side &local, size_t offset, size_t len, StagingPool *pool,
                       int unpack_threads) noexcept
    : Transfer(offset, len), pid_(pid), packed_(packed), published_(published), local_(local),
      pool_(pool), threads_(unpack_threads) {}

Step StreamRead::start() noexcept {
  started_ = true;
  if (!local_.type || !byte_type())
    return fail(CmaStatus::invalid, 0, LOOM_ERR_TYPE);
  if (pool_ && len_ > 0 && wants_bounce(local_)) bounce_ = pool_->acquire(std::min(kChunk, len_));
  return len_ == 0 ? Step::done : Step::more;
}

Step StreamRead::step() noexcept {
  Step out;
  if (finished(&out)) return out;
  const size_t piece = published_piece(published_);
  if (piece == 0) return Step::blocked;
  if (bounce_.data) {
    iovec l{bounce_.data, piece}, r{reinterpret_cast<void *>(packed_ + pos()), piece};
    const CmaResult k = cma_readv(pid_, &l, 1, &r, 1);
    if (k.status != CmaStatus::ok) return fail(k);
    if (!unpack(local_, bounce_.data, pos(), piece, threads_))
      return fail(CmaStatus::invalid, 0, LOOM_ERR_TYPE);
    moved_ += piece;
  } else {
    // The packed stream as a layout: one run, stream byte k at packed + k.
    const loom_status s = pair_.open(local_, byte_run(packed_, offset_ + len_), pos(), piece);
    if (s != LOOM_OK) return fail(CmaStatus::invalid, 0, s);
    size_t got = 0;
    const CmaResult k = read_piece(pid_, pair_, piece, &got);
    moved_ += got;  // scattered straight into place
    if (k.status != CmaStatus::ok) return fail(k);
  }
  return moved_ == len_ ? Step::done : Step::more;
}

void StreamRead::cancel() noexcept {
  cancelled_ = true;
  if (pool_) pool_->release(bounce_);
  pair_.close();
}

// --- MappedRead ------------------------------------------------------------

MappedRead::MappedRead(const char *stream, const std::atomic<uint64_t> *published,
                       const Side &local, size_t offset, size_t len, int unpack_threads) noexcept
    : Transfer(offset, len), stream_(stream), published_(published), local_(local),
      threads_(unpack_threads) {}

Step MappedRead::start() noexcept {
  started_ = true;
  if (!local_.type || (!stream_ && len_ > 0)) return fail(CmaStatus::invalid, 0, LOOM_ERR_ARG);
  return len_ == 0 ? Step::done : Step::more;
}

Step MappedRead::step() noexcept {
  Step out;
  if (finished(&out)) return out;
  const size_t piece = published_piece(published_);
  if (piece == 0) return Step::blocked;
  if (!unpack(local_, stream_ + pos(), pos(), piece, threads_))
    return fail(CmaStatus::invalid, 0, LOOM_ERR_TYPE);
  moved_ += piece;
  return moved_ == len_ ? Step::done : Step::more;
}

// --- StreamPack ------------------------------------------------------------

StreamPack::StreamPack(const Side &local, char *out, size_t len, size_t chunk,
                       std::atomic<uint64_t> *publish) noexcept
    : Transfer(0, len), local_(local), out_(out), chunk_(std::max<size_t>(chunk, 1)),
      publish_(publish) {}

Step StreamPack::start() noexcept {
  started_ = true;
  if (!local_.type) return fail(CmaStatus::invalid, 0, LOOM_ERR_TYPE);
  return len_ == 0 ? Step::done : Step::more;
}

Step StreamPack::step() noexcept {
  Step out;
  if (finished(&out)) return out;
  const size_t piece = std::min(chunk_, len_ - moved_);
  const loom_status s = loom_pack_range(reinterpret_cast<const void *>(local_.base),
                                        local_.count, local_.type, moved_, piece, out_ + moved_);
  if (s != LOOM_OK) return fail(CmaStatus::invalid, 0, s);
  moved_ += piece;
  if (publish_) publish_->store(moved_, std::memory_order_release);
  return moved_ == len_ ? Step::done : Step::more;
}

}  // namespace xfer
}  // namespace loom
