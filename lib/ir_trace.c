/*
 * ir_trace.c: trace discovery and the per-rank trace stream (see ir_trace.h).
 *
 * The stream splits each line in place (the ':' separators become NULs), so a
 * record costs one memchr pass and no allocation. Times are parsed exactly
 * (integer microseconds and up to six decimals to picoseconds, no floating
 * point); only the clock offset, a small correction, is computed in double.
 */
#include "ir_trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "ir_grow.h"
#include "ir_io.h"

#define TAIL_BYTES ((size_t)64 << 10)
#define MAX_RANKS ((uint64_t)1 << 24)
#define MAX_SPAN_US ((int64_t)9000000000000LL) /* ~104 days either side of the epoch */

/* ------------------------------------------------------------------ discovery */

static int cmp_file(const void *a, const void *b)
{
	const ir_trace_file *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Rank of `path` by the pattern: 1 found, 0 no match, -1 error (no digits, too big). */
static int rank_of(pcre2_code *re, pcre2_match_data *md, const char *path, uint64_t *rank, ir_err *e)
{
	const char *b = base_name(path);
	int rc = pcre2_match(re, (PCRE2_SPTR)b, strlen(b), 0, 0, md, NULL);
	PCRE2_SIZE *ov;
	size_t s, n;
	char q[200];
	uint64_t v = 0;
	if (rc < 0)
		return 0;
	ov = pcre2_get_ovector_pointer(md);
	if (rc >= 2 && ov[2] != PCRE2_UNSET) {
		s = ov[2];
		n = ov[3] - ov[2];
	} else {
		s = ov[0];
		n = ov[1] - ov[0];
	}
	if (n == 0 || n > 12 || strspn(b + s, "0123456789") < n) {
		ir_err_quote(q, sizeof q, b + s, n);
		return ir_errf(e, "%s: the rank pattern matched '%s', expected a decimal rank", path, q);
	}
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(b[s + i] - '0');
	if (v >= MAX_RANKS)
		return ir_errf(e, "%s: rank %llu is too large (at most %llu ranks)", path,
		               (unsigned long long)v, (unsigned long long)MAX_RANKS);
	*rank = v;
	return 1;
}

static int add_file(ir_trace_files *out, size_t *cap, const char *path, uint64_t rank, ir_err *e)
{
	if (IR_GROW(out->f, out->n + 1, *cap))
		return ir_errf(e, "out of memory");
	out->f[out->n].path = strdup(path);
	if (!out->f[out->n].path)
		return ir_errf(e, "out of memory");
	out->f[out->n].rank = (uint32_t)rank;
	out->f[out->n].data = NULL;
	out->f[out->n].len = 0;
	out->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int scan_dir(ir_trace_files *out, size_t *cap, const char *dir, pcre2_code *re,
                    pcre2_match_data *md, ir_err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, nc = 0;
	int rc = 0;
	if (!d)
		return ir_errf(e, "%s: cannot open directory: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char *p;
		struct stat st;
		size_t dl = strlen(de->d_name);
		if (de->d_name[0] == '.')
			continue;
		/* an OTF2 archive beside the traces (allprof --format both) is no trace: its anchor
		 * "traces.otf2" and definitions "traces.def" would otherwise be read as ranks */
		if ((dl > 5 && !strcmp(de->d_name + dl - 5, ".otf2")) || (dl > 4 && !strcmp(de->d_name + dl - 4, ".def")))
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0) {
			rc = ir_errf(e, "out of memory");
			break;
		}
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (IR_GROW(names, nn + 1, nc)) {
			free(p);
			rc = ir_errf(e, "out of memory");
			break;
		}
		names[nn++] = p;
	}
	closedir(d);
	if (rc == 0 && nn > 0)
		qsort(names, nn, sizeof *names, cmp_str);
	for (size_t i = 0; i < nn; i++) {
		uint64_t rank;
		int m;
		if (rc == 0) {
			m = rank_of(re, md, names[i], &rank, e);
			if (m < 0)
				rc = -1;
			else if (m > 0 && add_file(out, cap, names[i], rank, e))
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int ir_trace_discover(ir_trace_files *out, char *const *args, size_t nargs, const char *pattern,
                      ir_err *e)
{
	pcre2_code *re;
	pcre2_match_data *md = NULL;
	int errcode, rc = -1;
	PCRE2_SIZE erroff;
	size_t cap = 0;

	out->f = NULL;
	out->n = 0;
	if (!pattern)
		pattern = IR_TRACE_DEFAULT_PATTERN;
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &errcode, &erroff, NULL);
	if (!re) {
		PCRE2_UCHAR buf[160];
		pcre2_get_error_message(errcode, buf, sizeof buf);
		return ir_errf(e, "invalid rank pattern '%.200s': %s at offset %zu", pattern, (char *)buf, (size_t)erroff);
	}
	md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!md) {
		ir_errf(e, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nargs; i++) {
		struct stat st;
		uint64_t rank;
		int m;
		if (stat(args[i], &st) != 0) {
			ir_errf(e, "%s: %s", args[i], strerror(errno));
			goto done;
		}
		if (S_ISDIR(st.st_mode)) {
			if (scan_dir(out, &cap, args[i], re, md, e))
				goto done;
			continue;
		}
		m = rank_of(re, md, args[i], &rank, e);
		if (m < 0)
			goto done;
		if (m == 0) {
			ir_errf(e, "%s: no rank in the file name (rank pattern '%.200s')", args[i], pattern);
			goto done;
		}
		if (add_file(out, &cap, args[i], rank, e))
			goto done;
	}
	if (out->n == 0) {
		ir_errf(e, "no trace files found in %s%s", nargs ? args[0] : "(nothing)", nargs > 1 ? " ..." : "");
		goto done;
	}
	qsort(out->f, out->n, sizeof *out->f, cmp_file);
	for (size_t i = 0; i < out->n; i++) {
		if (i > 0 && out->f[i].rank == out->f[i - 1].rank) {
			ir_errf(e, "rank %u has two traces: %s and %s", out->f[i].rank, out->f[i - 1].path,
			        out->f[i].path);
			goto done;
		}
		if (out->f[i].rank != i) {
			ir_errf(e, "trace of rank %zu is missing (found %zu traces, highest rank %u)", i, out->n,
			        out->f[out->n - 1].rank);
			goto done;
		}
	}
	rc = 0;
done:
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (rc)
		ir_trace_files_release(out);
	return rc;
}

void ir_trace_files_release(ir_trace_files *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->f[i].path);
		free(f->f[i].data);
	}
	free(f->f);
	f->f = NULL;
	f->n = 0;
}

/* ------------------------------------------------------------------ fields */

/* Digits at *p (NUL-terminated string), at most 19. */
static int scan_u(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;
	while (*p >= '0' && *p <= '9') {
		if (++n > 19)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (n == 0)
		return -1;
	*pp = p;
	*out = v;
	return 0;
}

static int scan_i(const char **pp, int64_t *v)
{
	const char *p = *pp;
	uint64_t u;
	int neg = 0;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (scan_u(&p, &u) || u > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	*pp = p;
	return 0;
}

int ir_tf_int(const char *f, int64_t *v)
{
	const char *p = f;
	if (scan_i(&p, v) || *p)
		return -1;
	return 0;
}

int ir_tf_handle(const char *f, uint64_t *v, int *is_id)
{
	const char *p = f;
	*is_id = 0;
	if (*p == 'r') {
		*is_id = 1;
		p++;
	}
	if (scan_u(&p, v) || *p)
		return -1;
	return 0;
}

int ir_tf_triple(const char *f, int64_t *a, int64_t *b, int64_t *c)
{
	const char *p = f;
	if (scan_i(&p, a) || *p++ != ',' || scan_i(&p, b) || *p++ != ',' || scan_i(&p, c) || *p)
		return -1;
	return 0;
}

long ir_tf_list(const char *f, uint64_t *v, size_t max)
{
	const char *p = f;
	size_t n = 0;
	if (!*p)
		return 0;
	for (;;) {
		uint64_t u;
		if (n >= max || scan_u(&p, &u))
			return -1;
		v[n++] = u;
		if (!*p)
			return (long)n;
		if (*p++ != ',')
			return -1;
	}
}

/* Microseconds "<int>[.<frac>]" to picoseconds since epoch_us (no clock offset). */
int ir_tf_time(const char *f, size_t len, int64_t epoch_us, int64_t *ps)
{
	const char *p = f, *end = f + len;
	uint64_t ip = 0, frac = 0;
	int n = 0, nd = 0;
	int64_t rel;
	while (p < end && *p >= '0' && *p <= '9') {
		if (++n > 18)
			return -1;
		ip = ip * 10 + (uint64_t)(*p++ - '0');
	}
	if (n == 0)
		return -1;
	if (p < end && *p == '.') {
		p++;
		if (p == end)
			return -1;
		while (p < end && *p >= '0' && *p <= '9') {
			if (nd < 6) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				nd++;
			}
			p++;
		}
		if (p != end)
			return -1;
		while (nd < 6) {
			frac *= 10;
			nd++;
		}
	} else if (p != end) {
		return -1;
	}
	rel = (int64_t)ip - epoch_us;
	if (rel > MAX_SPAN_US || rel < -MAX_SPAN_US)
		return -1;
	*ps = rel * 1000000 + (int64_t)frac;
	return 0;
}

/* ------------------------------------------------------------------ stream */

struct ir_trace {
	ir_reader *r;
	char *name;
	enum ir_trace_flavor flavor;
	int64_t epoch_us;
	int no_clock;
	double oi, of;   /* offsets, us */
	int has_oi, has_of;
	double ri, rf;   /* round trips of the exchanges the offsets came from, us */
	int has_ri, has_rf;
	int64_t ti_ps;   /* local MPI_Init return, ps since epoch (uncorrected) */
	int64_t tf_ps;   /* local MPI_Finalize call (from the tail) */
	int has_ti, has_tf;
	int seen_end;    /* "# end" line */
	int span;        /* "# span:" line */
	double self_ps;  /* "# tracer:" line (tail): the tracer's time after a return, ps; -1 none */
	int64_t flush_ps; /* "# flush:" lines since the last call line, ps */
	int64_t collapse_gap_ps; /* "# collapse gap:" line, ps; 0: none */
	char incomplete[120]; /* "# incomplete <why>" */
	int seen_call;
	int at_eof;
	uint32_t *members;
	size_t mcap;
};

static int parse_offset(const char *s, double *v)
{
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v) || fabs(*v) > 1e12)
		return -1;
	return 0;
}

