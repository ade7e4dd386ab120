#!/bin/sh
# pipelines/validate.mk with the node model (NODE): a run of more ranks than
# CORES is traced with allprof --cpu-time, converted with --calc cpu in the
# default mode and simulated with NODE, --ranks-per-host and the cpu_yield of
# NODE_PARAMS; the sync mode keeps neither; a new cpu_yield redoes only the
# default simulation; UNTRACED=N adds N runs under allprof --span and the mode
# `untraced` against their median. ring at 4 ranks on CORES=2 (oversubscribed), a
# node.params written here (no nodecal runs). Skipped without mpirun or the
# sample programs.
. "$(dirname "$0")/lib.sh"
need_pipeline

V=$TRASH/v
R=$V/runs/ring-4
printf 'cores = 2\ncpu_wait = block\ncpu_yield = %s\n' 123456 >"$TRASH/node.params"
# vmake [VAR=VALUE...]: ring at 4 ranks with the node model into $V (output in vmake.out)
vmake() {
	make -C "$TOP" -f pipelines/validate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$V" \
		NP=4 APPS=ring ARGS_ring="200 1024" CAL_REPS=5 CAL_MAXBYTES=64K \
		NODE="--cores 2 --cpu-wait block" CORES=2 NODE_PARAMS="$TRASH/node.params" "$@" \
		>"$TRASH/vmake.out" 2>&1 || { tail -30 "$TRASH/vmake.out"; return 1; }
}
# the simulation a mode's results must equal: ibsim with the pipeline's flags
sim() {
	ibsim -q -p "$V/calibrate/cluster.params" --net loggops "$@"
}

test_expect_success 'the pipeline runs with NODE' '
	vmake &&
	for m in default sync; do
		test -s $R/$m.sim.tsv && test -s $R/$m.cmp.tsv || return 1
	done &&
	grep -q "^| ring | 4 | default | " vmake.out
'

test_expect_success 'the run of more ranks than cores is traced with CPU times' '
	for r in 0 1 2 3; do
		grep -q "^# cpu: thread, microseconds" $R/trace/rank-$r.trace || return 1
	done
'

test_expect_success 'default: converted with --calc cpu' '
	p=$(sed -n "s/^poll *= *\([^ #]*\).*/\1/p" v/calibrate/cluster.params) &&
	trace2goal -q --calc cpu -p v/calibrate/cluster.params ${p:+--poll-from $p --poll-to $p} $R/trace >want.goal &&
	goalc -d $R/default.goalb >got.goal &&
	goalc -d want.goal >want.canon &&
	test_cmp want.canon got.goal &&
	trace2goal -q -p v/calibrate/cluster.params ${p:+--poll-from $p --poll-to $p} $R/trace | goalc -d >wall.goal &&
	! cmp -s wall.goal got.goal
'

test_expect_success 'default: simulated with NODE, the ranks per host and cpu_yield' '
	sim --cores 2 --cpu-wait block --ranks-per-host 4 --cpu-yield 123456 $R/default.goalb >want.tsv &&
	test_cmp want.tsv $R/default.sim.tsv &&
	sim $R/default.goalb >plain.tsv &&
	! cmp -s plain.tsv $R/default.sim.tsv
'

test_expect_success 'sync: no node model (the clock holds the waiting for a core)' '
	sim --async-progress $R/sync.goalb >want.tsv &&
	test_cmp want.tsv $R/sync.sim.tsv &&
	p=$(sed -n "s/^poll *= *\([^ #]*\).*/\1/p" v/calibrate/cluster.params) &&
	trace2goal -q --durations --sync -p v/calibrate/cluster.params ${p:+--poll-from $p --poll-to $p} $R/trace |
		goalc -d >s.goal &&
	goalc -d $R/sync.goalb >got.goal &&
	test_cmp s.goal got.goal
'

test_expect_success 'a new cpu_yield and cpu_wake redo only the default simulation' '
	printf "cores = 2\ncpu_wait = block\ncpu_yield = %s\ncpu_wake = %s\n" 9876543 222222 >node.params &&
	vmake &&
	grep -q "^== ibsim ring-4 default$" vmake.out &&
	! grep -q "^== ibsim ring-4 sync$" vmake.out &&
	! grep -q "^== trace" vmake.out &&
	! grep -q "^== trace2goal" vmake.out &&
	sim --cores 2 --cpu-wait block --ranks-per-host 4 --cpu-yield 9876543 --cpu-wake 222222 $R/default.goalb >want.tsv &&
	test_cmp want.tsv $R/default.sim.tsv
'

test_expect_success 'UNTRACED=3: three span runs, the default prediction against their median' '
	vmake UNTRACED=3 &&
	! grep -q "^== trace " vmake.out && grep -q "^== untraced ring-4 (4 ranks, 3 runs)$" vmake.out &&
	for k in 1 2 3; do
		grep -qx "# span: MPI_Init and MPI_Finalize only" $R/span/$k/rank-0.trace || return 1
	done &&
	test $(wc -l <$R/span/times) = 3 &&
	m=$(cat $R/span/median) &&
	# the median run: its longest rank is the middle one of the three
	sort -t"	" -k2,2g $R/span/times | sed -n 2p | cut -f1 >mid && echo $m >got && test_cmp mid got &&
	{ cmp-real -t 5 -f tsv $R/span/$m $R/default.sim.tsv >want.tsv; test $? -le 1; } &&
	test_cmp want.tsv $R/untraced.cmp.tsv &&
	grep -q "^ring	4	untraced	" v/deviation.tsv &&
	awk -F"\t" "NR == 2 && \$1 == \"ring\" && \$2 == 4 && \$3 == 3 && \$4 <= \$5 && \$5 <= \$6 && \$7 > 0 { ok = 1 } END { exit !ok }" v/untraced.tsv
'

test_expect_success 'UNTRACED: a bad count, and without the default mode' '
	! vmake UNTRACED=x && grep -q "invalid UNTRACED .x." vmake.out &&
	! vmake UNTRACED=2 MODES=sync && grep -q "UNTRACED compares the default mode.s prediction: MODES must hold default" vmake.out
'

test_expect_success 'the rule NODE simulates is the rule calib --yield inverts (NODE_BIND)' '
	for node in "--cores 2 --cpu-bind core" "--cores 2 --cpu-bind=core" "--cores 2"; do
		make -n -C "$TOP" -f pipelines/validate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$TRASH/vn" \
			NP=4 APPS=ring CORES=2 NODE="$node" >n.out 2>&1 || { cat n.out; return 1; }
		case $node in *core) b=core ;; *) b=none ;; esac
		grep -q "NODE_BIND=$b " n.out && grep -q "calib --yield --cores 2 --cpu-bind $b " n.out || return 1
	done
'

test_done
