#!/bin/sh
# pipelines/iocal-validate.sh: the MPI-IO rows of docs/validation.md (called by
# pipelines/iocal.mk validate; environment: BIN BUILD OUT DIR PARAMS NRUNS MEASURE MPIRUN,
# optional BEFORE and RERUN).
#
# Each program runs NRUNS times under allprof, the programs interleaved (run 1 of every
# program, then run 2 ...), every real run prefixed with MEASURE; cmp-real --run names the
# median run, whose traces are converted with PARAMS (trace2goal -p: storage servers), and
# the simulation is compared against the median and the spread of all runs. With BEFORE (a
# second parameter file: the model without the keys under test) each row has a second
# simulation, converted and simulated with it (without the program's keys below). RERUN=no reuses the real runs of OUT.
# mpiio-indep-romio is mpiio-indep through ROMIO (--mca io romio321; Open MPI's default
# here, OMPIO, sieves only gaps of at most 4 KiB): its conversion adds
# `romio_ds_write = enable`, ROMIO's data sieving (docs/storage.md §8).
set -eu
: "${BIN:?}" "${BUILD:?}" "${OUT:?}" "${DIR:?}" "${PARAMS:?}"
NRUNS=${NRUNS:-5}
MEASURE=${MEASURE:-}
MPIRUN=${MPIRUN:-mpirun --bind-to core}
mkdir -p "$OUT" "$DIR"
RERUN=${RERUN:-yes}
BEFORE=${BEFORE:-}
progs="iocal-heldout mpiio-indep mpiio-indep-romio mpiio-coll"
[ -x "$BUILD/samples/h5io" ] && progs="$progs h5io"
cmd() {
	case $1 in
	iocal-heldout) echo "-np 1 $BUILD/samples/iocal $DIR -q -n 3 -m 2M -s 7 -P 1356" ;;
	mpiio-indep) echo "-np 2 $BUILD/samples/mpiio $DIR/m.dat strided 1024 65536 indep" ;;
	mpiio-indep-romio) echo "--mca io romio321 -np 2 $BUILD/samples/mpiio $DIR/m.dat strided 1024 65536 indep" ;;
	mpiio-coll) echo "-np 2 $BUILD/samples/mpiio $DIR/m.dat strided 1024 65536 coll" ;;
	h5io) echo "-np 2 $BUILD/samples/h5io $DIR/h.h5 2048 4" ;;
	esac
}
# keys of one program's conversion
extra() {
	case $1 in
	mpiio-indep-romio) echo "romio_ds_write = enable" ;;
	esac
}
for i in $(seq 1 "$NRUNS"); do
	[ "$RERUN" = no ] && break
	for p in $progs; do
		rm -rf "$OUT/$p/run$i"
		mkdir -p "$OUT/$p"
		# shellcheck disable=SC2046
		$MEASURE "$BIN/allprof" -q -o "$OUT/$p/run$i" -- $MPIRUN $(cmd "$p") >/dev/null
	done
done
# sim PARAMS NAME [EXTRA]: convert the median run with PARAMS (and with EXTRA the
# program's keys), simulate, compare: $OUT/$p/NAME.tsv (cmp-real)
sim() {
	{ cat "$1"; [ -z "${3:-}" ] || extra "$p"; } >"$OUT/$p/$2.params"
	"$BIN/trace2goal" -p "$OUT/$p/$2.params" "$med" >"$OUT/$p/$2.goal"
	"$BIN/ibsim" -q -p "$OUT/$p/$2.params" "$OUT/$p/$2.goal" >"$OUT/$p/$2.sim.tsv"
	# shellcheck disable=SC2086
	"$BIN/cmp-real" -f tsv -t 100 $runs "$OUT/$p/run$NRUNS" "$OUT/$p/$2.sim.tsv" >"$OUT/$p/$2.tsv" || true
}
{
	if [ -n "$BEFORE" ]; then
		echo "| program | real ms (median) | min .. max ms (spread) | simulated ms before | deviation before | simulated ms | deviation |"
		echo "|---|---|---|---|---|---|---|"
	else
		echo "| program | real ms (median) | min .. max ms (spread) | simulated ms | deviation |"
		echo "|---|---|---|---|---|"
	fi
	for p in $progs; do
		runs=""
		for i in $(seq 1 $((NRUNS - 1))); do runs="$runs --run $OUT/$p/run$i"; done
		# the median run, by the name cmp-real gives it (it numbers the positional
		# traces first, then the --run ones)
		# shellcheck disable=SC2086
		med=$("$BIN/cmp-real" -f tsv $runs "$OUT/$p/run$NRUNS" | sed -n 's/^# runs=[0-9]* median_run=[0-9]* //p')
		sim "$PARAMS" sim extra
		b=""
		if [ -n "$BEFORE" ]; then
			sim "$BEFORE" before
			b=$(awk -F'\t' '$1 == "rank" { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$1 == "all" { printf "%.1f | %+.1f %% | ", $c["sim_ps"] / 1e9, $c["dev_pct"] }' "$OUT/$p/before.tsv")
		fi
		awk -F'\t' -v p="$p" -v b="$b" '$1 == "rank" { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$1 == "all" { printf "| %s | %.1f | %.1f .. %.1f (%.1f %%) | %s%.1f | %+.1f %% |\n", p, $c["real_ps"] / 1e9,
			              $c["min_ps"] / 1e9, $c["max_ps"] / 1e9, $c["spread_pct"], b, $c["sim_ps"] / 1e9, $c["dev_pct"] }' "$OUT/$p/sim.tsv"
	done
} >"$OUT/deviation.md"
cat "$OUT/deviation.md"
