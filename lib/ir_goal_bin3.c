/*
 * ir_goal_bin3.c: version 3 of the GOAL binary format (formats/goalb.md):
 * sections of variable-length op records, and the file's attribute table.
 *
 * Why: versions 1 and 2 spend 24 bytes on every op and 4 on every edge, most
 * of it repeating from op to op (type, cpu, nic, tag, size, and the peer as a
 * distance from the op's own rank repeat across ops and ranks: the compact
 * form of lib/ir_goal_compact.c rests on the same observation). Version 3
 * writes an op as a reference to an entry of one table of attributes shared
 * by the whole file (or the attributes inline, for those seen once), the
 * number of its dependents and each dependent as a distance, all as LEB128
 * varints: a dissemination costs under 4 bytes per op, a traced schedule under
 * 16 (formats/goalb.md, Version 3's costs). The frame (header, sections
 * located by an index at the end, trailer, per-section XXH64) is version 1's,
 * so a writer still never seeks and a reader still reaches any rank's section
 * in O(1) and checks only the ranks it uses.
 *
 * The writer's choice: an attribute's first use is written inline, its second
 * use enters the table (every later use is a reference of 1 to 3 bytes). A
 * hash table of the attributes seen, capped at ATTR_TRACK entries, decides;
 * past the cap new attributes stay inline, so the writer's memory is bounded
 * whatever the schedule. The cap is 2^16 (2.6 MB of slots, which stay in
 * cache): at 2^20, a schedule whose calcs all differ made every probe a miss
 * and compiling 19 % slower. Even so such a schedule compiles about 15 %
 * slower than to version 1 (a probe per op); a dissemination, 35 % faster
 * (a tenth of the bytes to write). The table is written after the last section, before
 * the index, so sections can be written as they complete.
 *
 * The reader decodes a section into the 24-byte records of ir_goal.h (the
 * layout every consumer reads), in a scratch buffer owned by the reader, and
 * checks every byte as it goes: varints minimal and within range, references
 * within the table, peers and tags within range, dependents within the
 * section, sorted, not the op itself, the payload consumed exactly. Its
 * memory is one decoded section plus 24 bytes per table entry, both bounded
 * by the file's size (an op costs at least 2 bytes, an entry at least 2).
 *
 * Rejected: fixed 8-byte records as the compact form's (a dependent would cost
 * 4 bytes: 16 per op and more on traced schedules with several dependents per
 * op); a table per section (a million copies of the same entries); zstd over
 * version 1 (no random access to a rank, and the reader's memory would be the
 * decompressed file).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal_internal.h"
#include "ir_grow.h"
#include "ir_hash.h"

#define ATTR_TRACK ((size_t)1 << 16) /* attributes the writer remembers */
#define MAX_TAG 0x7FFFFFFFu
#define NONE UINT32_MAX

static const unsigned char attr_magic[8] = { 'G', 'O', 'A', 'L', 'B', 'A', 'T', 'T' };

/* An op's attributes as the file codes them: peer and tag codes (0 any, else
 * distance + 1 or tag + 1) for send and receive; the address for read and write;
 * nothing but the size for calc. */
typedef struct attr {
	uint64_t size;
	uint64_t addr;     /* read, write */
	uint32_t peer, tag; /* codes */
	uint8_t type, cpu, nic;
} attr;

static int attr_eq(const attr *x, const attr *y)
{
	return x->size == y->size && x->peer == y->peer && x->tag == y->tag && x->addr == y->addr &&
	       x->type == y->type && x->cpu == y->cpu && x->nic == y->nic;
}

static uint64_t attr_hash(const attr *x)
{
	uint64_t h = x->size * 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)x->peer << 32 | x->tag) * 0xC2B2AE3D27D4EB4Full;
	h ^= (x->addr + (uint64_t)(x->type | x->cpu << 8 | x->nic << 16)) * 0x165667B19E3779F9ull;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	return h ^ (h >> 32);
}

/* ---- varints (LEB128, minimal) ---- */

static unsigned char *put_uv(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* Bytes read (1..10), 0 when the varint runs past `end`, -1 when it is not minimal or
 * does not fit 64 bits. */
static int get_uv(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	int i;
	if (p < end && *p < 0x80) {
		*v = *p;
		return 1;
	}
	for (i = 0; i < 10; i++) {
		if (p + i >= end)
			return 0;
		x |= (uint64_t)(p[i] & 0x7F) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (p[i] == 0 || (i == 9 && p[i] > 1))
				return -1;
			*v = x;
			return i + 1;
		}
	}
	return -1;
}

