// The MPI-4 large-count point-to-point calls (MPI_Send_c, MPI_Recv_c, ...)
// on the int-count paths.  A count that fits an int is passed as it is.  A
// larger one becomes one instance of a type made for the call whose typemap
// is `count` copies of the program's type (the message, its signature and
// the status's byte count are the same; MPI_Get_count_c and
// MPI_Get_elements_c on the program's type read the same numbers), so every
// such call keeps Loom's semantics: a receive that a Loom-to-Loom RDV may
// match is still checked (protocol.md, Invariant R), and a send of an RDV's
// size is still announced.  Bypassing Loom instead would hand such a
// receive the RDV's bytes as data.
#pragma once
#include "compat.hpp"
#include "errors.hpp"

namespace loom_mpi {

// (count, type) as an int-count call takes them.  Holds the made type, if
// any, until destroyed: a nonblocking operation keeps what it needs (the
// system its own reference, Loom its loom type), as it does when a program
// frees a type right after posting.  A null type is passed on with count 0
// (an argument the call ignores, or one the system then reports).
class IntCount {
 public:
  IntCount(MPI_Count count, MPI_Datatype type);
  ~IntCount();
  IntCount(const IntCount &) = delete;
  IntCount &operator=(const IntCount &) = delete;

  // MPI_SUCCESS, or the error class the call must return (a type the
  // system would not build for a count that large).
  int error() const { return error_; }
  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int error_ = MPI_SUCCESS;
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Datatype made_ = MPI_DATATYPE_NULL;
};

// Runs f(count, type) with (count, dt) as an int-count call takes them;
// the conversion's own failure is raised on comm.
template <class F>
int with_int_count(MPI_Comm comm, MPI_Count count, MPI_Datatype dt, F &&f) {
  IntCount c(count, dt);
  if (c.error() != MPI_SUCCESS) return raise(comm, c.error());
  return f(c.count(), c.type());
}

}  // namespace loom_mpi
