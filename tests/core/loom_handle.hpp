// RAII for Loom handles in tests, and building+committing a spec in one go.
#pragma once

#include <memory>

#include "loom.h"
#include "type_spec.hpp"

namespace loomtest {

struct LoomTypeDeleter {
  void operator()(loom_type t) const { loom_type_free(t); }
};
using Type = std::unique_ptr<loom_type_s, LoomTypeDeleter>;

// Builds and commits; returns null (and the failing status) on error.
inline Type committed(const TypeSpec &s, loom_status *st = nullptr) {
  loom_status tmp;
  loom_status &status = st ? *st : tmp;
  Type t(to_loom(s, &status));
  if (t) status = loom_type_commit(t.get());
  if (status != LOOM_OK) t.reset();
  return t;
}
inline Type committed(const TypeSpecPtr &s, loom_status *st = nullptr) {
  return committed(*s, st);
}

}  // namespace loomtest
