/*
 * ir_calib.c: calib's measurements, simulation and fit (see ir_calib.h for
 * the model and why o is half the intercept).
 *
 * Input is collected as raw samples (one per exchange), then aggregated per
 * size (median of the reused exchanges), then compared with the network's
 * own time, which is either given or simulated by the engine on an in-memory
 * four-op schedule (two ranks: send then receive, receive then send). The
 * simulation is exact and cheap (a few events per size), so it is rerun per
 * size and protocol rather than derived from a formula that would have to
 * follow every network model.
 */
#include "ir_calib.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir_endian.h"
#include "ir_engine.h"
#include "ir_goal.h"
#include "ir_io.h"
#include "ir_net_ib.h"
#include "ir_num.h"
#include "ir_trace.h"

#define US_PS 1e6
#define MAX_US 1e12 /* eleven days: anything larger in a ping-pong is a unit mistake */

void ir_calib_data_init(ir_calib_data *d)
{
	memset(d, 0, sizeof *d);
}

void ir_calib_data_release(ir_calib_data *d)
{
	free(d->s);
	free(d->p);
	memset(d, 0, sizeof *d);
}

static int add_sample(ir_calib_data *d, uint64_t size, double oneway, double send, int first, ir_err *e)
{
	if (d->ns == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 64;
		ir_calib_sample *ns = realloc(d->s, nc * sizeof *ns);
		if (!ns)
			return ir_errf(e, "out of memory");
		d->s = ns;
		d->cap = nc;
	}
	d->s[d->ns].size = size;
	d->s[d->ns].oneway_ps = oneway;
	d->s[d->ns].send_ps = send;
	d->s[d->ns].first = first;
	d->ns++;
	return 0;
}

/* ---- TSV ---- */

static char *next_field(char **p)
{
	char *s = *p, *t;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	t = s;
	while (*t && *t != ' ' && *t != '\t')
		t++;
	if (*t)
		*t++ = 0;
	*p = t;
	return s;
}

static int parse_us(const char *f, double *ps, const char *col, const char *name, unsigned long line, ir_err *e)
{
	char q[96];
	char *end;
	double v;
	if (!isdigit((unsigned char)f[0]) && f[0] != '.')
		goto bad;
	v = strtod(f, &end);
	if (*end || !isfinite(v))
		goto bad;
	if (v > MAX_US)
		return ir_errf_at(e, name, line, "%s '%s' is out of range (at most 1e12 microseconds)", col,
		                  ir_err_quote(q, sizeof q, f, strlen(f)));
	*ps = v * US_PS;
	return 0;
bad:
	return ir_errf_at(e, name, line, "expected %s as a non-negative number of microseconds, found '%s'", col,
	                  ir_err_quote(q, sizeof q, f, strlen(f)));
}

static int tsv_line(ir_calib_data *d, char *line, const char *name, unsigned long lineno, int *ncols, int *seen_header,
                    ir_err *e)
{
	char *p = line, *f[4], q[96];
	int n = 0;
	uint64_t size;
	double real, sim = 0;
	size_t len = strlen(line);
	if (len && line[len - 1] == '\r')
		line[--len] = 0;
	if (memchr(line, 0, len) != NULL && strlen(line) != len)
		return ir_errf_at(e, name, lineno, "unexpected NUL byte");
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	while (n < 4 && (f[n] = next_field(&p)) != NULL)
		n++;
	if (n == 4 || (n == 3 && next_field(&p))) {
		int extra = n;
		while (next_field(&p))
			extra++;
		return ir_errf_at(e, name, lineno, "expected 2 or 3 columns (size_bytes real_us [sim_us]), found %d", extra);
	}
	if (!isdigit((unsigned char)f[0][0])) {
		/* A header: only as the first non-comment line. */
		if (*ncols || *seen_header)
			return ir_errf_at(e, name, lineno, "expected a size in bytes, found '%s'",
			                  ir_err_quote(q, sizeof q, f[0], strlen(f[0])));
		if (n >= 2 && strcmp(f[0], "size_bytes") == 0 && strcmp(f[1], "real_us") == 0 &&
		    (n == 2 || strcmp(f[2], "sim_us") == 0)) {
			*seen_header = n;
			return 0;
		}
		return ir_errf_at(e, name, lineno, "expected the header 'size_bytes real_us [sim_us]' or a row of numbers, found '%s'",
		                  ir_err_quote(q, sizeof q, f[0], strlen(f[0])));
	}
	if (n < 2)
		return ir_errf_at(e, name, lineno, "expected 2 or 3 columns (size_bytes real_us [sim_us]), found 1");
	if (!*ncols) {
		if (*seen_header && *seen_header != n)
			return ir_errf_at(e, name, lineno, "expected %d columns as in the header, found %d", *seen_header, n);
		*ncols = n;
	} else if (n != *ncols) {
		return ir_errf_at(e, name, lineno, "expected %d columns as in the rows before, found %d", *ncols, n);
	}
	{
		ir_err e2;
		if (ir_parse_size(f[0], &size, "size_bytes", &e2))
			return ir_errf_at(e, name, lineno, "expected size_bytes as a whole number of bytes, found '%s'",
			                  ir_err_quote(q, sizeof q, f[0], strlen(f[0])));
	}
	if (size > ((uint64_t)1 << 53))
		return ir_errf_at(e, name, lineno, "size_bytes '%s' is out of range (at most 2^53 bytes)",
		                  ir_err_quote(q, sizeof q, f[0], strlen(f[0])));
	if (parse_us(f[1], &real, "real_us", name, lineno, e))
		return -1;
	if (n == 3 && parse_us(f[2], &sim, "sim_us", name, lineno, e))
		return -1;
	if (add_sample(d, size, real, -1, 0, e))
		return -1;
	/* sim_us rides in send_ps until aggregation (TSV rows have no send durations). */
	d->s[d->ns - 1].send_ps = n == 3 ? sim : -1;
	return 0;
}

