#!/bin/sh
# goalgen's schedules through the other tools: goalc compiles every pattern,
# and ibsim runs every pattern to the end and reproduces LogGOPSim's
# reference result for the 8-rank dissemination
# (docs/loggops-semantics.md section 7 item 4). Skipped where a tool is not built.
. "$(dirname "$0")/lib.sh"

PATTERNS='dissemination 8
dissemination 13 --calc 1us
bcast 8 --root 3
reduce 7 --root 2 --calc 1ns
ring 5 --steps 4 --calc 1ns
pingpong 2 --reps 3
alltoall 6
allreduce 7 --calc 1ns
random 9 --ops 40 --seed 3 --size 100K'

if [ -x "$IR_BIN/goalc" ]; then
	while read -r args; do
		test_expect_success "goalc compiles goalgen $args" '
			goalgen $args >s.goal &&
			goalc -o s.goalb s.goal &&
			test -s s.goalb
		'
	done <<-EOT
	$PATTERNS
	EOT
	test_expect_success 'goalc compiles a 1024-rank dissemination from a pipe' '
		goalgen dissemination 1024 --calc 1 | goalc -o d.goalb - &&
		test -s d.goalb
	'
else
	test_skip 'goalc compiles every pattern' 'bin/goalc is not built'
fi

if [ -x "$IR_BIN/ibsim" ]; then
	test_expect_success 'ibsim: the 8-rank dissemination ends every rank at 3522000' '
		goalgen dissemination 8 --size 180 >d.goal &&
		ibsim -L 0 -o 50000 -g 100000 -G 6000 -O 0 d.goal >res.tsv &&
		awk -F "\t" "/^[0-9]/ { n++; if (\$2 != 3522000) bad++ } END { exit !(n == 8 && !bad) }" res.tsv
	'
	test_expect_success 'ibsim: the 8-rank dissemination with all parameters 0 ends at 0' '
		ibsim -L 0 -o 0 -g 0 -G 0 -O 0 d.goal >res.tsv &&
		awk -F "\t" "/^[0-9]/ { n++; if (\$2 != 0) bad++ } END { exit !(n == 8 && !bad) }" res.tsv
	'
	while read -r args; do
		test_expect_success "ibsim runs goalgen $args to the end" '
			goalgen $args >s.goal &&
			ibsim s.goal >res.tsv &&
			test "$(grep -c "^[0-9]" res.tsv)" = "$(goalgen $args | grep -c "^rank ")"
		'
	done <<-EOT
	$PATTERNS
	EOT
else
	test_skip 'ibsim reproduces the dissemination reference' 'bin/ibsim is not built'
fi

test_done
