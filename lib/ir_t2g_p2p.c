/*
 * ir_t2g_p2p.c: trace2goal's point-to-point calls (part of ir_t2g, see
 * ir_t2g_internal.h).
 *
 * The request table of a rank (key: the request's address or id), the
 * per-pair message counts that check_pairs compares at the end, statuses,
 * the start of nonblocking and persistent operations, t2g_complete() (the
 * completion of requests, shared by Wait/Test and --sync) and the matched
 * probes (Mprobe, Improbe, Mrecv, Imrecv). Reading a send's or a receive's
 * fields is in ir_t2g_call.c beside the dispatcher, the small staging helpers
 * in the header: both run on every message.
 */
#include "ir_t2g_internal.h"

/* ------------------------------------------------------------------ pairs and requests */

int t2g_count_pair(gstate *g, uint32_t src, uint32_t dst, int is_send, ir_err *e)
{
	uint64_t k = (((uint64_t)src << 32) | dst) + 1;
	int isnew;
	uint32_t *v = ir_hmap_put(&g->pairs, k, 0, &isnew);
	size_t idx;
	if (!v)
		return ir_errf(e, "out of memory");
	if (isnew) {
		if (IR_GROW(g->pc, g->npc + 1, g->cappc))
			return ir_errf(e, "out of memory");
		idx = g->npc++;
		g->pc[idx].sends = g->pc[idx].recvs = 0;
		*v = (uint32_t)idx;
	} else {
		idx = *v;
	}
	if (is_send)
		g->pc[idx].sends++;
	else
		g->pc[idx].recvs++;
	return 0;
}

/* --sync: let go of a request's zero-cost nodes (a deferred receive never completed resolves
 * without a partner). */
void t2g_req_drop_nodes(gstate *g, req *q)
{
	if (!g->ts)
		return;
	if (q->deferred && q->node) {
		g->sync_wild++;
		ir_ts_release(g->ts, q->node);
	}
	ir_ts_unref(g->ts, q->node);
	ir_ts_unref(g->ts, q->pnode);
	q->node = q->pnode = 0;
}

req *t2g_req_new(gstate *g, rstate *R, uint64_t key, ir_err *e)
{
	uint32_t *v;
	size_t idx;
	if (!key)
		return NULL;
	v = ir_hmap_get(&R->reqmap, key, 0);
	if (v) {
		req *q = &R->reqs[*v];
		t2g_req_drop_nodes(g, q);
		memset(q, 0, sizeof *q);
		return q;
	}
	if (R->nfree) {
		idx = R->freereq[--R->nfree];
	} else {
		if (IR_GROW(R->reqs, R->nreqs + 1, R->capreqs)) {
			ir_errf(e, "out of memory");
			return NULL;
		}
		idx = R->nreqs++;
	}
	v = ir_hmap_put(&R->reqmap, key, 0, NULL);
	if (!v) {
		ir_errf(e, "out of memory");
		return NULL;
	}
	*v = (uint32_t)idx;
	memset(&R->reqs[idx], 0, sizeof R->reqs[idx]);
	return &R->reqs[idx];
}

int t2g_req_del(gstate *g, rstate *R, uint64_t key)
{
	uint32_t *v = ir_hmap_get(&R->reqmap, key, 0);
	if (!v)
		return 0;
	if (IR_GROW(R->freereq, R->nfree + 1, R->capfree))
		return -1;
	t2g_req_drop_nodes(g, &R->reqs[*v]);
	R->freereq[R->nfree++] = *v;
	ir_hmap_del(&R->reqmap, v);
	return 0;
}

/* ------------------------------------------------------------------ point-to-point */

/* allprof status "<src>,<tag>,<bytes>" (comm-relative source) of length len, mapped to the
 * world source and GOAL tag as for the matching send; 0 if it names no real source. */
int t2g_status_str(gstate *g, rstate *R, const char *f, size_t len, const cref *cr, int64_t *src, int64_t *tag,
                   uint64_t *bytes)
{
	char tmp[80];
	int64_t a, b, c;
	if (len >= sizeof tmp)
		return 0;
	memcpy(tmp, f, len);
	tmp[len] = 0;
	if (ir_tf_triple(tmp, &a, &b, &c))
		return 0;
	if (a < 0 || a >= (int64_t)cr->size || c < 0)
		return 0;
	*src = world_of(cr, a);
	*tag = p2p_tag(g, R, cr, b);
	*bytes = (uint64_t)c;
	return 1;
}

