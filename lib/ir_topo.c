/*
 * ir_topo.c: topologies of the InfiniBand model: building, generators, the
 * own text format, ibnetdiscover output, hop distances (see ir_topo.h and
 * formats/topology.md).
 *
 * Ports live in one flat array; a node owns a contiguous run of it, so the
 * simulator addresses "port p of node n" as one index and keeps its per-port
 * state in parallel arrays. Parsers look names up in a table on ir_smap (a
 * linear search would be quadratic on fabrics of thousands of nodes).
 */
#include "ir_topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_hmap.h"
#include "ir_io.h"
#include "ir_num.h"
#include "ir_smap.h"

ir_topo *ir_topo_new(void)
{
	ir_topo *t = calloc(1, sizeof *t);
	if (t)
		ir_sb_init(&t->names);
	return t;
}

void ir_topo_free(ir_topo *t)
{
	if (!t)
		return;
	free(t->node);
	free(t->port);
	free(t->lid_node);
	ir_sb_release(&t->names);
	free(t);
}

uint32_t ir_topo_add(ir_topo *t, int is_switch, const char *name, unsigned nports, uint64_t guid, ir_err *e)
{
	ir_topo_node *n;
	if (nports < 1 || nports > IR_TOPO_MAX_PORTS) {
		ir_errf(e, "node '%s': %u ports (expected 1..%u)", name, nports, IR_TOPO_MAX_PORTS);
		return IR_TOPO_NONE;
	}
	if (t->nnodes >= IR_TOPO_MAX_NODES) {
		ir_errf(e, "node '%s': more than %u nodes", name, IR_TOPO_MAX_NODES);
		return IR_TOPO_NONE;
	}
	if (IR_GROW(t->node, (size_t)t->nnodes + 1, t->cap_nodes) ||
	    IR_GROW(t->port, (size_t)t->nports_total + nports, t->cap_ports))
		goto oom;
	n = &t->node[t->nnodes];
	memset(n, 0, sizeof *n);
	n->is_switch = is_switch ? 1 : 0;
	n->nports = (uint16_t)nports;
	n->port0 = t->nports_total;
	n->guid = guid;
	n->name = (uint32_t)t->names.len;
	if (ir_sb_add(&t->names, name, strlen(name) + 1))
		goto oom;
	for (unsigned p = 0; p < nports; p++) {
		ir_topo_port *q = &t->port[t->nports_total + p];
		memset(q, 0, sizeof *q);
		q->peer = IR_TOPO_NONE;
	}
	t->nports_total += nports;
	return t->nnodes++;
oom:
	ir_errf(e, "out of memory for the topology (%u nodes)", t->nnodes);
	return IR_TOPO_NONE;
}

int ir_topo_link(ir_topo *t, uint32_t a, unsigned pa, uint32_t b, unsigned pb, const ir_topo_linkdef *ld,
                 ir_err *e)
{
	ir_topo_port *x, *y;
	if (a >= t->nnodes || b >= t->nnodes)
		return ir_errf(e, "link to an unknown node");
	if (pa < 1 || pa > t->node[a].nports)
		return ir_errf(e, "link %s:%u: node '%s' has ports 1..%u", ir_topo_name(t, a), pa, ir_topo_name(t, a),
		               t->node[a].nports);
	if (pb < 1 || pb > t->node[b].nports)
		return ir_errf(e, "link %s:%u: node '%s' has ports 1..%u", ir_topo_name(t, b), pb, ir_topo_name(t, b),
		               t->node[b].nports);
	if (a == b && pa == pb)
		return ir_errf(e, "link %s:%u: a port cannot be linked to itself", ir_topo_name(t, a), pa);
	x = ir_topo_portp(t, a, pa);
	y = ir_topo_portp(t, b, pb);
	if (x->peer != IR_TOPO_NONE)
		return ir_errf(e, "port %s:%u is linked twice", ir_topo_name(t, a), pa);
	if (y->peer != IR_TOPO_NONE)
		return ir_errf(e, "port %s:%u is linked twice", ir_topo_name(t, b), pb);
	x->peer = b;
	x->peer_port = (uint16_t)pb;
	y->peer = a;
	y->peer_port = (uint16_t)pa;
	x->width = y->width = ld->width;
	x->mbps = y->mbps = ld->mbps;
	x->delay = y->delay = ld->delay;
	return 0;
}

int ir_topo_finish(ir_topo *t, const char *name, ir_err *e)
{
	uint32_t *perm = NULL, *inv = NULL, h = 0, s = 0, nl = 0, maxlid = 0, i;
	ir_topo_node *nn = NULL;
	ir_topo_port *np = NULL;
	int all_lids = 1;
	if (t->finished)
		return 0;
	if (!t->nnodes)
		return ir_errf(e, "%s: the topology has no nodes", name);
	for (i = 0; i < t->nnodes; i++)
		h += !t->node[i].is_switch;
	if (!h)
		return ir_errf(e, "%s: the topology has no hosts", name);
	perm = malloc((size_t)t->nnodes * sizeof *perm); /* new index -> old */
	inv = malloc((size_t)t->nnodes * sizeof *inv);   /* old -> new */
	nn = malloc((size_t)t->nnodes * sizeof *nn);
	np = malloc((size_t)(t->nports_total ? t->nports_total : 1) * sizeof *np);
	if (!perm || !inv || !nn || !np) {
		ir_errf(e, "out of memory for the topology");
		goto fail;
	}
	t->nhosts = h;
	t->nswitches = t->nnodes - h;
	for (i = 0; i < t->nnodes; i++) {
		uint32_t k = t->node[i].is_switch ? h + s++ : nl++;
		perm[k] = i;
		inv[i] = k;
	}
	{
		uint32_t off = 0;
		for (i = 0; i < t->nnodes; i++) {
			const ir_topo_node *o = &t->node[perm[i]];
			nn[i] = *o;
			nn[i].port0 = off;
			for (unsigned p = 0; p < o->nports; p++) {
				np[off + p] = t->port[o->port0 + p];
				if (np[off + p].peer != IR_TOPO_NONE)
					np[off + p].peer = inv[np[off + p].peer];
			}
			off += o->nports;
		}
	}
	free(t->node);
	free(t->port);
	t->node = nn;
	t->port = np;
	t->cap_nodes = t->nnodes;
	t->cap_ports = t->nports_total;
	nn = NULL;
	np = NULL;
	/* every host must be connected */
	for (i = 0; i < t->nhosts; i++) {
		unsigned p, ok = 0;
		for (p = 1; p <= t->node[i].nports; p++)
			ok |= ir_topo_portp(t, i, p)->peer != IR_TOPO_NONE;
		if (!ok) {
			ir_errf(e, "%s: host '%s' is not linked to anything", name, ir_topo_name(t, i));
			goto fail;
		}
	}
	/* LIDs: keep them if every node has one, else assign hosts 1..H then switches */
	for (i = 0; i < t->nnodes; i++) {
		if (!t->node[i].lid)
			all_lids = 0;
		else if (t->node[i].lid > maxlid)
			maxlid = t->node[i].lid;
	}
	if (!all_lids) {
		if (t->nnodes > IR_TOPO_MAX_LID) {
			ir_errf(e, "%s: %u nodes do not fit in %u unicast LIDs", name, t->nnodes, IR_TOPO_MAX_LID);
			goto fail;
		}
		for (i = 0; i < t->nnodes; i++)
			t->node[i].lid = i + 1;
		maxlid = t->nnodes;
	}
	t->max_lid = maxlid;
	free(t->lid_node);
	t->lid_node = malloc(((size_t)maxlid + 1) * sizeof *t->lid_node);
	if (!t->lid_node) {
		ir_errf(e, "out of memory for the topology");
		goto fail;
	}
	for (i = 0; i <= maxlid; i++)
		t->lid_node[i] = IR_TOPO_NONE;
	for (i = 0; i < t->nnodes; i++) {
		uint32_t l = t->node[i].lid;
		if (t->lid_node[l] != IR_TOPO_NONE) {
			ir_errf(e, "%s: LID %u is used by both '%s' and '%s'", name, l, ir_topo_name(t, t->lid_node[l]),
			        ir_topo_name(t, i));
			goto fail;
		}
		t->lid_node[l] = i;
	}
	t->finished = 1;
	free(perm);
	free(inv);
	return 0;
fail:
	free(perm);
	free(inv);
	free(nn);
	free(np);
	return -1;
}

