// The messages of the signature test: a sender type drawn freely and a
// receiver type of another shape whose signature fits the message in a
// chosen way (equal, longer, shorter...), both built as system datatypes
// (the drop-in sees them through the MPI_Type_* calls it intercepts).
#pragma once

#include <memory>
#include <random>
#include <string>

#include "comm_test.hpp"
#include "signature.hpp"

namespace sigtest {

using namespace commtest;

// One side of a message: a committed type, its count, and what the
// reference knows about it.
struct Side {
  TypeSpecPtr spec;
  int64_t count = 0;
  MpiType mt;
  MPI_Datatype T = MPI_DATATYPE_NULL;
  Layout L;       // one instance, with the bounds the drop-in adopts
  Signature sig;  // one instance
  Side() = default;
  Side(const Side &) = delete;
  Side &operator=(const Side &) = delete;
  ~Side() { release(mt); }
  int64_t bytes() const { return count * L.size; }
  Span span() const { return span_of(T, L, count); }
  // "688 x vector(688,1,2,double_int)".
  std::string desc() const;
};
using SidePtr = std::unique_ptr<Side>;

// Builds spec as a system type (seed: to_mpi's order of commits and
// frees).  nullptr where the system refuses it or places data where the
// standard does not (tests/mpi documents those system defects).
SidePtr build(const TypeSpecPtr &spec, int64_t count, uint64_t seed);

// How the receive relates to the message (M = the sent signature).
enum class Fit {
  exact,     // count x receiver signature == M
  more,      // M, then whole receiver instances to spare
  ragged,    // M ends inside a receiver instance
  tail,      // one receiver instance: M, then other basic types
  truncate,  // count x receiver signature a strict prefix of M
  empty,     // nothing sent (count 0)
};
const char *fit_name(Fit f);
Fit draw_fit(std::mt19937_64 &rng);

// A message size in bytes: a few bytes to `max` (log-uniform, half of
// them from 4 KiB up, across the systems' 8 KiB and 64 KiB pipelines).
int64_t draw_bytes(std::mt19937_64 &rng, int64_t max);

// A sender: a random tree over every constructor (pair types frequent,
// resized in every lb/extent relation) with a count for about `target`
// bytes; sometimes the count moves into the type (vector(n,1,2,t) x 1).
// nullptr if no usable type came up.
SidePtr draw_sender(std::mt19937_64 &rng, int64_t target);

// A receiver of another shape for the message `send` makes, fitting it as
// `fit` says (exact when the message cannot be cut that way).  Its
// instances never share a byte (receives into them are defined).  nullptr
// if the system refuses every candidate.
SidePtr draw_receiver(std::mt19937_64 &rng, const Side &send, Fit fit);

// The sent signature: send.count x send.sig as root x reps.
int64_t message_root(const Side &send, Signature *root);
// The documented system defect a message between these types meets ("" if
// none), for Report::known_system_defect.
std::string system_defect(const Side &send, const Side &recv);

// True where the system cannot take part in a message of this sender's
// signature (it crashes): Open MPI 4.1.4 overruns a buffer (glibc "buffer
// overflow detected" in opal_generic_simple_unpack) receiving
// MPI_C_LONG_DOUBLE_COMPLEX into non-contiguous types: PMPI_Ssend of
// 1387 x contig(4,c_long_double_complex) into PMPI_Mrecv of 73 x
// indexed([19,4,7,8],[0,21,26,35],hvector(2,1,96,c_long_double_complex)).
// MPICH 4.0.2 reads past the send buffer of a layout with negative
// extents (AddressSanitizer in PMPI_Alltoallw; sig_case.cpp).
// No system oracle then; with --system the trial is skipped.
bool system_unsafe(const Side &send);

// "(double int) x688, 8256 bytes".
std::string describe_message(const Side &send);

}  // namespace sigtest
