#!/bin/sh
# The node model (docs/loggops-semantics.md section 8): hosts whose ranks share a number of
# cores, in time slices of a quantum; a rank blocked in MPI keeps its core (spin) or gives
# it up (block). Hand-derived end times, and runs without shared cores left unchanged.
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

test_expect_success 'the worked example, spin: a fixed rotation of 3000 ps slots' '
	# rank 0 owns [0,3000) [6000,9000) [12000,15000) [18000,...): 9000 done at 15000, the
	# last 1000 at 19000; rank 1 owns the odd slots: 9000 at 18000, the rest in [21000,22000)
	ibsim -q --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait spin two.goal >s.out && ends s.out >got &&
	printf "0 19000\n1 22000\n" >want && test_cmp want got &&
	head -n 1 s.out | grep -q " O_rndv=0 cores=1 ranks_per_host=2 cpu_wait=spin quantum=3000 ranks=2 "
'

test_expect_success 'the worked example, block: round-robin among the ranks that compute' '
	ibsim -q --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait block two.goal >b.out && ends b.out >got &&
	printf "0 19000\n1 20000\n" >want && test_cmp want got &&
	grep -q "^0	19000	10000	0	0$" b.out &&
	head -n 1 b.out | grep -q " cpu_wait=block quantum=3000 "
'

test_expect_success 'three ranks on two cores' '
	printf "num_ranks 3\nrank 0 {\nc: calc 2000\n}\nrank 1 {\nc: calc 2000\n}\nrank 2 {\nc: calc 2000\n}\n" >three.goal &&
	# spin, slot s runs positions 2s and 2s+1 mod 3: rank 0 slots 0 1, rank 1 slots 0 2,
	# rank 2 slots 1 2
	ibsim -q --cores 2 --ranks-per-host 3 --quantum 1000 --cpu-wait spin three.goal >t.out && ends t.out >got &&
	printf "0 2000\n1 3000\n2 3000\n" >want && test_cmp want got &&
	# block: ranks 0 and 1 take the cores at 0; rank 2 waits until 1000 and goes before
	# their second slices; rank 1 runs its second slice at 2000
	ibsim -q --cores 2 --ranks-per-host 3 --quantum 1000 --cpu-wait block three.goal >t.out && ends t.out >got &&
	test_cmp want got
'

test_expect_success 'cpu_bind = core: a rank runs only on core (position mod cores)' '
	printf "num_ranks 3\nrank 0 {\nc: calc 10000\n}\nrank 1 {\nc: calc 10000\n}\nrank 2 {\nc: calc 10000\n}\n" >b3.goal &&
	# any core: the three share both cores, round-robin in slices of 3000
	ibsim -q --cores 2 --ranks-per-host 3 --quantum 3000 b3.goal >b3n.out && ends b3n.out >got &&
	printf "0 13000\n1 14000\n2 16000\n" >want && test_cmp want got &&
	# bound: ranks 0 and 2 take turns on core 0 (the worked example), rank 1 has core 1
	ibsim -q --cores 2 --ranks-per-host 3 --quantum 3000 --cpu-bind core b3.goal >b3c.out && ends b3c.out >got &&
	printf "0 19000\n1 10000\n2 20000\n" >want && test_cmp want got &&
	head -n 1 b3c.out | grep -q " cpu_wait=block quantum=3000 cpu_bind=core ranks=3 " &&
	! head -n 1 b3n.out | grep -q cpu_bind &&
	ibsim -q --cores 2 --ranks-per-host 3 --quantum 3000 --cpu-bind none b3.goal >b3x.out && cmp b3n.out b3x.out &&
	printf "cores = 2\nranks_per_host = 3\nquantum = 3ns\ncpu_bind = core\n" >bind.params &&
	ibsim -q -p bind.params b3.goal >b3p.out && ends b3p.out >got &&
	printf "0 19000\n1 10000\n2 20000\n" >want && test_cmp want got
'

test_expect_success 'cpu_bind: bad values, and spin (its rotation places the ranks)' '
	expect_fail 2 ibsim --cores 2 --ranks-per-host 3 --cpu-bind socket b3.goal &&
	expect_err "ibsim: --cpu-bind: invalid cpu_bind '"'"'socket'"'"' (expected none or core)" &&
	printf "cores = 2\ncpu_bind = core\ncpu_wait = spin\n" >bs.params &&
	expect_fail 1 ibsim -p bs.params b3.goal &&
	expect_err "ibsim: bs.params:2: cpu_bind = core needs cpu_wait = block (spin'"'"'s rotation places the ranks itself)"
'

test_expect_success 'hosts are blocks of ranks_per_host ranks' '
	printf "num_ranks 4\n" >four.goal &&
	for r in 0 1 2 3; do printf "rank $r {\nc: calc 10000\n}\n" >>four.goal || return 1; done &&
	ibsim -q --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait spin four.goal >f.out && ends f.out >got &&
	printf "0 19000\n1 22000\n2 19000\n3 22000\n" >want && test_cmp want got &&
	# one host of four ranks, one core: rank r owns slots r, r+4, ...; 10000 is three
	# slots and a third: rank 0 ends at 24000 + 1000
	ibsim -q --cores 1 --ranks-per-host 4 --quantum 3000 --cpu-wait spin four.goal >f.out && ends f.out >got &&
	printf "0 37000\n1 40000\n2 43000\n3 46000\n" >want && test_cmp want got
'

