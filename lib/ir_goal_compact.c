/*
 * ir_goal_compact.c: the compact in-memory form of a schedule (ir_csched,
 * ir_goal.h), the one the simulator runs on.
 *
 * Why: the binary format's 24-byte op records are the right thing on disk
 * (fixed-size, checkable, one section per rank), but as the engine's working
 * set they cost a dissemination of a million ranks 1.1 GB, and a ring of 256
 * ranks streams a cache line per 2.7 ops from 256 places at once. Most of a
 * record repeats from op to op: type, cpu, nic, tag and size take a few dozen
 * values in a generated schedule and a few thousand in a traced one, and the
 * peer, taken as a distance from the op's own rank, repeats across ranks in
 * rings, stencils and butterflies. So an op is 8 bytes: a word naming an
 * entry of a table of distinct attributes (or holding a short calc's duration
 * itself) and the index of its first dependent; edges name global op ids.
 *
 * Costs: one hash lookup per op while loading (a few ns: the table is small and
 * cached); one more load per op in the engine (the attribute entry, cached for
 * the same reason). A schedule whose ops share nothing (every send with its own
 * size, peer distance and tag) costs 8 + 24 bytes per op instead of 24 + 0;
 * calcs, whose durations rarely repeat in traces, are inline below 2^31 ps and
 * cost 8 bytes.
 *
 * Tiles (docs/design.md section 7): a block of 512 consecutive ranks that run one program
 * is rewritten, once its last rank is added, so that op i of its ranks lie side by side;
 * ir_cs_gid (ir_goal.h) finds an op in either layout.
 *
 * Rejected: a per-rank dictionary (the same attributes would be stored once per
 * rank: a million copies); variable-length records (the engine reads op i of a
 * rank directly); keeping the 24-byte records and only dropping what the engine
 * never reads (every field is read).
 */
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_grow.h"
#include "ir_spill.h"

#define ATTR_MAX ((uint32_t)0x7FFFFFFFu)

int ir_csched_init(ir_csched *c, uint32_t nranks, uint64_t nops, uint64_t nedges, ir_err *e)
{
	memset(c, 0, sizeof *c);
	if (nops >= 0x80000000u)
		return ir_errf(e, "schedule too large: %llu ops (the engine handles at most %u)", (unsigned long long)nops,
		               0x7FFFFFFFu);
	if (nedges >= 0xFFFFFFFFu)
		return ir_errf(e, "schedule too large: %llu dependencies (the engine handles at most %u)",
		               (unsigned long long)nedges, 0xFFFFFFFEu);
	c->nranks = nranks;
	/* the largest arrays of a run: in files under ibsim --spill's directory (ir_spill.h) */
	c->op = ir_spill_calloc((size_t)nops + 1, sizeof *c->op, "the schedule's ops", e);
	c->edge = c->op ? ir_spill_calloc(nedges ? (size_t)nedges : 1, sizeof *c->edge, "the schedule's dependencies", e)
	                : NULL;
	c->base = c->edge ? ir_spill_calloc(nranks ? (size_t)nranks : 1, sizeof *c->base, "the schedule's ranks", e) : NULL;
	c->priv_hcap = 1024;
	c->priv_hash = calloc(c->priv_hcap, sizeof *c->priv_hash);
	if (!c->op || !c->edge || !c->base) {
		ir_csched_release(c);
		return -1; /* e says which */
	}
	if (!c->priv_hash) {
		ir_csched_release(c);
		return ir_errf(e, "out of memory for %llu ops and %llu dependencies", (unsigned long long)nops,
		               (unsigned long long)nedges);
	}
	memset(c->base, 0xff, (size_t)nranks * sizeof *c->base);
	c->tile = nranks >= IR_CS_TILE_AUTO;
	/* nops and nedges count what was added; finish checks them against the room and
	 * leaves op[nops].s = nedges */
	c->priv_cap_ops = (uint32_t)nops;
	c->priv_cap_edges = (uint32_t)nedges;
	return 0;
}

void ir_csched_release(ir_csched *c)
{
	ir_spill_free(c->op);
	ir_spill_free(c->edge);
	ir_spill_free(c->base);
	free(c->attr);
	free(c->priv_hash);
	free(c->priv_t_buf);
	memset(c, 0, sizeof *c);
}

