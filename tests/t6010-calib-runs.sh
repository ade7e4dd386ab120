#!/bin/sh
# calib DIR1 DIR2 ...: several netcal runs pooled into one fit (formats/calibration.md,
# "Several runs"), and pipelines/calibrate.mk RUNS=N, which measures them. Two short
# netcal runs over shared memory: a run pooled with itself fits exactly what it fits alone
# (every mean or median of a doubled sample is its own), two runs give estimates over both, and
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
	# but for the spreads: a size of 50 repetitions has 100 in the pool, which the spread
	# needs (formats/calibration.md, "The spread of a call'"'"'s cost"), unless the pulses set
	# some of them aside
	grep -v "^#" one.params | grep -v "_spread = " >one.keys && grep -v "^#" twice.params | grep -v "_spread = " >twice.keys &&
	test_cmp one.keys twice.keys &&
	grep -q "^# send_o_spread: not measured (fewer than 160 durations of the warm ping-pong.s send call at sizes of 100 repetitions or more)$" one.params &&
	! grep -q "^send_o_spread = " one.params &&
	grep -q "^# written by calib .* from nc1 and 1 more run$" twice.params &&
	grep -q "^# runs: 2, pooled: every mean below is over the samples of all of them$" twice.params &&
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

test_expect_success 'calibrate.mk STATE_REF: a run on a slowed machine is made again, up to STATE_TRIES; netcal pools them' '
	rm -rf c &&
	# a reference no round trip can come near: every run is on a "slowed" machine
	cmake_ STATE_REF=0.0001 STATE_TRIES=2 STATE_DELAY=0 || { cat make.out; false; } &&
	# netcal: its pulses in their worst phase (calib'"'"'s "# machine state" line) are judged too
	test "$(grep -c "^$TRASH/c/pp: clock round trips [0-9.]* us at MPI_Init, [0-9.]* us at MPI_Finalize, pulses [0-9.]* us in their worst phase, reference 0.0001 us: a slowed machine$" make.out)" = 2 &&
	grep -q "^again in 0 s$" make.out &&
	grep -q "^calibrated on a slowed machine 2 times: the 2 runs are pooled and what each measured while slowed is set aside (calib --state-ref)$" make.out &&
	# both tries kept and fitted together, each judged against the reference
	test -s c/pp/rank-1.trace && test -s c/pp.try1/rank-1.trace && ! test -e c/pp.try2 && ! test -e c/pp.best &&
	test "$(cat c/pp.pool)" = "$TRASH/c/pp $TRASH/c/pp.try1" &&
	grep -q "^# runs: 2, pooled" c/cluster.params &&
	grep -q "^# machine state: .* over 2 runs, .*; against the reference 0.0001 us (--state-ref): [1-9][0-9]* phases slowed all through; " c/cluster.params &&
	# the worst phase is the largest of the phases'"'"' values
	w=$(calib -q --state-ref 0.0001us c/pp 2>/dev/null | sed -n "s/^# machine state: .* undisturbed [0-9.]* us to \([0-9.]*\) us (each.*/\1/p") &&
	test -n "$w" && grep -q "^try 2: .* pulses $w us in their worst phase, " c/pp.state &&
	# the verdicts in c/pp.state too, for crossnet.md: each try, then what was done
	test "$(grep -c "^try [12]: $TRASH/c/pp: clock round trips .* reference 0.0001 us: a slowed machine$" c/pp.state)" = 2 &&
	tail -n 1 c/pp.state | grep -q "^calibrated on a slowed machine 2 times: the 2 runs are pooled" &&
	# a second make fits the same pool and measures nothing
	cmake_ STATE_REF=0.0001 STATE_TRIES=2 STATE_DELAY=0 && ! grep -q "allprof" make.out &&
	# a reference above every round trip: the first run is kept, alone
	rm -rf c && cmake_ STATE_REF=1000000 STATE_DELAY=0 || { cat make.out; false; } &&
	test "$(grep -c ": undisturbed$" make.out)" = 1 && ! grep -q "^again" make.out &&
	test "$(wc -l <c/pp.state)" = 1 && grep -q "^try 1: .*: undisturbed$" c/pp.state &&
	! test -e c/pp.pool && ! test -e c/pp.try1 &&
	grep -q "^# machine state: .* over 1 run, .*; against the reference 1000000.0000 us (--state-ref): 0 phases slowed all through; [0-9]* slowed by " c/cluster.params
