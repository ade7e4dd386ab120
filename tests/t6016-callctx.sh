#!/bin/sh
# samples/apps/callctx (docs/validation.md, "A call's cost after what came before it"): two ranks
# time a send after a pause, after each gap since the send before, in a ping-pong, in trains
# whose receiver computes or takes each message in, and the receives of one late message and
# of five that arrived together. Checked here: the table's cases in order and that every figure is a positive time (what a context costs is a
# measurement, in docs/validation.md, never a pass/fail threshold), and the errors.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/callctx" ] || skip_all "callctx not built"

test_expect_success 'every case once, in order, positive times' '
	mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" -n 10 64 >out 2>err &&
	printf "case\tcall\tus\n" >want.head &&
	head -n 1 out | test_cmp want.head - &&
	tail -n +2 out | cut -f 1,2 >got.keys &&
	{
		printf "send_first\tMPI_Send\n" &&
		for g in 0 0.5 2 5 20 100; do printf "send_after_%s\tMPI_Send\n" $g; done &&
		printf "send_pingpong\tMPI_Send\nsend_train_busy\tMPI_Send\nsend_train_recv\tMPI_Send\n" &&
		printf "recv_single\tMPI_Recv\n" &&
		for k in 1 2 3 4 5; do printf "recv_queued_%s\tMPI_Recv\n" $k; done
	} >want.keys &&
	test_cmp want.keys got.keys &&
	tail -n +2 out | awk -F "\t" "NF != 3 || !(\$3 > 0) { bad = 1; print } END { exit bad }"
'

test_expect_success 'size 0 and the default size run' '
	mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" -n 3 0 >out0 2>err &&
	test "$(wc -l <out0)" -eq 17 &&
	mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" -n 3 >out8 2>err &&
	test "$(wc -l <out8)" -eq 17
'

test_expect_success 'one rank, three ranks: refused' '
	expect_fail 1 mpirun -np 1 "$SAMPLES/callctx" -n 3 &&
	grep -q "^callctx: needs exactly 2 ranks$" err &&
	expect_fail 1 mpirun --oversubscribe -np 3 --mca btl vader,self "$SAMPLES/callctx" -n 3 &&
	grep -q "^callctx: needs exactly 2 ranks$" err
'

test_expect_success 'bad SIZE and -n: refused' '
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" 12x &&
	grep -q "^callctx: SIZE: expected one number of bytes from 0 to 16777216$" err &&
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" 8 16 &&
	grep -q "^callctx: SIZE: expected one number of bytes from 0 to 16777216$" err &&
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" -- -1 &&
	grep -q "^callctx: SIZE: expected one number of bytes from 0 to 16777216$" err &&
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/callctx" -n 0 &&
	grep -q "^callctx: usage: callctx \[-n REPS (1 to 1000000)\] \[SIZE\]$" err
'

test_done
