// Instruction sets (loom.h, src/core/isa.cpp): every set the CPU runs gives
// the reference interpreter's bytes, and LOOM_ISA forces one.  ctest runs
// the whole core suite again under each set (tests/core/CMakeLists.txt);
// a set this CPU lacks skips that run, saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "cache_size.hpp"
#include "differential.hpp"
#include "isa.hpp"
#include "jit_moves.hpp"
#include "loom.h"
#include "loom_handle.hpp"
#include "permute_table.hpp"
#include "run_seed.hpp"
#include "setting_text.hpp"
#include "step_table.hpp"
#include "test_env.hpp"
#include "type.hpp"

namespace loomtest {
namespace {

// Uniform integers in [lo, hi] from a trial's generator.
struct Uniform {
  std::mt19937_64 &rng;
  int64_t operator()(int64_t lo, int64_t hi) const {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
};

std::vector<std::string> runnable() {
  std::vector<std::string> v;
  std::stringstream in(loom_isa_list());
  for (std::string name; std::getline(in, name, ',');) v.push_back(name);
  return v;
}

// Each set the CPU runs, by the name loom_set_isa takes, and how slow
// masked stores count as: the AVX2 set twice, with its permutes (fast)
// and without (slow), since which of them a CPU takes follows a
// measurement (isa.hpp masked_stores_slow); the others as measured (-1).
struct SetRun {
  std::string name;
  int slow_stores;
  std::string label() const {
    if (slow_stores < 0) return name;
    return name + (slow_stores ? " (slow masked stores)" : " (fast masked stores)");
  }
};
std::vector<SetRun> set_runs() {
  std::vector<SetRun> v;
  for (const std::string &name : runnable()) {
    if (name != "avx2") v.push_back({name, -1});
    else v.push_back({name, 0}), v.push_back({name, 1});
  }
  return v;
}

// Switches to a run's set and store answer; back to the measured answer
// and the set in effect before when it ends.
class OnSet {
 public:
  OnSet() : before_(loom_isa()) {}
  ~OnSet() {
    loom::force_masked_stores_slow(-1);
    loom_set_isa(before_.c_str());
  }
  bool enter(const SetRun &r) {
    loom::force_masked_stores_slow(r.slow_stores);
    return loom_set_isa(r.name.c_str()) == LOOM_OK;
  }

