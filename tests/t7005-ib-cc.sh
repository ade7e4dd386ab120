#!/bin/sh
# ibsim --net ib with congestion control (cc=on, docs/ib-model.md section 8):
# the classic hot-spot experiment (contributors to one host and a victim flow
# sharing a link with them), cc off leaving results as they were, and the
# parameter errors; service levels, the SL-to-VL table and VL arbitration's
# high-priority table (section 9). The unit points (marks, notifications, the timer's
# recovery of the CCT index) are in tests/unit/u-ib.c.
# Defaults: 4xDDR (500 ps/byte), MTU 2048 (a packet 2074 bytes, 1037000 ps on
# a link), one VL, 128-block buffers (three full packets).
. "$(dirname "$0")/lib.sh"

Q=$(printf "\047")

ends() { awk -F'\t' 'NR > 2 { printf "%s%s:%s", s, $1, $2; s = " " } END { print "" }' "$1"; }
end_of() { awk -F'\t' -v r="$2" 'NR > 2 && $1 == r { print $2 }' "$1"; }

# Two switches: s0 holds contributors c0..c2 and the victim's source vs, s1
# holds contributors c3..c6, the hot spot and the victim's destination vd;
# s0 port 5 to s1 port 1 is the shared link.
cat >hs.topo <<'EOF2'
# ibreplay topology 1
host c0
host c1
host c2
host vs
host c3
host c4
host c5
host c6
host hot
host vd
switch s0 5
switch s1 8
link c0:1 s0:1
link c1:1 s0:2
link c2:1 s0:3
link vs:1 s0:4
link s0:5 s1:1
link c3:1 s1:2
link c4:1 s1:3
link c5:1 s1:4
link c6:1 s1:5
link hot:1 s1:6
link s1:7 vd:1
EOF2

# Ranks 0-2 and 4-7 (the contributors) send 2 MiB each to rank 8 (the hot
# spot) from time 0; rank 3 (the victim) sends 256 KiB to rank 9 after 2 ms,
# when the hot spot has long been under way (the contributors need 7 ms).
{
	echo "num_ranks 10"
	for r in 0 1 2 4 5 6 7; do printf "rank %s {\nsend 2097152b to 8\n}\n" $r; done
	printf "rank 3 {\nc: calc 2000000000\ns: send 262144b to 9\ns requires c\n}\n"
	printf "rank 8 {\n"
	for r in 0 1 2 4 5 6 7; do printf "recv 2097152b from %s\n" $r; done
	printf "}\nrank 9 {\nrecv 262144b from 3\n}\n"
} >hs.goal

# The victim alone: 128 packets of 1037000 ps back to back, T = 132736000 ps.
T=132736000

# Without congestion control the hot spot link s1 -> hot is shared round-robin
# by s1 inputs 1..5, so the input from s0 drains at 1/5 of a link; its FIFO
# holds the victim packets behind hot-spot packets, which s0 sent 3 to each
# victim packet (its round-robin over 4 inputs): the victim gets 1/15 of a
# link, 256 KiB takes 15 T. Margin 5 % for the arbitration phases.
test_expect_success 'hot spot without cc: the victim flow collapses to 1/15 of its link' '
	ibsim -q --net ib --topo hs.topo --linkstats off.ls hs.goal >off &&
	v=$(( $(end_of off 9) - 2000000000 - 1500 )) &&
	echo "victim $v ps, alone $T" &&
	test $((v * 100)) -ge $((15 * T * 95)) &&
	test $((v * 100)) -le $((15 * T * 105))
'

# With cc the contributors are throttled at their sources and the victim
# must do better than the whole s0 input did without cc (1/5 of a link: 5 T),
# and no better than alone (T).
test_expect_success 'hot spot with cc: the victim recovers above 1/5 of its link' '
	ibsim -q --net ib --topo hs.topo --ib cc=on --stats on.st --linkstats on.ls hs.goal >on &&
	v=$(( $(end_of on 9) - 2000000000 - 1500 )) &&
	echo "victim $v ps, alone $T" &&
	test $v -lt $((5 * T)) &&
	test $v -gt $T &&
	grep -q "^fecn	[1-9]" on.st &&
	grep -q "^becn	[1-9]" on.st
