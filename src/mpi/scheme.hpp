// Layout-aware scheme selection: staging through Loom, or the system MPI's
// own datatype path.
//
// Staging moves a message's bytes four times (pack, the transport's copy in
// and out, unpack); the system MPIs pack straight into their shared-memory
// cells and unpack straight out of them, pipelined across both processes.
// When a layout is made of long runs the system's per-run cost is nothing
// and its path is the faster one (measured in `loom bench p2p`: runs of
// 512 B and more on both MPIs; on MPICH only from 8 KiB, below which its
// datatype path costs twice a loop, up to a few MiB per message, beyond
// which it slows down again).  Short runs are
// where the system engines lose 2-15x, and there Loom stages.
//
// Only single-primitive types go to the system this way: MPICH 4.0.2
// mis-receives byte streams chunked inside an element of a mixed type, and
// a Loom peer may send this message as MPI_PACKED.  Point-to-point
// receives on MPICH take it only once the message is known to hold whole
// elements (a blocking receive probes first): a stream that ends inside an
// element (legal from an MPI_PACKED sender) fails there with
// MPI_ERR_TRUNCATE.
#pragma once
#include "mirror.hpp"

#include <cstddef>

namespace loom_mpi {

// Mean run (bytes) from which the system path is chosen: LOOM_SYSTEM_RUN,
// else a per-MPI default; 0 = never.
int64_t system_min_run();
// Smallest and largest message (bytes) the system path is chosen for
// (LOOM_SYSTEM_MIN, LOOM_SYSTEM_MAX, else per-MPI defaults).
size_t system_min_bytes();
size_t system_max_bytes();

// What an argument is for (classify() applies the receive rule above);
// `staged`: whatever Loom can move, it stages (the caller decides between
// the schemes itself).
enum class Use { send, recv, staged };

// Whether point-to-point receives may take the system path.
#if defined(MPICH)
constexpr bool kSystemReceives = false;
#else
constexpr bool kSystemReceives = true;
#endif

// True when a message of `bytes` of type m is better moved by the system's
// datatype path.
inline bool prefer_system(const Mirror &m, size_t bytes) {
  int64_t min_run = system_min_run();
  return min_run > 0 && m.elem_size > 0 && m.mean_run >= min_run &&
         bytes >= system_min_bytes() && bytes <= system_max_bytes();
}

}  // namespace loom_mpi
