#!/bin/sh
# trace2goal --durations --sync: every rank starts at its clock-corrected MPI_Init return
# relative to the earliest one, and a receive, wait or collective replays its duration from
# the latest entry of the ranks it waits for. On a zero-cost network the replay must end
# where the real run ended, rank by rank: the seed ltest traces (the acceptance test of the
# issue), and allprof recordings of samples/apps (collectives with neighbourhood
# collectives, nonblocking calls, matched probes; tests/t4004-trace2goal-sync/). Exact
# values on small synthetic traces: eager and rendezvous sends, Irecv+Wait, allreduce (waits
# for all), linear bcast (a leaf waits for the root only); a long trace that spills the
# per-rank buffers; usage errors.
. "$(dirname "$0")/lib.sh"

printf 'L = 0\no = 0\ng = 0\nG = 0\nO = 0\n' >zero.params
ZERO="-L 0 -o 0 -g 0 -G 0 -O 0"


# replay GOAL: "rank end_ns" from ibsim on a zero-cost network
replay() {
	ibsim -q $ZERO "$1" | awk '!/^#/ && $1 != "rank" { printf "%d %.0f\n", $1, $2 / 1000 }'
}

# within TOL_NS REAL REPLAY: every rank's end within TOL_NS
within() {
	paste "$2" "$3" | awk -v tol="$1" '{ d = $2 - $4; if (d < 0) d = -d
		if ($1 != $3 || d > tol) { print "rank " $1 ": real " $2 " ns, replay " $4 " ns"; bad = 1 } }
		END { exit bad }'
}

test_expect_success 'ltest: rank 0 really ran 13807 us from MPI_Init to MPI_Finalize' '
	awk -F: "/^MPI_Init/ { s = \$NF } /^MPI_Finalize/ { e = \$2 } END { print e - s }" \
		"$SEED/pmpi-trace-rank-0.txt" >d && echo 13807 >want && test_cmp want d
'

test_expect_success 'ltest: the replay ends within 1 us of the real run, rank by rank' '
	trace2goal -p zero.params --durations --sync "$SEED" >sync.goal &&
	trace_ends "$SEED"/pmpi-trace-rank-0.txt "$SEED"/pmpi-trace-rank-1.txt >real.txt &&
	replay sync.goal >rep.txt &&
	test $(wc -l <rep.txt) = 2 &&
	within 1000 real.txt rep.txt
'

test_expect_success 'ltest: without --sync the same replay is off by more than 10 us' '
	trace2goal -p zero.params --durations "$SEED" >nosync.goal &&
	replay nosync.goal >rep0.txt &&
	! within 10000 real.txt rep0.txt
'

test_expect_success 'ltest: leading calcs: rank 1 (corrected Init return earlier) starts at 0' '
	# rank 0 returned from MPI_Init at ...553965, rank 1 at ...554203 - 289.201736 us
	sed -n "/^rank 0/,/^}/p" sync.goal | grep -qx "l1: calc 51201736" &&
	sed -n "/^rank 1/,/^}/p" sync.goal | grep -qx "l1: calc 0"
'

test_expect_success 'ltest: the schedule is valid GOAL (goalc) and each rank appears once' '
	goalc -o sync.goalb sync.goal &&
	test $(grep -c "^rank " sync.goal) = 2 && head -n 1 sync.goal | grep -qx "num_ranks 2"
'

test_expect_success 'ltest: with default network parameters the replay stays within 30 us' '
	trace2goal --durations --sync "$SEED" >def.goal &&
	ibsim -q def.goal | awk "!/^#/ && \$1 != \"rank\" { printf \"%d %.0f\n\", \$1, \$2 / 1000 }" >repd.txt &&
	within 30000 real.txt repd.txt
'

# ibsim (as LogGOPSim) starts a nonblocking collective's later rounds only when the rank's CPU
# is free, while the zero-cost dataflow of --sync does not model the CPU: where an algorithm
# has a rank forward data during the computation after the call (the root of Open MPI libnbc's
# iallreduce and ireduce_scatter, the defaults), the replay ends up to the length of that
# computation late (docs/trace2goal.md, "Nonblocking collectives and --sync"). Exactness is
# checked with algorithms that forward only inside the Wait, the defaults within 0.1 %.
NBEXACT="--coll iallreduce=recdoub,ireduce_scatter=ring,ireduce_scatter_block=ring"
for app in collectives nonblock wildcard; do
	test_expect_success "allprof recording of samples/apps/$app.c (3 ranks): exact to 1 ns" "
		trace2goal -q -p zero.params --durations --sync $NBEXACT \"\$TESTDATA/$app\" >$app.goal &&
		trace_ends \"\$TESTDATA/$app\"/rank-*.trace >$app.real &&
		replay $app.goal >$app.rep &&
		test \$(wc -l <$app.rep) = 3 &&
		within 1 $app.real $app.rep
	"
done

