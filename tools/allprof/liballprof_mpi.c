/*
 * liballprof_mpi.c: the C wrappers of liballprof. Each wrapper reads the
 * clock, calls the PMPI function, reads the clock again and records one
 * binary record, written out as one trace line when the buffer is flushed
 * (the layouts are in formats/trace.md; fields follow the C
 * prototype's order, as liballprof's did). Families with one layout are
 * macro-generated (send modes, the blocking/nonblocking twin of every
 * collective) so that adding a call is one line.
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

#define STRIP(...) __VA_ARGS__
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
	if (!AP_ON())
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

#define RANKSIZE(NAME)                                                              \
	int MPI_##NAME(MPI_Comm comm, int *v)                                       \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(comm, v);                                \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(comm, v);                                      \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_" #NAME, t0);                         \
		p = f_comm(p, comm);                                                \
		p = f_ptr(p, v);                                                    \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
RANKSIZE(Comm_rank)
RANKSIZE(Comm_size)

/* ------------------------------------------------------------ point to point */

#define SEND(NAME)                                                                  \
	int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, \
		       MPI_Comm comm)                                               \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(buf, count, dt, dest, tag, comm);        \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm);              \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_" #NAME, t0);                         \
		p = f_ptr(p, buf);                                                  \
		p = f_int(p, count);                                                \
		p = f_type(p, dt);                                                  \
		p = f_peer(p, dest);                                                \
		p = f_tag(p, tag);                                                  \
		p = f_comm(p, comm);                                                \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
SEND(Send)
SEND(Bsend)
SEND(Ssend)
SEND(Rsend)

/* Nonblocking and persistent sends and receives: the same fields plus the id
 * of the new request. */
