#!/bin/sh
# pipelines/demo.mk end to end, reduced to seconds: one sample application on
# 2 ranks, a short calibration, the thesis's ltest traces, the schedules, the
# plots; then rerun (nothing redone), incremental rebuilds, the run without
# MPI, and a failing stage. The MPI parts are skipped without mpirun.
. "$(dirname "$0")/lib.sh"
# nested makes run on their own, not in the jobserver of a `make -j check`
unset MAKEFLAGS MFLAGS MAKELEVEL

OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Open MPI's session directory in this test's own scratch directory: mpirun
# runs of other tests at the same time then cannot collide with ours.
TMPDIR=$TRASH
export TMPDIR
command -v gnuplot >/dev/null 2>&1 && PLOTS=yes || PLOTS=no

# demo OUT [VAR=VALUE...]: the reduced demo into OUT; stdout to OUT.log, stderr to OUT.err
demo() {
	o=$1
	shift
	make -s -C "$TOP" -f pipelines/demo.mk BIN="$IR_BIN" BUILD="$IR_BUILD" OUT="$TRASH/$o" \
		APPS=ring NPS=2 LAMMPS=no REPS=3 MAXBYTES=64K GEN_NP=4 PLOTS=$PLOTS \
		CROSS_APPS=ring CROSS_N=2 CROSS_VARS="ARGS_ring=200\ 1024 CAL_REPS=3 CAL_MAXBYTES=64K CAL_VARS=PROGRAM=pingpong" "$@" \
		>"$TRASH/$o.log" 2>"$TRASH/$o.err" || { tail -20 "$TRASH/$o.log"; tail -30 "$TRASH/$o.err"; return 1; }
}
# numeric FILE: every row after the header has 9 fields, all but the first numbers
numeric() {
	awk -F'\t' 'NR > 1 { if (NF != 9) bad = 1; for (i = 2; i <= 9; i++) if ($i !~ /^[-+]?[0-9]+(\.[0-9]+)?$/) bad = 1 }
		END { exit bad }' "$1"
}
# png FILE / svg FILE: the file is a picture of that kind
png() { test "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG"; }
svg() { grep -q '<svg' "$1"; }

test_expect_success 'without MPI: ltest and schedules replayed, MPI stages skipped' '
	demo n MPI=no PLOTS=no &&
	grep -q "^demo \[1/8\] calibration" n.log &&
	grep -q "^   mpirun not found (or MPI=no)" n.log &&
	grep -q "^demo \[2/8\] tracing 0 runs" n.log &&
	grep -q "^   skipped: needs mpirun\$" n.log &&
	grep -q "^   gnuplot not found" n.log &&
	grep -q "^demo \[7/8\] done in [0-9]* s" n.log &&
	grep -q "^demo \[8/8\] cross-network: traced on shm, predicted for TCP (skipped: needs mpirun)$" n.log &&
	grep -q "^demo \[8/8\] done in [0-9]* s" n.log &&
	test "$(cut -f1 n/deviation.tsv)" = "$(printf "app\nltest-thesis")" &&
	numeric n/deviation.tsv &&
	! test -s n.err
'

test_expect_success 'ltest: the real time from the shipped traces, loggops with the thesis parameters' '
	test "$(cut -f2,3,4 n/deviation.tsv | sed -n 2p)" = "2	13889.715	13989.991" &&
	grep -q "^ltest-thesis *2 *13889.7 *13990.0 *+0.72 " n.log &&
	grep -q "^ *0  *13807.000  *13989.991  *+1.33 " n.log
'

test_expect_success 'schedules stage: every sample and generated schedule compiled, round-tripped, simulated' '
	for s in halo-4 ltest-schedgen gen-dissemination gen-bcast gen-allreduce gen-ring; do
		goalc --check n/sched/$s.goalb && test -s n/sched/$s.stats && test -s n/sched/$s.matrix.tsv &&
		grep -q "^   $s  *[0-9][0-9]*  *[1-9][0-9]*\$" n.log || return 1
	done &&
	grep -q "^   gen-dissemination  *4 " n.log
'

test_expect_success 'a failing stage stops the demo with its error' '
	! demo f MPI=no PLOTS=no BIN=/nonexistent &&
	grep -q "/nonexistent/trace2goal" f.err &&
	! grep -q "demo \[4/8\] done" f.log
'

