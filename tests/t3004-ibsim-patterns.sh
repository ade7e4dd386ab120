#!/bin/sh
# ibsim on goalgen's patterns of many sizes against closed-form end times
# (default parameters: L=2500 o=1500 g=1000 G=6 O=0).
#
# One step of a message between otherwise idle ranks costs the receiver
# 2o + L + s1*G (sent at t, arrives t + o + L, charged o + s1*G): 5542 ps for
# goalgen's default 8-byte messages, 6574 ps for 180 bytes. The sender is
# free again after o = 1500 < o + L, so it never delays the next step.
#  - dissemination, N ranks: ceil(log2 N) rounds; a round's send requires the
#    previous round's receive, and every rank is in the same state: every
#    rank ends at rounds * 6574 (180 bytes);
#  - ring, S steps: step k's send and receive require step k-1's receive:
#    every rank ends at S * 5542;
#  - pingpong, R round trips: rank 0 ends when its last receive is charged,
#    R * 2 * 5542; rank 1 ends o after its last send, which starts at
#    (2R - 1) * 5542.
. "$(dirname "$0")/lib.sh"

# all_end FILE: the end time if every rank has the same one, else "differ"
all_end() { awk -F'\t' 'NR > 2 { if (e == "") e = $2; else if ($2 != e) d = 1 } END { print d ? "differ" : e }' "$1"; }
log2up() { n=$1; r=0; p=1; while [ $p -lt "$n" ]; do p=$((p * 2)); r=$((r + 1)); done; echo $r; }

test_expect_success 'dissemination of 180-byte messages: ceil(log2 N) * 6574 on every rank' '
	for n in 2 3 5 8 13 64 100 1000 4096; do
		goalgen dissemination $n --size 180 >d.goal &&
		ibsim -q d.goal >res || return 1
		want=$(( $(log2up $n) * 6574 ))
		got=$(all_end res)
		[ "$got" = "$want" ] || { echo "N=$n: got $got, want $want"; return 1; }
	done
'
test_expect_success 'ring: steps * 5542 on every rank' '
	for spec in "2 1" "7 10" "100 1000" "1000 3"; do
		set -- $spec
		goalgen ring $1 --steps $2 >r.goal &&
		ibsim -q r.goal >res || return 1
		got=$(all_end res)
		[ "$got" = "$(($2 * 5542))" ] || { echo "ring $spec: got $got"; return 1; }
	done
'
test_expect_success 'pingpong: 2R * 5542 and (2R-1) * 5542 + 1500' '
	for r in 1 5 100; do
		goalgen pingpong 2 --reps $r >p.goal &&
		ibsim -q p.goal >res || return 1
		got=$(awk -F"\t" "NR > 2 { printf \"%s \", \$2 }" res)
		want="$((2 * r * 5542)) $(((2 * r - 1) * 5542 + 1500)) "
		[ "$got" = "$want" ] || { echo "reps $r: got $got, want $want"; return 1; }
	done
'
test_expect_success 'the same results from GOAL binary' '
	goalgen dissemination 1000 --size 180 | goalc -o d.goalb &&
	ibsim -q d.goalb >res && test "$(all_end res)" = $((10 * 6574)) &&
	goalgen ring 100 --steps 1000 | goalc -o r.goalb &&
	ibsim -q r.goalb >res && test "$(all_end res)" = $((1000 * 5542))
'
test_expect_success 'event counts of a dissemination: 2 ops and 1 message per rank and round' '
	goalgen dissemination 1000 --size 180 >d.goal &&
	ibsim -q d.goal | sed -n 1p | grep -qE " ranks=1000 events=30000( |$)"
'
test_done
