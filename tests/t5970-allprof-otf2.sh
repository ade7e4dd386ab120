#!/bin/sh
# allprof --format otf2|both (formats/trace.md section 7.2): the sample programs
# recorded once, as text traces and as the OTF2 archive made from them; otf2-print
# reads the archive, and trace2goal converts both to the same GOAL where the
# archive expresses every call the GOAL needs (ring, nonblock, persistent); for
# the collectives sample, what OTF2 cannot express is listed with counts.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

# same NAME: the text traces and the archive of run NAME give the same GOAL (the archive does
# not carry the tracer's own time, formats/trace.md 3.8: the text is converted keeping it)
same() {
	trace2goal --tracer-time keep "$1"/rank-*.trace >"$1.text.goal" &&
	trace2goal "$1/traces.otf2" >"$1.otf2.goal" 2>"$1.warn" &&
	test_cmp "$1.text.goal" "$1.otf2.goal"
}

test_expect_success 'ring, --format both: text traces and the archive, named in the summary' '
	allprof --format both -o ring -- mpirun -np 3 "$SAMPLES/ring" 4 100 >ring.out 2>ring.err &&
	for r in 0 1 2; do complete ring/rank-$r.trace || return 1; done &&
	test -f ring/traces.otf2 && test -f ring/traces.def && test -d ring/traces &&
	grep -qx "allprof: OTF2 archive: ring/traces.otf2" ring.err
'
test_expect_success 'ring: otf2-print reads it: one location per rank, every call entered and left' '
	otf2-print ring/traces.otf2 >ring.print &&
	for r in 0 1 2; do grep -q "^ENTER  *$r  *[0-9]*  *Region: \"MPI_Init\"" ring.print || return 1; done &&
	test "$(grep -c "^ENTER " ring.print)" = "$(grep -c "^LEAVE " ring.print)" &&
	test "$(grep -c "^ENTER " ring.print)" = "$(cat ring/rank-*.trace | grep -c "^MPI_")" &&
	test "$(grep -c "^MPI_SEND " ring.print)" = "$(cat ring/rank-*.trace | grep -c "^MPI_Send:")" &&
	test "$(grep -c "^MPI_IRECV " ring.print)" = "$(cat ring/rank-*.trace | grep -c "^MPI_Irecv:")"
'
test_expect_success 'ring: the same GOAL; the local calls are listed' '
	same ring &&
	grep -qx "trace2goal: warning: ring/traces.otf2: 6 calls the archive cannot express or the reader does not convert (their time counts as computation): MPI_Comm_rank (3), MPI_Comm_size (3)" ring.warn
'
test_expect_success 'a directory with both: its text traces are read' '
	trace2goal --tracer-time keep ring >dir.goal 2>dir.err &&
	test_cmp ring.text.goal dir.goal && test ! -s dir.err
'
test_expect_success 'nonblock: the same GOAL' '
	allprof -q --format both -o nb -- mpirun -np 2 "$SAMPLES/nonblock" >nb.out 2>nb.err &&
	same nb
'
test_expect_success 'persistent: the same GOAL (starts of persistent requests)' '
	allprof -q --format both -o pers -- mpirun -np 2 "$SAMPLES/persistent" 4 >pers.out 2>pers.err &&
	same pers && otf2-print pers/traces.otf2 | grep -q "^MPI_ISEND "
'
test_expect_success 'collectives, --format otf2: only the archive; collective records; the rest listed' '
	allprof -q --format otf2 -o co -- mpirun -np 4 "$SAMPLES/collectives" >co.out 2>co.err &&
	test -f co/traces.otf2 && ! ls co/rank-* 2>/dev/null &&
	otf2-print co/traces.otf2 >co.print &&
	grep -q "^MPI_COLLECTIVE_END .*Operation: ALLREDUCE" co.print &&
	grep -q "^MPI_COLLECTIVE_END .*Operation: BCAST" co.print &&
	trace2goal co >co.goal 2>co.warn &&
	grep -q "MPI_Alltoallv (16)" co.warn && grep -q "MPI_Iallreduce (16)" co.warn &&
	ibsim co.goal >co.sim
'
test_expect_success 'an unknown format' '
	expect_fail 2 allprof --format xml true &&
	grep -q "unknown format .xml. (text, otf2 or both)" err
'
test_done
