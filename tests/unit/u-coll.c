/*
 * u-coll.c: every collective algorithm, run for all ranks of communicators of
 * 1..17 ranks and several roots, must (1) send exactly the messages the peers
 * receive, pair by pair and in the same order with the same sizes, (2) have
 * only forward dependencies (acyclic), (3) complete when all ranks' graphs are
 * executed together with eager messages (no deadlock), and (4) move the bytes
 * the collective needs (checked for the data-exact algorithms). With the local
 * work functions (copy, reduce) the same runs check (5) the calcs: one copy of
 * the own block as op 0, none for an empty block; a combine right after every
 * combined receive, priced reduce(bytes received), as many as the algorithm
 * combines, and every send after a combine requires it; and no calc at all
 * without the functions.
 */
#include <stdlib.h>

#include "ir_coll.h"
#include "ir_goal.h"
#include "tap.h"

#define MAXP 17

typedef struct pairq {
	uint64_t sz[4096];
	size_t n, head;
} pairq;

static pairq q[MAXP][MAXP]; /* messages in flight src -> dst, FIFO */

static int is_reduction(enum ir_coll_kind k)
{
	return k == IR_COLL_REDUCE || k == IR_COLL_ALLREDUCE || k == IR_COLL_REDUCE_SCATTER ||
	       k == IR_COLL_REDUCE_SCATTER_BLOCK || k == IR_COLL_SCAN || k == IR_COLL_EXSCAN;
}

/* Does op `to` require op `from`, directly or through other ops? */
static int requires(const ir_cg *g, uint32_t from, uint32_t to)
{
	unsigned char seen[4096] = { 0 };
	uint32_t stack[4096];
	size_t n = 0;
	stack[n++] = to;
	while (n) {
		uint32_t x = stack[--n];
		if (x == from)
			return 1;
		for (size_t d = 0; d < g->ndep; d++)
			if (g->dep[d].to == x && !seen[g->dep[d].from] && n < 4096) {
				seen[g->dep[d].from] = 1;
				stack[n++] = g->dep[d].from;
			}
	}
	return 0;
}

/* The local work of rank r's part (see the header comment); counts the calcs in *ncalc. */
static int check_calcs(const ir_cg *g, enum ir_coll_kind k, uint32_t r, uint64_t own, const ir_pw *cp,
                       const ir_pw *rd, char *why, size_t whylen, uint64_t *ncalc)
{
	uint32_t last = UINT32_MAX;
	for (size_t i = 0; i < g->nop; i++) {
		const ir_cop *o = &g->op[i];
		if (o->type == IR_OP_CALC) {
			int found = 0;
			++*ncalc;
			last = (uint32_t)i;
			if (!cp && !rd) {
				snprintf(why, whylen, "rank %u: calc without local work functions", r);
				return -1;
			}
			if (!is_reduction(k)) {
				if (i != 0 || !own || o->size != ir_pw_eval(cp, own)) {
					snprintf(why, whylen, "rank %u: calc %zu of %llu ps, own block %llu bytes", r, i,
					         (unsigned long long)o->size, (unsigned long long)own);
					return -1;
				}
				for (size_t d = 0; d < g->ndep; d++)
					if (g->dep[d].to == i) {
						snprintf(why, whylen, "rank %u: the copy has a dependency", r);
						return -1;
					}
				continue;
			}
			for (size_t d = 0; d < g->ndep; d++) {
				const ir_cop *f = &g->op[g->dep[d].from];
				if (g->dep[d].to == i && f->type == IR_OP_RECV && f->size && o->size == ir_pw_eval(rd, f->size))
					found = 1;
			}
			if (!found) {
				snprintf(why, whylen, "rank %u: calc %zu of %llu ps follows no receive it prices", r, i,
				         (unsigned long long)o->size);
				return -1;
			}
		} else if (o->type == IR_OP_SEND && is_reduction(k) && last != UINT32_MAX &&
		           !requires(g, last, (uint32_t)i)) {
			snprintf(why, whylen, "rank %u: send %zu leaves before the combine %u", r, i, last);
			return -1;
		}
	}
	if (!is_reduction(k) && cp && own && (g->nop == 0 || g->op[0].type != IR_OP_CALC)) {
		snprintf(why, whylen, "rank %u: no copy of its own block of %llu bytes", r, (unsigned long long)own);
		return -1;
	}
	return 0;
}

