#!/bin/sh
# calib --yield (formats/calibration.md, "Shared cores"): runs of samples/apps/nodecal with
# more ranks than cores give what waking a waiting rank costs: cpu_wake + cpu_yield per turn
# (a waiting rank's turn on a shared core). Synthetic runs of known one-way times: the
# inversion of the model and the fit (a line over the turns, both terms at least 0); ibsim
# given the fitted values reproduces the one-way times of the runs they came from; a real run
# of nodecal when MPI is there; the errors.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"

cat >q.params <<'EOF2'
send_o = 0:60ns
recv_o = 0:200ns
net_L = 0:100ns
EOF2

# mk_run DIR N ONEWAY_US...: the traces of a nodecal run of N ranks whose rank 0 measured
# round trips of twice the given one-way times (the other ranks' traces: no call of note)
mk_run() {
	d=$1 n=$2
	shift 2
	mkdir -p "$d"
	r=0
	while [ $r -lt "$n" ]; do
		{
			printf "# allprof 1.0 trace format 1\n# rank: %d of %d\n" $r "$n"
			printf "# clock: monotonic, microseconds, epoch-aligned at start\n"
			printf "MPI_Init:1000.000:0:0:1010.000\n"
			if [ $r = 0 ]; then
				t=2000
				for ow in "$@"; do
					awk -v t=$t -v ow="$ow" "BEGIN {
						printf \"MPI_Send:%.3f:0:0:13,1,1:1:30010:0,0,4:%.3f\n\", t, t + 0.05
						printf \"MPI_Recv:%.3f:0:0:13,1,1:1:30010:0,0,4:1,30010,0:%.3f\n\", t + 0.06, t + 2 * ow }"
					t=$((t + 100))
				done
			fi
			printf "MPI_Finalize:9000.000:9001.000\n"
		} >"$d/body" &&
		{ cat "$d/body"; printf "# end %d %d\n" $(grep -c "^MPI_" "$d/body") $(wc -c <"$d/body"); } >"$d/rank-$r.trace" &&
		rm "$d/body"
		r=$((r + 1))
	done
}

test_expect_success 'one run: the inverse of the model, as a comment and the key' '
	mk_run r4 4 0.7 0.8 0.9 &&
	calib --yield --cores 2 -p q.params -o y4.params r4 &&
	# T = 0.8 us: latency-bound w = 0.8 - 0.1 - 0.2 = 0.5 us; throughput-bound (2 pairs on
	# 2 cores) w = 0.8 - 0.26 = 0.54 us; the smaller; 1 turn
	grep -q "^# r4: 4 ranks, 3 round trips: one way 0.800 us (the model without wake-ups: 0.300 us); wake-up 0.500 us at 1.000 turns, fitted 0.500 us$" y4.params &&
	grep -v "^#" y4.params >got &&
	printf "cores = 2\ncpu_wait = block\ncpu_bind = none\ncpu_yield = 500000    # a waiting rank'"'"'s turn on a shared core, ps\ncpu_wake = 0    # and each wake-up on top of the turns, ps\n" >want &&
	test_cmp want got
'

test_expect_success 'two rank counts: the line over the turns, cpu_wake its intercept' '
	mk_run r8b 8 3.0 &&
	calib --yield --cores 2 -p q.params r4 r8b >yb.params &&
	# 8 ranks: latency-bound 2.7 us, throughput-bound (4 pairs on 2 cores) 3 * 2 / 4 - 0.26
	# = 1.24 us; 3 turns. Through (1, 0.5) and (3, 1.24): 0.37 us a turn, 0.13 us a wake-up
	grep -q "^# r8b: 8 ranks, 1 round trips: one way 3.000 us .* wake-up 1.240 us at 3.000 turns, fitted 1.240 us$" yb.params &&
	grep -q "^cpu_yield = 370000 " yb.params && grep -q "^cpu_wake = 130000 " yb.params
'

test_expect_success 'two rank counts whose line would start below 0: the slope through the origin' '
	mk_run r8 8 4.0 &&
	calib --yield --cores 2 -p q.params r4 r8 >y.params &&
	# 8 ranks: wake-up 1.74 us at 3 turns; the line through (1, 0.5) has intercept -0.12 us,
	# so cpu_wake = 0 and the slope (1 * 0.5 + 3 * 1.74) / (1 + 9) = 0.572 us
	grep -q "^# r8: 8 ranks, 1 round trips: one way 4.000 us .* wake-up 1.740 us at 3.000 turns, fitted 1.716 us$" y.params &&
	grep -q "^cpu_yield = 572000 " y.params && grep -q "^cpu_wake = 0 " y.params
