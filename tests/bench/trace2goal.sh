#!/bin/sh
# trace2goal throughput: MB/s of trace text converted on one core, on a synthetic
# liballprof ping-pong of 2 ranks (Isend/Irecv/Waitall and Allreduce mixed in),
# about 2 x 40 MB. Prints TSV: tool benchmark metric value unit. Every
# conversion runs BENCH_RUNS times (default 3) under /usr/bin/time, a line per
# run for each figure (the driver makes min/median/max): wall throughput, CPU
# throughput (user + system, less sensitive to other load than the wall
# clock) and peak memory (it stays flat with trace length).
set -u
RUNS=${BENCH_RUNS:-3}
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
# conv NAME BYTES [WHAT] -- ARGS...: RUNS conversions; WHAT lists the figures
# (wall cpu rss, default all of them)
conv() {
	name=$1 nb=$2
	shift 2
	what="wall cpu rss"
	[ "$1" = -- ] || { what=$1; shift; }
	shift
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		s=$(date +%s.%N)
		/usr/bin/time -f "%U %S %M" -o "$T/time" "$BIN/trace2goal" -q "$@" >/dev/null || exit 1
		e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" -v b="$nb" -v n="$name" -v what="$what" '{
			if (what ~ /wall/) {
				printf "trace2goal\t%s\tthroughput\t%.1f\tMB/s\n", n, b / (e - s) / 1e6
				if (what ~ /walls/) printf "trace2goal\t%s\twall\t%.3f\ts\n", n, e - s
			}
			if (what ~ /cpu/ && $1 + $2 > 0) printf "trace2goal\t%s\tcpu_throughput\t%.1f\tMB/s\n", n, b / ($1 + $2) / 1e6
			if (what ~ /rss/) printf "trace2goal\t%s\tmax_rss\t%s\tKiB\n", n, $3
		}' "$T/time"
	done
}
printf 'trace2goal\tpingpong-2x%s\ttrace_bytes\t%s\tB\n' "$N" "$bytes"
conv "pingpong-2x$N" "$bytes" "walls cpu rss" -- "$T"
# --durations --sync: all ranks read together, text spilled per rank and assembled
conv "pingpong-2x$N-sync" "$bytes" -- --durations --sync "$T"
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
conv "pin-distinct-2x$((N * 10))" "$pbytes" wall -- --pin 166us,3ns "$T/pin"
gzip -1 -c "$T/pmpi-trace-rank-0.txt" >"$T/g-0.txt.gz" && gzip -1 -c "$T/pmpi-trace-rank-1.txt" >"$T/g-1.txt.gz"
rm "$T"/pmpi-trace-rank-*.txt
conv "pingpong-2x$N-gzip" "$bytes" wall -- "$T"
# the poll model on allprof traces: every iteration a loop of Tests that ends in its
# receive's completion (a collapsed line of 20 polls, then the successful Test), so that
# --poll-tests auto (the default) reads each rank's trace once more before its first such
# loop (docs/trace2goal.md 2.1); --poll-tests work reads it once
M=$((N / 2))
for r in 0 1; do
	awk -v r=$r -v n=$M 'BEGIN {
		p = 1 - r; t = 1000000
		print "# allprof 1.0 trace format 1"
		printf "# rank: %d of 2\n", r
		print "# collapse gap: 1000 ns"
		print "# comm 0 0,1"
		printf "# comm 1 %d\n", r
		printf "MPI_Init:%.3f:1:2:%.3f\n", t - 10, t
		for (i = 0; i < n; i++) {
			q = 2 * i + 1
			t += 1; printf "MPI_Irecv:%.3f:4096:8:1,1,1:%d:5:0,%d,2:r%d:%.3f\n", t, p, r, q, t + 0.1
			t += 1; printf "MPI_Isend:%.3f:8192:8:1,1,1:%d:5:0,%d,2:r%d:%.3f\n", t, p, r, q + 1, t + 0.5
			t += 1; printf "MPI_Test:%.3f:r%d:0:-:20:%.3f\n", t, q, t + 2
			t += 2.5; printf "MPI_Test:%.3f:r%d:1:%d,5,8:1:%.3f\n", t, q, p, t + 0.2
			t += 1; printf "MPI_Wait:%.3f:r%d:-2,-1,0:%.3f\n", t, q + 1, t + 0.2
		}
		printf "MPI_Finalize:%.3f:%.3f\n", t + 1, t + 2
		printf "# end %d 0\n", 5 * n + 2
	}' >"$T/poll-$r.txt"
done
mkdir "$T/poll" && mv "$T/poll-0.txt" "$T/poll/rank-0.trace" && mv "$T/poll-1.txt" "$T/poll/rank-1.trace"
qbytes=$(cat "$T"/poll/*.trace | wc -c)
conv "polls-2x$M" "$qbytes" "wall cpu" -- --poll-from 100ns --poll-to 500ns "$T/poll"
conv "polls-2x$M-work" "$qbytes" "wall cpu" -- --poll-tests work --poll-from 100ns --poll-to 500ns "$T/poll"
