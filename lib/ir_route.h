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

typedef struct ir_lft {
	uint32_t nsw;   /* switches; switch i is topology node nhosts + i */
	uint32_t nlid;  /* max_lid + 1 */
	uint8_t *port;  /* [nsw * nlid] */
} ir_lft;

static inline unsigned ir_lft_get(const ir_lft *l, uint32_t sw, uint32_t lid)
{
	return l->port[(size_t)sw * l->nlid + lid];
}

int ir_lft_init(ir_lft *l, const ir_topo *t, ir_err *e); /* all entries IR_LFT_NONE */
void ir_lft_release(ir_lft *l);

/* "minhop", "updn", "ftree" or "lft:FILE". */
int ir_route(ir_lft *l, const ir_topo *t, const char *engine, ir_err *e);
int ir_route_minhop(ir_lft *l, const ir_topo *t, ir_err *e);
int ir_route_updn(ir_lft *l, const ir_topo *t, ir_err *e);
int ir_route_ftree(ir_lft *l, const ir_topo *t, ir_err *e);

/* Every host reaches every other host: no missing entry, no unconnected
 * port, no loop. The message names the switch and the destination. */
int ir_lft_check(const ir_lft *l, const ir_topo *t, ir_err *e);

/* Routes per link direction (formats/topology.md): a TSV line per connected port with the
 * number of ordered host pairs whose route leaves through it, then a '#' summary over the
 * links between switches (count, routes, max, mean, max/mean). The tables must be checked. */
int ir_lft_route_stats(const ir_lft *l, const ir_topo *t, ir_sb *out, ir_err *e);

/* OpenSM's dump layout (opensm-lfts.dump). Reading also accepts ibroute's
 * output; switches are found by GUID, else by LID; an entry's destination by
 * the port GUID of its comment where the topology knows it (a CA's port GUID
 * from ibnetdiscover's "(portguid)", a switch's node GUID), else by its LID.
 * Writing names each destination so. */
int ir_lft_write(const ir_lft *l, const ir_topo *t, ir_sb *out);
int ir_lft_parse(ir_lft *l, const ir_topo *t, const char *text, size_t len, const char *name, ir_err *e);
int ir_lft_load(ir_lft *l, const ir_topo *t, const char *path, ir_err *e);

#endif
