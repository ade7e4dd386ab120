#!/bin/sh
# goalc --matrix: the traffic matrix and message-size histogram of a schedule
# (formats/matrix.md), golden output on hand-written and generated schedules,
# totals checked against the schedule's sends, the streaming order, every
# error, and the gnuplot scripts that draw the file.
. "$(dirname "$0")/lib.sh"

test_expect_success 'halo-4: golden matrix, ranks in file order' '
	goalc --check --matrix m.tsv "$TOP/samples/schedules/halo-4.goal" &&
	test_golden halo-4.tsv m.tsv
'

test_expect_success 'generated patterns: golden matrices (dissemination 6, alltoall 4 with calcs)' '
	goalgen dissemination 6 --size 180 | goalc --matrix d.tsv -o d.goalb &&
	test_golden dissemination-6.tsv d.tsv &&
	goalgen alltoall 4 --size 3K --calc 1us | goalc --stats --matrix a.tsv >stats &&
	test_golden alltoall-4.tsv a.tsv
'

test_expect_success 'size classes: 0, 1, 2-3, 4-7, ... boundaries, empty classes in between written' '
	cat >s.goal <<-EOF &&
	num_ranks 2
	rank 0 {
	a: send 0b to 1
	b: send 1b to 1
	c: send 3b to 1
	d: send 4b to 1
	e: send 1023b to 1
	f: send 1024b to 1
	g: send 1024b to 1
	}
	rank 1 {
	r1: recv 0b from 0
	r2: recv 1b from 0
	r3: recv 3b from 0
	r4: recv 4b from 0
	r5: recv 1023b from 0
	r6: recv 1024b from 0
	r7: recv 1024b from 0
	}
	EOF
	goalc --check --matrix m.tsv s.goal &&
	test_golden sizes.tsv m.tsv
'

test_expect_success 'matrix from text and from binary are identical; --matrix with -d and -c' '
	goalgen random 5 --ops 40 --seed 7 --size 100K >r.goal &&
	goalc -o r.goalb --matrix text.tsv r.goal &&
	goalc -d --matrix bin.tsv -o /dev/null r.goalb &&
	test_cmp text.tsv bin.tsv &&
	goalc -c --matrix chk.tsv r.goalb &&
	test_cmp text.tsv chk.tsv
'

test_expect_success 'totals agree with --stats and with the rows' '
	goalgen random 7 --ops 64 --seed 3 --size 64K >r.goal &&
	goalc --stats --matrix m.tsv r.goal >stats &&
	sent=$(sed -n "s/^bytes sent *//p" stats) &&
	nsend=$(sed -n "s/^  send *//p" stats) &&
	grep -qx "# total messages=$nsend bytes=$sent pairs=$(awk -F"\t" "/^[0-9]/ && !blank {n++} /^$/ {blank=1} END {print n}" m.tsv)" m.tsv &&
	test "$(awk -F"\t" "/^\$/ {exit} /^[0-9]/ {b += \$4} END {print b}" m.tsv)" = "$sent" &&
	test "$(awk -F"\t" "/^\$/ {s=1} s && /^[0-9]/ {m += \$3} END {print m}" m.tsv)" = "$nsend"
'

test_expect_success 'a schedule without sends: empty sections, zero totals' '
	printf "num_ranks 2\nrank 0 {\na: calc 5\n}\nrank 1 {\n}\n" >e.goal &&
	goalc --check --matrix m.tsv e.goal &&
	test_golden empty.tsv m.tsv
'

test_expect_success '--matrix - writes to standard output when the main output does not' '
	goalc --check --matrix - "$TOP/samples/schedules/halo-4.goal" >out &&
	test_golden halo-4.tsv out &&
	goalc -o h.goalb --matrix - "$TOP/samples/schedules/halo-4.goal" >out &&
	test_golden halo-4.tsv out
'

test_expect_success 'usage errors: both on standard output, empty name' '
	expect_fail 2 goalc --stats --matrix - "$TOP/samples/schedules/halo-4.goal" &&
	expect_err "goalc: --matrix - and the output cannot both go to standard output" &&
	expect_err "Try '\''goalc --help'\'' for more information." &&
	expect_fail 2 goalc --matrix "" x.goal &&
	expect_err "goalc: --matrix needs a file name" &&
	expect_fail 2 goalc --matrix &&
	grep -q "requires an argument" err
'

test_expect_success 'unwritable matrix file: exit 1, main output not created' '
	expect_fail 1 goalc -o x.goalb --matrix nodir/m.tsv "$TOP/samples/schedules/halo-4.goal" &&
	expect_err "goalc: nodir/m.tsv: cannot create: No such file or directory" &&
	! test -e x.goalb
'

test_expect_success 'bad schedule: exit 1 with its error, no matrix file left' '
	printf "num_ranks 2\nrank 0 {\na: send 8b to 5\n}\nrank 1 {\n}\n" >bad.goal &&
	expect_fail 1 goalc --check --matrix bad.tsv bad.goal &&
	grep -q "^goalc: bad.goal:3: " err &&
	! test -e bad.tsv && test -z "$(ls | grep "^bad.tsv")"
'

test_expect_success 'byte sums beyond 2^64-1: exit 1 naming the rank, no file' '
	cat >big.goal <<-EOF &&
	num_ranks 2
	rank 0 {
	a: send 9223372036854775808b to 1
	b: send 9223372036854775808b to 1
	}
	rank 1 {
	c: recv 9223372036854775808b from 0
	d: recv 9223372036854775808b from 0
	}
	EOF
	expect_fail 1 goalc --check --matrix big.tsv big.goal &&
	expect_err "goalc: rank 0: byte count of the traffic matrix exceeds 2^64-1" &&
	! test -e big.tsv
'

if command -v gnuplot >/dev/null 2>&1; then
test_expect_success 'pipelines/plot/matrix.gp and sizes.gp draw PNG and SVG from the file' '
	goalgen alltoall 6 --size 3K | goalc --check --matrix m.tsv &&
	for p in matrix sizes; do
		for x in png svg; do
			gnuplot -e "in='\''m.tsv'\''; out='\''$p.$x'\''; name='\''t'\''" "$TOP/pipelines/plot/$p.gp" 2>err &&
			! test -s err && test -s $p.$x || return 1
		done
		test "$(head -c 4 $p.png | od -An -c | tr -d " ")" = "211PNG" || return 1
		grep -q "<svg" $p.svg || return 1
	done
'
else
test_skip 'pipelines/plot/matrix.gp and sizes.gp' 'gnuplot not installed'
fi
test_done
