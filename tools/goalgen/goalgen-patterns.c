/*
 * goalgen-patterns.c: the communication patterns goalgen writes, one rank
 * at a time (docs/man/goalgen.1 states each pattern's rules).
 *
 * Every pattern except random is computed per rank from the rank number
 * alone, in O(ops of that rank) time and O(1) memory, so a million-rank
 * dissemination streams out without holding anything. The rules follow
 * Schedgen's collective algorithms (docs/schedgen-compat.md section 3) and the
 * dissemination of docs/loggops-semantics.md section 7 item 4 exactly, so
 * simulator results can be checked against LogGOPSim's.
 *
 * --calc inserts a calc wherever an operation waits for a receive (or, for
 * the step-wise exchanges alltoall and allreduce, for the previous step):
 * the calc requires what was waited for and the waiting operations require
 * the calc. That is "computation between steps" for every pattern with one
 * rule.
 *
 * random builds all ranks at once (messages join two ranks), so it keeps
 * the ops in memory; the caller bounds ranks x ops. It is deadlock-free by
 * construction: ops are created in one global order, every dependency
 * points to an earlier op of the same rank, the send of a message is created
 * just before its receive, and each message has a tag of its own (base tag
 * plus the sender's send count), so a receive can only match its own send.
 * By induction on the creation order every op can run, eager or rendezvous.
 */
#include "goalgen-emit.h"

#include <stdlib.h>
#include <string.h>

/* Rounds of a dissemination or binomial tree: the d = 1, 2, 4, ... below n. */
static unsigned rounds_of(uint64_t n)
{
	unsigned k = 0;
	for (uint64_t d = 1; d < n; d <<= 1)
		k++;
	return k;
}

static uint64_t pof2_below(uint64_t n) /* largest power of two <= n (n >= 1) */
{
	uint64_t p = 1;
	while (p * 2 <= n)
		p *= 2;
	return p;
}

uint64_t gg_max_ops_per_rank(const gg_params *p)
{
	uint64_t c = p->has_calc ? 1 : 0, k = rounds_of(p->n);
	switch (p->pattern) {
	case GG_DISSEMINATION:
		return 2 * k + c * k;
	case GG_BCAST:
	case GG_REDUCE:
		return k + 1 + c;
	case GG_RING:
		return 2 * p->steps + c * p->steps;
	case GG_PINGPONG:
		return 2 * p->reps + c * p->reps;
	case GG_ALLTOALL:
		return 2 * (p->n - 1) + c * p->n;
	case GG_ALLREDUCE:
		return 2 * (k + 2) + c * (k + 2);
	case GG_RANDOM:
		return p->ops;
	default:
		return 0;
	}
}

static void gen_dissemination(const gg_params *p, gg_out *o, uint64_t r)
{
	uint64_t n = p->n, k = 0;
	for (uint64_t d = 1; d < n; d <<= 1, k++) {
		if (k > 0 && p->has_calc) {
			gg_calc(o, 'c', k, p->calc);
			gg_dep(o, 'c', k, 'r', k - 1, 0);
		}
		gg_send(o, 's', k, p->size, (r + d) % n, p->tag);
		gg_recv(o, 'r', k, p->size, (r + n - d) % n, p->tag);
		if (k > 0)
			gg_dep(o, 's', k, p->has_calc ? 'c' : 'r', p->has_calc ? k : k - 1, 0);
	}
}

/* Binomial trees (docs/schedgen-compat.md section 3): v is the rank relative to the root. */
static void gen_bcast(const gg_params *p, gg_out *o, uint64_t r)
{
	uint64_t n = p->n, v = (r + n - p->root) % n, k = 0;
	int has_recv = 0;
	uint64_t rk = 0;
	char wait = 'r';
	for (uint64_t d = 1; d < n; d <<= 1, k++) {
		if (v < d && v + d < n) {
			if (has_recv && p->has_calc && wait == 'r') {
				gg_calc(o, 'c', rk, p->calc);
				gg_dep(o, 'c', rk, 'r', rk, 0);
				wait = 'c';
			}
			gg_send(o, 's', k, p->size, (v + d + p->root) % n, p->tag);
			if (has_recv)
				gg_dep(o, 's', k, wait, rk, 0);
		}
		if (v >= d && v < 2 * d) {
			gg_recv(o, 'r', k, p->size, (v - d + p->root) % n, p->tag);
			has_recv = 1;
			rk = k;
		}
	}
}

