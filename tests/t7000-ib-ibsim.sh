#!/bin/sh
# ibsim --net ib end to end: the InfiniBand model behind the engine, its
# topology sources (generators, own format, ibnetdiscover), routing and LFT
# dumps, link statistics, deadlock reports and every configuration error.
# Defaults (docs/ib-model.md): 4xDDR (500 ps/byte), d = 5 ns per link,
# switch latency 100 ns, MTU 2048, o = 1500 ps (LogGOPSim's default).
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

# One packet of 126 wire bytes on star:2: enters the fabric at o = 1500;
# arrives after d + lat + d + ser(126) = 5000 + 100000 + 5000 + 63000; the
# receiver is charged o: 1500 + 173000 + 1500 = 176000.
test_expect_success 'ping on star:2 ends at o + 2d + lat + ser(126) + o' '
	ibsim -q --net ib --topo star:2 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:176000"
'

test_expect_success 'linkstats: one packet on each hop, busy ser(126) = 63 ns' '
	ibsim -q --net ib --topo star:2 --linkstats ls.tsv ping.goal >/dev/null &&
	head -1 ls.tsv >hdr &&
	printf "from\tport\tto\tport\tlink\tbytes\tpackets\tbusy_ps\tstall_ps\n" >hdr.want &&
	test_cmp hdr.want hdr &&
	grep -qx "h0	1	s0	1	4xDDR	126	1	63000	0" ls.tsv &&
	grep -qx "s0	2	h1	1	4xDDR	126	1	63000	0" ls.tsv
'

# The same on a faster link: 4xQDR halves the serialization (31500 ps).
test_expect_success '--link 4xQDR halves the serialization' '
	ibsim -q --net ib --topo star:2 --link 4xQDR ping.goal >res &&
	test "$(ends res)" = "0:1500 1:144500"
'

# chain:3: 4 links, 3 switches: 4d + 3 lat + ser(126) = 383000, + 2o.
test_expect_success 'chain:3 adds a switch latency and a link per switch' '
	ibsim -q --net ib --topo chain:3 ping.goal >res &&
	test "$(ends res)" = "0:1500 1:386000"
'

test_expect_success 'own topology file with a per-link speed' '
	cat >t.topo <<-EOF &&
	# ibreplay topology 1
	host a
	host b
	switch s 2
	link a:1 s:1 1xSDR
	link s:2 b:1
	EOF
	ibsim -q --net ib --topo t.topo ping.goal >res &&
	test "$(ends res)" = "0:1500 1:517000"
'

test_expect_success 'ibnetdiscover output as topology, with discovered LIDs' '
	goalgen dissemination 8 --size 180 >d8.goal &&
	ibsim -q --net ib --topo "$SEED/ib/cluster.ibnd" --ib dump_lft=lft.txt d8.goal >res &&
	test "$(awk -F"\t" "NR > 2" res | wc -l)" = 8 &&
	grep -q "^Unicast lids \[0x0-0xb\] of switch Lid 3 guid 0x0002c902004b0a10" lft.txt
'

test_expect_success 'LFT dump read back gives identical results (minhop, updn, ftree)' '
	goalgen alltoall 16 --size 4K >a2a.goal &&
	for r in minhop updn ftree; do
		ibsim -q --net ib --topo fattree3:4 --routing $r --ib dump_lft=$r.lft a2a.goal >$r.res &&
		ibsim -q --net ib --topo fattree3:4 --routing lft:$r.lft a2a.goal >$r.res2 &&
		tail -n +2 $r.res >a && tail -n +2 $r.res2 >b && test_cmp a b || return 1
	done
'

test_expect_success 'routing engines differ on a fat tree under load, all finish' '
	ibsim -q --net ib --topo fattree3:4 --routing ftree a2a.goal >f &&
	ibsim -q --net ib --topo fattree3:4 --routing updn a2a.goal >u &&
	test "$(awk -F"\t" "NR > 2" f | wc -l)" = 16 &&
	test "$(awk -F"\t" "NR > 2" u | wc -l)" = 16
'

test_expect_success 'placement: a file puts two ranks on one host (loopback)' '
	printf "h1\nh1\n" >pl &&
	ibsim -q --net ib --topo star:2 --placement pl ping.goal >res &&
	test "$(ends res)" = "0:1500 1:28000"