/* Header comment lines that carry values. Returns 1 if handled as an offset or
 * a round trip (formats/trace.md §2, clock offsets). */
static int header_offset(ir_trace *t, const char *l)
{
	const struct {
		const char *prefix;
		double *v;
		int *has;
	} keys[] = {
		{ "# clockdiff:", &t->oi, &t->has_oi },  { "# Init clockdiff:", &t->oi, &t->has_oi },
		{ "# Finalize clockdiff:", &t->of, &t->has_of }, { "# Init clockrtt:", &t->ri, &t->has_ri },
		{ "# Finalize clockrtt:", &t->rf, &t->has_rf },
	};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		size_t n = strlen(keys[k].prefix);
		double v;
		if (strncmp(l, keys[k].prefix, n) == 0 && parse_offset(l + n, &v) == 0) {
			*keys[k].v = v;
			*keys[k].has = 1;
			return 1;
		}
	}
	return 0;
}

/* Look at one line of the tail scan: Finalize offset and Finalize call time. */
static void tail_line(ir_trace *t, const char *l, size_t n)
{
	static const char fz[] = "MPI_Finalize:";
	if (n > 0 && l[0] == '#') {
		char buf[128];
		if (n >= sizeof buf)
			return;
		memcpy(buf, l, n);
		buf[n] = 0;
		if (strncmp(buf, "# Finalize clock", 16) == 0)
			header_offset(t, buf);
		else if (strncmp(buf, "# tracer: ", 10) == 0) {
			/* "# tracer: <ns> ns after <n> returns" (formats/trace.md 3.8) */
			unsigned long long ns, nr;
			char tail[16];
			if (sscanf(buf + 10, "%llu ns after %llu %15s", &ns, &nr, tail) == 3 && !strcmp(tail, "returns") &&
			    nr > 0 && ns <= 1000000000000000000ull)
				t->self_ps = (double)ns * 1000.0 / (double)nr;
		}
		return;
	}
	if (n > sizeof fz - 1 && memcmp(l, fz, sizeof fz - 1) == 0) {
		const char *s = l + sizeof fz - 1, *c = memchr(s, ':', n - (sizeof fz - 1));
		int64_t ps;
		if (c && ir_tf_time(s, (size_t)(c - s), t->epoch_us, &ps) == 0) {
			t->tf_ps = ps;
			t->has_tf = 1;
		}
	}
}