static void gen_reduce(const gg_params *p, gg_out *o, uint64_t r)
{
	uint64_t n = p->n, v = (r + n - p->root) % n, k = 0, ks = 0;
	uint64_t first = 0, nrecv = 0;
	int has_send = 0;
	/* The send round (d <= v < 2d) comes before the receive rounds (v < d),
	 * and the send requires every receive, so the receives go out first (in
	 * round order) and the send last: every op follows its predecessors.
	 * The receive rounds are consecutive: v < d holds from some round on,
	 * v + d < n up to some round. */
	for (uint64_t d = 1; d < n; d <<= 1, k++) {
		if (v < d && v + d < n) {
			gg_recv(o, 'r', k, p->size, (v + d + p->root) % n, p->tag);
			if (nrecv++ == 0)
				first = k;
		}
		if (v >= d && v < 2 * d) {
			has_send = 1;
			ks = k;
		}
	}
	if (!has_send)
		return;
	if (nrecv && p->has_calc) {
		gg_calc(o, 'c', ks, p->calc);
		for (uint64_t j = first; j < first + nrecv; j++)
			gg_dep(o, 'c', ks, 'r', j, 0);
	}
	gg_send(o, 's', ks, p->size, (v - ((uint64_t)1 << ks) + p->root) % n, p->tag);
	if (nrecv && p->has_calc) {
		gg_dep(o, 's', ks, 'c', ks, 0);
	} else {
		for (uint64_t j = first; nrecv && j < first + nrecv; j++)
			gg_dep(o, 's', ks, 'r', j, 0);
	}
}

static void gen_ring(const gg_params *p, gg_out *o, uint64_t r)
{
	uint64_t n = p->n;
	for (uint64_t i = 0; i < p->steps; i++) {
		char wp = 'r';
		uint64_t wi = i - 1;
		if (i > 0 && p->has_calc) {
			gg_calc(o, 'c', i, p->calc);
			gg_dep(o, 'c', i, 'r', i - 1, 0);
			wp = 'c';
			wi = i;
		}
		gg_send(o, 's', i, p->size, (r + 1) % n, p->tag);
		gg_recv(o, 'r', i, p->size, (r + n - 1) % n, p->tag);
		if (i == 0)
			continue;
		gg_dep(o, 's', i, wp, wi, 0);
		gg_dep(o, 'r', i, wp, wi, 0);
	}
}

static void gen_pingpong(const gg_params *p, gg_out *o, uint64_t r)
{
	if (r > 1)
		return;
	for (uint64_t i = 0; i < p->reps; i++) {
		if (r == 0) {
			if (i > 0 && p->has_calc) {
				gg_calc(o, 'c', i, p->calc);
				gg_dep(o, 'c', i, 'r', i - 1, 0);
			}
			gg_send(o, 's', i, p->size, 1, p->tag);
			if (i > 0)
				gg_dep(o, 's', i, p->has_calc ? 'c' : 'r', p->has_calc ? i : i - 1, 0);
			gg_recv(o, 'r', i, p->size, 1, p->tag);
			gg_dep(o, 'r', i, 's', i, 0);
		} else {
			gg_recv(o, 'r', i, p->size, 0, p->tag);
			if (i > 0)
				gg_dep(o, 'r', i, 's', i - 1, 0);
			if (p->has_calc) {
				gg_calc(o, 'c', i, p->calc);
				gg_dep(o, 'c', i, 'r', i, 0);
			}
			gg_send(o, 's', i, p->size, 0, p->tag);
			gg_dep(o, 's', i, p->has_calc ? 'c' : 'r', i, 0);
		}
	}
}

/* One step of an exchange: an optional send and an optional receive that
 * require every op of the previous step (through a calc with --calc). */
typedef struct step_state {
	int prev_send, prev_recv; /* what step prev had */
	uint64_t prev;
	int any;                  /* a previous step exists */
} step_state;

static void step_deps(gg_out *o, const step_state *st, char me, uint64_t i)
{
	if (st->prev_send)
		gg_dep(o, me, i, 's', st->prev, 0);
	if (st->prev_recv)
		gg_dep(o, me, i, 'r', st->prev, 0);
}

