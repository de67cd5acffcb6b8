// `loom bench summary`: one table from the JSON files of `loom bench pack`,
// `p2p` and `coll` (--json).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace loom_bench {

// Per suite, flavour and case group: the geometric means of Loom's time
// over the hand loop's, the system MPI's and the bound's, and the worst case
// against the better of hand and MPI, from the medians and from the fastest
// samples, printed on `out`.
//
// Every file is read and checked before anything is printed: one that
// cannot be opened or read, is not JSON, has another schema version or
// suite, or has a field of the wrong shape is named on `err` with what is
// wrong (and which field), and the function returns 2 without the table.
// Returns 0 otherwise.
int print_bench_summary(std::FILE *out, std::FILE *err, const std::vector<std::string> &paths);

}  // namespace loom_bench
