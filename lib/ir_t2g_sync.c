/*
 * ir_t2g_sync.c: --sync, trace2goal's zero-cost replay times (part of ir_t2g,
 * see ir_t2g_internal.h).
 *
 * Two halves: the dataflow, which gives each emitted call zero-cost time nodes
 * (ir_tsync.h) and writes a call's post calc once its time resolves
 * (sync_done() may do that for another rank than the one being read: the
 * node's payload names the owner, whose rstate it writes into); and the
 * merge, which reads all ranks at once, the next record always from the rank
 * with the earliest time (a binary heap of ranks), and hands each record with
 * its rank's rstate to the dispatcher; it spills each rank's text to a
 * temporary file and assembles the output at the end. Without --sync nothing
 * here runs but t2g_sync_lead().
 */
#include "ir_t2g_internal.h"

#include <sys/resource.h>

/* --sync: the delays of a send of `size` bytes (ir_ts_send_cost), as ibsim times it
 * (formats/results.md 5.3, 5.8): its message arrives ir_model_arrival after the send's
 * start; a rendezvous send is done at the later of the receive's post and its message's
 * handling (LogGOPS: the arrival; piecewise: the end of the receiver's recv_o; with the
 * rendezvous protocol, the later of the arrival and the post, plus recv_o), and its call
 * ends no earlier than its own CPU time, which the post calc's model subtracts: hence both
 * delays count from post + send_cpu. All 0 on a network that costs nothing. */
static void sync_delays(gstate *g, uint64_t size, int self, int64_t d[3])
{
	const ir_loggops *net = &g->o->net;
	uint64_t arr = ir_model_arrival(net, size, self), so = ir_model_send_cpu(net, size, self), done = arr;
	if (ir_model_pw(net))
		done = ir_model_sat_add(arr, ir_model_recv_cpu(net, size, self, 0));
	if (arr > INT64_MAX / 4)
		arr = INT64_MAX / 4;
	if (done > INT64_MAX / 4)
		done = INT64_MAX / 4;
	if (so > INT64_MAX / 4)
		so = INT64_MAX / 4;
	d[0] = (int64_t)arr;
	d[1] = (int64_t)done - (int64_t)so;
	d[2] = -(int64_t)so;
	/* the piecewise model's rendezvous protocol (formats/params.md): the data leaves at the
	 * match, so a receive posted after the arrival still takes recv_o(s) from its post */
	if (ir_model_rndv_hs(net) && size > net->S && !(self && net->copy.n)) {
		uint64_t ro = ir_model_recv_cpu(net, size, 0, 0);
		d[2] = (int64_t)(ro > INT64_MAX / 4 ? INT64_MAX / 4 : ro) - (int64_t)so;
	}
}

/* ---- --sync: zero-cost times (ir_tsync.h) ---- */

/* --sync reads every rank's trace at once (merged by time): raise the soft limit of open
 * files to what that needs, up to the hard limit, or say why it cannot. */