'

test_expect_success 'two rank counts that wake alike: cpu_yield 0, cpu_wake their mean' '
	mk_run r8c 8 1.5 &&
	calib --yield --cores 2 -p q.params r4 r8c >yc.params &&
	# 8 ranks: throughput-bound 1.5 * 2 / 4 - 0.26 = 0.49 us at 3 turns, less than 0.5 at 1
	grep -q "^cpu_yield = 0 " yc.params && grep -q "^cpu_wake = 495000 " yc.params
'

test_expect_success 'several runs of one rank count: their median wake-up, one slowed run does not move it' '
	mk_run r4b 4 0.6 &&
	mk_run r4c 4 5.0 &&
	calib --yield --cores 2 -p q.params -o ym.params r4 r4b r4c &&
	# wake-ups 0.5, 0.3 and 4.7 us at 1 turn: the median 0.5 us (their mean would be 1.833)
	grep -q "^# r4c: 4 ranks, 1 round trips: one way 5.000 us .* wake-up 4.700 us at 1.000 turns, fitted 0.500 us$" ym.params &&
	grep -q "^# 4 ranks: the median of 3 runs, wake-up 0.500 us (runs 0.300 to 4.700 us)$" ym.params &&
	grep -q "^cpu_yield = 500000 " ym.params && grep -q "^cpu_wake = 0 " ym.params &&
	# one run per count: no such line
	! grep -q "the median of" y4.params
'

test_expect_success 'several runs of two rank counts, interleaved: the line through the medians' '
	mk_run r8d 8 2.5 &&
	mk_run r8e 8 9.0 &&
	calib --yield --cores 2 -p q.params r4 r8b r4b r8d r4c r8e >yi.params &&
	# 8 ranks: wake-ups 1.24, 0.99 and 4.24 us at 3 turns, the median 1.24: the same line as
	# the runs r4 and r8b alone
	grep -q "^# 8 ranks: the median of 3 runs, wake-up 1.240 us (runs 0.990 to 4.240 us)$" yi.params &&
	grep -q "^cpu_yield = 370000 " yi.params && grep -q "^cpu_wake = 130000 " yi.params &&
	# an even count: the mean of the two middle ones (0.3 and 0.5 us)
	calib --yield --cores 2 -p q.params r4 r4b >ye.params &&
	grep -q "^# 4 ranks: the median of 2 runs, wake-up 0.400 us (runs 0.300 to 0.500 us)$" ye.params &&
	grep -q "^cpu_yield = 400000 " ye.params
'

# pairs N REPS: the GOAL schedule of nodecal: rank r ping-pongs with r xor 1, REPS times
pairs() {
	awk -v n="$1" -v reps="$2" "BEGIN {
		print \"num_ranks \" n
		for (r = 0; r < n; r++) {
			p = r % 2 ? r - 1 : r + 1
			print \"rank \" r \" {\"
			for (i = 0; i < reps; i++) {
				if (r % 2 == 0) {
					print \"s\" i \": send 0b to \" p \" tag 0\"
					print \"r\" i \": recv 0b from \" p \" tag 0\"
					print \"r\" i \" requires s\" i
					if (i) print \"s\" i \" requires r\" i - 1
				} else {
					print \"r\" i \": recv 0b from \" p \" tag 0\"
					print \"s\" i \": send 0b to \" p \" tag 0\"
					print \"s\" i \" requires r\" i
					if (i) print \"r\" i \" requires s\" i - 1
				}
			}
			print \"}\"
		}
	}"
}

test_expect_success 'ibsim with the fitted value reproduces the run it came from (within 3 %)' '
	for n in 4 8; do
		pairs $n 200 >p$n.goal &&
		calib --yield --cores 2 -p q.params -o f$n.params r$n &&
		cat q.params f$n.params >s$n.params &&
		ibsim -q -p s$n.params --ranks-per-host $n p$n.goal >s$n.out || return 1
	done &&
	# rank 0 ends after 200 round trips: one way = end / 400
	awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 0.8) / 0.8; if (d < 0) d = -d; exit !(d < 0.03) }" s4.out &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 4.0) / 4.0; if (d < 0) d = -d; exit !(d < 0.03) }" s8.out &&
	# and the two-count fit (cpu_wake and cpu_yield) both of its runs
	cat q.params yb.params >sb.params &&
	ibsim -q -p sb.params --ranks-per-host 4 p4.goal >sb4.out &&
	ibsim -q -p sb.params --ranks-per-host 8 p8.goal >sb8.out &&
	head -n 1 sb8.out | grep -q " cpu_yield=370000 cpu_wake=130000 " &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 0.8) / 0.8; if (d < 0) d = -d; exit !(d < 0.03) }" sb4.out &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 3.0) / 3.0; if (d < 0) d = -d; exit !(d < 0.03) }" sb8.out