 private:
  std::string before_;
};

const char *forced() {
  const char *v = std::getenv("LOOM_ISA");
  return v && *v && std::string(v) != "auto" ? v : nullptr;
}

// A run under LOOM_ISA=<a set this CPU lacks> would only repeat the widest
// set's run: skip it whole.
class IsaEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char *want = forced();
    if (!want) return;
    for (const std::string &name : runnable())
      if (name == want) return;
    GTEST_SKIP() << "LOOM_ISA=" << want << " is not supported here (this CPU runs "
                 << loom_isa_list() << ")";
  }
};
::testing::Environment *const g_isa_env =
    ::testing::AddGlobalTestEnvironment(new IsaEnvironment);

TEST(Isa, TheWidestOrTheForcedSetIsInEffect) {
  const std::vector<std::string> sets = runnable();
  ASSERT_FALSE(sets.empty());
  EXPECT_EQ(sets.back(), "baseline");
  EXPECT_EQ(std::string(loom_isa()), forced() ? std::string(forced()) : sets.front());
}

// loom_isa_measured: every set says how its long copies go, by a way it
// has (no 64-byte loop below AVX-512), and the sets with masked stores
// whether they are slow (AVX2's: the answer forced either way).
TEST(Isa, EverySetSaysWhatItMeasured) {
  OnSet on;
  for (const std::string &name : runnable()) {
    ASSERT_TRUE(on.enter({name, -1}));
    const std::string text = loom_isa_measured();
    EXPECT_EQ(text.rfind("long copies: regions by ", 0), 0u) << name << ": " << text;
    const bool wide = name.rfind("avx512", 0) == 0;
    if (wide) {
      EXPECT_NE(text.find("masked stores into uncached lines: "), std::string::npos) << text;
    } else {
      EXPECT_EQ(text.find("64-byte"), std::string::npos) << name << ": " << text;
    }
    if (name == "avx2") {
      for (int slow : {1, 0}) {
        loom::force_masked_stores_slow(slow);
        EXPECT_NE(std::string(loom_isa_measured()).find(slow ? "masked stores: slow" : "masked stores: fast"),
                  std::string::npos);
      }
      loom::force_masked_stores_slow(-1);
    }
  }
}

TEST(Isa, UnknownOrUnsupportedNamesChangeNothing) {
  const std::string before = loom_isa();
  EXPECT_EQ(loom_set_isa("sse9"), LOOM_ERR_ARG);
  EXPECT_EQ(std::string(loom_isa()), before);
  const std::vector<std::string> sets = runnable();
  for (const char *name : {"avx2", "avx512", "avx512vbmi"}) {
    bool here = false;
    for (const std::string &s : sets) here |= s == name;
    EXPECT_EQ(loom_set_isa(name), here ? LOOM_OK : LOOM_ERR_ARG) << name;
  }
  EXPECT_EQ(loom_set_isa(before.c_str()), LOOM_OK);
  EXPECT_EQ(std::string(loom_isa()), before);
}

// Names are read as the settings layer reads them (`loom info` and the
// drop-in validate LOOM_ISA with it): trimmed, any case.
TEST(Isa, NamesAreReadAsSettingsAre) {
  const std::string before = loom_isa();
  EXPECT_EQ(loom_set_isa(" Baseline\t"), LOOM_OK);
  EXPECT_EQ(std::string(loom_isa()), "baseline");
  EXPECT_EQ(loom_set_isa(" AUTO "), LOOM_OK);
  EXPECT_EQ(std::string(loom_isa()), runnable().front());
  EXPECT_EQ(loom_set_isa("base line"), LOOM_ERR_ARG);
  EXPECT_EQ(loom_set_isa(before.c_str()), LOOM_OK);
}

// Random trees built under each set in turn (a type's kernels are chosen
// when its plan is built), each against the reference interpreter.
TEST(Isa, EverySetGivesTheReferenceBytes) {
  const int n = static_cast<int>(256 * test_scale());
  const uint64_t base = base_seed(0x1500000);
  OnSet on;
  for (const SetRun &run : set_runs()) {
    ASSERT_TRUE(on.enter(run)) << run.label();
    int failures = 0;
    for (int i = 0; i < n && failures < 3; ++i) {
      TrialResult r = run_trial(base + static_cast<uint64_t>(i));
      if (!r.error.empty()) {
        ADD_FAILURE() << run.label() << ": seed " << base + i << " count " << r.count
                      << "\n  type: " << r.type << "\n  " << r.error;
        ++failures;
      }
    }
  }
}

// The AVX2 set permutes a small float pattern (floats 0 and 2 of every
// 3) where masked stores are fast and moves it where they are slow; the
// baseline moves it whatever the answer.  Forcing the answer is how the
// tests reach both.
TEST(Isa, Avx2PermutesOnlyWhereMaskedStoresAreFast) {
  const std::vector<std::string> sets = runnable();
  if (std::find(sets.begin(), sets.end(), "avx2") == sets.end())
    GTEST_SKIP() << "this CPU does not run AVX2";
  OnSet on;
  for (const char *name : {"avx2", "baseline"}) {
    for (int slow : {0, 1}) {
      ASSERT_TRUE(on.enter({name, slow}));
      Type t = committed(resized(indexed_block(1, {0, 2}, prim(LOOM_FLOAT)), 0, 12));
      ASSERT_TRUE(t);
      const bool permutes = loom::plan_for(t.get(), 64).node->permute != nullptr;
      EXPECT_EQ(permutes, std::string(name) == "avx2" && !slow)
          << name << (slow ? ", slow" : ", fast") << " masked stores";
    }
  }
  loom::force_masked_stores_slow(1);
  EXPECT_TRUE(loom::masked_stores_slow());
  loom::force_masked_stores_slow(-1);
  const bool measured = loom::masked_stores_slow();
  EXPECT_EQ(loom::masked_stores_slow(), measured) << "measured once";
}

// A small repeating pattern: k <= 16 elements of 1, 2, 4, 8 or 16 bytes at
// random element offsets within a window of up to 140 bytes (or, one time
// in four, 700), runs of one to three elements, a short vector of short
// blocks, or one block, sometimes nested (two copies, or a struct with one
// element more), resized to an extent of at least the window
// (exactly it, a few elements more, or up to 300 more), repeated `count`
// times: the layouts the permute kernels take (permute_table.hpp), in one
// register or in pieces, and some just too wide for them; sometimes
// placed at scattered slots instead of repeated.
// Returns the type and the most instances a trial should move of it.
std::pair<TypeSpecPtr, int64_t> small_pattern(std::mt19937_64 &rng) {
  const Uniform uni{rng};
  static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
  const int which = (int)uni(0, 4);
  TypeSpecPtr elem = which < 4 ? prim(kPrims[which]) : contig(2, prim(LOOM_DOUBLE));
  const int64_t size = which < 4 ? int64_t(1) << which : 16;
  // Mixed runs of one to three elements start every third slot, so that
  // nothing overlaps (receive types must not).
  const bool mixed = uni(0, 2) == 0;
  const int64_t spread = mixed ? 3 : 1,
                window = uni(0, 3) == 0 ? 700 : 140,
                slots = std::max<int64_t>(1, uni(1, window) / size / spread),
                k = uni(1, std::min<int64_t>(16, slots));
  std::vector<int64_t> all(slots);
  for (int64_t i = 0; i < slots; ++i) all[i] = i * spread;
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<int64_t> disp(all.begin(), all.begin() + k), bl;
  if (uni(0, 1)) std::sort(disp.begin(), disp.end());  // typemap order, or any
  int64_t end = 0;
  for (int64_t d : disp) {
    bl.push_back(mixed ? uni(1, 3) : 1);
    end = std::max(end, (d + bl.back()) * size);
  }
  TypeSpecPtr leaf = mixed ? indexed(bl, disp, elem) : indexed_block(1, disp, elem);
  switch (uni(0, 4)) {  // or a strided leaf, or one block
    case 0: {
      const int64_t blocks = uni(1, 8), len = uni(1, 3), stride = len + uni(0, 4);
      leaf = vector(blocks, len, stride, elem);
      end = ((blocks - 1) * stride + len) * size;
      break;
    }
    case 1:
      leaf = contig(uni(1, 5), elem);
      end = 8 * size;  // at most five elements in a slot of eight
      break;
  }
  // Or a small irregular nest: two copies of it, or it and one element
  // after it in a struct.
  const int64_t nest = uni(0, 5), second = end + size * uni(0, 2);
  if (nest == 0) leaf = hvector(2, 1, second, leaf), end += second;
  if (nest == 1) leaf = structure({1, 1}, {0, second}, {leaf, elem}), end = second + size;
  const int64_t pick = uni(0, 3);
  const int64_t extent = end + size * (pick == 0 ? 0 : pick == 1 ? uni(1, 8) : uni(0, 300));
  TypeSpecPtr unit = resized(leaf, 0, extent);
  if (uni(0, 3) != 0) return {unit, 400};
  // Or the pattern at scattered slots (an index loop over it: particle
  // subsets of small structs), in any order, never overlapping.
  const int64_t slots2 = uni(2, 32);
  std::vector<int64_t> at(slots2);
  for (int64_t i = 0; i < slots2; ++i) at[i] = i * extent;
  std::shuffle(at.begin(), at.end(), rng);
  at.resize((size_t)uni(2, slots2));
  return {hindexed_block(1, at, unit), 24};
}

// Runs of 1 to 6 elements of 1, 2, 4 or 8 bytes rising in typemap order
// over 129 to about 600 bytes, so that their pieces span three registers
// or more (packed from shared windows, ChunkTable::shared), resized to a
// few bytes more.
std::pair<TypeSpecPtr, int64_t> rising_runs(std::mt19937_64 &rng) {
  const Uniform uni{rng};
  static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
  const int which = (int)uni(0, 3);
  const int64_t size = int64_t(1) << which, span = uni(129, 600) / size;  // elements
  std::vector<int64_t> disp, bl;
  for (int64_t at = uni(0, 3); at < span && disp.size() < 16;) {
    disp.push_back(at), bl.push_back(std::min(uni(1, 6), span - at));
    at += bl.back() + uni(0, std::max<int64_t>(1, 2 * (span - at) / (16 - (int64_t)disp.size() + 1)));
  }
  const int64_t end = disp.back() + bl.back();
  return {resized(indexed(bl, disp, prim(kPrims[which])), 0, (end + uni(0, 4)) * size), 40};
}

// MPI_Type_vector's blocks: one block of 1 to 24 elements of 1, 2, 4 or 8
// bytes at a stride of up to twice its length or 8 elements more, up to
// 32 KiB of them (packed a group of instances a step from 4-8 KiB where
// their bytes fill whole registers, kernels.cpp k_vec_groups_pack, or,
// blocks of up to 31 bytes, a few a step into 32-byte registers, some
// only from 8 KiB, k_vec_steps_pack).
std::pair<TypeSpecPtr, int64_t> strided_blocks(std::mt19937_64 &rng) {
  const Uniform uni{rng};
  static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
  const int which = (int)uni(0, 3);
  const int64_t b = uni(1, 24), stride = b + uni(1, std::min<int64_t>(b, 8));
  return {resized(contig(b, prim(kPrims[which])), 0, stride << which), (32 << 10) / (b << which)};
}

// `n` trials of the test `what` under every set the CPU runs, each set
// from the same seed: trial(rng, i, seed) returns "" or what failed (up
// to three failures a set are reported).
template <class Trial>
void on_every_set(const char *what, int n, Trial trial) {
  const uint64_t seed = run_seed(what);
  OnSet on;
  for (const SetRun &run : set_runs()) {
    ASSERT_TRUE(on.enter(run)) << run.label();
    std::mt19937_64 rng(seed);
    int failures = 0;
    for (int i = 0; i < n && failures < 3; ++i) {
      const std::string error = trial(rng, i, seed);
      if (!error.empty()) {
        ADD_FAILURE() << run.label() << ": trial " << i << " of seed " << seed << ": " << error;
        ++failures;
      }
    }
  }
}

std::string trial_error(const TrialResult &r) {
  if (r.error.empty()) return "";
  return "count " + std::to_string(r.count) + "\n  type: " + r.type + "\n  " + r.error;
}

// A small repeating pattern runs loops compiled for it (jit_moves.hpp) on
// x86-64 unless LOOM_JIT is off (ctest's core.nojit run), with AVX-512
// its moves only where its words are doubles (it permutes shorts), both
// packing by the loop's line groups (word lanes for the shorts), one loop per layout
// whatever the count and the type (kept after the last such type is
// freed), and they give the reference interpreter's bytes, in whole calls
// and in ranges that cut instances (run_trial).
TEST(Isa, SmallPatternsRunCompiledLoopsUnlessOff) {
  const char *v = std::getenv("LOOM_JIT");
  bool on_here = true;
  if (v) loom::setting_bool(v, &on_here);
  const bool off = !on_here;
  OnSet on;
  for (const std::string &name : runnable()) {
    ASSERT_TRUE(on.enter({name, -1}));
    // Runs of 1, 3 and 2 doubles in 13, and of 2, 1, 3 shorts in 11.
    const TypeSpecPtr doubles = resized(indexed({1, 3, 2}, {0, 2, 8}, prim(LOOM_DOUBLE)), 0, 13 * 8);
    for (const TypeSpecPtr &leaf :
         {doubles, resized(indexed({2, 1, 3}, {1, 4, 6}, prim(LOOM_SHORT)), 0, 11 * 2)}) {
      Type t = committed(leaf);
      ASSERT_TRUE(t);
      const loom::JitCode *jit = loom::plan_for(t.get(), 64).node->jit.get();
#if defined(__x86_64__)
      const bool expect = !off, lines = expect && name.rfind("avx512", 0) == 0;
#else
      const bool expect = false, lines = false;
#endif
      EXPECT_EQ(jit != nullptr, expect) << name << ": " << describe(*leaf);
      if (jit) {
        EXPECT_EQ(jit->aligned_groups(), lines) << name << ": " << describe(*leaf);
      }
      // One loop for every count (a node per count, fold_plan) and for
      // every type of the same layout: compiled once.
      Type again = committed(leaf);
      ASSERT_TRUE(again);
      const auto *code = loom::plan_for(t.get(), 64).node->jit.get();
      for (int64_t count : {2, 3, 1000, 12345, 1 << 20})
        EXPECT_EQ(loom::plan_for(t.get(), count).node->jit.get(), code) << name << ", " << count;
      EXPECT_EQ(loom::plan_for(again.get(), 77).node->jit.get(), code) << name;
      // Freed with every type of its layout, the loop stays compiled for
      // the next one (a program that makes a type for every message).
      const std::weak_ptr<const loom::JitCode> kept = loom::plan_for(t.get(), 64).node->jit;
      t.reset(), again.reset();
      EXPECT_EQ(kept.expired(), !jit) << name << ": " << describe(*leaf);
      const std::string e = trial_error(run_trial(run_seed("Isa.SmallPatternsRunCompiledLoops"),
                                                  leaf, 300));
      EXPECT_EQ(e, "") << name;
    }
  }
}

TEST(Isa, SmallRepeatingPatternsOnEverySet) {
#ifdef LOOM_TEST_SANITIZED
  const int n = static_cast<int>(50 * test_scale());  // every set, ten times slower
#else
  const int n = static_cast<int>(200 * test_scale());
#endif
  on_every_set("Isa.SmallRepeatingPatternsOnEverySet", n,
               [](std::mt19937_64 &rng, int i, uint64_t seed) {
                 const auto [spec, most] = i % 4 == 3   ? rising_runs(rng)
                                           : i % 8 == 1 ? strided_blocks(rng)
                                                        : small_pattern(rng);
                 const int64_t count = std::uniform_int_distribution<int64_t>(1, most)(rng);
                 return trial_error(run_trial(seed + static_cast<uint64_t>(i), spec, count));
               });
}

// `bytes` of memory against an inaccessible page: ending where it starts
// (`at_end`), or starting where the one before it ends.  An access outside
// the bytes on that side faults.
class Fenced {
 public:
  Fenced(size_t bytes, bool at_end) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + page - 1) / page * page;
    size_ = body + 2 * page;
    void *m = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    base_ = static_cast<unsigned char *>(m);
    if (mprotect(base_ + page, body, PROT_READ | PROT_WRITE) != 0) return;
    data_ = at_end ? base_ + page + body - bytes : base_ + page;
  }
  ~Fenced() {
    if (base_) munmap(base_, size_);
  }
  Fenced(const Fenced &) = delete;
  Fenced &operator=(const Fenced &) = delete;
  unsigned char *data() { return data_; }  // null: no memory

 private:
  unsigned char *base_ = nullptr, *data_ = nullptr;
  size_t size_ = 0;
};

