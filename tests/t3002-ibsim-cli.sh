#!/bin/sh
# ibsim's command line: options, parameter files and their precedence, input
# forms, the results format, and every usage and input error with its exact
# message and exit status.
. "$(dirname "$0")/lib.sh"

ends() { awk -F'\t' 'NR > 2 { printf "%s%s:%s", s, $1, $2; s = " " } END { print "" }' "$1"; }

cat >ping.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 10b to 1 tag 0
}
rank 1 {
r: recv 10b from 0 tag 0
}
EOF
# ping with defaults: rank 1 ends at o + L + o + 9*G = 5554; rank 0 at o = 1500.

test_expect_success 'results: header fields, column line, one row per rank' '
	ibsim ping.goal >res 2>err &&
	sed -n 1p res | grep -q "^# ibsim [0-9.]* net=loggops L=2500 o=1500 g=1000 G=6 O=0 S=65535 o_rndv=1500 O_rndv=0 ranks=2 events=3\$" &&
	printf "rank\tend_ps\tcalc_ps\tmsgs_sent\tbytes_sent\n0\t1500\t0\t1\t10\n1\t5554\t0\t0\t0\n" >want &&
	sed 1d res >got && test_cmp want got &&
	grep -q "^ibsim: 2 ranks, 2 ops, 1 messages, 0 put-backs; ends at 5.554ns (5554 ps);" err
'
test_expect_success '--quiet: no summary' '
	ibsim -q ping.goal >res 2>err && ! test -s err
'
test_expect_success '--stats FILE: the run statistics, out of the results' '
	ibsim -q --stats st.tsv ping.goal >res 2>err && ! test -s err &&
	ibsim -q ping.goal >res0 && test_cmp res0 res &&
	sed -n 1p st.tsv | grep -qx "# ibsim [0-9.]* stats" &&
	sed 1d st.tsv | cut -f1 | paste -sd " " >keys && echo "load_s wall_s events ev_per_s ranks_tiled spill_bytes" >want && test_cmp want keys &&
	grep -qx "events	3" st.tsv && grep -qx "wall_s	[0-9]*\.[0-9]\{6\}" st.tsv &&
	ibsim -q --net ib --topo star:2 --stats st.tsv ping.goal >/dev/null &&
	sed 1d st.tsv | cut -f1 | paste -sd " " >keys &&
	echo "load_s wall_s events ev_per_s ranks_tiled spill_bytes packet_hops packet_hops_per_s fabric_events fabric_ev_per_s nonminimal" >want && test_cmp want keys &&
	expect_fail 1 ibsim -q --stats nodir/st.tsv ping.goal && ! test -s out &&
	expect_err "ibsim: nodir/st.tsv: cannot create: No such file or directory"
'
test_expect_success 'standard input, compressed input and binary input give the same results' '
	ibsim -q ping.goal | sed 1d >a &&
	ibsim -q - <ping.goal | sed 1d >b && test_cmp a b &&
	gzip -c ping.goal >ping.goal.gz && ibsim -q ping.goal.gz | sed 1d >c && test_cmp a c &&
	goalc -o ping.goalb ping.goal && ibsim -q ping.goalb | sed 1d >d && test_cmp a d &&
	ibsim -q - <ping.goalb | sed 1d >e && test_cmp a e
'
# -L 1ns -o 2ns -g 3 -G 1 -O 2 -S 1K: the sender is busy o + 9*O = 2018; the
# message arrives at o + L = 3000 and is charged o + max(9*O, 9*G) = 2018:
# rank 1 ends at 5018.
test_expect_success 'every parameter option, with units' '
	ibsim -q -L 1ns -o 2ns -g 3 -G 1 -O 2 -S 1K ping.goal >res &&
	sed -n 1p res | grep -q " L=1000 o=2000 g=3 G=1 O=2 S=1024 o_rndv=2000 O_rndv=2 " &&
	test "$(ends res)" = "0:2018 1:5018"
'
cat >big.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 100000b to 1 tag 0
}
rank 1 {
r: recv 100000b from 0 tag 0
}
EOF
# Rendezvous overheads: --o-rndv 10000 --O-rndv 1: sender o' + 99999*O' = 109999;
# arrival o' + L = 12500; receiver o' + max(99999*1, 99999*6) = 10000 + 599994:
# ends 622494. The sender is released at 12500 (below its 109999).
test_expect_success '--o-rndv and --O-rndv apply to rendezvous messages only' '
	ibsim -q --o-rndv 10000 --O-rndv 1 big.goal >res &&
	test "$(ends res)" = "0:109999 1:622494" &&
	ibsim -q --o-rndv 10000 --O-rndv 1 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:5554"
