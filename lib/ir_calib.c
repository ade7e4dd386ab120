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
#include "ir_grow.h"
#include "ir_io.h"
#include "ir_net.h"
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
	free(d->raw);
	free(d->gap_ps);
	free(d->step);
	for (int k = 0; k < IR_CS_N; k++)
		free(d->ser[k].p);
	memset(d, 0, sizeof *d);
}

static int add_raw(ir_calib_data *d, uint64_t size, double ps, int kind, int64_t t, ir_err *e)
{
	if (IR_GROW(d->raw, d->nraw + 1, d->capraw))
		return ir_errf(e, "out of memory");
	d->raw[d->nraw] = (ir_calib_raw){ .size = size, .ps = ps, .kind = kind, .t_ps = t, .slowed = 0 };
	d->nraw++;
	return 0;
}

static int add_sample(ir_calib_data *d, uint64_t size, double oneway, double send, int first, int64_t t, ir_err *e)
{
	if (IR_GROW(d->s, d->ns + 1, d->cap))
		return ir_errf(e, "out of memory");
	d->s[d->ns] = (ir_calib_sample){
		.size = size, .oneway_ps = oneway, .send_ps = send, .first = first, .seq = d->ns, .t_ps = t, .slowed = 0
	};
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
	if (add_sample(d, size, real, -1, 0, 0, e))
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
	ir_trace *t = ir_trace_open_file(tf, &to, e);
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
				if (IR_GROW(seen, nseen + 1, capseen)) {
					rc = ir_errf(e, "out of memory");
					break;
				}
				seen[nseen++] = size;
			}
			if (add_sample(d, size, (double)(r.t_ret - t_call) / 2, (double)(t_ret - t_call), first, t_call, e)) {
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
	ir_trace *t = ir_trace_open_file(tf, &to, e);
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

/* ---- netcal traces (formats/calibration.md) ---- */

/* The tag of the first message rank 0 sends to rank 1 (-1: none). netcal's
 * first message is its pool pass, tag IR_NETCAL_TAG_POOL; pingpong uses tag 1. */
static int first_tag(const ir_trace_file *tf, int64_t epoch, int64_t *tag, ir_err *e)
{
	ir_trace_opts to = { epoch, 0 };
	ir_trace *t = ir_trace_open_file(tf, &to, e);
	ir_rec r;
	int rc;
	*tag = -1;
	if (!t)
		return -1;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		int64_t peer;
		if (r.kind == IR_REC_CALL && is_send(r.name) && r.nf >= 6 && ir_tf_int(r.f[3], &peer) == 0 && peer == 1) {
			if (ir_tf_int(r.f[4], tag))
				*tag = -1;
			break;
		}
	}
	ir_trace_free(t);
	return rc < 0 ? -1 : 0;
}

/* count (field ci) * datatype size (field ti) of a record. */
static int rec_bytes(const ir_rec *r, unsigned ci, unsigned ti, uint64_t *bytes, const char *path, ir_err *e)
{
	int64_t count, id, sz, ext;
	char q[48];
	if (r->nf <= ti || ir_tf_int(r->f[ci], &count) || ir_tf_triple(r->f[ti], &id, &sz, &ext) || count < 0 || sz < 0 ||
	    (sz && (uint64_t)count > UINT64_MAX / (uint64_t)sz))
		return ir_errf_at(e, path, r->line, "%s: expected count and datatype 'id,size,extent', found '%s' and '%s'",
		                  r->name, r->nf > ci ? ir_err_quote(q, sizeof q, r->f[ci], strlen(r->f[ci])) : "",
		                  r->nf > ti ? r->f[ti] : "");
	*bytes = (uint64_t)count * (uint64_t)sz;
	if (*bytes > ((uint64_t)1 << 53))
		return ir_errf_at(e, path, r->line, "%s: %" PRIu64 " bytes is out of range (at most 2^53)", r->name, *bytes);
	return 0;
}

static int rec_int(const ir_rec *r, unsigned i, int64_t *v, const char *what, const char *path, ir_err *e)
{
	char q[48];
	if (r->nf <= i || ir_tf_int(r->f[i], v))
		return ir_errf_at(e, path, r->line, "%s: expected %s as an integer in field %u, found '%s'", r->name, what, i + 1,
		                  r->nf > i ? ir_err_quote(q, sizeof q, r->f[i], strlen(r->f[i])) : "");
	return 0;
}

static int rec_times(const ir_rec *r, const char *path, ir_err *e)
{
	if (r->t_call == IR_TIME_NONE || r->t_ret == IR_TIME_NONE)
		return ir_errf_at(e, path, r->line, "%s: expected a call time and a return time, found '-'", r->name);
	if (r->t_ret < r->t_call)
		return ir_errf_at(e, path, r->line, "%s: returns before it is called", r->name);
	return 0;
}

/* Rank 1's ping-pong answers in trace order: the size received and the gap from the
 * receive's return to the call of the answer (0 when the next call is not that answer). */
typedef struct answer {
	uint64_t size;
	int64_t gap;
	int64_t t; /* the exchange phase: the call's time */
} answer;

typedef struct answers {
	answer *a;
	size_t n, cap, next; /* next: the one rank 0's next exchange pairs with */
	/* the exchange phase: each rank's MPI_Sendrecv with the other, in trace order (size in
	 * `size`, duration in ps in `gap`), paired one by one in read_netcal */
	answer *x[2];
	size_t nx[2], capx[2];
	/* rank 1's pulse receives in trace order: the gap from each one's return to its answer's
	 * call (-1: the next call was not that answer) */
	double *pg;
	size_t npg, cappg;
} answers;

/* An MPI_Sendrecv of the exchange phase by `rank` with its partner (both tags
 * IR_NETCAL_TAG_EXCH): 1 and its duration added to ans->x[rank]; 0 when r is another
 * MPI_Sendrecv; -1 on a bad record or out of memory. */
static int exch_rec(answers *ans, int rank, const ir_rec *r, const char *path, ir_err *e)
{
	int64_t peer, src, tag, tag2;
	uint64_t bytes;
	if (rec_int(r, 3, &peer, "dest", path, e) || rec_int(r, 4, &tag, "sendtag", path, e) ||
	    rec_int(r, 8, &src, "source", path, e) || rec_int(r, 9, &tag2, "recvtag", path, e))
		return -1;
	if (peer != 1 - rank || src != 1 - rank || tag != IR_NETCAL_TAG_EXCH || tag2 != IR_NETCAL_TAG_EXCH)
		return 0;
	if (rec_bytes(r, 1, 2, &bytes, path, e) || rec_times(r, path, e))
		return -1;
	if (IR_GROW(ans->x[rank], ans->nx[rank] + 1, ans->capx[rank]))
		return ir_errf(e, "out of memory");
	ans->x[rank][ans->nx[rank]].size = bytes;
	ans->x[rank][ans->nx[rank]].t = r->t_call;
	ans->x[rank][ans->nx[rank]++].gap = r->t_ret - r->t_call;
	return 1;
}

/* ---- the machine's state: netcal's pulses (formats/calibration.md, "Machine state") ---- */

typedef struct pulses {
	ir_calib_pulse *p;
	size_t n, cap;
	double *rt; /* the open pulse's round trips */
	double *ow; /* and their one-way times, rank 1's gap taken off (nrt of them, or none) */
	size_t nrt, caprt, nexch, nown;
	int64_t t0, send_t, t1;
	int have_send;
	size_t need_ctx; /* pulses from this one on have no phase yet */
	const answers *ans; /* rank 1's pulse gaps (ans->pg), the k-th for rank 0's k-th exchange */
	/* rank 0's calls in trace order: the current one's index, the open pulse's first send's
	 * and last receive's, and each closed pulse's ([n]: what the untraced blocks must be
	 * next to, tracer_share) */
	uint64_t seq, send_seq, seq0, seq1;
	uint64_t *sq;
	size_t capsq;
} pulses;

static int pulse_close(pulses *pl, ir_err *e)
{
	if (!pl->nrt)
		return 0;
	if (IR_GROW(pl->p, pl->n + 1, pl->cap))
		return ir_errf(e, "out of memory");
	pl->p[pl->n].t0 = pl->t0;
	pl->p[pl->n].t1 = pl->t1;
	pl->p[pl->n].ctx = 0;
	pl->p[pl->n].ow = pl->nown ? ir_median_inplace(pl->ow, pl->nown) : -1;
	if (IR_GROW(pl->sq, 2 * (pl->n + 1), pl->capsq))
		return ir_errf(e, "out of memory");
	pl->sq[2 * pl->n] = pl->seq0;
	pl->sq[2 * pl->n + 1] = pl->seq1;
	pl->p[pl->n++].v = ir_median_inplace(pl->rt, pl->nrt);
	pl->nrt = 0;
	pl->nown = 0;
	return 0;
}

/* An untraced block of netcal (rank 0's MPI_Iprobe for IR_NETCAL_TAG_BARE, then one for
 * IR_NETCAL_TAG_BARE_END): its span and its exchanges' one-way time (ps). */
typedef struct bare_block {
	int64_t t0, t1;
	uint64_t s0, s1; /* its probes' places among rank 0's calls (pulses.seq) */
	double ow;
} bare_block;

typedef struct bare_blocks {
	bare_block *b;
	size_t n, cap;
	size_t dropped;  /* a flush of the tracer's buffer fell inside */
	int64_t open;    /* the opening probe's return, or -1 */
	uint64_t open_seq;
	double self_ps;  /* the tracer's mean time after a return (the opening probe's) */
} bare_blocks;

/* An MPI_Iprobe record of rank 0: 1 when it is one of an untraced block's two probes (the
 * block is added when it closes one), 0 when not, -1 on a bad record or out of memory. */
static int bare_rec(bare_blocks *bb, const ir_rec *r, uint64_t seq, const char *path, ir_err *e)
{
	int64_t src, tag;
	if (strcmp(r->name, "MPI_Iprobe"))
		return 0;
	if (rec_int(r, 0, &src, "source", path, e) || rec_int(r, 1, &tag, "tag", path, e))
		return -1;
	if (src != 1 || (tag != IR_NETCAL_TAG_BARE && tag != IR_NETCAL_TAG_BARE_END))
		return 0;
	if (rec_times(r, path, e))
		return -1;
	if (tag == IR_NETCAL_TAG_BARE) {
		bb->open = r->t_ret;
		bb->open_seq = seq;
		return 1;
	}
	if (bb->open < 0)
		return 1;
	if (r->tracer_ps > 0 || r->t_call < bb->open) {
		bb->dropped++; /* the buffer was written out inside the block */
	} else {
		double span = (double)(r->t_call - bb->open) - (bb->self_ps > 0 ? bb->self_ps : 0);
		if (IR_GROW(bb->b, bb->n + 1, bb->cap))
			return ir_errf(e, "out of memory");
		bb->b[bb->n].t0 = bb->open;
		bb->b[bb->n].t1 = r->t_call;
		bb->b[bb->n].s0 = bb->open_seq;
		bb->b[bb->n].s1 = seq;
		bb->b[bb->n++].ow = (span > 0 ? span : 0) / (2.0 * IR_NETCAL_BARE_N);
	}
	bb->open = -1;
	return 1;
}

/* Rank 0's record r: 1 when it is one of a pulse's calls (an MPI_Send to rank 1 or an
 * MPI_Recv from it with tag IR_NETCAL_TAG_PULSE), 0 when not (which closes an open pulse),
 * -1 on a bad record or out of memory. */
static int pulse_rec(pulses *pl, const ir_rec *r, const char *path, ir_err *e)
{
	int send = !strcmp(r->name, "MPI_Send"), recv = !strcmp(r->name, "MPI_Recv");
	int64_t peer, tag;
	if (send || recv) {
		if (rec_int(r, 3, &peer, send ? "dest" : "source", path, e) || rec_int(r, 4, &tag, "tag", path, e))
			return -1;
		if (peer == 1 && tag == IR_NETCAL_TAG_PULSE) {
			if (rec_times(r, path, e))
				return -1;
			if (send) {
				pl->send_t = r->t_call;
				pl->send_seq = pl->seq;
				pl->have_send = 1;
			} else if (pl->have_send) {
				size_t cap = pl->caprt;
				double rt = (double)(r->t_ret - pl->send_t);
				if (IR_GROW(pl->rt, pl->nrt + 1, pl->caprt))
					return ir_errf(e, "out of memory");
				if (pl->caprt != cap) {
					double *ow = realloc(pl->ow, pl->caprt * sizeof *ow);
					if (!ow)
						return ir_errf(e, "out of memory");
					pl->ow = ow;
				}
				if (!pl->nrt) {
					pl->t0 = pl->send_t;
					pl->seq0 = pl->send_seq;
				}
				pl->seq1 = pl->seq;
				/* its one-way time: rank 1's answer gap off, as a ping-pong's (read_netcal0) */
				if (pl->ans && pl->nexch < pl->ans->npg && pl->ans->pg[pl->nexch] >= 0 &&
				    pl->ans->pg[pl->nexch] <= rt)
					pl->ow[pl->nown++] = (rt - pl->ans->pg[pl->nexch]) / 2;
				pl->nexch++;
				pl->rt[pl->nrt++] = rt;
				pl->t1 = r->t_ret;
				pl->have_send = 0;
			}
			return 1;
		}
	}
	pl->have_send = 0;
	if (pulse_close(pl, e))
		return -1;
	/* the phase of the pulses before: the first call after them that is not a plan */
	if (pl->need_ctx < pl->n) {
		int64_t ctag = -1;
		uint64_t h = 14695981039346656037ULL; /* FNV-1a of the name, then the tag */
		if ((send || recv || !strcmp(r->name, "MPI_Sendrecv")) && rec_int(r, 4, &ctag, "tag", path, e))
			return -1;
		if ((send || recv) && ctag == IR_NETCAL_TAG_PLAN)
			return 0;
		if (!strcmp(r->name, "MPI_Iprobe")) {
			int64_t ptag;
			/* an untraced block's probes belong to the next pulse, not to a phase */
			if (rec_int(r, 1, &ptag, "tag", path, e))
				return -1;
			if (ptag == IR_NETCAL_TAG_BARE || ptag == IR_NETCAL_TAG_BARE_END)
				return 0;
		}
		for (const char *c = r->name; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		h = (h ^ (uint64_t)ctag) * 1099511628211ULL;
		for (; pl->need_ctx < pl->n; pl->need_ctx++)
			pl->p[pl->need_ctx].ctx = h;
	}
	return 0;
}

/* A measurement at t lies between two pulses that both found the machine slowed. */
static int slowed_at(const ir_calib_pulse *p, size_t n, const unsigned char *slow, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first pulse that ends after t */
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid].t1 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && lo < n && slow[lo - 1] && slow[lo];
}

typedef struct state_key {
	uint64_t a, b; /* series and size */
	size_t i;      /* the measurement's index */
} state_key;

