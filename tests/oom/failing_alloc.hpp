// A global allocator for out-of-memory tests: it replaces operator new and
// delete (every form) in the test program, counts live blocks, and can be
// armed to fail the Nth allocation from now on, or that one and every later
// one.  Loom's core allocates only through operator new (no malloc), so this
// sees all of its allocations.
#pragma once

#include <cstdint>

namespace loomtest::oom {

/// Fails allocation number `n` (1-based) from now; with `sticky`, every
/// allocation after it too.
void arm(int64_t n, bool sticky);
/// Stops failing; returns how many allocations were failed since arm().
int64_t disarm();
/// Blocks allocated through operator new and not yet deleted.
int64_t live_blocks();

}  // namespace loomtest::oom
