/*
 * ir_node.c: the node model's keys and noise files (see ir_node.h; the rules are in
 * docs/loggops-semantics.md section 8, the files in formats/noise.md).
 *
 * A noise file is kept as read, by sections (a `host` line opens one); the engine asks
 * for one host's detours once, sorted and merged, and shares the list of the hosts no
 * section names. Sorting at that point, rather than demanding sorted files, lets one
 * file give every host a common list plus its own detours. The number of sections is
 * bounded (IR_NOISE_SECTIONS_MAX), so building the lists costs at most hosts x sections.
 */
#include "ir_node.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_num.h"
#include "ir_params.h"

const char *const ir_node_keys[] = { "cores", "ranks_per_host", "cpu_wait", "cpu_bind", "quantum", "cpu_scale", "cpu_yield",
	                             "cpu_wake", "perturb", "seed", "noise", "noise_loggopsim", NULL };

void ir_noise_init(ir_noise *nz) { memset(nz, 0, sizeof *nz); }

void ir_noise_release(ir_noise *nz)
{
	free(nz->d);
	free(nz->sec);
	ir_noise_init(nz);
}

static int add_sec(ir_noise *nz, uint64_t lo, uint64_t hi, const char *f, unsigned long ln, ir_err *e)
{
	if (nz->nsec == IR_NOISE_SECTIONS_MAX)
		return ir_errf_at(e, f, ln, "more than %d host sections", IR_NOISE_SECTIONS_MAX);
	if (nz->nsec == nz->capsec && IR_GROW(nz->sec, nz->nsec + 1, nz->capsec))
		return ir_errf(e, "out of memory for the noise file");
	nz->sec[nz->nsec].lo = lo;
	nz->sec[nz->nsec].hi = hi;
	nz->sec[nz->nsec].first = nz->nd;
	nz->sec[nz->nsec].n = 0;
	nz->nsec++;
	return 0;
}

static int add_detour(ir_noise *nz, uint64_t start, uint64_t dur, const char *f, unsigned long ln, ir_err *e)
{
	if (start > UINT64_MAX - dur)
		return ir_errf_at(e, f, ln, "detour ends beyond 2^64 ps");
	if (!nz->nsec && add_sec(nz, 0, UINT64_MAX, f, ln, e))
		return -1;
	if (nz->nd == nz->capd && IR_GROW(nz->d, nz->nd + 1, nz->capd))
		return ir_errf(e, "out of memory for the noise file");
	nz->d[nz->nd].start = start;
	nz->d[nz->nd].end = start + dur;
	nz->nd++;
	nz->sec[nz->nsec - 1].n++;
	return 0;
}

/* Split a line into at most 3 blank-separated fields (the third means too many). */
static int fields(char *s, char **f)
{
	int n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || n == 3)
			return n;
		f[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
	}
}

/* LogGOPSim's numbers: nanoseconds, decimals allowed; kept in whole picoseconds. */
static int ns_value(const char *s, uint64_t *ps, const char *what, const char *f, unsigned long ln, ir_err *e)
{
	char *end, q[160];
	double v;
	if (*s == '-' || *s == '+')
		goto bad;
	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < 0 || v * 1000.0 >= 18446744073709551615.0)
		goto bad;
	*ps = (uint64_t)(v * 1000.0 + 0.5);
	return 0;
bad:
	return ir_errf_at(e, f, ln, "invalid %s '%s' (expected a non-negative number of nanoseconds)", what,
	                  ir_err_quote(q, sizeof q, s, strlen(s)));
}

static int host_range(const char *s, uint64_t *lo, uint64_t *hi, const char *f, unsigned long ln, ir_err *e)
{
	const char *dash = strchr(s, '-');
	char a[32], q[160];
	if (strcmp(s, "all") == 0) {
		*lo = 0;
		*hi = UINT64_MAX;
		return 0;
	}
	if (dash && (size_t)(dash - s) < sizeof a) {
		memcpy(a, s, (size_t)(dash - s));
		a[dash - s] = 0;
		if (ir_parse_u64(a, lo, "host", NULL) == 0 && ir_parse_u64(dash + 1, hi, "host", NULL) == 0 && *lo <= *hi)
			return 0;
	} else if (!dash && ir_parse_u64(s, lo, "host", NULL) == 0) {
		*hi = *lo;
		return 0;
	}
	return ir_errf_at(e, f, ln, "invalid host range '%s' (expected N, N-M with N <= M, or all)",
	                  ir_err_quote(q, sizeof q, s, strlen(s)));
}

