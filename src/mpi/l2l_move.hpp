// Moving a Loom-to-Loom message's bytes with cross-memory attach: the
// receiving side runs a scheme's transfer (src/xfer/transfer.hpp); the
// fallback has the sender write.
#pragma once
#include "requests.hpp"
#include "transfer.hpp"

#include <cstdint>

namespace loom_mpi {
namespace l2l {

enum class Moved { ok, refused, failed };

// Argument s as the transfers see it: a Side without a type is its one run.
loom::xfer::Side xfer_side(const Side &s);
// Runs t to its end, waiting (wait_step) while the sender has published
// nothing new: refused when cross-memory attach is not allowed, failed for
// anything else.
Moved run(loom::xfer::Transfer &t);
// Plain bytes both ways.
Moved read_bytes(int pid, uint64_t addr, void *dst, size_t len);
Moved write_packed(int pid, const char *src, uint64_t addr, size_t len);

}  // namespace l2l
}  // namespace loom_mpi
