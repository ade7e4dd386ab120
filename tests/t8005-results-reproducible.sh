#!/bin/sh
# ibsim's outputs are a pure function of its inputs (formats/results.md): two
# runs of the same schedule with the same parameters write byte-identical
# results, message logs, timelines and link statistics, on --net loggops and
# --net ib. Wall-clock figures go to --stats FILE only, which is the one
# output allowed to differ between runs.
. "$(dirname "$0")/lib.sh"

# twice NAME ARGS...: run ibsim twice with every deterministic output and compare
twice() {
	n=$1
	shift
	for i in 1 2; do
		ibsim -q --msglog "$n.$i.msg" --timeline "$n.$i.json" --stats "$n.$i.stats" "$@" \
			>"$n.$i.res" || return 1
	done
	test_cmp "$n.1.res" "$n.2.res" &&
	test_cmp "$n.1.msg" "$n.2.msg" &&
	test_cmp "$n.1.json" "$n.2.json" &&
	! grep -q "wall\|per_s" "$n.1.res" &&
	grep -q "^wall_s	" "$n.1.stats"
}

test_expect_success 'schedules' '
	goalgen dissemination 16 --size 180 >d16.goal &&
	goalgen alltoall 8 --size 100K >a8.goal &&
	goalc -q -o a8.goalb a8.goal
'
test_expect_success '--net loggops: byte-identical results, message log, timeline' '
	twice ld d16.goal &&
	twice la -S 4K a8.goalb
'
test_expect_success '--net loggops with the piecewise model and copies: byte-identical' '
	printf "send_o = 0:1us; 1K:2us+10ps\nrecv_o = 0:1us+5ps\nnet_L = 0:3us; 64K:9us+300ps\ncopy = 0:100ns\n" >pw.params &&
	twice lp -p pw.params a8.goal
'
test_expect_success '--net ib: byte-identical results, message log, timeline, link statistics' '
	twice id --net ib --topo fattree2:6 --linkstats id.1.links d16.goal &&
	ibsim -q --net ib --topo fattree2:6 --linkstats id.2.links d16.goal >/dev/null &&
	test_cmp id.1.links id.2.links &&
	twice ia --net ib --topo fattree2:4 --routing updn --placement random:7 -S 4K a8.goalb
'
test_done