int ir_noise_read(ir_noise *nz, ir_reader *r, int loggopsim, ir_err *e)
{
	const char *f = ir_reader_name(r);
	char *line, *x, *fl[3];
	size_t len;
	int k;
	while ((k = ir_reader_line(r, &line, &len, e)) == 1) {
		unsigned long ln = ir_reader_lineno(r);
		uint64_t a, b;
		int n;
		if (memchr(line, 0, len))
			return ir_errf_at(e, f, ln, "unexpected NUL byte");
		if ((x = strchr(line, '#')))
			*x = 0;
		for (x = line; *x; x++)
			if ((unsigned char)*x < 0x20 && *x != '\t')
				return ir_errf_at(e, f, ln, "unexpected control character \\x%02x", (unsigned char)*x);
		n = fields(line, fl);
		if (n == 0)
			continue;
		if (!loggopsim && strcmp(fl[0], "host") == 0) {
			if (n != 2)
				return ir_errf_at(e, f, ln, "expected 'host RANGE'");
			if (host_range(fl[1], &a, &b, f, ln, e) || add_sec(nz, a, b, f, ln, e))
				return -1;
			continue;
		}
		if (n != 2)
			return ir_errf_at(e, f, ln, "expected a start and a duration%s, found %s", loggopsim ? " in nanoseconds" : "",
			                  n == 1 ? "one field" : "more than two fields");
		if (loggopsim) {
			if (ns_value(fl[0], &a, "start", f, ln, e) || ns_value(fl[1], &b, "duration", f, ln, e))
				return -1;
		} else {
			if (ir_parse_time(fl[0], &a, "detour start", e) || ir_parse_time(fl[1], &b, "detour duration", e)) {
				char msg[IR_ERR_MAX];
				snprintf(msg, sizeof msg, "%s", e->msg);
				return ir_errf_at(e, f, ln, "%s", msg);
			}
		}
		if (add_detour(nz, a, b, f, ln, e))
			return -1;
	}
	return k < 0 ? -1 : 0;
}

int ir_noise_load(ir_noise *nz, const char *path, int loggopsim, ir_err *e)
{
	ir_reader *r = ir_reader_open(path, e);
	int rc;
	if (!r)
		return -1;
	rc = ir_noise_read(nz, r, loggopsim, e);
	ir_reader_free(r);
	return rc;
}