#define ISEND(NAME, CONST, PERSISTENT)                                              \
	int MPI_##NAME(CONST void *buf, int count, MPI_Datatype dt, int peer, int tag, \
		       MPI_Comm comm, MPI_Request *req)                             \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(buf, count, dt, peer, tag, comm, req);   \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(buf, count, dt, peer, tag, comm, req);         \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		uint64_t id = rc == MPI_SUCCESS ? ap_req_new(*req, req, PERSISTENT) : 0; \
		char *p = ap_begin(AP_B, "MPI_" #NAME, t0);                         \
		p = f_ptr(p, buf);                                                  \
		p = f_int(p, count);                                                \
		p = f_type(p, dt);                                                  \
		p = f_peer(p, peer);                                                \
		p = f_tag(p, tag);                                                  \
		p = f_comm(p, comm);                                                \
		p = f_req(p, id);                                                   \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
ISEND(Isend, const, 0)
ISEND(Ibsend, const, 0)
ISEND(Issend, const, 0)
ISEND(Irsend, const, 0)
ISEND(Irecv, , 0)
ISEND(Send_init, const, 1)
ISEND(Bsend_init, const, 1)
ISEND(Ssend_init, const, 1)
ISEND(Rsend_init, const, 1)
ISEND(Recv_init, , 1)

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Recv(buf, count, dt, src, tag, comm, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Recv(buf, count, dt, src, tag, comm, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Recv", t0);
	p = f_ptr(p, buf);
	p = f_int(p, count);
	p = f_type(p, dt);
	p = f_peer(p, src);
	p = f_tag(p, tag);
	p = f_comm(p, comm);
	p = f_status(p, status);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
		 void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
		 MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src,
				     rtag, comm, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
			       comm, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Sendrecv", t0);
	p = f_ptr(p, sbuf);
	p = f_int(p, scount);
	p = f_type(p, stype);
	p = f_peer(p, dest);
	p = f_tag(p, stag);
	p = f_ptr(p, rbuf);
	p = f_int(p, rcount);
	p = f_type(p, rtype);
	p = f_peer(p, src);
	p = f_tag(p, rtag);
	p = f_comm(p, comm);
	p = f_status(p, status);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
			 int rtag, MPI_Comm comm, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Sendrecv_replace", t0);
	p = f_ptr(p, buf);
	p = f_int(p, count);
	p = f_type(p, dt);
	p = f_peer(p, dest);
	p = f_tag(p, stag);
	p = f_peer(p, src);
	p = f_tag(p, rtag);
	p = f_comm(p, comm);
	p = f_status(p, status);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_Start(MPI_Request *req)
{
	if (!AP_ON())
		return PMPI_Start(req);
	uint64_t t0 = ap_now();
	int rc = PMPI_Start(req);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Start", t0);
	p = f_req(p, ap_req_id(*req, req));
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

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

int MPI_Cancel(MPI_Request *req)
{
	if (!AP_ON())
		return PMPI_Cancel(req);
	uint64_t t0 = ap_now();
	int rc = PMPI_Cancel(req);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Cancel", t0);
	p = f_req(p, ap_req_id(*req, req));
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
	if (!AP_ON() || reqset_get(&s, n, reqs, statuses == MPI_STATUSES_IGNORE) != 0)
		return PMPI_Waitall(n, reqs, statuses);
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? s.st : statuses;
	uint64_t t0 = ap_now();
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
	if (!AP_ON() || reqset_get(&s, n, reqs, statuses == MPI_STATUSES_IGNORE) != 0)
		return PMPI_Testall(n, reqs, flag, statuses);
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? s.st : statuses;
	uint64_t t0 = ap_now();
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
	if (!AP_ON() || reqset_get(&s, n, reqs, 0) != 0)
		return PMPI_Waitany(n, reqs, index, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
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
	if (!AP_ON() || reqset_get(&s, n, reqs, 0) != 0)
		return PMPI_Testany(n, reqs, index, flag, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
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
	if (!AP_ON() || reqset_get(&s, n, reqs, statuses == MPI_STATUSES_IGNORE) != 0)
		return test ? PMPI_Testsome(n, reqs, outcount, indices, statuses)
			    : PMPI_Waitsome(n, reqs, outcount, indices, statuses);
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? s.st : statuses;
	uint64_t t0 = ap_now();
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

/* ------------------------------------------------------------ probes, matched receives */

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Probe(src, tag, comm, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Probe(src, tag, comm, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Probe", t0);
	p = f_peer(p, src);
	p = f_tag(p, tag);
	p = f_comm(p, comm);
	p = f_status(p, status);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

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

int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
	if (!AP_ON())
		return PMPI_Mprobe(src, tag, comm, msg, status);
	MPI_Status st;
	empty_status(&st);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	uint64_t t0 = ap_now();
	int rc = PMPI_Mprobe(src, tag, comm, msg, status);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Mprobe", t0);
	p = f_peer(p, src);
	p = f_tag(p, tag);
	p = f_comm(p, comm);
	p = f_msg(p, ap_msg_new(*msg));
	p = f_status(p, status);
	ap_end(p, t1);
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

/* ------------------------------------------------------------ collectives */

/* COLL defines MPI_<NAME> and MPI_I<name> (the nonblocking twin, whose last
 * field is the request id). PARAMS and ARGS are parenthesised lists; BOUND
 * is evaluated before formatting; FIELDS appends the fields to p. */
#define COLL_BLOCKING(NAME, PARAMS, ARGS, BOUND, FIELDS)                            \
	int MPI_##NAME(STRIP PARAMS)                                                \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(STRIP ARGS);                             \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(STRIP ARGS);                                   \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(BOUND, "MPI_" #NAME, t0);                        \
		FIELDS;                                                             \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
#define COLL_NONBLOCKING(NAME, PARAMS, ARGS, BOUND, FIELDS)                         \
	int MPI_I##NAME(STRIP PARAMS, MPI_Request *req)                            \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_I##NAME(STRIP ARGS, req);                       \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_I##NAME(STRIP ARGS, req);                             \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		uint64_t id = rc == MPI_SUCCESS ? ap_req_new(*req, req, 0) : 0;          \
		char *p = ap_begin(BOUND, "MPI_I" #NAME, t0);                       \
		FIELDS;                                                             \
		p = f_req(p, id);                                                   \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
#define COLL(NAME, INAME, PARAMS, ARGS, BOUND, FIELDS)                              \
	COLL_BLOCKING(NAME, PARAMS, ARGS, BOUND, FIELDS)                            \
	COLL_NONBLOCKING(INAME, PARAMS, ARGS, BOUND, FIELDS)

#define CS(c) ap_comm_size(c)
#define ROOTED(root, comm) (comm_rank(comm) == (root))

int MPI_Barrier(MPI_Comm comm)
{
	if (!AP_ON())
		return PMPI_Barrier(comm);
	uint64_t t0 = ap_now();
	int rc = PMPI_Barrier(comm);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Barrier", t0);
	p = f_comm(p, comm);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	if (!AP_ON())
		return PMPI_Ibarrier(comm, req);
	uint64_t t0 = ap_now();
	int rc = PMPI_Ibarrier(comm, req);
	uint64_t t1 = ap_now();
	ap_lock();
	uint64_t id = rc == MPI_SUCCESS ? ap_req_new(*req, req, 0) : 0;
	char *p = ap_begin(AP_B, "MPI_Ibarrier", t0);
	p = f_comm(p, comm);
	p = f_req(p, id);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

COLL(Bcast, bcast,
     (void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm),
     (buf, count, dt, root, comm), AP_B,
     p = f_ptr(p, buf); p = f_int(p, count); p = f_type(p, dt); p = f_int(p, root);
     p = f_comm(p, comm))

COLL(Reduce, reduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
      MPI_Comm comm),
     (sbuf, rbuf, count, dt, op, root, comm), AP_B,
     p = f_buf(p, sbuf); p = f_buf(p, rbuf); p = f_int(p, count); p = f_type(p, dt);
     p = f_op(p, op); p = f_int(p, root); p = f_comm(p, comm))

#define REDUCE_LIKE(NAME, INAME)                                                    \
	COLL(NAME, INAME,                                                           \
	     (const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,  \
	      MPI_Comm comm),                                                       \
	     (sbuf, rbuf, count, dt, op, comm), AP_B,                               \
	     p = f_buf(p, sbuf); p = f_buf(p, rbuf); p = f_int(p, count);           \
	     p = f_type(p, dt); p = f_op(p, op); p = f_comm(p, comm))
REDUCE_LIKE(Allreduce, allreduce)
REDUCE_LIKE(Scan, scan)
REDUCE_LIKE(Exscan, exscan)

/* Local, no message; traced so that the time of combining data can be measured
 * (netcal's reduction phase, formats/calibration.md). */
COLL_BLOCKING(Reduce_local,
              (const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op),
              (inbuf, inoutbuf, count, dt, op), AP_B,
              p = f_buf(p, inbuf); p = f_buf(p, inoutbuf); p = f_int(p, count); p = f_type(p, dt);
              p = f_op(p, op))

COLL(Reduce_scatter_block, reduce_scatter_block,
     (const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm),
     (sbuf, rbuf, rcount, dt, op, comm), AP_B,
     p = f_buf(p, sbuf); p = f_buf(p, rbuf); p = f_int(p, rcount); p = f_type(p, dt);
     p = f_op(p, op); p = f_comm(p, comm))

COLL(Reduce_scatter, reduce_scatter,
     (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op,
      MPI_Comm comm),
     (sbuf, rbuf, rcounts, dt, op, comm), AP_BN(CS(comm)),
     p = f_buf(p, sbuf); p = f_buf(p, rbuf); p = f_ints(p, rcounts, CS(comm));
     p = f_type(p, dt); p = f_op(p, op); p = f_comm(p, comm))

#define GATHER_LIKE(NAME, INAME)                                                    \
	COLL(NAME, INAME,                                                           \
	     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
	      MPI_Datatype rtype, int root, MPI_Comm comm),                         \
	     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), AP_B,          \
	     p = f_buf(p, sbuf); p = f_int(p, scount); p = f_type(p, stype);        \
	     p = f_buf(p, rbuf); p = f_int(p, rcount); p = f_type(p, rtype);        \
	     p = f_int(p, root); p = f_comm(p, comm))
GATHER_LIKE(Gather, gather)
GATHER_LIKE(Scatter, scatter)

#define ALLGATHER_LIKE(NAME, INAME)                                                 \
	COLL(NAME, INAME,                                                           \
	     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
	      MPI_Datatype rtype, MPI_Comm comm),                                   \
	     (sbuf, scount, stype, rbuf, rcount, rtype, comm), AP_B,                \
	     p = f_buf(p, sbuf); p = f_int(p, scount); p = f_type(p, stype);        \
	     p = f_buf(p, rbuf); p = f_int(p, rcount); p = f_type(p, rtype);        \
	     p = f_comm(p, comm))
ALLGATHER_LIKE(Allgather, allgather)
ALLGATHER_LIKE(Alltoall, alltoall)
ALLGATHER_LIKE(Neighbor_allgather, neighbor_allgather)
ALLGATHER_LIKE(Neighbor_alltoall, neighbor_alltoall)

COLL(Gatherv, gatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), AP_BN(2 * CS(comm)),
     int at_root = ROOTED(root, comm);
     p = f_buf(p, sbuf); p = f_int(p, scount); p = f_type(p, stype); p = f_buf(p, rbuf);
     p = f_ints(p, at_root ? rcounts : NULL, CS(comm));
     p = f_ints(p, at_root ? displs : NULL, CS(comm)); p = f_type(p, rtype);
     p = f_int(p, root); p = f_comm(p, comm))

COLL(Scatterv, scatterv,
     (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
      void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), AP_BN(2 * CS(comm)),
     int at_root = ROOTED(root, comm);
     p = f_buf(p, sbuf); p = f_ints(p, at_root ? scounts : NULL, CS(comm));
     p = f_ints(p, at_root ? displs : NULL, CS(comm)); p = f_type(p, stype);
     p = f_buf(p, rbuf); p = f_int(p, rcount); p = f_type(p, rtype); p = f_int(p, root);
     p = f_comm(p, comm))

COLL(Allgatherv, allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), AP_BN(2 * CS(comm)),
     p = f_buf(p, sbuf); p = f_int(p, scount); p = f_type(p, stype); p = f_buf(p, rbuf);
     p = f_ints(p, rcounts, CS(comm)); p = f_ints(p, displs, CS(comm)); p = f_type(p, rtype);
     p = f_comm(p, comm))

COLL(Alltoallv, alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
      void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
     AP_BN(4 * CS(comm)),
     int inplace = sbuf == MPI_IN_PLACE;
     p = f_buf(p, sbuf); p = f_ints(p, inplace ? NULL : scounts, CS(comm));
     p = f_ints(p, inplace ? NULL : sdispls, CS(comm)); p = f_type(p, stype);
     p = f_buf(p, rbuf); p = f_ints(p, rcounts, CS(comm)); p = f_ints(p, rdispls, CS(comm));
     p = f_type(p, rtype); p = f_comm(p, comm))

COLL(Alltoallw, alltoallw,
     (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
      void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
      MPI_Comm comm),
     (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm),
     AP_BN(8 * CS(comm)),
     int inplace = sbuf == MPI_IN_PLACE;
     p = f_buf(p, sbuf); p = f_ints(p, inplace ? NULL : scounts, CS(comm));
     p = f_ints(p, inplace ? NULL : sdispls, CS(comm));
     p = f_types(p, inplace ? NULL : stypes, CS(comm)); p = f_buf(p, rbuf);
     p = f_ints(p, rcounts, CS(comm)); p = f_ints(p, rdispls, CS(comm));
     p = f_types(p, rtypes, CS(comm)); p = f_comm(p, comm))

#define NBR(c, in, out) int in; int out; ap_nbr_counts(c, &in, &out)

COLL(Neighbor_allgatherv, neighbor_allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), AP_BN(2 * CS(comm)),
     NBR(comm, nin, nout); (void)nout;
     p = f_buf(p, sbuf); p = f_int(p, scount); p = f_type(p, stype); p = f_buf(p, rbuf);
     p = f_ints(p, rcounts, nin); p = f_ints(p, displs, nin); p = f_type(p, rtype);
     p = f_comm(p, comm))

COLL(Neighbor_alltoallv, neighbor_alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
      void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
     AP_BN(4 * CS(comm)),
     NBR(comm, nin, nout);
     p = f_buf(p, sbuf); p = f_ints(p, scounts, nout); p = f_ints(p, sdispls, nout);
     p = f_type(p, stype); p = f_buf(p, rbuf); p = f_ints(p, rcounts, nin);
     p = f_ints(p, rdispls, nin); p = f_type(p, rtype); p = f_comm(p, comm))

COLL(Neighbor_alltoallw, neighbor_alltoallw,
     (const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
      const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const MPI_Aint rdispls[],
      const MPI_Datatype rtypes[], MPI_Comm comm),
     (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm),
     AP_BN(8 * CS(comm)),
     NBR(comm, nin, nout);
     p = f_buf(p, sbuf); p = f_ints(p, scounts, nout); p = f_aints(p, sdispls, nout);
     p = f_types(p, stypes, nout); p = f_buf(p, rbuf); p = f_ints(p, rcounts, nin);
     p = f_aints(p, rdispls, nin); p = f_types(p, rtypes, nin); p = f_comm(p, comm))

/* ------------------------------------------------------------ communicators */

/* NEWCOMM: a call that makes one communicator; FIELDS are the inputs. */
#define NEWCOMM(NAME, PARAMS, ARGS, OUT, BOUND, FIELDS)                             \
	int MPI_##NAME(STRIP PARAMS)                                                \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(STRIP ARGS);                             \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(STRIP ARGS);                                   \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(BOUND, "MPI_" #NAME, t0);                        \
		FIELDS;                                                             \
		p = f_newcomm(p, rc == MPI_SUCCESS ? *(OUT) : MPI_COMM_NULL);       \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}

NEWCOMM(Comm_dup, (MPI_Comm comm, MPI_Comm *nc), (comm, nc), nc, AP_B, p = f_comm(p, comm))
NEWCOMM(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *nc), (comm, info, nc), nc,
	AP_B, p = f_comm(p, comm))
NEWCOMM(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *nc), (comm, color, key, nc),
	nc, AP_B, p = f_comm(p, comm); p = f_int(p, undef(color)); p = f_int(p, key))
NEWCOMM(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *nc),
	(comm, type, key, info, nc), nc, AP_B,
	p = f_comm(p, comm); p = f_int(p, undef(AP_SPLIT_TYPE(type))); p = f_int(p, key))
