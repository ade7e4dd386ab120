/*
 * ir_coll.c: collective algorithms as point-to-point task graphs (see ir_coll.h).
 *
 * Each algorithm is written from one rank's point of view and must agree with
 * the same function run on every other rank: tests/unit/u-coll.c runs all
 * ranks of every algorithm for p = 1..17 and several roots and checks that
 * the message sequences of every pair match and that the graphs, executed
 * together, complete.
 *
 * The binomial trees, dissemination and linear alltoall follow Schedgen's
 * definitions (docs/schedgen-compat.md section 3) exactly, op order included, because
 * --compat schedgen uses them; the others are the textbook algorithms MPI
 * libraries use (Thakur, Rabenseifner and Gropp 2005).
 */
#include "ir_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_grow.h"

#define NONE UINT32_MAX

void ir_cg_init(ir_cg *g) { memset(g, 0, sizeof *g); }

void ir_cg_release(ir_cg *g)
{
	free(g->op);
	free(g->dep);
	ir_cg_init(g);
}

void ir_cg_reset(ir_cg *g)
{
	g->nop = 0;
	g->ndep = 0;
}

/* Builder state: ops are appended; an allocation failure is remembered and
 * reported once at the end, so the algorithms read straight. `red` prices the
 * combining of received data (reductions only; NULL: not modelled). */
typedef struct bld {
	ir_cg *g;
	int oom;
	const ir_pw *red;
} bld;

static uint32_t add(bld *b, uint8_t type, uint32_t peer, uint64_t size)
{
	ir_cg *g = b->g;
	if (g->nop == g->capop && IR_GROW(g->op, g->nop + 1, g->capop)) {
		b->oom = 1;
		return NONE;
	}
	g->op[g->nop].type = type;
	g->op[g->nop].peer = peer;
	g->op[g->nop].size = size;
	return (uint32_t)g->nop++;
}

static void dep(bld *b, uint32_t from, uint32_t to)
{
	ir_cg *g = b->g;
	if (from == NONE || to == NONE)
		return;
	if (g->ndep == g->capdep && IR_GROW(g->dep, g->ndep + 1, g->capdep)) {
		b->oom = 1;
		return;
	}
	g->dep[g->ndep].from = from;
	g->dep[g->ndep].to = to;
	g->ndep++;
}

static uint32_t send(bld *b, uint32_t peer, uint64_t s) { return add(b, IR_OP_SEND, peer, s); }
static uint32_t recv(bld *b, uint32_t peer, uint64_t s) { return add(b, IR_OP_RECV, peer, s); }

static uint32_t mod(int64_t x, uint32_t p) { return (uint32_t)(((x % p) + p) % p); }

/* The combine of `bytes` received by op `rcv` with the local data: a calc of reduce(bytes)
 * requiring the receive, or NONE when reductions are not modelled or there is nothing to
 * combine. Callers make the ops that use the combined data require it. */
static uint32_t combine(bld *b, uint32_t rcv, uint64_t bytes)
{
	uint32_t c;
	if (!b->red || !bytes || rcv == NONE)
		return NONE;
	c = add(b, IR_OP_CALC, 0, ir_pw_eval(b->red, bytes));
	dep(b, rcv, c);
	return c;
}

/* The op that makes data available: the combine `c` if there is one, else `x`. */
static uint32_t either(uint32_t c, uint32_t x) { return c != NONE ? c : x; }

/* ---- shared patterns ---- */

/* Dissemination (Schedgen): round d: send to r+d (requires the previous round's receive, or
 * its combine), receive from r-d. */
static void dissemination(bld *b, uint32_t p, uint32_t r, uint64_t s)
{
	uint32_t prev = NONE;
	for (uint64_t d = 1; d < p; d *= 2) {
		uint32_t x = send(b, mod((int64_t)r + (int64_t)d, p), s);
		dep(b, prev, x);
		prev = recv(b, mod((int64_t)r - (int64_t)d, p), s);
		prev = either(combine(b, prev, s), prev);
	}
}

/* The ops a phase that follows must require (`after` of bcast_binomial): at most 64
 * (one per round of a binomial tree). */
typedef struct {
	uint32_t op[64];
	unsigned n;
} ends;

static void dep_all(bld *b, const ends *a, uint32_t to)
{
	for (unsigned i = 0; a && i < a->n; i++)
		dep(b, a->op[i], to);
}

/* Binomial broadcast (Schedgen order); every first op of the tree requires every op of
 * `after` (if not NULL: used by reduce+bcast). */
