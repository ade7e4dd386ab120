#!/bin/sh
# pack-otf2.sh DIR: write the OTF2 archive DIR/traces.otf2 (its .def and traces/ files) to
# standard output in the layout fuzz/fuzz-otf2.c unpacks: per part a 4-byte little-endian
# length and the bytes; parts traces.otf2, traces.def, traces/<n>.def, traces/<n>.evt (n 0..7).
set -e
d=$1
part() {
	if [ -f "$1" ]; then n=$(wc -c <"$1"); else n=0; fi
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))"
	[ "$n" = 0 ] || cat "$1"
}
part "$d/traces.otf2"
part "$d/traces.def"
for n in 0 1 2 3 4 5 6 7; do part "$d/traces/$n.def"; part "$d/traces/$n.evt"; done
