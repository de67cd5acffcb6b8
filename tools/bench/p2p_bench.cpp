#include "p2p_bench.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"
#include "harness.h"
#include "p2p_harness.h"
#include "p2p_report.h"

namespace loom_bench {

namespace {

constexpr int kPingTag = 7100;  // + contender
constexpr int kBwTag = 7200;    // + contender
constexpr int kAckTag = 7300;

// Messages per bandwidth operation: a window of up to 16 in flight, at most
// 4 MiB of packed bytes together (one 16 MiB message alone).  Each message
// of the window has a receive buffer of its own (@p span bytes): receives
// pending at once into one buffer are erroneous in MPI, and a drop-in
// that finds a rendezvous in the receive buffer (Loom's, in place) reads
// another message's bytes there; at most 256 MiB of them together.
int window_for(size_t n, size_t span) {
  size_t w = std::min((size_t(4) << 20) / (n ? n : 1), (size_t(256) << 20) / (span ? span : 1));
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(16, w)));
}

uint64_t data_seed(const std::string &name, int rank) {
  return std::hash<std::string>{}(name) ^ mix64(static_cast<uint64_t>(rank) + 1);
}

// One case on the two ranks of pc: verification, then round trips and
// bandwidth.
// With `once`, every round trip of the typed contenders (Loom, MPI) moves
// its message with a fresh committed duplicate of the case's type, freed
// after it: a layout used once (nothing prepared or cached for it).
void run_p2p_case(const CaseDef &def, const CaseParams &params,
                  const CommTiming &opt, bool use_min, bool want_bw, bool loom_only,
                  bool once, MPI_Comm pc, CommRow &rtt, CommRow &bw) {
  int me = 0;
  PMPI_Comm_rank(pc, &me);
  const int peer = 1 - me;
  rtt.name = bw.name = def.name;
  rtt.group = bw.group = def.group;

  std::unique_ptr<CaseInstance> inst;
  std::string err;
  try {
    inst = def.make(params);
  } catch (const std::exception &e) {
    err = e.what();
  }
  if (!all_ranks(err.empty(), pc)) {
    rtt.error = bw.error = err.empty() ? "could not be built on the peer" : err;
    return;
  }
  CaseInstance &c = *inst;
  const size_t n = c.packed_bytes, ub = c.user_bytes;
  const int count = static_cast<int>(c.count);
  const int ni = static_cast<int>(n);
  const MPI_Datatype mt = c.type.mpi();
  const int W = window_for(n, ub);
  rtt.sizes = bw.sizes = c.sizes;
  rtt.plan = bw.plan = plan_string(c.type.loom(), c.count);
  rtt.bytes = bw.bytes = n;
  rtt.moved_bytes = 2.0 * static_cast<double>(n);
  bw.window = W;
  bw.moved_bytes = static_cast<double>(W) * static_cast<double>(n);

  Buf src = make_buf(ub), expect = make_buf(ub);
  std::vector<Buf> dsts;  // the window's receive buffers; the round trip uses the first
  for (int i = 0; i < W; ++i) dsts.push_back(make_buf(ub));
  const Buf &dst = dsts.front();
  Buf pks = make_buf(n * W), pkr = make_buf(n * W), pexpect = make_buf(n);
  char *const s0 = src.get() + c.origin;
  char *const d0 = dst.get() + c.origin;
  fill_random(src.get(), ub, data_seed(def.name, me));
  {
    // What the peer sends, predicted locally: its user buffer, packed by the
    // hand loop (the packed stream every contender must carry), scattered
    // into a buffer of sentinel bytes (the gaps must stay untouched).
    Buf theirs = make_buf(ub);
    fill_random(theirs.get(), ub, data_seed(def.name, peer));
    c.hand_pack(theirs.get() + c.origin, pexpect.get());
    std::memset(expect.get(), kSentinel, ub);
    c.hand_unpack(pexpect.get(), expect.get() + c.origin);
  }
  // The bound sends what the hand loop packs.
  for (int i = 0; i < W; ++i) c.hand_pack(s0, pks.get() + i * n);

  // ------------------------------------------------------------ operations
  // Runs f with the type a typed contender's message travels with: the
  // case's, or with `once` a fresh committed duplicate freed after it (the
  // drop-in's own calls for Loom, so that it sees a new layout).
  auto with_type = [&](int k, auto &&f) {
    if (!once) return f(mt);
    const bool loom = k == cLoom;
    MPI_Datatype d = MPI_DATATYPE_NULL;
    (loom ? MPI_Type_dup : PMPI_Type_dup)(mt, &d);
    (loom ? MPI_Type_commit : PMPI_Type_commit)(&d);
    f(d);
    (loom ? MPI_Type_free : PMPI_Type_free)(&d);
  };
  auto send = [&](int k) {
    const int tag = kPingTag + k;
    switch (k) {
      case cLoom:
        with_type(k, [&](MPI_Datatype t) { MPI_Send(s0, count, t, peer, tag, pc); });
        break;
      case cSys:
        with_type(k, [&](MPI_Datatype t) { PMPI_Send(s0, count, t, peer, tag, pc); });
        break;
      case cHand:
        c.hand_pack(s0, pks.get());
        PMPI_Send(pks.get(), ni, MPI_BYTE, peer, tag, pc);
        break;
      default: PMPI_Send(pks.get(), ni, MPI_BYTE, peer, tag, pc); break;
    }
  };
  auto recv = [&](int k, MPI_Status *st) {
    const int tag = kPingTag + k;
    switch (k) {
      case cLoom:
        with_type(k, [&](MPI_Datatype t) { MPI_Recv(d0, count, t, peer, tag, pc, st); });
        break;
      case cSys:
        with_type(k, [&](MPI_Datatype t) { PMPI_Recv(d0, count, t, peer, tag, pc, st); });
        break;
      case cHand:
        PMPI_Recv(pkr.get(), ni, MPI_BYTE, peer, tag, pc, st);
        c.hand_unpack(pkr.get(), d0);
        break;
      default: PMPI_Recv(pkr.get(), ni, MPI_BYTE, peer, tag, pc, st); break;
    }
  };
  // Rank 0 sends and receives the echo; rank 1 receives and echoes.  Each
  // side packs what it sends and unpacks what it receives.
  auto pingpong = [&](int k, MPI_Status *st) {
    if (me == 0) {
      send(k);
      recv(k, st);
    } else {
      recv(k, st);
      send(k);
    }
  };
  // Rank 0 sends W messages (nonblocking, each packed just before its send
  // in the hand version), rank 1 receives them (the hand version unpacks
  // each as it completes) and acknowledges the window with an empty message.
  std::vector<MPI_Request> reqs(W);
  auto window_op = [&](int k) {
    const int tag = kBwTag + k;
    if (me == 0) {
      for (int i = 0; i < W; ++i) {
        char *pk = pks.get() + i * n;
        switch (k) {
          case cLoom: MPI_Isend(s0, count, mt, peer, tag, pc, &reqs[i]); break;
          case cSys: PMPI_Isend(s0, count, mt, peer, tag, pc, &reqs[i]); break;
          case cHand:
            c.hand_pack(s0, pk);
            PMPI_Isend(pk, ni, MPI_BYTE, peer, tag, pc, &reqs[i]);
            break;
          default: PMPI_Isend(pk, ni, MPI_BYTE, peer, tag, pc, &reqs[i]); break;
        }
      }
      if (k == cLoom)
        MPI_Waitall(W, reqs.data(), MPI_STATUSES_IGNORE);
      else
        PMPI_Waitall(W, reqs.data(), MPI_STATUSES_IGNORE);
      PMPI_Recv(nullptr, 0, MPI_BYTE, peer, kAckTag, pc, MPI_STATUS_IGNORE);
    } else {
      for (int i = 0; i < W; ++i) {
        char *pk = pkr.get() + i * n;
        switch (k) {
          case cLoom: MPI_Irecv(dsts[i].get() + c.origin, count, mt, peer, tag, pc, &reqs[i]); break;
          case cSys: PMPI_Irecv(dsts[i].get() + c.origin, count, mt, peer, tag, pc, &reqs[i]); break;
          default: PMPI_Irecv(pk, ni, MPI_BYTE, peer, tag, pc, &reqs[i]); break;
        }
      }
      if (k == cHand) {
        for (int i = 0; i < W; ++i) {
          PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
          c.hand_unpack(pkr.get() + i * n, dsts[i].get() + c.origin);
        }
      } else if (k == cLoom) {
        MPI_Waitall(W, reqs.data(), MPI_STATUSES_IGNORE);
      } else {
        PMPI_Waitall(W, reqs.data(), MPI_STATUSES_IGNORE);
      }
      PMPI_Send(nullptr, 0, MPI_BYTE, peer, kAckTag, pc);
    }
  };

  // ---------------------------------------------------------- verification
  // Every contender carries the peer's data once in each direction before
  // anything is timed: the whole receive buffer (gaps included) must equal
  // the prediction, nothing may be written past it, and MPI_Get_count must
  // give the count sent.
  std::vector<std::string> bad_rtt, bad_bw;
  bool ok_rtt[kCommContenders], ok_bw[kCommContenders];
  for (int k = 0; k < kCommContenders; ++k) {
    const char *who = comm_contender_name(k);
    std::memset(dst.get(), kSentinel, ub);
    std::memset(pkr.get(), kSentinel, n * W);
    MPI_Status st;
    pingpong(k, &st);
    std::string d = k == cBound ? compare(pkr.get(), pexpect.get(), n)
                                : compare(dst.get(), expect.get(), ub);
    if (!guard_ok(dst.get(), ub) || !guard_ok(pkr.get(), n * W))
      d += std::string(d.empty() ? "" : "; ") + "wrote past the receive buffer";
    int got = -1, want = k == cLoom || k == cSys ? count : ni;
    if (k == cLoom)
      MPI_Get_count(&st, mt, &got);
    else
      PMPI_Get_count(&st, k == cSys ? mt : MPI_BYTE, &got);
    if (got != want)
      d += std::string(d.empty() ? "" : "; ") +
           fmt::format("MPI_Get_count gives {}, sent {}", got, want);
    if (!d.empty()) bad_rtt.push_back(fmt::format("{} round trip: {}", who, d));
    ok_rtt[k] = d.empty();

    ok_bw[k] = want_bw;
    if (!want_bw) continue;
    for (Buf &b : dsts) std::memset(b.get(), kSentinel, ub);
    std::memset(pkr.get(), kSentinel, n * W);
    window_op(k);
    d.clear();
    if (me == 1) {
      if (k == cBound) {
        for (int i = 0; i < W && d.empty(); ++i)
          d = compare(pkr.get() + i * n, pexpect.get(), n);
      } else {
        for (int i = 0; i < W && d.empty(); ++i) d = compare(dsts[i].get(), expect.get(), ub);
      }
      bool guards = guard_ok(pkr.get(), n * W);
      for (const Buf &b : dsts) guards = guards && guard_ok(b.get(), ub);
      if (!guards)
        d += std::string(d.empty() ? "" : "; ") + "wrote past the receive buffer";
    }
    if (!d.empty()) bad_bw.push_back(fmt::format("{} window of {}: {}", who, W, d));
    ok_bw[k] = d.empty();
  }
  for (int k = 0; k < kCommContenders; ++k) {
    ok_rtt[k] = all_ranks(ok_rtt[k], pc);
    ok_bw[k] = all_ranks(ok_bw[k], pc);
  }
  rtt.mismatches = gather_messages(bad_rtt, pc);
  bw.mismatches = gather_messages(bad_bw, pc);

  // ---------------------------------------------------------------- timing
  CommOp rt[kCommContenders], bwo[kCommContenders];
  std::vector<CommOp *> ops;
  for (int k = 0; k < kCommContenders; ++k) {
    rt[k].enabled = ok_rtt[k] && (!loom_only || k == cLoom);
    rt[k].fn = [&pingpong, k] { pingpong(k, MPI_STATUS_IGNORE); };
    ops.push_back(&rt[k]);
  }
  rtt.rounds = time_comm_ops(ops, opt, pc);
  rtt.set_times(rt, use_min);
  if (!want_bw) return;
  ops.clear();
  for (int k = 0; k < kCommContenders; ++k) {
    bwo[k].enabled = ok_bw[k] && (!loom_only || k == cLoom);
    bwo[k].fn = [&window_op, k] { window_op(k); };
    ops.push_back(&bwo[k]);
  }
  bw.rounds = time_comm_ops(ops, opt, pc);
  bw.set_times(bwo, use_min);
}

