/*
 * ir_net_ib_internal.h: what the parts of the InfiniBand model share (not a
 * public header: only lib/ir_net_ib_*.c include it).
 *
 * The model (ir_net_ib.h, docs/ib-model.md) is split by concern, as zstd's
 * compress/ sources share zstd_compress_internal.h:
 *
 *   ir_net_ib_config.c  the table of keys: defaults, parsing, --help, and the
 *                       registry's entry (ir_net.h)
 *   ir_net_ib_fabric.c  the fabric: event queue, packets, credits, switches
 *                       and hosts, messages and the event loop
 *   ir_net_ib_build.c   construction (topology, routes, placement), release,
 *                       link statistics
 *   ir_net_ib_engine.c  the engine adapter (ir_net_ops): per-pair ordering of
 *                       deliveries, rendezvous handshake with the engine
 *   ir_net_ib_part.c    the fabric split over the processes of a partitioned
 *                       run: node owners, the items that cross, message copies
 *
 * The state below is one struct every part sees whole. The small helpers the
 * per-packet paths use are static inline here, so the split costs no call
 * on those paths; the fabric's event loop and its handlers stay in one file
 * for the same reason.
 */
#ifndef IR_NET_IB_INTERNAL_H
#define IR_NET_IB_INTERNAL_H

#include <stdint.h>

#include "ir_engine.h"
#include "ir_heap.h"
#include "ir_hmap.h"
#include "ir_net_ib.h"

#define NIL 0xFFFFFFFFu
#define TMAX UINT64_MAX

/* ---- state ---- */

enum { K_DATA = 0, K_RTS, K_CTS, K_CNP };
enum { EV_OUT = 0, EV_ELIG = 1, EV_MSG = 2, EV_CTRL = 3,
       /* keyed (an engine that orders ties by key, docs/ib-model.md section 12) only: a
        * packet's head reaches the next switch's input buffer; credits reach the output
        * upstream */
       EV_ARR = 4, EV_CRET = 5 };
#define EV_SHIFT 30
#define EV_MASK ((1u << EV_SHIFT) - 1)

typedef struct pkt {
	uint32_t next;   /* next in the buffer's FIFO, or in the free list; keyed, on a link: the buffer it enters */
	uint32_t msg;
	uint32_t wire;   /* bytes on the wire (payload + headers) */
	uint32_t payload;
	uint32_t blocks;
	uint32_t outp;   /* output port (global index) at the switch that holds it */
	uint64_t t_arr;  /* header arrival at the current buffer */
	uint64_t t_tail; /* tail arrival */
	uint8_t vl;      /* VL of the link it arrived on (its input buffer's) */
	uint8_t ovl;     /* VL on its output link (the routing's VL class step) */
	uint8_t leg;     /* 1 while it heads for its message's intermediate switch */
	uint8_t fecn;    /* cc: marked by a congested switch output */
	uint8_t plane;   /* lmc > 0: the offset of its destination LID (the routing's path plane) */
} pkt;

typedef struct ibmsg {
	uint32_t handle;
	uint32_t src, dst;   /* host nodes */
	uint32_t npk, sent, drained;
	uint32_t next, prev; /* send ring of the source host; free list */
	uint32_t data;       /* RTS/CTS: the data message */
	uint32_t via_lid;    /* Valiant/UGAL: LID of the intermediate switch, 0: direct */
	uint8_t kind, vl, matched_wait, sl;
	uint8_t plane;       /* lmc > 0: destination LID offset of its packets (path_unit = message) */
	uint64_t size;
} ibmsg;

typedef struct cret { /* a credit return: `b` blocks come back at `t` */
	uint64_t t;
	uint32_t b;
} cret;

/* Keyed: a credit return on its way upstream, the payload of an EV_CRET event (a pool
 * with a free list through `gp`). */
typedef struct kcret {
	uint32_t gp, b;
	uint8_t vl;
} kcret;

/* The credits of one (output, VL) and their returns, in one record: the per-packet
 * paths read the credits, the time of the first return and the ring together (as
 * separate arrays, and the ring's times and blocks as two allocations of their own,
 * they were four cache misses). A buffer of 128 blocks holds at most 3 packets of
 * 2 KiB or 1 of 4 KiB, so CR_INLINE returns in the record itself nearly always
 * suffice; a longer ring moves to the heap. */
