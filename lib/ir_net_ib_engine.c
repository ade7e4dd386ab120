/*
 * ir_net_ib_engine.c: the InfiniBand model as the engine's network
 * (ir_net_ops, ir_net.h): messages enter the fabric after the sender's
 * overhead, arrivals are handed to the engine in send order per pair of
 * ranks, and rendezvous messages cross the fabric as RTS, CTS and data with
 * the engine reporting the match. See ir_net_ib_internal.h for the parts.
 */
#include "ir_net_ib_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_io.h"
#include "ir_num.h"

/* ---- the engine's network ---- */

/* The entry of pair (src, dst), created if `create`; NULL if absent or out of memory. */
static struct pairo *po_get(ir_ib *ib, uint32_t src, uint32_t dst, int create)
{
	uint64_t key = ((uint64_t)src << 32 | dst) + 1;
	struct pairo *p;
	int isnew;
	if (!create)
		return ir_hmap_get(&ib->po, key, 0);
	p = ir_hmap_put(&ib->po, key, 0, &isnew);
	if (p && isnew) {
		p->key = key;
		p->held = NIL;
		if (ib->po.n > ib->st.pairs_max)
			ib->st.pairs_max = ib->po.n;
	}
	return p;
}

static void po_del(ir_ib *ib, struct pairo *p) { ir_hmap_del(&ib->po, p); }

static int en_match_deliver(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e);

static int po_drained(const struct pairo *p) { return p->out == p->in && p->held == NIL; }

/* Remember a drained pair whose last delivery lies ahead; 0 or -1 (out of memory). */
static int po_retire_later(ir_ib *ib, const struct pairo *p)
{
	if (ib->nretire == ib->capretire) {
		uint32_t n = ib->capretire ? ib->capretire * 2 : 1024, k;
		uint64_t *r = malloc((size_t)n * sizeof *r);
		if (!r)
			return -1;
		for (k = 0; k < ib->nretire; k++)
			r[k] = ib->retire[(ib->retire_head + k) % ib->capretire];
	free(ib->retire);
		ib->retire = r;
		ib->capretire = n;
		ib->retire_head = 0;
	}
	ib->retire[(ib->retire_head + ib->nretire++) % ib->capretire] = p->key;
	return 0;
}

/* Look at up to `budget` keys of the retire ring: free the pairs that are still
 * drained and whose last delivery is no longer ahead; keep the others (a pair
 * in use again is dropped from the ring: it is put back when it drains again). */
static int po_retire_sweep(ir_ib *ib, uint32_t budget)
{
	uint64_t now = ir_engine_now(ib->en);
	while (budget-- && ib->nretire) {
		uint64_t key = ib->retire[ib->retire_head];
		struct pairo *p;
		ib->retire_head = (ib->retire_head + 1) % ib->capretire;
		ib->nretire--;
		key--;
		p = po_get(ib, (uint32_t)(key >> 32), (uint32_t)key, 0);
		if (!p || !po_drained(p))
			continue;
		if (p->last <= now)
			po_del(ib, p);
		else if (po_retire_later(ib, p))
			return -1;
	}
	return 0;
}

/* Hand message `handle` (its turn in its pair) to the engine for matching at t,
 * then any held successors. */
static int po_release(ir_ib *ib, struct pairo *p, uint32_t handle, uint64_t t, ir_err *e)
{
	for (;;) {
		uint32_t *pp, h;
		if (t < p->last)
			t = p->last; /* never before an earlier message of the pair */
		p->last = t;
		p->out++;
		if (ir_engine_deliver(ib->en, handle, t, e))
			return -1;
		for (pp = &p->held; (h = *pp) != NIL; pp = &ib->ho[h].next_held)
			if (ib->ho[h].seq == p->out)
				break;
		if (h == NIL)
			break;
		*pp = ib->ho[h].next_held;
		handle = h;
		if (ib->ho[h].t > t)
			t = ib->ho[h].t;
	}
	if (po_drained(p)) {
		if (p->last <= ir_engine_now(ib->en))
			po_del(ib, p);
		else if (po_retire_later(ib, p))
			return ir_errf(e, "out of memory");
	}
	return 0;
}

static int en_match_deliver(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e)
{
	struct hord *o = &ib->ho[handle];
	struct pairo *p = po_get(ib, o->src, o->dst, 0);
	if (!p)
		return ir_errf(e, "fabric: message handle %u delivered with no pair in flight", handle);
	if (o->seq != p->out) {
		/* an earlier message of the pair is still on its way */
		o->t = t;
		o->next_held = p->held;
		p->held = handle;
		return 0;
	}
	return po_release(ib, p, handle, t, e);
}