static int run_all(enum ir_coll_kind k, enum ir_coll_alg alg, uint32_t p, uint32_t root, uint64_t s,
                   const ir_pw *cp, const ir_pw *rd, char *why, size_t whylen, uint64_t *sent_bytes,
                   uint64_t *ncalc)
{
	ir_cg g[MAXP];
	uint64_t block[MAXP], sb[MAXP][MAXP], rb[MAXP][MAXP];
	unsigned char *done[MAXP];
	size_t ndone[MAXP];
	ir_err e;
	int rc = 0;
	*sent_bytes = 0;
	*ncalc = 0;
	memset(q, 0, sizeof q);
	for (uint32_t i = 0; i < p; i++)
		block[i] = s + i * 3 + (i % 2 ? 0 : 5); /* uneven blocks, one may be zero when s=0 */
	for (uint32_t i = 0; i < p; i++)
		for (uint32_t j = 0; j < p; j++)
			sb[i][j] = (i * 7 + j * 3 + s) % 11; /* some zero */
	for (uint32_t i = 0; i < p; i++)
		for (uint32_t j = 0; j < p; j++)
			rb[i][j] = sb[j][i];
	for (uint32_t r = 0; r < p; r++) {
		ir_coll_args a = { p, r, root, s, block, sb[r], rb[r], cp, rd };
		uint64_t own = 0;
		if (k == IR_COLL_GATHERV || k == IR_COLL_SCATTERV)
			a.s = block[r];
		if (k == IR_COLL_ALLTOALL || k == IR_COLL_ALLGATHER ||
		    ((k == IR_COLL_GATHER || k == IR_COLL_SCATTER) && r == root))
			own = s;
		else if (k == IR_COLL_ALLTOALLV)
			own = sb[r][r];
		else if (k == IR_COLL_ALLGATHERV || ((k == IR_COLL_GATHERV || k == IR_COLL_SCATTERV) && r == root))
			own = block[r];
		ir_cg_init(&g[r]);
		if (ir_coll_build(&g[r], k, alg, &a, &e)) {
			snprintf(why, whylen, "build failed: %.200s", e.msg);
			for (uint32_t j = 0; j <= r; j++)
				ir_cg_release(&g[j]);
			return -1;
		}
		for (size_t d = 0; d < g[r].ndep; d++)
			if (g[r].dep[d].from >= g[r].dep[d].to || g[r].dep[d].to >= g[r].nop) {
				snprintf(why, whylen, "rank %u: backward or bad dependency %u -> %u", r, g[r].dep[d].from,
				         g[r].dep[d].to);
				rc = -1;
			}
		if (rc == 0 && check_calcs(&g[r], k, r, own, cp, rd, why, whylen, ncalc))
			rc = -1;
		for (size_t i = 0; i < g[r].nop; i++)
			if (g[r].op[i].type != IR_OP_CALC && (g[r].op[i].peer >= p || g[r].op[i].peer == r)) {
				snprintf(why, whylen, "rank %u: op %zu has peer %u", r, i, g[r].op[i].peer);
				rc = -1;
			}
		done[r] = calloc(g[r].nop + 1, 1);
		ndone[r] = 0;
	}
	/* execute: repeat until no progress; an op runs when all its predecessors are done;
	 * a receive also needs the next message of its pair to be there with the same size */
	for (int progress = 1; progress && rc == 0;) {
		progress = 0;
		for (uint32_t r = 0; r < p; r++) {
			for (size_t i = 0; i < g[r].nop; i++) {
				int ready = !done[r][i];
				ir_cop *o = &g[r].op[i];
				for (size_t d = 0; ready && d < g[r].ndep; d++)
					if (g[r].dep[d].to == i && !done[r][g[r].dep[d].from])
						ready = 0;
				if (!ready)
					continue;
				if (o->type == IR_OP_SEND) {
					pairq *x = &q[r][o->peer];
					if (x->n == 4096) {
						snprintf(why, whylen, "queue overflow");
						rc = -1;
						break;
					}
					x->sz[x->n++] = o->size;
					*sent_bytes += o->size;
				} else if (o->type == IR_OP_RECV) {
					pairq *x = &q[o->peer][r];
					if (x->head == x->n)
						continue;
					if (x->sz[x->head] != o->size) {
						snprintf(why, whylen, "rank %u receives %llu bytes from %u, which sent %llu", r,
						         (unsigned long long)o->size, o->peer, (unsigned long long)x->sz[x->head]);
						rc = -1;
						break;
					}
					x->head++;
				}
				done[r][i] = 1;
				ndone[r]++;
				progress = 1;
			}
		}
	}
	for (uint32_t r = 0; r < p && rc == 0; r++)
		if (ndone[r] != g[r].nop) {
			snprintf(why, whylen, "rank %u stuck after %zu of %zu ops", r, ndone[r], g[r].nop);
			rc = -1;
		}
	for (uint32_t i = 0; i < p && rc == 0; i++)
		for (uint32_t j = 0; j < p && rc == 0; j++)
			if (q[i][j].head != q[i][j].n) {
				snprintf(why, whylen, "%zu messages %u -> %u never received", q[i][j].n - q[i][j].head, i, j);
				rc = -1;
			}
	for (uint32_t r = 0; r < p; r++) {
		free(done[r]);
		ir_cg_release(&g[r]);
	}
	return rc;
}

