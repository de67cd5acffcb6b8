#include "cursor.hpp"

#include "isa.hpp"

#include <algorithm>
#include <cstring>

namespace loom {
namespace {

struct Mover {
  bool pack;
  char *s;
  bool bytes(char *p, int64_t k) {
    const KernelSet &set = current_kernel_set();
    if (pack) set.copy(s, p, k);
    else set.copy(p, s, k);
    s += k;
    return true;
  }
  int64_t cap(const Node &, int64_t k) const { return k; }
  void full(const Node &n, char *base, int64_t i0, int64_t i1) {
    s = (pack ? n.pack : n.unpack)(n, base, s, i0, i1);
  }
};

struct Skipper {
  bool bytes(char *, int64_t) { return true; }
  int64_t cap(const Node &, int64_t k) const { return k; }
  void full(const Node &, char *, int64_t, int64_t) {}
};

// Entries for whole children only where each child is one run (a leaf
// block under a vector or index, the runs of an IdxV), one entry at most
// per child: a tight loop instead of a frame push and pop per run, which
// is what the single-copy scheme's iovecs and the offload simulator's
// handlers pay per block.
struct IovMaker {
  loom_iov *v;
  size_t max, n = 0;
  bool bytes(char *p, int64_t k) {
    if (n > 0 && static_cast<char *>(v[n - 1].base) + v[n - 1].len == p) {
      v[n - 1].len += k;
      return true;
    }
    if (n == max) return false;
    v[n++] = {p, static_cast<size_t>(k)};
    return true;
  }
  int64_t cap(const Node &nd, int64_t k) const {
    const bool runs = nd.kind == Kind::IdxV ||
                      ((nd.kind == Kind::Vec || nd.kind == Kind::Idx) &&
                       nd.child->kind == Kind::Block);
    return runs ? std::min<int64_t>(k, (int64_t)(max - n)) : 0;
  }
  void full(const Node &nd, char *base, int64_t i0, int64_t i1) {
    if (nd.kind == Kind::Vec) {
      // Runs of a vector touch only when the stride is the run, so after
      // the first (which may extend the previous entry) none merges.
      const int64_t len = nd.child->count;
      bytes(at(base, i0 * nd.stride), len);
      if (nd.stride == len) {
        v[n - 1].len += (size_t)((i1 - i0 - 1) * len);
        return;
      }
      for (int64_t i = i0 + 1; i < i1; ++i) v[n++] = {at(base, i * nd.stride), (size_t)len};
      return;
    }
    for (int64_t i = i0; i < i1; ++i)
      bytes(at(base, nd.disp[i]), nd.kind == Kind::Idx ? nd.child->count : nd.lens[i]);
  }
};

}  // namespace

Cursor::Cursor(PlanRef plan, const void *buf)
    : hold_(std::move(plan.hold)), root_(plan.node), buf_(at(buf, 0)) {
  st_.reserve(stack_depth());
  seek(0);
}

Cursor::Cursor(const Cursor &o) : hold_(o.hold_), root_(o.root_), buf_(o.buf_), pos_(o.pos_) {
  st_.reserve(stack_depth());  // a plain vector copy would keep only size()
  st_ = o.st_;
}

void Cursor::push_child(const Frame &f) {
  const Node &n = *f.n;
  switch (n.kind) {
    case Kind::Vec:
      st_.push_back({n.child.get(), at(f.base, f.i * n.stride), 0, n.child->count});
      return;
    case Kind::Idx:
      st_.push_back({n.child.get(), at(f.base, n.disp[f.i]), 0, n.child->count});
      return;
    case Kind::IdxV:
      st_.push_back({nullptr, at(f.base, n.disp[f.i]), 0, n.lens[f.i]});
      return;
    case Kind::Struct:
      st_.push_back({n.kids[f.i].get(), at(f.base, n.disp[f.i]), 0, n.kids[f.i]->count});
      return;
    case Kind::Block: return;  // blocks are walked byte-wise in place
  }
}

void Cursor::seek(int64_t off) {
  st_.clear();
  pos_ = off;
  if (!root_) return;
  st_.push_back({root_, at(buf_, root_->off), 0, root_->count});
  int64_t rem = off;
  while (rem > 0) {
    Frame &f = st_.back();
    if (!f.n || f.n->kind == Kind::Block) {
      f.i = rem;
      break;
    }
    const Node &n = *f.n;
    if (n.kind == Kind::Vec || n.kind == Kind::Idx) {
      f.i = rem / n.child->packed;
      rem -= f.i * n.child->packed;
    } else {
      auto it = std::upper_bound(n.prefix.begin(), n.prefix.end(), rem);
      f.i = (it - n.prefix.begin()) - 1;
      rem -= n.prefix[f.i];
    }
    if (rem > 0) push_child(f);
  }
}

template <class Act>
int64_t Cursor::run(Act &a, int64_t budget) {
  int64_t done = 0;
  while (budget > 0 && !st_.empty()) {
    Frame &f = st_.back();
    if (f.i == f.lim) {
      st_.pop_back();
      if (!st_.empty()) st_.back().i++;
      continue;
    }
    if (!f.n || f.n->kind == Kind::Block) {
      int64_t k = std::min(f.lim - f.i, budget);
      if (!a.bytes(at(f.base, f.i), k)) break;
      f.i += k, budget -= k, done += k;
      continue;
    }
    const Node &n = *f.n;
    // As many whole children as fit (and the action takes) in one call.
    int64_t k, bytes;
    if (n.kind == Kind::Vec || n.kind == Kind::Idx) {
      k = a.cap(n, std::min(f.lim - f.i, budget / n.child->packed));
      bytes = k * n.child->packed;
    } else {
      auto first = n.prefix.begin() + f.i + 1;
      // budget may be any int64 (an iov call's "no limit"): cap it at what is left.
      const int64_t upto = n.prefix[f.i] + std::min(budget, n.prefix[f.lim] - n.prefix[f.i]);
      auto it = std::upper_bound(first, n.prefix.begin() + f.lim + 1, upto);
      k = a.cap(n, it - first);
      bytes = n.prefix[f.i + k] - n.prefix[f.i];
    }
    if (k > 0) {
      a.full(n, f.base, f.i, f.i + k);
      f.i += k, budget -= bytes, done += bytes;
      continue;
    }
    push_child(f);
  }
  pos_ += done;
  return done;
}

int64_t Cursor::pack(char *out, int64_t len) {
  Mover m{true, out};
  return run(m, len);
}

int64_t Cursor::unpack(const char *in, int64_t len) {
  Mover m{false, const_cast<char *>(in)};
  return run(m, len);
}

int64_t Cursor::skip(int64_t len) {
  Skipper s;
  return run(s, len);
}

void Cursor::restore(const Cursor &o) {
  hold_ = o.hold_;
  root_ = o.root_;
  buf_ = o.buf_;
  pos_ = o.pos_;
  st_ = o.st_;  // within the reserved capacity for plans of one depth
}

void Cursor::rebase(const void *buf) {
  const uintptr_t delta = reinterpret_cast<uintptr_t>(buf) - reinterpret_cast<uintptr_t>(buf_);
  buf_ = at(buf, 0);
  for (Frame &f : st_) f.base = at(f.base, (int64_t)delta);
}

int64_t Cursor::iov(loom_iov *v, size_t max_entries, int64_t max_bytes, size_t *n) {
  IovMaker m{v, max_entries};
  int64_t done = max_entries ? run(m, max_bytes) : 0;
  *n = m.n;
  return done;
}

}  // namespace loom
