// Layout serialization: a committed type's plan as a compact byte string
// that another process turns back into a type whose cursor walks the same
// byte runs (loom_layout_encode / loom_layout_decode / loom_layout_id).
//
// Format (version 1), every integer a LEB128 varint, signed ones zigzagged:
//   'L' 'Y' version
//   lb  extent  true_lb  true_ub  size  root_off  nodes
//   nodes in post-order (children first), each:
//     kind  count  then per kind
//       Block:  -                      (count bytes)
//       Vec:    stride  child
//       Idx:    child  count x disp
//       IdxV:   count x (disp  len)
//       Struct: count x (disp  kid)
//   child/kid: how many nodes back the child is (>= 1); disp: the difference
//   to the previous displacement (the first to 0).
// The plan is a DAG (constructors share children), so a node shared by
// several parents is written once: the encoding is as large as the plan in
// memory, never as large as the message (a vector of 10^8 blocks is a few
// dozen bytes).  Only the root carries an offset: constructors place every
// child at 0 and the cursor and kernels place children by their parent.
//
// Decoding trusts nothing: every count is bounded by the bytes left before
// anything is allocated, every size and address span is computed with
// overflow checks, depth is capped, children can only point backwards (no
// cycles), and the plan's span must lie within the declared true bounds, so
// the cursor's address arithmetic stays inside what loom_cursor_create checks.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "api_call.hpp"
#include "bounds.hpp"
#include "plan.hpp"
#include "type.hpp"

namespace loom {
namespace {

constexpr unsigned char kMagic0 = 'L', kMagic1 = 'Y', kVersion = 1;
static_assert(LOOM_LAYOUT_MAX_DEPTH < 1000, "encoder recursion is bounded by the depth cap");

uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t unzigzag(uint64_t u) { return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1)); }

class Writer {
 public:
  std::vector<unsigned char> out;
  void u(uint64_t v) {
    while (v >= 0x80) out.push_back(static_cast<unsigned char>(v | 0x80)), v >>= 7;
    out.push_back(static_cast<unsigned char>(v));
  }
  void s(int64_t v) { u(zigzag(v)); }

  /// Writes `n` and what it reaches, each shared node once; returns its index.
  uint64_t node(const Node *n) {
    auto it = index_.find(n);
    if (it != index_.end()) return it->second;
    std::vector<uint64_t> kids;  // indices of the children, written first
    if (n->child) kids.push_back(node(n->child.get()));
    for (const NodeP &k : n->kids) kids.push_back(node(k.get()));
    const uint64_t me = next_++;
    u(static_cast<uint64_t>(n->kind));
    u(static_cast<uint64_t>(n->count));
    int64_t prev = 0;
    auto disp = [&](int64_t d) {
      s(static_cast<int64_t>(static_cast<uint64_t>(d) - static_cast<uint64_t>(prev)));
      prev = d;
    };
    switch (n->kind) {
      case Kind::Block: break;
      case Kind::Vec:
        s(n->stride);
        u(me - kids[0]);
        break;
      case Kind::Idx:
        u(me - kids[0]);
        for (int64_t d : n->disp) disp(d);
        break;
      case Kind::IdxV:
        for (int64_t i = 0; i < n->count; i++) disp(n->disp[i]), u(static_cast<uint64_t>(n->lens[i]));
        break;
      case Kind::Struct:
        for (int64_t i = 0; i < n->count; i++) disp(n->disp[i]), u(me - kids[i]);
        break;
    }
    index_.emplace(n, me);
    return me;
  }
  uint64_t nodes() const { return next_; }

 private:
  std::unordered_map<const Node *, uint64_t> index_;
  uint64_t next_ = 0;
};

/// A decoded node and the facts its parents check against.
struct Decoded {
  NodeP node;
  int64_t lo, hi;  // bytes it touches, relative to its origin
};

