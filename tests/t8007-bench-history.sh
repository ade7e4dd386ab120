#!/bin/sh
# The benchmark history (formats/bench-history.md) and its logic,
# tests/bench/history.sh, on fixture files: runs summarized to min/median/max,
# each figure compared with the last row of the same machine (faster, SLOWER,
# better, WORSE, CHANGED, same, new), other machines ignored, malformed
# histories rejected with file:line and exit 1, and the record step appending
# exactly the figures measured, through the driver (tests/bench/run-all.sh)
# run on stand-in scripts. Nothing is measured: no benchmark runs here.
. "$(dirname "$0")/lib.sh"
H="$TOP/tests/bench/history.sh"
F="$TESTDATA"
# tsv WORDS...: one TSV line of the words
tsv() { printf "%s\n" "$*" | tr " " "\t"; }

test_expect_success 'summarize: min, median (the lower middle one), max and runs per figure, in order' '
	{ tsv goalc big speed 100 MB/s; tsv goalc big wall 3.5 s; tsv goalc big speed 90 MB/s
	  tsv goalc big speed 120 MB/s; tsv goalc big wall 2.5 s; tsv goalc big speed 95 MB/s
	  tsv goalc big ops 64 ops; } >raw &&
	sh "$H" summarize raw >out 2>err &&
	{ tsv goalc big speed 90 95 120 4 MB/s; tsv goalc big wall 2.5 2.5 3.5 2 s
	  tsv goalc big ops 64 64 64 1 ops; } >want &&
	test_cmp want out && test_cmp /dev/null err &&
	sh "$H" summarize <raw >out2 && test_cmp want out2
'
test_expect_success 'summarize: a line that is not a figure is reported with file:line and left out' '
	{ tsv ib x wall 1 s; printf "ib\tx\twall\t\ts\n"; tsv ib x wall 2 ms; tsv ib x wall 3 s; } >raw &&
	sh "$H" summarize raw >out 2>err &&
	tsv ib x wall 1 1 3 2 s >want && test_cmp want out &&
	grep -qxF "history.sh: raw:2: not a figure (tool benchmark metric value unit), left out" err &&
	grep -qxF "history.sh: raw:3: ib x wall: unit ms, earlier s, left out" err
'
test_expect_success 'compare: faster, SLOWER, better, WORSE, CHANGED, same and new against machine m1' '
	sh "$H" compare -m m1 "$F/history.tsv" "$F/summary.tsv" >out 2>err &&
	test_golden compare-m1.expected out &&
	grep -qxF "history.sh: against the history of m1: 1 SLOWER, 1 WORSE, 1 CHANGED, 1 faster, 1 better, 1 same, 3 new" err
'
test_expect_success 'compare: the last row of the machine counts, another machine rows never' '
	grep "^goalc	big	check-speed	" out >row &&
	tsv goalc big check-speed 180 190 230 3 MB/s -9.5% SLOWER >want && test_cmp want row &&
	grep "^ibsim	a2a	sim-wall	" out >row &&
	tsv ibsim a2a sim-wall 1 1 1 3 s - new >want && test_cmp want row &&
	sh "$H" compare -m m2 "$F/history.tsv" "$F/summary.tsv" >out2 2>/dev/null &&
	grep "^goalc	big	check-speed	" out2 >row &&
	tsv goalc big check-speed 180 190 230 3 MB/s +1800.0% faster >want && test_cmp want row &&
	BENCH_MACHINE=m3 sh "$H" compare "$F/history.tsv" "$F/summary.tsv" >out3 2>/dev/null &&
	test "$(cut -f10 out3 | sort -u)" = new
'
test_expect_success 'compare: a new benchmark or a new unit has no history; a missing history is empty' '
	grep "^goalgen	ring	speed	" out >row &&
	tsv goalgen ring speed 300 320 330 3 MB/s - new >want && test_cmp want row &&
	grep "^ib	x	wall	" out >row &&
	tsv ib x wall 1 1 1 3 ms - new >want && test_cmp want row &&
	sh "$H" compare -m m1 nothing.tsv "$F/summary.tsv" >out4 2>/dev/null &&
	test "$(cut -f10 out4 | sort -u)" = new && test "$(wc -l <out4)" -eq 9
