#!/bin/sh
# ibsim --net ib with the node model (docs/loggops-semantics.md section 8): the hosts whose
# cores the ranks share are those of the fabric placement, unless --ranks-per-host is given.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

cat >two.goal <<'EOF2'
num_ranks 2
rank 0 {
c: calc 10000
}
rank 1 {
c: calc 10000
}
EOF2

test_expect_success 'a placement file puts both ranks on host 0: they share its core' '
	printf "0\n0\n" >pl &&
	ibsim -q --net ib --topo star:2 --placement pl --cores 1 --quantum 3000 --cpu-wait spin two.goal >p.out && ends p.out >got &&
	printf "0 19000\n1 22000\n" >want && test_cmp want got &&
	head -n 1 p.out | grep -q " cores=1 ranks_per_host=placement cpu_wait=spin quantum=3000 "
'

test_expect_success 'the default placement, one rank per host: nothing changes' '
	ibsim -q --net ib --topo star:2 two.goal >plain.out &&
	ibsim -q --net ib --topo star:2 --cores 1 --quantum 3000 --cpu-wait spin two.goal >c.out &&
	tail -n +2 plain.out >want && tail -n +2 c.out >got && test_cmp want got
'

test_expect_success '--ranks-per-host wins over the placement' '
	ibsim -q --net ib --topo star:2 --cores 1 --quantum 3000 --ranks-per-host 2 --cpu-wait block two.goal >r.out &&
	ends r.out >got && printf "0 19000\n1 20000\n" >want && test_cmp want got &&
	head -n 1 r.out | grep -q " cores=1 ranks_per_host=2 cpu_wait=block "
'

test_expect_success 'messages between ranks of one shared host (spin)' '
	printf "num_ranks 2\nrank 0 {\ns: send 1b to 1 tag 0\n}\nrank 1 {\nr: recv 1b from 0 tag 0\n}\n" >m.goal &&
	printf "0\n0\n" >pl &&
	ibsim -q --net ib --topo star:2 --placement pl m.goal >a.out &&
	ibsim -q --net ib --topo star:2 --placement pl --cores 1 --quantum 1ms --cpu-wait spin m.goal >b.out &&
	a=$(awk "NR == 4 { print \$2 }" a.out) && b=$(awk "NR == 4 { print \$2 }" b.out) &&
	# rank 1 handles the message in its first slot, at 1 ms
	test "$a" -lt 1000000000 && test "$b" -gt 1000000000 && test "$b" -lt 1100000000
'

test_done
