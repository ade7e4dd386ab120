/*
 * u-fabrics.c: the torus, mesh and dragonfly generators (lib/ir_topo.c) and
 * their routings (lib/ir_route.c): node, port and link counts against the
 * formulas of formats/topology.md, the canonical arrangement of dragonfly
 * global links, dimension-order hop counts (sums of ring distances),
 * dragonfly minimal paths of at most 3 router hops and Valiant paths of at
 * most 5, reproducible Valiant choices, and the channel dependency check:
 * acyclic with the routings' VL classes, cyclic without them (and for
 * minhop on a torus).
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
	if (ir_topo_generate(&t, spec, 0, &LD, &e))
		printf("# %s\n", e.msg);
	return t;
}

/* Switch-to-switch links (each counted once) and unconnected switch ports. */
static void count_links(const ir_topo *t, uint32_t *links, uint32_t *free_ports)
{
	*links = *free_ports = 0;
	for (uint32_t s = t->nhosts; s < t->nnodes; s++)
		for (unsigned p = 1; p <= t->node[s].nports; p++) {
			const ir_topo_port *x = ir_topo_portp(t, s, p);
			if (x->peer == IR_TOPO_NONE)
				++*free_ports;
			else if (x->peer >= t->nhosts && (x->peer > s || (x->peer == s && x->peer_port > p)))
				++*links;
		}
}

/* Switch-to-switch links on the path from host s to host d (both legs when
 * the routing has an intermediate switch); -1 when the route breaks. */
static int route_hops(const ir_lft *l, const ir_topo *t, uint32_t s, uint32_t d)
{
	uint32_t H = t->nhosts, x = ir_topo_portp(t, s, 1)->peer, via = ir_route_via(l, t, s, d);
	uint32_t lid = via != IR_TOPO_NONE ? t->node[via].lid : t->node[d].lid;
	int n = 0;
	for (int steps = 0; steps < 64; steps++) {
		unsigned p = ir_lft_get(l, x - H, lid);
		const ir_topo_port *pp;
		if (p == 0 && lid != t->node[d].lid) {
			lid = t->node[d].lid;
			continue;
		}
		if (p == 0 || p == IR_LFT_NONE)
			return -1;
		pp = ir_topo_portp(t, x, p);
		if (pp->peer == d)
			return n;
		if (pp->peer < H)
			return -1;
		x = pp->peer;
		n++;
	}
	return -1;
}

/* Sum over dimensions of ring (torus) or line (mesh) distances between switches a and b. */
static int ring_dist(const ir_topo_shape *sh, uint32_t a, uint32_t b)
{
	int n = 0;
	for (unsigned d = 0; d < sh->ndims; d++) {
		uint32_t k = sh->dim[d], ca = a % k, cb = b % k, x = ca > cb ? ca - cb : cb - ca;
		n += (int)(sh->mesh || 2 * x <= k ? x : k - x);
		a /= k;
		b /= k;
	}
	return n;
}

