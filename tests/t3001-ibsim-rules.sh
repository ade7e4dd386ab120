#!/bin/sh
# Every rule of the LogGOPS engine on a small schedule whose result is derived
# by hand in the comment above it (default parameters unless stated:
# L=2500 o=1500 g=1000 G=6 O=0 S=65535; s1 = max(size,1) - 1).
. "$(dirname "$0")/lib.sh"

ends() { awk -F'\t' 'NR > 2 { printf "%s%s:%s", s, $1, $2; s = " " } END { print "" }' "$1"; }
# run WANT SCHEDULE [OPTIONS...]
run() {
	want=$1
	sched=$2
	shift 2
	ibsim -q "$@" "$sched" >res 2>err || { cat err; return 1; }
	got=$(ends res)
	[ "$got" = "$want" ] || { echo "got '$got', want '$want'"; return 1; }
}
col() { awk -F'\t' -v c="$1" 'NR > 2 { printf "%s%s", s, $c; s = " " } END { print "" }' res; }

# calc: two independent calcs on one CPU. Both are ready at 0; the first runs
# [0,100); the second finds the CPU busy, is put back to 100, runs [100,300).
cat >calc.goal <<'EOF'
num_ranks 1
rank 0 {
a: calc 100
b: calc 200
}
EOF
test_expect_success 'calc: a busy CPU puts the second calc back' '
	run "0:300" calc.goal &&
	test "$(col 3)" = 300 &&
	ibsim calc.goal 2>err >/dev/null && grep -q " 1 put-backs;" err
'

# eager with O > G (-O 10): send at 0 costs the sender o + 9*O = 1590; arrival
# 0 + o + L = 4000; receiver o + 9*max(O,G) = 1590: 5590 = t + 2o + L + s1*max(G,O).
cat >eager.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
}
rank 1 {
r: recv 10b from 0 tag 0
}
EOF
test_expect_success 'eager: receive completes at t + 2o + L + s1*max(G,O)' '
	run "0:1590 1:5590" eager.goal -O 10 &&
	run "0:1500 1:5554" eager.goal &&
	test "$(col 4)" = "1 0" && test "$(col 5)" = "10 0"
'

# Back-to-back sends on one NIC are spaced by g + s1*G = 1000 + 999*6 = 6994.
# s1 at 0: cpu 1500, nic 6994. s2 (ready at 0) is put back to 6994: cpu 8494.
# Arrivals 4000 and 10994. Rank 1: m1 at 4000: cpu 4000+1500+5994 = 11494,
# recv nic 4000+6994 = 10994; m2 at 10994 finds the CPU busy, put back to
# 11494: cpu 11494 + 7494 = 18988.
cat >gap.goal <<'EOF'
num_ranks 2
rank 0 {
s1: send 1000b to 1 tag 0
s2: send 1000b to 1 tag 0
}
rank 1 {
r1: recv 1000b from 0 tag 0
r2: recv 1000b from 0 tag 0
}
EOF
test_expect_success 'NIC gap: sends spaced by g + s1*G; receiver put back' '
	run "0:8494 1:18988" gap.goal &&
	ibsim gap.goal 2>err >/dev/null && grep -q " 2 put-backs;" err
'

# Rendezvous, early receive (RQ path). Rank 1 posts at 0. The 100000-byte
# message (> S) leaves at 0 (rank 0 cpu 1500, nic 1000+99999*6 = 600994),
# arrives at 4000, is charged 4000+1500+599994 = 605494 and matches: the send
# is done at 4000 and rank 0's CPU is held until 4000. Its dependent calc 10
# is queued at cpu_free = 4000 and ends at 4010.
cat >rndv-early.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 100000b to 1 tag 0
c: calc 10
c requires s
}
rank 1 {
r: recv 100000b from 0 tag 0
}
EOF
test_expect_success 'rendezvous, early receive: sender released at arrival' '
	run "0:4010 1:605494" rndv-early.goal
'

