#!/bin/sh
# trace2goal on the seed ltest traces (liballprof 0.9, two ranks): --compat schedgen gives
# Schedgen's own schedule (same text, same canonical form, same simulation); the default
# mode applies the clock offsets; --help, --version and usage errors.
. "$(dirname "$0")/lib.sh"

test_expect_success '--compat schedgen reproduces Schedgen text line by line' '
	trace2goal --compat schedgen "$SEED" >compat.goal &&
	test_cmp "$SEED/ltest-schedgen.goal" compat.goal
'

test_expect_success '--compat schedgen: same canonical schedule (goalc -d)' '
	goalc -d "$SEED/ltest-schedgen.goal" >want.canon &&
	goalc -d compat.goal >got.canon &&
	test_cmp want.canon got.canon
'

test_expect_success '--compat schedgen: ibsim gives the same end times' '
	ibsim -q "$SEED/ltest-schedgen.goal" | grep -v "^#" >want.tsv &&
	ibsim -q compat.goal | grep -v "^#" >got.tsv &&
	test_cmp want.tsv got.tsv &&
	test $(wc -l <got.tsv) = 3
'

test_expect_success 'file list and directory give the same schedule' '
	trace2goal --compat schedgen "$SEED/pmpi-trace-rank-1.txt" "$SEED/pmpi-trace-rank-0.txt" >list.goal &&
	test_cmp compat.goal list.goal
'

test_expect_success 'compressed traces (gzip, zstd) give the same schedule' '
	mkdir z && gzip -c "$SEED/pmpi-trace-rank-0.txt" >z/pmpi-trace-rank-0.txt.gz &&
	zstd -q -c "$SEED/pmpi-trace-rank-1.txt" >z/pmpi-trace-rank-1.txt.zst &&
	trace2goal --compat schedgen --rank-pattern "rank-(\\d+)" z >z.goal &&
	test_cmp compat.goal z.goal
'

test_expect_success 'default mode: rank 1 times corrected by its clock offset' '
	trace2goal "$SEED" >default.goal &&
	test_golden default.goal default.goal &&
	# rank 0 (offset 0) is as in compat mode; rank 1 is not
	sed -n "/^rank 0/,/^}/p" default.goal >d0 && sed -n "/^rank 0/,/^}/p" compat.goal >c0 &&
	test_cmp c0 d0 &&
	! grep -q "calc 70003605" compat.goal && grep -q "calc 70003605" default.goal
'

test_expect_success '--no-clock-offsets in default mode gives the compat schedule here' '
	trace2goal --no-clock-offsets "$SEED" >noclock.goal &&
	test_cmp compat.goal noclock.goal
'

test_expect_success 'interpolated offset: -289.201736 us at Init, -288.486481 at Finalize' '
	# first gap of rank 1: 70 us plus the drift over it: (0.715255 us) * 70/13889 = 3.605 ns
	grep -q "^l2: calc 70003605$" default.goal
'

test_expect_success '--cpu-scale 0 makes every calc 0; 2 doubles them' '
	trace2goal --cpu-scale 0 "$SEED" >s0.goal &&
	test -z "$(grep ": calc [1-9]" s0.goal)" &&
	trace2goal --compat schedgen --cpu-scale 2 "$SEED" >s2.goal &&
	grep -q "^l2: calc 146000000$" s2.goal
'

test_expect_success '-o FILE writes the file; .zst compresses' '
	trace2goal -o out.goal --compat schedgen "$SEED" &&
	test_cmp compat.goal out.goal &&
	trace2goal -o out.goal.zst --compat schedgen "$SEED" &&
	zstd -q -d -c out.goal.zst >out2.goal && test_cmp compat.goal out2.goal
'

test_expect_success '--pin adds the first-use cost once per buffer' '
	trace2goal --compat schedgen --pin 166us,3ns "$SEED" >pin.goal &&
	# first send: 73 us + 166 us + 400000 * 3 ns = 1439 us; the buffer is reused afterwards
	grep -q "^l2: calc 1439000000$" pin.goal &&
	grep -q "^l4: calc 15000000$" pin.goal
