/*
 * u-route.c: routing engines and LFT dumps (lib/ir_route.c): minhop's port
 * balancing, ftree's destination-modulo spreading, up*-down* and minhop on a
 * ring judged by their channel dependency graphs (a cycle is a possible
 * deadlock), the route checker, and the OpenSM dump layout: write, read back
 * identical, ibroute's layout, and every parse error.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_route.h"
#include "tap.h"

static const ir_topo_linkdef LD = { 4, 16000, 5000, NULL, NULL };

static ir_topo *gen(const char *spec)
{
	ir_topo *t = NULL;
	ir_err e;
	if (ir_topo_load(&t, spec, 0, &LD, &e))
		printf("# %s\n", e.msg);
	return t;
}

/* Does the channel dependency graph of the routes have a cycle? Channels are
 * switch-to-switch link directions (global port index); c1 -> c2 when a
 * route to some host uses c2 right after c1. */
static int cdg_cycle(const ir_lft *l, const ir_topo *t)
{
	uint32_t n = t->nports_total, H = t->nhosts;
	uint8_t *adj = calloc((size_t)n * n, 1), *st = calloc(n, 1);
	uint32_t *stack = malloc((size_t)n * 2 * sizeof *stack);
	int cyc = 0;
	for (uint32_t d = 0; d < H; d++) {
		uint32_t lid = t->node[d].lid;
		for (uint32_t s = 0; s < t->nswitches; s++) {
			unsigned p = ir_lft_get(l, s, lid);
			const ir_topo_port *x;
			uint32_t c1, nx;
			if (p == 0 || p == IR_LFT_NONE)
				continue;
			x = ir_topo_portp(t, H + s, p);
			if (x->peer < H)
				continue;
			c1 = t->node[H + s].port0 + p - 1;
			nx = x->peer - H;
			p = ir_lft_get(l, nx, lid);
			if (p == 0 || p == IR_LFT_NONE || ir_topo_portp(t, H + nx, p)->peer < H)
				continue;
			adj[(size_t)c1 * n + t->node[H + nx].port0 + p - 1] = 1;
		}
	}
	/* iterative DFS: st 0 new, 1 on stack, 2 done */
	for (uint32_t r = 0; r < n && !cyc; r++) {
		uint32_t sp = 0;
		if (st[r])
			continue;
		stack[sp++] = r;
		stack[sp++] = 0;
		st[r] = 1;
		while (sp && !cyc) {
			uint32_t u = stack[sp - 2], *it = &stack[sp - 1];
			if (*it == n) {
				st[u] = 2;
				sp -= 2;
				continue;
			}
			uint32_t v = (*it)++;
			if (!adj[(size_t)u * n + v])
				continue;
			if (st[v] == 1)
				cyc = 1;
			else if (!st[v]) {
				st[v] = 1;
				stack[sp++] = v;
				stack[sp++] = 0;
			}
		}
	}
	free(adj);
	free(st);
	free(stack);
	return cyc;
}

static int same_lft(const ir_lft *a, const ir_lft *b)
{
	return a->nsw == b->nsw && a->nlid == b->nlid && memcmp(a->port, b->port, (size_t)a->nsw * a->nlid) == 0;
}

