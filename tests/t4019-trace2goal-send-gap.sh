#!/bin/sh
# trace2goal --durations and a send after a send (formats/params.md, "A send after a gap";
# docs/trace2goal.md §4): the model's price of a send that follows a call that only sent is
# send_o(s) + send_o_after_send(gap), unless, under --sync, the trace shows another rank
# taking in one of the sender's messages since that call began (a receive that returned in
# between): then send_o(s) + send_o_after_recv(gap), as ibsim prices it. Without --sync the
# ranks are read one at a time and the discount stays. Exact calc values on handwritten
# traces, derived by hand below.
. "$(dirname "$0")/lib.sh"

# mk DIR R7 E7 R8 E8: rank 0 (times in us after Init at 1000000) sends tag 7 at +10 (returns
# +13) and tag 8 at +20 (returns +25); rank 1 receives tag 7 in [R7, E7] and tag 8 in [R8, E8]
mk() {
	mkdir -p "$1"
	{
		printf "# allprof 1.0 trace format 1\n# rank: 0 of 2\n# comm 0 0,1\n# comm 1 0\n"
		printf "MPI_Init:999990.000:1:2:1000000.000\n"
		printf "MPI_Send:1000010.000:8192:8:1,1,1:1:7:0,0,2:1000013.000\n"
		printf "MPI_Send:1000020.000:8192:8:1,1,1:1:8:0,0,2:1000025.000\n"
		printf "MPI_Finalize:1000040.000:1000040.100\n"
		printf "# calls 4 records 4 collapsed 0 flushes 0\n# end 4 0\n"
	} >"$1/rank-0.trace"
	{
		printf "# allprof 1.0 trace format 1\n# rank: 1 of 2\n# comm 0 0,1\n# comm 1 1\n"
		printf "MPI_Init:999990.000:1:2:1000000.000\n"
		printf "MPI_Recv:%s:4096:8:1,1,1:0:7:0,1,2:0,7,8:%s\n" "$2" "$3"
		printf "MPI_Recv:%s:4096:8:1,1,1:0:8:0,1,2:0,8,8:%s\n" "$4" "$5"
		printf "MPI_Finalize:1000040.000:1000040.100\n"
		printf "# calls 4 records 4 collapsed 0 flushes 0\n# end 4 0\n"
	} >"$1/rank-1.trace"
}
calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | grep "^l[0-9]*: calc " | sed 's/^l[0-9]*: calc //' | tr "\n" " "; }

printf "send_o = 0:3us\nrecv_o = 0:1us\nnet_L = 0:2us\n" >base.params
{ cat base.params; printf "send_o_after_send = 0:-1us; 10us:0\nsend_o_after_recv = 0:0; 1ms:5us\n"; } >gap.params
# rank 1 takes tag 7 in while rank 0 is between its sends (its receive returns at +14)
mk takes 1000010.000 1000014.000 1000021.000 1000026.000
# rank 1 is busy until both sends are over: its receives return at +31 and +33
mk busy 1000030.000 1000031.000 1000032.000 1000033.000

# --sync: per call the post calc is its duration less the model's CPU time. The first send
# is the rank's first step: send_o + after_recv(10 us) = 3.05 us against 3 us of call: 0,
# and 0.05 us owed. The second starts 7 us after the first returned:
#   busy:  after a send, nothing taken in: 3 - 1 + 0.7 = 2.7 us; with the 0.05 owed, 5 - 2.75
#          = 2.25 us;
#   takes: rank 1 took tag 7 in at +14: after_recv(7 us) = +0.035 us: 5 - 3.085 = 1.915 us.
test_expect_success '--sync: the discount only while no message of the sender was taken in' '
	trace2goal -q --durations --sync --tracer-time keep -p gap.params busy >b.goal &&
	test "$(calcs b.goal 0)" = "0 10000000 0 7000000 2250000 15000000 " &&
	trace2goal -q --durations --sync --tracer-time keep -p gap.params takes >t.goal &&
	test "$(calcs t.goal 0)" = "0 10000000 0 7000000 1915000 15000000 "
'

# A receive that returns after the second send began did not take tag 7 in before it: the
# same as busy (rank 1 receives tag 7 from +10 to +20.5, after the send's start at +20).
test_expect_success '--sync: a take-in after the send began does not count' '
	mk late 1000010.000 1000020.500 1000021.000 1000026.000 &&
	trace2goal -q --durations --sync --tracer-time keep -p gap.params late >l.goal &&
	test "$(calcs l.goal 0)" = "0 10000000 0 7000000 2250000 15000000 "
'

# A nonblocking receive counts where its Wait returns: rank 1 posts tag 7 at +5 and waits
# for it from +11 to +14, as the blocking receive of "takes".
test_expect_success '--sync: a receive completed by MPI_Wait counts at the Wait' '
	mkdir -p nb && cp takes/rank-0.trace nb/ &&
	{
		printf "# allprof 1.0 trace format 1\n# rank: 1 of 2\n# comm 0 0,1\n# comm 1 1\n"
		printf "MPI_Init:999990.000:1:2:1000000.000\n"
		printf "MPI_Irecv:1000005.000:4096:8:1,1,1:0:7:0,1,2:r1:1000005.100\n"
		printf "MPI_Wait:1000011.000:r1:0,7,8:1000014.000\n"
		printf "MPI_Recv:1000021.000:4096:8:1,1,1:0:8:0,1,2:0,8,8:1000026.000\n"
		printf "MPI_Finalize:1000040.000:1000040.100\n"
		printf "# calls 5 records 5 collapsed 0 flushes 0\n# end 5 0\n"
	} >nb/rank-1.trace &&
	trace2goal -q --durations --sync --tracer-time keep -p gap.params nb >n.goal &&
	test "$(calcs n.goal 0)" = "0 10000000 0 7000000 1915000 15000000 "
'

# Without --sync each rank is read alone: the discount stays. Gap 7 us plus 5 - 2.75 us.
test_expect_success 'without --sync: a send after a send keeps the discount' '
	trace2goal -q --durations --tracer-time keep -p gap.params takes >p.goal &&
	test "$(calcs p.goal 0)" = "10000000 9250000 15000000 " &&
	trace2goal -q --durations --tracer-time keep -p gap.params busy >q.goal &&
	test "$(calcs q.goal 0)" = "$(calcs p.goal 0)"
'

# Without the gap keys nothing depends on rank 1: 3 us a send, 2 us after the second.
test_expect_success 'without the gap keys: send_o whatever the receiver did' '
	trace2goal -q --durations --sync --tracer-time keep -p base.params takes >t0.goal &&
	trace2goal -q --durations --sync --tracer-time keep -p base.params busy >b0.goal &&
	test "$(calcs t0.goal 0)" = "0 10000000 0 7000000 2000000 15000000 " &&
	test "$(calcs b0.goal 0)" = "$(calcs t0.goal 0)"
'

test_done
