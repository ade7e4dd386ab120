#!/bin/sh
# lib/ir_io on real files and pipes, with compressed data made by the zstd
# and gzip commands; the unit test binary u-io is the driver (see
# tests/unit/u-io.c): `u-io lines|cat|comp FILE`, `u-io write [-z] OUT`,
# `u-io abort OUT`.
. "$(dirname "$0")/lib.sh"

U="$IR_BUILD/tests/u-io"

test_expect_success 'setup: text files' '
	printf "alpha\nbeta\r\ngamma" >t.txt &&
	printf "1 5 alpha\n2 4 beta\n3 5 gamma\n" >t.want &&
	awk "BEGIN { for (i = 1; i <= 300000; i++) printf \"rank %d op %d\\r\\n\", i % 64, i }" >many.txt &&
	awk "{ sub(/\\r\$/, \"\"); print NR, length(\$0), \$0 }" many.txt >many.want &&
	test "$(wc -l <many.want)" = 300000
'

test_expect_success 'plain file: lines, CRLF, missing final newline' '
	"$U" lines t.txt >out && test_cmp t.want out &&
	"$U" comp t.txt >c && echo plain >w && test_cmp w c
'

test_expect_success 'zstd file (zstd command): detected, same lines' '
	zstd -q -c t.txt >t.zst &&
	"$U" comp t.zst >c && echo zstd >w && test_cmp w c &&
	"$U" lines t.zst >out && test_cmp t.want out
'

test_expect_success 'gzip file (gzip command): detected, same lines' '
	gzip -c t.txt >t.gz &&
	"$U" comp t.gz >c && echo gzip >w && test_cmp w c &&
	"$U" lines t.gz >out && test_cmp t.want out
'

test_expect_success 'the name does not matter, the magic does' '
	cp t.zst t.data && "$U" lines t.data >out && test_cmp t.want out &&
	cp t.txt t.txt.gz && "$U" lines t.txt.gz >out && test_cmp t.want out
'

test_expect_success '300000 lines through zstd and gzip, line numbers right' '
	zstd -q -c many.txt >many.zst && gzip -c many.txt >many.gz &&
	"$U" lines many.zst >out && test_cmp many.want out &&
	"$U" lines many.gz >out && test_cmp many.want out &&
	"$U" cat many.zst | cmp - many.txt
'

test_expect_success 'multi-frame zstd and multi-member gzip' '
	printf "first\n" >a && printf "second\nthird\n" >b &&
	{ zstd -q -c a; zstd -q -c b; zstd -q -c many.txt; } >multi.zst &&
	{ gzip -c a; gzip -c b; gzip -c many.txt; } >multi.gz &&
	cat a b many.txt >multi.txt &&
	"$U" cat multi.zst | cmp - multi.txt &&
	"$U" cat multi.gz | cmp - multi.txt &&
	"$U" lines multi.zst >out && sed -n 3p out | grep -qx "3 5 third" &&
	test "$(wc -l <out)" = 300003
'

test_expect_success 'standard input: plain, zstd and gzip through a pipe' '
	cat t.txt | "$U" lines - >out && test_cmp t.want out &&
	zstd -q -c t.txt | "$U" lines - >out && test_cmp t.want out &&
	gzip -c many.txt | "$U" lines - >out && test_cmp many.want out &&
	zstd -q -c many.txt | "$U" cat - | cmp - many.txt
'

test_expect_success 'truncated zstd: exit 1 with the file name' '
	size=$(wc -c <many.zst) &&
	head -c $((size - 10)) many.zst >cut.zst &&
	expect_fail 1 "$U" lines cut.zst &&
	expect_err "u-io: cut.zst: truncated zstd data"
'

test_expect_success 'truncated zstd from a pipe: <stdin> named' '
	head -c 50 many.zst | "$U" cat - >out 2>err; test $? = 1 &&
	expect_err "u-io: <stdin>: truncated zstd data"
'

