// One message's bytes moved by one transfer scheme, as a resumable state
// machine (no MPI in here).
//
// Every scheme in which Loom itself moves the bytes of a message is a
// Transfer: made from what it needs (the two sides, the peer process, a
// staging pool), then started (its preparation: iovec walks, a bounce
// buffer), stepped until it is complete, or cancelled.  A step does a
// bounded amount of work (about one chunk, kChunk) and never waits: where
// the bytes are not there yet (a sender still packing) it says `blocked`,
// so that whoever drives it (a completion call, the library's progress
// function, a later progress thread) may do other work and come back.
// What surrounds a transfer (who may start it, what happens when it fails,
// releasing the peer) is the protocol's, in the MPI layer.
//
//   inactive --start()--> running --step()...--> complete
//                            |                    (moved() == length())
//                            +--> failed          (error() says why)
//   any state --cancel()--> cancelled              (holds nothing more)
//
// The schemes (scheme_id.hpp) and their transfers:
//   single_copy   LayoutRead: the receiver reads the sender's layout straight
//                 into its own, IOV_MAX entries per process_vm_readv;
//   per_block     LayoutRead, one remote run per call (the Multi-W analog);
//   pipelined     StreamPack at the sender, StreamRead at the receiver: the
//                 receiver reads the packed stream as far as the sender has
//                 published it, while the sender packs the next chunk; a
//                 MappedRead instead where the stream lies in memory the
//                 receiver maps (the sender's shared arena);
//   staged        Loom's pack and unpack around one system message (the MPI
//                 layer's requests.hpp); a Loom-to-Loom sender that gave up
//                 waiting for its receiver packs a copy likewise, which the
//                 receiver takes as a StreamRead of a stream published whole;
//   system        none: the system MPI moves the bytes with its own engine.
// A receiver whose own runs are short on average (below kBounceRun) takes
// the bytes through an L2-sized bounce and Loom's unpack instead of one
// iovec entry per run: the kernel's cost per segment would outweigh a
// second pass over the bytes.
//
// Preparation and cost: select.hpp predicts each scheme's time from the
// machine's profile (needs_no_preparation in scheme_id.hpp says which may
// carry a layout's first message).
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cma.hpp"
#include "iov_pair.hpp"
#include "staging_pool.hpp"

namespace loom {
namespace xfer {

/// Stream bytes one step moves at most (through a bounce: its size, which
/// stays in L2).
inline constexpr size_t kChunk = size_t(256) << 10;
/// Mean local run below which a receiver goes through a bounce.
inline constexpr int64_t kBounceRun = 1024;

/// Whether a receiver of layout @p local goes through a bounce.
bool wants_bounce(const Side &local) noexcept;

/// What a step did.
enum class Step : uint8_t {
  more,     ///< moved a piece; step again
  blocked,  ///< nothing to move until the other side publishes more
  done,     ///< complete: every byte of [0, length()) is in place
  failed,   ///< stopped; error() says why (bytes moved so far stay)
};

/// The interface every scheme's transfer implements (the state machine at
/// the top of this file).  Not thread-safe: one driver at a time.
class Transfer {
 public:
  virtual ~Transfer() = default;
  Transfer(const Transfer &) = delete;
  Transfer &operator=(const Transfer &) = delete;

  /// Prepares the transfer; `more` (step it) or `failed` (nothing moved).
  virtual Step start() noexcept = 0;
  /// Moves the next piece.  After `done` or `failed`, returns that again.
  virtual Step step() noexcept = 0;
  /// Releases what the transfer holds (bounce, walks); bytes already moved
  /// stay.  Later steps return `failed`.  The destructor cancels.
  virtual void cancel() noexcept = 0;

  /// Stream bytes [offset(), offset() + length()) are the transfer's, and
  /// [offset(), offset() + moved()) of them are in place.
  size_t offset() const noexcept { return offset_; }
  size_t length() const noexcept { return len_; }
  size_t moved() const noexcept { return moved_; }
  /// Why it failed (status ok while it has not).
  const CmaResult &error() const noexcept { return error_; }

