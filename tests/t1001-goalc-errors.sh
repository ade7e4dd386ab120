#!/bin/sh
# goalc: every error of the GOAL text compiler, with its exact message, and
# the exit status (1: bad input). A failed compile leaves no output file.
. "$(dirname "$0")/lib.sh"

# bad INPUT MESSAGE: INPUT (printf format) must fail with exactly "goalc: MESSAGE"
bad() {
	rm -f out.goalb &&
	printf "$1" >in.goal &&
	expect_fail 1 goalc -o out.goalb in.goal &&
	expect_err "goalc: $2" &&
	test ! -e out.goalb &&
	test $(wc -l <err) -eq 1
}
H='num_ranks 1\nrank 0 {\n'

test_expect_success 'empty input' 'bad "" "in.goal: missing '\''num_ranks <N>'\'' line (no schedule in the input)"'
test_expect_success 'only comments' 'bad "// nothing\n/* here */\n" "in.goal: missing '\''num_ranks <N>'\'' line (no schedule in the input)"'
test_expect_success 'rank block before num_ranks' 'bad "rank 0 {\n}\n" "in.goal:1: expected '\''num_ranks <N>'\'' before the first rank block, found '\''rank'\''"'
test_expect_success 'op before num_ranks' 'bad "calc 5\n" "in.goal:1: expected '\''num_ranks <N>'\'' before the first rank block, found '\''calc'\''"'
test_expect_success 'num_ranks twice' 'bad "num_ranks 2\n\nnum_ranks 3\n" "in.goal:3: num_ranks given twice (first on line 1)"'
test_expect_success 'num_ranks 0' 'bad "num_ranks 0\n" "in.goal:1: num_ranks 0 out of range (1..2147483647)"'
test_expect_success 'num_ranks too large' 'bad "num_ranks 2147483648\n" "in.goal:1: num_ranks 2147483648 out of range (1..2147483647)"'
test_expect_success 'num_ranks not a number' 'bad "num_ranks x\n" "in.goal:1: expected a number of ranks after '\''num_ranks'\'', found '\''x'\''"'
test_expect_success 'text after num_ranks' 'bad "num_ranks 1 x\n" "in.goal:1: expected end of line after the number of ranks, found '\''x'\''"'
test_expect_success 'rank out of range' 'bad "num_ranks 2\nrank 2 {\n}\n" "in.goal:2: rank 2 out of range (num_ranks is 2)"'
test_expect_success 'rank given twice' 'bad "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n" "in.goal:4: rank 0 given twice (first block on line 2)"'
test_expect_success 'missing rank' 'bad "num_ranks 4\nrank 0 {\n}\nrank 2 {\n}\nrank 1 {\n}\n" "in.goal: missing rank 3 (num_ranks is 4)"'
test_expect_success 'missing first rank' 'bad "num_ranks 3\nrank 2 {\n}\n" "in.goal: missing rank 0 (num_ranks is 3)"'
test_expect_success 'a huge num_ranks with one block is a missing rank, fast' 'bad "num_ranks 2000000000\nrank 0 {\n}\n" "in.goal: missing rank 1 (num_ranks is 2000000000)"'
test_expect_success 'missing brace' 'bad "num_ranks 1\nrank 0\n}\n" "in.goal:2: expected '\''{'\'' after the rank number, found end of line"'
test_expect_success 'unterminated block' 'bad "${H}calc 5\n" "in.goal:2: unterminated block of rank 0 (no '\''}'\'' before end of input)"'
test_expect_success 'block inside a block' 'bad "num_ranks 2\nrank 0 {\nrank 1 {\n}\n" "in.goal:3: expected '\''}'\'' closing rank 0 (opened on line 2), found '\''rank'\''"'
test_expect_success 'stray closing brace' 'bad "${H}}\n}\n" "in.goal:4: '\''}'\'' without an open rank block"'
test_expect_success 'text after the closing brace' 'bad "${H}} x\n" "in.goal:3: expected end of line after '\''}'\'', found '\''x'\''"'
test_expect_success 'unterminated comment' 'bad "num_ranks 1\n/* open\nrank 0 {\n}\n" "in.goal:2: unterminated comment (no '\''*/'\'' before end of input)"'
test_expect_success 'op outside a block' 'bad "num_ranks 1\nsend 5b to 0\n" "in.goal:2: '\''send'\'' outside a rank block (expected '\''rank <R> {'\'' first)"'
test_expect_success 'label outside a block' 'bad "num_ranks 1\na: calc 1\n" "in.goal:2: label '\''a'\'' outside a rank block (expected '\''rank <R> {'\'' first)"'
test_expect_success 'requires outside a block' 'bad "num_ranks 1\na requires b\n" "in.goal:2: '\''requires'\'' outside a rank block (expected '\''rank <R> {'\'' first)"'
test_expect_success 'bad keyword' 'bad "${H}sned 5b to 0\n}\n" "in.goal:3: expected a statement (send, recv, calc, <label>: ..., <label> requires <label>, rank, '\''}'\''), found '\''sned'\''"'
test_expect_success 'bad op after a label' 'bad "${H}a: foo 5\n}\n" "in.goal:3: expected send, recv or calc after the label, found '\''foo'\''"'
test_expect_success 'label followed by a word' 'bad "${H}a b\n}\n" "in.goal:3: expected '\'':'\'', '\''requires'\'' or '\''irequires'\'' after label '\''a'\'', found '\''b'\''"'
test_expect_success 'bad character' 'bad "${H}%%x\n}\n" "in.goal:3: expected a statement (send, recv, calc, requires, rank, num_ranks or '\''}'\''), found '\''%x'\''"'
test_expect_success 'bad number' 'bad "${H}calc x5\n}\n" "in.goal:3: expected a time in picoseconds after '\''calc'\'', found '\''x5'\''"'
test_expect_success 'number with garbage' 'bad "${H}calc 5x\n}\n" "in.goal:3: expected a time in picoseconds after '\''calc'\'', found '\''5x'\''"'
test_expect_success 'negative size' 'bad "${H}send -5b to 0\n}\n" "in.goal:3: expected a size after '\''send'\'', found '\''-5b'\''"'
test_expect_success 'size overflow' 'bad "${H}send 18446744073709551616b to 0\n}\n" "in.goal:3: size '\''18446744073709551616b'\'' does not fit in 64 bits"'
test_expect_success 'calc overflow' 'bad "${H}calc 99999999999999999999\n}\n" "in.goal:3: time '\''99999999999999999999'\'' does not fit in 64 bits"'
test_expect_success 'size without b' 'bad "${H}send 5 to 0\n}\n" "in.goal:3: expected '\''b'\'' after the size, found '\''to'\''"'
test_expect_success 'send without to' 'bad "${H}send 5b from 0\n}\n" "in.goal:3: expected '\''to'\'' after the size of a send, found '\''from'\''"'
test_expect_success 'recv without from' 'bad "${H}recv 5b to 0\n}\n" "in.goal:3: expected '\''from'\'' after the size of a recv, found '\''to'\''"'
test_expect_success 'send peer out of range' 'bad "${H}send 5b to 1\n}\n" "in.goal:3: destination rank 1 out of range (num_ranks is 1)"'
test_expect_success 'recv peer out of range' 'bad "${H}recv 5b from 7\n}\n" "in.goal:3: source rank 7 out of range (num_ranks is 1)"'
test_expect_success 'send to -1' 'bad "${H}send 5b to -1\n}\n" "in.goal:3: expected a destination rank after '\''to'\'', found '\''-1'\''"'
test_expect_success 'recv from -2' 'bad "${H}recv 5b from -2\n}\n" "in.goal:3: expected a source rank or -1 after '\''from'\'', found '\''-2'\''"'
test_expect_success 'send tag -1' 'bad "${H}send 5b to 0 tag -1\n}\n" "in.goal:3: send with tag -1: a send needs a tag 0..2147483647 (-1 matches any tag on recv only)"'
test_expect_success 'send tag out of range' 'bad "${H}send 5b to 0 tag 2147483648\n}\n" "in.goal:3: tag 2147483648 out of range (0..2147483647)"'
test_expect_success 'recv tag 4294967295 is not the wildcard' 'bad "${H}recv 5b from 0 tag 4294967295\n}\n" "in.goal:3: tag 4294967295 out of range (0..2147483647 or -1)"'
test_expect_success 'tag without value' 'bad "${H}send 5b to 0 tag\n}\n" "in.goal:3: expected a tag after '\''tag'\'', found end of line"'
test_expect_success 'cpu out of range' 'bad "${H}calc 5 cpu 256\n}\n" "in.goal:3: cpu 256 out of range (0..255)"'
test_expect_success 'nic out of range' 'bad "${H}send 5b to 0 nic 300\n}\n" "in.goal:3: nic 300 out of range (0..255)"'
test_expect_success 'nic on calc' 'bad "${H}calc 5 nic 1\n}\n" "in.goal:3: expected '\''cpu'\'' or end of line, found '\''nic'\''"'
test_expect_success 'unknown option' 'bad "${H}send 5b to 0 prio 3\n}\n" "in.goal:3: expected '\''tag'\'', '\''cpu'\'', '\''nic'\'' or end of line, found '\''prio'\''"'
test_expect_success 'option given twice' 'bad "${H}send 5b to 0 tag 1 tag 2\n}\n" "in.goal:3: '\''tag'\'' given twice"'
test_expect_success 'duplicate label' 'bad "${H}a: calc 5\n\na: calc 6\n}\n" "in.goal:5: duplicate label '\''a'\'' in rank 0 (first defined on line 3)"'
test_expect_success 'self-dependency' 'bad "${H}a: calc 5\na requires a\n}\n" "in.goal:4: label '\''a'\'' requires itself"'
test_expect_success 'self-dependency (irequires)' 'bad "${H}a: calc 5\na irequires a\n}\n" "in.goal:4: label '\''a'\'' irequires itself"'
test_expect_success 'unknown label' 'bad "${H}a: calc 5\na requires l9\n}\n" "in.goal:4: unknown label '\''l9'\'' in rank 0"'
test_expect_success 'unknown label reported at its first use' 'bad "${H}a: calc 5\nb: calc 5\nb requires zz\na requires zz\n}\n" "in.goal:5: unknown label '\''zz'\'' in rank 0"'
test_expect_success 'labels belong to their rank' 'bad "num_ranks 2\nrank 0 {\na: calc 5\n}\nrank 1 {\nb: calc 1\nb requires a\n}\n" "in.goal:7: unknown label '\''a'\'' in rank 1"'
test_expect_success 'requires without a label' 'bad "${H}a: calc 5\na requires\n}\n" "in.goal:4: expected a label after '\''requires'\'', found end of line"'
test_expect_success 'text after requires' 'bad "${H}a: calc 5\nb: calc 5\na requires b c\n}\n" "in.goal:5: expected end of line after the label, found '\''c'\''"'
test_expect_success 'dependency cycle' 'bad "num_ranks 4\nrank 0 {\n}\nrank 1 {\n}\nrank 2 {\n}\nrank 3 {\na: calc 1\nb: calc 2\nc: calc 3\na requires b\nb requires c\nc requires a\n}\n" "in.goal:8: dependency cycle in rank 3: a -> b -> c -> a"'
test_expect_success 'two-op cycle through irequires' 'bad "${H}x: calc 1\ny: calc 2\nx irequires y\ny requires x\n}\n" "in.goal:2: dependency cycle in rank 0: x -> y -> x"'
test_expect_success 'cycle reached from outside' 'bad "${H}z: calc 0\na: calc 1\nb: calc 2\nz requires a\na requires b\nb requires a\n}\n" "in.goal:2: dependency cycle in rank 0: a -> b -> a"'
test_expect_success 'line numbers count CRLF lines and comments' 'bad "num_ranks 1\r\n/* one\r\ntwo */\r\nrank 0 {\r\n\r\ncalc x\r\n}\r\n" "in.goal:6: expected a time in picoseconds after '\''calc'\'', found '\''x'\''"'
test_expect_success 'a NUL byte is an error, not the end of the line' 'bad "${H}calc 5\000x\n}\n" "in.goal:3: expected '\''cpu'\'' or end of line, found '\''\\x00x'\''"'
test_expect_success 'error on standard input names <stdin>' '
	printf "num_ranks 1\nrank 0 {\ncalc x\n}\n" | expect_fail 1 goalc -c &&
	expect_err "goalc: <stdin>:3: expected a time in picoseconds after '\''calc'\'', found '\''x'\''"
'
test_expect_success 'a missing input file' '
	expect_fail 1 goalc -c nosuch.goal &&
	expect_err "goalc: nosuch.goal: cannot open: No such file or directory"
'
test_expect_success 'corrupt compressed input' '
	printf "num_ranks 1\nrank 0 {\n}\n" | zstd -q -c | head -c 12 >t.zst &&
	expect_fail 1 goalc -c t.zst &&
	grep -q "^goalc: t.zst: " err
'
test_done