static void tail_scan_plain(ir_trace *t, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf;
	size_t n, i, s;
	off_t from;
	ssize_t k;
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	from = st.st_size > (off_t)TAIL_BYTES ? st.st_size - (off_t)TAIL_BYTES : 0;
	buf = malloc(TAIL_BYTES);
	if (!buf) {
		close(fd);
		return;
	}
	k = pread(fd, buf, TAIL_BYTES, from);
	close(fd);
	if (k <= 0) {
		free(buf);
		return;
	}
	n = (size_t)k;
	i = 0;
	if (from > 0) { /* skip the partial first line */
		char *nl = memchr(buf, '\n', n);
		i = nl ? (size_t)(nl - buf) + 1 : n;
	}
	while (i < n) {
		char *nl = memchr(buf + i, '\n', n - i);
		s = i;
		i = nl ? (size_t)(nl - buf) : n;
		{
			size_t len = i - s;
			if (len && buf[s + len - 1] == '\r')
				len--;
			tail_line(t, buf + s, len);
		}
		i++;
	}
	free(buf);
}

static void tail_scan_stream(ir_trace *t, ir_reader *r2)
{
	char *l;
	size_t n;
	ir_err e2;
	while (ir_reader_line(r2, &l, &n, &e2) == 1)
		if (l[0] == '#' || l[0] == 'M')
			tail_line(t, l, n);
}

