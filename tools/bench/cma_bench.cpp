#include "cma_bench.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"
#include "cma.hpp"
#include "cma_peer.h"
#include "harness.h"
#include "report.h"

namespace loom_bench {
namespace {

using loom::xfer::CmaStatus;
using loom::xfer::Side;

enum Scheme { kMemcpy, kSingleCopy, kPerBlock, kStaged, kFromPacked, kSchemes };
const std::vector<std::string> kSchemeNames = {"memcpy", "single_copy", "per_block", "staged",
                                               "from_packed"};
// per_block makes one system call per block: past this many blocks a round
// takes seconds, so it is left out (null in the JSON, n/a in the table).
constexpr int64_t kMaxPerBlockRuns = int64_t(1) << 18;

struct Case {
  int64_t block, bytes;
  int64_t count() const { return bytes / block; }
  size_t span() const { return static_cast<size_t>(2 * bytes - block); }
};

std::vector<Case> sweep(bool quick) {
  std::vector<int64_t> blocks = {8, 64, 512, 4096, 65536}, sizes = {4 << 10, 64 << 10, 1 << 20, 16 << 20};
  if (quick) blocks = {8, 512}, sizes = {4 << 10, 64 << 10};
  std::vector<Case> out;
  for (int64_t m : sizes)
    for (int64_t b : blocks)
      if (b <= m) out.push_back({b, m});
  return out;
}

struct Result {
  Case c;
  std::array<std::vector<double>, kSchemes> samples;
  std::vector<double> sender_pack;
  std::vector<std::string> mismatches;
  std::string error;
  int rounds = 0;
};

// The receiver's buffers, sized for the largest case.
struct Receiver {
  explicit Receiver(size_t max_bytes)
      : max_bytes(max_bytes), dst(make_buf(2 * max_bytes)), want(make_buf(2 * max_bytes)), ref(make_buf(2 * max_bytes)),
        stage(make_buf(max_bytes)), src(make_buf(max_bytes)), copy(make_buf(max_bytes)) {
    fill_random(src.get(), max_bytes, 1);
  }
  size_t max_bytes;
  Buf dst, want, ref, stage, src, copy;
};

// One case: verification of every scheme, then timed rounds.
class Runner {
 public:
  Runner(CmaSender &s, Receiver &r, const Case &c, loom_type local, loom_type remote)
      : s_(s), r_(r), c_(c),
        local_{local, reinterpret_cast<uintptr_t>(r.dst.get()), 1},
        remote_{remote, s.data(), 1} {}

  // Seconds one transfer by `k` took, negative when it failed; the
  // sender's pack time of the staged schemes goes to *pack.
  double op(Scheme k, double *pack) {
    const size_t n = static_cast<size_t>(c_.bytes);
    double sender = 0;
    if (k == kStaged || k == kFromPacked) {
      sender = s_.pack(c_.count(), c_.block);
      if (sender < 0) return -1;
      *pack = sender;
    }
    const double t0 = now_s();
    bool ok = true;
    switch (k) {
      case kMemcpy: std::memcpy(r_.copy.get(), r_.src.get(), n); break;
      case kSingleCopy:
        ok = loom::xfer::cma_single_copy(local_, s_.pid(), remote_, 0, n).status == CmaStatus::ok;
        break;
      case kPerBlock:
        ok = loom::xfer::cma_per_block(local_, s_.pid(), remote_, 0, n).status == CmaStatus::ok;
        break;
      case kStaged: {
        iovec l{r_.stage.get(), n}, rv{reinterpret_cast<void *>(s_.packed()), n};
        size_t pos = 0;
        ok = loom::xfer::cma_readv(s_.pid(), &l, 1, &rv, 1).status == CmaStatus::ok &&
             loom_unpack(r_.stage.get(), n, &pos, r_.dst.get(), 1, local_.type) == LOOM_OK;
        break;
      }
      default:
        ok = loom::xfer::cma_from_packed(local_, s_.pid(), s_.packed(), 0, n).status ==
             CmaStatus::ok;
    }
    const double t = now_s() - t0;
    return ok ? sender + t : -1;
  }

