// Loom-to-Loom thresholds from the cross-memory attach probe (calibrate.hpp).
#include "calibrate.hpp"

#include <algorithm>
#include <cmath>

namespace loom {
namespace xfer {

void calibrate_l2l(Rules *r, const CmaCosts &c, const CalibrationInputs &in) {
  // With the shared arena a pipelined stream of a few MiB is a pack and an
  // unpack that overlap, in cache: measured on the AMD EPYC VM (three
  // launches each way, interleaved), Loom-to-Loom before the system path
  // took NAS MG y/z and vectors of 512 B - 64 KiB runs at 1 MiB from
  // 1.00-1.02x to 0.37-0.70x the better of hand and the system path on
  // MPICH and from 1.01-2.08x to 0.78-1.83x on Open MPI; at 16 MiB Open
  // MPI's own path won (1.4x), so the rule stops at 4 MiB.
  if (in.arena) r->l2l_before_system_max = size_t(4) << 20;
  if (!c.measured) return;
  // Single copy's rival is a pipelined stream: with the arena unpacked in
  // place, so reads that lose to the transport's copies may still beat
  // its two copies where runs are long (on the Intel Xeon VM: reads at
  // 0.54x memcpy's speed and 0.19 us a segment, single copy from 27 KiB
  // runs; a MiB of 64 KiB runs round-tripped in 175 us single copy, 220
  // pipelined on MPICH).
  const double run = c.single_copy_run(in.arena);
  if (!in.run_set)
    r->l2l_run = run > 0 && run < 1e15 ? std::max<int64_t>(r->l2l_run, (int64_t)std::ceil(run))
                                       : INT64_MAX;
  if (c.stream_wins()) return;
  // Reads that lose to copies beat a stream only while the data sits in
  // the caches, as the probe's did: at 16 MiB of 64 KiB runs a pipelined
  // round trip took 5.6-6.7 ms on MPICH against single copy's 6.7-9.4
  // (the tune's sweep there: single copy fastest at 256 KiB, pipelined
  // from 2 MiB).
  r->l2l_single_max = kCmaProbeBytes;
  // With the arena the receiver unpacks the stream in place, so
  // LOOM_L2L_MIN's default stands (the system's eager limit: the settings'
  // registry).  Without it the stream is read with cross-memory attach,
  // and slow reads still beat staging only on large streams, whose packing
  // the pipeline overlaps and whose transport copies leave the caches:
  // measured on the slow Intel VM, pipelined won from 1 MiB on MPICH (its
  // transport is slower per byte) and only at 16 MiB on Open MPI (it lost
  // at 2 MiB).
  if (in.min_set || in.arena) return;
  r->l2l_min = std::max(r->l2l_min, in.mpich ? size_t(1) << 20 : size_t(8) << 20);
}

}  // namespace xfer
}  // namespace loom
