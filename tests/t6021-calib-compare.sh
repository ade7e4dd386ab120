#!/bin/sh
# calib --compare (formats/calibration.md, "Comparing two calibrations"): two
# parameter files of the piecewise model evaluated at netcal's sizes from 64 bytes
# to 64 MiB, each term's difference in percent of the mean one-way time (message
# terms) or of its own mean (local terms), hand-derived on two small files; a file
# against itself agrees everywhere; and the errors.
. "$(dirname "$0")/lib.sh"

cat >a.params <<'EOF2'
send_o = 0:1us
recv_o = 0:2us+100ps
net_L = 0:1us+100ps
copy = 0:100ns+10ps
EOF2
# b: recv_o 0.5 us more at every size, copy 10 % more per byte above 1 MiB
cat >b.params <<'EOF2'
send_o = 0:1us
recv_o = 0:2.5us+100ps
net_L = 0:1us+100ps
copy = 0:100ns+10ps; 1M:100ns+11ps
EOF2

test_expect_success 'a file against itself: every size agrees' '
	calib --compare a.params a.params >self.tsv &&
	test "$(grep -c "^[0-9]" self.tsv)" = 57 &&
	! grep "^[0-9]" self.tsv | grep -q "no\$" &&
	grep -q "^# sizes of 64 B and more where every term agrees within 5 %: 57 of 57;" self.tsv
'

test_expect_success 'recv_o 0.5 us apart, copy 10 % per byte from 1 MiB: which sizes agree' '
	calib --compare a.params b.params >ab.tsv &&
	head -n 2 ab.tsv | tail -n 1 >hdr &&
	printf "size_bytes\tone_way_a_us\tone_way_b_us\tsend_o_pct\trecv_o_pct\tnet_L_pct\tone_way_pct\tcopy_pct\treduce_pct\tcoll_copy_pct\trecv_o_cross_pct\tagree\n" >want &&
	test_cmp want hdr &&
	# 64 bytes: one-way 3.0128 and 3.5128 us; 0.5 / 3.2628 = 15.32 %; no reduce, no coll_copy
	grep -q "^64	3.0128	3.5128	0.00	15.32	0.00	15.32	0.00	-	-	-	no\$" ab.tsv &&
	# 0.5 us is 5 % of the mean one-way time at 3.25 us + 200 ps x 33,750 bytes:
	# 32768 bytes disagrees, 49152 agrees
	grep -q "^32768	.*	no\$" ab.tsv && grep -q "^49152	.*	yes\$" ab.tsv &&
	# copy from 1 MiB: 1 ps a byte more, 1 / 10.5 of the mean per byte at large sizes
	grep -q "^67108864	.*	9.52	-	-	-	no\$" ab.tsv &&
	# from 1 MiB copy differs by 9.4 % and more: 14 sizes agree, 49152 to 1032192 bytes
	grep -q "^1032192	.*	yes\$" ab.tsv && grep -q "^1048576	.*	9.44	-	-	-	no\$" ab.tsv &&
	grep -q "^# sizes of 64 B and more where every term agrees within 5 %: 14 of 57; the largest difference: recv_o at 64 bytes, 15.32 %\$" ab.tsv
'

test_expect_success 'recv_o_cross: a message term, at the eager sizes of both files only' '
	{ cat a.params; echo "S = 1000"; echo "recv_o_cross = 0:3us"; } >xa.params &&
	{ cat a.params; echo "S = 2000"; echo "recv_o_cross = 0:3.1us"; } >xb.params &&
	calib --compare xa.params xb.params >x.tsv &&
	# 64 bytes: 0.1 us against the one-way time 3.0128 us: 3.32 %
	grep -q "^64	3.0128	3.0128	0.00	0.00	0.00	0.00	0.00	-	-	3.32	yes\$" x.tsv &&
	# 1008 bytes is above the first file'"'"'s S: no recv_o_cross
	grep -q "^1008	.*	0.00	-	-	-	yes\$" x.tsv &&
	calib --compare xa.params a.params >y.tsv && grep -q "^64	.*	-	-	-	yes\$" y.tsv
'

test_expect_success '--tolerance sets what agrees' '
	calib --compare --tolerance 20 a.params b.params >t20.tsv &&
	grep -q "within 20 %: 57 of 57;" t20.tsv &&
	calib --compare --tolerance 0 a.params b.params -o t0.tsv &&
	grep -q "within 0 %: 0 of 57;" t0.tsv
'

test_expect_success 'errors: a missing file, a file without the piecewise model, bad usage' '
	expect_fail 1 calib --compare a.params nosuch.params &&
	grep -q "^calib: nosuch.params" err &&
	printf "L = 2500\no = 1500\n" >plain.params &&
	expect_fail 1 calib --compare plain.params a.params &&
	expect_err "calib: plain.params: no piecewise model (send_o, recv_o, net_L): not a netcal calibration" &&
	printf "send_o = 0:1us\nrecv_o = 0:xyz\nnet_L = 0:1us\n" >bad.params &&
	expect_fail 1 calib --compare a.params bad.params &&
	grep -q "^calib: bad.params:2: " err &&
	expect_fail 2 calib --compare a.params &&
	grep -q "needs two parameter files, got 1" err &&
	expect_fail 2 calib --tolerance 3 a.params &&
	grep -q "tolerance applies to --compare" err &&
	expect_fail 2 calib --compare --tolerance abc a.params b.params &&
	grep -q "tolerance: expected a percentage of 0 or more, got .abc." err &&
	expect_fail 2 calib --compare -p a.params a.params b.params &&
	grep -q "compare takes only --tolerance, -o and -q" err
'

test_expect_success 'the machine states the two files saw: named, and a warning when they differ' '
	calib --compare a.params b.params >none.tsv &&
	grep -qx "# machine state: not known for either file (no pulses judged): the two may have seen the machine in different states" none.tsv &&
	{ echo "# machine state: 3234 pulses (0-byte round trips) over 1 run, 3233 of them in 7 phases of 8 or more; undisturbed 0.3119 us to 0.3355 us (each phase'"'"'s 10th percentile); 34 slowed by more than 25 % (median 0.4255 us): 54 of 472162 measurements between two slowed pulses set aside"; cat a.params; } >fast.params &&
	{ echo "# machine state: 3234 pulses (0-byte round trips) over 1 run, 3233 of them in 7 phases of 8 or more; undisturbed 0.7620 us to 0.7915 us (each phase'"'"'s 10th percentile); 8 slowed by more than 25 % (median 1.0240 us): 0 of 430187 measurements between two slowed pulses set aside"; cat a.params; } >slow.params &&
	{ echo "# machine state: 3 pulses over 1 run, 0 of them in 0 phases of 8 or more; 0 slowed by more than 25 %: 0 of 10 measurements between two slowed pulses set aside"; cat a.params; } >unjudged.params &&
	calib --compare fast.params slow.params >diff.tsv &&
	grep -qx "# machine state: undisturbed pulse 0.3119 us in fast.params, 0.7620 us in slow.params (the smallest of their phases)" diff.tsv &&
	grep -q "^# warning: the undisturbed pulses are 144 % apart: the two calibrations saw the machine in different states" diff.tsv &&
	calib --compare fast.params fast.params >same.tsv &&
	grep -q "^# machine state: undisturbed pulse 0.3119 us in fast.params, 0.3119 us in fast.params" same.tsv &&
	! grep -q "^# warning" same.tsv &&
	calib --compare fast.params unjudged.params >half.tsv &&
	grep -qx "# machine state: not known for unjudged.params (no pulses judged): the two may have seen the machine in different states" half.tsv
'

test_done
