#!/bin/sh
# ibsim with the piecewise model (send_o, recv_o, net_L) and copies to oneself (copy):
# hand-derived end times for each rule of docs/loggops-semantics.md section 6.2, and the
# LogGOPS rule untouched when the keys are absent.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

# One eager message of 100 bytes from rank 0 to rank 1.
cat >one.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 100b to 1 tag 0
}
rank 1 {
r: recv 100b from 0 tag 0
}
EOF2
# g = G = 0 so that only the model's terms count.
cat >pw.params <<'EOF2'
g = 0
G = 0
S = 1000
send_o = 0:8us; 64:10us+10ps; 1001:500ns
recv_o = 0:2us+1ps
net_L = 0:1us+5ps
EOF2

test_expect_success 'eager: sender send_o, arrival net_L after the send started, receiver recv_o' '
	# send_o(100) = 10us + 1000 = 10001000; net_L = 1us + 500 = 1000500: the message
	# arrives while the sender is still busy; recv_o(100) = 2000100: 3000600
	ibsim -q -p pw.params one.goal >a.out && ends a.out >got && printf "0 10001000\n1 3000600\n" >want &&
	test_cmp want got &&
	head -n 1 a.out | grep -q " model=piecewise ranks=2 "
'

test_expect_success 'segments: the size picks its segment' '
	sed "s/100b/10b/" one.goal >ten.goal &&
	# send_o(10) = 8us; net_L = 1000050 = the arrival; recv_o = 2000010: 3000060
	ibsim -q -p pw.params ten.goal >b.out && ends b.out >got && printf "0 8000000\n1 3000060\n" >want &&
	test_cmp want got
'

cat >late.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 2000b to 1 tag 0
}
rank 1 {
c: calc 50000000
r: recv 2000b from 0 tag 0
r requires c
}
EOF2
test_expect_success 'rendezvous: the sender is held until the receiver has taken the data' '
	# send_o(2000) = 500ns on rank 0; arrival net_L(2000) = 1010000, rank 1 computes
	# until 50000000, charges recv_o(2000) = 2002000 then
	# (52002000); the receive posted at 52002000 finds it in the UQ: rank 1 ends 52002000.
	# Rank 0 is released at the later of the match (52002000) and the charge end (52002000).
	ibsim -q -p pw.params late.goal >c.out && ends c.out >got && printf "0 52002000\n1 52002000\n" >want &&
	test_cmp want got
'

cat >posted.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 2000b to 1 tag 0
}
rank 1 {
r: recv 2000b from 0 tag 0
}
EOF2
test_expect_success 'rendezvous, receive posted: the send ends with the receive (LogGOPS: at the match)' '
	# arrival 1010000, charged 2002000: both end at 3012000 (the sender'"'"'s own 500 ns
	# are long over)
	ibsim -q -p pw.params posted.goal >d.out && ends d.out >got && printf "0 3012000\n1 3012000\n" >want &&
	test_cmp want got &&
	# the LogGOPS rule releases the sender when the message is matched (o + L = 4000 here):
	# rank 0 ends at 4000 while rank 1 pays o + s1*max(O,G) = 2000 + 1999*3 = 7997 after it
	ibsim -q -L 2000 -o 2000 -g 0 -G 3 -S 1000 posted.goal >e.out && ends e.out >got &&
	printf "0 4000\n1 11997\n" >want && test_cmp want got
'

cat >self.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 4096b to 0 tag 1
r: recv 4096b from 0 tag 1
c: calc 100
c requires r
}
rank 1 {
c: calc 1
}
EOF2
test_expect_success 'copy: a message to oneself is a local copy, priced by copy(s)' '
	printf "copy = 0:40ns+0.5ps\n" >cp.params &&
	# the send costs 40000 + 2048 = 42048; the copy is there at 42048; the receive costs
	# nothing; calc 100: 42148
	ibsim -q -p cp.params self.goal >f.out && ends f.out >got && printf "0 42148\n1 1\n" >want &&
	test_cmp want got &&
	head -n 1 f.out | grep -q " copy=yes ranks=2 " &&
	# without copy: a network message (LogGOPSim): o + L + o + s1*max(O,G) + 100 =
	# 1500 + 2500 + 1500 + 4095*6 + 100 = 30170
	ibsim -q self.goal >g.out && ends g.out >got && printf "0 30170\n1 1\n" >want && test_cmp want got &&
	! grep -q copy= g.out
'

test_expect_success 'copy together with the piecewise model: the copy wins for messages to oneself' '
	cat pw.params cp.params >both.params &&
	ibsim -q -p both.params self.goal >h.out && ends h.out >got && printf "0 42148\n1 1\n" >want &&
	test_cmp want got
