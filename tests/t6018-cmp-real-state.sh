#!/bin/sh
# cmp-real --state-ref: runs made on a slowed machine (a clock round trip of
# allprof's exchanges at MPI_Init or at MPI_Finalize more than 25 % above the
# reference) are set aside from the medians, the spreads and the choice of the
# median run, unless every run was. Five synthetic 2-rank runs whose times and
# round trips are known; then the text and md reports, a run with one end
# slowed, every run slowed, and the errors.
. "$(dirname "$0")/lib.sh"

# mk DIR MS INIT_RTT FINI_RTT: a 2-rank run lasting MS milliseconds whose rank 1 measured
# the clock round trips INIT_RTT and FINI_RTT (us) at MPI_Init and MPI_Finalize
mk() {
	mkdir -p "$1" &&
	for r in 0 1; do
		if [ $r = 0 ]; then ri=0.000 rf=0.000; else ri=$3 rf=$4; fi
		{
			printf "# allprof 1.0 trace format 1\n# rank: %s of 2\n" $r
			printf "# Init clockdiff: 0.000\n# Init clockrtt: %s\n" $ri
			printf "MPI_Init:1000000000.000:1:2:1000000010.000\n"
			printf "# Finalize clockdiff: 0.000\n# Finalize clockrtt: %s\n" $rf
			printf "MPI_Finalize:%s.000:-\n# end 2 0\n" $((1000000010 + $2 * 1000))
		} >"$1/rank-$r.trace" || return 1
	done
}

test_expect_success 'five runs: 10, 20, 30, 40 and 50 ms; the two longest on a slowed machine' '
	mk r1 30 0.330 0.280 && mk r2 10 0.340 0.290 && mk r3 40 0.700 0.650 &&
	mk r4 50 0.710 0.600 && mk r5 20 0.320 0.270
'

test_expect_success 'without --state-ref: the median of all five, run 1 the median run' '
	cmp-real --sync -f tsv --run r2 --run r3 --run r4 --run r5 r1 >all.tsv &&
	grep -q "^all	30000000000	10000000000	50000000000	133.333$" all.tsv &&
	grep -qx "# runs=5 median_run=1 r1" all.tsv &&
	! grep -q "^# state" all.tsv
'

test_expect_success 'with --state-ref 0.33us: runs 3 and 4 set aside, the median of 10, 20 and 30 ms' '
	cmp-real --sync --state-ref 0.33us -f tsv --run r2 --run r3 --run r4 --run r5 r1 >st.tsv &&
	grep -q "^all	20000000000	10000000000	30000000000	100.000$" st.tsv &&
	grep -qx "# runs=5 median_run=5 r5" st.tsv &&
	grep -qx "# state: ref_us=0.330 slowed_pct=25 set_aside=3,4 used=3" st.tsv
'

test_expect_success 'the reference in another unit; a prediction compared with the kept runs only' '
	printf "rank\tend_ps\n0\t21000000000\n1\t21000000000\n" >sim.tsv &&
	cmp-real --sync --state-ref 330ns -t 10 -f tsv --run r2 --run r3 --run r4 --run r5 r1 sim.tsv >p.tsv &&
	grep -q "^# sim.tsv: .* run_dev_pct=5.000 within_spread=yes$" p.tsv &&
	grep -qx "# state: ref_us=0.330 slowed_pct=25 set_aside=3,4 used=3" p.tsv
'

test_expect_success 'text and md name the runs set aside and their round trips' '
	cmp-real --sync --state-ref 0.33us --run r2 --run r3 --run r4 --run r5 r1 >st.txt &&
	grep -q "^real times: the median of 3 runs; median run: r5 (run 5)$" st.txt &&
	grep -q "^state: runs set aside: 3 (0.700/0.650 us), 4 (0.710/0.600 us); a run is set aside when its clock round trip at MPI_Init or at MPI_Finalize is more than 25 % above 0.330 us (a slowed machine)$" st.txt &&
	cmp-real --sync --state-ref 0.33us -f md --run r2 --run r3 --run r4 --run r5 r1 >state-md.out &&
	grep -q "^Real times: the median of 3 runs; median run r5 (run 5)\.$" state-md.out &&
	grep -q "^- state: runs set aside: 3 (0.700/0.650 us), 4 " state-md.out
'

test_expect_success 'one end slowed is enough: run 3 slowed at MPI_Finalize only is set aside' '
	rm -rf r3 && mk r3 40 0.300 0.700 &&
	cmp-real --sync --state-ref 0.33us -f tsv --run r2 --run r3 --run r4 --run r5 r1 >one.tsv &&
	grep -qx "# state: ref_us=0.330 slowed_pct=25 set_aside=3,4 used=3" one.tsv &&
	# at 24 % above at both ends it is kept
	rm -rf r3 && mk r3 40 0.409 0.409 &&
	cmp-real --sync --state-ref 0.33us -f tsv --run r2 --run r3 --run r4 --run r5 r1 >one.tsv &&
	grep -qx "# state: ref_us=0.330 slowed_pct=25 set_aside=4 used=4" one.tsv &&
	grep -q "^all	25000000000	10000000000	40000000000	120.000$" one.tsv
'

test_expect_success 'every run slowed: all are used, and the report says so' '
	cmp-real --sync --state-ref 0.1us -f tsv --run r2 --run r3 --run r4 --run r5 r1 >every.tsv &&
	grep -qx "# state: ref_us=0.100 slowed_pct=25 set_aside=- used=5 all_slowed=yes" every.tsv &&
	grep -q "^all	30000000000	" every.tsv &&
	cmp-real --sync --state-ref 0.1us --run r2 r1 >every.txt &&
	grep -q "^state: every run was on a slowed machine (a clock round trip at MPI_Init or MPI_Finalize more than 25 % above 0.100 us): all 2 used$" every.txt
'

test_expect_success 'a run without clock round trips is never set aside' '
	mkdir -p r6 && for r in 0 1; do grep -v clockrtt r4/rank-$r.trace >r6/rank-$r.trace || return 1; done &&
	cmp-real --sync --state-ref 0.33us -f tsv --run r6 r1 >six.tsv &&
	grep -qx "# state: ref_us=0.330 slowed_pct=25 set_aside=- used=2" six.tsv
'

test_expect_success 'a bad --state-ref is a usage error' '
	expect_fail 2 cmp-real --state-ref 0 --run r2 r1 &&
	grep -q "invalid --state-ref .0. (expected a positive time, e.g. 0.33us)" err &&
	expect_fail 2 cmp-real --state-ref fast --run r2 r1 &&
	grep -q "invalid --state-ref .fast." err
'

test_done
