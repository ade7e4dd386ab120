/*
 * ir_cmp.c: real run times from traces, simulated ones from ibsim results,
 * and the deviation report of cmp-real (see ir_cmp.h for the definitions).
 *
 * Each trace is streamed once (ir_trace), keeping three times per rank; a
 * results file is read line by line into one array of end times. Memory is
 * O(ranks x (results files + real runs)). With several real runs the report
 * takes each time's median and range over the runs (ir_cmp_report_runs); with
 * one it is the plain report, unchanged, which pipelines/validate-table.sh
 * and the tests read.
 */
#include "ir_cmp.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_io.h"
#include "ir_num.h"
#include "ir_re.h"
#include "ir_stats.h"
#include "ir_trace.h"

/* ---- real times ---- */

/* the phase's compiled patterns (ir_cmp_real_read_phase) */
typedef struct phase_re {
	pcre2_code *from, *to;
	pcre2_match_data *md;
	unsigned long nth;
} phase_re;

static int match_name(const phase_re *p, pcre2_code *re, const char *name)
{
	return pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, p->md, NULL) >= 0;
}

/* A phase's start and end in rank tf's record r (ph->from set): *seen counts the matches of
 * from, *pstart is set at the nth, *pend at the first match of to from there on. */
static void phase_step(const phase_re *ph, const ir_rec *r, unsigned long *seen, int64_t *pstart, int64_t *pend,
                       int *state)
{
	if (*state == 0) {
		if (!match_name(ph, ph->from, r->name) || ++*seen < ph->nth)
			return;
		*state = 1;
		*pstart = r->t_call != IR_TIME_NONE ? r->t_call : r->t_ret;
	}
	if (*state == 1 && ph->to && match_name(ph, ph->to, r->name)) {
		*state = 2;
		*pend = r->t_ret != IR_TIME_NONE ? r->t_ret : r->t_call;
	}
}

static int rank_times(const ir_trace_file *tf, int64_t epoch, const phase_re *ph, int64_t *start, int64_t *span,
                      int64_t *tail, double *rtt, ir_err *e)
{
	ir_trace_opts to = { epoch, 0 };
	ir_trace *t = ir_trace_open(tf->path, &to, e);
	ir_rec r;
	int rc, have_init = 0, have_fin = 0, pstate = 0;
	int64_t init_ret = 0, last_ret = 0, fin_call = 0, pstart = 0, pend = 0;
	unsigned long fin_line = 0, seen = 0, start_line = 0;
	if (!t)
		return -1;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		if (r.kind != IR_REC_CALL)
			continue;
		if (ph && pstate < 2) {
			phase_step(ph, &r, &seen, &pstart, &pend, &pstate);
			if (pstate && !start_line)
				start_line = r.line;
		}
		if (!strcmp(r.name, "MPI_Init") || !strcmp(r.name, "MPI_Init_thread")) {
			if (r.t_ret == IR_TIME_NONE) {
				rc = ir_errf_at(e, tf->path, r.line, "%s: expected a return time, found '-'", r.name);
				break;
			}
			have_init = 1;
			init_ret = last_ret = r.t_ret;
			continue;
		}
		if (!strcmp(r.name, "MPI_Finalize")) {
			if (r.t_call == IR_TIME_NONE) {
				rc = ir_errf_at(e, tf->path, r.line, "MPI_Finalize: expected a call time, found '-'");
				break;
			}
			if (!have_init) {
				rc = ir_errf_at(e, tf->path, r.line, "MPI_Finalize before MPI_Init");
				break;
			}
			have_fin = 1;
			fin_call = r.t_call;
			fin_line = r.line;
			continue;
		}
		if (have_init && !have_fin && r.t_ret != IR_TIME_NONE && r.t_ret > last_ret)
			last_ret = r.t_ret;
	}
	rtt[0] = ir_trace_rtt_init(t);
	rtt[1] = ir_trace_rtt_fini(t);
	ir_trace_free(t);
	if (rc < 0)
		return -1;
	if (!have_init)
		return ir_errf(e, "%s: no MPI_Init in the trace (expected the call that starts the measured span)", tf->path);
	if (!have_fin)
		return ir_errf(e, "%s: trace ends without MPI_Finalize (cut short?)", tf->path);
	if (fin_call < init_ret)
		return ir_errf_at(e, tf->path, fin_line,
		                  "MPI_Finalize is called %.3f us before MPI_Init returns (clock correction?)",
		                  (double)(init_ret - fin_call) / 1e6);
	if (last_ret > fin_call)
		last_ret = fin_call;
	*start = init_ret;
	*span = fin_call - init_ret;
	*tail = fin_call - last_ret;
	if (ph) {
		if (pstate == 0)
			return ir_errf(e, "%s: no call matches --from (wanted match %lu, found %lu)", tf->path, ph->nth, seen);
		if (ph->to && pstate == 1)
			return ir_errf_at(e, tf->path, start_line, "no call matches --to from the phase's start on");
		if (pstart == IR_TIME_NONE || (ph->to && pend == IR_TIME_NONE))
			return ir_errf_at(e, tf->path, start_line, "the phase's first or last call has no time");
		if (!ph->to)
			pend = fin_call;
		else
			*tail = 0;
		if (pend < pstart)
			return ir_errf_at(e, tf->path, start_line, "the phase ends %.3f us before it starts (clock correction?)",
			                  (double)(pstart - pend) / 1e6);
		*start = pstart;
		*span = pend - pstart;
	}
	return 0;
}

