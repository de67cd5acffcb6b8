// Collectives with derived datatypes: the per-peer blocks of one side (send
// or receive) of a collective, and the one plan/pack/unpack helper that
// serves every variant (uniform, v, w, neighborhood).
//
// A collective moves, per peer, `count` instances of a datatype at some
// displacement of the user's buffer.  When a side's type is not contiguous
// the drop-in packs every peer's block with Loom into one staging buffer
// (blocks back to back, in peer order) and hands the system the same
// collective over MPI_BYTE with byte counts and displacements: the packed
// stream is the MPI typemap order, so peers that pass their own datatypes
// (or run without Loom) still see the bytes they expect.
#pragma once
#include "requests.hpp"

#include <cstdint>
#include <vector>

namespace loom_mpi {
namespace coll {

// Where one side's n blocks lie in the user's memory: block i is count(i)
// instances of type(i) at buf + displacement(i).
struct SideSpec {
  const void *buf = nullptr;
  int n = 0;
  int count = 0;                          // every block, unless counts is set
  const int *counts = nullptr;            // per block (v, w)
  MPI_Datatype type = MPI_DATATYPE_NULL;  // every block, unless types is set
  const MPI_Datatype *types = nullptr;    // per block (w)
  // Displacements: none (block i at i * count * extent: the uniform
  // collectives), per block in extents (v), or per block in bytes (w: int
  // for Alltoallw, MPI_Aint for Neighbor_alltoallw).
  const int *displs = nullptr;
  const MPI_Aint *adispls = nullptr;
  bool byte_displs = false;

  int count_of(int i) const { return counts ? counts[i] : count; }
  MPI_Datatype type_of(int i) const { return types ? types[i] : type; }
};

// One peer's block: Loom's view of it and its place in the staged stream.
// Side::type is borrowed from the mirror (an op takes its own reference).
struct Block {
  size_t off = 0;     // from the start of this side's staged stream
  Side side;          // side.type null: nothing to move (zero bytes)
  bool skip = false;  // not moved: MPI_IN_PLACE slot, MPI_PROC_NULL peer
};

// A staged side.
struct Staged {
  bool on = false;  // staged; otherwise the user's arguments go as they are
  std::vector<Block> blocks;
  size_t total = 0;      // packed bytes of all blocks (<= INT_MAX)
  int64_t each = 0;      // bytes of one block (uniform sides: the wire count)
  char *data = nullptr;  // this side's part of the staging buffer
};

// Decides about one side: sets out->on and the blocks when Loom should
// stage it.  Returns MPI_SUCCESS, or MPI_ERR_TYPE for a datatype the
// program already freed (it must not reach the system).  A side is left to
// the system, unchanged, when its types are contiguous or declined by
// Loom, when the system must judge an argument (negative count, null
// buffer, uncommitted type), or when it holds more than INT_MAX bytes.
// Blocks with a zero count are never looked at.
int plan_side(const SideSpec &s, Staged *out);

// True when t is known to need nothing from Loom: a lock-free lookup that
// never asks the system, so it is safe on arguments a call ignores.
inline bool known_pass(MPI_Datatype t) {
  const Mirror *m = find(t);
  return m && (m->contig || !m->type);
}

// Packs the blocks not marked skip (or only block `only`, when >= 0) into
// s.data; unpacks the blocks not marked skip from it.  MPI_SUCCESS or the
// class of Loom's failure.
int pack_blocks(const Staged &s, int only = -1);
int unpack_blocks(const Staged &s);

// Wire arguments of a staged side: per block byte counts and byte
// displacements into s.data (they fit in int: plan_side keeps totals at or
// below INT_MAX).
void wire_counts(const Staged &s, std::vector<int> *counts);
void wire_displs(const Staged &s, std::vector<int> *displs);
void wire_displs(const Staged &s, std::vector<MPI_Aint> *displs);

// The datatype of staged byte streams.
inline MPI_Datatype wire_type() { return MPI_BYTE; }

}  // namespace coll
}  // namespace loom_mpi
