// Calibration of the rules' Loom-to-Loom thresholds from the probe's
// figures: which thresholds move, which a setting pins, and the arena.
#include <gtest/gtest.h>

#include <cstdint>

#include "calibrate.hpp"

using namespace loom::xfer;

namespace {

// A node whose reads beat the transport's copies (1 ns per byte against
// 1 ns per copied byte: budget 1.5) and pay 100 ns per further segment:
// single copy pays from runs of 100 / 0.5 = 200 bytes (100 / 1 = 100 with
// the arena, against a stream's two copies).
CmaCosts fast_reads() {
  CmaCosts c;
  c.measured = true;
  c.call_ns = 1000;
  c.seg_ns = 100;
  c.byte_ns = 1;
  c.copy_byte_ns = 1;
  return c;
}

// A node whose reads cost four copies per byte (the AMD EPYC VM's kind).
CmaCosts slow_reads() {
  CmaCosts c = fast_reads();
  c.seg_ns = 350;
  c.byte_ns = 4;
  return c;
}

// A node whose reads lose to the transport's copies (0.54x memcpy's speed)
// but beat a stream's pack and unpack: the Intel Xeon VM's figures.
CmaCosts middling_reads() {
  CmaCosts c = fast_reads();
  c.seg_ns = 191;
  c.byte_ns = 0.080;
  c.copy_byte_ns = 0.0435;
  return c;
}

// The settings' values as the drop-in reads them: LOOM_L2L_MIN (MPICH's
// default), LOOM_L2L_RUN 4 KiB.
Rules settings(size_t l2l_min = 8193, int64_t l2l_run = 4096) {
  Rules r;
  r.l2l_min = l2l_min;
  r.l2l_run = l2l_run;
  return r;
}

CalibrationInputs inputs(bool arena, bool mpich = true, bool min_set = false,
                         bool run_set = false) {
  return CalibrationInputs{min_set, run_set, arena, mpich};
}

}  // namespace

TEST(Calibrate, NotMeasuredKeepsTheSettings) {
  Rules r = settings();
  calibrate_l2l(&r, CmaCosts{}, inputs(false));
  EXPECT_EQ(r.l2l_min, 8193u);
  EXPECT_EQ(r.l2l_run, 4096);
  EXPECT_EQ(r.l2l_before_system_max, 0u);
  calibrate_l2l(&r, CmaCosts{}, inputs(true));
  EXPECT_EQ(r.l2l_before_system_max, size_t(4) << 20);  // the arena's rule needs no probe
}

TEST(Calibrate, FastReadsRaiseTheSingleCopyRunOnly) {
  Rules r = settings(8193, 64);
  calibrate_l2l(&r, fast_reads(), inputs(false));
  EXPECT_EQ(r.l2l_run, 200);
  EXPECT_EQ(r.l2l_min, 8193u);
  r = settings(8193, 64);  // against a stream unpacked in place: 100 / (2 - 1)
  calibrate_l2l(&r, fast_reads(), inputs(true));
  EXPECT_EQ(r.l2l_run, 100);
  EXPECT_EQ(r.l2l_single_max, SIZE_MAX);  // reads that win need no cache
  EXPECT_EQ(r.l2l_min, 8193u);
  r = settings(8193, 4096);  // the setting's run, when longer, stands
  calibrate_l2l(&r, fast_reads(), inputs(true));
  EXPECT_EQ(r.l2l_run, 4096);
}

TEST(Calibrate, SlowReadsNeverSingleCopy) {
  Rules r = settings();
  calibrate_l2l(&r, slow_reads(), inputs(true));
  EXPECT_EQ(r.l2l_run, INT64_MAX);
  EXPECT_EQ(r.l2l_min, 8193u);  // with the arena the default stands
}

TEST(Calibrate, SlowReadsWithoutTheArenaStreamOnlyLargeMessages) {
  Rules r = settings();
  calibrate_l2l(&r, slow_reads(), inputs(false, true));
  EXPECT_EQ(r.l2l_min, size_t(1) << 20);
  r = settings(4096);
  calibrate_l2l(&r, slow_reads(), inputs(false, false));
  EXPECT_EQ(r.l2l_min, size_t(8) << 20);
  EXPECT_EQ(r.l2l_before_system_max, 0u);
}

// Setting one threshold leaves the other to the probe (setting
// LOOM_L2L_MIN alone used to keep LOOM_L2L_RUN's default, so 4 KiB runs
// went single copy where each segment costs 0.35 us).
TEST(Calibrate, ASettingPinsOnlyItself) {
  Rules r = settings(0);
  calibrate_l2l(&r, slow_reads(), inputs(false, true, /*min_set=*/true));
  EXPECT_EQ(r.l2l_min, 0u);
  EXPECT_EQ(r.l2l_run, INT64_MAX);

  r = settings(8193, 512);
  calibrate_l2l(&r, slow_reads(), inputs(false, true, false, /*run_set=*/true));
  EXPECT_EQ(r.l2l_run, 512);
  EXPECT_EQ(r.l2l_min, size_t(1) << 20);

  r = settings(8193, 64);
  calibrate_l2l(&r, fast_reads(), inputs(true, true, false, /*run_set=*/true));
  EXPECT_EQ(r.l2l_run, 64);
}

// Reads slower than the transport's copies still beat a stream unpacked in
// place (two copies) where runs are long: with the arena single copy from
// 191 / (0.087 - 0.080) = 27286 B runs, the streams' size rule untouched;
// without it never, and streams only for large messages.
TEST(Calibrate, MiddlingReadsSingleCopyLongRunsWithTheArena) {
  Rules r = settings();
  calibrate_l2l(&r, middling_reads(), inputs(true));
  EXPECT_EQ(r.l2l_run, 27286);
  EXPECT_EQ(r.l2l_single_max, kCmaProbeBytes);  // as far as cached reads go
  EXPECT_EQ(r.l2l_min, 8193u);
  r = settings();
  calibrate_l2l(&r, middling_reads(), inputs(false));
  EXPECT_EQ(r.l2l_run, INT64_MAX);
  EXPECT_EQ(r.l2l_min, size_t(1) << 20);
}
