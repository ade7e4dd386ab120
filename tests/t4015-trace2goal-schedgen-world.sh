#!/bin/sh
# trace2goal --compat schedgen on liballprof 0.9 traces whose collectives name the world by
# its size (docs/schedgen-compat.md §3.1): three hand-made traces (traces/) with a Barrier on
# the world under the C handle, a Bcast on it under another handle (the Fortran binding's),
# and an Allreduce and a Reduce on a communicator of the world's size in the reverse rank
# order (MPI_Comm_split with key 2 - rank). Schedgen converts all four as collectives on
# MPI_COMM_WORLD with the trace file's rank; the default mode cannot map the reordered
# communicator without member lists.
. "$(dirname "$0")/lib.sh"

T="$TESTDATA/traces"

test_expect_success '--compat schedgen converts every collective as one on the world' '
	trace2goal --compat schedgen "$T" >compat.goal 2>err &&
	test ! -s err &&
	test_golden compat.goal compat.goal
'

test_expect_success 'the four collectives are there on every rank, with their own tags' '
	for tag in 1073741824 1073741825 1073741826 1073741827; do
		test "$(grep -c "tag $tag\$" compat.goal)" -gt 0 || { echo "no tag $tag"; return 1; }
	done &&
	# allreduce (dissemination, 2 doubles) on the world: rank 1 sends to 2 and to 0
	sed -n "/^rank 1 {/,/^}/p" compat.goal >r1 &&
	grep -q "send 16b to 2 tag 1073741826\$" r1 &&
	grep -q "send 16b to 0 tag 1073741826\$" r1 &&
	# reduce to root 0, read as a world rank as Schedgen reads it: rank 0 receives from 1 and 2
	sed -n "/^rank 0 {/,/^}/p" compat.goal >r0 &&
	grep -q "recv 8b from 1 tag 1073741827\$" r0 &&
	grep -q "recv 8b from 2 tag 1073741827\$" r0
'

test_expect_success 'the schedule runs to the end in ibsim' '
	ibsim -q compat.goal >res &&
	test "$(grep -c "^[0-9]" res)" = 3
'

test_expect_success 'the world under another handle is the world in the default mode too' '
	mkdir w &&
	for r in 0 1 2; do
		grep -v "MPI_Allreduce\|MPI_Reduce" "$T/pmpi-trace-rank-$r.txt" >w/pmpi-trace-rank-$r.txt || return 1
	done &&
	trace2goal --compat schedgen w >w-compat.goal 2>err && test ! -s err &&
	trace2goal --no-clock-offsets w >w-default.goal 2>err && test ! -s err &&
	grep -q "tag 1073741825\$" w-default.goal
'

test_expect_success 'default mode: the reordered communicator is skipped where its ranks differ' '
	expect_fail 1 trace2goal "$T" &&
	grep -q "^trace2goal: warning: .*pmpi-trace-rank-0.txt:11: MPI_Allreduce on a communicator of 3 ranks skipped: liballprof traces have no member lists" err &&
	grep -q "rank 0 calls 2 collectives on MPI_COMM_WORLD, rank 1 calls 4\$" err
'
test_done
