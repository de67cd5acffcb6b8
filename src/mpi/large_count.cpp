// IntCount and group_blocks (large_count.hpp).
#include "large_count.hpp"

#include <climits>

#include "mirror.hpp"
#include "wire.hpp"

#if LOOM_MPI_HAVE_LARGE_COUNT
namespace loom_mpi {

IntCount::IntCount(MPI_Count count, MPI_Datatype type) : type_(type) {
  if (count <= INT_MAX) {
    // Negative counts too: the int call reports MPI_ERR_COUNT for them.
    count_ = count < INT_MIN ? -1 : (int)count;
    return;
  }
  if (type == MPI_DATATYPE_NULL) return;
  MPI_Datatype made = MPI_DATATYPE_NULL;
  int rc = repeat_type(count, type, &made);
  if (rc == MPI_SUCCESS && (rc = commit_type(&made)) != MPI_SUCCESS) PMPI_Type_free(&made);
  if (rc != MPI_SUCCESS) {
    PMPI_Error_class(rc, &error_);
    return;
  }
  made_ = type_ = made;
  count_ = 1;
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
