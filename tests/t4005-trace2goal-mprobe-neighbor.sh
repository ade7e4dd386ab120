#!/bin/sh
# trace2goal: matched probes (Mprobe/Improbe/Mrecv/Imrecv: the Mrecv is the receive, of the
# source and tag the probe matched), neighbourhood collectives on the topologies allprof
# records (Cart_create, Cart_sub, Graph_create, Dist_graph_create_adjacent; blocking,
# nonblocking, v and w forms; MPI_PROC_NULL neighbours of non-periodic grids), checked by
# simulating with ibsim and counting each rank's messages and bytes; and liballprof's
# unknowns: Waitany/Waitsome take the earliest posted request, tests complete nothing, each
# warned once per rank.
. "$(dirname "$0")/lib.sh"

head_ap() { # head_ap RANK SIZE MEMBERS
	printf '# allprof 1.0 trace format 1\n# rank: %s of %s\n# comm 0 %s\n# comm 1 %s\nMPI_Init:-:0:0:1000.000\n' \
		"$1" "$2" "$3" "$1"
}
tail_ap() { printf 'MPI_Finalize:1100.000:1101.000\n# end 0 0\n'; }

# counts GOAL: "rank msgs bytes" from ibsim
counts() { ibsim -q "$1" | awk '!/^#/ && $1 != "rank" { print $1, $4, $5 }'; }

test_expect_success 'Mprobe + Mrecv, Improbe + Imrecv + Wait: receives of the matched messages' '
	mkdir mp && {
		head_ap 0 2 0,1
		echo "MPI_Mprobe:1001.000:-1:-1:0,0,2:m1:1,5,16:1002.000"
		echo "MPI_Mrecv:1002.500:5000:4:1,4,4:m1:1,5,16:1003.000"
		echo "MPI_Improbe:1003.500:1:-1:0,0,2:0:m0:-:3:1004.000"
		echo "MPI_Improbe:1004.500:1:-1:0,0,2:1:m2:1,6,8:1:1005.000"
		echo "MPI_Imrecv:1005.500:6000:2:1,4,4:m2:r1:1006.000"
		echo "MPI_Wait:1006.500:r1:1,6,8:1007.000"
		tail_ap
	} >mp/rank-0.trace && {
		head_ap 1 2 0,1
		echo "MPI_Send:1001.000:100:4:1,4,4:0:5:0,1,2:1001.500"
		echo "MPI_Send:1002.000:100:2:1,4,4:0:6:0,1,2:1002.500"
		tail_ap
	} >mp/rank-1.trace &&
	trace2goal mp >mp.goal 2>err && test ! -s err &&
	sed -n "/^rank 0/,/^}/p" mp.goal >r0 &&
	grep -qx "l1: calc 1000000" r0 && grep -qx "l2: recv 16b from 1 tag 5" r0 &&
	grep -qx "l4: recv 8b from 1 tag 6" r0 && grep -qx "l6 requires l4" r0 &&
	counts mp.goal >c && printf "0 0 0\n1 2 24\n" >want && test_cmp want c
'

test_expect_success 'Mprobe replays no duration of its own (the Mrecv waits), unless --sync' '
	trace2goal --durations mp >d.goal &&
	sed -n "/^rank 0/,/^}/p" d.goal | grep -qx "l1: calc 1000000" &&
	trace2goal --durations --sync mp >ds.goal &&
	sed -n "/^rank 0/,/^}/p" ds.goal | grep -qx "l3: calc 1000000"
'