// One fenced placement: the user's bytes [lo, hi) and the stream against
// inaccessible pages, packed and unpacked whole and in two ranges split at
// `cut`.  "" or what failed.
std::string fenced_trial(const Layout &lay, int64_t count, loom_type t, int64_t lo, int64_t hi,
                         size_t cut, bool at_end, std::mt19937_64 &rng) {
  const size_t total = (size_t)(lay.size * count), span = (size_t)(hi - lo);
  if (total == 0) return "";
  Fenced user(span, at_end), stream(total, at_end), back(span, at_end);
  if (!user.data() || !stream.data() || !back.data()) return "no memory";
  for (size_t b = 0; b < span; ++b) user.data()[b] = (unsigned char)rng();
  const unsigned char *origin = user.data() - lo;
  const std::vector<unsigned char> expect = reference_pack(lay, count, origin);
  size_t pos = 0;
  if (loom_pack(origin, count, t, stream.data(), total, &pos) != LOOM_OK ||
      std::memcmp(stream.data(), expect.data(), total) != 0)
    return "loom_pack";
  std::memset(stream.data(), 0, total);
  if (loom_pack_range(origin, count, t, 0, cut, stream.data()) != LOOM_OK ||
      loom_pack_range(origin, count, t, cut, total - cut, stream.data() + cut) != LOOM_OK ||
      std::memcmp(stream.data(), expect.data(), total) != 0)
    return "loom_pack_range at " + std::to_string(cut);
  if (reference_overlaps(lay, count)) return "";  // unpacking it is erroneous
  std::memset(back.data(), 0x5A, span);
  std::vector<unsigned char> want(span, 0x5A);
  reference_unpack(lay, count, expect.data(), want.data() - lo);
  pos = 0;
  if (loom_unpack(stream.data(), total, &pos, back.data() - lo, count, t) != LOOM_OK ||
      std::memcmp(back.data(), want.data(), span) != 0)
    return "loom_unpack";
  // Each range from a buffer of its own bytes only.
  Fenced first(std::max<size_t>(cut, 1), at_end), second(std::max<size_t>(total - cut, 1), at_end);
  if (!first.data() || !second.data()) return "no memory";
  std::memcpy(first.data(), expect.data(), cut);
  std::memcpy(second.data(), expect.data() + cut, total - cut);
  std::memset(back.data(), 0x5A, span);
  if (loom_unpack_range(first.data(), 0, cut, back.data() - lo, count, t) != LOOM_OK ||
      loom_unpack_range(second.data(), cut, total - cut, back.data() - lo, count, t) != LOOM_OK ||
      std::memcmp(back.data(), want.data(), span) != 0)
    return "loom_unpack_range at " + std::to_string(cut);
  return "";
}

// fenced_trial against the pages after and before, `count` instances of
// `spec` (committed as t), split at a random byte: "" or what failed.
std::string fenced_both_ways(const TypeSpecPtr &spec, int64_t count, loom_type t,
                             std::mt19937_64 &rng) {
  const Layout lay = reference_layout(*spec);
  int64_t lo, hi;
  reference_span(lay, count, &lo, &hi);
  const size_t cut = std::uniform_int_distribution<size_t>(0, (size_t)(lay.size * count))(rng);
  for (bool at_end : {true, false}) {
    const std::string e = fenced_trial(lay, count, t, lo, hi, cut, at_end, rng);
    if (!e.empty())
      return e + (at_end ? ", fenced after" : ", fenced before") + ", count " +
             std::to_string(count) + "\n  type: " + describe(spec);
  }
  return "";
}

// One element of 1, 2, 4 or 8 bytes every 3 to 9 (the layouts packed by
// chains of registers, kernels.cpp chain_steps), and a count of whole
// registers of packed bytes, so that the last chain ends the message.
std::pair<TypeSpecPtr, int64_t> sparse_elements(std::mt19937_64 &rng) {
  static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
  const int which = std::uniform_int_distribution<int>(0, 3)(rng);
  const int64_t every = std::uniform_int_distribution<int64_t>(3, 9)(rng);
  return {resized(prim(kPrims[which]), 0, every << which),
          (64 >> which) * std::uniform_int_distribution<int64_t>(2, 8)(rng)};
}

// Packing may load bytes between those of the typemap (WholeLoads in
// permute_table.hpp), never a page the typemap does not touch; unpacking
// may load the stream past a step's bytes, never past the range's
// (ChunkTable::stream_tail).  Small patterns against an inaccessible page
// on either side of the message's bytes, and the stream's, packed and
// unpacked whole and in two ranges, give the reference interpreter's
// bytes (and do not fault).
TEST(Isa, SmallRepeatingPatternsTouchOnlyTheirPages) {
  on_every_set("Isa.SmallRepeatingPatternsTouchOnlyTheirPages",
               static_cast<int>(100 * test_scale()),
               [](std::mt19937_64 &rng, int i, uint64_t) -> std::string {
                 const bool sparse = i % 4 == 3;
                 const auto [spec, most] = sparse       ? sparse_elements(rng)
                                           : i % 4 == 2 ? rising_runs(rng)
                                           : i % 8 == 1 ? strided_blocks(rng)
                                                        : small_pattern(rng);
                 const int64_t count =
                     sparse ? most : std::uniform_int_distribution<int64_t>(1, most)(rng);
                 Type t = committed(spec);
                 if (!t) return "commit failed: " + describe(spec);
                 return fenced_both_ways(spec, count, t.get(), rng);
               });
}

// Unpacks of a mebibyte or more: where AVX-512's masked stores wait for
// lines in no cache (isa.hpp cold_masked_stores_slow, forced here either
// way), their loops prefetch the user's lines ahead (kernels.cpp
// prefetch_stores, masked_row): every other float or every fourth
// (the dense scatter), small patterns (permutes, pieces), strided blocks
// of 12 or 24 bytes (rows of masked stores), each packed and unpacked whole
// and in two ranges against inaccessible pages, the gaps left
// (fenced_trial).  Only the AVX-512 sets have such loops; one trial of
// each kind per answer (a mebibyte's reference takes a while).
TEST(Isa, MebibyteUnpacksWithOrWithoutStorePrefetchesOnAvx512) {
#ifdef LOOM_TEST_SANITIZED
  const std::vector<int> answers = {1};  // ten times slower
#else
  const std::vector<int> answers = {1, 0};
#endif
  for (int slow : answers) {
    loom::g_forced_cold_stores.store(slow);
    on_every_set(
        "Isa.MebibyteUnpacksWithOrWithoutStorePrefetchesOnAvx512", 3,
        [](std::mt19937_64 &rng, int i, uint64_t) -> std::string {
          if (std::string(loom_isa()).rfind("avx512", 0) != 0) return "";
          const Uniform uni{rng};
          constexpr int64_t kBytes = (int64_t(1) << 20) + 4096;
          TypeSpecPtr spec;
          int64_t count;
          if (i % 3 == 0) {
            const int64_t k = uni(0, 1) ? 2 : 4, el = uni(0, 1) ? 4 : 8;
            spec = resized(prim(el == 4 ? LOOM_FLOAT : LOOM_DOUBLE), 0, k * el);
            count = kBytes / el + uni(0, 40);
          } else if (i % 3 == 1) {
            // 12 or 24 bytes: strided blocks whose unpack stores each
            // under a mask (k_vec_blk, row), where the other sizes compile
            // loops or permute.
            const int64_t b = uni(0, 1) ? 12 : 24, stride = b + uni(4, 2 * b);
            spec = resized(contig(b, prim(LOOM_BYTE)), 0, stride);
            count = kBytes / b + uni(0, 40);
          } else {
            int64_t most;
            std::tie(spec, most) = small_pattern(rng);
            const Layout lay = reference_layout(*spec);
            count = lay.size > 0 ? kBytes / lay.size + uni(0, 40) : 1;
          }
          Type t = committed(spec);
          if (!t) return "commit failed: " + describe(spec);
          const std::string e = fenced_both_ways(spec, count, t.get(), rng);
          return e.empty() ? e : describe(spec) + ", count " + std::to_string(count) + ": " + e;
        });
  }
  loom::g_forced_cold_stores.store(-1);
}

