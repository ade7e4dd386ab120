/*
 * ibsim_mpi.c: the MPI side of bin/ibsim-mpi (tools/ibsim-mpi/build.mk): main()
 * starts MPI and runs ibsim's main (tools/ibsim/ibsim.c compiled with
 * -DIBSIM_MPI), which calls par_run() here instead of ir_engine_run().
 *
 * The parallel engine is the library's (lib/ir_par.c); this file gives it its two
 * collectives over MPI_COMM_WORLD (an all-to-all of the messages that crossed
 * processes, a min-reduction of the next time), gathers the per-rank results on
 * process 0, and decides how the program ends: an error every process meets alike
 * (options, the schedule) ends each with its status after MPI_Finalize; an error
 * of one process alone (while simulating) aborts the whole job (MPI_Abort with
 * its status), since the others would wait for it forever.
 */
#include "ibsim_mpi.h"

#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_cli.h"
#include "ir_hmap.h"
#include "ir_io.h"

int ibsim_main(int argc, char **argv);

/* Under AddressSanitizer (make SANITIZE=address): Open MPI keeps thousands of allocations
 * (its components, hwloc) past MPI_Finalize, which LeakSanitizer would report as leaks of
 * ours. The leak check of this code is ibsim's, the same source without MPI, and u-par's.
 * The hook is only called by the sanitizer's runtime. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

static int me_, np_, saved_err = -1;

uint32_t par_me(void) { return (uint32_t)me_; }
uint32_t par_nprocs(void) { return (uint32_t)np_; }

void par_loud(void)
{
	if (saved_err >= 0) {
		fflush(stderr);
		dup2(saved_err, 2);
		close(saved_err);
		saved_err = -1;
	}
}

void par_abort(int status)
{
	fflush(stdout);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

/* ---- the collectives ---- */

typedef struct comm_ctx {
	int *scount, *sdispl, *rcount, *rdispl;
	const void **part;            /* [np] what goes to each process, and how many bytes */
	size_t *len;
	unsigned char *sbuf, *rbuf;   /* the engine's messages */
	size_t scap, rcap;
	unsigned char *pk;            /* --net ib: what goes out, packed per process */
	size_t pkcap;
	unsigned char *xsbuf, *xrbuf; /* and what came in: the messages, the fabric's items */
	size_t xscap, xrcap;
} comm_ctx;

static int mpi_err(int rc, const char *what, ir_err *e)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (rc == MPI_SUCCESS)
		return 0;
	MPI_Error_string(rc, s, &n);
	return ir_errf(e, "%s: %s", what, s);
}

/* One all-to-all of bytes: part[q] (len[q] bytes) to process q; on return *in (the
 * context's buffer *rbuf, valid until the next call) holds *nin bytes from every process,
 * in process order. `what` names the items in messages. */
