! fcover: the Fortran entry points beyond the common ones, at 3 ranks (`use mpi`):
! Sendrecv_replace, Cancel, Pcontrol, the matched probes (Mprobe, Mrecv, Improbe,
! Imrecv), every nonblocking collective with its v/w variants, Alltoallw, the
! neighbourhood collectives (blocking and nonblocking) on a periodic ring, the
! topology constructors (Cart_create, Cart_sub, Graph_create, Dist_graph_create,
! Dist_graph_create_adjacent), the communicator calls (Comm_dup_with_info, Comm_idup,
! Comm_create_group, Intercomm_create, Intercomm_merge), the group calls and the
! datatype constructors with Type_size and Type_free.
! Rank 0 prints the inclusive scan over rank+1 of the last rank, then the size of the
! struct type (a 2-integer vector and a double): "6 16".
program fcover
  use mpi
  implicit none
  integer :: ierr, rank, size, i, left, right, req, msg, st(MPI_STATUS_SIZE)
  integer :: reqs(4), a(12), b(12), c(3), cnt(3), dis(3), typs(3)
  integer :: ring, cart2, sub, graph, dgraph, adj, dupi, idup, half, inter, merged, cg
  integer :: wgroup, g1, g2, g3, g4, g5, g6, g7
  integer :: tcont, tvec, thvec, tind, thind, tib, thib, tstruct, tsub, tres, tdup, tsz
  integer :: bl(2), idx(3), edges(6), ranges(3, 1), ssz(2), subsz(2), starts(2)
  integer(kind=MPI_ADDRESS_KIND) :: adis(3), lb, ext, stride
  logical :: periods(1), per2(2), remain(2), flag
  integer :: nbr(2), ones(2), dims(2)
  integer(kind=MPI_ADDRESS_KIND) :: nd(2)
  double precision :: d

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  left = mod(rank + size - 1, size)
  right = mod(rank + 1, size)
  call MPI_Pcontrol(1)

  ! point to point
  a = rank
  call MPI_Sendrecv_replace(a, 4, MPI_INTEGER, right, 1, left, 1, MPI_COMM_WORLD, st, ierr)
  call MPI_Irecv(b, 1, MPI_INTEGER, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, req, ierr)
  call MPI_Cancel(req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Send(a, 2, MPI_INTEGER, right, 2, MPI_COMM_WORLD, ierr)
  call MPI_Mprobe(left, 2, MPI_COMM_WORLD, msg, st, ierr)
  call MPI_Mrecv(b, 2, MPI_INTEGER, msg, MPI_STATUS_IGNORE, ierr)
  call MPI_Send(a, 3, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Improbe(left, 3, MPI_COMM_WORLD, flag, msg, st, ierr)
  end do
  call MPI_Imrecv(b, 3, MPI_INTEGER, msg, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Pcontrol(0)

  ! nonblocking collectives
  a = rank + 1
  cnt = 1
  dis = (/ 0, 1, 2 /)
  typs = MPI_INTEGER
  call MPI_Igather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Igatherv(a, 1, MPI_INTEGER, b, cnt, dis, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Iscatter(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Iscatterv(a, cnt, dis, MPI_INTEGER, b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Iallgather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Iallgatherv(a, 1, MPI_INTEGER, b, cnt, dis, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ialltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ialltoallv(a, cnt, dis, MPI_INTEGER, b, cnt, dis, MPI_INTEGER, MPI_COMM_WORLD, &
                      req, ierr)
  call MPI_Wait(req, st, ierr)
  dis = (/ 0, 4, 8 /)
  call MPI_Ialltoallw(a, cnt, dis, typs, b, cnt, dis, typs, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Alltoallw(a, cnt, dis, typs, b, cnt, dis, typs, MPI_COMM_WORLD, ierr)
  call MPI_Iscan(a, c, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Iexscan(a, c(2), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Ireduce_scatter(a, b, cnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Ireduce_scatter_block(a(4), b(4), 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, &
                                 reqs(4), ierr)
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
  if (rank == size - 1) call MPI_Send(c, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_Recv(c, 1, MPI_INTEGER, size - 1, 7, MPI_COMM_WORLD, st, ierr)

  ! topologies and neighbourhood collectives on a periodic ring
  dims(1) = size
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  ones = 1
  nbr = (/ 0, 1 /)
  nd = (/ 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND /)
  call MPI_Neighbor_allgather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, ring, ierr)
  call MPI_Neighbor_alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, ring, ierr)
  call MPI_Neighbor_allgatherv(a, 1, MPI_INTEGER, b, ones, nbr, MPI_INTEGER, ring, ierr)
  call MPI_Neighbor_alltoallv(a, ones, nbr, MPI_INTEGER, b, ones, nbr, MPI_INTEGER, ring, ierr)
  call MPI_Neighbor_alltoallw(a, ones, nd, typs, b, ones, nd, typs, ring, ierr)
  call MPI_Ineighbor_allgather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, ring, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ineighbor_alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, ring, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ineighbor_allgatherv(a, 1, MPI_INTEGER, b, ones, nbr, MPI_INTEGER, ring, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ineighbor_alltoallv(a, ones, nbr, MPI_INTEGER, b, ones, nbr, MPI_INTEGER, ring, &
                               req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Ineighbor_alltoallw(a, ones, nd, typs, b, ones, nd, typs, ring, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Comm_free(ring, ierr)
  dims = (/ size, 1 /)
  per2 = (/ .false., .true. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per2, .true., cart2, ierr)
  remain = (/ .true., .false. /)
  call MPI_Cart_sub(cart2, remain, sub, ierr)
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(cart2, ierr)
  ! a graph: every node linked to the next one (3 nodes, 2 edges each)
  idx = (/ 2, 4, 6 /)
  edges = (/ 1, 2, 0, 2, 0, 1 /)
  call MPI_Graph_create(MPI_COMM_WORLD, 3, idx, edges, .false., graph, ierr)
  call MPI_Comm_free(graph, ierr)
  nbr = (/ left, right /)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbr, MPI_UNWEIGHTED, 2, nbr, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., adj, ierr)
  call MPI_Comm_free(adj, ierr)
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, (/ rank /), (/ 1 /), (/ right /), &
                             MPI_UNWEIGHTED, MPI_INFO_NULL, .false., dgraph, ierr)
  call MPI_Comm_free(dgraph, ierr)

  ! communicators and groups
  call MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, dupi, ierr)
  call MPI_Comm_idup(dupi, idup, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Comm_free(idup, ierr)
  call MPI_Comm_free(dupi, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Group_incl(wgroup, 2, (/ 0, 1 /), g1, ierr)
  call MPI_Group_excl(wgroup, 1, (/ 0 /), g2, ierr)
  ranges(:, 1) = (/ 0, size - 1, 2 /)
  call MPI_Group_range_incl(wgroup, 1, ranges, g3, ierr)
  call MPI_Group_range_excl(wgroup, 1, ranges, g4, ierr)
  call MPI_Group_union(g1, g2, g5, ierr)
  call MPI_Group_intersection(g1, g2, g6, ierr)
  call MPI_Group_difference(g1, g2, g7, ierr)
  if (rank < 2) then
    call MPI_Comm_create_group(MPI_COMM_WORLD, g1, 5, cg, ierr)
    call MPI_Comm_free(cg, ierr)
  end if
  call MPI_Group_free(g7, ierr)
  call MPI_Group_free(g6, ierr)
  call MPI_Group_free(g5, ierr)
  call MPI_Group_free(g4, ierr)
  call MPI_Group_free(g3, ierr)
  call MPI_Group_free(g2, ierr)
  call MPI_Group_free(g1, ierr)
  call MPI_Group_free(wgroup, ierr)
  ! two halves (even and odd world ranks) joined by an intercommunicator
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - mod(rank, 2), 8, inter, ierr)
  call MPI_Intercomm_merge(inter, mod(rank, 2) == 1, merged, ierr)
  call MPI_Comm_free(merged, ierr)
  call MPI_Comm_free(inter, ierr)
  call MPI_Comm_free(half, ierr)

  ! datatypes
  call MPI_Type_contiguous(3, MPI_INTEGER, tcont, ierr)
  call MPI_Type_vector(2, 1, 2, MPI_INTEGER, tvec, ierr)
  stride = 8
  call MPI_Type_create_hvector(2, 1, stride, MPI_INTEGER, thvec, ierr)
  bl = (/ 1, 2 /)
  call MPI_Type_indexed(2, bl, (/ 0, 3 /), MPI_INTEGER, tind, ierr)
  adis(1:2) = (/ 0_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND /)
  call MPI_Type_create_hindexed(2, bl, adis, MPI_INTEGER, thind, ierr)
  call MPI_Type_create_indexed_block(2, 2, (/ 0, 4 /), MPI_INTEGER, tib, ierr)
  call MPI_Type_create_hindexed_block(2, 2, adis, MPI_INTEGER, thib, ierr)
  adis(1:2) = (/ 0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND /)
  typs(1:2) = (/ tvec, MPI_DOUBLE_PRECISION /)
  call MPI_Type_create_struct(2, (/ 1, 1 /), adis, typs, tstruct, ierr)
  ssz = (/ 4, 3 /)
  subsz = (/ 2, 2 /)
  starts = (/ 1, 0 /)
  call MPI_Type_create_subarray(2, ssz, subsz, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, &
                                tsub, ierr)
  lb = 0
  ext = 16
  call MPI_Type_create_resized(tcont, lb, ext, tres, ierr)
  call MPI_Type_dup(tres, tdup, ierr)
  call MPI_Type_commit(tdup, ierr)
  call MPI_Type_size(tstruct, tsz, ierr)
  call MPI_Sendrecv(a, 2, tdup, right, 9, b, 6, MPI_INTEGER, left, 9, MPI_COMM_WORLD, st, ierr)
  call MPI_Type_free(tdup, ierr)
  call MPI_Type_free(tres, ierr)
  call MPI_Type_free(tsub, ierr)
  call MPI_Type_free(tstruct, ierr)
  call MPI_Type_free(thib, ierr)
  call MPI_Type_free(tib, ierr)
  call MPI_Type_free(thind, ierr)
  call MPI_Type_free(tind, ierr)
  call MPI_Type_free(thvec, ierr)
  call MPI_Type_free(tvec, ierr)
  call MPI_Type_free(tcont, ierr)
  d = 0
  if (rank == 0) print '(I0, " ", I0)', c(1), tsz
  call MPI_Finalize(ierr)
end program fcover
