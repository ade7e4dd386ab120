/*
 * ir_route.h: linear forwarding tables (LFTs) of the InfiniBand model: the
 * routing engines minhop, updn and ftree, and OpenSM's LFT dump layout
 * (read and write).
 *
 * Every switch forwards by a table indexed by destination LID: the output
 * port, 0 for the switch itself, IR_LFT_NONE for no route. Tables are one
 * byte per (switch, LID), so a 4000-node fabric takes a few megabytes and a
 * lookup in the simulator is one load.
 *
 * A host sends and receives on its first connected port; routes to a host
 * end at the switch on the other side of that port. Routes are computed per
 * destination switch (one BFS) and then per host, so the cost is
 * O(switches x links) plus O(hosts x switches x ports), well under a second
 * for the 3456-host fattree3:24.
 *
 *   minhop   shortest paths; among equal ports the one with the fewest
 *            destinations routed through it so far, in LID order, as OpenSM
 *            balances (ties: the lowest port)
 *   updn     up*-down* from the switches farthest from any host (the top
 *            level of a tree; every switch on a ring): ranks by BFS from
 *            those roots, an edge goes up towards a lower (rank, index); a
 *            switch that can reach the destination going only down does so,
 *            else it goes up on a shortest legal route. Deadlock-free on any
 *            topology.
 *   ftree    destination-modulo-k on fat trees: a switch with the
 *            destination below it goes down; otherwise up port
 *            (host / d) mod u, where u is its number of up ports and d the
 *            product of up-port counts of the levels below.
 *   lft:FILE an OpenSM opensm-lfts.dump or ibroute/dump_lfts output
 *   dor      dimension-order routing on torus:/mesh: generators: dimension
 *            0 first, each the shorter way round its ring (ties: +);
 *            datelines on VLs (below)
 *   minimal  dragonfly: local, global, local (at most 3 router hops), the
 *            global link that saves a local hop preferred
 *   valiant  dragonfly: minimal to a random intermediate group's router
 *            (the one its global link from the source group lands on), then
 *            minimal to the destination; the choice is a seeded hash of the
 *            (source, destination) pair, so runs repeat
 *   ugal     dragonfly: at injection, minimal or the Valiant path, whichever
 *            has the smaller (queue at the first router's output) x (hops)
 *   ugal-g   the same choice by the sum of (queue + 1) over every output of
 *            each path (global knowledge, as UGAL-G)
 *
 * Forwarding stays destination-based: Valiant and UGAL paths are two
 * destination-routed legs, source host to the intermediate router's LID and
 * on to the destination; the fabric carries the intermediate LID in the
 * packet (ir_route_via()), as a source-routed header would.
 *
 * VL classes: a routing that needs virtual lanes to be deadlock-free says
 * how a packet's VL class changes at each switch (ir_lft_next_class): dor on
 * a torus moves a packet to class 1 when it crosses a ring's wrap-around
 * link (the dateline) and back to 0 when it turns into another dimension (2
 * classes; a mesh needs 1); the dragonfly routings add one class at each
 * global hop (minimal 2, valiant and ugal 3). The fabric's VL is
 * base + class, base a multiple of the class count chosen by the host pair.
 * ir_route_cdg() checks the dependency graph of (link, VL class) channels
 * over every host pair's path.
 *
 * Multipath (LMC > 0): a host answers to 2^lmc LIDs, its base LID and the
 * next 2^lmc - 1, as a port whose PortInfo has LMC set. The tables keep the
 * topology's base LIDs and hold one plane per LID offset k (plane 0 is the
 * table of the base LIDs, the only one without LMC): ir_lft_get_path(l, sw,
 * lid, k) is the entry of LID base + k. minhop and updn give the LIDs of one
 * destination different ports where they can, as OpenSM does: among the
 * candidates of a switch, a port towards a neighbour that no earlier LID of
 * the destination uses at that switch first, then the least used; ftree
 * shifts its up port by the LID offset at each level ((h + k) / d mod u), so
 * the LIDs of a host arrive over different spines. Each plane is a routing
 * of the same engine, so updn and ftree stay deadlock-free (every plane goes
 * up*, then down*, on the same ranking). Other engines refuse lmc > 0.
 *
 * ir_lft_check() follows every route and fails on a missing entry, a dead
 * port or a loop, so a bad table file is an error before the run, never a
 * hang.
 */
#ifndef IR_ROUTE_H
#define IR_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"
#include "ir_topo.h"

#define IR_LFT_NONE 255

enum { IR_VLM_NONE = 0, IR_VLM_DATELINE = 1, IR_VLM_GLOBAL = 2 };
enum { IR_PATH_DEST = 0, IR_PATH_VALIANT = 1, IR_PATH_UGAL = 2, IR_PATH_UGAL_G = 3 };

typedef struct ir_lft {
	uint32_t nsw;   /* switches; switch i is topology node nhosts + i */
	uint32_t nlid;  /* max_lid + 1 */
	uint8_t *port;  /* [npath * nsw * nlid]: plane k holds the entries of LID base + k */
	unsigned lmc;   /* LID mask control: 2^lmc LIDs per host */
	uint32_t npath; /* 2^lmc */
	/* VL classes (IR_VLM_*): how many, and per topology port its class
	 * bits: low 7 bits a group (torus: dimension + 1; 0 host link), bit 7
	 * the port starts a wrap-around (torus) or global (dragonfly) link */
	int vlmode;
	unsigned nclass;
	uint8_t *pcls;  /* [nports_total], NULL for IR_VLM_NONE */
	int path;       /* IR_PATH_*: destination-based, or two legs by ir_route_via() */
	uint64_t seed;  /* of the Valiant choice */
} ir_lft;

