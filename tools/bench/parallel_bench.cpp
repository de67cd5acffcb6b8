// `loom bench parallel`: see parallel_bench.h.
#include "parallel_bench.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bench_json.h"
#include "cases.h"
#include "harness.h"
#include "report.h"

namespace loom_bench {
namespace {

constexpr int kOne = 0, kMany = 1, kAuto = 2, kCopy = 3, kKinds = 4;
const char *const kNames[kKinds] = {"1 thread", "N threads", "automatic", "memcpy"};

struct ParallelRow {
  std::string name, group;
  size_t bytes = 0;
  std::string error;
  // [pack?][contender] median seconds
  double t[2][kKinds] = {};
  std::vector<double> samples[2][kKinds];
};

// Repetitions of f that take about 2 ms, so that a sample outlasts the
// clock's and the pool's noise.
int64_t calibrate(const std::function<void()> &f) {
  int64_t reps = 1;
  for (;;) {
    double t0 = now_s();
    for (int64_t i = 0; i < reps; ++i) f();
    if (now_s() - t0 > 2e-3 || reps > (1 << 20)) return reps;
    reps *= 2;
  }
}

ParallelRow run_case(const CaseDef &def, const ParallelArgs &a) {
  ParallelRow r;
  r.name = def.name;
  r.group = def.group;
  CaseParams params;
  params.quick = false;
  std::unique_ptr<CaseInstance> inst = def.make(params);
  loom_type t = inst->type.loom();
  int64_t lb, extent;
  loom_type_extent(t, &lb, &extent);
  const size_t want = a.quick ? size_t(1) << 20 : size_t(4) << 20;
  int64_t k = 1;
  if (inst->packed_bytes < want && inst->packed_bytes > 0 && extent > 0)
    k = (int64_t)((want + inst->packed_bytes - 1) / inst->packed_bytes);
  const int64_t count = inst->count * k;
  const size_t span = inst->user_bytes + (size_t)((k - 1) * inst->count * extent);
  const size_t bytes = inst->packed_bytes * (size_t)k;
  r.bytes = bytes;
  Buf src = make_buf(span), dst1 = make_buf(span), dstn = make_buf(span), dsta = make_buf(span);
  Buf p1 = make_buf(bytes), pn = make_buf(bytes), pa = make_buf(bytes), mc = make_buf(bytes);
  fill_random(src.get(), span, 1);
  std::memset(dst1.get(), 0, span);
  std::memset(dstn.get(), 0, span);
  std::memset(dsta.get(), 0, span);
  const char *in = src.get() + inst->origin;
  char *out1 = dst1.get() + inst->origin, *outn = dstn.get() + inst->origin,
       *outa = dsta.get() + inst->origin;
  // Correctness first: N threads must give one thread's bytes.
  size_t q1 = 0, qn = 0;
  if (loom_pack(in, count, t, p1.get(), bytes, &q1) != LOOM_OK ||
      loom_pack_parallel(in, count, t, pn.get(), bytes, &qn, a.threads) != LOOM_OK) {
    r.error = "pack failed";
    return r;
  }
  std::string diff = compare(p1.get(), pn.get(), bytes);
  q1 = qn = 0;
  if (diff.empty() && (loom_unpack(p1.get(), bytes, &q1, out1, count, t) != LOOM_OK ||
                       loom_unpack_parallel(p1.get(), bytes, &qn, outn, count, t,
                                            a.threads) != LOOM_OK))
    diff = "unpack failed";
  if (diff.empty()) diff = compare(dst1.get(), dstn.get(), span);
  if (!diff.empty()) {
    r.error = "N threads differ from one: " + diff;
    return r;
  }
  // Every contender writes the same buffer: where a layout's speed
  // depends on where its buffers lie (4 KiB aliasing between the stream
  // and the user's buffer), separate buffers would compare addresses.
  std::function<void()> ops[2][kKinds] = {
      {[&] { size_t q = 0; loom_unpack(p1.get(), bytes, &q, out1, count, t); },
       [&] { size_t q = 0; loom_unpack_parallel(p1.get(), bytes, &q, out1, count, t, a.threads); },
       [&] { size_t q = 0; loom_unpack_parallel(p1.get(), bytes, &q, out1, count, t, 0); },
       [&] { std::memcpy(mc.get(), p1.get(), bytes); }},
      {[&] { size_t q = 0; loom_pack(in, count, t, pn.get(), bytes, &q); },
       [&] { size_t q = 0; loom_pack_parallel(in, count, t, pn.get(), bytes, &q, a.threads); },
       [&] { size_t q = 0; loom_pack_parallel(in, count, t, pn.get(), bytes, &q, 0); },
       [&] { std::memcpy(mc.get(), p1.get(), bytes); }}};
  // The automatic choice times its first calls of a layout both ways
  // (loom.h); what is measured here is what it chooses after them.
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 12; ++i) ops[p][kAuto]();
  int64_t reps[2][kKinds];
  for (int p = 0; p < 2; ++p)
    for (int c = 0; c < kKinds; ++c) reps[p][c] = calibrate(ops[p][c]);
  const double t_end = now_s() + (a.quick ? 0.02 : a.budget);
  for (int round = 0; round < 3 || (now_s() < t_end && round < 200); ++round) {
    if (a.quick && round >= 2) break;
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < kKinds; ++c) {
        const int cc = (c + round) % kKinds;  // rotate the order each round
        double t0 = now_s();
        for (int64_t i = 0; i < reps[p][cc]; ++i) ops[p][cc]();
        r.samples[p][cc].push_back((now_s() - t0) / (double)reps[p][cc]);
      }
  }
  for (int p = 0; p < 2; ++p)
    for (int c = 0; c < kKinds; ++c) r.t[p][c] = median(r.samples[p][c]);
  // The automatic choice ran both ways during its trials and has settled:
  // its bytes must still be one thread's.
  size_t qp = 0, qu = 0;
  std::string bad;
  if (loom_pack_parallel(in, count, t, pa.get(), bytes, &qp, 0) != LOOM_OK ||
      loom_unpack_parallel(p1.get(), bytes, &qu, outa, count, t, 0) != LOOM_OK)
    bad = "call failed";
  if (bad.empty()) bad = compare(p1.get(), pa.get(), bytes);
  if (bad.empty()) bad = compare(dst1.get(), dsta.get(), span);
  if (!bad.empty()) r.error = "the automatic choice differs from one thread: " + bad;
  return r;
}

