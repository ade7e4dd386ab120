/*
 * ir_t2g_internal.h: the private header of trace2goal's conversion (ir_t2g),
 * included only by lib/ir_t2g*.c; the public interface is ir_t2g.h.
 *
 * It holds the conversion's state (gstate, the whole run; rstate, one rank;
 * both passed explicitly: a function that works on one rank takes its rstate
 * as a parameter, `rstate *R`, and the gstate holds no current rank),
 * the types the parts share (requests, communicators, topologies, the call
 * table's row), the functions one part defines for another (prefix t2g_, not
 * part of the library's API), and as static inline the small helpers that run
 * per op or per record from several files: the line formatters of the output,
 * staging, the argument readers, tags. They were static in one file before the
 * split and inlined there; an out-of-line call per op would cost throughput.
 */
#ifndef IR_T2G_INTERNAL_H
#define IR_T2G_INTERNAL_H

#include "ir_t2g.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "ir_goal.h"
#include "ir_grow.h"
#include "ir_hmap.h"
#include "ir_interval.h"
#include "ir_strbuf.h"
#include "ir_tsync.h"

#define FLUSH_AT ((size_t)1 << 20)
#define SPILL_AT ((size_t)1 << 16) /* --sync: per-rank buffer spilled beyond this */
#define TAG_WORLD_MAX 0x20000000u  /* application tags on MPI_COMM_WORLD: [0, 2^29) */
#define TAG_SUBCOMM 0x20000000u    /* bit 29: point-to-point on another communicator */
#define TAG_COLL 0x40000000u       /* bit 30: collectives */
#define NOLABEL 0u
#define ANY (-1)

enum ck {
	C_LOCAL, C_INIT, C_FINALIZE, C_SEND, C_RECV, C_ISEND, C_IRECV, C_SEND_INIT, C_RECV_INIT,
	C_START, C_STARTALL, C_SENDRECV, C_SENDRECV_REPLACE, C_WAIT, C_WAITALL, C_WAITANY, C_WAITSOME,
	C_TEST, C_TESTALL, C_TESTANY, C_TESTSOME, C_PROBE, C_IPROBE, C_REQFREE, C_COLL,
	C_MPROBE, C_IMPROBE, C_MRECV, C_IMRECV, C_NEIGH, C_CART_CREATE, C_CART_SUB, C_GRAPH_CREATE,
	C_DIST_GRAPH_ADJ, C_DIST_GRAPH,
	C_FOPEN, C_FCLOSE, C_FVIEW, C_FSEEK, C_FSYNC, C_FIO, C_FIO_AT, C_FIIO, C_FIIO_AT, C_FDELETE, C_FMETA, /* MPI-IO: ir_t2g_io.c */
	C_WCREATE, C_WDYNAMIC, C_WFREE, C_WFENCE /* one-sided: ir_t2g_win.c */
};

/* neighbourhood collectives (callinfo.coll) */
enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

typedef struct callinfo {
	const char *name;
	enum ck k;
	int coll;  /* enum ir_coll_kind for C_COLL, or COLL_ALLTOALLW; NB_* for C_NEIGH */
	int nb;    /* nonblocking collective */
	unsigned nf; /* fields before t_return (0: not checked) */
	int fcomm;   /* index of the field "comm", -1 if none */
	int freq;    /* index of the field "request", -1 if none */
} callinfo;

#include "ir_t2g_calls.h"

/* Alltoallw is no ir_coll kind: it is converted as Alltoallv with per-rank datatype sizes. */
enum { COLL_ALLTOALLW = -2 };

typedef struct req {
	uint32_t label;     /* op of the active instance, NOLABEL if none */
	uint8_t persistent;
	uint8_t is_send;
	uint8_t deferred;   /* wildcard irecv whose definition waits for the status */
	int32_t peer;       /* world rank, ANY, or -2 (no op: MPI_PROC_NULL) */
	int64_t tag;        /* GOAL tag or ANY */
	uint64_t size;
	uint64_t ckey;      /* communicator key (for a deferred wildcard's tag) */
	ir_tn node;         /* --sync: completion of the active instance (referenced) */
	ir_tn pnode;        /* --sync: post node of a deferred wildcard receive (referenced) */
	int64_t seq;        /* posting order (Waitany without indices) */
	const uint32_t *members; /* deferred: comm member list (comm table owned) */
	uint32_t csize;
	uint8_t cworld;     /* deferred: posted on MPI_COMM_WORLD */
} req;

