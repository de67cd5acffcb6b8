// The discrete-event core of `loom sim`: packets of one message arrive at
// link rate into a bounded packet buffer (in order, or shuffled within a
// window); a header handler runs first, payload handlers run on N HPUs as
// vHPUs scheduled blocked round robin, each issuing its DMA writes one block
// at a time with at most D in flight per HPU over a shared host interface
// (TLP overhead, bandwidth, latency); the completion handler runs once every
// payload handler has ended and every write has landed, and its zero-byte
// write ends the message.  Also the two baselines that need no handlers:
// an iovec NIC and a contiguous receive followed by host unpack.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim_layout.h"
#include "sim_params.h"
#include "sim_strategies.h"

namespace loom_sim {

struct EngineOptions {
  size_t reorder = 0;  // 0/1: in order; w: packets shuffled within windows of w
  uint64_t seed = 1;
};

struct Timeline {
  double time_ns = 0;           // first byte arrives -> last DMA write lands
  size_t packets = 0;
  HandlerCost handler_sum;      // all payload handlers
  double busy_ns = 0;           // header + payload + completion handlers
  double link_stall_ns = 0;     // arrivals held back by a full packet buffer
  size_t max_buffer_bytes = 0;
  double pcie_wire_bytes = 0;   // every write, TLP overhead included
  size_t iovec_refills = 0;     // iovec NIC: PCIe reads of entries
  // Closed-form lower bounds on time_ns; handler_bound_ns is the busy time
  // over the HPUs (offload), the serial iovec refills (iovec NIC), or the
  // link plus the unpack (host).
  double link_bound_ns = 0, handler_bound_ns = 0, pcie_bound_ns = 0;
  // Every issuer keeps at most D writes in flight, each for at least the
  // DMA latency: writes x latency / (issuers x D).
  double dma_slots_bound_ns = 0;
};

// An offloaded strategy.  Appends the handlers' DMA writes to `writes`.
Timeline simulate_offload(const Params &p, const Layout &l, Handlers &h, const HpuCosts &k,
                          const EngineOptions &o, std::vector<DmaWrite> &writes);
// The Portals 4 iovec NIC of §5.3: in order, `iovec_entries` entries on the
// NIC, a PCIe read each time they are used up, one DMA write per block from
// a DMA engine with hpus x dma_outstanding writes in flight.
Timeline simulate_iovec(const Params &p, const Layout &l, std::vector<DmaWrite> &writes);
// Contiguous receive of the packed message, then loom_unpack on the host
// (`unpack_ns`, measured here).
Timeline simulate_host(const Params &p, const Layout &l, double unpack_ns);

}  // namespace loom_sim
