#!/bin/sh
# trace2goal --sync reads every rank's trace at once: it raises the soft limit of open files
# to what that needs, and says clearly when the hard limit is too low.
. "$(dirname "$0")/lib.sh"

mkdir tr
members=$(seq -s, 0 199)
for r in $(seq 0 199); do
	printf '# allprof 1.0 trace format 1\n# rank: %d of 200\n# comm 0 %s\nMPI_Init:1.000:1:2:2.000\nMPI_Finalize:3.000:4.000\n# end 2 0\n' \
		"$r" "$members" >tr/rank-$r.trace
done

test_expect_success '200 ranks with a soft limit of 100 open files' '
	(ulimit -S -n 100 && trace2goal --durations --sync tr >s.goal) &&
	head -n 1 s.goal >got && echo "num_ranks 200" >want && test_cmp want got
'

test_expect_success 'a hard limit of 100 open files: a clear error' '
	(ulimit -n 100 && expect_fail 1 trace2goal --durations --sync tr) &&
	expect_err "trace2goal: --sync reads all 200 traces at once and needs about 264 open files, but the limit is 100 (raise it with ulimit -Hn, or convert without --sync)"
'

test_expect_success 'without --sync one trace is open at a time' '
	(ulimit -n 100 && trace2goal --durations tr >d.goal) && head -n 1 d.goal >got &&
	echo "num_ranks 200" >want && test_cmp want got
'

test_done
