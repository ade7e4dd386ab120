#!/bin/sh
# trace2goal: collectives with MPI_IN_PLACE (allprof's -1) take their block sizes from the
# receive side, because MPI ignores the send count and type (and the send arrays, written
# 0:-, of Alltoallv). tests/t4008-trace2goal-inplace/ is a handwritten 2-rank trace:
# Alltoall (3 ints), Allgather (5 ints), Alltoallv (7 ints each way) in place on both ranks,
# and a Gather in place at its root. liballprof traces write Open MPI's MPI_IN_PLACE, 1.
. "$(dirname "$0")/lib.sh"
T="$TESTDATA"

test_expect_success 'in-place collectives: blocks from the receive side, simulated' '
	trace2goal "$T" >a.goal 2>err && test ! -s err &&
	grep -E "^l[0-9]+: (send|recv) " a.goal | sed "s/^l[0-9]*: //" >got &&
	cat >expect <<-\EOF &&
	send 12b to 1 tag 1073741824
	recv 12b from 1 tag 1073741824
	send 20b to 1 tag 1073741825
	recv 20b from 1 tag 1073741825
	send 28b to 1 tag 1073741826
	recv 28b from 1 tag 1073741826
	recv 8b from 1 tag 1073741827
	send 12b to 0 tag 1073741824
	recv 12b from 0 tag 1073741824
	send 20b to 0 tag 1073741825
	recv 20b from 0 tag 1073741825
	send 28b to 0 tag 1073741826
	recv 28b from 0 tag 1073741826
	send 8b to 0 tag 1073741827
	EOF
	test_cmp expect got &&
	ibsim -q a.goal >a.tsv
'

test_expect_success 'the same with send counts and types given: identical schedule' '
	mkdir given && for r in 0 1; do
		sed -e "s/^\(MPI_Alltoall:[0-9.]*:\)-1:0:0,0,0:/\15000:3:1,4,4:/" \
		    -e "s/^\(MPI_Allgather:[0-9.]*:\)-1:0:0,0,0:/\15000:5:1,4,4:/" \
		    -e "s/^\(MPI_Alltoallv:[0-9.]*:\)-1:0:-:0:-:0,0,0:/\15000:6000:7,7:6100:0,7:1,4,4:/" \
		    -e "s/^\(MPI_Gather:[0-9.]*:\)-1:0:/\15000:2:/" "$T/rank-$r.trace" >given/rank-$r.trace || return 1
	done &&
	! grep -q ":-1:" given/rank-0.trace &&
	trace2goal given >b.goal &&
	test_cmp a.goal b.goal
'

test_expect_success 'buffer 1 (Open MPI MPI_IN_PLACE, as liballprof wrote it) is in place too' '
	mkdir lib && for r in 0 1; do
		sed "s/^\(MPI_[A-Za-z]*:[0-9.]*:\)-1:/\11:/" "$T/rank-$r.trace" >lib/rank-$r.trace || return 1
	done &&
	grep -q "^MPI_Alltoallv:[0-9.]*:1:0:-:" lib/rank-1.trace &&
	trace2goal lib >c.goal &&
	test_cmp a.goal c.goal
'
test_done