/* ---- links ---- */

static const struct {
	const char *name;
	uint32_t lane_mbps; /* data rate per lane after encoding */
} speeds[] = {
	{ "SDR", 2000 },  { "DDR", 4000 },  { "QDR", 8000 },   { "FDR10", 10000 },
	{ "FDR", 13640 }, { "EDR", 25000 }, { "HDR", 50000 },  { "NDR", 100000 },
};

int ir_topo_parse_link(const char *s, uint16_t *width, uint32_t *mbps, const char *what, ir_err *e)
{
	unsigned w = 0;
	const char *p = s;
	char q[64];
	while (*p >= '0' && *p <= '9' && w < 100)
		w = w * 10 + (unsigned)(*p++ - '0');
	if (p != s && (*p == 'x' || *p == 'X') && (w == 1 || w == 2 || w == 4 || w == 8 || w == 12)) {
		p++;
		for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
			if (strcasecmp(p, speeds[i].name) == 0) {
				*width = (uint16_t)w;
				*mbps = w * speeds[i].lane_mbps;
				return 0;
			}
	}
	return ir_errf(e, "invalid link for %s: '%s' (expected WIDTHxSPEED: width 1, 2, 4, 8, 12; speed SDR, DDR, "
	                  "QDR, FDR10, FDR, EDR, HDR, NDR; e.g. 4xDDR)",
	               what, ir_err_quote(q, sizeof q, s, strlen(s)));
}

const char *ir_topo_link_name(char *buf, size_t n, uint16_t width, uint32_t mbps)
{
	for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
		if (width && (uint64_t)width * speeds[i].lane_mbps == mbps) {
			snprintf(buf, n, "%ux%s", width, speeds[i].name);
			return buf;
		}
	snprintf(buf, n, "%u Mb/s", mbps);
	return buf;
}

/* ---- name table for parsers ---- */

/* Node name -> node index, on ir_smap (XXH64 of the name); the names stay in
 * the topology's own buffer. Nothing iterates the table, so its slot order
 * reaches no output. */
/* The parsers' lookup tables: node names, and GUIDs, which name one node each (the LFT dump
 * reader finds a switch's table by its GUID, so two nodes with one GUID would swap tables). */
typedef struct ntab {
	ir_smap m;
	ir_hmap guids; /* GUID -> node */
} ntab;

static void ntab_init(ntab *nt)
{
	ir_smap_init(&nt->m, 1024); /* allocates on the first name */
	ir_hmap_init(&nt->guids, sizeof(uint32_t), 1024, 0);
}

static void ntab_release(ntab *nt)
{
	ir_smap_release(&nt->m);
	ir_hmap_release(&nt->guids);
}

/* Node `node` has GUID guid (0: none given): an error naming both nodes if another has it. */
static int ntab_guid(ntab *nt, const ir_topo *t, uint64_t guid, uint32_t node, const char *name, unsigned line,
                     ir_err *e)
{
	int isnew;
	uint32_t *v;
	char q[200];
	if (!guid)
		return 0;
	if (!(v = ir_hmap_put(&nt->guids, guid, 0, &isnew)))
		return ir_errf(e, "%s: out of memory", name);
	if (!isnew) {
		const char *nm = ir_topo_name(t, node);
		return ir_errf_at(e, name, line, "node '%s' has GUID 0x%llx, which is also that of '%s' (GUIDs are unique in a fabric)",
		                  ir_err_quote(q, sizeof q, nm, strlen(nm)), (unsigned long long)guid, ir_topo_name(t, *v));
	}
	*v = node;
	return 0;
}

static int ntab_eq(const void *ctx, uint32_t idx, const char *s, size_t n)
{
	const char *x = ir_topo_name((const ir_topo *)ctx, idx);
	return strlen(x) == n && memcmp(x, s, n) == 0;
}

static int ntab_put(ntab *nt, const ir_topo *t, uint32_t node, ir_err *e)
{
	const char *nm = ir_topo_name(t, node);
	size_t n = strlen(nm);
	if (ir_smap_put(&nt->m, ir_smap_hash(nm, n), nm, n, ntab_eq, t, node) == IR_SMAP_NONE)
		return ir_errf(e, "out of memory for node names");
	return 0;
}

static uint32_t ntab_get(const ntab *nt, const ir_topo *t, const char *nm, size_t len)
{
	uint32_t i = ir_smap_get(&nt->m, ir_smap_hash(nm, len), nm, len, ntab_eq, t);
	return i == IR_SMAP_NONE ? IR_TOPO_NONE : i;
}

uint32_t ir_topo_find(const ir_topo *t, const char *name)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (strcmp(ir_topo_name(t, i), name) == 0)
			return i;
	return IR_TOPO_NONE;
}

/* ---- generators ---- */

enum { G_STAR, G_CHAIN, G_RING, G_FT2, G_FT3, G_H8S2, G_H8S4, G_TORUS, G_MESH, G_DF };
static const struct {
	const char *name;
	int kind, has_arg;
} gens[] = {
	{ "star", G_STAR, 1 },       { "chain", G_CHAIN, 1 }, { "ring", G_RING, 1 }, { "fattree2", G_FT2, 1 },
	{ "fattree3", G_FT3, 1 },    { "h8s2", G_H8S2, 0 },   { "h8s4", G_H8S4, 0 },
	{ "torus", G_TORUS, 1 },     { "mesh", G_MESH, 1 },   { "dragonfly", G_DF, 1 },
};

