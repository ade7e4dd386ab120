/*
 * ir_net_ib_fabric.c: the InfiniBand fabric model (see ir_net_ib.h,
 * docs/ib-model.md, and ir_net_ib_internal.h for the other parts).
 *
 * Discrete events at packet granularity, with no free-running timer: the
 * only events are "an input buffer's head packet may now be forwarded"
 * (ELIG), "an output port should arbitrate again" (OUT, queued only while
 * something waits for it), "a message enters its host's send queue" (MSG)
 * and "a control message has been drained" (CTRL). Everything else is
 * computed when it is caused:
 *
 *  - Credits are returned upstream when a packet has left a buffer. Rather
 *    than an event per return, each (output port, VL) keeps a FIFO of
 *    (time, blocks) returns, whose times are non-decreasing because a
 *    buffer empties in order; an output absorbs the returns that are due
 *    when it arbitrates, and queues a wake-up for the first pending return
 *    only when it is actually stalled on credits.
 *  - The receiving host drains packets in arrival order at the bus rate;
 *    since the last link delivers packets in order, the drain time of a
 *    packet is known when the last switch forwards it, and the message's
 *    arrival is handed to the engine at once (for a future time).
 *
 * A packet is forwarded from a switch input (virtual cut-through) at
 *     max(head arrival + switch latency, tail arrival - serialization out,
 *         time the previous packet of the buffer has left it)
 * if the output link is free and the downstream buffer has free blocks
 * for the whole packet; outputs serve their requesting inputs round-robin,
 * VLs in weighted round-robin. Event order is (time, sequence number), so
 * runs are deterministic.
 *
 * A packet may leave a switch on another VL than it came in on, when the
 * routing has VL classes (datelines on a torus, a class per global hop on a
 * dragonfly: ir_lft_next_class): it waits in the buffer of its input VL and
 * needs credits of its output VL, so an output's request set for a VL has a
 * bit per (input port, input VL). Valiant and UGAL paths are two
 * destination-routed legs: the message names its intermediate switch's LID
 * and its packets follow the tables to that LID first (pkt.leg).
 *
 * The message's SL picks its VL through one SL-to-VL table; an output with
 * a high-priority arbitration table (vlarb_high) arbitrates in
 * out_try_prio, else in out_try's plain weighted round robin. Congestion
 * control (cc = on, the specification's annex A10) counts each output VL's
 * queue in the switch's input buffers, marks packets (FECN) at outputs that
 * are roots of congestion, returns a notification to the source when a
 * marked packet is drained (a control event, not a packet: it loads no
 * link), and throttles the flow (source host, destination host) by the
 * inter-packet delay of its CCT index; the index timer is applied lazily,
 * so cc adds no events but the notifications. With cc off and no
 * high-priority table each costs one flag test where it would act.
 *
 * Multipath (lmc > 0, docs/ib-model.md section 10): a packet carries the
 * offset of its destination LID (pkt.plane), chosen by path_choose() when
 * the host sends it (per packet) or its message's first packet (per
 * message), and switches forward by that plane of the tables. Packets of a
 * message may then arrive out of order; the message is delivered when the
 * count of its drained packets is complete. With lmc = 0 the plane is 0 and
 * the choice is one flag test per packet.
 */
#include "ir_net_ib_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_io.h"
#include "ir_num.h"

/* Keyed: the event is a callback of the engine, of the node it acts on (ib_knode). */
static int kpush(ir_ib *ib, uint64_t t, unsigned type, uint32_t idx, ir_err *e)
{
	ib->kpending++;
	return ir_engine_call_at(ib->en, t, (uint64_t)type << 32 | idx, e);
}

int ib_qpush(ir_ib *ib, uint64_t t, unsigned type, uint32_t idx, ir_err *e)
{
	if (ib->keyed)
		return kpush(ib, t, type, idx, e);
	if (t < ib->now)
		return ir_errf(e, "fabric event at %llu ps, before the current time %llu ps", (unsigned long long)t,
		               (unsigned long long)ib->now);
	if (ib->seq == UINT32_MAX) {
		uint32_t next = ir_heap_renumber(&ib->q, 0);
		if (!next && ib->q.n)
			return ir_errf(e, "out of memory for the fabric's event queue (%zu events)", ib->q.n);
		ib->seq = next;
	}
	if (ir_heap_push(&ib->q, t, ib->seq++, (type << EV_SHIFT) | idx))
		return ir_errf(e, "out of memory for the fabric's event queue (%zu events)", ib->q.n);
	if (t < ib->qpeek && ib->qpeek != TMAX)
		ib->qpeek = t;
	return 0;
}

/* The fabric's next event time (ib->q.n > 0) without taking it: the engine
 * asks when to call the fabric next and may still inject messages earlier
 * than that, so the queue's lowest bucket cannot be split yet; ir_heap_min
 * scans it, and the answer is cached until the next pop (a push can only
 * lower it). The pop that follows splits that bucket anyway, so peeking at
 * most doubles the cost of a split. */
static inline uint64_t qmin(ir_ib *ib)
{
	if (ib->q.head0 < ib->q.bn[0])
		return ib->q.last;
	if (ib->qpeek == TMAX)
		ib->qpeek = ir_heap_min(&ib->q);
	return ib->qpeek;
}

static int ensure_wake(ir_ib *ib, uint32_t gp, uint64_t t, ir_err *e)
{
	outp *o = &ib->out[gp];
	if (o->wake <= t)
		return 0;
	o->wake = t;
	return ib_qpush(ib, t, EV_OUT, gp, e);
}

static uint32_t pkt_new(ir_ib *ib)
{
	uint32_t i;
	if (ib->freepk != NIL) {
		i = ib->freepk;
		ib->freepk = ib->pk[i].next;
		return i;
	}
	if (ib->npk == ib->cappk && (ib->npk >= EV_MASK || IR_GROW(ib->pk, (size_t)ib->npk + 1, ib->cappk)))
		return NIL; /* an index must fit in an event's ref */
	return ib->npk++;
}

static void pkt_free(ir_ib *ib, uint32_t i)
{
	ib->pk[i].next = ib->freepk;
	ib->freepk = i;
}

static uint32_t msg_new(ir_ib *ib)
{
	uint32_t i;
	if (ib->freem != NIL) {
		i = ib->freem;
		ib->freem = ib->m[i].next;
		return i;
	}
	if (ib->nm == ib->capm && (ib->nm >= EV_MASK || IR_GROW(ib->m, (size_t)ib->nm + 1, ib->capm)))
		return NIL;
	return ib->nm++;
}

static void msg_free(ir_ib *ib, uint32_t i)
{
	if (IB_RARE(ib->part))
		ibp_freed(ib, i);
	ib->m[i].next = ib->freem;
	ib->freem = i;
}

/* ---- credits ---- */

