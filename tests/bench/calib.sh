#!/bin/sh
# tests/bench/calib.sh: calib's speed and the calibration of this machine
# (make bench; never pass/fail). Prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit:
#   tsv-100k      calib on a TSV of 100,000 rows (40 sizes x 2,500 repetitions),
#                 network times simulated: wall seconds, rows per second
#   pingpong      pipelines/calibrate.mk on this machine (2 ranks, REPS=20, up to
#                 1 MiB): the fitted o, O, o_rndv, O_rndv and S (metrics fit-o,
#                 ...: parameters, not costs; formats/bench-history.md §4)
# Both run CALIB_RUNS times (default BENCH_RUNS, 3), a line per run; the driver
# makes min/median/max (the spread of the fit says how much a calibration on a
# loaded machine moves).
# The ping-pong part needs mpirun and the sample programs ($IR_BUILD/samples).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
IR_BIN=${IR_BIN:-$TOP/bin}
IR_BUILD=${IR_BUILD:-$TOP/build}
BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/bench-calib.XXXXXX)}
RUNS=${CALIB_RUNS:-${BENCH_RUNS:-3}}
line() { printf 'calib\t%s\t%s\t%s\t%s\n' "$@"; }
now() { date +%s.%N; }

# 1. speed on a large TSV: one-way time 0.2us + 0.1ns/B eager, 2us + 0.15ns/B above 64K, noise +-2%
awk 'BEGIN { srand(7); for (k = 0; k < 40; k++) { s = int(2 ^ (k / 2)); for (r = 0; r < 2500; r++) {
	t = s <= 65536 ? 0.2 + s * 0.0001 : 2 + s * 0.00015; printf "%d %.6f\n", s, t * (0.98 + 0.04 * rand()) } } }' \
	>"$BENCH_TMP/big.tsv"
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now)
	"$IR_BIN/calib" -q -o "$BENCH_TMP/big.params" "$BENCH_TMP/big.tsv"
	t1=$(now)
	line tsv-100k wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" s
	line tsv-100k rows-per-s "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", 100000 / (b - a) }')" rows/s
done

# 2. the calibration of this machine, repeated
command -v mpirun >/dev/null 2>&1 && [ -x "$IR_BUILD/samples/pingpong" ] || exit 0
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	rm -rf "$BENCH_TMP/cal"
	make -s -C "$TOP" -f pipelines/calibrate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no \
		OUT="$BENCH_TMP/cal" "$BENCH_TMP/cal/cluster.params" >/dev/null 2>&1 || exit 0
	for k in o O o_rndv O_rndv S; do
		v=$(sed -n "s/^$k = \([^ ]*\).*/\1/p" "$BENCH_TMP/cal/cluster.params")
		# in picoseconds (S in bytes)
		ps=$(printf '%s\n' "$v" | awk '{ v = $1; u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
			m = u == "ns" ? 1e3 : u == "us" ? 1e6 : u == "ms" ? 1e9 : 1; printf "%.0f", v * m }')
		if [ -n "$ps" ]; then line pingpong "fit-$k" "$ps" "$([ $k = S ] && echo B || echo ps)"; fi
	done
done
