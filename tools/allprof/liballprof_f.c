/*
 * liballprof_f.c: Fortran entry points of liballprof.
 *
 * Open MPI's Fortran bindings (mpif.h and `use mpi`: mpi_send_ and friends
 * in libmpi_mpifh; `use mpi_f08`: mpi_send_f08_ in libmpi_usempif08, which
 * calls ompi_send_f in libmpi_mpifh) call PMPI_* directly, so the C wrappers
 * never see a Fortran application. Here each covered call is defined twice,
 * as mpi_<name>_ (mpif.h, `use mpi`) and ompi_<name>_f (what `use mpi_f08`
 * reaches); both record the call and forward to the next definition of the
 * same symbol (dlsym(RTLD_NEXT)), with the application's arguments unchanged
 * except MPI_STATUS(ES)_IGNORE, replaced by a private status so the trace
 * can say what was received. Handles are converted with MPI_*_f2c for the
 * record; MPI_IN_PLACE and MPI_BOTTOM are recognised by the addresses of
 * Open MPI's Fortran sentinels. Fortran indices (Waitany, Waitsome) are
 * 1-based and are written 0-based like C's. The record layout is exactly
 * that of the C call, so readers do not care which language made a trace.
 * MPICH (liballprof-mpich.so, built from the same sources) has only the
 * mpi_<name>_ entry points; its Fortran layer calls the C MPI_ functions, so
 * the forwarded call reaches the C wrappers too, which record nothing while
 * ap_depth is raised (each call is recorded once, here). Its `use mpi_f08`
 * (mpi_send_f08ts_ ...) calls PMPI_ functions and is not traced. Its Fortran
 * sentinels are members of mpif.h's common blocks (sentinels()).
 * Most entry points are one-line descriptions expanded by a macro per shape
 * (FCOLL2 a collective and its nonblocking twin, FNEWCOMM, FNEWTYPE, FFREE,
 * FGROUP_*), which keeps the field order in step with liballprof_mpi.c.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "liballprof.h"

typedef MPI_Fint F;
#define FSTRIDE (sizeof(MPI_Status) / sizeof(F)) /* MPI_STATUS_SIZE */
enum { FST = (sizeof(MPI_Status) + sizeof(F) - 1) / sizeof(F) + 2 }; /* a private status, with room */

static char *s_in_place, *s_bottom, *s_status_ignore, *s_statuses_ignore;

static void sentinels(void)
{
	static int done;
	if (done)
		return;
#ifdef OPEN_MPI
	s_in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
	s_bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
	s_status_ignore = dlsym(RTLD_DEFAULT, "mpi_fortran_status_ignore_");
	s_statuses_ignore = dlsym(RTLD_DEFAULT, "mpi_fortran_statuses_ignore_");
#else
	/* MPICH: members of the common blocks of its mpif.h and `use mpi`,
	 * COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and
	 * COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE, ...; there when the program is
	 * loaded, so they are looked up then (an application may call MPI_Init
	 * from C and the rest from Fortran). */
	char *p1 = dlsym(RTLD_DEFAULT, "mpipriv1_");
	if (p1) {
		s_bottom = p1;
		s_in_place = p1 + sizeof(F);
		s_status_ignore = p1 + 2 * sizeof(F);
	}
	s_statuses_ignore = dlsym(RTLD_DEFAULT, "mpipriv2_");
#endif
	done = 1;
}

#ifndef OPEN_MPI
__attribute__((constructor)) static void sentinels_at_load(void)
{
	sentinels();
}
#endif

static const void *fbuf(const void *b)
{
	if (b && (const char *)b == s_in_place)
		return MPI_IN_PLACE;
	if (b && (const char *)b == s_bottom)
		return MPI_BOTTOM;
	return b;
}

static char *ff_buf(char *p, const void *b)
{
	return f_buf(p, fbuf(b));
}

static char *ff_status(char *p, const F *fs)
{
	MPI_Status s;
	PMPI_Status_f2c(fs, &s);
	return f_status(p, &s);
}

/* The status of a completed request (Wait/Test family). MPICH leaves the
 * status of a cancelled receive as it was; it is written as Open MPI fills
 * it (source MPI_ANY_SOURCE), which readers take for "cancelled". */
static char *ff_wstatus(char *p, const F *fs)
{
#ifdef OPEN_MPI
	return ff_status(p, fs);
#else
	MPI_Status s;
	int cancelled = 0;
	PMPI_Status_f2c(fs, &s);
	if (PMPI_Test_cancelled(&s, &cancelled) == MPI_SUCCESS && cancelled) {
		s.MPI_SOURCE = MPI_ANY_SOURCE;
		s.MPI_TAG = MPI_ANY_TAG;
		PMPI_Status_set_elements(&s, MPI_BYTE, 0);
	}
	return f_status(p, &s);
#endif
}

/* Constants whose values differ between MPIs are recorded as Open MPI numbers
 * them, as liballprof_mpi.c does, so that a trace does not depend on the MPI
 * that made it (MPICH: MPI_ORDER_C 56, MPI_ORDER_FORTRAN 57,
 * MPI_COMM_TYPE_SHARED 1). */
#ifdef OPEN_MPI
#define AP_ORDER(o) (o)
#define AP_SPLIT_TYPE(t) (t)
#else
#define AP_ORDER(o) ((o) == MPI_ORDER_C ? 0 : (o) == MPI_ORDER_FORTRAN ? 1 : (o))
#define AP_SPLIT_TYPE(t) ((t) == MPI_COMM_TYPE_SHARED ? 0 : (t))
#endif

#define TYPE(x) PMPI_Type_f2c(*(x))
#define COMM(x) PMPI_Comm_f2c(*(x))
#define OP(x) PMPI_Op_f2c(*(x))

/* Look up the next definition of this entry point once. */
#define REAL(fp, sym)                                                                \
	do {                                                                        \
		if (!fp)                                                            \
			*(void **)&fp = dlsym(RTLD_NEXT, sym);                      \
	} while (0)

/* Two entry points per call: ENTRY2(mpi_send, ompi_send_f, fw_send, PARAMS, ARGS).
 * MPICH has only the first (the second is Open MPI's). */
#ifdef OPEN_MPI
#define ENTRY2(A, B, FN, T, PARAMS, ARGS)                                            \
	void A##_ PARAMS                                                             \
	{                                                                           \
		static T real;                                                      \
		REAL(real, #A "_");                                                 \
		FN(real, STRIPF ARGS);                                              \
	}                                                                           \
	void B PARAMS                                                               \
	{                                                                           \
		static T real;                                                      \
		REAL(real, #B);                                                     \
		FN(real, STRIPF ARGS);                                              \
	}
#else
#define ENTRY2(A, B, FN, T, PARAMS, ARGS)                                            \
	void A##_ PARAMS                                                             \
	{                                                                           \
		static T real;                                                      \
		REAL(real, #A "_");                                                 \
		FN(real, STRIPF ARGS);                                              \
	}
#endif
#define STRIPF(...) __VA_ARGS__

/* Call the real function with the depth guard raised (an MPI library whose
 * Fortran layer calls the C MPI_ functions must not be recorded twice). */
#define CALL(real, ...)                                                             \
	do {                                                                        \
		ap_depth++;                                                         \
		real(__VA_ARGS__);                                                  \
		ap_depth--;                                                         \
	} while (0)

#define FON() (AP_ON())

/* ------------------------------------------------------------ init, finalize */

typedef void (*t_init)(F *);
static void fw_init(t_init real, F *ierr)
{
	uint64_t t0 = ap_now();
	CALL(real, ierr);
	if (*ierr == MPI_SUCCESS && !ap_depth) {
		sentinels();
		ap_start(MPI_THREAD_SINGLE);
		uint64_t t1 = ap_now(); /* after the tracer's start-up */
		ap_init_record("MPI_Init", t0, t1, NULL, NULL, 0, 0, 0);
	}
}
ENTRY2(mpi_init, ompi_init_f, fw_init, t_init, (F *ierr), (ierr))

typedef void (*t_init_thread)(F *, F *, F *);
static void fw_init_thread(t_init_thread real, F *req, F *prov, F *ierr)
{
	uint64_t t0 = ap_now();
	CALL(real, req, prov, ierr);
	if (*ierr == MPI_SUCCESS && !ap_depth) {
		sentinels();
		ap_start(*prov);
		uint64_t t1 = ap_now(); /* after the tracer's start-up */
		ap_init_record("MPI_Init_thread", t0, t1, NULL, NULL, 1, *req, *prov);
	}
}
ENTRY2(mpi_init_thread, ompi_init_thread_f, fw_init_thread, t_init_thread,
       (F *req, F *prov, F *ierr), (req, prov, ierr))

static void fw_finalize(t_init real, F *ierr)
{
	if (!FON()) {
		CALL(real, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	ap_finalize_begin();
	CALL(real, ierr);
	ap_finalize_end(t0, ap_now());
}
ENTRY2(mpi_finalize, ompi_finalize_f, fw_finalize, t_init, (F *ierr), (ierr))

typedef void (*t_abort)(F *, F *, F *);
static void fw_abort(t_abort real, F *comm, F *code, F *ierr)
{
	if (!ap_depth)
		ap_abort(COMM(comm), *code, ap_now());
	CALL(real, comm, code, ierr);
}
ENTRY2(mpi_abort, ompi_abort_f, fw_abort, t_abort, (F *comm, F *code, F *ierr), (comm, code, ierr))

typedef void (*t_rank)(F *, F *, F *);
#define FW_RANKSIZE(fn, NAME)                                                        \
	static void fn(t_rank real, F *comm, F *v, F *ierr)                          \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, comm, v, ierr);                                  \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, comm, v, ierr);                                          \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, NAME, t0);                                 \
		p = f_comm(p, COMM(comm));                                          \
		p = f_ptr(p, v);                                                    \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}
FW_RANKSIZE(fw_comm_rank, "MPI_Comm_rank")
FW_RANKSIZE(fw_comm_size, "MPI_Comm_size")
ENTRY2(mpi_comm_rank, ompi_comm_rank_f, fw_comm_rank, t_rank, (F *c, F *v, F *e), (c, v, e))
ENTRY2(mpi_comm_size, ompi_comm_size_f, fw_comm_size, t_rank, (F *c, F *v, F *e), (c, v, e))

/* ------------------------------------------------------------ point to point */

typedef void (*t_send)(void *, F *, F *, F *, F *, F *, F *);
#define FW_SEND(fn, NAME)                                                            \
	static void fn(t_send real, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, \
		       F *ierr)                                                     \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, buf, count, dt, dest, tag, comm, ierr);          \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, buf, count, dt, dest, tag, comm, ierr);                  \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(AP_B, NAME, t0);                                 \
		p = ff_buf(p, buf);                                                 \
		p = f_int(p, *count);                                               \
		p = f_type(p, TYPE(dt));                                            \
		p = f_peer(p, *dest);                                               \
		p = f_tag(p, *tag);                                                 \
		p = f_comm(p, COMM(comm));                                          \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}
