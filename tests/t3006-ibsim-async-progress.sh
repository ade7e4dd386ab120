#!/bin/sh
# ibsim --async-progress (params key async_progress = yes): a message is handled when it
# arrives instead of when its CPU is idle (LogGOPSim's rule, the default); its overhead is
# added to the CPU's work. Hand-derived end times, and the case it is for: a --sync replay
# of a rendezvous message whose receiver computes while the real library progressed.
. "$(dirname "$0")/lib.sh"

P="-L 1000 -o 100 -g 0 -G 0 -O 1 -S 1000"
ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2 }'; }

# Rank 1 computes on CPU 0 from 0 to 10000 with its receive posted; the eager message (10 B,
# s1 = 9) arrives at o + L = 1100. A send on CPU 1 waits for the receive.
cat >e.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
q: recv 10b from 1 tag 1
}
rank 1 {
r: recv 10b from 0 tag 0
w: calc 10000
y: send 10b to 0 tag 1 cpu 1
y requires r
}
EOF

test_expect_success 'default: the message waits for the idle CPU' '
	# handled at 10000: CPU 0 free at 10000 + 100 + 9 = 10109, the receive done then; y
	# sends at 10109 (CPU 1 busy until 10218), rank 0 handles it at 10109 + 1100 = 11209,
	# done at 11209 + 109 = 11318
	ibsim -q $P e.goal >d.out && ends d.out >got && printf "0 11318\n1 10218\n" >want && test_cmp want got &&
	! grep -q async_progress d.out
'

test_expect_success '--async-progress: handled on arrival, its overhead added to the CPU'"'"'s work' '
	# handled at 1100: the receive is done at 1209; CPU 0 had 8900 of work left, so it is
	# free at 1209 + 8900 = 10109; y sends at 1209 (CPU 1 until 1318), rank 0 handles it at
	# 2309 and is done at 2418
	ibsim -q $P --async-progress e.goal >a.out && ends a.out >got && printf "0 2418\n1 10109\n" >want &&
	test_cmp want got &&
	head -n 1 a.out | grep -q " O_rndv=1 async_progress=yes ranks=2 "
'

test_expect_success '--async-progress: a send that becomes ready while its CPU works starts at once' '
	# x (CPU 1) ends at 500 and releases s; CPU 0 computes w until 10000. Default: s waits,
	# sends at 10000 (CPU 0 until 10109), the message is charged at 11100 until 11209.
	# Async: s sends at 500 (o + s1*O = 109), CPU 0 had 9500 of work left: free at 10109;
	# the message arrives at 1600 and is charged until 1709
	printf "num_ranks 2\nrank 0 {\nw: calc 10000\nx: calc 500 cpu 1\ns: send 10b to 1 tag 0\ns requires x\n}\n" >as.goal &&
	printf "rank 1 {\nr: recv 10b from 0 tag 0\n}\n" >>as.goal &&
	ibsim -q $P as.goal >as1.out && ends as1.out >got && printf "0 10109\n1 11209\n" >want && test_cmp want got &&
	ibsim -q $P --async-progress as.goal >as2.out && ends as2.out >got && printf "0 10109\n1 1709\n" >want &&
	test_cmp want got
'

test_expect_success 'a rendezvous sender is released when its message arrives' '
	printf "num_ranks 2\nrank 0 {\ns: send 100000b to 1 tag 0\nc: calc 5000\nc requires s\n}\n" >r.goal &&
	printf "rank 1 {\nr: recv 100000b from 0 tag 0\nw: calc 10000\n}\n" >>r.goal &&
	# default: the request waits for rank 1'"'"'s CPU (10000); rank 0'"'"'s calc 5000 after it
	ibsim -q -L 1000 -o 100 -g 0 -G 0 -O 0 -S 1000 r.goal >r1.out && ends r1.out >got &&
	printf "0 15000\n1 10100\n" >want && test_cmp want got &&
	# on arrival (1100): the sender is released at 1100
	ibsim -q -L 1000 -o 100 -g 0 -G 0 -O 0 -S 1000 --async-progress r.goal >r2.out && ends r2.out >got &&
	printf "0 6100\n1 10100\n" >want && test_cmp want got
'

test_expect_success 'async_progress from a parameter file; a bad value names the file and line' '
	printf "L = 1000\no = 100\ng = 0\nG = 0\nO = 1\nS = 1000\nasync_progress = yes\n" >y.params &&
	ibsim -q -p y.params e.goal >y.out && ends y.out >got && printf "0 2418\n1 10109\n" >want && test_cmp want got &&
	printf "L = 1000\nasync_progress = sometimes\n" >bad.params &&
	expect_fail 1 ibsim -p bad.params e.goal &&
	expect_err "ibsim: bad.params:2: invalid async_progress '"'"'sometimes'"'"' (expected yes or no)"
'

