// `loom bench cma`: single-copy transfers between two processes on one node
// with cross-memory attach (process_vm_readv), the SGRS comparison without
// a NIC.  A forked sender holds a vector layout (blocks of 8 B .. 64 KiB,
// every other block-sized slot); the receiver moves 4 KiB .. 16 MiB of it
// into the same layout of its own by each scheme:
//   memcpy       the same bytes, contiguous, within one process (the bound)
//   single_copy  paired iovec batches, one process_vm_readv per batch
//   per_block    one process_vm_readv per sender block
//   staged       sender packs, one contiguous process_vm_readv, receiver unpacks
//   from_packed  sender packs, receiver scatters from the packed buffer
// Rounds interleave the schemes in shuffled order; medians are reported as
// bandwidth (message bytes per second) in a table and in the JSON
// (docs/benchmarks.md schema; scripts/plot_cma.py draws it).
#pragma once

#include <string>

#include "run_meta.h"

namespace loom_bench {

struct CmaBenchArgs {
  bool quick = false;   // small sizes, two rounds
  int reps = 0;         // rounds per case; 0: as many as fit in budget
  double budget = 0.25; // seconds of rounds per case when reps is 0
  std::string json, csv;
};

int bench_cma(const CmaBenchArgs &args, const RunInfo &run);

}  // namespace loom_bench
