/*
 * liballprof_mpi.c: the C wrappers of liballprof. Each wrapper reads the
 * clock, calls the PMPI function, reads the clock again and records one
 * binary record, written out as one trace line when the buffer is flushed
 * (the layouts are in formats/trace.md; fields follow the C
 * prototype's order, as liballprof's did).
 *
 * The wrappers of most calls are generated from formats/calls.tsv, the one
 * description of every call's fields (tools/allprof/gen-calls.sh c, into
 * liballprof_mpi_gen.inc, included at the end of this file): a call whose
 * record is its arguments, each through one encoder, needs no code here.
 * This file has the helpers they use and the wrappers that do more than
 * that, the calls marked "hook" in the schema: start-up and shut-down,
 * Wait/Test and their request arrays, polls (collapsed runs), matched
 * receives (the message is looked up before the call), MPI_Comm_idup, and
 * the Free calls (the handle is formatted before it dies), and the MPI-IO calls (file
 * handles are numbered here, file names hashed). Their field
 * order must follow the schema too; tests/t5960 checks real traces against it.
 *
 * Rules every wrapper keeps: the application's arguments reach PMPI
 * unchanged except that MPI_STATUS(ES)_IGNORE becomes a private status so
 * the trace can say what was received; request ids are looked up before
 * the call (MPI may set the handle to MPI_REQUEST_NULL) and forgotten only
 * if the call freed the request; nothing is recorded when tracing is off
 * or when the call is nested in another wrapper (AP_ON()).
 */
#include <stdlib.h>
#include <string.h>

#include "liballprof.h"

#define SMALL 16

/* The private status that stands for MPI_STATUS_IGNORE starts as MPI's empty status, so a
 * call that leaves it alone (a send, a nonblocking collective's request) records
 * -1,-1,0 rather than whatever was on the stack. */
static void empty_status(MPI_Status *st)
{
	memset(st, 0, sizeof *st);
	st->MPI_SOURCE = MPI_ANY_SOURCE;
	st->MPI_TAG = MPI_ANY_TAG;
	st->MPI_ERROR = MPI_SUCCESS;
}

static int comm_rank(MPI_Comm c)
{
	int r = -1;
	PMPI_Comm_rank(c, &r);
	return r;
}

static char *f_aints(char *p, const MPI_Aint *v, int n)
{
	p = f_ptr(p, v);
	if (!v || n <= 0)
		return f_nostatus(p); /* ":-" */
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = f_int(p, (int64_t)v[i]);
		if (i)
			*q = ',';
	}
	return p;
}

/* The status of a completed request (Wait/Test family). MPICH leaves the
 * status of a cancelled receive as it was; it is written as Open MPI fills
 * it (source MPI_ANY_SOURCE), which readers take for "cancelled". */
static char *f_wstatus(char *p, const MPI_Status *st)
{
#ifndef OPEN_MPI
	int cancelled = 0;
	if (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled) {
		MPI_Status c = *st;
		c.MPI_SOURCE = MPI_ANY_SOURCE;
		c.MPI_TAG = MPI_ANY_TAG;
		PMPI_Status_set_elements(&c, MPI_BYTE, 0);
		return f_status(p, &c);
	}
#endif
	return f_status(p, st);
}

static char *f_statuses(char *p, const MPI_Status *s, int n)
{
	if (!s || n <= 0)
		return f_nostatus(p);
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = f_wstatus(p, &s[i]);
		if (i)
			*q = ';';
	}
	return p;
}

static int undef(int v)
{
	return v == MPI_UNDEFINED ? -1 : v;
}

/* Constants whose values differ between MPIs are recorded as Open MPI numbers
 * them, so that a trace does not depend on the MPI that made it (MPICH:
 * MPI_ORDER_C 56, MPI_ORDER_FORTRAN 57, MPI_COMM_TYPE_SHARED 1). */
#ifdef OPEN_MPI
#define AP_ORDER(o) (o)
#define AP_SPLIT_TYPE(t) (t)
#else
#define AP_ORDER(o) ((o) == MPI_ORDER_C ? 0 : (o) == MPI_ORDER_FORTRAN ? 1 : (o))
#define AP_SPLIT_TYPE(t) ((t) == MPI_COMM_TYPE_SHARED ? 0 : (t))
#endif