static int cr_push(ir_ib *ib, uint32_t gp, unsigned vl, uint64_t t, uint32_t blocks, ir_err *e)
{
	cring *c = &ib->cr[gp * ib->nvl + vl];
	if (c->n == c->cap) {
		uint32_t nc = c->cap * 2, i;
		cret *nr = malloc((size_t)nc * sizeof *nr);
		if (!nr)
			return ir_errf(e, "out of memory for credit returns");
		for (i = 0; i < c->n; i++)
			nr[i] = c->r[(c->head + i) & (c->cap - 1)];
		if (c->r != c->in)
			free(c->r);
		c->r = nr;
		c->cap = nc;
		c->head = 0;
	}
	{
		uint32_t k = (c->head + c->n) & (c->cap - 1);
		c->r[k].t = t;
		c->r[k].b = blocks;
		if (!c->n++)
			c->t0 = t;
	}
	/* someone waiting at this output? make sure it looks again when the credits arrive */
	{
		outp *o = &ib->out[gp];
		if (o->stall_since != TMAX)
			return ensure_wake(ib, gp, t, e);
	}
	return 0;
}

/* Absorb the returns due by now; returns the time of the next pending one (TMAX: none). */
static inline uint64_t cr_absorb(ir_ib *ib, uint32_t gp, unsigned vl)
{
	cring *c = &ib->cr[gp * ib->nvl + vl];
	if (c->t0 > ib->now)
		return c->t0;
	do {
		c->cred += (int32_t)c->r[c->head].b;
		c->head = (c->head + 1) & (c->cap - 1);
		c->n--;
	} while (c->n && c->r[c->head].t <= ib->now);
	c->t0 = c->n ? c->r[c->head].t : TMAX;
	return c->t0;
}

/* Keyed: `blocks` of output gp's VL vl return at t, an event of gp's node (the output
 * upstream of the buffer they leave), which then takes them into its returns. */
static uint32_t kcret_new(ir_ib *ib, uint32_t gp, unsigned vl, uint32_t blocks)
{
	uint32_t i;
	if (ib->freekc != NIL) {
		i = ib->freekc;
		ib->freekc = ib->kc[i].gp;
	} else {
		if (ib->nkc == ib->capkc && (ib->nkc >= EV_MASK || IR_GROW(ib->kc, (size_t)ib->nkc + 1, ib->capkc)))
			return NIL;
		i = ib->nkc++;
	}
	ib->kc[i].gp = gp;
	ib->kc[i].b = blocks;
	ib->kc[i].vl = (uint8_t)vl;
	return i;
}

static int kcret_push(ir_ib *ib, uint32_t gp, unsigned vl, uint64_t t, uint32_t blocks, ir_err *e)
{
	uint32_t i;
	if (IB_RARE(ib->part) && ibp_remote(ib, ib->out[gp].node))
		return ibp_xcret(ib, gp, vl, t, blocks, e);
	if ((i = kcret_new(ib, gp, vl, blocks)) == NIL)
		return ir_errf(e, "out of memory for credit returns");
	return kpush(ib, t, EV_CRET, i, e);
}

int ib_kcret_at(ir_ib *ib, uint64_t t, uint32_t gp, unsigned vl, uint32_t blocks, const ir_engine_key *k, ir_err *e)
{
	uint32_t i = kcret_new(ib, gp, vl, blocks);
	if (i == NIL)
		return ir_errf(e, "out of memory for credit returns");
	ib->kpending++;
	return ir_engine_call_at_key(ib->en, t, (uint64_t)EV_CRET << 32 | i, k, e);
}

/* ---- congestion control (docs/ib-model.md section 8) ---- */

/* The unloaded latency of a 26-byte packet from host `from` to host `to`
 * along the routes: the time a congestion notification takes, and the
 * acknowledgement that completes a rendezvous send (ir_net_ib_engine.c). */
uint64_t ib_path_latency(const ir_ib *ib, uint32_t from, uint32_t to)
{
	const ir_topo *t = ib->t;
	uint32_t gp = ib->h[from].gp, lid = t->node[to].lid, n = t->port[gp].peer;
	uint64_t lat = t->port[gp].delay + ser(ib, gp, IR_IB_HEADER_BYTES);
	for (unsigned steps = 0; n != IR_TOPO_NONE && n >= t->nhosts && steps < 64; steps++) {
		unsigned op = ir_lft_get(&ib->lft, n - t->nhosts, lid);
		if (op == 0 || op == IR_LFT_NONE || op > t->node[n].nports)
			break;
		gp = t->node[n].port0 + op - 1;
		lat += ib->cfg.switch_latency + t->port[gp].delay;
		n = t->port[gp].peer;
	}
	return lat;
}

/* A packet with FECN from host src has been drained at host dst at t: the
 * destination returns a notification (BECN) that reaches src later. */
static int cc_cnp(ir_ib *ib, uint32_t src, uint32_t dst, uint64_t t, ir_err *e)
{
	uint32_t mi;
	ibmsg *m;
	if (IB_RARE(ib->part) && ibp_remote(ib, src))
		return ibp_xcnp(ib, src, dst, t + ib_path_latency(ib, dst, src), e);
	mi = msg_new(ib);
	if (mi == NIL)
		return ir_errf(e, "out of memory for congestion notifications");
	m = &ib->m[mi];
	memset(m, 0, sizeof *m);
	m->kind = K_CNP;
	m->src = src;
	m->dst = dst;
	m->data = NIL;
	return ib_qpush(ib, t + ib_path_latency(ib, dst, src), EV_CTRL, mi, e);
}

/* The notification of flow (src, dst) has reached src: its index rises. */
static int cc_becn(ir_ib *ib, uint32_t src, uint32_t dst, ir_err *e)
{
	int isnew = 0;
	struct ccflow *f = ir_hmap_put(&ib->ccf, src, dst, &isnew);
	uint32_t c;
	if (!f)
		return ir_errf(e, "out of memory for congestion control flows");
	c = cc_index_at(ib, f, ib->now) + ib->cfg.cc_increase;
	if (c > ib->cfg.cc_limit)
		c = ib->cfg.cc_limit;
	f->ccti = c;
	f->t_upd = ib->now;
	ib->st.becn++;
	if (c > ib->st.ccti_max)
		ib->st.ccti_max = c;
	return 0;
}

/* A switch output forwards packet p on output VL ob: it leaves the output's
 * queue, and is marked when that queue was above the threshold and the
 * output is a root of congestion (it did not wait for credits: an output
 * that waits is a victim of congestion further on, and does not mark, as
 * the specification's Victim_Mask off). Every cc_marking_rate-th such
 * packet is marked. */
static void cc_mark(ir_ib *ib, const outp *o, uint32_t ob, pkt *p)
{
	uint32_t q = ib->oq[ob];
	ib->oq[ob] = q - p->blocks;
	if (q <= ib->cc_thr || o->stall_since != TMAX)
		return;
	if (++ib->mk[ob] >= ib->cfg.cc_marking_rate) {
		ib->mk[ob] = 0;
		if (!p->fecn) {
			p->fecn = 1;
			ib->st.fecn++;
		}
	}
}