'
test_expect_success 'parameter file, and the command line overrides it' '
	printf "# test\nL = 1ns   # latency\no=2ns\ng = 3\nG = 1\nO = 2\nS = 1K\n" >p.params &&
	ibsim -q -p p.params ping.goal >res &&
	test "$(ends res)" = "0:2018 1:5018" &&
	ibsim -q -p p.params -L 2ns ping.goal >res &&
	sed -n 1p res | grep -q " L=2000 o=2000 " &&
	ibsim -q -L 2ns -p p.params ping.goal >res2 &&
	sed 1d res >a && sed 1d res2 >b && test_cmp a b &&
	test "$(ends res)" = "0:2018 1:6018"
'
test_expect_success 'o_rndv follows o unless set; hyphenated keys in files' '
	printf "o = 7\n" >o.params &&
	ibsim -q -p o.params ping.goal | sed -n 1p | grep -q " o=7 .* o_rndv=7 O_rndv=0 " &&
	printf "o = 7\no-rndv = 9\n" >o2.params &&
	ibsim -q -p o2.params ping.goal | sed -n 1p | grep -q " o=7 .* o_rndv=9 "
'
test_expect_success 'net=loggops from a file or the command line' '
	printf "net = loggops\n" >n.params &&
	ibsim -q -p n.params ping.goal | sed -n 1p | grep -q " net=loggops " &&
	ibsim -q -n loggops ping.goal | sed -n 1p | grep -q " net=loggops " &&
	ibsim -q --net=loggops ping.goal >/dev/null
'
test_expect_success 'unknown keys in a parameter file are warned about and ignored' '
	printf "L = 0\nfoo = 1\n" >u.params &&
	ibsim -q -p u.params ping.goal >res 2>err &&
	expect_err "ibsim: warning: u.params:2: unknown parameter '"'"'foo'"'"' ignored" &&
	sed -n 1p res | grep -q " L=0 "
'

# usage errors: exit 2
test_expect_success 'usage: missing schedule' '
	expect_fail 2 ibsim &&
	expect_err "ibsim: missing SCHEDULE" && expect_err "Try '"'"'ibsim --help'"'"' for more information."
'
test_expect_success 'usage: extra operand' '
	expect_fail 2 ibsim ping.goal extra && expect_err "ibsim: unexpected operand '"'"'extra'"'"'"
'
test_expect_success 'usage: unknown options and missing values' '
	expect_fail 2 ibsim -x ping.goal && expect_err "ibsim: unknown option '"'"'-x'"'"'" &&
	expect_fail 2 ibsim --bogus ping.goal && expect_err "ibsim: unknown option '"'"'--bogus'"'"'" &&
	expect_fail 2 ibsim ping.goal -L && expect_err "ibsim: option '"'"'-L'"'"' needs a value"
'
test_expect_success 'usage: bad values name the option and quote the value' '
	expect_fail 2 ibsim -L 12xs ping.goal &&
	expect_err "ibsim: invalid time for -L: '"'"'12xs'"'"' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)" &&
	expect_fail 2 ibsim -S -1 ping.goal &&
	expect_err "ibsim: invalid size for -S: '"'"'-1'"'"' (expected a number with an optional unit B, K, M, G or T; plain numbers are bytes)" &&
	expect_fail 2 ibsim --O-rndv 0.5ps ping.goal &&
	expect_err "ibsim: invalid time for --O-rndv: '"'"'0.5ps'"'"' (not a whole number of the base unit)" &&
	expect_fail 2 ibsim --net ethernet ping.goal &&
	expect_err "ibsim: unknown network '"'"'ethernet'"'"' (expected loggops or ib)"
'
test_expect_success 'usage: parameters and schedule cannot both come from standard input' '
	expect_fail 2 ibsim -p - - <ping.goal &&
	expect_err "ibsim: the parameter file and the schedule cannot both be standard input"
'
test_expect_success 'parameters from standard input' '
	printf "L = 0\n" | ibsim -q -p - ping.goal >res &&
	sed -n 1p res | grep -q " L=0 "
