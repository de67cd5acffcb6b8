#include "p2p_harness.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "balanced_sequence.h"
#include "harness.h"

namespace loom_bench {

const char *comm_contender_name(int c) {
  static const char *names[] = {"Loom", "MPI", "hand", "bound"};
  return names[c];
}

namespace {

// Seconds for `reps` operations after a barrier, divided by reps.
double timed(CommOp &op, int64_t reps, MPI_Comm comm) {
  PMPI_Barrier(comm);
  const double t0 = now_s();
  for (int64_t i = 0; i < reps; ++i) op.fn();
  return (now_s() - t0) / static_cast<double>(reps);
}

double max_over(double v, MPI_Comm comm) {
  double out = v;
  PMPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

}  // namespace

int time_comm_ops(const std::vector<CommOp *> &ops, const CommTiming &opt,
                  MPI_Comm comm) {
  // Warm up (staging pools, page faults, eager/rendezvous setup), then
  // calibrate the repetitions per sample from the fastest of two single
  // operations (slowest rank).  An operation that takes long already gets one
  // per sample; it is not run again to find that out.
  for (CommOp *o : ops) {
    o->samples.clear();
    if (!o->enabled) continue;
    double t = max_over(timed(*o, 1, comm), comm);
    if (t < 5 * opt.min_sample_s) {
      t = 1e9;
      for (int i = 0; i < 2; ++i) t = std::min(t, timed(*o, 1, comm));
      t = max_over(t, comm);
    }
    o->reps = opt.quick ? 1
                        : std::clamp<int64_t>(static_cast<int64_t>(std::ceil(
                                                  opt.min_sample_s / std::max(t, 1e-9))),
                                              1, 100000);
  }

  // Interleaved passes (balanced_sequence.h: each operation right after
  // every other one equally often, as in `loom bench pack`), from a fixed
  // seed, the same on every rank, so that they run the same operation
  // together.  A sample of several operations follows one untimed operation
  // of its own: an operation then finds its own data, not its
  // predecessor's, in cache.  Passes go on until the time budget is spent
  // (at least min_rounds runs of each; rank 0's clock decides, so that
  // every rank stops together): on a loaded machine the operations take
  // longer than their calibration said.  --reps and --quick stop each
  // operation at its count, within a pass.
  std::vector<CommOp *> live;
  for (CommOp *o : ops)
    if (o->enabled) live.push_back(o);
  const size_t target = opt.reps > 0 ? (size_t)opt.reps : opt.quick ? 2 : SIZE_MAX;
  std::mt19937_64 rng(0x9E3779B97F4A7C15ull);
  const double start = now_s();
  int rounds = 0;  // runs of each operation
  while (!live.empty()) {
    balanced_pass(
        live.size(), target, rng, [&](size_t j) { return live[j]->samples.size(); },
        [&](size_t j) {
          CommOp &o = *live[j];
          if (o.reps > 1) o.fn();
          o.samples.push_back(timed(o, o.reps, comm));
        });
    rounds = (int)live.front()->samples.size();  // the same for every operation
    int stop;
    if (target != SIZE_MAX)
      stop = (size_t)rounds >= target;
    else
      stop = rounds >= opt.max_rounds ||
             (rounds >= opt.min_rounds && now_s() - start >= opt.budget_s);
    PMPI_Bcast(&stop, 1, MPI_INT, 0, comm);
    if (stop) break;
  }
  // A sample counts as long as its slowest rank took.
  for (CommOp *o : ops) {
    if (o->samples.empty()) continue;
    std::vector<double> mx(o->samples.size());
    PMPI_Allreduce(o->samples.data(), mx.data(), static_cast<int>(mx.size()),
                   MPI_DOUBLE, MPI_MAX, comm);
    o->samples = std::move(mx);
  }
  return rounds;
}

double comm_stat(const CommOp &op, bool use_min) {
  if (!op.enabled || op.samples.empty()) return NAN;
  if (use_min) return *std::min_element(op.samples.begin(), op.samples.end());
  return median(op.samples);
}

bool all_ranks(bool local, MPI_Comm comm) {
  int v = local ? 1 : 0, out = 0;
  PMPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MIN, comm);
  return out != 0;
}

std::vector<std::string> gather_messages(const std::vector<std::string> &local,
                                         MPI_Comm comm) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  std::string joined;
  for (const auto &m : local) joined += m + '\n';
  int len = static_cast<int>(joined.size());
  std::vector<int> lens(size), displs(size);
  PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) displs[r] = total, total += lens[r];
  std::string all(static_cast<size_t>(rank == 0 ? total : 0), '\0');
  PMPI_Gatherv(joined.data(), len, MPI_CHAR, all.data(), lens.data(),
               displs.data(), MPI_CHAR, 0, comm);
  std::vector<std::string> out;
  if (rank != 0) return out;
  for (int r = 0; r < size; ++r) {
    size_t pos = static_cast<size_t>(displs[r]);
    const size_t end = pos + static_cast<size_t>(lens[r]);
    while (pos < end) {
      size_t nl = all.find('\n', pos);
      out.push_back("rank " + std::to_string(r) + ": " + all.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  return out;
}

PreloadInfo detect_preload() {
  PreloadInfo p;
  void *sym = dlsym(RTLD_DEFAULT, "MPI_Send");
  Dl_info info{};
  if (sym && dladdr(sym, &info) && info.dli_fname) {
    p.from = info.dli_fname;
  } else {
    p.from = "(unknown)";
  }
  p.preloaded = p.from.find("libloom-mpi") != std::string::npos;
  return p;
}

std::string cpu_binding(MPI_Comm comm) {
  std::string mine = "?";
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    mine.clear();
    int ncpu = 0;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &set)) continue;
      int e = c;
      while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) ++e;
      mine += (mine.empty() ? "" : ",") + std::to_string(c) +
              (e > c ? "-" + std::to_string(e) : "");
      ncpu += e - c + 1;
      c = e;
    }
    mine = (ncpu == 1 ? "CPU " : "CPUs ") + mine;
  }
  std::string out;
  for (const auto &m : gather_messages({mine}, comm)) out += (out.empty() ? "" : ", ") + m;
  return out;
}

uint64_t mix64(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (uint64_t v : {a, b, c, d}) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
  }
  return h;
}

}  // namespace loom_bench
