// Which instruction set the kernels run on.  kernels.cpp is compiled once
// per target (Highway's foreach_target); every plan node takes its kernels
// from the set chosen when it is built, so plans built before a change keep
// theirs (a plan's kernels never change under a running cursor).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "plan.hpp"

namespace loom {

/// How a kernel set copies a long contiguous region, or a row a few bytes
/// past its source modulo 4 KiB (long_copy-inl.hpp): glibc's memcpy, the
/// set's loop of up to 32-byte vectors, or of 64-byte ones (AVX-512).
enum class CopyWay : uint8_t { kMemcpy, kLoop, kLoopWide };
struct CopyWays {
  CopyWay region;  ///< a region of the user's, not near
  CopyWay near;    ///< a copy `rep movsb` would take slowly
};
/// One target's kernels.
struct KernelSet {
  const char *name;    // one of kIsaNames (isa_names.hpp)
  int64_t hwy_target;  // Highway's bit for the target (its CPU check)
  void (*select)(Node &n);
  /// n contiguous bytes of a region, not overlapping (long_copy-inl.hpp).
  void (*copy)(char *dst, const char *src, size_t n);
  /// How `copy` and the kernels' long rows copy (measured on first call).
  CopyWays (*copy_ways)();
};

/// The sets compiled in, widest first; the last is the baseline
/// (kernels.cpp).
const KernelSet *kernel_sets(size_t *n);

/// The set new plans take: LOOM_ISA when it names a set this CPU runs,
/// else the widest the CPU supports (loom_set_isa changes it).
const KernelSet &current_kernel_set();

/// Whether AVX2's masked stores (vpmaskmovd) cost more than 2.5 plain
/// stores of a register on this CPU (store_probe.cpp): measured once, on
/// the first call, in a few microseconds.  AMD's are microcoded (the Zen 4
/// VM: 3.4 ns against 0.54), Intel's one store; the AVX2 set then leaves
/// small patterns to plain moves.  Call only where the CPU runs AVX2.
bool masked_stores_slow();

/// Tests: 1 or 0 answers masked_stores_slow() so from now on, -1 measures.
void force_masked_stores_slow(int slow);

/// Tests: -1 lets every set measure its ways; region | near << 2 forces
/// them (a set without 64-byte vectors copies kLoopWide by memcpy).
inline std::atomic<int> g_forced_copy_ways{-1};

/// Whether AVX-512's masked stores into lines in no cache wait for each
/// line, so that loops of them run 1.3x or more faster with write
/// prefetches ahead (store_probe.cpp: a flushed 64 KiB, a few tenths of a
/// millisecond).  On the AMD EPYC Zen 5 VM they did, 2x: unpacking every
/// other float of 4 MiB to a buffer just evicted, 6.8 GB/s against the
/// plain loop's 9.9, 13.0 with prefetches; on the Zen 4 VM the prefetches
/// cost more than they hid (kernels.cpp prefetch_ahead).  Unpacking's
/// masked-store loops prefetch where this holds.  Call only where the CPU
/// runs AVX-512.
bool measure_cold_masked_stores_slow();
/// Tests: -1 lets cold_masked_stores_slow() measure, 0 or 1 answers so.
inline std::atomic<int> g_forced_cold_stores{-1};
/// The same, measured at first use (checked only where a loop moves
/// kFromMemory bytes or more).
inline bool cold_masked_stores_slow() {
  const int forced = g_forced_cold_stores.load(std::memory_order_relaxed);
  if (forced >= 0) return forced != 0;
  static const bool slow = measure_cold_masked_stores_slow();
  return slow;
}

}  // namespace loom
