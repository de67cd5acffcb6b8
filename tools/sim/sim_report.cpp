// Printing and files of `loom sim` (sim_report.h).
#include "sim_report.h"

#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace loom_sim {
namespace {

constexpr int kSchema = 1;

std::string verdict(const RunResult &r) {
  if (r.strategy == Strategy::kHost) return "reference";
  if (r.fallback) return "host fallback";
  return r.replay.empty() ? "identical" : "MISMATCH: " + r.replay;
}

double gbit_s(size_t bytes, double ns) { return ns > 0 ? (double)bytes * 8.0 / ns : 0; }

nlohmann::json run_json(const LayoutRuns &l, const RunResult &r) {
  return {{"strategy", strategy_name(r.strategy)},
          {"time_ns", r.tl.time_ns},
          {"gbit_s", gbit_s(l.bytes, r.tl.time_ns)},
          {"speedup", r.speedup},
          {"checkpoint_cost_in_messages", r.checkpoint_cost_in_messages},
          {"fallback", r.fallback},
          {"handler_ns", {{"init", r.mean.init}, {"setup", r.mean.setup}, {"blocks", r.mean.blocks}}},
          {"busy_ns", r.tl.busy_ns},
          {"nic_memory", r.nic_memory},
          {"to_nic", r.to_nic},
          {"writes", r.writes},
          {"pcie_wire_bytes", r.tl.pcie_wire_bytes},
          {"catchup_blocks", r.catchup_blocks},
          {"resets", r.resets},
          {"iovec_refills", r.tl.iovec_refills},
          {"link_stall_ns", r.tl.link_stall_ns},
          {"max_buffer_bytes", r.tl.max_buffer_bytes},
          {"bounds_ns", {{"link", r.tl.link_bound_ns},
                         {"handlers", r.tl.handler_bound_ns},
                         {"host_interface", r.tl.pcie_bound_ns},
                         {"dma_slots", r.tl.dma_slots_bound_ns}}},
          {"closest_bound", r.binding},
          {"replay", verdict(r)},
          {"bounds_violated", r.bounds}};
}

nlohmann::json layout_json(const LayoutRuns &l) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunResult &r : l.runs) runs.push_back(run_json(l, r));
  return {{"layout", l.layout},
          {"bytes", l.bytes},
          {"packets", l.packets},
          {"blocks", l.blocks},
          {"gamma", l.gamma},
          {"state_bytes", l.state_bytes},
          {"plan_bytes", l.plan_bytes},
          {"dest_lines", l.dest_lines},
          {"measured_host_ns",
           {{"init", l.host.init_ns},
            {"block", l.host.block_ns},
            {"walk_block", l.host.walk_block_ns},
            {"seek", l.host.seek_ns},
            {"copy", l.host.copy_ns},
            {"specialized_block", l.host.specialized_block_ns},
            {"host_unpack", l.host.host_unpack_ns}}},
          {"clock_ratio", l.hpu.ratio},
          {"interval",
           {{"packets", l.interval.packets},
            {"bytes", l.interval.bytes},
            {"checkpoints", l.interval.checkpoints},
            {"bound", l.interval.bound},
            {"fits", l.interval.fits},
            {"t_ph_ns", l.interval.t_ph_ns}}},
          {"checkpoint_create_ns", l.checkpoint_create_ns},
          {"host_memory_traffic", l.host_memory_traffic},
          {"runs", runs}};
}

}  // namespace

void print_params(FILE *out, const Params &p) {
  fmt::print(out, "parameters (preset {}):\n", p.preset_name());
  for (const Param &q : p.all()) {
    // Whole numbers in full (memory sizes in bytes), the rest as they are.
    const std::string value = q.value == std::floor(q.value) && q.value < 1e15
                                  ? fmt::format("{:.0f}", q.value)
                                  : fmt::format("{:g}", q.value);
    fmt::print(out, "  {:<18} {:>12} {:<7} {:<34} {}\n", q.key, value, q.unit, q.source, q.what);
  }
  fmt::print(out,
             "  derived: clock ratio host/HPU {:.3f} (handler costs timed here x this), "
             "packet on the wire {:.1f} ns, host interface {:.1f} GB/s\n",
             p.get("host_ghz") / p.hpu_ghz(), p.packet_wire_ns(p.payload()),
             p.pcie_bytes_per_ns());
}

