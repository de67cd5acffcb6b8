// Machine code for a small repeated leaf: the loop a hand-packer writes,
// its offsets and move widths compiled in when the plan is built.  The
// kernels without it move a leaf's runs from tables (an offset loaded per
// move, a loop per width), where a hand loop stores each run with one
// instruction at a constant offset; on AVX2 and the baseline, which have
// no masked byte stores to unpack exactly by registers, unpacking random
// small patterns ran at 0.6-0.7x such a loop (docs/architecture.md,
// "Kernels compiled for a layout").  x86-64 only; elsewhere, or where the
// system refuses executable memory, or under LOOM_JIT=off, none is made.
#pragma once
#include <cstdint>
#include <memory>

#include "stream_align.hpp"

namespace loom {

struct RunMoves;   // run_moves.hpp
struct StepTable;  // step_table.hpp

/// Moves `count` instances to the stream at `stream` (pack) or back
/// (unpack) and returns the stream advanced: a strided loop's from `user`
/// on, `stride` bytes apart (`disp` unused), an index loop's at `user` +
/// disp[i].
using JitLoop = char *(*)(char *user, char *stream, int64_t count, const int64_t *disp);

/// A leaf's pack and unpack loops, in executable memory owned here.
struct JitCode {
  JitLoop pack = nullptr, unpack = nullptr;
  /// Packing a strided loop a few instances a step, whole registers of
  /// the stream each (jit_moves.cpp register_groups), the instances past
  /// the last whole step by `pack`'s moves.  Null where the layout has no
  /// such loop.
  JitLoop groups = nullptr;
  int64_t group_permutes = 0;  // a step's permuted windows
  int64_t group = 0;           // instances a step
  int64_t group_ops = 0;       // a step's zmm uops (line groups, joined lines)
  /// Groups that store whole cache lines (line groups, joined lines)
  /// bring the stream to a multiple of 64 bytes first in ranges of
  /// `aligned_from` instances or more, by `pack` (`align`); shorter ranges
  /// store from where the stream lies (`lines_at`).  0: groups of another
  /// kind.
  int64_t aligned_from = 0;
  /// Bit p: shorter ranges store by the groups where the stream lies at p
  /// past a multiple of 64 bytes, by `pack`'s moves elsewhere.
  uint64_t lines_at = 0;
  StreamAlign align;
  bool aligned_groups() const { return aligned_from > 0; }
  int64_t stores = 0;  // an instance's in the packing loop (moves, gathers)
  void *memory = nullptr;
  size_t bytes = 0;
  JitCode() = default;
  JitCode(const JitCode &) = delete;
  JitCode &operator=(const JitCode &) = delete;
  ~JitCode();
};

/// The loops for the moves of one instance of a leaf (RunMoves), instances
/// `stride` bytes apart (or, `indexed`, at a list of displacements) and
/// `packed` bytes each in the stream, by registers of up to `vector_bytes`
/// (the kernel set's: 16 SSE2, 32 AVX2, 64 AVX-512, where runs of 64
/// bytes or more move 64 at a time) and, with AVX-512, permutes of lanes
/// down to `min_lane` bytes (4; 2 with AVX-512BW, 1 with VBMI).  Null
/// where compiling is off or impossible.
std::shared_ptr<const JitCode> jit_moves(const RunMoves &moves, int64_t stride, int64_t packed,
                                         int vector_bytes, int min_lane, bool indexed = false);

/// AVX-512VL (VBMI for byte lanes): a step table's whole steps, `step`
/// user bytes apart, as `pack` (its `count` the steps, `disp` unused):
/// each register of a step stored whole, as StepTable describes.  Null
/// where compiling is off or impossible, or the table needs more index
/// vectors than registers hold.
std::shared_ptr<const JitCode> jit_steps(const StepTable &t, int64_t step);

/// LOOM_JIT: whether plans compile such loops (read once).
bool jit_enabled();

}  // namespace loom
