#!/bin/sh
# pipelines/dragonfly-load.sh: latency against offered load on a dragonfly,
# for minimal, Valiant and UGAL routing, under uniform random and adversarial
# traffic (the curves of Kim et al. 2008; docs/ib-model.md section 11).
#
#   pipelines/dragonfly-load.sh [-o OUT.tsv]
#
# Environment (defaults in brackets):
#   TOPO      a dragonfly generator [dragonfly:4,2,2]: a routers per group, p
#             hosts per router, h global links per router, g groups (a*h+1)
#   ROUTINGS  [minimal valiant ugal]
#   PATTERNS  uniform (each message to a host drawn uniformly among the
#             others) and/or adversarial (a host of group G sends to a host
#             drawn in group G+1 mod g) [uniform adversarial]
#   LOADS     offered loads, fractions of a host link's rate [0.1 0.2 ... 1.0]
#   MSGS      messages per host [200]
#   SIZE      bytes per message [2048: one packet of the default MTU]
#   SEED      seed of the traffic [1]
#   IBFLAGS   more ibsim options [--ib vls=3: the VLs Valiant and UGAL need]
#   BIN       where ibsim is [bin/ beside this script's directory]
#   PLOT      also draw the chart to this .png or .svg file, with gnuplot
#             (pipelines/plot/dragonfly-load.gp) [none]
#
# Traffic: every host sends MSGS messages, open loop: the gaps between the
# starts of its sends are exponential with mean SIZE-on-the-wire / (load x
# link rate), drawn by awk's generator seeded with SEED (the same schedule
# for every routing), each send depending only on the calc before it, so a
# host keeps offering load whatever the network does (its send queue grows
# past saturation). Receives are posted from the start. The schedule is GOAL
# text (formats/goal.md) simulated by ibsim --net ib with --msglog.
#
# Output, TSV: pattern, routing, offered load, accepted load (wire bytes of
# the messages that arrive in the measurement window / (hosts x link rate x
# the window)), mean and 99th percentile latency in ns of the messages sent
# in the window: the last 80 % of the time every host is sending (until
# the first host has sent its last message; the first 20 % warm the
# network up),
# from the send's start to the last byte's arrival at the receiver
# (formats/results.md section 2: arrive_ps - inject_ps), and non-minimal
# messages (ibsim --stats).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../bin}
TOPO=${TOPO:-dragonfly:4,2,2}
ROUTINGS=${ROUTINGS:-minimal valiant ugal}
PATTERNS=${PATTERNS:-uniform adversarial}
LOADS=${LOADS:-0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0}
MSGS=${MSGS:-200}
SIZE=${SIZE:-2048}
SEED=${SEED:-1}
IBFLAGS=${IBFLAGS:---ib vls=3}
out=
if [ "${1:-}" = -o ] && [ -n "${2:-}" ]; then
	out=$2
elif [ $# -gt 0 ]; then
	echo "usage: $0 [-o OUT.tsv]" >&2
	exit 2
fi

case $TOPO in
dragonfly:*) ;;
*) echo "dragonfly-load: TOPO must be a dragonfly:a,p,h[,g] generator, not '$TOPO'" >&2; exit 2 ;;
esac
set -- $(echo "${TOPO#dragonfly:}" | tr , ' ')
a=$1 p=$2 h=$3 g=${4:-$((a * h + 1))}
hosts=$((a * p * g))