static void bcast_binomial(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s, const ends *after)
{
	uint32_t v = mod((int64_t)r - root, p), rcv = NONE;
	for (uint64_t k = 1; k < p; k *= 2) {
		if (v < k && v + k < p) {
			uint32_t x = send(b, mod((int64_t)(v + k) + root, p), s);
			if (rcv != NONE)
				dep(b, rcv, x);
			else
				dep_all(b, after, x);
		}
		if (v >= k && v < 2 * k) {
			rcv = recv(b, mod((int64_t)(v - k) + root, p), s);
			dep_all(b, after, rcv);
		}
	}
}

/* Binomial reduce on the broadcast's tree (rank v's parent is v minus its highest bit, its
 * children v + k for the powers of two k above it): the receives from the children (ascending
 * k), then the send to the parent, which needs every child's data. The combines form a chain
 * (one accumulator); the send requires the last one, which requires every receive, or, when
 * combining is not modelled, every receive itself. `out` (if not NULL) gets the ops a
 * following phase must require: the root's last combine or, without combines, all its
 * receives (the result is complete only when every contribution is in); another rank's send
 * to its parent. */
static void reduce_binomial(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s, ends *out)
{
	uint32_t v = mod((int64_t)r - root, p), acc = NONE;
	uint64_t hb = 0;
	ends rc = { .n = 0 };
	if (out)
		out->n = 0;
	for (uint64_t k = 1; k <= v; k *= 2)
		if (v & k)
			hb = k;
	for (uint64_t k = hb ? hb * 2 : 1; k < p; k *= 2) {
		uint32_t c, x;
		if (v + k >= p)
			break;
		x = recv(b, mod((int64_t)(v + k) + root, p), s);
		rc.op[rc.n++] = x;
		if ((c = combine(b, x, s)) != NONE) {
			dep(b, acc, c);
			acc = c;
		}
	}
	if (v) {
		uint32_t x = send(b, mod((int64_t)(v - hb) + root, p), s);
		if (acc != NONE)
			dep(b, acc, x);
		else
			dep_all(b, &rc, x);
		if (out) {
			out->op[0] = x;
			out->n = 1;
		}
		return;
	}
	if (out) {
		if (acc != NONE) {
			out->op[0] = acc;
			out->n = 1;
		} else {
			*out = rc;
		}
	}
}

static uint32_t lowbit_pow(uint32_t v) { return v & (~v + 1); }

/* Binomial gather of blocks of s bytes: children first (ascending), then the parent. */
static void gather_binomial(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s)
{
	uint32_t v = mod((int64_t)r - root, p);
	uint64_t lim = v ? lowbit_pow(v) : ((uint64_t)1 << 32);
	uint32_t rc[64];
	unsigned nr = 0;
	for (uint64_t k = 1; k < lim && v + k < p; k *= 2) {
		uint64_t c = v + k, sub = k < p - c ? k : p - c;
		rc[nr++] = recv(b, mod((int64_t)c + root, p), s * sub);
	}
	if (v) {
		uint64_t sub = lim < p - v ? lim : p - v;
		uint32_t x = send(b, mod((int64_t)(v - lim) + root, p), s * sub);
		for (unsigned i = 0; i < nr; i++)
			dep(b, rc[i], x);
	}
}

/* Binomial scatter: the parent first, then children (descending). */
static void scatter_binomial(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s)
{
	uint32_t v = mod((int64_t)r - root, p), rc = NONE;
	uint64_t lim = v ? lowbit_pow(v) : 1, top;
	if (v) {
		uint64_t sub = lim < p - v ? lim : p - v;
		rc = recv(b, mod((int64_t)(v - lim) + root, p), s * sub);
	} else {
		while (lim < p)
			lim *= 2;
	}
	top = lim;
	for (uint64_t k = top / 2; k >= 1; k /= 2) {
		uint64_t c = v + k;
		if (c < p) {
			uint64_t sub = k < p - c ? k : p - c;
			dep(b, rc, send(b, mod((int64_t)c + root, p), s * sub));
		}
		if (k == 1)
			break;
	}
}

/* Ring over blocks: step k sends block sidx(k) to r+1 and receives block ridx(k) from r-1;
 * sends and receives are chained, send k requires receive k-1. `first` (if not NONE) is
 * required by the first send and receive. With `reducing` (the reduce-scatter phase) the
 * received block is combined with the local one and send k, which forwards it, requires
 * the combine instead (the receives stay chained to each other). Returns the last receive
 * or its combine. */
