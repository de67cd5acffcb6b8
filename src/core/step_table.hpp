// Packing a strided loop of short blocks (MPI_Type_vector: 3 floats of
// every 4, 10 shorts of every 11), or of rows of words (every other double
// of a submatrix's rows), a few instances a step into whole
// 32-byte registers, as the vectoriser packs a hand loop's with AVX-512VL
// (on AVX2, each window's lanes by its own permute and a blend):
// each register of the step's packed bytes from two (or three) 32-byte
// windows of the user's, at multiples of 32 bytes from the step's first
// byte, by one two-source permute (or two, chained).  The windows sit where
// the step's own loads would: a step's loads are the same few aligned
// addresses, not one window per register at its first byte (that split
// loads across cache lines and ran 0.6-0.8x the hand loop from L1).
//
// Exactness: the registers are stored whole, each into the step's own
// packed bytes; loads read the gaps between blocks too, which belong to the
// user and are dropped by the permutes.  The kernel (kernels.cpp) takes a
// step only where its loads end at or before the range's last byte; the
// gaps are shorter than a page (a register's bytes come from at most 96),
// so every page such a load touches holds a byte of the typemap.
#pragma once

#include <cstdint>
#include <memory>

#include "stream_align.hpp"

namespace loom {

struct Node;
struct JitCode;  // jit_moves.hpp

/// Registers a step may store: the table's capacity.  The table kernel
/// (kernels.cpp narrow_steps) takes up to kMaxLoopRegisters of them, the
/// compiled steps (jit_steps) more.
constexpr int kMaxStepRegisters = 16;
constexpr int kMaxLoopRegisters = 8;

struct StepTable {
  /// Register r's lane l: its first permute takes lane idx[r][0][l] of
  /// windows 0 and 1 (lanes of window 1 counting on); the second (three
  /// windows) keeps lane l (index l) or takes lane idx[r][1][l] - lanes of
  /// window 2.  Words for word lanes, bytes for byte lanes.
  alignas(32) int32_t idx32[kMaxStepRegisters][2][8];
  alignas(32) uint8_t idx8[kMaxStepRegisters][2][32];
  int64_t window[kMaxStepRegisters];  // register r's first window, from the step's first byte
  int registers = 0;      // 32-byte registers a step stores
  int64_t instances = 0;  // consecutive instances a step packs (a power of two)
  int lane = 4;           // bytes per lane: 4 or 1
  uint32_t three = 0;     // the registers that take a third window (bit r)
  int64_t reach = 0;      // bytes from the step's first byte its loads read
  int64_t last = 0;       // one past an instance's last packed byte, from its origin
  /// The registers whose first window is not the register before's last
  /// (bit r; loaded, the others take that one's).
  uint32_t fresh = 0;
  StreamAlign align;      // to a multiple of 32 bytes
  /// The steps compiled for this table (jit_steps; AVX-512 kernel sets),
  /// run in place of the table's loop; null otherwise.
  std::shared_ptr<const JitCode> code;
  /// Ranges of fewer packed bytes go to the kernel the steps replaced
  /// (0: none do).
  int64_t from = 0;
};

/// The table for `vec`, a Vec (positive stride) of a Block or of a small
/// leaf whose bytes rise (a row of blocks: every other double of a
/// submatrix's rows), with lanes of `lane` bytes (4: blocks and strides
/// whole words); nullptr where a step would need more than
/// kMaxStepRegisters registers or a register's bytes span more than three
/// windows.
std::shared_ptr<StepTable> make_step_table(const Node &vec, int lane);

}  // namespace loom
