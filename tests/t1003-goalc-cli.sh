#!/bin/sh
# goalc: command line: modes and their conflicts, operands, exit codes,
# output files (atomic, no partial file on failure), --stats output.
. "$(dirname "$0")/lib.sh"

test_expect_success '--help lists every option' '
	goalc --help >out &&
	for o in --output --zstd --force --decompile --stats --check --progress --quiet --help --version; do
		grep -q -- "$o" out || { echo "missing $o"; exit 1; }
	done
'
test_expect_success 'two modes conflict (exit 2)' '
	expect_fail 2 goalc -d --stats x &&
	expect_err "goalc: options -d and --stats cannot be used together" &&
	grep -qx "Try '\''goalc --help'\'' for more information." err
'
test_expect_success 'a mode given twice is fine' '
	goalc -d -d "$SEED/ltest-schedgen.goal" >/dev/null
'
test_expect_success 'more than one operand (exit 2)' '
	expect_fail 2 goalc a b &&
	expect_err "goalc: too many operands: '\''b'\'' (one input FILE at most)"
'
test_expect_success '--check with -o (exit 2)' '
	expect_fail 2 goalc --check -o x "$SEED/ltest-schedgen.goal" &&
	expect_err "goalc: --check writes nothing: -o cannot be used with it"
'
test_expect_success 'missing option argument (exit 2)' '
	expect_fail 2 goalc -o
'
test_expect_success 'a failed compile leaves no output file' '
	printf "num_ranks 2\nrank 0 {\n}\n" >bad.goal &&
	expect_fail 1 goalc -o out.goalb bad.goal &&
	expect_err "goalc: bad.goal: missing rank 1 (num_ranks is 2)" &&
	test ! -e out.goalb &&
	test -z "$(ls | grep -v "^bad.goal$\|^err$\|^out$")"
'
test_expect_success 'a failed compile keeps an existing output file' '
	goalc -o keep.goalb "$SEED/ltest-schedgen.goal" &&
	cp keep.goalb before &&
	expect_fail 1 goalc -o keep.goalb bad.goal &&
	test_cmp before keep.goalb
'
test_expect_success 'an output in a missing directory (exit 1)' '
	expect_fail 1 goalc -o nodir/x.goalb "$SEED/ltest-schedgen.goal" &&
	grep -q "^goalc: nodir/x.goalb" err
'
test_expect_success 'a closed standard output is an error, not a crash' '
	goalc -d "$SEED/ltest-schedgen.goal" >&- 2>err; rc=$?
	test $rc -eq 1
'
test_expect_success '--stats of the seed schedule' '
	goalc --stats "$SEED/ltest-schedgen.goal" >stats &&
	test_golden seed.stats stats
'
test_expect_success '--stats is the same from text and binary' '
	goalc -o s.goalb "$SEED/ltest-schedgen.goal" &&
	goalc --stats s.goalb >stats2 &&
	test_cmp stats stats2
'
test_expect_success '--stats of a schedule with wildcards and fan-out' '
	printf "num_ranks 3\nrank 0 {\nc: calc 5\na: send 1b to 1\nb: send 2b to 2 tag 4\na requires c\nb irequires c\n}\nrank 1 {\nrecv 1b from -1\n}\nrank 2 {\nx: recv 2b from 0 tag -1 cpu 1\ny: calc 3\nz: calc 4 cpu 2\nz requires x\nz requires y\n}\n" >w.goal &&
	goalc --stats w.goal >wstats &&
	test_golden wildcard.stats wstats
'
test_expect_success '--progress writes only to standard error' '
	goalc --progress -o p.goalb "$SEED/ltest-schedgen.goal" 2>perr &&
	goalc -d p.goalb >/dev/null
'
test_done
