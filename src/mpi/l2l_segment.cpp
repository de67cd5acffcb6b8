// Segments and peer discovery for the Loom-to-Loom protocol (see
// l2l_segment.hpp and docs/protocol.md).
#include "l2l_segment.hpp"

#include "config.hpp"
#include "errors.hpp"
#include "requests.hpp"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace loom_mpi {
namespace l2l {
namespace {

// What the probe word of this process is (read by peers to test access).
volatile uint64_t g_probe_word = kProbeWord;

struct PeerEntry {
  Header *seg = nullptr;    // mapped when known good
  bool refused = false;     // never again (pull or push failed, or unreadable)
  bool unreadable = false;  // cross-memory attach refused when first mapped
  double next_check = 0.0;  // a miss is re-checked after this time
  int misses = 0;           // backoff: 1 ms, doubling, up to 250 ms
};

std::mutex g_mu;
bool g_on = false;
int g_world = -1;
uint64_t g_job = 0;
Header *g_own = nullptr;
size_t g_own_bytes = 0;  // the mapping's length
int g_fd = -1;           // our segment's file, for reserve_arena
size_t g_reserved = 0;   // arena bytes reserved so far (under g_mu)
std::string g_name;
std::vector<PeerEntry> *g_peers = nullptr;  // by world rank; never destroyed
std::atomic<bool> g_any{false};

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// The job on this node: the launcher's per-node proxy (our parent) and
// when it started, with the world size.  0 when /proc cannot tell.
uint64_t job_key(int world_size) {
  pid_t pp = getppid();
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", (int)pp);
  FILE *f = std::fopen(path, "r");
  if (!f) return 0;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  // Field 22 (starttime) counts from the field after the command's ')'.
  const char *p = std::strrchr(buf, ')');
  if (!p) return 0;
  unsigned long long start = 0;
  int field = 2;
  for (const char *q = p + 1; *q; ++q)
    if (*q == ' ' && ++field == 22) {
      start = std::strtoull(q + 1, nullptr, 10);
      break;
    }
  if (!start) return 0;
  return mix(mix(mix(0x4c4f4f4dull, (uint64_t)pp), start), (uint64_t)world_size);
}

std::string seg_name(int w) {
  char b[64];
  std::snprintf(b, sizeof b, "/loom-%016llx-%d", (unsigned long long)g_job, w);
  return b;
}

// Whether this process may read pid's memory: kcmp is the kernel's cheap
// proxy for the ptrace check process_vm_readv makes; then one real read.
bool readable(const Header *h) {
  if (!config().on(Id::cma)) return false;
  if (syscall(SYS_kcmp, (long)getpid(), (long)h->pid, KCMP_VM, 0L, 0L) < 0 &&
      errno != ENOSYS)
    return false;
  uint64_t v = 0;
  iovec l{&v, sizeof v}, r{reinterpret_cast<void *>(h->probe_addr), sizeof v};
  return process_vm_readv(h->pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof v &&
         v == kProbeWord;
}

Header *map_peer(int w) {
  std::string name = seg_name(w);
  int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) return nullptr;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(Header)) {
    close(fd);
    return nullptr;
  }
  // The whole segment: header, slots and the arena (address space only;
  // receivers touch just the pages slots name).
  const size_t len = (size_t)sb.st_size;
  void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return nullptr;
  auto *h = static_cast<Header *>(p);
  if (h->magic != kMagic || h->version != kVersion || h->world_rank != w ||
      (h->arena_bytes && kArenaAt + h->arena_bytes > len) || kill(h->pid, 0) != 0) {
    munmap(p, len);
    return nullptr;
  }
  return h;
}

// Maps w's segment if it can be had now (under g_mu).
Header *segment_locked(PeerEntry &e, int w) {
  if (e.seg) return e.seg;
  double t = now_s();
  if (t < e.next_check) return nullptr;
  Header *h = map_peer(w);
  if (!h) {
    e.next_check = t + std::min(0.25, 0.001 * (1 << std::min(e.misses++, 8)));
    return nullptr;
  }
  if (!readable(h)) {
    e.unreadable = true;
    __atomic_store_n(&e.refused, true, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&e.seg, h, __ATOMIC_RELEASE);
  g_any.store(true, std::memory_order_relaxed);
  note("Loom-to-Loom: world rank %d (pid %d) is a Loom process%s", w, (int)h->pid,
       e.refused ? " this one cannot read: staged" : "");
  return h;
}

PeerEntry *entry_of(int w) {
  if (!g_on || w < 0 || w == g_world || !g_peers || (size_t)w >= g_peers->size())
    return nullptr;
  return &(*g_peers)[(size_t)w];
}

}  // namespace

namespace {

// Creates this process's segment as world rank `rank` of `size`.
void create_locked(int rank, int size, bool early) {
  if (size < 2 || rank < 0 || rank >= size) return;
  g_world = rank;
  g_job = job_key(size);
  if (!g_job) return;
  g_name = seg_name(g_world);
  shm_unlink(g_name.c_str());  // a leftover of a crashed run with our key
  int fd = shm_open(g_name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return;
  // The arena is address space until reserve_arena backs it (Invariant A).
  const size_t arena = (size_t)config().bytes(Id::l2l_arena);
  size_t len = sizeof(Header);
  if (arena > 0) len = kArenaAt + arena;
  if (ftruncate(fd, (off_t)len) != 0 && (len = sizeof(Header), ftruncate(fd, (off_t)len) != 0)) {
    close(fd);
    shm_unlink(g_name.c_str());
    return;
  }
  void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    shm_unlink(g_name.c_str());
    return;
  }
  if (g_fd >= 0) close(g_fd);
  g_fd = fd;
  g_own_bytes = len;
  g_reserved = 0;
  // Reserve the header and slots now: they are touched from the start.
  if (fallocate(fd, 0, 0, (off_t)kArenaAt) != 0 && len > sizeof(Header)) len = sizeof(Header);
  auto *h = static_cast<Header *>(p);  // zero-filled by ftruncate
  h->arena_bytes = len > sizeof(Header) ? arena : 0;
  h->pid = getpid();
  h->world_size = size;
  h->world_rank = g_world;
  h->early = early;
  h->probe_addr = reinterpret_cast<uint64_t>(&g_probe_word);
  h->version = kVersion;
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kMagic;
  if (!g_peers) g_peers = new std::vector<PeerEntry>((size_t)size);
  g_own = h;
}

// The launcher's word for this process's world rank and size, before
// MPI_Init (Hydra: PMI_RANK/PMI_SIZE; Open MPI: OMPI_COMM_WORLD_*).
bool launcher_rank(int *rank, int *size) {
  const char *r = std::getenv("PMI_RANK"), *n = std::getenv("PMI_SIZE");
  if (!r || !n) r = std::getenv("OMPI_COMM_WORLD_RANK"), n = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!r || !n) return false;
  *rank = std::atoi(r);
  *size = std::atoi(n);
  return true;
}

bool wanted() { return config().on(Id::l2l) && config().on(Id::p2p) && config().on(Id::cma); }

}  // namespace

