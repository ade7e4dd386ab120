#!/bin/sh
# Replay every fuzz target's corpus (fuzz/corpus/<target>/) through the plain-main
# build of the target (built by `make check` into $IR_BUILD/fuzz-replay/).
. "$(dirname "$0")/lib.sh"

for src in "$TOP"/fuzz/fuzz-*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	corpus="$TOP/fuzz/corpus/${name#fuzz-}"
	test_expect_success "corpus of $name replays without a crash" '
		test -d "$corpus" &&
		test -n "$(ls "$corpus")" &&
		"$IR_BUILD/fuzz-replay/$name" "$corpus" >replay.out &&
		! grep -q "^not ok" replay.out
	'
done
test_done
