// Cross-memory attach (process_vm_readv/writev): single-copy transfers
// between two processes on one node, the receiver moving bytes straight
// from the sender's memory layout into its own.  Nothing here throws; every
// failure comes back as a CmaStatus a caller can act on (refused or
// unsupported: fall back to a staged transfer; gone: the peer died; fault:
// a bad address on either side).
#pragma once
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "iov_pair.hpp"
#include "loom.h"

namespace loom {
namespace xfer {

enum class CmaStatus : uint8_t {
  ok,
  refused,      ///< EPERM, EACCES: no ptrace access to the peer (Yama, setuid, namespaces)
  gone,         ///< ESRCH: no such process (the peer exited)
  fault,        ///< EFAULT: an address outside either process's mapped memory
  unsupported,  ///< ENOSYS, EINVAL: the kernel (or a seccomp filter) lacks the calls
  invalid,      ///< the layouts or the range given are unusable (see CmaResult::loom)
  failed,       ///< anything else (ENOMEM ...)
};

/// A short name ("ok", "refused", "gone" ...).
const char *cma_status_name(CmaStatus s) noexcept;
/// The class of a process_vm_readv/writev errno.
CmaStatus cma_classify(int err) noexcept;

struct CmaResult {
  CmaStatus status = CmaStatus::ok;
  size_t bytes = 0;             ///< stream bytes moved before any failure
  int error = 0;                ///< errno of the failed call
  loom_status loom = LOOM_OK;   ///< why, for CmaStatus::invalid
};

/// Copies the bytes `remote` (addresses in process `pid`) lists into those
/// `local` lists, both read as one stream (totals must match), looping over
/// partial transfers.  At most IOV_MAX entries per side.  The entries are
/// consumed: on return they describe what was left unmoved.
CmaResult cma_readv(pid_t pid, iovec *local, size_t nlocal, iovec *remote, size_t nremote) noexcept;
/// The reverse direction: `local`'s bytes into `remote`'s.
CmaResult cma_writev(pid_t pid, iovec *local, size_t nlocal, iovec *remote, size_t nremote) noexcept;

/// Whether this process may read process `pid`'s memory: a 1-byte read of
/// `addr`, an address the peer said is mapped (e.g. its message buffer).
/// ok, or the status a real transfer would fail with.
CmaStatus cma_available(pid_t pid, uintptr_t addr) noexcept;

/// @name Receiver-side movers
/// Each moves stream bytes [offset, offset + len) of a message laid out as
/// `remote` in process `pid` into the local layout `local` (both streams
/// hold the range; they may differ in length beyond it).
/// @{
/// Batches of paired iovec lists (IovPair), one process_vm_readv per batch.
CmaResult cma_single_copy(const Side &local, pid_t pid, const Side &remote, size_t offset,
                          size_t len) noexcept;
/// One process_vm_readv per contiguous run of the remote layout (the
/// per-block analog of a NIC's one-write-per-block scheme): the reference a
/// batched mover must beat.
CmaResult cma_per_block(const Side &local, pid_t pid, const Side &remote, size_t offset,
                        size_t len) noexcept;
/// The remote side is the packed stream itself, contiguous at `packed` in
/// process `pid` (the sender packed): stream byte k is at packed + k.
/// Scatters into the local layout, one process_vm_readv per batch.
CmaResult cma_from_packed(const Side &local, pid_t pid, uintptr_t packed, size_t offset,
                          size_t len) noexcept;
/// @}

}  // namespace xfer
}  // namespace loom
