/*
 * ir_net_ib_part.c: the InfiniBand fabric split over the processes of a
 * partitioned run (ibsim-mpi; docs/ib-model.md section 13, the partition
 * contract in ir_net_ib.h).
 *
 * Every process builds the whole fabric and runs the events of the nodes it
 * owns. Under the key order (docs/ib-model.md section 12) the only events one
 * node makes for another are a packet's head reaching the next switch (a link
 * delay after it leaves), the credits of a buffer returning upstream (the
 * packet's serialization and a link delay after it leaves the buffer) and a
 * congestion notification reaching the source of its flow (a path's latency);
 * a host and the switch it is cabled to share state and stay in one process.
 * So what crosses between processes is one of those three items, with the key
 * its maker gave it: the receiving process queues it as the item it is in a
 * whole run, and pops its items in the whole run's order (docs/design.md
 * section 9 has the argument).
 *
 * A packet carries what the processes it reaches need of its message (struct
 * ibx in ir_net_ib_internal.h): the message record's fields, its id, its
 * place in its pair's order and, until the destination's engine has a handle
 * for it, the engine's message (ir_engine_export at the sender, adopted at
 * the destination when its first packet gets there).
 */
#include "ir_net_ib_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"

enum { X_ARR = 0, X_CRET = 1, X_CNP = 2 };

/* One item for another process. Plain data; the same layout in every process of a run. */
typedef struct ib_xitem {
	uint64_t t;          /* when it happens there */
	uint64_t tc, n;      /* its key (ir_engine_key) */
	uint32_t who;
	uint64_t dseq;       /* and its number for people */
	uint32_t type;       /* X_* */
	pkt p;               /* X_ARR: the packet; p.next is the input buffer it enters */
	ibmsg m;             /* X_ARR: its message; X_CNP: the flow (m.src, m.dst) */
	struct ibx x;        /* X_ARR */
	kcret c;             /* X_CRET */
} ib_xitem;

size_t ir_ib_xitem_size(void) { return sizeof(ib_xitem); }

uint64_t ir_ib_live(const ir_ib *ib) { return ib->live; }

size_t ir_ib_ncounters(const ir_ib *ib) { return (size_t)ib->t->nports_total * 4; }

void ir_ib_counters(ir_ib *ib, uint64_t *v, int set)
{
	for (uint32_t gp = 0; gp < ib->t->nports_total; gp++, v += 4) {
		outp *o = &ib->out[gp];
		if (set) {
			o->bytes = v[0];
			o->pkts = v[1];
			o->busy_ps = v[2];
			o->stall_ps = v[3];
		} else {
			v[0] = o->bytes;
			v[1] = o->pkts;
			v[2] = o->busy_ps;
			v[3] = o->stall_ps;
		}
	}
}

uint32_t ir_ib_rank_unit(const ir_ib *ib, uint32_t rank)
{
	uint32_t h = ib->rank_host[rank], peer = ib->t->port[ib->h[h].gp].peer;
	return peer != IR_TOPO_NONE && peer >= ib->t->nhosts ? peer : h;
}

