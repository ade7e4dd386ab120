/*
 * ir_route.c: routing engines and LFT dumps of the InfiniBand model (see
 * ir_route.h for the rules of each engine).
 *
 * All engines share one shape: for each destination LID in increasing order,
 * compute a distance over switches from the destination's switch (a BFS,
 * cached while consecutive LIDs hang off the same switch, which is the common
 * case since hosts of one leaf have consecutive LIDs), then give every switch
 * one port among its candidates. The per-port counters that balance minhop
 * and updn live in one array over all ports of the topology.
 *
 * dor and the dragonfly engines need no search: the generator's shape
 * (ir_topo_shape) gives every switch's coordinates or group, so each entry is
 * a few arithmetic steps, and they also set the VL class of every port
 * (pcls) that the fabric and ir_route_cdg() step by. The dependency check
 * walks paths rather than tables because a packet's class depends on the way
 * it came, and because Valiant paths are two legs; it is quadratic in hosts
 * and meant for tests and small fabrics (a table-based check over (switch,
 * destination, class) states would scale further).
 *
 * With LMC (ir_route.h) minhop, updn and ftree give each of the 2^lmc LIDs
 * of a host its own plane of the tables, in one pass over the
 * destinations: the LIDs of one destination are routed one after another,
 * sharing the balancing counters, as OpenSM routes the LIDs of a port. The
 * checks (ir_lft_check, ir_route_cdg, route statistics) walk every plane.
 */
#include "ir_route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_hmap.h"
#include "ir_io.h"

#define INF IR_TOPO_NONE
#define NIL32 0xFFFFFFFFu

int ir_lft_init(ir_lft *l, const ir_topo *t, ir_err *e) { return ir_lft_init_lmc(l, t, 0, e); }

int ir_lft_init_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e)
{
	size_t n = (size_t)t->nswitches * (t->max_lid + 1) << (lmc <= IR_LFT_MAX_LMC ? lmc : 0);
	l->port = NULL;
	l->pcls = NULL;
	if (lmc > IR_LFT_MAX_LMC)
		return ir_errf(e, "invalid LMC %u (expected 0..%u)", lmc, IR_LFT_MAX_LMC);
	l->nsw = t->nswitches;
	l->nlid = t->max_lid + 1;
	l->lmc = lmc;
	l->npath = 1u << lmc;
	l->port = malloc(n ? n : 1);
	if (!l->port)
		return ir_errf(e, "out of memory for forwarding tables (%u switches x %u LIDs x %u paths)", l->nsw, l->nlid,
		               1u << lmc);
	memset(l->port, IR_LFT_NONE, n);
	l->vlmode = IR_VLM_NONE;
	l->nclass = 1;
	l->pcls = NULL;
	l->path = IR_PATH_DEST;
	l->seed = 1;
	return 0;
}

void ir_lft_release(ir_lft *l)
{
	free(l->port);
	free(l->pcls);
	l->port = NULL;
	l->pcls = NULL;
}

static inline void lft_set(ir_lft *l, uint32_t sw, uint32_t lid, unsigned p)
{
	l->port[(size_t)sw * l->nlid + lid] = (uint8_t)p;
}

/* plane k: the entry of LID lid + k */
static inline void lft_setk(ir_lft *l, uint32_t k, uint32_t sw, uint32_t lid, unsigned p)
{
	l->port[((size_t)k * l->nsw + sw) * l->nlid + lid] = (uint8_t)p;
}

/* The node a host is attached to (peer of its first connected port) and the port there. */
static uint32_t attach(const ir_topo *t, uint32_t h, unsigned *port)
{
	for (unsigned p = 1; p <= t->node[h].nports; p++) {
		const ir_topo_port *x = ir_topo_portp(t, h, p);
		if (x->peer != IR_TOPO_NONE) {
			*port = x->peer_port;
			return x->peer;
		}
	}
	return IR_TOPO_NONE;
}

/* BFS over switches (indices 0..nsw-1) from switch `src`. */
static void sw_bfs(const ir_topo *t, uint32_t src, uint32_t *dist, uint32_t *qu)
{
	uint32_t h = 0, n = 0, H = t->nhosts;
	for (uint32_t i = 0; i < t->nswitches; i++)
		dist[i] = INF;
	dist[src] = 0;
	qu[n++] = src;
	while (h < n) {
		uint32_t u = qu[h++];
		const ir_topo_node *x = &t->node[H + u];
		for (unsigned p = 0; p < x->nports; p++) {
			uint32_t v = t->port[x->port0 + p].peer;
			if (v != IR_TOPO_NONE && v >= H && dist[v - H] == INF) {
				dist[v - H] = dist[u] + 1;
				qu[n++] = v - H;
			}
		}
	}
}

/* Among ports of switch s whose peer switch b satisfies ok(b), the one with
 * the smallest counter (ties: lowest port); counts it. 0 if none. With LMC,
 * a port towards a switch none of the destination's earlier LIDs uses at s
 * (avoid[0..navoid)) goes first, as OpenSM prefers a system, then a node,
 * its other LIDs do not use (osm_switch_recommend_path): the model has no
 * chassis, so a switch is its own system. */
typedef struct cand_ctx {
	const ir_topo *t;
	const uint32_t *dist;   /* candidate if dist[b] == want */
	uint32_t want;
	const uint32_t *key;    /* updn: restrict to key[b] > key[s] (down) or < (up); NULL: any */
	int dir;                /* +1 down, -1 up */
	uint32_t *count;        /* per topology port, NULL: no balancing */
	const uint32_t *avoid;  /* peer nodes used by the destination's earlier LIDs here */
	unsigned navoid;
} cand_ctx;

static int avoided(const cand_ctx *c, uint32_t v)
{
	for (unsigned i = 0; i < c->navoid; i++)
		if (c->avoid[i] == v)
			return 1;
	return 0;
}

static unsigned pick(const cand_ctx *c, uint32_t s)
{
	const ir_topo *t = c->t;
	const ir_topo_node *x = &t->node[t->nhosts + s];
	unsigned best = 0, bnew = 0;
	uint32_t bc = INF, bcn = INF;
	for (unsigned p = 1; p <= x->nports; p++) {
		uint32_t v = t->port[x->port0 + p - 1].peer, b, cn;
		if (v == IR_TOPO_NONE || v < t->nhosts)
			continue;
		b = v - t->nhosts;
		if (c->dist[b] != c->want)
			continue;
		if (c->key && (c->dir > 0 ? c->key[b] <= c->key[s] : c->key[b] >= c->key[s]))
			continue;
		if (!c->count) {
			if (!c->navoid || !avoided(c, v)) {
				best = p;
				break;
			}
			if (!best)
				best = p;
			continue;
		}
		cn = c->count[x->port0 + p - 1];
		if (cn < bc) {
			bc = cn;
			best = p;
		}
		if (c->navoid && cn < bcn && !avoided(c, v)) {
			bcn = cn;
			bnew = p;
		}
	}
	if (bnew)
		best = bnew;
	if (best && c->count)
		c->count[x->port0 + best - 1]++;
	return best;
}