NEWCOMM(Comm_create, (MPI_Comm comm, MPI_Group g, MPI_Comm *nc), (comm, g, nc), nc, AP_B,
	p = f_comm(p, comm))
NEWCOMM(Comm_create_group, (MPI_Comm comm, MPI_Group g, int tag, MPI_Comm *nc),
	(comm, g, tag, nc), nc, AP_B, p = f_comm(p, comm); p = f_tag(p, tag))
NEWCOMM(Cart_create,
	(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
	 MPI_Comm *nc),
	(comm, ndims, dims, periods, reorder, nc), nc, AP_BN(2 * ndims),
	p = f_comm(p, comm); p = f_int(p, ndims); p = f_list(p, dims, ndims);
	p = f_list(p, periods, ndims); p = f_int(p, reorder))
/* Dimensions of a Cartesian communicator (0 if it is none). */
static inline int cart_ndims(MPI_Comm comm)
{
	int nd = 0;
	if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd < 0)
		nd = 0;
	return nd;
}

NEWCOMM(Cart_sub, (MPI_Comm comm, const int remain[], MPI_Comm *nc), (comm, remain, nc), nc,
	AP_BN(cart_ndims(comm)), int nd = cart_ndims(comm);
	p = f_comm(p, comm); p = f_list(p, remain, nd))
