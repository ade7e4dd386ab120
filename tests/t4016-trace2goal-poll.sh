#!/bin/sh
# trace2goal's poll model (docs/trace2goal.md §2.1): with the time of one unsuccessful poll on
# the traced network (--poll-from) and on the target (--poll-to), a run of unsuccessful polls
# ended by a successful probe or a blocking receive is a wait whose span leaves the
# computation, and every other run's polls cost the target's time instead of the traced one.
# Exact calcs on a handwritten 2-rank trace; without both costs nothing changes; the params
# key `poll` gives the side -p describes; bad values are usage errors.
. "$(dirname "$0")/lib.sh"

# Rank 0 (us after Init at 1000000): run A, 50 polls over 10..20 (a Comm_rank inside does
# not end it), a successful Iprobe at 21, its Recv at 22..23: a wait of span 10. An Irecv
# at 30; run B, 20 unsuccessful Tests over 40..50, the successful Test at 51: work. Run C,
# 10 Iprobes over 60..62, then a Send at 70: work. Finalize at 80.
mkdir tr
cat >tr/rank-0.trace <<\EOF
# allprof 1.0 trace format 1
# rank: 0 of 2
# comm 0 0,1
# comm 1 0
MPI_Init:999990.000:1:2:1000000.000
MPI_Iprobe:1000010.000:-1:7:0,0,2:0:-:50:1000020.000
MPI_Comm_rank:1000020.200:0,0,2:3:1000020.300
MPI_Iprobe:1000021.000:-1:7:0,0,2:1:1,7,8:1:1000021.500
MPI_Recv:1000022.000:4096:8:1,1,1:1:7:0,0,2:1,7,8:1000023.000
MPI_Irecv:1000030.000:4096:8:1,1,1:1:8:0,0,2:r1:1000030.100
MPI_Test:1000040.000:r1:0:-:20:1000050.000
MPI_Test:1000051.000:r1:1:1,8,8:1:1000051.500
MPI_Iprobe:1000060.000:-1:9:0,0,2:0:-:10:1000062.000
MPI_Send:1000070.000:4096:8:1,1,1:1:9:0,0,2:1000071.000
MPI_Finalize:1000080.000:1000080.100
# end 11 0
EOF
cat >tr/rank-1.trace <<\EOF
# allprof 1.0 trace format 1
# rank: 1 of 2
# comm 0 0,1
# comm 1 1
MPI_Init:999990.000:1:2:1000000.000
MPI_Send:1000005.000:4096:8:1,1,1:0:7:0,1,2:1000006.000
MPI_Send:1000035.000:4096:8:1,1,1:0:8:0,1,2:1000036.000
MPI_Recv:1000065.000:4096:8:1,1,1:0:9:0,1,2:0,9,8:1000075.000
MPI_Finalize:1000080.000:1000080.100
# end 5 0
EOF
printf 'L = 0\no = 1us\ng = 0\nG = 0\nO = 0\nS = 100000\n' >base.params
# calcs GOAL RANK: the values of the rank's calcs on one line
calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | sed -n "s/^l[0-9]*: calc //p" | tr "\n" " "; }

test_expect_success 'without poll costs: polls count as computation, as recorded' '
	trace2goal -p base.params tr >off.goal &&
	test "$(calcs off.goal 0)" = "22000000 7000000 0 20900000 18500000 9000000 "
'

# run A leaves (22 - 10 = 12 us); run B: 20 * (500 - 100) ns more (20.9 + 8 = 28.9 us);
# run C: 10 * 400 ns more (18.5 + 4 = 22.5 us); rank 1 has no polls
test_expect_success 'a wait leaves the computation, work polls cost the target network'"'"'s poll' '
	trace2goal -p base.params --poll-from 100ns --poll-to 500ns tr >on.goal 2>err && test ! -s err &&
	test "$(calcs on.goal 0)" = "12000000 7000000 0 28900000 22500000 9000000 " &&
	test "$(calcs on.goal 1)" = "$(calcs off.goal 1)"
'

test_expect_success 'a faster target: the polls cost less, never below zero' '
	trace2goal -p base.params --poll-from 500ns --poll-to 100ns tr >down.goal &&
	test "$(calcs down.goal 0)" = "12000000 7000000 0 12900000 14500000 9000000 " &&
	trace2goal -p base.params --poll-from 2us --poll-to 0 tr >floor.goal &&
	test "$(calcs floor.goal 0)" = "12000000 7000000 0 0 0 9000000 "
