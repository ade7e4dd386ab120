/*
 * ir_net_ib.h: the InfiniBand network of ibsim (--net ib): a packet-level,
 * credit-exact model of an InfiniBand fabric behind the engine's network
 * interface (ir_net.h). docs/ib-model.md describes the model as built.
 *
 * Two ways to drive it:
 *  - through the engine: `ir_net_ib` is an ir_net_ops; the engine passes an
 *    ir_ib_cfg as net_arg (NULL: all defaults). Messages enter the fabric at
 *    t + o (t + o_rndv for rendezvous), the send overhead of LogGOPS, and are
 *    delivered when their last byte has been drained into the receiving
 *    host's memory;
 *  - standalone (tests, benchmarks, calibration): ir_ib_new(), then
 *    ir_ib_inject() messages and ir_ib_run() or ir_ib_advance(); arrivals are
 *    reported through the client's deliver() callback.
 *
 * Configuration: every setting is a key of one table (ir_ib_keys(), printed
 * by ir_ib_help()); ir_ib_config_set() takes a key or an option name
 * ("switch-latency" = "switch_latency") and a value as the user typed it, so
 * ibsim can pass its --topo/--link/... options and params-file keys through
 * one call. The defaults are those of docs/ib-model.md section 3.
 *
 * Rendezvous through the fabric (rndv = fabric): a message above S is sent
 * as a request-to-send packet; the receiver answers clear-to-send; then the
 * data flows. When the engine reports matches (ir_ib_rndv_matched) the CTS
 * leaves at the match; until then (the engine does not yet call it) the CTS
 * leaves as soon as the RTS has been drained, i.e. the receive is taken to
 * be posted. A client with an rts() callback gets the RTS arrival and
 * answers with ir_ib_rndv_matched() (standalone use now; the engine once it
 * reports matches). rndv = loggopsim sends the data at once, as LogGOPSim
 * does.
 */
#ifndef IR_NET_IB_H
#define IR_NET_IB_H

#include <stdint.h>

#include "ir_err.h"
#include "ir_hmap.h"
#include "ir_io.h"
#include "ir_net.h"
#include "ir_route.h"
#include "ir_strbuf.h"
#include "ir_topo.h"

typedef struct ir_ib ir_ib;

enum { IR_IB_RNDV_FABRIC = 0, IR_IB_RNDV_LOGGOPSIM = 1 };
/* path selection with LMC > 0 (docs/ib-model.md section 10) */
enum { IR_IB_PATH_STATIC = 0, IR_IB_PATH_RANDOM, IR_IB_PATH_RR, IR_IB_PATH_ADAPTIVE, IR_IB_PATH_CREDITS };
#define IR_IB_MAX_VLS 15
#define IR_IB_HEADER_BYTES 26 /* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
#define IR_IB_BLOCK 64        /* credit unit */
#define IR_IB_CCT_MAX 256     /* congestion control table entries at most */

typedef struct ir_ib_cfg {
	char *topo;          /* generator or file; "star": one switch with a port per rank */
	char *routing;       /* minhop | updn | ftree | dor | minimal | valiant | ugal | ugal-g | lft:FILE */
	char *placement;     /* seq | random[:SEED] | FILE */
	char *dump_lft;      /* write the computed tables here (NULL: no) */
	char *dump_netfile;  /* write the topology as an ibsim-utils net file here (NULL: no) */
	char *route_stats;   /* write the routes per link direction here (NULL: no) */
	uint16_t width;      /* link: lanes */
	uint32_t mbps;       /* link: data rate, Mb/s after encoding */
	uint32_t mtu;        /* 256, 512, 1024, 2048, 4096 */
	uint32_t vls;        /* data VLs, 1..15 */
	uint32_t vlarb[IR_IB_MAX_VLS]; /* packets per VL turn (weighted round robin) */
	uint32_t buffer;     /* switch input buffer per port and VL, blocks of 64 bytes */
	uint32_t host_buffer;/* host receive buffer per VL, blocks */
	uint64_t delay;      /* propagation delay per link direction, ps */
	/* link classes of the torus, mesh and dragonfly generators: local
	 * (switch to switch; dragonfly: inside a group) and global (dragonfly,
	 * between groups); a flag 0 means as `link` / `delay` */
	uint16_t local_width, global_width;
	uint32_t local_mbps, global_mbps;
	uint64_t local_delay, global_delay;
	uint8_t local_link_set, global_link_set, local_delay_set, global_delay_set;
	uint64_t switch_latency; /* ps from header arrival to forwarding */
	uint64_t pcie;       /* host bus, bytes per second */
	int rndv;            /* IR_IB_RNDV_FABRIC or IR_IB_RNDV_LOGGOPSIM */
	/* service levels (docs/ib-model.md section 9): the SL of a message and the
	 * SL-to-VL table of every port; VL arbitration's high-priority table */
	uint8_t sl_hash;     /* 1: SL = (source host + destination host) mod the base VLs */
	uint8_t sl;          /* the SL of every message when !sl_hash and !sl_file */
	char *sl_file;       /* SL per rank pair: lines "SRC DST SL" (NULL: none) */
	uint8_t sl2vl_set;   /* 0: VL = SL mod the base VLs */
	uint8_t sl2vl[16];
	uint32_t vlarb_high[IR_IB_MAX_VLS]; /* packets per turn in the high-priority table, 0: not in it */
	uint32_t vlarb_high_limit; /* high-priority packets sent while a low-priority one waits */
	/* multipath (docs/ib-model.md section 10): 2^lmc LIDs per host and the
	 * choice of a message's (or a packet's) destination LID */
	uint8_t lmc;         /* 0..7 */
	uint8_t path;        /* IR_IB_PATH_* */
	uint8_t path_packet; /* 1: choose per packet, 0: per message */
	uint64_t path_seed;  /* path = random:SEED */
	/* congestion control (docs/ib-model.md section 8), off unless cc */
	uint8_t cc;
	double cc_threshold;       /* fraction of `buffer`: an output VL's queue above it marks FECN */
	uint32_t cc_marking_rate;  /* mark every n-th packet leaving such an output */
	uint64_t cc_timer;         /* ps: every period each flow's CCTI drops by one */
	uint32_t cc_increase;      /* CCTI_Increase per notification */
	uint32_t cc_limit;         /* CCTI_Limit (< cc_ncct) */
	uint32_t cc_ncct;          /* entries of cc_cct */
	uint64_t cc_cct[IR_IB_CCT_MAX]; /* inter-packet delay per index, ps */
	/* Not settable by key: if set, ir_net_ib's init stores the instance
	 * here and its free() leaves it to the caller, who reads link
	 * statistics and then calls ir_ib_free(). */
	ir_ib **keep;
	/* Not settable by key: a partitioned run (ibsim-mpi; docs/ib-model.md section 13),
	 * NULL: the whole fabric in this process. Requires an engine that orders ties by key. */
	const struct ir_ib_part *part;
} ir_ib_cfg;

