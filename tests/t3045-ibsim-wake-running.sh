#!/bin/sh
# A message that reaches a rank while it runs wakes no one (docs/loggops-semantics.md
# section 8, "Waking a waiting rank"): with cpu_wait = block and a wake-up cost on a shared
# host, a message that arrives while its receiver computes, or while a send of it waits for a
# core, is taken in by the receiver's progress when it next runs, without a wake-up, even
# if another rank of its core took the core in between; a message that arrives while its
# receiver waits in MPI pays the wake-up.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

cat >q.params <<'EOF2'
send_o = 0:10ns
recv_o = 0:20ns
net_L = 0:100ns
EOF2

# ranks 0 and 1 share one core; rank 2 (a host of its own) sends to rank 0 at once
printf "num_ranks 3\nrank 0 {\nc: calc 1000000\nr: recv 0b from 2 tag 0\nr requires c\n}\nrank 1 {\nw: calc 500000\n}\nrank 2 {\nx: send 0b to 0 tag 0\n}\n" >b.goal

test_expect_success 'a message that came while its receiver computed: no wake-up when the core comes back' '
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-wake 1us b.goal >b.out && ends b.out >got &&
	# rank 0 computes [0, 1 us); the message arrives at 100 ns and waits for it; at 1 us rank
	# 1 takes the core for its calc, [1, 1.5 us); rank 0 takes the message in after it, 20 ns
	printf "0 1520000\n1 1500000\n2 10000\n" >want && test_cmp want got
'

test_expect_success 'a message that came while its receiver waited in MPI: woken' '
	printf "num_ranks 3\nrank 0 {\nr: recv 0b from 2 tag 0\n}\nrank 1 {\nw: calc 500000\n}\nrank 2 {\nx: send 0b to 0 tag 0\n}\n" >a.goal &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-wake 1us a.goal >a.out && ends a.out >got &&
	# rank 1 computes [0, 500 ns); the message arrives at 100 ns for rank 0, which waited:
	# 1 us + 20 ns when the core is free, [500, 1520 ns)
	printf "0 1520000\n1 500000\n2 10000\n" >want && test_cmp want got
'

test_expect_success 'a message that came while a send of its receiver waited for the core: no wake-up' '
	printf "num_ranks 3\nrank 0 {\nc: calc 50000\ns: send 0b to 2 tag 1\nr: recv 0b from 2 tag 0\ns requires c\n}\nrank 1 {\nw: calc 1000000\n}\nrank 2 {\nx: send 0b to 0 tag 0\ny: recv 0b from 0 tag 1\n}\n" >s.goal &&
	ibsim -q -p q.params --cores 1 --ranks-per-host 2 --cpu-wake 1us s.goal >s.out && ends s.out >got &&
	# rank 0 computes [0, 50 ns), rank 1 then [50 ns, 1.05 us); rank 0'"'"'s send waits for
	# the core, [1.05, 1.06 us), the message (arrived at 100 ns) is taken in after it, 20 ns
	printf "0 1080000\n1 1050000\n2 1170000\n" >want && test_cmp want got
'

test_done
