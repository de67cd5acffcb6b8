// A Loom-to-Loom sender's packed copy of a message (the pipelined stream,
// or the copy a late sender makes): in this process's shared arena when it
// has room, so that receivers unpack it in place, else pooled staging,
// which receivers read with cross-memory attach (docs/protocol.md, "Packed
// copies in the shared arena").
#pragma once
#include "l2l_segment.hpp"
#include "staging_pool.hpp"

#include <cstddef>
#include <cstdint>

namespace loom_mpi {
namespace l2l {

struct PackedCopy {
  char *data = nullptr;    // null: none
  bool in_arena = false;
  uint64_t arena_off = 0;  // in_arena: where in the arena
  size_t bytes = 0;
  loom::xfer::Buffer staged;  // !in_arena: the staging buffer
};

// A copy of @p bytes bytes (data null: no memory anywhere).
PackedCopy acquire_packed(size_t bytes);
// Gives the copy's memory back and clears it (a cleared copy may be
// released again harmlessly).
void release_packed(PackedCopy &c);
// Tells slot s where the copy is (before the slot's state publishes it).
void describe_packed(Slot &s, const PackedCopy &c);

}  // namespace l2l
}  // namespace loom_mpi
