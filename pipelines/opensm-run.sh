#!/bin/sh
# pipelines/opensm-run.sh: one real OpenSM sweep of a simulated fabric, for
# pipelines/opensm.mk.
#
#   sh pipelines/opensm-run.sh NETFILE ENGINE DIR [TIMEOUT [OPENSM-OPTION...]]
#
# Starts the fabric simulator of Debian's ibsim-utils on NETFILE (always by
# its full path, /usr/bin/ibsim: our own simulator is also called ibsim),
# runs OpenSM once against it with routing engine ENGINE (OpenSM's names:
# minhop updn dnup ftree lash dor torus-2QoS nue dfsssp sssp), then
# ibnetdiscover, both through libumad2sim.so (what ibsim-run preloads), and
# stops the simulator. Writes into DIR:
#   opensm-lfts.dump  OpenSM's forwarding tables (its --dump_files_dir dumps)
#   ibnetdiscover.txt ibnetdiscover's output, after OpenSM gave out LIDs
#   routed-by         the engine that routed, from OpenSM's log: OpenSM falls
#                     back to minhop when the engine asked for fails
#   osm.log ibsim.log opensm.out ibnetdiscover.err  the logs
#
# Nothing here needs root: the simulator and its clients talk over Unix
# sockets in the abstract namespace (no file, no shared memory), named after
# IBSIM_SOCKNAME, which is set per run so that runs at the same time (make
# -j, other users) do not meet; OpenSM's log, cache and dumps go to DIR
# (-f, OSM_CACHE_DIR, OSM_TMP_DIR, --dump_files_dir) instead of /var.
#
# The programs can be replaced through the environment (tests use stand-ins):
# SIMBIN (default /usr/bin/ibsim), OPENSM, IBND (ibnetdiscover), UMAD2SIM
# (the preloaded library, as ibsim-run sets it; ibsim-run itself is not used:
# version 0.10 drops the library when LD_PRELOAD is already set).
#
# Every step has a time limit (TIMEOUT seconds, default 60) and the simulator
# is stopped on every exit (trap). Exit status: 0 done; 1 a step failed
# (the message says which, the logs are in DIR); 77 this machine cannot run
# it (a program missing, the simulator or OpenSM cannot start): the message
# starts "cannot run:", and tests skip on it.

set -u
netfile=$1
engine=$2
dir=$3
limit=${4:-60}
if [ $# -ge 4 ]; then shift 4; else shift $#; fi
SIMBIN=${SIMBIN:-/usr/bin/ibsim}
OPENSM=${OPENSM:-opensm}
IBND=${IBND:-ibnetdiscover}
UMAD2SIM=${UMAD2SIM:-/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/umad2sim/libumad2sim.so}

cannot() { echo "opensm-run: cannot run: $*" >&2; exit 77; }
fail() { echo "opensm-run: $engine: $*" >&2; exit 1; }

[ -x "$SIMBIN" ] || cannot "$SIMBIN (the fabric simulator of ibsim-utils) is not installed"
command -v "$OPENSM" >/dev/null 2>&1 || [ -x /usr/sbin/opensm ] || cannot "opensm is not installed"
command -v "$OPENSM" >/dev/null 2>&1 || OPENSM=/usr/sbin/opensm
command -v "$IBND" >/dev/null 2>&1 || [ -x /usr/sbin/ibnetdiscover ] || cannot "ibnetdiscover (infiniband-diags) is not installed"
command -v "$IBND" >/dev/null 2>&1 || IBND=/usr/sbin/ibnetdiscover
[ -r "$UMAD2SIM" ] || cannot "$UMAD2SIM (ibsim-utils) is missing"
command -v timeout >/dev/null 2>&1 || cannot "timeout (coreutils) is missing"
[ -r "$netfile" ] || fail "cannot read $netfile"

mkdir -p "$dir" || fail "cannot create $dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir"/opensm-lfts.dump "$dir"/ibnetdiscover.txt "$dir"/routed-by "$dir"/osm.log

# A fabric of N nodes needs the simulator's tables that large (its defaults:
# 2048 nodes, 256 switches, 13312 ports).
nodes=$(grep -c '^\(Ca\|Hca\|Switch\)' "$netfile")
switches=$(grep -c '^Switch' "$netfile")
ports=$(awk '/^(Ca|Hca|Switch)/ {n += $2 + 1} END {print n + 0}' "$netfile")
[ "$nodes" -lt 2048 ] && nodes=2048
[ "$switches" -lt 256 ] && switches=256
[ "$ports" -lt 13312 ] && ports=13312

IBSIM_SOCKNAME=ibreplay-$$-$(date +%s)
export IBSIM_SOCKNAME
sim=
cleanup() {
	if [ -n "$sim" ]; then
		kill "$sim" 2>/dev/null
		wait "$sim" 2>/dev/null
		sim=
	fi
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

# the simulator, without its console (-n), started at once (-s)
"$SIMBIN" -s -n -N "$nodes" -S "$switches" -P "$ports" "$netfile" </dev/null >"$dir/ibsim.log" 2>&1 &
sim=$!
i=0
until grep -q '^Network simulator ready' "$dir/ibsim.log" 2>/dev/null; do
	if ! kill -0 "$sim" 2>/dev/null; then
		sim=
		tail -n 5 "$dir/ibsim.log" >&2
		if grep -q 'fatal: error at\|parsing failed' "$dir/ibsim.log"; then
			fail "$SIMBIN refused $netfile"
		fi
		cannot "$SIMBIN did not start (log: $dir/ibsim.log)"
	fi
	i=$((i + 1))
	[ $i -gt $((limit * 10)) ] && cannot "$SIMBIN was not ready after $limit s"
	sleep 0.1
done

# OpenSM: one sweep (-o), the engine, the dumps (the ROUTING flag 0x40 of -D writes
# opensm-lfts.dump; 0x03 errors and information, which name the engine that routed)
timeout -k 5 "$limit" env LD_PRELOAD="$UMAD2SIM" OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" \
	"$OPENSM" -o -R "$engine" -D 0x43 -f "$dir/osm.log" --dump_files_dir "$dir" "$@" \
	</dev/null >"$dir/opensm.out" 2>&1
rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	fail "opensm did not finish within $limit s (log: $dir/osm.log)"
fi
if ! grep -q 'Entering MASTER state\|SUBNET UP' "$dir/opensm.out" "$dir/osm.log" 2>/dev/null; then
	tail -n 5 "$dir/opensm.out" >&2
	cannot "opensm did not bring the simulated subnet up (exit $rc; log: $dir/osm.log)"
fi
[ -s "$dir/opensm-lfts.dump" ] || fail "opensm wrote no opensm-lfts.dump (exit $rc; log: $dir/osm.log)"
sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' "$dir/osm.log" |
	tail -n 1 >"$dir/routed-by"
[ -s "$dir/routed-by" ] || echo unknown >"$dir/routed-by"

# ibnetdiscover after OpenSM: the LIDs it gave out are in the output
timeout -k 5 "$limit" env LD_PRELOAD="$UMAD2SIM" "$IBND" </dev/null \
	>"$dir/ibnetdiscover.txt.tmp" 2>"$dir/ibnetdiscover.err"
rc=$?
[ $rc = 0 ] || fail "ibnetdiscover failed (exit $rc): $(head -n 1 "$dir/ibnetdiscover.err")"
mv "$dir/ibnetdiscover.txt.tmp" "$dir/ibnetdiscover.txt"
cleanup
exit 0
