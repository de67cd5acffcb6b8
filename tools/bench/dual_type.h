// A datatype built twice from the same constructor calls: once as a Loom
// type (loom.h) and once as a datatype of the system MPI.  The benchmark
// describes every layout through this class so that Loom and the system MPI
// always see exactly the same description.  The MPI side is built with the
// MPI_Type_* calls (not PMPI_*), so that a preloaded drop-in library sees the
// types' whole life: commit and free.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "loom.h"

namespace loom_bench {

// Thrown when a constructor fails on either side.
class TypeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DualType {
 public:
  DualType() = default;
  DualType(loom_type l, MPI_Datatype m, bool mpi_owned);
  ~DualType();
  DualType(const DualType &o);
  DualType &operator=(const DualType &o);
  DualType(DualType &&o) noexcept;
  DualType &operator=(DualType &&o) noexcept;

  // Predefined element types.
  static DualType prim(loom_prim p, MPI_Datatype m);
  static DualType float_() { return prim(LOOM_FLOAT, MPI_FLOAT); }
  static DualType double_() { return prim(LOOM_DOUBLE, MPI_DOUBLE); }
  static DualType int_() { return prim(LOOM_INT, MPI_INT); }
  static DualType char_() { return prim(LOOM_CHAR, MPI_CHAR); }

  // Constructors, named and ordered as in MPI (counts/displacements in
  // elements of the old type, h-forms in bytes).
  static DualType contiguous(int64_t count, const DualType &old);
  static DualType vector(int64_t count, int64_t blocklen, int64_t stride,
                         const DualType &old);
  static DualType hvector(int64_t count, int64_t blocklen, int64_t stride_bytes,
                          const DualType &old);
  static DualType indexed(const std::vector<int64_t> &blocklens,
                          const std::vector<int64_t> &displs,
                          const DualType &old);
  static DualType indexed_block(int64_t blocklen,
                                const std::vector<int64_t> &displs,
                                const DualType &old);
  static DualType hindexed_block(int64_t blocklen,
                                 const std::vector<int64_t> &displs_bytes,
                                 const DualType &old);
  static DualType struct_(const std::vector<int64_t> &blocklens,
                          const std::vector<int64_t> &displs_bytes,
                          const std::vector<DualType> &types,
                          loom_bounds_rule rule);
  static DualType subarray(const std::vector<int64_t> &sizes,
                           const std::vector<int64_t> &subsizes,
                           const std::vector<int64_t> &starts, int order,
                           const DualType &old);
  static DualType resized(const DualType &old, int64_t lb, int64_t extent);

  // Commits both sides.
  void commit();

  loom_type loom() const { return l_; }
  MPI_Datatype mpi() const { return m_; }
  bool valid() const { return l_ != nullptr; }

 private:
  void release();
  loom_type l_ = nullptr;
  MPI_Datatype m_ = MPI_DATATYPE_NULL;
  bool mpi_owned_ = false;  // false for predefined MPI types
  // The MPI handle is shared between copies; this counts the holders.
  int *mpi_refs_ = nullptr;
};

// The bounds rule that matches the system MPI this binary is built against.
loom_bounds_rule native_bounds_rule();

// "MPICH 4.0.2" / "Open MPI 4.1.4": the first line of MPI_Get_library_version.
std::string mpi_library_name();
// MPI_Get_library_version, whole (several lines for MPICH).
std::string mpi_library_version();

}  // namespace loom_bench
