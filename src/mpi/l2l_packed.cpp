// Packed copies (l2l_packed.hpp).
#include "l2l_packed.hpp"

#include "page_arena.hpp"
#include "requests.hpp"

namespace loom_mpi {
namespace l2l {
namespace {

// This process's arena's bookkeeping, made with the segment's size the
// first time a copy is asked for (sends happen only once the segment is).
loom::xfer::PageArena &arena() {
  static loom::xfer::PageArena a(own() ? own()->arena_bytes : 0);
  return a;
}

}  // namespace

PackedCopy acquire_packed(size_t bytes) {
  PackedCopy c;
  c.bytes = bytes;
  if (own() && own()->arena_bytes > 0) {
    const size_t off = arena().take(bytes);
    if (off != loom::xfer::PageArena::kNone) {
      if (reserve_arena(off + bytes)) {  // Invariant A
        c.data = arena_of(own()) + off;
        c.in_arena = true;
        c.arena_off = off;
        return c;
      }
      arena().give(off, bytes);
    }
  }
  c.staged = staging_acquire(bytes);
  c.data = c.staged.data;
  return c;
}

void release_packed(PackedCopy &c) {
  if (c.in_arena) arena().give(c.arena_off, c.bytes);
  else staging_release(c.staged);
  c = PackedCopy{};
}

void describe_packed(Slot &s, const PackedCopy &c) {
  s.packed_addr = reinterpret_cast<uint64_t>(c.data);
  s.arena = c.in_arena;
  s.arena_off = c.arena_off;
}

}  // namespace l2l
}  // namespace loom_mpi
