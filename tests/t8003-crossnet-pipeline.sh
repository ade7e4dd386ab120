#!/bin/sh
# pipelines/crossnet.mk end to end, reduced to seconds: ring traced twice on
# shared memory and twice on TCP over loopback (interleaved), a short
# calibration of each, A's median run predicted for B in both modes, the
# same-network predictions, and the table, whose every number must be there
# and whose cross-network row must be what cmp-real says. Then the pipeline
# is incremental, UNTRACED adds span runs and the predictions against them, and bad
# settings stop it with the reason. Skipped without
# mpirun or the sample programs.
. "$(dirname "$0")/lib.sh"
need_pipeline

X=$TRASH/x
# xmake [VAR=VALUE...]: the pipeline on ring, 2 runs per network, into $X (output in xmake.out)
xmake() {
	make -C "$TOP" -f pipelines/crossnet.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$X" \
		N=2 APPS=ring ARGS_ring="200 1024" CAL_REPS=10 CAL_MAXBYTES=64K CAL_VARS="PROGRAM=pingpong STATE_TRIES=1" "$@" \
		>"$TRASH/xmake.out" 2>&1 || { tail -30 "$TRASH/xmake.out"; return 1; }
}
stamps() {
	find "$X" -type f -exec stat -c '%n %Y.%y' {} + | sort
}

test_expect_success 'the pipeline runs: two calibrations, interleaved runs, the table' '
	xmake || { cat xmake.out; false; } &&
	test -s x/cal-shm/cluster.params && test -s x/cal-tcp/cluster.params &&
	grep "^== trace ring" xmake.out >order &&
	printf "%s\n" "== trace ring on shm, run 1 of 2 (2 ranks)" "== trace ring on tcp, run 1 of 2 (2 ranks)" \
		"== trace ring on shm, run 2 of 2 (2 ranks)" "== trace ring on tcp, run 2 of 2 (2 ranks)" >want &&
	test_cmp want order &&
	for p in shm-on-tcp tcp-on-tcp shm-on-shm; do
		for m in default sync; do
			test -s x/runs/ring/$p.$m.goalb && test -s x/runs/ring/$p.$m.cmp.tsv || return 1
		done
	done &&
	grep -q "^| ring | 2 | " xmake.out
'

test_expect_success 'the Markdown table ends with the drift test of each calibration' '
	for n in shm tcp; do
		grep -q "^- calibration of $n, drift: \(none: at each of the [0-9]* sizes\|the one-way time moved during the run at [0-9]* of [0-9]* sizes\)" x/crossnet.md ||
			{ tail x/crossnet.md; return 1; }
	done &&
	# every size named is one that a calibration file names
	sed -n "s/^  - at \([0-9]*\) bytes: .*/\1/p" x/crossnet.md | sort -n >named &&
	cat x/cal-shm/cluster.params x/cal-tcp/cluster.params | sed -n "s/^# drift at \([0-9]*\) bytes: .*/\1/p" | sort -n >want &&
	test_cmp want named
'

test_expect_success 'the machine state: each network'"'"'s reference, the runs set aside named' '
	for n in shm tcp; do
		ref=$(sed -n "s/^ref_us=//p" x/state-$n) && test -n "$ref" &&
		# the 10th percentile of the clock round trips at MPI_Init of its runs (rank 1)
		cat x/runs/ring/$n-*/trace/rank-1.trace | sed -n "s/^# Init clockrtt: //p" | sort -g >rtt &&
		want=$(awk "{ v[NR] = \$1 } END { print v[int(0.1 * (NR - 1)) + 1] }" rtt) &&
		echo "$n: reference $ref, from the traces $want" && test "$ref" = "$want" &&
		grep -q "^# state: ref_us=[0-9.]* slowed_pct=25 set_aside=[-0-9,]* used=[12]" x/runs/ring/$n.runs.tsv &&
		grep -q "^- machine state of $n: reference clock round trip $ref us (the 10th percentile at MPI_Init over 2 round trips of its runs); runs on a slowed machine (a round trip more than 25 % above) set aside: [0-2] of 2" x/crossnet.md ||
			return 1
		# the calibration'"'"'s state check against that reference (STATE_TRIES=1: one try)
		grep -q "^- calibration of $n, state check (pp): try 1: .*/cal-$n/pp: clock round trips [0-9.]* us at MPI_Init, [0-9.]* us at MPI_Finalize, reference $ref us: \(undisturbed\|a slowed machine\)$" x/crossnet.md ||
			{ grep "state check" x/crossnet.md; return 1; }
	done