/* ---- partitioned runs (docs/ib-model.md section 13) ----
 *
 * Every process builds the whole fabric and simulates the nodes it owns: a rank's process
 * is given (rank_owner), a host goes with its ranks, a host with none and every switch
 * cabled to hosts with the process of those hosts (a host shares state with its switch:
 * its drain, the adaptive path choice), the other switches with the process most of their
 * neighbours have (ties: the lowest), in order of their index, until all have one.
 * An event a node makes for a node of another process (a packet's head reaching the next
 * switch, credits returning upstream, a congestion notification) is handed to xsend() as
 * one item of ir_ib_xitem_size() bytes with its key; that process queues it with
 * ir_ib_xput() before its next window. The lookahead is the least delay of a link
 * between two processes' switches (ir_ib_part_plan). */
typedef struct ir_ib_part {
	const uint32_t *rank_owner; /* [nranks] */
	uint32_t nprocs, me;
	int (*xsend)(void *ctx, uint32_t proc, const void *item, size_t size, ir_err *e);
	void *ctx;
} ir_ib_part;

/* The unit a partition keeps whole for `rank`: the switch its host is cabled to, or its
 * host when it has no switch. */
uint32_t ir_ib_rank_unit(const ir_ib *ib, uint32_t rank);
/* The owner of every node (node_owner[nnodes]) for rank_owner, as above; the links between
 * processes (each direction once) in *cut_links and the least delay of one in *lookahead
 * (UINT64_MAX when there is none). Fails when the ranks of one unit have two owners, when a
 * setting couples nodes with no delay (rndv = loggopsim, routing ugal or ugal-g, path =
 * random), or when a link between processes has no delay. */
int ir_ib_part_plan(const ir_ib *ib, const uint32_t *rank_owner, uint32_t nprocs, uint32_t *node_owner,
                    uint64_t *cut_links, uint64_t *lookahead, ir_err *e);
size_t ir_ib_xitem_size(void);
/* Queue `n` items (n * ir_ib_xitem_size() bytes) that other processes sent here. */
int ir_ib_xput(ir_ib *ib, const void *items, size_t n, ir_err *e);
/* Packets in this process's part of the fabric (after a run: stuck ones). */
uint64_t ir_ib_live(const ir_ib *ib);
/* The link counters ir_ib_linkstats writes, 4 per port (bytes, packets, busy_ps, stall_ps) in
 * port order: copied into v (set 0) or from it (set 1); ir_ib_ncounters() of them. A
 * partitioned run sums them over the processes (each port is counted where its node is). */
size_t ir_ib_ncounters(const ir_ib *ib);
void ir_ib_counters(ir_ib *ib, uint64_t *v, int set);

void ir_ib_config_init(ir_ib_cfg *c);    /* the defaults (cannot fail: the table is checked by tests) */
void ir_ib_config_release(ir_ib_cfg *c);
/* Set `key` (params key or long option name without "--") to `value`.
 * Returns 0, -1 with e set on a bad value, -2 (e set) for an unknown key. */