int ir_ib_part_plan(const ir_ib *ib, const uint32_t *rank_owner, uint32_t nprocs, uint32_t *own, uint64_t *cut_links,
                    uint64_t *lookahead, ir_err *e)
{
	const ir_topo *t = ib->t;
	uint32_t *cnt;
	int changed;
	*cut_links = 0;
	*lookahead = UINT64_MAX;
	if (ib->cfg.rndv == IR_IB_RNDV_LOGGOPSIM)
		return ir_errf(e, "rndv = loggopsim releases a rendezvous sender at its receiver's match, with no delay "
		                  "between them: it cannot be split over processes (rndv = fabric can; or run ibsim)");
	if (ib->lft.path == IR_PATH_UGAL || ib->lft.path == IR_PATH_UGAL_G)
		return ir_errf(e, "routing ugal and ugal-g read the load of switches along the path when a message "
		                  "starts: they cannot be split over processes (valiant can; or run ibsim)");
	if (ib->npath > 1 && ib->cfg.path == IR_IB_PATH_RANDOM)
		return ir_errf(e, "path = random draws from one generator in the order of events everywhere: it cannot "
		                  "be split over processes (static, rr, adaptive and adaptive-credits can; or run ibsim)");
	for (uint32_t i = 0; i < t->nnodes; i++)
		own[i] = NIL;
	for (uint32_t r = 0; r < ib->nranks; r++) {
		uint32_t h = ib->rank_host[r];
		if (rank_owner[r] >= nprocs)
			return ir_errf(e, "internal error: rank %u in process %u of %u", r, rank_owner[r], nprocs);
		if (own[h] == NIL)
			own[h] = rank_owner[r];
		else if (own[h] != rank_owner[r])
			return ir_errf(e, "internal error: the ranks of host '%s' are in processes %u and %u",
			               ir_topo_name(t, h), own[h], rank_owner[r]);
	}
	/* the switches cabled to hosts with ranks; then those hosts' idle neighbours */
	for (uint32_t h = 0; h < t->nhosts; h++) {
		if (own[h] == NIL)
			continue;
		for (uint32_t k = 0; k < t->node[h].nports; k++) {
			uint32_t s = t->port[t->node[h].port0 + k].peer;
			if (s == IR_TOPO_NONE || s < t->nhosts)
				continue;
			if (own[s] == NIL)
				own[s] = own[h];
			else if (own[s] != own[h])
				return ir_errf(e, "switch '%s' is cabled to hosts of processes %u and %u: a host and its switch "
				               "must be in one process (fewer processes, or another placement)",
				               ir_topo_name(t, s), own[s], own[h]);
		}
	}
	if (!(cnt = calloc(nprocs, sizeof *cnt)))
		return ir_errf(e, "out of memory for the partition of the fabric");
	/* every other switch: the process most of its assigned neighbours have, lowest on ties,
	 * in index order, pass after pass */
	do {
		changed = 0;
		for (uint32_t n = t->nhosts; n < t->nnodes; n++) {
			uint32_t best = NIL;
			if (own[n] != NIL)
				continue;
			memset(cnt, 0, nprocs * sizeof *cnt);
			for (uint32_t k = 0; k < t->node[n].nports; k++) {
				uint32_t p = t->port[t->node[n].port0 + k].peer;
				if (p != IR_TOPO_NONE && own[p] != NIL)
					cnt[own[p]]++;
			}
			for (uint32_t q = 0; q < nprocs; q++)
				if (cnt[q] && (best == NIL || cnt[q] > cnt[best]))
					best = q;
			if (best != NIL) {
				own[n] = best;
				changed = 1;
			}
		}
	} while (changed);
	free(cnt);
	for (uint32_t n = 0; n < t->nnodes; n++) {
		if (own[n] != NIL)
			continue;
		if (n < t->nhosts) { /* a host without ranks goes with its switch */
			uint32_t s = t->port[ib->h[n].gp].peer;
			own[n] = s != IR_TOPO_NONE && own[s] != NIL ? own[s] : 0;
		} else {
			own[n] = 0; /* nothing reaches it */
		}
	}
	for (uint32_t n = 0; n < t->nnodes; n++)
		for (uint32_t k = 0; k < t->node[n].nports; k++) {
			const ir_topo_port *x = &t->port[t->node[n].port0 + k];
			if (x->peer == IR_TOPO_NONE || own[x->peer] == own[n])
				continue;
			if (n < t->nhosts || x->peer < t->nhosts)
				return ir_errf(e, "host '%s' is cabled to a switch of another process: a host and its switch "
				               "must be in one process", ir_topo_name(t, n < t->nhosts ? n : x->peer));
			if (x->delay == 0)
				return ir_errf(e, "the link from '%s' to '%s' joins two processes and has no delay: no lookahead "
				               "for the windows (set delay, or run ibsim)", ir_topo_name(t, n),
				               ir_topo_name(t, x->peer));
			(*cut_links)++;
			if (x->delay < *lookahead)
				*lookahead = x->delay;
		}
	return 0;
}

int ibp_init(ir_ib *ib, ir_err *e)
{
	const ir_ib_part *pp = ib->part;
	uint64_t cut, la;
	if (!ib->keyed)
		return ir_errf(e, "internal error: a partitioned fabric needs an engine that orders ties by key");
	if (pp->me >= pp->nprocs || !pp->xsend || !pp->rank_owner)
		return ir_errf(e, "internal error: process %u of %u", pp->me, pp->nprocs);
	if (!(ib->nowner = malloc((size_t)ib->t->nnodes * sizeof *ib->nowner)))
		return ir_errf(e, "out of memory for the partition of the fabric");
	if (ir_ib_part_plan(ib, pp->rank_owner, pp->nprocs, ib->nowner, &cut, &la, e))
		return -1;
	ir_hmap_init(&ib->xmap, sizeof(uint32_t), 1024, 0);
	ir_hmap_init(&ib->pin, sizeof(uint32_t), 1024, 0);
	ib->xnext = (uint64_t)pp->me << 40;
	return 0;
}

