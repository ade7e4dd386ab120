/*
 * ir_topo.h: InfiniBand fabric topologies for ibsim --net ib: the graph of
 * hosts and switches, its generators, its two file formats, and hop
 * distances.
 *
 * A topology is a set of nodes (hosts, which are HCAs, and switches) with
 * numbered ports 1..nports, and full-duplex links between ports. Each link
 * direction has its own rate and propagation delay, so a link may be faster
 * one way than the other (per-link overrides). Hosts come first in node
 * order (node i is host i for i < nhosts), switches after them; this is the
 * order of LIDs (host i has LID i+1, switches follow) unless a file gives
 * LIDs (ibnetdiscover does), in which case those are kept for LFT dumps.
 *
 * Sources (formats/topology.md):
 *   generators  star:N chain:S ring:S fattree2:K fattree3:K h8s2 h8s4
 *               torus:AxB..[,h=N] mesh:AxB..[,h=N] dragonfly:a,p,h[,g]
 *   files       ibreplay's own text format ("# ibreplay topology 1"), or
 *               the output of ibnetdiscover (detected by its "Switch"/"Ca"
 *               blocks)
 *
 * Link rates are kept as data rates in Mb/s after line encoding (4xDDR =
 * 16000), so serialization of n bytes is n * 8e6 / rate ps, rounded up.
 *
 * The caller owns the ir_topo: ir_topo_new()/ir_topo_free().
 */
#ifndef IR_TOPO_H
#define IR_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"

#define IR_TOPO_NONE ((uint32_t)0xFFFFFFFFu)
#define IR_TOPO_MAX_PORTS 254     /* ports per node (LFT entries are one byte, 255 = no route) */
#define IR_TOPO_MAX_NODES 1000000 /* hosts + switches */
#define IR_TOPO_MAX_LID 0xBFFF    /* unicast LIDs */
#define IR_TOPO_MAX_DIMS 16       /* torus and mesh dimensions */

/* One direction of a link, seen from the port it leaves. */
typedef struct ir_topo_port {
	uint32_t peer;      /* node at the other end, IR_TOPO_NONE if the port is not connected */
	uint16_t peer_port; /* its port number */
	uint16_t width;     /* lanes: 1, 2, 4, 8, 12 */
	uint32_t mbps;      /* data rate out of this port, Mb/s after encoding */
	uint64_t delay;     /* propagation delay to the peer, ps */
	uint64_t guid;      /* the port's GUID where a file gives it (ibnetdiscover's "(portguid)" of a
	                     * CA's port), else 0; LFT dumps name destinations by it */
} ir_topo_port;

typedef struct ir_topo_node {
	uint8_t is_switch;
	uint16_t nports;
	uint32_t port0;     /* ports 1..nports are port[port0 .. port0+nports-1] */
	uint32_t name;      /* offset of the name in the topology's name pool */
	uint32_t lid;       /* LID (ibnetdiscover: as discovered; else assigned) */
	uint64_t guid;
} ir_topo_node;

/* What a generator knows about the shape, for the routing engines that need
 * it (dor, minimal, valiant, ugal); IR_SHAPE_NONE for files and the other
 * generators. Port layout (formats/topology.md):
 *  torus/mesh: switch i has coordinates c_d = (i / prod_{e<d} dim[e]) mod
 *    dim[d]; ports 1..hps its hosts, then per dimension d port hps+2d+1
 *    towards c_d+1 and hps+2d+2 towards c_d-1 (a mesh leaves the ports at
 *    its edges unconnected).
 *  dragonfly: router r of group G is switch G*a + r; ports 1..p hosts,
 *    p+1..p+a-1 the other routers of the group (in router order, itself
 *    skipped), p+a..p+a+h-1 its global links; global channel j = r*h + k of
 *    a group (k its global port) is wired by the consecutive scheme. */
enum { IR_SHAPE_NONE = 0, IR_SHAPE_TORUS = 1, IR_SHAPE_DRAGONFLY = 2 };
typedef struct ir_topo_shape {
	int kind;
	int mesh;                        /* torus kind: no wrap-around links */
	unsigned ndims;
	uint32_t dim[IR_TOPO_MAX_DIMS];
	uint32_t hps;                    /* hosts per switch (torus) or router (dragonfly p) */
	uint32_t a, h, g;                /* dragonfly: routers per group, global links per router, groups */
} ir_topo_shape;

typedef struct ir_topo {
	uint32_t nnodes, nhosts, nswitches;
	ir_topo_shape shape;
	ir_topo_node *node;
	ir_topo_port *port;
	uint32_t nports_total;
	uint32_t max_lid;
	uint32_t *lid_node; /* [max_lid + 1]: node of a LID, IR_TOPO_NONE if unused */
	ir_sb names;        /* NUL-separated node names */
	/* building */
	size_t cap_nodes, cap_ports;
	int finished;
} ir_topo;