static ir_trace *trace_new(const char *name, const ir_trace_opts *o, ir_err *e)
{
	ir_trace *t = calloc(1, sizeof *t);
	if (!t) {
		ir_errf(e, "out of memory");
		return NULL;
	}
	t->name = strdup(name);
	if (!t->name) {
		free(t);
		ir_errf(e, "out of memory");
		return NULL;
	}
	t->epoch_us = o ? o->epoch_us : 0;
	t->no_clock = o ? o->no_clock : 0;
	t->self_ps = -1;
	return t;
}

ir_trace *ir_trace_open(const char *path, const ir_trace_opts *o, ir_err *e)
{
	ir_trace *t;
	t = trace_new(path && strcmp(path, "-") ? path : "<stdin>", o, e);
	if (!t)
		return NULL;
	t->r = ir_reader_open(path, e);
	if (!t->r) {
		ir_trace_free(t);
		return NULL;
	}
	if (path && strcmp(path, "-") != 0 && !t->no_clock) {
		if (ir_reader_compression(t->r) == IR_PLAIN) {
			tail_scan_plain(t, path);
		} else {
			ir_err e2;
			ir_reader *r2 = ir_reader_open(path, &e2);
			if (r2) {
				tail_scan_stream(t, r2);
				ir_reader_free(r2);
			}
		}
	}
	return t;
}

ir_trace *ir_trace_open_mem(const void *data, size_t len, const char *name, const ir_trace_opts *o,
                            ir_err *e)
{
	ir_trace *t = trace_new(name, o, e);
	if (!t)
		return NULL;
	t->r = ir_reader_open_mem(data, len, name, e);
	if (!t->r) {
		ir_trace_free(t);
		return NULL;
	}
	if (!t->no_clock) {
		ir_err e2;
		ir_reader *r2 = ir_reader_open_mem(data, len, name, &e2);
		if (r2) {
			tail_scan_stream(t, r2);
			ir_reader_free(r2);
		}
	}
	return t;
}

ir_trace *ir_trace_open_file(const ir_trace_file *tf, const ir_trace_opts *o, ir_err *e)
{
	if (tf->data)
		return ir_trace_open_mem(tf->data, tf->len, tf->path, o, e);
	return ir_trace_open(tf->path, o, e);
}