/* The next message of host h whose flow may send now (control packets are
 * not throttled); NIL with *tw the earliest time one may. */
static uint32_t cc_pick(ir_ib *ib, const host *h, uint64_t *tw)
{
	uint32_t mi = h->cur;
	uint64_t w = TMAX;
	do {
		const ibmsg *m = &ib->m[mi];
		const struct ccflow *f;
		if (m->kind != K_DATA || !(f = ir_hmap_get(&ib->ccf, m->src, m->dst)) || f->t_next <= ib->now)
			return mi;
		if (f->t_next < w)
			w = f->t_next;
		mi = m->next;
	} while (mi != h->cur);
	*tw = w;
	return NIL;
}

uint32_t ir_ib_cc_index(const ir_ib *ib, uint32_t src, uint32_t dst, uint64_t t)
{
	const struct ccflow *f;
	if (!ib->cc || src >= ib->nranks || dst >= ib->nranks)
		return 0;
	f = ir_hmap_get(&ib->ccf, ib->rank_host[src], ib->rank_host[dst]);
	return f && t >= f->t_upd ? cc_index_at(ib, f, t) : 0;
}

/* ---- moving packets ---- */

static int head_ready(ir_ib *ib, uint32_t bi, ir_err *e);
static int out_try(ir_ib *ib, uint32_t gp, ir_err *e);

static int deliver(ir_ib *ib, uint32_t mi, uint64_t t, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	if (m->kind != K_DATA) {
		ib->st.ctrl++;
		return ib_qpush(ib, t, EV_CTRL, mi, e);
	}
	ib->st.msgs++;
	{
		uint32_t h = m->handle;
		msg_free(ib, mi);
		return ib->cl.deliver(ib->cl.ctx, h, t, e);
	}
}

/* Packet pi enters input buffer bi of its next switch: it counts in the queue of its output
 * (cc) and joins the buffer's FIFO, whose head asks for its output when it may leave. */
static int buf_enter(ir_ib *ib, uint32_t pi, uint32_t bi, ir_err *e)
{
	pkt *p = &ib->pk[pi];
	inbuf *b = &ib->in[bi];
	if (IB_RARE(ib->cc))
		ib->oq[p->outp * ib->nvl + p->ovl] += p->blocks;
	p->next = NIL;
	if (b->head == NIL) {
		b->head = b->tail = pi;
		return head_ready(ib, bi, e);
	}
	ib->pk[b->tail].next = pi;
	b->tail = pi;
	return 0;
}

/* Packet pi leaves output gp at ib->now (its serialization s). */
static int send_on(ir_ib *ib, uint32_t pi, uint32_t gp, uint64_t s, ir_err *e)
{
	outp *o = &ib->out[gp];
	const ir_topo_port *lp = &ib->t->port[gp];
	pkt *p = &ib->pk[pi];
	uint32_t peer = lp->peer, pgp = o->peer_gp;
	o->busy = ib->now + s;
	o->bytes += p->wire;
	o->pkts++;
	o->busy_ps += s;
	if (o->stall_since != TMAX) {
		o->stall_ps += ib->now - o->stall_since;
		o->stall_since = TMAX;
	}
	ib->cr[gp * ib->nvl + p->vl].cred -= (int32_t)p->blocks;
	ib->st.packet_hops++;
	p->t_arr = ib->now + lp->delay;
	p->t_tail = p->t_arr + s;
	if (peer < ib->t->nhosts) {
		/* the receiving host drains in arrival order at the bus rate */
		host *h = &ib->h[peer];
		uint64_t ds = umax(p->t_arr, h->drain_free);
		uint64_t de = umax(p->t_tail, ds + bus_time(ib, p->payload));
		uint32_t mi = p->msg;
		int rc = 0;
		if (ib->m[mi].dst != peer)
			return ir_errf(e, "fabric: a packet for '%s' reached host '%s' (routing tables are wrong)",
			               ir_topo_name(ib->t, ib->m[mi].dst), ir_topo_name(ib->t, peer));
		h->drain_free = de;
		if (IB_RARE(p->fecn) && cc_cnp(ib, ib->m[mi].src, peer, de, e))
			return -1;
		if (cr_push(ib, gp, p->vl, de + ib->t->port[pgp].delay, p->blocks, e))
			return -1;
		pkt_free(ib, pi);
		ib->live--;
		if (IB_RARE(ib->part))
			ib->xs[mi].here--;
		if (++ib->m[mi].drained == ib->m[mi].npk)
			rc = deliver(ib, mi, de, e);
		return rc;
	}
	/* into the next switch's input buffer */
	{
		uint32_t sw = peer - ib->t->nhosts, dl = ib->t->node[ib->m[p->msg].dst].lid;
		unsigned op = 0, c, c2;
		uint32_t bi = pgp * ib->nvl + p->vl;
		if (p->leg) { /* first leg of a Valiant path: to the intermediate switch, then on */
			op = ir_lft_get(&ib->lft, sw, ib->m[p->msg].via_lid);
			if (op == 0)
				p->leg = 0;
			else
				dl = ib->m[p->msg].via_lid;
		}
		if (!p->leg) /* plane 0 (lmc = 0: always) is the table of the base LIDs */
			op = IB_RARE(p->plane) ? ir_lft_get_path(&ib->lft, sw, dl, p->plane) : ir_lft_get(&ib->lft, sw, dl);
		if (op == 0 || op == IR_LFT_NONE || op > ib->t->node[peer].nports)
			return ir_errf(e, "fabric: switch '%s' has no route to LID %u", ir_topo_name(ib->t, peer), dl);
		p->outp = ib->t->node[peer].port0 + op - 1;
		p->ovl = p->vl;
		if (ib->lft.vlmode != IR_VLM_NONE) { /* the routing's VL class step (docs/ib-model.md section 7) */
			c = p->vl % ib->lft.nclass;
			c2 = ir_lft_next_class(&ib->lft, pgp, p->outp, c);
			if (c2 >= ib->lft.nclass)
				return ir_errf(e, "fabric: switch '%s' would move a packet to VL class %u of %u",
				               ir_topo_name(ib->t, peer), c2, ib->lft.nclass);
			p->ovl = (uint8_t)(p->vl - c + c2);
		}
		if (ib->keyed) {
			/* the next switch takes it in when its head arrives (an event of that switch) */
			if (IB_RARE(ib->part) && ib->nowner[peer] != ib->part->me)
				return ibp_xarr(ib, pi, bi, e);
			p->next = bi;
			return kpush(ib, p->t_arr, EV_ARR, pi, e);
		}
		return buf_enter(ib, pi, bi, e);
	}
}

