// Collectives with derived datatypes: the per-peer blocks of one side (send
// or receive) of a collective, and the one plan/pack/unpack helper that
// serves every variant (uniform, v, w, neighborhood).
//
// A collective moves, per peer, `count` instances of a datatype at some
// displacement of the user's buffer.  When a side's type is not contiguous
// the drop-in packs every peer's block with Loom into one staging buffer
// (blocks back to back, in peer order) and hands the system the same
// collective over contiguous bytes (wire.hpp: elements of the type's
// size, or MPI_BYTE with byte counts and displacements for the w
// variants): the packed stream is the MPI typemap order, so peers that pass
// their own datatypes (or run without Loom) still see the bytes they expect.
#pragma once
#include "l2l_coll.hpp"
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
  // Block i's peer (null: rank i).  Blocks of MPI_PROC_NULL peers (a
  // non-periodic cartesian edge) move nothing: the standard leaves those
  // receive blocks untouched.
  const int *peers = nullptr;

  int count_of(int i) const { return counts ? counts[i] : count; }
  MPI_Datatype type_of(int i) const { return types ? types[i] : type; }
  int peer_of(int i) const { return peers ? peers[i] : i; }
};

// The shapes of per-peer blocks: one count and type for all (uniform),
// per-peer counts and displacements in extents (v), or per-peer counts,
// byte displacements and types (w).
enum class Variant { uniform, v, w };

// A side as the program passed it (displs: int; adispls: MPI_Aint, only
// Neighbor_alltoallw; peers: SideSpec::peers).
inline SideSpec make_side(const void *buf, int n, Variant var, int count,
                          const int *counts, const int *displs, const MPI_Aint *adispls,
                          MPI_Datatype type, const MPI_Datatype *types,
                          const int *peers = nullptr) {
  SideSpec s;
  s.peers = peers;
  s.buf = buf;
  s.n = n;
  s.count = count;
  s.type = type;
  if (var != Variant::uniform) {
    s.counts = counts;
    s.displs = displs;
    s.adispls = adispls;
  }
  if (var == Variant::w) {
    s.types = types;
    s.byte_displs = true;
  }
  return s;
}

// One peer's block: Loom's view of it and its place in the staged stream.
// Side::type is borrowed from the mirror (an op takes its own reference).
struct Block {
  size_t off = 0;     // from the start of this side's staged stream
  Side side;          // side.type null: nothing to move (zero bytes)
  bool skip = false;  // not moved: MPI_IN_PLACE slot, MPI_PROC_NULL peer
  bool system = false;  // the system's datatype path would serve it (scheme.hpp)
};

// A staged side, with the wire arguments handed to the system in its place
// (they live as long as the call: a nonblocking collective may read them
// until it completes).  Blocks go as `unit` elements of `unit` bytes (see
// wire.hpp): the type's size for one-type sides, so wire counts equal
// the program's counts; 1 (MPI_BYTE) for the w variants.
struct Staged {
  bool on = false;  // staged; otherwise the user's arguments go as they are
  // With on: a receive side of memory-contiguous types the system may not
  // see as contiguous (Mirror::native_contig): the wire arguments point at
  // the user's runs (data = the buffer, plus the true lb for one-type
  // sides), blocks have no Loom side, nothing is staged or unpacked.
  bool direct = false;
  std::vector<Block> blocks;
  size_t total = 0;      // packed bytes of all blocks (<= INT_MAX)
  int64_t unit = 1;      // bytes per wire element
  MPI_Datatype wtype = MPI_BYTE;
  char *data = nullptr;  // this side's part of the staging buffer
  std::vector<int> wcounts, wdispls;
  std::vector<MPI_Aint> wadispls;
  std::vector<MPI_Datatype> wtypes;

  // Builds the per-block wire arrays: counts and displacements into data in
  // units (int, or MPI_Aint bytes for Neighbor_alltoallw), and the wire
  // type per block when `types` (the w variants).
  void make_wire(bool types, bool aint_displs);

  // The argument to hand the system: the wire form when staged, else the
  // user's own.  Counts of one-type sides are the program's either way.
  void *buf(const void *user) const { return const_cast<void *>(on ? data : user); }
  MPI_Datatype type(MPI_Datatype user) const { return on ? wtype : user; }
  const int *counts(const int *user) const { return on ? wcounts.data() : user; }
  const int *displs(const int *user) const { return on ? wdispls.data() : user; }
  const MPI_Aint *displs(const MPI_Aint *user) const { return on ? wadispls.data() : user; }
  const MPI_Datatype *types(const MPI_Datatype *user) const {
    return on ? wtypes.data() : user;
  }
};

// Decides about one side (`recv`: a receive side): sets out->on and the
// blocks when Loom should stage it, or out->direct too for receive sides
// that go as bytes.  Returns MPI_SUCCESS, or MPI_ERR_TYPE for a datatype the
// program already freed (it must not reach the system).  A side is left to
// the system, unchanged, when its types are contiguous or declined by
// Loom, when the system must judge an argument (negative count, null
// buffer, uncommitted type), or when it holds more than INT_MAX bytes.
// Blocks with a zero count are never looked at, nor are the blocks of
// MPI_PROC_NULL peers where blocks have counts of their own (v, w: uniform
// sides keep every block's place in the stream); those blocks are marked
// skip.
int plan_side(const SideSpec &s, bool recv, Staged *out);
// Hands a staged side back to the system (unchanged) when every block it
// would move is one the system's datatype path serves better; plan_side
// applies it, callers again after marking blocks skipped.
void drop_if_system(Staged *s);

// True when t is known to need nothing from Loom on either side: a
// lock-free lookup that never asks the system, so it is safe on arguments a
// call ignores.
inline bool known_pass(MPI_Datatype t) {
  const Mirror *m = find(t);
  return m && (!m->type || m->native_contig);
}

// known_pass for every block of a w side with a nonzero count.
inline bool all_known_pass(const MPI_Datatype *types, const int *counts, int n) {
  for (int i = 0; i < n; ++i)
    if (counts[i] != 0 && !known_pass(types[i])) return false;
  return true;
}

// Packs the blocks not marked skip (or only block `only`, when >= 0) into
// s.data; unpacks the blocks not marked skip from it.  MPI_SUCCESS or the
// class of Loom's failure.
int pack_blocks(const Staged &s, int only = -1);
int unpack_blocks(const Staged &s);

// Whether a block of s that moves (a peer other than MPI_PROC_NULL, a
// nonzero count) may be large enough for the Loom-to-Loom exchange
// (l2l::coll_block_may_fit).  When no block of either side may, the
// exchange would fall back: callers skip building its blocks.
bool l2l_may_fit(const SideSpec &s);

// The blocks of side s for the Loom-to-Loom exchange (l2l_coll.hpp): block
// i with its peer, at the user's buffer plus its displacement.  False when
// a displacement needs an extent Loom does not know (the type is left to
// the system to judge).
bool l2l_blocks(const SideSpec &s, std::vector<l2l::CollBlock> *out);

}  // namespace coll
}  // namespace loom_mpi