#define SENDPARAMS (void *b, F *n, F *t, F *d, F *g, F *c, F *e)
#define SENDARGS (b, n, t, d, g, c, e)
FW_SEND(fw_send, "MPI_Send")
FW_SEND(fw_ssend, "MPI_Ssend")
FW_SEND(fw_bsend, "MPI_Bsend")
FW_SEND(fw_rsend, "MPI_Rsend")
ENTRY2(mpi_send, ompi_send_f, fw_send, t_send, SENDPARAMS, SENDARGS)
ENTRY2(mpi_ssend, ompi_ssend_f, fw_ssend, t_send, SENDPARAMS, SENDARGS)
ENTRY2(mpi_bsend, ompi_bsend_f, fw_bsend, t_send, SENDPARAMS, SENDARGS)
ENTRY2(mpi_rsend, ompi_rsend_f, fw_rsend, t_send, SENDPARAMS, SENDARGS)

typedef void (*t_isend)(void *, F *, F *, F *, F *, F *, F *, F *);
#define FW_ISEND(fn, NAME, PERSISTENT)                                               \
	static void fn(t_isend real, void *buf, F *count, F *dt, F *peer, F *tag, F *comm, \
		       F *req, F *ierr)                                             \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, buf, count, dt, peer, tag, comm, req, ierr);     \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, buf, count, dt, peer, tag, comm, req, ierr);             \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		uint64_t id = *ierr == MPI_SUCCESS                                  \
				      ? ap_req_new(PMPI_Request_f2c(*req), req, PERSISTENT) \
				      : 0;                                          \
		char *p = ap_begin(AP_B, NAME, t0);                                 \
		p = ff_buf(p, buf);                                                 \
		p = f_int(p, *count);                                               \
		p = f_type(p, TYPE(dt));                                            \
		p = f_peer(p, *peer);                                               \
		p = f_tag(p, *tag);                                                 \
		p = f_comm(p, COMM(comm));                                          \
		p = f_req(p, id);                                                   \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}
#define ISENDPARAMS (void *b, F *n, F *t, F *d, F *g, F *c, F *r, F *e)
#define ISENDARGS (b, n, t, d, g, c, r, e)
FW_ISEND(fw_isend, "MPI_Isend", 0)
FW_ISEND(fw_issend, "MPI_Issend", 0)
FW_ISEND(fw_ibsend, "MPI_Ibsend", 0)
FW_ISEND(fw_irsend, "MPI_Irsend", 0)
FW_ISEND(fw_irecv, "MPI_Irecv", 0)
FW_ISEND(fw_send_init, "MPI_Send_init", 1)
FW_ISEND(fw_recv_init, "MPI_Recv_init", 1)
FW_ISEND(fw_bsend_init, "MPI_Bsend_init", 1)
FW_ISEND(fw_ssend_init, "MPI_Ssend_init", 1)
FW_ISEND(fw_rsend_init, "MPI_Rsend_init", 1)
ENTRY2(mpi_isend, ompi_isend_f, fw_isend, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_issend, ompi_issend_f, fw_issend, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_ibsend, ompi_ibsend_f, fw_ibsend, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_irsend, ompi_irsend_f, fw_irsend, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_irecv, ompi_irecv_f, fw_irecv, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_send_init, ompi_send_init_f, fw_send_init, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_recv_init, ompi_recv_init_f, fw_recv_init, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_bsend_init, ompi_bsend_init_f, fw_bsend_init, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_ssend_init, ompi_ssend_init_f, fw_ssend_init, t_isend, ISENDPARAMS, ISENDARGS)
ENTRY2(mpi_rsend_init, ompi_rsend_init_f, fw_rsend_init, t_isend, ISENDPARAMS, ISENDARGS)

/* A private Fortran status when the application passed MPI_STATUS_IGNORE. */
#define FSTATUS(st, own)                                                             \
	F own[FST];                                                                 \
	if ((char *)(st) == s_status_ignore)                                        \
	(st) = own

