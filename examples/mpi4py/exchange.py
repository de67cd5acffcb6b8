#!/usr/bin/env python3
"""An ordinary mpi4py program moving numpy arrays with derived datatypes.

Nothing here knows about Loom; run it as is, or with Loom's drop-in library
preloaded so that the derived datatypes are packed by Loom:

    mpiexec -n 2 python3 exchange.py
    mpiexec -n 2 env LD_PRELOAD=/path/to/build/openmpi/libloom-mpi.so python3 exchange.py

Every rank builds its arrays from values that say where they came from
(rank, array, element), moves them with

  1. Send/Recv of a matrix column (Create_vector), into another column;
  2. Send/Recv of three columns as one resized column type (Create_resized,
     count 3), received as contiguous rows (a block transpose), and back;
  3. Send/Recv of a 3-D sub-block (Create_subarray) into another sub-block;
  4. Alltoallw with a subarray type per peer: a distributed 2-D complex array
     split by rows is transposed to one split by columns and back (the
     pencil/slab transpose of parallel FFTs),

and compares what arrived, and every element that must stay untouched,
with numpy's own slicing of the same values.  Exits 1 on any mismatch.

--show-types prints each committed derived type's size and extent, one line
per type and rank ("rank R: type NAME size S extent E").
"""
import sys

import numpy as np
from mpi4py import MPI

SENTINEL = -1.0  # fills receive arrays: what must stay untouched stays -1

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
left, right = (rank - 1) % size, (rank + 1) % size
show_types = "--show-types" in sys.argv[1:]
failures = []


