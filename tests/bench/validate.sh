#!/bin/sh
# tests/bench/validate.sh: the deviation of the replay from the real run on
# this machine, and its spread (make bench; never pass/fail). Runs
# pipelines/validate.mk VALIDATE_RUNS times (default BENCH_RUNS, 3) on
# VALIDATE_APPS (default: ring and lammps-melt) at 2 ranks, calibrating once,
# tracing again each time, and prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit,
# a line per run (the driver makes min/median/max, the spread over the runs):
#   <app>-2-<mode>  median-abs-dev  median |deviation| over the ranks, %
#                   real-ms         the real run time
#   pipeline        wall-first      seconds of the first run (once)
#                   wall-rerun      seconds of a run with nothing to do
# Needs mpirun and the sample programs ($IR_BUILD/samples); prints nothing otherwise.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
IR_BIN=${IR_BIN:-$TOP/bin}
IR_BUILD=${IR_BUILD:-$TOP/build}
BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/bench-validate.XXXXXX)}
RUNS=${VALIDATE_RUNS:-${BENCH_RUNS:-3}}
APPS=${VALIDATE_APPS:-ring lammps-melt}
command -v mpirun >/dev/null 2>&1 && [ -x "$IR_BUILD/samples/ring" ] || exit 0
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
now() { date +%s.%N; }
V=$BENCH_TMP/validate
vmake() {
	make -s -C "$TOP" -f pipelines/validate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$V" \
		NP=2 APPS="$APPS" "$@" >"$BENCH_TMP/vmake.out" 2>&1
}
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now)
	if [ $i = 1 ]; then vmake || exit 0; else vmake retrace || exit 0; fi
	t1=$(now)
	[ $i = 1 ] && printf 'validate\tpipeline\twall-first\t%s\ts\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	awk -F'\t' 'NR > 1 && !/^#/ {
		printf "validate\t%s-%s-%s\tmedian-abs-dev\t%s\t%%\n", $1, $2, $3, $5
		printf "validate\t%s-%s-%s\treal-ms\t%s\tms\n", $1, $2, $3, $4 }' "$V/deviation.tsv"
done
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now)
	vmake
	t1=$(now)
	printf 'validate\tpipeline\twall-rerun\t%s\ts\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
done
