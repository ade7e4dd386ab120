#!/bin/sh
# goalgen's usage errors (exit 2, exact message, nothing on stdout) and
# run-time errors (exit 1).
. "$(dirname "$0")/lib.sh"

TRY="Try 'goalgen --help' for more information."

# usage_err 'MESSAGE' ARGS...: goalgen ARGS exits 2 with "goalgen: MESSAGE", the Try line, no output
usage_err() {
	msg=$1
	shift
	expect_fail 2 goalgen "$@" &&
	expect_err "goalgen: $msg" &&
	expect_err "$TRY" &&
	test "$(wc -l <err)" = 2 &&
	! test -s out
}

while IFS='|' read -r msg args; do
	test_expect_success "usage error: goalgen $args" "usage_err \"\$msg\" $args"
done <<'LIST'
missing PATTERN and N|
missing N|ring
unexpected operand '5'|ring 4 5
unknown pattern 'rings' (expected dissemination, bcast, reduce, ring, pingpong, alltoall, allreduce or random)|rings 4
invalid value for N: '0' (expected 1..2147483647)|dissemination 0
invalid value for N: '2147483648' (expected 1..2147483647)|dissemination 2147483648
invalid number for N: 'x8' (expected a non-negative integer)|bcast x8
invalid number for N: '18446744073709551616' (does not fit in 64 bits)|bcast 18446744073709551616
invalid number for N: '8.5' (expected a non-negative integer)|bcast 8.5
invalid size for --size: '1X' (expected a number with an optional unit B, K, M, G or T; plain numbers are bytes)|ring 4 --size 1X
invalid size for --size: '16777216T' (does not fit in 64 bits)|ring 4 --size 16777216T
invalid size for --size: '' (expected a number with an optional unit B, K, M, G or T; plain numbers are bytes)|ring 4 --size=
invalid time for --calc: '0.5ps' (not a whole number of the base unit)|ring 4 --calc 0.5ps
invalid time for --calc: '-1us' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)|ring 4 --calc=-1us
invalid time for --calc: '18446745s' (does not fit in 64 bits)|ring 4 --calc 18446745s
invalid value for --tag: '2147483648' (expected 0..2147483647)|ring 4 --tag 2147483648
invalid number for --tag: '-1' (expected a non-negative integer)|ring 4 --tag=-1
invalid value for --root: '8' (expected 0..7)|bcast 8 --root 8
invalid value for --root: '1' (expected 0..0)|reduce 1 --root 1
invalid value for --steps: '0' (expected 1..536870912)|ring 4 --steps 0
invalid value for --steps: '536870913' (expected 1..536870912)|ring 4 --steps 536870913
invalid value for --reps: '0' (expected 1..536870912)|pingpong 2 --reps 0
invalid number for --seed: 'abc' (expected a non-negative integer)|random 4 --seed abc
invalid value for --ops: '0' (expected 1..16777216)|random 4 --ops 0
--root does not apply to pattern 'ring'|ring 4 --root 1
--steps does not apply to pattern 'dissemination'|dissemination 4 --steps 2
--reps does not apply to pattern 'ring'|ring 4 --reps 2
--seed does not apply to pattern 'alltoall'|alltoall 4 --seed 2
--ops does not apply to pattern 'bcast'|bcast 4 --ops 2
pattern 'ring' needs N >= 2, got 1|ring 1
pattern 'pingpong' needs N >= 2, got 1|pingpong 1
random keeps N x --ops operations in memory: 1048577 x 16 is more than 16777216|random 1048577
random gives every message of a rank its own tag: --tag 2147483640 plus --ops 16 passes 2147483647|random 4 --tag 2147483640
pattern 'alltoall' with N = 1073741825 has 2147483648 operations per rank (at most 2147483647)|alltoall 1073741825
pattern 'ring' with N = 2147483647 has 4294967292 operations per rank (at most 2147483647)|ring 2147483647
option '--size' needs a value|ring 4 --size
option '-o' needs a value|ring 4 -o
unknown option '-x'|ring 4 -x
unknown option '--bogus'|ring 4 --bogus
LIST

test_expect_success 'the largest values pass validation' '
	goalgen random 1 --tag 2147483632 --ops 16 --calc 18446744073709551615 >out &&
	goalgen pingpong 2 --size 16777215T --tag 2147483647 >out &&
	grep -qx "s0: send 18446742974197923840b to 1 tag 2147483647" out &&
	goalgen alltoall 3 --calc 18446744073709551615ps >out &&
	grep -qx "c2: calc 18446744073709551615" out
'

test_expect_success 'N = 2147483647 is accepted (output cut short by head)' '
	goalgen dissemination 2147483647 | head -4 >out &&
	printf "num_ranks 2147483647\nrank 0 {\ns0: send 8b to 1 tag 0\nr0: recv 8b from 2147483646 tag 0\n" >want &&
	test_cmp want out
'

test_expect_success 'an output directory that does not exist: exit 1' '
	expect_fail 1 goalgen ring 4 -o no/such/dir/x.goal &&
	expect_err "goalgen: no/such/dir/x.goal: cannot create: No such file or directory" &&
	! test -e no
'

test_expect_success 'a full disk: exit 1 with the write error, /dev/full kept a device' '
	expect_fail 1 goalgen dissemination 100000 -o /dev/full &&
	expect_err "goalgen: /dev/full: write error: No space left on device" &&
	test -c /dev/full
'

test_expect_success 'a full disk on standard output: exit 1' '
	goalgen dissemination 100000 >/dev/full 2>err; test $? = 1 &&
	expect_err "goalgen: <stdout>: write error: No space left on device"
'

test_done