'

test_expect_success 'random placement is reproducible by seed' '
	ibsim -q --net ib --topo fattree2:4 --placement random:3 d8.goal | tail -n +2 >r1 &&
	ibsim -q --net ib --topo fattree2:4 --placement random:3 d8.goal | tail -n +2 >r2 &&
	test_cmp r1 r2
'

# Every host sends 1 MiB to the host two switches on: with minhop all routes
# turn the same way round the ring, and 1-packet buffers fill in a cycle.
test_expect_success 'a cyclic minhop ring deadlocks: exit 1, the cycle of buffers named' '
	expect_fail 1 ibsim -q --net ib --topo ring:5 --ib buffer=33 --ib host_buffer=33 "$SEED/ib/ring5-1m.goal" &&
	grep -q "^ibsim: fabric deadlock at [0-9]* ps: 10 packets cannot move; cycle of full input buffers: s1 port 3 vl 0 -> s2 port 3 vl 0 -> s3 port 3 vl 0 -> s4 port 3 vl 0 -> s0 port 3 vl 0 -> s1 port 3 vl 0$" err
'

test_expect_success 'the same ring with updn finishes' '
	ibsim -q --net ib --topo ring:5 --routing updn --ib buffer=33 --ib host_buffer=33 "$SEED/ib/ring5-1m.goal" >res &&
	test "$(awk -F"\t" "NR > 2" res | wc -l)" = 5
'

test_expect_success 'rendezvous: RTS and CTS cross the fabric; loggopsim sends at once' '
	goalgen pingpong 2 --size 100000 --reps 1 >rv.goal &&
	ibsim -q --net ib --topo star:2 rv.goal >fab &&
	ibsim -q --net ib --topo star:2 --rndv loggopsim rv.goal >lg &&
	ibsim -q --net ib --topo star:2 --ib rndv=loggopsim rv.goal >lg2 &&
	sed 1d lg >lg.rows && sed 1d lg2 >lg2.rows && test_cmp lg.rows lg2.rows &&
	a=$(awk -F"\t" "NR == 3 { print \$2 }" fab) &&
	b=$(awk -F"\t" "NR == 3 { print \$2 }" lg) &&
	# two messages, each with an RTS and a CTS crossing the fabric: 2 x 2 x (2d + lat + ser(26))
	# = 4 x 123000; the engine matches the RTS, so the receiver pays its o when the RTS
	# arrives, overlapping the data transfer, instead of after the data: 2 x -1500
	test $((a - b)) = 489000
'

test_expect_success 'rendezvous: the send completes one unloaded path after the receive (the acknowledgement)' '
	printf "num_ranks 2\nrank 0 {\nsend 100000b to 1\n}\nrank 1 {\nrecv 100000b from 0\n}\n" >ack2.goal &&
	ibsim -q --net ib --topo star:2 ack2.goal >a2 &&
	s=$(awk -F"\t" "\$1 == 0 { print \$2 }" a2) && r=$(awk -F"\t" "\$1 == 1 { print \$2 }" a2) &&
	# host, switch, host: 2 d + lat + ser(26 bytes at 500 ps) = 10000 + 100000 + 13000
	test $((s - r)) = 123000 &&
	{ echo "num_ranks 8"; printf "rank 0 {\nsend 100000b to 7\n}\n";
	  for i in 1 2 3 4 5 6; do printf "rank %s {\n}\n" $i; done; printf "rank 7 {\nrecv 100000b from 0\n}\n"; } >ack8.goal &&
	ibsim -q --net ib --topo fattree2:4 ack8.goal >a8 &&
	s=$(awk -F"\t" "\$1 == 0 { print \$2 }" a8) && r=$(awk -F"\t" "\$1 == 7 { print \$2 }" a8) &&
	# leaf 0, a spine, leaf 3: 4 d + 3 lat + ser(26) = 20000 + 300000 + 13000
	test $((s - r)) = 333000 &&
	# rndv=loggopsim: no acknowledgement; the send completes at the match, before the
	# receiver has paid its o (LogGOPSim)
	ibsim -q --net ib --topo star:2 --rndv loggopsim ack2.goal >l2 &&
	s=$(awk -F"\t" "\$1 == 0 { print \$2 }" l2) && r=$(awk -F"\t" "\$1 == 1 { print \$2 }" l2) &&
	test $((r - s)) = 1500
