/*
 * ir_calib_io.c: the storage parameters fitted to iocal's traces (ir_calib_io.h;
 * formats/calibration.md §"Storage: iocal" is the contract).
 *
 * Reading: rank 0's trace of each run, once; MPI_Pcontrol sets the current phase
 * (3101..3107; anything else: none), and in a phase every MPI_File_write_at / read_at is
 * one sample of its size (count times the datatype's size), except in the synced phases,
 * where the sample runs from the write_at's call to the return of the MPI_File_sync that
 * follows it. Samples are kept per phase and size (at most IR_CIO_MAXSIZES sizes), so runs
 * pool by simply reading on: every median is then over all runs' repetitions.
 *
 * Fitting: per phase, the medians over the sizes, one weighted least-squares line through
 * them with ir_calib_segments (one segment; weights 1/y^2 so that the 4 KiB accesses count
 * as much as the 4 MiB ones, as calib does for the network terms). The keys are differences
 * of these lines (ir_calib_io.h); their uncertainty is the root of the sum of the squared
 * 95 % half-widths of the two terms, which treats the two fits as independent (they are:
 * different accesses).
 */
#include "ir_calib_io.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_stats.h"
#include "ir_trace.h"

#define US_PS 1e6

const char *const ir_cio_phase_names[IR_CIO_PHASES] = { "write", "hot_read", "seq_sync", "near_sync",
	                                                "far_sync", "seq_read", "far_read" };

void ir_calib_io_init(ir_calib_io *c)
{
	memset(c, 0, sizeof *c);
}

void ir_calib_io_release(ir_calib_io *c)
{
	for (int p = 0; p < IR_CIO_PHASES; p++)
		for (size_t i = 0; i < IR_CIO_MAXSIZES; i++)
			free(c->s[p][i].v);
	memset(c, 0, sizeof *c);
}

static int add_sample(ir_calib_io *c, int phase, uint64_t size, double ps, const char *path, unsigned long line,
                      ir_err *e)
{
	size_t i = 0;
	ir_cio_series *s;
	while (i < c->nsizes && c->size[i] < size)
		i++;
	if (i == c->nsizes || c->size[i] != size) {
		if (c->nsizes == IR_CIO_MAXSIZES)
			return ir_errf_at(e, path, line, "more than %d access sizes (iocal measures powers of two)",
			                  IR_CIO_MAXSIZES);
		for (int p = 0; p < IR_CIO_PHASES; p++)
			memmove(&c->s[p][i + 1], &c->s[p][i], (c->nsizes - i) * sizeof c->s[p][i]),
			    memset(&c->s[p][i], 0, sizeof c->s[p][i]);
		memmove(&c->size[i + 1], &c->size[i], (c->nsizes - i) * sizeof *c->size);
		c->size[i] = size;
		c->nsizes++;
	}
	s = &c->s[phase][i];
	if (IR_GROW(s->v, s->n + 1, s->cap))
		return ir_errf(e, "out of memory");
	s->v[s->n++] = ps;
	return 0;
}

/* count:type of a read_at / write_at: fields fh offset buf count type status. */
static int access_bytes(const ir_rec *r, const char *path, uint64_t *bytes, ir_err *e)
{
	int64_t n, id, sz, ext;
	char q[64];
	if (r->nf < 5 || ir_tf_int(r->f[3], &n) || n < 0 || ir_tf_triple(r->f[4], &id, &sz, &ext) || sz < 0)
		return ir_errf_at(e, path, r->line, "%s: expected a count and a datatype 'id,size,extent' in fields 4 and 5, "
		                                    "found '%s'",
		                  r->name, r->nf >= 4 ? ir_err_quote(q, sizeof q, r->f[3], strlen(r->f[3])) : "");
	*bytes = (uint64_t)n * (uint64_t)sz;
	return 0;
}

