#!/bin/sh
# allprof: nothing recorded is lost when a run ends through MPI_Abort,
# exit() without MPI_Finalize or a signal; such traces end with
# "# incomplete <why>" and never with "# end".
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

# ready2 FILE: wait up to 60 s until both ranks of a "hang" run have printed "ready"
ready2() {
	for i in $(seq 600); do
		test "$(grep -c "^ready" "$1" 2>/dev/null)" = 2 && return 0
		sleep 0.1
	done
	return 1
}

# allreduces FILE: number of Allreduce lines (the faults program makes 100 before it fails)
allreduces() { grep -c "^MPI_Allreduce:" "$1"; }

test_expect_success 'a normal run of the faults program is complete' '
	traced ok 2 "$SAMPLES/faults" ok &&
	complete ok/rank-0.trace && test "$(allreduces ok/rank-0.trace)" = 100
'

test_expect_success 'MPI_Abort: the calling rank records the call and is marked' '
	! traced ab 2 "$SAMPLES/faults" abort &&
	f=ab/rank-1.trace &&
	test "$(allreduces $f)" = 100 &&
	tail -n 2 $f | head -n 1 | grep -q "^MPI_Abort:[0-9.]*:0,1,2:7:[0-9.]*$" &&
	tail -n 1 $f | grep -qx "# incomplete MPI_Abort" &&
	! grep -q "^# end" $f &&
	test "$(allreduces ab/rank-0.trace)" = 100 &&
	tail -n 1 ab/rank-0.trace | grep -q "^# incomplete signal [0-9]*$" &&
	grep -q "^allprof: incomplete trace: $TRASH/ab/rank-1.trace (MPI_Abort)$" ab.err
'

test_expect_success 'exit() without MPI_Finalize: every rank is marked, nothing lost' '
	! traced ex 2 "$SAMPLES/faults" exit &&
	for r in 0 1; do
		test "$(allreduces ex/rank-$r.trace)" = 100 &&
		grep -q "^MPI_Barrier:" ex/rank-$r.trace &&
		tail -n 1 ex/rank-$r.trace | grep -qx "# incomplete exit" || return 1
	done &&
	grep -qx "allprof: incomplete trace: $TRASH/ex/rank-0.trace (exit)" ex.err
'

test_expect_success 'SIGSEGV: the crashing rank writes its buffer and the signal' '
	! traced sg 2 "$SAMPLES/faults" segv &&
	test "$(allreduces sg/rank-0.trace)" = 100 &&
	tail -n 1 sg/rank-0.trace | grep -qx "# incomplete signal 11"
'

test_expect_success 'SIGTERM: marked with the signal number' '
	! traced tm 2 "$SAMPLES/faults" term &&
	test "$(allreduces tm/rank-0.trace)" = 100 &&
	tail -n 1 tm/rank-0.trace | grep -qx "# incomplete signal 15"
'

# A buffer of 64 KiB fills many times in 3000 calls: its records go to the spill file
# (formats/trace.md 3.8) and are formatted at the end, whatever the end.
in_order() { awk -F: "/^MPI_Allreduce:/ { if (\$2 + 0 < t) bad = 1; t = \$2 + 0; n++ } END { exit bad || n != $2 }" "$1"; }

test_expect_success 'spilled buffers: the same lines as without the spill, in order, and no spill file left' '
	ALLPROF_BUFSIZE=64K traced sp 2 "$SAMPLES/faults" ok 3000 &&
	ALLPROF_BUFSIZE=64K ALLPROF_SPILL=0 traced nosp 2 "$SAMPLES/faults" ok 3000 &&
	for r in 0 1; do
		complete sp/rank-$r.trace && in_order sp/rank-$r.trace 3000 &&
		test "$(grep -c "^# flush: [0-9]* ns$" sp/rank-$r.trace)" -ge 3 &&
		grep -v "^#" sp/rank-$r.trace | cut -d: -f1 >a &&
		grep -v "^#" nosp/rank-$r.trace | cut -d: -f1 >b &&
		test_cmp b a || return 1
	done &&
	test "$(ls sp | wc -l)" = 2
'

test_expect_success 'spilled buffers and a signal, exit() or MPI_Abort: every call recorded, in order' '
	! ALLPROF_BUFSIZE=64K traced sptm 2 "$SAMPLES/faults" term 3000 &&
	in_order sptm/rank-0.trace 3000 &&
	tail -n 1 sptm/rank-0.trace | grep -qx "# incomplete signal 15" &&
	! ALLPROF_BUFSIZE=64K traced spex 2 "$SAMPLES/faults" exit 3000 &&
	in_order spex/rank-0.trace 3000 && in_order spex/rank-1.trace 3000 &&
	tail -n 1 spex/rank-1.trace | grep -qx "# incomplete exit" &&
	! ALLPROF_BUFSIZE=64K traced spab 2 "$SAMPLES/faults" abort 3000 &&
	in_order spab/rank-1.trace 3000 &&
	tail -n 1 spab/rank-1.trace | grep -qx "# incomplete MPI_Abort" &&
	test "$(ls sptm spex spab | grep -c spill)" = 0
'

test_expect_success 'a spill file that cannot be made: the buffers are formatted at once, nothing lost' '
	mkdir -p nofile/rank-0.trace.spill &&
	ALLPROF_BUFSIZE=64K traced nofile 2 "$SAMPLES/faults" ok 3000 &&
	complete nofile/rank-0.trace && in_order nofile/rank-0.trace 3000 &&
	complete nofile/rank-1.trace && in_order nofile/rank-1.trace 3000
'

test_expect_success 'SIGTERM sent to allprof reaches the ranks; their traces are written' '
	# mpirun sends SIGKILL one second after SIGTERM by default; on a loaded machine
	# a rank may not have run its handler by then, so give it time
	OMPI_MCA_odls_base_sigkill_timeout=10 allprof -o hg -- mpirun -np 2 "$SAMPLES/faults" hang >hg.out 2>hg.err &
	pid=$! &&
	ready2 hg.out &&
	kill -TERM $pid &&
	{ wait $pid; test $? != 0; } &&
	for r in 0 1; do
		test "$(allreduces hg/rank-$r.trace)" = 100 &&
		tail -n 1 hg/rank-$r.trace | grep -q "^# incomplete signal" ||
		{ tail -n 3 hg/rank-*.trace; cat hg.out hg.err; return 1; }
	done
'

test_expect_success 'a rank holds its spill open, unlinked, until the end; SIGTERM then writes it out' '
	OMPI_MCA_odls_base_sigkill_timeout=10 ALLPROF_BUFSIZE=64K allprof -o hs -- mpirun -np 2 "$SAMPLES/faults" hang 3000 >hs.out 2>hs.err &
	pid=$! &&
	ready2 hs.out &&
	n=$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c "$TRASH/hs/rank-[01].trace.spill (deleted)") &&
	kill -TERM $pid &&
	{ wait $pid; test $? != 0; } &&
	test "$n" = 2 &&
	for r in 0 1; do
		in_order hs/rank-$r.trace 3000 &&
		tail -n 1 hs/rank-$r.trace | grep -q "^# incomplete signal" ||
		{ tail -n 3 hs/rank-*.trace; cat hs.out hs.err; return 1; }
	done
'

test_done