# The charge of an eager message waits until an op that requires its receive waits for it
# (docs/loggops-semantics.md 6.2 item 3). Rank 1 posts r, computes c1 then c2, sends y and
# waits (j) for r and y; rank 0's message arrives at 1100, during c1.
cat >w.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
q: recv 10b from 1 tag 1
}
rank 1 {
r: recv 10b from 0 tag 0
c1: calc 5000
c2: calc 1000
y: send 10b to 0 tag 1
j: calc 0
c2 requires c1
y requires c2
j requires r
j requires y
}
EOF

test_expect_success '--async-progress: a message is charged when its receive is waited for' '
	# async: charged at 6109, once y is done and j waits (at its arrival, 1100, it would
	# push c2 to 5109-6109 and y to 6109, rank 0 done at 7318): c2 5000-6000, y at 6000 (CPU
	# until 6109), the charge 6109-6218, j then; rank 0 takes y at 7100 until 7209 (nothing
	# requires q: charged at once)
	ibsim -q $P --async-progress w.goal >w2.out && ends w2.out >got && printf "0 7209\n1 6218\n" >want &&
	test_cmp want got &&
	ibsim -q $P --async-progress --msglog w.log w.goal >/dev/null &&
	awk -F "\t" "\$1 == 0 { print \$6, \$7, \$8 }" w.log >got && echo "0 1100 1100" >want && test_cmp want got
'

test_expect_success '--async-progress: an unexpected message is charged from its posting on, when waited for' '
	# r posted after c1 (at 5000), the message waits in the UQ uncharged: same ends
	sed "s/^c2 requires c1/c2 requires c1\nr requires c1/" w.goal >u.goal &&
	ibsim -q $P --async-progress u.goal >u.out && ends u.out >got && printf "0 7209\n1 6218\n" >want &&
	test_cmp want got &&
	# j waits for r alone: charged at its posting, 5000-5109, added to the work of c2 (CPU
	# free at 6109); y goes out when c2 ends at 6000 and reaches rank 0 at 7100. Charged at
	# its arrival instead (1100), it would have pushed c2 to 5109-6109 and y to 6109 (7318).
	sed "/^j requires y/d" u.goal >u2.goal &&
	ibsim -q $P --async-progress u2.goal >u2.out && ends u2.out >got && printf "0 7209\n1 6218\n" >want &&
	test_cmp want got
'

test_expect_success '--async-progress: two receives waited for together are charged one after the other' '
	# rank 0 sends b at 3109 (after the o of a, and w); rank 1 waits (j) from 2000 for r1
	# (arrived at 1100) and r2 (arrives at 4209): r1 is charged 2000-2109, r2 on its
	# arrival 4209-4318
	printf "num_ranks 2\nrank 0 {\na: send 10b to 1 tag 0\nw: calc 3000\nb: send 10b to 1 tag 1\nb requires w\n}\n" >two.goal &&
	printf "rank 1 {\nr1: recv 10b from 0 tag 0\nr2: recv 10b from 0 tag 1\nc: calc 2000\nj: calc 0\nj requires r1\nj requires r2\nj requires c\n}\n" >>two.goal &&
	ibsim -q $P --async-progress two.goal >two.out && ends two.out >got &&
	printf "0 3218\n1 4318\n" >want && test_cmp want got
'

# A recorded rendezvous exchange: rank 0 sends 10000 bytes at +10 us and its Send returns
# at +60, when rank 1, which posted its Irecv at +5 and then computed, enters MPI_Wait.
mkdir tr
cat >tr/rank-0.trace <<'EOF'
# allprof 1.0 trace format 1
# rank: 0 of 2
# comm 0 0,1
# comm 1 0
MPI_Init:999990.000:1:2:1000000.000
MPI_Send:1000010.000:8192:10000:1,1,1:1:7:0,0,2:1000060.000
MPI_Finalize:1000070.000:1000070.100
# end 3 0
EOF
cat >tr/rank-1.trace <<'EOF'
# allprof 1.0 trace format 1
# rank: 1 of 2
# comm 0 0,1
# comm 1 1
MPI_Init:999990.000:1:2:1000000.000
MPI_Irecv:1000005.000:4096:10000:1,1,1:0:7:0,1,2:r1:1000005.200
MPI_Wait:1000060.000:r1:0,7,10000:1000060.500
MPI_Finalize:1000070.000:1000070.100
# end 4 0
EOF
printf "L = 0\no = 0\ng = 0\nG = 0\nO = 0\nS = 1000\n" >z.params

test_expect_success '--durations --sync on a network that costs nothing: exact with --async-progress' '
	trace2goal -p z.params --durations --sync tr | goalc -o z.goalb - &&
	# the Send'"'"'s 50 us are replayed after its completion; with the default rule ibsim
	# releases the sender only when rank 1 blocks (at +60), so they come 50 us late
	ibsim -q -p z.params z.goalb >zi.out && ends zi.out >got && printf "0 120000000\n1 70000000\n" >want &&
	test_cmp want got &&
	ibsim -q -p z.params --async-progress z.goalb >za.out && ends za.out >got &&
	printf "0 70000000\n1 70000000\n" >want && test_cmp want got
'

test_done
