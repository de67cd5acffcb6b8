// Cross-memory movers for the protocol (l2l_move.hpp), over the xfer
// layer's (src/xfer/cma.hpp): a Side without a type is one run of bytes.
#include "l2l_move.hpp"

#include "cma.hpp"

namespace loom_mpi {
namespace l2l {
namespace {

namespace x = loom::xfer;

// The committed byte type runs are described with (never freed).
loom_type byte_type() {
  static loom_type t = [] {
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

x::Side xside(loom_type t, uint64_t base, int64_t count, size_t bytes) {
  if (t) return x::Side{t, (uintptr_t)base, count};
  return x::Side{byte_type(), (uintptr_t)base, (int64_t)bytes};
}

x::Side local(const Side &s) {
  return xside(s.type, reinterpret_cast<uint64_t>(s.base), s.count, s.bytes);
}

Moved moved(const x::CmaResult &r) {
  if (r.status == x::CmaStatus::ok) return Moved::ok;
  return r.status == x::CmaStatus::refused || r.status == x::CmaStatus::unsupported
             ? Moved::refused
             : Moved::failed;
}

}  // namespace

Moved read_layout(int pid, loom_type remote, uint64_t base, int64_t count,
                  uint64_t bytes, const Side &dst, size_t take, bool per_block) {
  if (!byte_type()) return Moved::failed;
  x::Side r = xside(remote, base, count, bytes);
  x::Side l = local(dst);
  return moved(per_block ? x::cma_per_block(l, pid, r, 0, take)
                         : x::cma_single_copy(l, pid, r, 0, take));
}

Moved gather_layout(int pid, loom_type remote, uint64_t base, int64_t count, uint64_t bytes,
                    char *into, size_t offset, size_t len) {
  if (!byte_type()) return Moved::failed;
  // A byte run whose stream byte `offset` is into[0]: only [offset,
  // offset + len) of it is ever addressed.
  x::Side l{byte_type(), (uintptr_t)into - offset, (int64_t)(offset + len)};
  return moved(x::cma_single_copy(l, pid, xside(remote, base, count, bytes), offset, len));
}

Moved read_packed(int pid, uint64_t addr, const Side &dst, size_t offset, size_t len) {
  if (!byte_type()) return Moved::failed;
  return moved(x::cma_from_packed(local(dst), pid, (uintptr_t)addr, offset, len));
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