'

test_expect_success 'copy with a rendezvous-sized message to oneself (nonblocking pair)' '
	cat >selfr.goal <<-EOF2 &&
	num_ranks 1
	rank 0 {
	r: recv 8000b from 0 tag 1
	s: send 8000b to 0 tag 1
	}
	EOF2
	printf "S = 1000\ncopy = 0:40ns+0.5ps\n" >cpr.params &&
	# send at 0 costs 40000 + 4000 = 44000; the receive posted at 0 matches at 44000
	ibsim -q -p cpr.params selfr.goal >i.out && ends i.out >got && printf "0 44000\n" >want &&
	test_cmp want got
'

test_expect_success 'the piecewise model on the ib network: CPU overheads from send_o and recv_o' '
	ibsim -q -p pw.params --net ib --topo fattree2:4 one.goal >j.out &&
	head -n 1 j.out | grep -q "model=piecewise" &&
	awk "!/^#/ && NR > 2 && \$1 == 1 { exit !(\$2 > 10001000 + 2000100) }" j.out
'

# The rendezvous protocol (docs/loggops-semantics.md section 6.2 item 10): with copy set,
# a rendezvous message's request costs its receiver nothing, its data leaves at the match and
# arrives rndv_wait(s) = recv_o(s) - rndv_copy(s) later, when the receiver pays rndv_copy(s)
# = min(copy(s), recv_o(s)). Here copy(2000) = 100ns + 1000 = 101000, so rndv_copy = 101000
# and rndv_wait = 2002000 - 101000 = 1901000.
cat pw.params >hs.params
printf "copy = 0:100ns+0.5ps\n" >>hs.params
test_expect_success 'rendezvous protocol: a ping-pong and a late receiver keep their times' '
	# posted: request at 1010000, matched, data at 2911000, copied until 3012000: the
	# receive and the send (released by the copy'"'"'s end, not by the data) end there
	ibsim -q -p hs.params posted.goal >hs1.out && ends hs1.out >got && printf "0 3012000\n1 3012000\n" >want &&
	test_cmp want got &&
	head -n 1 hs1.out | grep -q " model=piecewise copy=yes rndv=handshake ranks=2 " &&
	# late: the request waits for the CPU (50000000), the receive posted then matches it:
	# data at 51901000, copied until 52002000, the late receive lasting recv_o(2000)
	ibsim -q -p hs.params late.goal >hs2.out && ends hs2.out >got && printf "0 52002000\n1 52002000\n" >want &&
	test_cmp want got
'

cat >overlap.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 2000b to 1 tag 0
s2: send 10b to 1 tag 1
}
rank 1 {
r: recv 2000b from 0 tag 0
e: recv 10b from 0 tag 1
c: calc 100000
c requires e
}
EOF2
test_expect_success 'rendezvous protocol: the receiver'"'"'s CPU is free while the data travels' '
	# rank 1 matches the request at 1010000 (CPU idle, charged nothing); the eager message
	# (sent at 500000, net_L(10) = 1000050) arrives at 1500050 and is charged recv_o(10) =
	# 2000010 until 3500060; the data, at 2911000, waits for the CPU and is copied from
	# 3500060 to 3601060; calc c then: 3701060
	ibsim -q -p hs.params -v overlap.goal >hs3.out 2>hs3.err && ends hs3.out >got &&
	printf "0 8500000\n1 3701060\n" >want && test_cmp want got &&
	grep -q "^1010000 seq [0-9]* rank 1: message 0 from 0 tag 0 2000 bytes (rendezvous) charged until 1010000; matches recv .r.$" hs3.err &&
	grep -q "^2911000 seq [0-9]* rank 1: message busy, put back to 3500060$" hs3.err &&
	grep -q "^3500060 seq [0-9]* rank 1: data of message 0 from 0 arrived, charged until 3601060; recv .r. and the send complete$" hs3.err &&
	# rndv_handshake = no: the request is charged recv_o(2000) = 2002000 at its arrival
	# (until 3012000), the eager message after it (5012010), calc c: 5112010
	{ cat hs.params; echo "rndv_handshake = no"; } >hsno.params &&
	ibsim -q -p hsno.params overlap.goal >hs4.out && ends hs4.out >got &&
	printf "0 8500000\n1 5112010\n" >want && test_cmp want got &&
	! grep -q rndv=handshake hs4.out &&
	# without copy the receiver'"'"'s whole charge is recv_o at the arrival, as with no
	ibsim -q -p pw.params overlap.goal >hs5.out && ends hs5.out >got && test_cmp want got
'

