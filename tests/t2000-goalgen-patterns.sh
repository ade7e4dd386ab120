#!/bin/sh
# goalgen writes the expected GOAL text for every pattern: golden files for
# N = 1, 2, 3, 5, 8 with the defaults, and for the options that change a
# pattern (--calc, --root, --steps, --reps, --size, --tag, --seed, --ops).
# REGEN=1 rewrites the golden files; review them against docs/man/goalgen.1.
. "$(dirname "$0")/lib.sh"

for p in dissemination bcast reduce ring pingpong alltoall allreduce random; do
	for n in 1 2 3 5 8; do
		if [ "$n" = 1 ] && { [ "$p" = ring ] || [ "$p" = pingpong ]; }; then
			continue # needs N >= 2: tests/t2002-goalgen-errors.sh
		fi
		test_expect_success "$p $n" '
			goalgen $p $n >out &&
			test_golden $p-$n.goal out
		'
	done
done

while read -r name args; do
	test_expect_success "goalgen $args" '
		goalgen $args >out &&
		test_golden $name.goal out
	'
done <<'LIST'
dissemination-calc-tag    dissemination 5 --calc 2ns --tag 7 --size 1K
dissemination-ref8        dissemination 8 --size 180
bcast-root3               bcast 8 --root 3 --calc 1us
bcast-root4-of-5          bcast 5 --root 4
reduce-root2              reduce 5 --root 2 --calc 1.5ns
reduce-root7              reduce 8 --root 7
ring-steps3-calc          ring 3 --steps 3 --calc 1us
pingpong-reps3            pingpong 2 --reps 3 --size 1M
pingpong-calc-of-3        pingpong 3 --reps 2 --calc 10
alltoall-calc             alltoall 4 --calc 3ps
allreduce-6-calc          allreduce 6 --calc 1
allreduce-7               allreduce 7
random-seed42             random 5 --seed 42 --ops 10 --size 64 --calc 1ns
random-1-ops4             random 1 --ops 4
LIST

test_expect_success 'options may come before the operands' '
	goalgen --size 180 -- dissemination 8 >out &&
	test_cmp "$TESTDATA/dissemination-ref8.goal" out
'

test_done
