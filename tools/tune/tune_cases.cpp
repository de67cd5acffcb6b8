// The sweep of `loom tune`: vectors of doubles over block length x message
// size (the grid of the profile), and the DDTBench layouts (off the grid:
// they test the profile's interpolation).
#include "tune.h"

#include "bench/p2p_bench.h"

namespace loom_tune {

TuneGrid tune_grid(bool quick) {
  if (quick) return {{8, 512, 32768}, {4096, 65536, 1048576}};
  // Factors of 8 (the last block 64 KiB): the crossovers are a few
  // octaves wide.  Except one: the systems' eager limits (4 KiB Open MPI,
  // 8 KiB MPICH) put a step into staging's time that log-log
  // interpolation between 4 and 32 KiB smooths away (MPICH, 8-byte runs:
  // 2.1 us at 4 KiB, 12 at 32; LAMMPS atomic, 11.4 KiB, staged at 8.2 us
  // against 5.5 pipelined), so 16 KiB, above both limits, is measured too.
  return {{8, 64, 512, 4096, 65536}, {4096, 16384, 32768, 262144, 2097152, 16777216}};
}

std::vector<TuneCase> tune_cases(bool quick) {
  const TuneGrid g = tune_grid(quick);
  std::vector<TuneCase> out;
  for (size_t i = 0; i < g.runs.size(); ++i)
    for (size_t j = 0; j < g.bytes.size(); ++j)
      if (g.runs[i] <= g.bytes[j])
        out.push_back({loom_bench::vector_case((size_t)g.runs[i], (size_t)g.bytes[j]), (int)i,
                       (int)j});
  // Contiguous messages of the grid's sizes (no mean-run index): where
  // reading in place beats the system's copy (the profile's contiguous
  // rows).
  for (size_t j = 0; j < g.bytes.size(); ++j)
    out.push_back({loom_bench::contiguous_case((size_t)g.bytes[j]), -1, (int)j});
  std::vector<loom_bench::CaseDef> ddt;
  loom_bench::add_ddtbench_cases(ddt);
  for (auto &d : ddt) out.push_back({std::move(d), -1, -1});
  return out;
}

std::vector<loom_bench::CollDef> tune_coll_cases(bool quick) {
  // Three families, so that the crossover holds for all: FFT2D transposes
  // (16-byte runs on the receive side), vectors of 64-byte and 4 KiB runs
  // on both sides (which staging packs at memory speed), and 3D halo faces
  // of 1 KiB runs through Neighbor_alltoallw (no block to the rank itself,
  // which the all-to-alls copy locally).  With 2 ranks, blocks of 32 KiB
  // to 4 MiB (halos to 512 KiB) in steps of about 2x.
  std::vector<loom_bench::CollDef> out;
  const std::vector<int64_t> halo = quick ? std::vector<int64_t>{12}
                                          : std::vector<int64_t>{64, 90, 128, 181, 256};
  for (int64_t x : halo) out.push_back(loom_bench::halo_case(x, 0));
  const std::vector<int64_t> n = quick ? std::vector<int64_t>{32, 64}
                                       : std::vector<int64_t>{90, 128, 180, 256, 362, 512, 724, 1024};
  for (int64_t x : n) out.push_back(loom_bench::fft_case(x, false));
  const std::vector<size_t> runs = quick ? std::vector<size_t>{4096} : std::vector<size_t>{64, 4096};
  for (size_t run : runs)
    for (size_t block = quick ? 16384 : 32768; block <= (quick ? 16384u : 4u << 20); block *= 2)
      out.push_back(loom_bench::vector_coll_case(loom_bench::VecColl::alltoall, run, block));
  return out;
}

}  // namespace loom_tune
