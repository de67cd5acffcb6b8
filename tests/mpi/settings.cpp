// The drop-in obeys its settings: a plain MPI program run as two ranks with
// libloom-mpi.so preloaded and LOOM_* variables set by the test.
//
//   loom_mpi_settings <PATHS> <quiet|TEXT> [DOUBLES [RUN]]
//
// Rank 0 sends a strided vector (DOUBLES doubles in runs of RUN, each run
// followed by a gap as long; by default 1000 in runs of 1, 8-byte runs
// that Loom stages when LOOM_P2P is on) to rank 1, once per entry of PATHS (`staged` or `system`, joined
// by commas: "staged,system" sends twice).  This program's own PMPI_Send
// sits between the drop-in and the system MPI (a PMPI tool, exported from
// the executable) and sees what the drop-in hands the system for each
// message: MPI_PACKED (`staged`) or the user's datatype (`system`,
// LOOM_P2P=off).  The drop-in's stderr during the run is
// captured: `quiet` expects none at all, otherwise it must contain TEXT
// ("{rank}" in TEXT stands for the rank).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_test.hpp"

using namespace loomtest;

namespace {

constexpr int kTag = 77;
// Doubles, every other one: 1000 (8000 bytes, below both eager limits),
// or the count given as the third argument.
int g_count = 1000;
int g_run = 1;  // doubles per run

// What reached the system's PMPI_Send with kTag, per call.
struct SystemSend {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int count = 0;
};
std::vector<SystemSend> g_seen;

// PATHS split at commas; empty when an entry is neither path.
std::vector<bool> staged_paths(const std::string &paths) {
  std::vector<bool> out;
  for (size_t at = 0; at <= paths.size();) {
    size_t end = paths.find(',', at);
    if (end == std::string::npos) end = paths.size();
    const std::string p = paths.substr(at, end - at);
    if (p != "staged" && p != "system") return {};
    out.push_back(p == "staged");
    at = end + 1;
  }
  return out;
}

// Runs f with file descriptor 2 redirected to a temporary file; returns
// what was written there.
template <class F>
std::string capture_stderr(F f) {
  std::fflush(stderr);
  FILE *tmp = std::tmpfile();
  int saved = dup(2);
  if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0) {
    failf("cannot redirect stderr");
    f();
    return "";
  }
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) text += (char)c;
  std::fclose(tmp);
  return text;
}

}  // namespace

// The PMPI tool: records, then forwards to the system MPI.
extern "C" int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm) {
  using Fn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
  static Fn system_send = (Fn)dlsym(RTLD_NEXT, "PMPI_Send");
  if (tag == kTag) g_seen.push_back({type, count});
  return system_send(buf, count, type, dest, tag, comm);
}

int main(int argc, char **argv) {
  const std::vector<bool> staged =
      argc >= 3 && argc <= 5 ? staged_paths(argv[1]) : std::vector<bool>{};
  if (argc >= 4) g_count = std::atoi(argv[3]);
  if (argc == 5) g_run = std::atoi(argv[4]);
  if (staged.empty() || g_count <= 0 || g_run <= 0 || g_count % g_run != 0) {
    std::fprintf(stderr,
                 "usage: %s <staged|system>[,<staged|system>...] <quiet|TEXT> [doubles [run, "
                 "dividing doubles]]\n",
                 argv[0]);
    return 2;
  }
  const std::string expect = argv[2];
  int rank = -1, size = 0;
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  std::vector<double> data(2 * g_count);
  const std::string err = capture_stderr([&] {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_vector(g_count / g_run, g_run, 2 * g_run, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    if (size != 2) return;
    for (int i = 0; i < 2 * g_count; ++i) data[i] = rank == 0 ? i + 0.5 : -1;
    for (size_t k = 0; k < staged.size(); ++k)
      if (rank == 0)
        MPI_Send(data.data(), 1, strided, 1, kTag, MPI_COMM_WORLD);
      else
        MPI_Recv(data.data(), 1, strided, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  });
  std::fputs(err.c_str(), stderr);  // for the test log
  if (size != 2) failf("needs 2 ranks, got %d", size);
  if (!dropin_active()) failf("rank %d: MPI_Pack resolves to %s", rank, provider("MPI_Pack").c_str());

  if (rank == 0) {
    EXPECT_MSG(g_seen.size() == staged.size(), "the system's PMPI_Send was called %zu times",
               g_seen.size());
    for (size_t k = 0; k < staged.size() && k < g_seen.size(); ++k)
      if (staged[k])
        EXPECT_MSG(g_seen[k].type == MPI_PACKED && g_seen[k].count == g_count * 8,
                   "message %zu: expected MPI_PACKED, %d bytes (Loom stages), got count %d of "
                   "another type", k + 1, g_count * 8, g_seen[k].count);
      else
        EXPECT_MSG(g_seen[k].type == strided && g_seen[k].count == 1,
                   "message %zu: expected the user's datatype (the system path), got count %d "
                   "of %s", k + 1, g_seen[k].count,
                   g_seen[k].type == MPI_PACKED ? "MPI_PACKED" : "another type");
  } else if (rank == 1) {
    for (int i = 0; i < 2 * g_count; ++i) {
      double want = i % (2 * g_run) < g_run ? i + 0.5 : -1;
      if (data[i] != want) {
        failf("received element %d is %g, expected %g", i, data[i], want);
        break;
      }
    }
  }

  if (expect == "quiet") {
    EXPECT_MSG(err.empty(), "rank %d: expected no output on stderr, got:\n%s", rank, err.c_str());
  } else {
    std::string text = expect;
    size_t at = text.find("{rank}");
    if (at != std::string::npos) text.replace(at, 6, std::to_string(rank));
    EXPECT_MSG(err.find(text) != std::string::npos, "rank %d: stderr lacks '%s'", rank,
               text.c_str());
  }
  MPI_Type_free(&strided);
  return finish("settings");
}
