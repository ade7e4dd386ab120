/*
 * ir_net_ib.c: the InfiniBand fabric model (see ir_net_ib.h and
 * docs/ib-model.md).
 *
 * Discrete events at packet granularity, with no free-running timer: the
 * only events are "an input buffer's head packet may now be forwarded"
 * (ELIG), "an output port should arbitrate again" (OUT, queued only while
 * something waits for it), "a message enters its host's send queue" (MSG)
 * and "a control message has been drained" (CTRL). Everything else is
 * computed when it is caused:
 *
 *  - Credits are returned upstream when a packet has left a buffer. Rather
 *    than an event per return, each (output port, VL) keeps a FIFO of
 *    (time, blocks) returns, whose times are non-decreasing because a
 *    buffer empties in order; an output absorbs the returns that are due
 *    when it arbitrates, and queues a wake-up for the first pending return
 *    only when it is actually stalled on credits.
 *  - The receiving host drains packets in arrival order at the bus rate;
 *    since the last link delivers packets in order, the drain time of a
 *    packet is known when the last switch forwards it, and the message's
 *    arrival is handed to the engine at once (for a future time).
 *
 * A packet is forwarded from a switch input (virtual cut-through) at
 *     max(head arrival + switch latency, tail arrival - serialization out,
 *         time the previous packet of the buffer has left it)
 * if the output link is free and the downstream buffer has free blocks
 * for the whole packet; outputs serve their requesting inputs round-robin,
 * VLs in weighted round-robin. Event order is (time, sequence number), so
 * runs are deterministic.
 */
#include "ir_net_ib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_engine.h"
#include "ir_grow.h"
#include "ir_heap.h"
#include "ir_hmap.h"
#include "ir_io.h"
#include "ir_num.h"

#define NIL 0xFFFFFFFFu
#define TMAX UINT64_MAX

/* ---- configuration: one table of keys and defaults ---- */

typedef struct ib_key {
	const char *key, *def, *help;
} ib_key;

static const ib_key keys[] = {
	{ "topo", "star", "topology: star:N chain:S ring:S fattree2:K fattree3:K h8s2 h8s4 or a file (star: N = ranks)" },
	{ "routing", "minhop", "routing engine: minhop, updn, ftree or lft:FILE (an OpenSM LFT dump)" },
	{ "placement", "seq", "rank to host: seq, random[:SEED] or a FILE of host names" },
	{ "link", "4xDDR", "link width and speed: 1x..12x, SDR DDR QDR FDR10 FDR EDR HDR NDR" },
	{ "mtu", "2048", "payload bytes per packet: 256, 512, 1024, 2048, 4096" },
	{ "vls", "1", "data virtual lanes, 1..15" },
	{ "vlarb", "1", "packets per VL turn, comma-separated per VL (the last repeats)" },
	{ "buffer", "128", "switch input buffer per port and VL, 64-byte blocks" },
	{ "host_buffer", "128", "host receive buffer per VL, 64-byte blocks" },
	{ "delay", "5ns", "propagation delay per link" },
	{ "switch_latency", "100ns", "switch latency from header arrival to forwarding" },
	{ "pcie", "4GB/s", "host bus rate (send and receive side each)" },
	{ "rndv", "fabric", "rendezvous: fabric (RTS/CTS cross the network) or loggopsim (data at once)" },
	{ "dump_lft", "", "write the forwarding tables to FILE (OpenSM dump layout)" },
};
#define NKEYS (sizeof keys / sizeof keys[0])

const char *const *ir_ib_keys(void)
{
	static const char *list[NKEYS + 1];
	for (size_t i = 0; i < NKEYS; i++)
		list[i] = keys[i].key;
	list[NKEYS] = NULL;
	return list;
}

int ir_ib_help(ir_sb *out)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (ir_sb_addf(out, "  %-15s %-8s %s\n", keys[i].key, *keys[i].def ? keys[i].def : "-", keys[i].help))
			return -1;
	return 0;
}