/* Plane k of destination LID lid at switch s: the peers of planes 0..k-1
 * into c->avoid (capacity IR_LFT_MAX_LMC paths). */
static void avoid_fill(cand_ctx *c, const ir_lft *l, uint32_t *buf, uint32_t s, uint32_t lid, uint32_t k)
{
	const ir_topo *t = c->t;
	c->navoid = 0;
	c->avoid = buf;
	for (uint32_t j = 0; j < k; j++) {
		unsigned p = ir_lft_get_path(l, s, lid, j);
		if (p && p != IR_LFT_NONE && p <= t->node[t->nhosts + s].nports)
			buf[c->navoid++] = ir_topo_portp(t, t->nhosts + s, p)->peer;
	}
}

typedef struct rwork {
	uint32_t *dist, *qu, *cnt, *aux, *key, *order;
} rwork;

static void rwork_free(rwork *w)
{
	free(w->dist);
	free(w->qu);
	free(w->cnt);
	free(w->aux);
	free(w->key);
	free(w->order);
}

static int rwork_init(rwork *w, const ir_topo *t, ir_err *e)
{
	size_t ns = t->nswitches ? t->nswitches : 1;
	memset(w, 0, sizeof *w);
	w->dist = malloc(ns * sizeof(uint32_t));
	w->qu = malloc(ns * sizeof(uint32_t));
	w->aux = malloc(ns * sizeof(uint32_t));
	w->key = malloc(ns * sizeof(uint32_t));
	w->order = malloc(ns * sizeof(uint32_t));
	w->cnt = calloc(t->nports_total ? t->nports_total : 1, sizeof(uint32_t));
	if (!w->dist || !w->qu || !w->cnt || !w->aux || !w->key || !w->order) {
		rwork_free(w);
		return ir_errf(e, "out of memory for routing");
	}
	return 0;
}

/* The destination switch of a LID (for a host: its attach switch, with the
 * port to the host in *hport), or INF when no switch routes to it. */
static uint32_t dst_switch(const ir_topo *t, uint32_t node, unsigned *hport)
{
	if (node >= t->nhosts) {
		*hport = 0;
		return node - t->nhosts;
	}
	uint32_t a = attach(t, node, hport);
	if (a == IR_TOPO_NONE || a < t->nhosts)
		return INF;
	return a - t->nhosts;
}

/* Shortest-path routes for every LID, balanced by `cnt` when not NULL;
 * `hosts_only` skips switch LIDs (0) or host LIDs (2); 1 does all. */
static void minhop_lids(ir_lft *l, const ir_topo *t, rwork *w, uint32_t *cnt, int which)
{
	uint32_t last = INF, np, av[1u << IR_LFT_MAX_LMC];
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		uint32_t n = t->lid_node[lid], a;
		unsigned hp;
		cand_ctx c;
		if (n == IR_TOPO_NONE)
			continue;
		if ((which == 0 && n >= t->nhosts) || (which == 2 && n < t->nhosts))
			continue;
		a = dst_switch(t, n, &hp);
		if (a == INF)
			continue;
		if (a != last) {
			sw_bfs(t, a, w->dist, w->qu);
			last = a;
		}
		c.t = t;
		c.dist = w->dist;
		c.key = NULL;
		c.dir = 0;
		c.count = cnt;
		c.navoid = 0;
		np = n < t->nhosts ? l->npath : 1;
		for (uint32_t s = 0; s < t->nswitches; s++) {
			if (s == a) {
				for (uint32_t k = 0; k < np; k++)
					lft_setk(l, k, s, lid, hp);
				continue;
			}
			if (w->dist[s] == INF)
				continue;
			c.want = w->dist[s] - 1;
			for (uint32_t k = 0; k < np; k++) {
				unsigned p;
				if (k)
					avoid_fill(&c, l, av, s, lid, k);
				p = pick(&c, s);
				if (p)
					lft_setk(l, k, s, lid, p);
			}
		}
	}
}

int ir_route_minhop(ir_lft *l, const ir_topo *t, ir_err *e) { return ir_route_minhop_lmc(l, t, 0, e); }

int ir_route_minhop_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e)
{
	rwork w;
	if (ir_lft_init_lmc(l, t, lmc, e))
		return -1;
	if (rwork_init(&w, t, e)) {
		ir_lft_release(l);
		return -1;
	}
	minhop_lids(l, t, &w, w.cnt, 1);
	rwork_free(&w);
	return 0;
}

/* Distance of each switch to the nearest switch that has a host: aux[]. */
static void host_levels(const ir_topo *t, rwork *w)
{
	uint32_t h = 0, n = 0, H = t->nhosts;
	for (uint32_t i = 0; i < t->nswitches; i++)
		w->aux[i] = INF;
	for (uint32_t i = 0; i < t->nswitches; i++) {
		const ir_topo_node *x = &t->node[H + i];
		for (unsigned p = 0; p < x->nports; p++) {
			uint32_t v = t->port[x->port0 + p].peer;
			if (v != IR_TOPO_NONE && v < H) {
				w->aux[i] = 0;
				w->qu[n++] = i;
				break;
			}
		}
	}
	while (h < n) {
		uint32_t u = w->qu[h++];
		const ir_topo_node *x = &t->node[H + u];
		for (unsigned p = 0; p < x->nports; p++) {
			uint32_t v = t->port[x->port0 + p].peer;
			if (v != IR_TOPO_NONE && v >= H && w->aux[v - H] == INF) {
				w->aux[v - H] = w->aux[u] + 1;
				w->qu[n++] = v - H;
			}
		}
	}
}

