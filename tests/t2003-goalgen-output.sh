#!/bin/sh
# goalgen's output paths: standard output, -o FILE (written atomically),
# -z and a .zst name (zstd), and the help and version texts.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: the reference text on standard output' '
	goalgen allreduce 7 --calc 1ns >ref.goal &&
	test -s ref.goal
'

test_expect_success '-o FILE writes the same text and nothing on stdout' '
	goalgen allreduce 7 --calc 1ns -o o.goal >out 2>err &&
	! test -s out && ! test -s err &&
	test_cmp ref.goal o.goal
'

test_expect_success '--output=FILE replaces an existing file and leaves no temporary' '
	echo old >o2.goal &&
	goalgen allreduce 7 --calc 1ns --output=o2.goal &&
	test_cmp ref.goal o2.goal &&
	test "$(ls | grep -c tmp)" = 0
'

test_expect_success '-z on standard output is a zstd stream of the same text' '
	goalgen allreduce 7 --calc 1ns -z >z.zst &&
	test "$(od -An -tx1 -N4 z.zst | tr -d " ")" = 28b52ffd &&
	zstd -dc z.zst >z.goal &&
	test_cmp ref.goal z.goal
'

test_expect_success 'an output name ending in .zst is compressed without -z' '
	goalgen allreduce 7 --calc 1ns -o s.goal.zst &&
	zstd -dc s.goal.zst >s.goal &&
	test_cmp ref.goal s.goal
'

test_expect_success '-z -o FILE compresses whatever the name' '
	goalgen allreduce 7 --calc 1ns -z -o plain.goal &&
	zstd -dc plain.goal >p.goal &&
	test_cmp ref.goal p.goal
'

test_expect_success 'a large schedule crosses the buffer boundaries intact' '
	goalgen dissemination 20000 --calc 1 -o big.goal.zst &&
	goalgen dissemination 20000 --calc 1 >big.goal &&
	zstd -dc big.goal.zst | cmp - big.goal &&
	test "$(grep -c "^rank " big.goal)" = 20000 &&
	tail -1 big.goal | grep -qx "}"
'

test_expect_success 'a closed pipe stops goalgen quietly' '
	goalgen dissemination 1000000 2>err | head -1 >out &&
	echo "num_ranks 1000000" >want &&
	test_cmp want out &&
	! test -s err
'

test_expect_success '--help names every pattern and option' '
	goalgen --help >out &&
	for w in dissemination bcast reduce ring pingpong alltoall allreduce random \
		--size --calc --tag --root --steps --reps --seed --ops --output --zstd --help --version; do
		grep -q -e "$w" out || { echo "missing $w"; exit 1; }
	done &&
	head -1 out | grep -qx "Usage: goalgen PATTERN N \[options\]"
'

test_expect_success '-h is --help; --version' '
	goalgen -h >a && goalgen --help >b && test_cmp a b &&
	goalgen --version >v && grep -qx "goalgen (ibreplay) [0-9.]*" v
'

test_expect_success 'the man page documents every pattern and option' '
	man="$TOP/docs/man/goalgen.1" &&
	for w in dissemination bcast reduce ring pingpong alltoall allreduce random \
		size calc tag root steps reps seed ops output zstd "EXIT STATUS" EXAMPLES FILES; do
		grep -q -e "$w" "$man" || { echo "missing $w"; exit 1; }
	done
'

test_done