static int real_read(ir_cmp_real *r, char *const *paths, size_t n, const phase_re *ph, ir_err *e);

int ir_cmp_real_read(ir_cmp_real *r, char *const *paths, size_t n, ir_err *e)
{
	return real_read(r, paths, n, NULL, e);
}

int ir_cmp_real_read_phase(ir_cmp_real *r, char *const *paths, size_t n, const ir_cmp_phase *ph, ir_err *e)
{
	phase_re p = { NULL, NULL, NULL, ph ? ph->from_nth : 1 };
	int rc = -1;
	if (!ph || !ph->from)
		return real_read(r, paths, n, NULL, e);
	memset(r, 0, sizeof *r);
	if (!p.nth)
		return ir_errf(e, "--from-nth: 0 (matches are counted from 1)");
	if (!(p.from = ir_re_compile(ph->from, "--from", e)) || (ph->to && !(p.to = ir_re_compile(ph->to, "--to", e))))
		goto out;
	if (!(p.md = pcre2_match_data_create(1, NULL))) {
		ir_errf(e, "out of memory");
		goto out;
	}
	rc = real_read(r, paths, n, &p, e);
out:
	pcre2_match_data_free(p.md);
	pcre2_code_free(p.from);
	pcre2_code_free(p.to);
	return rc;
}

static int real_read(ir_cmp_real *r, char *const *paths, size_t n, const phase_re *ph, ir_err *e)
{
	ir_trace_files tf = { NULL, 0 };
	int64_t epoch;
	double *rtt = NULL;
	int rc = -1;
	memset(r, 0, sizeof *r);
	if (ir_trace_discover(&tf, paths, n, NULL, e))
		return -1;
	r->span_ps = calloc(tf.n, sizeof *r->span_ps);
	r->tail_ps = calloc(tf.n, sizeof *r->tail_ps);
	r->lead_ps = calloc(tf.n, sizeof *r->lead_ps);
	if (!r->span_ps || !r->tail_ps || !r->lead_ps) {
		ir_errf(e, "out of memory");
		goto out;
	}
	r->nranks = (uint32_t)tf.n;
	r->name = strdup(paths[0]);
	if (!r->name) {
		ir_errf(e, "out of memory");
		goto out;
	}
	if (ir_trace_epoch(tf.f[0].path, &epoch, e))
		goto out;
	r->rtt_init_us = r->rtt_fini_us = -1;
	rtt = malloc(2 * tf.n * sizeof *rtt);
	if (!rtt) {
		ir_errf(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < tf.n; i++)
		if (rank_times(&tf.f[i], epoch, ph, &r->lead_ps[i], &r->span_ps[i], &r->tail_ps[i], &rtt[2 * i], e))
			goto out;
	/* the machine's state at both ends: the median over ranks 1.. of their clock round trips */
	for (int w = 0; w < 2; w++) {
		size_t m = 0;
		for (size_t i = 1; i < tf.n; i++)
			if (rtt[2 * i + (size_t)w] > 0)
				rtt[m++] = rtt[2 * i + (size_t)w];
		if (m)
			*(w ? &r->rtt_fini_us : &r->rtt_init_us) = ir_median_inplace(rtt, m);
	}
	{
		/* lead_ps held the starts; make them relative to the earliest */
		int64_t min = INT64_MAX;
		for (size_t i = 0; i < tf.n; i++)
			if (r->lead_ps[i] < min)
				min = r->lead_ps[i];
		for (size_t i = 0; i < tf.n; i++)
			r->lead_ps[i] -= min;
	}
	rc = 0;
out:
	free(rtt);
	ir_trace_files_release(&tf);
	if (rc)
		ir_cmp_real_release(r);
	return rc;
}

void ir_cmp_real_release(ir_cmp_real *r)
{
	free(r->name);
	free(r->span_ps);
	free(r->tail_ps);
	free(r->lead_ps);
	memset(r, 0, sizeof *r);
}

/* ---- results files ---- */

#define MAX_COLS 64

static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;
	for (;;) {
		char *t = strchr(p, '\t');
		if (n < max)
			f[n] = p;
		n++;
		if (!t)
			break;
		*t = 0;
		p = t + 1;
	}
	return n;
}

