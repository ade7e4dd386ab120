#!/bin/sh
# goalc: the GOAL text grammar, canonical text and round trips, compressed
# input and output, pipes.
. "$(dirname "$0")/lib.sh"

# Every grammar rule in one schedule: indentation, // and /* */ comments (also
# over several lines), CRLF, a space before 'b', labels used before they are
# defined, rank blocks out of order, wildcards, cpu and nic, irequires, a
# repeated dependency, labels named like keywords, no final newline.
printf '%s\r\n' '// a schedule that uses every rule' 'num_ranks 3' > grammar.goal
cat >>grammar.goal <<'GOAL'
rank 2 {
	r: recv 64 b from -1 tag -1   // any source, any tag
	c: calc 1000 cpu 1
	  s: send 64b to 0 tag 7 cpu 1 nic 2
	s requires c
	c requires r
	s irequires r
	s requires c
}
/* a block comment
   over two lines */ rank 0 {
  x: recv 64b from 2 tag 7 nic 1
  send 8b to 1 tag 2147483647
  recv 8b from 1
  later requires x
  later: calc 5
  send: calc 0 /* a label named like a keyword */
  send requires later
}
rank 1 {
recv 8b from 0 tag 2147483647
send 8b to 0
}
GOAL
content=$(cat grammar.goal) && printf '%s' "$content" >grammar.goal

test_expect_success 'the grammar example compiles' '
	goalc -o g.goalb grammar.goal &&
	test -s g.goalb
'

test_expect_success 'canonical text of the grammar example' '
	goalc -d g.goalb >g.canon &&
	test_golden grammar.canon g.canon
'

test_expect_success 'text -> binary -> text -> binary gives identical bytes' '
	goalc g.canon -o g2.goalb &&
	test_cmp g.goalb g2.goalb &&
	goalc -d g2.goalb >g2.canon &&
	test_cmp g.canon g2.canon
'

test_expect_success 'canonical text keeps the rank order of the input' '
	grep "^rank" g.canon >order &&
	printf "rank 2 {\nrank 0 {\nrank 1 {\n" >expect &&
	test_cmp expect order
'

test_expect_success '-d reads text too and gives the same canonical text' '
	goalc -d grammar.goal >g3.canon &&
	test_cmp g.canon g3.canon
'

test_expect_success 'the seed schedule round-trips' '
	goalc -o seed.goalb "$SEED/ltest-schedgen.goal" &&
	goalc -d seed.goalb >seed.canon &&
	goalc -o seed2.goalb seed.canon &&
	test_cmp seed.goalb seed2.goalb &&
	goalc -d seed2.goalb >seed2.canon &&
	test_cmp seed.canon seed2.canon
'

test_expect_success 'the seed binary in version 1 has 24 bytes per op, 4 per edge plus fixed overhead' '
	# 82 ops, 80 edges, 2 ranks: header 32, 2 sections of 32 + pad, index 16, trailer 32
	goalc --goalb-version 1 -o seed1.goalb seed.goalb &&
	test $(wc -c <seed1.goalb) -eq $((32 + 2 * 32 + 82 * 24 + 80 * 4 + 16 + 32)) &&
	goalc -d seed1.goalb >seed1.canon &&
	test_cmp seed.canon seed1.canon
'

test_expect_success 'the seed binary in version 3 (the default) has at most 16 bytes per op' '
	test "$(od -An -tu2 -j8 -N2 seed.goalb | tr -d " ")" = 3 &&
	test $(wc -c <seed.goalb) -le $((16 * 82)) &&
	goalc --goalb-version 3 -o seed3.goalb seed1.goalb &&
	test_cmp seed.goalb seed3.goalb
'