static int open_files_for(uint32_t n, ir_err *e)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return ir_errf(e, "--sync reads all %" PRIu32 " traces at once and needs about %llu open files, but the "
		                  "limit is %llu (raise it with ulimit -Hn, or convert without --sync)",
		               n, (unsigned long long)need, (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return ir_errf(e, "--sync needs about %llu open files: cannot raise the limit: %s", (unsigned long long)need,
		               strerror(errno));
	return 0;
}

/* Drop the creator references to the nodes of the last emitted call. */
void t2g_sync_drop(gstate *g)
{
	for (size_t i = 0; i < g->ntn; i++) {
		if (g->tdone[i] != g->tpost[i])
			ir_ts_unref(g->ts, g->tdone[i]);
		ir_ts_unref(g->ts, g->tpost[i]);
	}
	g->ntn = 0;
	ir_ts_unref(g->ts, g->tjoin);
	g->tjoin = 0;
}

/* A resolved post-call calc: its length is the call's return minus the zero-cost completion
 * (minus the modelled network time, folded into `base`). An error (out of memory, a failed
 * spill) stops the dataflow's callbacks; the merge reads it with ir_ts_error(). */
static int sync_done(void *ctx, int64_t t, uint64_t u0, uint64_t u1, ir_err *e)
{
	gstate *g = ctx;
	rstate *R = &g->rs[u0 >> 32]; /* the owner of the calc, not necessarily the rank being read */
	int64_t v = (int64_t)u1 - t;
	if (def_calc(R, (uint32_t)u0, scale_calc(g, v > 0 ? (double)v : 0)))
		return ir_errf(e, "out of memory");
	if (R->out.len >= SPILL_AT && t2g_flush_out(g, R, e))
		return -1;
	return 0;
}

/* Nodes for the staged ops (post and done of each, linked by the call's dependencies and
 * posted to the channels), then the post-call calc `plabel`: blocking calls wait for their
 * ops (or for the join), the others only for their own entry. */
int t2g_sync_call(gstate *g, rstate *R, const ir_rec *r, int blocking, double model, uint32_t plabel, ir_tn *join,
                  ir_err *e)
{
	ir_cg *c = &g->cg;
	ir_ts *ts = g->ts;
	int64_t E = r->t_call;
	ir_tn P;
	t2g_sync_drop(g);
	if (c->nop > g->captn) {
		size_t nc = c->nop * 2;
		ir_tn *a = realloc(g->tpost, nc * sizeof *a), *b;
		if (!a)
			return ir_errf(e, "out of memory");
		g->tpost = a;
		b = realloc(g->tdone, nc * sizeof *b);
		if (!b)
			return ir_errf(e, "out of memory");
		g->tdone = b;
		g->captn = nc;
	}
	for (size_t i = 0; i < c->nop; i++) {
		const ir_cop *op = &c->op[i];
		ir_tn p = ir_ts_node(ts, E), d = p;
		if (!p)
			return ir_errf(e, "out of memory");
		if (op->type == IR_OP_RECV || (op->type == IR_OP_SEND && op->size > g->o->net.S)) {
			d = ir_ts_node(ts, E);
			if (!d) {
				ir_ts_unref(ts, p);
				return ir_errf(e, "out of memory");
			}
			if (ir_ts_input(ts, d, p))
				return ir_errf(e, "out of memory");
		}
		g->tpost[i] = p;
		g->tdone[i] = d;
		g->ntn = i + 1;
	}
	/* an op that requires another starts when ibsim completes that one: its done node plus
	 * the CPU time ibsim charges it (a combine's length, the forwarded message's recv_cpu) */
	for (size_t i = 0; i < c->ndep; i++) {
		uint64_t cpu = t2g_op_cpu(g, R, c->dep[i].from);
		if (ir_ts_input_after(ts, g->tpost[c->dep[i].to], g->tdone[c->dep[i].from],
		                      cpu > INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)cpu))
			return ir_errf(e, "out of memory");
	}
	if (c->nop)
		for (size_t k = 0; k < g->nxin; k++)
			if (ir_ts_input(ts, g->tpost[0], g->xin[k]))
				return ir_errf(e, "out of memory");
	for (size_t i = 0; i < c->nop; i++)
		ir_ts_release(ts, g->tpost[i]);
	for (size_t i = 0; i < c->nop; i++) {
		const ir_cop *op = &c->op[i];
		int rc = 0;
		if (op->type == IR_OP_SEND) {
			int64_t d[3];
			sync_delays(g, op->size, (uint32_t)g->cpeer[i] == R->rank, d);
			rc = ir_ts_send_cost(ts, R->rank, (uint32_t)g->cpeer[i], g->ctag[i], g->tpost[i], g->tdone[i],
			                     d[0], d[1], d[2]);
		} else if (op->type == IR_OP_RECV && op->peer != 1) { /* peer 1: deferred wildcard, see t2g_complete() */
			if (g->cpeer[i] < 0 || g->ctag[i] < 0) {
				/* a liballprof wildcard: the partner is unknown, no waiting is synchronised */
				g->sync_wild++;
				ir_ts_release(ts, g->tdone[i]);
			} else {
				rc = ir_ts_recv(ts, (uint32_t)g->cpeer[i], R->rank, g->ctag[i], g->tpost[i], g->tdone[i]);
			}
		}
		if (rc)
			return ir_errf(e, "out of memory");
	}
	if (join) {
		*join = ir_ts_node(ts, E);
		if (!*join)
			return ir_errf(e, "out of memory");
		for (size_t i = 0; i < c->nop; i++)
			if (ir_ts_input(ts, *join, g->tdone[i]))
				return ir_errf(e, "out of memory");
		ir_ts_release(ts, *join);
		g->tjoin = *join;
	}
	P = ir_ts_node(ts, E);
	if (!P)
		return ir_errf(e, "out of memory");
	if (blocking) {
		if (join && *join) {
			if (ir_ts_input(ts, P, *join))
				return ir_errf(e, "out of memory");
		} else {
			for (size_t i = 0; i < c->nop; i++)
				if (ir_ts_input(ts, P, g->tdone[i]))
					return ir_errf(e, "out of memory");
		}
	}
	ir_ts_notify(ts, P, ((uint64_t)R->rank << 32) | plabel, (uint64_t)(r->t_ret - (int64_t)llround(model)));
	ir_ts_release(ts, P);
	ir_ts_unref(ts, P);
	return ir_ts_error(ts, e);
}

