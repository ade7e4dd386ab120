#!/bin/sh
# trace2goal: MPI-3 one-sided communication (docs/trace2goal.md, "One-sided communication").
# Window creation is the agreement of communicator creation over the window's communicator,
# MPI_Win_free and MPI_Win_fence a barrier; each keeps its local work, the traced time
# beyond what the traced network's model says its messages cost (--from-params, default -p),
# in the plain conversion as with --durations. Transfers and the other synchronisation calls
# stay computation. Exact values on a handwritten 2-rank trace; the sample program
# samples/apps/rma.c traced, converted and simulated end to end.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"

# Every rank (times in us after Init at 1000000): Win_allocate at +10 lasting 100, a fence
# at +120 lasting 10, a Put to the other rank at +130 lasting 2, a fence at +140 lasting 10,
# Win_free at +160 lasting 20, Finalize at +200.
mkdir tr
for r in 0 1; do
	o=$((1 - r))
	cat >tr/rank-$r.trace <<EOF
# allprof 1.0 trace format 1
# rank: $r of 2
# comm 0 0,1
# comm 1 $r
MPI_Init:999990.000:1:2:1000000.000
MPI_Win_allocate:1000010.000:64:1:0,$r,2:1:1000110.000
MPI_Win_fence:1000120.000:0:1:1000130.000
MPI_Put:1000130.000:4096:8:1,1,1:$o:0:8:1,1,1:1:1000132.000
MPI_Win_fence:1000140.000:0:1:1000150.000
MPI_Win_free:1000160.000:1:1000180.000
MPI_Finalize:1000200.000:1000200.100
# end 7 0
EOF
done
# every message 1 us at each end (L, O, G are 0), or 2 us on the "traced" network
printf 'L = 0\no = 1us\ng = 0\nG = 0\nO = 0\nS = 100000\n' >base.params
printf 'L = 0\no = 2us\ng = 0\nG = 0\nO = 0\nS = 100000\n' >from.params

rank() { sed -n "/^rank $2 {/,/^}/p" "$1" | sed '1d;$d'; }
calcs() { rank "$1" "$2" | grep "^l[0-9]*: calc " | sed 's/^l[0-9]*: calc //'; }

test_expect_success 'window creation: the agreement of communicator creation, keeping its local work' '
	trace2goal -p base.params tr >a.goal 2>err && test ! -s err &&
	# Open MPI agreement at 2 ranks: three allreduces of 4 bytes, 6 messages of 1 us each;
	# the gap calc 10 us + 100 - 6 us of local work
	rank a.goal 0 | sed -n "1,7p" >got &&
	cat >want <<-\EOF &&
	l1: recv 4b from 1 tag 1073741824
	l2: send 4b to 1 tag 1073741824
	l3: recv 4b from 1 tag 1073741824
	l4: send 4b to 1 tag 1073741824
	l5: recv 4b from 1 tag 1073741824
	l6: send 4b to 1 tag 1073741824
	l7: calc 104000000
	EOF
	test_cmp want got
'

test_expect_success 'fence and free are barriers; a Put stays computation in the gap' '
	# creation 104, its join 0; fence 10 + (10 - 2); fence 10 + 8 (its gap holds the Put);
	# free 10 + (20 - 2); Finalize 20
	printf "%s\n" 104000000 0 18000000 0 18000000 0 28000000 0 20000000 >want &&
	calcs a.goal 0 >got && test_cmp want got &&
	calcs a.goal 1 >got1 && test_cmp want got1 &&
	rank a.goal 0 | grep -c "^l[0-9]*: send 1b to 1 tag" >n && echo 3 >want && test_cmp want n &&
	! grep -q "8b" a.goal
'

test_expect_success '--from-params: the local work is what the traced network left' '
	trace2goal -p base.params --from-params from.params tr >f.goal &&
	printf "%s\n" 98000000 0 16000000 0 16000000 0 26000000 0 20000000 >want &&
	calcs f.goal 0 >got && test_cmp want got &&
	# the messages are those of -p: the same ops, only calcs differ
	grep -v calc a.goal >x && grep -v calc f.goal >y && test_cmp x y
'

test_expect_success '--durations replays the same local work (-p is the traced network)' '
	trace2goal --durations -p base.params tr >d.goal &&
	calcs d.goal 0 >got && calcs a.goal 0 >want && test_cmp want got
'

test_expect_success 'goalc and ibsim take the schedule' '
	goalc -o a.goalb a.goal && ibsim -p base.params a.goalb >sim.tsv &&
	test "$(grep -c "^[01]	" sim.tsv)" = 2
'

test_expect_success '--from-params with --durations is a usage error; a bad file names itself' '
	expect_fail 2 trace2goal --durations -p base.params --from-params from.params tr &&
	expect_err "trace2goal: --from-params is for the plain conversion: with --durations, -p gives the traced network" &&
	expect_fail 1 trace2goal --from-params nonexistent.params tr &&
	expect_err "trace2goal: nonexistent.params: cannot open: No such file or directory" &&
	printf "o = banana\n" >bad.params &&
	expect_fail 1 trace2goal --from-params bad.params tr &&
	grep -q "^trace2goal: bad.params:1: invalid time for .o." err