/* A communicator's virtual topology as this rank sees it: its neighbours for the
 * neighbourhood collectives (MPI order: in-neighbours, then out-neighbours; world ranks once
 * the communicator's members are known, -2 for MPI_PROC_NULL), and for Cartesian ones the grid
 * (for Cart_sub). */
typedef struct topo {
	uint64_t id;       /* the new communicator (while pending its '# comm' line) */
	int rel;           /* neighbours still relative to the new communicator */
	uint32_t nin, nout;
	int32_t *nbr;      /* [nin + nout] */
	uint32_t ndims;
	int64_t *dims, *periods, *coords;
} topo;

typedef struct comm {
	uint64_t id;
	uint32_t n;
	uint32_t *members; /* NULL: world (identity) */
	uint64_t key;      /* same on every member */
	uint32_t seq;      /* collectives so far */
	uint64_t chash;    /* running hash of the collective sequence */
	topo *tp;          /* virtual topology (Cart, Graph, Dist_graph), NULL: none */
} comm;

typedef struct pairc {
	uint64_t sends, recvs;
} pairc;

typedef struct unk {
	char *name;
	uint64_t count;
} unk;

typedef struct cref {
	uint32_t size, me;
	const uint32_t *members; /* NULL: identity */
	comm *c;
} cref;

typedef struct rstate {
	uint32_t rank;
	ir_trace *t;
	int flavor;
	uint32_t nl;      /* labels used */
	uint32_t *ends;   /* previous call's end ops */
	uint8_t *ends_ireq;
	size_t nends, capends;
	int64_t gap_start;
	int64_t gw, gc;   /* --calc cpu: wall and CPU time where the gap began (the last return) */
	double self_ps;   /* the tracer's mean time after a return (formats/trace.md 3.8), <= 0: none */
	uint64_t ncalls;  /* the calls' returns so far (a collapsed poll line counts each) */
	uint64_t cur_calls; /* ... before the record being converted */
	uint64_t gap_base;  /* ... before the first return inside the running gap */
	int64_t gap_flush;  /* the tracer's flushes inside the running gap ("# flush:" lines), ps */
	double self_owed;   /* the tracer's time after returns that the gaps so far were too short
	                     * to give, taken from the next gaps (t2g_gap_self), ps */
	int started, finished, phase;
	unsigned long from_seen;
	ir_hmap reqmap;    /* key -> index in reqs */
	req *reqs;
	size_t nreqs, capreqs;
	uint32_t *freereq;
	size_t nfree, capfree;
	int64_t reqseq;
	comm world, self;
	ir_hmap cmap;      /* comm id+1 -> index in comms */
	comm *comms;
	size_t ncomms, capcomms;
	ir_hmap occ;       /* member-list hash -> occurrences */
	topo *ptopo;      /* topology of a communicator whose '# comm' line comes next */
	ir_ivset pinset;  /* buffer bytes already registered (--pin) */
	ir_hmap winmap;   /* window id -> index in wins (ir_t2g_win.c) */
	struct win { int64_t h, rk, sz; } *wins; /* a window's communicator, as its creation wrote it */
	size_t nwins, capwins;
	double owed;      /* --durations: modelled time no call has absorbed yet (ps), see emit_call */
	/* a send after a gap (formats/params.md, "A send after a gap"), as the trace shows it: the
	 * call being converted, the return of the last call that sent or may have read a message,
	 * and whether that one only sent (t2g_send_cost); under --sync, which reads every rank,
	 * also the start of that call and when other ranks took in this rank's messages: the
	 * latest such return the merge has passed, and the earliest one still ahead of it
	 * (t2g_taken) */
	int64_t st_call, st_end, st_begin, st_taken, st_ahead;
	int st_send_only, st_sync;
	const char *fname;
	unsigned long line;
	ir_sb out;        /* GOAL text of this rank not yet written */
	int warned_any;   /* liballprof Waitany/Waitsome guess warned */
	int warned_test;  /* liballprof Test* warned */
	/* the poll model (ir_t2g_poll.c): the run of unsuccessful polls being read */
	int prun;
	int64_t prun_start, prun_end; /* first poll's call, last poll's return */
	uint64_t prun_n;              /* polls in it */
	int64_t prun_c0, prun_c1;     /* --calc cpu: the CPU times there */
	int64_t prun_gap;             /* the longest time from one of its polls' return to the next call */
	int64_t prun_flush;           /* the tracer's flushes between its polls ("# flush:"), ps */
	/* --poll-tests overlap: the polls of the run the current call ended, at the target's
	 * cost, to run on CPU 1 beside the wait (t2g_poll_overlap); 0: none pending */
	uint64_t povl_ps;
	/* --poll-tests auto: 0 not yet read, 1 every run of unsuccessful Tests of this rank ends
	 * in a completion (its loops wait), 2 one ends otherwise (its Tests sit between pieces
	 * of work); tests_leave in ir_t2g_poll.c reads the whole trace once to know */
	int tloop;
	const ir_trace_file *tf; /* this rank's trace, for that reading */
	ir_trace_opts topts;     /* and how it was opened */
	/* --sync */
	ir_rec rec;       /* the next record (read ahead) */
	int has_rec;
	int64_t key;      /* its time, for the merge */
	uint64_t nread;   /* records read */
	uint32_t lead;    /* label of the leading calc */
	int64_t t_start;  /* start of the replay (MPI_Init return) */
	struct chunk { uint64_t off, len; } *chunks; /* spilled output */
	size_t nchunks, capchunks;
} rstate;