/* Dimensions of a Cartesian communicator (0 if it is none). */
static inline int cart_ndims(MPI_Comm comm)
{
	int nd = 0;
	if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd < 0)
		nd = 0;
	return nd;
}

/* Number of edges Dist_graph_create is given: the destinations it lists. */
static inline size_t degree_sum(const int *degrees, int n)
{
	size_t s = 0;
	for (int i = 0; degrees && i < n; i++)
		s += degrees[i] > 0 ? (size_t)degrees[i] : 0;
	return s;
}

/* ------------------------------------------------------------ init, finalize, misc */

int MPI_Init(int *argc, char ***argv)
{
	uint64_t t0 = ap_now();
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS && !ap_depth) {
		ap_start(MPI_THREAD_SINGLE);
		uint64_t t1 = ap_now(); /* after the tracer's start-up */
		ap_init_record("MPI_Init", t0, t1, argc, argv, 0, 0, 0);
	}
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	uint64_t t0 = ap_now();
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS && !ap_depth) {
		ap_start(*provided);
		uint64_t t1 = ap_now(); /* after the tracer's start-up */
		ap_init_record("MPI_Init_thread", t0, t1, argc, argv, 1, required, *provided);
	}
	return rc;
}

int MPI_Finalize(void)
{
	if (!AP_ON_FINALIZE())
		return PMPI_Finalize();
	uint64_t t0 = ap_now();
	ap_finalize_begin();
	int rc = PMPI_Finalize();
	ap_finalize_end(t0, ap_now());
	return rc;
}

int MPI_Abort(MPI_Comm comm, int code)
{
	if (!ap_depth)
		ap_abort(comm, code, ap_now());
	return PMPI_Abort(comm, code);
}

