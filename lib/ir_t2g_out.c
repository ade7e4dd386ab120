/*
 * ir_t2g_out.c: trace2goal's output side (part of ir_t2g, see ir_t2g_internal.h).
 *
 * Every MPI call is staged as a small graph of ops (the inline stage() of the
 * internal header); t2g_emit_call() gives the ops labels, writes their
 * definitions and the edges that chain them to the gap calc and the previous
 * call, prices them for --durations (ir_model.h, as ibsim does) and, with
 * --sync, hands them to the dataflow of ir_t2g_sync.c. t2g_flush_out() moves
 * a rank's buffered text to the writer, or with --sync to the spill file.
 * The per-line formatters (reserve, commit, def_*, edge) stay static inline in
 * the header: they carry every op and were inlined before the split.
 */
#include "ir_t2g_internal.h"

/* Write rank R's buffered text: to the output, or with --sync (ranks converted
 * together) to the temporary file as a chunk of that rank, assembled at the end. */
int t2g_flush_out(gstate *g, rstate *R, ir_err *e)
{
	if (R->out.len == 0)
		return 0;
	g->st->goal_bytes += R->out.len;
	if (g->rs) {
		if (fwrite(R->out.buf, 1, R->out.len, g->tmp) != R->out.len)
			return ir_errf(e, "cannot write the temporary file: %s", strerror(errno));
		if (R->nchunks && R->chunks[R->nchunks - 1].off + R->chunks[R->nchunks - 1].len == g->tmplen) {
			R->chunks[R->nchunks - 1].len += R->out.len;
		} else {
			if (IR_GROW(R->chunks, R->nchunks + 1, R->capchunks))
				return ir_errf(e, "out of memory");
			R->chunks[R->nchunks].off = g->tmplen;
			R->chunks[R->nchunks].len = R->out.len;
			R->nchunks++;
		}
		g->tmplen += R->out.len;
	} else if (ir_writer_write(g->w, R->out.buf, R->out.len, e)) {
		return -1;
	}
	ir_sb_reset(&R->out);
	return 0;
}

/* Pinning: bytes of [a, a+n) not yet registered; registers them (ir_interval.h: a treap of
 * disjoint intervals, O(log n) per buffer). Out of memory: counted as new, not remembered. */
uint64_t t2g_pin_new_bytes(rstate *R, uint64_t a, uint64_t n)
{
	uint64_t fresh;
	if (ir_ivset_add(&R->pinset, a, n, &fresh))
		return n;
	return fresh;
}

/* Modelled time of the staged ops, priced by ir_model.h as ibsim prices them; a message to
 * the rank itself is a local copy when the model sets `copy`, and calcs (the local work of
 * collectives) are modelled work too.
 * --durations (cpu_only 0): a send what a blocking send call lasts (the sender's CPU time;
 * under the piecewise model a rendezvous send waits for the receiver's charge), a receive
 * what a receive call lasts when its sender starts with it (LogGOPS: o + (s-1)*O_send,
 * o + L + (s-1)*max(O, G), the rendezvous variants above S; or the piecewise model).
 * --sync (cpu_only 1): only what ibsim charges the rank's CPU (t2g_op_cpu) for the ops no
 * other op of the call requires: the dataflow adds the CPU time of the others on the edges
 * to the ops that require them (t2g_sync_call). The network's part, the time from a send's
 * start to its message's arrival, is not in it: the --sync dataflow places the receive's
 * completion after it (sync_delays in ir_t2g_sync.c), so the post calc replays only the time
 * the model does not explain, whether the receive waited for its message or found it there. */
static double model_time(gstate *g, rstate *R, int cpu_only, const ir_loggops *net)
{
	double t = 0;
	for (size_t i = 0; i < g->cg.nop; i++) {
		const ir_cop *op = &g->cg.op[i];
		int self = g->cpeer[i] >= 0 && (uint32_t)g->cpeer[i] == R->rank;
		if (cpu_only) {
			int succ = 0;
			for (size_t k = 0; k < g->cg.ndep && !succ; k++)
				succ = g->cg.dep[k].from == i;
			if (!succ)
				t += (double)t2g_op_cpu(g, R, i);
		} else if (op->type == IR_OP_SEND)
			t += (double)t2g_send_cost(R, net, op->size, self, 1);
		else if (op->type == IR_OP_RECV)
			t += (double)ir_model_recv_call(net, op->size, self);
		else
			t += (double)op->size;
	}
	return t;
}

/* What ibsim charges the rank's CPU for staged op i (docs/loggops-semantics.md 6.2): a send's
 * send_cpu, a receive's recv_cpu, a calc its length. */
uint64_t t2g_op_cpu(gstate *g, rstate *R, size_t i)
{
	const ir_loggops *net = &g->o->net;
	const ir_cop *op = &g->cg.op[i];
	int self = g->cpeer[i] >= 0 && (uint32_t)g->cpeer[i] == R->rank;
	if (op->type == IR_OP_SEND)
		return t2g_send_cost(R, net, op->size, self, 0);
	if (op->type == IR_OP_RECV)
		return ir_model_recv_cpu(net, op->size, self, 0);
	return op->size;
}