static const uint32_t *sort_key;
static int by_key(const void *a, const void *b)
{
	uint32_t x = sort_key[*(const uint32_t *)a], y = sort_key[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

int ir_route_updn(ir_lft *l, const ir_topo *t, ir_err *e) { return ir_route_updn_lmc(l, t, 0, e); }

int ir_route_updn_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e)
{
	rwork w;
	uint32_t H = t->nhosts, S = t->nswitches, top = 0, *dd, *R, last = INF, av[1u << IR_LFT_MAX_LMC];
	if (ir_lft_init_lmc(l, t, lmc, e))
		return -1;
	if (rwork_init(&w, t, e)) {
		ir_lft_release(l);
		return -1;
	}
	dd = w.dist;
	R = malloc((S ? S : 1) * sizeof *R);
	if (!R) {
		rwork_free(&w);
		ir_lft_release(l);
		return ir_errf(e, "out of memory for routing");
	}
	/* roots: the switches farthest from any host; rank: BFS from all roots */
	host_levels(t, &w);
	for (uint32_t i = 0; i < S; i++)
		if (w.aux[i] != INF && w.aux[i] > top)
			top = w.aux[i];
	{
		uint32_t h = 0, n = 0;
		for (uint32_t i = 0; i < S; i++) {
			w.key[i] = INF;
			if (w.aux[i] == top) {
				w.key[i] = 0;
				w.qu[n++] = i;
			}
		}
		while (h < n) {
			uint32_t u = w.qu[h++];
			const ir_topo_node *x = &t->node[H + u];
			for (unsigned p = 0; p < x->nports; p++) {
				uint32_t v = t->port[x->port0 + p].peer;
				if (v != IR_TOPO_NONE && v >= H && w.key[v - H] == INF) {
					w.key[v - H] = w.key[u] + 1;
					w.qu[n++] = v - H;
				}
			}
		}
	}
	/* key = rank * S + index: a total order; up = towards a smaller key */
	for (uint32_t i = 0; i < S; i++) {
		uint64_t k = (uint64_t)(w.key[i] == INF ? S : w.key[i]) * S + i;
		w.key[i] = k > 0xFFFFFFFEu ? 0xFFFFFFFEu : (uint32_t)k;
		w.order[i] = i;
	}
	sort_key = w.key;
	qsort(w.order, S, sizeof *w.order, by_key);
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		uint32_t n = t->lid_node[lid], a;
		unsigned hp;
		cand_ctx c;
		if (n == IR_TOPO_NONE || n >= H)
			continue;
		a = dst_switch(t, n, &hp);
		if (a == INF)
			continue;
		if (a != last) {
			/* dd: down-only distance to a (backwards over down edges) */
			uint32_t h = 0, m = 0;
			for (uint32_t i = 0; i < S; i++)
				dd[i] = INF;
			dd[a] = 0;
			w.qu[m++] = a;
			while (h < m) {
				uint32_t u = w.qu[h++];
				const ir_topo_node *x = &t->node[H + u];
				for (unsigned p = 0; p < x->nports; p++) {
					uint32_t v = t->port[x->port0 + p].peer;
					/* x -> u is down when key[x] < key[u] */
					if (v != IR_TOPO_NONE && v >= H && dd[v - H] == INF && w.key[v - H] < w.key[u]) {
						dd[v - H] = dd[u] + 1;
						w.qu[m++] = v - H;
					}
				}
			}
			/* R: length of the route actually taken, in increasing key order */
			for (uint32_t k = 0; k < S; k++) {
				uint32_t s = w.order[k];
				const ir_topo_node *x = &t->node[H + s];
				R[s] = dd[s];
				if (R[s] != INF)
					continue;
				for (unsigned p = 0; p < x->nports; p++) {
					uint32_t v = t->port[x->port0 + p].peer;
					if (v != IR_TOPO_NONE && v >= H && w.key[v - H] < w.key[s] && R[v - H] != INF &&
					    R[v - H] + 1 < R[s])
						R[s] = R[v - H] + 1;
				}
			}
			last = a;
		}
		c.t = t;
		c.count = w.cnt;
		c.key = w.key;
		c.navoid = 0;
		for (uint32_t s = 0; s < S; s++) {
			unsigned p;
			if (s == a) {
				for (uint32_t k = 0; k < l->npath; k++)
					lft_setk(l, k, s, lid, hp);
				continue;
			}
			if (dd[s] != INF) {
				c.dist = dd;
				c.want = dd[s] - 1;
				c.dir = +1;
			} else if (R[s] != INF) {
				c.dist = R;
				c.want = R[s] - 1;
				c.dir = -1;
			} else {
				continue;
			}
			for (uint32_t k = 0; k < l->npath; k++) {
				if (k)
					avoid_fill(&c, l, av, s, lid, k);
				p = pick(&c, s);
				if (p)
					lft_setk(l, k, s, lid, p);
			}
		}
	}
	minhop_lids(l, t, &w, NULL, 2);
	free(R);
	rwork_free(&w);
	return 0;
}

int ir_route_ftree(ir_lft *l, const ir_topo *t, ir_err *e) { return ir_route_ftree_lmc(l, t, 0, e); }

int ir_route_ftree_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e)
{
	rwork w;
	uint32_t H = t->nhosts, S = t->nswitches, *lvl, *da, last = INF, maxl = 0;
	uint64_t div[64];
	if (ir_lft_init_lmc(l, t, lmc, e))
		return -1;
	if (rwork_init(&w, t, e)) {
		ir_lft_release(l);
		return -1;
	}
	host_levels(t, &w);
	lvl = w.aux;
	da = w.dist;
	for (uint32_t i = 0; i < S; i++)
		if (lvl[i] != INF && lvl[i] > maxl)
			maxl = lvl[i];
	if (maxl >= 63) {
		rwork_free(&w);
		ir_lft_release(l);
		return ir_errf(e, "ftree: %u switch levels; not a fat tree (use updn or minhop)", maxl + 1);
	}
	/* up ports of a switch: switch neighbours one level higher; div per level */
	for (uint32_t k = 0; k <= maxl; k++) {
		uint32_t nup = 0;
		div[k] = 1;
		for (uint32_t i = 0; i < S; i++)
			if (lvl[i] == k) {
				const ir_topo_node *x = &t->node[H + i];
				for (unsigned p = 0; p < x->nports; p++) {
					uint32_t v = t->port[x->port0 + p].peer;
					nup += v != IR_TOPO_NONE && v >= H && lvl[v - H] == k + 1;
				}
				break;
			}
		w.key[k] = nup ? nup : 1; /* key[]: up ports per level */
	}
	for (uint32_t k = 1; k <= maxl; k++) {
		div[k] = div[k - 1] * w.key[k - 1];
		if (div[k] > (uint64_t)1 << 40)
			div[k] = (uint64_t)1 << 40;
	}
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		uint32_t n = t->lid_node[lid], a;
		unsigned hp;
		if (n == IR_TOPO_NONE || n >= H)
			continue;
		a = dst_switch(t, n, &hp);
		if (a == INF)
			continue;
		if (a != last) {
			/* da: distance from a going only up (the switches that have a below them) */
			uint32_t h = 0, m = 0;
			for (uint32_t i = 0; i < S; i++)
				da[i] = INF;
			da[a] = 0;
			w.qu[m++] = a;
			while (h < m) {
				uint32_t u = w.qu[h++];
				const ir_topo_node *x = &t->node[H + u];
				for (unsigned p = 0; p < x->nports; p++) {
					uint32_t v = t->port[x->port0 + p].peer;
					if (v != IR_TOPO_NONE && v >= H && da[v - H] == INF && lvl[v - H] == lvl[u] + 1) {
						da[v - H] = da[u] + 1;
						w.qu[m++] = v - H;
					}
				}
			}
			last = a;
		}
		for (uint32_t s = 0; s < S; s++) {
			const ir_topo_node *x = &t->node[H + s];
			unsigned cand[IR_TOPO_MAX_PORTS], nc = 0;
			if (s == a) {
				for (uint32_t k = 0; k < l->npath; k++)
					lft_setk(l, k, s, lid, hp);
				continue;
			}
			if (lvl[s] == INF)
				continue;
			for (unsigned p = 1; p <= x->nports; p++) {
				uint32_t v = t->port[x->port0 + p - 1].peer;
				if (v == IR_TOPO_NONE || v < H)
					continue;
				if (da[s] != INF ? (da[v - H] == da[s] - 1 && lvl[v - H] + 1 == lvl[s])
				                 : lvl[v - H] == lvl[s] + 1)
					cand[nc++] = p;
			}
			if (!nc)
				continue;
			/* LID offset k: down over parallel links by (h + k), up by
			 * h / d + k / d, so the LIDs of a host leave a leaf by
			 * different up ports (and, past its up ports, further up) */
			for (uint32_t k = 0; k < l->npath; k++) {
				if (da[s] != INF)
					lft_setk(l, k, s, lid, cand[(n + k) % nc]);
				else
					lft_setk(l, k, s, lid, cand[(n / div[lvl[s]] + k / div[lvl[s]]) % nc]);
			}
		}
	}
	minhop_lids(l, t, &w, NULL, 2);
	rwork_free(&w);
	return 0;
}

