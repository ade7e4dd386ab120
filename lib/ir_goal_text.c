/*
 * ir_goal_text.c: the GOAL text compiler (formats/goal.md).
 *
 * One pass over the input, one line at a time (ir_reader_line: memchr over a
 * large buffer, no copy in the common case). Each line is one statement,
 * scanned by hand: no regex, no tokens materialised, no allocation per line.
 * What a rank block produces is kept only until its closing '}':
 *
 *   - ops: appended to a growable array of 24-byte op records (ir_goal.h),
 *     so the rank's section is built in place and handed to the sink as is;
 *   - labels: an open-addressing hash table (power-of-two slots holding the
 *     hash and the entry index, load <= 1/2, double hashing; see hash_name
 *     for why sequential labels land in consecutive slots) over an arena of
 *     NUL-terminated names. A label can be referenced before it is defined:
 *     the reference creates the entry with no op and the definition fills it
 *     in; entries still without an op at '}' are unknown labels, reported at
 *     their first reference;
 *   - dependencies: (dependent label, predecessor label) pairs, resolved at
 *     '}' into the CSR of dependents: one counting pass by predecessor, then
 *     each predecessor's short list sorted (insertion sort, qsort when long)
 *     and de-duplicated ("requires" wins over "irequires" on the same pair,
 *     since needing an op done implies needing it started). O(ops + edges).
 *
 * Then Kahn's algorithm checks the rank is acyclic; only when it is not are
 * predecessor lists built to walk back and name one cycle.
 *
 * Memory is proportional to the largest rank (plus one small hash of the rank
 * numbers seen, so a missing or repeated rank is found without allocating
 * num_ranks-sized arrays up front: a tiny file saying "num_ranks 2000000000"
 * must not allocate gigabytes).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_grow.h"
#include "ir_hmap.h"
#include "ir_io.h"

#define NONE UINT32_MAX
#define MAX_TAG 0x7FFFFFFFu
#define MAX_RANKS 0x7FFFFFFFu

typedef struct lab {
	uint32_t off;  /* name in the arena */
	uint32_t len;
	uint32_t op;   /* NONE while referenced but not defined */
	uint32_t hash;
	unsigned long line; /* definition, or first reference while undefined */
} lab;

typedef struct dep {
	uint32_t dep;  /* label index of the dependent */
	uint32_t pred; /* label index of the predecessor | IR_EDGE_IREQ */
} dep;

struct ir_goal_parser {
	ir_reader *in;
	const char *name;
	const ir_goal_sink *sink;
	ir_err *e;
	const char *end;         /* end of the current line */
	unsigned long line;

	unsigned version;        /* 1, or as the `version` statement says */
	unsigned long version_line;
	uint32_t num_ranks;
	int have_num_ranks;
	unsigned long num_ranks_line;
	int in_comment;
	unsigned long comment_line;

	/* ranks seen: 0..nseq-1 in a list of their blocks' lines (ranks nearly always come
	 * in order), any other in a hash, rank -> line of its block (unsigned long) */
	unsigned long *seq_line;
	uint32_t nseq;
	size_t seq_cap;
	ir_hmap seen;

	/* the open rank block */
	int in_block;
	uint32_t rank;
	unsigned long block_line;
	unsigned char *ops;
	uint32_t nops, ops_cap;
	uint32_t *op_lab;
	unsigned max_cpu, max_nic;
	dep *deps;
	size_t ndeps, deps_cap;
	lab *labs;
	uint32_t nlabs, labs_cap;
	uint64_t *slots;         /* hash << 32 | (lab index + 1); 0 = empty */
	uint32_t nslots;
	char *arena;
	size_t arena_len, arena_cap;
	/* closing a block */
	uint32_t *cnt;           /* nops + 1 */
	uint32_t *keys;          /* ndeps */
	unsigned char *edges;    /* nedges * 4 */
	size_t cnt_cap, keys_cap, edges_cap;
};

/* Character classes: bit 1 label character, bit 2 digit. */
static unsigned char cls[256];
static void init_cls(void)
{
	if (cls['a'])
		return;
	for (int c = 0; c < 256; c++) {
		int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		           c == '.';
		cls[c] = (unsigned char)((word ? 1 : 0) | (c >= '0' && c <= '9' ? 2 : 0));
	}
}
#define IS_WORD(c) (cls[(unsigned char)(c)] & 1)
#define IS_DIGIT(c) (cls[(unsigned char)(c)] & 2)

static int oom(ir_goal_parser *P)
{
	return ir_errf_at(P->e, P->name, P->line, "out of memory in rank %u (%u ops)", P->rank, P->nops);
}

/* "'token'" (up to the next blank) or "end of line", for messages. */
static const char *found(const ir_goal_parser *P, const char *p, char *buf, size_t n)
{
	const char *q = p;
	char qb[200];
	if (p >= P->end)
		return "end of line";
	while (q < P->end && *q != ' ' && *q != '\t')
		q++;
	ir_err_quote(qb, 48 * 4 + 16 > sizeof qb ? sizeof qb : 48 * 4 + 16, p, (size_t)(q - p));
	snprintf(buf, n, "'%s'", qb);
	return buf;
}