static int read_tsv(ir_calib_data *d, ir_reader *r, const char *name, ir_err *e)
{
	char *line;
	size_t len;
	int rc, ncols = 0, hdr = 0;
	snprintf(d->source, sizeof d->source, "%s", name);
	while ((rc = ir_reader_line(r, &line, &len, e)) == 1) {
		if (strlen(line) != len)
			return ir_errf_at(e, name, ir_reader_lineno(r), "unexpected NUL byte");
		if (tsv_line(d, line, name, ir_reader_lineno(r), &ncols, &hdr, e))
			return -1;
	}
	if (rc < 0)
		return -1;
	if (!d->ns)
		return ir_errf(e, "%s: no measurements (expected rows 'size_bytes real_us [sim_us]')", name);
	d->have_sim = ncols == 3;
	return 0;
}

int ir_calib_read_tsv(ir_calib_data *d, const char *path, ir_err *e)
{
	ir_reader *r = ir_reader_open(path, e);
	int rc;
	if (!r)
		return -1;
	rc = read_tsv(d, r, ir_reader_name(r), e);
	ir_reader_free(r);
	return rc;
}

int ir_calib_parse_tsv(ir_calib_data *d, const void *text, size_t len, const char *name, ir_err *e)
{
	ir_reader *r = ir_reader_open_mem(text, len, name, e);
	int rc;
	if (!r)
		return -1;
	rc = read_tsv(d, r, name, e);
	ir_reader_free(r);
	return rc;
}

int ir_calib_is_trace(const char *path, ir_err *e)
{
	ir_reader *r;
	char *line;
	size_t len;
	int rc, is = 0;
	struct stat st;
	if (!strcmp(path, "-"))
		return 0; /* standard input cannot be a trace set, and must not be read twice */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 1;
	r = ir_reader_open(path, e);
	if (!r)
		return -1;
	/* Only look at the first lines: a trace says so at once. */
	for (int k = 0; k < 1000 && (rc = ir_reader_line(r, &line, &len, e)) == 1; k++) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		is = strncmp(line, "MPI_", 4) == 0;
		break;
	}
	ir_reader_free(r);
	return is;
}

/* ---- traces ---- */

/* count * datatype size of a point-to-point call's buffer fields f[1], f[2]. */
static int msg_bytes(const ir_rec *r, uint64_t *bytes)
{
	int64_t count, id, sz, ext;
	if (r->nf < 6 || ir_tf_int(r->f[1], &count) || ir_tf_triple(r->f[2], &id, &sz, &ext) || count < 0 || sz < 0 ||
	    (sz && (uint64_t)count > UINT64_MAX / (uint64_t)sz))
		return -1;
	*bytes = (uint64_t)count * (uint64_t)sz;
	return 0;
}

static int is_send(const char *n)
{
	return !strcmp(n, "MPI_Send") || !strcmp(n, "MPI_Ssend") || !strcmp(n, "MPI_Rsend") || !strcmp(n, "MPI_Bsend");
}

/* Rank 0: every send to rank 1 followed directly by a receive from rank 1 is one exchange. */
static int read_rank0(ir_calib_data *d, const ir_trace_file *tf, int64_t epoch, uint64_t *nsent, ir_err *e)
{
	ir_trace_opts to = { epoch, 0 };
	ir_trace *t = ir_trace_open(tf->path, &to, e);
	ir_rec r;
	int rc, have_send = 0;
	uint64_t size = 0, *seen = NULL;
	size_t nseen = 0, capseen = 0;
	int64_t t_call = 0, t_ret = 0;
	char q[96];
	if (!t)
		return -1;
	*nsent = 0;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		int64_t peer;
		if (r.kind != IR_REC_CALL)
			continue;
		if (is_send(r.name)) {
			have_send = 0;
			if (r.nf < 6 || ir_tf_int(r.f[3], &peer)) {
				rc = ir_errf_at(e, tf->path, r.line, "%s: expected buf:count:type:dest:tag:comm, found %u fields", r.name,
				                r.nf);
				break;
			}
			if (peer != 1)
				continue;
			if (msg_bytes(&r, &size)) {
				rc = ir_errf_at(e, tf->path, r.line, "%s: expected count and datatype 'id,size,extent', found '%s' and '%s'",
				                r.name, ir_err_quote(q, 40, r.f[1], strlen(r.f[1])), r.f[2]);
				break;
			}
			if (r.t_call == IR_TIME_NONE || r.t_ret == IR_TIME_NONE) {
				rc = ir_errf_at(e, tf->path, r.line, "%s: expected a call time and a return time, found '-'", r.name);
				break;
			}
			(*nsent)++;
			have_send = 1;
			t_call = r.t_call;
			t_ret = r.t_ret;
			continue;
		}
		if (have_send && !strcmp(r.name, "MPI_Recv") && r.nf >= 6 && ir_tf_int(r.f[3], &peer) == 0 &&
		    (peer == 1 || peer == -1) && r.t_ret != IR_TIME_NONE && r.t_ret >= t_call) {
			int first = 1;
			for (size_t k = 0; k < nseen; k++)
				if (seen[k] == size)
					first = 0;
			if (first) {
				if (nseen == capseen) {
					size_t nc = capseen ? capseen * 2 : 32;
					uint64_t *ns = realloc(seen, nc * sizeof *ns);
					if (!ns) {
						rc = ir_errf(e, "out of memory");
						break;
					}
					seen = ns;
					capseen = nc;
				}
				seen[nseen++] = size;
			}
			if (add_sample(d, size, (double)(r.t_ret - t_call) / 2, (double)(t_ret - t_call), first, e)) {
				rc = -1;
				break;
			}
		}
		have_send = 0;
	}
	free(seen);
	ir_trace_free(t);
	return rc < 0 ? -1 : 0;
}

