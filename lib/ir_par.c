/*
 * ir_par.c: the parallel LogGOPS engine (ir_par.h): the partitioner and the
 * window loop.
 *
 * Partitioner. Ranks that must stay together are joined first (union-find):
 * the two ends of every rendezvous message, since its sender is released when
 * the receiver matches it, with no latency a window could hide; and the ranks
 * of a host whose cores they share under the node model. The sets, in order of
 * their lowest rank, are then dealt to processes in blocks of about equal ops
 * (or of the given shares): consecutive ranks of a generator's pattern are
 * usually neighbours, so blocks keep most messages inside a process. The cut
 * (messages and bytes between processes) and the lookahead (the earliest
 * arrival, after its send, of a message in the cut) come from one pass over
 * the sends. Alternatives not taken: graph partitioning by traffic (METIS-like)
 * cuts fewer bytes on irregular traces but needs a library or much code, and
 * only the window count, not the cut, bounds the speed-up here (docs/design.md
 * §9).
 *
 * Windows. All processes agree on T, the earliest queued time anywhere (a
 * min-reduction); each simulates its items earlier than T + lookahead; then the
 * messages that crossed are exchanged and queued with the keys their senders
 * gave them. A message sent at t >= T arrives at t + lookahead or later, so
 * never inside the window that sent it. Two collectives per window.
 */
#include "ir_par.h"

#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_num.h"

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static void uf_join(uint32_t *up, uint32_t a, uint32_t b)
{
	a = uf_find(up, a);
	b = uf_find(up, b);
	if (a < b)
		up[b] = a;
	else if (b < a)
		up[a] = b;
}

void ir_par_plan_release(ir_par_plan *pl)
{
	free(pl->owner);
	free(pl->ops);
	free(pl->ranks);
	memset(pl, 0, sizeof *pl);
}

int ir_par_weights(const char *spec, uint32_t nprocs, double *w, ir_err *e)
{
	const char *p = spec;
	for (uint32_t i = 0; i < nprocs; i++) {
		char *end;
		double v;
		if (i && *p++ != ',')
			return ir_errf(e, "--weights '%s': expected %u comma-separated shares, one per process", spec, nprocs);
		v = strtod(p, &end);
		if (end == p || !(v > 0) || v > 1e9)
			return ir_errf(e, "--weights '%s': share %u is not a positive number", spec, i + 1);
		w[i] = v;
		p = end;
	}
	if (*p)
		return ir_errf(e, "--weights '%s': expected %u comma-separated shares, one per process", spec, nprocs);
	return 0;
}

/* The partition of s's ranks: joined ranks (up[], union-find; freed here) together, in
 * blocks; p NULL: the lookahead is the caller's (UINT64_MAX here). */
static int plan_core(ir_par_plan *pl, const ir_sched *s, const ir_loggops *p, uint32_t nprocs, const double *weights,
                     uint32_t *up, ir_err *e);

static int plan_alloc(ir_par_plan *pl, const ir_sched *s, uint32_t nprocs, uint32_t **up, ir_err *e)
{
	uint32_t n = s->nranks;
	memset(pl, 0, sizeof *pl);
	*up = NULL;
	if (!s->compact)
		return ir_errf(e, "internal error: the schedule has no compact form");
	if (nprocs == 0)
		return ir_errf(e, "no processes");
	if (nprocs > n)
		return ir_errf(e, "%u processes for %u ranks: at most one process per rank", nprocs, n);
	if (!(*up = malloc((size_t)(n ? n : 1) * 4)))
		return ir_errf(e, "out of memory for the partition of %u ranks", n);
	for (uint32_t r = 0; r < n; r++)
		(*up)[r] = r;
	return 0;
}

int ir_par_plan_units(ir_par_plan *pl, const ir_sched *s, uint32_t nprocs, const double *weights, const uint32_t *unit,
                      uint32_t nunits, ir_err *e)
{
	uint32_t *up, *first;
	if (plan_alloc(pl, s, nprocs, &up, e))
		return -1;
	if (!(first = malloc((size_t)(nunits ? nunits : 1) * 4))) {
		free(up);
		return ir_errf(e, "out of memory for the partition of %u ranks", s->nranks);
	}
	for (uint32_t u = 0; u < nunits; u++)
		first[u] = UINT32_MAX;
	for (uint32_t r = 0; r < s->nranks; r++) {
		if (unit[r] >= nunits) {
			free(up);
			free(first);
			return ir_errf(e, "internal error: rank %u in unit %u of %u", r, unit[r], nunits);
		}
		if (first[unit[r]] == UINT32_MAX)
			first[unit[r]] = r;
		else
			uf_join(up, r, first[unit[r]]);
	}
	free(first);
	return plan_core(pl, s, NULL, nprocs, weights, up, e);
}