'

test_expect_success 'ranks bound to cores (cpu_bind = core): the closed form misses, the simulated inversion does not' '
	# the closed form inverts the rule of any core; bound, the even ranks share core 0 and the
	# odd ones core 1, so the two pairs'"'"' receives fall on one core at once. Where a message'"'"'s
	# latency is short against the overheads (q.params), the lockstep pairs then wait for each
	# other: 1.5 us one way where the fit assumed 0.8 ...
	ibsim -q -p s4.params --cpu-bind core --ranks-per-host 4 p4.goal >b4.out &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; exit !(ow > 1.4 && ow < 1.6) }" b4.out &&
	# ... calib --cpu-bind core inverts the engine'"'"'s bound run instead: the model without
	# wake-ups is 0.5 us there (not 0.3), so waking costs 0.15 us, and ibsim with it and the
	# key cpu_bind = core it wrote (no option) gives the runs'"'"' one-way times back
	calib --yield --cores 2 --cpu-bind core -p q.params -o c4.params r4 &&
	grep -q "^# written by calib .* ranks bound to cores (the engine'"'"'s run inverted) " c4.params &&
	grep -q "^# r4: 4 ranks, 3 round trips: one way 0.800 us (the model without wake-ups: 0.500 us); wake-up 0.150 us at 1.000 turns, fitted 0.150 us$" c4.params &&
	grep -q "^cpu_bind = core$" c4.params && grep -q "^cpu_yield = 150000 " c4.params &&
	calib --yield --cores 2 --cpu-bind core -p q.params -o c8.params r8b &&
	for n in 4 8; do
		cat q.params c$n.params >sc$n.params &&
		ibsim -q -p sc$n.params --ranks-per-host $n p$n.goal >c$n.out &&
		head -n 1 c$n.out | grep -q " cpu_bind=core" || return 1
	done &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 0.8) / 0.8; if (d < 0) d = -d; exit !(d < 0.01) }" c4.out &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 3.0) / 3.0; if (d < 0) d = -d; exit !(d < 0.01) }" c8.out &&
	# the same values on any core would miss the 4-rank run by 44 %
	ibsim -q -p sc4.params --cpu-bind none --ranks-per-host 4 p4.goal >c4n.out &&
	awk "NR == 3 { ow = \$2 / 400 / 1e6; exit !(ow < 0.5) }" c4n.out &&
	# with this machine'"'"'s shared-memory costs (send_o 113 ns, recv_o 282 ns, net_L 3.5 ns:
	# the wake-up dominates) both rules give the same fit, and each reproduces the run
	printf "send_o = 0:113ns\nrecv_o = 0:282ns\nnet_L = 0:3.5ns\n" >m.params &&
	mk_run rm4 4 3.4 &&
	for b in none core; do
		calib --yield --cores 2 --cpu-bind $b -p m.params -o fm$b.params rm4 &&
		grep "^cpu_yield" fm$b.params >y$b &&
		cat m.params fm$b.params >sm$b.params &&
		ibsim -q -p sm$b.params --ranks-per-host 4 p4.goal >m$b.out &&
		awk "NR == 3 { ow = \$2 / 400 / 1e6; d = (ow - 3.4) / 3.4; if (d < 0) d = -d; exit !(d < 0.01) }" m$b.out ||
		return 1
	done &&
	test_cmp ynone ycore &&
	# the default is the rule of any core, as ibsim'"'"'s
	calib --yield --cores 2 -p m.params rm4 | grep -q "^cpu_bind = none$"
'

