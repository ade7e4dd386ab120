/*
 * ir_t2g_win.c: MPI-3 one-sided communication in trace2goal (part of ir_t2g, see
 * ir_t2g_internal.h; docs/trace2goal.md, "One-sided communication").
 *
 * The calls that synchronise the ranks of a window are collectives over the window's
 * communicator and become messages: its creation (MPI_Win_create, _allocate,
 * _allocate_shared, _create_dynamic) the agreement of communicator creation (Open MPI's
 * one-sided components duplicate the communicator: the same three allreduces as
 * MPI_Comm_dup), MPI_Win_free and MPI_Win_fence a barrier. They also do local work the
 * network does not change (mapping and registering the window's memory: 60 us of a 2-rank
 * MPI_Win_allocate over shared memory on this machine, against a few us of messages), so
 * they keep it in the plain conversion too: the call's traced time minus what the traced
 * network's model says its messages cost there (ir_t2g_opts.from, default -p), as
 * --durations does for every call. The transfers (Put, Get, Accumulate, ...) and the
 * passive-target and post-start-complete-wait synchronisation stay local computation, their
 * traced time: they are not yet converted into messages (docs/trace2goal.md §10).
 *
 * A window is known by the id the trace gives it (formats/trace.md, section 3.3: per rank,
 * from 1, in creation order); rank R keeps, per window, the communicator its creation named,
 * which the later calls on the window (they name only the window) are collectives over.
 */
#include "ir_t2g_internal.h"

void t2g_win_release(rstate *R)
{
	ir_hmap_release(&R->winmap);
	R->nwins = 0;
}

/* The window field w of r: its id, and the index of its entry (NULL: none, counted). */
static int win_find(rstate *R, const ir_rec *r, unsigned w, int64_t *id, struct win **out, ir_err *e)
{
	const uint32_t *v;
	if (arg_int(R, r, w, id, e))
		return -1;
	if (*id < 0)
		return t2g_bad_arg(R, r, w, "a window id (0 or more)", e);
	v = *id > 0 ? ir_hmap_get(&R->winmap, (uint64_t)*id, 0) : NULL;
	*out = v ? &R->wins[*v] : NULL;
	return 0;
}

int t2g_do_win(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	cref cr;
	int64_t id;
	struct win *w = NULL;
	int rc, kind = IR_COLL_BARRIER;

	if (ci->k == C_WCREATE || ci->k == C_WDYNAMIC) {
		int64_t h, rk, sz;
		unsigned wf = ci->k == C_WCREATE ? F_MPI_Win_create_win : F_MPI_Win_create_dynamic_win;
		unsigned cf = (unsigned)ci->fcomm;
		uint32_t *slot;
		if (ir_tf_triple(r->f[cf], &h, &rk, &sz) || rk < 0 || sz <= 0 || rk >= sz)
			return t2g_bad_arg(R, r, cf, "a communicator '<handle>,<rank>,<size>'", e);
		if (arg_int(R, r, wf, &id, e))
			return -1;
		if (id < 0)
			return t2g_bad_arg(R, r, wf, "a window id (0 or more)", e);
		rc = t2g_comm_of(g, R, r, h, rk, sz, &cr, e);
		if (rc)
			return rc < 0 ? -1 : 0; /* skipped: its time runs on as computation */
		if (id > 0) { /* 0: the creation failed; nothing names the window later */
			if (ir_hmap_get(&R->winmap, (uint64_t)id, 0))
				return t2g_errat(R, e, "%s: window %" PRId64 " created twice", r->name, id);
			if (IR_GROW(R->wins, R->nwins + 1, R->capwins))
				return ir_errf(e, "out of memory");
			slot = ir_hmap_put(&R->winmap, (uint64_t)id, 0, NULL);
			if (!slot)
				return ir_errf(e, "out of memory");
			*slot = (uint32_t)R->nwins;
			R->wins[R->nwins].h = h;
			R->wins[R->nwins].rk = rk;
			R->wins[R->nwins].sz = sz;
			R->nwins++;
		}
		kind = IR_COLL_COMM_CREATE;
	} else {
		unsigned wf = ci->k == C_WFREE ? F_MPI_Win_free_win : F_MPI_Win_fence_win;
		if (win_find(R, r, wf, &id, &w, e))
			return -1;
		if (!w) {
			/* made by a call allprof does not record, or never made: its time stays computation */
			g->win_unknown++;
			return 0;
		}
		rc = t2g_comm_of(g, R, r, w->h, w->rk, w->sz, &cr, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (ci->k == C_WFREE) {
			/* the entry stays (ids are not reused); only the map forgets the id */
			ir_hmap_del(&R->winmap, ir_hmap_get(&R->winmap, (uint64_t)id, 0));
		}
	}
	g->win_calls++;
	g->keep_local = 1;
	rc = t2g_coll_plain(g, R, r, &cr, kind, e);
	g->keep_local = 0;
	return rc;
}
