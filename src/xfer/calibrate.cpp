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
  if (c.stream_wins()) {
    const double run = c.single_copy_run();
    if (!in.run_set)
      r->l2l_run = run > 0 && run < 1e15 ? std::max<int64_t>(r->l2l_run, (int64_t)std::ceil(run))
                                         : INT64_MAX;
    return;
  }
  if (!in.run_set) r->l2l_run = INT64_MAX;  // one segment per run never pays here
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