test_expect_success 'rendezvous protocol: a copy longer than recv_o is capped at recv_o' '
	# copy(2000) = 3us + 1000 > recv_o(2000): rndv_copy = 2002000, rndv_wait = 0; the data
	# is there at the match and rank 1 copies it from 1010000 while the eager message waits
	{ cat pw.params; echo "copy = 0:3us+0.5ps"; } >hsbig.params &&
	ibsim -q -p hsbig.params -v overlap.goal >hs6.out 2>hs6.err && ends hs6.out >got &&
	printf "0 8500000\n1 5112010\n" >want && test_cmp want got &&
	grep -q "^1010000 seq [0-9]* rank 1: data of message 0 from 0 arrived, charged until 3012000;" hs6.err
'

test_expect_success 'rendezvous protocol with async progress: the copy is added to the CPU'"'"'s work' '
	# s2 starts at once (its 8 us added after s'"'"'s 500 ns: rank 0 ends 8500000) and
	# arrives at 1000050, charged (c waits for e) until 3000060; the request matches at
	# 1010000; the data at 2911000 is copied at once, its 101000 added after the CPU'"'"'s
	# work: the receive completes at 3012000, the CPU is busy until 3101060; calc c: 3201060
	ibsim -q -p hs.params --async-progress overlap.goal >hs7.out && ends hs7.out >got &&
	printf "0 8500000\n1 3201060\n" >want && test_cmp want got
'

cat >susp.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 2000b to 1 tag 0
}
rank 1 {
x: calc 2000000
r: recv 2000b from 0 tag 0
r requires x
y: calc 1000000
y requires x
w: calc 0
w requires r
}
EOF2
test_expect_success 'rendezvous protocol: the data does not move while the receiver computes' '
	# the request waits in the UQ until r is posted at 2000000 (after x): the data leaves
	# then and would be there at 3901000, but y computes from 2000000 to 3000000, which
	# the data waits out: 4901000, copied until 5002000
	ibsim -q -p hs.params -v susp.goal >hs8.out 2>hs8.err && ends hs8.out >got &&
	printf "0 5002000\n1 5002000\n" >want && test_cmp want got &&
	grep -q "^3901000 seq [0-9]* rank 1: message busy, put back to 4901000$" hs8.err &&
	# a library that progresses by itself (async progress): the data moves meanwhile
	ibsim -q -p hs.params --async-progress susp.goal >hs9.out && ends hs9.out >got &&
	printf "0 4002000\n1 4002000\n" >want && test_cmp want got
'

test_expect_success 'rendezvous protocol: rndv_copy sets the receiver'"'"'s work on the data (copy otherwise)' '
	# rndv_copy(2000) = 0: the data travels recv_o(2000) = 2002000 and costs nothing on
	# arrival; copy is not needed then
	{ cat pw.params; echo "rndv_copy = 0:0"; } >hsrc.params &&
	ibsim -q -p hsrc.params -v overlap.goal >hs10.out 2>hs10.err && ends hs10.out >got &&
	printf "0 8500000\n1 3600060\n" >want && test_cmp want got &&
	grep -q "^3012000 seq [0-9]* rank 1: message busy, put back to 3500060$" hs10.err &&
	head -n 1 hs10.out | grep -q " rndv=handshake " &&
	printf "rndv_copy = 0:1us\n" >bad5.params &&
	expect_fail 1 ibsim -p bad5.params one.goal &&
	grep -q "bad5.params:1: .rndv_copy. is set, but it belongs to the piecewise model, which is not set" err
'

test_expect_success 'bad rndv_handshake: file and line, exit 1' '
	{ cat hs.params; echo "rndv_handshake = maybe"; } >bad4.params &&
	expect_fail 1 ibsim -p bad4.params one.goal &&
	grep -q "bad4.params:8: invalid rndv_handshake .maybe. (expected yes or no)" err
'

test_expect_success 'bad piecewise keys: file and line, exit 1' '
	printf "g = 0\nsend_o = 0:8us\n" >bad1.params &&
	expect_fail 1 ibsim -p bad1.params one.goal &&
	grep -q "bad1.params:2: .send_o. is set, but the piecewise model needs send_o, recv_o and net_L together; recv_o net_L missing" err &&
	printf "\n\ncopy = 0:40ns+1.23456ps\n" >bad2.params &&
	expect_fail 1 ibsim -p bad2.params one.goal &&
	grep -q "bad2.params:3: invalid segment for .copy.: .0:40ns+1.23456ps.: bad per-byte time" err &&
	printf "net_L = 5:1us\nsend_o=0:1\nrecv_o=0:1\n" >bad3.params &&
	expect_fail 1 ibsim -p bad3.params one.goal &&
	grep -q "bad3.params:1: invalid piecewise function for .net_L.: the first segment must start at size 0" err
'

test_done
