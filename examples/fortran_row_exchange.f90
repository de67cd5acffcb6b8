! An ordinary Fortran MPI program: each rank owns a block of rows of a
! column-major array with one ghost row on each side, and exchanges its
! edge rows with its neighbours.  A row of a Fortran array is strided (one
! element every NX + 2), so it travels as an MPI_Type_vector.  Nothing here
! knows about Loom; run it as is, or with the drop-in preloaded to make the
! datatype work fast (both Fortran bindings of both MPIs reach it):
!
!   mpif90 fortran_row_exchange.f90 -o fortran_row_exchange
!   mpiexec -n 2 ./fortran_row_exchange
!   mpiexec -n 2 env LD_PRELOAD=/path/to/build/<mpi>/libloom-mpi.so ./fortran_row_exchange
program fortran_row_exchange
  use mpi
  implicit none
  integer, parameter :: NX = 64, NY = 4096   ! rows 0 and NX + 1 are ghosts
  integer :: ierr, rank, nprocs, up, down, row, i, j, bad
  double precision, allocatable :: a(:,:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  up = mod(rank + nprocs - 1, nprocs)
  down = mod(rank + 1, nprocs)

  allocate(a(0:NX + 1, NY))
  a = -1
  do j = 1, NY
    do i = 1, NX
      a(i, j) = value(rank, i, j)
    end do
  end do

  ! One row: NY elements, one every NX + 2.
  call MPI_Type_vector(NY, 1, NX + 2, MPI_DOUBLE_PRECISION, row, ierr)
  call MPI_Type_commit(row, ierr)
  ! My first row to the rank above, its last row into my upper ghost; and
  ! the other way round.
  call MPI_Sendrecv(a(1, 1), 1, row, up, 0, a(NX + 1, 1), 1, row, down, 0, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Sendrecv(a(NX, 1), 1, row, down, 1, a(0, 1), 1, row, up, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Type_free(row, ierr)

  bad = 0
  do j = 1, NY
    if (a(0, j) /= value(up, NX, j)) bad = bad + 1
    if (a(NX + 1, j) /= value(down, 1, j)) bad = bad + 1
  end do
  print '(a,i0,a,i0,a)', 'rank ', rank, ': ', bad, ' wrong ghost values'
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1

contains

  double precision function value(r, i, j)
    integer, intent(in) :: r, i, j
    value = r * 1d7 + i * 1d5 + j
  end function
end program
