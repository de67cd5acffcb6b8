#include "peer.hpp"

#include "fd_io.hpp"
#include "layouts.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace loomtest {
namespace {

struct Report {
  uintptr_t origin, packed;
  uint64_t layout_len;
};

// The child's side: never returns.
[[noreturn]] void serve(loom_type t, int64_t count, uint64_t seed, int to_parent, int from_parent) {
  Message m(t, count, seed);
  Bytes packed = peer_stream(t, count, seed);
  size_t len = 0;
  bool ok = loom_layout_encode(t, nullptr, 0, &len) == LOOM_ERR_TRUNCATE;
  std::vector<unsigned char> layout(len);
  ok = ok && loom_layout_encode(t, layout.data(), len, &len) == LOOM_OK;
  unsigned char *origin = m.origin();
  Report r{reinterpret_cast<uintptr_t>(origin), reinterpret_cast<uintptr_t>(packed.data()), len};
  if (ok && loom::xfer::write_full(to_parent, &r, sizeof r) &&
      loom::xfer::write_full(to_parent, layout.data(), len)) {
    char c;
    loom::xfer::read_full(from_parent, &c, 1);  // returns when the parent closes its end
  }
  _exit(ok ? 0 : 1);
}

}  // namespace

void message_span(loom_type t, int64_t count, int64_t *lo, int64_t *hi) {
  int64_t lb, ext, tlb, text;
  loom_type_extent(t, &lb, &ext);
  loom_type_true_extent(t, &tlb, &text);
  const int64_t step = count > 0 ? (count - 1) * ext : 0;
  *lo = tlb + std::min<int64_t>(0, step);
  *hi = tlb + text + std::max<int64_t>(0, step);
}

unsigned char pattern(uint64_t seed, size_t i) {
  uint64_t x = (seed ^ (i * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
  return static_cast<unsigned char>(x >> 56);
}

Peer::Peer(loom_type t, int64_t count, uint64_t seed) {
  int up[2], down[2];
  if (pipe(up) != 0) return;
  if (pipe(down) != 0) {
    close(up[0]), close(up[1]);
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    close(up[0]), close(down[1]);
    serve(t, count, seed, up[1], down[0]);
  }
  close(up[1]), close(down[0]);
  to_child_ = down[1];
  Report r;
  if (pid_ > 0 && loom::xfer::read_full(up[0], &r, sizeof r)) {
    layout_.resize(r.layout_len);
    if (loom::xfer::read_full(up[0], layout_.data(), layout_.size())) {
      origin_ = r.origin;
      packed_ = r.packed;
    } else {
      finish();
    }
  } else {
    finish();
  }
  close(up[0]);
}

Peer::~Peer() { finish(); }

void Peer::finish() {
  if (to_child_ >= 0) close(to_child_);
  to_child_ = -1;
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace loomtest