/* ---- torus and mesh: dimension-order routing ---- */

int ir_route_dor(ir_lft *l, const ir_topo *t, ir_err *e)
{
	const ir_topo_shape *sh = &t->shape;
	uint32_t H = t->nhosts, S = t->nswitches, hp0 = sh->hps, nd = sh->ndims, *co;
	if (sh->kind != IR_SHAPE_TORUS)
		return ir_errf(e, "routing dor needs a torus:AxB... or mesh:AxB... generated topology");
	if (ir_lft_init(l, t, e))
		return -1;
	co = malloc((size_t)S * nd * sizeof *co);
	if (!sh->mesh)
		l->pcls = calloc(t->nports_total, 1);
	if (!co || (!sh->mesh && !l->pcls)) {
		free(co);
		ir_lft_release(l);
		return ir_errf(e, "out of memory for routing");
	}
	for (uint32_t i = 0; i < S; i++) {
		uint32_t x = i;
		for (unsigned d = 0; d < nd; d++) {
			uint32_t c = x % sh->dim[d];
			co[(size_t)i * nd + d] = c;
			x /= sh->dim[d];
			if (l->pcls) {
				uint32_t p0 = t->node[H + i].port0 + hp0 + 2 * d;
				l->pcls[p0] = (uint8_t)((d + 1) | (c + 1 == sh->dim[d] ? 0x80 : 0));
				l->pcls[p0 + 1] = (uint8_t)((d + 1) | (c == 0 ? 0x80 : 0));
			}
		}
	}
	if (!sh->mesh) {
		l->vlmode = IR_VLM_DATELINE;
		l->nclass = 2;
	}
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		uint32_t n = t->lid_node[lid], a;
		unsigned hp;
		if (n == IR_TOPO_NONE || (a = dst_switch(t, n, &hp)) == INF)
			continue;
		for (uint32_t s = 0; s < S; s++) {
			const uint32_t *cs = &co[(size_t)s * nd], *ca = &co[(size_t)a * nd];
			unsigned d = 0, p;
			if (s == a) {
				lft_set(l, s, lid, hp);
				continue;
			}
			while (cs[d] == ca[d])
				d++;
			if (sh->mesh)
				p = ca[d] > cs[d] ? 1 : 2;
			else {
				uint32_t k = sh->dim[d], delta = (ca[d] + k - cs[d]) % k;
				p = 2 * delta <= k ? 1 : 2;
			}
			lft_set(l, s, lid, hp0 + 2 * d + p);
		}
	}
	free(co);
	return 0;
}

/* ---- dragonfly: minimal, valiant, ugal ---- */

/* Global channel j of a group: offset o = j mod (g-1) to group G + o + 1; its
 * peer is channel q(g-1) + g-2-o of that group (unconnected when >= a*h). */
static uint32_t df_peer_channel(const ir_topo_shape *sh, uint32_t j)
{
	uint32_t G = sh->g, q = j / (G - 1), o = j % (G - 1);
	return q * (G - 1) + (G - 2 - o);
}

/* Port of router r towards router D (indices 0..R-1), spreading ties by key;
 * 0 when r == D. Cost of a global channel: 2 if it starts at another router
 * of r's group (a local hop first) + 1 if it lands on another router than D,
 * so a router with a channel to D's group always takes one of its own: at
 * most one local hop in each group. */
static unsigned df_port(const ir_topo_shape *sh, uint32_t r, uint32_t D, uint32_t key)
{
	uint32_t A = sh->a, P = sh->hps, Hh = sh->h, G = sh->g, C = A * Hh;
	uint32_t gr = r / A, gd = D / A, o, best = 4, nb = 0, pick = 0;
	if (r == D)
		return 0;
	if (gr == gd) {
		uint32_t x = r % A, y = D % A;
		return P + 1 + (y < x ? y : y - 1);
	}
	o = (gd + G - gr - 1) % G;
	/* two passes: count the cheapest, then take the (key mod count)-th */
	for (int pass = 0; pass < 2; pass++) {
		uint32_t k = 0;
		for (uint32_t j = o; j < C; j += G - 1) {
			uint32_t j2 = df_peer_channel(sh, j), cost;
			if (j2 >= C)
				continue;
			cost = 2 * (gr * A + j / Hh != r) + (gd * A + j2 / Hh != D);
			if (pass == 0) {
				if (cost < best) {
					best = cost;
					nb = 0;
				}
				nb += cost == best;
			} else if (cost == best && k++ == pick) {
				if (gr * A + j / Hh == r)
					return P + A + j % Hh;
				{
					uint32_t x = r % A, y = j / Hh;
					return P + 1 + (y < x ? y : y - 1);
				}
			}
		}
		if (!nb)
			return IR_LFT_NONE;
		pick = key % nb;
	}
	return IR_LFT_NONE;
}

