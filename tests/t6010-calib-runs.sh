#!/bin/sh
# calib DIR1 DIR2 ...: several netcal runs pooled into one fit (formats/calibration.md,
# "Several runs"), and pipelines/calibrate.mk RUNS=N, which measures them. Two short
# netcal runs over shared memory: a run pooled with itself fits exactly what it fits alone
# (every median of a doubled sample is its median), two runs give medians over both, and
# runs of other kinds, or a run without its own phases, are errors that name the run.
# Skipped when MPI or the sample programs are missing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/netcal" ] && [ -x "$SAMPLES/pingpong" ] || skip_all "samples/apps/netcal or pingpong not built"
# a private TMPDIR: concurrent mpiruns must not share Open MPI's session directory
TMPDIR=$TRASH
export TMPDIR

test_expect_success 'two netcal runs and a classic ping-pong run' '
	for r in 1 2; do
		allprof -q -o nc$r -- mpirun -np 2 --mca btl vader,self "$SAMPLES/netcal" -q -m 16384 -t 1 -n 50 \
			>/dev/null 2>nc$r.err || return 1
	done &&
	allprof -q -o pp -- mpirun -np 2 --mca btl vader,self "$SAMPLES/pingpong" -q -n 3 -m 1024 >/dev/null 2>pp.err &&
	test -s nc1/rank-1.trace && test -s nc2/rank-1.trace && test -s pp/rank-1.trace
'

test_expect_success 'a run pooled with itself fits what it fits alone' '
	calib -q -o one.params nc1 &&
	calib -q -o twice.params nc1 nc1 &&
	grep -v "^#" one.params >one.keys && grep -v "^#" twice.params >twice.keys &&
	test_cmp one.keys twice.keys &&
	grep -q "^# written by calib .* from nc1 and 1 more run$" twice.params &&
	grep -q "^# runs: 2, pooled: every median below is over the samples of all of them$" twice.params &&
	! grep -q "^# runs:" one.params
'

test_expect_success 'two runs: the repetitions of every size are those of both' '
	calib -q -o a.params nc1 && calib -q -o b.params nc2 && calib -q -o ab.params nc1 nc2 &&
	for f in a b ab; do awk "\$1 == \"#|\" { print \$2, \$3 }" $f.params >$f.reps || return 1; done &&
	test -s ab.reps &&
	join a.reps b.reps | awk "{ print \$1, \$2 + \$3 }" >want &&
	test_cmp want ab.reps &&
	grep -q "^# written by calib .* from nc1 and 1 more run$" ab.params
'

test_expect_success 'runs of other kinds, or without a phase of their own: the run is named, exit 1' '
	{ calib nc1 pp >/dev/null 2>err; test $? = 1; } &&
	grep -q "^calib: pp: a ping-pong run, but nc1 is a netcal run: runs pooled together must be of one kind$" err &&
	calib -q -o pp2.params pp pp && grep -q "^# runs: 2, pooled" pp2.params &&
	mkdir nolate && cp nc2/rank-0.trace nolate/ &&
	grep -v ":30004:" nc2/rank-1.trace >nolate/rank-1.trace &&
	{ calib nc1 nolate >/dev/null 2>err; test $? = 1; } &&
	grep -q "^calib: nolate/rank-1.trace: no late-receiver phase" err &&
	mkdir empty &&
	{ calib nc1 empty >/dev/null 2>err; test $? = 1; } &&
	grep -q "^calib: .*empty" err
'

# the pipeline must not join the jobserver of a `make check` around us
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
cmake_() {
	make -C "$TOP" -f pipelines/calibrate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$TRASH/c" \
		MPIRUN="mpirun -np 2 --mca btl vader,self" REPS=20 MAXBYTES=16K BUDGET=1 "$@" >"$TRASH/make.out" 2>&1
}

test_expect_success 'calibrate.mk RUNS=2: two runs, one pooled fit; a second make does nothing' '
	cmake_ RUNS=2 || { cat make.out; false; } &&
	test -s c/pp/rank-1.trace && test -s c/pp2/rank-1.trace && ! test -e c/pp3 &&
	grep -q "^# runs: 2, pooled" c/cluster.params &&
	grep -q "^# written by calib .* from $TRASH/c/pp and 1 more run$" c/cluster.params &&
	cmake_ RUNS=2 && ! grep -q "allprof" make.out
'

test_expect_success 'calibrate.mk: bad RUNS or RUN_DELAY stop with the reason' '
	! cmake_ RUNS=0 && grep -q "invalid RUNS .0. (expected a whole number of runs from 1 to 99)" make.out &&
	! cmake_ RUNS=two && grep -q "invalid RUNS .two." make.out &&
	! cmake_ RUN_DELAY=-1 && grep -q "invalid RUN_DELAY .-1. (expected whole seconds)" make.out
'

test_done
