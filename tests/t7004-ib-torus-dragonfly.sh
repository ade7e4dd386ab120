#!/bin/sh
# ibsim --net ib on the torus, mesh and dragonfly generators with their
# routings (dor, minimal, valiant, ugal, ugal-g): single-packet latencies against the
# model's formula (docs/ib-model.md section 4, check 1: over S switches on
# equal links, d + S (lat + d) + ser(W), plus o at each end), link classes
# (local_* and global_* keys), schedules that finish with the routings' VLs
# and single-packet buffers where minhop deadlocks, and every error.
# Defaults: 4xDDR (500 ps/byte), d = 5 ns, lat = 100 ns, o = 1500 ps.
. "$(dirname "$0")/lib.sh"

ends() { awk -F'\t' 'NR > 2 { printf "%s%s:%s", s, $1, $2; s = " " } END { print "" }' "$1"; }

cat >ping.goal <<'EOF'
num_ranks 2
rank 0 {
send 100b to 1
}
rank 1 {
recv 100b from 0
}
EOF

# torus:4x4: host 13 is on s13 = (1, 3): one hop in x, one in y the short way
# round (over the wrap-around link): 3 switches, 5000 + 3 x 105000 + 63000 + 2 o.
test_expect_success 'torus:4x4 dor: 3 switches to (1,3), 386000 ps' '
	printf "0\n13\n" >pl13 &&
	ibsim -q --net ib --topo torus:4x4 --routing dor --ib vls=2 --placement pl13 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:386000"
'
test_expect_success 'torus:4x4 dor: (3,0) is one hop back over the wrap-around link, 281000 ps' '
	printf "0\n3\n" >pl3 &&
	ibsim -q --net ib --topo torus:4x4 --routing dor --ib vls=2 --placement pl3 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:281000"
'
test_expect_success 'torus:4x4x4,h=2: host 127 on s63 = (3,3,3), 3 wrap hops: 491000 ps' '
	printf "0\n127\n" >pl127 &&
	ibsim -q --net ib --topo torus:4x4x4,h=2 --routing dor --ib vls=2 --placement pl127 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:491000"
'
test_expect_success 'mesh:4x4 dor needs one VL: (3,0) is 3 hops, 4 switches, 491000 ps' '
	ibsim -q --net ib --topo mesh:4x4 --routing dor --placement pl3 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:491000"
'

# dragonfly:4,2,2 (9 groups of 4 routers, 2 hosts each): h0 on g0r0, whose
# global port 6 reaches g1r3 (port 7), where h14 is: 2 routers, the global
# link d_g: 5000 + 2 x 100000 + d_g + 5000 + 63000 + 2 o.
test_expect_success 'dragonfly minimal: global_delay on the global hop (1276000 ps with 1us)' '
	printf "0\n14\n" >pl14 &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing minimal --ib vls=2 --ib global_delay=1us \
		--ib global_link=4xEDR --linkstats ls.tsv --placement pl14 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:1276000" &&
	grep -q "^g0r0	6	g1r3	7	4xEDR	126	1	10080	0$" ls.tsv &&
	grep -q "^h0	1	g0r0	1	4xDDR	126	1	63000	0$" ls.tsv
'
test_expect_success 'dragonfly minimal: local_delay on a hop inside the group (326000 ps with 50ns)' '
	printf "0\n2\n" >pl2 &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing minimal --ib vls=2 --ib local_delay=50ns \
		--placement pl2 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:326000"
'
# h30 is on g3r3; the link from g0 to g3 leaves g0r1 and lands on g3r2:
# local, global, local: 4 routers, 5000 + 4 x 105000 + 63000 + 2 o.
test_expect_success 'dragonfly minimal: local-global-local is 4 routers (491000 ps); ugal at idle takes it too' '
	printf "0\n30\n" >pl30 &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing minimal --ib vls=2 --placement pl30 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:491000" &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing ugal --ib vls=3 --placement pl30 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:491000"
'
test_expect_success 'dragonfly valiant: by way of another group, 6 routers (701000 ps), the same each run' '
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing valiant --ib vls=3 --placement pl30 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:701000" &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing valiant --ib vls=3 --placement pl30 ping.goal >res2 &&
	test_cmp res res2
'