/* Rank 1: count the receives from rank 0 (it must answer every exchange). */
static int read_rank1(const ir_trace_file *tf, int64_t epoch, uint64_t *nrecv, ir_err *e)
{
	ir_trace_opts to = { epoch, 0 };
	ir_trace *t = ir_trace_open(tf->path, &to, e);
	ir_rec r;
	int rc;
	if (!t)
		return -1;
	*nrecv = 0;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		int64_t peer;
		if (r.kind == IR_REC_CALL && !strcmp(r.name, "MPI_Recv") && r.nf >= 6 && ir_tf_int(r.f[3], &peer) == 0 &&
		    (peer == 0 || peer == -1))
			(*nrecv)++;
	}
	ir_trace_free(t);
	return rc < 0 ? -1 : 0;
}

int ir_calib_read_traces(ir_calib_data *d, char *const *paths, size_t n, ir_err *e)
{
	ir_trace_files tf = { NULL, 0 };
	int64_t epoch;
	uint64_t nsent = 0, nrecv = 0;
	size_t before = d->ns;
	int rc = -1;
	if (ir_trace_discover(&tf, paths, n, NULL, e))
		return -1;
	snprintf(d->source, sizeof d->source, "%s%s", n ? paths[0] : "", n > 1 ? " ..." : "");
	d->from_traces = 1;
	d->nranks = (uint32_t)tf.n;
	if (tf.n < 2) {
		ir_errf(e, "%s: no trace of rank 1 (a ping-pong needs ranks 0 and 1; found only rank 0)", d->source);
		goto out;
	}
	if (ir_trace_epoch(tf.f[0].path, &epoch, e) || read_rank0(d, &tf.f[0], epoch, &nsent, e))
		goto out;
	if (d->ns == before) {
		ir_errf(e, "%s: no ping-pong exchange found (expected MPI_Send to rank 1 followed by MPI_Recv from rank 1)",
		        tf.f[0].path);
		goto out;
	}
	if (read_rank1(&tf.f[1], epoch, &nrecv, e))
		goto out;
	if (nrecv < nsent) {
		ir_errf(e, "%s: rank 1 receives %" PRIu64 " message%s from rank 0, but rank 0 sends %" PRIu64
		           " (not a ping-pong between ranks 0 and 1)",
		        tf.f[1].path, nrecv, nrecv == 1 ? "" : "s", nsent);
		goto out;
	}
	rc = 0;
out:
	ir_trace_files_release(&tf);
	return rc;
}

/* ---- aggregation ---- */

static int cmp_sample(const void *a, const void *b)
{
	const ir_calib_sample *x = a, *y = b;
	return x->size < y->size ? -1 : x->size > y->size;
}

int ir_calib_aggregate(ir_calib_data *d, ir_err *e)
{
	size_t i, j, nsz = 0;
	double *v = NULL, *w = NULL;
	free(d->p);
	d->p = NULL;
	d->np = 0;
	if (!d->ns)
		return ir_errf(e, "%s: no measurements", d->source);
	/* Stable order inside a size matters not: the median and the first flag do not depend on it. */
	qsort(d->s, d->ns, sizeof *d->s, cmp_sample);
	for (i = 0; i < d->ns; i = j) {
		for (j = i; j < d->ns && d->s[j].size == d->s[i].size; j++)
			;
		nsz++;
	}
	d->p = calloc(nsz, sizeof *d->p);
	v = malloc(d->ns * sizeof *v);
	w = malloc(d->ns * sizeof *w);
	if (!d->p || !v || !w) {
		free(v);
		free(w);
		return ir_errf(e, "out of memory");
	}
	for (i = 0; i < d->ns; i = j) {
		ir_calib_point *p = &d->p[d->np++];
		size_t nv = 0, nw = 0, nsim = 0;
		double simsum = 0;
		p->size = d->s[i].size;
		p->send_ps = -1;
		p->sim_ps[0] = p->sim_ps[1] = -1;
		for (j = i; j < d->ns && d->s[j].size == d->s[i].size; j++) {
			if (d->s[j].first) {
				p->has_first = 1;
				p->first_ps = d->s[j].oneway_ps;
				continue;
			}
			v[nv++] = d->s[j].oneway_ps;
			if (d->from_traces && d->s[j].send_ps >= 0)
				w[nw++] = d->s[j].send_ps;
			if (!d->from_traces && d->s[j].send_ps >= 0) {
				simsum += d->s[j].send_ps;
				nsim++;
			}
		}
		if (!nv) {
			free(v);
			free(w);
			return ir_errf(e, "%s: size %" PRIu64 " bytes has only its first exchange (first use of the buffer): "
			                  "no repetitions to measure",
			               d->source, p->size);
		}
		p->reps = nv;
		p->real_ps = ir_median_inplace(v, nv);
		if (nw)
			p->send_ps = ir_median_inplace(w, nw);
		if (nsim) /* TSV: the simulated time of a size is deterministic; repeated rows are averaged */
			p->sim_ps[0] = p->sim_ps[1] = simsum / (double)nsim;
	}
	free(v);
	free(w);
	if (d->np < 2)
		return ir_errf(e, "%s: only one message size (%" PRIu64 " bytes): a line needs at least two sizes",
		               d->source, d->p[0].size);
	return 0;
}

/* ---- networks and simulation ---- */