void ibp_release(ir_ib *ib)
{
	free(ib->nowner);
	free(ib->xs);
	ir_hmap_release(&ib->xmap);
	ir_hmap_release(&ib->pin);
}

static int xs_fit(ir_ib *ib, uint32_t mi, ir_err *e)
{
	if (mi >= ib->capxs && IR_GROW(ib->xs, (size_t)mi + 1, ib->capxs))
		return ir_errf(e, "out of memory for messages in the fabric");
	return 0;
}

static int xs_map(ir_ib *ib, uint32_t mi, ir_err *e)
{
	int isnew = 0;
	uint32_t *v = ir_hmap_put(&ib->xmap, ib->xs[mi].id, 0, &isnew);
	if (!v)
		return ir_errf(e, "out of memory for messages in the fabric");
	*v = mi;
	ib->xs[mi].mapped = 1;
	return 0;
}

int ibp_made(ir_ib *ib, uint32_t mi, ir_err *e)
{
	struct ibx *x;
	if (xs_fit(ib, mi, e))
		return -1;
	x = &ib->xs[mi];
	memset(x, 0, sizeof *x);
	x->id = ib->xnext++;
	x->org = 1;
	x->dp = !ibp_remote(ib, ib->m[mi].dst);
	x->dhandle = ib->m[mi].handle; /* the handle in this engine; a sender of a message to another
	                                * process's rank sets NIL and the engine's message */
	return xs_map(ib, mi, e);
}

void ibp_freed(ir_ib *ib, uint32_t mi)
{
	struct ibx *x;
	if (mi >= ib->capxs)
		return; /* never mapped: a congestion notification made here */
	x = &ib->xs[mi];
	if (x->mapped) {
		uint32_t *v = ir_hmap_get(&ib->xmap, x->id, 0);
		if (v && *v == mi)
			ir_hmap_del(&ib->xmap, v);
		x->mapped = 0;
	}
}

int ibp_gone(ir_ib *ib, uint32_t mi, ir_err *e)
{
	struct ibx *x = &ib->xs[mi];
	const ibmsg *m = &ib->m[mi];
	(void)e;
	if (x->here)
		x->here--;
	if (!x->here && !x->dp && (!x->org || m->sent == m->npk))
		ib_msg_free(ib, mi);
	return 0;
}

static int xsend(ir_ib *ib, uint32_t node, ib_xitem *it, ir_err *e)
{
	ir_engine_key k;
	if (ir_engine_new_key(ib->en, &k, e))
		return -1;
	it->tc = k.tc;
	it->n = k.n;
	it->who = k.who;
	it->dseq = k.dseq;
	return ib->part->xsend(ib->part->ctx, ib->nowner[node], it, sizeof *it, e);
}

int ibp_xarr(ir_ib *ib, uint32_t pi, uint32_t bi, ir_err *e)
{
	ib_xitem it;
	uint32_t mi = ib->pk[pi].msg;
	memset(&it, 0, sizeof it);
	it.type = X_ARR;
	it.t = ib->pk[pi].t_arr;
	it.p = ib->pk[pi];
	it.p.next = bi;
	it.m = ib->m[mi];
	it.x = ib->xs[mi];
	if (xsend(ib, ib->out[bi / ib->nvl].node, &it, e))
		return -1;
	ib_pkt_free(ib, pi);
	ib->live--;
	return ibp_gone(ib, mi, e);
}

int ibp_xcret(ir_ib *ib, uint32_t gp, unsigned vl, uint64_t t, uint32_t blocks, ir_err *e)
{
	ib_xitem it;
	memset(&it, 0, sizeof it);
	it.type = X_CRET;
	it.t = t;
	it.c.gp = gp;
	it.c.b = blocks;
	it.c.vl = (uint8_t)vl;
	return xsend(ib, ib->out[gp].node, &it, e);
}

int ibp_xcnp(ir_ib *ib, uint32_t src, uint32_t dst, uint64_t t, ir_err *e)
{
	ib_xitem it;
	memset(&it, 0, sizeof it);
	it.type = X_CNP;
	it.t = t;
	it.m.kind = K_CNP;
	it.m.src = src;
	it.m.dst = dst;
	it.m.data = NIL;
	return xsend(ib, src, &it, e);
}