int t2g_status_of(gstate *g, rstate *R, const ir_rec *r, unsigned i, const cref *cr, int64_t *src, int64_t *tag,
                  uint64_t *bytes)
{
	if (R->flavor != IR_TRACE_ALLPROF || i >= r->nf)
		return 0;
	return t2g_status_str(g, R, r->f[i], strlen(r->f[i]), cr, src, tag, bytes);
}

/* Complete the requests `keys` (a Wait/Test that finished them): a calc 0 requiring their ops. */
int t2g_complete(gstate *g, rstate *R, const ir_rec *r, const uint64_t *keys, size_t n, const int64_t *st_src,
                 const int64_t *st_tag, const uint64_t *st_bytes, ir_err *e)
{
	uint32_t need[64];
	ir_tn needn[64];
	size_t nn = 0;
	emitted em;
	uint32_t *big = NULL;
	uint32_t *lst = need;
	ir_tn *xs = needn;
	int rc = -1;
	if (n > 64) {
		big = malloc(n * (sizeof *big + sizeof *xs));
		if (!big)
			return ir_errf(e, "out of memory");
		lst = big;
		xs = (ir_tn *)(big + n);
	}
	for (size_t i = 0; i < n; i++) {
		req *q = req_get(R, keys[i]);
		if (!q || q->label == NOLABEL)
			continue;
		if (!q->is_send) /* --sync: the completed receive took its message in */
			t2g_taken(g, q->deferred && st_src && st_src[i] != INT64_MIN ? st_src[i] : q->peer, R->rank, r->t_call,
			          r->t_ret);
		if (q->deferred) {
			/* the wildcard receive's definition, with the real source and tag when known */
			int64_t src = ANY, tag = q->tag;
			uint64_t bytes = q->size;
			if (st_src && st_src[i] != INT64_MIN) {
				src = st_src[i];
				tag = st_tag[i];
				bytes = st_bytes[i];
			}
			if (st_src && st_src[i] == ANY) {
				/* completed with source MPI_ANY_SOURCE: cancelled (MPI_Cancel), nothing
				 * was received, so no receive is replayed */
				if (def_calc(R, q->label, 0)) {
					ir_errf(e, "out of memory");
					goto out;
				}
				if (g->ts && q->node) {
					ir_ts_release(g->ts, q->node);
					ir_ts_unref(g->ts, q->pnode);
					q->pnode = 0;
				}
			} else {
				if (def_recv(R, q->label, src, bytes, tag)) {
					ir_errf(e, "out of memory");
					goto out;
				}
				if (src == ANY)
					g->wild[R->rank]++;
				else if (t2g_count_pair(g, (uint32_t)src, R->rank, 0, e))
					goto out;
				if (g->ts && q->node) {
					if (src == ANY || tag == ANY) {
						g->sync_wild++;
						ir_ts_release(g->ts, q->node);
					} else if (ir_ts_recv(g->ts, (uint32_t)src, R->rank, tag, q->pnode, q->node)) {
						ir_errf(e, "out of memory");
						goto out;
					}
					ir_ts_unref(g->ts, q->pnode);
					q->pnode = 0;
				}
			}
			q->deferred = 0;
		}
		xs[nn] = q->node; /* the reference moves to xs */
		q->node = 0;
		lst[nn++] = q->label;
		q->label = NOLABEL;
		if (!q->persistent && t2g_req_del(g, R, keys[i])) {
			ir_errf(e, "out of memory");
			goto out;
		}
	}
	if (nn == 0) { /* nothing known to complete: the call's time runs on as computation */
		rc = 0;
		goto out;
	}
	ir_cg_reset(&g->cg);
	if (stage(g, IR_OP_CALC, 0, 0, 0) < 0) {
		ir_errf(e, "out of memory");
		goto out;
	}
	g->xin = xs;
	g->nxin = nn;
	rc = t2g_emit_call(g, R, r, ENDS_OPS, 0, 0, &em, e);
	g->xin = NULL;
	g->nxin = 0;
	if (rc || (rc = t2g_poll_overlap(R, em.gap, em.base, e)))
		goto out;
	for (size_t i = 0; i < nn; i++)
		if (edge(R, em.base, lst[i], 0)) {
			rc = ir_errf(e, "out of memory");
			goto out;
		}
out:
	if (g->ts)
		for (size_t i = 0; i < nn; i++)
			ir_ts_unref(g->ts, xs[i]);
	free(big);
	return rc;
}