typedef void (*t_recv)(void *, F *, F *, F *, F *, F *, F *, F *);
static void fw_recv(t_recv real, void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *st,
		    F *ierr)
{
	if (!FON()) {
		CALL(real, buf, count, dt, src, tag, comm, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, buf, count, dt, src, tag, comm, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Recv", t0);
	p = ff_buf(p, buf);
	p = f_int(p, *count);
	p = f_type(p, TYPE(dt));
	p = f_peer(p, *src);
	p = f_tag(p, *tag);
	p = f_comm(p, COMM(comm));
	p = ff_status(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_recv, ompi_recv_f, fw_recv, t_recv, ISENDPARAMS, ISENDARGS)

typedef void (*t_sendrecv)(void *, F *, F *, F *, F *, void *, F *, F *, F *, F *, F *, F *,
			   F *);
static void fw_sendrecv(t_sendrecv real, void *sb, F *sc, F *st_, F *dest, F *stag, void *rb,
			F *rc, F *rt, F *src, F *rtag, F *comm, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, sb, sc, st_, dest, stag, rb, rc, rt, src, rtag, comm, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, sb, sc, st_, dest, stag, rb, rc, rt, src, rtag, comm, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Sendrecv", t0);
	p = ff_buf(p, sb);
	p = f_int(p, *sc);
	p = f_type(p, TYPE(st_));
	p = f_peer(p, *dest);
	p = f_tag(p, *stag);
	p = ff_buf(p, rb);
	p = f_int(p, *rc);
	p = f_type(p, TYPE(rt));
	p = f_peer(p, *src);
	p = f_tag(p, *rtag);
	p = f_comm(p, COMM(comm));
	p = ff_status(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_sendrecv, ompi_sendrecv_f, fw_sendrecv, t_sendrecv,
       (void *a, F *b, F *c, F *d, F *e, void *f, F *g, F *h, F *i, F *j, F *k, F *l, F *m),
       (a, b, c, d, e, f, g, h, i, j, k, l, m))

/* ------------------------------------------------------------ wait, test, probe */

static F f_null_req(void)
{
	return PMPI_Request_c2f(MPI_REQUEST_NULL);
}

typedef void (*t_wait)(F *, F *, F *);
static void fw_wait(t_wait real, F *req, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, req, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	MPI_Request r = PMPI_Request_f2c(*req);
	ap_lock();
	uint64_t id = ap_req_id(r, req);
	ap_unlock();
	CALL(real, req, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	if (*req == f_null_req())
		ap_req_done(r, req, id);
	char *p = ap_begin(AP_B, "MPI_Wait", t0);
	p = f_req(p, id);
	p = ff_wstatus(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_wait, ompi_wait_f, fw_wait, t_wait, (F *r, F *s, F *e), (r, s, e))

typedef void (*t_test)(F *, F *, F *, F *);
static void fw_test(t_test real, F *req, F *flag, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, req, flag, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	MPI_Request r = PMPI_Request_f2c(*req);
	ap_lock();
	uint64_t id = ap_req_id(r, req);
	ap_unlock();
	CALL(real, req, flag, st, ierr);
	uint64_t t1 = ap_now();
	int fl = *flag != 0;
	ap_lock();
	if (fl && *req == f_null_req())
		ap_req_done(r, req, id);
	char *p = ap_poll_begin(AP_B, "MPI_Test", t0);
	p = f_req(p, id);
	p = f_int(p, fl);
	p = fl ? ff_wstatus(p, st) : f_nostatus(p);
	ap_poll_end(p, t1, fl);
	ap_unlock();
}
ENTRY2(mpi_test, ompi_test_f, fw_test, t_test, (F *r, F *f, F *s, F *e), (r, f, s, e))

/* Request arrays: ids and C handles before the call. */
static int freqs_get(int n, const F *reqs, uint64_t **ids, MPI_Request **old)
{
	*ids = malloc(sizeof **ids * (size_t)(n > 0 ? n : 1));
	*old = malloc(sizeof **old * (size_t)(n > 0 ? n : 1));
	if (!*ids || !*old) {
		free(*ids);
		free(*old);
		return -1;
	}
	ap_lock();
	for (int i = 0; i < n; i++) {
		(*old)[i] = PMPI_Request_f2c(reqs[i]);
		(*ids)[i] = ap_req_id((*old)[i], &reqs[i]);
	}
	ap_unlock();
	return 0;
}

static void freqs_done(int n, const F *reqs, const uint64_t *ids, const MPI_Request *old)
{
	F fnull = f_null_req();
	for (int i = 0; i < n; i++)
		if (old[i] != MPI_REQUEST_NULL && reqs[i] == fnull)
			ap_req_done(old[i], &reqs[i], ids[i]);
}

static char *ff_statuses(char *p, const F *st, int n)
{
	if (!st || n <= 0)
		return f_nostatus(p);
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = ff_wstatus(p, st + (size_t)i * FSTRIDE);
		if (i)
			*q = ';';
	}
	return p;
}

/* Statuses array: the application's, or a private one for MPI_STATUSES_IGNORE. */
static F *fstatuses(F *st, int n, F **own)
{
	*own = NULL;
	if ((char *)st != s_statuses_ignore)
		return st;
	*own = malloc(sizeof(F) * FSTRIDE * (size_t)(n > 0 ? n : 1));
	return *own ? *own : st;
}

typedef void (*t_waitall)(F *, F *, F *, F *);
static void fw_waitall_common(int test, t_waitall real, F *n, F *reqs, F *flag, F *st, F *ierr)
{
	/* test: Testall(n, reqs, flag, statuses, ierr); else Waitall(n, reqs, statuses, ierr) */
	uint64_t *ids;
	MPI_Request *old;
	if (!FON() || freqs_get(*n, reqs, &ids, &old) != 0) {
		if (test)
			((void (*)(F *, F *, F *, F *, F *))(void (*)(void))real)(n, reqs, flag, st, ierr);
		else
			CALL(real, n, reqs, st, ierr);
		return;
	}
	F *own, *sts = fstatuses(st, *n, &own);
	uint64_t t0 = ap_now();
	ap_depth++;
	if (test)
		((void (*)(F *, F *, F *, F *, F *))(void (*)(void))real)(n, reqs, flag, sts, ierr);
	else
		real(n, reqs, sts, ierr);
	ap_depth--;
	uint64_t t1 = ap_now();
	int fl = test ? *flag != 0 : 1;
	ap_lock();
	if (fl)
		freqs_done(*n, reqs, ids, old);
	const char *name = test ? "MPI_Testall" : "MPI_Waitall";
	char *p = test ? ap_poll_begin(AP_BN(3 * *n), name, t0) : ap_begin(AP_BN(3 * *n), name, t0);
	p = f_int(p, *n);
	p = f_reqs(p, ids, *n);
	if (test)
		p = f_int(p, fl);
	p = fl ? ff_statuses(p, sts, *n) : f_nostatus(p);
	if (test)
		ap_poll_end(p, t1, fl);
	else
		ap_end(p, t1);
	ap_unlock();
	free(ids);
	free(old);
	free(own);
}
static void fw_waitall(t_waitall real, F *n, F *reqs, F *st, F *ierr)
{
	fw_waitall_common(0, real, n, reqs, NULL, st, ierr);
}
ENTRY2(mpi_waitall, ompi_waitall_f, fw_waitall, t_waitall, (F *n, F *r, F *s, F *e), (n, r, s, e))

typedef void (*t_testall)(F *, F *, F *, F *, F *);
static void fw_testall(t_testall real, F *n, F *reqs, F *flag, F *st, F *ierr)
{
	fw_waitall_common(1, (t_waitall)(void (*)(void))real, n, reqs, flag, st, ierr);
}
ENTRY2(mpi_testall, ompi_testall_f, fw_testall, t_testall, (F *n, F *r, F *f, F *s, F *e),
       (n, r, f, s, e))

typedef void (*t_waitany)(F *, F *, F *, F *, F *);
static void fw_waitany(t_waitany real, F *n, F *reqs, F *index, F *st, F *ierr)
{
	uint64_t *ids;
	MPI_Request *old;
	if (!FON() || freqs_get(*n, reqs, &ids, &old) != 0) {
		CALL(real, n, reqs, index, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, n, reqs, index, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	freqs_done(*n, reqs, ids, old);
	char *p = ap_begin(AP_BN(*n), "MPI_Waitany", t0);
	p = f_int(p, *n);
	p = f_reqs(p, ids, *n);
	p = f_int(p, *index == MPI_UNDEFINED ? -1 : *index - 1);
	p = ff_wstatus(p, st);
	ap_end(p, t1);
	ap_unlock();
	free(ids);
	free(old);
}
ENTRY2(mpi_waitany, ompi_waitany_f, fw_waitany, t_waitany, (F *n, F *r, F *i, F *s, F *e),
       (n, r, i, s, e))

typedef void (*t_testany)(F *, F *, F *, F *, F *, F *);
static void fw_testany(t_testany real, F *n, F *reqs, F *index, F *flag, F *st, F *ierr)
{
	uint64_t *ids;
	MPI_Request *old;
	if (!FON() || freqs_get(*n, reqs, &ids, &old) != 0) {
		CALL(real, n, reqs, index, flag, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, n, reqs, index, flag, st, ierr);
	uint64_t t1 = ap_now();
	int fl = *flag != 0;
	ap_lock();
	if (fl)
		freqs_done(*n, reqs, ids, old);
	char *p = ap_poll_begin(AP_BN(*n), "MPI_Testany", t0);
	p = f_int(p, *n);
	p = f_reqs(p, ids, *n);
	p = f_int(p, *index == MPI_UNDEFINED ? -1 : *index - 1);
	p = f_int(p, fl);
	p = fl ? ff_wstatus(p, st) : f_nostatus(p);
	ap_poll_end(p, t1, fl);
	ap_unlock();
	free(ids);
	free(old);
}
ENTRY2(mpi_testany, ompi_testany_f, fw_testany, t_testany,
       (F *n, F *r, F *i, F *f, F *s, F *e), (n, r, i, f, s, e))

typedef void (*t_waitsome)(F *, F *, F *, F *, F *, F *);
static void fw_some(int test, t_waitsome real, F *n, F *reqs, F *outc, F *idx, F *st, F *ierr)
{
	uint64_t *ids;
	MPI_Request *old;
	if (!FON() || freqs_get(*n, reqs, &ids, &old) != 0) {
		CALL(real, n, reqs, outc, idx, st, ierr);
		return;
	}
	F *own, *sts = fstatuses(st, *n, &own);
	uint64_t t0 = ap_now();
	CALL(real, n, reqs, outc, idx, sts, ierr);
	uint64_t t1 = ap_now();
	int oc = *outc == MPI_UNDEFINED ? -1 : *outc;
	ap_lock();
	freqs_done(*n, reqs, ids, old);
	const char *name = test ? "MPI_Testsome" : "MPI_Waitsome";
	char *p = test ? ap_poll_begin(AP_BN(4 * *n), name, t0) : ap_begin(AP_BN(4 * *n), name, t0);
	p = f_int(p, *n);
	p = f_reqs(p, ids, *n);
	p = f_int(p, oc);
	int *z = malloc(sizeof(int) * (size_t)(oc > 0 ? oc : 1));
	for (int i = 0; z && i < oc; i++)
		z[i] = idx[i] - 1;
	p = f_list(p, z, z ? oc : 0);
	free(z);
	p = ff_statuses(p, sts, oc);
	if (test)
		ap_poll_end(p, t1, oc != 0);
	else
		ap_end(p, t1);
	ap_unlock();
	free(ids);
	free(old);
	free(own);
}
static void fw_waitsome(t_waitsome real, F *n, F *r, F *o, F *i, F *s, F *e)
{
	fw_some(0, real, n, r, o, i, s, e);
}
static void fw_testsome(t_waitsome real, F *n, F *r, F *o, F *i, F *s, F *e)
{
	fw_some(1, real, n, r, o, i, s, e);
}
ENTRY2(mpi_waitsome, ompi_waitsome_f, fw_waitsome, t_waitsome,
       (F *n, F *r, F *o, F *i, F *s, F *e), (n, r, o, i, s, e))
ENTRY2(mpi_testsome, ompi_testsome_f, fw_testsome, t_waitsome,
       (F *n, F *r, F *o, F *i, F *s, F *e), (n, r, o, i, s, e))

typedef void (*t_start)(F *, F *);
static void fw_start(t_start real, F *req, F *ierr)
{
	if (!FON()) {
		CALL(real, req, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	CALL(real, req, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Start", t0);
	p = f_req(p, ap_req_id(PMPI_Request_f2c(*req), req));
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_start, ompi_start_f, fw_start, t_start, (F *r, F *e), (r, e))

static void fw_request_free(t_start real, F *req, F *ierr)
{
	if (!FON()) {
		CALL(real, req, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	MPI_Request r = PMPI_Request_f2c(*req);
	ap_lock();
	uint64_t id = ap_req_id(r, req);
	ap_unlock();
	CALL(real, req, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	ap_req_done(r, req, id);
	char *p = ap_begin(AP_B, "MPI_Request_free", t0);
	p = f_req(p, id);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_request_free, ompi_request_free_f, fw_request_free, t_start, (F *r, F *e), (r, e))

typedef void (*t_startall)(F *, F *, F *);
static void fw_startall(t_startall real, F *n, F *reqs, F *ierr)
{
	uint64_t *ids;
	MPI_Request *old;
	if (!FON()) {
		CALL(real, n, reqs, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	CALL(real, n, reqs, ierr);
	uint64_t t1 = ap_now();
	if (freqs_get(*n, reqs, &ids, &old) != 0)
		return;
	ap_lock();
	char *p = ap_begin(AP_BN(*n), "MPI_Startall", t0);
	p = f_int(p, *n);
	p = f_reqs(p, ids, *n);
	ap_end(p, t1);
	ap_unlock();
	free(ids);
	free(old);
}
ENTRY2(mpi_startall, ompi_startall_f, fw_startall, t_startall, (F *n, F *r, F *e), (n, r, e))

typedef void (*t_probe)(F *, F *, F *, F *, F *);
static void fw_probe(t_probe real, F *src, F *tag, F *comm, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, src, tag, comm, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, src, tag, comm, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Probe", t0);
	p = f_peer(p, *src);
	p = f_tag(p, *tag);
	p = f_comm(p, COMM(comm));
	p = ff_status(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_probe, ompi_probe_f, fw_probe, t_probe, (F *a, F *b, F *c, F *s, F *e),
       (a, b, c, s, e))

typedef void (*t_iprobe)(F *, F *, F *, F *, F *, F *);
static void fw_iprobe(t_iprobe real, F *src, F *tag, F *comm, F *flag, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, src, tag, comm, flag, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, src, tag, comm, flag, st, ierr);
	uint64_t t1 = ap_now();
	int fl = *flag != 0;
	ap_lock();
	char *p = ap_poll_begin(AP_B, "MPI_Iprobe", t0);
	p = f_peer(p, *src);
	p = f_tag(p, *tag);
	p = f_comm(p, COMM(comm));
	p = f_int(p, fl);
	p = fl ? ff_status(p, st) : f_nostatus(p);
	ap_poll_end(p, t1, fl);
	ap_unlock();
}
ENTRY2(mpi_iprobe, ompi_iprobe_f, fw_iprobe, t_iprobe, (F *a, F *b, F *c, F *f, F *s, F *e),
       (a, b, c, f, s, e))

/* ------------------------------------------------------------ collectives */

/* FCOLL(name, ompi name, record name, PARAMS, ARGS-to-real, FIELDS): the real
 * function's last argument is ierr. */
#define FCOLL(A, B, NAME, PARAMS, ARGS, BOUND, FIELDS)                               \
	typedef void (*t_##A)(STRIPF PARAMS, F *);                                  \
	static void fw_##A(t_##A real, STRIPF PARAMS, F *ierr)                      \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, STRIPF ARGS, ierr);                              \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, STRIPF ARGS, ierr);                                      \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(BOUND, NAME, t0);                                \
		FIELDS;                                                             \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}                                                                           \
	ENTRY2(A, B, fw_##A, t_##A, (STRIPF PARAMS, F *ierr), (STRIPF ARGS, ierr))

/* FICOLL: a nonblocking collective; PARAMS end with the request, which the
 * record gets as its last field. */
#define FICOLL(A, B, NAME, PARAMS, ARGS, REQ, BOUND, FIELDS)                         \
	typedef void (*t_##A)(STRIPF PARAMS, F *);                                  \
	static void fw_##A(t_##A real, STRIPF PARAMS, F *ierr)                      \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, STRIPF ARGS, ierr);                              \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, STRIPF ARGS, ierr);                                      \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		uint64_t id = *ierr == MPI_SUCCESS                                  \
				      ? ap_req_new(PMPI_Request_f2c(*REQ), REQ, 0)  \
				      : 0;                                          \
		char *p = ap_begin(BOUND, NAME, t0);                                \
		FIELDS;                                                             \
		p = f_req(p, id);                                                   \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}                                                                           \
	ENTRY2(A, B, fw_##A, t_##A, (STRIPF PARAMS, F *ierr), (STRIPF ARGS, ierr))

/* FCOLL2: a collective and its nonblocking twin from one description, as the
 * C side's COLL does: FCOLL2(x, ix, "MPI_X", "MPI_Ix", ...) defines mpi_x_,
 * ompi_x_f, mpi_ix_ and ompi_ix_f. */
#define FCOLL2(X, IX, NAME, INAME, PARAMS, ARGS, BOUND, FIELDS)                      \
	FCOLL(mpi_##X, ompi_##X##_f, NAME, PARAMS, ARGS, BOUND, FIELDS)             \
	FICOLL(mpi_##IX, ompi_##IX##_f, INAME, (STRIPF PARAMS, F *req), (STRIPF ARGS, req), \
	       req, BOUND, FIELDS)

static int fsize(F *comm)
{
	return ap_comm_size(COMM(comm));
}

static int frank(F *comm)
{
	int r = -1;
	PMPI_Comm_rank(COMM(comm), &r);
	return r;
}

/* Neighbour counts of a Fortran communicator with a topology. */
static int fnbr(F *comm, int out)
{
	int in = 0, o = 0;
	ap_nbr_counts(COMM(comm), &in, &o);
	return out ? o : in;
}

/* :<addr>:<t0;t1;...> of a Fortran datatype array, like f_types. */
static char *ff_types(char *p, const F *t, int n)
{
	p = f_ptr(p, t);
	if (!t || n <= 0)
		return f_nostatus(p);
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = f_type(p, PMPI_Type_f2c(t[i]));
		if (i)
			*q = ';';
	}
	return p;
}

/* :<addr>:<v0,v1,...> of MPI_Aint displacements (INTEGER(KIND=MPI_ADDRESS_KIND)). */
static char *ff_aints(char *p, const MPI_Aint *v, int n)
{
	p = f_ptr(p, v);
	if (!v || n <= 0)
		return f_nostatus(p);
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = f_int(p, (int64_t)v[i]);
		if (i)
			*q = ',';
	}
	return p;
}

/* :<b0,b1,...> of a Fortran LOGICAL array, written 0/1 like C's int flags. */
static char *ff_bools(char *p, const F *v, int n)
{
	if (!v || n <= 0)
		return f_nostatus(p);
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = f_int(p, v[i] != 0);
		if (i)
			*q = ',';
	}
	return p;
}

static int fsum(const F *v, int n)
{
	int64_t s = 0;
	for (int i = 0; v && i < n; i++)
		s += v[i] > 0 ? v[i] : 0;
	return s > (1 << 24) ? 1 << 24 : (int)s;
}

FCOLL(mpi_barrier, ompi_barrier_f, "MPI_Barrier", (F *comm), (comm), AP_B,
      p = f_comm(p, COMM(comm)))
FICOLL(mpi_ibarrier, ompi_ibarrier_f, "MPI_Ibarrier", (F *comm, F *req), (comm, req), req, AP_B,
       p = f_comm(p, COMM(comm)))
FCOLL2(bcast, ibcast, "MPI_Bcast", "MPI_Ibcast",
       (void *buf, F *count, F *dt, F *root, F *comm), (buf, count, dt, root, comm), AP_B,
       p = ff_buf(p, buf); p = f_int(p, *count); p = f_type(p, TYPE(dt)); p = f_int(p, *root);
       p = f_comm(p, COMM(comm)))
FCOLL2(reduce, ireduce, "MPI_Reduce", "MPI_Ireduce",
       (void *sb, void *rb, F *count, F *dt, F *op, F *root, F *comm),
       (sb, rb, count, dt, op, root, comm), AP_B,
       p = ff_buf(p, sb); p = ff_buf(p, rb); p = f_int(p, *count); p = f_type(p, TYPE(dt));
       p = f_op(p, OP(op)); p = f_int(p, *root); p = f_comm(p, COMM(comm)))
#define FREDUCE_LIKE(X, IX, NAME, INAME)                                             \
	FCOLL2(X, IX, NAME, INAME, (void *sb, void *rb, F *count, F *dt, F *op, F *comm), \
	       (sb, rb, count, dt, op, comm), AP_B,                                  \
	       p = ff_buf(p, sb); p = ff_buf(p, rb); p = f_int(p, *count);           \
	       p = f_type(p, TYPE(dt)); p = f_op(p, OP(op)); p = f_comm(p, COMM(comm)))
FREDUCE_LIKE(allreduce, iallreduce, "MPI_Allreduce", "MPI_Iallreduce")
FREDUCE_LIKE(scan, iscan, "MPI_Scan", "MPI_Iscan")
FREDUCE_LIKE(exscan, iexscan, "MPI_Exscan", "MPI_Iexscan")
FCOLL(mpi_reduce_local, ompi_reduce_local_f, "MPI_Reduce_local",
      (void *ib, void *iob, F *count, F *dt, F *op), (ib, iob, count, dt, op), AP_B,
      p = ff_buf(p, ib); p = ff_buf(p, iob); p = f_int(p, *count); p = f_type(p, TYPE(dt));
      p = f_op(p, OP(op)))
FCOLL2(reduce_scatter, ireduce_scatter, "MPI_Reduce_scatter", "MPI_Ireduce_scatter",
       (void *sb, void *rb, F *rcounts, F *dt, F *op, F *comm), (sb, rb, rcounts, dt, op, comm),
       AP_BN(fsize(comm)),
       p = ff_buf(p, sb); p = ff_buf(p, rb); p = f_ints(p, rcounts, fsize(comm));
       p = f_type(p, TYPE(dt)); p = f_op(p, OP(op)); p = f_comm(p, COMM(comm)))
FCOLL2(reduce_scatter_block, ireduce_scatter_block, "MPI_Reduce_scatter_block",
       "MPI_Ireduce_scatter_block",
       (void *sb, void *rb, F *rc, F *dt, F *op, F *comm), (sb, rb, rc, dt, op, comm), AP_B,
       p = ff_buf(p, sb); p = ff_buf(p, rb); p = f_int(p, *rc); p = f_type(p, TYPE(dt));
       p = f_op(p, OP(op)); p = f_comm(p, COMM(comm)))
#define FGATHER_LIKE(X, IX, NAME, INAME)                                             \
	FCOLL2(X, IX, NAME, INAME,                                                   \
	       (void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *root, F *comm),   \
	       (sb, sc, st, rb, rc, rt, root, comm), AP_B,                           \
	       p = ff_buf(p, sb); p = f_int(p, *sc); p = f_type(p, TYPE(st));        \
	       p = ff_buf(p, rb); p = f_int(p, *rc); p = f_type(p, TYPE(rt));        \
	       p = f_int(p, *root); p = f_comm(p, COMM(comm)))
FGATHER_LIKE(gather, igather, "MPI_Gather", "MPI_Igather")
FGATHER_LIKE(scatter, iscatter, "MPI_Scatter", "MPI_Iscatter")
#define FALLGATHER_LIKE(X, IX, NAME, INAME)                                          \
	FCOLL2(X, IX, NAME, INAME,                                                   \
	       (void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm),            \
	       (sb, sc, st, rb, rc, rt, comm), AP_B,                                 \
	       p = ff_buf(p, sb); p = f_int(p, *sc); p = f_type(p, TYPE(st));        \
	       p = ff_buf(p, rb); p = f_int(p, *rc); p = f_type(p, TYPE(rt));        \
	       p = f_comm(p, COMM(comm)))
FALLGATHER_LIKE(allgather, iallgather, "MPI_Allgather", "MPI_Iallgather")
FALLGATHER_LIKE(alltoall, ialltoall, "MPI_Alltoall", "MPI_Ialltoall")
FALLGATHER_LIKE(neighbor_allgather, ineighbor_allgather, "MPI_Neighbor_allgather",
		"MPI_Ineighbor_allgather")
FALLGATHER_LIKE(neighbor_alltoall, ineighbor_alltoall, "MPI_Neighbor_alltoall",
		"MPI_Ineighbor_alltoall")
FCOLL2(gatherv, igatherv, "MPI_Gatherv", "MPI_Igatherv",
       (void *sb, F *sc, F *st, void *rb, F *rcs, F *dis, F *rt, F *root, F *comm),
       (sb, sc, st, rb, rcs, dis, rt, root, comm), AP_BN(2 * fsize(comm)),
       int at = frank(comm) == *root;
       p = ff_buf(p, sb); p = f_int(p, *sc); p = f_type(p, TYPE(st)); p = ff_buf(p, rb);
       p = f_ints(p, at ? rcs : NULL, fsize(comm)); p = f_ints(p, at ? dis : NULL, fsize(comm));
       p = f_type(p, TYPE(rt)); p = f_int(p, *root); p = f_comm(p, COMM(comm)))
FCOLL2(scatterv, iscatterv, "MPI_Scatterv", "MPI_Iscatterv",
       (void *sb, F *scs, F *dis, F *st, void *rb, F *rc, F *rt, F *root, F *comm),
       (sb, scs, dis, st, rb, rc, rt, root, comm), AP_BN(2 * fsize(comm)),
       int at = frank(comm) == *root;
       p = ff_buf(p, sb); p = f_ints(p, at ? scs : NULL, fsize(comm));
       p = f_ints(p, at ? dis : NULL, fsize(comm)); p = f_type(p, TYPE(st)); p = ff_buf(p, rb);
       p = f_int(p, *rc); p = f_type(p, TYPE(rt)); p = f_int(p, *root);
       p = f_comm(p, COMM(comm)))
FCOLL2(allgatherv, iallgatherv, "MPI_Allgatherv", "MPI_Iallgatherv",
       (void *sb, F *sc, F *st, void *rb, F *rcs, F *dis, F *rt, F *comm),
       (sb, sc, st, rb, rcs, dis, rt, comm), AP_BN(2 * fsize(comm)),
       p = ff_buf(p, sb); p = f_int(p, *sc); p = f_type(p, TYPE(st)); p = ff_buf(p, rb);
       p = f_ints(p, rcs, fsize(comm)); p = f_ints(p, dis, fsize(comm));
       p = f_type(p, TYPE(rt)); p = f_comm(p, COMM(comm)))
FCOLL2(alltoallv, ialltoallv, "MPI_Alltoallv", "MPI_Ialltoallv",
       (void *sb, F *scs, F *sds, F *st, void *rb, F *rcs, F *rds, F *rt, F *comm),
       (sb, scs, sds, st, rb, rcs, rds, rt, comm), AP_BN(4 * fsize(comm)),
       int ip = fbuf(sb) == MPI_IN_PLACE;
       p = ff_buf(p, sb); p = f_ints(p, ip ? NULL : scs, fsize(comm));
       p = f_ints(p, ip ? NULL : sds, fsize(comm)); p = f_type(p, TYPE(st)); p = ff_buf(p, rb);
       p = f_ints(p, rcs, fsize(comm)); p = f_ints(p, rds, fsize(comm));
       p = f_type(p, TYPE(rt)); p = f_comm(p, COMM(comm)))
FCOLL2(alltoallw, ialltoallw, "MPI_Alltoallw", "MPI_Ialltoallw",
       (void *sb, F *scs, F *sds, F *sts, void *rb, F *rcs, F *rds, F *rts, F *comm),
       (sb, scs, sds, sts, rb, rcs, rds, rts, comm), AP_BN(8 * fsize(comm)),
       int ip = fbuf(sb) == MPI_IN_PLACE;
       p = ff_buf(p, sb); p = f_ints(p, ip ? NULL : scs, fsize(comm));
       p = f_ints(p, ip ? NULL : sds, fsize(comm));
       p = ff_types(p, ip ? NULL : sts, fsize(comm)); p = ff_buf(p, rb);
       p = f_ints(p, rcs, fsize(comm)); p = f_ints(p, rds, fsize(comm));
       p = ff_types(p, rts, fsize(comm)); p = f_comm(p, COMM(comm)))
FCOLL2(neighbor_allgatherv, ineighbor_allgatherv, "MPI_Neighbor_allgatherv",
       "MPI_Ineighbor_allgatherv",
       (void *sb, F *sc, F *st, void *rb, F *rcs, F *dis, F *rt, F *comm),
       (sb, sc, st, rb, rcs, dis, rt, comm), AP_BN(2 * fsize(comm)),
       int nin = fnbr(comm, 0);
       p = ff_buf(p, sb); p = f_int(p, *sc); p = f_type(p, TYPE(st)); p = ff_buf(p, rb);
       p = f_ints(p, rcs, nin); p = f_ints(p, dis, nin); p = f_type(p, TYPE(rt));
       p = f_comm(p, COMM(comm)))
FCOLL2(neighbor_alltoallv, ineighbor_alltoallv, "MPI_Neighbor_alltoallv",
       "MPI_Ineighbor_alltoallv",
       (void *sb, F *scs, F *sds, F *st, void *rb, F *rcs, F *rds, F *rt, F *comm),
       (sb, scs, sds, st, rb, rcs, rds, rt, comm), AP_BN(4 * fsize(comm)),
       int nin = fnbr(comm, 0); int nout = fnbr(comm, 1);
       p = ff_buf(p, sb); p = f_ints(p, scs, nout); p = f_ints(p, sds, nout);
       p = f_type(p, TYPE(st)); p = ff_buf(p, rb); p = f_ints(p, rcs, nin);
       p = f_ints(p, rds, nin); p = f_type(p, TYPE(rt)); p = f_comm(p, COMM(comm)))
FCOLL2(neighbor_alltoallw, ineighbor_alltoallw, "MPI_Neighbor_alltoallw",
       "MPI_Ineighbor_alltoallw",
       (void *sb, F *scs, MPI_Aint *sds, F *sts, void *rb, F *rcs, MPI_Aint *rds, F *rts,
	F *comm),
       (sb, scs, sds, sts, rb, rcs, rds, rts, comm), AP_BN(8 * fsize(comm)),
       int nin = fnbr(comm, 0); int nout = fnbr(comm, 1);
       p = ff_buf(p, sb); p = f_ints(p, scs, nout); p = ff_aints(p, sds, nout);
       p = ff_types(p, sts, nout); p = ff_buf(p, rb); p = f_ints(p, rcs, nin);
       p = ff_aints(p, rds, nin); p = ff_types(p, rts, nin); p = f_comm(p, COMM(comm)))

/* ------------------------------------------------------------ point to point, continued */

typedef void (*t_sendrecv_replace)(void *, F *, F *, F *, F *, F *, F *, F *, F *, F *);
static void fw_sendrecv_replace(t_sendrecv_replace real, void *buf, F *count, F *dt, F *dest,
				F *stag, F *src, F *rtag, F *comm, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, buf, count, dt, dest, stag, src, rtag, comm, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, buf, count, dt, dest, stag, src, rtag, comm, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Sendrecv_replace", t0);
	p = ff_buf(p, buf);
	p = f_int(p, *count);
	p = f_type(p, TYPE(dt));
	p = f_peer(p, *dest);
	p = f_tag(p, *stag);
	p = f_peer(p, *src);
	p = f_tag(p, *rtag);
	p = f_comm(p, COMM(comm));
	p = ff_status(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_sendrecv_replace, ompi_sendrecv_replace_f, fw_sendrecv_replace, t_sendrecv_replace,
       (void *a, F *b, F *c, F *d, F *e, F *f, F *g, F *h, F *i, F *j),
       (a, b, c, d, e, f, g, h, i, j))

typedef void (*t_cancel)(F *, F *);
static void fw_cancel(t_cancel real, F *req, F *ierr)
{
	if (!FON()) {
		CALL(real, req, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	CALL(real, req, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Cancel", t0);
	p = f_req(p, ap_req_id(PMPI_Request_f2c(*req), req));
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_cancel, ompi_cancel_f, fw_cancel, t_cancel, (F *r, F *e), (r, e))

/* MPI_Pcontrol has no ierror argument in Fortran. */
typedef void (*t_pcontrol)(F *);
static void fw_pcontrol(t_pcontrol real, F *level)
{
	if (FON()) {
		uint64_t t0 = ap_now();
		ap_lock();
		char *p = ap_begin(AP_B, "MPI_Pcontrol", t0);
		p = f_int(p, *level);
		ap_end(p, ap_now());
		ap_unlock();
	}
	if (real)
		CALL(real, level);
}
ENTRY2(mpi_pcontrol, ompi_pcontrol_f, fw_pcontrol, t_pcontrol, (F *l), (l))

/* Matched probes: messages are numbered by the record of the probe that
 * made them, and Mrecv/Imrecv name that number. */
typedef void (*t_mprobe)(F *, F *, F *, F *, F *, F *);
static void fw_mprobe(t_mprobe real, F *src, F *tag, F *comm, F *msg, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, src, tag, comm, msg, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, src, tag, comm, msg, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Mprobe", t0);
	p = f_peer(p, *src);
	p = f_tag(p, *tag);
	p = f_comm(p, COMM(comm));
	p = f_msg(p, ap_msg_new(PMPI_Message_f2c(*msg)));
	p = ff_status(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_mprobe, ompi_mprobe_f, fw_mprobe, t_mprobe, (F *a, F *b, F *c, F *m, F *s, F *e),
       (a, b, c, m, s, e))

typedef void (*t_improbe)(F *, F *, F *, F *, F *, F *, F *);
static void fw_improbe(t_improbe real, F *src, F *tag, F *comm, F *flag, F *msg, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, src, tag, comm, flag, msg, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	CALL(real, src, tag, comm, flag, msg, st, ierr);
	uint64_t t1 = ap_now();
	int fl = *flag != 0;
	ap_lock();
	char *p = ap_poll_begin(AP_B, "MPI_Improbe", t0);
	p = f_peer(p, *src);
	p = f_tag(p, *tag);
	p = f_comm(p, COMM(comm));
	p = f_int(p, fl);
	p = f_msg(p, fl ? ap_msg_new(PMPI_Message_f2c(*msg)) : 0);
	p = fl ? ff_status(p, st) : f_nostatus(p);
	ap_poll_end(p, t1, fl);
	ap_unlock();
}
ENTRY2(mpi_improbe, ompi_improbe_f, fw_improbe, t_improbe,
       (F *a, F *b, F *c, F *f, F *m, F *s, F *e), (a, b, c, f, m, s, e))

typedef void (*t_mrecv)(void *, F *, F *, F *, F *, F *);
static void fw_mrecv(t_mrecv real, void *buf, F *count, F *dt, F *msg, F *st, F *ierr)
{
	if (!FON()) {
		CALL(real, buf, count, dt, msg, st, ierr);
		return;
	}
	FSTATUS(st, own);
	uint64_t t0 = ap_now();
	ap_lock();
	uint64_t mid = ap_msg_take(PMPI_Message_f2c(*msg));
	ap_unlock();
	CALL(real, buf, count, dt, msg, st, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Mrecv", t0);
	p = ff_buf(p, buf);
	p = f_int(p, *count);
	p = f_type(p, TYPE(dt));
	p = f_msg(p, mid);
	p = ff_status(p, st);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_mrecv, ompi_mrecv_f, fw_mrecv, t_mrecv, (void *b, F *n, F *t, F *m, F *s, F *e),
       (b, n, t, m, s, e))

static void fw_imrecv(t_mrecv real, void *buf, F *count, F *dt, F *msg, F *req, F *ierr)
{
	if (!FON()) {
		CALL(real, buf, count, dt, msg, req, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	ap_lock();
	uint64_t mid = ap_msg_take(PMPI_Message_f2c(*msg));
	ap_unlock();
	CALL(real, buf, count, dt, msg, req, ierr);
	uint64_t t1 = ap_now();
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Imrecv", t0);
	p = ff_buf(p, buf);
	p = f_int(p, *count);
	p = f_type(p, TYPE(dt));
	p = f_msg(p, mid);
	p = f_req(p, *ierr == MPI_SUCCESS ? ap_req_new(PMPI_Request_f2c(*req), req, 0) : 0);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_imrecv, ompi_imrecv_f, fw_imrecv, t_mrecv, (void *b, F *n, F *t, F *m, F *r, F *e),
       (b, n, t, m, r, e))

/* ------------------------------------------------------------ communicators */

/* FNEWCOMM: a call that makes one communicator (OUT); FIELDS are the inputs. */
#define FNEWCOMM_B(A, B, NAME, PARAMS, ARGS, OUT, BOUND, FIELDS)                     \
	typedef void (*t_##A)(STRIPF PARAMS, F *);                                  \
	static void fw_##A(t_##A real, STRIPF PARAMS, F *ierr)                      \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, STRIPF ARGS, ierr);                              \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, STRIPF ARGS, ierr);                                      \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		char *p = ap_begin(BOUND, NAME, t0);                                \
		FIELDS;                                                             \
		p = f_newcomm(p, *ierr == MPI_SUCCESS ? COMM(OUT) : MPI_COMM_NULL); \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}                                                                           \
	ENTRY2(A, B, fw_##A, t_##A, (STRIPF PARAMS, F *ierr), (STRIPF ARGS, ierr))
#define FNEWCOMM(A, B, NAME, PARAMS, ARGS, OUT, FIELDS)                              \
	FNEWCOMM_B(A, B, NAME, PARAMS, ARGS, OUT, AP_B, FIELDS)

FNEWCOMM(mpi_comm_dup, ompi_comm_dup_f, "MPI_Comm_dup", (F *comm, F *nc), (comm, nc), nc,
	 p = f_comm(p, COMM(comm)))
FNEWCOMM(mpi_comm_dup_with_info, ompi_comm_dup_with_info_f, "MPI_Comm_dup_with_info",
	 (F *comm, F *info, F *nc), (comm, info, nc), nc, p = f_comm(p, COMM(comm)))
FNEWCOMM(mpi_comm_split, ompi_comm_split_f, "MPI_Comm_split",
	 (F *comm, F *color, F *key, F *nc), (comm, color, key, nc), nc,
	 p = f_comm(p, COMM(comm)); p = f_int(p, *color == MPI_UNDEFINED ? -1 : *color);
	 p = f_int(p, *key))
FNEWCOMM(mpi_comm_create, ompi_comm_create_f, "MPI_Comm_create", (F *comm, F *g, F *nc),
	 (comm, g, nc), nc, p = f_comm(p, COMM(comm)))
FNEWCOMM(mpi_comm_create_group, ompi_comm_create_group_f, "MPI_Comm_create_group",
	 (F *comm, F *g, F *tag, F *nc), (comm, g, tag, nc), nc,
	 p = f_comm(p, COMM(comm)); p = f_tag(p, *tag))
FNEWCOMM(mpi_comm_split_type, ompi_comm_split_type_f, "MPI_Comm_split_type",
	 (F *comm, F *type, F *key, F *info, F *nc), (comm, type, key, info, nc), nc,
	 p = f_comm(p, COMM(comm));
	 p = f_int(p, *type == MPI_UNDEFINED ? -1 : AP_SPLIT_TYPE(*type));
	 p = f_int(p, *key))
/* Topology constructors; LOGICAL arguments (periods, reorder, remain_dims,
 * high) are written 0/1 as C's ints. */
FNEWCOMM_B(mpi_cart_create, ompi_cart_create_f, "MPI_Cart_create",
	   (F *comm, F *nd, F *dims, F *periods, F *reorder, F *nc),
	   (comm, nd, dims, periods, reorder, nc), nc, AP_BN(2 * (*nd > 0 ? *nd : 0)),
	   p = f_comm(p, COMM(comm)); p = f_int(p, *nd); p = f_list(p, dims, *nd);
	   p = ff_bools(p, periods, *nd); p = f_int(p, *reorder != 0))
/* Dimensions of a Cartesian communicator (0 if it is none): the bound of Cart_sub's line. */
static inline int fcart_ndims(MPI_Comm comm)
{
	int nd = 0;
	if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd < 0)
		nd = 0;
	return nd;
}

FNEWCOMM_B(mpi_cart_sub, ompi_cart_sub_f, "MPI_Cart_sub", (F *comm, F *remain, F *nc),
	   (comm, remain, nc), nc, AP_BN(fcart_ndims(COMM(comm))),
	   int nd = fcart_ndims(COMM(comm));
	   p = f_comm(p, COMM(comm)); p = ff_bools(p, remain, nd))
FNEWCOMM_B(mpi_graph_create, ompi_graph_create_f, "MPI_Graph_create",
	   (F *comm, F *nn, F *index, F *edges, F *reorder, F *nc),
	   (comm, nn, index, edges, reorder, nc), nc,
	   AP_BN((*nn > 0 ? *nn : 0) + (*nn > 0 && index ? index[*nn - 1] : 0)),
	   p = f_comm(p, COMM(comm)); p = f_int(p, *nn); p = f_list(p, index, *nn);
	   p = f_list(p, edges, *nn > 0 && index ? index[*nn - 1] : 0);
	   p = f_int(p, *reorder != 0))
FNEWCOMM_B(mpi_dist_graph_create_adjacent, ompi_dist_graph_create_adjacent_f,
	   "MPI_Dist_graph_create_adjacent",
	   (F *comm, F *indeg, F *srcs, F *sw, F *outdeg, F *dsts, F *dw, F *info, F *reorder,
	    F *nc),
	   (comm, indeg, srcs, sw, outdeg, dsts, dw, info, reorder, nc), nc,
	   AP_BN((*indeg > 0 ? *indeg : 0) + (*outdeg > 0 ? *outdeg : 0)),
	   p = f_comm(p, COMM(comm)); p = f_int(p, *indeg); p = f_list(p, srcs, *indeg);
	   p = f_int(p, *outdeg); p = f_list(p, dsts, *outdeg); p = f_int(p, *reorder != 0))
FNEWCOMM_B(mpi_dist_graph_create, ompi_dist_graph_create_f, "MPI_Dist_graph_create",
	   (F *comm, F *n, F *srcs, F *degs, F *dsts, F *w, F *info, F *reorder, F *nc),
	   (comm, n, srcs, degs, dsts, w, info, reorder, nc), nc,
	   AP_BN(2 * (*n > 0 ? *n : 0) + fsum(degs, *n)),
	   p = f_comm(p, COMM(comm)); p = f_int(p, *n); p = f_list(p, srcs, *n);
	   p = f_list(p, degs, *n); p = f_list(p, dsts, fsum(degs, *n));
	   p = f_int(p, *reorder != 0))
FNEWCOMM(mpi_intercomm_create, ompi_intercomm_create_f, "MPI_Intercomm_create",
	 (F *local, F *ll, F *peer, F *rl, F *tag, F *nc), (local, ll, peer, rl, tag, nc), nc,
	 p = f_comm(p, COMM(local)); p = f_int(p, *ll); p = f_comm(p, COMM(peer));
	 p = f_int(p, *rl); p = f_tag(p, *tag))
FNEWCOMM(mpi_intercomm_merge, ompi_intercomm_merge_f, "MPI_Intercomm_merge",
	 (F *inter, F *high, F *nc), (inter, high, nc), nc,
	 p = f_comm(p, COMM(inter)); p = f_int(p, *high != 0))

typedef void (*t_comm_idup)(F *, F *, F *, F *);
static void fw_comm_idup(t_comm_idup real, F *comm, F *nc, F *req, F *ierr)
{
	if (!FON()) {
		CALL(real, comm, nc, req, ierr);
		return;
	}
	uint64_t t0 = ap_now();
	CALL(real, comm, nc, req, ierr);
	uint64_t t1 = ap_now();
	int ok = *ierr == MPI_SUCCESS;
	ap_lock();
	uint64_t id = ok ? ap_req_new(PMPI_Request_f2c(*req), req, 0) : 0;
	char *p = ap_begin(AP_B, "MPI_Comm_idup", t0);
	p = f_comm(p, COMM(comm));
	p = f_newcomm_like(p, ok ? COMM(nc) : MPI_COMM_NULL, COMM(comm));
	p = f_req(p, id);
	ap_end(p, t1);
	ap_unlock();
}
ENTRY2(mpi_comm_idup, ompi_comm_idup_f, fw_comm_idup, t_comm_idup,
       (F *c, F *n, F *r, F *e), (c, n, r, e))

/* Free calls: the handle's field is formatted before the handle dies. */
#define FFREE(A, B, NAME, FIELD, CONV, FORGET)                                       \
	typedef void (*t_##A)(F *, F *);                                            \
	static void fw_##A(t_##A real, F *h, F *ierr)                               \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, h, ierr);                                        \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		__typeof__(CONV(*h)) old = CONV(*h);                                \
		char field[96];                                                     \
		ap_lock();                                                          \
		size_t n = (size_t)(FIELD(field, old) - field);                     \
		ap_unlock();                                                        \
		CALL(real, h, ierr);                                                \
		uint64_t t1 = ap_now();                                             \
		ap_lock();                                                          \
		FORGET(old);                                                        \
		char *p = ap_begin(AP_B, NAME, t0);                                 \
		memcpy(p, field, n);                                                \
		ap_end(p + n, t1);                                                  \
		ap_unlock();                                                        \
	}                                                                           \
	ENTRY2(A, B, fw_##A, t_##A, (F *h, F *e), (h, e))

FFREE(mpi_comm_free, ompi_comm_free_f, "MPI_Comm_free", f_comm, PMPI_Comm_f2c, ap_comm_free)
FFREE(mpi_group_free, ompi_group_free_f, "MPI_Group_free", f_group, PMPI_Group_f2c,
      ap_group_free)
FFREE(mpi_type_free, ompi_type_free_f, "MPI_Type_free", f_type, PMPI_Type_f2c, ap_type_free)

/* ------------------------------------------------------------ groups */

#define GRP(x) PMPI_Group_f2c(*(x))
#define NEWGRP(ng) f_newgroup(p, *ierr == MPI_SUCCESS ? GRP(ng) : MPI_GROUP_NULL)

FCOLL(mpi_comm_group, ompi_comm_group_f, "MPI_Comm_group", (F *comm, F *g), (comm, g), AP_B,
      p = f_comm(p, COMM(comm)); p = NEWGRP(g))
/* Group_incl/excl: ranks[n]; Group_range_incl/excl: ranges(3, n), one list of 3n. */
#define FGROUP_LIST(A, B, NAME, MULT)                                                \
	FCOLL(A, B, NAME, (F *g, F *n, F *ranks, F *ng), (g, n, ranks, ng),          \
	      AP_BN(MULT * (*n > 0 ? *n : 0)),                                       \
	      p = f_group(p, GRP(g)); p = f_int(p, *n); p = f_list(p, ranks, MULT * *n); \
	      p = NEWGRP(ng))
FGROUP_LIST(mpi_group_incl, ompi_group_incl_f, "MPI_Group_incl", 1)
FGROUP_LIST(mpi_group_excl, ompi_group_excl_f, "MPI_Group_excl", 1)
FGROUP_LIST(mpi_group_range_incl, ompi_group_range_incl_f, "MPI_Group_range_incl", 3)
FGROUP_LIST(mpi_group_range_excl, ompi_group_range_excl_f, "MPI_Group_range_excl", 3)
#define FGROUP_SET(A, B, NAME)                                                       \
	FCOLL(A, B, NAME, (F *a, F *b, F *ng), (a, b, ng), AP_B,                     \
	      p = f_group(p, GRP(a)); p = f_group(p, GRP(b)); p = NEWGRP(ng))
FGROUP_SET(mpi_group_union, ompi_group_union_f, "MPI_Group_union")
FGROUP_SET(mpi_group_intersection, ompi_group_intersection_f, "MPI_Group_intersection")
FGROUP_SET(mpi_group_difference, ompi_group_difference_f, "MPI_Group_difference")

/* ------------------------------------------------------------ datatypes */

/* FNEWTYPE: a datatype constructor; the new type (OUT) is registered and is
 * the record's last field, as in C. */
#define FNEWTYPE(A, B, NAME, PARAMS, ARGS, OUT, BOUND, FIELDS)                       \
	typedef void (*t_##A)(STRIPF PARAMS, F *);                                  \
	static void fw_##A(t_##A real, STRIPF PARAMS, F *ierr)                      \
	{                                                                           \
		if (!FON()) {                                                       \
			CALL(real, STRIPF ARGS, ierr);                              \
			return;                                                     \
		}                                                                   \
		uint64_t t0 = ap_now();                                             \
		CALL(real, STRIPF ARGS, ierr);                                      \
		uint64_t t1 = ap_now();                                             \
		int ok = *ierr == MPI_SUCCESS;                                      \
		ap_lock();                                                          \
		if (ok)                                                             \
			ap_type_new(TYPE(OUT));                                     \
		char *p = ap_begin(BOUND, NAME, t0);                                \
		FIELDS;                                                             \
		p = f_type(p, ok ? TYPE(OUT) : MPI_DATATYPE_NULL);                  \
		ap_end(p, t1);                                                      \
		ap_unlock();                                                        \
	}                                                                           \
	ENTRY2(A, B, fw_##A, t_##A, (STRIPF PARAMS, F *ierr), (STRIPF ARGS, ierr))
#define NN(n) (*(n) > 0 ? *(n) : 0)

FNEWTYPE(mpi_type_contiguous, ompi_type_contiguous_f, "MPI_Type_contiguous",
	 (F *count, F *old, F *nt), (count, old, nt), nt, AP_B,
	 p = f_int(p, *count); p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_vector, ompi_type_vector_f, "MPI_Type_vector",
	 (F *count, F *bl, F *stride, F *old, F *nt), (count, bl, stride, old, nt), nt, AP_B,
	 p = f_int(p, *count); p = f_int(p, *bl); p = f_int(p, *stride);
	 p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_create_hvector, ompi_type_create_hvector_f, "MPI_Type_create_hvector",
	 (F *count, F *bl, MPI_Aint *stride, F *old, F *nt), (count, bl, stride, old, nt), nt,
	 AP_B,
	 p = f_int(p, *count); p = f_int(p, *bl); p = f_int(p, (int64_t)*stride);
	 p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_indexed, ompi_type_indexed_f, "MPI_Type_indexed",
	 (F *count, F *bls, F *disps, F *old, F *nt), (count, bls, disps, old, nt), nt,
	 AP_BN(2 * NN(count)),
	 p = f_int(p, *count); p = f_list(p, bls, *count); p = f_list(p, disps, *count);
	 p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_create_hindexed, ompi_type_create_hindexed_f, "MPI_Type_create_hindexed",
	 (F *count, F *bls, MPI_Aint *disps, F *old, F *nt), (count, bls, disps, old, nt), nt,
	 AP_BN(2 * NN(count)),
	 p = f_int(p, *count); p = f_list(p, bls, *count); p = ff_aints(p, disps, *count);
	 p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_create_indexed_block, ompi_type_create_indexed_block_f,
	 "MPI_Type_create_indexed_block", (F *count, F *bl, F *disps, F *old, F *nt),
	 (count, bl, disps, old, nt), nt, AP_BN(NN(count)),
	 p = f_int(p, *count); p = f_int(p, *bl); p = f_list(p, disps, *count);
	 p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_create_hindexed_block, ompi_type_create_hindexed_block_f,
	 "MPI_Type_create_hindexed_block", (F *count, F *bl, MPI_Aint *disps, F *old, F *nt),
	 (count, bl, disps, old, nt), nt, AP_BN(NN(count)),
	 p = f_int(p, *count); p = f_int(p, *bl); p = ff_aints(p, disps, *count);
	 p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_create_struct, ompi_type_create_struct_f, "MPI_Type_create_struct",
	 (F *count, F *bls, MPI_Aint *disps, F *types, F *nt), (count, bls, disps, types, nt),
	 nt, AP_BN(4 * NN(count)),
	 p = f_int(p, *count); p = f_list(p, bls, *count); p = ff_aints(p, disps, *count);
	 p = ff_types(p, types, *count))
FNEWTYPE(mpi_type_create_subarray, ompi_type_create_subarray_f, "MPI_Type_create_subarray",
	 (F *nd, F *sizes, F *subs, F *starts, F *order, F *old, F *nt),
	 (nd, sizes, subs, starts, order, old, nt), nt, AP_BN(3 * NN(nd)),
	 p = f_int(p, *nd); p = f_list(p, sizes, *nd); p = f_list(p, subs, *nd);
	 p = f_list(p, starts, *nd); p = f_int(p, AP_ORDER(*order)); p = f_type(p, TYPE(old)))
FNEWTYPE(mpi_type_create_resized, ompi_type_create_resized_f, "MPI_Type_create_resized",
	 (F *old, MPI_Aint *lb, MPI_Aint *ext, F *nt), (old, lb, ext, nt), nt, AP_B,
	 p = f_type(p, TYPE(old)); p = f_int(p, (int64_t)*lb); p = f_int(p, (int64_t)*ext))
FNEWTYPE(mpi_type_dup, ompi_type_dup_f, "MPI_Type_dup", (F *old, F *nt), (old, nt), nt, AP_B,
	 p = f_type(p, TYPE(old)))

/* MPI_Type_commit shows where a type is committed; types made by calls not
 * wrapped here are numbered when first seen (size and extent are MPI's). */
FCOLL(mpi_type_commit, ompi_type_commit_f, "MPI_Type_commit", (F *dt), (dt), AP_B,
      p = f_type(p, TYPE(dt)))
FCOLL(mpi_type_size, ompi_type_size_f, "MPI_Type_size", (F *dt, F *size), (dt, size), AP_B,
      p = f_type(p, TYPE(dt)); p = f_int(p, *ierr == MPI_SUCCESS ? *size : -1))
