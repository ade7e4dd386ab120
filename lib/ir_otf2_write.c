/*
 * ir_otf2_write.c: allprof text traces to an OTF2 archive (ir_otf2.h;
 * formats/trace.md section 7.2), for `allprof --format otf2`.
 *
 * The tracer keeps writing its text (it is an MPI library preloaded into
 * every rank and stays free of libotf2); the launcher converts the traces
 * once the run has finished. Every call line becomes an Enter and a Leave of
 * a region named by the call, with the MPI records OTF2 has for it between
 * them: MpiSend/MpiRecv, MpiIsend/MpiIrecvRequest at the call and
 * MpiIsendComplete/MpiIrecv/MpiRequestCancelled at the completion,
 * MpiRequestTest for an unsuccessful poll, MpiCollectiveBegin/End with the
 * byte totals counted as Score-P counts them (so that ir_otf2.c's mapping
 * reads them back). Communicators: a `# comm` line's member list and its
 * occurrence on the rank (the k-th communicator with those members is the
 * k-th on every member, section 2) name one global OTF2 communicator.
 *
 * Times: the traces' times with their clock corrections, in picoseconds
 * (a 1 THz timer); the global offset is the earliest time, rounded down to a
 * whole microsecond so that a reader's epoch (rank 0's MPI_Init return, cut
 * to the microsecond) falls on the same instant as with the text. A call
 * that starts before the previous one returned (clock corrections) starts at
 * that return, so every location's records are in time order.
 *
 * Not written as MPI records (only their Enter and Leave): the v- and
 * w-collectives, nonblocking and neighbourhood collectives, probes, one-sided
 * and every local call; sends and receives to or from MPI_PROC_NULL.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "ir_grow.h"
#include "ir_hmap.h"
#include "ir_otf2.h"
#include "ir_t2g_calls.h"

#define BIAS 1000000000000000ull /* ps added to every time (1000 s), so times before the epoch fit */

typedef struct gcomm {
	uint32_t *m;
	uint32_t n;
	uint64_t occ;
} gcomm;

typedef struct wreq {
	int kind;         /* 1 send, 2 receive */
	int persistent;
	uint32_t comm;    /* OTF2 communicator */
	int64_t peer, tag;
	uint64_t bytes;
} wreq;

typedef struct wstate {
	const char *fname;
	unsigned long line;
	uint32_t rank, nranks;
	OTF2_EvtWriter *w;
	char **regions;   /* region names, global */
	size_t nregions, capregions;
	gcomm *gc;        /* communicators beyond world and self, global */
	size_t ngc, capgc;
	ir_hmap cmap;     /* this rank: text id + 1 -> OTF2 comm ref */
	ir_hmap occ;      /* this rank: member-list hash -> count */
	ir_hmap reqs;     /* this rank: request id -> wreq */
	uint64_t tmin, tmax, last;
	ir_err *e;
} wstate;

static int bad(wstate *S, const char *name, const char *what)
{
	return ir_errf_at(S->e, S->fname, S->line, "%s: %s", name, what);
}

static uint32_t region_of(wstate *S, const char *name)
{
	for (size_t i = 0; i < S->nregions; i++)
		if (!strcmp(S->regions[i], name))
			return (uint32_t)i;
	if (IR_GROW(S->regions, S->nregions + 1, S->capregions))
		return UINT32_MAX;
	if (!(S->regions[S->nregions] = strdup(name)))
		return UINT32_MAX;
	return (uint32_t)S->nregions++;
}

static uint64_t members_hash(const uint32_t *m, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL;
	for (size_t i = 0; i < n; i++)
		h = ir_hmix64(h ^ m[i]) + i;
	return h;
}