static int fail(ir_goal_parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ir_goal_parser *P, const char *fmt, ...)
{
	char msg[IR_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ir_errf_at(P->e, P->name, P->line, "%s", msg);
}

static int expected(ir_goal_parser *P, const char *what, const char *p)
{
	char b[256];
	return fail(P, "expected %s, found %s", what, found(P, p, b, sizeof b));
}

/* Skip blanks and comments. A block comment left open ends the line. */
static const char *ws_comment(ir_goal_parser *P, const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/' || p + 1 >= P->end)
			return p;
		if (p[1] == '/')
			return P->end;
		if (p[1] != '*')
			return p;
		const char *q = memmem(p + 2, (size_t)(P->end - (p + 2)), "*/", 2);
		if (!q) {
			P->in_comment = 1;
			P->comment_line = P->line;
			return P->end;
		}
		p = q + 2;
	}
}

/* Inline, since it runs between every two tokens: blanks, and the call only when a
 * comment may start. */
static inline const char *ws(ir_goal_parser *P, const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '/' ? ws_comment(P, p) : p;
}

static const char *word_end(const char *p)
{
	while (IS_WORD(*p))
		p++;
	return p;
}

static int word_is(const char *p, const char *q, const char *kw, size_t n)
{
	return (size_t)(q - p) == n && memcmp(p, kw, n) == 0;
}
#define WORD_IS(p, q, lit) word_is(p, q, lit, sizeof lit - 1)

/* An unsigned decimal number at *pp. `what` says what was expected (for "expected
 * <what>, found ..."), `noun` names the value in the overflow message. With
 * `size_b`, the number may be followed directly by the 'b' of a size. */
static int number_long(ir_goal_parser *P, const char **pp, uint64_t *v, const char *what, const char *noun, int size_b)
{
	const char *p = *pp;
	uint64_t x = 0;
	if (!IS_DIGIT(*p))
		return expected(P, what, p);
	while (IS_DIGIT(*p)) {
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10) {
			char b[256];
			return fail(P, "%s %s does not fit in 64 bits", noun, found(P, *pp, b, sizeof b));
		}
		x = x * 10 + d;
		p++;
	}
	if (IS_WORD(*p) && !(size_b && *p == 'b' && !IS_WORD(p[1])))
		return expected(P, what, *pp);
	*v = x;
	*pp = p;
	return 0;
}

/* The same, inline: numbers of up to 19 digits cannot overflow, so the loop checks
 * nothing per digit; a longer one (or none) takes number_long, for its messages. */
static inline int number(ir_goal_parser *P, const char **pp, uint64_t *v, const char *what, const char *noun,
                         int size_b)
{
	const char *p = *pp;
	unsigned d = (unsigned)(unsigned char)*p - '0';
	uint64_t x;
	if (d > 9)
		return number_long(P, pp, v, what, noun, size_b);
	x = d;
	p++;
	for (int k = 1; k < 19 && (d = (unsigned)(unsigned char)*p - '0') <= 9; k++, p++)
		x = x * 10 + d;
	if (IS_WORD(*p) && !(size_b && *p == 'b' && !IS_WORD(p[1])))
		return number_long(P, pp, v, what, noun, size_b);
	*v = x;
	*pp = p;
	return 0;
}

/* A number, or -1 (returned as IR_ANY with *any set: a written 4294967295
 * must not pass for the wildcard). */
static int number_or_any(ir_goal_parser *P, const char **pp, uint64_t *v, int *any, const char *what,
                         const char *noun)
{
	const char *p = *pp;
	*any = 0;
	if (p[0] == '-' && p[1] == '1' && !IS_WORD(p[2])) {
		*v = IR_ANY;
		*any = 1;
		*pp = p + 2;
		return 0;
	}
	if (p[0] == '-')
		return expected(P, what, p);
	return number(P, pp, v, what, noun, 0);
}

/* ---- labels ---- */

/* Label hash. Labels are nearly always a prefix and a number (l1, l2, ...,
 * r3_17) and are referenced a few lines after their definition, so the hash
 * keeps the number's order: mix(prefix, digit count) + number. Sequential
 * labels then fill consecutive slots and the table is walked like an array,
 * with cache hits instead of a miss per label (on a 400 000-label rank this
 * was half the parse time). Collisions probe by double hashing with a step
 * mixed from the whole hash, so the contiguous runs cannot pile up into the
 * long probe chains linear probing would give (primary clustering); any
 * label, numbered or not, costs an expected 1/(1 - load) <= 2 probes.
 * Why not the library's string map (ir_smap.h, on ir_hmap): ir_hmap mixes
 * every key, so sequential labels scatter over its three arrays (cache
 * misses on large ranks), its linear probing would turn the runs of this
 * hash into primary clustering, and a lookup makes two calls (XXH64,
 * ir_hmap) that this inline table does not. On ir_smap, goalc took 9 % more
 * CPU time on goalgen's ring (256 ranks of 40 000 labels) and 16 % more on
 * its dissemination (262 144 small ranks). Nothing depends on the slot order: labels are numbered in order of
 * first appearance (P->labs) and the table is never iterated. */
static uint32_t fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	h ^= h >> 16;
	return h;
}