/* Bytes the collective must move in total for the exact algorithms, or 0 if not checked. */
static uint64_t expected_bytes(enum ir_coll_kind k, enum ir_coll_alg alg, uint32_t p, uint64_t s)
{
	uint64_t blocks = 0;
	for (uint32_t i = 0; i < p; i++)
		blocks += s + i * 3 + (i % 2 ? 0 : 5);
	switch (k) {
	case IR_COLL_BCAST:
	case IR_COLL_REDUCE:
		return (uint64_t)(p - 1) * s;
	case IR_COLL_GATHER:
	case IR_COLL_SCATTER:
		if (alg == IR_ALG_LINEAR)
			return (uint64_t)(p - 1) * s;
		return 0; /* binomial forwards blocks: checked by balance only */
	case IR_COLL_ALLTOALL:
		return (uint64_t)p * (p - 1) * s;
	case IR_COLL_ALLGATHER:
		if (alg == IR_ALG_RING || alg == IR_ALG_BRUCK || alg == IR_ALG_LINEAR)
			return (uint64_t)p * (p - 1) * s;
		return 0;
	case IR_COLL_ALLGATHERV:
		return (uint64_t)(p - 1) * blocks;
	case IR_COLL_REDUCE_SCATTER:
		if (alg == IR_ALG_RING)
			return (uint64_t)(p - 1) * blocks;
		return 0;
	case IR_COLL_ALLREDUCE:
		if (alg == IR_ALG_RING)
			return p > 1 ? 2 * (uint64_t)(p - 1) * s : 0;
		return 0;
	case IR_COLL_COMM_CREATE:
	case IR_COLL_COMM_SPLIT: {
		/* split: allgather of 8 bytes per rank; then ompi: 3 x (reduce + bcast of 4 bytes),
		 * mpich: 1 recursive-doubling allreduce of 256 bytes (pre- and post-phase for the
		 * ranks beyond the largest power of two); local: nothing. 1 for none: 0 means unchecked */
		uint64_t pof2 = 1, lg = 0, b = k == IR_COLL_COMM_SPLIT ? (uint64_t)p * (p - 1) * 8 : 0;
		if (p < 2 || alg == IR_ALG_LOCAL)
			return 1;
		while (pof2 * 2 <= p) {
			pof2 *= 2;
			lg++;
		}
		if (alg == IR_ALG_OMPI)
			return b + 3 * 2 * (uint64_t)(p - 1) * 4;
		return b + (pof2 * lg + 2 * (p - pof2)) * 256;
	}
	default:
		return 0;
	}
}

static uint32_t ceil_log2(uint32_t p)
{
	uint32_t l = 0;
	while ((1u << l) < p)
		l++;
	return l;
}

