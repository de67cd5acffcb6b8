// Moving a Loom-to-Loom message's bytes with cross-memory attach: the
// receiving side reads (single copy from the sender's layout, or its packed
// copy); the fallback has the sender write.
#pragma once
#include "requests.hpp"

#include <cstdint>

namespace loom_mpi {
namespace l2l {

enum class Moved { ok, refused, failed };

// Stream bytes [0, take) of `bytes` packed bytes laid out in process pid
// as `count` instances of `remote` at `base` (remote null: one run of
// `bytes` at base) into dst (dst.type null: one run of dst.bytes).
// per_block: one read per remote run (the Multi-W analog) instead of
// iovec batches.  take <= both dst.bytes and bytes.
Moved read_layout(int pid, loom_type remote, uint64_t base, int64_t count,
                  uint64_t bytes, const Side &dst, size_t take, bool per_block);
// Stream bytes [offset, offset + len) of the same remote message into
// `into` (stream byte offset + k at into + k): the sender's layout
// gathered by the kernel, for a receiver that unpacks itself.
Moved gather_layout(int pid, loom_type remote, uint64_t base, int64_t count, uint64_t bytes,
                    char *into, size_t offset, size_t len);
// Stream bytes [offset, offset + len) from pid's packed copy at addr (stream
// byte k at addr + k) into the same bytes of dst's stream.
Moved read_packed(int pid, uint64_t addr, const Side &dst, size_t offset, size_t len);
// Plain bytes both ways.
Moved read_bytes(int pid, uint64_t addr, void *dst, size_t len);
Moved write_packed(int pid, const char *src, uint64_t addr, size_t len);

}  // namespace l2l
}  // namespace loom_mpi