'

test_expect_success 'the same network: only the wait changes' '
	trace2goal -p base.params --poll-from 300ns --poll-to 300ns tr >same.goal &&
	test "$(calcs same.goal 0)" = "12000000 7000000 0 20900000 18500000 9000000 "
'

test_expect_success 'one cost alone changes nothing' '
	trace2goal -p base.params --poll-to 500ns tr >one.goal && test_cmp off.goal one.goal &&
	trace2goal -p base.params --poll-from 500ns tr >one.goal && test_cmp off.goal one.goal
'

test_expect_success 'the key poll of -p is the target'"'"'s, or with --durations the traced network'"'"'s' '
	{ cat base.params; echo "poll = 500ns"; } >poll.params &&
	trace2goal -p poll.params --poll-from 100ns tr >k.goal && test_cmp on.goal k.goal &&
	trace2goal -p poll.params tr >k2.goal && test_cmp off.goal k2.goal &&
	trace2goal -p poll.params --poll-to 500ns --poll-from 100ns tr >k3.goal && test_cmp on.goal k3.goal &&
	# --durations: -p is the traced network, 500 ns there; 100 ns on the target
	trace2goal --durations -p poll.params --poll-to 100ns tr >d.goal &&
	trace2goal --durations -p base.params --poll-from 500ns --poll-to 100ns tr >d2.goal && test_cmp d.goal d2.goal &&
	! test_cmp d.goal off.goal >/dev/null
'

test_expect_success 'the wait rule with --durations --sync too' '
	trace2goal --durations --sync -p base.params tr >s-off.goal &&
	trace2goal --durations --sync -p base.params --poll-from 300ns --poll-to 300ns tr >s-on.goal &&
	! test_cmp s-off.goal s-on.goal >/dev/null &&
	goalc -o s-on.goalb s-on.goal && ibsim -q -p base.params --async-progress s-on.goalb >s.tsv
'

test_expect_success '--compat schedgen ignores the poll model' '
	trace2goal --compat schedgen tr >c1.goal &&
	trace2goal --compat schedgen --poll-from 100ns --poll-to 500ns tr >c2.goal &&
	test_cmp c1.goal c2.goal
'

# With --poll-tests wait a run ended by a successful Test is a wait when the trace says how far apart a collapsed
# line's polls can be ("# collapse gap:", formats/trace.md 3.2) and no gap between the run's
# lines reached it (docs/trace2goal.md 2.1). Rank 0 of "tr" with that header and the
# successful Test of run B at 50.5 (its return at 51): the gap 20.4 us before it loses run
# B's span of 10 us, and run C stays work (19 + 10 * 0.4 = 23 us).
gapped() { # DIR SED-SCRIPT: tr with the collapse gap header and rank 0 edited
	mkdir "$1" && cp tr/rank-1.trace "$1"/ &&
	sed -e "1a# collapse gap: 1000 ns" -e "s/^MPI_Test:1000051.000:r1:1:1,8,8:1:1000051.500$/MPI_Test:1000050.500:r1:1:1,8,8:1:1000051.000/" \
		-e "$2" tr/rank-0.trace >"$1"/rank-0.trace
}

test_expect_success 'collapse gap: a run of polls alone ended by a successful Test is a wait' '
	gapped g1 "" &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns g1 >g1.goal 2>err && test ! -s err &&
	test "$(calcs g1.goal 0)" = "12000000 7000000 0 10400000 23000000 9000000 " &&
	# on the same network too: the wait is the dataflow'"'"'s
	trace2goal -p base.params --poll-tests wait --poll-from 300ns --poll-to 300ns g1 >g1s.goal &&
	test "$(calcs g1s.goal 0)" = "12000000 7000000 0 10400000 19000000 9000000 "
'

test_expect_success 'collapse gap: without the header, or with 1 us to the successful Test, it stays work' '
	mkdir g0 && cp tr/rank-1.trace g0/ && sed "2d" g1/rank-0.trace >g0/rank-0.trace &&
	sed -n 2p g1/rank-0.trace | grep -q "^# collapse gap: 1000 ns$" &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns g0 >g0.goal &&
	test "$(calcs g0.goal 0)" = "12000000 7000000 0 28400000 23000000 9000000 " &&
	mkdir g2 && cp tr/rank-1.trace g2/ && sed "1a# collapse gap: 1000 ns" tr/rank-0.trace >g2/rank-0.trace &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns g2 >g2.goal &&
	test "$(calcs g2.goal 0)" = "12000000 7000000 0 28900000 22500000 9000000 "
