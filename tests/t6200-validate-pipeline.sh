#!/bin/sh
# pipelines/validate.mk end to end on one small application (ring) at 2
# ranks: calibration through pipelines/calibrate.mk, trace, trace2goal in
# both modes, goalc, ibsim, cmp-real, and the deviation table, whose numbers
# must be those cmp-real gives for the same files. Then the pipeline is
# incremental: a second run does nothing, a changed setting redoes only the
# steps that depend on it. Skipped without mpirun or the sample programs.
. "$(dirname "$0")/lib.sh"
need_pipeline

V=$TRASH/v
# vmake [VAR=VALUE...]: run the pipeline on ring at 2 ranks into $V (output in vmake.out)
vmake() {
	make -C "$TOP" -f pipelines/validate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$V" \
		NP=2 APPS=ring ARGS_ring="200 1024" CAL_REPS=5 CAL_MAXBYTES=64K "$@" >"$TRASH/vmake.out" 2>&1 || { tail -30 "$TRASH/vmake.out"; return 1; }
}
# stamps: every file of the output with its modification time
stamps() {
	find "$V" -type f ! -name '*.png' ! -name '*.dat' -exec stat -c '%n %Y.%y' {} + | sort
}

test_expect_success 'the table: summaries over all runs and over the runs of 50 ms or more' '
	mkdir -p tr/long-4 tr/short-4 &&
	printf "rank\treal_ps\tsim_ps\tdev_pct\n0\t60000000000\t66000000000\t10.000\n1\t59000000000\t59000000000\t-20.000\n" >tr/long-4/default.cmp.tsv &&
	printf "rank\treal_ps\tsim_ps\tdev_pct\n0\t1000000000\t1500000000\t50.000\n1\t900000000\t900000000\t70.000\n" >tr/short-4/default.cmp.tsv &&
	sh "$TOP/pipelines/validate-table.sh" tr default long-4 short-4 >t.tsv &&
	grep -qx "# ranks=4 mode=default: median_abs_dev_pct=35.00 max_abs_dev_pct=70.00 over 4 ranks of 2 runs" t.tsv &&
	grep -qx "# runs of 50 ms or more: ranks=4 mode=default: median_abs_dev_pct=15.00 max_abs_dev_pct=20.00 over 2 ranks of 1 runs" t.tsv &&
	sh "$TOP/pipelines/validate-table.sh" tr default short-4 >t2.tsv &&
	! grep -q "50 ms or more" t2.tsv
'

# Two ranks whose deviations round to the same figure: the worst rank is the one cmp-real's
# summary names (it compares the unrounded deviations), not the first of the tie.
test_expect_success 'the worst rank of a rounded tie is cmp-real'"'"'s' '
	mkdir -p tie/ring-2 &&
	{
		printf "rank\treal_ps\tsim_ps\tdev_pct\n0\t1000000000\t1000400000\t0.040\n1\t1000000000\t1000400400\t0.040\n" &&
		printf "# x.sim.tsv: max_abs_dev_pct=0.040 worst_rank=1 mean_abs_dev_pct=0.040 outside=0 tolerance_pct=5\n"
	} >tie/ring-2/sync.cmp.tsv &&
	sh "$TOP/pipelines/validate-table.sh" tie sync ring-2 >tie.tsv &&
	grep -q "^ring	2	sync	1.000	0.04	0.04	0.04	1$" tie.tsv &&
	grep -v "^# " tie/ring-2/sync.cmp.tsv >tie/ring-2/default.cmp.tsv &&
	sh "$TOP/pipelines/validate-table.sh" tie default ring-2 >tie0.tsv &&
	grep -q "^ring	2	default	1.000	0.04	0.04	0.04	0$" tie0.tsv
'

test_expect_success 'the pipeline runs: calibration, trace, both modes, table' '
	vmake || { cat vmake.out; false; } &&
	test -s v/calibrate/cluster.params &&
	grep -q "^o_rndv = " v/calibrate/cluster.params &&
	test -s v/runs/ring-2/trace/rank-0.trace && test -s v/runs/ring-2/trace/rank-1.trace &&
	for m in default sync; do
		test -s v/runs/ring-2/$m.goalb && test -s v/runs/ring-2/$m.sim.tsv && test -s v/runs/ring-2/$m.cmp.tsv ||
			return 1
	done &&
	grep -q "^== trace ring-2 (2 ranks)$" vmake.out &&
	grep -q "^| ring | 2 | default | " vmake.out
'