int ir_route_dragonfly(ir_lft *l, const ir_topo *t, int path, ir_err *e)
{
	const ir_topo_shape *sh = &t->shape;
	uint32_t H = t->nhosts, S = t->nswitches;
	if (sh->kind != IR_SHAPE_DRAGONFLY)
		return ir_errf(e, "routing %s needs a dragonfly:a,p,h[,g] generated topology",
		               path == IR_PATH_DEST      ? "minimal"
		               : path == IR_PATH_VALIANT ? "valiant"
		               : path == IR_PATH_UGAL    ? "ugal"
		                                         : "ugal-g");
	if (ir_lft_init(l, t, e))
		return -1;
	l->pcls = calloc(t->nports_total, 1);
	if (!l->pcls) {
		ir_lft_release(l);
		return ir_errf(e, "out of memory for routing");
	}
	for (uint32_t s = 0; s < S; s++)
		for (uint32_t k = 0; k < sh->h; k++)
			l->pcls[t->node[H + s].port0 + sh->hps + sh->a - 1 + k] = 0x80;
	l->vlmode = IR_VLM_GLOBAL;
	l->nclass = path == IR_PATH_DEST ? 2 : 3;
	l->path = path;
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		uint32_t n = t->lid_node[lid], a;
		unsigned hp;
		if (n == IR_TOPO_NONE || (a = dst_switch(t, n, &hp)) == INF)
			continue;
		for (uint32_t s = 0; s < S; s++) {
			unsigned p = df_port(sh, s, a, n < H ? n : a);
			lft_set(l, s, lid, s == a ? hp : p);
		}
	}
	return 0;
}

static uint64_t mix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint32_t ir_route_via(const ir_lft *l, const ir_topo *t, uint32_t src, uint32_t dst)
{
	const ir_topo_shape *sh = &t->shape;
	uint32_t A = sh->a, Hh = sh->h, G = sh->g, C = A * Hh, H = t->nhosts, rs, rd, gs, gd, gi, o, n = 0, own = 0, k = 0;
	unsigned hp;
	uint64_t x;
	if (l->path == IR_PATH_DEST || sh->kind != IR_SHAPE_DRAGONFLY || G < 3 || src >= H || dst >= H)
		return IR_TOPO_NONE;
	rs = dst_switch(t, src, &hp);
	rd = dst_switch(t, dst, &hp);
	if (rs == INF || rd == INF || (gs = rs / A) == (gd = rd / A))
		return IR_TOPO_NONE;
	x = mix64(l->seed ^ ((uint64_t)src << 32 | dst));
	gi = (uint32_t)(x % (G - 2));
	/* the G-2 groups other than gs and gd, in order */
	if (gi >= (gs < gd ? gs : gd))
		gi++;
	if (gi >= (gs < gd ? gd : gs))
		gi++;
	/* the intermediate router: where a channel from gs to gi lands; one of
	 * rs's own channels when it has any (no local hop before the global) */
	o = (gi + G - gs - 1) % G;
	for (uint32_t j = o; j < C; j += G - 1)
		if (df_peer_channel(sh, j) < C) {
			n++;
			own += gs * A + j / Hh == rs;
		}
	if (!n)
		return IR_TOPO_NONE;
	x = mix64(x) % (own ? own : n);
	for (uint32_t j = o; j < C; j += G - 1) {
		uint32_t j2 = df_peer_channel(sh, j);
		if (j2 >= C || (own && gs * A + j / Hh != rs))
			continue;
		if (k++ == x)
			return H + gi * A + j2 / Hh;
	}
	return IR_TOPO_NONE;
}

/* ---- channel dependency check ---- */

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int ir_route_cdg(const ir_lft *l, const ir_topo *t, ir_err *e)
{
	uint32_t H = t->nhosts, nc = l->nclass ? l->nclass : 1, nch = t->nports_total * nc, lim = 4 * t->nswitches + 8;
	uint64_t *ed = NULL;
	size_t ne = 0, cap = 0;
	uint32_t *first = NULL, *st = NULL;
	uint8_t *col = NULL;
	int rc = -1;
	for (uint32_t s = 0; s < H; s++)
		for (uint32_t dk = 0; dk < H * l->npath; dk++) {
			unsigned hp;
			uint32_t d = dk / l->npath, k = dk % l->npath, x, in_gp, via, target, prev = NIL32, steps = 0, c = 0;
			if (s == d || (x = attach(t, s, &hp)) == IR_TOPO_NONE || x < H)
				continue;
			in_gp = t->node[x].port0 + hp - 1;
			via = ir_route_via(l, t, s, d);
			target = via != IR_TOPO_NONE ? t->node[via].lid : t->node[d].lid;
			for (;;) {
				unsigned p = ir_lft_get_path(l, x - H, target, target == t->node[d].lid ? k : 0), c2;
				uint32_t out_gp;
				const ir_topo_port *pp;
				if (p == 0 && target != t->node[d].lid) {
					target = t->node[d].lid;
					continue;
				}
				if (p == 0 || p == IR_LFT_NONE || p > t->node[x].nports || ++steps > lim) {
					ir_errf(e, "route from '%s' to '%s' breaks or loops at switch '%s'", ir_topo_name(t, s),
					        ir_topo_name(t, d), ir_topo_name(t, x));
					goto out;
				}
				out_gp = t->node[x].port0 + p - 1;
				pp = &t->port[out_gp];
				if (pp->peer == IR_TOPO_NONE)
					break;
				if (pp->peer < H)
					break;
				c2 = ir_lft_next_class(l, in_gp, out_gp, c);
				if (c2 >= nc) {
					ir_errf(e, "route from '%s' to '%s' needs VL class %u of %u at switch '%s'", ir_topo_name(t, s),
					        ir_topo_name(t, d), c2, nc, ir_topo_name(t, x));
					goto out;
				}
				{
					uint32_t ch = out_gp * nc + c2;
					if (prev != NIL32) {
						if (IR_GROW(ed, ne + 1, cap)) {
							ir_errf(e, "out of memory for the dependency graph");
							goto out;
						}
						ed[ne++] = (uint64_t)prev << 32 | ch;
					}
					prev = ch;
				}
				c = c2;
				x = pp->peer;
				in_gp = t->node[x].port0 + pp->peer_port - 1;
			}
			/* keep the edge list small: dedupe now and then */
			if (ne > ((size_t)1 << 22)) {
				size_t m = 0;
				qsort(ed, ne, sizeof *ed, by_u64);
				for (size_t i = 0; i < ne; i++)
					if (!m || ed[m - 1] != ed[i])
						ed[m++] = ed[i];
				ne = m;
			}
		}
	if (ne)
		qsort(ed, ne, sizeof *ed, by_u64);
	first = calloc((size_t)nch + 1, sizeof *first);
	col = calloc(nch ? nch : 1, 1);
	st = malloc(((size_t)nch + 1) * 2 * sizeof *st);
	if (!first || !col || !st) {
		ir_errf(e, "out of memory for the dependency graph");
		goto out;
	}
	for (size_t i = 0; i < ne; i++)
		first[(ed[i] >> 32) + 1]++;
	for (uint32_t i = 0; i < nch; i++)
		first[i + 1] += first[i];
	/* edges are sorted by source: ed[first[u] .. first[u+1]) are u's (with repeats) */
	rc = 0;
	for (uint32_t r = 0; r < nch && !rc; r++) {
		uint32_t sp = 0;
		if (col[r])
			continue;
		st[sp++] = r;
		st[sp++] = first[r];
		col[r] = 1;
		while (sp && !rc) {
			uint32_t u = st[sp - 2], i = st[sp - 1], v;
			if (i == first[u + 1]) {
				col[u] = 2;
				sp -= 2;
				continue;
			}
			st[sp - 1]++;
			v = (uint32_t)ed[i];
			if (col[v] == 1) {
				uint32_t gp = v / nc;
				uint32_t node = 0;
				while (node + 1 < t->nnodes && t->node[node + 1].port0 <= gp)
					node++;
				ir_errf(e, "channel dependency cycle through switch '%s' port %u VL class %u", ir_topo_name(t, node),
				        gp - t->node[node].port0 + 1, v % nc);
				rc = 1;
			} else if (!col[v]) {
				col[v] = 1;
				st[sp++] = v;
				st[sp++] = first[v];
			}
		}
	}
out:
	free(ed);
	free(first);
	free(col);
	free(st);
	return rc;
}

