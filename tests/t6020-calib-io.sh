#!/bin/sh
# calib --io (formats/calibration.md, "Storage: iocal"): the storage keys fitted to a
# hand-made iocal trace whose durations follow known lines (the keys must come out as the
# differences of those lines), a real iocal run traced and fitted, and the errors.
. "$(dirname "$0")/lib.sh"

# seal FILE: allprof's end marker (records and bytes before it)
seal() {
	printf "# end %s %s\n" "$(grep -vc "^#" "$1")" "$(wc -c <"$1")" >>"$1"
}

# iocal-like trace: phase p of size s lasts base_p + s * slope_p picoseconds
mktrace() {
	awk -v seed="$1" 'BEGIN {
		print "# allprof 1.0 trace format 1"; print "# rank: 0 of 1"
		print "# clock: monotonic, microseconds, epoch-aligned at start"
		print "# comm 0 0"; print "# comm 1 0"
		t = 1000000; print "MPI_Init:" t ":1:2:" t + 10; t += 20
		# base (us) and slope (ps per byte) of phases 1..7
		split("5 1 200 200 300 80 120", b, " "); split("125 250 500 500 500 875 875", g, " ")
		for (r = 0; r < 5; r++)
			for (k = 12; k <= 22; k++) {
				s = 2 ^ k
				for (p = 1; p <= 7; p++) {
					d = b[p] + s * g[p] / 1e6 + (r - 2) * 0.001 * (seed + 1)
					printf "MPI_Pcontrol:%.3f:%d:%.3f\n", t, 3100 + p, t + 0.1; t += 1
					if (p >= 3 && p <= 5) {
						printf "MPI_File_write_at:%.3f:1:0:140:%d:1,1,1:-1,-1,%d:%.3f\n", t, s, s, t + 1
						printf "MPI_File_sync:%.3f:1:%.3f\n", t + 1, t + d
					} else {
						printf "MPI_File_%s_at:%.3f:1:0:140:%d:1,1,1:-1,-1,%d:%.3f\n", p == 1 ? "write" : "read", t, s, s, t + d
					}
					t += d + 1
				}
			}
		printf "MPI_Pcontrol:%.3f:3100:%.3f\n", t, t + 0.1
		printf "MPI_Finalize:%.3f:%.3f\n", t + 1, t + 2
	}'
}

test_expect_success 'the keys are the differences of the phase lines' '
	mkdir h && mktrace 0 >h/rank-0.trace && seal h/rank-0.trace &&
	calib -q --io -o h.params h &&
	grep -v "^#" h.params >keys &&
	cat >want <<-\EOT &&
	cache_G = 125
	disk_G = 375
	disk_sync = 195000000
	disk_access = 100000000
	disk_track_seek = 0
	disk_read_G = 875
	disk_rotation = 0
	EOT
	test_cmp want keys &&
	grep -q "^# disk_rotation: not identifiable" h.params &&
	grep -q "^# server_cache: not identified" h.params &&
	grep -q "^#| 4194304 5 " h.params
'
test_expect_success 'two runs pool' '
	mkdir h2 && mktrace 3 >h2/rank-0.trace && seal h2/rank-0.trace &&
	calib -q --io -o two.params h h2 &&
	grep -q "to 2 runs, pooled" two.params && grep -q "^#| 4096 10 " two.params
'
test_expect_success 'ibsim and trace2goal take the file' '
	printf "storage_servers = 1\n" >s.params && cat h.params >>s.params &&
	printf "num_ranks 1\nrank 0 {\n}\n" >e.goal && ibsim -p s.params e.goal >/dev/null 2>&1
'
test_expect_success 'not an iocal trace' '
	mkdir n && printf "# allprof 1.0 trace format 1\n# rank: 0 of 1\nMPI_Init:1:1:2:3\nMPI_Finalize:4:5\n" >n/rank-0.trace && seal n/rank-0.trace &&
	{ calib --io n 2>err; test $? = 1; } &&
	echo "calib: n/rank-0.trace: no access marked by MPI_Pcontrol(3101..3107): not a trace of samples/apps/iocal" >want &&
	test_cmp want err
'
test_expect_success 'a bad count' '
	mkdir b && mktrace 0 | sed "0,/^MPI_File_write_at:\([0-9.]*\):1:0:140:4096:/s//MPI_File_write_at:\1:1:0:140:x:/" >b/rank-0.trace && seal b/rank-0.trace &&
	n=$(grep -n ":x:" b/rank-0.trace | cut -d: -f1) &&
	{ calib --io b 2>err; test $? = 1; } &&
	echo "calib: b/rank-0.trace:$n: MPI_File_write_at: expected a count and a datatype '"'"'id,size,extent'"'"' in fields 4 and 5, found '"'"'x'"'"'" >want &&
	test_cmp want err
'
test_expect_success '--io with network options is a usage error' '
	{ calib --io -p s.params h 2>err; test $? = 2; } &&
	grep -q "^calib: --io takes only -o and -q" err
'
. "$TOP/tests/allprof-lib.sh"
need_mpi
test_expect_success 'a real iocal run, fitted' '
	[ -x "$SAMPLES/iocal" ] &&
	traced real 1 "$SAMPLES/iocal" "$TRASH" -q -n 3 -m 64K -f 4M &&
	calib -q --io -o real.params real &&
	for k in cache_G disk_G disk_sync disk_access disk_track_seek disk_rotation; do
		grep -q "^$k = [0-9][0-9]*$" real.params || return 1
	done &&
	! ls "$TRASH"/iocal-* 2>/dev/null
'
test_done