  bool measured(Scheme k) const { return k != kPerBlock || c_.count() <= kMaxPerBlockRuns; }

  // Each scheme once into a sentinel-filled buffer, against the reference.
  void verify(Result &res) {
    for (int k = kSingleCopy; k < kSchemes; k++) {
      if (!measured(Scheme(k))) continue;
      std::memset(r_.dst.get(), kSentinel, c_.span());
      double pack;
      if (op(Scheme(k), &pack) < 0) {
        res.mismatches.push_back(kSchemeNames[k] + ": the transfer failed");
        continue;
      }
      std::string diff = compare(r_.dst.get(), r_.want.get(), c_.span());
      if (!diff.empty()) res.mismatches.push_back(kSchemeNames[k] + ": " + diff);
      if (!guard_ok(r_.dst.get(), 2 * r_.max_bytes))
        res.mismatches.push_back(kSchemeNames[k] + ": wrote past the buffer");
    }
  }

 private:
  CmaSender &s_;
  Receiver &r_;
  Case c_;
  Side local_, remote_;
};

// The layouts, the reference result, verification and the timed rounds of
// one case.
Result run_case(CmaSender &s, Receiver &r, const Case &c, const CmaBenchArgs &a,
                std::mt19937_64 &rng) {
  Result res;
  res.c = c;
  loom_type local = cma_bench_vector(c.count(), c.block);
  // The receiver walks the sender's layout as the protocol would see it:
  // through its encoding.
  std::vector<unsigned char> enc(256);
  size_t len = 0;
  loom_type remote = nullptr;
  if (!local || loom_layout_encode(local, enc.data(), enc.size(), &len) != LOOM_OK ||
      loom_layout_decode(enc.data(), len, &remote) != LOOM_OK) {
    res.error = "cannot build the layout";
    loom_type_free(local);
    return res;
  }
  // Reference: the sender's bytes unpacked into a sentinel-filled buffer.
  size_t pos = 0;
  std::memset(r.want.get(), kSentinel, c.span());
  loom_pack(r.ref.get(), 1, local, r.stage.get(), c.bytes, &pos);
  pos = 0;
  loom_unpack(r.stage.get(), c.bytes, &pos, r.want.get(), 1, local);

  Runner run(s, r, c, local, remote);
  run.verify(res);
  std::vector<int> order;
  for (int k = 0; k < kSchemes; k++)
    if (run.measured(Scheme(k))) order.push_back(k);
  const int min_rounds = a.quick ? 2 : 5;
  const double t0 = now_s();
  for (int round = 0; res.mismatches.empty(); round++) {
    if (a.reps ? round >= a.reps
               : round >= min_rounds && (a.quick || now_s() - t0 > a.budget || round >= 1000))
      break;
    std::shuffle(order.begin(), order.end(), rng);
    for (int k : order) {
      double pack = 0;
      const double t = run.op(Scheme(k), &pack);
      if (t < 0) {
        res.error = kSchemeNames[k] + ": the transfer failed";
        break;
      }
      res.samples[k].push_back(t);
      if (k == kStaged || k == kFromPacked) res.sender_pack.push_back(pack);
    }
    if (!res.error.empty()) break;
    res.rounds++;
  }
  loom_type_free(local);
  loom_type_free(remote);
  return res;
}

// GB/s of the median sample (n/a when not measured).
std::string bandwidth(const Result &r, int k) {
  const auto &v = r.samples[k];
  return num(v.empty() ? NAN : r.c.bytes / median(v) / 1e9, "{:.2f}");
}

void print_table(const std::vector<Result> &results) {
  fmt::print("{:>9} {:>9} {:>7}", "block", "message", "rounds");
  for (const auto &n : kSchemeNames) fmt::print(" {:>12}", n);
  fmt::print("   (GB/s, medians)\n");
  for (const Result &r : results) {
    fmt::print("{:>9} {:>9} {:>7}", human_bytes(r.c.block), human_bytes(r.c.bytes), r.rounds);
    for (int k = 0; k < kSchemes; k++) fmt::print(" {:>12}", bandwidth(r, k));
    fmt::print("\n");
    for (const auto &m : r.mismatches) fmt::print("  FAILED VERIFICATION: {}\n", m);
    if (!r.error.empty()) fmt::print("  ERROR: {}\n", r.error);
  }
}

nlohmann::json results_json(const RunInfo &info, const std::vector<Result> &results) {
  nlohmann::json tbl = table_json(
      "cma", "CMA",
      "seconds to move a vector layout (blocks of block_bytes every 2 * block_bytes) from "
      "a forked sender into the same layout in the receiver: memcpy of the bytes "
      "(bound), single_copy, per_block, staged (sender pack + one process_vm_readv + "
      "unpack) and from_packed (sender pack + scatter); sender_pack is the sender's pack "
      "time included in the last two",
      kSchemeNames);
  tbl["rows"] = nlohmann::json::array();
  for (const Result &r : results) {
    nlohmann::json row = row_json(
        fmt::format("{} blocks / {}", human_bytes(r.c.block), human_bytes(r.c.bytes)),
        fmt::format("block {}", r.c.block), fmt::format("{} blocks of {} B", r.c.count(), r.c.block),
        fmt::format("vec({},+{},blk{})", r.c.count(), 2 * r.c.block, r.c.block),
        static_cast<size_t>(r.c.bytes), r.rounds, r.mismatches, r.error);
    row["block_bytes"] = r.c.block;
    nlohmann::json c = nlohmann::json::object();
    for (int k = 0; k < kSchemes; k++) c[kSchemeNames[k]] = samples_json(1, r.samples[k]);
    row["contenders"] = c;
    row["sender_pack"] = samples_json(1, r.sender_pack);
    tbl["rows"].push_back(row);
  }
  nlohmann::json doc = bench_document("cma", info);
  doc["run"]["ranks"] = 2;
  doc["units"] = "seconds per operation";
  doc["bound"] = "memcpy";
  doc["tables"] = nlohmann::json::array({tbl});
  return doc;
}

}  // namespace

int bench_cma(const CmaBenchArgs &args, const RunInfo &run) {
  const std::vector<Case> cases = sweep(args.quick);
  size_t max_bytes = 0;
  for (const Case &c : cases) max_bytes = std::max(max_bytes, static_cast<size_t>(c.bytes));
  const uint64_t seed = 0xC3A;
  Receiver r(max_bytes);
  fill_random(r.ref.get(), 2 * max_bytes, seed);  // what the sender holds
  CmaSender sender(2 * max_bytes, max_bytes, seed);
  if (!sender.ok()) {
    fmt::print(stderr, "loom bench cma: cannot start the sender process\n");
    return 1;
  }
  const CmaStatus probe = loom::xfer::cma_available(sender.pid(), sender.data());
  if (probe != CmaStatus::ok) {
    fmt::print(stderr, "loom bench cma: process_vm_readv is not usable here ({})\n",
               loom::xfer::cma_status_name(probe));
    return 1;
  }
  fmt::print("loom bench cma: {} ({}), load {}\n", short_commit(run), run.cpu_model,
             format_load(run.load_start, run.cores));
  std::mt19937_64 rng(seed);
  std::vector<Result> results;
  bool ok = true;
  for (const Case &c : cases) {
    results.push_back(run_case(sender, r, c, args, rng));
    ok = ok && results.back().mismatches.empty() && results.back().error.empty();
  }
  RunInfo info = run;
  info.load_end = read_load_average();
  print_table(results);
  fmt::print("verification: {}\nload at the end: {}\n", ok ? "all schemes match" : "FAILED",
             format_load(info.load_end, info.cores));
  if (!write_results(args.json, args.csv, results_json(info, results))) ok = false;
  return ok ? 0 : 1;
}

}  // namespace loom_bench