if command -v mpirun >/dev/null 2>&1 && [ -x "$IR_BUILD/samples/ring" ] && [ -x "$IR_BIN/allprof" ]; then
test_expect_success 'with MPI: calibration, tracing, replay on loggops and ib, cmp-real, table' '
	demo d &&
	grep -q "^demo \[1/8\] done" d.log && grep -q "^   allprof ring-2\$" d.log &&
	grep -q "^   ring-2  *real [0-9]* us, loggops [-+][0-9.]*%, ib [-+][0-9.]*%\$" d.log &&
	test "$(cut -f1,2 d/deviation.tsv | tr "\t\n" ":;")" = "app:ranks;ring:2;ltest-thesis:2;" &&
	numeric d/deviation.tsv &&
	grep -q "^ring  *2 " d.log &&
	test -f d/apps/ring-2/traces/rank-0.trace && test -f d/apps/ring-2/traces/rank-1.trace &&
	goalc --check d/apps/ring-2/app.goalb &&
	grep -q "^# goalc matrix 1 ranks=2\$" d/apps/ring-2/matrix.tsv &&
	grep -q "^# ibsim .* net=loggops " d/apps/ring-2/loggops.tsv &&
	grep -q "^# ibsim .* net=ib topo=fattree2:4 " d/apps/ring-2/ib.tsv &&
	head -n 1 d/apps/ring-2/links.tsv | grep -q "^from	port	to	port	link	bytes	packets	busy_ps	stall_ps\$" &&
	grep -q "^ring-2.loggops.tsv\|loggops.tsv: largest |deviation|" d/apps/ring-2/cmp.txt &&
	grep -q "^o = " d/calib/loggops.params && ! grep -q "^pin_" d/calib/loggops.params &&
	grep -q "^net = ib" d/calib/ib.params && grep -q "^topo = fattree2:4" d/calib/ib.params &&
	head -c 40 d/apps/ring-2/ib.timeline.json | grep -q "^{\"displayTimeUnit\"" &&
	tail -c 3 d/apps/ring-2/ib.timeline.json | grep -q "]}" &&
	grep -qx "timeline (open in https://ui.perfetto.dev): $TRASH/d/apps/ring-2/ib.timeline.json" d.log
'

test_expect_success 'cross-network stage: ring traced on shm, predicted for TCP, a row of numbers' '
	grep -q "^demo \[8/8\] cross-network: traced on shm, predicted for TCP (ring, 2 runs each)\$" d.log &&
	grep -q "^   traced on shm, predicted for TCP (real: median of 2 runs; |dev| from TCP.s median)\$" d.log &&
	grep -q "^   ring  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*\$" d.log &&
	grep -q "^| ring | 2 | " d/crossnet/crossnet.md &&
	test -s d/crossnet/cal-tcp/cluster.params
'

test_expect_success 'pattern stage without LAMMPS: ring on 8 ranks, its matrix and fat-tree links' '
	grep -q "^demo \[5/8\] communication pattern of ring-8\$" d.log &&
	grep -q "^   ranks  *8\$" d.log &&
	test "$(grep -c "^[0-9]" d/apps/ring-8/matrix.tsv)" -gt 8 &&
	grep -q "^spine0	" d/apps/ring-8/links.tsv
'

if [ $PLOTS = yes ]; then
test_expect_success 'plots: fit, deviation bars, matrix, sizes, links; PNG and SVG, paths printed' '
	for p in fit deviation matrix sizes links; do
		png d/plots/$p.png && svg d/plots/$p.svg &&
		grep -qx "  $TRASH/d/plots/$p.png" d.log || return 1
	done
'
else
test_skip 'plots' 'gnuplot not installed'
fi

test_expect_success 'rerun: nothing is traced, simulated or drawn again' '
	ls -l --time-style=+%s.%N -R d >before &&
	demo d &&
	ls -l --time-style=+%s.%N -R d >after &&
	test_cmp before after &&
	! grep -q "allprof ring" d.log && grep -q "^ring  *2 " d.log
'

test_expect_success 'incremental: new parameters replay again without tracing again' '
	sleep 1 && touch d/calib/cluster.params &&
	demo d &&
	! grep -q "allprof ring" d.log &&
	test d/apps/ring-2/app.goalb -nt d/calib/cluster.params &&
	test d/apps/ring-2/traced -ot d/calib/cluster.params
'

test_expect_success 'a removed run directory is traced again' '
	rm -rf d/apps/ring-2 &&
	demo d &&
	grep -q "^   allprof ring-2\$" d.log && test -s d/apps/ring-2/row.tsv
'
else
test_skip 'demo with MPI (calibration, tracing, replay, plots, reruns)' 'mpirun or the sample programs missing'
fi
test_done
