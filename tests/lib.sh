# tests/lib.sh: TAP helpers for the shell tests (tests/tNNNN-<tool>-<what>.sh).
#
# Usage in a test:
#   #!/bin/sh
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success 'title' '
#       goalc -o x.goalb "$TESTDATA/a.goal" &&
#       test_cmp expect actual
#   '
#   test_done
#
# Each test runs in its own scratch directory ($TRASH, removed at the end
# unless the test failed or KEEP_TRASH is set); bin/ is first on PATH. The
# bin/ here is $IR_BIN, which `make check` sets (it differs for sanitizer builds).
# The first digit of the test number is the tool: 0 lib/build, 1 goalc, 2 goalgen,
# 3 ibsim, 4 trace2goal, 5 allprof, 6 calib and cmp-real, 7 ibsim --net ib,
# 8 pipelines and docs, 9 fuzz corpora. Golden files live in tests/<test name>/;
# run a test with REGEN=1 to rewrite them (test_golden).

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
TEST_NAME=$(basename "$0" .sh)
TESTDATA="$TOP/tests/$TEST_NAME"
SEED="$TOP/tests/data"
IR_BIN=${IR_BIN:-$TOP/bin}
IR_BUILD=${IR_BUILD:-$TOP/build}
PATH="$IR_BIN:$PATH"
export TOP TESTDATA SEED PATH IR_BIN IR_BUILD
LC_ALL=C
export LC_ALL
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/ibreplay-$TEST_NAME.XXXXXX") || exit 1
cd "$TRASH" || exit 1
# Open MPI's session directory in the scratch directory: the first mpiruns of two tests
# that start at once both create /tmp/ompi.<host>.<uid>, and one of them fails ("A call to
# mkdir was unable to create the desired directory ... File exists")
OMPI_MCA_orte_tmpdir_base=${OMPI_MCA_orte_tmpdir_base:-$TRASH}
export OMPI_MCA_orte_tmpdir_base
test_count=0
test_failures=0

say_fail() { printf '%s\n' "$@" | sed 's/^/# /'; }

test_expect_success() {
	test_count=$((test_count + 1))
	if (eval "$2") >"$TRASH/.out" 2>&1; then
		echo "ok $test_count - $1"
	else
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/.out"
		# prove shows standard error but not the comments: a failure in a CI log says why
		{ echo "$TEST_NAME: not ok $test_count - $1"; head -40 "$TRASH/.out" | sed 's/^/    /'; } >&2
		test_failures=$((test_failures + 1))
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count - # skip $1 ($2)"
}

# test_cmp EXPECTED ACTUAL: like cmp, shows a diff on mismatch
test_cmp() {
	if ! cmp -s "$1" "$2"; then
		echo "files differ: $1 $2"
		diff -u "$1" "$2" | head -50
		return 1
	fi
}

# test_golden NAME FILE: compare FILE with tests/<test>/NAME (REGEN=1 rewrites it)
test_golden() {
	if [ "${REGEN:-}" = 1 ]; then
		mkdir -p "$TESTDATA" && cp "$2" "$TESTDATA/$1"
		return 0
	fi
	test_cmp "$TESTDATA/$1" "$2"
}

# expect_fail STATUS CMD...: run CMD, require exit status STATUS; stderr goes to ./err
expect_fail() {
	want=$1
	shift
	"$@" >out 2>err
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, expected $want: $*"
		cat err
		return 1
	fi
}

# expect_err TEXT: ./err must contain exactly this line
expect_err() {
	if ! grep -qxF -- "$1" err; then
		echo "expected error line: $1"
		echo "got:"
		cat err
		return 1
	fi
}

# trace_ends TRACE...: "rank end_ns" of a real run on the common clock: MPI_Finalize's call
# minus the earliest MPI_Init return over all ranks, each time corrected by its rank's offset
# (formats/trace.md §2, clock offsets: the Init offset at MPI_Init, the Finalize offset at
# MPI_Finalize, or, when the two imply a drift above 1,000 ppm, the offset of the exchange
# with the smaller round trip at both). Times keep their last 9 integer digits (exact in
# awk's doubles).
trace_ends() {
	for f in "$@"; do
		awk -F: '
		function us(t,  i, p) { p = index(t, "."); i = p ? substr(t, 1, p - 1) : t
			return (substr(i, length(i) - 8) + 0) + (p ? ("0" substr(t, p)) + 0 : 0) }
		function abs(x) { return x < 0 ? -x : x }
		/^# (Init )?clockdiff:/ { split($0, a, ": "); split(a[2], b, " "); oi = b[1] + 0; if (!seen) of = oi; seen = 1 }
		/^# Finalize clockdiff:/ { split($0, a, ": "); of = a[2] + 0 }
		/^# Init clockrtt:/ { split($0, a, ": "); ri = a[2] + 0; hri = 1 }
		/^# Finalize clockrtt:/ { split($0, a, ": "); rf = a[2] + 0; hrf = 1 }
		/^MPI_Init/ { s = us($NF) }
		/^MPI_Finalize:/ { e = us($2) }
		END { if (e > s && abs(of - oi) > 0.001 * (e - s)) { if (hri && hrf && rf < ri) oi = of; else of = oi }
			printf "%.6f %.6f\n", s + oi, e + of }' "$f"
	done | awk '{ s[NR] = $1; e[NR] = $2; if (NR == 1 || $1 < m) m = $1 }
		END { for (i = 1; i <= NR; i++) printf "%d %.0f\n", i - 1, (e[i] - m) * 1000 }'
}

test_done() {
	echo "1..$test_count"
	cd "$TOP" || exit 1
	if [ "$test_failures" = 0 ] && [ -z "${KEEP_TRASH:-}" ]; then
		rm -rf "$TRASH"
	else
		echo "# scratch directory kept: $TRASH"
	fi
	[ "$test_failures" = 0 ]
}

# need_pipeline: what a test of pipelines/*.mk on real MPI runs needs (t6200, t6201, t8003):
# skips the file without mpirun, the ring and pingpong samples or allprof; gives Open MPI a
# private TMPDIR (concurrent mpiruns must not share a session directory); keeps the
# pipeline's make out of the jobserver of a `make check` around the test.
need_pipeline() {
	command -v mpirun >/dev/null 2>&1 || { echo "1..0 # SKIP mpirun not installed"; exit 0; }
	[ -x "$IR_BUILD/samples/ring" ] && [ -x "$IR_BUILD/samples/pingpong" ] && [ -x "$IR_BIN/allprof" ] ||
		{ echo "1..0 # SKIP sample programs or allprof not built ($IR_BUILD/samples)"; exit 0; }
	TMPDIR=$TRASH
	export TMPDIR
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
}
