#!/bin/sh
# trace2goal: allprof wildcard receives (MPI_ANY_SOURCE/MPI_ANY_TAG Irecv) completed by
# Waitall, Waitany, Waitsome, Testany, Testsome, Testall and Test take the real source, tag
# and size from the statuses those calls recorded (entry by entry, following the completed
# indices), mapped through the receive's communicator like the matching send.
# tests/t4007-trace2goal-wildcard-waitall/wait is a handwritten 3-rank trace in which rank 2's
# messages were matched by the wildcards although rank 1's later ones were sent earlier:
# left as wildcards, the replay matches rank 1's messages to them and deadlocks. The
# recorded case runs samples/apps/wildreq (skipped without mpirun or the samples). The
# handwritten trace is converted with communicator creation as local work (its receive lists
# are the application's only).
. "$(dirname "$0")/lib.sh"
# a private TMPDIR: concurrent mpiruns must not share Open MPI's session directory
TMPDIR=$TRASH
export TMPDIR
W="$TESTDATA/wait"

# recvs GOAL RANK: the receives of RANK, in label order, without labels
recvs() {
	sed -n "/^rank $2 /,/^}/p" "$1" | grep '^l[0-9]*: recv ' | sed 's/^l//' | sort -n |
		sed 's/^[0-9]*: //'
}

test_expect_success 'converts, and ibsim runs the schedule to completion' '
	trace2goal --coll comm_create=local,comm_split=local "$W" >w.goal 2>err &&
	test ! -s err &&
	ibsim -q w.goal >w.tsv &&
	test "$(grep -c "^[0-2]	" w.tsv)" = 3
'

test_expect_success 'every wildcard gets the source, tag and size of its status' '
	subtag=$(sed -n "/^rank 2 /,/^}/p" w.goal | sed -n "s/^l[0-9]*: send 4b to 0 tag \([0-9]*\)$/\1/p" | tail -n 1) &&
	test "$subtag" -ge 536870912 &&
	recvs w.goal 0 | sed "s/ tag $subtag\$/ tag SUB/" >got &&
	cat >expect <<-\EOF &&
	recv 16b from 2 tag 6
	recv 8b from 1 tag 5
	recv 16b from 1 tag 7
	recv 4b from 2 tag 6
	recv 4b from 1 tag 8
	recv 8b from 2 tag 10
	recv 4b from 1 tag 9
	recv 4b from 1 tag 11
	recv 4b from 2 tag 12
	recv 4b from 1 tag 13
	recv 4b from 2 tag 14
	recv 4b from 1 tag 15
	recv 4b from 2 tag 19
	recv 4b from 1 tag 20
	recv 4b from 2 tag SUB
	recv 4b from 1 tag 17
	recv 4b from 1 tag 18
	EOF
	test_cmp expect got
'