/* The head packet of buffer bi: request its output when it may leave. */
static int head_ready(ir_ib *ib, uint32_t bi, ir_err *e)
{
	inbuf *b = &ib->in[bi];
	pkt *p = &ib->pk[b->head];
	uint64_t so = ser(ib, p->outp, p->wire);
	uint64_t el = umax(p->t_arr + ib->cfg.switch_latency, b->read_free);
	if (p->t_tail > so && p->t_tail - so > el)
		el = p->t_tail - so;
	/* An ELIG event is needed only if the output could serve the packet
	 * before el; while the output is busy past el, the request can be
	 * registered now, and the output's own wake-up will find it eligible. */
	if (el > ib->now && el > ib->out[p->outp].busy)
		return ib_qpush(ib, el, EV_ELIG, bi, e);
	{
		uint32_t gp = bi / ib->nvl, ob = p->outp * ib->nvl + p->ovl;
		/* request bit: input port and VL of the buffer, (port - 1) * nvl + vl */
		uint32_t inb = bi - ib->t->node[ib->out[gp].node].port0 * ib->nvl;
		ib->req[(size_t)ob * ib->W + inb / 64] |= (uint64_t)1 << (inb % 64);
		ib->out[p->outp].nreq++;
		return out_try(ib, p->outp, e);
	}
}

/* Next set bit of a W-word set after position `after`, circularly over
 * nbits; -1 if the set is empty. */
static int next_req(const uint64_t *set, uint32_t W, uint32_t nbits, uint32_t after)
{
	uint32_t start = after + 1 >= nbits ? 0 : after + 1, w = start / 64;
	uint64_t bits = set[w] & (~(uint64_t)0 << (start % 64));
	for (;;) {
		if (bits)
			return (int)(w * 64 + (uint32_t)__builtin_ctzll(bits));
		if (++w >= W)
			break;
		bits = set[w];
	}
	for (w = 0; w * 64 < start; w++) {
		bits = set[w];
		if (w == start / 64)
			bits &= ((uint64_t)1 << (start % 64)) - 1;
		if (bits)
			return (int)(w * 64 + (uint32_t)__builtin_ctzll(bits));
	}
	return -1;
}

static uint32_t path_choose(ir_ib *ib, const ibmsg *m, const host *h);

static int host_try(ir_ib *ib, uint32_t hn, ir_err *e)
{
	host *h = &ib->h[hn];
	uint32_t gp = h->gp, mi;
	outp *o = &ib->out[gp];
	ibmsg *m;
	uint32_t payload, wire, blocks, pi;
	uint64_t s, nxt;
	if (h->cur == NIL)
		return 0;
	if (o->busy > ib->now || h->bus_free > ib->now)
		return ensure_wake(ib, gp, umax(o->busy, h->bus_free), e);
	mi = h->cur;
	if (IB_RARE(ib->cc)) {
		uint64_t tw = TMAX;
		mi = cc_pick(ib, h, &tw);
		if (mi == NIL)
			return ensure_wake(ib, gp, tw, e);
		h->cur = mi;
	}
	m = &ib->m[mi];
	payload = m->sent + 1 < m->npk ? ib->cfg.mtu : (uint32_t)(m->size - (uint64_t)(m->npk - 1) * ib->cfg.mtu);
	wire = payload + IR_IB_HEADER_BYTES;
	blocks = (wire + IR_IB_BLOCK - 1) / IR_IB_BLOCK;
	nxt = cr_absorb(ib, gp, m->vl);
	if (ib->cr[gp * ib->nvl + m->vl].cred < (int32_t)blocks) {
		if (o->stall_since == TMAX)
			o->stall_since = ib->now;
		return nxt != TMAX ? ensure_wake(ib, gp, nxt, e) : 0;
	}
	pi = pkt_new(ib);
	if (pi == NIL)
		return ir_errf(e, "out of memory for packets in flight");
	m = &ib->m[mi];
	if (IB_RARE(ib->part))
		ib->xs[mi].here++;
	ib->pk[pi].msg = mi;
	ib->pk[pi].wire = wire;
	ib->pk[pi].payload = payload;
	ib->pk[pi].blocks = blocks;
	ib->pk[pi].vl = m->vl;
	ib->pk[pi].leg = m->via_lid != 0;
	ib->pk[pi].fecn = 0;
	ib->pk[pi].plane = 0;
	if (IB_RARE(ib->npath > 1)) {
		uint32_t k = path_choose(ib, m, h);
		m->plane = (uint8_t)k;
		ib->pk[pi].plane = (uint8_t)k;
		ib->st.path_other += k != ir_lft_static_path(&ib->lft, m->src, m->dst);
	}
	ib->st.packets++;
	if (++ib->live > ib->st.max_live)
		ib->st.max_live = ib->live;
	h->bus_free = ib->now + bus_time(ib, payload);
	/* round robin over the host's active messages, packet by packet */
	if (++m->sent == m->npk) {
		if (m->next == mi) {
			h->cur = NIL;
			ib->busy_hosts--;
		} else {
			ib->m[m->prev].next = m->next;
			ib->m[m->next].prev = m->prev;
			h->cur = m->next;
		}
		h->nact--;
	} else {
		h->cur = m->next;
	}
	s = ser(ib, gp, wire);
	if (IB_RARE(ib->cc) && m->kind == K_DATA) {
		/* the flow's next packet waits for the delay of its CCT entry */
		struct ccflow *f = ir_hmap_get(&ib->ccf, m->src, m->dst);
		if (f)
			f->t_next = ib->now + s + ib->cfg.cc_cct[cc_index_at(ib, f, ib->now)];
	}
	if (send_on(ib, pi, gp, s, e))
		return -1;
	if (h->cur != NIL)
		return ensure_wake(ib, gp, umax(ib->out[gp].busy, h->bus_free), e);
	return 0;
}

/* Output gp forwards the head packet of its request bit ip on output VL vl
 * (ob = gp * nvl + vl, set its request set); cur, sent and w: the weighted
 * round robin of the arbitration table that chose the VL. Inlined in both
 * arbitrations, so the plain one forwards without a call, as before the
 * high-priority table existed; out_try_prio stays out of out_try. */
