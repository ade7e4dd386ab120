#!/bin/sh
# calib from a TSV of sizes and one-way times: exact recovery of o and O per
# protocol (data made with the LogGOPS formula), the breakpoint search, -S,
# --model loggp, the parameter file (golden), the round trip through ibsim,
# and the plot.
. "$(dirname "$0")/lib.sh"

# one-way time in ps on the loggops network with the defaults L=2500 G=6:
# 2o + L + (s-1)*max(G,O); eager o=250ns O=100ps up to 4096 bytes, then
# rendezvous o=2us O=150ps.
gen_tsv() {
	awk -v sim="${1:-}" 'BEGIN {
		print "# synthetic ping-pong"
		if (sim) print "size_bytes\treal_us\tsim_us"; else print "size_bytes real_us"
		for (s = 0; s <= 1048576; s = s ? s * 2 : 1) {
			s1 = s ? s - 1 : 0
			if (s <= 4096) { o = 250000; O = 100 } else { o = 2000000; O = 150 }
			ow = 2 * o + 2500 + s1 * O
			net = 2500 + s1 * 6
			for (r = 0; r < 3; r++)
				if (sim) printf "%d\t%.6f\t%.6f\n", s, ow / 1e6, net / 1e6
				else printf "%d %.6f\n", s, ow / 1e6
		}
	}'
}

test_expect_success 'exact data: o, O, S, o_rndv, O_rndv recovered' '
	gen_tsv >pp.tsv &&
	calib pp.tsv >cluster.params 2>table &&
	grep -qx "o = 250ns *# CPU overhead per message, eager (fit: 0.25 us)" cluster.params &&
	grep -q "^O = 100ps " cluster.params &&
	grep -q "^S = 4096 " cluster.params &&
	grep -q "^o_rndv = 2us " cluster.params &&
	grep -q "^O_rndv = 150ps " cluster.params &&
	grep -q "^# eager (size <= 4096): 14 sizes, R-squared 1.000000" cluster.params &&
	grep -q "^# rendezvous (size > 4096): 8 sizes, R-squared 1.000000" cluster.params &&
	grep -q "^# S: breakpoint with the smallest sum of squared relative residuals" cluster.params
'

test_expect_success 'parameter file matches the golden file' '
	gen_tsv >pp.tsv &&
	calib -q pp.tsv >cluster.params &&
	test_golden cluster.params cluster.params
'

test_expect_success 'every point has its residual in the comments' '
	gen_tsv >pp.tsv &&
	calib -q pp.tsv >cluster.params &&
	test "$(grep -c "^#   [0-9]* 3 " cluster.params)" = 22 &&
	grep -qx "#   1048576 3 161.2887 161.2887 +0.0000" cluster.params
'

test_expect_success 'the table on standard error' '
	gen_tsv >pp.tsv &&
	calib pp.tsv 2>table >/dev/null &&
	grep -q "^calib:   size_bytes   reps      real_us   network_us     model_us    resid_%  proto     first_us$" table &&
	grep -q "^calib:         4096      3        0.912        0.027        0.912      +0.00  eager            -$" table &&
	grep -q "^calib:         8192      3        5.231        0.052        5.231      +0.00   rndv            -$" table &&
	grep -q "^calib: eager (size <= 4096): o = 250ns, O = 100ps per byte; R-squared 1.000000 over 14 sizes$" table &&
	test "$(wc -l <table)" = 25
'

test_expect_success '-q: nothing on standard error' '
	gen_tsv >pp.tsv &&
	calib -q pp.tsv >/dev/null 2>err &&
	test ! -s err
'

test_expect_success 'sim_us column: network times taken from the input' '
	gen_tsv sim >pp.tsv &&
	calib -q pp.tsv >a.params &&
	grep -q "network times from its sim_us column" a.params &&
	grep -q "^o = 250ns " a.params && grep -q "^O_rndv = 150ps " a.params
'

test_expect_success 'standard input, -o FILE' '
	gen_tsv | calib -q -o out.params - &&
	grep -q "^S = 4096 " out.params &&
	grep -q "^# written by calib 1.0 from <stdin>$" out.params
'

test_expect_success '-S given: the split follows it' '
	gen_tsv >pp.tsv &&
	calib -q -S 16K pp.tsv >s.params &&
	grep -q "^S = 16384 " s.params &&
	grep -q "^# S: given on the command line" s.params &&
	grep -q "^# eager (size <= 16384): 16 sizes" s.params
'

test_expect_success '-S above every size: one line, o_rndv = o' '
	gen_tsv >pp.tsv &&
	calib -q -S 2M pp.tsv >s.params &&
	grep -q "^# rendezvous: no sizes above S; o_rndv = o, O_rndv = O" s.params &&
	test "$(sed -n "s/^o = \([^ ]*\) .*/\1/p" s.params)" = "$(sed -n "s/^o_rndv = \([^ ]*\) .*/\1/p" s.params)"