int ir_calib_net_select(ir_calib_net *n, const char *name, const char *topo, const ir_loggops *p, int need_engine,
                        ir_err *e)
{
	memset(n, 0, sizeof *n);
	n->p = *p;
	if (!name || !strcmp(name, "loggops")) {
		if (topo)
			return ir_errf(e, "--topo applies to --net ib, not to the loggops network");
		n->name = "loggops";
		n->ops = &ir_net_loggops;
		n->arg = NULL;
		n->models_bytes = 0;
		return 0;
	}
	if (!strcmp(name, "ib")) {
		ir_ib_cfg *c;
		n->name = "ib";
		if (topo)
			snprintf(n->topo, sizeof n->topo, "%s", topo);
		n->models_bytes = (ir_net_ib.flags & IR_NET_MODELS_BYTES) != 0;
		if (!need_engine)
			return 0;
		c = malloc(sizeof *c);
		if (!c)
			return ir_errf(e, "out of memory");
		ir_ib_config_init(c);
		n->own = c;
		if (topo && ir_ib_config_set(c, "topo", topo, e))
			return -1;
		n->ops = &ir_net_ib;
		n->arg = c;
		return 0;
	}
	return ir_errf(e, "unknown network '%s' (expected loggops or ib)", name);
}

int ir_calib_net_set(ir_calib_net *n, const char *key, const char *value, ir_err *e)
{
	if (!n->own)
		return ir_errf(e, "unknown parameter '%s' for the %s network", key, n->name ? n->name : "loggops"), -2;
	return ir_ib_config_set(n->own, key, value, e);
}

void ir_calib_net_release(ir_calib_net *n)
{
	if (n->own) {
		ir_ib_config_release(n->own);
		free(n->own);
	}
	n->own = NULL;
	n->arg = NULL;
}

static void put_op(unsigned char *op, unsigned type, uint32_t peer, uint32_t succ_first, uint64_t size)
{
	memset(op, 0, IR_OP_BYTES);
	op[0] = (unsigned char)type;
	ir_put32(op + 4, peer);
	ir_put32(op + 8, 0);
	ir_put32(op + 12, succ_first);
	ir_put64(op + 16, size);
}

int ir_calib_sim_pingpong(const ir_calib_net *n, const ir_loggops *p, uint64_t size, uint64_t *rtt_ps, ir_err *e)
{
	unsigned char ops[2][2 * IR_OP_BYTES], edges[2][4];
	ir_rank rk[2];
	ir_sched s;
	ir_engine_cfg cfg;
	ir_engine *en;
	int rc;
	/* rank 0: send, then receive (requires the send); rank 1: receive, then send. */
	put_op(ops[0], IR_OP_SEND, 1, 0, size);
	put_op(ops[0] + IR_OP_BYTES, IR_OP_RECV, 1, 1, size);
	put_op(ops[1], IR_OP_RECV, 0, 0, size);
	put_op(ops[1] + IR_OP_BYTES, IR_OP_SEND, 0, 1, size);
	for (int r = 0; r < 2; r++) {
		ir_put32(edges[r], 1);
		rk[r].ops = ops[r];
		rk[r].edges = edges[r];
		rk[r].nops = 2;
		rk[r].nedges = 1;
		rk[r].ncpus = 1;
		rk[r].nnics = 1;
	}
	memset(&s, 0, sizeof s);
	s.nranks = 2;
	s.rank = rk;
	s.nops = 4;
	s.nedges = 2;
	memset(&cfg, 0, sizeof cfg);
	cfg.p = *p;
	cfg.net = n->ops;
	cfg.net_arg = n->arg;
	en = ir_engine_new(&s, &cfg, e);
	if (!en)
		return -1;
	rc = ir_engine_run(en, e);
	if (rc == 1)
		rc = ir_errf(e, "the simulated ping-pong of %" PRIu64 " bytes did not finish", size);
	if (rc == 0)
		*rtt_ps = ir_engine_rank_end(en, 0);
	ir_engine_free(en);
	return rc;
}

int ir_calib_simulate(ir_calib_data *d, const ir_calib_net *n, ir_err *e)
{
	for (size_t i = 0; i < d->np; i++) {
		for (int rndv = 0; rndv < 2; rndv++) {
			ir_loggops p = n->p;
			uint64_t rtt;
			p.o = p.O = p.o_rndv = p.O_rndv = p.O_send = p.O_send_rndv = 0;
			p.S = rndv ? 0 : UINT64_MAX;
			if (ir_calib_sim_pingpong(n, &p, d->p[i].size, &rtt, e))
				return -1;
			d->p[i].sim_ps[rndv] = (double)rtt / 2;
		}
	}
	return 0;
}

/* ---- fit ---- */

static double s1(uint64_t size)
{
	return size ? (double)(size - 1) : 0;
}

static double sim_of(const ir_calib_data *d, const ir_calib_fit *f, size_t i)
{
	int rndv = f->model == IR_CALIB_OGOPS && i >= f->split;
	/* Size 0 is never rendezvous (size > S is false for any S). */
	if (d->p[i].size == 0)
		rndv = 0;
	return d->p[i].sim_ps[rndv];
}

double ir_calib_model_ps(const ir_calib_data *d, const ir_calib_fit *f, size_t i)
{
	double x = s1(d->p[i].size);
	if (f->model == IR_CALIB_LOGGP)
		return ir_linfit_at(&f->all, x);
	return sim_of(d, f, i) + ir_linfit_at(i < f->split ? &f->eager : &f->rndv, x);
}

/* Weight of point i: 1/real^2 (relative residuals) or 1. */
static double weight(const ir_calib_data *d, size_t i, int weighted)
{
	double r = d->p[i].real_ps;
	if (!weighted)
		return 1;
	if (r < 1)
		r = 1;
	return 1 / (r * r);
}

static int fit_points(const ir_calib_data *d, size_t a, size_t b, int rndv, int weighted, double *xs, double *ys,
                      double *ws, ir_linfit *lf)
{
	for (size_t i = a; i < b; i++) {
		int r = rndv && d->p[i].size > 0;
		xs[i - a] = s1(d->p[i].size);
		ys[i - a] = d->p[i].real_ps - d->p[i].sim_ps[r];
		ws[i - a] = weight(d, i, weighted);
	}
	return ir_linfit_wxy(xs, ys, ws, b - a, lf);
}