'

test_expect_success 'calibrate.mk STATE_REF, a program without pulses: the least slowed run is kept' '
	rm -rf c &&
	cmake_ PROGRAM=pingpong STATE_REF=0.0001 STATE_TRIES=2 STATE_DELAY=0 || { cat make.out; false; } &&
	test "$(grep -c "^$TRASH/c/pp: clock round trips [0-9.]* us at MPI_Init, [0-9.]* us at MPI_Finalize, reference 0.0001 us: a slowed machine$" make.out)" = 2 &&
	grep -q "^calibrated on a slowed machine 2 times: the least slowed run is kept (round trip [0-9.]* us)$" make.out &&
	test -s c/pp/rank-1.trace && test -s c/cluster.params && ! test -e c/pp.best && ! test -e c/pp.pool && ! test -e c/pp.try1 &&
	# the run kept is the one of the smaller worse round trip
	kept=$(sed -n "s/^calibrated on a slowed machine 2 times: the least slowed run is kept (round trip \([0-9.]*\) us)$/\1/p" make.out) &&
	test "$(sh "$TOP/pipelines/state-check.sh" -w c/pp)" = "$kept" &&
	sed -n "s/^.*: clock round trips \([0-9.]*\) us at MPI_Init, \([0-9.]*\) us at MPI_Finalize, reference 0.0001 us: a slowed machine$/\1 \2/p" make.out |
		awk -v k="$kept" "{ w = \$1 > \$2 ? \$1 : \$2; if (w < k) bad = 1 } END { exit bad }"
'

test_expect_success 'state-check.sh: the median round trips of ranks 1 and up; errors' '
	mkdir -p sc && for r in 0 1 2; do
		{ printf "# rank: %s of 3\n" $r; if [ $r = 0 ]; then printf "# Init clockrtt: 0.000\n"; else
			printf "# Init clockrtt: %s\n# Finalize clockrtt: %s\n" $((r * 10)) 5; fi; } >sc/rank-$r.trace
	done &&
	sh "$TOP/pipelines/state-check.sh" sc 12 >out &&
	grep -qx "sc: clock round trips 15 us at MPI_Init, 5 us at MPI_Finalize, reference 12 us: undisturbed" out &&
	test "$(sh "$TOP/pipelines/state-check.sh" -w sc)" = 15 &&
	# a third round trip, the pulses at their best: judged as the other two
	{ sh "$TOP/pipelines/state-check.sh" sc 16 21 >out; test $? = 1; } &&
	grep -qx "sc: clock round trips 15 us at MPI_Init, 5 us at MPI_Finalize, pulses 21 us in their worst phase, reference 16 us: a slowed machine" out &&
	sh "$TOP/pipelines/state-check.sh" sc 16 19 >out &&
	grep -qx "sc: clock round trips 15 us at MPI_Init, 5 us at MPI_Finalize, pulses 19 us in their worst phase, reference 16 us: undisturbed" out &&
	test "$(sh "$TOP/pipelines/state-check.sh" -w sc 21)" = 21 && test "$(sh "$TOP/pipelines/state-check.sh" -w sc 2)" = 15 &&
	{ sh "$TOP/pipelines/state-check.sh" sc 16 1x 2>err; test $? = 2; } && grep -q "invalid pulse round trip .1x." err &&
	{ sh "$TOP/pipelines/state-check.sh" sc 11 >out; test $? = 1; } &&
	grep -q ": a slowed machine$" out &&
	{ sh "$TOP/pipelines/state-check.sh" sc x 2>err; test $? = 2; } && grep -q "invalid reference .x." err &&
	mkdir -p none && echo "# rank: 1 of 2" >none/rank-1.trace &&
	{ sh "$TOP/pipelines/state-check.sh" none 1 2>err; test $? = 2; } && grep -q "no clock round trips" err
'