static unsigned char *put_attr(unsigned char *p, const attr *x)
{
	p = put_uv(p, (uint64_t)x->type | (uint64_t)x->cpu << 3 | (uint64_t)x->nic << 11);
	if (x->type == IR_OP_SEND || x->type == IR_OP_RECV) {
		p = put_uv(p, x->peer);
		p = put_uv(p, x->tag);
	} else if (ir_op_is_io(x->type)) {
		p = put_uv(p, x->addr);
	}
	return put_uv(p, x->size);
}
#define ATTR_MAX_BYTES (3 + 5 + 5 + 10 + 10)
#define GOALB3_HDR_MAX (8 + 5 + 5 + 3 + 10)

/* ---- writer ---- */

typedef struct tslot {
	attr a;
	uint32_t idx; /* table index, or NONE: seen once, written inline */
	uint32_t used; /* 0 empty */
} tslot;

struct goalb3_w {
	uint32_t num_ranks;
	unsigned goal_version;
	tslot *slot;
	size_t cap, n;       /* hash table: capacity (power of 2), entries */
	ir_sb tab;           /* the table's entries, encoded */
	uint32_t nattr;
};

goalb3_w *goalb3_w_new(uint32_t num_ranks, unsigned goal_version)
{
	goalb3_w *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->num_ranks = num_ranks;
	w->goal_version = goal_version;
	w->cap = 1024;
	w->slot = calloc(w->cap, sizeof *w->slot);
	ir_sb_init(&w->tab);
	if (!w->slot) {
		free(w);
		return NULL;
	}
	return w;
}

void goalb3_w_free(goalb3_w *w)
{
	if (!w)
		return;
	free(w->slot);
	ir_sb_release(&w->tab);
	free(w);
}

static int w_rehash(goalb3_w *w)
{
	size_t ncap = w->cap * 2, mask = ncap - 1;
	tslot *ns = calloc(ncap, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < w->cap; i++) {
		size_t k;
		if (!w->slot[i].used)
			continue;
		k = attr_hash(&w->slot[i].a) & mask;
		while (ns[k].used)
			k = (k + 1) & mask;
		ns[k] = w->slot[i];
	}
	free(w->slot);
	w->slot = ns;
	w->cap = ncap;
	return 0;
}

/* The table index of x (entered now if this is its second use), or NONE: write it
 * inline. -1 out of memory. */
static int w_lookup(goalb3_w *w, const attr *x, uint32_t *idx)
{
	size_t mask = w->cap - 1, k = attr_hash(x) & mask;
	tslot *s;
	while ((s = &w->slot[k])->used) {
		if (attr_eq(&s->a, x)) {
			if (s->idx == NONE) {
				unsigned char buf[ATTR_MAX_BYTES];
				size_t n = (size_t)(put_attr(buf, x) - buf);
				if (w->nattr >= 0x7FFFFFFEu) {
					*idx = NONE;
					return 0;
				}
				if (ir_sb_add(&w->tab, buf, n))
					return -1;
				s->idx = w->nattr++;
			}
			*idx = s->idx;
			return 0;
		}
		k = (k + 1) & mask;
	}
	*idx = NONE;
	if (w->n >= ATTR_TRACK)
		return 0;
	s->a = *x;
	s->idx = NONE;
	s->used = 1;
	w->n++;
	if (w->n * 2 > w->cap && w_rehash(w))
		return -1;
	return 0;
}