int MPI_Pcontrol(const int level, ...)
{
	if (!AP_ON())
		return MPI_SUCCESS;
	uint64_t t0 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Pcontrol", t0);
	p = f_int(p, level);
	ap_end(p, ap_now());
	ap_unlock();
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ requests */

int MPI_Startall(int n, MPI_Request reqs[])
{
	if (!AP_ON())
		return PMPI_Startall(n, reqs);
	uint64_t t0 = ap_now();
	int rc = PMPI_Startall(n, reqs);
	uint64_t t1 = ap_now();
	uint64_t sb[SMALL], *ids = n > SMALL ? malloc(sizeof *ids * (size_t)n) : sb;
	if (!ids)
		return rc;
	ap_lock();
	for (int i = 0; i < n; i++)
		ids[i] = ap_req_id(reqs[i], &reqs[i]);
	char *p = ap_begin(AP_BN(n), "MPI_Startall", t0);
	p = f_int(p, n);
	p = f_reqs(p, ids, n);
	ap_end(p, t1);
	ap_unlock();
	if (ids != sb)
		free(ids);
	return rc;
}

int MPI_Request_free(MPI_Request *req)
{
	if (!AP_ON())
		return PMPI_Request_free(req);
	uint64_t t0 = ap_now();
	MPI_Request r = *req;
	ap_lock();
	uint64_t id = ap_req_id(r, req);
	ap_unlock();
	int rc = PMPI_Request_free(req);
	uint64_t t1 = ap_now();
	ap_lock();
	ap_req_done(r, req, id);
	char *p = ap_begin(AP_B, "MPI_Request_free", t0);
	p = f_req(p, id);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

/* ------------------------------------------------------------ wait and test */

/* Per call: the ids and handles before the call; after it, a request that
 * became MPI_REQUEST_NULL was freed by MPI and is forgotten. */
typedef struct reqset {
	int n;
	uint64_t *ids;
	MPI_Request *old;
	MPI_Status *st;
	uint64_t ids_s[SMALL];
	MPI_Request old_s[SMALL];
	MPI_Status st_s[SMALL];
} reqset;

static int reqset_get(reqset *s, int n, const MPI_Request *reqs, int need_st)
{
	s->n = n < 0 ? 0 : n;
	s->ids = s->ids_s;
	s->old = s->old_s;
	s->st = s->st_s;
	if (s->n > SMALL) {
		s->ids = malloc(sizeof *s->ids * (size_t)s->n);
		s->old = malloc(sizeof *s->old * (size_t)s->n);
		s->st = need_st ? malloc(sizeof *s->st * (size_t)s->n) : NULL;
		if (!s->ids || !s->old || (need_st && !s->st)) {
			free(s->ids);
			free(s->old);
			free(s->st);
			return -1;
		}
	}
	ap_lock();
	for (int i = 0; i < s->n; i++) {
		s->old[i] = reqs[i];
		s->ids[i] = ap_req_id(reqs[i], &reqs[i]);
	}
	ap_unlock();
	return 0;
}

static void reqset_done(reqset *s, const MPI_Request *reqs)
{
	for (int i = 0; i < s->n; i++)
		if (s->old[i] != MPI_REQUEST_NULL && reqs[i] == MPI_REQUEST_NULL)
			ap_req_done(s->old[i], &reqs[i], s->ids[i]);
}

static void reqset_free(reqset *s)
{
	if (s->ids != s->ids_s)
		free(s->ids);
	if (s->old != s->old_s)
		free(s->old);
	if (s->st != s->st_s)
		free(s->st);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Wait(req, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	MPI_Request r = *req;
	ap_lock();
	uint64_t id = ap_req_id(r, req);
	ap_unlock();
	int rc = PMPI_Wait(req, status);
	uint64_t t1 = ap_now();
	ap_lock();
	if (*req == MPI_REQUEST_NULL)
		ap_req_done(r, req, id);
	char *p = ap_begin(AP_B, "MPI_Wait", t0);
	p = f_req(p, id);
	p = f_wstatus(p, status);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Test(req, flag, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	MPI_Request r = *req;
	ap_lock();
	uint64_t id = ap_req_id(r, req);
	ap_unlock();
	int rc = PMPI_Test(req, flag, status);
	uint64_t t1 = ap_now();
	ap_lock();
	if (*flag && *req == MPI_REQUEST_NULL)
		ap_req_done(r, req, id);
	char *p = ap_poll_begin(AP_B, "MPI_Test", t0);
	p = f_req(p, id);
	p = f_int(p, *flag);
	p = *flag ? f_wstatus(p, status) : f_nostatus(p);
	ap_poll_end(p, t1, *flag);
	ap_unlock();
	return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
	reqset s;
	if (!AP_ON())
		return PMPI_Waitall(n, reqs, statuses);
	/* the requests are looked up inside [t_call, t_return], as MPI_Wait does: time before
	 * t_call would stand in the gap before the call, which a replay takes for the program's */
	uint64_t t0 = ap_now();
	if (reqset_get(&s, n, reqs, statuses == MPI_STATUSES_IGNORE) != 0)
		return PMPI_Waitall(n, reqs, statuses);
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? s.st : statuses;
	int rc = PMPI_Waitall(n, reqs, sts);
	uint64_t t1 = ap_now();
	ap_lock();
	reqset_done(&s, reqs);
	char *p = ap_begin(AP_BN(3 * s.n), "MPI_Waitall", t0);
	p = f_int(p, n);
	p = f_reqs(p, s.ids, s.n);
	p = f_statuses(p, sts, s.n);
	ap_end(p, t1);
	ap_unlock();
	reqset_free(&s);
	return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	reqset s;
	if (!AP_ON())
		return PMPI_Testall(n, reqs, flag, statuses);
	/* the requests are looked up inside [t_call, t_return], as MPI_Wait does: time before
	 * t_call would stand in the gap before the call, which a replay takes for the program's */
	uint64_t t0 = ap_now();
	if (reqset_get(&s, n, reqs, statuses == MPI_STATUSES_IGNORE) != 0)
		return PMPI_Testall(n, reqs, flag, statuses);
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? s.st : statuses;
	int rc = PMPI_Testall(n, reqs, flag, sts);
	uint64_t t1 = ap_now();
	ap_lock();
	if (*flag)
		reqset_done(&s, reqs);
	char *p = ap_poll_begin(AP_BN(3 * s.n), "MPI_Testall", t0);
	p = f_int(p, n);
	p = f_reqs(p, s.ids, s.n);
	p = f_int(p, *flag);
	p = *flag ? f_statuses(p, sts, s.n) : f_nostatus(p);
	ap_poll_end(p, t1, *flag);
	ap_unlock();
	reqset_free(&s);
	return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
	reqset s;
	if (!AP_ON())
		return PMPI_Waitany(n, reqs, index, status);
	/* the requests are looked up inside [t_call, t_return], as MPI_Wait does: time before
	 * t_call would stand in the gap before the call, which a replay takes for the program's */
	uint64_t t0 = ap_now();
	if (reqset_get(&s, n, reqs, 0) != 0)
		return PMPI_Waitany(n, reqs, index, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	int rc = PMPI_Waitany(n, reqs, index, status);
	uint64_t t1 = ap_now();
	ap_lock();
	reqset_done(&s, reqs);
	char *p = ap_begin(AP_BN(s.n), "MPI_Waitany", t0);
	p = f_int(p, n);
	p = f_reqs(p, s.ids, s.n);
	p = f_int(p, undef(*index));
	p = f_wstatus(p, status);
	ap_end(p, t1);
	ap_unlock();
	reqset_free(&s);
	return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	reqset s;
	if (!AP_ON())
		return PMPI_Testany(n, reqs, index, flag, status);
	/* the requests are looked up inside [t_call, t_return], as MPI_Wait does: time before
	 * t_call would stand in the gap before the call, which a replay takes for the program's */
	uint64_t t0 = ap_now();
	if (reqset_get(&s, n, reqs, 0) != 0)
		return PMPI_Testany(n, reqs, index, flag, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	int rc = PMPI_Testany(n, reqs, index, flag, status);
	uint64_t t1 = ap_now();
	ap_lock();
	if (*flag)
		reqset_done(&s, reqs);
	char *p = ap_poll_begin(AP_BN(s.n), "MPI_Testany", t0);
	p = f_int(p, n);
	p = f_reqs(p, s.ids, s.n);
	p = f_int(p, undef(*index));
	p = f_int(p, *flag);
	p = *flag ? f_wstatus(p, status) : f_nostatus(p);
	ap_poll_end(p, t1, *flag);
	ap_unlock();
	reqset_free(&s);
	return rc;
}

static int waitsome_common(int test, int n, MPI_Request reqs[], int *outcount, int indices[],
			   MPI_Status statuses[])
{
	reqset s;
	if (!AP_ON())
		return test ? PMPI_Testsome(n, reqs, outcount, indices, statuses)
			    : PMPI_Waitsome(n, reqs, outcount, indices, statuses);
	/* the requests are looked up inside [t_call, t_return], as MPI_Wait does: time before
	 * t_call would stand in the gap before the call, which a replay takes for the program's */
	uint64_t t0 = ap_now();
	if (reqset_get(&s, n, reqs, statuses == MPI_STATUSES_IGNORE) != 0)
		return test ? PMPI_Testsome(n, reqs, outcount, indices, statuses)
			    : PMPI_Waitsome(n, reqs, outcount, indices, statuses);
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? s.st : statuses;
	int rc = test ? PMPI_Testsome(n, reqs, outcount, indices, sts)
		      : PMPI_Waitsome(n, reqs, outcount, indices, sts);
	uint64_t t1 = ap_now();
	int oc = *outcount == MPI_UNDEFINED ? -1 : *outcount;
	ap_lock();
	reqset_done(&s, reqs);
	const char *name = test ? "MPI_Testsome" : "MPI_Waitsome";
	char *p = test ? ap_poll_begin(AP_BN(4 * s.n), name, t0) : ap_begin(AP_BN(4 * s.n), name, t0);
	p = f_int(p, n);
	p = f_reqs(p, s.ids, s.n);
	p = f_int(p, oc);
	p = f_list(p, indices, oc);
	p = f_statuses(p, sts, oc);
	if (test)
		ap_poll_end(p, t1, oc != 0);
	else
		ap_end(p, t1);
	ap_unlock();
	reqset_free(&s);
	return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
	return waitsome_common(0, n, reqs, outcount, indices, statuses);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
	return waitsome_common(1, n, reqs, outcount, indices, statuses);
}

/* ------------------------------------------------------------ polls, matched receives */

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Iprobe(src, tag, comm, flag, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Iprobe(src, tag, comm, flag, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_poll_begin(AP_B, "MPI_Iprobe", t0);
	p = f_peer(p, src);
	p = f_tag(p, tag);
	p = f_comm(p, comm);
	p = f_int(p, *flag);
	p = *flag ? f_status(p, status) : f_nostatus(p);
	ap_poll_end(p, t1, *flag);
	ap_unlock();
	return rc;
}

int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Improbe(src, tag, comm, flag, msg, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Improbe(src, tag, comm, flag, msg, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_poll_begin(AP_B, "MPI_Improbe", t0);
	p = f_peer(p, src);
	p = f_tag(p, tag);
	p = f_comm(p, comm);
	p = f_int(p, *flag);
	p = f_msg(p, *flag ? ap_msg_new(*msg) : 0);
	p = *flag ? f_status(p, status) : f_nostatus(p);
	ap_poll_end(p, t1, *flag);
	ap_unlock();
	return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Mrecv(buf, count, dt, msg, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	ap_lock();
	uint64_t mid = ap_msg_take(*msg);
	ap_unlock();
	int rc = PMPI_Mrecv(buf, count, dt, msg, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Mrecv", t0);
	p = f_ptr(p, buf);
	p = f_int(p, count);
	p = f_type(p, dt);
	p = f_msg(p, mid);
	p = f_status(p, status);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
	if (!AP_ON())
		return PMPI_Imrecv(buf, count, dt, msg, req);
	uint64_t t0 = ap_now();
	ap_lock();
	uint64_t mid = ap_msg_take(*msg);
	ap_unlock();
	int rc = PMPI_Imrecv(buf, count, dt, msg, req);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Imrecv", t0);
	p = f_ptr(p, buf);
	p = f_int(p, count);
	p = f_type(p, dt);
	p = f_msg(p, mid);
	p = f_req(p, rc == MPI_SUCCESS ? ap_req_new(*req, req, 0) : 0);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

/* ------------------------------------------------------------ communicators, groups, datatypes */

/* The new communicator of MPI_Comm_idup must not be used before the request
 * completes: it is numbered now (creation order is what makes numbers agree
 * between ranks) with the rank, size and members of the one it duplicates. */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *nc, MPI_Request *req)
{
	if (!AP_ON())
		return PMPI_Comm_idup(comm, nc, req);
	uint64_t t0 = ap_now();
	int rc = PMPI_Comm_idup(comm, nc, req);
	uint64_t t1 = ap_now();
	ap_lock();
	uint64_t id = rc == MPI_SUCCESS ? ap_req_new(*req, req, 0) : 0;
	char *p = ap_begin(AP_B, "MPI_Comm_idup", t0);
	p = f_comm(p, comm);
	p = f_newcomm_like(p, rc == MPI_SUCCESS ? *nc : MPI_COMM_NULL, comm);
	p = f_req(p, id);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

/* FREEWRAP: Comm/Group/Type_free. The handle's field is formatted before the
 * call, while the handle still names something; the tracer forgets it after. */
#define FREEWRAP(NAME, TYPE, FIELD, FORGET)                                         \
	int MPI_##NAME##_free(TYPE *h)                                              \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME##_free(h);                               \
		uint64_t t0 = ap_now();                                             \
		TYPE old = *h;                                                      \
		char field[96];                                                     \
		ap_lock();                                                          \
		size_t n = (size_t)(FIELD(field, old) - field);                     \
		ap_unlock();                                                        \
		int rc = PMPI_##NAME##_free(h);                                     \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		FORGET(old);                                                        \
		char *p = ap_begin(AP_B, "MPI_" #NAME "_free", t0);                  \
		memcpy(p, field, n);                                                \
		ap_end(p + n, t1);                                                  \
		ap_unlock();                                                        \
		return rc;                                                          \
	}

FREEWRAP(Group, MPI_Group, f_group, ap_group_free)

FREEWRAP(Comm, MPI_Comm, f_comm, ap_comm_free)

FREEWRAP(Type, MPI_Datatype, f_type, ap_type_free)

FREEWRAP(Win, MPI_Win, f_win, ap_win_free)

/* ------------------------------------------------------------ MPI-IO */

/* File handles are numbered per rank from 1 in order of opening (`0`: none), like
 * requests; a closed handle's number is not reused. A file is named by the 64-bit FNV-1a
 * hash of its name, so every rank that opens one file writes the same number and no
 * name (which may hold any character) reaches the trace. The MPI library may call MPI
 * functions inside an MPI-IO call (collective buffering): ap_depth is raised around the
 * PMPI call so that only the application's call is recorded. */
typedef struct ap_file {
	MPI_File fh;
	int64_t id;
} ap_file;
static ap_file *ap_files;
static size_t ap_nfiles, ap_capfiles;
static int64_t ap_next_file = 1;

static int64_t file_id(MPI_File fh)
{
	for (size_t i = 0; i < ap_nfiles; i++)
		if (ap_files[i].fh == fh)
			return ap_files[i].id;
	return 0;
}

static int64_t file_new(MPI_File fh)
{
	if (ap_nfiles == ap_capfiles) {
		size_t nc = ap_capfiles ? ap_capfiles * 2 : 16;
		ap_file *n = realloc(ap_files, nc * sizeof *n);
		if (!n)
			return 0;
		ap_files = n;
		ap_capfiles = nc;
	}
	ap_files[ap_nfiles].fh = fh;
	ap_files[ap_nfiles].id = ap_next_file++;
	return ap_files[ap_nfiles++].id;
}

static void file_forget(int64_t id)
{
	for (size_t i = 0; i < ap_nfiles; i++)
		if (ap_files[i].id == id) {
			ap_files[i] = ap_files[--ap_nfiles];
			return;
		}
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* MPI_SEEK_SET, _CUR, _END as 0, 1, 2 (their values differ between MPIs). */
static int64_t ap_whence(int w)
{
	return w == MPI_SEEK_SET ? 0 : w == MPI_SEEK_CUR ? 1 : w == MPI_SEEK_END ? 2 : w;
}

int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
	if (!AP_ON())
		return PMPI_File_open(comm, name, amode, info, fh);
	uint64_t t0 = ap_now();
	ap_depth++;
	int rc = PMPI_File_open(comm, name, amode, info, fh);
	ap_depth--;
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_File_open", t0);
	p = f_comm(p, comm);
	p = f_u64(p, fnv1a(name));
	p = f_int(p, amode);
	p = f_int(p, rc == MPI_SUCCESS ? file_new(*fh) : 0);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_File_close(MPI_File *fh)
{
	if (!AP_ON())
		return PMPI_File_close(fh);
	uint64_t t0 = ap_now();
	ap_lock();
	int64_t id = file_id(*fh);
	ap_unlock();
	ap_depth++;
	int rc = PMPI_File_close(fh);
	ap_depth--;
	uint64_t t1 = ap_now();
	ap_lock();
	if (rc == MPI_SUCCESS)
		file_forget(id);
	char *p = ap_begin(AP_B, "MPI_File_close", t0);
	p = f_int(p, id);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype, const char *rep,
		      MPI_Info info)
{
	if (!AP_ON())
		return PMPI_File_set_view(fh, disp, etype, ftype, rep, info);
	uint64_t t0 = ap_now();
	ap_depth++;
	int rc = PMPI_File_set_view(fh, disp, etype, ftype, rep, info);
	ap_depth--;
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_File_set_view", t0);
	p = f_int(p, file_id(fh));
	p = f_int(p, (int64_t)disp);
	p = f_type(p, etype);
	p = f_type(p, ftype);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

#define AP_FSEEK(NAME)                                                              \
	int MPI_File_##NAME(MPI_File fh, MPI_Offset off, int whence)                 \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_File_##NAME(fh, off, whence);                   \
		uint64_t t0 = ap_now();                                             \
		ap_depth++;                                                         \
		int rc = PMPI_File_##NAME(fh, off, whence);                         \
		ap_depth--;                                                         \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_File_" #NAME, t0);                    \
		p = f_int(p, file_id(fh));                                          \
		p = f_int(p, (int64_t)off);                                         \
		p = f_int(p, ap_whence(whence));                                    \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
AP_FSEEK(seek)
AP_FSEEK(seek_shared)

int MPI_File_sync(MPI_File fh)
{
	if (!AP_ON())
		return PMPI_File_sync(fh);
	uint64_t t0 = ap_now();
	ap_depth++;
	int rc = PMPI_File_sync(fh);
	ap_depth--;
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_File_sync", t0);
	p = f_int(p, file_id(fh));
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_File_delete(const char *name, MPI_Info info)
{
	if (!AP_ON())
		return PMPI_File_delete(name, info);
	uint64_t t0 = ap_now();
	ap_depth++;
	int rc = PMPI_File_delete(name, info);
	ap_depth--;
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_File_delete", t0);
	p = f_u64(p, fnv1a(name));
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

/* Calls on an open file with one MPI_Offset (in, or out through a pointer). */
#define AP_FOFF(NAME, T, VAL)                                                       \
	int MPI_File_##NAME(MPI_File fh, T size)                                     \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_File_##NAME(fh, size);                          \
		uint64_t t0 = ap_now();                                             \
		ap_depth++;                                                         \
		int rc = PMPI_File_##NAME(fh, size);                                \
		ap_depth--;                                                         \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_File_" #NAME, t0);                    \
		p = f_int(p, file_id(fh));                                          \
		p = f_int(p, VAL);                                                  \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
AP_FOFF(get_size, MPI_Offset *, rc == MPI_SUCCESS ? (int64_t)*size : -1)
AP_FOFF(set_size, MPI_Offset, (int64_t)size)
AP_FOFF(preallocate, MPI_Offset, (int64_t)size)
AP_FOFF(get_atomicity, int *, rc == MPI_SUCCESS ? (int64_t)*size : -1)
AP_FOFF(set_atomicity, int, (int64_t)size)

/* Blocking data access: [offset,] buffer, count, type, status. */
#define AP_FIO(NAME, BUF, AT, ATARG, ATVAL)                                         \
	int MPI_File_##NAME(MPI_File fh AT, BUF buf, int count, MPI_Datatype dt, MPI_Status *st) \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_File_##NAME(fh ATARG, buf, count, dt, st);     \
		MPI_Status priv;                                                    \
		empty_status(&priv);                                                \
		MPI_Status *s = st == MPI_STATUS_IGNORE ? &priv : st;               \
		uint64_t t0 = ap_now();                                             \
		ap_depth++;                                                         \
		int rc = PMPI_File_##NAME(fh ATARG, buf, count, dt, s);            \
		ap_depth--;                                                         \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_File_" #NAME, t0);                    \
		p = f_int(p, file_id(fh));                                          \
		ATVAL                                                               \
		p = f_ptr(p, buf);                                                  \
		p = f_int(p, count);                                                \
		p = f_type(p, dt);                                                  \
		p = f_status(p, s);                                                 \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
#define AP_NOAT
#define AP_AT , MPI_Offset off
#define AP_ATARG , off
#define AP_ATVAL p = f_int(p, (int64_t)off);
AP_FIO(read, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(write, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(read_all, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(write_all, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(read_shared, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(write_shared, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(read_ordered, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(write_ordered, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIO(read_at, void *, AP_AT, AP_ATARG, AP_ATVAL)
AP_FIO(write_at, const void *, AP_AT, AP_ATARG, AP_ATVAL)
AP_FIO(read_at_all, void *, AP_AT, AP_ATARG, AP_ATVAL)
AP_FIO(write_at_all, const void *, AP_AT, AP_ATARG, AP_ATVAL)

/* Nonblocking data access: [offset,] buffer, count, type, the new request. */
#define AP_FIIO(NAME, BUF, AT, ATARG, ATVAL)                                        \
	int MPI_File_##NAME(MPI_File fh AT, BUF buf, int count, MPI_Datatype dt, MPI_Request *req) \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_File_##NAME(fh ATARG, buf, count, dt, req);    \
		uint64_t t0 = ap_now();                                             \
		ap_depth++;                                                         \
		int rc = PMPI_File_##NAME(fh ATARG, buf, count, dt, req);          \
		ap_depth--;                                                         \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_File_" #NAME, t0);                    \
		p = f_int(p, file_id(fh));                                          \
		ATVAL                                                               \
		p = f_ptr(p, buf);                                                  \
		p = f_int(p, count);                                                \
		p = f_type(p, dt);                                                  \
		p = f_req(p, rc == MPI_SUCCESS ? ap_req_new(*req, req, 0) : 0);     \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
AP_FIIO(iread, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIIO(iwrite, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIIO(iread_all, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIIO(iwrite_all, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIIO(iread_shared, void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIIO(iwrite_shared, const void *, AP_NOAT, AP_NOAT, AP_NOAT)
AP_FIIO(iread_at, void *, AP_AT, AP_ATARG, AP_ATVAL)
AP_FIIO(iwrite_at, const void *, AP_AT, AP_ATARG, AP_ATVAL)
AP_FIIO(iread_at_all, void *, AP_AT, AP_ATARG, AP_ATVAL)
AP_FIIO(iwrite_at_all, const void *, AP_AT, AP_ATARG, AP_ATVAL)

/* The wrappers made from formats/calls.tsv. */
#include "liballprof_mpi_gen.inc"
