// The intercepted type constructors: the system builds the type, then Loom
// records its loom type from the same arguments (recorded.hpp), so commit
// and decode cost O(size of the description).
#include "decode.hpp"
#include "mirror.hpp"
#include "recorded.hpp"

#include <memory>
#include <unordered_map>

namespace loom_mpi {
namespace {

// Builds and records the loom type of t from c.  Children are resolved
// once per distinct handle: a struct names the same child many times.
void record_kids(MPI_Datatype t, const Contents &c) {
  if (c.D.size() == 1 && !is_bound_marker(c.D[0])) {  // most constructors: no map
    std::unique_ptr<loom_type_s, decltype(&loom_type_free)> kid(decode(c.D[0], nullptr),
                                                                 loom_type_free);
    if (kid) record(t, build_level(t, c, {kid.get()}, nullptr));
    return;
  }
  struct Seen {
    std::unordered_map<uintptr_t, loom_type> map;
    ~Seen() {
      for (auto &e : map) loom_type_free(e.second);
    }
  } seen;
  std::vector<loom_type> kids;
  kids.reserve(c.D.size());
  for (MPI_Datatype d : c.D) {
    if (is_bound_marker(d)) {
      kids.push_back(nullptr);
      continue;
    }
    auto hit = seen.map.find(handle_key(d));
    if (hit == seen.map.end()) hit = seen.map.emplace(handle_key(d), decode(d, nullptr)).first;
    if (!hit->second) return;  // a child Loom cannot represent: nothing recorded
    kids.push_back(hit->second);
  }
  record(t, build_level(t, c, kids, nullptr));
}

// Records *newtype, described by make(), when the system made it (rc ==
// MPI_SUCCESS); returns rc.  Recording never fails the program's call.
template <class Make>
int record_built(int rc, MPI_Datatype *newtype, Make make) noexcept {
  if (rc != MPI_SUCCESS || !newtype || *newtype == MPI_DATATYPE_NULL) return rc;
  try {
    record_kids(*newtype, make());
  } catch (...) {
    // Out of memory: nothing recorded; commit decodes the type instead.
  }
  return rc;
}

template <class T>
void append(std::vector<int64_t> &v, const T *p, int n) {
  if (p && n > 0) v.insert(v.end(), p, p + n);
}

Contents contents(int combiner, std::vector<int64_t> I, std::vector<int64_t> A,
                  std::vector<MPI_Datatype> D) {
  Contents c;
  c.combiner = combiner;
  c.I = std::move(I);
  c.A = std::move(A);
  c.D = std::move(D);
  return c;
}

}  // namespace
}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *nt) {
  int rc = PMPI_Type_contiguous(count, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_CONTIGUOUS, {count}, {}, {old});
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_vector(int count, int bl, int stride, MPI_Datatype old,
                                    MPI_Datatype *nt) {
  int rc = PMPI_Type_vector(count, bl, stride, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_VECTOR, {count, bl, stride}, {}, {old});
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_hvector(int count, int bl, MPI_Aint stride,
                                            MPI_Datatype old, MPI_Datatype *nt) {
  int rc = PMPI_Type_create_hvector(count, bl, stride, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_HVECTOR, {count, bl}, {stride}, {old});
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_indexed(int count, const int bls[], const int displs[],
                                     MPI_Datatype old, MPI_Datatype *nt) {
  int rc = PMPI_Type_indexed(count, bls, displs, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_INDEXED, {count}, {}, {old});
    append(c.I, bls, count);
    append(c.I, displs, count);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_hindexed(int count, const int bls[],
                                             const MPI_Aint displs[], MPI_Datatype old,
                                             MPI_Datatype *nt) {
  int rc = PMPI_Type_create_hindexed(count, bls, displs, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_HINDEXED, {count}, {}, {old});
    append(c.I, bls, count);
    append(c.A, displs, count);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_indexed_block(int count, int bl, const int displs[],
                                                  MPI_Datatype old, MPI_Datatype *nt) {
  int rc = PMPI_Type_create_indexed_block(count, bl, displs, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_INDEXED_BLOCK, {count, bl}, {}, {old});
    append(c.I, displs, count);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_hindexed_block(int count, int bl, const MPI_Aint displs[],
                                                   MPI_Datatype old, MPI_Datatype *nt) {
  int rc = PMPI_Type_create_hindexed_block(count, bl, displs, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_HINDEXED_BLOCK, {count, bl}, {}, {old});
    append(c.A, displs, count);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_struct(int count, const int bls[], const MPI_Aint displs[],
                                           const MPI_Datatype types[], MPI_Datatype *nt) {
  int rc = PMPI_Type_create_struct(count, bls, displs, types, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_STRUCT, {count}, {}, {});
    append(c.I, bls, count);
    append(c.A, displs, count);
    if (types && count > 0) c.D.assign(types, types + count);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                                             const int starts[], int order, MPI_Datatype old,
                                             MPI_Datatype *nt) {
  int rc = PMPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_SUBARRAY, {ndims}, {}, {old});
    append(c.I, sizes, ndims);
    append(c.I, subsizes, ndims);
    append(c.I, starts, ndims);
    c.I.push_back(order);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                                           const int distribs[], const int dargs[],
                                           const int psizes[], int order, MPI_Datatype old,
                                           MPI_Datatype *nt) {
  int rc = PMPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                                   old, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {old});
    append(c.I, gsizes, ndims);
    append(c.I, distribs, ndims);
    append(c.I, dargs, ndims);
    append(c.I, psizes, ndims);
    c.I.push_back(order);
    return c;
  });
}

LOOM_MPI_EXPORT int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                                            MPI_Datatype *nt) {
  int rc = PMPI_Type_create_resized(old, lb, extent, nt);
  return record_built(rc, nt, [&] {
    Contents c = contents(MPI_COMBINER_RESIZED, {}, {lb, extent}, {old});
    return c;
  });
}

// A dup is recorded like the constructors: decoding it would ask the system
// for its child, and Open MPI's get_contents hands back a new duplicate of
// the child, which Loom has never seen and so decodes whole (an indexed type
// of 18000 blocks cost 0.5 ms per dup, commit and free on Open MPI 4.1).
LOOM_MPI_EXPORT int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *nt) {
  int rc = PMPI_Type_dup(old, nt);
  if (rc != MPI_SUCCESS || !nt) return rc;
  try {
    on_dup(old, *nt);
    // A dup has its original's typemap, extent and bounds, so it takes the
    // original's loom type itself (a new reference, with whatever plan it
    // compiled) rather than a level over it: a dup's recording and commit
    // then build nothing (a type made per message, `loom bench p2p --once`).
    // Its system facts are its original's too, asked of the system once:
    // should they ever differ, recorded() refuses the dup's entry at use.
    int64_t sys[5];
    system_facts(old, sys);
    record(*nt, decode(old, nullptr, sys), sys);
  } catch (...) {
    // Out of memory: nothing recorded; commit decodes the type instead.
  }
  return rc;
}
