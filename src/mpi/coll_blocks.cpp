// Planning, packing and unpacking the per-peer blocks of a collective side.
#include "coll_blocks.hpp"

#include "wire.hpp"

#include <climits>

namespace loom_mpi {
namespace coll {
namespace {

// Byte displacement of block i from the side's buffer; false on overflow.
bool displ_of(const SideSpec &s, int i, int64_t extent, int64_t *d) {
  if (s.adispls) {
    *d = s.adispls[i];
    return true;
  }
  if (s.displs && s.byte_displs) {
    *d = s.displs[i];
    return true;
  }
  if (s.displs) return !__builtin_mul_overflow((int64_t)s.displs[i], extent, d);
  int64_t k;
  return !__builtin_mul_overflow((int64_t)i, (int64_t)s.count, &k) &&
         !__builtin_mul_overflow(k, extent, d);
}

// A contiguous block inside a side that is staged anyway (a w variant mixing
// contiguous and non-contiguous types): packing it is one memcpy.  False
// when the system must judge it (null buffer, more than INT_MAX bytes).
bool contig_side(const void *addr, int64_t count, const Mirror &m, Side *s) {
  int64_t bytes;
  if (__builtin_mul_overflow(count, m.size, &bytes) || bytes > INT_MAX) return false;
  if (bytes == 0) return true;  // s->type stays null: nothing to move
  if (bad_null(m, addr)) return false;
  loom_type t;
  const void *base;
  if (!user_base(m, addr, &t, &base)) return false;
  *s = Side{t, const_cast<void *>(base), count, (size_t)bytes};
  return true;
}

int leave(Staged *out) {
  out->on = out->direct = false;
  out->blocks.clear();
  return MPI_SUCCESS;
}

// A receive side whose blocks are all memory-contiguous, some of a type the
// system may not see as contiguous: the wire arguments address the user's
// runs.  One-type sides: data is the buffer plus the type's true lb, and
// the blocks keep their offsets in the type's size (its extent).  w sides:
// data is the buffer, blocks go as MPI_BYTE at byte offsets that include
// each type's true lb (int-sized, as Alltoallw's displacements).
int go_direct(const SideSpec &s, int64_t unit, int64_t true_lb, Staged *out) {
  for (Block &b : out->blocks) {
    b.side.type = nullptr;  // nothing to pack or unpack
    const int64_t off = (int64_t)b.off;  // may be negative (a true lb below 0)
    if (s.types && b.side.bytes && (off < INT_MIN || off > INT_MAX)) return leave(out);
  }
  if (s.types) {
    out->unit = 1;
    out->wtype = MPI_BYTE;
    true_lb = 0;
  } else {
    out->unit = unit;
    out->wtype = unit_type(unit);
    if (out->wtype == MPI_DATATYPE_NULL) return leave(out);
  }
  out->on = out->direct = true;
  out->total = 0;
  out->data = reinterpret_cast<char *>((uintptr_t)s.buf + (uintptr_t)true_lb);
  return MPI_SUCCESS;
}

}  // namespace

int plan_side(const SideSpec &s, bool recv, Staged *out) {
  out->on = out->direct = false;
  out->total = 0;
  out->unit = 1;
  out->wtype = MPI_BYTE;
  if (s.n <= 0) {
    out->blocks.clear();
    return MPI_SUCCESS;
  }
  int64_t unit = 0;     // one-type sides: the type's size
  int64_t true_lb = 0;  // one-type sides: the type's true lb
  out->blocks.assign((size_t)s.n, Block());
  bool loom_needed = false;   // a non-contiguous block: stage the side
  bool bytes_needed = false;  // a receive block that must go as bytes
  size_t total = 0;
  for (int i = 0; i < s.n; ++i) {
    Block &b = out->blocks[(size_t)i];
    b.off = total;
    const int count = s.count_of(i);
    if (count == 0) continue;
    if (count < 0) return leave(out);
    const bool proc_null = s.peer_of(i) == MPI_PROC_NULL;
    if (proc_null && s.counts) {
      b.skip = true;  // nothing of it on the wire: a count of 0 there
      continue;
    }
    b.skip = proc_null;
    const MPI_Datatype dt = s.type_of(i);
    const Mirror *m = find(dt);
    if (!m) {
      switch (resolve(dt, &m)) {
        case Resolved::freed: leave(out); return MPI_ERR_TYPE;
        case Resolved::bad_type: return leave(out);
        default: break;
      }
    }
    // Declined types, and one contiguous type for the whole side that the
    // system receives as it is, go to the system as they are.
    if (!m->type || (m->contig && !s.types && (!recv || m->native_contig))) return leave(out);
    if (!s.types) {
      unit = m->size;
      true_lb = m->true_lb;
    }
    int64_t d;
    if (!displ_of(s, i, m->extent, &d)) return leave(out);
    // Integer arithmetic: with MPI_BOTTOM the displacement is the address.
    const void *addr = reinterpret_cast<const void *>((uintptr_t)s.buf + (uintptr_t)d);
    if (m->contig) {
      if (!contig_side(addr, count, *m, &b.side)) return leave(out);
      bytes_needed = bytes_needed || (recv && !m->native_contig);
      if (!loom_needed) b.off = s.types ? d + m->true_lb : d;  // for go_direct
    } else {
      // The side is one system call: staged if any block is better staged,
      // then every block is (a long-run block costs Loom a memcpy-like pack).
      int rc = classify(addr, count, dt, &b.side, Use::staged);
      if (rc != MPI_SUCCESS) {
        leave(out);
        return rc;
      }
      if (!b.side.type) return leave(out);
      b.system = prefer_system(*m, b.side.bytes);
      if (!loom_needed) {
        // Blocks so far were laid out for go_direct: back to stream offsets.
        size_t off = 0;
        for (int j = 0; j < i; ++j) {
          out->blocks[(size_t)j].off = off;
          off += out->blocks[(size_t)j].side.bytes;
        }
        b.off = off;
      }
      loom_needed = true;
    }
    total += b.side.bytes;
    if (total > (size_t)INT_MAX) return leave(out);
  }
  if (!loom_needed) return bytes_needed ? go_direct(s, unit, true_lb, out) : leave(out);
  if (unit > 1) {
    out->wtype = unit_type(unit);
    if (out->wtype == MPI_DATATYPE_NULL) return leave(out);
    out->unit = unit;
  }
  out->on = true;
  out->total = total;
  drop_if_system(out);
  return MPI_SUCCESS;
}

void drop_if_system(Staged *s) {
  if (!s->on || s->direct) return;
  for (const Block &b : s->blocks)
    if (!b.skip && b.side.type && !b.system) return;
  leave(s);
}

void Staged::make_wire(bool types, bool aint_displs) {
  const size_t n = blocks.size();
  wcounts.resize(n);
  if (aint_displs)
    wadispls.resize(n);
  else
    wdispls.resize(n);
  // Every block is a whole number of units: the counts are the program's.
  for (size_t i = 0; i < n; ++i) {
    wcounts[i] = (int)((int64_t)blocks[i].side.bytes / unit);
    if (aint_displs)
      wadispls[i] = (MPI_Aint)((int64_t)blocks[i].off / unit);
    else
      wdispls[i] = (int)((int64_t)blocks[i].off / unit);
  }
  if (types) wtypes.assign(n, wtype);
}

int pack_blocks(const Staged &s, int only) {
  for (size_t i = 0; i < s.blocks.size(); ++i) {
    const Block &b = s.blocks[i];
    if (b.skip || !b.side.type || (only >= 0 && (size_t)only != i)) continue;
    int rc = pack_side(b.side, s.data + b.off);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int unpack_blocks(const Staged &s) {
  for (const Block &b : s.blocks) {
    if (b.skip || !b.side.type) continue;
    int rc = unpack_side(b.side, s.data + b.off, 0, b.side.bytes);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

bool l2l_may_fit(const SideSpec &s) {
  if (!s.types && !s.counts && !s.peers)
    return s.n > 0 && l2l::coll_block_may_fit(s.count, s.type);
  for (int i = 0; i < s.n; ++i) {
    if (s.peer_of(i) == MPI_PROC_NULL) continue;
    const int count = s.count_of(i);
    if (count != 0 && l2l::coll_block_may_fit(count, s.type_of(i))) return true;
  }
  return false;
}

bool l2l_blocks(const SideSpec &s, std::vector<l2l::CollBlock> *out) {
  out->clear();
  out->reserve((size_t)s.n);
  for (int i = 0; i < s.n; ++i) {
    const int count = s.count_of(i);
    const MPI_Datatype t = s.type_of(i);
    intptr_t disp = 0;
    if (s.byte_displs) {
      disp = s.adispls ? (intptr_t)s.adispls[i] : (intptr_t)s.displs[i];
    } else if (count != 0) {
      const Mirror *m = find(t);
      if (!m && resolve(t, &m) != Resolved::ok) return false;
      disp = (intptr_t)(s.displs ? (int64_t)s.displs[i] : (int64_t)i * count) * m->extent;
    }
    out->push_back(l2l::CollBlock{s.peer_of(i),
                                  (uintptr_t)s.buf + (uintptr_t)disp, count, t});
  }
  return true;
}

}  // namespace coll
}  // namespace loom_mpi
