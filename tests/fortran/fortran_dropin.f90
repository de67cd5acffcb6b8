! A Fortran program (mpif.h-style `use mpi`) through the drop-in, 2 ranks:
! point-to-point in every completion style, persistent requests, probes and
! matched probes, Sendrecv_replace, collectives with derived types and
! MPI_IN_PLACE, a cartesian neighbourhood exchange and a duplicated
! communicator, with messages large enough to go Loom-to-Loom.  C code in
! the same program (c_side.c) sends to and receives from the Fortran code:
! a C send that went Loom-to-Loom must reach a Fortran receive as data.
! Every call's ierr and every element are checked; prints "No Errors" and
! exits 0 when all pass.  Argument "c": MPI starts from C, as in a C main
! program that calls Fortran code; otherwise from Fortran.
program fortran_dropin
  use mpi
  use harness
  implicit none
  character(len=16) :: how
  integer, parameter :: NB = 1024, NL = 16384, NV = 8 * NB
  integer :: ierr, rank, nprocs, other, total, i, k, n, idx, done, round
  integer :: vec, vecl, colw, cart, dup, msg
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), reqs(2), idxs(2)
  integer :: types_s(2), types_r(2), counts_s(2), counts_r(2), displs(2)
  integer(kind=MPI_ADDRESS_KIND) :: adispls(2), lb, extent
  integer, parameter :: NR = 1036  ! l2l::kRdvBytes (c_side.c)
  integer(kind=1) :: by(NR)
  logical :: flag
  double precision, allocatable :: a(:,:), b(:), big(:,:), rb(:,:,:), c2(:)

  ierr = MPI_SUCCESS
  call get_command_argument(1, how)
  if (how == 'c') then
    call c_init()
  else
    call MPI_Init(ierr)
  end if
  call check(ierr, 'init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  me = rank
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 2) then
    if (rank == 0) print *, 'needs 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  other = 1 - rank
  allocate(a(16, NB), b(NV), big(16, NL), rb(16, NB, 2), c2(2 * NV))

  ! 8 doubles of every 16: 64 KiB (vec) and 1 MiB (vecl) of data.
  call MPI_Type_vector(NB, 8, 16, MPI_DOUBLE_PRECISION, vec, ierr)
  call check(ierr, 'type_vector')
  call MPI_Type_commit(vec, ierr)
  call check(ierr, 'type_commit')
  call MPI_Type_vector(NL, 8, 16, MPI_DOUBLE_PRECISION, vecl, ierr)
  call MPI_Type_commit(vecl, ierr)

  ! C sends, Fortran probes and receives (64 KiB, then an RDV's size).
  if (rank == 0) then
    call c_send(0, 1, 1)
    call c_send(1, 1, 2)
  else
    call MPI_Probe(0, 1, MPI_COMM_WORLD, st, ierr)
    call check(ierr, 'probe')
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
    if (n /= NV) call fail('probe count of a C send', n)
    ! Matched probe and receive leave the status's MPI_ERROR alone (only the
    ! calls of several requests set it).
    st(MPI_ERROR) = MPI_ERR_DIMS
    call MPI_Mprobe(0, 1, MPI_COMM_WORLD, msg, st, ierr)
    call check(ierr, 'mprobe')
    if (st(MPI_ERROR) /= MPI_ERR_DIMS) call fail('mprobe wrote MPI_ERROR', st(MPI_ERROR))
    b = -1
    call MPI_Mrecv(b, NV, MPI_DOUBLE_PRECISION, msg, st, ierr)
    call check(ierr, 'mrecv of a C send')
    if (st(MPI_ERROR) /= MPI_ERR_DIMS) call fail('mrecv wrote MPI_ERROR', st(MPI_ERROR))
    if (msg /= MPI_MESSAGE_NULL) call fail('mrecv left the message handle', msg)
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
    if (n /= NV) call fail('count of a C send', n)
    call expect_packed(b, 0d0, 'recv of a C send')
    by = 0
    call MPI_Recv(by, NR, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr, 'recv of an RDV-sized message')
    do k = 1, NR
      if (by(k) /= mod(k - 1, 100) + 1) call fail('RDV-sized message, byte', k)
    end do
  end if

  ! Fortran sends, C receives (64 KiB); C sends 1 MiB into a Fortran layout.
  if (rank == 1) then
    call fill(a, 0d0)
    call MPI_Send(a, 1, vec, 0, 3, MPI_COMM_WORLD, ierr)
    call check(ierr, 'send to C')
    big = -1
    call MPI_Recv(big, 1, vecl, 0, 4, MPI_COMM_WORLD, st, ierr)
    call check(ierr, 'recv of 1 MiB from C')
    call expect_layout(big, 0d0, 'recv of 1 MiB from C')
  else
    k = c_recv(0, 1, 3)
    if (k /= 0) call fail('C receive of a Fortran send, wrong values', k)
    call c_send(2, 1, 4)
  end if

  ! Nonblocking both ways: Waitall with statuses, then Testany.
  do round = 1, 2
    call fill(a, 1d6 * rank)
    b = -1
    call MPI_Irecv(b, NV, MPI_DOUBLE_PRECISION, other, 5, MPI_COMM_WORLD, reqs(1), ierr)
    call check(ierr, 'irecv')
    call MPI_Isend(a, 1, vec, other, 5, MPI_COMM_WORLD, reqs(2), ierr)
    call check(ierr, 'isend')
    if (round == 1) then
      call MPI_Waitall(2, reqs, sts, ierr)
      call check(ierr, 'waitall')
      if (sts(MPI_SOURCE, 1) /= other .or. sts(MPI_TAG, 1) /= 5) &
        call fail('waitall status source/tag', sts(MPI_SOURCE, 1))
      call MPI_Get_count(sts(:, 1), MPI_DOUBLE_PRECISION, n, ierr)
      if (n /= NV) call fail('waitall status count', n)
    else
      done = 0
      do while (done < 2)
        call MPI_Testany(2, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
        call check(ierr, 'testany')
        if (flag .and. idx /= MPI_UNDEFINED) then
          if (idx < 1 .or. idx > 2) call fail('testany index', idx)
          done = done + 1
        end if
      end do
    end if
    if (any(reqs /= MPI_REQUEST_NULL)) call fail('requests not freed, round', round)
    call expect_packed(b, 1d6 * other, 'nonblocking')
  end do

  ! Persistent requests, completed with Waitsome, twice; then freed.
  call MPI_Recv_init(b, NV, MPI_DOUBLE_PRECISION, other, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call check(ierr, 'recv_init')
  call MPI_Send_init(a, 1, vec, other, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call check(ierr, 'send_init')
  do round = 1, 2
    call fill(a, 2d6 * rank + round)
    b = -1
    call MPI_Startall(2, reqs, ierr)
    call check(ierr, 'startall')
    done = 0
    do while (done < 2)
      call MPI_Waitsome(2, reqs, n, idxs, sts, ierr)
      call check(ierr, 'waitsome')
      do i = 1, n
        if (idxs(i) < 1 .or. idxs(i) > 2) call fail('waitsome index', idxs(i))
        if (idxs(i) == 1 .and. sts(MPI_SOURCE, i) /= other) call fail('waitsome source', i)
      end do
      done = done + n
    end do
    call expect_packed(b, 2d6 * other + round, 'persistent')
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call check(ierr, 'request_free')
  if (any(reqs /= MPI_REQUEST_NULL)) call fail('request_free left a handle', 0)

  ! Sendrecv_replace in the vector layout.
  call fill(a, 3d6 * rank)
  call MPI_Sendrecv_replace(a, 1, vec, other, 7, other, 7, MPI_COMM_WORLD, st, ierr)
  call check(ierr, 'sendrecv_replace')
  call expect_layout(a, 3d6 * other, 'sendrecv_replace')

  ! Bcast of 1 MiB in the vector layout (gaps untouched at the receiver).
  if (rank == 0) then
    call fill(big, 4d6)
  else
    big = -1
  end if
  call MPI_Bcast(big, 1, vecl, 0, MPI_COMM_WORLD, ierr)
  call check(ierr, 'bcast')
  call expect_layout(big, 4d6, 'bcast')

  ! Allgather in place: each rank's block is a vector resized to a whole
  ! 16 x NB slab, so block r lies at rb(:, :, r + 1).
  lb = 0
  extent = 16 * NB * 8
  call MPI_Type_create_resized(vec, lb, extent, colw, ierr)
  call check(ierr, 'type_create_resized')
  call MPI_Type_commit(colw, ierr)
  rb = -1
  call fill(rb(:, :, rank + 1), 5d6 * rank)
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 1, colw, MPI_COMM_WORLD, ierr)
  call check(ierr, 'allgather in place')
  call expect_layout(rb(:, :, other + 1), 5d6 * other, 'allgather in place')
  call expect_layout(rb(:, :, rank + 1), 5d6 * rank, 'allgather in place, own block')

  ! Alltoallw: a vector to every rank, contiguous doubles back.
  call fill(a, 6d6 * rank)
  types_s = vec
  types_r = MPI_DOUBLE_PRECISION
  counts_s = 1
  counts_r = NV
  displs = (/ 0, NV * 8 /)
  c2 = -1
  call MPI_Alltoallw(a, counts_s, (/ 0, 0 /), types_s, c2, counts_r, displs, types_r, &
                     MPI_COMM_WORLD, ierr)
  call check(ierr, 'alltoallw')
  call expect_packed(c2(other * NV + 1 : other * NV + NV), 6d6 * other, 'alltoallw')
  call expect_packed(c2(rank * NV + 1 : rank * NV + NV), 6d6 * rank, 'alltoallw, own')

  ! A periodic ring of 2 made in Fortran: both neighbours are the other rank.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, (/ 2 /), (/ .true. /), .false., cart, ierr)
  call check(ierr, 'cart_create')
  call fill(a, 7d6 * rank)
  types_s = vec
  types_r = MPI_DOUBLE_PRECISION
  adispls = (/ 0_MPI_ADDRESS_KIND, int(NV * 8, MPI_ADDRESS_KIND) /)
  c2 = -1
  call MPI_Neighbor_alltoallw(a, counts_s, (/ 0_MPI_ADDRESS_KIND, 0_MPI_ADDRESS_KIND /), &
                              types_s, c2, counts_r, adispls, types_r, cart, ierr)
  call check(ierr, 'neighbor_alltoallw')
  call expect_packed(c2(1:NV), 7d6 * other, 'neighbor_alltoallw, left')
  call expect_packed(c2(NV + 1:), 7d6 * other, 'neighbor_alltoallw, right')
  call MPI_Comm_free(cart, ierr)
  call check(ierr, 'comm_free')
  if (cart /= MPI_COMM_NULL) call fail('comm_free left a handle', cart)

  ! A duplicated communicator carries the same messages.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(ierr, 'comm_dup')
  call fill(a, 8d6 * rank)
  b = -1
  call MPI_Sendrecv(a, 1, vec, other, 8, b, NV, MPI_DOUBLE_PRECISION, other, 8, dup, &
                    st, ierr)
  call check(ierr, 'sendrecv on a dup')
  call expect_packed(b, 8d6 * other, 'sendrecv on a dup')
  call MPI_Comm_free(dup, ierr)

  call MPI_Type_free(colw, ierr)
  call MPI_Type_free(vecl, ierr)
  call MPI_Type_free(vec, ierr)
  call check(ierr, 'type_free')
  if (vec /= MPI_DATATYPE_NULL) call fail('type_free left a handle', vec)

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  if (rank == 0 .and. total /= 0) print '(a,i0,a)', ' Found ', total, ' errors'
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program
