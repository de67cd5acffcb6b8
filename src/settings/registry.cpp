// The registry: every setting Loom reads, with its default and range.
// docs/settings.md is generated from this table (`loom info --markdown`).
#include "settings.hpp"

#include "isa_names.hpp"
#include "scheme_id.hpp"

namespace loom {
namespace settings {
namespace {

constexpr int64_t K = int64_t(1) << 10;
constexpr int64_t M = int64_t(1) << 20;
constexpr int64_t G = int64_t(1) << 30;
constexpr int64_t T = int64_t(1) << 40;

// A choice setting's names: auto, then `names` (LOOM_SCHEME: every scheme,
// src/xfer/scheme_id.hpp; LOOM_ISA: every instruction set,
// src/core/isa_names.hpp).
template <size_t N>
std::vector<std::string> auto_then(const char *const (&names)[N]) {
  std::vector<std::string> v{"auto"};
  for (const char *name : names) v.push_back(name);
  return v;
}

}  // namespace

const std::vector<Spec> &registry() {
  // Never destroyed: the drop-in may read settings from atexit handlers.
  static const std::vector<Spec> *specs = new std::vector<Spec>{
      {Id::verbose, "LOOM_VERBOSE", Type::boolean, 0, 0, 0, 1,
       "notes on stderr about what the drop-in does, each line tagged "
       "loom[rank] (loom[pid N] outside MPI_Init..MPI_Finalize)",
       nullptr, 1},
      {Id::p2p, "LOOM_P2P", Type::boolean, 1, 1, 0, 1,
       "Loom moves the derived-datatype messages of point-to-point calls and "
       "collectives; off: all of them take the system MPI's own path (the "
       "MPI_Pack family stays Loom's)",
       nullptr, 1},
      {Id::scheme, "LOOM_SCHEME", Type::choice, 0, 0, 0,
       (int64_t)xfer::kSchemeCount,
       "how the drop-in moves derived-datatype messages: auto (the profile's "
       "fastest, docs/tune.md) or one scheme, used wherever it can carry the "
       "message (elsewhere auto decides); contiguous messages to a Loom peer "
       "are read in place under single_copy and per_block, left to the system "
       "under the others",
       nullptr, 1, auto_then(xfer::kSchemeNames)},
      {Id::profile, "LOOM_PROFILE", Type::path, 0, 0, 0, 0,
       "the measured profile (`loom tune`) that scheme selection reads; unset: "
       "$XDG_CONFIG_HOME/loom/profile-FLAVOR.json, else "
       "~/.config/loom/profile-FLAVOR.json, else the LOOM_SYSTEM_* rules; "
       "none: the rules",
       nullptr, 1},
      // Measured in `loom bench p2p`: from runs of 512 B the system path
      // beats staging on both MPIs.
      {Id::system_run, "LOOM_SYSTEM_RUN", Type::size, 512, 512, 0, T,
       "without a profile: mean contiguous run from which a single-primitive "
       "layout takes the system MPI's datatype path instead of Loom's "
       "staging; 0: never",
       nullptr, 1},
      // Where the systems' datatype paths start to beat staging.  MPICH
      // 4.0.2's costs 2-4x a loop up to its eager limit, 8 KiB included (a
      // round trip of 8192 bytes in 512 B runs: 22 us, staged 5.8; of 8704
      // bytes: 10.3, staged 10.2), and slows down again beyond a few MiB.
      // Open MPI 4.1.4's (Intel Xeon VM, 2026-11-29, round trips with
      // gaps as long as the runs): up to 16 KiB it loses or ties at every
      // run length (512 B runs: 1 KiB 2.6-2.8 us against staged 2.3-2.6,
      // 8 KiB 10.7 against 8.0-8.2); at 32 KiB it loses with 512 B runs
      // (22-27 us against 21-23; a 64^3 halo face of Neighbor_alltoallw
      // 15 against 13) and wins with 2 KiB runs and longer (20.5 against
      // 21.8; 16 KiB runs 17.7 against 22); from 64 KiB it wins with
      // 512 B runs too (32-35 against 35-36; 128 KiB 45-49 against 55).
      {Id::system_min, "LOOM_SYSTEM_MIN", Type::size, 8 * K + 1, 32 * K + 1, 0, T,
       "without a profile: smallest message that may take the system MPI's "
       "datatype path",
       nullptr, 1},
      {Id::system_max, "LOOM_SYSTEM_MAX", Type::size, 4 * M, T, 0, T,
       "without a profile: largest message that may take the system MPI's "
       "datatype path",
       nullptr, 1},
      // Large enough that the messages where staging costs most (MiBs, a
      // page fault per 4 KiB of a fresh buffer) are pooled; the pool has
      // no size class above 1 GiB.
      {Id::staging_max, "LOOM_STAGING_MAX", Type::size, 32 * M, 32 * M, 0, G,
       "largest staging buffer kept for reuse; larger ones are allocated "
       "for their message and freed after it",
       "LOOM_STAGING_MAX_MB", M},
      {Id::staging_cache, "LOOM_STAGING_CACHE", Type::size, 128 * M, 128 * M, 0, T,
       "idle staging memory kept for reuse, all buffers together (besides "
       "it, each thread keeps up to 432 KiB of small buffers of its own, and a 16 KiB bounce for blocking calls)",
       "LOOM_STAGING_CACHE_MB", M},
      // docs/protocol.md.  Off is the declared switch for jobs whose Loom
      // processes also receive through PMPI_ directly.
      {Id::l2l, "LOOM_L2L", Type::boolean, 1, 1, 0, 1,
       "Loom-to-Loom protocol between Loom processes on one node (the "
       "receiver pulls the data with cross-memory attach); off: staged or "
       "system path only",
       nullptr, 1},
      // Just above each system's on-node eager limit, where its own
      // transfer turns into a rendezvous (MPICH 4.0.2: a contiguous round
      // trip of 8 KiB takes 0.78 us, of 9 KiB 5.46; Open MPI 4.1's vader
      // eager limit is 4 KiB, header included) and a Loom-to-Loom stream,
      // one small message and a pack overlapping an unpack, wins: measured
      // on vectors of 8 B to 512 B runs and 2 to 32 KiB (docs/results.md).
      {Id::l2l_min, "LOOM_L2L_MIN", Type::size, 8 * K + 1, 4 * K, 0, T,
       "smallest non-contiguous message sent Loom-to-Loom when no profile "
       "says otherwise (the default: just above the system's on-node eager "
       "limit); contiguous ones: from 16 times this when set, else at the "
       "sizes where the profile's contiguous rows found reading in place "
       "faster, else from 256K; where the cross-memory attach probe finds "
       "reads slower than the transport's copies, no contiguous ones and, "
       "without the shared arena, 1M (MPICH) / 8M (Open MPI) unless set "
       "(docs/tune.md)",
       nullptr, 1},
      // Long enough for a receiver already waiting to start its pull (a few
      // microseconds), short enough that a late receiver costs the sender
      // little more than the pack it then does.
      {Id::l2l_grace, "LOOM_L2L_GRACE", Type::size, 50, 50, 0, 1000000,
       "microseconds a blocking or Wait-completed Loom-to-Loom send waits "
       "for the receiver's pull before it packs its data and completes",
       nullptr, 1},
      // Cross-memory attach pays a page walk per remote run; below a few
      // KiB per run packing and reading the packed stream is cheaper.
      {Id::l2l_run, "LOOM_L2L_RUN", Type::size, 4 * K, 4 * K, 0, T,
       "mean run of the sender's layout from which a Loom-to-Loom message "
       "is read in place (single copy); shorter runs are packed by the "
       "sender and read packed, pipelined; unset: this default or the "
       "longer run from which the probe finds single copy paying",
       nullptr, 1},
      // A Loom-to-Loom collective pays a second synchronisation (every
      // rank waits for its blocks' pulls).  Measured on the 2-core VM, 2
      // ranks, both MPIs (loom bench coll and a Bcast/Gather/Scatter/
      // Allgather sweep of vectors with 8 and 512-byte runs, 2026-11-23,
      // load 1.5): with every block at least 32 KiB Loom-to-Loom the 32-128
      // KiB halo faces took 1.1-1.4x their staged time; 256 KiB blocks
      // (FFT2D 256, the rooted sweep) ran 0.7-1.05x staged, 1-4 MiB blocks
      // 0.5-1.0x (Open MPI's system path stays ahead for 512-byte runs in
      // Bcast and Allgather: 1.3-1.8x).  With the shared arena (2026-11-27,
      // AMD EPYC VM, two launches each way) 32 KiB blocks pay on MPICH,
      // whose own transfer of a staged block is a rendezvous above 8 KiB:
      // the 32 and 128 KiB halo faces took 0.61-0.76x their time at the
      // 256 KiB default (3D halo over hand 1.14-1.16 -> 0.76-0.77), as
      // `loom tune`'s collective sweep had found (crossover 31.6 KiB); on
      // Open MPI the x and y faces gained 5-10% and the 64^3 z face lost
      // 47% (8.3 -> 12.4 us), so its default stays.
      {Id::l2l_coll_min, "LOOM_L2L_COLL_MIN", Type::size, 32 * K, 256 * K, 0, T,
       "smallest block a collective moves Loom-to-Loom (every rank decides "
       "alike from the block size); smaller blocks are staged.  Unset: the "
       "crossover loom tune measured into the profile, else this default "
       "(without the shared arena: never where the cross-memory attach probe "
       "finds reads slower than copies)",
       nullptr, 1},
      // Address space, not memory: pages are reserved as the sender's
      // high-water mark of packed copies in flight rises (docs/protocol.md,
      // "Packed copies in the shared arena").  64 MiB holds the copies of
      // a window of large messages; larger copies go to staging.
      {Id::l2l_arena, "LOOM_L2L_ARENA", Type::size, 64 * M, 64 * M, 0, 64 * G,
       "shared memory per Loom process for the packed copies of its "
       "Loom-to-Loom messages, which receivers unpack in place instead of "
       "reading them with cross-memory attach (reserved as used); 0: no "
       "arena, packed copies in private staging",
       nullptr, 1},
      {Id::cma, "LOOM_CMA", Type::boolean, 1, 1, 0, 1,
       "cross-memory attach (process_vm_readv) may be used; off: treated as "
       "refused (tests the fallback)",
       nullptr, 1},
      // Opt-in: the threads come from the process's own cores, which an MPI
      // job usually fills with one rank each.
      {Id::threads, "LOOM_THREADS", Type::size, 1, 1, 0, 256,
       "threads that pack and unpack one large message (MPI_Pack/MPI_Unpack "
       "and staged messages; checkpoint-parallel, docs/dropin.md): 1 one "
       "thread; N at most N, one per MiB of the message; 0 Loom chooses "
       "per layout from its own timed calls (loom.h, loom_pack_parallel), "
       "at most one per MiB up to the machine's hardware threads",
       nullptr, 1},
      // Read by the engine itself (src/core/isa.cpp), once, before the
      // first plan is built; here so that it is checked and documented.
      {Id::isa, "LOOM_ISA", Type::choice, 0, 0, 0, (int64_t)kIsaCount,
       "instruction set of the pack and unpack kernels: auto (the widest "
       "this CPU runs) or a narrower one for comparisons; a set the CPU "
       "cannot run means auto (`loom info` shows the one in effect)",
       nullptr, 1, auto_then(kIsaNames)},
      // Read by the engine itself (src/core/jit_moves.cpp), as LOOM_ISA.
      {Id::jit, "LOOM_JIT", Type::boolean, 1, 1, 0, 1,
       "small repeating patterns get pack and unpack loops compiled for "
       "them when their plan is built (machine code with the offsets built "
       "in, x86-64; docs/architecture.md); off: the table-driven kernels "
       "only (for systems that forbid executable memory, and comparisons)",
       nullptr, 1},
  };
  return *specs;
}

const Spec &spec(Id id) { return registry()[(size_t)id]; }

}  // namespace settings
}  // namespace loom
