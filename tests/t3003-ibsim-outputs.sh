#!/bin/sh
# ibsim's other outputs: the message log, the timeline JSON, the -v event
# trace, the progress bar, and the report of a schedule that cannot finish
# (formats/results.md sections 2, 3, 4 and 6).
. "$(dirname "$0")/lib.sh"

cat >ref1.goal <<'EOF'
num_ranks 2
rank 0 {
c: calc 100
s: send 10b to 1 tag 0
r: recv 10b from 1 tag 0
s requires c
}
rank 1 {
c: calc 100
s: send 10b to 0 tag 0
r: recv 10b from 0 tag 0
s requires c
}
EOF
# Both sends start at 100 (message ids 0 from rank 0, 1 from rank 1), arrive
# at 4100 and are matched by the posted receives (op 2) at 4100.
test_expect_success 'message log: one line per message with every column' '
	ibsim -q --msglog log ref1.goal >/dev/null &&
	printf "# ibsim 1.0 msglog\nid\tsrc\tdst\ttag\tsize\tinject_ps\tarrive_ps\tmatched_ps\tprotocol\tsend_op\trecv_op\n" >want &&
	printf "0\t0\t1\t0\t10\t100\t4100\t4100\teager\t1\t2\n1\t1\t0\t0\t10\t100\t4100\t4100\teager\t1\t2\n" >>want &&
	test_cmp want log
'
cat >late.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 100000b to 1 tag 0
}
rank 1 {
c: calc 50000
r: recv 100000b from 0 tag 0
r requires c
}
EOF
test_expect_success 'message log: rendezvous message matched at the late posting' '
	ibsim -q --msglog log late.goal >/dev/null &&
	sed -n 3p log >got &&
	printf "0\t0\t1\t0\t100000\t0\t4000\t50000\trndv\t0\t1\n" >want &&
	test_cmp want got
'

json_ok() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -m json.tool "$1" >/dev/null
	else
		head -1 "$1" | grep -q "^{\"displayTimeUnit\":\"ns\"" && tail -1 "$1" | grep -qx "]}"
	fi
}
test_expect_success 'timeline: valid JSON with calc, send and recv spans and message flows' '
	ibsim -q --timeline tl.json ref1.goal >/dev/null &&
	json_ok tl.json &&
	test "$(grep -c "\"ph\":\"X\"" tl.json)" = 6 &&
	test "$(grep -c "\"name\":\"calc\"" tl.json)" = 2 &&
	test "$(grep -c "\"ph\":\"s\"" tl.json)" = 2 &&
	test "$(grep -c "\"ph\":\"f\",\"bp\":\"e\"" tl.json)" = 2 &&
	grep -qF "{\"name\":\"recv\",\"cat\":\"recv\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":0.004100,\"dur\":0.001554,\"args\":{\"op\":2,\"label\":\"r\",\"peer\":0,\"tag\":0,\"bytes\":10,\"msg\":0}}" tl.json
'
# The message arrives at o + L = 1500 + 1234567 ps, after the calc: charged
# [1236067, 1236067 + 1500 + 99999*6) ps.
test_expect_success 'timeline: microseconds with six decimals keep picoseconds exact' '
	ibsim -q --timeline tl.json -L 1234567ps late.goal >/dev/null &&
	json_ok tl.json &&
	grep -qF "\"name\":\"recv\",\"cat\":\"recv\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":1.236067,\"dur\":0.601494," tl.json
'
test_expect_success 'timeline: labels are JSON-escaped; binary input has no labels' '
	goalc -o late.goalb late.goal &&
	ibsim -q --timeline tl.json late.goalb >/dev/null &&
	json_ok tl.json && ! grep -q label tl.json
'
test_expect_success 'timeline and message log can be compressed' '
	ibsim -q --timeline tl.json.zst --msglog log.zst ref1.goal >/dev/null &&
	zstd -dc tl.json.zst >tl.json && json_ok tl.json &&
	zstd -dc log.zst | sed -n 3p | grep -q "^0	0	1	"
'

test_expect_success '-v traces every event, put-backs included' '
	ibsim -q -v late.goal >/dev/null 2>trace &&
	test_golden late.trace trace