#define CR_INLINE 4
typedef struct cring {
	cret *r;             /* returns in FIFO order: `in`, or the heap; cap a power of two */
	uint64_t t0;         /* r[head].t, TMAX when empty: absorbing nothing reads no entry */
	int32_t cred;        /* blocks the output may still send on this VL */
	uint32_t head, n, cap;
	cret in[CR_INLINE];
} cring;

typedef struct outp {
	uint64_t busy;       /* link busy until */
	uint64_t wake;       /* a queued OUT event at this time, TMAX: none */
	uint64_t stall_since;/* TMAX when not stalled */
	uint64_t bytes, pkts, busy_ps, stall_ps;
	uint32_t nreq;       /* requesting inputs (switch) */
	uint32_t peer_gp;    /* the port at the other end */
	uint32_t ser_full;   /* serialization of a full-MTU packet, ps (0: compute) */
	uint32_t node;
	uint16_t port;
	uint8_t cur_vl;
	uint8_t vl_sent;
	uint8_t hcur_vl;     /* the same for the high-priority table (vlarb_high) */
	uint8_t hvl_sent;
	uint8_t hp_run;      /* high-priority packets in a row */
} outp;

typedef struct inbuf { /* one (input port, VL) of a switch */
	uint32_t head, tail;
	uint64_t read_free;  /* the previous packet's tail has left */
} inbuf;

typedef struct host {
	uint32_t gp;         /* the port it uses */
	uint32_t cur;        /* send ring cursor (message), NIL: idle */
	uint32_t nact;
	uint64_t bus_free;   /* send side: bus free */
	uint64_t drain_free; /* receive side */
} host;

struct ir_ib {
	ir_ib_cfg cfg;
	ir_topo *t;
	ir_lft lft;
	ir_ib_client cl;
	uint32_t nranks, nvl, W; /* W: 64-bit words of a request set (a bit per input port and VL) */
	uint32_t *rank_host;
	outp *out;          /* [nports_total] */
	cring *cr;          /* [gp * nvl + v]: credits and their returns */
	inbuf *in;          /* [gp * nvl + v] */
	uint64_t *req;      /* [(gp * nvl + v) * W]: bit (input port - 1) * nvl + input VL */
	uint32_t *rr;       /* [gp * nvl + v]: last served input port (0-based) */
	host *h;            /* [nhosts] */
	pkt *pk;
	uint32_t npk, freepk, live;
	size_t cappk;
	uint32_t busy_hosts; /* hosts with messages to send */
	uint32_t *park, npark;   /* drained RTS waiting for their match */
	size_t cappark;
	ibmsg *m;
	uint32_t nm, freem;
	size_t capm;
	ir_heap q;           /* the fabric's events (see qmin for the peek) */
	uint64_t qpeek;      /* cached ir_heap_min(&q) when bucket 0 is empty, TMAX: unknown */
	uint32_t seq;
	uint64_t now;
	uint64_t bus_full;   /* bus time of a full-MTU payload */
	uint32_t full_wire;  /* MTU + headers */
	ir_ib_stats st;
	/* keyed (docs/ib-model.md section 12): every event is an engine callback of its node */
	int keyed;
	uint64_t kpending;   /* events queued in the engine */
	kcret *kc;
	uint32_t nkc, freekc;
	size_t capkc;
	/* engine adapter */
	ir_engine *en;
	uint64_t en_wake;
	uint64_t o, o_rndv;
	ir_pw send_o;        /* the piecewise model's sender overhead (n == 0: o, o_rndv) */
	uint8_t *hmode;      /* per engine message handle: HM_* (rendezvous path) */
	size_t nhmode;
	struct hord *ho;     /* per engine message handle: its place in its pair's order */
	size_t nho;
	ir_hmap po;          /* (src << 32 | dst) + 1 -> struct pairo, pairs with messages in flight */
	uint64_t *retire;    /* keys of drained pairs whose last delivery lies ahead (ring buffer) */
	uint32_t nretire, capretire, retire_head;
	int keep;
	uint8_t sl2vl[16];   /* base VL (times the routing's classes) of each SL */
	uint8_t hp;          /* a high-priority VL arbitration table is set */
	ir_hmap slmap;       /* sl = FILE: (source rank + 1, destination rank + 1) -> SL; 0 stands for "*" */
	/* congestion control (cc on; docs/ib-model.md section 8) */
	uint8_t cc;
	uint32_t cc_thr;     /* blocks queued for an output VL above which it marks */
	uint32_t *oq;        /* [gp * nvl + v]: blocks in switch inputs waiting for this output VL */
	uint32_t *mk;        /* [gp * nvl + v]: packets over the threshold since the last mark */
	ir_hmap ccf;         /* (source host, destination host) -> struct ccflow */
	/* multipath (lmc > 0; docs/ib-model.md section 10) */
	uint32_t npath;      /* 2^lmc LIDs per host */
	uint64_t prng;       /* path = random: splitmix state */
	uint32_t *rrc;       /* path = rr: [nhosts] the next LID offset of each source host */
	/* partitioned runs (cfg.part; docs/ib-model.md section 13, ir_net_ib_part.c) */
	const ir_ib_part *part;
	uint32_t *nowner;    /* [nnodes] the process of each node */
	struct ibx *xs;      /* [capxs] per message record: its copies' bookkeeping */
	size_t capxs;
	ir_hmap xmap;        /* a message's id -> its record here (uint32_t) */
	ir_hmap pin;         /* (src << 32 | dst) + 1 -> the next place in the pair's order (uint32_t),
	                      * pairs whose receiver another process simulates */
	uint64_t xnext;      /* this process's next message id */
};

