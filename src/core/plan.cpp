// Normalising constructors.  Each applies, at construction, the rewrites
// that keep plans small: drop empty and unit levels, merge adjacent blocks,
// coalesce nested strides, turn regular indexed levels into strided ones,
// factor repeating index patterns into a strided loop over a small index
// block, and carry offsets to the outermost level.
#include <algorithm>
#include <numeric>

#include "plan.hpp"

namespace loom {
namespace {

std::shared_ptr<Node> fresh(Kind k, int64_t off) {
  auto n = std::make_shared<Node>();
  n->kind = k;
  n->off = off;
  return n;
}

NodeP done(std::shared_ptr<Node> n) {
  select_kernels(*n);
  return n;
}

bool same(const NodeP &a, const NodeP &b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->off != b->off ||
      a->count != b->count || a->stride != b->stride ||
      a->packed != b->packed || a->disp != b->disp || a->lens != b->lens ||
      a->kids.size() != b->kids.size() || !same(a->child, b->child))
    return false;
  for (size_t i = 0; i < a->kids.size(); i++)
    if (!same(a->kids[i], b->kids[i])) return false;
  return true;
}

bool arithmetic(const std::vector<int64_t> &d) {
  for (size_t i = 2; i < d.size(); i++)
    if (d[i] - d[i - 1] != d[1] - d[0]) return false;
  return true;
}

// A repeating pattern: entry i+p is entry i moved by d[p]-d[0] for every i
// below `covered` (lens, when given, repeat too).
struct Period {
  int64_t p = 0, covered = 0;
};

// The smallest such p with at least two repetitions, in O(n), by the prefix
// function over the sequence of (gap to next, length).  A last entry that
// breaks the pattern (a shorter final block) is left out of `covered`.
Period find_period(const std::vector<int64_t> &d, const std::vector<int64_t> *lens) {
  const int64_t n = d.size(), m = n - 1;
  if (n < 4) return {};
  auto eq = [&](int64_t i, int64_t j) {
    return d[i + 1] - d[i] == d[j + 1] - d[j] && (!lens || (*lens)[i] == (*lens)[j]);
  };
  std::vector<int64_t> pi(m, 0);
  for (int64_t i = 1; i < m; i++) {
    int64_t k = pi[i - 1];
    while (k > 0 && !eq(i, k)) k = pi[k - 1];
    if (eq(i, k)) k++;
    pi[i] = k;
  }
  Period r{m - pi[m - 1], n};
  if (lens && (*lens)[n - 1] != (*lens)[n - 1 - r.p]) r.covered = n - 1;
  if (r.covered / r.p < 2) return {};
  return r;
}

template <class Build>
NodeP factor_period(const std::vector<int64_t> &d, Period per, Build build) {
  // head: q repetitions of the first p entries; tail: what is left.
  const int64_t n = d.size(), p = per.p, q = per.covered / p, d0 = d[0];
  std::vector<int64_t> pat(d.begin(), d.begin() + p);
  for (auto &x : pat) x -= d0;
  NodeP head = mk_vec(q, d[p] - d0, build(std::move(pat), 0), d0);
  if (q * p == n) return head;
  std::vector<int64_t> rest(d.begin() + q * p, d.end());
  return mk_struct({0, 0}, {head, build(std::move(rest), q * p)});
}

// Runs of a few elements move faster as fixed-size element moves (what a
// hand loop does) than as variable-length copies: split runs of at most 4
// elements of 4, 8 or 16 bytes (the gcd of the lengths) into elements.
// Long lists (a particle subset: atoms in ascending order, neighbours
// merged into runs of 1, 2, 3 ... elements) are split where their runs
// average 4 elements or fewer, of 4 to 24 bytes (one to three doubles):
// 131072 of 174762 doubles, 32825 runs, packed at 0.31x the hand loop as
// runs and 0.92x as elements (unpacked 0.30x / 0.97x, 1 MiB, AMD EPYC VM,
// one process); 43690 of 58253 triples of doubles, 0.48x / 1.08x.  Runs
// of 10 elements on average stay runs (0.63x -> 1.04x by AVX-512's
// masked run moves, k_idxv, against 0.97x split).
constexpr int64_t kSplitListRuns = 16;  // short lists: small patterns' kernels
bool split_short_runs(std::vector<int64_t> &disp, std::vector<int64_t> &lens) {
  int64_t g = 0, mx = 0, sum = 0;
  bool wrapped = false;
  for (int64_t l : lens) {
    g = std::gcd(g, l), mx = std::max(mx, l);
    wrapped |= __builtin_add_overflow(sum, l, &sum);
  }
  if (wrapped) return false;
  const int64_t runs = (int64_t)lens.size();
  const bool few = (g == 4 || g == 8 || g == 16) && mx <= 4 * g;
  const bool long_list = (g == 4 || g == 8 || g == 12 || g == 16 || g == 24) &&
                         runs >= kSplitListRuns && sum <= 4 * g * runs;
  if (mx == g || !(few || long_list)) return false;
  std::vector<int64_t> d, l;
  d.reserve(sum / g);
  l.reserve(sum / g);
  for (size_t i = 0; i < disp.size(); i++)
    for (int64_t o = 0; o < lens[i]; o += g) d.push_back(disp[i] + o), l.push_back(g);
  disp.swap(d);
  lens.swap(l);
  return true;
}

}  // namespace