int ir_par_plan_make(ir_par_plan *pl, const ir_sched *s, const ir_loggops *p, uint32_t nprocs,
                     enum ir_par_mode mode, const double *weights, uint32_t host_ranks, ir_err *e)
{
	const ir_csched *cs = s->compact;
	uint32_t n = s->nranks, *up;
	(void)mode;
	if (plan_alloc(pl, s, nprocs, &up, e))
		return -1;
	/* join the ends of rendezvous messages, and the ranks of a shared host */
	for (uint32_t r = 0; r < n; r++) {
		for (uint32_t i = 0; i < s->rank[r].nops; i++) {
			ir_dop o;
			ir_csched_op(cs, r, ir_cs_gid(cs->base[r], i), &o);
			if (o.type == IR_OP_SEND && o.peer < n && o.size > p->S && o.peer != r)
				uf_join(up, r, o.peer);
		}
		if (host_ranks > 1 && r % host_ranks)
			uf_join(up, r, r - r % host_ranks);
	}
	return plan_core(pl, s, p, nprocs, weights, up, e);
}

static int plan_core(ir_par_plan *pl, const ir_sched *s, const ir_loggops *p, uint32_t nprocs, const double *weights,
                     uint32_t *up, ir_err *e)
{
	const ir_csched *cs = s->compact;
	uint32_t n = s->nranks, proc = 0;
	uint64_t *gops = NULL, total = 0, acc = 0;
	double wsum = 0, wacc = 0;
	pl->nprocs = nprocs;
	pl->nranks = n;
	pl->lookahead = UINT64_MAX;
	if (!(pl->owner = calloc(n ? n : 1, 4)) || !(pl->ops = calloc(nprocs, 8)) || !(pl->ranks = calloc(nprocs, 4)) ||
	    !(gops = calloc(n ? n : 1, 8))) {
		free(up);
		free(gops);
		ir_par_plan_release(pl);
		return ir_errf(e, "out of memory for the partition of %u ranks", n);
	}
	for (uint32_t r = 0; r < n; r++) {
		uint32_t g = uf_find(up, r);
		gops[g] += s->rank[r].nops;
		total += s->rank[r].nops;
		pl->groups += g == r;
	}
	if (pl->groups < nprocs) {
		uint32_t k = pl->groups;
		free(up);
		free(gops);
		ir_par_plan_release(pl);
		return ir_errf(e, "%u processes, but the ranks form only %u sets that can be simulated apart (%s)", nprocs,
		               k, p ? "rendezvous messages and shared hosts join ranks"
		                    : "the ranks of the hosts cabled to one switch stay together");
	}
	for (uint32_t i = 0; i < nprocs; i++)
		wsum += weights ? weights[i] : 1.0;
	wacc = weights ? weights[0] : 1.0;
	/* Deal the sets in order of their lowest rank (a set's root is its lowest rank): the
	 * next process starts when this one's share of the ops is reached, or when only as many
	 * sets are left as processes after this one. gops[root] becomes the set's process. */
	{
		uint32_t left = pl->groups, used = 0;
		for (uint32_t r = 0; r < n; r++) {
			uint64_t o;
			if (uf_find(up, r) != r)
				continue;
			if (proc + 1 < nprocs && used &&
			    ((double)acc * wsum >= (double)total * wacc * (1 - 1e-12) || left == nprocs - 1 - proc)) {
				proc++;
				used = 0;
				wacc += weights ? weights[proc] : 1.0;
			}
			o = gops[r];
			acc += o;
			gops[r] = proc;
			used++;
			left--;
		}
	}
	for (uint32_t r = 0; r < n; r++) {
		uint32_t q = (uint32_t)gops[uf_find(up, r)];
		pl->owner[r] = q;
		pl->ranks[q]++;
		pl->ops[q] += s->rank[r].nops;
	}
	/* the cut and the lookahead */
	for (uint32_t r = 0; r < n; r++) {
		for (uint32_t i = 0; i < s->rank[r].nops; i++) {
			ir_dop o;
			ir_csched_op(cs, r, ir_cs_gid(cs->base[r], i), &o);
			if (o.type != IR_OP_SEND || o.peer >= n || o.peer == r)
				continue;
			pl->msgs++;
			pl->bytes += o.size;
			if (pl->owner[o.peer] != pl->owner[r]) {
				pl->cut_msgs++;
				pl->cut_bytes += o.size;
				if (p) {
					uint64_t d = ir_model_arrival(p, o.size, 0);
					if (d < pl->lookahead)
						pl->lookahead = d;
				}
			}
		}
	}
	free(up);
	free(gops);
	if (pl->lookahead == 0) {
		ir_par_plan_release(pl);
		return ir_errf(e, "a message between processes arrives 0 ps after its send starts: no lookahead "
		               "for the windows (o + L or net_L is 0); run ibsim instead");
	}
	return 0;
}