void ir_trace_free(ir_trace *t)
{
	if (!t)
		return;
	ir_reader_free(t->r);
	free(t->members);
	free(t->name);
	free(t);
}

const char *ir_trace_name(const ir_trace *t) { return t->name; }
enum ir_trace_flavor ir_trace_flavor(const ir_trace *t) { return t->flavor; }
int ir_trace_span(const ir_trace *t) { return t->span; }
double ir_trace_self_ps(const ir_trace *t) { return t->self_ps; }
int64_t ir_trace_collapse_gap_ps(const ir_trace *t) { return t->collapse_gap_ps; }
double ir_trace_offset_init(const ir_trace *t) { return t->oi; }
double ir_trace_offset_fini(const ir_trace *t) { return t->of; }
int ir_trace_has_fini_offset(const ir_trace *t) { return t->has_of; }
double ir_trace_rtt_init(const ir_trace *t) { return t->has_ri ? t->ri : -1; }
double ir_trace_rtt_fini(const ir_trace *t) { return t->has_rf ? t->rf : -1; }

/* Clock offset at local time ps (since epoch), in picoseconds (formats/trace.md §2,
 * clock offsets): interpolated between the Init and the Finalize offsets when the
 * drift they imply is a clock's (at most IR_TRACE_MAX_DRIFT), else the offset of the
 * exchange with the smaller round trip for the whole trace. */
static int64_t offset_at(const ir_trace *t, int64_t ps)
{
	double off = t->oi;
	if (t->no_clock)
		return 0;
	if (t->has_of && t->has_ti && t->has_tf && t->tf_ps > t->ti_ps) {
		double span = (double)(t->tf_ps - t->ti_ps), f;
		if (fabs(t->of - t->oi) * 1e6 > IR_TRACE_MAX_DRIFT * span)
			return (int64_t)llround((t->has_ri && t->has_rf && t->rf < t->ri ? t->of : t->oi) * 1e6);
		f = (double)(ps - t->ti_ps) / span;
		if (f < 0)
			f = 0;
		if (f > 1)
			f = 1;
		off = t->oi + (t->of - t->oi) * f;
	}
	return (int64_t)llround(off * 1e6);
}

static int bad_line(ir_trace *t, const char *what, const char *l, size_t n, ir_err *e)
{
	char q[200];
	ir_err_quote(q, sizeof q, l, n > 40 ? 40 : n);
	return ir_errf_at(e, t->name, ir_reader_lineno(t->r), "%s, found '%s'", what, q);
}

static int parse_comm(ir_trace *t, char *l, size_t n, ir_rec *r, ir_err *e)
{
	const char *p = l + 7; /* "# comm " */
	uint64_t id, m;
	size_t k = 0;
	if (scan_u(&p, &id) || *p != ' ')
		return bad_line(t, "expected '# comm <id> <world ranks>'", l, n, e);
	p++;
	for (;;) {
		if (scan_u(&p, &m) || m >= MAX_RANKS)
			return bad_line(t, "expected '# comm <id> <world ranks>'", l, n, e);
		if (IR_GROW(t->members, k + 1, t->mcap))
			return ir_errf(e, "out of memory");
		t->members[k++] = (uint32_t)m;
		if (*p == 0 || *p == ' ')
			break;
		if (*p++ != ',')
			return bad_line(t, "expected '# comm <id> <world ranks>'", l, n, e);
	}
	r->kind = IR_REC_COMM;
	r->comm_id = id;
	r->members = t->members;
	r->nmembers = k;
	return 1;
}

