! es_fcounts_mpif.f90 - es_fcounts.inc through include 'mpif.h'.
program es_fcounts_mpif
  implicit none
  include 'mpif.h'
  integer :: req(4), st(MPI_STATUS_SIZE, 4), s1(MPI_STATUS_SIZE), types(64)
  integer :: node, copy, dup, world, twin, half, info_twin, grouped, line, sub, win
  include 'es_fcounts.inc'
end program es_fcounts_mpif
