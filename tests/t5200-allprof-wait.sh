#!/bin/sh
# allprof: wildcard receives, probes, and the Wait/Test families, checked
# against what the sample programs saw.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

test_expect_success 'wildcard: statuses give the real source, tag and size of each receive' '
	traced wc 3 "$SAMPLES/wildcard" 6 &&
	f=wc/rank-0.trace && complete $f && monotonic $f &&
	awk "{print \$3 \",\" \$4 \",\" \$5}" wc.out >expect &&
	grep "^MPI_Recv:\|^MPI_Mrecv:" $f | sed "\$d" |
		awk -F: "/^MPI_Recv:/ {print \$9} /^MPI_Mrecv:/ {print \$7}" >got &&
	test "$(wc -l <expect)" = 12 &&
	test_cmp expect got
'

test_expect_success 'wildcard: receives ask for any source and tag, probes see what follows' '
	f=wc/rank-0.trace &&
	test "$(calls MPI_Recv $f | cut -d: -f5,6 | grep -c "^-1:-1$")" = 3 &&
	echo "-1:-1" >expect &&
	calls MPI_Probe $f | cut -d: -f2,3 | sort -u >got &&
	test_cmp expect got &&
	grep "^MPI_Probe:" -A1 $f | grep -v "^--" | awk -F: "/^MPI_Probe/ {s = \$(NF-1)} /^MPI_Recv/ { if (\$9 != s) bad = 1 } END { exit bad }"
'

test_expect_success 'wildcard: Mprobe and Mrecv share a message id; PROC_NULL receive' '
	f=wc/rank-0.trace &&
	calls MPI_Mprobe $f | cut -d: -f5 >m1 &&
	calls MPI_Mrecv $f | cut -d: -f5 >m2 &&
	printf "m1\nm2\nm3\n" >expect && test_cmp expect m1 && test_cmp expect m2 &&
	tail -n 1 wc.out >/dev/null &&
	grep "^MPI_Recv:" $f | tail -n 1 | cut -d: -f4-9 >got &&
	echo "1:10,8,8:-2:0:0,0,3:-2,-1,0" >expect && test_cmp expect got
'

test_expect_success 'wildcard: unsuccessful Iprobe runs are collapsed with a count' '
	f=wc/rank-0.trace &&
	calls MPI_Iprobe $f >ip &&
	grep -q ":1:[0-9]*,[0-9]*,[0-9]*:1$" ip &&
	! grep -v ":1:[0-9]*,[0-9]*,[0-9]*:1$" ip | grep -v ":-1:-1:0,0,3:0:-:[0-9]*$" &&
	awk -F: "\$(NF-1) == \"-\" { n += \$NF } END { print n + 0 }" ip >polls &&
	grep -q "^# calls [0-9]* records [0-9]* collapsed [0-9]* " $f &&
	set -- $(grep "^# calls" $f) &&
	test $(( $3 - $5 )) = "$7"
'

test_expect_success 'nonblock: Waitall, Waitany, Waitsome, Test* report what completed' '
	traced nb 2 "$SAMPLES/nonblock" &&
	f=nb/rank-0.trace && complete $f && complete nb/rank-1.trace &&
	grep "^MPI_Waitany" nb.out | cut -d" " -f2 >expect &&
	calls MPI_Waitany $f | cut -d: -f4 >got && test_cmp expect got &&
	grep "^MPI_Waitsome" nb.out | cut -d" " -f2- >expect &&
	calls MPI_Waitsome $f | awk -F: "{ gsub(\",\", \" \", \$5); print \$4 \" \" \$5 }" >got &&
	test_cmp expect got &&
	grep "^MPI_Testsome" nb.out | cut -d" " -f2- >expect &&
	calls MPI_Testsome $f | awk -F: "\$4 > 0 { gsub(\",\", \" \", \$5); print \$4 \" \" \$5 }" >got &&
	test_cmp expect got &&
	grep "^MPI_Testany" nb.out | cut -d" " -f2 >expect &&
	calls MPI_Testany $f | awk -F: "\$5 == 1 && \$4 >= 0 { print \$4 }" >got &&
	test_cmp expect got &&
	test "$(calls MPI_Test $f | grep -c ":1:[-0-9]*,[-0-9]*,[0-9]*:1$")" = 4 &&
	test "$(calls MPI_Testall $f | grep -c ":5:r[0-9,r]*:1:")" = 1
