// Cross-memory movers for the protocol (l2l_move.hpp), over the xfer
// layer's (src/xfer/cma.hpp, transfer.hpp).
#include "l2l_move.hpp"

#include "cma.hpp"
#include "l2l_segment.hpp"

namespace loom_mpi {
namespace l2l {
namespace {

namespace x = loom::xfer;

Moved moved(const x::CmaResult &r) {
  if (r.status == x::CmaStatus::ok) return Moved::ok;
  return r.status == x::CmaStatus::refused || r.status == x::CmaStatus::unsupported
             ? Moved::refused
             : Moved::failed;
}

}  // namespace

x::Side xfer_side(const Side &s) {
  if (s.type) return x::Side{s.type, reinterpret_cast<uintptr_t>(s.base), s.count};
  return x::byte_run(reinterpret_cast<uintptr_t>(s.base), s.bytes);
}

Moved run(x::Transfer &t) {
  unsigned n = 0;
  if (x::run(t, [&] { wait_step(n); }) == x::Step::done) return Moved::ok;
  return moved(t.error());
}

Moved read_bytes(int pid, uint64_t addr, void *dst, size_t len) {
  iovec l{dst, len}, r{reinterpret_cast<void *>(addr), len};
  return moved(x::cma_readv(pid, &l, 1, &r, 1));
}

Moved write_packed(int pid, const char *src, uint64_t addr, size_t len) {
  iovec l{const_cast<char *>(src), len}, r{reinterpret_cast<void *>(addr), len};
  return moved(x::cma_writev(pid, &l, 1, &r, 1));
}

}  // namespace l2l
}  // namespace loom_mpi
