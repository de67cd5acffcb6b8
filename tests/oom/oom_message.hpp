// What the out-of-memory scenarios work on: a committed type over a
// patterned user buffer, with the reference layout to check results.
#pragma once

#include <algorithm>
#include <vector>

#include "loom_handle.hpp"

namespace loomtest {

using Bytes = std::vector<unsigned char>;

struct Message {
  TypeSpecPtr spec;
  int64_t count;
  Layout lay;
  int64_t lo = 0, hi = 0;  // bytes the instances touch, from the origin
  Bytes mem;               // covers [min(lo, 0), max(hi, 0)] around the origin
  Type t;

  Message(TypeSpecPtr s, int64_t n) : spec(std::move(s)), count(n), lay(reference_layout(*spec)) {
    reference_span(lay, count, &lo, &hi);
    mem.resize(std::max<int64_t>(hi, 0) - std::min<int64_t>(lo, 0) + 1);
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<unsigned char>(i * 37 + 11);
    t = committed(spec);
    EXPECT_TRUE(t);
  }
  unsigned char *origin() { return mem.data() - std::min<int64_t>(lo, 0); }
  Bytes packed() { return reference_pack(lay, count, origin()); }
};

// The message's description: three members of different depths, gaps
// between and inside them (vector 48 bytes, two indexed 96 each, a padded
// short): 122 packed bytes per instance, an extent of 248.
inline TypeSpecPtr mixed_spec() {
  return structure({1, 2, 1}, {0, 48, 240},
                   {vector(3, 2, 5, prim(LOOM_INT)),
                    indexed({2, 1, 3}, {0, 5, 9}, prim(LOOM_DOUBLE)),
                    resized(prim(LOOM_SHORT), 0, 4)});
}

}  // namespace loomtest
