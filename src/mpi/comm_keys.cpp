// Communicator keys (comm_keys.hpp).  A child's key mixes its parent's key
// with how many constructors this process has called on the parent: MPI
// makes every member call collective constructors on a communicator in the
// same order, so the count, and the key, agree on all members.  The count
// goes up on every member, also where the call returns MPI_COMM_NULL.
#include "comm_keys.hpp"

#include "compat.hpp"
#include "errors.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace loom_mpi {
namespace {

struct CommInfo {
  uint64_t key = 0;
  uint64_t children = 0;
  std::vector<int> world;  // filled on first use
  bool world_known = false;
};

constexpr uint64_t kWorldKey = 0x9d39247e33776d41ull;

std::mutex g_mu;
// Never destroyed (atexit-time calls).
auto *g_comms = new std::unordered_map<uintptr_t, CommInfo>();

// comm_key() runs in every receive and Loom-to-Loom send: each thread keeps
// the last answer, valid while no key changed anywhere (g_epoch moves on
// every change, under g_mu), so the hot path takes no lock: one mutex
// shared by every thread of an MPI_THREAD_MULTIPLE program would serialize
// them.
std::atomic<uint64_t> g_epoch{1};
struct LastKey {
  uintptr_t comm = 0;
  uint64_t key = 0;
  uint64_t epoch = 0;  // 0: nothing kept
};
thread_local LastKey t_last;

uintptr_t ckey(MPI_Comm c) { return (uintptr_t)c; }

CommInfo *info_locked(MPI_Comm c) {
  auto it = g_comms->find(ckey(c));
  if (it != g_comms->end()) return &it->second;
  if (c == MPI_COMM_WORLD) {
    CommInfo &i = (*g_comms)[ckey(c)];
    i.key = kWorldKey;
    return &i;
  }
  return nullptr;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

// Records the child of `parent` made by one constructor call (on every
// member, whatever it returned).
void derive(MPI_Comm parent, const MPI_Comm *child) {
  std::lock_guard<std::mutex> g(g_mu);
  CommInfo *p = info_locked(parent);
  if (!p) return;
  uint64_t k = p->key ? mix(p->key, ++p->children) : 0;
  if (!child || *child == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(*child, &inter);
  CommInfo &c = (*g_comms)[ckey(*child)];
  c = CommInfo{};
  c.key = inter ? 0 : k;
  g_epoch.fetch_add(1, std::memory_order_release);
}

void forget(MPI_Comm c) {
  std::lock_guard<std::mutex> g(g_mu);
  g_comms->erase(ckey(c));
  g_epoch.fetch_add(1, std::memory_order_release);
}

template <class F>
int constructed(MPI_Comm parent, MPI_Comm *out, F &&sys) {
  int rc = sys();
  if (rc == MPI_SUCCESS) {
    try {
      derive(parent, out);
    } catch (...) {
      // No key: the communicator only loses the Loom-to-Loom protocol.
    }
  }
  return rc;
}

}  // namespace

uint64_t comm_key(MPI_Comm comm) {
  // The epoch is read before the table: a change after the read makes the
  // kept answer stale at once.
  const uint64_t epoch = g_epoch.load(std::memory_order_acquire);
  if (t_last.epoch == epoch && t_last.comm == ckey(comm)) return t_last.key;
  uint64_t key;
  {
    std::lock_guard<std::mutex> g(g_mu);
    CommInfo *i = info_locked(comm);
    key = i ? i->key : 0;
  }
  t_last = LastKey{ckey(comm), key, epoch};
  return key;
}

uint64_t comm_epoch() { return g_epoch.load(std::memory_order_acquire); }

int world_rank(MPI_Comm comm, int rank) {
  if (rank < 0) return -1;
  if (comm == MPI_COMM_WORLD) return rank;
  std::lock_guard<std::mutex> g(g_mu);
  CommInfo *i = info_locked(comm);
  if (!i || !i->key) return -1;
  if (!i->world_known) {
    MPI_Group grp, wgrp;
    int n = 0;
    if (PMPI_Comm_group(comm, &grp) != MPI_SUCCESS) return -1;
    PMPI_Comm_group(MPI_COMM_WORLD, &wgrp);
    PMPI_Group_size(grp, &n);
    std::vector<int> ranks((size_t)n);
    for (int r = 0; r < n; ++r) ranks[(size_t)r] = r;
    i->world.assign((size_t)n, -1);
    PMPI_Group_translate_ranks(grp, n, ranks.data(), wgrp, i->world.data());
    PMPI_Group_free(&grp);
    PMPI_Group_free(&wgrp);
    i->world_known = true;
  }
  if ((size_t)rank >= i->world.size()) return -1;
  int w = i->world[(size_t)rank];
  return w == MPI_UNDEFINED ? -1 : w;
}

}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  return constructed(comm, newcomm, [&] { return PMPI_Comm_dup(comm, newcomm); });
}

LOOM_MPI_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info,
                                           MPI_Comm *newcomm) {
  return constructed(comm, newcomm,
                     [&] { return PMPI_Comm_dup_with_info(comm, info, newcomm); });
}

LOOM_MPI_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key,
                                   MPI_Comm *newcomm) {
  return constructed(comm, newcomm,
                     [&] { return PMPI_Comm_split(comm, color, key, newcomm); });
}

LOOM_MPI_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key,
                                        MPI_Info info, MPI_Comm *newcomm) {
  return constructed(comm, newcomm, [&] {
    return PMPI_Comm_split_type(comm, type, key, info, newcomm);
  });
}

LOOM_MPI_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group,
                                    MPI_Comm *newcomm) {
  return constructed(comm, newcomm,
                     [&] { return PMPI_Comm_create(comm, group, newcomm); });
}

LOOM_MPI_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                                    const int periods[], int reorder,
                                    MPI_Comm *newcomm) {
  return constructed(comm, newcomm, [&] {
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  });
}

LOOM_MPI_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[],
                                 MPI_Comm *newcomm) {
  return constructed(comm, newcomm,
                     [&] { return PMPI_Cart_sub(comm, remain_dims, newcomm); });
}

LOOM_MPI_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[],
                                     const int edges[], int reorder,
                                     MPI_Comm *newcomm) {
  return constructed(comm, newcomm, [&] {
    return PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);
  });
}

LOOM_MPI_EXPORT int MPI_Dist_graph_create_adjacent(
    MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
    int outdegree, const int destinations[], const int destweights[],
    MPI_Info info, int reorder, MPI_Comm *newcomm) {
  return constructed(comm, newcomm, [&] {
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights,
                                           outdegree, destinations, destweights,
                                           info, reorder, newcomm);
  });
}

LOOM_MPI_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                          const int degrees[],
                                          const int destinations[],
                                          const int weights[], MPI_Info info,
                                          int reorder, MPI_Comm *newcomm) {
  return constructed(comm, newcomm, [&] {
    return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights,
                                  info, reorder, newcomm);
  });
}

LOOM_MPI_EXPORT int MPI_Comm_free(MPI_Comm *comm) {
  if (comm) forget(*comm);
  return PMPI_Comm_free(comm);
}

LOOM_MPI_EXPORT int MPI_Comm_disconnect(MPI_Comm *comm) {
  if (comm) forget(*comm);
  return PMPI_Comm_disconnect(comm);
}
