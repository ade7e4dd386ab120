#!/bin/sh
# goalc: the GOAL binary reader on damaged files: truncation, bad magic,
# version, flags, counts, offsets, checksums and trailing bytes, each at a
# named offset with its exact message (field-level checks behind valid
# checksums are in tests/unit/u-goal.c).
. "$(dirname "$0")/lib.sh"

# Layout of small.goalb, written in version 1 (formats/goalb.md; version 3 is
# tests/t1004-goalc-binary-v3.sh):
#   0 header | 32 rank 0 section: 32 header, 64 two ops, 112 one edge, 116 pad
#   | 120 rank 1 section: 120 header, 152 one op | 176 index | 192 trailer | 224 end
printf 'num_ranks 2\nrank 0 {\na: send 8b to 1 tag 3\nb: calc 100\na requires b\n}\nrank 1 {\nrecv 8b from 0 tag 3\n}\n' >small.goal
goalc --goalb-version 1 -o small.goalb small.goal

# poke FILE OFFSET HEXBYTES...: overwrite bytes in place
poke() {
	f=$1 off=$2
	shift 2
	esc=
	for b in "$@"; do esc="$esc$(printf '\\%03o' "$((0x$b))")"; done
	printf "$esc" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
}
# broken MESSAGE: x.goalb must be refused with exactly "goalc: x.goalb: MESSAGE"
broken() {
	expect_fail 1 goalc -d x.goalb &&
	expect_err "goalc: x.goalb: $1" &&
	test ! -s out
}

test_expect_success 'the test file has the layout the tests assume' '
	test $(wc -c <small.goalb) -eq 224 &&
	goalc -c small.goalb
'
test_expect_success 'truncated inside the header' '
	head -c 16 small.goalb >x.goalb &&
	broken "truncated file: 16 bytes, a GOAL binary header needs 32"
'
test_expect_success 'truncated before the trailer' '
	head -c 40 small.goalb >x.goalb &&
	broken "truncated file: 40 bytes, header and trailer need 64"
'
test_expect_success 'truncated by 8 bytes' '
	head -c 216 small.goalb >x.goalb &&
	broken "offset 208: bad end magic (truncated file or trailing garbage)"
'
test_expect_success 'trailing garbage' '
	{ cat small.goalb; printf "garbage\n"; } >x.goalb &&
	broken "offset 224: bad end magic (truncated file or trailing garbage)"
'
test_expect_success 'bad magic number' '
	cp small.goalb x.goalb && poke x.goalb 1 58 &&
	broken "offset 0: bad magic number (not a GOAL binary file)"
'
test_expect_success 'bad format version' '
	cp small.goalb x.goalb && poke x.goalb 8 04 &&
	broken "offset 8: unsupported format version 4 (this reader knows versions 1 to 3)"
'
test_expect_success 'unknown flags' '
	cp small.goalb x.goalb && poke x.goalb 10 04 &&
	broken "offset 10: unknown flags 0x0004 (reserved bits must be zero)"
'
test_expect_success 'num_ranks 0' '
	cp small.goalb x.goalb && poke x.goalb 12 00 &&
	broken "offset 12: num_ranks 0 out of range (1..2147483647)"
'
test_expect_success 'header and trailer disagree on num_ranks' '
	cp small.goalb x.goalb && poke x.goalb 12 03 &&
	broken "offset 200: num_ranks in the trailer (2) differs from the header (3)"
'
test_expect_success 'num_ranks larger than the file can hold' '
	cp small.goalb x.goalb && poke x.goalb 12 e8 03 && poke x.goalb 200 e8 03 &&
	broken "offset 12: num_ranks 1000 needs at least 40000 bytes of sections and index, the file has 160"
'
test_expect_success 'reserved header field' '
	cp small.goalb x.goalb && poke x.goalb 20 01 &&
	broken "offset 16: reserved header field is not zero"
'
test_expect_success 'reserved trailer field' '
	cp small.goalb x.goalb && poke x.goalb 204 01 &&
	broken "offset 204: reserved trailer field is not zero"
'
test_expect_success 'index offset out of range' '
	cp small.goalb x.goalb && poke x.goalb 192 b8 &&
	broken "offset 192: index_offset 184 out of range (expected 176 for 2 ranks and 224 bytes)"
'
test_expect_success 'index checksum' '
	cp small.goalb x.goalb && poke x.goalb 184 20 &&
	expect_fail 1 goalc -d x.goalb &&
	grep -Eqx "goalc: x.goalb: offset 208: index checksum mismatch \(stored 0x[0-9a-f]{16}, computed 0x[0-9a-f]{16}\)" err
'
test_expect_success 'section checksum' '
	cp small.goalb x.goalb && poke x.goalb 100 07 &&
	expect_fail 1 goalc -d x.goalb &&
	grep -Eqx "goalc: x.goalb: offset 48: rank 0: section checksum mismatch \(stored 0x[0-9a-f]{16}, computed 0x[0-9a-f]{16}\)" err
'
test_expect_success 'op count larger than the section' '
	cp small.goalb x.goalb && poke x.goalb 36 ff ff &&
	broken "offset 36: rank 0: nops 65535 and nedges 1 need 1572880 bytes, only 144 before the index"
'
test_expect_success 'edge count larger than the section' '
	cp small.goalb x.goalb && poke x.goalb 40 ff ff ff ff &&
	broken "offset 36: rank 0: nops 2 and nedges 4294967295 need 17179869264 bytes, only 144 before the index"
'
test_expect_success 'section rank differs from its index entry' '
	cp small.goalb x.goalb && poke x.goalb 32 01 &&
	broken "offset 32: section rank 1 differs from its index entry (rank 0)"
'
test_expect_success 'ncpus 0' '
	cp small.goalb x.goalb && poke x.goalb 44 00 &&
	broken "offset 44: rank 0: ncpus 0 out of range (1..256)"
'
test_expect_success 'nnics 257' '
	cp small.goalb x.goalb && poke x.goalb 46 01 01 &&
	broken "offset 46: rank 0: nnics 257 out of range (1..256)"
'
test_expect_success 'reserved section field' '
	cp small.goalb x.goalb && poke x.goalb 60 01 &&
	broken "offset 56: rank 0: reserved section field is not zero"
'
test_expect_success 'a damaged binary on standard input' '
	cp small.goalb x.goalb && poke x.goalb 8 09 &&
	expect_fail 1 goalc -d - <x.goalb &&
	expect_err "goalc: <stdin>: offset 8: unsupported format version 9 (this reader knows versions 1 to 3)"
'
test_expect_success 'a damaged compressed binary' '
	cp small.goalb x.goalb && poke x.goalb 10 01 && zstd -q -f x.goalb &&
	expect_fail 1 goalc -d x.goalb.zst &&
	expect_err "goalc: x.goalb.zst: offset 10: unknown flags 0x0001 (reserved bits must be zero)"
'
test_expect_success 'every single-byte change is caught or harmless, never a crash' '
	i=0 && caught=0 &&
	while [ $i -lt 224 ]; do
		cp small.goalb x.goalb && poke x.goalb $i 5a &&
		if cmp -s small.goalb x.goalb; then :; else
			goalc -c x.goalb 2>err; rc=$?
			test $rc -eq 1 || { echo "offset $i: exit $rc"; exit 1; }
			caught=$((caught + 1))
		fi
		i=$((i + 1))
	done &&
	test $caught -gt 200
'
test_done