static inline __attribute__((always_inline)) int fwd(ir_ib *ib, uint32_t gp, uint32_t vl, uint32_t ob, uint32_t ip,
                                                     uint64_t *set, uint8_t *cur, uint8_t *sent, const uint32_t *w,
                                                     ir_err *e)
{
	outp *o = &ib->out[gp];
	const ir_topo_node *nd = &ib->t->node[o->node];
	uint32_t nvl = ib->nvl, bi = nd->port0 * nvl + ip, pi = ib->in[bi].head;
	inbuf *b = &ib->in[bi];
	pkt *p = &ib->pk[pi];
	uint64_t s = ser(ib, gp, p->wire);
	uint32_t ingp = nd->port0 + ip / nvl, upgp = ib->out[ingp].peer_gp, vin = ip % nvl;
	ib->rr[ob] = ip;
	set[ip / 64] &= ~((uint64_t)1 << (ip % 64));
	o->nreq--;
	if (vl == *cur) {
		if (++*sent >= w[vl]) {
			*cur = (uint8_t)((vl + 1) % nvl);
			*sent = 0;
		}
	} else {
		*cur = (uint8_t)vl;
		*sent = 1;
		if (*sent >= w[vl]) {
			*cur = (uint8_t)((vl + 1) % nvl);
			*sent = 0;
		}
	}
	b->head = p->next;
	if (b->head == NIL)
		b->tail = NIL;
	b->read_free = ib->now + s;
	/* the buffer's blocks go back upstream once the tail has left */
	if (ib->keyed) {
		if (kcret_push(ib, upgp, vin, ib->now + s + ib->t->port[ingp].delay, p->blocks, e))
			return -1;
	} else if (cr_push(ib, upgp, vin, ib->now + s + ib->t->port[ingp].delay, p->blocks, e))
		return -1;
	p->vl = (uint8_t)vl;
	if (IB_RARE(ib->cc))
		cc_mark(ib, o, ob, p);
	if (send_on(ib, pi, gp, s, e))
		return -1;
	if (b->head != NIL && head_ready(ib, bi, e))
		return -1;
	o = &ib->out[gp];
	if (o->nreq)
		return ensure_wake(ib, gp, o->busy, e);
	return 0;
}

/* Nothing could be forwarded: when a packet waited for credits, the stall starts now (if it
 * had not) and the output wakes at the earliest credit return. */
static inline int stall_wait(ir_ib *ib, uint32_t gp, outp *o, int stalled, uint64_t earliest, ir_err *e)
{
	if (!stalled)
		return 0;
	if (o->stall_since == TMAX)
		o->stall_since = ib->now;
	return earliest != TMAX ? ensure_wake(ib, gp, earliest, e) : 0;
}

/* Arbitration with a high-priority table (vlarb_high; docs/ib-model.md
 * section 9): the VLs with a high-priority weight are served first, in
 * weighted round robin among themselves, the others by vlarb; after
 * vlarb_high_limit high-priority packets in a row the low-priority VLs go
 * first once (255: never). A table that cannot send (no request, no
 * credits) gives way to the other. */
static __attribute__((noinline)) int out_try_prio(ir_ib *ib, uint32_t gp, ir_err *e)
{
	outp *o = &ib->out[gp];
	const ir_topo_node *nd = &ib->t->node[o->node];
	uint32_t nvl = ib->nvl, W = ib->W, nports = nd->nports * nvl;
	uint64_t earliest = TMAX;
	int stalled = 0;
	int first = ib->cfg.vlarb_high_limit == 255 || o->hp_run < ib->cfg.vlarb_high_limit;
	for (int pass = 0; pass < 2; pass++) {
		int high = pass == 0 ? first : !first;
		uint8_t *cur = high ? &o->hcur_vl : &o->cur_vl;
		for (uint32_t k = 0; k < nvl; k++) {
			uint32_t vl = (*cur + k) % nvl, ob = gp * nvl + vl, pi;
			uint64_t *set, nx;
			int ip;
			if ((ib->cfg.vlarb_high[vl] != 0) != high)
				continue;
			set = &ib->req[(size_t)ob * W];
			ip = next_req(set, W, nports, ib->rr[ob]);
			if (ip < 0)
				continue;
			pi = ib->in[nd->port0 * nvl + (uint32_t)ip].head;
			nx = cr_absorb(ib, gp, vl);
			if (ib->cr[ob].cred < (int32_t)ib->pk[pi].blocks) {
				stalled = 1;
				if (nx < earliest)
					earliest = nx;
				continue;
			}
			if (!high)
				o->hp_run = 0;
			else if (o->hp_run < 255)
				o->hp_run++;
			return fwd(ib, gp, vl, ob, (uint32_t)ip, set, cur, high ? &o->hvl_sent : &o->vl_sent,
			           high ? ib->cfg.vlarb_high : ib->cfg.vlarb, e);
		}
	}
	return stall_wait(ib, gp, o, stalled, earliest, e);
}

/* Output gp of a switch arbitrates at ib->now. */
static int out_try(ir_ib *ib, uint32_t gp, ir_err *e)
{
	outp *o = &ib->out[gp];
	const ir_topo_node *nd;
	uint32_t nvl = ib->nvl, W = ib->W, nports;
	uint64_t earliest = TMAX;
	int stalled = 0;
	if (o->node < ib->t->nhosts)
		return host_try(ib, o->node, e);
	if (!o->nreq)
		return 0;
	if (o->busy > ib->now)
		return ensure_wake(ib, gp, o->busy, e);
	if (IB_RARE(ib->hp))
		return out_try_prio(ib, gp, e);
	nd = &ib->t->node[o->node];
	nports = nd->nports * nvl; /* request bits: one per input port and VL */
	for (uint32_t k = 0; k < nvl; k++) {
		uint32_t vl = (o->cur_vl + k) % nvl, ob = gp * nvl + vl, bi, pi;
		uint64_t *set = &ib->req[(size_t)ob * W];
		int ip = next_req(set, W, nports, ib->rr[ob]);
		uint64_t nx;
		if (ip < 0)
			continue;
		bi = nd->port0 * nvl + (uint32_t)ip;
		pi = ib->in[bi].head;
		nx = cr_absorb(ib, gp, vl);
		if (ib->cr[ob].cred < (int32_t)ib->pk[pi].blocks) {
			stalled = 1;
			if (nx < earliest)
				earliest = nx;
			continue;
		}
		return fwd(ib, gp, vl, ob, (uint32_t)ip, set, &o->cur_vl, &o->vl_sent, ib->cfg.vlarb, e);
	}
	return stall_wait(ib, gp, o, stalled, earliest, e);
}

/* ---- messages ---- */

static int msg_enter(ir_ib *ib, uint32_t mi, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	host *h = &ib->h[m->src];
	if (h->cur == NIL) {
		m->next = m->prev = mi;
		h->cur = mi;
		ib->busy_hosts++;
	} else { /* at the end of the ring: just before the cursor */
		uint32_t c = h->cur, pv = ib->m[c].prev;
		m->next = c;
		m->prev = pv;
		ib->m[pv].next = mi;
		ib->m[c].prev = mi;
	}
	h->nact++;
	return host_try(ib, m->src, e);
}

static uint64_t out_load(const ir_ib *ib, uint32_t gp);

/* Links from switch sw to host dst, going by way of switch via first when
 * it is not IR_TOPO_NONE; the first output port (global index) in *first,
 * the sum of (load + 1) over the path's switch outputs in *sum. */
static uint32_t path_hops(const ir_ib *ib, uint32_t sw, uint32_t dst, uint32_t via, uint32_t *first, uint64_t *sum)
{
	const ir_topo *t = ib->t;
	uint32_t n = 1, lid = t->node[via != IR_TOPO_NONE ? via : dst].lid;
	*first = NIL;
	*sum = 0;
	for (uint32_t steps = 0; steps < 16; steps++) {
		unsigned p = ir_lft_get(&ib->lft, sw - t->nhosts, lid);
		const ir_topo_port *x;
		if (p == 0 && lid != t->node[dst].lid) {
			lid = t->node[dst].lid;
			continue;
		}
		if (p == 0 || p == IR_LFT_NONE)
			break;
		if (*first == NIL)
			*first = t->node[sw].port0 + p - 1;
		*sum += out_load(ib, t->node[sw].port0 + p - 1) + 1;
		x = ir_topo_portp(t, sw, p);
		n++;
		if (x->peer < t->nhosts)
			break;
		sw = x->peer;
	}
	return n;
}