/* Combines (calcs) all ranks of a reduction do together, for s > 0. */
static uint64_t expected_combines(enum ir_coll_kind k, enum ir_coll_alg alg, uint32_t p)
{
	uint32_t pof2 = 1;
	uint64_t n = 0;
	while (pof2 * 2 <= p)
		pof2 *= 2;
	if (k == IR_COLL_REDUCE || alg == IR_ALG_REDUCE_BCAST || alg == IR_ALG_REDUCE_SCATTERV)
		return p - 1; /* every contribution but the root's is combined once */
	switch (alg) {
	case IR_ALG_RECDOUB:
		if (k == IR_COLL_ALLREDUCE) /* each exchange, and the odd ranks' pre-phase */
			return (uint64_t)pof2 * ceil_log2(pof2) + (p - pof2);
		for (uint64_t d = 1; d < p; d *= 2) /* scan: every receive */
			n += p - d;
		return n;
	case IR_ALG_RING:
		return (uint64_t)p * (p - 1);
	case IR_ALG_DISSEMINATION:
		return (uint64_t)p * ceil_log2(p);
	case IR_ALG_LINEAR: /* scan: ranks 1..p-1; exscan: those that forward */
		return k == IR_COLL_EXSCAN ? (p > 1 ? p - 2 : 0) : p - 1;
	default:
		return 0;
	}
}