'

test_expect_success '--progress shows a bar on standard error' '
	ibsim --progress ref1.goal >/dev/null 2>err &&
	grep -q "simulating" err
'

# Deadlocks: exit 1, no results, a report naming ranks, ops, peers, tags.
cat >dl.goal <<'EOF'
num_ranks 2
rank 0 {
r: recv 8b from 1 tag 1
c: calc 5
c requires r
}
rank 1 {
s: send 8b to 0 tag 2
}
EOF
test_expect_success 'deadlock: unmatched receive and unexpected message, with labels' '
	expect_fail 1 ibsim dl.goal &&
	! test -s out &&
	cat >want <<-\EOF &&
	ibsim: deadlock: 1 of 2 ranks cannot finish (1 of 3 ops done)
	ibsim: rank 0: recv '"'"'r'"'"' (8 bytes from 1 tag 1) is posted; no message matches it
	ibsim: rank 0: message from 1 tag 2 (8 bytes, send '"'"'s'"'"' on rank 1) arrived; no receive matches it
	ibsim: rank 0: calc '"'"'c'"'"' never became ready: it waits for recv '"'"'r'"'"', which never completed
	EOF
	test_cmp want err
'
test_expect_success 'deadlock: binary input names ops by index' '
	goalc -o dl.goalb dl.goal &&
	expect_fail 1 ibsim dl.goalb &&
	grep -qxF "ibsim: rank 0: recv #0 (8 bytes from 1 tag 1) is posted; no message matches it" err &&
	grep -qxF "ibsim: rank 0: calc #1 never became ready: it waits for recv #0, which never completed" err
'
# Rank 1 posts r (any source, tag 5) and q (requires r): the rendezvous
# message of rank 0 (tag 3) fits neither.
cat >rdl2.goal <<'EOF'
num_ranks 2
rank 0 {
s: send 100000b to 1 tag 3
x: calc 1
y: calc 1
x requires s
y requires x
}
rank 1 {
r: recv 10b from -1 tag 5
q: recv 10b from 0 tag 4
q requires r
}
EOF
test_expect_success 'deadlock: rendezvous send waiting, wildcard peer, chains of unready ops' '
	expect_fail 1 ibsim -q rdl2.goal &&
	cat >want <<-\EOF &&
	ibsim: deadlock: 2 of 2 ranks cannot finish (0 of 5 ops done)
	ibsim: rank 0: send '"'"'s'"'"' (100000 bytes to 1 tag 3, rendezvous) waits for rank 1 to post a matching receive
	ibsim: rank 0: calc '"'"'x'"'"' never became ready: it waits for send '"'"'s'"'"', which never completed
	ibsim: rank 0: 2 ops in all never became ready
	ibsim: rank 1: recv '"'"'r'"'"' (10 bytes from any tag 5) is posted; no message matches it
	ibsim: rank 1: message from 0 tag 3 (100000 bytes, send '"'"'s'"'"' on rank 0) arrived; no receive matches it
	ibsim: rank 1: recv '"'"'q'"'"' never became ready: it waits for recv '"'"'r'"'"', which never completed
	EOF
	test_cmp want err
'
# Twelve ranks each waiting for a message nobody sends: ten are shown.
{
	echo "num_ranks 12"
	i=0
	while [ $i -lt 12 ]; do
		echo "rank $i {"
		echo "r: recv 1b from $(((i + 1) % 12)) tag 0"
		echo "}"
		i=$((i + 1))
	done
} >many.goal
test_expect_success 'deadlock: at most ten ranks are detailed' '
	expect_fail 1 ibsim many.goal &&
	sed -n 1p err | grep -qxF "ibsim: deadlock: 12 of 12 ranks cannot finish (0 of 12 ops done)" &&
	test "$(grep -c "is posted" err)" = 10 &&
	tail -1 err | grep -qxF "ibsim: ... and 2 more stuck ranks"
'
test_expect_success 'deadlock: the timeline of a failed run is still valid JSON' '
	expect_fail 1 ibsim --timeline tl.json --msglog log rdl2.goal &&
	json_ok tl.json && sed -n 2p log | grep -q "^id"
'
test_done
