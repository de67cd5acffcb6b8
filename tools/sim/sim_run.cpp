// One layout, every strategy (sim_run.h).
#include "sim_run.h"

#include <fmt/format.h>

#include "sim_replay.h"

namespace loom_sim {
namespace {

// The bound a result must not beat, and the one it comes closest to.
void check_bounds(RunResult &r) {
  const bool host_unpack = r.strategy == Strategy::kHost || r.fallback;
  const struct {
    const char *name;
    double ns;
  } bounds[] = {{"link", r.tl.link_bound_ns},
                {host_unpack                      ? "link + host unpack"
                 : r.strategy == Strategy::kIovec ? "iovec refills"
                                                  : "handler throughput",
                 r.tl.handler_bound_ns},
                {"host interface", r.tl.pcie_bound_ns},
                {"DMA slots", r.tl.dma_slots_bound_ns}};
  double closest = 0;
  for (const auto &b : bounds) {
    if (r.tl.time_ns < b.ns * (1 - 1e-9))
      r.bounds += fmt::format("{}faster than the {} bound ({:.0f} ns < {:.0f} ns)",
                              r.bounds.empty() ? "" : "; ", b.name, r.tl.time_ns, b.ns);
    if (b.ns >= closest) closest = b.ns, r.binding = b.name;
  }
}

}  // namespace

LayoutRuns run_layout(const Params &p, const Layout &l, const Costs &costs,
                      const RunOptions &o) {
  LayoutRuns out(costs, p);
  out.layout = l.name();
  out.bytes = l.packed();
  out.packets = (l.packed() + p.payload() - 1) / p.payload();
  out.blocks = l.blocks(p.payload());
  out.gamma = (double)out.blocks / (double)out.packets;
  out.state_bytes = l.state_bytes();
  out.plan_bytes = l.plan_bytes();
  out.dest_lines = l.dest_lines();
  out.host_memory_traffic = 2 * l.packed() + 2 * 64 * l.dest_lines();
  out.interval = choose_interval(p, l, out.hpu, out.gamma);
  if (o.checkpoint_cost && out.interval.fits)
    out.checkpoint_create_ns = checkpoint_create_ns(l, out.interval.bytes, o.calibration);

  const Replayer replay(l);
  RunResult host;
  host.tl = simulate_host(p, l, costs.host_unpack_ns);
  host.speedup = 1;
  check_bounds(host);
  out.runs.push_back(host);
  for (Strategy s : o.strategies) {
    if (s == Strategy::kHost || (s == Strategy::kSpecialized && !l.is_vector())) continue;
    RunResult r;
    r.strategy = s;
    const bool checkpointed = s == Strategy::kRoCp || s == Strategy::kRwCp;
    std::vector<DmaWrite> writes;
    if (checkpointed && !out.interval.fits) {
      r.fallback = true;  // no Δr fits the NIC: the host unpack (the reference) stands
      r.tl = host.tl;
    } else if (s == Strategy::kIovec) {
      r.tl = simulate_iovec(p, l, writes);
      r.to_nic = out.blocks * (size_t)p.get("iovec_entry_bytes");
      r.nic_memory = (size_t)(p.get("iovec_entries") * p.get("iovec_entry_bytes"));
    } else {
      auto h = make_handlers(s, l, p, out.hpu, out.interval, o.catchup);
      r.tl = simulate_offload(p, l, *h, out.hpu, o.engine, writes);
      r.nic_memory = h->nic_memory();
      r.to_nic = h->to_nic();
      r.catchup_blocks = h->catchup_blocks;
      r.resets = h->resets;
      const double n = (double)r.tl.packets;
      r.mean = {r.tl.handler_sum.init / n, r.tl.handler_sum.setup / n,
                r.tl.handler_sum.blocks / n};
    }
    r.writes = writes.size();
    if (o.corrupt_replay && !writes.empty()) writes[writes.size() / 2].dest += 1;
    if (!r.fallback) r.replay = replay.check(writes);
    r.speedup = host.tl.time_ns / r.tl.time_ns;
    const double saved = host.tl.time_ns - r.tl.time_ns;
    if (checkpointed && !r.fallback && out.checkpoint_create_ns > 0 && saved > 0)
      r.checkpoint_cost_in_messages =
          (out.checkpoint_create_ns + (double)r.to_nic / p.pcie_bytes_per_ns()) / saved;
    check_bounds(r);
    out.runs.push_back(r);
  }
  return out;
}

bool all_ok(const LayoutRuns &r) {
  for (const RunResult &x : r.runs)
    if (!x.replay.empty() || !x.bounds.empty()) return false;
  return true;
}

}  // namespace loom_sim
