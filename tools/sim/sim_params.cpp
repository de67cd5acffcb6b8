// Presets and overrides of the NIC model (sim_params.h).
#include "sim_params.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace loom_sim {
namespace {

// The host's clock: handler costs timed here are scaled to the HPU by
// host_ghz / hpu_ghz.  /proc/cpuinfo's "cpu MHz" is what the kernel reports
// for core 0 (a VM reports its nominal clock).
double host_ghz_from_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return std::stod(line.substr(colon + 1)) / 1000.0;
  }
  return 0;
}

const char *const kPaper = "paper §5.1";
const char *const kPaperIovec = "paper §5.3";
const char *const kPsPIN = "PsPIN";

}  // namespace

Params Params::preset(const std::string &name) {
  if (name != "paper" && name != "pspin")
    throw std::invalid_argument("unknown preset '" + name + "' (paper or pspin)");
  const bool pspin = name == "pspin";
  Params p;
  p.preset_ = name;
  const char *hw = pspin ? kPsPIN : kPaper;
  const double host = host_ghz_from_cpuinfo();
  p.params_ = {
      {"hpus", 32, "", hw, "handler processing units (HPUs)"},
      {"hpu_ghz", pspin ? 1.0 : 0.8, "GHz", hw, "HPU clock f"},
      {"link_gbit_s", pspin ? 400.0 : 200.0, "Gbit/s", hw, "link bandwidth B"},
      {"payload_bytes", 2048, "B", kPaper, "packet payload P (k in the paper)"},
      {"header_bytes", 64, "B", "assumed", "packet header H on the wire (not stated)"},
      {"pcie_gt_s", 16, "GT/s", kPaper, "host interface lane rate (PCIe Gen4)"},
      {"pcie_lanes", 32, "", kPaper, "host interface lanes (x32)"},
      {"pcie_max_payload", 256, "B", "assumed", "PCIe max TLP payload"},
      {"pcie_tlp_overhead", 24, "B", "assumed",
       "per TLP: 16 B header (4DW, 64-bit address) + 4 B LCRC + 4 B framing and sequence"},
      {"dma_latency_ns", 250, "ns", "assumed",
       "a DMA write lands this long after its last byte leaves (half the 500 ns read)"},
      {"dma_outstanding", 8, "", "assumed", "DMA writes in flight per HPU before it stalls"},
      {"dma_issue_cycles", 0, "cycles", "assumed",
       "HPU cycles per DMA command beyond the measured per-block costs (which store it to a ring)"},
      {"pcie_read_ns", 500, "ns", kPaperIovec, "PCIe read round trip (iovec refill)"},
      {"iovec_entries", 32, "", kPaperIovec, "iovec entries the NIC holds (ConnectX-3)"},
      {"iovec_entry_bytes", 16, "B", "assumed", "one iovec entry: address + length"},
      {"nic_mem_bytes", pspin ? 4.0 * (1 << 20) : 12.0 * (1 << 20), "B",
       pspin ? "PsPIN (4 clusters x 1 MiB L1)" : "paper §4.1 (4 MiB L1 + 8 MiB L2)",
       "NIC memory M_NIC for checkpoints and handler state"},
      {"pkt_buffer_bytes", 4.0 * (1 << 20), "B", pspin ? kPsPIN : "assumed (PsPIN's L2)",
       "NIC packet buffer B_pkt"},
      {"epsilon", 0.2, "", kPaper, "scheduling overhead bound of the Δr rule"},
      {"host_ghz", host > 0 ? host : 1.0, "GHz",
       host > 0 ? "measured here (/proc/cpuinfo)" : "assumed (no cpu MHz)",
       "host clock; handler costs timed here scale by host_ghz / hpu_ghz"},
  };
  return p;
}

Param *Params::find(const std::string &key) {
  for (Param &p : params_)
    if (p.key == key) return &p;
  return nullptr;
}

double Params::get(const std::string &key) const {
  for (const Param &p : params_)
    if (p.key == key) return p.value;
  throw std::logic_error("sim parameter '" + key + "' is not defined");
}

void Params::set(const std::string &key, double value, const std::string &source) {
  Param *p = find(key);
  if (!p) {
    std::string known;
    for (const Param &q : params_) known += (known.empty() ? "" : ", ") + q.key;
    throw std::invalid_argument("unknown sim parameter '" + key + "' (known: " + known + ")");
  }
  const bool may_be_zero = key == "dma_latency_ns" || key == "pcie_read_ns" ||
                           key == "header_bytes" || key == "pcie_tlp_overhead" ||
                           key == "dma_issue_cycles";
  if (!std::isfinite(value) || value < 0 || (value == 0 && !may_be_zero))
    throw std::invalid_argument("sim parameter " + key + " must be positive");
  p->value = value;
  p->source = source;
}

void Params::set_assignment(const std::string &kv, const std::string &source) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos)
    throw std::invalid_argument("--set wants key=value, got '" + kv + "'");
  size_t used = 0;
  const std::string text = kv.substr(eq + 1);
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw std::invalid_argument("--set " + kv + ": the value is not a number");
  set(kv.substr(0, eq), v, source);
}

void Params::load_file(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read " + path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception &e) {
    throw std::invalid_argument(path + ": not JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw std::invalid_argument(path + ": want an object of key: number");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_number())
      throw std::invalid_argument(path + ": " + it.key() + " is not a number");
    set(it.key(), it.value().get<double>(), "file " + path);
  }
}

double Params::packet_wire_ns(size_t payload_bytes) const {
  return (double)(payload_bytes + (size_t)get("header_bytes")) / link_bytes_per_ns();
}

double Params::pcie_wire_bytes(size_t len) const {
  const double mps = get("pcie_max_payload");
  const double tlps = len == 0 ? 1 : std::ceil((double)len / mps);
  return (double)len + tlps * get("pcie_tlp_overhead");
}

double Params::pcie_bytes_per_ns() const {
  // GT/s per lane x lanes x 128b/130b, in bytes per ns.
  return get("pcie_gt_s") * get("pcie_lanes") * (128.0 / 130.0) / 8.0;
}

}  // namespace loom_sim
