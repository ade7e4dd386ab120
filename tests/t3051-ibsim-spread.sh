#!/bin/sh
# ibsim with the spread of a call's cost (send_o_spread, recv_o_spread; formats/params.md,
# "The spread of a call's cost"): hand-derived end times with one factor, the draw of a
# factor per message (the same seed gives the same run, another seed another, the mean of
# the factors over many messages), --no-spread, and the errors of the keys.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

cat >one.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 100b to 1 tag 0
}
rank 1 {
r: recv 100b from 0 tag 0
}
EOF2
cat >pw.params <<'EOF2'
g = 0
G = 0
S = 1000
send_o = 0:8us; 64:10us+10ps; 1001:500ns
recv_o = 0:2us+1ps
net_L = 0:1us+5ps
EOF2

test_expect_success 'one factor each: send_o times 2, recv_o times 3; net_L unchanged' '
	{ cat pw.params; echo "send_o_spread = 2"; echo "recv_o_spread = 3"; } >sp.params &&
	# send_o(100) = 10001000 * 2; the arrival net_L(100) = 1000500, then recv_o(100) =
	# 2000100 * 3 = 6000300: 7000800
	ibsim -q -p sp.params one.goal >a.out && ends a.out >got && printf "0 20002000\n1 7000800\n" >want &&
	test_cmp want got
'

test_expect_success '--no-spread: the costs as the piecewise model gives them' '
	ibsim -q --no-spread -p sp.params one.goal >b.out && ends b.out >got &&
	ibsim -q -p pw.params one.goal >c.out && ends c.out >want &&
	test_cmp want got && printf "0 10001000\n1 3000600\n" >want && test_cmp want got
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
test_expect_success 'rendezvous: recv_o and send_o each by its factor, at the send and at the release alike' '
	# as t3007: rank 1 computes until 50000000, then pays recv_o(2000) = 2002000 times 3
	# (56006000); rank 0 is released then
	ibsim -q -p sp.params late.goal >r.out && ends r.out >got && printf "0 56006000\n1 56006000\n" >want &&
	test_cmp want got &&
	# send_o(2000) = 500ns times 200: rank 0 is busy until 100 us, past the release at 52002000
	{ cat pw.params; echo "send_o_spread = 200"; } >big.params &&
	ibsim -q -p big.params late.goal >r2.out && ends r2.out >got && printf "0 100000000\n1 52002000\n" >want &&
	test_cmp want got
'

# 2000 messages of 8 bytes from rank 0 to rank 1, each receive after a long calc, so that
# every message has arrived and rank 1 pays recv_o(8) = 2000008 ps times its factor
gen_many() {
	awk "BEGIN { print \"num_ranks 2\"; print \"rank 0 {\"; for (i = 0; i < 2000; i++) print \"s\" i \": send 8b to 1 tag 0\"
		print \"}\"; print \"rank 1 {\"; print \"c: calc 100000000000\"
		for (i = 0; i < 2000; i++) { print \"r\" i \": recv 8b from 0 tag 0\"; print \"r\" i \" requires \" (i ? \"r\" (i - 1) : \"c\") }
		print \"}\" }"
}

test_expect_success 'a factor drawn per message: the same seed the same run, another seed another, their mean' '
	gen_many >many.goal &&
	{ cat pw.params; echo "recv_o_spread = 1, 3"; } >two.params &&
	ibsim -q -p two.params many.goal >s1.out && ibsim -q -p two.params many.goal >s1b.out &&
	test_cmp s1.out s1b.out &&
	ibsim -q -p two.params --seed 2 many.goal >s2.out &&
	! cmp -s s1.out s2.out &&
	# rank 1: 100 ms of calc, then 2000 receives of 2000008 ps times 1 or 3, each drawn:
	# their mean is 2, the sum 8000032000 ps; the count of 3s has a standard deviation of
	# sqrt(2000) / 2 = 22 around 1000, 0.55 % of the sum: within 5 % by far
	for f in s1.out s2.out; do
		ends $f | awk "\$1 == 1 { s = \$2 - 100000000000; exit !(s > 0.95 * 8000032000 && s < 1.05 * 8000032000) }" || return 1
	done &&
	# only 1 or 3: the sum is 2000008 * (2000 + 2k), k the number of 3s
	ends s1.out | awk "\$1 == 1 { s = (\$2 - 100000000000) / 2000008; k = (s - 2000) / 2; exit !(k == int(k) && k > 0 && k < 2000) }"
'

test_expect_success 'the seed of the perturbation key (seed = N in the file) draws the same as --seed N' '
	{ cat two.params; echo "seed = 2"; } >seed2.params &&
	ibsim -q -p seed2.params many.goal >k2.out && ends k2.out >got && ends s2.out >want && test_cmp want got
'

test_expect_success 'bad spreads: file:line and exit 1' '
	for v in 0 -1 abc "1,,2" "1," 1001 inf nan 1e400; do
		{ cat pw.params; echo "recv_o_spread = $v"; } >b.params &&
		expect_fail 1 ibsim -q -p b.params one.goal &&
		grep -q "^ibsim: b.params:7: .recv_o_spread.: bad factor " err || { cat err; return 1; }
	done &&
	{ cat pw.params; echo "send_o_spread = 1 2"; } >b.params &&
	expect_fail 1 ibsim -q -p b.params one.goal &&
	grep -q "^ibsim: b.params:7: .send_o_spread.: expected .,. or the end after factor 1, found .2. in .1 2.$" err &&
	{ cat pw.params; printf "send_o_spread = 1"; for i in $(seq 64); do printf ",1"; done; echo; } >b.params &&
	expect_fail 1 ibsim -q -p b.params one.goal &&
	grep -q "^ibsim: b.params:7: .send_o_spread.: more than 64 factors in " err &&
	printf "S = 1000\nsend_o_spread = 2\n" >b.params &&
	expect_fail 1 ibsim -q -p b.params one.goal &&
	grep -q "^ibsim: b.params:2: .send_o_spread. is set, but it spreads a term of the piecewise model, which is not set" err
'

test_expect_success 'LogGOPS keys alone: a spread does not exist and nothing changes (--no-spread is the same run)' '
	printf "S = 1000\n" >lg.params &&
	ibsim -q -p lg.params one.goal >l1.out && ibsim -q --no-spread -p lg.params one.goal >l2.out && test_cmp l1.out l2.out
'

test_done
