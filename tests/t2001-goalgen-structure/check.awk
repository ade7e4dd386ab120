# check.awk: structural checker for goalgen's GOAL text (tests/t2001).
#
# Checks, and prints one "error: ..." line per problem (nothing when all is well):
#  - "num_ranks N" first, then rank blocks 0..N-1, each exactly once, in order;
#  - every op line is "L: send <S>b to <P> tag <T>", "L: recv <S>b from <P> tag <T>"
#    or "L: calc <T>", labels unique in their rank, peers in 0..N-1 and not the rank;
#  - every "A requires B" / "A irequires B" names labels of its rank, with B
#    written before A: the text is in a topological order, so there is no cycle;
#  - every send has a receive with the same source, destination, size and tag
#    (counted as multisets);
#  - the schedule finishes when every message is buffered (eager): ops are
#    started and completed by repeated passes until nothing changes, a
#    receive completing when a message of its source and tag has arrived.
# At the end it prints "ranks=N ops=X sends=Y deps=Z".
function fail(msg) { print "error: line " NR ": " msg; bad = 1 }
BEGIN { nr = -1; cur = -1; inrank = 0; nops = 0; ndeps = 0; nsend = 0 }
NR == 1 {
	if ($1 != "num_ranks" || NF != 2 || $2 !~ /^[0-9]+$/) fail("expected num_ranks N, got '" $0 "'")
	nr = $2 + 0; next
}
/^rank [0-9]+ \{$/ {
	if (inrank) fail("rank block inside rank block")
	r = $2 + 0
	if (r != cur + 1) fail("rank " r " after rank " cur)
	cur = r; inrank = 1; next
}
/^\}$/ { if (!inrank) fail("'}' outside a rank"); inrank = 0; next }
{
	if (!inrank) { fail("line outside a rank block: '" $0 "'"); next }
}
$2 == "send" || $2 == "recv" {
	lab = substr($1, 1, length($1) - 1)
	if ($1 !~ /^[a-z][0-9]+:$/) fail("bad label '" $1 "'")
	want = ($2 == "send") ? "to" : "from"
	if (NF != 7 || $3 !~ /^[0-9]+b$/ || $4 != want || $5 !~ /^[0-9]+$/ || $6 != "tag" || $7 !~ /^[0-9]+$/)
		fail("bad " $2 " line '" $0 "'")
	if ((cur, lab) in idx) fail("duplicate label " lab)
	peer = $5 + 0
	if (peer >= nr) fail("peer " peer " out of range")
	if (peer == cur) fail("rank " cur " talks to itself")
	size = substr($3, 1, length($3) - 1)
	id = nops++
	idx[cur, lab] = id; orank[id] = cur; otype[id] = $2; otag[id] = $7; opeer[id] = peer
	if ($2 == "send") { bal[cur, peer, size, $7]++; nsend++ } else bal[peer, cur, size, $7]--
	next
}
$2 == "calc" {
	lab = substr($1, 1, length($1) - 1)
	if ($1 !~ /^[a-z][0-9]+:$/ || NF != 3 || $3 !~ /^[0-9]+$/) fail("bad calc line '" $0 "'")
	if ((cur, lab) in idx) fail("duplicate label " lab)
	id = nops++
	idx[cur, lab] = id; orank[id] = cur; otype[id] = "calc"
	next
}
$2 == "requires" || $2 == "irequires" {
	if (NF != 3) { fail("bad dependency '" $0 "'"); next }
	if (!((cur, $1) in idx)) { fail("unknown label " $1); next }
	if (!((cur, $3) in idx)) { fail("unknown label " $3); next }
	a = idx[cur, $1]; b = idx[cur, $3]
	if (b >= a) fail($1 " depends on " $3 " written after it")
	nd[a]++; dep[a, nd[a]] = b; irq[a, nd[a]] = ($2 == "irequires"); ndeps++
	next
}
{ fail("unexpected line '" $0 "'") }
END {
	if (inrank) fail("unterminated rank block")
	if (cur != nr - 1) fail("found ranks up to " cur " for num_ranks " nr)
	for (k in bal) if (bal[k] != 0) {
		split(k, f, SUBSEP)
		fail(sprintf("%d sends minus receives from %s to %s of %sb tag %s", bal[k], f[1], f[2], f[3], f[4]))
	}
	# eager progress
	left = nops
	do {
		changed = 0
		for (i = 0; i < nops; i++) {
			if (done[i]) continue
			if (!started[i]) {
				ok = 1
				for (j = 1; j <= nd[i]; j++) {
					b = dep[i, j]
					if (irq[i, j] ? !started[b] : !done[b]) { ok = 0; break }
				}
				if (!ok) continue
				started[i] = 1; changed = 1
			}
			if (otype[i] == "recv") {
				key = opeer[i] SUBSEP orank[i] SUBSEP otag[i]
				if (msgs[key] > 0) { msgs[key]--; done[i] = 1; left--; changed = 1 }
			} else {
				if (otype[i] == "send") msgs[orank[i] SUBSEP opeer[i] SUBSEP otag[i]]++
				done[i] = 1; left--; changed = 1
			}
		}
	} while (changed && left > 0)
	if (left > 0) { print "error: " left " of " nops " ops never complete"; bad = 1 }
	print "ranks=" nr " ops=" nops " sends=" nsend " deps=" ndeps
	exit bad
}