// The targets, evaluated on the round-trip table, from the medians
// and from the fastest samples (steadier on a loaded machine).
void print_p2p_targets(std::FILE *f, const CommRunInfo &info, const CommTable &rtt) {
  const bool mpich = info.run.flavor == "mpich";
  const double gm_target = mpich ? 2.0 : 1.5;
  int ddt = 0;
  for (const auto &r : rtt.rows) ddt += r.group == "DDTBench" && r.error.empty();
  if (ddt == 0) return;
  fmt::print(f, "\ntargets (issue 3; round trips, DDTBench layouts):\n");
  for (int use_min = 0; use_min < 2; ++use_min) {
    std::vector<double> vs_mpi;
    std::vector<std::string> above;
    for (const auto &r : rtt.rows) {
      if (r.group != "DDTBench" || !r.error.empty()) continue;
      CommRow x = r;  // the statistic's times in t
      for (int k = 0; k < kCommContenders; ++k) x.t[k] = use_min ? r.t_min[k] : r.t_median[k];
      const double rm = comm_ratio(x, cSys);
      if (!std::isnan(rm)) vs_mpi.push_back(rm);
      const double best = comm_ratio_best(x);
      if (!std::isnan(best) && best > kCommBestTarget)
        above.push_back(fmt::format("{} {:.2f}x", r.name, best));
    }
    const char *stat = use_min ? "fastest" : "medians";
    if (above.empty()) {
      fmt::print(f, "  {:<7}  MET     every layout within {:.2f}x the better of hand and MPI\n",
                 stat, kCommBestTarget);
    } else {
      std::string list;
      for (const auto &a : above) list += (list.empty() ? "" : ", ") + a;
      fmt::print(f, "  {:<7}  MISSED  {} of {} layouts above {:.2f}x the better of hand and "
                    "MPI: {}\n",
                 stat, above.size(), ddt, kCommBestTarget, list);
    }
    const double gm = geomean(vs_mpi);
    if (!std::isnan(gm))
      fmt::print(f, "  {:<7}  {}  geometric mean {:.2f}x faster than the native {} datatype "
                    "path (target {:.1f}x)\n",
                 stat, 1.0 / gm >= gm_target ? "MET   " : "MISSED", 1.0 / gm, info.run.mpi,
                 gm_target);
  }
  for (const auto &r : rtt.rows)
    if (r.name == "vec 8B 1MiB" && r.error.empty())
      fmt::print(f, "  reference, 1 MiB of 8-byte blocks one way (half a round trip, medians): "
                    "Loom {:.0f} us, MPI {:.0f} us, hand {:.0f} us, contiguous {:.0f} us\n",
                 r.t[cLoom] * 5e5, r.t[cSys] * 5e5, r.t[cHand] * 5e5, r.t[cBound] * 5e5);
}

}  // namespace

