#!/bin/sh
# tests/bench/ib.sh: speed of the InfiniBand model (make bench; never pass/fail).
# Prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit lines.
#
# Driven through tests/unit/u-ib-engine (built by make into $IR_BUILD/tests),
# which runs the engine with the ib network on generated schedules, or the
# fabric standalone for the all-to-all (a pairwise exchange with 4 messages in
# flight per host, so memory follows the fabric, not 12 million messages):
#   dissemination  fattree2:36 (648 hosts, the thesis's M9), 180-byte messages
#   ring           fattree2:32 (512 hosts), 45 messages of 1000 bytes per host,
#                  each send after the previous receive
#   alltoall       fattree2:16 64 KiB; fattree3:16 (1024 hosts) and fattree3:24
#                  (3456 hosts) with 2 KiB;
#                  2 KiB (one packet per message) on torus:8x8x8 (512 hosts,
#                  dor, 2 VLs) and dragonfly:8,4,4,33 (264 routers, 1,056 hosts,
#                  minimal, 2 VLs), seconds each
# ibsim's own figures (its --stats file) are added when ibsim has --net ib: an
# all-to-all of 4 KiB on fattree3:24 with 1024 and 2048 ranks, a dissemination.
# Every measurement runs BENCH_RUNS times (default 3), a line per run (the
# driver makes min/median/max). BENCH_FULL=1 (or IB_BENCH_FULL=1) adds the
# large variants, BENCH_RUNS times too: 2 KiB on torus:16x16x16 (4096 hosts)
# and dragonfly:16,8,8,66 (CODES's 1,056 routers, 8,448 hosts), about 2
# minutes a run each on a 2-core machine; 64 KiB on fattree3:24 (minutes: ~2 G
# packet hops); a dissemination over fattree3:56 (43,904 hosts, the largest fat
# tree one subnet's unicast LIDs allow; about 45 s, most of it building the
# fabric); ibsim's all-to-all with 3456 ranks.
set -eu
RUNS=${BENCH_RUNS:-3}
FULL=${BENCH_FULL:-${IB_BENCH_FULL:-}}
IR_BUILD=${IR_BUILD:-$TOP/build}
D="$IR_BUILD/tests/u-ib-engine"
T=$BENCH_TMP
[ -x "$D" ] || { echo "ib	(driver missing: $D)	exit	1	status" >&2; exit 1; }
# runs CMD...: CMD, RUNS times
runs() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		"$@"
	done
}
runs "$D" bench dissem fattree2:36 648 180
runs "$D" bench ring fattree2:32 512 45 1000
runs "$D" bench alltoall fattree2:16 128 65536 4
runs "$D" bench alltoall fattree3:16 1024 2048 4
runs "$D" bench alltoall fattree3:24 3456 2048 4
runs "$D" bench alltoall torus:8x8x8 512 2048 4 dor 2
runs "$D" bench alltoall dragonfly:8,4,4,33 1056 2048 4 minimal 2
if [ "$FULL" = 1 ]; then
	runs "$D" bench alltoall torus:16x16x16 4096 2048 4 dor 2
	runs "$D" bench alltoall dragonfly:16,8,8,66 8448 2048 4 minimal 2
	runs "$D" bench alltoall fattree3:24 3456 65536 4
	runs "$D" bench dissem fattree3:56 43904 8
fi
if command -v ibsim >/dev/null && command -v goalgen >/dev/null; then
	# Peak memory of a 4 KiB all-to-all through ibsim on fattree3:24 (3456 hosts): the
	# schedule itself grows with the square of the ranks (its size is printed beside), the
	# fabric's own state with the messages in flight.
	sizes="1024 2048"
	if [ "$FULL" = 1 ]; then sizes="$sizes 3456"; fi
	for n in $sizes; do
		goalgen alltoall $n --size 4K | goalc -q -o "$T/ib-a2a.goalb"
		sz=$(wc -c <"$T/ib-a2a.goalb")
		printf 'ib\tibsim_alltoall_4K_fattree3:24_%s\tschedule_goalb\t%s\tbytes\n' "$n" "$sz"
		i=0
		while [ $i -lt "$RUNS" ]; do
			i=$((i + 1))
			/usr/bin/time -f '%M' -o "$T/ib-a2a.rss" ibsim -q --stats "$T/ib-a2a.stats" --net ib --topo fattree3:24 "$T/ib-a2a.goalb" >"$T/ib-a2a.res" 2>/dev/null || break
			printf 'ib\tibsim_alltoall_4K_fattree3:24_%s\tpeak_rss\t%s\tKiB\n' "$n" "$(tail -n 1 "$T/ib-a2a.rss")"
			awk -F'\t' -v n="$n" '
				$1 == "wall_s" { w = $2 } $1 == "packet_hops" { h = $2 }
				END { printf "ib\tibsim_alltoall_4K_fattree3:24_%s\twall\t%s\ts\n", n, w
				      if (w > 0) printf "ib\tibsim_alltoall_4K_fattree3:24_%s\tpacket_hops_per_s\t%.0f\thops/s\n", n, h / w }' "$T/ib-a2a.stats"
		done
		rm -f "$T/ib-a2a.goalb"
	done
	goalgen dissemination 648 --size 180 >"$T/ib-d648.goal"
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		ibsim -q --stats "$T/ib-d648.stats" --net ib --topo fattree2:36 "$T/ib-d648.goal" >"$T/ib-d648.res" 2>/dev/null || break
		awk -F'\t' '
			$1 == "wall_s" { printf "ib\tibsim_dissemination_fattree2:36_180B\twall\t%s\ts\n", $2 }
			$1 == "ev_per_s" { printf "ib\tibsim_dissemination_fattree2:36_180B\tengine_events_per_s\t%s\tevents/s\n", $2 }' "$T/ib-d648.stats"
	done
fi
