// Small repeating patterns moved in one vector register: a strided or an
// index loop over a child whose bytes fit a register (a short block, a few
// short blocks, an index block of a few elements, runs of a few lengths) is
// packed by loading the child's window, permuting its lanes into stream
// order and storing them, and unpacked by the inverse permute.  The table
// is fixed when the plan node is built; the kernels that use it are per
// instruction set (kernels.cpp).
//
// Exactness: stores are masked to the lanes the typemap names (user side)
// and to the packed bytes (stream side), so a kernel writes no byte
// outside the typemap or the stream range: the gaps belong to the user,
// and a neighbouring chunk of the stream may be another thread's.  Loads
// are masked the same way, except where packing may load a window whole
// (WholeLoads): then it reads gap bytes too, only on pages the typemap
// touches, and drops them.
#pragma once

#include <cstdint>
#include <memory>

#include "stream_align.hpp"

namespace loom {

struct Node;

/// The smallest page (x86-64): a load that stays within the pages a
/// typemap touches cannot fault.
constexpr int64_t kPage = 4096;

/// Which steps of a table's kernel may load the user's windows whole, gaps
/// and all, when packing: those whose every window ends at or before a
/// byte of the typemap less than a page past the window's start.  Every
/// byte loaded then lies on a page the typemap touches: no fault, only the
/// user's memory (the permutes drop the bytes not named).  Unmasked loads
/// are one operation instead of two and leave the mask registers free.
struct WholeLoads {
  bool alone = false;  // each step's own bytes cover its windows
  /// Its own or, in the strided loop the table was made for, the next
  /// step's do; an index loop's tables (no next step) have next == alone.
  bool next = false;
  /// How many of `steps` consecutive steps of the table's loop load whole:
  /// all, all but the last, none.
  int64_t of(int64_t steps) const { return alone ? steps : next && steps > 0 ? steps - 1 : 0; }
};

/// One register's lane map: the window lanes the typemap names, the
/// register's packed lanes, and the permutes between them.  The window is
/// one register, or two for the pieces below on targets with a two-source
/// permute (AVX-512, whose registers are 64 bytes): window lanes then count
/// on into the second register.
struct LaneMap {
  /// Lane indices (lanes of `lane` bytes): stream lane t of the register
  /// takes window lane pack[t] (pack); window lane u takes stream lane
  /// unpack[u] (unpack; the typemap's last byte wins where it repeats one,
  /// as in a byte-by-byte unpack).  Bytes for byte lanes, 32-bit words
  /// otherwise.
  alignas(64) uint8_t pack8[64], unpack8[128];
  alignas(64) int32_t pack32[16], unpack32[32];
  uint64_t user_lanes;    // window lanes the typemap names (of the first register)
  uint64_t user_lanes2;   // the same of a two-register window's second register
  uint64_t stream_lanes;  // the register's packed lanes, from `stream`
  int64_t window;         // window start relative to the (first) instance's origin
  int64_t stream;         // packed bytes' start within the step's; 0 for one register

