#!/bin/sh
# ibsim --net ib --ties key (docs/ib-model.md section 12): every event of the
# fabric runs as an engine item of the node it acts on, keyed by (time made,
# maker, maker's count), and a packet's arrival at the next switch and a credit
# return upstream are events of the node they reach. The order of ties is then
# the one a partitioned run can compute; apart from ties the results are the
# default order's, which these runs check on schedules without ties that matter:
# per-rank end times identical, the same packets and hops, and the deadlock
# report unchanged.
. "$(dirname "$0")/lib.sh"

# both ARGS...: ibsim -q ARGS in both orders; their rank lines must be the same
both() {
	ibsim -q --ties seq "$@" >seq.out 2>seq.err || { cat seq.err; return 1; }
	ibsim -q --ties key "$@" >key.out 2>key.err || { cat key.err; return 1; }
	grep -v "^#" seq.out >seq.ranks && grep -v "^#" key.out >key.ranks &&
	test_cmp seq.ranks key.ranks
}

# field NAME FILE: the value of NAME=... in FILE's header line
field() { sed -n "1s/.* $1=\([0-9]*\).*/\1/p" "$2"; }

test_expect_success 'an all-to-all on a fat tree (ftree): the same end times, packets and hops' '
	goalgen alltoall 16 --size 8K >a2a.goal &&
	both --net ib --topo fattree2:8 --routing ftree a2a.goal &&
	test "$(field packets seq.out)" = "$(field packets key.out)" &&
	test "$(field packet_hops seq.out)" = "$(field packet_hops key.out)" &&
	# each hop into a switch is an arrival and a credit return of its own under the key
	test "$(field fabric_events key.out)" -gt "$(field fabric_events seq.out)"
'

test_expect_success 'rendezvous messages over the fabric (RTS, CTS, data): the same end times' '
	goalgen alltoall 8 --size 256K >big.goal &&
	both --net ib --topo fattree2:4 --routing ftree big.goal
'

test_expect_success 'a torus with dimension order routing and two VLs: the same end times' '
	# every rank starts at its own time: the lockstep dissemination has ties (at one
	# time, one switch'"'"'s requests arbitrated in the order their events ran), and
	# those are what the key orders otherwise
	goalgen dissemination 16 --size 4K |
		awk "/^rank /{ r = \$2; print; print \"c0: calc \" (r * 1237 + r * r * 53 + 1); next }
		     /^s0:/{ print; print \"s0 requires c0\"; next } { print }" >diss.goal &&
	both --net ib --topo torus:4x4 --routing dor --ib vls=2 diss.goal
'

test_expect_success 'two ranks per host (a copy over the bus between them): the same end times' '
	for h in 0 0 1 1 2 2 3 3; do echo $h; done >place &&
	goalgen ring 8 --size 32K --steps 5 >ring8.goal &&
	both --net ib --topo star:4 --placement place ring8.goal
'

test_expect_success 'congestion control on a hot spot: the same end times' '
	both --net ib --topo fattree2:4 --ib cc=on "$SEED/ib/hotspot8.goal"
'

test_expect_success 'a cyclic minhop ring deadlocks the same way under the key' '
	expect_fail 1 ibsim -q --net ib --topo ring:5 --ib buffer=33 --ib host_buffer=33 "$SEED/ib/ring5-1m.goal" && mv err seq.err &&
	expect_fail 1 ibsim -q --ties key --net ib --topo ring:5 --ib buffer=33 --ib host_buffer=33 "$SEED/ib/ring5-1m.goal" &&
	grep -q "^ibsim: fabric deadlock at [0-9]* ps: 10 packets cannot move; cycle of full input buffers: s1 port 3 vl 0 -> s2 port 3 vl 0" err &&
	test_cmp seq.err err
'

test_expect_success 'adaptive path selection per packet (lmc=2), which reads its switch'"'"'s queues: the same end times' '
	# hosts 0..3 (leaf 0) send 256 KiB each to hosts 4, 9, 13 and 16 (tests/t7006)
	for a in adaptive adaptive-credits; do
		both --net ib --topo fattree2:8 --routing ftree --ib lmc=2 --ib path=$a --ib path_unit=packet "$SEED/ib/perm32.goal" ||
			return 1
	done
'

test_expect_success 'a congested all-to-all on a recorded fat tree (updn, minhop), sizes without ties: the same' '
	# 64 KiB lockstep exchanges there end 4.4 % apart in the two orders (ties at the
	# congested outputs); a size of its own for every pair leaves none
	goalgen alltoall 16 --size 64K |
		awk "/^rank /{ r = \$2 }
		     /send 65536b to/{ d = \$5; sub(\"65536b\", (65536 + r * 37 + d * 11) \"b\") }
		     /recv 65536b from/{ s = \$5; sub(\"65536b\", (65536 + s * 37 + r * 11) \"b\") } { print }" >a2av.goal &&
	grep -q "send 65547b to 1" a2av.goal &&
	for r in updn minhop; do
		both --net ib --topo "$SEED/opensm/fattree3-4.ibnd" --routing $r a2av.goal || return 1
	done
'

test_expect_success 'a trace converted by trace2goal, on a fat tree: the same end times' '
	both --net ib --topo fattree2:4 "$TOP/tests/data/ltest-schedgen.goal"
'

test_done
