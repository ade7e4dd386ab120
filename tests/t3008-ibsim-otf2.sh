#!/bin/sh
# ibsim --otf2 DIR (formats/results.md section 8): the simulated run as an OTF2
# archive that otf2-print reads: a location per rank, calcs, sends and
# message charges as regions, every send with its MpiSend and every charge
# with its MpiRecv, in time order per location.
. "$(dirname "$0")/lib.sh"

cat >ring.goal <<'GOAL'
num_ranks 3
rank 0 {
l1: calc 1000
l2: send 100b to 1 tag 5
l3: recv 200b from 2 tag 5
l2 requires l1
l3 requires l2
}
rank 1 {
l1: recv 100b from 0 tag 5
l2: send 100b to 2 tag 5
l2 requires l1
}
rank 2 {
l1: recv 100b from 1 tag 5
l2: calc 500
l3: send 200b to 0 tag 5
l2 requires l1
l3 requires l2
}
GOAL

test_expect_success 'the archive is written beside the usual results' '
	ibsim ring.goal >plain.out &&
	ibsim --otf2 sim ring.goal >otf2.out &&
	test_cmp plain.out otf2.out &&
	test -f sim/traces.otf2 && test -f sim/traces.def
'
test_expect_success 'otf2-print reads it: the messages, the regions, three ranks' '
	otf2-print sim/traces.otf2 >print &&
	test "$(grep -c "^MPI_SEND " print)" = 3 &&
	test "$(grep -c "^MPI_RECV " print)" = 3 &&
	grep -q "^MPI_SEND  *0 .*Receiver: 1 .*Tag: 5, Length: 100$" print &&
	grep -q "^MPI_RECV  *0 .*Sender: 2 .*Tag: 5, Length: 200$" print &&
	test "$(grep -c "^ENTER .*Region: \"calc\"" print)" = 2 &&
	test "$(grep -c "^ENTER " print)" = "$(grep -c "^LEAVE " print)" &&
	for r in 0 1 2; do grep -q "^ENTER  *$r " print || return 1; done
'
test_expect_success 'times are the simulated picoseconds, in order per location' '
	end=$(awk "NR > 1 && \$1 == 0 { print \$2 }" plain.out) &&
	grep -q "^LEAVE  *0  *$end  *Region: \"recv\"" print &&
	for r in 0 1 2; do
		awk -v r=$r "(\$1 == \"ENTER\" || \$1 == \"LEAVE\") && \$2 == r { if (\$3 + 0 < last) bad = 1; last = \$3 + 0 } END { exit bad }" print || return 1
	done
'
test_expect_success 'an existing archive is not overwritten' '
	expect_fail 1 ibsim --otf2 sim ring.goal &&
	expect_err "ibsim: sim/traces.otf2: an OTF2 archive is already there"
'
test_done