'

test_expect_success 'nonblock: every request id is made once and completed once' '
	for f in nb/rank-0.trace nb/rank-1.trace; do
		calls "MPI_I[rs][e]*[cn][vd]" $f | awk -F: "{print \$NF}" | sort >made &&
		sort -u made >uniq && test_cmp made uniq &&
		test "$(wc -l <made)" = 28 &&
		awk -F: "
			/^MPI_I(send|recv):/ { live[\$(NF-1)] = 1; next }
			/^MPI_Wait:/ || /^MPI_Test:/ { if (\$4 != \"0\" && !(\$3 in live)) { print \"unknown \" \$3; bad = 1 } }
			/^MPI_Wait(all|any|some):/ || /^MPI_Test(all|any|some):/ {
				n = split(\$4, ids, \",\")
				for (i = 1; i <= n; i++) if (ids[i] != \"r0\" && !(ids[i] in live)) { print \"unknown \" ids[i]; bad = 1 }
			}
			END { exit bad }" $f || return 1
	done
'

test_expect_success 'nonblock: the Waitall statuses: receives from the partner, one per request' '
	calls MPI_Waitall nb/rank-1.trace | cut -d: -f4 >got &&
	echo "0,0,4;-2,-1,0;0,2,4;-2,-1,0;-1,-1,0" >expect &&
	test_cmp expect got
'
test_expect_success 'pollgap: polls back to back collapse, polls with work between do not' '
	traced pg 2 "$SAMPLES/pollgap" 10 &&
	f=pg/rank-0.trace && complete $f && monotonic $f &&
	grep -q "^# collapse gap: 1000 ns$" $f &&
	calls MPI_Iprobe $f >ip &&
	# 40 polls a round, none found anything; no line holds more than the 20 back to back
	awk -F: "{ n += \$NF; if (\$NF > 20) big++; if (\$NF == 1) one++ } END { print n, big + 0, (one >= 200) }" ip >got &&
	echo "400 0 1" >expect && test_cmp expect got &&
	# every poll after work starts a line: one call from the last return on, 5 us or more
	grep "^MPI_Iprobe:" $f | awk -F: "NR > 1 && \$(NF-1) == 1 && \$2 - t >= 1 { far++ } { t = \$NF } END { print (far >= 190) }" >got &&
	echo 1 >expect && test_cmp expect got
'

test_expect_success 'pollgap --cpu-time, the CPU clock read at every call: its readings are not a gap' '
	ALLPROF_CPUTIME_EXACT=1 allprof --cpu-time -o pgc -- mpirun -np 2 "$SAMPLES/pollgap" 10 >pgc.out 2>pgc.err &&
	f=pgc/rank-0.trace && complete $f && grep -q "^# cpu read: every call$" $f &&
	grep "^MPI_Iprobe:" $f | sed "s/:c[0-9.,]*$//" >ip &&
	awk -F: "{ n += \$(NF-1); if (\$(NF-1) == 20) whole++ } END { print n, (whole >= 5) }" ip >got &&
	echo "400 1" >expect && test_cmp expect got
'

test_expect_success 'ALLPROF_COLLAPSE=0: no collapse gap in the header' '
	ALLPROF_COLLAPSE=0 traced pg0 2 "$SAMPLES/pollgap" 2 &&
	! grep -q "^# collapse gap" pg0/rank-0.trace &&
	test "$(calls MPI_Iprobe pg0/rank-0.trace | wc -l)" = 80
'
test_done
