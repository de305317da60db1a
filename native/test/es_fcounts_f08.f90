! es_fcounts_f08.f90 - es_fcounts.inc through the mpi_f08 module: its handles are types, its calls reach Open MPI's
! ompi_x_f (and MPICH's C MPI_X or PMPI_X), each counted once.
program es_fcounts_f08
  use mpi_f08
  implicit none
  type(MPI_Request) :: req(4)
  type(MPI_Status) :: st(4), s1
  type(MPI_Datatype) :: types(64)
  type(MPI_Comm) :: node, copy, dup, twin, half, info_twin, grouped, line, sub
  type(MPI_Win) :: win
  type(MPI_Group) :: world
  include 'es_fcounts.inc'
end program es_fcounts_f08
