#!/bin/sh
# The intra-node model (docs/loggops-semantics.md section 8, "Intra-node messages";
# formats/params.md, "The intra-node model"): messages between two ranks of one host are
# priced by intra_send_o, intra_recv_o and intra_net_L and do not enter the network;
# messages between hosts keep the network's keys. Hand-derived end times.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

# the network: a message costs its sender 100 ns, arrives 1 us after its send started and
# costs its receiver 200 ns; the memory of a host: 10 ns, 100 ns, 20 ns
cat >net.params <<'EOF2'
send_o = 0:100ns
recv_o = 0:200ns
net_L = 0:1us
EOF2
cat >intra.params <<'EOF2'
intra_send_o = 0:10ns
intra_recv_o = 0:20ns
intra_net_L = 0:100ns+1ps
EOF2
cat net.params intra.params >both.params

# rank 0 sends 100 bytes to rank 1 and then to rank 2; ranks 1 and 2 receive
cat >fan.goal <<'EOF2'
num_ranks 3
rank 0 {
a: send 100b to 1 tag 0
b: send 100b to 2 tag 0
b requires a
}
rank 1 {
r: recv 100b from 0 tag 0
}
rank 2 {
r: recv 100b from 0 tag 0
}
EOF2

test_expect_success 'without hosts every rank is its own: the network prices every message' '
	ibsim -q -p both.params fan.goal >a.out && ends a.out >got &&
	ibsim -q -p net.params fan.goal >n.out && ends n.out >want && test_cmp want got &&
	# rank 1: arrives at 1 us, + 200 ns; rank 2: sent at 100 ns, arrives at 1.1 us, + 200 ns
	printf "0 200000\n1 1200000\n2 1300000\n" >want && test_cmp want got &&
	head -n 1 a.out | grep -q " model=piecewise intra=piecewise ranks_per_host=1 ranks=3 "
'

test_expect_success 'ranks 0 and 1 on one host: their message goes through its memory' '
	ibsim -q -p both.params --ranks-per-host 2 fan.goal >h.out && ends h.out >got &&
	# rank 0 pays 10 ns for the intra-node send, then 100 ns for the network send;
	# rank 1: arrives at 100 ns + 100 ps (100 bytes at 1 ps), + 20 ns;
	# rank 2: sent at 10 ns, arrives at 1.01 us, + 200 ns
	printf "0 110000\n1 120100\n2 1210000\n" >want && test_cmp want got &&
	head -n 1 h.out | grep -q " intra=piecewise ranks_per_host=2 ranks=3 "
'

test_expect_success 'intra-node messages skip the NIC gaps; network messages still pay them' '
	# g = 1 us: two network sends in a row wait for the NIC; an intra-node one does not
	ibsim -q -p both.params -g 1us --ranks-per-host 2 fan.goal >g.out && ends g.out >got &&
	printf "0 110000\n1 120100\n2 1210000\n" >want && test_cmp want got &&
	ibsim -q -p both.params -g 1us fan.goal >g1.out && ends g1.out >got &&
	# the second network send waits for the NIC until g + 99*G = 1000594: it arrives
	# 1 us later, + 200 ns
	printf "0 1100594\n1 1200000\n2 2200594\n" >want && test_cmp want got
'

test_expect_success 'the intra-node model without the network piecewise model (LogGOPS across hosts)' '
	ibsim -q -p intra.params -L 3000 -o 500 -g 0 -G 0 --ranks-per-host 2 fan.goal >l.out && ends l.out >got &&
	# rank 0: 10 ns intra-node, then o = 500 ps; rank 2: sent at 10000, arrives at
	# 10000 + o + L = 13500, + o
	printf "0 10500\n1 120100\n2 14000\n" >want && test_cmp want got
'

test_expect_success 'intra_S: a rendezvous send between ranks of one host completes when its receiver is done' '
	cat both.params >r.params && echo "intra_S = 64" >>r.params &&
	printf "num_ranks 2\nrank 0 {\na: send 100b to 1 tag 0\nc: calc 1\nc requires a\n}\nrank 1 {\nr: recv 100b from 0 tag 0\n}\n" >rv.goal &&
	ibsim -q -p r.params --ranks-per-host 2 rv.goal >r.out && ends r.out >got &&
	# the send completes at 120100 (arrival + intra_recv_o), as a network rendezvous send
	# completes when its receiver is done (ibsim -S 64 without hosts: at 1.2 us)
	printf "0 120100\n1 120100\n" >want && test_cmp want got &&
	ibsim -q -p net.params -S 64 rv.goal >n.out && ends n.out >got &&
	printf "0 1200000\n1 1200000\n" >want && test_cmp want got &&
	ibsim -q -p both.params --ranks-per-host 2 rv.goal >e.out && ends e.out >got &&
	printf "0 10001\n1 120100\n" >want && test_cmp want got
'

test_expect_success 'intra_S with copy: the rendezvous protocol, the receiver'"'"'s work copy(s), not rndv_copy' '
	{ cat r.params; echo "copy = 0:5ns"; echo "rndv_copy = 0:0"; } >rc.params &&
	# the request arrives at 100100 and matches; the data travels intra_recv_o - copy =
	# 20000 - 5000 and is copied from 115100 to 120100 (rndv_copy is measured between hosts);
	# the send completes then, and calc c after it: 120101
	ibsim -q -p rc.params --ranks-per-host 2 -v rv.goal >rc.out 2>rc.err && ends rc.out >got &&
	printf "0 120101\n1 120100\n" >want && test_cmp want got &&
	grep -q "^100100 seq [0-9]* rank 1: message 0 from 0 tag 0 100 bytes (rendezvous) charged until 100100; matches recv .r.$" rc.err &&
	grep -q "^115100 seq [0-9]* rank 1: data of message 0 from 0 arrived, charged until 120100;" rc.err
'

test_expect_success 'the three keys come together: one alone is an error naming the missing ones' '
	echo "intra_send_o = 0:10ns" >one.params &&
	expect_fail 1 ibsim -p one.params fan.goal &&
	expect_err "ibsim: one.params:1: '"'"'intra_send_o'"'"' is set, but the piecewise model needs intra_send_o, intra_recv_o and intra_net_L together; intra_recv_o intra_net_L missing" &&
	echo "intra_net_L = 0:1x" >bad.params &&
	expect_fail 1 ibsim -p bad.params fan.goal &&
	grep -q "^ibsim: bad.params:1: .*intra_net_L" err
'

test_expect_success 'ibsim knows the keys: no warning' '
	ibsim -q -p both.params fan.goal >/dev/null 2>err && test ! -s err
'

test_done