# Rendezvous, late receive (UQ path): the message is charged when the CPU is
# free, before the receive is posted; the sender is released at posting.
# Rank 1: c [0,10000); the message (arrived 4000) is put back to 10000 and,
# queued before d (its number is older), charged [10000, 611494); d is put
# back to 611494 and runs [611494, 611499); r is then posted at 611499,
# matches the unexpected message and releases rank 0 at 611499.
cat >rndv-late.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 100000b to 1 tag 0
}
rank 1 {
c: calc 10000
d: calc 5
r: recv 100000b from 0 tag 0
d requires c
r requires d
}
EOF
test_expect_success 'rendezvous, late receive: charged early, sender released at posting' '
	run "0:611499 1:611499" rndv-late.goal
'

# irequires vs requires on a rendezvous send (early receive as above, message
# matched at 4000). irequires: c is ready when s starts, queued at cpu_free
# 1500, runs [1500,1600); at 4000 the match holds the CPU to 4000: end 4000.
# requires: c waits for the match at 4000 and runs [4000,4100).
sed 's/c requires s/c irequires s/; s/calc 10$/calc 100/' rndv-early.goal >ireq.goal
sed 's/calc 10$/calc 100/' rndv-early.goal >req.goal
test_expect_success 'irequires starts with the predecessor, requires waits for its end' '
	run "0:4000 1:605494" ireq.goal &&
	run "0:4100 1:605494" req.goal
'

# irequires on a receive: the dependent runs while the receive waits.
# Rank 1: r posted at 0; c irequires r runs [0,3000); the message (arrival
# 4000) is charged [4000,5554); d requires r: ready at 5554, runs to 5564.
cat >ireq-recv.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
}
rank 1 {
r: recv 10b from 0 tag 0
c: calc 3000
d: calc 10
c irequires r
d requires r
}
EOF
test_expect_success 'irequires on a receive: runs while it waits' '
	run "0:1500 1:5564" ireq-recv.goal
'

# Eager message before its receive (UQ path): rank 1's CPU is busy until
# 10000, the message (arrival 4000) is put back to 10000 and charged
# [10000,11554) as unexpected; r (queued after it) is posted at 10000 and
# matches at once: r is done at 10000, e is queued at cpu_free 11554, ends 11555.
cat >uq.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
}
rank 1 {
c: calc 10000
r: recv 10b from 0 tag 0
e: calc 1
r requires c
e requires r
}
EOF
# RQ path: r posted at 0, the message charged [4000,5554) matches it: r done
# at 5554 (the charge), e runs [5554,5555).
cat >rq.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
}
rank 1 {
r: recv 10b from 0 tag 0
e: calc 1
e requires r
}
EOF
test_expect_success 'unexpected-queue path and posted-receive path' '
	run "0:1500 1:11555" uq.goal &&
	run "0:1500 1:5555" rq.goal
'

# Wildcards and FIFO matching. Rank 2 posts w1 (any source, tag 7) then w2
# (any, any). Ranks 0 (tag 3) and 1 (tag 7) send at 0; both arrive at 4000,
# rank 0's message first (it was queued first). m0 charged [4000,5554): w1's
# tag does not fit, w2 matches. m1 is put back to 5554, charged [5554,7108),
# matches w1. The message log shows which receive each matched.
cat >wild.goal <<'EOF'
num_ranks 3
rank 0 {
s: send 10b to 2 tag 3
}
rank 1 {
s: send 10b to 2 tag 7
}
rank 2 {
w1: recv 10b from -1 tag 7
w2: recv 10b from -1 tag -1
}
EOF
test_expect_success 'wildcards: first posted receive whose source and tag fit' '
	ibsim -q --msglog log wild.goal >res &&
	test "$(ends res)" = "0:1500 1:1500 2:7108" &&
	awk -F"\t" "NR > 2 { print \$2, \$4, \$8, \$11 }" log >got &&
	printf "%s\n" "0 3 4000 1" "1 7 5554 0" >want &&
	test_cmp want got
'