static inline uint32_t attr_hash(const ir_cattr *x)
{
	uint64_t h = x->size * 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)x->peer << 32 | x->tag) * 0xC2B2AE3D27D4EB4Full;
	h ^= (uint64_t)(x->type | x->cpu << 8 | x->nic << 16 | (unsigned)x->rel << 24) * 0x165667B19E3779F9ull;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h >> 32);
}

static int rehash(ir_csched *c)
{
	size_t ncap = c->priv_hcap * 2, mask = ncap - 1;
	uint32_t *nh = calloc(ncap, sizeof *nh);
	if (!nh)
		return -1;
	for (uint32_t i = 0; i < c->nattr; i++) {
		size_t k = attr_hash(&c->attr[i]) & mask;
		while (nh[k])
			k = (k + 1) & mask;
		nh[k] = i + 1;
	}
	free(c->priv_hash);
	c->priv_hash = nh;
	c->priv_hcap = ncap;
	return 0;
}

/* The index of attribute x, added if new; UINT32_MAX when out of memory. */
static uint32_t attr_of(ir_csched *c, const ir_cattr *x)
{
	size_t mask = c->priv_hcap - 1, k = attr_hash(x) & mask;
	uint32_t v;
	while ((v = c->priv_hash[k]) != 0) {
		const ir_cattr *y = &c->attr[v - 1];
		/* field by field: x was just written field by field (a whole-struct compare
		 * would wait for those stores) */
		if (y->size == x->size && y->peer == x->peer && y->tag == x->tag && y->type == x->type &&
		    y->cpu == x->cpu && y->nic == x->nic && y->rel == x->rel)
			return v - 1;
		k = (k + 1) & mask;
	}
	if (c->nattr >= ATTR_MAX || IR_GROW(c->attr, (size_t)c->nattr + 1, c->attr_cap))
		return UINT32_MAX;
	c->attr[c->nattr] = *x;
	c->priv_hash[k] = ++c->nattr;
	if ((size_t)c->nattr * 2 > c->priv_hcap && rehash(c))
		return UINT32_MAX;
	return c->nattr - 1;
}

uint32_t ir_csched_word(ir_csched *c, const ir_cattr *x)
{
	if (x->type == IR_OP_CALC && x->cpu == 0 && x->size < IR_COP_INLINE)
		return IR_COP_INLINE | (uint32_t)x->size;
	return attr_of(c, x);
}

int ir_csched_reserve(ir_csched *c, uint32_t rank, uint32_t nops, uint32_t nedges, uint32_t *g0, uint32_t *e0,
                      ir_err *e)
{
	if (rank >= c->nranks || c->base[rank] != UINT32_MAX)
		return ir_errf(e, "rank %u added twice or out of range (%u ranks)", rank, c->nranks);
	if (nops > c->priv_cap_ops - c->nops || nedges > c->priv_cap_edges - c->nedges)
		return ir_errf(e, "rank %u: more ops or dependencies than counted", rank);
	*g0 = c->nops;
	*e0 = c->nedges;
	return 0;
}

/* The largest block tiled (its ops and edges copied aside while they are rewritten): blocks of
 * ranks with more ops stay rank by rank, which costs them nothing, their ranks' own lines
 * being long enough to stream. */
#define TILE_MAX_BYTES ((size_t)4 << 20)

static unsigned word_type(const ir_csched *c, uint32_t a)
{
	return (a & IR_COP_INLINE) ? IR_OP_CALC : c->attr[a].type;
}

/* Rank x (m ops at op[x0 ..], its edges ending at xe1) runs the program of rank y (op[y0 ..],
 * the rank added just before x or earlier): the same op types with the same dependencies and
 * the same calcs; the peers and sizes of messages may differ. Ranks that do are taken to move
 * in step (ranks whose computations differ drift apart, and then a tile costs them a page per
 * op: pairs of ranks exchanging between calcs of different lengths ran 8 % slower tiled). */
