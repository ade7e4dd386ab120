/*
 * liballprof.h: the internal interface of liballprof.so, the PMPI tracer
 * that `allprof` preloads into every MPI rank.
 *
 * The library has four parts that share this header:
 *   liballprof.c       the per-rank state: trace buffer, clock, handle maps
 *                      (requests, communicators, datatypes, messages), the
 *                      field encoders, the text formatter run at flush,
 *                      clock synchronisation, and what happens at exit,
 *                      abort and fatal signals;
 *   liballprof_mpi.c   the C wrappers (MPI_Send -> record -> PMPI_Send);
 *   liballprof_f.c     the Fortran wrappers (mpi_send_ and Open MPI's
 *                      ompi_send_f, the entry of `use mpi_f08`); most of
 *                      both are generated from formats/calls.tsv into
 *                      liballprof_mpi_gen.inc and liballprof_f_gen.inc
 *                      (tools/allprof/gen-calls.sh, formats/calls.md);
 *   liballprof_pass.c  generated at build time from mpi.h: a weak
 *                      pass-through wrapper for every other MPI function,
 *                      which only counts the call ("uncovered calls").
 *
 * A record is stored in binary in the per-rank buffer and becomes one text
 * line only when the buffer is flushed (full, Finalize, exit, abort,
 * signals): ap_begin() reserves room and stores the record header (the
 * static name's address and t_call), each f_* encoder appends one field
 * (a separator byte, a tag byte and raw values looked up now: datatype
 * size and extent, communicator id/rank/size, request ids), ap_end() stores
 * t_return and commits the record. The formatter in liballprof.c turns the
 * fields into the text of formats/trace.md. Only committed records are ever
 * formatted, so a signal arriving in the middle of a record loses at most
 * that record.
 *
 * Wrappers treat the cursor as opaque except in two ways the encoding
 * allows: a list helper may overwrite the first byte of a field it has just
 * appended (the separator ':') with ',' or ';' to join list entries, and a
 * field encoded into a scratch array before the call may be copied in after
 * ap_begin() (the Free wrappers: the bytes are position-independent).
 *
 * Locking: with MPI_THREAD_MULTIPLE every wrapper takes one mutex around its
 * bookkeeping (never around the MPI call itself); otherwise no lock is taken.
 */
#ifndef LIBALLPROF_H
#define LIBALLPROF_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Everything declared here is internal to the library: hidden, so that the
 * wrappers call it directly rather than through the PLT and nothing of it
 * can be interposed or clash with an application's symbols. */
#pragma GCC visibility push(hidden)

/* One entry of a handle map: key is the handle's bits (never 0), a/b/c are
 * per map: requests (id, persistent), communicators (id, rank, size),
 * datatypes (id, size, extent), messages (id). */
typedef struct ap_ent {
	uint64_t key;
	int64_t a, b, c;
} ap_ent;

typedef struct ap_map {
	ap_ent *e;
	size_t cap; /* power of two, or 0 */
	size_t n;
} ap_map;

struct ap_state {
	volatile int on;     /* recording: between our MPI_Init and MPI_Finalize */
	volatile int open;   /* trace file open (cleared once it is closed) */
	int mt;              /* MPI_THREAD_MULTIPLE: take the lock */
	int rank, size;
	int compress;
	int collapse;        /* collapse runs of unsuccessful polls */
	int cpu;             /* ALLPROF_CPUTIME: record the thread's CPU time at each call and return */
	int span;            /* ALLPROF_SPAN: record MPI_Init and MPI_Finalize only (formats/trace.md 3.7) */
};
extern struct ap_state ap;
extern __thread int ap_depth __attribute__((tls_model("initial-exec")));

/* True when a wrapper should record (tracing on, not a span trace, not nested in a
 * wrapper); the Finalize wrappers record in a span trace too. */
#define AP_ON() (ap.on && !ap.span && !ap_depth)
#define AP_ON_FINALIZE() (ap.on && !ap_depth)

uint64_t ap_now(void); /* nanoseconds, monotonic, epoch-aligned at start */
void ap_lock(void);
void ap_unlock(void);

/* Start and stop: called by the Init and Finalize wrappers (C or Fortran). The Init
 * wrappers take MPI_Init's return time after ap_start() (which ends with a barrier), the
 * Finalize wrappers MPI_Finalize's call time before ap_finalize_begin(): the tracer's own
 * work is inside those two calls, never in the application's gaps. */
void ap_start(int provided);
void ap_init_record(const char *name, uint64_t t0, uint64_t t1, const void *argc,
		    const void *argv, int with_thread, int required, int provided);
