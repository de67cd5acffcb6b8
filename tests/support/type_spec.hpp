// An abstract description of an MPI type tree, independent of src/core, plus
// a seeded random generator and a reference typemap interpreter written
// straight from the MPI standard's typemap definitions.  Tests compare Loom
// (and, in tests/mpi, the system MPI) against this reference, so nothing in
// here may call into Loom except to_loom().
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "loom.h"

namespace loomtest {

enum class Kind {
  Prim, Contig, Vector, Hvector, Indexed, Hindexed, IndexedBlock,
  HindexedBlock, Struct, Subarray, Darray, Resized, Dup
};

struct TypeSpec;
using TypeSpecPtr = std::shared_ptr<const TypeSpec>;

// One constructor call.  Fields are used per kind as noted; unused ones stay
// empty.  `child` is the old type of every one-child constructor.
struct TypeSpec {
  Kind kind = Kind::Prim;
  loom_prim prim = LOOM_BYTE;          // Prim
  int64_t count = 0;                   // Contig, Vector, Hvector, *Block
  int64_t blocklen = 0;                // Vector, Hvector, IndexedBlock, HindexedBlock
  int64_t stride = 0;                  // Vector (elements), Hvector (bytes)
  std::vector<int64_t> blocklens;      // Indexed, Hindexed, Struct
  std::vector<int64_t> displs;         // Indexed*, Hindexed*, Struct (elements or bytes)
  std::vector<TypeSpecPtr> types;      // Struct members
  TypeSpecPtr child;                   // old type of the other derived kinds
  // Subarray: sizes/subsizes/starts; Darray: sizes = gsizes.
  std::vector<int64_t> sizes, subsizes, starts;
  int order = LOOM_ORDER_C;            // Subarray, Darray
  int nprocs = 1, rank = 0;            // Darray
  std::vector<int> distribs, dargs, psizes;  // Darray
  int64_t lb = 0, extent = 0;          // Resized
};

// Convenience constructors for hand-written cases.
TypeSpecPtr prim(loom_prim p);
TypeSpecPtr contig(int64_t n, TypeSpecPtr c);
TypeSpecPtr vector(int64_t n, int64_t bl, int64_t stride, TypeSpecPtr c);
TypeSpecPtr hvector(int64_t n, int64_t bl, int64_t stride, TypeSpecPtr c);
TypeSpecPtr indexed(std::vector<int64_t> bl, std::vector<int64_t> d, TypeSpecPtr c);
TypeSpecPtr hindexed(std::vector<int64_t> bl, std::vector<int64_t> d, TypeSpecPtr c);
TypeSpecPtr indexed_block(int64_t bl, std::vector<int64_t> d, TypeSpecPtr c);
TypeSpecPtr hindexed_block(int64_t bl, std::vector<int64_t> d, TypeSpecPtr c);
TypeSpecPtr structure(std::vector<int64_t> bl, std::vector<int64_t> d,
                      std::vector<TypeSpecPtr> types);
TypeSpecPtr subarray(std::vector<int64_t> sizes, std::vector<int64_t> subsizes,
                     std::vector<int64_t> starts, int order, TypeSpecPtr c);
TypeSpecPtr darray(int nprocs, int rank, std::vector<int64_t> gsizes,
                   std::vector<int> distribs, std::vector<int> dargs,
                   std::vector<int> psizes, int order, TypeSpecPtr c);
TypeSpecPtr resized(TypeSpecPtr c, int64_t lb, int64_t extent);
TypeSpecPtr dup(TypeSpecPtr c);

// Size and alignment of a primitive on x86-64 Linux with gcc/gfortran, and
// its data pieces (two for pair types, which have a gap).
struct PrimInfo {
  int64_t size;       // MPI_Type_size
  int64_t extent;     // MPI_Type_get_extent (lb is 0)
  int64_t align;
  std::vector<std::pair<int64_t, int64_t>> pieces;  // (offset, length)
  int64_t ext32;      // external32 size of one element (0: none)
  std::vector<int64_t> ext32_members;  // per piece: external32 size
};
const PrimInfo &prim_info(loom_prim p);
const char *prim_name(loom_prim p);

// A piece of primitive data: byte displacement from the buffer origin and
// length.  A "piece" never straddles two primitive members.
struct Piece {
  int64_t disp;
  int64_t len;
  bool operator==(const Piece &o) const { return disp == o.disp && len == o.len; }
};

// Everything the reference knows about one instance of a type.
struct Layout {
  std::vector<Piece> pieces;  // in MPI typemap order
  int64_t size = 0;
  int64_t lb = 0, ub = 0;     // extent = ub - lb
  int64_t true_lb = 0, true_ub = 0;
  bool lb_marker = false, ub_marker = false;  // explicit (sticky) markers
  int64_t align = 1;          // max alignment of the primitives it contains
  int64_t nelems = 0;         // primitive elements (pair types count 2)
  int64_t extent() const { return ub - lb; }
  int64_t true_extent() const { return true_ub - true_lb; }
};

// The reference interpreter.  Throws std::length_error when the typemap has
// more than `max_pieces` pieces (so the generator can reject it).
Layout reference_layout(const TypeSpec &t, size_t max_pieces = 1u << 22);

// The pieces of `count` consecutive instances (instance i shifted by
// i * extent), with adjacent pieces merged when `merge` is set.
std::vector<Piece> reference_pieces(const Layout &l, int64_t count, bool merge);

// Byte range [lo, hi) that `count` instances touch relative to the buffer
// origin; lo == hi when nothing is touched.
void reference_span(const Layout &l, int64_t count, int64_t *lo, int64_t *hi);

// True when two pieces of `count` instances share a byte (unpack into such
// a layout is erroneous in MPI, so its result is not compared).
bool reference_overlaps(const Layout &l, int64_t count);

// Byte-loop pack/unpack over the pieces; `origin` is the buffer origin
// (the address MPI's buf argument would be).
std::vector<unsigned char> reference_pack(const Layout &l, int64_t count,
                                          const unsigned char *origin);
void reference_unpack(const Layout &l, int64_t count,
                      const unsigned char *packed, unsigned char *origin);

// The memory pieces that hold packed-stream bytes [begin, end) of `count`
// instances, in stream order, adjacent ones merged (what an iov generator
// must produce for that range).
std::vector<Piece> reference_stream_pieces(const Layout &l, int64_t count,
                                           int64_t begin, int64_t end);

// Unpacks only stream bytes [begin, end); `packed` is the whole stream.
void reference_unpack_range(const Layout &l, int64_t count,
                            const unsigned char *packed, int64_t begin,
                            int64_t end, unsigned char *origin);

// Random type trees.  Every tree has a bounded footprint (span of one
// instance under ~64 KiB, a few thousand pieces), so a test can afford
// thousands of them.
struct GenOptions {
  // Subarray subsizes of 0 (MPICH accepts them, Open MPI 4.1 rejects them).
  bool zero_subsizes = true;
  // Probability that a primitive is a pair type (MPI_FLOAT_INT ...
  // MPI_2INTEGER); 0 keeps the default mix, where they are rare.
  double pair_weight = 0;
  // Half the resized nodes take lb and extent in any relation to the data
  // (lb below, at or above the true lb; extent smaller, equal or larger
  // than the true extent, the size, zero, negative): the whole tree may
  // then have a negative extent.
  bool wild_resize = false;
};
TypeSpecPtr random_spec(std::mt19937_64 &rng, int max_depth,
                        const GenOptions &opt = GenOptions());

// A readable one-line rendering, enough to rebuild the type by hand.
std::string describe(const TypeSpec &t);
inline std::string describe(const TypeSpecPtr &t) { return describe(*t); }

// Builds the Loom type (uncommitted; caller frees).  Returns nullptr if any
// constructor fails; *status (optional) gets the first failing status.
loom_type to_loom(const TypeSpec &t, loom_status *status = nullptr);

// The one Loom constructor call of spec node `t`, its children already
// built: kids[0] is the old type, or kids[i] the type of struct member i.
loom_status construct(const TypeSpec &t, const loom_type *kids, loom_type *out);

}  // namespace loomtest
