! A `use mpi_f08` program through the drop-in, 2 ranks: a C send that went
! Loom-to-Loom probed and received in Fortran, a Fortran vector send
! received in C, nonblocking exchanges completed with statuses (MPI_Waitall,
! MPI_Test; a receive into a vector layout), a collective with a derived
! type, and neighbourhood all-to-alls on every kind of topology made in
! Fortran (cartesian, its sub-grid, graph, distributed graphs weighted and
! not).  Prints "No Errors" and exits 0 when
! every check passes (c_side.c describes the messages).  Argument "c": MPI
! starts from C; otherwise from Fortran.
program fortran_f08
  use mpi_f08
  use harness
  implicit none
  character(len=16) :: how
  integer, parameter :: NB = 1024, NV = 8 * NB
  integer :: ierr, rank, nprocs, other, total, n, k
  logical :: flag
  type(MPI_Datatype) :: vec
  type(MPI_Comm) :: graph, cart, ring
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: reqs(2)
  integer, parameter :: NR = 1036  ! l2l::kRdvBytes (c_side.c)
  integer(kind=1) :: by(NR)
  double precision, allocatable :: a(:,:), b(:)

  ierr = MPI_SUCCESS
  call get_command_argument(1, how)
  if (how == 'c') then
    call c_init()
  else
    call MPI_Init(ierr)
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  me = rank
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= 2) call MPI_Abort(MPI_COMM_WORLD, 2)
  other = 1 - rank
  allocate(a(16, NB), b(NV))
  call MPI_Type_vector(NB, 8, 16, MPI_DOUBLE_PRECISION, vec, ierr)
  call check(ierr, 'type_vector')
  call MPI_Type_commit(vec, ierr)
  call check(ierr, 'type_commit')

  if (rank == 0) then
    call c_send(0, 1, 1)
    call c_send(1, 1, 2)
    k = c_recv(0, 1, 3)
    if (k /= 0) call fail('C receive of a Fortran send', k)
  else
    call MPI_Probe(0, 1, MPI_COMM_WORLD, st, ierr)
    call check(ierr, 'probe')
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n)
    if (n /= NV) call fail('probe count of a C send', n)
    b = -1
    call MPI_Recv(b, NV, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, st, ierr)
    call check(ierr, 'recv of a C send')
    call expect_packed(b, 0d0, 'recv of a C send')
    call MPI_Probe(0, 2, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_BYTE, n)
    if (n /= NR) call fail('probe count of an RDV-sized message', n)
    by = 0
    call MPI_Recv(by, NR, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr, 'recv of an RDV-sized message')
    do k = 1, NR
      if (by(k) /= mod(k - 1, 100) + 1) call fail('RDV-sized message, byte', k)
    end do
    call fill(a, 0d0)
    call MPI_Send(a, 1, vec, 0, 3, MPI_COMM_WORLD, ierr)
    call check(ierr, 'send to C')
  end if

  call fill(a, 1d6 * rank)
  b = -1
  call MPI_Irecv(b, NV, MPI_DOUBLE_PRECISION, other, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, 1, vec, other, 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, sts, ierr)
  call check(ierr, 'waitall')
  if (sts(1)%MPI_SOURCE /= other .or. sts(1)%MPI_TAG /= 5) &
    call fail('waitall status source', sts(1)%MPI_SOURCE)
  call MPI_Get_count(sts(1), MPI_DOUBLE_PRECISION, n)
  if (n /= NV) call fail('waitall status count', n)
  call expect_packed(b, 1d6 * other, 'nonblocking')

  ! A nonblocking receive into the vector layout, completed by MPI_Test:
  ! Loom unpacks it only if the completion reaches Loom.
  do k = 1, NV
    b(k) = 3d6 * rank + (k - 1) + 0.5d0
  end do
  a = -1
  call MPI_Irecv(a, 1, vec, other, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(b, NV, MPI_DOUBLE_PRECISION, other, 6, MPI_COMM_WORLD, reqs(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, st, ierr)
    call check(ierr, 'test')
  end do
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
  call check(ierr, 'wait')
  if (st%MPI_SOURCE /= other) call fail('test status source', st%MPI_SOURCE)
  call expect_layout(a, 3d6 * other, 'irecv into a vector')

  b = -1
  call fill(a, 2d6)
  if (rank == 0) then
    call MPI_Bcast(a, 1, vec, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Bcast(b, NV, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    call expect_packed(b, 2d6, 'bcast')
  end if
  call check(ierr, 'bcast')

  ! A distributed graph (unweighted) made in Fortran: a neighbourhood
  ! all-to-all of the vector layout to the other rank.
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (/ other /), MPI_UNWEIGHTED, &
                                      1, (/ other /), MPI_UNWEIGHTED, MPI_INFO_NULL, &
                                      .false., graph, ierr)
  call check(ierr, 'dist_graph_create_adjacent')
  call fill(a, 4d6 * rank)
  b = -1
  call MPI_Neighbor_alltoall(a, 1, vec, b, NV, MPI_DOUBLE_PRECISION, graph, ierr)
  call check(ierr, 'neighbor_alltoall')
  call expect_packed(b, 4d6 * other, 'neighbor_alltoall')
  call MPI_Comm_free(graph, ierr)
  call check(ierr, 'comm_free')

  ! The other topology constructors: a 2 x 1 periodic grid cut to its ring
  ! of 2 (LOGICAL arrays), a graph, a weighted distributed graph; one
  ! neighbourhood exchange of the vector layout on each.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, (/ 2, 1 /), (/ .true., .true. /), .false., &
                       cart, ierr)
  call check(ierr, 'cart_create')
  call MPI_Cart_sub(cart, (/ .true., .false. /), ring, ierr)
  call check(ierr, 'cart_sub')
  call neighbors(ring, 2, 'cart_sub ring')
  call MPI_Comm_free(ring, ierr)
  call MPI_Comm_free(cart, ierr)
  call MPI_Graph_create(MPI_COMM_WORLD, 2, (/ 1, 2 /), (/ 1, 0 /), .false., graph, ierr)
  call check(ierr, 'graph_create')
  call neighbors(graph, 1, 'graph')
  call MPI_Comm_free(graph, ierr)
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, (/ rank /), (/ 1 /), (/ other /), (/ 7 /), &
                             MPI_INFO_NULL, .false., graph, ierr)
  call check(ierr, 'dist_graph_create')
  call neighbors(graph, 1, 'dist_graph')
  call MPI_Comm_free(graph, ierr)
  call check(ierr, 'comm_free')

  call MPI_Type_free(vec, ierr)
  call check(ierr, 'type_free')
  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  if (rank == 0 .and. total /= 0) print '(a,i0,a)', ' Found ', total, ' errors'
  call MPI_Finalize()
  if (total /= 0) stop 1

contains

  ! A neighbourhood all-to-all on c, whose `degree` neighbours are all the
  ! other rank: the vector layout of a 16 x NB slab to each (the vector
  ! resized to the slab, so block j is slab j), contiguous doubles back.
  subroutine neighbors(c, degree, what)
    type(MPI_Comm), intent(in) :: c
    integer, intent(in) :: degree
    character(*), intent(in) :: what
    type(MPI_Datatype) :: slab
    double precision, allocatable :: sb(:,:,:), r(:)
    integer :: j
    call MPI_Type_create_resized(vec, 0_MPI_ADDRESS_KIND, int(16 * NB * 8, MPI_ADDRESS_KIND), &
                                 slab, ierr)
    call MPI_Type_commit(slab, ierr)
    allocate(sb(16, NB, degree), r(degree * NV))
    do j = 1, degree
      call fill(sb(:, :, j), 5d6 * rank + j)
    end do
    r = -1
    call MPI_Neighbor_alltoall(sb, 1, slab, r, NV, MPI_DOUBLE_PRECISION, c, ierr)
    call check(ierr, what)
    do j = 1, degree
      ! Block j comes from the neighbour's block for this rank: for a ring
      ! of 2 the other's right block arrives from the left and vice versa.
      call expect_packed(r((j - 1) * NV + 1 : j * NV), 5d6 * other + (degree + 1 - j), what)
    end do
    call MPI_Type_free(slab, ierr)
  end subroutine
end program