static int cmp_state_key(const void *x, const void *y)
{
	const state_key *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* keep[k.i] for the n keys: a series and size of which fewer than IR_CALIB_STATE_MIN_KEEP
 * would remain (and not all) is kept whole; returns how many were. */
static size_t keep_groups(state_key *k, size_t n, unsigned char *keep)
{
	size_t whole = 0;
	qsort(k, n, sizeof *k, cmp_state_key);
	for (size_t i = 0, j; i < n; i = j) {
		size_t kept = 0;
		for (j = i; j < n && k[j].a == k[i].a && k[j].b == k[i].b; j++)
			kept += keep[k[j].i];
		if (kept < IR_CALIB_STATE_MIN_KEEP && kept < j - i) {
			for (size_t m = i; m < j; m++)
				keep[k[m].i] = 1;
			whole++;
		}
	}
	return whole;
}

/* Moves the n elements of arr (each `size` bytes) with keep[i] (or all with keep_all) to the
 * front, in order; returns how many have keep[i] 0. */
static size_t compact(void *arr, size_t size, size_t n, const unsigned char *keep, int keep_all)
{
	char *a = arr;
	size_t o = 0, aside = 0;
	for (size_t i = 0; i < n; i++) {
		aside += !keep[i];
		if (keep[i] || keep_all) {
			if (o != i)
				memcpy(a + o * size, a + i * size, size);
			o++;
		}
	}
	return aside;
}

/* (ir_calib.h) */
int ir_calib_state_filter(ir_calib_data *d, const ir_calib_pulse *p, size_t np, size_t r0, size_t s0, size_t st0,
                          ir_err *e)
{
	ir_calib_state *st = &d->state;
	size_t nr = d->nraw - r0, ns = d->ns - s0, nt = d->nstep - st0, slowed = 0;
	unsigned char *slow = NULL, *judged = NULL;
	double *v = NULL, ref, own;
	int rc = -1;
	st->runs++;
	if (np < IR_CALIB_STATE_MIN_PULSES)
		return 0;
	slow = malloc(np);
	v = malloc(np * sizeof *v);
	judged = malloc(np);
	if (!slow || !v || !judged) {
		ir_errf(e, "out of memory");
		goto out;
	}
	/* each phase's pulses against their own 10th percentile: a pulse's round trip depends
	 * on what the ranks did before it, not only on the machine */
	memset(slow, 0, np);
	memset(judged, 0, np); /* the pulses judged so far */
	for (size_t i = 0; i < np; i++) {
		size_t m = 0;
		if (judged[i])
			continue;
		for (size_t j = i; j < np; j++)
			if (p[j].ctx == p[i].ctx) {
				v[m++] = p[j].v;
				judged[j] = 1;
			}
		if (m < IR_CALIB_STATE_MIN_PULSES)
			continue;
		(void)ir_median_inplace(v, m); /* sorts v */
		own = ref = ir_quantile_sorted(v, m, IR_CALIB_STATE_REF_Q);
		/* a phase slowed all through has a slowed 10th percentile: with a reference from
		 * elsewhere, its pulses are judged against the smaller of the two */
		if (d->state_ref_ps > 0 && ref > d->state_ref_ps) {
			if (ref > d->state_ref_ps * (1 + IR_CALIB_STATE_SLOW_PCT / 100))
				st->phases_slow++;
			ref = d->state_ref_ps;
		}
		for (size_t j = i; j < np; j++)
			if (p[j].ctx == p[i].ctx)
				slow[j] = p[j].v > ref * (1 + IR_CALIB_STATE_SLOW_PCT / 100);
		if (!st->phases || own < st->ref_min_ps)
			st->ref_min_ps = own;
		if (!st->phases || own > st->ref_max_ps)
			st->ref_max_ps = own;
		st->phases++;
		st->pulses_judged += m;
	}
	for (size_t i = 0; i < np; i++)
		if (slow[i])
			v[slowed++] = p[i].v;
	if (slowed)
		st->slow_med_ps = ir_median_inplace(v, slowed);
	st->runs_pulsed++;
	st->pulses += np;
	st->slowed += slowed;
	st->measured += nr + ns + nt;
	/* marked now, removed over the whole pool by ir_calib_state_apply (rule 5 counts what
	 * remains of a series and size in all runs together) */
	for (size_t i = 0; i < nr; i++)
		d->raw[r0 + i].slowed = slowed_at(p, np, slow, d->raw[r0 + i].t_ps);
	for (size_t i = 0; i < ns; i++)
		d->s[s0 + i].slowed = slowed_at(p, np, slow, d->s[s0 + i].t_ps);
	for (size_t i = 0; i < nt; i++)
		d->step[st0 + i].slowed = slowed_at(p, np, slow, d->step[st0 + i].t_ps);
	rc = 0;
out:
	free(slow);
	free(v);
	free(judged);
	return rc;
}

/* (ir_calib.h) */
int ir_calib_state_apply(ir_calib_data *d, ir_err *e)
{
	ir_calib_state *st = &d->state;
	size_t nmax = d->nraw > d->ns ? d->nraw : d->ns, aside;
	unsigned char *keep;
	state_key *k;
	if (d->state_applied)
		return 0;
	d->state_applied = 1;
	nmax = nmax > d->nstep ? nmax : d->nstep;
	keep = malloc(nmax ? nmax : 1);
	k = malloc((nmax ? nmax : 1) * sizeof *k);
	if (!keep || !k) {
		free(keep);
		free(k);
		return ir_errf(e, "out of memory");
	}
	/* raw measurements, by series and size */
	for (size_t i = 0; i < d->nraw; i++) {
		keep[i] = !d->raw[i].slowed;
		k[i] = (state_key){ (uint64_t)d->raw[i].kind, d->raw[i].size, i };
	}
	st->groups_whole += keep_groups(k, d->nraw, keep);
	aside = compact(d->raw, sizeof *d->raw, d->nraw, keep, d->keep_slowed);
	if (!d->keep_slowed)
		d->nraw -= aside;
	st->set_aside += aside;
	/* the classic fit's samples (reused and first exchanges) */
	for (size_t i = 0; i < d->ns; i++) {
		keep[i] = !d->s[i].slowed;
		k[i] = (state_key){ (uint64_t)d->s[i].first, d->s[i].size, i };
	}
	st->groups_whole += keep_groups(k, d->ns, keep);
	aside = compact(d->s, sizeof *d->s, d->ns, keep, d->keep_slowed);
	if (!d->keep_slowed)
		d->ns -= aside;
	st->set_aside += aside;
	/* the train phase's sends, by gap and size */
	for (size_t i = 0; i < d->nstep; i++) {
		const struct ir_calib_step *x = &d->step[i];
		keep[i] = !x->slowed;
		k[i] = (state_key){ (uint64_t)x->after_send << 8 | x->j, x->size, i };
	}
	st->groups_whole += keep_groups(k, d->nstep, keep);
	aside = compact(d->step, sizeof *d->step, d->nstep, keep, d->keep_slowed);
	if (!d->keep_slowed)
		d->nstep -= aside;
	st->set_aside += aside;
	free(keep);
	free(k);
	return 0;
}

/* Rank 0: the ping-pongs (send to rank 1 directly followed by the receive of
 * the answer with the same tag), the self copies and the reductions. The k-th
 * exchange is the k-th of rank 1's answers (netcal's exchanges follow each other):
 * its gap is taken off the round trip (formats/calibration.md, "The answer's gap"). */
static int read_netcal0(ir_calib_data *d, const ir_trace_file *tf, int64_t epoch, answers *ans, uint64_t *nsent,
                        pulses *pl, bare_blocks *bb, ir_err *e)
{
	ir_trace_opts to = { epoch, 0 };
	ir_trace *t = ir_trace_open_file(tf, &to, e);
	ir_rec r;
	int rc;
	int64_t ptag = -1, t_call = 0, t_ret = 0, ack_ret = -1;
	uint64_t psize = 0;
	const char *path = tf->path;
	/* the nbc phase: the open MPI_Ibarrier's request and duration; the durations of the
	 * MPI_Barrier since the last MPI_Ibarrier count once the next one shows they lie inside
	 * the phase (netcal makes IR_NETCAL_NBC_BLOCK in a row; any more are not its) */
	char ireq[32] = "";
	int64_t idur = -1, it = 0, bdur[IR_NETCAL_NBC_BLOCK], bt[IR_NETCAL_NBC_BLOCK];
	unsigned nbar = 0;
	/* the train phase: the call before (-1: none of the phase; 0: the answer; 1 + j: the
	 * first send at gap j) and its return */
	int step = -1, pstep;
	int64_t step_ret = 0, pstep_ret;
	if (!t)
		return -1;
	bb->self_ps = ir_trace_self_ps(t); /* the opening probe's own time lies in the block */
	*nsent = 0;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		int64_t peer, tag, tag2;
		uint64_t bytes;
		int64_t pending = ptag, round = ack_ret;
		if (r.kind != IR_REC_CALL)
			continue;
		ptag = -1;
		ack_ret = -1;
		pstep = step;
		pstep_ret = step_ret;
		step = -1;
		step_ret = r.t_ret;
		{
			int x;
			pl->seq++;
			x = pulse_rec(pl, &r, path, e);
			if (!x)
				x = bare_rec(bb, &r, pl->seq, path, e);
			if (x < 0)
				goto bad;
			if (x)
				continue;
		}
		if (is_send(r.name)) {
			if (rec_int(&r, 3, &peer, "dest", path, e) || rec_int(&r, 4, &tag, "tag", path, e))
				goto bad;
			if (peer == 1 && !strcmp(r.name, "MPI_Send") &&
			    ((tag >= IR_NETCAL_TAG_TRAIN_RECV && tag < IR_NETCAL_TAG_TRAIN_RECV + IR_NETCAL_TRAIN_GAPS) ||
			     (tag >= IR_NETCAL_TAG_TRAIN_SEND && tag < IR_NETCAL_TAG_TRAIN_SEND + IR_NETCAL_TRAIN_GAPS))) {
				/* a train's send: counted only right after the call netcal makes before it */
				int after_send = tag >= IR_NETCAL_TAG_TRAIN_SEND;
				int j = (int)(tag - (after_send ? IR_NETCAL_TAG_TRAIN_SEND : IR_NETCAL_TAG_TRAIN_RECV));
				if (rec_bytes(&r, 1, 2, &bytes, path, e) || rec_times(&r, path, e))
					goto bad;
				if (!after_send)
					step = 1 + j;
				if (pstep == (after_send ? 1 + j : 0) && r.t_call >= pstep_ret) {
					if (IR_GROW(d->step, d->nstep + 1, d->stepcap)) {
						ir_errf(e, "out of memory");
						goto bad;
					}
					d->step[d->nstep].size = bytes;
					d->step[d->nstep].after_send = (uint8_t)after_send;
					d->step[d->nstep].j = (uint8_t)j;
					d->step[d->nstep].gap_ps = (double)(r.t_call - pstep_ret);
					d->step[d->nstep].t_ps = r.t_call;
					d->step[d->nstep].slowed = 0;
					d->step[d->nstep++].dur_ps = (double)(r.t_ret - r.t_call);
				}
				continue;
			}
			if (peer == 1 && (tag == IR_NETCAL_TAG_LATE || tag == IR_NETCAL_TAG_PROGRESS)) {
				/* measured from the round's start, the return of the previous round's
				 * answer, where there is one: a rendezvous send then lasts at least the
				 * receiver's wait less a one-way time however late rank 0 starts it
				 * (formats/calibration.md, "S") */
				if (rec_bytes(&r, 1, 2, &bytes, path, e) || rec_times(&r, path, e))
					goto bad;
				if (round < 0 || round > r.t_call)
					round = r.t_call;
				if (add_raw(d, bytes, (double)(r.t_ret - round),
				            tag == IR_NETCAL_TAG_LATE ? IR_CS_LATE_SEND : IR_CS_PROG_SEND, round, e))
					goto bad;
				continue;
			}
			if (peer != 1 || (tag != IR_NETCAL_TAG_WARM && tag != IR_NETCAL_TAG_COLD && tag != IR_NETCAL_TAG_FIRST))
				continue;
			if (rec_bytes(&r, 1, 2, &psize, path, e) || rec_times(&r, path, e))
				goto bad;
			ptag = tag;
			t_call = r.t_call;
			t_ret = r.t_ret;
			(*nsent)++;
		} else if (!strcmp(r.name, "MPI_Recv")) {
			if (rec_int(&r, 3, &peer, "source", path, e) || rec_int(&r, 4, &tag, "tag", path, e))
				goto bad;
			if (peer == 1 && tag == IR_NETCAL_TAG_LATE_ACK && r.t_ret != IR_TIME_NONE) {
				ack_ret = r.t_ret;
				continue;
			}
			if (peer == 1 && tag == IR_NETCAL_TAG_TRAIN_ACK) {
				if (rec_times(&r, path, e))
					goto bad;
				step = 0;
				continue;
			}
			if (pending < 0)
				continue;
			if ((peer != 1 && peer != -1) || tag != pending)
				continue;
			if (rec_times(&r, path, e))
				goto bad;
			if (r.t_ret < t_call) {
				ir_errf_at(e, path, r.line, "MPI_Recv: returns before the send it answers was called");
				goto bad;
			}
			{
				int64_t gap = 0;
				double ow;
				int kind;
				if (ans->next < ans->n && ans->a[ans->next].size == psize) {
					gap = ans->a[ans->next].gap;
					if (IR_GROW(d->gap_ps, d->gap_n + 1, d->gap_cap)) {
						ir_errf(e, "out of memory");
						goto bad;
					}
					d->gap_ps[d->gap_n++] = (double)gap;
				} else {
					d->gap_miss++;
				}
				ans->next++;
				if (gap > r.t_ret - t_call)
					gap = r.t_ret - t_call;
				ow = (double)(r.t_ret - t_call - gap) / 2;
				kind = pending == IR_NETCAL_TAG_WARM ? IR_CS_WARM : pending == IR_NETCAL_TAG_COLD ? IR_CS_COLD : IR_CS_FIRST;
				if (add_raw(d, psize, ow, kind, t_call, e))
					goto bad;
				if (kind == IR_CS_WARM && (add_raw(d, psize, (double)(t_ret - t_call), IR_CS_SEND, t_call, e) ||
				                           add_sample(d, psize, ow, (double)(t_ret - t_call), 0, t_call, e)))
					goto bad;
				if (kind == IR_CS_FIRST && add_sample(d, psize, ow, (double)(t_ret - t_call), 1, t_call, e))
					goto bad;
			}
		} else if (!strcmp(r.name, "MPI_Sendrecv")) {
			int x = exch_rec(ans, 0, &r, path, e);
			if (x < 0)
				goto bad;
			if (x)
				continue;
			if (rec_int(&r, 3, &peer, "dest", path, e) || rec_int(&r, 4, &tag, "sendtag", path, e) ||
			    rec_int(&r, 9, &tag2, "recvtag", path, e))
				goto bad;
			if (peer != 0 || tag != IR_NETCAL_TAG_SELF || tag2 != IR_NETCAL_TAG_SELF)
				continue;
			if (rec_int(&r, 8, &peer, "source", path, e))
				goto bad;
			if (peer != 0)
				continue;
			if (rec_bytes(&r, 1, 2, &bytes, path, e) || rec_times(&r, path, e) ||
			    add_raw(d, bytes, (double)(r.t_ret - r.t_call), IR_CS_SELF, r.t_call, e))
				goto bad;
		} else if (!strcmp(r.name, "MPI_Iprobe")) {
			int64_t flag, n = 1;
			if (rec_int(&r, 1, &tag, "tag", path, e))
				goto bad;
			if (tag != IR_NETCAL_TAG_POLL)
				continue;
			if (rec_int(&r, 3, &flag, "flag", path, e) || (r.nf > 5 && rec_int(&r, 5, &n, "n", path, e)) ||
			    rec_times(&r, path, e))
				goto bad;
			if (n < 1) {
				ir_errf_at(e, path, r.line, "MPI_Iprobe: invalid repeat count %" PRId64 " (expected 1 or more)", n);
				goto bad;
			}
			if (!flag && add_raw(d, 0, (double)(r.t_ret - r.t_call) / (double)n, IR_CS_POLL, r.t_call, e))
				goto bad;
		} else if (!strcmp(r.name, "MPI_Ibarrier")) {
			if (r.nf < 2) {
				ir_errf_at(e, path, r.line, "MPI_Ibarrier: expected a communicator and a request, found %u field%s",
				           r.nf, r.nf == 1 ? "" : "s");
				goto bad;
			}
			if (rec_times(&r, path, e))
				goto bad;
			for (unsigned k = 0; k < nbar; k++)
				if (add_raw(d, 0, (double)bdur[k], IR_CS_BARRIER, bt[k], e))
					goto bad;
			nbar = 0;
			snprintf(ireq, sizeof ireq, "%s", r.f[1]);
			idur = r.t_ret - r.t_call;
			it = r.t_call;
		} else if (!strcmp(r.name, "MPI_Barrier")) {
			if (rec_times(&r, path, e))
				goto bad;
			if (ireq[0] && nbar < IR_NETCAL_NBC_BLOCK) {
				bt[nbar] = r.t_call;
				bdur[nbar++] = r.t_ret - r.t_call;
			}
		} else if (!strcmp(r.name, "MPI_Wait")) {
			if (idur < 0 || r.nf < 1 || strcmp(r.f[0], ireq))
				continue;
			if (rec_times(&r, path, e) || add_raw(d, 0, (double)(idur + (r.t_ret - r.t_call)), IR_CS_NBC, it, e))
				goto bad;
			idur = -1;
		} else if (!strcmp(r.name, "MPI_Alltoall")) {
			/* the self phase's library copy: on a communicator of one rank (MPI_COMM_SELF) */
			int64_t id, me, np;
			if (r.nf < 7 || ir_tf_triple(r.f[6], &id, &me, &np)) {
				ir_errf_at(e, path, r.line, "MPI_Alltoall: expected a communicator 'id,rank,size' in field 7, found '%s'",
				           r.nf > 6 ? r.f[6] : "");
				goto bad;
			}
			if (np != 1)
				continue;
			if (rec_bytes(&r, 1, 2, &bytes, path, e) || rec_times(&r, path, e) ||
			    add_raw(d, bytes, (double)(r.t_ret - r.t_call), IR_CS_LCOPY, r.t_call, e))
				goto bad;
		} else if (!strcmp(r.name, "MPI_Reduce_local")) {
			if (rec_bytes(&r, 2, 3, &bytes, path, e) || rec_times(&r, path, e) ||
			    add_raw(d, bytes, (double)(r.t_ret - r.t_call), IR_CS_REDUCE, r.t_call, e))
				goto bad;
		}
	}
	ir_trace_free(t);
	return rc < 0 || pulse_close(pl, e) ? -1 : 0;
bad:
	ir_trace_free(t);
	return -1;
}

