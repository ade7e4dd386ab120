/*
 * ir_model.c: the message cost model (ir_model.h; formats/params.md, "The
 * piecewise model"): piecewise functions as text and as numbers, the
 * parameter keys of the model, and the three costs of a message the engine
 * and trace2goal both use, so that the replay and the duration compensation
 * can never price a message differently.
 */
#include "ir_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_num.h"
#include "ir_params.h"
#include "ir_strbuf.h"

const char *const ir_loggops_keys[] = { "L", "o", "g", "G", "O", "S", "o_rndv", "O_rndv", "O_send",
	                                "O_send_rndv", "send_o", "recv_o", "net_L", "copy", "reduce", "coll_copy", "poll", "nbc_o",
	                                "intra_send_o", "intra_recv_o", "intra_net_L", "intra_S", "send_o_after_send", "send_o_after_recv",
	                                "rndv_handshake", "rndv_copy", "send_o_spread", "recv_o_spread", "recv_o_cross", NULL };

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* [a, b) without surrounding blanks into buf (b - a < 128, checked by the caller). */
static void trim_copy(char *buf, const char *a, const char *b)
{
	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	memcpy(buf, a, (size_t)(b - a));
	buf[b - a] = 0;
}

/* Per-byte slope: digits [. up to 3 digits] [ps|ns] [/B], into femtoseconds per byte. */
static int parse_slope(const char *s, size_t n, uint64_t *fs)
{
	uint64_t v = 0, scale = 1000;
	size_t i = 0, dec = 0;
	int digits = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i++] - '0');
		digits = 1;
	}
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (++dec > 3 || v > (UINT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (uint64_t)(s[i++] - '0');
			digits = 1;
		}
	}
	if (!digits)
		return -1;
	for (; dec < 3; dec++) {
		if (v > UINT64_MAX / 10)
			return -1;
		v *= 10;
	}
	if (i + 2 <= n && s[i] == 'p' && s[i + 1] == 's')
		i += 2;
	else if (i + 2 <= n && s[i] == 'n' && s[i + 1] == 's') {
		i += 2;
		scale = 1000000;
	}
	if (i + 2 <= n && s[i] == '/' && s[i + 1] == 'B')
		i += 2;
	if (i != n)
		return -1;
	if (scale == 1000000) {
		if (v > UINT64_MAX / 1000)
			return -1;
		v *= 1000;
	}
	*fs = v;
	return 0;
}

/* One item of a ';'-separated list that starts at p: [*a, *b) is the item without the blanks
 * around it, q (qn bytes) its quoted form for messages; returns the item's end (its ';' or
 * the string's NUL). */
static const char *list_item(const char *p, const char **a, const char **b, char *q, size_t qn)
{
	const char *end = strchr(p, ';');
	if (!end)
		end = p + strlen(p);
	*a = skip_ws(p);
	*b = end;
	while (*b > *a && ((*b)[-1] == ' ' || (*b)[-1] == '\t'))
		(*b)--;
	ir_err_quote(q, qn, *a, (size_t)(*b - *a));
	return end;
}

