#!/bin/sh
# cmp-real on the seed ltest traces (real rank 0: 13807 us) against
# handwritten ibsim results: the real times, the three formats (golden),
# tolerance and exit status, --exclude-finalize, --sync (also against a
# zero-cost replay of trace2goal --durations --sync), several results files,
# and every error.
. "$(dirname "$0")/lib.sh"

setup() {
	rm -rf lt && mkdir lt && cp "$SEED"/pmpi-trace-rank-0.txt "$SEED"/pmpi-trace-rank-1.txt lt/ &&
	printf "# ibsim 1.0 net=loggops ranks=2\nrank\tend_ps\tcalc_ps\tmsgs_sent\tbytes_sent\n0\t13807000000\t0\t10\t4000000\n1\t14000000000\t0\t10\t4000000\n" >near.tsv &&
	printf "# ibsim 1.0 net=loggops ranks=2\nrank\tend_ps\tcalc_ps\tmsgs_sent\tbytes_sent\n0\t7066114823\t7017000000\t10\t4000000\n1\t7095063515\t7048362957\t10\t4000000\n" >far.tsv
}

test_expect_success 'real time of rank 0 is 13807 us (MPI_Init return to MPI_Finalize call)' '
	setup &&
	cmp-real -f tsv lt near.tsv >out &&
	grep -qx "0	13807000000	13807000000	0.000" out
'

test_expect_success 'rank 1 on the common clock' '
	setup &&
	cmp-real -f tsv lt near.tsv >out &&
	grep -qx "1	13889715255	14000000000	0.794" out
'

test_expect_success 'text format (golden)' '
	setup &&
	cmp-real lt near.tsv >out &&
	test_golden text.out out
'

test_expect_success 'tsv format (golden)' '
	setup &&
	cmp-real --format tsv lt near.tsv >out &&
	test_golden tsv.out out
'

test_expect_success 'md format (golden)' '
	setup &&
	cmp-real --format md lt near.tsv >out &&
	test_golden md.out out
'

test_expect_success 'within the tolerance: exit 0' '
	setup &&
	cmp-real lt near.tsv >out &&
	grep -qx "near.tsv: largest |deviation| 0.79% (rank 1), mean |deviation| 0.40%; 0 of 2 ranks outside 5%" out
'

test_expect_success 'outside the tolerance: exit 1, counted' '
	setup &&
	expect_fail 1 cmp-real lt far.tsv &&
	grep -qx "far.tsv: largest |deviation| 48.92% (rank 1), mean |deviation| 48.87%; 2 of 2 ranks outside 5%" out &&
	grep -qx "     0      13807.000       7066.115    -48.82" out
'

test_expect_success '--tolerance moves the line' '
	setup &&
	expect_fail 1 cmp-real --tolerance 0.5 lt near.tsv &&
	grep -q "1 of 2 ranks outside 0.5%" out &&
	cmp-real -t 50 lt far.tsv >out &&
	cmp-real -t 0.8 lt near.tsv >out
'

test_expect_success 'several results files: one sim/dev pair each, any outside fails' '
	setup &&
	expect_fail 1 cmp-real -f tsv lt near.tsv far.tsv &&
	head -1 out >hdr &&
	printf "rank\treal_ps\tsim_ps\tdev_pct\tsim_ps\tdev_pct\n" >want &&
	test_cmp want hdr &&
	grep -qx "0	13807000000	13807000000	0.000	7066114823	-48.822" out &&
	test "$(grep -c "^# " out)" = 2
'

test_expect_success 'several results files in text: numbered' '
	setup &&
	expect_fail 1 cmp-real lt near.tsv far.tsv &&
	grep -qx "results 1: near.tsv" out && grep -qx "results 2: far.tsv" out &&
	grep -q "sim1_us" out && grep -q "dev2_%" out
'