int64_t plan_runs(const Node *n) {
  if (!n) return 0;
  int64_t r = 0;
  switch (n->kind) {
    case Kind::Block: return 1;
    case Kind::IdxV: return n->count;
    case Kind::Vec:
    case Kind::Idx:
      if (__builtin_mul_overflow(n->count, plan_runs(n->child.get()), &r)) return INT64_MAX;
      return r;
    case Kind::Struct:
      for (const NodeP &k : n->kids)
        if (__builtin_add_overflow(r, plan_runs(k.get()), &r)) return INT64_MAX;
      return r;
  }
  return r;
}

bool runs_of(const Node &n, int64_t at, size_t max, std::vector<Run> &out) {
  switch (n.kind) {
    case Kind::Block:
      out.push_back({at, n.count});
      break;
    case Kind::IdxV:
      for (int64_t j = 0; j < n.count && out.size() <= max; j++)
        out.push_back({at + n.disp[j], n.lens[j]});
      break;
    case Kind::Vec:
      for (int64_t j = 0; j < n.count; j++)
        if (!runs_of(*n.child, at + j * n.stride, max, out)) return false;
      break;
    case Kind::Idx:
      for (int64_t j = 0; j < n.count; j++)
        if (!runs_of(*n.child, at + n.disp[j], max, out)) return false;
      break;
    case Kind::Struct:
      for (size_t j = 0; j < n.kids.size(); j++)
        if (!runs_of(*n.kids[j], at + n.disp[j], max, out)) return false;
      break;
  }
  return out.size() <= max;
}

NodeP shifted(const NodeP &n, int64_t delta) {
  if (!n || delta == 0) return n;
  auto c = std::make_shared<Node>(*n);
  c->off += delta;
  return c;
}

NodeP mk_block(int64_t len, int64_t off) {
  if (len <= 0) return nullptr;
  auto n = fresh(Kind::Block, off);
  n->count = n->packed = len;
  return done(n);
}

NodeP mk_vec(int64_t count, int64_t stride, NodeP child, int64_t off) {
  if (!child || count <= 0) return nullptr;
  off += child->off;
  child = shifted(child, -child->off);
  if (count == 1) return shifted(child, off);
  if (child->kind == Kind::Block && stride == child->count)
    return mk_block(count * child->count, off);
  if (child->kind == Kind::Vec && stride == child->count * child->stride)
    return mk_vec(count * child->count, child->stride, child->child, off);
  auto n = fresh(Kind::Vec, off);
  n->count = count;
  n->stride = stride;
  n->packed = count * child->packed;
  n->depth = child->depth + 1;
  n->child = std::move(child);
  return done(n);
}

