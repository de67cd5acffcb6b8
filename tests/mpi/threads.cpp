// (e) MPI_THREAD_MULTIPLE: threads pack and unpack concurrently through the
// drop-in while they create, commit, dup and free types (so the mirror
// table is written, and grown, under concurrent lock-free readers), and
// race to build the mirror of the same lazily mirrored dups.
//
// The oracle is the reference interpreter, not PMPI_Pack: MPICH 4.0.2's own
// pack/unpack are not safe under this workload (a plain MPICH program doing
// the same with PMPI only, no Loom loaded, fails the assertion
// "element_size < 0 || *actual_unpack_bytes % element_size == 0" in
// typerep_yaksa_pack.c, or packs short and returns MPI_SUCCESS).
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "mpi_test.hpp"
#include "to_mpi.hpp"

using namespace loomtest;

namespace {

std::atomic<int> g_errors{0};
std::mutex g_print;
MPI_Comm g_comm;
std::vector<unsigned char> g_data;  // read-only source
constexpr int64_t kOrigin = 8192;   // room for negative displacements

void terr(const char *what, int t, int i, const std::string &desc) {
  if (g_errors++ < 20) {
    std::lock_guard<std::mutex> g(g_print);
    std::printf("FAIL: thread %d iteration %d: %s: %s\n", t, i, what, desc.c_str());
  }
}

struct Typed {
  MPI_Datatype t;
  Layout l;
  std::string desc;
};

// Packs and unpacks `count` instances through the drop-in; "" if both
// match the reference.
const char *check(const Typed &ty, int count) {
  const unsigned char *origin = g_data.data() + kOrigin;
  std::vector<unsigned char> ref = reference_pack(ty.l, count, origin);
  std::vector<unsigned char> out(ref.size() + 8, 0xAB);
  int pos = 4;
  if (MPI_Pack(origin, count, ty.t, out.data(), (int)ref.size() + 4, &pos, g_comm) != MPI_SUCCESS)
    return "pack error";
  if (pos != (int)ref.size() + 4 || !std::equal(ref.begin(), ref.end(), out.begin() + 4) ||
      out[ref.size() + 4] != 0xAB)
    return "packed bytes";
  if (reference_overlaps(ty.l, count)) return "";
  std::vector<unsigned char> a(g_data.size(), 0x11), b(g_data.size(), 0x11);
  pos = 4;
  if (MPI_Unpack(out.data(), (int)ref.size() + 4, &pos, a.data() + kOrigin, count, ty.t, g_comm) !=
      MPI_SUCCESS)
    return "unpack error";
  reference_unpack(ty.l, count, ref.data(), b.data() + kOrigin);
  return a == b ? "" : "unpacked bytes";
}

// Hand-shaped trees (no structs, nothing a system is known to get wrong):
// vector, indexed, resized contiguous, hvector over a freed child vector.
TypeSpecPtr shape(std::mt19937_64 &r) {
  std::uniform_int_distribution<int> u(1, 6);
  TypeSpecPtr i = prim(LOOM_INT);
  switch (r() % 4) {
    case 0: return vector(u(r), u(r), 7, i);
    case 1: return indexed({u(r), 1, u(r)}, {0, 9, 14}, i);
    case 2: return resized(contig(u(r), i), -4, 40);
    default: return hvector(u(r), 1, -20, vector(2, 1, 3, prim(LOOM_SHORT)));
  }
}

Typed make(std::mt19937_64 &r, bool commit = true) {
  TypeSpecPtr s = shape(r);
  MpiType mt = to_mpi(s);
  if (commit) MPI_Type_commit(&mt.type);
  return Typed{mt.type, reference_layout(*mt.reconciled), describe(*s)};
}

}  // namespace

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    failf("MPI_THREAD_MULTIPLE not provided (%d)", provided);
    return finish("threads");
  }
  if (!dropin_active()) {
    failf("MPI_Pack resolves to %s, not the drop-in", provider("MPI_Pack").c_str());
    return finish("threads");
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN);
  g_data.resize(2 * kOrigin);
  for (size_t i = 0; i < g_data.size(); ++i) g_data[i] = (unsigned char)(i * 131 + 7);

  // Shared committed types, and dups of them that nobody has used yet: the
  // threads' first use of each dup races to build its mirror.
  std::mt19937_64 rng(42);
  std::vector<Typed> shared, dups;
  for (int i = 0; i < 16; ++i) shared.push_back(make(rng));
  for (const Typed &t : shared) {
    Typed d = t;
    MPI_Type_dup(t.t, &d.t);
    dups.push_back(d);
  }
  for (const Typed &t : shared)  // single-threaded first
    if (const char *e = check(t, 2); *e) failf("before threads: %s: %s", e, t.desc.c_str());

  const int kThreads = 4, kIters = 1500;
  std::atomic<int> ready{0};
  std::vector<std::thread> th;
  for (int id = 0; id < kThreads; ++id) {
    th.emplace_back([&, id] {
      std::mt19937_64 r(1000 + id);
      ready++;
      while (ready.load() < kThreads) {
      }
      for (size_t k = 0; k < dups.size(); ++k) {
        const Typed &d = dups[(k + id) % dups.size()];
        if (const char *e = check(d, 2); *e) terr(e, id, -1, "first use of a dup of " + d.desc);
      }
      std::vector<Typed> own;
      for (int i = 0; i < kIters; ++i) {
        const Typed &s = shared[r() % shared.size()];
        if (const char *e = check(s, 1 + (int)(r() % 3)); *e) terr(e, id, i, s.desc);
        // Writers: up to 300 live types per thread (growing the table past
        // its first size), freed at random so handle values are reused.
        if (own.empty() || (own.size() < 300 && r() % 2)) {
          own.push_back(make(r));
          if (const char *e = check(own.back(), 1); *e) terr(e, id, i, own.back().desc);
        } else {
          size_t j = r() % own.size();
          MPI_Type_free(&own[j].t);
          own.erase(own.begin() + (long)j);
        }
      }
      for (Typed &t : own) MPI_Type_free(&t.t);
    });
  }
  for (auto &t : th) t.join();
  if (g_errors) failf("%d concurrent mismatches", g_errors.load());
  for (Typed &t : shared) MPI_Type_free(&t.t);
  for (Typed &t : dups) MPI_Type_free(&t.t);
  MPI_Comm_free(&g_comm);
  std::printf("threads[%s]: %d threads x %d iterations, reference oracle\n", mpi_flavor(),
              kThreads, kIters);
  return finish("threads");
}
