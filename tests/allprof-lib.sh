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
