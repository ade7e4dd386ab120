#!/bin/sh
# ibsim --net ib with several LIDs per host (lmc) and path selection
# (docs/ib-model.md section 10): a permutation on fattree2:8 (4 spines) that
# collides under single-path routing, spread by round robin per packet and
# by adaptive selection; the route counts of every LID; runs that repeat
# with their seed; lmc = 0 as before whatever the path keys say; MPI order
# kept when a message overtakes an earlier one of its pair on another path;
# and the errors. The table and fabric points are in tests/unit/u-ib-multipath.c.
# Defaults: 4xDDR (500 ps/byte), MTU 2048: a packet is 2074 bytes, 1037000 ps
# on a link; 256 KiB are 128 packets, T1 = 128 x 1037000 = 132736000 ps.
. "$(dirname "$0")/lib.sh"

Q=$(printf "\047")

last() { awk -F'\t' 'NR > 2 && ($1 == 4 || $1 == 9 || $1 == 13 || $1 == 16) && $2 > m { m = $2 } END { print m }' "$1"; }
# leaf 0's up ports (5..8, to the spines) that carried data
ups() { awk -F'\t' '$1 == "leaf0" && $2 >= 5 && $6 > 0 { n++ } END { print n + 0 }' "$1"; }
# within PCT percent of WANT
near() { awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; }

# Hosts 0..3 (leaf 0) send 256 KiB each to hosts 4, 9, 13 and 16 (leaves 1..4).
# ftree sends LID offset k of host h from leaf 0 up to spine (h + k) mod 4.
run() { ibsim -q --net ib --topo fattree2:8 --routing ftree "$@" "$SEED/ib/perm32.goal"; }

T1=132736000
test_expect_success 'lmc=0: spines 0, 1, 1, 0: two flows per up link, the last ends at 2 T1 (within 1 %)' '
	run --linkstats l0.tsv --route-stats rs0.tsv >lmc0.tsv &&
	near "$(last lmc0.tsv)" $((2 * T1)) 1 && test "$(ups l0.tsv)" = 2 &&
	tail -n 1 rs0.tsv | grep -qx "# switch links 64 routes 1792 max 28 mean 28.000 max/mean 1.000"
'
test_expect_success 'lmc=0 is as before whatever path and path_unit say' '
	run --ib lmc=0 --ib path=rr --ib path_unit=packet >lmc0b.tsv && test_cmp lmc0.tsv lmc0b.tsv &&
	run --ib lmc=0 --ib path=adaptive >lmc0c.tsv && test_cmp lmc0.tsv lmc0c.tsv
'
test_expect_success 'lmc=2, path=static: offsets (s + d) mod 4 = 0, 2, 3, 3: spines 0, 3, 0, 3, still 2 T1' '
	run --ib lmc=2 --route-stats rs2.tsv --linkstats l2.tsv >st2.tsv &&
	near "$(last st2.tsv)" $((2 * T1)) 1 && test "$(ups l2.tsv)" = 2 &&
	tail -n 1 rs2.tsv | grep -qx "# switch links 64 routes 1792 max 28 mean 28.000 max/mean 1.000"
'
test_expect_success 'lmc=2, rr per packet: every flow over the 4 spines, the last ends within 5 % of T1' '
	run --ib lmc=2 --ib path=rr --ib path_unit=packet --route-stats rsr.tsv --linkstats lr.tsv --stats s.tsv >rr.tsv &&
	near "$(last rr.tsv)" $T1 5 && test "$(ups lr.tsv)" = 4 &&
	tail -n 1 rsr.tsv | grep -qx "# switch links 64 routes 7168 max 112 mean 112.000 max/mean 1.000" &&
	test "$(awk -F"\t" "\$1 == \"path_other\" { print \$2 }" s.tsv)" = 390
'
test_expect_success 'lmc=2, rr per message: one message per flow, all on offset 0 as lmc=0' '
	run --ib lmc=2 --ib path=rr >rrm.tsv && test "$(last rrm.tsv)" = "$(last lmc0.tsv)"
'
test_expect_success 'lmc=2, adaptive and adaptive-credits per packet: 4 spines, better than static' '
	for a in adaptive adaptive-credits; do
		run --ib lmc=2 --ib path=$a --ib path_unit=packet --linkstats la.tsv >ad.tsv &&
		test "$(ups la.tsv)" = 4 && test "$(last ad.tsv)" -lt "$(last st2.tsv)" || return 1
	done
