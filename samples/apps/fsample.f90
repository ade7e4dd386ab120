! fsample: a small Fortran MPI program (mpif.h style bindings through
! `use mpi`): ring exchange with Isend/Irecv/Waitall, a blocking Send/Recv
! with MPI_STATUS_IGNORE, Bcast, Allreduce, Barrier and a split
! communicator. Rank 0 prints the Allreduce sum.   fsample [ROUNDS]
! ROUNDS (default 1) repeats it all, so that a run lasts long enough to be
! measured (pipelines/apps.mk); only the first round prints.
program fsample
  use mpi
  implicit none
  integer :: ierr, rank, size, left, right, i, sub, rounds, round
  character(len=32) :: arg
  integer :: reqs(2), stats(MPI_STATUS_SIZE, 2), st(MPI_STATUS_SIZE)
  double precision :: sbuf(10), rbuf(10), s, tot
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  left = mod(rank + size - 1, size)
  right = mod(rank + 1, size)
  sbuf = rank
  rounds = 1
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  do round = 1, rounds
    do i = 1, 3
      call MPI_Irecv(rbuf, 10, MPI_DOUBLE_PRECISION, left, i, MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_Isend(sbuf, 10, MPI_DOUBLE_PRECISION, right, i, MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_Waitall(2, reqs, stats, ierr)
    end do
    if (rank == 0) then
      call MPI_Send(sbuf, 5, MPI_DOUBLE_PRECISION, right, 77, MPI_COMM_WORLD, ierr)
      call MPI_Recv(rbuf, 5, MPI_DOUBLE_PRECISION, left, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(rbuf, 5, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      call MPI_Send(sbuf, 5, MPI_DOUBLE_PRECISION, right, 77, MPI_COMM_WORLD, ierr)
    end if
    call MPI_Bcast(sbuf, 10, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    s = rank
    call MPI_Allreduce(s, tot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
    call MPI_Barrier(sub, ierr)
    call MPI_Comm_free(sub, ierr)
    if (rank == 0 .and. round == 1) print '(F6.1)', tot
  end do
  call MPI_Finalize(ierr)
end program fsample