static int read_run(ir_calib_io *c, const char *arg, ir_err *e)
{
	ir_trace_files tf = { NULL, 0 };
	char *args[1] = { (char *)arg };
	ir_trace_opts to = { 0, 0 };
	ir_trace *t = NULL;
	ir_rec r;
	int rc, phase = -1, pending = 0, ret = -1;
	size_t got = 0;
	uint64_t wbytes = 0;
	int64_t wstart = 0;
	if (ir_trace_discover(&tf, args, 1, NULL, e))
		return -1;
	if (ir_trace_epoch(tf.f[0].path, &to.epoch_us, e) || !(t = ir_trace_open(tf.f[0].path, &to, e)))
		goto out;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		int64_t lv;
		uint64_t b;
		int is_w, is_r;
		if (r.kind != IR_REC_CALL)
			continue;
		if (strcmp(r.name, "MPI_Pcontrol") == 0) {
			if (r.nf < 1 || ir_tf_int(r.f[0], &lv)) {
				ir_errf_at(e, tf.f[0].path, r.line, "MPI_Pcontrol: expected a level in field 1");
				goto out;
			}
			phase = lv > IR_CIO_LEVEL && lv <= IR_CIO_LEVEL + IR_CIO_PHASES ? (int)(lv - IR_CIO_LEVEL - 1) : -1;
			pending = 0;
			continue;
		}
		if (phase < 0)
			continue;
		is_w = strcmp(r.name, "MPI_File_write_at") == 0;
		is_r = strcmp(r.name, "MPI_File_read_at") == 0;
		if (!is_w && !is_r && strcmp(r.name, "MPI_File_sync") != 0)
			continue;
		if (r.t_call == IR_TIME_NONE || r.t_ret == IR_TIME_NONE) {
			ir_errf_at(e, tf.f[0].path, r.line, "%s: expected a call time and a return time, found '-'", r.name);
			goto out;
		}
		if (phase >= IR_CIO_SEQ_SYNC && phase <= IR_CIO_FAR_SYNC) {
			if (is_w) {
				if (access_bytes(&r, tf.f[0].path, &wbytes, e))
					goto out;
				wstart = r.t_call;
				pending = 1;
			} else if (!is_r && pending) {
				if (add_sample(c, phase, wbytes, (double)(r.t_ret - wstart), tf.f[0].path, r.line, e))
					goto out;
				pending = 0;
				got++;
			}
			continue;
		}
		if (!is_w && !is_r)
			continue;
		if (access_bytes(&r, tf.f[0].path, &b, e) ||
		    add_sample(c, phase, b, (double)(r.t_ret - r.t_call), tf.f[0].path, r.line, e))
			goto out;
		got++;
	}
	if (rc < 0)
		goto out;
	if (!got) {
		ir_errf(e, "%s: no access marked by MPI_Pcontrol(%d..%d): not a trace of samples/apps/iocal", tf.f[0].path,
		        IR_CIO_LEVEL + 1, IR_CIO_LEVEL + IR_CIO_PHASES);
		goto out;
	}
	ret = 0;
out:
	ir_trace_free(t);
	ir_trace_files_release(&tf);
	return ret;
}

