#include "commit_mpi.h"

#include <dlfcn.h>
#include <mpi.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_json.h"
#include "harness.h"

namespace loom_bench {
namespace {

// Whether MPI_Type_commit is not the system's own (a preloaded drop-in).
bool intercepted() {
  return dlsym(RTLD_DEFAULT, "MPI_Type_commit") != dlsym(RTLD_DEFAULT, "PMPI_Type_commit");
}

struct Cost {
  std::vector<double> build, commit;
};

// Seconds to construct (make) and to commit, `reps` times.
template <class Make>
Cost cost(Make make, int reps) {
  Cost c;
  for (int r = 0; r < reps; r++) {
    double t0 = now_s();
    MPI_Datatype t = make();
    double t1 = now_s();
    MPI_Type_commit(&t);
    c.commit.push_back(now_s() - t1);
    c.build.push_back(t1 - t0);
    MPI_Type_free(&t);
  }
  return c;
}

nlohmann::json row(const std::string &name, const std::string &sizes, const Cost &c) {
  nlohmann::json k = nlohmann::json::object();
  k["construct"] = samples_json(1, c.build);
  k["commit"] = samples_json(1, c.commit);
  return {{"name", name}, {"group", "MPI"}, {"sizes", sizes}, {"contenders", k}};
}

}  // namespace

nlohmann::json mpi_commit_table(bool quick) {
  const bool loom = intercepted();
  const int reps = quick ? 3 : 101;
  fmt::print("\ncommit through MPI_Type_commit ({}), median of {}\n",
             loom ? "Loom's drop-in" : "the system MPI: preload libloom-mpi.so to measure Loom",
             reps);
  nlohmann::json rows = nlohmann::json::array();
  MPI_Datatype pair;
  int bl2[2] = {1, 1};
  MPI_Aint d2[2] = {0, 8};
  MPI_Datatype t2[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, bl2, d2, t2, &pair);
  const int nmix = quick ? 1000 : 100000000;
  Cost m = cost([&] {
    MPI_Datatype v;
    MPI_Type_vector(nmix, 1, 2, pair, &v);
    return v;
  }, reps);
  fmt::print("  vector of {:>11} struct{{int,double}}: construct {:8.2f} us  commit {:8.2f} us\n",
             nmix, median(m.build) * 1e6, median(m.commit) * 1e6);
  rows.push_back(row(fmt::format("MPI mixed vector {}", nmix),
                     fmt::format("{} struct{{int,double}}, stride 2", nmix), m));
  MPI_Type_free(&pair);
  MPI_Datatype c2;
  MPI_Type_contiguous(2, MPI_INT, &c2);
  for (int n : {32768, 131072}) {
    std::vector<int> bl((size_t)n, 1);
    std::vector<MPI_Aint> d((size_t)n);
    std::vector<MPI_Datatype> ty((size_t)n, c2);
    for (int i = 0; i < n; i++) d[(size_t)i] = 16 * (MPI_Aint)i;
    Cost s = cost([&] {
      MPI_Datatype t;
      MPI_Type_create_struct(n, bl.data(), d.data(), ty.data(), &t);
      return t;
    }, quick ? 1 : 9);
    fmt::print("  struct of {:>8} contiguous(2,int):  construct {:8.2f} ms  commit {:8.2f} ms\n",
               n, median(s.build) * 1e3, median(s.commit) * 1e3);
    rows.push_back(row(fmt::format("MPI struct {}", n),
                       fmt::format("{} blocks of contiguous(2,int), 16 B apart", n), s));
  }
  MPI_Type_free(&c2);
  nlohmann::json t = table_json("mpi_commit", "MPI COMMIT",
                                loom ? "seconds to construct and commit through Loom's drop-in"
                                     : "seconds to construct and commit through the system MPI",
                                {"construct", "commit"});
  t["rows"] = rows;
  t["dropin"] = loom;
  return t;
}

}  // namespace loom_bench