'

test_expect_success 'collapse gap: --poll-tests work keeps the run work; auto, the default, is wait here' '
	trace2goal -p base.params --poll-tests work --poll-from 100ns --poll-to 500ns g1 >w2.goal &&
	test "$(calcs w2.goal 0)" = "12000000 7000000 0 28400000 23000000 9000000 " &&
	# rank 0 ends its only run of Tests in a completion (run C has no Test in it)
	trace2goal -p base.params --poll-from 100ns --poll-to 500ns g1 >a1.goal &&
	trace2goal -p base.params --poll-tests auto --poll-from 100ns --poll-to 500ns g1 >a2.goal &&
	test_cmp a1.goal a2.goal && test_cmp g1.goal a1.goal
'

# --poll-tests overlap: the same run leaves the gap as a wait does (10.4 us), and its 20 polls at
# the target's 500 ns run on CPU 1 after that gap, beside the wait; the completion requires
# both. Replayed (L = 0, o = 1 us): rank 1's message of run B arrives at 36 us, the polls end
# at 20 + 10.4 + 10 = 40.4 us, so the Test completes then (work: 20 + 28.4 + 1 = 49.4 us;
# wait: at 37 us); rank 0 sends at 63.4 us (its 23 us after), rank 1 takes it in at 65 us
# and ends at 71, rank 0 after its last 9 us at 73.4
test_expect_success 'collapse gap: --poll-tests overlap runs the polls beside the wait, the longer of the two' '
	trace2goal -p base.params --poll-tests overlap --poll-from 100ns --poll-to 500ns g1 >o1.goal 2>err && test ! -s err &&
	test "$(calcs o1.goal 0)" = "12000000 7000000 0 10400000 10000000 cpu 1 23000000 9000000 " &&
	grep -q "^l7 requires l6\$" o1.goal && grep -q "^l5 requires l7\$" o1.goal && grep -q "^l5 requires l3\$" o1.goal &&
	for m in work wait overlap; do
		trace2goal -p base.params --poll-tests $m --poll-from 100ns --poll-to 500ns g1 >m.goal &&
		ibsim -q -p base.params m.goal | awk "\$1 ~ /^[01]\$/ { printf \"%s \", \$2 }" >$m.ends || return 1
	done &&
	test "$(cat work.ends)" = "82400000 79400000 " && test "$(cat wait.ends)" = "70000000 71000000 " &&
	test "$(cat overlap.ends)" = "73400000 71000000 "
'

test_expect_success 'collapse gap: overlapped polls whose Test completes nothing known stay work, in the next gap' '
	mkdir gu && cp g1/rank-1.trace gu/ &&
	sed "s/^MPI_Test:1000050.500:r1:1:/MPI_Test:1000050.500:r7:1:/" g1/rank-0.trace >gu/rank-0.trace &&
	trace2goal -p base.params --poll-tests overlap --poll-from 100ns --poll-to 500ns gu >gu.goal &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns gu >guw.goal &&
	test "$(calcs gu.goal 0)" = "12000000 7000000 43900000 9000000 " &&
	test "$(calcs guw.goal 0)" = "12000000 7000000 33900000 9000000 "
'

test_expect_success 'collapse gap: --poll-tests wait is refused with --durations, and bad values' '
	expect_fail 2 trace2goal --durations --poll-tests wait -p base.params g1 &&
	grep -q "^trace2goal: --poll-tests wait cannot be used with --durations" err &&
	expect_fail 2 trace2goal --poll-tests maybe g1 &&
	grep -q "^trace2goal: unknown --poll-tests .maybe. (auto, work, wait or overlap)" err &&
	expect_fail 2 trace2goal --durations --poll-tests overlap -p base.params g1 &&
	grep -q "^trace2goal: --poll-tests overlap cannot be used with --durations" err &&
	expect_fail 2 trace2goal --durations --poll-tests auto -p base.params g1 &&
	grep -q "^trace2goal: --poll-tests auto cannot be used with --durations" err &&
	trace2goal --durations --poll-tests work -p base.params --poll-from 100ns --poll-to 500ns g1 >d1.goal &&
	trace2goal --durations -p base.params --poll-from 100ns --poll-to 500ns g0 >d0.goal &&
	test_cmp d0.goal d1.goal