static int by_start(const void *a, const void *b)
{
	const ir_detour *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

int ir_noise_host(const ir_noise *nz, uint64_t h, ir_detour **out, size_t *n, ir_err *e)
{
	size_t cnt = 0, k = 0;
	ir_detour *d;
	*out = NULL;
	*n = 0;
	for (size_t s = 0; s < nz->nsec; s++)
		if (nz->sec[s].lo <= h && h <= nz->sec[s].hi)
			cnt += nz->sec[s].n;
	if (!cnt)
		return 0;
	d = malloc(cnt * sizeof *d);
	if (!d)
		return ir_errf(e, "out of memory for the detours of host %llu", (unsigned long long)h);
	for (size_t s = 0; s < nz->nsec; s++)
		if (nz->sec[s].lo <= h && h <= nz->sec[s].hi) {
			memcpy(d + k, nz->d + nz->sec[s].first, nz->sec[s].n * sizeof *d);
			k += nz->sec[s].n;
		}
	qsort(d, cnt, sizeof *d, by_start);
	k = 0;
	for (size_t i = 0; i < cnt; i++) {
		if (d[i].end == d[i].start)
			continue;
		if (k && d[i].start <= d[k - 1].end) {
			if (d[i].end > d[k - 1].end)
				d[k - 1].end = d[i].end;
		} else {
			d[k++] = d[i];
		}
	}
	if (!k) {
		free(d);
		return 0;
	}
	*out = d;
	*n = k;
	return 0;
}

/* ---- keys ---- */

void ir_node_defaults(ir_node_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->ranks_per_host = 1;
	c->wait = IR_WAIT_BLOCK;
	c->quantum = 4000000000ULL; /* 4 ms */
	c->cpu_scale = 1.0;
	c->seed = 1;
}

static const char *origin(const struct ir_params *ps, const char *key, char *buf, size_t n)
{
	snprintf(buf, n, "?");
	for (size_t i = 0; i < ir_params_count(ps); i++)
		if (strcmp(ir_params_key(ps, i), key) == 0)
			ir_params_origin(ps, i, buf, n);
	return buf;
}

static int bad_value(const struct ir_params *ps, const char *key, const char *expect, ir_err *e)
{
	char o[300], q[160];
	const char *v = ir_params_get(ps, key);
	return ir_errf(e, "%s: invalid %s '%s' (expected %s)", origin(ps, key, o, sizeof o), key,
	               ir_err_quote(q, sizeof q, v, strlen(v)), expect);
}

int ir_node_load(ir_node_cfg *c, const struct ir_params *ps, ir_err *e)
{
	const char *v;
	uint64_t x;
	double d;
	int k;
	ir_node_defaults(c);
	if ((v = ir_params_get(ps, "cores"))) {
		if (ir_parse_u64(v, &x, "cores", NULL) || x < 1 || x > UINT32_MAX)
			return bad_value(ps, "cores", "a whole number of at least 1", e);
		c->cores = (uint32_t)x;
	}
	if ((v = ir_params_get(ps, "ranks_per_host"))) {
		if (ir_parse_u64(v, &x, "ranks_per_host", NULL) || x < 1 || x > UINT32_MAX)
			return bad_value(ps, "ranks_per_host", "a whole number of at least 1", e);
		c->ranks_per_host = (uint32_t)x;
		c->ranks_per_host_set = 1;
	}
	if ((v = ir_params_get(ps, "cpu_wait"))) {
		if (strcmp(v, "spin") == 0)
			c->wait = IR_WAIT_SPIN;
		else if (strcmp(v, "block") == 0)
			c->wait = IR_WAIT_BLOCK;
		else
			return bad_value(ps, "cpu_wait", "spin or block", e);
	}
	if ((v = ir_params_get(ps, "cpu_bind"))) {
		if (strcmp(v, "none") == 0)
			c->bind = 0;
		else if (strcmp(v, "core") == 0)
			c->bind = 1;
		else
			return bad_value(ps, "cpu_bind", "none or core", e);
	}
	if (c->bind && c->wait == IR_WAIT_SPIN) {
		char o[300];
		return ir_errf(e, "%s: cpu_bind = core needs cpu_wait = block (spin's rotation places "
		               "the ranks itself)", origin(ps, "cpu_bind", o, sizeof o));
	}
	if (ir_params_time(ps, "cpu_yield", &c->yield, e) < 0)
		return -1;
	if (ir_params_time(ps, "cpu_wake", &c->wake, e) < 0)
		return -1;
	if ((k = ir_params_time(ps, "quantum", &c->quantum, e)) < 0)
		return -1;
	if (k && c->quantum == 0)
		return bad_value(ps, "quantum", "a time of at least 1 ps", e);
	if ((v = ir_params_get(ps, "cpu_scale"))) {
		if (ir_parse_double(v, &d, "cpu_scale", NULL) || !(d > 0) || d > 1e9)
			return bad_value(ps, "cpu_scale", "a decimal number above 0 and at most 1e9", e);
		c->cpu_scale = d;
	}
	if ((v = ir_params_get(ps, "perturb"))) {
		if (ir_parse_double(v, &d, "perturb", NULL) || !(d >= 0) || !(d < 1))
			return bad_value(ps, "perturb", "a decimal number from 0 to below 1", e);
		c->perturb = d;
	}
	if ((v = ir_params_get(ps, "seed"))) {
		if (ir_parse_u64(v, &x, "seed", NULL))
			return bad_value(ps, "seed", "a whole number from 0 to 2^64-1", e);
		c->seed = x;
	}
	c->noise = ir_params_get(ps, "noise");
	if ((v = ir_params_get(ps, "noise_loggopsim"))) {
		if (c->noise)
			return ir_errf(e, "noise and noise_loggopsim cannot both be given");
		c->noise = v;
		c->noise_loggopsim = 1;
	}
	return 0;
}

int ir_node_shared(const ir_node_cfg *c, uint32_t nranks)
{
	uint32_t most = c->ranks_per_host < nranks ? c->ranks_per_host : nranks;
	return c->cores && most > c->cores;
}

int ir_node_active(const ir_node_cfg *c, uint32_t nranks)
{
	return ir_node_shared(c, nranks) || c->cpu_scale != 1.0 || c->perturb > 0 || (c->nz && c->nz->nd);
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

uint64_t ir_node_draw(const ir_node_cfg *c, uint32_t rank, uint32_t op, uint32_t salt)
{
	uint64_t x = splitmix(splitmix(splitmix(c->seed) ^ rank) ^ op);
	return salt ? splitmix(x ^ salt) : x;
}

double ir_node_factor(const ir_node_cfg *c, uint32_t rank, uint32_t op)
{
	uint64_t x;
	double u;
	if (!(c->perturb > 0))
		return 1.0;
	x = ir_node_draw(c, rank, op, 0);
	u = (double)(x >> 11) * 0x1p-53;
	return 1.0 - c->perturb + 2.0 * c->perturb * u;
}