/* Load on an output of a switch: blocks held in the buffers downstream on
 * all its VLs (credits as last absorbed) plus a full packet for each input
 * waiting for it. */
static uint64_t out_load(const ir_ib *ib, uint32_t gp)
{
	const ir_topo_port *x = &ib->t->port[gp];
	uint64_t cap = x->peer < ib->t->nhosts ? ib->cfg.host_buffer : ib->cfg.buffer, q = 0;
	for (uint32_t v = 0; v < ib->nvl; v++) {
		int32_t c = ib->cr[gp * ib->nvl + v].cred;
		q += c <= 0 ? cap : (uint64_t)c >= cap ? 0 : cap - (uint64_t)c;
	}
	return q + (uint64_t)ib->out[gp].nreq * ((ib->full_wire + IR_IB_BLOCK - 1) / IR_IB_BLOCK);
}

static uint64_t splitmix_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* lmc > 0 (docs/ib-model.md section 10): the LID offset of the next packet
 * of message m from host h, per message (its first packet chooses) or per
 * packet. static: the pair's hash; random: the fabric's seeded generator,
 * drawn in event order, so runs repeat; rr: the source host's counter;
 * adaptive / adaptive-credits: the output the source's switch would take
 * for each LID, the one with the least load (blocks held downstream and
 * inputs waiting, as UGAL reads it, but with the credit returns due by now
 * absorbed) or the most credits on the message's VL; ties keep the static
 * LID, then the next ones in turn. The source
 * host has one port, so its switch is the first place paths part. */
static __attribute__((noinline)) uint32_t path_choose(ir_ib *ib, const ibmsg *m, const host *h)
{
	uint32_t mask = ib->npath - 1, base = ir_lft_static_path(&ib->lft, m->src, m->dst), sw, lid, best;
	const ir_topo *t = ib->t;
	uint64_t bm = 0;
	if (!ib->cfg.path_packet && m->sent)
		return m->plane;
	switch (ib->cfg.path) {
	case IR_IB_PATH_RANDOM:
		return (uint32_t)(splitmix_next(&ib->prng) >> 32) & mask;
	case IR_IB_PATH_RR:
		return ib->rrc[m->src]++ & mask;
	case IR_IB_PATH_ADAPTIVE:
	case IR_IB_PATH_CREDITS:
		break;
	default:
		return base;
	}
	sw = t->port[h->gp].peer;
	if (sw == IR_TOPO_NONE || sw < t->nhosts)
		return base;
	lid = t->node[m->dst].lid;
	best = base;
	for (uint32_t j = 0; j < ib->npath; j++) {
		uint32_t k = (base + j) & mask, gp;
		unsigned p = ir_lft_get_path(&ib->lft, sw - t->nhosts, lid, k);
		uint64_t x;
		if (p == 0 || p == IR_LFT_NONE || p > t->node[sw].nports)
			continue;
		gp = t->node[sw].port0 + p - 1;
		if (ib->cfg.path == IR_IB_PATH_ADAPTIVE) {
			/* returns due by now first: an idle output absorbs them only
			 * when it next arbitrates, and would look loaded until then */
			for (uint32_t v = 0; v < ib->nvl; v++)
				cr_absorb(ib, gp, v);
			x = UINT64_MAX - out_load(ib, gp); /* the larger the better */
		} else {
			int32_t c;
			cr_absorb(ib, gp, m->vl);
			c = ib->cr[gp * ib->nvl + m->vl].cred;
			x = c > 0 ? (uint64_t)c : 0;
		}
		if (j == 0 || x > bm) {
			bm = x;
			best = k;
		}
	}
	return best;
}

/* UGAL at injection: the Valiant path when (load + 1) x hops of its first
 * switch output is below the minimal path's; UGAL-G: when the sum of
 * (load + 1) over its outputs is (ties: minimal). */
static int ugal_nonminimal(ir_ib *ib, uint32_t src, uint32_t dst, uint32_t via)
{
	uint32_t sw = ib->t->port[ib->h[src].gp].peer, fm, fv, hm, hv;
	uint64_t lm, lv, sm, sv;
	if (sw == IR_TOPO_NONE || sw < ib->t->nhosts)
		return 0;
	hm = path_hops(ib, sw, dst, IR_TOPO_NONE, &fm, &sm);
	hv = path_hops(ib, sw, dst, via, &fv, &sv);
	if (fm == NIL || fv == NIL)
		return 0;
	if (ib->lft.path == IR_PATH_UGAL_G)
		return sv < sm;
	lm = out_load(ib, fm) + 1;
	lv = out_load(ib, fv) + 1;
	return lv * hv < lm * hm;
}

static uint32_t new_msg(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, unsigned kind, int sl,
                        ir_err *e)
{
	uint32_t mi = msg_new(ib);
	ibmsg *m;
	uint64_t np;
	if (mi == NIL) {
		ir_errf(e, "out of memory for messages in the fabric");
		return NIL;
	}
	np = size ? (size + ib->cfg.mtu - 1) / ib->cfg.mtu : 1;
	if (np > 0xFFFFFFFFull) {
		ir_errf(e, "message of %llu bytes has more than 2^32 packets", (unsigned long long)size);
		return NIL;
	}
	m = &ib->m[mi];
	memset(m, 0, sizeof *m);
	m->handle = handle;
	m->src = src;
	m->dst = dst;
	m->size = size;
	m->npk = (uint32_t)np;
	m->kind = (uint8_t)kind;
	/* the VL class starts at 0; the base VL is the SL's in the SL-to-VL
	 * table, one of the nvl / nclass copies of the classes (all VLs without
	 * classes); sl = hash spreads host pairs over them */
	if (sl < 0)
		sl = ib->cfg.sl_hash ? (int)((src + dst) % (ib->nvl / ib->lft.nclass)) : ib->cfg.sl;
	m->sl = (uint8_t)sl;
	m->vl = (uint8_t)(ib->lft.nclass * ib->sl2vl[sl]);
	m->data = NIL;
	m->via_lid = 0;
	if (ib->lft.path != IR_PATH_DEST) {
		uint32_t via = ir_route_via(&ib->lft, ib->t, src, dst);
		if (via != IR_TOPO_NONE && (ib->lft.path == IR_PATH_VALIANT || ugal_nonminimal(ib, src, dst, via))) {
			m->via_lid = ib->t->node[via].lid;
			ib->st.nonminimal++;
		}
	}
	if (IB_RARE(ib->part) && ibp_made(ib, mi, e))
		return NIL;
	return mi;
}