static int en_deliver(void *ctx, uint32_t handle, uint64_t t, ir_err *e)
{
	ir_ib *ib = ctx;
	if (handle < ib->nhmode && ib->hmode[handle] == HM_FABRIC) {
		/* the data of a matched rendezvous message has arrived: the receive completes;
		 * the send when the acknowledgement of its last packet is back at the sender,
		 * one unloaded path later (docs/ib-model.md section 2, "Rendezvous") */
		const struct hord *o = &ib->ho[handle];
		uint64_t ack = ib_path_latency(ib, ib->rank_host[o->dst], ib->rank_host[o->src]);
		ib->hmode[handle] = HM_NONE;
		if (t > TMAX - ack)
			return ir_errf(e, "time overflow in the fabric");
		return ir_engine_complete_at(ib->en, handle, t, t + ack, e);
	}
	return en_match_deliver(ib, handle, t, e);
}

/* The request-to-send has been drained at the receiver: the engine matches it. */
static int en_rts(void *ctx, uint32_t handle, uint64_t t, ir_err *e)
{
	return en_match_deliver(ctx, handle, t, e);
}

static int en_sync(ir_ib *ib, ir_err *e)
{
	uint64_t nx;
	if (ib->keyed)
		return 0; /* every event is a callback of its own */
	nx = ir_ib_next(ib);
	if (nx == TMAX || nx >= ib->en_wake)
		return 0;
	ib->en_wake = nx;
	return ir_engine_call_at(ib->en, nx, 0, e);
}

static int en_init(void **state, ir_engine *en, uint32_t nranks, const ir_loggops *p, const void *arg, ir_err *e)
{
	const ir_ib_cfg *c = arg;
	ir_ib_client cl = { .ctx = NULL, .deliver = en_deliver, .rts = en_rts };
	ir_ib *ib = ir_ib_new(c, nranks, &cl, e);
	if (!ib)
		return -1;
	ib->cl.ctx = ib;
	ib->en = en;
	ib->en_wake = TMAX;
	/* an engine that orders ties by key runs each fabric event as a callback of the node
	 * it acts on (docs/ib-model.md section 12) */
	ib->keyed = ir_engine_keyed(en);
	ib->freekc = NIL;
	ib->o = p->o;
	ib->o_rndv = p->o_rndv;
	ib->send_o = p->send_o;
	if (c && c->part) {
		/* a partitioned run (docs/ib-model.md section 13, ir_net_ib_part.c) */
		ib->part = c->part;
		if (ibp_init(ib, e)) {
			ir_ib_free(ib);
			return -1;
		}
	}
	if (c && c->keep)
		*c->keep = ib;
	*state = ib;
	return 0;
}

/* A partitioned run's message to a rank another process simulates: the engine hands it over
 * (ir_engine_export), the pair's order is counted here and goes with it, and the
 * destination's engine adopts it when its first packet gets there (ir_net_ib_part.c). */
static int en_inject_remote(ir_ib *ib, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	ir_engine_rmsg rm;
	uint32_t *seq, mi, pseq;
	int isnew = 0;
	if (ir_engine_export(ib->en, msg, &rm, e))
		return -1;
	seq = ir_hmap_put(&ib->pin, ((uint64_t)m->src << 32 | m->dst) + 1, 0, &isnew);
	if (!seq)
		return ir_errf(e, "out of memory");
	pseq = (*seq)++;
	if (ib_inject(ib, msg, m->src, m->dst, m->size, m->rndv, t, &mi, e))
		return -1;
	if (mi == NIL)
		return ir_errf(e, "internal error: a message to another process's rank on its sender's host");
	ib->xs[mi].dhandle = NIL;
	ib->xs[mi].rm = rm;
	ib->xs[mi].pseq = pseq;
	return 0;
}

int ib_en_adopt(ir_ib *ib, const ir_engine_rmsg *rm, uint32_t pseq, int rts, uint32_t *h, ir_err *e)
{
	struct pairo *p;
	uint32_t msg;
	if (ir_engine_adopt(ib->en, rm, &msg, e))
		return -1;
	if (msg >= ib->nhmode) {
		size_t old = ib->nhmode;
		if (IR_GROW(ib->hmode, (size_t)msg + 1, ib->nhmode))
			return ir_errf(e, "out of memory");
		memset(ib->hmode + old, 0, ib->nhmode - old);
	}
	ib->hmode[msg] = rts ? HM_FABRIC : HM_NONE;
	if (msg >= ib->nho && IR_GROW(ib->ho, (size_t)msg + 1, ib->nho))
		return ir_errf(e, "out of memory");
	/* the pair's entry here counts deliveries only: never drained, so kept to the end */
	p = po_get(ib, rm->src, rm->dst, 1);
	if (!p)
		return ir_errf(e, "out of memory");
	p->in = NIL;
	ib->ho[msg].src = rm->src;
	ib->ho[msg].dst = rm->dst;
	ib->ho[msg].seq = pseq;
	ib->ho[msg].next_held = NIL;
	*h = msg;
	return 0;
}