static uint32_t ring(bld *b, uint32_t p, uint32_t r, const uint64_t *blk, uint64_t s, int shift_s,
                     int shift_r, uint32_t first, int reducing)
{
	uint32_t ps = NONE, pr = first, pc = first, right = mod((int64_t)r + 1, p), left = mod((int64_t)r - 1, p);
	for (uint32_t k = 0; k + 1 < p; k++) {
		uint32_t bs = mod((int64_t)r - k + shift_s, p), br = mod((int64_t)r - k + shift_r, p);
		uint32_t x = send(b, right, blk ? blk[bs] : s);
		uint32_t y;
		dep(b, pc, x);
		dep(b, ps, x);
		y = recv(b, left, blk ? blk[br] : s);
		dep(b, pr, y);
		ps = x;
		pr = y;
		pc = reducing ? either(combine(b, y, blk ? blk[br] : s), y) : y;
	}
	return pc;
}

/* ---- per kind ---- */

static void barrier_linear(bld *b, uint32_t p, uint32_t r)
{
	if (p < 2)
		return;
	if (r == 0) {
		uint32_t first = NONE, last = NONE;
		for (uint32_t i = 1; i < p; i++) {
			last = recv(b, i, 1);
			if (first == NONE)
				first = last;
		}
		for (uint32_t i = 1; i < p; i++) {
			uint32_t x = send(b, i, 1);
			for (uint32_t j = first; j <= last; j++)
				dep(b, j, x);
		}
	} else {
		uint32_t x = send(b, 0, 1);
		dep(b, x, recv(b, 0, 1));
	}
}

static void bcast_linear(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s)
{
	if (r == root) {
		for (uint32_t i = 1; i < p; i++)
			send(b, mod((int64_t)root + i, p), s);
	} else {
		recv(b, root, s);
	}
}

static void bcast_chain(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s)
{
	uint32_t v = mod((int64_t)r - root, p), rc = NONE;
	if (v > 0)
		rc = recv(b, mod((int64_t)v - 1 + root, p), s);
	if (v + 1 < p)
		dep(b, rc, send(b, mod((int64_t)v + 1 + root, p), s));
}

static void reduce_linear(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s)
{
	if (r == root) {
		uint32_t acc = NONE; /* the combines form a chain: one accumulator */
		for (uint32_t i = 1; i < p; i++) {
			uint32_t c = combine(b, recv(b, mod((int64_t)root + i, p), s), s);
			dep(b, acc, c);
			acc = either(c, acc);
		}
	} else {
		send(b, root, s);
	}
}

static void allreduce_recdoub(bld *b, uint32_t p, uint32_t r, uint64_t s)
{
	uint32_t pof2 = 1, rem, prev = NONE;
	int64_t nr;
	while ((uint64_t)pof2 * 2 <= p)
		pof2 *= 2;
	rem = p - pof2;
	if (r < 2 * rem) {
		if (r % 2 == 0) {
			uint32_t x = send(b, r + 1, s);
			dep(b, x, recv(b, r + 1, s));
			return;
		}
		prev = recv(b, r - 1, s);
		prev = either(combine(b, prev, s), prev);
		nr = r / 2;
	} else {
		nr = (int64_t)r - rem;
	}
	for (uint32_t mask = 1; mask < pof2; mask *= 2) {
		uint32_t nd = (uint32_t)nr ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
		uint32_t x = send(b, dst, s), y;
		dep(b, prev, x);
		y = recv(b, dst, s);
		dep(b, prev, y);
		prev = either(combine(b, y, s), y);
	}
	if (r < 2 * rem)
		dep(b, prev, send(b, r - 1, s));
}

static void allreduce_ring(bld *b, uint32_t p, uint32_t r, uint64_t s)
{
	uint64_t *blk;
	uint32_t last;
	if (p < 2)
		return;
	blk = malloc((size_t)p * sizeof *blk);
	if (!blk) {
		b->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < p; i++)
		blk[i] = s / p + (i < s % p);
	/* reduce-scatter: send (r-k), receive (r-k-1) and combine it; allgather: send (r+1-k),
	 * receive (r-k), after the last combine */
	last = ring(b, p, r, blk, 0, 0, -1, NONE, 1);
	ring(b, p, r, blk, 0, 1, 0, last, 0);
	free(blk);
}

static void reduce_bcast(bld *b, uint32_t p, uint32_t r, uint64_t s)
{
	ends last;
	reduce_binomial(b, p, r, 0, s, &last);
	/* the root's broadcast waits for the reduced result (every receive, or the last
	 * combine); others wait for their own send, which keeps the two phases' messages apart */
	bcast_binomial(b, p, r, 0, s, &last);
}

