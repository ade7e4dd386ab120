/*
 * ir_otf2.c: an OTF2 archive as allprof text traces (see ir_otf2.h and
 * formats/trace.md section 7).
 *
 * Two passes through libotf2. The global definitions give the strings, the
 * regions (an MPI call is an Enter/Leave pair of a region whose name starts
 * with "MPI_"), the MPI ranks (the members of the MPI group of type
 * COMM_LOCATIONS, in rank order; without one, every location in definition
 * order), the communicators with their groups (members are ranks) and the
 * clock properties. Then each rank's events are read on their own: the MPI
 * events between an MPI region's Enter and Leave are collected and, at the
 * Leave, become the call's line. The fields OTF2 does not carry are filled
 * as section 7 says; a call whose line cannot be made (a region without the
 * events it needs, or a call OTF2 does not describe, e.g. MPI_Send_init) is
 * left out and counted by name, so its time counts as computation.
 *
 * Requests: OTF2's request ids are the tracer's; each Isend or IrecvRequest
 * gets a fresh allprof id (r1, r2, ... per rank), retired at its completion.
 * An MPI_Irecv line needs source, tag, size and communicator, which OTF2
 * gives only at the completion (MpiIrecv), so the line is kept pending and
 * written out when the rank's text is assembled; that is why a rank's lines
 * are held as a list until its events are all read.
 *
 * libotf2 prints its errors on stderr by default; the library never prints,
 * so an error callback keeps the last message and the caller gets it.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "ir_grow.h"
#include "ir_otf2.h"
#include "ir_strbuf.h"

#define MAXREF (1u << 22) /* largest definition reference accepted (memory bound) */
#define NOREF UINT32_MAX

/* ------------------------------------------------------------------ detection */

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

int ir_otf2_detect(const char *path, char **anchor)
{
	struct stat sb;
	*anchor = NULL;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		char *best = NULL;
		int text = 0;
		if (!d)
			return 0;
		while ((de = readdir(d))) {
			if (!strncmp(de->d_name, "rank-", 5) && strstr(de->d_name, ".trace"))
				text = 1; /* allprof --format both: its text traces are the fuller record */
			if (de->d_name[0] == '.' || !ends_with(de->d_name, ".otf2"))
				continue;
			if (!best || strcmp(de->d_name, best) < 0) {
				free(best);
				if (!(best = strdup(de->d_name)))
					break;
			}
		}
		closedir(d);
		if (!best || text) {
			free(best);
			return 0;
		}
		*anchor = malloc(strlen(path) + strlen(best) + 2);
		if (*anchor)
			sprintf(*anchor, "%s/%s", path, best);
		free(best);
		return *anchor != NULL;
	}
	if (!ends_with(path, ".otf2"))
		return 0;
	*anchor = strdup(path);
	return *anchor != NULL;
}

void ir_otf2_stats_release(ir_otf2_stats *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nskipped; i++)
		free(st->skipped[i].name);
	free(st->skipped);
	st->skipped = NULL;
	st->nskipped = 0;
}

/* ------------------------------------------------------------------ definitions */

typedef struct grp {
	int defined;
	OTF2_GroupType type;
	OTF2_Paradigm paradigm;
	uint32_t n;
	uint64_t *m;
} grp;

typedef struct cdef {
	int defined;
	uint32_t group;
} cdef;

typedef struct defs {
	char **str;
	size_t nstr;
	uint32_t *region_name; /* region -> string ref */
	size_t nregion;
	grp *g;
	size_t ng;
	cdef *c;
	size_t nc;
	uint64_t *loc; /* locations in definition order */
	size_t nloc, caploc;
	uint64_t resolution, offset;
	int have_clock;
	int bad;       /* a definition out of bounds */
	char why[160];
} defs;

static int grow_to(void *arrp, size_t *n, size_t ref, size_t esz)
{
	void **a = arrp;
	void *p;
	if (ref < *n)
		return 0;
	if (ref >= MAXREF)
		return -1;
	p = realloc(*a, (ref + 1) * esz);
	if (!p)
		return -1;
	memset((char *)p + *n * esz, 0, (ref + 1 - *n) * esz);
	*a = p;
	*n = ref + 1;
	return 0;
}