int main(void)
{
	char why[300];
	ir_err e;
	enum ir_coll_alg algs[IR_COLL_NSEL] = { 0 };
	ir_pw cp, rd;

	/* local work: copy 2 ns + 1 ps/B, reduce 1 ns + 0.5 ps/B up to 4 KiB and 3 ps/B above */
	ok(ir_pw_parse(&cp, "0:2ns+1ps", "'copy'", &e) == 0 &&
	       ir_pw_parse(&rd, "0:1ns+0.5ps; 4096:0+3ps", "'reduce'", &e) == 0,
	   "local work functions parse");

	for (int k = 0; k < IR_COLL_NKINDS; k++) {
		for (int alg = 1; alg < IR_ALG_NALGS; alg++) {
			int fails = 0, runs = 0, bytefails = 0;
			if (!ir_coll_has(k, alg))
				continue;
			for (uint32_t p = 1; p <= MAXP; p++) {
				uint32_t roots[3] = { 0, p - 1, p / 2 };
				for (int ri = 0; ri < 3; ri++) {
					for (uint64_t s = 0; s <= 1000; s += 1000) {
						uint64_t got, want, nc;
						runs++;
						if (run_all(k, alg, p, roots[ri], s, NULL, NULL, why, sizeof why, &got, &nc)) {
							if (!fails++)
								printf("# %s=%s p=%u root=%u s=%llu: %s\n", ir_coll_kind_name(k),
								       ir_coll_alg_name(alg), p, roots[ri], (unsigned long long)s, why);
							continue;
						}
						want = expected_bytes(k, alg, p, s);
						if (k == IR_COLL_REDUCE_SCATTER && alg == IR_ALG_RING)
							want = p > 1 ? want : 0;
						if (want == 1) /* a collective that moves nothing */
							want = got == 0 ? 0 : 1;
						if (want && got != want && !bytefails++)
							printf("# %s=%s p=%u: moved %llu bytes, expected %llu\n", ir_coll_kind_name(k),
							       ir_coll_alg_name(alg), p, (unsigned long long)got, (unsigned long long)want);
					}
				}
			}
			ok(fails == 0, "%s=%s: %d runs (p 1..%d, 3 roots) balance, acyclic, complete",
			   ir_coll_kind_name(k), ir_coll_alg_name(alg), runs, MAXP);
			ok(bytefails == 0, "%s=%s: moves the bytes the collective needs", ir_coll_kind_name(k),
			   ir_coll_alg_name(alg));
			/* the same with local work: still balanced, acyclic, complete; the calcs right */
			fails = runs = 0;
			for (uint32_t p = 1; p <= MAXP; p++) {
				uint32_t roots[3] = { 0, p - 1, p / 2 };
				for (int ri = 0; ri < 3; ri++) {
					for (uint64_t s = 0; s <= 6000; s += 1000) {
						uint64_t got, nc, want;
						runs++;
						if (run_all(k, alg, p, roots[ri], s, &cp, &rd, why, sizeof why, &got, &nc)) {
							if (!fails++)
								printf("# %s=%s p=%u root=%u s=%llu: %s\n", ir_coll_kind_name(k),
								       ir_coll_alg_name(alg), p, roots[ri], (unsigned long long)s, why);
							continue;
						}
						want = is_reduction(k) ? (s ? expected_combines(k, alg, p) : 0) : nc;
						if ((k == IR_COLL_REDUCE_SCATTER || k == IR_COLL_REDUCE_SCATTER_BLOCK) && s == 0)
							want = nc; /* blocks 5, 3, 10, ...: checked by check_calcs only */
						if (nc != want && !fails++)
							printf("# %s=%s p=%u root=%u s=%llu: %llu calcs, expected %llu\n",
							       ir_coll_kind_name(k), ir_coll_alg_name(alg), p, roots[ri],
							       (unsigned long long)s, (unsigned long long)nc, (unsigned long long)want);
					}
				}
			}
			ok(fails == 0, "%s=%s with copy and reduce: %d runs balance, acyclic, complete, calcs right",
			   ir_coll_kind_name(k), ir_coll_alg_name(alg), runs);
		}
		ok(ir_coll_has(k, ir_coll_default(k)), "%s has its default algorithm (%s)", ir_coll_kind_name(k),
		   ir_coll_alg_name(ir_coll_default(k)));
	}

	/* Schedgen's binomial broadcast, 4 ranks, root 0, rank 0: send to 1, then send to 2 */
	{
		ir_cg g;
		ir_coll_args a = { 4, 0, 0, 8, NULL, NULL, NULL, NULL, NULL };
		ir_cg_init(&g);
		ok(ir_coll_build(&g, IR_COLL_BCAST, IR_ALG_BINOMIAL, &a, &e) == 0 && g.nop == 2 &&
		       g.op[0].type == IR_OP_SEND && g.op[0].peer == 1 && g.op[1].peer == 2,
		   "binomial bcast root of 4 sends to 1 then 2");
		a.r = 3;
		ok(ir_coll_build(&g, IR_COLL_BCAST, IR_ALG_BINOMIAL, &a, &e) == 0 && g.nop == 1 &&
		       g.op[0].type == IR_OP_RECV && g.op[0].peer == 1,
		   "binomial bcast rank 3 of 4 receives from 1");
		a.r = 1;
		ok(ir_coll_build(&g, IR_COLL_BARRIER, IR_ALG_DISSEMINATION, &a, &e) == 0 && g.nop == 4 &&
		       g.op[0].peer == 2 && g.op[1].peer == 0 && g.op[2].peer == 3 && g.op[3].peer == 3 &&
		       g.ndep == 1 && g.dep[0].from == 1 && g.dep[0].to == 2,
		   "dissemination rank 1 of 4: send 2, recv 0, send 3 (requires recv), recv 3");
		/* reduce + bcast without combines: the root forwards only once every contribution is
		 * in (3 ranks: receives from 1 and 2, then sends to 1 and 2, each requiring both) */
		{
			ir_coll_args a3 = { 3, 0, 0, 8, NULL, NULL, NULL, NULL, NULL };
			int need = 0;
			ok(ir_coll_build(&g, IR_COLL_ALLREDUCE, IR_ALG_REDUCE_BCAST, &a3, &e) == 0 && g.nop == 4 &&
			       g.op[0].type == IR_OP_RECV && g.op[1].type == IR_OP_RECV && g.op[2].type == IR_OP_SEND &&
			       g.op[3].type == IR_OP_SEND && g.ndep == 4,
			   "reduce_bcast root of 3: two receives, two sends");
			for (size_t i = 0; i < g.ndep; i++)
				need += g.dep[i].from < 2 && g.dep[i].to >= 2;
			ok(need == 4, "every send of the broadcast requires both receives");
			uint64_t blk3[3] = { 4, 4, 4 };
			a3.block = blk3;
			need = 0;
			ok(ir_coll_build(&g, IR_COLL_REDUCE_SCATTER, IR_ALG_REDUCE_SCATTERV, &a3, &e) == 0 && g.nop == 4 &&
			       g.ndep == 4,
			   "reduce_scatterv root of 3: two receives, two sends");
			for (size_t i = 0; i < g.ndep; i++)
				need += g.dep[i].from < 2 && g.dep[i].to >= 2;
			ok(need == 4, "every send of the scatter requires both receives");
		}
		/* local work by hand: reduce(8) = 1 ns + 8 * 0.5 ps, copy(100) = 2 ns + 100 ps */
		a.r = 0;
		a.reduce = &rd;
		ok(ir_coll_build(&g, IR_COLL_ALLREDUCE, IR_ALG_RECDOUB, &a, &e) == 0 && g.nop == 6 &&
		       g.op[0].type == IR_OP_SEND && g.op[1].type == IR_OP_RECV && g.op[2].type == IR_OP_CALC &&
		       g.op[2].size == 1004 && g.op[3].type == IR_OP_SEND && g.op[3].peer == 2 &&
		       g.op[4].type == IR_OP_RECV && g.op[5].type == IR_OP_CALC && g.op[5].size == 1004 && g.ndep == 4 &&
		       g.dep[0].from == 1 && g.dep[0].to == 2 && g.dep[1].from == 2 && g.dep[1].to == 3 &&
		       g.dep[2].from == 2 && g.dep[2].to == 4 && g.dep[3].from == 4 && g.dep[3].to == 5,
		   "recdoub allreduce rank 0 of 4: exchange, combine 1004 ps, next exchange after it, combine");
		ok(ir_coll_build(&g, IR_COLL_REDUCE, IR_ALG_BINOMIAL, &a, &e) == 0 && g.nop == 4 &&
		       g.op[0].type == IR_OP_RECV && g.op[0].peer == 1 && g.op[1].type == IR_OP_CALC &&
		       g.op[2].type == IR_OP_RECV && g.op[2].peer == 2 && g.op[3].type == IR_OP_CALC && g.ndep == 3 &&
		       g.dep[2].from == 1 && g.dep[2].to == 3,
		   "binomial reduce root of 4: each receive combined, the combines chained");
		a.r = 3;
		ok(ir_coll_build(&g, IR_COLL_REDUCE, IR_ALG_BINOMIAL, &a, &e) == 0 && g.nop == 1 &&
		       g.op[0].type == IR_OP_SEND,
		   "binomial reduce leaf: nothing to combine");
		a.r = 1;
		ok(ir_coll_build(&g, IR_COLL_ALLTOALL, IR_ALG_LINEAR, &a, &e) == 0 && g.nop == 6,
		   "alltoall ignores reduce");
		a.copy = &cp;
		a.s = 100;
		ok(ir_coll_build(&g, IR_COLL_ALLTOALL, IR_ALG_LINEAR, &a, &e) == 0 && g.nop == 7 &&
		       g.op[0].type == IR_OP_CALC && g.op[0].size == 2100 && g.ndep == 0,
		   "alltoall rank 1 of 4: the copy of its own 100 bytes first, 2100 ps");
		ok(ir_coll_build(&g, IR_COLL_GATHER, IR_ALG_BINOMIAL, &a, &e) == 0 && g.nop == 1 &&
		       g.op[0].type == IR_OP_SEND,
		   "gather: no copy outside the root");
		a.s = 0;
		ok(ir_coll_build(&g, IR_COLL_ALLGATHER, IR_ALG_RING, &a, &e) == 0 && g.nop == 6 &&
		       g.op[0].type == IR_OP_SEND,
		   "allgather of empty blocks: no copy");
		ok(ir_coll_build(&g, IR_COLL_BCAST, IR_ALG_BINOMIAL, &a, &e) == 0 && g.nop == 2 &&
		       g.op[0].type == IR_OP_RECV && g.op[1].type == IR_OP_SEND,
		   "bcast ignores copy and reduce");
		a.copy = a.reduce = NULL;
		a.s = 8;
		a.r = 5;
		ok(ir_coll_build(&g, IR_COLL_BCAST, IR_ALG_BINOMIAL, &a, &e) < 0 &&
		       strstr(e.msg, "outside a communicator of 4 ranks") != NULL,
		   "rank outside the communicator is refused: %s", e.msg);
		ir_cg_release(&g);
	}

	/* --coll parsing */
	ok(ir_coll_parse_spec("allreduce=ring,bcast=chain", algs, &e) == 0 && algs[IR_COLL_ALLREDUCE] == IR_ALG_RING &&
	       algs[IR_COLL_BCAST] == IR_ALG_CHAIN,
	   "--coll allreduce=ring,bcast=chain");
	ok(ir_coll_parse_spec("allreduce=chain", algs, &e) < 0, "unknown algorithm for a collective");
	is_str(e.msg, "invalid --coll item: allreduce has no algorithm 'chain' (available: dissemination, recdoub, ring, reduce_bcast)",
	       "message lists the available algorithms");
	ok(ir_coll_parse_spec("allreduc=ring", algs, &e) < 0, "unknown collective");
	is_str(e.msg, "invalid --coll item: unknown collective 'allreduc'", "message names it");
	ok(ir_coll_parse_spec("bcast", algs, &e) < 0, "item without '='");
	is_str(e.msg, "invalid --coll item 'bcast' (expected COLLECTIVE=ALGORITHM)", "message says the form");

	/* nonblocking forms: their own selection, Open MPI 4.1 libnbc defaults */
	memset(algs, 0, sizeof algs);
	ok(ir_coll_parse_spec("iallreduce=recdoub", algs, &e) == 0 &&
	       algs[IR_COLL_NKINDS + IR_COLL_ALLREDUCE] == IR_ALG_RECDOUB && algs[IR_COLL_ALLREDUCE] == IR_ALG_DEFAULT,
	   "--coll iallreduce=recdoub sets the nonblocking form only");
	ok(ir_coll_parse_spec("ibcast=bruck", algs, &e) < 0, "unknown algorithm for a nonblocking collective");
	is_str(e.msg, "invalid --coll item: ibcast has no algorithm 'bruck' (available: linear, binomial, chain)",
	       "message names the nonblocking form");
	ok(ir_coll_parse_spec("i=ring", algs, &e) < 0 && ir_coll_parse_spec("iiallreduce=ring", algs, &e) < 0,
	   "a lone i and a doubled i are unknown collectives");
	ok(ir_coll_default_nb(IR_COLL_ALLREDUCE, 2, 1 << 20, 0) == IR_ALG_REDUCE_BCAST &&
	       ir_coll_default_nb(IR_COLL_ALLREDUCE, 8, 8, 0) == IR_ALG_REDUCE_BCAST &&
	       ir_coll_default_nb(IR_COLL_ALLREDUCE, 8, 65536, 1) == IR_ALG_REDUCE_BCAST &&
	       ir_coll_default_nb(IR_COLL_ALLREDUCE, 4, 65536, 0) == IR_ALG_RING &&
	       ir_coll_default_nb(IR_COLL_ALLREDUCE, 8, 65535, 0) == IR_ALG_REDUCE_BCAST,
	   "iallreduce: binomial reduce + bcast below 4 ranks, below 64 KiB or in place, else ring");
	ok(ir_coll_default_nb(IR_COLL_BCAST, 4, 8, 0) == IR_ALG_LINEAR &&
	       ir_coll_default_nb(IR_COLL_BCAST, 5, 8, 0) == IR_ALG_BINOMIAL,
	   "ibcast: linear up to 4 ranks, binomial above");
	ok(ir_coll_default_nb(IR_COLL_REDUCE_SCATTER, 8, 8, 0) == IR_ALG_REDUCE_SCATTERV &&
	       ir_coll_default_nb(IR_COLL_REDUCE_SCATTER_BLOCK, 8, 8, 0) == IR_ALG_REDUCE_SCATTERV &&
	       ir_coll_default_nb(IR_COLL_ALLGATHER, 8, 8, 0) == IR_ALG_LINEAR &&
	       ir_coll_default_nb(IR_COLL_BARRIER, 8, 0, 0) == IR_ALG_DISSEMINATION &&
	       ir_coll_default_nb(IR_COLL_REDUCE, 8, 8, 0) == IR_ALG_BINOMIAL,
	   "ireduce_scatter(_block), iallgather, ibarrier, ireduce");
	{
		int bad = 0;
		for (int k = 0; k < IR_COLL_NKINDS; k++)
			if (!ir_coll_has(k, ir_coll_default_nb(k, 2, 8, 0)) ||
			    !ir_coll_has(k, ir_coll_default_nb(k, 64, 1 << 20, 0))) {
				printf("# i%s: default algorithm not implemented\n", ir_coll_kind_name(k));
				bad++;
			}
		ok(bad == 0, "every nonblocking default is implemented");
	}
	return tap_done();
}
