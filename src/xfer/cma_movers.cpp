// The receiver-side movers: one walk over paired iovec batches, differing
// only in what the remote side is (a layout or the packed stream) and in
// how many remote entries one call may take.
#include <memory>

#include "cma.hpp"

namespace loom {
namespace xfer {
namespace {

CmaResult pull(const Side &local, pid_t pid, const Side &remote, size_t offset, size_t len,
               IovLimits limits) {
  CmaResult r;
  IovPair pair;
  r.loom = pair.open(local, remote, offset, len, limits);
  if (r.loom != LOOM_OK) {
    r.status = CmaStatus::invalid;
    return r;
  }
  while (pair.next() > 0) {
    const CmaResult k =
        cma_readv(pid, pair.local(), pair.local_count(), pair.remote(), pair.remote_count());
    r.bytes += k.bytes;
    if (k.status != CmaStatus::ok) {
      r.status = k.status;
      r.error = k.error;
      r.loom = k.loom;
      return r;
    }
  }
  return r;
}

}  // namespace

CmaResult cma_single_copy(const Side &local, pid_t pid, const Side &remote, size_t offset,
                          size_t len) noexcept {
  return pull(local, pid, remote, offset, len, IovLimits());
}

CmaResult cma_per_block(const Side &local, pid_t pid, const Side &remote, size_t offset,
                        size_t len) noexcept {
  IovLimits one_run;
  one_run.remote = 1;
  return pull(local, pid, remote, offset, len, one_run);
}

CmaResult cma_from_packed(const Side &local, pid_t pid, uintptr_t packed, size_t offset,
                          size_t len) noexcept {
  // The packed stream as a layout: that many bytes in one run.
  CmaResult r;
  r.status = CmaStatus::invalid;
  loom_type raw = nullptr;
  r.loom = loom_type_primitive(LOOM_BYTE, &raw);
  std::unique_ptr<loom_type_s, void (*)(loom_type)> bytes(raw, loom_type_free);
  if (r.loom == LOOM_OK) r.loom = loom_type_commit(raw);
  Side stream{raw, packed, 0};
  if (r.loom == LOOM_OK &&
      __builtin_mul_overflow(loom_type_size(local.type), local.count, &stream.count))
    r.loom = LOOM_ERR_OVERFLOW;
  if (r.loom != LOOM_OK) return r;
  return pull(local, pid, stream, offset, len, IovLimits());
}

}  // namespace xfer
}  // namespace loom
