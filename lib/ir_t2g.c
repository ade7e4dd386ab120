/*
 * ir_t2g.c: traces to GOAL (see ir_t2g.h and docs/trace2goal.md).
 *
 * One rank at a time: the trace is read record by record and every MPI call
 * becomes a "staged call", a handful of ops with dependencies inside the call,
 * which is then linked into the rank's chain:
 *
 *   ops of the call, then the gap calc (computation since the previous call
 *   returned), each op without a predecessor inside the call requires the gap
 *   calc, the gap calc requires (or irequires) the previous call's end ops,
 *   and for a collective or a completion a `calc 0` joins the call's last ops.
 *
 * That text order is Schedgen's, so --compat schedgen output compares line by
 * line with Schedgen's own. Labels are l1, l2, ... per rank; GOAL allows a
 * label to be used before its definition, which a wildcard Irecv of an allprof
 * trace needs: its definition is written when its Wait reveals the real source.
 *
 * Request tables and communicator tables are hash maps (ir_hmap.h), sized to
 * the in-flight set.
 * Per-rank state lives in an rstate (g->R is the rank being converted): one,
 * reused rank after rank, or with --sync one per rank, all live at once, the
 * records merged by time (a binary heap of ranks). With --sync each call also
 * gets zero-cost time nodes (ir_tsync.h) for its ops and a post-call calc whose
 * definition is written when its time resolves, possibly while another rank
 * is being read (sync_done() switches g->R to the owner for that).
 */
#include "ir_t2g.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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

/* ------------------------------------------------------------------ small maps */

/* ------------------------------------------------------------------ call table */