/* Defaults for links that do not say otherwise. Generators with link classes
 * use `local` for switch-to-switch links (torus and mesh links, dragonfly
 * links inside a group) and `global` for dragonfly links between groups;
 * NULL means the same as the host links. */
typedef struct ir_topo_linkdef {
	uint16_t width;
	uint32_t mbps;
	uint64_t delay;
	const struct ir_topo_linkdef *local, *global;
} ir_topo_linkdef;

ir_topo *ir_topo_new(void); /* NULL if out of memory */
void ir_topo_free(ir_topo *t); /* NULL is a no-op */

/* ---- building (generators and parsers use this; so may tests) ---- */
/* Add a node; returns its index (order of addition until ir_topo_finish) or IR_TOPO_NONE with e set. */
uint32_t ir_topo_add(ir_topo *t, int is_switch, const char *name, unsigned nports, uint64_t guid, ir_err *e);
/* Link port pa of a and port pb of b, both directions with `ld`. */
int ir_topo_link(ir_topo *t, uint32_t a, unsigned pa, uint32_t b, unsigned pb, const ir_topo_linkdef *ld,
                 ir_err *e);
/* Put hosts first (keeping their order), then switches; check every host has a connected port;
 * assign LIDs where none was given (lid 0). `name` is used in messages. */
int ir_topo_finish(ir_topo *t, const char *name, ir_err *e);

/* ---- sources ---- */
/* A generator spec ("fattree2:4") or a file (own format or ibnetdiscover, detected).
 * `star` without a count means star with `nhosts_hint` hosts. */
int ir_topo_load(ir_topo **out, const char *spec, uint32_t nhosts_hint, const ir_topo_linkdef *ld, ir_err *e);
/* 1 if spec names a generator (it is not looked up as a file). */
int ir_topo_is_generator(const char *spec);
int ir_topo_generate(ir_topo **out, const char *spec, uint32_t nhosts_hint, const ir_topo_linkdef *ld,
                     ir_err *e);
/* Parse text (either format) from memory; `name` is used in messages. */
int ir_topo_parse(ir_topo **out, const char *text, size_t len, const char *name, const ir_topo_linkdef *ld,
                  ir_err *e);
int ir_topo_parse_own(ir_topo **out, const char *text, size_t len, const char *name,
                      const ir_topo_linkdef *ld, ir_err *e);
int ir_topo_parse_ibnetdiscover(ir_topo **out, const char *text, size_t len, const char *name,
                                const ir_topo_linkdef *ld, ir_err *e);

/* Write the topology in ibreplay's own format (reads back identically). */
int ir_topo_write(const ir_topo *t, ir_sb *out);

/* Write the topology as a net file of ibsim-utils' fabric simulator (formats/topology.md):
 * ibnetdiscover's block layout with each port's width and speed. -1 with e set for a node
 * name that simulator cannot take. */
int ir_topo_write_netfile(const ir_topo *t, ir_sb *out, ir_err *e);

/* ---- links ---- */
/* "4xDDR", "12xEDR", "1xFDR10": width and data rate (Mb/s after encoding). */
int ir_topo_parse_link(const char *s, uint16_t *width, uint32_t *mbps, const char *what, ir_err *e);
/* The name of a width and rate ("4xDDR"), or "N Mb/s" when it is no standard one. */
const char *ir_topo_link_name(char *buf, size_t n, uint16_t width, uint32_t mbps);
/* Serialization of `bytes` at `mbps`, ps, rounded up. */
static inline uint64_t ir_topo_ser(uint64_t bytes, uint32_t mbps)
{
	return (bytes * 8000000u + mbps - 1) / mbps;
}

/* ---- queries ---- */
static inline const char *ir_topo_name(const ir_topo *t, uint32_t node) { return t->names.buf + t->node[node].name; }
static inline ir_topo_port *ir_topo_portp(const ir_topo *t, uint32_t node, unsigned p)
{
	return &t->port[t->node[node].port0 + p - 1];
}
/* Node by name, or IR_TOPO_NONE. Linear; for parsers and tools, not hot paths. */
uint32_t ir_topo_find(const ir_topo *t, const char *name);
/* Hop counts (links) from `node` to every node: dist[nnodes], IR_TOPO_NONE if unreachable. BFS. */
int ir_topo_bfs(const ir_topo *t, uint32_t node, uint32_t *dist, ir_err *e);
/* Links on a shortest path between two hosts (0 for the same host), IR_TOPO_NONE if not connected. */
uint32_t ir_topo_hops(const ir_topo *t, uint32_t host_a, uint32_t host_b);

#endif
