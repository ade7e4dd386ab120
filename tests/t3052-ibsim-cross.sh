#!/bin/sh
# ibsim with recv_o_cross (formats/params.md, "Crossing messages"): an eager message that
# arrives while its receiver's CPU is in the overhead of a send of its own costs the
# receiver recv_o_cross(s), not recv_o(s). Hand-derived end times for an exchange, a
# ping-pong, a message that arrived before the receiver's send began, rendezvous, the
# spread, --async-progress and the intra-node model; the errors of the key.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

cat >pw.params <<'EOF2'
g = 0
G = 0
S = 1000
send_o = 0:5us
recv_o = 0:3us
net_L = 0:2us
EOF2
{ cat pw.params; echo "recv_o_cross = 0:4us"; } >x.params

# xchg SIZE: both ranks send SIZE bytes to each other at once and receive the other's
xchg() {
	cat <<EOF2
num_ranks 2
rank 0 {
s: send ${1}b to 1 tag 0
r: recv ${1}b from 1 tag 0
}
rank 1 {
s: send ${1}b to 0 tag 0
r: recv ${1}b from 0 tag 0
}
EOF2
}

test_expect_success 'an exchange: each message arrives during its receiver'"'"'s send and costs recv_o_cross' '
	xchg 8 >x8.goal &&
	# each send busy until 5 us; the other message arrives at net_L = 2 us, during it;
	# taken in at 5 us for recv_o_cross = 4 us: 9 us (recv_o: 8 us)
	ibsim -q -p x.params x8.goal >a.out && ends a.out >got && printf "0 9000000\n1 9000000\n" >want &&
	test_cmp want got &&
	ibsim -q -p pw.params x8.goal >b.out && ends b.out >got && printf "0 8000000\n1 8000000\n" >want &&
	test_cmp want got
'

cat >pp.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 8b to 1 tag 0
r: recv 8b from 1 tag 1
r requires s
}
rank 1 {
r: recv 8b from 0 tag 0
s: send 8b to 0 tag 1
s requires r
}
EOF2
test_expect_success 'a ping-pong: every message finds its receiver idle, recv_o as before' '
	# rank 1 takes the message in at 2 + 3 us, answers until 10 us; the answer arrives at
	# 7 us, rank 0 idle since 5 us: 10 us both
	ibsim -q -p x.params pp.goal >a.out && ends a.out >got && printf "0 10000000\n1 10000000\n" >want &&
	test_cmp want got && ibsim -q -p pw.params pp.goal >b.out && test_cmp a.out b.out
'

cat >before.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 8b to 1 tag 0
r: recv 8b from 1 tag 0
}
rank 1 {
c: calc 4000000
s: send 8b to 0 tag 0
r: recv 8b from 0 tag 0
s requires c
r requires c
}
EOF2
test_expect_success 'a message that arrived before its receiver'"'"'s send began, or after it ended: recv_o' '
	# rank 0'"'"'s message reaches rank 1 at 2 us, while it computes (until 4 us): taken in
	# at 4 us for recv_o (7 us), before rank 1 sends (until 12 us). Rank 1'"'"'s message
	# arrives at 9 us, after rank 0'"'"'s send (0-5 us): taken in until 12 us
	ibsim -q -p x.params before.goal >a.out && ends a.out >got && printf "0 12000000\n1 12000000\n" >want &&
	test_cmp want got && ibsim -q -p pw.params before.goal >b.out && test_cmp a.out b.out
'

test_expect_success 'rendezvous messages (above S) never cross' '
	xchg 2000 >x2k.goal &&
	ibsim -q -p x.params x2k.goal >a.out && ibsim -q -p pw.params x2k.goal >b.out && test_cmp a.out b.out
'

test_expect_success 'the spread of recv_o multiplies recv_o_cross too' '
	{ cat x.params; echo "recv_o_spread = 2"; } >sp.params &&
	# 5 us of send, then 4 us times 2
	ibsim -q -p sp.params x8.goal >a.out && ends a.out >got && printf "0 13000000\n1 13000000\n" >want &&
	test_cmp want got
'

test_expect_success '--async-progress: messages are taken in as they arrive, recv_o_cross does not apply' '
	ibsim -q --async-progress -p x.params x8.goal >a.out && ibsim -q --async-progress -p pw.params x8.goal >b.out &&
	test_cmp a.out b.out
'

test_expect_success 'the intra-node model: messages within a host never cross' '
	{ cat x.params; printf "intra_send_o = 0:5us\nintra_recv_o = 0:3us\nintra_net_L = 0:2us\n"; } >in.params &&
	{ cat pw.params; printf "intra_send_o = 0:5us\nintra_recv_o = 0:3us\nintra_net_L = 0:2us\n"; } >in0.params &&
	ibsim -q --ranks-per-host 2 -p in.params x8.goal >a.out && ends a.out >got &&
	printf "0 8000000\n1 8000000\n" >want && test_cmp want got &&
	ibsim -q --ranks-per-host 2 -p in0.params x8.goal >b.out && test_cmp a.out b.out
'

test_expect_success 'bad recv_o_cross: file:line and exit 1' '
	{ cat pw.params; echo "recv_o_cross = abc"; } >b.params &&
	expect_fail 1 ibsim -q -p b.params x8.goal &&
	grep -q "^ibsim: b.params:7: " err && grep -q "recv_o_cross" err &&
	printf "S = 1000\nrecv_o_cross = 0:4us\n" >b.params &&
	expect_fail 1 ibsim -q -p b.params x8.goal &&
	grep -q "^ibsim: b.params:2: .recv_o_cross. is set, but it belongs to the piecewise model, which is not set" err
'

test_done
