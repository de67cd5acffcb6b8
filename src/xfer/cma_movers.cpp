// The one-call receiver-side movers: each runs its scheme's transfer
// (transfer.hpp) to the end, without a bounce and without a publisher, so
// no step ever blocks.
#include "cma.hpp"
#include "transfer.hpp"

namespace loom {
namespace xfer {
namespace {

CmaResult to_end(Transfer &t) {
  if (run(t, [] {}) != Step::done) return t.error();
  CmaResult r;
  r.bytes = t.moved();
  return r;
}

}  // namespace

CmaResult cma_single_copy(const Side &local, pid_t pid, const Side &remote, size_t offset,
                          size_t len) noexcept {
  LayoutRead t(pid, remote, local, offset, len, false);
  return to_end(t);
}

CmaResult cma_per_block(const Side &local, pid_t pid, const Side &remote, size_t offset,
                        size_t len) noexcept {
  LayoutRead t(pid, remote, local, offset, len, true);
  return to_end(t);
}

CmaResult cma_from_packed(const Side &local, pid_t pid, uintptr_t packed, size_t offset,
                          size_t len) noexcept {
  StreamRead t(pid, packed, nullptr, local, offset, len);
  return to_end(t);
}

}  // namespace xfer
}  // namespace loom