'

# bad SED [RANKS]: copy the traces, apply SED to those of RANKS (default 0)
bad() { rm -rf b && cp -r tr b && for r in ${2:-0}; do sed -i "$1" b/rank-$r.trace; done; }

test_expect_success 'a window created twice, a bad window id, a bad communicator' '
	bad "s/^MPI_Win_fence:1000120.000:0:1:/MPI_Win_allocate:1000120.000:64:1:0,0,2:1:/" &&
	expect_fail 1 trace2goal b &&
	expect_err "trace2goal: b/rank-0.trace:7: MPI_Win_allocate: window 1 created twice" &&
	bad "s/^\(MPI_Win_fence:1000120.000:0:\)1:/\1-3:/" &&
	expect_fail 1 trace2goal b &&
	expect_err "trace2goal: b/rank-0.trace:7: MPI_Win_fence: argument 2: expected a window id (0 or more), found '\''-3'\''" &&
	bad "s/^\(MPI_Win_allocate:1000010.000:64:1:\)0,0,2:/\10,5,2:/" &&
	expect_fail 1 trace2goal b &&
	expect_err "trace2goal: b/rank-0.trace:6: MPI_Win_allocate: argument 3: expected a communicator '\''<handle>,<rank>,<size>'\'', found '\''0,5,2'\''" &&
	bad "s/^\(MPI_Win_free:1000160.000:1\):/\1:7:/" &&
	expect_fail 1 trace2goal b &&
	expect_err "trace2goal: b/rank-0.trace:10: MPI_Win_free: expected 1 arguments, found 2"
'

test_expect_success 'calls on a window the trace never created stay computation, counted once' '
	# the creation failed (window 0) on both ranks: fences and free name a window never made
	bad "s/^\(MPI_Win_allocate:1000010.000:64:1:0,[01],2:\)1:/\10:/" "0 1" &&
	trace2goal b >b.goal 2>err &&
	expect_err "trace2goal: warning: 6 MPI_Win_free/MPI_Win_fence calls on windows the trace never created: their time counted as computation" &&
	# only the agreement of the creation: no barrier
	! grep -q ": send 1b" b.goal && grep -q ": send 4b" b.goal
'

test_expect_success 'ranks that disagree on a window are an error' '
	bad "s/^\(MPI_Win_allocate:1000010.000:64:1:0,0,2:\)1:/\10:/" &&
	expect_fail 1 trace2goal b &&
	expect_err "trace2goal: b/rank-1.trace: rank 0 calls 1 collectives on MPI_COMM_WORLD, rank 1 calls 4"
'

# Open MPI 4.1's osc/rdma needs a transport with RDMA (vader with CMA), which the tests turn
# off (allprof-lib.sh): sm (shared windows) and pt2pt (the others over messages) serve.
if command -v mpirun >/dev/null 2>&1 && [ -x "$SAMPLES/rma" ] && command -v allprof >/dev/null 2>&1; then
	test_expect_success 'samples/apps/rma traced, converted, simulated' '
		traced rec 3 --mca osc sm,pt2pt "$SAMPLES/rma" && test "$(cat rec.out)" = "rma: ok 3" &&
		for r in 0 1 2; do complete rec/rank-$r.trace || exit 1; done &&
		trace2goal -p base.params rec >rec.goal 2>err && test ! -s err &&
		goalc -o rec.goalb rec.goal && ibsim -p base.params rec.goalb >rec.tsv &&
		test "$(grep -c "^[012]	" rec.tsv)" = 3 &&
		# 4 creations (one on the node communicator), 3 fences
		test "$(grep -c "^MPI_Win_\(create\|allocate\|allocate_shared\|create_dynamic\):" rec/rank-1.trace)" = 4 &&
		test "$(grep -c "^MPI_Win_fence:" rec/rank-1.trace)" = 3
	'
	test_expect_success 'rma windows N B: every window costs its messages' '
		traced w 2 --mca osc sm,pt2pt "$SAMPLES/rma" windows 20 4096 &&
		test "$(grep -c "^MPI_Win_allocate:" w/rank-0.trace)" = 20 &&
		trace2goal -p base.params w >w.goal && goalc -o w.goalb w.goal &&
		# 20 agreements of 3 sends of 4 bytes from rank 0, 20 x 3 barriers of 1 send
		test "$(sed -n "/^rank 0 {/,/^}/p" w.goal | grep -c ": send 4b to 1 tag")" = 60 &&
		test "$(sed -n "/^rank 0 {/,/^}/p" w.goal | grep -c ": send 1b to 1 tag")" = 60
	'
else
	test_skip 'samples/apps/rma traced, converted, simulated' 'no mpirun, allprof or samples'
	test_skip 'rma windows N B: every window costs its messages' 'no mpirun, allprof or samples'
fi

test_done
