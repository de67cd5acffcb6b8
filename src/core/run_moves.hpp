// A small leaf's runs as moves of fixed widths, for kernels that repeat
// the leaf (k_vec_moves): what a hand loop with the offsets compiled in
// does, one move per run where a run is a power of two, where moving run
// by run would branch on each run's length and moving element by element
// would take a move per element.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "plan.hpp"

namespace loom {

/// One instance of a small leaf as moves of fixed widths, 32, 16, 8, 4, 2
/// and 1 bytes: a run of n bytes moves as whole 32-byte moves and one of
/// the smallest width that ends it (80: 32, 32, 16; 100: 32, 32, 32, 4),
/// or below 32 as one move of the widest power of two not above n, or two
/// of it overlapping (n = 6: 4 + 4).  Grouped by width
/// (count[w] moves of 32 >> w bytes), so that each width is a loop of one
/// fixed move; `at` holds each move's user offset from the instance's
/// origin and its stream offset from the instance's first packed byte.
/// Overlapping moves write a run's own bytes twice, never a gap.
struct RunMoves {
  static constexpr int kWidths = 6;
  int32_t count[kWidths] = {};
  std::vector<std::array<int32_t, 2>> at;
};

/// The smallest power of two at least n (1 <= n <= 2^30): the width of
/// the one move that ends (or makes) a run of n bytes.
inline int32_t move_width(int64_t n) {
  int32_t w = 1;
  while (w < n) w *= 2;
  return w;
}

/// The moves of one instance of `vec.child` (any plan of up to
/// `max_moves` runs): null where its runs overlap, an offset passes 32
/// bits, or it takes more than `max_moves` moves.
std::shared_ptr<const RunMoves> make_run_moves(const Node &vec, int max_moves);

}  // namespace loom