NEWCOMM(Graph_create,
	(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
	 MPI_Comm *nc),
	(comm, nnodes, index, edges, reorder, nc), nc,
	AP_BN(nnodes + (nnodes > 0 && index ? index[nnodes - 1] : 0)),
	p = f_comm(p, comm); p = f_int(p, nnodes); p = f_list(p, index, nnodes);
	p = f_list(p, edges, nnodes > 0 && index ? index[nnodes - 1] : 0);
	p = f_int(p, reorder))
NEWCOMM(Dist_graph_create_adjacent,
	(MPI_Comm comm, int indeg, const int sources[], const int sw[], int outdeg,
	 const int dests[], const int dw[], MPI_Info info, int reorder, MPI_Comm *nc),
	(comm, indeg, sources, sw, outdeg, dests, dw, info, reorder, nc), nc,
	AP_BN(indeg + outdeg),
	p = f_comm(p, comm); p = f_int(p, indeg); p = f_list(p, sources, indeg);
	p = f_int(p, outdeg); p = f_list(p, dests, outdeg); p = f_int(p, reorder))
/* Number of edges Dist_graph_create is given: the destinations it lists. */
static inline size_t degree_sum(const int *degrees, int n)
{
	size_t s = 0;
	for (int i = 0; degrees && i < n; i++)
		s += degrees[i] > 0 ? (size_t)degrees[i] : 0;
	return s;
}