/* ---- the run ---- */

static int to_remote(void *ctx, const ir_engine_rmsg *m, ir_err *e)
{
	ir_par_run *rr = ctx;
	/* a message goes to its destination's process, the completion of a send to its sender's */
	uint32_t q = rr->plan->owner[m->kind == IR_RMSG_SFIN ? m->src : m->dst];
	if (rr->nout[q] == rr->capout[q] && IR_GROW(rr->out[q], rr->nout[q] + 1, rr->capout[q]))
		return ir_errf(e, "out of memory for messages to process %u", q);
	rr->out[q][rr->nout[q]++] = *m;
	rr->st.sent++;
	return 0;
}

int ir_par_part(ir_par_run *rr, const ir_par_plan *pl, const ir_par_comm *c, ir_engine_part *part, ir_err *e)
{
	memset(rr, 0, sizeof *rr);
	rr->plan = pl;
	rr->comm = c;
	if (c->nprocs != pl->nprocs || c->me >= pl->nprocs)
		return ir_errf(e, "internal error: process %u of %u for a plan of %u", c->me, c->nprocs, pl->nprocs);
	if (!(rr->out = calloc(pl->nprocs, sizeof *rr->out)) || !(rr->nout = calloc(pl->nprocs, sizeof *rr->nout)) ||
	    !(rr->capout = calloc(pl->nprocs, sizeof *rr->capout)) || !(rr->xout = calloc(pl->nprocs, sizeof *rr->xout))) {
		ir_par_run_release(rr);
		return ir_errf(e, "out of memory");
	}
	part->owner = pl->owner;
	part->me = c->me;
	part->remote = to_remote;
	part->ctx = rr;
	return 0;
}

void ir_par_run_release(ir_par_run *rr)
{
	if (rr->out)
		for (uint32_t q = 0; q < rr->plan->nprocs; q++)
			free(rr->out[q]);
	free(rr->out);
	free(rr->nout);
	free(rr->capout);
	if (rr->xout)
		for (uint32_t q = 0; q < rr->plan->nprocs; q++)
			ir_sb_release(&rr->xout[q]);
	free(rr->xout);
	rr->xout = NULL;
	rr->out = NULL;
	rr->nout = rr->capout = NULL;
}

static int exchange(ir_par_run *rr, ir_engine *en, ir_err *e)
{
	const ir_engine_rmsg *in = NULL;
	const unsigned char *xin = NULL;
	size_t nin = 0, xn = 0;
	if (rr->net_put) {
		/* the network's items travel in the same collectives as the engine's messages */
		if (!rr->comm->xexchange)
			return ir_errf(e, "internal error: the network's items have no exchange");
		if (rr->comm->xexchange(rr->comm->ctx, rr->out, rr->nout, rr->xout, &in, &nin, &xin, &xn, e))
			return -1;
		for (uint32_t q = 0; q < rr->plan->nprocs; q++)
			rr->xout[q].len = 0;
	} else if (rr->comm->exchange(rr->comm->ctx, rr->out, rr->nout, &in, &nin, e))
		return -1;
	for (uint32_t q = 0; q < rr->plan->nprocs; q++)
		rr->nout[q] = 0;
	for (size_t i = 0; i < nin; i++)
		if (ir_engine_put_remote(en, &in[i], e))
			return -1;
	if (xn && rr->net_put(rr->net_ctx, xin, xn, e))
		return -1;
	return 0;
}

int ir_par_xsend(void *ctx, uint32_t q, const void *item, size_t size, ir_err *e)
{
	ir_par_run *rr = ctx;
	if (q >= rr->plan->nprocs || q == rr->comm->me)
		return ir_errf(e, "internal error: a network item for process %u of %u, sent by %u", q, rr->plan->nprocs,
		               rr->comm->me);
	if (ir_sb_add(&rr->xout[q], item, size))
		return ir_errf(e, "out of memory for the network's items to process %u", q);
	rr->st.sent++;
	return 0;
}

int ir_par_go(ir_par_run *rr, ir_engine *en, ir_err *e)
{
	uint64_t la = rr->plan->lookahead;
	if (ir_engine_start(en, e) || exchange(rr, en, e))
		return -1;
	for (;;) {
		uint64_t t = ir_engine_next_time(en);
		int all;
		if (rr->comm->min(rr->comm->ctx, &t, e))
			return -1;
		if (t == UINT64_MAX)
			break;
		all = la == UINT64_MAX || t > UINT64_MAX - la;
		rr->st.windows++;
		if (ir_engine_advance(en, all ? 0 : t + la, all, e) || exchange(rr, en, e))
			return -1;
	}
	return ir_engine_finish(en);
}
