// process_vm_readv/writev with the loop over partial transfers and the
// classification of failures.
#include "cma.hpp"

#include <cerrno>
#include <climits>

namespace loom {
namespace xfer {
namespace {

using Syscall = ssize_t (*)(pid_t, const iovec *, unsigned long, const iovec *, unsigned long,
                            unsigned long);

size_t total(const iovec *v, size_t n) {
  size_t t = 0;
  for (size_t i = 0; i < n; i++) t += v[i].iov_len;
  return t;
}

// Drops the first `done` bytes of the list *v/*n.
void advance(iovec *&v, size_t &n, size_t done) {
  while (n > 0 && done >= v->iov_len) done -= v->iov_len, v++, n--;
  if (n > 0) {
    v->iov_base = static_cast<char *>(v->iov_base) + done;
    v->iov_len -= done;
  }
}

CmaResult transfer(Syscall call, pid_t pid, iovec *local, size_t nl, iovec *remote, size_t nr) {
  CmaResult r;
  if (nl > IOV_MAX || nr > IOV_MAX || total(local, nl) != total(remote, nr)) {
    r.status = CmaStatus::invalid;
    r.loom = LOOM_ERR_ARG;
    return r;
  }
  size_t want = total(local, nl);
  while (want > 0) {
    const ssize_t got = call(pid, local, nl, remote, nr, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      // A call that moves nothing without an error would loop forever;
      // the kernel only does that when an address is bad.
      r.error = got < 0 ? errno : EFAULT;
      r.status = cma_classify(r.error);
      return r;
    }
    r.bytes += got;
    want -= got;
    advance(local, nl, got);
    advance(remote, nr, got);
  }
  return r;
}

}  // namespace

const char *cma_status_name(CmaStatus s) noexcept {
  switch (s) {
    case CmaStatus::ok: return "ok";
    case CmaStatus::refused: return "refused";
    case CmaStatus::gone: return "gone";
    case CmaStatus::fault: return "fault";
    case CmaStatus::unsupported: return "unsupported";
    case CmaStatus::invalid: return "invalid";
    case CmaStatus::failed: return "failed";
  }
  return "unknown";
}

CmaStatus cma_classify(int err) noexcept {
  switch (err) {
    case 0: return CmaStatus::ok;
    case EPERM:
    case EACCES: return CmaStatus::refused;
    case ESRCH: return CmaStatus::gone;
    case EFAULT: return CmaStatus::fault;
    case ENOSYS:
    case EINVAL: return CmaStatus::unsupported;
    default: return CmaStatus::failed;
  }
}

CmaResult cma_readv(pid_t pid, iovec *local, size_t nlocal, iovec *remote, size_t nremote) noexcept {
  return transfer(process_vm_readv, pid, local, nlocal, remote, nremote);
}

CmaResult cma_writev(pid_t pid, iovec *local, size_t nlocal, iovec *remote, size_t nremote) noexcept {
  return transfer(process_vm_writev, pid, local, nlocal, remote, nremote);
}

CmaStatus cma_available(pid_t pid, uintptr_t addr) noexcept {
  char byte;
  iovec l{&byte, 1}, r{reinterpret_cast<void *>(addr), 1};
  return cma_readv(pid, &l, 1, &r, 1).status;
}

}  // namespace xfer
}  // namespace loom
