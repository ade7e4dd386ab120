#!/bin/sh
# tests/bench/run-all.sh: `make bench` and `make bench-record`. Runs every
# tests/bench/<tool>.sh (history.sh is the history's logic, not a benchmark);
# each prints its figures as TSV lines, one per run of a measurement,
#   tool  benchmark  metric  value  unit
# a measurement repeated BENCH_RUNS times (default 3) printing a line each
# time. Per script, as it finishes, the runs are summarized and compared with
# the benchmark history (tests/bench/history.sh, formats/bench-history.md), and
# one table goes to stdout:
#   tool  benchmark  metric  min  median  max  runs  unit  vs_last  change
# vs_last is the median's change against the last recorded row of this
# machine; change says SLOWER/faster (or WORSE/better) only when the median
# falls outside that row's min..max, CHANGED for a figure that has no better
# direction, same, or new. Benchmarks measure; they never pass or fail on a
# timing. With RECORD=1 (make bench-record) the figures are appended to the
# history at the end. BENCH=<tool> runs one script; BENCH_FULL=1 adds the
# long variants; BENCH_HISTORY names another history file. Scratch files go
# to $BENCH_TMP (default: a fresh directory under /tmp, removed at the end).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
IR_BIN=${IR_BIN:-$TOP/bin}
PATH="$IR_BIN:$PATH"
BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/ibreplay-bench.XXXXXX)}
BENCH_RUNS=${BENCH_RUNS:-3}
HISTORY=${BENCH_HISTORY:-$TOP/tests/bench/history.tsv}
H="$TOP/tests/bench/history.sh"
# the scripts' directory: tests/t8007-bench-history.sh points it at stand-ins
BENCH_DIR=${BENCH_DIR:-$TOP/tests/bench}
export TOP IR_BIN PATH BENCH_TMP BENCH_RUNS
trap 'rm -rf "$BENCH_TMP"' EXIT
# a malformed history stops here, before minutes of measuring
sh "$H" check "$HISTORY" || exit 1
# the tree measured is the one at the start
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(cd "$TOP" && git rev-parse --short HEAD 2>/dev/null) || commit=-
if [ "$commit" != - ] && [ -n "$(cd "$TOP" && git status --porcelain -- . ':(exclude)tests/bench/history.tsv')" ]; then
	commit="$commit+dirty"
fi
set -- $(sh "$H" machine | cut -f1)
echo "bench: machine $1, commit $commit, $BENCH_RUNS runs per measurement, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >&2
: >"$BENCH_TMP/all.summary"
printf 'tool\tbenchmark\tmetric\tmin\tmedian\tmax\truns\tunit\tvs_last\tchange\n'
for b in "$BENCH_DIR"/*.sh; do
	case $(basename "$b") in run-all.sh | history.sh) continue ;; esac
	if [ -n "${BENCH:-}" ] && [ "$(basename "$b" .sh)" != "$BENCH" ]; then
		continue
	fi
	echo "bench: $(basename "$b")" >&2
	sh "$b" >"$BENCH_TMP/raw" || echo "$(basename "$b" .sh)	(failed)	exit	$?	status" >&2
	sh "$H" summarize "$BENCH_TMP/raw" >"$BENCH_TMP/summary"
	sh "$H" compare "$HISTORY" "$BENCH_TMP/summary" || true
	cat "$BENCH_TMP/summary" >>"$BENCH_TMP/all.summary"
	rm -f "$BENCH_TMP/raw" "$BENCH_TMP/summary"
done
if [ "${RECORD:-}" = 1 ]; then
	sh "$H" record -d "$date" -c "$commit" "$HISTORY" "$BENCH_TMP/all.summary"
fi