def say(line):
    """Prints one line in one write: the launcher forwards every rank's
    output, and a line written in pieces may come out cut by another's."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def values(owner, array, shape):
    """Distinct values for every element of array number `array` on rank `owner`."""
    n = int(np.prod(shape))
    return ((owner * 100 + array) * 1e6 + np.arange(n, dtype=np.float64)).reshape(shape)


def committed(name, datatype):
    datatype.Commit()
    if show_types:
        say(f"rank {rank}: type {name} size {datatype.Get_size()} "
            f"extent {datatype.Get_extent()[1]}")
    return datatype


def check(what, got, expected):
    if not np.array_equal(got, expected):
        bad = np.argwhere(got != expected)
        first = tuple(int(i) for i in bad[0]) if len(bad) else ()
        failures.append(f"{what}: {len(bad)} elements differ, first at {first}: "
                        f"got {got[first] if first else got}, "
                        f"expected {expected[first] if first else expected}")


def ring(send, recv, tag):
    """Sends to the right neighbour, receives from the left one, in an order
    that cannot deadlock even if Send waits for its receiver."""
    if rank % 2 == 0:
        comm.Send(send, dest=right, tag=tag)
        comm.Recv(recv, source=left, tag=tag)
    else:
        comm.Recv(recv, source=left, tag=tag)
        comm.Send(send, dest=right, tag=tag)


def column_exchange():
    rows, cols = 7, 5
    a = values(rank, 1, (rows, cols))
    b = np.full((rows, cols), SENTINEL)
    column = committed("column", MPI.DOUBLE.Create_vector(rows, 1, cols))
    # Column 1 of a, sent to the right; column 3 of b, from the left.
    ring([a.reshape(-1)[1:], 1, column], [b.reshape(-1)[3:], 1, column], tag=1)
    expected = np.full((rows, cols), SENTINEL)
    expected[:, 3] = values(left, 1, (rows, cols))[:, 1]
    check("vector column Send/Recv", b, expected)
    column.Free()


def column_block_transpose():
    rows, cols, first, k = 6, 8, 2, 3
    a = values(rank, 2, (rows, cols))
    column = MPI.DOUBLE.Create_vector(rows, 1, cols)
    # One double's extent: count k means k adjacent columns.
    columns = committed("resized column", column.Create_resized(0, a.itemsize))
    column.Free()
    rows_in = np.full((k, rows), SENTINEL)
    ring([a.reshape(-1)[first:], k, columns], [rows_in, k * rows, MPI.DOUBLE], tag=2)
    check("resized columns sent, rows received", rows_in,
          values(left, 2, (rows, cols))[:, first:first + k].T)
    # And back: contiguous rows sent, received as columns of a fresh matrix.
    back = np.full((rows, cols), SENTINEL)
    ring([rows_in, k * rows, MPI.DOUBLE], [back.reshape(-1)[first:], k, columns], tag=3)
    expected = np.full((rows, cols), SENTINEL)
    expected[:, first:first + k] = values((rank - 2) % size, 2, (rows, cols))[:, first:first + k]
    check("rows sent, resized columns received", back, expected)
    columns.Free()


def subarray_exchange():
    shape, block = (4, 6, 5), (2, 3, 2)
    send_at, recv_at = (1, 2, 3), (0, 1, 0)
    a = values(rank, 3, shape)
    b = np.full(shape, SENTINEL)
    send_t = committed("subarray send", MPI.DOUBLE.Create_subarray(shape, block, send_at))
    recv_t = committed("subarray recv", MPI.DOUBLE.Create_subarray(shape, block, recv_at))
    ring([a, 1, send_t], [b, 1, recv_t], tag=4)
    region = lambda at: tuple(slice(s, s + n) for s, n in zip(at, block))
    expected = np.full(shape, SENTINEL)
    expected[region(recv_at)] = values(left, 3, shape)[region(send_at)]
    check("subarray Send/Recv", b, expected)
    send_t.Free()
    recv_t.Free()


def split(n):
    """(start, length) of each rank's part of n items, the first n % size
    ranks holding one more."""
    lengths = [n // size + (r < n % size) for r in range(size)]
    return [(sum(lengths[:r]), lengths[r]) for r in range(size)]


def alltoallw_transpose():
    n0, n1 = 5 * size + 2, 4 * size + 1  # uneven parts on 2 and more ranks
    rows, cols = split(n0), split(n1)
    i, j = np.meshgrid(np.arange(n0), np.arange(n1), indexing="ij")

    def whole(owner):  # the n0 x n1 array as rank `owner` sees it
        return (i * 1000 + j) + 1j * (owner + 1 + i - j)

    r0, nr = rows[rank]
    c0, nc = cols[rank]
    by_rows = np.ascontiguousarray(whole(rank)[r0:r0 + nr, :])
    by_cols = np.full((n0, nc), SENTINEL, dtype=np.complex128)
    cplx = MPI.C_DOUBLE_COMPLEX
    # To peer p: my rows, p's columns; from peer p: p's rows, my columns.
    send_types = [committed(f"alltoallw send to {p}",
                            cplx.Create_subarray((nr, n1), (nr, cols[p][1]), (0, cols[p][0])))
                  for p in range(size)]
    recv_types = [committed(f"alltoallw recv from {p}",
                            cplx.Create_subarray((n0, nc), (rows[p][1], nc), (rows[p][0], 0)))
                  for p in range(size)]
    ones, zeros = [1] * size, [0] * size
    comm.Alltoallw([by_rows, (ones, zeros), send_types], [by_cols, (ones, zeros), recv_types])
    # The rows from peer p are p's (`whole` differs by rank).
    expected = np.empty((n0, nc), dtype=np.complex128)
    for p, (start, length) in enumerate(rows):
        expected[start:start + length] = whole(p)[start:start + length, c0:c0 + nc]
    check("Alltoallw rows to columns", by_cols, expected)
    # Back: the same types, roles swapped.
    again = np.full((nr, n1), SENTINEL, dtype=np.complex128)
    comm.Alltoallw([by_cols, (ones, zeros), recv_types], [again, (ones, zeros), send_types])
    check("Alltoallw columns to rows", again, by_rows)
    for t in send_types + recv_types:
        t.Free()


column_exchange()
column_block_transpose()
subarray_exchange()
alltoallw_transpose()
for f in failures:
    say(f"rank {rank}: FAIL {f}")
vendor, version = MPI.get_vendor()
say(f"rank {rank} of {size}: {'FAIL' if failures else 'ok'} "
    f"({vendor} {'.'.join(map(str, version))})")
sys.exit(1 if failures else 0)