# FIFO: two receives from 0 tag 0 of 10 and 20 bytes; rank 0 sends 20 then 10
# bytes. Sizes are not compared: the first message (20 bytes) matches the
# first receive (10 bytes) and is counted as larger than its receive.
cat >fifo.goal <<'EOF'
num_ranks 2
rank 0 {
a: send 20b to 1 tag 0
b: send 10b to 1 tag 0
}
rank 1 {
x: recv 10b from 0 tag 0
y: recv 20b from 0 tag 0
}
EOF
test_expect_success 'FIFO matching ignores sizes; an oversize message is warned about once' '
	ibsim -q --msglog log fifo.goal >res 2>err &&
	awk -F"\t" "NR > 2 { print \$5, \$11 }" log >got &&
	printf "%s\n" "20 0" "10 1" >want &&
	test_cmp want got &&
	test "$(grep -c warning err)" = 1 &&
	expect_err() { grep -qxF -- "$1" err; } &&
	expect_err "ibsim: warning: 1 message larger than the receive that matched it; first: 20 bytes from rank 0 into recv '"'"'x'"'"' (10 bytes) on rank 1"
'

# Several NICs: s1 on nic 0 and s2 on nic 1 share cpu 0. s1 at 0: cpu 1500,
# nic0 6994; s2 waits only for the CPU: starts 1500 (nic1 free), arrives 5500.
# Rank 1 charges each message to the sender's cpu/nic numbers: m1 at 4000 on
# cpu 0: [4000,11494); m2 at 5500 needs cpu 0 too: put back to 11494,
# [11494,18988).
cat >nics.goal <<'EOF'
num_ranks 2
rank 0 {
s1: send 1000b to 1 tag 0 nic 0
s2: send 1000b to 1 tag 1 nic 1
}
rank 1 {
r1: recv 1000b from 0 tag 0
r2: recv 1000b from 0 tag 1
}
EOF
# Several CPUs: s2 on cpu 1 nic 1 starts at 0 too; both arrive at 4000 and
# are charged in parallel on rank 1's cpus 0 and 1: both end at 11494.
sed 's/tag 1 nic 1/tag 1 cpu 1 nic 1/' nics.goal >cpus.goal
test_expect_success 'several NICs share a CPU; several CPUs run in parallel' '
	run "0:3000 1:18988" nics.goal &&
	run "0:1500 1:11494" cpus.goal
'

# Zero-byte messages cost no per-byte time (LogGOPSim charges -G): arrival
# 4000, receiver o: 5500. Two back-to-back: nic gap g = 1000 only, the second
# waits for the CPU (1500), arrives 5500, charged [5500,7000).
cat >zero.goal <<'EOF'
num_ranks 2
rank 0 {
a: send 0b to 1 tag 0
b: send 0b to 1 tag 0
}
rank 1 {
x: recv 0b from 0 tag 0
y: recv 0b from 0 tag 0
}
EOF
test_expect_success 'zero-byte messages: no per-byte cost' '
	run "0:3000 1:7000" zero.goal
'

# Order of newly ready ops (sends, then receives, then calcs, program order).
# At the start rank 0 has c (calc 2000), r, s in program order; s is queued
# first: it starts at 0 and arrives at rank 1 at 4000 (5554 with the charge).
# In program order the calc would have run first and the message arrived at 6000.
cat >order.goal <<'EOF'
num_ranks 2
rank 0 {
c: calc 2000
r: recv 10b from 1 tag 0
s: send 10b to 1 tag 0
}
rank 1 {
x: recv 10b from 0 tag 0
y: send 10b to 0 tag 0
}
EOF
# rank 0: s [0,1500), c put back to 1500, [1500,3500); y's message arrives at
# 4000, charged [4000,5554). Rank 1: y [0,1500); x's message at 4000 [4000,5554).
test_expect_success 'ready order: sends before receives before calcs' '
	run "0:5554 1:5554" order.goal
'

