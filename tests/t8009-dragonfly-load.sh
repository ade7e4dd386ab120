#!/bin/sh
# pipelines/dragonfly-load.sh on dragonfly:4,2,2 (72 hosts, 9 groups), reduced
# to a second: the table's layout, runs that repeat, and the orderings of
# docs/ib-model.md section 11 that hold by construction of the traffic:
# at light load every routing delivers what is offered and minimal routing has
# the lowest latency under uniform traffic; under the adversarial pattern
# (group G to group G+1) minimal routing puts the 8 hosts of a group on one
# global link and accepts at most 1/8 of the offered load, where Valiant and
# UGAL spread it and deliver with far lower latency.
. "$(dirname "$0")/lib.sh"

SQ=$(printf "\047")
sweep() { BIN="$IR_BIN" MSGS=100 LOADS="0.05 0.5" "$TOP/pipelines/dragonfly-load.sh" "$@"; }
col() { awk -F'\t' -v p="$1" -v r="$2" -v l="$3" -v c="$4" '$1 == p && $2 == r && $3 == l { print $c }' df.tsv; }

test_expect_success 'the sweep: a header and a line per pattern, load and routing; the same twice' '
	sweep -o df.tsv && sweep >df2.tsv && test_cmp df.tsv df2.tsv &&
	head -n 1 df.tsv | grep -qx "pattern	routing	offered	accepted	mean_ns	p99_ns	nonminimal" &&
	test "$(sed 1d df.tsv | wc -l)" = 12
'
test_expect_success 'light load: accepted = offered (within 5 %); uniform: minimal fastest, valiant slowest' '
	for p in uniform adversarial; do
		for r in minimal valiant ugal; do
			awk -v a="$(col $p $r 0.05 4)" "BEGIN { exit !(a >= 0.0475 && a <= 0.0525) }" || return 1
		done
	done &&
	test "$(col uniform minimal 0.05 5)" -lt "$(col uniform valiant 0.05 5)" &&
	test "$(col uniform ugal 0.05 5)" -lt "$(col uniform valiant 0.05 5)" &&
	test "$(col uniform minimal 0.05 7)" = 0
'
test_expect_success 'adversarial at 0.5: minimal saturates at 1/8, valiant and ugal deliver more, sooner' '
	awk -v a="$(col adversarial minimal 0.50 4)" "BEGIN { exit !(a <= 0.126) }" &&
	for r in valiant ugal; do
		awk -v a="$(col adversarial $r 0.50 4)" "BEGIN { exit !(a > 0.25) }" &&
		test "$(col adversarial $r 0.50 5)" -lt "$(col adversarial minimal 0.50 5)" || return 1
	done
'
test_expect_success 'a topology that is not a dragonfly is refused' '
	TOPO=torus:4x4 expect_fail 2 "$TOP/pipelines/dragonfly-load.sh" &&
	expect_err "dragonfly-load: TOPO must be a dragonfly:a,p,h[,g] generator, not ${SQ}torus:4x4${SQ}"
'
if command -v gnuplot >/dev/null 2>&1; then
test_expect_success 'PLOT=: the chart as PNG and SVG (pipelines/plot/dragonfly-load.gp)' '
	for x in png svg; do
		PATTERNS=uniform PLOT=df.$x sweep >/dev/null 2>err && ! test -s err && test -s df.$x || return 1
	done &&
	test "$(head -c 4 df.png | od -An -c | tr -d " ")" = "211PNG" && grep -q "<svg" df.svg
'
else
test_skip 'PLOT=: the chart' 'gnuplot not installed'
fi
test_done