/* --sync: the leading calc (this rank's start relative to the earliest start), defined for
 * every rank once all have started. */
int t2g_sync_lead(gstate *g, rstate *R, int64_t t, ir_err *e)
{
	if (!g->rs || R->lead)
		return 0;
	R->lead = new_label(R);
	R->t_start = t;
	if (set_ends(R, 1))
		return ir_errf(e, "out of memory");
	R->ends[0] = R->lead;
	R->ends_ireq[0] = 0;
	g->st->ops++;
	if (++g->nstarted == g->nranks) {
		int64_t min = INT64_MAX;
		for (uint32_t i = 0; i < g->nranks; i++)
			if (g->rs[i].t_start < min)
				min = g->rs[i].t_start;
		for (uint32_t i = 0; i < g->nranks; i++) {
			rstate *Ri = &g->rs[i];
			if (def_calc(Ri, Ri->lead, scale_calc(g, (double)(Ri->t_start - min))))
				return ir_errf(e, "out of memory");
		}
	}
	return 0;
}

/* ---- --sync: all ranks read together, in the order of their times ---- */

/* Earliest next call first; among equal times the rank that has read fewer records, so that
 * traces with coarse or equal timestamps still advance together. */
static int heap_less(const gstate *g, uint32_t a, uint32_t b)
{
	const rstate *x = &g->rs[a], *y = &g->rs[b];
	if (x->key != y->key)
		return x->key < y->key;
	if (x->nread != y->nread)
		return x->nread < y->nread;
	return a < b;
}

