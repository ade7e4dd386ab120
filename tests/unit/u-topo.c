/*
 * u-topo.c: topologies (lib/ir_topo.c): every generator's host and switch
 * counts and hop distances, link rates per generation, ibreplay's own
 * topology format (parse, write, read back, every error), and ibnetdiscover
 * output (tests/data/ib/cluster.ibnd, a small QDR cluster as the tool prints
 * it).
 */
#include <stdlib.h>
#include <string.h>

#include "ir_topo.h"
#include "tap.h"

static const ir_topo_linkdef LD = { 4, 16000, 5000, NULL, NULL };

static ir_topo *gen(const char *spec, ir_err *e)
{
	ir_topo *t = NULL;
	if (ir_topo_generate(&t, spec, 0, &LD, e))
		return NULL;
	return t;
}

static ir_topo *parse(const char *text, ir_err *e)
{
	ir_topo *t = NULL;
	if (ir_topo_parse(&t, text, strlen(text), "t.topo", &LD, e))
		return NULL;
	return t;
}

/* hop distance between host a and b */
#define HOPS(t, a, b) ir_topo_hops(t, a, b)

int main(void)
{
	ir_err e;
	ir_topo *t;

	/* ---- generators: counts and hops ---- */
	{
		static const struct {
			const char *spec;
			uint32_t hosts, switches;
		} g[] = {
			{ "star:8", 8, 1 },         { "chain:3", 2, 3 },        { "chain:5", 2, 5 },
			{ "ring:5", 5, 5 },         { "fattree2:4", 8, 6 },     { "fattree2:16", 128, 24 },
			{ "fattree2:36", 648, 54 }, { "fattree3:4", 16, 20 },   { "fattree3:8", 128, 80 },
			{ "fattree3:24", 3456, 720 }, { "h8s2", 8, 2 },         { "h8s4", 8, 4 },
		};
		for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
			t = gen(g[i].spec, &e);
			ok(t && t->nhosts == g[i].hosts && t->nswitches == g[i].switches, "%s: %u hosts, %u switches", g[i].spec,
			   g[i].hosts, g[i].switches);
			ir_topo_free(t);
		}
	}
	t = gen("star:8", &e);
	is_u64(HOPS(t, 0, 7), 2, "star: 2 hops between hosts");
	is_u64(HOPS(t, 3, 3), 0, "star: 0 hops to itself");
	ir_topo_free(t);
	for (unsigned s = 1; s <= 5; s++) {
		char sp[16];
		snprintf(sp, sizeof sp, "chain:%u", s);
		t = gen(sp, &e);
		is_u64(HOPS(t, 0, 1), s + 1, "chain:%u: %u hops", s, s + 1);
		ir_topo_free(t);
	}
	t = gen("ring:6", &e);
	is_u64(HOPS(t, 0, 1), 3, "ring:6 neighbours: 3 hops");
	is_u64(HOPS(t, 0, 3), 5, "ring:6 opposite: 5 hops");
	ir_topo_free(t);
	t = gen("fattree2:4", &e);
	is_u64(HOPS(t, 0, 1), 2, "fattree2:4 same leaf: 2 hops");
	is_u64(HOPS(t, 0, 2), 4, "fattree2:4 other leaf: 4 hops");
	is_u64(HOPS(t, 0, 7), 4, "fattree2:4 last leaf: 4 hops");
	is_str(ir_topo_name(t, 8), "leaf0", "fattree2 leaf names");
	is_str(ir_topo_name(t, 12), "spine0", "fattree2 spine names");
	ir_topo_free(t);
	t = gen("fattree3:4", &e);
	is_u64(HOPS(t, 0, 1), 2, "fattree3:4 same edge: 2 hops");
	is_u64(HOPS(t, 0, 2), 4, "fattree3:4 same pod: 4 hops");
	is_u64(HOPS(t, 0, 4), 6, "fattree3:4 other pod: 6 hops");
	is_u64(HOPS(t, 0, 15), 6, "fattree3:4 last pod: 6 hops");
	ir_topo_free(t);
	t = gen("fattree3:24", &e);
	is_u64(HOPS(t, 0, 3455), 6, "fattree3:24 across pods: 6 hops");
	{
		/* every core links to exactly one aggregation switch per pod */
		uint32_t core0 = 3456 + 2 * 24 * 12, okc = 1;
		for (uint32_t c = 0; c < 144; c++)
			for (unsigned p = 1; p <= 24; p++) {
				uint32_t a = ir_topo_portp(t, core0 + c, p)->peer;
				okc &= a >= 3456 + 288 && a < core0 && (a - 3456 - 288) / 12 == p - 1;
			}
		ok(okc, "fattree3:24: core port p goes to pod p-1");
	}
	ir_topo_free(t);
	t = gen("h8s2", &e);
	is_u64(HOPS(t, 0, 3), 2, "h8s2 same switch: 2 hops");
	is_u64(HOPS(t, 0, 4), 3, "h8s2 across: 3 hops");
	ir_topo_free(t);
	t = gen("h8s4", &e);
	is_u64(HOPS(t, 0, 1), 2, "h8s4 same switch: 2 hops");
	is_u64(HOPS(t, 0, 7), 3, "h8s4 any other switch: 3 hops");
	is_u64(HOPS(t, 2, 5), 3, "h8s4 s1 to s2: 3 hops");
	ir_topo_free(t);
	{
		t = NULL;
		ok(ir_topo_generate(&t, "star", 12, &LD, &e) == 0 && t->nhosts == 12, "star without size: one port per rank");
		ir_topo_free(t);
	}

	/* generator errors */
	ok(gen("fattree2:5", &e) == NULL, "odd K refused");
	is_str(e.msg, "fattree2: K must be even, 2..254 (found 5)", "message");
	ok(gen("ring:2", &e) == NULL, "ring of 2 refused");
	is_str(e.msg, "ring:2: expected 3..10000 switches", "message");
	ok(gen("h8s2:4", &e) == NULL, "h8s2 takes no size");
	is_str(e.msg, "topology 'h8s2' takes no size", "message");
	ok(gen("chain", &e) == NULL, "chain needs a size");
	is_str(e.msg, "topology 'chain' needs a size (e.g. chain:4)", "message");
	ok(gen("star:x", &e) == NULL, "star:x refused");
	ok(gen("star:300", &e) == NULL, "star:300 exceeds the ports of a switch");
	ok(gen("tor:4x4", &e) == NULL && ir_topo_is_generator("torus:4x4") && !ir_topo_is_generator("tor:4x4"), "torus is a generator, tor is not");

	/* ---- link rates ---- */
	{
		static const struct {
			const char *s;
			uint32_t mbps;
		} r[] = { { "1xSDR", 2000 }, { "4xSDR", 8000 },   { "4xDDR", 16000 },  { "4xQDR", 32000 },  { "4xFDR10", 40000 },
		          { "4xFDR", 54560 }, { "4xEDR", 100000 }, { "4xHDR", 200000 }, { "4xNDR", 400000 }, { "12xQDR", 96000 } };
		for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
			uint16_t w;
			uint32_t m = 0;
			char nm[32];
			ok(ir_topo_parse_link(r[i].s, &w, &m, "link", &e) == 0 && m == r[i].mbps &&
			       strcmp(ir_topo_link_name(nm, sizeof nm, w, m), r[i].s) == 0,
			   "%s = %u Mb/s of data, and back", r[i].s, r[i].mbps);
		}
		is_u64(ir_topo_ser(2074, 16000), 1037000, "ser(2074 B, 4xDDR) = 1037 ns");
		is_u64(ir_topo_ser(1, 54560), 147, "ser rounds up (1 B at FDR: 146.6 ps -> 147)");
	}

	/* ---- own format ---- */
	t = parse("# ibreplay topology 1\n"
	          "switch sw 4   # a comment\n"
	          "host a\nhost b ports=2 guid=0x10 lid=9\n"
	          "link default 4xQDR delay=10ns\n"
	          "link a:1 sw:1\n"
	          "link sw:2 b:2 1xSDR delay=1us\n",
	          &e);
	ok(t != NULL, "own format parses: %s", t ? "" : e.msg);
	if (t) {
		ok(t->nhosts == 2 && t->nswitches == 1, "2 hosts and 1 switch; hosts first");
		is_str(ir_topo_name(t, 0), "a", "host a is node 0");
		is_str(ir_topo_name(t, 2), "sw", "switch after the hosts");
		is_u64(ir_topo_portp(t, 0, 1)->mbps, 32000, "link default applies");
		is_u64(ir_topo_portp(t, 0, 1)->delay, 10000, "default delay applies");
		is_u64(ir_topo_portp(t, 1, 2)->mbps, 2000, "per-link speed");
		is_u64(ir_topo_portp(t, 2, 2)->delay, 1000000, "per-link delay, both directions");
		is_u64(t->node[1].lid, 2, "LIDs assigned in node order when not all given");
		{
			ir_sb a = IR_SB_INIT, b = IR_SB_INIT;
			ir_topo *t2 = NULL;
			ok(ir_topo_write(t, &a) == 0 && ir_topo_parse(&t2, a.buf, a.len, "w", &LD, &e) == 0 && ir_topo_write(t2, &b) == 0 &&
			       strcmp(a.buf, b.buf) == 0,
			   "write, read back, write: identical");
			ok(strstr(a.buf, "link b:2 sw:2 1xSDR delay=1us\n") != NULL, "written link line");
			ir_topo_free(t2);
			ir_sb_release(&a);
			ir_sb_release(&b);
		}
		ir_topo_free(t);
	}
	{
		ir_topo *g = gen("fattree3:4", &e), *t2 = NULL;
		ir_sb a = IR_SB_INIT;
		ok(g && ir_topo_write(g, &a) == 0 && ir_topo_parse(&t2, a.buf, a.len, "w", &LD, &e) == 0 && t2->nhosts == 16 &&
		       ir_topo_hops(t2, 0, 15) == 6,
		   "a generated fat tree written and read back keeps its hops");
		ir_topo_free(g);
		ir_topo_free(t2);
		ir_sb_release(&a);
	}
	{
		static const struct {
			const char *text, *msg;
		} bad[] = {
			{ "host a\nfrobnicate\n", "t.topo:2: expected 'switch', 'host' or 'link', found 'frobnicate'" },
			{ "switch s\n", "t.topo:1: expected 'switch NAME PORTS', found 'switch s'" },
			{ "switch s 0\n", "t.topo:1: switch 's': invalid port count '0' (expected 1..254)" },
			{ "host a\nhost a\n", "t.topo:2: node 'a' is defined twice" },
			{ "switch s 2 guid=0x5\nhost a guid=0x5\n",
			  "t.topo:2: node 'a' has GUID 0x5, which is also that of 's' (GUIDs are unique in a fabric)" },
			{ "host a:1\n", "t.topo:1: node name 'a:1' contains ':'" },
			{ "host a\nlink a:1 b:1\n", "t.topo:2: unknown node 'b' (nodes must be defined before their links)" },
			{ "host a\nswitch s 2\nlink a:1 s:3\n", "t.topo:3: invalid port '3' of 's' (expected 1..2)" },
			{ "host a\nswitch s 2\nlink a s:1\n", "t.topo:3: expected NODE:PORT, found 'a'" },
			{ "host a\nswitch s 2\nlink a:1 s:1 4xXDR\n",
			  "t.topo:3: invalid link for link: '4xXDR' (expected WIDTHxSPEED: width 1, 2, 4, 8, 12; speed SDR, DDR, QDR, "
			  "FDR10, FDR, EDR, HDR, NDR; e.g. 4xDDR)" },
			{ "host a\nswitch s 2\nlink a:1 s:1 delay=5xs\n", "t.topo:3: invalid delay '5xs' (expected a time, e.g. 5ns)" },
			{ "host a\nhost b\nswitch s 2\nlink a:1 s:1\nlink b:1 s:1\n", "t.topo:5: port s:1 is linked twice" },
			{ "host a\nswitch s 2\n", "t.topo: host 'a' is not linked to anything" },
			{ "switch s 2\n", "t.topo: the topology has no hosts" },
			{ "", "t.topo: the topology has no nodes" },
			{ "host a guid=zz\n", "t.topo:1: invalid guid 'zz'" },
			{ "host a lid=0\n", "t.topo:1: invalid lid '0'" },
			{ "host a colour=red\n", "t.topo:1: unknown attribute 'colour=red' (expected guid=, lid= or ports=)" },
			{ "host a lid=3\nhost b lid=3\nswitch s 2 lid=1\nlink a:1 s:1\nlink b:1 s:2\n",
			  "t.topo: LID 3 is used by both 'a' and 'b'" },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			ok(parse(bad[i].text, &e) == NULL, "bad topology %zu refused", i);
			is_str(e.msg, bad[i].msg, "message %zu", i);
		}
	}

	/* ---- ibnetdiscover ---- */
	{
		t = NULL;
		ok(ir_topo_load(&t, "tests/data/ib/cluster.ibnd", 0, &LD, &e) == 0, "ibnetdiscover sample loads: %s",
		   t ? "" : e.msg);
		if (t) {
			uint32_t n1 = ir_topo_find(t, "H-0002c903000e0b10"), sp = ir_topo_find(t, "S-0002c902004b0a10");
			ok(t->nhosts == 8 && t->nswitches == 3, "8 hosts, 3 switches");
			ok(n1 == 0 && t->node[n1].lid == 4, "node01 is host 0 with its discovered LID 4");
			ok(sp != IR_TOPO_NONE && t->node[sp].lid == 3 && t->node[sp].is_switch && t->node[sp].nports == 36,
			   "spine: LID 3, 36 ports");
			is_u64(t->node[n1].guid, 0x0002c903000e0b10ull, "host GUID from the id");
			is_u64(t->node[0].nports, 2, "an HCA with 2 ports");
			is_u64(ir_topo_portp(t, 0, 1)->mbps, 32000, "4xQDR links");
			is_u64(ir_topo_portp(t, 7, 1)->mbps, 16000, "node08's link is 4xDDR");
			is_u64(ir_topo_hops(t, 0, 3), 2, "same leaf: 2 hops");
			is_u64(ir_topo_hops(t, 0, 7), 4, "across the spine: 4 hops");
			is_u64(t->max_lid, 11, "LIDs up to 11");
			ir_topo_free(t);
		}
	}
	{
		static const struct {
			const char *text, *msg;
		} bad[] = {
			{ "Switch 4 \"S-1\"\n[1] \"H-2\"[1]\n", "t.topo:2: unknown peer node \"H-2\"" },
			{ "Switch x \"S-1\"\n", "t.topo:1: expected the port count (1..254) after 'Switch', found 'Switch x \"S-1\"'" },
			{ "Switch 4 S-1\n", "t.topo:1: expected a quoted node id (\"S-...\" or \"H-...\"), found 'Switch 4 S-1'" },
			{ "Switch 4 \"S-1\"\n[5] \"H-2\"[1]\n", "t.topo:2: expected [PORT] with PORT in 1..4, found '[5] \"H-2\"[1]'" },
			{ "[1] \"H-2\"[1]\nCa 1 \"H-2\"\n", "t.topo:1: port line outside a Switch or Ca block: '[1] \"H-2\"[1]'" },
			{ "Ca 1 \"H-2\"\n[1] \"S-1\"\n", "t.topo:2: expected \"PEER\"[PORT] after the port, found '[1] \"S-1\"'" },
			{ "Switch 4 \"S-1\"\nRt 2 \"R-3\"\n", "t.topo:2: router nodes are not supported: 'Rt 2 \"R-3\"'" },
			{ "Switch 4 \"S-1\"\n[1] \"H-2\"[1]\nCa 1 \"H-2\"\n[1] \"S-1\"[2]\n",
			  "t.topo:4: port H-2[1] is linked to S-1[1] and to S-1[2]" },
			{ "Switch 4 \"S-1\"\n[1] \"H-2\"[3]\nCa 1 \"H-2\"\n", "t.topo:2: port 3 of \"H-2\" does not exist (it has 1 ports)" },
			{ "Switch 4 \"S-1\"\nhello world\n", "t.topo:2: expected a Switch, Ca or port line, or key=value, found 'hello world'" },
			{ "Switch 4 \"S-1\"\nSwitch 4 \"S-1\"\n", "t.topo:2: node \"S-1\" appears twice" },
			{ "Switch 2 \"S-1\"\nCa 1 \"H-1\"\n",
			  "t.topo:2: node 'H-1' has GUID 0x1, which is also that of 'S-1' (GUIDs are unique in a fabric)" },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			ok(parse(bad[i].text, &e) == NULL, "bad ibnetdiscover %zu refused", i);
			is_str(e.msg, bad[i].msg, "message %zu", i);
		}
	}
	return tap_done();
}
