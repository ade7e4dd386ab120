# tests/allprof-lib.sh: what the tests that run MPI programs (t5*-allprof-*.sh, t6003) share.
# Source after lib.sh; it sets TMPDIR to a directory in the test's own scratch directory.
# Needs Open MPI (mpirun) and the sample programs that the build puts into $IR_BUILD/samples;
# without them the test file is skipped.

OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_rmaps_base_oversubscribe=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
export OMPI_MCA_btl_vader_single_copy_mechanism
SAMPLES="$IR_BUILD/samples"
export SAMPLES
# Open MPI's session directory (ompi.<host>.<uid>/ under $TMPDIR) in this test's own scratch
# directory: two test files running mpirun at the same time never share one, and it goes
# away with the scratch directory.
TMPDIR=$TRASH/.tmp
mkdir -p "$TMPDIR" || exit 1
export TMPDIR

# skip_all REASON: the whole file is skipped (TAP plan 1..0).
skip_all() {
	echo "1..0 # SKIP $1"
	cd "$TOP" && rm -rf "$TRASH"
	exit 0
}

need_mpi() {
	command -v mpirun >/dev/null 2>&1 || skip_all "mpirun not installed"
	[ -x "$SAMPLES/ring" ] || skip_all "sample programs not built ($SAMPLES)"
	command -v allprof >/dev/null 2>&1 || skip_all "allprof not built"
}

# traced DIR NP PROGRAM [ARG...]: run PROGRAM on NP ranks under allprof;
# stdout to DIR.out, stderr to DIR.err; returns allprof's exit status.
traced() {
	d=$1
	np=$2
	shift 2
	allprof -o "$d" -- mpirun -np "$np" "$@" >"$d.out" 2>"$d.err"
}

# calls NAME FILE: the call lines of NAME, without the two times.
calls() {
	grep "^$1:" "$2" | sed 's/^\([^:]*\):[0-9.]*:/\1:/; s/:[0-9.]*$//'
}

# complete FILE: the last line is "# end <records> <bytes>" and both numbers are right.
complete() {
	last=$(tail -n 1 "$1")
	case $last in
	"# end "*) ;;
	*) echo "$1: last line is not an end marker: $last"; return 1 ;;
	esac
	set -- "$1" $last
	records=$(grep -vc '^#' "$1")
	bytes=$(head -n -1 "$1" | wc -c)
	if [ "$4" != "$records" ] || [ "$5" != "$bytes" ]; then
		echo "$1: end marker says $4 records $5 bytes, file has $records records $bytes bytes"
		return 1
	fi
}

# monotonic FILE: t_call <= t_return on every call line, and t_return never goes back.
monotonic() {
	awk -F: '/^#/ { next } {
		a = $2 + 0; b = $NF + 0
		if (a > b) { print FILENAME ":" NR ": returns before it is called"; bad = 1 }
		if (b < last) { print FILENAME ":" NR ": time goes back"; bad = 1 }
		last = b
	} END { exit bad }' "$1"
}

# check_ring DIR N: samples/apps/ring traced on N ranks with 4 steps of 100 bytes: every
# Irecv, Send and Wait line of every rank (the Wait gives the real source, tag and size).
check_ring() {
	for r in $(seq 0 $(($2 - 1))); do
		left=$(( (r + $2 - 1) % $2 )) right=$(( (r + 1) % $2 )) &&
		calls MPI_Irecv "$1/rank-$r.trace" | cut -d: -f3- >irecv &&
		calls MPI_Send "$1/rank-$r.trace" | cut -d: -f3- >send &&
		calls MPI_Wait "$1/rank-$r.trace" | cut -d: -f2- >wait &&
		printf "100:13,1,1:$left:%d:0,$r,$2:r%d\n" 0 1 1 2 2 3 3 4 >expect &&
		test_cmp expect irecv &&
		printf "100:13,1,1:$right:%d:0,$r,$2\n" 0 1 2 3 >expect &&
		test_cmp expect send &&
		printf "r%d:$left,%d,100\n" 1 0 2 1 3 2 4 3 >expect &&
		test_cmp expect wait || return 1
	done
}

# check_pingpong DIR: samples/apps/pingpong -n 3 -m 1024 on 2 ranks: every size of the
# sweep 4 times, rank 1 receives what rank 0 sent, one buffer reused after the first use.
check_pingpong() {
	complete "$1/rank-0.trace" && complete "$1/rank-1.trace" &&
	calls MPI_Send "$1/rank-0.trace" | cut -d: -f3 | uniq -c | awk '{print $2, $1}' >got &&
	for s in 0 1 2 4 8 16 32 63 64 126 128 252 256 504 512 1008 1024; do echo "$s 4"; done >expect &&
	test_cmp expect got &&
	calls MPI_Recv "$1/rank-1.trace" | awk -F: '{ split($8, st, ","); if (st[1] != 0 || st[2] != 1 || st[3] != $3) bad = 1 } END { exit bad }' &&
	calls MPI_Send "$1/rank-0.trace" | cut -d: -f2 | awk 'NR % 4 != 1' | sort -u >reused &&
	test "$(wc -l <reused)" = 1
}