'

test_expect_success 'fewer than 6 sizes: no search, S is the largest size' '
	printf "1 1\n2 1.1\n4 1.3\n8 1.7\n" >few.tsv &&
	calib -q few.tsv >few.params &&
	grep -q "^S = 8 " few.params &&
	grep -q "^# S: the largest size (fewer than 6 sizes: no breakpoint search)" few.params
'

test_expect_success '--model loggp: L, o, G of a pure LogGP network' '
	awk "BEGIN { for (s = 1; s <= 65536; s *= 2) printf \"%d %.6f\n\", s, (2*500000 + 700000 + (s-1)*250)/1e6 }" >lg.tsv &&
	calib -q --model loggp --overhead 500ns lg.tsv >lg.params &&
	grep -q "^L = 700ns " lg.params &&
	grep -q "^o = 500ns " lg.params &&
	grep -q "^G = 250ps " lg.params &&
	grep -q "^O = 0 " lg.params &&
	grep -q "^# o: given on the command line" lg.params
'

test_expect_success '--model loggp from a TSV without --overhead: o is 0 and says why' '
	awk "BEGIN { for (s = 1; s <= 64; s *= 2) printf \"%d %.6f\n\", s, (1000000 + (s-1)*250)/1e6 }" >lg.tsv &&
	calib -q --model loggp lg.tsv >lg.params &&
	grep -q "^o = 0ps " lg.params && grep -q "^L = 1us " lg.params &&
	grep -q "not measurable from a TSV (0; give -o)" lg.params
'

test_expect_success '--unweighted: plain least squares, same answer on exact data' '
	gen_tsv >pp.tsv &&
	calib -q --unweighted pp.tsv >u.params &&
	grep -q "^S = 4096 " u.params && grep -q "^O = 100ps " u.params &&
	grep -q "least squares$" u.params
'

test_expect_success 'network parameters from -p change the fitted overheads' '
	gen_tsv >pp.tsv &&
	printf "L = 102500\nG = 6\n" >net.params &&
	calib -q -p net.params pp.tsv >p.params &&
	grep -qx "L = 102.5ns" p.params &&
	grep -q "^o = 200ns " p.params
'

test_expect_success 'round trip: ibsim with the fitted parameters reproduces the measurements' '
	gen_tsv >pp.tsv &&
	calib -q pp.tsv >cluster.params &&
	for s in 0 1 64 4096 8192 65536 1048576; do
		printf "num_ranks 2\nrank 0 {\na: send %db to 1\nb: recv %db from 1\nb requires a\n}\nrank 1 {\na: recv %db from 0\nb: send %db to 0\nb requires a\n}\n" $s $s $s $s >pp$s.goal &&
		ibsim -q -p cluster.params pp$s.goal >res$s.tsv &&
		end=$(awk -F "\t" "\$1 == 0 { print \$2 }" res$s.tsv) &&
		want=$(awk -v s=$s "\$1 == s { printf \"%.0f\", \$2 * 2e6; exit }" pp.tsv) &&
		echo "$s $end $want" &&
		test "$end" = "$want" || return 1
	done
'

if command -v gnuplot >/dev/null 2>&1; then
	test_expect_success '--plot FILE.png draws a PNG' '
		gen_tsv >pp.tsv &&
		calib -q --plot fit.png pp.tsv >/dev/null &&
		test "$(head -c 8 fit.png | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a
	'
	test_expect_success '--plot FILE.svg draws an SVG with the fitted lines' '
		gen_tsv >pp.tsv &&
		calib -q --plot fit.svg pp.tsv >/dev/null &&
		grep -q "<svg" fit.svg &&
		grep -q "model, rendezvous" fit.svg &&
		grep -q "S = 4096" fit.svg
	'
else
	test_skip '--plot FILE.png draws a PNG' 'gnuplot missing'
	test_skip '--plot FILE.svg draws an SVG' 'gnuplot missing'
fi

test_expect_success '--plot without gnuplot on PATH fails clearly' '
	gen_tsv >pp.tsv &&
	mkdir nobin && ln -s "$(command -v calib)" nobin/calib &&
	expect_fail 1 env PATH="$TRASH/nobin" calib -q --plot fit.png -o out.params pp.tsv &&
	expect_err "calib: cannot draw fit.png: gnuplot is not installed (Debian package gnuplot-nox)"
'

