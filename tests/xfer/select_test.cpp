// Selection: log-log interpolation in a profile, which schemes are
// available when, the rules without a profile, LOOM_SCHEME.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "select.hpp"
#include "test_env.hpp"

using namespace loom::xfer;

namespace {

// A profile whose scheme s takes scale[s] * run^a * bytes^b seconds (NaN
// scale: not measured) on a 4 x 5 grid.
Profile power_law(double a, double b, const double (&scale)[kSchemeCount]) {
  Profile p;
  p.flavor = "openmpi";
  p.runs = {8, 64, 512, 65536};
  p.bytes = {4096, 32768, 262144, 2097152, 16777216};
  for (size_t s = 0; s < kSchemeCount; ++s) {
    if (std::isnan(scale[s])) continue;
    for (double r : p.runs)
      for (double n : p.bytes) p.cells[s].push_back(scale[s] * std::pow(r, a) * std::pow(n, b));
  }
  return p;
}

constexpr double kNone = NAN;

// Equal up to the rounding of exp(log(t)).
#define EXPECT_SAME_TIME(a, b) EXPECT_NEAR((a) / (b), 1.0, 1e-12)

Features message(size_t bytes, double run, bool system = true, bool peer = false,
                 bool first = false) {
  Features f;
  f.bytes = bytes;
  f.mean_run = run;
  f.system_allowed = system;
  f.loom_peer = peer;
  f.first_use = first;
  return f;
}

}  // namespace