static void allgather_bruck(bld *b, uint32_t p, uint32_t r, uint64_t s)
{
	uint32_t prev = NONE;
	for (uint64_t d = 1; d < p; d *= 2) {
		uint64_t n = d < p - d ? d : p - d;
		uint32_t x = send(b, mod((int64_t)r - (int64_t)d, p), n * s);
		dep(b, prev, x);
		prev = recv(b, mod((int64_t)r + (int64_t)d, p), n * s);
	}
}

static void allgather_linear(bld *b, uint32_t p, uint32_t r, uint64_t s, const uint64_t *blk)
{
	for (uint32_t i = 1; i < p; i++) {
		uint32_t to = mod((int64_t)r + i, p), from = mod((int64_t)r - i, p);
		uint64_t ss = blk ? blk[r] : s, rs = blk ? blk[from] : s;
		(void)to;
		if (!blk || ss)
			send(b, to, ss);
		if (!blk || rs)
			recv(b, from, rs);
	}
}

/* Linear and pairwise alltoall(v): step i sends to r+i and receives from r-i. */
static void alltoall(bld *b, uint32_t p, uint32_t r, uint64_t s, const uint64_t *sb, const uint64_t *rb,
                     int pairwise)
{
	uint32_t prev = NONE, prevs = NONE;
	for (uint32_t i = 1; i < p; i++) {
		uint32_t to = mod((int64_t)r + i, p), from = mod((int64_t)r - i, p), x = NONE, y = NONE;
		uint64_t ss = sb ? sb[to] : s, rs = rb ? rb[from] : s;
		if (!sb || ss)
			x = send(b, to, ss);
		if (!rb || rs)
			y = recv(b, from, rs);
		if (pairwise) {
			dep(b, prev, x);
			dep(b, prevs, x);
			dep(b, prev, y);
			if (y != NONE)
				prev = y;
			if (x != NONE)
				prevs = x;
		}
	}
}

static void gather_linear(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s, const uint64_t *blk)
{
	if (r == root) {
		for (uint32_t i = 1; i < p; i++) {
			uint32_t from = mod((int64_t)root + i, p);
			uint64_t sz = blk ? blk[from] : s;
			if (!blk || sz)
				recv(b, from, sz);
		}
	} else if (!blk || s) {
		send(b, root, s);
	}
}

static void scatter_linear(bld *b, uint32_t p, uint32_t r, uint32_t root, uint64_t s, const uint64_t *blk)
{
	if (r == root) {
		for (uint32_t i = 1; i < p; i++) {
			uint32_t to = mod((int64_t)root + i, p);
			uint64_t sz = blk ? blk[to] : s;
			if (!blk || sz)
				send(b, to, sz);
		}
	} else if (!blk || s) {
		recv(b, root, s);
	}
}

/* Reduce-scatter as a binomial reduce of the whole vector to 0 and a linear scatterv. */
static void reduce_scatterv(bld *b, uint32_t p, uint32_t r, const uint64_t *blk)
{
	uint64_t tot = 0;
	ends last;
	for (uint32_t i = 0; i < p; i++)
		tot += blk[i];
	reduce_binomial(b, p, r, 0, tot, &last);
	if (r == 0) {
		for (uint32_t i = 1; i < p; i++)
			if (blk[i])
				dep_all(b, &last, send(b, i, blk[i]));
	} else if (blk[r]) {
		dep_all(b, &last, recv(b, 0, blk[r]));
	}
}

/* Every op of [from, end) that requires nothing in that range requires the ops of
 * [pfrom, from) that nothing in theirs requires: phase [from, end) starts when phase
 * [pfrom, from) is done. */
static void chain_phase(bld *b, uint32_t pfrom, uint32_t from, uint32_t end)
{
	ir_cg *g = b->g;
	size_t nd = g->ndep;
	for (uint32_t t = from; t < end; t++) {
		int haspred = 0;
		for (size_t d = 0; d < nd && !haspred; d++)
			haspred = g->dep[d].to == t && g->dep[d].from >= from;
		if (haspred)
			continue;
		for (uint32_t f = pfrom; f < from; f++) {
			int hassucc = 0;
			for (size_t d = 0; d < nd && !hassucc; d++)
				hassucc = g->dep[d].from == f && g->dep[d].to < from;
			if (!hassucc)
				dep(b, f, t);
		}
	}
}

/* Communicator creation (ir_coll.h): [allgather of (color, key)], then the context id. */
static void comm_create(bld *b, uint32_t p, uint32_t r, int split, enum ir_coll_alg alg)
{
	uint32_t prev = 0, start = 0;
	int rounds = alg == IR_ALG_OMPI ? 3 : alg == IR_ALG_MPICH ? 1 : 0;
	const ir_pw *red = b->red;
	if (p < 2 || rounds == 0)
		return;
	b->red = NULL;
	if (split)
		ring(b, p, r, NULL, 8, 0, -1, NONE, 0);
	for (int k = 0; k < rounds; k++) {
		prev = start;
		start = (uint32_t)b->g->nop;
		if (alg == IR_ALG_OMPI)
			reduce_bcast(b, p, r, 4);
		else
			allreduce_recdoub(b, p, r, 256);
		if (start > 0)
			chain_phase(b, prev, start, (uint32_t)b->g->nop);
	}
	b->red = red;
}