NEWCOMM(Dist_graph_create,
	(MPI_Comm comm, int n, const int sources[], const int degrees[], const int dests[],
	 const int weights[], MPI_Info info, int reorder, MPI_Comm *nc),
	(comm, n, sources, degrees, dests, weights, info, reorder, nc), nc,
	AP_BN(2 * (size_t)(n > 0 ? n : 0) + degree_sum(degrees, n)),
	int ne = 0; for (int i = 0; i < n; i++) ne += degrees[i];
	p = f_comm(p, comm); p = f_int(p, n); p = f_list(p, sources, n);
	p = f_list(p, degrees, n); p = f_list(p, dests, ne); p = f_int(p, reorder))
NEWCOMM(Intercomm_create,
	(MPI_Comm local, int lleader, MPI_Comm peer, int rleader, int tag, MPI_Comm *nc),
	(local, lleader, peer, rleader, tag, nc), nc, AP_B,
	p = f_comm(p, local); p = f_int(p, lleader); p = f_comm(p, peer);
	p = f_int(p, rleader); p = f_tag(p, tag))
NEWCOMM(Intercomm_merge, (MPI_Comm inter, int high, MPI_Comm *nc), (inter, high, nc), nc, AP_B,
	p = f_comm(p, inter); p = f_int(p, high))

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