'

# The hot spot link carries 7 x 2 MiB either way (14 MiB in 7175 packets:
# 7440475000 ps of serialization); cc may leave it idle while the indices
# fall again, which costs the contributors time: within 20 % of the bound.
test_expect_success 'with cc the hot spot link still carries everything, within 20 % of its bound' '
	grep -q "^s1	6	hot	1	4xDDR	14866614	7175	" on.ls &&
	e=$(end_of on 8) &&
	test $e -le $((7440475000 * 120 / 100))
'

test_expect_success 'cc runs repeat to the byte' '
	ibsim -q --net ib --topo hs.topo --ib cc=on --msglog m1 hs.goal >r1 &&
	ibsim -q --net ib --topo hs.topo --ib cc=on --msglog m2 hs.goal >r2 &&
	test_cmp r1 r2 && test_cmp m1 m2 && test_cmp on r1
'

# A run whose queues never pass the threshold marks nothing: cc=on changes no
# time, and cc=off is the default.
test_expect_success 'cc off is the default; cc on without congestion changes nothing' '
	goalgen alltoall 8 --size 4K >a2a.goal &&
	ibsim -q --net ib --topo fattree2:4 a2a.goal >def &&
	ibsim -q --net ib --topo fattree2:4 --ib cc=off a2a.goal >off2 &&
	test_cmp def off2 &&
	printf "num_ranks 2\nrank 0 {\nsend 100b to 1\n}\nrank 1 {\nrecv 100b from 0\n}\n" >ping.goal &&
	ibsim -q --net ib --topo star:2 --ib cc=on --stats p.st ping.goal >p &&
	test "$(ends p)" = "0:1500 1:176000" &&
	! grep -q "^fecn" p.st
'

test_expect_success 'cc keys are params-file keys' '
	printf "net = ib\ntopo = hs.topo\ncc = on\n" >cc.params &&
	ibsim -q -p cc.params hs.goal >pf &&
	tail -n +2 pf >a && tail -n +2 on >b && test_cmp b a
'

test_expect_success 'help lists the cc keys with their defaults' '
	ibsim --help >h &&
	grep -q "^  cc              off " h &&
	grep -q "^  cc_threshold    0.5 " h &&
	grep -q "^  cc_marking_rate 1 " h &&
	grep -q "^  cc_timer        10us " h &&
	grep -q "^  cc_increase     1 " h &&
	grep -q "^  cc_limit        127 " h &&
	grep -q "^  cc_cct          linear:100ns " h
'

test_expect_success 'bad cc values are usage errors naming key and value' '
	expect_fail 2 ibsim -q --net ib --ib cc=maybe ping.goal &&
	expect_err "ibsim: invalid congestion control for cc: ${Q}maybe${Q} (expected on or off)" &&
	expect_fail 2 ibsim -q --net ib --ib cc_threshold=0 ping.goal &&
	expect_err "ibsim: invalid fraction for cc_threshold: ${Q}0${Q} (expected a number in (0, 1])" &&
	expect_fail 2 ibsim -q --net ib --ib cc_threshold=1.5 ping.goal &&
	expect_err "ibsim: invalid fraction for cc_threshold: ${Q}1.5${Q} (expected a number in (0, 1])" &&
	expect_fail 2 ibsim -q --net ib --ib cc_marking_rate=0 ping.goal &&
	grep -q "cc_marking_rate" err &&
	expect_fail 2 ibsim -q --net ib --ib cc_timer=0 ping.goal &&
	expect_err "ibsim: invalid time for cc_timer: ${Q}0${Q} (expected a period above 0)" &&
	expect_fail 2 ibsim -q --net ib --ib cc_limit=256 ping.goal &&
	grep -q "cc_limit" err &&
	for v in linear: linear:1us:1 linear:1us:257 5ns 2us,1us x,y; do
		expect_fail 2 ibsim -q --net ib --ib cc_cct=$v ping.goal &&
		expect_err "ibsim: invalid congestion control table for cc_cct: ${Q}$v${Q} (expected linear:STEP[:N] with N 2..256, or 2 to 256 non-decreasing comma-separated delays)" || return 1
	done