 protected:
  Transfer(size_t offset, size_t len) noexcept : offset_(offset), len_(len) {}
  /// The stream byte the next step starts at.
  size_t pos() const noexcept { return offset_ + moved_; }
  /// Records a failure; returns Step::failed.
  Step fail(CmaStatus s, int err = 0, loom_status why = LOOM_OK) noexcept;
  Step fail(const CmaResult &r) noexcept { return fail(r.status, r.error, r.loom); }
  /// What step() returns before anything else: a state that is final.
  bool finished(Step *out) const noexcept;
  /// The next piece of a stream read behind its packer: the bytes from
  /// pos() that *published (bytes [0, *published) are packed; nullptr: all)
  /// says are there, at most kChunk; 0 when none are yet.
  size_t published_piece(const std::atomic<uint64_t> *published) const noexcept;

  size_t offset_, len_;
  size_t moved_ = 0;
  CmaResult error_;
  bool started_ = false;
  bool cancelled_ = false;
};

/// Runs @p t from start to its end; @p wait() is called on every blocked
/// step (a spin, or the caller's own progress).  Returns done or failed.
template <class Wait>
Step run(Transfer &t, Wait &&wait) noexcept {
  Step s = t.start();
  while (s == Step::more || s == Step::blocked) {
    if (s == Step::blocked) wait();
    s = t.step();
  }
  return s;
}

/// Single copy and per block (receiver side): stream bytes [offset,
/// offset + len) of the message laid out as @p remote in process @p pid
/// into the same bytes of @p local's stream.
class LayoutRead final : public Transfer {
 public:
  /// @p pool: where a bounce comes from (nullptr: never bounce, as a
  /// per-block read never does); @p unpack_threads: for the unpacks out of
  /// the bounce.
  LayoutRead(pid_t pid, const Side &remote, const Side &local, size_t offset, size_t len,
             bool per_block, StagingPool *pool = nullptr, int unpack_threads = 1) noexcept;
  ~LayoutRead() override { cancel(); }
  Step start() noexcept override;
  Step step() noexcept override;
  void cancel() noexcept override;

 private:
  Step direct() noexcept;
  Step bounced() noexcept;

  pid_t pid_;
  Side remote_, local_;
  bool per_block_;
  StagingPool *pool_;
  int threads_;
  Buffer bounce_;
  IovPair pair_;
};

/// Pipelined and staged (receiver side): stream bytes [offset, offset +
/// len) of the packed stream at @p packed in process @p pid (stream byte k
/// at packed + k) into @p local's, as far as the sender has published
/// them in *@p published (bytes [0, *published) are packed; nullptr: all).
class StreamRead final : public Transfer {
 public:
  StreamRead(pid_t pid, uintptr_t packed, const std::atomic<uint64_t> *published,
             const Side &local, size_t offset, size_t len, StagingPool *pool = nullptr,
             int unpack_threads = 1) noexcept;
  ~StreamRead() override { cancel(); }
  Step start() noexcept override;
  Step step() noexcept override;
  void cancel() noexcept override;

 private:
  pid_t pid_;
  uintptr_t packed_;
  const std::atomic<uint64_t> *published_;
  Side local_;
  StagingPool *pool_;
  int threads_;
  Buffer bounce_;
  IovPair pair_;
};

/// Pipelined and staged (receiver side), when the packed stream lies in
/// memory this process addresses (a peer's shared arena): stream bytes
/// [offset, offset + len) at @p stream (stream byte k at stream + k)
/// unpacked into @p local's, as far as *@p published says (nullptr: all).
/// No system call and no bounce: the unpack reads the sender's pages.
class MappedRead final : public Transfer {
 public:
  MappedRead(const char *stream, const std::atomic<uint64_t> *published, const Side &local,
             size_t offset, size_t len, int unpack_threads = 1) noexcept;
  Step start() noexcept override;
  Step step() noexcept override;
  void cancel() noexcept override { cancelled_ = true; }

 private:
  const char *stream_;
  const std::atomic<uint64_t> *published_;
  Side local_;
  int threads_;
};

/// Pipelined and staged (sender side): packs stream bytes [0, len) of
/// @p local into @p out, @p chunk bytes a step, publishing the bytes packed
/// so far in *@p publish (nullptr: nobody reads behind).
class StreamPack final : public Transfer {
 public:
  StreamPack(const Side &local, char *out, size_t len, size_t chunk,
             std::atomic<uint64_t> *publish) noexcept;
  Step start() noexcept override;
  Step step() noexcept override;
  void cancel() noexcept override { cancelled_ = true; }

 private:
  Side local_;
  char *out_;
  size_t chunk_;
  std::atomic<uint64_t> *publish_;
};

}  // namespace xfer
}  // namespace loom