/* Rank 1: the late receiver's receives; the ping-pong's receives are counted, and each
 * one's answer gap goes to `ans` in trace order (formats/calibration.md, "The answer's gap"). */
static int read_netcal1(ir_calib_data *d, const ir_trace_file *tf, int64_t epoch, answers *ans, uint64_t *nrecv,
                        ir_err *e)
{
	ir_trace_opts to = { epoch, 0 };
	ir_trace *t = ir_trace_open_file(tf, &to, e);
	ir_rec r;
	int rc;
	const char *path = tf->path;
	int64_t ptag = -1, precv = 0; /* the receive just before, if a ping-pong's: its tag and return */
	int64_t pulse_ret = -1;       /* the receive just before, if a pulse's: its return */
	if (!t)
		return -1;
	*nrecv = 0;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		int64_t peer, tag, pending = ptag, pret = pulse_ret;
		uint64_t bytes;
		if (r.kind != IR_REC_CALL)
			continue;
		ptag = -1;
		pulse_ret = -1;
		if (!strcmp(r.name, "MPI_Recv") || !strcmp(r.name, "MPI_Send")) {
			int send = r.name[4] == 'S';
			if (rec_int(&r, 3, &peer, send ? "dest" : "source", path, e) || rec_int(&r, 4, &tag, "tag", path, e))
				goto bad;
			if (peer == 0 && tag == IR_NETCAL_TAG_PULSE) {
				/* a pulse's receive, or its answer: the gap between the two (read_netcal0's
				 * pulses take it off their round trips) */
				if (rec_times(&r, path, e))
					goto bad;
				if (!send) {
					if (IR_GROW(ans->pg, ans->npg + 1, ans->cappg)) {
						ir_errf(e, "out of memory");
						goto bad;
					}
					ans->pg[ans->npg++] = -1;
					pulse_ret = r.t_ret;
				} else if (pret >= 0 && r.t_call >= pret) {
					ans->pg[ans->npg - 1] = (double)(r.t_call - pret);
				}
				continue;
			}
		}
		if (pending >= 0 && is_send(r.name)) {
			/* the answer: the next call, a send to rank 0 with the receive's tag */
			if (rec_int(&r, 3, &peer, "dest", path, e) || rec_int(&r, 4, &tag, "tag", path, e) || rec_times(&r, path, e))
				goto bad;
			if (peer == 0 && tag == pending && r.t_call >= precv)
				ans->a[ans->n - 1].gap = r.t_call - precv;
			continue;
		}
		if (!strcmp(r.name, "MPI_Sendrecv")) {
			if (exch_rec(ans, 1, &r, path, e) < 0)
				goto bad;
			continue;
		}
		if (strcmp(r.name, "MPI_Recv"))
			continue;
		if (rec_int(&r, 3, &peer, "source", path, e) || rec_int(&r, 4, &tag, "tag", path, e))
			goto bad;
		if (peer != 0 && peer != -1)
			continue;
		if (tag == IR_NETCAL_TAG_WARM || tag == IR_NETCAL_TAG_COLD || tag == IR_NETCAL_TAG_FIRST) {
			(*nrecv)++;
			if (rec_bytes(&r, 1, 2, &bytes, path, e) || rec_times(&r, path, e))
				goto bad;
			if (IR_GROW(ans->a, ans->n + 1, ans->cap)) {
				ir_errf(e, "out of memory");
				goto bad;
			}
			ans->a[ans->n].size = bytes;
			ans->a[ans->n].gap = 0;
			ans->n++;
			ptag = tag;
			precv = r.t_ret;
			continue;
		}
		if (tag != IR_NETCAL_TAG_LATE)
			continue;
		if (rec_bytes(&r, 1, 2, &bytes, path, e) || rec_times(&r, path, e) ||
		    add_raw(d, bytes, (double)(r.t_ret - r.t_call), IR_CS_LATE, r.t_call, e))
			goto bad;
	}
	ir_trace_free(t);
	return rc < 0 ? -1 : 0;
bad:
	ir_trace_free(t);
	return -1;
}

static size_t count_kind(const ir_calib_data *d, int kind)
{
	size_t n = 0;
	for (size_t i = 0; i < d->nraw; i++)
		n += d->raw[i].kind == kind;
	return n;
}

/* The exchange phase: the two ranks' MPI_Sendrecv are the same exchanges in the same order.
 * Each exchange's time is the shorter of the two calls: the rank that called later waited
 * for nothing but the exchange, the other also for its partner to arrive
 * (formats/calibration.md, "The exchange"). */
static int pair_exchanges(ir_calib_data *d, const ir_trace_files *tf, const answers *ans, ir_err *e)
{
	if (ans->nx[0] != ans->nx[1])
		return ir_errf(e, "%s: rank 0 makes %zu exchanges with rank 1 (MPI_Sendrecv, tag %d), rank 1 makes %zu (not "
		                  "netcal's exchange phase)",
		               tf->f[0].path, ans->nx[0], IR_NETCAL_TAG_EXCH, ans->nx[1]);
	for (size_t i = 0; i < ans->nx[0]; i++) {
		const answer *a = &ans->x[0][i], *b = &ans->x[1][i];
		if (a->size != b->size)
			return ir_errf(e, "%s: exchange %zu (MPI_Sendrecv, tag %d) is of %" PRIu64 " bytes on rank 0 and %" PRIu64
			                  " on rank 1 (not netcal's exchange phase)",
			               tf->f[0].path, i + 1, IR_NETCAL_TAG_EXCH, a->size, b->size);
		if (add_raw(d, a->size, (double)(a->gap < b->gap ? a->gap : b->gap), IR_CS_EXCH, a->t, e) ||
		    add_raw(d, a->size, (double)a->gap, IR_CS_XRANK, a->t, e) ||
		    add_raw(d, b->size, (double)b->gap, IR_CS_XRANK, a->t, e))
			return -1;
	}
	return 0;
}

/* What a time measured in the traces holds of the tracer's own work, in units of the
 * tracer's share of a message's one-way time: a one-way time holds one (the send's and the
 * receive's share), a call's duration half of it, the nbc phase's two calls one; the other
 * series are not times the model takes (formats/calibration.md, "The tracer's share"). */
static double tracer_units(int kind)
{
	switch (kind) {
	case IR_CS_WARM:
	case IR_CS_COLD:
	case IR_CS_FIRST:
	case IR_CS_NBC:
		return 1;
	case IR_CS_SEND:
	case IR_CS_LATE:
	case IR_CS_SELF:
	case IR_CS_REDUCE:
	case IR_CS_POLL:
	case IR_CS_BARRIER:
	case IR_CS_LCOPY:
	case IR_CS_EXCH:
	case IR_CS_XRANK:
		return 0.5;
	default:
		return 0;
	}
}

static double less(double v, double by) { return v > by ? v - by : 0; }

/* The tracer's share of one run (formats/calibration.md, "The tracer's share"): each pulse
 * against the mean of the untraced blocks right before and right after it, and, when the
 * median difference is above 0 with 95 % confidence over enough pairs, that difference taken
 * off the run's measurements (raw from r0, samples from s0) unless keep_tracer. */
static int tracer_share(ir_calib_data *d, const pulses *pl, const bare_blocks *bb, size_t r0, size_t s0, size_t st0,
                        ir_err *e)
{
	ir_calib_tracer *tr = &d->tracer;
	ir_calib_tracer_run run;
	double *dv, *bv, *tv;
	size_t n = 0, k = 0;
	tr->runs++;
	if (!bb->n && !bb->dropped)
		return 0; /* a trace of netcal before the blocks */
	memset(&run, 0, sizeof run);
	run.run = tr->runs;
	run.dropped = bb->dropped;
	if (!(dv = malloc((pl->n + 1) * 3 * sizeof *dv)))
		return ir_errf(e, "out of memory");
	bv = dv + pl->n + 1;
	tv = bv + pl->n + 1;
	for (size_t j = 0; j < pl->n; j++) {
		const ir_calib_pulse *p = &pl->p[j];
		const bare_block *b, *a;
		/* pulses and blocks are in trace order: the block whose closing probe is the call
		 * right before the pulse's first, and the one whose opening probe is the call right
		 * after its last (a block with a flush in it is missing: its pulse goes unpaired) */
		while (k < bb->n && bb->b[k].s1 < pl->sq[2 * j])
			k++;
		if (!k || k >= bb->n || p->ow < 0)
			continue;
		b = &bb->b[k - 1];
		a = &bb->b[k];
		if (b->s1 + 1 != pl->sq[2 * j] || a->s0 != pl->sq[2 * j + 1] + 1)
			continue;
		bv[n] = (b->ow + a->ow) / 2;
		dv[n] = p->ow - bv[n];
		tv[n++] = p->ow;
	}
	run.pairs = n;
	if (n) {
		double h = 0.98 * sqrt((double)n); /* the median's 95 % interval: order statistics n/2 -+ 0.98 sqrt(n) */
		double lo = floor((double)n / 2 - h), hi = ceil((double)n / 2 + h);
		ir_sort_doubles(dv, n);
		run.med_ps = ir_quantile_sorted(dv, n, 0.5);
		run.lo_ps = dv[lo < 0 ? 0 : (size_t)lo];
		run.hi_ps = dv[hi > (double)(n - 1) ? n - 1 : (size_t)hi];
		run.bare_ps = ir_median_inplace(bv, n);
		run.traced_ps = ir_median_inplace(tv, n);
	}
	free(dv);
	run.applied = !d->keep_tracer && n >= IR_CALIB_TRACER_MIN_PAIRS && run.lo_ps > 0 && run.med_ps > 0;
	if (run.applied) {
		for (size_t i = r0; i < d->nraw; i++)
			d->raw[i].ps = less(d->raw[i].ps, tracer_units(d->raw[i].kind) * run.med_ps);
		for (size_t i = st0; i < d->nstep; i++) /* the train's sends: single calls */
			d->step[i].dur_ps = less(d->step[i].dur_ps, 0.5 * run.med_ps);
		for (size_t i = s0; i < d->ns; i++) {
			d->s[i].oneway_ps = less(d->s[i].oneway_ps, run.med_ps);
			if (d->s[i].send_ps >= 0)
				d->s[i].send_ps = less(d->s[i].send_ps, run.med_ps / 2);
		}
		tr->runs_applied++;
	}
	if (tr->runs_blocks < IR_CALIB_TRACER_RUNS)
		tr->run[tr->runs_blocks] = run;
	tr->runs_blocks++;
	return 0;
}

