/*
 * ir_t2g_call.c: one record at a time, trace2goal's dispatcher (part of
 * ir_t2g, see ir_t2g_internal.h).
 *
 * The call table (generated from formats/calls.tsv into ir_t2g_calls.h,
 * const and sorted, a binary search per record), the argument readers that
 * need more than a line (communicators, the bad-argument message), the rank
 * lifecycle (t2g_rank_begin, t2g_rank_record, t2g_rank_end) and t2g_do_call(),
 * which turns one record into staged ops or hands it to the part that knows
 * its kind: point-to-point and probes (ir_t2g_p2p.c), collectives
 * (ir_t2g_coll.c), topologies (ir_t2g_topo.c), completions (ir_t2g_wait.c),
 * communicators (ir_t2g_comm.c). The rank loop and the dispatcher share this
 * file so that the per-record path stays one function deep.
 */
#include "ir_t2g_internal.h"

/* The table is generated from formats/calls.tsv (lib/ir_t2g_calls.h, tools/allprof/gen-calls.sh):
 * const and sorted by name, so that find_call() is a binary search from the first record. */
#define CALLROW(name, k, coll, nb, nf, fcomm, freq) { name, k, coll, nb, nf, fcomm, freq },
static const callinfo calls[] = { IR_T2G_CALLS(CALLROW) };
#undef CALLROW

/* Local calls: no messages; their time counts as computation. */
static const char *const local_prefixes[] = {
	"MPI_Comm_", "MPI_Type_", "MPI_Group_", "MPI_Cart", "MPI_Graph", "MPI_Dist_graph", "MPI_Info_",
	"MPI_Errhandler_", "MPI_Attr_", "MPI_Op_", "MPI_Keyval_", "MPI_Get", "MPI_Wtime", "MPI_Wtick",
	"MPI_Pcontrol", "MPI_Initialized", "MPI_Finalized", "MPI_Query_thread", "MPI_Is_thread_main",
	"MPI_Error_", "MPI_Buffer_", "MPI_Address", "MPI_Pack", "MPI_Unpack", "MPI_Dims_create",
	"MPI_Abort", "MPI_Cancel", "MPI_Request_get_status", "MPI_Status_set", "MPI_Alloc_mem",
	"MPI_Free_mem", "MPI_Reduce_local",
	/* one-sided communication other than window creation, free and fence (docs/trace2goal.md,
	 * "One-sided communication") */
	"MPI_Win_", "MPI_Put", "MPI_Rput", "MPI_Accumulate", "MPI_Raccumulate", "MPI_Rget",
	"MPI_Fetch_and_op", "MPI_Compare_and_swap", NULL,
};