work=$(mktemp -d "${TMPDIR:-/tmp}/dragonfly-load.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# wire time of a message at 4xDDR (500 ps/byte), MTU 2048: packets of at most
# 2048 payload bytes and 26 header bytes each
wire=$(awk -v s="$SIZE" 'BEGIN { n = int((s + 2047) / 2048); if (n < 1) n = 1; print (s + 26 * n) * 500 }')

# gen PATTERN LOAD: the GOAL schedule on standard output
gen() {
	awk -v pat="$1" -v ld="$2" -v H="$hosts" -v G="$g" -v per=$((a * p)) -v n="$MSGS" -v size="$SIZE" \
		-v wire="$wire" -v seed="$SEED" '
	BEGIN {
		srand(seed)
		mean = wire / ld
		print "num_ranks " H
		for (s = 0; s < H; s++) {
			t = 0
			for (i = 0; i < n; i++) {
				gap = int(-log(1 - rand()) * mean + 0.5)
				if (pat == "uniform") {
					d = int(rand() * (H - 1)); if (d >= s) d++
				} else {
					grp = (int(s / per) + 1) % G
					d = grp * per + int(rand() * per)
				}
				body[s] = body[s] sprintf("c%d: calc %d\ns%d: send %db to %d\ns%d requires c%d\n", i, gap, i, size, d, i, i)
				if (i) body[s] = body[s] sprintf("c%d requires c%d\n", i, i - 1)
				recv[d] = recv[d] sprintf("recv %db from %d\n", size, s)
			}
		}
		for (s = 0; s < H; s++) printf "rank %d {\n%s%s}\n", s, body[s], recv[s]
	}'
}

{
	printf "pattern\trouting\toffered\taccepted\tmean_ns\tp99_ns\tnonminimal\n"
	for pat in $PATTERNS; do
		for load in $LOADS; do
			gen "$pat" "$load" >"$work/s.goal"
			for r in $ROUTINGS; do
				# shellcheck disable=SC2086
				"$BIN/ibsim" -q --net ib --topo "$TOPO" --routing "$r" $IBFLAGS --msglog "$work/m.tsv" \
					--stats "$work/st.tsv" "$work/s.goal" >/dev/null
				nm=$(awk -F'\t' '$1 == "nonminimal" { print $2 }' "$work/st.tsv")
				awk -F'\t' -v lat="$work/lat" '
				NR > 2 {
					n++; inj[n] = $6; l[n] = $7 - $6
					if (n == 1 || $6 < t0) t0 = $6
					if ($6 > last[$2]) last[$2] = $6
				}
				END {
					# the window ends when the first host has sent its last message
					t1 = -1
					for (s in last) if (t1 < 0 || last[s] < t1) t1 = last[s]
					from = t0 + 0.2 * (t1 - t0)
					for (i = 1; i <= n; i++) {
						if (inj[i] >= from && inj[i] <= t1) { m++; sum += l[i]; print l[i] >lat }
						if (inj[i] + l[i] >= from && inj[i] + l[i] <= t1) acc++
					}
					printf "%d %.0f %.0f %.0f\n", acc, from, t1, sum / m
				}' "$work/m.tsv" >"$work/sum"
				read -r n t0 tend mean <"$work/sum"
				p99=$(sort -n "$work/lat" | awk '{ v[NR] = $1 } END { k = int(0.99 * NR); if (k < 1) k = 1; print v[k] }')
				awk -v pat="$pat" -v r="$r" -v ld="$load" -v H="$hosts" -v wire="$wire" -v nm="$nm" -v n="$n" \
					-v t0="$t0" -v tend="$tend" -v mean="$mean" -v p99="$p99" 'BEGIN {
					printf "%s\t%s\t%.2f\t%.3f\t%.0f\t%.0f\t%s\n", pat, r, ld, n * wire / (H * (tend - t0)),
					       mean / 1000, p99 / 1000, nm
				}'
			done
		done
	done
} >"$work/out.tsv"
if [ -n "${PLOT:-}" ]; then
	gnuplot -e "in='$work/out.tsv'; out='$PLOT'; topo='$TOPO'; routings='$ROUTINGS'; patterns='$PATTERNS'" "$here/plot/dragonfly-load.gp"
fi
if [ -n "$out" ]; then
	cp "$work/out.tsv" "$out.tmp" && mv "$out.tmp" "$out"
else
	cat "$work/out.tsv"
fi
