// A position in the packed stream of `count` instances of a plan, and the
// non-recursive engine that moves any byte range from there.  Whole children
// that fit in the range go to the specialised kernels; only the path to the
// range's two ends is walked level by level.
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "loom.h"
#include "plan.hpp"
#include "type.hpp"

namespace loom {

/// Address arithmetic that is defined for a null base: MPI_BOTTOM, and
/// checkpoints made against address 0 (rebased before any byte moves).
/// Every walk's address step goes through it.
inline char *at(const void *p, int64_t off) {
  return reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(p) + off);
}

struct Frame {
  const Node *n;  // nullptr: a run of raw bytes inside an IdxV
  char *base;     // origin of this instance
  int64_t i;      // next child (byte, for runs and blocks)
  int64_t lim;    // number of children
};

/// Only construction and copying allocate (the stack, reserved to the plan's
/// depth); moving through the stream never does, so seek, pack, unpack, skip
/// and iov cannot fail.
class Cursor {
 public:
  Cursor(PlanRef plan, const void *buf);
  Cursor(const Cursor &o);
  Cursor(Cursor &&) noexcept = default;
  Cursor &operator=(const Cursor &) = delete;  // loom_cursor_s::assign copies
  Cursor &operator=(Cursor &&) noexcept = default;
  int64_t total() const { return root_ ? root_->packed : 0; }
  int64_t offset() const { return pos_; }
  void seek(int64_t off);
  /// Moves up to `len` bytes from the current position; returns how many.
  int64_t pack(char *out, int64_t len);
  int64_t unpack(const char *in, int64_t len);
  /// Skips `len` bytes without touching data (checkpoint catch-up).
  int64_t skip(int64_t len);
  int64_t iov(loom_iov *v, size_t max_entries, int64_t max_bytes, size_t *n);
  /// Becomes a copy of `o` (a checkpoint restore) without allocating when
  /// this cursor walks a plan of the same depth: parallel workers restore
  /// into cursors made before any byte moves, so they cannot fail midway.
  void restore(const Cursor &o);
  /// Moves the walk to the same layout at another address: every position
  /// is relative to the buffer, so checkpoints made against address 0
  /// serve any buffer (integer arithmetic, as MPI_BOTTOM needs).
  void rebase(const void *buf);
  /// Snapshot size: the scalars a restore needs plus the whole stack a walk
  /// of this plan can reach (a checkpoint must hold its deepest state).
  size_t state_bytes() const {
    return sizeof(root_) + sizeof(buf_) + sizeof(pos_) + stack_depth() * sizeof(Frame);
  }

 private:
  template <class Act>
  int64_t run(Act &a, int64_t budget);
  void push_child(const Frame &f);
  size_t stack_depth() const { return root_ ? root_->depth + 1 : 1; }

  NodeP hold_;        // owns root_ when the type does not
  const Node *root_;
  char *buf_;
  int64_t pos_ = 0;
  std::vector<Frame> st_;
};

}  // namespace loom

struct loom_cursor_s {
  loom_type type;  // keeps the plans `cur` points into alive
  loom::Cursor cur;

  /// Becomes a copy of `from`, a cursor over plans that `owner` keeps
  /// alive.  Throws std::bad_alloc with *this unchanged.
  void assign(loom_type owner, const loom::Cursor &from) {
    loom::Cursor copy(from);  // the only step that allocates
    loom_type_ref(owner);
    loom_type_free(type);
    type = owner;
    cur = std::move(copy);
  }
};
static_assert(std::is_nothrow_move_assignable<loom::Cursor>::value,
              "loom_cursor_s::assign relies on a move that cannot throw");
