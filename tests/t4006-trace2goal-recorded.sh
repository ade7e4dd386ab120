#!/bin/sh
# trace2goal on traces that allprof records now, from the sample programs of samples/apps/
# at 2 to 4 ranks: each converts, ibsim runs the schedule to completion, every rank's
# point-to-point messages and bytes in the simulation (ibsim --msglog, application tags)
# are the ones its trace sends (Send family, Isend family, Sendrecv, persistent requests
# started), and --durations --sync on a zero-cost network ends where the real run ended,
# rank by rank: never more than 1 us earlier, never later than 1 us plus two bounds that
# nbc_bound and clock_bound compute from the traces. Skipped when mpirun, allprof or the
# built sample programs are missing.
#
# Why later, and by how much at most (lateness only adds up: a zero-cost replay is a
# max-plus system, so inputs late by d give outputs late by at most d, plus what is new):
#
# Nonblocking collectives. lib/ir_tsync.c lets an inner step of a nonblocking collective
# (an op waiting for a receive of the same call) happen when its message arrives; ibsim
# handles an arriving message only when the receiving CPU is free, and while the rank runs
# the calcs between the starting call (entry I) and the MPI_Wait that completes it (entry
# W) it is not. At W the rank blocks, so every op of the collective on rank q runs by
# max(its inputs, W_q), while the model has it at max(its inputs, I_q) at the earliest: by
# induction over the collective's ops, each is late by at most max(lateness of its inputs,
# W_q - I_q). One instance therefore adds at most max over its members of (W_q - I_q), and
# the run at most the sum of that over the instances (nbc_bound). Measured: 3-55 us late on
# ~2.5 ms runs of collectives at 4 ranks, bound 180-410 us.
#
# Clock error. Each rank's clock offset is measured by a round trip to rank 0 and known to
# half of it (# clockrtt); interpolated between MPI_Init and MPI_Finalize, the error stays
# within the larger half round trip e_r. A receive or collective whose zero-cost completion
# comes after the call's recorded return (the post calc would be negative, counted as 0)
# ends late by at most e_sender + e_receiver, and such lateness passes on along a chain of
# ranks, each adding its own error on the way in and out: at most the sum over the ranks of
# the larger round trip (clock_bound), assuming a chain meets each rank's error once. On a
# loaded machine the round trips reach 20-50 us and the misplaced offsets 20 us.
. "$(dirname "$0")/lib.sh"
# a private TMPDIR: concurrent mpiruns must not share Open MPI's session directory
TMPDIR=$TRASH
export TMPDIR

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


# clock_bound TRACE...: in ns, the sum over the ranks of the larger round trip of the two
# clock offset measurements (# Init clockrtt, # Finalize clockrtt)
clock_bound() {
	awk 'FNR == 1 { b += m; m = 0 } /^# (Init |Finalize )?clockrtt:/ { split($0, a, ": "); if (a[2] + 0 > m) m = a[2] + 0 }
		END { printf "%.0f\n", (b + m) * 1000 }' "$@"
}

# nbc_bound TRACE...: in ns, the sum over the nonblocking collectives of the largest
# (entry of the MPI_Wait or MPI_Waitall completing it - entry of the call starting it) among
# the members. An instance is the n-th nonblocking collective on a communicator (member
# list and how many with that list came before). Requests completed otherwise are an
# error: the bound would need their completing call.
nbc_bound() {
	r=0
	for f in "$@"; do
		awk -F: -v rank=$r '
		function us(t,  i, p) { p = index(t, "."); i = p ? substr(t, 1, p - 1) : t
			return (substr(i, length(i) - 8) + 0) + (p ? ("0" substr(t, p)) + 0 : 0) }
		/^# comm / { split($0, a, " "); occ[a[4]]++; ck[a[3]] = a[4] "#" occ[a[4]] }
		/^MPI_I(barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall|scan|exscan|neighbor_)/ {
			split($(NF - 2), c, ","); k = ck[c[1]]; n[k]++; req[$(NF - 1)] = k "/" n[k]; st[$(NF - 1)] = us($2) }
		/^MPI_(Wait|Waitall):/ { m = split($3, ids, ",")
			for (i = 1; i <= m; i++) if (ids[i] in req) { printf "%s %.6f\n", req[ids[i]], us($2) - st[ids[i]]; delete req[ids[i]] } }
		/^MPI_(Waitany|Waitsome|Test|Testany|Testall|Testsome|Request_free|Cancel):/ {
			m = split($3 ~ /^r/ ? $3 : $4, ids, ",")
			for (i = 1; i <= m; i++) if (ids[i] in req) { print FILENAME ": " $1 " completes a nonblocking collective"; bad = 1 } }
		END { for (x in req) { print FILENAME ": " x " not completed by MPI_Wait or MPI_Waitall"; bad = 1 }; exit bad }' "$f" || return 1
		r=$((r + 1))
	done | awk '!($1 in w) || $2 > w[$1] { w[$1] = $2 } END { for (k in w) b += w[k]; printf "%.0f\n", b * 1000 }'
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
	# never earlier than 1 us, never later than 1 us plus nbc_bound and clock_bound (see the top)
	test_expect_success "$app: --durations --sync replays the real run to 1 us per rank, plus the bounds" "
		trace2goal -q -p zero.params --durations --sync $app >$app.sync &&
		trace_ends $app/rank-*.trace >$app.real &&
		nbc_bound $app/rank-*.trace >$app.bound && clock_bound $app/rank-*.trace >>$app.bound &&
		ibsim -q -L 0 -o 0 -g 0 -G 0 -O 0 $app.sync | awk '!/^#/ && \$1 != \"rank\" { printf \"%d %.0f\\n\", \$1, \$2 / 1000 }' >$app.rep &&
		paste $app.real $app.rep | awk -v b=\$(awk '{ b += \$1 } END { print b }' $app.bound) '{ d = \$4 - \$2; if (\$1 != \$3 || d < -1000 || d > 1000 + b) { print \"late by\", d, \"ns, bound\", b; print; bad = 1 } } END { exit bad }'
	"
done
test_done