const callinfo *t2g_find_call(const char *name)
{
	size_t lo = 0, hi = sizeof calls / sizeof *calls;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, calls[mid].name);
		if (c == 0)
			return &calls[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int is_local(const char *name)
{
	for (const char *const *p = local_prefixes; *p; p++)
		if (strncmp(name, *p, strlen(*p)) == 0)
			return 1;
	return 0;
}

int t2g_gap_cpu(gstate *g, rstate *R, const ir_rec *r, int64_t w1, int64_t c1, int64_t *gap, ir_err *e)
{
	int64_t off;
	if (!g->o->calc_cpu)
		return 0;
	if (c1 == IR_TIME_NONE || R->gc == IR_TIME_NONE || w1 == IR_TIME_NONE || R->gw == IR_TIME_NONE)
		return t2g_errat(R, e, "%s: no CPU times (trace with allprof --cpu-time, or convert with --calc wall)",
		                 r->name);
	off = (w1 - R->gw) - (c1 - R->gc);
	if (off > 0)
		*gap = *gap > off ? *gap - off : 0;
	return 0;
}

void t2g_gap_self(gstate *g, rstate *R, int64_t *gap)
{
	uint64_t n = R->cur_calls > R->gap_base ? R->cur_calls - R->gap_base : 0;
	int64_t fl = R->gap_flush, take;
	double d;
	R->gap_flush = 0;
	if (g->o->keep_tracer)
		return;
	/* a flush first: measured inside the gap, the part of it that a CPU gap lacks is time
	 * the thread was off its CPU, which t2g_gap_cpu took out already, so never owed */
	if (fl > 0 && *gap > 0) {
		take = fl < *gap ? fl : *gap;
		*gap -= take;
		g->tracer_ps += (uint64_t)take;
	}
	/* then the returns' mean time m each, with what earlier gaps owed: a gap shorter than
	 * its returns' m shows that their tracer time was less than the mean there, so more
	 * elsewhere; the next gaps pay the rest, so that the gaps lose n * m in all, not each
	 * the larger of its own gap and m (which left a 0.1 us phantom of computation after
	 * each short gap) */
	d = R->self_owed + (R->self_ps > 0 ? R->self_ps * (double)n : 0);
	R->self_owed = 0;
	if (d <= 0)
		return;
	if (*gap <= 0 || d >= (double)*gap) {
		take = *gap > 0 ? *gap : 0;
		R->self_owed = d - (double)take;
	} else {
		take = (int64_t)(d + 0.5);
	}
	*gap -= take;
	g->tracer_ps += (uint64_t)take;
}

int t2g_bad_arg(const rstate *R, const ir_rec *r, unsigned i, const char *what, ir_err *e)
{
	char q[120];
	ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i]));
	return t2g_errat(R, e, "%s: argument %u: expected %s, found '%s'", r->name, i + 1, what, q);
}

/* The communicator argument; returns 0 ok, 1 not usable (warned, skip the call), -1 error. */
int t2g_arg_comm(gstate *g, rstate *R, const ir_rec *r, unsigned i, cref *cr, ir_err *e)
{
	int64_t h, rk, sz;
	if (ir_tf_triple(r->f[i], &h, &rk, &sz) || rk < 0 || sz <= 0 || rk >= sz)
		return t2g_bad_arg(R, r, i, "a communicator '<handle>,<rank>,<size>'", e);
	return t2g_comm_of(g, R, r, h, rk, sz, cr, e);
}

/* The communicator <h>,<rk>,<sz> (read by t2g_arg_comm, or kept by a window); as t2g_arg_comm. */
int t2g_comm_of(gstate *g, rstate *R, const ir_rec *r, int64_t h, int64_t rk, int64_t sz, cref *cr, ir_err *e)
{
	cr->size = (uint32_t)sz;
	cr->me = (uint32_t)rk;
	if (R->flavor == IR_TRACE_ALLPROF) {
		comm *c;
		if (h == 0) {
			c = &R->world;
		} else if (h == 1) {
			c = &R->self;
		} else {
			const uint32_t *ci = ir_hmap_get(&R->cmap, (uint64_t)h + 1, 0);
			if (!ci)
				return t2g_errat(R, e, "%s: communicator %" PRId64 " has no '# comm' line before its use", r->name, h);
			c = &R->comms[*ci];
		}
		if (c->n != (uint32_t)sz)
			return t2g_errat(R, e, "%s: communicator %" PRId64 " has %u members, the call says %" PRId64, r->name, h,
			                 c->n, sz);
		if ((c->members ? c->members[rk] : (uint32_t)rk) != R->rank)
			return t2g_errat(R, e, "%s: rank %" PRId64 " in communicator %" PRId64 " is not world rank %u", r->name,
			                 rk, h, R->rank);
		cr->members = c->members;
		cr->c = c;
		return 0;
	}
	/* liballprof: only MPI_COMM_WORLD-sized communicators (same ranks) and self are usable.
	 * The handle decides nothing: it differs between ranks, and between the C and Fortran
	 * bindings of one rank. --compat schedgen takes any communicator of the world's size for
	 * the world, with this trace's rank, whatever rank the call recorded in it, as Schedgen
	 * does (docs/schedgen-compat.md section 3.1); the default mode skips one whose ranks are
	 * not the world's, since without member lists its peers cannot be mapped. */
	if (sz == (int64_t)g->nranks && (rk == (int64_t)R->rank || g->o->compat_schedgen)) {
		cr->me = R->rank;
		cr->members = NULL;
		cr->c = &R->world;
		return 0;
	}
	if (sz == 1) {
		cr->members = R->self.members;
		cr->c = &R->self;
		return 0;
	}
	if (!g->skipped_comm++)
		t2g_warn(g, "%s:%lu: %s on a communicator of %" PRId64 " ranks skipped: liballprof traces have no member "
		         "lists (further calls on such communicators are skipped silently; see the count at the end)",
		         R->fname, R->line, r->name, sz);
	return 1;
}

