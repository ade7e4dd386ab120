/*
 * ir_t2g_coll.c: trace2goal's collectives (part of ir_t2g, see
 * ir_t2g_internal.h).
 *
 * A collective call's arguments are read into per-rank counts and sizes and
 * expanded to point-to-point ops by ir_coll.h with the algorithm chosen for
 * its kind; nonblocking collectives register a request that their Wait
 * completes. The collective sequence of each communicator is hashed so that
 * ranks which disagree on it are reported (t2g_check_cseq in ir_t2g_comm.c).
 */
#include "ir_t2g_internal.h"

/* ------------------------------------------------------------------ collectives */

int t2g_coll_seq_note(comm *c, int kind, int64_t root)
{
	c->chash = ir_hmix64(c->chash ^ ((uint64_t)(kind + 1) << 40) ^ (uint64_t)(root + 2));
	c->seq++;
	return 0;
}

static int get_list(const rstate *R, const ir_rec *r, unsigned i, uint64_t *dst, uint32_t p, ir_err *e)
{
	long n = ir_tf_list(r->f[i], dst, p);
	if (n != (long)p) {
		char q[120];
		ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i]));
		return t2g_errat(R, e, "%s: argument %u: expected %u comma-separated counts, found '%s'", r->name, i + 1, p, q);
	}
	return 0;
}