static uint32_t hash_name(const char *s, size_t n)
{
	size_t nd = 0, i;
	uint32_t h, v = 0;
	while (nd < n && nd < 9 && IS_DIGIT(s[n - 1 - nd]))
		nd++;
	for (i = n - nd; i < n; i++)
		v = v * 10 + (uint32_t)(s[i] - '0');
	h = 2166136261u ^ (uint32_t)nd;
	for (i = 0; i < n - nd; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return fmix(h) + v;
}

static uint32_t probe_step(uint32_t h) { return fmix(h ^ 0x9E3779B9u) | 1; }

static int rehash(ir_goal_parser *P, uint32_t nslots)
{
	uint64_t *ns = calloc(nslots, sizeof *ns);
	if (!ns)
		return -1;
	for (uint32_t i = 0; i < P->nlabs; i++) {
		uint32_t s = P->labs[i].hash & (nslots - 1), st = probe_step(P->labs[i].hash);
		while (ns[s])
			s = (s + st) & (nslots - 1);
		ns[s] = (uint64_t)P->labs[i].hash << 32 | (i + 1);
	}
	free(P->slots);
	P->slots = ns;
	P->nslots = nslots;
	return 0;
}

/* Find or create the label; returns its index or NONE (error set). */
static uint32_t label(ir_goal_parser *P, const char *s, size_t n)
{
	uint32_t h = hash_name(s, n), i;
	uint32_t mask = P->nslots - 1;
	uint32_t slot = h & mask, step = 0;
	uint64_t k;
	/* the hash in the slot spares a visit to the label entry on every collision */
	while ((k = P->slots[slot]) != 0) {
		if ((uint32_t)(k >> 32) == h) {
			const lab *l = &P->labs[(uint32_t)k - 1];
			if (l->len == n) {
				/* labels are short: a loop beats a call to memcmp */
				const char *t = P->arena + l->off;
				size_t j = 0;
				while (j < n && t[j] == s[j])
					j++;
				if (j == n)
					return (uint32_t)k - 1;
			}
		}
		if (!step)
			step = probe_step(h);
		slot = (slot + step) & mask;
	}
	if (P->nlabs >= MAX_TAG) {
		fail(P, "too many labels in rank %u", P->rank);
		return NONE;
	}
	if (P->arena_len + n + 1 > UINT32_MAX) {
		fail(P, "label names of rank %u exceed 4 GiB", P->rank);
		return NONE;
	}
	size_t lc = P->labs_cap;
	if ((P->nlabs == lc && IR_GROW(P->labs, (size_t)P->nlabs + 1, lc)) ||
	    (P->arena_len + n + 1 > P->arena_cap && IR_GROW(P->arena, P->arena_len + n + 1, P->arena_cap))) {
		oom(P);
		return NONE;
	}
	P->labs_cap = (uint32_t)lc;
	i = P->nlabs++;
	P->labs[i].off = (uint32_t)P->arena_len;
	P->labs[i].len = (uint32_t)n;
	P->labs[i].op = NONE;
	P->labs[i].hash = h;
	P->labs[i].line = P->line;
	memcpy(P->arena + P->arena_len, s, n);
	P->arena[P->arena_len + n] = '\0';
	P->arena_len += n + 1;
	P->slots[slot] = (uint64_t)h << 32 | (i + 1);
	if ((uint64_t)P->nlabs * 2 > P->nslots && rehash(P, P->nslots * 2)) {
		oom(P);
		return NONE;
	}
	return i;
}

static const char *lab_name(const ir_goal_parser *P, uint32_t i) { return P->arena + P->labs[i].off; }

/* ---- statements ---- */

static int end_of_statement(ir_goal_parser *P, const char *p, const char *after)
{
	p = ws(P, p);
	if (p < P->end) {
		char b[256];
		return fail(P, "expected end of line after %s, found %s", after, found(P, p, b, sizeof b));
	}
	return 0;
}

static int op_new(ir_goal_parser *P, unsigned char **rec)
{
	if (P->nops >= IR_MAX_OPS_PER_RANK)
		return fail(P, "too many ops in rank %u (at most %u)", P->rank, IR_MAX_OPS_PER_RANK);
	if (P->nops == P->ops_cap) {
		size_t c = P->ops_cap;
		void *np;
		c = c ? c * 2 : 1024;
		if (c > IR_MAX_OPS_PER_RANK)
			c = IR_MAX_OPS_PER_RANK;
		np = realloc(P->ops, c * IR_OP_BYTES);
		if (!np)
			return oom(P);
		P->ops = np;
		np = realloc(P->op_lab, c * sizeof *P->op_lab);
		if (!np)
			return oom(P);
		P->op_lab = np;
		P->ops_cap = (uint32_t)c;
	}
	*rec = P->ops + (size_t)P->nops * IR_OP_BYTES;
	P->op_lab[P->nops] = NONE;
	return 0;
}

static int peer_check(ir_goal_parser *P, uint64_t v, int any, const char *what)
{
	if (!any && v >= P->num_ranks)
		return fail(P, "%s %llu out of range (num_ranks is %u)", what, (unsigned long long)v, P->num_ranks);
	return 0;
}

/* read/write (version 2) at p, after the keyword: `<size>b at <address> [cpu C]`. */
static int parse_io(ir_goal_parser *P, const char *kw, const char *p, uint32_t li)
{
	unsigned char *rec = NULL;
	uint64_t size, addr, cpu = 0;
	int have_cpu = 0;
	if (!P->in_block)
		return fail(P, "'%s' outside a rank block (expected 'rank <R> {' first)", kw);
	if (P->version < 2)
		return fail(P, "'%s' needs 'version 2' before num_ranks (version 1 has no storage operations)", kw);
	p = ws(P, p);
	if (number(P, &p, &size, kw[0] == 'r' ? "a size after 'read'" : "a size after 'write'", "size", 1))
		return -1;
	p = ws(P, p);
	if (*p != 'b' || IS_WORD(p[1]))
		return expected(P, "'b' after the size", p);
	p = ws(P, p + 1);
	{
		const char *q = word_end(p);
		if (!WORD_IS(p, q, "at"))
			return expected(P, "'at' after the size of a storage operation", p);
		p = ws(P, q);
	}
	if (number(P, &p, &addr, "an address after 'at'", "address", 0))
		return -1;
	for (;;) {
		p = ws(P, p);
		if (p >= P->end)
			break;
		const char *q = word_end(p);
		if (!WORD_IS(p, q, "cpu")) {
			char b[256];
			return fail(P, "expected 'cpu' or end of line, found %s", found(P, p, b, sizeof b));
		}
		if (have_cpu)
			return fail(P, "'cpu' given twice");
		have_cpu = 1;
		p = ws(P, q);
		if (number(P, &p, &cpu, "a number after 'cpu'", "cpu", 0))
			return -1;
		if (cpu > 255)
			return fail(P, "cpu %llu out of range (0..255)", (unsigned long long)cpu);
	}
	if (op_new(P, &rec))
		return -1;
	rec[0] = (unsigned char)(kw[0] == 'r' ? IR_OP_READ : IR_OP_WRITE);
	rec[1] = (unsigned char)cpu;
	rec[2] = 0;
	rec[3] = 0;
	ir_put32(rec + 4, (uint32_t)addr);
	ir_put32(rec + 8, (uint32_t)(addr >> 32));
	ir_put32(rec + 12, 0);
	ir_put64(rec + 16, size);
	if (cpu > P->max_cpu)
		P->max_cpu = (unsigned)cpu;
	if (li != NONE) {
		lab *l = &P->labs[li];
		if (l->op != NONE)
			return fail(P, "duplicate label '%s' in rank %u (first defined on line %lu)", lab_name(P, li),
			            P->rank, l->line);
		l->op = P->nops;
		l->line = P->line;
		P->op_lab[P->nops] = li;
	}
	P->nops++;
	return 0;
}

/* `version N` before num_ranks. */
static int parse_version(ir_goal_parser *P, const char *p)
{
	uint64_t v;
	if (P->version_line)
		return fail(P, "version given twice (first on line %lu)", P->version_line);
	if (P->have_num_ranks)
		return fail(P, "'version' after num_ranks (it must come first)");
	p = ws(P, p);
	if (number(P, &p, &v, "a version number after 'version'", "version", 0))
		return -1;
	if (v < 1 || v > IR_GOAL_VERSION_MAX)
		return fail(P, "version %llu not supported (this reader knows 1 and %d)", (unsigned long long)v,
		            IR_GOAL_VERSION_MAX);
	if (end_of_statement(P, p, "the version"))
		return -1;
	P->version = (unsigned)v;
	P->version_line = P->line;
	return 0;
}

/* send/recv/calc at p (after the keyword `kw` of length 4); `li` the label or NONE. */
static int parse_op(ir_goal_parser *P, const char *kw, const char *p, uint32_t li)
{
	unsigned char *rec = NULL;
	uint64_t size, peer = 0, tag = 0, cpu = 0, nic = 0;
	int type = kw[0] == 's' ? IR_OP_SEND : kw[0] == 'r' ? IR_OP_RECV : IR_OP_CALC;
	int have_tag = 0, have_cpu = 0, have_nic = 0, any_peer = 0, any_tag = 0;
	const char *what;

	if (!P->in_block)
		return fail(P, "'%s' outside a rank block (expected 'rank <R> {' first)", kw);
	p = ws(P, p);
	if (type == IR_OP_CALC) {
		if (number(P, &p, &size, "a time in picoseconds after 'calc'", "time", 0))
			return -1;
	} else {
		if (number(P, &p, &size, type == IR_OP_SEND ? "a size after 'send'" : "a size after 'recv'", "size", 1))
			return -1;
		p = ws(P, p);
		if (*p != 'b' || IS_WORD(p[1]))
			return expected(P, "'b' after the size", p);
		p = ws(P, p + 1);
		const char *q = word_end(p);
		if (type == IR_OP_SEND) {
			if (!WORD_IS(p, q, "to"))
				return expected(P, "'to' after the size of a send", p);
			p = ws(P, q);
			if (number(P, &p, &peer, "a destination rank after 'to'", "rank", 0) ||
			    peer_check(P, peer, 0, "destination rank"))
				return -1;
		} else {
			if (!WORD_IS(p, q, "from"))
				return expected(P, "'from' after the size of a recv", p);
			p = ws(P, q);
			if (number_or_any(P, &p, &peer, &any_peer, "a source rank or -1 after 'from'", "rank") ||
			    peer_check(P, peer, any_peer, "source rank"))
				return -1;
		}
	}
	for (;;) {
		p = ws(P, p);
		if (p >= P->end)
			break;
		const char *q = word_end(p);
		const char *opt;
		uint64_t *dst;
		int *have;
		if (type != IR_OP_CALC && WORD_IS(p, q, "tag")) {
			opt = "tag", dst = &tag, have = &have_tag;
		} else if (WORD_IS(p, q, "cpu")) {
			opt = "cpu", dst = &cpu, have = &have_cpu;
		} else if (type != IR_OP_CALC && WORD_IS(p, q, "nic")) {
			opt = "nic", dst = &nic, have = &have_nic;
		} else {
			char b[256];
			return fail(P, "expected %s or end of line, found %s",
			            type == IR_OP_CALC ? "'cpu'" : "'tag', 'cpu', 'nic'", found(P, p, b, sizeof b));
		}
		if (*have)
			return fail(P, "'%s' given twice", opt);
		*have = 1;
		p = ws(P, q);
		what = dst == &tag ? "a tag after 'tag'" : dst == &cpu ? "a number after 'cpu'" : "a number after 'nic'";
		if (dst == &tag) {
			if (number_or_any(P, &p, dst, &any_tag, type == IR_OP_RECV ? "a tag or -1 after 'tag'" : what, "tag"))
				return -1;
			if (any_tag && type == IR_OP_SEND) {
				return fail(P, "send with tag -1: a send needs a tag 0..%u (-1 matches any tag on recv only)",
				            MAX_TAG);
			}
			if (!any_tag && *dst > MAX_TAG)
				return fail(P, "tag %llu out of range (0..%u%s)", (unsigned long long)*dst, MAX_TAG,
				            type == IR_OP_RECV ? " or -1" : "");
		} else {
			if (number(P, &p, dst, what, opt, 0))
				return -1;
			if (*dst > 255)
				return fail(P, "%s %llu out of range (0..255)", opt, (unsigned long long)*dst);
		}
	}
	if (op_new(P, &rec))
		return -1;
	rec[0] = (unsigned char)type;
	rec[1] = (unsigned char)cpu;
	rec[2] = (unsigned char)nic;
	rec[3] = 0;
	ir_put32(rec + 4, (uint32_t)peer);
	ir_put32(rec + 8, (uint32_t)tag);
	ir_put32(rec + 12, 0);
	ir_put64(rec + 16, size);
	if (cpu > P->max_cpu)
		P->max_cpu = (unsigned)cpu;
	if (nic > P->max_nic)
		P->max_nic = (unsigned)nic;
	if (li != NONE) {
		lab *l = &P->labs[li];
		if (l->op != NONE)
			return fail(P, "duplicate label '%s' in rank %u (first defined on line %lu)", lab_name(P, li),
			            P->rank, l->line);
		l->op = P->nops;
		l->line = P->line;
		P->op_lab[P->nops] = li;
	}
	P->nops++;
	return 0;
}

static int parse_requires(ir_goal_parser *P, const char *a, const char *ae, const char *p, int ireq)
{
	uint32_t la, lb;
	const char *b, *be;
	if (!P->in_block)
		return fail(P, "'%s' outside a rank block (expected 'rank <R> {' first)", ireq ? "irequires" : "requires");
	p = ws(P, p);
	b = p;
	be = word_end(p);
	if (be == b)
		return expected(P, ireq ? "a label after 'irequires'" : "a label after 'requires'", p);
	if (end_of_statement(P, be, "the label"))
		return -1;
	la = label(P, a, (size_t)(ae - a));
	if (la == NONE)
		return -1;
	lb = label(P, b, (size_t)(be - b));
	if (lb == NONE)
		return -1;
	if (la == lb)
		return fail(P, "label '%s' %s itself", lab_name(P, la), ireq ? "irequires" : "requires");
	if (P->ndeps == P->deps_cap && IR_GROW(P->deps, P->ndeps + 1, P->deps_cap))
		return oom(P);
	P->deps[P->ndeps].dep = la;
	P->deps[P->ndeps].pred = lb | (ireq ? IR_EDGE_IREQ : 0);
	P->ndeps++;
	return 0;
}

/* ---- the set of rank numbers seen ---- */

static int u32cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* After the last line: every rank 0..num_ranks-1 must have had a block. */
static int check_all_ranks(ir_goal_parser *P)
{
	uint32_t *r, n = 0, missing;
	if ((uint64_t)P->nseq + P->seen.n == P->num_ranks)
		return 0;
	r = malloc((P->seen.n + 1) * sizeof *r);
	if (!r)
		return ir_errf_at(P->e, P->name, 0, "out of memory");
	for (size_t i = 0; i < P->seen.cap; i++)
		if (ir_hmap_at(&P->seen, i))
			r[n++] = (uint32_t)ir_hmap_key_a(&P->seen, i);
	qsort(r, n, sizeof *r, u32cmp);
	/* 0..nseq-1 were seen, the hash's ranks are all nseq or more */
	missing = P->nseq;
	for (uint32_t i = 0; i < n && r[i] == missing; i++)
		missing++;
	free(r);
	return ir_errf_at(P->e, P->name, 0, "missing rank %u (num_ranks is %u)", missing, P->num_ranks);
}

/* ---- closing a rank block ---- */

static void sort_keys(uint32_t *k, size_t n)
{
	if (n > 24) {
		qsort(k, n, sizeof *k, u32cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t x = k[i];
		size_t j = i;
		while (j > 0 && k[j - 1] > x) {
			k[j] = k[j - 1];
			j--;
		}
		k[j] = x;
	}
}

/* Name one cycle among the ops Kahn's algorithm left (indeg > 0). Error path only. */
static int report_cycle(ir_goal_parser *P, const uint32_t *indeg, uint32_t nedges)
{
	uint32_t n = P->nops, start = NONE, cur, *pstart = NULL, *plist = NULL, *mark = NULL;
	char msg[IR_ERR_MAX];
	size_t len;
	int rc = -1;
	pstart = calloc((size_t)n + 1, sizeof *pstart);
	plist = malloc(((size_t)nedges + 1) * sizeof *plist);
	mark = calloc((size_t)n + 1, sizeof *mark);
	if (!pstart || !plist || !mark) {
		oom(P);
		goto out;
	}
	/* predecessor lists of the remaining ops, from the successor CSR */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = ir_get32(P->ops + (size_t)i * IR_OP_BYTES + 12);
		uint32_t en = i + 1 < n ? ir_get32(P->ops + (size_t)(i + 1) * IR_OP_BYTES + 12) : nedges;
		for (uint32_t k = b; k < en; k++)
			pstart[(ir_get32(P->edges + (size_t)k * 4) & IR_EDGE_INDEX) + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		pstart[i + 1] += pstart[i];
	{
		uint32_t *fillp = mark; /* reuse as fill pointers, then clear */
		for (uint32_t i = 0; i < n; i++)
			fillp[i] = pstart[i];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t b = ir_get32(P->ops + (size_t)i * IR_OP_BYTES + 12);
			uint32_t en = i + 1 < n ? ir_get32(P->ops + (size_t)(i + 1) * IR_OP_BYTES + 12) : nedges;
			for (uint32_t k = b; k < en; k++) {
				uint32_t d = ir_get32(P->edges + (size_t)k * 4) & IR_EDGE_INDEX;
				plist[fillp[d]++] = i;
			}
		}
		memset(mark, 0, ((size_t)n + 1) * sizeof *mark);
	}
	for (uint32_t i = 0; i < n; i++)
		if (indeg[i]) {
			start = i;
			break;
		}
	/* walk to a remaining predecessor until an op repeats: mark = step number + 1 */
	cur = start;
	for (uint32_t step = 1; !mark[cur]; step++) {
		mark[cur] = step;
		uint32_t nx = NONE;
		for (uint32_t k = pstart[cur]; k < pstart[cur + 1]; k++)
			if (indeg[plist[k]]) {
				nx = plist[k];
				break;
			}
		if (nx == NONE)
			break; /* cannot happen: a remaining op has a remaining predecessor */
		cur = nx;
	}
	/* cur is on the cycle: print from cur around back to cur */
	len = (size_t)snprintf(msg, sizeof msg, "dependency cycle in rank %u: ", P->rank);
	{
		uint32_t c = cur;
		do {
			const char *nm = P->op_lab[c] != NONE ? lab_name(P, P->op_lab[c]) : "?";
			if (len < sizeof msg)
				len += (size_t)snprintf(msg + len, sizeof msg - len, "%s -> ", nm);
			uint32_t nx = NONE;
			for (uint32_t k = pstart[c]; k < pstart[c + 1]; k++)
				if (indeg[plist[k]] && mark[plist[k]]) {
					nx = plist[k];
					break;
				}
			if (nx == NONE)
				break;
			c = nx;
		} while (c != cur);
		const char *nm = P->op_lab[cur] != NONE ? lab_name(P, P->op_lab[cur]) : "?";
		if (len < sizeof msg)
			snprintf(msg + len, sizeof msg - len, "%s", nm);
	}
	ir_errf_at(P->e, P->name, P->block_line, "%s", msg);
out:
	free(pstart);
	free(plist);
	free(mark);
	return rc;
}

static int close_block(ir_goal_parser *P)
{
	uint32_t n = P->nops, nedges = 0;
	size_t nd = P->ndeps;
	/* every label referenced must be defined */
	for (uint32_t i = 0; i < P->nlabs; i++)
		if (P->labs[i].op == NONE)
			return ir_errf_at(P->e, P->name, P->labs[i].line, "unknown label '%s' in rank %u",
			                  lab_name(P, i), P->rank);
	if (IR_GROW(P->cnt, (size_t)n + 2, P->cnt_cap) || IR_GROW(P->keys, nd + 1, P->keys_cap) ||
	    IR_GROW(P->edges, nd * 4 + 8, P->edges_cap))
		return oom(P);
	uint32_t *cnt = P->cnt, *keys = P->keys;
	memset(cnt, 0, ((size_t)n + 2) * sizeof *cnt);
	/* bucket by predecessor: cnt[p+1] counts, prefix sums give starts */
	for (size_t k = 0; k < nd; k++)
		cnt[P->labs[P->deps[k].pred & IR_EDGE_INDEX].op + 1]++;
	for (uint32_t i = 0; i < n; i++)
		cnt[i + 1] += cnt[i];
	for (size_t k = 0; k < nd; k++) {
		uint32_t pr = P->labs[P->deps[k].pred & IR_EDGE_INDEX].op;
		uint32_t d = P->labs[P->deps[k].dep].op;
		/* key sorts by dependent, "requires" (0) before "irequires" (1) */
		keys[cnt[pr]++] = (d << 1) | (P->deps[k].pred >> 31);
	}
	/* cnt[i] is now the end of bucket i; bucket i starts at cnt[i-1] (0 for i = 0) */
	{
		uint32_t b = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t en = cnt[i];
			unsigned char *rec = P->ops + (size_t)i * IR_OP_BYTES;
			ir_put32(rec + 12, nedges);
			sort_keys(keys + b, en - b);
			uint32_t last = NONE;
			for (uint32_t k = b; k < en; k++) {
				uint32_t d = keys[k] >> 1;
				if (d == last)
					continue;
				last = d;
				ir_put32(P->edges + (size_t)nedges * 4, d | (keys[k] & 1 ? IR_EDGE_IREQ : 0));
				nedges++;
			}
			b = en;
		}
	}
	/* Kahn's algorithm: cnt becomes the in-degree, keys the queue */
	if (IR_GROW(P->keys, (size_t)n + 1, P->keys_cap))
		return oom(P);
	keys = P->keys;
	memset(cnt, 0, ((size_t)n + 1) * sizeof *cnt);
	for (uint32_t k = 0; k < nedges; k++)
		cnt[ir_get32(P->edges + (size_t)k * 4) & IR_EDGE_INDEX]++;
	{
		uint32_t qh = 0, qt = 0;
		for (uint32_t i = 0; i < n; i++)
			if (!cnt[i])
				keys[qt++] = i;
		while (qh < qt) {
			uint32_t i = keys[qh++];
			uint32_t b = ir_get32(P->ops + (size_t)i * IR_OP_BYTES + 12);
			uint32_t en = i + 1 < n ? ir_get32(P->ops + (size_t)(i + 1) * IR_OP_BYTES + 12) : nedges;
			for (uint32_t k = b; k < en; k++) {
				uint32_t d = ir_get32(P->edges + (size_t)k * 4) & IR_EDGE_INDEX;
				if (--cnt[d] == 0)
					keys[qt++] = d;
			}
		}
		if (qt < n)
			return report_cycle(P, cnt, nedges);
	}
	ir_rank r;
	r.ops = P->ops;
	r.edges = P->edges;
	r.nops = n;
	r.nedges = nedges;
	r.ncpus = P->max_cpu + 1;
	r.nnics = P->max_nic + 1;
	if (P->sink->rank && P->sink->rank(P->sink->ctx, P->rank, &r, P, P->e))
		return -1;
	/* reset for the next block; keep the allocations, but do not let one huge
	 * rank make every later small rank clear a huge label table */
	uint32_t target = 256;
	while (target < 2 * P->nlabs && target < (1u << 31))
		target *= 2;
	P->in_block = 0;
	P->nops = 0;
	P->ndeps = 0;
	P->nlabs = 0;
	P->arena_len = 0;
	P->max_cpu = P->max_nic = 0;
	if (P->nslots > 4 * target) {
		free(P->slots);
		P->slots = NULL;
		P->nslots = 0;
		if (rehash(P, target))
			return oom(P);
	} else {
		memset(P->slots, 0, (size_t)P->nslots * sizeof *P->slots);
	}
	return 0;
}

static int parse_rank(ir_goal_parser *P, const char *p)
{
	uint64_t r;
	int isnew;
	unsigned long *s;
	if (!P->have_num_ranks)
		return fail(P, "expected 'num_ranks <N>' before the first rank block, found 'rank'");
	if (P->in_block)
		return fail(P, "expected '}' closing rank %u (opened on line %lu), found 'rank'", P->rank, P->block_line);
	p = ws(P, p);
	if (number(P, &p, &r, "a rank number after 'rank'", "rank", 0))
		return -1;
	if (r >= P->num_ranks)
		return fail(P, "rank %llu out of range (num_ranks is %u)", (unsigned long long)r, P->num_ranks);
	p = ws(P, p);
	if (*p != '{')
		return expected(P, "'{' after the rank number", p);
	if (end_of_statement(P, p + 1, "'{'"))
		return -1;
	if (r < P->nseq)
		return fail(P, "rank %llu given twice (first block on line %lu)", (unsigned long long)r, P->seq_line[r]);
	if (r == P->nseq && P->seen.n == 0) {
		/* in order so far: a list, not a hash probe per rank */
		if (P->nseq == P->seq_cap && IR_GROW(P->seq_line, (size_t)P->nseq + 1, P->seq_cap))
			return oom(P);
		P->seq_line[P->nseq++] = P->line;
	} else {
		s = ir_hmap_put(&P->seen, r, 0, &isnew);
		if (!s)
			return oom(P);
		if (!isnew)
			return fail(P, "rank %llu given twice (first block on line %lu)", (unsigned long long)r, *s);
		*s = P->line;
	}
	P->in_block = 1;
	P->rank = (uint32_t)r;
	P->block_line = P->line;
	return 0;
}

static int parse_num_ranks(ir_goal_parser *P, const char *p)
{
	uint64_t n;
	if (P->have_num_ranks)
		return fail(P, "num_ranks given twice (first on line %lu)", P->num_ranks_line);
	p = ws(P, p);
	if (number(P, &p, &n, "a number of ranks after 'num_ranks'", "num_ranks", 0))
		return -1;
	if (n < 1 || n > MAX_RANKS)
		return fail(P, "num_ranks %llu out of range (1..%u)", (unsigned long long)n, MAX_RANKS);
	if (end_of_statement(P, p, "the number of ranks"))
		return -1;
	P->have_num_ranks = 1;
	P->num_ranks = (uint32_t)n;
	P->num_ranks_line = P->line;
	if (P->sink->begin && P->sink->begin(P->sink->ctx, P->num_ranks, P->version, P->e))
		return -1;
	return 0;
}

static int statement(ir_goal_parser *P, const char *p)
{
	const char *w, *we, *q;
	p = ws(P, p);
	if (p >= P->end)
		return 0;
	if (*p == '}') {
		if (!P->in_block)
			return fail(P, "'}' without an open rank block");
		if (end_of_statement(P, p + 1, "'}'"))
			return -1;
		return close_block(P);
	}
	w = p;
	we = word_end(p);
	if (we == w)
		return expected(P, "a statement (send, recv, calc, requires, rank, num_ranks or '}')", p);
	q = ws(P, we);
	if (*q == ':') {
		/* label: op */
		uint32_t li;
		const char *k = ws(P, q + 1), *ke = word_end(k);
		if (!P->have_num_ranks)
			return fail(P, "expected 'num_ranks <N>' before the first rank block, found '%.*s:'",
			            (int)(we - w > 64 ? 64 : we - w), w);
		if (!P->in_block)
			return fail(P, "label '%.*s' outside a rank block (expected 'rank <R> {' first)",
			            (int)(we - w > 64 ? 64 : we - w), w);
		if (!(WORD_IS(k, ke, "send") || WORD_IS(k, ke, "recv") || WORD_IS(k, ke, "calc") ||
		      (P->version >= 2 && (WORD_IS(k, ke, "read") || WORD_IS(k, ke, "write")))))
			return expected(P, P->version >= 2 ? "send, recv, calc, read or write after the label"
			                                   : "send, recv or calc after the label", k);
		li = label(P, w, (size_t)(we - w));
		if (li == NONE)
			return -1;
		if (WORD_IS(k, ke, "read") || WORD_IS(k, ke, "write"))
			return parse_io(P, k[0] == 'r' ? "read" : "write", ke, li);
		return parse_op(P, WORD_IS(k, ke, "send") ? "send" : WORD_IS(k, ke, "recv") ? "recv" : "calc", ke, li);
	}
	/* "<label> requires <label>" takes precedence, so labels may be named like keywords */
	{
		const char *k2e = word_end(q);
		int req = WORD_IS(q, k2e, "requires"), ireq = WORD_IS(q, k2e, "irequires");
		if ((req || ireq) && (k2e == P->end || *k2e == ' ' || *k2e == '\t' || *k2e == '/')) {
			if (!P->have_num_ranks)
				return fail(P, "expected 'num_ranks <N>' before the first rank block, found '%.*s'",
				            (int)(we - w > 64 ? 64 : we - w), w);
			return parse_requires(P, w, we, k2e, ireq);
		}
	}
	if (WORD_IS(w, we, "num_ranks"))
		return parse_num_ranks(P, we);
	if (WORD_IS(w, we, "version"))
		return parse_version(P, we);
	if (!P->have_num_ranks) {
		char b[256];
		return fail(P, "expected 'num_ranks <N>' before the first rank block, found %s", found(P, w, b, sizeof b));
	}
	if (WORD_IS(w, we, "rank"))
		return parse_rank(P, we);
	if (WORD_IS(w, we, "send"))
		return parse_op(P, "send", we, NONE);
	if (WORD_IS(w, we, "recv"))
		return parse_op(P, "recv", we, NONE);
	if (WORD_IS(w, we, "calc"))
		return parse_op(P, "calc", we, NONE);
	if (WORD_IS(w, we, "read"))
		return parse_io(P, "read", we, NONE);
	if (WORD_IS(w, we, "write"))
		return parse_io(P, "write", we, NONE);
	{
		char b[256];
		if (q < P->end && IS_WORD(*q) && !IS_DIGIT(*q))
			return fail(P, "expected ':', 'requires' or 'irequires' after label '%.*s', found %s",
			            (int)(we - w > 64 ? 64 : we - w), w, found(P, q, b, sizeof b));
		if (q >= P->end || IS_WORD(*q))
			return fail(P, "expected a statement (send, recv, calc, <label>: ..., <label> requires <label>, rank, "
			               "'}'), found %s",
			            found(P, w, b, sizeof b));
		return expected(P, "':', 'requires' or 'irequires' after a label", q);
	}
}

static void parser_release(ir_goal_parser *P)
{
	ir_hmap_release(&P->seen);
	free(P->seq_line);
	free(P->ops);
	free(P->op_lab);
	free(P->deps);
	free(P->labs);
	free(P->slots);
	free(P->arena);
	free(P->cnt);
	free(P->keys);
	free(P->edges);
}

int ir_goal_parse(ir_reader *in, const ir_goal_sink *sink, ir_err *e)
{
	ir_goal_parser P;
	char *line;
	size_t len;
	int k, rc = -1;
	init_cls();
	memset(&P, 0, sizeof P);
	P.version = 1;
	ir_hmap_init(&P.seen, sizeof(unsigned long), 64, 0);
	P.in = in;
	P.name = ir_reader_name(in);
	P.sink = sink;
	P.e = e;
	if (rehash(&P, 256)) {
		ir_errf_at(e, P.name, 0, "out of memory");
		goto out;
	}
	while ((k = ir_reader_line(in, &line, &len, e)) > 0) {
		const char *p = line;
		P.line = ir_reader_lineno(in);
		P.end = line + len;
		if (P.in_comment) {
			const char *q = memmem(p, len, "*/", 2);
			if (!q)
				continue;
			P.in_comment = 0;
			p = q + 2;
		}
		if (statement(&P, p))
			goto out;
	}
	if (k < 0)
		goto out;
	if (P.in_comment) {
		ir_errf_at(e, P.name, P.comment_line, "unterminated comment (no '*/' before end of input)");
		goto out;
	}
	if (P.in_block) {
		ir_errf_at(e, P.name, P.block_line, "unterminated block of rank %u (no '}' before end of input)", P.rank);
		goto out;
	}
	if (!P.have_num_ranks) {
		ir_errf_at(e, P.name, 0, "missing 'num_ranks <N>' line (no schedule in the input)");
		goto out;
	}
	if (check_all_ranks(&P))
		goto out;
	rc = 0;
out:
	parser_release(&P);
	return rc;
}

const char *ir_goal_parser_label(const ir_goal_parser *p, uint32_t op)
{
	if (!p || op >= p->nops || p->op_lab[op] == NONE)
		return NULL;
	return lab_name(p, p->op_lab[op]);
}