/* One number of a generator's argument: digits only, lo..hi. */
static int gen_num(const char **p, uint64_t lo, uint64_t hi, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > 100000000)
			return -1;
	}
	*p = s;
	if (x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* "AxBxC[,h=N]" into the shape; the node count (saturating) into *nodes. */
static int parse_torus(const char *spec, const char *a, int mesh, ir_topo_shape *sh, uint64_t *nodes, ir_err *e)
{
	const char *p = a, *kind = mesh ? "mesh" : "torus";
	uint64_t v, nsw = 1, hps = 1;
	char q[80];
	memset(sh, 0, sizeof *sh);
	sh->kind = IR_SHAPE_TORUS;
	sh->mesh = mesh;
	for (;;) {
		if (sh->ndims == IR_TOPO_MAX_DIMS || gen_num(&p, 2, 100000, &v))
			goto bad;
		sh->dim[sh->ndims++] = (uint32_t)v;
		nsw = nsw * v > 100000000 ? 100000000 : nsw * v;
		if (*p != 'x')
			break;
		p++;
	}
	if (strncmp(p, ",h=", 3) == 0) {
		p += 3;
		if (gen_num(&p, 1, IR_TOPO_MAX_PORTS, &v))
			goto bad;
		hps = v;
	}
	if (*p)
		goto bad;
	if (hps + 2 * sh->ndims > IR_TOPO_MAX_PORTS)
		return ir_errf(e, "%.60s: %llu hosts and %u dimensions need %llu ports per switch (at most %u)",
		               spec, (unsigned long long)hps, sh->ndims,
		               (unsigned long long)(hps + 2 * sh->ndims), IR_TOPO_MAX_PORTS);
	sh->hps = (uint32_t)hps;
	*nodes = nsw * (1 + hps) > 100000000 ? 100000000 : nsw * (1 + hps);
	return 0;
bad:
	return ir_errf(e, "invalid %s '%s' (expected %s:AxB... with 1 to %u sizes 2..100000, optionally ,h=N "
	                  "hosts per switch)", kind, ir_err_quote(q, sizeof q, spec, strlen(spec)), kind, IR_TOPO_MAX_DIMS);
}

/* "a,p,h[,g]" into the shape. */
static int parse_dragonfly(const char *spec, const char *s, ir_topo_shape *sh, uint64_t *nodes, ir_err *e)
{
	const char *p = s;
	uint64_t v[4] = { 0, 0, 0, 0 };
	unsigned n = 0;
	char q[80];
	memset(sh, 0, sizeof *sh);
	sh->kind = IR_SHAPE_DRAGONFLY;
	for (;;) {
		if (n == 4 || gen_num(&p, 1, 100000, &v[n]))
			goto bad;
		n++;
		if (*p != ',')
			break;
		p++;
	}
	if (*p || n < 3)
		goto bad;
	if (v[1] + v[0] - 1 + v[2] > IR_TOPO_MAX_PORTS)
		return ir_errf(e, "%.60s: a router needs p + a - 1 + h = %llu ports (at most %u)",
		               spec, (unsigned long long)(v[1] + v[0] - 1 + v[2]),
		               IR_TOPO_MAX_PORTS);
	if (n == 3)
		v[3] = v[0] * v[2] + 1;
	else if (v[3] > v[0] * v[2] + 1)
		return ir_errf(e, "%.60s: %llu groups, but a group has a*h = %llu global links (at most a*h+1 = %llu groups)",
		               spec, (unsigned long long)v[3],
		               (unsigned long long)(v[0] * v[2]), (unsigned long long)(v[0] * v[2] + 1));
	sh->a = (uint32_t)v[0];
	sh->hps = (uint32_t)v[1];
	sh->h = (uint32_t)v[2];
	sh->g = (uint32_t)v[3];
	*nodes = v[3] * v[0] * (1 + v[1]) > 100000000 ? 100000000 : v[3] * v[0] * (1 + v[1]);
	return 0;
bad:
	return ir_errf(e, "invalid dragonfly '%s' (expected dragonfly:a,p,h[,g], each 1..100000: a routers per group, "
	                  "p hosts per router, h global links per router, g groups)",
	               ir_err_quote(q, sizeof q, spec, strlen(spec)));
}

static int gen_lookup(const char *spec, size_t *arglen)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
		if (strlen(gens[i].name) == n && memcmp(spec, gens[i].name, n) == 0) {
			*arglen = colon ? strlen(colon + 1) : 0;
			return (int)i;
		}
	return -1;
}

int ir_topo_is_generator(const char *spec)
{
	size_t al;
	return gen_lookup(spec, &al) >= 0;
}

#define ADD(sw, nports, fmt, ...)                                                                  \
	do {                                                                                           \
		snprintf(nm, sizeof nm, fmt, __VA_ARGS__);                                                 \
		if (ir_topo_add(t, sw, nm, nports, (sw ? 0x0002c90200000000ull : 0x0002c90300000000ull) + \
		                                    t->nnodes + 1, e) == IR_TOPO_NONE)                     \
			goto fail;                                                                             \
	} while (0)
#define LINK(a, pa, b, pb)                             \
	do {                                               \
		if (ir_topo_link(t, a, pa, b, pb, ld, e))      \
			goto fail;                                 \
	} while (0)

