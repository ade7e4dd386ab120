#!/bin/sh
# allprof: nothing recorded is lost when a run ends through MPI_Abort,
# exit() without MPI_Finalize or a signal; such traces end with
# "# incomplete <why>" and never with "# end".
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

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

test_expect_success 'SIGTERM sent to allprof reaches the ranks; their traces are written' '
	# mpirun sends SIGKILL one second after SIGTERM by default; on a loaded machine
	# a rank may not have run its handler by then, so give it time
	OMPI_MCA_odls_base_sigkill_timeout=10 allprof -o hg -- mpirun -np 2 "$SAMPLES/faults" hang >hg.out 2>hg.err &
	pid=$! &&
	for i in $(seq 600); do
		test "$(grep -c "^ready" hg.out 2>/dev/null)" = 2 && break
		sleep 0.1
	done &&
	test "$(grep -c "^ready" hg.out)" = 2 &&
	kill -TERM $pid &&
	{ wait $pid; test $? != 0; } &&
	for r in 0 1; do
		test "$(allreduces hg/rank-$r.trace)" = 100 &&
		tail -n 1 hg/rank-$r.trace | grep -q "^# incomplete signal" ||
		{ tail -n 3 hg/rank-*.trace; cat hg.out hg.err; return 1; }
	done
'

test_done
