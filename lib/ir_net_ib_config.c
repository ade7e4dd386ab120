/*
 * ir_net_ib_config.c: the InfiniBand model's configuration (ir_net_ib.h):
 * one table of keys with their defaults and meanings, the parsing of a value
 * as the user typed it, the --help table, and the model's entry in the
 * registry of networks (ir_net.h). See ir_net_ib_internal.h for the parts.
 */
#include "ir_net_ib_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_io.h"
#include "ir_num.h"

/* ---- configuration: one table of keys and defaults ---- */

typedef struct ib_key {
	const char *key, *def, *help;
} ib_key;

static const ib_key keys[] = {
	{ "topo", "star", "topology: star:N chain:S ring:S fattree2:K fattree3:K h8s2 h8s4 torus:AxB..[,h=N] "
	                  "mesh:AxB..[,h=N] dragonfly:a,p,h[,g] or a file (star: N = ranks)" },
	{ "routing", "minhop", "routing engine: minhop, updn, ftree, dor (torus, mesh), minimal, valiant, ugal, "
	                       "ugal-g (dragonfly) or lft:FILE (an OpenSM LFT dump)" },
	{ "placement", "seq", "rank to host: seq, random[:SEED] or a FILE of host names" },
	{ "link", "4xDDR", "link width and speed: 1x..12x, SDR DDR QDR FDR10 FDR EDR HDR NDR" },
	{ "mtu", "2048", "payload bytes per packet: 256, 512, 1024, 2048, 4096" },
	{ "vls", "1", "data virtual lanes, 1..15" },
	{ "vlarb", "1", "packets per VL turn, comma-separated per VL (the last repeats)" },
	{ "vlarb_high", "", "high-priority VL arbitration: packets per turn per VL, 0: not in the table (-: none)" },
	{ "vlarb_high_limit", "4", "high-priority packets in a row while a low-priority one waits (255: no limit)" },
	{ "sl", "hash", "service level of a message: hash (of its host pair), 0..15, or a FILE of SRC DST SL" },
	{ "sl2vl", "", "VL of SL 0, 1, .., 15, comma-separated, the last repeats (-: SL mod the VLs)" },
	{ "lmc", "0", "LID mask control: 2^lmc LIDs (paths) per host, 0..7 (minhop, updn, ftree)" },
	{ "path", "static", "LID of a message with lmc > 0: static, random[:SEED], rr, adaptive (shortest queue) "
	                    "or adaptive-credits" },
	{ "path_unit", "message", "path chosen per message or per packet" },
	{ "buffer", "128", "switch input buffer per port and VL, 64-byte blocks" },
	{ "host_buffer", "128", "host receive buffer per VL, 64-byte blocks" },
	{ "delay", "5ns", "propagation delay per link" },
	{ "local_link", "", "torus/mesh links, dragonfly links inside a group (-: as link)" },
	{ "local_delay", "", "their propagation delay (-: as delay)" },
	{ "global_link", "", "dragonfly links between groups (-: as link)" },
	{ "global_delay", "", "their propagation delay (-: as delay)" },
	{ "switch_latency", "100ns", "switch latency from header arrival to forwarding" },
	{ "pcie", "4GB/s", "host bus rate (send and receive side each)" },
	{ "rndv", "fabric", "rendezvous: fabric (RTS/CTS cross the network) or loggopsim (data at once)" },
	{ "cc", "off", "congestion control (FECN/BECN, CCT): on or off" },
	{ "cc_threshold", "0.5", "cc: fraction of buffer an output VL's queue must exceed to mark FECN" },
	{ "cc_marking_rate", "1", "cc: mark every n-th packet leaving a congested output" },
	{ "cc_timer", "10us", "cc: CCTI_Timer, each flow's CCT index drops by one per period" },
	{ "cc_increase", "1", "cc: CCTI_Increase, CCT index steps per notification" },
	{ "cc_limit", "127", "cc: CCTI_Limit, the highest CCT index (below the CCT's size)" },
	{ "cc_cct", "linear:100ns", "cc: inter-packet delays: linear:STEP[:N] (N entries i*STEP, N 128) or "
	                            "a comma list" },
	{ "dump_lft", "", "write the forwarding tables to FILE (OpenSM dump layout)" },
	{ "dump_netfile", "", "write the topology to FILE as a net file of ibsim-utils' fabric simulator" },
	{ "route_stats", "", "write routes per link direction to FILE (TSV; balance summary)" },
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

/* The congestion control table: "linear:STEP[:N]" (N entries, entry i =
 * i * STEP; N 128 by default) or a comma list of non-decreasing delays.
 * The specification's entries are a 14-bit multiplier and a 2-bit shift
 * of a packet time; the model takes the delays themselves (docs/ib-model.md
 * section 8). */
static int parse_cct(ir_ib_cfg *c, const char *v, ir_err *e)
{
	char q[80], b[40];
	uint64_t d[IR_IB_CCT_MAX], x, n = 0;
	if (strncmp(v, "linear:", 7) == 0) {
		const char *p = v + 7, *colon = strchr(p, ':');
		size_t l = colon ? (size_t)(colon - p) : strlen(p);
		uint64_t cnt = 128;
		if (l == 0 || l >= sizeof b)
			goto bad;
		memcpy(b, p, l);
		b[l] = 0;
		if (ir_parse_time(b, &x, "cc_cct", NULL) || x > UINT64_MAX / IR_IB_CCT_MAX)
			goto bad;
		if (colon && ir_parse_range(colon + 1, 2, IR_IB_CCT_MAX, &cnt, "cc_cct", NULL))
			goto bad;
		for (n = 0; n < cnt; n++)
			d[n] = n * x;
	} else {
		const char *p = v;
		for (;;) {
			const char *comma = strchr(p, ',');
			size_t l = comma ? (size_t)(comma - p) : strlen(p);
			if (n == IR_IB_CCT_MAX || l == 0 || l >= sizeof b)
				goto bad;
			memcpy(b, p, l);
			b[l] = 0;
			if (ir_parse_time(b, &x, "cc_cct", NULL) || (n && x < d[n - 1]))
				goto bad;
			d[n++] = x;
			if (!comma)
				break;
			p = comma + 1;
		}
		if (n < 2)
			goto bad;
	}
	memcpy(c->cc_cct, d, n * sizeof *d);
	c->cc_ncct = (uint32_t)n;
	return 0;
bad:
	return ir_errf(e, "invalid congestion control table for cc_cct: '%s' (expected linear:STEP[:N] with N 2..%u, "
	                  "or 2 to %u non-decreasing comma-separated delays)",
	               ir_err_quote(q, sizeof q, v, strlen(v)), IR_IB_CCT_MAX, IR_IB_CCT_MAX);
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
		if (strcmp(value, "minhop") && strcmp(value, "updn") && strcmp(value, "ftree") && strcmp(value, "dor") &&
		    strcmp(value, "minimal") && strcmp(value, "valiant") && strcmp(value, "ugal") && strcmp(value, "ugal-g") &&
		    !(strncmp(value, "lft:", 4) == 0 && value[4]))
			return ir_errf(e, "invalid routing for routing: '%s' (expected minhop, updn, ftree, dor, minimal, "
			                  "valiant, ugal, ugal-g or lft:FILE)", ir_err_quote(q, sizeof q, value, strlen(value)));
		return set_str(&c->routing, value, e);
	}
	if (strcmp(k, "placement") == 0) {
		if (!*value)
			return ir_errf(e, "invalid placement for placement: '' (expected seq, random[:SEED] or a file)");
		if (strncmp(value, "random:", 7) == 0 && ir_parse_u64(value + 7, &x, "placement seed", e))
			return -1;
		return set_str(&c->placement, value, e);
	}
	if (strcmp(k, "dump_lft") == 0 || strcmp(k, "dump_netfile") == 0 || strcmp(k, "route_stats") == 0) {
		char **dst = k[0] == 'r' ? &c->route_stats : k[5] == 'n' ? &c->dump_netfile : &c->dump_lft;
		if (!*value) {
			free(*dst);
			*dst = NULL;
			return 0;
		}
		return set_str(dst, value, e);
	}
	if (strcmp(k, "link") == 0)
		return ir_topo_parse_link(value, &c->width, &c->mbps, "link", e);
	if (strcmp(k, "local_link") == 0 || strcmp(k, "global_link") == 0) {
		int g = k[0] == 'g';
		uint8_t *set = g ? &c->global_link_set : &c->local_link_set;
		*set = 0;
		if (!*value)
			return 0;
		if (ir_topo_parse_link(value, g ? &c->global_width : &c->local_width, g ? &c->global_mbps : &c->local_mbps, k,
		                       e))
			return -1;
		*set = 1;
		return 0;
	}
	if (strcmp(k, "local_delay") == 0 || strcmp(k, "global_delay") == 0) {
		int g = k[0] == 'g';
		uint8_t *set = g ? &c->global_delay_set : &c->local_delay_set;
		*set = 0;
		if (!*value)
			return 0;
		if (ir_parse_time(value, g ? &c->global_delay : &c->local_delay, k, e))
			return -1;
		*set = 1;
		return 0;
	}
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
	if (strcmp(k, "vlarb_high") == 0 || strcmp(k, "sl2vl") == 0) {
		/* comma lists, the last entry repeating: high-priority weights 0..255, or a VL per SL */
		int isv = k[0] == 's';
		unsigned cap = isv ? 16 : IR_IB_MAX_VLS, hi = isv ? IR_IB_MAX_VLS - 1 : 255, nw = 0;
		uint32_t w[16];
		const char *p = value;
		if (!*value) {
			if (isv)
				c->sl2vl_set = 0;
			else
				memset(c->vlarb_high, 0, sizeof c->vlarb_high);
			return 0;
		}
		for (;;) {
			char b[32];
			const char *comma = strchr(p, ',');
			size_t l = comma ? (size_t)(comma - p) : strlen(p);
			int bad = nw == cap || l == 0 || l >= sizeof b;
			if (!bad) {
				memcpy(b, p, l);
				b[l] = 0;
				bad = ir_parse_range(b, 0, hi, &x, k, NULL) != 0;
			}
			if (bad)
				return ir_errf(e, "invalid %s for %s: '%s' (expected 1 to %u comma-separated %s 0..%u)",
				               isv ? "SL-to-VL table" : "VL weights", k, ir_err_quote(q, sizeof q, value, strlen(value)),
				               cap, isv ? "VLs" : "weights", hi);
			w[nw++] = (uint32_t)x;
			if (!comma)
				break;
			p = comma + 1;
		}
		for (unsigned i = 0; i < cap; i++) {
			if (isv)
				c->sl2vl[i] = (uint8_t)w[i < nw ? i : nw - 1];
			else
				c->vlarb_high[i] = w[i < nw ? i : nw - 1];
		}
		if (isv)
			c->sl2vl_set = 1;
		return 0;
	}
	if (strcmp(k, "vlarb_high_limit") == 0) {
		if (ir_parse_range(value, 1, 255, &x, k, e))
			return -1;
		c->vlarb_high_limit = (uint32_t)x;
		return 0;
	}
	if (strcmp(k, "sl") == 0) {
		if (strcmp(value, "hash") == 0 || !*value) {
			c->sl_hash = 1;
			free(c->sl_file);
			c->sl_file = NULL;
			return 0;
		}
		if (strspn(value, "0123456789") != strlen(value)) { /* a file of rank pairs */
			if (set_str(&c->sl_file, value, e))
				return -1;
			c->sl_hash = 0;
			return 0;
		}
		free(c->sl_file);
		c->sl_file = NULL;
		if (ir_parse_range(value, 0, 15, &x, "sl", NULL))
			return ir_errf(e, "invalid service level for sl: '%s' (expected hash or 0..15)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		c->sl_hash = 0;
		c->sl = (uint8_t)x;
		return 0;
	}
	if (strcmp(k, "lmc") == 0) {
		if (ir_parse_u64(value, &x, "lmc", NULL) || x > IR_LFT_MAX_LMC)
			return ir_errf(e, "invalid LMC for lmc: '%s' (expected 0..%u)",
			               ir_err_quote(q, sizeof q, value, strlen(value)), IR_LFT_MAX_LMC);
		c->lmc = (uint8_t)x;
		return 0;
	}
	if (strcmp(k, "path") == 0) {
		static const char *const names[] = { "static", "random", "rr", "adaptive", "adaptive-credits" };
		const char *colon = strchr(value, ':');
		size_t l = colon ? (size_t)(colon - value) : strlen(value);
		for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
			if (strlen(names[i]) != l || strncmp(value, names[i], l))
				continue;
			if (colon && (i != IR_IB_PATH_RANDOM || ir_parse_u64(colon + 1, &x, "path seed", NULL)))
				break;
			c->path = (uint8_t)i;
			c->path_seed = colon ? x : 1;
			return 0;
		}
		return ir_errf(e, "invalid path selection for path: '%s' (expected static, random[:SEED], rr, adaptive or "
		                  "adaptive-credits)", ir_err_quote(q, sizeof q, value, strlen(value)));
	}
	if (strcmp(k, "path_unit") == 0) {
		if (strcmp(value, "message") && strcmp(value, "packet"))
			return ir_errf(e, "invalid path unit for path_unit: '%s' (expected message or packet)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		c->path_packet = value[1] == 'a';
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
	if (strcmp(k, "cc") == 0) {
		if (strcmp(value, "on") && strcmp(value, "off"))
			return ir_errf(e, "invalid congestion control for cc: '%s' (expected on or off)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		c->cc = value[1] == 'n';
		return 0;
	}
	if (strcmp(k, "cc_threshold") == 0) {
		double d;
		if (ir_parse_double(value, &d, k, NULL) || !(d > 0 && d <= 1))
			return ir_errf(e, "invalid fraction for cc_threshold: '%s' (expected a number in (0, 1])",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		c->cc_threshold = d;
		return 0;
	}
	if (strcmp(k, "cc_marking_rate") == 0 || strcmp(k, "cc_increase") == 0) {
		if (ir_parse_range(value, 1, 65535, &x, k, e))
			return -1;
		*(k[3] == 'm' ? &c->cc_marking_rate : &c->cc_increase) = (uint32_t)x;
		return 0;
	}
	if (strcmp(k, "cc_limit") == 0) {
		if (ir_parse_range(value, 0, IR_IB_CCT_MAX - 1, &x, k, e))
			return -1;
		c->cc_limit = (uint32_t)x;
		return 0;
	}
	if (strcmp(k, "cc_timer") == 0) {
		if (ir_parse_time(value, &x, k, e))
			return -1;
		if (x == 0)
			return ir_errf(e, "invalid time for cc_timer: '%s' (expected a period above 0)",
			               ir_err_quote(q, sizeof q, value, strlen(value)));
		c->cc_timer = x;
		return 0;
	}
	if (strcmp(k, "cc_cct") == 0)
		return parse_cct(c, value, e);
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
	free(c->dump_netfile);
	free(c->route_stats);
	free(c->sl_file);
	memset(c, 0, sizeof *c);
}

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