int ir_route(ir_lft *l, const ir_topo *t, const char *engine, ir_err *e) { return ir_route_lmc(l, t, engine, 0, e); }

int ir_route_lmc(ir_lft *l, const ir_topo *t, const char *engine, unsigned lmc, ir_err *e)
{
	int rc;
	char q[80];
	if (lmc > IR_LFT_MAX_LMC)
		return ir_errf(e, "invalid LMC %u (expected 0..%u)", lmc, IR_LFT_MAX_LMC);
	if (lmc && strcmp(engine, "minhop") && strcmp(engine, "updn") && strcmp(engine, "ftree"))
		return ir_errf(e, "lmc = %u needs routing minhop, updn or ftree (routing '%s' gives one path per "
		                  "destination)", lmc, ir_err_quote(q, sizeof q, engine, strlen(engine)));
	if (strcmp(engine, "minhop") == 0)
		rc = ir_route_minhop_lmc(l, t, lmc, e);
	else if (strcmp(engine, "dor") == 0)
		rc = ir_route_dor(l, t, e);
	else if (strcmp(engine, "minimal") == 0)
		rc = ir_route_dragonfly(l, t, IR_PATH_DEST, e);
	else if (strcmp(engine, "valiant") == 0)
		rc = ir_route_dragonfly(l, t, IR_PATH_VALIANT, e);
	else if (strcmp(engine, "ugal") == 0)
		rc = ir_route_dragonfly(l, t, IR_PATH_UGAL, e);
	else if (strcmp(engine, "ugal-g") == 0)
		rc = ir_route_dragonfly(l, t, IR_PATH_UGAL_G, e);
	else if (strcmp(engine, "updn") == 0)
		rc = ir_route_updn_lmc(l, t, lmc, e);
	else if (strcmp(engine, "ftree") == 0)
		rc = ir_route_ftree_lmc(l, t, lmc, e);
	else if (strncmp(engine, "lft:", 4) == 0 && engine[4])
		rc = ir_lft_load(l, t, engine + 4, e);
	else
		return ir_errf(e, "unknown routing engine '%s' (expected minhop, updn, ftree, dor, minimal, valiant, ugal, "
		                  "ugal-g or lft:FILE)",
		               ir_err_quote(q, sizeof q, engine, strlen(engine)));
	if (rc)
		return -1;
	if (ir_lft_check(l, t, e)) {
		ir_lft_release(l);
		return -1;
	}
	return 0;
}

int ir_lft_check(const ir_lft *l, const ir_topo *t, ir_err *e)
{
	uint32_t H = t->nhosts, S = t->nswitches;
	uint8_t *st = malloc(S ? S : 1);
	uint32_t *path = malloc((S ? S : 1) * sizeof *path);
	if (!st || !path) {
		free(st);
		free(path);
		return ir_errf(e, "out of memory for checking routes");
	}
	for (uint32_t dk = 0; dk < H * l->npath; dk++) {
		uint32_t d = dk / l->npath, k = dk % l->npath, lid = t->node[d].lid;
		memset(st, 0, S ? S : 1); /* 0 unknown, 1 on the current path, 2 reaches d */
		for (uint32_t s = 0; s < H; s++) {
			unsigned hp;
			uint32_t x, np = 0;
			if (s == d)
				continue;
			x = attach(t, s, &hp);
			if (x == d)
				continue;
			if (x == IR_TOPO_NONE || x < H) {
				free(st);
				free(path);
				return ir_errf(e, "host '%s' cannot reach host '%s'", ir_topo_name(t, s), ir_topo_name(t, d));
			}
			x -= H;
			while (st[x] != 2) {
				unsigned p = ir_lft_get_path(l, x, lid, k);
				const ir_topo_port *pp = NULL;
				const char *why = NULL;
				if (st[x] == 1)
					why = "a routing loop";
				else if (p == IR_LFT_NONE || p == 0)
					why = "no route";
				else if (p > t->node[H + x].nports)
					why = "a port the switch does not have";
				else if ((pp = ir_topo_portp(t, H + x, p))->peer == IR_TOPO_NONE)
					why = "an unconnected port";
				else if (pp->peer < H && pp->peer != d)
					why = "another host";
				if (why) {
					ir_errf(e, "routes to '%s' (LID %u): switch '%s' has %s (entry %u)", ir_topo_name(t, d), lid + k,
					        ir_topo_name(t, H + x), why, p);
					free(st);
					free(path);
					return -1;
				}
				st[x] = 1;
				path[np++] = x;
				if (pp->peer == d)
					break;
				x = pp->peer - H;
			}
			while (np)
				st[path[--np]] = 2;
		}
	}
	free(st);
	free(path);
	return 0;
}

