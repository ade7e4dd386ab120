/*
 * ir_t2g_topo.c: trace2goal's virtual topologies (part of ir_t2g, see
 * ir_t2g_internal.h).
 *
 * Cart_create, Cart_sub, Graph_create and the Dist_graph calls record each
 * rank's neighbours on the new communicator; the neighbourhood collectives
 * become messages to and from those neighbours. A topology stays relative to
 * its communicator until the communicator's '# comm' line gives its members.
 */
#include "ir_t2g_internal.h"

/* ------------------------------------------------------------------ topologies */

void t2g_topo_free(topo *t)
{
	if (!t)
		return;
	free(t->nbr);
	free(t->dims);
	free(t);
}

static topo *topo_new(uint32_t nin, uint32_t nout, uint32_t ndims)
{
	topo *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->nin = nin;
	t->nout = nout;
	t->ndims = ndims;
	t->nbr = malloc(((size_t)nin + nout + 1) * sizeof *t->nbr);
	t->dims = malloc(((size_t)ndims * 3 + 1) * sizeof *t->dims);
	if (!t->nbr || !t->dims) {
		t2g_topo_free(t);
		return NULL;
	}
	t->periods = t->dims + ndims;
	t->coords = t->dims + 2 * (size_t)ndims;
	return t;
}

/* Cartesian neighbours of t->coords (MPI order: per dimension the -1 then the +1 neighbour,
 * as in- and as out-neighbours), relative to the Cartesian communicator (row-major ranks). */
static void cart_neighbours(topo *t)
{
	for (uint32_t d = 0; d < t->ndims; d++)
		for (int k = 0; k < 2; k++) {
			int64_t c = t->coords[d] + (k ? 1 : -1), rank = 0;
			int32_t v;
			if (c < 0 || c >= t->dims[d]) {
				if (!t->periods[d]) {
					v = -2;
					goto set;
				}
				c = (c + t->dims[d]) % t->dims[d];
			}
			for (uint32_t i = 0; i < t->ndims; i++)
				rank = rank * t->dims[i] + (i == d ? c : t->coords[i]);
			v = (int32_t)rank;
		set:
			t->nbr[2 * d + (uint32_t)k] = v;
			t->nbr[t->nin + 2 * d + (uint32_t)k] = v;
		}
}

/* An int list field ("-" when empty) of exactly n values. */
static int get_ints(const rstate *R, const ir_rec *r, unsigned i, uint64_t *dst, size_t n, ir_err *e)
{
	if (n == 0 && strcmp(r->f[i], "-") == 0)
		return 0;
	if (ir_tf_list(r->f[i], dst, n) != (long)n) {
		char q[120];
		ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i]));
		return t2g_errat(R, e, "%s: argument %u: expected %zu comma-separated integers, found '%s'", r->name, i + 1, n, q);
	}
	return 0;
}

/* Cart_create, Cart_sub, Graph_create, Dist_graph_create_adjacent: remember the new
 * communicator's neighbours until its '# comm' line gives its members. Their time counts as
 * computation. */
