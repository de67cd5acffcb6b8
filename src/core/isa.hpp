// Which instruction set the kernels run on.  kernels.cpp is compiled once
// per target (Highway's foreach_target); every plan node takes its kernels
// from the set chosen when it is built, so plans built before a change keep
// theirs (a plan's kernels never change under a running cursor).
#pragma once

#include <cstddef>
#include <cstdint>

#include "plan.hpp"

namespace loom {

/// One target's kernels.
struct KernelSet {
  const char *name;    // one of kIsaNames (isa_names.hpp)
  int64_t hwy_target;  // Highway's bit for the target (its CPU check)
  void (*select)(Node &n);
};

/// The sets compiled in, widest first; the last is the baseline
/// (kernels.cpp).
const KernelSet *kernel_sets(size_t *n);

/// The set new plans take: LOOM_ISA when it names a set this CPU runs,
/// else the widest the CPU supports (loom_set_isa changes it).
const KernelSet &current_kernel_set();

}  // namespace loom
