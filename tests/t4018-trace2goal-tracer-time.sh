#!/bin/sh
# trace2goal and the tracer's own time (formats/trace.md 3.8, docs/trace2goal.md §7): a trace
# ending in "# tracer: <ns> ns after <n> returns" loses ns/n from each gap once per return
# inside it (the call the gap begins with and the calls inside that produce nothing), never
# below 0, what a short gap cannot give taken from the next gaps; --tracer-time keep (the default with --durations) leaves the gaps; a trace
# without the line keeps them; a "# flush: <ns> ns" line takes its time off the gap it lies
# in, and a bad one is an error (file:line). Exact calc values on a handwritten trace; then
# real traces of allprof carry the lines (a small buffer: flush lines after call lines).
. "$(dirname "$0")/lib.sh"

# mk DIR TRACER-LINE: both ranks (times in us after Init at 1000000): two Comm_rank inside
# the first gap, Send at +10 (returns +11), Recv at +20 (returns +21), Finalize at +30
mk() {
	mkdir -p "$1"
	for r in 0 1; do
		p=$((1 - r))
		{
			printf "# allprof 1.0 trace format 1\n# rank: %s of 2\n# comm 0 0,1\n# comm 1 %s\n" $r $r
			printf "MPI_Init:999990.000:1:2:1000000.000\n"
			printf "MPI_Comm_rank:1000002.000:0,%s,2:4096:1000002.100\n" $r
			printf "MPI_Comm_rank:1000004.000:0,%s,2:4096:1000004.100\n" $r
			[ -n "${FLUSH:-}" ] && printf "# flush: %s ns\n" "$FLUSH"
			if [ $r = 0 ]; then
				printf "MPI_Send:1000010.000:8192:100:1,1,1:%s:7:0,%s,2:1000011.000\n" $p $r
				printf "MPI_Recv:1000020.000:4096:100:1,1,1:%s:8:0,%s,2:%s,8,100:1000021.000\n" $p $r $p
			else
				printf "MPI_Recv:1000010.000:4096:100:1,1,1:%s:7:0,%s,2:%s,7,100:1000011.000\n" $p $r $p
				printf "MPI_Send:1000020.000:8192:100:1,1,1:%s:8:0,%s,2:1000021.000\n" $p $r
			fi
			printf "MPI_Finalize:1000030.000:1000030.100\n"
			[ -n "$2" ] && printf "%s\n" "$2"
			printf "# calls 6 records 6 collapsed 0 flushes 0\n# end 6 0\n"
		} >"$1/rank-$r.trace"
	done
}
calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | grep "^l[0-9]*: calc " | sed 's/^l[0-9]*: calc //'; }

test_expect_success '100 ns a return: the first gap holds 3 returns (Init, two Comm_rank), the others 1' '
	mk tr "# tracer: 600 ns after 6 returns" &&
	trace2goal -q tr >r.goal &&
	# 10 us - 3 x 0.1 us; 9 us - 0.1 us; 9 us - 0.1 us (Finalize)
	printf "%s\n" 9700000 8900000 8900000 >want &&
	calcs r.goal 0 >got0 && test_cmp want got0 &&
	calcs r.goal 1 >got1 && test_cmp want got1
'

test_expect_success '--tracer-time keep, and a trace without the line: the gaps as recorded' '
	trace2goal -q --tracer-time keep tr >k.goal &&
	printf "%s\n" 10000000 9000000 9000000 >want &&
	calcs k.goal 0 >got && test_cmp want got &&
	mk plain "" &&
	trace2goal -q plain >p.goal && calcs p.goal 0 >got && test_cmp want got
'

test_expect_success 'never below 0; a bad line is ignored' '
	mk big "# tracer: 60000000 ns after 6 returns" &&
	trace2goal -q big >b.goal &&
	printf "%s\n" 0 0 0 >want && calcs b.goal 0 >got && test_cmp want got &&
	mk bad "# tracer: lots of ns after 6 returns" &&
	trace2goal -q bad >x.goal && printf "%s\n" 10000000 9000000 9000000 >want && calcs x.goal 0 >got && test_cmp want got &&
	mk zero "# tracer: 600 ns after 0 returns" &&
	trace2goal -q zero >z.goal && calcs z.goal 0 >got && test_cmp want got
'

# mkshort DIR: rank 0 calls Comm_rank 0.05 us after Init returns and Send 0.05 us after
# that returns (a first gap of 0.15 us holding 2 returns), then as mk; rank 1 as mk
mkshort() {
	mkdir -p "$1"
	{
		printf "# allprof 1.0 trace format 1\n# rank: 0 of 2\n# comm 0 0,1\n# comm 1 0\n"
		printf "MPI_Init:999990.000:1:2:1000000.000\n"
		printf "MPI_Comm_rank:1000000.050:0,0,2:4096:1000000.100\n"
		printf "MPI_Send:1000000.150:8192:100:1,1,1:1:7:0,0,2:1000001.150\n"
		printf "MPI_Recv:1000010.000:4096:100:1,1,1:1:8:0,0,2:1,8,100:1000011.000\n"
		printf "MPI_Finalize:1000020.000:1000020.100\n"
		printf "# tracer: 800 ns after 4 returns\n# calls 4 records 4 collapsed 0 flushes 0\n# end 4 0\n"
	} >"$1/rank-0.trace"
	{
		printf "# allprof 1.0 trace format 1\n# rank: 1 of 2\n# comm 0 0,1\n# comm 1 1\n"
		printf "MPI_Init:999990.000:1:2:1000000.000\n"
		printf "MPI_Recv:1000010.000:4096:100:1,1,1:0:7:0,1,2:0,7,100:1000011.000\n"
		printf "MPI_Send:1000012.000:8192:100:1,1,1:0:8:0,1,2:1000013.000\n"
		printf "MPI_Finalize:1000020.000:1000020.100\n"
		printf "# calls 4 records 4 collapsed 0 flushes 0\n# end 4 0\n"
	} >"$1/rank-1.trace"
}

