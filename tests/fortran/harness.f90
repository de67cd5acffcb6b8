! What the Fortran tests share: the C side's entry points (c_side.c),
! failures counted (the first ten printed with the rank) and the messages'
! values.  Packed element k (from
! 0) of a message made by fill(x, base) is base + k + 0.5; in the vector
! layout x(16, n), rows 1-8 of each column hold the packed values and rows
! 9-16 stay -1 (a receive must not touch them).
module harness
  implicit none
  integer :: errs = 0, me = -1
  interface
    subroutine c_send(kind, dest, tag) bind(C, name="loom_test_c_send")
      integer, value :: kind, dest, tag
    end subroutine
    integer function c_recv(kind, src, tag) bind(C, name="loom_test_c_recv")
      integer, value :: kind, src, tag
    end function
    subroutine c_init() bind(C, name="loom_test_c_init")
    end subroutine
  end interface
contains

  ! rc: an ierr (MPI_SUCCESS is 0 in every MPI).
  subroutine check(rc, what)
    integer, intent(in) :: rc
    character(*), intent(in) :: what
    if (rc /= 0) call fail(what // ': ierr', rc)
  end subroutine

  subroutine fail(what, v)
    character(*), intent(in) :: what
    integer, intent(in) :: v
    errs = errs + 1
    if (errs <= 10) print '(a,i0,a,a,a,i0)', 'rank ', me, ': ', what, ' ', v
  end subroutine

  subroutine fill(x, base)
    double precision, intent(out) :: x(:,:)
    double precision, intent(in) :: base
    integer :: i, j
    x = -1
    do j = 1, size(x, 2)
      do i = 1, 8
        x(i, j) = base + (j - 1) * 8 + (i - 1) + 0.5d0
      end do
    end do
  end subroutine

  subroutine expect_packed(x, base, what)
    double precision, intent(in) :: x(:)
    double precision, intent(in) :: base
    character(*), intent(in) :: what
    integer :: k
    do k = 1, size(x)
      if (x(k) /= base + (k - 1) + 0.5d0) then
        call fail(what // ': wrong element', k)
        return
      end if
    end do
  end subroutine

  subroutine expect_layout(x, base, what)
    double precision, intent(in) :: x(:,:)
    double precision, intent(in) :: base
    character(*), intent(in) :: what
    integer :: i, j
    do j = 1, size(x, 2)
      do i = 1, 16
        if ((i <= 8 .and. x(i, j) /= base + (j - 1) * 8 + (i - 1) + 0.5d0) .or. &
            (i > 8 .and. x(i, j) /= -1)) then
          call fail(what // ': wrong element in column', j)
          return
        end if
      end do
    end do
  end subroutine
end module
