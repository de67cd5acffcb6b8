// The boundary of loom.h: no C++ exception may cross it.  Every entry point
// that can allocate runs its body through api_call(), which turns an
// exception into LOOM_ERR_NOMEM.  The only exceptions the core can raise are
// allocation failures (std::bad_alloc, std::length_error) and std::system_error
// from std::call_once or a mutex when the system is out of resources, so
// "out of memory" is the honest answer for all of them.  Bodies own what they
// build through RAII, so an exception leaks nothing and leaves every handle
// as it was.
#pragma once
#include "loom.h"

namespace loom {

template <class F>
loom_status api_call(F &&body) noexcept {
  try {
    return body();
  } catch (...) {
    return LOOM_ERR_NOMEM;
  }
}

/// For entry points that return a value: `failed` when the body throws.
template <class T, class F>
T api_value(T failed, F &&body) noexcept {
  try {
    return body();
  } catch (...) {
    return failed;
  }
}

}  // namespace loom
