#!/bin/sh
# Waking a waiting rank on a shared host (docs/loggops-semantics.md section 8, cpu_yield):
# with cpu_wait = block, a message handled by a rank that waited in MPI on a host of n
# ranks and k < n cores costs it cpu_yield * (n - k) / k more, on a core; a rank that was
# busy when its message came pays nothing more, nor does any rank of an unshared host;
# cpu_wake adds the same to every wake-up, whatever the turns.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

cat >q.params <<'EOF2'
send_o = 0:10ns
recv_o = 0:20ns
net_L = 0:100ns
EOF2

test_expect_success 'a ping-pong: every message wakes its receiver' '
	goalgen pingpong 2 --reps 3 --size 0 >pp.goal &&
	ibsim -q -p q.params pp.goal >a.out && ends a.out >got &&
	# one way 100 + 20 ns, six of them
	printf "0 720000\n1 610000\n" >want && test_cmp want got &&
	# 2 ranks on 1 core: (2 - 1) / 1 = 1 turn of 1 us per message
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-yield 1us pp.goal >y.out && ends y.out >got &&
	printf "0 6720000\n1 5610000\n" >want && test_cmp want got &&
	head -n 1 y.out | grep -q " cpu_wait=block quantum=4000000000 cpu_yield=1000000 ranks=2 "
'

test_expect_success 'the turns grow with the ranks per core: (n - k) / k' '
	goalgen pingpong 8 --reps 3 --size 0 >pp8.goal &&
	# 8 ranks on 2 cores: 3 turns of 500 ns per message, 6 messages: 9 us more
	ibsim -q -p q.params --cores 2 --ranks-per-host 8 --cpu-yield 500ns pp8.goal >y8.out && ends y8.out >got &&
	head -n 2 got >got2 && printf "0 9720000\n1 8110000\n" >want && test_cmp want got2 &&
	# 8 ranks on 3 cores: 5/3 turns of 1 ns: 1667 ps per message (rounded)
	ibsim -q -p q.params --cores 3 --ranks-per-host 8 --cpu-yield 1ns pp8.goal >y3.out && ends y3.out >got &&
	head -n 1 got >got1 && echo "0 $((720000 + 6 * 1667))" >want && test_cmp want got1
'

test_expect_success 'cpu_bind = core: the turns are those of the other ranks bound to the core' '
	printf "num_ranks 3\nrank 0 {\ns: send 0b to 1 tag 0\nr: recv 0b from 1 tag 0\nr requires s\n}\nrank 1 {\nr: recv 0b from 0 tag 0\ns: send 0b to 0 tag 0\ns requires r\n}\nrank 2 {\n}\n" >pp3.goal &&
	# 3 ranks on 2 cores, any core: (3 - 2) / 2 turns of 1 us = 500 ns per wake-up: rank 1
	# handles [100, 620) ns and answers [620, 630); rank 0 handles [720, 1240)
	ibsim -q -p q.params --cores 2 --ranks-per-host 3 --cpu-yield 1us pp3.goal >n3.out && ends n3.out >got &&
	printf "0 1240000\n1 630000\n2 0\n" >want && test_cmp want got &&
	# bound: rank 0 shares core 0 with rank 2 (1 turn, 1 us), rank 1 has core 1 (none):
	# rank 1 handles [100, 120), answers [120, 130); rank 0 handles [220, 1240)
	ibsim -q -p q.params --cores 2 --ranks-per-host 3 --cpu-yield 1us --cpu-bind core pp3.goal >c3.out && ends c3.out >got &&
	printf "0 1240000\n1 130000\n2 0\n" >want && test_cmp want got
'

test_expect_success 'a rank busy when its message arrives polls it itself: no wake-up' '
	printf "num_ranks 2\nrank 0 {\ns: send 0b to 1 tag 0\n}\nrank 1 {\nc: calc 1000000\nr: recv 0b from 0 tag 0\nr requires c\n}\n" >busy.goal &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-yield 1us busy.goal >b.out && ends b.out >got &&
	# rank 0 sends at 0 (10 ns on the core); rank 1 computes from 10 ns (the core was taken)
	# to 1.01 us and handles the message then: + 20 ns
	printf "0 10000\n1 1030000\n" >want && test_cmp want got
'

test_expect_success 'no shared host, spin, or cpu_yield 0: the run without it' '
	ibsim -q -p q.params --cores 2 --ranks-per-host 2 --cpu-yield 1us pp.goal >n1.out && ends n1.out >got &&
	ends a.out >want && test_cmp want got &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-wait spin --quantum 1ns --cpu-yield 1us pp.goal >s1.out &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-wait spin --quantum 1ns pp.goal >s0.out &&
	ends s1.out >got && ends s0.out >want && test_cmp want got &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 pp.goal >z.out && ends z.out >got &&
	ends a.out >want && test_cmp want got &&
	! head -n 1 z.out | grep -q cpu_yield
'

test_expect_success 'cpu_wake: the same on every wake-up, on top of the turns' '
	# 2 ranks on 1 core (1 turn): cpu_wake 1 us is cpu_yield 1 us
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-wake 1us pp.goal >w.out && ends w.out >got &&
	ends y.out >want && test_cmp want got &&
	head -n 1 w.out | grep -q " quantum=4000000000 cpu_wake=1000000 ranks=2 " &&
	# 8 ranks on 2 cores (3 turns): 3 us + 3 x 1 us is 3 x 2 us
	ibsim -q -p q.params --cores 2 --ranks-per-host 8 --cpu-wake 3us --cpu-yield 1us pp8.goal >w8.out &&
	ibsim -q -p q.params --cores 2 --ranks-per-host 8 --cpu-yield 2us pp8.goal >y8b.out &&
	ends w8.out >got && ends y8b.out >want && test_cmp want got &&
	# no shared host: nothing
	ibsim -q -p q.params --cores 2 --ranks-per-host 2 --cpu-wake 1us pp.goal >w2.out && ends w2.out >got &&
	ends a.out >want && test_cmp want got &&
	echo "cpu_wake = 3 parsecs" >badw.params &&
	expect_fail 1 ibsim -p badw.params pp.goal &&
	grep -q "^ibsim: badw.params:1: invalid time for .cpu_wake." err
'

test_expect_success 'the key in a file, and a bad value' '
	cat q.params >k.params && printf "cores = 1\nranks_per_host = 2\ncpu_yield = 1us\n" >>k.params &&
	ibsim -q -p k.params pp.goal >k.out && ends k.out >got && ends y.out >want && test_cmp want got &&
	echo "cpu_yield = 1xs" >bad.params &&
	expect_fail 1 ibsim -p bad.params pp.goal &&
	grep -q "^ibsim: bad.params:1: invalid time for .cpu_yield." err &&
	expect_fail 2 ibsim --cpu-yield -1 pp.goal &&
	grep -q "cpu-yield" err
'

test_done
