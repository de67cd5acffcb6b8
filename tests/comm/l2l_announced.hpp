// What a test can see of the Loom-to-Loom protocol from outside the
// drop-in: this process's own Loom segment in /dev/shm, whose sequence
// counter says how many rendezvous the process has announced (every
// message or block sent Loom-to-Loom takes one), so that a silent
// fallback to the system or to staging cannot pass for a pass.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "l2l_segment.hpp"

namespace commtest {

// This process's own segment: the /dev/shm/loom-* whose header names our
// pid (other jobs may run beside this one); nullptr when there is none.
inline const loom_mpi::l2l::Header *find_segment() {
  using loom_mpi::l2l::Header;
  DIR *d = opendir("/dev/shm");
  if (!d) return nullptr;
  const Header *found = nullptr;
  while (dirent *e = readdir(d)) {
    if (std::strncmp(e->d_name, "loom-", 5) != 0) continue;
    std::string path = std::string("/dev/shm/") + e->d_name;
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) continue;
    void *p = mmap(nullptr, sizeof(Header), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) continue;
    auto *h = static_cast<const Header *>(p);
    if (h->magic == loom_mpi::l2l::kMagic && h->pid == getpid()) {
      found = h;
      break;
    }
    munmap(p, sizeof(Header));
  }
  closedir(d);
  return found;
}

// Rendezvous announced so far by the process whose segment is @p seg (0
// without one).
inline uint64_t announced(const loom_mpi::l2l::Header *seg) { return seg ? seg->seq.load() : 0; }

}  // namespace commtest