// Interpolating the logs is exact for a power law anywhere inside the grid.
TEST(Predict, ExactForPowerLawsInsideTheGrid) {
  const uint64_t seed = loomtest::base_seed(std::random_device{}());
  std::printf("seed %llu (LOOM_TEST_SEED to replay)\n", (unsigned long long)seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> expo(-1, 1), lrun(std::log(8), std::log(65536)),
      lbytes(std::log(4096), std::log(16777216));
  for (int k = 0; k < 200; ++k) {
    const double a = expo(rng), b = expo(rng);
    const Profile p = power_law(a, b, {kNone, 1e-9, kNone, kNone, kNone});
    const double run = std::exp(lrun(rng)), bytes = std::exp(lbytes(rng));
    const double want = 1e-9 * std::pow(run, a) * std::pow(bytes, b);
    EXPECT_NEAR(predict(p, Scheme::staged, run, bytes) / want, 1.0, 1e-9)
        << "a " << a << " b " << b << " run " << run << " bytes " << bytes;
  }
}

TEST(Predict, ClampedAtTheEdges) {
  const Profile p = power_law(0.5, 1, {kNone, 1e-9, kNone, kNone, kNone});
  const double corner = p.cell(Scheme::staged, 0, 0);
  EXPECT_SAME_TIME(predict(p, Scheme::staged, 1, 100), corner);
  EXPECT_SAME_TIME(predict(p, Scheme::staged, 8, 4096), corner);
  EXPECT_SAME_TIME(predict(p, Scheme::staged, 1 << 30, double(int64_t(1) << 40)),
                   p.cell(Scheme::staged, 3, 4));
  EXPECT_SAME_TIME(predict(p, Scheme::staged, 1, 32768), p.cell(Scheme::staged, 0, 1));
}

TEST(Predict, MissingCellsAreLeftOut) {
  Profile p = power_law(0, 1, {kNone, 1e-9, kNone, kNone, kNone});
  // Run 64 KiB with 4 KiB messages cannot be measured.
  p.cells[(size_t)Scheme::staged][3 * 5 + 0] = NAN;
  // Between the missing cell and its neighbours: the neighbours decide.
  const double t = predict(p, Scheme::staged, 8192, 8192);
  EXPECT_FALSE(std::isnan(t));
  EXPECT_GT(t, 0);
  // On the missing cell itself: its neighbours of weight 0, plainly averaged.
  EXPECT_FALSE(std::isnan(predict(p, Scheme::staged, 65536, 4096)));
  EXPECT_TRUE(std::isnan(predict(p, Scheme::system, 512, 4096)));  // not measured
  EXPECT_TRUE(std::isnan(predict(p, Scheme::staged, 0, 4096)));    // no runs
}

// A layout's own pack time moves each scheme's prediction by
// layout_passes() times its difference from the profile's vector of the
// same mean run and size; without either pack time nothing moves.
TEST(Predict, LayoutPackTimeMovesEachSchemeByItsPasses) {
  Profile p = power_law(0, 1, {kNone, 4e-9, kNone, kNone, 5e-9});
  for (size_t k = 0; k < p.runs.size() * p.bytes.size(); ++k)
    p.pack.push_back(1e-9 * p.bytes[k % p.bytes.size()]);  // 1 ns per byte
  Features f = message(262144, 8, false, true);
  const double staged = predict(p, Scheme::staged, 8, 262144);
  const double pipelined = predict(p, Scheme::pipelined, 8, 262144);
  EXPECT_SAME_TIME(predict(p, Scheme::staged, f), staged);  // pack time unknown
  EXPECT_EQ(select(f, &p, Rules{}).scheme, Scheme::staged);
  // Packs at the vector's speed: the grid's prediction.
  f.pack_seconds = 1e-9 * 262144;
  EXPECT_SAME_TIME(predict(p, Scheme::staged, f), staged);
  EXPECT_SAME_TIME(predict(p, Scheme::pipelined, f), pipelined);
  // Three times slower to pack: staging pays the difference twice,
  // pipelining once, so pipelining wins.
  f.pack_seconds = 3e-9 * 262144;
  const double extra = 2e-9 * 262144;
  EXPECT_NEAR(predict(p, Scheme::staged, f), staged + 2 * extra, 1e-12);
  EXPECT_NEAR(predict(p, Scheme::pipelined, f), pipelined + extra, 1e-12);
  EXPECT_EQ(select(f, &p, Rules{}).scheme, Scheme::pipelined);
  // Much faster than the vector: never below a tenth of the grid's time.
  f.pack_seconds = 1e-15;
  EXPECT_GE(predict(p, Scheme::staged, f), 0.1 * staged);
  // A profile without a pack table (written before it existed).
  p.pack.clear();
  f.pack_seconds = 3e-9 * 262144;
  EXPECT_SAME_TIME(predict(p, Scheme::staged, f), staged);
  EXPECT_EQ(select(f, &p, Rules{}).scheme, Scheme::staged);
}

TEST(Select, LowestPredictionWins) {
  // system 2x staged everywhere, single_copy half of staged.
  const Profile p = power_law(0, 1, {2e-9, 1e-9, 0.5e-9, kNone, kNone});
  Choice c = select(message(1 << 20, 512), &p, Rules{});
  EXPECT_EQ(c.scheme, Scheme::staged);
  EXPECT_NE(c.reason.find("staged: "), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find(" vs system "), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("(profile cell run 512 B, 2 MiB)"), std::string::npos) << c.reason;
  c = select(message(1 << 20, 512, true, true), &p, Rules{});
  EXPECT_EQ(c.scheme, Scheme::single_copy) << c.reason;
  EXPECT_NE(c.reason.find(" vs staged "), std::string::npos) << c.reason;
}

TEST(Select, TheCrossoverFollowsTheProfile) {
  // System cheaper per run from 512 B runs on: staged costs bytes, system
  // costs bytes * (512 / run)^0.5.
  Profile p = power_law(-0.5, 1, {1e-9 * std::sqrt(512.0), kNone, kNone, kNone, kNone});
  p.cells[(size_t)Scheme::staged] = power_law(0, 1, {kNone, 1e-9, kNone, kNone, kNone})
                                        .cells[(size_t)Scheme::staged];
  EXPECT_EQ(select(message(1 << 20, 64), &p, Rules{}).scheme, Scheme::staged);
  EXPECT_EQ(select(message(1 << 20, 4096), &p, Rules{}).scheme, Scheme::system);
  // Not for a type the system path cannot carry.
  EXPECT_EQ(select(message(1 << 20, 4096, false), &p, Rules{}).scheme, Scheme::staged);
}

// A layout's first message takes no scheme that reads the sender's layout
// (it is not serialized and cached yet); a packed stream needs nothing.
TEST(Select, FirstUseTakesOnlyUnpreparedSchemes) {
  const Profile p = power_law(0, 1, {2e-9, 1e-9, 0.1e-9, 0.2e-9, 0.3e-9});
  Choice c = select(message(1 << 20, 8, true, true, true), &p, Rules{});
  EXPECT_EQ(c.scheme, Scheme::pipelined) << c.reason;
  EXPECT_NE(c.reason.find("first use"), std::string::npos) << c.reason;
  EXPECT_EQ(select(message(1 << 20, 8, true, true, false), &p, Rules{}).scheme,
            Scheme::single_copy);
  for (Scheme s : {Scheme::single_copy, Scheme::per_block, Scheme::pipelined}) {
    EXPECT_EQ(available(s, message(1, 8, true, true, true)), s == Scheme::pipelined);
    EXPECT_FALSE(available(s, message(1, 8, true, false, false)));
    EXPECT_TRUE(available(s, message(1, 8, true, true, false)));
  }
  // The rules: a run long enough for single copy streams on first use.
  Rules r;
  r.l2l_min = 0;
  r.l2l_run = 4096;
  c = select(message(1 << 20, 8192, false, true, true), nullptr, r);
  EXPECT_EQ(c.scheme, Scheme::pipelined);
  EXPECT_NE(c.reason.find("first use"), std::string::npos) << c.reason;
  EXPECT_EQ(select(message(1 << 20, 8192, false, true, false), nullptr, r).scheme,
            Scheme::single_copy);
  // Single copy only up to l2l_single_max bytes; larger messages stream.
  r.l2l_single_max = 1 << 20;
  EXPECT_EQ(select(message(1 << 20, 8192, false, true, false), nullptr, r).scheme,
            Scheme::single_copy);
  c = select(message((1 << 20) + 1, 8192, false, true, false), nullptr, r);
  EXPECT_EQ(c.scheme, Scheme::pipelined);
  EXPECT_NE(c.reason.find("only from cache"), std::string::npos) << c.reason;
}

// Without a profile (or where it predicts nothing available) the rules
// decide exactly as the drop-in always has.
TEST(Select, WithoutAProfileTheRulesDecide) {
  Rules r;
  r.system_run = 512;
  r.system_min = 8192;
  r.system_max = 4 << 20;
  struct Case {
    size_t bytes;
    double run;
    bool system_allowed;
    Scheme want;
  } cases[] = {{1 << 20, 512, true, Scheme::system},   {1 << 20, 511, true, Scheme::staged},
               {8192, 4096, true, Scheme::system},     {8191, 4096, true, Scheme::staged},
               {4 << 20, 4096, true, Scheme::system},  {(4 << 20) + 1, 4096, true, Scheme::staged},
               {1 << 20, 4096, false, Scheme::staged}};
  const Profile only_peer = power_law(0, 1, {kNone, kNone, 1e-9, kNone, kNone});
  for (const Case &c : cases) {
    Choice got = select(message(c.bytes, c.run, c.system_allowed), nullptr, r);
    EXPECT_EQ(got.scheme, c.want) << c.bytes << " " << c.run << ": " << got.reason;
    EXPECT_NE(got.reason.find("no profile"), std::string::npos) << got.reason;
    EXPECT_EQ(select(message(c.bytes, c.run, c.system_allowed), &only_peer, r).scheme, c.want);
  }
  r.system_run = 0;  // never
  EXPECT_EQ(select(message(1 << 20, 4096), nullptr, r).scheme, Scheme::staged);
}

TEST(Select, LoomToLoomBeforeTheSystemPathUpToItsLimit) {
  Rules r;
  r.system_run = 512;
  r.system_min = 8192;
  r.system_max = SIZE_MAX;
  r.l2l_min = 128 << 10;
  r.l2l_run = INT64_MAX;
  Features f = message(1 << 20, 2048, true, true);
  EXPECT_EQ(select(f, nullptr, r).scheme, Scheme::system);  // no limit: never first
  r.l2l_before_system_max = 4 << 20;
  Choice c = select(f, nullptr, r);
  EXPECT_EQ(c.scheme, Scheme::pipelined) << c.reason;
  f.bytes = (4 << 20) + 1;  // past the limit
  EXPECT_EQ(select(f, nullptr, r).scheme, Scheme::system);
  f.bytes = 64 << 10;  // below LOOM_L2L_MIN
  EXPECT_EQ(select(f, nullptr, r).scheme, Scheme::system);
  f.bytes = 1 << 20;
  f.first_use = true;  // nothing prepared yet: a stream needs nothing
  EXPECT_EQ(select(f, nullptr, r).scheme, Scheme::pipelined);
  f.first_use = false;
  f.loom_peer = false;
  EXPECT_EQ(select(f, nullptr, r).scheme, Scheme::system);
}

TEST(Select, ForcedSchemeWhereAvailable) {
  const Profile p = power_law(0, 1, {2e-9, 1e-9, kNone, kNone, kNone});
  Choice c = select(message(1 << 20, 8), &p, Rules{}, Scheme::system);
  EXPECT_EQ(c.scheme, Scheme::system);
  EXPECT_EQ(c.reason, "system: LOOM_SCHEME=system");
  c = select(message(1 << 20, 8, false), &p, Rules{}, Scheme::system);
  EXPECT_EQ(c.scheme, Scheme::staged);
  EXPECT_EQ(c.reason.rfind("LOOM_SCHEME=system is not available here; staged: ", 0), 0u)
      << c.reason;
  c = select(message(1 << 20, 8), nullptr, Rules{}, Scheme::pipelined);  // no Loom peer
  EXPECT_EQ(c.scheme, Scheme::staged);
  EXPECT_NE(c.reason.find("not available"), std::string::npos) << c.reason;
  EXPECT_EQ(select(message(1 << 20, 8, true, true), nullptr, Rules{}, Scheme::pipelined).scheme,
            Scheme::pipelined);
}

TEST(Select, SchemeNamesParseBack) {
  for (size_t s = 0; s < kSchemeCount; ++s)
    EXPECT_EQ(parse_scheme(scheme_name((Scheme)s)), (Scheme)s);
  EXPECT_FALSE(parse_scheme("auto"));
  EXPECT_FALSE(parse_scheme("Staged"));
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(1.5 * 1048576), "1.5 MiB");
}