static int set_str(char **dst, const char *v, ir_err *e)
{
	char *s = strdup(v);
	if (!s)
		return ir_errf(e, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

/* "4GB/s", "500MB/s", "4G", "4000000000": bytes per second, decimal units. */
static int parse_rate(const char *v, uint64_t *out, const char *what, ir_err *e)
{
	char buf[64], q[80];
	size_t n = strlen(v);
	uint64_t mul = 1, x;
	if (n == 0 || n >= sizeof buf)
		goto bad;
	memcpy(buf, v, n + 1);
	if (n > 2 && strcmp(buf + n - 2, "/s") == 0)
		buf[n -= 2] = 0;
	if (n > 1 && buf[n - 1] == 'B')
		buf[--n] = 0;
	if (n > 1) {
		switch (buf[n - 1]) {
		case 'K': case 'k': mul = 1000; break;
		case 'M': mul = 1000000; break;
		case 'G': mul = 1000000000; break;
		case 'T': mul = 1000000000000ull; break;
		}
		if (mul > 1)
			buf[--n] = 0;
	}
	if (ir_parse_u64(buf, &x, what, NULL) || x == 0 || x > UINT64_MAX / mul || x * mul > 1000000000000000ull)
		goto bad;
	*out = x * mul;
	return 0;
bad:
	return ir_errf(e, "invalid rate for %s: '%s' (expected bytes per second, e.g. 4GB/s, 500MB/s, 4G)", what,
	               ir_err_quote(q, sizeof q, v, strlen(v)));
}

int ir_ib_config_set(ir_ib_cfg *c, const char *key, const char *value, ir_err *e)
{
	char k[64], q[80];
	size_t n = strlen(key);
	uint64_t x;
	if (n >= sizeof k)
		return ir_errf(e, "unknown ib parameter '%s'", ir_err_quote(q, sizeof q, key, n)), -2;
	for (size_t i = 0; i <= n; i++)
		k[i] = key[i] == '-' ? '_' : key[i];
	if (strcmp(k, "topo") == 0) {
		if (!*value)
			return ir_errf(e, "invalid topology for topo: '' (expected a generator or a file)");
		return set_str(&c->topo, value, e);
	}
	if (strcmp(k, "routing") == 0) {
		if (strcmp(value, "minhop") && strcmp(value, "updn") && strcmp(value, "ftree") &&
		    !(strncmp(value, "lft:", 4) == 0 && value[4]))
			return ir_errf(e, "invalid routing for routing: '%s' (expected minhop, updn, ftree or lft:FILE)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		return set_str(&c->routing, value, e);
	}
	if (strcmp(k, "placement") == 0) {
		if (!*value)
			return ir_errf(e, "invalid placement for placement: '' (expected seq, random[:SEED] or a file)");
		if (strncmp(value, "random:", 7) == 0 && ir_parse_u64(value + 7, &x, "placement seed", e))
			return -1;
		return set_str(&c->placement, value, e);
	}
	if (strcmp(k, "dump_lft") == 0) {
		if (!*value) {
			free(c->dump_lft);
			c->dump_lft = NULL;
			return 0;
		}
		return set_str(&c->dump_lft, value, e);
	}
	if (strcmp(k, "link") == 0)
		return ir_topo_parse_link(value, &c->width, &c->mbps, "link", e);
	if (strcmp(k, "mtu") == 0) {
		if (ir_parse_u64(value, &x, "mtu", NULL) || (x != 256 && x != 512 && x != 1024 && x != 2048 && x != 4096))
			return ir_errf(e, "invalid MTU for mtu: '%s' (expected 256, 512, 1024, 2048 or 4096)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		c->mtu = (uint32_t)x;
		return 0;
	}
	if (strcmp(k, "vls") == 0) {
		if (ir_parse_range(value, 1, IR_IB_MAX_VLS, &x, "vls", e))
			return -1;
		c->vls = (uint32_t)x;
		return 0;
	}
	if (strcmp(k, "vlarb") == 0) {
		const char *p = value;
		uint32_t w[IR_IB_MAX_VLS];
		unsigned nw = 0;
		for (;;) {
			char b[32];
			const char *comma = strchr(p, ',');
			size_t l = comma ? (size_t)(comma - p) : strlen(p);
			if (nw == IR_IB_MAX_VLS || l == 0 || l >= sizeof b)
				return ir_errf(e, "invalid VL weights for vlarb: '%s' (expected 1 to %u comma-separated "
				                  "weights 1..255)", ir_err_quote(q, sizeof q, value, strlen(value)), IR_IB_MAX_VLS);
			memcpy(b, p, l);
			b[l] = 0;
			if (ir_parse_range(b, 1, 255, &x, "vlarb", e))
				return -1;
			w[nw++] = (uint32_t)x;
			if (!comma)
				break;
			p = comma + 1;
		}
		for (unsigned i = 0; i < IR_IB_MAX_VLS; i++)
			c->vlarb[i] = w[i < nw ? i : nw - 1];
		return 0;
	}
	if (strcmp(k, "buffer") == 0 || strcmp(k, "host_buffer") == 0) {
		/* at least one packet of the largest MTU must fit, or nothing could ever move */
		if (ir_parse_range(value, 1, 1u << 20, &x, k, e))
			return -1;
		*(k[0] == 'b' ? &c->buffer : &c->host_buffer) = (uint32_t)x;
		return 0;
	}
	if (strcmp(k, "delay") == 0)
		return ir_parse_time(value, &c->delay, "delay", e);
	if (strcmp(k, "switch_latency") == 0)
		return ir_parse_time(value, &c->switch_latency, "switch_latency", e);
	if (strcmp(k, "pcie") == 0)
		return parse_rate(value, &c->pcie, "pcie", e);
	if (strcmp(k, "rndv") == 0) {
		if (strcmp(value, "fabric") == 0)
			c->rndv = IR_IB_RNDV_FABRIC;
		else if (strcmp(value, "loggopsim") == 0)
			c->rndv = IR_IB_RNDV_LOGGOPSIM;
		else
			return ir_errf(e, "invalid rendezvous mode for rndv: '%s' (expected fabric or loggopsim)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		return 0;
	}
	ir_errf(e, "unknown ib parameter '%s'", ir_err_quote(q, sizeof q, key, n));
	return -2;
}

void ir_ib_config_init(ir_ib_cfg *c)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < NKEYS; i++)
		if (*keys[i].def)
			ir_ib_config_set(c, keys[i].key, keys[i].def, NULL);
}

void ir_ib_config_release(ir_ib_cfg *c)
{
	free(c->topo);
	free(c->routing);
	free(c->placement);
	free(c->dump_lft);
	memset(c, 0, sizeof *c);
}

/* ---- state ---- */

enum { K_DATA = 0, K_RTS, K_CTS };
enum { EV_OUT = 0, EV_ELIG = 1, EV_MSG = 2, EV_CTRL = 3 };
#define EV_SHIFT 30
#define EV_MASK ((1u << EV_SHIFT) - 1)

typedef struct pkt {
	uint32_t next;   /* next in the buffer's FIFO, or in the free list */
	uint32_t msg;
	uint32_t wire;   /* bytes on the wire (payload + headers) */
	uint32_t payload;
	uint32_t blocks;
	uint32_t outp;   /* output port (global index) at the switch that holds it */
	uint64_t t_arr;  /* header arrival at the current buffer */
	uint64_t t_tail; /* tail arrival */
	uint8_t vl;
} pkt;

typedef struct ibmsg {
	uint32_t handle;
	uint32_t src, dst;   /* host nodes */
	uint32_t npk, sent, drained;
	uint32_t next, prev; /* send ring of the source host; free list */
	uint32_t data;       /* RTS/CTS: the data message */
	uint8_t kind, vl, matched_wait;
	uint64_t size;
} ibmsg;

typedef struct cring { /* credit returns of one (output, VL); cap a power of two */
	uint64_t *t;
	uint32_t *b;
	uint32_t head, n, cap;
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
	uint32_t nranks, nvl, W; /* W: 64-bit words of a request set */
	uint32_t *rank_host;
	outp *out;          /* [nports_total] */
	int32_t *cred;      /* [gp * nvl + v] */
	cring *cr;          /* [gp * nvl + v] */
	inbuf *in;          /* [gp * nvl + v] */
	uint64_t *req;      /* [(gp * nvl + v) * W] */
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
};

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

static int qpush(ir_ib *ib, uint64_t t, unsigned type, uint32_t idx, ir_err *e)
{
	if (t < ib->now)
		return ir_errf(e, "fabric event at %llu ps, before the current time %llu ps", (unsigned long long)t,
		               (unsigned long long)ib->now);
	if (ib->seq == UINT32_MAX) {
		uint32_t next = ir_heap_renumber(&ib->q, 0);
		if (!next && ib->q.n)
			return ir_errf(e, "out of memory for the fabric's event queue (%zu events)", ib->q.n);
		ib->seq = next;
	}
	if (ir_heap_push(&ib->q, t, ib->seq++, (type << EV_SHIFT) | idx))
		return ir_errf(e, "out of memory for the fabric's event queue (%zu events)", ib->q.n);
	if (t < ib->qpeek && ib->qpeek != TMAX)
		ib->qpeek = t;
	return 0;
}

/* The fabric's next event time (ib->q.n > 0) without taking it: the engine
 * asks when to call the fabric next and may still inject messages earlier
 * than that, so the queue's lowest bucket cannot be split yet; ir_heap_min
 * scans it, and the answer is cached until the next pop (a push can only
 * lower it). The pop that follows splits that bucket anyway, so peeking at
 * most doubles the cost of a split. */
static inline uint64_t qmin(ir_ib *ib)
{
	if (ib->q.head0 < ib->q.bn[0])
		return ib->q.last;
	if (ib->qpeek == TMAX)
		ib->qpeek = ir_heap_min(&ib->q);
	return ib->qpeek;
}

static int ensure_wake(ir_ib *ib, uint32_t gp, uint64_t t, ir_err *e)
{
	outp *o = &ib->out[gp];
	if (o->wake <= t)
		return 0;
	o->wake = t;
	return qpush(ib, t, EV_OUT, gp, e);
}

static uint32_t pkt_new(ir_ib *ib)
{
	uint32_t i;
	if (ib->freepk != NIL) {
		i = ib->freepk;
		ib->freepk = ib->pk[i].next;
		return i;
	}
	if (ib->npk == ib->cappk && (ib->npk >= EV_MASK || IR_GROW(ib->pk, (size_t)ib->npk + 1, ib->cappk)))
		return NIL; /* an index must fit in an event's ref */
	return ib->npk++;
}

static void pkt_free(ir_ib *ib, uint32_t i)
{
	ib->pk[i].next = ib->freepk;
	ib->freepk = i;
}

static uint32_t msg_new(ir_ib *ib)
{
	uint32_t i;
	if (ib->freem != NIL) {
		i = ib->freem;
		ib->freem = ib->m[i].next;
		return i;
	}
	if (ib->nm == ib->capm && (ib->nm >= EV_MASK || IR_GROW(ib->m, (size_t)ib->nm + 1, ib->capm)))
		return NIL;
	return ib->nm++;
}

static void msg_free(ir_ib *ib, uint32_t i)
{
	ib->m[i].next = ib->freem;
	ib->freem = i;
}

/* ---- credits ---- */

static int cr_push(ir_ib *ib, uint32_t gp, unsigned vl, uint64_t t, uint32_t blocks, ir_err *e)
{
	cring *c = &ib->cr[gp * ib->nvl + vl];
	if (c->n == c->cap) {
		uint32_t nc = c->cap ? c->cap * 2 : 8, i;
		uint64_t *nt = malloc((size_t)nc * sizeof *nt);
		uint32_t *nb = malloc((size_t)nc * sizeof *nb);
		if (!nt || !nb) {
			free(nt);
			free(nb);
			return ir_errf(e, "out of memory for credit returns");
		}
		for (i = 0; i < c->n; i++) {
			nt[i] = c->t[(c->head + i) & (c->cap - 1)];
			nb[i] = c->b[(c->head + i) & (c->cap - 1)];
		}
		free(c->t);
		free(c->b);
		c->t = nt;
		c->b = nb;
		c->cap = nc;
		c->head = 0;
	}
	{
		uint32_t k = (c->head + c->n) & (c->cap - 1);
		c->t[k] = t;
		c->b[k] = blocks;
		c->n++;
	}
	/* someone waiting at this output? make sure it looks again when the credits arrive */
	{
		outp *o = &ib->out[gp];
		if (o->stall_since != TMAX)
			return ensure_wake(ib, gp, t, e);
	}
	return 0;
}

/* Absorb the returns due by now; returns the time of the next pending one (TMAX: none). */
static uint64_t cr_absorb(ir_ib *ib, uint32_t gp, unsigned vl)
{
	uint32_t k = gp * ib->nvl + vl;
	cring *c = &ib->cr[k];
	while (c->n && c->t[c->head] <= ib->now) {
		ib->cred[k] += (int32_t)c->b[c->head];
		c->head = (c->head + 1) & (c->cap - 1);
		c->n--;
	}
	return c->n ? c->t[c->head] : TMAX;
}

/* ---- moving packets ---- */

static int head_ready(ir_ib *ib, uint32_t bi, ir_err *e);
static int out_try(ir_ib *ib, uint32_t gp, ir_err *e);

static int deliver(ir_ib *ib, uint32_t mi, uint64_t t, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	if (m->kind != K_DATA) {
		ib->st.ctrl++;
		return qpush(ib, t, EV_CTRL, mi, e);
	}
	ib->st.msgs++;
	{
		uint32_t h = m->handle;
		msg_free(ib, mi);
		return ib->cl.deliver(ib->cl.ctx, h, t, e);
	}
}

/* Packet pi leaves output gp at ib->now (its serialization s). */
static int send_on(ir_ib *ib, uint32_t pi, uint32_t gp, uint64_t s, ir_err *e)
{
	outp *o = &ib->out[gp];
	const ir_topo_port *lp = &ib->t->port[gp];
	pkt *p = &ib->pk[pi];
	uint32_t peer = lp->peer, pgp = o->peer_gp;
	o->busy = ib->now + s;
	o->bytes += p->wire;
	o->pkts++;
	o->busy_ps += s;
	if (o->stall_since != TMAX) {
		o->stall_ps += ib->now - o->stall_since;
		o->stall_since = TMAX;
	}
	ib->cred[gp * ib->nvl + p->vl] -= (int32_t)p->blocks;
	ib->st.packet_hops++;
	p->t_arr = ib->now + lp->delay;
	p->t_tail = p->t_arr + s;
	if (peer < ib->t->nhosts) {
		/* the receiving host drains in arrival order at the bus rate */
		host *h = &ib->h[peer];
		uint64_t ds = umax(p->t_arr, h->drain_free);
		uint64_t de = umax(p->t_tail, ds + bus_time(ib, p->payload));
		uint32_t mi = p->msg;
		int rc = 0;
		if (ib->m[mi].dst != peer)
			return ir_errf(e, "fabric: a packet for '%s' reached host '%s' (routing tables are wrong)",
			               ir_topo_name(ib->t, ib->m[mi].dst), ir_topo_name(ib->t, peer));
		h->drain_free = de;
		if (cr_push(ib, gp, p->vl, de + ib->t->port[pgp].delay, p->blocks, e))
			return -1;
		pkt_free(ib, pi);
		ib->live--;
		if (++ib->m[mi].drained == ib->m[mi].npk)
			rc = deliver(ib, mi, de, e);
		return rc;
	}
	/* into the next switch's input buffer */
	{
		uint32_t sw = peer - ib->t->nhosts, dl = ib->t->node[ib->m[p->msg].dst].lid;
		unsigned op = ir_lft_get(&ib->lft, sw, dl);
		uint32_t bi = pgp * ib->nvl + p->vl;
		inbuf *b = &ib->in[bi];
		if (op == 0 || op == IR_LFT_NONE || op > ib->t->node[peer].nports)
			return ir_errf(e, "fabric: switch '%s' has no route to LID %u", ir_topo_name(ib->t, peer), dl);
		p->outp = ib->t->node[peer].port0 + op - 1;
		p->next = NIL;
		if (b->head == NIL) {
			b->head = b->tail = pi;
			return head_ready(ib, bi, e);
		}
		ib->pk[b->tail].next = pi;
		b->tail = pi;
		return 0;
	}
}

/* The head packet of buffer bi: request its output when it may leave. */
static int head_ready(ir_ib *ib, uint32_t bi, ir_err *e)
{
	inbuf *b = &ib->in[bi];
	pkt *p = &ib->pk[b->head];
	uint64_t so = ser(ib, p->outp, p->wire);
	uint64_t el = umax(p->t_arr + ib->cfg.switch_latency, b->read_free);
	if (p->t_tail > so && p->t_tail - so > el)
		el = p->t_tail - so;
	/* An ELIG event is needed only if the output could serve the packet
	 * before el; while the output is busy past el, the request can be
	 * registered now, and the output's own wake-up will find it eligible. */
	if (el > ib->now && el > ib->out[p->outp].busy)
		return qpush(ib, el, EV_ELIG, bi, e);
	{
		uint32_t gp = bi / ib->nvl, vl = bi % ib->nvl, ob = p->outp * ib->nvl + vl;
		uint32_t inport = gp - ib->t->node[ib->out[gp].node].port0;
		ib->req[(size_t)ob * ib->W + inport / 64] |= (uint64_t)1 << (inport % 64);
		ib->out[p->outp].nreq++;
		return out_try(ib, p->outp, e);
	}
}

/* Next set bit of a W-word set after position `after`, circularly over
 * nbits; -1 if the set is empty. */
static int next_req(const uint64_t *set, uint32_t W, uint32_t nbits, uint32_t after)
{
	uint32_t start = after + 1 >= nbits ? 0 : after + 1, w = start / 64;
	uint64_t bits = set[w] & (~(uint64_t)0 << (start % 64));
	for (;;) {
		if (bits)
			return (int)(w * 64 + (uint32_t)__builtin_ctzll(bits));
		if (++w >= W)
			break;
		bits = set[w];
	}
	for (w = 0; w * 64 < start; w++) {
		bits = set[w];
		if (w == start / 64)
			bits &= ((uint64_t)1 << (start % 64)) - 1;
		if (bits)
			return (int)(w * 64 + (uint32_t)__builtin_ctzll(bits));
	}
	return -1;
}

static int host_try(ir_ib *ib, uint32_t hn, ir_err *e)
{
	host *h = &ib->h[hn];
	uint32_t gp = h->gp, mi;
	outp *o = &ib->out[gp];
	ibmsg *m;
	uint32_t payload, wire, blocks, pi;
	uint64_t s, nxt;
	if (h->cur == NIL)
		return 0;
	if (o->busy > ib->now || h->bus_free > ib->now)
		return ensure_wake(ib, gp, umax(o->busy, h->bus_free), e);
	mi = h->cur;
	m = &ib->m[mi];
	payload = m->sent + 1 < m->npk ? ib->cfg.mtu : (uint32_t)(m->size - (uint64_t)(m->npk - 1) * ib->cfg.mtu);
	wire = payload + IR_IB_HEADER_BYTES;
	blocks = (wire + IR_IB_BLOCK - 1) / IR_IB_BLOCK;
	nxt = cr_absorb(ib, gp, m->vl);
	if (ib->cred[gp * ib->nvl + m->vl] < (int32_t)blocks) {
		if (o->stall_since == TMAX)
			o->stall_since = ib->now;
		return nxt != TMAX ? ensure_wake(ib, gp, nxt, e) : 0;
	}
	pi = pkt_new(ib);
	if (pi == NIL)
		return ir_errf(e, "out of memory for packets in flight");
	m = &ib->m[mi];
	ib->pk[pi].msg = mi;
	ib->pk[pi].wire = wire;
	ib->pk[pi].payload = payload;
	ib->pk[pi].blocks = blocks;
	ib->pk[pi].vl = m->vl;
	ib->st.packets++;
	if (++ib->live > ib->st.max_live)
		ib->st.max_live = ib->live;
	h->bus_free = ib->now + bus_time(ib, payload);
	/* round robin over the host's active messages, packet by packet */
	if (++m->sent == m->npk) {
		if (m->next == mi) {
			h->cur = NIL;
			ib->busy_hosts--;
		} else {
			ib->m[m->prev].next = m->next;
			ib->m[m->next].prev = m->prev;
			h->cur = m->next;
		}
		h->nact--;
	} else {
		h->cur = m->next;
	}
	s = ser(ib, gp, wire);
	if (send_on(ib, pi, gp, s, e))
		return -1;
	if (h->cur != NIL)
		return ensure_wake(ib, gp, umax(ib->out[gp].busy, h->bus_free), e);
	return 0;
}

/* Output gp of a switch arbitrates at ib->now. */
static int out_try(ir_ib *ib, uint32_t gp, ir_err *e)
{
	outp *o = &ib->out[gp];
	const ir_topo_node *nd;
	uint32_t nvl = ib->nvl, W = ib->W, nports;
	uint64_t earliest = TMAX;
	int stalled = 0;
	if (o->node < ib->t->nhosts)
		return host_try(ib, o->node, e);
	if (!o->nreq)
		return 0;
	if (o->busy > ib->now)
		return ensure_wake(ib, gp, o->busy, e);
	nd = &ib->t->node[o->node];
	nports = nd->nports;
	for (uint32_t k = 0; k < nvl; k++) {
		uint32_t vl = (o->cur_vl + k) % nvl, ob = gp * nvl + vl, bi, pi;
		uint64_t *set = &ib->req[(size_t)ob * W];
		int ip = next_req(set, W, nports, ib->rr[ob]);
		uint64_t nx;
		if (ip < 0)
			continue;
		bi = (nd->port0 + (uint32_t)ip) * nvl + vl;
		pi = ib->in[bi].head;
		nx = cr_absorb(ib, gp, vl);
		if (ib->cred[ob] < (int32_t)ib->pk[pi].blocks) {
			stalled = 1;
			if (nx < earliest)
				earliest = nx;
			continue;
		}
		/* forward */
		{
			inbuf *b = &ib->in[bi];
			pkt *p = &ib->pk[pi];
			uint64_t s = ser(ib, gp, p->wire);
			uint32_t ingp = nd->port0 + (uint32_t)ip, upgp = ib->out[ingp].peer_gp;
			ib->rr[ob] = (uint32_t)ip;
			set[ip / 64] &= ~((uint64_t)1 << (ip % 64));
			o->nreq--;
			if (vl == o->cur_vl) {
				if (++o->vl_sent >= ib->cfg.vlarb[vl]) {
					o->cur_vl = (uint8_t)((vl + 1) % nvl);
					o->vl_sent = 0;
				}
			} else {
				o->cur_vl = (uint8_t)vl;
				o->vl_sent = 1;
				if (o->vl_sent >= ib->cfg.vlarb[vl]) {
					o->cur_vl = (uint8_t)((vl + 1) % nvl);
					o->vl_sent = 0;
				}
			}
			b->head = p->next;
			if (b->head == NIL)
				b->tail = NIL;
			b->read_free = ib->now + s;
			/* the buffer's blocks go back upstream once the tail has left */
			if (cr_push(ib, upgp, vl, ib->now + s + ib->t->port[ingp].delay, p->blocks, e))
				return -1;
			if (send_on(ib, pi, gp, s, e))
				return -1;
			if (b->head != NIL && head_ready(ib, bi, e))
				return -1;
			o = &ib->out[gp];
			if (o->nreq)
				return ensure_wake(ib, gp, o->busy, e);
			return 0;
		}
	}
	if (stalled) {
		if (o->stall_since == TMAX)
			o->stall_since = ib->now;
		if (earliest != TMAX)
			return ensure_wake(ib, gp, earliest, e);
	}
	return 0;
}

/* ---- messages ---- */

static int msg_enter(ir_ib *ib, uint32_t mi, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	host *h = &ib->h[m->src];
	if (h->cur == NIL) {
		m->next = m->prev = mi;
		h->cur = mi;
		ib->busy_hosts++;
	} else { /* at the end of the ring: just before the cursor */
		uint32_t c = h->cur, pv = ib->m[c].prev;
		m->next = c;
		m->prev = pv;
		ib->m[pv].next = mi;
		ib->m[c].prev = mi;
	}
	h->nact++;
	return host_try(ib, m->src, e);
}

static uint32_t new_msg(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, unsigned kind,
                        ir_err *e)
{
	uint32_t mi = msg_new(ib);
	ibmsg *m;
	uint64_t np;
	if (mi == NIL) {
		ir_errf(e, "out of memory for messages in the fabric");
		return NIL;
	}
	np = size ? (size + ib->cfg.mtu - 1) / ib->cfg.mtu : 1;
	if (np > 0xFFFFFFFFull) {
		ir_errf(e, "message of %llu bytes has more than 2^32 packets", (unsigned long long)size);
		return NIL;
	}
	m = &ib->m[mi];
	memset(m, 0, sizeof *m);
	m->handle = handle;
	m->src = src;
	m->dst = dst;
	m->size = size;
	m->npk = (uint32_t)np;
	m->kind = (uint8_t)kind;
	m->vl = (uint8_t)((src + dst) % ib->nvl);
	m->data = NIL;
	return mi;
}

int ir_ib_inject(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, int rndv, uint64_t t,
                 ir_err *e)
{
	uint32_t hs, hd, mi;
	if (src >= ib->nranks || dst >= ib->nranks)
		return ir_errf(e, "fabric: message from rank %u to rank %u of %u", src, dst, ib->nranks);
	if (t < ib->now)
		return ir_errf(e, "fabric: message injected at %llu ps, before the current time %llu ps",
		               (unsigned long long)t, (unsigned long long)ib->now);
	hs = ib->rank_host[src];
	hd = ib->rank_host[dst];
	if (hs == hd) { /* same host: a copy over the bus */
		uint64_t d = bus_time(ib, size);
		ib->st.loopback++;
		ib->st.msgs++;
		if (t > TMAX - d)
			return ir_errf(e, "time overflow in the fabric");
		return ib->cl.deliver(ib->cl.ctx, handle, t + d, e);
	}
	mi = new_msg(ib, handle, hs, hd, size, K_DATA, e);
	if (mi == NIL)
		return -1;
	if (rndv && ib->cfg.rndv == IR_IB_RNDV_FABRIC) {
		uint32_t r = new_msg(ib, handle, hs, hd, 0, K_RTS, e);
		if (r == NIL)
			return -1;
		ib->m[r].data = mi;
		mi = r;
	}
	return qpush(ib, t, EV_MSG, mi, e);
}

/* A drained RTS waiting for its match: parked in a small list (a run has
 * at most one per rendezvous message in flight), found by handle. */
static int park(ir_ib *ib, uint32_t mi, ir_err *e)
{
	if (ib->npark == ib->cappark && IR_GROW(ib->park, (size_t)ib->npark + 1, ib->cappark))
		return ir_errf(e, "out of memory for rendezvous requests");
	ib->park[ib->npark++] = mi;
	return 0;
}

static int send_cts(ir_ib *ib, uint32_t mi, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	uint32_t data = m->data, c = new_msg(ib, m->handle, m->dst, m->src, 0, K_CTS, e);
	if (c == NIL)
		return -1;
	ib->m[c].data = data;
	msg_free(ib, mi);
	return msg_enter(ib, c, e);
}

int ir_ib_rndv_matched(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e)
{
	for (uint32_t i = 0; i < ib->npark; i++) {
		uint32_t mi = ib->park[i];
		if (ib->m[mi].handle != handle)
			continue;
		if (t < ib->now)
			return ir_errf(e, "fabric: rendezvous match at %llu ps, before the current time %llu ps",
			               (unsigned long long)t, (unsigned long long)ib->now);
		ib->park[i] = ib->park[--ib->npark];
		/* the CTS enters the receiver's send queue at t */
		return qpush(ib, t, EV_CTRL, mi, e);
	}
	return ir_errf(e, "fabric: rendezvous match of message %u, which has no request-to-send waiting", handle);
}

/* A control message has been drained at its destination. */
static int ctrl_done(ir_ib *ib, uint32_t mi, ir_err *e)
{
	ibmsg *m = &ib->m[mi];
	uint32_t data = m->data;
	if (m->kind == K_RTS) {
		/* the receiver answers clear-to-send: at once, or when the match is
		 * reported (a parked RTS comes back here with matched_wait set) */
		if (ib->cl.rts && !m->matched_wait) {
			m->matched_wait = 1;
			if (park(ib, mi, e))
				return -1;
			return ib->cl.rts(ib->cl.ctx, m->handle, ib->now, e);
		}
		return send_cts(ib, mi, e);
	}
	/* CTS: the data flows */
	msg_free(ib, mi);
	return msg_enter(ib, data, e);
}

/* ---- the event loop ---- */

static int deadlock(ir_ib *ib, ir_err *e)
{
	/* follow "head packet waits for credits of the next buffer" from any full buffer */
	const ir_topo *t = ib->t;
	uint32_t nb = t->nports_total * ib->nvl, start = NIL, cur, steps = 0;
	uint32_t *seen;
	ir_sb sb = IR_SB_INIT;
	for (uint32_t i = 0; i < nb && start == NIL; i++)
		if (ib->in[i].head != NIL)
			start = i;
	if (start == NIL)
		return ir_errf(e, "fabric deadlock at %llu ps: %u hosts wait to send with no credits coming",
		               (unsigned long long)ib->now, ib->busy_hosts);
	seen = calloc(nb, sizeof *seen);
	if (!seen)
		return ir_errf(e, "fabric deadlock at %llu ps (out of memory for the report)", (unsigned long long)ib->now);
	cur = start;
	while (cur != NIL && !seen[cur]) {
		seen[cur] = ++steps;
		pkt *p = &ib->pk[ib->in[cur].head];
		uint32_t nxt = ib->out[p->outp].peer_gp * ib->nvl + p->vl;
		cur = ib->in[nxt].head != NIL ? nxt : NIL;
	}
	if (cur != NIL) {
		uint32_t c = cur;
		do {
			uint32_t gp = c / ib->nvl;
			pkt *p = &ib->pk[ib->in[c].head];
			ir_sb_addf(&sb, "%s%s port %u vl %u", sb.len ? " -> " : "", ir_topo_name(t, ib->out[gp].node),
			           ib->out[gp].port, c % ib->nvl);
			c = ib->out[p->outp].peer_gp * ib->nvl + p->vl;
		} while (c != cur && sb.len < 300);
		ir_sb_addf(&sb, " -> %s port %u vl %u", ir_topo_name(t, ib->out[cur / ib->nvl].node),
		           ib->out[cur / ib->nvl].port, cur % ib->nvl);
	}
	ir_errf(e, "fabric deadlock at %llu ps: %u packets cannot move; cycle of full input buffers: %s",
	        (unsigned long long)ib->now, ib->live, sb.len ? sb.buf : "(none found)");
	ir_sb_release(&sb);
	free(seen);
	return -1;
}

int ir_ib_advance(ir_ib *ib, uint64_t t, ir_err *e)
{
	while (ib->q.n) {
		uint32_t ref;
		int rc = 0;
		ir_heap_ent *top = NULL;
		if (t != TMAX && qmin(ib) > t)
			return 0;
		if (ir_heap_top(&ib->q, &top) != 1)
			return ir_errf(e, "out of memory for the fabric's event queue");
		ib->now = top->t;
		ref = top->ref;
		ir_heap_pop(&ib->q);
		ib->qpeek = TMAX;
		ib->st.events++;
		switch (ref >> EV_SHIFT) {
		case EV_OUT: {
			uint32_t gp = ref & EV_MASK;
			if (ib->out[gp].wake != ib->now)
				break; /* superseded by an earlier wake-up */
			ib->out[gp].wake = TMAX;
			rc = out_try(ib, gp, e);
			break;
		}
		case EV_ELIG:
			rc = head_ready(ib, ref & EV_MASK, e);
			break;
		case EV_MSG:
			rc = msg_enter(ib, ref & EV_MASK, e);
			break;
		case EV_CTRL:
			rc = ctrl_done(ib, ref & EV_MASK, e);
			break;
		}
		if (rc)
			return -1;
	}
	/* nothing left to happen: any packet still in a buffer is stuck for good */
	if (ib->live || ib->busy_hosts)
		return deadlock(ib, e);
	return 0;
}

int ir_ib_run(ir_ib *ib, ir_err *e) { return ir_ib_advance(ib, TMAX, e); }

uint64_t ir_ib_next(const ir_ib *ib)
{
	return ib->q.n ? qmin((ir_ib *)ib) : TMAX;
}

uint64_t ir_ib_now(const ir_ib *ib) { return ib->now; }
const ir_ib_stats *ir_ib_get_stats(const ir_ib *ib) { return &ib->st; }
const ir_topo *ir_ib_topo(const ir_ib *ib) { return ib->t; }
const ir_lft *ir_ib_lft(const ir_ib *ib) { return &ib->lft; }
uint32_t ir_ib_rank_host(const ir_ib *ib, uint32_t rank) { return rank < ib->nranks ? ib->rank_host[rank] : NIL; }

/* ---- construction ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int place(ir_ib *ib, ir_err *e)
{
	const ir_topo *t = ib->t;
	const char *pl = ib->cfg.placement;
	uint32_t H = t->nhosts, n = ib->nranks;
	if (strcmp(pl, "seq") == 0 || strncmp(pl, "random", 6) == 0) {
		uint32_t *perm;
		if (n > H)
			return ir_errf(e, "%u ranks do not fit on the %u hosts of topology '%s' (give a placement file to put "
			                  "several ranks on a host)", n, H, ib->cfg.topo);
		perm = malloc((size_t)H * sizeof *perm);
		if (!perm)
			return ir_errf(e, "out of memory for the placement");
		for (uint32_t i = 0; i < H; i++)
			perm[i] = i;
		if (pl[0] == 'r') {
			uint64_t seed = 1;
			if (pl[6] == ':' && ir_parse_u64(pl + 7, &seed, "placement seed", e)) {
				free(perm);
				return -1;
			}
			if (pl[6] && pl[6] != ':') {
				free(perm);
				goto file;
			}
			for (uint32_t i = H; i > 1; i--) {
				uint32_t j = (uint32_t)(splitmix(&seed) % i), x = perm[i - 1];
				perm[i - 1] = perm[j];
				perm[j] = x;
			}
		}
		for (uint32_t r = 0; r < n; r++)
			ib->rank_host[r] = perm[r];
		free(perm);
		return 0;
	}
file: {
	ir_reader *r = ir_reader_open(pl, e);
	int rc;
	if (!r)
		return -1;
	rc = ir_ib_placement_read(r, t, n, ib->rank_host, e);
	ir_reader_free(r);
	return rc;
}
}

int ir_ib_placement_read(ir_reader *r, const ir_topo *t, uint32_t n, uint32_t *rank_host, ir_err *e)
{
	/* one line per rank: a host name or host index; '#' comments */
	const char *pl = ir_reader_name(r);
	uint32_t H = t->nhosts;
	char *line;
	size_t len;
	uint32_t rank = 0;
	int k;
	char q[120];
	while ((k = ir_reader_line(r, &line, &len, e)) == 1) {
		char *s = line, *x;
		uint32_t hn;
		uint64_t v;
		while (*s == ' ' || *s == '\t')
			s++;
		if ((x = strchr(s, '#')))
			*x = 0;
		x = s + strlen(s);
		while (x > s && (x[-1] == ' ' || x[-1] == '\t'))
			*--x = 0;
		if (!*s)
			continue;
		if (rank == n)
			return ir_errf_at(e, pl, ir_reader_lineno(r), "more lines than the %u ranks", n);
		hn = ir_topo_find(t, s);
		if (hn == IR_TOPO_NONE && ir_parse_u64(s, &v, "host", NULL) == 0 && v < H)
			hn = (uint32_t)v;
		if (hn == IR_TOPO_NONE || hn >= H)
			return ir_errf_at(e, pl, ir_reader_lineno(r), "rank %u: expected a host name or index 0..%u, found '%s'",
			                  rank, H - 1, ir_err_quote(q, sizeof q, s, strlen(s)));
		rank_host[rank++] = hn;
	}
	if (k < 0)
		return -1;
	if (rank < n)
		return ir_errf(e, "%s: %u lines for %u ranks", pl, rank, n);
	return 0;
}

static int check_fit(const ir_ib *ib, ir_err *e)
{
	uint32_t big = (ib->cfg.mtu + IR_IB_HEADER_BYTES + IR_IB_BLOCK - 1) / IR_IB_BLOCK;
	if (ib->cfg.buffer < big)
		return ir_errf(e, "buffer of %u blocks cannot hold one packet of MTU %u (%u blocks)", ib->cfg.buffer,
		               ib->cfg.mtu, big);
	if (ib->cfg.host_buffer < big)
		return ir_errf(e, "host_buffer of %u blocks cannot hold one packet of MTU %u (%u blocks)",
		               ib->cfg.host_buffer, ib->cfg.mtu, big);
	return 0;
}

ir_ib *ir_ib_new(const ir_ib_cfg *c, uint32_t nranks, const ir_ib_client *cl, ir_err *e)
{
	ir_ib *ib = calloc(1, sizeof *ib);
	ir_ib_cfg def;
	ir_topo_linkdef ld;
	const ir_topo *t;
	uint32_t nb, maxp = 1;
	if (!ib) {
		ir_errf(e, "out of memory for the fabric");
		return NULL;
	}
	ir_ib_config_init(&def);
	if (!c)
		c = &def;
	ib->cfg = *c;
	ib->cfg.topo = strdup(c->topo ? c->topo : def.topo);
	ib->cfg.routing = strdup(c->routing ? c->routing : def.routing);
	ib->cfg.placement = strdup(c->placement ? c->placement : def.placement);
	ib->cfg.dump_lft = c->dump_lft ? strdup(c->dump_lft) : NULL;
	ir_ib_config_release(&def);
	ib->keep = c->keep != NULL;
	ib->freepk = ib->freem = NIL;
	ir_heap_init(&ib->q);
	ir_hmap_init(&ib->po, sizeof(struct pairo), 1024, 0);
	ib->qpeek = TMAX;
	ib->nranks = nranks;
	ib->nvl = ib->cfg.vls ? ib->cfg.vls : 1;
	if (cl)
		ib->cl = *cl;
	if (!ib->cfg.topo || !ib->cfg.routing || !ib->cfg.placement || (c->dump_lft && !ib->cfg.dump_lft)) {
		ir_errf(e, "out of memory for the fabric");
		goto fail;
	}
	if (!nranks) {
		ir_errf(e, "the fabric needs at least one rank");
		goto fail;
	}
	if (check_fit(ib, e))
		goto fail;
	ld.width = ib->cfg.width;
	ld.mbps = ib->cfg.mbps;
	ld.delay = ib->cfg.delay;
	if (ir_topo_load(&ib->t, ib->cfg.topo, nranks, &ld, e))
		goto fail;
	t = ib->t;
	if (ir_route(&ib->lft, t, ib->cfg.routing, e))
		goto fail;
	if (ib->cfg.dump_lft) {
		ir_sb sb = IR_SB_INIT;
		ir_writer *w;
		if (ir_lft_write(&ib->lft, t, &sb)) {
			ir_sb_release(&sb);
			ir_errf(e, "out of memory for the LFT dump");
			goto fail;
		}
		w = ir_writer_open(ib->cfg.dump_lft, 0, e);
		if (!w || ir_writer_write(w, sb.buf, sb.len, e) || ir_writer_close(w, e)) {
			if (w)
				ir_writer_abort(w);
			ir_sb_release(&sb);
			goto fail;
		}
		ir_sb_release(&sb);
	}
	ib->rank_host = malloc((size_t)nranks * sizeof *ib->rank_host);
	if (!ib->rank_host) {
		ir_errf(e, "out of memory for the placement");
		goto fail;
	}
	if (place(ib, e))
		goto fail;
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->node[i].nports > maxp)
			maxp = t->node[i].nports;
	ib->W = (maxp + 63) / 64;
	ib->full_wire = ib->cfg.mtu + IR_IB_HEADER_BYTES;
	ib->bus_full = 0;
	{
		unsigned __int128 x = (unsigned __int128)ib->cfg.mtu * 1000000000000ull;
		ib->bus_full = (uint64_t)((x + ib->cfg.pcie - 1) / ib->cfg.pcie);
	}
	nb = t->nports_total * ib->nvl;
	ib->out = calloc(t->nports_total, sizeof *ib->out);
	ib->cred = calloc(nb, sizeof *ib->cred);
	ib->cr = calloc(nb, sizeof *ib->cr);
	ib->in = calloc(nb, sizeof *ib->in);
	ib->rr = calloc(nb, sizeof *ib->rr);
	ib->req = calloc((size_t)nb * ib->W, sizeof *ib->req);
	ib->h = calloc(t->nhosts, sizeof *ib->h);
	if (!ib->out || !ib->cred || !ib->cr || !ib->in || !ib->rr || !ib->req || !ib->h) {
		ir_errf(e, "out of memory for the fabric's ports");
		goto fail;
	}
	if ((uint64_t)nb > EV_MASK) {
		ir_errf(e, "fabric too large: %u port VLs", nb);
		goto fail;
	}
	for (uint32_t n = 0; n < t->nnodes; n++)
		for (unsigned p = 1; p <= t->node[n].nports; p++) {
			uint32_t gp = t->node[n].port0 + p - 1;
			const ir_topo_port *x = &t->port[gp];
			outp *o = &ib->out[gp];
			o->wake = TMAX;
			o->stall_since = TMAX;
			o->node = n;
			o->port = (uint16_t)p;
			o->peer_gp = x->peer == IR_TOPO_NONE ? NIL : t->node[x->peer].port0 + x->peer_port - 1;
			if (x->peer != IR_TOPO_NONE) {
				uint64_t sf = ir_topo_ser(ib->full_wire, x->mbps);
				o->ser_full = sf < UINT32_MAX ? (uint32_t)sf : 0;
			}
			for (uint32_t v = 0; v < ib->nvl; v++) {
				uint32_t k = gp * ib->nvl + v;
				ib->in[k].head = ib->in[k].tail = NIL;
				ib->rr[k] = maxp; /* first search starts at port 0 */
				ib->cred[k] = x->peer == IR_TOPO_NONE ? 0
				            : (int32_t)(x->peer < t->nhosts ? ib->cfg.host_buffer : ib->cfg.buffer);
			}
		}
	for (uint32_t h = 0; h < t->nhosts; h++) {
		unsigned p;
		for (p = 1; p <= t->node[h].nports; p++)
			if (ir_topo_portp(t, h, p)->peer != IR_TOPO_NONE)
				break;
		ib->h[h].gp = t->node[h].port0 + p - 1;
		ib->h[h].cur = NIL;
	}
	return ib;
fail:
	ir_ib_free(ib);
	return NULL;
}

void ir_ib_free(ir_ib *ib)
{
	if (!ib)
		return;
	if (ib->cr && ib->t)
		for (uint32_t i = 0; i < ib->t->nports_total * ib->nvl; i++) {
			free(ib->cr[i].t);
			free(ib->cr[i].b);
		}
	free(ib->cr);
	free(ib->out);
	free(ib->cred);
	free(ib->in);
	free(ib->rr);
	free(ib->req);
	free(ib->h);
	free(ib->pk);
	free(ib->m);
	free(ib->rank_host);
	free(ib->park);
	free(ib->hmode);
	free(ib->ho);
	ir_hmap_release(&ib->po);
	free(ib->retire);
	ir_heap_release(&ib->q);
	ir_lft_release(&ib->lft);
	ir_topo_free(ib->t);
	ir_ib_config_release(&ib->cfg);
	free(ib);
}

int ir_ib_linkstats(const ir_ib *ib, ir_sb *out)
{
	const ir_topo *t = ib->t;
	char ln[32];
	if (ir_sb_adds(out, "from\tport\tto\tport\tlink\tbytes\tpackets\tbusy_ps\tstall_ps\n"))
		return -1;
	for (uint32_t gp = 0; gp < t->nports_total; gp++) {
		const ir_topo_port *x = &t->port[gp];
		const outp *o = &ib->out[gp];
		uint64_t stall = o->stall_ps + (o->stall_since != TMAX ? ib->now - o->stall_since : 0);
		if (x->peer == IR_TOPO_NONE)
			continue;
		if (ir_sb_addf(out, "%s\t%u\t%s\t%u\t%s\t%llu\t%llu\t%llu\t%llu\n", ir_topo_name(t, o->node), o->port,
		               ir_topo_name(t, x->peer), x->peer_port, ir_topo_link_name(ln, sizeof ln, x->width, x->mbps),
		               (unsigned long long)o->bytes, (unsigned long long)o->pkts, (unsigned long long)o->busy_ps,
		               (unsigned long long)stall))
			return -1;
	}
	return 0;
}

/* ---- the engine's network ---- */

/* The entry of pair (src, dst), created if `create`; NULL if absent or out of memory. */
static struct pairo *po_get(ir_ib *ib, uint32_t src, uint32_t dst, int create)
{
	uint64_t key = ((uint64_t)src << 32 | dst) + 1;
	struct pairo *p;
	int isnew;
	if (!create)
		return ir_hmap_get(&ib->po, key, 0);
	p = ir_hmap_put(&ib->po, key, 0, &isnew);
	if (p && isnew) {
		p->key = key;
		p->held = NIL;
		if (ib->po.n > ib->st.pairs_max)
			ib->st.pairs_max = ib->po.n;
	}
	return p;
}

static void po_del(ir_ib *ib, struct pairo *p) { ir_hmap_del(&ib->po, p); }

static int en_match_deliver(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e);

static int po_drained(const struct pairo *p) { return p->out == p->in && p->held == NIL; }

/* Remember a drained pair whose last delivery lies ahead; 0 or -1 (out of memory). */
static int po_retire_later(ir_ib *ib, const struct pairo *p)
{
	if (ib->nretire == ib->capretire) {
		uint32_t n = ib->capretire ? ib->capretire * 2 : 1024, k;
		uint64_t *r = malloc((size_t)n * sizeof *r);
		if (!r)
			return -1;
		for (k = 0; k < ib->nretire; k++)
			r[k] = ib->retire[(ib->retire_head + k) % ib->capretire];
	free(ib->retire);
		ib->retire = r;
		ib->capretire = n;
		ib->retire_head = 0;
	}
	ib->retire[(ib->retire_head + ib->nretire++) % ib->capretire] = p->key;
	return 0;
}

/* Look at up to `budget` keys of the retire ring: free the pairs that are still
 * drained and whose last delivery is no longer ahead; keep the others (a pair
 * in use again is dropped from the ring: it is put back when it drains again). */
static int po_retire_sweep(ir_ib *ib, uint32_t budget)
{
	uint64_t now = ir_engine_now(ib->en);
	while (budget-- && ib->nretire) {
		uint64_t key = ib->retire[ib->retire_head];
		struct pairo *p;
		ib->retire_head = (ib->retire_head + 1) % ib->capretire;
		ib->nretire--;
		key--;
		p = po_get(ib, (uint32_t)(key >> 32), (uint32_t)key, 0);
		if (!p || !po_drained(p))
			continue;
		if (p->last <= now)
			po_del(ib, p);
		else if (po_retire_later(ib, p))
			return -1;
	}
	return 0;
}

/* Hand message `handle` (its turn in its pair) to the engine for matching at t,
 * then any held successors. */
static int po_release(ir_ib *ib, struct pairo *p, uint32_t handle, uint64_t t, ir_err *e)
{
	for (;;) {
		uint32_t *pp, h;
		if (t < p->last)
			t = p->last; /* never before an earlier message of the pair */
		p->last = t;
		p->out++;
		if (ir_engine_deliver(ib->en, handle, t, e))
			return -1;
		for (pp = &p->held; (h = *pp) != NIL; pp = &ib->ho[h].next_held)
			if (ib->ho[h].seq == p->out)
				break;
		if (h == NIL)
			break;
		*pp = ib->ho[h].next_held;
		handle = h;
		if (ib->ho[h].t > t)
			t = ib->ho[h].t;
	}
	if (po_drained(p)) {
		if (p->last <= ir_engine_now(ib->en))
			po_del(ib, p);
		else if (po_retire_later(ib, p))
			return ir_errf(e, "out of memory");
	}
	return 0;
}

static int en_match_deliver(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e)
{
	struct hord *o = &ib->ho[handle];
	struct pairo *p = po_get(ib, o->src, o->dst, 0);
	if (!p)
		return ir_errf(e, "fabric: message handle %u delivered with no pair in flight", handle);
	if (o->seq != p->out) {
		/* an earlier message of the pair is still on its way */
		o->t = t;
		o->next_held = p->held;
		p->held = handle;
		return 0;
	}
	return po_release(ib, p, handle, t, e);
}

static int en_deliver(void *ctx, uint32_t handle, uint64_t t, ir_err *e)
{
	ir_ib *ib = ctx;
	if (handle < ib->nhmode && ib->hmode[handle] == HM_FABRIC) {
		/* the data of a matched rendezvous message has arrived */
		ib->hmode[handle] = HM_NONE;
		return ir_engine_complete(ib->en, handle, t, e);
	}
	return en_match_deliver(ib, handle, t, e);
}

/* The request-to-send has been drained at the receiver: the engine matches it. */
static int en_rts(void *ctx, uint32_t handle, uint64_t t, ir_err *e)
{
	return en_match_deliver(ctx, handle, t, e);
}

static int en_sync(ir_ib *ib, ir_err *e)
{
	uint64_t nx = ir_ib_next(ib);
	if (nx == TMAX || nx >= ib->en_wake)
		return 0;
	ib->en_wake = nx;
	return ir_engine_call_at(ib->en, nx, 0, e);
}

static int en_init(void **state, ir_engine *en, uint32_t nranks, const ir_loggops *p, const void *arg, ir_err *e)
{
	const ir_ib_cfg *c = arg;
	ir_ib_client cl = { .ctx = NULL, .deliver = en_deliver, .rts = en_rts };
	ir_ib *ib = ir_ib_new(c, nranks, &cl, e);
	if (!ib)
		return -1;
	ib->cl.ctx = ib;
	ib->en = en;
	ib->en_wake = TMAX;
	ib->o = p->o;
	ib->o_rndv = p->o_rndv;
	ib->send_o = p->send_o;
	if (c && c->keep)
		*c->keep = ib;
	*state = ib;
	return 0;
}

static int en_inject(void *state, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	ir_ib *ib = state;
	/* the message leaves the host when the sender's overhead is over (ir_model.h) */
	uint64_t o = ib->send_o.n ? ir_pw_eval(&ib->send_o, m->size) : m->rndv ? ib->o_rndv : ib->o;
	if (t > TMAX - o)
		return ir_errf(e, "time overflow: message %llu injected after 2^64 ps", (unsigned long long)m->id);
	if (m->rndv) {
		if (msg >= ib->nhmode) {
			size_t old = ib->nhmode;
			if (IR_GROW(ib->hmode, (size_t)msg + 1, ib->nhmode))
				return ir_errf(e, "out of memory");
			memset(ib->hmode + old, 0, ib->nhmode - old);
		}
		ib->hmode[msg] = ib->cfg.rndv == IR_IB_RNDV_FABRIC && ib->rank_host[m->src] != ib->rank_host[m->dst]
		                 ? HM_FABRIC : HM_WHOLE;
	}
	if (msg >= ib->nho && IR_GROW(ib->ho, (size_t)msg + 1, ib->nho))
		return ir_errf(e, "out of memory");
	{
		struct pairo *p;
		if (po_retire_sweep(ib, 4))
			return ir_errf(e, "out of memory");
		p = po_get(ib, m->src, m->dst, 1);
		if (!p)
			return ir_errf(e, "out of memory");
		ib->ho[msg].src = m->src;
		ib->ho[msg].dst = m->dst;
		ib->ho[msg].seq = p->in++;
		ib->ho[msg].next_held = NIL;
	}
	if (ir_ib_inject(ib, msg, m->src, m->dst, m->size, m->rndv, t + o, e))
		return -1;
	return en_sync(ib, e);
}

/* The engine matched rendezvous message `msg` with its receive at t. */
static int en_matched(void *state, uint32_t msg, uint64_t t, ir_err *e)
{
	ir_ib *ib = state;
	if (msg >= ib->nhmode || ib->hmode[msg] == HM_NONE)
		return ir_errf(e, "fabric: match of message handle %u, which is not a rendezvous message in flight", msg);
	if (ib->hmode[msg] == HM_WHOLE) {
		ib->hmode[msg] = HM_NONE;
		return ir_engine_complete(ib->en, msg, t, e);
	}
	/* the clear-to-send leaves now; en_deliver completes the message when the data is in */
	if (ir_ib_rndv_matched(ib, msg, t, e))
		return -1;
	return en_sync(ib, e);
}

static int en_wakeup(void *state, uint64_t t, uint64_t cookie, ir_err *e)
{
	ir_ib *ib = state;
	(void)cookie;
	if (t == ib->en_wake)
		ib->en_wake = TMAX;
	if (ir_ib_advance(ib, t, e))
		return -1;
	return en_sync(ib, e);
}

static void en_free(void *state)
{
	ir_ib *ib = state;
	if (ib && !ib->keep)
		ir_ib_free(ib);
}

const ir_net_ops ir_net_ib = {
	.name = "ib",
	.flags = IR_NET_MODELS_BYTES | IR_NET_RNDV_HANDSHAKE,
	.init = en_init,
	.inject = en_inject,
	.wakeup = en_wakeup,
	.matched = en_matched,
	.free = en_free,
};

/* ---- the registry's entry (ir_net.h) ---- */

static void *ty_cfg_new(void)
{
	ir_ib_cfg *c = malloc(sizeof *c);
	if (c)
		ir_ib_config_init(c);
	return c;
}

static int ty_cfg_set(void *cfg, const char *key, const char *value, ir_err *e)
{
	return ir_ib_config_set(cfg, key, value, e);
}

static void ty_cfg_free(void *cfg)
{
	if (!cfg)
		return;
	ir_ib_config_release(cfg);
	free(cfg);
}

static void ty_cfg_keep(void *cfg, void **inst) { ((ir_ib_cfg *)cfg)->keep = (ir_ib **)inst; }
static void ty_inst_free(void *inst) { ir_ib_free(inst); }

const ir_net_type ir_net_type_ib = {
	.name = "ib",
	.desc = "InfiniBand: packets, credits and cut-through switches on a topology",
	.ops = &ir_net_ib,
	.keys = ir_ib_keys,
	.help = ir_ib_help,
	.cfg_new = ty_cfg_new,
	.cfg_set = ty_cfg_set,
	.cfg_free = ty_cfg_free,
	.cfg_keep = ty_cfg_keep,
	.inst_free = ty_inst_free,
};
