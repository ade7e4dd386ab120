#!/bin/sh
# ibsim O_send / O_send_rndv: the per-byte CPU overhead the sender pays. LogGOPSim charges the
# sender O like the receiver (the default); calib writes 0, because a ping-pong measures the
# per-byte time on its path, which the model puts at the receiver. Hand-derived end times of a
# simultaneous exchange, where the difference shows.
. "$(dirname "$0")/lib.sh"

# Two ranks; each sends 1001 bytes to the other and receives 1001 bytes from it, nothing
# else. L = 1000, o = 100, g = G = 0, O = 10 ps per byte (s1 = 1000).
cat >x.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 1001b to 1 tag 0
r: recv 1001b from 1 tag 0
}
rank 1 {
s: send 1001b to 0 tag 0
r: recv 1001b from 0 tag 0
}
EOF
P="-L 1000 -o 100 -g 0 -G 0 -O 10"
ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

test_expect_success 'default: the sender pays O too (LogGOPSim)' '
	# send at 0: CPU busy until 100 + 1000*10 = 10100; the message arrives at 0 + o + L =
	# 1100 and waits for the CPU: 10100 + 100 + 1000*10 = 20200
	ibsim -q $P x.goal >d.out && ends d.out >got && printf "0 20200\n1 20200\n" >want && test_cmp want got &&
	head -n 1 d.out | grep -q " O_rndv=10 ranks=2 " &&
	! grep -q O_send d.out
'

test_expect_success '--O-send 0: the sender pays o only' '
	# send at 0: CPU busy until 100; the message at 1100: 1100 + 100 + 10000 = 11200
	ibsim -q $P --O-send 0 x.goal >z.out && ends z.out >got && printf "0 11200\n1 11200\n" >want &&
	test_cmp want got &&
	head -n 1 z.out | grep -q " O_rndv=10 O_send=0 O_send_rndv=10 ranks=2 "
'

test_expect_success 'O_send from a parameter file; O_send_rndv for rendezvous messages' '
	printf "L = 1000\no = 100\ng = 0\nG = 0\nO = 10\nO_send = 4\n" >p.params &&
	# 100 + 4000 = 4100 > 1100: 4100 + 100 + 10000 = 14200
	ibsim -q -p p.params x.goal >p.out && ends p.out >got && printf "0 14200\n1 14200\n" >want &&
	test_cmp want got &&
	# S = 1000: rendezvous. The sender'"'"'s O_send_rndv follows O_rndv unless set: with 0 the
	# message is handled at 1100 as above, 1100 + 100 + 10000 = 11200
	ibsim -q $P -S 1000 --O-send-rndv 0 x.goal >r.out && ends r.out >got &&
	printf "0 11200\n1 11200\n" >want && test_cmp want got &&
	ibsim -q $P -S 1000 --O-send 0 x.goal >r2.out && ends r2.out >got &&
	printf "0 20200\n1 20200\n" >want && test_cmp want got
'

test_expect_success 'a bad O_send is refused with the file and line' '
	printf "O_send = fast\n" >bad.params &&
	expect_fail 1 ibsim -p bad.params x.goal &&
	grep -q "bad.params:1" err
'

test_done