// Leaves of one to four runs of 1 to 400 bytes (lengths about 32, 64,
// 96, 128 and 192 among them) of 1-, 2-, 4- or 8-byte elements,
// repeated: compiled loops (x86-64, LOOM_JIT on) move runs of 64 bytes or
// more by 64-byte registers on AVX-512, each run's last move ending at
// its end over bytes the one before moved (jit_moves.cpp by_zmm).  Every
// set, with inaccessible pages at both ends of the user's bytes and of
// the stream, whole and in two ranges, unpacking leaving the gaps
// (fenced_trial).
TEST(Isa, LongRunsOfCompiledLoopsOnEverySet) {
  int compiled = 0;
  on_every_set(
      "Isa.LongRunsOfCompiledLoopsOnEverySet", static_cast<int>(80 * test_scale()),
      [&compiled](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
        static const int64_t kEdges[] = {31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 191, 192, 193};
        const int which = (int)uni(0, 3);
        std::vector<int64_t> bl, disp;  // in elements
        for (int64_t r = uni(1, 4), at = uni(0, 3); r > 0; --r) {
          const int64_t bytes = uni(0, 1) ? kEdges[uni(0, 14)] : uni(1, 400);
          bl.push_back(std::max<int64_t>(1, bytes >> which));
          disp.push_back(at);
          at += bl.back() + uni(1, 40);
        }
        const int64_t end = disp.back() + bl.back();
        TypeSpecPtr spec =
            resized(indexed(bl, disp, prim(kPrims[which])), 0, (end + uni(0, 8)) << which);
        const int64_t size = reference_layout(*spec).size,
                      count = uni(1, std::max<int64_t>(2, (16 << 10) / size));
        Type t = committed(spec);
        if (!t) return "commit failed: " + describe(spec);
        compiled += loom::plan_for(t.get(), count).node->jit != nullptr;
        return fenced_both_ways(spec, count, t.get(), rng);
      });
#if defined(__x86_64__)
  if (loom::jit_enabled()) {
    EXPECT_GT(compiled, 0);
  }
#endif
}

// One instance of `t` in memory where only the pages holding its typemap's
// bytes are accessible, the first of them `first` bytes into the memory:
// packed whole and in two ranges split at `cut`, then unpacked, it gives
// the reference interpreter's bytes, unpacking leaves every other byte of
// those pages as it was, and nothing faults.  "" or what failed.  Types
// whose blocks overlap (which MPI lets a program pack, not receive into)
// are only packed (`unpacks` false).
std::string page_exact_trial(const TypeSpecPtr &t, int64_t first, size_t cut,
                             std::mt19937_64 &rng, bool unpacks = true) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const Layout lay = reference_layout(*t);
  int64_t lo, hi;
  reference_span(lay, 1, &lo, &hi);
  const size_t bytes = (size_t)(first + hi - lo) / page * page + 2 * page;
  void *m = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return "no memory";
  std::unique_ptr<void, std::function<void(void *)>> unmap(m, [bytes](void *p) { munmap(p, bytes); });
  unsigned char *origin = static_cast<unsigned char *>(m) + first - lo;
  std::set<uintptr_t> pages;  // the accessible ones, filled with random bytes
  for (const Piece &pc : lay.pieces) {
    const uintptr_t a = (uintptr_t)(origin + pc.disp) / page * page;
    const uintptr_t e = ((uintptr_t)(origin + pc.disp + pc.len) + page - 1) / page * page;
    if (mprotect((void *)a, e - a, PROT_READ | PROT_WRITE) != 0) return "mprotect";
    for (uintptr_t q = a; q < e; q += page) pages.insert(q);
  }
  for (uintptr_t q : pages)
    for (size_t k = 0; k < page; ++k) reinterpret_cast<unsigned char *>(q)[k] = (unsigned char)rng();
  Type lt = committed(t);
  if (!lt) return "commit failed";
  const size_t total = (size_t)lay.size;
  const std::vector<unsigned char> expect = reference_pack(lay, 1, origin);
  // The stream at a multiple of 64 bytes or 16, 32 or 48 past one (the
  // kernels that store whole lines align it first), and a guard byte.
  std::vector<unsigned char> space(total + 128, 0xA5);
  unsigned char *got = space.data() + (64 - (uintptr_t)space.data() % 64) % 64 + 16 * (rng() % 4);
  size_t pos = 0;
  if (loom_pack(origin, 1, lt.get(), got, total, &pos) != LOOM_OK ||
      std::memcmp(got, expect.data(), total) != 0 || got[total] != 0xA5)
    return "loom_pack";
  std::fill(space.begin(), space.end(), 0xA5);
  if (loom_pack_range(origin, 1, lt.get(), 0, cut, got) != LOOM_OK ||
      loom_pack_range(origin, 1, lt.get(), cut, total - cut, got + cut) != LOOM_OK ||
      std::memcmp(got, expect.data(), total) != 0 || got[total] != 0xA5)
    return "loom_pack_range at " + std::to_string(cut);
  if (!unpacks) return "";
  // Unpacking other bytes changes the typemap's bytes only (a gap's byte
  // belongs to the user).
  std::vector<unsigned char> other(total);
  for (unsigned char &c : other) c = (unsigned char)rng();
  std::vector<unsigned char> before;
  for (uintptr_t q : pages)
    before.insert(before.end(), reinterpret_cast<unsigned char *>(q),
                  reinterpret_cast<unsigned char *>(q) + page);
  pos = 0;
  if (loom_unpack(other.data(), total, &pos, origin, 1, lt.get()) != LOOM_OK ||
      reference_pack(lay, 1, origin) != other)
    return "loom_unpack";
  reference_unpack(lay, 1, expect.data(), origin);  // the old typemap bytes back
  size_t at = 0;
  for (uintptr_t q : pages) {
    if (std::memcmp(before.data() + at, reinterpret_cast<unsigned char *>(q), page) != 0)
      return "loom_unpack wrote a gap's byte";
    at += page;
  }
  return "";
}

// page_exact_trial's `first` that puts the last byte of one instance of
// `t` at a page's end.
int64_t ending_at_a_page(const TypeSpec &t) {
  const int64_t pg = (int64_t)sysconf(_SC_PAGESIZE);
  int64_t lo, hi;
  reference_span(reference_layout(t), 1, &lo, &hi);
  return 2 * pg - (hi - lo) % pg;
}

// page_exact_trial of one instance of `t` whose last byte ends a page,
// its two ranges cut at a random byte: "" or what failed, with the type.
std::string page_end_trial(const TypeSpecPtr &t, std::mt19937_64 &rng) {
  const Uniform uni{rng};
  const std::string e =
      page_exact_trial(t, ending_at_a_page(*t), (size_t)uni(0, reference_layout(*t).size), rng);
  return e.empty() ? "" : e + "\n  type: " + describe(*t);
}

// Packing rows of blocks that take two moves (3, 5-7, 9-15, 17-31 bytes;
// 49-63 on AVX-512) moves each but a row's last as one wider move, reading
// user bytes past it, on its page or the next block's (kernels.cpp
// wide_move); other sizes (33-48, 100) and rows more than a page apart
// move within each block: rows of 8 or more as a compiler expands memcpy,
// heads and a power-of-two tail (row_pairs), shorter ones by overlapping
// chunks (also Isa.FarRowsOfBlocksReadOnlyTheirPages).  Rows of
// such blocks, some under a second strided level, at strides from the
// block's length to three pages, the first block ending within 32 bytes
// of a page's end, against inaccessible pages wherever the typemap has no
// byte (page_exact_trial).  Unpacking them on AVX-512 stores each block
// but a row's last with a byte-masked store of a wider load.  Strides
// below the wider move (20 bytes of every 24 in 32-byte moves) read into
// the next blocks, never past the row's last byte; and below the block's
// length (overlapping blocks, packed only), where a wide move could reach
// past it, the row keeps its exact moves.
TEST(Isa, StridedOddBlocksReadOnlyTheirPages) {
  on_every_set(
      "Isa.StridedOddBlocksReadOnlyTheirPages", static_cast<int>(60 * test_scale()),
      [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        static const int64_t kSizes[] = {3,  5,  6,  7,  9,  10, 11, 12, 13, 15, 17, 20,
                                         24, 28, 31, 33, 36, 40, 44, 48, 49, 56, 63, 100};
        const int64_t b = kSizes[uni(0, sizeof kSizes / sizeof kSizes[0] - 1)];
        const int64_t pg = (int64_t)sysconf(_SC_PAGESIZE);
        const int64_t strides[] = {b + uni(0, 40), uni(b, pg), pg - uni(0, 24), pg,
                                   pg + uni(1, 24), 2 * pg + uni(0, 40), 3 * pg,
                                   uni(1, b - 1)};
        const int64_t st = strides[uni(0, 7)], n = uni(1, 12);
        TypeSpecPtr t = hvector(n, 1, st, contig(b, prim(LOOM_BYTE)));
        if (uni(0, 1)) t = hvector(uni(2, 3), 1, n * st + uni(0, 3) * pg + uni(0, 64), t);
        // Overlapping rows end at a page's end: a read past them faults.
        const int64_t first = st >= b ? 2 * pg - b - uni(0, 32) : ending_at_a_page(*t);
        const std::string e = page_exact_trial(t, first, (size_t)uni(0, reference_layout(*t).size),
                                               rng, st >= b);
        return e.empty() ? "" : e + "\n  type: " + describe(*t);
      });
}

