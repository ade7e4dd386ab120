#!/bin/sh
# state-check.sh TRACEDIR REF_US [PULSE_US]: was the run in TRACEDIR made on an undisturbed machine?
#    or: state-check.sh -w TRACEDIR [PULSE_US]: print its worse (larger) round trip, us
# Its clock round trips at MPI_Init and at MPI_Finalize (the traces' "# Init clockrtt" and
# "# Finalize clockrtt" lines, formats/trace.md §2; each the median over ranks 1 and up) are
# compared with REF_US, the network's undisturbed round trip: exit 0 when neither is more
# than 25 % above it, 1 when one is (a slowed machine: the same rule as cmp-real
# --state-ref, but either end suffices), 2 on trouble; one line on standard output says which.
# PULSE_US, when given (netcal: the undisturbed value of its pulses in their worst phase, the
# largest of the phases' values on calib's "# machine state" line, formats/calibration.md),
# counts as a third round trip: a 0-byte round trip like the clock's, so a run slowed all
# through a phase between its two ends shows there (on the reference VM both measures came
# within 5 % of each other on an undisturbed machine; docs/validation.md).
# calibrate.mk STATE_REF uses it to calibrate again, and -w to keep the least slowed run.
set -u
worst=
if [ "${1:-}" = -w ]; then worst=y; shift; set -- "${1:-}" 1 "${2:-}"; fi
[ $# = 2 ] || [ $# = 3 ] || {
	echo "usage: state-check.sh TRACEDIR REF_US [PULSE_US], or state-check.sh -w TRACEDIR [PULSE_US]" >&2
	exit 2
}
dir=$1 ref=$2 pulse=${3:-}
case $ref in '' | *[!0-9.]* | *.*.*) echo "state-check.sh: invalid reference '$ref' (expected microseconds)" >&2; exit 2 ;; esac
case $pulse in *[!0-9.]* | *.*.*) echo "state-check.sh: invalid pulse round trip '$pulse' (expected microseconds)" >&2; exit 2 ;; esac
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
	awk -v ri="${ri:--1}" -v rf="${rf:--1}" -v rp="${pulse:--1}" 'BEGIN { w = ri > rf ? ri : rf; print (rp > w ? rp : w) }'
	exit 0
fi
awk -v ri="${ri:--1}" -v rf="${rf:--1}" -v rp="${pulse:--1}" -v ref="$ref" -v d="$dir" 'BEGIN {
	lim = ref * 1.25
	slow = ri > lim || rf > lim || rp > lim
	printf "%s: clock round trips %s us at MPI_Init, %s us at MPI_Finalize%s, reference %s us: %s\n", d,
		ri < 0 ? "-" : ri, rf < 0 ? "-" : rf, rp < 0 ? "" : ", pulses " rp " us in their worst phase", ref,
		slow ? "a slowed machine" : "undisturbed"
	exit slow
}'