cat >msg.goal <<'EOF2'
num_ranks 2
rank 0 {
s: send 1b to 1 tag 0
}
rank 1 {
r: recv 1b from 0 tag 0
}
EOF2
P="-L 1000 -o 100 -g 0 -G 0 -O 0"

test_expect_success 'spin: a message waits for the slot of its receiver' '
	# rank 0 sends in its slot [0,10000) (CPU until 100); the message arrives at 1100,
	# in rank 0s slot: rank 1 handles it at 10000, until 10100
	ibsim -q $P --cores 1 --ranks-per-host 2 --quantum 10000 --cpu-wait spin msg.goal >m.out && ends m.out >got &&
	printf "0 100\n1 10100\n" >want && test_cmp want got
'

test_expect_success 'block: the core is free, the message is handled on arrival' '
	ibsim -q $P --cores 1 --ranks-per-host 2 --quantum 10000 --cpu-wait block msg.goal >m.out && ends m.out >got &&
	printf "0 100\n1 1200\n" >want && test_cmp want got
'

test_expect_success 'block: an overhead waits for a core a calc holds' '
	printf "num_ranks 2\nrank 0 {\nc: calc 5000\n}\nrank 1 {\nr: recv 1b from 1 tag 0\ns: send 1b to 1 tag 0\n}\n" >w.goal &&
	# rank 0s calc holds the only core on [0,3000); rank 1s send waits, runs at 3000
	# (CPU until 3100); rank 0s second slice waits for it: [3100,5100); the message to
	# itself arrives at 4100 and is handled at 5100 (core free), until 5200
	ibsim -q $P --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait block w.goal >w.out && ends w.out >got &&
	printf "0 5100\n1 5200\n" >want && test_cmp want got
'

test_expect_success 'block: irequires dependents are released by the first slice' '
	printf "num_ranks 2\nrank 0 {\nc: calc 5000\ns: send 1b to 1 tag 0 cpu 1\ns irequires c\n}\n" >ir.goal &&
	printf "rank 1 {\nr: recv 1b from 0 tag 0\n}\n" >>ir.goal &&
	# c takes the core at 0 and releases s, which finds no core; the second slice of c, queued
	# first, runs [3000,5000); s runs [5000,5100); the message is handled at 6100, until 6200
	ibsim -q $P --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait block ir.goal >i.out && ends i.out >got &&
	printf "0 5100\n1 6200\n" >want && test_cmp want got
'

test_expect_success 'no shared host: the results are unchanged, to the byte' '
	goalgen dissemination 8 >d.goal &&
	ibsim -q d.goal >plain.out &&
	ibsim -q --cores 8 --ranks-per-host 8 --quantum 1 d.goal >c8.out &&
	ibsim -q --cores 2 d.goal >c2.out &&
	ibsim -q --cpu-scale 1 --perturb 0 d.goal >one.out &&
	tail -n +2 plain.out >want &&
	tail -n +2 c8.out >got && test_cmp want got &&
	tail -n +2 c2.out >got && test_cmp want got &&
	test_cmp plain.out one.out
'

test_expect_success 'all ranks on two cores: the work is shared, nothing is lost' '
	goalgen dissemination 8 >d.goal &&
	ibsim -q -p /dev/null d.goal >plain.out &&
	ibsim -q --cores 2 --ranks-per-host 8 --quantum 1us --cpu-wait spin d.goal >spin.out &&
	ibsim -q --cores 2 --ranks-per-host 8 --quantum 1us --cpu-wait block d.goal >block.out &&
	p=$(awk "NR == 3 { print \$2 }" plain.out) &&
	s=$(awk "NR == 3 { print \$2 }" spin.out) &&
	b=$(awk "NR == 3 { print \$2 }" block.out) &&
	test "$s" -gt "$p" && test "$b" -gt "$p"
'

cat >err-wait <<'EOF2'
ibsim: bad.params:2: invalid cpu_wait 'yield' (expected spin or block)
EOF2
cat >err-cores <<'EOF2'
ibsim: --cores: invalid cores '0' (expected a whole number of at least 1)
EOF2
cat >err-quantum <<'EOF2'
ibsim: --quantum: invalid quantum '0' (expected a time of at least 1 ps)
EOF2

test_expect_success 'block is the default (MPI libraries yield on oversubscribed hosts)' '
	ibsim -q --cores 1 --ranks-per-host 2 --quantum 3000 two.goal >def.out &&
	head -n 1 def.out | grep -q " cpu_wait=block quantum=3000 " &&
	ibsim -q --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait block two.goal >blk.out &&
	cmp def.out blk.out
'

test_expect_success 'keys in a parameter file; bad values name their origin' '
	printf "cores = 1\nranks_per_host = 2\nquantum = 3ns\ncpu_wait = block\n" >n.params &&
	ibsim -q -p n.params two.goal >p.out && ends p.out >got &&
	printf "0 19000\n1 20000\n" >want && test_cmp want got &&
	printf "cores = 1\ncpu_wait = yield\n" >bad.params &&
	expect_fail 1 ibsim -p bad.params two.goal &&
	expect_err "$(cat "$TRASH/err-wait")" &&
	expect_fail 2 ibsim --cores 0 two.goal &&
	expect_err "$(cat "$TRASH/err-cores")" &&
	expect_fail 2 ibsim --quantum 0 two.goal &&
	expect_err "$(cat "$TRASH/err-quantum")" &&
	expect_fail 1 ibsim --cores 1 --ranks-per-host 2 --cpu-wait block --async-progress two.goal &&
	expect_err "ibsim: cpu_wait = block with shared cores cannot be combined with async_progress"
'
test_done
