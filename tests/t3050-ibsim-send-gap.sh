#!/bin/sh
# A send after a gap (formats/params.md, "A send after a gap"): an eager network send costs
# send_o(s) plus send_o_after_send(gap) when the rank's last protocol step was a send and,
# since that send began, no message reached it and none of its messages was taken in by its
# receiver; else plus send_o_after_recv(gap); the gap runs from the end of the rank's last
# step's overhead. Each result is derived by hand above its test.
. "$(dirname "$0")/lib.sh"

ends() { awk -F'\t' 'NR > 2 { printf "%s%s:%s", s, $1, $2; s = " " } END { print "" }' "$1"; }
# run WANT PARAMS SCHEDULE [OPTIONS...]
run() {
	want=$1
	p=$2
	sched=$3
	shift 3
	ibsim -q -p "$p" "$@" "$sched" >res 2>err || { cat err; return 1; }
	got=$(ends res)
	[ "$got" = "$want" ] || { echo "got '$got', want '$want'"; return 1; }
}

printf 'send_o = 0:3us\nrecv_o = 0:1us\nnet_L = 0:2us\n' >base.params
cp base.params gap.params
printf 'send_o_after_send = 0:-1us; 10us:0\nsend_o_after_recv = 0:0; 1ms:5us\n' >>gap.params

# Rank 0 sends, computes 5 us and sends again; rank 1 receives both.
# base: rank 0 [0,3) send, [3,8) calc, [8,11) send; rank 1 handles the messages at 2 and 10
# (net_L 2 us from each send's start): [2,3) and [10,11).
# gap: the first send is the rank's first step (after_recv at gap 0: +0): [0,3); rank 1
# takes its message in at 2, so the second, 5 us after the first, is priced after_recv(5
# us) = +0.025 us: [8,11.025); its message still arrives at 10 us.
cat >two.goal <<'EOF'
num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
l2: calc 5000000
l3: send 8b to 1 tag 0
l2 requires l1
l3 requires l2
}
rank 1 {
l1: recv 8b from 0 tag 0
l2: recv 8b from 0 tag 0
l2 requires l1
}
EOF
test_expect_success 'without the gap keys: send_o each time' '
	run "0:11000000 1:11000000" base.params two.goal
'
test_expect_success 'a send 5 us after a send whose message was taken in: after_recv(5 us)' '
	run "0:11025000 1:11000000" gap.params two.goal
'

# The same with rank 1 computing 20 us first: the messages wait for its CPU, handled [20,21)
# and [21,22), so nothing of rank 0 was taken in when it sends again at 8: after_send(5 us)
# = -0.5 us, [8,10.5).
sed '/^rank 1 {/a l0: calc 20000000\nl1 requires l0' two.goal >busy.goal
test_expect_success 'a send 5 us after a send, the receiver busy: send_o + after_send(5 us)' '
	run "0:10500000 1:22000000" gap.params busy.goal &&
	run "0:11000000 1:22000000" base.params busy.goal
'

# A train of four sends 0 us apart (3 us of CPU each; a message arrives 2 us after its
# send's start): with rank 1 idle each message is taken in at 2, 5, 8, 11 us, before the next
# send starts: send_o each time, [0,3) [3,6) [6,9) [9,12). With rank 1 busy for 50 us the
# three after the first keep the discount (after_send(0) = -1 us): [0,3) [3,5) [5,7) [7,9),
# and rank 1 takes the four in at [50,54).
cat >train.goal <<'EOF'
num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
l2: send 8b to 1 tag 0
l3: send 8b to 1 tag 0
l4: send 8b to 1 tag 0
l2 requires l1
l3 requires l2
l4 requires l3
}
rank 1 {
l0: calc 0
l1: recv 8b from 0 tag 0
l2: recv 8b from 0 tag 0
l3: recv 8b from 0 tag 0
l4: recv 8b from 0 tag 0
l1 requires l0
l2 requires l1
l3 requires l2
l4 requires l3
}
EOF
test_expect_success 'a train of sends: discounted only while the receiver takes nothing in' '
	run "0:12000000 1:12000000" gap.params train.goal &&
	sed "s/calc 0/calc 50000000/" train.goal >train-busy.goal &&
	run "0:9000000 1:54000000" gap.params train-busy.goal