typedef struct t2g_io t2g_io; /* ir_t2g_io.c */

typedef struct gstate {
	const ir_t2g_opts *o;
	enum ir_coll_alg alg[IR_COLL_NSEL]; /* [kind], [kind + IR_COLL_NKINDS]: nonblocking */
	uint32_t nranks;
	ir_writer *w;
	ir_t2g_stats *st;
	/* cross-rank checks */
	ir_hmap pairs;      /* (src<<32|dst)+1 -> index in pc */
	pairc *pc;
	size_t npc, cappc;
	uint64_t *wild;    /* [nranks] wildcard-source receives per rank */
	ir_hmap cseq;       /* comm key+1 -> index in cs */
	struct cseq {
		uint64_t count, hash;
		uint32_t rank;
	} *cs;
	size_t ncs, capcs;
	unk *unknown;
	size_t nunknown;
	uint64_t neg_gaps, skipped_comm, folded_tags, big_subtags;
	uint64_t no_topo;  /* neighbourhood collectives without a known topology (skipped) */
	uint64_t any_guess, test_never; /* liballprof Waitany/Waitsome guesses, Tests never completing */
	int poll_model;    /* both poll costs known (ir_t2g_poll.c) */
	uint64_t poll_from, poll_to;  /* ps per unsuccessful poll: traced network, target */
	uint64_t poll_waits, poll_wait_ps, poll_work; /* runs taken as waits, their time; polls taken as work */
	uint64_t poll_ovl; /* of the waits, loops of Tests whose polls run beside them (--poll-tests overlap) */
	uint64_t tracer_ps; /* the tracer's own time taken out of the gaps (t2g_gap_self) */
	pcre2_code *from_re, *to_re;
	pcre2_match_data *md;
	ir_cg cg;         /* staged ops */
	int64_t *ctag;    /* tag per staged op */
	int32_t *cpeer;   /* world peer per staged op */
	size_t capstage;
	uint64_t *blk, *sblk, *rblk; /* count arrays scratch */
	size_t capblk;
	uint8_t *haspred, *hassucc; /* scratch for emit_call */
	size_t capflags;
	rstate *rs;       /* --sync: all ranks (else NULL) */
	rstate one;       /* without --sync: the one rstate, reused rank after rank */
	/* --sync */
	ir_ts *ts;        /* zero-cost times (ir_tsync.h) */
	ir_tn *tpost, *tdone; /* per staged op: post and done nodes of the last emitted call */
	size_t ntn, captn;
	ir_tn tjoin;      /* the join node of the last emitted call */
	const ir_tn *xin; /* extra inputs of staged op 0 (the requests a Wait completes) */
	size_t nxin;
	FILE *tmp;        /* spilled rank output */
	uint64_t tmplen;
	uint32_t nstarted;
	uint64_t sync_wild; /* wildcard receives that could not be matched for --sync */
	int no_dur;       /* the call's own duration is not replayed (probes without --sync) */
	t2g_io *io;       /* MPI-IO with storage servers (ir_t2g_io.c), NULL: none */
	int keep_local;   /* the call being emitted keeps its local work in the plain conversion */
	uint64_t win_calls, win_unknown; /* window calls converted; on windows never created */
} gstate;

