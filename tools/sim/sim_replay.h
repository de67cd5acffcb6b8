// Correctness of every simulated message: the DMA writes a strategy issued
// are replayed into a guard-filled copy of the receive allocation and
// compared byte for byte (gaps and guards included) with loom_unpack of the
// same packed stream into an identically filled allocation.
#pragma once

#include <string>
#include <vector>

#include "sim_layout.h"

namespace loom_sim {

class Replayer {
 public:
  explicit Replayer(const Layout &l);
  // "" when the writes cover the stream exactly once and land the bytes
  // loom_unpack lands; otherwise what is wrong, and where.
  std::string check(const std::vector<DmaWrite> &writes) const;

 private:
  void fill_guards(std::vector<char> &buf) const;
  const Layout &l_;
  std::vector<char> packed_, expected_;
};

}  // namespace loom_sim