'

# Rank 1 answers each message; rank 0 sends the second after the answer.
# Rank 0: [0,3) send, [3,8) calc; rank 1 handles the message [2,3) and answers [3,6) (a send
# right after a message handled: after_recv(0) = 0), which arrives at 5 and waits for rank
# 0's CPU: [8,9). Rank 0's second send at 9 follows that message by 0 us: after_recv(0) = 0,
# [9,12) (without the answer it would be after_send(6 us) = -0.4 us); it arrives at 11,
# handled [11,12).
cat >answer.goal <<'EOF'
num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
l2: calc 5000000
l3: recv 8b from 1 tag 1
l4: send 8b to 1 tag 0
l2 requires l1
l4 requires l3
l4 requires l2
}
rank 1 {
l1: recv 8b from 0 tag 0
l2: send 8b to 0 tag 1
l3: recv 8b from 0 tag 0
l2 requires l1
l3 requires l2
}
EOF
test_expect_success 'a send after a message handled: after_recv, not after_send' '
	run "0:12000000 1:12000000" base.params answer.goal &&
	run "0:12000000 1:12000000" gap.params answer.goal
'

# A send after 1 ms of computation (the rank's first step: the gap runs from 0):
# after_recv(1 ms) = +5 us: [1000,1008); the message arrives at 1002, handled [1002,1003).
cat >cold.goal <<'EOF'
num_ranks 2
rank 0 {
l1: calc 1000000000
l2: send 8b to 1 tag 0
l2 requires l1
}
rank 1 {
l1: recv 8b from 0 tag 0
}
EOF
test_expect_success 'a send after 1 ms of computation: after_recv(1 ms)' '
	run "0:1003000000 1:1003000000" base.params cold.goal &&
	run "0:1008000000 1:1003000000" gap.params cold.goal
'

# Halfway between two points, and beyond the last: 0.5 ms of computation gives +2.5 us;
# 2 ms gives the last point's +5 us.
test_expect_success 'linear between points, the last value beyond them' '
	sed "s/calc 1000000000/calc 500000000/" cold.goal >half.goal &&
	run "0:505500000 1:503000000" gap.params half.goal &&
	sed "s/calc 1000000000/calc 2000000000/" cold.goal >late.goal &&
	run "0:2008000000 1:2003000000" gap.params late.goal
'

# A rendezvous send (above S) keeps send_o.
test_expect_success 'rendezvous sends keep send_o' '
	{ cat gap.params; echo "S = 4"; } >rndv.params && { cat base.params; echo "S = 4"; } >rndv0.params &&
	ibsim -q -p rndv.params two.goal >a && ibsim -q -p rndv0.params two.goal >b && test_cmp b a
'

test_expect_success 'a bad point: file, line and exit 1' '
	{ cat base.params; echo "send_o_after_send = 0:-1us; 5us:fast"; } >bad.params &&
	{ ibsim -q -p bad.params two.goal >/dev/null 2>err; test $? = 1; } &&
	grep -q "^ibsim: bad.params:4: invalid point for .send_o_after_send.: .5us:fast.: bad time .fast." err
'
test_expect_success 'gaps that do not grow are an error' '
	{ cat base.params; echo "send_o_after_recv = 5us:1us; 5us:2us"; } >bad2.params &&
	{ ibsim -q -p bad2.params two.goal >/dev/null 2>err; test $? = 1; } &&
	grep -q "^ibsim: bad2.params:4: invalid gap function for .send_o_after_recv.: point .5us:2us. does not lie after" err
'
test_expect_success 'the gap keys without the piecewise model are an error' '
	echo "send_o_after_send = 0:-1us" >nopw.params &&
	{ ibsim -q -p nopw.params two.goal >/dev/null 2>err; test $? = 1; } &&
	grep -q "^ibsim: nopw.params:1: .send_o_after_send. is set, but it changes send_o of the piecewise model" err
'
test_expect_success 'ibsim knows the keys: no warning' '
	ibsim -p gap.params two.goal >/dev/null 2>err && ! grep -q "unknown parameter" err
'

test_done
