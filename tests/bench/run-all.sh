#!/bin/sh
# tests/bench/run-all.sh: `make bench`. Runs every tests/bench/<tool>.sh and
# prints their figures as one TSV table on stdout:
#   tool  benchmark  metric  value  unit
# Benchmarks measure; they never pass or fail on a timing. Scratch files go
# to $BENCH_TMP (default: a fresh directory under /tmp, removed at the end).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
IR_BIN=${IR_BIN:-$TOP/bin}
PATH="$IR_BIN:$PATH"
BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/ibreplay-bench.XXXXXX)}
export TOP IR_BIN PATH BENCH_TMP
trap 'rm -rf "$BENCH_TMP"' EXIT
printf 'tool\tbenchmark\tmetric\tvalue\tunit\n'
for b in "$TOP"/tests/bench/*.sh; do
	[ "$(basename "$b")" = run-all.sh ] && continue
	if [ -n "${BENCH:-}" ] && [ "$(basename "$b" .sh)" != "$BENCH" ]; then
		continue
	fi
	sh "$b" || echo "$(basename "$b" .sh)	(failed)	exit	$?	status" >&2
done
