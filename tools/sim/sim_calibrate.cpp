// Timing the handlers' steps on this machine (sim_calibrate.h).
#include "sim_calibrate.h"

#include <algorithm>
#include <random>
#include <vector>

#include <fmt/format.h>

namespace loom_sim {
namespace {

using loom_bench::now_s;

// Repeats of each timed step: a handler step, a cold host unpack (each
// after a cache sweep), a checkpoint creation.
int step_repeats(const CalibrationOptions &o) { return o.quick ? 3 : 15; }
constexpr size_t kTimedPackets = 32;
int unpack_repeats(const CalibrationOptions &o) { return o.quick ? 2 : 9; }
int checkpoint_repeats(const CalibrationOptions &o) { return o.quick ? 1 : 3; }

double summary(const std::vector<double> &samples, const CalibrationOptions &o) {
  return o.fastest ? *std::min_element(samples.begin(), samples.end())
                   : loom_bench::median(samples);
}

// The DMA command queue a handler writes into: a small ring, as on a NIC.
// Global, so the stores the timed loops make cannot be optimised away.
struct DmaCommand {
  int64_t dest, src;
  size_t len;
};
constexpr size_t kRing = 256;
DmaCommand g_ring[kRing];
size_t g_ring_head = 0;

void push_command(int64_t dest, int64_t src, size_t len) {
  g_ring[g_ring_head++ % kRing] = {dest, src, len};
}

// Median over repeats of the time of one call of f, each repeat running f
// often enough to outlast the clock's resolution.
template <class F>
double time_ns(F &&f, const CalibrationOptions &o) {
  const double min_sample = o.quick ? 2e-4 : 5e-4;
  int64_t reps = 1;
  for (;;) {
    const double t0 = now_s();
    for (int64_t i = 0; i < reps; ++i) f();
    if (now_s() - t0 >= min_sample || reps >= (int64_t(1) << 24)) break;
    reps *= 2;
  }
  std::vector<double> samples;
  for (int r = 0; r < step_repeats(o); ++r) {
    const double t0 = now_s();
    for (int64_t i = 0; i < reps; ++i) f();
    samples.push_back((now_s() - t0) / (double)reps * 1e9);
  }
  return summary(samples, o);
}

// The handler's fixed prologue: an indirect call that reads its arguments
// and its vHPU's cursor position (what every payload handler does first).
struct HandlerArgs {
  int64_t pkt_offset;
  size_t pkt_len;
  loom_cursor state;
};
size_t prologue(const HandlerArgs &a) {
  return loom_cursor_offset(a.state) + (size_t)a.pkt_offset + a.pkt_len;
}
size_t (*volatile g_prologue)(const HandlerArgs &) = prologue;
volatile size_t g_sink;

// Packet-by-packet iov over stream bytes [0, bytes), each block made a command.
void iov_pass(const Layout &l, loom_cursor c, size_t payload, size_t bytes) {
  loom_cursor_seek(c, 0);
  loom_iov v[64];
  const char *base = l.base();
  for (size_t off = 0; off < bytes; off += payload) {
    size_t left = std::min(payload, bytes - off);
    int64_t src = (int64_t)off;
    while (left > 0) {
      size_t n = 0, bytes = 0;
      loom_cursor_iov(c, v, 64, left, &n, &bytes);
      for (size_t i = 0; i < n; ++i) {
        push_command(static_cast<char *>(v[i].base) - base, src, v[i].len);
        src += (int64_t)v[i].len;
      }
      left -= bytes;
    }
  }
}

}  // namespace

std::string describe(const CalibrationOptions &o) {
  return fmt::format("{} of {} repeats per step ({} per cold host unpack, {} per checkpoint set)",
                     o.fastest ? "fastest" : "median", step_repeats(o), unpack_repeats(o),
                     checkpoint_repeats(o));
}

size_t cache_flush_bytes() { return 2 * loom_last_level_cache_bytes(); }

Costs calibrate(const Layout &l, size_t payload, const CalibrationOptions &o) {
  Costs k;
  loom_cursor c = l.new_cursor(), other = l.new_cursor();
  // The per-block costs are timed over the first packets only, so that one
  // sample stays short (a sample that another process preempts is lost to
  // the median, and to the minimum with --stat min).
  const size_t npkt = (l.packed() + payload - 1) / payload;
  const size_t prefix = std::min(l.packed(), kTimedPackets * payload);
  const size_t blocks = std::max<size_t>(1, l.blocks(payload, prefix));

  HandlerArgs args{0, payload, c};
  k.init_ns = time_ns([&] { g_sink = g_prologue(args); }, o);
  k.block_ns = time_ns([&] { iov_pass(l, c, payload, prefix); }, o) / (double)blocks;
  k.walk_block_ns = time_ns(
                        [&] {
                          loom_cursor_seek(c, 0);
                          g_sink = walk_blocks(c, prefix);
                        },
                        o) /
                    (double)blocks;
  // Seeks and copies at packet offsets spread over the message.
  std::vector<size_t> offsets(64);
  std::mt19937_64 rng(7);
  for (size_t &off : offsets) off = (rng() % npkt) * payload;
  size_t next = 0;
  k.seek_ns = time_ns([&] { loom_cursor_seek(c, offsets[next++ % offsets.size()]); }, o);
  loom_cursor_seek(c, offsets[0]);
  k.copy_ns = time_ns([&] { loom_cursor_copy(other, c); }, o);
  if (l.is_vector()) {
    const int64_t origin = (int64_t)l.origin();
    k.specialized_block_ns =
        time_ns(
            [&] {
              for (size_t off = 0; off < prefix; off += payload)
                vector_blocks(l.vec_block(), l.vec_stride(), origin, (int64_t)off,
                              std::min(payload, prefix - off), push_command);
            },
            o) /
        (double)blocks;
  }
  loom_cursor_free(other);
  loom_cursor_free(c);

  // Host unpack after a contiguous receive: the packed message and the
  // receive buffer start out of cache (the NIC wrote the message to memory;
  // no direct cache placement), so every sample first sweeps a buffer twice
  // the last-level cache.
  std::vector<char> packed(l.packed());
  loom_bench::fill_random(packed.data(), packed.size(), 3);
  std::vector<char> flush(cache_flush_bytes());
  std::vector<double> samples;
  for (int r = 0; r < unpack_repeats(o); ++r) {
    for (size_t i = 0; i < flush.size(); i += 64) flush[i] = (char)(flush[i] + 1);
    size_t pos = 0;
    const double t0 = now_s();
    loom_unpack(packed.data(), packed.size(), &pos, l.base() + l.origin(), l.count(), l.type());
    samples.push_back((now_s() - t0) * 1e9);
  }
  k.host_unpack_ns = summary(samples, o);
  return k;
}

double checkpoint_create_ns(const Layout &l, size_t interval, const CalibrationOptions &o) {
  std::vector<double> samples;
  for (int r = 0; r < checkpoint_repeats(o); ++r) {
    loom_checkpoints cp = nullptr;
    const double t0 = now_s();
    loom_checkpoints_create(l.type(), l.count(), l.base() + l.origin(), interval, &cp);
    samples.push_back((now_s() - t0) * 1e9);
    loom_checkpoints_free(cp);
  }
  return summary(samples, o);
}

}  // namespace loom_sim