/* Routes per link direction: every ordered pair of hosts is followed through the tables and
 * counts once on each link direction it crosses (the host's own links included). The walk is
 * O(hosts^2 x hops): 12 M pairs on the 3456-host fattree3:24, well under a second, and only on
 * request. The tables must have passed ir_lft_check (ir_route does it); a walk longer than the
 * switches is refused all the same rather than followed forever. The summary line is over
 * links between switches, where the engines differ: a host's link carries hosts - 1 routes
 * each way under any of them. */
int ir_lft_route_stats(const ir_lft *l, const ir_topo *t, ir_sb *out, ir_err *e)
{
	return ir_lft_route_stats_paths(l, t, 1, out, e);
}

int ir_lft_route_stats_paths(const ir_lft *l, const ir_topo *t, int all, ir_sb *out, ir_err *e)
{
	uint32_t H = t->nhosts, S = t->nswitches, nsw = 0;
	uint64_t *load = calloc(t->nports_total ? t->nports_total : 1, sizeof *load), sum = 0, max = 0;
	char ln[32];
	int r = 0;
	if (!load)
		return ir_errf(e, "out of memory for route statistics");
	for (uint32_t s = 0; s < H; s++) {
		uint32_t sp = IR_TOPO_NONE, x0 = IR_TOPO_NONE;
		for (unsigned p = 1; p <= t->node[s].nports && sp == IR_TOPO_NONE; p++)
			if (ir_topo_portp(t, s, p)->peer != IR_TOPO_NONE) {
				sp = t->node[s].port0 + p - 1;
				x0 = t->port[sp].peer;
			}
		for (uint32_t dk = 0; dk < H * l->npath; dk++) {
			uint32_t d = dk / l->npath, k = dk % l->npath, x = x0, lid = t->node[d].lid, hops = 0;
			if (d == s || sp == IR_TOPO_NONE || (!all && k != ir_lft_static_path(l, s, d)))
				continue;
			load[sp]++;
			while (x != d) {
				unsigned p = x >= H ? ir_lft_get_path(l, x - H, lid, k) : IR_LFT_NONE;
				const ir_topo_port *pp;
				if (x < H || p == 0 || p == IR_LFT_NONE || p > t->node[x].nports || ++hops > S ||
				    (pp = ir_topo_portp(t, x, p))->peer == IR_TOPO_NONE) {
					free(load);
					return ir_errf(e, "route statistics: host '%s' does not reach host '%s' (tables not checked)",
					               ir_topo_name(t, s), ir_topo_name(t, d));
				}
				load[t->node[x].port0 + p - 1]++;
				x = pp->peer;
			}
		}
	}
	r = ir_sb_adds(out, "from\tport\tto\tport\tlink\troutes\n");
	for (uint32_t i = 0; i < t->nnodes && !r; i++)
		for (unsigned p = 1; p <= t->node[i].nports && !r; p++) {
			uint32_t gp = t->node[i].port0 + p - 1;
			const ir_topo_port *x = &t->port[gp];
			if (x->peer == IR_TOPO_NONE)
				continue;
			if (t->node[i].is_switch && t->node[x->peer].is_switch) {
				nsw++;
				sum += load[gp];
				if (load[gp] > max)
					max = load[gp];
			}
			r = ir_sb_addf(out, "%s\t%u\t%s\t%u\t%s\t%llu\n", ir_topo_name(t, i), p, ir_topo_name(t, x->peer),
			               x->peer_port, ir_topo_link_name(ln, sizeof ln, x->width, x->mbps),
			               (unsigned long long)load[gp]);
		}
	if (!r)
		r = ir_sb_addf(out, "# switch links %u routes %llu max %llu mean %.3f max/mean %.3f\n", nsw,
		               (unsigned long long)sum, (unsigned long long)max, nsw ? (double)sum / nsw : 0.0,
		               sum ? (double)max * nsw / (double)sum : 0.0);
	free(load);
	if (r)
		return ir_errf(e, "out of memory for route statistics");
	return 0;
}

/* ---- dumps ---- */

static const char *node_kind(const ir_topo *t, uint32_t n)
{
	return t->node[n].is_switch ? "Switch" : "Channel Adapter";
}

/* The GUID a dump names node n by: a host's port GUID (the port it uses) where the topology
 * file gave one, else the node's GUID (a switch's port 0 has the node's). */
static uint64_t dump_guid(const ir_topo *t, uint32_t n)
{
	if (!t->node[n].is_switch)
		for (unsigned p = 1; p <= t->node[n].nports; p++) {
			const ir_topo_port *x = ir_topo_portp(t, n, p);
			if (x->peer != IR_TOPO_NONE)
				return x->guid ? x->guid : t->node[n].guid;
		}
	return t->node[n].guid;
}

int ir_lft_write(const ir_lft *l, const ir_topo *t, ir_sb *out)
{
	uint32_t H = t->nhosts;
	for (uint32_t s = 0; s < l->nsw; s++) {
		uint32_t node = H + s, n = 0;
		if (ir_sb_addf(out, "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016llx ('%s'):\n", t->max_lid,
		               t->node[node].lid, (unsigned long long)t->node[node].guid, ir_topo_name(t, node)))
			return -1;
		for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
			unsigned p = ir_lft_get(l, s, lid);
			uint32_t dn = t->lid_node[lid];
			if (p == IR_LFT_NONE || dn == IR_TOPO_NONE)
				continue;
			if (ir_sb_addf(out, "0x%04x %03u # %s portguid 0x%016llx: '%s'\n", lid, p, node_kind(t, dn),
			               (unsigned long long)dump_guid(t, dn), ir_topo_name(t, dn)))
				return -1;
			n++;
		}
		if (ir_sb_addf(out, "%u lids dumped\n", n))
			return -1;
	}
	return 0;
}

/* strtoull over [p, end) only: the text need not be NUL-terminated. Leading
 * blanks are not skipped. Saturates at ULLONG_MAX on overflow; *ep = p when no
 * digit was found. */
static unsigned long long scan_ull(const char *p, const char *end, int base, const char **ep)
{
	unsigned long long v = 0;
	const char *q = p;
	for (; q < end; q++) {
		unsigned d;
		char c = *q;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		v = v > (~0ULL - d) / (unsigned)base ? ~0ULL : v * (unsigned)base + d;
	}
	*ep = q;
	return v;
}

/* Port GUID -> the node a dump entry is for (GUID_SKIP: a port of a host that it does not use,
 * GUID_AMBIG: two nodes claim it). */
#define GUID_SKIP (IR_TOPO_NONE - 1)
#define GUID_AMBIG (IR_TOPO_NONE - 2)
static int guid_put(ir_hmap *m, uint64_t g, uint32_t v)
{
	int isnew;
	uint32_t *x;
	if (!g)
		return 0;
	if (!(x = ir_hmap_put(m, g, 0, &isnew)))
		return -1;
	*x = isnew || *x == v ? v : GUID_AMBIG;
	return 0;
}