static int read_netcal(ir_calib_data *d, const ir_trace_files *tf, int64_t epoch, ir_err *e)
{
	uint64_t nsent, nrecv;
	/* counts before this run: a run pooled after others must have its own phases */
	size_t warm0 = count_kind(d, IR_CS_WARM), late0 = count_kind(d, IR_CS_LATE);
	size_t r0 = d->nraw, s0 = d->ns, st0 = d->nstep;
	answers ans;
	pulses pl;
	bare_blocks bb;
	int rc;
	memset(&ans, 0, sizeof ans);
	memset(&pl, 0, sizeof pl);
	memset(&bb, 0, sizeof bb);
	bb.open = -1;
	pl.ans = &ans;
	d->netcal = 1;
	/* rank 1 first: its answers' gaps come off rank 0's round trips */
	rc = read_netcal1(d, &tf->f[1], epoch, &ans, &nrecv, e) ||
	     read_netcal0(d, &tf->f[0], epoch, &ans, &nsent, &pl, &bb, e) || pair_exchanges(d, tf, &ans, e) ||
	     tracer_share(d, &pl, &bb, r0, s0, st0, e) || ir_calib_state_filter(d, pl.p, pl.n, r0, s0, st0, e);
	free(ans.a);
	free(ans.x[0]);
	free(ans.x[1]);
	free(ans.pg);
	free(pl.p);
	free(pl.rt);
	free(pl.ow);
	free(pl.sq);
	free(bb.b);
	if (rc)
		return -1;
	if (count_kind(d, IR_CS_WARM) == warm0)
		return ir_errf(e, "%s: no warm ping-pong exchange (MPI_Send to rank 1 with tag %d followed by MPI_Recv from "
		                  "rank 1; formats/calibration.md)",
		               tf->f[0].path, IR_NETCAL_TAG_WARM);
	if (nrecv < nsent)
		return ir_errf(e, "%s: rank 1 receives %" PRIu64 " ping-pong message%s from rank 0, but rank 0 sends %" PRIu64
		                  " (not netcal's ping-pong between ranks 0 and 1)",
		               tf->f[1].path, nrecv, nrecv == 1 ? "" : "s", nsent);
	if (count_kind(d, IR_CS_LATE) == late0)
		return ir_errf(e, "%s: no late-receiver phase (MPI_Recv from rank 0 with tag %d): recv_o cannot be measured "
		                  "(formats/calibration.md)",
		               tf->f[1].path, IR_NETCAL_TAG_LATE);
	return 0;
}

int ir_calib_read_set(ir_calib_data *d, const ir_trace_files *tf, const char *source, ir_err *e)
{
	int64_t epoch, tag;
	uint64_t nsent = 0, nrecv = 0;
	size_t before = d->ns;
	snprintf(d->source, sizeof d->source, "%s", source);
	d->from_traces = 1;
	d->nranks = (uint32_t)tf->n;
	if (tf->n < 2)
		return ir_errf(e, "%s: no trace of rank 1 (a ping-pong needs ranks 0 and 1; found only rank 0)", d->source);
	if (ir_trace_epoch_file(&tf->f[0], &epoch, e) || first_tag(&tf->f[0], epoch, &tag, e))
		return -1;
	if (tag >= IR_NETCAL_TAG_MIN && tag <= IR_NETCAL_TAG_MAX)
		return read_netcal(d, tf, epoch, e);
	if (read_rank0(d, &tf->f[0], epoch, &nsent, e))
		return -1;
	if (d->ns == before)
		return ir_errf(e, "%s: no ping-pong exchange found (expected MPI_Send to rank 1 followed by MPI_Recv from rank 1)",
		               tf->f[0].path);
	if (read_rank1(&tf->f[1], epoch, &nrecv, e))
		return -1;
	if (nrecv < nsent)
		return ir_errf(e, "%s: rank 1 receives %" PRIu64 " message%s from rank 0, but rank 0 sends %" PRIu64
		                  " (not a ping-pong between ranks 0 and 1)",
		               tf->f[1].path, nrecv, nrecv == 1 ? "" : "s", nsent);
	return 0;
}

int ir_calib_read_traces(ir_calib_data *d, char *const *paths, size_t n, ir_err *e)
{
	ir_trace_files tf = { NULL, 0 };
	char source[sizeof d->source];
	int rc;
	if (ir_trace_discover(&tf, paths, n, NULL, e))
		return -1;
	snprintf(source, sizeof source, "%.240s%s", n ? paths[0] : "", n > 1 ? " ..." : "");
	rc = ir_calib_read_set(d, &tf, source, e);
	ir_trace_files_release(&tf);
	return rc;
}

/* Several runs, pooled (formats/calibration.md, "Several runs"): each
 * directory is a complete run of its own (its rank 0 and rank 1 traces, its own
 * clock), read as ir_calib_read_traces reads one; their samples join one pool,
 * so that every median is taken over all runs. All runs must be of one kind
 * (netcal or the classic ping-pong) and of as many ranks. */
int ir_calib_read_runs(ir_calib_data *d, char *const *dirs, size_t n, ir_err *e)
{
	char first[sizeof d->source];
	int first_netcal = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t nranks = d->nranks;
		size_t nraw = d->nraw;
		int netcal;
		if (ir_calib_read_traces(d, dirs + i, 1, e))
			return -1;
		netcal = d->nraw > nraw; /* a netcal run adds its phases' durations, a ping-pong none */
		if (!i)
			first_netcal = netcal;
		else if (netcal != first_netcal)
			return ir_errf(e, "%s: a %s run, but %s is a %s run: runs pooled together must be of one kind",
			               dirs[i], netcal ? "netcal" : "ping-pong", dirs[0], first_netcal ? "netcal" : "ping-pong");
		if (i && d->nranks != nranks)
			return ir_errf(e, "%s: traces of %" PRIu32 " ranks, but %s has %" PRIu32
			                  ": runs pooled together must have as many ranks",
			               dirs[i], d->nranks, dirs[0], nranks);
		if (!i)
			snprintf(first, sizeof first, "%s", d->source);
	}
	d->runs = n;
	if (n > 1)
		snprintf(d->source, sizeof d->source, "%.200s and %zu more run%s", first, n - 1, n > 2 ? "s" : "");
	return 0;
}

/* ---- aggregation ---- */

