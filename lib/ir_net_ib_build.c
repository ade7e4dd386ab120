/*
 * ir_net_ib_build.c: building the InfiniBand model (ir_net_ib.h): the
 * topology and its routes, the placement of ranks on hosts, the per-port
 * state; its release; link statistics. See ir_net_ib_internal.h for the parts.
 */
#include "ir_net_ib_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_io.h"
#include "ir_num.h"

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

int ir_ib_sl_read(ir_reader *r, uint32_t nranks, ir_hmap *map, ir_err *e)
{
	const char *fn = ir_reader_name(r);
	char *line;
	size_t len;
	int k;
	char q[120];
	while ((k = ir_reader_line(r, &line, &len, e)) == 1) {
		char *f[4], *x, *save = NULL;
		uint64_t v[3];
		int n = 0, isnew = 0;
		uint8_t *slot;
		if ((x = strchr(line, '#')))
			*x = 0;
		for (char *t = strtok_r(line, " \t\r", &save); t && n < 4; t = strtok_r(NULL, " \t\r", &save))
			f[n++] = t;
		if (n == 0)
			continue;
		if (n != 3)
			return ir_errf_at(e, fn, ir_reader_lineno(r), "expected SRC DST SL (ranks or *, SL 0..15)");
		for (int i = 0; i < 3; i++) {
			if (i < 2 && strcmp(f[i], "*") == 0) {
				v[i] = 0;
				continue;
			}
			if (ir_parse_u64(f[i], &v[i], "sl", NULL) || v[i] >= (i < 2 ? nranks : 16))
				return ir_errf_at(e, fn, ir_reader_lineno(r), "invalid %s '%s' (expected %s)",
				                  i == 0 ? "source" : i == 1 ? "destination" : "SL",
				                  ir_err_quote(q, sizeof q, f[i], strlen(f[i])), i < 2 ? "a rank or *" : "0..15");
			if (i < 2)
				v[i]++;
		}
		slot = ir_hmap_put(map, v[0], v[1], &isnew);
		if (!slot)
			return ir_errf(e, "out of memory for %s", fn);
		if (!isnew)
			return ir_errf_at(e, fn, ir_reader_lineno(r), "a second rule for this pair");
		*slot = (uint8_t)v[2];
	}
	return k < 0 ? -1 : 0;
}