/* The merge is at `now`: a take-in it has passed counts as past. */
static void taken_pass(rstate *S, int64_t now)
{
	if (S->st_ahead <= now) {
		if (S->st_ahead > S->st_taken)
			S->st_taken = S->st_ahead;
		S->st_ahead = INT64_MAX;
	}
}

/* --sync: a call of rank `by` that started at `now` (the merge's time) and returned at t took
 * in a message of rank src (formats/params.md, "A send after a gap": a send after a send
 * keeps its discount only while none of the rank's messages was taken in). Of the take-ins
 * still ahead of the merge only the earliest is kept: a receive returns after its start, and
 * each receiver has at most one blocking call open. */
void t2g_taken(gstate *g, int64_t src, uint32_t by, int64_t now, int64_t t)
{
	rstate *S;
	if (!g->rs || src < 0 || (uint64_t)src >= g->nranks || (uint32_t)src == by || t == IR_TIME_NONE)
		return;
	S = &g->rs[src];
	taken_pass(S, now);
	if (t <= now) {
		if (t > S->st_taken)
			S->st_taken = t;
	} else if (t < S->st_ahead) {
		S->st_ahead = t;
	}
}

uint64_t t2g_send_cost(rstate *R, const ir_loggops *net, uint64_t size, int self, int call)
{
	if (ir_model_pw(net) && ir_model_gap(net) && !(self && net->copy.n) && size <= net->S) {
		int64_t gap = R->st_call - R->st_end;
		int after_send = R->st_send_only;
		if (after_send && R->st_sync) { /* ... and none of its messages taken in since */
			taken_pass(R, R->st_call);
			after_send = R->st_taken < R->st_begin;
		}
		return ir_model_send_cpu_gap(net, size, after_send, gap > 0 ? (uint64_t)gap : 0);
	}
	return call ? ir_model_send_call(net, size, self) : ir_model_send_cpu(net, size, self);
}

/* After call r: the last call that only sent, or that may have read a message (one with a
 * receive, or one that completes or probes for one). */
static void step_after(gstate *g, rstate *R, const ir_rec *r)
{
	int snd = 0, rcv = 0;
	if (r->t_ret == IR_TIME_NONE)
		return;
	for (size_t i = 0; i < g->cg.nop; i++) {
		snd |= g->cg.op[i].type == IR_OP_SEND;
		rcv |= g->cg.op[i].type == IR_OP_RECV;
	}
	if (!snd && !rcv && !strstr(r->name, "Recv") && strncmp(r->name, "MPI_Wait", 8) &&
	    strncmp(r->name, "MPI_Test", 8) && !strstr(r->name, "robe"))
		return;
	R->st_end = r->t_ret;
	R->st_send_only = snd && !rcv;
	if (R->st_send_only)
		R->st_begin = r->t_call;
}