static void exchange_step(const gg_params *p, gg_out *o, step_state *st, uint64_t i, int has_send,
                          uint64_t to, int has_recv, uint64_t from)
{
	int calc = st->any && p->has_calc;
	if (calc) {
		gg_calc(o, 'c', i, p->calc);
		step_deps(o, st, 'c', i);
	}
	if (has_send) {
		gg_send(o, 's', i, p->size, to, p->tag);
		if (calc)
			gg_dep(o, 's', i, 'c', i, 0);
		else if (st->any)
			step_deps(o, st, 's', i);
	}
	if (has_recv) {
		gg_recv(o, 'r', i, p->size, from, p->tag);
		if (calc)
			gg_dep(o, 'r', i, 'c', i, 0);
		else if (st->any)
			step_deps(o, st, 'r', i);
	}
	st->any = 1;
	st->prev = i;
	st->prev_send = has_send;
	st->prev_recv = has_recv;
}

static void gen_alltoall(const gg_params *p, gg_out *o, uint64_t r)
{
	uint64_t n = p->n;
	step_state st = { 0, 0, 0, 0 };
	for (uint64_t i = 1; i < n; i++)
		exchange_step(p, o, &st, i, 1, (r + i) % n, 1, (r + n - i) % n);
}

/* Recursive doubling with MPICH's fold for non-powers of two: of the first
 * 2*rem ranks the even ones hand their data to the odd neighbour and get
 * the result back at the end; the remaining pof2 ranks run log2(pof2)
 * exchange rounds with partner newrank ^ mask. */
static void gen_allreduce(const gg_params *p, gg_out *o, uint64_t r)
{
	uint64_t n = p->n, pof2 = pof2_below(n), rem = n - pof2, i = 0, newr;
	step_state st = { 0, 0, 0, 0 };
	int folded = r < 2 * rem;
	if (folded) {
		if (r % 2 == 0)
			exchange_step(p, o, &st, i++, 1, r + 1, 0, 0);
		else
			exchange_step(p, o, &st, i++, 0, 0, 1, r - 1);
	}
	if (!folded || r % 2 == 1) {
		newr = folded ? r / 2 : r - rem;
		for (uint64_t mask = 1; mask < pof2; mask <<= 1) {
			uint64_t nd = newr ^ mask;
			uint64_t dst = nd < rem ? nd * 2 + 1 : nd + rem;
			exchange_step(p, o, &st, i++, 1, dst, 1, dst);
		}
	}
	if (folded) {
		if (r % 2 == 1)
			exchange_step(p, o, &st, i++, 1, r - 1, 0, 0);
		else
			exchange_step(p, o, &st, i++, 0, 0, 1, r + 1);
	}
}

/* ---- random ---- */

typedef struct rop {
	uint64_t val;     /* size, or calc picoseconds */
	uint32_t peer, tag;
	uint32_t dep[2];
	uint8_t type;     /* 's', 'r', 'c' */
	uint8_t ndep;
	uint8_t irq;      /* bit j: dep[j] is irequires */
} rop;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n >= 1), without modulo bias worth mentioning. */
static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)splitmix(s) * n) >> 64);
}

/* Dependencies of a new op at index i of a rank: usually the previous op,
 * sometimes another of the last 8, sometimes a second one; one in eight
 * is irequires. */
static void random_deps(uint64_t *s, rop *x, uint32_t i)
{
	x->ndep = 0;
	x->irq = 0;
	if (i == 0)
		return;
	uint32_t lo = i > 8 ? i - 8 : 0;
	uint64_t u = splitmix(s);
	if (u % 8 == 0)
		return; /* no predecessor at all */
	x->dep[0] = (u >> 3) % 4 ? i - 1 : lo + (uint32_t)rnd(s, i - lo);
	x->ndep = 1;
	if ((u >> 5) % 3 == 0 && i - lo > 1) {
		uint32_t d = lo + (uint32_t)rnd(s, i - lo);
		if (d != x->dep[0])
			x->dep[x->ndep++] = d;
	}
	for (int j = 0; j < x->ndep; j++)
		if ((u >> (8 + 3 * j)) % 8 == 0)
			x->irq |= (uint8_t)(1u << j);
}