/* Start a nonblocking operation staged as op 0; register it under `key`. */
int t2g_start_nb(gstate *g, rstate *R, const ir_rec *r, uint64_t key, int is_send, const p2p *m, int persistent,
                 double extra, ir_err *e)
{
	emitted em;
	req *q;
	int deferred = 0;
	ir_cg_reset(&g->cg);
	if (is_send) {
		if (stage_send(g, R, m, e))
			return -1;
	} else if (m->peer >= -1) {
		/* an allprof wildcard: the definition waits for the completing call's status */
		deferred = R->flavor == IR_TRACE_ALLPROF && (m->peer == ANY || m->tag == ANY);
		if (deferred) {
			if (stage(g, IR_OP_RECV, m->peer, m->size, m->tag) < 0)
				return ir_errf(e, "out of memory");
			g->cg.op[g->cg.nop - 1].peer = 1; /* marker: definition deferred */
		} else if (stage_recv(g, R, m, e)) {
			return -1;
		}
	}
	if (t2g_emit_call(g, R, r, ENDS_OPS_IREQ, 0, extra, &em, e))
		return -1;
	if (!key)
		return 0;
	q = req_get(R, key);
	if (!q || !persistent) {
		q = t2g_req_new(g, R, key, e);
		if (!q)
			return -1;
	}
	q->persistent = (uint8_t)persistent;
	q->is_send = (uint8_t)is_send;
	q->peer = (int32_t)m->peer;
	q->tag = m->tag;
	q->size = m->size;
	q->seq = ++R->reqseq;
	q->label = g->cg.nop ? em.base : NOLABEL;
	q->deferred = (uint8_t)deferred;
	if (deferred) {
		/* the status names a comm-relative source and the application tag: keep what
		 * is needed to map them as the send side did (p2p_tag, world_of) */
		q->cworld = m->cr.c == &R->world;
		q->ckey = m->cr.c->key;
		q->members = m->cr.members;
		q->csize = m->cr.size;
	}
	if (g->ts && g->cg.nop) {
		ir_ts_unref(g->ts, q->node);
		ir_ts_unref(g->ts, q->pnode);
		q->node = g->tdone[0];
		ir_ts_ref(g->ts, q->node);
		q->pnode = 0;
		if (deferred) {
			q->pnode = g->tpost[0];
			ir_ts_ref(g->ts, q->pnode);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ matched probes */

/* message field "m<id>" (allprof) or an address (key 0: MPI_MESSAGE_NULL / NO_PROC) */
static int arg_msg(const rstate *R, const ir_rec *r, unsigned i, uint64_t *key, ir_err *e)
{
	const char *f = r->f[i];
	uint64_t v = 0;
	int id = 0;
	if (f[0] == 'm') {
		int nd = 0;
		for (f++; *f >= '0' && *f <= '9' && nd < 18; f++, nd++)
			v = v * 10 + (uint64_t)(*f - '0');
		if (!nd || *f)
			return t2g_bad_arg(R, r, i, "a message 'm<id>'", e);
	} else if (ir_tf_handle(f, &v, &id)) {
		return t2g_bad_arg(R, r, i, "a message 'm<id>' or an address", e);
	}
	*key = v ? (v & ~((uint64_t)3 << 62)) | ((uint64_t)1 << 62) : 0;
	return 0;
}

/* Mprobe, Improbe: remember the matched message (source, tag, bytes) under its handle.
 * Mprobe is converted like Probe; Improbe like Iprobe (its time runs on). */
int t2g_do_mprobe(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	cref cr;
	uint64_t key, bytes = 0;
	int64_t src, tag, flag = 1;
	int mp = ci->k == C_MPROBE;
	int rc = t2g_arg_comm(g, R, r, mp ? F_MPI_Mprobe_comm : F_MPI_Improbe_comm, &cr, e);
	emitted em;
	req *q;
	if (rc)
		return rc < 0 ? -1 : 0;
	if (!mp && (ir_tf_int(r->f[F_MPI_Improbe_flag], &flag) || flag != 1))
		return 0; /* nothing matched (liballprof writes the flag's address: nothing known) */
	if (arg_msg(R, r, mp ? F_MPI_Mprobe_message : F_MPI_Improbe_message, &key, e) ||
	    arg_int(R, r, mp ? F_MPI_Mprobe_source : F_MPI_Improbe_source, &src, e) ||
	    arg_int(R, r, mp ? F_MPI_Mprobe_tag : F_MPI_Improbe_tag, &tag, e))
		return -1;
	if (src >= (int64_t)cr.size)
		return t2g_errat(R, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, src, cr.size);
	src = src == -1 ? ANY : (src < 0 ? -2 : world_of(&cr, src));
	tag = p2p_tag(g, R, &cr, tag < -1 ? -1 : tag);
	t2g_status_of(g, R, r, mp ? F_MPI_Mprobe_status : F_MPI_Improbe_status, &cr, &src, &tag, &bytes);
	if (key) {
		q = t2g_req_new(g, R, key, e);
		if (!q)
			return -1;
		q->peer = (int32_t)src;
		q->tag = tag;
		q->size = bytes;
		q->persistent = 2; /* a message, not a request: its size may be unknown (0) */
	}
	if (ci->k == C_IMPROBE || g->o->compat_schedgen)
		return 0;
	ir_cg_reset(&g->cg);
	g->no_dur = 1; /* as Probe: the Mrecv replays the waiting (--sync: the Mprobe does) */
	rc = t2g_emit_call(g, R, r, ENDS_GAP, 0, 0, &em, e);
	g->no_dur = 0;
	return rc;
}

/* Mrecv, Imrecv: the receive of a matched message. */
int t2g_do_mrecv(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	uint64_t key, tsz, rkey = 0;
	int64_t cnt;
	req *q;
	p2p m;
	emitted em;
	/* Mrecv: buf count type message status; Imrecv: buf count type message request */
	_Static_assert(F_MPI_Mrecv_buf == F_MPI_Imrecv_buf && F_MPI_Mrecv_count == F_MPI_Imrecv_count &&
	                   F_MPI_Mrecv_type == F_MPI_Imrecv_type && F_MPI_Mrecv_message == F_MPI_Imrecv_message,
	               "Mrecv and Imrecv begin with the same fields");
	memset(&m, 0, sizeof m);
	if (arg_u64(R, r, F_MPI_Mrecv_buf, &m.buf, e) || arg_count(R, r, F_MPI_Mrecv_count, &cnt, e) ||
	    arg_type(R, r, F_MPI_Mrecv_type, &tsz, e) || arg_msg(R, r, F_MPI_Mrecv_message, &key, e))
		return -1;
	if (ci->k == C_IMRECV && arg_req(R, r, F_MPI_Imrecv_request, &rkey, e))
		return -1;
	if (!key)
		return 0; /* MPI_MESSAGE_NO_PROC: nothing is received */
	q = req_get(R, key);
	if (!q || q->persistent != 2) {
		char qq[120];
		ir_err_quote(qq, sizeof qq, r->f[F_MPI_Mrecv_message], strlen(r->f[F_MPI_Mrecv_message]));
		return t2g_errat(R, e, "%s: message '%s' was not matched by an earlier MPI_Mprobe or MPI_Improbe", r->name, qq);
	}
	m.peer = q->peer;
	m.tag = q->tag;
	m.size = q->size ? q->size : (uint64_t)cnt * tsz;
	if (t2g_req_del(g, R, key))
		return ir_errf(e, "out of memory");
	if (ci->k == C_IMRECV)
		return t2g_start_nb(g, R, r, rkey, 0, &m, 0, pin_cost(g, R, m.buf, m.size), e);
	ir_cg_reset(&g->cg);
	if (stage_recv(g, R, &m, e))
		return -1;
	return t2g_emit_call(g, R, r, ENDS_OPS, 0, pin_cost(g, R, m.buf, m.size), &em, e);
}