int ir_calib_do_fit(const ir_calib_data *d, const ir_calib_opts *o, ir_calib_fit *f, ir_err *e)
{
	size_t n = d->np;
	double *xs, *ys, *ws, *yr;
	int rc = -1, wt = !o->unweighted;
	memset(f, 0, sizeof *f);
	f->model = o->model;
	f->unweighted = o->unweighted;
	f->sse_unit = o->unweighted ? US_PS * US_PS : 1;
	if (n < 2)
		return ir_errf(e, "%s: only one message size: a line needs at least two sizes", d->source);
	xs = malloc(4 * n * sizeof *xs);
	if (!xs)
		return ir_errf(e, "out of memory");
	ys = xs + n;
	ws = xs + 2 * n;
	yr = xs + 3 * n;

	if (o->model == IR_CALIB_LOGGP) {
		for (size_t i = 0; i < n; i++) {
			xs[i] = s1(d->p[i].size);
			ys[i] = d->p[i].real_ps;
			ws[i] = weight(d, i, wt);
		}
		if (ir_linfit_wxy(xs, ys, ws, n, &f->all)) {
			ir_errf(e, "%s: the sizes do not determine a line", d->source);
			goto out;
		}
		f->split = n;
		f->S = d->p[n - 1].size;
		if (o->have_o) {
			f->lo = o->o_ps;
			f->lo_given = 1;
		} else {
			f->lo = d->p[0].send_ps >= 0 ? d->p[0].send_ps : 0;
		}
		f->G = f->all.slope;
		f->L = f->all.intercept - 2 * f->lo;
		if (f->L < 0) {
			f->clamp_L = 1;
		}
	} else {
		/* Points sorted by size; x = size - 1, y = real - sim. */
		ir_linfit l, r;
		if (o->have_S) {
			size_t k = 0;
			while (k < n && d->p[k].size <= o->S)
				k++;
			if (k < 2) {
				ir_errf(e, "%s: %zu size%s at or below S = %" PRIu64 " bytes: the eager fit needs at least two", d->source,
				        k, k == 1 ? "" : "s", o->S);
				goto out;
			}
			if (n - k == 1) {
				ir_errf(e, "%s: one size above S = %" PRIu64 " bytes (%" PRIu64 "): the rendezvous fit needs at least two",
				        d->source, o->S, d->p[n - 1].size);
				goto out;
			}
			f->split = k;
			f->S = o->S;
		} else {
			size_t k = 0;
			double sse;
			/* Each side needs a degree of freedom left after its line, or two
			 * points fitted exactly would always win the search: at least 3
			 * sizes per side, so at least 6 sizes to search at all. */
			if (n >= 6) {
				for (size_t i = 0; i < n; i++) {
					xs[i] = s1(d->p[i].size);
					ys[i] = d->p[i].real_ps - d->p[i].sim_ps[0];
					yr[i] = d->p[i].real_ps - d->p[i].sim_ps[d->p[i].size > 0];
					ws[i] = weight(d, i, wt);
				}
				k = ir_breakpoint2(xs, ys, yr, ws, n, 3, &sse);
			}
			if (k) {
				f->split = k;
				f->S = d->p[k - 1].size;
				f->S_searched = 1;
			} else {
				f->split = n;
				f->S = d->p[n - 1].size;
				f->searched_none = 1;
			}
		}
		if (fit_points(d, 0, f->split, 0, wt, xs, ys, ws, &l)) {
			ir_errf(e, "%s: the eager sizes do not determine a line", d->source);
			goto out;
		}
		f->eager = l;
		if (f->split < n) {
			if (fit_points(d, f->split, n, 1, wt, xs, ys, ws, &r)) {
				ir_errf(e, "%s: the rendezvous sizes do not determine a line", d->source);
				goto out;
			}
			f->rndv = r;
			f->have_rndv = 1;
		}
		fit_points(d, 0, n, 0, wt, xs, ys, ws, &f->one);
		f->o = f->eager.intercept / 2;
		f->O = f->eager.slope + o->Gprime;
		if (f->have_rndv) {
			f->o_rndv = f->rndv.intercept / 2;
			f->O_rndv = f->rndv.slope + o->Gprime;
		} else {
			f->o_rndv = f->o;
			f->O_rndv = f->O;
		}
		f->clamp_o = f->o < 0;
		f->clamp_O = f->O < 0 || f->eager.slope < 0;
		f->clamp_or = f->o_rndv < 0;
		f->clamp_Or = f->O_rndv < 0 || (f->have_rndv && f->rndv.slope < 0);
	}

	/* Pinning: the first exchange's extra round trip per size. */
	{
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (d->p[i].has_first && d->p[i].size > 0) {
				xs[m] = (double)d->p[i].size;
				ys[m] = 2 * (d->p[i].first_ps - d->p[i].real_ps);
				m++;
			}
		f->npin = m;
		if (m >= 2 && ir_linfit_xy(xs, ys, m, &f->pin) == 0) {
			f->have_pin = 1;
			f->pin_a = f->pin.intercept;
			f->pin_b = f->pin.slope;
			f->clamp_pa = f->pin_a < 0;
			f->clamp_pb = f->pin_b < 0;
			/* Where nothing is registered (shared memory) the first exchange differs from
			 * the others only by noise (cold caches, a preemption), and a line through noise
			 * would charge a cost that does not exist on every first use of a buffer. */
			f->pin_noise = !(f->pin_a > 3 * f->pin.se_intercept) && !(f->pin_b > 3 * f->pin.se_slope);
		}
	}
	rc = 0;
out:
	free(xs);
	return rc;
}

/* ---- output ---- */

static uint64_t to_ps(double v)
{
	if (!(v > 0))
		return 0;
	if (v > 1.8e19)
		return UINT64_MAX;
	return (uint64_t)llround(v);
}

static const char *fmt_t(char *b, size_t n, double v)
{
	return ir_fmt_time(b, n, to_ps(v));
}