static int add_comm(wstate *S, const ir_rec *r)
{
	uint64_t *cnt, k;
	uint32_t *ref;
	size_t i;
	if (r->comm_id <= 1)
		return 0;
	for (i = 0; i < r->nmembers; i++)
		if (r->members[i] >= S->nranks)
			return ir_errf_at(S->e, S->fname, S->line, "'# comm %" PRIu64 "': member %u is not a world rank",
			                  r->comm_id, r->members[i]);
	cnt = ir_hmap_put(&S->occ, members_hash(r->members, r->nmembers), 0, NULL);
	if (!cnt)
		return ir_errf(S->e, "out of memory");
	k = (*cnt)++;
	for (i = 0; i < S->ngc; i++)
		if (S->gc[i].occ == k && S->gc[i].n == r->nmembers &&
		    !memcmp(S->gc[i].m, r->members, r->nmembers * sizeof *r->members))
			break;
	if (i == S->ngc) {
		if (IR_GROW(S->gc, S->ngc + 1, S->capgc))
			return ir_errf(S->e, "out of memory");
		S->gc[i].m = malloc((r->nmembers ? r->nmembers : 1) * sizeof *S->gc[i].m);
		if (!S->gc[i].m)
			return ir_errf(S->e, "out of memory");
		memcpy(S->gc[i].m, r->members, r->nmembers * sizeof *r->members);
		S->gc[i].n = (uint32_t)r->nmembers;
		S->gc[i].occ = k;
		S->ngc++;
	}
	ref = ir_hmap_put(&S->cmap, r->comm_id + 1, 0, NULL);
	if (!ref)
		return ir_errf(S->e, "out of memory");
	*ref = (uint32_t)(2 + i);
	return 0;
}

/* A communicator field: its OTF2 reference, rank in it and size. */
static int comm_field(wstate *S, const ir_rec *r, unsigned fi, uint32_t *ref, int64_t *me, int64_t *size)
{
	int64_t id;
	const uint32_t *v;
	if (fi >= r->nf || ir_tf_triple(r->f[fi], &id, me, size) || id < 0 || *size <= 0)
		return bad(S, r->name, "expected a communicator '<id>,<rank>,<size>'");
	if (id == 0) {
		*ref = 0;
		return 0;
	}
	if (id == 1) {
		*ref = 1;
		return 0;
	}
	v = ir_hmap_get(&S->cmap, (uint64_t)id + 1, 0);
	if (!v)
		return bad(S, r->name, "a communicator without a '# comm' line");
	*ref = *v;
	return 0;
}

static int int_field(wstate *S, const ir_rec *r, unsigned fi, int64_t *v)
{
	if (fi >= r->nf || ir_tf_int(r->f[fi], v))
		return bad(S, r->name, "expected an integer field");
	return 0;
}

/* count x the size of the datatype in field ti */
static int bytes_field(wstate *S, const ir_rec *r, unsigned ci, unsigned ti, uint64_t *bytes)
{
	int64_t count, id, size, ext;
	if (int_field(S, r, ci, &count))
		return -1;
	if (ti >= r->nf || ir_tf_triple(r->f[ti], &id, &size, &ext))
		return bad(S, r->name, "expected a datatype '<id>,<size>,<extent>'");
	*bytes = count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
	return 0;
}

static int req_field(wstate *S, const char *name, const char *f, uint64_t *id)
{
	int is_id = 0;
	if (ir_tf_handle(f, id, &is_id) || !is_id)
		return bad(S, name, "expected a request 'r<id>'");
	return 0;
}

/* Split list field f (separator sep, "-" empty) into *out (malloc'd; modifies f): the count,
 * or -1 when memory runs out. */
static long split(char *f, int sep, char ***out)
{
	size_t n = 1, k = 0;
	*out = NULL;
	if (!strcmp(f, "-") || !*f)
		return 0;
	for (const char *p = f; *p; p++)
		n += *p == sep;
	if (!(*out = malloc(n * sizeof **out)))
		return -1;
	for (;;) {
		char *s = strchr(f, sep);
		(*out)[k++] = f;
		if (!s)
			break;
		*s = 0;
		f = s + 1;
	}
	return (long)k;
}

/* Request id completed with status st ("src,tag,bytes"; NULL: a successful send). */
static int complete(wstate *S, const char *name, uint64_t id, const char *st, uint64_t t)
{
	wreq *q;
	int64_t src = -1, tag = -1, bytes = 0;
	if (id == 0)
		return 0;
	q = ir_hmap_get(&S->reqs, id, 0);
	if (!q)
		return 0; /* made by a call allprof does not record */
	if (st && strcmp(st, "-") && ir_tf_triple(st, &src, &tag, &bytes))
		return bad(S, name, "expected a status '<source>,<tag>,<bytes>'");
	if (q->kind == 1) {
		OTF2_EvtWriter_MpiIsendComplete(S->w, NULL, t, id);
	} else if (src == -1 && tag == -1 && bytes == 0) {
		OTF2_EvtWriter_MpiRequestCancelled(S->w, NULL, t, id);
	} else if (src >= 0) {
		OTF2_EvtWriter_MpiIrecv(S->w, NULL, t, (uint32_t)src, q->comm, (uint32_t)tag, (uint64_t)bytes, id);
	}
	if (!q->persistent)
		ir_hmap_del(&S->reqs, q);
	return 0;
}

