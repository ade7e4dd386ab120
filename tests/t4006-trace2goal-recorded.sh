#!/bin/sh
# trace2goal on traces that allprof records now, from the sample programs of samples/apps/
# at 2 to 4 ranks: each converts, ibsim runs the schedule to completion, every rank's
# point-to-point messages and bytes in the simulation (ibsim --msglog, application tags)
# are the ones its trace sends (Send family, Isend family, Sendrecv, persistent requests
# started), and --durations --sync on a zero-cost network ends where the real run ended,
# rank by rank (to 1 us; 0.2 % where nonblocking collectives run behind computation, see
# docs/trace2goal.md). Skipped when mpirun, allprof or the built sample programs are missing.
. "$(dirname "$0")/lib.sh"

OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism
SAMPLES="$IR_BUILD/samples"

skip_all() {
	echo "1..0 # SKIP $1"
	cd "$TOP" && rm -rf "$TRASH"
	exit 0
}
command -v mpirun >/dev/null 2>&1 || skip_all "mpirun not installed"
command -v allprof >/dev/null 2>&1 || skip_all "allprof not built"
[ -x "$SAMPLES/ring" ] || skip_all "sample programs not built ($SAMPLES)"

printf 'L = 0\no = 0\ng = 0\nG = 0\nO = 0\n' >zero.params

# sends TRACE...: "rank msgs bytes" of the point-to-point sends the traces record
sends() {
	r=0
	for f in "$@"; do
		awk -F: -v rank=$r '
		function sz(t,  a) { split(t, a, ","); return a[2] }
		/^MPI_(Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend|Sendrecv|Sendrecv_replace):/ {
			if ($6 != -2) { n++; b += $4 * sz($5) } }
		/^MPI_(Send|Bsend|Ssend|Rsend)_init:/ { p[$9] = $6 == -2 ? -1 : $4 * sz($5) }
		/^MPI_Start:/ { if (($3 in p) && p[$3] >= 0) { n++; b += p[$3] } }
		/^MPI_Startall:/ { k = split($4, ids, ","); for (i = 1; i <= k; i++) if ((ids[i] in p) && p[ids[i]] >= 0) { n++; b += p[ids[i]] } }
		END { print rank, n + 0, b + 0 }' "$f"
		r=$((r + 1))
	done
}

# simsends MSGLOG NRANKS: "rank msgs bytes" of the application-tag messages ibsim matched
simsends() {
	awk -v n="$2" '!/^#/ && $1 != "id" && $4 < 1073741824 { m[$2]++; b[$2] += $5 }
		END { for (i = 0; i < n; i++) print i, m[i] + 0, b[i] + 0 }' "$1"
}

# real TRACE...: "rank end_ns" of the real run (common clock, from the earliest MPI_Init return)
real() {
	for f in "$@"; do
		awk -F: '
		function us(t,  i, p) { p = index(t, "."); i = p ? substr(t, 1, p - 1) : t
			return (substr(i, length(i) - 8) + 0) + (p ? ("0" substr(t, p)) + 0 : 0) }
		/^# (Init )?clockdiff:/ { split($0, a, ": "); split(a[2], b, " "); oi = b[1] + 0; if (!seen) of = oi; seen = 1 }
		/^# Finalize clockdiff:/ { split($0, a, ": "); of = a[2] + 0 }
		/^MPI_Init/ { s = us($NF) }
		/^MPI_Finalize:/ { e = us($2) }
		END { printf "%.6f %.6f\n", s + oi, e + of }' "$f"
	done | awk '{ s[NR] = $1; e[NR] = $2; if (NR == 1 || $1 < m) m = $1 }
		END { for (i = 1; i <= NR; i++) printf "%d %.0f\n", i - 1, (e[i] - m) * 1000 }'
}

for spec in pingpong:2 ring:3 nonblock:3 persistent:4 datatypes:2 wildcard:3 collectives:4; do
	app=${spec%:*} np=${spec#*:}
	test_expect_success "$app on $np ranks: recorded, converted, simulated; sends match the trace" "
		allprof -q -o $app -- mpirun --oversubscribe -np $np \"\$SAMPLES/$app\" >$app.out 2>$app.err &&
		test \$(ls $app | wc -l) = $np &&
		trace2goal -q $app >$app.goal &&
		ibsim -q --msglog $app.msg $app.goal >$app.tsv &&
		test \$(grep -vc '^#' $app.tsv) = $((np + 1)) &&
		sends $app/rank-*.trace >$app.want && simsends $app.msg $np >$app.got &&
		test_cmp $app.want $app.got
	"
	# ibsim handles a message only when the receiving CPU is free, which delays the inner steps
	# of nonblocking collectives while the rank computes: 1 us, or 0.2 % for those
	test_expect_success "$app: --durations --sync replays the real run within 1 us (or 0.2 %) per rank" "
		trace2goal -q -p zero.params --durations --sync $app >$app.sync &&
		real $app/rank-*.trace >$app.real &&
		ibsim -q -L 0 -o 0 -g 0 -G 0 -O 0 $app.sync | awk '!/^#/ && \$1 != \"rank\" { printf \"%d %.0f\\n\", \$1, \$2 / 1000 }' >$app.rep &&
		paste $app.real $app.rep | awk '{ d = \$2 - \$4; if (d < 0) d = -d; if (\$1 != \$3 || (d > 1000 && d > \$2 * 0.002)) { print; bad = 1 } } END { exit bad }'
	"
done
test_done
