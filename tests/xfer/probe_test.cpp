// The cross-memory attach probe (src/xfer/cma_probe.*): the decisions it
// derives, and one measurement shared by every process of a node.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "cma_probe.hpp"

namespace {

using loom::xfer::CmaCosts;

CmaCosts costs(double seg_ns, double byte_ns, double copy_ns) {
  CmaCosts c;
  c.measured = true;
  c.call_ns = 1000;
  c.seg_ns = seg_ns;
  c.byte_ns = byte_ns;
  c.copy_byte_ns = copy_ns;
  return c;
}

// A machine whose reads run at memcpy's speed with 100 ns per segment:
// streams win, single copy from 100 / (1.5 * 0.05 - 0.05) = 4000 B runs.
TEST(Probe, FastReadsWinFromTheRunTheSegmentCostAllows) {
  CmaCosts c = costs(100, 0.05, 0.05);
  EXPECT_TRUE(c.stream_wins());
  EXPECT_NEAR(c.single_copy_run(false), 4000, 1e-6);
  // Against a stream unpacked in place (two copies): 100 / (2 * 0.05 - 0.05).
  EXPECT_NEAR(c.single_copy_run(true), 2000, 1e-6);
}

// A nested guest: reads at a quarter of memcpy's speed lose at any run.
TEST(Probe, SlowReadsNeverWin) {
  CmaCosts c = costs(650, 0.12, 0.03);
  EXPECT_FALSE(c.stream_wins());
  EXPECT_EQ(c.single_copy_run(false), 0);
  EXPECT_EQ(c.single_copy_run(true), 0);  // four copies' time per byte: never
  EXPECT_NE(c.describe(true).find("streams lose, single copy never"), std::string::npos)
      << c.describe(true);
  EXPECT_FALSE(CmaCosts{}.stream_wins());  // not measured: no claim
}

// This process may read itself on any Linux that lets the tests run the
// movers; the figures must be positive and finite.
TEST(Probe, MeasuresThisMachine) {
  CmaCosts c = loom::xfer::measure_cma();
  if (!c.measured) GTEST_SKIP() << "process_vm_readv refused here";
  EXPECT_GT(c.byte_ns, 0);
  EXPECT_GT(c.copy_byte_ns, 0);
  EXPECT_GE(c.seg_ns, 0);
  EXPECT_GT(c.call_ns, 0);
  std::printf("%s\n", c.describe(true).c_str());
}

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/loom-probe-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
};

// The first caller publishes; later ones read exactly its figures, even
// when their own measurement would differ.
TEST(Probe, OneMeasurementPerNode) {
  TempDir d;
  CmaCosts a = loom::xfer::node_cma_costs(d.path);
  if (!a.measured) GTEST_SKIP() << "process_vm_readv refused here";
  for (int i = 0; i < 3; ++i) {
    CmaCosts b = loom::xfer::node_cma_costs(d.path);
    EXPECT_EQ(b.byte_ns, a.byte_ns);
    EXPECT_EQ(b.seg_ns, a.seg_ns);
    EXPECT_EQ(b.copy_byte_ns, a.copy_byte_ns);
    EXPECT_EQ(b.call_ns, a.call_ns);
  }
}

// A damaged file is not believed: the caller measures for itself.
TEST(Probe, DamagedFileIsIgnored) {
  TempDir d;
  CmaCosts a = loom::xfer::node_cma_costs(d.path);
  if (!a.measured) GTEST_SKIP() << "process_vm_readv refused here";
  // Overwrite every published file with garbage (its name holds the boot id).
  std::system(("for f in " + d.path + "/loom-cma-probe-*; do echo 'loom-cma-probe-1 1 2' > $f; done").c_str());
  CmaCosts b = loom::xfer::node_cma_costs(d.path);
  EXPECT_TRUE(b.measured);
  EXPECT_GT(b.byte_ns, 0);
  // An unusable directory: still a measurement.
  CmaCosts c = loom::xfer::node_cma_costs("/nonexistent/loom");
  EXPECT_TRUE(c.measured);
}

}  // namespace