static int same_program(const ir_csched *c, uint32_t y0, uint32_t x0, uint32_t m, uint32_t xe1)
{
	const uint32_t *ed = c->edge;
	for (uint32_t i = 0; i < m; i++) {
		const ir_csop *x = &c->op[x0 + i], *y = &c->op[y0 + i];
		uint32_t nx = (i + 1 < m ? x[1].s : xe1) - x->s, ny = y[1].s - y->s;
		if (nx != ny || (x->a != y->a && (word_type(c, x->a) != word_type(c, y->a) ||
		                                  word_type(c, x->a) == IR_OP_CALC)))
			return 0;
		for (uint32_t q = 0; q < nx; q++)
			if (ed[x->s + q] - x0 != ed[y->s + q] - y0)
				return 0;
	}
	return 1;
}

/* Lay the block of IR_CS_TILE ranks from priv_t_first out tiled: its m ops each at
 * op[g0 ..] and edges at edge[e0 .. e1) were added rank by rank, one after the other, and
 * run one program. */
static void tile_block(ir_csched *c, uint32_t e1)
{
	uint32_t m = c->priv_t_m, n = m * IR_CS_TILE, g0 = c->priv_t_g0, e0 = c->priv_t_e0, k = e0;
	size_t need = (size_t)n * sizeof(ir_csop) + (size_t)(e1 - e0) * sizeof(uint32_t);
	ir_csop *so;
	uint32_t *se;
	if (need > TILE_MAX_BYTES)
		return;
	if (need > c->priv_t_cap) {
		void *p = realloc(c->priv_t_buf, need);
		if (!p) /* the rank-by-rank layout is as correct */
			return;
		c->priv_t_buf = p;
		c->priv_t_cap = need;
	}
	so = c->priv_t_buf;
	se = (uint32_t *)(so + n);
	memcpy(so, c->op + g0, (size_t)n * sizeof *so);
	memcpy(se, c->edge + e0, (size_t)(e1 - e0) * sizeof *se);
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < IR_CS_TILE; j++) {
			uint32_t x = j * m + i, rb = g0 + j * m, b = so[x].s, end = x + 1 < n ? so[x + 1].s : e1;
			ir_csop *d = &c->op[g0 + (i << IR_CS_TILE_SHIFT) + j];
			d->a = so[x].a;
			d->s = k;
			for (uint32_t y = b; y < end; y++) {
				uint32_t ed = se[y - e0], t = (ed & IR_EDGE_INDEX) - rb; /* below m: checked on adding */
				c->edge[k++] = (ed & IR_EDGE_IREQ) | (g0 + j + (t << IR_CS_TILE_SHIFT));
			}
		}
	for (uint32_t j = 0; j < IR_CS_TILE; j++)
		c->base[c->priv_t_first + j] = (g0 + j) | IR_CS_TILED;
	c->ntiled += IR_CS_TILE;
}

void ir_csched_commit(ir_csched *c, uint32_t rank, uint32_t nops, uint32_t nedges)
{
	uint32_t j = rank & (IR_CS_TILE - 1), g0 = c->nops, e0 = c->nedges;
	c->base[rank] = g0;
	c->nops += nops;
	c->nedges += nedges;
	c->priv_ranks++;
	if (!c->tile)
		return;
	/* the block of `rank`: tiled once its ranks have all come, in order, with equal counts,
	 * each running the program of the block's first */
	if (j == 0) {
		c->priv_t_first = rank;
		/* a block above TILE_MAX_BYTES is not tiled (its ops alone, here; with its edges in
		 * tile_block) */
		c->priv_t_n = (uint64_t)nops * IR_CS_TILE * sizeof(ir_csop) <= TILE_MAX_BYTES;
		c->priv_t_m = nops;
		c->priv_t_g0 = g0;
		c->priv_t_e0 = e0;
	} else if (c->priv_t_n == j && rank == c->priv_t_first + j && nops == c->priv_t_m &&
	           g0 == c->priv_t_g0 + (uint64_t)j * nops && same_program(c, c->priv_t_g0, g0, nops, c->nedges)) {
		c->priv_t_n++;
	} else {
		c->priv_t_n = 0;
	}
	if (c->priv_t_n == IR_CS_TILE && nops > 0)
		tile_block(c, c->nedges);
}

