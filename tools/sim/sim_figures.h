// The sweeps behind the paper's figures, as `loom sim --figures DIR` runs
// them (scripts/plot_sim.py draws them):
//   fig8       4 MiB vector, stride 2 x block, blocks 4 B..2 KiB, every
//              strategy and the host (Figure 8; Figure 12's breakdown is
//              the same runs' handler times)
//   fig8-seek  the same with catch-ups charged as one loom_cursor_seek
//   fig13a     2 KiB blocks, 1..64 HPUs (throughput)
//   fig13b     16 HPUs, blocks 4 B..2 KiB (NIC memory)
//   fig13c     128 B blocks, 1..64 HPUs (NIC memory)
//   fig16      the DDTBench layouts (Figures 16-18: speedup, data moved,
//              reuses to amortize checkpoint creation)
#pragma once

#include <vector>

#include "bench/cases.h"
#include "sim_params.h"
#include "sim_report.h"
#include "sim_run.h"

namespace loom_sim {

// Runs every sweep into `report`, printing each layout's table on stdout.
void run_figures(const Params &p, const RunOptions &o, const std::vector<loom_bench::CaseDef> &ddt,
                 Report &report);

}  // namespace loom_sim
