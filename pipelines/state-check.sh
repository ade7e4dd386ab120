#!/bin/sh
# state-check.sh TRACEDIR REF_US: was the run in TRACEDIR made on an undisturbed machine?
#    or: state-check.sh -w TRACEDIR: print its worse (larger) clock round trip, us
# Its clock round trips at MPI_Init and at MPI_Finalize (the traces' "# Init clockrtt" and
# "# Finalize clockrtt" lines, formats/trace.md §2; each the median over ranks 1 and up) are
# compared with REF_US, the network's undisturbed round trip: exit 0 when neither is more
# than 25 % above it, 1 when one is (a slowed machine: the same rule as cmp-real
# --state-ref, but either end suffices), 2 on trouble; one line on standard output says which.
# calibrate.mk STATE_REF uses it to calibrate again, and -w to keep the least slowed run.
set -u
worst=
if [ "${1:-}" = -w ]; then worst=y; shift; set -- "${1:-}" 1; fi
[ $# = 2 ] || { echo "usage: state-check.sh TRACEDIR REF_US, or state-check.sh -w TRACEDIR" >&2; exit 2; }
dir=$1 ref=$2
case $ref in '' | *[!0-9.]* | *.*.*) echo "state-check.sh: invalid reference '$ref' (expected microseconds)" >&2; exit 2 ;; esac
# med WHICH: the median over ranks 1.. of WHICH ("Init" or "Finalize"), empty when none
med() {
	for f in "$dir"/rank-*.trace "$dir"/rank-*.trace.zst; do
		test -f "$f" || continue
		case $f in *.zst) zstdcat -q "$f" ;; *) cat "$f" ;; esac | sed -n "s/^# $1 clockrtt: *\([0-9.]*\).*/\1/p"
	done | awk '$1 > 0' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ri=$(med Init) rf=$(med Finalize)
if [ -z "$ri" ] && [ -z "$rf" ]; then
	echo "state-check.sh: $dir: no clock round trips in its traces (rank 1 and up)" >&2
	exit 2
fi
if [ -n "$worst" ]; then
	awk -v ri="${ri:--1}" -v rf="${rf:--1}" 'BEGIN { print (ri > rf ? ri : rf) }'
	exit 0
fi
awk -v ri="${ri:--1}" -v rf="${rf:--1}" -v ref="$ref" -v d="$dir" 'BEGIN {
	lim = ref * 1.25
	slow = ri > lim || rf > lim
	printf "%s: clock round trips %s us at MPI_Init, %s us at MPI_Finalize, reference %s us: %s\n", d,
		ri < 0 ? "-" : ri, rf < 0 ? "-" : rf, ref, slow ? "a slowed machine" : "undisturbed"
	exit slow
}'