// Blocks of every length from 5 to 48 bytes more than a page apart
// (rows of 8 or more moved by a head of 4-32 bytes, or two of 16, and a
// tail of the smallest power of two that ends the block, chosen once a
// row: kernels.cpp row_pairs; shorter rows by overlapping chunks; on
// AVX-512 5-31 bytes unpack by masked stores), rows of one to 20 blocks,
// some under a second strided level, the first block ending within 32
// bytes of a page's end, against
// inaccessible pages wherever the typemap has no byte
// (page_exact_trial).  Every length on every set: the random sizes of
// Isa.StridedOddBlocksReadOnlyTheirPages meet a far stride a few times.
TEST(Isa, FarRowsOfBlocksReadOnlyTheirPages) {
  on_every_set(
      "Isa.FarRowsOfBlocksReadOnlyTheirPages", 44,
      [](std::mt19937_64 &rng, int i, uint64_t) -> std::string {
        const Uniform uni{rng};
        const int64_t b = 5 + i, pg = (int64_t)sysconf(_SC_PAGESIZE);
        const int64_t st = uni(0, 1) ? pg + 16 * uni(1, 40) : uni(pg + 1, 3 * pg), n = uni(1, 20);
        TypeSpecPtr t = hvector(n, 1, st, contig(b, prim(LOOM_BYTE)));
        if (uni(0, 1)) t = hvector(2, 1, n * st + uni(0, 64), t);
        const std::string e = page_exact_trial(t, 2 * pg - b - uni(0, 32),
                                               (size_t)uni(0, reference_layout(*t).size), rng);
        return e.empty() ? "" : e + "\n  type: " + describe(*t);
      });
}

// Packing by whole registers of the stream (AVX2: jit_moves.cpp
// register_groups) loads 32 bytes around each run, or a window of several
// runs whose dwords a permute puts in order; every byte loaded lies
// between a step's first and last byte (a window that would pass the last
// is moved back).  Runs of one or two floats with gaps of up to three,
// whole steps of them (8 instances, the most a step takes), the message's
// last byte at a page's end and inaccessible pages wherever the typemap
// has no byte (page_exact_trial).
TEST(Isa, RegisterStepsReadOnlyTheirPages) {
  on_every_set(
      "Isa.RegisterStepsReadOnlyTheirPages", static_cast<int>(60 * test_scale()),
      [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        std::vector<int64_t> bl, disp;
        int64_t at = 0;
        for (int64_t k = uni(2, 6); k > 0; --k) {
          disp.push_back(at);
          bl.push_back(uni(1, 2));
          at += bl.back() + uni(1, 3);
        }
        const int64_t extent = (at + uni(-1, 2)) * 4;
        const TypeSpecPtr t = contig(8 * uni(1, 6),
                                     resized(indexed(bl, disp, prim(LOOM_FLOAT)), 0, extent));
        return page_end_trial(t, rng);
      });
}

// Short blocks a few bytes apart (3 floats of every 4, 10 shorts of every
// 11, 3 of every 4) pack with AVX-512 a few instances a step into whole
// 32-byte registers (step_table.hpp), from 32-byte windows at the step's
// multiples of 32 bytes, which read the gaps and may read into the next
// step's blocks, never past the range's last byte.  Those layouts take
// the steps on the AVX-512 sets (the shorts, byte lanes, only with VBMI),
// the floats on AVX2 too (word lanes, a permute of each window); on the
// AVX-512 sets compiled (jit_steps) unless LOOM_JIT=off.  But where
// compiled, all of them (and 9 shorts of every 11) pack on the AVX-512
// sets by line groups instead (kernels.cpp pack_by_lines; the shorts by
// word lanes): there the steps only with LOOM_JIT=off (ctest's
// core.nojit).  Blocks of 1 to 31 bytes at strides of up to twice their length
// or 8 bytes more, 1 to 700 of them (past 8 KiB: the steps that pay only
// there, and the stream aligned first), the last byte at a page's end and
// inaccessible pages wherever the typemap has none, packed whole and in
// two ranges (the second's stream at any alignment), give the reference
// interpreter's bytes (page_exact_trial).
TEST(Isa, ShortStridedBlocksPackByStepsReadingOnlyTheirPages) {
  OnSet on;
  for (const std::string &name : runnable()) {
    ASSERT_TRUE(on.enter({name, -1}));
    const bool avx512 = name.rfind("avx512", 0) == 0;
    const TypeSpecPtr floats = resized(contig(3, prim(LOOM_FLOAT)), 0, 16),
                      shorts = resized(contig(10, prim(LOOM_SHORT)), 0, 22),
                      nine = resized(contig(9, prim(LOOM_SHORT)), 0, 22),
                      dense = resized(contig(3, prim(LOOM_SHORT)), 0, 8);  // over its permutes
    for (const TypeSpecPtr &leaf : {floats, shorts, nine, dense}) {
      Type t = committed(leaf);
      ASSERT_TRUE(t);
      const loom::Node &node = *loom::plan_for(t.get(), 64).node;
      const loom::StepTable *steps = node.steps.get();
      // By line groups where compiled (AVX-512).
      const bool lines = avx512 && loom::jit_enabled();
      const bool expected = leaf != nine && (avx512 || name == "avx2") && !lines &&
                            (leaf == floats || name == "avx512vbmi");
      EXPECT_EQ(steps != nullptr, expected) << name << ": " << describe(*leaf);
      EXPECT_EQ(node.jit && node.jit->aligned_groups(), lines) << name << ": " << describe(*leaf);
      if (steps) {
        EXPECT_EQ(steps->code != nullptr, avx512 && loom::jit_enabled()) << name;
      }
    }
  }
  on_every_set(
      "Isa.ShortStridedBlocksPackByStepsReadingOnlyTheirPages",
      static_cast<int>(100 * test_scale()), [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        const int64_t b = uni(1, 31), st = b + uni(1, std::min<int64_t>(b, 8)), n = uni(1, 700);
        const TypeSpecPtr t = hvector(n, 1, st, contig(b, prim(LOOM_BYTE)));
        return page_end_trial(t, rng);
      });
}

// Blocks with shorter gaps (10 doubles of every 12, 3 floats of every 4;
// of shorts or bytes, by lanes of words or, with VBMI, of bytes), and
// leaves of such runs rising (floats 0, 2, 3, 4 of every 6), pack on the
// AVX-512 sets by whole cache lines of the
// stream (jit_moves.cpp line_groups): a few instances a step, each
// 64-byte register from two (or three) windows at multiples of 64 bytes
// from the step's first byte, which read the gaps and into the instances
// after the step, never past the range's last byte; in ranges from 4 KiB
// the stream first brought to a multiple of 64 bytes by the moves, shorter
// ones from where it lies (or by the moves alone, JitCode::lines_at).
// Instances 2 to 3 times their bytes apart (two or three windows a
// register) only where the step costs at most 0.9 of the moves (floats
// {0, 3, 5} of every 6, not 3 doubles of every 6 nor 10 of every 20) and
// no more than the permutes' pairs (not 8 floats of every 21).  Not on
// the other sets or with LOOM_JIT=off.  Blocks of 2 to 252 bytes at
// strides up to three times their length (a third of them of any bytes,
// the permutes' lanes words or bytes; some at an offset in their instance;
// a third of them 2-6 runs of words or of any bytes, with gaps),
// 1 to 640 of them (some under a second strided level), the last byte at a
// page's end and inaccessible pages wherever the typemap has none, packed
// whole and in two ranges (the second's stream at any alignment), give
// the reference interpreter's bytes (page_exact_trial).
// The whole-line groups a type's root packs by on the set entered: line
// groups (they permute windows), joined lines (they do not), or none.
enum class WholeLines { kNone, kLineGroups, kJoined };
WholeLines whole_lines(const TypeSpecPtr &spec) {
  Type t = committed(spec);
  if (!t) {
    ADD_FAILURE() << "type not committed";
    return WholeLines::kNone;
  }
  const loom::JitCode *j = loom::plan_for(t.get(), 1).node->jit.get();
  if (!j || !j->groups || !j->aligned_groups()) return WholeLines::kNone;
  return j->group_permutes > 0 ? WholeLines::kLineGroups : WholeLines::kJoined;
}
// Whether set `name` packs by whole lines (AVX-512, compiled loops on).
bool packs_whole_lines(const std::string &name) {
  return name.rfind("avx512", 0) == 0 && loom::jit_enabled();
}