int ir_topo_generate(ir_topo **out, const char *spec, uint32_t nhosts_hint, const ir_topo_linkdef *ld,
                     ir_err *e)
{
	size_t al;
	int g = gen_lookup(spec, &al);
	uint64_t k = 0;
	ir_topo *t;
	char nm[64], q[80];
	ir_topo_shape sh;
	*out = NULL;
	memset(&sh, 0, sizeof sh);
	if (g < 0)
		return ir_errf(e, "unknown topology generator '%s' (expected star:N, chain:S, ring:S, fattree2:K, "
		                  "fattree3:K, h8s2, h8s4, torus:AxB..., mesh:AxB..., dragonfly:a,p,h[,g])",
		               ir_err_quote(q, sizeof q, spec, strlen(spec)));
	if (gens[g].kind == G_TORUS || gens[g].kind == G_MESH || gens[g].kind == G_DF) {
		const char *a = strchr(spec, ':');
		uint64_t nodes = 0;
		if (gens[g].kind == G_DF ? parse_dragonfly(spec, a ? a + 1 : "", &sh, &nodes, e)
		                         : parse_torus(spec, a ? a + 1 : "", gens[g].kind == G_MESH, &sh, &nodes, e))
			return -1;
		if (nodes > IR_TOPO_MAX_LID)
			return ir_errf(e, "%.60s: %llu%s hosts and switches do not fit in %u unicast LIDs",
			               spec, (unsigned long long)nodes,
			               nodes >= 100000000 ? " or more" : "", IR_TOPO_MAX_LID);
	} else if (gens[g].has_arg) {
		const char *a = strchr(spec, ':');
		if (!a && gens[g].kind == G_STAR && nhosts_hint) {
			k = nhosts_hint;
		} else if (!a) {
			return ir_errf(e, "topology '%s' needs a size (e.g. %s:4)", spec, gens[g].name);
		} else {
			char what[32];
			snprintf(what, sizeof what, "%s", gens[g].name);
			if (ir_parse_range(a + 1, 1, 100000, &k, what, e))
				return -1;
		}
	} else if (al || strchr(spec, ':')) {
		return ir_errf(e, "topology '%s' takes no size", gens[g].name);
	}
	switch (gens[g].kind) {
	case G_STAR:
		if (k > IR_TOPO_MAX_PORTS)
			return ir_errf(e, "star:%llu: a switch has at most %u ports", (unsigned long long)k, IR_TOPO_MAX_PORTS);
		break;
	case G_CHAIN:
		if (k > 10000)
			return ir_errf(e, "chain:%llu: at most 10000 switches", (unsigned long long)k);
		break;
	case G_RING:
		if (k < 3 || k > 10000)
			return ir_errf(e, "ring:%llu: expected 3..10000 switches", (unsigned long long)k);
		break;
	case G_FT2:
	case G_FT3:
		if (k < 2 || k % 2 || k > (gens[g].kind == G_FT2 ? 254u : 64u))
			return ir_errf(e, "%s: K must be even, 2..%u (found %llu)", gens[g].name,
			               gens[g].kind == G_FT2 ? 254u : 64u, (unsigned long long)k);
		break;
	}
	if (!(t = ir_topo_new()))
		return ir_errf(e, "out of memory for the topology");
	switch (gens[g].kind) {
	case G_STAR: {
		uint32_t n = (uint32_t)k;
		for (uint32_t i = 0; i < n; i++)
			ADD(0, 1, "h%u", i);
		ADD(1, n, "s%u", 0);
		for (uint32_t i = 0; i < n; i++)
			LINK(i, 1, n, i + 1);
		break;
	}
	case G_CHAIN: {
		uint32_t s = (uint32_t)k;
		ADD(0, 1, "h%u", 0);
		ADD(0, 1, "h%u", 1);
		for (uint32_t i = 0; i < s; i++)
			ADD(1, 2, "s%u", i);
		LINK(0, 1, 2, 1);
		for (uint32_t i = 0; i + 1 < s; i++)
			LINK(2 + i, 2, 3 + i, 1);
		LINK(1, 1, 2 + s - 1, 2);
		break;
	}
	case G_RING: {
		uint32_t s = (uint32_t)k;
		for (uint32_t i = 0; i < s; i++)
			ADD(0, 1, "h%u", i);
		for (uint32_t i = 0; i < s; i++)
			ADD(1, 3, "s%u", i);
		for (uint32_t i = 0; i < s; i++) {
			LINK(i, 1, s + i, 1);
			LINK(s + i, 2, s + (i + 1) % s, 3);
		}
		break;
	}
	case G_FT2: {
		uint32_t K = (uint32_t)k, h = K / 2, H = K * h, leaf0 = H, spine0 = H + K;
		for (uint32_t i = 0; i < H; i++)
			ADD(0, 1, "h%u", i);
		for (uint32_t l = 0; l < K; l++)
			ADD(1, K, "leaf%u", l);
		for (uint32_t s = 0; s < h; s++)
			ADD(1, K, "spine%u", s);
		for (uint32_t l = 0; l < K; l++) {
			for (uint32_t i = 0; i < h; i++)
				LINK(l * h + i, 1, leaf0 + l, i + 1);
			for (uint32_t s = 0; s < h; s++)
				LINK(leaf0 + l, h + 1 + s, spine0 + s, l + 1);
		}
		break;
	}
	case G_FT3: {
		uint32_t K = (uint32_t)k, h = K / 2, H = K * h * h, edge0 = H, agg0 = H + K * h, core0 = H + 2 * K * h;
		for (uint32_t i = 0; i < H; i++)
			ADD(0, 1, "h%u", i);
		for (uint32_t i = 0; i < K * h; i++)
			ADD(1, K, "edge%u", i);
		for (uint32_t i = 0; i < K * h; i++)
			ADD(1, K, "agg%u", i);
		for (uint32_t i = 0; i < h * h; i++)
			ADD(1, K, "core%u", i);
		for (uint32_t p = 0; p < K; p++)
			for (uint32_t x = 0; x < h; x++) {
				uint32_t ed = edge0 + p * h + x, ag = agg0 + p * h + x;
				for (uint32_t i = 0; i < h; i++)
					LINK((p * h + x) * h + i, 1, ed, i + 1);
				for (uint32_t a = 0; a < h; a++)
					LINK(ed, h + 1 + a, agg0 + p * h + a, x + 1);
				for (uint32_t c = 0; c < h; c++)
					LINK(ag, h + 1 + c, core0 + x * h + c, p + 1);
			}
		break;
	}
	case G_H8S2:
		for (uint32_t i = 0; i < 8; i++)
			ADD(0, 1, "h%u", i);
		ADD(1, 5, "s%u", 0);
		ADD(1, 5, "s%u", 1);
		for (uint32_t i = 0; i < 8; i++)
			LINK(i, 1, 8 + i / 4, i % 4 + 1);
		LINK(8, 5, 9, 5);
		break;
	case G_H8S4:
		for (uint32_t i = 0; i < 8; i++)
			ADD(0, 1, "h%u", i);
		for (uint32_t s = 0; s < 4; s++)
			ADD(1, 5, "s%u", s);
		for (uint32_t i = 0; i < 8; i++)
			LINK(i, 1, 8 + i / 2, i % 2 + 1);
		/* switch a's port for switch b: 3 + (index of b among the others) */
		for (uint32_t a = 0; a < 4; a++)
			for (uint32_t b = a + 1; b < 4; b++)
				LINK(8 + a, 3 + (b - 1), 8 + b, 3 + a);
		break;
	case G_TORUS:
	case G_MESH: {
		const ir_topo_linkdef *lo = ld->local ? ld->local : ld;
		uint32_t S = 1, hp = sh.hps, H, np = sh.hps + 2 * sh.ndims;
		for (unsigned d = 0; d < sh.ndims; d++)
			S *= sh.dim[d];
		H = S * hp;
		for (uint32_t i = 0; i < H; i++)
			ADD(0, 1, "h%u", i);
		for (uint32_t i = 0; i < S; i++)
			ADD(1, np, "s%u", i);
		for (uint32_t i = 0; i < S; i++) {
			uint32_t stride = 1;
			for (uint32_t j = 0; j < hp; j++)
				LINK(i * hp + j, 1, H + i, j + 1);
			/* the + link of each dimension, to the neighbour's - port */
			for (unsigned d = 0; d < sh.ndims; d++) {
				uint32_t c = (i / stride) % sh.dim[d], nb;
				if (c + 1 < sh.dim[d])
					nb = i + stride;
				else if (!sh.mesh)
					nb = i - c * stride;
				else
					nb = IR_TOPO_NONE;
				if (nb != IR_TOPO_NONE && ir_topo_link(t, H + i, hp + 2 * d + 1, H + nb, hp + 2 * d + 2, lo, e))
					goto fail;
				stride *= sh.dim[d];
			}
		}
		break;
	}
	case G_DF: {
		const ir_topo_linkdef *lo = ld->local ? ld->local : ld, *gl = ld->global ? ld->global : ld;
		uint32_t A = sh.a, P = sh.hps, Hh = sh.h, G = sh.g, R = G * A, H = R * P, C = A * Hh;
		for (uint32_t i = 0; i < H; i++)
			ADD(0, 1, "h%u", i);
		for (uint32_t i = 0; i < R; i++)
			ADD(1, P + A - 1 + Hh, "g%ur%u", i / A, i % A);
		for (uint32_t i = 0; i < R; i++)
			for (uint32_t j = 0; j < P; j++)
				LINK(i * P + j, 1, H + i, j + 1);
		/* groups: all-to-all; router x's port for router y: p + 1 + (index of y among the others) */
		for (uint32_t gr = 0; gr < G; gr++)
			for (uint32_t x = 0; x < A; x++)
				for (uint32_t y = x + 1; y < A; y++)
					if (ir_topo_link(t, H + gr * A + x, P + y, H + gr * A + y, P + 1 + x, lo, e))
						goto fail;
		/* global channel j of group gr: round q = j / (g-1), offset o = j mod (g-1) goes to group
		 * gr + o + 1 (mod g), its channel q(g-1) + g-2-o; linked once, from the lower group */
		if (G > 1)
			for (uint32_t gr = 0; gr < G; gr++)
				for (uint32_t j = 0; j < C; j++) {
					uint32_t qd = j / (G - 1), o = j % (G - 1), g2 = (gr + o + 1) % G;
					uint32_t j2 = qd * (G - 1) + (G - 2 - o);
					if (j2 >= C || g2 < gr)
						continue;
					if (ir_topo_link(t, H + gr * A + j / Hh, P + A + j % Hh, H + g2 * A + j2 / Hh, P + A + j2 % Hh,
					                 gl, e))
						goto fail;
				}
		break;
	}
	}
	if (ir_topo_finish(t, spec, e))
		goto fail;
	t->shape = sh;
	*out = t;
	return 0;
fail:
	ir_topo_free(t);
	return -1;
}
#undef ADD
#undef LINK