int ir_ib_config_set(ir_ib_cfg *c, const char *key, const char *value, ir_err *e);
/* NULL-terminated list of the keys (normalized, '_'), for "unknown parameter" checks. */
const char *const *ir_ib_keys(void);
/* The table of keys, defaults and meanings, one "  key  default  meaning" line each (for --help). */
int ir_ib_help(ir_sb *out);

/* ---- standalone use ---- */
typedef struct ir_ib_client {
	void *ctx;
	/* message `handle` has been drained at its destination at time t (t >= now) */
	int (*deliver)(void *ctx, uint32_t handle, uint64_t t, ir_err *e);
	/* Optional, for rndv = fabric: the request-to-send of rendezvous message
	 * `handle` has been drained at the receiver at t. When set, the CTS
	 * waits for ir_ib_rndv_matched(handle); when NULL, it leaves at once. */
	int (*rts)(void *ctx, uint32_t handle, uint64_t t, ir_err *e);
} ir_ib_client;

/* Read a placement file (one line per rank: a host name of t or a host index; '#'
 * comments, blank lines skipped) into rank_host[0..n). Errors name the line. */
int ir_ib_placement_read(ir_reader *r, const ir_topo *t, uint32_t n, uint32_t *rank_host, ir_err *e);

/* Read an SL file (sl = FILE; docs/ib-model.md section 9): rules "SRC DST SL",
 * ranks below nranks or "*", SL 0..15, '#' comments. Into `map` (an
 * IR_HMAP_PAIR map of 1-byte values): key (SRC + 1, DST + 1), 0 for "*".
 * Errors name the line; a second rule for a pair is one. */
int ir_ib_sl_read(ir_reader *r, uint32_t nranks, ir_hmap *map, ir_err *e);

/* Build the fabric: topology, routes (checked), placement of `nranks` ranks. */
ir_ib *ir_ib_new(const ir_ib_cfg *c, uint32_t nranks, const ir_ib_client *cl, ir_err *e);
void ir_ib_free(ir_ib *ib); /* NULL is a no-op */

/* A message of `size` bytes from rank src to rank dst enters the fabric at
 * t (>= the fabric's current time). `rndv`: rendezvous protocol. */
int ir_ib_inject(ir_ib *ib, uint32_t handle, uint32_t src, uint32_t dst, uint64_t size, int rndv, uint64_t t,
                 ir_err *e);
/* Rendezvous message `handle` (whose RTS was reported through the client's
 * rts()) has been matched at its receiver at t (>= now): the CTS leaves. */
int ir_ib_rndv_matched(ir_ib *ib, uint32_t handle, uint64_t t, ir_err *e);
/* Process every internal event at a time <= t. Fails on a fabric deadlock
 * (no event left while packets wait), naming the cycle of buffers. */
int ir_ib_advance(ir_ib *ib, uint64_t t, ir_err *e);
/* Advance until nothing is left. */
int ir_ib_run(ir_ib *ib, ir_err *e);
/* Time of the next internal event, UINT64_MAX when idle. */
uint64_t ir_ib_next(const ir_ib *ib);
uint64_t ir_ib_now(const ir_ib *ib);

/* ---- results ---- */
typedef struct ir_ib_stats {
	uint64_t events;        /* internal events processed */
	uint64_t packets;       /* packets injected by hosts */
	uint64_t packet_hops;   /* packets sent over links */
	uint64_t msgs;          /* data messages delivered */
	uint64_t ctrl;          /* RTS and CTS messages */
	uint64_t loopback;      /* messages between ranks on one host */
	uint64_t max_live;      /* most packets in switch buffers at once */
	uint64_t pairs_max;     /* most (source, destination) entries of the pair-order table at once */
	uint64_t nonminimal;    /* valiant, ugal, ugal-g: messages (and RTS/CTS) sent by way of an intermediate router */
	uint64_t fecn;          /* cc: packets marked with FECN */
	uint64_t becn;          /* cc: congestion notifications that reached their source */
	uint64_t ccti_max;      /* cc: the highest CCTI any flow reached */
	uint64_t path_other;    /* lmc > 0: packets sent to another LID than their pair's static one */
} ir_ib_stats;
const ir_ib_stats *ir_ib_get_stats(const ir_ib *ib);
const ir_topo *ir_ib_topo(const ir_ib *ib);
const ir_lft *ir_ib_lft(const ir_ib *ib);
uint32_t ir_ib_rank_host(const ir_ib *ib, uint32_t rank); /* host node of a rank */
/* Congestion control: the CCT index of the flow from rank src's host to rank
 * dst's host at time t (>= the time of its last notification; the timer's
 * decrements up to t applied); 0 for a flow never notified or with cc off. */
uint32_t ir_ib_cc_index(const ir_ib *ib, uint32_t src, uint32_t dst, uint64_t t);
/* Per link direction, TSV with a header line:
 * from port to port link bytes packets busy_ps stall_ps */
int ir_ib_linkstats(const ir_ib *ib, ir_sb *out);

/* The engine's network (ir_net.h): net_arg is a const ir_ib_cfg * or NULL. */
extern const ir_net_ops ir_net_ib;

#endif
