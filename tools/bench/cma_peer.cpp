#include "cma_peer.h"

#include <sys/wait.h>
#include <unistd.h>

#include "fd_io.hpp"
#include "harness.h"

namespace loom_bench {
namespace {

struct Request {
  int64_t count, block;  // count 0: exit
};
struct Hello {
  uintptr_t data, packed;
};

[[noreturn]] void serve(size_t span, size_t packed_bytes, uint64_t seed, int in, int out) {
  Buf data = make_buf(span), packed = make_buf(packed_bytes);
  fill_random(data.get(), span, seed);
  Hello h{reinterpret_cast<uintptr_t>(data.get()), reinterpret_cast<uintptr_t>(packed.get())};
  if (!loom::xfer::write_full(out, &h, sizeof h)) _exit(1);
  Request r;
  while (loom::xfer::read_full(in, &r, sizeof r) && r.count > 0) {
    loom_type t = cma_bench_vector(r.count, r.block);
    size_t pos = 0;
    const double t0 = now_s();
    const bool ok = t && loom_pack(data.get(), 1, t, packed.get(), packed_bytes, &pos) == LOOM_OK;
    double took = now_s() - t0;
    loom_type_free(t);
    if (!ok) took = -1;
    if (!loom::xfer::write_full(out, &took, sizeof took)) break;
  }
  _exit(0);
}

}  // namespace

loom_type cma_bench_vector(int64_t count, int64_t block) {
  loom_type byte = nullptr, t = nullptr;
  loom_type_primitive(LOOM_BYTE, &byte);
  loom_type_hvector(count, block, 2 * block, byte, &t);
  loom_type_free(byte);
  if (t && loom_type_commit(t) != LOOM_OK) {
    loom_type_free(t);
    t = nullptr;
  }
  return t;
}

CmaSender::CmaSender(size_t span, size_t packed, uint64_t seed) {
  int down[2], up[2];
  if (pipe(down) != 0) return;
  if (pipe(up) != 0) {
    close(down[0]), close(down[1]);
    return;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(down[1]), close(up[0]);
    serve(span, packed, seed, down[0], up[1]);
  }
  close(down[0]), close(up[1]);
  to_ = down[1], from_ = up[0];
  Hello h;
  if (pid > 0 && loom::xfer::read_full(from_, &h, sizeof h)) {
    pid_ = pid;
    data_ = h.data;
    packed_ = h.packed;
  } else if (pid > 0) {
    waitpid(pid, nullptr, 0);
  }
}

CmaSender::~CmaSender() {
  Request stop{0, 0};
  if (pid_ > 0) loom::xfer::write_full(to_, &stop, sizeof stop);
  if (to_ >= 0) close(to_);
  if (from_ >= 0) close(from_);
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

double CmaSender::pack(int64_t count, int64_t block) {
  Request r{count, block};
  double took = -1;
  if (pid_ <= 0 || !loom::xfer::write_full(to_, &r, sizeof r) ||
      !loom::xfer::read_full(from_, &took, sizeof took))
    return -1;
  return took;
}

}  // namespace loom_bench
