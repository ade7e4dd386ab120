/*
 * ir_t2g_comm.c: trace2goal's communicators (part of ir_t2g, see
 * ir_t2g_internal.h).
 *
 * A '# comm' line of an allprof trace gives a communicator's members;
 * t2g_add_comm() enters it into the rank's table (and attaches a pending
 * topology), t2g_check_cseq() compares its collective sequence across ranks.
 * Reading the communicator argument of a call is in ir_t2g_call.c.
 */
#include "ir_t2g_internal.h"

/* ------------------------------------------------------------------ communicators */

int t2g_add_comm(gstate *g, rstate *R, const ir_rec *r, ir_err *e)
{
	comm *c;
	uint64_t h = 0x9E3779B97F4A7C15ULL, occ = 0;
	uint32_t *v;
	int found_me = 0;
	if (r->nmembers == 0 || r->nmembers > g->nranks)
		return t2g_errat(R, e, "'# comm %" PRIu64 "': expected 1 to %u members, found %zu", r->comm_id, g->nranks,
		                 r->nmembers);
	for (size_t i = 0; i < r->nmembers; i++) {
		if (r->members[i] >= g->nranks)
			return t2g_errat(R, e, "'# comm %" PRIu64 "': member %u is not a world rank (%u ranks)", r->comm_id,
			                 r->members[i], g->nranks);
		if (r->members[i] == R->rank)
			found_me = 1;
		h = ir_hmix64(h ^ r->members[i]) + i;
	}
	if (!found_me)
		return t2g_errat(R, e, "'# comm %" PRIu64 "': this rank (%u) is not a member", r->comm_id, R->rank);
	if (r->comm_id <= 1)
		return 0; /* world and self are implicit */
	h |= 1;
	v = ir_hmap_put(&R->occ, h, 0, NULL);
	if (!v)
		return ir_errf(e, "out of memory");
	occ = (*v)++;
	v = ir_hmap_get(&R->cmap, r->comm_id + 1, 0);
	if (v) {
		c = &R->comms[*v];
		free(c->members);
		t2g_topo_free(c->tp);
	} else {
		if (IR_GROW(R->comms, R->ncomms + 1, R->capcomms))
			return ir_errf(e, "out of memory");
		c = &R->comms[R->ncomms];
		v = ir_hmap_put(&R->cmap, r->comm_id + 1, 0, NULL);
		if (!v)
			return ir_errf(e, "out of memory");
		*v = (uint32_t)R->ncomms;
		R->ncomms++;
	}
	memset(c, 0, sizeof *c);
	c->id = r->comm_id;
	c->n = (uint32_t)r->nmembers;
	c->members = malloc(r->nmembers * sizeof *c->members);
	if (!c->members)
		return ir_errf(e, "out of memory");
	memcpy(c->members, r->members, r->nmembers * sizeof *c->members);
	c->key = ir_hmix64(h + occ * 0x100000001B3ULL) | 2; /* never 0 (world) */
	if (R->ptopo && R->ptopo->id == r->comm_id) {
		topo *t = R->ptopo;
		R->ptopo = NULL;
		if (t->rel)
			for (uint32_t i = 0; i < t->nin + t->nout; i++) {
				if (t->nbr[i] < 0)
					continue;
				if ((uint32_t)t->nbr[i] >= c->n) {
					int32_t bad = t->nbr[i];
					t2g_topo_free(t);
					return t2g_errat(R, e, "'# comm %" PRIu64 "': %u members, but the topology names rank %d",
					                 r->comm_id, c->n, bad);
				}
				t->nbr[i] = (int32_t)c->members[t->nbr[i]];
			}
		t->rel = 0;
		c->tp = t;
	}
	return 0;
}

/* Record this rank's collective sequence on communicator c; compare with the first member. */
int t2g_check_cseq(gstate *g, rstate *R, const comm *c, ir_err *e)
{
	uint64_t k = c->key + 1;
	uint32_t *v = ir_hmap_get(&g->cseq, k, 0);
	if (c == &R->self)
		return 0;
	if (!v) {
		if (IR_GROW(g->cs, g->ncs + 1, g->capcs))
			return ir_errf(e, "out of memory");
		g->cs[g->ncs].count = c->seq;
		g->cs[g->ncs].hash = c->chash;
		g->cs[g->ncs].rank = R->rank;
		v = ir_hmap_put(&g->cseq, k, 0, NULL);
		if (!v)
			return ir_errf(e, "out of memory");
		*v = (uint32_t)g->ncs;
		g->ncs++;
		return 0;
	}
	{
		const struct cseq *ref = &g->cs[*v];
		char name[40];
		if (c == &R->world)
			snprintf(name, sizeof name, "MPI_COMM_WORLD");
		else
			snprintf(name, sizeof name, "communicator %" PRIu64, c->id);
		if (ref->count != c->seq)
			return ir_errf(e, "%s: rank %u calls %" PRIu64 " collectives on %s, rank %u calls %u", R->fname,
			               ref->rank, ref->count, name, R->rank, c->seq);
		if (ref->hash != c->chash)
			return ir_errf(e, "%s: the sequence of collectives on %s differs between rank %u and rank %u "
			               "(kinds or roots)", R->fname, name, ref->rank, R->rank);
	}
	return 0;
}
