#!/bin/sh
# goalc: the text parser's fast paths (lib/ir_goal_text.c) give the answers of the
# general ones: numbers of 19 and 20 digits (the unchecked loop stops at 19), ranks
# in order (a list of their lines) and out of order (a hash), repeated and missing
# ranks from either, labels of the same length that differ in one character.
. "$(dirname "$0")/lib.sh"

bad() {
	printf "$1" >in.goal &&
	expect_fail 1 goalc -c in.goal &&
	expect_err "goalc: $2"
}
canon() {
	printf "$1" >in.goal &&
	goalc -d in.goal >out.canon &&
	printf "$2" >expect &&
	test_cmp expect out.canon
}

test_expect_success 'numbers of 1, 19 and 20 digits, leading zeros, the largest' '
	canon "num_ranks 1\nrank 0 {\ncalc 7\ncalc 1234567890123456789\ncalc 00000000000000000001\ncalc 18446744073709551615\ncalc 0000000000000000000000000042\n}\n" \
	      "num_ranks 1\nrank 0 {\nl0: calc 7\nl1: calc 1234567890123456789\nl2: calc 1\nl3: calc 18446744073709551615\nl4: calc 42\n}\n"
'
test_expect_success 'sizes of 19 and 20 digits directly followed by b' '
	canon "num_ranks 2\nrank 0 {\nsend 9999999999999999999b to 1 tag 0\nsend 10000000000000000000b to 1 tag 0\n}\nrank 1 {\nrecv 9999999999999999999b from 0 tag 0\nrecv 10000000000000000000b from 0 tag 0\n}\n" \
	      "num_ranks 2\nrank 0 {\nl0: send 9999999999999999999b to 1 tag 0\nl1: send 10000000000000000000b to 1 tag 0\n}\nrank 1 {\nl0: recv 9999999999999999999b from 0 tag 0\nl1: recv 10000000000000000000b from 0 tag 0\n}\n"
'
test_expect_success 'a 20-digit number above 2^64, and 19 digits followed by a letter' '
	bad "num_ranks 1\nrank 0 {\ncalc 18446744073709551616\n}\n" "in.goal:3: time '\''18446744073709551616'\'' does not fit in 64 bits" &&
	bad "num_ranks 1\nrank 0 {\ncalc 1234567890123456789x\n}\n" "in.goal:3: expected a time in picoseconds after '\''calc'\'', found '\''1234567890123456789x'\''"
'
test_expect_success 'ranks out of order, then one repeated from the in-order ones' '
	bad "num_ranks 4\nrank 0 {\n}\nrank 1 {\n}\nrank 3 {\n}\nrank 2 {\n}\nrank 1 {\n}\n" "in.goal:10: rank 1 given twice (first block on line 4)"
'
test_expect_success 'a rank out of order repeated, in order and after' '
	bad "num_ranks 4\nrank 2 {\n}\nrank 0 {\n}\nrank 2 {\n}\n" "in.goal:6: rank 2 given twice (first block on line 2)" &&
	bad "num_ranks 4\nrank 0 {\n}\nrank 2 {\n}\nrank 1 {\n}\nrank 2 {\n}\n" "in.goal:8: rank 2 given twice (first block on line 4)"
'
test_expect_success 'missing ranks after an in-order start, with ranks out of order after it' '
	bad "num_ranks 6\nrank 0 {\n}\nrank 1 {\n}\nrank 3 {\n}\nrank 2 {\n}\nrank 5 {\n}\n" "in.goal: missing rank 4 (num_ranks is 6)" &&
	bad "num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\n" "in.goal: missing rank 2 (num_ranks is 3)" &&
	bad "num_ranks 3\nrank 0 {\n}\nrank 2 {\n}\n" "in.goal: missing rank 1 (num_ranks is 3)"
'
test_expect_success 'ranks in any order compile to the schedule of the same ranks in order' '
	printf "num_ranks 3\nrank 0 {\nsend 1b to 1 tag 0\n}\nrank 1 {\nrecv 1b from 0 tag 0\n}\nrank 2 {\ncalc 5\n}\n" >a.goal &&
	printf "num_ranks 3\nrank 2 {\ncalc 5\n}\nrank 0 {\nsend 1b to 1 tag 0\n}\nrank 1 {\nrecv 1b from 0 tag 0\n}\n" >b.goal &&
	goalc -d a.goal >a.canon && goalc -d b.goal >b.canon &&
	sort a.canon >a.s && sort b.canon >b.s && test_cmp a.s b.s
'
test_expect_success 'labels of one length differing in one character are distinct' '
	canon "num_ranks 1\nrank 0 {\nab1: calc 1\nac1: calc 2\nab2: calc 3\nba1: calc 4\nab1 requires ac1\nba1 requires ab2\nac1 requires ba1\n}\n" \
	      "num_ranks 1\nrank 0 {\nl0: calc 1\nl1: calc 2\nl2: calc 3\nl3: calc 4\nl0 requires l1\nl3 requires l2\nl1 requires l3\n}\n"
'
test_done