int main(void)
{
	ir_err e;
	ir_topo *t;
	ir_lft l, l2;

	/* ---- minhop with port balancing ---- */
	t = gen("fattree2:16");
	ok(ir_route(&l, t, "minhop", &e) == 0, "minhop on fattree2:16 (checked)");
	{
		/* each leaf has 8 up ports for 120 remote hosts: 15 each */
		int bal = 1;
		for (uint32_t leaf = 0; leaf < 16; leaf++) {
			uint32_t cnt[17] = { 0 };
			for (uint32_t h = 0; h < 128; h++)
				cnt[ir_lft_get(&l, leaf, t->node[h].lid)]++;
			for (unsigned p = 9; p <= 16; p++)
				bal &= cnt[p] == 15;
			for (unsigned p = 1; p <= 8; p++)
				bal &= cnt[p] == 1;
		}
		ok(bal, "minhop balances: every leaf's 8 up ports carry 15 destinations each");
	}
	ir_lft_release(&l);
	ir_topo_free(t);

	/* ---- ftree: destination modulo k ---- */
	t = gen("fattree2:4");
	ok(ir_route(&l, t, "ftree", &e) == 0, "ftree on fattree2:4");
	{
		int okm = 1;
		for (uint32_t h = 2; h < 8; h++) /* from leaf0 (hosts 0,1) */
			okm &= ir_lft_get(&l, 0, t->node[h].lid) == 3 + h % 2;
		ok(okm, "fattree2:4 leaf0: host h goes up to spine h mod 2 (port 3 + h mod 2)");
	}
	ir_lft_release(&l);
	ir_topo_free(t);
	t = gen("fattree3:4");
	ok(ir_route(&l, t, "ftree", &e) == 0, "ftree on fattree3:4");
	{
		int okm = 1;
		/* edge0 (switch 0): up to agg (h mod 2), port 3 + h mod 2; agg0 (switch 8): up port 3 + (h/2) mod 2 */
		for (uint32_t h = 4; h < 16; h++) {
			okm &= ir_lft_get(&l, 0, t->node[h].lid) == 3 + h % 2;
			okm &= ir_lft_get(&l, 8, t->node[h].lid) == 3 + (h / 2) % 2;
		}
		ok(okm, "fattree3:4: edge up port h mod 2, aggregation up port (h/2) mod 2");
	}
	ok(!cdg_cycle(&l, t), "ftree on fattree3:4: no dependency cycle");
	ir_lft_release(&l);
	ir_topo_free(t);

	/* ---- ring: minhop has a dependency cycle, updn has none ---- */
	t = gen("ring:5");
	ok(ir_route(&l, t, "minhop", &e) == 0, "minhop on ring:5");
	ok(cdg_cycle(&l, t), "minhop on ring:5: dependency cycle (can deadlock)");
	ir_lft_release(&l);
	ok(ir_route(&l, t, "updn", &e) == 0, "updn on ring:5");
	ok(!cdg_cycle(&l, t), "updn on ring:5: no dependency cycle");
	ir_lft_release(&l);
	ir_topo_free(t);
	{
		static const char *specs[] = { "fattree2:8", "fattree3:6", "h8s4", "h8s2", "chain:4", "ring:7" };
		for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
			t = gen(specs[i]);
			ok(ir_route(&l, t, "updn", &e) == 0 && !cdg_cycle(&l, t), "updn on %s: checked, no dependency cycle",
			   specs[i]);
			ir_lft_release(&l);
			ir_topo_free(t);
		}
	}
	t = gen("ring:5");
	ok(ir_route(&l, t, "ftree", &e) == -1, "ftree on a ring fails the route check");
	ok(strstr(e.msg, "routes to 'h") == e.msg, "message names the destination: %s", e.msg);
	ok(ir_route(&l, t, "dijkstra", &e) == -1, "unknown engine");
	is_str(e.msg, "unknown routing engine 'dijkstra' (expected minhop, updn, ftree, dor, minimal, valiant, ugal, ugal-g or lft:FILE)", "message");
	ir_topo_free(t);

	/* ---- route checker ---- */
	t = gen("chain:2");
	ok(ir_route(&l, t, "minhop", &e) == 0, "minhop on chain:2");
	l.port[(size_t)0 * l.nlid + t->node[1].lid] = 1; /* s0 sends h1's packets back to h0 */
	ok(ir_lft_check(&l, t, &e) == -1, "a route into the wrong host is found");
	is_str(e.msg, "routes to 'h1' (LID 2): switch 's0' has another host (entry 1)", "message");
	l.port[(size_t)0 * l.nlid + t->node[1].lid] = 2;
	l.port[(size_t)1 * l.nlid + t->node[1].lid] = 1; /* s1 sends it back to s0: a loop */
	ok(ir_lft_check(&l, t, &e) == -1, "a loop is found");
	is_str(e.msg, "routes to 'h1' (LID 2): switch 's0' has a routing loop (entry 2)", "message");
	l.port[(size_t)1 * l.nlid + t->node[1].lid] = IR_LFT_NONE;
	ok(ir_lft_check(&l, t, &e) == -1, "a missing entry is found");
	is_str(e.msg, "routes to 'h1' (LID 2): switch 's1' has no route (entry 255)", "message");
	ir_lft_release(&l);
	ir_topo_free(t);

	/* ---- dumps: round trip ---- */
	{
		static const char *specs[] = { "fattree3:4", "h8s4", "tests/data/ib/cluster.ibnd" };
		static const char *eng[] = { "minhop", "updn", "ftree" };
		for (size_t i = 0; i < 3; i++)
			for (size_t j = 0; j < 3; j++) {
				ir_sb a = IR_SB_INIT, b = IR_SB_INIT;
				if (i == 1 && j == 2)
					continue; /* h8s4 is no fat tree */
				t = gen(specs[i]);
				if (ir_route(&l, t, eng[j], &e)) {
					ok(0, "%s %s: %s", specs[i], eng[j], e.msg);
					ir_topo_free(t);
					continue;
				}
				ok(ir_lft_write(&l, t, &a) == 0 && ir_lft_parse(&l2, t, a.buf, a.len, "dump", &e) == 0 && same_lft(&l, &l2) &&
				       ir_lft_write(&l2, t, &b) == 0 && strcmp(a.buf, b.buf) == 0,
				   "%s with %s: dump, read back: identical tables and dump", specs[i], eng[j]);
				ir_lft_release(&l);
				ir_lft_release(&l2);
				ir_sb_release(&a);
				ir_sb_release(&b);
				ir_topo_free(t);
			}
	}
	t = gen("tests/data/ib/cluster.ibnd");
	ok(ir_route(&l, t, "minhop", &e) == 0, "minhop on the ibnetdiscover sample");
	ok(ir_route(&l2, t, "lft:tests/data/ib/cluster.lfts", &e) == 0 && same_lft(&l, &l2),
	   "tests/data/ib/cluster.lfts (OpenSM layout) gives minhop's tables: %s", e.msg);
	ir_lft_release(&l2);
	ok(ir_route(&l2, t, "lft:tests/data/ib/cluster.ibroute", &e) == 0 && same_lft(&l, &l2),
	   "tests/data/ib/cluster.ibroute (ibroute layout) gives the same tables");
	ir_lft_release(&l2);
	{
		ir_sb a = IR_SB_INIT;
		ir_lft_write(&l, t, &a);
		ok(strstr(a.buf, "Unicast lids [0x0-0xb] of switch Lid 3 guid 0x0002c902004b0a10 ('S-0002c902004b0a10'):\n") &&
		       strstr(a.buf, "0x0004 001 # Channel Adapter portguid 0x0002c903000e0b11: 'H-0002c903000e0b10'\n"),
		   "dump uses discovered LIDs and GUIDs (a CA by its port GUID)");
		ir_sb_release(&a);
	}
	ir_lft_release(&l);
	{
		static const struct {
			const char *text, *msg;
		} bad[] = {
			{ "0x0004 001\n", "d:1: entry before any 'Unicast lids ... of switch' header" },
			{ "Unicast lids [0x0-0xb] of switch Lid 99 guid 0x0000000000000001 ('x'):\n",
			  "d:1: table of a switch the topology does not have (guid 0x0000000000000001, lid 99): 'Unicast lids [0x0-0xb] "
			  "of switch Lid 99 guid 0...'" },
			{ "Unicast lids [0x0-0xb] of switch Lid 3 guid 0x0002c902004b0a10 ('s'):\n0x0004 xyz\n",
			  "d:2: expected 'LID PORT', found '0x0004 xyz'" },
			{ "Unicast lids [0x0-0xb] of switch Lid 3 guid 0x0002c902004b0a10 ('s'):\n0x0004 040\n",
			  "d:2: switch 'S-0002c902004b0a10': invalid entry '0x0004 040' (LID up to 0xb, port up to 36)" },
			{ "Unicast lids [0x0-0xb] of switch Lid 3 guid 0x0002c902004b0a10 ('s'):\nbanana\n",
			  "d:2: expected a 'Unicast lids' header or a 'LID PORT' entry, found 'banana'" },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			ok(ir_lft_parse(&l2, t, bad[i].text, strlen(bad[i].text), "d", &e) == -1, "bad dump %zu refused", i);
			is_str(e.msg, bad[i].msg, "message %zu", i);
		}
		ok(ir_route(&l2, t, "lft:/nonexistent/x.lfts", &e) == -1, "missing dump file");
	}
	{
		/* a dump that leaves out a switch: the check fails before any run */
		const char *d = "Unicast lids [0x0-0xb] of switch Lid 3 guid 0x0002c902004b0a10 ('s'):\n0x0004 001\n";
		ok(ir_lft_parse(&l2, t, d, strlen(d), "d", &e) == 0 && ir_lft_check(&l2, t, &e) == -1, "incomplete tables fail the check");
		ir_lft_release(&l2);
	}
	ir_topo_free(t);
	return tap_done();
}
