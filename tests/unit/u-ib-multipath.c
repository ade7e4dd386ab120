/*
 * u-ib-multipath.c: multipath of the InfiniBand model (docs/ib-model.md
 * section 10): tables with LMC > 0 (2^lmc LIDs per host) from minhop, updn
 * and ftree, checked like the single-LID ones (every LID reached, the
 * channel dependency graph acyclic where the engine is deadlock-free), the
 * LIDs of one destination spread over different neighbours as OpenSM
 * spreads them; the keys lmc, path and path_unit and their errors; the
 * fabric's path choice: a message is delivered once, whole, when its last
 * packet has been drained, even when its packets take different paths;
 * messages of one pair overtake one another on different paths; random
 * choices repeat with their seed.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_net_ib.h"
#include "ir_route.h"
#include "ir_topo.h"
#include "ib-cfg.h"
#include "tap.h"

static const ir_topo_linkdef LD = { 4, 16000, 5000, NULL, NULL };

#define MAXH 64
static uint64_t arr[MAXH];
static uint32_t order[MAXH], ndel, ndup;

static int rec_deliver(void *ctx, uint32_t h, uint64_t t, ir_err *e)
{
	(void)ctx;
	if (h >= MAXH)
		return ir_errf(e, "handle %u", h);
	if (arr[h])
		ndup++;
	arr[h] = t;
	order[ndel++ % MAXH] = h;
	return 0;
}

static const ir_ib_client client = { .ctx = NULL, .deliver = rec_deliver, .rts = NULL };

static ir_ib *mk(uint32_t nranks, const char *const *kv, ir_err *e)
{
	ir_ib_cfg c;
	ir_ib *ib;
	ir_ib_config_init(&c);
	if (ib_cfg_from(&c, kv, e))
		return NULL;
	ib = ir_ib_new(&c, nranks, &client, e);
	ir_ib_config_release(&c);
	memset(arr, 0, sizeof arr);
	ndel = ndup = 0;
	return ib;
}

/* At switch sw, the 2^lmc LIDs of every host not attached to it leave by
 * ports to pairwise different neighbours (when it has that many candidates:
 * `want` distinct). Returns the number of hosts for which that fails. */
static int spread_fails(const ir_lft *l, const ir_topo *t, uint32_t sw, unsigned want)
{
	int bad = 0;
	for (uint32_t h = 0; h < t->nhosts; h++) {
		uint32_t peers[128];
		unsigned n = 0;
		for (uint32_t k = 0; k < l->npath; k++) {
			unsigned p = ir_lft_get_path(l, sw, t->node[h].lid, k), dup = 0;
			uint32_t v;
			if (p == 0 || p == IR_LFT_NONE)
				return -1;
			v = ir_topo_portp(t, t->nhosts + sw, p)->peer;
			if (v < t->nhosts) {
				n = want; /* the destination's own switch */
				break;
			}
			for (unsigned i = 0; i < n; i++)
				dup |= peers[i] == v;
			if (!dup)
				peers[n++] = v;
		}
		bad += n < want;
	}
	return bad;
}

