// Layout caches of the Loom-to-Loom protocol (LAH's layout cache, SGRS's
// layout exchange): a sender's serialized plans by type, and the plans
// of its peers by (peer, plan id) on the receiving side, so that a
// repeated layout costs neither an encode nor a cross-memory read.
//
// Both are bounded (LRU) and safe against handle reuse: the local cache
// holds a reference on the loom type it is keyed by, so the key cannot be
// reused while cached; remote entries are keyed by the plan's content id.
#pragma once
#include "l2l_segment.hpp"
#include "loom.h"

#include <cstdint>
#include <memory>
#include <string>

namespace loom_mpi {
namespace l2l {

struct Layout {
  std::string bytes;  // loom_layout_encode; read by receivers in place
  uint64_t id = 0;    // loom_layout_id of bytes
};

// The serialized plan of committed type t; nullptr when it cannot be had.
// A slot keeps the returned pointer alive while a receiver may read it.
std::shared_ptr<const Layout> local_layout(loom_type t);

// The decoded plan a slot names (read from the sender on a miss), as a
// new reference the caller frees; nullptr when it cannot be read or
// decoded.
loom_type remote_layout(const Header &sender, const Slot &s);

}  // namespace l2l
}  // namespace loom_mpi
