// The instruction sets Loom's kernels are compiled for, by name (no
// Highway in here).  Header-only: the settings registry lists these names
// as the values of LOOM_ISA.
#pragma once

#include <cstddef>

namespace loom {

/// How many instruction-set names there are.
inline constexpr size_t kIsaCount = 4;

/// The names, from the most portable to the widest:
///   baseline    the compiler's baseline (x86-64: SSE2), always available;
///   avx2        AVX2 (Haswell, Zen);
///   avx512      AVX-512 F, VL, DQ and BW (Skylake-SP, Zen 4);
///   avx512vbmi  the same with VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ
///               (Ice Lake, Zen 4; Highway's AVX3_DL).
/// A build for another architecture has only `baseline`.
inline constexpr const char *kIsaNames[kIsaCount] = {"baseline", "avx2", "avx512",
                                                     "avx512vbmi"};

}  // namespace loom