/* sl = FILE: the SL of rank pair (src, dst): its own line, else (src, *),
 * else (*, dst), else (*, *), else 0. */
static int sl_of(const ir_ib *ib, uint32_t src, uint32_t dst)
{
	const uint8_t *v;
	if ((v = ir_hmap_get(&ib->slmap, (uint64_t)src + 1, (uint64_t)dst + 1)) ||
	    (v = ir_hmap_get(&ib->slmap, (uint64_t)src + 1, 0)) || (v = ir_hmap_get(&ib->slmap, 0, (uint64_t)dst + 1)) ||
	    (v = ir_hmap_get(&ib->slmap, 0, 0)))
		return *v;
	return 0;
}

int ir_ib_inject(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, int rndv, uint64_t t,
                 ir_err *e)
{
	uint32_t mi;
	return ib_inject(ib, handle, src, dst, size, rndv, t, &mi, e);
}

int ib_inject(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, int rndv, uint64_t t,
              uint32_t *out, ir_err *e)
{
	uint32_t hs, hd, mi;
	*out = NIL;
	if (src >= ib->nranks || dst >= ib->nranks)
		return ir_errf(e, "fabric: message from rank %u to rank %u of %u", src, dst, ib->nranks);
	if (t < ib->now)
		return ir_errf(e, "fabric: message injected at %llu ps, before the current time %llu ps",
		               (unsigned long long)t, (unsigned long long)ib->now);
	hs = ib->rank_host[src];
	hd = ib->rank_host[dst];
	if (hs == hd) { /* same host: a copy over the bus */
		uint64_t d = bus_time(ib, size);
		ib->st.loopback++;
		ib->st.msgs++;
		if (t > TMAX - d)
			return ir_errf(e, "time overflow in the fabric");
		return ib->cl.deliver(ib->cl.ctx, handle, t + d, e);
	}
	mi = new_msg(ib, handle, hs, hd, size, K_DATA, ib->cfg.sl_file ? sl_of(ib, src, dst) : -1, e);
	if (mi == NIL)
		return -1;
	if (rndv && ib->cfg.rndv == IR_IB_RNDV_FABRIC) {
		uint32_t r = new_msg(ib, handle, hs, hd, 0, K_RTS, ib->m[mi].sl, e);
		if (r == NIL)
			return -1;
		ib->m[r].data = mi;
		mi = r;
	}
	*out = mi;
	return ib_qpush(ib, t, EV_MSG, mi, e);
}

/* A drained RTS waiting for its match: parked in a small list (a run has
 * at most one per rendezvous message in flight), found by handle. */
static int park(ir_ib *ib, uint32_t mi, ir_err *e)
{
	if (ib->npark == ib->cappark && IR_GROW(ib->park, (size_t)ib->npark + 1, ib->cappark))
		return ir_errf(e, "out of memory for rendezvous requests");
	ib->park[ib->npark++] = mi;
	return 0;
}

static int send_cts(ir_ib *ib, uint32_t mi, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	uint32_t data = m->data, c = new_msg(ib, m->handle, m->dst, m->src, 0, K_CTS, m->sl, e);
	if (c == NIL)
		return -1;
	ib->m[c].data = data;
	msg_free(ib, mi);
	return msg_enter(ib, c, e);
}

int ir_ib_rndv_matched(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e)
{
	for (uint32_t i = 0; i < ib->npark; i++) {
		uint32_t mi = ib->park[i];
		if (ib->m[mi].handle != handle)
			continue;
		if (t < ib->now)
			return ir_errf(e, "fabric: rendezvous match at %llu ps, before the current time %llu ps",
			               (unsigned long long)t, (unsigned long long)ib->now);
		ib->park[i] = ib->park[--ib->npark];
		/* the CTS enters the receiver's send queue at t */
		return ib_qpush(ib, t, EV_CTRL, mi, e);
	}
	return ir_errf(e, "fabric: rendezvous match of message %u, which has no request-to-send waiting", handle);
}

/* A control message has been drained at its destination. */
static int ctrl_done(ir_ib *ib, uint32_t mi, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	uint32_t data = m->data;
	if (m->kind == K_CNP) {
		uint32_t s = m->src, d = m->dst;
		msg_free(ib, mi);
		return cc_becn(ib, s, d, e);
	}
	if (m->kind == K_RTS) {
		/* the receiver answers clear-to-send: at once, or when the match is
		 * reported (a parked RTS comes back here with matched_wait set) */
		if (ib->cl.rts && !m->matched_wait) {
			m->matched_wait = 1;
			if (park(ib, mi, e))
				return -1;
			return ib->cl.rts(ib->cl.ctx, m->handle, ib->now, e);
		}
		return send_cts(ib, mi, e);
	}
	/* CTS: the data flows; a partitioned run's data carries the handle the CTS brought back
	 * (the receiver's engine's) */
	if (IB_RARE(ib->part))
		ib->xs[data].dhandle = m->handle;
	msg_free(ib, mi);
	return msg_enter(ib, data, e);
}

/* ---- the event loop ---- */

static int deadlock(ir_ib *ib, ir_err *e)
{
	/* follow "head packet waits for credits of the next buffer" from any full buffer */
	const ir_topo *t = ib->t;
	uint32_t nb = t->nports_total * ib->nvl, start = NIL, cur, steps = 0;
	uint32_t *seen;
	ir_sb sb = IR_SB_INIT;
	for (uint32_t i = 0; i < nb && start == NIL; i++)
		if (ib->in[i].head != NIL)
			start = i;
	if (start == NIL)
		return ir_errf(e, "fabric deadlock at %llu ps: %u hosts wait to send with no credits coming",
		               (unsigned long long)ib->now, ib->busy_hosts);
	seen = calloc(nb, sizeof *seen);
	if (!seen)
		return ir_errf(e, "fabric deadlock at %llu ps (out of memory for the report)", (unsigned long long)ib->now);
	cur = start;
	while (cur != NIL && !seen[cur]) {
		seen[cur] = ++steps;
		pkt *p = &ib->pk[ib->in[cur].head];
		uint32_t nxt = ib->out[p->outp].peer_gp * ib->nvl + p->ovl;
		cur = ib->in[nxt].head != NIL ? nxt : NIL;
	}
	if (cur != NIL) {
		uint32_t c = cur;
		do {
			uint32_t gp = c / ib->nvl;
			pkt *p = &ib->pk[ib->in[c].head];
			ir_sb_addf(&sb, "%s%s port %u vl %u", sb.len ? " -> " : "", ir_topo_name(t, ib->out[gp].node),
			           ib->out[gp].port, c % ib->nvl);
			c = ib->out[p->outp].peer_gp * ib->nvl + p->ovl;
		} while (c != cur && sb.len < 300);
		ir_sb_addf(&sb, " -> %s port %u vl %u", ir_topo_name(t, ib->out[cur / ib->nvl].node),
		           ib->out[cur / ib->nvl].port, cur % ib->nvl);
	}
	ir_errf(e, "fabric deadlock at %llu ps: %u packets cannot move; cycle of full input buffers: %s",
	        (unsigned long long)ib->now, ib->live, sb.len ? sb.buf : "(none found)");
	ir_sb_release(&sb);
	free(seen);
	return -1;
}

