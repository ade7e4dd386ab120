#!/bin/sh
# trace2goal throughput: MB/s of trace text converted on one core, on a synthetic
# liballprof ping-pong of 2 ranks (Isend/Irecv/Waitall and Allreduce mixed in),
# about 2 x 40 MB. Prints TSV: tool benchmark metric value unit.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IR_BIN:-$TOP/bin}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-t2g.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
N=${T2G_BENCH_ITERS:-100000}
for r in 0 1; do
	awk -v r=$r -v n=$N 'BEGIN {
		p = 1 - r; t = 1302767374554000; c = "6575584," r ",2"
		print "# htor'"'"'s PMPI Tracer 0.9 Output File"
		print "# clockdiff: 0.000000 s (relative to rank 0)"
		printf "MPI_Init:-:140735615211452:140735615211440:%.0f\n", t
		for (i = 0; i < n; i++) {
			t += 3; printf "MPI_Isend:%.0f:140735615211488:1000:1,4,4:%d:5:%s:140735615212000:%.0f\n", t, p, c, t + 1
			t += 3; printf "MPI_Irecv:%.0f:140735615311488:1000:1,4,4:%d:5:%s:140735615212008:%.0f\n", t, p, c, t + 1
			t += 3; printf "MPI_Waitall:%.0f:2:140735615212000:0:%.0f\n", t, t + 2
			t += 3; printf "MPI_Send:%.0f:140735615211488:100000:1,4,4:%d:0:%s:%.0f\n", t, p, c, t + 2
			t += 3; printf "MPI_Recv:%.0f:140735615211488:100000:1,4,4:%d:0:%s:140735615211456:%.0f\n", t, p, c, t + 2
			if (i % 10 == 0) { t += 3; printf "MPI_Allreduce:%.0f:1:2:2:10,8,8:3:%s:%.0f\n", t, c, t + 4 }
		}
		print "# Finalize clockdiff: 0.000000"
		printf "MPI_Finalize:%.0f:-\n", t + 10
	}' >"$T/pmpi-trace-rank-$r.txt"
done
bytes=$(cat "$T"/*.txt | wc -c)
best=
for k in 1 2 3; do
	s=$(date +%s.%N)
	"$BIN/trace2goal" -q "$T" >/dev/null || exit 1
	e=$(date +%s.%N)
	d=$(echo "$e - $s" | bc -l)
	if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
done
printf 'trace2goal\tpingpong-2x%s\tthroughput\t%.1f\tMB/s\n' "$N" "$(echo "$bytes / $best / 1000000" | bc -l)"
printf 'trace2goal\tpingpong-2x%s\ttrace_bytes\t%s\tB\n' "$N" "$bytes"
printf 'trace2goal\tpingpong-2x%s\twall\t%.3f\ts\n' "$N" "$best"
# CPU time (user + system), less sensitive to other load on the machine than the wall clock
c=$( { /usr/bin/time -f "%U %S" "$BIN/trace2goal" -q "$T" >/dev/null; } 2>&1 | tail -1)
printf 'trace2goal\tpingpong-2x%s\tcpu_throughput\t%.1f\tMB/s\n' "$N" "$(echo "$bytes / ($(echo "$c" | tr ' ' '+')) / 1000000" | bc -l)"
# peak memory (KiB) stays flat with trace length
m=$( { /usr/bin/time -f %M "$BIN/trace2goal" -q "$T" >/dev/null; } 2>&1 | tail -1)
printf 'trace2goal\tpingpong-2x%s\tmax_rss\t%s\tKiB\n' "$N" "$m"
# --durations --sync: all ranks read together, text spilled per rank and assembled
s=$(date +%s.%N); "$BIN/trace2goal" -q --durations --sync "$T" >/dev/null || exit 1; e=$(date +%s.%N)
printf 'trace2goal\tpingpong-2x%s-sync\tthroughput\t%.1f\tMB/s\n' "$N" "$(echo "$bytes / ($e - $s) / 1000000" | bc -l)"
c=$( { /usr/bin/time -f "%U %S" "$BIN/trace2goal" -q --durations --sync "$T" >/dev/null; } 2>&1 | tail -1)
printf 'trace2goal\tpingpong-2x%s-sync\tcpu_throughput\t%.1f\tMB/s\n' "$N" "$(echo "$bytes / ($(echo "$c" | tr ' ' '+')) / 1000000" | bc -l)"
m=$( { /usr/bin/time -f %M "$BIN/trace2goal" -q --durations --sync "$T" >/dev/null; } 2>&1 | tail -1)
printf 'trace2goal\tpingpong-2x%s-sync\tmax_rss\t%s\tKiB\n' "$N" "$m"
# --pin on distinct buffers: every call registers a new one (the interval set grows to ~1M)
for r in 0 1; do
	awk -v r=$r -v n=$((N * 5)) 'BEGIN {
		p = 1 - r; t = 1302767374554000; c = "6575584," r ",2"
		print "# htor'"'"'s PMPI Tracer 0.9 Output File"
		printf "MPI_Init:-:1:2:%.0f\n", t
		for (i = 0; i < n; i++) {
			t += 3; printf "MPI_Send:%.0f:%.0f:10:1,4,4:%d:0:%s:%.0f\n", t, 1000000 + ((i * 7919) % n) * 64, p, c, t + 1
			t += 3; printf "MPI_Recv:%.0f:%.0f:10:1,4,4:%d:0:%s:0:%.0f\n", t, 900000000 + i * 64, p, c, t + 1
		}
		printf "MPI_Finalize:%.0f:-\n", t + 10
	}' >"$T/pin-$r.txt"
done
mkdir "$T/pin" && mv "$T"/pin-*.txt "$T/pin/"
pbytes=$(cat "$T"/pin/*.txt | wc -c)
s=$(date +%s.%N); "$BIN/trace2goal" -q --pin 166us,3ns "$T/pin" >/dev/null || exit 1; e=$(date +%s.%N)
printf 'trace2goal\tpin-distinct-2x%s\tthroughput\t%.1f\tMB/s\n' "$((N * 10))" "$(echo "$pbytes / ($e - $s) / 1000000" | bc -l)"
gzip -1 -c "$T/pmpi-trace-rank-0.txt" >"$T/g-0.txt.gz" && gzip -1 -c "$T/pmpi-trace-rank-1.txt" >"$T/g-1.txt.gz"
rm "$T"/pmpi-trace-rank-*.txt
s=$(date +%s.%N); "$BIN/trace2goal" -q "$T" >/dev/null; e=$(date +%s.%N)
printf 'trace2goal\tpingpong-2x%s-gzip\tthroughput\t%.1f\tMB/s\n' "$N" "$(echo "$bytes / ($e - $s) / 1000000" | bc -l)"
