// Refuses to run inside a program of the other MPI.  The MPICH build of
// libloom-mpi.so preloaded into an Open MPI program (or the reverse) would
// hand one MPI's handles (ints in MPICH, pointers in Open MPI) to the other
// and crash deep inside it; instead the process stops with one line naming
// the library it needs, and exit status 1.
//
// Checked when the library loads (the program's own MPI is loaded by then)
// and again at MPI_Init / MPI_Init_thread, before anything calls into the
// system: an MPI loaded later by dlopen (Python's mpi4py does so) resolves
// MPI_Init to the preloaded drop-in first.
#include "lifecycle.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compat.hpp"
#include "mirror.hpp"

namespace loom_mpi {
namespace {

struct Flavor {
  const char *name;    // for people
  const char *dir;     // the build directory of its libloom-mpi.so
  const char *marker;  // a symbol only its libraries define
};
// MPICH and its derivatives (same ABI) define MPIR_*; Open MPI defines the
// objects its predefined handles point to.
constexpr Flavor kMpich{"MPICH", "mpich", "MPIR_Err_create_code"};
constexpr Flavor kOpenMpi{"Open MPI", "openmpi", "ompi_mpi_comm_world"};
#if defined(OPEN_MPI)
constexpr Flavor kMine = kOpenMpi, kOther = kMpich;
#else
constexpr Flavor kMine = kMpich, kOther = kOpenMpi;
#endif

int collect_name(struct dl_phdr_info *info, size_t, void *names) {
  if (info->dlpi_name && *info->dlpi_name)
    static_cast<std::vector<std::string> *>(names)->push_back(info->dlpi_name);
  return 0;
}

// Whether a loaded object defines the other MPI's marker, also one loaded
// with RTLD_LOCAL (which dlsym(RTLD_DEFAULT, ...) would not see).
bool other_mpi_loaded() {
  if (dlsym(RTLD_DEFAULT, kOther.marker)) return true;
  std::vector<std::string> names;
  dl_iterate_phdr(collect_name, &names);  // dlopen outside its lock
  for (const std::string &n : names) {
    void *h = dlopen(n.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    bool found = dlsym(h, kOther.marker) != nullptr;
    dlclose(h);
    if (found) return true;
  }
  return false;
}

// This library's path, resolved.
std::string self_path() {
  Dl_info info;
  char real[PATH_MAX];
  if (!dladdr((void *)&self_path, &info) || !info.dli_fname ||
      !realpath(info.dli_fname, real))
    return "libloom-mpi.so";
  return real;
}

// The other flavour's build of this library where the build tree puts it
// (<build>/mpich/ and <build>/openmpi/), or "" when there is none.
std::string other_build(const std::string &self) {
  size_t slash = self.rfind('/');
  if (slash == std::string::npos || slash == 0) return "";
  size_t up = self.rfind('/', slash - 1);
  if (up == std::string::npos || self.compare(up + 1, slash - up - 1, kMine.dir) != 0)
    return "";
  std::string other = self.substr(0, up + 1) + kOther.dir + self.substr(slash);
  return access(other.c_str(), R_OK) == 0 ? other : "";
}

void refuse_other_mpi() {
  if (!other_mpi_loaded()) return;
  const std::string self = self_path(), other = other_build(self);
  std::fprintf(stderr,
               "loom: error: this program uses %s, but %s is Loom's drop-in for %s; "
               "use %s%s instead\n",
               kOther.name, self.c_str(), kMine.name,
               other.empty() ? "the build of libloom-mpi.so for " : other.c_str(),
               other.empty() ? kOther.name : "");
  // _exit: no exit handler or destructor runs in a process holding two MPIs.
  _exit(1);
}

__attribute__((constructor)) void check_at_load() { refuse_other_mpi(); }

}  // namespace
}  // namespace loom_mpi

LOOM_MPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  loom_mpi::refuse_other_mpi();
  loom_mpi::starting();
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) loom_mpi::started();
  return rc;
}

LOOM_MPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  loom_mpi::refuse_other_mpi();
  loom_mpi::starting();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) loom_mpi::started();
  return rc;
}
