#!/bin/sh
# allprof: third-party MPI programs from Debian (LAMMPS, MUMPS through its
# Fortran interface, HPCC, NetPIPE) traced end to end, then converted by
# trace2goal and simulated by ibsim. Each program is skipped when its
# package (lammps + lammps-examples, mumps-test, hpcc, netpipe-openmpi) is absent.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

# replay DIR: trace2goal and ibsim accept the traces (skipped if not built)
replay() {
	command -v trace2goal >/dev/null 2>&1 && command -v ibsim >/dev/null 2>&1 || return 0
	trace2goal "$1" >"$1.goal" && ibsim "$1.goal" >"$1.sim"
}

MELT=/usr/share/lammps/examples/melt/in.melt
if command -v lmp >/dev/null 2>&1 && test -r $MELT; then
test_expect_success 'LAMMPS in.melt on 2 ranks: complete traces, halo exchanges recorded' '
	traced lmp 2 lmp -in $MELT -log none -screen none &&
	for r in 0 1; do complete lmp/rank-$r.trace || return 1; done &&
	test "$(grep -c "^MPI_Irecv:" lmp/rank-0.trace)" -gt 100 &&
	test "$(grep -c "^MPI_Irecv:" lmp/rank-0.trace)" = "$(grep -c "^MPI_Wait:" lmp/rank-0.trace)" &&
	grep -q "^# uncovered MPI_Cart_shift [0-9]*$" lmp/rank-0.trace
'
test_expect_success 'LAMMPS traces convert and simulate' 'replay lmp'
else
test_skip 'LAMMPS in.melt on 2 ranks' 'lmp or lammps-examples not installed'
fi

MUMPS=/usr/lib/mumps/dsimpletest
if test -x $MUMPS; then
test_expect_success 'MUMPS (Fortran) on 2 ranks: the Fortran calls are recorded' '
	allprof -o mu -- mpirun -np 2 $MUMPS <${MUMPS%/*}/input_simpletest_real >mu.out 2>mu.err &&
	for r in 0 1; do complete mu/rank-$r.trace || return 1; done &&
	grep -q "^MPI_Init:[0-9.]*:0:0:" mu/rank-0.trace &&
	test "$(grep -c "^MPI_Iprobe:" mu/rank-0.trace)" -gt 10 &&
	grep -q "^MPI_Comm_dup:" mu/rank-1.trace &&
	grep -q "^# calls [0-9]* records [0-9]* collapsed [1-9][0-9]* " mu/rank-0.trace
'
test_expect_success 'MUMPS traces convert and simulate' 'replay mu'
else
test_skip 'MUMPS on 2 ranks' 'mumps-test not installed'
fi

if command -v hpcc >/dev/null 2>&1; then
test_expect_success 'HPCC (N=200) on 2 ranks: traced, Testany polls collapsed' '
	mkdir hp && cd hp &&
	printf "%s\n" "HPLinpack benchmark input file" "x" "HPL.out" "6" "1" "200" "1" "32" \
		"0" "1" "1" "2" "16.0" "1" "2" "1" "4" "1" "2" "1" "1" "1" "2" "1" "0" "0" "1" "0" \
		"1" "8" "1" "200" "1" "32" "1" "1" "1" "2" >hpccinf.txt &&
	allprof -o tr -- mpirun -np 2 hpcc >out 2>err &&
	for r in 0 1; do complete tr/rank-$r.trace || return 1; done
'
else
test_skip 'HPCC on 2 ranks' 'hpcc not installed'
fi
test_done
