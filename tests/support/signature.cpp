// Type signatures: extraction from a TypeSpec, run-length arithmetic and
// the primitive root (see signature.hpp).
#include "signature.hpp"

#include <numeric>
#include <sstream>
#include <stdexcept>

namespace loomtest {

namespace {

// A pair type's members, from the standard's "as if" definitions.
struct PairRow {
  loom_prim pair, a, b;
};
const PairRow kPairs[] = {
    {LOOM_FLOAT_INT, LOOM_FLOAT, LOOM_INT},
    {LOOM_DOUBLE_INT, LOOM_DOUBLE, LOOM_INT},
    {LOOM_LONG_INT, LOOM_LONG, LOOM_INT},
    {LOOM_2INT, LOOM_INT, LOOM_INT},
    {LOOM_SHORT_INT, LOOM_SHORT, LOOM_INT},
    {LOOM_LONG_DOUBLE_INT, LOOM_LONG_DOUBLE, LOOM_INT},
    {LOOM_2REAL, LOOM_F_REAL, LOOM_F_REAL},
    {LOOM_2DOUBLE_PRECISION, LOOM_F_DOUBLE_PRECISION, LOOM_F_DOUBLE_PRECISION},
    {LOOM_2INTEGER, LOOM_F_INTEGER, LOOM_F_INTEGER},
};

// Elements [0, n) of s as one type code each (for the root search).
std::vector<int> expand(const Signature &s) {
  std::vector<int> v;
  v.reserve(static_cast<size_t>(sig_elements(s)));
  for (const SigRun &r : s) v.insert(v.end(), static_cast<size_t>(r.n), r.prim);
  return v;
}

// The prefix function (Knuth-Morris-Pratt): pi[i] is the length of the
// longest proper prefix of v[0..i] that is also its suffix, so the
// shortest period of v[0..i] is i + 1 - pi[i].
std::vector<size_t> prefix_function(const std::vector<int> &v) {
  std::vector<size_t> pi(v.size(), 0);
  for (size_t i = 1; i < v.size(); ++i) {
    size_t k = pi[i - 1];
    while (k > 0 && v[i] != v[k]) k = pi[k - 1];
    if (v[i] == v[k]) ++k;
    pi[i] = k;
  }
  return pi;
}

}  // namespace

std::vector<loom_prim> sig_members(loom_prim p) {
  for (const PairRow &r : kPairs)
    if (r.pair == p) return {r.a, r.b};
  return {p};
}

loom_prim pair_of(loom_prim a, loom_prim b) {
  for (const PairRow &r : kPairs)
    if (r.a == a && r.b == b) return r.pair;
  return LOOM_PRIM_COUNT;
}

void sig_append(Signature *s, loom_prim p, int64_t n) {
  if (n <= 0) return;
  if (!s->empty() && s->back().prim == p)
    s->back().n += n;
  else
    s->push_back({p, n});
}

void sig_append(Signature *s, const Signature &t, int64_t times) {
  if (t.size() == 1) {
    sig_append(s, t[0].prim, t[0].n * times);
    return;
  }
  for (int64_t i = 0; i < times; ++i)
    for (const SigRun &r : t) sig_append(s, r.prim, r.n);
}

Signature signature_of(const TypeSpec &t, bool split_pairs) {
  Signature s;
  if (t.kind == Kind::Prim) {
    if (!split_pairs) sig_append(&s, t.prim, 1);
    else
      for (loom_prim m : sig_members(t.prim)) sig_append(&s, m, 1);
    return s;
  }
  if (t.kind == Kind::Struct) {
    for (size_t i = 0; i < t.types.size(); ++i)
      sig_append(&s, signature_of(*t.types[i], split_pairs), t.blocklens[i]);
    return s;
  }
  // Every other constructor repeats its one old type: the signature is the
  // old type's, once per copy.
  const Signature c = signature_of(*t.child, split_pairs);
  int64_t copies = 1;
  switch (t.kind) {
    case Kind::Contig: copies = t.count; break;
    case Kind::Vector:
    case Kind::Hvector: copies = t.count * t.blocklen; break;
    case Kind::Indexed:
    case Kind::Hindexed:
      copies = std::accumulate(t.blocklens.begin(), t.blocklens.end(), int64_t{0});
      break;
    case Kind::IndexedBlock:
    case Kind::HindexedBlock:
      copies = static_cast<int64_t>(t.displs.size()) * t.blocklen;
      break;
    case Kind::Subarray:
      copies = std::accumulate(t.subsizes.begin(), t.subsizes.end(), int64_t{1},
                               std::multiplies<int64_t>());
      break;
    case Kind::Darray: {  // the reference knows which indices this rank owns
      const int64_t per = sig_elements(signature_of(*t.child));
      copies = per ? reference_layout(t).nelems / per : 0;
      break;
    }
    case Kind::Resized:
    case Kind::Dup: break;
    default: throw std::logic_error("signature_of: unhandled kind");
  }
  sig_append(&s, c, copies);
  return s;
}

int64_t sig_elements(const Signature &s) {
  int64_t n = 0;
  for (const SigRun &r : s) n += r.n;
  return n;
}

int64_t sig_bytes(const Signature &s) {
  int64_t n = 0;
  for (const SigRun &r : s) n += r.n * prim_info(r.prim).size;
  return n;
}

Signature sig_slice(const Signature &s, int64_t begin, int64_t end) {
  Signature out;
  int64_t at = 0;
  for (const SigRun &r : s) {
    const int64_t a = std::max(at, begin), b = std::min(at + r.n, end);
    if (a < b) sig_append(&out, r.prim, b - a);
    at += r.n;
    if (at >= end) break;
  }
  return out;
}

int64_t sig_root(const Signature &s, Signature *root) {
  // The shortest period is a root when it divides the length.
  const std::vector<int> v = expand(s);
  const size_t n = v.size();
  if (n == 0) {
    root->clear();
    return 0;
  }
  const std::vector<size_t> pi = prefix_function(v);
  size_t p = n - pi[n - 1];
  if (n % p != 0) p = n;
  *root = sig_slice(s, 0, static_cast<int64_t>(p));
  return static_cast<int64_t>(n / p);
}

int64_t sig_repeated_prefix(const Signature &s, Signature *root) {
  const std::vector<size_t> pi = prefix_function(expand(s));
  for (size_t i = pi.size(); i >= 2; --i) {
    const size_t p = i - pi[i - 1];
    if (i % p == 0 && i / p >= 2) {
      *root = sig_slice(s, 0, static_cast<int64_t>(p));
      return static_cast<int64_t>(i / p);
    }
  }
  root->clear();
  return 0;
}

std::string describe(const Signature &s) {
  std::ostringstream o;
  for (size_t i = 0; i < s.size(); ++i) {
    o << (i ? " " : "") << prim_name(s[i].prim);
    if (s[i].n != 1) o << " x" << s[i].n;
  }
  return s.empty() ? "(empty)" : o.str();
}

}  // namespace loomtest