#define P2PF(c, peer) { F_##c##_buf, F_##c##_count, F_##c##_type, F_##c##_##peer, F_##c##_tag, F_##c##_comm }
static const p2pf f_send = P2PF(MPI_Send, dest), f_recv = P2PF(MPI_Recv, source), f_isend = P2PF(MPI_Isend, dest),
                  f_irecv = P2PF(MPI_Irecv, source), f_send_init = P2PF(MPI_Send_init, dest),
                  f_recv_init = P2PF(MPI_Recv_init, source);
#undef P2PF

/* buf count type peer tag comm at the fields f says */
static int parse_p2p(gstate *g, rstate *R, const ir_rec *r, const p2pf *f, p2p *m, ir_err *e)
{
	int64_t cnt, peer, tag;
	uint64_t tsz;
	int rc;
	if (arg_u64(R, r, f->buf, &m->buf, e) || arg_count(R, r, f->count, &cnt, e) ||
	    arg_type(R, r, f->type, &tsz, e) || arg_int(R, r, f->peer, &peer, e) || arg_int(R, r, f->tag, &tag, e))
		return -1;
	rc = t2g_arg_comm(g, R, r, f->comm, &m->cr, e);
	if (rc)
		return rc;
	if (peer >= (int64_t)m->cr.size)
		return t2g_errat(R, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, peer, m->cr.size);
	if (tag < -1)
		tag = ANY;
	m->size = (uint64_t)cnt * tsz;
	m->peer = peer == -1 ? ANY : (peer < 0 ? -2 : world_of(&m->cr, peer));
	m->tag = p2p_tag(g, R, &m->cr, tag);
	return 0;
}

/* ------------------------------------------------------------------ one call */

static int note_unknown(gstate *g, const char *name, ir_err *e)
{
	for (size_t i = 0; i < g->nunknown; i++)
		if (strcmp(g->unknown[i].name, name) == 0) {
			g->unknown[i].count++;
			return 0;
		}
	{
		unk *n = realloc(g->unknown, (g->nunknown + 1) * sizeof *n);
		if (!n)
			return ir_errf(e, "out of memory");
		g->unknown = n;
		n[g->nunknown].name = strdup(name);
		if (!n[g->nunknown].name)
			return ir_errf(e, "out of memory");
		n[g->nunknown].count = 1;
		g->nunknown++;
	}
	return 0;
}