'

test_expect_success 'collapse gap: work between two lines of the run keeps it work, a flush there does not' '
	gapped g3 "s/^MPI_Test:1000040.000:r1:0:-:20:1000050.000$/MPI_Test:1000040.000:r1:0:-:10:1000045.000\nMPI_Test:1000046.500:r1:0:-:10:1000050.000/" &&
	test "$(grep -c "^MPI_Test:" g3/rank-0.trace)" = 3 &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns g3 >g3.goal &&
	test "$(calcs g3.goal 0)" = "12000000 7000000 0 28400000 23000000 9000000 " &&
	# the 1.5 us gap held a flush of 1 us: 0.5 us of polling, a wait; the flush is taken
	# out of the gap once (docs/trace2goal.md 7), not a second time with the span
	gapped g4 "s/^MPI_Test:1000040.000:r1:0:-:20:1000050.000$/MPI_Test:1000040.000:r1:0:-:10:1000045.000\n# flush: 1000 ns\nMPI_Test:1000046.500:r1:0:-:10:1000050.000/" &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns g4 >g4.goal &&
	test "$(calcs g4.goal 0)" = "12000000 7000000 0 10400000 23000000 9000000 "
'

test_expect_success 'a Test of MPI_REQUEST_NULL completes nothing: it neither ends a run nor counts as a poll' '
	# run C (10 Iprobes, then a Send: work) with MPI_Test(r0) after its polls: the run stays
	# work, of 10 polls, in both rules; taken for a completion it made run C a wait
	gapped n6 "s/^MPI_Iprobe:1000060.000:-1:9:0,0,2:0:-:10:1000062.000$/&\nMPI_Test:1000062.100:r0:1:-1,-1,0:1:1000062.200/" &&
	test "$(grep -c "^MPI_Test:1000062.100:r0:" n6/rank-0.trace)" = 1 &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns n6 >n6.goal &&
	test "$(calcs n6.goal 0)" = "12000000 7000000 0 10400000 23000000 9000000 " &&
	trace2goal -p base.params --poll-tests work --poll-from 100ns --poll-to 500ns n6 >n6w.goal &&
	test "$(calcs n6w.goal 0)" = "12000000 7000000 0 28400000 23000000 9000000 " &&
	# MPI_Testall of null requests alike
	gapped n7 "s/^MPI_Iprobe:1000060.000:-1:9:0,0,2:0:-:10:1000062.000$/&\nMPI_Testall:1000062.100:2:r0,r0:1:-1,-1,0;-1,-1,0:1:1000062.200/" &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns n7 >n7.goal &&
	test "$(calcs n7.goal 0)" = "12000000 7000000 0 10400000 23000000 9000000 "
'

# --poll-tests auto (the default): a run of Tests ended by a completion is a wait only in a rank
# that ends every such run in a completion. Rank 0 of "lv": run A, 20 Tests over 11..21 us and
# the successful Test at 21.5; run B, 10 Tests of another request over 31..36, left for a Send
# at 40 before its Wait at 42. As work run A's gap (10.1 .. 21.5) is 11.4 + 20 * 0.4 = 19.4 us,
# as a wait 11.4 - 10 = 1.4 us; run B ends in no completion, work either way: 9.9 + 10 * 0.4 =
# 13.9 us. "bl" is "lv" without the Send (and without rank 1's Recv of it): run B ends in the
# Wait, a wait (11.9 - 5 = 6.9 us), so the rank only loops until its requests complete.
mkdir lv bl
cat >lv/rank-0.trace <<\EOF
# allprof 1.0 trace format 1
# rank: 0 of 2
# collapse gap: 1000 ns
# comm 0 0,1
# comm 1 0
MPI_Init:999990.000:1:2:1000000.000
MPI_Irecv:1000010.000:4096:8:1,1,1:1:8:0,0,2:r1:1000010.100
MPI_Test:1000011.000:r1:0:-:20:1000021.000
MPI_Test:1000021.500:r1:1:1,8,8:1:1000022.000
MPI_Irecv:1000030.000:4096:8:1,1,1:1:9:0,0,2:r2:1000030.100
MPI_Test:1000031.000:r2:0:-:10:1000036.000
MPI_Send:1000040.000:4096:8:1,1,1:1:7:0,0,2:1000041.000
MPI_Wait:1000042.000:r2:1,9,8:1000043.000
MPI_Finalize:1000050.000:1000050.100
# end 9 0
EOF
cat >lv/rank-1.trace <<\EOF
# allprof 1.0 trace format 1
# rank: 1 of 2
# collapse gap: 1000 ns
# comm 0 0,1
# comm 1 1
MPI_Init:999990.000:1:2:1000000.000
MPI_Send:1000005.000:4096:8:1,1,1:0:8:0,1,2:1000006.000
MPI_Send:1000025.000:4096:8:1,1,1:0:9:0,1,2:1000026.000
MPI_Recv:1000039.000:4096:8:1,1,1:0:7:0,1,2:0,7,8:1000045.000
MPI_Finalize:1000050.000:1000050.100
# end 5 0
EOF
grep -v "^MPI_Send:1000040" lv/rank-0.trace >bl/rank-0.trace
grep -v "^MPI_Recv:1000039" lv/rank-1.trace >bl/rank-1.trace