'

test_expect_success 'STATE=no: every run is used, nothing said of the state' '
	xmake OUT="$TRASH/xs" STATE=no &&
	! grep -q "^# state:" xs/runs/ring/shm.runs.tsv && ! test -f xs/state-shm &&
	! grep -q "machine state of" xs/crossnet.md &&
	test "$(awk -F"\t" "\$1 == \"ring\" { print \$20 }" xs/crossnet.tsv)" = - &&
	! grep -q "runs all slowed\|runs not all slowed" xs/crossnet.tsv
'

test_expect_success 'the table: header, one row with every number, summaries' '
	head -n 1 x/crossnet.tsv | tr "\t" "\n" >cols &&
	printf "%s\n" app ranks real_a_ms spread_a_pct real_b_ms spread_b_pct naive_abs_dev_pct \
		default_ms default_abs_dev_pct default_within sync_ms sync_abs_dev_pct sync_within \
		same_b_default_abs_dev_pct same_b_sync_abs_dev_pct same_a_default_abs_dev_pct same_a_sync_abs_dev_pct \
		same_work compute_growth_pct b_all_slowed >want &&
	test_cmp want cols &&
	test "$(grep -vc "^#" x/crossnet.tsv)" = 2 &&
	awk -F"\t" "NR == 2 { ok = NF == 20 && \$1 == \"ring\" && \$2 == 2 && \$18 == \"yes\" && \$20 ~ /^(yes|no)\$/
		if (\$19 !~ /^-?[0-9]+\.[0-9][0-9]\$/) ok = 0
		for (i = 3; i <= 17; i++) if (i != 10 && i != 13 && \$i !~ /^[0-9]+(\\.[0-9]+)?\$/) ok = 0
		if (\$10 !~ /^(yes|no)\$/ || \$13 !~ /^(yes|no)\$/) ok = 0
		if (\$3 <= 0 || \$5 <= 0 || \$8 <= 0 || \$11 <= 0) ok = 0
		exit !ok }" x/crossnet.tsv &&
	grep -q "^# traced on shm (A), predicted for tcp (B), 2 ranks" x/crossnet.tsv &&
	grep -q "^# naive (B takes as long as A): median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps$" x/crossnet.tsv &&
	for m in default sync; do
		grep -q "^# $m shm->tcp: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps; naive>=5%: .*; beats naive in [01] of 1; within tcp spread in [01] of 1$" x/crossnet.tsv &&
		grep -q "^# same network tcp $m: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps$" x/crossnet.tsv &&
		grep -q "^# same network shm $m: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps$" x/crossnet.tsv &&
		# the ring of this test lasts milliseconds: no run counts as long
		grep -q "^# runs of 50 ms or more: $m shm->tcp: no apps$" x/crossnet.tsv &&
		grep -q "^# runs of 50 ms or more: same network tcp $m: no apps$" x/crossnet.tsv &&
		grep -q "^# same work, runs of 50 ms or more: $m shm->tcp: no apps$" x/crossnet.tsv &&
		grep -q "^# same work, runs of 50 ms or more: compute growth on tcp: no apps$" x/crossnet.tsv ||
		return 1
	done &&
	grep -q "^# same work on both networks (every rank sends as many messages and bytes): 1 of 1 apps$" x/crossnet.tsv &&
	# the summaries again without the programs whose tcp runs were all slowed, named
	grep -q "^# tcp runs all slowed (left out below): \(none\|ring\)$" x/crossnet.tsv &&
	if grep -q "^# tcp runs all slowed (left out below): none$" x/crossnet.tsv; then
		grep -q "^# tcp runs not all slowed: default shm->tcp: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps; " x/crossnet.tsv
	else
		grep -q "^# tcp runs not all slowed: default shm->tcp: no apps$" x/crossnet.tsv
	fi &&
	grep -q "^| app | ranks | real shm (ms) | real tcp (ms) | tcp spread % |" x/crossnet.md &&
	grep -q "^| ring | 2 | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]*, [0-9.]* | [0-9.]*, [0-9.]* | [a-z]* | [0-9.]*, [0-9.]* | [0-9.]*, [0-9.]* | yes | -\{0,1\}[0-9.]* | \(yes\|no\) |$" x/crossnet.md