int goalb3_w_section(goalb3_w *w, uint32_t rank, const ir_rank *r, ir_sb *out, const char *name, ir_err *e)
{
	/* an op costs at most 5 (reference) + the inline attributes + 5 (count) bytes, an
	 * edge at most 6; the header at most 8 + 4 varints */
	uint64_t most = GOALB3_HDR_MAX + (uint64_t)r->nops * (5 + ATTR_MAX_BYTES + 5) + (uint64_t)r->nedges * 6;
	unsigned char *base, *p, hdr[GOALB3_HDR_MAX], *h;
	uint32_t lidx[8] = { NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE };
	attr last[8];
	uint64_t nb;
	size_t hl;
	ir_sb_reset(out);
	if (most > SIZE_MAX / 2 || ir_sb_grow(out, (size_t)most))
		return ir_errf(e, "%s: out of memory writing rank %u (%u ops)", name, rank, r->nops);
	base = (unsigned char *)out->buf;
	/* the payload first, at the header's largest size; the header is put before it */
	p = base + GOALB3_HDR_MAX;
	for (uint32_t i = 0; i < r->nops; i++) {
		const unsigned char *op = ir_rank_op(r, i);
		unsigned type = ir_op_type(op);
		uint32_t b, en, idx, prev = 0;
		attr x;
		if (type > (w->goal_version >= 2 ? IR_OP_WRITE : IR_OP_CALC))
			return ir_errf(e, "%s: rank %u, op %u: type %u needs GOAL version %s", name, rank, i, type,
			               type <= IR_OP_WRITE ? "2" : "(none: unknown type)");
		x.type = (uint8_t)type;
		x.cpu = (uint8_t)ir_op_cpu(op);
		x.nic = (uint8_t)ir_op_nic(op);
		x.size = ir_op_size(op);
		x.addr = 0;
		x.peer = x.tag = 0;
		if (type == IR_OP_SEND || type == IR_OP_RECV) {
			uint32_t peer = ir_op_peer(op), tag = ir_op_tag(op);
			if (peer != IR_ANY) {
				if (peer >= w->num_ranks)
					return ir_errf(e, "%s: rank %u, op %u: peer %u out of range", name, rank, i, peer);
				x.peer = (peer >= rank ? peer - rank : peer + (w->num_ranks - rank)) + 1;
			}
			x.tag = tag == IR_ANY ? 0 : tag + 1;
		} else if (ir_op_is_io(type)) {
			x.addr = ir_op_addr(op);
		}
		if (lidx[type] != NONE && attr_eq(&last[type], &x)) {
			idx = lidx[type];
		} else {
			if (w_lookup(w, &x, &idx))
				return ir_errf(e, "%s: out of memory for the attribute table", name);
			if (idx != NONE) {
				lidx[type] = idx;
				last[type] = x;
			}
		}
		if (idx == NONE) {
			*p++ = 0;
			p = put_attr(p, &x);
		} else {
			p = put_uv(p, (uint64_t)idx + 1);
		}
		ir_rank_succ(r, i, &b, &en);
		p = put_uv(p, en - b);
		for (uint32_t k = b; k < en; k++) {
			uint32_t ed = ir_rank_edge(r, k), d = ed & IR_EDGE_INDEX;
			uint64_t v;
			if (k == b)
				v = d > i ? (uint64_t)(d - i - 1) * 2 : (uint64_t)(i - 1 - d) * 2 + 1;
			else
				v = d - prev - 1;
			p = put_uv(p, v << 1 | (ed >> 31));
			prev = d;
		}
	}
	nb = (uint64_t)(p - base) - GOALB3_HDR_MAX;
	h = put_uv(hdr + 8, r->nops);
	h = put_uv(h, r->nedges);
	h = put_uv(h, (uint64_t)(r->ncpus - 1) | (uint64_t)(r->nnics - 1) << 8);
	h = put_uv(h, nb);
	hl = (size_t)(h - hdr);
	base += GOALB3_HDR_MAX - hl;
	memcpy(base, hdr, hl);
	ir_put64(base, ir_xxh64(base + 8, (size_t)(p - base) - 8, rank));
	memmove(out->buf, base, (size_t)(p - base));
	ir_sb_setlen(out, (size_t)(p - base));
	return 0;
}

int goalb3_w_attrs(goalb3_w *w, ir_sb *out, const char *name, ir_err *e)
{
	unsigned char f[GOALB_ATTR_FOOTER];
	uint64_t nb = w->tab.len;
	ir_xxh64_state st;
	ir_sb_reset(out);
	ir_xxh64_init(&st, 0);
	ir_xxh64_update(&st, w->tab.buf, (size_t)nb);
	memset(f, 0, sizeof f);
	ir_put32(f + 0, w->nattr);
	ir_put64(f + 8, nb);
	ir_put64(f + 16, ir_xxh64_digest(&st));
	memcpy(f + 24, attr_magic, 8);
	if (ir_sb_add(out, w->tab.buf, (size_t)nb) || ir_sb_add(out, f, sizeof f))
		return ir_errf(e, "%s: out of memory", name);
	return 0;
}

/* ---- reader ---- */

struct goalb3_r {
	const char *name;
	uint32_t num_ranks;
	unsigned goal_version;
	attr *tab;
	uint32_t nattr;
	unsigned char *ops; /* scratch: the decoded section */
	size_t ops_cap;
	uint32_t *edges;
	size_t edges_cap;
	/* goalb3_r_rank_compact: each table entry's word in `word_of`'s compact form, plus
	 * 2^32 once known (0: not yet) */
	uint64_t *word;
	const ir_csched *word_of;
};

