// The cross-memory attach probe: see cma_probe.hpp.
#include "cma_probe.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>

#include "cma.hpp"

namespace loom {
namespace xfer {
namespace {

constexpr size_t kBig = kCmaProbeBytes;    // long reads
constexpr size_t kSegs = 64;              // short segments per call ...
constexpr size_t kSeg = 64;               // ... of 64 bytes ...
constexpr size_t kGap = 256;              // ... 256 bytes apart (a typical halo)

double now_ns() {
  return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The fastest of `tries` runs of f (the probe must not be fooled by a
// descheduled try on a shared machine).
template <class F>
double fastest(int tries, F f) {
  double best = INFINITY;
  for (int i = 0; i < tries; ++i) {
    double t0 = now_ns();
    if (!f()) return NAN;
    best = std::min(best, now_ns() - t0);
  }
  return best;
}

constexpr const char *kMagic = "loom-cma-probe-1";

// The published file of this user on this boot.
std::string node_path(const std::string &dir) {
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  return dir + "/loom-cma-probe-" + std::to_string(getuid()) + "-" + boot;
}

bool read_costs(const std::string &path, CmaCosts *c) {
  std::ifstream in(path);
  std::string magic;
  CmaCosts r;
  if (!(in >> magic >> r.call_ns >> r.seg_ns >> r.byte_ns >> r.copy_byte_ns) || magic != kMagic)
    return false;
  if (!(r.byte_ns > 0) || !(r.copy_byte_ns > 0) || !(r.seg_ns >= 0) || !(r.call_ns >= 0))
    return false;
  r.measured = true;
  *c = r;
  return true;
}

// Publishes c as `path` unless someone did first: written whole to a file
// of this process's own (mkstemp: unique even across pid namespaces that
// share /dev/shm), then linked to the final name, which fails if it exists.
void publish(const std::string &path, const CmaCosts &c) {
  std::string tmp = path + ".XXXXXX";
  const int fd = mkstemp(&tmp[0]);
  if (fd < 0) return;
  char line[160];
  const int n = std::snprintf(line, sizeof line, "%s %.17g %.17g %.17g %.17g\n", kMagic,
                              c.call_ns, c.seg_ns, c.byte_ns, c.copy_byte_ns);
  const bool whole = n > 0 && n < (int)sizeof line && write(fd, line, (size_t)n) == n;
  close(fd);
  if (whole) (void)link(tmp.c_str(), path.c_str());
  unlink(tmp.c_str());
}

}  // namespace

double CmaCosts::single_copy_run(bool mapped) const {
  // What each byte leaves for segments.
  const double spare = (mapped ? mapped_stream_ns() : budget_ns()) - byte_ns;
  if (!measured || !(spare > 0)) return 0;
  return seg_ns / spare;
}

std::string CmaCosts::describe(bool mapped) const {
  if (!measured) return "cross-memory attach not measured (refused or unsupported)";
  char buf[256];
  const double run = single_copy_run(mapped);
  char runs[64];
  if (run > 0) std::snprintf(runs, sizeof runs, "from mean runs of %.0f B", run);
  else std::snprintf(runs, sizeof runs, "never");
  std::snprintf(buf, sizeof buf,
                "cross-memory attach %.2f GB/s, %.2f us per call, %.3f us per segment; memcpy "
                "%.2f GB/s: streams %s, single copy %s",
                1 / byte_ns, call_ns / 1e3, seg_ns / 1e3, 1 / copy_byte_ns,
                stream_wins() ? "win" : "lose", runs);
  return buf;
}

CmaCosts measure_cma() noexcept {
  CmaCosts c;
  std::unique_ptr<char[]> src(new (std::nothrow) char[kBig]);
  std::unique_ptr<char[]> dst(new (std::nothrow) char[kBig]);
  if (!src || !dst) return c;
  std::memset(src.get(), 1, kBig);  // fault the pages in: the probe times copies, not faults
  std::memset(dst.get(), 2, kBig);
  const pid_t me = getpid();
  auto read = [&](iovec *l, iovec *r, size_t n) {
    iovec lc[kSegs], rc[kSegs];
    std::copy(l, l + n, lc);
    std::copy(r, r + n, rc);
    return cma_readv(me, lc, n, rc, n).status == CmaStatus::ok;
  };
  iovec l[kSegs], r[kSegs];
  for (size_t i = 0; i < kSegs; ++i) {
    l[i] = iovec{dst.get() + i * kSeg, kSeg};
    r[i] = iovec{src.get() + i * kGap, kSeg};
  }
  const double one = fastest(9, [&] { return read(l, r, 1); });
  const double many = fastest(5, [&] { return read(l, r, kSegs); });
  iovec lb{dst.get(), kBig}, rb{src.get(), kBig};
  const double big = fastest(3, [&] { return read(&lb, &rb, 1); });
  const double copy = fastest(3, [&] {
    std::memcpy(dst.get(), src.get(), kBig);
    asm volatile("" : : "r"(dst.get()) : "memory");  // the copy must happen
    return true;
  });
  if (std::isnan(one) || std::isnan(many) || std::isnan(big)) return c;
  c.call_ns = one;
  c.seg_ns = std::max(0.0, (many - one) / (kSegs - 1));
  c.byte_ns = std::max(big - one, 1.0) / kBig;
  c.copy_byte_ns = std::max(copy, 1.0) / kBig;
  c.measured = true;
  return c;
}

CmaCosts node_cma_costs(const std::string &dir) noexcept {
  try {
    const std::string path = node_path(dir);
    CmaCosts c;
    if (read_costs(path, &c)) return c;
    c = measure_cma();
    if (!c.measured) return c;  // refused here: nothing to share
    publish(path, c);
    CmaCosts first;
    return read_costs(path, &first) ? first : c;  // whoever published first
  } catch (...) {  // std::string and streams may throw; the probe must not
    return measure_cma();
  }
}

}  // namespace xfer
}  // namespace loom
