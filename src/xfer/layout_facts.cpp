#include "layout_facts.hpp"

namespace loom {
namespace xfer {

LayoutFacts layout_facts(loom_type t) {
  LayoutFacts f;
  f.size = loom_type_size(t);
  int64_t runs = loom_type_num_runs(t);
  f.mean_run = runs > 0 ? f.size / runs : 0;
  int elem = loom_type_element(t);
  int64_t nelems = loom_type_num_elements(t);
  if (elem >= 0 && elem != LOOM_LONG_DOUBLE && elem != LOOM_C_LONG_DOUBLE_COMPLEX &&
      elem != LOOM_LONG_DOUBLE_INT && nelems > 0)
    f.elem_size = f.size / nelems;
  return f;
}

}  // namespace xfer
}  // namespace loom