/* ---- text helpers ---- */

typedef struct lines {
	const char *p, *end, *name;
	unsigned long no;
} lines;

/* Next line (without "\n" or "\r\n"); 0 at the end. */
static int next_line(lines *L, const char **s, size_t *n)
{
	const char *nl;
	if (L->p >= L->end)
		return 0;
	nl = memchr(L->p, '\n', (size_t)(L->end - L->p));
	if (!nl)
		nl = L->end;
	*s = L->p;
	*n = (size_t)(nl - L->p);
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	L->p = nl < L->end ? nl + 1 : L->end;
	L->no++;
	return 1;
}

/* Split a line into at most `max` whitespace-separated words (stops at '#'). */
static int words(const char *s, size_t n, const char **w, size_t *wl, int max)
{
	int k = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n || s[i] == '#')
			break;
		if (k == max)
			return max + 1;
		w[k] = s + i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '#')
			i++;
		wl[k] = (size_t)(s + i - w[k]);
		k++;
	}
	return k;
}

static int wcopy(char *buf, size_t bn, const char *w, size_t wl)
{
	if (wl >= bn)
		return -1;
	memcpy(buf, w, wl);
	buf[wl] = 0;
	return 0;
}

/* ---- own format ---- */

#define OWN_MAGIC "# ibreplay topology 1"