TEST(CollCrossover, TheThresholdThatLosesLeastOverTheCases) {
  // A loss at 64 KiB after a (noisy) win at 32 KiB: the crossover is above
  // it; 128 KiB is a tie, which goes to staging.
  std::vector<CollPoint> p = {{1 << 20, 1.0, 2.0},  {1 << 15, 1.0, 1.1}, {1 << 16, 1.2, 1.0},
                              {1 << 18, 0.9, 1.0},  {1 << 17, 1.0, 1.0}};
  EXPECT_EQ(coll_crossover(p), size_t(1) << 18);
  // Two layouts' wins at a block size outweigh a third's loss there.
  EXPECT_EQ(coll_crossover({{1 << 16, 1.0, 2.0}, {1 << 16, 2.0, 1.0}, {1 << 16, 1.0, 2.0},
                            {1 << 17, 1.0, 2.0}}),
            size_t(1) << 16);
  // A loss above every win counts against the wins: a large win below
  // still sets the crossover, a small one does not (never).
  EXPECT_EQ(coll_crossover({{4096, 1, 2}, {8192, 3, 2}}), 4096u);
  EXPECT_EQ(coll_crossover({{4096, 1, 1.1}, {8192, 3, 2}}), kCollNever);
  // Winning everywhere: the smallest block measured; losing everywhere: never.
  EXPECT_EQ(coll_crossover({{4096, 1, 2}, {8192, 1, 2}}), 4096u);
  EXPECT_EQ(coll_crossover({{4096, 2, 1}, {8192, 2, 1}}), kCollNever);
  // Loom tune on the AMD EPYC VM, Open MPI (stop 33): staging wins to 512
  // KiB blocks, Loom-to-Loom from 2 MiB but for one 4 MiB case; the old
  // rule (no loss above the crossover) said never.
  std::vector<CollPoint> ompi = {
      {32768, 8.9, 7.1},       {64819, 12.4, 12.0},     {131072, 73.8, 22.1},
      {262144, 180.7, 44.7},   {524288, 265.6, 111.9},  {32363, 27.6, 10.5},
      {65536, 49.9, 20.4},     {130050, 98.7, 37.5},    {262144, 179.6, 81.0},
      {524288, 351.0, 190.0},  {1048576, 718.7, 411.0}, {2097152, 1356.2, 1630.4},
      {4194304, 2504.1, 3185.8}, {32768, 20.6, 8.7},    {65536, 38.7, 17.7},
      {131072, 77.3, 30.4},    {262144, 149.6, 60.9},   {524288, 290.4, 139.2},
      {1048576, 578.9, 532.1}, {2097152, 1240.4, 1597.2}, {4194304, 2694.1, 4183.1},
      {32768, 10.2, 8.7},      {65536, 13.2, 11.8},     {131072, 25.5, 23.5},
      {262144, 50.9, 46.6},    {524288, 80.0, 115.4},   {1048576, 108.0, 216.7},
      {2097152, 451.2, 577.3}, {4194304, 1755.0, 1532.0}};
  EXPECT_EQ(coll_crossover(ompi), size_t(1) << 20);
  // Unmeasured points are left out; nothing measured: 0.
  EXPECT_EQ(coll_crossover({{4096, 1, 2}, {8192, NAN, 2}, {16384, 0, 1}}), 4096u);
  EXPECT_EQ(coll_crossover({{4096, NAN, 2}}), 0u);
  EXPECT_EQ(coll_crossover({}), 0u);
}

