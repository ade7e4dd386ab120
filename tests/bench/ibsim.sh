#!/bin/sh
# tests/bench/ibsim.sh: ibsim's speed and memory (make bench; never pass/fail).
# Prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit lines:
#   events        ops + messages simulated
#   sim-wall      seconds simulating (wall_s of ibsim --stats: loading excluded)
#   ev-per-s      events per second of simulation
#   total-wall    seconds of the whole process, loading the binary included
#   peak-rss      peak resident memory of the whole process (mapped schedule
#                 pages included), from /usr/bin/time -v when present
#   peak-per-op   peak-rss over the schedule's ops (events less the messages,
#                 the sum of the results' msgs_sent column), in bytes
#   peak-per-rank peak-rss over the ranks, in bytes
# Schedules come from goalgen, compiled to GOAL binary by goalc (ibsim maps
# it). BENCH_HUGE=1 adds the 16,777,216-rank dissemination (about 21 GB of
# binary schedule in $BENCH_TMP and several minutes). Each schedule is
# simulated BENCH_RUNS times (default 3), a line per run (the driver makes
# min/median/max).
set -eu
RUNS=${BENCH_RUNS:-3}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
line() { printf 'ibsim\t%s\t%s\t%s\t%s\n' "$@"; }
field() { sed -n 1p "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
statval() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$2"; }

bench() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		bench1 "$@"
	done
}
bench1() {
	name=$1
	sched=$2
	shift 2
	if [ -x /usr/bin/time ]; then
		t0=$(now)
		/usr/bin/time -v ibsim -q --stats "$BENCH_TMP/stats" "$@" "$sched" >"$BENCH_TMP/res" 2>"$BENCH_TMP/time"
		t1=$(now)
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$BENCH_TMP/time")
	else
		t0=$(now)
		ibsim -q --stats "$BENCH_TMP/stats" "$@" "$sched" >"$BENCH_TMP/res"
		t1=$(now)
		rss=""
	fi
	line "$name" events "$(field events "$BENCH_TMP/res")" events
	line "$name" sim-wall "$(statval wall_s "$BENCH_TMP/stats")" s
	line "$name" ev-per-s "$(awk -v v="$(statval ev_per_s "$BENCH_TMP/stats")" 'BEGIN { printf "%.1f", v / 1e6 }')" M/s
	line "$name" total-wall "$(secs "$t0" "$t1")" s
	if [ -n "$rss" ]; then
		line "$name" peak-rss "$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')" MiB
		awk -F'\t' -v k="$rss" -v ev="$(field events "$BENCH_TMP/res")" -v nr="$(field ranks "$BENCH_TMP/res")" -v b="$name" '
			NR > 2 { m += $4 }
			END {
				if (ev - m > 0) printf "ibsim\t%s\tpeak-per-op\t%.1f\tbytes\n", b, k * 1024 / (ev - m)
				if (nr > 0) printf "ibsim\t%s\tpeak-per-rank\t%.0f\tbytes\n", b, k * 1024 / nr
			}' "$BENCH_TMP/res"
	fi
	line "$name" end "$(sed -n 3p "$BENCH_TMP/res" | cut -f2)" ps
	rm -f "$BENCH_TMP/res" "$BENCH_TMP/stats" "$BENCH_TMP/time"
}

goalgen ring 256 --steps 80000 | goalc -q -o "$BENCH_TMP/ring.goalb"
bench ring-256x80000 "$BENCH_TMP/ring.goalb"
rm -f "$BENCH_TMP/ring.goalb"

goalgen dissemination 1048576 --size 180 | goalc -q -o "$BENCH_TMP/diss.goalb"
bench dissemination-1M "$BENCH_TMP/diss.goalb"
rm -f "$BENCH_TMP/diss.goalb"

goalgen alltoall 1024 --size 1K | goalc -q -o "$BENCH_TMP/a2a.goalb"
bench alltoall-1024 "$BENCH_TMP/a2a.goalb"
rm -f "$BENCH_TMP/a2a.goalb"

if [ "${BENCH_HUGE:-}" = 1 ]; then
	goalgen dissemination 16777216 --size 180 | goalc -q -o "$BENCH_TMP/diss16.goalb"
	bench dissemination-16M "$BENCH_TMP/diss16.goalb"
	rm -f "$BENCH_TMP/diss16.goalb"
fi
