// The protocol's building blocks shared by its point-to-point and
// collective sides (l2l_send.cpp, l2l_recv.cpp, l2l_coll.cpp); not for the
// rest of the drop-in, which uses l2l.hpp.
#pragma once
#include "l2l.hpp"
#include "l2l_move.hpp"
#include "scheme.hpp"

namespace loom_mpi {
namespace l2l {

// Sender.  Claims and fills a slot for s to world rank w and publishes it; the RDV
// to send in *rdv.  `coll`: a collective's (kCollSlots first).  The slot
// index, or -1 (no slot, no layout).
int64_t post(const Side &s, Scheme scheme, int w, int tag, uint64_t key, Rdv *rdv,
             bool coll = false);
// Whether slot i streams (pipelined) and is not packed yet; its packing
// (after the RDV left).  `park`: the sender's call completes after the
// pack and progress() releases the slot once pulled (point-to-point);
// otherwise the caller waits with wait_pulled() (collectives).
bool streaming(uint32_t i);
void stream_pack(uint32_t i, bool park);
// How often a streaming sender publishes its progress, so that the
// receiver's unpack overlaps the packing: about 8 pieces per message, at
// most 256 KiB (the receiver's bounce stays in L2).  A copy the receiver
// reads by cross-memory attach takes pieces of 16 KiB at least (each read
// is a system call); one in the sender's arena (`mapped`) costs a piece
// only the kernel's set-up and the receiver's poll, so a message under
// 64 KiB goes in 4 pieces of at least 4 KiB instead of one or two: round
// trips of the 11-13 KiB DDTBench layouts 10-20% faster on both MPIs (the
// 40 KiB one within 4%), while fewer pieces than 8 lost 4-12% at
// 128 KiB-1 MiB (docs/results.md).
inline size_t stream_chunk(size_t bytes, bool mapped) {
  constexpr size_t lo = size_t(16) << 10, hi = size_t(256) << 10, mapped_lo = size_t(4) << 10;
  const size_t c = bytes / 8 < lo ? lo : bytes / 8 > hi ? hi : bytes / 8;
  if (mapped && c > bytes / 4) return bytes / 4 < mapped_lo ? mapped_lo : bytes / 4;
  return c;
}
// Finishes slot i for the program: once its receiver has the data or,
// after `wait_us`, a packed copy is made for it (the slot then waits,
// parked, for progress() to release it).  send_grace(): LOOM_L2L_GRACE
// inside a Wait, none in a Test.
int finish(uint32_t i, double wait_us);
double send_grace();
// Waits until slot i's receiver has the data (serving a push if asked),
// then frees the slot: collectives, whose receivers are in the same call.
void wait_pulled(uint32_t i);
// Frees slot i at once (its RDV never reached anyone).
void release_slot(uint32_t i);

// Receiver.  The sender's slot an RDV names when it is genuine.
Slot *slot_of(const Rdv &r, Header **seg);
// Moves the first `take` bytes of slot s's message into dst.
Moved pull(Header *h, Slot &s, const Side &dst, size_t take);

}  // namespace l2l
}  // namespace loom_mpi
