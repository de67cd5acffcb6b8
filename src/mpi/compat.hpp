// Per-ABI switches for the drop-in layer.  The same sources compile against
// MPICH 4.0.2 and Open MPI 4.1.4; everything that differs between the two
// headers is decided here, once.
#pragma once
#include <mpi.h>
#include <cstdint>

// MPI-4 headers (MPICH 4.x) declare the large-count "_c" entry points and the
// _c forms of get_envelope/get_contents; Open MPI 4.1 (MPI-3.1) has neither.
#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define LOOM_MPI_HAVE_LARGE_COUNT 1
#else
#define LOOM_MPI_HAVE_LARGE_COUNT 0
#endif

// MPI_LB/MPI_UB: MPICH still defines them as real handles; Open MPI 4.1 turns
// them into a static_assert unless built with MPI-1 compatibility.
#if defined(MPICH) && defined(MPI_LB) && defined(MPI_UB)
#define LOOM_MPI_HAVE_LB_UB 1
#else
#define LOOM_MPI_HAVE_LB_UB 0
#endif

// The replaced MPI entry points.  Everything else is compiled hidden, and
// MPICH's header does not mark its prototypes visible (Open MPI's does), so
// the definitions say it themselves; exports.map then keeps only MPI_*.
#define LOOM_MPI_EXPORT extern "C" __attribute__((visibility("default")))

namespace loom_mpi {

// Error classes of the MPI_Pack family where the standard leaves the class
// open: the drop-in answers what the system MPI answers (measured with
// PMPI calls on MPICH 4.0.2 and Open MPI 4.1.4).  A null packed buffer is
// MPI_ERR_ARG on both.  A null user (typed) buffer is MPI_ERR_ARG on MPICH
// and MPI_ERR_BUFFER on Open MPI.  A position past the end of the buffer,
// or too little room, is MPI_ERR_TRUNCATE on Open MPI; MPICH checks neither
// (it writes past the buffer), so the drop-in answers Open MPI's class there.
#if defined(MPICH)
constexpr int kErrNullUserBuffer = MPI_ERR_ARG;
#else
constexpr int kErrNullUserBuffer = MPI_ERR_BUFFER;
#endif

// MPI_Pack_size of an uncommitted type: MPICH 4.0.2 raises MPI_ERR_TYPE,
// Open MPI 4.1.4 crashes (so the drop-in answers count * size for it).
#if defined(MPICH)
constexpr bool kSystemRejectsUncommittedPackSize = true;
#else
constexpr bool kSystemRejectsUncommittedPackSize = false;
#endif

// Whether a receive the system truncates may be written past its buffer.
// Open MPI 4.1.4 does (vader's single copy: a message over the eager limit
// into a contiguous buffer is copied whole, MPI_ERR_TRUNCATE reported after
// the fact); MPICH 4.0.2 writes only the buffer.  Staging that the drop-in
// posts receives into then ends at an inaccessible page (StagingPool's
// guard_pages), where such a copy fails instead of overwriting memory.
#if defined(MPICH)
constexpr bool kSystemOverfillsTruncatedReceives = false;
#else
constexpr bool kSystemOverfillsTruncatedReceives = true;
#endif

// Whether the system's nonblocking all-to-alls with MPI_IN_PLACE may move
// the wrong bytes for derived types.  Open MPI 4.1.4 does: MPI_Ialltoallv
// in place of indexed_block(1,[-4],struct([3,3,3],[-12,3732,3736],
// [contig(12,vector(4,5,7,float)),char,short])) differs from a packed
// exchange of the same blocks in 4 or more of 50 random count and
// displacement sets (blocking in place, and MPI_INT, right); MPICH 4.0.2
// right in all.  Loom then sends the blocks apart from where it receives.
#if defined(MPICH)
constexpr bool kSystemNonblockingInPlaceAlltoallWrong = false;
#else
constexpr bool kSystemNonblockingInPlaceAlltoallWrong = true;
#endif

// Handles are ints in MPICH and pointers in Open MPI; the cache keys on the
// bit pattern, which is what identifies a live handle in both.
inline uintptr_t handle_key(MPI_Datatype t) {
  return (uintptr_t)t;
}

// The byte count and the cancel flag a completed receive's status holds,
// read from the fields each header declares (MPICH: the count split over
// count_lo and the high bits of count_hi_and_cancelled, whose bit 0 is the
// flag; Open MPI: _ucount and _cancelled).  The same values as
// PMPI_Get_elements_x(st, MPI_BYTE) and PMPI_Test_cancelled, without two
// calls into the system on every receive Loom completes.
#if defined(MPICH)
inline MPI_Count status_bytes(const MPI_Status &st) {
  const uint64_t hi = (uint64_t)((unsigned)st.count_hi_and_cancelled >> 1);
  return (MPI_Count)((hi << 32) + (unsigned)st.count_lo);
}
inline bool status_cancelled(const MPI_Status &st) { return st.count_hi_and_cancelled & 1; }
#else
inline MPI_Count status_bytes(const MPI_Status &st) { return (MPI_Count)st._ucount; }
inline bool status_cancelled(const MPI_Status &st) { return st._cancelled != 0; }
#endif

}  // namespace loom_mpi