/* Keyed: a packet's head has reached the input buffer it is bound for (p->next). */
static int k_arrive(ir_ib *ib, uint32_t pi, ir_err *e)
{
	return buf_enter(ib, pi, ib->pk[pi].next, e);
}

uint32_t ib_knode(const ir_ib *ib, uint64_t cookie)
{
	uint32_t type = (uint32_t)(cookie >> 32), idx = (uint32_t)cookie;
	const ibmsg *m;
	switch (type) {
	case EV_OUT:
		return ib->out[idx].node;
	case EV_ELIG:
		return ib->out[idx / ib->nvl].node;
	case EV_MSG:
		return ib->m[idx].src;
	case EV_CTRL:
		/* a drained RTS or CTS acts at its destination, a congestion notification at
		 * the source of the flow it throttles */
		m = &ib->m[idx];
		return m->kind == K_CNP ? m->src : m->dst;
	case EV_ARR:
		return ib->out[ib->pk[idx].next / ib->nvl].node;
	default: /* EV_CRET */
		return ib->out[ib->kc[idx].gp].node;
	}
}

void ib_kdescribe(const ir_ib *ib, uint64_t cookie, char *buf, size_t n)
{
	uint32_t type = (uint32_t)(cookie >> 32), idx = (uint32_t)cookie, gp;
	const ir_topo *t = ib->t;
	const ibmsg *m;
	switch (type) {
	case EV_OUT:
		snprintf(buf, n, "%s port %u arbitrates", ir_topo_name(t, ib->out[idx].node), ib->out[idx].port);
		break;
	case EV_ELIG:
		gp = idx / ib->nvl;
		snprintf(buf, n, "%s port %u vl %u: head packet may leave", ir_topo_name(t, ib->out[gp].node),
		         ib->out[gp].port, idx % ib->nvl);
		break;
	case EV_MSG:
		snprintf(buf, n, "%s: message enters the send queue", ir_topo_name(t, ib->m[idx].src));
		break;
	case EV_CTRL:
		m = &ib->m[idx];
		snprintf(buf, n, "%s: %s", ir_topo_name(t, m->kind == K_CNP ? m->src : m->dst),
		         m->kind == K_CNP ? "congestion notification" : m->kind == K_RTS ? "RTS drained" : "CTS drained");
		break;
	case EV_ARR:
		gp = ib->pk[idx].next / ib->nvl;
		snprintf(buf, n, "%s port %u vl %u: packet arrives", ir_topo_name(t, ib->out[gp].node), ib->out[gp].port,
		         ib->pk[idx].next % ib->nvl);
		break;
	case EV_CRET:
		gp = ib->kc[idx].gp;
		snprintf(buf, n, "%s port %u vl %u: %u credits return", ir_topo_name(t, ib->out[gp].node), ib->out[gp].port,
		         ib->kc[idx].vl, ib->kc[idx].b);
		break;
	default:
		snprintf(buf, n, "fabric event %u", type);
	}
}

/* Run fabric event `type` on `idx` at ib->now (both orders: the fabric's own queue, or an
 * engine callback under the key). */
static inline __attribute__((always_inline)) int ev_run(ir_ib *ib, unsigned type, uint32_t idx, ir_err *e)
{
	switch (type) {
	case EV_OUT:
		if (ib->out[idx].wake != ib->now)
			return 0; /* superseded by an earlier wake-up */
		ib->out[idx].wake = TMAX;
		return out_try(ib, idx, e);
	case EV_ELIG:
		return head_ready(ib, idx, e);
	case EV_MSG:
		return msg_enter(ib, idx, e);
	case EV_CTRL:
		return ctrl_done(ib, idx, e);
	case EV_ARR:
		return k_arrive(ib, idx, e);
	case EV_CRET: {
		kcret c = ib->kc[idx];
		ib->kc[idx].gp = ib->freekc;
		ib->freekc = idx;
		return cr_push(ib, c.gp, c.vl, ib->now, c.b, e);
	}
	default:
		return ir_errf(e, "fabric: unknown event %u", type);
	}
}

int ib_kevent(ir_ib *ib, uint64_t t, uint64_t cookie, ir_err *e)
{
	ib->now = t;
	ib->kpending--;
	ib->st.events++;
	if (ev_run(ib, (unsigned)(cookie >> 32), (uint32_t)cookie, e))
		return -1;
	/* nothing left to happen in the fabric: a packet still in a buffer is stuck for good (a
	 * partition's other processes may still send it items: they are counted after the run) */
	if (!ib->kpending && (ib->live || ib->busy_hosts) && !ib->part)
		return deadlock(ib, e);
	return 0;
}

int ir_ib_advance(ir_ib *ib, uint64_t t, ir_err *e)
{
	while (ib->q.n) {
		uint32_t ref;
		ir_heap_ent *top = NULL;
		if (t != TMAX && qmin(ib) > t)
			return 0;
		if (ir_heap_top(&ib->q, &top) != 1)
			return ir_errf(e, "out of memory for the fabric's event queue");
		ib->now = top->t;
		ref = top->ref;
		ir_heap_pop(&ib->q);
		ib->qpeek = TMAX;
		ib->st.events++;
		if (ev_run(ib, ref >> EV_SHIFT, ref & EV_MASK, e))
			return -1;
	}
	/* nothing left to happen: any packet still in a buffer is stuck for good */
	if (ib->live || ib->busy_hosts)
		return deadlock(ib, e);
	return 0;
}

int ir_ib_run(ir_ib *ib, ir_err *e) { return ir_ib_advance(ib, TMAX, e); }

uint64_t ir_ib_next(const ir_ib *ib)
{
	return ib->q.n ? qmin((ir_ib *)ib) : TMAX;
}

uint64_t ir_ib_now(const ir_ib *ib) { return ib->now; }
const ir_ib_stats *ir_ib_get_stats(const ir_ib *ib) { return &ib->st; }
const ir_topo *ir_ib_topo(const ir_ib *ib) { return ib->t; }
const ir_lft *ir_ib_lft(const ir_ib *ib) { return &ib->lft; }
uint32_t ir_ib_rank_host(const ir_ib *ib, uint32_t rank) { return rank < ib->nranks ? ib->rank_host[rank] : NIL; }


uint32_t ib_msg_new(ir_ib *ib) { return msg_new(ib); }
void ib_msg_free(ir_ib *ib, uint32_t i) { msg_free(ib, i); }
uint32_t ib_pkt_new(ir_ib *ib) { return pkt_new(ib); }
void ib_pkt_free(ir_ib *ib, uint32_t i) { pkt_free(ib, i); }