test_expect_success '--exclude-finalize: both sides stop at the last call before MPI_Finalize' '
	setup &&
	expect_fail 1 cmp-real -f tsv --exclude-finalize lt far.tsv &&
	grep -qx "0	7038000000	297114823	-95.778" out
'

# Rank 1's MPI_Init returns at 1302767374554203 - 289.201736 us on rank 0's clock,
# 51.201736 us before rank 0's (1302767374553965): with --sync rank 0's real time
# grows by that much, rank 1's (the earliest) stays.
test_expect_success '--sync: real times from the earliest MPI_Init return' '
	setup &&
	cmp-real -f tsv --sync lt near.tsv >out &&
	grep -qx "0	13858201736	13807000000	-0.369" out &&
	grep -qx "1	13889715255	14000000000	0.794" out &&
	cmp-real -s -f tsv lt near.tsv >out2 && test_cmp out out2
'

test_expect_success '--sync with --exclude-finalize' '
	setup &&
	cmp-real -f tsv --sync -x lt near.tsv >out &&
	grep -qx "0	7089201736	7038000000	-0.722" out &&
	grep -qx "1	7089365069	7199649814	1.556" out
'

test_expect_success '--sync: a zero-cost replay of trace2goal --durations --sync ends where the run ended' '
	setup &&
	printf "L = 0\no = 0\ng = 0\nG = 0\nO = 0\n" >zero.params &&
	trace2goal -q --durations --sync -p zero.params lt >z.goal &&
	ibsim -q -p zero.params z.goal >z.tsv &&
	cmp-real --sync -t 0 -f tsv lt z.tsv >out &&
	grep -qx "0	13858201736	13858201736	0.000" out &&
	grep -qx "1	13889715255	13889715255	0.000" out &&
	expect_fail 1 cmp-real -t 0.1 lt z.tsv
'

test_expect_success 'results from standard input' '
	setup &&
	cmp-real lt - <near.tsv >out &&
	grep -q "^<stdin>: largest" out
'

test_expect_success 'compressed results are read' '
	setup &&
	gzip -c near.tsv >near.tsv.gz &&
	cmp-real lt near.tsv.gz >out
'

test_expect_success 'rank count mismatch is trouble (exit 2)' '
	setup &&
	printf "rank\tend_ps\n0\t1\n1\t2\n2\t3\n" >three.tsv &&
	expect_fail 2 cmp-real lt three.tsv &&
	expect_err "cmp-real: three.tsv: 3 ranks, but the traces have 2"
'

test_expect_success 'bad results files: exit 2 with the place' '
	setup &&
	printf "# ibsim\nfoo\tbar\n" >a.tsv &&
	expect_fail 2 cmp-real lt a.tsv &&
	expect_err "cmp-real: a.tsv:2: expected the header '"'"'rank<TAB>end_ps<TAB>...'"'"' of ibsim'"'"'s results, found '"'"'foo'"'"'" &&
	printf "rank\tend_ps\n0\t12x\n" >b.tsv &&
	expect_fail 2 cmp-real lt b.tsv &&
	expect_err "cmp-real: b.tsv:2: expected end_ps as whole picoseconds, found '"'"'12x'"'"'" &&
	printf "rank\tend_ps\nx\t12\n" >c.tsv &&
	expect_fail 2 cmp-real lt c.tsv &&
	expect_err "cmp-real: c.tsv:2: expected a rank number, found '"'"'x'"'"'" &&
	printf "rank\tend_ps\n0\t1\n0\t2\n" >d.tsv &&
	expect_fail 2 cmp-real lt d.tsv &&
	expect_err "cmp-real: d.tsv:3: rank 0 appears twice (first at line 2)" &&
	printf "rank\tend_ps\n1\t1\n" >e.tsv &&
	expect_fail 2 cmp-real lt e.tsv &&
	expect_err "cmp-real: e.tsv: rank 0 is missing (ranks up to 1 are listed)" &&
	printf "rank\tend_ps\n0\t1\t5\n" >f.tsv &&
	expect_fail 2 cmp-real lt f.tsv &&
	expect_err "cmp-real: f.tsv:2: expected 2 tab-separated columns as in the header, found 3" &&
	printf "# nothing\n" >g.tsv &&
	expect_fail 2 cmp-real lt g.tsv &&
	expect_err "cmp-real: g.tsv: no results (expected ibsim'"'"'s header '"'"'rank<TAB>end_ps<TAB>...'"'"' and one row per rank)" &&
	printf "rank\tend_ps\n" >h.tsv &&
	expect_fail 2 cmp-real lt h.tsv &&
	expect_err "cmp-real: h.tsv: no rank rows after the header" &&
	printf "rank\tend_ps\n99999999\t1\n" >i.tsv &&
	expect_fail 2 cmp-real lt i.tsv &&
	expect_err "cmp-real: i.tsv:2: rank 99999999 after 0 rows: expected ranks 0..N-1" &&
	expect_fail 2 cmp-real lt missing.tsv &&
	grep -q "^cmp-real: missing.tsv: " err