static int do_call(gstate *g, rstate *R, const ir_rec *r, ir_err *e)
{
	const callinfo *ci = t2g_find_call(r->name);
	int compat = g->o->compat_schedgen;
	p2p m;
	emitted em;
	int rc;
	uint64_t key, npoll = 1;

	R->cur_calls = R->ncalls; /* every call's return, known or not, is followed by tracer time */
	R->ncalls++;
	if (!ci) {
		if (is_local(r->name))
			return 0;
		return note_unknown(g, r->name, e);
	}
	if (R->flavor == IR_TRACE_ALLPROF && (ci->k == C_TEST || ci->k == C_TESTALL || ci->k == C_TESTANY ||
	                                      ci->k == C_TESTSOME || ci->k == C_IPROBE || ci->k == C_IMPROBE) &&
	    r->nf == ci->nf + 1) {
		/* allprof writes polls with a repeat count before the return time */
		int64_t v;
		if (!ir_tf_int(r->f[ci->nf], &v) && v > 0)
			npoll = (uint64_t)v;
		((ir_rec *)r)->nf--;
		R->ncalls += npoll - 1;
	}
	if (R->flavor != IR_TRACE_ALLPROF && ci->k == C_COLL &&
	    (ci->coll == IR_COLL_COMM_CREATE || ci->coll == IR_COLL_COMM_SPLIT))
		return 0; /* liballprof's layouts of communicator calls differ: local, as before */
	if (ci->k != C_LOCAL && ci->nf && r->nf != ci->nf)
		return t2g_errat(R, e, "%s: expected %u arguments, found %u", r->name, ci->nf, r->nf);
	if (ci->k != C_INIT && ci->k != C_FINALIZE && (r->t_call == IR_TIME_NONE || r->t_ret == IR_TIME_NONE))
		return t2g_errat(R, e, "%s: expected a call time and a return time, found '-'", r->name);
	if (ci->k != C_INIT && !R->started) {
		R->started = 1;
		R->gap_start = r->t_call != IR_TIME_NONE ? r->t_call : 0;
		t2g_gap_mark(R, r->t_call, r->cpu_call, 0);
		if (t2g_sync_lead(g, R, R->gap_start, e))
			return -1;
	}
	if (R->phase == 1 && t2g_poll_step(g, R, r, ci, npoll, e))
		return -1;
	ir_cg_reset(&g->cg);
	switch (ci->k) {
	case C_LOCAL:
		return 0;
	case C_INIT:
		if (r->t_ret == IR_TIME_NONE)
			return t2g_errat(R, e, "%s: expected a return time, found '-'", r->name);
		R->gap_start = r->t_ret;
		t2g_gap_mark(R, r->t_ret, r->cpu_ret, 1);
		R->started = 1;
		return t2g_sync_lead(g, R, r->t_ret, e);
	case C_FINALIZE: {
		int64_t t = r->t_call, gap;
		uint32_t l;
		if (t == IR_TIME_NONE)
			return t2g_errat(R, e, "%s: expected a call time, found '-'", r->name);
		gap = t - R->gap_start;
		if (gap < 0) {
			g->neg_gaps++;
			gap = 0;
		}
		if (t2g_gap_cpu(g, R, r, t, r->cpu_call, &gap, e))
			return -1;
		t2g_gap_self(g, R, &gap);
		l = new_label(R);
		if (def_calc(R, l, scale_calc(g, (double)gap)))
			return ir_errf(e, "out of memory");
		for (size_t i = 0; i < R->nends; i++)
			if (edge(R, l, R->ends[i], R->ends_ireq[i]))
				return ir_errf(e, "out of memory");
		g->st->ops++;
		R->finished = 1;
		return 0;
	}
	case C_SEND:
		rc = parse_p2p(g, R, r, &f_send, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (stage_send(g, R, &m, e))
			return -1;
		return t2g_emit_call(g, R, r, ENDS_OPS, 0, pin_cost(g, R, m.buf, m.size), &em, e);
	case C_RECV: {
		int64_t s, t;
		uint64_t b;
		rc = parse_p2p(g, R, r, &f_recv, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if ((m.peer == ANY || m.tag == ANY) && t2g_status_of(g, R, r, F_MPI_Recv_status, &m.cr, &s, &t, &b)) {
			m.peer = s;
			m.tag = t;
			m.size = b;
		}
		if (stage_recv(g, R, &m, e))
			return -1;
		return t2g_emit_call(g, R, r, ENDS_OPS, 0, pin_cost(g, R, m.buf, m.size), &em, e);
	}
	case C_ISEND:
	case C_IRECV:
		rc = parse_p2p(g, R, r, ci->k == C_ISEND ? &f_isend : &f_irecv, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (arg_req(R, r, ci->k == C_ISEND ? F_MPI_Isend_request : F_MPI_Irecv_request, &key, e))
			return -1;
		return t2g_start_nb(g, R, r, key, ci->k == C_ISEND, &m, 0, pin_cost(g, R, m.buf, m.size), e);
	case C_SEND_INIT:
	case C_RECV_INIT: {
		req *q;
		rc = parse_p2p(g, R, r, ci->k == C_SEND_INIT ? &f_send_init : &f_recv_init, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (arg_req(R, r, ci->k == C_SEND_INIT ? F_MPI_Send_init_request : F_MPI_Recv_init_request, &key, e))
			return -1;
		q = t2g_req_new(g, R, key, e);
		if (!q)
			return key ? -1 : 0;
		q->persistent = 1;
		q->is_send = ci->k == C_SEND_INIT;
		q->peer = (int32_t)m.peer;
		q->tag = m.tag;
		q->size = m.size;
		q->label = NOLABEL;
		return 0; /* local: its time runs on as computation */
	}
	case C_START:
	case C_STARTALL: {
		int64_t count = 1;
		uint64_t *keys = NULL;
		if (ci->k == C_START) {
			if (arg_req(R, r, F_MPI_Start_request, &key, e))
				return -1;
			keys = malloc(sizeof *keys);
			if (!keys)
				return ir_errf(e, "out of memory");
			keys[0] = key;
		} else if (arg_count(R, r, F_MPI_Startall_count, &count, e) ||
		           t2g_req_array(R, r, F_MPI_Startall_requests, count, &keys, e)) {
			return -1;
		}
		ir_cg_reset(&g->cg);
		for (int64_t j = 0; j < count; j++) {
			req *q = req_get(R, keys[j]);
			p2p pm;
			if (!q || !q->persistent)
				continue;
			pm.peer = q->peer;
			pm.tag = q->tag;
			pm.size = q->size;
			if ((q->is_send ? stage_send(g, R, &pm, e) : stage_recv(g, R, &pm, e))) {
				free(keys);
				return -1;
			}
		}
		if (t2g_emit_call(g, R, r, ENDS_OPS_IREQ, 0, 0, &em, e)) {
			free(keys);
			return -1;
		}
		{
			uint32_t next = em.base;
			for (int64_t j = 0; j < count; j++) {
				req *q = req_get(R, keys[j]);
				if (!q || !q->persistent)
					continue;
				q->label = q->peer < -1 ? NOLABEL : next++;
				q->seq = ++R->reqseq;
				if (g->ts && q->label != NOLABEL) {
					ir_ts_unref(g->ts, q->node);
					q->node = g->tdone[q->label - em.base];
					ir_ts_ref(g->ts, q->node);
				}
			}
		}
		free(keys);
		return 0;
	}
	case C_SENDRECV:
	case C_SENDRECV_REPLACE: {
		/* Sendrecv: sbuf scount stype dest stag rbuf rcount rtype source rtag comm status
		 * Sendrecv_replace: buf count type dest stag source rtag comm status */
		static const p2pf f_sr = { F_MPI_Sendrecv_sbuf, F_MPI_Sendrecv_scount, F_MPI_Sendrecv_stype,
			                   F_MPI_Sendrecv_dest, F_MPI_Sendrecv_stag, F_MPI_Sendrecv_comm },
			          f_srr = { F_MPI_Sendrecv_replace_buf, F_MPI_Sendrecv_replace_count,
			                    F_MPI_Sendrecv_replace_type, F_MPI_Sendrecv_replace_dest,
			                    F_MPI_Sendrecv_replace_stag, F_MPI_Sendrecv_replace_comm };
		const p2pf *sf = ci->k == C_SENDRECV ? &f_sr : &f_srr; /* the send's fields */
		unsigned stf = ci->k == C_SENDRECV ? F_MPI_Sendrecv_status : F_MPI_Sendrecv_replace_status;
		p2p s, rv;
		int64_t cnt, peer, tag, st_s, st_t;
		uint64_t tsz, b;
		rc = t2g_arg_comm(g, R, r, sf->comm, &s.cr, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		rv.cr = s.cr;
		if (arg_u64(R, r, sf->buf, &s.buf, e) || arg_count(R, r, sf->count, &cnt, e) ||
		    arg_type(R, r, sf->type, &tsz, e) || arg_int(R, r, sf->peer, &peer, e) || arg_int(R, r, sf->tag, &tag, e))
			return -1;
		if (peer >= (int64_t)s.cr.size)
			return t2g_errat(R, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, peer, s.cr.size);
		s.size = (uint64_t)cnt * tsz;
		s.peer = peer < 0 ? -2 : world_of(&s.cr, peer);
		s.tag = p2p_tag(g, R, &s.cr, tag);
		if (ci->k == C_SENDRECV) {
			if (arg_u64(R, r, F_MPI_Sendrecv_rbuf, &rv.buf, e) || arg_count(R, r, F_MPI_Sendrecv_rcount, &cnt, e) ||
			    arg_type(R, r, F_MPI_Sendrecv_rtype, &tsz, e) || arg_int(R, r, F_MPI_Sendrecv_source, &peer, e) ||
			    arg_int(R, r, F_MPI_Sendrecv_rtag, &tag, e))
				return -1;
		} else {
			rv.buf = s.buf;
			if (arg_int(R, r, F_MPI_Sendrecv_replace_source, &peer, e) ||
			    arg_int(R, r, F_MPI_Sendrecv_replace_rtag, &tag, e))
				return -1;
		}
		if (peer >= (int64_t)s.cr.size)
			return t2g_errat(R, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, peer, s.cr.size);
		rv.size = (uint64_t)cnt * tsz;
		rv.peer = peer == -1 ? ANY : (peer < 0 ? -2 : world_of(&s.cr, peer));
		rv.tag = p2p_tag(g, R, &s.cr, tag < -1 ? -1 : tag);
		if ((rv.peer == ANY || rv.tag == ANY) && t2g_status_of(g, R, r, stf, &s.cr, &st_s, &st_t, &b)) {
			rv.peer = st_s;
			rv.tag = st_t;
			rv.size = b;
		}
		if (stage_send(g, R, &s, e) || stage_recv(g, R, &rv, e))
			return -1;
		return t2g_emit_call(g, R, r, ENDS_OPS, 0, pin_cost(g, R, s.buf, s.size) + pin_cost(g, R, rv.buf, rv.size),
		                     &em, e);
	}
	case C_WAIT:
	case C_WAITALL:
	case C_WAITANY:
	case C_WAITSOME:
		return t2g_do_wait_family(g, R, r, ci, e);
	case C_TEST:
	case C_TESTALL:
	case C_TESTANY:
	case C_TESTSOME:
		if (compat)
			return 0; /* Schedgen ignores tests */
		return t2g_do_wait_family(g, R, r, ci, e);
	case C_PROBE:
		if (compat)
			return 0;
		/* the waiting happens again in the receive that follows: drop the probe's own time */
		g->no_dur = 1;
		rc = t2g_emit_call(g, R, r, ENDS_GAP, 0, 0, &em, e);
		g->no_dur = 0;
		return rc;
	case C_IPROBE:
		return 0;
	case C_REQFREE:
		if (arg_req(R, r, F_MPI_Request_free_request, &key, e))
			return -1;
		if (t2g_req_del(g, R, key))
			return ir_errf(e, "out of memory");
		return 0;
	case C_COLL:
		return t2g_do_coll(g, R, r, ci, e);
	case C_NEIGH:
		return t2g_do_neigh(g, R, r, ci, e);
	case C_MPROBE:
	case C_IMPROBE:
		return t2g_do_mprobe(g, R, r, ci, e);
	case C_MRECV:
	case C_IMRECV:
		return t2g_do_mrecv(g, R, r, ci, e);
	case C_CART_CREATE:
	case C_CART_SUB:
	case C_GRAPH_CREATE:
	case C_DIST_GRAPH_ADJ:
	case C_DIST_GRAPH:
		return t2g_do_topo(g, R, r, ci, e);
	case C_FOPEN:
	case C_FCLOSE:
	case C_FVIEW:
	case C_FSEEK:
	case C_FSYNC:
	case C_FIO:
	case C_FIO_AT:
	case C_FIIO:
	case C_FIIO_AT:
	case C_FDELETE:
	case C_FMETA:
		return t2g_do_io(g, R, r, ci, e);
	case C_WCREATE:
	case C_WDYNAMIC:
	case C_WFREE:
	case C_WFENCE:
		return t2g_do_win(g, R, r, ci, e);
	}
	return 0;
}

/* ------------------------------------------------------------------ ranks */

void t2g_rank_release(gstate *g, rstate *R)
{
	if (g->ts)
		for (size_t i = 0; i < R->reqmap.cap; i++) {
			const uint32_t *v = ir_hmap_at(&R->reqmap, i);
			if (v)
				t2g_req_drop_nodes(g, &R->reqs[*v]);
		}
	ir_hmap_release(&R->reqmap);
	free(R->reqs);
	R->reqs = NULL;
	R->nreqs = R->capreqs = 0;
	R->nfree = 0;
	for (size_t i = 0; i < R->ncomms; i++) {
		free(R->comms[i].members);
		t2g_topo_free(R->comms[i].tp);
	}
	R->ncomms = 0;
	t2g_topo_free(R->ptopo);
	R->ptopo = NULL;
	ir_hmap_release(&R->cmap);
	ir_hmap_release(&R->occ);
	t2g_win_release(R);
	ir_ivset_clear(&R->pinset);
	R->owed = 0;
	R->st_call = R->st_end = R->st_begin = R->st_taken = 0;
	R->st_ahead = INT64_MAX;
	R->st_send_only = 0;
	R->nends = 0;
	ir_trace_free(R->t);
	R->t = NULL;
}

/* Free what rank_release keeps for reuse. */
void t2g_rank_free(rstate *R)
{
	free(R->ends);
	free(R->ends_ireq);
	free(R->freereq);
	free(R->comms);
	free(R->chunks);
	free(R->wins);
	ir_ivset_release(&R->pinset);
	ir_sb_release(&R->out);
	R->ends = R->freereq = NULL;
	R->ends_ireq = NULL;
	R->comms = NULL;
	R->chunks = NULL;
	R->wins = NULL;
	R->capwins = 0;
}

static int match_name(gstate *g, pcre2_code *re, const char *name)
{
	return pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, g->md, NULL) >= 0;
}

/* Open rank tf's trace and reset the per-rank state. */
int t2g_rank_begin(gstate *g, rstate *R, const ir_trace_file *tf, int64_t epoch, ir_err *e)
{
	/* Schedgen applies no clock offsets */
	ir_trace_opts to = { epoch, g->o->no_clock || g->o->compat_schedgen };
	R->rank = tf->rank;
	R->fname = tf->path;
	R->tf = tf;
	R->tloop = 0;
	R->line = 0;
	R->nl = 0;
	R->nends = 0;
	R->started = R->finished = 0;
	R->gap_start = 0;
	R->gw = R->gc = IR_TIME_NONE;
	R->prun = 0;
	R->phase = g->from_re ? 0 : 1;
	R->from_seen = 0;
	R->reqseq = 0;
	R->warned_any = R->warned_test = 0;
	R->lead = 0;
	memset(&R->world, 0, sizeof R->world);
	R->world.n = g->nranks;
	memset(&R->self, 0, sizeof R->self);
	R->self.n = 1;
	R->self.key = 1;
	R->self.members = &R->rank;
	R->topts = to;
	R->t = ir_trace_open_file(tf, &to, e);
	if (!R->t)
		return -1;
	R->ncalls = R->cur_calls = R->gap_base = 0;
	R->self_owed = 0;
	R->self_ps = ir_trace_self_ps(R->t);
	if (!g->rs && (put(R, "rank ", 5) || putu(R, tf->rank) || put(R, " {\n", 3)))
		return ir_errf(e, "out of memory");
	return 0;
}

/* One record of rank R. */
int t2g_rank_record(gstate *g, rstate *R, ir_rec *r, ir_err *e)
{
	R->line = r->line;
	R->flavor = ir_trace_flavor(R->t);
	if (ir_trace_span(R->t))
		return t2g_errat(R, e, "a span trace (allprof --span) holds only MPI_Init and MPI_Finalize: "
				       "nothing to convert; trace the run without --span (formats/trace.md 3.7)");
	if (r->kind == IR_REC_COMM)
		return t2g_add_comm(g, R, r, e);
	g->st->calls++;
	R->gap_flush += r->tracer_ps; /* the flushes in the gap before this call */
	if (R->finished) {
		if (R->phase == 2)
			return 0;
		return t2g_errat(R, e, "%s after MPI_Finalize", r->name);
	}
	if (R->phase == 0) {
		if (strncmp(r->name, "MPI_Init", 8) == 0 && (r->name[8] == 0 || r->name[8] == '_'))
			R->started = 1; /* keep the Init out of the phase */
		if (!match_name(g, g->from_re, r->name) || ++R->from_seen < g->o->from_nth)
			return 0;
		R->phase = 1;
		R->started = 1;
		R->gap_start = r->t_call != IR_TIME_NONE ? r->t_call : r->t_ret;
		R->cur_calls = R->ncalls; /* this call's return is not counted yet */
		if (r->t_call != IR_TIME_NONE)
			t2g_gap_mark(R, r->t_call, r->cpu_call, 0);
		else
			t2g_gap_mark(R, r->t_ret, r->cpu_ret, 0);
		if (t2g_sync_lead(g, R, R->gap_start, e))
			return -1;
	}
	if (do_call(g, R, r, e))
		return -1;
	if (R->phase == 1 && !R->finished && g->to_re && match_name(g, g->to_re, r->name)) {
		/* the phase ends with this call: a last calc up to its return */
		int64_t gap = (r->t_ret != IR_TIME_NONE ? r->t_ret : r->t_call) - R->gap_start;
		uint32_t l = new_label(R);
		if (r->t_ret != IR_TIME_NONE ? t2g_gap_cpu(g, R, r, r->t_ret, r->cpu_ret, &gap, e)
		                             : t2g_gap_cpu(g, R, r, r->t_call, r->cpu_call, &gap, e))
			return -1;
		t2g_gap_self(g, R, &gap);
		if (def_calc(R, l, scale_calc(g, gap > 0 ? (double)gap : 0)))
			return ir_errf(e, "out of memory");
		for (size_t i = 0; i < R->nends; i++)
			if (edge(R, l, R->ends[i], R->ends_ireq[i]))
				return ir_errf(e, "out of memory");
		R->phase = 2;
		R->finished = 1;
	}
	return 0;
}

/* Rank R's trace ended: checks, wildcard receives never completed, the cross-rank
 * summaries. */
int t2g_rank_end(gstate *g, rstate *R, ir_err *e)
{
	if (R->phase == 0)
		return ir_errf(e, "%s: no call matches --from (wanted match %lu, found %lu)", R->fname, g->o->from_nth,
		               R->from_seen);
	if (!R->finished)
		return ir_errf_at(e, R->fname, R->line, "trace ends without MPI_Finalize (cut short?)");
	/* wildcard receives never completed: define them as wildcards */
	for (size_t i = 0; i < R->reqmap.cap; i++) {
		const uint32_t *v = ir_hmap_at(&R->reqmap, i);
		req *q;
		if (!v)
			continue;
		q = &R->reqs[*v];
		if (q->deferred && q->label != NOLABEL) {
			if (def_recv(R, q->label, ANY, q->size, q->tag))
				return ir_errf(e, "out of memory");
			g->wild[R->rank]++;
		}
	}
	if (!g->rs && put(R, "}\n", 2))
		return ir_errf(e, "out of memory");
	if (t2g_check_cseq(g, R, &R->world, e))
		return -1;
	for (size_t i = 0; i < R->ncomms; i++)
		if (t2g_check_cseq(g, R, &R->comms[i], e))
			return -1;
	return t2g_flush_out(g, R, e);
}

int t2g_convert_rank(gstate *g, rstate *R, const ir_trace_file *tf, int64_t epoch, ir_err *e)
{
	ir_rec r;
	int rc;
	if (t2g_rank_begin(g, R, tf, epoch, e))
		return -1;
	while ((rc = ir_trace_next(R->t, &r, e)) == 1)
		if (t2g_rank_record(g, R, &r, e))
			return -1;
	if (rc < 0)
		return -1;
	return t2g_rank_end(g, R, e);
}