static OTF2_CallbackCode def_bad(defs *d, const char *what, uint64_t ref)
{
	snprintf(d->why, sizeof d->why, "%s definition %" PRIu64 ": reference too large or out of memory", what, ref);
	d->bad = 1;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode cb_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
	defs *d = ud;
	(void)len;
	(void)rt;
	d->resolution = res;
	d->offset = off;
	d->have_clock = 1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_string(void *ud, OTF2_StringRef self, const char *s)
{
	defs *d = ud;
	if (grow_to(&d->str, &d->nstr, self, sizeof *d->str))
		return def_bad(d, "string", self);
	free(d->str[self]);
	d->str[self] = strdup(s ? s : "");
	if (!d->str[self])
		return def_bad(d, "string", self);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef cname,
                                   OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm par,
                                   OTF2_RegionFlag fl, OTF2_StringRef src, uint32_t b, uint32_t en)
{
	defs *d = ud;
	size_t old = d->nregion;
	(void)cname, (void)desc, (void)role, (void)par, (void)fl, (void)src, (void)b, (void)en;
	if (grow_to(&d->region_name, &d->nregion, self, sizeof *d->region_name))
		return def_bad(d, "region", self);
	for (size_t i = old; i < d->nregion; i++)
		d->region_name[i] = NOREF;
	d->region_name[self] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t nev, OTF2_LocationGroupRef lg)
{
	defs *d = ud;
	(void)name, (void)type, (void)nev, (void)lg;
	if (d->nloc >= MAXREF || IR_GROW(d->loc, d->nloc + 1, d->caploc))
		return def_bad(d, "location", self);
	d->loc[d->nloc++] = self;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                  OTF2_Paradigm par, OTF2_GroupFlag fl, uint32_t n, const uint64_t *m)
{
	defs *d = ud;
	grp *g;
	(void)name, (void)fl;
	if (grow_to(&d->g, &d->ng, self, sizeof *d->g) || n >= MAXREF)
		return def_bad(d, "group", self);
	g = &d->g[self];
	free(g->m);
	g->defined = 1;
	g->type = type;
	g->paradigm = par;
	g->n = n;
	g->m = malloc((n ? n : 1) * sizeof *g->m);
	if (!g->m)
		return def_bad(d, "group", self);
	if (n)
		memcpy(g->m, m, n * sizeof *g->m);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag fl)
{
	defs *d = ud;
	(void)name, (void)parent, (void)fl;
	if (grow_to(&d->c, &d->nc, self, sizeof *d->c))
		return def_bad(d, "communicator", self);
	d->c[self].defined = 1;
	d->c[self].group = group;
	return OTF2_CALLBACK_SUCCESS;
}

static void defs_release(defs *d)
{
	for (size_t i = 0; i < d->nstr; i++)
		free(d->str[i]);
	free(d->str);
	free(d->region_name);
	for (size_t i = 0; i < d->ng; i++)
		free(d->g[i].m);
	free(d->g);
	free(d->c);
	free(d->loc);
}

/* ------------------------------------------------------------------ per-rank conversion */

/* A communicator as this rank's text names it. */
typedef struct rcomm {
	int member;    /* this rank belongs to it */
	uint64_t id;   /* 0 world, 1 self, else 2 + OTF2 reference */
	uint32_t me, size;
} rcomm;

enum evk { EV_SEND, EV_ISEND, EV_ISEND_DONE, EV_IRECV_REQ, EV_RECV, EV_IRECV_DONE, EV_TEST, EV_CANCELLED,
           EV_COLL_END };

typedef struct ev {
	enum evk k;
	uint32_t peer, comm, tag, root;
	uint64_t len, len2, req;
	OTF2_CollectiveOp op;
} ev;

typedef struct req {
	uint64_t otf2; /* the tracer's id */
	uint64_t id;   /* allprof r<id> */
	size_t pend;   /* MPI_Irecv: index of its pending line, else SIZE_MAX */
} req;

/* An MPI_Irecv line waiting for its completion. */
typedef struct pend {
	uint64_t tc, tr, id;
	int init;      /* an MPI_Recv_init line (a persistent receive), else MPI_Irecv */
	int done;
	int64_t src, tag;
	uint64_t len;
	uint32_t comm;
} pend;

typedef struct oline {
	char *s;      /* the line without '\n', or NULL: pending[p] */
	size_t p;
} oline;

typedef struct rstate {
	uint32_t rank, nranks;
	const defs *d;
	const uint64_t *crank; /* group member index -> world rank (identity: NULL) */
	rcomm *comms;
	size_t ncomms;
	oline *l;
	size_t nl, capl;
	pend *p;
	size_t np, capp;
	req *rq;
	size_t nrq, caprq;
	req *pq;           /* persistent requests: the tracer's id -> allprof id (never retired) */
	size_t npq, cappq;
	uint64_t nextid;
	/* the MPI call being read */
	int in_call;
	uint32_t depth;    /* Enter nesting inside the call */
	uint32_t region;
	uint64_t tc;
	ev *ev;
	size_t nev, capev;
	uint64_t events, calls;
	ir_otf2_stats *st;
	int oom;
	char why[200];
	ir_sb sb;
} rstate;

static int skip_call(rstate *R, const char *name)
{
	ir_otf2_stats *st = R->st;
	for (size_t i = 0; i < st->nskipped; i++)
		if (strcmp(st->skipped[i].name, name) == 0) {
			st->skipped[i].count++;
			return 0;
		}
	{
		size_t cap = st->nskipped;
		char *n = strdup(name);
		if (!n || IR_GROW(st->skipped, st->nskipped + 1, cap)) {
			free(n);
			return -1;
		}
		st->skipped[st->nskipped].name = n;
		st->skipped[st->nskipped].count = 1;
		st->nskipped++;
	}
	return 0;
}

static uint64_t to_ps(const rstate *R, uint64_t t)
{
	/* ticks since the global offset, in picoseconds; times before the offset count as 0 */
	unsigned __int128 x;
	uint64_t d = t > R->d->offset ? t - R->d->offset : 0;
	x = (unsigned __int128)d * 1000000000000ull / R->d->resolution;
	return x > (unsigned __int128)INT64_MAX ? (uint64_t)INT64_MAX : (uint64_t)x;
}

static void put_time(ir_sb *sb, uint64_t ps)
{
	ir_sb_addf(sb, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
}

static const rcomm *comm_of(const rstate *R, uint32_t c)
{
	if (c >= R->ncomms || !R->comms[c].member)
		return NULL;
	return &R->comms[c];
}

static void put_comm(ir_sb *sb, const rcomm *c)
{
	ir_sb_addf(sb, "%" PRIu64 ",%u,%u", c->id, c->me, c->size);
}

static int add_line(rstate *R, char *s, size_t p)
{
	if (IR_GROW(R->l, R->nl + 1, R->capl)) {
		free(s);
		return -1;
	}
	R->l[R->nl].s = s;
	R->l[R->nl].p = p;
	R->nl++;
	return 0;
}

/* Finish the line in R->sb (after its fields): the return time, then into the list. */
static int end_line(rstate *R, uint64_t tr)
{
	size_t n;
	char *s;
	ir_sb_addch(&R->sb, ':');
	put_time(&R->sb, tr);
	s = ir_sb_detach(&R->sb, &n);
	if (!s)
		return -1;
	R->calls++;
	return add_line(R, s, SIZE_MAX);
}

static void begin_line(rstate *R, const char *name, uint64_t tc)
{
	ir_sb_reset(&R->sb);
	ir_sb_adds(&R->sb, name);
	ir_sb_addch(&R->sb, ':');
	put_time(&R->sb, tc);
}

static req *req_find(rstate *R, uint64_t otf2)
{
	for (size_t i = R->nrq; i-- > 0;)
		if (R->rq[i].otf2 == otf2)
			return &R->rq[i];
	return NULL;
}

static void req_drop(rstate *R, req *q)
{
	*q = R->rq[--R->nrq];
}

static int req_new(rstate *R, uint64_t otf2, size_t pend_ix, uint64_t *id)
{
	req *q = req_find(R, otf2);
	if (q) /* the tracer reused an id we never saw complete: the old request is forgotten */
		req_drop(R, q);
	if (IR_GROW(R->rq, R->nrq + 1, R->caprq))
		return -1;
	R->rq[R->nrq].otf2 = otf2;
	R->rq[R->nrq].id = *id = ++R->nextid;
	R->rq[R->nrq].pend = pend_ix;
	R->nrq++;
	return 0;
}

/* The status and request id of a completion event (EV_ISEND_DONE, EV_IRECV_DONE, EV_CANCELLED);
 * 0, or 1 when the request is unknown (created before the trace or by an unconverted call). */
static int complete(rstate *R, const ev *v, uint64_t *id, char *status, size_t ss)
{
	req *q = req_find(R, v->req);
	if (!q)
		return 1;
	*id = q->id;
	if (v->k == EV_CANCELLED) {
		snprintf(status, ss, "-1,-1,0");
		if (q->pend != SIZE_MAX && !R->p[q->pend].done) {
			pend *p = &R->p[q->pend];
			p->done = 2;
		}
	} else if (v->k == EV_ISEND_DONE) {
		snprintf(status, ss, "-2,-1,0");
	} else {
		const rcomm *c = comm_of(R, v->comm);
		if (!c || q->pend == SIZE_MAX)
			return 1;
		snprintf(status, ss, "%u,%u,%" PRIu64, v->peer, v->tag, v->len);
		if (!R->p[q->pend].done) {
			pend *p = &R->p[q->pend];
			p->done = 1;
			p->src = v->peer;
			p->tag = v->tag;
			p->len = v->len;
			p->comm = v->comm;
		}
	}
	req_drop(R, q);
	return 0;
}

static int is_done_ev(const ev *v)
{
	return v->k == EV_ISEND_DONE || v->k == EV_IRECV_DONE || v->k == EV_CANCELLED;
}

/* The per-rank block size m of a collective from OTF2's byte totals (formats/trace.md
 * section 7 gives the conventions, Score-P's). */
static uint64_t coll_block(const char *name, const ev *v, const rcomm *c)
{
	uint64_t n = c->size ? c->size : 1, r = c->me;
	const char *b = name + 4;
	if (b[0] == 'I')
		b++;
	if (!strcmp(b, "Bcast") || !strcmp(b, "Scatter"))
		return v->len2;
	if (!strcmp(b, "Gather") || !strcmp(b, "Reduce"))
		return v->len;
	if (!strcmp(b, "Allgather") || !strcmp(b, "Alltoall") || !strcmp(b, "Allreduce"))
		return v->len / n;
	if (!strcmp(b, "Reduce_scatter_block"))
		return v->len2 / n;
	if (!strcmp(b, "Scan"))
		return v->len2 / (r + 1);
	if (!strcmp(b, "Exscan"))
		return r > 0 ? v->len2 / r : n > 1 ? v->len / (n - 1) : 0;
	return 0;
}

static int emit_coll(rstate *R, const char *name, uint64_t tc, uint64_t tr)
{
	const ev *v = NULL;
	const rcomm *c;
	uint64_t m;
	char root[16];
	for (size_t i = 0; i < R->nev; i++)
		if (R->ev[i].k == EV_COLL_END)
			v = &R->ev[i];
	if (!v || !(c = comm_of(R, v->comm)))
		return 1;
	m = coll_block(name, v, c);
	if (v->root == OTF2_UNDEFINED_UINT32)
		snprintf(root, sizeof root, "0");
	else
		snprintf(root, sizeof root, "%u", v->root);
	begin_line(R, name, tc);
	if (!strcmp(name, "MPI_Barrier")) {
		ir_sb_addch(&R->sb, ':');
	} else if (!strcmp(name, "MPI_Bcast")) {
		ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%s:", m, root);
	} else if (!strcmp(name, "MPI_Reduce")) {
		ir_sb_addf(&R->sb, ":0:0:%" PRIu64 ":13,1,1:3:%s:", m, root);
	} else if (!strcmp(name, "MPI_Allreduce") || !strcmp(name, "MPI_Scan") || !strcmp(name, "MPI_Exscan") ||
	           !strcmp(name, "MPI_Reduce_scatter_block")) {
		ir_sb_addf(&R->sb, ":0:0:%" PRIu64 ":13,1,1:3:", m);
	} else if (!strcmp(name, "MPI_Gather") || !strcmp(name, "MPI_Scatter")) {
		ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:0:%" PRIu64 ":13,1,1:%s:", m, m, root);
	} else if (!strcmp(name, "MPI_Allgather") || !strcmp(name, "MPI_Alltoall")) {
		ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:0:%" PRIu64 ":13,1,1:", m, m);
	} else {
		return 1;
	}
	put_comm(&R->sb, c);
	return end_line(R, tr) ? -1 : 0;
}

/* Wait/Test family: the completions inside the call. */
static int emit_completion(rstate *R, const char *name, uint64_t tc, uint64_t tr)
{
	char st[64];
	ir_sb reqs = IR_SB_INIT, sts = IR_SB_INIT;
	uint64_t id;
	size_t ndone = 0, ntest = 0;
	int rc = 0;
	int is_test = !strncmp(name, "MPI_Test", 8);
	const char *kind = name + 8; /* "", "all", "any", "some" */
	for (size_t i = 0; i < R->nev; i++) {
		const ev *v = &R->ev[i];
		if (is_done_ev(v)) {
			if (complete(R, v, &id, st, sizeof st)) {
				rc = 1;
				continue;
			}
			ir_sb_addf(&reqs, "%sr%" PRIu64, reqs.len ? "," : "", id);
			ir_sb_addf(&sts, "%s%s", sts.len ? ";" : "", st);
			ndone++;
		}
	}
	for (size_t i = 0; i < R->nev; i++) {
		const ev *v = &R->ev[i];
		req *q;
		if (v->k != EV_TEST || !(q = req_find(R, v->req)))
			continue;
		ir_sb_addf(&reqs, "%sr%" PRIu64, reqs.len ? "," : "", q->id);
		ntest++;
	}
	if (!rc && ndone == 0 && ntest == 0 && !is_test) {
		/* a wait that completed nothing: only null requests (or none) */
		static const struct { const char *k, *f; } empty[] = {
			{ "", ":r0:-1,-1,0" }, { "all", ":0:-:-" }, { "any", ":0:-:-1:-1,-1,0" }, { "some", ":0:-:-1:-:-" },
		};
		ir_sb_release(&reqs);
		ir_sb_release(&sts);
		for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++)
			if (!strcmp(kind, empty[i].k)) {
				begin_line(R, name, tc);
				ir_sb_adds(&R->sb, empty[i].f);
				return end_line(R, tr) ? -1 : 0;
			}
		return 1;
	}
	if (rc || (ndone == 0 && ntest == 0) || (!is_test && ntest)) {
		ir_sb_release(&reqs);
		ir_sb_release(&sts);
		return 1;
	}
	begin_line(R, name, tc);
	if (!strcmp(kind, "")) {
		/* MPI_Wait / MPI_Test: exactly one request */
		if (ndone + ntest != 1) {
			rc = 1;
		} else if (!is_test) {
			ir_sb_addf(&R->sb, ":%s:%s", reqs.buf, sts.buf);
		} else {
			ir_sb_addf(&R->sb, ":%s:%d:%s:1", reqs.buf, ndone ? 1 : 0, ndone ? sts.buf : "-");
		}
	} else if (!strcmp(kind, "all")) {
		if (!is_test)
			ir_sb_addf(&R->sb, ":%zu:%s:%s", ndone, reqs.buf, sts.buf);
		else if (ntest)
			ir_sb_addf(&R->sb, ":%zu:%s:0:-:1", ndone + ntest, reqs.buf);
		else
			ir_sb_addf(&R->sb, ":%zu:%s:1:%s:1", ndone, reqs.buf, sts.buf);
	} else if (!strcmp(kind, "any")) {
		if (ndone > 1)
			rc = 1;
		else if (!is_test)
			ir_sb_addf(&R->sb, ":1:%s:0:%s", reqs.buf, sts.buf);
		else if (ndone)
			ir_sb_addf(&R->sb, ":%zu:%s:0:1:%s:1", ndone + ntest, reqs.buf, sts.buf);
		else
			ir_sb_addf(&R->sb, ":%zu:%s:-1:0:-:1", ntest, reqs.buf);
	} else if (!strcmp(kind, "some")) {
		ir_sb idx = IR_SB_INIT;
		for (size_t i = 0; i < ndone; i++)
			ir_sb_addf(&idx, "%s%zu", i ? "," : "", i);
		if (ndone)
			ir_sb_addf(&R->sb, ":%zu:%s:%zu:%s:%s", ndone + ntest, reqs.buf, ndone, idx.buf, sts.buf);
		else
			ir_sb_addf(&R->sb, ":%zu:%s:0:-:-", ntest, reqs.buf);
		if (is_test)
			ir_sb_adds(&R->sb, ":1");
		ir_sb_release(&idx);
	} else {
		rc = 1;
	}
	ir_sb_release(&reqs);
	ir_sb_release(&sts);
	if (rc)
		return 1;
	return end_line(R, tr) ? -1 : 0;
}

/* An Isend or Irecv line for a request-creating event (also MPI_Start's). */
static int emit_isend(rstate *R, const char *name, const ev *v, uint64_t tc, uint64_t tr)
{
	const rcomm *c = comm_of(R, v->comm);
	uint64_t id;
	if (!c)
		return 1;
	if (req_new(R, v->req, SIZE_MAX, &id))
		return -1;
	begin_line(R, name, tc);
	ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%u:%u:", v->len, v->peer, v->tag);
	put_comm(&R->sb, c);
	ir_sb_addf(&R->sb, ":r%" PRIu64, id);
	return end_line(R, tr) ? -1 : 0;
}

static int emit_irecv(rstate *R, const ev *v, uint64_t tc, uint64_t tr)
{
	uint64_t id;
	if (IR_GROW(R->p, R->np + 1, R->capp))
		return -1;
	if (req_new(R, v->req, R->np, &id))
		return -1;
	memset(&R->p[R->np], 0, sizeof R->p[R->np]);
	R->p[R->np].tc = tc;
	R->p[R->np].tr = tr;
	R->p[R->np].id = id;
	R->np++;
	R->calls++;
	return add_line(R, NULL, R->np - 1);
}

static const ev *find_ev(const rstate *R, enum evk k, size_t nth)
{
	for (size_t i = 0; i < R->nev; i++)
		if (R->ev[i].k == k && nth-- == 0)
			return &R->ev[i];
	return NULL;
}

static int emit_p2p(rstate *R, const char *name, uint64_t tc, uint64_t tr)
{
	const ev *s = find_ev(R, EV_SEND, 0), *r = find_ev(R, EV_RECV, 0);
	const rcomm *c;
	if (!strcmp(name, "MPI_Send") || !strcmp(name, "MPI_Bsend") || !strcmp(name, "MPI_Ssend") ||
	    !strcmp(name, "MPI_Rsend")) {
		if (!s || R->nev != 1 || !(c = comm_of(R, s->comm)))
			return 1;
		begin_line(R, name, tc);
		ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%u:%u:", s->len, s->peer, s->tag);
		put_comm(&R->sb, c);
		return end_line(R, tr) ? -1 : 0;
	}
	if (!strcmp(name, "MPI_Recv")) {
		if (!r || R->nev != 1 || !(c = comm_of(R, r->comm)))
			return 1;
		begin_line(R, name, tc);
		ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%u:%u:", r->len, r->peer, r->tag);
		put_comm(&R->sb, c);
		ir_sb_addf(&R->sb, ":%u,%u,%" PRIu64, r->peer, r->tag, r->len);
		return end_line(R, tr) ? -1 : 0;
	}
	if (!strcmp(name, "MPI_Sendrecv") || !strcmp(name, "MPI_Sendrecv_replace")) {
		if (!s || !r || R->nev != 2 || s->comm != r->comm || !(c = comm_of(R, s->comm)))
			return 1;
		begin_line(R, name, tc);
		if (name[12] == 0)
			ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%u:%u:0:%" PRIu64 ":13,1,1:%u:%u:", s->len, s->peer, s->tag,
			           r->len, r->peer, r->tag);
		else
			ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%u:%u:%u:%u:", s->len, s->peer, s->tag, r->peer, r->tag);
		put_comm(&R->sb, c);
		ir_sb_addf(&R->sb, ":%u,%u,%" PRIu64, r->peer, r->tag, r->len);
		return end_line(R, tr) ? -1 : 0;
	}
	if (!strcmp(name, "MPI_Isend") || !strcmp(name, "MPI_Ibsend") || !strcmp(name, "MPI_Issend") ||
	    !strcmp(name, "MPI_Irsend")) {
		const ev *v = find_ev(R, EV_ISEND, 0);
		if (!v || R->nev != 1)
			return 1;
		return emit_isend(R, name, v, tc, tr);
	}
	if (!strcmp(name, "MPI_Irecv")) {
		const ev *v = find_ev(R, EV_IRECV_REQ, 0);
		if (!v || R->nev != 1)
			return 1;
		return emit_irecv(R, v, tc, tr);
	}
	if (!strcmp(name, "MPI_Start") || !strcmp(name, "MPI_Startall")) {
		/* a persistent request's first start writes its MPI_Send_init or MPI_Recv_init line
		 * (zero duration, at the start's call time), then the start (section 7) */
		ir_sb ids = IR_SB_INIT;
		size_t k = 0;
		for (size_t i = 0; i < R->nev; i++) {
			const ev *v = &R->ev[i];
			req *pq = NULL, *q;
			if (v->k != EV_ISEND && v->k != EV_IRECV_REQ)
				continue;
			for (size_t j = 0; j < R->npq; j++)
				if (R->pq[j].otf2 == v->req)
					pq = &R->pq[j];
			if (!pq) {
				const rcomm *pc = v->k == EV_ISEND ? comm_of(R, v->comm) : NULL;
				if (v->k == EV_ISEND && !pc) {
					ir_sb_release(&ids);
					return 1;
				}
				if (IR_GROW(R->pq, R->npq + 1, R->cappq)) {
					ir_sb_release(&ids);
					return -1;
				}
				pq = &R->pq[R->npq++];
				pq->otf2 = v->req;
				pq->id = ++R->nextid;
				pq->pend = SIZE_MAX;
				if (v->k == EV_ISEND) {
					begin_line(R, "MPI_Send_init", tc);
					ir_sb_addf(&R->sb, ":0:%" PRIu64 ":13,1,1:%u:%u:", v->len, v->peer, v->tag);
					put_comm(&R->sb, pc);
					ir_sb_addf(&R->sb, ":r%" PRIu64, pq->id);
					if (end_line(R, tc)) {
						ir_sb_release(&ids);
						return -1;
					}
				} else {
					if (IR_GROW(R->p, R->np + 1, R->capp) || add_line(R, NULL, R->np)) {
						ir_sb_release(&ids);
						return -1;
					}
					memset(&R->p[R->np], 0, sizeof R->p[R->np]);
					R->p[R->np].tc = R->p[R->np].tr = tc;
					R->p[R->np].id = pq->id;
					R->p[R->np].init = 1;
					pq->pend = R->np++;
					R->calls++;
				}
			}
			q = req_find(R, v->req);
			if (q)
				req_drop(R, q);
			if (IR_GROW(R->rq, R->nrq + 1, R->caprq)) {
				ir_sb_release(&ids);
				return -1;
			}
			R->rq[R->nrq++] = *pq;
			ir_sb_addf(&ids, "%sr%" PRIu64, k++ ? "," : "", pq->id);
		}
		if (k == 0 || (name[9] == 0 && k != 1)) {
			ir_sb_release(&ids);
			return 1;
		}
		begin_line(R, name, tc);
		if (name[9] == 0)
			ir_sb_addf(&R->sb, ":%s", ids.buf);
		else
			ir_sb_addf(&R->sb, ":%zu:%s", k, ids.buf);
		ir_sb_release(&ids);
		return end_line(R, tr) ? -1 : 0;
	}
	return 2; /* not a point-to-point call */
}