# drift: 20 rows per size; at 1024 bytes the first ten are 2x slower than the last ten
# (a machine that changed during the run), at 64, 256 and 4096 bytes the two halves agree
gen_drift() {
	awk -v slow="$1" 'BEGIN {
		print "size_bytes real_us"
		for (r = 0; r < 20; r++)
			for (s = 64; s <= 4096; s *= 4) {
				t = 1 + s / 1000 + (r % 2) * 0.01
				if (s == 1024 && r < 10) t *= slow
				printf "%d %.4f\n", s, t
			}
	}'
}

test_expect_success 'drift: a size whose halves differ is named, with both medians, and warned of' '
	gen_drift 2 >drift.tsv &&
	calib drift.tsv >drift.params 2>err &&
	grep -q "^# drift: the one-way time moved during the run at 1 of 4 sizes with 10 or more exchanges" drift.params &&
	# the estimate: the mean of 4.048, 4.068, 2.024, 2.034 five times each, winsorized at
	# 1 % (0.2 of the 20 at each end, counted as the values they are): 60.87 / 20
	grep -q "^# drift at 1024 bytes: 4.0580 us, then 2.0290 us (-66.7 % of the estimate 3.0435 us; standard error 0.0066 us)$" drift.params &&
	calib --estimator median drift.tsv 2>/dev/null | grep -q "^# drift at 1024 bytes: 4.0580 us, then 2.0290 us (-66.7 % of the estimate 3.0410 us; standard error 0.0066 us)$" &&
	grep -q "^calib: warning: the one-way time drifted during the run at 1 of 4 sizes" err
'

test_expect_success 'drift: halves that agree are reported as such, and -q warns of nothing' '
	gen_drift 1 >flat.tsv &&
	calib flat.tsv >flat.params 2>err &&
	grep -q "^# drift: none: at each of the 4 sizes with 10 or more exchanges" flat.params &&
	! grep -q warning err &&
	gen_drift 2 >drift.tsv &&
	calib -q drift.tsv >/dev/null 2>err &&
	test ! -s err
'

test_expect_success 'drift: a change within the noise is not a drift (5 % on a size that varies by 20 %)' '
	awk "BEGIN { print \"size_bytes real_us\"; for (r = 0; r < 40; r++) for (s = 64; s <= 4096; s *= 4) {
		t = (1 + s / 1000) * (1 + 0.2 * ((r * 7) % 5) / 4); if (r < 20) t *= 1.05; printf \"%d %.4f\\n\", s, t } }" >noisy.tsv &&
	calib -q noisy.tsv >noisy.params &&
	grep -q "^# drift: none" noisy.params
'

test_expect_success 'drift: fewer than 10 rows per size are not tested (no drift line)' '
	gen_tsv >pp.tsv &&
	calib -q pp.tsv >pp.params &&
	! grep -q "^# drift" pp.params
'

# a size of 200 rows: 180 at its time a, 18 at 2a (a tail of 9 %), 2 at 100a (two preempted
# calls, 1 %). The mean winsorized at 1 % counts the two as 2a: (180 + 36 + 4) / 200 a = 1.1a;
# the plain mean would be 2.08a, the median is a (formats/calibration.md, "Mean or median").
test_expect_success 'the estimate: the mean winsorized at 1 % by default, the median with --estimator median' '
	awk "BEGIN { print \"size_bytes real_us\"; for (r = 0; r < 200; r++) for (s = 64; s <= 4096; s *= 4) {
		a = 1 + s / 1000; printf \"%d %.4f\n\", s, r < 180 ? a : r < 198 ? 2 * a : 100 * a } }" >tail.tsv &&
	calib -q tail.tsv >mean.params &&
	calib -q --estimator median tail.tsv >median.params &&
	calib -q --estimator mean tail.tsv >mean2.params &&
	test_cmp mean.params mean2.params &&
	grep -q "^# estimate: per size the mean of its repetitions, winsorized at 1 % " mean.params &&
	grep -q "^# estimate: per size the median of its repetitions (calib --estimator median; " median.params &&
	# the per-size lines: size, rows, the estimate (us)
	for s in 64 256 1024 4096; do
		a=$(awk -v s=$s "BEGIN { printf \"%.4f\", 1 + s / 1000 }") &&
		w=$(awk -v s=$s "BEGIN { printf \"%.4f\", 1.1 * (1 + s / 1000) }") &&
		grep -q "^#   $s 200 $w " mean.params &&
		grep -q "^#   $s 200 $a " median.params || { grep "^#   $s 200 " mean.params median.params; return 1; }
	done
'

test_expect_success '--estimator: a bad value is a usage error (exit 2)' '
	gen_tsv >pp.tsv &&
	expect_fail 2 calib --estimator mode pp.tsv &&
	grep -q "^calib: --estimator: expected mean or median, got .mode.$" err &&
	expect_fail 2 calib --estimator "" pp.tsv &&
	grep -q "^calib: --estimator: expected mean or median, got ..$" err
'

test_done
