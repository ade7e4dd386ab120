#!/bin/sh
# allprof: the tracer stores binary records and formats them as text when its
# buffer is flushed. A trace written in many flushes of a small buffer (with a
# record larger than the buffer among them) must read exactly like one
# written at once from a large buffer, polls must collapse across flushes,
# and a rank ended by SIGTERM must still hold every record it committed.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/binrec" ] || skip_all "sample program binrec not built"

# lines FILE: the trace without what differs from run to run: the two times
# of each call line, addresses (ASLR: numbers of 10 digits or more), the
# date, pid and clock lines, the tracer's own time, its flushes and the counters (they count
# flushes).
lines() {
	grep -v "^# \(time:\|pid:\|Init clock\|Finalize clock\|tracer: \|tracer unseen: \|flush: \|calls \|end \)" "$1" |
	sed "s/^\(MPI_[A-Za-z_]*\):[0-9]*\.[0-9]*/\1/; s/:[0-9]*\.[0-9]*$//; s/[0-9]\{10,\}/A/g"
}

flushes() { sed -n "s/^# calls .* flushes \([0-9]*\)$/\1/p" "$1"; }

# merged: lines from standard input, with neighbouring lines of the same unsuccessful poll
# (a count after "-", the missing status) made one, their counts added. A poll joins the
# previous one's line only within the collapse gap (formats/trace.md 3.2), so a run that a
# loaded machine interrupts for 1 us or more is two lines; the program made the same calls.
merged() {
	awk -F: -v OFS=: '
	function out() { if (have) print prev (pn ? ":" pn : ""); have = 0 }
	{
		if ($(NF-1) == "-" && $NF ~ /^[0-9]+$/) {
			p = $0; sub(/:[0-9]+$/, "", p)
			if (have && pn && p == prev) { pn += $NF; next }
			out(); prev = p; pn = $NF; have = 1; next
		}
		out(); prev = $0; pn = 0; have = 1
	}
	END { out() }'
}

test_expect_success 'a 64 KiB buffer (many flushes) and a 16 MiB one: the same lines' '
	ALLPROF_BUFSIZE=64K traced small 2 "$SAMPLES/binrec" 200 &&
	ALLPROF_BUFSIZE=16M traced large 2 "$SAMPLES/binrec" 200 &&
	test "$(cat small.out)" = ok &&
	for r in 0 1; do
		complete small/rank-$r.trace && complete large/rank-$r.trace &&
		monotonic small/rank-$r.trace &&
		test "$(flushes small/rank-$r.trace)" -ge 10 &&
		test "$(flushes large/rank-$r.trace)" = 0 &&
		lines small/rank-$r.trace | merged >s$r && lines large/rank-$r.trace | merged >l$r &&
		test "$(wc -l <s$r)" -gt 7000 &&
		test_cmp l$r s$r || return 1
	done
'

test_expect_success 'runs of unsuccessful polls collapse across flushes' '
	# iteration i: 1 + i % 5 misses on tag 1000 + i % 3, then one success on tag 77
	calls MPI_Iprobe small/rank-0.trace | merged | head -n 400 >got &&
	for i in $(seq 0 199); do
		echo "MPI_Iprobe:-1:$((1000 + i % 3)):1,0,1:0:-:$((1 + i % 5))"
		echo "MPI_Iprobe:0:77:1,0,1:1:0,77,4:1"
	done >expect &&
	test_cmp expect got &&
	# 8174 calls; 406 polls joined a line when nothing interrupted the runs
	set -- $(grep "^# calls" small/rank-0.trace) &&
	test "$3" = 8174 && test "$5" -ge 7768 && test "$7" -le 406 && test $(($3 - $5)) = "$7"
'

test_expect_success 'a record larger than the buffer: MPI_Waitall on 6000 requests' '
	calls MPI_Waitall small/rank-1.trace | tail -n 1 >got &&
	first=$(calls MPI_Irecv small/rank-1.trace | tail -n 3000 | head -n 1 | sed "s/.*:r//") &&
	awk -v f="$first" "BEGIN {
		printf \"MPI_Waitall:6000:\"
		for (i = 0; i < 6000; i++) printf \"%sr%d\", i ? \",\" : \"\", f + i
		printf \"\\n\"
	}" >expect &&
	cut -d: -f1-3 got >reqs &&
	test_cmp expect reqs &&
	# statuses: the receives (every other one) got 1 byte with tag i from rank 0
	cut -d: -f4 got | tr ";" "\n" >st &&
	test "$(wc -l <st)" = 6000 &&
	awk "NR % 2 == 1 && \$0 != \"0,\" (NR - 1) / 2 \",1\" { print NR \": \" \$0; bad = 1 } END { exit bad }" st
'

if command -v zstd >/dev/null 2>&1; then
test_expect_success 'compressed (-z) with a 64 KiB buffer: the same lines' '
	ALLPROF_BUFSIZE=64K allprof -z -q -o z -- mpirun -np 2 "$SAMPLES/binrec" 200 >z.out &&
	for r in 0 1; do
		zstd -qdc z/rank-$r.trace.zst >z$r && complete z$r &&
		lines large/rank-$r.trace | merged >l$r && lines z$r | merged >zl$r && test_cmp l$r zl$r || return 1
	done
'
else
	test_skip 'compressed (-z) with a 64 KiB buffer: the same lines' 'zstd not installed'
fi

# ended RANK FILE CUT: the trace FILE of RANK, cut by a signal, holds the
# lines of the complete run up to the line matching CUT, then the marker
ended() {
	lines large/rank-$1.trace | sed "/$3/,\$d" | merged >expect &&
	lines "$2" >got &&
	tail -n 1 got | grep -q "^# incomplete signal [0-9]*$" &&
	sed "\$d" got | merged >got.lines &&
	test_cmp expect got.lines
}

# Rank 0 raises SIGTERM itself; mpirun then sends SIGTERM to rank 1, which
# sleeps after its last record.
test_expect_success 'SIGTERM: every committed record and the pending poll are written as text' '
	! ALLPROF_BUFSIZE=64K traced term 2 "$SAMPLES/binrec" 200 term &&
	test "$(lines term/rank-0.trace | sed "\$d" | merged | tail -n 1)" = "MPI_Iprobe:-1:5:1,0,1:0:-:7" &&
	tail -n 1 term/rank-0.trace | grep -qx "# incomplete signal 15" &&
	ended 0 term/rank-0.trace "^MPI_Finalize" &&
	ended 1 term/rank-1.trace "^MPI_Iprobe:-1:5:"
'

if command -v zstd >/dev/null 2>&1; then
test_expect_success 'SIGTERM with -z: the stream is ended and holds every record' '
	! ALLPROF_BUFSIZE=64K allprof -z -q -o zt -- mpirun -np 2 "$SAMPLES/binrec" 200 term \
		>zt.out 2>zt.err &&
	zstd -qdc zt/rank-0.trace.zst >zt0 && zstd -qdc zt/rank-1.trace.zst >zt1 &&
	ended 0 zt0 "^MPI_Finalize" &&
	ended 1 zt1 "^MPI_Iprobe:-1:5:"
'
fi

test_done