TEST(Isa, BlocksPackByWholeLinesReadingOnlyTheirPages) {
  OnSet on;
  for (const std::string &name : runnable()) {
    ASSERT_TRUE(on.enter({name, -1}));
    const bool lines = packs_whole_lines(name);
    for (int64_t stride : {12, 20}) {
      // The gaps as long as the blocks: joined lines (next test).
      const WholeLines want = !lines ? WholeLines::kNone
                              : stride == 12 ? WholeLines::kLineGroups
                                             : WholeLines::kJoined;
      EXPECT_EQ(whole_lines(hvector(400, 1, 8 * stride, contig(10, prim(LOOM_DOUBLE)))), want)
          << name << ": 10 doubles of every " << stride;
    }
    EXPECT_EQ(whole_lines(hvector(100, 1, 16, contig(3, prim(LOOM_FLOAT)))),
              lines ? WholeLines::kLineGroups : WholeLines::kNone)
        << name << ": 3 floats of every 4";
    EXPECT_EQ(whole_lines(hvector(100, 1, 24, hindexed({4, 12}, {0, 8}, prim(LOOM_BYTE)))),
              lines ? WholeLines::kLineGroups : WholeLines::kNone)
        << name << ": floats 0, 2, 3, 4 of every 6";
    EXPECT_EQ(whole_lines(hvector(100, 1, 24, hindexed({4, 4, 4}, {0, 12, 20}, prim(LOOM_BYTE)))),
              lines ? WholeLines::kLineGroups : WholeLines::kNone)
        << name << ": floats 0, 3, 5 of every 6";
    EXPECT_EQ(whole_lines(hvector(100, 1, 48, contig(3, prim(LOOM_DOUBLE)))), WholeLines::kNone)
        << name << ": 3 doubles of every 6";
    EXPECT_EQ(whole_lines(hvector(100, 1, 84,
                                  hindexed({4, 4, 4, 8, 4, 8}, {4, 8, 24, 32, 44, 60}, prim(LOOM_BYTE)))),
              WholeLines::kNone)
        << name << ": 8 floats of every 21, by the permutes' pairs";
    // Lanes of words (AVX-512BW) and of bytes (VBMI) where the blocks or
    // strides are not whole dwords.
    EXPECT_EQ(whole_lines(hvector(100, 1, 8, contig(3, prim(LOOM_SHORT)))),
              lines ? WholeLines::kLineGroups : WholeLines::kNone)
        << name << ": 3 shorts of every 4";
    EXPECT_EQ(whole_lines(hvector(100, 1, 4, contig(3, prim(LOOM_BYTE)))),
              lines && name == "avx512vbmi" ? WholeLines::kLineGroups : WholeLines::kNone)
        << name << ": 3 bytes of every 4";
    if (!lines) continue;
    // Below 4 KiB from where the stream lies: short blocks from every
    // phase, 9 doubles of every 16 (split stores lose) not from 8 past a
    // line (JitCode::lines_at).
    Type floats = committed(hvector(100, 1, 16, contig(3, prim(LOOM_FLOAT)))),
         doubles = committed(hvector(20, 1, 128, contig(9, prim(LOOM_DOUBLE))));
    ASSERT_TRUE(floats && doubles);
    const loom::JitCode *f = loom::plan_for(floats.get(), 1).node->jit.get(),
                        *d = loom::plan_for(doubles.get(), 1).node->jit.get();
    ASSERT_TRUE(f && d && d->aligned_groups()) << name;
    EXPECT_EQ(f->lines_at, ~uint64_t(0)) << name;
    EXPECT_EQ(d->lines_at >> 8 & 1, 0u) << name;
  }
  on_every_set(
      "Isa.BlocksPackByWholeLinesReadingOnlyTheirPages", static_cast<int>(60 * test_scale()),
      [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        // Half the counts a multiple of 16, so of any step's instances:
        // the range's last step then ends at its last byte.  A third of
        // the blocks and strides of any bytes (lanes of words or bytes).
        const int64_t unit = uni(0, 2) ? 4 : 1, b = unit * uni(unit == 4 ? 1 : 2, 252 / unit),
                      st = b + unit * uni(1, std::max<int64_t>(1, (uni(0, 1) ? b : 2 * b) / unit)),
                      n = uni(0, 1) ? uni(1, 600) : 16 * uni(1, 40);
        // Some blocks at an offset in their instance (of any byte).
        TypeSpecPtr leaf = uni(0, 1) ? contig(b, prim(LOOM_BYTE))
                                     : resized(hindexed({b}, {uni(1, st - b)}, prim(LOOM_BYTE)), 0, st);
        int64_t stride = st;
        if (uni(0, 2) == 0) {
          // Or runs of words with gaps (an index leaf: floats {0, 2, 3, 4}
          // of every 6), some of any bytes, at a stride up to three times
          // the bytes they hold.
          std::vector<int64_t> bl, d;
          int64_t at = 4 * uni(0, 2), packed = 0;
          const bool words = uni(0, 3) != 0;
          for (int64_t k = uni(2, 6); k > 0; --k) {
            d.push_back(at), bl.push_back(words ? 4 * uni(1, 8) : uni(1, 30));
            packed += bl.back();
            at += bl.back() + (words ? 4 * uni(1, 3) : uni(1, 9));
          }
          leaf = hindexed(bl, d, prim(LOOM_BYTE));
          stride = at + (words ? 4 : 1) * uni(0, packed / 2);
        }
        TypeSpecPtr t = hvector(n, 1, stride, leaf);
        if (uni(0, 3) == 0) t = hvector(uni(2, 3), 1, n * stride + 4 * uni(0, 64), t);
        return page_end_trial(t, rng);
      });
}

// Blocks of whole words longer than a cache line and not a multiple of
// one, at any stride, pack on the AVX-512 sets by whole cache lines of the
// stream (jit_moves.cpp joined_lines) from ranges of 4 KiB on: a register
// across two blocks from the 64 bytes that end the first and the 64 that
// start the second, joined by a dword shift; every load within a block.
// Not blocks of bytes that are not whole words (9 doubles and a byte of
// every 33 doubles), nor on the other sets or with LOOM_JIT=off.  Blocks
// of 65 to 256 bytes (whole words or not) at strides up to four times
// their length (some at an offset in their instance, some in rows of 2-4
// an instance), 1 to 640 of them (some under a second strided level), the
// last byte at a page's end and
// inaccessible pages wherever the typemap has none, packed whole and in
// two ranges (the second's stream at any alignment), give the reference
// interpreter's bytes (page_exact_trial).
TEST(Isa, FarBlocksPackByJoinedLinesReadingOnlyTheirPages) {
  OnSet on;
  for (const std::string &name : runnable()) {
    ASSERT_TRUE(on.enter({name, -1}));
    for (int64_t odd : {0, 1})
      EXPECT_EQ(whole_lines(hvector(400, 1, 8 * 33, contig(72 + odd, prim(LOOM_BYTE)))),
                packs_whole_lines(name) && !odd ? WholeLines::kJoined : WholeLines::kNone)
          << name << ": " << 72 + odd << " bytes of every 264";
  }
  on_every_set(
      "Isa.FarBlocksPackByJoinedLinesReadingOnlyTheirPages", static_cast<int>(60 * test_scale()),
      [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        int64_t b = uni(0, 3) ? 4 * uni(17, 63) : uni(65, 255), st = b + uni(0, 3 * b);
        const int64_t n = uni(0, 1) ? uni(1, 600) : 16 * uni(1, 40);
        TypeSpecPtr leaf = uni(0, 1) ? contig(b, prim(LOOM_BYTE))
                                     : resized(hindexed({b}, {uni(1, st - b + 1)}, prim(LOOM_BYTE)), 0, st + 1);
        if (uni(0, 2) == 0) {  // rows of 2-4 blocks, one run each
          const int64_t rows = uni(2, 4), row = b + uni(0, b);
          leaf = hvector(rows, 1, row, contig(b, prim(LOOM_BYTE)));
          b = (rows - 1) * row + b, st = b + uni(0, b);
        }
        TypeSpecPtr t = hvector(n, 1, st + 1, leaf);
        if (uni(0, 3) == 0) t = hvector(uni(2, 3), 1, n * (st + 1) + 4 * uni(0, 64), t);
        return page_end_trial(t, rng);
      });
}