class Reader {
 public:
  Reader(const unsigned char *p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return ok_; }
  size_t left() const { return ok_ ? static_cast<size_t>(end_ - p_) : 0; }
  bool at_end() const { return ok_ && p_ == end_; }
  unsigned char byte() {
    if (p_ == end_) return fail(), 0;
    return *p_++;
  }
  uint64_t u() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const unsigned char b = byte();
      if (!ok_) return 0;
      if (shift == 63 && b > 1) break;  // more than 64 bits
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return fail(), 0;
  }
  int64_t s() { return unzigzag(u()); }
  /// A count of at least 1 and at most the entries of `entry_bytes` bytes
  /// that the rest of the input can hold (what bounds every allocation).
  int64_t count(size_t entry_bytes) {
    const uint64_t c = u();
    if (c < 1 || (entry_bytes && c > left() / entry_bytes) || c > INT64_MAX) return fail(), 0;
    return static_cast<int64_t>(c);
  }
  void fail() { ok_ = false; }

 private:
  const unsigned char *p_, *end_;
  bool ok_ = true;
};

bool add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
bool mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/// Reads node `me` of `done` (its predecessors); false on any inconsistency.
bool read_node(Reader &in, std::vector<Decoded> &done, Decoded *out) {
  const uint64_t kind = in.u();
  if (!in.ok() || kind > static_cast<uint64_t>(Kind::Struct)) return false;
  auto n = std::make_shared<Node>();
  n->kind = static_cast<Kind>(kind);
  // Every entry takes at least one byte per varint it holds.
  const size_t entry = n->kind == Kind::Block || n->kind == Kind::Vec ? 0
                       : n->kind == Kind::Idx                          ? 1 : 2;
  n->count = in.count(entry);
  if (!in.ok()) return false;
  auto ref = [&](const Decoded **c) {
    const uint64_t back = in.u();
    if (!in.ok() || back < 1 || back > done.size()) return false;
    *c = &done[done.size() - back];
    return true;
  };
  int64_t prev = 0;
  auto disp = [&]() {
    prev = static_cast<int64_t>(static_cast<uint64_t>(prev) + static_cast<uint64_t>(in.s()));
    return prev;
  };
  int64_t lo = 0, hi = 0;
  // Widens [lo, hi) by [a + d, b + d); the first call sets it.
  auto span = [&](int64_t i, int64_t a, int64_t b, int64_t d) {
    int64_t x, y;
    if (!add(a, d, &x) || !add(b, d, &y)) return false;
    lo = i ? std::min(lo, x) : x;
    hi = i ? std::max(hi, y) : y;
    return true;
  };
  switch (n->kind) {
    case Kind::Block:
      n->packed = hi = n->count;
      break;
    case Kind::Vec: {
      const Decoded *c;
      n->stride = in.s();
      int64_t last;
      if (!ref(&c) || !mul(n->count - 1, n->stride, &last) || !mul(n->count, c->node->packed, &n->packed) ||
          !span(0, c->lo, c->hi, 0) || !span(1, c->lo, c->hi, last))
        return false;
      n->child = c->node;
      n->depth = c->node->depth + 1;
      break;
    }
    case Kind::Idx: {
      const Decoded *c;
      if (!ref(&c) || !mul(n->count, c->node->packed, &n->packed)) return false;
      n->disp.resize(n->count);
      for (int64_t i = 0; i < n->count; i++)
        if (!span(i, c->lo, c->hi, n->disp[i] = disp())) return false;
      n->child = c->node;
      n->depth = c->node->depth + 1;
      break;
    }
    case Kind::IdxV:
      n->disp.resize(n->count);
      n->lens.resize(n->count);
      n->prefix.resize(n->count + 1, 0);
      n->depth = 2;
      for (int64_t i = 0; i < n->count; i++) {
        n->disp[i] = disp();
        const uint64_t len = in.u();
        if (len < 1 || len > INT64_MAX) return false;
        n->lens[i] = static_cast<int64_t>(len);
        if (!add(n->prefix[i], n->lens[i], &n->prefix[i + 1]) || !span(i, 0, n->lens[i], n->disp[i]))
          return false;
      }
      n->packed = n->prefix[n->count];
      break;
    case Kind::Struct:
      n->disp.resize(n->count);
      n->kids.resize(n->count);
      n->prefix.resize(n->count + 1, 0);
      for (int64_t i = 0; i < n->count; i++) {
        n->disp[i] = disp();
        const Decoded *c;
        if (!ref(&c) || !add(n->prefix[i], c->node->packed, &n->prefix[i + 1]) ||
            !span(i, c->lo, c->hi, n->disp[i]))
          return false;
        n->kids[i] = c->node;
        n->depth = std::max(n->depth, c->node->depth + 1);
      }
      n->packed = n->prefix[n->count];
      break;
  }
  if (!in.ok() || n->depth > LOOM_LAYOUT_MAX_DEPTH) return false;
  select_kernels(*n);
  *out = {std::move(n), lo, hi};
  return true;
}

