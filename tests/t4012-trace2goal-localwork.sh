#!/bin/sh
# trace2goal: the local work of collectives (docs/trace2goal.md, "Local work"). With `copy`
# and `reduce` in -p, the copy of a rank's own block and every combine of received data
# become calcs among the collective's operations, priced copy(bytes) and reduce(bytes);
# without the keys the schedule is byte for byte the one without them. --durations prices
# a message to oneself copy(s) (ibsim's model) and subtracts the local work's calcs too.
# Exact values on a handwritten 3-rank trace, counts on a recorded one (every collective).
. "$(dirname "$0")/lib.sh"
REC="$TOP/tests/t4004-trace2goal-sync/collectives"

# Every rank (times in us after Init at 1000000): Allreduce of 100 ints at +10 lasting 10,
# Alltoall of 10 ints per rank at +30 lasting 10, Gather of 10 ints to root 0 at +50 lasting
# 10, a Send of 1000 B to itself at +70 lasting 1, its Recv at +72 lasting 1, Finalize at +80.
mkdir tr
for r in 0 1 2; do
	cat >tr/rank-$r.trace <<EOF
# allprof 1.0 trace format 1
# rank: $r of 3
# comm 0 0,1,2
# comm 1 $r
MPI_Init:999990.000:1:2:1000000.000
MPI_Allreduce:1000010.000:4096:8192:100:1,4,4:3:0,$r,3:1000020.000
MPI_Alltoall:1000030.000:4096:10:1,4,4:8192:10:1,4,4:0,$r,3:1000040.000
MPI_Gather:1000050.000:4096:10:1,4,4:8192:10:1,4,4:0:0,$r,3:1000060.000
MPI_Send:1000070.000:4096:1000:1,1,1:$r:5:0,$r,3:1000071.000
MPI_Recv:1000072.000:8192:1000:1,1,1:$r:5:0,$r,3:$r,5,1000:1000073.000
MPI_Finalize:1000080.000:1000080.100
# end 7 0
EOF
done
# o = 1 us, nothing else: a send and a receive each model 1 us (L, O, G are 0).
printf 'L = 0\no = 1us\ng = 0\nG = 0\nO = 0\nS = 100000\n' >base.params
# copy(s) = 100 ns + s ps, reduce(s) = 50 ns + 2 ps per byte
cp base.params lw.params
printf 'copy = 0:100ns+1ps\nreduce = 0:50ns+2ps/B\n' >>lw.params

# rank GOAL RANK: the rank's block without its braces
rank() { sed -n "/^rank $2 {/,/^}/p" "$1" | sed '1d;$d'; }
# calcs GOAL RANK: the values of the rank's calcs, one a line
calcs() { rank "$1" "$2" | grep "^l[0-9]*: calc " | sed 's/^l[0-9]*: calc //'; }

test_expect_success 'a combine after each combined receive, required by what forwards it' '
	trace2goal -p lw.params tr >a.goal 2>err && test ! -s err &&
	# recursive doubling of 3 ranks: rank 1 receives rank 0 (pre-phase), combines (50 ns +
	# 400 * 2 ps), exchanges with 2 after it, combines, sends the result back to 0
	rank a.goal 1 | sed -n "1,13p" >got &&
	cat >want <<-\EOF &&
	l1: recv 400b from 0 tag 1073741824
	l2: calc 50800
	l3: send 400b to 2 tag 1073741824
	l4: recv 400b from 2 tag 1073741824
	l5: calc 50800
	l6: send 400b to 0 tag 1073741824
	l7: calc 10000000
	l2 requires l1
	l3 requires l2
	l4 requires l2
	l5 requires l4
	l6 requires l5
	l1 requires l7
	EOF
	test_cmp want got &&
	# rank 2 combines once (its exchange with 1), rank 0 never (it gets the result)
	rank a.goal 2 | sed -n "1,3p" >got &&
	printf "l1: send 400b to 1 tag 1073741824\nl2: recv 400b from 1 tag 1073741824\nl3: calc 50800\n" >want &&
	test_cmp want got &&
	! rank a.goal 0 | grep -q "calc 50800"
'

test_expect_success 'the copy of the own block: first, in Alltoall everywhere, in Gather at the root' '
	# 40 bytes: 100 ns + 40 ps; gaps 10 us, joins 0, the self Send and Recv no calc of their own
	printf "%s\n" 10000000 0 100040 10000000 0 100040 10000000 0 10000000 1000000 7000000 >want &&
	calcs a.goal 0 >got && test_cmp want got &&
	rank a.goal 0 | grep -A1 "^l5: calc 100040$" | sed -n 2p >got &&
	echo "l6: send 40b to 1 tag 1073741825" >want && test_cmp want got &&
	printf "%s\n" 50800 50800 10000000 0 100040 10000000 0 10000000 0 10000000 1000000 7000000 >want &&
	calcs a.goal 1 >got && test_cmp want got &&
	# the copy requires nothing inside the call, only the gap calc
	rank a.goal 1 | grep "^l9 requires" >got && echo "l9 requires l14" >want && test_cmp want got