'
test_expect_success 'lmc=2, random: the same seed gives the same results, another seed others' '
	run --ib lmc=2 --ib path=random:5 --ib path_unit=packet >ra.tsv &&
	run --ib lmc=2 --ib path=random:5 --ib path_unit=packet >rb.tsv && test_cmp ra.tsv rb.tsv &&
	run --ib lmc=2 --ib path=random:6 --ib path_unit=packet >rc.tsv && ! cmp -s ra.tsv rc.tsv &&
	test "$(last ra.tsv)" -lt "$(last st2.tsv)"
'

# MPI order: ranks 8, 12 and 16 send 3, 2 and 1 small messages and then
# 1 MiB to ranks 5, 6 and 7 (leaf 1): under rr their big messages take LID
# offsets 3, 2, 1, all over spine 0 and its link to leaf 1. At 20 us rank 0
# sends A (2000 bytes, offset 0: spine 0) and B (2048 bytes, offset 1:
# spine 1) to rank 4 on leaf 1: B overtakes A in the fabric
# (tests/unit/u-ib-multipath.c), but is handed to the engine only with A,
# so A matches the first receive and B the second (a message matched out of
# order would mismatch its size, and ibsim would warn).
{
	echo "num_ranks 32"
	printf "rank 0 {\nc: calc 20000000\na: send 2000b to 4\nb: send 2048b to 4\na requires c\nb requires c\n}\n"
	printf "rank 4 {\nrecv 2000b from 0\nrecv 2048b from 0\n}\n"
	i=0
	for s in 8 12 16; do
		d=$((5 + i)) n=$((3 - i)) j=0
		echo "rank $s {"
		while [ $j -lt $n ]; do echo "send 8b to $d"; j=$((j + 1)); done
		printf "send 1048576b to %s\n}\nrank %s {\n" $d $d
		j=0
		while [ $j -lt $n ]; do echo "recv 8b from $s"; j=$((j + 1)); done
		printf "recv 1048576b from %s\n}\n" $s
		i=$((i + 1))
	done
	for r in 1 2 3 9 10 11 13 14 15 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31; do printf "rank %s {\n}\n" $r; done
} >ord.goal
test_expect_success 'a message that overtakes an earlier one of its pair is matched after it' '
	ibsim -q --net ib --topo fattree2:8 --routing ftree --ib lmc=2 --ib path=rr --ib rndv=loggopsim \
		--msglog ml.tsv ord.goal >ord.tsv 2>ord.err && ! test -s ord.err &&
	awk -F"\t" "\$2 == 0 && \$3 == 4 { print \$5, \$7, \$10, \$11 }" ml.tsv >got &&
	printf "2000 24165500 1 0\n2048 24165500 2 1\n" >want && test_cmp want got
'

test_expect_success 'errors: lmc out of range, an unknown path, a routing without multipath, dump_lft' '
	expect_fail 2 ibsim -q --net ib --ib lmc=9 "$SEED/ib/perm32.goal" &&
	expect_err "ibsim: invalid LMC for lmc: ${Q}9${Q} (expected 0..7)" &&
	expect_fail 2 ibsim -q --net ib --ib path=foo "$SEED/ib/perm32.goal" &&
	expect_err "ibsim: invalid path selection for path: ${Q}foo${Q} (expected static, random[:SEED], rr, adaptive or adaptive-credits)" &&
	expect_fail 2 ibsim -q --net ib --ib path_unit=flit "$SEED/ib/perm32.goal" &&
	expect_err "ibsim: invalid path unit for path_unit: ${Q}flit${Q} (expected message or packet)" &&
	expect_fail 1 ibsim -q --net ib --topo torus:4x4 --routing dor --ib vls=2 --ib lmc=1 "$SEED/ib/perm32.goal" &&
	expect_err "ibsim: lmc = 1 needs routing minhop, updn or ftree (routing ${Q}dor${Q} gives one path per destination)" &&
	expect_fail 1 ibsim -q --net ib --topo fattree2:8 --ib lmc=1 --dump-lft x.lfts "$SEED/ib/perm32.goal" &&
	expect_err "ibsim: dump_lft writes one LID per port; it cannot write the tables of lmc = 1"
'
test_expect_success 'lmc in a params file' '
	printf "lmc = 2\npath = rr\npath_unit = packet\n" >mp.params &&
	run -p mp.params >pf.tsv && test_cmp rr.tsv pf.tsv
'
test_done