test_expect_success 'nodecal'"'"'s own line (a run without the tracer) is a run as its traces are' '
	printf "4 0.8 3\n" >o4 && printf "8 3.0 1\n" >o8 &&
	calib --yield --cores 2 -p q.params r4 r8b | grep -v "^# written\|^# r" >want &&
	calib --yield --cores 2 -p q.params o4 o8 >got.params &&
	grep -v "^# written\|^# o" got.params >got && test_cmp want got &&
	grep -q "^# o4: 4 ranks, 3 round trips: one way 0.800 us (the model without wake-ups: 0.300 us); wake-up 0.500 us at 1.000 turns" got.params &&
	# a directory and a file mixed
	calib --yield --cores 2 -p q.params r4 o8 | grep -q "^cpu_wake = 130000 "
'

test_expect_success 'nodecal'"'"'s line: what is not one, said with the file and line' '
	for bad in "" "4 0.8" "4 0.8 100 7" "1 0.8 100" "4097 0.8 100" "4 -1 100" "4 x 100" "4 0.8 0" "4 nan 100"; do
		printf "%s\n" "$bad" >ob &&
		expect_fail 1 calib --yield --cores 2 ob &&
		grep -q "^calib: ob:1: expected nodecal'"'"'s .<ranks> <median one-way us> <round trips>. (ranks from 2 to 4096, a one-way time above 0, round trips at least 1), found .$bad.$" err ||
		return 1
	done &&
	printf "4 0.8 100\n8 3.0 100\n" >ob &&
	expect_fail 1 calib --yield --cores 2 ob && expect_err "calib: ob:2: expected one line, nodecal'"'"'s '"'"'<ranks> <median one-way us> <round trips>'"'"'" &&
	head -c 5000 /dev/zero | tr "\\0" 4 >ob &&
	expect_fail 1 calib --yield --cores 2 ob && grep -q "^calib: ob: input larger than 4096 bytes" err &&
	printf "4 0.8\0 100\n" >ob &&
	expect_fail 1 calib --yield --cores 2 ob && expect_err "calib: ob: expected text, found a NUL byte"
'

test_expect_success 'errors: no --cores, a run that shares no core, a run without round trips' '
	expect_fail 2 calib --yield r4 &&
	expect_err "calib: --yield needs --cores N (the cores of the host the runs shared)" &&
	expect_fail 2 calib --cores 2 r4 &&
	expect_err "calib: --cores applies to --yield" &&
	expect_fail 2 calib --yield --cores 2 --intra r4 &&
	expect_fail 2 calib --yield --cores 2 --cpu-bind socket r4 &&
	expect_err "calib: --cpu-bind: expected none or core, got '"'"'socket'"'"'" &&
	expect_fail 2 calib --cpu-bind core r4 &&
	expect_err "calib: --cpu-bind applies to --yield" &&
	expect_fail 1 calib --yield --cores 4 r4 &&
	expect_err "calib: r4: 4 ranks on 4 cores share none (nodecal must run with more ranks than cores)" &&
	mk_run none 4 &&
	expect_fail 1 calib --yield --cores 2 none &&
	expect_err "calib: none/rank-0.trace: no nodecal round trip found (expected MPI_Send to rank 1 with tag 30010 followed by MPI_Recv from rank 1 with that tag)" &&
	mk_run one 1 0.5 &&
	expect_fail 1 calib --yield --cores 2 one &&
	grep -q "^calib: one: traces of 1 rank " err
'

if command -v mpirun >/dev/null 2>&1 && [ -x "$SAMPLES/nodecal" ] && command -v allprof >/dev/null 2>&1; then
	test_expect_success 'a real run of nodecal, 4 ranks on fewer cores: traced, and its own line' '
		allprof -q -o real -- mpirun --oversubscribe -np 4 --mca btl vader,self "$SAMPLES/nodecal" -q -n 100 \
			>/dev/null 2>real.err &&
		calib --yield --cores 1 -p q.params real >real.params &&
		grep -q "^# real: 4 ranks, 100 round trips: one way " real.params &&
		grep -q "^cpu_yield = [0-9]" real.params && grep -q "^cpu_wake = 0 " real.params &&
		mpirun --oversubscribe -np 4 --mca btl vader,self "$SAMPLES/nodecal" -n 100 >own.out 2>own.err &&
		grep -q "^4 [0-9]*\.[0-9]* 100$" own.out &&
		calib --yield --cores 1 -p q.params own.out >own.params &&
		grep -q "^# own.out: 4 ranks, 100 round trips: one way " own.params
	'
else
	test_skip 'a real run of nodecal, 4 ranks on fewer cores: traced, and its own line' 'MPI or nodecal missing'
fi

test_done
