#!/bin/sh
# trace2goal --durations (and --sync) subtract the modelled LogGOPS time of a call's operations
# from its duration. A message of more than S bytes is a rendezvous message, which ibsim
# charges o_rndv and O_rndv instead of o and O: so does trace2goal's model. Without o_rndv
# and O_rndv in -p both default to o and O (as in ibsim). Exact calc values on a handwritten
# two-rank trace: an eager message of 100 B, a rendezvous message of 10000 B (S = 1000).
. "$(dirname "$0")/lib.sh"

# Rank 0 sends 100 B (10 us after MPI_Init, lasting 10 us), then 10000 B (10 us later, lasting
# 100 us); rank 1 receives them (5 us after Init for 15 us; 5 us later for 105 us). Times in
# microseconds.
mkdir tr
cat >tr/t-0.txt <<'EOF'
# htor's PMPI Tracer 0.9 Output File
MPI_Init:-:1:2:1000000
MPI_Send:1000010:100:100:1,1,1:1:5:9,0,2:1000020
MPI_Send:1000030:200:10000:1,1,1:1:6:9,0,2:1000130
MPI_Finalize:1000140:-
EOF
cat >tr/t-1.txt <<'EOF'
# htor's PMPI Tracer 0.9 Output File
MPI_Init:-:1:2:1000000
MPI_Recv:1000005:100:100:1,1,1:0:5:9,1,2:0:1000020
MPI_Recv:1000025:200:10000:1,1,1:0:6:9,1,2:0:1000130
MPI_Finalize:1000140:-
EOF
printf 'L = 0\no = 1us\ng = 0\nG = 0\nO = 10ps\nS = 1000\n' >eager.params
cp eager.params rndv.params
printf 'o_rndv = 5us\nO-rndv = 20ps\n' >>rndv.params

# calcs GOAL RANK: the rank's calc lines
calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | grep "^l[0-9]*: calc "; }

# Model, eager 100 B:       send o + 99 O = 1 us + 990 ps = 1000990 ps;
#                           recv o + L + 99 max(O,G) = 1000990 ps.
# Model, rendezvous 10000 B with o_rndv, O_rndv: 5 us + 9999 * 20 ps = 5199980 ps (send and
#                           recv); with o, O: 1 us + 9999 * 10 ps = 1099990 ps.
test_expect_success '--durations: a rendezvous message is charged o_rndv and O_rndv' '
	trace2goal -p rndv.params --durations tr >r.goal &&
	# gap + duration - model: 10 + 10 us - 1000990 ps; 10 + 100 us - 5199980 ps; 10 us
	printf "l2: calc 18999010\nl4: calc 104800020\nl5: calc 10000000\n" >want0 &&
	calcs r.goal 0 >got0 && test_cmp want0 got0 &&
	# 5 + 15 us - 1000990 ps; 5 + 105 us - 5199980 ps; 10 us
	calcs r.goal 1 >got1 && test_cmp want0 got1
'

test_expect_success '--durations: without o_rndv and O_rndv the rendezvous message is charged o and O' '
	trace2goal -p eager.params --durations tr >e.goal &&
	# 10 + 100 us - 1099990 ps
	printf "l2: calc 18999010\nl4: calc 108900010\nl5: calc 10000000\n" >want &&
	calcs e.goal 0 >got0 && test_cmp want got0 &&
	calcs e.goal 1 >got1 && test_cmp want got1
'

test_expect_success '--durations: a message of S bytes or less keeps o and O' '
	# S = 10000: both messages eager, o_rndv and O_rndv unused
	sed "s/^S = 1000$/S = 10000/" rndv.params >s.params &&
	trace2goal -p s.params --durations tr >s.goal &&
	calcs s.goal 0 >got && test_cmp want got
'

test_expect_success '--durations --sync: the post calcs count from the modelled arrival and subtract the CPU model' '
	trace2goal -p rndv.params --durations --sync tr >y.goal &&
	# leading 0; gap 10 us; 10 us - 1000990 ps; gap 10 us; 100 us - 5199980 ps; last gap 10 us
	printf "l1: calc 0\nl3: calc 10000000\nl4: calc 8999010\nl6: calc 10000000\nl7: calc 94800020\nl8: calc 10000000\n" >want0 &&
	calcs y.goal 0 >got0 && test_cmp want0 got0 &&
	# rank 1 waits for the messages, which arrive o + L (1 us) and o_rndv + L (5 us) after their
	# sends start (10 and 30 us): 20 - 11 us, 130 - 35 us, minus the CPU time of the receiver
	# (1000990 and 5199980 ps); the rendezvous sender is released at the arrival (35 us), within
	# the CPU time of the send (30 + 5.19998 us), so its post calc is the same as with a zero-cost network
	printf "l1: calc 0\nl3: calc 5000000\nl4: calc 7999010\nl6: calc 5000000\nl7: calc 89800020\nl8: calc 10000000\n" >want1 &&
	calcs y.goal 1 >got1 && test_cmp want1 got1
'

test_expect_success 'only o_rndv given: O_rndv defaults to O' '
	grep -v "^O-rndv" rndv.params >or.params &&
	trace2goal -p or.params --durations tr >or.goal &&
	# 110 us - (5 us + 9999 * 10 ps)
	calcs or.goal 0 | grep -qx "l4: calc 104900010"
'

test_expect_success 'the schedule runs in ibsim with the same parameters' '
	goalc -o r.goalb r.goal && ibsim -q -p rndv.params r.goalb >sim.out &&
	grep -q "o_rndv=5000000 O_rndv=20" sim.out
'

test_expect_success 'a bad o_rndv or O_rndv in -p: exit 1 naming file, line, key and value' '
	printf "o = 1us\no_rndv = 5 apples\n" >bad.params &&
	expect_fail 1 trace2goal -p bad.params --durations tr &&
	expect_err "trace2goal: bad.params:2: invalid time for '\''o_rndv'\'': '\''5 apples'\'' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)" &&
	printf "O_rndv = -3ps\n" >bad2.params &&
	expect_fail 1 trace2goal -p bad2.params --durations tr &&
	expect_err "trace2goal: bad2.params:1: invalid time for '\''O_rndv'\'': '\''-3ps'\'' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)"
'

test_done