# Nearest neighbour on torus:4x4x4: each rank sends 64 KiB to its 6
# neighbours and receives 6. Each host injects 6 x 32 packets of 2074 bytes
# at 500 ps/byte: 199104000 ps at least; the exchange ends within 15 % of it.
test_expect_success 'nearest-neighbour exchange on torus:4x4x4 with dor finishes near the injection bound' '
	awk -v k=4 -v sz=65536 "BEGIN {
		n = k * k * k; print \"num_ranks \" n
		for (r = 0; r < n; r++) {
			print \"rank \" r \" {\"
			c[0] = r % k; c[1] = int(r / k) % k; c[2] = int(r / k / k)
			for (d = 0; d < 3; d++) {
				s = (d == 0) ? 1 : (d == 1) ? k : k * k
				up = r - c[d] * s + ((c[d] + 1) % k) * s
				dn = r - c[d] * s + ((c[d] + k - 1) % k) * s
				print \"send \" sz \"b to \" up \" tag \" d
				print \"send \" sz \"b to \" dn \" tag \" (d + 3)
				print \"recv \" sz \"b from \" dn \" tag \" d
				print \"recv \" sz \"b from \" up \" tag \" (d + 3)
			}
			print \"}\"
		}
	}" >nn.goal &&
	ibsim -q --net ib --topo torus:4x4x4 --routing dor --ib vls=2 --ib buffer=33 --ib host_buffer=33 nn.goal >res &&
	awk -F"\t" "NR > 2 { n++; if (\$2 > m) m = \$2 } END { exit !(n == 64 && m >= 199104000 && m <= 199104000 * 1.15) }" res
'

test_expect_success 'all-to-all on torus:4x4x4 with single-packet buffers: minhop deadlocks, dor finishes' '
	goalgen alltoall 64 --size 4K >a64.goal &&
	expect_fail 1 ibsim -q --net ib --topo torus:4x4x4 --ib buffer=33 --ib host_buffer=33 a64.goal &&
	grep -q "^ibsim: fabric deadlock at [0-9]* ps: [0-9]* packets cannot move; cycle of full input buffers: s" err &&
	ibsim -q --net ib --topo torus:4x4x4 --routing dor --ib vls=2 --ib buffer=33 --ib host_buffer=33 a64.goal >res &&
	test "$(awk -F"\t" "NR > 2" res | wc -l)" = 64 &&
	ibsim -q --net ib --topo torus:4x4x4 --routing dor --ib vls=4 --ib buffer=33 --ib host_buffer=33 a64.goal >res4 &&
	test "$(awk -F"\t" "NR > 2" res4 | wc -l)" = 64
'
test_expect_success 'all-to-all on dragonfly:4,2,2 with single-packet buffers: minimal, valiant, ugal, ugal-g finish' '
	for r in minimal:2 valiant:3 ugal:3 ugal:6 ugal-g:3; do
		ibsim -q --net ib --topo dragonfly:4,2,2 --routing ${r%:*} --ib vls=${r#*:} --ib buffer=33 \
			--ib host_buffer=33 a64.goal >$r.res &&
		test "$(awk -F"\t" "NR > 2" $r.res | wc -l)" = 64 || return 1
	done &&
	# --stats: ugal sends some messages by way of another group, minimal none
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing ugal --ib vls=3 --ib buffer=33 --ib host_buffer=33 \
		--stats ug.st a64.goal >/dev/null &&
	n=$(awk -F"\t" "\$1 == \"nonminimal\" { print \$2 }" ug.st) &&
	test "$n" -gt 0 && test "$n" -lt 4032 &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing ugal-g --ib vls=3 --ib buffer=33 --ib host_buffer=33 \
		--stats ugg.st a64.goal >/dev/null &&
	n=$(awk -F"\t" "\$1 == \"nonminimal\" { print \$2 }" ugg.st) &&
	test "$n" -gt 0 && test "$n" -lt 4032 &&
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing minimal --ib vls=2 --stats mi.st a64.goal >/dev/null &&
	grep -qx "nonminimal	0" mi.st
'
test_expect_success 'ugal keeps MPI order: messages of one pair, some by way of another group, match in send order' '
	{
		echo "num_ranks 64"
		for r in $(seq 0 63); do
			echo "rank $r {"
			if [ $r -lt 32 ]; then
				for i in 1 2 3 4 5 6; do echo "send 20000b to $((r + 32)) tag 5"; echo "send 100b to $((r + 32)) tag 5"; done
			else
				for i in 1 2 3 4 5 6; do echo "r$i: recv 20000b from $((r - 32)) tag 5"; echo "s$i: recv 100b from $((r - 32)) tag 5"; done
			fi
			echo "}"
		done
	} >ord.goal &&
	# a message that overtook one of its pair would match the wrong receive: ibsim warns
	ibsim -q --net ib --topo dragonfly:4,2,2 --routing ugal --ib vls=3 --stats ord.st ord.goal >ord.tsv 2>ord.err &&
	! test -s ord.err &&
	test "$(awk -F"\t" "\$1 == \"nonminimal\" { print \$2 }" ord.st)" -gt 0 &&
	test "$(awk -F"\t" "NR > 2" ord.tsv | wc -l)" = 64
'