test_expect_success 'auto: a rank that leaves a run of Tests for a send keeps all its runs of Tests work' '
	trace2goal -p base.params --poll-from 100ns --poll-to 500ns lv >lv.goal 2>err && test ! -s err &&
	test "$(calcs lv.goal 0)" = "10000000 0 19400000 8000000 13900000 0 1000000 7000000 " &&
	trace2goal -p base.params --poll-tests work --poll-from 100ns --poll-to 500ns lv >lvw.goal &&
	test_cmp lv.goal lvw.goal &&
	trace2goal -p base.params --poll-tests wait --poll-from 100ns --poll-to 500ns lv >lvt.goal &&
	test "$(calcs lvt.goal 0)" = "10000000 0 1400000 8000000 13900000 0 1000000 7000000 "
'

test_expect_success 'auto: a rank whose runs of Tests all end in completions (a Test, a Wait) waits' '
	trace2goal -p base.params --poll-from 100ns --poll-to 500ns bl >bl.goal 2>err && test ! -s err &&
	test "$(calcs bl.goal 0)" = "10000000 0 1400000 8000000 0 6900000 7000000 " &&
	trace2goal -p base.params --poll-tests work --poll-from 100ns --poll-to 500ns bl >blw.goal &&
	test "$(calcs blw.goal 0)" = "10000000 0 19400000 8000000 0 6900000 7000000 " &&
	# rank 1 has no polls: the same in both modes
	test "$(calcs bl.goal 1)" = "$(calcs blw.goal 1)" &&
	# and the replay ends earlier: the 18 us of run A as work are gone
	goalc -o bl.goalb bl.goal && goalc -o blw.goalb blw.goal &&
	ibsim -q -p base.params bl.goalb | awk "\$1 == 0 { print \$2 }" >bl.end &&
	ibsim -q -p base.params blw.goalb | awk "\$1 == 0 { print \$2 }" >blw.end &&
	test "$(cat bl.end)" -lt "$(cat blw.end)"
'

test_expect_success 'auto: a null Test between the run and the send (HPCC RandomAccess) does not hide the leaving' '
	mkdir hp && cp lv/rank-1.trace hp/ &&
	sed "s/^MPI_Send:1000040.000/MPI_Test:1000037.000:r0:1:-1,-1,0:1:1000037.100\n&/" lv/rank-0.trace >hp/rank-0.trace &&
	test "$(grep -c "^MPI_Test:1000037.000:r0:" hp/rank-0.trace)" = 1 &&
	trace2goal -p base.params --poll-from 100ns --poll-to 500ns hp >hp.goal &&
	test "$(calcs hp.goal 0)" = "10000000 0 19400000 8000000 13900000 0 1000000 7000000 "
'

test_expect_success 'auto: a run of Tests the trace ends in counts as left; runs without a Test do not count' '
	# run B left for MPI_Finalize, its request never waited for
	mkdir fin && cp bl/rank-1.trace fin/ && grep -v "^MPI_Wait:" bl/rank-0.trace >fin/rank-0.trace &&
	trace2goal -q -p base.params --poll-from 100ns --poll-to 500ns fin >fin.goal &&
	trace2goal -q -p base.params --poll-tests work --poll-from 100ns --poll-to 500ns fin >finw.goal &&
	test "$(calcs fin.goal 0)" = "$(calcs finw.goal 0)" &&
	test "$(calcs fin.goal 0)" = "10000000 0 19400000 8000000 23900000 " &&
	# rank 0 of g1 leaves run C (Iprobes, no Test) for a send, and waits in run B
	test "$(calcs a1.goal 0)" = "12000000 7000000 0 10400000 23000000 9000000 "
