#!/bin/sh
# tests/bench/validate.sh: the deviation of the replay from the real run on
# this machine, and its spread (make bench; never pass/fail). Runs
# pipelines/validate.mk VALIDATE_RUNS times (default 3) on VALIDATE_APPS
# (default: ring and lammps-melt) at 2 ranks, calibrating once, tracing
# again each time, and prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit:
#   <app>-2-<mode>  run<k>-median-abs-dev   median |deviation| over the ranks, %
#                   median-abs-dev-min/-max  its spread over the runs, %
#                   real-ms-min/-max         the real run time's spread
#   pipeline        wall-first / wall-rerun  seconds of the first run and of a
#                                            run with nothing to do
# Needs mpirun and the sample programs ($IR_BUILD/samples); prints nothing otherwise.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
IR_BIN=${IR_BIN:-$TOP/bin}
IR_BUILD=${IR_BUILD:-$TOP/build}
BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/bench-validate.XXXXXX)}
RUNS=${VALIDATE_RUNS:-3}
APPS=${VALIDATE_APPS:-ring lammps-melt}
command -v mpirun >/dev/null 2>&1 && [ -x "$IR_BUILD/samples/ring" ] || exit 0
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
now() { date +%s.%N; }
V=$BENCH_TMP/validate
vmake() {
	make -s -C "$TOP" -f pipelines/validate.mk BUILD="$IR_BUILD" BIN="$IR_BIN" BUILD_TOOLS=no OUT="$V" \
		NP=2 APPS="$APPS" "$@" >"$BENCH_TMP/vmake.out" 2>&1
}
: >"$BENCH_TMP/rows"
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now)
	if [ $i = 1 ]; then vmake || exit 0; else vmake retrace || exit 0; fi
	t1=$(now)
	[ $i = 1 ] && printf 'validate\tpipeline\twall-first\t%s\ts\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	awk -F'\t' -v k=$i 'NR > 1 && !/^#/ {
		printf "validate\t%s-%s-%s\trun%d-median-abs-dev\t%s\t%%\n", $1, $2, $3, k, $5
		print $1 "-" $2 "-" $3 "\t" $5 "\t" $4 >>"'"$BENCH_TMP/rows"'" }' "$V/deviation.tsv"
done
t0=$(now)
vmake
t1=$(now)
printf 'validate\tpipeline\twall-rerun\t%s\ts\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
for b in $(cut -f1 "$BENCH_TMP/rows" | sort -u); do
	awk -F'\t' -v b="$b" '$1 == b { d = $2 + 0; r = $3 + 0
		if (!n++ || d < dmin) dmin = d; if (n == 1 || d > dmax) dmax = d
		if (n == 1 || r < rmin) rmin = r; if (n == 1 || r > rmax) rmax = r }
		END { printf "validate\t%s\tmedian-abs-dev-min\t%.2f\t%%\nvalidate\t%s\tmedian-abs-dev-max\t%.2f\t%%\n", b, dmin, b, dmax
		      printf "validate\t%s\treal-ms-min\t%.3f\tms\nvalidate\t%s\treal-ms-max\t%.3f\tms\n", b, rmin, b, rmax }' "$BENCH_TMP/rows"
done
