#!/bin/sh
# Every pattern, for many N and option sets, passes the structural checker
# tests/t2001-goalgen-structure/check.awk: well-formed blocks and lines, peers
# in range, dependencies in topological order, every send matched by a
# receive of the same pair, size and tag, and the schedule runs to the end.
# The checker itself is shown to catch each kind of defect.
. "$(dirname "$0")/lib.sh"

CHECK="$TESTDATA/check.awk"
check() { awk -f "$CHECK" "$@"; }

for p in dissemination bcast reduce alltoall allreduce; do
	test_expect_success "$p is well formed and matched for N = 1..17, 31, 64, 100" '
		for n in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 31 64 100; do
			goalgen $p $n >s.goal && check s.goal >res || { echo "N=$n"; cat res; exit 1; }
			goalgen $p $n --calc 1ns --tag 3 --size 1K >s.goal && check s.goal >res ||
				{ echo "N=$n --calc"; cat res; exit 1; }
		done
	'
done

test_expect_success 'bcast and reduce are matched for every root' '
	for n in 1 2 3 5 8 13; do
		r=0
		while [ $r -lt $n ]; do
			for p in bcast reduce; do
				goalgen $p $n --root $r >s.goal && check s.goal >res ||
					{ echo "$p N=$n root=$r"; cat res; exit 1; }
			done
			r=$((r + 1))
		done
	done
'

test_expect_success 'ring and pingpong are matched for N = 2..9 and several lengths' '
	for n in 2 3 4 5 6 7 8 9; do
		for s in 1 2 7; do
			goalgen ring $n --steps $s >s.goal && check s.goal >res || { cat res; exit 1; }
			goalgen ring $n --steps $s --calc 1 >s.goal && check s.goal >res || { cat res; exit 1; }
			goalgen pingpong $n --reps $s --calc 1 >s.goal && check s.goal >res || { cat res; exit 1; }
		done
		goalgen ring $n >s.goal && check s.goal >res || { cat res; exit 1; }
	done
'

test_expect_success 'random is matched and runs to the end for 40 seeds' '
	for seed in $(seq 1 40); do
		n=$((seed % 9 + 1))
		goalgen random $n --seed $seed --ops $((seed % 23 + 1)) --size 100 >s.goal &&
		check s.goal >res || { echo "seed $seed"; cat res; exit 1; }
	done
'

test_expect_success 'random has exactly --ops ops on every rank' '
	goalgen random 6 --ops 11 --seed 5 >s.goal &&
	awk "/^rank/ { n = 0 } /: (send|recv|calc) / { n++ } /^}/ { print n }" s.goal | sort -u >got &&
	echo 11 >want &&
	test_cmp want got
'

test_expect_success 'random is deterministic for a seed and differs between seeds' '
	goalgen random 8 --seed 99 --ops 20 >a &&
	goalgen random 8 --seed 99 --ops 20 >b &&
	goalgen random 8 --seed 100 --ops 20 >c &&
	test_cmp a b &&
	! cmp -s a c
'

test_expect_success 'counts of the 8-rank dissemination: 3 rounds, 2 ops and 1 edge per round' '
	goalgen dissemination 8 >s.goal &&
	check s.goal >res &&
	echo "ranks=8 ops=48 sends=24 deps=16" >want &&
	test_cmp want res
'

test_expect_success 'dissemination rounds follow r+2^k and r-2^k for N = 6' '
	goalgen dissemination 6 >s.goal &&
	awk "/^rank/ { r = \$2 } / send / { k = substr(\$1, 2) + 0; if (\$5 != (r + 2^k) % 6) exit 1 }
	     / recv / { k = substr(\$1, 2) + 0; if (\$5 != (r - 2^k + 12) % 6) exit 1 }" s.goal
'

# the checker catches what it is there to catch
test_expect_success 'checker: an unmatched send is reported' '
	goalgen dissemination 4 | sed "/^rank 2/,/^}/{/r1: recv/d}" >bad.goal &&
	! check bad.goal >res &&
	grep -q "sends minus receives from 0 to 2 of 8b tag 0" res
'
test_expect_success 'checker: a size mismatch is reported' '
	goalgen pingpong 2 | sed "s/r0: recv 8b/r0: recv 9b/" >bad.goal &&
	! check bad.goal >res && grep -q "sends minus receives" res
'
test_expect_success 'checker: a deadlock is reported' '
	cat >bad.goal <<-\EOT &&
	num_ranks 2
	rank 0 {
	r0: recv 1b from 1 tag 0
	s0: send 1b to 1 tag 0
	s0 requires r0
	}
	rank 1 {
	r0: recv 1b from 0 tag 0
	s0: send 1b to 0 tag 0
	s0 requires r0
	}
	EOT
	! check bad.goal >res && grep -q "4 of 4 ops never complete" res
'
test_expect_success 'checker: a dependency on a later op, a peer out of range, a missing rank' '
	printf "num_ranks 3\nrank 0 {\nc0: calc 1\nc1: calc 2\nc0 requires c1\nr0: recv 1b from 3 tag 0\n}\nrank 1 {\n}\n" >bad.goal &&
	! check bad.goal >res &&
	grep -q "c0 depends on c1 written after it" res &&
	grep -q "peer 3 out of range" res &&
	grep -q "found ranks up to 1 for num_ranks 3" res
'

test_done