/* allprof type list "<id>,<size>,<extent>;..." into sizes */
int t2g_get_types(const rstate *R, const ir_rec *r, unsigned i, uint64_t *dst, uint32_t p, ir_err *e)
{
	const char *s = r->f[i];
	for (uint32_t k = 0; k < p; k++) {
		const char *c1 = strchr(s, ','), *end = strchr(s, ';');
		uint64_t v = 0;
		int nd = 0;
		if (!c1 || (end && c1 > end))
			return t2g_bad_arg(R, r, i, "datatypes '<id>,<size>,<extent>;...'", e);
		for (const char *q = c1 + 1; *q >= '0' && *q <= '9' && nd < 12; q++, nd++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (!nd)
			return t2g_bad_arg(R, r, i, "datatypes '<id>,<size>,<extent>;...'", e);
		dst[k] = v;
		if (k + 1 < p) {
			if (!end)
				return t2g_bad_arg(R, r, i, "one datatype per rank", e);
			s = end + 1;
		}
	}
	return 0;
}

int t2g_blk_room(gstate *g, uint32_t p, ir_err *e)
{
	if (p > g->capblk) {
		uint64_t *a = realloc(g->blk, p * sizeof *a), *b, *c;
		if (!a)
			return ir_errf(e, "out of memory");
		g->blk = a;
		b = realloc(g->sblk, p * sizeof *b);
		if (!b)
			return ir_errf(e, "out of memory");
		g->sblk = b;
		c = realloc(g->rblk, p * sizeof *c);
		if (!c)
			return ir_errf(e, "out of memory");
		g->rblk = c;
		g->capblk = p;
	}
	return 0;
}

/* What starting a nonblocking collective costs beyond its messages (formats/params.md,
 * "nbc_o"; docs/trace2goal.md section 8): computation before its first messages in the plain
 * conversion. --durations replays the recorded calls, which hold it already. */
double t2g_nbc_cost(const gstate *g, const callinfo *ci)
{
	return ci->nb && !g->o->durations ? (double)g->o->net.nbc_o : 0;
}

/* Open MPI's communicator creation (algorithm ompi, lib/ir_coll.c comm_create) agrees on the
 * context id with three nonblocking allreduces of libnbc, each of which costs nbc_o beyond
 * its messages like any nonblocking collective (docs/trace2goal.md, "Communicator
 * creation"); MPICH's blocking allreduce does not. Plain conversion only. */
static double comm_nbc_cost(const gstate *g, int kind, enum ir_coll_alg alg)
{
	if ((kind != IR_COLL_COMM_CREATE && kind != IR_COLL_COMM_SPLIT) || g->o->durations)
		return 0;
	if (alg == IR_ALG_DEFAULT)
		alg = ir_coll_default((enum ir_coll_kind)kind);
	return alg == IR_ALG_OMPI ? 3 * (double)g->o->net.nbc_o : 0;
}

/* A nonblocking collective's request: completed by the Wait/Test that names it. */
int t2g_reg_nbcoll(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, const emitted *em, ir_err *e)
{
	uint64_t key;
	req *q;
	if (arg_req(R, r, (unsigned)ci->freq, &key, e))
		return -1;
	q = t2g_req_new(g, R, key, e);
	if (key && !q)
		return -1;
	if (q) {
		q->label = em->join;
		q->seq = ++R->reqseq;
		q->peer = -2;
		if (g->ts) {
			q->node = em->sjoin;
			ir_ts_ref(g->ts, q->node);
		}
	}
	return 0;
}

/* Is buffer field i MPI_IN_PLACE? allprof writes -1; liballprof wrote Open MPI's value, 1
 * (never the address of a real buffer). With MPI_IN_PLACE MPI ignores the send count, type
 * (and, for the v/w variants, the send arrays): the sizes come from the receive side. */
static int in_place(const ir_rec *r, unsigned i)
{
	return i < r->nf && (strcmp(r->f[i], "-1") == 0 || strcmp(r->f[i], "1") == 0);
}

/* Does the rank's own block of this collective stay where it is (MPI_IN_PLACE), so that no
 * local copy happens? Send buffer in place for alltoall(v/w), allgather(v) and gather(v) at
 * the root; receive buffer in place for scatter(v) at the root. */
static int own_in_place(const ir_rec *r, int kind, int is_root)
{
	switch (kind) {
	case IR_COLL_ALLTOALL:
		return in_place(r, F_MPI_Alltoall_sbuf);
	case IR_COLL_ALLTOALLV:
		return in_place(r, F_MPI_Alltoallv_sbuf);
	case COLL_ALLTOALLW:
		return in_place(r, F_MPI_Alltoallw_sbuf);
	case IR_COLL_ALLGATHER:
		return in_place(r, F_MPI_Allgather_sbuf);
	case IR_COLL_ALLGATHERV:
		return in_place(r, F_MPI_Allgatherv_sbuf);
	case IR_COLL_GATHER:
		return is_root && in_place(r, F_MPI_Gather_sbuf);
	case IR_COLL_GATHERV:
		return is_root && in_place(r, F_MPI_Gatherv_sbuf);
	case IR_COLL_SCATTER:
		return is_root && in_place(r, F_MPI_Scatter_rbuf);
	case IR_COLL_SCATTERV:
		return is_root && in_place(r, F_MPI_Scatterv_rbuf);
	default:
		return 0;
	}
}

/* t2g_do_coll() and t2g_do_neigh() read some collectives with the field indices of another that has
 * the same fields there (the calls of one kind, MPI_Bcast and MPI_Ibcast say, are checked by
 * tools/allprof/gen-calls.sh). */
#define SAME_F(a, b, f) (F_MPI_##a##_##f == F_MPI_##b##_##f)
#define SAME_GATHER(a, b)                                                                                        \
	(SAME_F(a, b, sbuf) && SAME_F(a, b, scount) && SAME_F(a, b, stype) && SAME_F(a, b, rbuf) &&                \
	 SAME_F(a, b, rcount) && SAME_F(a, b, rtype))
#define SAME_REDUCE(a, b) (SAME_F(a, b, sbuf) && SAME_F(a, b, rbuf) && SAME_F(a, b, count) && SAME_F(a, b, type))
_Static_assert(SAME_GATHER(Gather, Scatter) && SAME_F(Gather, Scatter, root) && SAME_GATHER(Gather, Allgather) &&
                   SAME_GATHER(Gather, Alltoall),
               "Gather, Scatter, Allgather and Alltoall are read alike");
_Static_assert(SAME_REDUCE(Allreduce, Scan) && SAME_REDUCE(Allreduce, Exscan) &&
                   F_MPI_Allreduce_count == F_MPI_Reduce_scatter_block_recvcount &&
                   SAME_F(Allreduce, Reduce_scatter_block, sbuf) && SAME_F(Allreduce, Reduce_scatter_block, rbuf) &&
                   SAME_F(Allreduce, Reduce_scatter_block, type),
               "Allreduce, Scan, Exscan and Reduce_scatter_block are read alike");
_Static_assert(SAME_GATHER(Neighbor_allgather, Neighbor_alltoall), "Neighbor_allgather and _alltoall are read alike");
#undef SAME_REDUCE
#undef SAME_GATHER
#undef SAME_F

int t2g_do_coll(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	int kind = ci->coll;
	unsigned commf = (unsigned)ci->fcomm;
	cref cr;
	ir_coll_args a;
	int64_t cnt = 0, root = 0, cnt2;
	uint64_t tsz = 0, tsz2, buf1 = 0, buf2 = 0, s1 = 0, s2 = 0;
	enum ir_coll_alg alg;
	uint32_t p;
	int rc;
	double extra = 0;
	emitted em;

	if (kind == IR_COLL_COMM_CREATE || kind == IR_COLL_COMM_SPLIT) {
		/* communicator creation (docs/trace2goal.md, "Communicator creation"; allprof traces
		 * only, see do_call in ir_t2g_call.c): not as Schedgen (which leaves it out), not with
		 * --coll comm_create=local */
		enum ir_coll_alg ca = g->alg[kind];
		if ((ca == IR_ALG_DEFAULT && g->o->compat_schedgen) || ca == IR_ALG_LOCAL)
			return 0;
	}
	rc = t2g_arg_comm(g, R, r, commf, &cr, e);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return 0; /* skipped: its time runs on as computation */
	p = cr.size;
	memset(&a, 0, sizeof a);
	a.p = p;
	a.r = cr.me;
	if (t2g_blk_room(g, p, e))
		return -1;
	switch (kind) {
	case IR_COLL_BARRIER:
	case IR_COLL_COMM_CREATE:
	case IR_COLL_COMM_SPLIT:
		break;
	case IR_COLL_BCAST:
		if (arg_u64(R, r, F_MPI_Bcast_buf, &buf1, e) || arg_count(R, r, F_MPI_Bcast_count, &cnt, e) ||
		    arg_type(R, r, F_MPI_Bcast_type, &tsz, e) || arg_int(R, r, F_MPI_Bcast_root, &root, e))
			return -1;
		a.s = s1 = (uint64_t)cnt * tsz;
		break;
	case IR_COLL_REDUCE:
		if (arg_u64(R, r, F_MPI_Reduce_sbuf, &buf1, e) || arg_u64(R, r, F_MPI_Reduce_rbuf, &buf2, e) ||
		    arg_count(R, r, F_MPI_Reduce_count, &cnt, e) || arg_type(R, r, F_MPI_Reduce_type, &tsz, e) ||
		    arg_int(R, r, F_MPI_Reduce_root, &root, e))
			return -1;
		a.s = s1 = s2 = (uint64_t)cnt * tsz;
		break;
	case IR_COLL_ALLREDUCE: /* sbuf rbuf count type op comm */
	case IR_COLL_SCAN:
	case IR_COLL_EXSCAN:
	case IR_COLL_REDUCE_SCATTER_BLOCK: /* sbuf rbuf recvcount type op comm */
		if (arg_u64(R, r, F_MPI_Allreduce_sbuf, &buf1, e) || arg_u64(R, r, F_MPI_Allreduce_rbuf, &buf2, e) ||
		    arg_count(R, r, F_MPI_Allreduce_count, &cnt, e) || arg_type(R, r, F_MPI_Allreduce_type, &tsz, e))
			return -1;
		a.s = s1 = s2 = (uint64_t)cnt * tsz;
		if (kind == IR_COLL_REDUCE_SCATTER_BLOCK) {
			for (uint32_t i = 0; i < p; i++)
				g->blk[i] = a.s;
			a.block = g->blk;
			s1 = a.s * p;
		}
		break;
	case IR_COLL_ALLGATHER: /* sbuf scount stype rbuf rcount rtype comm */
	case IR_COLL_ALLTOALL:
	case IR_COLL_GATHER:    /* ... root comm */
	case IR_COLL_SCATTER:
		if (arg_u64(R, r, F_MPI_Gather_sbuf, &buf1, e) || arg_count(R, r, F_MPI_Gather_scount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Gather_stype, &tsz, e) || arg_u64(R, r, F_MPI_Gather_rbuf, &buf2, e) ||
		    arg_count(R, r, F_MPI_Gather_rcount, &cnt2, e) || arg_type(R, r, F_MPI_Gather_rtype, &tsz2, e))
			return -1;
		if (kind == IR_COLL_GATHER || kind == IR_COLL_SCATTER)
			if (arg_int(R, r, F_MPI_Gather_root, &root, e))
				return -1;
		/* MPI_IN_PLACE: the send block is the receive block (scatter: the root keeps its
		 * block in place, the receive arguments are ignored) */
		if (kind == IR_COLL_SCATTER ? in_place(r, F_MPI_Scatter_rbuf) : in_place(r, F_MPI_Gather_sbuf)) {
			if (kind == IR_COLL_SCATTER) {
				cnt2 = cnt;
				tsz2 = tsz;
			} else {
				cnt = cnt2;
				tsz = tsz2;
			}
		}
		/* the block: what one rank contributes (scatter: what one rank gets) */
		a.s = kind == IR_COLL_SCATTER ? (uint64_t)cnt2 * tsz2 : (uint64_t)cnt * tsz;
		s1 = (uint64_t)cnt * tsz;
		s2 = (uint64_t)cnt2 * tsz2;
		break;
	case IR_COLL_ALLGATHERV:
		if (arg_u64(R, r, F_MPI_Allgatherv_sbuf, &buf1, e) || arg_count(R, r, F_MPI_Allgatherv_scount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Allgatherv_stype, &tsz, e) || arg_u64(R, r, F_MPI_Allgatherv_rbuf, &buf2, e) ||
		    get_list(R, r, F_MPI_Allgatherv_recvcounts_list, g->blk, p, e) ||
		    arg_type(R, r, F_MPI_Allgatherv_rtype, &tsz2, e))
			return -1;
		for (uint32_t i = 0; i < p; i++)
			g->blk[i] *= tsz2;
		a.block = g->blk;
		s1 = in_place(r, F_MPI_Allgatherv_sbuf) ? g->blk[cr.me] : (uint64_t)cnt * tsz;
		break;
	case IR_COLL_ALLTOALLV:
		if (arg_u64(R, r, F_MPI_Alltoallv_rbuf, &buf2, e) ||
		    get_list(R, r, F_MPI_Alltoallv_recvcounts_list, g->rblk, p, e) ||
		    arg_type(R, r, F_MPI_Alltoallv_rtype, &tsz2, e))
			return -1;
		if (in_place(r, F_MPI_Alltoallv_sbuf)) { /* send arrays "0:-": the receive side's */
			memcpy(g->sblk, g->rblk, p * sizeof *g->sblk);
			tsz = tsz2;
		} else if (arg_u64(R, r, F_MPI_Alltoallv_sbuf, &buf1, e) ||
		           get_list(R, r, F_MPI_Alltoallv_sendcounts_list, g->sblk, p, e) ||
		           arg_type(R, r, F_MPI_Alltoallv_stype, &tsz, e)) {
			return -1;
		}
		for (uint32_t i = 0; i < p; i++) {
			g->sblk[i] *= tsz;
			g->rblk[i] *= tsz2;
			s1 += g->sblk[i];
			s2 += g->rblk[i];
		}
		a.sblock = g->sblk;
		a.rblock = g->rblk;
		break;
	case COLL_ALLTOALLW: /* the type lists hold one datatype per rank, ';'-separated */
		if (!in_place(r, F_MPI_Alltoallw_sbuf)) {
			if (arg_u64(R, r, F_MPI_Alltoallw_sbuf, &buf1, e) ||
			    get_list(R, r, F_MPI_Alltoallw_sendcounts_list, g->sblk, p, e) ||
			    t2g_get_types(R, r, F_MPI_Alltoallw_sendtypes_list, g->blk, p, e))
				return -1;
			for (uint32_t i = 0; i < p; i++)
				g->sblk[i] *= g->blk[i];
		}
		if (arg_u64(R, r, F_MPI_Alltoallw_rbuf, &buf2, e) ||
		    get_list(R, r, F_MPI_Alltoallw_recvcounts_list, g->rblk, p, e) ||
		    t2g_get_types(R, r, F_MPI_Alltoallw_recvtypes_list, g->blk, p, e))
			return -1;
		for (uint32_t i = 0; i < p; i++) {
			g->rblk[i] *= g->blk[i];
			if (in_place(r, F_MPI_Alltoallw_sbuf)) /* send arrays "0:-": the receive side's */
				g->sblk[i] = g->rblk[i];
			s1 += g->sblk[i];
			s2 += g->rblk[i];
		}
		a.sblock = g->sblk;
		a.rblock = g->rblk;
		kind = IR_COLL_ALLTOALLV;
		break;
	case IR_COLL_GATHERV:
		if (arg_u64(R, r, F_MPI_Gatherv_sbuf, &buf1, e) || arg_count(R, r, F_MPI_Gatherv_scount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Gatherv_stype, &tsz, e) || arg_int(R, r, F_MPI_Gatherv_root, &root, e))
			return -1;
		a.s = s1 = (uint64_t)cnt * tsz;
		if (root == (int64_t)cr.me) {
			if (arg_u64(R, r, F_MPI_Gatherv_rbuf, &buf2, e) ||
			    get_list(R, r, F_MPI_Gatherv_recvcounts_list, g->blk, p, e) ||
			    arg_type(R, r, F_MPI_Gatherv_rtype, &tsz2, e))
				return -1;
			for (uint32_t i = 0; i < p; i++) {
				g->blk[i] *= tsz2;
				s2 += g->blk[i];
			}
			a.block = g->blk;
			if (in_place(r, F_MPI_Gatherv_sbuf)) /* the root's own block is already in place */
				a.s = s1 = g->blk[cr.me];
		}
		break;
	case IR_COLL_SCATTERV:
		if (arg_u64(R, r, F_MPI_Scatterv_rbuf, &buf2, e) || arg_count(R, r, F_MPI_Scatterv_rcount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Scatterv_rtype, &tsz, e) || arg_int(R, r, F_MPI_Scatterv_root, &root, e))
			return -1;
		a.s = s2 = (uint64_t)cnt * tsz;
		if (root == (int64_t)cr.me) {
			if (arg_u64(R, r, F_MPI_Scatterv_sbuf, &buf1, e) ||
			    get_list(R, r, F_MPI_Scatterv_sendcounts_list, g->blk, p, e) ||
			    arg_type(R, r, F_MPI_Scatterv_stype, &tsz2, e))
				return -1;
			for (uint32_t i = 0; i < p; i++) {
				g->blk[i] *= tsz2;
				s1 += g->blk[i];
			}
			a.block = g->blk;
			if (in_place(r, F_MPI_Scatterv_rbuf)) /* the root keeps its own block in place */
				a.s = s2 = g->blk[cr.me];
		}
		break;
	case IR_COLL_REDUCE_SCATTER:
		if (arg_u64(R, r, F_MPI_Reduce_scatter_sbuf, &buf1, e) || arg_u64(R, r, F_MPI_Reduce_scatter_rbuf, &buf2, e) ||
		    get_list(R, r, F_MPI_Reduce_scatter_recvcounts_list, g->blk, p, e) ||
		    arg_type(R, r, F_MPI_Reduce_scatter_type, &tsz, e))
			return -1;
		for (uint32_t i = 0; i < p; i++) {
			g->blk[i] *= tsz;
			s1 += g->blk[i];
		}
		s2 = g->blk[cr.me];
		a.block = g->blk;
		break;
	default:
		return t2g_errat(R, e, "%s: unsupported collective", r->name);
	}
	if (root < 0 || root >= (int64_t)p)
		return t2g_errat(R, e, "%s: root %" PRId64 " outside a communicator of %u ranks", r->name, root, p);
	a.root = (uint32_t)root;
	/* local work (docs/trace2goal.md, "Local work"): no copy of the own block in place; the
	 * library's local copy (coll_copy) where the parameters have it, else a message to oneself */
	if ((g->o->net.coll_copy.n || g->o->net.copy.n) && !own_in_place(r, ci->coll, a.r == a.root))
		a.copy = g->o->net.coll_copy.n ? &g->o->net.coll_copy : &g->o->net.copy;
	if (g->o->net.reduce.n)
		a.reduce = &g->o->net.reduce;
	/* the nonblocking form has its own algorithms (docs/trace2goal.md, "Collectives") */
	alg = g->alg[kind + (ci->nb ? IR_COLL_NKINDS : 0)];
	if (alg == IR_ALG_DEFAULT && ci->nb)
		alg = g->o->compat_schedgen ? g->alg[kind]
		                            : ir_coll_default_nb(kind, p, a.s,
		                                                 kind == IR_COLL_ALLREDUCE && in_place(r, F_MPI_Allreduce_sbuf));
	if (ir_coll_build(&g->cg, kind, alg, &a, e))
		return ir_err_prefix(e, R->fname), -1;
	if (stage_room(g))
		return ir_errf(e, "out of memory");
	{
		int64_t tag = coll_tag(cr.c);
		for (size_t i = 0; i < g->cg.nop; i++) {
			g->ctag[i] = tag;
			g->cpeer[i] = (int32_t)world_of(&cr, g->cg.op[i].peer);
			g->cg.op[i].peer = 0;
		}
	}
	t2g_coll_seq_note(cr.c, kind, kind == IR_COLL_BCAST || kind == IR_COLL_REDUCE || kind == IR_COLL_GATHER ||
	                                      kind == IR_COLL_GATHERV || kind == IR_COLL_SCATTER || kind == IR_COLL_SCATTERV
	                                  ? root
	                                  : -1);
	extra = pin_cost(g, R, buf1, s1) + pin_cost(g, R, buf2, s2) + t2g_nbc_cost(g, ci) + comm_nbc_cost(g, kind, alg);
	if (t2g_emit_call(g, R, r, ci->nb ? ENDS_GAP : ENDS_JOIN, 1, extra, &em, e))
		return -1;
	return ci->nb ? t2g_reg_nbcoll(g, R, r, ci, &em, e) : 0;
}

/* A collective without data over cr (a barrier, or the agreement of communicator creation,
 * kind IR_COLL_BARRIER or IR_COLL_COMM_CREATE) for a call that is none of the collectives
 * above: window creation, free and fence (ir_t2g_win.c). The algorithm is the one --coll
 * chooses for the kind; with comm_create=local (or --compat schedgen's default) the call
 * emits no messages and keeps its time. */
int t2g_coll_plain(gstate *g, rstate *R, const ir_rec *r, const cref *cr, int kind, ir_err *e)
{
	ir_coll_args a;
	enum ir_coll_alg alg = g->alg[kind];
	emitted em;
	if (kind == IR_COLL_COMM_CREATE && ((alg == IR_ALG_DEFAULT && g->o->compat_schedgen) || alg == IR_ALG_LOCAL))
		kind = IR_COLL_BARRIER, alg = g->alg[kind];
	memset(&a, 0, sizeof a);
	a.p = cr->size;
	a.r = cr->me;
	if (t2g_blk_room(g, a.p, e))
		return -1;
	if (ir_coll_build(&g->cg, kind, alg, &a, e))
		return ir_err_prefix(e, R->fname), -1;
	if (stage_room(g))
		return ir_errf(e, "out of memory");
	{
		int64_t tag = coll_tag(cr->c);
		for (size_t i = 0; i < g->cg.nop; i++) {
			g->ctag[i] = tag;
			g->cpeer[i] = (int32_t)world_of(cr, g->cg.op[i].peer);
			g->cg.op[i].peer = 0;
		}
	}
	t2g_coll_seq_note(cr->c, kind, -1);
	return t2g_emit_call(g, R, r, ENDS_JOIN, 1, 0, &em, e);
}
