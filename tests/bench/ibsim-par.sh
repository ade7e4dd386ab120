#!/bin/sh
# tests/bench/ibsim-par.sh: the parallel engine's speed against its number of processes
# (make bench; never pass/fail). Prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit
# lines, the runs of each setting interleaved (ibsim, then ibsim-mpi on 1, 2, ...
# processes, BENCH_RUNS times):
#   ev-per-s-seq   events per second of plain ibsim (simulation only; its default order of
#                  ties, what a user runs without ibsim-mpi)
#   ev-per-s-key   the same with --ties key, the order ibsim-mpi computes (its results must be
#                  ibsim-mpi's byte for byte, checked on every run)
#   ev-per-s-npN   events per second of ibsim-mpi on N processes (the slowest process's
#                  simulation time, loading excluded)
#   wall-npN       that time, in seconds
#   windows, cut-msgs  the windows and the messages between processes (N = 2)
#   fabric-ev-per-s-npN  --net ib: the fabric's events per second (N = 0: ibsim --ties key)
# BENCH_PAR_NP is the list of process counts (default "1 2"; a machine with more cores:
# "1 2 4 8 16"); more processes than cores are oversubscribed. Skipped without mpirun.
set -eu
RUNS=${BENCH_RUNS:-3}
NPS=${BENCH_PAR_NP:-1 2}
command -v mpirun >/dev/null 2>&1 && command -v ibsim-mpi >/dev/null 2>&1 || exit 0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
line() { printf 'ibsim-par\t%s\t%s\t%s\t%s\n' "$@"; }
statval() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$2"; }
# fab NAME NP: the fabric's events per second, when the run had a fabric
fab() {
	v=$(statval fabric_ev_per_s "$BENCH_TMP/st")
	[ -z "$v" ] || line "$1" "fabric-ev-per-s-np$2" "$(awk -v v="$v" 'BEGIN { printf "%.2f", v / 1e6 }')" M/s
}

# bench NAME SCHEDULE [OPTIONS]: OPTIONS go to ibsim and ibsim-mpi alike
bench() {
	name=$1
	sched=$2
	shift 2
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		ibsim -q --stats "$BENCH_TMP/st" "$@" "$sched" >/dev/null
		line "$name" ev-per-s-seq "$(awk -v v="$(statval ev_per_s "$BENCH_TMP/st")" 'BEGIN { printf "%.2f", v / 1e6 }')" M/s
		ibsim -q --ties key --stats "$BENCH_TMP/st" "$@" "$sched" >"$BENCH_TMP/seq"
		line "$name" ev-per-s-key "$(awk -v v="$(statval ev_per_s "$BENCH_TMP/st")" 'BEGIN { printf "%.2f", v / 1e6 }')" M/s
		fab "$name" 0
		for np in $NPS; do
			mpirun --oversubscribe -np "$np" ibsim-mpi -q --stats "$BENCH_TMP/st" "$@" "$sched" >"$BENCH_TMP/par"
			cmp -s "$BENCH_TMP/seq" "$BENCH_TMP/par" || { echo "ibsim-par: $name: results of $np processes differ" >&2; exit 1; }
			line "$name" "ev-per-s-np$np" "$(awk -v v="$(statval ev_per_s "$BENCH_TMP/st")" 'BEGIN { printf "%.2f", v / 1e6 }')" M/s
			line "$name" "wall-np$np" "$(statval wall_s "$BENCH_TMP/st")" s
			fab "$name" "$np"
			if [ "$np" = 2 ]; then
				line "$name" windows "$(statval windows "$BENCH_TMP/st")" windows
				line "$name" cut-msgs "$(statval cut_msgs "$BENCH_TMP/st")" msgs
			fi
		done
	done
	rm -f "$BENCH_TMP/st" "$BENCH_TMP/seq" "$BENCH_TMP/par"
}

# few events per window (about 5): a random DAG, whose ranks' events rarely meet in time
goalgen random 1024 --ops 500 --calc 20us --seed 1 | goalc -q -o "$BENCH_TMP/rnd.goalb"
bench random-1024x500 "$BENCH_TMP/rnd.goalb"
rm -f "$BENCH_TMP/rnd.goalb"

# many events per window (about 800,000): every rank in lockstep, a round per window
goalgen dissemination 262144 --size 180 | goalc -q -o "$BENCH_TMP/diss.goalb"
bench dissemination-256K "$BENCH_TMP/diss.goalb"
rm -f "$BENCH_TMP/diss.goalb"

# --net ib, the fabric split by switch (docs/ib-model.md section 13): windows of one link delay
goalgen alltoall 512 --size 4K | goalc -q -o "$BENCH_TMP/a2a.goalb"
bench ib-alltoall-512-fattree3:16 "$BENCH_TMP/a2a.goalb" --net ib --topo fattree3:16
rm -f "$BENCH_TMP/a2a.goalb"
