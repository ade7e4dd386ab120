/*
 * ir_calib_cmp.c: two calibrations of one network side by side (calib --compare;
 * formats/calibration.md, "Comparing two calibrations"): do two calibrations of an idle
 * machine, minutes apart, agree within 5 % on every figure?
 */
#include "ir_calib.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* netcal's sizes (samples/apps/netcal.c, make_sizes) from 64 bytes to 64 MiB: the powers of
 * two, 1/64 below each, and 3/2 of each from 1 KiB. */
static size_t cmp_sizes(uint64_t *v)
{
	size_t n = 0;
	for (uint64_t p = 64; p <= (64u << 20); p *= 2) {
		if (p > 64)
			v[n++] = p - p / 64;
		v[n++] = p;
		if (p >= 1024 && p + p / 2 <= (64u << 20))
			v[n++] = p + p / 2;
	}
	return n;
}

enum { T_SEND, T_RECV, T_NET, T_ONEWAY, T_COPY, T_REDUCE, T_CCOPY, T_XRECV, T_N };
static const char *const tname[T_N] = { "send_o", "recv_o", "net_L", "one_way", "copy", "reduce", "coll_copy",
	                                "recv_o_cross" };
/* a message term: its difference counts against the one-way time */
static int msg_term(int t) { return t < T_COPY || t == T_XRECV; }

static const ir_pw *term(const ir_loggops *p, int t)
{
	switch (t) {
	case T_SEND:
		return &p->send_o;
	case T_RECV:
		return &p->recv_o;
	case T_NET:
		return &p->net_L;
	case T_COPY:
		return &p->copy;
	case T_REDUCE:
		return &p->reduce;
	case T_CCOPY:
		return &p->coll_copy;
	case T_XRECV:
		return &p->recv_o_cross;
	default:
		return NULL;
	}
}

static double value(const ir_loggops *p, int t, uint64_t s)
{
	if (t == T_ONEWAY)
		return (double)ir_pw_eval(&p->net_L, s) + (double)ir_pw_eval(&p->recv_o, s);
	return (double)ir_pw_eval(term(p, t), s);
}

int ir_calib_compare(const ir_loggops *a, const ir_loggops *b, const char *name_a, const char *name_b, double tol_pct,
                     ir_sb *out, ir_err *e)
{
	uint64_t sz[64];
	size_t n = cmp_sizes(sz), agree = 0, worst_i = 0;
	int worst_t = -1, rc = 0;
	double worst = -1;
	if (!a->send_o.n)
		return ir_errf(e, "%s: no piecewise model (send_o, recv_o, net_L): not a netcal calibration", name_a);
	if (!b->send_o.n)
		return ir_errf(e, "%s: no piecewise model (send_o, recv_o, net_L): not a netcal calibration", name_b);
	rc |= ir_sb_addf(out, "# calib --compare %s %s: |a - b| in %% of the mean one-way time (message terms) or of the "
	                      "mean value (local terms); agree: every term within %g %%\n",
	                 name_a, name_b, tol_pct);
	rc |= ir_sb_adds(out, "size_bytes\tone_way_a_us\tone_way_b_us");
	for (int t = 0; t < T_N; t++)
		rc |= ir_sb_addf(out, "\t%s_pct", tname[t]);
	rc |= ir_sb_adds(out, "\tagree\n");
	for (size_t i = 0; i < n; i++) {
		uint64_t s = sz[i];
		double oa = value(a, T_ONEWAY, s), ob = value(b, T_ONEWAY, s), ow = (oa + ob) / 2;
		int ok = 1;
		rc |= ir_sb_addf(out, "%" PRIu64 "\t%.4f\t%.4f", s, oa / 1e6, ob / 1e6);
		for (int t = 0; t < T_N; t++) {
			const ir_pw *fa = term(a, t), *fb = term(b, t);
			double va, vb, base, d;
			/* recv_o_cross prices eager messages only: none above either file's S */
			if ((fa && (!fa->n || !fb->n)) || (t == T_XRECV && (s > a->S || s > b->S))) {
				rc |= ir_sb_adds(out, "\t-");
				continue;
			}
			va = value(a, t, s);
			vb = value(b, t, s);
			base = msg_term(t) ? ow : (va + vb) / 2;
			d = base > 0 ? 100 * fabs(va - vb) / base : 0;
			rc |= ir_sb_addf(out, "\t%.2f", d);
			if (d > tol_pct)
				ok = 0;
			if (d > worst) {
				worst = d;
				worst_t = t;
				worst_i = i;
			}
		}
		agree += ok;
		rc |= ir_sb_addf(out, "\t%s\n", ok ? "yes" : "no");
	}
	rc |= ir_sb_addf(out, "# sizes of 64 B and more where every term agrees within %g %%: %zu of %zu; the largest "
	                      "difference: %s at %" PRIu64 " bytes, %.2f %%\n",
	                 tol_pct, agree, n, tname[worst_t], sz[worst_i], worst);
	if (rc)
		return ir_errf(e, "out of memory");
	return 0;
}

int ir_calib_state_of(const char *text, size_t len, double *lo_us, double *hi_us)
{
	static const char key[] = "# machine state: ", und[] = "; undisturbed ";
	for (size_t i = 0; i < len;) {
		const char *l = text + i, *nl = memchr(l, '\n', len - i);
		size_t n = nl ? (size_t)(nl - l) : len - i;
		i += n + 1;
		if (n < sizeof key - 1 || memcmp(l, key, sizeof key - 1))
			continue;
		for (size_t k = 0; k + sizeof und - 1 <= n; k++)
			if (!memcmp(l + k, und, sizeof und - 1)) {
				char buf[64], *end;
				size_t m = n - k - (sizeof und - 1);
				if (m >= sizeof buf)
					m = sizeof buf - 1;
				memcpy(buf, l + k + sizeof und - 1, m);
				buf[m] = 0;
				*lo_us = strtod(buf, &end);
				if (end == buf || !(*lo_us > 0))
					return 0;
				*hi_us = *lo_us;
				if (!strncmp(end, " us to ", 7)) {
					char *e2;
					double h = strtod(end + 7, &e2);
					if (e2 != end + 7 && h >= *lo_us)
						*hi_us = h;
				}
				return 1;
			}
		return 0;
	}
	return 0;
}

int ir_calib_compare_states(const char *text_a, size_t len_a, const char *text_b, size_t len_b, const char *name_a,
                            const char *name_b, ir_sb *out)
{
	double alo, ahi, blo, bhi;
	int ha = ir_calib_state_of(text_a, len_a, &alo, &ahi), hb = ir_calib_state_of(text_b, len_b, &blo, &bhi);
	int rc = 0;
	if (!ha || !hb)
		return ir_sb_addf(out, "# machine state: not known for %s (no pulses judged): the two may have seen the "
		                       "machine in different states\n",
		                  !ha && !hb ? "either file" : !ha ? name_a : name_b);
	rc |= ir_sb_addf(out, "# machine state: undisturbed pulse %.4f us in %s, %.4f us in %s (the smallest of their "
	                      "phases)\n",
	                 alo, name_a, blo, name_b);
	if (fmax(alo, blo) > fmin(alo, blo) * (1 + IR_CALIB_STATE_SLOW_PCT / 100))
		rc |= ir_sb_addf(out, "# warning: the undisturbed pulses are %.0f %% apart: the two calibrations saw the machine in "
		                      "different states, and their differences above are the machine's (formats/calibration.md, "
		                      "\"Machine state\")\n",
		                 (fmax(alo, blo) / fmin(alo, blo) - 1) * 100);
	(void)ahi;
	(void)bhi;
	return rc;
}