int bench_p2p(const std::vector<CaseDef> &cases, const CommBenchArgs &a,
              const RunInfo &run, std::vector<CommRow> *rtt_rows) {
  int wrank = 0, wsize = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) {
    if (wrank == 0)
      fmt::print(stderr,
                 "loom bench p2p needs two ranks, e.g.\n  mpiexec -n 2 env "
                 "LD_PRELOAD=build/{0}/libloom-mpi.so build/{0}/loom bench p2p\n",
                 run.flavor);
    return 2;
  }
  // Ranks 0 and 1 measure; any others wait at the end.
  MPI_Comm pc = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, wrank < 2 ? 0 : MPI_UNDEFINED, wrank, &pc);

  CommRunInfo info;
  info.suite = "p2p";
  info.tool = "loom bench p2p";
  info.run = run;
  info.preload = detect_preload();
  info.ranks = 2;
  CommTable rtt, bw;
  rtt.key = "rtt";
  rtt.title = "ROUND TRIP";
  rtt.what =
      "microseconds per ping-pong (rank 0 sends, rank 1 receives and sends back; "
      "each side packs what it sends, unpacks what it receives)";
  if (a.once)
    rtt.what += "; Loom and MPI with a fresh duplicate of the type for every message "
                "(a layout used once: its dup, commit and free included)";
  bw.key = "bw";
  bw.title = "BANDWIDTH";
  bw.what =
      "MB/s of packed bytes, rank 0 -> rank 1, a window of nonblocking messages "
      "(up to 16, 4 MiB together, each into a receive buffer of its own) then an empty "
      "acknowledgement";
  bw.mbs = true;

  // --once is about a layout's first message: round trips only.
  const bool want_bw = !a.no_bw && !a.once;
  bool ok = true;
  if (pc != MPI_COMM_NULL) {
    info.binding = cpu_binding(pc);
    CaseParams params;
    params.quick = a.quick;
    params.rule = native_bounds_rule();
    CommTiming opt;
    opt.reps = a.reps;
    opt.budget_s = a.budget;
    opt.quick = a.quick;
    Progress progress(info.tool, cases.size(), a.progress, wrank == 0);
    for (size_t i = 0; i < cases.size(); ++i) {
      progress.start(i, cases[i].name);
      CommRow r1, r2;
      run_p2p_case(cases[i], params, opt, a.stat == "min", want_bw, a.loom_only, a.once, pc,
                   r1, r2);
      rtt.rows.push_back(std::move(r1));
      if (want_bw) bw.rows.push_back(std::move(r2));
    }
    progress.finish();
    MPI_Comm_free(&pc);
    if (wrank == 0) {
      info.run.load_end = read_load_average();
      std::vector<CommTable> tables{rtt};
      if (want_bw) tables.push_back(bw);
      std::vector<CommSummary> sums;
      print_comm_header(stdout, info);
      for (const auto &t : tables) {
        sums.push_back(summarize_comm(t));
        print_comm_table(stdout, t, sums.back(), a.plans);
      }
      print_p2p_targets(stdout, info, rtt);
      print_comm_verification(stdout, tables);
      std::fflush(stdout);
      for (const auto &s : sums) ok = ok && s.mismatched == 0 && s.errors == 0;
      if (!write_results(a.json, a.csv, comm_json(info, tables, sums))) ok = false;
      if (rtt_rows) *rtt_rows = rtt.rows;
    }
  }
  int okv = ok ? 1 : 0, all = 0;
  PMPI_Allreduce(&okv, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all ? 0 : 1;
}

}  // namespace loom_bench