/* Emit the staged call. t_call/t_ret are the call's times; extra is the pinning cost. */
int t2g_emit_call(gstate *g, rstate *R, const ir_rec *r, int ends_mode, int want_join, double extra, emitted *em,
                  ir_err *e)
{
	ir_cg *c = &g->cg;
	int64_t gap = r->t_call - R->gap_start;
	double calc, model = 0;
	size_t i;
	uint8_t *haspred = NULL, *hassucc = NULL;
	int sync = g->rs != NULL;
	if (gap < 0) {
		g->neg_gaps++;
		gap = 0;
	}
	if (t2g_gap_cpu(g, R, r, r->t_call, r->cpu_call, &gap, e))
		return -1;
	t2g_gap_self(g, R, &gap);
	calc = (double)gap + extra;
	R->st_call = r->t_call;
	if (g->o->durations && r->t_ret != IR_TIME_NONE) {
		/* The model charges each op to the call that starts it, but the MPI library does the
		 * work in whichever call makes progress: a nonblocking receive is modelled in the
		 * Irecv (which returns at once) and done in a later Send or Wait. So the part of the
		 * model a call could not contain is owed, and taken from the next calls' own time,
		 * in trace order, before any of it is replayed: nothing is charged twice. */
		double d = (double)(r->t_ret - r->t_call);
		model = model_time(g, R, sync, &g->o->net);
		if (d < model) {
			R->owed += model - d;
		} else if (R->owed > 0) {
			double take = d - model < R->owed ? d - model : R->owed;
			R->owed -= take;
			model += take;
		}
		if (!sync && !g->no_dur && d > model)
			calc += d - model;
	} else if (g->keep_local && r->t_ret != IR_TIME_NONE) {
		/* the plain conversion of a call whose local work the network does not change
		 * (ir_t2g_win.c): its traced time beyond what the traced network's model says its
		 * messages cost there */
		double d = (double)(r->t_ret - r->t_call);
		model = model_time(g, R, 0, g->o->has_from ? &g->o->from : &g->o->net);
		if (d > model)
			calc += d - model;
	}
	em->base = R->nl + 1;
	em->sjoin = 0;
	for (i = 0; i < c->nop; i++) {
		uint32_t l = new_label(R);
		const ir_cop *op = &c->op[i];
		int rc;
		if (op->type == IR_OP_SEND)
			rc = def_send(R, l, (uint32_t)g->cpeer[i], op->size, g->ctag[i]);
		else if (op->type == IR_OP_RECV)
			rc = op->peer == 1 ? 0 : def_recv(R, l, g->cpeer[i], op->size, g->ctag[i]);
		else /* a join (0) or a collective's local work: computation, scaled like the gap */
			rc = def_calc(R, l, op->size ? scale_calc(g, (double)op->size) : 0);
		if (rc)
			return ir_errf(e, "out of memory");
	}
	em->gap = new_label(R);
	if (def_calc(R, em->gap, scale_calc(g, calc)))
		return ir_errf(e, "out of memory");
	if (c->nop) {
		if (c->nop > g->capflags) {
			size_t nc = c->nop * 2;
			uint8_t *a = realloc(g->haspred, nc), *b;
			if (!a)
				return ir_errf(e, "out of memory");
			g->haspred = a;
			b = realloc(g->hassucc, nc);
			if (!b)
				return ir_errf(e, "out of memory");
			g->hassucc = b;
			g->capflags = nc;
		}
		haspred = g->haspred;
		hassucc = g->hassucc;
		memset(haspred, 0, c->nop);
		memset(hassucc, 0, c->nop);
		for (i = 0; i < c->ndep; i++) {
			haspred[c->dep[i].to] = 1;
			hassucc[c->dep[i].from] = 1;
			if (edge(R, em->base + c->dep[i].to, em->base + c->dep[i].from, 0))
				goto oom;
		}
		for (i = 0; i < c->nop; i++)
			if (!haspred[i] && edge(R, em->base + (uint32_t)i, em->gap, 0))
				goto oom;
	}
	for (i = 0; i < R->nends; i++)
		if (edge(R, em->gap, R->ends[i], R->ends_ireq[i]))
			goto oom;
	em->join = NOLABEL;
	if (want_join && c->nop) {
		em->join = new_label(R);
		if (def_calc(R, em->join, 0))
			goto oom;
		for (i = 0; i < c->nop; i++)
			if (!hassucc[i] && edge(R, em->join, em->base + (uint32_t)i, 0))
				goto oom;
	}
	if (sync) {
		/* ops, then a calc for the call's duration from the zero-cost completion */
		int blocking = c->nop && (ends_mode == ENDS_OPS || ends_mode == ENDS_JOIN);
		uint32_t P = new_label(R);
		for (i = 0; blocking && i < c->nop; i++) /* its receives took their messages in */
			if (c->op[i].type == IR_OP_RECV && c->op[i].peer != 1)
				t2g_taken(g, g->cpeer[i], R->rank, r->t_call, r->t_ret);
		em->sjoin = 0;
		if (t2g_sync_call(g, R, r, blocking, model, P, em->join != NOLABEL ? &em->sjoin : NULL, e))
			return -1;
		if (!blocking) {
			if (edge(R, P, em->gap, 0))
				goto oom;
		} else if (em->join != NOLABEL) {
			if (edge(R, P, em->join, 0))
				goto oom;
		} else {
			for (i = 0; i < c->nop; i++)
				if (!hassucc[i] && edge(R, P, em->base + (uint32_t)i, 0))
					goto oom;
		}
		if (ends_mode == ENDS_OPS_IREQ && c->nop) {
			if (set_ends(R, c->nop + 1))
				return ir_errf(e, "out of memory");
			for (i = 0; i < c->nop; i++) {
				R->ends[i] = em->base + (uint32_t)i;
				R->ends_ireq[i] = 1;
			}
			R->ends[c->nop] = P;
			R->ends_ireq[c->nop] = 0;
		} else {
			if (set_ends(R, 1))
				return ir_errf(e, "out of memory");
			R->ends[0] = P;
			R->ends_ireq[0] = 0;
		}
		g->st->ops++;
	} else if (ends_mode == ENDS_GAP || c->nop == 0 || (ends_mode == ENDS_JOIN && em->join == NOLABEL)) {
		/* the chain */
		if (set_ends(R, 1))
			return ir_errf(e, "out of memory");
		R->ends[0] = em->gap;
		R->ends_ireq[0] = 0;
	} else if (ends_mode == ENDS_JOIN) {
		if (set_ends(R, 1))
			return ir_errf(e, "out of memory");
		R->ends[0] = em->join;
		R->ends_ireq[0] = 0;
	} else {
		if (set_ends(R, c->nop))
			return ir_errf(e, "out of memory");
		for (i = 0; i < c->nop; i++) {
			R->ends[i] = em->base + (uint32_t)i;
			R->ends_ireq[i] = ends_mode == ENDS_OPS_IREQ;
		}
	}
	step_after(g, R, r);
	R->gap_start = r->t_ret;
	t2g_gap_mark(R, r->t_ret, r->cpu_ret, 1);
	g->st->ops += c->nop + 1 + (em->join != NOLABEL);
	if (R->out.len >= (sync ? SPILL_AT : FLUSH_AT) && t2g_flush_out(g, R, e))
		return -1;
	return 0;
oom:
	return ir_errf(e, "out of memory");
}