'

# A program whose work depends on the network (it repeats a test until a time has passed) sends
# other messages on B than in A'"'"'s trace: the table says so and leaves it out of the target set.
test_expect_success 'a program that does other work on B: same_work no, out of the target set' '
	rm -rf w && mkdir -p w/runs && cp -R x/runs/ring w/runs/ring && cp -R x/runs/ring w/runs/ring2 &&
	awk -F"\t" -v OFS="\t" "\$1 == 0 { \$4 = \$4 + 1 } { print }" x/runs/ring/shm-on-tcp.default.sim.tsv \
		>w/runs/ring2/shm-on-tcp.default.sim.tsv &&
	sh "$TOP/pipelines/crossnet-table.sh" tsv w/runs shm tcp 2 ring ring2 >w.tsv &&
	test "$(awk -F"\t" "\$1 == \"ring\" { print \$18 }" w.tsv)" = yes &&
	test "$(awk -F"\t" "\$1 == \"ring2\" { print \$18 }" w.tsv)" = no &&
	grep -q "^# same work on both networks (every rank sends as many messages and bytes): 1 of 2 apps; differs: ring2$" w.tsv &&
	rm w/runs/ring/shm-on-tcp.default.sim.tsv &&
	! sh "$TOP/pipelines/crossnet-table.sh" tsv w/runs shm tcp 2 ring >/dev/null 2>err &&
	grep -q "crossnet-table.sh: w/runs/ring: cannot read the results files" err
'

# B's runs all made on a slowed machine (cmp-real keeps them all and says all_slowed=yes): the
# row says so, and the summaries are given again without it, named.
test_expect_success 'a program whose B runs were all slowed: b_all_slowed yes, left out of the second summaries' '
	rm -rf v && mkdir -p v/runs && cp -R x/runs/ring v/runs/ring && cp -R x/runs/ring v/runs/ring3 &&
	sed -i -e "/^# state: /d" v/runs/ring3/tcp.runs.tsv v/runs/ring/tcp.runs.tsv &&
	echo "# state: ref_us=10.000 slowed_pct=25 set_aside=- used=2 all_slowed=yes" >>v/runs/ring3/tcp.runs.tsv &&
	echo "# state: ref_us=10.000 slowed_pct=25 set_aside=- used=2" >>v/runs/ring/tcp.runs.tsv &&
	sh "$TOP/pipelines/crossnet-table.sh" tsv v/runs shm tcp 2 ring ring3 >v.tsv &&
	test "$(awk -F"\t" "\$1 == \"ring\" { print \$20 }" v.tsv)" = no &&
	test "$(awk -F"\t" "\$1 == \"ring3\" { print \$20 }" v.tsv)" = yes &&
	grep -q "^# default shm->tcp: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 2 apps;" v.tsv &&
	grep -q "^# tcp runs all slowed (left out below): ring3$" v.tsv &&
	d=$(awk -F"\t" "\$1 == \"ring\" { print \$9 }" v.tsv) &&
	grep -q "^# tcp runs not all slowed: default shm->tcp: median_abs_dev_pct=$d max_abs_dev_pct=$d over 1 apps;" v.tsv &&
	grep -q "^# tcp runs not all slowed: same network tcp sync: median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps$" v.tsv &&
	sh "$TOP/pipelines/crossnet-table.sh" md shm tcp v.tsv >v-table.txt &&
	grep -q "^| ring3 | 2 | .* | yes |$" v-table.txt && grep -q "| tcp runs all slowed |$" v-table.txt