static int guid_map(ir_hmap *m, const ir_topo *t)
{
	for (uint32_t n = 0; n < t->nnodes; n++) {
		uint64_t own = dump_guid(t, n);
		if (guid_put(m, own, n))
			return -1;
		if (!t->node[n].is_switch)
			for (unsigned p = 1; p <= t->node[n].nports; p++) {
				uint64_t g = ir_topo_portp(t, n, p)->guid;
				if (g && g != own && guid_put(m, g, GUID_SKIP))
					return -1;
			}
	}
	return 0;
}

int ir_lft_parse(ir_lft *l, const ir_topo *t, const char *text, size_t len, const char *name, ir_err *e)
{
	const char *p = text, *end = text + len;
	unsigned long no = 0;
	uint32_t cur = IR_TOPO_NONE, H = t->nhosts;
	char q[200];
	ir_hmap guids;
	int mapped = 0;
	if (ir_lft_init(l, t, e))
		return -1;
	ir_hmap_init(&guids, sizeof(uint32_t), 64, 0);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *s = p, *le;
		if (!nl)
			nl = end;
		le = nl;
		if (le > s && le[-1] == '\r')
			le--;
		p = nl < end ? nl + 1 : end;
		no++;
		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		if (s == le || *s == '#')
			continue;
		if ((size_t)(le - s) >= 12 && memcmp(s, "Unicast lids", 12) == 0) {
			const char *g = memmem(s, (size_t)(le - s), " guid 0x", 8), *lp;
			unsigned long long guid = 0, lidv = 0;
			cur = IR_TOPO_NONE;
			if (g) {
				const char *ep;
				guid = scan_ull(g + 8, le, 16, &ep);
				for (uint32_t i = H; i < t->nnodes && cur == IR_TOPO_NONE; i++)
					if (t->node[i].guid == guid && guid)
						cur = i - H;
			}
			if (cur == IR_TOPO_NONE && (lp = memmem(s, (size_t)(le - s), "switch Lid ", 11))) {
				const char *ep;
				lidv = scan_ull(lp + 11, le, 10, &ep);
				if (lidv && lidv <= t->max_lid && t->lid_node[lidv] != IR_TOPO_NONE && t->lid_node[lidv] >= H)
					cur = t->lid_node[lidv] - H;
			}
			if (cur == IR_TOPO_NONE) {
				ir_lft_release(l);
				ir_hmap_release(&guids);
				return ir_errf_at(e, name, no, "table of a switch the topology does not have (guid 0x%016llx, "
				                               "lid %llu): '%s'", guid, lidv, ir_err_quote(q, sizeof q, s, (size_t)(le - s)));
			}
			continue;
		}
		if ((size_t)(le - s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			const char *ep;
			unsigned long long lid = scan_ull(s + 2, le, 16, &ep), port;
			const char *x = ep;
			if (x == s + 2 || x == le || (*x != ' ' && *x != '\t')) {
				ir_lft_release(l);
				ir_hmap_release(&guids);
				return ir_errf_at(e, name, no, "expected 'LID PORT', found '%s'", ir_err_quote(q, sizeof q, s, (size_t)(le - s)));
			}
			while (x < le && (*x == ' ' || *x == '\t'))
				x++;
			port = scan_ull(x, le, 10, &ep);
			if (ep == x || (ep < le && *ep != ' ' && *ep != '\t' && *ep != ':')) {
				ir_lft_release(l);
				ir_hmap_release(&guids);
				return ir_errf_at(e, name, no, "expected 'LID PORT', found '%s'", ir_err_quote(q, sizeof q, s, (size_t)(le - s)));
			}
			if (cur == IR_TOPO_NONE) {
				ir_lft_release(l);
				ir_hmap_release(&guids);
				return ir_errf_at(e, name, no, "entry before any 'Unicast lids ... of switch' header");
			}
			/* the destination by its port GUID where the entry names one the topology knows:
			 * then the dump's LIDs need not be the topology's (ibnetdiscover run before
			 * OpenSM gave out LIDs has none, and ibreplay numbers the nodes itself) */
			{
				const char *g = memmem(ep, (size_t)(le - ep), "portguid 0x", 11);
				if (g) {
					const char *ge;
					unsigned long long gv = scan_ull(g + 11, le, 16, &ge);
					const uint32_t *v;
					if (!mapped) {
						if (guid_map(&guids, t)) {
							ir_lft_release(l);
							ir_hmap_release(&guids);
							return ir_errf(e, "out of memory for the GUIDs of '%s'", name);
						}
						mapped = 1;
					}
					if (ge > g + 11 && (v = ir_hmap_get(&guids, gv, 0)) != NULL) {
						if (*v == GUID_SKIP)
							continue;
						if (*v != GUID_AMBIG)
							lid = t->node[*v].lid;
					}
				}
			}
			if (lid > t->max_lid || port > t->node[H + cur].nports) {
				if (lid > t->max_lid && lid <= IR_TOPO_MAX_LID)
					continue; /* a LID the topology does not use */
				ir_lft_release(l);
				ir_hmap_release(&guids);
				return ir_errf_at(e, name, no, "switch '%s': invalid entry '%s' (LID up to 0x%x, port up to %u)",
				                  ir_topo_name(t, H + cur), ir_err_quote(q, sizeof q, s, (size_t)(le - s)), t->max_lid,
				                  t->node[H + cur].nports);
			}
			lft_set(l, cur, (uint32_t)lid, (unsigned)port);
			continue;
		}
		/* column headers and trailers of ibroute and dump_lfts */
		if (memmem(s, (size_t)(le - s), "lids dumped", 11) || memmem(s, (size_t)(le - s), "Lid", 3) ||
		    memmem(s, (size_t)(le - s), "Port", 4))
			continue;
		ir_lft_release(l);
		ir_hmap_release(&guids);
		return ir_errf_at(e, name, no, "expected a 'Unicast lids' header or a 'LID PORT' entry, found '%s'",
		                  ir_err_quote(q, sizeof q, s, (size_t)(le - s)));
	}
	ir_hmap_release(&guids);
	return 0;
}

int ir_lft_load(ir_lft *l, const ir_topo *t, const char *path, ir_err *e)
{
	ir_reader *r = ir_reader_open(path, e);
	ir_sb sb = IR_SB_INIT;
	int rc;
	if (!r)
		return -1;
	rc = ir_reader_slurp(r, &sb, (size_t)1 << 30, e);
	ir_reader_free(r);
	if (rc == 0)
		rc = ir_lft_parse(l, t, sb.buf, sb.len, path, e);
	ir_sb_release(&sb);
	return rc;
}