static int add_fitline(ir_sb *o, const char *what, const ir_linfit *lf, const char *yunit)
{
	return ir_sb_addf(o, "# %s: %zu sizes, R-squared %.6f, rms residual %.4f %s, largest %.4f %s\n", what, lf->n, lf->r2,
	                  lf->rmse / US_PS, yunit, lf->max_abs / US_PS, yunit);
}

int ir_calib_write_params(const ir_calib_data *d, const ir_calib_fit *f, const ir_calib_net *net,
                          const char *version, ir_sb *o)
{
	char a[64], b[64], c[64];
	int rc = 0;
	size_t nsamples = 0, nfirst = 0;
	for (size_t i = 0; i < d->np; i++) {
		nsamples += d->p[i].reps;
		nfirst += d->p[i].has_first;
	}
	rc |= ir_sb_addf(o, "# written by calib %s from %s\n", version, d->source);
	if (d->from_traces)
		rc |= ir_sb_addf(o, "# input: ping-pong traces of %" PRIu32 " ranks: %zu sizes, %zu reused exchanges, %zu first exchanges\n",
		                 d->nranks, d->np, nsamples, nfirst);
	else
		rc |= ir_sb_addf(o, "# input: TSV, %zu sizes, %zu rows%s\n", d->np, nsamples,
		                 d->have_sim ? ", network times from its sim_us column" : "");
	if (f->model == IR_CALIB_LOGGP) {
		rc |= ir_sb_adds(o, "# model: pure LogGP network, one-way time = 2*o + L + G*(size-1)\n");
		rc |= add_fitline(o, "fit of the one-way time", &f->all, "us");
		rc |= ir_sb_addf(o, "# o: %s\n", f->lo_given ? "given on the command line" :
		                 d->from_traces ? "median duration of the smallest message's send calls" :
		                 "not measurable from a TSV (0; give -o)");
		if (f->clamp_L)
			rc |= ir_sb_addf(o, "# L: the fit gives %.4g us, below 0; written as 0 (o is too large for the intercept)\n",
			                 f->L / US_PS);
		rc |= ir_sb_addf(o, "L = %-14s # latency\n", fmt_t(a, sizeof a, f->L));
		rc |= ir_sb_addf(o, "o = %-14s # CPU overhead per message\n", fmt_t(a, sizeof a, f->lo));
		rc |= ir_sb_addf(o, "G = %-14s # time per byte\n", fmt_t(a, sizeof a, f->G));
		rc |= ir_sb_adds(o, "O = 0              # no per-byte CPU overhead in LogGP\n");
	} else {
		if (net)
			rc |= ir_sb_addf(o, "# network: %s, L = %s, g = %s, G = %s per byte (o = O = 0 while fitting)\n", net->name,
			                 ir_fmt_time(a, sizeof a, net->p.L), ir_fmt_time(b, sizeof b, net->p.g),
			                 ir_fmt_time(c, sizeof c, net->p.G));
		rc |= ir_sb_addf(o, "# model: real - sim = 2*o + (O - %s)*(size-1) per protocol, least squares%s\n",
		                 net && net->models_bytes ? "0" : "G", f->unweighted ? "" : " of relative residuals");
		{
			char what[96];
			snprintf(what, sizeof what, "eager (size <= %" PRIu64 ")", f->S);
			rc |= add_fitline(o, what, &f->eager, "us");
			snprintf(what, sizeof what, "rendezvous (size > %" PRIu64 ")", f->S);
			if (f->have_rndv)
				rc |= add_fitline(o, what, &f->rndv, "us");
		}
		if (!f->have_rndv)
			rc |= ir_sb_adds(o, "# rendezvous: no sizes above S; o_rndv = o, O_rndv = O\n");
		if (f->S_searched)
			rc |= ir_sb_addf(o, "# S: breakpoint with the smallest sum of squared %s residuals (%.6f; one line for all: %.6f)\n",
			                 f->unweighted ? "absolute (us^2)" : "relative", (f->eager.sse + f->rndv.sse) / f->sse_unit,
			                 f->one.sse / f->sse_unit);
		else if (f->searched_none)
			rc |= ir_sb_addf(o, "# S: the largest size (fewer than 6 sizes: no breakpoint search)\n");
		else
			rc |= ir_sb_addf(o, "# S: given on the command line\n");
		if (f->clamp_o || f->clamp_or)
			rc |= ir_sb_adds(o, "# note: a negative overhead was written as 0: the network alone is slower than measured\n");
		if (f->clamp_O || f->clamp_Or)
			rc |= ir_sb_addf(o, "# note: the measured time per byte is below the network's own; O cannot lower it (%s)\n",
			                 net && net->models_bytes ? "the network model is slower per byte than this machine" : "lower G");
		if (net) {
			rc |= ir_sb_addf(o, "net = %-12s # network parameters the fit assumes\n", net->name);
			if (net->topo[0])
				rc |= ir_sb_addf(o, "topo = %s\n", net->topo);
		}
		rc |= ir_sb_addf(o, "L = %s\n", ir_fmt_time(a, sizeof a, net ? net->p.L : 0));
		if (net) {
			rc |= ir_sb_addf(o, "g = %s\n", ir_fmt_time(a, sizeof a, net->p.g));
			rc |= ir_sb_addf(o, "G = %-14s # per byte\n", ir_fmt_time(a, sizeof a, net->p.G));
		}
		rc |= ir_sb_addf(o, "o = %-14s # CPU overhead per message, eager (fit: %.4g us)\n", fmt_t(a, sizeof a, f->o),
		                 f->o / US_PS);
		rc |= ir_sb_addf(o, "O = %-14s # CPU overhead per byte, eager (fit: %.4g ps)\n",
		                 fmt_t(a, sizeof a, f->eager.slope < 0 ? 0 : f->O), f->O);
		rc |= ir_sb_addf(o, "S = %-14" PRIu64 " # largest eager message, bytes\n", f->S);
		rc |= ir_sb_addf(o, "o_rndv = %-9s # CPU overhead per message, rendezvous (fit: %.4g us)\n",
		                 fmt_t(a, sizeof a, f->o_rndv), f->o_rndv / US_PS);
		rc |= ir_sb_addf(o, "O_rndv = %-9s # CPU overhead per byte, rendezvous (fit: %.4g ps)\n",
		                 fmt_t(a, sizeof a, (f->have_rndv ? f->rndv.slope : f->eager.slope) < 0 ? 0 : f->O_rndv), f->O_rndv);
		/* In the model a sender's per-byte time is off the ping-pong's path (the message
		 * leaves after o): what was measured per byte is all on the path, at the receiver.
		 * Charging it at the sender as well would count it twice whenever both ranks send. */
		rc |= ir_sb_adds(o, "# the per-byte time measured is on the path, which the model puts at the receiver;\n"
		                    "# a sender's own per-byte time is not seen by a ping-pong and is set to 0\n");
		rc |= ir_sb_adds(o, "O_send = 0ps        # CPU overhead per byte at the sender, eager\n");
		rc |= ir_sb_adds(o, "O_send_rndv = 0ps   # CPU overhead per byte at the sender, rendezvous\n");
	}
	if (f->have_pin) {
		rc |= ir_sb_adds(o, "# pinning: first exchange minus the median reused round trip, per size\n");
		rc |= add_fitline(o, "pinning fit", &f->pin, "us");
		if (f->pin_noise)
			rc |= ir_sb_addf(o, "# note: no first-use cost above the noise (fit: pin_a %.4g +- %.4g us, pin_b %.4g +- %.4g ps;"
			                    " neither is positive by three standard errors): both written as 0\n",
			                 f->pin_a / US_PS, f->pin.se_intercept / US_PS, f->pin_b, f->pin.se_slope);
		else if (f->clamp_pa || f->clamp_pb)
			rc |= ir_sb_addf(o, "# note: a negative pinning term was written as 0 (fit: pin_a %.4g us, pin_b %.4g ps)\n",
			                 f->pin_a / US_PS, f->pin_b);
		rc |= ir_sb_addf(o, "pin_a = %-10s # first use of a buffer (fit: %.4g us)\n",
		                 fmt_t(a, sizeof a, f->pin_noise ? 0 : f->pin_a), f->pin_a / US_PS);
		rc |= ir_sb_addf(o, "pin_b = %-10s # per newly used byte (fit: %.4g ps)\n",
		                 fmt_t(a, sizeof a, f->pin_noise ? 0 : f->pin_b), f->pin_b);
	} else {
		rc |= ir_sb_addf(o, "# pinning: not fitted (%s)\n",
		                 d->from_traces ? "fewer than two sizes with a first exchange" : "a TSV has no first-use data");
	}
	rc |= ir_sb_adds(o, "# residuals per point: size_bytes samples real_us model_us residual_us [first_use_extra_us]\n");
	for (size_t i = 0; i < d->np; i++) {
		double m = ir_calib_model_ps(d, f, i), res = (d->p[i].real_ps - m) / US_PS;
		if (fabs(res) < 0.00005)
			res = 0; /* no "-0.0000" from rounding noise */
		rc |= ir_sb_addf(o, "#   %" PRIu64 " %zu %.4f %.4f %+.4f", d->p[i].size, d->p[i].reps, d->p[i].real_ps / US_PS,
		                 m / US_PS, res);
		if (d->p[i].has_first)
			rc |= ir_sb_addf(o, " %.4f", 2 * (d->p[i].first_ps - d->p[i].real_ps) / US_PS);
		rc |= ir_sb_addch(o, '\n');
	}
	return rc ? -1 : 0;
}

