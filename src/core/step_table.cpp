// Building a step table (step_table.hpp).
#include "step_table.hpp"

#include <algorithm>
#include <numeric>

#include "jit_moves.hpp"  // JitCode's destructor
#include "plan.hpp"

namespace loom {

std::shared_ptr<StepTable> make_step_table(const Node &vec, int lane) {
  if (vec.kind != Kind::Vec || vec.child->kind != Kind::Block || vec.stride <= 0) return nullptr;
  const int64_t b = vec.child->count, st = vec.stride;
  if (b % lane != 0 || st % lane != 0 || st <= b) return nullptr;
  auto t = std::make_shared<StepTable>();
  t->lane = lane;
  t->instances = 32 / std::gcd<int64_t>(b, 32);
  t->registers = (int)(t->instances * b / 32);
  if (t->registers > kMaxStepRegisters || vec.count < t->instances) return nullptr;
  t->align = StreamAlign(b, 32);
  const int lanes = 32 / lane;
  // Stream byte y of a step comes from user byte src(y) of it.
  auto src = [&](int64_t y) { return y / b * st + y % b; };
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