// Rows of word blocks (every other double or float of a submatrix's rows,
// pairs of floats of every three) pack on the AVX-512 sets by compiled
// steps too (step_table.hpp: a leaf whose bytes rise, none a page or more
// past the one before), one or more rows a step, from windows that read
// the gaps between blocks and between rows, never past the range's last
// byte.  Rows of 2 to 40 blocks of one or two words at strides of up to
// four words, 1 to 300 rows at strides up to a page and more past a row's
// end, the last byte at a page's end and inaccessible pages wherever the
// typemap has none, packed whole and in two ranges, give the reference
// interpreter's bytes (page_exact_trial).
TEST(Isa, RowsOfWordsPackByStepsReadingOnlyTheirPages) {
  OnSet on;
  for (const std::string &name : runnable()) {
    ASSERT_TRUE(on.enter({name, -1}));
    // 12 of every other double in rows 208 bytes apart.
    Type t = committed(hvector(21, 1, 208, hvector(12, 1, 16, prim(LOOM_DOUBLE))));
    ASSERT_TRUE(t);
    const loom::StepTable *steps = loom::plan_for(t.get(), 1).node->steps.get();
    const bool avx512 = name.rfind("avx512", 0) == 0;
    EXPECT_EQ(steps != nullptr && steps->code != nullptr, avx512 && loom::jit_enabled()) << name;
  }
  on_every_set(
      "Isa.RowsOfWordsPackByStepsReadingOnlyTheirPages", static_cast<int>(100 * test_scale()),
      [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        const loom_prim p = uni(0, 1) ? LOOM_DOUBLE : LOOM_FLOAT;
        const int64_t w = p == LOOM_DOUBLE ? 8 : 4, b = uni(1, 2), st = w * (b + uni(1, 3)),
                      k = uni(2, 40), row = (k - 1) * st + b * w;
        const int64_t pg = (int64_t)sysconf(_SC_PAGESIZE);
        const int64_t gaps[] = {w * uni(0, 4), uni(0, 300), pg - row % pg + uni(-8, 8),
                                pg + uni(0, 64)};
        const int64_t row_st = row + std::max<int64_t>(0, gaps[uni(0, 3)]) / w * w;
        const TypeSpecPtr t =
            hvector(uni(1, 300), 1, row_st, hvector(k, 1, st, contig(b, prim(p))));
        return page_end_trial(t, rng);
      });
}

// Strided blocks of 12 and 24 bytes whose reads and stream outgrow L1
// pack with AVX-512 eight or sixteen a step into three whole registers
// (kernels.cpp blocks_by_threes): each block's 16 or 32 bytes are loaded,
// so a step reads past its blocks, into the gaps or the next blocks,
// never past the range's last block.  Elements of 1 to 8 bytes, strides
// of a block (half the time at most two) to a page,
// more blocks than L1 holds, the last byte at a page's end and
// inaccessible pages wherever the typemap has none, packed whole and in
// two ranges, give the reference interpreter's bytes (page_exact_trial).
TEST(Isa, BlocksOfTwelveAndTwentyFourBytesReadOnlyTheirPages) {
  on_every_set(
      "Isa.BlocksOfTwelveAndTwentyFourBytesReadOnlyTheirPages",
      static_cast<int>(40 * test_scale()), [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
        const Uniform uni{rng};
        static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
        const int64_t b = uni(0, 1) ? 12 : 24;
        const int which = (int)uni(0, b == 24 ? 3 : 2), size = 1 << which;
        const int64_t st = (uni(0, 3) ? uni(b, 4096) : uni(b, 2 * b)) / size * size;
        const int64_t n = loom::l1_data_cache_bytes() / (st + b) + uni(1, 600);
        const TypeSpecPtr t = hvector(n, 1, st, contig(b / size, prim(kPrims[which])));
        return page_end_trial(t, rng);
      });
}

// A layout that may pack by groups of consecutive instances: strided
// blocks of 1 to 24 elements of 1, 2, 4 or 8 bytes up to 32 KiB, or an
// index pattern of 1 to 6 runs of 1 to 4 elements, gaps of up to 3,
// repeated up to 16 KiB; half the time a multiple of 64 instances, which
// ends the message with a whole group (a group's instances divide 64).
TypeSpecPtr group_candidate(std::mt19937_64 &rng) {
  const Uniform uni{rng};
  static const loom_prim kPrims[] = {LOOM_BYTE, LOOM_SHORT, LOOM_FLOAT, LOOM_DOUBLE};
  const int which = (int)uni(0, 3);
  const int64_t size = int64_t(1) << which;
  auto count = [&](int64_t most) {
    const int64_t n = uni(1, most);
    return uni(0, 1) ? std::max<int64_t>(64, n / 64 * 64) : n;
  };
  if (uni(0, 1)) {
    const int64_t b = uni(1, 24), st = b + uni(1, b + 8);
    return hvector(count((32 << 10) / (b * size)), 1, st * size, contig(b, prim(kPrims[which])));
  }
  std::vector<int64_t> disp, bl;
  int64_t at = uni(0, 2), packed = 0;
  for (int64_t k = uni(1, 6); k > 0; --k) {
    disp.push_back(at), bl.push_back(uni(1, 4));
    packed += bl.back() * size;
    at += bl.back() + uni(0, 3);
  }
  return contig(count((16 << 10) / packed),
                resized(indexed(bl, disp, prim(kPrims[which])), 0, (at + uni(0, 2)) * size));
}

// Packing groups of consecutive instances a step into whole registers
// (AVX-512: make_group_table, kernels.cpp group_steps) loads windows of
// two registers that read the gaps and into the next instances, never
// past the range's last byte, with the stream aligned first from 8 KiB
// and the last instances left to the kernel the groups replaced.  On the
// AVX-512 sets, layouts drawn (group_candidate) until one packs by groups,
// from shared windows and from each piece's own (both met on every such
// set); on the others, as drawn.  The last byte at a page's end and
// inaccessible pages wherever the typemap has none, packed whole and in
// two ranges, give the reference interpreter's bytes (page_exact_trial).
// The first trial on each set: 3 floats of every 4, 6 KiB, whose groups
// (shared windows) take the ranges from 4 KiB over its register steps
// (kernels.cpp take_steps) on the AVX-512 sets with LOOM_JIT=off, its
// line groups (pack_by_lines) where compiled.
TEST(Isa, GroupsOfInstancesReadOnlyTheirPages) {
  std::map<std::string, std::set<bool>> met;  // per set: shared windows or not
  on_every_set(
      "Isa.GroupsOfInstancesReadOnlyTheirPages", static_cast<int>(60 * test_scale()),
      [&met](std::mt19937_64 &rng, int i, uint64_t) -> std::string {
        const bool avx512 = std::string(loom_isa()).rfind("avx512", 0) == 0;
        TypeSpecPtr t = i == 0 ? contig(512, resized(contig(3, prim(LOOM_FLOAT)), 0, 16))
                               : group_candidate(rng);
        if (i == 0) {
          Type lt = committed(t);
          if (!lt) return "commit failed\n  type: " + describe(*t);
          const loom::Node &n = *loom::plan_for(lt.get(), 1).node;
          if (avx512 && loom::jit_enabled() && !(n.jit && n.jit->aligned_groups()))
            return "no line groups\n  type: " + describe(*t);
          if (avx512 && !loom::jit_enabled() && !(n.steps && n.groups && n.groups->packing))
            return "no groups over steps\n  type: " + describe(*t);
        }
        for (int tries = 0; i > 0 && avx512 && tries < 1000; ++tries, t = group_candidate(rng)) {
          Type lt = committed(t);
          if (!lt) return "commit failed\n  type: " + describe(*t);
          const loom::PlanRef r = loom::plan_for(lt.get(), 1);
          if (r.node->groups) {
            met[loom_isa()].insert(r.node->groups->packing != nullptr);
            break;
          }
        }
        return page_end_trial(t, rng);
      });
  for (const std::string &name : runnable()) {
    if (name.rfind("avx512", 0) == 0) {
      EXPECT_EQ(met[name].size(), 2u) << name;
    }
  }
}

