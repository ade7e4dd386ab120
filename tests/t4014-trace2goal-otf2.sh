#!/bin/sh
# trace2goal on OTF2 archives (formats/trace.md section 7): an archive written
# with libotf2 (build/tests/u-otf2 --write) holds the same calls as the
# hand-written allprof traces in tests/t4014-trace2goal-otf2/text/; both must
# convert to the same GOAL, with every option that changes the conversion.
# otf2-print reads the archive; bad archives get "trace2goal: FILE: message", exit 1.
. "$(dirname "$0")/lib.sh"

MK="$IR_BUILD/tests/u-otf2"

test_expect_success 'an archive is written and otf2-print reads it' '
	"$MK" --write run run &&
	test -f run/traces.otf2 && test -f run/traces.def &&
	otf2-print run/traces.otf2 >print &&
	grep -q "MPI_IRECV_REQUEST" print && grep -q "MPI_COLLECTIVE_END" print &&
	grep -q "MPI_ISEND_COMPLETE" print
'
test_expect_success 'the anchor file and its directory give the GOAL of the text traces' '
	trace2goal "$TESTDATA/text" >text.goal &&
	trace2goal run/traces.otf2 >a.goal 2>err &&
	test_cmp text.goal a.goal &&
	trace2goal -q run >d.goal &&
	test_cmp text.goal d.goal
'
test_expect_success 'calls the archive does not express are listed with counts' '
	expect_err "trace2goal: warning: run/traces.otf2: 1 call the archive cannot express or the reader does not convert (their time counts as computation): MPI_Comm_rank (1)" &&
	trace2goal -q run >/dev/null 2>err2 && test ! -s err2
'
test_expect_success '--durations, --from/--to: the same GOAL' '
	trace2goal --durations "$TESTDATA/text" >t1 && trace2goal -q --durations run >o1 && test_cmp t1 o1 &&
	trace2goal --from MPI_Allreduce --to MPI_Gather "$TESTDATA/text" >t2 &&
	trace2goal -q --from MPI_Allreduce --to MPI_Gather run >o2 && test_cmp t2 o2
'
test_expect_success '--sync: the same canonical schedule' '
	trace2goal --durations --sync "$TESTDATA/text" >t3 && trace2goal -q --durations --sync run >o3 &&
	goalc -d t3 >t3.c && goalc -d o3 >o3.c && test_cmp t3.c o3.c
'
test_expect_success 'the GOAL simulates' '
	ibsim a.goal >sim && test -s sim
'
test_expect_success 'a missing archive' '
	expect_fail 1 trace2goal nothere.otf2 &&
	expect_err "trace2goal: nothere.otf2: cannot open OTF2 archive: no such file"
'
test_expect_success 'an OTF2 archive is the only trace argument' '
	expect_fail 2 trace2goal run "$TESTDATA/text" &&
	grep -q "an OTF2 archive must be the only trace argument" err
'
test_expect_success 'a truncated event file' '
	cp -r run cut && f=cut/traces/1.evt && n=$(wc -c <$f) &&
	head -c $((n / 2)) $f >x && mv x $f &&
	expect_fail 1 trace2goal cut &&
	grep -q "^trace2goal: cut/traces.otf2: cannot read the events of rank 1" err
'
test_expect_success 'a corrupt anchor file' '
	cp -r run bad && echo garbage >bad/traces.otf2 &&
	expect_fail 1 trace2goal bad/traces.otf2 &&
	grep -q "^trace2goal: bad/traces.otf2: cannot open OTF2 archive" err
'
test_expect_success 'corrupt global definitions' '
	cp -r run def && head -c 40 run/traces.def >def/traces.def &&
	expect_fail 1 trace2goal def &&
	grep -q "^trace2goal: def/traces.otf2: " err
'
test_expect_success 'an archive without MPI calls' '
	"$MK" --write nompi nompi &&
	expect_fail 1 trace2goal nompi &&
	expect_err "trace2goal: nompi/traces.otf2: the archive has no MPI calls"
'
test_done