'

test_expect_success 'cc_limit past the table fails when the fabric is built' '
	expect_fail 1 ibsim -q --net ib --topo star:2 --ib cc=on --ib cc_cct=linear:1us:16 ping.goal &&
	expect_err "ibsim: cc_limit 127 is past the last index of the congestion control table (cc_cct has 16 entries)" &&
	ibsim -q --net ib --topo star:2 --ib cc=on --ib cc_cct=0,1us,3us --ib cc_limit=2 ping.goal >l &&
	test "$(ends l)" = "0:1500 1:176000"
'

test_expect_success 'a bad cc key in a params file names the file and line' '
	printf "net = ib\ncc_timer = 0\n" >bad.params &&
	expect_fail 1 ibsim -q -p bad.params ping.goal &&
	grep -q "bad.params:2" err &&
	grep -q "cc_timer" err
'

# ---- service levels and VL arbitration (docs/ib-model.md section 9) ----

# Two 1 MiB flows into h2 of star:3 with vls=2: by default (sl=hash) 0->2 has
# SL (0+2) mod 2 = 0 on VL 0 and 1->2 SL 1 on VL 1; the output to h2 serves
# the VLs in turn and both end together, after 1024 packets of 1037000 ps.
# Rendezvous: the data leaves after the handshake (2 x 123000 ps, d + lat + d
# + ser(26) each), so a flow alone ends at 512 x 1037000 + 2 x 123000 +
# 1037000 + 5000 + 5000 + 100000 (its last packet behind the others: the
# cut-through latency of one packet) = 532338000; + o = 532339500.
cat >two.goal <<'EOF2'
num_ranks 3
rank 0 {
send 1048576b to 2
}
rank 1 {
send 1048576b to 2
}
rank 2 {
recv 1048576b from 0
recv 1048576b from 1
}
EOF2
arr() { awk -F'\t' -v s="$2" 'NR > 2 && $2 == s { print $7 }' "$1"; }

test_expect_success 'default SL and SL-to-VL tables give the results of before' '
	ibsim -q --net ib --topo star:3 --ib vls=2 --msglog d.log two.goal >d &&
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib sl=hash --ib sl2vl=0,1 --msglog e.log two.goal >e &&
	test_cmp d e && test_cmp d.log e.log &&
	test "$(arr d.log 0)" = 1061208500 && test "$(arr d.log 1)" = 1062245500
'

test_expect_success 'a high-priority VL without limit runs as if alone' '
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib vlarb_high=0,1 --ib vlarb_high_limit=255 --msglog h.log two.goal >/dev/null &&
	test "$(arr h.log 1)" = 532338500 &&
	test "$(arr h.log 0)" = 1062245500
'

# Limit 4: four high-priority packets, then one low: the high VL's 512
# packets go in 128 groups of 4 with a low-priority packet between groups,
# 127 of them before its last: 127 x 1037000 later than alone.
test_expect_success 'the high-priority limit lets a low-priority packet pass every 4' '
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib vlarb_high=0,1 --msglog l.log two.goal >/dev/null &&
	test "$(arr l.log 1)" = $((532338500 + 127 * 1037000)) &&
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib vlarb_high=0,1 --ib vlarb_high_limit=1 --msglog l1.log two.goal >/dev/null &&
	test_cmp d.log l1.log
'

# Swapped, 0->2 is on the high-priority VL: it ends as alone, or one packet
# time sooner (which flow's first packet leads depends on the handshakes).
test_expect_success 'the SL-to-VL table moves an SL to the high-priority VL' '
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib sl2vl=1,0 --ib vlarb_high=0,1 --ib vlarb_high_limit=255 --msglog s.log two.goal >/dev/null &&
	a=$(arr s.log 0) &&
	test $a -le 532338500 && test $a -ge $((532338500 - 1037000)) &&
	test "$(arr s.log 1)" = 1062245500 &&
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib sl=0 --ib vlarb_high=0,1 --msglog z.log two.goal >/dev/null &&
	test "$(arr z.log 0)" = 1061208500 && test "$(arr z.log 1)" = 1062245500
