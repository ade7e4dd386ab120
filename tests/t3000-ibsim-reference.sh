#!/bin/sh
# ibsim against the reference results of LogGOPSim (docs/loggops-semantics.md
# section 7): the schedules and numbers LogGOPSim itself
# printed, run through ibsim on GOAL text and on GOAL binary.
. "$(dirname "$0")/lib.sh"

# ends FILE: "rank:end_ps" of every rank, space separated
ends() { awk -F'\t' 'NR > 2 { printf "%s%s:%s", s, $1, $2; s = " " } END { print "" }' "$1"; }

# check EXPECTED SCHEDULE [OPTIONS...]: ibsim on the text and on its binary form
check() {
	want=$1
	sched=$2
	shift 2
	ibsim -q "$@" "$sched" >res || return 1
	got=$(ends res)
	[ "$got" = "$want" ] || { echo "text: got '$got', want '$want'"; return 1; }
	goalc -o sched.goalb "$sched" || return 1
	ibsim -q "$@" sched.goalb >resb || return 1
	got=$(ends resb)
	[ "$got" = "$want" ] || { echo "binary: got '$got', want '$want'"; return 1; }
}

# 1. Two ranks; each: c: calc 100, s: send 10b to the other, r: recv 10b from it, s requires c.
#    Each send starts at 100 and arrives at 100 + o + L = 4100; the receiver is
#    charged o + 9*max(G,O) = 1554: 5654 on both ranks.
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
test_expect_success 'reference 1: exchange after a calc ends at 5654' '
	check "0:5654 1:5654" ref1.goal
'

# 2. Rendezvous: rank 0 sends 100000 bytes to rank 1, whose receive requires calc 50000.
#    The message arrives at 4000 but rank 1's CPU is busy until 50000: charged at
#    50000 for o + 99999*G = 601494 (ends 651494); the receive, posted at 50000,
#    matches it then and releases the sender at 50000.
cat >ref2.goal <<'EOF'
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
test_expect_success 'reference 2: rendezvous with a late receive' '
	check "0:50000 1:651494" ref2.goal
'

# 3. The same with -S 200000: eager, the sender ends after o.
test_expect_success 'reference 3: the same message eager with -S 200000' '
	check "0:1500 1:651494" ref2.goal -S 200000
'

# 4. Dissemination among 8 ranks, 180-byte messages, 3 rounds.
{
	echo "num_ranks 8"
	r=0
	while [ $r -lt 8 ]; do
		echo "rank $r {"
		k=0
		d=1
		while [ $k -lt 3 ]; do
			echo "s$k: send 180b to $(((r + d) % 8)) tag 0"
			echo "r$k: recv 180b from $(((r - d + 8) % 8)) tag 0"
			[ $k -gt 0 ] && echo "s$k requires r$((k - 1))"
			k=$((k + 1))
			d=$((d * 2))
		done
		echo "}"
		r=$((r + 1))
	done
} >diss8.goal
all8() { echo "0:$1 1:$1 2:$1 3:$1 4:$1 5:$1 6:$1 7:$1"; }
test_expect_success 'reference 4: dissemination, L=0 o=50000 g=100000 G=6000: 3522000' '
	check "$(all8 3522000)" diss8.goal -L 0 -o 50000 -g 100000 -G 6000 -O 0
'
test_expect_success 'reference 4: dissemination, all parameters 0: 0' '
	check "$(all8 0)" diss8.goal -L 0 -o 0 -g 0 -G 0 -O 0
'
test_expect_success 'reference 4: dissemination, defaults: 19722' '
	check "$(all8 19722)" diss8.goal
'
test_expect_success 'reference 4: parameters with units give the same result' '
	check "$(all8 3522000)" diss8.goal -L 0ns -o 50ns -g 0.1us -G 6ns -O 0s
'
test_expect_success 'event counts: ops + messages, as LogGOPSim counts them' '
	ibsim -q diss8.goal >res &&
	head -1 res | grep -qE " ranks=8 events=72( |$)" &&
	ibsim -q ref1.goal >res &&
	head -1 res | grep -qE " ranks=2 events=8( |$)"
'
test_done
