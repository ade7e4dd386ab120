#!/bin/sh
# ROMIO's data sieving (romio_ds_write, romio_ds_read, docs/storage.md §5), MPI_File_close
# as a flush (flush_on_close) and the held write-back (dirty_limit, §4) end to end on
# traces of samples/apps/mpiio; bad values of the new keys with their messages.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

# ops SIZE OP FILE: how many server ops "OP SIZEb" the schedule has
ops() {
	grep -c ": $2 $1b at " "$3"
}

test_expect_success 'strided writes without sieving: one request per block' '
	traced ind 2 "$SAMPLES/mpiio" "$TRASH/s.dat" strided 8 4096 indep &&
	printf "storage_servers = 1\nstripe_size = 1M\n" >plain.params &&
	trace2goal -p plain.params ind >plain.goal &&
	test "$(ops 4096 write plain.goal)" = 16 &&
	test "$(grep -c ": read " plain.goal)" = 0
'
# rank 0 writes blocks at 0, 8K, ... 56K (up to 60K), rank 1 at 4K, 12K, ... 60K (up to
# 64K): buffers of 16K from each rank's first byte: [0,16K) [16K,32K) [32K,48K) [48K,60K)
# and [4K,20K) [20K,36K) [36K,52K) [52K,64K); each read, then written back
test_expect_success 'romio_ds_write: read-modify-write in buffers of ind_wr_buffer_size' '
	printf "romio_ds_write = enable\nind_wr_buffer_size = 16K\n" | cat plain.params - >ds.params &&
	trace2goal -p ds.params ind >ds.goal &&
	test "$(ops 16384 read ds.goal)" = 6 && test "$(ops 16384 write ds.goal)" = 6 &&
	test "$(ops 12288 read ds.goal)" = 2 && test "$(ops 12288 write ds.goal)" = 2 &&
	test "$(ops 4096 write ds.goal)" = 0 &&
	grep ": read 16384b at 0$" ds.goal && grep ": read 16384b at 4096$" ds.goal &&
	grep ": write 12288b at 53248$" ds.goal &&
	ibsim -q -p ds.params ds.goal >ds.res && test "$(grep -c "^[0-9]" ds.res)" = 3
'
test_expect_success 'one buffer when it holds the whole extent; automatic sieves' '
	printf "romio_ds_write = automatic\n" | cat plain.params - >auto.params &&
	trace2goal -p auto.params ind >auto.goal &&
	grep ": read 61440b at 0$" auto.goal && grep ": write 61440b at 0$" auto.goal &&
	grep ": read 61440b at 4096$" auto.goal && grep ": write 61440b at 4096$" auto.goal &&
	test "$(grep -c ": write " auto.goal)" = 2
'
test_expect_success 'each buffer is written after it is read, one buffer after the other' '
	trace2goal -p ds.params ind | ibsim -q -p ds.params --timeline tl.json - >/dev/null &&
	# the server'"'"'s disk spans (rank 2) in time order: "start end op addr"
	sed -n "/\"pid\":2,\"tid\":65535/s/.*\"name\":\"\([a-z]*\)\".*\"ts\":\([0-9.]*\),\"dur\":\([0-9.]*\).*\"addr\":\([0-9]*\).*/\2 \3 \1 \4/p" tl.json |
		sort -n >disk.txt &&
	test "$(wc -l <disk.txt)" = 16 &&
	# rank 0'"'"'s buffers start at multiples of 16K, rank 1'"'"'s 4K later
	awk "\$4 % 16384 == 0 { printf \"%s %s,\", \$3, \$4 } END { print \"\" }" disk.txt >r0 &&
	echo "read 0,write 0,read 16384,write 16384,read 32768,write 32768,read 49152,write 49152," >want &&
	test_cmp want r0 &&
	awk "\$4 % 16384 == 4096 { printf \"%s %s,\", \$3, \$4 } END { print \"\" }" disk.txt >r1 &&
	echo "read 4096,write 4096,read 20480,write 20480,read 36864,write 36864,read 53248,write 53248," >want &&
	test_cmp want r1 &&
	# and a write starts after its read has ended
	awk "\$3 == \"read\" { e[\$4] = \$1 + \$2 } \$3 == \"write\" && \$1 < e[\$4] { bad = 1 } END { exit bad }" disk.txt
