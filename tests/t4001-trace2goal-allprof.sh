#!/bin/sh
# trace2goal on allprof traces (samples/traces/allprof-3): wildcard receives take the
# recorded source and tag, request ids, Waitany indices, polls with repeat counts,
# sub-communicators from '# comm' lines, and the end marker.
. "$(dirname "$0")/lib.sh"
S="$TOP/samples/traces/allprof-3"

# communicator creation as local work, as these traces were converted before it was modelled
# (tests/t4013-trace2goal-commcreate.sh tests it)
LOCALCC="--coll comm_create=local,comm_split=local"
test_expect_success 'converts and simulates' '
	trace2goal $LOCALCC "$S" >a.goal &&
	test_golden a.goal a.goal &&
	ibsim -q a.goal >a.tsv
'
test_expect_success 'blocking wildcard receive gets the recorded source, tag and size' '
	sed -n "/^rank 0/,/^}/p" a.goal | grep -qx "l3: recv 16b from 1 tag 9"
'
test_expect_success 'wildcard Irecv is defined with the source its Wait recorded' '
	sed -n "/^rank 0/,/^}/p" a.goal | grep -qx "l5: recv 16b from 2 tag 5"
'
test_expect_success 'Waitany completes the request at the recorded index' '
	sed -n "/^rank 0/,/^}/p" a.goal | grep -qx "l17 requires l15"
'
test_expect_success 'sub-communicator allreduce runs among its members, with a collective tag' '
	sed -n "/^rank 0/,/^}/p" a.goal | grep "tag 1[0-9]\{9\}" | grep -q "to 2" &&
	! sed -n "/^rank 1/,/^}/p" a.goal | grep -q "tag 1[0-9]\{9\}"
'
test_expect_success 'a trace without its end line is cut short' '
	mkdir cut && cp "$S"/* cut/ && sed -i "/^# end/d" cut/rank-1.trace &&
	expect_fail 1 trace2goal cut &&
	expect_err "trace2goal: cut/rank-1.trace:11: trace is cut short: no '"'"'# end'"'"' line (the run did not finish writing it)"
'
test_expect_success '# incomplete is reported with its reason' '
	sed -i "\$a # incomplete signal 11" cut/rank-1.trace &&
	expect_fail 1 trace2goal cut &&
	expect_err "trace2goal: cut/rank-1.trace:12: trace is cut short: it says '"'"'# incomplete signal 11'"'"'"
'
test_expect_success 'a communicator used before its # comm line' '
	mkdir nc && cp "$S"/* nc/ && sed -i "/^# comm/d" nc/rank-2.trace &&
	expect_fail 1 trace2goal nc &&
	expect_err "trace2goal: nc/rank-2.trace:7: MPI_Allreduce: communicator 2 has no '"'"'# comm'"'"' line before its use"
'
test_expect_success 'calls after the end line' '
	mkdir ae && cp "$S"/* ae/ && echo "MPI_Barrier:1.0:0,0,3:2.0" >>ae/rank-0.trace &&
	expect_fail 1 trace2goal ae &&
	expect_err "trace2goal: ae/rank-0.trace:20: expected nothing after the '"'"'# end'"'"' line, found '"'"'MPI_Barrier:1.0:0,0,3:2.0'"'"'"
'
test_done
