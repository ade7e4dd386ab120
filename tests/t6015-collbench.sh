#!/bin/sh
# samples/apps/collbench (docs/validation.md, "Nonblocking collectives"): one collective in a
# loop, blocking or nonblocking. Checked here: every collective runs in both forms and the
# trace holds exactly its calls; the conversion of the nonblocking form carries nbc_o once per
# call; bad arguments exit 2 with the reason. What a collective costs against the model is a
# measurement in docs/validation.md, never a pass/fail threshold.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/collbench" ] || skip_all "collbench not built"
TMPDIR=$TRASH
export TMPDIR

test_expect_success 'every collective, blocking and nonblocking: its calls and nothing else' '
	for c in barrier bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv \
		alltoall alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan; do
		mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" $c 3 4 >out 2>err || return 1
		mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" $c 3 4 nb >out 2>err || return 1
	done
'

test_expect_success 'traced: 5 Ibarrier and 5 Wait per rank; converted, each carries nbc_o' '
	allprof -q -o tr -- mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" barrier 1 5 nb >out 2>err &&
	for r in 0 1; do
		test $(grep -c "^MPI_Ibarrier:" tr/rank-$r.trace) = 5 &&
		test $(grep -c "^MPI_Wait:" tr/rank-$r.trace) = 5 || return 1
	done &&
	printf "L = 0\no = 1us\ng = 0\nG = 0\nO = 0\nS = 100000\n" >base.params &&
	{ cat base.params; echo "nbc_o = 7us"; } >nbc.params &&
	trace2goal -q -p base.params tr >off.goal && trace2goal -q -p nbc.params tr >on.goal &&
	sed -n "s/^l[0-9]*: calc //p" off.goal >off.c && sed -n "s/^l[0-9]*: calc //p" on.goal >on.c &&
	paste off.c on.c | awk "\$1 != \$2 { n++; if (\$2 - \$1 != 7000000) bad = 1 } END { exit bad || n != 10 }"
'

test_expect_success 'bad arguments: the reason, exit 2' '
	expect_fail 2 mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" nosuch 1 1 &&
	grep -q "^collbench: unknown collective$" err &&
	expect_fail 2 mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" bcast 0 1 &&
	grep -q "^collbench: COUNT: expected 1 to 16M / ranks$" err &&
	expect_fail 2 mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" bcast 1 x &&
	grep -q "^collbench: ITERATIONS: expected a positive integer$" err &&
	expect_fail 2 mpirun -np 2 --mca btl vader,self "$SAMPLES/collbench" bcast 1 1 blocking &&
	grep -q "^collbench: expected a collective" err
'

test_done