static void heap_push(gstate *g, uint32_t *h, size_t *n, uint32_t x)
{
	size_t i = (*n)++;
	while (i > 0 && heap_less(g, x, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static uint32_t heap_pop(gstate *g, uint32_t *h, size_t *n)
{
	uint32_t top = h[0], x = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && heap_less(g, h[c + 1], h[c]))
			c++;
		if (!heap_less(g, h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

/* Read rank R's next record ahead: 1, 0 at the end, -1 on error. */
static int sync_next(rstate *R, ir_err *e)
{
	int rc = ir_trace_next(R->t, &R->rec, e);
	R->has_rec = rc == 1;
	R->nread++;
	if (rc == 1 && R->rec.kind == IR_REC_CALL)
		R->key = R->rec.t_call != IR_TIME_NONE ? R->rec.t_call : R->rec.t_ret != IR_TIME_NONE ? R->rec.t_ret : R->key;
	return rc;
}

int t2g_write_out(gstate *g, const void *p, size_t n, ir_err *e)
{
	g->st->goal_bytes += n;
	return ir_writer_write(g->w, p, n, e);
}

int t2g_convert_sync(gstate *g, const ir_trace_files *files, int64_t epoch, ir_err *e)
{
	uint32_t n = g->nranks, *heap;
	size_t nh = 0;
	char *buf = NULL;
	int rc = -1;
	g->rs = calloc(n, sizeof *g->rs);
	heap = malloc(n * sizeof *heap);
	g->ts = ir_ts_new(sync_done, g);
	if (!g->rs || !heap || !g->ts) {
		free(heap);
		return ir_errf(e, "out of memory");
	}
	g->tmp = tmpfile();
	if (!g->tmp) {
		free(heap);
		return ir_errf(e, "cannot create a temporary file: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < n; i++) {
		ir_sb_init(&g->rs[i].out);
		g->rs[i].st_sync = 1;
		g->rs[i].st_ahead = INT64_MAX;
		ir_ivset_init(&g->rs[i].pinset);
		rstate_maps_init(&g->rs[i]);
	}
	if (open_files_for(n, e)) {
		free(heap);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		rstate *R = &g->rs[i];
		int r;
		if (t2g_rank_begin(g, R, &files->f[i], epoch, e))
			goto done;
		R->key = INT64_MIN;
		r = sync_next(R, e);
		if (r < 0)
			goto done;
		if (r)
			heap_push(g, heap, &nh, i);
		else if (t2g_rank_end(g, R, e))
			goto done;
	}
	while (nh) {
		uint32_t i = heap_pop(g, heap, &nh);
		rstate *R = &g->rs[i];
		int r;
		if (t2g_rank_record(g, R, &R->rec, e))
			goto done;
		if (ir_ts_error(g->ts, e))
			goto done;
		r = sync_next(R, e);
		if (r < 0)
			goto done;
		if (r) {
			heap_push(g, heap, &nh, i);
		} else {
			if (t2g_rank_end(g, R, e))
				goto done;
			t2g_rank_release(g, R);
		}
	}
	ir_ts_finish(g->ts); /* unmatched messages: reported by the pair check */
	t2g_sync_drop(g);
	if (ir_ts_error(g->ts, e))
		goto done;
	if (fflush(g->tmp) != 0) {
		ir_errf(e, "cannot write the temporary file: %s", strerror(errno));
		goto done;
	}
	buf = malloc(FLUSH_AT);
	if (!buf) {
		ir_errf(e, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < n; i++) {
		rstate *R = &g->rs[i];
		char head[40];
		int hl = snprintf(head, sizeof head, "rank %u {\n", i);
		if (t2g_write_out(g, head, (size_t)hl, e))
			goto done;
		for (size_t c = 0; c < R->nchunks; c++) {
			uint64_t off = R->chunks[c].off, left = R->chunks[c].len;
			if (fseeko(g->tmp, (off_t)off, SEEK_SET) != 0) {
				ir_errf(e, "cannot read the temporary file: %s", strerror(errno));
				goto done;
			}
			while (left) {
				size_t k = left < FLUSH_AT ? (size_t)left : FLUSH_AT;
				if (fread(buf, 1, k, g->tmp) != k) {
					ir_errf(e, "cannot read the temporary file");
					goto done;
				}
				if (ir_writer_write(g->w, buf, k, e))
					goto done;
				left -= k;
			}
		}
		if (t2g_write_out(g, R->out.buf, R->out.len, e) || t2g_write_out(g, "}\n", 2, e))
			goto done;
	}
	rc = 0;
done:
	free(buf);
	free(heap);
	return rc;
}
