// Type signatures (MPI-4.0 3.3.1: the sequence of basic datatypes of a
// typemap, whatever the displacements), run-length encoded, and a generator
// of random type trees with a given signature.  A send and a receive match
// when their signatures do, so a receiver may have any shape: these let a
// test derive a receiver type of another shape from a sender type.
//
// Pair types are split into their two members, as the standard defines
// them (MPI_DOUBLE_INT is "as if" struct{double; int}, MPI_2INT is two
// ints): MPI_DOUBLE_INT matches struct{double, int} and resized pairs.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "type_spec.hpp"

namespace loomtest {

// `n` consecutive basic elements of type `prim` (a pair type only in
// signature_of(t, false)).
struct SigRun {
  loom_prim prim;
  int64_t n;
  bool operator==(const SigRun &o) const { return prim == o.prim && n == o.n; }
};
// Runs in typemap order; adjacent runs have different types.
using Signature = std::vector<SigRun>;

// The basic members of a primitive: itself, or a pair type's two members.
std::vector<loom_prim> sig_members(loom_prim p);
// The pair type whose members are (a, b); LOOM_PRIM_COUNT when none is.
loom_prim pair_of(loom_prim a, loom_prim b);

// Appends n elements of p (a basic member type), or `times` copies of t.
void sig_append(Signature *s, loom_prim p, int64_t n);
void sig_append(Signature *s, const Signature &t, int64_t times = 1);

// The signature of one instance of t; with split_pairs false, pair types
// stay one element each (as MPICH 4.0.2 treats them).
Signature signature_of(const TypeSpec &t, bool split_pairs = true);

int64_t sig_elements(const Signature &s);  // basic elements
int64_t sig_bytes(const Signature &s);     // their bytes (the type size)
// Elements [begin, end) of s.
Signature sig_slice(const Signature &s, int64_t begin, int64_t end);
// The shortest r with s == r repeated k times; returns k (1 when s is not
// a repetition; 0 when s is empty).
int64_t sig_root(const Signature &s, Signature *root);
// The longest prefix of s that is a shorter r repeated k >= 2 times:
// returns k (0 when s starts with no repetition).
int64_t sig_repeated_prefix(const Signature &s, Signature *root);
// E.g. "double int x3 char x10".
std::string describe(const Signature &s);

struct SigGenOptions {
  int max_depth = 4;     // constructor levels above the repeated units
  double resize = 0.12;  // chance that a node is wrapped in resized()
  // Chance that a struct gets explicit bounds (resized to the bounds the
  // reference gives it).  MPI implementations pad structs their own way
  // (Open MPI 4.1.4 gives some a larger extent than MPICH and the
  // reference): a struct repeated at its system extent may then run into
  // its neighbours where the reference's extent kept it clear.
  double explicit_bounds = 0.5;
};

// A random type tree whose one instance has signature s (non-empty): every
// constructor (contiguous, vector, hvector, indexed, hindexed,
// indexed_block, hindexed_block, struct, subarray in both orders, darray,
// resized with any lb/extent relation, dup) and the pair types, regrouping
// s at random: repetitions of s's primitive root become counts and block
// lengths at several levels, the rest structs, pair-type members pair
// types.  Memory-dense variants come up often (a pair or a struct{int,
// float} resized to its size).  Trees may overlap themselves (a resize
// smaller than the data): callers that receive into them check.  The
// result's signature is checked against s (std::logic_error if not).
TypeSpecPtr random_with_signature(std::mt19937_64 &rng, const Signature &s,
                                  const SigGenOptions &opt = SigGenOptions());

}  // namespace loomtest