static int new_req(wstate *S, const ir_rec *r, unsigned fi, int kind, int persistent, uint32_t comm, int64_t peer,
                   int64_t tag, uint64_t bytes, uint64_t *id)
{
	wreq *q;
	if (fi >= r->nf || req_field(S, r->name, r->f[fi], id))
		return -1;
	q = ir_hmap_put(&S->reqs, *id, 0, NULL);
	if (!q)
		return ir_errf(S->e, "out of memory");
	q->kind = kind;
	q->persistent = persistent;
	q->comm = comm;
	q->peer = peer;
	q->tag = tag;
	q->bytes = bytes;
	return 0;
}

static void start(wstate *S, uint64_t id, uint64_t t)
{
	wreq *q = ir_hmap_get(&S->reqs, id, 0);
	if (!q || q->peer < 0)
		return;
	if (q->kind == 1)
		OTF2_EvtWriter_MpiIsend(S->w, NULL, t, (uint32_t)q->peer, q->comm, (uint32_t)q->tag, q->bytes, id);
	else
		OTF2_EvtWriter_MpiIrecvRequest(S->w, NULL, t, id);
}

static OTF2_CollectiveOp coll_op(const char *b, int *ok)
{
	static const struct { const char *n; OTF2_CollectiveOp op; } t[] = {
		{ "Barrier", OTF2_COLLECTIVE_OP_BARRIER }, { "Bcast", OTF2_COLLECTIVE_OP_BCAST },
		{ "Gather", OTF2_COLLECTIVE_OP_GATHER }, { "Scatter", OTF2_COLLECTIVE_OP_SCATTER },
		{ "Allgather", OTF2_COLLECTIVE_OP_ALLGATHER }, { "Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL },
		{ "Reduce", OTF2_COLLECTIVE_OP_REDUCE }, { "Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
		{ "Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK }, { "Scan", OTF2_COLLECTIVE_OP_SCAN },
		{ "Exscan", OTF2_COLLECTIVE_OP_EXSCAN },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(b, t[i].n)) {
			*ok = 1;
			return t[i].op;
		}
	*ok = 0;
	return OTF2_COLLECTIVE_OP_BARRIER;
}

/* A blocking collective: Begin at the call, End with Score-P's byte totals at the return. */
static int coll(wstate *S, const ir_rec *r, uint64_t tc, uint64_t tr)
{
	const char *b = r->name + 4;
	int ok;
	OTF2_CollectiveOp op = coll_op(b, &ok);
	uint32_t comm, root = OTF2_UNDEFINED_UINT32;
	int64_t me, n, rt;
	uint64_t m = 0, sent = 0, recvd = 0, N;
	if (!ok)
		return 0;
	switch (op) {
	case OTF2_COLLECTIVE_OP_BARRIER:
		if (comm_field(S, r, 0, &comm, &me, &n))
			return -1;
		break;
	case OTF2_COLLECTIVE_OP_BCAST:
		if (comm_field(S, r, F_MPI_Bcast_comm, &comm, &me, &n) ||
		    bytes_field(S, r, F_MPI_Bcast_count, F_MPI_Bcast_type, &m) || int_field(S, r, F_MPI_Bcast_root, &rt))
			return -1;
		root = (uint32_t)rt;
		sent = rt == me ? (uint64_t)n * m : 0;
		recvd = m;
		break;
	case OTF2_COLLECTIVE_OP_REDUCE:
		if (comm_field(S, r, F_MPI_Reduce_comm, &comm, &me, &n) ||
		    bytes_field(S, r, F_MPI_Reduce_count, F_MPI_Reduce_type, &m) ||
		    int_field(S, r, F_MPI_Reduce_root, &rt))
			return -1;
		root = (uint32_t)rt;
		sent = m;
		recvd = rt == me ? (uint64_t)n * m : 0;
		break;
	case OTF2_COLLECTIVE_OP_ALLREDUCE:
	case OTF2_COLLECTIVE_OP_SCAN:
	case OTF2_COLLECTIVE_OP_EXSCAN:
		if (comm_field(S, r, F_MPI_Allreduce_comm, &comm, &me, &n) ||
		    bytes_field(S, r, F_MPI_Allreduce_count, F_MPI_Allreduce_type, &m))
			return -1;
		N = (uint64_t)n;
		if (op == OTF2_COLLECTIVE_OP_ALLREDUCE)
			sent = recvd = N * m;
		else if (op == OTF2_COLLECTIVE_OP_SCAN)
			sent = (N - (uint64_t)me) * m, recvd = ((uint64_t)me + 1) * m;
		else
			sent = (N - (uint64_t)me - 1) * m, recvd = (uint64_t)me * m;
		break;
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
		if (comm_field(S, r, F_MPI_Reduce_scatter_block_comm, &comm, &me, &n) ||
		    bytes_field(S, r, F_MPI_Reduce_scatter_block_recvcount, F_MPI_Reduce_scatter_block_type, &m))
			return -1;
		sent = recvd = (uint64_t)n * m;
		break;
	case OTF2_COLLECTIVE_OP_GATHER:
	case OTF2_COLLECTIVE_OP_SCATTER: {
		uint64_t sm, rm;
		if (comm_field(S, r, F_MPI_Gather_comm, &comm, &me, &n) ||
		    bytes_field(S, r, F_MPI_Gather_scount, F_MPI_Gather_stype, &sm) ||
		    bytes_field(S, r, F_MPI_Gather_rcount, F_MPI_Gather_rtype, &rm) || int_field(S, r, F_MPI_Gather_root, &rt))
			return -1;
		root = (uint32_t)rt;
		if (op == OTF2_COLLECTIVE_OP_GATHER) {
			/* MPI_IN_PLACE at the root: its own block is the receive block */
			sent = strcmp(r->f[F_MPI_Gather_sbuf], "-1") ? sm : rm;
			recvd = rt == me ? (uint64_t)n * rm : 0;
		} else {
			recvd = strcmp(r->f[F_MPI_Gather_rbuf], "-1") ? rm : sm;
			sent = rt == me ? (uint64_t)n * sm : 0;
		}
		break;
	}
	default: { /* allgather, alltoall */
		uint64_t sm, rm;
		if (comm_field(S, r, F_MPI_Allgather_comm, &comm, &me, &n) ||
		    bytes_field(S, r, F_MPI_Allgather_scount, F_MPI_Allgather_stype, &sm) ||
		    bytes_field(S, r, F_MPI_Allgather_rcount, F_MPI_Allgather_rtype, &rm))
			return -1;
		if (!strcmp(r->f[F_MPI_Allgather_sbuf], "-1"))
			sm = rm;
		sent = (uint64_t)n * sm;
		recvd = (uint64_t)n * rm;
		break;
	}
	}
	OTF2_EvtWriter_MpiCollectiveBegin(S->w, NULL, tc);
	OTF2_EvtWriter_MpiCollectiveEnd(S->w, NULL, tr, op, comm, root, sent, recvd);
	return 0;
}

static int is(const char *name, const char *a)
{
	return !strcmp(name, a);
}

static int is_send(const char *n)
{
	return is(n, "MPI_Send") || is(n, "MPI_Bsend") || is(n, "MPI_Ssend") || is(n, "MPI_Rsend");
}

static int is_isend(const char *n)
{
	return is(n, "MPI_Isend") || is(n, "MPI_Ibsend") || is(n, "MPI_Issend") || is(n, "MPI_Irsend");
}

static int is_send_init(const char *n)
{
	return is(n, "MPI_Send_init") || is(n, "MPI_Bsend_init") || is(n, "MPI_Ssend_init") || is(n, "MPI_Rsend_init");
}

/* Waitall, Testall, Waitany, Testany, Waitsome, Testsome. */
static int completions(wstate *S, ir_rec *r, uint64_t tr)
{
	const char *n = r->name;
	char **ids = NULL, **sts = NULL, **ix = NULL;
	long nid, nst = 0, nix = 0;
	int64_t flag = 1, k;
	uint64_t id;
	int rc = -1, all = n[8] == 'a' && n[9] == 'l', any = n[8] == 'a' && n[9] == 'n', test = n[4] == 'T';
	unsigned fst = all ? (test ? F_MPI_Testall_statuses : F_MPI_Waitall_statuses)
	                   : any ? (test ? F_MPI_Testany_status : F_MPI_Waitany_status)
	                         : (test ? F_MPI_Testsome_statuses : F_MPI_Waitsome_statuses);
	if (r->nf <= fst)
		return bad(S, n, "too few fields");
	if ((nid = split(r->f[1], ',', &ids)) < 0)
		return ir_errf(S->e, "out of memory");
	if (all) {
		if (test && int_field(S, r, F_MPI_Testall_flag, &flag))
			goto done;
		if (flag) {
			if ((nst = split(r->f[fst], ';', &sts)) < 0) {
				ir_errf(S->e, "out of memory");
				goto done;
			}
			for (long i = 0; i < nid; i++)
				if (req_field(S, n, ids[i], &id) || complete(S, n, id, i < nst ? sts[i] : NULL, tr))
					goto done;
			rc = 0;
			goto done;
		}
	} else if (any) {
		if (int_field(S, r, test ? F_MPI_Testany_index : F_MPI_Waitany_index, &k))
			goto done;
		if (k >= 0) {
			if (k >= nid) {
				bad(S, n, "an index outside the request list");
				goto done;
			}
			if (req_field(S, n, ids[k], &id) || complete(S, n, id, r->f[fst], tr))
				goto done;
			rc = 0;
			goto done;
		}
	} else {
		if (int_field(S, r, 2, &k))
			goto done;
		if (k > 0) {
			if ((nix = split(r->f[3], ',', &ix)) < 0 || (nst = split(r->f[fst], ';', &sts)) < 0) {
				ir_errf(S->e, "out of memory");
				goto done;
			}
			for (long i = 0; i < nix; i++) {
				int64_t x;
				if (ir_tf_int(ix[i], &x) || x < 0 || x >= nid) {
					bad(S, n, "an index outside the request list");
					goto done;
				}
				if (req_field(S, n, ids[x], &id) || complete(S, n, id, i < nst ? sts[i] : NULL, tr))
					goto done;
			}
			rc = 0;
			goto done;
		}
	}
	/* nothing completed: an unsuccessful poll of every request */
	for (long i = 0; test && i < nid; i++) {
		if (req_field(S, n, ids[i], &id))
			goto done;
		if (id)
			OTF2_EvtWriter_MpiRequestTest(S->w, NULL, tr, id);
	}
	rc = 0;
done:
	free(ids);
	free(sts);
	free(ix);
	return rc;
}

/* The MPI records of one call, between its Enter (tc) and Leave (tr). */
static int records(wstate *S, ir_rec *r, uint64_t tc, uint64_t tr)
{
	const char *n = r->name;
	uint32_t comm;
	int64_t me, sz, peer, tag, flag;
	uint64_t bytes, id;
	if (is_send(n) || is_isend(n) || is_send_init(n)) {
		if (comm_field(S, r, F_MPI_Send_comm, &comm, &me, &sz) ||
		    bytes_field(S, r, F_MPI_Send_count, F_MPI_Send_type, &bytes) || int_field(S, r, F_MPI_Send_dest, &peer) ||
		    int_field(S, r, F_MPI_Send_tag, &tag))
			return -1;
		if (is_send(n)) {
			if (peer >= 0)
				OTF2_EvtWriter_MpiSend(S->w, NULL, tc, (uint32_t)peer, comm, (uint32_t)tag, bytes);
			return 0;
		}
		if (new_req(S, r, F_MPI_Isend_request, 1, is_send_init(n), comm, peer, tag, bytes, &id))
			return -1;
		if (is_isend(n) && peer >= 0)
			OTF2_EvtWriter_MpiIsend(S->w, NULL, tc, (uint32_t)peer, comm, (uint32_t)tag, bytes, id);
		if (is_isend(n) && peer < 0) {
			wreq *q = ir_hmap_get(&S->reqs, id, 0);
			if (q)
				ir_hmap_del(&S->reqs, q);
		}
		return 0;
	}
	if (is(n, "MPI_Irecv") || is(n, "MPI_Recv_init")) {
		if (comm_field(S, r, F_MPI_Irecv_comm, &comm, &me, &sz) || int_field(S, r, F_MPI_Irecv_source, &peer))
			return -1;
		if (new_req(S, r, F_MPI_Irecv_request, 2, is(n, "MPI_Recv_init"), comm, peer, 0, 0, &id))
			return -1;
		if (is(n, "MPI_Irecv")) {
			if (peer != -2)
				OTF2_EvtWriter_MpiIrecvRequest(S->w, NULL, tc, id);
			else {
				wreq *q = ir_hmap_get(&S->reqs, id, 0);
				if (q)
					ir_hmap_del(&S->reqs, q);
			}
		}
		return 0;
	}
	if (is(n, "MPI_Recv")) {
		int64_t src, stag, sb;
		if (comm_field(S, r, F_MPI_Recv_comm, &comm, &me, &sz))
			return -1;
		if (F_MPI_Recv_status >= r->nf || ir_tf_triple(r->f[F_MPI_Recv_status], &src, &stag, &sb))
			return bad(S, n, "expected a status '<source>,<tag>,<bytes>'");
		if (src >= 0)
			OTF2_EvtWriter_MpiRecv(S->w, NULL, tr, (uint32_t)src, comm, (uint32_t)stag, (uint64_t)sb);
		return 0;
	}
	if (is(n, "MPI_Sendrecv") || is(n, "MPI_Sendrecv_replace")) {
		int rep = n[12] != 0;
		unsigned fc = rep ? F_MPI_Sendrecv_replace_comm : F_MPI_Sendrecv_comm;
		unsigned fs = rep ? F_MPI_Sendrecv_replace_status : F_MPI_Sendrecv_status;
		int64_t src, stag, sb;
		if (comm_field(S, r, fc, &comm, &me, &sz) ||
		    bytes_field(S, r, F_MPI_Sendrecv_scount, F_MPI_Sendrecv_stype, &bytes) ||
		    int_field(S, r, F_MPI_Sendrecv_dest, &peer) || int_field(S, r, F_MPI_Sendrecv_stag, &tag))
			return -1;
		if (fs >= r->nf || ir_tf_triple(r->f[fs], &src, &stag, &sb))
			return bad(S, n, "expected a status '<source>,<tag>,<bytes>'");
		if (peer >= 0)
			OTF2_EvtWriter_MpiSend(S->w, NULL, tc, (uint32_t)peer, comm, (uint32_t)tag, bytes);
		if (src >= 0)
			OTF2_EvtWriter_MpiRecv(S->w, NULL, tr, (uint32_t)src, comm, (uint32_t)stag, (uint64_t)sb);
		return 0;
	}
	if (is(n, "MPI_Start")) {
		if (r->nf < 1 || req_field(S, n, r->f[0], &id))
			return -1;
		start(S, id, tc);
		return 0;
	}
	if (is(n, "MPI_Startall") || is(n, "MPI_Request_free")) {
		char **ids;
		long k;
		if (is(n, "MPI_Request_free")) {
			wreq *q;
			if (r->nf < 1 || req_field(S, n, r->f[0], &id))
				return -1;
			if ((q = ir_hmap_get(&S->reqs, id, 0)))
				ir_hmap_del(&S->reqs, q);
			return 0;
		}
		if (r->nf < 2)
			return bad(S, n, "expected 2 fields");
		if ((k = split(r->f[F_MPI_Startall_requests], ',', &ids)) < 0)
			return ir_errf(S->e, "out of memory");
		for (long i = 0; i < k; i++) {
			if (req_field(S, n, ids[i], &id)) {
				free(ids);
				return -1;
			}
			start(S, id, tc);
		}
		free(ids);
		return 0;
	}
	if (is(n, "MPI_Wait")) {
		if (r->nf < 2 || req_field(S, n, r->f[F_MPI_Wait_request], &id))
			return bad(S, n, "expected a request and a status");
		return complete(S, n, id, r->f[F_MPI_Wait_status], tr);
	}
	if (is(n, "MPI_Test")) {
		if (r->nf < 3 || req_field(S, n, r->f[F_MPI_Test_request], &id) || int_field(S, r, F_MPI_Test_flag, &flag))
			return -1;
		if (!flag) {
			if (id)
				OTF2_EvtWriter_MpiRequestTest(S->w, NULL, tr, id);
			return 0;
		}
		return complete(S, n, id, r->f[F_MPI_Test_status], tr);
	}
	if (is(n, "MPI_Waitall") || is(n, "MPI_Testall") || is(n, "MPI_Waitany") || is(n, "MPI_Testany") ||
	    is(n, "MPI_Waitsome") || is(n, "MPI_Testsome"))
		return completions(S, r, tr);
	return coll(S, r, tc, tr);
}

static uint64_t tick(int64_t ps)
{
	return ps < -(int64_t)BIAS ? 0 : (uint64_t)(ps + (int64_t)BIAS);
}

static int write_rank(wstate *S, const ir_trace_file *tf, int64_t epoch, int no_clock)
{
	ir_trace_opts to = { epoch, no_clock };
	ir_trace *t = ir_trace_open_file(tf, &to, S->e);
	ir_rec r;
	int rc;
	if (!t)
		return -1;
	S->fname = tf->path;
	S->last = 0;
	while ((rc = ir_trace_next(t, &r, S->e)) == 1) {
		uint64_t tc, tr;
		uint32_t reg;
		S->line = r.line;
		if (r.kind == IR_REC_COMM) {
			if (add_comm(S, &r))
				break;
			continue;
		}
		if (r.t_call == IR_TIME_NONE && r.t_ret == IR_TIME_NONE)
			continue;
		tc = tick(r.t_call != IR_TIME_NONE ? r.t_call : r.t_ret);
		tr = tick(r.t_ret != IR_TIME_NONE ? r.t_ret : r.t_call);
		if (tc < S->last)
			tc = S->last;
		if (tr < tc)
			tr = tc;
		S->last = tr;
		if (tc < S->tmin)
			S->tmin = tc;
		if (tr > S->tmax)
			S->tmax = tr;
		if ((reg = region_of(S, r.name)) == UINT32_MAX) {
			ir_errf(S->e, "out of memory");
			rc = -1;
			break;
		}
		OTF2_EvtWriter_Enter(S->w, NULL, tc, reg);
		if (records(S, &r, tc, tr)) {
			rc = -1;
			break;
		}
		OTF2_EvtWriter_Leave(S->w, NULL, tr, reg);
	}
	ir_trace_free(t);
	return rc < 0 ? -1 : 0;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
	(void)ud, (void)ft, (void)loc, (void)cd, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud, (void)ft, (void)loc;
	return 0;
}

static OTF2_FlushCallbacks flush_cbs = { pre_flush, post_flush };

int ir_otf2_write(const ir_trace_files *files, const char *dir, const char *name, int no_clock, ir_err *e)
{
	wstate S;
	OTF2_Archive *ar;
	OTF2_GlobalDefWriter *gw;
	int64_t epoch;
	int rc = -1;
	uint32_t s_empty = 0, s_node, s_rank, s_thread, s_world, s_self, s_comm, s0;
	memset(&S, 0, sizeof S);
	S.e = e;
	S.nranks = (uint32_t)files->n;
	S.tmin = UINT64_MAX;
	if (files->n == 0)
		return ir_errf(e, "no traces to write");
	if (ir_trace_epoch_file(&files->f[0], &epoch, e))
		return -1;
	ir_otf2_quiet_errors();
	if (ir_otf2_archive_exists(dir, name))
		return ir_errf(e, "%s/%s.otf2: an OTF2 archive is already there", dir, name);
	ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
	                       OTF2_COMPRESSION_NONE);
	if (!ar)
		return ir_errf(e, "%s/%s.otf2: cannot create the OTF2 archive", dir, name);
	OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(ar);
	OTF2_Archive_OpenEvtFiles(ar);
	for (size_t i = 0; i < files->n; i++) {
		int r;
		S.rank = (uint32_t)i;
		ir_hmap_init(&S.cmap, sizeof(uint32_t), 16, 0);
		ir_hmap_init(&S.occ, sizeof(uint64_t), 16, 0);
		ir_hmap_init(&S.reqs, sizeof(wreq), 64, 0);
		S.w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)i);
		r = S.w ? write_rank(&S, &files->f[i], epoch, no_clock) : ir_errf(e, "%s: cannot write events", dir);
		if (S.w)
			OTF2_Archive_CloseEvtWriter(ar, S.w);
		ir_hmap_release(&S.cmap);
		ir_hmap_release(&S.occ);
		ir_hmap_release(&S.reqs);
		if (r)
			goto done;
	}
	OTF2_Archive_CloseEvtFiles(ar);
	OTF2_Archive_OpenDefFiles(ar);
	for (size_t i = 0; i < files->n; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)i);
		if (dw)
			OTF2_Archive_CloseDefWriter(ar, dw);
	}
	OTF2_Archive_CloseDefFiles(ar);
	gw = OTF2_Archive_GetGlobalDefWriter(ar);
	if (!gw) {
		ir_errf(e, "%s/%s.otf2: cannot write the definitions", dir, name);
		goto done;
	}
	if (S.tmin == UINT64_MAX)
		S.tmin = S.tmax = BIAS;
	S.tmin -= S.tmin % 1000000; /* a whole microsecond (see the top of the file) */
	OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000000ull, S.tmin, S.tmax - S.tmin, OTF2_UNDEFINED_TIMESTAMP);
	OTF2_GlobalDefWriter_WriteString(gw, s_empty, "");
	s0 = 1;
	for (size_t i = 0; i < S.nregions; i++)
		OTF2_GlobalDefWriter_WriteString(gw, s0 + (uint32_t)i, S.regions[i]);
	s_node = s0 + (uint32_t)S.nregions;
	s_rank = s_node + 1;
	s_thread = s_node + 2;
	s_world = s_node + 3;
	s_self = s_node + 4;
	s_comm = s_node + 5;
	OTF2_GlobalDefWriter_WriteString(gw, s_node, "node");
	OTF2_GlobalDefWriter_WriteString(gw, s_rank, "MPI Rank");
	OTF2_GlobalDefWriter_WriteString(gw, s_thread, "Master thread");
	OTF2_GlobalDefWriter_WriteString(gw, s_world, "MPI_COMM_WORLD");
	OTF2_GlobalDefWriter_WriteString(gw, s_self, "MPI_COMM_SELF");
	OTF2_GlobalDefWriter_WriteString(gw, s_comm, "MPI communicator");
	for (size_t i = 0; i < S.nregions; i++)
		OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)i, s0 + (uint32_t)i, s0 + (uint32_t)i, s_empty,
		                                 OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, s_empty,
		                                 0, 0);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, s_node, s_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (uint32_t i = 0; i < S.nranks; i++) {
		OTF2_GlobalDefWriter_WriteLocationGroup(gw, i, s_rank, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
		                                        OTF2_UNDEFINED_LOCATION_GROUP);
		OTF2_GlobalDefWriter_WriteLocation(gw, i, s_thread, OTF2_LOCATION_TYPE_CPU_THREAD, 0, i);
	}
	{
		uint64_t *m = malloc((S.nranks ? S.nranks : 1) * sizeof *m);
		if (!m) {
			ir_errf(e, "out of memory");
			goto done;
		}
		for (uint32_t i = 0; i < S.nranks; i++)
			m[i] = i;
		OTF2_GlobalDefWriter_WriteGroup(gw, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
		                                OTF2_GROUP_FLAG_NONE, S.nranks, m);
		OTF2_GlobalDefWriter_WriteGroup(gw, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
		                                OTF2_GROUP_FLAG_NONE, S.nranks, m);
		OTF2_GlobalDefWriter_WriteGroup(gw, 2, s_empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
		                                OTF2_GROUP_FLAG_NONE, 0, m);
		OTF2_GlobalDefWriter_WriteComm(gw, 0, s_world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
		OTF2_GlobalDefWriter_WriteComm(gw, 1, s_self, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
		for (size_t c = 0; c < S.ngc; c++) {
			uint64_t *g = malloc((S.gc[c].n ? S.gc[c].n : 1) * sizeof *g);
			if (!g) {
				free(m);
				ir_errf(e, "out of memory");
				goto done;
			}
			for (uint32_t i = 0; i < S.gc[c].n; i++)
				g[i] = S.gc[c].m[i];
			OTF2_GlobalDefWriter_WriteGroup(gw, (OTF2_GroupRef)(3 + c), s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
			                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, S.gc[c].n, g);
			OTF2_GlobalDefWriter_WriteComm(gw, (OTF2_CommRef)(2 + c), s_comm, (OTF2_GroupRef)(3 + c), 0,
			                               OTF2_COMM_FLAG_NONE);
			free(g);
		}
		free(m);
	}
	rc = 0;
done:
	if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && rc == 0)
		rc = ir_errf(e, "%s/%s.otf2: cannot close the OTF2 archive", dir, name);
	for (size_t i = 0; i < S.nregions; i++)
		free(S.regions[i]);
	free(S.regions);
	for (size_t i = 0; i < S.ngc; i++)
		free(S.gc[i].m);
	free(S.gc);
	return rc;
}