void print_layout(FILE *out, const LayoutRuns &l) {
  const Costs &h = l.host;
  const HpuCosts &k = l.hpu;
  fmt::print(out,
             "\n{}: {} B packed in {} packets, {} blocks (γ = {:.1f} per packet), checkpoint "
             "state {} B, plan {} B\n",
             l.layout, l.bytes, l.packets, l.blocks, l.gamma, l.state_bytes, l.plan_bytes);
  fmt::print(out,
             "  measured here (host ns -> HPU ns at x{:.2f}): init {:.1f} -> {:.1f}, block "
             "{:.2f} -> {:.2f}, walk block {:.2f} -> {:.2f}, seek {:.1f} -> {:.1f}, copy "
             "{:.1f} -> {:.1f}",
             k.ratio, h.init_ns, k.init, h.block_ns, k.block, h.walk_block_ns, k.walk_block,
             h.seek_ns, k.seek, h.copy_ns, k.copy);
  if (h.specialized_block_ns > 0)
    fmt::print(out, ", specialized block {:.2f} -> {:.2f}", h.specialized_block_ns,
               k.specialized_block);
  fmt::print(out, "; host unpack {:.1f} us (cold caches, host speed)\n", h.host_unpack_ns / 1e3);
  const Interval &iv = l.interval;
  if (iv.fits)
    fmt::print(out, "  Δr = {} packets ({} B), {} checkpoints; bound: {}\n", iv.packets, iv.bytes,
               iv.checkpoints, iv.bound);
  else
    fmt::print(out, "  Δr: no interval fits the NIC memory and packet buffer: RW-CP and RO-CP "
                    "fall back to host unpack\n");
  fmt::print(out, "  {:<12} {:>10} {:>8} {:>8} {:>24} {:>9} {:>9} {:>8}  {:<18} {}\n", "strategy",
             "time us", "Gbit/s", "speedup", "handler init/setup/blk", "NIC mem", "to NIC",
             "writes", "bounds (closest)", "replay");
  for (const RunResult &r : l.runs)
    fmt::print(out, "  {:<12} {:>10.2f} {:>8.1f} {:>8.2f} {:>24} {:>9} {:>9} {:>8}  {:<18} {}\n",
               strategy_name(r.strategy), r.tl.time_ns / 1e3, gbit_s(l.bytes, r.tl.time_ns),
               r.speedup,
               r.mean.total() > 0
                   ? fmt::format("{:.0f}/{:.0f}/{:.0f} ns", r.mean.init, r.mean.setup, r.mean.blocks)
                   : "-",
               r.nic_memory, r.to_nic, r.writes,
               r.bounds.empty() ? "ok (" + r.binding + ")" : "VIOLATED: " + r.bounds, verdict(r));
}

void Report::add(const std::string &figure, double x, int hpus, LayoutRuns r) {
  entries_.push_back({figure, x, hpus, std::move(r)});
}

bool Report::ok() const {
  for (const Entry &e : entries_)
    if (!all_ok(e.runs)) return false;
  return true;
}

size_t Report::runs() const {
  size_t n = 0;
  for (const Entry &e : entries_) n += e.runs.runs.size();
  return n;
}

std::string Report::write_json(const std::string &path, const std::string &command) const {
  nlohmann::json params = nlohmann::json::array();
  for (const Param &q : params_.all())
    params.push_back({{"key", q.key}, {"value", q.value}, {"unit", q.unit},
                      {"source", q.source}, {"what", q.what}});
  nlohmann::json results = nlohmann::json::array();
  for (const Entry &e : entries_) {
    nlohmann::json j = layout_json(e.runs);
    j["figure"] = e.figure;
    j["x"] = e.x;
    j["hpus"] = e.hpus;
    results.push_back(std::move(j));
  }
  const nlohmann::json doc = {{"schema", kSchema}, {"tool", "loom sim"},
                              {"command", command}, {"preset", params_.preset_name()},
                              {"calibration", calibration_},
                              {"params", params}, {"results", results}};
  std::ofstream out(path);
  out << doc.dump(1) << "\n";
  return out ? "" : "cannot write " + path;
}

std::string Report::write_csv(const std::string &path) const {
  std::ofstream out(path);
  out << "figure,x,hpus,layout,bytes,packets,blocks,gamma,strategy,time_ns,gbit_s,speedup,"
         "fallback,init_ns,setup_ns,blocks_ns,nic_memory,to_nic,writes,catchup_blocks,resets,"
         "interval_bytes,interval_bound,checkpoints,checkpoint_create_ns,host_unpack_ns,"
         "dest_lines,host_memory_traffic,checkpoint_cost_in_messages,closest_bound,replay\n";
  for (const Entry &e : entries_) {
    const LayoutRuns &l = e.runs;
    for (const RunResult &r : l.runs)
      out << fmt::format(
          "{},{:g},{},\"{}\",{},{},{},{:.3f},{},{:.1f},{:.3f},{:.4f},{},{:.2f},{:.2f},{:.2f},{},{},"
          "{},{},{},{},\"{}\",{},{:.0f},{:.0f},{},{},{:g},\"{}\",\"{}\"\n",
          e.figure, e.x, e.hpus, l.layout, l.bytes, l.packets, l.blocks, l.gamma,
          strategy_name(r.strategy), r.tl.time_ns, gbit_s(l.bytes, r.tl.time_ns), r.speedup,
          r.fallback ? 1 : 0, r.mean.init, r.mean.setup, r.mean.blocks, r.nic_memory, r.to_nic,
          r.writes, r.catchup_blocks, r.resets, l.interval.bytes, l.interval.bound,
          l.interval.checkpoints, l.checkpoint_create_ns, l.host.host_unpack_ns, l.dest_lines,
          l.host_memory_traffic, r.checkpoint_cost_in_messages,
          r.binding, verdict(r));
  }
  return out ? "" : "cannot write " + path;
}

}  // namespace loom_sim