void start_early() {
  std::lock_guard<std::mutex> g(g_mu);
  int rank, size;
  if (g_own || !wanted() || !launcher_rank(&rank, &size)) return;
  create_locked(rank, size, true);
}

void start() {
  std::lock_guard<std::mutex> g(g_mu);
  int rank = -1, size = 0;
  if (!wanted() || PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
      PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
    return;
  if (g_own && (g_own->world_rank != rank || g_own->world_size != size)) {
    // The launcher's numbering was not MPI_COMM_WORLD's: start over.
    shm_unlink(g_name.c_str());
    munmap(g_own, g_own_bytes);
    g_own = nullptr;
  }
  if (!g_own) create_locked(rank, size, false);
  if (!g_own) return;
  g_on = true;
  arm_finalize_hook();
  note("Loom-to-Loom: segment %s%s", g_name.c_str(),
       g_own->early ? "" : " (made after MPI_Init: no Loom-to-Loom collectives)");
}

void stop() {
  std::lock_guard<std::mutex> g(g_mu);
  if (!g_on) return;
  g_on = false;
  shm_unlink(g_name.c_str());
  // The mapping stays: receivers that still hold it read DONE slots only.
}

bool reserve_arena(size_t upto) {
  std::lock_guard<std::mutex> g(g_mu);
  if (!g_own || g_fd < 0 || upto > g_own->arena_bytes) return false;
  if (upto <= g_reserved) return true;
  // 2 MiB steps: few calls, and a high-water mark that follows use.
  constexpr size_t step = size_t(2) << 20;
  const size_t to = std::min<size_t>(g_own->arena_bytes, (upto + step - 1) / step * step);
  // The MPI library keeps its own transport in the same tmpfs: leave it a
  // quarter of the file system and at least 256 MiB free (a container's
  // small /dev/shm then means no arena, not a starved MPI).
  struct statvfs fs;
  if (fstatvfs(g_fd, &fs) != 0) return false;
  const uint64_t total = (uint64_t)fs.f_blocks * fs.f_frsize;
  const uint64_t avail = (uint64_t)fs.f_bavail * fs.f_frsize;
  const uint64_t keep = std::max<uint64_t>(uint64_t(256) << 20, total / 4);
  if (avail < keep + (to - g_reserved)) return false;
  if (fallocate(g_fd, 0, (off_t)(kArenaAt + g_reserved), (off_t)(to - g_reserved)) != 0)
    return false;
  g_reserved = to;
  return true;
}

bool enabled() { return g_on; }
int my_world() { return g_world; }
Header *own() { return g_own; }
bool any_peer() { return g_any.load(std::memory_order_relaxed); }

Header *peer_segment(int w, bool now) {
  if (g_on && w == g_world) return g_own;  // a collective's block to itself
  PeerEntry *e = entry_of(w);
  if (!e) return nullptr;
  Header *h = __atomic_load_n(&e->seg, __ATOMIC_ACQUIRE);
  if (h) return h;
  std::lock_guard<std::mutex> g(g_mu);
  if (now) e->next_check = 0;
  return segment_locked(*e, w);
}

bool coll_peer(int w) {
  PeerEntry *e = entry_of(w);
  if (!e) return false;
  Header *h;
  // A decision all ranks must reach alike: look now.
  h = peer_segment(w, true);
  return h && h->early && !e->unreadable && g_own && g_own->early;
}

Header *peer(int w) {
  Header *h = peer_segment(w);
  if (!h) return nullptr;
  return __atomic_load_n(&(*g_peers)[(size_t)w].refused, __ATOMIC_ACQUIRE) ? nullptr : h;
}

void refuse(int w, const char *why) {
  if (!g_peers || w < 0 || (size_t)w >= g_peers->size()) return;
  std::lock_guard<std::mutex> g(g_mu);
  PeerEntry &e = (*g_peers)[(size_t)w];
  if (e.refused) return;
  __atomic_store_n(&e.refused, true, __ATOMIC_RELEASE);
  note("Loom-to-Loom: world rank %d refused (%s): staged from now on", w, why);
}

}  // namespace l2l
}  // namespace loom_mpi