'

test_expect_success 'bad traces: exit 2 with the place' '
	setup &&
	grep -v "^MPI_Finalize" lt/pmpi-trace-rank-1.txt >x && mv x lt/pmpi-trace-rank-1.txt &&
	expect_fail 2 cmp-real lt near.tsv &&
	expect_err "cmp-real: lt/pmpi-trace-rank-1.txt: trace ends without MPI_Finalize (cut short?)" &&
	setup &&
	grep -v "^MPI_Init" lt/pmpi-trace-rank-1.txt >x && mv x lt/pmpi-trace-rank-1.txt &&
	expect_fail 2 cmp-real lt near.tsv &&
	expect_err "cmp-real: lt/pmpi-trace-rank-1.txt:29: MPI_Finalize before MPI_Init" &&
	printf "MPI_Send:1302767374554038:2:3:1,4,4:1:0:5,0,2:1302767374554039\n" >lt/pmpi-trace-rank-1.txt &&
	expect_fail 2 cmp-real lt near.tsv &&
	expect_err "cmp-real: lt/pmpi-trace-rank-1.txt: no MPI_Init in the trace (expected the call that starts the measured span)" &&
	expect_fail 2 cmp-real nodir near.tsv &&
	grep -q "^cmp-real: nodir" err &&
	rm -rf empty && mkdir empty &&
	expect_fail 2 cmp-real empty near.tsv &&
	expect_err "cmp-real: no trace files found in empty"
'

test_expect_success 'MPI_Finalize before MPI_Init returns' '
	setup &&
	sed "s/^MPI_Finalize:[0-9]*:/MPI_Finalize:1302767374553000:/" lt/pmpi-trace-rank-0.txt >x && mv x lt/pmpi-trace-rank-0.txt &&
	expect_fail 2 cmp-real lt near.tsv &&
	expect_err "cmp-real: lt/pmpi-trace-rank-0.txt:30: MPI_Finalize is called 965.000 us before MPI_Init returns (clock correction?)"
'

# clk DIR OI RI OF RF: two ranks, 1000 us each from MPI_Init to MPI_Finalize on their own
# clocks; rank 1 has Init and Finalize offsets OI and OF with round trips RI and RF
clk() {
	rm -rf "$1" && mkdir "$1" &&
	printf "MPI_Init:-:1:2:1000\nMPI_Finalize:2000:-\n" >"$1/t-0.txt" &&
	printf "# Init clockdiff: %s\n# Init clockrtt: %s\nMPI_Init:-:1:2:1000\n# Finalize clockdiff: %s\n# Finalize clockrtt: %s\nMPI_Finalize:2000:-\n" \
		"$2" "$3" "$4" "$5" >"$1/t-1.txt" &&
	printf "rank\tend_ps\n0\t0\n1\t0\n" >zero2.tsv
}