/* Partitioned runs: what the copies of one message in several processes share. A message
 * record is made where the message starts (its maker: a data message or a request-to-send
 * at its source host, a clear-to-send at the receiver's host); a process that a packet of
 * it reaches makes a copy, found by the message's id. A record counts the message's
 * packets in its process; it goes when none is left, unless its process still sends
 * packets of it (the maker, until all are sent) or owns its destination host (the drain
 * frees it there, as in a whole run). */
struct ibx {
	uint64_t id;         /* me << 40 | count, at the maker */
	uint32_t here;       /* packets of it in this process */
	uint32_t dhandle;    /* its handle in the destination's engine; NIL: adopt `rm` there */
	uint32_t pseq;       /* data and request-to-send: its place in its pair's order */
	uint8_t org, dp, mapped;
	ir_engine_rmsg rm;   /* dhandle NIL: the engine's message, for ir_engine_adopt */
};

/* Congestion control state of a flow (source host, destination host): its
 * CCT index as of t_upd (the timer's periods since then not yet applied)
 * and the earliest start of its next packet. */
struct ccflow {
	uint32_t ccti;
	uint64_t t_upd;
	uint64_t t_next;
};

/* The CCT index of flow f at t: the timer lowers every index by one at each
 * multiple of cc_timer (one clock for all flows, as the port's timer in the
 * specification), applied lazily. */
static inline uint32_t cc_index_at(const ir_ib *ib, const struct ccflow *f, uint64_t t)
{
	uint64_t ticks = t / ib->cfg.cc_timer - f->t_upd / ib->cfg.cc_timer;
	return ticks >= f->ccti ? 0 : f->ccti - (uint32_t)ticks;
}

/* MPI's non-overtaking rule: messages between one pair of ranks are matched
 * in the order they were sent. The fabric may deliver them out of that order
 * (the host interleaves the packets of its active messages, and a short
 * message can pass a long one), so the adapter hands arrivals to the engine
 * in send order per (source, destination) pair, as an MPI library reorders
 * by sequence number: a message that arrives before an earlier one of its
 * pair is held until that one has been delivered. Only pairs with messages in
 * flight have an entry, so memory follows the traffic, not ranks squared.
 * A pair that has delivered its last message keeps its entry only while that
 * delivery lies ahead of the engine's clock (a later message of the pair must
 * not be delivered before it): its key goes on the retire ring, and each
 * injection checks a few keys of the ring and frees the entries whose time
 * has come, so drained pairs cost memory for as long as a message is in the
 * fabric, not for the rest of the run. */
struct hord {
	uint32_t src, dst;
	uint32_t seq;        /* its number in the pair's send order */
	uint32_t next_held;  /* held list of its pair */
	uint64_t t;          /* arrival time while held */
};
struct pairo {
	uint64_t key;        /* src << 32 | dst, + 1 (the map's key, for the retire ring) */
	uint32_t in, out;    /* messages injected, delivered */
	uint32_t held;       /* handles arrived too early (list through hord.next_held) */
	uint64_t last;       /* time of the pair's last delivery */
};

