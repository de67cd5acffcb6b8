// The NIC model's parameters for `loom sim`, each with where its value comes
// from: a preset (the sPIN datatype paper's configuration or PsPIN's public
// one), a measurement on this machine, a stated assumption, a --config file
// or a --set on the command line.  Printing every parameter with its source
// is what makes a simulated figure checkable.
#pragma once

#include <string>
#include <vector>

namespace loom_sim {

struct Param {
  std::string key;
  double value = 0;
  std::string unit;
  std::string source;  // "paper §5.1", "PsPIN", "assumed", "file", "command line", ...
  std::string what;
};

// The model's inputs, read through typed accessors so that a misspelt key
// fails at start-up (set()) rather than silently using a default.
class Params {
 public:
  // "paper" (Di Girolamo et al., SC'19: 32 Cortex-A15 HPUs at 800 MHz,
  // 200 Gbit/s, 2 KiB packets, PCIe Gen4 x32) or "pspin" (PsPIN: 32 cores
  // at 1 GHz, 4 clusters with 1 MiB L1 each, 4 MiB L2, 400 Gbit/s).
  static Params preset(const std::string &name);

  double get(const std::string &key) const;
  // Replaces a known key's value and records the source; throws
  // std::invalid_argument for an unknown key or a value out of range.
  void set(const std::string &key, double value, const std::string &source);
  // "key=value" (--set).
  void set_assignment(const std::string &kv, const std::string &source);
  // A flat JSON object {"key": number, ...} (--config).
  void load_file(const std::string &path);

  const std::vector<Param> &all() const { return params_; }
  const std::string &preset_name() const { return preset_; }

  // The derived quantities every module needs, in ns and bytes.
  int hpus() const { return (int)get("hpus"); }
  double hpu_ghz() const { return get("hpu_ghz"); }
  size_t payload() const { return (size_t)get("payload_bytes"); }
  double packet_wire_ns(size_t payload_bytes) const;  // header + payload at link rate
  double link_bytes_per_ns() const { return get("link_gbit_s") / 8.0; }
  // Host interface: bytes on the wire (TLPs, 128b/130b) for a write of len.
  double pcie_wire_bytes(size_t len) const;
  double pcie_bytes_per_ns() const;

 private:
  Param *find(const std::string &key);
  std::string preset_;
  std::vector<Param> params_;
};

}  // namespace loom_sim
