// Profiles: what loom tune writes reads back the same; damaged, foreign and
// missing files are refused with a reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "profile.hpp"

using namespace loom::xfer;

namespace {

// A 2 x 3 profile: staged everywhere, system with one cell not measured.
Profile sample() {
  Profile p;
  p.flavor = "mpich";
  p.mpi_library = "MPICH Version: 4.0.2";
  p.date = "2024-05-01T12:00:00Z";
  p.loom = "0.1.0 (abc123)";
  p.machine.host = "node1";
  p.machine.cpu = "Some CPU";
  p.machine.cores = 2;
  p.machine.load[0] = 0.5;
  p.runs = {8, 512};
  p.bytes = {4096, 65536, 1048576};
  p.cells[(size_t)Scheme::staged] = {1e-6, 2e-6, 3e-5, 1e-6, 1.5e-6, 2e-5};
  p.cells[(size_t)Scheme::system] = {4e-6, 9e-6, NAN, 1e-6, 1e-6, 1e-5};
  p.coll_min = 262144;
  p.contig_system = {1e-6, 2e-6, 1e-5};
  p.contig_read = {2e-6, 1e-6, NAN};
  p.pack = {1e-7, 2e-7, NAN, 1e-7, 1e-7, 3e-6};
  return p;
}

// The text of sample() with @p from replaced by @p to (which must occur).
std::string edited(const std::string &from, const std::string &to) {
  std::string text = profile_json(sample());
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST(Profile, WrittenTextReadsBack) {
  const Profile p = sample();
  Profile q;
  std::string why;
  ASSERT_TRUE(parse_profile(profile_json(p), &q, &why)) << why;
  EXPECT_EQ(q.flavor, p.flavor);
  EXPECT_EQ(q.mpi_library, p.mpi_library);
  EXPECT_EQ(q.date, p.date);
  EXPECT_EQ(q.loom, p.loom);
  EXPECT_EQ(q.machine.host, p.machine.host);
  EXPECT_EQ(q.machine.cores, 2);
  EXPECT_EQ(q.machine.load[0], 0.5);
  EXPECT_EQ(q.runs, p.runs);
  EXPECT_EQ(q.bytes, p.bytes);
  for (size_t s = 0; s < kSchemeCount; ++s) {
    ASSERT_EQ(q.cells[s].size(), p.cells[s].size()) << kSchemeNames[s];
    for (size_t i = 0; i < p.cells[s].size(); ++i)
      if (std::isnan(p.cells[s][i]))
        EXPECT_TRUE(std::isnan(q.cells[s][i]));
      else
        EXPECT_DOUBLE_EQ(q.cells[s][i], p.cells[s][i]);
  }
  EXPECT_TRUE(q.has(Scheme::staged));
  EXPECT_FALSE(q.has(Scheme::pipelined));
  EXPECT_DOUBLE_EQ(q.cell(Scheme::system, 1, 2), 1e-5);
  EXPECT_EQ(q.coll_min, 262144);
  ASSERT_EQ(q.contig_system.size(), 3u);
  ASSERT_EQ(q.contig_read.size(), 3u);
  EXPECT_DOUBLE_EQ(q.contig_system[2], 1e-5);
  EXPECT_DOUBLE_EQ(q.contig_read[1], 1e-6);
  EXPECT_TRUE(std::isnan(q.contig_read[2]));
  EXPECT_TRUE(std::isnan(q.cell(Scheme::system, 0, 2)));
  EXPECT_TRUE(std::isnan(q.cell(Scheme::pipelined, 0, 0)));
  EXPECT_DOUBLE_EQ(q.pack_cell(1, 2), 3e-6);
  EXPECT_TRUE(std::isnan(q.pack_cell(0, 2)));
}

TEST(Profile, MalformedTextsAreRefusedWithAReason) {
  struct Bad {
    std::string text, why;
  };
  const std::vector<Bad> bad = {
      {"", "not valid JSON"},
      {"{\"schema\": 1,", "not valid JSON"},
      {"[1, 2]", "not a JSON object"},
      {edited("\"schema\": 1", "\"schema\": 2"), "schema is not 1"},
      {edited("\"schema\": 1", "\"schema\": \"1\""), "schema is not 1"},
      {edited("\"flavor\": \"mpich\"", "\"flavor\": \"lam\""), "mpi.flavor"},
      {edited("\"mean_run\": [", "\"mean_run\": [4096,"), "ascending"},
      {edited("\"bytes\": [", "\"bytes\": [-1,"), "ascending"},
      {edited("\"bytes\": [", "\"bytez\": ["), "grid.bytes is missing"},
      {edited("\"staged\"", "\"fastest\""), "unknown scheme 'fastest'"},
      {edited("1e-05", "\"fast\""), "neither a positive number"},
      {edited("1e-05", "-1e-05"), "neither a positive number"},
      {edited("1e-05", "1e-05, 1e-05"), "one time per grid.bytes"},
      {edited("\"schemes\": {", "\"schemes\": {\"pipelined\": [], "), "one row per grid.mean_run"},
      {edited("\"coll_min\": 262144", "\"coll_min\": -1"), "coll_min is not a byte count"},
      {edited("\"coll_min\": 262144", "\"coll_min\": \"256K\""), "coll_min is not a byte count"},
      // The first "system" row is the contiguous one (keys are sorted).
      {edited("\"system\": [", "\"system\": [1, "),
       "contiguous.system: every row must hold one time per grid.bytes"},
      {edited("\"single_copy\": [", "\"single_copy_\": ["), "contiguous.single_copy is missing"},
      {edited("\"pack\": [", "\"pack\": [[1, 2, 3], "), "pack must hold one row per grid.mean_run"},
      {edited("3e-06", "0"), "pack: a time is neither"},
  };
  for (const Bad &b : bad) {
    Profile p;
    std::string why;
    EXPECT_FALSE(parse_profile(b.text, &p, &why)) << b.text;
    EXPECT_NE(why.find(b.why), std::string::npos) << "why: " << why << "\nexpected: " << b.why;
  }
}

// Profiles written before either crossover was measured still read.
TEST(Profile, CrossoversAreOptional) {
  Profile p = sample();
  p.coll_min = 0;
  p.contig_system.clear();
  p.contig_read.clear();
  Profile q;
  std::string why;
  const std::string text = profile_json(p);
  EXPECT_EQ(text.find("coll_min"), std::string::npos);
  EXPECT_EQ(text.find("contiguous"), std::string::npos);
  ASSERT_TRUE(parse_profile(text, &q, &why)) << why;
  EXPECT_EQ(q.coll_min, 0);
  EXPECT_TRUE(q.contig_system.empty());
  EXPECT_TRUE(q.contig_read.empty());
}

// A profile written before pack times were measured still reads: no
// layout correction then.
TEST(Profile, PackTableIsOptional) {
  Profile p = sample();
  p.pack.clear();
  Profile q;
  std::string why;
  const std::string text = profile_json(p);
  EXPECT_EQ(text.find("pack"), std::string::npos);
  ASSERT_TRUE(parse_profile(text, &q, &why)) << why;
  EXPECT_TRUE(q.pack.empty());
  EXPECT_TRUE(std::isnan(q.pack_cell(0, 0)));
}

TEST(Profile, MissingFileIsRefused) {
  Profile p;
  std::string why;
  EXPECT_FALSE(load_profile("/nonexistent/loom/profile.json", &p, &why));
  EXPECT_NE(why.find("cannot read /nonexistent/loom/profile.json"), std::string::npos) << why;
}

TEST(Profile, WriteCreatesDirectoriesAndLoadsBack) {
  char dir[] = "/tmp/loom-profile-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/a/b/profile-mpich.json";
  std::string why;
  ASSERT_TRUE(write_profile(path, sample(), &why)) << why;
  Profile q;
  ASSERT_TRUE(load_profile(path, &q, &why)) << why;
  EXPECT_EQ(q.bytes, sample().bytes);
  EXPECT_FALSE(write_profile("/proc/loom-cannot/profile.json", sample(), &why));
  EXPECT_NE(why.find("cannot"), std::string::npos) << why;
  std::system(("rm -rf " + std::string(dir)).c_str());
}

TEST(Profile, DefaultPathPerUser) {
  EXPECT_EQ(default_profile_path("mpich", "/x/cfg", "/home/u"), "/x/cfg/loom/profile-mpich.json");
  EXPECT_EQ(default_profile_path("openmpi", "", "/home/u"),
            "/home/u/.config/loom/profile-openmpi.json");
  EXPECT_EQ(default_profile_path("openmpi", nullptr, "/home/u"),
            "/home/u/.config/loom/profile-openmpi.json");
  EXPECT_EQ(default_profile_path("mpich", nullptr, nullptr), "");
}
