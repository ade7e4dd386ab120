#!/bin/sh
# pipelines/opensm.mk live: a real OpenSM routes fattree2:4 simulated by
# ibsim-utils, ibnetdiscover walks it, and ibsim simulates with OpenSM's
# tables. Skipped (with the reason) where ibsim-utils, opensm or
# infiniband-diags are missing or cannot start. The runner's time limit and
# clean-up are tested with stand-ins for the programs, everywhere.
. "$(dirname "$0")/lib.sh"

# stand-ins: a fabric simulator that says it is ready and waits (its pid in
# sim.pid), an OpenSM that hangs
cat >fakesim <<EOS
#!/bin/sh
echo \$\$ >"$TRASH/sim.pid"
echo "Network simulator ready."
exec sleep 300
EOS
cat >fakeosm <<EOS
#!/bin/sh
exec sleep 300
EOS
chmod +x fakesim fakeosm
: >empty.so
goalgen alltoall 1 | ibsim -q --net ib --topo fattree2:4 --dump-netfile ft.net - >/dev/null

test_expect_success 'opensm-run: an OpenSM that hangs is stopped at the time limit, and the simulator with it' '
	SIMBIN=$TRASH/fakesim OPENSM=$TRASH/fakeosm IBND=true UMAD2SIM=$TRASH/empty.so \
		expect_fail 1 sh "$TOP/pipelines/opensm-run.sh" ft.net ftree run 1 &&
	grep -q "^opensm-run: ftree: opensm did not finish within 1 s" err &&
	pid=$(cat sim.pid) && test -n "$pid" &&
	! kill -0 "$pid" 2>/dev/null
'

test_expect_success 'opensm-run: a missing fabric simulator is "cannot run" (exit 77)' '
	SIMBIN=$TRASH/nonexistent expect_fail 77 sh "$TOP/pipelines/opensm-run.sh" ft.net ftree run 5 &&
	grep -q "^opensm-run: cannot run: $TRASH/nonexistent (the fabric simulator of ibsim-utils) is not installed" err
'

live() {
	make -s -C "$TOP" -f pipelines/opensm.mk BIN="$IR_BIN" OUT="$TRASH/o" TOPO=fattree2:4 ENGINE=ftree \
		OURS="minhop ftree" TIMEOUT=20 >live.log 2>live.err
}
why=
if [ ! -x /usr/bin/ibsim ]; then why="/usr/bin/ibsim (ibsim-utils) is not installed"
elif ! command -v opensm >/dev/null 2>&1 && [ ! -x /usr/sbin/opensm ]; then why="opensm is not installed"
elif ! command -v ibnetdiscover >/dev/null 2>&1 && [ ! -x /usr/sbin/ibnetdiscover ]; then
	why="ibnetdiscover (infiniband-diags) is not installed"
elif ! live; then
	if grep -q "cannot run:" live.err; then
		why=$(sed -n "s/.*cannot run: //p" live.err | head -n 1)
	else
		why=failed
	fi
fi

if [ -z "$why" ] || [ "$why" = failed ]; then
test_expect_success 'live: OpenSM ftree routes fattree2:4; ibsim simulates with its tables' '
	test -z "$why" || { cat live.err; false; } &&
	test "$(cat o/opensm-ftree/routed-by)" = ftree &&
	grep -q "^Switch	4 \"S-0002c90200000009\"	.*# \"leaf0\" .*lid [0-9]" o/opensm-ftree/ibnetdiscover.txt &&
	test "$(grep -c "^Ca" o/opensm-ftree/ibnetdiscover.txt)" = 8 &&
	test "$(grep -c "^Unicast lids" o/opensm-ftree/opensm-lfts.dump)" = 6 &&
	test "$(wc -l <o/table.tsv)" = 4 &&
	grep -q "^fattree2:4	opensm	ftree	ftree	8	16	6	6.000	1.000	[0-9.]*\$" o/table.tsv &&
	a=$(awk -F"\t" "\$2 == \"opensm\" {print \$10}" o/table.tsv) &&
	grep -q "^fattree2:4	ibsim	ftree	ftree	8	16	6	6.000	1.000	$a\$" o/table.tsv
'

test_expect_success 'live: the recorded fattree2-4 outputs are what this OpenSM makes (routes, times)' '
	h=$(grep -c "^Ca" "$SEED/opensm/fattree2-4.ibnd") && goalgen alltoall $h --size 64K >a.goal &&
	ibsim -q --net ib --topo "$SEED/opensm/fattree2-4.ibnd" --routing "lft:$SEED/opensm/fattree2-4.ftree.lfts" \
		--route-stats rec.routes a.goal >rec.tsv &&
	tail -n +2 o/sim/osm-ftree.tsv >live.body && tail -n +2 rec.tsv >rec.body &&
	test_cmp live.body rec.body &&
	test_cmp o/sim/osm-ftree.routes.tsv rec.routes
'

test_expect_success 'live: no fabric simulator left running' '
	! ps -eo args | grep -v grep | grep -q "$TRASH/o/fabric.net"
'

test_expect_success 'live: a rerun redoes nothing' '
	live && ! grep -q "^opensm -R" live.log && ! grep -q "^ibsim --topo" live.log
'
else
test_skip 'live OpenSM pipeline' "$why"
fi
test_done