'
# bad LINE N TEXT: the fixture history with line N replaced by TEXT, into bad.tsv
bad() { awk -v n="$1" -v t="$2" "NR == n { print t; next } { print }" "$F/history.tsv" >bad.tsv; }
test_expect_success 'a malformed history: file:line and exit 1, from check, compare and record' '
	bad 4 "2026-01-01T00:00:00Z	aaaaaaa	m1	box-one	goalc	big	compile-rss	50	x	50	3	MB" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:4: field 9 \"x\" is not a number" &&
	expect_fail 1 sh "$H" compare -m m1 bad.tsv "$F/summary.tsv" &&
	expect_err "history.sh: bad.tsv:4: field 9 \"x\" is not a number" &&
	test_cmp /dev/null out &&
	cp bad.tsv before.tsv &&
	expect_fail 1 sh "$H" record -m m1 -M box -d 2026-02-01T00:00:00Z -c abc bad.tsv "$F/summary.tsv" &&
	expect_err "history.sh: bad.tsv:4: field 9 \"x\" is not a number" &&
	test_cmp before.tsv bad.tsv
'
test_expect_success 'malformed rows: fields, date, commit, machine, order of min/median/max, runs, column line' '
	bad 3 "2026-01-01T00:00:00Z	aaaaaaa	m1	box-one	goalc	big	speed	1	2	3	3" &&
	expect_fail 1 sh "$H" check bad.tsv && expect_err "history.sh: bad.tsv:3: 11 fields, want 12" &&
	bad 3 "2026-01-01 00:00	aaaaaaa	m1	box-one	goalc	big	speed	1	2	3	3	s" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:3: date \"2026-01-01 00:00\" is not YYYY-MM-DDTHH:MM:SSZ" &&
	bad 3 "2026-01-01T00:00:00Z	HEAD	m1	box-one	goalc	big	speed	1	2	3	3	s" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:3: commit \"HEAD\" is not a hash, hash+dirty or -" &&
	bad 3 "2026-01-01T00:00:00Z	aaaaaaa	m 1	box-one	goalc	big	speed	1	2	3	3	s" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:3: machine \"m 1\" is not [A-Za-z0-9._-]+" &&
	bad 3 "2026-01-01T00:00:00Z	aaaaaaa	m1	box-one	goalc	big	speed	1	4	3	3	s" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:3: min 1, median 4, max 3 are not in order" &&
	bad 3 "2026-01-01T00:00:00Z	aaaaaaa	m1	box-one	goalc	big	speed	1	2	3	0	s" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:3: runs \"0\" is not a positive integer" &&
	bad 2 "date	commit	machine	tool	benchmark	metric	min	median	max	runs	unit" &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:2: the column line is not the one of formats/bench-history.md" &&
	printf "%s" "$(cat "$F/history.tsv")" >bad.tsv &&
	expect_fail 1 sh "$H" check bad.tsv &&
	expect_err "history.sh: bad.tsv:14: no newline at the end of the file" &&
	sh "$H" check "$F/history.tsv" && sh "$H" check nothing.tsv
'
test_expect_success 'record: appends one row per figure, exactly, and the next compare finds them' '
	cp "$F/history.tsv" h.tsv &&
	sh "$H" record -m m1 -M "box one" -d 2026-02-01T10:00:00Z -c 0123abc+dirty h.tsv "$F/summary.tsv" 2>err &&
	grep -qxF "history.sh: 9 rows appended to h.tsv" err &&
	head -n 14 h.tsv >head && test_cmp "$F/history.tsv" head &&
	tail -n +15 h.tsv >added &&
	sed "s/^/2026-02-01T10:00:00Z	0123abc+dirty	m1	box one	/" "$F/summary.tsv" >want &&
	test_cmp want added &&
	sh "$H" compare -m m1 h.tsv "$F/summary.tsv" >out 2>/dev/null &&
	test "$(cut -f10 out | sort -u)" = same &&
	test "$(cut -f9 out | sort -u)" = +0.0%