'

test_expect_success 'an SL file gives a rank pair its SL, and the rest SL 0' '
	printf "# rank pairs\n1 2 1\n* * 0\n" >sl.txt &&
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib sl=sl.txt --ib vlarb_high=0,1 --ib vlarb_high_limit=255 --msglog f.log two.goal >/dev/null &&
	test "$(arr f.log 1)" = 532338500 && test "$(arr f.log 0)" = 1062245500 &&
	printf "0 * 1\n" >sl1.txt &&
	ibsim -q --net ib --topo star:3 --ib vls=2 --ib sl=sl1.txt --ib vlarb_high=0,1 --ib vlarb_high_limit=255 --msglog g.log two.goal >/dev/null &&
	a=$(arr g.log 0) && test $a -le 532338500 && test $a -ge $((532338500 - 1037000))
'

test_expect_success 'SL file errors name the file and line' '
	printf "1 2 1\n1 2 0\n" >d.txt &&
	expect_fail 1 ibsim -q --net ib --topo star:3 --ib sl=d.txt two.goal &&
	expect_err "ibsim: d.txt:2: a second rule for this pair" &&
	printf "\n1 x 1\n" >x.txt &&
	expect_fail 1 ibsim -q --net ib --topo star:3 --ib sl=x.txt two.goal &&
	expect_err "ibsim: x.txt:2: invalid destination ${Q}x${Q} (expected a rank or *)" &&
	printf "3 0 1\n" >r.txt &&
	expect_fail 1 ibsim -q --net ib --topo star:3 --ib sl=r.txt two.goal &&
	expect_err "ibsim: r.txt:1: invalid source ${Q}3${Q} (expected a rank or *)" &&
	printf "0 1 16\n" >s.txt &&
	expect_fail 1 ibsim -q --net ib --topo star:3 --ib sl=s.txt two.goal &&
	expect_err "ibsim: s.txt:1: invalid SL ${Q}16${Q} (expected 0..15)" &&
	printf "1 2\n" >n.txt &&
	expect_fail 1 ibsim -q --net ib --topo star:3 --ib sl=n.txt two.goal &&
	expect_err "ibsim: n.txt:1: expected SRC DST SL (ranks or *, SL 0..15)"
'

test_expect_success 'SL and arbitration errors' '
	expect_fail 2 ibsim -q --net ib --ib sl=16 ping.goal &&
	expect_err "ibsim: invalid service level for sl: ${Q}16${Q} (expected hash or 0..15)" &&
	expect_fail 2 ibsim -q --net ib --ib sl2vl=0,15,1 ping.goal &&
	expect_err "ibsim: invalid SL-to-VL table for sl2vl: ${Q}0,15,1${Q} (expected 1 to 16 comma-separated VLs 0..14)" &&
	expect_fail 2 ibsim -q --net ib --ib vlarb_high=1,256 ping.goal &&
	expect_err "ibsim: invalid VL weights for vlarb_high: ${Q}1,256${Q} (expected 1 to 15 comma-separated weights 0..255)" &&
	expect_fail 2 ibsim -q --net ib --ib vlarb_high_limit=0 ping.goal &&
	grep -q vlarb_high_limit err &&
	expect_fail 1 ibsim -q --net ib --topo star:2 --ib sl2vl=0,1 ping.goal &&
	expect_err "ibsim: sl2vl maps SL 1 to VL 1, but there are 1 data VLs (vls = 1)" &&
	expect_fail 1 ibsim -q --net ib --topo torus:4x4 --routing dor --ib vls=2 --ib sl2vl=0,1 ping.goal &&
	expect_err "ibsim: sl2vl maps SL 1 to VL 1, but there are 1 data VLs for the routing${Q}s classes (vls = 2)"
'

test_done