test_expect_success 'calibrate.mk: bad STATE_REF, STATE_TRIES or STATE_DELAY stop with the reason' '
	! cmake_ STATE_REF=fast && grep -q "invalid STATE_REF .fast. (expected a positive number of microseconds)" make.out &&
	! cmake_ STATE_REF=0 && grep -q "invalid STATE_REF .0." make.out &&
	! cmake_ STATE_REF=0.000 && grep -q "invalid STATE_REF .0.000." make.out &&
	! cmake_ STATE_REF=16.0.0 && grep -q "invalid STATE_REF .16.0.0." make.out &&
	# a reference whose decimals are all 0 is a number like any other (crossnet.mk writes 3)
	for v in 16.000 16 0.5 .5 14.297; do
		cmake_ -n STATE_REF=$v tools && ! grep -q "invalid" make.out || return 1
	done &&
	! cmake_ STATE_TRIES=0 && grep -q "invalid STATE_TRIES .0." make.out &&
	! cmake_ STATE_DELAY=x && grep -q "invalid STATE_DELAY .x." make.out
'

test_expect_success 'calibrate.mk: bad RUNS, RUN_DELAY, NODECAL_RUNS or NODE_BIND stop with the reason' '
	! cmake_ RUNS=0 && grep -q "invalid RUNS .0. (expected a whole number of runs from 1 to 99)" make.out &&
	! cmake_ RUNS=two && grep -q "invalid RUNS .two." make.out &&
	! cmake_ RUN_DELAY=-1 && grep -q "invalid RUN_DELAY .-1. (expected whole seconds)" make.out &&
	! cmake_ NODECAL_RUNS=0 && grep -q "invalid NODECAL_RUNS .0. (expected a whole number of runs from 1 to 99)" make.out &&
	! cmake_ NODE_BIND=socket && grep -q "invalid NODE_BIND .socket. (expected none or core)" make.out
'

if [ -x "$SAMPLES/nodecal" ]; then
	test_expect_success 'calibrate.mk node NODECAL_RUNS=2: the rank counts interleaved, one median per count' '
		rm -rf c &&
		cmake_ node NODE_NP="3 4" CORES=2 NODECAL_RUNS=2 NODECAL_REPS=50 \
			NODE_MPIRUN="mpirun --oversubscribe --bind-to none --mca btl vader,self" || { cat make.out; false; } &&
		grep -o ">$TRASH/c/nodecal[0-9.]*out.tmp$" make.out | sed "s|.*/||" >order &&
		printf "nodecal3.out.tmp\nnodecal4.out.tmp\nnodecal3.2.out.tmp\nnodecal4.2.out.tmp\n" >want &&
		test_cmp want order &&
		# nodecal runs without the tracer; calib reads its line
		! grep -q "allprof.*nodecal" make.out && grep -q "^4 [0-9.]* 50$" c/nodecal4.2.out &&
		grep -q "^# $TRASH/c/nodecal4.2.out: 4 ranks, 50 round trips: one way " c/node.params &&
		grep -q "^# 3 ranks: the median of 2 runs, wake-up [0-9.]* us (runs [0-9.]* to [0-9.]* us)$" c/node.params &&
		grep -q "^# 4 ranks: the median of 2 runs, wake-up " c/node.params &&
		grep -q "^cpu_wake = [0-9]" c/node.params &&
		grep -q "^cpu_bind = none$" c/node.params &&
		cmake_ node NODE_NP="3 4" CORES=2 NODECAL_RUNS=2 NODECAL_REPS=50 && ! grep -q "nodecal -n" make.out &&
		! grep -q "calib --yield" make.out &&
		# another rule fits the same runs again, with calib --cpu-bind, and traces nothing
		cmake_ node NODE_NP="3 4" CORES=2 NODECAL_RUNS=2 NODECAL_REPS=50 NODE_BIND=core &&
		! grep -q "nodecal -n" make.out && grep -q "calib --yield --cores 2 --cpu-bind core " make.out &&
		grep -q "^cpu_bind = core$" c/node.params && grep -q "^cpu_bind = core$" c/cluster-node.params
	'
fi

test_done
