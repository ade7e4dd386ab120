#!/bin/sh
# goalc: GOAL binary version 3 (formats/goalb.md, Version 3): what goalc writes by
# default and --goalb-version, the same schedule as version 1 on every generator
# (canonical text and simulation), its cost per op, and the reader on damaged files,
# each at a named offset with its exact message (the fields behind valid checksums are
# in tests/unit/u-goal.c).
. "$(dirname "$0")/lib.sh"

# Layout of small.goalb (version 3):
#   0 header | 32 rank 0: 32 checksum, 40 nops 3, 41 nedges 1, 42 cpus/nics, 43 nbytes 13,
#   44 payload (op 0 inline at 44, op 1 inline at 50, op 2 = attribute 0 at 55)
#   | 57 rank 1: 57 checksum, 65 header varints, 69 payload | 77 attribute table (two
#   entries, 8 bytes) | 85 its footer: 85 nattr, 89 reserved, 93 nbytes, 101 checksum,
#   109 magic | 117 index | 133 trailer | 165 end
printf 'num_ranks 2\nrank 0 {\na: send 8b to 1 tag 3\nb: calc 100\nc: send 8b to 1 tag 3\na requires b\n}\nrank 1 {\nrecv 8b from 0 tag 3\nrecv 8b from 0 tag 3\n}\n' >small.goal
goalc -o small.goalb small.goal

poke() {
	f=$1 off=$2
	shift 2
	esc=
	for b in "$@"; do esc="$esc$(printf '\\%03o' "$((0x$b))")"; done
	printf "$esc" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
}
broken() {
	expect_fail 1 goalc -d x.goalb &&
	expect_err "goalc: x.goalb: $1" &&
	test ! -s out
}
u16() { od -An -tu2 -j"$2" -N2 "$1" | tr -d ' '; }

test_expect_success 'goalc writes version 3 by default, in the layout the tests assume' '
	test "$(u16 small.goalb 8)" = 3 &&
	test $(wc -c <small.goalb) -eq 165 &&
	goalc -c small.goalb
'
test_expect_success '--goalb-version 1 writes version 1; the two give the same schedule and convert to each other' '
	goalc --goalb-version 1 -o v1.goalb small.goal &&
	test "$(u16 v1.goalb 8)" = 1 &&
	goalc -d v1.goalb >a.canon &&
	goalc -d small.goalb >b.canon &&
	test_cmp a.canon b.canon &&
	goalc -o back3.goalb v1.goalb &&
	test_cmp small.goalb back3.goalb &&
	goalc --goalb-version 1 -o back1.goalb small.goalb &&
	test_cmp v1.goalb back1.goalb
'
test_expect_success 'read and write ops: version 3 with flag 1, version 2 with --goalb-version 1' '
	goalc -o io3.goalb "$TOP/samples/schedules/halo-4.goal" &&
	test "$(u16 io3.goalb 8)" = 3 && test "$(u16 io3.goalb 10)" = 0 &&
	printf "version 2\nnum_ranks 1\nrank 0 {\na: write 10b at 4096\nb: read 10b at 4096\nb requires a\n}\n" >io.goal &&
	goalc -o io3.goalb io.goal && test "$(u16 io3.goalb 10)" = 1 &&
	goalc --goalb-version 1 -o io2.goalb io.goal && test "$(u16 io2.goalb 8)" = 2 &&
	goalc -d io3.goalb >io3.canon && goalc -d io2.goalb >io2.canon &&
	test_cmp io2.canon io3.canon && head -1 io3.canon | grep -qx "version 2"
'
test_expect_success 'bad --goalb-version, or with another mode, is a usage error' '
	expect_fail 2 goalc --goalb-version 4 small.goal &&
	expect_err "goalc: --goalb-version: '"'"'4'"'"' is not 1, 2 or 3" &&
	expect_fail 2 goalc -d --goalb-version 1 small.goal &&
	expect_err "goalc: --goalb-version applies to binary output only (not with -d)"