test_expect_success 'offsets that imply a clock drift above 1,000 ppm: the one of the shorter round trip' '
	clk c1 0.000 50.000 -5000.000 10.000 &&
	cmp-real --sync -f tsv -t 1000 c1 zero2.tsv >out &&
	grep -q "^0	6000000000	" out && grep -q "^1	1000000000	" out &&
	cmp-real -f tsv -t 1000 c1 zero2.tsv >out &&
	grep -q "^1	1000000000	" out &&
	clk c2 0.000 10.000 -5000.000 50.000 &&
	cmp-real --sync -f tsv -t 1000 c2 zero2.tsv >out &&
	grep -q "^0	1000000000	" out && grep -q "^1	1000000000	" out &&
	clk c3 0.000 10.000 -5000.000 10.000 &&
	cmp-real --sync -f tsv -t 1000 c3 zero2.tsv >out &&
	grep -q "^1	1000000000	" out &&
	trace_ends c1/t-0.txt c1/t-1.txt >ends && printf "0 6000000\n1 1000000\n" >want && test_cmp want ends
'

test_expect_success 'offsets that imply a clock drift of 1,000 ppm or less: interpolated' '
	clk c4 0.000 50.000 0.500 10.000 &&
	cmp-real -f tsv -t 1000 c4 zero2.tsv >out &&
	grep -q "^1	1000500000	" out &&
	clk c5 0.000 50.000 1.500 10.000 &&
	cmp-real -f tsv -t 1000 c5 zero2.tsv >out &&
	grep -q "^1	1000000000	" out
'

test_expect_success 'a zero real time: deviation inf, outside' '
	rm -rf z && mkdir z &&
	printf "MPI_Init:-:1:2:1000\nMPI_Finalize:1000:-\n" >z/t-0.txt &&
	printf "rank\tend_ps\n0\t5\n" >z.tsv &&
	expect_fail 1 cmp-real -f tsv z z.tsv &&
	grep -qx "0	0	5	inf" out &&
	printf "rank\tend_ps\n0\t0\n" >z0.tsv &&
	cmp-real -f tsv z z0.tsv >out && grep -qx "0	0	0	0.000" out
'

test_expect_success 'usage errors: exit 2' '
	setup &&
	expect_fail 2 cmp-real &&
	expect_err "cmp-real: missing TRACES and RESULTS" &&
	expect_fail 2 cmp-real lt &&
	expect_err "cmp-real: missing RESULTS (ibsim'"'"'s output for the traces)" &&
	expect_fail 2 cmp-real --format csv lt near.tsv &&
	expect_err "cmp-real: unknown format '"'"'csv'"'"' (expected text, tsv or md)" &&
	expect_fail 2 cmp-real --tolerance -1 lt near.tsv &&
	expect_err "cmp-real: invalid --tolerance '"'"'-1'"'"' (expected a non-negative percentage)" &&
	expect_fail 2 cmp-real --tolerance 5x lt near.tsv &&
	expect_fail 2 cmp-real --bogus lt near.tsv &&
	expect_err "cmp-real: unknown option '"'"'--bogus'"'"'" &&
	expect_fail 2 cmp-real lt - - &&
	expect_err "cmp-real: standard input ('"'"'-'"'"') can be read only once" &&
	grep -qx "Try '"'"'cmp-real --help'"'"' for more information." err
'

test_expect_success '--help and --version' '
	cmp-real --help >out &&
	grep -q "^Usage: cmp-real \[--tolerance PCT\] \[--exclude-finalize\] \[--sync\] \[--format text|tsv|md\] \[PHASE\] TRACES RESULTS...$" out &&
	cmp-real --version >out && grep -q "^cmp-real (ibreplay) " out
'

test_expect_success 'a closed standard output is trouble, not a crash' '
	setup &&
	if [ -w /dev/full ]; then
		cmp-real lt near.tsv >/dev/full 2>err
		test $? = 2 && grep -q "^cmp-real: " err
	fi
'

test_done