static inline unsigned ir_lft_get(const ir_lft *l, uint32_t sw, uint32_t lid)
{
	return l->port[(size_t)sw * l->nlid + lid];
}

/* The entry of LID lid + k (k < npath) of a host whose base LID is lid. */
static inline unsigned ir_lft_get_path(const ir_lft *l, uint32_t sw, uint32_t lid, uint32_t k)
{
	return l->port[((size_t)k * l->nsw + sw) * l->nlid + lid];
}

/* The LID offset a host pair takes under a static choice (path = static):
 * (source host + destination host) mod 2^lmc, the hash the SLs use. */
static inline uint32_t ir_lft_static_path(const ir_lft *l, uint32_t src, uint32_t dst)
{
	return (src + dst) & (l->npath - 1);
}

/* The VL class of a packet that entered a switch on port in_gp with class c
 * and leaves on out_gp (global port indices). */
static inline unsigned ir_lft_next_class(const ir_lft *l, uint32_t in_gp, uint32_t out_gp, unsigned c)
{
	unsigned a, b;
	if (l->vlmode == IR_VLM_NONE)
		return c;
	a = l->pcls[in_gp];
	b = l->pcls[out_gp];
	if (l->vlmode == IR_VLM_DATELINE)
		return ((a & 0x7f) == (b & 0x7f) ? c : 0) | (b >> 7);
	return c + (b >> 7);
}

int ir_lft_init(ir_lft *l, const ir_topo *t, ir_err *e); /* all entries IR_LFT_NONE, lmc 0 */
/* The same with 2^lmc planes (lmc 0..IR_LFT_MAX_LMC). */
int ir_lft_init_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e);
void ir_lft_release(ir_lft *l);

#define IR_LFT_MAX_LMC 7

/* "minhop", "updn", "ftree", "dor", "minimal", "valiant", "ugal", "ugal-g" or "lft:FILE". */
int ir_route(ir_lft *l, const ir_topo *t, const char *engine, ir_err *e);
/* The same with 2^lmc LIDs per host (minhop, updn and ftree; the others
 * refuse lmc > 0). lmc 0 is ir_route. */
int ir_route_lmc(ir_lft *l, const ir_topo *t, const char *engine, unsigned lmc, ir_err *e);
int ir_route_dor(ir_lft *l, const ir_topo *t, ir_err *e);
/* minimal, valiant and ugal share the tables; `path` is IR_PATH_*. */
int ir_route_dragonfly(ir_lft *l, const ir_topo *t, int path, ir_err *e);

/* The intermediate switch (topology node) of the Valiant leg from host
 * src to host dst, IR_TOPO_NONE when the path is direct (one group, or
 * l->path is IR_PATH_DEST). */
uint32_t ir_route_via(const ir_lft *l, const ir_topo *t, uint32_t src, uint32_t dst);

/* Channel dependency check over (link direction, VL class) channels, walking
 * every host pair's path (both legs when there is a via; every LID of the
 * destination with LMC). Returns 0 when
 * acyclic, 1 with a message naming a channel on a cycle in e, -1 on error
 * (no route, a class beyond nclass, out of memory). O(hosts^2 x hops): for
 * tests and small fabrics. */
int ir_route_cdg(const ir_lft *l, const ir_topo *t, ir_err *e);
int ir_route_minhop(ir_lft *l, const ir_topo *t, ir_err *e);
int ir_route_updn(ir_lft *l, const ir_topo *t, ir_err *e);
int ir_route_ftree(ir_lft *l, const ir_topo *t, ir_err *e);
/* with 2^lmc LIDs per host */
int ir_route_minhop_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e);
int ir_route_updn_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e);
int ir_route_ftree_lmc(ir_lft *l, const ir_topo *t, unsigned lmc, ir_err *e);

/* Every host reaches every other host (by each of its LIDs): no missing
 * entry, no unconnected port, no loop. The message names the switch and the
 * destination. */
int ir_lft_check(const ir_lft *l, const ir_topo *t, ir_err *e);

/* Routes per link direction (formats/topology.md): a TSV line per connected port with the
 * number of ordered host pairs whose route leaves through it, then a '#' summary over the
 * links between switches (count, routes, max, mean, max/mean). The tables must be checked. */
int ir_lft_route_stats(const ir_lft *l, const ir_topo *t, ir_sb *out, ir_err *e);
/* The same where a pair counts once per LID of its destination (all = 1, the
 * lines of ir_lft_route_stats), or only on the LID of ir_lft_static_path
 * (all = 0, as path = static sends). Without LMC the two are the same. */
int ir_lft_route_stats_paths(const ir_lft *l, const ir_topo *t, int all, ir_sb *out, ir_err *e);

/* OpenSM's dump layout (opensm-lfts.dump). Reading also accepts ibroute's
 * output; switches are found by GUID, else by LID; an entry's destination by
 * the port GUID of its comment where the topology knows it (a CA's port GUID
 * from ibnetdiscover's "(portguid)", a switch's node GUID), else by its LID.
 * Writing names each destination so. */
int ir_lft_write(const ir_lft *l, const ir_topo *t, ir_sb *out);
int ir_lft_parse(ir_lft *l, const ir_topo *t, const char *text, size_t len, const char *name, ir_err *e);
int ir_lft_load(ir_lft *l, const ir_topo *t, const char *path, ir_err *e);

#endif