int ir_calib_io_read(ir_calib_io *c, char *const *dirs, size_t n, ir_err *e)
{
	for (size_t i = 0; i < n; i++)
		if (read_run(c, dirs[i], e))
			return -1;
	c->nruns += n;
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double hyp(double a, double b)
{
	return a < 0 || b < 0 ? -1 : sqrt(a * a + b * b);
}

/* key = a - b (of base or slope), clamped at 0. */
static void diff_key(ir_cio_key *k, const char *name, int have, double a, double ca, double b, double cb)
{
	k->key = name;
	k->have = have;
	if (!have)
		return;
	k->value = a - b;
	k->ci = hyp(ca, cb);
	k->clamped = k->value < 0;
	if (k->clamped)
		k->value = 0;
}

int ir_calib_io_fit(ir_calib_io *c, ir_err *e)
{
	double x[IR_CIO_MAXSIZES], y[IR_CIO_MAXSIZES], w[IR_CIO_MAXSIZES];
	const ir_calib_seg *f[IR_CIO_PHASES];
	for (int p = 0; p < IR_CIO_PHASES; p++) {
		size_t m = 0;
		for (size_t i = 0; i < c->nsizes; i++) {
			ir_cio_series *s = &c->s[p][i];
			if (!s->n)
				continue;
			qsort(s->v, s->n, sizeof *s->v, cmp_d);
			s->med = ir_quantile_sorted(s->v, s->n, 0.5);
			s->q1 = ir_quantile_sorted(s->v, s->n, 0.25);
			s->q3 = ir_quantile_sorted(s->v, s->n, 0.75);
			x[m] = (double)c->size[i];
			y[m] = s->med;
			w[m] = 1.0 / (s->med > 1000 ? s->med * s->med : 1e6);
			m++;
		}
		c->fitted[p] = m >= 2;
		f[p] = NULL;
		if (m >= 2) {
			if (ir_calib_segments(x, y, w, m, UINT64_MAX, 1, &c->fit[p], e))
				return ir_errf(e, "%s: %s", ir_cio_phase_names[p], e->msg);
			f[p] = &c->fit[p].seg[0];
		}
	}
#define HAVE(p) (f[p] != NULL)
	c->cache_G.key = "cache_G";
	if ((c->cache_G.have = HAVE(IR_CIO_WRITE))) {
		c->cache_G.value = f[IR_CIO_WRITE]->slope;
		c->cache_G.ci = f[IR_CIO_WRITE]->ci_slope;
	}
	diff_key(&c->disk_G, "disk_G", HAVE(IR_CIO_WRITE) && HAVE(IR_CIO_SEQ_SYNC),
	         HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->slope : 0, HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->ci_slope : 0,
	         HAVE(IR_CIO_WRITE) ? f[IR_CIO_WRITE]->slope : 0, HAVE(IR_CIO_WRITE) ? f[IR_CIO_WRITE]->ci_slope : 0);
	diff_key(&c->disk_sync, "disk_sync", HAVE(IR_CIO_WRITE) && HAVE(IR_CIO_SEQ_SYNC),
	         HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->base : 0, HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->ci_base : 0,
	         HAVE(IR_CIO_WRITE) ? f[IR_CIO_WRITE]->base : 0, HAVE(IR_CIO_WRITE) ? f[IR_CIO_WRITE]->ci_base : 0);
	diff_key(&c->disk_track_seek, "disk_track_seek", HAVE(IR_CIO_NEAR_SYNC) && HAVE(IR_CIO_SEQ_SYNC),
	         HAVE(IR_CIO_NEAR_SYNC) ? f[IR_CIO_NEAR_SYNC]->base : 0, HAVE(IR_CIO_NEAR_SYNC) ? f[IR_CIO_NEAR_SYNC]->ci_base : 0,
	         HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->base : 0, HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->ci_base : 0);
	diff_key(&c->disk_access, "disk_access", HAVE(IR_CIO_FAR_SYNC) && HAVE(IR_CIO_SEQ_SYNC),
	         HAVE(IR_CIO_FAR_SYNC) ? f[IR_CIO_FAR_SYNC]->base : 0, HAVE(IR_CIO_FAR_SYNC) ? f[IR_CIO_FAR_SYNC]->ci_base : 0,
	         HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->base : 0, HAVE(IR_CIO_SEQ_SYNC) ? f[IR_CIO_SEQ_SYNC]->ci_base : 0);
	/* disk_read_G: both cold-read phases measure it (at sequential and random offsets;
	 * their bases differ by the positioning, their slopes should not) */
	c->disk_read_G.key = "disk_read_G";
	c->disk_read_G.clamped = 0;
	if ((c->disk_read_G.have = HAVE(IR_CIO_SEQ_READ) || HAVE(IR_CIO_FAR_READ))) {
		const ir_calib_seg *a = HAVE(IR_CIO_SEQ_READ) ? f[IR_CIO_SEQ_READ] : f[IR_CIO_FAR_READ];
		const ir_calib_seg *b = HAVE(IR_CIO_SEQ_READ) && HAVE(IR_CIO_FAR_READ) ? f[IR_CIO_FAR_READ] : NULL;
		c->disk_read_G.value = a->slope;
		c->disk_read_G.ci = a->ci_slope;
		if (b && a->ci_slope > 0 && b->ci_slope > 0) {
			double wa = 1 / (a->ci_slope * a->ci_slope), wb = 1 / (b->ci_slope * b->ci_slope);
			c->disk_read_G.value = (wa * a->slope + wb * b->slope) / (wa + wb);
			c->disk_read_G.ci = 1 / sqrt(wa + wb);
		} else if (b) {
			c->disk_read_G.value = (a->slope + b->slope) / 2;
			c->disk_read_G.ci = a->ci_slope < 0 || b->ci_slope < 0 ? -1 : hyp(a->ci_slope, b->ci_slope) / 2;
		}
		c->disk_read_G.clamped = c->disk_read_G.value < 0;
		if (c->disk_read_G.clamped)
			c->disk_read_G.value = 0;
	}
#undef HAVE
	/* the model needs disk_track_seek <= disk_access (ir_storage_load) */
	if (c->disk_track_seek.have && c->disk_access.have && c->disk_track_seek.value > c->disk_access.value)
		c->disk_track_seek.value = c->disk_access.value;
	return 0;
}

static int put_key(ir_sb *o, const ir_cio_key *k, const char *unit, const char *what)
{
	int rc = 0;
	if (!k->have)
		return ir_sb_addf(o, "# %s: not fitted (its phases are missing): the default applies\n", k->key);
	rc |= ir_sb_addf(o, "# %s: %s\n", k->key, what);
	if (k->ci >= 0)
		rc |= ir_sb_addf(o, "#   %.4f %s +- %.4f (95 %%)%s\n", k->value / (unit[0] == 'u' ? US_PS : 1), unit,
		                 k->ci / (unit[0] == 'u' ? US_PS : 1),
		                 k->clamped ? "; the difference was below 0: written as 0" :
		                 k->ci > k->value ? "; not distinguishable from 0 on this disk" : "");
	else
		rc |= ir_sb_addf(o, "#   %.4f %s (uncertainty not determined)%s\n", k->value / (unit[0] == 'u' ? US_PS : 1),
		                 unit, k->clamped ? "; the difference was below 0: written as 0" : "");
	rc |= ir_sb_addf(o, "%s = %.0f\n", k->key, k->value < 0 ? 0 : k->value);
	return rc;
}

static void line_of(const ir_calib_io *c, int p, ir_sb *o)
{
	const ir_calib_seg *s = &c->fit[p].seg[0];
	if (!c->fitted[p]) {
		ir_sb_addf(o, "#   %-9s not measured\n", ir_cio_phase_names[p]);
		return;
	}
	ir_sb_addf(o, "#   %-9s base %.2f us +- %.2f, per byte %.2f ps +- %.2f (%zu sizes)\n", ir_cio_phase_names[p],
	           s->base / US_PS, s->ci_base < 0 ? 0 : s->ci_base / US_PS, s->slope, s->ci_slope < 0 ? 0 : s->ci_slope,
	           c->fit[p].n);
}

int ir_calib_io_write(const ir_calib_io *c, ir_sb *o)
{
	int rc = 0;
	rc |= ir_sb_addf(o, "# storage parameters fitted by calib --io to %zu run%s of samples/apps/iocal\n"
	                    "# (formats/calibration.md, \"Storage: iocal\"; keys: formats/params.md, docs/storage.md)\n"
	                    "# lines through the per-size medians (weighted 1/y^2; 95 %% half-widths):\n",
	                 c->nruns, c->nruns == 1 ? "" : "s, pooled");
	for (int p = 0; p < IR_CIO_PHASES; p++)
		line_of(c, p, (ir_sb *)o);
	rc |= put_key(o, &c->cache_G, "ps/byte", "per byte into the cache: the slope of write");
	rc |= put_key(o, &c->disk_G, "ps/byte", "per byte onto the disk: the slope of seq_sync minus cache_G");
	rc |= put_key(o, &c->disk_sync, "us", "what a flush costs: the base of seq_sync minus the base of write");
	rc |= put_key(o, &c->disk_access, "us",
	              "positioning at a random offset: the base of far_sync minus the base of seq_sync");
	rc |= put_key(o, &c->disk_track_seek, "us",
	              "positioning 64 KiB ahead: the base of near_sync minus the base of seq_sync");
	rc |= put_key(o, &c->disk_read_G, "ps/byte",
	              "per byte read from the disk: the slopes of seq_read and far_read, weighted");
	rc |= ir_sb_adds(o, "# disk_rotation: not identifiable from these times: seek and rotation add up in the\n"
	                    "#   positioning time, which disk_access and disk_track_seek hold whole (a virtual disk\n"
	                    "#   has no rotation at all); written as 0\n"
	                    "disk_rotation = 0\n"
	                    "# disk_track: not identified (iocal jumps 64 KiB or at random): the default applies\n"
	                    "# server_cache: not identified (iocal writes less than the page cache holds): the\n"
	                    "#   default applies\n");
	if (c->disk_read_G.have && c->disk_G.have)
		rc |= ir_sb_addf(o, "# check: reading from the disk costs %.2f ps per byte (disk_read_G), writing %.2f "
		                    "(disk_G): %.2f times\n",
		                 c->disk_read_G.value, c->disk_G.value,
		                 c->disk_G.value > 0 ? c->disk_read_G.value / c->disk_G.value : 0);
	if (c->fitted[IR_CIO_SEQ_READ] && c->fitted[IR_CIO_FAR_READ])
		rc |= ir_sb_addf(o, "# check: a random read costs %.2f us more than a sequential one (far_read - seq_read)\n",
		                 (c->fit[IR_CIO_FAR_READ].seg[0].base - c->fit[IR_CIO_SEQ_READ].seg[0].base) / US_PS);
	rc |= ir_calib_io_table(c, o);
	return rc;
}

int ir_calib_io_table(const ir_calib_io *c, ir_sb *o)
{
	int rc = ir_sb_adds(o, "#| size_bytes reps");
	for (int p = 0; p < IR_CIO_PHASES; p++)
		rc |= ir_sb_addf(o, " %s", ir_cio_phase_names[p]);
	rc |= ir_sb_adds(o, "\n#| (median us, interquartile range in % of the median; '-': not measured)\n");
	for (size_t i = 0; i < c->nsizes; i++) {
		size_t reps = 0;
		for (int p = 0; p < IR_CIO_PHASES; p++)
			if (c->s[p][i].n > reps)
				reps = c->s[p][i].n;
		rc |= ir_sb_addf(o, "#| %" PRIu64 " %zu", c->size[i], reps);
		for (int p = 0; p < IR_CIO_PHASES; p++) {
			const ir_cio_series *s = &c->s[p][i];
			if (!s->n)
				rc |= ir_sb_adds(o, " -");
			else
				rc |= ir_sb_addf(o, " %.2f(%.0f%%)", s->med / US_PS, s->med > 0 ? 100 * (s->q3 - s->q1) / s->med : 0);
		}
		rc |= ir_sb_addch(o, '\n');
	}
	return rc;
}