double mbs(size_t bytes, double s) { return s > 0 ? (double)bytes / s / 1e6 : 0; }

}  // namespace

int bench_parallel(const ParallelArgs &a, const std::vector<CaseDef> &cases,
                   const RunInfo &run) {
  std::vector<ParallelRow> rows;
  for (const CaseDef &def : cases) rows.push_back(run_case(def, a));
  fmt::print("loom bench parallel  |  {} threads against 1  |  {}  |  {}\n", a.threads,
             run.date, short_commit(run));
  fmt::print("{}; load average {} at the start; loom_parallel_threads(4 MiB) = {}\n",
             run.cpu_model, format_load(run.load_start, run.cores),
             loom_parallel_threads(size_t(4) << 20));
  fmt::print("MB/s of packed bytes, medians over interleaved rounds; x = N threads over 1;\n"
             "1/mcpy = one thread's rate over memcpy's of the same bytes (below 0.6: the\n"
             "case is not memory-bound and is a target: 2 threads >= 1.7x); auto = the\n"
             "automatic choice (threads = 0) over 1 thread, after its 12 trial calls (it times\n"
             "every call and probes the other side now and then); target: never below 1,\n"
             "0.95 is this machine's noise\n\n");
  fmt::print("{:<26} {:>9} | {:>8} {:>8} {:>8} {:>6} {:>6} {:>5} | {:>8} {:>8} {:>6} {:>6} {:>5}\n",
             "case", "bytes", "1 thr", "N thr", "memcpy", "x", "1/mcpy", "auto", "unp 1", "unp N",
             "x", "1/mcpy", "auto");
  std::vector<double> tgt, all, autos;
  double worst = INFINITY, worst_auto = INFINITY;
  std::string worst_name, worst_auto_name;
  for (const ParallelRow &r : rows) {
    if (!r.error.empty()) {
      fmt::print("{:<26} {:>9} | {}\n", r.name, r.bytes, r.error);
      continue;
    }
    const double xp = r.t[1][kOne] / r.t[1][kMany], xu = r.t[0][kOne] / r.t[0][kMany];
    const double fp = r.t[1][kCopy] / r.t[1][kOne], fu = r.t[0][kCopy] / r.t[0][kOne];
    const double ap = r.t[1][kOne] / r.t[1][kAuto], au = r.t[0][kOne] / r.t[0][kAuto];
    fmt::print("{:<26} {:>8.2f}M | {:>8.0f} {:>8.0f} {:>8.0f} {:>6.2f} {:>6.2f} {:>5.2f} | {:>8.0f} "
               "{:>8.0f} {:>6.2f} {:>6.2f} {:>5.2f}{}{}\n",
               r.name, (double)r.bytes / (1 << 20), mbs(r.bytes, r.t[1][kOne]),
               mbs(r.bytes, r.t[1][kMany]), mbs(r.bytes, r.t[1][kCopy]), xp, fp, ap,
               mbs(r.bytes, r.t[0][kOne]), mbs(r.bytes, r.t[0][kMany]), xu, fu, au,
               (fp < 0.6 && xp < 1.7) || (fu < 0.6 && xu < 1.7) ? "  < target" : "",
               std::min(ap, au) < 0.95 ? "  auto slower" : "");
    for (auto [x, f] : {std::pair{xp, fp}, std::pair{xu, fu}}) {
      all.push_back(x);
      if (f < 0.6) tgt.push_back(x);
      if (x < worst) worst = x, worst_name = r.name;
    }
    for (double x : {ap, au}) {
      autos.push_back(x);
      if (x < worst_auto) worst_auto = x, worst_auto_name = r.name;
    }
  }
  auto geo = [](const std::vector<double> &v) {
    double s = 0;
    for (double x : v) s += std::log(x);
    return v.empty() ? 0.0 : std::exp(s / (double)v.size());
  };
  const double tmin = tgt.empty() ? 0 : *std::min_element(tgt.begin(), tgt.end());
  fmt::print("\nN threads over 1: target cases (pack and unpack below 0.6 of memcpy): {} of {}, "
             "geometric mean {:.2f}, lowest {:.2f}; all: geometric mean {:.2f}, lowest {:.2f} ({})\n",
             tgt.size(), all.size(), geo(tgt), tmin, geo(all), worst, worst_name);
  fmt::print("automatic choice over 1 thread: geometric mean {:.2f}, lowest {:.2f} ({}), {} of {} "
             "below 0.95\n",
             geo(autos), worst_auto, worst_auto_name,
             std::count_if(autos.begin(), autos.end(), [](double x) { return x < 0.95; }),
             autos.size());
  if (a.json.empty() && a.csv.empty()) return 0;
  nlohmann::json doc = bench_document("parallel", run);
  nlohmann::json tbl = table_json("parallel", "checkpoint-parallel pack and unpack",
                                  "seconds per message",
                                  {kNames[0], kNames[1], kNames[2], kNames[3]});
  tbl["threads"] = a.threads;
  tbl["rows"] = nlohmann::json::array();
  for (const ParallelRow &r : rows)
    for (int p = 1; p >= 0; --p) {
      nlohmann::json row =
          row_json(r.name + (p ? " pack" : " unpack"), r.group, "", "", r.bytes,
                   (int)r.samples[p][0].size(), {}, r.error);
      nlohmann::json c = nlohmann::json::object();
      for (int k = 0; k < kKinds; ++k) c[kNames[k]] = samples_json(1, r.samples[p][k]);
      row["contenders"] = c;
      tbl["rows"].push_back(row);
    }
  doc["tables"] = nlohmann::json::array({tbl});
  return write_results(a.json, a.csv, doc) ? 0 : 1;
}

}  // namespace loom_bench