/* How a rendezvous message of the engine travels (the engine asks for the
 * handshake, IR_NET_RNDV_HANDSHAKE): HM_FABRIC: its request-to-send crosses
 * the fabric and is delivered for matching, the clear-to-send leaves at the
 * match, the data's arrival completes it; HM_WHOLE: it arrives whole
 * (rndv = loggopsim, or both ranks on one host) and completes at its match. */
enum { HM_NONE = 0, HM_FABRIC = 1, HM_WHOLE = 2 };

/* Congestion control and the high-priority arbitration table are off in
 * most runs: their tests on the per-packet paths are marked so, and the
 * compiler keeps their code out of the straight line. */
#define IB_RARE(x) __builtin_expect(!!(x), 0)

static inline uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

static inline uint64_t bus_time(const ir_ib *ib, uint64_t bytes)
{
	if (bytes == ib->cfg.mtu)
		return ib->bus_full;
	unsigned __int128 x = (unsigned __int128)bytes * 1000000000000ull;
	return (uint64_t)((x + ib->cfg.pcie - 1) / ib->cfg.pcie);
}

static inline uint64_t ser(const ir_ib *ib, uint32_t gp, uint64_t bytes)
{
	if (bytes == ib->full_wire && ib->out[gp].ser_full)
		return ib->out[gp].ser_full; /* the common case, without a division */
	return ir_topo_ser(bytes, ib->t->port[gp].mbps);
}


/* ---- across the parts ---- */

/* ir_net_ib_fabric.c */
int ib_qpush(ir_ib *ib, uint64_t t, unsigned type, uint32_t idx, ir_err *e);
/* the unloaded latency of a 26-byte packet from host `from` to host `to` */
uint64_t ib_path_latency(const ir_ib *ib, uint32_t from, uint32_t to);
/* keyed: run the event the engine's callback `cookie` carries, at ib->now = t */
int ib_kevent(ir_ib *ib, uint64_t t, uint64_t cookie, ir_err *e);
/* keyed: the node whose event the callback `cookie` carries (its maker) */
uint32_t ib_knode(const ir_ib *ib, uint64_t cookie);
/* keyed: what the callback `cookie` does, for people (ir_net.h, contract 10) */
void ib_kdescribe(const ir_ib *ib, uint64_t cookie, char *buf, size_t n);
uint32_t ib_msg_new(ir_ib *ib);
void ib_msg_free(ir_ib *ib, uint32_t i);
uint32_t ib_pkt_new(ir_ib *ib);
void ib_pkt_free(ir_ib *ib, uint32_t i);
/* keyed: `blocks` of output gp's VL vl return at t, an item with key k made in another process */
int ib_kcret_at(ir_ib *ib, uint64_t t, uint32_t gp, unsigned vl, uint32_t blocks, const ir_engine_key *k, ir_err *e);
/* ir_net_ib_engine.c: a partitioned run's destination makes the engine's record of a
 * message another process sent (rts: a request-to-send), its handle in *h */
int ib_en_adopt(ir_ib *ib, const ir_engine_rmsg *rm, uint32_t pseq, int rts, uint32_t *h, ir_err *e);
/* ir_net_ib_fabric.c: ir_ib_inject, the record that enters the host's queue in *mi */
int ib_inject(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, int rndv, uint64_t t,
              uint32_t *mi, ir_err *e);

/* ir_net_ib_part.c (ib->part set) */
int ibp_init(ir_ib *ib, ir_err *e);
void ibp_release(ir_ib *ib);
/* the record `mi` was just made here by its maker */
int ibp_made(ir_ib *ib, uint32_t mi, ir_err *e);
/* the record `mi` is freed (its id leaves the map) */
void ibp_freed(ir_ib *ib, uint32_t mi);
/* packet pi of message mi left this process (it is freed here), or was drained at its host */
int ibp_gone(ir_ib *ib, uint32_t mi, ir_err *e);
/* items for another process: packet pi's head reaches buffer bi at p->t_arr; credits;
 * a congestion notification of flow (src, dst) reaching src at t */
int ibp_xarr(ir_ib *ib, uint32_t pi, uint32_t bi, ir_err *e);
int ibp_xcret(ir_ib *ib, uint32_t gp, unsigned vl, uint64_t t, uint32_t blocks, ir_err *e);
int ibp_xcnp(ir_ib *ib, uint32_t src, uint32_t dst, uint64_t t, ir_err *e);
static inline int ibp_remote(const ir_ib *ib, uint32_t node)
{
	return ib->part && ib->nowner[node] != ib->part->me;
}

#endif