test_expect_success 'left as wildcards, the same schedule deadlocks (the trace tells the cases apart)' '
	awk "/^rank 0 /{r0=1} /^}/{r0=0}
	     r0 && /: recv / && !/from 1 tag (7|8|11|13|15|20|18)$/ { sub(/from [0-9]+ tag [0-9]+$/, \"from -1 tag -1\") } { print }" \
		w.goal >wild.goal &&
	test "$(grep -c "from -1 tag -1" wild.goal)" = 10 &&
	expect_fail 1 ibsim -q wild.goal &&
	grep -q "^ibsim: deadlock: 1 of 3 ranks cannot finish" err
'

test_expect_success 'Waitsome: statuses follow the completed indices, not the request order' '
	grep -q "^MPI_Waitsome:[0-9.]*:2:r5,r6:2:1,0:1,9,4;2,10,8:" "$W/rank-0.trace" &&
	recvs w.goal 0 | sed -n "6,7p" >got &&
	printf "recv 8b from 2 tag 10\nrecv 4b from 1 tag 9\n" >expect &&
	test_cmp expect got
'

test_expect_success 'unsuccessful polls define nothing; MPI_REQUEST_NULL entries are skipped' '
	grep -q "^MPI_Testany:[0-9.]*:2:r0,r7:-1:0:-:5:" "$W/rank-0.trace" &&
	grep -q "^MPI_Testall:[0-9.]*:2:r10,r11:0:-:6:" "$W/rank-0.trace" &&
	test "$(grep -c "from -1" w.goal)" = 0
'

test_expect_success 'a status missing from the list leaves that receive a wildcard' '
	mkdir short && cp "$W"/* short/ &&
	sed -i "s/^\(MPI_Waitall:[0-9.]*:2:r1,r2:\)2,6,16;1,5,8:/\12,6,16:/" short/rank-0.trace &&
	grep -q "^MPI_Waitall:[0-9.]*:2:r1,r2:2,6,16:" short/rank-0.trace &&
	trace2goal -q short >s.goal &&
	recvs s.goal 0 | sed -n "1,2p" >got &&
	printf "recv 16b from 2 tag 6\nrecv 16b from -1 tag -1\n" >expect &&
	test_cmp expect got
'

test_expect_success 'a malformed status entry leaves that receive a wildcard' '
	mkdir bad && cp "$W"/* bad/ &&
	sed -i "s/^\(MPI_Waitall:[0-9.]*:2:r1,r2:\)2,6,16;1,5,8:/\1x;1,5,8:/" bad/rank-0.trace &&
	trace2goal -q bad >b.goal &&
	recvs b.goal 0 | sed -n "1,2p" >got &&
	printf "recv 16b from -1 tag -1\nrecv 8b from 1 tag 5\n" >expect &&
	test_cmp expect got
'

test_expect_success 'a Wait or Test on zero requests (allprof writes -) completes nothing' '
	mkdir zero && cp "$W"/* zero/ &&
	# after the first Waitall, at its return time: MPI_Waitall(0, ...) and MPI_Testall(0, ...)
	awk -F: "{ print } /^MPI_Waitall:/ && !done { t = \$NF; print \"MPI_Waitall:\" t \":0:-:-:\" t;
		print \"MPI_Testall:\" t \":0:-:1:-:1:\" t; done = 1 }" "$W/rank-0.trace" >zero/rank-0.trace &&
	test "$(grep -c "^MPI_[WT][a-z]*all:[0-9.]*:0:-:" zero/rank-0.trace)" = 2 &&
	sed -i "s/^# end \([0-9]*\) .*/# end \1 0/" zero/rank-0.trace &&
	trace2goal -q --coll comm_create=local,comm_split=local zero >z.goal 2>zerr &&
	test_cmp /dev/null zerr &&
	grep -c "send\|recv" w.goal >want &&
	grep -c "send\|recv" z.goal >got &&
	test_cmp want got
'

# ---- recorded: samples/apps/wildreq under allprof ----
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_rmaps_base_oversubscribe=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
export OMPI_MCA_btl_vader_single_copy_mechanism
if command -v mpirun >/dev/null 2>&1 && command -v allprof >/dev/null 2>&1 &&
	[ -x "$IR_BUILD/samples/wildreq" ]; then
	test_expect_success 'recorded: wildreq on 4 ranks traced, converted and simulated' '
		allprof -o wr -- mpirun -np 4 "$IR_BUILD/samples/wildreq" >wr.out 2>wr.err &&
		test "$(wc -l <wr.out)" = 24 &&
		trace2goal wr >wr.goal &&
		ibsim -q wr.goal >wr.tsv
	'
	test_expect_success 'recorded: every wildcard has the source, tag and size the program saw' '
		test "$(grep -c "from -1" wr.goal)" = 0 &&
		recvs wr.goal 0 | awk "\$6 < 536870912 { sub(/b\$/, \"\", \$2); print \$4, \$6, \$2 }" | sort >got &&
		awk "\$3 < 70 { print \$2, \$3, \$4 }" wr.out | sort >expect &&
		test "$(wc -l <expect)" = 21 &&
		test_cmp expect got
	'
	test_expect_success 'recorded: on the reversed sub-communicator, receives pair with the sends' '
		for r in 1 2 3; do
			sed -n "/^rank $r /,/^}/p" wr.goal |
				awk -v r=$r "/: send / && \$5 == 0 && \$7 >= 536870912 && \$7 < 1073741824 { sub(/b\$/, \"\", \$3); print r, \$7, \$3 }"
		done | sort >expect &&
		test "$(wc -l <expect)" = 3 &&
		recvs wr.goal 0 | awk "\$6 >= 536870912 && \$6 < 1073741824 { sub(/b\$/, \"\", \$2); print \$4, \$6, \$2 }" | sort >got &&
		test_cmp expect got &&
		awk "\$3 >= 70 { print \$2, \$4 }" wr.out | sort >expect &&
		cut -d" " -f1,3 got >got2 &&
		test_cmp expect got2
	'
else
	test_skip 'recorded: wildreq traced, converted and simulated' 'no mpirun, allprof or samples'
fi
test_done
