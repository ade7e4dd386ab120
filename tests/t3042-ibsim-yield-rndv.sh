#!/bin/sh
# Waking a waiting rendezvous sender (docs/loggops-semantics.md section 8, "Waking a waiting
# rank"): with cpu_wait = block and cpu_yield on a shared host, a rendezvous sender that
# waits in MPI when its receiver releases it is woken too, a protocol step of its own:
# cpu_yield * (n - k) / k on the first core free from the release on. A sender busy at the
# release, an eager message, an unshared host or cpu_yield 0 pay nothing more.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

cat >q.params <<'EOF2'
send_o = 0:10ns
recv_o = 0:20ns
net_L = 0:100ns
S = 100
EOF2
# rank 0 sends 1000 bytes (above S: rendezvous) and then has a calc of 0
printf "num_ranks 2\nrank 0 {\ns: send 1000b to 1 tag 0\nc: calc 0\nc requires s\n}\nrank 1 {\nr: recv 1000b from 0 tag 0\n}\n" >rv.goal

test_expect_success 'without the node model: the send completes with the receiver charge' '
	ibsim -q -p q.params rv.goal >a.out && ends a.out >got &&
	# the data arrives at 100 ns, the receiver takes 20 ns: both end at 120 ns
	printf "0 120000\n1 120000\n" >want && test_cmp want got
'

test_expect_success 'two ranks on one core: the receiver and then the sender are woken' '
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-yield 1us rv.goal >y.out && ends y.out >got &&
	# the receiver waited: its charge is 1 us + 20 ns on the core, [100 ns, 1120 ns); the
	# sender waited too (its overhead ended at 10 ns) and is released at the match (100 ns):
	# its wake-up of 1 us takes the core when it is free, [1120 ns, 2120 ns)
	printf "0 2120000\n1 1120000\n" >want && test_cmp want got
'

test_expect_success 'two cores: the sender is woken on the other core at once' '
	printf "num_ranks 3\nrank 0 {\ns: send 1000b to 1 tag 0\nc: calc 0\nc requires s\n}\nrank 1 {\nr: recv 1000b from 0 tag 0\n}\nrank 2 {\n}\n" >rv3.goal &&
	ibsim -q -p q.params --cores 2 --ranks-per-host 3 --cpu-yield 1us rv3.goal >t.out && ends t.out >got &&
	# 3 ranks on 2 cores: (3 - 2) / 2 turns = 500 ns per wake-up; receiver [100, 620) ns,
	# sender [100, 600) ns on the other core; the send completes with the receiver charge
	printf "0 620000\n1 620000\n2 0\n" >want && test_cmp want got
'

test_expect_success 'a sender busy at the release, an eager message: no wake-up of the sender' '
	printf "num_ranks 2\nrank 0 {\ns: send 1000b to 1 tag 0\nc: calc 5000000\n}\nrank 1 {\nr: recv 1000b from 0 tag 0\n}\n" >busy.goal &&
	ibsim -q -p q.params --cores 2 --ranks-per-host 2 busy.goal >b0.out &&
	printf "num_ranks 3\nrank 0 {\ns: send 1000b to 1 tag 0\nc: calc 5000000\n}\nrank 1 {\nr: recv 1000b from 0 tag 0\n}\nrank 2 {\n}\n" >busy3.goal &&
	ibsim -q -p q.params --cores 2 --ranks-per-host 3 --cpu-yield 1us busy3.goal >b1.out && ends b1.out >got &&
	# rank 0 computes on its core from 10 ns to 5.01 us: busy at the release (100 ns); rank
	# 1 waited: 500 ns + 20 ns from 100 ns on the other core
	printf "0 5010000\n1 620000\n2 0\n" >want && test_cmp want got &&
	sed "s/1000b/50b/g" rv3.goal >eager.goal &&
	ibsim -q -p q.params --cores 2 --ranks-per-host 3 --cpu-yield 1us eager.goal >e.out && ends e.out >got &&
	# eager: the send ends with its overhead (10 ns); the receiver is woken: [100, 620) ns
	printf "0 10000\n1 620000\n2 0\n" >want && test_cmp want got
'

test_expect_success 'no shared host, or cpu_yield 0: the run without it' '
	ibsim -q -p q.params --cores 2 --ranks-per-host 2 --cpu-yield 1us rv.goal >n.out && ends n.out >got &&
	ends a.out >want && test_cmp want got &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 rv.goal >z.out && ends z.out >got &&
	printf "0 120000\n1 120000\n" >want && test_cmp want got
'

test_done
