// The benchmark's case catalogue: each case describes one layout three ways
// (a Loom type, the same system-MPI datatype, and the hand-written loops a
// good HPC programmer would write for it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dual_type.h"

namespace loom_bench {

struct CaseParams {
  bool quick = false;  // smaller sizes for smoke tests (CI, sanitizers)
  loom_bounds_rule rule = LOOM_BOUNDS_STANDARD;
};

// One instantiated case.  The harness allocates two user buffers of
// `user_bytes` (a source for packing and a destination for unpacking) and
// hands the type and the hand loops the address `buffer + origin`.
struct CaseInstance {
  std::string sizes;     // human-readable sizes ("256^3 floats, x = 0")
  size_t user_bytes = 0; // bytes the layout spans, from the buffer start
  size_t origin = 0;     // where the type's buffer pointer points
  DualType type;         // committed
  int64_t count = 1;     // count argument to pack/unpack
  size_t packed_bytes = 0;
  // Hand-written reference loops: user layout (at origin) <-> packed stream.
  std::function<void(const char *user, char *packed)> hand_pack;
  std::function<void(const char *packed, char *user)> hand_unpack;
};

struct CaseDef {
  std::string name;   // e.g. "Vector (FLOAT)"
  std::string group;  // "Ross" or "DDTBench"
  // True when the packed bytes form one contiguous run of the user buffer
  // (the cases where Loom must reach 90% of memcpy).
  bool contiguous = false;
  std::function<std::unique_ptr<CaseInstance>(const CaseParams &)> make;
};

// The Ross, Miller & Gropp (2003) synthetic suite.
void add_ross_cases(std::vector<CaseDef> &out);
// The DDTBench application layouts (Schneider, Gerstenberger, Hoefler 2012).
void add_ddtbench_cases(std::vector<CaseDef> &out);
// Particle subsets in ascending order (cases_particles.cpp).
void add_particle_cases(std::vector<CaseDef> &out);

// All cases, in table order.
std::vector<CaseDef> all_cases();

// Commits a case's type and records its packed bytes.
std::unique_ptr<CaseInstance> finish(std::unique_ptr<CaseInstance> c);

// Rounds n up to a multiple of 64 (buffer and sub-array alignment).
inline size_t align64(size_t n) { return (n + 63) & ~size_t(63); }

}  // namespace loom_bench