// Contiguous messages: read in place where the profile's contiguous rows
// (log-log between measured sizes, clamped at the ends) predict it faster
// than the system's copy; a window is kept as a window.
TEST(ContiguousRows, ReadInPlaceWhereItWasFaster) {
  Profile p;
  p.runs = {8};
  p.bytes = {32768, 131072, 524288};
  EXPECT_FALSE(contiguous_read_wins(p, 131072));  // no rows: never
  p.contig_system = {1e-5, 1e-5, 1e-5};
  p.contig_read = {2e-5, 5e-6, 2e-5};
  EXPECT_FALSE(contiguous_read_wins(p, 4096));
  EXPECT_FALSE(contiguous_read_wins(p, 32768));
  EXPECT_TRUE(contiguous_read_wins(p, 100000));
  EXPECT_TRUE(contiguous_read_wins(p, 131072));
  EXPECT_TRUE(contiguous_read_wins(p, 200000));
  EXPECT_FALSE(contiguous_read_wins(p, 262144));  // equal predictions: the system
  EXPECT_FALSE(contiguous_read_wins(p, 524288));
  EXPECT_FALSE(contiguous_read_wins(p, 1 << 24));
  p.contig_read[1] = NAN;  // unmeasured: never predicted faster
  EXPECT_FALSE(contiguous_read_wins(p, 131072));
  p.contig_read = {5e-6, 5e-6, 5e-6};
  EXPECT_TRUE(contiguous_read_wins(p, 1 << 24));
  p.contig_read.pop_back();  // rows that do not fit the axis: never
  EXPECT_FALSE(contiguous_read_wins(p, 131072));
}
