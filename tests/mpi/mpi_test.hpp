// Small harness shared by the MPI-level tests: failure reporting, the
// "is the drop-in really in front of the system MPI" check, error classes.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace loomtest {

inline int &failures() {
  static int n = 0;
  return n;
}

// Records a failure; prints the first 25 in full.
inline void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline void failf(const char *fmt, ...) {
  if (++failures() > 25) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("FAIL: ", stdout);
  std::vfprintf(stdout, fmt, ap);
  std::fputc('\n', stdout);
  va_end(ap);
  std::fflush(stdout);
}

#define EXPECT_MSG(cond, ...)                                        \
  do {                                                               \
    if (!(cond)) {                                                   \
      char expect_buf_[512];                                         \
      std::snprintf(expect_buf_, sizeof expect_buf_, __VA_ARGS__);   \
      ::loomtest::failf("%s:%d: %s: %s", __FILE__, __LINE__, #cond,  \
                        expect_buf_);                                \
    }                                                                \
  } while (0)
#define EXPECT(cond) EXPECT_MSG(cond, "%s", "")

inline int err_class(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

// Path of the object that defines `sym` as the program resolves it.
inline std::string provider(const char *sym) {
  void *p = dlsym(RTLD_DEFAULT, sym);
  Dl_info info;
  if (!p || !dladdr(p, &info) || !info.dli_fname) return "?";
  return info.dli_fname;
}

// The drop-in must be what MPI_Pack resolves to, or every comparison in
// these tests would compare the system MPI with itself.
inline bool dropin_active() {
  return provider("MPI_Pack").find("libloom-mpi") != std::string::npos &&
         provider("PMPI_Pack").find("libloom-mpi") == std::string::npos;
}

// Finishes a test program: summary line, MPI_Finalize, exit status.
inline int finish(const char *name) {
  std::printf("%s: %s (%d failure%s)\n", name,
              failures() ? "FAILED" : "passed", failures(),
              failures() == 1 ? "" : "s");
  std::fflush(stdout);
  MPI_Finalize();
  return failures() ? 1 : 0;
}

}  // namespace loomtest