# Ranks in increasing order after an event (-G 0). Rank 1 posts r late: r
# requires c, a calc 6000 on cpu 1. Rank 0's rendezvous message arrives at
# 4000 and is charged on rank 1's cpu 0 (the sender's cpu number) [4000,5500)
# as unexpected. r is ready at 6000 (c's end), posted, matches: the one event
# completes rank 1's r and rank 0's s. b (rank 1) is queued at max(cpu 0 free
# 5500, r's end 6000) = 6000; a (rank 0) at max(cpu 6000, nic 6000) = 6000,
# both raised by the match. Queued rank 0 first, a starts first and its
# message reaches rank 2 first (both arrive at 10000): it matches w (any
# source), b's then matches x (source 1 only). The other order would leave x
# waiting and deadlock.
cat >rankorder.goal <<'EOF'
num_ranks 3
rank 0 {
s: send 100000b to 1 tag 0
a: send 1b to 2 tag 0
a requires s
}
rank 1 {
c: calc 6000 cpu 1
r: recv 100000b from 0 tag 0
b: send 1b to 2 tag 0
r requires c
b requires r
}
rank 2 {
w: recv 1b from -1 tag 0
x: recv 1b from 1 tag 0
}
EOF
# The mirror: rank 1 sends the rendezvous message to rank 0, which posts late;
# the event happens on rank 0 and rank 1's dependent still comes second.
cat >rankorder2.goal <<'EOF'
num_ranks 3
rank 0 {
c: calc 6000 cpu 1
r: recv 100000b from 1 tag 0
a: send 1b to 2 tag 0
r requires c
a requires r
}
rank 1 {
s: send 100000b to 0 tag 0
b: send 1b to 2 tag 0
b requires s
}
rank 2 {
w: recv 1b from -1 tag 0
x: recv 1b from 1 tag 0
}
EOF
test_expect_success 'ready ops of one event are queued in increasing rank order' '
	ibsim -q -G 0 --msglog log rankorder.goal >res &&
	test "$(ends res)" = "0:7500 1:7500 2:13000" &&
	awk -F"\t" "NR > 2 && \$3 == 2 { print \$2, \$7, \$11 }" log >got &&
	printf "%s\n" "0 10000 0" "1 10000 1" >want && test_cmp want got &&
	ibsim -q -G 0 --msglog log rankorder2.goal >res &&
	awk -F"\t" "NR > 2 && \$3 == 2 { print \$2, \$7, \$11 }" log >got &&
	test_cmp want got
'

# Difference 1: more than 16 ops ready at once keep program order. Rank 1
# posts 20 receives from 0 tag 0 of sizes 1..20; rank 0 sends 20 messages of
# sizes 1..20. In program order message i matches receive i: no oversize.
{
	echo "num_ranks 2"
	echo "rank 0 {"
	i=1; while [ $i -le 20 ]; do echo "s$i: send ${i}b to 1 tag 0"; i=$((i + 1)); done
	echo "}"
	echo "rank 1 {"
	i=1; while [ $i -le 20 ]; do echo "r$i: recv ${i}b from 0 tag 0"; i=$((i + 1)); done
	echo "}"
} >many.goal
test_expect_success 'difference 1: 20 ready receives are posted in program order' '
	ibsim -q --msglog log many.goal >res 2>err &&
	! grep -q warning err &&
	awk -F"\t" "NR > 2 { if (\$5 != \$11 + 1) bad = 1; n++ } END { exit bad || n != 20 }" log
'

# Difference 2: a calc on cpu 1 requiring a calc 1000 on cpu 0 starts at 1000
# (LogGOPSim starts it at 0, when cpu 1 is free): ends 1010.
cat >xcpu.goal <<'EOF'
num_ranks 1
rank 0 {
a: calc 1000
b: calc 10 cpu 1
b requires a
}
EOF
test_expect_success 'difference 2: no op starts before its predecessors on other CPUs' '
	run "0:1010" xcpu.goal
'

# Difference 4: the protocol follows the message size. A 100000-byte message
# into a 10-byte receive posted late is rendezvous: the sender is held until
# the receive is posted at 50000 (as in reference 2), and the oversize is
# warned about.
sed 's/recv 100000b/recv 10b/' rndv-late.goal >small.goal
test_expect_success 'difference 4: rendezvous decided by the message size' '
	run "0:611499 1:611499" small.goal &&
	grep -q "1 message larger than the receive" err
'
test_done