'

test_expect_success 'help lists the ib keys with their defaults' '
	ibsim --help >h &&
	grep -q "^  switch_latency  100ns" h &&
	grep -q "^  link            4xDDR" h &&
	grep -q "^  mtu             2048" h
'

test_expect_success 'bad topology generator' '
	expect_fail 1 ibsim -q --net ib --topo fattree2:5 ping.goal &&
	expect_err "ibsim: fattree2: K must be even, 2..254 (found 5)"
'
test_expect_success 'topology file errors name file and line' '
	printf "host a\nswitch s 2\nlink a:1 s:3\n" >bad.topo &&
	expect_fail 1 ibsim -q --net ib --topo bad.topo ping.goal &&
	expect_err "ibsim: bad.topo:3: invalid port '"'"'3'"'"' of '"'"'s'"'"' (expected 1..2)"
'
test_expect_success 'too many ranks for the hosts' '
	expect_fail 1 ibsim -q --net ib --topo star:1 ping.goal &&
	expect_err "ibsim: 2 ranks do not fit on the 1 hosts of topology '"'"'star:1'"'"' (give a placement file to put several ranks on a host)"
'
test_expect_success 'bad link speed is a usage error' '
	expect_fail 2 ibsim -q --net ib --link 4xXDR ping.goal &&
	grep -q "invalid link for link: '"'"'4xXDR'"'"'" err
'
test_expect_success 'unknown ib key is a usage error' '
	expect_fail 2 ibsim -q --net ib --ib colour=red ping.goal &&
	expect_err "ibsim: unknown ib parameter '"'"'colour'"'"'"
'
test_expect_success 'an LFT file with a loop is refused before the run' '
	ibsim -q --net ib --topo chain:2 --ib dump_lft=c.lft ping.goal >/dev/null &&
	sed "/of switch Lid 4 /,\$ s/^0x0002 002/0x0002 001/" c.lft >loop.lft &&
	expect_fail 1 ibsim -q --net ib --topo chain:2 --routing lft:loop.lft ping.goal &&
	expect_err "ibsim: routes to '"'"'h1'"'"' (LID 2): switch '"'"'s0'"'"' has a routing loop (entry 2)"
'
test_expect_success 'placement file errors' '
	printf "h0\nnowhere\n" >pl2 &&
	expect_fail 1 ibsim -q --net ib --topo star:2 --placement pl2 ping.goal &&
	expect_err "ibsim: pl2:2: rank 1: expected a host name or index 0..1, found '"'"'nowhere'"'"'"
'
test_expect_success 'messages of one pair are matched in send order (no overtaking)' '
	cat >ovt.goal <<-\EOF &&
	num_ranks 2
	rank 0 {
	big: send 20000b to 1 tag 5
	small: send 100b to 1 tag 5
	}
	rank 1 {
	r1: recv 20000b from 0 tag 5
	r2: recv 100b from 0 tag 5
	r2 requires r1
	}
	EOF
	# the host interleaves the packets of both messages, so the 100-byte one is
	# drained first; it must still wait for the first and match the second receive
	ibsim -q --net ib --topo star:2 --msglog ovt.log ovt.goal >ovt.tsv 2>ovt.err &&
	! test -s ovt.err &&
	awk -F"\t" "\$1 == 0 { a0 = \$7; r0 = \$11 } \$1 == 1 { a1 = \$7; r1 = \$11 }
		END { exit !(r0 == 0 && r1 == 1 && a1 >= a0) }" ovt.log
'

test_expect_success '--dump-lft writes tables that --routing lft: reads back to the same results' '
	goalgen alltoall 8 --size 4K >a2a.goal &&
	ibsim -q --net ib --topo fattree2:4 --routing updn --dump-lft updn.lft a2a.goal >direct.tsv &&
	grep -q "^Unicast lids" updn.lft &&
	ibsim -q --net ib --topo fattree2:4 --routing lft:updn.lft a2a.goal >fromfile.tsv &&
	sed 1d direct.tsv >d && sed 1d fromfile.tsv >f &&
	test_cmp d f
'

test_done