int ir_topo_parse_own(ir_topo **out, const char *text, size_t len, const char *name,
                      const ir_topo_linkdef *ldef, ir_err *e)
{
	lines L = { text, text + len, name, 0 };
	const char *s;
	size_t n;
	ir_topo *t = ir_topo_new();
	ntab nt;
	ir_topo_linkdef cur = *ldef;
	char q[200], b1[256], b2[256];
	ntab_init(&nt);
	*out = NULL;
	if (!t)
		return ir_errf(e, "out of memory for the topology");
	while (next_line(&L, &s, &n)) {
		const char *w[8];
		size_t wl[8];
		int k = words(s, n, w, wl, 7);
		if (k == 0)
			continue;
		if (k > 7) {
			ir_errf_at(e, name, L.no, "too many fields: '%s'", ir_err_quote(q, sizeof q, s, n));
			goto fail;
		}
		if ((wl[0] == 6 && memcmp(w[0], "switch", 6) == 0) || (wl[0] == 4 && memcmp(w[0], "host", 4) == 0)) {
			int sw = wl[0] == 6;
			uint64_t np = 1, guid = 0, lid = 0;
			int a = 2;
			if (k < 2) {
				ir_errf_at(e, name, L.no, "expected '%s NAME%s', found '%s'", sw ? "switch" : "host",
				           sw ? " PORTS" : "", ir_err_quote(q, sizeof q, s, n));
				goto fail;
			}
			if (wcopy(b1, sizeof b1, w[1], wl[1])) {
				ir_errf_at(e, name, L.no, "node name longer than %zu bytes", sizeof b1 - 1);
				goto fail;
			}
			for (size_t j = 0; j < wl[1]; j++)
				if ((unsigned char)w[1][j] < 0x21 || (unsigned char)w[1][j] == 0x7f) {
					ir_errf_at(e, name, L.no, "node name '%s' contains a control character",
					           ir_err_quote(q, sizeof q, w[1], wl[1]));
					goto fail;
				}
			if (strchr(b1, ':')) {
				ir_errf_at(e, name, L.no, "node name '%s' contains ':'", ir_err_quote(q, sizeof q, w[1], wl[1]));
				goto fail;
			}
			if (sw) {
				if (k < 3) {
					ir_errf_at(e, name, L.no, "expected 'switch NAME PORTS', found '%s'",
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				wcopy(b2, sizeof b2, w[2], wl[2] < 255 ? wl[2] : 255);
				if (ir_parse_range(b2, 1, IR_TOPO_MAX_PORTS, &np, "switch ports", e)) {
					ir_err_prefix(e, name);
					ir_errf_at(e, name, L.no, "switch '%s': invalid port count '%s' (expected 1..%u)", b1,
					           ir_err_quote(q, sizeof q, w[2], wl[2]), IR_TOPO_MAX_PORTS);
					goto fail;
				}
				a = 3;
			}
			for (; a < k; a++) {
				uint64_t *dst = NULL, hi = 0;
				const char *key;
				if (wl[a] > 5 && memcmp(w[a], "guid=", 5) == 0)
					dst = &guid, key = "guid", hi = UINT64_MAX;
				else if (wl[a] > 4 && memcmp(w[a], "lid=", 4) == 0)
					dst = &lid, key = "lid", hi = IR_TOPO_MAX_LID;
				else if (!sw && wl[a] > 6 && memcmp(w[a], "ports=", 6) == 0)
					dst = &np, key = "ports", hi = IR_TOPO_MAX_PORTS;
				else {
					ir_errf_at(e, name, L.no, "unknown attribute '%s' (expected guid=, lid=%s)",
					           ir_err_quote(q, sizeof q, w[a], wl[a]), sw ? "" : " or ports=");
					goto fail;
				}
				{
					const char *v = strchr(w[a], '=') + 1;
					size_t vl = wl[a] - (size_t)(v - w[a]);
					char *endp;
					wcopy(b2, sizeof b2, v, vl < 255 ? vl : 255);
					errno = 0;
					unsigned long long x = strtoull(b2, &endp, 0);
					if (!*b2 || *endp || b2[0] == '-' || errno || x > hi || (dst != &guid && x == 0)) {
						ir_errf_at(e, name, L.no, "invalid %s '%s'", key, ir_err_quote(q, sizeof q, v, vl));
						goto fail;
					}
					*dst = x;
				}
			}
			if (ntab_get(&nt, t, b1, strlen(b1)) != IR_TOPO_NONE) {
				ir_errf_at(e, name, L.no, "node '%s' is defined twice", ir_err_quote(q, sizeof q, b1, strlen(b1)));
				goto fail;
			}
			uint32_t id = ir_topo_add(t, sw, b1, (unsigned)np, guid, e);
			if (id == IR_TOPO_NONE || ntab_put(&nt, t, id, e)) {
				ir_err_prefix(e, name);
				goto fail;
			}
			if (ntab_guid(&nt, t, guid, id, name, L.no, e))
				goto fail;
			t->node[id].lid = (uint32_t)lid;
		} else if (wl[0] == 4 && memcmp(w[0], "link", 4) == 0) {
			uint32_t nd[2];
			unsigned pt[2];
			ir_topo_linkdef ld = cur;
			int dflt = k >= 2 && wl[1] == 7 && memcmp(w[1], "default", 7) == 0;
			int a;
			if (!dflt && k < 3) {
				ir_errf_at(e, name, L.no, "expected 'link NODE:PORT NODE:PORT [SPEED] [delay=T]', found '%s'",
				           ir_err_quote(q, sizeof q, s, n));
				goto fail;
			}
			for (int j = 0; !dflt && j < 2; j++) {
				const char *c = memchr(w[1 + j], ':', wl[1 + j]);
				uint64_t pv;
				if (!c) {
					ir_errf_at(e, name, L.no, "expected NODE:PORT, found '%s'",
					           ir_err_quote(q, sizeof q, w[1 + j], wl[1 + j]));
					goto fail;
				}
				nd[j] = ntab_get(&nt, t, w[1 + j], (size_t)(c - w[1 + j]));
				if (nd[j] == IR_TOPO_NONE) {
					ir_errf_at(e, name, L.no, "unknown node '%s' (nodes must be defined before their links)",
					           ir_err_quote(q, sizeof q, w[1 + j], (size_t)(c - w[1 + j])));
					goto fail;
				}
				wcopy(b2, sizeof b2, c + 1, wl[1 + j] - (size_t)(c + 1 - w[1 + j]) < 255 ?
				                                 wl[1 + j] - (size_t)(c + 1 - w[1 + j]) : 255);
				if (ir_parse_range(b2, 1, t->node[nd[j]].nports, &pv, "port", e)) {
					ir_errf_at(e, name, L.no, "invalid port '%s' of '%s' (expected 1..%u)",
					           ir_err_quote(q, sizeof q, b2, strlen(b2)), ir_topo_name(t, nd[j]),
					           t->node[nd[j]].nports);
					goto fail;
				}
				pt[j] = (unsigned)pv;
			}
			for (a = dflt ? 2 : 3; a < k; a++) {
				wcopy(b2, sizeof b2, w[a], wl[a] < 255 ? wl[a] : 255);
				if (wl[a] > 6 && memcmp(w[a], "delay=", 6) == 0) {
					if (ir_parse_time(b2 + 6, &ld.delay, "delay", e)) {
						ir_err_prefix(e, name);
						ir_errf_at(e, name, L.no, "invalid delay '%s' (expected a time, e.g. 5ns)",
						           ir_err_quote(q, sizeof q, b2 + 6, strlen(b2 + 6)));
						goto fail;
					}
				} else if (ir_topo_parse_link(b2, &ld.width, &ld.mbps, "link", e)) {
					char m[IR_ERR_MAX];
					snprintf(m, sizeof m, "%s", e->msg);
					ir_errf_at(e, name, L.no, "%s", m);
					goto fail;
				}
			}
			if (dflt) {
				cur = ld;
				continue;
			}
			if (ir_topo_link(t, nd[0], pt[0], nd[1], pt[1], &ld, e)) {
				char m[IR_ERR_MAX];
				snprintf(m, sizeof m, "%s", e->msg);
				ir_errf_at(e, name, L.no, "%s", m);
				goto fail;
			}
		} else {
			ir_errf_at(e, name, L.no, "expected 'switch', 'host' or 'link', found '%s'",
			           ir_err_quote(q, sizeof q, w[0], wl[0]));
			goto fail;
		}
	}
	if (ir_topo_finish(t, name, e))
		goto fail;
	ntab_release(&nt);
	*out = t;
	return 0;
fail:
	ntab_release(&nt);
	ir_topo_free(t);
	return -1;
}

int ir_topo_write(const ir_topo *t, ir_sb *out)
{
	char ln[32];
	int r = ir_sb_addf(out, "%s\n# %u hosts, %u switches\n", OWN_MAGIC, t->nhosts, t->nswitches);
	for (uint32_t i = 0; i < t->nnodes && !r; i++) {
		const ir_topo_node *n = &t->node[i];
		if (n->is_switch)
			r = ir_sb_addf(out, "switch %s %u guid=0x%016llx lid=%u\n", ir_topo_name(t, i), n->nports,
			               (unsigned long long)n->guid, n->lid);
		else
			r = ir_sb_addf(out, "host %s ports=%u guid=0x%016llx lid=%u\n", ir_topo_name(t, i), n->nports,
			               (unsigned long long)n->guid, n->lid);
	}
	for (uint32_t i = 0; i < t->nnodes && !r; i++)
		for (unsigned p = 1; p <= t->node[i].nports && !r; p++) {
			const ir_topo_port *x = ir_topo_portp(t, i, p);
			char d[32];
			if (x->peer == IR_TOPO_NONE || x->peer < i || (x->peer == i && x->peer_port < p))
				continue;
			r = ir_sb_addf(out, "link %s:%u %s:%u %s delay=%s\n", ir_topo_name(t, i), p, ir_topo_name(t, x->peer),
			               x->peer_port, ir_topo_link_name(ln, sizeof ln, x->width, x->mbps),
			               ir_fmt_time(d, sizeof d, x->delay));
		}
	return r;
}

/* ---- ibsim-utils' net file ---- */

/* The fabric simulator of ibsim-utils (/usr/bin/ibsim, not ours) reads a net
 * file in the block layout of ibnetdiscover: a header line per node, then a
 * line per connected port. Its parser (ibsim/sim_net.c, version 0.10) takes a
 * port's width and speed from the last "lid N WxSPEED" after a '#', as it
 * would from real ibnetdiscover output, so each port line carries one as
 * ibnetdiscover writes it (a quoted peer name, then "lid 0 4xQDR"; a CA's line
 * starts "lid 0 lmc 0": lid 0 is none, OpenSM assigns them). GUIDs are
 * written only when every node has one (mixing ours with the ones ibsim hands
 * out in sequence could collide); hosts come first, so the first node, where
 * OpenSM and ibnetdiscover attach unless SIM_HOST says otherwise, is a host.
 * A rate with no name (ir_topo_link_name gives "N Mb/s") has no comment: ibsim
 * then takes 4xSDR. Refused: names ibsim cannot store (more than 64 bytes) or
 * would misread (a '"', or '@' which marks its port aliases). */
int ir_topo_write_netfile(const ir_topo *t, ir_sb *out, ir_err *e)
{
	char ln[32], q[80];
	int guids = t->nnodes > 0, r;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const char *nm = ir_topo_name(t, i);
		size_t n = strlen(nm);
		if (n > 64 || strpbrk(nm, "\"@"))
			return ir_errf(e, "node name '%s' cannot be written to a net file (at most 64 bytes, no '\"' or '@')",
			               ir_err_quote(q, sizeof q, nm, n));
		if (!t->node[i].guid)
			guids = 0;
	}
	r = ir_sb_addf(out, "# ibsim-utils net file: %u hosts, %u switches (ibreplay)\n", t->nhosts, t->nswitches);
	for (uint32_t i = 0; i < t->nnodes && !r; i++) {
		const ir_topo_node *n = &t->node[i];
		r = ir_sb_addf(out, "\n");
		if (!r && guids)
			r = ir_sb_addf(out, "%s=0x%016llx\n", n->is_switch ? "switchguid" : "caguid",
			               (unsigned long long)n->guid);
		if (!r)
			r = ir_sb_addf(out, "%s\t%u \"%s\"\n", n->is_switch ? "Switch" : "Ca", n->nports, ir_topo_name(t, i));
		for (unsigned p = 1; p <= n->nports && !r; p++) {
			const ir_topo_port *x = ir_topo_portp(t, i, p);
			const char *sp;
			if (x->peer == IR_TOPO_NONE)
				continue;
			sp = ir_topo_link_name(ln, sizeof ln, x->width, x->mbps);
			r = ir_sb_addf(out, "[%u]\t\"%s\"[%u]", p, ir_topo_name(t, x->peer), x->peer_port);
			if (!r && !strchr(sp, ' '))
				r = ir_sb_addf(out, "\t# %s\"%s\" lid 0 %s", n->is_switch ? "" : "lid 0 lmc 0 ",
				               ir_topo_name(t, x->peer), sp);
			if (!r)
				r = ir_sb_addf(out, "\n");
		}
	}
	if (r)
		return ir_errf(e, "out of memory for the net file");
	return 0;
}

/* ---- ibnetdiscover ---- */

/* A quoted string at *p: returns its length and start, advances past it; -1 if none. */
static long quoted(const char **p, const char *end, const char **start)
{
	const char *s = *p, *c;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || *s != '"')
		return -1;
	c = memchr(s + 1, '"', (size_t)(end - s - 1));
	if (!c)
		return -1;
	*start = s + 1;
	*p = c + 1;
	return (long)(c - s - 1);
}