test_expect_success 'truncated gzip: exit 1 with the file name' '
	size=$(wc -c <many.gz) &&
	head -c $((size - 5)) many.gz >cut.gz &&
	expect_fail 1 "$U" lines cut.gz &&
	expect_err "u-io: cut.gz: truncated gzip data"
'

test_expect_success 'corrupt zstd: exit 1, corrupt zstd data' '
	{ cat t.zst; printf "not zstd at all"; } >bad.zst &&
	expect_fail 1 "$U" cat bad.zst &&
	grep -q "^u-io: bad.zst: corrupt zstd data: " err
'

test_expect_success 'corrupt gzip: exit 1, corrupt gzip data' '
	{ cat t.gz; printf "\037\213garbage-after-the-magic"; } >bad.gz &&
	expect_fail 1 "$U" cat bad.gz &&
	grep -q "^u-io: bad.gz: corrupt gzip data: " err
'

test_expect_success 'a very long line (8 MB) in plain, zstd and gzip' '
	head -c 8000000 /dev/zero | tr "\0" x >long.txt &&
	printf "\r\nafter\n" >>long.txt &&
	zstd -q -c long.txt >long.zst && gzip -c long.txt >long.gz &&
	for f in long.txt long.zst long.gz; do
		"$U" lines $f | cut -c1-12 >out &&
		printf "1 8000000 xx\n2 5 after\n" >want &&
		test_cmp want out || exit 1
	done
'

test_expect_success 'empty file, empty zstd, empty gzip: no lines' '
	: >empty && zstd -q -c empty >empty.zst && gzip -c empty >empty.gz &&
	for f in empty empty.zst empty.gz; do
		"$U" lines $f >out && ! test -s out || exit 1
	done &&
	"$U" comp empty.zst >c && echo zstd >w && test_cmp w c
'

test_expect_success 'missing file and directory: exit 1' '
	expect_fail 1 "$U" lines nope.txt &&
	expect_err "u-io: nope.txt: cannot open: No such file or directory" &&
	mkdir d && expect_fail 1 "$U" lines d &&
	expect_err "u-io: d: is a directory"
'

test_expect_success 'writer: -z output is zstd and round-trips' '
	"$U" write -z out.bin <many.txt &&
	"$U" comp out.bin >c && echo zstd >w && test_cmp w c &&
	zstd -dc out.bin | cmp - many.txt &&
	"$U" cat out.bin | cmp - many.txt
'

test_expect_success 'writer: a .zst name compresses, zstd -d agrees' '
	"$U" write out.goal.zst <many.txt &&
	zstd -q -d -o back.txt out.goal.zst && cmp back.txt many.txt
'

test_expect_success 'writer: stdout with -z through a pipe' '
	"$U" write -z - <t.txt | zstd -dc >back && cmp back t.txt
'

test_expect_success 'writer: no temporary left, the old file replaced' '
	echo old >w.txt &&
	"$U" write w.txt <t.txt && cmp w.txt t.txt &&
	test "$(ls | grep -c "\.tmp\.")" = 0
'

test_expect_success 'writer: abort leaves no file and no temporary, keeps an old file' '
	"$U" abort never.txt <many.txt &&
	! test -e never.txt &&
	test "$(ls | grep -c "\.tmp\.")" = 0 &&
	echo keep >k.txt && "$U" abort k.txt <many.txt &&
	echo keep >want && test_cmp want k.txt
'

test_expect_success 'writer: /dev/full reports the write error and stays a device' '
	expect_fail 1 "$U" write /dev/full <many.txt &&
	expect_err "u-io: /dev/full: write error: No space left on device" &&
	test -c /dev/full
'

test_expect_success 'writer: a small write to /dev/full fails at close' '
	expect_fail 1 "$U" write /dev/full <t.txt &&
	expect_err "u-io: /dev/full: write error: No space left on device"
'

test_expect_success 'writer: a missing directory' '
	expect_fail 1 "$U" write no/dir/x <t.txt &&
	expect_err "u-io: no/dir/x: cannot create: No such file or directory"
'

test_done