static int gen_random(const gg_params *p, gg_out *o, ir_err *e)
{
	uint64_t n = p->n, k = p->ops, seed = p->seed, s;
	rop *ops = calloc(n * k, sizeof *ops);
	uint32_t *cnt = calloc(n, sizeof *cnt), *nsent = calloc(n, sizeof *nsent);
	uint32_t *open = malloc(n * sizeof *open);
	uint64_t nopen = n;
	int rc = 0;
	if (!ops || !cnt || !nsent || !open) {
		rc = ir_errf(e, "out of memory for %llu random operations", (unsigned long long)(n * k));
		goto out;
	}
	s = seed;
	for (uint64_t r = 0; r < n; r++)
		open[r] = (uint32_t)r;
	while (nopen) {
		uint64_t ia = rnd(&s, nopen), a = open[ia], ib_pos = 0;
		int ib_used = 0;
		if (nopen >= 2 && rnd(&s, 4) != 0) {
			ib_pos = rnd(&s, nopen - 1);
			if (ib_pos >= ia)
				ib_pos++;
			ib_used = 1;
			uint64_t b = open[ib_pos], from = a, to = b;
			if (splitmix(&s) & 1) {
				from = b;
				to = a;
			}
			uint64_t size = p->size ? 1 + rnd(&s, p->size) : 0;
			rop *x = &ops[from * k + cnt[from]], *y;
			x->type = 's';
			x->val = size;
			x->peer = (uint32_t)to;
			x->tag = (uint32_t)(p->tag + nsent[from]++);
			random_deps(&s, x, cnt[from]);
			cnt[from]++;
			y = &ops[to * k + cnt[to]];
			y->type = 'r';
			y->val = size;
			y->peer = (uint32_t)from;
			y->tag = x->tag;
			random_deps(&s, y, cnt[to]);
			cnt[to]++;
		} else {
			rop *x = &ops[a * k + cnt[a]];
			x->type = 'c';
			x->val = p->calc == UINT64_MAX ? splitmix(&s) : rnd(&s, p->calc + 1);
			random_deps(&s, x, cnt[a]);
			cnt[a]++;
		}
		/* retire finished ranks: swap-remove the touched positions, the
		 * higher first so the lower one stays valid */
		if (ib_used) {
			uint64_t hi = ia > ib_pos ? ia : ib_pos, lo = ia > ib_pos ? ib_pos : ia;
			if (cnt[open[hi]] >= k)
				open[hi] = open[--nopen];
			if (cnt[open[lo]] >= k)
				open[lo] = open[--nopen];
		} else if (cnt[a] >= k) {
			open[ia] = open[--nopen];
		}
	}
	for (uint64_t r = 0; r < n && !o->failed; r++) {
		gg_rank_open(o, r);
		for (uint32_t i = 0; i < k; i++) {
			rop *x = &ops[r * k + i];
			if (x->type == 's')
				gg_send(o, 's', i, x->val, x->peer, x->tag);
			else if (x->type == 'r')
				gg_recv(o, 'r', i, x->val, x->peer, x->tag);
			else
				gg_calc(o, 'c', i, x->val);
			for (int j = 0; j < x->ndep; j++)
				gg_dep(o, (char)x->type, i, (char)ops[r * k + x->dep[j]].type, x->dep[j],
				       (x->irq >> j) & 1);
		}
		gg_rank_close(o);
	}
out:
	free(ops);
	free(cnt);
	free(nsent);
	free(open);
	return rc;
}

int gg_generate(const gg_params *p, gg_out *o, ir_err *e)
{
	static void (*const per_rank[])(const gg_params *, gg_out *, uint64_t) = {
		[GG_DISSEMINATION] = gen_dissemination,
		[GG_BCAST] = gen_bcast,
		[GG_REDUCE] = gen_reduce,
		[GG_RING] = gen_ring,
		[GG_PINGPONG] = gen_pingpong,
		[GG_ALLTOALL] = gen_alltoall,
		[GG_ALLREDUCE] = gen_allreduce,
		[GG_RANDOM] = NULL,
	};
	gg_num_ranks(o, p->n);
	if (p->pattern == GG_RANDOM) {
		if (gen_random(p, o, e))
			return -1;
	} else {
		for (uint64_t r = 0; r < p->n && !o->failed; r++) {
			gg_rank_open(o, r);
			per_rank[p->pattern](p, o, r);
			gg_rank_close(o);
		}
	}
	gg_out_flush(o);
	if (o->failed) {
		memcpy(e->msg, o->err.msg, sizeof e->msg);
		return -1;
	}
	return 0;
}