'

test_expect_success '-p FILE reads pin_a and pin_b' '
	printf "pin_a = 166us  # first use\npin_b = 3ns\n" >p.params &&
	trace2goal --compat schedgen -p p.params "$SEED" >pinp.goal &&
	test_cmp pin.goal pinp.goal
'

test_expect_success '--durations adds the call time beyond the modelled network time' '
	trace2goal --compat schedgen --durations "$SEED" >dur.goal &&
	ibsim -q dur.goal >dur.tsv && ibsim -q compat.goal >c.tsv &&
	a=$(awk "!/^#/ && \$1 == 0 { print \$2 }" dur.tsv) &&
	b=$(awk "!/^#/ && \$1 == 0 { print \$2 }" c.tsv) &&
	test "$a" -gt "$b"
'

test_expect_success '--from/--to cut every rank to the same phase' '
	trace2goal --from MPI_Comm_rank --to MPI_Comm_size "$SEED" >cut.goal &&
	ibsim -q cut.goal >/dev/null &&
	test $(grep -c ": calc" cut.goal) = 2 &&
	test $(grep -c -e ": send" -e ": recv" cut.goal) = 0 &&
	expect_fail 1 trace2goal --from "^MPI_Recv$" --from-nth 10 "$SEED" &&
	expect_err "trace2goal: rank 1 receives 1 messages from rank 0, which sends it 0"
'

test_expect_success 'a phase that cuts a message in two is reported' '
	expect_fail 1 trace2goal --from MPI_Comm_size --to "^MPI_Send$" "$SEED" &&
	expect_err "trace2goal: rank 1 sends 1 messages to rank 0, which receives 0 of them (a send is never received)"
'

test_expect_success '--from that never matches is reported' '
	expect_fail 1 trace2goal --from MPI_Alltoall "$SEED" &&
	expect_err "trace2goal: $SEED/pmpi-trace-rank-0.txt: no call matches --from (wanted match 1, found 0)"
'

test_expect_success '--help prints the synopsis; --version' '
	trace2goal --help >help &&
	grep -q "^Usage: trace2goal \[OPTION\]... TRACE-DIR|TRACE-FILE...$" help &&
	trace2goal --version | grep -q "^trace2goal (ibreplay) "
'

test_expect_success 'man page synopsis matches --help options' '
	for o in $(grep -o -- "--[a-z-]*" help | sort -u); do
		grep -q -- "$(echo $o | sed "s/-/\\\\\\\\-/g")" "$TOP/docs/man/trace2goal.1" || { echo "man page lacks $o"; exit 1; }
	done
'

test_expect_success 'usage errors exit 2' '
	expect_fail 2 trace2goal &&
	expect_err "trace2goal: no traces given (a trace directory or trace files)" &&
	expect_fail 2 trace2goal --compat foo "$SEED" &&
	expect_err "trace2goal: invalid --compat '"'"'foo'"'"' (expected '"'"'schedgen'"'"')" &&
	expect_fail 2 trace2goal --coll allreduce=chain "$SEED" &&
	expect_err "trace2goal: invalid --coll item: allreduce has no algorithm '"'"'chain'"'"' (available: dissemination, recdoub, ring, reduce_bcast)" &&
	expect_fail 2 trace2goal --pin 5 "$SEED" &&
	expect_err "trace2goal: invalid --pin '"'"'5'"'"' (expected A,B: times, e.g. 166us,3ns)" &&
	expect_fail 2 trace2goal --from-nth 2 "$SEED" &&
	expect_err "trace2goal: --from-nth needs --from" &&
	expect_fail 2 trace2goal --sync "$SEED" &&
	expect_err "trace2goal: --sync needs --durations" &&
	expect_fail 2 trace2goal --bogus "$SEED" &&
	grep -q "^Try '"'"'trace2goal --help'"'"' for more information.$" err
'
test_done
