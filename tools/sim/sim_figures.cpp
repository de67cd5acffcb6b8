// The figure sweeps (sim_figures.h).
#include "sim_figures.h"

#include <map>
#include <memory>

#include <fmt/format.h>

namespace loom_sim {
namespace {

constexpr size_t kVectorBytes = size_t(4) << 20;  // the paper's 4 MiB message
const size_t kBlocks[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
const int kHpus[] = {1, 2, 4, 8, 16, 32, 64};

// Vector layouts and their measured costs, made once per block size.
class VectorCache {
 public:
  VectorCache(const Params &p, const CalibrationOptions &o) : payload_(p.payload()), o_(o) {}
  const Layout &layout(size_t block) { return *entry(block).layout; }
  const Costs &costs(size_t block) { return entry(block).costs; }

 private:
  struct Entry {
    std::unique_ptr<Layout> layout;
    Costs costs;
  };
  Entry &entry(size_t block) {
    auto it = cache_.find(block);
    if (it == cache_.end()) {
      Entry e;
      e.layout = Layout::vector(kVectorBytes, block, 2 * block);
      e.costs = calibrate(*e.layout, payload_, o_);
      it = cache_.emplace(block, std::move(e)).first;
    }
    return it->second;
  }
  size_t payload_;
  CalibrationOptions o_;
  std::map<size_t, Entry> cache_;
};

Params with_hpus(const Params &p, int hpus) {
  Params q = p;
  q.set("hpus", hpus, "sweep");
  return q;
}

void record(Report &report, const char *figure, double x, const Params &p, const Layout &l,
            const Costs &c, const RunOptions &o) {
  LayoutRuns r = run_layout(p, l, c, o);
  fmt::print("[{} x={:g} hpus={}]", figure, x, p.hpus());
  print_layout(stdout, r);
  std::fflush(stdout);
  report.add(figure, x, p.hpus(), std::move(r));
}

}  // namespace

void run_figures(const Params &p, const RunOptions &o, const std::vector<loom_bench::CaseDef> &ddt,
                 Report &report) {
  VectorCache vectors(p, o.calibration);
  RunOptions seek = o;
  seek.catchup = CatchUp::kSeek;
  seek.strategies = {Strategy::kHpuLocal, Strategy::kRoCp, Strategy::kRwCp};
  for (size_t b : kBlocks) {
    record(report, "fig8", (double)b, p, vectors.layout(b), vectors.costs(b), o);
    record(report, "fig8-seek", (double)b, p, vectors.layout(b), vectors.costs(b), seek);
    record(report, "fig13b", (double)b, with_hpus(p, 16), vectors.layout(b), vectors.costs(b), o);
  }
  for (int n : kHpus) {
    const Params q = with_hpus(p, n);
    record(report, "fig13a", n, q, vectors.layout(2048), vectors.costs(2048), o);
    record(report, "fig13c", n, q, vectors.layout(128), vectors.costs(128), o);
  }
  RunOptions apps = o;
  apps.checkpoint_cost = true;
  for (const loom_bench::CaseDef &d : ddt) {
    auto l = Layout::from_case(d);
    record(report, "fig16", 0, p, *l, calibrate(*l, p.payload(), o.calibration), apps);
  }
}

}  // namespace loom_sim
