#!/bin/sh
# ibsim --spill DIR (lib/ir_spill.c, docs/design.md section 8): the schedule's compact form
# and the engine's arrays per op live in unlinked files under DIR, so a schedule larger
# than the memory a run may use still runs. The results are those without it, byte for
# byte; the files are gone after the run; a directory where no file can be made is an
# error; and under a memory limit (a cgroup, where this runs as root) a run that the limit
# kills without --spill completes with it, with the same results.
. "$(dirname "$0")/lib.sh"

test_expect_success 'the same results with --spill: a dissemination (tiled), a random DAG, a fat tree' '
	mkdir sp &&
	goalgen dissemination 20000 --size 100 | goalc -o d.goalb - &&
	ibsim -q d.goalb >a.tsv &&
	ibsim -q --spill sp --stats st d.goalb >b.tsv &&
	test_cmp a.tsv b.tsv &&
	grep -q "^spill_bytes	[1-9][0-9]*$" st &&
	test -z "$(ls -A sp)" &&
	goalgen random 3000 --ops 60 --seed 4 --size 70K >r.goal &&
	ibsim -q r.goal >a.tsv && ibsim -q --spill sp r.goal >b.tsv && test_cmp a.tsv b.tsv &&
	goalgen alltoall 64 --size 2K >a2a.goal &&
	ibsim -q --net ib --topo fattree2:16 a2a.goal >a.tsv &&
	ibsim -q --net ib --topo fattree2:16 --spill sp a2a.goal >b.tsv && test_cmp a.tsv b.tsv &&
	ibsim -q --stats st0 d.goalb >/dev/null && grep -qx "spill_bytes	0" st0
'

test_expect_success 'a directory where no file can be made, and an empty name' '
	expect_fail 1 ibsim -q --spill no/such/dir d.goalb &&
	grep -q "^ibsim: no/such/dir: cannot make a file there for --spill: No such file or directory" err &&
	expect_fail 2 ibsim -q --spill "" d.goalb &&
	grep -q "spill takes a directory" err
'

cg=/sys/fs/cgroup/memory/ibreplay-spill-$$
case "${IR_MAKEVARS-}" in
*SANITIZE=*address*) asan=1 ;; # its shadow memory alone exceeds the limit
*) asan= ;;
esac
if [ -z "$asan" ] && [ "$(id -u)" = 0 ] && [ "$(stat -f -c %T "$TRASH")" != tmpfs ] && mkdir "$cg" 2>/dev/null; then
	# in_cg CMD...: CMD in the cgroup (its memory limit applies to it alone)
	in_cg() { sh -c 'echo $$ >"$0/tasks" && exec "$@"' "$cg" "$@"; }
	test_expect_success 'under a memory limit: killed without --spill, the same results with it' '
		goalgen dissemination 262144 --size 100 | goalc -o big.goalb - &&
		ibsim -q big.goalb >full.tsv &&
		echo 100M >"$cg/memory.limit_in_bytes" &&
		{ ! test -e "$cg/memory.memsw.limit_in_bytes" || echo 100M >"$cg/memory.memsw.limit_in_bytes"; } &&
		{ in_cg ibsim -q big.goalb >lim.tsv 2>lim.err; test $? -ne 0; } &&
		in_cg ibsim -q --spill sp --stats st big.goalb >sp.tsv &&
		test_cmp full.tsv sp.tsv &&
		grep -q "^spill_bytes	[1-9][0-9]\{8\}$" st
	'
	rmdir "$cg" 2>/dev/null
else
	test_skip 'under a memory limit: killed without --spill, the same results with it' \
		'needs root, a directory on a disk, the cgroup v1 memory controller and a build without AddressSanitizer'
fi

test_done