int main(void)
{
	ir_err e;
	ir_topo *t = NULL;
	ir_lft l, l0;

	/* ---- tables ---- */
	ok(ir_topo_generate(&t, "fattree2:8", 0, &LD, &e) == 0, "fattree2:8 (32 hosts, 8 leaves, 4 spines)");
	{
		static const char *eng[] = { "minhop", "updn", "ftree" };
		for (int i = 0; i < 3; i++) {
			int same = 1;
			ok(ir_route_lmc(&l, t, eng[i], 2, &e) == 0 && l.npath == 4, "%s with lmc 2: 4 LIDs per host (checked)",
			   eng[i]);
			ok(ir_route(&l0, t, eng[i], &e) == 0, "%s with lmc 0", eng[i]);
			ok(spread_fails(&l, t, 0, 4) == 0, "%s: leaf 0 sends the 4 LIDs of each remote host to the 4 spines",
			   eng[i]);
			for (uint32_t s = 0; s < t->nswitches; s++)
				for (uint32_t h = 0; h < t->nhosts; h++)
					same &= ir_lft_get_path(&l0, s, t->node[h].lid, 0) == ir_lft_get(&l0, s, t->node[h].lid);
			ok(same && l0.npath == 1 && l0.lmc == 0, "%s: lmc 0 has one plane", eng[i]);
			ok(ir_route_cdg(&l, t, &e) == 0, "%s with lmc 2 on fattree2:8: acyclic over every LID", eng[i]);
			ir_lft_release(&l);
			ir_lft_release(&l0);
		}
	}
	/* ftree at lmc 1 over two levels: LID offset k leaves by up port (h + k) mod 4 */
	ok(ir_route_lmc(&l, t, "ftree", 1, &e) == 0, "ftree with lmc 1");
	{
		int okm = 1;
		for (uint32_t h = 4; h < t->nhosts; h++)
			for (uint32_t k = 0; k < 2; k++)
				okm &= ir_lft_get_path(&l, 0, t->node[h].lid, k) == 5 + (h + k) % 4;
		ok(okm, "ftree: leaf 0 sends LID offset k of host h up port 5 + (h + k) mod 4");
	}
	ir_lft_release(&l);
	ok(ir_route_lmc(&l, t, "ftree", 7, &e) == 0 && l.npath == 128, "lmc 7: 128 LIDs per host");
	ok(spread_fails(&l, t, 0, 4) == 0, "lmc 7: every spine used by each destination");
	ir_lft_release(&l);
	ok(ir_route_lmc(&l, t, "ftree", 8, &e) == -1, "lmc 8 refused");
	is_str(e.msg, "invalid LMC 8 (expected 0..7)", "lmc 8 message");
	ir_topo_free(t);
	t = NULL;

	ok(ir_topo_generate(&t, "fattree3:4", 0, &LD, &e) == 0, "fattree3:4");
	{
		static const char *eng[] = { "updn", "ftree" };
		for (int i = 0; i < 2; i++) {
			ok(ir_route_lmc(&l, t, eng[i], 3, &e) == 0 && ir_route_cdg(&l, t, &e) == 0,
			   "%s with lmc 3 on fattree3:4: acyclic", eng[i]);
			ir_lft_release(&l);
		}
	}
	ir_topo_free(t);
	t = NULL;
	ok(ir_topo_generate(&t, "torus:4x4", 0, &LD, &e) == 0, "torus:4x4");
	ok(ir_route_lmc(&l, t, "updn", 1, &e) == 0 && ir_route_cdg(&l, t, &e) == 0, "updn with lmc 1 on a torus: acyclic");
	ir_lft_release(&l);
	ok(ir_route_lmc(&l, t, "dor", 1, &e) == -1, "dor with lmc 1 refused");
	is_str(e.msg, "lmc = 1 needs routing minhop, updn or ftree (routing 'dor' gives one path per destination)",
	       "dor with lmc message");
	ir_topo_free(t);
	t = NULL;

	/* ---- keys ---- */
	{
		ir_ib_cfg c;
		ir_ib_config_init(&c);
		ok(c.lmc == 0 && c.path == IR_IB_PATH_STATIC && c.path_packet == 0, "defaults: lmc 0, static, per message");
		ok(ir_ib_config_set(&c, "lmc", "9", &e) == -1, "lmc 9 refused");
		is_str(e.msg, "invalid LMC for lmc: '9' (expected 0..7)", "lmc 9 message");
		ok(ir_ib_config_set(&c, "path", "foo", &e) == -1, "path foo refused");
		is_str(e.msg,
		       "invalid path selection for path: 'foo' (expected static, random[:SEED], rr, adaptive or "
		       "adaptive-credits)",
		       "path foo message");
		ok(ir_ib_config_set(&c, "path", "rr:3", &e) == -1, "a seed only for random");
		ok(ir_ib_config_set(&c, "path-unit", "flit", &e) == -1, "path_unit flit refused");
		is_str(e.msg, "invalid path unit for path_unit: 'flit' (expected message or packet)", "path_unit message");
		ok(ir_ib_config_set(&c, "path", "random:42", &e) == 0 && c.path == IR_IB_PATH_RANDOM && c.path_seed == 42,
		   "random:42");
		ok(ir_ib_config_set(&c, "path", "adaptive-credits", &e) == 0 && c.path == IR_IB_PATH_CREDITS,
		   "adaptive-credits");
		ok(ir_ib_config_set(&c, "path-unit", "packet", &e) == 0 && c.path_packet == 1, "path-unit packet");
		ir_ib_config_release(&c);
	}
	{
		static const char *kv[] = { "topo=fattree2:8", "routing=dor", "lmc=2", NULL };
		ok(mk(32, kv, &e) == NULL, "a fabric with lmc 2 and dor refused");
		static const char *kv2[] = { "topo=fattree2:8", "lmc=2", "dump_lft=/dev/null", NULL };
		ok(mk(32, kv2, &e) == NULL, "dump_lft with lmc 2 refused");
		is_str(e.msg, "dump_lft writes one LID per port; it cannot write the tables of lmc = 2", "dump_lft message");
	}

	/* ---- the fabric ----
	 * fattree2:8 under ftree: hosts 4q..4q+3 on leaf q; leaf 0 sends LID
	 * offset k of host h up port 5 + (h + k) mod 4. Defaults: 4xDDR, a
	 * 2074-byte packet takes 1037000 ps on a link. */
	{
		/* per packet round robin: one message of 64 packets from host 0 to
		 * host 4 goes over all 4 spines, arrives once, whole; alone it takes
		 * as long as on one path (the host link is the bottleneck) */
		static const char *kv[] = { "topo=fattree2:8", "routing=ftree", "lmc=2", "path=rr", "path_unit=packet", NULL };
		static const char *kv0[] = { "topo=fattree2:8", "routing=ftree", NULL };
		ir_ib *ib = mk(32, kv0, &e);
		uint64_t t0;
		ok(ib && ir_ib_inject(ib, 1, 0, 4, 131072, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0 && ndel == 1,
		   "one path: 64 packets delivered");
		t0 = arr[1];
		ir_ib_free(ib);
		ib = mk(32, kv, &e);
		ok(ib && ir_ib_inject(ib, 1, 0, 4, 131072, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0 && ndel == 1 && !ndup,
		   "four paths, per packet: delivered once");
		ok(arr[1] == t0, "alone, as fast as one path: %llu ps (one path %llu)", (unsigned long long)arr[1],
		   (unsigned long long)t0);
		ok(ib && ir_ib_get_stats(ib)->path_other == 48, "48 of the 64 packets off the static LID (%llu)",
		   ib ? (unsigned long long)ir_ib_get_stats(ib)->path_other : 0ull);
		ir_ib_free(ib);
	}
	{
		/* overtaking on different paths. Under rr a host's n-th message
		 * takes LID offset n mod 4; leaf q sends offset k of host h up to
		 * spine (h + k) mod 4. Hosts 8, 12 and 16 (leaves 2, 3, 4) send 3,
		 * 2 and 1 small messages and then 1 MiB to hosts 5, 6 and 7 (leaf
		 * 1): offsets 3, 2 and 1, all by spine 0, whose link to leaf 1 they
		 * share. Host 0 then sends A (one packet, offset 0: spine 0) and, 1 ns
		 * later, B (one packet, offset 1: spine 1) to host 4 (leaf 1). B
		 * leaves host 0 a packet time after A (one link, one FIFO at leaf
		 * 0), but A waits its turn behind three flows at spine 0: B passes
		 * it. (A's drain is no later for that: host 4's link is free.) */
		static const char *kv[] = { "topo=fattree2:8", "routing=ftree", "lmc=2", "path=rr", NULL };
		ir_ib *ib = mk(32, kv, &e);
		int okr = ib != NULL;
		uint32_t hd = 10;
		for (uint32_t i = 0; i < 3; i++) {
			for (uint32_t j = 0; j < 3 - i; j++)
				okr &= ir_ib_inject(ib, hd++, 8 + 4 * i, 5 + i, 8, 0, 0, &e) == 0;
			okr &= ir_ib_inject(ib, hd++, 8 + 4 * i, 5 + i, 1048576, 0, 1000, &e) == 0;
		}
		okr &= ir_ib_inject(ib, 1, 0, 4, 2048, 0, 20000000, &e) == 0;
		okr &= ir_ib_inject(ib, 2, 0, 4, 2048, 0, 20001000, &e) == 0;
		ok(okr && ir_ib_run(ib, &e) == 0 && ndel == 11, "eleven messages delivered");
		ok(arr[2] < arr[1], "B (offset 1) drained before A (offset 0): %llu < %llu ps", (unsigned long long)arr[2],
		   (unsigned long long)arr[1]);
		ir_ib_free(ib);
	}
	{
		/* random choices repeat with the seed */
		static const char *kv[] = { "topo=fattree2:8", "routing=ftree", "lmc=2", "path=random:7", "path_unit=packet",
			                        NULL };
		uint64_t first[8];
		int same = 1;
		for (int run = 0; run < 2; run++) {
			ir_ib *ib = mk(32, kv, &e);
			int okr = ib != NULL;
			for (uint32_t h = 0; h < 8; h++)
				okr &= ir_ib_inject(ib, h + 1, h, (h * 5 + 8) % 32, 65536, 0, 0, &e) == 0;
			okr &= ir_ib_run(ib, &e) == 0 && ndel == 8;
			ok(okr, "random:7 run %d: 8 messages", run + 1);
			for (uint32_t h = 0; h < 8; h++) {
				if (run == 0)
					first[h] = arr[h + 1];
				else
					same &= first[h] == arr[h + 1];
			}
			ir_ib_free(ib);
		}
		ok(same, "random:7: the same arrivals twice");
	}
	return tap_done();
}
