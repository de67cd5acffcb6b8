#include "harness.h"

#include "balanced_sequence.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>

#include <fmt/format.h>
#include <valgrind/callgrind.h>

namespace loom_bench {

const char *contender_name(int c) {
  static const char *names[] = {"Loom", "hand", "MPI", "memcpy"};
  return names[c];
}

namespace {
constexpr size_t kGuard = 256;       // checked bytes after every buffer
constexpr unsigned char kGuardByte = 0xC3;
}  // namespace

// Page-aligned buffer of n usable bytes followed by a guard zone.
Buf make_buf(size_t n) {
  const size_t total = (n + kGuard + 4095) & ~size_t(4095);
  char *p = static_cast<char *>(std::aligned_alloc(4096, total));
  if (!p) throw std::bad_alloc();
  std::memset(p + n, kGuardByte, kGuard);
  return Buf(p);
}

bool guard_ok(const char *p, size_t n) {
  for (size_t i = 0; i < kGuard; ++i)
    if (static_cast<unsigned char>(p[n + i]) != kGuardByte) return false;
  return true;
}

void fill_random(char *p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(p + i, &x, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<char>(i * 131 + 7);
}

std::string compare(const char *a, const char *b, size_t n) {
  if (std::memcmp(a, b, n) == 0) return "";
  size_t first = 0;
  while (first < n && a[first] == b[first]) ++first;
  size_t diff = 0;
  for (size_t i = first; i < n; ++i) diff += a[i] != b[i];
  return fmt::format("first difference at byte {} of {} ({} bytes differ)", first,
                     n, diff);
}

double now_s() {
  using clk = std::chrono::steady_clock;
  return std::chrono::duration<double>(clk::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string plan_string(loom_type t, int64_t count) {
  size_t need = loom_type_plan_string(t, count, nullptr, 0);
  std::string plan(need + 1, '\0');
  loom_type_plan_string(t, count, plan.data(), plan.size());
  plan.resize(std::strlen(plan.c_str()));
  return plan;
}

namespace {

struct Op {
  bool enabled = false;
  std::function<void()> fn;
  int64_t reps = 1;  // operations per sample
  std::vector<double> samples;
};

Op make_op(bool enabled, std::function<void()> fn) {
  Op o;
  o.enabled = enabled;
  o.fn = std::move(fn);
  return o;
}

double time_once(Op &op) {
  const double t0 = now_s();
  for (int64_t i = 0; i < op.reps; ++i) op.fn();
  return (now_s() - t0) / static_cast<double>(op.reps);
}

}  // namespace

CaseResult run_case(const CaseDef &def, const CaseParams &params,
                    const TimingOptions &opt) {
  CaseResult r;
  r.name = def.name;
  r.group = def.group;
  r.contiguous = def.contiguous;

  std::unique_ptr<CaseInstance> inst;
  try {
    inst = def.make(params);
  } catch (const std::exception &e) {
    r.error = e.what();
    return r;
  }
  CaseInstance &c = *inst;
  r.sizes = c.sizes;
  r.packed_bytes = c.packed_bytes;
  r.user_bytes = c.user_bytes;
  loom_type lt = c.type.loom();
  MPI_Datatype mt = c.type.mpi();
  using PackFn = int (*)(const void *, int, MPI_Datatype, void *, int, int *, MPI_Comm);
  using UnpackFn = int (*)(const void *, int, int *, void *, int, MPI_Datatype, MPI_Comm);
  const PackFn mpi_pack = opt.use_mpi_symbols ? PackFn(MPI_Pack) : PackFn(PMPI_Pack);
  const UnpackFn mpi_unpack =
      opt.use_mpi_symbols ? UnpackFn(MPI_Unpack) : UnpackFn(PMPI_Unpack);
  const size_t n = c.packed_bytes;
  const size_t ub = c.user_bytes;

  r.plan = plan_string(lt, c.count);

  int mpi_size = 0;
  PMPI_Pack_size(static_cast<int>(c.count), mt, MPI_COMM_SELF, &mpi_size);
  if (static_cast<size_t>(mpi_size) < n)
    r.mismatches.push_back(fmt::format("MPI_Pack_size {} < type size {}", mpi_size, n));

  Buf src = make_buf(ub), dst = make_buf(ub), ref = make_buf(ub);
  Buf pk_hand = make_buf(n), pk_loom = make_buf(n), pk_mpi = make_buf(n),
      pk_out = make_buf(n);
  fill_random(src.get(), ub, std::hash<std::string>{}(def.name));
  std::memset(pk_loom.get(), 0, n);
  std::memset(pk_mpi.get(), 0, n);
  std::memset(pk_out.get(), 0, n);
  char *const s0 = src.get() + c.origin;
  char *const d0 = dst.get() + c.origin;

  // ------------------------------------------------------- verification
  auto fail = [&](std::string what) { r.mismatches.push_back(std::move(what)); };
  c.hand_pack(s0, pk_hand.get());

  bool loom_ok = true, mpi_ok = true;
  {
    size_t pos = 0;
    loom_status st = loom_pack(s0, c.count, lt, pk_loom.get(), n, &pos);
    if (st != LOOM_OK) {
      fail(fmt::format("Loom pack failed: {}", loom_status_string(st)));
      loom_ok = false;
    } else {
      if (pos != n) fail(fmt::format("Loom pack position {} != {}", pos, n));
      std::string d = compare(pk_loom.get(), pk_hand.get(), n);
      if (!d.empty()) fail("Loom pack != hand pack: " + d);
    }
    if (!guard_ok(pk_loom.get(), n)) fail("Loom pack wrote past the output buffer");
  }
  {
    int pos = 0;
    int rc = mpi_pack(s0, static_cast<int>(c.count), mt, pk_mpi.get(),
                       static_cast<int>(n), &pos, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) {
      fail("MPI_Pack failed");
      mpi_ok = false;
    } else {
      if (static_cast<size_t>(pos) != n)
        fail(fmt::format("MPI_Pack position {} != {}", pos, n));
      std::string d = compare(pk_mpi.get(), pk_hand.get(), n);
      if (!d.empty()) fail("MPI pack != hand pack: " + d);
    }
  }
  // Unpack: each contender scatters the reference stream into a buffer of
  // sentinel bytes; the whole buffer (gaps included) must match the hand loop.
  std::memset(ref.get(), kSentinel, ub);
  c.hand_unpack(pk_hand.get(), ref.get() + c.origin);
  c.hand_pack(ref.get() + c.origin, pk_out.get());
  {
    std::string d = compare(pk_out.get(), pk_hand.get(), n);
    if (!d.empty()) fail("hand unpack/pack round trip differs (catalogue bug): " + d);
  }
  if (loom_ok) {
    std::memset(dst.get(), kSentinel, ub);
    size_t pos = 0;
    loom_status st = loom_unpack(pk_hand.get(), n, &pos, d0, c.count, lt);
    if (st != LOOM_OK) {
      fail(fmt::format("Loom unpack failed: {}", loom_status_string(st)));
      loom_ok = false;
    } else {
      if (pos != n) fail(fmt::format("Loom unpack position {} != {}", pos, n));
      std::string d = compare(dst.get(), ref.get(), ub);
      if (!d.empty()) fail("Loom unpack != hand unpack: " + d);
    }
    if (!guard_ok(dst.get(), ub)) fail("Loom unpack wrote past the user buffer");
  }
  if (mpi_ok) {
    std::memset(dst.get(), kSentinel, ub);
    int pos = 0;
    int rc = mpi_unpack(pk_hand.get(), static_cast<int>(n), &pos, d0,
                         static_cast<int>(c.count), mt, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) {
      fail("MPI_Unpack failed");
      mpi_ok = false;
    } else {
      std::string d = compare(dst.get(), ref.get(), ub);
      if (!d.empty()) fail("MPI unpack != hand unpack: " + d);
    }
  }
  ref.reset();

  // ------------------------------------------------------------- timing
  const int64_t count = c.count;
  char *const out = pk_out.get();
  const char *const in = pk_hand.get();
  Op pack[kContenders], unpack[kContenders];
  pack[kLoom] = make_op(loom_ok, [=] {
                   size_t pos = 0;
                   loom_pack(s0, count, lt, out, n, &pos);
                 });
  pack[kHand] = make_op(true, [&c, s0, out] { c.hand_pack(s0, out); });
  pack[kMpi] = make_op(mpi_ok, [=] {
                  int pos = 0;
                  mpi_pack(s0, static_cast<int>(count), mt, out, static_cast<int>(n),
                           &pos, MPI_COMM_SELF);
                });
  // The bound copies the packed bytes between the buffers the contenders
  // use: out of the user buffer into `out` (pack), out of `in` into the
  // user buffer (unpack).  Copied between `in` and `out`, two buffers that
  // every operation touches and so the hottest in cache, it ran 1.08-1.19x
  // faster than the very same memcpy of Contig's hand loop on a Zen 4
  // VM's caches, and all three contenders of Contig read 0.84-0.95x of it.
  // The user side starts at the type's origin (a contiguous type's data);
  // a type whose packed bytes do not fit between its origin and the
  // buffer's end (repeated elements) keeps the packed pair.
  const bool user_bound = c.origin + n <= ub;
  const char *const bound_src = user_bound ? s0 : in;
  char *const bound_dst = user_bound ? d0 : out;
  pack[kMemcpy] = make_op(true, [=] { std::memcpy(out, bound_src, n); });
  unpack[kLoom] = make_op(loom_ok, [=] {
                     size_t pos = 0;
                     loom_unpack(in, n, &pos, d0, count, lt);
                   });
  unpack[kHand] = make_op(true, [&c, in, d0] { c.hand_unpack(in, d0); });
  unpack[kMpi] = make_op(mpi_ok, [=] {
                    int pos = 0;
                    mpi_unpack(in, static_cast<int>(n), &pos, d0,
                               static_cast<int>(count), mt, MPI_COMM_SELF);
                  });
  unpack[kMemcpy] = make_op(true, [=] { std::memcpy(bound_dst, in, n); });

  std::vector<Op *> ops;
  for (auto &o : pack) ops.push_back(&o);
  for (auto &o : unpack) ops.push_back(&o);

  if (opt.icount > 0) {  // instruction counts instead of times
    for (int dir = 0; dir < 2; ++dir)
      for (int i = 0; i < kContenders; ++i) {
        Op &o = dir == 0 ? pack[i] : unpack[i];
        if (!o.enabled) continue;
        o.fn();  // warm: page faults and lazy set-up are not the kernel's
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
        for (int k = 0; k < opt.icount; ++k) o.fn();
        CALLGRIND_TOGGLE_COLLECT;
        // icount.py reads the case, direction, contender, operations and
        // packed bytes back from the dump's description.
        const std::string label = fmt::format("loom-icount|{}|{}|{}|{}|{}", r.name,
                                              dir == 0 ? "pack" : "unpack",
                                              contender_name(i), opt.icount, n);
        CALLGRIND_DUMP_STATS_AT(label.c_str());
      }
    return r;
  }

  // Warm up (page faults, caches, lazy initialization), then calibrate how
  // many operations one sample repeats so that a sample is long enough to
  // time reliably.
  double round_s = 0;
  for (Op *o : ops) {
    if (!o->enabled) continue;
    o->fn();
    o->fn();
    double t = 1e9;
    for (int i = 0; i < 3; ++i) t = std::min(t, time_once(*o));
    if (opt.quick) {
      o->reps = 1;
    } else {
      o->reps = std::clamp<int64_t>(
          static_cast<int64_t>(std::ceil(opt.min_sample_s / std::max(t, 1e-9))), 1,
          100000);
    }
    round_s += t * static_cast<double>(o->reps + 1);
  }
  std::vector<Op *> live;
  for (Op *o : ops)
    if (o->enabled) live.push_back(o);
  const int per_pass = std::max<int>(1, static_cast<int>(live.size()) - 1);
  int rounds;
  if (opt.reps > 0) {
    rounds = opt.reps;
  } else if (opt.quick) {
    rounds = 2;
  } else {
    rounds = static_cast<int>(opt.budget_s / std::max(round_s, 1e-9));
    rounds = std::clamp(rounds, opt.min_rounds, opt.max_rounds);
    // Whole passes, so that the order stays balanced.
    rounds = (rounds + per_pass - 1) / per_pass * per_pass;
  }
  r.rounds = rounds;

  // The contenders interleave: over `rounds` runs of each operation (Loom,
  // hand, MPI and memcpy packing and unpacking), in balanced_sequence
  // passes.  An operation pays for the cache state the previous one leaves
  // behind, even after a warm-up run: in a fixed order the first contender
  // measured up to 40% slower than the others on identical memcpy work
  // (Contig).
  // Orders shuffled per round from a fixed seed evened that out only on
  // average: over the 41 rounds of Indexed (FLOAT) in the Open MPI build,
  // Loom's pack followed an unpack (whose dirty lines the next operation
  // writes back) 20 times and the hand loop's 17, and memcpy 5 times
  // against 10, the same in every run, and Loom read 0.83-0.95x the hand
  // loop in every such run (0.97-1.22 in the MPICH build's 150 rounds).
  // Balanced it reads 0.86-0.98x: after Open MPI's unpack Loom's pack
  // still takes longer than the hand loop's (0.94-0.99 ms against
  // 0.60-0.78, 0.46-0.51 after the others; why, we did not find).
  // Each timed sample also follows one untimed run of the same operation
  // (its own data just touched, as when a message is packed over and over).
  // (--reps and --quick may end within a pass: an operation that has its
  // rounds is skipped from then on.)  The passes come from a fixed seed:
  // a run can be repeated.
  std::mt19937_64 rng(0x9E3779B97F4A7C15ull);
  while (!live.empty() && live.front()->samples.size() < (size_t)rounds)
    balanced_pass(
        live.size(), (size_t)rounds, rng, [&](size_t j) { return live[j]->samples.size(); },
        [&](size_t j) {
          live[j]->fn();
          live[j]->samples.push_back(time_once(*live[j]));
        });

  auto fill = [n, &opt](OpResult &res, const Op &o) {
    if (!o.enabled || o.samples.empty()) return;
    res.ok = true;
    res.reps = o.reps;
    res.samples_s = o.samples;
    res.median_s = median(o.samples);
    res.min_s = *std::min_element(o.samples.begin(), o.samples.end());
    auto mbs = [n](double t) { return t > 0 ? static_cast<double>(n) / t / 1e6 : 0; };
    res.median_mbs = mbs(res.median_s);
    res.best_mbs = mbs(res.min_s);
    res.mbs = opt.use_min ? res.best_mbs : res.median_mbs;
  };
  for (int i = 0; i < kContenders; ++i) fill(r.pack[i], pack[i]), fill(r.unpack[i], unpack[i]);
  return r;
}

}  // namespace loom_bench
