#include "engine.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"
#include "harness.h"
#include "loom.h"

namespace loom_bench {
namespace {

// Seconds to build and commit the type made by `make`, `reps` times.
template <class Make>
std::vector<double> commit_cost(Make make, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; r++) {
    double t0 = now_s();
    loom_type ty = make();
    loom_type_commit(ty);
    t.push_back(now_s() - t0);
    loom_type_free(ty);
  }
  return t;
}

// A row of the engine's JSON tables: one contender per sample set.
nlohmann::json engine_row(const std::string &name, const std::string &group,
                          const std::string &sizes,
                          const std::vector<std::pair<std::string, std::vector<double>>> &ops) {
  nlohmann::json c = nlohmann::json::object();
  for (const auto &[who, samples] : ops) c[who] = samples_json(1, samples);
  return {{"name", name}, {"group", group}, {"sizes", sizes}, {"contenders", c}};
}

nlohmann::json commit_table(bool quick) {
  loom_type f;
  loom_type_primitive(LOOM_FLOAT, &f);
  const int reps = quick ? 3 : 101;
  fmt::print("commit cost (build + commit, median of {})\n", reps);
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t n : {int64_t(1000), int64_t(100000000)}) {
    std::vector<double> vs = commit_cost([&] {
      loom_type t;
      loom_type_vector(n, 1, 2, f, &t);
      return t;
    }, reps);
    int64_t sizes[3] = {n, 4, 4}, subs[3] = {n / 2, 2, 2}, starts[3] = {1, 1, 1};
    std::vector<double> ss = commit_cost([&] {
      loom_type t;
      loom_type_subarray(3, sizes, subs, starts, LOOM_ORDER_C, f, &t);
      return t;
    }, reps);
    fmt::print("  vector of {:>11} elements {:8.2f} us   subarray {:8.2f} us\n", n,
               median(vs) * 1e6, median(ss) * 1e6);
    rows.push_back(engine_row(fmt::format("vector {}", n), "vector",
                              fmt::format("{} floats, stride 2", n), {{"Loom", vs}}));
    rows.push_back(engine_row(fmt::format("subarray {}", n), "subarray",
                              fmt::format("{}x2x2 of {}x4x4 floats", n / 2, n),
                              {{"Loom", ss}}));
  }
  // Mixed element types: struct{int @0, double @8} as a vector's element,
  // and a struct whose blocks are all one derived type.
  loom_type i32, f64, pair, c2;
  loom_type_primitive(LOOM_INT, &i32);
  loom_type_primitive(LOOM_DOUBLE, &f64);
  {
    int64_t bl[2] = {1, 1}, d[2] = {0, 8};
    loom_type ty[2] = {i32, f64};
    loom_type_struct(2, bl, d, ty, LOOM_BOUNDS_STANDARD, &pair);
  }
  loom_type_contiguous(2, i32, &c2);
  const int64_t nmix = quick ? 1000 : 100000000;
  std::vector<double> ms = commit_cost([&] {
    loom_type t;
    loom_type_vector(nmix, 1, 2, pair, &t);
    return t;
  }, reps);
  fmt::print("  vector of {:>11} struct{{int,double}} {:8.2f} us\n", nmix, median(ms) * 1e6);
  rows.push_back(engine_row(fmt::format("mixed vector {}", nmix), "mixed",
                            fmt::format("{} struct{{int,double}}, stride 2", nmix),
                            {{"Loom", ms}}));
  for (int64_t n : {int64_t(32768), int64_t(131072)}) {
    std::vector<int64_t> bl((size_t)n, 1), d((size_t)n);
    std::vector<loom_type> ty((size_t)n, c2);
    for (int64_t i = 0; i < n; i++) d[(size_t)i] = 16 * i;
    std::vector<double> ss = commit_cost([&] {
      loom_type t;
      loom_type_struct(n, bl.data(), d.data(), ty.data(), LOOM_BOUNDS_STANDARD, &t);
      return t;
    }, quick ? 1 : 9);
    fmt::print("  struct of {:>8} contiguous(2,int) {:10.1f} us  ({:.1f} ns/block)\n", n,
               median(ss) * 1e6, median(ss) * 1e9 / n);
    rows.push_back(engine_row(fmt::format("struct {}", n), "mixed",
                              fmt::format("{} blocks of contiguous(2,int), 16 B apart", n),
                              {{"Loom", ss}}));
  }
  for (loom_type t : {i32, f64, pair, c2}) loom_type_free(t);
  std::mt19937_64 rng(7);
  for (int64_t n : {int64_t(10000), int64_t(100000), int64_t(1000000)}) {
    std::vector<int64_t> d(n), bl(n);
    for (int64_t i = 0, pos = 0; i < n; i++) {
      d[i] = pos;
      bl[i] = 1 + rng() % 3;
      pos += bl[i] + 1 + rng() % 5;  // irregular: no repeating pattern
    }
    std::vector<double> cs = commit_cost([&] {
      loom_type t;
      loom_type_indexed(n, bl.data(), d.data(), f, &t);
      return t;
    }, quick ? 1 : 9);
    const double c = median(cs);
    fmt::print("  indexed of {:>8} blocks  {:10.1f} us  ({:.1f} ns/block)\n", n, c * 1e6,
               c * 1e9 / n);
    rows.push_back(engine_row(fmt::format("indexed {}", n), "indexed",
                              fmt::format("{} irregular blocks of 1-3 floats", n),
                              {{"Loom", cs}}));
  }
  nlohmann::json t = table_json("commit", "COMMIT", "seconds to build and commit a type",
                                {"Loom"});
  t["rows"] = rows;
  return t;
}