/* ------------------------------------------------------------ groups */

int MPI_Comm_group(MPI_Comm comm, MPI_Group *g)
{
	if (!AP_ON())
		return PMPI_Comm_group(comm, g);
	uint64_t t0 = ap_now();
	int rc = PMPI_Comm_group(comm, g);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Comm_group", t0);
	p = f_comm(p, comm);
	p = f_newgroup(p, rc == MPI_SUCCESS ? *g : MPI_GROUP_NULL);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

#define GROUP_LIST(NAME, MULT)                                                      \
	int MPI_##NAME(MPI_Group g, int n, const int ranks[], MPI_Group *ng)         \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(g, n, ranks, ng);                        \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(g, n, ranks, ng);                              \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_BN(MULT * (n > 0 ? n : 0)), "MPI_" #NAME, t0); \
		p = f_group(p, g);                                                  \
		p = f_int(p, n);                                                    \
		p = f_list(p, ranks, MULT * n);                                     \
		p = f_newgroup(p, rc == MPI_SUCCESS ? *ng : MPI_GROUP_NULL);        \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
GROUP_LIST(Group_incl, 1)
GROUP_LIST(Group_excl, 1)

/* ranges[n][3] (first, last, stride) are written as one list of 3n ints */
#define GROUP_RANGE(NAME)                                                           \
	int MPI_##NAME(MPI_Group g, int n, int ranges[][3], MPI_Group *ng)           \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(g, n, ranges, ng);                       \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(g, n, ranges, ng);                             \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_BN(3 * (n > 0 ? n : 0)), "MPI_" #NAME, t0);   \
		p = f_group(p, g);                                                  \
		p = f_int(p, n);                                                    \
		p = f_list(p, n > 0 ? &ranges[0][0] : NULL, 3 * n);                 \
		p = f_newgroup(p, rc == MPI_SUCCESS ? *ng : MPI_GROUP_NULL);        \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
GROUP_RANGE(Group_range_incl)
GROUP_RANGE(Group_range_excl)

#define GROUP_SET(NAME)                                                             \
	int MPI_##NAME(MPI_Group a, MPI_Group b, MPI_Group *ng)                      \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(a, b, ng);                               \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(a, b, ng);                                     \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, "MPI_" #NAME, t0);                         \
		p = f_group(p, a);                                                  \
		p = f_group(p, b);                                                  \
		p = f_newgroup(p, rc == MPI_SUCCESS ? *ng : MPI_GROUP_NULL);        \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}
GROUP_SET(Group_union)
GROUP_SET(Group_intersection)
GROUP_SET(Group_difference)

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

/* ------------------------------------------------------------ datatypes */