test_expect_success 'collectives.c with the default (libnbc) nonblocking algorithms: within 0.1 %' '
	trace2goal -q -p zero.params --durations --sync "$TESTDATA/collectives" >cdef.goal &&
	replay cdef.goal >cdef.rep &&
	! cmp -s cdef.rep collectives.rep &&
	within 6000 collectives.real cdef.rep
'

test_expect_success 'the same recordings without --sync are off' '
	trace2goal -q -p zero.params --durations "$TESTDATA/collectives" >c0.goal &&
	replay c0.goal >c0.rep && ! within 1000 collectives.real c0.rep
'

# gen DIR: two-rank liballprof traces, times in microseconds since 1000000 (MPI_Init returns)
gen2() {
	mkdir -p "$1"
	cat >"$1/t-0.txt" <<-EOF
	# htor's PMPI Tracer 0.9 Output File
	MPI_Init:-:1:2:1000000
	MPI_Send:1000200:100:1:1,4,4:1:5:9,0,2:1000201
	MPI_Send:1000300:200:25000:1,4,4:1:6:9,0,2:1000400
	MPI_Send:1000420:100:1:1,4,4:1:7:9,0,2:1000421
	MPI_Finalize:1000500:-
	EOF
	cat >"$1/t-1.txt" <<-EOF
	# htor's PMPI Tracer 0.9 Output File
	MPI_Init:-:1:2:1000000
	MPI_Recv:1000150:100:1:1,4,4:0:5:9,1,2:0:1000260
	MPI_Recv:1000350:200:25000:1,4,4:0:6:9,1,2:0:1000410
	MPI_Irecv:1000411:100:1:1,4,4:0:7:9,1,2:77:1000412
	MPI_Wait:1000413:77:0:1000430
	MPI_Finalize:1000500:-
	EOF
}

test_expect_success 'a receive replays its duration from the send entry (260 - 200 us)' '
	gen2 p && trace2goal -p zero.params --durations --sync p >p.goal &&
	sed -n "/^rank 1/,/^}/p" p.goal >p1 && sed -n "/^rank 0/,/^}/p" p.goal >p0 &&
	grep -qx "l2: recv 4b from 0 tag 5" p1 && grep -qx "l4: calc 60000000" p1 && grep -qx "l4 requires l2" p1
'

test_expect_success 'a rendezvous send waits for the receive (400 - 350 us), the receive for the send (410 - 350)' '
	grep -qx "l5: send 100000b to 1 tag 6" p0 && grep -qx "l7: calc 50000000" p0 &&
	grep -qx "l5: recv 100000b from 0 tag 6" p1 && grep -qx "l7: calc 60000000" p1
'

test_expect_success 'the piecewise model'"'"'s rendezvous protocol: the send waits for the receive'"'"'s post + recv_o' '
	printf "g = 0\nG = 0\nS = 1000\nsend_o = 0:1us\nrecv_o = 0:5us\nnet_L = 0:2us\ncopy = 0:1us\n" >pw.params &&
	{ cat pw.params; echo "rndv_handshake = no"; } >pwno.params &&
	# the send (post 300) completes, in ibsim, at max(300 + net_L + recv_o, 350) = 350 without
	# the protocol, and with it at max(300 + net_L, 350) + recv_o = 355: its call (returned at
	# 400) replays 50 and 45 us after that
	trace2goal -p pwno.params --durations --sync p >pwno.goal &&
	sed -n "/^rank 0/,/^}/p" pwno.goal | grep -qx "l7: calc 50000000" &&
	trace2goal -p pw.params --durations --sync p >pw.goal &&
	sed -n "/^rank 0/,/^}/p" pw.goal | grep -qx "l7: calc 45000000"
'

test_expect_success 'with -p S above the size the send is eager: its own duration (100 us)' '
	cp zero.params eager.params && echo "S = 1M" >>eager.params &&
	trace2goal -p eager.params --durations --sync p >pe.goal &&
	sed -n "/^rank 0/,/^}/p" pe.goal | grep -qx "l7: calc 100000000" &&
	ibsim -q $ZERO -S 1M pe.goal >/dev/null
'

test_expect_success 'Irecv then Wait: the wait runs from the send entry (430 - 420 us)' '
	grep -qx "l8: recv 4b from 0 tag 7" p1 && grep -qx "l11: calc 0" p1 &&
	grep -qx "l11 requires l8" p1 && grep -qx "l13 requires l11" p1 && grep -qx "l13: calc 10000000" p1
'

test_expect_success 'the two-rank replay ends exactly at MPI_Finalize (500 us), both ranks' '
	replay p.goal >pr && printf "0 500000\n1 500000\n" >want && test_cmp want pr &&
	trace2goal -p zero.params --durations --sync -o p.goal.zst p && zstd -q -d -c p.goal.zst >pz.goal &&
	test_cmp p.goal pz.goal
'

