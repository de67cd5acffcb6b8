#include "pair.hpp"

namespace loom {
const PairLayout *pair_layout(loom_prim p) {
  static const PairLayout kFloatInt{LOOM_FLOAT, LOOM_INT, 4, 8},
      kDoubleInt{LOOM_DOUBLE, LOOM_INT, 8, 16}, kLongInt{LOOM_LONG, LOOM_INT, 8, 16},
      k2Int{LOOM_INT, LOOM_INT, 4, 8}, kShortInt{LOOM_SHORT, LOOM_INT, 4, 8},
      kLongDoubleInt{LOOM_LONG_DOUBLE, LOOM_INT, 16, 32},
      k2Real{LOOM_F_REAL, LOOM_F_REAL, 4, 8},
      k2Double{LOOM_F_DOUBLE_PRECISION, LOOM_F_DOUBLE_PRECISION, 8, 16},
      k2Integer{LOOM_F_INTEGER, LOOM_F_INTEGER, 4, 8};
  switch (p) {
    case LOOM_FLOAT_INT: return &kFloatInt;
    case LOOM_DOUBLE_INT: return &kDoubleInt;
    case LOOM_LONG_INT: return &kLongInt;
    case LOOM_2INT: return &k2Int;
    case LOOM_SHORT_INT: return &kShortInt;
    case LOOM_LONG_DOUBLE_INT: return &kLongDoubleInt;
    case LOOM_2REAL: return &k2Real;
    case LOOM_2DOUBLE_PRECISION: return &k2Double;
    case LOOM_2INTEGER: return &k2Integer;
    default: return nullptr;
  }
}
}  // namespace loom