static int read_results(ir_cmp_sim *s, ir_reader *rd, const char *name, ir_err *e)
{
	char *line, *f[MAX_COLS], q[96];
	size_t len, ncols = 0, cap = 0;
	int rc, c_rank = -1, c_end = -1;
	unsigned long *line_of = NULL;
	uint8_t *seen = NULL;
	uint32_t maxrank = 0;
	uint64_t nrows = 0;
	unsigned long servers = 0;
	s->name = strdup(name);
	if (!s->name)
		return ir_errf(e, "out of memory");
	while ((rc = ir_reader_line(rd, &line, &len, e)) == 1) {
		unsigned long ln = ir_reader_lineno(rd);
		size_t nf;
		uint64_t rank, end;
		ir_err e2;
		if (strlen(line) != len) {
			rc = ir_errf_at(e, name, ln, "unexpected NUL byte");
			break;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		if (len && line[0] == '#') {
			/* ibsim's first line: storage servers are the last ranks (docs/storage.md §1) */
			const char *k = ln == 1 ? strstr(line, " storage_servers=") : NULL;
			if (k)
				servers = strtoul(k + 17, NULL, 10);
			continue;
		}
		if (!len)
			continue;
		nf = split_tabs(line, f, MAX_COLS);
		if (!ncols) {
			if (nf > MAX_COLS) {
				rc = ir_errf_at(e, name, ln, "expected at most %d columns in the header, found %zu", MAX_COLS, nf);
				break;
			}
			for (size_t i = 0; i < nf; i++) {
				if (!strcmp(f[i], "rank") && c_rank < 0)
					c_rank = (int)i;
				if (!strcmp(f[i], "end_ps") && c_end < 0)
					c_end = (int)i;
			}
			if (c_rank < 0 || c_end < 0) {
				rc = ir_errf_at(e, name, ln, "expected the header 'rank<TAB>end_ps<TAB>...' of ibsim's results, found '%s'",
				                ir_err_quote(q, 40, f[0], strlen(f[0])));
				break;
			}
			ncols = nf;
			continue;
		}
		if (nf != ncols) {
			rc = ir_errf_at(e, name, ln, "expected %zu tab-separated columns as in the header, found %zu", ncols, nf);
			break;
		}
		if (ir_parse_range(f[c_rank], 0, UINT32_MAX - 1, &rank, "rank", &e2)) {
			rc = ir_errf_at(e, name, ln, "expected a rank number, found '%s'",
			                ir_err_quote(q, 40, f[c_rank], strlen(f[c_rank])));
			break;
		}
		if (ir_parse_u64(f[c_end], &end, "end_ps", &e2)) {
			rc = ir_errf_at(e, name, ln, "expected end_ps as whole picoseconds, found '%s'",
			                ir_err_quote(q, 40, f[c_end], strlen(f[c_end])));
			break;
		}
		if (rank >= cap) {
			/* Ranks arrive in order in ibsim's output; growth is geometric and bounded by
			 * the rows read so far, so a huge rank number alone cannot allocate much. */
			size_t nc = cap ? cap : 64;
			while (nc <= rank)
				nc *= 2;
			if (rank > nrows + 1024 * 1024) {
				rc = ir_errf_at(e, name, ln, "rank %" PRIu64 " after %" PRIu64 " rows: expected ranks 0..N-1", rank, nrows);
				break;
			}
			{
				uint64_t *ne = realloc(s->end_ps, nc * sizeof *ne);
				unsigned long *nl;
				uint8_t *ns;
				if (!ne) {
					rc = ir_errf(e, "out of memory");
					break;
				}
				s->end_ps = ne;
				nl = realloc(line_of, nc * sizeof *nl);
				if (!nl) {
					rc = ir_errf(e, "out of memory");
					break;
				}
				line_of = nl;
				ns = realloc(seen, nc);
				if (!ns) {
					rc = ir_errf(e, "out of memory");
					break;
				}
				seen = ns;
				memset(seen + cap, 0, nc - cap);
				cap = nc;
			}
		}
		if (seen[rank]) {
			rc = ir_errf_at(e, name, ln, "rank %" PRIu64 " appears twice (first at line %lu)", rank, line_of[rank]);
			break;
		}
		seen[rank] = 1;
		line_of[rank] = ln;
		s->end_ps[rank] = end;
		if (rank + 1 > maxrank)
			maxrank = (uint32_t)(rank + 1);
		nrows++;
	}
	if (rc == 0) {
		if (!ncols)
			rc = ir_errf(e, "%s: no results (expected ibsim's header 'rank<TAB>end_ps<TAB>...' and one row per rank)",
			             name);
		else if (!nrows)
			rc = ir_errf(e, "%s: no rank rows after the header", name);
		else
			for (uint32_t i = 0; i < maxrank; i++)
				if (!seen[i]) {
					rc = ir_errf(e, "%s: rank %" PRIu32 " is missing (ranks up to %" PRIu32 " are listed)", name, i,
					             maxrank - 1);
					break;
				}
	}
	free(line_of);
	free(seen);
	s->nranks = maxrank;
	if (rc == 0 && servers) {
		if (servers >= maxrank)
			return ir_errf(e, "%s: %lu storage servers, but only %" PRIu32 " ranks", name, servers, maxrank);
		s->nranks = maxrank - (uint32_t)servers; /* the application's ranks */
	}
	return rc < 0 ? -1 : 0;
}

int ir_cmp_sim_read(ir_cmp_sim *s, const char *path, ir_err *e)
{
	ir_reader *rd;
	int rc;
	memset(s, 0, sizeof *s);
	rd = ir_reader_open(path, e);
	if (!rd)
		return -1;
	rc = read_results(s, rd, ir_reader_name(rd), e);
	ir_reader_free(rd);
	if (rc)
		ir_cmp_sim_release(s);
	return rc;
}

int ir_cmp_sim_parse(ir_cmp_sim *s, const void *text, size_t len, const char *name, ir_err *e)
{
	ir_reader *rd;
	int rc;
	memset(s, 0, sizeof *s);
	rd = ir_reader_open_mem(text, len, name, e);
	if (!rd)
		return -1;
	rc = read_results(s, rd, name, e);
	ir_reader_free(rd);
	if (rc)
		ir_cmp_sim_release(s);
	return rc;
}

void ir_cmp_sim_release(ir_cmp_sim *s)
{
	free(s->name);
	free(s->end_ps);
	memset(s, 0, sizeof *s);
}

/* ---- report ---- */

double ir_cmp_dev_pct(double real, double sim)
{
	if (real <= 0)
		return sim <= 0 ? 0 : INFINITY;
	return (sim - real) / real * 100;
}

/* Rank k's |deviation| into a results file's summary: largest (and which rank), the sum for
 * the mean, and how many are outside the tolerance. */
static void tally(ir_cmp_summary *s, double *sumabs, double dev, uint32_t k, const ir_cmp_opts *o)
{
	*sumabs += dev;
	if (dev > s->max_abs_pct || k == 0) {
		s->max_abs_pct = dev;
		s->worst_rank = k;
	}
	if (!(dev <= o->tolerance_pct))
		s->outside++;
}

static void times_of(const ir_cmp_real *r, const ir_cmp_sim *s, const ir_cmp_opts *o, uint32_t k, double *real,
                     double *sim)
{
	double tail = o->exclude_finalize ? (double)r->tail_ps[k] : 0, end = (double)s->end_ps[k];
	*real = (double)r->span_ps[k] + (o->sync ? (double)r->lead_ps[k] : 0) - tail;
	*sim = end > tail ? end - tail : 0;
}

/* A percentage with `prec` decimals (a sign when `sign`), or "inf". */
static int add_pct(ir_sb *b, int prec, int sign, double v)
{
	if (isinf(v))
		return ir_sb_adds(b, "inf");
	return sign ? ir_sb_addf(b, "%+.*f", prec, v) : ir_sb_addf(b, "%.*f", prec, v);
}

static int report_one(const ir_cmp_real *r, const ir_cmp_sim *sims, size_t nsims, const ir_cmp_opts *o, ir_sb *b,
                      uint64_t *outside, ir_cmp_summary *sum, ir_err *e)
{
	int rc = 0;
	double real, sim;
	*outside = 0;
	for (size_t j = 0; j < nsims; j++)
		if (sims[j].nranks != r->nranks)
			return ir_errf(e, "%s: %" PRIu32 " ranks, but the traces have %" PRIu32, sims[j].name, sims[j].nranks,
			               r->nranks);
	/* Header. */
	if (o->format == IR_CMP_TSV) {
		rc |= ir_sb_adds(b, "rank\treal_ps");
		for (size_t j = 0; j < nsims; j++)
			rc |= ir_sb_adds(b, "\tsim_ps\tdev_pct");
		rc |= ir_sb_addch(b, '\n');
	} else if (o->format == IR_CMP_MD) {
		rc |= ir_sb_adds(b, "| rank | real (us) |");
		for (size_t j = 0; j < nsims; j++)
			rc |= nsims > 1 ? ir_sb_addf(b, " sim %zu (us) | dev %zu (%%) |", j + 1, j + 1)
			                : ir_sb_adds(b, " sim (us) | dev (%) |");
		rc |= ir_sb_adds(b, "\n|---:|---:|");
		for (size_t j = 0; j < nsims; j++)
			rc |= ir_sb_adds(b, "---:|---:|");
		rc |= ir_sb_addch(b, '\n');
	} else {
		if (nsims > 1)
			for (size_t j = 0; j < nsims; j++)
				rc |= ir_sb_addf(b, "results %zu: %s\n", j + 1, sims[j].name);
		rc |= ir_sb_addf(b, "%6s %14s", "rank", "real_us");
		for (size_t j = 0; j < nsims; j++) {
			char h1[32], h2[32];
			if (nsims > 1) {
				snprintf(h1, sizeof h1, "sim%zu_us", j + 1);
				snprintf(h2, sizeof h2, "dev%zu_%%", j + 1);
			} else {
				snprintf(h1, sizeof h1, "sim_us");
				snprintf(h2, sizeof h2, "dev_%%");
			}
			rc |= ir_sb_addf(b, " %14s %9s", h1, h2);
		}
		rc |= ir_sb_addch(b, '\n');
	}
	/* Rows. */
	for (uint32_t k = 0; k < r->nranks; k++) {
		times_of(r, &sims[0], o, k, &real, &sim);
		if (o->format == IR_CMP_TSV)
			rc |= ir_sb_addf(b, "%" PRIu32 "\t%.0f", k, real);
		else if (o->format == IR_CMP_MD)
			rc |= ir_sb_addf(b, "| %" PRIu32 " | %.3f |", k, real / 1e6);
		else
			rc |= ir_sb_addf(b, "%6" PRIu32 " %14.3f", k, real / 1e6);
		for (size_t j = 0; j < nsims; j++) {
			double dev;
			times_of(r, &sims[j], o, k, &real, &sim);
			dev = ir_cmp_dev_pct(real, sim);
			if (!(fabs(dev) <= o->tolerance_pct))
				(*outside)++;
			if (o->format == IR_CMP_TSV) {
				rc |= ir_sb_addf(b, "\t%.0f\t", sim);
				rc |= add_pct(b, 3, 0, dev);
			} else if (o->format == IR_CMP_MD) {
				rc |= ir_sb_addf(b, " %.3f | ", sim / 1e6);
				rc |= add_pct(b, 2, 1, dev);
				rc |= ir_sb_adds(b, " |");
			} else {
				rc |= ir_sb_addf(b, " %14.3f ", sim / 1e6);
				rc |= isinf(dev) ? ir_sb_addf(b, "%9s", "inf") : ir_sb_addf(b, "%+9.2f", dev);
			}
		}
		rc |= ir_sb_addch(b, '\n');
	}
	/* Summaries. */
	if (o->format == IR_CMP_MD)
		rc |= ir_sb_addch(b, '\n');
	for (size_t j = 0; j < nsims; j++) {
		ir_cmp_summary s;
		double sumabs = 0;
		memset(&s, 0, sizeof s);
		for (uint32_t k = 0; k < r->nranks; k++) {
			times_of(r, &sims[j], o, k, &real, &sim);
			tally(&s, &sumabs, fabs(ir_cmp_dev_pct(real, sim)), k, o);
		}
		s.mean_abs_pct = r->nranks ? sumabs / r->nranks : 0;
		{
			ir_cmp_spread sp;
			double rt = ir_cmp_run_time(r, o);
			sp.median = sp.min = sp.max = rt;
			s.run_sim_ps = 0;
			for (uint32_t k = 0; k < r->nranks; k++) {
				times_of(r, &sims[j], o, k, &real, &sim);
				if (sim > s.run_sim_ps)
					s.run_sim_ps = sim;
			}
			s.run_dev_pct = ir_cmp_dev_pct(rt, s.run_sim_ps);
			s.run_within = ir_cmp_within(&sp, s.run_sim_ps);
		}
		if (sum)
			sum[j] = s;
		if (o->format == IR_CMP_TSV) {
			rc |= ir_sb_addf(b, "# %s: max_abs_dev_pct=", sims[j].name);
			rc |= add_pct(b, 3, 0, s.max_abs_pct);
			rc |= ir_sb_addf(b, " worst_rank=%" PRIu32 " mean_abs_dev_pct=", s.worst_rank);
			rc |= add_pct(b, 3, 0, s.mean_abs_pct);
			rc |= ir_sb_addf(b, " outside=%" PRIu32 " tolerance_pct=%g\n", s.outside, o->tolerance_pct);
		} else {
			rc |= ir_sb_addf(b, "%s%s%s: largest |deviation| ", o->format == IR_CMP_MD ? "- **" : "", sims[j].name,
			                 o->format == IR_CMP_MD ? "**" : "");
			rc |= add_pct(b, 2, 0, s.max_abs_pct);
			rc |= ir_sb_addch(b, '%');
			rc |= ir_sb_addf(b, " (rank %" PRIu32 "), mean |deviation| ", s.worst_rank);
			rc |= add_pct(b, 2, 0, s.mean_abs_pct);
			rc |= ir_sb_addch(b, '%');
			rc |= ir_sb_addf(b, "; %" PRIu32 " of %" PRIu32 " rank%s outside %g%%\n", s.outside, r->nranks,
			                 r->nranks == 1 ? "" : "s", o->tolerance_pct);
		}
	}
	return rc ? ir_errf(e, "out of memory") : 0;
}

/* ---- several real runs ---- */

void ir_cmp_spread_of(double *v, size_t n, ir_cmp_spread *s)
{
	s->median = ir_median_inplace(v, n); /* sorts v */
	s->min = v[0];
	s->max = v[n - 1];
}

double ir_cmp_spread_pct(const ir_cmp_spread *s)
{
	if (s->max == s->min)
		return 0;
	if (s->median <= 0)
		return INFINITY;
	return (s->max - s->min) / s->median * 100;
}

int ir_cmp_within(const ir_cmp_spread *s, double sim)
{
	double lo = s->median - s->min, hi = s->max - s->median, d = fabs(sim - s->median);
	return d <= (lo > hi ? lo : hi);
}

double ir_cmp_real_time(const ir_cmp_real *r, uint32_t k, const ir_cmp_opts *o)
{
	return (double)r->span_ps[k] + (o->sync ? (double)r->lead_ps[k] : 0) -
	       (o->exclude_finalize ? (double)r->tail_ps[k] : 0);
}

double ir_cmp_run_time(const ir_cmp_real *r, const ir_cmp_opts *o)
{
	double m = 0;
	for (uint32_t k = 0; k < r->nranks; k++) {
		double t = ir_cmp_real_time(r, k, o);
		if (t > m)
			m = t;
	}
	return m;
}

int ir_cmp_run_slowed(const ir_cmp_real *r, double ref_us)
{
	double lim = ref_us * (1 + IR_CMP_STATE_SLOW_PCT / 100);
	return ref_us > 0 && (r->rtt_init_us > lim || r->rtt_fini_us > lim);
}

size_t ir_cmp_median_run(const ir_cmp_real *runs, size_t n, const ir_cmp_opts *o)
{
	/* The run with (n - 1) / 2 runs before it in the order of (run time, position).
	 * O(n^2) run times: n is a handful of runs. */
	for (size_t i = 0; i < n; i++) {
		double t = ir_cmp_run_time(&runs[i], o);
		size_t before = 0;
		for (size_t j = 0; j < n; j++) {
			double u = ir_cmp_run_time(&runs[j], o);
			if (u < t || (u == t && j < i))
				before++;
		}
		if (before == (n - 1) / 2)
			return i;
	}
	return 0;
}

/* The simulated time of rank k: ibsim's end, less the first run's tail with exclude_finalize. */
static double sim_time(const ir_cmp_real *r0, const ir_cmp_sim *s, const ir_cmp_opts *o, uint32_t k)
{
	double tail = o->exclude_finalize ? (double)r0->tail_ps[k] : 0, end = (double)s->end_ps[k];
	return end > tail ? end - tail : 0;
}

static double sim_run_time(const ir_cmp_real *r0, const ir_cmp_sim *s, const ir_cmp_opts *o)
{
	double m = 0;
	for (uint32_t k = 0; k < r0->nranks; k++) {
		double t = sim_time(r0, s, o, k);
		if (t > m)
			m = t;
	}
	return m;
}

static int add_time(ir_sb *b, int format, double ps)
{
	if (format == IR_CMP_TSV)
		return ir_sb_addf(b, "\t%.0f", ps);
	if (format == IR_CMP_MD)
		return ir_sb_addf(b, " %.3f |", ps / 1e6);
	return ir_sb_addf(b, " %14.3f", ps / 1e6);
}

/* What --state-ref did: the runs set aside (1-based), or that all were slowed (then all are used). */
static int add_state(ir_sb *b, const ir_cmp_real *runs, size_t nruns, size_t nkept, const ir_cmp_opts *o)
{
	int rc = 0, tsv = o->format == IR_CMP_TSV, all = 1;
	size_t n = 0;
	if (!(o->state_ref_us > 0))
		return 0;
	for (size_t i = 0; i < nruns; i++)
		all &= ir_cmp_run_slowed(&runs[i], o->state_ref_us);
	if (tsv) {
		rc |= ir_sb_addf(b, "# state: ref_us=%.3f slowed_pct=%g set_aside=", o->state_ref_us, IR_CMP_STATE_SLOW_PCT);
		for (size_t i = 0; i < nruns && !all; i++)
			if (ir_cmp_run_slowed(&runs[i], o->state_ref_us))
				rc |= ir_sb_addf(b, "%s%zu", n++ ? "," : "", i + 1);
		return rc | ir_sb_addf(b, "%s used=%zu%s\n", n ? "" : "-", nkept, all ? " all_slowed=yes" : "");
	}
	rc |= ir_sb_adds(b, o->format == IR_CMP_MD ? "- state: " : "state: ");
	if (all)
		return rc | ir_sb_addf(b, "every run was on a slowed machine (a clock round trip at MPI_Init or MPI_Finalize more "
		                          "than %g %% above %.3f us): all %zu used\n",
		                       IR_CMP_STATE_SLOW_PCT, o->state_ref_us, nruns);
	for (size_t i = 0; i < nruns; i++)
		if (ir_cmp_run_slowed(&runs[i], o->state_ref_us))
			rc |= ir_sb_addf(b, "%s%zu (%.3f/%.3f us)", n++ ? ", " : "runs set aside: ", i + 1, runs[i].rtt_init_us,
			                 runs[i].rtt_fini_us);
	if (!n)
		rc |= ir_sb_adds(b, "no run set aside");
	return rc | ir_sb_addf(b, "; a run is set aside when its clock round trip at MPI_Init or at MPI_Finalize is more "
	                          "than %g %% above %.3f us (a slowed machine)\n",
	                       IR_CMP_STATE_SLOW_PCT, o->state_ref_us);
}

static int report_multi(const ir_cmp_real *runs, size_t nruns, const ir_cmp_sim *sims, size_t nsims,
                        const ir_cmp_opts *o, ir_sb *b, uint64_t *outside, ir_cmp_summary *sum, ir_err *e)
{
	const ir_cmp_real *r0 = &runs[0];
	uint32_t nr = r0->nranks;
	double *v = malloc(nruns * sizeof *v);
	ir_cmp_spread *sp = malloc(((size_t)nr + 1) * sizeof *sp);
	ir_cmp_real *kept = malloc(nruns * sizeof *kept); /* the runs the medians are over */
	size_t *ki = malloc(nruns * sizeof *ki), nk = 0, med;
	const char *medname;
	int rc = 0, fmt = o->format;
	if (!v || !sp || !kept || !ki) {
		free(v);
		free(sp);
		free(kept);
		free(ki);
		return ir_errf(e, "out of memory");
	}
	for (size_t i = 0; i < nruns; i++)
		if (!ir_cmp_run_slowed(&runs[i], o->state_ref_us)) {
			kept[nk] = runs[i];
			ki[nk++] = i;
		}
	if (!nk) /* every run was slowed: the machine's state then, all of them */
		for (size_t i = 0; i < nruns; i++) {
			kept[nk] = runs[i];
			ki[nk++] = i;
		}
	med = ki[ir_cmp_median_run(kept, nk, o)];
	medname = runs[med].name ? runs[med].name : "?";
	for (uint32_t k = 0; k <= nr; k++) {
		for (size_t i = 0; i < nk; i++)
			v[i] = k < nr ? ir_cmp_real_time(&kept[i], k, o) : ir_cmp_run_time(&kept[i], o);
		ir_cmp_spread_of(v, nk, &sp[k]);
	}
	/* Header. */
	if (fmt == IR_CMP_TSV) {
		rc |= ir_sb_adds(b, "rank\treal_ps\tmin_ps\tmax_ps\tspread_pct");
		for (size_t j = 0; j < nsims; j++)
			rc |= ir_sb_adds(b, "\tsim_ps\tdev_pct\twithin_spread");
		rc |= ir_sb_addch(b, '\n');
	} else if (fmt == IR_CMP_MD) {
		rc |= ir_sb_addf(b, "Real times: the median of %zu runs; median run %s (run %zu).\n\n", nk, medname,
		                 med + 1);
		rc |= ir_sb_adds(b, "| rank | real (us) | min (us) | max (us) | spread (%) |");
		for (size_t j = 0; j < nsims; j++)
			rc |= nsims > 1 ? ir_sb_addf(b, " sim %zu (us) | dev %zu (%%) | within spread %zu |", j + 1, j + 1, j + 1)
			                : ir_sb_adds(b, " sim (us) | dev (%) | within spread |");
		rc |= ir_sb_adds(b, "\n|---:|---:|---:|---:|---:|");
		for (size_t j = 0; j < nsims; j++)
			rc |= ir_sb_adds(b, "---:|---:|---|");
		rc |= ir_sb_addch(b, '\n');
	} else {
		rc |= ir_sb_addf(b, "real times: the median of %zu runs; median run: %s (run %zu)\n", nk, medname, med + 1);
		rc |= add_state(b, runs, nruns, nk, o);
		if (nsims > 1)
			for (size_t j = 0; j < nsims; j++)
				rc |= ir_sb_addf(b, "results %zu: %s\n", j + 1, sims[j].name);
		rc |= ir_sb_addf(b, "%6s %14s %14s %14s %9s", "rank", "real_us", "min_us", "max_us", "spread_%");
		for (size_t j = 0; j < nsims; j++) {
			char h1[32], h2[32], h3[32];
			if (nsims > 1) {
				snprintf(h1, sizeof h1, "sim%zu_us", j + 1);
				snprintf(h2, sizeof h2, "dev%zu_%%", j + 1);
				snprintf(h3, sizeof h3, "spread%zu", j + 1);
			} else {
				snprintf(h1, sizeof h1, "sim_us");
				snprintf(h2, sizeof h2, "dev_%%");
				snprintf(h3, sizeof h3, "spread");
			}
			rc |= ir_sb_addf(b, " %14s %9s %8s", h1, h2, h3);
		}
		rc |= ir_sb_addch(b, '\n');
	}
	/* Rows: the ranks, then "all" (the run time: the longest rank's). */
	*outside = 0;
	for (uint32_t k = 0; k <= nr; k++) {
		double spct = ir_cmp_spread_pct(&sp[k]);
		if (fmt == IR_CMP_TSV)
			rc |= k < nr ? ir_sb_addf(b, "%" PRIu32, k) : ir_sb_adds(b, "all");
		else if (fmt == IR_CMP_MD)
			rc |= k < nr ? ir_sb_addf(b, "| %" PRIu32 " |", k) : ir_sb_adds(b, "| all |");
		else
			rc |= k < nr ? ir_sb_addf(b, "%6" PRIu32, k) : ir_sb_addf(b, "%6s", "all");
		rc |= add_time(b, fmt, sp[k].median);
		rc |= add_time(b, fmt, sp[k].min);
		rc |= add_time(b, fmt, sp[k].max);
		if (fmt == IR_CMP_TSV) {
			rc |= ir_sb_addch(b, '\t');
			rc |= add_pct(b, 3, 0, spct);
		} else if (fmt == IR_CMP_MD) {
			rc |= ir_sb_addch(b, ' ');
			rc |= add_pct(b, 2, 0, spct);
			rc |= ir_sb_adds(b, " |");
		} else {
			rc |= isinf(spct) ? ir_sb_addf(b, " %9s", "inf") : ir_sb_addf(b, " %9.2f", spct);
		}
		for (size_t j = 0; j < nsims; j++) {
			double sim = k < nr ? sim_time(r0, &sims[j], o, k) : sim_run_time(r0, &sims[j], o);
			double dev = ir_cmp_dev_pct(sp[k].median, sim);
			int in = ir_cmp_within(&sp[k], sim);
			if (k < nr && !(fabs(dev) <= o->tolerance_pct))
				(*outside)++;
			rc |= add_time(b, fmt, sim);
			if (fmt == IR_CMP_TSV) {
				rc |= ir_sb_addch(b, '\t');
				rc |= add_pct(b, 3, 0, dev);
				rc |= ir_sb_adds(b, in ? "\tyes" : "\tno");
			} else if (fmt == IR_CMP_MD) {
				rc |= ir_sb_addch(b, ' ');
				rc |= add_pct(b, 2, 1, dev);
				rc |= ir_sb_adds(b, in ? " | yes |" : " | no |");
			} else {
				rc |= isinf(dev) ? ir_sb_addf(b, " %9s", "inf") : ir_sb_addf(b, " %+9.2f", dev);
				rc |= ir_sb_addf(b, " %8s", in ? "within" : "outside");
			}
		}
		rc |= ir_sb_addch(b, '\n');
	}
	/* Summaries. */
	if (fmt == IR_CMP_MD)
		rc |= ir_sb_addch(b, '\n');
	if (fmt == IR_CMP_TSV) {
		rc |= ir_sb_addf(b, "# runs=%zu median_run=%zu %s\n", nruns, med + 1, medname);
		rc |= add_state(b, runs, nruns, nk, o);
	} else if (fmt == IR_CMP_MD) {
		rc |= add_state(b, runs, nruns, nk, o);
	}
	for (size_t j = 0; j < nsims; j++) {
		ir_cmp_summary s;
		double sumabs = 0;
		memset(&s, 0, sizeof s);
		for (uint32_t k = 0; k < nr; k++)
			tally(&s, &sumabs, fabs(ir_cmp_dev_pct(sp[k].median, sim_time(r0, &sims[j], o, k))), k, o);
		s.mean_abs_pct = nr ? sumabs / nr : 0;
		s.run_sim_ps = sim_run_time(r0, &sims[j], o);
		s.run_dev_pct = ir_cmp_dev_pct(sp[nr].median, s.run_sim_ps);
		s.run_within = ir_cmp_within(&sp[nr], s.run_sim_ps);
		if (sum)
			sum[j] = s;
		if (fmt == IR_CMP_TSV) {
			rc |= ir_sb_addf(b, "# %s: max_abs_dev_pct=", sims[j].name);
			rc |= add_pct(b, 3, 0, s.max_abs_pct);
			rc |= ir_sb_addf(b, " worst_rank=%" PRIu32 " mean_abs_dev_pct=", s.worst_rank);
			rc |= add_pct(b, 3, 0, s.mean_abs_pct);
			rc |= ir_sb_addf(b, " outside=%" PRIu32 " tolerance_pct=%g run_dev_pct=", s.outside, o->tolerance_pct);
			rc |= add_pct(b, 3, 0, s.run_dev_pct);
			rc |= ir_sb_addf(b, " within_spread=%s\n", s.run_within ? "yes" : "no");
		} else {
			const char *lead = fmt == IR_CMP_MD ? "- **" : "", *trail = fmt == IR_CMP_MD ? "**" : "";
			rc |= ir_sb_addf(b, "%s%s%s: largest |deviation| ", lead, sims[j].name, trail);
			rc |= add_pct(b, 2, 0, s.max_abs_pct);
			rc |= ir_sb_addf(b, "%% (rank %" PRIu32 "), mean |deviation| ", s.worst_rank);
			rc |= add_pct(b, 2, 0, s.mean_abs_pct);
			rc |= ir_sb_addf(b, "%%; %" PRIu32 " of %" PRIu32 " rank%s outside %g%%\n", s.outside, nr, nr == 1 ? "" : "s",
			                 o->tolerance_pct);
			rc |= ir_sb_addf(b, "%s%s%s: run time %.3f us, ", lead, sims[j].name, trail, s.run_sim_ps / 1e6);
			rc |= add_pct(b, 2, 1, s.run_dev_pct);
			rc |= ir_sb_addf(b, "%% from the median %.3f us of %zu runs (%.3f to %.3f us, spread ", sp[nr].median / 1e6,
			                 nk, sp[nr].min / 1e6, sp[nr].max / 1e6);
			rc |= add_pct(b, 2, 0, ir_cmp_spread_pct(&sp[nr]));
			rc |= ir_sb_addf(b, "%%): %s the spread\n", s.run_within ? "within" : "outside");
		}
	}
	free(v);
	free(sp);
	free(kept);
	free(ki);
	return rc ? ir_errf(e, "out of memory") : 0;
}

int ir_cmp_report_runs(const ir_cmp_real *runs, size_t nruns, const ir_cmp_sim *sims, size_t nsims,
                       const ir_cmp_opts *o, ir_sb *out, uint64_t *outside, ir_cmp_summary *sum, ir_err *e)
{
	*outside = 0;
	if (nruns < 1)
		return ir_errf(e, "no real run to compare with");
	for (size_t i = 1; i < nruns; i++)
		if (runs[i].nranks != runs[0].nranks)
			return ir_errf(e, "%s: %" PRIu32 " rank%s, but the first run (%s) has %" PRIu32,
			               runs[i].name ? runs[i].name : "?", runs[i].nranks, runs[i].nranks == 1 ? "" : "s",
			               runs[0].name ? runs[0].name : "?", runs[0].nranks);
	for (size_t j = 0; j < nsims; j++)
		if (sims[j].nranks != runs[0].nranks)
			return ir_errf(e, "%s: %" PRIu32 " ranks, but the traces have %" PRIu32, sims[j].name, sims[j].nranks,
			               runs[0].nranks);
	if (nruns == 1)
		return report_one(runs, sims, nsims, o, out, outside, sum, e);
	return report_multi(runs, nruns, sims, nsims, o, out, outside, sum, e);
}

int ir_cmp_report(const ir_cmp_real *r, const ir_cmp_sim *sims, size_t nsims, const ir_cmp_opts *o, ir_sb *out,
                  uint64_t *outside, ir_cmp_summary *sum, ir_err *e)
{
	return ir_cmp_report_runs(r, 1, sims, nsims, o, out, outside, sum, e);
}
