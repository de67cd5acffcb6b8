// IntCount (large_count.hpp) and the large-count point-to-point entry
// points (p2p_large_count.cpp) use it.
#include "large_count.hpp"

#include <climits>

#include "mirror.hpp"

#if LOOM_MPI_HAVE_LARGE_COUNT
namespace loom_mpi {
namespace {

// Elements per block of a made type: any count below 2^61 then has a
// block count that fits an int.
constexpr MPI_Count kBlock = MPI_Count(1) << 30;

// {contiguous(q, contiguous(kBlock, t)) @0, r x t @ q*kBlock*extent}: the
// typemap of `count` copies of t, as contiguous(count, t) would have it.
int make_repeat(MPI_Count count, MPI_Datatype t, MPI_Datatype *out) {
  const MPI_Count q = count / kBlock, r = count % kBlock;
  MPI_Aint lb, extent, tail;
  if (q > INT_MAX) return MPI_ERR_COUNT;
  int rc = PMPI_Type_get_extent(t, &lb, &extent);
  if (rc != MPI_SUCCESS) return rc;
  if (__builtin_mul_overflow((MPI_Aint)(q * kBlock), extent, &tail)) return MPI_ERR_COUNT;
  MPI_Datatype block, body;
  if ((rc = PMPI_Type_contiguous((int)kBlock, t, &block)) != MPI_SUCCESS) return rc;
  rc = PMPI_Type_contiguous((int)q, block, &body);
  PMPI_Type_free(&block);
  if (rc != MPI_SUCCESS) return rc;
  if (r == 0) {
    *out = body;
  } else {
    int lengths[2] = {1, (int)r};
    MPI_Aint disps[2] = {0, tail};
    MPI_Datatype types[2] = {body, t};
    rc = PMPI_Type_create_struct(2, lengths, disps, types, out);
    PMPI_Type_free(&body);
    if (rc != MPI_SUCCESS) return rc;
  }
  if ((rc = commit_type(out)) != MPI_SUCCESS) PMPI_Type_free(out);
  return rc;
}

}  // namespace

IntCount::IntCount(MPI_Count count, MPI_Datatype type) : type_(type) {
  if (count <= INT_MAX) {
    // Negative counts too: the int call reports MPI_ERR_COUNT for them.
    count_ = count < INT_MIN ? -1 : (int)count;
    return;
  }
  if (type == MPI_DATATYPE_NULL) return;
  error_ = make_repeat(count, type, &made_);
  if (error_ == MPI_SUCCESS) {
    count_ = 1;
    type_ = made_;
  }
}

IntCount::~IntCount() {
  if (made_ != MPI_DATATYPE_NULL) free_type(&made_);
}

int group_blocks(MPI_Comm comm) {
  int inter = 1, n = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
      PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return 0;
  return n;
}

}  // namespace loom_mpi
#endif