/* Linear scan: receive the prefix from r-1, combine it with the own contribution, send the
 * result to r+1. Exscan: the last rank's result is the received prefix as it is, so only
 * ranks that forward combine. */
static void scan_linear(bld *b, uint32_t p, uint32_t r, uint64_t s, int ex)
{
	uint32_t rc = NONE;
	if (r > 0)
		rc = recv(b, r - 1, s);
	if (!ex || r + 1 < p)
		rc = either(combine(b, rc, s), rc);
	if (r + 1 < p)
		dep(b, rc, send(b, r + 1, s));
}

/* Recursive doubling scan: round d sends the partial result to r+d and receives and
 * combines the one of r-d. */
static void scan_recdoub(bld *b, uint32_t p, uint32_t r, uint64_t s)
{
	uint32_t prev = NONE;
	for (uint64_t d = 1; d < p; d *= 2) {
		uint32_t y = NONE;
		if (r + d < p)
			dep(b, prev, send(b, (uint32_t)(r + d), s));
		if (r >= d)
			y = recv(b, (uint32_t)(r - d), s);
		if (y != NONE)
			prev = either(combine(b, y, s), y);
	}
}

/* ---- tables ---- */

static const char *const kind_names[IR_COLL_NKINDS] = {
	"barrier", "bcast", "reduce", "allreduce", "allgather", "allgatherv", "alltoall", "alltoallv",
	"gather", "gatherv", "scatter", "scatterv", "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
	"comm_create", "comm_split",
};

static const char *const alg_names[IR_ALG_NALGS] = {
	"default", "linear", "binomial", "dissemination", "recdoub", "ring", "bruck", "chain",
	"pairwise", "reduce_bcast", "reduce_scatterv", "ompi", "mpich", "local",
};

#define A(x) (1u << IR_ALG_##x)
static const unsigned kind_algs[IR_COLL_NKINDS] = {
	[IR_COLL_BARRIER] = A(DISSEMINATION) | A(LINEAR),
	[IR_COLL_BCAST] = A(BINOMIAL) | A(LINEAR) | A(CHAIN),
	[IR_COLL_REDUCE] = A(BINOMIAL) | A(LINEAR),
	[IR_COLL_ALLREDUCE] = A(RECDOUB) | A(RING) | A(DISSEMINATION) | A(REDUCE_BCAST),
	[IR_COLL_ALLGATHER] = A(RING) | A(BRUCK) | A(DISSEMINATION) | A(LINEAR),
	[IR_COLL_ALLGATHERV] = A(RING) | A(LINEAR),
	[IR_COLL_ALLTOALL] = A(LINEAR) | A(PAIRWISE),
	[IR_COLL_ALLTOALLV] = A(LINEAR) | A(PAIRWISE),
	[IR_COLL_GATHER] = A(BINOMIAL) | A(LINEAR),
	[IR_COLL_GATHERV] = A(LINEAR),
	[IR_COLL_SCATTER] = A(BINOMIAL) | A(LINEAR),
	[IR_COLL_SCATTERV] = A(LINEAR),
	[IR_COLL_REDUCE_SCATTER] = A(RING) | A(REDUCE_SCATTERV),
	[IR_COLL_REDUCE_SCATTER_BLOCK] = A(RING) | A(REDUCE_SCATTERV),
	[IR_COLL_SCAN] = A(LINEAR) | A(RECDOUB),
	[IR_COLL_EXSCAN] = A(LINEAR) | A(RECDOUB),
	[IR_COLL_COMM_CREATE] = A(OMPI) | A(MPICH) | A(LOCAL),
	[IR_COLL_COMM_SPLIT] = A(OMPI) | A(MPICH) | A(LOCAL),
};

