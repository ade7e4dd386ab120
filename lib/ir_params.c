/*
 * ir_params.c: parameter files (see ir_params.h and formats/params.md).
 *
 * Sets are small (a few dozen keys), so they are a plain array searched
 * linearly; a hash table would cost more code than it saves.
 */
#include "ir_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_io.h"
#include "ir_num.h"

typedef struct entry {
	char *key;
	char *value;
	char *file;          /* origin file, or NULL for an option */
	char *opt;           /* option name when file is NULL */
	unsigned long line;
	unsigned gen;        /* which load set it (duplicates within one load are errors) */
} entry;

struct ir_params {
	entry *v;
	size_t n, cap;
	unsigned gen;
};

ir_params *ir_params_new(void) { return calloc(1, sizeof(ir_params)); }

static void entry_free(entry *x)
{
	free(x->key);
	free(x->value);
	free(x->file);
	free(x->opt);
}

void ir_params_free(ir_params *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		entry_free(&p->v[i]);
	free(p->v);
	free(p);
}

static int keych(int c, int first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return 1;
	return !first && ((c >= '0' && c <= '9') || c == '.' || c == '-');
}

static int keyeq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
}

static long find(const ir_params *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (keyeq(p->v[i].key, key))
			return (long)i;
	return -1;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Store key=value; file NULL means option `opt`. */
static int put(ir_params *p, const char *key, size_t kl, const char *val, size_t vl, const char *file,
               unsigned long line, const char *opt, ir_err *e)
{
	entry x;
	long i;
	char kbuf[IR_PARAMS_KEY_MAX + 1];
	memcpy(kbuf, key, kl);
	kbuf[kl] = '\0';
	for (size_t k = 0; k < kl; k++)
		if (kbuf[k] == '-')
			kbuf[k] = '_';
	i = find(p, kbuf);
	if (i >= 0 && file && p->v[i].file && p->v[i].gen == p->gen)
		return ir_errf_at(e, file, line, "duplicate key '%s' (first set at line %lu)", kbuf, p->v[i].line);
	memset(&x, 0, sizeof x);
	x.key = dupn(kbuf, kl);
	x.value = dupn(val, vl);
	x.file = file ? dupn(file, strlen(file)) : NULL;
	x.opt = opt ? dupn(opt, strlen(opt)) : NULL;
	x.line = line;
	x.gen = p->gen;
	if (!x.key || !x.value || (file && !x.file) || (opt && !x.opt)) {
		entry_free(&x);
		return ir_errf(e, "out of memory");
	}
	if (i >= 0) {
		entry_free(&p->v[i]);
		p->v[i] = x;
		return 0;
	}
	if (p->n == IR_PARAMS_MAX) {
		entry_free(&x);
		if (file)
			return ir_errf_at(e, file, line, "too many keys (at most %d)", IR_PARAMS_MAX);
		return ir_errf(e, "too many parameters (at most %d)", IR_PARAMS_MAX);
	}
	if (IR_GROW(p->v, p->n + 1, p->cap)) {
		entry_free(&x);
		return ir_errf(e, "out of memory");
	}
	p->v[p->n++] = x;
	return 0;
}

static int isws(char c) { return c == ' ' || c == '\t'; }

static int parse_line(ir_params *p, char *s, size_t len, const char *name, unsigned long line, ir_err *e)
{
	char q[160], q2[160];
	size_t i = 0, kb, ke, vb, ve;
	if (memchr(s, '\0', len))
		return ir_errf_at(e, name, line, "unexpected NUL byte");
	for (size_t k = 0; k < len; k++)
		if ((unsigned char)s[k] < 0x20 && s[k] != '\t')
			return ir_errf_at(e, name, line, "unexpected control character \\x%02x", (unsigned char)s[k]);
	/* cut the comment */
	for (size_t k = 0; k < len; k++)
		if (s[k] == '#') {
			len = k;
			break;
		}
	while (i < len && isws(s[i]))
		i++;
	if (i == len)
		return 0;
	kb = i;
	while (i < len && keych((unsigned char)s[i], i == kb))
		i++;
	ke = i;
	while (i < len && isws(s[i]))
		i++;
	if (ke == kb || i == len || s[i] != '=') {
		while (len > kb && isws(s[len - 1]))
			len--;
		if (ke == kb)
			return ir_errf_at(e, name, line, "expected a key (a letter or '_' first), found '%s'",
			                  ir_err_quote(q, sizeof q, s + kb, len - kb));
		return ir_errf_at(e, name, line, "expected '=' after key '%s', found '%s'",
		                  ir_err_quote(q, sizeof q, s + kb, ke - kb), ir_err_quote(q2, sizeof q2, s + i, len - i));
	}
	if (ke - kb > IR_PARAMS_KEY_MAX)
		return ir_errf_at(e, name, line, "key '%s' is longer than %d characters",
		                  ir_err_quote(q, sizeof q, s + kb, ke - kb), IR_PARAMS_KEY_MAX);
	i++;
	while (i < len && isws(s[i]))
		i++;
	vb = i;
	ve = len;
	while (ve > vb && isws(s[ve - 1]))
		ve--;
	if (ve == vb)
		return ir_errf_at(e, name, line, "missing value for '%s'", ir_err_quote(q, sizeof q, s + kb, ke - kb));
	if (ve - vb > IR_PARAMS_VALUE_MAX)
		return ir_errf_at(e, name, line, "value of '%s' is longer than %d characters",
		                  ir_err_quote(q, sizeof q, s + kb, ke - kb), IR_PARAMS_VALUE_MAX);
	return put(p, s + kb, ke - kb, s + vb, ve - vb, name, line, NULL, e);
}

static int parse_reader(ir_params *p, ir_reader *r, ir_err *e)
{
	char *line;
	size_t len;
	int rc;
	p->gen++;
	while ((rc = ir_reader_line(r, &line, &len, e)) == 1)
		if (parse_line(p, line, len, ir_reader_name(r), ir_reader_lineno(r), e))
			return -1;
	return rc;
}

int ir_params_load(ir_params *p, const char *path, ir_err *e)
{
	ir_reader *r = ir_reader_open(path, e);
	int rc;
	if (!r)
		return -1;
	rc = parse_reader(p, r, e);
	ir_reader_free(r);
	return rc;
}

int ir_params_parse(ir_params *p, const void *text, size_t len, const char *name, ir_err *e)
{
	ir_reader *r = ir_reader_open_mem(text, len, name, e);
	int rc;
	if (!r)
		return -1;
	rc = parse_reader(p, r, e);
	ir_reader_free(r);
	return rc;
}

int ir_params_set(ir_params *p, const char *key, const char *value, const char *opt, ir_err *e)
{
	size_t kl = strlen(key);
	if (!kl || kl > IR_PARAMS_KEY_MAX)
		return ir_errf(e, "invalid parameter name '%s'", key);
	for (size_t i = 0; i < kl; i++)
		if (!keych((unsigned char)key[i], i == 0))
			return ir_errf(e, "invalid parameter name '%s'", key);
	for (const char *c = value; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t')
			return ir_errf(e, "value for %s contains control character \\x%02x", opt ? opt : key,
			               (unsigned char)*c);
	if (strlen(value) > IR_PARAMS_VALUE_MAX)
		return ir_errf(e, "value for %s is longer than %d characters", opt ? opt : key, IR_PARAMS_VALUE_MAX);
	return put(p, key, kl, value, strlen(value), NULL, 0, opt ? opt : key, e);
}

size_t ir_params_count(const ir_params *p) { return p->n; }
const char *ir_params_key(const ir_params *p, size_t i) { return i < p->n ? p->v[i].key : NULL; }
const char *ir_params_value(const ir_params *p, size_t i) { return i < p->n ? p->v[i].value : NULL; }

const char *ir_params_origin(const ir_params *p, size_t i, char *buf, size_t n)
{
	if (i >= p->n)
		snprintf(buf, n, "?");
	else if (p->v[i].file)
		snprintf(buf, n, "%s:%lu", p->v[i].file, p->v[i].line);
	else
		snprintf(buf, n, "%s", p->v[i].opt);
	return buf;
}

const char *ir_params_get(const ir_params *p, const char *key)
{
	long i = find(p, key);
	return i < 0 ? NULL : p->v[i].value;
}

typedef int (*parse_fn)(const char *s, void *out, const char *what, ir_err *e);

static int get_typed(const ir_params *p, const char *key, void *out, parse_fn fn, ir_err *e)
{
	long i = find(p, key);
	char what[IR_PARAMS_KEY_MAX + 8];
	const entry *x;
	if (i < 0)
		return 0;
	x = &p->v[i];
	if (!x->file)
		return fn(x->value, out, x->opt, e) ? -1 : 1;
	snprintf(what, sizeof what, "'%s'", x->key);
	if (fn(x->value, out, what, e)) {
		ir_err t = *e;
		ir_errf_at(e, x->file, x->line, "%s", t.msg);
		return -1;
	}
	return 1;
}

static int p_time(const char *s, void *o, const char *w, ir_err *e) { return ir_parse_time(s, o, w, e); }
static int p_size(const char *s, void *o, const char *w, ir_err *e) { return ir_parse_size(s, o, w, e); }
static int p_u64(const char *s, void *o, const char *w, ir_err *e) { return ir_parse_u64(s, o, w, e); }
static int p_dbl(const char *s, void *o, const char *w, ir_err *e) { return ir_parse_double(s, o, w, e); }

int ir_params_time(const ir_params *p, const char *key, uint64_t *out, ir_err *e)
{
	return get_typed(p, key, out, p_time, e);
}
int ir_params_size(const ir_params *p, const char *key, uint64_t *out, ir_err *e)
{
	return get_typed(p, key, out, p_size, e);
}
int ir_params_u64(const ir_params *p, const char *key, uint64_t *out, ir_err *e)
{
	return get_typed(p, key, out, p_u64, e);
}
int ir_params_double(const ir_params *p, const char *key, double *out, ir_err *e)
{
	return get_typed(p, key, out, p_dbl, e);
}

long ir_params_next_unknown(const ir_params *p, const char *const *known, size_t *i)
{
	for (; *i < p->n; (*i)++) {
		size_t k;
		for (k = 0; known[k]; k++)
			if (keyeq(p->v[*i].key, known[k]))
				break;
		if (!known[k])
			return (long)(*i)++;
	}
	return -1;
}

int ir_params_write(const ir_params *p, ir_sb *out)
{
	for (size_t i = 0; i < p->n; i++)
		if (ir_sb_addf(out, "%s = %s\n", p->v[i].key, p->v[i].value))
			return -1;
	return 0;
}
