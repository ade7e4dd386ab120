#!/bin/sh
# allprof --span (formats/trace.md section 3.7): every rank's trace holds its header with the
# "# span:" line, the comm lines, MPI_Init and MPI_Finalize and nothing in between, written
# complete ("# end"); cmp-real compares a prediction with it as with a full trace of the same
# program, trace2goal refuses it with the file and line. Also with --cpu-time, with
# MPI_Init_thread (threads), and with a Fortran program when there is one.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

# spancheck DIR NP INIT: NP ranks, each exactly INIT and MPI_Finalize, the span line, complete
spancheck() {
	for r in $(seq 0 $(($2 - 1))); do
		f=$1/rank-$r.trace &&
		grep -qx "# span: MPI_Init and MPI_Finalize only" $f &&
		grep -v "^#" $f | cut -d: -f1 >names &&
		printf "%s\nMPI_Finalize\n" "$3" >want && test_cmp want names &&
		grep -q "^# calls 2 records 2 " $f && grep -q "^# end " $f || return 1
	done
}

test_expect_success 'ring on 3 ranks: Init and Finalize only' '
	allprof --span -o sp -- mpirun -np 3 "$SAMPLES/ring" 4 100 >sp.out 2>sp.err &&
	spancheck sp 3 MPI_Init &&
	grep -q "allprof: traces in .*sp: 3 ranks, 6 calls" sp.err
'

test_expect_success 'with --cpu-time: the CPU field on both lines' '
	allprof --span --cpu-time -o spc -- mpirun -np 2 "$SAMPLES/persistent" 50 >spc.out 2>spc.err &&
	spancheck spc 2 MPI_Init &&
	test $(grep -c ":c[0-9.]*,[0-9.]*$" spc/rank-0.trace) = 2
'

test_expect_success 'MPI_Init_thread (threads sample)' '
	allprof --span -o spt -- mpirun -np 2 "$SAMPLES/threads" >spt.out 2>spt.err &&
	spancheck spt 2 MPI_Init_thread
'

if command -v mpif90 >/dev/null 2>&1 && [ -x "$SAMPLES/fsample" ]; then
	test_expect_success 'a Fortran program' '
		allprof --span -o spf -- mpirun -np 2 "$SAMPLES/fsample" >spf.out 2>spf.err &&
		spancheck spf 2 MPI_Init
	'
else
	test_skip 'a Fortran program' 'no Fortran sample'
fi

test_expect_success 'trace2goal refuses a span trace, with the file and line' '
	expect_fail 1 trace2goal sp &&
	grep -q "^trace2goal: sp/rank-[0-9]*.trace:[0-9]*: a span trace (allprof --span) holds only MPI_Init and MPI_Finalize" err
'

test_expect_success 'cmp-real: a prediction against the span of the same program and against its full trace' '
	allprof -q -o full -- mpirun -np 3 "$SAMPLES/ring" 4 100 >full.out 2>full.err &&
	trace2goal -q -o full.goal full && ibsim -q full.goal >sim.tsv &&
	{ cmp-real -f tsv sp sim.tsv >span.tsv; test $? -le 1; } &&
	{ cmp-real -f tsv full sim.tsv >full.tsv; test $? -le 1; } &&
	test $(grep -c "^[0-9]" span.tsv) = 3 && test $(grep -c "^[0-9]" full.tsv) = 3 &&
	# the real column is the span between the two lines of rank 0 (whose clock is the
	# reference), to 0.5 us: awk reads the 16-digit times as doubles
	awk -F: "/^MPI_Init:/ { a = \$NF } /^MPI_Finalize:/ { print \$2 - a }" sp/rank-0.trace >want &&
	awk -F"\t" "\$1 == 0 { print \$2 / 1e6 }" span.tsv >got &&
	paste want got | awk "{ d = \$1 - \$2; print; exit !(\$1 > 0 && d < 0.5 && d > -0.5) }"
'

test_done