int ir_calib_write_table(const ir_calib_data *d, const ir_calib_fit *f, const char *pfx, ir_sb *o)
{
	int rc = 0;
	char a[64], b[64];
	rc |= ir_sb_addf(o, "%s%12s %6s %12s %12s %12s %10s %6s %12s\n", pfx, "size_bytes", "reps", "real_us",
	                 f->model == IR_CALIB_LOGGP ? "-" : "network_us", "model_us", "resid_%", "proto", "first_us");
	for (size_t i = 0; i < d->np; i++) {
		double m = ir_calib_model_ps(d, f, i), real = d->p[i].real_ps;
		double pct = real > 0 ? (real - m) / real * 100 : 0;
		if (fabs(pct) < 0.005)
			pct = 0; /* no "-0.00" from rounding noise */
		rc |= ir_sb_addf(o, "%s%12" PRIu64 " %6zu %12.3f ", pfx, d->p[i].size, d->p[i].reps, real / US_PS);
		if (f->model == IR_CALIB_LOGGP)
			rc |= ir_sb_addf(o, "%12s ", "-");
		else
			rc |= ir_sb_addf(o, "%12.3f ", sim_of(d, f, i) / US_PS);
		rc |= ir_sb_addf(o, "%12.3f %+10.2f %6s ", m / US_PS, pct,
		                 f->model == IR_CALIB_LOGGP ? "-" : i < f->split || !d->p[i].size ? "eager" : "rndv");
		if (d->p[i].has_first)
			rc |= ir_sb_addf(o, "%12.3f\n", d->p[i].first_ps / US_PS);
		else
			rc |= ir_sb_addf(o, "%12s\n", "-");
	}
	if (f->model == IR_CALIB_LOGGP) {
		rc |= ir_sb_addf(o, "%sLogGP: L = %s, o = %s, G = %s per byte; R-squared %.6f over %zu sizes\n", pfx,
		                 fmt_t(a, sizeof a, f->L), fmt_t(b, sizeof b, f->lo), ir_fmt_time(a + 32, 32, to_ps(f->G)),
		                 f->all.r2, f->all.n);
	} else {
		rc |= ir_sb_addf(o, "%seager (size <= %" PRIu64 "): o = %s, O = %s per byte; R-squared %.6f over %zu sizes\n",
		                 pfx, f->S, fmt_t(a, sizeof a, f->o), fmt_t(b, sizeof b, f->eager.slope < 0 ? 0 : f->O),
		                 f->eager.r2, f->eager.n);
		if (f->have_rndv)
			rc |= ir_sb_addf(o, "%srendezvous (size > %" PRIu64 "): o = %s, O = %s per byte; R-squared %.6f over %zu sizes\n",
			                 pfx, f->S, fmt_t(a, sizeof a, f->o_rndv), fmt_t(b, sizeof b, f->rndv.slope < 0 ? 0 : f->O_rndv),
			                 f->rndv.r2, f->rndv.n);
	}
	if (f->have_pin)
		rc |= ir_sb_addf(o, "%spinning: pin_a = %s, pin_b = %s per byte; R-squared %.6f over %zu sizes%s\n", pfx,
		                 fmt_t(a, sizeof a, f->pin_noise ? 0 : f->pin_a), fmt_t(b, sizeof b, f->pin_noise ? 0 : f->pin_b),
		                 f->pin.r2, f->pin.n, f->pin_noise ? " (not above the noise: 0)" : "");
	return rc ? -1 : 0;
}