'

test_expect_success 'coll_copy prices the own block; copy stays the price of a message to oneself' '
	# coll_copy(40) = 20 ns + 40 * 0.5 ps: the library'"'"'s local copy (formats/params.md)
	cp lw.params cc.params && echo "coll_copy = 0:20ns+0.5ps" >>cc.params &&
	trace2goal -p cc.params tr >cc.goal 2>err && test ! -s err &&
	printf "%s\n" 10000000 0 20020 10000000 0 20020 10000000 0 10000000 1000000 7000000 >want &&
	calcs cc.goal 0 >got && test_cmp want got &&
	# the schedule differs from the one with copy only in those calcs
	sed "s/calc 100040\$/calc 20020/" a.goal >want && test_cmp want cc.goal &&
	# coll_copy alone: the own block is copied, the message to oneself crosses the network
	cp base.params cconly.params && echo "coll_copy = 0:20ns+0.5ps" >>cconly.params &&
	trace2goal -p cconly.params tr >cconly.goal 2>err && test ! -s err &&
	calcs cconly.goal 2 | grep -c "^20020\$" >got && echo 1 >want && test_cmp want got &&
	ibsim -q -p cc.params cc.goal >/dev/null 2>err && test ! -s err &&
	ibsim -q -p cconly.params cconly.goal >/dev/null 2>err && test ! -s err
'

test_expect_success 'a bad coll_copy in -p: exit 1 naming file, line and key' '
	printf "o = 1us\ncoll_copy = 0:1us+2 pears\n" >badcc.params &&
	expect_fail 1 trace2goal -p badcc.params tr &&
	expect_err "trace2goal: badcc.params:2: invalid segment for '\''coll_copy'\'': '\''0:1us+2 pears'\'': bad per-byte time (expected a number of ps per byte with at most 3 decimals, optionally ns, e.g. 85.3ps)" &&
	test ! -s out
'

test_expect_success 'without copy and reduce the schedule is the one without the keys, byte for byte' '
	trace2goal tr >plain.goal &&
	trace2goal -p base.params tr >base.goal && test_cmp plain.goal base.goal &&
	! grep -q "calc 50800\|calc 100040" base.goal &&
	trace2goal "$REC" >rplain.goal 2>/dev/null &&
	trace2goal -p base.params "$REC" >rbase.goal 2>/dev/null && test_cmp rplain.goal rbase.goal
'

test_expect_success 'a recorded run (every collective, 3 ranks): the calcs each rank does' '
	# the first round, on MPI_COMM_WORLD with 4-byte blocks: copy 100004 ps, reduce 50008 ps
	trace2goal -q -p lw.params --from "^MPI_Barrier\$" --to "^MPI_Comm_rank\$" "$REC" >r.goal &&
	trace2goal -q --from "^MPI_Barrier\$" --to "^MPI_Comm_rank\$" "$REC" >r0.goal &&
	for r in 0 1 2; do
		calcs r.goal $r | sort >a$r && calcs r0.goal $r | sort >b$r &&
		comm -23 a$r b$r | uniq -c | sed "s/^ *//" >added$r && comm -13 a$r b$r >gone$r &&
		test ! -s gone$r || return 1
	done &&
	# copies (blocking and nonblocking forms): 2 x (alltoall, alltoallv, alltoallw, allgather,
	# allgatherv) on every rank, 2 x (gather, gatherv, scatter, scatterv) at the root 0;
	# combines: reduce and ireduce (binomial, root 0: 2 each), allreduce x2 (recdoub of 3:
	# 0, 2, 1), iallreduce (binomial reduce to 0 + bcast: root 0 combines 2), reduce_scatter and
	# reduce_scatter_block (ring: 2 each), their nonblocking forms (binomial reduce of all 12
	# bytes to 0, 50024 ps: root 0 combines 2 each), scan and iscan (1 on ranks 1, 2), exscan
	# and iexscan (rank 1 forwards)
	printf "18 100004\n10 50008\n4 50024\n" >want && test_cmp want added0 &&
	printf "10 100004\n12 50008\n" >want && test_cmp want added1 &&
	printf "10 100004\n8 50008\n" >want && test_cmp want added2 &&
	goalc -o r.goalb r.goal && ibsim -q -p lw.params r.goalb >sim.tsv