int ir_csched_add(ir_csched *c, uint32_t rank, const ir_rank *r, ir_err *e)
{
	uint32_t g0, e0;
	/* the attributes of the op of the same type before, as scalars: the next op often
	 * has the same ones (sends and receives alternate in many schedules) */
	uint32_t last[8], lpeer[8] = { 0 }, ltag[8] = { 0 }, lkind[8] = { 0 };
	uint64_t lsize[8] = { 0 };
	if (ir_csched_reserve(c, rank, r->nops, r->nedges, &g0, &e0, e))
		return -1;
	for (unsigned k = 0; k < 8; k++)
		last[k] = UINT32_MAX;
	for (uint32_t i = 0; i < r->nops; i++) {
		const unsigned char *p = ir_rank_op(r, i);
		unsigned type = ir_op_type(p), cpu = ir_op_cpu(p), rel = 0;
		uint64_t size = ir_op_size(p);
		uint32_t peer = ir_op_peer(p), tag = ir_op_tag(p), kind;
		ir_csop *o = &c->op[g0 + i];
		o->s = e0 + ir_op_succ_first(p);
		if (type == IR_OP_CALC && cpu == 0 && size < IR_COP_INLINE) {
			o->a = IR_COP_INLINE | (uint32_t)size;
			continue;
		}
		/* the peer of a send or receive as a distance; any other op's peer field (0, or
		 * what later op types put there) as it is */
		if ((type == IR_OP_SEND || type == IR_OP_RECV) && peer != IR_ANY) {
			if (peer >= c->nranks)
				return ir_errf(e, "rank %u, op %u: peer %u out of range", rank, i, peer);
			rel = 1;
			peer = peer >= rank ? peer - rank : peer + (c->nranks - rank);
		}
		kind = type | cpu << 8 | (unsigned)ir_op_nic(p) << 16 | rel << 24;
		/* the cache is by type mod 8; kind holds the whole type, so sharing a slot only misses */
		type &= 7;
		if (last[type] == UINT32_MAX || size != lsize[type] || peer != lpeer[type] || tag != ltag[type] ||
		    kind != lkind[type]) {
			ir_cattr x;
			memset(&x, 0, sizeof x);
			x.size = size;
			x.peer = peer;
			x.tag = tag;
			x.type = (uint8_t)kind;
			x.cpu = (uint8_t)cpu;
			x.nic = (uint8_t)ir_op_nic(p);
			x.rel = (uint8_t)rel;
			last[type] = attr_of(c, &x);
			if (last[type] == UINT32_MAX)
				return ir_errf(e, "out of memory for the attributes of ops (%u of them)", c->nattr);
			lsize[type] = size;
			lpeer[type] = peer;
			ltag[type] = tag;
			lkind[type] = kind;
		}
		o->a = last[type];
	}
	for (uint32_t k = 0; k < r->nedges; k++) {
		uint32_t ed = ir_rank_edge(r, k);
		if ((ed & IR_EDGE_INDEX) >= r->nops)
			return ir_errf(e, "rank %u: edge %u names op %u of %u", rank, k, ed & IR_EDGE_INDEX, r->nops);
		c->edge[e0 + k] = (ed & IR_EDGE_IREQ) | (g0 + (ed & IR_EDGE_INDEX));
	}
	ir_csched_commit(c, rank, r->nops, r->nedges);
	return 0;
}

int ir_csched_finish(ir_csched *c, ir_err *e)
{
	if (c->priv_ranks != c->nranks || c->priv_cap_ops != c->nops || c->priv_cap_edges != c->nedges)
		return ir_errf(e, "schedule of %u ranks: only %u ranks with %u ops and %u dependencies were added",
		               c->nranks, c->priv_ranks, c->nops, c->nedges);
	c->op[c->nops].a = 0;
	c->op[c->nops].s = c->nedges;
	free(c->priv_hash);
	c->priv_hash = NULL;
	c->priv_hcap = 0;
	free(c->priv_t_buf);
	c->priv_t_buf = NULL;
	c->priv_t_cap = 0;
	return 0;
}
