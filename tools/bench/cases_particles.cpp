// Particle subsets: the atoms a process sends (a halo's, a migration's),
// listed in ascending order as a traversal of cells or a sorted neighbour
// list gives them, one indexed_block type per per-atom array.  Neighbours
// in the list are neighbours in memory, so the blocks merge into runs of
// 1, 2, 3 ... atoms: an index list of runs of irregular lengths, unlike
// DDTBench's LAMMPS lists (random order, no runs).  The hand loops are the
// usual gather over an int index list.  Deterministic (fixed seeds).
//   Particle x, 3 of 4   positions (3 doubles an atom), each atom kept with
//                        probability 3/4: runs of 4 atoms on average
//                        43690 of ~58250 atoms                  (1 MiB)
//   Particle q, 9 of 10  one double an atom (a charge), kept with
//                        probability 9/10: runs of 10 on average
//                        131072 of ~145600 atoms                (1 MiB)
#include <cstring>
#include <random>

#include "cases.h"

namespace loom_bench {

namespace {

// The first `count` atoms kept, each with probability keep / of, in order.
std::vector<int> ascending_subset(int64_t count, int keep, int of, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> list;
  list.reserve((size_t)count);
  for (int atom = 0; (int64_t)list.size() < count; ++atom)
    if ((int)(rng() % (uint64_t)of) < keep) list.push_back(atom);
  return list;
}

// Atoms of B doubles (B = 3: positions; 1: a scalar property).
template <int B>
CaseDef particle_case(const char *name, int keep, int of, uint64_t seed) {
  CaseDef d;
  d.name = name;
  d.group = "Particles";
  d.make = [keep, of, seed](const CaseParams &p) {
    const int64_t n = (p.quick ? 65536 : 1048576) / (8 * B);  // atoms sent
    auto list = std::make_shared<std::vector<int>>(ascending_subset(n, keep, of, seed));
    const int64_t natoms = list->back() + 1;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(n) + " of " + std::to_string(natoms) + " atoms of " +
               std::to_string(B) + (B == 1 ? " double" : " doubles") + ", ascending";
    std::vector<int64_t> disp(list->size());
    for (size_t i = 0; i < list->size(); ++i) disp[i] = int64_t(B) * (*list)[i];
    c->type = DualType::indexed_block(B, disp, DualType::double_());
    c->user_bytes = (size_t)natoms * 8 * B;
    c->hand_pack = [list](const char *u, char *pk) {
      const uint64_t *a = reinterpret_cast<const uint64_t *>(u);
      uint64_t *out = reinterpret_cast<uint64_t *>(pk);
      const int *l = list->data();
      const int64_t m = (int64_t)list->size();
      for (int64_t i = 0; i < m; ++i, out += B)
        for (int k = 0; k < B; ++k) out[k] = a[(int64_t)l[i] * B + k];
    };
    c->hand_unpack = [list](const char *pk, char *u) {
      const uint64_t *in = reinterpret_cast<const uint64_t *>(pk);
      uint64_t *a = reinterpret_cast<uint64_t *>(u);
      const int *l = list->data();
      const int64_t m = (int64_t)list->size();
      for (int64_t i = 0; i < m; ++i, in += B)
        for (int k = 0; k < B; ++k) a[(int64_t)l[i] * B + k] = in[k];
    };
    return finish(std::move(c));
  };
  return d;
}

}  // namespace

void add_particle_cases(std::vector<CaseDef> &out) {
  out.push_back(particle_case<3>("Particle x, 3 of 4", 3, 4, 41));
  out.push_back(particle_case<1>("Particle q, 9 of 10", 9, 10, 42));
}

}  // namespace loom_bench