/* Split a call line in place. */
static int parse_call(ir_trace *t, char *l, size_t n, ir_rec *r, ir_err *e)
{
	char *p = l, *end = l + n, *c, *fields[IR_TRACE_MAXF + 2];
	unsigned nf = 0;
	int64_t ps;
	c = memchr(p, ':', n);
	if (!c || c == l)
		return bad_line(t, "expected 'NAME:<call time>:<arguments>:<return time>'", l, n, e);
	for (char *q = l; q < c; q++)
		if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_'))
			return bad_line(t, "expected a call name", l, (size_t)(c - l), e);
	*c = 0;
	r->name = l;
	p = c + 1;
	for (;;) {
		c = memchr(p, ':', (size_t)(end - p));
		if (nf == IR_TRACE_MAXF + 2)
			return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
			                  "%s has more than %d arguments", r->name, IR_TRACE_MAXF);
		fields[nf++] = p;
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	*end = 0;
	r->cpu_call = r->cpu_ret = IR_TIME_NONE;
	if (nf >= 3 && fields[nf - 1][0] == 'c') {
		/* format version 2: the thread's CPU times after the return time, "c<call>,<return>" */
		const char *cf = fields[nf - 1] + 1, *comma = strchr(cf, ',');
		if (!comma || ir_tf_time(cf, (size_t)(comma - cf), 0, &r->cpu_call) ||
		    ir_tf_time(comma + 1, strlen(comma + 1), 0, &r->cpu_ret) || r->cpu_ret < r->cpu_call ||
		    r->cpu_call < 0) {
			char q[80];
			ir_err_quote(q, sizeof q, fields[nf - 1], strlen(fields[nf - 1]));
			return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
			                  "%s: expected CPU times 'c<call>,<return>' in microseconds, found '%s'", r->name,
			                  q);
		}
		nf--;
	}
	if (nf < 2)
		return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
		                  "%s: expected a call time and a return time, found %u field%s", r->name, nf,
		                  nf == 1 ? "" : "s");
	r->kind = IR_REC_CALL;
	r->nf = nf - 2;
	memcpy(r->f, fields + 1, r->nf * sizeof *r->f);
	/* times */
	{
		const char *tc = fields[0], *tr = fields[nf - 1];
		if (tc[0] == '-' && tc[1] == 0) {
			r->t_call = IR_TIME_NONE;
		} else if (ir_tf_time(tc, strlen(tc), t->epoch_us, &ps)) {
			char q[80];
			ir_err_quote(q, sizeof q, tc, strlen(tc));
			return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
			                  "%s: expected a call time in microseconds, found '%s'", r->name, q);
		} else {
			r->t_call = ps;
		}
		if (tr[0] == '-' && tr[1] == 0) {
			r->t_ret = IR_TIME_NONE;
		} else if (ir_tf_time(tr, strlen(tr), t->epoch_us, &ps)) {
			char q[80];
			ir_err_quote(q, sizeof q, tr, strlen(tr));
			return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
			                  "%s: expected a return time in microseconds, found '%s'", r->name, q);
		} else {
			r->t_ret = ps;
		}
	}
	if (!t->seen_call) {
		int64_t first = r->t_ret != IR_TIME_NONE ? r->t_ret : r->t_call;
		if (first != IR_TIME_NONE) {
			t->ti_ps = first;
			t->has_ti = 1;
		}
		t->seen_call = 1;
	}
	if (r->t_call != IR_TIME_NONE && r->t_ret != IR_TIME_NONE && r->t_ret < r->t_call)
		return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
		                  "%s: return time is before the call time (cut or corrupt line?)", r->name);
	if (r->t_call != IR_TIME_NONE)
		r->t_call += offset_at(t, r->t_call);
	if (r->t_ret != IR_TIME_NONE)
		r->t_ret += offset_at(t, r->t_ret);
	return 1;
}

static int next_line(ir_trace *t, char **l, size_t *n, ir_err *e)
{
	int rc = ir_reader_line(t->r, l, n, e);
	if (rc < 0)
		ir_err_prefix(e, t->name);
	return rc;
}

