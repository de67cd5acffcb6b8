// Per-step costs of the handlers' code, timed on this machine (medians of
// repeats): the simulator charges a handler these costs, scaled from the
// host's clock to the HPU's, for the steps Loom's cursor really performs on
// each packet.  Host unpack is timed whole, with cold caches, and stays at
// host speed (it runs on the host).
#pragma once

#include <cstddef>
#include <string>

#include "sim_layout.h"

namespace loom_sim {

struct Costs {  // nanoseconds on this host
  double init_ns = 0;        // handler prologue: its arguments and its vHPU's cursor
  double block_ns = 0;       // per block: loom_cursor_iov entry turned into a DMA command
  double walk_block_ns = 0;  // per block passed by a catch-up walk (no command)
  double seek_ns = 0;        // one loom_cursor_seek to a packet's offset
  double copy_ns = 0;        // one loom_cursor_copy (a checkpoint copied to the HPU)
  double specialized_block_ns = 0;  // the vector handler's address loop, per block
  double host_unpack_ns = 0;        // loom_unpack of the whole message, cold caches
};

struct CalibrationOptions {
  bool quick = false;      // fewer and shorter repeats (CI)
  bool fastest = false;    // the fastest repeat instead of the median (a shared machine)
};

Costs calibrate(const Layout &l, size_t payload, const CalibrationOptions &o);
// loom_checkpoints_create every `interval` bytes (what the host pays once
// per datatype before RW-CP or RO-CP can receive).
double checkpoint_create_ns(const Layout &l, size_t interval, const CalibrationOptions &o);
// "median of 7 repeats per step (...)": how the costs were summarised.
std::string describe(const CalibrationOptions &o);
// Bytes the cold-cache measurement touches between runs (twice the LLC).
size_t cache_flush_bytes();

}  // namespace loom_sim
