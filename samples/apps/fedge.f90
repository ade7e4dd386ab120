! fedge: Fortran corner cases for the tracer (`use mpi`): MPI_IN_PLACE in
! Allreduce, Iallreduce and Reduce_scatter_block; MPI_STATUS_IGNORE and
! MPI_STATUSES_IGNORE; MPI_PROC_NULL (the last rank of an odd number has no
! partner); the nonblocking collectives Ibarrier, Ibcast, Ireduce;
! Comm_split_type; a committed vector datatype sent by a persistent
! Ssend_init. Rank 0 prints a(1) after the Allreduce: the sum of rank+1.
program fedge
  use mpi
  implicit none
  integer :: ierr, rank, size, i, node, vec, req, peer
  integer :: reqs(2), st(MPI_STATUS_SIZE)
  double precision :: a(8), b(8)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  a = rank + 1
  b = 0
  call MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Iallreduce(MPI_IN_PLACE, a(5), 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, &
                      req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ibcast(b, 3, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ireduce(a, b, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  b = 1
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                                MPI_COMM_WORLD, ierr)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node, ierr)
  call MPI_Barrier(node, ierr)
  call MPI_Comm_free(node, ierr)
  call MPI_Type_vector(2, 1, 2, MPI_DOUBLE_PRECISION, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  peer = MPI_PROC_NULL
  if (mod(rank, 2) == 0 .and. rank + 1 < size) peer = rank + 1
  if (mod(rank, 2) == 1) peer = rank - 1
  call MPI_Ssend_init(a, 1, vec, peer, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Recv_init(b, 2, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD, reqs(2), ierr)
  do i = 1, 2
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call MPI_Send(a, 1, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 6, MPI_COMM_WORLD, ierr)
  call MPI_Recv(b, 1, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 6, MPI_COMM_WORLD, st, ierr)
  call MPI_Type_free(vec, ierr)
  if (rank == 0) print '(F6.1)', a(1)
  call MPI_Finalize(ierr)
end program fedge
