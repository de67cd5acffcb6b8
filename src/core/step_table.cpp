// Building a step table (step_table.hpp).
#include "step_table.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "jit_moves.hpp"  // JitCode's destructor
#include "permute_table.hpp"  // kPage
#include "plan.hpp"

namespace loom {

namespace {

// Where each packed byte of one instance of c lies, from the instance's
// origin: nothing (false) unless the first lies there and its runs rise
// (each byte past the one before, the next instance's first past the
// last), none a page or more past the one before, and each lane whole at
// a multiple of `lane`.  A window starts at a multiple of 32 bytes from
// the origin, at or before its register's first byte: between two packed
// bytes less than a page apart (or at the first), so on the page of one
// of them; the kernel keeps loads within the range's last byte.
bool rising_bytes(const Node &c, int64_t stride, int lane, std::vector<int64_t> &at) {
  std::vector<Run> runs;
  if (c.packed > 32 * kMaxStepRegisters || !runs_of(c, 0, (size_t)c.packed, runs)) return false;
  for (const Run &r : runs) {
    if (r.off % lane != 0 || r.len % lane != 0) return false;
    for (int64_t o = 0; o < r.len; o++) {
      if (!at.empty() && (r.off + o <= at.back() || r.off + o - at.back() >= kPage)) return false;
      at.push_back(r.off + o);
    }
  }
  return !at.empty() && at.front() == 0 && stride > at.back() && stride - at.back() < kPage;
}

}  // namespace

std::shared_ptr<StepTable> make_step_table(const Node &vec, int lane) {
  if (vec.kind != Kind::Vec || vec.stride <= 0) return nullptr;
  const int64_t b = vec.child->packed, st = vec.stride;
  if (b % lane != 0 || st % lane != 0) return nullptr;
  // Stream byte y of an instance comes from user byte at[y] of it.
  std::vector<int64_t> at;
  if (vec.child->kind == Kind::Block) {
    if (st <= b) return nullptr;
  } else if (!rising_bytes(*vec.child, st, lane, at)) {
    return nullptr;
  }
  auto t = std::make_shared<StepTable>();
  t->lane = lane;
  t->instances = 32 / std::gcd<int64_t>(b, 32);
  t->registers = (int)(t->instances * b / 32);
  if (t->registers > kMaxStepRegisters || vec.count < t->instances) return nullptr;
  t->align = StreamAlign(b, 32);
  t->last = at.empty() ? b : at.back() + 1;
  const int lanes = 32 / lane;
  // Stream byte y of a step comes from user byte src(y) of it.
  auto src = [&](int64_t y) { return y / b * st + (at.empty() ? y % b : at[y % b]); };
  for (int r = 0; r < t->registers; r++) {
    const int64_t w = src(32 * r) / 32 * 32;
    t->window[r] = w;
    for (int l = 0; l < lanes; l++) {
      const int64_t off = src(32 * r + l * lane) - w;  // a whole lane: blocks are whole lanes
      if (off >= 96) return nullptr;
      const bool third = off >= 64;
      t->three |= (uint32_t)third << r;
      const int first = third ? 0 : (int)(off / lane), second = third ? lanes + (int)((off - 64) / lane) : l;
      if (lane == 4) t->idx32[r][0][l] = first, t->idx32[r][1][l] = second;
      else t->idx8[r][0][l] = (uint8_t)first, t->idx8[r][1][l] = (uint8_t)second;
    }
  }
  for (int r = 0; r < t->registers; r++) {
    const int windows = t->three >> r & 1 ? 3 : 2;
    const bool fresh = r == 0 || t->window[r] != t->window[r - 1] + 32 * (t->three >> (r - 1) & 1 ? 2 : 1);
    t->fresh |= (uint32_t)fresh << r;
    t->reach = std::max(t->reach, t->window[r] + 32 * windows);
  }
  return t;
}

}  // namespace loom