static int cmp_sample(const void *a, const void *b)
{
	const ir_calib_sample *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_raw(const void *a, const void *b)
{
	const ir_calib_raw *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->ps < y->ps ? -1 : x->ps > y->ps;
}

/* Quantile q of n sorted values (linear interpolation). */
static double quantile(const ir_calib_raw *v, size_t n, double q)
{
	double h = q * (double)(n - 1);
	size_t i = (size_t)h;
	if (i + 1 >= n)
		return v[n - 1].ps;
	return v[i].ps + (h - (double)i) * (v[i + 1].ps - v[i].ps);
}

/* The mean of the middle 80 % of n sorted values (the values between the 10th and the 90th
 * percentile, the two at the edges counted in part, so that a sample pooled with itself
 * gives the same mean), and its standard error from the variance of the values winsorized
 * at the same points (Tukey and McLaughlin): robust to a few preempted calls, and to two
 * modes (a blocking barrier that waited for its partner or did not), of which the median
 * would pick one. */
static void trimmed_mean(const ir_calib_raw *v, size_t n, double *mean, double *se)
{
	double t = 0.1 * (double)n, sum = 0, wsum = 0, wss = 0;
	size_t lo = (size_t)t, hi = n - 1 - (size_t)t, i;
	for (i = 0; i < n; i++) {
		/* the part of [i, i + 1) inside [t, n - t) */
		double a = (double)i < t ? t : (double)i, b = (double)(i + 1) > (double)n - t ? (double)n - t : (double)(i + 1);
		if (b > a)
			sum += (b - a) * v[i].ps;
	}
	*mean = sum / ((double)n - 2 * t);
	for (i = 0; i < n; i++)
		wsum += v[i < lo ? lo : i > hi ? hi : i].ps;
	for (i = 0; i < n; i++) {
		double x = v[i < lo ? lo : i > hi ? hi : i].ps - wsum / (double)n;
		wss += x * x;
	}
	*se = n > 1 ? sqrt(wss / (double)(n - 1)) / (0.8 * sqrt((double)n)) : 0;
}

/* The sum of the n values v over the positions [a, z) (0 <= a <= z <= n), value i holding
 * [i, i + 1): those on the edges counted in the part inside. */
static double part_sum(const double *v, size_t n, double a, double z)
{
	double sum = 0;
	for (size_t i = (size_t)a; i < n && (double)i < z; i++) {
		double lo = (double)i < a ? a : (double)i, hi = (double)(i + 1) > z ? z : (double)(i + 1);
		if (hi > lo)
			sum += (hi - lo) * v[i];
	}
	return sum;
}

/* The estimate of n sorted values that the fit uses (formats/calibration.md, "Mean or median"):
 * their median, or their mean winsorized at IR_CALIB_EST_WINS: the lowest and the highest
 * IR_CALIB_EST_WINS share of the values (t = IR_CALIB_EST_WINS * n of them, the values on
 * the edges in part) are counted as the value at t and at n - t, so that a sample pooled
 * with itself gives the same mean. */
static double estimate_sorted(int estimator, const double *v, size_t n)
{
	double t = IR_CALIB_EST_WINS * (double)n, up = (double)n - t, lo, hi;
	size_t il = (size_t)t, ih = (size_t)ceil(up);
	if (estimator == IR_CALIB_EST_MEDIAN)
		return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
	lo = v[il < n ? il : n - 1];
	hi = v[ih > 0 ? ih - 1 : 0];
	return (part_sum(v, n, t, up) + t * lo + t * hi) / (double)n;
}

/* The same of n values in any order (sorts them). */
static double estimate_inplace(int estimator, double *v, size_t n)
{
	(void)ir_median_inplace(v, n); /* sorts v */
	return estimate_sorted(estimator, v, n);
}

/* The estimate's name in the parameter file's comments. */
static const char *estimate_name(const ir_calib_data *d)
{
	return d->estimator == IR_CALIB_EST_MEDIAN ? "median" : "mean";
}

/* The spread of a series (formats/calibration.md, "The spread of a call's cost"): every
 * duration of a size with IR_CALIB_SPREAD_MIN_REPS or more, winsorized as its mean is
 * (IR_CALIB_EST_WINS), over that mean; the ratios of all such sizes pooled and sorted, cut
 * into IR_CALIB_SPREAD_N shares of equal count, each share's mean a factor (their mean is 1).
 * d->raw is sorted (aggregate_series). Returns the number of ratios, 0 when fewer than
 * IR_CALIB_SPREAD_N * 10 (nothing written), -1 out of memory; *nsizes the sizes used. */
long ir_calib_spread(const ir_calib_data *d, int kind, ir_spread *out, size_t *nsizes)
{
	size_t i, j, n = 0, cap = 0;
	double *r = NULL;
	out->n = 0;
	*nsizes = 0;
	for (i = 0; i < d->nraw; i++)
		cap += d->raw[i].kind == kind;
	if (cap < (size_t)IR_CALIB_SPREAD_N * 10)
		return 0;
	if (!(r = malloc(cap * sizeof *r)))
		return -1;
	for (i = 0; i < d->nraw; i = j) {
		size_t m, k;
		double t, up, lo, hi, sum = 0, mean;
		for (j = i; j < d->nraw && d->raw[j].kind == d->raw[i].kind && d->raw[j].size == d->raw[i].size; j++)
			;
		m = j - i;
		if ((int)d->raw[i].kind != kind || m < IR_CALIB_SPREAD_MIN_REPS)
			continue;
		t = IR_CALIB_EST_WINS * (double)m;
		up = (double)m - t;
		lo = d->raw[i + (size_t)t].ps;
		hi = d->raw[i + (size_t)ceil(up) - 1].ps;
		for (k = i; k < j; k++)
			sum += d->raw[k].ps < lo ? lo : d->raw[k].ps > hi ? hi : d->raw[k].ps;
		mean = sum / (double)m;
		if (!(mean > 0))
			continue;
		for (k = i; k < j; k++)
			r[n++] = (d->raw[k].ps < lo ? lo : d->raw[k].ps > hi ? hi : d->raw[k].ps) / mean;
		(*nsizes)++;
	}
	if (n < (size_t)IR_CALIB_SPREAD_N * 10) {
		free(r);
		*nsizes = 0;
		return 0;
	}
	(void)ir_median_inplace(r, n); /* sorts r */
	/* share b: the positions [n b / N, n (b + 1) / N), the values on its edges in part, so
	 * that a run pooled with itself gives the same factors */
	for (int b = 0; b < IR_CALIB_SPREAD_N; b++) {
		double a = (double)n * b / IR_CALIB_SPREAD_N, z = (double)n * (b + 1) / IR_CALIB_SPREAD_N;
		out->f[b] = part_sum(r, n, a, z) / (z - a);
	}
	out->n = IR_CALIB_SPREAD_N;
	free(r);
	return (long)n;
}

/* netcal: the estimate and the quartiles of every phase's durations per size. */
static int aggregate_series(ir_calib_data *d, ir_err *e)
{
	size_t i, j;
	double *tmp = malloc((d->nraw ? d->nraw : 1) * sizeof *tmp); /* a size's durations, sorted */
	if (!tmp)
		return ir_errf(e, "out of memory");
	qsort(d->raw, d->nraw, sizeof *d->raw, cmp_raw);
	if (d->gap_n)
		d->gap_med_ps = ir_median_inplace(d->gap_ps, d->gap_n);
	for (int k = 0; k < IR_CS_N; k++) {
		free(d->ser[k].p);
		d->ser[k].p = NULL;
		d->ser[k].n = 0;
	}
	for (i = 0; i < d->nraw; i = j) {
		ir_calib_series *s = &d->ser[d->raw[i].kind];
		ir_calib_med *m;
		for (j = i; j < d->nraw && d->raw[j].kind == d->raw[i].kind && d->raw[j].size == d->raw[i].size; j++)
			;
		if (!s->p) {
			size_t cnt = 0;
			for (size_t k = i; k < d->nraw && d->raw[k].kind == d->raw[i].kind; k++)
				cnt += k == i || d->raw[k].size != d->raw[k - 1].size;
			s->p = calloc(cnt, sizeof *s->p);
			if (!s->p) {
				free(tmp);
				return ir_errf(e, "out of memory");
			}
		}
		m = &s->p[s->n++];
		m->size = d->raw[i].size;
		m->n = j - i;
		if (d->estimator == IR_CALIB_EST_MEDIAN)
			m->med = quantile(d->raw + i, j - i, 0.5);
		else {
			for (size_t k = i; k < j; k++)
				tmp[k - i] = d->raw[k].ps;
			m->med = estimate_sorted(d->estimator, tmp, j - i);
		}
		m->q1 = quantile(d->raw + i, j - i, 0.25);
		m->q3 = quantile(d->raw + i, j - i, 0.75);
		m->p10 = d->raw[i + (j - i - 1) / 10].ps;
		trimmed_mean(d->raw + i, j - i, &m->tmean, &m->tse);
	}
	free(tmp);
	return 0;
}

int ir_calib_aggregate(ir_calib_data *d, ir_err *e)
{
	size_t i, j, nsz = 0;
	double *v = NULL, *w = NULL, *u = NULL, *scratch = NULL;
	if (ir_calib_state_apply(d, e))
		return -1;
	free(d->p);
	d->p = NULL;
	d->np = 0;
	if (!d->ns)
		return ir_errf(e, "%s: no measurements", d->source);
	/* Inside a size, input order: the drift test compares its first and second half. */
	qsort(d->s, d->ns, sizeof *d->s, cmp_sample);
	for (i = 0; i < d->ns; i = j) {
		for (j = i; j < d->ns && d->s[j].size == d->s[i].size; j++)
			;
		nsz++;
	}
	d->p = calloc(nsz, sizeof *d->p);
	v = malloc(d->ns * sizeof *v);
	w = malloc(d->ns * sizeof *w);
	u = malloc(d->ns * sizeof *u);
	scratch = malloc(d->ns * sizeof *scratch);
	if (!d->p || !v || !w || !u || !scratch) {
		free(v);
		free(w);
		free(u);
		free(scratch);
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
			if (d->s[j].first) { /* netcal's rounds, or pooled runs: their median */
				u[p->nfirst++] = d->s[j].oneway_ps;
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
		if (p->nfirst)
			p->first_ps = ir_median_inplace(u, p->nfirst);
		if (!nv) {
			free(v);
			free(w);
			free(u);
			free(scratch);
			return ir_errf(e, "%s: size %" PRIu64 " bytes has only its first exchange (first use of the buffer): "
			                  "no repetitions to measure",
			               d->source, p->size);
		}
		p->reps = nv;
		p->half_ps[0] = p->half_ps[1] = -1;
		if (nv >= IR_CALIB_DRIFT_MIN_REPS)
			ir_halves(v, nv, scratch, &p->half_ps[0], &p->half_ps[1], &p->half_se_ps);
		p->real_ps = estimate_inplace(d->estimator, v, nv);
		p->drift = p->half_ps[0] >= 0 && p->real_ps > 0 &&
		           fabs(p->half_ps[1] - p->half_ps[0]) > IR_CALIB_DRIFT_PCT / 100 * p->real_ps &&
		           fabs(p->half_ps[1] - p->half_ps[0]) > IR_CALIB_DRIFT_SE * p->half_se_ps;
		if (nw)
			p->send_ps = estimate_inplace(d->estimator, w, nw);
		if (nsim) /* TSV: the simulated time of a size is deterministic; repeated rows are averaged */
			p->sim_ps[0] = p->sim_ps[1] = simsum / (double)nsim;
	}
	free(v);
	free(w);
	free(u);
	free(scratch);
	if (d->np < 2)
		return ir_errf(e, "%s: only one message size (%" PRIu64 " bytes): a line needs at least two sizes",
		               d->source, d->p[0].size);
	return d->netcal ? aggregate_series(d, e) : 0;
}

const ir_calib_med *ir_calib_series_at(const ir_calib_data *d, int kind, uint64_t size)
{
	const ir_calib_series *s = &d->ser[kind];
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->p[mid].size < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->p[lo].size == size ? &s->p[lo] : NULL;
}

/* ---- networks and simulation ---- */

int ir_calib_net_select(ir_calib_net *n, const char *name, const char *topo, const ir_loggops *p, int need_engine,
                        ir_err *e)
{
	const ir_net_type *t;
	memset(n, 0, sizeof *n);
	n->p = *p;
	t = ir_net_find(name ? name : ir_net_type_at(0)->name, e);
	if (!t)
		return -1;
	n->type = t;
	n->name = t->name;
	n->models_bytes = (t->ops->flags & IR_NET_MODELS_BYTES) != 0;
	if (topo) {
		if (!ir_net_accepts(t, "topo")) {
			const ir_net_type *o = ir_net_owner("topo");
			return ir_errf(e, "--topo applies to --net %s, not to the %s network", o ? o->name : "(none)", t->name);
		}
		snprintf(n->topo, sizeof n->topo, "%s", topo);
	}
	if (!t->cfg_new) {
		n->ops = t->ops;
		return 0;
	}
	if (!need_engine)
		return 0;
	n->own = t->cfg_new();
	if (!n->own)
		return ir_errf(e, "out of memory");
	if (topo && t->cfg_set(n->own, "topo", topo, e))
		return -1;
	n->ops = t->ops;
	n->arg = n->own;
	return 0;
}

int ir_calib_net_set(ir_calib_net *n, const char *key, const char *value, ir_err *e)
{
	if (!n->own)
		return ir_errf(e, "unknown parameter '%s' for the %s network", key, n->name ? n->name : "loggops"), -2;
	return n->type->cfg_set(n->own, key, value, e);
}

void ir_calib_net_release(ir_calib_net *n)
{
	if (n->own)
		n->type->cfg_free(n->own);
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

static void pin_netcal(const ir_calib_data *d, ir_calib_fit *f, double *xs, double *ys);
static int fit_netcal(const ir_calib_data *d, ir_calib_fit *f, ir_err *e);

/* netcal: where the protocol switches (formats/calibration.md, "S"). A blocking send to a
 * late receiver that waits inside the library (the progress phase) returns at once when its
 * message is eager (the data is in a buffer on the way, or taken in by the receiver's progress);
 * a rendezvous send waits for the receive, which is posted after netcal's wait: 4 warm one-way
 * times, at least IR_NETCAL_MIN_WAIT_PS. A size is rendezvous when the 10th percentile of such
 * sends (an order statistic: the shortest of fewer than 11), timed from their rounds' starts,
 * lasts more than the geometric mean of the warm one-way time and that wait: halfway, on a log
 * scale, between the two (twice the one-way time where the wait is 4 of them; on shared memory,
 * where a one-way time is 0.2-0.7 us and an eager send that copies 4 KB lasts up to 1.5 us,
 * twice the one-way time was too close). Not the median: a receiver that loses its core to
 * another process makes eager sends wait whole scheduler ticks (8 ms here); not the shortest: a
 * rank 0 that lost its core finds the receive posted. The first size from which on three
 * measured sizes in a row are rendezvous is the first above S. Traces without the progress phase (netcal
 * before it) use the sends to the late receiver that waits outside the library. Returns the
 * number of eager sizes (the split), or 0 when both phases are missing, every size is eager,
 * fewer than two sizes are eager, or only one is rendezvous (then the breakpoint search decides). */
static int send_waited(const ir_calib_data *d, int kind, size_t i)
{
	const ir_calib_med *m = ir_calib_series_at(d, kind, d->p[i].size);
	double ow = d->p[i].real_ps, wait = 4 * ow;
	if (wait < IR_NETCAL_MIN_WAIT_PS)
		wait = IR_NETCAL_MIN_WAIT_PS;
	return m && m->p10 > sqrt(ow * wait);
}

static size_t protocol_split(const ir_calib_data *d)
{
	size_t n = d->np;
	int kind = d->ser[IR_CS_PROG_SEND].n ? IR_CS_PROG_SEND : IR_CS_LATE_SEND;
	for (size_t k = 0; k < n; k++) {
		size_t j, run = 0;
		for (j = k; j < n && j < k + 3; j++) {
			if (!send_waited(d, kind, j))
				break;
			run++;
		}
		if (run == 3 || (run > 0 && j == n && run == n - k)) {
			if (k < 2 || n - k < 2)
				return 0;
			return k;
		}
	}
	return 0;
}

/* A registration costs per page: the first use's excess is one only when its per-byte term
 * is positive by three standard errors of the fit and the line explains at least half of the
 * excess's variance (formats/calibration.md, "Pinning"): a registration's cost is the same at
 * every first use, while one first exchange per size on a loaded machine scatters, and over
 * 34 sizes a slope three standard errors above 0 explains as little as a fifth of it. */
#define PIN_MIN_R2 0.5
static int pin_grows(const ir_linfit *p) { return p->slope > 3 * p->se_slope && p->r2 >= PIN_MIN_R2; }


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
			if (d->netcal && (k = protocol_split(d)) != 0) {
				f->split = k;
				f->S = d->p[k - 1].size;
				f->S_protocol = 1;
				goto split_done;
			}
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
	split_done:
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
			if (d->p[i].nfirst && d->p[i].size > 0) {
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
			f->pin_noise = !pin_grows(&f->pin);
		}
	}
	if (d->netcal && o->model == IR_CALIB_OGOPS) {
		pin_netcal(d, f, xs, ys);
		if (fit_netcal(d, f, e))
			goto out;
	}
	rc = 0;
out:
	free(xs);
	return rc;
}

/* ---- piecewise fits (netcal) ---- */

const char *const ir_calib_term_names[IR_CT_N] = { "send_o", "recv_o", "net_L", "copy", "reduce", "coll_copy",
	                                            "recv_o_cross" };

typedef struct segfit {
	double a, b, sse, ci_a, ci_b;
} segfit;

/* Two-sided 95 % quantile of Student's t with `dof` degrees of freedom. */
static double t975(size_t dof)
{
	static const double t[30] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	if (dof == 0)
		return INFINITY;
	return dof <= 30 ? t[dof - 1] : 1.96 + 2.46 / (double)dof;
}

/* Weighted least squares y = a + b*x over points [lo, hi) with a, b >= 0 (a
 * negative slope is refitted as a constant, a negative base as a line through
 * 0); 95 % half-widths from the standard errors of the free parameters. */
static void fit_seg(const double *x, const double *y, const double *w, size_t lo, size_t hi, segfit *sf)
{
	double sw = 0, swx = 0, swy = 0, sxx = 0, sxy = 0, xm, ym, A, B;
	size_t m = hi - lo;
	int clamped = 0;
	for (size_t i = lo; i < hi; i++) {
		sw += w[i];
		swx += w[i] * x[i];
		swy += w[i] * y[i];
	}
	xm = swx / sw;
	ym = swy / sw;
	for (size_t i = lo; i < hi; i++) {
		double dx = x[i] - xm;
		sxx += w[i] * dx * dx;
		sxy += w[i] * dx * (y[i] - ym);
	}
	B = sxx > 0 ? sxy / sxx : 0;
	A = ym - B * xm;
	if (B < 0) {
		B = 0;
		A = ym;
		clamped = 1;
	}
	if (A < 0) {
		double s0 = 0, s1v = 0;
		for (size_t i = lo; i < hi; i++) {
			s0 += w[i] * x[i] * x[i];
			s1v += w[i] * x[i] * y[i];
		}
		A = 0;
		B = s0 > 0 && s1v > 0 ? s1v / s0 : 0;
		clamped = 2;
		sxx = s0;
	}
	sf->a = A;
	sf->b = B;
	sf->sse = 0;
	for (size_t i = lo; i < hi; i++) {
		double r = y[i] - A - B * x[i];
		sf->sse += w[i] * r * r;
	}
	sf->ci_a = sf->ci_b = -1;
	if (!clamped && m > 2 && sxx > 0) {
		double s2 = sf->sse / (double)(m - 2), t = t975(m - 2);
		sf->ci_b = t * sqrt(s2 / sxx);
		sf->ci_a = t * sqrt(s2 * (1 / sw + xm * xm / sxx));
	} else if (clamped == 1 && m > 1) {
		sf->ci_a = t975(m - 1) * sqrt(sf->sse / (double)(m - 1) / sw);
	} else if (clamped == 2 && m > 1 && sxx > 0) {
		sf->ci_b = t975(m - 1) * sqrt(sf->sse / (double)(m - 1) / sxx);
	}
}

int ir_calib_segments(const double *x, const double *y, const double *w, size_t n, uint64_t brk, size_t maxseg,
                      ir_calib_pwfit *f, ir_err *e)
{
	size_t m = 0, K, best = 0;
	double *C = NULL, *D = NULL, floor_sse, bestbic = INFINITY;
	size_t *arg = NULL;
	int rc = -1;
	memset(f, 0, sizeof *f);
	if (n == 0)
		return ir_errf(e, "no points to fit");
	if (n > IR_CALIB_MAXPTS)
		return ir_errf(e, "%zu sizes: a piecewise fit takes at most %d", n, IR_CALIB_MAXPTS);
	if (maxseg < 1 || maxseg > IR_CALIB_MAXSEG)
		maxseg = IR_CALIB_MAXSEG;
	for (size_t i = 0; i < n; i++) {
		if (!(w[i] > 0) || !isfinite(y[i]) || (i && !(x[i] > x[i - 1])))
			return ir_errf(e, "piecewise fit: point %zu is not sorted, or has a weight <= 0", i);
		m += (brk != UINT64_MAX && x[i] <= (double)brk);
	}
	if (brk == UINT64_MAX)
		m = 0;
	C = malloc((n + 1) * (n + 1) * sizeof *C);
	D = malloc((maxseg + 1) * (n + 1) * sizeof *D);
	arg = malloc((maxseg + 1) * (n + 1) * sizeof *arg);
	if (!C || !D || !arg) {
		ir_errf(e, "out of memory");
		goto out;
	}
	/* C[i*(n+1)+j]: the cost of one segment over points [i, j), INFINITY when not allowed */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j <= n; j++) {
			size_t s0 = i < m ? 0 : m, s1 = i < m ? m : n;
			double *c = &C[i * (n + 1) + j];
			segfit sf;
			*c = INFINITY;
			if (i < m && j > m)
				continue;
			if (j - i < 4 && !(i == s0 && j == s1))
				continue;
			fit_seg(x, y, w, i, j, &sf);
			*c = sf.sse;
		}
	for (size_t k = 0; k <= maxseg; k++)
		for (size_t j = 0; j <= n; j++)
			D[k * (n + 1) + j] = k == 0 && j == 0 ? 0 : INFINITY;
	floor_sse = (double)n * 0.01 * 0.01;
	for (K = 1; K <= maxseg; K++) {
		for (size_t j = 1; j <= n; j++) {
			double bestv = INFINITY;
			size_t bi = 0;
			for (size_t i = 0; i < j; i++) {
				double v = D[(K - 1) * (n + 1) + i] + C[i * (n + 1) + j];
				if (v < bestv) {
					bestv = v;
					bi = i;
				}
			}
			D[K * (n + 1) + j] = bestv;
			arg[K * (n + 1) + j] = bi;
		}
		if (isfinite(D[K * (n + 1) + n])) {
			double sse = D[K * (n + 1) + n];
			double bic = (double)n * log((sse > floor_sse ? sse : floor_sse) / (double)n) + 3.0 * (double)K * log((double)n);
			if (bic < bestbic - 1e-9) {
				bestbic = bic;
				best = K;
			}
		}
	}
	if (!best) {
		ir_errf(e, "piecewise fit: no segmentation of %zu points", n);
		goto out;
	}
	f->n = n;
	f->nseg = best;
	f->bic = bestbic;
	f->sse = D[best * (n + 1) + n];
	{
		size_t j = n;
		for (size_t k = best; k > 0; k--) {
			size_t i = arg[k * (n + 1) + j];
			f->seg[k - 1].a = i;
			f->seg[k - 1].b = j;
			j = i;
		}
	}
	f->pw.n = (uint32_t)best;
	for (size_t k = 0; k < best; k++) {
		ir_calib_seg *sg = &f->seg[k];
		segfit sf;
		fit_seg(x, y, w, sg->a, sg->b, &sf);
		sg->base = sf.a;
		sg->slope = sf.b;
		sg->ci_base = sf.ci_a;
		sg->ci_slope = sf.ci_b;
		if (k == 0)
			sg->from = 0;
		else if (brk != UINT64_MAX && x[sg->a - 1] <= (double)brk && x[sg->a] > (double)brk)
			sg->from = brk + 1;
		else
			sg->from = (uint64_t)x[sg->a];
		f->pw.seg[k].from = sg->from;
		f->pw.seg[k].base = sf.a > 1.8e19 ? UINT64_MAX : (uint64_t)llround(sf.a);
		f->pw.seg[k].fs = sf.b * 1000 > 1.8e19 ? UINT64_MAX : (uint64_t)llround(sf.b * 1000);
	}
	rc = 0;
out:
	free(C);
	free(D);
	free(arg);
	return rc;
}

