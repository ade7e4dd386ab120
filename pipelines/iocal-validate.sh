#!/bin/sh
# pipelines/iocal-validate.sh: the MPI-IO rows of docs/validation.md (called by
# pipelines/iocal.mk validate; environment: BIN BUILD OUT DIR PARAMS NRUNS MEASURE MPIRUN).
#
# Each program runs NRUNS times under allprof, the programs interleaved (run 1 of every
# program, then run 2 ...), every real run prefixed with MEASURE; cmp-real --run names the
# median run, whose traces are converted with PARAMS (trace2goal -p: storage servers), and
# the simulation is compared against the median and the spread of all runs.
set -eu
: "${BIN:?}" "${BUILD:?}" "${OUT:?}" "${DIR:?}" "${PARAMS:?}"
NRUNS=${NRUNS:-5}
MEASURE=${MEASURE:-}
MPIRUN=${MPIRUN:-mpirun --bind-to core}
mkdir -p "$OUT" "$DIR"
progs="iocal-heldout mpiio-indep mpiio-coll"
[ -x "$BUILD/samples/h5io" ] && progs="$progs h5io"
cmd() {
	case $1 in
	iocal-heldout) echo "-np 1 $BUILD/samples/iocal $DIR -q -n 3 -m 2M -s 7 -P 1356" ;;
	mpiio-indep) echo "-np 2 $BUILD/samples/mpiio $DIR/m.dat strided 1024 65536 indep" ;;
	mpiio-coll) echo "-np 2 $BUILD/samples/mpiio $DIR/m.dat strided 1024 65536 coll" ;;
	h5io) echo "-np 2 $BUILD/samples/h5io $DIR/h.h5 2048 4" ;;
	esac
}
for i in $(seq 1 "$NRUNS"); do
	for p in $progs; do
		rm -rf "$OUT/$p/run$i"
		mkdir -p "$OUT/$p"
		# shellcheck disable=SC2046
		$MEASURE "$BIN/allprof" -q -o "$OUT/$p/run$i" -- $MPIRUN $(cmd "$p") >/dev/null
	done
done
{
	echo "| program | real ms (median) | min .. max ms (spread) | simulated ms | deviation |"
	echo "|---|---|---|---|---|"
	for p in $progs; do
		runs=""
		for i in $(seq 1 $((NRUNS - 1))); do runs="$runs --run $OUT/$p/run$i"; done
		# cmp-real numbers the runs in their order: the --run ones, then the last
		# shellcheck disable=SC2086
		k=$("$BIN/cmp-real" -f tsv $runs "$OUT/$p/run$NRUNS" | sed -n 's/^# runs=[0-9]* median_run=\([0-9]*\) .*/\1/p')
		med="$OUT/$p/run${k:-1}"
		"$BIN/trace2goal" -p "$PARAMS" "$med" >"$OUT/$p/sim.goal"
		"$BIN/ibsim" -q -p "$PARAMS" "$OUT/$p/sim.goal" >"$OUT/$p/sim.tsv"
		# shellcheck disable=SC2086
		"$BIN/cmp-real" -f tsv -t 100 $runs "$OUT/$p/run$NRUNS" "$OUT/$p/sim.tsv" >"$OUT/$p/cmp.tsv" || true
		awk -F'\t' -v p="$p" '$1 == "rank" { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$1 == "all" { printf "| %s | %.1f | %.1f .. %.1f (%.1f %%) | %.1f | %+.1f %% |\n", p, $c["real_ps"] / 1e9,
			              $c["min_ps"] / 1e9, $c["max_ps"] / 1e9, $c["spread_pct"], $c["sim_ps"] / 1e9, $c["dev_pct"] }' "$OUT/$p/cmp.tsv"
	done
} >"$OUT/deviation.md"
cat "$OUT/deviation.md"
