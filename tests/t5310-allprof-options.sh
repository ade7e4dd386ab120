#!/bin/sh
# allprof: compression, a small buffer (many flushes), collapsing switched
# off, and tracing disabled.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

allreduces() { grep -c "^MPI_Allreduce:" "$1"; }

if ! command -v zstd >/dev/null 2>&1; then
	test_skip 'compressed traces' 'zstd not installed'
else
test_expect_success 'compressed traces (-z) decompress to complete traces' '
	allprof -z -q -o z -- mpirun -np 2 "$SAMPLES/ring" 50 8 >/dev/null &&
	test -f z/rank-0.trace.zst && ! test -f z/rank-0.trace &&
	zstd -qdc z/rank-0.trace.zst >r0 && complete r0 &&
	test "$(grep -c "^MPI_Wait:" r0)" = 50
'

test_expect_success 'a compressed trace cut by a signal still decompresses' '
	! allprof -z -q -o zs -- mpirun -np 2 "$SAMPLES/faults" segv >/dev/null 2>&1 &&
	zstd -qdc zs/rank-0.trace.zst >s0 &&
	test "$(allreduces s0)" = 100 &&
	tail -n 1 s0 | grep -qx "# incomplete signal 11"
'
fi

test_expect_success 'a 64 KiB buffer: many flushes, same lines' '
	ALLPROF_BUFSIZE=64K traced small 2 "$SAMPLES/ring" 2000 8 &&
	complete small/rank-0.trace &&
	grep -q "^# calls .* flushes [1-9][0-9]*$" small/rank-0.trace &&
	test "$(grep -c "^MPI_Wait:" small/rank-0.trace)" = 2000
'

test_expect_success 'ALLPROF_COLLAPSE=0: one line per poll' '
	ALLPROF_COLLAPSE=0 traced nc 3 "$SAMPLES/wildcard" 4 &&
	complete nc/rank-0.trace &&
	! calls MPI_Iprobe nc/rank-0.trace | grep -v ":1$" &&
	grep -q "^# calls [0-9]* records [0-9]* collapsed 0 " nc/rank-0.trace
'

test_expect_success 'ALLPROF_DISABLE=1: no traces, the program still runs' '
	ALLPROF_DISABLE=1 allprof -o off -- mpirun -np 2 "$SAMPLES/ring" 2 8 >off.out 2>off.err;
	test $? = 1 && test "$(cat off.out)" = 2 &&
	grep -q "no traces written" off.err
'
test_done