// Long contiguous copies (long_copy-inl.hpp: loom_copy, each kernel set's
// copy) take the way each set measured (memcpy or a loop of its own)
// where glibc's memcpy may be slow (the destination a few bytes past the
// source modulo 4 KiB) or the region is short enough, memcpy otherwise:
// on every set, with the measured ways or any forced pair of them,
// regions of 0 to 300 KiB (and about 1 MiB, the loops' limit) at every
// kind of distance give the source's bytes and nothing outside them
// (guards on both sides); and rows of 1-5 KiB (blocks of a strided type,
// the same choice) packed into a stream a few bytes past the user's
// buffer give the blocks in order.
TEST(Isa, LongCopiesExactAtEveryDistance) {
  on_every_set(
      "Isa.LongCopiesExactAtEveryDistance", static_cast<int>(40 * test_scale()),
      [](std::mt19937_64 &rng, int i, uint64_t) -> std::string {
        const Uniform uni{rng};
        loom::g_forced_copy_ways.store(uni(0, 3) == 0 ? -1 : (int)(uni(0, 2) | uni(0, 2) << 2));
        struct Measured {
          ~Measured() { loom::g_forced_copy_ways.store(-1); }
        } measured;
        const int64_t near = uni(0, 2) == 0 ? 0 : uni(0, 1) ? uni(1, 63) : 4096 - uni(1, 63);
        const int64_t src_at = uni(0, 4095), dst_at = (src_at + (uni(0, 2) ? near : uni(0, 4095))) % 4096;
        static const int64_t kEdges[] = {255, 256, 257, 1024, 4096, (128 << 10) - 1, 128 << 10,
                                         (128 << 10) + 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1};
        const int64_t n = i % 4 == 0 ? kEdges[uni(0, 10)] : uni(0, 1) ? uni(0, 8192) : uni(0, 300 << 10);
        constexpr int64_t kGuard = 256;
        std::vector<char> src((size_t)(n + 8192)), dst((size_t)(n + 8192 + 2 * kGuard));
        for (char &c : src) c = (char)uni(0, 255);
        std::fill(dst.begin(), dst.end(), (char)0x5A);
        // Both at the chosen offsets from a 4 KiB boundary.
        auto page = [](char *p) { return p + ((4096 - (reinterpret_cast<uintptr_t>(p) & 4095)) & 4095); };
        char *from = page(src.data()) + src_at, *to = page(dst.data() + kGuard) + dst_at;
        loom_copy(to, from, (size_t)n);
        if (std::memcmp(to, from, (size_t)n) != 0)
          return "copy of " + std::to_string(n) + " bytes, distance " + std::to_string(dst_at - src_at) + ": bytes differ";
        for (char *p = dst.data(); p < dst.data() + dst.size(); ++p)
          if ((p < to || p >= to + n) && *p != (char)0x5A)
            return "copy of " + std::to_string(n) + " bytes wrote outside them";
        // Rows: c blocks of b bytes `stride` apart, packed `near` past them.
        const int64_t b = uni(1025, 5000), stride = b + uni(1, 300), c = uni(2, 6);
        loom_type byte = nullptr, rows = nullptr;
        loom_type_primitive(LOOM_BYTE, &byte);
        loom_type_hvector(c, b, stride, byte, &rows);
        loom_type_commit(rows);
        std::vector<char> user((size_t)(c * stride + 8192)), stream((size_t)(c * b + 8192));
        for (char &x : user) x = (char)uni(0, 255);
        char *u = page(user.data()) + src_at, *st = page(stream.data()) + dst_at;
        size_t pos = 0;
        const loom_status status = loom_pack(u, 1, rows, st, (size_t)(c * b), &pos);
        std::string error = status != LOOM_OK ? "loom_pack failed" : "";
        for (int64_t k = 0; k < c && error.empty(); ++k)
          if (std::memcmp(st + k * b, u + k * stride, (size_t)b) != 0)
            error = "rows of " + std::to_string(b) + " bytes, distance " + std::to_string(dst_at - src_at) +
                    ": row " + std::to_string(k) + " differs";
        loom_type_free(rows);
        loom_type_free(byte);
        return error;
      });
}

// Index lists whose runs differ in length (an idxv leaf: moved by size
// class, or on AVX-512 by whole registers and two masked moves whatever
// the length, kernels.cpp mv_run), the lengths on both sides of 64 and
// 128 bytes, some runs abutting (merged); with gaps of up to three pages
// against inaccessible pages wherever the typemap has no byte
// (page_exact_trial).  Long lists of runs no shorter than 8 or 16 bytes
// (elsewhere moved without a branch on the length by overlapping moves,
// kernels.cpp k_idxv_clamped; packed on AVX2 by masked loads where the
// lengths are whole words), their lengths multiples of 1, 4, 8 or 16
// bytes, near and far.  And particle subsets: sorted elements of one or
// three doubles, neighbours merged into runs, split into elements where
// the runs are short (plan.cpp split_short_runs).  Every set against the
// reference interpreter.
TEST(Isa, RunsOfMixedLengthsOnEverySet) {
  on_every_set(
      "Isa.RunsOfMixedLengthsOnEverySet", static_cast<int>(60 * test_scale()),
      [](std::mt19937_64 &rng, int i, uint64_t seed) -> std::string {
        const Uniform uni{rng};
        const int64_t pg = (int64_t)sysconf(_SC_PAGESIZE);
        TypeSpecPtr t;
        if (i % 4 != 2) {
          const bool far = i % 4 == 1 || (i % 4 == 3 && uni(0, 1));
          const int64_t unit = i % 4 == 3 ? int64_t(1) << (2 * uni(0, 2)) : 1;  // 1, 4, 16
          const int64_t shortest = uni(0, 1) ? 8 : 16;
          std::vector<int64_t> bl, d;
          int64_t at = uni(0, 64);
          for (int64_t r = i % 4 == 3 ? uni(64, 300) : uni(16, 200); r > 0; --r) {
            const int64_t cls = uni(0, 2);
            int64_t len = cls == 0 ? uni(1, 64) : cls == 1 ? uni(65, 128) : uni(129, 400);
            if (i % 4 == 3) len = std::max(shortest, (len + unit - 1) / unit * unit);
            bl.push_back(len);
            d.push_back(at);
            at += len + (uni(0, 3) == 0 ? 0 : far ? uni(1, 3 * pg) : uni(1, 40));
          }
          t = hindexed(bl, d, prim(LOOM_BYTE));
          if (far) {
            const int64_t total = reference_layout(*t).size;
            const std::string e =
                page_exact_trial(t, pg - uni(0, 200), (size_t)uni(0, total), rng);
            return e.empty() ? "" : e + "\n  type: " + describe(*t);
          }
        } else {
          const int64_t b = uni(0, 1) ? 1 : 3, slots = uni(64, 3000);
          std::vector<int64_t> idx;
          const int64_t keep = uni(30, 97);
          for (int64_t k = 0; k < slots; ++k)
            if (uni(1, 100) <= keep) idx.push_back(k);
          if (idx.size() < 2) idx = {0, 2};
          t = indexed_block(1, idx, contig(b, prim(LOOM_DOUBLE)));
        }
        return trial_error(run_trial(seed + static_cast<uint64_t>(i), t, uni(1, 2)));
      });
}

// Rows of exactly eight 4- or 8-byte elements at a stride (packed through
// a register, kernels.cpp row()) under one to three more strided levels,
// as Flash I/O's cells: every set against the reference interpreter.
TEST(Isa, ShortRowsOfSmallElementsOnEverySet) {
  on_every_set("Isa.ShortRowsOfSmallElementsOnEverySet", static_cast<int>(60 * test_scale()),
               [](std::mt19937_64 &rng, int i, uint64_t seed) {
                 const Uniform uni{rng};
                 const int64_t size = uni(0, 1) ? 8 : 4;
                 TypeSpecPtr t =
                     vector(8, 1, uni(2, 30), prim(size == 8 ? LOOM_DOUBLE : LOOM_FLOAT));
                 int64_t span = 8 * 30 * size;  // at least the row's extent
                 for (int64_t levels = uni(1, 3); levels > 0; --levels) {
                   const int64_t stride = span + size * uni(0, 40);
                   t = hvector(uni(1, 8), 1, stride, t);
                   span = stride * 8;
                 }
                 return trial_error(run_trial(seed + static_cast<uint64_t>(i), t, uni(1, 3)));
               });
}

// MPI leaves unpacking into an overlapping typemap undefined; Loom
// unpacks in typemap order, so where instances overlap the last byte
// wins, as the reference interpreter's.  Blocks of 2 to 16 bytes or
// floats at a stride shorter than the block, a count that leaves part of
// a register of instances at the end of the message (permute_table.hpp
// prefixes_exact), on every set.
TEST(Isa, OverlappingInstancesUnpackInTypemapOrderOnEverySet) {
  on_every_set("Isa.OverlappingInstancesUnpackInTypemapOrderOnEverySet",
               static_cast<int>(40 * test_scale()),
               [](std::mt19937_64 &rng, int, uint64_t) -> std::string {
                 const Uniform uni{rng};
                 const bool floats = uni(0, 1);
                 const int64_t size = floats ? 4 : 1, len = floats ? uni(2, 4) : uni(2, 16);
                 const TypeSpecPtr t =
                     resized(contig(len, prim(floats ? LOOM_FLOAT : LOOM_BYTE)), 0,
                             size * uni(1, len - 1));
                 const int64_t count = uni(2, 300);
                 const Layout lay = reference_layout(*t);
                 int64_t lo, hi;
                 reference_span(lay, count, &lo, &hi);
                 std::vector<unsigned char> stream((size_t)(lay.size * count));
                 for (unsigned char &c : stream) c = (unsigned char)rng();
                 std::vector<unsigned char> want((size_t)(hi - lo), 0x5A), got = want;
                 reference_unpack(lay, count, stream.data(), want.data() - lo);
                 Type lt = committed(t);
                 if (!lt) return "commit failed";
                 size_t pos = 0;
                 if (loom_unpack(stream.data(), stream.size(), &pos, got.data() - lo, count,
                                 lt.get()) != LOOM_OK || got != want)
                   return "loom_unpack, count " + std::to_string(count) + "\n  type: " +
                          describe(*t);
                 return "";
               });
}

}  // namespace
}  // namespace loomtest