'

test_expect_success 'the whole recorded run with local work simulates, also with --sync' '
	trace2goal -q -p lw.params "$REC" >all.goal && goalc -o all.goalb all.goal &&
	ibsim -q -p lw.params all.goalb >all.tsv &&
	trace2goal -q -p lw.params --durations --sync "$REC" >sync.goal && goalc -o sync.goalb sync.goal &&
	ibsim -q --async-progress -p lw.params sync.goalb >sync.tsv &&
	trace2goal -q -p lw.params --coll allreduce=ring,reduce=linear,scan=recdoub,exscan=recdoub,reduce_scatter=reduce_scatterv,allgather=bruck "$REC" >alg.goal &&
	goalc -o alg.goalb alg.goal && ibsim -q -p lw.params alg.goalb >alg.tsv
'

test_expect_success '--durations: a message to oneself models copy(s), the local work its calcs' '
	trace2goal -p lw.params --durations tr >d.goal &&
	# Allreduce: rank 0 models 2 us, rank 1 two messages each way and two combines
	#   (4 us + 101600 ps), rank 2 one each way and one (2 us + 50800 ps): 10 + 10 us - model
	# Alltoall: 4 us + the copy; Gather at the root: 2 us + the copy, elsewhere 1 us
	# Send to itself: copy(1000) = 101000 ps: 10 + 1 us - 101000 ps; its Recv models 0: 1 + 1 us
	printf "%s\n" 18000000 0 100040 15899960 0 100040 17899960 0 10899000 2000000 7000000 >want &&
	calcs d.goal 0 >got && test_cmp want got &&
	printf "%s\n" 50800 50800 15898400 0 100040 15899960 0 19000000 0 10899000 2000000 7000000 >want &&
	calcs d.goal 1 >got && test_cmp want got &&
	printf "%s\n" 50800 17949200 0 100040 15899960 0 19000000 0 10899000 2000000 7000000 >want &&
	calcs d.goal 2 >got && test_cmp want got &&
	# without copy the message to oneself models o (1 us) and o + L (1 us) as any message
	trace2goal -p base.params --durations tr >n.goal &&
	calcs n.goal 0 | tail -3 >got && printf "%s\n" 10000000 1000000 7000000 >want && test_cmp want got
'

test_expect_success '--cpu-scale multiplies the local work like every calc' '
	trace2goal -p lw.params --cpu-scale 0.5 tr >h.goal &&
	calcs h.goal 1 | head -2 >got && printf "25400\n25400\n" >want && test_cmp want got &&
	calcs h.goal 0 | sed -n 3p >got && echo 50020 >want && test_cmp want got
'

test_expect_success 'MPI_IN_PLACE: the own block is not copied' '
	trace2goal -p lw.params "$TOP/tests/t4008-trace2goal-inplace" >ip.goal &&
	trace2goal "$TOP/tests/t4008-trace2goal-inplace" >ip0.goal &&
	test_cmp ip0.goal ip.goal
'

test_expect_success 'a bad copy or reduce in -p: exit 1 naming file, line and key' '
	printf "o = 1us\ncopy = 0:1us+3xs\n" >bad.params &&
	expect_fail 1 trace2goal -p bad.params tr &&
	expect_err "trace2goal: bad.params:2: invalid segment for '\''copy'\'': '\''0:1us+3xs'\'': bad per-byte time (expected a number of ps per byte with at most 3 decimals, optionally ns, e.g. 85.3ps)" &&
	test ! -s out &&
	printf "reduce = 8:1us\n" >bad2.params &&
	expect_fail 1 trace2goal -p bad2.params tr &&
	expect_err "trace2goal: bad2.params:1: invalid piecewise function for '\''reduce'\'': the first segment must start at size 0, found '\''8:1us'\''" &&
	printf "L = 0\nreduce = 0:1us; 0:2us\n" >bad3.params &&
	expect_fail 1 trace2goal -p bad3.params --durations tr &&
	expect_err "trace2goal: bad3.params:2: invalid piecewise function for '\''reduce'\'': segment '\''0:2us'\'' does not start above the previous one" &&
	printf "copy = 0:1 apple\n" >bad4.params &&
	expect_fail 1 trace2goal -p bad4.params tr &&
	expect_err "trace2goal: bad4.params:1: invalid segment for '\''copy'\'': '\''0:1 apple'\'': bad time '\''1 apple'\'' (a number with an optional unit ps, ns, us, ms or s)"
'

test_done