enum ck {
	C_LOCAL, C_INIT, C_FINALIZE, C_SEND, C_RECV, C_ISEND, C_IRECV, C_SEND_INIT, C_RECV_INIT,
	C_START, C_STARTALL, C_SENDRECV, C_SENDRECV_REPLACE, C_WAIT, C_WAITALL, C_WAITANY, C_WAITSOME,
	C_TEST, C_TESTALL, C_TESTANY, C_TESTSOME, C_PROBE, C_IPROBE, C_REQFREE, C_COLL,
	C_MPROBE, C_IMPROBE, C_MRECV, C_IMRECV, C_NEIGH, C_CART_CREATE, C_CART_SUB, C_GRAPH_CREATE,
	C_DIST_GRAPH_ADJ, C_DIST_GRAPH
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

/* The table is generated from formats/calls.tsv (lib/ir_t2g_calls.h, tools/allprof/gen-calls.sh):
 * const and sorted by name, so that find_call() is a binary search from the first record. */
#define CALLROW(name, k, coll, nb, nf, fcomm, freq) { name, k, coll, nb, nf, fcomm, freq },
static const callinfo calls[] = { IR_T2G_CALLS(CALLROW) };
#undef CALLROW

/* Local calls: no messages; their time counts as computation. */
static const char *const local_prefixes[] = {
	"MPI_Comm_", "MPI_Type_", "MPI_Group_", "MPI_Cart", "MPI_Graph", "MPI_Dist_graph", "MPI_Info_",
	"MPI_Errhandler_", "MPI_Attr_", "MPI_Op_", "MPI_Keyval_", "MPI_Get_", "MPI_Wtime", "MPI_Wtick",
	"MPI_Pcontrol", "MPI_Initialized", "MPI_Finalized", "MPI_Query_thread", "MPI_Is_thread_main",
	"MPI_Error_", "MPI_Buffer_", "MPI_Address", "MPI_Pack", "MPI_Unpack", "MPI_Dims_create",
	"MPI_Abort", "MPI_Cancel", "MPI_Request_get_status", "MPI_Status_set", "MPI_Alloc_mem",
	"MPI_Free_mem", "MPI_Reduce_local", NULL,
};

static const callinfo *find_call(const char *name)
{
	size_t lo = 0, hi = sizeof calls / sizeof *calls;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, calls[mid].name);
		if (c == 0)
			return &calls[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int is_local(const char *name)
{
	for (const char *const *p = local_prefixes; *p; p++)
		if (strncmp(name, *p, strlen(*p)) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ state */

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
	double owed;      /* --durations: modelled time no call has absorbed yet (ps), see emit_call */
	const char *fname;
	unsigned long line;
	ir_sb out;        /* GOAL text of this rank not yet written */
	int warned_any;   /* liballprof Waitany/Waitsome guess warned */
	int warned_test;  /* liballprof Test* warned */
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

static void rstate_maps_init(rstate *R)
{
	ir_hmap_init(&R->reqmap, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&R->cmap, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&R->occ, sizeof(uint32_t), 64, IR_HMAP_DENSE);
}

typedef struct gstate {
	const ir_t2g_opts *o;
	enum ir_coll_alg alg[IR_COLL_NKINDS];
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
	rstate *R;        /* the rank being converted */
	rstate *rs;       /* --sync: all ranks (else NULL) */
	rstate one;       /* the rank, without --sync */
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
	int sync_failed;  /* out of memory or a write error inside a callback */
	int no_dur;       /* the call's own duration is not replayed (probes without --sync) */
	ir_err sync_err;
} gstate;

static void warn(gstate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(gstate *g, const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	if (!g->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	g->o->warn(g->o->warn_ctx, buf);
}

static int errat(gstate *g, ir_err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int errat(gstate *g, ir_err *e, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ir_errf_at(e, g->R->fname, g->R->line, "%s", buf);
}

/* ------------------------------------------------------------------ output */

static char *utoa(char *end, uint64_t v)
{
	*--end = 0;
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Write the current rank's buffered text: to the output, or with --sync (ranks converted
 * together) to the temporary file as a chunk of that rank, assembled at the end. */
static int flush_out(gstate *g, ir_err *e)
{
	rstate *R = g->R;
	if (R->out.len == 0)
		return 0;
	g->st->goal_bytes += R->out.len;
	if (g->rs) {
		if (fwrite(R->out.buf, 1, R->out.len, g->tmp) != R->out.len)
			return ir_errf(e, "cannot write the temporary file: %s", strerror(errno));
		if (R->nchunks && R->chunks[R->nchunks - 1].off + R->chunks[R->nchunks - 1].len == g->tmplen) {
			R->chunks[R->nchunks - 1].len += R->out.len;
		} else {
			if (IR_GROW(R->chunks, R->nchunks + 1, R->capchunks))
				return ir_errf(e, "out of memory");
			R->chunks[R->nchunks].off = g->tmplen;
			R->chunks[R->nchunks].len = R->out.len;
			R->nchunks++;
		}
		g->tmplen += R->out.len;
	} else if (ir_writer_write(g->w, R->out.buf, R->out.len, e)) {
		return -1;
	}
	ir_sb_reset(&R->out);
	return 0;
}

/* Output lines are formatted straight into the buffer: one capacity check per line (a line
 * is at most LINE_MAX bytes), then byte stores; this path carries every op. */
#define LINE_MAX_BYTES 128

static char *reserve(gstate *g)
{
	if (g->R->out.alloc - g->R->out.len < LINE_MAX_BYTES + 1 && ir_sb_grow(&g->R->out, LINE_MAX_BYTES + 1))
		return NULL;
	return g->R->out.buf + g->R->out.len;
}

static void commit(gstate *g, char *p)
{
	g->R->out.len = (size_t)(p - g->R->out.buf);
	g->R->out.buf[g->R->out.len] = 0;
}

static char *wu(char *p, uint64_t v)
{
	char b[24], *s = utoa(b + sizeof b, v);
	size_t n = (size_t)(b + sizeof b - 1 - s);
	memcpy(p, s, n);
	return p + n;
}

static char *wi(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return wu(p, (uint64_t)(-(v + 1)) + 1);
	}
	return wu(p, (uint64_t)v);
}

#define WS(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static int put(gstate *g, const char *s, size_t n)
{
	return ir_sb_add(&g->R->out, s, n);
}

static int putu(gstate *g, uint64_t v)
{
	char *p = reserve(g);
	if (!p)
		return -1;
	commit(g, wu(p, v));
	return 0;
}

/* "l<L>: send <size>b to <peer> tag <tag>" or "l<L>: recv <size>b from <peer> tag <tag>"
 * (a receive's peer and tag may be -1). */
static int def_msg(gstate *g, int is_send, uint32_t l, int64_t peer, uint64_t size, int64_t tag)
{
	char *p = reserve(g);
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
	commit(g, p);
	return 0;
}

static int def_send(gstate *g, uint32_t l, uint32_t peer, uint64_t size, int64_t tag)
{
	return def_msg(g, 1, l, peer, size, tag);
}

static int def_recv(gstate *g, uint32_t l, int64_t peer, uint64_t size, int64_t tag)
{
	return def_msg(g, 0, l, peer, size, tag);
}

static int def_calc(gstate *g, uint32_t l, uint64_t ps)
{
	char *p = reserve(g);
	if (!p)
		return -1;
	*p++ = 'l';
	p = wu(p, l);
	p = WS(p, ": calc ");
	p = wu(p, ps);
	*p++ = '\n';
	commit(g, p);
	return 0;
}

static int edge(gstate *g, uint32_t a, uint32_t b, int ireq)
{
	char *p = reserve(g);
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
	commit(g, p);
	return 0;
}

static uint32_t new_label(gstate *g) { return ++g->R->nl; }

static int set_ends(gstate *g, size_t n)
{
	if (n > g->R->capends) {
		size_t nc = n * 2;
		uint32_t *a = realloc(g->R->ends, nc * sizeof *a);
		uint8_t *b;
		if (!a)
			return -1;
		g->R->ends = a;
		b = realloc(g->R->ends_ireq, nc);
		if (!b)
			return -1;
		g->R->ends_ireq = b;
		g->R->capends = nc;
	}
	g->R->nends = n;
	return 0;
}

static uint64_t scale_calc(gstate *g, double ps)
{
	double v = ps * g->o->cpu_scale;
	if (v <= 0)
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX / 2;
	return (uint64_t)llround(v);
}

/* ------------------------------------------------------------------ staging */

static int stage_room(gstate *g)
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
static long stage(gstate *g, uint8_t type, int64_t peer, uint64_t size, int64_t tag)
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

enum { ENDS_OPS, ENDS_OPS_IREQ, ENDS_GAP, ENDS_JOIN };

typedef struct emitted {
	uint32_t base;   /* label of staged op 0 */
	uint32_t gap;
	uint32_t join;   /* NOLABEL unless requested */
	ir_tn sjoin;     /* --sync: the join's zero-cost node (creator reference in g->tjoin) */
} emitted;

/* Pinning: bytes of [a, a+n) not yet registered; registers them (ir_interval.h: a treap of
 * disjoint intervals, O(log n) per buffer). Out of memory: counted as new, not remembered. */
static uint64_t pin_new_bytes(gstate *g, uint64_t a, uint64_t n)
{
	uint64_t fresh;
	if (ir_ivset_add(&g->R->pinset, a, n, &fresh))
		return n;
	return fresh;
}

/* Modelled time of the staged ops (for --durations), priced by ir_model.h as ibsim prices
 * them: a send what a blocking send call lasts (the sender's CPU time; under the piecewise
 * model a rendezvous send waits for the receiver's charge), a receive what a receive call lasts when its
 * sender starts with it (LogGOPS: o + (s-1)*O_send, o + L + (s-1)*max(O, G), the rendezvous
 * variants above S; or the piecewise model); a message to the rank itself is a local copy
 * when the model sets `copy`. Calcs (the local work of collectives) are modelled work too. */
static double model_time(gstate *g)
{
	const ir_loggops *net = &g->o->net;
	double t = 0;
	for (size_t i = 0; i < g->cg.nop; i++) {
		const ir_cop *op = &g->cg.op[i];
		int self = g->cpeer[i] >= 0 && (uint32_t)g->cpeer[i] == g->R->rank;
		if (op->type == IR_OP_SEND)
			t += (double)ir_model_send_call(net, op->size, self);
		else if (op->type == IR_OP_RECV)
			t += (double)ir_model_recv_call(net, op->size, self);
		else
			t += (double)op->size;
	}
	return t;
}

/* --sync: what ibsim charges the rank's CPU for the staged ops (the sender's send_cpu, the
 * receiver's recv_cpu, the collective's local work). The network's part, the time from a
 * send's start to its message's arrival, is not in it: the --sync dataflow places the
 * receive's completion after it (sync_delays), so the post calc replays only the time the
 * model does not explain, whether the receive waited for its message or found it there. */
static double model_cpu_time(gstate *g)
{
	const ir_loggops *net = &g->o->net;
	double t = 0;
	for (size_t i = 0; i < g->cg.nop; i++) {
		const ir_cop *op = &g->cg.op[i];
		int self = g->cpeer[i] >= 0 && (uint32_t)g->cpeer[i] == g->R->rank;
		if (op->type == IR_OP_SEND)
			t += (double)ir_model_send_cpu(net, op->size, self);
		else if (op->type == IR_OP_RECV)
			t += (double)ir_model_recv_cpu(net, op->size, self, 0);
		else
			t += (double)op->size;
	}
	return t;
}

/* --sync: the delays of a send of `size` bytes (ir_ts_send_cost), as ibsim times it
 * (formats/results.md 5.3, 5.8): its message arrives ir_model_arrival after the send's
 * start; a rendezvous send is done at the later of the receive's post and its message's
 * handling (LogGOPS: the arrival; piecewise: the end of the receiver's recv_o), and its call
 * ends no earlier than its own CPU time, which the post calc's model subtracts: hence both
 * delays count from post + send_cpu. All 0 on a network that costs nothing. */
static void sync_delays(gstate *g, uint64_t size, int self, int64_t d[3])
{
	const ir_loggops *net = &g->o->net;
	uint64_t arr = ir_model_arrival(net, size, self), so = ir_model_send_cpu(net, size, self), done = arr;
	if (ir_model_pw(net))
		done = ir_model_sat_add(arr, ir_model_recv_cpu(net, size, self, 0));
	if (arr > INT64_MAX / 4)
		arr = INT64_MAX / 4;
	if (done > INT64_MAX / 4)
		done = INT64_MAX / 4;
	if (so > INT64_MAX / 4)
		so = INT64_MAX / 4;
	d[0] = (int64_t)arr;
	d[1] = (int64_t)done - (int64_t)so;
	d[2] = -(int64_t)so;
}

/* ---- --sync: zero-cost times (ir_tsync.h) ---- */

/* --sync reads every rank's trace at once (merged by time): raise the soft limit of open
 * files to what that needs, up to the hard limit, or say why it cannot. */
static int open_files_for(uint32_t n, ir_err *e)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return ir_errf(e, "--sync reads all %" PRIu32 " traces at once and needs about %llu open files, but the "
		                  "limit is %llu (raise it with ulimit -Hn, or convert without --sync)",
		               n, (unsigned long long)need, (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return ir_errf(e, "--sync needs about %llu open files: cannot raise the limit: %s", (unsigned long long)need,
		               strerror(errno));
	return 0;
}

/* Drop the creator references to the nodes of the last emitted call. */
static void sync_drop(gstate *g)
{
	for (size_t i = 0; i < g->ntn; i++) {
		if (g->tdone[i] != g->tpost[i])
			ir_ts_unref(g->ts, g->tdone[i]);
		ir_ts_unref(g->ts, g->tpost[i]);
	}
	g->ntn = 0;
	ir_ts_unref(g->ts, g->tjoin);
	g->tjoin = 0;
}

/* A resolved post-call calc: its length is the call's return minus the zero-cost completion
 * (minus the modelled network time, folded into `base`). */
static void sync_done(void *ctx, int64_t t, uint64_t u0, uint64_t u1)
{
	gstate *g = ctx;
	rstate *save = g->R;
	int64_t v = (int64_t)u1 - t;
	g->R = &g->rs[u0 >> 32];
	if (def_calc(g, (uint32_t)u0, scale_calc(g, v > 0 ? (double)v : 0))) {
		if (!g->sync_failed)
			ir_errf(&g->sync_err, "out of memory");
		g->sync_failed = 1;
	} else if (g->R->out.len >= SPILL_AT) {
		ir_err tmp;
		if (flush_out(g, g->sync_failed ? &tmp : &g->sync_err))
			g->sync_failed = 1;
	}
	g->R = save;
}

/* Nodes for the staged ops (post and done of each, linked by the call's dependencies and
 * posted to the channels), then the post-call calc `plabel`: blocking calls wait for their
 * ops (or for the join), the others only for their own entry. */
static int sync_call(gstate *g, const ir_rec *r, int blocking, double model, uint32_t plabel, ir_tn *join,
                     ir_err *e)
{
	ir_cg *c = &g->cg;
	ir_ts *ts = g->ts;
	int64_t E = r->t_call;
	ir_tn P;
	sync_drop(g);
	if (c->nop > g->captn) {
		size_t nc = c->nop * 2;
		ir_tn *a = realloc(g->tpost, nc * sizeof *a), *b;
		if (!a)
			return ir_errf(e, "out of memory");
		g->tpost = a;
		b = realloc(g->tdone, nc * sizeof *b);
		if (!b)
			return ir_errf(e, "out of memory");
		g->tdone = b;
		g->captn = nc;
	}
	for (size_t i = 0; i < c->nop; i++) {
		const ir_cop *op = &c->op[i];
		ir_tn p = ir_ts_node(ts, E), d = p;
		if (!p)
			return ir_errf(e, "out of memory");
		if (op->type == IR_OP_RECV || (op->type == IR_OP_SEND && op->size > g->o->net.S)) {
			d = ir_ts_node(ts, E);
			if (!d) {
				ir_ts_unref(ts, p);
				return ir_errf(e, "out of memory");
			}
			if (ir_ts_input(ts, d, p))
				return ir_errf(e, "out of memory");
		}
		g->tpost[i] = p;
		g->tdone[i] = d;
		g->ntn = i + 1;
	}
	for (size_t i = 0; i < c->ndep; i++)
		if (ir_ts_input(ts, g->tpost[c->dep[i].to], g->tdone[c->dep[i].from]))
			return ir_errf(e, "out of memory");
	if (c->nop)
		for (size_t k = 0; k < g->nxin; k++)
			if (ir_ts_input(ts, g->tpost[0], g->xin[k]))
				return ir_errf(e, "out of memory");
	for (size_t i = 0; i < c->nop; i++)
		ir_ts_release(ts, g->tpost[i]);
	for (size_t i = 0; i < c->nop; i++) {
		const ir_cop *op = &c->op[i];
		int rc = 0;
		if (op->type == IR_OP_SEND) {
			int64_t d[3];
			sync_delays(g, op->size, (uint32_t)g->cpeer[i] == g->R->rank, d);
			rc = ir_ts_send_cost(ts, g->R->rank, (uint32_t)g->cpeer[i], g->ctag[i], g->tpost[i], g->tdone[i],
			                     d[0], d[1], d[2]);
		} else if (op->type == IR_OP_RECV && op->peer != 1) { /* peer 1: deferred wildcard, see complete() */
			if (g->cpeer[i] < 0 || g->ctag[i] < 0) {
				/* a liballprof wildcard: the partner is unknown, no waiting is synchronised */
				g->sync_wild++;
				ir_ts_release(ts, g->tdone[i]);
			} else {
				rc = ir_ts_recv(ts, (uint32_t)g->cpeer[i], g->R->rank, g->ctag[i], g->tpost[i], g->tdone[i]);
			}
		}
		if (rc)
			return ir_errf(e, "out of memory");
	}
	if (join) {
		*join = ir_ts_node(ts, E);
		if (!*join)
			return ir_errf(e, "out of memory");
		for (size_t i = 0; i < c->nop; i++)
			if (ir_ts_input(ts, *join, g->tdone[i]))
				return ir_errf(e, "out of memory");
		ir_ts_release(ts, *join);
		g->tjoin = *join;
	}
	P = ir_ts_node(ts, E);
	if (!P)
		return ir_errf(e, "out of memory");
	if (blocking) {
		if (join && *join) {
			if (ir_ts_input(ts, P, *join))
				return ir_errf(e, "out of memory");
		} else {
			for (size_t i = 0; i < c->nop; i++)
				if (ir_ts_input(ts, P, g->tdone[i]))
					return ir_errf(e, "out of memory");
		}
	}
	ir_ts_notify(ts, P, ((uint64_t)g->R->rank << 32) | plabel, (uint64_t)(r->t_ret - (int64_t)llround(model)));
	ir_ts_release(ts, P);
	ir_ts_unref(ts, P);
	if (g->sync_failed)
		return ir_errf(e, "%s", g->sync_err.msg);
	return 0;
}

/* --sync: the leading calc (this rank's start relative to the earliest start), defined for
 * every rank once all have started. */
static int sync_lead(gstate *g, int64_t t, ir_err *e)
{
	rstate *R = g->R;
	if (!g->rs || R->lead)
		return 0;
	R->lead = new_label(g);
	R->t_start = t;
	if (set_ends(g, 1))
		return ir_errf(e, "out of memory");
	g->R->ends[0] = R->lead;
	g->R->ends_ireq[0] = 0;
	g->st->ops++;
	if (++g->nstarted == g->nranks) {
		int64_t min = INT64_MAX;
		for (uint32_t i = 0; i < g->nranks; i++)
			if (g->rs[i].t_start < min)
				min = g->rs[i].t_start;
		for (uint32_t i = 0; i < g->nranks; i++) {
			g->R = &g->rs[i];
			if (def_calc(g, g->R->lead, scale_calc(g, (double)(g->R->t_start - min)))) {
				g->R = R;
				return ir_errf(e, "out of memory");
			}
		}
		g->R = R;
	}
	return 0;
}

/* Emit the staged call. t_call/t_ret are the call's times; extra is the pinning cost. */
static int emit_call(gstate *g, const ir_rec *r, int ends_mode, int want_join, double extra, emitted *em,
                     ir_err *e)
{
	ir_cg *c = &g->cg;
	int64_t gap = r->t_call - g->R->gap_start;
	double calc, model = 0;
	size_t i;
	uint8_t *haspred = NULL, *hassucc = NULL;
	int sync = g->rs != NULL;
	if (gap < 0) {
		g->neg_gaps++;
		gap = 0;
	}
	calc = (double)gap + extra;
	if (g->o->durations && r->t_ret != IR_TIME_NONE) {
		/* The model charges each op to the call that starts it, but the MPI library does the
		 * work in whichever call makes progress: a nonblocking receive is modelled in the
		 * Irecv (which returns at once) and done in a later Send or Wait. So the part of the
		 * model a call could not contain is owed, and taken from the next calls' own time,
		 * in trace order, before any of it is replayed: nothing is charged twice. */
		double d = (double)(r->t_ret - r->t_call);
		model = sync ? model_cpu_time(g) : model_time(g);
		if (d < model) {
			g->R->owed += model - d;
		} else if (g->R->owed > 0) {
			double take = d - model < g->R->owed ? d - model : g->R->owed;
			g->R->owed -= take;
			model += take;
		}
		if (!sync && !g->no_dur && d > model)
			calc += d - model;
	}
	em->base = g->R->nl + 1;
	em->sjoin = 0;
	for (i = 0; i < c->nop; i++) {
		uint32_t l = new_label(g);
		const ir_cop *op = &c->op[i];
		int rc;
		if (op->type == IR_OP_SEND)
			rc = def_send(g, l, (uint32_t)g->cpeer[i], op->size, g->ctag[i]);
		else if (op->type == IR_OP_RECV)
			rc = op->peer == 1 ? 0 : def_recv(g, l, g->cpeer[i], op->size, g->ctag[i]);
		else /* a join (0) or a collective's local work: computation, scaled like the gap */
			rc = def_calc(g, l, op->size ? scale_calc(g, (double)op->size) : 0);
		if (rc)
			return ir_errf(e, "out of memory");
	}
	em->gap = new_label(g);
	if (def_calc(g, em->gap, scale_calc(g, calc)))
		return ir_errf(e, "out of memory");
	if (c->nop) {
		if (c->nop > g->capflags) {
			size_t nc = c->nop * 2;
			uint8_t *a = realloc(g->haspred, nc), *b;
			if (!a)
				return ir_errf(e, "out of memory");
			g->haspred = a;
			b = realloc(g->hassucc, nc);
			if (!b)
				return ir_errf(e, "out of memory");
			g->hassucc = b;
			g->capflags = nc;
		}
		haspred = g->haspred;
		hassucc = g->hassucc;
		memset(haspred, 0, c->nop);
		memset(hassucc, 0, c->nop);
		for (i = 0; i < c->ndep; i++) {
			haspred[c->dep[i].to] = 1;
			hassucc[c->dep[i].from] = 1;
			if (edge(g, em->base + c->dep[i].to, em->base + c->dep[i].from, 0))
				goto oom;
		}
		for (i = 0; i < c->nop; i++)
			if (!haspred[i] && edge(g, em->base + (uint32_t)i, em->gap, 0))
				goto oom;
	}
	for (i = 0; i < g->R->nends; i++)
		if (edge(g, em->gap, g->R->ends[i], g->R->ends_ireq[i]))
			goto oom;
	em->join = NOLABEL;
	if (want_join && c->nop) {
		em->join = new_label(g);
		if (def_calc(g, em->join, 0))
			goto oom;
		for (i = 0; i < c->nop; i++)
			if (!hassucc[i] && edge(g, em->join, em->base + (uint32_t)i, 0))
				goto oom;
	}
	if (sync) {
		/* ops, then a calc for the call's duration from the zero-cost completion */
		int blocking = c->nop && (ends_mode == ENDS_OPS || ends_mode == ENDS_JOIN);
		uint32_t P = new_label(g);
		em->sjoin = 0;
		if (sync_call(g, r, blocking, model, P, em->join != NOLABEL ? &em->sjoin : NULL, e))
			return -1;
		if (!blocking) {
			if (edge(g, P, em->gap, 0))
				goto oom;
		} else if (em->join != NOLABEL) {
			if (edge(g, P, em->join, 0))
				goto oom;
		} else {
			for (i = 0; i < c->nop; i++)
				if (!hassucc[i] && edge(g, P, em->base + (uint32_t)i, 0))
					goto oom;
		}
		if (ends_mode == ENDS_OPS_IREQ && c->nop) {
			if (set_ends(g, c->nop + 1))
				return ir_errf(e, "out of memory");
			for (i = 0; i < c->nop; i++) {
				g->R->ends[i] = em->base + (uint32_t)i;
				g->R->ends_ireq[i] = 1;
			}
			g->R->ends[c->nop] = P;
			g->R->ends_ireq[c->nop] = 0;
		} else {
			if (set_ends(g, 1))
				return ir_errf(e, "out of memory");
			g->R->ends[0] = P;
			g->R->ends_ireq[0] = 0;
		}
		g->st->ops++;
	} else if (ends_mode == ENDS_GAP || c->nop == 0 || (ends_mode == ENDS_JOIN && em->join == NOLABEL)) {
		/* the chain */
		if (set_ends(g, 1))
			return ir_errf(e, "out of memory");
		g->R->ends[0] = em->gap;
		g->R->ends_ireq[0] = 0;
	} else if (ends_mode == ENDS_JOIN) {
		if (set_ends(g, 1))
			return ir_errf(e, "out of memory");
		g->R->ends[0] = em->join;
		g->R->ends_ireq[0] = 0;
	} else {
		if (set_ends(g, c->nop))
			return ir_errf(e, "out of memory");
		for (i = 0; i < c->nop; i++) {
			g->R->ends[i] = em->base + (uint32_t)i;
			g->R->ends_ireq[i] = ends_mode == ENDS_OPS_IREQ;
		}
	}
	g->R->gap_start = r->t_ret;
	g->st->ops += c->nop + 1 + (em->join != NOLABEL);
	if (g->R->out.len >= (sync ? SPILL_AT : FLUSH_AT) && flush_out(g, e))
		return -1;
	return 0;
oom:
	return ir_errf(e, "out of memory");
}

/* ------------------------------------------------------------------ arguments */

static int bad_arg(gstate *g, const ir_rec *r, unsigned i, const char *what, ir_err *e)
{
	char q[120];
	ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i]));
	return errat(g, e, "%s: argument %u: expected %s, found '%s'", r->name, i + 1, what, q);
}

static int arg_int(gstate *g, const ir_rec *r, unsigned i, int64_t *v, ir_err *e)
{
	if (ir_tf_int(r->f[i], v))
		return bad_arg(g, r, i, "an integer", e);
	return 0;
}

static int arg_count(gstate *g, const ir_rec *r, unsigned i, int64_t *v, ir_err *e)
{
	if (ir_tf_int(r->f[i], v) || *v < 0 || *v > INT32_MAX)
		return bad_arg(g, r, i, "a count", e);
	return 0;
}

/* datatype "<id>,<size>,<extent>": the size */
static int arg_type(gstate *g, const ir_rec *r, unsigned i, uint64_t *size, ir_err *e)
{
	int64_t a, b, c;
	if (ir_tf_triple(r->f[i], &a, &b, &c) || b < 0 || b > INT32_MAX)
		return bad_arg(g, r, i, "a datatype '<id>,<size>,<extent>'", e);
	*size = (uint64_t)b;
	return 0;
}

static int arg_u64(gstate *g, const ir_rec *r, unsigned i, uint64_t *v, ir_err *e)
{
	int id;
	if (strcmp(r->f[i], "-1") == 0) { /* allprof: MPI_IN_PLACE */
		*v = 0;
		return 0;
	}
	if (ir_tf_handle(r->f[i], v, &id))
		return bad_arg(g, r, i, "an address or a request id", e);
	return 0;
}

/* request field: address or r-id; key 0 = none */
static int arg_req(gstate *g, const ir_rec *r, unsigned i, uint64_t *key, ir_err *e)
{
	uint64_t v;
	int id;
	if (ir_tf_handle(r->f[i], &v, &id))
		return bad_arg(g, r, i, "a request address or id", e);
	*key = id ? (v | ((uint64_t)1 << 63)) : v;
	return 0;
}

/* The communicator argument; returns 0 ok, 1 not usable (warned, skip the call), -1 error. */
static int arg_comm(gstate *g, const ir_rec *r, unsigned i, cref *cr, ir_err *e)
{
	int64_t h, rk, sz;
	if (ir_tf_triple(r->f[i], &h, &rk, &sz) || rk < 0 || sz <= 0 || rk >= sz)
		return bad_arg(g, r, i, "a communicator '<handle>,<rank>,<size>'", e);
	cr->size = (uint32_t)sz;
	cr->me = (uint32_t)rk;
	if (g->R->flavor == IR_TRACE_ALLPROF) {
		comm *c;
		if (h == 0) {
			c = &g->R->world;
		} else if (h == 1) {
			c = &g->R->self;
		} else {
			const uint32_t *ci = ir_hmap_get(&g->R->cmap, (uint64_t)h + 1, 0);
			if (!ci)
				return errat(g, e, "%s: communicator %" PRId64 " has no '# comm' line before its use", r->name, h);
			c = &g->R->comms[*ci];
		}
		if (c->n != (uint32_t)sz)
			return errat(g, e, "%s: communicator %" PRId64 " has %u members, the call says %" PRId64, r->name, h,
			             c->n, sz);
		if ((c->members ? c->members[rk] : (uint32_t)rk) != g->R->rank)
			return errat(g, e, "%s: rank %" PRId64 " in communicator %" PRId64 " is not world rank %u", r->name,
			             rk, h, g->R->rank);
		cr->members = c->members;
		cr->c = c;
		return 0;
	}
	/* liballprof: only MPI_COMM_WORLD-sized communicators (same ranks) and self are usable */
	if (sz == (int64_t)g->nranks && rk == (int64_t)g->R->rank) {
		cr->members = NULL;
		cr->c = &g->R->world;
		return 0;
	}
	if (sz == 1) {
		cr->members = g->R->self.members;
		cr->c = &g->R->self;
		return 0;
	}
	if (!g->skipped_comm++)
		warn(g, "%s:%lu: %s on a communicator of %" PRId64 " ranks skipped: liballprof traces have no member "
		     "lists (further calls on such communicators are skipped silently; see the count at the end)",
		     g->R->fname, g->R->line, r->name, sz);
	return 1;
}

static int64_t world_of(const cref *cr, int64_t peer)
{
	if (peer < 0)
		return peer;
	return cr->members ? cr->members[peer] : peer;
}

/* GOAL tag of an application tag on a communicator (docs/trace2goal.md, "Tags"). */
static int64_t p2p_tag(gstate *g, const cref *cr, int64_t tag)
{
	if (tag < 0)
		return ANY;
	if (cr->c == &g->R->world) {
		if ((uint64_t)tag >= TAG_WORLD_MAX) {
			if (!g->folded_tags++)
				warn(g, "%s:%lu: tag %" PRId64 " is above 2^29-1: folded to %" PRId64 " (see the count at the end)",
				     g->R->fname, g->R->line, tag, tag & (TAG_WORLD_MAX - 1));
			return tag & (TAG_WORLD_MAX - 1);
		}
		return tag;
	}
	if (tag > 0xFFFF && !g->big_subtags++)
		warn(g, "%s:%lu: tag %" PRId64 " on a sub-communicator is above 65535: only its low 16 bits are kept",
		     g->R->fname, g->R->line, tag);
	return TAG_SUBCOMM | (int64_t)((cr->c->key & 0x1FFF) << 16) | (tag & 0xFFFF);
}

static int64_t coll_tag(const comm *c)
{
	return TAG_COLL | (int64_t)((c->key & 0x3FFF) << 16) | (int64_t)(c->seq & 0xFFFF);
}

/* ------------------------------------------------------------------ pairs and requests */

static int count_pair(gstate *g, uint32_t src, uint32_t dst, int is_send, ir_err *e)
{
	uint64_t k = (((uint64_t)src << 32) | dst) + 1;
	int isnew;
	uint32_t *v = ir_hmap_put(&g->pairs, k, 0, &isnew);
	size_t idx;
	if (!v)
		return ir_errf(e, "out of memory");
	if (isnew) {
		if (IR_GROW(g->pc, g->npc + 1, g->cappc))
			return ir_errf(e, "out of memory");
		idx = g->npc++;
		g->pc[idx].sends = g->pc[idx].recvs = 0;
		*v = (uint32_t)idx;
	} else {
		idx = *v;
	}
	if (is_send)
		g->pc[idx].sends++;
	else
		g->pc[idx].recvs++;
	return 0;
}

static req *req_get(gstate *g, uint64_t key)
{
	const uint32_t *v;
	if (!key)
		return NULL;
	v = ir_hmap_get(&g->R->reqmap, key, 0);
	return v ? &g->R->reqs[*v] : NULL;
}

/* --sync: let go of a request's zero-cost nodes (a deferred receive never completed resolves
 * without a partner). */
static void req_drop_nodes(gstate *g, req *q)
{
	if (!g->ts)
		return;
	if (q->deferred && q->node) {
		g->sync_wild++;
		ir_ts_release(g->ts, q->node);
	}
	ir_ts_unref(g->ts, q->node);
	ir_ts_unref(g->ts, q->pnode);
	q->node = q->pnode = 0;
}

static req *req_new(gstate *g, uint64_t key, ir_err *e)
{
	uint32_t *v;
	size_t idx;
	if (!key)
		return NULL;
	v = ir_hmap_get(&g->R->reqmap, key, 0);
	if (v) {
		req *q = &g->R->reqs[*v];
		req_drop_nodes(g, q);
		memset(q, 0, sizeof *q);
		return q;
	}
	if (g->R->nfree) {
		idx = g->R->freereq[--g->R->nfree];
	} else {
		if (IR_GROW(g->R->reqs, g->R->nreqs + 1, g->R->capreqs)) {
			ir_errf(e, "out of memory");
			return NULL;
		}
		idx = g->R->nreqs++;
	}
	v = ir_hmap_put(&g->R->reqmap, key, 0, NULL);
	if (!v) {
		ir_errf(e, "out of memory");
		return NULL;
	}
	*v = (uint32_t)idx;
	memset(&g->R->reqs[idx], 0, sizeof g->R->reqs[idx]);
	return &g->R->reqs[idx];
}

static int req_del(gstate *g, uint64_t key)
{
	uint32_t *v = ir_hmap_get(&g->R->reqmap, key, 0);
	if (!v)
		return 0;
	if (IR_GROW(g->R->freereq, g->R->nfree + 1, g->R->capfree))
		return -1;
	req_drop_nodes(g, &g->R->reqs[*v]);
	g->R->freereq[g->R->nfree++] = *v;
	ir_hmap_del(&g->R->reqmap, v);
	return 0;
}

/* ------------------------------------------------------------------ point-to-point */

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

#define P2PF(c, peer) { F_##c##_buf, F_##c##_count, F_##c##_type, F_##c##_##peer, F_##c##_tag, F_##c##_comm }
static const p2pf f_send = P2PF(MPI_Send, dest), f_recv = P2PF(MPI_Recv, source), f_isend = P2PF(MPI_Isend, dest),
                  f_irecv = P2PF(MPI_Irecv, source), f_send_init = P2PF(MPI_Send_init, dest),
                  f_recv_init = P2PF(MPI_Recv_init, source);
#undef P2PF

/* buf count type peer tag comm at the fields f says */
static int parse_p2p(gstate *g, const ir_rec *r, const p2pf *f, p2p *m, ir_err *e)
{
	int64_t cnt, peer, tag;
	uint64_t tsz;
	int rc;
	if (arg_u64(g, r, f->buf, &m->buf, e) || arg_count(g, r, f->count, &cnt, e) ||
	    arg_type(g, r, f->type, &tsz, e) || arg_int(g, r, f->peer, &peer, e) || arg_int(g, r, f->tag, &tag, e))
		return -1;
	rc = arg_comm(g, r, f->comm, &m->cr, e);
	if (rc)
		return rc;
	if (peer >= (int64_t)m->cr.size)
		return errat(g, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, peer, m->cr.size);
	if (tag < -1)
		tag = ANY;
	m->size = (uint64_t)cnt * tsz;
	m->peer = peer == -1 ? ANY : (peer < 0 ? -2 : world_of(&m->cr, peer));
	m->tag = p2p_tag(g, &m->cr, tag);
	return 0;
}

/* allprof status "<src>,<tag>,<bytes>" (comm-relative source) of length len, mapped to the
 * world source and GOAL tag as for the matching send; 0 if it names no real source. */
static int status_str(gstate *g, const char *f, size_t len, const cref *cr, int64_t *src, int64_t *tag,
                      uint64_t *bytes)
{
	char tmp[80];
	int64_t a, b, c;
	if (len >= sizeof tmp)
		return 0;
	memcpy(tmp, f, len);
	tmp[len] = 0;
	if (ir_tf_triple(tmp, &a, &b, &c))
		return 0;
	if (a < 0 || a >= (int64_t)cr->size || c < 0)
		return 0;
	*src = world_of(cr, a);
	*tag = p2p_tag(g, cr, b);
	*bytes = (uint64_t)c;
	return 1;
}

static int status_of(gstate *g, const ir_rec *r, unsigned i, const cref *cr, int64_t *src, int64_t *tag,
                     uint64_t *bytes)
{
	if (g->R->flavor != IR_TRACE_ALLPROF || i >= r->nf)
		return 0;
	return status_str(g, r->f[i], strlen(r->f[i]), cr, src, tag, bytes);
}

static int stage_send(gstate *g, const p2p *m, ir_err *e)
{
	if (m->peer < 0)
		return 0;
	if (stage(g, IR_OP_SEND, m->peer, m->size, m->tag) < 0)
		return ir_errf(e, "out of memory");
	return count_pair(g, g->R->rank, (uint32_t)m->peer, 1, e);
}

static int stage_recv(gstate *g, const p2p *m, ir_err *e)
{
	if (m->peer < -1)
		return 0;
	if (stage(g, IR_OP_RECV, m->peer, m->size, m->tag) < 0)
		return ir_errf(e, "out of memory");
	if (m->peer == ANY) {
		g->wild[g->R->rank]++;
		return 0;
	}
	return count_pair(g, (uint32_t)m->peer, g->R->rank, 0, e);
}

static double pin_cost(gstate *g, uint64_t buf, uint64_t size)
{
	uint64_t n;
	if (!g->o->pin || !buf || !size)
		return 0;
	n = pin_new_bytes(g, buf, size);
	if (!n)
		return 0;
	return g->o->pin_a + g->o->pin_b * (double)n;
}

/* Complete the requests `keys` (a Wait/Test that finished them): a calc 0 requiring their ops. */
static int complete(gstate *g, const ir_rec *r, const uint64_t *keys, size_t n, const int64_t *st_src,
                    const int64_t *st_tag, const uint64_t *st_bytes, ir_err *e)
{
	uint32_t need[64];
	ir_tn needn[64];
	size_t nn = 0;
	emitted em;
	uint32_t *big = NULL;
	uint32_t *lst = need;
	ir_tn *xs = needn;
	int rc = -1;
	if (n > 64) {
		big = malloc(n * (sizeof *big + sizeof *xs));
		if (!big)
			return ir_errf(e, "out of memory");
		lst = big;
		xs = (ir_tn *)(big + n);
	}
	for (size_t i = 0; i < n; i++) {
		req *q = req_get(g, keys[i]);
		if (!q || q->label == NOLABEL)
			continue;
		if (q->deferred) {
			/* the wildcard receive's definition, with the real source and tag when known */
			int64_t src = ANY, tag = q->tag;
			uint64_t bytes = q->size;
			if (st_src && st_src[i] != INT64_MIN) {
				src = st_src[i];
				tag = st_tag[i];
				bytes = st_bytes[i];
			}
			if (st_src && st_src[i] == ANY) {
				/* completed with source MPI_ANY_SOURCE: cancelled (MPI_Cancel), nothing
				 * was received, so no receive is replayed */
				if (def_calc(g, q->label, 0)) {
					ir_errf(e, "out of memory");
					goto out;
				}
				if (g->ts && q->node) {
					ir_ts_release(g->ts, q->node);
					ir_ts_unref(g->ts, q->pnode);
					q->pnode = 0;
				}
			} else {
				if (def_recv(g, q->label, src, bytes, tag)) {
					ir_errf(e, "out of memory");
					goto out;
				}
				if (src == ANY)
					g->wild[g->R->rank]++;
				else if (count_pair(g, (uint32_t)src, g->R->rank, 0, e))
					goto out;
				if (g->ts && q->node) {
					if (src == ANY || tag == ANY) {
						g->sync_wild++;
						ir_ts_release(g->ts, q->node);
					} else if (ir_ts_recv(g->ts, (uint32_t)src, g->R->rank, tag, q->pnode, q->node)) {
						ir_errf(e, "out of memory");
						goto out;
					}
					ir_ts_unref(g->ts, q->pnode);
					q->pnode = 0;
				}
			}
			q->deferred = 0;
		}
		xs[nn] = q->node; /* the reference moves to xs */
		q->node = 0;
		lst[nn++] = q->label;
		q->label = NOLABEL;
		if (!q->persistent && req_del(g, keys[i])) {
			ir_errf(e, "out of memory");
			goto out;
		}
	}
	if (nn == 0) { /* nothing known to complete: the call's time runs on as computation */
		rc = 0;
		goto out;
	}
	ir_cg_reset(&g->cg);
	if (stage(g, IR_OP_CALC, 0, 0, 0) < 0) {
		ir_errf(e, "out of memory");
		goto out;
	}
	g->xin = xs;
	g->nxin = nn;
	rc = emit_call(g, r, ENDS_OPS, 0, 0, &em, e);
	g->xin = NULL;
	g->nxin = 0;
	if (rc)
		goto out;
	for (size_t i = 0; i < nn; i++)
		if (edge(g, em.base, lst[i], 0)) {
			rc = ir_errf(e, "out of memory");
			goto out;
		}
out:
	if (g->ts)
		for (size_t i = 0; i < nn; i++)
			ir_ts_unref(g->ts, xs[i]);
	free(big);
	return rc;
}

/* Start a nonblocking operation staged as op 0; register it under `key`. */
static int start_nb(gstate *g, const ir_rec *r, uint64_t key, int is_send, const p2p *m, int persistent,
                    double extra, ir_err *e)
{
	emitted em;
	req *q;
	int deferred = 0;
	ir_cg_reset(&g->cg);
	if (is_send) {
		if (stage_send(g, m, e))
			return -1;
	} else if (m->peer >= -1) {
		/* an allprof wildcard: the definition waits for the completing call's status */
		deferred = g->R->flavor == IR_TRACE_ALLPROF && (m->peer == ANY || m->tag == ANY);
		if (deferred) {
			if (stage(g, IR_OP_RECV, m->peer, m->size, m->tag) < 0)
				return ir_errf(e, "out of memory");
			g->cg.op[g->cg.nop - 1].peer = 1; /* marker: definition deferred */
		} else if (stage_recv(g, m, e)) {
			return -1;
		}
	}
	if (emit_call(g, r, ENDS_OPS_IREQ, 0, extra, &em, e))
		return -1;
	if (!key)
		return 0;
	q = req_get(g, key);
	if (!q || !persistent) {
		q = req_new(g, key, e);
		if (!q)
			return -1;
	}
	q->persistent = (uint8_t)persistent;
	q->is_send = (uint8_t)is_send;
	q->peer = (int32_t)m->peer;
	q->tag = m->tag;
	q->size = m->size;
	q->seq = ++g->R->reqseq;
	q->label = g->cg.nop ? em.base : NOLABEL;
	q->deferred = (uint8_t)deferred;
	if (deferred) {
		/* the status names a comm-relative source and the application tag: keep what
		 * is needed to map them as the send side did (p2p_tag, world_of) */
		q->cworld = m->cr.c == &g->R->world;
		q->ckey = m->cr.c->key;
		q->members = m->cr.members;
		q->csize = m->cr.size;
	}
	if (g->ts && g->cg.nop) {
		ir_ts_unref(g->ts, q->node);
		ir_ts_unref(g->ts, q->pnode);
		q->node = g->tdone[0];
		ir_ts_ref(g->ts, q->node);
		q->pnode = 0;
		if (deferred) {
			q->pnode = g->tpost[0];
			ir_ts_ref(g->ts, q->pnode);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ collectives */

static int coll_seq_note(comm *c, int kind, int64_t root)
{
	c->chash = ir_hmix64(c->chash ^ ((uint64_t)(kind + 1) << 40) ^ (uint64_t)(root + 2));
	c->seq++;
	return 0;
}

static int get_list(gstate *g, const ir_rec *r, unsigned i, uint64_t *dst, uint32_t p, ir_err *e)
{
	long n = ir_tf_list(r->f[i], dst, p);
	if (n != (long)p) {
		char q[120];
		ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i]));
		return errat(g, e, "%s: argument %u: expected %u comma-separated counts, found '%s'", r->name, i + 1, p, q);
	}
	return 0;
}

/* allprof type list "<id>,<size>,<extent>;..." into sizes */
static int get_types(gstate *g, const ir_rec *r, unsigned i, uint64_t *dst, uint32_t p, ir_err *e)
{
	const char *s = r->f[i];
	for (uint32_t k = 0; k < p; k++) {
		const char *c1 = strchr(s, ','), *end = strchr(s, ';');
		uint64_t v = 0;
		int nd = 0;
		if (!c1 || (end && c1 > end))
			return bad_arg(g, r, i, "datatypes '<id>,<size>,<extent>;...'", e);
		for (const char *q = c1 + 1; *q >= '0' && *q <= '9' && nd < 12; q++, nd++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (!nd)
			return bad_arg(g, r, i, "datatypes '<id>,<size>,<extent>;...'", e);
		dst[k] = v;
		if (k + 1 < p) {
			if (!end)
				return bad_arg(g, r, i, "one datatype per rank", e);
			s = end + 1;
		}
	}
	return 0;
}

static int blk_room(gstate *g, uint32_t p, ir_err *e)
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

/* A nonblocking collective's request: completed by the Wait/Test that names it. */
static int reg_nbcoll(gstate *g, const ir_rec *r, const callinfo *ci, const emitted *em, ir_err *e)
{
	uint64_t key;
	req *q;
	if (arg_req(g, r, (unsigned)ci->freq, &key, e))
		return -1;
	q = req_new(g, key, e);
	if (key && !q)
		return -1;
	if (q) {
		q->label = em->join;
		q->seq = ++g->R->reqseq;
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

/* do_coll() and do_neigh() read some collectives with the field indices of another that has
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

static int do_coll(gstate *g, const ir_rec *r, const callinfo *ci, ir_err *e)
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

	rc = arg_comm(g, r, commf, &cr, e);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return 0; /* skipped: its time runs on as computation */
	p = cr.size;
	memset(&a, 0, sizeof a);
	a.p = p;
	a.r = cr.me;
	if (blk_room(g, p, e))
		return -1;
	switch (kind) {
	case IR_COLL_BARRIER:
		break;
	case IR_COLL_BCAST:
		if (arg_u64(g, r, F_MPI_Bcast_buf, &buf1, e) || arg_count(g, r, F_MPI_Bcast_count, &cnt, e) ||
		    arg_type(g, r, F_MPI_Bcast_type, &tsz, e) || arg_int(g, r, F_MPI_Bcast_root, &root, e))
			return -1;
		a.s = s1 = (uint64_t)cnt * tsz;
		break;
	case IR_COLL_REDUCE:
		if (arg_u64(g, r, F_MPI_Reduce_sbuf, &buf1, e) || arg_u64(g, r, F_MPI_Reduce_rbuf, &buf2, e) ||
		    arg_count(g, r, F_MPI_Reduce_count, &cnt, e) || arg_type(g, r, F_MPI_Reduce_type, &tsz, e) ||
		    arg_int(g, r, F_MPI_Reduce_root, &root, e))
			return -1;
		a.s = s1 = s2 = (uint64_t)cnt * tsz;
		break;
	case IR_COLL_ALLREDUCE: /* sbuf rbuf count type op comm */
	case IR_COLL_SCAN:
	case IR_COLL_EXSCAN:
	case IR_COLL_REDUCE_SCATTER_BLOCK: /* sbuf rbuf recvcount type op comm */
		if (arg_u64(g, r, F_MPI_Allreduce_sbuf, &buf1, e) || arg_u64(g, r, F_MPI_Allreduce_rbuf, &buf2, e) ||
		    arg_count(g, r, F_MPI_Allreduce_count, &cnt, e) || arg_type(g, r, F_MPI_Allreduce_type, &tsz, e))
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
		if (arg_u64(g, r, F_MPI_Gather_sbuf, &buf1, e) || arg_count(g, r, F_MPI_Gather_scount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Gather_stype, &tsz, e) || arg_u64(g, r, F_MPI_Gather_rbuf, &buf2, e) ||
		    arg_count(g, r, F_MPI_Gather_rcount, &cnt2, e) || arg_type(g, r, F_MPI_Gather_rtype, &tsz2, e))
			return -1;
		if (kind == IR_COLL_GATHER || kind == IR_COLL_SCATTER)
			if (arg_int(g, r, F_MPI_Gather_root, &root, e))
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
		if (arg_u64(g, r, F_MPI_Allgatherv_sbuf, &buf1, e) || arg_count(g, r, F_MPI_Allgatherv_scount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Allgatherv_stype, &tsz, e) || arg_u64(g, r, F_MPI_Allgatherv_rbuf, &buf2, e) ||
		    get_list(g, r, F_MPI_Allgatherv_recvcounts_list, g->blk, p, e) ||
		    arg_type(g, r, F_MPI_Allgatherv_rtype, &tsz2, e))
			return -1;
		for (uint32_t i = 0; i < p; i++)
			g->blk[i] *= tsz2;
		a.block = g->blk;
		s1 = in_place(r, F_MPI_Allgatherv_sbuf) ? g->blk[cr.me] : (uint64_t)cnt * tsz;
		break;
	case IR_COLL_ALLTOALLV:
		if (arg_u64(g, r, F_MPI_Alltoallv_rbuf, &buf2, e) ||
		    get_list(g, r, F_MPI_Alltoallv_recvcounts_list, g->rblk, p, e) ||
		    arg_type(g, r, F_MPI_Alltoallv_rtype, &tsz2, e))
			return -1;
		if (in_place(r, F_MPI_Alltoallv_sbuf)) { /* send arrays "0:-": the receive side's */
			memcpy(g->sblk, g->rblk, p * sizeof *g->sblk);
			tsz = tsz2;
		} else if (arg_u64(g, r, F_MPI_Alltoallv_sbuf, &buf1, e) ||
		           get_list(g, r, F_MPI_Alltoallv_sendcounts_list, g->sblk, p, e) ||
		           arg_type(g, r, F_MPI_Alltoallv_stype, &tsz, e)) {
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
			if (arg_u64(g, r, F_MPI_Alltoallw_sbuf, &buf1, e) ||
			    get_list(g, r, F_MPI_Alltoallw_sendcounts_list, g->sblk, p, e) ||
			    get_types(g, r, F_MPI_Alltoallw_sendtypes_list, g->blk, p, e))
				return -1;
			for (uint32_t i = 0; i < p; i++)
				g->sblk[i] *= g->blk[i];
		}
		if (arg_u64(g, r, F_MPI_Alltoallw_rbuf, &buf2, e) ||
		    get_list(g, r, F_MPI_Alltoallw_recvcounts_list, g->rblk, p, e) ||
		    get_types(g, r, F_MPI_Alltoallw_recvtypes_list, g->blk, p, e))
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
		if (arg_u64(g, r, F_MPI_Gatherv_sbuf, &buf1, e) || arg_count(g, r, F_MPI_Gatherv_scount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Gatherv_stype, &tsz, e) || arg_int(g, r, F_MPI_Gatherv_root, &root, e))
			return -1;
		a.s = s1 = (uint64_t)cnt * tsz;
		if (root == (int64_t)cr.me) {
			if (arg_u64(g, r, F_MPI_Gatherv_rbuf, &buf2, e) ||
			    get_list(g, r, F_MPI_Gatherv_recvcounts_list, g->blk, p, e) ||
			    arg_type(g, r, F_MPI_Gatherv_rtype, &tsz2, e))
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
		if (arg_u64(g, r, F_MPI_Scatterv_rbuf, &buf2, e) || arg_count(g, r, F_MPI_Scatterv_rcount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Scatterv_rtype, &tsz, e) || arg_int(g, r, F_MPI_Scatterv_root, &root, e))
			return -1;
		a.s = s2 = (uint64_t)cnt * tsz;
		if (root == (int64_t)cr.me) {
			if (arg_u64(g, r, F_MPI_Scatterv_sbuf, &buf1, e) ||
			    get_list(g, r, F_MPI_Scatterv_sendcounts_list, g->blk, p, e) ||
			    arg_type(g, r, F_MPI_Scatterv_stype, &tsz2, e))
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
		if (arg_u64(g, r, F_MPI_Reduce_scatter_sbuf, &buf1, e) || arg_u64(g, r, F_MPI_Reduce_scatter_rbuf, &buf2, e) ||
		    get_list(g, r, F_MPI_Reduce_scatter_recvcounts_list, g->blk, p, e) ||
		    arg_type(g, r, F_MPI_Reduce_scatter_type, &tsz, e))
			return -1;
		for (uint32_t i = 0; i < p; i++) {
			g->blk[i] *= tsz;
			s1 += g->blk[i];
		}
		s2 = g->blk[cr.me];
		a.block = g->blk;
		break;
	default:
		return errat(g, e, "%s: unsupported collective", r->name);
	}
	if (root < 0 || root >= (int64_t)p)
		return errat(g, e, "%s: root %" PRId64 " outside a communicator of %u ranks", r->name, root, p);
	a.root = (uint32_t)root;
	/* local work (docs/trace2goal.md, "Local work"): no copy of the own block in place */
	if (g->o->net.copy.n && !own_in_place(r, ci->coll, a.r == a.root))
		a.copy = &g->o->net.copy;
	if (g->o->net.reduce.n)
		a.reduce = &g->o->net.reduce;
	alg = g->alg[kind];
	if (ir_coll_build(&g->cg, kind, alg, &a, e))
		return ir_err_prefix(e, g->R->fname), -1;
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
	coll_seq_note(cr.c, kind, kind == IR_COLL_BCAST || kind == IR_COLL_REDUCE || kind == IR_COLL_GATHER ||
	                                  kind == IR_COLL_GATHERV || kind == IR_COLL_SCATTER || kind == IR_COLL_SCATTERV
	                              ? root
	                              : -1);
	extra = pin_cost(g, buf1, s1) + pin_cost(g, buf2, s2);
	if (emit_call(g, r, ci->nb ? ENDS_GAP : ENDS_JOIN, 1, extra, &em, e))
		return -1;
	return ci->nb ? reg_nbcoll(g, r, ci, &em, e) : 0;
}

/* ------------------------------------------------------------------ topologies */

static void topo_free(topo *t)
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
		topo_free(t);
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
static int get_ints(gstate *g, const ir_rec *r, unsigned i, uint64_t *dst, size_t n, ir_err *e)
{
	if (n == 0 && strcmp(r->f[i], "-") == 0)
		return 0;
	if (ir_tf_list(r->f[i], dst, n) != (long)n) {
		char q[120];
		ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i]));
		return errat(g, e, "%s: argument %u: expected %zu comma-separated integers, found '%s'", r->name, i + 1, n, q);
	}
	return 0;
}

/* Cart_create, Cart_sub, Graph_create, Dist_graph_create_adjacent: remember the new
 * communicator's neighbours until its '# comm' line gives its members. Their time counts as
 * computation. */
static int do_topo(gstate *g, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	int64_t id, me, sz, n1, n2;
	topo *t = NULL;
	uint64_t *a = NULL, *b = NULL;
	unsigned nc = ci->k == C_CART_CREATE ? F_MPI_Cart_create_newcomm
	              : ci->k == C_CART_SUB ? F_MPI_Cart_sub_newcomm
	              : ci->k == C_GRAPH_CREATE ? F_MPI_Graph_create_newcomm
	                                         : F_MPI_Dist_graph_create_adjacent_newcomm;
	int rc = -1;
	if (g->R->flavor != IR_TRACE_ALLPROF || ci->k == C_DIST_GRAPH)
		return 0; /* no communicator numbers (liballprof) or neighbours spread over ranks */
	if (ir_tf_triple(r->f[nc], &id, &me, &sz))
		return bad_arg(g, r, nc, "a communicator '<id>,<rank>,<size>'", e);
	if (id < 0 || me < 0 || me >= sz)
		return 0; /* MPI_COMM_NULL: this rank is not in the new communicator */
	switch (ci->k) {
	case C_CART_CREATE: /* comm ndims dims periods reorder newcomm */
	case C_CART_SUB: {  /* comm remain_dims newcomm */
		uint32_t nd;
		const topo *pt = NULL;
		if (ci->k == C_CART_CREATE) {
			if (arg_int(g, r, F_MPI_Cart_create_ndims, &n1, e))
				return -1;
			if (n1 < 0 || n1 > 64)
				return errat(g, e, "%s: argument %u: expected 0 to 64 dimensions, found %" PRId64, r->name,
				             F_MPI_Cart_create_ndims + 1, n1);
			nd = (uint32_t)n1;
		} else {
			cref cr;
			long k;
			uint64_t rem[64];
			int c = arg_comm(g, r, F_MPI_Cart_sub_comm, &cr, e);
			if (c)
				return c < 0 ? -1 : 0;
			pt = cr.c->tp;
			if (!pt || !pt->ndims)
				return 0; /* not Cartesian: nothing to derive */
			if ((k = ir_tf_list(r->f[F_MPI_Cart_sub_remain_dims], rem, 64)) != (long)pt->ndims)
				return bad_arg(g, r, F_MPI_Cart_sub_remain_dims, "one remain_dims flag per dimension", e);
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
			if (get_ints(g, r, F_MPI_Cart_create_dims, a, nd, e) || get_ints(g, r, F_MPI_Cart_create_periods, b, nd, e))
				goto out;
			for (uint32_t d = 0; d < nd; d++) {
				if (a[d] == 0 || a[d] > INT32_MAX || (prod *= (int64_t)a[d]) > INT32_MAX) {
					errat(g, e, "%s: argument %u: expected positive dimensions, found %" PRIu64, r->name,
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
		if (arg_int(g, r, F_MPI_Graph_create_nnodes, &n1, e))
			return -1;
		if (n1 <= 0 || n1 > (int64_t)g->nranks)
			return errat(g, e, "%s: argument %u: expected 1 to %u nodes, found %" PRId64, r->name,
			             F_MPI_Graph_create_nnodes + 1, g->nranks, n1);
		if (me >= n1)
			return 0;
		a = malloc((size_t)n1 * sizeof *a);
		if (!a)
			return ir_errf(e, "out of memory");
		if (get_ints(g, r, F_MPI_Graph_create_index, a, (size_t)n1, e))
			goto out;
		lo = me ? (int64_t)a[me - 1] : 0;
		hi = (int64_t)a[me];
		if (hi < lo || hi > (int64_t)a[n1 - 1] || a[n1 - 1] > (1u << 24)) {
			errat(g, e, "%s: argument %u: expected a non-decreasing index, found %" PRId64 " before %" PRId64, r->name,
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
			bad_arg(g, r, F_MPI_Graph_create_edges, "as many edges as the index says", e);
			goto out;
		}
		t = topo_new((uint32_t)(hi - lo), (uint32_t)(hi - lo), 0);
		if (!t) {
			ir_errf(e, "out of memory");
			goto out;
		}
		for (int64_t k = lo; k < hi; k++) {
			if (b[k] >= (uint64_t)n1) {
				errat(g, e, "%s: argument %u: edge to node %" PRIu64 " of a graph of %" PRId64, r->name,
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
		int c = arg_comm(g, r, F_MPI_Dist_graph_create_adjacent_comm, &cr, e);
		if (c)
			return c < 0 ? -1 : 0;
		if (arg_count(g, r, F_MPI_Dist_graph_create_adjacent_indegree, &n1, e) ||
		    arg_count(g, r, F_MPI_Dist_graph_create_adjacent_outdegree, &n2, e))
			return -1;
		if (n1 > (1 << 24) || n2 > (1 << 24))
			return errat(g, e, "%s: more than 2^24 neighbours", r->name);
		t = topo_new((uint32_t)n1, (uint32_t)n2, 0);
		a = malloc(((size_t)(n1 > n2 ? n1 : n2) + 1) * sizeof *a);
		if (!t || !a) {
			ir_errf(e, "out of memory");
			goto out;
		}
		for (int k = 0; k < 2; k++) {
			int64_t n = k ? n2 : n1;
			if (get_ints(g, r,
			             k ? F_MPI_Dist_graph_create_adjacent_destinations : F_MPI_Dist_graph_create_adjacent_sources,
			             a, (size_t)n, e))
				goto out;
			for (int64_t j = 0; j < n; j++) {
				if (a[j] >= cr.size) {
					errat(g, e, "%s: argument %u: neighbour %" PRIu64 " outside a communicator of %u ranks", r->name,
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
	topo_free(g->R->ptopo);
	g->R->ptopo = t;
	t = NULL;
	rc = 0;
out:
	topo_free(t);
	free(a);
	free(b);
	return rc;
}

/* Neighbourhood collectives: a receive from every in-neighbour and a send to every
 * out-neighbour, all at once, with the communicator's collective tag. */
static int do_neigh(gstate *g, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	unsigned commf = (unsigned)ci->fcomm;
	cref cr;
	const topo *t;
	int rc = arg_comm(g, r, commf, &cr, e);
	uint64_t sbuf = 0, rbuf = 0, stot = 0, rtot = 0, ssz = 0, rsz = 0, tsz;
	int64_t cnt;
	int64_t tag;
	emitted em;
	if (rc)
		return rc < 0 ? -1 : 0;
	t = cr.c->tp;
	if (!t || t->rel) {
		if (!g->no_topo++)
			warn(g, "%s:%lu: %s on a communicator without a known topology skipped (Cart_create, Cart_sub, "
			     "Graph_create and Dist_graph_create_adjacent of allprof traces are known; see the count at the "
			     "end)", g->R->fname, g->R->line, r->name);
		return 0;
	}
	if (blk_room(g, (t->nin > t->nout ? t->nin : t->nout) + 1, e))
		return -1;
	switch (ci->coll) {
	case NB_ALLGATHER:
	case NB_ALLTOALL:
		if (arg_u64(g, r, F_MPI_Neighbor_allgather_sbuf, &sbuf, e) ||
		    arg_count(g, r, F_MPI_Neighbor_allgather_scount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Neighbor_allgather_stype, &tsz, e))
			return -1;
		ssz = (uint64_t)cnt * tsz;
		if (arg_u64(g, r, F_MPI_Neighbor_allgather_rbuf, &rbuf, e) ||
		    arg_count(g, r, F_MPI_Neighbor_allgather_rcount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Neighbor_allgather_rtype, &tsz, e))
			return -1;
		rsz = (uint64_t)cnt * tsz;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] = ssz;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] = rsz;
		break;
	case NB_ALLGATHERV:
		if (arg_u64(g, r, F_MPI_Neighbor_allgatherv_sbuf, &sbuf, e) ||
		    arg_count(g, r, F_MPI_Neighbor_allgatherv_scount, &cnt, e) ||
		    arg_type(g, r, F_MPI_Neighbor_allgatherv_stype, &tsz, e))
			return -1;
		ssz = (uint64_t)cnt * tsz;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] = ssz;
		if (arg_u64(g, r, F_MPI_Neighbor_allgatherv_rbuf, &rbuf, e) ||
		    arg_type(g, r, F_MPI_Neighbor_allgatherv_rtype, &tsz, e) ||
		    get_ints(g, r, F_MPI_Neighbor_allgatherv_recvcounts_list, g->rblk, t->nin, e))
			return -1;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] *= tsz;
		break;
	case NB_ALLTOALLV:
		if (arg_u64(g, r, F_MPI_Neighbor_alltoallv_sbuf, &sbuf, e) ||
		    arg_type(g, r, F_MPI_Neighbor_alltoallv_stype, &tsz, e) ||
		    get_ints(g, r, F_MPI_Neighbor_alltoallv_sendcounts_list, g->sblk, t->nout, e))
			return -1;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] *= tsz;
		if (arg_u64(g, r, F_MPI_Neighbor_alltoallv_rbuf, &rbuf, e) ||
		    arg_type(g, r, F_MPI_Neighbor_alltoallv_rtype, &tsz, e) ||
		    get_ints(g, r, F_MPI_Neighbor_alltoallv_recvcounts_list, g->rblk, t->nin, e))
			return -1;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] *= tsz;
		break;
	case NB_ALLTOALLW:
		if (arg_u64(g, r, F_MPI_Neighbor_alltoallw_sbuf, &sbuf, e) ||
		    get_ints(g, r, F_MPI_Neighbor_alltoallw_sendcounts_list, g->sblk, t->nout, e) ||
		    (t->nout && get_types(g, r, F_MPI_Neighbor_alltoallw_sendtypes_list, g->blk, t->nout, e)))
			return -1;
		for (uint32_t k = 0; k < t->nout; k++)
			g->sblk[k] *= g->blk[k];
		if (arg_u64(g, r, F_MPI_Neighbor_alltoallw_rbuf, &rbuf, e) ||
		    get_ints(g, r, F_MPI_Neighbor_alltoallw_recvcounts_list, g->rblk, t->nin, e) ||
		    (t->nin && get_types(g, r, F_MPI_Neighbor_alltoallw_recvtypes_list, g->blk, t->nin, e)))
			return -1;
		for (uint32_t k = 0; k < t->nin; k++)
			g->rblk[k] *= g->blk[k];
		break;
	default:
		return errat(g, e, "%s: unsupported collective", r->name);
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
		if (count_pair(g, (uint32_t)peer, g->R->rank, 0, e))
			return -1;
	}
	for (uint32_t k = 0; k < t->nout; k++) {
		int32_t peer = t->nbr[t->nin + k];
		stot += g->sblk[k];
		if (peer < 0)
			continue;
		if (stage(g, IR_OP_SEND, peer, g->sblk[k], tag) < 0)
			return ir_errf(e, "out of memory");
		if (count_pair(g, g->R->rank, (uint32_t)peer, 1, e))
			return -1;
	}
	if (ci->coll == NB_ALLGATHER || ci->coll == NB_ALLGATHERV)
		stot = ssz; /* one send buffer for every neighbour */
	coll_seq_note(cr.c, IR_COLL_NKINDS + ci->coll, -1);
	if (emit_call(g, r, ci->nb ? ENDS_GAP : ENDS_JOIN, 1, pin_cost(g, sbuf, stot) + pin_cost(g, rbuf, rtot), &em, e))
		return -1;
	return ci->nb ? reg_nbcoll(g, r, ci, &em, e) : 0;
}

/* ------------------------------------------------------------------ matched probes */

/* message field "m<id>" (allprof) or an address (key 0: MPI_MESSAGE_NULL / NO_PROC) */
static int arg_msg(gstate *g, const ir_rec *r, unsigned i, uint64_t *key, ir_err *e)
{
	const char *f = r->f[i];
	uint64_t v = 0;
	int id = 0;
	if (f[0] == 'm') {
		int nd = 0;
		for (f++; *f >= '0' && *f <= '9' && nd < 18; f++, nd++)
			v = v * 10 + (uint64_t)(*f - '0');
		if (!nd || *f)
			return bad_arg(g, r, i, "a message 'm<id>'", e);
	} else if (ir_tf_handle(f, &v, &id)) {
		return bad_arg(g, r, i, "a message 'm<id>' or an address", e);
	}
	*key = v ? (v & ~((uint64_t)3 << 62)) | ((uint64_t)1 << 62) : 0;
	return 0;
}

/* Mprobe, Improbe: remember the matched message (source, tag, bytes) under its handle.
 * Mprobe is converted like Probe; Improbe like Iprobe (its time runs on). */
static int do_mprobe(gstate *g, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	cref cr;
	uint64_t key, bytes = 0;
	int64_t src, tag, flag = 1;
	int mp = ci->k == C_MPROBE;
	int rc = arg_comm(g, r, mp ? F_MPI_Mprobe_comm : F_MPI_Improbe_comm, &cr, e);
	emitted em;
	req *q;
	if (rc)
		return rc < 0 ? -1 : 0;
	if (!mp && (ir_tf_int(r->f[F_MPI_Improbe_flag], &flag) || flag != 1))
		return 0; /* nothing matched (liballprof writes the flag's address: nothing known) */
	if (arg_msg(g, r, mp ? F_MPI_Mprobe_message : F_MPI_Improbe_message, &key, e) ||
	    arg_int(g, r, mp ? F_MPI_Mprobe_source : F_MPI_Improbe_source, &src, e) ||
	    arg_int(g, r, mp ? F_MPI_Mprobe_tag : F_MPI_Improbe_tag, &tag, e))
		return -1;
	if (src >= (int64_t)cr.size)
		return errat(g, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, src, cr.size);
	src = src == -1 ? ANY : (src < 0 ? -2 : world_of(&cr, src));
	tag = p2p_tag(g, &cr, tag < -1 ? -1 : tag);
	status_of(g, r, mp ? F_MPI_Mprobe_status : F_MPI_Improbe_status, &cr, &src, &tag, &bytes);
	if (key) {
		q = req_new(g, key, e);
		if (!q)
			return -1;
		q->peer = (int32_t)src;
		q->tag = tag;
		q->size = bytes;
		q->persistent = 2; /* a message, not a request: its size may be unknown (0) */
	}
	if (ci->k == C_IMPROBE || g->o->compat_schedgen)
		return 0;
	ir_cg_reset(&g->cg);
	g->no_dur = 1; /* as Probe: the Mrecv replays the waiting (--sync: the Mprobe does) */
	rc = emit_call(g, r, ENDS_GAP, 0, 0, &em, e);
	g->no_dur = 0;
	return rc;
}

/* Mrecv, Imrecv: the receive of a matched message. */
static int do_mrecv(gstate *g, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	uint64_t key, tsz, rkey = 0;
	int64_t cnt;
	req *q;
	p2p m;
	emitted em;
	/* Mrecv: buf count type message status; Imrecv: buf count type message request */
	_Static_assert(F_MPI_Mrecv_buf == F_MPI_Imrecv_buf && F_MPI_Mrecv_count == F_MPI_Imrecv_count &&
	                   F_MPI_Mrecv_type == F_MPI_Imrecv_type && F_MPI_Mrecv_message == F_MPI_Imrecv_message,
	               "Mrecv and Imrecv begin with the same fields");
	memset(&m, 0, sizeof m);
	if (arg_u64(g, r, F_MPI_Mrecv_buf, &m.buf, e) || arg_count(g, r, F_MPI_Mrecv_count, &cnt, e) ||
	    arg_type(g, r, F_MPI_Mrecv_type, &tsz, e) || arg_msg(g, r, F_MPI_Mrecv_message, &key, e))
		return -1;
	if (ci->k == C_IMRECV && arg_req(g, r, F_MPI_Imrecv_request, &rkey, e))
		return -1;
	if (!key)
		return 0; /* MPI_MESSAGE_NO_PROC: nothing is received */
	q = req_get(g, key);
	if (!q || q->persistent != 2) {
		char qq[120];
		ir_err_quote(qq, sizeof qq, r->f[F_MPI_Mrecv_message], strlen(r->f[F_MPI_Mrecv_message]));
		return errat(g, e, "%s: message '%s' was not matched by an earlier MPI_Mprobe or MPI_Improbe", r->name, qq);
	}
	m.peer = q->peer;
	m.tag = q->tag;
	m.size = q->size ? q->size : (uint64_t)cnt * tsz;
	if (req_del(g, key))
		return ir_errf(e, "out of memory");
	if (ci->k == C_IMRECV)
		return start_nb(g, r, rkey, 0, &m, 0, pin_cost(g, m.buf, m.size), e);
	ir_cg_reset(&g->cg);
	if (stage_recv(g, &m, e))
		return -1;
	return emit_call(g, r, ENDS_OPS, 0, pin_cost(g, m.buf, m.size), &em, e);
}

/* ------------------------------------------------------------------ requests of Wait/Test */

/* Keys of a request array field: allprof "r1,r2" or a liballprof base address (+8 per entry). */
static int req_array(gstate *g, const ir_rec *r, unsigned i, int64_t count, uint64_t **keys, ir_err *e)
{
	const char *f = r->f[i];
	uint64_t *k;
	if (count < 0 || count > (1 << 24))
		return errat(g, e, "%s: request count %" PRId64 " out of range", r->name, count);
	k = malloc(((size_t)count + 1) * sizeof *k);
	if (!k)
		return ir_errf(e, "out of memory");
	if (count == 0 && strcmp(f, "-") == 0) { /* allprof: no requests (formats/trace.md 3.4) */
		*keys = k;
		return 0;
	}
	if (f[0] == 'r') {
		const char *p = f;
		int64_t n = 0;
		while (*p && n < count) {
			uint64_t v = 0;
			int nd = 0;
			if (*p == 'r')
				p++;
			while (*p >= '0' && *p <= '9' && nd < 19) {
				v = v * 10 + (uint64_t)(*p++ - '0');
				nd++;
			}
			if (!nd) {
				free(k);
				return bad_arg(g, r, i, "request ids 'r<n>,r<n>,...'", e);
			}
			k[n++] = v | ((uint64_t)1 << 63);
			if (*p == ',')
				p++;
		}
		while (n < count)
			k[n++] = 0;
	} else {
		uint64_t base;
		if (arg_u64(g, r, i, &base, e)) {
			free(k);
			return -1;
		}
		for (int64_t j = 0; j < count; j++)
			k[j] = base ? base + 8 * (uint64_t)j : 0;
	}
	*keys = k;
	return 0;
}

/* liballprof records neither which request a Waitany/Waitsome completed nor whether a Test
 * succeeded: say once per rank how that was resolved (docs/trace2goal.md, section 3). */
static void warn_guess(gstate *g, const ir_rec *r, int test)
{
	rstate *R = g->R;
	if (test) {
		g->test_never++;
		if (!R->warned_test++)
			warn(g, "%s:%lu: %s: liballprof traces do not record whether a test succeeded: tests complete no "
			     "request on this rank (their time counts as computation; a later wait completes the request)",
			     R->fname, R->line, r->name);
	} else {
		g->any_guess++;
		if (!R->warned_any++)
			warn(g, "%s:%lu: %s: liballprof traces do not record which request completed: the earliest posted "
			     "active one is taken, on this rank and below", R->fname, R->line, r->name);
	}
}

/* The real source, tag and size of the deferred wildcard receives among the requests
 * keys[0..n) that an allprof Wait/Test-family call completed, from its status field i (n
 * statuses joined by ';', entry j for keys[j]; a single status when n is 1). A status names
 * a source relative to the receive's communicator and the application's tag: both are mapped
 * as for the matching send (world_of, p2p_tag). *st is NULL when no request needs a status
 * (nothing allocated); otherwise st[j] is the source (INT64_MIN: unknown, the receive stays a
 * wildcard; ANY: the status names MPI_ANY_SOURCE, the receive was cancelled), st[n + j] the
 * tag, st[2n + j] the bytes. */
static int wild_statuses(gstate *g, const ir_rec *r, unsigned i, const uint64_t *keys, size_t n, int64_t **st,
                         ir_err *e)
{
	const char *f, *p;
	int64_t *v;
	size_t j;
	*st = NULL;
	if (g->R->flavor != IR_TRACE_ALLPROF || i >= r->nf)
		return 0;
	for (j = 0; j < n; j++) {
		req *q = keys[j] ? req_get(g, keys[j]) : NULL;
		if (q && q->label != NOLABEL && q->deferred)
			break;
	}
	if (j == n)
		return 0;
	v = malloc(3 * n * sizeof *v);
	if (!v)
		return ir_errf(e, "out of memory");
	f = r->f[i];
	p = f;
	for (j = 0; j < n; j++) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		req *q = keys[j] ? req_get(g, keys[j]) : NULL;
		uint64_t bytes = 0;
		v[j] = INT64_MIN;
		v[n + j] = 0;
		v[2 * n + j] = 0;
		if (q && q->label != NOLABEL && q->deferred) {
			cref cr = { 0 };
			comm kc = { 0 };
			kc.key = q->ckey;
			cr.size = q->csize;
			cr.members = q->members;
			cr.c = q->cworld ? &g->R->world : &kc;
			if (status_str(g, p, len, &cr, &v[j], &v[n + j], &bytes))
				v[2 * n + j] = (int64_t)bytes;
			else if (len >= 3 && !strncmp(p, "-1,", 3))
				v[j] = ANY; /* source MPI_ANY_SOURCE: cancelled (see complete()) */
			else
				v[j] = INT64_MIN;
		}
		p = end ? end + 1 : p + len;
	}
	*st = v;
	return 0;
}

/* complete() with the recorded statuses of field i for the deferred wildcards among keys. */
static int complete_st(gstate *g, const ir_rec *r, const uint64_t *keys, size_t n, unsigned i, ir_err *e)
{
	int64_t *st;
	int rc;
	if (wild_statuses(g, r, i, keys, n, &st, e))
		return -1;
	if (!st)
		return complete(g, r, keys, n, NULL, NULL, NULL, e);
	rc = complete(g, r, keys, n, st, st + n, (const uint64_t *)(st + 2 * n), e);
	free(st);
	return rc;
}

static int do_wait_family(gstate *g, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	uint64_t key, *keys = NULL;
	int64_t count = 1, idx;
	int rc = 0;
	int allprof = g->R->flavor == IR_TRACE_ALLPROF;
	switch (ci->k) {
	case C_WAIT: /* request status */
	case C_TEST: /* request flag status */
		if (arg_req(g, r, ci->k == C_WAIT ? F_MPI_Wait_request : F_MPI_Test_request, &key, e))
			return -1;
		if (ci->k == C_TEST) {
			int64_t flag = 0;
			/* liballprof writes the flag's address: a Test is then a poll that completes nothing */
			if (!allprof) {
				warn_guess(g, r, 1);
				return 0;
			}
			if (ir_tf_int(r->f[F_MPI_Test_flag], &flag) || flag != 1)
				return 0;
		}
		return complete_st(g, r, &key, 1, ci->k == C_WAIT ? F_MPI_Wait_status : F_MPI_Test_status, e);
	case C_WAITALL:  /* count requests statuses */
	case C_TESTALL:  /* count requests flag statuses */
		if (arg_count(g, r, ci->k == C_WAITALL ? F_MPI_Waitall_count : F_MPI_Testall_count, &count, e) ||
		    req_array(g, r, ci->k == C_WAITALL ? F_MPI_Waitall_requests : F_MPI_Testall_requests, count, &keys, e))
			return -1;
		if (ci->k == C_TESTALL) {
			int64_t flag = 0;
			if (!allprof)
				warn_guess(g, r, 1);
			if (!allprof || ir_tf_int(r->f[F_MPI_Testall_flag], &flag) || flag != 1) {
				free(keys);
				return 0;
			}
		}
		rc = complete_st(g, r, keys, (size_t)count,
		                 ci->k == C_WAITALL ? F_MPI_Waitall_statuses : F_MPI_Testall_statuses, e);
		free(keys);
		return rc;
	case C_WAITANY: /* count requests index status */
	case C_TESTANY: /* count requests index flag status */
		if (arg_count(g, r, ci->k == C_WAITANY ? F_MPI_Waitany_count : F_MPI_Testany_count, &count, e) ||
		    req_array(g, r, ci->k == C_WAITANY ? F_MPI_Waitany_requests : F_MPI_Testany_requests, count, &keys, e))
			return -1;
		if (allprof) {
			if (ir_tf_int(r->f[ci->k == C_WAITANY ? F_MPI_Waitany_index : F_MPI_Testany_index], &idx) || idx < 0 ||
			    idx >= count) {
				free(keys);
				return 0; /* MPI_UNDEFINED or not completed */
			}
		} else {
			/* liballprof does not say which completed: the earliest posted active one */
			int64_t best = -1, bseq = INT64_MAX;
			if (ci->k == C_TESTANY) {
				warn_guess(g, r, 1);
				free(keys);
				return 0;
			}
			for (int64_t j = 0; j < count; j++) {
				req *q = req_get(g, keys[j]);
				if (q && q->label != NOLABEL && q->seq < bseq) {
					bseq = q->seq;
					best = j;
				}
			}
			idx = best;
			if (idx >= 0)
				warn_guess(g, r, 0);
			if (idx < 0) {
				free(keys);
				return 0;
			}
		}
		/* allprof only (liballprof returned above or guessed): the recorded status */
		if (allprof)
			rc = complete_st(g, r, &keys[idx], 1, ci->k == C_WAITANY ? F_MPI_Waitany_status : F_MPI_Testany_status,
			                 e);
		else
			rc = complete(g, r, &keys[idx], 1, NULL, NULL, NULL, e);
		free(keys);
		return rc;
	case C_WAITSOME: /* incount requests outcount indices statuses */
	case C_TESTSOME: {
		uint64_t *ix, *sel;
		long n;
		/* Waitsome and Testsome have the same fields */
		_Static_assert(F_MPI_Waitsome_incount == F_MPI_Testsome_incount &&
		                   F_MPI_Waitsome_requests == F_MPI_Testsome_requests &&
		                   F_MPI_Waitsome_indices == F_MPI_Testsome_indices &&
		                   F_MPI_Waitsome_statuses == F_MPI_Testsome_statuses,
		               "Waitsome and Testsome have the same fields");
		if (arg_count(g, r, F_MPI_Waitsome_incount, &count, e) ||
		    req_array(g, r, F_MPI_Waitsome_requests, count, &keys, e))
			return -1;
		if (!allprof) {
			if (ci->k == C_WAITSOME) {
				/* as Waitany: the earliest posted active request */
				int64_t best = -1, bseq = INT64_MAX;
				for (int64_t j = 0; j < count; j++) {
					req *q = req_get(g, keys[j]);
					if (q && q->label != NOLABEL && q->seq < bseq) {
						bseq = q->seq;
						best = j;
					}
				}
				if (best >= 0) {
					warn_guess(g, r, 0);
					rc = complete(g, r, &keys[best], 1, NULL, NULL, NULL, e);
				}
			} else {
				warn_guess(g, r, 1);
			}
			free(keys);
			return rc;
		}
		ix = malloc(((size_t)count + 1) * sizeof *ix);
		sel = malloc(((size_t)count + 1) * sizeof *sel);
		if (!ix || !sel) {
			free(ix);
			free(sel);
			free(keys);
			return ir_errf(e, "out of memory");
		}
		n = ir_tf_list(r->f[F_MPI_Waitsome_indices], ix, (size_t)count);
		if (n < 0)
			n = 0;
		for (long j = 0; j < n; j++)
			sel[j] = ix[j] < (uint64_t)count ? keys[ix[j]] : 0;
		rc = complete_st(g, r, sel, (size_t)n, F_MPI_Waitsome_statuses, e);
		free(ix);
		free(sel);
		free(keys);
		return rc;
	}
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ one call */

static int note_unknown(gstate *g, const char *name, ir_err *e)
{
	for (size_t i = 0; i < g->nunknown; i++)
		if (strcmp(g->unknown[i].name, name) == 0) {
			g->unknown[i].count++;
			return 0;
		}
	{
		unk *n = realloc(g->unknown, (g->nunknown + 1) * sizeof *n);
		if (!n)
			return ir_errf(e, "out of memory");
		g->unknown = n;
		n[g->nunknown].name = strdup(name);
		if (!n[g->nunknown].name)
			return ir_errf(e, "out of memory");
		n[g->nunknown].count = 1;
		g->nunknown++;
	}
	return 0;
}

static int do_call(gstate *g, const ir_rec *r, ir_err *e)
{
	const callinfo *ci = find_call(r->name);
	int compat = g->o->compat_schedgen;
	p2p m;
	emitted em;
	int rc;
	uint64_t key;

	if (!ci) {
		if (is_local(r->name))
			return 0;
		return note_unknown(g, r->name, e);
	}
	if (g->R->flavor == IR_TRACE_ALLPROF && (ci->k == C_TEST || ci->k == C_TESTALL || ci->k == C_TESTANY ||
	                                      ci->k == C_TESTSOME || ci->k == C_IPROBE || ci->k == C_IMPROBE) &&
	    r->nf == ci->nf + 1) {
		/* allprof writes polls with a repeat count before the return time */
		((ir_rec *)r)->nf--;
	}
	if (ci->k != C_LOCAL && ci->nf && r->nf != ci->nf)
		return errat(g, e, "%s: expected %u arguments, found %u", r->name, ci->nf, r->nf);
	if (ci->k != C_INIT && ci->k != C_FINALIZE && (r->t_call == IR_TIME_NONE || r->t_ret == IR_TIME_NONE))
		return errat(g, e, "%s: expected a call time and a return time, found '-'", r->name);
	if (ci->k != C_INIT && !g->R->started) {
		g->R->started = 1;
		g->R->gap_start = r->t_call != IR_TIME_NONE ? r->t_call : 0;
		if (sync_lead(g, g->R->gap_start, e))
			return -1;
	}
	ir_cg_reset(&g->cg);
	switch (ci->k) {
	case C_LOCAL:
		return 0;
	case C_INIT:
		if (r->t_ret == IR_TIME_NONE)
			return errat(g, e, "%s: expected a return time, found '-'", r->name);
		g->R->gap_start = r->t_ret;
		g->R->started = 1;
		return sync_lead(g, r->t_ret, e);
	case C_FINALIZE: {
		int64_t t = r->t_call, gap;
		uint32_t l;
		if (t == IR_TIME_NONE)
			return errat(g, e, "%s: expected a call time, found '-'", r->name);
		gap = t - g->R->gap_start;
		if (gap < 0) {
			g->neg_gaps++;
			gap = 0;
		}
		l = new_label(g);
		if (def_calc(g, l, scale_calc(g, (double)gap)))
			return ir_errf(e, "out of memory");
		for (size_t i = 0; i < g->R->nends; i++)
			if (edge(g, l, g->R->ends[i], g->R->ends_ireq[i]))
				return ir_errf(e, "out of memory");
		g->st->ops++;
		g->R->finished = 1;
		return 0;
	}
	case C_SEND:
		rc = parse_p2p(g, r, &f_send, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (stage_send(g, &m, e))
			return -1;
		return emit_call(g, r, ENDS_OPS, 0, pin_cost(g, m.buf, m.size), &em, e);
	case C_RECV: {
		int64_t s, t;
		uint64_t b;
		rc = parse_p2p(g, r, &f_recv, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if ((m.peer == ANY || m.tag == ANY) && status_of(g, r, F_MPI_Recv_status, &m.cr, &s, &t, &b)) {
			m.peer = s;
			m.tag = t;
			m.size = b;
		}
		if (stage_recv(g, &m, e))
			return -1;
		return emit_call(g, r, ENDS_OPS, 0, pin_cost(g, m.buf, m.size), &em, e);
	}
	case C_ISEND:
	case C_IRECV:
		rc = parse_p2p(g, r, ci->k == C_ISEND ? &f_isend : &f_irecv, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (arg_req(g, r, ci->k == C_ISEND ? F_MPI_Isend_request : F_MPI_Irecv_request, &key, e))
			return -1;
		return start_nb(g, r, key, ci->k == C_ISEND, &m, 0, pin_cost(g, m.buf, m.size), e);
	case C_SEND_INIT:
	case C_RECV_INIT: {
		req *q;
		rc = parse_p2p(g, r, ci->k == C_SEND_INIT ? &f_send_init : &f_recv_init, &m, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (arg_req(g, r, ci->k == C_SEND_INIT ? F_MPI_Send_init_request : F_MPI_Recv_init_request, &key, e))
			return -1;
		q = req_new(g, key, e);
		if (!q)
			return key ? -1 : 0;
		q->persistent = 1;
		q->is_send = ci->k == C_SEND_INIT;
		q->peer = (int32_t)m.peer;
		q->tag = m.tag;
		q->size = m.size;
		q->label = NOLABEL;
		return 0; /* local: its time runs on as computation */
	}
	case C_START:
	case C_STARTALL: {
		int64_t count = 1;
		uint64_t *keys = NULL;
		if (ci->k == C_START) {
			if (arg_req(g, r, F_MPI_Start_request, &key, e))
				return -1;
			keys = malloc(sizeof *keys);
			if (!keys)
				return ir_errf(e, "out of memory");
			keys[0] = key;
		} else if (arg_count(g, r, F_MPI_Startall_count, &count, e) ||
		           req_array(g, r, F_MPI_Startall_requests, count, &keys, e)) {
			return -1;
		}
		ir_cg_reset(&g->cg);
		for (int64_t j = 0; j < count; j++) {
			req *q = req_get(g, keys[j]);
			p2p pm;
			if (!q || !q->persistent)
				continue;
			pm.peer = q->peer;
			pm.tag = q->tag;
			pm.size = q->size;
			if ((q->is_send ? stage_send(g, &pm, e) : stage_recv(g, &pm, e))) {
				free(keys);
				return -1;
			}
		}
		if (emit_call(g, r, ENDS_OPS_IREQ, 0, 0, &em, e)) {
			free(keys);
			return -1;
		}
		{
			uint32_t next = em.base;
			for (int64_t j = 0; j < count; j++) {
				req *q = req_get(g, keys[j]);
				if (!q || !q->persistent)
					continue;
				q->label = q->peer < -1 ? NOLABEL : next++;
				q->seq = ++g->R->reqseq;
				if (g->ts && q->label != NOLABEL) {
					ir_ts_unref(g->ts, q->node);
					q->node = g->tdone[q->label - em.base];
					ir_ts_ref(g->ts, q->node);
				}
			}
		}
		free(keys);
		return 0;
	}
	case C_SENDRECV:
	case C_SENDRECV_REPLACE: {
		/* Sendrecv: sbuf scount stype dest stag rbuf rcount rtype source rtag comm status
		 * Sendrecv_replace: buf count type dest stag source rtag comm status */
		static const p2pf f_sr = { F_MPI_Sendrecv_sbuf, F_MPI_Sendrecv_scount, F_MPI_Sendrecv_stype,
			                   F_MPI_Sendrecv_dest, F_MPI_Sendrecv_stag, F_MPI_Sendrecv_comm },
			          f_srr = { F_MPI_Sendrecv_replace_buf, F_MPI_Sendrecv_replace_count,
			                    F_MPI_Sendrecv_replace_type, F_MPI_Sendrecv_replace_dest,
			                    F_MPI_Sendrecv_replace_stag, F_MPI_Sendrecv_replace_comm };
		const p2pf *sf = ci->k == C_SENDRECV ? &f_sr : &f_srr; /* the send's fields */
		unsigned stf = ci->k == C_SENDRECV ? F_MPI_Sendrecv_status : F_MPI_Sendrecv_replace_status;
		p2p s, rv;
		int64_t cnt, peer, tag, st_s, st_t;
		uint64_t tsz, b;
		rc = arg_comm(g, r, sf->comm, &s.cr, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		rv.cr = s.cr;
		if (arg_u64(g, r, sf->buf, &s.buf, e) || arg_count(g, r, sf->count, &cnt, e) ||
		    arg_type(g, r, sf->type, &tsz, e) || arg_int(g, r, sf->peer, &peer, e) || arg_int(g, r, sf->tag, &tag, e))
			return -1;
		if (peer >= (int64_t)s.cr.size)
			return errat(g, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, peer, s.cr.size);
		s.size = (uint64_t)cnt * tsz;
		s.peer = peer < 0 ? -2 : world_of(&s.cr, peer);
		s.tag = p2p_tag(g, &s.cr, tag);
		if (ci->k == C_SENDRECV) {
			if (arg_u64(g, r, F_MPI_Sendrecv_rbuf, &rv.buf, e) || arg_count(g, r, F_MPI_Sendrecv_rcount, &cnt, e) ||
			    arg_type(g, r, F_MPI_Sendrecv_rtype, &tsz, e) || arg_int(g, r, F_MPI_Sendrecv_source, &peer, e) ||
			    arg_int(g, r, F_MPI_Sendrecv_rtag, &tag, e))
				return -1;
		} else {
			rv.buf = s.buf;
			if (arg_int(g, r, F_MPI_Sendrecv_replace_source, &peer, e) ||
			    arg_int(g, r, F_MPI_Sendrecv_replace_rtag, &tag, e))
				return -1;
		}
		if (peer >= (int64_t)s.cr.size)
			return errat(g, e, "%s: peer %" PRId64 " outside a communicator of %u ranks", r->name, peer, s.cr.size);
		rv.size = (uint64_t)cnt * tsz;
		rv.peer = peer == -1 ? ANY : (peer < 0 ? -2 : world_of(&s.cr, peer));
		rv.tag = p2p_tag(g, &s.cr, tag < -1 ? -1 : tag);
		if ((rv.peer == ANY || rv.tag == ANY) && status_of(g, r, stf, &s.cr, &st_s, &st_t, &b)) {
			rv.peer = st_s;
			rv.tag = st_t;
			rv.size = b;
		}
		if (stage_send(g, &s, e) || stage_recv(g, &rv, e))
			return -1;
		return emit_call(g, r, ENDS_OPS, 0, pin_cost(g, s.buf, s.size) + pin_cost(g, rv.buf, rv.size), &em, e);
	}
	case C_WAIT:
	case C_WAITALL:
	case C_WAITANY:
	case C_WAITSOME:
		return do_wait_family(g, r, ci, e);
	case C_TEST:
	case C_TESTALL:
	case C_TESTANY:
	case C_TESTSOME:
		if (compat)
			return 0; /* Schedgen ignores tests */
		return do_wait_family(g, r, ci, e);
	case C_PROBE:
		if (compat)
			return 0;
		/* the waiting happens again in the receive that follows: drop the probe's own time */
		g->no_dur = 1;
		rc = emit_call(g, r, ENDS_GAP, 0, 0, &em, e);
		g->no_dur = 0;
		return rc;
	case C_IPROBE:
		return 0;
	case C_REQFREE:
		if (arg_req(g, r, F_MPI_Request_free_request, &key, e))
			return -1;
		if (req_del(g, key))
			return ir_errf(e, "out of memory");
		return 0;
	case C_COLL:
		return do_coll(g, r, ci, e);
	case C_NEIGH:
		return do_neigh(g, r, ci, e);
	case C_MPROBE:
	case C_IMPROBE:
		return do_mprobe(g, r, ci, e);
	case C_MRECV:
	case C_IMRECV:
		return do_mrecv(g, r, ci, e);
	case C_CART_CREATE:
	case C_CART_SUB:
	case C_GRAPH_CREATE:
	case C_DIST_GRAPH_ADJ:
	case C_DIST_GRAPH:
		return do_topo(g, r, ci, e);
	}
	return 0;
}

/* ------------------------------------------------------------------ communicators */

static int add_comm(gstate *g, const ir_rec *r, ir_err *e)
{
	comm *c;
	uint64_t h = 0x9E3779B97F4A7C15ULL, occ = 0;
	uint32_t *v;
	int found_me = 0;
	if (r->nmembers == 0 || r->nmembers > g->nranks)
		return errat(g, e, "'# comm %" PRIu64 "': expected 1 to %u members, found %zu", r->comm_id, g->nranks,
		             r->nmembers);
	for (size_t i = 0; i < r->nmembers; i++) {
		if (r->members[i] >= g->nranks)
			return errat(g, e, "'# comm %" PRIu64 "': member %u is not a world rank (%u ranks)", r->comm_id,
			             r->members[i], g->nranks);
		if (r->members[i] == g->R->rank)
			found_me = 1;
		h = ir_hmix64(h ^ r->members[i]) + i;
	}
	if (!found_me)
		return errat(g, e, "'# comm %" PRIu64 "': this rank (%u) is not a member", r->comm_id, g->R->rank);
	if (r->comm_id <= 1)
		return 0; /* world and self are implicit */
	h |= 1;
	v = ir_hmap_put(&g->R->occ, h, 0, NULL);
	if (!v)
		return ir_errf(e, "out of memory");
	occ = (*v)++;
	v = ir_hmap_get(&g->R->cmap, r->comm_id + 1, 0);
	if (v) {
		c = &g->R->comms[*v];
		free(c->members);
		topo_free(c->tp);
	} else {
		if (IR_GROW(g->R->comms, g->R->ncomms + 1, g->R->capcomms))
			return ir_errf(e, "out of memory");
		c = &g->R->comms[g->R->ncomms];
		v = ir_hmap_put(&g->R->cmap, r->comm_id + 1, 0, NULL);
		if (!v)
			return ir_errf(e, "out of memory");
		*v = (uint32_t)g->R->ncomms;
		g->R->ncomms++;
	}
	memset(c, 0, sizeof *c);
	c->id = r->comm_id;
	c->n = (uint32_t)r->nmembers;
	c->members = malloc(r->nmembers * sizeof *c->members);
	if (!c->members)
		return ir_errf(e, "out of memory");
	memcpy(c->members, r->members, r->nmembers * sizeof *c->members);
	c->key = ir_hmix64(h + occ * 0x100000001B3ULL) | 2; /* never 0 (world) */
	if (g->R->ptopo && g->R->ptopo->id == r->comm_id) {
		topo *t = g->R->ptopo;
		g->R->ptopo = NULL;
		if (t->rel)
			for (uint32_t i = 0; i < t->nin + t->nout; i++) {
				if (t->nbr[i] < 0)
					continue;
				if ((uint32_t)t->nbr[i] >= c->n) {
					int32_t bad = t->nbr[i];
					topo_free(t);
					return errat(g, e, "'# comm %" PRIu64 "': %u members, but the topology names rank %d",
					             r->comm_id, c->n, bad);
				}
				t->nbr[i] = (int32_t)c->members[t->nbr[i]];
			}
		t->rel = 0;
		c->tp = t;
	}
	return 0;
}

/* Record this rank's collective sequence on communicator c; compare with the first member. */
static int check_cseq(gstate *g, const comm *c, ir_err *e)
{
	uint64_t k = c->key + 1;
	uint32_t *v = ir_hmap_get(&g->cseq, k, 0);
	if (c == &g->R->self)
		return 0;
	if (!v) {
		if (IR_GROW(g->cs, g->ncs + 1, g->capcs))
			return ir_errf(e, "out of memory");
		g->cs[g->ncs].count = c->seq;
		g->cs[g->ncs].hash = c->chash;
		g->cs[g->ncs].rank = g->R->rank;
		v = ir_hmap_put(&g->cseq, k, 0, NULL);
		if (!v)
			return ir_errf(e, "out of memory");
		*v = (uint32_t)g->ncs;
		g->ncs++;
		return 0;
	}
	{
		const struct cseq *ref = &g->cs[*v];
		char name[40];
		if (c == &g->R->world)
			snprintf(name, sizeof name, "MPI_COMM_WORLD");
		else
			snprintf(name, sizeof name, "communicator %" PRIu64, c->id);
		if (ref->count != c->seq)
			return ir_errf(e, "%s: rank %u calls %" PRIu64 " collectives on %s, rank %u calls %u", g->R->fname,
			               ref->rank, ref->count, name, g->R->rank, c->seq);
		if (ref->hash != c->chash)
			return ir_errf(e, "%s: the sequence of collectives on %s differs between rank %u and rank %u "
			               "(kinds or roots)", g->R->fname, name, ref->rank, g->R->rank);
	}
	return 0;
}

/* ------------------------------------------------------------------ ranks */

static void rank_release(gstate *g)
{
	if (g->ts)
		for (size_t i = 0; i < g->R->reqmap.cap; i++) {
			const uint32_t *v = ir_hmap_at(&g->R->reqmap, i);
			if (v)
				req_drop_nodes(g, &g->R->reqs[*v]);
		}
	ir_hmap_release(&g->R->reqmap);
	free(g->R->reqs);
	g->R->reqs = NULL;
	g->R->nreqs = g->R->capreqs = 0;
	g->R->nfree = 0;
	for (size_t i = 0; i < g->R->ncomms; i++) {
		free(g->R->comms[i].members);
		topo_free(g->R->comms[i].tp);
	}
	g->R->ncomms = 0;
	topo_free(g->R->ptopo);
	g->R->ptopo = NULL;
	ir_hmap_release(&g->R->cmap);
	ir_hmap_release(&g->R->occ);
	ir_ivset_clear(&g->R->pinset);
	g->R->owed = 0;
	g->R->nends = 0;
	ir_trace_free(g->R->t);
	g->R->t = NULL;
}

/* Free what rank_release keeps for reuse. */
static void rank_free(rstate *R)
{
	free(R->ends);
	free(R->ends_ireq);
	free(R->freereq);
	free(R->comms);
	free(R->chunks);
	ir_ivset_release(&R->pinset);
	ir_sb_release(&R->out);
	R->ends = R->freereq = NULL;
	R->ends_ireq = NULL;
	R->comms = NULL;
	R->chunks = NULL;
}

static int match_name(gstate *g, pcre2_code *re, const char *name)
{
	return pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, g->md, NULL) >= 0;
}

/* Open rank tf's trace and reset the per-rank state. */
static int rank_begin(gstate *g, const ir_trace_file *tf, int64_t epoch, ir_err *e)
{
	/* Schedgen applies no clock offsets */
	ir_trace_opts to = { epoch, g->o->no_clock || g->o->compat_schedgen };
	rstate *R = g->R;
	R->rank = tf->rank;
	R->fname = tf->path;
	R->line = 0;
	R->nl = 0;
	R->nends = 0;
	R->started = R->finished = 0;
	R->gap_start = 0;
	R->phase = g->from_re ? 0 : 1;
	R->from_seen = 0;
	R->reqseq = 0;
	R->warned_any = R->warned_test = 0;
	R->lead = 0;
	memset(&R->world, 0, sizeof R->world);
	R->world.n = g->nranks;
	memset(&R->self, 0, sizeof R->self);
	R->self.n = 1;
	R->self.key = 1;
	R->self.members = &R->rank;
	R->t = ir_trace_open(tf->path, &to, e);
	if (!R->t)
		return -1;
	if (!g->rs && (put(g, "rank ", 5) || putu(g, tf->rank) || put(g, " {\n", 3)))
		return ir_errf(e, "out of memory");
	return 0;
}

/* One record of the current rank. */
static int rank_record(gstate *g, ir_rec *r, ir_err *e)
{
	rstate *R = g->R;
	R->line = r->line;
	R->flavor = ir_trace_flavor(R->t);
	if (r->kind == IR_REC_COMM)
		return add_comm(g, r, e);
	g->st->calls++;
	if (R->finished) {
		if (R->phase == 2)
			return 0;
		return errat(g, e, "%s after MPI_Finalize", r->name);
	}
	if (R->phase == 0) {
		if (strncmp(r->name, "MPI_Init", 8) == 0 && (r->name[8] == 0 || r->name[8] == '_'))
			R->started = 1; /* keep the Init out of the phase */
		if (!match_name(g, g->from_re, r->name) || ++R->from_seen < g->o->from_nth)
			return 0;
		R->phase = 1;
		R->started = 1;
		R->gap_start = r->t_call != IR_TIME_NONE ? r->t_call : r->t_ret;
		if (sync_lead(g, R->gap_start, e))
			return -1;
	}
	if (do_call(g, r, e))
		return -1;
	if (R->phase == 1 && !R->finished && g->to_re && match_name(g, g->to_re, r->name)) {
		/* the phase ends with this call: a last calc up to its return */
		int64_t gap = (r->t_ret != IR_TIME_NONE ? r->t_ret : r->t_call) - R->gap_start;
		uint32_t l = new_label(g);
		if (def_calc(g, l, scale_calc(g, gap > 0 ? (double)gap : 0)))
			return ir_errf(e, "out of memory");
		for (size_t i = 0; i < R->nends; i++)
			if (edge(g, l, R->ends[i], R->ends_ireq[i]))
				return ir_errf(e, "out of memory");
		R->phase = 2;
		R->finished = 1;
	}
	return 0;
}

/* The current rank's trace ended: checks, wildcard receives never completed, the cross-rank
 * summaries. */
static int rank_end(gstate *g, ir_err *e)
{
	rstate *R = g->R;
	if (R->phase == 0)
		return ir_errf(e, "%s: no call matches --from (wanted match %lu, found %lu)", R->fname, g->o->from_nth,
		               R->from_seen);
	if (!R->finished)
		return ir_errf_at(e, R->fname, R->line, "trace ends without MPI_Finalize (cut short?)");
	/* wildcard receives never completed: define them as wildcards */
	for (size_t i = 0; i < R->reqmap.cap; i++) {
		const uint32_t *v = ir_hmap_at(&R->reqmap, i);
		req *q;
		if (!v)
			continue;
		q = &R->reqs[*v];
		if (q->deferred && q->label != NOLABEL) {
			if (def_recv(g, q->label, ANY, q->size, q->tag))
				return ir_errf(e, "out of memory");
			g->wild[R->rank]++;
		}
	}
	if (!g->rs && put(g, "}\n", 2))
		return ir_errf(e, "out of memory");
	if (check_cseq(g, &R->world, e))
		return -1;
	for (size_t i = 0; i < R->ncomms; i++)
		if (check_cseq(g, &R->comms[i], e))
			return -1;
	return flush_out(g, e);
}

static int convert_rank(gstate *g, const ir_trace_file *tf, int64_t epoch, ir_err *e)
{
	ir_rec r;
	int rc;
	if (rank_begin(g, tf, epoch, e))
		return -1;
	while ((rc = ir_trace_next(g->R->t, &r, e)) == 1)
		if (rank_record(g, &r, e))
			return -1;
	if (rc < 0)
		return -1;
	return rank_end(g, e);
}

/* ---- --sync: all ranks read together, in the order of their times ---- */

/* Earliest next call first; among equal times the rank that has read fewer records, so that
 * traces with coarse or equal timestamps still advance together. */
static int heap_less(const gstate *g, uint32_t a, uint32_t b)
{
	const rstate *x = &g->rs[a], *y = &g->rs[b];
	if (x->key != y->key)
		return x->key < y->key;
	if (x->nread != y->nread)
		return x->nread < y->nread;
	return a < b;
}

static void heap_push(gstate *g, uint32_t *h, size_t *n, uint32_t x)
{
	size_t i = (*n)++;
	while (i > 0 && heap_less(g, x, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static uint32_t heap_pop(gstate *g, uint32_t *h, size_t *n)
{
	uint32_t top = h[0], x = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && heap_less(g, h[c + 1], h[c]))
			c++;
		if (!heap_less(g, h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

/* Read the current rank's next record ahead: 1, 0 at the end, -1 on error. */
static int sync_next(gstate *g, ir_err *e)
{
	rstate *R = g->R;
	int rc = ir_trace_next(R->t, &R->rec, e);
	R->has_rec = rc == 1;
	R->nread++;
	if (rc == 1 && R->rec.kind == IR_REC_CALL)
		R->key = R->rec.t_call != IR_TIME_NONE ? R->rec.t_call : R->rec.t_ret != IR_TIME_NONE ? R->rec.t_ret : R->key;
	return rc;
}

static int write_out(gstate *g, const void *p, size_t n, ir_err *e)
{
	g->st->goal_bytes += n;
	return ir_writer_write(g->w, p, n, e);
}

static int convert_sync(gstate *g, const ir_trace_files *files, int64_t epoch, ir_err *e)
{
	uint32_t n = g->nranks, *heap;
	size_t nh = 0;
	char *buf = NULL;
	int rc = -1;
	g->rs = calloc(n, sizeof *g->rs);
	heap = malloc(n * sizeof *heap);
	g->ts = ir_ts_new(sync_done, g);
	if (!g->rs || !heap || !g->ts) {
		free(heap);
		return ir_errf(e, "out of memory");
	}
	g->tmp = tmpfile();
	if (!g->tmp) {
		free(heap);
		return ir_errf(e, "cannot create a temporary file: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < n; i++) {
		ir_sb_init(&g->rs[i].out);
		ir_ivset_init(&g->rs[i].pinset);
		rstate_maps_init(&g->rs[i]);
	}
	if (open_files_for(n, e)) {
		free(heap);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		int r;
		g->R = &g->rs[i];
		if (rank_begin(g, &files->f[i], epoch, e))
			goto done;
		g->R->key = INT64_MIN;
		r = sync_next(g, e);
		if (r < 0)
			goto done;
		if (r)
			heap_push(g, heap, &nh, i);
		else if (rank_end(g, e))
			goto done;
	}
	while (nh) {
		uint32_t i = heap_pop(g, heap, &nh);
		int r;
		g->R = &g->rs[i];
		if (rank_record(g, &g->R->rec, e))
			goto done;
		if (g->sync_failed) {
			ir_errf(e, "%s", g->sync_err.msg);
			goto done;
		}
		r = sync_next(g, e);
		if (r < 0)
			goto done;
		if (r) {
			heap_push(g, heap, &nh, i);
		} else {
			if (rank_end(g, e))
				goto done;
			rank_release(g);
		}
	}
	ir_ts_finish(g->ts); /* unmatched messages: reported by the pair check */
	sync_drop(g);
	if (g->sync_failed) {
		ir_errf(e, "%s", g->sync_err.msg);
		goto done;
	}
	if (fflush(g->tmp) != 0) {
		ir_errf(e, "cannot write the temporary file: %s", strerror(errno));
		goto done;
	}
	buf = malloc(FLUSH_AT);
	if (!buf) {
		ir_errf(e, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < n; i++) {
		rstate *R = &g->rs[i];
		char head[40];
		int hl = snprintf(head, sizeof head, "rank %u {\n", i);
		if (write_out(g, head, (size_t)hl, e))
			goto done;
		for (size_t c = 0; c < R->nchunks; c++) {
			uint64_t off = R->chunks[c].off, left = R->chunks[c].len;
			if (fseeko(g->tmp, (off_t)off, SEEK_SET) != 0) {
				ir_errf(e, "cannot read the temporary file: %s", strerror(errno));
				goto done;
			}
			while (left) {
				size_t k = left < FLUSH_AT ? (size_t)left : FLUSH_AT;
				if (fread(buf, 1, k, g->tmp) != k) {
					ir_errf(e, "cannot read the temporary file");
					goto done;
				}
				if (ir_writer_write(g->w, buf, k, e))
					goto done;
				left -= k;
			}
		}
		if (write_out(g, R->out.buf, R->out.len, e) || write_out(g, "}\n", 2, e))
			goto done;
	}
	rc = 0;
done:
	free(buf);
	free(heap);
	return rc;
}

static int check_pairs(gstate *g, ir_err *e)
{
	/* per destination: sends - named receives must equal wildcard receives */
	int64_t *surplus = calloc(g->nranks, sizeof *surplus);
	if (!surplus)
		return ir_errf(e, "out of memory");
	for (size_t i = 0; i < g->pairs.cap; i++) {
		uint64_t k;
		const pairc *pc;
		const uint32_t *v = ir_hmap_at(&g->pairs, i);
		uint32_t src, dst;
		if (!v)
			continue;
		k = ir_hmap_key_a(&g->pairs, i) - 1;
		src = (uint32_t)(k >> 32);
		dst = (uint32_t)k;
		pc = &g->pc[*v];
		if (pc->recvs > pc->sends) {
			free(surplus);
			return ir_errf(e, "rank %u receives %" PRIu64 " messages from rank %u, which sends it %" PRIu64,
			               dst, pc->recvs, src, pc->sends);
		}
		if (pc->sends > pc->recvs && g->wild[dst] == 0) {
			free(surplus);
			return ir_errf(e, "rank %u sends %" PRIu64 " messages to rank %u, which receives %" PRIu64
			               " of them (a send is never received)", src, pc->sends, dst, pc->recvs);
		}
		surplus[dst] += (int64_t)(pc->sends - pc->recvs);
	}
	for (uint32_t d = 0; d < g->nranks; d++)
		if (surplus[d] != (int64_t)g->wild[d]) {
			int64_t s = surplus[d];
			free(surplus);
			return ir_errf(e, "rank %u posts %" PRIu64 " wildcard receives for %" PRId64 " unmatched messages", d,
			               g->wild[d], s);
		}
	free(surplus);
	return 0;
}

void ir_t2g_opts_init(ir_t2g_opts *o)
{
	memset(o, 0, sizeof *o);
	o->cpu_scale = 1.0;
	o->from_nth = 1;
	ir_loggops_defaults(&o->net);
}

static pcre2_code *compile(const char *re, const char *opt, ir_err *e)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &ec, &off, NULL);
	if (!c) {
		PCRE2_UCHAR buf[160];
		char q[200];
		pcre2_get_error_message(ec, buf, sizeof buf);
		ir_err_quote(q, sizeof q, re, strlen(re));
		ir_errf(e, "invalid regular expression for %s: '%s': %s at offset %zu", opt, q, (char *)buf, (size_t)off);
	}
	return c;
}

int ir_t2g_convert(const ir_trace_files *files, const ir_t2g_opts *o, ir_writer *w, ir_t2g_stats *st,
                   ir_err *e)
{
	gstate g;
	ir_t2g_stats dummy;
	int64_t epoch;
	int rc = -1;
	memset(&g, 0, sizeof g);
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	g.o = o;
	g.w = w;
	g.st = st;
	g.nranks = (uint32_t)files->n;
	g.R = &g.one;
	ir_sb_init(&g.one.out);
	ir_ivset_init(&g.one.pinset);
	rstate_maps_init(&g.one);
	ir_hmap_init(&g.pairs, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&g.cseq, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_cg_init(&g.cg);
	for (int k = 0; k < IR_COLL_NKINDS; k++) {
		g.alg[k] = o->coll[k];
		if (g.alg[k] == IR_ALG_DEFAULT && o->compat_schedgen) {
			/* Schedgen's algorithms */
			if (k == IR_COLL_ALLREDUCE || k == IR_COLL_ALLGATHER || k == IR_COLL_BARRIER)
				g.alg[k] = IR_ALG_DISSEMINATION;
			else if (k == IR_COLL_BCAST || k == IR_COLL_REDUCE)
				g.alg[k] = IR_ALG_BINOMIAL;
			else if (k == IR_COLL_ALLTOALL)
				g.alg[k] = IR_ALG_LINEAR;
		}
	}
	g.wild = calloc(g.nranks ? g.nranks : 1, sizeof *g.wild);
	if (!g.wild) {
		ir_errf(e, "out of memory");
		goto done;
	}
	if (o->from_re && !(g.from_re = compile(o->from_re, "--from", e)))
		goto done;
	if (o->to_re && !(g.to_re = compile(o->to_re, "--to", e)))
		goto done;
	g.md = pcre2_match_data_create(4, NULL);
	if (!g.md) {
		ir_errf(e, "out of memory");
		goto done;
	}
	if (ir_trace_epoch(files->f[0].path, &epoch, e))
		goto done;
	{
		char head[40];
		int hl = snprintf(head, sizeof head, "num_ranks %u\n", g.nranks);
		if (write_out(&g, head, (size_t)hl, e))
			goto done;
	}
	if (o->sync) {
		if (convert_sync(&g, files, epoch, e))
			goto done;
		st->ranks = g.nranks;
	} else {
		g.R = &g.one;
		for (size_t i = 0; i < files->n; i++) {
			if (convert_rank(&g, &files->f[i], epoch, e)) {
				rank_release(&g);
				goto done;
			}
			rank_release(&g);
			st->ranks++;
		}
	}
	if (check_pairs(&g, e))
		goto done;
	if (g.neg_gaps)
		warn(&g, "%" PRIu64 " call%s started before the previous call returned (clock corrections?): "
		     "their gaps count as 0", g.neg_gaps, g.neg_gaps == 1 ? "" : "s");
	if (g.skipped_comm > 1)
		warn(&g, "%" PRIu64 " calls on communicators without member lists were skipped", g.skipped_comm);
	if (g.no_topo > 1)
		warn(&g, "%" PRIu64 " neighbourhood collectives on communicators without a known topology were skipped",
		     g.no_topo);
	if (g.any_guess)
		warn(&g, "%" PRIu64 " liballprof Waitany/Waitsome call%s completed the earliest posted request (a guess)",
		     g.any_guess, g.any_guess == 1 ? "" : "s");
	if (g.sync_wild)
		warn(&g, "--sync: %" PRIu64 " wildcard receive%s without a recorded source: their waiting is replayed "
		     "from this rank's own entry", g.sync_wild, g.sync_wild == 1 ? "" : "s");
	if (g.folded_tags > 1)
		warn(&g, "%" PRIu64 " tags above 2^29-1 were folded", g.folded_tags);
	for (size_t i = 0; i < g.nunknown; i++)
		warn(&g, "unknown call %s (%" PRIu64 " time%s): not replayed, its time counted as computation",
		     g.unknown[i].name, g.unknown[i].count, g.unknown[i].count == 1 ? "" : "s");
	rc = 0;
done:
	if (g.rs) {
		for (uint32_t i = 0; i < g.nranks; i++) {
			g.R = &g.rs[i];
			rank_release(&g);
			rank_free(g.R);
		}
		free(g.rs);
	}
	rank_free(&g.one);
	sync_drop(&g);
	ir_ts_free(g.ts);
	if (g.tmp)
		fclose(g.tmp);
	free(g.tpost);
	free(g.tdone);
	ir_cg_release(&g.cg);
	free(g.ctag);
	free(g.cpeer);
	free(g.blk);
	free(g.sblk);
	free(g.rblk);
	free(g.haspred);
	free(g.hassucc);
	free(g.pc);
	free(g.cs);
	free(g.wild);
	ir_hmap_release(&g.pairs);
	ir_hmap_release(&g.cseq);
	for (size_t i = 0; i < g.nunknown; i++)
		free(g.unknown[i].name);
	free(g.unknown);
	pcre2_match_data_free(g.md);
	pcre2_code_free(g.from_re);
	pcre2_code_free(g.to_re);
	return rc;
}