static int en_inject(void *state, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	ir_ib *ib = state;
	/* the message leaves the host when the sender's overhead is over (ir_model.h) */
	uint64_t o = ib->send_o.n ? ir_pw_eval(&ib->send_o, m->size) : m->rndv ? ib->o_rndv : ib->o;
	if (t > TMAX - o)
		return ir_errf(e, "time overflow: message %llu injected after 2^64 ps", (unsigned long long)m->id);
	if (IB_RARE(ib->part) && ib->part->rank_owner[m->dst] != ib->part->me)
		return en_inject_remote(ib, msg, m, t + o, e);
	if (m->rndv) {
		if (msg >= ib->nhmode) {
			size_t old = ib->nhmode;
			if (IR_GROW(ib->hmode, (size_t)msg + 1, ib->nhmode))
				return ir_errf(e, "out of memory");
			memset(ib->hmode + old, 0, ib->nhmode - old);
		}
		ib->hmode[msg] = ib->cfg.rndv == IR_IB_RNDV_FABRIC && ib->rank_host[m->src] != ib->rank_host[m->dst]
		                 ? HM_FABRIC : HM_WHOLE;
	}
	if (msg >= ib->nho && IR_GROW(ib->ho, (size_t)msg + 1, ib->nho))
		return ir_errf(e, "out of memory");
	{
		struct pairo *p;
		if (po_retire_sweep(ib, 4))
			return ir_errf(e, "out of memory");
		p = po_get(ib, m->src, m->dst, 1);
		if (!p)
			return ir_errf(e, "out of memory");
		ib->ho[msg].src = m->src;
		ib->ho[msg].dst = m->dst;
		ib->ho[msg].seq = p->in++;
		ib->ho[msg].next_held = NIL;
	}
	if (ir_ib_inject(ib, msg, m->src, m->dst, m->size, m->rndv, t + o, e))
		return -1;
	return en_sync(ib, e);
}

/* The engine matched rendezvous message `msg` with its receive at t. */
static int en_matched(void *state, uint32_t msg, uint64_t t, ir_err *e)
{
	ir_ib *ib = state;
	if (msg >= ib->nhmode || ib->hmode[msg] == HM_NONE)
		return ir_errf(e, "fabric: match of message handle %u, which is not a rendezvous message in flight", msg);
	if (ib->hmode[msg] == HM_WHOLE) {
		ib->hmode[msg] = HM_NONE;
		return ir_engine_complete(ib->en, msg, t, e);
	}
	/* the clear-to-send leaves now; en_deliver completes the message when the data is in */
	if (ir_ib_rndv_matched(ib, msg, t, e))
		return -1;
	return en_sync(ib, e);
}

static int en_wakeup(void *state, uint64_t t, uint64_t cookie, ir_err *e)
{
	ir_ib *ib = state;
	if (ib->keyed)
		return ib_kevent(ib, t, cookie, e);
	if (t == ib->en_wake)
		ib->en_wake = TMAX;
	if (ir_ib_advance(ib, t, e))
		return -1;
	return en_sync(ib, e);
}

static void en_free(void *state)
{
	ir_ib *ib = state;
	if (ib && !ib->keep)
		ir_ib_free(ib);
}

static uint32_t en_host_of(const void *state, uint32_t rank)
{
	const ir_ib *ib = state;
	return ib->rank_host[rank];
}

/* Keyed: every node of the fabric (hosts, then switches) is a maker (ir_net.h, contract 9). */
static uint32_t en_nmakers(const void *state)
{
	const ir_ib *ib = state;
	return ib->keyed ? ib->t->nnodes : 0;
}

static uint32_t en_maker(const void *state, uint64_t cookie)
{
	return ib_knode(state, cookie);
}

static void en_describe(const void *state, uint64_t cookie, char *buf, size_t n)
{
	const ir_ib *ib = state;
	if (ib->keyed)
		ib_kdescribe(ib, cookie, buf, n);
	else
		snprintf(buf, n, "the fabric's events up to now");
}

const ir_net_ops ir_net_ib = {
	.name = "ib",
	.flags = IR_NET_MODELS_BYTES | IR_NET_RNDV_HANDSHAKE,
	.init = en_init,
	.inject = en_inject,
	.wakeup = en_wakeup,
	.matched = en_matched,
	.free = en_free,
	.host_of = en_host_of,
	.nmakers = en_nmakers,
	.maker = en_maker,
	.describe = en_describe,
};

