#!/bin/sh
# ibsim --net ib on real OpenSM fabrics recorded by pipelines/opensm.mk
# (tests/data/opensm/: ibnetdiscover output and OpenSM's LFT dumps of fat
# trees, an irregular fabric and a torus): the topology reader takes real
# ibnetdiscover output, the tables read back and route every pair, and the
# comparison table of docs/ib-model.md comes out the same. Also the writers
# behind the pipeline: --dump-netfile and --route-stats. Needs no OpenSM.
. "$(dirname "$0")/lib.sh"

D="$SEED/opensm"

# row FABRIC ROUTING: ibsim on the recorded fabric with ROUTING (lft:ENGINE for
# OpenSM's recorded tables), an all-to-all of 64 KiB over every host; prints
# fabric, routing, hosts, switch links, max, mean, max/mean, end time (us)
row() {
	case $2 in
	lft:*) r=lft:$(ls "$D/$1.${2#lft:}".lfts*) ;;
	*) r=$2 ;;
	esac
	h=$(grep -c "^Ca" "$D/$1.ibnd")
	[ -f "a2a-$h.goal" ] || goalgen alltoall "$h" --size 64K >"a2a-$h.goal" || return 1
	ibsim -q --net ib --topo "$D/$1.ibnd" --routing "$r" --route-stats "$1.$2.routes" "a2a-$h.goal" >"$1.$2.res" ||
		return 1
	end=$(awk "!/^#/ && \$1 ~ /^[0-9]+\$/ && \$2 > m {m = \$2} END {printf \"%.3f\", m / 1e6}" "$1.$2.res")
	sed -n "s|^# switch links \([0-9]*\) routes [0-9]* max \([0-9]*\) mean \([0-9.]*\) max/mean \([0-9.]*\)\$|$1	$2	$h	\1	\2	\3	\4	$end|p" \
		"$1.$2.routes"
}

test_expect_success 'real ibnetdiscover output reads: hosts, switches and links of each fabric' '
	for f in fattree2-4:8:6:16 fattree3-4:16:20:64 irregular:11:6:18 torus3x3:18:9:36; do
		set -- $(echo $f | tr : " ") &&
		echo "num_ranks 1" >one.goal && echo "rank 0 {" >>one.goal && echo "}" >>one.goal &&
		ibsim -q --net ib --topo "$D/$1.ibnd" --route-stats $1.rs one.goal >/dev/null &&
		test "$(awk -F"\t" "NR > 1 && !/^#/ && \$1 ~ /^H-/" $1.rs | wc -l)" = $2 &&
		test "$(awk -F"\t" "NR > 1 && !/^#/ && \$1 ~ /^S-/" $1.rs | cut -f1 | sort -u | wc -l)" = $3 &&
		grep -q "^# switch links $4 " $1.rs || return 1
	done
'

test_expect_success 'the DDR link of the irregular fabric is DDR after discovery, the rest QDR' '
	test "$(grep -c "4xDDR" irregular.rs)" = 2 &&
	test "$(awk -F"\t" "NR > 1 && !/^#/ && \$5 != \"4xQDR\" && \$5 != \"4xDDR\"" irregular.rs)" = ""
'

test_expect_success 'OpenSM tables and ibsim engines on the recorded fabrics: the comparison table' '
	for f in fattree2-4 fattree3-4 irregular torus3x3; do
		for e in $(ls "$D" | sed -n "s/^$f\.\(.*\)\.lfts.*/\1/p"); do
			row $f lft:$e || return 1
		done
		for r in minhop updn ftree; do
			row $f $r >row.tmp 2>row.err || grep -q "has no route" row.err || return 1
			if [ -s row.tmp ]; then cat row.tmp; else printf "%s\t%s\tfailed\n" $f $r; fi
		done
	done >table.tsv &&
	test_golden table.tsv table.tsv
'

test_expect_success 'every table of the table routed every pair: none failed but ftree off fat trees' '
	test "$(grep -c failed table.tsv)" = 2 &&
	grep -q "^irregular	ftree	failed" table.tsv && grep -q "^torus3x3	ftree	failed" table.tsv &&
	test "$(grep -vc failed table.tsv)" = 24
'

test_expect_success 'fat trees: OpenSM ftree balances as ibsim ftree; dor and torus-2QoS balance the torus' '
	grep -q "^fattree3-4	lft:ftree	16	64	14	13.000	1.077	" table.tsv &&
	grep -q "^fattree3-4	ftree	16	64	14	13.000	1.077	" table.tsv &&
	grep -q "^torus3x3	lft:dor	18	36	12	12.000	1.000	" table.tsv &&
	grep -q "^torus3x3	lft:torus-2QoS	18	36	12	12.000	1.000	" table.tsv