int ir_pw_parse(ir_pw *f, const char *s, const char *what, ir_err *e)
{
	const char *p = s;
	char q[200], buf[128];
	f->n = 0;
	for (;;) {
		const char *a, *b, *end = list_item(p, &a, &b, q, sizeof q), *colon, *plus;
		size_t len = (size_t)(b - a);
		struct ir_pw_seg sg;
		ir_err sub;
		if (!len)
			return ir_errf(e, "invalid piecewise function for %s: empty segment %u in '%s' (expected "
			                  "SIZE:TIME[+PERBYTE] separated by ';')",
			               what, f->n + 1, ir_err_quote(buf, sizeof buf, s, strlen(s) > 24 ? 24 : strlen(s)));
		if (f->n == IR_PW_MAX)
			return ir_errf(e, "invalid piecewise function for %s: more than %d segments", what, IR_PW_MAX);
		colon = memchr(a, ':', len);
		if (!colon || colon == a || len >= sizeof buf)
			return ir_errf(e, "invalid segment for %s: '%s' (expected SIZE:TIME[+PERBYTE], e.g. 4033:1.2us+85.3ps)",
			               what, q);
		trim_copy(buf, a, colon);
		if (ir_parse_size(buf, &sg.from, what, &sub))
			return ir_errf(e, "invalid segment for %s: '%s': bad size '%s'", what, q, buf);
		plus = memchr(colon + 1, '+', (size_t)(b - colon - 1));
		trim_copy(buf, colon + 1, plus ? plus : b);
		if (ir_parse_time(buf, &sg.base, what, &sub))
			return ir_errf(e, "invalid segment for %s: '%s': bad time '%s' (a number with an optional unit ps, "
			                  "ns, us, ms or s)",
			               what, q, buf);
		sg.fs = 0;
		if (plus)
			trim_copy(buf, plus + 1, b);
		if (plus && parse_slope(buf, strlen(buf), &sg.fs))
			return ir_errf(e, "invalid segment for %s: '%s': bad per-byte time (expected a number of ps per "
			                  "byte with at most 3 decimals, optionally ns, e.g. 85.3ps)",
			               what, q);
		if (f->n == 0 && sg.from != 0)
			return ir_errf(e, "invalid piecewise function for %s: the first segment must start at size 0, "
			                  "found '%s'",
			               what, q);
		if (f->n > 0 && sg.from <= f->seg[f->n - 1].from)
			return ir_errf(e, "invalid piecewise function for %s: segment '%s' does not start above the "
			                  "previous one",
			               what, q);
		f->seg[f->n++] = sg;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

uint64_t ir_pw_eval(const ir_pw *f, uint64_t size)
{
	uint32_t lo = 0, hi = f->n; /* last segment with from <= size */
	const struct ir_pw_seg *s;
	unsigned __int128 v;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (f->seg[mid].from <= size)
			lo = mid;
		else
			hi = mid;
	}
	s = &f->seg[lo];
	v = ((unsigned __int128)size * s->fs + 500) / 1000 + s->base;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

int ir_pw_format(const ir_pw *f, ir_sb *o)
{
	char t[48], z[48];
	for (uint32_t i = 0; i < f->n; i++) {
		const struct ir_pw_seg *s = &f->seg[i];
		int rc;
		ir_fmt_size(z, sizeof z, s->from);
		ir_fmt_time(t, sizeof t, s->base);
		if (s->fs % 1000 == 0)
			rc = ir_sb_addf(o, "%s%s:%s+%llups", i ? "; " : "", z, t, (unsigned long long)(s->fs / 1000));
		else {
			char d[8];
			int k = snprintf(d, sizeof d, "%03llu", (unsigned long long)(s->fs % 1000));
			while (k > 1 && d[k - 1] == '0')
				d[--k] = 0;
			rc = ir_sb_addf(o, "%s%s:%s+%llu.%sps", i ? "; " : "", z, t, (unsigned long long)(s->fs / 1000), d);
		}
		if (rc)
			return -1;
	}
	return 0;
}

int ir_gapfn_parse(ir_gapfn *f, const char *s, const char *what, ir_err *e)
{
	const char *p = s;
	char q[200], buf[128];
	f->n = 0;
	for (;;) {
		const char *a, *b, *end = list_item(p, &a, &b, q, sizeof q), *colon, *v;
		size_t len = (size_t)(b - a);
		uint64_t gap, d;
		int neg;
		ir_err sub;
		if (!len)
			return ir_errf(e, "invalid gap function for %s: empty point %u in '%s' (expected GAP:TIME separated "
			                  "by ';')",
			               what, f->n + 1, ir_err_quote(buf, sizeof buf, s, strlen(s) > 24 ? 24 : strlen(s)));
		if (f->n == IR_PW_MAX)
			return ir_errf(e, "invalid gap function for %s: more than %d points", what, IR_PW_MAX);
		colon = memchr(a, ':', len);
		if (!colon || colon == a || len >= sizeof buf)
			return ir_errf(e, "invalid point for %s: '%s' (expected GAP:TIME, e.g. 20us:-1.1us)", what, q);
		trim_copy(buf, a, colon);
		if (ir_parse_time(buf, &gap, what, &sub))
			return ir_errf(e, "invalid point for %s: '%s': bad gap '%s' (a number with an optional unit ps, ns, "
			                  "us, ms or s)",
			               what, q, buf);
		trim_copy(buf, colon + 1, b);
		v = buf;
		neg = *v == '-';
		if (*v == '-' || *v == '+')
			v++;
		if (ir_parse_time(v, &d, what, &sub) || d > (uint64_t)INT64_MAX)
			return ir_errf(e, "invalid point for %s: '%s': bad time '%s' (a number with an optional sign and "
			                  "unit ps, ns, us, ms or s)",
			               what, q, buf);
		if (f->n > 0 && gap <= f->gap[f->n - 1])
			return ir_errf(e, "invalid gap function for %s: point '%s' does not lie after the previous one", what,
			               q);
		f->gap[f->n] = gap;
		f->d[f->n++] = neg ? -(int64_t)d : (int64_t)d;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int64_t ir_gapfn_eval(const ir_gapfn *f, uint64_t g)
{
	uint32_t lo = 0, hi = f->n; /* last point with gap <= g */
	unsigned __int128 mag, w, q;
	__int128 diff;
	if (g <= f->gap[0])
		return f->d[0];
	if (g >= f->gap[f->n - 1])
		return f->d[f->n - 1];
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (f->gap[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	/* d[lo] + (d[lo+1] - d[lo]) * (g - gap[lo]) / (gap[lo+1] - gap[lo]), half away from 0; the
	 * magnitudes are below 2^64 each, so their product fits in 128 bits unsigned, and the
	 * result lies between d[lo] and d[lo+1] */
	diff = (__int128)f->d[lo + 1] - (__int128)f->d[lo];
	mag = (unsigned __int128)(diff < 0 ? -diff : diff) * (unsigned __int128)(g - f->gap[lo]);
	w = (unsigned __int128)(f->gap[lo + 1] - f->gap[lo]);
	q = mag / w + (mag % w >= w - w / 2 ? 1 : 0);
	return (int64_t)((__int128)f->d[lo] + (diff < 0 ? -(__int128)q : (__int128)q));
}

int ir_gapfn_format(const ir_gapfn *f, ir_sb *o)
{
	char t[48], z[48];
	for (uint32_t i = 0; i < f->n; i++) {
		int64_t d = f->d[i];
		ir_fmt_time(z, sizeof z, f->gap[i]);
		ir_fmt_time(t, sizeof t, d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d);
		if (ir_sb_addf(o, "%s%s:%s%s", i ? "; " : "", z, d < 0 ? "-" : "", t))
			return -1;
	}
	return 0;
}

/* The origin (file and line) of `key` in front of the error in e. */
static void at_origin(const ir_params *ps, const char *key, ir_err *e)
{
	size_t i, n = ir_params_count(ps);
	for (i = 0; i < n; i++)
		if (!strcmp(ir_params_key(ps, i), key)) {
			char org[300];
			ir_err t = *e;
			const char *where = ir_params_origin(ps, i, org, sizeof org);
			if (where && *where)
				ir_errf(e, "%s: %s", where, t.msg);
			break;
		}
}

static int load_gapfn(const ir_params *ps, const char *key, ir_gapfn *f, ir_err *e)
{
	char what[80];
	const char *v;
	f->n = 0;
	if (!(v = ir_params_get(ps, key)))
		return 0;
	snprintf(what, sizeof what, "'%s'", key);
	if (!ir_gapfn_parse(f, v, what, e))
		return 1;
	at_origin(ps, key, e);
	return -1;
}

static int load_pw(const ir_params *ps, const char *key, ir_pw *f, ir_err *e)
{
	char what[80];
	const char *v;
	f->n = 0;
	if (!(v = ir_params_get(ps, key)))
		return 0;
	snprintf(what, sizeof what, "'%s'", key);
	if (!ir_pw_parse(f, v, what, e))
		return 1;
	at_origin(ps, key, e);
	return -1;
}

static int three(const ir_params *ps, int a, int b, int c, const char *pre, ir_err *e);

int ir_spread_parse(ir_spread *s, const char *v, const char *what, ir_err *e)
{
	const char *p = v;
	s->n = 0;
	for (;;) {
		char *end;
		double f;
		p = skip_ws(p);
		errno = 0;
		f = strtod(p, &end);
		if (end == p || errno || !(f > 0) || f > 1000) {
			size_t k = strcspn(p, ",");
			return ir_errf(e, "%s: bad factor '%.*s' in '%s' (expected decimal numbers above 0 and at most 1000, "
			                  "separated by commas)",
			               what, (int)(k > 40 ? 40 : k), p, v);
		}
		if (s->n == IR_SPREAD_MAX)
			return ir_errf(e, "%s: more than %d factors in '%s'", what, IR_SPREAD_MAX, v);
		s->f[s->n++] = f;
		p = skip_ws(end);
		if (!*p)
			return 0;
		if (*p != ',')
			return ir_errf(e, "%s: expected ',' or the end after factor %u, found '%c' in '%s'", what, s->n, *p, v);
		p++;
	}
}

int ir_spread_format(const ir_spread *s, ir_sb *o)
{
	int rc = 0;
	for (uint32_t i = 0; i < s->n; i++)
		rc |= ir_sb_addf(o, "%s%.4f", i ? "," : "", s->f[i]);
	return rc;
}

static int load_spread(const ir_params *ps, const char *key, ir_spread *s, const ir_loggops *p, ir_err *e)
{
	char what[80];
	const char *v;
	s->n = 0;
	if (!(v = ir_params_get(ps, key)))
		return 0;
	snprintf(what, sizeof what, "'%s'", key);
	if (ir_spread_parse(s, v, what, e) == 0) {
		if (p->send_o.n)
			return 0;
		ir_errf(e, "'%s' is set, but it spreads a term of the piecewise model, which is not set (send_o, recv_o and "
		           "net_L)",
		        key);
	}
	at_origin(ps, key, e);
	return -1;
}

int ir_loggops_load(ir_loggops *p, const ir_params *ps, ir_err *e)
{
	int have_or, have_Or, have_Os, have_Osr, a, b, c;
	ir_loggops_defaults(p);
	if (ir_params_time(ps, "L", &p->L, e) < 0 || ir_params_time(ps, "o", &p->o, e) < 0 ||
	    ir_params_time(ps, "g", &p->g, e) < 0 || ir_params_time(ps, "G", &p->G, e) < 0 ||
	    ir_params_time(ps, "O", &p->O, e) < 0 || ir_params_size(ps, "S", &p->S, e) < 0 ||
	    (have_or = ir_params_time(ps, "o_rndv", &p->o_rndv, e)) < 0 ||
	    (have_Or = ir_params_time(ps, "O_rndv", &p->O_rndv, e)) < 0 ||
	    (have_Os = ir_params_time(ps, "O_send", &p->O_send, e)) < 0 ||
	    (have_Osr = ir_params_time(ps, "O_send_rndv", &p->O_send_rndv, e)) < 0 ||
	    ir_params_time(ps, "nbc_o", &p->nbc_o, e) < 0)
		return -1;
	if (!have_or)
		p->o_rndv = p->o;
	if (!have_Or)
		p->O_rndv = p->O;
	if (!have_Os)
		p->O_send = p->O;
	if (!have_Osr)
		p->O_send_rndv = p->O_rndv;
	if ((a = load_pw(ps, "send_o", &p->send_o, e)) < 0 || (b = load_pw(ps, "recv_o", &p->recv_o, e)) < 0 ||
	    (c = load_pw(ps, "net_L", &p->net_L, e)) < 0 || load_pw(ps, "copy", &p->copy, e) < 0 ||
	    load_pw(ps, "reduce", &p->reduce, e) < 0 || load_pw(ps, "coll_copy", &p->coll_copy, e) < 0 ||
	    load_pw(ps, "rndv_copy", &p->rndv_copy, e) < 0 || load_pw(ps, "recv_o_cross", &p->recv_o_cross, e) < 0)
		return -1;
	if (three(ps, a, b, c, "", e))
		return -1;
	if ((a = load_gapfn(ps, "send_o_after_send", &p->after_send, e)) < 0 ||
	    (b = load_gapfn(ps, "send_o_after_recv", &p->after_recv, e)) < 0)
		return -1;
	if ((a || b) && !p->send_o.n) {
		const char *k = a ? "send_o_after_send" : "send_o_after_recv";
		ir_errf(e, "'%s' is set, but it changes send_o of the piecewise model, which is not set (send_o, recv_o "
		           "and net_L)",
		        k);
		at_origin(ps, k, e);
		return -1;
	}
	if ((p->rndv_copy.n || p->recv_o_cross.n) && !p->send_o.n) {
		const char *k = p->rndv_copy.n ? "rndv_copy" : "recv_o_cross";
		ir_errf(e, "'%s' is set, but it belongs to the piecewise model, which is not set (send_o, recv_o and "
		           "net_L)",
		        k);
		at_origin(ps, k, e);
		return -1;
	}
	p->rndv_hs = 1;
	{
		const char *v = ir_params_get(ps, "rndv_handshake");
		if (v && strcmp(v, "yes") && strcmp(v, "no")) {
			ir_errf(e, "invalid rndv_handshake '%s' (expected yes or no)", v);
			at_origin(ps, "rndv_handshake", e);
			return -1;
		}
		if (v && !strcmp(v, "no"))
			p->rndv_hs = 0;
	}
	if (load_spread(ps, "send_o_spread", &p->send_spread, p, e) < 0 ||
	    load_spread(ps, "recv_o_spread", &p->recv_spread, p, e) < 0)
		return -1;
	p->intra_S = p->S;
	if ((a = load_pw(ps, "intra_send_o", &p->intra_send_o, e)) < 0 ||
	    (b = load_pw(ps, "intra_recv_o", &p->intra_recv_o, e)) < 0 ||
	    (c = load_pw(ps, "intra_net_L", &p->intra_net_L, e)) < 0 || ir_params_size(ps, "intra_S", &p->intra_S, e) < 0)
		return -1;
	return three(ps, a, b, c, "intra_", e);
}

void ir_loggops_intra(const ir_loggops *p, ir_loggops *q)
{
	*q = *p;
	q->send_o = p->intra_send_o;
	q->recv_o = p->intra_recv_o;
	q->net_L = p->intra_net_L;
	q->S = p->intra_S;
	q->after_send.n = q->after_recv.n = 0; /* measured between hosts only */
	q->rndv_copy.n = 0;                      /* likewise: within a host, copy */
	q->recv_o_cross.n = 0;                   /* likewise: crossing is measured between hosts */
}

/* send_o, recv_o and net_L (with prefix `pre`) come together: a, b, c say which are set. */
static int three(const ir_params *ps, int a, int b, int c, const char *pre, ir_err *e)
{
	char k[3][32];
	snprintf(k[0], sizeof k[0], "%ssend_o", pre);
	snprintf(k[1], sizeof k[1], "%srecv_o", pre);
	snprintf(k[2], sizeof k[2], "%snet_L", pre);
	if ((a || b || c) && !(a && b && c)) {
		const char *have = a ? k[0] : b ? k[1] : k[2];
		char org[300] = "";
		for (size_t i = 0; i < ir_params_count(ps); i++)
			if (!strcmp(ir_params_key(ps, i), have))
				ir_params_origin(ps, i, org, sizeof org);
		return ir_errf(e, "%s%s'%s' is set, but the piecewise model needs %s, %s and %s together; "
		                  "%s%s%s%s%s missing",
		               org, *org ? ": " : "", have, k[0], k[1], k[2],
		               a ? "" : k[0], !a && !b ? " " : "", b ? "" : k[1], (!a || !b) && !c ? " " : "",
		               c ? "" : k[2]);
	}
	return 0;
}

uint64_t ir_model_send_call(const ir_loggops *p, uint64_t size, int self)
{
	uint64_t so = ir_model_send_cpu(p, size, self), w;
	if ((self && p->copy.n) || !p->send_o.n || size <= p->S)
		return so;
	w = ir_model_sat_add(ir_pw_eval(&p->net_L, size), ir_pw_eval(&p->recv_o, size));
	return w > so ? w : so;
}

uint64_t ir_model_recv_call(const ir_loggops *p, uint64_t size, int self)
{
	if (self && p->copy.n)
		return 0;
	if (p->send_o.n) {
		uint64_t a = ir_pw_eval(&p->net_L, size), so = ir_pw_eval(&p->send_o, size);
		return ir_model_sat_add(a > so ? a - so : 0, ir_pw_eval(&p->recv_o, size));
	}
	return ir_model_sat_add(p->L, ir_model_recv_cpu(p, size, 0, 0));
}