void ap_finalize_begin(void);               /* clock sync while MPI still works */
void ap_finalize_end(uint64_t t0, uint64_t t1); /* after PMPI_Finalize */
void ap_abort(MPI_Comm comm, int code, uint64_t t0);

/* Records. bound: an upper limit of the bytes the fields will take (a field
 * takes at most 26 bytes, a list field 6 plus at most 26 per entry); a
 * wrapper writing past its bound is stopped in ap_end as an internal error. */
char *ap_begin(size_t bound, const char *name, uint64_t t0);
void ap_end(char *p, uint64_t t1);
/* Poll records (Test*, Iprobe, Improbe): written like ap_begin/ap_end, but
 * a run of unsuccessful polls with identical fields becomes one line whose
 * last field before t_return is the number of calls it stands for. */
char *ap_poll_begin(size_t bound, const char *name, uint64_t t0);
void ap_poll_end(char *p, uint64_t t1, int success);

/* Bound helpers. */
#define AP_B 1024                 /* a record of scalar fields */
#define AP_BN(n) (AP_B + (size_t)(n) * 28) /* plus n list entries */

/* Field encoders: each appends one field, which reads as ':' and the value.
 * Strings (names, f_str) are stored as addresses: they must be static. */
char *f_int(char *p, int64_t v);
char *f_u64(char *p, uint64_t v);
char *f_ptr(char *p, const void *ptr);   /* address, decimal */
char *f_buf(char *p, const void *ptr);   /* address; MPI_IN_PLACE is -1 */
char *f_peer(char *p, int rank);         /* ANY_SOURCE -1, PROC_NULL -2 */
char *f_tag(char *p, int tag);           /* ANY_TAG -1 */
char *f_type(char *p, MPI_Datatype t);   /* id,size,extent */
char *f_comm(char *p, MPI_Comm c);       /* id,rank,size */
char *f_newcomm(char *p, MPI_Comm c);    /* registers c; id,rank,size (-1,-1,0 for NULL) */
char *f_newcomm_like(char *p, MPI_Comm c, MPI_Comm like); /* c gets like's rank, size, members */
char *f_group(char *p, MPI_Group g);     /* g<id>,<size> */
char *f_newgroup(char *p, MPI_Group g);  /* registers g; g<id>,<size> */
void ap_group_free(MPI_Group g);
char *f_op(char *p, MPI_Op op);
char *f_status(char *p, const MPI_Status *s); /* source,tag,bytes */
char *f_nostatus(char *p);               /* "-" */
char *f_ints(char *p, const int *v, int n);   /* :<addr>:<v0,v1,...> ("0:-" for NULL) */
char *f_list(char *p, const int *v, int n);   /* :<v0,v1,...> ("-" if n <= 0 or NULL) */
char *f_types(char *p, const MPI_Datatype *t, int n); /* :<addr>:<t0;t1;...> */
char *f_str(char *p, const char *s);

/* Requests and messages. */
/* var: the address of the application's MPI_Request variable (see liballprof.c). */
uint64_t ap_req_new(MPI_Request r, const void *var, int persistent); /* register; returns id */
uint64_t ap_req_id(MPI_Request r, const void *var);  /* 0 for MPI_REQUEST_NULL */
void ap_req_done(MPI_Request r, const void *var, uint64_t id); /* forget, if still mapped to id */
char *f_req(char *p, uint64_t id);      /* r<id> */
char *f_reqs(char *p, const uint64_t *ids, int n); /* r1,r2,... */
uint64_t ap_msg_new(MPI_Message m);
uint64_t ap_msg_take(MPI_Message m);    /* look up and forget */
char *f_msg(char *p, uint64_t id);      /* m<id>, m0 for MPI_MESSAGE_NULL */

/* Datatype bookkeeping (creation, free). */
void ap_type_new(MPI_Datatype t);
void ap_type_free(MPI_Datatype t);
void ap_comm_free(MPI_Comm c);
/* Windows: <id> per rank from 1, 0 for none (f_newwin registers w). */
char *f_win(char *p, MPI_Win w);
char *f_newwin(char *p, MPI_Win w);
void ap_win_free(MPI_Win w);
/* Neighbour counts of a topology communicator (0, 0 without topology). */
void ap_nbr_counts(MPI_Comm c, int *in, int *out);
int ap_comm_size(MPI_Comm c);

/* Uncovered-call counters, defined in the generated liballprof_pass.c. */
extern const char *const ap_pass_names[];
extern unsigned long ap_pass_counts[];
extern const int ap_pass_n;

#pragma GCC visibility pop

#endif