/// The type a valid encoding describes, or nullptr for a malformed one.
TypeOwner read_layout(Reader &in) {
  if (in.byte() != kMagic0 || in.byte() != kMagic1 || in.byte() != kVersion) return nullptr;
  TypeOwner t(new loom_type_s);
  // The layout is all a decoded type knows: its elements are its bytes.
  t->raw_bytes = true;
  t->homogeneous = LOOM_BYTE;
  t->lb = in.s();
  const int64_t extent = in.s();
  t->true_lb = in.s();
  t->true_ub = in.s();
  const uint64_t size = in.u();
  const int64_t root_off = in.s();
  const uint64_t nodes = in.u();
  if (!in.ok() || !add(t->lb, extent, &t->ub) || t->true_lb > t->true_ub || size > INT64_MAX ||
      nodes > in.left() / 2 || (size == 0) != (nodes == 0))
    return nullptr;
  t->size = t->nelems = t->ext32_size = static_cast<int64_t>(size);
  std::vector<Decoded> done;
  done.reserve(nodes);
  for (uint64_t i = 0; i < nodes; i++) {
    Decoded d;
    if (!read_node(in, done, &d)) return nullptr;
    done.push_back(std::move(d));
  }
  if (!in.at_end()) return nullptr;
  NodeP root;
  if (nodes) {
    const Decoded &r = done.back();
    int64_t lo, hi;
    if (r.node->packed != t->size || !add(r.lo, root_off, &lo) || !add(r.hi, root_off, &hi) ||
        lo < t->true_lb || hi > t->true_ub)
      return nullptr;
    root = shifted(r.node, root_off);
  }
  int64_t bytes;
  if (message_bytes(t.get(), 1, &bytes) != LOOM_OK) return nullptr;
  std::call_once(t->plan_once, [&] { t->plan = std::move(root); });
  t->committed.store(true, std::memory_order_release);
  return t;
}

}  // namespace
}  // namespace loom

extern "C" {

loom_status loom_layout_encode(loom_type t, void *buf, size_t cap, size_t *len) {
  if (!len) return LOOM_ERR_ARG;
  if (!t || !t->committed.load(std::memory_order_acquire)) return LOOM_ERR_TYPE;
  const loom::NodeP &root = loom::type_plan(t);
  if (root && root->depth > LOOM_LAYOUT_MAX_DEPTH) return LOOM_ERR_OVERFLOW;
  return loom::api_call([&] {
    loom::Writer body;
    if (root) body.node(root.get());
    loom::Writer w;
    w.out = {loom::kMagic0, loom::kMagic1, loom::kVersion};
    w.s(t->lb);
    w.s(t->extent());
    w.s(t->true_lb);
    w.s(t->true_ub);
    w.u(static_cast<uint64_t>(t->size));
    w.s(root ? root->off : 0);
    w.u(body.nodes());
    *len = w.out.size() + body.out.size();
    if (*len > cap) return LOOM_ERR_TRUNCATE;
    if (!buf) return LOOM_ERR_ARG;
    std::memcpy(buf, w.out.data(), w.out.size());
    if (!body.out.empty())
      std::memcpy(static_cast<char *>(buf) + w.out.size(), body.out.data(), body.out.size());
    return LOOM_OK;
  });
}

loom_status loom_layout_decode(const void *buf, size_t len, loom_type *out) {
  if (!out || (!buf && len)) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    loom::Reader in(static_cast<const unsigned char *>(buf), len);
    loom::TypeOwner t = loom::read_layout(in);
    if (!t) return LOOM_ERR_ARG;
    *out = t.release();
    return LOOM_OK;
  });
}

uint64_t loom_layout_id(const void *buf, size_t len) {
  if (!buf && len) return 0;
  return XXH3_64bits(buf, len);
}

}  // extern "C"