static int bad(const char *name, uint64_t off, ir_err *e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int bad(const char *name, uint64_t off, ir_err *e, const char *fmt, ...)
{
	char msg[IR_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ir_errf(e, "%s: offset %" PRIu64 ": %s", name, off, msg);
}

static const char *varint_err(int n) { return n == 0 ? "truncated varint" : "bad varint (not minimal, or above 2^64)"; }

/* One attribute at p (file offset `off`); returns bytes read, or -1 with e filled.
 * `what` names it in messages ("attribute 3", "rank 5, op 2"). */
static int get_attr(const goalb3_r *R, const unsigned char *p, const unsigned char *end, uint64_t off, attr *x,
                    const char *what, ir_err *e)
{
	const unsigned char *q = p;
	uint64_t v, tcn;
	int n;
	unsigned type, maxtype = R->goal_version >= 2 ? IR_OP_WRITE : IR_OP_CALC;
	if ((n = get_uv(q, end, &tcn)) <= 0)
		return bad(R->name, off, e, "%s: %s", what, varint_err(n));
	q += n;
	type = (unsigned)(tcn & 7);
	if (tcn >> 19 || type > maxtype)
		return bad(R->name, off, e, "%s: type, cpu and nic 0x%" PRIx64 " out of range (type 0..%u, cpu and nic 0..255)",
		           what, tcn, maxtype);
	memset(x, 0, sizeof *x);
	x->type = (uint8_t)type;
	x->cpu = (uint8_t)(tcn >> 3);
	x->nic = (uint8_t)(tcn >> 11);
	if (type == IR_OP_SEND || type == IR_OP_RECV) {
		uint64_t o = off + (uint64_t)(q - p);
		if ((n = get_uv(q, end, &v)) <= 0)
			return bad(R->name, o, e, "%s: peer: %s", what, varint_err(n));
		if (v > R->num_ranks || (v == 0 && type == IR_OP_SEND))
			return bad(R->name, o, e, "%s: peer code %" PRIu64 " out of range (%s1..%u)", what, v,
			           type == IR_OP_RECV ? "0 any, " : "", R->num_ranks);
		x->peer = (uint32_t)v;
		q += n;
		o = off + (uint64_t)(q - p);
		if ((n = get_uv(q, end, &v)) <= 0)
			return bad(R->name, o, e, "%s: tag: %s", what, varint_err(n));
		if (v > (uint64_t)MAX_TAG + 1 || (v == 0 && type == IR_OP_SEND))
			return bad(R->name, o, e, "%s: tag code %" PRIu64 " out of range (%s1..%u)", what, v,
			           type == IR_OP_RECV ? "0 any, " : "", MAX_TAG + 1);
		x->tag = (uint32_t)v;
		q += n;
	} else {
		if (x->nic)
			return bad(R->name, off, e, "%s: %s with nic %u (must be 0)", what,
			           type == IR_OP_CALC ? "calc" : type == IR_OP_READ ? "read" : "write", x->nic);
		if (type != IR_OP_CALC) {
			if ((n = get_uv(q, end, &x->addr)) <= 0)
				return bad(R->name, off + (uint64_t)(q - p), e, "%s: address: %s", what, varint_err(n));
			q += n;
		}
	}
	if ((n = get_uv(q, end, &x->size)) <= 0)
		return bad(R->name, off + (uint64_t)(q - p), e, "%s: size: %s", what, varint_err(n));
	q += n;
	return (int)(q - p);
}

goalb3_r *goalb3_r_open(const unsigned char *d, uint64_t index_off, uint32_t num_ranks, unsigned goal_version,
                        const char *name, uint64_t *sections_end, ir_err *e)
{
	uint64_t fo, nb, start;
	uint32_t nattr;
	goalb3_r *R;
	/* the caller checked index_off >= 32 + GOALB3_MIN_SECTION * num_ranks + GOALB_ATTR_FOOTER */
	fo = index_off - GOALB_ATTR_FOOTER;
	if (memcmp(d + fo + 24, attr_magic, 8) != 0) {
		bad(name, fo + 24, e, "bad attribute table magic (expected GOALBATT before the index)");
		return NULL;
	}
	if (ir_get32(d + fo + 4)) {
		bad(name, fo + 4, e, "reserved attribute table field is not zero");
		return NULL;
	}
	nattr = ir_get32(d + fo);
	nb = ir_get64(d + fo + 8);
	if (nb > fo - 32 - (uint64_t)num_ranks * GOALB3_MIN_SECTION) {
		bad(name, fo + 8, e, "attribute table of %" PRIu64 " bytes does not fit before the index (%" PRIu64
		    " bytes left after the sections)", nb, fo - 32 - (uint64_t)num_ranks * GOALB3_MIN_SECTION);
		return NULL;
	}
	start = fo - nb;
	if ((uint64_t)nattr * 2 > nb) {
		bad(name, fo, e, "%u attributes cannot fit in %" PRIu64 " bytes (2 bytes each at least)", nattr, nb);
		return NULL;
	}
	{
		uint64_t h = ir_xxh64(d + start, (size_t)nb, 0), sv = ir_get64(d + fo + 16);
		if (h != sv) {
			bad(name, fo + 16, e, "attribute table checksum mismatch (stored 0x%016" PRIx64 ", computed 0x%016" PRIx64 ")",
			    sv, h);
			return NULL;
		}
	}
	R = calloc(1, sizeof *R);
	if (!R || !(R->tab = malloc((nattr ? (size_t)nattr : 1) * sizeof *R->tab))) {
		free(R);
		ir_errf(e, "%s: out of memory for %u attributes", name, nattr);
		return NULL;
	}
	R->name = name;
	R->num_ranks = num_ranks;
	R->goal_version = goal_version;
	R->nattr = nattr;
	{
		const unsigned char *p = d + start, *end = d + start + nb;
		for (uint32_t i = 0; i < nattr; i++) {
			char what[32];
			int n;
			snprintf(what, sizeof what, "attribute %u", i);
			n = get_attr(R, p, end, start + (uint64_t)(p - (d + start)), &R->tab[i], what, e);
			if (n < 0) {
				goalb3_r_free(R);
				return NULL;
			}
			p += n;
		}
		if (p != end) {
			bad(name, start + (uint64_t)(p - (d + start)), e, "%" PRIu64 " bytes of the attribute table after its %u attributes",
			    (uint64_t)(end - p), nattr);
			goalb3_r_free(R);
			return NULL;
		}
	}
	*sections_end = start;
	return R;
}

void goalb3_r_free(goalb3_r *R)
{
	if (!R)
		return;
	free(R->tab);
	free(R->ops);
	free(R->edges);
	free(R->word);
	free(R);
}

uint32_t goalb3_r_nattr(const goalb3_r *R) { return R->nattr; }

uint64_t goalb3_section(const unsigned char *d, uint64_t off, uint64_t room, uint32_t rank, const char *name,
                        goalb3_hdr *h, ir_err *e)
{
	static const char *const field[4] = { "nops", "nedges", "ncpus and nnics", "nbytes" };
	const unsigned char *p = d + off + 8, *end;
	uint64_t v[4];
	if (room < GOALB3_MIN_SECTION) {
		bad(name, off, e, "rank %u: section of at least %d bytes does not fit before the attribute table (%" PRIu64 " left)",
		    rank, GOALB3_MIN_SECTION, room);
		return 0;
	}
	end = d + off + (room < GOALB3_HDR_MAX ? room : GOALB3_HDR_MAX);
	for (int k = 0; k < 4; k++) {
		int n = get_uv(p, end, &v[k]);
		if (n <= 0) {
			bad(name, (uint64_t)(p - d), e, "rank %u: %s: %s", rank, field[k], varint_err(n));
			return 0;
		}
		if (k < 2 && v[k] > (k == 0 ? IR_MAX_OPS_PER_RANK : 0xFFFFFFFFu)) {
			bad(name, (uint64_t)(p - d), e, "rank %u: %s %" PRIu64 " out of range (at most %u)", rank, field[k], v[k],
			    k == 0 ? IR_MAX_OPS_PER_RANK : 0xFFFFFFFFu);
			return 0;
		}
		if (k == 2 && v[k] > 0xFFFF) {
			bad(name, (uint64_t)(p - d), e, "rank %u: ncpus and nnics code 0x%" PRIx64 " out of range (ncpus and nnics 1..256)",
			    rank, v[k]);
			return 0;
		}
		p += n;
	}
	h->nops = (uint32_t)v[0];
	h->nedges = (uint32_t)v[1];
	h->ncpus = (uint32_t)(v[2] & 0xFF) + 1;
	h->nnics = (uint32_t)(v[2] >> 8) + 1;
	h->nbytes = v[3];
	h->hlen = (unsigned)(p - (d + off));
	if (h->nbytes > room - h->hlen) {
		bad(name, (uint64_t)(p - d) - 1, e, "rank %u: nbytes %" PRIu64 " does not fit before the attribute table (%" PRIu64
		    " bytes left)", rank, h->nbytes, room - h->hlen);
		return 0;
	}
	if (h->nbytes < 2 * (uint64_t)h->nops + h->nedges) {
		bad(name, (uint64_t)(p - d) - 1, e, "rank %u: nbytes %" PRIu64 " too small for nops %u and nedges %u (%" PRIu64
		    " at least)", rank, h->nbytes, h->nops, h->nedges, 2 * (uint64_t)h->nops + h->nedges);
		return 0;
	}
	return h->hlen + h->nbytes;
}

int goalb3_r_rank(goalb3_r *R, const unsigned char *d, uint64_t off, uint32_t rank, ir_rank *out, ir_err *e)
{
	const char *name = R->name;
	const unsigned char *s = d + off, *p, *end;
	goalb3_hdr hd;
	uint32_t nops, nedges, ncpus, nnics;
	uint64_t nb, pay, ne = 0, size;
	unsigned maxcpu = 0, maxnic = 0;
	int forward = 1;
	ir_rank r;
	/* the walk of ir_goalb_open checked the header against the file */
	size = goalb3_section(d, off, UINT64_MAX - off, rank, name, &hd, e);
	if (!size)
		return -1;
	nops = hd.nops;
	nedges = hd.nedges;
	ncpus = hd.ncpus;
	nnics = hd.nnics;
	nb = hd.nbytes;
	pay = off + hd.hlen;
	{
		uint64_t h = ir_xxh64(s + 8, (size_t)(size - 8), rank), sv = ir_get64(s);
		if (h != sv)
			return bad(name, off, e, "rank %u: section checksum mismatch (stored 0x%016" PRIx64
			           ", computed 0x%016" PRIx64 ")", rank, sv, h);
	}
	if (nops == 0 && nedges)
		return bad(name, off + 8, e, "rank %u: nedges %u without ops", rank, nedges);
	if (IR_GROW(R->ops, (size_t)nops * IR_OP_BYTES, R->ops_cap) || IR_GROW(R->edges, nedges ? nedges : 1, R->edges_cap))
		return ir_errf(e, "%s: rank %u: out of memory for %u ops", name, rank, nops);
	p = s + hd.hlen;
	end = p + nb;
	for (uint32_t i = 0; i < nops; i++) {
		unsigned char *op = R->ops + (size_t)i * IR_OP_BYTES;
		uint64_t oo = pay + (uint64_t)(p - (s + hd.hlen)), ref, cnt;
		uint32_t prev = 0;
		char what[48];
		attr xi;
		const attr *x;
		int n = get_uv(p, end, &ref);
		if (n <= 0)
			return bad(name, oo, e, "rank %u, op %u: attribute reference: %s", rank, i, varint_err(n));
		p += n;
		if (ref == 0) {
			snprintf(what, sizeof what, "rank %u, op %u", rank, i);
			n = get_attr(R, p, end, oo + 1, &xi, what, e);
			if (n < 0)
				return -1;
			p += n;
			x = &xi;
		} else {
			if (ref > R->nattr)
				return bad(name, oo, e, "rank %u, op %u: attribute %" PRIu64 " out of range (the table has %u)", rank,
				           i, ref - 1, R->nattr);
			x = &R->tab[ref - 1];
		}
		if (x->cpu >= ncpus)
			return bad(name, oo, e, "rank %u, op %u: cpu %u out of range (ncpus is %u)", rank, i, x->cpu, ncpus);
		if (x->nic >= nnics)
			return bad(name, oo, e, "rank %u, op %u: nic %u out of range (nnics is %u)", rank, i, x->nic, nnics);
		if (x->cpu > maxcpu)
			maxcpu = x->cpu;
		if (x->nic > maxnic)
			maxnic = x->nic;
		op[0] = x->type;
		op[1] = x->cpu;
		op[2] = x->nic;
		op[3] = 0;
		if (x->type == IR_OP_SEND || x->type == IR_OP_RECV) {
			uint32_t peer = IR_ANY;
			if (x->peer) {
				uint32_t dist = x->peer - 1;
				peer = dist >= R->num_ranks - rank ? dist - (R->num_ranks - rank) : rank + dist;
			}
			ir_put32(op + 4, peer);
			ir_put32(op + 8, x->tag ? x->tag - 1 : IR_ANY);
		} else {
			ir_put32(op + 4, (uint32_t)x->addr);
			ir_put32(op + 8, (uint32_t)(x->addr >> 32));
		}
		ir_put32(op + 12, (uint32_t)ne);
		ir_put64(op + 16, x->size);
		oo = pay + (uint64_t)(p - (s + hd.hlen));
		if ((n = get_uv(p, end, &cnt)) <= 0)
			return bad(name, oo, e, "rank %u, op %u: number of dependents: %s", rank, i, varint_err(n));
		if (cnt > nedges - ne)
			return bad(name, oo, e, "rank %u, op %u: %" PRIu64 " dependents, only %" PRIu64 " of nedges %u left", rank,
			           i, cnt, nedges - ne, nedges);
		p += n;
		for (uint64_t k = 0; k < cnt; k++, ne++) {
			uint64_t v, dv;
			uint32_t dd;
			oo = pay + (uint64_t)(p - (s + hd.hlen));
			if ((n = get_uv(p, end, &v)) <= 0)
				return bad(name, oo, e, "rank %u, edge %" PRIu64 " of op %u: %s", rank, ne, i, varint_err(n));
			p += n;
			dv = v >> 1;
			if (k == 0) {
				if (dv & 1) {
					if ((dv >> 1) >= i)
						return bad(name, oo, e, "rank %u, edge %" PRIu64 " of op %u: op index out of range (before op 0)",
						           rank, ne, i);
					dd = i - 1 - (uint32_t)(dv >> 1);
				} else {
					if ((dv >> 1) >= (uint64_t)nops - i - 1)
						return bad(name, oo, e, "rank %u, edge %" PRIu64 " of op %u: op index %" PRIu64
						           " out of range (nops is %u)", rank, ne, i, (uint64_t)i + 1 + (dv >> 1), nops);
					dd = i + 1 + (uint32_t)(dv >> 1);
				}
			} else {
				if (dv >= (uint64_t)nops - prev - 1)
					return bad(name, oo, e, "rank %u, edge %" PRIu64 " of op %u: op index %" PRIu64
					           " out of range (nops is %u)", rank, ne, i, (uint64_t)prev + 1 + dv, nops);
				dd = prev + 1 + (uint32_t)dv;
				if (dd == i)
					return bad(name, oo, e, "rank %u, edge %" PRIu64 ": op %u depends on itself", rank, ne, i);
			}
			forward &= dd > i;
			prev = dd;
			R->edges[ne] = dd | (uint32_t)(v & 1) << 31;
		}
	}
	if (ne != nedges)
		return bad(name, off + 8, e, "rank %u: nedges %u, but the ops have %" PRIu64 " dependents", rank, nedges, ne);
	if (p != end)
		return bad(name, pay + (uint64_t)(p - (s + hd.hlen)), e,
		           "rank %u: %" PRIu64 " bytes after the last op (nbytes is %" PRIu64 ")", rank, (uint64_t)(end - p), nb);
	if (maxcpu + 1 != ncpus)
		return bad(name, off + 8, e, "rank %u: ncpus %u, but the largest cpu used is %u", rank, ncpus, maxcpu);
	if (maxnic + 1 != nnics)
		return bad(name, off + 8, e, "rank %u: nnics %u, but the largest nic used is %u", rank, nnics, maxnic);
	r.ops = R->ops;
	r.edges = (const unsigned char *)R->edges;
	/* the edges were stored as host words: make them little-endian */
	for (uint32_t k = 0; k < nedges; k++) {
		uint32_t v = R->edges[k];
		ir_put32((unsigned char *)&R->edges[k], v);
	}
	r.nops = nops;
	r.nedges = nedges;
	r.ncpus = ncpus;
	r.nnics = nnics;
	if (!forward && goalb_check_acyclic(&r, name, off, rank, e))
		return -1;
	*out = r;
	return 0;
}

/* ---- straight into the compact form ---- */

/* The compact word (ir_csched_word) of the attributes x. */
static uint32_t compact_word(ir_csched *c, const attr *x)
{
	ir_cattr y;
	memset(&y, 0, sizeof y);
	y.size = x->size;
	y.type = x->type;
	y.cpu = x->cpu;
	y.nic = x->nic;
	if (x->type == IR_OP_SEND || x->type == IR_OP_RECV) {
		/* the file's peer code is the compact form's distance + 1 */
		if (x->peer) {
			y.rel = 1;
			y.peer = x->peer - 1;
		} else {
			y.peer = IR_ANY;
		}
		y.tag = x->tag ? x->tag - 1 : IR_ANY;
	} else if (ir_op_is_io(x->type)) {
		y.peer = (uint32_t)x->addr;
		y.tag = (uint32_t)(x->addr >> 32);
	}
	return ir_csched_word(c, &y);
}

/* A varint in the fast path: one byte inline, else get_uv; any trouble leaves the
 * section to goalb3_r_rank. */
#define FAST_UV(v)                                                                                                    \
	do {                                                                                                          \
		if (p < end && *p < 0x80) {                                                                           \
			(v) = *p++;                                                                                   \
		} else {                                                                                              \
			int n_ = get_uv(p, end, &(v));                                                                \
			if (n_ <= 0)                                                                                  \
				return 1;                                                                             \
			p += n_;                                                                                      \
		}                                                                                                     \
	} while (0)

int goalb3_r_rank_compact(goalb3_r *R, const unsigned char *d, uint64_t off, uint32_t rank, ir_csched *c,
                          ir_rank *out, ir_err *e)
{
	const unsigned char *s = d + off, *p, *end;
	goalb3_hdr hd;
	uint32_t nops, nedges, ncpus, nnics, g0, e0, ne = 0;
	unsigned maxcpu = 0, maxnic = 0;
	int forward = 1;
	uint64_t size = goalb3_section(d, off, UINT64_MAX - off, rank, R->name, &hd, NULL);
	ir_csop *op;
	uint32_t *edge;
	if (!size)
		return 1;
	nops = hd.nops;
	nedges = hd.nedges;
	ncpus = hd.ncpus;
	nnics = hd.nnics;
	if (ir_xxh64(s + 8, (size_t)(size - 8), rank) != ir_get64(s))
		return 1;
	if (nops == 0 && nedges)
		return 1;
	if (ir_csched_reserve(c, rank, nops, nedges, &g0, &e0, NULL))
		return 1;
	if (R->word_of != c) {
		free(R->word);
		R->word = calloc(R->nattr ? R->nattr : 1, sizeof *R->word);
		if (!R->word)
			return ir_errf(e, "%s: out of memory for %u attributes", R->name, R->nattr);
		R->word_of = c;
	}
	op = c->op + g0;
	edge = c->edge + e0;
	p = s + hd.hlen;
	end = p + hd.nbytes;
	for (uint32_t i = 0; i < nops; i++) {
		uint64_t ref, cnt;
		uint32_t w, prev = 0;
		unsigned cpu, nic;
		FAST_UV(ref);
		if (ref == 0) {
			attr xi;
			int n = get_attr(R, p, end, 0, &xi, "", NULL);
			if (n < 0)
				return 1;
			p += n;
			cpu = xi.cpu;
			nic = xi.nic;
			w = compact_word(c, &xi);
			if (w == UINT32_MAX && !(xi.type == IR_OP_CALC && xi.cpu == 0 && xi.size == 0x7FFFFFFFu))
				return ir_errf(e, "out of memory for the attributes of ops (%u of them)", c->nattr);
		} else {
			uint64_t k;
			if (ref > R->nattr)
				return 1;
			cpu = R->tab[ref - 1].cpu;
			nic = R->tab[ref - 1].nic;
			k = R->word[ref - 1];
			if (!k) {
				const attr *x = &R->tab[ref - 1];
				w = compact_word(c, x);
				if (w == UINT32_MAX && !(x->type == IR_OP_CALC && x->cpu == 0 && x->size == 0x7FFFFFFFu))
					return ir_errf(e, "out of memory for the attributes of ops (%u of them)", c->nattr);
				R->word[ref - 1] = (uint64_t)1 << 32 | w;
			} else {
				w = (uint32_t)k;
			}
		}
		if (cpu >= ncpus || nic >= nnics)
			return 1;
		if (cpu > maxcpu)
			maxcpu = cpu;
		if (nic > maxnic)
			maxnic = nic;
		op[i].a = w;
		op[i].s = e0 + ne;
		FAST_UV(cnt);
		if (cnt > nedges - ne)
			return 1;
		for (uint64_t k = 0; k < cnt; k++) {
			uint64_t v, dv;
			uint32_t dd;
			FAST_UV(v);
			dv = v >> 1;
			if (k == 0) {
				if (dv & 1) {
					if ((dv >> 1) >= i)
						return 1;
					dd = i - 1 - (uint32_t)(dv >> 1);
				} else {
					if ((dv >> 1) >= (uint64_t)nops - i - 1)
						return 1;
					dd = i + 1 + (uint32_t)(dv >> 1);
				}
			} else {
				if (dv >= (uint64_t)nops - prev - 1)
					return 1;
				dd = prev + 1 + (uint32_t)dv;
				if (dd == i)
					return 1;
			}
			forward &= dd > i;
			prev = dd;
			edge[ne++] = (g0 + dd) | (uint32_t)(v & 1) << 31;
		}
	}
	if (ne != nedges || p != end || maxcpu + 1 != ncpus || maxnic + 1 != nnics)
		return 1;
	if (!forward) {
		/* acyclicity: the general path checks it (and names the op of a cycle) */
		ir_rank tmp;
		if (goalb3_r_rank(R, d, off, rank, &tmp, e))
			return -1;
	}
	ir_csched_commit(c, rank, nops, nedges);
	out->ops = out->edges = NULL;
	out->nops = nops;
	out->nedges = nedges;
	out->ncpus = ncpus;
	out->nnics = nnics;
	return 0;
}
