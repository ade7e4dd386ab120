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
	ir_engine_rmsg *sbuf, *rbuf;
	size_t scap, rcap;
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

static int c_exchange(void *ctx, ir_engine_rmsg *const *out, const size_t *nout, const ir_engine_rmsg **in,
                      size_t *nin, ir_err *e)
{
	comm_ctx *c = ctx;
	size_t tot = 0, rtot = 0, one = sizeof(ir_engine_rmsg);
	for (int q = 0; q < np_; q++) {
		if (nout[q] > (size_t)INT_MAX / one || tot > (size_t)INT_MAX / one - nout[q])
			return ir_errf(e, "more than %zu messages to other processes in one window", (size_t)INT_MAX / one);
		c->scount[q] = (int)(nout[q] * one);
		c->sdispl[q] = (int)(tot * one);
		tot += nout[q];
	}
	if (tot > c->scap) {
		free(c->sbuf);
		c->scap = tot * 2;
		if (!(c->sbuf = malloc(c->scap * one)))
			return ir_errf(e, "out of memory for messages to other processes");
	}
	for (int q = 0; q < np_; q++)
		if (nout[q])
			memcpy((char *)c->sbuf + c->sdispl[q], out[q], nout[q] * one);
	if (mpi_err(MPI_Alltoall(c->scount, 1, MPI_INT, c->rcount, 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall", e))
		return -1;
	for (int q = 0; q < np_; q++) {
		if ((size_t)c->rcount[q] > (size_t)INT_MAX - rtot)
			return ir_errf(e, "more than %d bytes of messages from other processes in one window", INT_MAX);
		c->rdispl[q] = (int)rtot;
		rtot += (size_t)c->rcount[q];
	}
	if (rtot / one > c->rcap) {
		free(c->rbuf);
		c->rcap = rtot / one * 2;
		if (!(c->rbuf = malloc(c->rcap * one)))
			return ir_errf(e, "out of memory for messages from other processes");
	}
	if (mpi_err(MPI_Alltoallv(c->sbuf, c->scount, c->sdispl, MPI_BYTE, c->rbuf, c->rcount, c->rdispl, MPI_BYTE,
	                          MPI_COMM_WORLD),
	            "MPI_Alltoallv", e))
		return -1;
	*in = c->rbuf;
	*nin = rtot / one;
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

int par_run(const ir_sched *s, ir_engine_cfg *cfg, const double *weights, uint32_t host_ranks, ir_engine **en,
            par_result *res, ir_err *e)
{
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
	if (ir_par_plan_make(&res->plan, s, &cfg->p, (uint32_t)np_, IR_PAR_BLOCK, weights, host_ranks, e))
		return -2; /* every process fails alike */
	if (!(cc.scount = calloc((size_t)np_, sizeof(int))) || !(cc.sdispl = calloc((size_t)np_, sizeof(int))) ||
	    !(cc.rcount = calloc((size_t)np_, sizeof(int))) || !(cc.rdispl = calloc((size_t)np_, sizeof(int)))) {
		rc = ir_errf(e, "out of memory");
		goto out;
	}
	comm.ctx = &cc;
	comm.nprocs = (uint32_t)np_;
	comm.me = (uint32_t)me_;
	comm.exchange = c_exchange;
	comm.min = c_min;
	if (ir_par_part(&rr, &res->plan, &comm, &part, e)) {
		rc = -1;
		goto out;
	}
	cfg->part = &part;
	if (!(*en = ir_engine_new(s, cfg, e))) {
		rc = -1;
		goto out;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	rc = ir_par_go(&rr, *en, e);
	t1 = MPI_Wtime();
	if (rc < 0)
		goto out;
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
out:
	ir_par_run_release(&rr);
	free(cc.scount);
	free(cc.sdispl);
	free(cc.rcount);
	free(cc.rdispl);
	free(cc.sbuf);
	free(cc.rbuf);
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