'
test_expect_success 'record: a new history gets its header; bad figures or machine leave it untouched' '
	sh "$H" record -m m1 -M box -d 2026-02-01T10:00:00Z -c - new.tsv "$F/summary.tsv" 2>/dev/null &&
	sh "$H" check new.tsv &&
	test "$(grep -c "^#" new.tsv)" = 3 &&
	test "$(grep -vc "^#" new.tsv)" = 10 &&
	cp new.tsv before.tsv &&
	{ cat "$F/summary.tsv"; tsv ib y wall 3 2 1 3 s; } >sum &&
	expect_fail 1 sh "$H" record -m m1 -M box -d 2026-02-01T10:00:00Z -c - new.tsv sum &&
	expect_err "history.sh: sum:10: min 3, median 2, max 1 are not in order" &&
	test_cmp before.tsv new.tsv &&
	expect_fail 1 sh "$H" record -m "a b" -M box -d 2026-02-01T10:00:00Z -c - new.tsv "$F/summary.tsv" &&
	test_cmp before.tsv new.tsv
'
test_expect_success 'machine: a stable id and a description, overridable' '
	sh "$H" machine >m && test "$(wc -l <m)" = 1 &&
	cut -f1 m | grep -qx "[a-z0-9-]*c-[0-9]*g" &&
	sh "$H" machine | cmp -s - m &&
	BENCH_MACHINE=lab-1 BENCH_MACHINE_DESC="a box" sh "$H" machine >m2 &&
	tsv lab-1 a box | sed "s/a	box/a box/" >want && test_cmp want m2
'
test_expect_success 'the driver: per-run lines summarized, compared, and recorded with RECORD=1' '
	mkdir fake &&
	printf "#!/bin/sh\nfor v in 3 1 2; do printf \"fake\\\\tb\\\\tspeed\\\\t%%s\\\\tMB/s\\\\n\" \$v; done\nprintf \"fake\\\\tb\\\\tops\\\\t7\\\\tops\\\\n\"\n" >fake/fake.sh &&
	sh fake/fake.sh >raw && test "$(wc -l <raw)" = 4 &&
	BENCH_DIR=$PWD/fake BENCH_HISTORY=$PWD/d.tsv BENCH_MACHINE=m1 BENCH_MACHINE_DESC=box \
		sh "$TOP/tests/bench/run-all.sh" >out 2>err &&
	{ tsv tool benchmark metric min median max runs unit vs_last change
	  tsv fake b speed 1 2 3 3 MB/s - new; tsv fake b ops 7 7 7 1 ops - new; } >want &&
	test_cmp want out && ! test -e d.tsv &&
	BENCH_DIR=$PWD/fake BENCH_HISTORY=$PWD/d.tsv BENCH_MACHINE=m1 BENCH_MACHINE_DESC=box RECORD=1 \
		sh "$TOP/tests/bench/run-all.sh" >out 2>err &&
	test_cmp want out &&
	grep -v "^#" d.tsv | tail -n +2 | cut -f3- >rows &&
	{ tsv m1 box fake b speed 1 2 3 3 MB/s; tsv m1 box fake b ops 7 7 7 1 ops; } >want &&
	test_cmp want rows &&
	BENCH_DIR=$PWD/fake BENCH_HISTORY=$PWD/d.tsv BENCH_MACHINE=m1 \
		sh "$TOP/tests/bench/run-all.sh" >out 2>err &&
	test "$(tail -n +2 out | cut -f10 | sort -u)" = same &&
	echo garbage >>d.tsv &&
	BENCH_DIR=$PWD/fake BENCH_HISTORY=$PWD/d.tsv BENCH_MACHINE=m1 \
		sh "$TOP/tests/bench/run-all.sh" >out 2>err; test $? = 1 &&
	grep -qF "history.sh: $PWD/d.tsv:7: 1 fields, want 12" err && test_cmp /dev/null out
'
test_done