/* Output lines are formatted straight into the buffer: one capacity check per line (a line
 * is at most LINE_MAX bytes), then byte stores; this path carries every op. */
#define LINE_MAX_BYTES 128

#define WS(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

enum { ENDS_OPS, ENDS_OPS_IREQ, ENDS_GAP, ENDS_JOIN };

typedef struct emitted {
	uint32_t base;   /* label of staged op 0 */
	uint32_t gap;
	uint32_t join;   /* NOLABEL unless requested */
	ir_tn sjoin;     /* --sync: the join's zero-cost node (creator reference in g->tjoin) */
} emitted;

typedef struct p2p {
	int64_t peer; /* world, ANY, or < -1 for PROC_NULL */
	int64_t tag;
	uint64_t size;
	uint64_t buf;
	cref cr;
} p2p;

/* Where the fields of a point-to-point call are (lib/ir_t2g_calls.h). */
typedef struct p2pf {
	unsigned buf, count, type, peer, tag, comm;
} p2pf;

/* Shared between the parts (defined in the file named above each group). */

/* ir_t2g.c */
void t2g_warn(gstate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int t2g_errat(const rstate *R, ir_err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* --calc cpu (docs/trace2goal.md, "Wall or CPU time"): a gap begins at wall time w with the
 * thread's CPU time c (t2g_gap_mark); t2g_gap_cpu takes from *gap, which ends at wall time
 * w1 with CPU time c1, the time the thread was off its CPU in it (never below 0). Without
 * --calc cpu it changes nothing; -1 when the record has no CPU times. */
static inline void t2g_gap_mark(rstate *R, int64_t w, int64_t c, int at_return)
{
	R->gw = w;
	R->gc = c;
	R->gap_flush = 0;
	/* a gap that begins at a return holds that return's tracer time (docs/trace2goal.md §7) */
	R->gap_base = at_return && R->ncalls ? R->ncalls - 1 : R->cur_calls;
}
int t2g_gap_cpu(gstate *g, rstate *R, const ir_rec *r, int64_t w1, int64_t c1, int64_t *gap, ir_err *e);
/* The tracer's own time after each return inside the gap that ends now (the returns from
 * the one it began with to the record being converted) and its flushes there ("# flush:"
 * lines), taken from *gap, never below 0, unless --tracer-time keep or the trace does not say
 * it (docs/trace2goal.md §7). The time after returns that the gap is too short to give is
 * owed and taken from the next gaps first; a flush's is not. */
void t2g_gap_self(gstate *g, rstate *R, int64_t *gap);

/* ir_t2g_out.c */
int t2g_flush_out(gstate *g, rstate *R, ir_err *e);
uint64_t t2g_pin_new_bytes(rstate *R, uint64_t a, uint64_t n);
int t2g_emit_call(gstate *g, rstate *R, const ir_rec *r, int ends_mode, int want_join, double extra, emitted *em,
                  ir_err *e);

/* ir_t2g_sync.c */
uint64_t t2g_op_cpu(gstate *g, rstate *R, size_t i);
/* What the model says a send of the call being converted costs on `net`: the sender's CPU
 * time (call 0) or a blocking send call's length (call 1), with the gap rule where net has
 * one (an eager network send the gap after the rank's last send-only call, or after its last
 * call that may have read a message). */
uint64_t t2g_send_cost(rstate *R, const ir_loggops *net, uint64_t size, int self, int call);
void t2g_taken(gstate *g, int64_t src, uint32_t by, int64_t now, int64_t t);
int t2g_sync_call(gstate *g, rstate *R, const ir_rec *r, int blocking, double model, uint32_t plabel, ir_tn *join,
                  ir_err *e);
void t2g_sync_drop(gstate *g);
int t2g_sync_lead(gstate *g, rstate *R, int64_t t, ir_err *e);
int t2g_write_out(gstate *g, const void *p, size_t n, ir_err *e);
int t2g_convert_sync(gstate *g, const ir_trace_files *files, int64_t epoch, ir_err *e);

/* ir_t2g_call.c */
int t2g_bad_arg(const rstate *R, const ir_rec *r, unsigned i, const char *what, ir_err *e);
int t2g_arg_comm(gstate *g, rstate *R, const ir_rec *r, unsigned i, cref *cr, ir_err *e);
int t2g_comm_of(gstate *g, rstate *R, const ir_rec *r, int64_t h, int64_t rk, int64_t sz, cref *cr, ir_err *e);
void t2g_rank_release(gstate *g, rstate *R);
void t2g_rank_free(rstate *R);
int t2g_rank_begin(gstate *g, rstate *R, const ir_trace_file *tf, int64_t epoch, ir_err *e);
int t2g_rank_record(gstate *g, rstate *R, ir_rec *r, ir_err *e);
int t2g_rank_end(gstate *g, rstate *R, ir_err *e);
int t2g_convert_rank(gstate *g, rstate *R, const ir_trace_file *tf, int64_t epoch, ir_err *e);

/* ir_t2g_p2p.c */
int t2g_count_pair(gstate *g, uint32_t src, uint32_t dst, int is_send, ir_err *e);
void t2g_req_drop_nodes(gstate *g, req *q);
req *t2g_req_new(gstate *g, rstate *R, uint64_t key, ir_err *e);
int t2g_req_del(gstate *g, rstate *R, uint64_t key);
int t2g_status_str(gstate *g, rstate *R, const char *f, size_t len, const cref *cr, int64_t *src, int64_t *tag,
                   uint64_t *bytes);
int t2g_status_of(gstate *g, rstate *R, const ir_rec *r, unsigned i, const cref *cr, int64_t *src, int64_t *tag,
                  uint64_t *bytes);
int t2g_complete(gstate *g, rstate *R, const ir_rec *r, const uint64_t *keys, size_t n, const int64_t *st_src,
                 const int64_t *st_tag, const uint64_t *st_bytes, ir_err *e);
int t2g_start_nb(gstate *g, rstate *R, const ir_rec *r, uint64_t key, int is_send, const p2p *m, int persistent,
                 double extra, ir_err *e);
int t2g_do_mprobe(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);
int t2g_do_mrecv(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);

/* ir_t2g_coll.c */
int t2g_coll_seq_note(comm *c, int kind, int64_t root);
int t2g_get_types(const rstate *R, const ir_rec *r, unsigned i, uint64_t *dst, uint32_t p, ir_err *e);
int t2g_blk_room(gstate *g, uint32_t p, ir_err *e);
double t2g_nbc_cost(const gstate *g, const callinfo *ci);
int t2g_reg_nbcoll(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, const emitted *em, ir_err *e);
int t2g_do_coll(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);
int t2g_coll_plain(gstate *g, rstate *R, const ir_rec *r, const cref *cr, int kind, ir_err *e);

/* ir_t2g_topo.c */
int t2g_do_topo(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);
void t2g_topo_free(topo *t);
int t2g_do_neigh(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);

/* ir_t2g_wait.c */
int t2g_req_array(const rstate *R, const ir_rec *r, unsigned i, int64_t count, uint64_t **keys, ir_err *e);
int t2g_do_wait_family(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);
/* ir_t2g_poll.c: a call of rank R seen by the poll model (n: the polls a line stands for) */
int t2g_poll_step(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, uint64_t n, ir_err *e);
/* --poll-tests overlap: the pending polls (R->povl_ps) as a calc on CPU 1 after the call's
 * gap calc `gap`, which the completion `done` requires (the call that ended the run); 0, or
 * -1 with e set */
int t2g_poll_overlap(rstate *R, uint32_t gap, uint32_t done, ir_err *e);

/* ir_t2g_io.c */
int t2g_io_prepass(gstate *g, const ir_trace_files *files, int64_t epoch, ir_err *e);
int t2g_do_io(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);
int t2g_io_servers(gstate *g, ir_err *e);
void t2g_io_free(t2g_io *io);
const callinfo *t2g_find_call(const char *name); /* ir_t2g_call.c */

/* ir_t2g_win.c */
int t2g_do_win(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e);
void t2g_win_release(rstate *R);

/* ir_t2g_comm.c */
int t2g_add_comm(gstate *g, rstate *R, const ir_rec *r, ir_err *e);
int t2g_check_cseq(gstate *g, rstate *R, const comm *c, ir_err *e);

/* ------------------------------------------------------------------ inline helpers
 * Run per op or per record from several parts; static inline so that the split costs the hot
 * path no calls (they were static in one file before and inlined there). */

static inline void rstate_maps_init(rstate *R)
{
	ir_hmap_init(&R->reqmap, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&R->cmap, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&R->occ, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&R->winmap, sizeof(uint32_t), 16, IR_HMAP_DENSE);
}

static inline char *utoa(char *end, uint64_t v)
{
	*--end = 0;
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static inline char *reserve(rstate *R)
{
	if (R->out.alloc - R->out.len < LINE_MAX_BYTES + 1 && ir_sb_grow(&R->out, LINE_MAX_BYTES + 1))
		return NULL;
	return R->out.buf + R->out.len;
}

static inline void commit(rstate *R, char *p)
{
	R->out.len = (size_t)(p - R->out.buf);
	R->out.buf[R->out.len] = 0;
}

static inline char *wu(char *p, uint64_t v)
{
	char b[24], *s = utoa(b + sizeof b, v);
	size_t n = (size_t)(b + sizeof b - 1 - s);
	memcpy(p, s, n);
	return p + n;
}

static inline char *wi(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return wu(p, (uint64_t)(-(v + 1)) + 1);
	}
	return wu(p, (uint64_t)v);
}

static inline int put(rstate *R, const char *s, size_t n)
{
	return ir_sb_add(&R->out, s, n);
}

static inline int putu(rstate *R, uint64_t v)
{
	char *p = reserve(R);
	if (!p)
		return -1;
	commit(R, wu(p, v));
	return 0;
}

/* "l<L>: send <size>b to <peer> tag <tag>" or "l<L>: recv <size>b from <peer> tag <tag>"
 * (a receive's peer and tag may be -1). */
static inline int def_msg(rstate *R, int is_send, uint32_t l, int64_t peer, uint64_t size, int64_t tag)
{
	char *p = reserve(R);
	if (!p)
		return -1;
	*p++ = 'l';
	p = wu(p, l);
	p = is_send ? WS(p, ": send ") : WS(p, ": recv ");
	p = wu(p, size);
	p = is_send ? WS(p, "b to ") : WS(p, "b from ");
	p = wi(p, peer);
	p = WS(p, " tag ");
	p = wi(p, tag);
	*p++ = '\n';
	commit(R, p);
	return 0;
}

static inline int def_send(rstate *R, uint32_t l, uint32_t peer, uint64_t size, int64_t tag)
{
	return def_msg(R, 1, l, peer, size, tag);
}

static inline int def_recv(rstate *R, uint32_t l, int64_t peer, uint64_t size, int64_t tag)
{
	return def_msg(R, 0, l, peer, size, tag);
}

/* a calc, on CPU `cpu` when that is not 0 (GOAL's `cpu C`, formats/goal.md) */
static inline int def_calc_cpu(rstate *R, uint32_t l, uint64_t ps, unsigned cpu)
{
	char *p = reserve(R);
	if (!p)
		return -1;
	*p++ = 'l';
	p = wu(p, l);
	p = WS(p, ": calc ");
	p = wu(p, ps);
	if (cpu) {
		p = WS(p, " cpu ");
		p = wu(p, cpu);
	}
	*p++ = '\n';
	commit(R, p);
	return 0;
}

static inline int def_calc(rstate *R, uint32_t l, uint64_t ps) { return def_calc_cpu(R, l, ps, 0); }


static inline int edge(rstate *R, uint32_t a, uint32_t b, int ireq)
{
	char *p = reserve(R);
	if (!p)
		return -1;
	*p++ = 'l';
	p = wu(p, a);
	if (ireq)
		p = WS(p, " irequires l");
	else
		p = WS(p, " requires l");
	p = wu(p, b);
	*p++ = '\n';
	commit(R, p);
	return 0;
}

static inline uint32_t new_label(rstate *R) { return ++R->nl; }

static inline int set_ends(rstate *R, size_t n)
{
	if (n > R->capends) {
		size_t nc = n * 2;
		uint32_t *a = realloc(R->ends, nc * sizeof *a);
		uint8_t *b;
		if (!a)
			return -1;
		R->ends = a;
		b = realloc(R->ends_ireq, nc);
		if (!b)
			return -1;
		R->ends_ireq = b;
		R->capends = nc;
	}
	R->nends = n;
	return 0;
}

static inline uint64_t scale_calc(gstate *g, double ps)
{
	double v = ps * g->o->cpu_scale;
	if (v <= 0)
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX / 2;
	return (uint64_t)llround(v);
}

static inline int stage_room(gstate *g)
{
	if (g->cg.nop + 1 > g->capstage || g->cg.capop > g->capstage) {
		size_t nc = (g->cg.capop > g->cg.nop + 1 ? g->cg.capop : g->cg.nop + 1) * 2;
		int64_t *t = realloc(g->ctag, nc * sizeof *t);
		int32_t *p;
		if (!t)
			return -1;
		g->ctag = t;
		p = realloc(g->cpeer, nc * sizeof *p);
		if (!p)
			return -1;
		g->cpeer = p;
		g->capstage = nc;
	}
	return 0;
}

/* Append a staged op (peer: world rank or ANY). Returns its index or -1. */
static inline long stage(gstate *g, uint8_t type, int64_t peer, uint64_t size, int64_t tag)
{
	ir_cg *c = &g->cg;
	if (IR_GROW(c->op, c->nop + 1, c->capop))
		return -1;
	if (stage_room(g))
		return -1;
	c->op[c->nop].type = type;
	c->op[c->nop].peer = 0;
	c->op[c->nop].size = size;
	g->ctag[c->nop] = tag;
	g->cpeer[c->nop] = (int32_t)peer;
	return (long)c->nop++;
}

/* Argument readers. t2g_bad_arg() always returns -1; returning -1 here says so to the compiler,
 * which otherwise cannot see across files that the result is set whenever 0 is returned. */
static inline int arg_int(const rstate *R, const ir_rec *r, unsigned i, int64_t *v, ir_err *e)
{
	if (ir_tf_int(r->f[i], v))
		return t2g_bad_arg(R, r, i, "an integer", e), -1;
	return 0;
}

static inline int arg_count(const rstate *R, const ir_rec *r, unsigned i, int64_t *v, ir_err *e)
{
	if (ir_tf_int(r->f[i], v) || *v < 0 || *v > INT32_MAX)
		return t2g_bad_arg(R, r, i, "a count", e), -1;
	return 0;
}

/* datatype "<id>,<size>,<extent>": the size */
static inline int arg_type(const rstate *R, const ir_rec *r, unsigned i, uint64_t *size, ir_err *e)
{
	int64_t a, b, c;
	if (ir_tf_triple(r->f[i], &a, &b, &c) || b < 0 || b > INT32_MAX)
		return t2g_bad_arg(R, r, i, "a datatype '<id>,<size>,<extent>'", e), -1;
	*size = (uint64_t)b;
	return 0;
}

static inline int arg_u64(const rstate *R, const ir_rec *r, unsigned i, uint64_t *v, ir_err *e)
{
	int id;
	if (strcmp(r->f[i], "-1") == 0) { /* allprof: MPI_IN_PLACE */
		*v = 0;
		return 0;
	}
	if (ir_tf_handle(r->f[i], v, &id))
		return t2g_bad_arg(R, r, i, "an address or a request id", e), -1;
	return 0;
}

/* request field: address or r-id; key 0 = none */
static inline int arg_req(const rstate *R, const ir_rec *r, unsigned i, uint64_t *key, ir_err *e)
{
	uint64_t v;
	int id;
	if (ir_tf_handle(r->f[i], &v, &id))
		return t2g_bad_arg(R, r, i, "a request address or id", e), -1;
	*key = id ? (v | ((uint64_t)1 << 63)) : v;
	return 0;
}

static inline int64_t world_of(const cref *cr, int64_t peer)
{
	if (peer < 0)
		return peer;
	return cr->members ? cr->members[peer] : peer;
}

/* GOAL tag of an application tag on a communicator (docs/trace2goal.md, "Tags"). */
static inline int64_t p2p_tag(gstate *g, rstate *R, const cref *cr, int64_t tag)
{
	if (tag < 0)
		return ANY;
	if (cr->c == &R->world) {
		if ((uint64_t)tag >= TAG_WORLD_MAX) {
			if (!g->folded_tags++)
				t2g_warn(g, "%s:%lu: tag %" PRId64 " is above 2^29-1: folded to %" PRId64 " (see the count at the end)",
				         R->fname, R->line, tag, tag & (TAG_WORLD_MAX - 1));
			return tag & (TAG_WORLD_MAX - 1);
		}
		return tag;
	}
	if (tag > 0xFFFF && !g->big_subtags++)
		t2g_warn(g, "%s:%lu: tag %" PRId64 " on a sub-communicator is above 65535: only its low 16 bits are kept",
		         R->fname, R->line, tag);
	return TAG_SUBCOMM | (int64_t)((cr->c->key & 0x1FFF) << 16) | (tag & 0xFFFF);
}

static inline int64_t coll_tag(const comm *c)
{
	return TAG_COLL | (int64_t)((c->key & 0x3FFF) << 16) | (int64_t)(c->seq & 0xFFFF);
}

static inline req *req_get(rstate *R, uint64_t key)
{
	const uint32_t *v;
	if (!key)
		return NULL;
	v = ir_hmap_get(&R->reqmap, key, 0);
	return v ? &R->reqs[*v] : NULL;
}

static inline int stage_send(gstate *g, rstate *R, const p2p *m, ir_err *e)
{
	if (m->peer < 0)
		return 0;
	if (stage(g, IR_OP_SEND, m->peer, m->size, m->tag) < 0)
		return ir_errf(e, "out of memory");
	return t2g_count_pair(g, R->rank, (uint32_t)m->peer, 1, e);
}

static inline int stage_recv(gstate *g, rstate *R, const p2p *m, ir_err *e)
{
	if (m->peer < -1)
		return 0;
	if (stage(g, IR_OP_RECV, m->peer, m->size, m->tag) < 0)
		return ir_errf(e, "out of memory");
	if (m->peer == ANY) {
		g->wild[R->rank]++;
		return 0;
	}
	return t2g_count_pair(g, (uint32_t)m->peer, R->rank, 0, e);
}

static inline double pin_cost(gstate *g, rstate *R, uint64_t buf, uint64_t size)
{
	uint64_t n;
	if (!g->o->pin || !buf || !size)
		return 0;
	n = t2g_pin_new_bytes(R, buf, size);
	if (!n)
		return 0;
	return g->o->pin_a + g->o->pin_b * (double)n;
}

#endif
