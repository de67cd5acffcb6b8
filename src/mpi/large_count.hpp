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
#include <climits>
#include <cstddef>
#include <vector>

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

// The same for a call with a count on each side: f(scount, stype, rcount,
// rtype).
template <class F>
int with_int_counts(MPI_Comm comm, MPI_Count scount, MPI_Datatype stype, MPI_Count rcount,
                    MPI_Datatype rtype, F &&f) {
  IntCount s(scount, stype), r(rcount, rtype);
  if (s.error() != MPI_SUCCESS) return raise(comm, s.error());
  if (r.error() != MPI_SUCCESS) return raise(comm, r.error());
  return f(s.count(), s.type(), r.count(), r.type());
}

// Counts or displacements of a v or w collective's large-count form as the
// int form's array: from() is false when one does not fit (the system's own
// _c call then moves the collective).  A null array stays null; a zero-length
// one still has an address (the systems check it).
class IntArray {
 public:
  template <class T>
  bool from(const T *a, int n) {
    if (!a) return true;
    v_.assign(n > 0 ? (std::size_t)n : 1, 0);
    for (int i = 0; i < n; ++i) {
      if (a[i] < INT_MIN || a[i] > INT_MAX) return false;
      v_[(std::size_t)i] = (int)a[i];
    }
    return true;
  }
  const int *data() const { return v_.empty() ? nullptr : v_.data(); }

 private:
  std::vector<int> v_;
};

// The number of blocks of a v or w collective on comm: its size; 0 for an
// intercommunicator (Loom leaves those collectives to the system).
int group_blocks(MPI_Comm comm);

}  // namespace loom_mpi
