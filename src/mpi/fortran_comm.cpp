// Open MPI's Fortran communicator constructors and destructors, routed
// through the drop-in (fortran.hpp says why): a communicator a Fortran
// program makes gets its Loom key as a C program's does (protocol.md,
// "Communicator keys"), so its messages may go Loom-to-Loom, and a freed
// one drops its key.  LOGICAL arrays pass as they are: Open MPI's LOGICAL
// is a C int with .TRUE. = 1 here (fortran.hpp).
#include "fortran.hpp"

#if defined(OPEN_MPI)
using namespace loom_mpi::fortran;

using F = MPI_Fint;

LOOM_FORTRAN(comm_dup, (F * c, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Comm_dup(comm(c), &n), &n, out, ierr);
}
LOOM_FORTRAN(comm_dup_with_info, (F * c, F *info, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Comm_dup_with_info(comm(c), PMPI_Info_f2c(*info), &n), &n, out, ierr);
}
LOOM_FORTRAN(comm_split, (F * c, F *color, F *key, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Comm_split(comm(c), *color, *key, &n), &n, out, ierr);
}
LOOM_FORTRAN(comm_split_type, (F * c, F *split_type, F *key, F *info, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Comm_split_type(comm(c), *split_type, *key, PMPI_Info_f2c(*info), &n), &n, out,
       ierr);
}
LOOM_FORTRAN(comm_create, (F * c, F *group, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Comm_create(comm(c), PMPI_Group_f2c(*group), &n), &n, out, ierr);
}
LOOM_FORTRAN_PMPI(cart_create,
             (F * c, F *ndims, F *dims, F *periods, F *reorder, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Cart_create(comm(c), *ndims, dims, periods, *reorder, &n), &n, out, ierr);
}
LOOM_FORTRAN_PMPI(cart_sub, (F * c, F *remain, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Cart_sub(comm(c), remain, &n), &n, out, ierr);
}
LOOM_FORTRAN_PMPI(graph_create,
             (F * c, F *nnodes, F *index, F *edges, F *reorder, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Graph_create(comm(c), *nnodes, index, edges, *reorder, &n), &n, out, ierr);
}
LOOM_FORTRAN_PMPI(dist_graph_create, (F * c, F *nsrc, F *sources, F *degrees, F *dests,
                                 F *weights_, F *info, F *reorder, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Dist_graph_create(comm(c), *nsrc, sources, degrees, dests, weights(weights_),
                             PMPI_Info_f2c(*info), *reorder, &n),
       &n, out, ierr);
}
LOOM_FORTRAN_PMPI(dist_graph_create_adjacent,
             (F * c, F *indeg, F *sources, F *sweights, F *outdeg, F *dests, F *dweights,
              F *info, F *reorder, F *out, F *ierr)) {
  MPI_Comm n;
  made(MPI_Dist_graph_create_adjacent(comm(c), *indeg, sources, weights(sweights), *outdeg,
                                      dests, weights(dweights), PMPI_Info_f2c(*info),
                                      *reorder, &n),
       &n, out, ierr);
}
LOOM_FORTRAN(comm_free, (F * c, F *ierr)) {
  MPI_Comm n = comm(c);
  int rc = MPI_Comm_free(&n);
  if (rc == MPI_SUCCESS) *c = PMPI_Comm_c2f(n);
  set_err(ierr, rc);
}
LOOM_FORTRAN(comm_disconnect, (F * c, F *ierr)) {
  MPI_Comm n = comm(c);
  int rc = MPI_Comm_disconnect(&n);
  if (rc == MPI_SUCCESS) *c = PMPI_Comm_c2f(n);
  set_err(ierr, rc);
}

#endif  // OPEN_MPI