static int emit_call(rstate *R, uint64_t tr_ticks)
{
	const char *name = "MPI_?";
	uint64_t tc = to_ps(R, R->tc), tr = to_ps(R, tr_ticks);
	int rc;
	if (R->region < R->d->nregion && R->d->region_name[R->region] < R->d->nstr &&
	    R->d->str[R->d->region_name[R->region]])
		name = R->d->str[R->d->region_name[R->region]];
	if (!strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread")) {
		begin_line(R, "MPI_Init", tc);
		ir_sb_adds(&R->sb, ":0:0");
		rc = end_line(R, tr) ? -1 : 0;
	} else if (!strcmp(name, "MPI_Finalize")) {
		begin_line(R, name, tc);
		rc = end_line(R, tr) ? -1 : 0;
	} else if (!strncmp(name, "MPI_Wait", 8) || !strncmp(name, "MPI_Test", 8)) {
		rc = strcmp(name, "MPI_Test_cancelled") ? emit_completion(R, name, tc, tr) : 1;
	} else if ((rc = emit_p2p(R, name, tc, tr)) == 2) {
		rc = emit_coll(R, name, tc, tr);
	}
	if (rc < 0)
		return -1;
	if (rc > 0) {
		/* requests this call created or completed are forgotten with it */
		for (size_t i = 0; i < R->nev; i++) {
			req *q;
			if (is_done_ev(&R->ev[i]) && (q = req_find(R, R->ev[i].req)))
				req_drop(R, q);
		}
		if (skip_call(R, name))
			return -1;
	}
	return 0;
}