'

# The cross-network numbers are cmp-real's: shm's median run predicted for tcp against both tcp runs.
# cmp-real is called as the pipeline calls it: with each network's reference clock round trip
# (STATE=yes), so that a run made on a slowed machine is set aside alike.
test_expect_success 'the numbers are cmp-real'"'"'s' '
	sref=$(sed -n "s/^ref_us=\([0-9.]*[1-9][0-9.]*\)/--state-ref \1us/p" x/state-shm) &&
	tref=$(sed -n "s/^ref_us=\([0-9.]*[1-9][0-9.]*\)/--state-ref \1us/p" x/state-tcp) &&
	cmp-real --sync $sref -f tsv --run x/runs/ring/shm-2/trace x/runs/ring/shm-1/trace >a.tsv &&
	med=$(sed -n "s/^# runs=2 median_run=\([12]\) .*/\1/p" a.tsv) && test -n "$med" &&
	grep -q "^# runs=2 median_run=$med " x/runs/ring/shm.runs.tsv &&
	cmp-real --sync $tref -f tsv --run x/runs/ring/tcp-2/trace x/runs/ring/tcp-1/trace x/runs/ring/shm-on-tcp.sync.sim.tsv >c.tsv
	[ $? -le 1 ] &&
	row=$(grep "^ring	" x/crossnet.tsv) &&
	all=$(grep "^all	" c.tsv) &&
	printf "%s\n%s\n" "$row" "$all" | awk -F"\t" "NR == 1 { b = \$5; s = \$11; d = \$12; w = \$13; next }
		{ d2 = \$7 < 0 ? -\$7 : \$7
		  ok = sprintf(\"%.3f\", \$2 / 1e9) == b && sprintf(\"%.3f\", \$6 / 1e9) == s &&
		       sprintf(\"%.2f\", d2) == d && \$8 == w
		  if (!ok) print \"table: \" b, s, d, w; exit !ok }"
'

# compute_growth_pct: B's own computation (mean calc_ps over the ranks, B on B) against A's
# converted for B (A on B), in percent of B's real run: give B's ranks one tenth of that run more.
test_expect_success 'compute growth: B'"'"'s computation against A'"'"'s, in percent of B'"'"'s run' '
	rm -rf g && mkdir -p g/runs && cp -R x/runs/ring g/runs/ring &&
	rb=$(awk -F"\t" "\$1 == \"all\" { print \$2 }" x/runs/ring/tcp.runs.tsv) && test -n "$rb" &&
	awk -F"\t" -v OFS="\t" -v rb="$rb" "FNR == 1 { f++ }
		f == 1 { if (\$1 ~ /^[0-9]+\$/) c[\$1] = \$3; next }
		\$1 ~ /^[0-9]+\$/ { \$3 = sprintf(\"%.0f\", c[\$1] + rb / 10) } { print }" \
		x/runs/ring/shm-on-tcp.default.sim.tsv x/runs/ring/tcp-on-tcp.default.sim.tsv \
		>g/runs/ring/tcp-on-tcp.default.sim.tsv &&
	sh "$TOP/pipelines/crossnet-table.sh" tsv g/runs shm tcp 2 ring >g.tsv &&
	test "$(awk -F"\t" "\$1 == \"ring\" { print \$19 }" g.tsv)" = 10.00 &&
	awk -F"\t" -v OFS="\t" "\$1 ~ /^[0-9]+\$/ { \$3 = 0 } { print }" x/runs/ring/shm-on-tcp.default.sim.tsv \
		>g/runs/ring/tcp-on-tcp.default.sim.tsv &&
	sh "$TOP/pipelines/crossnet-table.sh" tsv g/runs shm tcp 2 ring >g.tsv &&
	awk -F"\t" "\$1 == \"ring\" { exit !(\$19 < 0) }" g.tsv
'

test_expect_success 'a second run does nothing' '
	stamps >before &&
	sleep 1 &&
	xmake &&
	stamps >after &&
	test_cmp before after &&
	! grep -q "^== " xmake.out
'

test_expect_success 'new network settings: that network is calibrated and traced again, the other is not' '
	xmake MCA_tcp="--mca btl tcp,self --mca btl_tcp_if_include lo --mca btl_tcp_sndbuf 0" &&
	grep -q "^== trace ring on tcp, run 1 of 2" xmake.out &&
	! grep -q "^== trace ring on shm" xmake.out &&
	grep -q "^== trace2goal ring traced on tcp for tcp, converted with the parameters of tcp, sync$" xmake.out &&
	! grep -q "^== trace2goal ring traced on shm for shm" xmake.out
'

test_expect_success 'UNTRACED=2: round i of the span runs follows round i of the traced ones' '
	xmake OUT="$TRASH/x2" UNTRACED=2 &&
	grep "^== \(trace\|untraced\) ring" xmake.out >order &&
	printf "%s\n" "== trace ring on shm, run 1 of 2 (2 ranks)" "== trace ring on tcp, run 1 of 2 (2 ranks)" \
		"== untraced ring on shm, run 1 of 2 (2 ranks)" "== untraced ring on tcp, run 1 of 2 (2 ranks)" \
		"== trace ring on shm, run 2 of 2 (2 ranks)" "== trace ring on tcp, run 2 of 2 (2 ranks)" \
		"== untraced ring on shm, run 2 of 2 (2 ranks)" "== untraced ring on tcp, run 2 of 2 (2 ranks)" >want &&
	test_cmp want order &&
	for n in shm tcp; do
		for i in 1 2; do
			grep -qx "# span: MPI_Init and MPI_Finalize only" x2/runs/ring/span/$n-$i/rank-1.trace || return 1
		done
	done &&
	for m in default sync; do
		test -s x2/runs/ring/shm-on-tcp.$m.untraced.cmp.tsv || return 1
	done
'

test_expect_success 'UNTRACED: the predictions against B'"'"'s untraced median, the table, reruns' '
	# the default row: cmp-real of the prediction against the two untraced runs on tcp, those
	# made on a slowed machine set aside against the reference of tcp (STATE=yes)
	ref=$(sed -n "s/^ref_us=//p" x2/state-tcp) && test -n "$ref" &&
	{ cmp-real -f tsv --state-ref "${ref}us" --run x2/runs/ring/span/tcp-2 x2/runs/ring/span/tcp-1 \
		x2/runs/ring/shm-on-tcp.default.sim.tsv >u.tsv; test $? -le 1; } &&
	awk -F"\t" "\$1 == \"all\" { printf \"%.3f %.2f %.3f %.2f\\n\", \$2 / 1e9, \$5, \$6 / 1e9, (\$7 < 0 ? -\$7 : \$7) }" u.tsv >want &&
	awk -F"\t" "\$1 == \"ring\" { print \$4, \$5, \$9, \$10 }" x2/untraced.tsv >got &&
	test_cmp want got &&
	head -n 1 x2/untraced.tsv | grep -q "^app	a_untraced_ms	a_traced_ms	b_untraced_ms	.*	b_undisturbed_runs	a_undisturbed_runs$" &&
	# the undisturbed runs: cmp-real'"'"'s count of the runs used, 0 when every run was slowed
	for n in tcp:20 shm:21; do
		net=${n%%:*} col=${n##*:} &&
		want=$(sed -n "s/^# state: .* used=\([0-9]*\)\( all_slowed=yes\)*$/\1\2/p" x2/runs/ring/untraced.$net.tsv | sed "s/[0-9]* all_slowed=yes/0/") &&
		got=$(awk -F"\t" -v c=$col "\$1 == \"ring\" { print \$c }" x2/untraced.tsv) &&
		echo "$net: undisturbed runs $got, cmp-real $want" && test -n "$want" && test "$got" = "$want" || return 1
	done &&
	# (or, when every untraced run on tcp was on a slowed machine, the app named as left out)
	grep -q "^- against tcp.s untraced runs: default shm->tcp: \(median_abs_dev_pct=[0-9.]* max_abs_dev_pct=[0-9.]* over 1 apps; beats naive in [01] of 1\|no app left: every untraced run slowed: ring\)$" x2/crossnet.md &&
	grep -q "^- the tracer lengthened the runs on tcp by (traced - untraced) / untraced: median " x2/crossnet.md &&
	grep -q "^- the tracer lengthened the runs on shm by (traced - untraced) / untraced: median " x2/crossnet.md &&
	xmake OUT="$TRASH/x2" UNTRACED=2 && ! grep -q "^== " xmake.out &&
	# a third round: only it runs (after the last traced one)
	xmake OUT="$TRASH/x2" UNTRACED=3 && grep "^== \(trace\|untraced\) ring" xmake.out >order3 &&
	printf "%s\n" "== untraced ring on shm, run 3 of 3 (2 ranks)" "== untraced ring on tcp, run 3 of 3 (2 ranks)" >want3 &&
	test_cmp want3 order3
'

test_expect_success 'crossnet-untraced.sh: a program whose untraced runs on B were all slowed is left out, named' '
	rm -rf ux && mkdir -p ux && cp -r x2/runs/ring ux/ring &&
	sed "s/^# state: .*/# state: ref_us=1.000 slowed_pct=25 set_aside=- used=2 all_slowed=yes/" \
		x2/runs/ring/untraced.tcp.tsv >ux/ring/untraced.tcp.tsv &&
	sh "$TOP/pipelines/crossnet-untraced.sh" ux shm tcp x2/crossnet.tsv ring >ux.tsv &&
	awk -F"\t" "\$1 == \"ring\" { exit \$20 != 0 }" ux.tsv &&
	grep -qx "# against tcp.s untraced runs: default shm->tcp: no app left: every untraced run slowed: ring" ux.tsv &&
	grep -q "^# against tcp.s untraced runs: same network tcp default: no app left: every untraced run slowed: ring$" ux.tsv &&
	# shm'"'"'s own network is judged by shm'"'"'s runs: left out only if those were all slowed too
	a=$(awk -F"\t" "\$1 == \"ring\" { print \$21 }" ux.tsv) &&
	if [ "$a" = 0 ]; then grep -q "^# against shm.s untraced runs: same network shm default: no app left" ux.tsv
	else ! grep -q "^# against shm.s untraced runs: same network shm default: no app left" ux.tsv; fi
'

# CAL=between: a short netcal run on each network after the last run of every application,
# pooled into between.params, which the predictions then use; CAL=after on the same runs
# calibrates after them and converts again without tracing anything
test_expect_success 'CAL=between: calibrations between the applications, pooled, used' '
	xmake OUT="$TRASH/xb" APPS="ring datatypes" CAL=between CAL_BUDGET=1 &&
	grep "^== \(trace [a-z]* on\|calibrate\)" xmake.out >order &&
	printf "%s\n" "== trace ring on shm, run 1 of 2 (2 ranks)" "== trace ring on tcp, run 1 of 2 (2 ranks)" \
		"== trace ring on shm, run 2 of 2 (2 ranks)" "== trace ring on tcp, run 2 of 2 (2 ranks)" \
		"== calibrate shm between the runs: after those of ring" "== calibrate tcp between the runs: after those of ring" \
		"== trace datatypes on shm, run 1 of 2 (2 ranks)" "== trace datatypes on tcp, run 1 of 2 (2 ranks)" \
		"== trace datatypes on shm, run 2 of 2 (2 ranks)" "== trace datatypes on tcp, run 2 of 2 (2 ranks)" \
		"== calibrate shm between the runs: after those of datatypes" "== calibrate tcp between the runs: after those of datatypes" \
		"== calibrate shm from 2 runs between the runs" "== calibrate tcp from 2 runs between the runs" >want &&
	sort want >want.s && sort order >order.s && test_cmp want.s order.s &&
	# the order: each calibration right after its application, before the next one
	grep -v "from 2 runs" order >order2 && grep -v "from 2 runs" want >want2 && test_cmp want2 order2 &&
	! test -f xb/cal-shm/cluster.params && ! test -f xb/cal-tcp/cluster.params &&
	for n in shm tcp; do
		for a in ring datatypes; do
			test -s xb/cal-$n/between/$a/rank-1.trace &&
			grep -q "^# machine state: " xb/cal-$n/between.params &&
			grep -q "^$a: xb/cal-$n/between/$a: clock round trips .*: \(undisturbed\|a slowed machine\)$" xb/cal-$n/between.state ||
			grep -q "^$a: $TRASH/xb/cal-$n/between/$a: clock round trips .*: \(undisturbed\|a slowed machine\)$" xb/cal-$n/between.state || return 1
		done &&
		# the pool: the undisturbed runs, or the least slowed when none was
		u=$(grep -c ": undisturbed$" xb/cal-$n/between.state; true) &&
		if [ "$u" = 0 ]; then grep -q "^every run between the runs was made on a slowed machine: the least slowed is used: " xb/cal-$n/between.state
		else grep -qx "pooled: $u of 2 runs" xb/cal-$n/between.state; fi &&
		if [ "$u" = 2 ]; then grep -q "^# runs: 2, pooled" xb/cal-$n/between.params; else ! grep -q "^# runs: " xb/cal-$n/between.params; fi &&
		grep -q "^- calibration of $n, state check (between): ring: " xb/crossnet.md || return 1
	done &&
	# the prediction for tcp is made with the pooled parameters
	ibsim -q -p xb/cal-tcp/between.params xb/runs/ring/shm-on-tcp.default.goalb >sim.tsv &&
	test_cmp xb/runs/ring/shm-on-tcp.default.sim.tsv sim.tsv &&
	# the same runs, calibrated after them: nothing traced, both networks calibrated, converted again
	xmake OUT="$TRASH/xb" APPS="ring datatypes" CAL=after &&
	! grep -q "^== trace [a-z]* on" xmake.out && ! grep -q "^== calibrate" xmake.out &&
	grep -q "^== trace2goal ring traced on shm for tcp, converted with the parameters of tcp, default$" xmake.out &&
	test -s xb/cal-shm/cluster.params && test -s xb/cal-tcp/cluster.params &&
	ibsim -q -p xb/cal-tcp/cluster.params xb/runs/ring/shm-on-tcp.default.goalb >sim.tsv &&
	test_cmp xb/runs/ring/shm-on-tcp.default.sim.tsv sim.tsv &&
	grep -q "^- calibration of tcp, state check (pp): try 1: " xb/crossnet.md
'

test_expect_success 'bad settings: make stops with the reason' '
	! xmake CAL=during && grep -q "invalid CAL .during. (expected after or between)" xmake.out &&
	! xmake CAL=between CAL_BUDGET=0 && grep -q "invalid CAL_BUDGET .0. (expected a positive number of seconds)" xmake.out &&
	! xmake CAL=between CAL_BUDGET=x && grep -q "invalid CAL_BUDGET .x." xmake.out &&
	! xmake UNTRACED=1 && grep -q "UNTRACED=1: the spread of B.s untraced runs needs 2 or more" xmake.out &&
	! xmake UNTRACED=x && grep -q "invalid UNTRACED .x." xmake.out &&
	! xmake B=ib && grep -q "network .ib. of B has no settings (define MCA_ib" xmake.out &&
	! xmake B=shm && grep -q "A and B name the same network .shm." xmake.out &&
	! xmake N=1 && grep -q "invalid N .1. (expected a whole number of runs of at least 2" xmake.out &&
	! xmake APPS="ring nosuch" && grep -q "unknown application .nosuch. in APPS" xmake.out
'

test_done