test_expect_success 'canonical seed text keeps every op and dependency' '
	test $(grep -c ": send " seed.canon) -eq $(grep -c ": send " "$SEED/ltest-schedgen.goal") &&
	test $(grep -c ": recv " seed.canon) -eq $(grep -c ": recv " "$SEED/ltest-schedgen.goal") &&
	test $(grep -c ": calc " seed.canon) -eq $(grep -c ": calc " "$SEED/ltest-schedgen.goal") &&
	test $(grep -c " requires " seed.canon) -eq $(grep -c " requires " "$SEED/ltest-schedgen.goal")
'

test_expect_success 'binary input is re-encoded to identical bytes' '
	goalc -o again.goalb seed.goalb &&
	test_cmp seed.goalb again.goalb
'

test_expect_success 'standard input and a pipe to standard output' '
	cat "$SEED/ltest-schedgen.goal" | goalc | goalc -d - >pipe.canon &&
	test_cmp seed.canon pipe.canon
'

test_expect_success 'zstd and gzip input are decompressed transparently' '
	zstd -q -c "$SEED/ltest-schedgen.goal" >s.goal.zst &&
	gzip -c "$SEED/ltest-schedgen.goal" >s.goal.gz &&
	goalc -o z.goalb s.goal.zst &&
	goalc -o gz.goalb s.goal.gz &&
	test_cmp seed.goalb z.goalb &&
	test_cmp seed.goalb gz.goalb
'

test_expect_success '-z and a .zst name compress the output' '
	goalc -z -o out.goalb "$SEED/ltest-schedgen.goal" &&
	goalc -o out2.goalb.zst "$SEED/ltest-schedgen.goal" &&
	zstd -q -d -c out.goalb >plain1 &&
	zstd -q -d -c out2.goalb.zst >plain2 &&
	test_cmp seed.goalb plain1 &&
	test_cmp seed.goalb plain2 &&
	goalc -d out.goalb >zc.canon &&
	test_cmp seed.canon zc.canon
'

test_expect_success 'a compressed binary read from a pipe is accepted' '
	zstd -q -c seed.goalb | goalc -d >zp.canon &&
	test_cmp seed.canon zp.canon
'

test_expect_success '--check validates and writes nothing' '
	goalc --check grammar.goal >out &&
	test ! -s out &&
	goalc -c seed.goalb >out &&
	test ! -s out
'

test_expect_success 'dependencies become sorted, de-duplicated edges (requires wins)' '
	printf "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\nc: calc 3\nc requires a\nb irequires a\nb requires a\nc irequires a\nb requires a\n}\n" >dup.goal &&
	goalc -d dup.goal >dup.canon &&
	printf "num_ranks 1\nrank 0 {\nl0: calc 1\nl1: calc 2\nl2: calc 3\nl1 requires l0\nl2 requires l0\n}\n" >expect &&
	test_cmp expect dup.canon
'

test_expect_success 'ranks without ops and a single-rank schedule' '
	printf "num_ranks 2\nrank 1 {\n}\nrank 0 {\ncalc 5\n}\n" >empty.goal &&
	goalc -d empty.goal >empty.canon &&
	printf "num_ranks 2\nrank 1 {\n}\nrank 0 {\nl0: calc 5\n}\n" >expect &&
	test_cmp expect empty.canon &&
	goalc empty.canon | goalc -d >empty2.canon &&
	test_cmp expect empty2.canon
'

test_expect_success 'largest values are kept exactly' '
	printf "num_ranks 2\nrank 0 {\nsend 18446744073709551615b to 1 tag 2147483647 cpu 255 nic 255\ncalc 18446744073709551615 cpu 3\n}\nrank 1 {\nrecv 0b from -1 tag -1\n}\n" >max.goal &&
	goalc -d max.goal >max.canon &&
	printf "num_ranks 2\nrank 0 {\nl0: send 18446744073709551615b to 1 tag 2147483647 cpu 255 nic 255\nl1: calc 18446744073709551615 cpu 3\n}\nrank 1 {\nl0: recv 0b from -1 tag -1\n}\n" >expect &&
	test_cmp expect max.canon
'

test_done