test_expect_success 'the table: header, one row per mode, summaries' '
	printf "app\tranks\tmode\treal_ms\tmedian_abs_dev_pct\tmax_abs_dev_pct\tmean_abs_dev_pct\tworst_rank\n" >want &&
	head -n 1 v/deviation.tsv >got && test_cmp want got &&
	test "$(grep -c "^ring	2	default	[0-9.]*	[0-9.]*	[0-9.]*	[0-9.]*	[01]$" v/deviation.tsv)" = 1 &&
	test "$(grep -c "^ring	2	sync	[0-9.]*	[0-9.]*	[0-9.]*	[0-9.]*	[01]$" v/deviation.tsv)" = 1 &&
	grep -q "^# ranks=2 mode=default: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 2 ranks of 1 runs$" v/deviation.tsv &&
	grep -q "^# ranks=2 mode=sync: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 2 ranks of 1 runs$" v/deviation.tsv &&
	grep -q "^| app | ranks | mode | real (ms) |" v/deviation.md
'

# The row must be what cmp-real says about the same trace and results: the largest
# |deviation| and its rank, the mean, and the real time of the longer rank.
test_expect_success 'the numbers are cmp-real'"'"'s' '
	for m in default sync; do
		f=; [ $m = sync ] && f=--sync
		cmp-real $f -f tsv v/runs/ring-2/trace v/runs/ring-2/$m.sim.tsv >c.tsv; [ $? -le 1 ] || return 1
		sed -n "s/^# .*max_abs_dev_pct=\([0-9.]*\) worst_rank=\([0-9]*\) mean_abs_dev_pct=\([0-9.]*\) .*/\1 \2 \3/p" c.tsv >c.sum &&
		read max worst mean <c.sum &&
		real=$(awk -F"\t" "NR > 1 && !/^#/ && \$2 > m { m = \$2 } END { printf \"%.3f\", m / 1e9 }" c.tsv) &&
		row=$(grep "^ring	2	$m	" v/deviation.tsv) &&
		echo "$row" | awk -F"\t" -v max=$max -v mean=$mean -v w=$worst -v real=$real "{
			ok = \$4 == real && (\$6 - max) ^ 2 < 1e-4 && (\$7 - mean) ^ 2 < 1e-4 && \$8 == w
			# 2 ranks: the median is the mean
			ok = ok && (\$5 - mean) ^ 2 < 1e-4
			if (!ok) { print \"row: \" \$0; print \"cmp-real: \" max, mean, w, real }
			exit !ok }" || return 1
	done
'

test_expect_success 'a second run does nothing' '
	stamps >before &&
	sleep 1 &&
	vmake &&
	stamps >after &&
	test_cmp before after &&
	! grep -q "^== " vmake.out
'

test_expect_success 'a changed ibsim setting redoes the simulations only' '
	vmake IBSIM_FLAGS="-g 2ns" &&
	grep -q "^== ibsim ring-2 default$" vmake.out &&
	grep -q "^== ibsim ring-2 sync$" vmake.out &&
	! grep -q "^== trace" vmake.out &&
	! grep -q "^== trace2goal" vmake.out
'

test_expect_success 'changed arguments trace again' '
	vmake IBSIM_FLAGS="-g 2ns" ARGS_ring="300 1024" &&
	grep -q "^== trace ring-2 (2 ranks)$" vmake.out &&
	grep -q "^== trace2goal ring-2 sync$" vmake.out &&
	test "$(grep -c "^MPI_Allreduce:" v/runs/ring-2/trace/rank-0.trace)" = 300
'

test_expect_success 'unknown application or rank count: make stops with the reason' '
	! vmake APPS="ring nosuch" &&
	grep -q "unknown application .nosuch. in APPS" vmake.out &&
	! vmake NP="2 two" &&
	grep -q "invalid rank count .two. in NP" vmake.out
'

test_expect_success 'a failing run stops the pipeline with its error, the last trace stays' '
	! vmake MPIRUN_2=false IBSIM_FLAGS="-g 2ns" ARGS_ring="300 1024" &&
	grep -q "^ring-2: the traced run failed:" vmake.out &&
	tail -n 1 v/runs/ring-2/trace/rank-0.trace | grep -q "^# end " &&
	test "$(grep -c "^MPI_Allreduce:" v/runs/ring-2/trace/rank-0.trace)" = 300 &&
	vmake IBSIM_FLAGS="-g 2ns" ARGS_ring="300 1024" &&
	grep -q "^== trace ring-2 (2 ranks)$" vmake.out
'

test_done