/* Unsigned number at *p (decimal, or hex with 0x), advancing; -1 if none. */
static int number(const char **p, const char *end, uint64_t *v, int hex)
{
	const char *s = *p;
	uint64_t x = 0;
	int nd = 0;
	if (!hex && end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, hex = 1;
	for (; s < end; s++, nd++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (hex && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (hex && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (x > (UINT64_MAX - (uint64_t)d) / (hex ? 16 : 10))
			return -1;
		x = x * (hex ? 16 : 10) + (uint64_t)d;
	}
	if (!nd)
		return -1;
	*v = x;
	*p = s;
	return 0;
}

static int is_ibnd(const char *text, size_t len)
{
	lines L = { text, text + len, "", 0 };
	const char *s;
	size_t n;
	while (next_line(&L, &s, &n)) {
		if ((n > 11 && memcmp(s, "switchguid=", 11) == 0) || (n > 7 && memcmp(s, "caguid=", 7) == 0))
			return 1;
		if ((n > 7 && memcmp(s, "Switch", 6) == 0 && (s[6] == ' ' || s[6] == '\t')) ||
		    (n > 3 && memcmp(s, "Ca", 2) == 0 && (s[2] == ' ' || s[2] == '\t')))
			return 1;
	}
	return 0;
}

int ir_topo_parse_ibnetdiscover(ir_topo **out, const char *text, size_t len, const char *name,
                                const ir_topo_linkdef *ld, ir_err *e)
{
	ir_topo *t = ir_topo_new();
	ntab nt;
	char q[200], idb[256];
	ntab_init(&nt);
	*out = NULL;
	if (!t)
		return ir_errf(e, "out of memory for the topology");
	for (int pass = 0; pass < 2; pass++) {
		lines L = { text, text + len, name, 0 };
		const char *s;
		size_t n;
		uint32_t cur = IR_TOPO_NONE;
		while (next_line(&L, &s, &n)) {
			const char *p = s, *end = s + n, *id;
			long il;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p == end || *p == '#')
				continue;
			if ((end - p > 6 && memcmp(p, "Switch", 6) == 0 && (p[6] == ' ' || p[6] == '\t')) ||
			    (end - p > 2 && memcmp(p, "Ca", 2) == 0 && (p[2] == ' ' || p[2] == '\t'))) {
				int sw = p[0] == 'S';
				uint64_t np, guid = 0, lid = 0;
				p += sw ? 6 : 2;
				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
				if (number(&p, end, &np, 0) || np < 1 || np > IR_TOPO_MAX_PORTS) {
					ir_errf_at(e, name, L.no, "expected the port count (1..%u) after '%s', found '%s'",
					           IR_TOPO_MAX_PORTS, sw ? "Switch" : "Ca", ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				if ((il = quoted(&p, end, &id)) <= 0 || (size_t)il >= sizeof idb) {
					ir_errf_at(e, name, L.no, "expected a quoted node id (\"S-...\" or \"H-...\"), found '%s'",
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				memcpy(idb, id, (size_t)il);
				idb[il] = 0;
				if (il > 2 && idb[1] == '-') {
					const char *g = idb + 2;
					if (number(&g, idb + il, &guid, 1) || g != idb + il)
						guid = 0;
				}
				if (sw) {
					const char *b = memmem(p, (size_t)(end - p), " port 0 lid ", 12);
					if (b) {
						b += 12;
						if (number(&b, end, &lid, 0))
							lid = 0;
					}
				}
				if (pass == 0) {
					if (ntab_get(&nt, t, idb, (size_t)il) != IR_TOPO_NONE) {
						ir_errf_at(e, name, L.no, "node \"%s\" appears twice", ir_err_quote(q, sizeof q, idb, (size_t)il));
						goto fail;
					}
					cur = ir_topo_add(t, sw, idb, (unsigned)np, guid, e);
					if (cur == IR_TOPO_NONE || ntab_put(&nt, t, cur, e)) {
						ir_err_prefix(e, name);
						goto fail;
					}
					if (ntab_guid(&nt, t, guid, cur, name, L.no, e))
						goto fail;
					if (lid > 0 && lid <= IR_TOPO_MAX_LID)
						t->node[cur].lid = (uint32_t)lid;
				} else {
					cur = ntab_get(&nt, t, idb, (size_t)il);
				}
				continue;
			}
			if (end - p > 2 && memcmp(p, "Rt", 2) == 0 && (p[2] == ' ' || p[2] == '\t')) {
				ir_errf_at(e, name, L.no, "router nodes are not supported: '%s'", ir_err_quote(q, sizeof q, s, n));
				goto fail;
			}
			if (*p == '[') {
				uint64_t pa, pb, pguid = 0, peerguid = 0;
				const char *pid;
				long pl;
				uint32_t peer;
				ir_topo_linkdef l = *ld;
				if (cur == IR_TOPO_NONE) {
					ir_errf_at(e, name, L.no, "port line outside a Switch or Ca block: '%s'",
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				p++;
				if (number(&p, end, &pa, 0) || p >= end || *p != ']' || pa < 1 || pa > t->node[cur].nports) {
					ir_errf_at(e, name, L.no, "expected [PORT] with PORT in 1..%u, found '%s'", t->node[cur].nports,
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				p++;
				if (p < end && *p == '(') { /* port guid */
					const char *c = memchr(p, ')', (size_t)(end - p)), *g = p + 1;
					if (!c) {
						ir_errf_at(e, name, L.no, "unclosed '(' in '%s'", ir_err_quote(q, sizeof q, s, n));
						goto fail;
					}
					if (number(&g, c, &pguid, 1) || g != c)
						pguid = 0;
					p = c + 1;
				}
				if ((pl = quoted(&p, end, &pid)) <= 0 || p >= end || *p != '[') {
					ir_errf_at(e, name, L.no, "expected \"PEER\"[PORT] after the port, found '%s'",
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				p++;
				if (number(&p, end, &pb, 0) || p >= end || *p != ']') {
					ir_errf_at(e, name, L.no, "expected \"PEER\"[PORT] after the port, found '%s'",
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
				p++;
				if (p < end && *p == '(') { /* the peer port's guid (a switch's line to a CA) */
					const char *c = memchr(p, ')', (size_t)(end - p)), *g = p + 1;
					if (c && (number(&g, c, &peerguid, 1) || g != c))
						peerguid = 0;
				}
				if (pass == 0)
					continue;
				peer = ntab_get(&nt, t, pid, (size_t)pl);
				if (peer == IR_TOPO_NONE) {
					ir_errf_at(e, name, L.no, "unknown peer node \"%s\"", ir_err_quote(q, sizeof q, pid, (size_t)pl));
					goto fail;
				}
				if (pb < 1 || pb > t->node[peer].nports) {
					ir_errf_at(e, name, L.no, "port %llu of \"%s\" does not exist (it has %u ports)",
					           (unsigned long long)pb, ir_topo_name(t, peer), t->node[peer].nports);
					goto fail;
				}
				/* the CA's own LID: "# lid N" right after the comment mark */
				if (!t->node[cur].is_switch && !t->node[cur].lid) {
					const char *h = memchr(p, '#', (size_t)(end - p));
					uint64_t lv;
					if (h) {
						h++;
						while (h < end && *h == ' ')
							h++;
						if (end - h > 4 && memcmp(h, "lid ", 4) == 0) {
							h += 4;
							if (!number(&h, end, &lv, 0) && lv > 0 && lv <= IR_TOPO_MAX_LID)
								t->node[cur].lid = (uint32_t)lv;
						}
					}
				}
				/* the link speed: the last word of the line, e.g. 4xQDR */
				{
					const char *w = end;
					while (w > p && w[-1] == ' ')
						w--;
					const char *we = w;
					while (w > p && w[-1] != ' ' && w[-1] != '\t' && w[-1] != '"')
						w--;
					if (we > w && (size_t)(we - w) < 16) {
						char sp[16];
						ir_err e2;
						memcpy(sp, w, (size_t)(we - w));
						sp[we - w] = 0;
						if (ir_topo_parse_link(sp, &l.width, &l.mbps, "link", &e2))
							l = *ld;
					}
				}
				/* port GUIDs: a CA's own on its lines, a CA's as a switch's line names it */
				if (pguid && !t->node[cur].is_switch)
					ir_topo_portp(t, cur, (unsigned)pa)->guid = pguid;
				if (peerguid && !t->node[peer].is_switch)
					ir_topo_portp(t, peer, (unsigned)pb)->guid = peerguid;
				{
					ir_topo_port *x = ir_topo_portp(t, cur, (unsigned)pa);
					if (x->peer != IR_TOPO_NONE) {
						if (x->peer != peer || x->peer_port != pb) {
							ir_errf_at(e, name, L.no, "port %s[%llu] is linked to %s[%u] and to %s[%llu]",
							           ir_topo_name(t, cur), (unsigned long long)pa, ir_topo_name(t, x->peer),
							           x->peer_port, ir_topo_name(t, peer), (unsigned long long)pb);
							goto fail;
						}
						continue;
					}
					if (ir_topo_link(t, cur, (unsigned)pa, peer, (unsigned)pb, &l, e)) {
						char m[IR_ERR_MAX];
						snprintf(m, sizeof m, "%s", e->msg);
						ir_errf_at(e, name, L.no, "%s", m);
						goto fail;
					}
				}
				continue;
			}
			/* vendid=, devid=, sysimgguid=, switchguid=, caguid= and the like */
			{
				const char *eq = memchr(p, '=', (size_t)(end - p));
				int ok = eq != NULL;
				for (const char *c = p; ok && c < eq; c++)
					ok = isalnum((unsigned char)*c) || *c == '_';
				if (!ok) {
					ir_errf_at(e, name, L.no, "expected a Switch, Ca or port line, or key=value, found '%s'",
					           ir_err_quote(q, sizeof q, s, n));
					goto fail;
				}
			}
		}
	}
	/* LIDs: keep discovered LIDs only if every node has one */
	if (ir_topo_finish(t, name, e))
		goto fail;
	ntab_release(&nt);
	*out = t;
	return 0;
fail:
	ntab_release(&nt);
	ir_topo_free(t);
	return -1;
}

int ir_topo_parse(ir_topo **out, const char *text, size_t len, const char *name, const ir_topo_linkdef *ld,
                  ir_err *e)
{
	if (is_ibnd(text, len))
		return ir_topo_parse_ibnetdiscover(out, text, len, name, ld, e);
	return ir_topo_parse_own(out, text, len, name, ld, e);
}

int ir_topo_load(ir_topo **out, const char *spec, uint32_t nhosts_hint, const ir_topo_linkdef *ld, ir_err *e)
{
	ir_reader *r;
	ir_sb sb = IR_SB_INIT;
	int rc;
	*out = NULL;
	if (ir_topo_is_generator(spec))
		return ir_topo_generate(out, spec, nhosts_hint, ld, e);
	if (!(r = ir_reader_open(spec, e)))
		return -1;
	rc = ir_reader_slurp(r, &sb, (size_t)1 << 30, e);
	ir_reader_free(r);
	if (rc == 0)
		rc = ir_topo_parse(out, sb.buf, sb.len, spec, ld, e);
	ir_sb_release(&sb);
	return rc;
}

/* ---- distances ---- */

int ir_topo_bfs(const ir_topo *t, uint32_t node, uint32_t *dist, ir_err *e)
{
	uint32_t *qu = malloc((size_t)t->nnodes * sizeof *qu), h = 0, n = 0;
	if (!qu)
		return ir_errf(e, "out of memory for hop distances");
	for (uint32_t i = 0; i < t->nnodes; i++)
		dist[i] = IR_TOPO_NONE;
	dist[node] = 0;
	qu[n++] = node;
	while (h < n) {
		uint32_t u = qu[h++];
		const ir_topo_node *x = &t->node[u];
		/* hosts do not forward: a path may end at a host but not cross one */
		if (x->is_switch || u == node)
			for (unsigned p = 0; p < x->nports; p++) {
				uint32_t v = t->port[x->port0 + p].peer;
				if (v != IR_TOPO_NONE && dist[v] == IR_TOPO_NONE) {
					dist[v] = dist[u] + 1;
					qu[n++] = v;
				}
			}
	}
	free(qu);
	return 0;
}

uint32_t ir_topo_hops(const ir_topo *t, uint32_t a, uint32_t b)
{
	uint32_t *d = malloc((size_t)t->nnodes * sizeof *d), r;
	if (!d || ir_topo_bfs(t, a, d, NULL)) {
		free(d);
		return IR_TOPO_NONE;
	}
	r = d[b];
	free(d);
	return r;
}