/* Packet it->p of a message with a record elsewhere arrives here: its record here, made
 * (and, at the destination, its engine message adopted) when it is the first. */
static int x_arrive(ir_ib *ib, const ib_xitem *it, ir_err *e)
{
	uint32_t *v = ir_hmap_get(&ib->xmap, it->x.id, 0), mi, pi;
	ibmsg *m;
	if (v) {
		mi = *v;
	} else {
		struct ibx *x;
		mi = ib_msg_new(ib);
		if (mi == NIL || xs_fit(ib, mi, e))
			return ir_errf(e, "out of memory for messages in the fabric");
		m = &ib->m[mi];
		*m = it->m;
		m->next = m->prev = NIL;
		m->sent = m->npk;
		m->drained = 0;
		m->matched_wait = 0;
		x = &ib->xs[mi];
		*x = it->x;
		x->here = 0;
		x->org = 0;
		x->mapped = 0;
		x->dp = !ibp_remote(ib, m->dst);
		if (x->dp && x->dhandle == NIL) {
			/* the destination: the engine makes its record of the message */
			if (ib_en_adopt(ib, &x->rm, x->pseq, m->kind == K_RTS, &x->dhandle, e))
				return -1;
		}
		if (x->dhandle != NIL)
			m->handle = x->dhandle;
		if (xs_map(ib, mi, e))
			return -1;
	}
	ib->xs[mi].here++;
	pi = ib_pkt_new(ib);
	if (pi == NIL)
		return ir_errf(e, "out of memory for packets in flight");
	ib->pk[pi] = it->p;
	ib->pk[pi].msg = mi;
	if (++ib->live > ib->st.max_live)
		ib->st.max_live = ib->live;
	ib->kpending++;
	return ir_engine_call_at_key(ib->en, it->t, (uint64_t)EV_ARR << 32 | pi,
	                             &(ir_engine_key){ .tc = it->tc, .n = it->n, .who = it->who, .dseq = it->dseq }, e);
}

int ir_ib_xput(ir_ib *ib, const void *items, size_t n, ir_err *e)
{
	const unsigned char *b = items;
	if (!ib->part)
		return ir_errf(e, "internal error: fabric items for a fabric that is not partitioned");
	for (size_t i = 0; i < n; i++) {
		ib_xitem it;
		ir_engine_key k;
		uint32_t idx;
		memcpy(&it, b + i * sizeof it, sizeof it);
		if (it.t < ir_engine_now(ib->en))
			return ir_errf(e, "internal error: a fabric item from another process at %llu ps, before %llu ps "
			               "(the window exceeded the lookahead)", (unsigned long long)it.t,
			               (unsigned long long)ir_engine_now(ib->en));
		k.tc = it.tc;
		k.n = it.n;
		k.who = it.who;
		k.dseq = it.dseq;
		switch (it.type) {
		case X_ARR:
			if (it.p.next >= ib->t->nports_total * ib->nvl || ibp_remote(ib, ib->out[it.p.next / ib->nvl].node))
				return ir_errf(e, "internal error: a packet for buffer %u, which this process does not simulate",
				               it.p.next);
			if (x_arrive(ib, &it, e))
				return -1;
			break;
		case X_CRET:
			if (it.c.gp >= ib->t->nports_total || ibp_remote(ib, ib->out[it.c.gp].node))
				return ir_errf(e, "internal error: credits for port %u, which this process does not simulate",
				               it.c.gp);
			if (ib_kcret_at(ib, it.t, it.c.gp, it.c.vl, it.c.b, &k, e))
				return -1;
			break;
		case X_CNP:
			if (it.m.src >= ib->t->nhosts || ibp_remote(ib, it.m.src))
				return ir_errf(e, "internal error: a congestion notification for host %u, which this process "
				               "does not simulate", it.m.src);
			idx = ib_msg_new(ib);
			if (idx == NIL || xs_fit(ib, idx, e))
				return ir_errf(e, "out of memory for congestion notifications");
			ib->m[idx] = it.m;
			memset(&ib->xs[idx], 0, sizeof ib->xs[idx]);
			ib->kpending++;
			if (ir_engine_call_at_key(ib->en, it.t, (uint64_t)EV_CTRL << 32 | idx, &k, e))
				return -1;
			break;
		default:
			return ir_errf(e, "internal error: fabric item of type %u", it.type);
		}
	}
	return 0;
}