void ir_calib_fit_release(ir_calib_fit *f)
{
	for (int k = 0; k < IR_CT_N; k++) {
		free(f->term[k].size);
		free(f->term[k].y);
		f->term[k].size = NULL;
		f->term[k].y = NULL;
		f->term[k].have = 0;
	}
}

/* Fit one term to points (size, y) with relative weights, y floored at `fl` ps. */
static int fit_term(ir_calib_term_fit *t, const uint64_t *sz, const double *y, const double *fl, size_t n, uint64_t brk,
                    const char *src, const char *name, ir_err *e)
{
	double *x = malloc((n ? n : 1) * 2 * sizeof *x), *w;
	int rc;
	if (!x)
		return ir_errf(e, "out of memory");
	w = x + (n ? n : 1);
	t->size = malloc((n ? n : 1) * sizeof *t->size);
	t->y = malloc((n ? n : 1) * sizeof *t->y);
	if (!t->size || !t->y) {
		free(x);
		return ir_errf(e, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		double v = y[i] > fl[i] ? y[i] : fl[i];
		x[i] = (double)sz[i];
		w[i] = 1 / (v * v);
		t->size[i] = sz[i];
		t->y[i] = y[i];
	}
	t->n = n;
	rc = ir_calib_segments(x, y, w, n, brk, IR_CALIB_MAXSEG, &t->pw, e);
	if (rc) {
		ir_err t2 = *e;
		ir_errf(e, "%s: %s: %s", src, name, t2.msg);
	} else {
		t->have = 1;
	}
	free(x);
	return rc;
}

/* The five terms of the piecewise model from netcal's series (formats/calibration.md,
 * "What feeds which term"). */
/* A send after a gap (formats/calibration.md, "A send after a gap"): the train phase's
 * sends of the eager sizes whose send does not wait for the receiver (not held), each
 * against the median send of its size right after a receive (gap index 0); per gap and kind
 * the median of those differences over all sizes, its standard error (1.2533 * 1.4826 *
 * MAD / sqrt(n), for the comment only: a run pooled with itself fits what it fits alone)
 * and the median gap. */
static int fit_gaps(const ir_calib_data *d, ir_calib_fit *f, ir_err *e)
{
	uint64_t used[8];
	double ref[8];
	size_t nused = 0;
	double *v = NULL, *g = NULL;
	int rc = -1;
	if (!d->nstep)
		return 0;
	for (size_t i = 0; i < d->np && i < f->split && nused < 8; i++) {
		uint64_t sz = d->p[i].size;
		size_t m = 0;
		int held = d->ser[IR_CS_PROG_SEND].n && send_waited(d, IR_CS_LATE_SEND, i);
		if (held)
			continue;
		for (size_t k = 0; k < d->nstep; k++)
			m += d->step[k].size == sz && !d->step[k].after_send && d->step[k].j == 0;
		if (m)
			used[nused++] = sz;
	}
	if (!nused)
		return 0;
	if (!(v = malloc(d->nstep * sizeof *v)) || !(g = malloc(d->nstep * sizeof *g))) {
		ir_errf(e, "out of memory");
		goto out;
	}
	for (size_t u = 0; u < nused; u++) {
		size_t m = 0;
		for (size_t k = 0; k < d->nstep; k++)
			if (d->step[k].size == used[u] && !d->step[k].after_send && d->step[k].j == 0)
				v[m++] = d->step[k].dur_ps;
		ref[u] = ir_median_inplace(v, m);
	}
	for (int a = 0; a < 2; a++) {
		/* after a receive: against the train's own send at gap index 0 after a receive,
		 * which send_o stands for; after a send: against send_o(s) itself, since no
		 * ping-pong send stands for it (formats/calibration.md, "A send after a gap") */
		if (a == 1 && f->term[IR_CT_SEND_O].have) {
			for (size_t u = 0; u < nused; u++)
				ref[u] = (double)ir_pw_eval(&f->term[IR_CT_SEND_O].pw.pw, used[u]);
			f->after[a].vs_send_o = 1;
		}
		struct ir_calib_gapfit *gf = &f->after[a];
		size_t len = 0;
		gf->have = 1;
		gf->nsizes = nused;
		gf->sizes[0] = 0;
		for (size_t u = 0; u < nused; u++)
			len += (size_t)snprintf(gf->sizes + len, len < sizeof gf->sizes ? sizeof gf->sizes - len : 0, "%s%" PRIu64,
			                        u ? " " : "", used[u]);
		gf->fn.n = 0;
		for (int j = 0; j < IR_NETCAL_TRAIN_GAPS; j++) {
			size_t m = 0;
			double med, mad;
			for (size_t k = 0; k < d->nstep; k++) {
				const struct ir_calib_step *st = &d->step[k];
				if (st->after_send != a || st->j != j)
					continue;
				for (size_t u = 0; u < nused; u++)
					if (st->size == used[u]) {
						v[m] = st->dur_ps - ref[u];
						g[m++] = st->gap_ps;
					}
			}
			gf->n[j] = m;
			if (!m)
				continue;
			med = ir_median_inplace(v, m);
			for (size_t k = 0; k < m; k++)
				v[k] = fabs(v[k] - med);
			mad = ir_median_inplace(v, m);
			gf->d[j] = med;
			gf->se[j] = 1.2533 * 1.4826 * mad / sqrt((double)m);
			gf->gap[j] = ir_median_inplace(g, m);
			/* gaps must grow: a point whose gap does not is left out */
			/* written to the nanosecond: the gaps to 10 ns */
			gf->fn.gap[gf->fn.n] = 10000 * (uint64_t)llround(gf->gap[j] < 0 ? 0 : gf->gap[j] / 10000);
			if (gf->fn.n && gf->fn.gap[gf->fn.n] <= gf->fn.gap[gf->fn.n - 1])
				continue;
			gf->fn.d[gf->fn.n++] = 1000 * (int64_t)llround(med / 1000);
		}
		if (!gf->fn.n)
			gf->have = 0;
	}
	rc = 0;
out:
	free(v);
	free(g);
	return rc;
}

static int fit_netcal(const ir_calib_data *d, ir_calib_fit *f, ir_err *e)
{
	size_t n = d->np, k;
	uint64_t brk = f->split < n ? f->S : UINT64_MAX, *sz = malloc((n + 1) * sizeof *sz);
	k = 0;
	double *y = malloc((n + 1) * sizeof *y), *fl = malloc((n + 1) * sizeof *fl), send_last = -1;
	int rc = -1;
	const double floor_ps = 1000; /* 1 ns: below it a relative error means nothing */
	if (!sz || !y || !fl) {
		ir_errf(e, "out of memory");
		goto out;
	}
	f->netcal = 1;
	/* held: an eager size whose send to the receiver waiting outside the library waited
	 * (the progress phase found it eager): the send completes only when the receiver's
	 * library takes the data (Open MPI's shared memory from 257 bytes), so its warm
	 * duration is mostly that wait, not the sender's work */
	for (size_t i = 0; i < n && i < f->split; i++) {
		const ir_calib_med *m = ir_calib_series_at(d, IR_CS_SEND, d->p[i].size);
		if (m && !(d->ser[IR_CS_PROG_SEND].n && send_waited(d, IR_CS_LATE_SEND, i)))
			send_last = m->med;
	}
	/* send_o: the send call's duration when eager; above S (and when held) the sender is
	 * held until the receiver has the data, so what is its own is at most the eager figure,
	 * and at most what the one-way time leaves beside the receiver's charge, unless the
	 * exchange phase shows more: two ranks that send to each other at once take
	 * send_o + recv_o in the model, so exchange - recv_o is the sender's CPU (TCP: the
	 * kernel's copy into the socket), at most one-way + net_L, beyond which a ping-pong
	 * would wait for it (formats/calibration.md, "The exchange"). */
	for (size_t i = 0, j = 0; i < n; i++) {
		uint64_t s = d->p[i].size;
		const ir_calib_med *snd = ir_calib_series_at(d, IR_CS_SEND, s), *late = ir_calib_series_at(d, IR_CS_LATE, s), *x;
		int held = i < f->split && d->ser[IR_CS_PROG_SEND].n && send_waited(d, IR_CS_LATE_SEND, i);
		double v;
		if ((i < f->split || brk == UINT64_MAX) && !held) {
			if (!snd)
				continue;
			/* the whole call: the message may reach the receiver before the sender's call
			 * returns (over TCP the kernel delivers it inside the sender's system call);
			 * net_L counts from the send's start, so the two overlap as they do for real */
			v = snd->med;
		} else {
			if (!late)
				continue;
			v = d->p[i].real_ps - late->med;
			if (send_last >= 0 && send_last < v)
				v = send_last;
			if (v < 0)
				v = 0;
			if ((x = ir_calib_series_at(d, IR_CS_EXCH, s))) {
				double vx = x->med - late->med, cap = 2 * d->p[i].real_ps - late->med;
				if (vx > cap)
					vx = cap;
				f->x_sizes++;
				if (vx > v) {
					v = vx;
					f->x_raised++;
				}
			}
		}
		sz[j] = s;
		y[j] = v;
		fl[j] = d->p[i].real_ps / 20 > floor_ps ? d->p[i].real_ps / 20 : floor_ps;
		k = ++j;
	}
	if (k && fit_term(&f->term[IR_CT_SEND_O], sz, y, fl, k, brk, d->source, "send_o", e))
		goto out;
	/* recv_o: the late receiver's MPI_Recv, the message already there (eager) or moved by it (rendezvous) */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		const ir_calib_med *late = ir_calib_series_at(d, IR_CS_LATE, d->p[i].size);
		if (!late)
			continue;
		sz[k] = d->p[i].size;
		y[k] = late->med;
		/* a receiver's part of a message is not longer than the whole message's one-way
		 * time: a late receive that took longer met a loaded machine (the fitted one-way,
		 * net_L + recv_o, would exceed the measured one) */
		if (y[k] > d->p[i].real_ps) {
			y[k] = d->p[i].real_ps;
			f->r_capped++;
		}
		fl[k] = d->p[i].real_ps / 20 > floor_ps ? d->p[i].real_ps / 20 : floor_ps;
		k++;
	}
	if (!f->term[IR_CT_SEND_O].have) {
		ir_errf(e, "%s: send_o: no size with both a warm exchange and a late receive", d->source);
		goto out;
	}
	if (!k) {
		ir_errf(e, "%s: no size of the late-receiver phase is a size of the ping-pong", d->source);
		goto out;
	}
	if (fit_term(&f->term[IR_CT_RECV_O], sz, y, fl, k, brk, d->source, "recv_o", e))
		goto out;
	/* net_L: the time from the send's start to the arrival, what the one-way time leaves
	 * beside the fitted receiver's overhead, so that the two add up to the measured time
	 * even where a fit deviates from its points */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = d->p[i].size;
		double v;
		if (!ir_calib_series_at(d, IR_CS_LATE, s))
			continue;
		v = d->p[i].real_ps - (double)ir_pw_eval(&f->term[IR_CT_RECV_O].pw.pw, s);
		sz[k] = s;
		y[k] = v > 0 ? v : 0;
		/* residuals relative to the one-way time, which net_L + recv_o must reproduce: a
		 * net_L of a few percent of it (rendezvous) does not outweigh the eager sizes */
		fl[k] = d->p[i].real_ps > floor_ps ? d->p[i].real_ps : floor_ps;
		k++;
	}
	if (fit_term(&f->term[IR_CT_NET_L], sz, y, fl, k, brk, d->source, "net_L", e))
		goto out;
	/* recv_o_cross: an eager exchange lasts max(send_o, net_L) + the receiver's charge in
	 * the model (the peer's message arrives while the rank's own send is under way), so
	 * what a rank's exchange call leaves beside the fitted send_o and net_L is the charge
	 * of a message that crossed the rank's own send (formats/calibration.md, "Crossing
	 * messages"); eager sizes only, where no protocol waits for the receiver */
	k = 0;
	f->x_state = d->state.phases_slow;
	for (size_t i = 0; i < n && i < f->split && !f->x_state; i++) {
		uint64_t s = d->p[i].size;
		const ir_calib_med *x = ir_calib_series_at(d, IR_CS_XRANK, s);
		double a, b, v;
		if (!x)
			continue;
		a = (double)ir_pw_eval(&f->term[IR_CT_SEND_O].pw.pw, s);
		b = (double)ir_pw_eval(&f->term[IR_CT_NET_L].pw.pw, s);
		v = x->med - (a > b ? a : b);
		sz[k] = s;
		y[k] = v > 0 ? v : 0;
		fl[k] = d->p[i].real_ps / 20 > floor_ps ? d->p[i].real_ps / 20 : floor_ps;
		k++;
	}
	if (k && fit_term(&f->term[IR_CT_RECV_X], sz, y, fl, k, UINT64_MAX, d->source, "recv_o_cross", e))
		goto out;
	/* copy, reduce and coll_copy: their own series, no protocol */
	for (int t = 0; t < 3; t++) {
		static const int series[3] = { IR_CS_SELF, IR_CS_REDUCE, IR_CS_LCOPY };
		static const int term[3] = { IR_CT_COPY, IR_CT_REDUCE, IR_CT_COLL_COPY };
		const ir_calib_series *ser = &d->ser[series[t]];
		uint64_t *s2;
		double *y2, *f2;
		if (!ser->n)
			continue;
		s2 = malloc(ser->n * sizeof *s2);
		y2 = malloc(ser->n * sizeof *y2);
		f2 = malloc(ser->n * sizeof *f2);
		if (!s2 || !y2 || !f2) {
			free(s2);
			free(y2);
			free(f2);
			ir_errf(e, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < ser->n; i++) {
			s2[i] = ser->p[i].size;
			y2[i] = ser->p[i].med;
			f2[i] = floor_ps;
		}
		rc = fit_term(&f->term[term[t]], s2, y2, f2, ser->n, UINT64_MAX, d->source, ir_calib_term_names[term[t]], e);
		free(s2);
		free(y2);
		free(f2);
		if (rc)
			goto out;
		rc = -1;
	}
	if (fit_gaps(d, f, e))
		goto out;
	rc = 0;
out:
	free(sz);
	free(y);
	free(fl);
	return rc;
}