'

test_expect_success 'OpenSM tables dumped again by ibsim read back to the same routes' '
	ibsim -q --net ib --topo "$D/torus3x3.ibnd" --routing "lft:$D/torus3x3.dor.lfts" --dump-lft again.lfts \
		a2a-18.goal >a.res &&
	ibsim -q --net ib --topo "$D/torus3x3.ibnd" --routing lft:again.lfts --route-stats again.routes a2a-18.goal >b.res &&
	test_cmp a.res b.res && test_cmp torus3x3.lft:dor.routes again.routes
'

test_expect_success 'ibnetdiscover output without LIDs (before OpenSM ran) reads OpenSM tables by port GUID' '
	grep -q "^\[1\]	\"H-0002c90300000007\"\[1\](2c90300000008) 	*# \"h6\" lid 0 4xDDR" "$D/fattree2-4.nolid.ibnd" &&
	for e in minhop ftree; do
		ibsim -q --net ib --topo "$D/fattree2-4.nolid.ibnd" --routing "lft:$D/fattree2-4.$e.lfts" \
			--route-stats nolid.$e.routes a2a-8.goal >nolid.$e.res &&
		tail -n +2 nolid.$e.res >a && tail -n +2 fattree2-4.lft:$e.res >b && test_cmp b a &&
		test_cmp fattree2-4.lft:$e.routes nolid.$e.routes || return 1
	done
'

test_expect_success 'a dump written from discovered CAs names them by port GUID, as OpenSM does' '
	ibsim -q --net ib --topo "$D/fattree2-4.ibnd" --routing "lft:$D/fattree2-4.updn.lfts" --dump-lft w.lfts \
		a2a-8.goal >/dev/null &&
	grep -q "^0x0001 001 # Channel Adapter portguid 0x0002c90300000002: .H-0002c90300000001.\$" w.lfts &&
	ibsim -q --net ib --topo "$D/fattree2-4.nolid.ibnd" --routing lft:w.lfts --route-stats w.routes a2a-8.goal >/dev/null &&
	test_cmp fattree2-4.lft:updn.routes w.routes
'

test_expect_success '--dump-netfile: the net file of fattree2:4' '
	ibsim -q --net ib --topo fattree2:4 --link 4xQDR --dump-netfile ft.net one.goal >/dev/null &&
	test_golden fattree2-4.net ft.net
'

test_expect_success '--dump-netfile of a discovered fabric keeps its GUIDs; a topology without GUIDs has none' '
	ibsim -q --net ib --topo "$D/torus3x3.ibnd" --dump-netfile t.net one.goal >/dev/null &&
	test "$(grep -c "^switchguid=0x0002c9020000..01\$" t.net)" = 9 &&
	test "$(grep -c "^caguid=" t.net)" = 18 &&
	test "$(grep -c "^Ca	1 \"H-" t.net)" = 18 &&
	printf "switch s 2\nhost a\nhost b guid=7\nlink a:1 s:1\nlink b:1 s:2 1xSDR\n" >g.topo &&
	ibsim -q --net ib --topo g.topo --dump-netfile g.net one.goal >/dev/null &&
	! grep -q guid= g.net &&
	grep -qx "\[2\]	\"b\"\[1\]	# \"b\" lid 0 1xSDR" g.net
'

bad_name_msg="ibsim: node name 's@1' cannot be written to a net file (at most 64 bytes, no '\"' or '@')"
test_expect_success '--dump-netfile refuses a name the fabric simulator cannot take' '
	printf "switch s@1 2\nhost a\nlink a:1 s@1:1\n" >bad.topo &&
	expect_fail 1 ibsim -q --net ib --topo bad.topo --dump-netfile bad.net one.goal &&
	expect_err "$bad_name_msg" &&
	test ! -e bad.net
'

test_expect_success '--route-stats: ibsim minhop on fattree2:16 routes 120 host pairs over each up port of a leaf' '
	ibsim -q --net ib --topo fattree2:16 --route-stats ft16.routes one.goal >/dev/null &&
	test "$(awk -F"\t" "\$1 ~ /^leaf/ && \$3 ~ /^spine/ && \$6 != 120" ft16.routes)" = "" &&
	grep -qx "# switch links 256 routes 30720 max 120 mean 120.000 max/mean 1.000" ft16.routes
'
test_done
