#!/bin/sh
# calib's command line and bad input: every usage error (exit 2) and every
# input error (exit 1) with its exact message; the ib network path.
. "$(dirname "$0")/lib.sh"

good() { printf "1 1\n2 1.1\n4 1.3\n8 1.7\n" >good.tsv; }

test_expect_success '--help and --version' '
	calib --help >out &&
	grep -q "^Usage: calib \[options\] TRACEDIR|TSV$" out &&
	grep -q "^   or: calib \[options\] TRACE...$" out &&
	calib --version >out && grep -q "^calib (ibreplay) " out
'

test_expect_success 'usage errors' '
	good &&
	expect_fail 2 calib && expect_err "calib: missing INPUT (a trace directory, trace files or a TSV)" &&
	grep -qx "Try '"'"'calib --help'"'"' for more information." err &&
	expect_fail 2 calib --net tcp good.tsv && expect_err "calib: unknown network '"'"'tcp'"'"' (expected loggops or ib)" &&
	expect_fail 2 calib --model logp good.tsv && expect_err "calib: unknown model '"'"'logp'"'"' (expected overheads or loggp)" &&
	expect_fail 2 calib -S 12q good.tsv && grep -q "^calib: invalid size for -S: '"'"'12q'"'"'" err &&
	expect_fail 2 calib --overhead 1us good.tsv && expect_err "calib: --overhead applies to --model loggp" &&
	expect_fail 2 calib --model loggp --overhead 1xs good.tsv && grep -q "^calib: invalid time for --overhead" err &&
	expect_fail 2 calib --model loggp -S 4K good.tsv && expect_err "calib: -S applies to the overheads model, not to --model loggp" &&
	expect_fail 2 calib --plot fit.pdf good.tsv && expect_err "calib: plot file '"'"'fit.pdf'"'"': expected a name ending in .png or .svg" &&
	expect_fail 2 calib --topo star:2 --net loggops good.tsv && expect_err "calib: --topo applies to --net ib" &&
	expect_fail 2 calib --topo star:2 good.tsv && expect_err "calib: --topo applies to --net ib" &&
	expect_fail 2 calib -x good.tsv && expect_err "calib: unknown option '"'"'-x'"'"'" &&
	expect_fail 2 calib --tracer-time drop good.tsv && expect_err "calib: --tracer-time: expected remove or keep, got '"'"'drop'"'"'" &&
	expect_fail 2 calib good.tsv -S && expect_err "calib: option '"'"'-S'"'"' needs a value"
'

test_expect_success 'the ib network: simulated network times, net and topo written' '
	good &&
	calib -q --net ib --topo fattree2:4 good.tsv >ib.params &&
	grep -q "^net = ib " ib.params &&
	grep -qx "topo = fattree2:4" ib.params &&
	grep -q "(O - 0)" ib.params &&
	expect_fail 1 calib --net ib --topo nosuch:4 good.tsv &&
	grep -q "^calib: .*nosuch" err
'

test_expect_success 'ib keys of the -p file reach the network; bad ones are reported' '
	good &&
	printf "net = ib\nmtu = 4096\n" >ib.params &&
	calib -q -p ib.params good.tsv >out.params 2>err &&
	test ! -s err &&
	printf "net = ib\nmtu = 77\n" >bad.params &&
	expect_fail 1 calib -p bad.params good.tsv &&
	grep -q "^calib: bad.params:2: " err
'

test_expect_success 'the ib network with network times in the input: O is not offset by G' '
	printf "size_bytes real_us sim_us\n" >ib.tsv &&
	awk "BEGIN { for (s = 1; s <= 64; s *= 2) printf \"%d %.6f %.6f\n\", s, (1000000 + 200000 + (s-1)*50)/1e6, 1 + (s-1)*0.00001 }" >>ib.tsv &&
	calib -q --net ib ib.tsv >ib.params &&
	grep -q "^O = 40ps " ib.params &&
	grep -q "(O - 0)" ib.params
'

test_expect_success 'network and topology from the -p file' '
	good &&
	printf "net = ib\ntopo = star:2\n" >ib.params &&
	calib -q -p ib.params good.tsv >out.params &&
	grep -qx "topo = star:2" out.params &&
	printf "net = tcp\n" >bad.params &&
	expect_fail 1 calib -p bad.params good.tsv &&
	expect_err "calib: bad.params: unknown network '"'"'tcp'"'"' (expected loggops or ib)"
'

test_expect_success 'bad -p files' '
	good &&
	printf "L = 2.5xs\n" >bad.params &&
	expect_fail 1 calib -p bad.params good.tsv &&
	grep -q "^calib: bad.params:1: invalid time for '"'"'L'"'"': '"'"'2.5xs'"'"'" err &&
	expect_fail 1 calib -p nothere.params good.tsv &&
	grep -q "^calib: nothere.params: " err
'

test_expect_success 'unknown keys in -p are warned about' '
	good &&
	printf "L = 1ns\nfoo = 3\n" >w.params &&
	calib -q -p w.params good.tsv >/dev/null 2>err &&
	expect_err "calib: warning: w.params:2: unknown parameter '"'"'foo'"'"' ignored"
'

test_expect_success 'a previous calib output is a valid -p file' '
	good &&
	calib -q good.tsv >first.params &&
	calib -q -p first.params good.tsv >second.params 2>err &&
	test ! -s err
'

test_expect_success 'bad TSV input: the line and the value' '
	printf "size_bytes real_us\n1 2\n2 x\n" >bad.tsv &&
	expect_fail 1 calib bad.tsv &&
	expect_err "calib: bad.tsv:3: expected real_us as a non-negative number of microseconds, found '"'"'x'"'"'" &&
	printf "# only comments\n\n" >empty.tsv &&
	expect_fail 1 calib empty.tsv &&
	expect_err "calib: empty.tsv: no measurements (expected rows '"'"'size_bytes real_us [sim_us]'"'"')" &&
	printf "5 1\n5 2\n" >one.tsv &&
	expect_fail 1 calib one.tsv &&
	expect_err "calib: one.tsv: only one message size (5 bytes): a line needs at least two sizes" &&
	printf "1 1\n1\t2\t3\t4\n" >cols.tsv &&
	expect_fail 1 calib cols.tsv &&
	expect_err "calib: cols.tsv:2: expected 2 or 3 columns (size_bytes real_us [sim_us]), found 4" &&
	printf "1 1\n2 1\0\n" >nul.tsv &&
	expect_fail 1 calib nul.tsv &&
	expect_err "calib: nul.tsv:2: unexpected NUL byte" &&
	expect_fail 1 calib nothere.tsv &&
	grep -q "^calib: nothere.tsv: " err
'

test_expect_success '-S leaving one size on a side' '
	good &&
	expect_fail 1 calib -S 1 good.tsv &&
	expect_err "calib: good.tsv: 1 size at or below S = 1 bytes: the eager fit needs at least two" &&
	expect_fail 1 calib -S 4 good.tsv &&
	expect_err "calib: good.tsv: one size above S = 4 bytes (8): the rendezvous fit needs at least two"
'

test_expect_success 'a write error is reported' '
	good &&
	if [ -w /dev/full ]; then
		expect_fail 1 calib -q good.tsv -o /dev/full ||
		{ calib -q good.tsv >/dev/full 2>err; test $? = 1; }
	fi
'

test_expect_success 'output file is not left behind on failure' '
	printf "1 1\n" >one.tsv &&
	expect_fail 1 calib -o never.params one.tsv &&
	test ! -e never.params
'

test_done