'

test_expect_success 'auto: a bad line after the first run of Tests is reported with file and line, as without it' '
	mkdir bad && cp bl/rank-1.trace bad/ &&
	sed "s/^MPI_Wait:1000042.000:r2:1,9,8:1000043.000$/MPI_Wait:1000042.000:r2:1,9,8:10000x3.000/" bl/rank-0.trace >bad/rank-0.trace &&
	expect_fail 1 trace2goal -p base.params --poll-from 100ns --poll-to 500ns bad &&
	grep -q "^trace2goal: bad/rank-0.trace:12: MPI_Wait: expected a return time in microseconds, found .10000x3.000." err &&
	cp err err.auto &&
	expect_fail 1 trace2goal -p base.params --poll-tests work --poll-from 100ns --poll-to 500ns bad &&
	test_cmp err.auto err
'

test_expect_success 'collapse gap: with --calc cpu a gap is its CPU time when that is less' '
	# CPU times: the wall time less 999000 us, and 1.3 us less from the gap between the two
	# lines of run B on (the rank was off its CPU there)
	mkdir g5 && cp tr/rank-1.trace g5/ &&
	awk -F: -v OFS=: "/^MPI_/ { c = \$2 - 999000; r = \$NF - 999000; if (c > 1046) c -= 1.3; if (r > 1046) r -= 1.3; \$0 = \$0 \":c\" sprintf(\"%.3f,%.3f\", c, r) } { print }" g3/rank-0.trace |
		sed -e "s/trace format 1/trace format 2/" -e "1a# cpu: thread, microseconds" >g5/rank-0.trace &&
	awk -F: -v OFS=: "/^MPI_/ { \$0 = \$0 \":c\" sprintf(\"%.3f,%.3f\", \$2 - 999000, \$NF - 999000) } { print }" tr/rank-1.trace |
		sed -e "s/trace format 1/trace format 2/" -e "1a# cpu: thread, microseconds" >g5/rank-1.trace &&
	grep -q "^MPI_Test:1000046.500:r1:0:-:10:1000050.000:c1045.200,1048.700$" g5/rank-0.trace &&
	trace2goal -p base.params --poll-tests wait --calc wall --poll-from 100ns --poll-to 500ns g5 >g5w.goal &&
	test "$(calcs g5w.goal 0)" = "12000000 7000000 0 28400000 23000000 9000000 " &&
	# 0.2 us of CPU between the lines: a wait; the gap, 19.1 us of CPU, less the CPU span 8.7
	trace2goal -p base.params --poll-tests wait --calc cpu --poll-from 100ns --poll-to 500ns g5 >g5c.goal &&
	test "$(calcs g5c.goal 0)" = "12000000 7000000 0 10400000 23000000 9000000 "
'

test_expect_success 'collapse gap: a bad header line is an error with file and line' '
	mkdir g6 && cp tr/rank-1.trace g6/ && sed "1a# collapse gap: soon" tr/rank-0.trace >g6/rank-0.trace &&
	expect_fail 1 trace2goal g6 &&
	grep -q "^trace2goal: g6/rank-0.trace:2: expected .# collapse gap: <ns> ns. (1 ns to 1000 s)" err &&
	sed "1a# collapse gap: 0 ns" tr/rank-0.trace >g6/rank-0.trace &&
	expect_fail 1 trace2goal g6 && grep -q "g6/rank-0.trace:2: expected" err
'

test_expect_success 'bad poll times are usage errors' '
	{ trace2goal --poll-from abc tr 2>err; test $? = 2; } &&
	grep -q "^trace2goal: invalid time for --poll-from: .abc." err &&
	{ trace2goal --poll-to 2s tr 2>err; test $? = 2; } &&
	grep -q "^trace2goal: invalid --poll-to .2s. (expected a time up to 1 s)" err &&
	printf "poll = fast\n" >bad.params &&
	{ trace2goal -p bad.params tr 2>err; test $? = 1; } &&
	grep -q "bad.params:1" err
'

test_done
