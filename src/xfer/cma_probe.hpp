// What cross-memory attach costs on this machine, against the plain copies
// it would save (no MPI in here).
//
// Why: a Loom-to-Loom message replaces the transport's two copies (into its
// shared memory, out of it) by one process_vm_readv.  Whether that pays
// depends on the kernel and the virtualisation far more than on the MPI:
// measured on two 2-core VMs of this project, one read 1 MiB in one segment
// at about the speed of a memcpy and paid ~0.1 us per further segment; the
// other (a nested guest) read it at a quarter of memcpy's speed and paid
// ~0.65 us per segment, so there every Loom-to-Loom scheme lost to staging.
// Fixed thresholds cannot serve both, so the selection rules used without a
// profile take theirs from this probe (docs/tune.md).
#pragma once

#include <cstddef>
#include <string>

namespace loom {
namespace xfer {

/// The bytes the probe's long reads and copies move (1 MiB): its figures
/// hold for messages whose data sits in the caches, as that much does.
inline constexpr size_t kCmaProbeBytes = size_t(1) << 20;

/// Costs measured by measure_cma(), in nanoseconds.
struct CmaCosts {
  bool measured = false;    ///< false: the probe could not run (CMA refused...)
  double call_ns = 0;       ///< one process_vm_readv of one short segment
  double seg_ns = 0;        ///< each further segment of a call
  double byte_ns = 0;       ///< per byte read, long segments
  double copy_byte_ns = 0;  ///< per byte of a memcpy of the same size

  /// What a Loom-to-Loom read must beat per byte: the transport's two
  /// copies, with a margin for what the model leaves out (packing and
  /// synchronisation that do not overlap): 1.5 copies.
  double budget_ns() const { return 1.5 * copy_byte_ns; }
  /// Whether reading a packed stream (a few long segments) beats the
  /// transport's copies: the pipelined scheme, and contiguous messages.
  bool stream_wins() const { return measured && byte_ns < budget_ns(); }
  /// What a stream unpacked in place from the sender's shared arena costs
  /// per byte: its two copies, the sender's pack and the receiver's
  /// unpack.  They overlap on two cores, but the unpack reads what the
  /// other core just wrote and the packs start from buffers out of cache,
  /// so on the Intel Xeon VM a pipelined MiB of 4-64 KiB runs took 2.4-2.7
  /// in-cache copies per byte: two is its lower bound, which makes the rule
  /// below err towards the stream.
  double mapped_stream_ns() const { return 2 * copy_byte_ns; }
  /// The shortest mean run from which one segment per run still beats the
  /// rival stream (single copy): with the shared arena (@p mapped) the
  /// stream unpacked in place, else the transport's copies (budget_ns());
  /// 0 when never.
  double single_copy_run(bool mapped) const;
  /// One line for LOOM_VERBOSE and `loom info`.
  std::string describe(bool mapped) const;
};

/// Measures this process reading its own memory with process_vm_readv
/// (1 MiB in one segment; 64 short segments; one short segment; each the
/// fastest of a few tries) and memcpy of 1 MiB: about a millisecond.
/// Not measured (CmaCosts::measured false) when the calls are refused.
CmaCosts measure_cma() noexcept;

/// The node's measurement: the first process of this user to ask on this
/// boot measures and publishes its costs in @p dir (a file named by the
/// user and the boot id, linked into place whole, so never read half
/// written); every later one, and every one that lost the race to
/// publish, reads them.  So all processes of a node decide alike (the
/// collectives need that: every rank must choose the same scheme for a
/// block) and only one pays the probe.  Falls back to this process's own
/// measurement when @p dir cannot be used.
CmaCosts node_cma_costs(const std::string &dir = "/dev/shm") noexcept;

}  // namespace xfer
}  // namespace loom