# The adversarial pattern of dragonflies: every host of group G sends to the
# matching host of group G+1 (64 messages of 4 KiB, one each 4 us). Minimal
# routing puts a group's 8 flows on its one global link to the next group:
# 8 x 256 KiB x 500 ps/B = 1048576000 ps at least. Valiant spreads them over
# other groups (per host pair, so unevenly); UGAL chooses per message by the
# queues it sees and does better still.
test_expect_success 'dragonfly adversarial shift: minimal bound by one global link; valiant, ugal, ugal-g faster' '
	awk -v H=72 -v P=8 -v n=64 -v sz=4096 -v c=4000000 "BEGIN {
		print \"num_ranks \" H
		for (r = 0; r < H; r++) {
			d = (r + P) % H; s = (r - P + H) % H
			print \"rank \" r \" {\"
			for (i = 0; i < n; i++) {
				print \"s\" i \": send \" sz \"b to \" d \" tag \" i
				print \"r\" i \": recv \" sz \"b from \" s \" tag \" i
				if (i > 0) {
					print \"c\" i \": calc \" c
					print \"c\" i \" requires c\" (i - 1)
					print \"s\" i \" requires c\" i
				} else print \"c0: calc 0\"
			}
			print \"}\"
		}
	}" >adv.goal &&
	for r in minimal:2 valiant:3 ugal:3 ugal-g:3; do
		ibsim -q --net ib --topo dragonfly:4,2,2 --routing ${r%:*} --ib vls=${r#*:} adv.goal >adv.$r || return 1
		awk -F"\t" "NR > 2 && \$2 > m { m = \$2 } END { print m }" adv.$r >end.$r
	done &&
	min=$(cat end.minimal:2) && val=$(cat end.valiant:3) && ug=$(cat end.ugal:3) && ugg=$(cat end.ugal-g:3) &&
	test $min -ge 1048576000 && test $min -le $((1048576000 * 102 / 100)) &&
	test $val -lt $((min * 90 / 100)) &&
	test $ug -lt $((min * 75 / 100)) && test $ugg -lt $((min * 75 / 100))
'

test_expect_success 'help lists the generators, routings and link-class keys' '
	ibsim --help >h &&
	grep -q "torus:AxB" h && grep -q "dragonfly:a,p,h" h && grep -q "dor" h && grep -q "ugal" h &&
	grep -q "^  global_delay" h && grep -q "^  local_link" h
'

test_expect_success 'bad torus and dragonfly specs: one line, exit 1' '
	for s in torus: torus:1x4 torus:4xx4 mesh:4x4,h=0; do
		expect_fail 1 ibsim -q --net ib --topo $s ping.goal &&
		k=${s%%:*} &&
		expect_err "ibsim: invalid $k '"'"'$s'"'"' (expected $k:AxB... with 1 to 16 sizes 2..100000, optionally ,h=N hosts per switch)" &&
		test $(wc -l <err) = 1 || return 1
	done &&
	expect_fail 1 ibsim -q --net ib --topo dragonfly:0,1,1 ping.goal &&
	expect_err "ibsim: invalid dragonfly '"'"'dragonfly:0,1,1'"'"' (expected dragonfly:a,p,h[,g], each 1..100000: a routers per group, p hosts per router, h global links per router, g groups)" &&
	expect_fail 1 ibsim -q --net ib --topo dragonfly:4,2,2,10 ping.goal &&
	expect_err "ibsim: dragonfly:4,2,2,10: 10 groups, but a group has a*h = 8 global links (at most a*h+1 = 9 groups)"
'
test_expect_success 'fabrics beyond the LID space are refused before they are built' '
	expect_fail 1 ibsim -q --net ib --topo torus:100x100x100 ping.goal &&
	expect_err "ibsim: torus:100x100x100: 2000000 hosts and switches do not fit in 49151 unicast LIDs" &&
	expect_fail 1 ibsim -q --net ib --topo dragonfly:32,16,16 ping.goal &&
	expect_err "ibsim: dragonfly:32,16,16: 279072 hosts and switches do not fit in 49151 unicast LIDs"
'
test_expect_success 'a routing on the wrong topology, or with too few VLs' '
	expect_fail 1 ibsim -q --net ib --topo fattree2:4 --routing dor ping.goal &&
	expect_err "ibsim: routing dor needs a torus:AxB... or mesh:AxB... generated topology" &&
	expect_fail 1 ibsim -q --net ib --topo torus:4x4 --routing valiant ping.goal &&
	expect_err "ibsim: routing valiant needs a dragonfly:a,p,h[,g] generated topology" &&
	expect_fail 1 ibsim -q --net ib --topo torus:4x4 --routing dor ping.goal &&
	expect_err "ibsim: routing dor on '"'"'torus:4x4'"'"' needs 2 VLs to be deadlock-free (vls = 1; set vls=2)" &&
	expect_fail 1 ibsim -q --net ib --topo dragonfly:2,1,1 --routing ugal --ib vls=2 ping.goal &&
	expect_err "ibsim: routing ugal on '"'"'dragonfly:2,1,1'"'"' needs 3 VLs to be deadlock-free (vls = 2; set vls=3)"
'
test_expect_success 'bad link-class values are usage errors' '
	expect_fail 2 ibsim -q --net ib --ib global_link=4xXDR ping.goal &&
	grep -q "invalid link for global_link: '"'"'4xXDR'"'"'" err &&
	expect_fail 2 ibsim -q --net ib --ib local_delay=soon ping.goal
'

test_done