/* ---- event callbacks ---- */

static int is_mpi_region(const rstate *R, OTF2_RegionRef reg)
{
	const defs *d = R->d;
	return reg < d->nregion && d->region_name[reg] < d->nstr && d->str[d->region_name[reg]] &&
	       !strncmp(d->str[d->region_name[reg]], "MPI_", 4);
}

static OTF2_CallbackCode fail(rstate *R, const char *msg)
{
	if (!R->why[0])
		snprintf(R->why, sizeof R->why, "%s", msg);
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode cb_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef reg)
{
	rstate *R = ud;
	(void)loc, (void)pos, (void)al;
	R->events++;
	if (R->in_call) {
		R->depth++;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (!is_mpi_region(R, reg))
		return OTF2_CALLBACK_SUCCESS;
	R->in_call = 1;
	R->depth = 0;
	R->region = reg;
	R->tc = t;
	R->nev = 0;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef reg)
{
	rstate *R = ud;
	(void)loc, (void)pos, (void)al;
	R->events++;
	if (!R->in_call)
		return OTF2_CALLBACK_SUCCESS;
	if (R->depth) {
		R->depth--;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (reg != R->region)
		return fail(R, "Leave of another region than the MPI call it ends");
	if (t < R->tc)
		return fail(R, "an MPI call returns before it is called (time goes backwards)");
	R->in_call = 0;
	if (emit_call(R, t))
		return fail(R, "out of memory");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode add_ev(rstate *R, const ev *v)
{
	R->events++;
	if (!R->in_call)
		return OTF2_CALLBACK_SUCCESS; /* an MPI event outside an MPI region: nothing to attach it to */
	if (IR_GROW(R->ev, R->nev + 1, R->capev))
		return fail(R, "out of memory");
	R->ev[R->nev++] = *v;
	return OTF2_CALLBACK_SUCCESS;
}

#define EVHEAD OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud, OTF2_AttributeList *al
#define EVUNUSED (void)loc, (void)t, (void)pos, (void)al

static OTF2_CallbackCode cb_send(EVHEAD, uint32_t to, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
	ev v = { .k = EV_SEND, .peer = to, .comm = c, .tag = tag, .len = len };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_isend(EVHEAD, uint32_t to, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t rq)
{
	ev v = { .k = EV_ISEND, .peer = to, .comm = c, .tag = tag, .len = len, .req = rq };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_isend_done(EVHEAD, uint64_t rq)
{
	ev v = { .k = EV_ISEND_DONE, .req = rq };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_irecv_req(EVHEAD, uint64_t rq)
{
	ev v = { .k = EV_IRECV_REQ, .req = rq };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_recv(EVHEAD, uint32_t from, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
	ev v = { .k = EV_RECV, .peer = from, .comm = c, .tag = tag, .len = len };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_irecv(EVHEAD, uint32_t from, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t rq)
{
	ev v = { .k = EV_IRECV_DONE, .peer = from, .comm = c, .tag = tag, .len = len, .req = rq };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_test(EVHEAD, uint64_t rq)
{
	ev v = { .k = EV_TEST, .req = rq };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_cancelled(EVHEAD, uint64_t rq)
{
	ev v = { .k = EV_CANCELLED, .req = rq };
	EVUNUSED;
	return add_ev(ud, &v);
}

static OTF2_CallbackCode cb_coll_end(EVHEAD, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
                                     uint64_t recvd)
{
	ev v = { .k = EV_COLL_END, .op = op, .comm = c, .root = root, .len = sent, .len2 = recvd };
	EVUNUSED;
	return add_ev(ud, &v);
}

/* ---- assembling a rank's text ---- */

static int rank_text(rstate *R, ir_trace_file *tf)
{
	ir_sb out = IR_SB_INIT;
	size_t body;
	ir_sb_addf(&out, "# allprof %s trace format 1\n# source: OTF2 archive\n# rank: %u of %u\n", IR_VERSION, R->rank,
	           R->nranks);
	for (size_t c = 0; c < R->ncomms; c++) {
		const rcomm *rc = &R->comms[c];
		const grp *g;
		if (!rc->member || rc->id <= 1)
			continue;
		g = &R->d->g[R->d->c[c].group];
		ir_sb_addf(&out, "# comm %" PRIu64 " ", rc->id);
		for (uint32_t i = 0; i < g->n; i++)
			ir_sb_addf(&out, "%s%" PRIu64, i ? "," : "", R->crank ? R->crank[g->m[i]] : g->m[i]);
		ir_sb_addch(&out, '\n');
	}
	body = out.len;
	for (size_t i = 0; i < R->nl; i++) {
		if (R->l[i].s) {
			ir_sb_adds(&out, R->l[i].s);
		} else {
			const pend *p = &R->p[R->l[i].p];
			const rcomm *c = p->done == 1 ? comm_of(R, p->comm) : NULL;
			ir_sb_adds(&out, p->init ? "MPI_Recv_init:" : "MPI_Irecv:");
			put_time(&out, p->tc);
			if (c) {
				ir_sb_addf(&out, ":0:%" PRIu64 ":13,1,1:%" PRId64 ":%" PRId64 ":", p->len, p->src, p->tag);
				put_comm(&out, c);
			} else {
				/* never completed, or cancelled: OTF2 does not say what it was for */
				ir_sb_addf(&out, ":0:0:13,1,1:-1:-1:0,%u,%u", R->rank, R->nranks);
			}
			ir_sb_addf(&out, ":r%" PRIu64 ":", p->id);
			put_time(&out, p->tr);
		}
		ir_sb_addch(&out, '\n');
	}
	ir_sb_addf(&out, "# end %zu %zu\n", R->nl, out.len - body);
	if (ir_sb_grow(&out, 0))
		return -1;
	tf->data = ir_sb_detach(&out, &tf->len);
	return tf->data ? 0 : -1;
}

static void rstate_release(rstate *R)
{
	for (size_t i = 0; i < R->nl; i++)
		free(R->l[i].s);
	free(R->l);
	free(R->p);
	free(R->rq);
	free(R->pq);
	free(R->ev);
	free(R->comms);
	ir_sb_release(&R->sb);
}

/* ------------------------------------------------------------------ the archive */

static char last_err[300];

static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t ln, const char *fn, OTF2_ErrorCode code,
                                  const char *fmt, va_list va) __attribute__((format(printf, 6, 0)));

static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                                  const char *fmt, va_list va)
{
	(void)ud, (void)file, (void)line, (void)fn;
	if (fmt && *fmt) {
		char m[240];
		vsnprintf(m, sizeof m, fmt, va);
		snprintf(last_err, sizeof last_err, "%s: %s", OTF2_Error_GetDescription(code), m);
	} else {
		snprintf(last_err, sizeof last_err, "%s", OTF2_Error_GetDescription(code));
	}
	return code;
}

void ir_otf2_quiet_errors(void)
{
	last_err[0] = 0;
	OTF2_Error_RegisterCallback(quiet_error, NULL);
}

int ir_otf2_archive_exists(const char *dir, const char *name)
{
	char p[4096];
	struct stat sb;
	snprintf(p, sizeof p, "%s/%s.otf2", dir, name);
	if (stat(p, &sb) == 0)
		return 1;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &sb) == 0;
}

static int otf2_fail(ir_err *e, const char *anchor, const char *what, OTF2_ErrorCode code)
{
	if (last_err[0])
		return ir_errf(e, "%s: %s (%s)", anchor, what, last_err);
	return ir_errf(e, "%s: %s (%s)", anchor, what, OTF2_Error_GetDescription(code));
}

int ir_otf2_load(ir_trace_files *out, const char *anchor, ir_otf2_stats *st, ir_err *e)
{
	OTF2_Reader *rd = NULL;
	OTF2_GlobalDefReader *gdr;
	OTF2_GlobalDefReaderCallbacks *gcb = NULL;
	OTF2_EvtReaderCallbacks *ecb = NULL;
	OTF2_ErrorCode ec;
	defs d;
	const uint64_t *rankloc = NULL; /* rank -> location */
	const grp *world = NULL;
	uint32_t nranks = 0;
	uint64_t nread, total_calls = 0;
	int rc = -1, files_open = 0;
	struct stat sb;
	memset(&d, 0, sizeof d);
	memset(st, 0, sizeof *st);
	out->f = NULL;
	out->n = 0;
	ir_otf2_quiet_errors();
	if (stat(anchor, &sb) != 0)
		return ir_errf(e, "%s: cannot open OTF2 archive: no such file", anchor);
	if (!S_ISREG(sb.st_mode))
		return ir_errf(e, "%s: cannot open OTF2 archive: not a regular file", anchor);
	rd = OTF2_Reader_Open(anchor);
	if (!rd) {
		otf2_fail(e, anchor, "cannot open OTF2 archive", OTF2_ERROR_INVALID);
		goto done;
	}
	if ((ec = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS) {
		otf2_fail(e, anchor, "cannot read OTF2 archive", ec);
		goto done;
	}
	gdr = OTF2_Reader_GetGlobalDefReader(rd);
	gcb = OTF2_GlobalDefReaderCallbacks_New();
	if (!gdr || !gcb) {
		otf2_fail(e, anchor, "cannot read the global definitions", OTF2_ERROR_INVALID);
		goto done;
	}
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, cb_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, cb_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, cb_region);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, cb_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, cb_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, cb_comm);
	OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &d);
	ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &nread);
	if (d.bad) {
		ir_errf(e, "%s: %s", anchor, d.why);
		goto done;
	}
	if (ec != OTF2_SUCCESS) {
		otf2_fail(e, anchor, "cannot read the global definitions", ec);
		goto done;
	}
	if (!d.have_clock || d.resolution == 0) {
		ir_errf(e, "%s: the archive has no clock properties (timer resolution)", anchor);
		goto done;
	}
	/* the ranks: MPI's COMM_LOCATIONS group, else every location */
	for (size_t i = 0; i < d.ng; i++)
		if (d.g[i].defined && d.g[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && d.g[i].paradigm == OTF2_PARADIGM_MPI) {
			world = &d.g[i];
			break;
		}
	if (world) {
		rankloc = world->m;
		nranks = world->n;
	} else {
		rankloc = d.loc;
		nranks = (uint32_t)d.nloc;
	}
	if (nranks == 0) {
		ir_errf(e, "%s: the archive has no locations", anchor);
		goto done;
	}
	out->f = calloc(nranks, sizeof *out->f);
	if (!out->f) {
		ir_errf(e, "out of memory");
		goto done;
	}
	out->n = nranks;
	for (uint32_t r = 0; r < nranks; r++) {
		char nm[32];
		snprintf(nm, sizeof nm, "[rank %u]", r);
		out->f[r].rank = r;
		out->f[r].path = malloc(strlen(anchor) + strlen(nm) + 1);
		if (!out->f[r].path) {
			ir_errf(e, "out of memory");
			goto done;
		}
		sprintf(out->f[r].path, "%s%s", anchor, nm);
		if (OTF2_Reader_SelectLocation(rd, rankloc[r]) != OTF2_SUCCESS) {
			otf2_fail(e, anchor, "cannot select a location", OTF2_ERROR_INVALID);
			goto done;
		}
	}
	/* local definitions carry the mappings of archives written with local references */
	if (OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS) {
		for (uint32_t r = 0; r < nranks; r++) {
			OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, rankloc[r]);
			if (dr) {
				uint64_t n;
				OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
				OTF2_Reader_CloseDefReader(rd, dr);
			}
		}
		OTF2_Reader_CloseDefFiles(rd);
	}
	if ((ec = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS) {
		otf2_fail(e, anchor, "cannot open the event files", ec);
		goto done;
	}
	files_open = 1;
	ecb = OTF2_EvtReaderCallbacks_New();
	if (!ecb) {
		ir_errf(e, "out of memory");
		goto done;
	}
	OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, cb_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, cb_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, cb_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, cb_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, cb_isend_done);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, cb_irecv_req);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, cb_recv);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, cb_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(ecb, cb_test);
	OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, cb_cancelled);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, cb_coll_end);
	for (uint32_t r = 0; r < nranks; r++) {
		rstate R;
		OTF2_EvtReader *er;
		memset(&R, 0, sizeof R);
		ir_sb_init(&R.sb);
		R.rank = r;
		R.nranks = nranks;
		R.d = &d;
		R.st = st;
		R.crank = NULL; /* communicator groups list ranks, which are world ranks */
		R.ncomms = d.nc;
		R.comms = calloc(d.nc ? d.nc : 1, sizeof *R.comms);
		if (!R.comms) {
			ir_errf(e, "out of memory");
			goto done;
		}
		for (size_t c = 0; c < d.nc; c++) {
			const grp *g;
			rcomm *x = &R.comms[c];
			int identity = 1;
			if (!d.c[c].defined || d.c[c].group >= d.ng || !d.g[d.c[c].group].defined)
				continue;
			g = &d.g[d.c[c].group];
			if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
				x->member = 1;
				x->id = 1;
				x->me = 0;
				x->size = 1;
				continue;
			}
			for (uint32_t i = 0; i < g->n; i++) {
				if (g->m[i] >= nranks) {
					ir_errf(e, "%s: communicator %zu names rank %" PRIu64 " (%u ranks)", anchor, c, g->m[i], nranks);
					free(R.comms);
					goto done;
				}
				if (g->m[i] != i)
					identity = 0;
				if (g->m[i] == r) {
					x->member = 1;
					x->me = i;
				}
			}
			x->size = g->n;
			x->id = identity && g->n == nranks ? 0 : g->n == 1 ? 1 : 2 + (uint64_t)c;
		}
		er = OTF2_Reader_GetEvtReader(rd, rankloc[r]);
		if (!er) {
			otf2_fail(e, anchor, "cannot read the events", OTF2_ERROR_INVALID);
			rstate_release(&R);
			goto done;
		}
		OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, &R);
		ec = OTF2_Reader_ReadAllLocalEvents(rd, er, &nread);
		OTF2_Reader_CloseEvtReader(rd, er);
		if (R.why[0]) {
			ir_errf(e, "%s: rank %u: %s", anchor, r, R.why);
			rstate_release(&R);
			goto done;
		}
		if (ec != OTF2_SUCCESS) {
			char what[64];
			snprintf(what, sizeof what, "cannot read the events of rank %u", r);
			otf2_fail(e, anchor, what, ec);
			rstate_release(&R);
			goto done;
		}
		if (R.in_call && skip_call(&R, "(a call without its Leave)")) {
			ir_errf(e, "out of memory");
			rstate_release(&R);
			goto done;
		}
		st->events += R.events;
		st->calls += R.calls;
		total_calls += R.calls;
		if (rank_text(&R, &out->f[r])) {
			ir_errf(e, "out of memory");
			rstate_release(&R);
			goto done;
		}
		rstate_release(&R);
		st->ranks++;
	}
	if (total_calls == 0) {
		ir_errf(e, "%s: the archive has no MPI calls", anchor);
		goto done;
	}
	rc = 0;
done:
	if (files_open)
		OTF2_Reader_CloseEvtFiles(rd);
	if (ecb)
		OTF2_EvtReaderCallbacks_Delete(ecb);
	if (gcb)
		OTF2_GlobalDefReaderCallbacks_Delete(gcb);
	if (rd)
		OTF2_Reader_Close(rd);
	defs_release(&d);
	if (rc) {
		ir_trace_files_release(out);
		ir_otf2_stats_release(st);
	}
	return rc;
}
