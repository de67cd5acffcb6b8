// `loom bench engine`: the engine's own promises, measured — commit cost
// (independent of element count for vector/subarray, linear in blocks for
// indexed) and seek cost (packing 1 MiB at a random offset of a 1 GiB
// indexed layout against packing its first 1 MiB).
#pragma once

namespace loom_bench {
int bench_engine(bool quick);
}
