// The selection rules' Loom-to-Loom thresholds, calibrated on the node by
// the cross-memory attach probe (no MPI in here; docs/tune.md, 4 and 4a).
#pragma once

#include "cma_probe.hpp"
#include "select.hpp"

namespace loom {
namespace xfer {

/// What calibration needs besides the probe's figures.
struct CalibrationInputs {
  bool min_set = false;  ///< LOOM_L2L_MIN came from the environment: kept as it is
  bool run_set = false;  ///< LOOM_L2L_RUN came from the environment: kept as it is
  bool arena = false;    ///< packed copies lie in the shared arena (LOOM_L2L_ARENA)
  bool mpich = false;    ///< the build's MPI is MPICH (else Open MPI)
};

/// Adjusts @p r (holding the settings' values) to the node's costs @p c:
/// with the arena, Loom-to-Loom before the system path up to 4 MiB;
/// single copy from the mean run where one segment per run still beats
/// the rival stream (CmaCosts::single_copy_run); where reading a stream
/// loses to the transport's copies, single copy (if ever) only for
/// messages the probe's cached reads speak for and, without the arena,
/// pipelined streams only from 1 MiB (MPICH) or 8 MiB (Open MPI).  A
/// threshold set in the environment is never changed; nothing is when the
/// probe could not run.
void calibrate_l2l(Rules *r, const CmaCosts &c, const CalibrationInputs &in);

}  // namespace xfer
}  // namespace loom