  /// Stream lane `out` takes window lane `u` (lanes of `lane` bytes).
  void place(int64_t out, int64_t u, int lane);
};

struct PermuteTable {
  LaneMap map;
  /// Packing two registers into one store (where their packed bytes fit
  /// one register, and the target has a two-source permute): stream lane t
  /// takes lane pack2[t] of the pair, the first register's lanes first.
  alignas(64) uint8_t pack8x2[64];
  alignas(64) int32_t pack32x2[16];
  uint64_t pair_lanes;    // the stream lanes of a pair; 0: no pairs
  int64_t per_vector;     // child instances per register (consecutive ones)
  int64_t stream_bytes;   // packed bytes per register
  int lane;               // bytes per lane: 1 or 4
  /// Packing's table where the most instances a register leave no room
  /// for pairs but fewer let a pair move more instances per store (4
  /// instances of 13 bytes a register, not 5: 8 a store, not 5); null
  /// otherwise.
  std::shared_ptr<const PermuteTable> pairs;
  WholeLoads whole;  // the window of one register (a step)
  /// A strided loop's last instances, fewer than a register holds, move in
  /// one step under masks cut to them: first_lanes[r] (0 < r < per_vector)
  /// is the window lanes the first r instances name, whose packed bytes are
  /// the step's first r * stream_bytes / per_vector.  Unpacking needs
  /// `prefixes_exact`: no lane of the first r instances is named again by
  /// a later one (whose packed byte would win, and is not loaded).
  uint64_t first_lanes[64];
  bool prefixes_exact = true;
};

/// The table for `vec`, a Vec (consecutive instances per register) or an
/// Idx (one per register) whose child is a small leaf (a Block, a Vec or
/// Idx of a Block, or IdxV) or a small irregular nest (at most 64 runs
/// with an index loop, mixed runs or a struct at some level), on a
/// register of `width` bytes with lanes of `lane` bytes, at most `most`
/// instances a register; `two_source`: the target packs pairs (sets
/// `pairs`).  nullptr where the pattern does not fit or would not pay
/// (`any_pays`: wherever a register replaces two moves or more).
std::shared_ptr<const PermuteTable> make_permute_table(const Node &vec, int width, int lane,
                                                       bool two_source,
                                                       int64_t most = INT64_MAX,
                                                       bool any_pays = false);

/// Patterns too wide for one register, an instance at a time: its packed
/// bytes are cut into pieces of a register each, and each piece is moved
/// as above (masked load, permute, masked store) from or to a window of one
/// register, or of two with a two-source permute (AVX-512: a piece then
/// takes up to a register of packed bytes from 128 bytes of the user's, as
/// a vectorised hand loop does, where one-register windows would need a
/// piece each).  A piece's packed bytes are one range only where the runs
/// rise in typemap order, so only such patterns have a table.
constexpr int kMaxChunks = 8;
struct ChunkTable {
  LaneMap chunk[kMaxChunks];
  int chunks = 0;
  int lane = 1;
  int registers = 1;         // per window: 1, or 2 (two-source permutes)
  int64_t instances = 1;     // consecutive instances a step moves (make_group_table)
  int64_t stream_bytes = 0;  // packed bytes of a step
  WholeLoads whole;          // every piece's window
  /// Unpacking, the last steps of a range whose registers of the stream,
  /// loaded whole, would reach past it (loaded masked); the others load
  /// whole, into the next steps' bytes.
  int64_t stream_tail = 0;
  /// Packing from shared windows: piece j's window is registers j and
  /// j + 1 of the step's from its first named byte, each loaded once a
  /// step, and its user_lanes and user_lanes2 are those registers' named
  /// lanes, of every piece.
  bool shared = false;
  /// The same pattern's pieces from shared windows, for packing, where
  /// they are no more than these (make_chunk_table, make_group_table);
  /// null otherwise.
  std::shared_ptr<const ChunkTable> packing;
  /// A group table's steps store whole registers: the instances that bring
  /// the stream to a multiple of 64 bytes go first (stream_align.hpp).
  StreamAlign align;
};

/// The pieces of `vec`'s child, an index leaf or a small irregular nest
/// (an index loop, mixed runs or a struct at some level), on registers of
/// `width` bytes with lanes of `lane` bytes and windows of one register,
/// or two where `registers` is 2 (only where width is 64) and that saves a
/// quarter of the pieces; nullptr where its runs do not
/// rise, are not whole lanes, average over 64 bytes, or need more than
/// kMaxChunks pieces or as many pieces as runs (nothing saved).  With
/// two-register windows, its `packing` table shares them.
/// `word_rows`: instead, only a row or small tile of blocks of whole words
/// at whole-word strides (which the row kernels take otherwise), where a
/// piece replaces 8 moves or more.
std::shared_ptr<const ChunkTable> make_chunk_table(const Node &vec, int width, int lane,
                                                   int registers, bool word_rows = false);
/// Pieces for packing several consecutive instances of `vec` (a Vec) at
/// once, where registers of instances would leave part of each store
/// empty (5-7 doubles of a few more; 5 instances of 6 bytes of every 8):
/// the fewest instances whose packed bytes fill whole registers (at most
/// kMaxChunks of them), each register one piece from a window of two, as
/// the vectoriser packs them (from shared windows, `packing`, where those
/// need no more pieces); nullptr where a piece would not fill its
/// register.  Registers of 64 bytes.
std::shared_ptr<const ChunkTable> make_group_table(const Node &vec, int lane);

/// Packing a register of consecutive instances' bytes at a time from a
/// window of K consecutive registers of the user's (3 <= K <= kMaxChain),
/// as the vectoriser packs a byte of every 3 or a float of every 7: K
/// masked loads and a chain of K - 1 two-source permutes, each bringing in
/// the next register's lanes, then one full store.  Where one register of
/// packed bytes spans more than the two registers of a group's piece.
constexpr int kMaxChain = 8;
struct ChainTable {
  /// Permute r (r = 1..K-1) takes its lanes from the register so far
  /// (lane t keeps t) or from window register r (lanes + its lane); the
  /// first also places register 0's.  Bytes for byte lanes, 32-bit words
  /// otherwise.
  alignas(64) uint8_t idx8[kMaxChain - 1][64];
  alignas(64) int32_t idx32[kMaxChain - 1][16];
  uint64_t lanes[kMaxChain] = {};  // window lanes the typemap names, per register
  int64_t window = 0;              // window start relative to the step's origin
  int64_t instances = 0;           // consecutive instances a step packs (64 bytes)
  int registers = 0;               // K
  int lane = 1;
  WholeLoads whole;                // the K registers
};

/// The chain for packing `vec` (a Vec whose instances' packed bytes divide
/// a register of 64 bytes) with lanes of `lane` bytes; nullptr where a
/// register's worth spans two registers or fewer (pairs and groups move
/// those) or more than kMaxChain.
std::shared_ptr<const ChainTable> make_chain_table(const Node &vec, int lane);

/// Packing an instance wider than a register by 16-byte shuffles (pshufb:
/// AVX2, AVX-512 without VBMI, which have no byte permute across a
/// register), as the vectoriser packs a hand loop's shorts: each 16 bytes
/// of the instance's packed bytes (a piece) gather from up to kMaxWindows
/// 16-byte windows of the user's, each window shuffled into place (index
/// 0x80 zeroes the lanes it does not give) and the results or-ed; a piece
/// stores 16 bytes whole, the next piece or instance writing over what the
/// last piece's store leaves past its bytes.
///
/// Unpacking (AVX-512 without VBMI, which has byte-masked stores), the
/// same the other way: each 16-byte window of the user's that the typemap
/// names a byte of (from its first such byte) is a piece, gathered from up
/// to kMaxWindows 16-byte windows of the instance's packed bytes and
/// stored under the mask of its named bytes.
struct ShufflePieces {
  static constexpr int kMaxWindows = 4, kMaxPieces = 8;
  int pieces = 0;
  int windows = 0;                         // per piece, the most any needs
  int64_t packed = 0;                      // packed bytes of an instance
  int64_t to[kMaxPieces] = {};             // unpack: a piece's start in the user's (packing's is 16 j)
  uint16_t named[kMaxPieces] = {};         // unpack: the piece's bytes the typemap names
  int64_t at[kMaxPieces][kMaxWindows];     // source window starts (the user's or the stream's)
  alignas(16) uint8_t idx[kMaxPieces][kMaxWindows][16];  // a piece's unused windows: all 0x80
  WholeLoads whole;                        // pack: every window
  int64_t tail = 0;                        // unpack: last instances whose windows pass the stream
};

/// The pieces of `vec` (a Vec over a small leaf whose instance packs into
/// 1 to kMaxPieces pieces: one where the instance spans more than a
/// register and packs into 8 to 16 bytes, as 12 bytes of every 45,
/// packed 1.1x faster by one piece than by the compiled loop, random tiles
/// of bytes; in-process A/B, AVX2 AMD EPYC VM); nullptr where a piece needs more than
/// kMaxWindows windows, no step may load its windows whole, or the runs
/// are of whole words (4 bytes a run or a multiple: element moves and word
/// permutes packed random float and double patterns 1.3-2x faster).
std::shared_ptr<const ShufflePieces> make_shuffle_pieces(const Node &vec);
/// The unpacking pieces of `vec` (at most kMaxPieces user windows);
/// nullptr where they do not fit.
std::shared_ptr<const ShufflePieces> make_shuffle_unpieces(const Node &vec);

}  // namespace loom
