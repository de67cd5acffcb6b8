// The sizes of the CPU's caches.  The last level's: where a streamed
// (non-temporal) pack stops costing its reader.  A stream written past the
// caches is read back from memory by whoever consumes it next (the MPI's
// copy to a peer, the NIC's DMA), so packing by non-temporal stores pays
// only where the stream would not have stayed in cache anyway
// (streaming_from).  The first level's data cache: where a loop whose
// stores fill whole registers starts to beat one that moves a block at a
// time with fewer instructions (kernels.cpp blocks_by_threes).
#pragma once

#include <cstdint>

namespace loom {

/// Where an alternative kernel differs only once the data comes from L3 or
/// memory (the dense pack's moves, the moves beside pairs), messages time
/// their calls from this size on (Node::timed_from): at 64 KiB the timing
/// cost 9-12% of a fast pattern's call (pattern_sweep, 8 doubles of every
/// 19), and the kernels ran alike within L2.
constexpr int64_t kFromMemory = int64_t(1) << 20;

/// Bytes of the largest unified cache cpu0 reports (Linux sysfs; else
/// sysconf's level 3 or 2 size; else 32 MiB), read once.  Virtual machines
/// report what their host tells them: glibc's CPUID reading gave 320 MiB
/// on the 2-core Zen 4 VM whose sysfs says 32 MiB.
int64_t last_level_cache_bytes();

/// Bytes of cpu0's level 1 data cache (Linux sysfs; else sysconf; else
/// 32 KiB).
int64_t measure_l1_data_cache_bytes();
/// The same, measured at first use, not where the library loads.  Inline:
/// a kernel's check then costs a load and a branch, where a call cost
/// strided blocks of 12 and 24 bytes 1-2% at 2 KiB (kernels.cpp k_vec_blk).
inline int64_t l1_data_cache_bytes() {
  static const int64_t bytes = measure_l1_data_cache_bytes();
  return bytes;
}

/// Messages of this many bytes or more may pack by non-temporal stores: a
/// quarter of the last-level cache, at least kFromMemory (kernels.cpp).
int64_t streaming_from();

}  // namespace loom