int t2g_do_topo(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	int64_t id, me, sz, n1, n2;
	topo *t = NULL;
	uint64_t *a = NULL, *b = NULL;
	unsigned nc = ci->k == C_CART_CREATE ? F_MPI_Cart_create_newcomm
	              : ci->k == C_CART_SUB ? F_MPI_Cart_sub_newcomm
	              : ci->k == C_GRAPH_CREATE ? F_MPI_Graph_create_newcomm
	                                         : F_MPI_Dist_graph_create_adjacent_newcomm;
	int rc = -1;
	if (R->flavor != IR_TRACE_ALLPROF || ci->k == C_DIST_GRAPH)
		return 0; /* no communicator numbers (liballprof) or neighbours spread over ranks */
	if (ir_tf_triple(r->f[nc], &id, &me, &sz))
		return t2g_bad_arg(R, r, nc, "a communicator '<id>,<rank>,<size>'", e);
	if (id < 0 || me < 0 || me >= sz)
		return 0; /* MPI_COMM_NULL: this rank is not in the new communicator */
	switch (ci->k) {
	case C_CART_CREATE: /* comm ndims dims periods reorder newcomm */
	case C_CART_SUB: {  /* comm remain_dims newcomm */
		uint32_t nd;
		const topo *pt = NULL;
		if (ci->k == C_CART_CREATE) {
			if (arg_int(R, r, F_MPI_Cart_create_ndims, &n1, e))
				return -1;
			if (n1 < 0 || n1 > 64)
				return t2g_errat(R, e, "%s: argument %u: expected 0 to 64 dimensions, found %" PRId64, r->name,
				                 F_MPI_Cart_create_ndims + 1, n1);
			nd = (uint32_t)n1;
		} else {
			cref cr;
			long k;
			uint64_t rem[64];
			int c = t2g_arg_comm(g, R, r, F_MPI_Cart_sub_comm, &cr, e);
			if (c)
				return c < 0 ? -1 : 0;
			pt = cr.c->tp;
			if (!pt || !pt->ndims)
				return 0; /* not Cartesian: nothing to derive */
			if ((k = ir_tf_list(r->f[F_MPI_Cart_sub_remain_dims], rem, 64)) != (long)pt->ndims)
				return t2g_bad_arg(R, r, F_MPI_Cart_sub_remain_dims, "one remain_dims flag per dimension", e);
			nd = 0;
			for (uint32_t d = 0; d < pt->ndims; d++)
				nd += rem[d] != 0;
			t = topo_new(2 * nd, 2 * nd, nd);
			if (!t)
				return ir_errf(e, "out of memory");
			nd = 0;
			for (uint32_t d = 0; d < pt->ndims; d++)
				if (rem[d]) {
					t->dims[nd] = pt->dims[d];
					t->periods[nd] = pt->periods[d];
					t->coords[nd] = pt->coords[d];
					nd++;
				}
		}
		if (!t) {
			int64_t prod = 1, rest = me;
			t = topo_new(2 * nd, 2 * nd, nd);
			a = malloc((nd + 1) * sizeof *a);
			b = malloc((nd + 1) * sizeof *b);
			if (!t || !a || !b) {
				ir_errf(e, "out of memory");
				goto out;
			}
			if (get_ints(R, r, F_MPI_Cart_create_dims, a, nd, e) || get_ints(R, r, F_MPI_Cart_create_periods, b, nd, e))
				goto out;
			for (uint32_t d = 0; d < nd; d++) {
				if (a[d] == 0 || a[d] > INT32_MAX || (prod *= (int64_t)a[d]) > INT32_MAX) {
					t2g_errat(R, e, "%s: argument %u: expected positive dimensions, found %" PRIu64, r->name,
					          F_MPI_Cart_create_dims + 1, a[d]);
					goto out;
				}
				t->dims[d] = (int64_t)a[d];
				t->periods[d] = b[d] != 0;
			}
			if (me >= prod) {
				rc = 0; /* not in the grid */
				goto out;
			}
			for (uint32_t d = nd; d-- > 0;) {
				t->coords[d] = rest % t->dims[d];
				rest /= t->dims[d];
			}
		}
		cart_neighbours(t);
		t->rel = 1;
		break;
	}
	case C_GRAPH_CREATE: { /* comm nnodes index edges reorder newcomm */
		int64_t lo, hi;
		long ne;
		if (arg_int(R, r, F_MPI_Graph_create_nnodes, &n1, e))
			return -1;
		if (n1 <= 0 || n1 > (int64_t)g->nranks)
			return t2g_errat(R, e, "%s: argument %u: expected 1 to %u nodes, found %" PRId64, r->name,
			                 F_MPI_Graph_create_nnodes + 1, g->nranks, n1);
		if (me >= n1)
			return 0;
		a = malloc((size_t)n1 * sizeof *a);
		if (!a)
			return ir_errf(e, "out of memory");
		if (get_ints(R, r, F_MPI_Graph_create_index, a, (size_t)n1, e))
			goto out;
		lo = me ? (int64_t)a[me - 1] : 0;
		hi = (int64_t)a[me];
		if (hi < lo || hi > (int64_t)a[n1 - 1] || a[n1 - 1] > (1u << 24)) {
			t2g_errat(R, e, "%s: argument %u: expected a non-decreasing index, found %" PRId64 " before %" PRId64, r->name,
			          F_MPI_Graph_create_index + 1,
			          lo, hi);
			goto out;
		}
		b = malloc(((size_t)a[n1 - 1] + 1) * sizeof *b);
		if (!b) {
			ir_errf(e, "out of memory");
			goto out;
		}
		ne = a[n1 - 1] ? ir_tf_list(r->f[F_MPI_Graph_create_edges], b, (size_t)a[n1 - 1]) : 0;
		if (ne != (long)a[n1 - 1]) {
			t2g_bad_arg(R, r, F_MPI_Graph_create_edges, "as many edges as the index says", e);
			goto out;
		}
		t = topo_new((uint32_t)(hi - lo), (uint32_t)(hi - lo), 0);
		if (!t) {
			ir_errf(e, "out of memory");
			goto out;
		}
		for (int64_t k = lo; k < hi; k++) {
			if (b[k] >= (uint64_t)n1) {
				t2g_errat(R, e, "%s: argument %u: edge to node %" PRIu64 " of a graph of %" PRId64, r->name,
				          F_MPI_Graph_create_edges + 1, b[k], n1);
				goto out;
			}
			t->nbr[k - lo] = t->nbr[t->nin + (k - lo)] = (int32_t)b[k];
		}
		t->rel = 1;
		break;
	}
	case C_DIST_GRAPH_ADJ: { /* comm indegree sources outdegree destinations reorder newcomm */
		cref cr;
		int c = t2g_arg_comm(g, R, r, F_MPI_Dist_graph_create_adjacent_comm, &cr, e);
		if (c)
			return c < 0 ? -1 : 0;
		if (arg_count(R, r, F_MPI_Dist_graph_create_adjacent_indegree, &n1, e) ||
		    arg_count(R, r, F_MPI_Dist_graph_create_adjacent_outdegree, &n2, e))
			return -1;
		if (n1 > (1 << 24) || n2 > (1 << 24))
			return t2g_errat(R, e, "%s: more than 2^24 neighbours", r->name);
		t = topo_new((uint32_t)n1, (uint32_t)n2, 0);
		a = malloc(((size_t)(n1 > n2 ? n1 : n2) + 1) * sizeof *a);
		if (!t || !a) {
			ir_errf(e, "out of memory");
			goto out;
		}
		for (int k = 0; k < 2; k++) {
			int64_t n = k ? n2 : n1;
			if (get_ints(R, r,
			             k ? F_MPI_Dist_graph_create_adjacent_destinations : F_MPI_Dist_graph_create_adjacent_sources,
			             a, (size_t)n, e))
				goto out;
			for (int64_t j = 0; j < n; j++) {
				if (a[j] >= cr.size) {
					t2g_errat(R, e, "%s: argument %u: neighbour %" PRIu64 " outside a communicator of %u ranks", r->name,
					          (k ? F_MPI_Dist_graph_create_adjacent_destinations : F_MPI_Dist_graph_create_adjacent_sources) + 1,
					          a[j], cr.size);
					goto out;
				}
				t->nbr[(k ? t->nin : 0) + (uint32_t)j] = (int32_t)world_of(&cr, (int64_t)a[j]);
			}
		}
		t->rel = 0;
		break;
	}
	default:
		return 0;
	}
	t->id = (uint64_t)id;
	t2g_topo_free(R->ptopo);
	R->ptopo = t;
	t = NULL;
	rc = 0;
out:
	t2g_topo_free(t);
	free(a);
	free(b);
	return rc;
}

