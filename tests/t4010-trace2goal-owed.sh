#!/bin/sh
# trace2goal --durations: the modelled time of an op is charged to the call that starts it,
# but the MPI library does the work in whichever call makes progress. A nonblocking receive
# is modelled in its Irecv, which returns at once, and done inside a later call (here a
# blocking Send that lasts long because it also takes in the neighbour's message). The part
# of the model a call could not contain is owed and taken, in trace order, from the next
# calls' own time before any of it is replayed. Exact calc values on a handwritten trace.
. "$(dirname "$0")/lib.sh"

# Both ranks (times in us after Init at 1000000): Irecv at +10 lasting 0.2, Send of 100 B at
# +11 lasting 5, Wait at +20 lasting 0.5, Irecv at +21 lasting 0.2, Send at +22 lasting 0.3,
# Wait at +23 lasting 4, Finalize at +30.
mkdir tr
for r in 0 1; do
	p=$((1 - r))
	cat >tr/rank-$r.trace <<EOF
# allprof 1.0 trace format 1
# rank: $r of 2
# comm 0 0,1
# comm 1 $r
MPI_Init:999990.000:1:2:1000000.000
MPI_Irecv:1000010.000:4096:100:1,1,1:$p:7:0,$r,2:r1:1000010.200
MPI_Send:1000011.000:8192:100:1,1,1:$p:7:0,$r,2:1000016.000
MPI_Wait:1000020.000:r1:$p,7,100:1000020.500
MPI_Irecv:1000021.000:4096:100:1,1,1:$p:8:0,$r,2:r2:1000021.200
MPI_Send:1000022.000:8192:100:1,1,1:$p:8:0,$r,2:1000022.300
MPI_Wait:1000023.000:r2:$p,8,100:1000027.000
MPI_Finalize:1000030.000:1000030.100
# end 8 0
EOF
done
# o = 1 us, nothing else: a send and a receive each model 1 us (L, O, G are 0).
printf 'L = 0\no = 1us\ng = 0\nG = 0\nO = 0\nS = 100000\n' >p.params

calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | grep "^l[0-9]*: calc " | sed 's/^l[0-9]*: calc //'; }

test_expect_success 'the part of the model an Irecv cannot contain is taken from the next calls' '
	trace2goal -p p.params --durations tr >d.goal &&
	# each call is preceded by one calc: the gap since the last call returned plus what the
	# call replays of its own time (ps); a Wait also has a zero join calc:
	#  Irecv  gap 10 us; lasts 0.2 us, models 1 us: owes 0.8 us, replays 0    -> 10 us
	#  Send   gap 0.8 us; lasts 5 us, models 1 us: 4 us left, 0.8 owed -> 3.2 -> 4 us
	#  Wait   gap 4 us; lasts 0.5 us, models nothing                          -> 4.5 us
	#  Irecv  gap 0.5 us; owes 0.8 us                                          -> 0.5 us
	#  Send   gap 0.8 us; lasts 0.3 us, models 1 us: owes 0.7 more (1.5 us)    -> 0.8 us
	#  Wait   gap 0.7 us; lasts 4 us, 1.5 us owed -> 2.5 us                    -> 3.2 us
	#  Finalize gap 3 us
	printf "%s\n" 10000000 4000000 0 4500000 500000 800000 0 3200000 3000000 >want &&
	calcs d.goal 0 >got0 && test_cmp want got0 &&
	calcs d.goal 1 >got1 && test_cmp want got1
'

test_expect_success 'the whole replayed time is the real time minus the whole model' '
	# 10 + 4 + 4.5 + 0.5 + 0.8 + 3.2 + 3 = 26 us = 30 us - 4 modelled us
	calcs d.goal 0 | awk "{ s += \$1 } END { print s }" >sum && echo 26000000 >want && test_cmp want sum
'

test_expect_success 'with --sync the owed time is taken from the same calls' '
	trace2goal -p p.params --durations --sync tr >s.goal &&
	goalc -o s.goalb s.goal && ibsim -q -p p.params s.goalb >s.out &&
	goalc -o d.goalb d.goal && ibsim -q -p p.params d.goalb >d.out &&
	# both replays end where the real run ended (30 us after Init): the model is what was
	# taken out, and the symmetric ranks never wait for each other
	grep -v "^#" s.out | awk "NR > 1 { print \$1, \$2 }" >got && printf "0 30000000\n1 30000000\n" >want &&
	test_cmp want got &&
	grep -v "^#" d.out | awk "NR > 1 { print \$1, \$2 }" >got && test_cmp want got
'

test_expect_success 'the sender'"'"'s per-byte overhead follows O_send' '
	# O = 1 ns per byte: the Irecv models 1 us + 99 ns and lasts 0.2 us: 0.899 us owed
	printf "L = 0\no = 1us\ng = 0\nG = 0\nO = 1ns\nS = 100000\n" >o.params &&
	cp o.params os.params && echo "O_send = 0" >>os.params &&
	# the first Send models 1 us + 99 ns (O_send = O): gap 0.8 + (5 - 1.099 - 0.899) us
	trace2goal -p o.params --durations tr | sed -n "/^rank 0 {/,/^}/p" | grep "^l4: calc " >got &&
	echo "l4: calc 3802000" >want && test_cmp want got &&
	# with O_send = 0 it models 1 us: gap 0.8 + (5 - 1 - 0.899) us
	trace2goal -p os.params --durations tr | sed -n "/^rank 0 {/,/^}/p" | grep "^l4: calc " >got &&
	echo "l4: calc 3901000" >want && test_cmp want got
'

test_done