/* sl = FILE (docs/ib-model.md section 9) */
static int sl_read(ir_ib *ib, ir_err *e)
{
	ir_reader *r = ir_reader_open(ib->cfg.sl_file, e);
	int rc;
	if (!r)
		return -1;
	rc = ir_ib_sl_read(r, ib->nranks, &ib->slmap, e);
	ir_reader_free(r);
	return rc;
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

/* Write what --dump-netfile ('n'), --dump-lft ('l') or --route-stats ('r') asks for to path
 * (through ir_writer: a failure leaves no half-written file). */
static int dump(const char *path, int what, const ir_lft *l, const ir_topo *t, int all, ir_err *e)
{
	ir_sb sb = IR_SB_INIT;
	ir_writer *w;
	int r = what == 'n'   ? ir_topo_write_netfile(t, &sb, e)
	        : what == 'r' ? ir_lft_route_stats_paths(l, t, all, &sb, e)
	                      : 0;
	if (!r && what == 'l' && ir_lft_write(l, t, &sb))
		r = ir_errf(e, "out of memory for the LFT dump");
	if (r) {
		ir_sb_release(&sb);
		return -1;
	}
	w = ir_writer_open(path, 0, e);
	if (!w || ir_writer_write(w, sb.buf, sb.len, e) || ir_writer_close(w, e)) {
		if (w)
			ir_writer_abort(w);
		ir_sb_release(&sb);
		return -1;
	}
	ir_sb_release(&sb);
	return 0;
}

ir_ib *ir_ib_new(const ir_ib_cfg *c, uint32_t nranks, const ir_ib_client *cl, ir_err *e)
{
	ir_ib *ib = calloc(1, sizeof *ib);
	ir_ib_cfg def;
	ir_topo_linkdef ld, lld, gld;
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
	ib->cfg.dump_netfile = c->dump_netfile ? strdup(c->dump_netfile) : NULL;
	ib->cfg.route_stats = c->route_stats ? strdup(c->route_stats) : NULL;
	ib->cfg.sl_file = c->sl_file ? strdup(c->sl_file) : NULL;
	ir_ib_config_release(&def);
	ib->keep = c->keep != NULL;
	ib->freepk = ib->freem = NIL;
	ir_heap_init(&ib->q);
	ir_hmap_init(&ib->po, sizeof(struct pairo), 1024, 0);
	ir_hmap_init(&ib->ccf, sizeof(struct ccflow), 64, IR_HMAP_PAIR);
	ir_hmap_init(&ib->slmap, 1, 16, IR_HMAP_PAIR);
	ib->qpeek = TMAX;
	ib->nranks = nranks;
	ib->nvl = ib->cfg.vls ? ib->cfg.vls : 1;
	if (cl)
		ib->cl = *cl;
	if (!ib->cfg.topo || !ib->cfg.routing || !ib->cfg.placement || (c->dump_lft && !ib->cfg.dump_lft) ||
	    (c->dump_netfile && !ib->cfg.dump_netfile) || (c->route_stats && !ib->cfg.route_stats) ||
	    (c->sl_file && !ib->cfg.sl_file)) {
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
	ld.local = &lld;
	ld.global = &gld;
	lld = gld = ld;
	lld.local = lld.global = gld.local = gld.global = NULL;
	if (ib->cfg.local_link_set) {
		lld.width = ib->cfg.local_width;
		lld.mbps = ib->cfg.local_mbps;
	}
	if (ib->cfg.local_delay_set)
		lld.delay = ib->cfg.local_delay;
	if (ib->cfg.global_link_set) {
		gld.width = ib->cfg.global_width;
		gld.mbps = ib->cfg.global_mbps;
	}
	if (ib->cfg.global_delay_set)
		gld.delay = ib->cfg.global_delay;
	if (ir_topo_load(&ib->t, ib->cfg.topo, nranks, &ld, e))
		goto fail;
	t = ib->t;
	/* the topology as an ibsim-utils net file (before routing: it is written even when the
	 * routing fails), the tables, the routes per link */
	if (ib->cfg.dump_netfile && dump(ib->cfg.dump_netfile, 'n', &ib->lft, t, 1, e))
		goto fail;
	if (ib->cfg.lmc && ib->cfg.dump_lft) {
		ir_errf(e, "dump_lft writes one LID per port; it cannot write the tables of lmc = %u", ib->cfg.lmc);
		goto fail;
	}
	if (ir_route_lmc(&ib->lft, t, ib->cfg.routing, ib->cfg.lmc, e))
		goto fail;
	ib->npath = ib->lft.npath;
	ib->prng = ib->cfg.path_seed;
	if (ib->nvl < ib->lft.nclass) {
		ir_errf(e, "routing %s on '%s' needs %u VLs to be deadlock-free (vls = %u; set vls=%u)", ib->cfg.routing,
		        ib->cfg.topo, ib->lft.nclass, ib->nvl, ib->lft.nclass);
		goto fail;
	}
	/* SL to VL: one table for every port; its VLs are base VLs, each a copy
	 * of the routing's classes (docs/ib-model.md section 9) */
	for (uint32_t sl = 0, nbase = ib->nvl / ib->lft.nclass; sl < 16; sl++) {
		uint32_t v = ib->cfg.sl2vl_set ? ib->cfg.sl2vl[sl] : sl % nbase;
		if (v >= nbase) {
			ir_errf(e, "sl2vl maps SL %u to VL %u, but there are %u data VLs%s (vls = %u)", sl, v, nbase,
			        ib->lft.nclass > 1 ? " for the routing's classes" : "", ib->nvl);
			goto fail;
		}
		ib->sl2vl[sl] = (uint8_t)v;
	}
	if (!ib->cfg.sl_hash && ib->cfg.sl > 15) {
		ir_errf(e, "invalid service level %u", ib->cfg.sl);
		goto fail;
	}
	for (uint32_t v = 0; v < ib->nvl; v++)
		if (ib->cfg.vlarb_high[v])
			ib->hp = 1;
	if (ib->cfg.dump_lft && dump(ib->cfg.dump_lft, 'l', &ib->lft, t, 1, e))
		goto fail;
	if (ib->cfg.route_stats && dump(ib->cfg.route_stats, 'r', &ib->lft, t, ib->cfg.path != IR_IB_PATH_STATIC, e))
		goto fail;
	ib->rank_host = malloc((size_t)nranks * sizeof *ib->rank_host);
	if (!ib->rank_host) {
		ir_errf(e, "out of memory for the placement");
		goto fail;
	}
	if (place(ib, e))
		goto fail;
	if (ib->cfg.sl_file && sl_read(ib, e))
		goto fail;
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->node[i].nports > maxp)
			maxp = t->node[i].nports;
	ib->W = (maxp * ib->nvl + 63) / 64;
	ib->full_wire = ib->cfg.mtu + IR_IB_HEADER_BYTES;
	ib->bus_full = 0;
	{
		unsigned __int128 x = (unsigned __int128)ib->cfg.mtu * 1000000000000ull;
		ib->bus_full = (uint64_t)((x + ib->cfg.pcie - 1) / ib->cfg.pcie);
	}
	nb = t->nports_total * ib->nvl;
	ib->out = calloc(t->nports_total, sizeof *ib->out);
	ib->cr = calloc(nb, sizeof *ib->cr);
	ib->in = calloc(nb, sizeof *ib->in);
	ib->rr = calloc(nb, sizeof *ib->rr);
	ib->req = calloc((size_t)nb * ib->W, sizeof *ib->req);
	ib->h = calloc(t->nhosts, sizeof *ib->h);
	ib->rrc = calloc(t->nhosts ? t->nhosts : 1, sizeof *ib->rrc);
	if (!ib->out || !ib->cr || !ib->in || !ib->rr || !ib->req || !ib->h || !ib->rrc) {
		ir_errf(e, "out of memory for the fabric's ports");
		goto fail;
	}
	if (ib->cfg.cc) {
		if (ib->cfg.cc_ncct < 2 || ib->cfg.cc_limit >= ib->cfg.cc_ncct) {
			ir_errf(e, "cc_limit %u is past the last index of the congestion control table (cc_cct has %u "
			           "entries)", ib->cfg.cc_limit, ib->cfg.cc_ncct);
			goto fail;
		}
		ib->cc = 1;
		ib->cc_thr = (uint32_t)(ib->cfg.cc_threshold * ib->cfg.buffer);
		ib->oq = calloc(nb, sizeof *ib->oq);
		ib->mk = calloc(nb, sizeof *ib->mk);
		if (!ib->oq || !ib->mk) {
			ir_errf(e, "out of memory for congestion control");
			goto fail;
		}
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
				ib->rr[k] = maxp * ib->nvl; /* first search starts at port 0 */
				ib->cr[k].t0 = TMAX;
				ib->cr[k].r = ib->cr[k].in;
				ib->cr[k].cap = CR_INLINE;
				ib->cr[k].cred = x->peer == IR_TOPO_NONE ? 0
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
			if (ib->cr[i].r != ib->cr[i].in)
				free(ib->cr[i].r);
		}
	free(ib->cr);
	free(ib->out);
	free(ib->in);
	free(ib->rr);
	free(ib->req);
	free(ib->h);
	free(ib->rrc);
	free(ib->pk);
	free(ib->m);
	free(ib->rank_host);
	free(ib->park);
	free(ib->hmode);
	free(ib->ho);
	ir_hmap_release(&ib->po);
	ir_hmap_release(&ib->ccf);
	ir_hmap_release(&ib->slmap);
	free(ib->oq);
	free(ib->mk);
	free(ib->retire);
	free(ib->kc);
	ibp_release(ib);
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

