#!/bin/sh
# calib --intra (formats/calibration.md, "The intra-node model"): a netcal run of two ranks
# on one host fitted as the intra-node model: the fitted send_o, recv_o, net_L and S under
# the prefix intra_, nothing else; ibsim then prices the host's messages by them.
# Skipped when MPI or netcal is missing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/netcal" ] || skip_all "samples/apps/netcal not built"
TMPDIR=$TRASH
export TMPDIR

test_expect_success 'trace netcal (2 ranks, shared memory)' '
	allprof -q -o nc -- mpirun -np 2 --mca btl vader,self "$SAMPLES/netcal" -q -m 8192 -t 1 -n 30 \
		>/dev/null 2>nc.err &&
	test -s nc/rank-1.trace
'

test_expect_success '--intra writes the fit of the same run, renamed, and no other key' '
	calib -q -o all.params nc &&
	calib -q --intra -o intra.params nc &&
	grep -E "^(send_o|recv_o|net_L|S) " all.params | sed "s/^/intra_/" >want &&
	grep -v "^#" intra.params >got && test_cmp want got &&
	test $(wc -l <got) = 4 &&
	grep -q "^# the intra-node model" intra.params
'

test_expect_success 'ibsim with the network of one file and the host of the other' '
	printf "send_o = 0:1us\nrecv_o = 0:1us\nnet_L = 0:10us\n" >net.params &&
	cat net.params intra.params >both.params &&
	goalgen pingpong 2 --reps 2 --size 0 >pp.goal &&
	ibsim -q -p both.params --ranks-per-host 2 pp.goal >h.out &&
	ibsim -q -p both.params pp.goal >n.out &&
	h=$(awk "NR == 3 { print \$2 }" h.out) && n=$(awk "NR == 3 { print \$2 }" n.out) &&
	# across hosts: 4 x (10 + 1) us; on one host well below a microsecond per message
	test "$n" = 44000000 && test "$h" -lt 4000000 && test "$h" -gt 0
'

test_expect_success '--intra with --model loggp is a usage error' '
	expect_fail 2 calib --intra --model loggp nc &&
	expect_err "calib: --intra applies to the overheads model, not to --model loggp"
'

test_done
