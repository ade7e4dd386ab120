#!/bin/sh
# calib from ping-pong traces: liballprof and allprof layouts written here
# with known overheads and pinning cost, which calib must recover exactly;
# the degenerate trace sets (one size, no rank 1, no exchange, no answer,
# no repetitions) and the seed ltest traces.
. "$(dirname "$0")/lib.sh"

# gen_pp DIR FLAVOR [REPS] [SIZES]: a 2-rank ping-pong. One-way time (ps):
# 2o + 2500 + (s-1)*O with o=250ns O=100ps up to 4096 bytes, o=2us O=150ps
# above; the first exchange of each size (one buffer per size) pays 166us +
# 3ns/byte more per round trip (nothing for 0 bytes); send calls take 300ns; rank 1 waits inside
# its receives. Times are written in microseconds with 6
# decimals (liballprof) or 3 (allprof: so all times here are whole ns).
gen_pp() {
	rm -rf "$1" && mkdir -p "$1"
	awk -v dir="$1" -v fl="$2" -v reps="${3:-4}" -v sizes="${4:-0 1 2 4 8 16 64 256 1024 4096 8192 32768 131072 1048576}" '
	function us(t) { return sprintf(fl == "allprof" ? "%d.%03d" : "%d.%06d", int(t / 1e6), fl == "allprof" ? int((t % 1e6) / 1000) : t % 1e6) }
	function comm(r) { return fl == "allprof" ? "0," r ",2" : "6575584," r ",2" }
	function st(src, s) { return fl == "allprof" ? src ",0," s : "140735615211456" }
	BEGIN {
		f0 = dir "/" (fl == "allprof" ? "rank-0.trace" : "pmpi-trace-rank-0.txt")
		f1 = dir "/" (fl == "allprof" ? "rank-1.trace" : "pmpi-trace-rank-1.txt")
		for (r = 0; r < 2; r++) {
			f = r ? f1 : f0
			if (fl == "allprof") { print "# allprof 1.0 trace format 1" >f; print "# rank: " r " of 2" >f; print "# Init clockdiff: 0.000" >f }
			else { print "# htor'"'"'s PMPI Tracer 0.9 Output File" >f; print "# clockdiff: 0.000000 s (relative to rank 0)" >f }
		}
		t = 1000000000000000; t1 = t
		print "MPI_Init:-:1:2:" us(t) >f0; print "MPI_Init:-:1:2:" us(t) >f1
		t += 2000
		n = split(sizes, sz, " ")
		calls = 1
		for (k = 1; k <= n; k++) {
			s = sz[k]; s1 = s ? s - 1 : 0
			if (s <= 4096) { o = 250000; O = 100 } else { o = 2000000; O = 150 }
			ow = 2 * o + 2500 + s1 * O
			for (i = 0; i <= reps; i++) {
				rtt = 2 * ow + (i == 0 && s > 0 ? 166000000 + 3000 * s : 0)
				buf = 1000000000 + k * 2097152
				print "MPI_Send:" us(t) ":" buf ":" s ":13,1,1:1:0:" comm(0) ":" us(t + 300000) >f0
				print "MPI_Recv:" us(t + 301000) ":" buf ":" s ":13,1,1:1:0:" comm(0) ":" st(1, s) ":" us(t + rtt) >f0
				print "MPI_Recv:" us(t1 + 1000) ":" buf ":" s ":13,1,1:0:0:" comm(1) ":" st(0, s) ":" us(t + rtt / 2) >f1
				# an eager send returns at once, a rendezvous one when the data is there
				t1 = s > 4096 ? t + rtt - 1000 : t + rtt / 2 + 2000
				print "MPI_Send:" us(t + rtt / 2 + 1000) ":" buf ":" s ":13,1,1:0:0:" comm(1) ":" us(t1) >f1
				t += rtt + 8000
				calls += 2
			}
		}
		print "# Finalize clockdiff: 0.000" >f0; print "# Finalize clockdiff: 0.000" >f1
		print "MPI_Finalize:" us(t) ":-" >f0; print "MPI_Finalize:" us(t1 + 1000) ":-" >f1
		if (fl == "allprof") { print "# end " calls + 1 " 0" >f0; print "# end " calls + 1 " 0" >f1 }
	}'
}

check_exact() {
	grep -q "^o = 250ns " "$1" && grep -q "^O = 100ps " "$1" && grep -q "^S = 4096 " "$1" &&
	grep -q "^o_rndv = 2us " "$1" && grep -q "^O_rndv = 150ps " "$1" &&
	grep -q "^pin_a = 166us " "$1" && grep -q "^pin_b = 3ns " "$1" &&
	grep -q "^# pinning fit: 13 sizes, R-squared 1.000000" "$1"
}

test_expect_success 'liballprof traces: overheads and pinning recovered exactly' '
	gen_pp pp liballprof &&
	calib pp >cluster.params 2>table &&
	check_exact cluster.params &&
	grep -q "^# input: ping-pong traces of 2 ranks: 14 sizes, 56 reused exchanges, 14 first exchanges$" cluster.params &&
	grep -qx "calib:      1048576      4      161.289        6.294      161.289      +0.00   rndv     1817.153" table &&
	grep -qx "calib:         8192      4        5.231        0.052        5.231      +0.00   rndv      100.519" table
'

test_expect_success 'allprof traces: the same, to the nanosecond they are written in' '
	gen_pp ap allprof &&
	calib -q ap >cluster.params &&
	grep -q "^o = 250\.0[0-9]*ns " cluster.params && grep -q "^O = 100ps " cluster.params &&
	grep -q "^S = 4096 " cluster.params &&
	grep -Eq "^o_rndv = (2us|1\.9999[0-9]*us) " cluster.params && grep -q "^O_rndv = 150ps " cluster.params &&
	grep -Eq "^pin_a = (166us|165\.999[0-9]*us) " cluster.params && grep -q "^pin_b = 3ns " cluster.params
'

test_expect_success 'trace files as operands' '
	gen_pp pp liballprof &&
	calib -q pp/pmpi-trace-rank-0.txt pp/pmpi-trace-rank-1.txt >files.params &&
	calib -q pp >dir.params &&
	sed 1d files.params >a && sed 1d dir.params >b && test_cmp b a
'

test_expect_success 'compressed traces are read' '
	gen_pp pp liballprof &&
	gzip pp/pmpi-trace-rank-0.txt pp/pmpi-trace-rank-1.txt &&
	calib -q pp >gz.params &&
	check_exact gz.params
'

test_expect_success '--model loggp: o from the send calls' '
	gen_pp pp liballprof &&
	calib -q --model loggp pp >lg.params &&
	grep -q "^o = 300ns " lg.params &&
	grep -q "^# o: mean duration of the smallest message.s send calls" lg.params &&
	calib -q --model loggp --estimator median pp | grep -q "^# o: median duration of the smallest message.s send calls" &&
	grep -q "^pin_a = 166us " lg.params
'

test_expect_success 'round trip: calib, trace2goal -p, ibsim -p, cmp-real agree with the traces' '
	gen_pp pp liballprof &&
	calib -q pp >cluster.params &&
	trace2goal -p cluster.params pp >pp.goal 2>t2g.err &&
	ibsim -q -p cluster.params pp.goal >sim.tsv 2>ibsim.err &&
	# rank 0 (the ping-pong'"'"'s path) exactly; rank 1 ends with a rendezvous Send that here
	# returns when the data has arrived, while calib'"'"'s O_send_rndv = 0 releases the sender
	# when the receive matches, 1048575 * 150 ps = 157.3 us (2.0 %) earlier
	expect_fail 1 cmp-real --tolerance 0.1 pp sim.tsv && mv out cmp.out &&
	cat cmp.out &&
	grep -Eq "^ +0 +7883\.517 +7883\.5[0-9]* +\+0\.00$" cmp.out &&
	grep -Eq "^ +1 +7883\.509 +7724\.2[0-9]* +-2\.02$" cmp.out &&
	# with the sender charged as LogGOPSim charges it, both ranks agree
	ibsim -q -p cluster.params --O-send 100ps --O-send-rndv 150ps pp.goal >sim2.tsv &&
	cmp-real --tolerance 0.1 pp sim2.tsv
'

test_expect_success 'the same without the pinning compensation is far off' '
	gen_pp pp liballprof &&
	calib -q pp >cluster.params &&
	trace2goal pp >pp.goal &&
	ibsim -q -p cluster.params pp.goal >sim.tsv 2>ibsim.err &&
	expect_fail 1 cmp-real pp sim.tsv
'

test_expect_success 'seed ltest traces: one size is an error' '
	expect_fail 1 calib "$SEED" &&
	expect_err "calib: $SEED: only one message size (400000 bytes): a line needs at least two sizes"
'

test_expect_success 'no rank 1' '
	gen_pp pp liballprof &&
	rm pp/pmpi-trace-rank-1.txt &&
	expect_fail 1 calib pp &&
	expect_err "calib: pp: no trace of rank 1 (a ping-pong needs ranks 0 and 1; found only rank 0)"
'

test_expect_success 'no exchange on rank 0' '
	gen_pp pp liballprof &&
	grep -v "^MPI_Send" pp/pmpi-trace-rank-0.txt >x && mv x pp/pmpi-trace-rank-0.txt &&
	expect_fail 1 calib pp &&
	expect_err "calib: pp/pmpi-trace-rank-0.txt: no ping-pong exchange found (expected MPI_Send to rank 1 followed by MPI_Recv from rank 1)"
'

test_expect_success 'rank 1 does not answer' '
	gen_pp pp liballprof &&
	grep -v "^MPI_Recv" pp/pmpi-trace-rank-1.txt >x && mv x pp/pmpi-trace-rank-1.txt &&
	expect_fail 1 calib pp &&
	expect_err "calib: pp/pmpi-trace-rank-1.txt: rank 1 receives 0 messages from rank 0, but rank 0 sends 70 (not a ping-pong between ranks 0 and 1)"
'

test_expect_success 'no repetitions' '
	gen_pp pp liballprof 0 "8 16 32" &&
	expect_fail 1 calib pp &&
	expect_err "calib: pp: size 8 bytes has only its first exchange (first use of the buffer): no repetitions to measure"
'

test_expect_success 'one size in a trace set' '
	gen_pp pp liballprof 3 "1024" &&
	expect_fail 1 calib pp &&
	expect_err "calib: pp: only one message size (1024 bytes): a line needs at least two sizes"
'

test_expect_success 'a broken trace line is reported where it is' '
	gen_pp pp liballprof &&
	sed "4s/^MPI_Send:[0-9.]*:/MPI_Send:12x:/" pp/pmpi-trace-rank-0.txt >x && mv x pp/pmpi-trace-rank-0.txt &&
	expect_fail 1 calib pp &&
	grep -q "^calib: pp/pmpi-trace-rank-0.txt:4: " err
'

test_expect_success 'a bad count is reported with its value' '
	gen_pp pp liballprof &&
	sed "4s/^\(MPI_Send:[0-9.]*:[0-9]*:\)[0-9]*:/\1x7:/" pp/pmpi-trace-rank-0.txt >x && mv x pp/pmpi-trace-rank-0.txt &&
	expect_fail 1 calib pp &&
	expect_err "calib: pp/pmpi-trace-rank-0.txt:4: MPI_Send: expected count and datatype '"'"'id,size,extent'"'"', found '"'"'x7'"'"' and '"'"'13,1,1'"'"'"
'

test_done