#define NEWTYPE(NAME, PARAMS, ARGS, OUT, BOUND, FIELDS)                             \
	int MPI_##NAME(STRIP PARAMS)                                                \
	{                                                                           \
		if (!AP_ON())                                                       \
			return PMPI_##NAME(STRIP ARGS);                             \
		uint64_t t0 = ap_now();                                             \
		int rc = PMPI_##NAME(STRIP ARGS);                                   \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		if (rc == MPI_SUCCESS)                                              \
			ap_type_new(*(OUT));                                        \
		char *p = ap_begin(BOUND, "MPI_" #NAME, t0);                        \
		FIELDS;                                                             \
		p = f_type(p, rc == MPI_SUCCESS ? *(OUT) : MPI_DATATYPE_NULL);      \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
		return rc;                                                          \
	}

NEWTYPE(Type_contiguous, (int count, MPI_Datatype old, MPI_Datatype *nt), (count, old, nt), nt,
	AP_B, p = f_int(p, count); p = f_type(p, old))
NEWTYPE(Type_vector, (int count, int bl, int stride, MPI_Datatype old, MPI_Datatype *nt),
	(count, bl, stride, old, nt), nt, AP_B,
	p = f_int(p, count); p = f_int(p, bl); p = f_int(p, stride); p = f_type(p, old))
NEWTYPE(Type_create_hvector,
	(int count, int bl, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *nt),
	(count, bl, stride, old, nt), nt, AP_B,
	p = f_int(p, count); p = f_int(p, bl); p = f_int(p, (int64_t)stride);
	p = f_type(p, old))
NEWTYPE(Type_indexed,
	(int count, const int bls[], const int disps[], MPI_Datatype old, MPI_Datatype *nt),
	(count, bls, disps, old, nt), nt, AP_BN(2 * count),
	p = f_int(p, count); p = f_list(p, bls, count); p = f_list(p, disps, count);
	p = f_type(p, old))
NEWTYPE(Type_create_hindexed,
	(int count, const int bls[], const MPI_Aint disps[], MPI_Datatype old, MPI_Datatype *nt),
	(count, bls, disps, old, nt), nt, AP_BN(2 * count),
	p = f_int(p, count); p = f_list(p, bls, count); p = f_aints(p, disps, count);
	p = f_type(p, old))
NEWTYPE(Type_create_indexed_block,
	(int count, int bl, const int disps[], MPI_Datatype old, MPI_Datatype *nt),
	(count, bl, disps, old, nt), nt, AP_BN(count),
	p = f_int(p, count); p = f_int(p, bl); p = f_list(p, disps, count); p = f_type(p, old))
NEWTYPE(Type_create_hindexed_block,
	(int count, int bl, const MPI_Aint disps[], MPI_Datatype old, MPI_Datatype *nt),
	(count, bl, disps, old, nt), nt, AP_BN(count),
	p = f_int(p, count); p = f_int(p, bl); p = f_aints(p, disps, count); p = f_type(p, old))
NEWTYPE(Type_create_struct,
	(int count, const int bls[], const MPI_Aint disps[], const MPI_Datatype types[],
	 MPI_Datatype *nt),
	(count, bls, disps, types, nt), nt, AP_BN(4 * count),
	p = f_int(p, count); p = f_list(p, bls, count); p = f_aints(p, disps, count);
	p = f_types(p, types, count))
NEWTYPE(Type_create_subarray,
	(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
	 MPI_Datatype old, MPI_Datatype *nt),
	(ndims, sizes, subsizes, starts, order, old, nt), nt, AP_BN(3 * ndims),
	p = f_int(p, ndims); p = f_list(p, sizes, ndims); p = f_list(p, subsizes, ndims);
	p = f_list(p, starts, ndims); p = f_int(p, AP_ORDER(order)); p = f_type(p, old))
NEWTYPE(Type_create_resized, (MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *nt),
	(old, lb, extent, nt), nt, AP_B,
	p = f_type(p, old); p = f_int(p, (int64_t)lb); p = f_int(p, (int64_t)extent))
NEWTYPE(Type_dup, (MPI_Datatype old, MPI_Datatype *nt), (old, nt), nt, AP_B, p = f_type(p, old))

int MPI_Type_commit(MPI_Datatype *t)
{
	if (!AP_ON())
		return PMPI_Type_commit(t);
	uint64_t t0 = ap_now();
	int rc = PMPI_Type_commit(t);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Type_commit", t0);
	p = f_type(p, *t);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}

FREEWRAP(Type, MPI_Datatype, f_type, ap_type_free)

int MPI_Type_size(MPI_Datatype t, int *size)
{
	if (!AP_ON())
		return PMPI_Type_size(t, size);
	uint64_t t0 = ap_now();
	int rc = PMPI_Type_size(t, size);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Type_size", t0);
	p = f_type(p, t);
	p = f_int(p, rc == MPI_SUCCESS ? *size : -1);
	ap_end(p, t1);
	ap_unlock();
	return rc;
}
