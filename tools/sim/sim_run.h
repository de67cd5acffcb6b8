// One simulated message per strategy over one layout: the handlers run
// Loom's cursor, the engine times them, every run is replayed against
// loom_unpack and checked against the closed-form bounds.
#pragma once

#include <string>
#include <vector>

#include "sim_calibrate.h"
#include "sim_engine.h"
#include "sim_layout.h"
#include "sim_params.h"
#include "sim_strategies.h"

namespace loom_sim {

struct RunOptions {
  std::vector<Strategy> strategies;  // the host baseline always runs too
  CatchUp catchup = CatchUp::kWalk;
  EngineOptions engine;
  CalibrationOptions calibration;
  bool checkpoint_cost = false;  // time loom_checkpoints_create (Figure 18)
  bool corrupt_replay = false;   // self-test: move one write by a byte
};

struct RunResult {
  Strategy strategy = Strategy::kHost;
  Timeline tl;
  bool fallback = false;     // Δr found no room: the host unpack's time stands
  size_t writes = 0;
  size_t nic_memory = 0, to_nic = 0;
  size_t catchup_blocks = 0, resets = 0;
  HandlerCost mean;          // per payload handler, HPU ns
  std::string replay;        // "" = identical to loom_unpack
  std::string bounds;        // "" = every closed-form bound holds
  std::string binding;       // the bound closest to the result
  double speedup = 0;        // host time / this time
  // RO-CP, RW-CP: making the checkpoints and copying them to the NIC, in
  // messages' worth of the time each message saves over host unpack (its
  // ceiling is the reuses that amortize them); 0 when no message saves
  // time (or the cost was not measured).
  double checkpoint_cost_in_messages = 0;
};

struct LayoutRuns {
  std::string layout;
  size_t bytes = 0, blocks = 0, packets = 0, state_bytes = 0, plan_bytes = 0, dest_lines = 0;
  double gamma = 0;          // blocks per packet
  Costs host;                // measured here
  HpuCosts hpu;
  Interval interval;         // RW-CP and RO-CP
  double checkpoint_create_ns = 0;
  // Bytes to and from main memory per message (Figure 17): the host path
  // writes the packed message, reads it back and reads and writes back
  // every line of the receive buffer the unpack touches (counted from the
  // blocks; no LLC counters here); an offloaded unpack writes the message.
  size_t host_memory_traffic = 0;
  std::vector<RunResult> runs;  // host first
  LayoutRuns(const Costs &c, const Params &p) : host(c), hpu(c, p) {}
};

LayoutRuns run_layout(const Params &p, const Layout &l, const Costs &costs,
                      const RunOptions &o);
// True when every run replayed identically and respected its bounds.
bool all_ok(const LayoutRuns &r);

}  // namespace loom_sim
