// `loom bench engine`'s drop-in table: what MPI_Type_constructor and
// MPI_Type_commit cost through whatever MPI_Type_commit the process has —
// Loom's when libloom-mpi.so is preloaded, the system's otherwise (the
// table says which).  Needs MPI initialized.
#pragma once

#include <nlohmann/json.hpp>

namespace loom_bench {

nlohmann::json mpi_commit_table(bool quick);

}  // namespace loom_bench