/* netcal's pinning test: registration shows in a fresh buffer only, while the cost of
 * cold caches and TLB shows in the cold-buffer exchange too. A size counts when its first
 * use is slower than the cold exchange by more than the noise (twice the cold round trip's
 * interquartile range, and at least 10 % of it); pinning is fitted (first use minus cold)
 * only when most sizes count, weighted by the inverse square of the cold round trip as
 * the network's terms are (formats/calibration.md, "Pinning"). */
static void pin_netcal(const ir_calib_data *d, ir_calib_fit *f, double *xs, double *ys)
{
	size_t m = 0, nsig = 0;
	double *ws = malloc((d->np ? d->np : 1) * sizeof *ws);
	if (!ws)
		return; /* no pinning rather than a failed calibration */
	for (size_t i = 0; i < d->np; i++) {
		const ir_calib_med *c;
		double ex, noise;
		if (!d->p[i].nfirst || !d->p[i].size || !(c = ir_calib_series_at(d, IR_CS_COLD, d->p[i].size)))
			continue;
		ex = 2 * (d->p[i].first_ps - c->med);
		noise = 2 * 2 * (c->q3 - c->q1);
		if (noise < 0.1 * 2 * c->med)
			noise = 0.1 * 2 * c->med;
		xs[m] = (double)d->p[i].size;
		ys[m] = ex;
		ws[m] = c->med > 0 ? 1 / (4 * c->med * c->med) : 1;
		m++;
		nsig += ex > noise;
	}
	f->pin_ncold = m;
	f->pin_nsig = nsig;
	if (m < 2)
		goto out;
	if (2 * nsig <= m) {
		f->pin_cold = 1;
		f->pin_noise = 1;
		goto out;
	}
	if (ir_linfit_wxy(xs, ys, ws, m, &f->pin) == 0) {
		f->have_pin = 1;
		f->npin = m;
		f->pin_a = f->pin.intercept;
		f->pin_b = f->pin.slope;
		f->clamp_pa = f->pin_a < 0;
		f->clamp_pb = f->pin_b < 0;
		/* and only a cost that grows with the buffer is a registration: one first exchange
		 * per size on a VM's shared memory was slower at most sizes by about the same
		 * 0.2 ms, or at random (R-squared 0.07-0.39, per-byte terms negative) */
		f->pin_noise = !pin_grows(&f->pin);
	}
out:
	free(ws);
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

/* A duration in us with 4 decimals, or "-". */
static int add_us(ir_sb *o, double ps)
{
	return ps < 0 ? ir_sb_adds(o, " -") : ir_sb_addf(o, " %.4f", ps / US_PS);
}

static int write_netcal(const ir_calib_data *d, const ir_calib_fit *f, ir_sb *o)
{
	static const char *const what[IR_CT_N] = {
		"sender's CPU per message: the warm send call (eager); above S min(eager figure, one-way - recv_o), or "
		"exchange - recv_o where more",
		"receiver's CPU per message: the late receiver's MPI_Recv",
		"network: one-way time - send_o - recv_o (as fitted), at least 0",
		"a message to oneself: MPI_Sendrecv to the own rank",
		"combining the bytes of a reduction: MPI_Reduce_local, MPI_DOUBLE, MPI_SUM",
		"a collective's copy of the own block: MPI_Alltoall on MPI_COMM_SELF (the library's local copy)",
		"receiver's CPU per eager message that crossed the receiver's own send: a rank's exchange call "
		"(both ranks' MPI_Sendrecv) - max(send_o, net_L) (as fitted), at least 0",
	};
	static const char *const phase[IR_CS_N] = { "warm", "cold", "first", "send", "late", "self", "reduce", "late_send",
		                                    "poll", "prog_send", "nbc", "barrier", "coll_copy", "exch", "xrank" };
	int rc = 0;
	rc |= ir_sb_addf(o, "# piecewise model (formats/calibration.md): segments FROM:BASE+PERBYTE; per-size %ss fitted by\n"
	                    "# weighted least squares (weights 1/y^2: relative errors), breakpoints at measured sizes by dynamic\n"
	                    "# programming, the number of segments (at most %d) by BIC; send_o, recv_o, net_L break at S\n"
	                    "# segment lines: sizes, points, base and per-byte time with their 95 %% confidence half-widths\n",
	                 estimate_name(d), IR_CALIB_MAXSEG);
	for (int k = 0; k < IR_CT_N; k++) {
		const ir_calib_term_fit *t = &f->term[k];
		char a[64], b[64];
		if (!t->have) {
			if (k == IR_CT_RECV_X && f->x_state)
				rc |= ir_sb_addf(o, "# %s: not fitted: the machine was slowed all through %zu phase%s (against the "
				                    "reference), so a rank's exchange and the send's terms may come from two states "
				                    "of the machine (formats/calibration.md, \"Crossing messages\")\n",
				                 ir_calib_term_names[k], f->x_state, f->x_state == 1 ? "" : "s");
			else if (k == IR_CT_RECV_X)
				rc |= ir_sb_addf(o, "# %s: not measured (no exchange of an eager size in the traces)\n",
				                 ir_calib_term_names[k]);
			else
				rc |= ir_sb_addf(o, "# %s: not measured (no %s phase in the traces)\n", ir_calib_term_names[k],
				                 k == IR_CT_COPY ? "self-copy" : k == IR_CT_REDUCE ? "reduction" : "library-copy");
			continue;
		}
		rc |= ir_sb_addf(o, "# %s: %s\n", ir_calib_term_names[k], what[k]);
		if (k == IR_CT_RECV_O && f->r_capped)
			rc |= ir_sb_addf(o, "#   capped at the warm one-way time at %zu size%s, whose late receive took longer "
			                    "(a loaded machine)\n",
			                 f->r_capped, f->r_capped == 1 ? "" : "s");
		rc |= ir_sb_addf(o, "#   %zu segment%s over %zu sizes, rms relative residual %.2f %%\n", t->pw.nseg,
		                 t->pw.nseg == 1 ? "" : "s", t->n, 100 * sqrt(t->pw.sse / (double)t->n));
		for (size_t s = 0; s < t->pw.nseg; s++) {
			const ir_calib_seg *sg = &t->pw.seg[s];
			rc |= ir_sb_addf(o, "#   %s..%s (%zu points): base %.4f us", ir_fmt_size(a, sizeof a, t->size[sg->a]),
			                 ir_fmt_size(b, sizeof b, t->size[sg->b - 1]), sg->b - sg->a, sg->base / US_PS);
			rc |= sg->ci_base >= 0 ? ir_sb_addf(o, " +- %.4f", sg->ci_base / US_PS) : ir_sb_adds(o, " (fixed)");
			rc |= ir_sb_addf(o, ", per byte %.3f ps", sg->slope);
			rc |= sg->ci_slope >= 0 ? ir_sb_addf(o, " +- %.3f\n", sg->ci_slope) : ir_sb_adds(o, " (fixed)\n");
		}
		rc |= ir_sb_addf(o, "%s = ", ir_calib_term_names[k]);
		rc |= ir_pw_format(&t->pw.pw, o);
		rc |= ir_sb_addch(o, '\n');
	}
	{
		const ir_calib_med *m = ir_calib_series_at(d, IR_CS_POLL, 0);
		char a[64];
		if (!m)
			rc |= ir_sb_adds(o, "# poll: not measured (no poll phase in the traces)\n");
		else {
			rc |= ir_sb_addf(o, "# poll: one unsuccessful MPI_Iprobe (trace2goal's poll model, docs/trace2goal.md 2.1): %s "
			                    "of %zu lines, quartiles %.4f .. %.4f us\n",
			                 estimate_name(d), m->n, m->q1 / US_PS, m->q3 / US_PS);
			rc |= ir_sb_addf(o, "poll = %s\n", fmt_t(a, sizeof a, m->med));
		}
	}
	{
		const ir_calib_med *nb = ir_calib_series_at(d, IR_CS_NBC, 0), *b = ir_calib_series_at(d, IR_CS_BARRIER, 0);
		char a[64];
		if (!nb || !b)
			rc |= ir_sb_adds(o, "# nbc_o: not measured (no nbc phase in the traces)\n");
		else {
			double v = nb->tmean - b->tmean, ci = 1.96 * sqrt(nb->tse * nb->tse + b->tse * b->tse);
			rc |= ir_sb_addf(o, "# nbc_o: a nonblocking collective's schedule: MPI_Ibarrier + MPI_Wait (%zu, mean of the middle "
			                    "80 %% %.4f us) minus MPI_Barrier (%zu, %.4f us): %.4f +- %.4f us\n",
			                 nb->n, nb->tmean / US_PS, b->n, b->tmean / US_PS, v / US_PS, ci / US_PS);
			if (v < 0) {
				rc |= ir_sb_adds(o, "#   below 0: 0\n");
				v = 0;
			}
			rc |= ir_sb_addf(o, "nbc_o = %s\n", fmt_t(a, sizeof a, v));
		}
	}
	for (int a = 0; a < 2; a++) {
		static const char *const key[2] = { "send_o_spread", "recv_o_spread" },
		                         *series[2] = { "the warm ping-pong's send call", "the late receive" };
		ir_spread sp;
		size_t nsz;
		long n = ir_calib_spread(d, a ? IR_CS_LATE : IR_CS_SEND, &sp, &nsz);
		if (n < 0)
			return -1;
		if (!n) {
			rc |= ir_sb_addf(o, "# %s: not measured (fewer than %d durations of %s at sizes of %d repetitions or more)\n",
			                 key[a], IR_CALIB_SPREAD_N * 10, series[a], IR_CALIB_SPREAD_MIN_REPS);
			continue;
		}
		rc |= ir_sb_addf(o, "# %s: %s over its size's mean (both winsorized at %g %%), %ld durations at %zu sizes of %d "
		                    "repetitions or more, in %d shares of equal count, each share's mean; ibsim draws one per "
		                    "message (formats/params.md, \"The spread of a call's cost\")\n%s = ",
		                 key[a], series[a], 100 * IR_CALIB_EST_WINS, n, nsz, IR_CALIB_SPREAD_MIN_REPS, IR_CALIB_SPREAD_N,
		                 key[a]);
		rc |= ir_spread_format(&sp, o);
		rc |= ir_sb_addch(o, '\n');
	}
	for (int a = 0; a < 2; a++) {
		const struct ir_calib_gapfit *gf = &f->after[a];
		const char *key = a ? "send_o_after_send" : "send_o_after_recv";
		if (!gf->have) {
			rc |= ir_sb_addf(o, "# %s: not measured (no train phase in the traces, or no eager size in it)\n", key);
			continue;
		}
		rc |= ir_sb_addf(o, "# %s: a send the gap after the rank's last %s, less %s (train "
		                    "phase, sizes %s); per gap: samples, median gap, median difference +- its standard error "
		                    "(us)\n",
		                 key, a ? "send" : "receive",
		                 gf->vs_send_o ? "send_o of its size" : "one right after a receive", gf->sizes);
		for (int j = 0; j < IR_NETCAL_TRAIN_GAPS; j++)
			if (gf->n[j])
				rc |= ir_sb_addf(o, "#   %zu %.3f %+.4f +- %.4f\n", gf->n[j], gf->gap[j] / US_PS, gf->d[j] / US_PS,
				                 gf->se[j] / US_PS);
		rc |= ir_sb_addf(o, "%s = ", key);
		rc |= ir_gapfn_format(&gf->fn, o);
		rc |= ir_sb_addch(o, '\n');
	}
	rc |= ir_sb_addf(o, "# per size: %s one-way (warm, cold, first) or call duration (send, late, self, reduce, poll, nbc,\n"
	                    "# barrier, coll_copy, exch: the shorter of the two ranks' calls, xrank: either rank's) in us,\n"
	                    "# with the interquartile range in %% of it; '-': not measured\n#  size_bytes reps",
	                 estimate_name(d));
	for (int k = 0; k < IR_CS_N; k++)
		rc |= ir_sb_addf(o, " %s", phase[k]);
	rc |= ir_sb_addch(o, '\n');
	for (size_t i = 0; i < d->np; i++) {
		rc |= ir_sb_addf(o, "#| %" PRIu64 " %zu", d->p[i].size, d->p[i].reps);
		for (int k = 0; k < IR_CS_N; k++) {
			const ir_calib_med *m = ir_calib_series_at(d, k, d->p[i].size);
			if (!m)
				rc |= ir_sb_adds(o, " -");
			else
				rc |= ir_sb_addf(o, " %.4f(%.1f%%)", m->med / US_PS, m->med > 0 ? 100 * (m->q3 - m->q1) / m->med : 0);
		}
		rc |= ir_sb_addch(o, '\n');
	}
	rc |= ir_sb_adds(o, "# fitted at the measured sizes (us): size_bytes send_o recv_o net_L one_way (net_L + recv_o) "
	                    "measured cold copy reduce coll_copy recv_o_cross\n");
	for (size_t i = 0; i < d->np; i++) {
		uint64_t s = d->p[i].size;
		const ir_calib_med *c = ir_calib_series_at(d, IR_CS_COLD, s);
		double v[IR_CT_N];
		for (int k = 0; k < IR_CT_N; k++)
			v[k] = f->term[k].have ? (double)ir_pw_eval(&f->term[k].pw.pw, s) : -1;
		rc |= ir_sb_addf(o, "#@ %" PRIu64, s);
		for (int k = 0; k < 3; k++)
			rc |= add_us(o, v[k]);
		rc |= add_us(o, v[1] + v[2]);
		rc |= add_us(o, d->p[i].real_ps);
		rc |= add_us(o, c ? c->med : -1);
		rc |= add_us(o, v[IR_CT_COPY]);
		rc |= add_us(o, v[IR_CT_REDUCE]);
		rc |= add_us(o, v[IR_CT_COLL_COPY]);
		rc |= add_us(o, s <= f->S ? v[IR_CT_RECV_X] : -1);
		rc |= ir_sb_addch(o, '\n');
	}
	return rc;
}

size_t ir_calib_drifted(const ir_calib_data *d, size_t *tested)
{
	size_t n = 0, t = 0;
	for (size_t i = 0; i < d->np; i++) {
		t += d->p[i].half_ps[0] >= 0;
		n += d->p[i].drift;
	}
	if (tested)
		*tested = t;
	return n;
}

/* The drift test's verdict (formats/calibration.md, "Drift"): one line when no size was
 * tested or none drifted, else a line per size that did. */
/* What the pulses said of the machine (formats/calibration.md, "Machine state"). */
static int write_state(const ir_calib_data *d, ir_sb *o)
{
	const ir_calib_state *st = &d->state;
	int rc = 0;
	if (!d->netcal)
		return 0;
	if (!st->runs_pulsed)
		return ir_sb_adds(o, "# machine state: no pulses in the traces (a netcal without them): nothing set aside\n");
	rc |= ir_sb_addf(o, "# machine state: %zu pulses (0-byte round trips) over %zu run%s", st->pulses, st->runs_pulsed,
	                 st->runs_pulsed == 1 ? "" : "s");
	if (st->runs_pulsed < st->runs)
		rc |= ir_sb_addf(o, " (%zu run%s without)", st->runs - st->runs_pulsed, st->runs - st->runs_pulsed == 1 ? "" : "s");
	rc |= ir_sb_addf(o, ", %zu of them in %zu phase%s of %d or more", st->pulses_judged, st->phases,
	                 st->phases == 1 ? "" : "s", IR_CALIB_STATE_MIN_PULSES);
	if (st->phases) {
		rc |= ir_sb_addf(o, "; undisturbed %.4f us", st->ref_min_ps / 1e6);
		if (st->ref_max_ps > st->ref_min_ps)
			rc |= ir_sb_addf(o, " to %.4f us", st->ref_max_ps / 1e6);
		rc |= ir_sb_addf(o, " (each phase's %.0fth percentile)", IR_CALIB_STATE_REF_Q * 100);
	}
	if (d->state_ref_ps > 0)
		rc |= ir_sb_addf(o, "; against the reference %.4f us (--state-ref): %zu phase%s slowed all through",
		                 d->state_ref_ps / 1e6, st->phases_slow, st->phases_slow == 1 ? "" : "s");
	rc |= ir_sb_addf(o, "; %zu slowed by more than %.0f %%", st->slowed, IR_CALIB_STATE_SLOW_PCT);
	if (st->slowed)
		rc |= ir_sb_addf(o, " (median %.4f us)", st->slow_med_ps / 1e6);
	rc |= ir_sb_addf(o, ": %zu of %zu measurements between two slowed pulses %s", st->set_aside, st->measured,
	                 d->keep_slowed ? "kept (--keep-slowed)" : "set aside");
	if (st->groups_whole)
		rc |= ir_sb_addf(o, "; %zu series and sizes kept whole, since fewer than %d would remain", st->groups_whole,
		                 IR_CALIB_STATE_MIN_KEEP);
	return rc | ir_sb_addch(o, '\n');
}

/* "# tracer's share: ..." (formats/calibration.md, "The tracer's share"). */
static int write_tracer(const ir_calib_data *d, ir_sb *o)
{
	const ir_calib_tracer *tr = &d->tracer;
	int rc = 0;
	if (!d->netcal)
		return 0;
	if (!tr->runs_blocks)
		return ir_sb_adds(o, "# tracer's share: no untraced blocks in the traces (a netcal without them): nothing taken off\n");
	rc |= ir_sb_addf(o, "# tracer's share: untraced blocks in %zu of %zu run%s, taken off in %zu", tr->runs_blocks, tr->runs,
	                 tr->runs == 1 ? "" : "s", tr->runs_applied);
	for (size_t i = 0; i < tr->runs_blocks && i < IR_CALIB_TRACER_RUNS; i++) {
		const ir_calib_tracer_run *r = &tr->run[i];
		rc |= ir_sb_addf(o, "; run %zu: %zu pulse%s between two blocks", r->run, r->pairs, r->pairs == 1 ? "" : "s");
		if (r->dropped)
			rc |= ir_sb_addf(o, " (%zu block%s left out: a flush of the tracer's buffer in it)", r->dropped,
			                 r->dropped == 1 ? "" : "s");
		if (r->pairs)
			rc |= ir_sb_addf(o, ", one way traced %.4f us, untraced %.4f us, difference %.4f us (95 %%: %.4f to %.4f)",
			                 r->traced_ps / 1e6, r->bare_ps / 1e6, r->med_ps / 1e6, r->lo_ps / 1e6, r->hi_ps / 1e6);
		if (r->applied)
			rc |= ir_sb_adds(o, ": taken off every one-way time, half of it off every call's duration");
		else if (d->keep_tracer)
			rc |= ir_sb_adds(o, ": kept (--tracer-time keep)");
		else if (r->pairs < IR_CALIB_TRACER_MIN_PAIRS)
			rc |= ir_sb_addf(o, ": fewer than %d pairs, nothing taken off", IR_CALIB_TRACER_MIN_PAIRS);
		else
			rc |= ir_sb_adds(o, ": not above 0 with 95 % confidence, nothing taken off");
	}
	if (tr->runs_blocks > IR_CALIB_TRACER_RUNS)
		rc |= ir_sb_addf(o, "; %zu more runs", tr->runs_blocks - IR_CALIB_TRACER_RUNS);
	return rc | ir_sb_addch(o, '\n');
}

static int write_drift(const ir_calib_data *d, ir_sb *o)
{
	size_t tested, n = ir_calib_drifted(d, &tested);
	int rc = 0;
	if (!tested)
		return 0;
	if (!n)
		return ir_sb_addf(o, "# drift: none: at each of the %zu sizes with %d or more exchanges, the medians of the "
		                     "first and the second half (input order) agree within %g %% or %g standard errors\n",
		                  tested, IR_CALIB_DRIFT_MIN_REPS, IR_CALIB_DRIFT_PCT, IR_CALIB_DRIFT_SE);
	rc |= ir_sb_addf(o, "# drift: the one-way time moved during the run at %zu of %zu sizes with %d or more exchanges: "
	                    "the medians of the first and the second half (input order) differ by more than %g %% and %g "
	                    "standard errors; their median is a mixture of two states of the machine:\n",
	                 n, tested, IR_CALIB_DRIFT_MIN_REPS, IR_CALIB_DRIFT_PCT, IR_CALIB_DRIFT_SE);
	for (size_t i = 0; i < d->np; i++) {
		const ir_calib_point *p = &d->p[i];
		if (p->drift)
			rc |= ir_sb_addf(o, "# drift at %" PRIu64 " bytes: %.4f us, then %.4f us (%+.1f %% of the estimate %.4f us; standard "
			                    "error %.4f us)\n",
			                 p->size, p->half_ps[0] / US_PS, p->half_ps[1] / US_PS,
			                 100 * (p->half_ps[1] - p->half_ps[0]) / p->real_ps, p->real_ps / US_PS, p->half_se_ps / US_PS);
	}
	return rc;
}

int ir_calib_write_params(const ir_calib_data *d, const ir_calib_fit *f, const ir_calib_net *net,
                          const char *version, ir_sb *o)
{
	char a[64], b[64], c[64];
	int rc = 0;
	size_t nsamples = 0, nfirst = 0;
	for (size_t i = 0; i < d->np; i++) {
		nsamples += d->p[i].reps;
		nfirst += d->p[i].nfirst;
	}
	rc |= ir_sb_addf(o, "# written by calib %s from %s\n", version, d->source);
	if (d->runs > 1)
		rc |= ir_sb_addf(o, "# runs: %zu, pooled: every %s below is over the samples of all of them\n", d->runs,
		                 estimate_name(d));
	if (d->estimator == IR_CALIB_EST_MEDIAN)
		rc |= ir_sb_adds(o, "# estimate: per size the median of its repetitions (calib --estimator median; "
		                    "formats/calibration.md, \"Mean or median\")\n");
	else
		rc |= ir_sb_addf(o, "# estimate: per size the mean of its repetitions, winsorized at %g %% (the largest %g %% "
		                    "counted as the value below them, the smallest as the value above them; calib --estimator "
		                    "mean; formats/calibration.md, \"Mean or median\")\n",
		                 100 * IR_CALIB_EST_WINS, 100 * IR_CALIB_EST_WINS);
	if (d->netcal)
		rc |= ir_sb_addf(o, "# input: netcal traces of %" PRIu32 " ranks: %zu sizes, %zu warm exchanges, %zu cold, %zu first, "
		                    "%zu late receives, %zu self copies, %zu reductions, %zu library copies\n",
		                 d->nranks, d->np, nsamples, count_kind(d, IR_CS_COLD), nfirst, count_kind(d, IR_CS_LATE),
		                 count_kind(d, IR_CS_SELF), count_kind(d, IR_CS_REDUCE), count_kind(d, IR_CS_LCOPY));
	if (d->netcal && f->netcal) {
		if (!d->ser[IR_CS_EXCH].n)
			rc |= ir_sb_adds(o, "# exchange: no exchange phase in the traces: send_o above S is not raised to what an "
			                    "exchange shows (formats/calibration.md, \"The exchange\")\n");
		else
			rc |= ir_sb_addf(o, "# exchange: %zu exchanges; send_o above S is exchange - recv_o at %zu of the %zu sizes "
			                    "above S (or held) with one, where that is more than the one-way time leaves\n",
			                 count_kind(d, IR_CS_EXCH), f->x_raised, f->x_sizes);
	}
	if (d->netcal) {
		rc |= ir_sb_addf(o, "# one-way: half the round trip less rank 1's gap from its receive to its answer, which a replay "
		                    "charges as computation (median %.1f ns over %zu exchanges",
		                 d->gap_med_ps / 1000, d->gap_n);
		if (d->gap_miss)
			rc |= ir_sb_addf(o, "; %zu without their answer on rank 1: nothing taken off", d->gap_miss);
		rc |= ir_sb_adds(o, ")\n");
	} else if (d->from_traces)
		rc |= ir_sb_addf(o, "# input: ping-pong traces of %" PRIu32 " ranks: %zu sizes, %zu reused exchanges, %zu first exchanges\n",
		                 d->nranks, d->np, nsamples, nfirst);
	else
		rc |= ir_sb_addf(o, "# input: TSV, %zu sizes, %zu rows%s\n", d->np, nsamples,
		                 d->have_sim ? ", network times from its sim_us column" : "");
	rc |= write_state(d, o);
	rc |= write_tracer(d, o);
	rc |= write_drift(d, o);
	if (f->model == IR_CALIB_LOGGP) {
		rc |= ir_sb_adds(o, "# model: pure LogGP network, one-way time = 2*o + L + G*(size-1)\n");
		rc |= add_fitline(o, "fit of the one-way time", &f->all, "us");
		rc |= ir_sb_addf(o, "# o: %s\n", f->lo_given ? "given on the command line" :
		                 d->from_traces ? (d->estimator == IR_CALIB_EST_MEDIAN ? "median duration of the smallest message's send calls" :
		                                   "mean duration of the smallest message's send calls") :
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
		if (f->S_protocol)
			rc |= ir_sb_addf(o, "# S: the largest size whose send to the late receiver returned before the receive "
			                    "was posted (eager; formats/calibration.md)\n");
		else if (f->S_searched)
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
	if (f->pin_cold) {
		/* Shared memory and TCP register nothing: a fresh buffer's first exchange costs what
		 * cold caches and TLB cost, and the cold-buffer exchange pays that too. */
		rc |= ir_sb_addf(o, "# pinning: first use is slower than the cold-buffer exchange beyond the noise at %zu of %zu "
		                    "sizes only:\n# its extra time is that of cold caches and TLB, which a buffer used before "
		                    "pays too, not a registration\n# (nothing is registered on shared memory or TCP): both "
		                    "written as 0\n",
		                 f->pin_nsig, f->pin_ncold);
		rc |= ir_sb_adds(o, "pin_a = 0ps        # first use of a buffer\n");
		rc |= ir_sb_adds(o, "pin_b = 0ps        # per newly used byte\n");
	} else if (f->have_pin) {
		if (f->netcal)
			rc |= ir_sb_addf(o, "# pinning: first use is slower than the cold-buffer exchange beyond the noise at %zu of "
			                    "%zu sizes (a registration, if it grows with the size):\n# first exchange minus the median "
			                    "cold round trip, per size\n",
			                 f->pin_nsig, f->pin_ncold);
		else
			rc |= ir_sb_adds(o, "# pinning: first exchange minus the median reused round trip, per size\n");
		rc |= add_fitline(o, "pinning fit", &f->pin, "us");
		if (f->pin_noise) {
			/* two sizes give a line but no standard error (ir_linfit: infinite) */
			int se = isfinite(f->pin.se_intercept) && isfinite(f->pin.se_slope);
			char sa[40] = "", sb[40] = " ps (2 sizes: no standard error)";
			if (se) {
				snprintf(sa, sizeof sa, " +- %.4g", f->pin.se_intercept / US_PS);
				snprintf(sb, sizeof sb, " +- %.4g ps", f->pin.se_slope);
			}
			rc |= ir_sb_addf(o, "# note: no first-use cost that grows with the buffer (fit: pin_a %.4g%s us, pin_b %.4g%s, "
			                    "R-squared %.3f; a registration costs per page, the same at every first use, and "
			                    "%s): both written as 0\n",
			                 f->pin_a / US_PS, sa, f->pin_b, sb, f->pin.r2,
			                 f->pin_b > 3 * f->pin.se_slope ? "the line explains less than half of the excess's variance"
			                                                : "pin_b is not positive by three standard errors");
		}
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
	if (f->netcal)
		rc |= write_netcal(d, f, o);
	rc |= ir_sb_adds(o, "# residuals per point: size_bytes samples real_us model_us residual_us [first_use_extra_us]\n");
	for (size_t i = 0; i < d->np; i++) {
		double m = ir_calib_model_ps(d, f, i), res = (d->p[i].real_ps - m) / US_PS;
		if (fabs(res) < 0.00005)
			res = 0; /* no "-0.0000" from rounding noise */
		rc |= ir_sb_addf(o, "#   %" PRIu64 " %zu %.4f %.4f %+.4f", d->p[i].size, d->p[i].reps, d->p[i].real_ps / US_PS,
		                 m / US_PS, res);
		if (d->p[i].nfirst)
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
		if (d->p[i].nfirst)
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
	for (int k = 0; k < IR_CT_N && f->netcal; k++) {
		if (!f->term[k].have)
			continue;
		rc |= ir_sb_addf(o, "%s%s = ", pfx, ir_calib_term_names[k]);
		rc |= ir_pw_format(&f->term[k].pw.pw, o);
		rc |= ir_sb_addch(o, '\n');
	}
	if (f->pin_cold)
		rc |= ir_sb_addf(o, "%spinning: 0 (first use slower than a cold buffer beyond the noise at %zu of %zu sizes only)\n",
		                 pfx, f->pin_nsig, f->pin_ncold);
	else if (f->have_pin)
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
		if (d->p[i].size && d->p[i].nfirst) {
			rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, d->p[i].first_ps / US_PS);
			any_first = 1;
		}
	rc |= ir_sb_adds(o, "EOD\n$cold << EOD\n");
	for (size_t i = 0; i < d->np; i++) {
		const ir_calib_med *c = d->netcal && d->p[i].size ? ir_calib_series_at(d, IR_CS_COLD, d->p[i].size) : NULL;
		if (c)
			rc |= ir_sb_addf(o, "%" PRIu64 " %.6f\n", d->p[i].size, c->med / US_PS);
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
	if (d->netcal)
		rc |= ir_sb_adds(o, ", \\\n  $cold using 1:2 with points pt 4 ps 1.0 lc rgb '#9467bd' title 'cold buffer (median)'");
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
