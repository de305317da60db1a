! es_fcounts_mpi.f90 - es_fcounts.inc through the mpi module (use mpi).
program es_fcounts_mpi
  use mpi
  implicit none
  integer :: req(4), st(MPI_STATUS_SIZE, 4), s1(MPI_STATUS_SIZE), types(64)
  integer :: node, copy, dup, world, twin, half, info_twin, grouped, line, sub, win
  include 'es_fcounts.inc'
end program es_fcounts_mpi
