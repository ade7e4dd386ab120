#!/bin/sh
# allprof: point-to-point sample programs traced end to end; the traces are
# checked line by line against what the programs did.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

test_expect_success 'ring on 3 ranks: traced, complete, summary printed' '
	traced ring 3 "$SAMPLES/ring" 4 100 &&
	test "$(cat ring.out)" = 12 &&
	grep -qx "allprof: traces in $TRASH/ring: 3 ranks, [0-9]* calls, [0-9]* bytes of text, [0-9]* bytes on disk" ring.err &&
	for r in 0 1 2; do complete ring/rank-$r.trace && monotonic ring/rank-$r.trace || return 1; done
'

test_expect_success 'ring: header, clock offsets and communicator lines' '
	for r in 0 1 2; do
		f=ring/rank-$r.trace &&
		head -n 1 $f | grep -q "^# allprof .* trace format 1$" &&
		grep -qx "# rank: $r of 3" $f &&
		grep -q "^# Init clockdiff: -\{0,1\}[0-9]*\.[0-9][0-9][0-9]$" $f &&
		grep -q "^# Finalize clockdiff: -\{0,1\}[0-9]*\.[0-9][0-9][0-9]$" $f &&
		grep -qx "# comm 0 0,1,2" $f &&
		grep -qx "# comm 1 $r" $f || return 1
	done &&
	grep -qx "# Init clockdiff: 0.000" ring/rank-0.trace
'

test_expect_success 'ring: each Wait completes its Irecv with the real source, tag and size' '
	check_ring ring 3
'

test_expect_success 'ring: Allreduce lines, and the end marker counts every call line' '
	calls MPI_Allreduce ring/rank-1.trace | cut -d: -f4- | sort | uniq -c >got &&
	echo "      4 1:3,8,8:3:0,1,3" >expect &&
	test_cmp expect got &&
	test "$(grep -c "^MPI_" ring/rank-1.trace)" = 20 &&
	grep -qx "# end 20 [0-9]*" ring/rank-1.trace
'

test_expect_success 'pingpong: size sweep, first-use and reused buffers' '
	traced pp 2 "$SAMPLES/pingpong" -n 3 -m 1024 -q &&
	check_pingpong pp
'

test_expect_success 'the linked library (-lallprof, ALLPROF_DIR) traces without the launcher' '
	test -x "$SAMPLES/pingpong-linked" &&
	ALLPROF_DIR=$TRASH/linked mpirun -np 2 "$SAMPLES/pingpong-linked" -n 1 -m 8 -q &&
	complete linked/rank-0.trace && complete linked/rank-1.trace &&
	test "$(calls MPI_Send linked/rank-1.trace | wc -l)" = 10
'

test_expect_success 'persistent requests: ids made by *_init, started, completed, freed' '
	traced pers 2 "$SAMPLES/persistent" 4 &&
	f=pers/rank-0.trace && complete $f &&
	calls MPI_Recv_init $f | cut -d: -f8 >rinit &&
	printf "r1\nr3\n" >expect && test_cmp expect rinit &&
	calls MPI_Send_init $f | cut -d: -f8 >sinit &&
	echo r2 >expect && test_cmp expect sinit &&
	calls MPI_Ssend_init $f | cut -d: -f8 >ssinit &&
	echo r4 >expect && test_cmp expect ssinit &&
	calls MPI_Start $f | cut -d: -f2 >start &&
	printf "r1\nr2\nr1\nr2\n" >expect && test_cmp expect start &&
	calls MPI_Startall $f | cut -d: -f2,3 >startall &&
	printf "2:r1,r2\n2:r1,r2\n2:r3,r4\n" >expect && test_cmp expect startall &&
	calls MPI_Waitall $f | cut -d: -f2,3 >waitall &&
	printf "2:r1,r2\n2:r1,r2\n2:r1,r2\n2:r1,r2\n2:r3,r4\n" >expect && test_cmp expect waitall &&
	calls MPI_Waitall $f | cut -d: -f4 | cut -d";" -f1 | sort -u >st &&
	echo "1,5,8" >expect1 && echo "1,6,8" >>expect1 && test_cmp expect1 st &&
	calls MPI_Request_free $f | cut -d: -f2 >freed &&
	printf "r1\nr2\nr3\nr4\n" >expect && test_cmp expect freed &&
	calls MPI_Bsend $f | grep -q ":1:10,8,8:1:7:0,0,2$" &&
	grep -qx "# uncovered MPI_Buffer_attach 1" $f &&
	grep -qx "# uncovered MPI_Buffer_detach 1" $f
'

test_expect_success 'derived datatypes: sizes and extents as MPI reports them' '
	traced dt 2 "$SAMPLES/datatypes" &&
	f=dt/rank-0.trace && complete $f &&
	calls MPI_Type_commit $f | cut -d: -f2 | cut -d, -f2,3 | tr , " " >got &&
	cut -d" " -f2,3 dt.out >expect &&
	test_cmp expect got &&
	calls MPI_Type_commit $f | cut -d: -f2 | cut -d, -f1 >ids &&
	printf "%s\n" 1000 1001 1002 1003 1004 1005 >expect && test_cmp expect ids &&
	calls MPI_Sendrecv $f | cut -d: -f4 | cut -d, -f2 >sz &&
	cut -d" " -f2 dt.out >expect && test_cmp expect sz &&
	calls MPI_Type_vector $f | grep -qx "MPI_Type_vector:4:2:8:10,8,8:1001,64,208" &&
	calls MPI_Type_free $f | wc -l | grep -qx " *6" &&
	calls MPI_Type_create_struct $f | grep -q ":3:1,2,1:[0-9]*:0,8,24:[0-9]*:1,4,4;10,8,8;23,1,1:1003,21,32$"
'
test_expect_success 'the samples'"'"' ROUNDS (pipelines/apps.mk): the same calls again, printed once' '
	traced dt3 2 "$SAMPLES/datatypes" 3 &&
	test_cmp dt.out dt3.out &&
	for c in MPI_Sendrecv MPI_Bcast MPI_Type_commit MPI_Type_free; do
		n1=$(calls $c dt/rank-1.trace | wc -l) && n3=$(calls $c dt3/rank-1.trace | wc -l) &&
		test $n3 -eq $((3 * n1)) && test $n1 -gt 0 || return 1
	done &&
	traced nb3 2 "$SAMPLES/nonblock" 3 &&
	test $(wc -l <nb3.out) -ge 7 && grep -q "^MPI_Testall 5$" nb3.out &&
	test $(calls MPI_Irecv nb3/rank-0.trace | wc -l) -eq $((3 * 7 * 2)) &&
	traced wc3 3 "$SAMPLES/wildcard" 5 3 &&
	test $(wc -l <wc3.out) -eq 10 &&
	test $(calls MPI_Send wc3/rank-1.trace | wc -l) -eq 15 &&
	test $(calls MPI_Barrier wc3/rank-0.trace | wc -l) -eq 2 &&
	! traced wcbad 2 "$SAMPLES/wildcard" 1025 &&
	grep -q "wildcard: MSGS must be 0 to 1024 and ROUNDS at least 0" wcbad.err
'
test_done
