// The table of types recorded at construction (recorded.hpp).
#include "recorded.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace loom_mpi {
namespace {

struct Entry {
  loom_type type;
  int64_t sys[5];  // the system's size, lb, extent, true lb, true extent
};

std::mutex g_mu;
// Never destroyed: constructors may run from atexit handlers.
std::unordered_map<uintptr_t, Entry> &table() {
  static auto *t = new std::unordered_map<uintptr_t, Entry>;
  return *t;
}

}  // namespace

loom_type recorded(MPI_Datatype t, const int64_t *sys) {
  uintptr_t k = handle_key(t);
  if (!k) return nullptr;
  Entry e;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = table().find(k);
    if (it == table().end()) return nullptr;
    e = it->second;
    loom_type_ref(e.type);
  }
  int64_t now[5];
  if (!sys) {
    system_facts(t, now);
    sys = now;
  }
  if (std::equal(sys, sys + 5, e.sys)) return e.type;
  loom_type_free(e.type);
  return nullptr;
}

void record(MPI_Datatype t, loom_type lt, const int64_t *sys) {
  uintptr_t k = handle_key(t);
  if (!k || !lt) {
    loom_type_free(lt);
    return;
  }
  Entry e{lt, {}};
  if (sys) std::copy(sys, sys + 5, e.sys);
  else system_facts(t, e.sys);
  // Nothing the system sizes differently is ever trusted for t (decode.cpp).
  if (loom_type_size(lt) != e.sys[0]) {
    loom_type_free(lt);
    return;
  }
  loom_type old = nullptr;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto ins = table().emplace(k, e);
    if (!ins.second) {
      old = ins.first->second.type;
      ins.first->second = e;
    }
  }
  loom_type_free(old);
}

void forget_recorded(uintptr_t key) {
  loom_type old = nullptr;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = table().find(key);
    if (it == table().end()) return;
    old = it->second.type;
    table().erase(it);
  }
  loom_type_free(old);
}

}  // namespace loom_mpi