test_expect_success 'a gap shorter than its tracer time: the rest comes off the next gaps, in trace order' '
	mkshort sh &&
	trace2goal -q sh >s.goal &&
	# m = 0.2 us: the first gap (0.15 us, 2 returns) gives 0 and owes 0.25 us; the next
	# (Send return to Recv, 8.85 us) loses its own 0.2 and the 0.25; the last 9 us - 0.2
	printf "%s\n" 0 8400000 8800000 >want &&
	calcs s.goal 0 >got && test_cmp want got &&
	# in all the gaps lose 4 x 0.2 us: 18 us of gaps, 17.2 us of computation
	calcs s.goal 0 | awk "{ s += \$1 } END { print s }" >sum && test "$(cat sum)" = 17200000 &&
	# keep: as recorded
	trace2goal -q --tracer-time keep sh >sk.goal &&
	printf "%s\n" 150000 8850000 9000000 >want && calcs sk.goal 0 >got && test_cmp want got
'

test_expect_success '--durations keeps it by default (it replays the recorded run); remove is asked for' '
	trace2goal -q --durations tr >d.goal &&
	trace2goal -q --durations --tracer-time keep tr >dk.goal && test_cmp dk.goal d.goal &&
	trace2goal -q --durations --tracer-time remove tr >dr.goal && ! cmp -s d.goal dr.goal
'

test_expect_success 'a bad --tracer-time is a usage error' '
	expect_fail 2 trace2goal --tracer-time maybe tr &&
	grep -q "unknown --tracer-time .maybe. (remove or keep)" err
'

. "$TOP/tests/allprof-lib.sh"
if command -v mpirun >/dev/null 2>&1 && [ -x "$SAMPLES/persistent" ] && command -v allprof >/dev/null 2>&1; then
	test_expect_success 'allprof writes the line: as many returns as calls, a positive time' '
		allprof -q -o real -- mpirun -np 2 "$SAMPLES/persistent" 200 >real.out 2>real.err &&
		for r in 0 1; do
			c=$(sed -n "s/^# calls \([0-9]*\) .*/\1/p" real/rank-$r.trace) &&
			grep -q "^# tracer: [1-9][0-9]* ns after $c returns$" real/rank-$r.trace || return 1
		done &&
		trace2goal -q real >a.goal && trace2goal -q --tracer-time keep real >b.goal &&
		calcs a.goal 0 | awk "{ s += \$1 } END { print s }" >sa &&
		calcs b.goal 0 | awk "{ s += \$1 } END { print s }" >sb &&
		test "$(cat sa)" -lt "$(cat sb)" &&
		grep -q "^# tracer unseen: [0-9]* ns a call$" real/rank-0.trace
	'
	test_expect_success 'a small buffer: a flush line right after the record of each call that filled it' '
		ALLPROF_BUFSIZE=4096 allprof -q -o small -- mpirun -np 2 "$SAMPLES/persistent" 2000 >small.out 2>small.err &&
		n=$(grep -c "^# flush: [0-9]* ns$" small/rank-0.trace) && test "$n" -ge 3 &&
		# the line before each is a call line (a collapsed run of polls keeps its flushes in the total)
		awk "/^# flush: / { if (prev !~ /^MPI_/) bad = 1 } { prev = \$0 } END { exit bad }" small/rank-0.trace &&
		f=$(sed -n "s/^# flush: \([0-9]*\) ns$/\1/p" small/rank-0.trace | awk "{ s += \$1 } END { print s }") &&
		test "$f" -gt 0 &&
		trace2goal -q small >sm.goal && trace2goal -q --tracer-time keep small >smk.goal &&
		a=$(calcs sm.goal 0 | awk "{ s += \$1 } END { printf \"%.0f\", s }") &&
		k=$(calcs smk.goal 0 | awk "{ s += \$1 } END { printf \"%.0f\", s }") &&
		echo "flushes $f ns; calc $a ps, kept $k ps" && test "$((k - a))" -ge "$((f * 1000 / 2))"
	'
else
	test_skip 'allprof writes the line: as many returns as calls, a positive time' 'MPI or the samples missing'
	test_skip 'a small buffer: a flush line right after the record of each call that filled it' 'MPI or the samples missing'
fi

test_expect_success 'a flush line: its time comes off the gap it lies in, once, and not with keep' '
	rm -rf fl && FLUSH=2500 mk fl "# tracer: 600 ns after 6 returns" &&
	trace2goal -q fl >f.goal &&
	# the first gap (10 us) also loses the 2.5 us flush the line after the second Comm_rank says
	printf "%s\n" 7200000 8900000 8900000 >want &&
	calcs f.goal 0 >got && test_cmp want got &&
	trace2goal -q --tracer-time keep fl >fk.goal &&
	printf "%s\n" 10000000 9000000 9000000 >want &&
	calcs fk.goal 0 >got && test_cmp want got &&
	# a flush longer than its gap leaves 0, never less
	rm -rf big && FLUSH=50000 mk big "" &&
	trace2goal -q big >b.goal &&
	printf "%s\n" 0 9000000 9000000 >want && calcs b.goal 0 >got && test_cmp want got
'

test_expect_success 'a bad flush line: file:line and exit 1' '
	rm -rf bad && FLUSH=lots mk bad "" &&
	expect_fail 1 trace2goal -q bad &&
	grep -q "^trace2goal: bad/rank-0.trace:8: expected .# flush: <ns> ns., found .# flush: lots ns." err
'

test_done