'
test_expect_success 'romio_ds_write = disable and contiguous accesses are not sieved' '
	printf "romio_ds_write = disable\nromio_ds_read = enable\n" | cat plain.params - >off.params &&
	trace2goal -p off.params ind >off.goal && test_cmp plain.goal off.goal &&
	traced all 2 "$SAMPLES/mpiio" "$TRASH/a.dat" &&
	trace2goal -p plain.params all >all.goal &&
	printf "romio_ds_read = enable\nromio_ds_write = enable\n" | cat plain.params - >on.params &&
	trace2goal -p on.params all >allds.goal && test_cmp all.goal allds.goal
'
test_expect_success 'flush_on_close: MPI_File_close is a flush of the file' '
	ns=$(cat all/rank-*.trace | grep -c "^MPI_File_sync:") &&
	nc=$(cat all/rank-*.trace | grep -c "^MPI_File_close:") &&
	echo "$ns syncs, $nc closes" && test "$ns" -ge 1 && test "$nc" -ge 2 &&
	test "$(ops 0 write all.goal)" = "$ns" &&
	printf "flush_on_close = 1\n" | cat plain.params - >close.params &&
	trace2goal -p close.params all >close.goal &&
	# one flush (on the one server) per sync and per close
	test "$(ops 0 write close.goal)" = $((ns + nc))
'
test_expect_success 'dirty_limit: data held until the sync costs the sync its writing' '
	printf "storage_servers = 1\nserver_cache = 1G\ndisk_G = 1us\ndisk_access = 0\ndisk_track_seek = 0\ndisk_rotation = 0\n" >e.params &&
	printf "dirty_limit = 1G\n" | cat e.params - >h.params &&
	trace2goal -p e.params all >e.goal &&
	ibsim -q -p e.params e.goal >e.res && ibsim -q -p h.params e.goal >h.res &&
	te=$(awk "/^0\t/ { print \$2 }" e.res) && th=$(awk "/^0\t/ { print \$2 }" h.res) &&
	echo "dirty data written at once: $te ps, held until the sync: $th ps" &&
	test "$th" -gt "$te"
'
test_expect_success 'bad values of the new keys' '
	printf "storage_servers = 1\nromio_ds_write = on\n" >b.params &&
	{ trace2goal -p b.params all >/dev/null 2>err; test $? = 1; } &&
	echo "trace2goal: b.params:2: invalid romio_ds_write '"'"'on'"'"' (expected enable, disable or automatic)" >want &&
	test_cmp want err &&
	printf "storage_servers = 1\nflush_on_close = 2\n" >b.params &&
	{ trace2goal -p b.params all >/dev/null 2>err; test $? = 1; } &&
	echo "trace2goal: b.params:2: invalid flush_on_close '"'"'2'"'"' (expected 0 or 1)" >want &&
	test_cmp want err &&
	printf "storage_servers = 1\nind_rd_buffer_size = 0\n" >b.params &&
	{ trace2goal -p b.params all >/dev/null 2>err; test $? = 1; } &&
	echo "trace2goal: b.params:2: invalid ind_rd_buffer_size '"'"'0'"'"' (expected a size from 1 byte to 1T)" >want &&
	test_cmp want err &&
	printf "storage_servers = 1\ndirty_limit = lots\n" >b.params &&
	{ ibsim -p b.params e.goal >/dev/null 2>err; test $? = 1; } &&
	grep -q "^ibsim: b.params:2: .*dirty_limit" err
'
test_done