'
test_expect_success 'every generator: the same canonical text and simulation as version 1, at most 16 bytes per op' '
	for p in "dissemination 4096" "ring 64 --steps 300 --calc 1us" "alltoall 128" "allreduce 1000" \
	         "bcast 4096" "reduce 4096" "pingpong 2 --reps 1000" "random 256 --ops 64 --size 64K"; do
		goalgen $p >g.goal &&
		goalc --goalb-version 1 -o g1.goalb g.goal && goalc -o g3.goalb g.goal &&
		goalc -d g1.goalb >g1.canon && goalc -d g3.goalb >g3.canon && test_cmp g1.canon g3.canon &&
		ibsim g1.goalb >s1 2>/dev/null && ibsim g3.goalb >s3 2>/dev/null && test_cmp s1 s3 &&
		ops=$(goalc --stats g3.goalb | awk "\$1 == \"ops\" && \$2 ~ /^[0-9]+\$/ { print \$2 }") &&
		bytes=$(wc -c <g3.goalb) &&
		{ test $bytes -le $((16 * ops)) || { echo "$p: $bytes bytes for $ops ops"; false; }; } || return 1
	done
'
test_expect_success 'version 3 from standard input and compressed' '
	goalgen dissemination 64 | goalc -o d.goalb &&
	ibsim d.goalb >s.file 2>/dev/null &&
	ibsim - <d.goalb >s.stdin 2>/dev/null && test_cmp s.file s.stdin &&
	zstd -q -f d.goalb && ibsim d.goalb.zst >s.zst 2>/dev/null && test_cmp s.file s.zst
'
test_expect_success 'truncated by 8 bytes' '
	head -c 157 small.goalb >x.goalb &&
	broken "offset 149: bad end magic (truncated file or trailing garbage)"
'
test_expect_success 'unknown flags (only bit 0 is defined in version 3)' '
	cp small.goalb x.goalb && poke x.goalb 10 02 &&
	broken "offset 10: unknown flags 0x0002 (reserved bits must be zero)" &&
	cp v1.goalb x.goalb && poke x.goalb 10 01 &&
	broken "offset 10: unknown flags 0x0001 (reserved bits must be zero)"
'
test_expect_success 'bad attribute table magic' '
	cp small.goalb x.goalb && poke x.goalb 109 58 &&
	broken "offset 109: bad attribute table magic (expected GOALBATT before the index)"
'
test_expect_success 'reserved attribute table field' '
	cp small.goalb x.goalb && poke x.goalb 89 01 &&
	broken "offset 89: reserved attribute table field is not zero"
'
test_expect_success 'attribute table larger than the file can hold' '
	cp small.goalb x.goalb && poke x.goalb 93 ff &&
	broken "offset 93: attribute table of 255 bytes does not fit before the index (29 bytes left after the sections)"
'
test_expect_success 'more attributes than the table has bytes for' '
	cp small.goalb x.goalb && poke x.goalb 85 09 &&
	broken "offset 85: 9 attributes cannot fit in 8 bytes (2 bytes each at least)"
'
test_expect_success 'attribute table checksum' '
	cp small.goalb x.goalb && poke x.goalb 80 07 &&
	expect_fail 1 goalc -d x.goalb &&
	grep -Eqx "goalc: x.goalb: offset 101: attribute table checksum mismatch \(stored 0x[0-9a-f]{16}, computed 0x[0-9a-f]{16}\)" err
'
test_expect_success 'nops larger than the payload can hold' '
	cp small.goalb x.goalb && poke x.goalb 40 7f &&
	broken "offset 43: rank 0: nbytes 13 too small for nops 127 and nedges 1 (255 at least)"
'
test_expect_success 'nbytes past the attribute table' '
	cp small.goalb x.goalb && poke x.goalb 43 7f &&
	broken "offset 43: rank 0: nbytes 127 does not fit before the attribute table (33 bytes left)"
'
test_expect_success 'a varint that is not minimal' '
	cp small.goalb x.goalb && poke x.goalb 43 8d &&
	broken "offset 43: rank 0: nbytes: bad varint (not minimal, or above 2^64)"
'
test_expect_success 'section checksum (seeded with the rank)' '
	cp small.goalb x.goalb && poke x.goalb 50 07 &&
	expect_fail 1 goalc -d x.goalb &&
	grep -Eqx "goalc: x.goalb: offset 32: rank 0: section checksum mismatch \(stored 0x[0-9a-f]{16}, computed 0x[0-9a-f]{16}\)" err
'
test_expect_success 'every single-byte change is caught or harmless, never a crash' '
	i=0 && caught=0 &&
	while [ $i -lt 165 ]; do
		cp small.goalb x.goalb && poke x.goalb $i 5a &&
		if cmp -s small.goalb x.goalb; then :; else
			goalc -c x.goalb 2>err; rc=$?
			test $rc -eq 1 || { echo "offset $i: exit $rc"; exit 1; }
			caught=$((caught + 1))
		fi
		i=$((i + 1))
	done &&
	test $caught -gt 150
'
test_done