int ir_trace_next(ir_trace *t, ir_rec *r, ir_err *e)
{
	char *l;
	size_t n;
	int rc;
	if (t->at_eof)
		return 0;
	for (;;) {
		rc = next_line(t, &l, &n, e);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			t->at_eof = 1;
			if (t->flavor == IR_TRACE_ALLPROF && !t->seen_end) {
				if (t->incomplete[0])
					return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
					                  "trace is cut short: it says '# incomplete %s'", t->incomplete);
				return ir_errf_at(e, t->name, ir_reader_lineno(t->r),
				                  "trace is cut short: no '# end' line (the run did not finish writing it)");
			}
			return 0;
		}
		r->line = ir_reader_lineno(t->r);
		if (n == 0)
			continue;
		if (l[0] == '#') {
			if (r->line == 1 && strncmp(l, "# allprof", 9) == 0)
				t->flavor = IR_TRACE_ALLPROF;
			if (header_offset(t, l))
				continue;
			if (strncmp(l, "# comm ", 7) == 0)
				return parse_comm(t, l, n, r, e);
			if (strncmp(l, "# incomplete", 12) == 0) {
				ir_err_quote(t->incomplete, sizeof t->incomplete, l + 12 + (l[12] == ' '),
				             strlen(l + 12 + (l[12] == ' ')) > 24 ? 24 : strlen(l + 12 + (l[12] == ' ')));
				continue;
			}
			if (strncmp(l, "# span:", 7) == 0) {
				t->span = 1;
				continue;
			}
			if (strncmp(l, "# flush: ", 9) == 0) {
				/* "# flush: <ns> ns": the tracer's flush in the gap after the call before */
				const char *p = l + 9;
				uint64_t ns;
				if (scan_u(&p, &ns) || strcmp(p, " ns") != 0 || ns > 1000000000000000ull)
					return bad_line(t, "expected '# flush: <ns> ns'", l, n, e);
				t->flush_ps += (int64_t)ns * 1000;
				continue;
			}
			if (strncmp(l, "# collapse gap: ", 16) == 0) {
				/* "# collapse gap: <ns> ns" (formats/trace.md 3.2): no collapsed line holds
				 * two polls farther apart than that */
				const char *p = l + 16;
				uint64_t ns;
				if (scan_u(&p, &ns) || strcmp(p, " ns") != 0 || ns == 0 || ns > 1000000000000ull)
					return bad_line(t, "expected '# collapse gap: <ns> ns' (1 ns to 1000 s)", l, n, e);
				t->collapse_gap_ps = (int64_t)ns * 1000;
				continue;
			}
			if (strncmp(l, "# end", 5) == 0 && (l[5] == 0 || l[5] == ' ')) {
				t->seen_end = 1;
				continue;
			}
			continue;
		}
		if (t->seen_end)
			return bad_line(t, "expected nothing after the '# end' line", l, n, e);
		r->tracer_ps = t->flush_ps;
		t->flush_ps = 0;
		return parse_call(t, l, n, r, e);
	}
}

static int epoch_of(ir_reader *r, const char *rank0_path, int64_t *epoch_us, ir_err *e);

int ir_trace_epoch(const char *rank0_path, int64_t *epoch_us, ir_err *e)
{
	return epoch_of(ir_reader_open(rank0_path, e), rank0_path, epoch_us, e);
}

int ir_trace_epoch_file(const ir_trace_file *rank0, int64_t *epoch_us, ir_err *e)
{
	if (rank0->data)
		return epoch_of(ir_reader_open_mem(rank0->data, rank0->len, rank0->path, e), rank0->path, epoch_us, e);
	return ir_trace_epoch(rank0->path, epoch_us, e);
}

static int epoch_of(ir_reader *r, const char *rank0_path, int64_t *epoch_us, ir_err *e)
{
	char *l;
	size_t n;
	int rc;
	*epoch_us = 0;
	if (!r)
		return -1;
	while ((rc = ir_reader_line(r, &l, &n, e)) == 1) {
		char *c, *last;
		uint64_t ip = 0;
		int nd = 0;
		if (n == 0 || l[0] == '#')
			continue;
		/* first timed call: the return time (last field), else the call time */
		last = strrchr(l, ':');
		c = memchr(l, ':', n);
		if (!c || !last)
			break;
		{
			const char *p = (last[1] >= '0' && last[1] <= '9') ? last + 1 : c + 1;
			while (*p >= '0' && *p <= '9' && nd < 18) {
				ip = ip * 10 + (uint64_t)(*p++ - '0');
				nd++;
			}
		}
		if (nd)
			*epoch_us = (int64_t)ip;
		break;
	}
	ir_reader_free(r);
	if (rc < 0) {
		ir_err_prefix(e, rank0_path);
		return -1;
	}
	return 0;
}