# three ranks: allreduce (entries 200, 150, 300) then a linear bcast from 0 (500, 450, 600)
gen3() {
	mkdir -p "$1"
	for r in 0 1 2; do
		case $r in 0) a=1000200 b=1000500 ;; 1) a=1000150 b=1000450 ;; 2) a=1000300 b=1000600 ;; esac
		{
			echo "# htor's PMPI Tracer 0.9 Output File"
			echo "MPI_Init:-:1:2:1000000"
			echo "MPI_Allreduce:$a:10:20:1:10,8,8:3:9,$r,3:1000400"
			echo "MPI_Bcast:$b:10:2:10,8,8:0:9,$r,3:1000700"
			echo "MPI_Finalize:1000800:-"
		} >"$1/t-$r.txt"
	done
}

test_expect_success 'allreduce waits for every member: 400 - 300 us on every rank' '
	gen3 c && trace2goal -p zero.params --durations --sync --coll bcast=linear c >c.goal &&
	for r in 0 1 2; do
		sed -n "/^rank $r/,/^}/p" c.goal >c$r &&
		grep -q "^l[0-9]*: calc 100000000$" c$r || { echo "rank $r: no 100 us calc"; exit 1; }
	done
'

test_expect_success 'linear bcast: a leaf waits for the root only (700 - 500 us), not for the last leaf' '
	# were it the latest entry of all members, rank 1 would replay 700 - 600 us
	grep -q "^l[0-9]*: calc 200000000$" c1 &&
	replay c.goal >cr && printf "0 800000\n1 800000\n2 800000\n" >want && test_cmp want cr
'

test_expect_success 'a long run (2 x 30000 messages) spills the rank buffers and stays exact' '
	awk "BEGIN {
		print \"# htor'"'"'s PMPI Tracer 0.9 Output File\" >\"l0\"; print \"MPI_Init:-:1:2:1000000\" >\"l0\"
		print \"# htor'"'"'s PMPI Tracer 0.9 Output File\" >\"l1\"; print \"MPI_Init:-:1:2:1000000\" >\"l1\"
		t = 1000010
		for (i = 0; i < 30000; i++) {
			printf \"MPI_Send:%d:100:1:1,4,4:1:3:9,0,2:%d\n\", t, t + 1 >\"l0\"
			printf \"MPI_Recv:%d:100:1:1,4,4:0:3:9,1,2:0:%d\n\", t - 2, t + 3 >\"l1\"
			printf \"MPI_Send:%d:100:1:1,4,4:0:4:9,1,2:%d\n\", t + 5, t + 6 >\"l1\"
			printf \"MPI_Recv:%d:100:1:1,4,4:1:4:9,0,2:0:%d\n\", t + 2, t + 8 >\"l0\"
			t += 10
		}
		printf \"MPI_Finalize:%d:-\n\", t >\"l0\"; printf \"MPI_Finalize:%d:-\n\", t + 1 >\"l1\"
	}" && mkdir long && mv l0 long/r-0.txt && mv l1 long/r-1.txt &&
	trace2goal -p zero.params --durations --sync long >long.goal &&
	test $(wc -c <long.goal) -gt 1000000 &&
	trace_ends long/r-0.txt long/r-1.txt >long.real && replay long.goal >long.rep && within 0 long.real long.rep
'

test_expect_success 'a liballprof wildcard receive cannot be synchronised: warned with a count' '
	gen2 w && sed -i "s/MPI_Recv:1000150:100:1:1,4,4:0:5:/MPI_Recv:1000150:100:1:1,4,4:-1:5:/" w/t-1.txt &&
	trace2goal -p zero.params --durations --sync w >w.goal 2>err &&
	expect_err "trace2goal: warning: --sync: 1 wildcard receive without a recorded source: their waiting is replayed from this rank'"'"'s own entry"
'

test_expect_success '--from with --sync: the leading calcs count from the earliest phase start' '
	trace2goal -p zero.params --durations --sync --from MPI_Comm_size "$SEED" >cut.goal &&
	# Comm_size calls: rank 0 at ...554016, rank 1 at ...554250 - 289.2 us (+ drift)
	sed -n "/^rank 0/,/^}/p" cut.goal | grep -qx "l1: calc 55199316" &&
	sed -n "/^rank 1/,/^}/p" cut.goal | grep -qx "l1: calc 0" &&
	ibsim -q cut.goal >/dev/null
'

test_expect_success 'usage: --sync needs --durations and does not go with --compat schedgen' '
	expect_fail 2 trace2goal --sync "$SEED" &&
	expect_err "trace2goal: --sync needs --durations" &&
	expect_fail 2 trace2goal --durations --sync --compat schedgen "$SEED" &&
	expect_err "trace2goal: --sync cannot be used with --compat schedgen"
'

test_expect_success 'bad traces are reported the same way with --sync' '
	gen2 bad && sed -i "/MPI_Finalize/d" bad/t-1.txt &&
	expect_fail 1 trace2goal --durations --sync bad &&
	expect_err "trace2goal: bad/t-1.txt:6: trace ends without MPI_Finalize (cut short?)" &&
	gen2 um && sed -i "/tag 7\|:7:9,0,2/d" um/t-0.txt &&
	expect_fail 1 trace2goal --durations --sync um &&
	expect_err "trace2goal: rank 1 receives 3 messages from rank 0, which sends it 2"
'
test_done
