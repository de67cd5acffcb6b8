// The payload handlers of the sPIN datatype paper (§3.2.3-3.2.4) as cost
// models around real Loom code: on every packet a handler does with Loom's
// cursor what it would do on the NIC (RW-CP: its vHPU's own cursor, restored
// from the master checkpoint only when a packet comes before it; RO-CP: a
// copy of the nearest checkpoint and a catch-up; HPU-local: its vHPU's
// cursor, caught up or reset; specialized: the vector's address arithmetic)
// and is charged init + setup + blocks x per-block cost, from the steps it
// really took and the costs timed on this machine, scaled to the HPU clock.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim_calibrate.h"
#include "sim_layout.h"
#include "sim_params.h"

namespace loom_sim {

enum class Strategy { kSpecialized, kHpuLocal, kRoCp, kRwCp, kIovec, kHost };
constexpr Strategy kAllStrategies[] = {Strategy::kSpecialized, Strategy::kHpuLocal,
                                       Strategy::kRoCp,        Strategy::kRwCp,
                                       Strategy::kIovec,       Strategy::kHost};
const char *strategy_name(Strategy s);  // "specialized", "hpu-local", ...
bool parse_strategy(const std::string &name, Strategy &out);

// How a catch-up from a cursor's position to a packet's offset is charged:
// block by block as MPITypes does (the paper's model), or as one
// loom_cursor_seek (what Loom's cursor can do instead).
enum class CatchUp { kWalk, kSeek };

// Handler time split as the paper's T_PH = init + setup + gamma x block (ns
// on the HPU).
struct HandlerCost {
  double init = 0, setup = 0, blocks = 0;
  double total() const { return init + setup + blocks; }
};

// The host-measured costs in HPU nanoseconds (x host_ghz / hpu_ghz); a
// block's cost includes issuing its DMA write (dma_issue_cycles).
struct HpuCosts {
  double ratio = 1;  // host_ghz / hpu_ghz
  double init, block, walk_block, seek, copy, specialized_block;
  HpuCosts(const Costs &host, const Params &p);
};

// The checkpoint interval Δr of RW-CP and RO-CP (§3.2.4) and which rule set it.
struct Interval {
  size_t packets = 1;  // Δp = Δr / P
  size_t bytes = 0;    // Δr
  size_t checkpoints = 0;
  std::string bound;   // "ε", "memory", "packet buffer", "HPUs", "ε unattainable", "nothing fits"
  bool fits = true;    // false: fall back to host unpack
  double t_ph_ns = 0;  // the handler time the ε rule used
};
Interval choose_interval(const Params &p, const Layout &l, const HpuCosts &k, double gamma);

class Handlers {
 public:
  virtual ~Handlers() = default;
  // Blocked round robin: the vHPU a packet belongs to, and how many there are.
  virtual size_t vhpu_of(size_t packet) const = 0;
  virtual size_t vhpus() const = 0;
  // Runs the handler's Loom code for stream bytes [offset, offset+len) on
  // behalf of `vhpu`, appends its DMA writes and returns what it cost.
  virtual HandlerCost run(size_t vhpu, int64_t offset, size_t len,
                          std::vector<DmaWrite> &writes) = 0;
  virtual size_t nic_memory() const = 0;  // bytes of NIC memory it occupies
  virtual size_t to_nic() const = 0;      // bytes the host copies to the NIC first
  size_t catchup_blocks = 0;              // walked by catch-ups, all packets
  size_t resets = 0;                      // restores because a packet came early
};

// The handler set of an offloaded strategy (not kIovec or kHost).
std::unique_ptr<Handlers> make_handlers(Strategy s, const Layout &l, const Params &p,
                                        const HpuCosts &k, const Interval &iv, CatchUp mode);

}  // namespace loom_sim