'
test_expect_success 'a bad option value is a usage error even when a file sets the key' '
	expect_fail 2 ibsim -p p.params -G x ping.goal &&
	expect_err "ibsim: invalid time for -G: '"'"'x'"'"' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)"
'

# bad input: exit 1
test_expect_success 'bad input: parameter file errors name file and line' '
	printf "o = 1\nL = 12xs\n" >bad.params &&
	expect_fail 1 ibsim -p bad.params ping.goal &&
	expect_err "ibsim: bad.params:2: invalid time for '"'"'L'"'"': '"'"'12xs'"'"' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)" &&
	printf "L = 1\nL = 2\n" >dup.params &&
	expect_fail 1 ibsim -p dup.params ping.goal &&
	expect_err "ibsim: dup.params:2: duplicate key '"'"'L'"'"' (first set at line 1)" &&
	printf "net = ethernet\n" >net.params &&
	expect_fail 1 ibsim -p net.params ping.goal &&
	expect_err "ibsim: net.params:1: unknown network '"'"'ethernet'"'"' (expected loggops or ib)" &&
	expect_fail 1 ibsim -p nonexistent.params ping.goal &&
	expect_err "ibsim: nonexistent.params: cannot open: No such file or directory"
'
test_expect_success 'bad input: missing and invalid schedules' '
	expect_fail 1 ibsim nonexistent.goal &&
	expect_err "ibsim: nonexistent.goal: cannot open: No such file or directory" &&
	printf "num_ranks 2\nrank 0 {\nsend 1b to 5 tag 0\n}\nrank 1 {\n}\n" >peer.goal &&
	expect_fail 1 ibsim peer.goal &&
	grep -q "^ibsim: peer.goal:3: " err &&
	printf "num_ranks 2\nrank 0 {\nsend 1b to 1 tag -1\n}\nrank 1 {\n}\n" >tag.goal &&
	expect_fail 1 ibsim tag.goal &&
	grep -q "^ibsim: tag.goal:3: " err &&
	! test -s out
'
# --net ib: the fabric model's own numbers are tested with it (tests/t7*);
# here only that ibsim passes the options, parameter keys and outputs through.
test_expect_success '--net ib runs, names the topology, writes link statistics' '
	ibsim -q --net ib --topo star:2 --linkstats ls.tsv ping.goal >res &&
	sed -n 1p res | grep -q "^# ibsim [0-9.]* net=ib topo=star:2 L=2500 " &&
	test "$(sed 1,2d res | wc -l)" = 2 &&
	sed -n 1p ls.tsv | grep -q "^from	port	to	port	link	bytes	packets	busy_ps	stall_ps\$" &&
	test "$(sed 1d ls.tsv | wc -l)" = 4
'
test_expect_success '--net ib from a parameter file, with ib keys; options override' '
	printf "net = ib\ntopo = star:4\nmtu = 4096\n" >ib.params &&
	ibsim -q -p ib.params ping.goal >res 2>err && ! test -s err &&
	sed -n 1p res | grep -q " net=ib topo=star:4 " &&
	ibsim -q -p ib.params --topo star:2 ping.goal | sed -n 1p | grep -q " topo=star:2 "
'
test_expect_success 'ib keys in a file are silent for loggops runs; ib options are not' '
	printf "topo = star:4\n" >t.params &&
	ibsim -q -p t.params ping.goal >res 2>err && ! test -s err &&
	expect_fail 2 ibsim --topo star:2 ping.goal &&
	expect_err "ibsim: --topo applies to --net ib only" &&
	expect_fail 2 ibsim --linkstats x ping.goal &&
	expect_err "ibsim: --linkstats applies to --net ib only"
'
test_expect_success 'ib option errors' '
	expect_fail 2 ibsim --net ib --ib nokey ping.goal &&
	expect_err "ibsim: --ib needs KEY=VALUE, got '"'"'nokey'"'"'" &&
	expect_fail 2 ibsim --net ib --ib foo=1 ping.goal &&
	expect_err "ibsim: unknown ib parameter '"'"'foo'"'"'" &&
	printf "net = ib\nmtu = 7\n" >bad-ib.params &&
	expect_fail 1 ibsim -p bad-ib.params ping.goal &&
	grep -q "^ibsim: bad-ib.params:2: " err
'
test_expect_success 'a closed standard output is an error, not a crash' '
	test -w /dev/full || return 0
	ibsim ping.goal >/dev/full 2>err
	test $? = 1 && grep -q "^ibsim: write error on standard output: No space left on device" err
'
test_done
