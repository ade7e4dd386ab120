#!/bin/sh
# samples/apps/bufstate (docs/validation.md, "The sender's buffer"): two ranks ping-pong in three
# buffer states; rank 0 prints one TSV line per size and state. Checked here: the table's shape
# and that every figure is a positive time (what the states cost is a measurement, in
# docs/validation.md, never a pass/fail threshold), and the errors.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/bufstate" ] || skip_all "bufstate not built"

test_expect_success 'three states per size, positive times' '
	mpirun -np 2 --mca btl vader,self "$SAMPLES/bufstate" -n 20 64 4096 >out 2>err &&
	printf "size\tstate\tone_way_us\trecv_us\n" >want.head &&
	head -n 1 out | test_cmp want.head - &&
	tail -n +2 out | cut -f 1,2 >got.keys &&
	printf "64\tclean\n64\twritten\n64\tsame\n4096\tclean\n4096\twritten\n4096\tsame\n" >want.keys &&
	test_cmp want.keys got.keys &&
	tail -n +2 out | awk -F "\t" "NF != 4 || !(\$3 > 0) || !(\$4 > 0) { bad = 1; print } END { exit bad }"
'

test_expect_success 'default sizes: five' '
	mpirun -np 2 --mca btl vader,self "$SAMPLES/bufstate" -n 5 >out 2>err &&
	test "$(tail -n +2 out | cut -f 1 | uniq | tr "\n" " ")" = "64 4096 16384 65536 262144 "
'

test_expect_success 'one rank: refused' '
	expect_fail 1 mpirun -np 1 "$SAMPLES/bufstate" -n 5 &&
	grep -q "^bufstate: needs exactly 2 ranks$" err
'

test_expect_success 'bad SIZE and -n: refused' '
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/bufstate" 12x &&
	grep -q "^bufstate: SIZE: expected a number of bytes from 1 to 268435456$" err &&
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/bufstate" 0 &&
	grep -q "^bufstate: SIZE: expected a number of bytes from 1 to 268435456$" err &&
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/bufstate" -n 0 &&
	grep -q "^bufstate: usage: bufstate \[-n REPS (1 to 1000000)\] \[SIZE\]...$" err
'

test_done