int main(void)
{
	ir_err e;
	ir_topo *t;
	ir_lft l;

	/* ---- torus and mesh: counts ---- */
	{
		static const struct {
			const char *spec;
			uint32_t hosts, switches, ports, links, free_ports;
		} g[] = {
			/* S = prod k; H = S h; ports h + 2n; torus links n S; mesh sum (k_d - 1) S / k_d */
			{ "torus:4x4x4", 64, 64, 7, 192, 0 },     { "torus:4x4x4,h=2", 128, 64, 8, 192, 0 },
			{ "torus:3x5", 15, 15, 5, 30, 0 },        { "torus:2x2", 4, 4, 5, 8, 0 },
			{ "torus:8", 8, 8, 3, 8, 0 },             { "mesh:4x4", 16, 16, 5, 24, 16 },
			{ "mesh:3x2x2,h=3", 36, 12, 9, 20, 32 },  { "torus:16x16x16", 4096, 4096, 7, 12288, 0 },
		};
		for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
			uint32_t links, fp;
			int okp = 1;
			t = gen(g[i].spec);
			if (!t) {
				ok(0, "%s generated", g[i].spec);
				continue;
			}
			count_links(t, &links, &fp);
			for (uint32_t s = t->nhosts; s < t->nnodes; s++)
				okp &= t->node[s].nports == g[i].ports;
			ok(t->nhosts == g[i].hosts && t->nswitches == g[i].switches && okp && links == g[i].links &&
			       fp == g[i].free_ports,
			   "%s: %u hosts, %u switches of %u ports, %u links, %u free ports (found %u %u %u %u)", g[i].spec,
			   g[i].hosts, g[i].switches, g[i].ports, g[i].links, g[i].free_ports, t->nhosts, t->nswitches, links, fp);
			ir_topo_free(t);
		}
	}
	t = gen("torus:4x3");
	ok(t && strcmp(ir_topo_name(t, t->nhosts + 5), "s5") == 0 && ir_topo_portp(t, t->nhosts + 3, 2)->peer == t->nhosts + 0 &&
	       ir_topo_portp(t, t->nhosts + 3, 2)->peer_port == 3 && ir_topo_portp(t, t->nhosts + 1, 4)->peer == t->nhosts + 5,
	   "torus:4x3: s3 port 2 (+x) wraps to s0 port 3 (-x); s1 port 4 (+y) goes to s5");
	ir_topo_free(t);

	/* ---- dragonfly: counts and the canonical arrangement ---- */
	{
		static const struct {
			const char *spec;
			uint32_t hosts, switches, ports, links, free_ports;
		} g[] = {
			/* R = g a; H = R p; ports p + a - 1 + h; links g a (a-1) / 2 + global */
			{ "dragonfly:4,2,2", 72, 36, 7, 54 + 36, 0 },
			{ "dragonfly:2,1,1", 6, 6, 3, 3 + 3, 0 },
			{ "dragonfly:4,2,2,5", 40, 20, 7, 30 + 20, 0 },
			{ "dragonfly:3,1,1,3", 9, 9, 4, 9 + 3, 3 },
			{ "dragonfly:4,2,2,1", 8, 4, 7, 6, 8 },
			/* 66 groups (CODES's 1,056 routers): channels 65 + 63 of a*h = 128, the last 2 unmatched */
			{ "dragonfly:16,8,8,66", 8448, 1056, 31, 66 * 120 + 66 * 126 / 2, 66 * 2 },
		};
		for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
			uint32_t links, fp;
			int okp = 1;
			t = gen(g[i].spec);
			if (!t) {
				ok(0, "%s generated", g[i].spec);
				continue;
			}
			count_links(t, &links, &fp);
			for (uint32_t s = t->nhosts; s < t->nnodes; s++)
				okp &= t->node[s].nports == g[i].ports;
			ok(t->nhosts == g[i].hosts && t->nswitches == g[i].switches && okp && links == g[i].links &&
			       fp == g[i].free_ports,
			   "%s: %u hosts, %u routers of %u ports, %u links, %u free ports (found %u %u %u %u)", g[i].spec,
			   g[i].hosts, g[i].switches, g[i].ports, g[i].links, g[i].free_ports, t->nhosts, t->nswitches, links, fp);
			ir_topo_free(t);
		}
	}
	t = gen("dragonfly:4,2,2");
	{
		/* g = 9: channel j = r h + k of group G goes to group G + j + 1, landing on its channel g - 2 - j */
		int canon = 1, pairs = 1;
		uint32_t H = t->nhosts, cnt[9][9];
		memset(cnt, 0, sizeof cnt);
		for (uint32_t G = 0; G < 9; G++)
			for (uint32_t j = 0; j < 8; j++) {
				const ir_topo_port *x = ir_topo_portp(t, H + G * 4 + j / 2, 2 + 4 + j % 2);
				uint32_t G2 = (G + j + 1) % 9, j2 = 9 - 2 - j;
				canon &= x->peer == H + G2 * 4 + j2 / 2 && x->peer_port == 2 + 4 + j2 % 2;
				cnt[G][(x->peer - H) / 4]++;
			}
		for (uint32_t a = 0; a < 9; a++)
			for (uint32_t b = 0; b < 9; b++)
				pairs &= cnt[a][b] == (a != b);
		ok(canon, "dragonfly:4,2,2: channel j of group G links to group G+j+1, channel g-2-j (consecutive)");
		ok(pairs, "dragonfly:4,2,2: one global link between every pair of the 9 groups");
		ok(strcmp(ir_topo_name(t, H + 13), "g3r1") == 0, "router names: g<group>r<router>");
	}
	ir_topo_free(t);

	/* ---- bad specs ---- */
	{
		static const struct {
			const char *spec, *msg;
		} bad[] = {
			{ "torus:", "invalid torus 'torus:' (expected torus:AxB... with 1 to 16 sizes 2..100000, optionally ,h=N "
			            "hosts per switch)" },
			{ "torus", "invalid torus 'torus' (expected torus:AxB... with 1 to 16 sizes 2..100000, optionally ,h=N "
			           "hosts per switch)" },
			{ "torus:1x4", "invalid torus 'torus:1x4' (expected torus:AxB... with 1 to 16 sizes 2..100000, optionally "
			               ",h=N hosts per switch)" },
			{ "torus:4xx4", "invalid torus 'torus:4xx4' (expected torus:AxB... with 1 to 16 sizes 2..100000, "
			                "optionally ,h=N hosts per switch)" },
			{ "mesh:4x4,h=0", "invalid mesh 'mesh:4x4,h=0' (expected mesh:AxB... with 1 to 16 sizes 2..100000, "
			                  "optionally ,h=N hosts per switch)" },
			{ "torus:4x4,h=252", "torus:4x4,h=252: 252 hosts and 2 dimensions need 256 ports per switch (at most 254)" },
			{ "torus:100x100x100", "torus:100x100x100: 2000000 hosts and switches do not fit in 49151 unicast LIDs" },
			{ "torus:100000x100000", "torus:100000x100000: 100000000 or more hosts and switches do not fit in 49151 "
			                         "unicast LIDs" },
			{ "dragonfly:0,1,1", "invalid dragonfly 'dragonfly:0,1,1' (expected dragonfly:a,p,h[,g], each 1..100000: a "
			                     "routers per group, p hosts per router, h global links per router, g groups)" },
			{ "dragonfly:4,2", "invalid dragonfly 'dragonfly:4,2' (expected dragonfly:a,p,h[,g], each 1..100000: a "
			                   "routers per group, p hosts per router, h global links per router, g groups)" },
			{ "dragonfly:4,2,2,10", "dragonfly:4,2,2,10: 10 groups, but a group has a*h = 8 global links (at most "
			                        "a*h+1 = 9 groups)" },
			{ "dragonfly:200,50,50", "dragonfly:200,50,50: a router needs p + a - 1 + h = 299 ports (at most 254)" },
			{ "dragonfly:32,16,16", "dragonfly:32,16,16: 279072 hosts and switches do not fit in 49151 unicast LIDs" },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			t = NULL;
			ok(ir_topo_generate(&t, bad[i].spec, 0, &LD, &e) == -1 && !t, "%s refused", bad[i].spec);
			is_str(e.msg, bad[i].msg, "message for %s", bad[i].spec);
		}
	}

	/* ---- dor: hop counts, dependency check ---- */
	{
		static const char *specs[] = { "torus:4x4x4", "torus:3x5", "torus:5x2x3,h=2", "mesh:4x4", "mesh:3x2x2,h=3",
		                               "torus:2x2", "torus:7" };
		for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
			int okh = 1, rc;
			t = gen(specs[i]);
			if (!t || ir_route(&l, t, "dor", &e)) {
				ok(0, "dor on %s: %s", specs[i], e.msg);
				ir_topo_free(t);
				continue;
			}
			for (uint32_t s = 0; s < t->nhosts; s++)
				for (uint32_t d = 0; d < t->nhosts; d++)
					if (s != d)
						okh &= route_hops(&l, t, s, d) ==
						       ring_dist(&t->shape, s / t->shape.hps, d / t->shape.hps);
			ok(okh, "dor on %s: every route crosses the sum of ring distances", specs[i]);
			rc = ir_route_cdg(&l, t, &e);
			ok(rc == 0, "dor on %s: channel dependency graph acyclic with %u VL classes%s%s", specs[i], l.nclass,
			   rc ? ": " : "", rc ? e.msg : "");
			if (!t->shape.mesh) {
				/* without datelines a ring of 4 or more has routes of 2 hops one way round: a cycle */
				int want = 0;
				for (unsigned d = 0; d < t->shape.ndims; d++)
					want |= t->shape.dim[d] >= 4;
				l.vlmode = IR_VLM_NONE;
				l.nclass = 1;
				ok(ir_route_cdg(&l, t, &e) == want, "dor on %s without datelines: %s", specs[i],
				   want ? "a cycle" : "acyclic (no ring of 4 or more)");
			}
			ir_lft_release(&l);
			ir_topo_free(t);
		}
	}
	/* the library check agrees with u-route.c's table-based one on the fabrics it judges */
	{
		static const struct {
			const char *spec, *eng;
			int cyc;
		} k[] = {
			{ "ring:5", "minhop", 1 },    { "ring:5", "updn", 0 },     { "ring:7", "updn", 0 },
			{ "fattree3:4", "ftree", 0 }, { "fattree2:8", "updn", 0 }, { "h8s4", "updn", 0 },
		};
		for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
			t = gen(k[i].spec);
			ok(t && ir_route(&l, t, k[i].eng, &e) == 0 && ir_route_cdg(&l, t, &e) == k[i].cyc, "%s on %s: %s",
			   k[i].eng, k[i].spec, k[i].cyc ? "a dependency cycle" : "acyclic");
			ir_lft_release(&l);
			ir_topo_free(t);
		}
	}
	t = gen("torus:4x4");
	ok(ir_route(&l, t, "minhop", &e) == 0 && ir_route_cdg(&l, t, &e) == 1, "minhop on torus:4x4: a dependency cycle");
	ok(strstr(e.msg, "channel dependency cycle through switch 's") == e.msg, "the cycle is named: %s", e.msg);
	ir_lft_release(&l);
	ok(ir_route(&l, t, "updn", &e) == 0 && ir_route_cdg(&l, t, &e) == 0, "updn on torus:4x4: acyclic");
	ir_lft_release(&l);
	ok(ir_route(&l, t, "minimal", &e) == -1, "minimal on a torus refused");
	is_str(e.msg, "routing minimal needs a dragonfly:a,p,h[,g] generated topology", "message");
	ir_topo_free(t);
	t = gen("fattree2:4");
	ok(ir_route(&l, t, "dor", &e) == -1, "dor on a fat tree refused");
	is_str(e.msg, "routing dor needs a torus:AxB... or mesh:AxB... generated topology", "message");
	ir_topo_free(t);

	/* ---- dragonfly: minimal, valiant, ugal, ugal-g ---- */
	{
		static const char *specs[] = { "dragonfly:4,2,2", "dragonfly:2,1,1", "dragonfly:4,2,2,5", "dragonfly:3,1,1,3",
		                               "dragonfly:4,1,1", "dragonfly:4,2,2,1" };
		static const char *eng[] = { "minimal", "valiant", "ugal", "ugal-g" };
		for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
			for (size_t k = 0; k < 4; k++) {
				int maxh = 0, bad = 0, nvia = 0, rc;
				t = gen(specs[i]);
				if (!t || ir_route(&l, t, eng[k], &e)) {
					ok(0, "%s on %s: %s", eng[k], specs[i], e.msg);
					ir_topo_free(t);
					continue;
				}
				for (uint32_t s = 0; s < t->nhosts; s++)
					for (uint32_t d = 0; d < t->nhosts; d++) {
						int h;
						uint32_t v;
						if (s == d)
							continue;
						h = route_hops(&l, t, s, d);
						v = ir_route_via(&l, t, s, d);
						if (h < 0)
							bad++;
						if (h > maxh)
							maxh = h;
						if (v != IR_TOPO_NONE) {
							uint32_t A = t->shape.a, P = t->shape.hps, gv = (v - t->nhosts) / A;
							nvia++;
							bad += gv == s / P / A || gv == d / P / A || v != ir_route_via(&l, t, s, d);
						}
					}
				ok(!bad && maxh <= (k ? 5 : 3), "%s on %s: every route at most %d router-to-router links (found %d)%s",
				   eng[k], specs[i], k ? 5 : 3, maxh, k && t->shape.g >= 3 ? ", by way of another group" : "");
				if (k && t->shape.g >= 3)
					ok(nvia > 0, "%s on %s: %d pairs have an intermediate router", eng[k], specs[i], nvia);
				rc = ir_route_cdg(&l, t, &e);
				ok(rc == 0 && l.nclass == (k ? 3u : 2u), "%s on %s: acyclic with %u VL classes%s%s", eng[k], specs[i],
				   l.nclass, rc ? ": " : "", rc ? e.msg : "");
				if (i == 0) {
					l.vlmode = IR_VLM_NONE;
					l.nclass = 1;
					ok(ir_route_cdg(&l, t, &e) == 1, "%s on %s with one VL: a dependency cycle", eng[k], specs[i]);
				}
				ir_lft_release(&l);
				ir_topo_free(t);
			}
	}
	t = gen("dragonfly:4,2,2");
	{
		/* minimal: 1 global hop between groups; the consecutive arrangement gives
		 * 1 hop when the source router owns the link to the destination router */
		int ok1 = 1;
		ok(ir_route(&l, t, "minimal", &e) == 0, "minimal on dragonfly:4,2,2");
		/* h0 on g0r0 (channels 0, 1: groups 1, 2); g1's channel 7 on g1r3 lands on it: h0 -> h6 is 1 hop */
		ok1 &= route_hops(&l, t, 0, 14) == 1;
		ok1 &= route_hops(&l, t, 0, 2) == 1;
		ok1 &= route_hops(&l, t, 0, 1) == 0;
		ok(ok1, "minimal: h0 (on g0r0) to h14 (on g1r3) over their global link, to h2 (g0r1) over a local one");
		ir_lft_release(&l);
	}
	ir_topo_free(t);
	return tap_done();
}