/* Neighbourhood collectives: a receive from every in-neighbour and a send to every
 * out-neighbour, all at once, with the communicator's collective tag. */
int t2g_do_neigh(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	unsigned commf = (unsigned)ci->fcomm;
	cref cr;
	const topo *t;
	int rc = t2g_arg_comm(g, R, r, commf, &cr, e);
	uint64_t sbuf = 0, rbuf = 0, stot = 0, rtot = 0, ssz = 0, rsz = 0, tsz;
	int64_t cnt;
	int64_t tag;
	emitted em;
	if (rc)
		return rc < 0 ? -1 : 0;
	t = cr.c->tp;
	if (!t || t->rel) {
		if (!g->no_topo++)
			t2g_warn(g, "%s:%lu: %s on a communicator without a known topology skipped (Cart_create, Cart_sub, "
			         "Graph_create and Dist_graph_create_adjacent of allprof traces are known; see the count at the "
			         "end)", R->fname, R->line, r->name);
		return 0;
	}
	if (t2g_blk_room(g, (t->nin > t->nout ? t->nin : t->nout) + 1, e))
		return -1;
	switch (ci->coll) {
	case NB_ALLGATHER:
	case NB_ALLTOALL:
		if (arg_u64(R, r, F_MPI_Neighbor_allgather_sbuf, &sbuf, e) ||
		    arg_count(R, r, F_MPI_Neighbor_allgather_scount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Neighbor_allgather_stype, &tsz, e))
			return -1;
		ssz = (uint64_t)cnt * tsz;
		if (arg_u64(R, r, F_MPI_Neighbor_allgather_rbuf, &rbuf, e) ||
		    arg_count(R, r, F_MPI_Neighbor_allgather_rcount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Neighbor_allgather_rtype, &tsz, e))
			return -1;
		rsz = (uint64_t)cnt * tsz;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] = ssz;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] = rsz;
		break;
	case NB_ALLGATHERV:
		if (arg_u64(R, r, F_MPI_Neighbor_allgatherv_sbuf, &sbuf, e) ||
		    arg_count(R, r, F_MPI_Neighbor_allgatherv_scount, &cnt, e) ||
		    arg_type(R, r, F_MPI_Neighbor_allgatherv_stype, &tsz, e))
			return -1;
		ssz = (uint64_t)cnt * tsz;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] = ssz;
		if (arg_u64(R, r, F_MPI_Neighbor_allgatherv_rbuf, &rbuf, e) ||
		    arg_type(R, r, F_MPI_Neighbor_allgatherv_rtype, &tsz, e) ||
		    get_ints(R, r, F_MPI_Neighbor_allgatherv_recvcounts_list, g->rblk, t->nin, e))
			return -1;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] *= tsz;
		break;
	case NB_ALLTOALLV:
		if (arg_u64(R, r, F_MPI_Neighbor_alltoallv_sbuf, &sbuf, e) ||
		    arg_type(R, r, F_MPI_Neighbor_alltoallv_stype, &tsz, e) ||
		    get_ints(R, r, F_MPI_Neighbor_alltoallv_sendcounts_list, g->sblk, t->nout, e))
			return -1;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] *= tsz;
		if (arg_u64(R, r, F_MPI_Neighbor_alltoallv_rbuf, &rbuf, e) ||
		    arg_type(R, r, F_MPI_Neighbor_alltoallv_rtype, &tsz, e) ||
		    get_ints(R, r, F_MPI_Neighbor_alltoallv_recvcounts_list, g->rblk, t->nin, e))
			return -1;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] *= tsz;
		break;
	case NB_ALLTOALLW:
		if (arg_u64(R, r, F_MPI_Neighbor_alltoallw_sbuf, &sbuf, e) ||
		    get_ints(R, r, F_MPI_Neighbor_alltoallw_sendcounts_list, g->sblk, t->nout, e) ||
		    (t->nout && t2g_get_types(R, r, F_MPI_Neighbor_alltoallw_sendtypes_list, g->blk, t->nout, e)))
			return -1;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] *= g->blk[k];
		if (arg_u64(R, r, F_MPI_Neighbor_alltoallw_rbuf, &rbuf, e) ||
		    get_ints(R, r, F_MPI_Neighbor_alltoallw_recvcounts_list, g->rblk, t->nin, e) ||
		    (t->nin && t2g_get_types(R, r, F_MPI_Neighbor_alltoallw_recvtypes_list, g->blk, t->nin, e)))
			return -1;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] *= g->blk[k];
		break;
	default:
		return t2g_errat(R, e, "%s: unsupported collective", r->name);
	}
	ir_cg_reset(&g->cg);
	tag = coll_tag(cr.c);
	for (uint32_t k = 0; k < t->nin; k++) {
		int32_t peer = t->nbr[k];
		rtot += g->rblk[k];
		if (peer < 0)
			continue;
		if (stage(g, IR_OP_RECV, peer, g->rblk[k], tag) < 0)
			return ir_errf(e, "out of memory");
		if (t2g_count_pair(g, (uint32_t)peer, R->rank, 0, e))
			return -1;
	}
	for (uint32_t k = 0; k < t->nout; k++) {
		int32_t peer = t->nbr[t->nin + k];
		stot += g->sblk[k];
		if (peer < 0)
			continue;
		if (stage(g, IR_OP_SEND, peer, g->sblk[k], tag) < 0)
			return ir_errf(e, "out of memory");
		if (t2g_count_pair(g, R->rank, (uint32_t)peer, 1, e))
			return -1;
	}
	if (ci->coll == NB_ALLGATHER || ci->coll == NB_ALLGATHERV)
		stot = ssz; /* one send buffer for every neighbour */
	t2g_coll_seq_note(cr.c, IR_COLL_NKINDS + ci->coll, -1);
	if (t2g_emit_call(g, R, r, ci->nb ? ENDS_GAP : ENDS_JOIN, 1,
	                  pin_cost(g, R, sbuf, stot) + pin_cost(g, R, rbuf, rtot) + t2g_nbc_cost(g, ci), &em, e))
		return -1;
	return ci->nb ? t2g_reg_nbcoll(g, R, r, ci, &em, e) : 0;
}
