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
 * Most entry points are generated from formats/calls.tsv, the one
 * description of every call's fields, with the C wrappers of
 * liballprof_mpi.c (tools/allprof/gen-calls.sh f, into liballprof_f_gen.inc,
 * included at the end of this file); this file has the helpers they use and
 * the entry points of the calls marked "hook" in the schema, which do more
 * than encode their arguments (start-up, Wait/Test with 1-based indices and
 * status arrays, polls, matched receives, MPI_Comm_idup, the Free calls).
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
#define WIN(x) PMPI_Win_f2c(*(x))

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
	if (!AP_ON_FINALIZE()) {
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

/* A private Fortran status when the application passed MPI_STATUS_IGNORE. */
#define FSTATUS(st, own)                                                             \
	F own[FST];                                                                 \
	if ((char *)(st) == s_status_ignore)                                        \
	(st) = own

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

/* ------------------------------------------------------------ helpers of the generated entries */

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

/* Dimensions of a Cartesian communicator (0 if it is none): the bound of Cart_sub's line. */
static inline int fcart_ndims(MPI_Comm comm)
{
	int nd = 0;
	if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd < 0)
		nd = 0;
	return nd;
}

#define GRP(x) PMPI_Group_f2c(*(x))

static int fsum(const F *v, int n)
{
	int64_t s = 0;
	for (int i = 0; v && i < n; i++)
		s += v[i] > 0 ? v[i] : 0;
	return s > (1 << 24) ? 1 << 24 : (int)s;
}

/* ------------------------------------------------------------ misc, matched receives */

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
FFREE(mpi_win_free, ompi_win_free_f, "MPI_Win_free", f_win, PMPI_Win_f2c, ap_win_free)

/* The entry points made from formats/calls.tsv. */
#include "liballprof_f_gen.inc"
