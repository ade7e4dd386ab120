#!/bin/sh
# tests/bench/goalgen.sh: goalgen's output speed (make bench; never pass/fail).
# Prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit lines. "speed" is
# GOAL text generated per second with the output going to /dev/null (the
# generator alone); "file" the same into a file in $BENCH_TMP (includes the
# disk); "zstd" with -z, counted in uncompressed text. Each pattern runs
# BENCH_RUNS times (default 3), a line per run (the driver makes min/median/max).
set -eu
RUNS=${BENCH_RUNS:-3}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { t = b - a; printf "%.3f", (t > 0 ? t : 1e-9) }'; }
line() { printf 'goalgen\t%s\t%s\t%s\t%s\n' "$@"; }
mbps() { awk -v s="$1" -v t="$2" 'BEGIN { printf "%.0f", s / 1e6 / t }'; }

bench() {
	name=$1
	shift
	t0=$(now); goalgen "$@" >"$BENCH_TMP/goalgen.out"; t1=$(now)
	bytes=$(wc -c <"$BENCH_TMP/goalgen.out")
	rm -f "$BENCH_TMP/goalgen.out"
	tf=$(secs "$t0" "$t1")
	t0=$(now); goalgen "$@" >/dev/null; t1=$(now)
	tn=$(secs "$t0" "$t1")
	t0=$(now); goalgen -z "$@" >"$BENCH_TMP/goalgen.zst"; t1=$(now)
	tz=$(secs "$t0" "$t1")
	zbytes=$(wc -c <"$BENCH_TMP/goalgen.zst")
	rm -f "$BENCH_TMP/goalgen.zst"
	line "$name" output "$(awk -v s="$bytes" 'BEGIN { printf "%.1f", s / 1e6 }')" MB
	line "$name" wall "$tn" s
	line "$name" speed "$(mbps "$bytes" "$tn")" MB/s
	line "$name" file-speed "$(mbps "$bytes" "$tf")" MB/s
	line "$name" zstd-speed "$(mbps "$bytes" "$tz")" MB/s
	line "$name" zstd-ratio "$(awk -v a="$bytes" -v b="$zbytes" 'BEGIN { printf "%.1f", a / b }')" x
}
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	bench dissemination-1M dissemination 1048576
	bench ring-256x80000 ring 256 --steps 80000
	bench alltoall-2048 alltoall 2048 --calc 1us
	bench random-4096x1024 random 4096 --ops 1024
done