static const enum ir_coll_alg kind_default[IR_COLL_NKINDS] = {
	[IR_COLL_BARRIER] = IR_ALG_DISSEMINATION,
	[IR_COLL_BCAST] = IR_ALG_BINOMIAL,
	[IR_COLL_REDUCE] = IR_ALG_BINOMIAL,
	[IR_COLL_ALLREDUCE] = IR_ALG_RECDOUB,
	[IR_COLL_ALLGATHER] = IR_ALG_RING,
	[IR_COLL_ALLGATHERV] = IR_ALG_RING,
	[IR_COLL_ALLTOALL] = IR_ALG_LINEAR,
	[IR_COLL_ALLTOALLV] = IR_ALG_LINEAR,
	[IR_COLL_GATHER] = IR_ALG_BINOMIAL,
	[IR_COLL_GATHERV] = IR_ALG_LINEAR,
	[IR_COLL_SCATTER] = IR_ALG_BINOMIAL,
	[IR_COLL_SCATTERV] = IR_ALG_LINEAR,
	[IR_COLL_REDUCE_SCATTER] = IR_ALG_RING,
	[IR_COLL_REDUCE_SCATTER_BLOCK] = IR_ALG_RING,
	[IR_COLL_SCAN] = IR_ALG_LINEAR,
	[IR_COLL_EXSCAN] = IR_ALG_LINEAR,
	[IR_COLL_COMM_CREATE] = IR_ALG_OMPI,
	[IR_COLL_COMM_SPLIT] = IR_ALG_OMPI,
};

enum ir_coll_alg ir_coll_default(enum ir_coll_kind kind) { return kind_default[kind]; }

/* Open MPI 4.1 coll/libnbc's selection with its MCA parameters at their defaults
 * (nbc_i<kind>.c): iallreduce is a binomial reduce to rank 0 and a binomial broadcast below
 * 4 ranks, below 64 KiB or in place, otherwise Rabenseifner's reduce-scatter + allgather, which
 * is not modelled: ring moves the same bytes in more steps; ibcast is linear up to 4 ranks,
 * binomial above; ireduce_scatter(_block) is a binomial reduce to rank 0 and a linear scatter;
 * iallgather(v), ialltoall(v/w), igather(v), iscatter(v), iscan and iexscan are linear;
 * ibarrier is a dissemination, ireduce a binomial tree. */
enum ir_coll_alg ir_coll_default_nb(enum ir_coll_kind kind, uint32_t p, uint64_t s, int in_place)
{
	switch (kind) {
	case IR_COLL_ALLREDUCE:
		return p < 4 || s < 65536 || in_place ? IR_ALG_REDUCE_BCAST : IR_ALG_RING;
	case IR_COLL_BCAST:
		return p <= 4 ? IR_ALG_LINEAR : IR_ALG_BINOMIAL;
	case IR_COLL_REDUCE_SCATTER:
	case IR_COLL_REDUCE_SCATTER_BLOCK:
		return IR_ALG_REDUCE_SCATTERV;
	case IR_COLL_ALLGATHER:
	case IR_COLL_ALLGATHERV:
	case IR_COLL_ALLTOALL:
	case IR_COLL_ALLTOALLV:
	case IR_COLL_GATHER:
	case IR_COLL_GATHERV:
	case IR_COLL_SCATTER:
	case IR_COLL_SCATTERV:
	case IR_COLL_SCAN:
	case IR_COLL_EXSCAN:
		return IR_ALG_LINEAR;
	case IR_COLL_BARRIER:
		return IR_ALG_DISSEMINATION;
	case IR_COLL_REDUCE:
		return IR_ALG_BINOMIAL;
	default:
		return kind_default[kind]; /* no nonblocking form */
	}
}

/* Does `kind` have a nonblocking form (MPI_I<kind>)? Communicator creation has none here. */
int ir_coll_has_nb(enum ir_coll_kind kind) { return kind < IR_COLL_COMM_CREATE; }
int ir_coll_has(enum ir_coll_kind kind, enum ir_coll_alg alg)
{
	return (unsigned)kind < IR_COLL_NKINDS && (unsigned)alg < IR_ALG_NALGS && alg != IR_ALG_DEFAULT &&
	       (kind_algs[kind] & (1u << alg)) != 0;
}
const char *ir_coll_kind_name(enum ir_coll_kind kind) { return kind_names[kind]; }
const char *ir_coll_alg_name(enum ir_coll_alg alg) { return alg_names[alg]; }

static int lookup(const char *const *tab, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(tab[i]) == len && memcmp(tab[i], s, len) == 0)
			return i;
	return -1;
}
int ir_coll_kind_parse(const char *name, size_t len) { return lookup(kind_names, IR_COLL_NKINDS, name, len); }
int ir_coll_alg_parse(const char *name, size_t len)
{
	int a = lookup(alg_names, IR_ALG_NALGS, name, len);
	return a;
}