nlohmann::json seek_table(bool quick) {
  // An irregular hindexed layout of 8-byte blocks spread over 1 GiB; only
  // the pages a pack touches become resident.
  const int64_t extent = int64_t(1) << 30, block = 8;
  const int64_t n = quick ? 1 << 16 : 1 << 22, chunk = quick ? 1 << 16 : 1 << 20;
  std::mt19937_64 rng(11);
  std::vector<int64_t> d(n);
  const int64_t gap = extent / n;
  for (int64_t i = 0; i < n; i++) d[i] = i * gap + (int64_t)(rng() % (gap - block));
  loom_type dbl, t;
  loom_type_primitive(LOOM_DOUBLE, &dbl);
  loom_type_hindexed_block(n, 1, d.data(), dbl, &t);
  loom_type_commit(t);
  char *buf = static_cast<char *>(
      mmap(nullptr, extent, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (buf == MAP_FAILED) {
    fmt::print("  seek: cannot map 1 GiB\n");
    return nullptr;
  }
  std::vector<char> out(chunk);
  const size_t total = size_t(loom_type_size(t));
  const int samples = quick ? 5 : 41;
  std::vector<size_t> offsets(samples);
  for (auto &o : offsets) o = rng() % (total - chunk);
  auto pack_at = [&](size_t off) { loom_pack_range(buf, 1, t, off, chunk, out.data()); };
  for (size_t o : offsets) pack_at(o);  // first touch outside the timing
  pack_at(0);
  // Interleaved; each timed pack follows an untimed one of the same range,
  // so both see warm caches and the difference is the cost of seeking.
  auto timed = [&](size_t off) {
    pack_at(off);
    double t0 = now_s();
    pack_at(off);
    return now_s() - t0;
  };
  std::vector<double> first, random;
  for (int i = 0; i < samples; i++) {
    first.push_back(timed(0));
    random.push_back(timed(offsets[i]));
  }
  char plan[128];
  loom_type_plan_string(t, 1, plan, sizeof plan);
  double a = median(first), b = median(random);
  fmt::print("seek: pack {} KiB of a 1 GiB-extent indexed layout ({} blocks, plan {})\n",
             chunk >> 10, n, plan);
  fmt::print("  first range {:.1f} us, at random offsets {:.1f} us: ratio {:.2f} (target <= 1.2)\n",
             a * 1e6, b * 1e6, b / a);
  munmap(buf, extent);
  loom_type_free(t);
  loom_type_free(dbl);
  const std::string name = fmt::format("{} KiB of 1 GiB", chunk >> 10);
  nlohmann::json tbl = table_json(
      "seek", "SEEK",
      "seconds to pack a range of an indexed layout of 8-byte blocks spread over 1 GiB: "
      "its first range, and ranges at random offsets",
      {"first range", "random offsets"});
  tbl["rows"] = {engine_row(name, "seek", fmt::format("{} blocks, plan {}", n, plan),
                            {{"first range", first}, {"random offsets", random}})};
  return tbl;
}

}  // namespace

int bench_engine(const EngineArgs &args, const RunInfo &run,
                 const std::function<nlohmann::json(bool quick)> &extra) {
  nlohmann::json tables = nlohmann::json::array();
  tables.push_back(commit_table(args.quick));
  if (extra) tables.push_back(extra(args.quick));
  nlohmann::json seek = seek_table(args.quick);
  if (!seek.is_null()) tables.push_back(seek);
  RunInfo info = run;
  info.load_end = read_load_average();
  nlohmann::json doc = bench_document("engine", info);
  doc["run"]["ranks"] = 1;
  doc["units"] = "seconds per operation";
  doc["tables"] = tables;
  return write_results(args.json, args.csv, doc) ? 0 : 1;
}

}  // namespace loom_bench