test_expect_success 'Mrecv of a message no probe matched is an error' '
	mkdir mb && cp mp/* mb/ && sed -i "s/:m1:1,5,16:1003.000/:m7:1,5,16:1003.000/" mb/rank-0.trace &&
	expect_fail 1 trace2goal mb &&
	expect_err "trace2goal: mb/rank-0.trace:7: MPI_Mrecv: message '"'"'m7'"'"' was not matched by an earlier MPI_Mprobe or MPI_Improbe" &&
	sed -i "s/:m7:1,5,16:1003.000/:x7:1,5,16:1003.000/" mb/rank-0.trace &&
	expect_fail 1 trace2goal mb &&
	expect_err "trace2goal: mb/rank-0.trace:7: MPI_Mrecv: argument 4: expected a message '"'"'m<id>'"'"' or an address, found '"'"'x7'"'"'"
'

test_expect_success 'Mrecv of MPI_MESSAGE_NO_PROC (m0) receives nothing' '
	mkdir m0 && cp mp/* m0/ &&
	sed -i "/^MPI_Finalize/i MPI_Mrecv:1008.000:5000:4:1,4,4:m0:-2,-1,0:1009.000" m0/rank-0.trace &&
	trace2goal m0 >m0.goal && test $(grep -c ": recv" m0.goal) = 2
'

# 2x2 periodic grid: Neighbor_allgather (4 neighbours: 2 and 1 twice for rank 0), then
# Cart_sub keeping dimension 0 (two rings of 2) with Neighbor_alltoall
test_expect_success 'Cart_create 2x2 periodic and Cart_sub: every neighbour gets its block' '
	mkdir cart && for r in 0 1 2 3; do
		s=$((r / 2)) c1=$((r % 2))
		{
			head_ap $r 4 0,1,2,3
			echo "MPI_Cart_create:1001.000:0,$r,4:2:2,2:1,1:0:2,$r,4:1002.000"
			echo "# comm 2 0,1,2,3"
			echo "MPI_Neighbor_allgather:1003.000:100:2:1,4,4:200:2:1,4,4:2,$r,4:1004.000"
			echo "MPI_Cart_sub:1005.000:2,$r,4:1,0:3,$s,2:1006.000"
			echo "# comm 3 $c1,$((c1 + 2))"
			echo "MPI_Neighbor_alltoall:1007.000:100:3:1,4,4:200:3:1,4,4:3,$s,2:1008.000"
			tail_ap
		} >cart/rank-$r.trace
	done &&
	trace2goal cart >cart.goal 2>err && test ! -s err &&
	counts cart.goal >c && printf "0 6 56\n1 6 56\n2 6 56\n3 6 56\n" >want && test_cmp want c &&
	sed -n "/^rank 0/,/^}/p" cart.goal >r0 &&
	test $(grep -c ": send 8b to 2 tag" r0) = 2 && test $(grep -c ": send 8b to 1 tag" r0) = 2 &&
	test $(grep -c ": send 12b to 2 tag" r0) = 2
'

# 3 ranks: a non-periodic line (MPI_PROC_NULL at both ends) with Neighbor_alltoallv; a ring
# from Dist_graph_create_adjacent with Ineighbor_allgather + Wait; a full Graph_create with
# Neighbor_alltoallw (types 4 and 8 bytes)
test_expect_success 'non-periodic Cart, Dist_graph_create_adjacent, Graph_create: v, w, nonblocking forms' '
	mkdir g3 && for r in 0 1 2; do
		{
			head_ap $r 3 0,1,2
			echo "MPI_Cart_create:1001.000:0,$r,3:1:3:0:0:2,$r,3:1002.000"
			echo "# comm 2 0,1,2"
			echo "MPI_Neighbor_alltoallv:1003.000:100:7:1,2:8:0,1:1,4,4:200:9:2,1:10:0,2:1,4,4:2,$r,3:1004.000"
			echo "MPI_Dist_graph_create_adjacent:1005.000:0,$r,3:1:$(((r + 2) % 3)):1:$(((r + 1) % 3)):0:3,$r,3:1006.000"
			echo "# comm 3 0,1,2"
			echo "MPI_Ineighbor_allgather:1007.000:100:5:1,4,4:200:5:1,4,4:3,$r,3:r1:1008.000"
			echo "MPI_Wait:1009.000:r1:-2,-1,0:1010.000"
			echo "MPI_Graph_create:1011.000:0,$r,3:3:2,4,6:1,2,0,2,0,1:0:4,$r,3:1012.000"
			echo "# comm 4 0,1,2"
			echo "MPI_Neighbor_alltoallw:1013.000:100:7:1,1:8:0,4:9:1,4,4;10,8,8:200:9:1,1:10:0,8:11:1,4,4;10,8,8:4,$r,3:1014.000"
			tail_ap
		} >g3/rank-$r.trace
	done &&
	trace2goal g3 >g3.goal 2>err && test ! -s err &&
	counts g3.goal >c && printf "0 4 40\n1 5 44\n2 4 36\n" >want && test_cmp want c &&
	sed -n "/^rank 0/,/^}/p" g3.goal | grep -q ": send 20b to 1 tag" &&
	sed -n "/^rank 0/,/^}/p" g3.goal | grep -q ": recv 20b from 2 tag"
'

test_expect_success 'neighbourhood collectives with --sync replay exactly on a zero-cost network' '
	printf "L = 0\no = 0\ng = 0\nG = 0\nO = 0\n" >zero.params &&
	trace2goal -p zero.params --durations --sync g3 >g3s.goal &&
	ibsim -q -L 0 -o 0 -g 0 -G 0 -O 0 g3s.goal | awk "!/^#/ && \$1 != \"rank\" { print \$2 }" >e &&
	printf "100000000\n100000000\n100000000\n" >want && test_cmp want e
'

test_expect_success 'a neighbourhood collective without a known topology is skipped, warned with a count' '
	mkdir nt && for r in 0 1; do
		{
			head_ap $r 2 0,1
			echo "MPI_Neighbor_allgather:1003.000:100:2:1,4,4:200:2:1,4,4:0,$r,2:1004.000"
			echo "MPI_Neighbor_alltoall:1005.000:100:2:1,4,4:200:2:1,4,4:0,$r,2:1006.000"
			tail_ap
		} >nt/rank-$r.trace
	done &&
	trace2goal nt >nt.goal 2>err && test $(grep -c ": send" nt.goal) = 0 &&
	expect_err "trace2goal: warning: nt/rank-0.trace:6: MPI_Neighbor_allgather on a communicator without a known topology skipped (Cart_create, Cart_sub, Graph_create and Dist_graph_create_adjacent of allprof traces are known; see the count at the end)" &&
	expect_err "trace2goal: warning: 4 neighbourhood collectives on communicators without a known topology were skipped"
'

test_expect_success 'a topology that names a rank outside its communicator is an error' '
	mkdir bt && cp -r g3/* bt/ && sed -i "s/^# comm 4 0,1,2$/# comm 4 0,1/" bt/rank-0.trace &&
	sed -i "s/:4,0,3:1012.000/:4,0,2:1012.000/" bt/rank-0.trace &&
	expect_fail 1 trace2goal bt &&
	expect_err "trace2goal: bt/rank-0.trace:14: '"'"'# comm 4'"'"': 2 members, but the topology names rank 2"
'

# liballprof: two Irecvs into consecutive request slots, Waitany twice; a Test
gen_any() {
	mkdir -p "$1"
	cat >"$1/t-0.txt" <<-EOF
	# htor's PMPI Tracer 0.9 Output File
	MPI_Init:-:1:2:1000000
	MPI_Irecv:1000010:100:1:1,4,4:1:1:9,0,2:500:1000011
	MPI_Irecv:1000012:100:2:1,4,4:1:2:9,0,2:508:1000013
	MPI_Test:1000014:500:77:0:1000015
	MPI_Waitany:1000020:2:500:88:0:1000030
	MPI_Waitany:1000031:2:500:88:0:1000040
	MPI_Finalize:1000050:-
	EOF
	cat >"$1/t-1.txt" <<-EOF
	# htor's PMPI Tracer 0.9 Output File
	MPI_Init:-:1:2:1000000
	MPI_Send:1000010:100:2:1,4,4:0:2:9,1,2:1000011
	MPI_Send:1000012:100:1:1,4,4:0:1:9,1,2:1000013
	MPI_Finalize:1000050:-
	EOF
}

test_expect_success 'liballprof Waitany completes the earliest posted request; warned once per rank' '
	gen_any any && trace2goal any >any.goal 2>err &&
	sed -n "/^rank 0/,/^}/p" any.goal >r0 &&
	grep -qx "l1: recv 4b from 1 tag 1" r0 && grep -qx "l3: recv 8b from 1 tag 2" r0 &&
	grep -qx "l5 requires l1" r0 && grep -qx "l7 requires l3" r0 &&
	expect_err "trace2goal: warning: any/t-0.txt:6: MPI_Waitany: liballprof traces do not record which request completed: the earliest posted active one is taken, on this rank and below" &&
	test $(grep -c "do not record which request" err) = 1 &&
	expect_err "trace2goal: warning: 2 liballprof Waitany/Waitsome calls completed the earliest posted request (a guess)"
'

test_expect_success 'liballprof Test completes nothing; warned once per rank' '
	expect_err "trace2goal: warning: any/t-0.txt:5: MPI_Test: liballprof traces do not record whether a test succeeded: tests complete no request on this rank (their time counts as computation; a later wait completes the request)" &&
	ibsim -q any.goal >/dev/null
'

test_expect_success '-q silences the warnings' '
	trace2goal -q any >/dev/null 2>err && test ! -s err
'
test_done
