#!/bin/sh
# calib on a real ping-pong traced by allprof on this machine (2 ranks over
# shared memory); then the fitted parameters through trace2goal, ibsim and
# cmp-real. Skipped when MPI or the sample programs are missing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/pingpong" ] || skip_all "samples/apps/pingpong not built"

test_expect_success 'trace the ping-pong (2 ranks, sizes 0..256K, 10 repetitions)' '
	traced pp 2 "$SAMPLES/pingpong" -n 10 -m 262144 -q &&
	test -s pp/rank-0.trace && test -s pp/rank-1.trace
'

test_expect_success 'calib fits every size, both protocols and pinning' '
	test -d pp &&
	calib pp >cluster.params 2>table &&
	cat table &&
	grep -q "^# input: ping-pong traces of 2 ranks: 33 sizes, 330 reused exchanges, 33 first exchanges$" cluster.params &&
	for k in o O S o_rndv O_rndv pin_a pin_b; do grep -q "^$k = " cluster.params || return 1; done &&
	test "$(grep -c "^#   " cluster.params)" = 33
'

# The classic fit is one straight line per protocol: on shared memory its residuals are
# 10-25 % by nature, and a noisy run moves them further, so the check compares it with the
# constant that best fits the same medians (their median), which a line must beat by far.
test_expect_success 'the model follows the measurements (median |residual| under half the constant fit)' '
	test -s table &&
	awk "\$1 == \"calib:\" && \$2 ~ /^[0-9]+$/ { print \$4, \$7 }" table >res &&
	test -s res &&
	c=$(awk "{ print \$1 }" res | sort -g | awk "{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }") &&
	med=$(awk "{ r = \$2 + 0; if (r < 0) r = -r; print r }" res | sort -g | awk "{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }") &&
	medc=$(awk -v c="$c" "{ r = (\$1 - c) / \$1 * 100; if (r < 0) r = -r; print r }" res | sort -g | awk "{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }") &&
	echo "median |residual| $med %, of the constant $c us: $medc %" &&
	awk -v m="$med" -v k="$medc" "BEGIN { exit !(m < k / 2) }"
'

if command -v gnuplot >/dev/null 2>&1; then
	test_expect_success '--plot draws the real fit' '
		calib -q --plot fit.png pp >/dev/null &&
		test -s fit.png
	'
else
	test_skip '--plot draws the real fit' 'gnuplot missing'
fi

test_expect_success 'the run replayed with the fitted parameters: cmp-real reports every rank' '
	calib -q pp >cluster.params &&
	trace2goal -p cluster.params pp >pp.goal 2>/dev/null &&
	ibsim -q -p cluster.params pp.goal >sim.tsv 2>/dev/null &&
	cmp-real -f tsv -t 100 pp sim.tsv >cmp.tsv; st=$? &&
	cat cmp.tsv &&
	test $st -le 1 &&
	test "$(grep -c "^[01]	" cmp.tsv)" = 2
'

test_done
