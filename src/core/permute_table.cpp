// Building a permute table (permute_table.hpp): the child's runs, as many
// consecutive instances as one register holds, and the lane maps.
#include "permute_table.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "plan.hpp"

namespace loom {
namespace {

// Whether n places something at displacements of its own (an index loop,
// mixed runs, a struct) at any level: the nests the row kernels, which
// take strided loops of blocks, do not cover.
bool irregular(const Node &n) {
  if (n.kind == Kind::Idx || n.kind == Kind::IdxV || n.kind == Kind::Struct) return true;
  return n.kind == Kind::Vec && irregular(*n.child);
}

constexpr size_t kMaxRuns = 64;

// One instance's runs in typemap order; empty for children that are not a
// small leaf (a block, a vector of blocks or of vectors of them: a tile,
// which kernels other than the row kernels move where it is small; an
// index block, mixed runs) or a small irregular nest (at most kMaxRuns
// runs, such as a vector of two index blocks).  Tiles of bytes packed by
// shuffles: 1.23-1.26x faster than by the compiled loop (random tiles,
// in-process A/B, AVX2 AMD EPYC VM; 10 bytes of every 28 2.8-3.4x).
std::vector<Run> leaf_runs(const Node &c) {
  std::vector<Run> r;
  const Node *x = &c;  // a block, or vectors of vectors of one
  while (x->kind == Kind::Vec) x = x->child.get();
  const bool leaf = x->kind == Kind::Block;
  if ((leaf || irregular(c)) && !runs_of(c, 0, kMaxRuns, r)) r.clear();
  return r;
}

// Below this many packed bytes per register the scalar kernels, which move
// whole elements with constant offsets, do as well, unless a register
// replaces four moves or more: a byte of every 5 or 6 packed 1.2-2x faster
// by permutes (in L2 and at 1 MiB), 3 shorts of every 13 or 2 runs of
// shorts in 12 bytes 1.5-4x (pattern_sweep, 40 patterns of under 16
// packed bytes a register, three interleaved runs).
constexpr int64_t kMinStreamBytes = 16;
constexpr int64_t kMinMovesReplaced = 4;

// The first byte and one past the last byte that non-empty `runs` name.
std::pair<int64_t, int64_t> runs_span(const std::vector<Run> &runs) {
  int64_t lo = runs[0].off, hi = runs[0].off + runs[0].len;
  for (const Run &r : runs) lo = std::min(lo, r.off), hi = std::max(hi, r.off + r.len);
  return {lo, hi};
}

// WholeLoads for windows of `width` bytes at `starts` (from a step's
// origin) over a step whose runs are `runs`, the next step `step` bytes on
// (0: not a strided loop).
WholeLoads whole_loads(const std::vector<Run> &runs, const std::vector<int64_t> &starts,
                       int64_t width, int64_t step) {
  // A byte of the runs, shifted, in [start + width - 1, start + kPage).
  auto covers = [&](int64_t start, int64_t shift) {
    for (const Run &r : runs)
      if (shift + r.off < start + kPage && shift + r.off + r.len >= start + width) return true;
    return false;
  };
  WholeLoads w;
  w.alone = w.next = true;
  for (int64_t start : starts) {
    w.alone = w.alone && covers(start, 0);
    w.next = w.next && (covers(start, 0) || (step > 0 && covers(start, step)));
  }
  return w;
}

// The runs of m consecutive instances `st` apart.
std::vector<Run> repeated(const std::vector<Run> &one, int64_t m, int64_t st) {
  std::vector<Run> runs;
  for (int64_t i = 0; i < m; i++)
    for (const Run &r : one) runs.push_back({r.off + i * st, r.len});
  return runs;
}

// The mask of lanes 0..n-1 (n up to 64).
uint64_t low_lanes(int64_t n) { return n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

}  // namespace

void LaneMap::place(int64_t out, int64_t u, int lane) {
  const int64_t first = 64 / lane;  // lanes in a two-register window's first register
  if (u < first) user_lanes |= uint64_t(1) << u;
  else user_lanes2 |= uint64_t(1) << (u - first);
  if (lane == 1) {
    pack8[out] = (uint8_t)u;
    unpack8[u] = (uint8_t)out;
  } else {
    pack32[out] = (int32_t)u;
    unpack32[u] = (int32_t)out;
  }
}

std::shared_ptr<const PermuteTable> make_permute_table(const Node &vec, int width, int lane,
                                                       bool two_source, int64_t most,
                                                       bool any_pays) {
  const Node &c = *vec.child;
  const std::vector<Run> runs = leaf_runs(c);
  if (runs.empty() || (int64_t)runs.size() > width) return nullptr;
  const std::pair<int64_t, int64_t> span = runs_span(runs);
  const int64_t lo = span.first, hi = span.second;  // captured below (C++17)
  const int64_t st = vec.stride, P = c.packed;
  // The most consecutive instances whose window and packed bytes both fit.
  auto window_of = [&](int64_t m, int64_t *start) {
    const int64_t shift = (m - 1) * st;
    *start = lo + std::min<int64_t>(0, shift);
    return hi + std::max<int64_t>(0, shift) - *start;
  };
  int64_t m = 0, start = 0;
  // An index loop's instances are one per register (displacements vary).
  most = std::min(most, vec.kind == Kind::Vec ? vec.count : 1);
  for (int64_t k = 1; k <= most && k * P <= width; k++) {
    int64_t s;
    if (window_of(k, &s) > width || (k > 1 && st % lane != 0)) break;
    m = k, start = s;
  }
  // It pays where one register replaces several moves.
  if (m == 0 ||
      (!any_pays && m * P < kMinStreamBytes && m * (int64_t)runs.size() < kMinMovesReplaced) ||
      m * (int64_t)runs.size() < 2)
    return nullptr;
  for (const Run &r : runs)
    if ((r.off - start) % lane != 0 || r.len % lane != 0) return nullptr;

  auto t = std::make_shared<PermuteTable>();
  *t = PermuteTable{};
  t->lane = lane;
  t->per_vector = m;
  t->stream_bytes = m * P;
  LaneMap &map = t->map;
  map.window = start;
  const int64_t stream_lanes = m * P / lane;
  map.stream_lanes = low_lanes(stream_lanes);
  int64_t out = 0;  // stream lane
  uint64_t named = 0;  // window lanes of the instances before i
  for (int64_t i = 0; i < m; i++) {
    t->first_lanes[i] = named;
    uint64_t own = 0;
    for (const Run &r : runs)
      for (int64_t b = 0; b < r.len; b += lane, out++) {
        const int64_t u = (r.off + i * st + b - start) / lane;
        map.place(out, u, lane);
        own |= uint64_t(1) << u;
      }
    if (own & named) t->prefixes_exact = false;
    named |= own;
  }
  const int64_t lanes = width / lane;  // per register
  if (2 * stream_lanes <= lanes) {
    t->pair_lanes = low_lanes(2 * stream_lanes);
    for (int64_t j = 0; j < 2 * stream_lanes; j++) {
      const int64_t from = j < stream_lanes ? 0 : lanes, o = j % stream_lanes;
      if (lane == 1) t->pack8x2[j] = (uint8_t)(map.pack8[o] + from);
      else t->pack32x2[j] = (int32_t)(map.pack32[o] + from);
    }
  } else if (two_source && 2 * (width / (2 * P)) > m) {
    t->pairs = make_permute_table(vec, width, lane, false, width / (2 * P));
  }
  t->whole = whole_loads(repeated(runs, m, st), {start}, width,
                         vec.kind == Kind::Vec && st > 0 ? m * st : 0);
  return t;
}

namespace {

// Where a piece's window starts:
//   - kAtFirst: at the first byte the piece places;
//   - kGrid: at the register, counted from the step's first byte, that
//     holds that byte: the windows of a step's pieces are then the same
//     registers where they meet (the loads of two pieces find the lines
//     one of them brought), and, the step aligned, no load splits a line;
//   - kShared: piece j's at register j (ChunkTable::shared).
enum class Windows { kAtFirst, kGrid, kShared };

// The pieces of a step whose runs (packed bytes `packed`) are `runs`, the
// next step `step` bytes on (0: not a strided loop), from windows that
// start as `at` says.  Shared windows only where the runs span three
// registers or more (over two, one window holds them all); piece j then
// places the rest of register j, whose bytes all follow those of
// registers before it (the runs rise), and what fits of register j + 1.
std::shared_ptr<ChunkTable> chunk_table(const std::vector<Run> &runs, int64_t packed, int width,
                                        int lane, int registers, int64_t step,
                                        Windows at = Windows::kAtFirst) {
  const bool shared = at == Windows::kShared;
  if (runs.size() < 2 || packed > 64 * (int64_t)runs.size()) return nullptr;
  for (size_t i = 0; i < runs.size(); i++) {
    if (runs[i].len % lane != 0 || (runs[i].off - runs[0].off) % lane != 0) return nullptr;
    if (i > 0 && runs[i].off < runs[i - 1].off + runs[i - 1].len) return nullptr;
  }
  auto t = std::make_shared<ChunkTable>();
  t->lane = lane;
  t->registers = registers;
  t->stream_bytes = packed;
  const int64_t span = registers * width;  // window bytes
  const int64_t lo = runs[0].off;  // the runs rise
  if (shared && (registers != 2 || runs.back().off + runs.back().len - lo <= 2 * width))
    return nullptr;
  t->shared = shared;
  // Each piece starts at the first byte not yet placed and takes every
  // byte of the window from there, up to a register of them: a prefix of
  // the rest, since the runs rise.
  int64_t out = 0;  // stream byte
  size_t r = 0;     // the next byte: run r, byte b
  int64_t b = 0;
  while (r < runs.size()) {
    if (t->chunks == kMaxChunks) return nullptr;
    LaneMap &p = t->chunk[t->chunks++];
    p.window = shared                ? lo + width * (t->chunks - 1)
               : at == Windows::kGrid ? lo + (runs[r].off + b - lo) / width * width
                                      : runs[r].off + b;
    p.stream = out;
    int64_t lanes = 0;
    for (; r < runs.size() && runs[r].off + b < p.window + span && lanes < width / lane;
         lanes++, out += lane) {
      p.place(lanes, (runs[r].off + b - p.window) / lane, lane);
      if ((b += lane) == runs[r].len) r++, b = 0;
    }
    p.stream_lanes = low_lanes(lanes);
  }
  // It pays where a piece replaces more than one move.
  if (t->chunks >= (int)runs.size()) return nullptr;
  std::vector<int64_t> starts;
  if (shared) {
    // Each register's lanes, of every piece, for its masked loads.
    uint64_t named[kMaxChunks + 1] = {};
    for (int j = 0; j < t->chunks; j++)
      named[j] |= t->chunk[j].user_lanes, named[j + 1] |= t->chunk[j].user_lanes2;
    for (int j = 0; j < t->chunks; j++)
      t->chunk[j].user_lanes = named[j], t->chunk[j].user_lanes2 = named[j + 1];
    for (int j = 0; j <= t->chunks; j++) starts.push_back(lo + j * width);
    t->whole = whole_loads(runs, starts, width, step);
  } else {
    for (int j = 0; j < t->chunks; j++) starts.push_back(t->chunk[j].window);
    t->whole = whole_loads(runs, starts, span, step);
  }
  // A register of the stream from the last piece's start spans this many
  // steps' bytes beyond its own.
  t->stream_tail = (t->chunk[t->chunks - 1].stream + width - 1) / packed;
  return t;
}

}  // namespace

std::shared_ptr<const ChunkTable> make_chunk_table(const Node &vec, int width, int lane,
                                                   int registers, bool word_rows) {
  // Irregular children only: the row kernels move a strided leaf's
  // fixed-size blocks as fast, and far apart each block would be a piece
  // of its own.  But not blocks of no whole words (bytes, shorts, 3, 5,
  // 6, 10 bytes) or at strides of none (4 bytes of every 11: 1.3-2.3x
  // faster both ways at 2 KiB, 0.92-1.9x packing and 1.17-1.9x unpacking
  // at 64 KiB), one move or two each in the row, the compiled loop or
  // the shuffles, where a row fits no register and a piece takes 4
  // blocks or more: with VBMI's byte lanes (the only ones such blocks
  // fit) random rows of 14-59 blocks of 1-3 bytes packed 1.8-4.6x,
  // unpacked 2.0-4.6x faster in pieces at 2 KiB, 1.7-4.3x / 1.9-4.0x at
  // 64 KiB (every other short, 40 a row: 0.25 -> 0.85x the hand loop);
  // rows of 5-10 bytes blocks 1.1-2.2x both ways at 2 and 64 KiB, but
  // 10 bytes of every 32, 3.2-3.7 blocks a piece, 0.82-0.94x, so not;
  // small tiles (rows of rows) of such blocks 1.25-4.7x both ways at 2
  // and 64 KiB (in-process A/B and pattern_sweep, AMD EPYC Zen 4 VM).
  // Blocks of whole words stay with the row kernels: in pieces, random
  // rows of floats and doubles lost (0.46-1.45x, most 0.7-0.9x), except
  // for unpacking dense ones (word_rows; see unpack_rows_in_pieces).
  const Node &c = *vec.child;
  const Node *leaf = &c;  // a row's block, or a tile's (vectors of vectors)
  bool words = true;       // blocks of whole words at whole-word strides
  for (; leaf->kind == Kind::Vec; leaf = leaf->child.get()) words = words && leaf->stride % 4 == 0;
  const bool rows = c.kind == Kind::Vec && leaf->kind == Kind::Block;
  const bool odd_rows = rows && !(words && leaf->count % 4 == 0);
  if (word_rows ? !rows || odd_rows : !irregular(c) && !odd_rows) return nullptr;
  // Blocks a piece must move at least (rows; irregular children: see
  // chunk_table's own rule).
  const int64_t min_runs = word_rows ? 8 : odd_rows ? 4 : 0;
  const std::vector<Run> runs = leaf_runs(c);
  const int64_t step = vec.kind == Kind::Vec && vec.stride > 0 ? vec.stride : 0;
  std::shared_ptr<ChunkTable> t = chunk_table(runs, c.packed, width, lane, 1, step);
  // Two-register windows where they save a quarter of the pieces or more:
  // a piece costs a load more with them, and unpacking, a permute and a
  // store more (6 wide pieces of doubles against 5: 0.85x packing, 0.8x
  // unpacking; 3 against 2: 1.2-1.5x).
  if (registers == 2) {
    std::shared_ptr<ChunkTable> two = chunk_table(runs, c.packed, width, lane, 2, step);
    if (two && (!t || 4 * two->chunks <= 3 * t->chunks)) t = two;
  }
  if (!t || min_runs * t->chunks > (int64_t)runs.size()) return nullptr;
  if (registers == 2 && !word_rows) {  // word rows only unpack in pieces
    // Packing loads each register once where the windows can be shared
    // without more pieces, and that saves two loads or more: sharing
    // those of two pieces (4 loads to 3) packed random float patterns at
    // 64 KiB 0.92-0.97x as fast.
    std::shared_ptr<ChunkTable> shared =
        chunk_table(runs, c.packed, width, lane, 2, step, Windows::kShared);
    if (shared && shared->chunks <= t->chunks &&
        shared->chunks + 1 <= t->chunks * t->registers - 2)
      t->packing = shared;
  }
  return t;
}

std::shared_ptr<const ChunkTable> make_group_table(const Node &vec, int lane) {
  const Node &c = *vec.child;
  const int64_t P = c.packed;
  if (vec.kind != Kind::Vec || P > 64 || vec.stride <= 0) return nullptr;
  int64_t m = 2;
  while (m * P % 64 != 0) m++;
  if (m * P / 64 > kMaxChunks || vec.count < m) return nullptr;
  const std::vector<Run> one = leaf_runs(c);
  if (one.empty()) return nullptr;
  // Only where every piece fills its register: a group whose registers
  // each need two pieces (5 doubles of every 13) packed 5-10% slower than
  // the moves.  Its windows are two registers (as its packing table's):
  // the groups' kernels (kernels.cpp group_steps) take no other.  On the
  // register grid where every piece fills its register so: at 16 KiB, 20
  // shorts of every 28 packed 1.12x faster than from windows at each
  // piece's first byte, 5 doubles of every 7 1.06x, the other strided
  // blocks of a random sweep unmoved (in-process A/B, Intel Xeon VM).
  auto fills = [&](Windows at) {
    auto t = chunk_table(repeated(one, m, vec.stride), m * P, 64, lane, 2, m * vec.stride, at);
    return t && t->chunks * 64 == m * P ? t : nullptr;
  };
  std::shared_ptr<ChunkTable> t = fills(Windows::kGrid);
  if (!t) t = fills(Windows::kAtFirst);
  if (!t) return nullptr;
  t->instances = m;
  t->align = StreamAlign(P, 64);
  // Each register's window loaded once a step where that needs no more
  // pieces (14 loads to 8 for 7 registers of 8 instances of 7 doubles, as
  // the vectoriser loads them).
  std::shared_ptr<ChunkTable> shared = chunk_table(repeated(one, m, vec.stride), m * P, 64, lane,
                                                   2, m * vec.stride, Windows::kShared);
  if (shared && shared->chunks == t->chunks) t->packing = shared;
  return t;
}

std::shared_ptr<const ChainTable> make_chain_table(const Node &vec, int lane) {
  const Node &c = *vec.child;
  const int64_t P = c.packed;
  if (vec.kind != Kind::Vec || P > 64 || 64 % P != 0 || vec.stride <= 0) return nullptr;
  const int64_t m = 64 / P;
  if (vec.count < 2 * m || (m > 1 && vec.stride % lane != 0)) return nullptr;
  const std::vector<Run> one = leaf_runs(c);
  if (one.empty()) return nullptr;
  const auto [lo, hi] = runs_span(one);
  for (const Run &r : one)
    if (r.len % lane != 0 || (r.off - lo) % lane != 0) return nullptr;
  const int64_t span = hi - lo + (m - 1) * vec.stride, k = (span + 63) / 64;
  if (k < 3 || k > kMaxChain) return nullptr;
  auto t = std::make_shared<ChainTable>();
  t->lane = lane;
  t->registers = (int)k;
  t->instances = m;
  t->window = lo;
  const int lanes = 64 / lane;
  for (int r = 0; r + 1 < kMaxChain; r++) {  // lanes not brought in keep theirs
    for (int j = 0; j < 64; j++) t->idx8[r][j] = (uint8_t)j;
    for (int j = 0; j < 16; j++) t->idx32[r][j] = j;
  }
  int out = 0;  // stream lane
  for (int64_t i = 0; i < m; i++)
    for (const Run &r : one)
      for (int64_t b = 0; b < r.len; b += lane, out++) {
        const int64_t u = (r.off + i * vec.stride + b - lo) / lane;  // window lane
        const int reg = (int)(u / lanes), at = (int)(u % lanes);
        t->lanes[reg] |= uint64_t(1) << at;
        // Register 0's lanes are placed by the first permute, as its
        // first source; register r's by permute r, as its second.
        const int step = reg == 0 ? 0 : reg - 1, from = reg == 0 ? at : lanes + at;
        if (lane == 1) t->idx8[step][out] = (uint8_t)from;
        else t->idx32[step][out] = from;
      }
  t->whole = whole_loads(repeated(one, m, vec.stride), {lo}, 64 * k, m * vec.stride);
  return t;
}

namespace {

// Piece j of t: destination bytes `to` (within the piece's 16) taking the
// source bytes `from`, from the fewest 16-byte source windows (each from
// its first byte not yet covered); false where that takes more than
// kMaxWindows.  The windows' starts are appended to `starts`.
bool gather_piece(ShufflePieces &t, int j, const std::vector<int64_t> &to,
                  const std::vector<int64_t> &from, std::vector<int64_t> &starts) {
  std::vector<int64_t> need(from), win;
  std::sort(need.begin(), need.end());
  for (int64_t o : need)
    if (win.empty() || o >= win.back() + 16) win.push_back(o);
  if ((int)win.size() > ShufflePieces::kMaxWindows) return false;
  t.windows = std::max(t.windows, (int)win.size());
  for (int k = 0; k < ShufflePieces::kMaxWindows; k++)
    t.at[j][k] = win[std::min<size_t>(k, win.size() - 1)];
  for (size_t q = 0; q < to.size(); q++) {
    size_t k = 0;
    while (from[q] >= win[k] + 16) k++;
    t.idx[j][k][to[q]] = (uint8_t)(from[q] - win[k]);
  }
  starts.insert(starts.end(), win.begin(), win.end());
  return true;
}

// The user byte of each packed byte of `vec`'s instance, where its runs
// are of bytes or shorts (none of whole words: element moves and word
// permutes packed random float and double patterns 1.3-2x faster).
std::vector<int64_t> byte_sources(const std::vector<Run> &runs) {
  int64_t g = 0;
  for (const Run &r : runs) g = std::gcd(g, r.len);
  std::vector<int64_t> src;
  if (g == 0 || g % 4 == 0) return src;
  for (const Run &r : runs)
    for (int64_t b = 0; b < r.len; b++) src.push_back(r.off + b);
  return src;
}

}  // namespace

std::shared_ptr<const ShufflePieces> make_shuffle_pieces(const Node &vec) {
  const std::vector<Run> runs = leaf_runs(*vec.child);
  const std::vector<int64_t> src = byte_sources(runs);
  const int64_t packed = (int64_t)src.size(), pieces = (packed + 15) / 16;
  // A step stores 16 * pieces bytes: what passes its instance's must lie
  // within the next instance's (the kernel leaves only the last instance
  // to the rest), so one piece takes at least 8 packed bytes.
  if (pieces < 1 || pieces > ShufflePieces::kMaxPieces || 16 * pieces > 2 * packed) return nullptr;
  auto t = std::make_shared<ShufflePieces>();
  t->pieces = (int)pieces, t->packed = packed;
  std::memset(t->idx, 0x80, sizeof t->idx);
  std::vector<int64_t> starts;
  for (int64_t j = 0; j < pieces; j++) {
    const int64_t lo = 16 * j, hi = std::min(packed, lo + 16);
    std::vector<int64_t> to, from(src.begin() + lo, src.begin() + hi);
    for (int64_t q = lo; q < hi; q++) to.push_back(q - lo);
    if (!gather_piece(*t, (int)j, to, from, starts)) return nullptr;
  }
  t->whole = whole_loads(runs, starts, 16, vec.stride);
  if (!t->whole.next) return nullptr;
  return t;
}

std::shared_ptr<const ShufflePieces> make_shuffle_unpieces(const Node &vec) {
  const std::vector<Run> runs = leaf_runs(*vec.child);
  const std::vector<int64_t> src = byte_sources(runs);
  const int64_t packed = (int64_t)src.size();
  if (packed == 0) return nullptr;
  std::map<int64_t, int64_t> at;  // user byte -> its packed byte (the last wins)
  for (int64_t q = 0; q < packed; q++) at[src[q]] = q;
  auto t = std::make_shared<ShufflePieces>();
  t->packed = packed;
  std::memset(t->idx, 0x80, sizeof t->idx);
  std::vector<int64_t> starts;
  for (auto i = at.begin(); i != at.end();) {  // 16-byte user windows from each first byte
    if (t->pieces == ShufflePieces::kMaxPieces) return nullptr;
    const int j = t->pieces++;
    const int64_t w = i->first;
    std::vector<int64_t> to, from;
    uint32_t named = 0;
    for (; i != at.end() && i->first < w + 16; ++i)
      to.push_back(i->first - w), from.push_back(i->second), named |= 1u << (i->first - w);
    if (!gather_piece(*t, j, to, from, starts)) return nullptr;
    t->to[j] = w, t->named[j] = (uint16_t)named;
  }
  // Stream windows read up to 15 bytes past a packed byte: the last
  // instances whose windows would pass the range's stream move otherwise.
  int64_t reach = 0;
  for (int64_t s : starts) reach = std::max(reach, s + 16);
  t->tail = (std::max<int64_t>(reach - packed, 0) + packed - 1) / packed;
  return t;
}

}  // namespace loom
