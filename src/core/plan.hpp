// Plans: the executable form of a type, a small tree of byte loops
// ("dataloops").  Built bottom-up by smart constructors that normalise as
// they go, so every plan is already at its fixed point.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "timed_choice.hpp"

namespace loom {

struct Node;
struct PermuteTable;  // permute_table.hpp
struct ChunkTable;
struct ChainTable;
struct StepTable;  // step_table.hpp
struct ShufflePieces;
struct RunMoves;      // run_moves.hpp
struct JitCode;       // jit_moves.hpp
using NodeP = std::shared_ptr<const Node>;

/// Moves the full children [i0, i1) of one instance of `n` whose origin is
/// `base`, to (pack) or from (unpack) the stream at `s`; returns s advanced.
using Kernel = char *(*)(const Node &n, char *base, char *s, int64_t i0,
                         int64_t i1);

enum class Kind : uint8_t {
  Block,   // `count` contiguous bytes; its children are bytes
  Vec,     // `count` copies of `child`, `stride` bytes apart
  Idx,     // `count` copies of `child` at byte displacements `disp`
  IdxV,    // `count` byte runs of lengths `lens` at `disp` (a leaf)
  Struct,  // `count` different children `kids` at `disp`
};

struct Node {
  Kind kind;
  int64_t off = 0;     // where this instance starts relative to its placement
  int64_t count = 0;   // children (bytes for a Block)
  int64_t stride = 0;  // Vec
  int64_t packed = 0;  // packed bytes of one instance (> 0 always)
  int depth = 1;       // levels of loops, for the cursor stack
  std::vector<int64_t> disp, lens;
  /// IdxV, and Idx over a block: disp and lens again in 32 bits where
  /// every one fits (as a hand loop's int indices: the kernels read half
  /// the bytes a block), empty otherwise.
  std::vector<int32_t> disp32, lens32;
  std::vector<int64_t> prefix;  // IdxV/Struct: packed bytes before child i
  /// Vec over a small leaf moved element by element (k_vec_elements): the
  /// displacements of the leaf's elements in stream order; empty otherwise.
  std::vector<int64_t> elements;
  /// IdxV of many short runs, without AVX-512: where each run's element
  /// (the gcd of their lengths, 4, 8 or 16 bytes) starts, in stream
  /// order, for the kernels that move element by element
  /// (pick_run_elements); empty otherwise.
  std::vector<int32_t> elements32;
  /// Vec over a small leaf unpacked a run at a time by moves of fixed
  /// widths (k_vec_moves); null otherwise.
  std::shared_ptr<const RunMoves> moves;
  /// The same leaf's loops compiled for it (jit_moves.hpp); null otherwise.
  std::shared_ptr<const JitCode> jit;
  NodeP child;                  // Vec/Idx
  std::vector<NodeP> kids;      // Struct
  Kernel pack = nullptr, unpack = nullptr;
  /// Alternatives to pack and unpack where which loop shape wins depends
  /// on the machine (kernels.cpp); a whole-message call of this node as a
  /// plan's root chooses between them by timing its calls (`choice`, one
  /// per direction, set exactly when an alternative is).  Null otherwise.
  Kernel pack_alt = nullptr, unpack_alt = nullptr;
  std::shared_ptr<TimedChoice[]> choice;
  /// The smallest whole message that times its calls to choose: below
  /// it the base runs.  Alternatives that differ only from L3 or memory
  /// start later, so that smaller messages do not pay the timing.
  int64_t timed_from = int64_t(64) << 10;
  /// The lane maps of a small-pattern kernel (Vec over a small leaf),
  /// fixed with the kernels; null for other kernels.
  std::shared_ptr<const PermuteTable> permute;
  /// The same for a pattern too wide for a register, in pieces.
  std::shared_ptr<const ChunkTable> chunks;
  /// Pieces that pack groups of consecutive instances into whole registers
  /// (make_group_table), for the pack kernel only; null otherwise.
  std::shared_ptr<const ChunkTable> groups;
  /// With `groups`, `chain` or `steps`: the pack kernel they replaced,
  /// which packs the instances after a range's last whole step, in one
  /// call.
  Kernel pack_rest = nullptr;
  /// The same from windows of 3 to 8 registers (make_chain_table).
  std::shared_ptr<const ChainTable> chain;
  /// Short blocks of a strided loop packed a few instances a step into
  /// whole 32-byte registers (make_step_table), for the pack kernel only;
  /// null otherwise.
  std::shared_ptr<const StepTable> steps;
  /// AVX2 and AVX-512 without VBMI: a byte pattern's table for packing
  /// (and on the latter unpacking) by shuffles of 16 or 32 bytes
  /// (pack_by_shuffle); null otherwise.
  std::shared_ptr<const PermuteTable> shuffle;
  /// The same for an instance wider than a register, in 16-byte pieces
  /// (make_shuffle_pieces); null otherwise.
  std::shared_ptr<const ShufflePieces> shuffle_pieces;
  /// AVX-512 without VBMI: the same for unpacking (make_shuffle_unpieces).
  std::shared_ptr<const ShufflePieces> unshuffle_pieces;

  /// Packed bytes of child i (a byte for a Block).
  int64_t child_packed(int64_t i) const {
    switch (kind) {
      case Kind::Block: return 1;
      case Kind::Vec:
      case Kind::Idx: return child->packed;
      default: return prefix[i + 1] - prefix[i];
    }
  }
};

// Smart constructors.  They return nullptr for an empty (zero-byte) plan.
NodeP mk_block(int64_t len, int64_t off = 0);
NodeP mk_vec(int64_t count, int64_t stride, NodeP child, int64_t off = 0);
NodeP mk_idx(std::vector<int64_t> disp, NodeP child);
NodeP mk_idxv(std::vector<int64_t> disp, std::vector<int64_t> lens);
NodeP mk_struct(std::vector<int64_t> disp, std::vector<NodeP> kids);
/// The same plan placed `delta` bytes further.
NodeP shifted(const NodeP &n, int64_t delta);

/// Contiguous runs one instance of `n` moves (saturating; 0 for nullptr).
int64_t plan_runs(const Node *n);

/// `len` bytes at `off`.
struct Run {
  int64_t off, len;
};
/// Appends the runs of one instance of `n` placed at `at`, in typemap
/// order (neighbours not merged); false once `out` holds more than `max`.
bool runs_of(const Node &n, int64_t at, size_t max, std::vector<Run> &out);

/// One-line readable form, e.g. "vec(1024,+8,blk4)".
std::string plan_string(const Node *n);

/// Picks the kernels of a freshly built node (called by the constructors).
void select_kernels(Node &n);

}  // namespace loom
