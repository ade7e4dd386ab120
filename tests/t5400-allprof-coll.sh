#!/bin/sh
# allprof: collectives (blocking and nonblocking, v and w variants,
# MPI_IN_PLACE, sub-communicators, neighbourhood collectives) and a Fortran
# program, traced and checked line by line.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

test_expect_success 'collectives on 4 ranks: traced and complete' '
	traced co 4 "$SAMPLES/collectives" &&
	test "$(cat co.out)" = ok &&
	for r in 0 1 2 3; do complete co/rank-$r.trace && monotonic co/rank-$r.trace || return 1; done &&
	! grep -q "^# uncovered" co/rank-0.trace
'

test_expect_success 'every collective and its nonblocking twin is recorded once per use' '
	f=co/rank-1.trace &&
	for c in Bcast Reduce Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall \
		 Alltoallv Alltoallw Reduce_scatter Reduce_scatter_block Scan Exscan Barrier; do
		test "$(grep -c "^MPI_$c:" $f)" = 4 &&
		test "$(grep -c "^MPI_I$(echo $c | tr A-Z a-z):" $f)" = 4 || { echo "$c"; return 1; }
	done &&
	test "$(grep -c "^MPI_Allreduce:" $f)" = 8 &&
	test "$(grep -c "^MPI_Iallreduce:" $f)" = 4 &&
	for c in Neighbor_allgather Neighbor_alltoall Neighbor_allgatherv Neighbor_alltoallv Ineighbor_allgather; do
		test "$(grep -c "^MPI_$c:" $f)" = 1 || return 1
	done
'

test_expect_success 'sub-communicators: numbers and members on every rank' '
	printf "# comm 2 2,0\n# comm 3 0,1,2,3\n# comm 4 0,1,2,3\n# comm 5 0\n" >expect0 &&
	grep "^# comm [2-9]" co/rank-0.trace >got && test_cmp expect0 got &&
	printf "# comm 2 3,1\n# comm 3 0,1,2,3\n# comm 4 0,1,2,3\n" >expect1 &&
	grep "^# comm [2-9]" co/rank-1.trace >got && test_cmp expect1 got &&
	calls MPI_Comm_split co/rank-1.trace | cut -d: -f2- >got &&
	printf "0,1,4:1:-1:2,1,2\n0,1,4:-1:0:-1,-1,0\n" >expect && test_cmp expect got &&
	calls MPI_Comm_split co/rank-0.trace | tail -n 1 | grep -qx "MPI_Comm_split:0,0,4:0:0:5,0,1" &&
	calls MPI_Bcast co/rank-2.trace | cut -d: -f6 >got &&
	printf "0,2,4\n0,2,4\n2,0,2\n3,2,4\n" >expect && test_cmp expect got &&
	calls MPI_Cart_create co/rank-3.trace | grep -qx "MPI_Cart_create:0,3,4:1:4:1:0:4,3,4"
'

test_expect_success 'count arrays, root-only arrays, MPI_IN_PLACE' '
	f=co/rank-1.trace &&
	calls MPI_Alltoallv $f | head -n 1 | grep -q "^MPI_Alltoallv:[0-9]*:[0-9]*:1,1,1,1:[0-9]*:0,1,2,3:1,4,4:[0-9]*:[0-9]*:1,1,1,1:[0-9]*:0,1,2,3:1,4,4:0,1,4$" &&
	calls MPI_Gatherv $f | head -n 1 | grep -q ":0:-:0:-:1,4,4:0:0,1,4$" &&
	calls MPI_Gatherv co/rank-0.trace | head -n 1 | grep -q ":[0-9]*:1,1,1,1:[0-9]*:0,1,2,3:1,4,4:0:0,0,4$" &&
	calls MPI_Allreduce $f | sed -n 2p | grep -q "^MPI_Allreduce:-1:[0-9]*:1:1,4,4:2:0,1,4$" &&
	calls MPI_Alltoallw $f | head -n 1 | grep -q ":1,4,4;1,4,4;1,4,4;1,4,4:0,1,4$" &&
	calls MPI_Neighbor_alltoallv $f | grep -q ":[0-9]*:1,1:[0-9]*:0,1:1,4,4:[0-9]*:[0-9]*:1,1:[0-9]*:0,1:1,4,4:4,1,4$" &&
	calls MPI_Allreduce $f | sed -n 3p | grep -q ":1000:1,4,4:3:0,1,4$"
'

test_expect_success 'nonblocking collectives: each request is waited for right after' '
	awk -F: "/^MPI_I[a-z]/ { want = \$(NF-1); next }
		 want != \"\" && /^MPI_Wait:/ { if (\$3 != want) { print \"want \" want \" got \" \$3; bad = 1 } want = \"\" }
		 END { exit bad }" co/rank-2.trace
'

if test -x "$SAMPLES/fsample"; then
test_expect_success 'Fortran: the calls of a use-mpi program are recorded like C ones' '
	traced fo 3 "$SAMPLES/fsample" &&
	test "$(cat fo.out | tr -d " ")" = 3.0 &&
	for r in 0 1 2; do complete fo/rank-$r.trace || return 1; done &&
	f=fo/rank-1.trace &&
	calls MPI_Init $f | grep -qx "MPI_Init:0:0" &&
	calls MPI_Irecv $f | cut -d: -f3- >got &&
	printf "10:11,8,8:0:%d:0,1,3:r%d\n" 1 1 2 3 3 5 >expect && test_cmp expect got &&
	calls MPI_Waitall $f | cut -d: -f2,3 >got &&
	printf "2:r1,r2\n2:r3,r4\n2:r5,r6\n" >expect && test_cmp expect got &&
	calls MPI_Waitall $f | cut -d: -f4 | cut -d";" -f1 | sort -u | grep -qx "0,[123],80" &&
	calls MPI_Recv $f | grep -qx "MPI_Recv:[0-9]*:5:11,8,8:-1:-1:0,1,3:0,77,40" &&
	calls MPI_Recv fo/rank-0.trace | grep -qx "MPI_Recv:[0-9]*:5:11,8,8:2:77:0,0,3:2,77,40" &&
	calls MPI_Comm_split $f | grep -qx "MPI_Comm_split:0,1,3:1:1:2,0,1" &&
	grep -qx "# comm 2 1" $f &&
	calls MPI_Barrier $f | grep -qx "MPI_Barrier:2,0,1" &&
	calls MPI_Allreduce $f | grep -qx "MPI_Allreduce:[0-9]*:[0-9]*:1:11,8,8:3:0,1,3" &&
	test "$(grep -c "^MPI_Finalize:" $f)" = 1 &&
	# ROUNDS (pipelines/apps.mk): it all again, the sum printed once
	traced fo3 3 "$SAMPLES/fsample" 3 &&
	test_cmp fo.out fo3.out &&
	test $(calls MPI_Allreduce fo3/rank-1.trace | wc -l) -eq 3 &&
	test $(calls MPI_Irecv fo3/rank-1.trace | wc -l) -eq 9
'
else
test_skip 'Fortran: the calls of a use-mpi program are recorded like C ones' 'no mpif90'
fi
test_done