static int a2a_bytes(comm_ctx *c, const void *const *part, const size_t *len, unsigned char **sbuf, size_t *scap,
                     unsigned char **rbuf, size_t *rcap, const unsigned char **in, size_t *nin, const char *what,
                     ir_err *e)
{
	size_t tot = 0, rtot = 0;
	for (int q = 0; q < np_; q++) {
		if (len[q] > (size_t)INT_MAX - tot)
			return ir_errf(e, "more than %d bytes of %s to other processes in one window", INT_MAX, what);
		c->scount[q] = (int)len[q];
		c->sdispl[q] = (int)tot;
		tot += len[q];
	}
	if (tot > *scap || !*sbuf) {
		free(*sbuf);
		*scap = tot * 2 + 1;
		if (!(*sbuf = malloc(*scap)))
			return ir_errf(e, "out of memory for %s to other processes", what);
	}
	for (int q = 0; q < np_; q++)
		if (len[q])
			memcpy(*sbuf + c->sdispl[q], part[q], len[q]);
	if (mpi_err(MPI_Alltoall(c->scount, 1, MPI_INT, c->rcount, 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall", e))
		return -1;
	for (int q = 0; q < np_; q++) {
		if ((size_t)c->rcount[q] > (size_t)INT_MAX - rtot)
			return ir_errf(e, "more than %d bytes of %s from other processes in one window", INT_MAX, what);
		c->rdispl[q] = (int)rtot;
		rtot += (size_t)c->rcount[q];
	}
	if (rtot > *rcap || !*rbuf) {
		free(*rbuf);
		*rcap = rtot * 2 + 1;
		if (!(*rbuf = malloc(*rcap)))
			return ir_errf(e, "out of memory for %s from other processes", what);
	}
	if (mpi_err(MPI_Alltoallv(*sbuf, c->scount, c->sdispl, MPI_BYTE, *rbuf, c->rcount, c->rdispl, MPI_BYTE,
	                          MPI_COMM_WORLD),
	            "MPI_Alltoallv", e))
		return -1;
	*in = *rbuf;
	*nin = rtot;
	return 0;
}

static int c_exchange(void *ctx, ir_engine_rmsg *const *out, const size_t *nout, const ir_engine_rmsg **in,
                      size_t *nin, ir_err *e)
{
	comm_ctx *c = ctx;
	size_t one = sizeof(ir_engine_rmsg), n;
	const unsigned char *got;
	for (int q = 0; q < np_; q++) {
		if (nout[q] > (size_t)INT_MAX / one)
			return ir_errf(e, "more than %zu messages to other processes in one window", (size_t)INT_MAX / one);
		c->len[q] = nout[q] * one;
		c->part[q] = out[q];
	}
	if (a2a_bytes(c, c->part, c->len, &c->sbuf, &c->scap, &c->rbuf, &c->rcap, &got, &n, "messages", e))
		return -1;
	*in = (const ir_engine_rmsg *)(const void *)got;
	*nin = n / one;
	return 0;
}

/* Grow *buf to hold n bytes (at least); 0 or -1. */
static int grow_bytes(unsigned char **buf, size_t *cap, size_t n)
{
	if (n <= *cap && *buf)
		return 0;
	free(*buf);
	*cap = n * 2 + 64;
	return (*buf = malloc(*cap)) ? 0 : -1;
}

/* --net ib: the engine's messages and the fabric's items of one window in the same two
 * collectives (the window's cost is its collectives): to each process a count of messages,
 * the messages, then the items' bytes. */
static int c_xexchange(void *ctx, ir_engine_rmsg *const *out, const size_t *nout, const ir_sb *xout,
                       const ir_engine_rmsg **in, size_t *nin, const unsigned char **xin, size_t *xnin, ir_err *e)
{
	comm_ctx *c = ctx;
	size_t one = sizeof(ir_engine_rmsg), tot = 0, n, nm = 0, nx = 0;
	const unsigned char *got;
	for (int q = 0; q < np_; q++) {
		if (nout[q] > (size_t)INT_MAX / one)
			return ir_errf(e, "more than %zu messages to other processes in one window", (size_t)INT_MAX / one);
		tot += 8 + nout[q] * one + xout[q].len;
	}
	if (grow_bytes(&c->pk, &c->pkcap, tot))
		return ir_errf(e, "out of memory for messages to other processes");
	tot = 0;
	for (int q = 0; q < np_; q++) {
		uint64_t k = nout[q];
		c->part[q] = c->pk + tot;
		memcpy(c->pk + tot, &k, 8);
		if (nout[q])
			memcpy(c->pk + tot + 8, out[q], nout[q] * one);
		if (xout[q].len)
			memcpy(c->pk + tot + 8 + nout[q] * one, xout[q].buf, xout[q].len);
		c->len[q] = 8 + nout[q] * one + xout[q].len;
		tot += c->len[q];
	}
	if (a2a_bytes(c, c->part, c->len, &c->sbuf, &c->scap, &c->rbuf, &c->rcap, &got, &n, "messages and fabric items",
	              e))
		return -1;
	if (grow_bytes(&c->xsbuf, &c->xscap, n) || grow_bytes(&c->xrbuf, &c->xrcap, n))
		return ir_errf(e, "out of memory for messages from other processes");
	for (int q = 0; q < np_; q++) {
		const unsigned char *p = got + c->rdispl[q];
		size_t len = (size_t)c->rcount[q];
		uint64_t k;
		if (len < 8)
			return ir_errf(e, "internal error: %zu bytes from process %d", len, q);
		memcpy(&k, p, 8);
		if (k > (len - 8) / one)
			return ir_errf(e, "internal error: %llu messages in %zu bytes from process %d", (unsigned long long)k, len, q);
		memcpy(c->xsbuf + nm * one, p + 8, (size_t)k * one);
		nm += (size_t)k;
		memcpy(c->xrbuf + nx, p + 8 + (size_t)k * one, len - 8 - (size_t)k * one);
		nx += len - 8 - (size_t)k * one;
	}
	*in = (const ir_engine_rmsg *)(const void *)c->xsbuf;
	*nin = nm;
	*xin = c->xrbuf;
	*xnin = nx;
	return 0;
}

static int fab_put(void *ctx, const void *buf, size_t nbytes, ir_err *e)
{
	ir_ib *ib = *(ir_ib **)ctx;
	size_t one = ir_ib_xitem_size();
	if (nbytes % one)
		return ir_errf(e, "internal error: %zu bytes of fabric items (items of %zu)", nbytes, one);
	return ir_ib_xput(ib, buf, nbytes / one, e);
}

/* The fabric's partition: the ranks of the hosts cabled to one switch together (a throwaway
 * instance of the fabric gives the units), then the owner of every node, the cut links and
 * the lookahead; the partition goes into the network's configuration. */
static int fab_plan(const ir_sched *s, const double *weights, const par_fabric *fab, par_result *res, ir_ib_part *part,
                    ir_err *e)
{
	ir_ib_cfg c = *fab->cfg;
	ir_ib *tmp;
	uint32_t *unit = NULL, *nown = NULL;
	uint64_t la = 0;
	int rc = -1;
	c.dump_lft = c.dump_netfile = c.route_stats = NULL;
	c.keep = NULL;
	c.part = NULL;
	if (!(tmp = ir_ib_new(&c, s->nranks, NULL, e)))
		return -1;
	if (!(unit = malloc((size_t)(s->nranks ? s->nranks : 1) * 4)) ||
	    !(nown = malloc((size_t)ir_ib_topo(tmp)->nnodes * 4))) {
		ir_errf(e, "out of memory for the partition of the fabric");
		goto out;
	}
	for (uint32_t r = 0; r < s->nranks; r++)
		unit[r] = ir_ib_rank_unit(tmp, r);
	if (ir_par_plan_units(&res->plan, s, (uint32_t)np_, weights, unit, ir_ib_topo(tmp)->nnodes, e) ||
	    ir_ib_part_plan(tmp, res->plan.owner, (uint32_t)np_, nown, &res->cut_links, &la, e))
		goto out;
	res->plan.lookahead = la;
	part->rank_owner = res->plan.owner;
	part->nprocs = (uint32_t)np_;
	part->me = (uint32_t)me_;
	part->xsend = ir_par_xsend;
	fab->cfg->part = part;
	if (me_ != 0) { /* process 0 writes the fabric's files */
		free(fab->cfg->dump_lft);
		free(fab->cfg->dump_netfile);
		free(fab->cfg->route_stats);
		fab->cfg->dump_lft = fab->cfg->dump_netfile = fab->cfg->route_stats = NULL;
	}
	rc = 0;
out:
	free(unit);
	free(nown);
	ir_ib_free(tmp);
	return rc;
}

/* After the run: the fabric's figures over every process, and packets left anywhere. */
static int fab_gather(const par_fabric *fab, par_result *res, ir_err *e)
{
	const ir_ib_stats *f = ir_ib_get_stats(*fab->inst);
	uint64_t sum[11] = { f->events, f->packets, f->packet_hops, f->msgs, f->ctrl, f->loopback, f->nonminimal, f->fecn,
		             f->becn, f->path_other, ir_ib_live(*fab->inst) },
		 mx[3] = { f->max_live, f->pairs_max, f->ccti_max }, gs[11], gm[3];
	if (mpi_err(MPI_Allreduce(sum, gs, 11, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce", e) ||
	    mpi_err(MPI_Allreduce(mx, gm, 3, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce", e))
		return -1;
	res->fab.events = gs[0];
	res->fab.packets = gs[1];
	res->fab.packet_hops = gs[2];
	res->fab.msgs = gs[3];
	res->fab.ctrl = gs[4];
	res->fab.loopback = gs[5];
	res->fab.nonminimal = gs[6];
	res->fab.fecn = gs[7];
	res->fab.becn = gs[8];
	res->fab.path_other = gs[9];
	res->fab.max_live = gm[0];
	res->fab.pairs_max = gm[1];
	res->fab.ccti_max = gm[2];
	res->has_fab = 1;
	{
		/* the link counters, each port's from the process of its node, on process 0 */
		size_t n = ir_ib_ncounters(*fab->inst);
		uint64_t *v = malloc((n ? n : 1) * 8);
		if (!v)
			return ir_errf(e, "out of memory for the link counters");
		ir_ib_counters(*fab->inst, v, 0);
		if (n > (size_t)INT_MAX) {
			free(v);
			return ir_errf(e, "%zu link counters: too many for one reduction", n);
		}
		if (mpi_err(MPI_Reduce(me_ ? v : MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD),
		            "MPI_Reduce", e)) {
			free(v);
			return -1;
		}
		if (me_ == 0)
			ir_ib_counters(*fab->inst, v, 1);
		free(v);
	}
	if (gs[10])
		return ir_errf(e, "fabric deadlock: %llu packets cannot move at the end (ibsim --net ib names the cycle of "
		               "full buffers)", (unsigned long long)gs[10]);
	return 0;
}

static int c_min(void *ctx, uint64_t *v, ir_err *e)
{
	uint64_t x = *v;
	(void)ctx;
	{
		/* a test of the error path: IR_PAR_FAIL=P makes process P fail here */
		const char *f = getenv("IR_PAR_FAIL");
		if (f && *f && atoi(f) == me_)
			return ir_errf(e, "process %d: failure requested by IR_PAR_FAIL", me_);
	}
	return mpi_err(MPI_Allreduce(&x, v, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce", e);
}

/* ---- the run ---- */

void par_result_release(par_result *res)
{
	free(res->end);
	free(res->calc);
	free(res->msgs);
	free(res->bytes);
	ir_par_plan_release(&res->plan);
	memset(res, 0, sizeof *res);
}

static int gather_col(uint64_t **dst, ir_engine *en, const ir_par_plan *pl, uint64_t (*f)(const ir_engine *, uint32_t),
                      ir_err *e)
{
	uint64_t *v = calloc(pl->nranks ? pl->nranks : 1, 8);
	if (!v)
		return ir_errf(e, "out of memory for the results");
	for (uint32_t r = 0; r < pl->nranks; r++)
		if (pl->owner[r] == (uint32_t)me_)
			v[r] = f(en, r);
	if (mpi_err(MPI_Reduce(me_ ? v : MPI_IN_PLACE, v, (int)pl->nranks, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD),
	            "MPI_Reduce", e)) {
		free(v);
		return -1;
	}
	*dst = v;
	return 0;
}

/* The first oversize message: the process whose first one has the smallest key. */
typedef struct over_rec {
	uint64_t has, t, tc, who, n, msg_size, recv_size, rank, recv, src;
} over_rec;

static int key_lt(const over_rec *a, const over_rec *b)
{
	if (a->has != b->has)
		return a->has > b->has;
	if (a->t != b->t)
		return a->t < b->t;
	if (a->tc != b->tc)
		return a->tc < b->tc;
	if (a->who != b->who)
		return a->who < b->who;
	return a->n < b->n;
}

/* ---- the outputs that follow the events (-v, --msglog, --timeline, --otf2) ----
 *
 * Each process records what its engine reports (events, matched messages, and the moments
 * it numbers an item or a message: hook `number`), each record with the key of the item
 * being processed (ir_engine_cur_key). A process's items are popped in the whole run's
 * order restricted to its ranks (docs/design.md §9), and no two processes process an item
 * of one key, so merging the processes' records by key gives the whole run's sequence;
 * process 0 merges them after the run, numbers items and messages in the order the
 * numbering records come (a whole run takes its numbers in that order) and hands each
 * event and message, renumbered, to ibsim's own hooks: the outputs are ibsim --ties key's
 * byte for byte. The records are kept in memory until the end (about 180 bytes an event). */
enum { R_EV, R_MSG, R_ITEM, R_ID };

typedef struct rec {
	uint64_t k[4];
	uint32_t kind, pad_;
	union {
		ir_ev ev;
		ir_msg_rec m;
		uint64_t v;
	} u;
} rec;

typedef struct recorder {
	ir_engine *en;
	rec *v;
	size_t n, cap;
	ir_engine_hooks orig;
} recorder;

static rec *rec_add(recorder *rr, uint32_t kind, ir_err *e)
{
	rec *r;
	if (rr->n == rr->cap) {
		size_t c = rr->cap ? rr->cap * 2 : 4096;
		rec *p = realloc(rr->v, c * sizeof *p);
		if (!p) {
			ir_errf(e, "out of memory recording the events for the outputs (%zu records)", rr->n);
			return NULL;
		}
		rr->v = p;
		rr->cap = c;
	}
	r = &rr->v[rr->n++];
	memset(r, 0, sizeof *r);
	ir_engine_cur_key(rr->en, r->k);
	r->kind = kind;
	return r;
}

static int rec_event(void *ctx, const ir_ev *ev, ir_err *e)
{
	rec *r = rec_add(ctx, R_EV, e);
	if (!r)
		return -1;
	r->u.ev = *ev;
	return 0;
}

static int rec_message(void *ctx, const ir_msg_rec *m, ir_err *e)
{
	rec *r = rec_add(ctx, R_MSG, e);
	if (!r)
		return -1;
	r->u.m = *m;
	return 0;
}

static int rec_failed;

static void rec_number(void *ctx, int what, uint64_t v)
{
	ir_err e;
	rec *r = rec_add(ctx, what ? R_ID : R_ITEM, &e);
	if (!r)
		rec_failed = 1; /* reported after the run */
	else
		r->u.v = v;
}

static int key_before(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* A whole run's number for a partition's (map of items or of messages); the ops ready at
 * the start are numbered alike everywhere and are not in the map. */
static void renumber(const ir_hmap *m, uint64_t *v)
{
	const uint64_t *g = ir_hmap_get(m, *v, 0);
	if (g)
		*v = *g;
}

static int number_new(ir_hmap *m, uint64_t v, uint64_t *next, ir_err *e)
{
	int isnew;
	uint64_t *g = ir_hmap_put(m, v, 0, &isnew);
	if (!g)
		return ir_errf(e, "out of memory renumbering the events");
	*g = (*next)++;
	return 0;
}

/* Gather every process's records on process 0, merge them by key, renumber, and call the
 * hooks ibsim gave. Every process calls it. */
static int replay(recorder *rr, ir_err *e)
{
	uint64_t mine = rr->n * sizeof(rec), *sizes = NULL;
	int *cnt = NULL, *displ = NULL, rc = -1, bad = 0;
	unsigned char *all = NULL;
	ir_hmap items, ids;
	uint64_t inext = UINT64_MAX, mnext = 0, total = 0;
	ir_hmap_init(&items, 8, 1024, 0);
	ir_hmap_init(&ids, 8, 1024, 0);
	if (!(sizes = calloc((size_t)np_, 8)) || !(cnt = calloc((size_t)np_, sizeof *cnt)) ||
	    !(displ = calloc((size_t)np_, sizeof *displ))) {
		ir_errf(e, "out of memory");
		goto out;
	}
	if (mpi_err(MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Allgather", e))
		goto out;
	for (int q = 0; q < np_; q++) {
		if (sizes[q] > (uint64_t)INT_MAX - total) {
			bad = 1;
			break;
		}
		displ[q] = (int)total;
		cnt[q] = (int)sizes[q];
		total += sizes[q];
	}
	if (bad) {
		ir_errf(e, "the events recorded for -v, --msglog, --timeline or --otf2 exceed 2 GiB; run ibsim for them");
		goto out;
	}
	if (me_ == 0 && !(all = malloc(total ? total : 1))) {
		ir_errf(e, "out of memory gathering the events (%llu bytes)", (unsigned long long)total);
		goto out;
	}
	if (mpi_err(MPI_Gatherv(rr->v, (int)mine, MPI_BYTE, all, cnt, displ, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Gatherv", e))
		goto out;
	if (me_ == 0) {
		size_t *at = calloc((size_t)np_, sizeof *at);
		if (!at) {
			ir_errf(e, "out of memory");
			goto out;
		}
		for (;;) {
			int best = -1;
			rec x;
			for (int q = 0; q < np_; q++) {
				const rec *h;
				if (at[q] >= sizes[q] / sizeof(rec))
					continue;
				h = (const rec *)(all + displ[q]) + at[q];
				if (best < 0 || key_before(h->k, ((const rec *)(all + displ[best]) + at[best])->k))
					best = q;
			}
			if (best < 0)
				break;
			memcpy(&x, (const rec *)(all + displ[best]) + at[best], sizeof x);
			at[best]++;
			if (x.kind == R_ITEM) {
				if (inext == UINT64_MAX) /* a partition's numbers start where the start's end */
					inext = x.u.v & (((uint64_t)1 << IR_ENGINE_PROC_SHIFT) - 1);
				if (number_new(&items, x.u.v, &inext, e))
					break;
			} else if (x.kind == R_ID) {
				if (number_new(&ids, x.u.v, &mnext, e))
					break;
			} else if (x.kind == R_EV) {
				ir_ev *ev = &x.u.ev;
				renumber(&items, &ev->seq);
				if (ev->kind == IR_EV_SEND || ev->kind == IR_EV_MSG || ev->kind == IR_EV_DATA ||
				    (ev->kind == IR_EV_RECV && ev->matched))
					renumber(&ids, &ev->msg);
				if (rr->orig.event && rr->orig.event(rr->orig.ctx, ev, e))
					break;
			} else {
				renumber(&ids, &x.u.m.id);
				if (rr->orig.message && rr->orig.message(rr->orig.ctx, &x.u.m, e))
					break;
			}
		}
		bad = 0;
		for (int q = 0; q < np_; q++)
			bad |= at[q] < sizes[q] / sizeof(rec);
		free(at);
		if (bad)
			goto out;
	}
	rc = 0;
out:
	ir_hmap_release(&items);
	ir_hmap_release(&ids);
	free(all);
	free(sizes);
	free(cnt);
	free(displ);
	return rc;
}

int par_run(const ir_sched *s, ir_engine_cfg *cfg, const double *weights, uint32_t host_ranks, const par_fabric *fab,
            ir_engine **en, par_result *res, ir_err *e)
{
	ir_ib_part ibpart;
	recorder rec_;
	int outputs = cfg->hooks.event || cfg->hooks.message;
	comm_ctx cc;
	ir_par_comm comm;
	ir_par_run rr;
	ir_engine_part part;
	int rc, grc = 0;
	double t0, t1, wall;
	memset(res, 0, sizeof *res);
	memset(&cc, 0, sizeof cc);
	memset(&rr, 0, sizeof rr);
	res->nprocs = (uint32_t)np_;
	if (fab ? fab_plan(s, weights, fab, res, &ibpart, e)
	        : ir_par_plan_make(&res->plan, s, &cfg->p, (uint32_t)np_, IR_PAR_BLOCK, weights, host_ranks, e))
		return -2; /* every process fails alike */
	if (!(cc.scount = calloc((size_t)np_, sizeof(int))) || !(cc.sdispl = calloc((size_t)np_, sizeof(int))) ||
	    !(cc.rcount = calloc((size_t)np_, sizeof(int))) || !(cc.rdispl = calloc((size_t)np_, sizeof(int))) ||
	    !(cc.part = calloc((size_t)np_, sizeof *cc.part)) || !(cc.len = calloc((size_t)np_, sizeof *cc.len))) {
		rc = ir_errf(e, "out of memory");
		goto out;
	}
	comm.ctx = &cc;
	comm.nprocs = (uint32_t)np_;
	comm.me = (uint32_t)me_;
	comm.exchange = c_exchange;
	comm.min = c_min;
	comm.xexchange = c_xexchange;
	if (ir_par_part(&rr, &res->plan, &comm, &part, e)) {
		rc = -1;
		goto out;
	}
	if (fab) {
		ibpart.ctx = &rr;
		rr.net_put = fab_put;
		rr.net_ctx = fab->inst;
	}
	cfg->part = &part;
	memset(&rec_, 0, sizeof rec_);
	if (outputs) {
		rec_.orig = cfg->hooks;
		cfg->hooks.ctx = &rec_;
		cfg->hooks.event = rec_.orig.event ? rec_event : NULL;
		cfg->hooks.message = rec_.orig.message ? rec_message : NULL;
		cfg->hooks.number = rec_number;
		cfg->hooks.progress = NULL;
	}
	*en = ir_engine_new(s, cfg, e);
	if (outputs)
		cfg->hooks = rec_.orig;
	if (!*en) {
		rc = -1;
		goto out;
	}
	rec_.en = *en;
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	rc = ir_par_go(&rr, *en, e);
	t1 = MPI_Wtime();
	if (rc < 0)
		goto out;
	if (fab && fab_gather(fab, res, e)) {
		rc = -2; /* every process knows it alike */
		goto out;
	}
	if (rec_failed) {
		rc = ir_errf(e, "out of memory recording the events for the outputs");
		goto out;
	}
	wall = t1 - t0;
	res->windows = rr.st.windows;
	{
		/* the status, the counts and the slowest process's time */
		const ir_engine_stats *st = ir_engine_get_stats(*en);
		uint64_t sum[6] = { st->events, st->ops, st->msgs, st->putbacks, st->oversize, rr.st.sent }, gsum[6];
		uint64_t mx[2] = { st->end, (uint64_t)rc }, gmx[2];
		over_rec mine, *all = NULL;
		if (mpi_err(MPI_Allreduce(sum, gsum, 6, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce", e) ||
		    mpi_err(MPI_Allreduce(mx, gmx, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce", e) ||
		    mpi_err(MPI_Allreduce(&wall, &res->wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce", e)) {
			rc = -1;
			goto out;
		}
		res->st = *st;
		res->st.events = gsum[0];
		res->st.ops = gsum[1];
		res->st.msgs = gsum[2];
		res->st.putbacks = gsum[3];
		res->st.oversize = gsum[4];
		res->sent = gsum[5];
		res->st.end = gmx[0];
		grc = (int)gmx[1];
		res->local_rc = rc;
		memset(&mine, 0, sizeof mine);
		if (st->oversize) {
			mine.has = 1;
			mine.t = st->over_t;
			mine.tc = st->over_tc;
			mine.who = st->over_who;
			mine.n = st->over_n;
			mine.msg_size = st->over_msg_size;
			mine.recv_size = st->over_recv_size;
			mine.rank = st->over_rank;
			mine.recv = st->over_recv;
			mine.src = st->over_src;
		}
		if (!(all = calloc((size_t)np_, sizeof *all))) {
			rc = ir_errf(e, "out of memory");
			goto out;
		}
		if (mpi_err(MPI_Allgather(&mine, (int)(sizeof mine / 8), MPI_UINT64_T, all, (int)(sizeof mine / 8),
		                          MPI_UINT64_T, MPI_COMM_WORLD),
		            "MPI_Allgather", e)) {
			free(all);
			rc = -1;
			goto out;
		}
		for (int q = 1; q < np_; q++)
			if (key_lt(&all[q], &all[0]))
				all[0] = all[q];
		if (all[0].has) {
			res->st.over_msg_size = all[0].msg_size;
			res->st.over_recv_size = all[0].recv_size;
			res->st.over_rank = (uint32_t)all[0].rank;
			res->st.over_recv = (uint32_t)all[0].recv;
			res->st.over_src = (uint32_t)all[0].src;
		}
		free(all);
	}
	if (!grc && (gather_col(&res->end, *en, &res->plan, ir_engine_rank_end, e) ||
	             gather_col(&res->calc, *en, &res->plan, ir_engine_rank_calc, e) ||
	             gather_col(&res->msgs, *en, &res->plan, ir_engine_rank_msgs, e) ||
	             gather_col(&res->bytes, *en, &res->plan, ir_engine_rank_bytes, e))) {
		rc = -1;
		goto out;
	}
	rc = grc ? 1 : 0;
	if (outputs && replay(&rec_, e) < 0)
		rc = -1;
out:
	free(rec_.v);
	ir_par_run_release(&rr);
	free(cc.scount);
	free(cc.sdispl);
	free(cc.rcount);
	free(cc.rdispl);
	free(cc.sbuf);
	free(cc.rbuf);
	free(cc.xsbuf);
	free(cc.xrbuf);
	free(cc.pk);
	free(cc.part);
	free(cc.len);
	if (fab)
		fab->cfg->part = NULL;
	return rc;
}

int main(int argc, char **argv)
{
	int status;
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "ibsim-mpi: MPI_Init failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &me_);
	MPI_Comm_size(MPI_COMM_WORLD, &np_);
	if (me_ != 0) {
		int dn = open("/dev/null", O_WRONLY);
		fflush(stderr);
		saved_err = dup(2);
		if (dn >= 0) {
			dup2(dn, 2);
			close(dn);
		}
	}
	status = ibsim_main(argc, argv);
	par_loud();
	MPI_Finalize();
	return status;
}
