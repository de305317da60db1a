! es_fortran.f90 - the Fortran entry points: per rank ITER mpi_allreduce (with MPI_IN_PLACE on odd iterations,
! so a wrapper that broke Fortran's sentinel would give a wrong sum), ITER mpi_sendrecv of 8 bytes, 1 mpi_barrier.
program es_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nranks, i, next, prev, wrong
  integer, parameter :: iter = 200
  integer(kind=8) :: mine, total, token, got
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  wrong = 0
  do i = 1, iter
    mine = rank + 1 + mod(i, 7)
    if (mod(i, 2) == 1) then
      total = mine
      call mpi_allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    else
      call mpi_allreduce(mine, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    end if
    if (total /= int(nranks, 8) * (nranks + 1) / 2 + int(nranks, 8) * mod(i, 7)) wrong = wrong + 1
    token = rank
    call mpi_sendrecv(token, 1, MPI_INTEGER8, next, 5, got, 1, MPI_INTEGER8, prev, 5, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    if (got /= prev) wrong = wrong + 1
  end do
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (wrong == 0) then
      print '(a,i0,a)', 'fortran ok: ', nranks, ' ranks'
    else
      print '(a,i0)', 'fortran WRONG: ', wrong
    end if
  end if
  call mpi_finalize(ierr)
end program es_fortran
