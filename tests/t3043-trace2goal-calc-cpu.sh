#!/bin/sh
# trace2goal --calc cpu (docs/trace2goal.md section 2, "Wall or CPU time"): with the CPU
# times of trace format 2 (formats/trace.md section 3.6), a gap is its wall time less the
# time the thread was off its CPU in it; --calc wall (the default) keeps the wall time;
# traces without CPU times, or with bad ones, are refused; not with --sync.
. "$(dirname "$0")/lib.sh"

# Rank r (times in us; CPU times after "c"): Init returns at 1000 (CPU 50), a Send at 1010
# (CPU 54: 6 us of the 10 off the CPU), a Recv at 1030 (CPU 70: 4 off), Finalize at 1035
# (CPU 75: all on it).
mkdir tr
for r in 0 1; do
	p=$((1 - r))
	cat >tr/rank-$r.trace <<EOF2
# allprof 1.0 trace format 2
# rank: $r of 2
# cpu: thread, microseconds
# comm 0 0,1
# comm 1 $r
MPI_Init:990.000:1:2:1000.000:c40.000,50.000
MPI_Send:1010.000:8192:100:1,1,1:$p:7:0,$r,2:1011.000:c54.000,54.500
MPI_Recv:1030.000:4096:100:1,1,1:$p:7:0,$r,2:$p,7,100:1031.000:c70.000,70.200
MPI_Finalize:1035.000:1035.100:c75.000,75.010
# end 4 0
EOF2
done

calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | grep "^l[0-9]*: calc " | sed 's/^l[0-9]*: calc //'; }

test_expect_success 'wall time by default, CPU time with --calc cpu' '
	trace2goal tr >w.goal && trace2goal --calc wall tr >w2.goal && test_cmp w.goal w2.goal &&
	printf "%s\n" 10000000 19000000 4000000 >want && calcs w.goal 0 >got && test_cmp want got &&
	trace2goal --calc cpu tr >c.goal &&
	# gaps: 10 us wall, 4 us CPU; 19 us wall, 15.5 us CPU (70 - 54.5); 4 us wall, 4.8 us
	# CPU (75 - 70.2: more than the wall gap, so nothing is off the CPU): 4 us
	printf "%s\n" 4000000 15500000 4000000 >want && calcs c.goal 0 >got && test_cmp want got &&
	calcs c.goal 1 >got && test_cmp want got &&
	# the rest of the schedule is the same
	grep -v "calc" w.goal >a && grep -v "calc" c.goal >b && test_cmp a b
'

test_expect_success '--cpu-scale multiplies the CPU time' '
	trace2goal --calc cpu --cpu-scale 2 tr >s.goal &&
	printf "%s\n" 8000000 31000000 8000000 >want && calcs s.goal 0 >got && test_cmp want got
'

test_expect_success 'a version-1 trace has no CPU times: --calc cpu says so' '
	mkdir v1 && for r in 0 1; do sed -e "s/:c[0-9.,]*$//" -e "/^# cpu/d" tr/rank-$r.trace >v1/rank-$r.trace; done &&
	trace2goal v1 >v.goal && test_cmp w.goal v.goal &&
	expect_fail 1 trace2goal --calc cpu v1 &&
	grep -q "^trace2goal: v1/rank-0.trace:[0-9]*: MPI_Send: no CPU times (trace with allprof --cpu-time, or convert with --calc wall)" err
'

test_expect_success 'bad CPU fields, and usage errors' '
	mkdir bad && cp tr/rank-1.trace bad/ &&
	sed "s/c54.000,54.500/c54.000,53.000/" tr/rank-0.trace >bad/rank-0.trace &&
	expect_fail 1 trace2goal bad &&
	grep -q "^trace2goal: bad/rank-0.trace:7: MPI_Send: expected CPU times .c<call>,<return>. in microseconds, found .c54.000,53.000.$" err &&
	sed "s/c54.000,54.500/c54.000/" tr/rank-0.trace >bad/rank-0.trace &&
	expect_fail 1 trace2goal bad && grep -q "rank-0.trace:7: MPI_Send: expected CPU times" err &&
	sed "s/c54.000,54.500/cx,1/" tr/rank-0.trace >bad/rank-0.trace &&
	expect_fail 1 trace2goal bad && grep -q "rank-0.trace:7: MPI_Send: expected CPU times" err &&
	expect_fail 2 trace2goal --calc both tr && grep -q "unknown --calc .both. (wall or cpu)" err &&
	expect_fail 2 trace2goal --calc cpu --durations --sync tr && grep -q "cannot be used with --calc cpu" err
'

# A wait by polling (docs/trace2goal.md §2.1): rank 0 posts a receive (returns at 1010.5,
# CPU 54.2), polls for it from 1012 to 1030 wall with 2 us of CPU (55 to 57: mostly off its
# CPU) and waits for it at 1032 (CPU 58). The run of polls is a wait: its span leaves the
# computation, in the clock the gap is in.
mkdir pw
cat >pw/rank-0.trace <<'EOF2'
# allprof 1.0 trace format 2
# rank: 0 of 2
# cpu: thread, microseconds
# comm 0 0,1
# comm 1 0
MPI_Init:990.000:1:2:1000.000:c40.000,50.000
MPI_Irecv:1010.000:100:1:1,4,4:1:7:0,0,2:r1:1010.500:c54.000,54.200
MPI_Test:1012.000:r1:0:-:3:1030.000:c55.000,57.000
MPI_Waitall:1032.000:1:r1:1,7,4:1033.000:c58.000,58.100
MPI_Finalize:1035.000:1035.100:c60.000,60.010
# end 5 0
EOF2
cat >pw/rank-1.trace <<'EOF2'
# allprof 1.0 trace format 2
# rank: 1 of 2
# cpu: thread, microseconds
# comm 0 0,1
# comm 1 1
MPI_Init:990.000:1:2:1000.000:c40.000,50.000
MPI_Send:1020.000:100:1:1,4,4:0:7:0,1,2:1021.000:c60.000,60.500
MPI_Finalize:1035.000:1035.100:c70.000,70.010
# end 3 0
EOF2

test_expect_success 'a wait by polling leaves the computation: its wall span, or with --calc cpu its CPU span' '
	trace2goal --poll-from 50ns --poll-to 50ns pw >pw.goal &&
	# the gap before the wait: 21.5 us wall less the 18 us of the polls
	calcs pw.goal 0 | sed -n 3p >got && echo 3500000 >want && test_cmp want got &&
	trace2goal --calc cpu --poll-from 50ns --poll-to 50ns pw >pc.goal &&
	# 3.8 us of CPU less the 2 us the polls held (their wall span would leave nothing)
	calcs pc.goal 0 | sed -n 3p >got && echo 1800000 >want && test_cmp want got &&
	# without the poll model the polls stay as computation
	trace2goal --calc cpu pw >pn.goal &&
	calcs pn.goal 0 | sed -n 3p >got && echo 3800000 >want && test_cmp want got
'

test_done