int ir_coll_parse_spec(const char *spec, enum ir_coll_alg algs[IR_COLL_NSEL], ir_err *e)
{
	const char *p = spec;
	char q[200];
	while (*p) {
		const char *c = strchr(p, ','), *end = c ? c : p + strlen(p), *eq = memchr(p, '=', (size_t)(end - p));
		int k, a, nb;
		if (!eq) {
			ir_err_quote(q, sizeof q, p, (size_t)(end - p));
			return ir_errf(e, "invalid --coll item '%s' (expected COLLECTIVE=ALGORITHM)", q);
		}
		k = ir_coll_kind_parse(p, (size_t)(eq - p));
		nb = 0;
		if (k < 0 && eq - p > 1 && *p == 'i' && (k = ir_coll_kind_parse(p + 1, (size_t)(eq - p - 1))) >= 0) {
			nb = 1; /* "iallreduce": the nonblocking form */
			if (!ir_coll_has_nb(k))
				k = -1;
		}
		if (k < 0) {
			ir_err_quote(q, sizeof q, p, (size_t)(eq - p));
			return ir_errf(e, "invalid --coll item: unknown collective '%s'", q);
		}
		a = ir_coll_alg_parse(eq + 1, (size_t)(end - eq - 1));
		if (a < 0 || (a != IR_ALG_DEFAULT && !ir_coll_has(k, a))) {
			char list[200] = "";
			size_t n = 0;
			for (int i = 1; i < IR_ALG_NALGS; i++)
				if (ir_coll_has(k, i)) {
					int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", alg_names[i]);
					if (w > 0 && (size_t)w < sizeof list - n)
						n += (size_t)w;
				}
			ir_err_quote(q, sizeof q, eq + 1, (size_t)(end - eq - 1));
			return ir_errf(e, "invalid --coll item: %s%s has no algorithm '%s' (available: %s)",
			               nb ? "i" : "", kind_names[k], q, list);
		}
		algs[k + nb * IR_COLL_NKINDS] = (enum ir_coll_alg)a;
		p = c ? c + 1 : end;
	}
	return 0;
}

/* Bytes of rank r's own block that the collective copies locally (0: none). */
static uint64_t own_block(enum ir_coll_kind kind, const ir_coll_args *a)
{
	switch (kind) {
	case IR_COLL_ALLTOALL:
	case IR_COLL_ALLGATHER:
		return a->s;
	case IR_COLL_ALLTOALLV:
		return a->sblock[a->r];
	case IR_COLL_ALLGATHERV:
		return a->block[a->r];
	case IR_COLL_GATHER:
	case IR_COLL_SCATTER:
		return a->r == a->root ? a->s : 0;
	case IR_COLL_GATHERV:
	case IR_COLL_SCATTERV:
		return a->r == a->root ? a->block[a->r] : 0;
	default:
		return 0;
	}
}

