#!/bin/sh
# ibsim with storage servers (docs/storage.md): GOAL version 2's read and write ops run
# through the disk model with the times its formulas give (derived by hand below); a
# version-1 binary written before version 2 existed still loads and simulates as before;
# bad GOAL and bad storage keys get their exact messages.
. "$(dirname "$0")/lib.sh"

test_expect_success 'an old version-1 binary loads and gives the same results' '
	ibsim "$TOP/tests/t3020-ibsim-storage/halo-4-v1.goalb" 2>/dev/null >got &&
	test_cmp "$TOP/tests/t3020-ibsim-storage/halo-4.expect" got &&
	goalc --goalb-version 1 "$TOP/samples/schedules/halo-4.goal" -o new.goalb &&
	cmp new.goalb "$TOP/tests/t3020-ibsim-storage/halo-4-v1.goalb" &&
	goalc "$TOP/samples/schedules/halo-4.goal" -o v3.goalb &&
	ibsim v3.goalb 2>/dev/null >got3 &&
	test_cmp "$TOP/tests/t3020-ibsim-storage/halo-4.expect" got3
'
test_expect_success 'disk times: access, sequential, track-to-track, far' '
	cat >d.goal <<-\EOT &&
	version 2
	num_ranks 1
	rank 0 {
	a: write 1000b at 0
	b: write 1000b at 1000
	c: write 1000b at 500000
	d: read 1000b at 1099511627776
	b requires a
	c requires b
	d requires c
	}
	EOT
	cat >d.params <<-\EOT &&
	server_cache = 0
	disk_G = 10ns
	disk_access = 8ms
	disk_track_seek = 1ms
	disk_rotation = 8ms
	disk_track = 1M
	EOT
	ibsim -p d.params d.goal 2>/dev/null | tail -n 1 >got &&
	# 12.01 ms (8 + 4 + 0.01) + 0.01 ms + 5.01 ms (1 + 4 + 0.01) + 12.01 ms
	printf "0\t29040000000\t0\t0\t0\n" >want &&
	test_cmp want got
'
test_expect_success 'text and binary agree; goalc -d writes version 2' '
	goalc d.goal -o d.goalb && goalc -d d.goalb >d2.goal &&
	head -n 1 d2.goal >v && echo "version 2" >want && test_cmp want v &&
	ibsim -p d.params d.goalb 2>/dev/null | tail -n 1 >got2 && test_cmp got got2
'
test_expect_success 'read or write without version 2' '
	printf "num_ranks 1\nrank 0 {\nwrite 5b at 0\n}\n" >v1.goal &&
	{ ibsim v1.goal 2>err; test $? = 1; } &&
	echo "ibsim: v1.goal:3: '"'"'write'"'"' needs '"'"'version 2'"'"' before num_ranks (version 1 has no storage operations)" >want &&
	test_cmp want err
'
test_expect_success 'bad version, version after num_ranks, missing at' '
	printf "version 3\nnum_ranks 1\n" >b1.goal &&
	{ goalc b1.goal -o x 2>err; test $? = 1; } &&
	echo "goalc: b1.goal:1: version 3 not supported (this reader knows 1 and 2)" >want && test_cmp want err &&
	printf "num_ranks 1\nversion 2\n" >b2.goal &&
	{ goalc b2.goal -o x 2>err; test $? = 1; } &&
	echo "goalc: b2.goal:2: '"'"'version'"'"' after num_ranks (it must come first)" >want && test_cmp want err &&
	printf "version 2\nnum_ranks 1\nrank 0 {\nread 5b to 0\n}\n" >b3.goal &&
	{ goalc b3.goal -o x 2>err; test $? = 1; } &&
	echo "goalc: b3.goal:4: expected '"'"'at'"'"' after the size of a storage operation, found '"'"'to'"'"'" >want &&
	test_cmp want err
'
test_expect_success 'bad storage keys' '
	printf "stripe_size = 0\n" >s1.params &&
	{ ibsim -p s1.params d.goal 2>err; test $? = 1; } &&
	echo "ibsim: s1.params:1: invalid stripe_size '"'"'0'"'"' (expected a size from 1 byte to 1T)" >want &&
	test_cmp want err &&
	printf "disk_access = 1ms\ndisk_track_seek = 2ms\n" >s2.params &&
	{ ibsim -p s2.params d.goal 2>err; test $? = 1; } &&
	echo "ibsim: s2.params:2: invalid disk_track_seek '"'"'2ms'"'"' (expected a time no longer than disk_access)" >want &&
	test_cmp want err &&
	printf "storage_servers = 2\nstripe_count = 3\n" >s3.params &&
	{ ibsim -p s3.params d.goal 2>err; test $? = 1; } &&
	echo "ibsim: s3.params:2: invalid stripe_count '"'"'3'"'"' (expected a whole number from 1 to storage_servers)" >want &&
	test_cmp want err
'
test_done