NodeP mk_idxv(std::vector<int64_t> disp, std::vector<int64_t> lens) {
  size_t k = 0;  // merge adjacent runs, drop empty ones
  for (size_t i = 0; i < disp.size(); i++) {
    if (lens[i] <= 0) continue;
    if (k > 0 && disp[k - 1] + lens[k - 1] == disp[i]) {
      lens[k - 1] += lens[i];
    } else {
      disp[k] = disp[i];
      lens[k++] = lens[i];
    }
  }
  disp.resize(k);
  lens.resize(k);
  if (k == 0) return nullptr;
  if (k == 1) return mk_block(lens[0], disp[0]);
  if (split_short_runs(disp, lens)) k = disp.size();
  if (std::all_of(lens.begin(), lens.end(), [&](int64_t l) { return l == lens[0]; })) {
    const int64_t b = lens[0];
    if (arithmetic(disp)) return mk_vec(k, disp[1] - disp[0], mk_block(b), disp[0]);
    if (Period p = find_period(disp, nullptr); p.p)
      return factor_period(disp, p, [b](std::vector<int64_t> d, int64_t) {
        return mk_idx(std::move(d), mk_block(b));
      });
    const int64_t d0 = disp[0];
    for (auto &x : disp) x -= d0;
    auto n = fresh(Kind::Idx, d0);
    n->count = k;
    n->child = mk_block(b);
    n->packed = k * b;
    n->depth = 2;
    n->disp = std::move(disp);
    return done(n);
  }
  if (Period p = find_period(disp, &lens); p.p)
    return factor_period(disp, p, [&lens](std::vector<int64_t> d, int64_t first) {
      std::vector<int64_t> l(lens.begin() + first, lens.begin() + first + d.size());
      return mk_idxv(std::move(d), std::move(l));
    });
  const int64_t d0 = disp[0];
  auto n = fresh(Kind::IdxV, d0);
  n->count = k;
  n->depth = 2;
  n->prefix.resize(k + 1, 0);
  for (size_t i = 0; i < k; i++) {
    disp[i] -= d0;
    n->prefix[i + 1] = n->prefix[i] + lens[i];
  }
  n->packed = n->prefix[k];
  n->disp = std::move(disp);
  n->lens = std::move(lens);
  return done(n);
}

NodeP mk_idx(std::vector<int64_t> disp, NodeP child) {
  if (!child || disp.empty()) return nullptr;
  for (auto &x : disp) x += child->off;
  child = shifted(child, -child->off);
  if (disp.size() == 1) return shifted(child, disp[0]);
  if (child->kind == Kind::Block) {
    std::vector<int64_t> lens(disp.size(), child->count);
    return mk_idxv(std::move(disp), std::move(lens));
  }
  if (arithmetic(disp)) return mk_vec(disp.size(), disp[1] - disp[0], child, disp[0]);
  if (Period p = find_period(disp, nullptr); p.p)
    return factor_period(disp, p, [&child](std::vector<int64_t> d, int64_t) {
      return mk_idx(std::move(d), child);
    });
  const int64_t d0 = disp[0];
  for (auto &x : disp) x -= d0;
  auto n = fresh(Kind::Idx, d0);
  n->count = disp.size();
  n->packed = n->count * child->packed;
  n->depth = child->depth + 1;
  n->disp = std::move(disp);
  n->child = std::move(child);
  return done(n);
}

NodeP mk_struct(std::vector<int64_t> disp, std::vector<NodeP> kids) {
  size_t k = 0;
  for (size_t i = 0; i < kids.size(); i++) {
    if (!kids[i]) continue;
    disp[k] = disp[i] + kids[i]->off;
    kids[k] = shifted(kids[i], -kids[i]->off);
    // A child equal to the one before it shares its node: the kernels then
    // walk one displacement list for both (a halo's properties indexed by
    // one atom list), which stays in the cache.  Only neighbours are
    // compared, so a struct of n children commits in O(n).
    if (k > 0 && same(kids[k], kids[k - 1])) kids[k] = kids[k - 1];
    k++;
  }
  disp.resize(k);
  kids.resize(k);
  if (k == 0) return nullptr;
  if (k == 1) return shifted(kids[0], disp[0]);
  if (std::all_of(kids.begin(), kids.end(), [](const NodeP &c) { return c->kind == Kind::Block; })) {
    std::vector<int64_t> lens(k);
    for (size_t i = 0; i < k; i++) lens[i] = kids[i]->count;
    return mk_idxv(std::move(disp), std::move(lens));
  }
  if (std::all_of(kids.begin(), kids.end(), [&](const NodeP &c) { return same(c, kids[0]); }))
    return mk_idx(std::move(disp), kids[0]);
  const int64_t d0 = disp[0];
  auto n = fresh(Kind::Struct, d0);
  n->count = k;
  n->prefix.resize(k + 1, 0);
  for (size_t i = 0; i < k; i++) {
    disp[i] -= d0;
    n->prefix[i + 1] = n->prefix[i] + kids[i]->packed;
    n->depth = std::max(n->depth, kids[i]->depth + 1);
  }
  n->packed = n->prefix[k];
  n->disp = std::move(disp);
  n->kids = std::move(kids);
  return done(n);
}

}  // namespace loom