int ir_coll_build(ir_cg *g, enum ir_coll_kind kind, enum ir_coll_alg alg, const ir_coll_args *a, ir_err *e)
{
	bld b = { g, 0, NULL };
	uint32_t p = a->p, r = a->r, root = a->root;
	uint64_t own;
	ir_cg_reset(g);
	if ((unsigned)kind >= IR_COLL_NKINDS)
		return ir_errf(e, "unknown collective %d", (int)kind);
	if (alg == IR_ALG_DEFAULT)
		alg = kind_default[kind];
	if (!ir_coll_has(kind, alg))
		return ir_errf(e, "%s has no algorithm '%s'", kind_names[kind],
		               (unsigned)alg < IR_ALG_NALGS ? alg_names[alg] : "?");
	if (p == 0 || r >= p || root >= p)
		return ir_errf(e, "%s: rank %u or root %u outside a communicator of %u ranks", kind_names[kind], r,
		               root, p);
	switch (kind) {
	case IR_COLL_ALLGATHERV:
	case IR_COLL_REDUCE_SCATTER:
	case IR_COLL_REDUCE_SCATTER_BLOCK:
		if (!a->block)
			return ir_errf(e, "%s needs per-rank block sizes", kind_names[kind]);
		break;
	case IR_COLL_GATHERV:
	case IR_COLL_SCATTERV:
		if (r == root && !a->block)
			return ir_errf(e, "%s needs per-rank block sizes at the root", kind_names[kind]);
		break;
	case IR_COLL_ALLTOALLV:
		if (!a->sblock || !a->rblock)
			return ir_errf(e, "%s needs per-peer send and receive sizes", kind_names[kind]);
		break;
	default:
		break;
	}
	/* local work: the copy of the own block first, the combines inside the algorithms */
	switch (kind) {
	case IR_COLL_REDUCE:
	case IR_COLL_ALLREDUCE:
	case IR_COLL_REDUCE_SCATTER:
	case IR_COLL_REDUCE_SCATTER_BLOCK:
	case IR_COLL_SCAN:
	case IR_COLL_EXSCAN:
		b.red = a->reduce && a->reduce->n ? a->reduce : NULL;
		break;
	default:
		own = own_block(kind, a);
		if (own && a->copy && a->copy->n)
			add(&b, IR_OP_CALC, 0, ir_pw_eval(a->copy, own));
		break;
	}
	switch (kind) {
	case IR_COLL_BARRIER:
		if (alg == IR_ALG_LINEAR)
			barrier_linear(&b, p, r);
		else
			dissemination(&b, p, r, 1);
		break;
	case IR_COLL_BCAST:
		if (alg == IR_ALG_LINEAR)
			bcast_linear(&b, p, r, root, a->s);
		else if (alg == IR_ALG_CHAIN)
			bcast_chain(&b, p, r, root, a->s);
		else
			bcast_binomial(&b, p, r, root, a->s, NULL);
		break;
	case IR_COLL_REDUCE:
		if (alg == IR_ALG_LINEAR)
			reduce_linear(&b, p, r, root, a->s);
		else
			reduce_binomial(&b, p, r, root, a->s, NULL);
		break;
	case IR_COLL_ALLREDUCE:
		if (alg == IR_ALG_DISSEMINATION)
			dissemination(&b, p, r, a->s);
		else if (alg == IR_ALG_RING)
			allreduce_ring(&b, p, r, a->s);
		else if (alg == IR_ALG_REDUCE_BCAST)
			reduce_bcast(&b, p, r, a->s);
		else
			allreduce_recdoub(&b, p, r, a->s);
		break;
	case IR_COLL_ALLGATHER:
		if (alg == IR_ALG_DISSEMINATION)
			dissemination(&b, p, r, a->s);
		else if (alg == IR_ALG_BRUCK)
			allgather_bruck(&b, p, r, a->s);
		else if (alg == IR_ALG_LINEAR)
			allgather_linear(&b, p, r, a->s, NULL);
		else if (p > 1)
			ring(&b, p, r, NULL, a->s, 0, -1, NONE, 0);
		break;
	case IR_COLL_ALLGATHERV:
		if (alg == IR_ALG_LINEAR)
			allgather_linear(&b, p, r, 0, a->block);
		else if (p > 1)
			ring(&b, p, r, a->block, 0, 0, -1, NONE, 0);
		break;
	case IR_COLL_ALLTOALL:
		alltoall(&b, p, r, a->s, NULL, NULL, alg == IR_ALG_PAIRWISE);
		break;
	case IR_COLL_ALLTOALLV:
		alltoall(&b, p, r, 0, a->sblock, a->rblock, alg == IR_ALG_PAIRWISE);
		break;
	case IR_COLL_GATHER:
		if (alg == IR_ALG_LINEAR)
			gather_linear(&b, p, r, root, a->s, NULL);
		else
			gather_binomial(&b, p, r, root, a->s);
		break;
	case IR_COLL_GATHERV:
		gather_linear(&b, p, r, root, a->s, r == root ? a->block : NULL);
		if (r != root && a->s == 0)
			ir_cg_reset(g);
		break;
	case IR_COLL_SCATTER:
		if (alg == IR_ALG_LINEAR)
			scatter_linear(&b, p, r, root, a->s, NULL);
		else
			scatter_binomial(&b, p, r, root, a->s);
		break;
	case IR_COLL_SCATTERV:
		scatter_linear(&b, p, r, root, a->s, r == root ? a->block : NULL);
		if (r != root && a->s == 0)
			ir_cg_reset(g);
		break;
	case IR_COLL_REDUCE_SCATTER:
	case IR_COLL_REDUCE_SCATTER_BLOCK:
		if (alg == IR_ALG_REDUCE_SCATTERV)
			reduce_scatterv(&b, p, r, a->block);
		else if (p > 1)
			ring(&b, p, r, a->block, 0, -1, -2, NONE, 1);
		break;
	case IR_COLL_SCAN:
	case IR_COLL_EXSCAN:
		if (alg == IR_ALG_RECDOUB)
			scan_recdoub(&b, p, r, a->s);
		else
			scan_linear(&b, p, r, a->s, kind == IR_COLL_EXSCAN);
		break;
	case IR_COLL_COMM_CREATE:
	case IR_COLL_COMM_SPLIT:
		comm_create(&b, p, r, kind == IR_COLL_COMM_SPLIT, alg);
		break;
	default:
		break;
	}
	if (b.oom) {
		ir_cg_reset(g);
		return ir_errf(e, "out of memory building %s", kind_names[kind]);
	}
	return 0;
}