int ir_calib_plot_script(const ir_calib_data *d, const ir_calib_fit *f, const char *outfile, ir_sb *o, ir_err *e)
{
	size_t len = strlen(outfile);
	int svg, rc = 0, any_first = 0;
	if (len > 4 && !strcmp(outfile + len - 4, ".png"))
		svg = 0;
	else if (len > 4 && !strcmp(outfile + len - 4, ".svg"))
		svg = 1;
	else
		return ir_errf(e, "plot file '%s': expected a name ending in .png or .svg", outfile);
	for (const char *p = outfile; *p; p++)
		if (*p == '\'' || *p == '\n' || *p == '\\')
			return ir_errf(e, "plot file '%s': quotes, backslashes and newlines are not supported in the name", outfile);
	if (svg)
		rc |= ir_sb_adds(o, "set terminal svg size 960,640 dynamic enhanced font 'sans,12'\n");
	else
		rc |= ir_sb_adds(o, "set terminal pngcairo size 960,640 enhanced font 'sans,11'\n");
	rc |= ir_sb_addf(o, "set output '%s'\n", outfile);
	rc |= ir_sb_addf(o, "set title 'calib: one-way time per message size (%s)'\n",
	                 f->model == IR_CALIB_LOGGP ? "LogGP fit" : "fitted overheads per protocol");
	rc |= ir_sb_adds(o, "set xlabel 'message size (bytes)'\nset ylabel 'one-way time (us)'\n"
	                    "set logscale xy\nset format x '%.0s%cB'\nset grid\nset key top left\n");
	/* Points of size 0 cannot sit on a logarithmic axis: they are in the params file's comments. */
	rc |= ir_sb_adds(o, "$real << EOD\n");
	for (size_t i = 0; i < d->np; i++)
		if (d->p[i].size)
			rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, d->p[i].real_ps / US_PS);
	rc |= ir_sb_adds(o, "EOD\n$first << EOD\n");
	for (size_t i = 0; i < d->np; i++)
		if (d->p[i].size && d->p[i].has_first) {
			rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, d->p[i].first_ps / US_PS);
			any_first = 1;
		}
	rc |= ir_sb_adds(o, "EOD\n$eager << EOD\n");
	for (size_t i = 0; i < d->np && i < f->split; i++)
		if (d->p[i].size)
			rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, ir_calib_model_ps(d, f, i) / US_PS);
	rc |= ir_sb_adds(o, "EOD\n$rndv << EOD\n");
	for (size_t i = f->split; i < d->np; i++)
		rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, ir_calib_model_ps(d, f, i) / US_PS);
	rc |= ir_sb_adds(o, "EOD\n$net << EOD\n");
	if (f->model != IR_CALIB_LOGGP)
		for (size_t i = 0; i < d->np; i++)
			if (d->p[i].size && sim_of(d, f, i) > 0)
				rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, sim_of(d, f, i) / US_PS);
	rc |= ir_sb_adds(o, "EOD\n");
	if (f->model != IR_CALIB_LOGGP && f->split < d->np)
		rc |= ir_sb_addf(o, "set arrow from %" PRIu64 ", graph 0 to %" PRIu64 ", graph 1 nohead dt 3 lc rgb 'gray40'\n"
		                    "set label 'S = %" PRIu64 "' at %" PRIu64 ", graph 0.95 right offset -0.5,0\n",
		                 f->S, f->S, f->S, f->S);
	rc |= ir_sb_adds(o, "plot $real using 1:2 with points pt 7 ps 1.2 lc rgb '#1f77b4' title 'measured (median of reuses)'");
	if (any_first)
		rc |= ir_sb_adds(o, ", \\\n  $first using 1:2 with points pt 6 ps 1.2 lc rgb '#d62728' title 'first use'");
	if (f->model == IR_CALIB_LOGGP) {
		rc |= ir_sb_adds(o, ", \\\n  $eager using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'LogGP fit'");
	} else {
		rc |= ir_sb_adds(o, ", \\\n  $eager using 1:2 with linespoints pt 1 lw 2 lc rgb '#2ca02c' title 'model, eager'");
		if (f->split < d->np)
			rc |= ir_sb_adds(o, ", \\\n  $rndv using 1:2 with linespoints pt 1 lw 2 lc rgb '#ff7f0e' title 'model, rendezvous'");
		rc |= ir_sb_adds(o, ", \\\n  $net using 1:2 with lines dt 2 lc rgb 'gray50' title 'network alone (o = O = 0)'");
	}
	rc |= ir_sb_adds(o, "\nset output\n");
	return rc ? ir_errf(e, "out of memory") : 0;
}
