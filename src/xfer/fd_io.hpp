// Whole reads and writes on a pipe or socket (retrying short counts and
// EINTR): how two processes on one node hand each other layouts and
// addresses before a single-copy transfer.
#pragma once
#include <cstddef>

namespace loom {
namespace xfer {

/// False when the other end is gone (or the descriptor fails) first.
bool read_full(int fd, void *p, size_t n) noexcept;
bool write_full(int fd, const void *p, size_t n) noexcept;

}  // namespace xfer
}  // namespace loom
