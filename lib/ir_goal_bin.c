/*
 * ir_goal_bin.c: the GOAL binary format (formats/goalb.md): a streaming
 * writer and a validating, zero-copy reader.
 *
 * Layout: a 32-byte file header, one section per rank in any order (each a
 * 32-byte section header, the rank's 24-byte op records and 4-byte edges,
 * zero padding to 8 bytes), then the index (one 8-byte section offset per
 * rank, by rank number) and a 32-byte trailer that locates the index. The
 * writer emits sections as ranks complete and the index last, so it never
 * seeks: the output may be a pipe, and its memory is 16 bytes per rank
 * written. A reader finds the trailer at the end of the file, then any
 * rank's section in O(1) through the index.
 *
 * The reader trusts nothing: every count is checked against the bytes that
 * are really there before it is used, so no file can make it read out of
 * bounds, and it allocates only arrays bounded by the file size (each rank
 * costs at least 40 bytes of file: its section header and index entry).
 * Messages name the file, the byte offset, the rank and the field.
 *
 * Acyclicity: a section whose every edge goes to a later op (what goalc writes
 * for schedules whose dependencies follow the text's order, nearly all of them)
 * is acyclic by its index order, so Kahn's algorithm, two more passes over the
 * edges and 8 bytes of scratch per op, runs only for the others.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_goal_internal.h"
#include "ir_grow.h"
#include "ir_hash.h"
#include "ir_io.h"

#define GOALB_VERSION 1     /* what a schedule without read/write ops is written as */
#define GOALB_VERSION_MAX 3 /* version 2: op types 3 read, 4 write; 3: variable-length sections (ir_goal_bin3.c) */
#define HEADER_BYTES 32
#define SECTION_HEADER_BYTES 32
#define TRAILER_BYTES 32
#define MAX_RANKS 0x7FFFFFFFu
#define MAX_TAG 0x7FFFFFFFu

static const unsigned char goalb_magic[8] = { 0x89, 'G', 'O', 'A', 'L', 'B', 0x0D, 0x0A };
static const unsigned char goalb_end_magic[8] = { 'G', 'O', 'A', 'L', 'B', 'E', 'N', 'D' };
static const unsigned char zeros[8];

int ir_goalb_is_magic(const unsigned char *p, size_t n)
{
	return n >= 8 && memcmp(p, goalb_magic, 8) == 0;
}

static uint64_t pad8(uint64_t n) { return (8 - (n & 7)) & 7; }

static uint64_t section_bytes(uint32_t nops, uint32_t nedges)
{
	uint64_t b = SECTION_HEADER_BYTES + (uint64_t)nops * IR_OP_BYTES + (uint64_t)nedges * 4;
	return b + pad8(b);
}

/* The size of the section at `off`, of either layout (a version-3 header was checked
 * by the walk of goalb_open before this is used). */
static uint64_t section_size(unsigned version, const unsigned char *d, uint64_t off)
{
	goalb3_hdr h;
	if (version < GOALB_V3)
		return section_bytes(ir_get32(d + off + 4), ir_get32(d + off + 8));
	return goalb3_section(d, off, UINT64_MAX - off, 0, "", &h, NULL);
}

/* Section checksum: XXH64 (seed 0) of the section with its checksum field as zero. */
static uint64_t section_checksum(const unsigned char *hdr, const unsigned char *ops, uint32_t nops,
                                 const unsigned char *edges, uint32_t nedges, const unsigned char *pad)
{
	ir_xxh64_state st;
	uint64_t eb = (uint64_t)nedges * 4;
	ir_xxh64_init(&st, 0);
	ir_xxh64_update(&st, hdr, 16);
	ir_xxh64_update(&st, zeros, 8);
	ir_xxh64_update(&st, hdr + 24, 8);
	if (nops)
		ir_xxh64_update(&st, ops, (size_t)nops * IR_OP_BYTES);
	if (nedges)
		ir_xxh64_update(&st, edges, (size_t)eb);
	ir_xxh64_update(&st, pad, (size_t)pad8(eb));
	return ir_xxh64_digest(&st);
}

/* ---- writer ---- */

typedef struct wentry {
	uint32_t rank;
	uint64_t off;
} wentry;

struct ir_goalb_writer {
	ir_writer *w;
	uint32_t num_ranks;
	unsigned version;
	uint64_t pos;
	wentry *ent;
	size_t n, cap;
	goalb3_w *v3; /* version 3 */
	ir_sb buf;    /* version 3: a section's bytes */
};

ir_goalb_writer *ir_goalb_writer_new(ir_writer *w, uint32_t num_ranks, ir_err *e)
{
	return ir_goalb_writer_new_v(w, num_ranks, GOALB_VERSION, e);
}

ir_goalb_writer *ir_goalb_writer_new_v(ir_writer *w, uint32_t num_ranks, unsigned version, ir_err *e)
{
	if (version < 1 || version > 2) {
		ir_errf(e, "%s: GOAL version %u out of range (1..2)", ir_writer_name(w), version);
		return NULL;
	}
	return ir_goalb_writer_new_format(w, num_ranks, version, version, e);
}

ir_goalb_writer *ir_goalb_writer_new_format(ir_writer *w, uint32_t num_ranks, unsigned goal_version, unsigned format,
                                            ir_err *e)
{
	unsigned char h[HEADER_BYTES];
	ir_goalb_writer *bw;
	unsigned version, flags = 0;
	if (goal_version < 1 || goal_version > IR_GOAL_VERSION_MAX) {
		ir_errf(e, "%s: GOAL version %u out of range (1..%d)", ir_writer_name(w), goal_version, IR_GOAL_VERSION_MAX);
		return NULL;
	}
	if (format < 1 || format > GOALB_VERSION_MAX) {
		ir_errf(e, "%s: GOAL binary format version %u out of range (1..%d)", ir_writer_name(w), format,
		        GOALB_VERSION_MAX);
		return NULL;
	}
	if (format == GOALB_V3) {
		version = GOALB_V3;
		flags = goal_version >= 2 ? GOALB_FLAG_GOAL2 : 0;
	} else {
		version = goal_version; /* 1, or 2 for read and write ops */
	}
	if (num_ranks < 1 || num_ranks > MAX_RANKS) {
		ir_errf(e, "%s: num_ranks %u out of range (1..%u)", ir_writer_name(w), num_ranks, MAX_RANKS);
		return NULL;
	}
	bw = calloc(1, sizeof *bw);
	if (!bw) {
		ir_errf(e, "%s: out of memory", ir_writer_name(w));
		return NULL;
	}
	bw->w = w;
	bw->num_ranks = num_ranks;
	bw->version = version;
	ir_sb_init(&bw->buf);
	if (version == GOALB_V3 && !(bw->v3 = goalb3_w_new(num_ranks, goal_version))) {
		ir_errf(e, "%s: out of memory", ir_writer_name(w));
		free(bw);
		return NULL;
	}
	memset(h, 0, sizeof h);
	memcpy(h, goalb_magic, 8);
	ir_put16(h + 8, (uint16_t)version);
	ir_put16(h + 10, (uint16_t)flags);
	ir_put32(h + 12, num_ranks);
	if (ir_writer_write(w, h, sizeof h, e)) {
		ir_goalb_writer_free(bw);
		return NULL;
	}
	bw->pos = HEADER_BYTES;
	return bw;
}

int ir_goalb_writer_rank(ir_goalb_writer *bw, uint32_t rank, const ir_rank *r, ir_err *e)
{
	unsigned char h[SECTION_HEADER_BYTES];
	uint64_t eb = (uint64_t)r->nedges * 4;
	if (rank >= bw->num_ranks)
		return ir_errf(e, "%s: rank %u out of range (num_ranks is %u)", ir_writer_name(bw->w), rank, bw->num_ranks);
	if (r->ncpus < 1 || r->ncpus > 256 || r->nnics < 1 || r->nnics > 256)
		return ir_errf(e, "%s: rank %u: ncpus %u or nnics %u out of range (1..256)", ir_writer_name(bw->w), rank,
		               r->ncpus, r->nnics);
	if (IR_GROW(bw->ent, bw->n + 1, bw->cap))
		return ir_errf(e, "%s: out of memory", ir_writer_name(bw->w));
	if (bw->v3) {
		if (goalb3_w_section(bw->v3, rank, r, &bw->buf, ir_writer_name(bw->w), e) ||
		    ir_writer_write(bw->w, bw->buf.buf, bw->buf.len, e))
			return -1;
		bw->ent[bw->n].rank = rank;
		bw->ent[bw->n].off = bw->pos;
		bw->n++;
		bw->pos += bw->buf.len;
		return 0;
	}
	memset(h, 0, sizeof h);
	ir_put32(h + 0, rank);
	ir_put32(h + 4, r->nops);
	ir_put32(h + 8, r->nedges);
	ir_put16(h + 12, (uint16_t)r->ncpus);
	ir_put16(h + 14, (uint16_t)r->nnics);
	ir_put64(h + 16, section_checksum(h, r->ops, r->nops, r->edges, r->nedges, zeros));
	if (ir_writer_write(bw->w, h, sizeof h, e) ||
	    (r->nops && ir_writer_write(bw->w, r->ops, (size_t)r->nops * IR_OP_BYTES, e)) ||
	    (r->nedges && ir_writer_write(bw->w, r->edges, (size_t)eb, e)) ||
	    ir_writer_write(bw->w, zeros, (size_t)pad8(eb), e))
		return -1;
	bw->ent[bw->n].rank = rank;
	bw->ent[bw->n].off = bw->pos;
	bw->n++;
	bw->pos += section_bytes(r->nops, r->nedges);
	return 0;
}

static int went_cmp(const void *a, const void *b)
{
	const wentry *x = a, *y = b;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int ir_goalb_writer_finish(ir_goalb_writer *bw, ir_err *e)
{
	unsigned char t[TRAILER_BYTES], buf[8 * 512];
	ir_xxh64_state st;
	uint64_t index_off;
	int rc = -1;
	if (bw->n)
		qsort(bw->ent, bw->n, sizeof *bw->ent, went_cmp);
	for (size_t i = 0; i < bw->num_ranks; i++) {
		if (i >= bw->n || bw->ent[i].rank != i) {
			ir_errf(e, "%s: missing rank %zu (num_ranks is %u)", ir_writer_name(bw->w), i, bw->num_ranks);
			goto out;
		}
	}
	if (bw->n != bw->num_ranks) {
		ir_errf(e, "%s: a rank was written twice", ir_writer_name(bw->w));
		goto out;
	}
	if (bw->v3) {
		if (goalb3_w_attrs(bw->v3, &bw->buf, ir_writer_name(bw->w), e) ||
		    ir_writer_write(bw->w, bw->buf.buf, bw->buf.len, e))
			goto out;
		bw->pos += bw->buf.len;
	}
	index_off = bw->pos;
	ir_xxh64_init(&st, 0);
	for (size_t i = 0; i < bw->n;) {
		size_t k = 0;
		for (; k < 512 && i < bw->n; k++, i++)
			ir_put64(buf + 8 * k, bw->ent[i].off);
		ir_xxh64_update(&st, buf, 8 * k);
		if (ir_writer_write(bw->w, buf, 8 * k, e))
			goto out;
	}
	memset(t, 0, sizeof t);
	ir_put64(t + 0, index_off);
	ir_put32(t + 8, bw->num_ranks);
	ir_put64(t + 16, ir_xxh64_digest(&st));
	memcpy(t + 24, goalb_end_magic, 8);
	if (ir_writer_write(bw->w, t, sizeof t, e))
		goto out;
	rc = 0;
out:
	ir_goalb_writer_free(bw);
	return rc;
}

void ir_goalb_writer_free(ir_goalb_writer *bw)
{
	if (!bw)
		return;
	free(bw->ent);
	goalb3_w_free(bw->v3);
	ir_sb_release(&bw->buf);
	free(bw);
}

/* ---- reader ---- */

typedef struct rentry {
	uint64_t off;
	uint32_t rank;
} rentry;

struct ir_goalb {
	const unsigned char *data;
	size_t len;
	char *name;
	uint32_t num_ranks;
	unsigned version;      /* of the format: 1, 2, 3 */
	unsigned goal_version; /* of the schedule: 1, 2 (read and write ops) */
	uint64_t index_off;
	uint64_t sec_end;      /* the sections tile [32, sec_end): index_off, or version 3's attribute table */
	goalb3_r *v3;
	rentry *order; /* sections in file order */
	uint64_t nops, nedges; /* over all sections, as their headers say */
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

static int rent_cmp(const void *a, const void *b)
{
	const rentry *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The open of ir_goalb_open and ir_goalb_open_blob: with `drop`, the pages of the
 * sections whose headers were read are let go every DROP_BYTES of the walk (the walk
 * touches every page of a file of small sections). */
#define DROP_BYTES ((uint64_t)32 << 20)
static ir_goalb *goalb_open(const unsigned char *d, size_t len, const char *name, const ir_blob *drop, ir_err *e);

ir_goalb *ir_goalb_open(const unsigned char *d, size_t len, const char *name, ir_err *e)
{
	return goalb_open(d, len, name, NULL, e);
}

ir_goalb *ir_goalb_open_blob(const ir_blob *b, const char *name, ir_err *e)
{
	return goalb_open(b->data, b->len, name, b, e);
}

static ir_goalb *goalb_open(const unsigned char *d, size_t len, const char *name, const ir_blob *drop, ir_err *e)
{
	uint64_t dropped = 0;
	ir_goalb *g = NULL;
	const unsigned char *t;
	uint64_t index_off, want, tlen;
	uint32_t n, tn;
	unsigned v, fl, gv;
	if (!name)
		name = "<memory>";
	if (len < HEADER_BYTES) {
		ir_errf(e, "%s: truncated file: %zu bytes, a GOAL binary header needs %d", name, len, HEADER_BYTES);
		return NULL;
	}
	if (memcmp(d, goalb_magic, 8) != 0) {
		bad(name, 0, e, "bad magic number (not a GOAL binary file)");
		return NULL;
	}
	v = ir_get16(d + 8);
	if (v < 1 || v > GOALB_VERSION_MAX) {
		bad(name, 8, e, "unsupported format version %u (this reader knows versions 1 to %d)", v, GOALB_VERSION_MAX);
		return NULL;
	}
	fl = ir_get16(d + 10);
	if (fl & ~(v == GOALB_V3 ? GOALB_FLAG_GOAL2 : 0u)) {
		bad(name, 10, e, "unknown flags 0x%04x (reserved bits must be zero)", fl);
		return NULL;
	}
	gv = v == GOALB_V3 ? ((fl & GOALB_FLAG_GOAL2) ? 2 : 1) : v;
	n = ir_get32(d + 12);
	if (n < 1 || n > MAX_RANKS) {
		bad(name, 12, e, "num_ranks %u out of range (1..%u)", n, MAX_RANKS);
		return NULL;
	}
	if (ir_get64(d + 16) || ir_get64(d + 24)) {
		bad(name, ir_get64(d + 16) ? 16 : 24, e, "reserved header field is not zero");
		return NULL;
	}
	if (len < HEADER_BYTES + TRAILER_BYTES) {
		ir_errf(e, "%s: truncated file: %zu bytes, header and trailer need %d", name, len, HEADER_BYTES + TRAILER_BYTES);
		return NULL;
	}
	tlen = len - TRAILER_BYTES;
	t = d + tlen;
	if (memcmp(t + 24, goalb_end_magic, 8) != 0) {
		bad(name, tlen + 24, e, "bad end magic (truncated file or trailing garbage)");
		return NULL;
	}
	tn = ir_get32(t + 8);
	if (tn != n) {
		bad(name, tlen + 8, e, "num_ranks in the trailer (%u) differs from the header (%u)", tn, n);
		return NULL;
	}
	if (ir_get32(t + 12)) {
		bad(name, tlen + 12, e, "reserved trailer field is not zero");
		return NULL;
	}
	/* every rank needs an 8-byte index entry and a 32-byte section header; version 3
	 * its attribute table's footer */
	{
		uint64_t need = v == GOALB_V3 ? (uint64_t)n * (8 + GOALB3_MIN_SECTION) + GOALB_ATTR_FOOTER
		                              : (uint64_t)n * (8 + SECTION_HEADER_BYTES);
		if (need > tlen - HEADER_BYTES) {
			bad(name, 12, e, "num_ranks %u needs at least %" PRIu64 " bytes of sections and index, the file has %" PRIu64,
			    n, need, tlen - HEADER_BYTES);
			return NULL;
		}
	}
	index_off = ir_get64(t);
	want = tlen - (uint64_t)n * 8;
	if (index_off != want) {
		bad(name, tlen, e, "index_offset %" PRIu64 " out of range (expected %" PRIu64 " for %u ranks and %zu bytes)",
		    index_off, want, n, len);
		return NULL;
	}
	{
		uint64_t h = ir_xxh64(d + index_off, (size_t)n * 8, 0), s = ir_get64(t + 16);
		if (h != s) {
			bad(name, tlen + 16, e, "index checksum mismatch (stored 0x%016" PRIx64 ", computed 0x%016" PRIx64 ")", s,
			    h);
			return NULL;
		}
	}
	g = calloc(1, sizeof *g);
	if (g)
		g->order = malloc((size_t)n * sizeof *g->order);
	if (g)
		g->name = strdup(name);
	if (!g || !g->order || !g->name) {
		ir_errf(e, "%s: out of memory for the index of %u ranks", name, n);
		goto fail;
	}
	g->data = d;
	g->len = len;
	g->num_ranks = n;
	g->version = v;
	g->goal_version = gv;
	g->index_off = index_off;
	g->sec_end = index_off;
	if (v == GOALB_V3 && !(g->v3 = goalb3_r_open(d, index_off, n, gv, g->name, &g->sec_end, e)))
		goto fail;
	/* tiles: the sections so far lie back to back in rank order from the header on (what
	 * a writer given the ranks in order writes), ending at `at`; then they need neither
	 * sorting nor a second walk to check that they cover the file exactly */
	int tiles = 1;
	uint64_t at = HEADER_BYTES;
	for (uint32_t r = 0; r < n; r++) {
		uint64_t eo = index_off + (uint64_t)r * 8, off = ir_get64(d + eo), sb;
		const unsigned char *s;
		if (v == GOALB_V3) {
			goalb3_hdr h;
			if (off < HEADER_BYTES || off > g->sec_end - GOALB3_MIN_SECTION) {
				bad(name, eo, e, "index entry of rank %u: section offset %" PRIu64 " out of range (%d..%" PRIu64 ")", r,
				    off, HEADER_BYTES, g->sec_end - GOALB3_MIN_SECTION);
				goto fail;
			}
			if (!(sb = goalb3_section(d, off, g->sec_end - off, r, g->name, &h, e)))
				goto fail;
			tiles &= off == at;
			at = off + sb;
			g->order[r].off = off;
			g->order[r].rank = r;
			g->nops += h.nops;
			g->nedges += h.nedges;
			if (drop && off > dropped + DROP_BYTES) {
				ir_blob_drop(drop, (size_t)dropped, (size_t)(off - dropped));
				dropped = off;
			}
			continue;
		}
		if (off < HEADER_BYTES || off > g->sec_end - SECTION_HEADER_BYTES || (off & 7)) {
			bad(name, eo, e, "index entry of rank %u: section offset %" PRIu64 " out of range (%d..%" PRIu64
			    ", a multiple of 8)", r, off, HEADER_BYTES, g->sec_end - SECTION_HEADER_BYTES);
			goto fail;
		}
		s = d + off;
		if (ir_get32(s) != r) {
			bad(name, off, e, "section rank %u differs from its index entry (rank %u)", ir_get32(s), r);
			goto fail;
		}
		sb = section_bytes(ir_get32(s + 4), ir_get32(s + 8));
		if (sb > g->sec_end - off) {
			bad(name, off + 4, e, "rank %u: nops %u and nedges %u need %" PRIu64 " bytes, only %" PRIu64
			    " before the index", r, ir_get32(s + 4), ir_get32(s + 8), sb, g->sec_end - off);
			goto fail;
		}
		tiles &= off == at;
		at = off + sb;
		g->order[r].off = off;
		g->order[r].rank = r;
		g->nops += ir_get32(s + 4);
		g->nedges += ir_get32(s + 8);
		if (drop && off > dropped + DROP_BYTES) {
			ir_blob_drop(drop, (size_t)dropped, (size_t)(off - dropped));
			dropped = off;
		}
	}

	if (tiles && at == g->sec_end) {
		if (drop)
			ir_blob_drop(drop, 0, (size_t)g->sec_end);
		return g;
	}
	qsort(g->order, n, sizeof *g->order, rent_cmp);
	dropped = 0;
	if (drop)
		ir_blob_drop(drop, 0, (size_t)g->sec_end);
	{
		at = HEADER_BYTES;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t off = g->order[i].off;
			if (off != at) {
				if (off < at)
					bad(name, off, e, "section of rank %u overlaps the section before it", g->order[i].rank);
				else
					bad(name, at, e, "%" PRIu64 " bytes before the section of rank %u belong to no section",
					    off - at, g->order[i].rank);
				goto fail;
			}
			at = off + section_size(v, d, off);
			if (drop && off > dropped + DROP_BYTES) {
				ir_blob_drop(drop, (size_t)dropped, (size_t)(off - dropped));
				dropped = off;
			}
		}
		if (drop)
			ir_blob_drop(drop, 0, (size_t)g->sec_end);
		if (at != g->sec_end) {
			bad(name, at, e, "%" PRIu64 " bytes before the %s belong to no section", g->sec_end - at,
			    v == GOALB_V3 ? "attribute table" : "index");
			goto fail;
		}
	}
	return g;
fail:
	ir_goalb_free(g);
	return NULL;
}

void ir_goalb_free(ir_goalb *g)
{
	if (!g)
		return;
	free(g->order);
	free(g->name);
	goalb3_r_free(g->v3);
	free(g);
}

uint32_t ir_goalb_num_ranks(const ir_goalb *g) { return g->num_ranks; }
unsigned ir_goalb_version(const ir_goalb *g) { return g->version; }
unsigned ir_goalb_goal_version(const ir_goalb *g) { return g->goal_version; }
uint32_t ir_goalb_section_rank(const ir_goalb *g, uint32_t i) { return g->order[i].rank; }
uint64_t ir_goalb_section_offset(const ir_goalb *g, uint32_t i) { return g->order[i].off; }

void ir_goalb_totals(const ir_goalb *g, uint64_t *nops, uint64_t *nedges)
{
	*nops = g->nops;
	*nedges = g->nedges;
}

/* Kahn's algorithm over a validated CSR; returns 1 if acyclic, 0 if not, -1 out of memory. */
static int acyclic(const ir_rank *r, uint32_t *first_stuck)
{
	uint32_t n = r->nops, *deg, *q, qh = 0, qt = 0;
	int ok;
	if (!n)
		return 1;
	deg = calloc(n, sizeof *deg);
	q = malloc((size_t)n * sizeof *q);
	if (!deg || !q) {
		free(deg);
		free(q);
		return -1;
	}
	for (uint32_t k = 0; k < r->nedges; k++)
		deg[ir_rank_edge(r, k) & IR_EDGE_INDEX]++;
	for (uint32_t i = 0; i < n; i++)
		if (!deg[i])
			q[qt++] = i;
	while (qh < qt) {
		uint32_t i = q[qh++], b, en;
		ir_rank_succ(r, i, &b, &en);
		for (uint32_t k = b; k < en; k++) {
			uint32_t dd = ir_rank_edge(r, k) & IR_EDGE_INDEX;
			if (--deg[dd] == 0)
				q[qt++] = dd;
		}
	}
	ok = qt == n;
	if (!ok)
		for (uint32_t i = 0; i < n; i++)
			if (deg[i]) {
				*first_stuck = i;
				break;
			}
	free(deg);
	free(q);
	return ok;
}

int ir_goalb_rank(const ir_goalb *g, uint32_t rank, ir_rank *out, ir_err *e)
{
	const char *name = g->name;
	uint64_t off, eoff;
	const unsigned char *s;
	uint32_t nops, nedges, ncpus, nnics, prev = 0;
	unsigned maxcpu = 0, maxnic = 0;
	ir_rank r;
	if (rank >= g->num_ranks)
		return ir_errf(e, "%s: rank %u out of range (num_ranks is %u)", name, rank, g->num_ranks);
	off = ir_get64(g->data + g->index_off + (uint64_t)rank * 8);
	if (g->v3)
		return goalb3_r_rank(g->v3, g->data, off, rank, out, e);
	s = g->data + off;
	nops = ir_get32(s + 4);
	nedges = ir_get32(s + 8);
	ncpus = ir_get16(s + 12);
	nnics = ir_get16(s + 14);
	if (ncpus < 1 || ncpus > 256)
		return bad(name, off + 12, e, "rank %u: ncpus %u out of range (1..256)", rank, ncpus);
	if (nnics < 1 || nnics > 256)
		return bad(name, off + 14, e, "rank %u: nnics %u out of range (1..256)", rank, nnics);
	if (ir_get64(s + 24))
		return bad(name, off + 24, e, "rank %u: reserved section field is not zero", rank);
	if (nops > IR_MAX_OPS_PER_RANK)
		return bad(name, off + 4, e, "rank %u: nops %u out of range (at most %u)", rank, nops, IR_MAX_OPS_PER_RANK);
	r.ops = s + SECTION_HEADER_BYTES;
	r.edges = r.ops + (uint64_t)nops * IR_OP_BYTES;
	r.nops = nops;
	r.nedges = nedges;
	r.ncpus = ncpus;
	r.nnics = nnics;
	eoff = off + SECTION_HEADER_BYTES + (uint64_t)nops * IR_OP_BYTES;
	{
		uint64_t h = section_checksum(s, r.ops, nops, r.edges, nedges, r.edges + (uint64_t)nedges * 4), st = ir_get64(s + 16);
		if (h != st)
			return bad(name, off + 16, e, "rank %u: section checksum mismatch (stored 0x%016" PRIx64
			           ", computed 0x%016" PRIx64 ")", rank, st, h);
	}
	{
		uint64_t pb = pad8((uint64_t)nedges * 4);
		if (pb && memcmp(r.edges + (uint64_t)nedges * 4, zeros, (size_t)pb))
			return bad(name, eoff + (uint64_t)nedges * 4, e, "rank %u: padding is not zero", rank);
	}
	for (uint32_t i = 0; i < nops; i++) {
		const unsigned char *op = r.ops + (uint64_t)i * IR_OP_BYTES;
		uint64_t oo = off + SECTION_HEADER_BYTES + (uint64_t)i * IR_OP_BYTES;
		unsigned type = ir_op_type(op), cpu = ir_op_cpu(op), nic = ir_op_nic(op);
		uint32_t peer = ir_op_peer(op), tag = ir_op_tag(op), sf = ir_op_succ_first(op);
		if (type > (g->version >= 2 ? IR_OP_WRITE : IR_OP_CALC))
			return bad(name, oo, e, "rank %u, op %u: type %u out of range (0 send, 1 recv, 2 calc%s)", rank, i,
			           type, g->version >= 2 ? ", 3 read, 4 write" : "");
		if (op[3])
			return bad(name, oo + 3, e, "rank %u, op %u: reserved byte is not zero", rank, i);
		if (cpu >= ncpus)
			return bad(name, oo + 1, e, "rank %u, op %u: cpu %u out of range (ncpus is %u)", rank, i, cpu, ncpus);
		if (nic >= nnics)
			return bad(name, oo + 2, e, "rank %u, op %u: nic %u out of range (nnics is %u)", rank, i, nic, nnics);
		if (ir_op_is_io(type)) {
			if (nic)
				return bad(name, oo + 2, e, "rank %u, op %u: %s with nic %u (must be 0)", rank, i,
				           type == IR_OP_READ ? "read" : "write", nic);
		} else if (type == IR_OP_CALC) {
			if (nic)
				return bad(name, oo + 2, e, "rank %u, op %u: calc with nic %u (must be 0)", rank, i, nic);
			if (peer)
				return bad(name, oo + 4, e, "rank %u, op %u: calc with peer %u (must be 0)", rank, i, peer);
			if (tag)
				return bad(name, oo + 8, e, "rank %u, op %u: calc with tag %u (must be 0)", rank, i, tag);
		} else {
			if (peer >= g->num_ranks && !(type == IR_OP_RECV && peer == IR_ANY))
				return bad(name, oo + 4, e, "rank %u, op %u: peer %u out of range (num_ranks is %u)", rank, i,
				           peer, g->num_ranks);
			if (tag > MAX_TAG && !(type == IR_OP_RECV && tag == IR_ANY))
				return bad(name, oo + 8, e, "rank %u, op %u: tag %u out of range (0..%u%s)", rank, i, tag,
				           MAX_TAG, type == IR_OP_RECV ? " or 0xffffffff" : "");
		}
		if (i == 0 ? sf != 0 : sf < prev)
			return bad(name, oo + 12, e, "rank %u, op %u: succ_first %u %s", rank, i, sf,
			           i == 0 ? "is not 0 for the first op" : "is smaller than the previous op's");
		if (sf > nedges)
			return bad(name, oo + 12, e, "rank %u, op %u: succ_first %u out of range (nedges is %u)", rank, i, sf,
			           nedges);
		prev = sf;
		if (cpu > maxcpu)
			maxcpu = cpu;
		if (nic > maxnic)
			maxnic = nic;
	}
	if (nops == 0 && nedges)
		return bad(name, off + 8, e, "rank %u: nedges %u without ops", rank, nedges);
	if (maxcpu + 1 != ncpus)
		return bad(name, off + 12, e, "rank %u: ncpus %u, but the largest cpu used is %u", rank, ncpus, maxcpu);
	if (maxnic + 1 != nnics)
		return bad(name, off + 14, e, "rank %u: nnics %u, but the largest nic used is %u", rank, nnics, maxnic);
	int forward = 1; /* every edge goes to a later op: the index order is a topological one */
	for (uint32_t i = 0; i < nops; i++) {
		uint32_t b, en, last = 0;
		ir_rank_succ(&r, i, &b, &en);
		for (uint32_t k = b; k < en; k++) {
			uint32_t ed = ir_rank_edge(&r, k), d = ed & IR_EDGE_INDEX;
			uint64_t ko = eoff + (uint64_t)k * 4;
			if (d >= nops)
				return bad(name, ko, e, "rank %u, edge %u of op %u: op index %u out of range (nops is %u)", rank, k,
				           i, d, nops);
			if (d == i)
				return bad(name, ko, e, "rank %u, edge %u: op %u depends on itself", rank, k, i);
			if (k > b && d <= last)
				return bad(name, ko, e, "rank %u, edge %u of op %u: dependents not sorted or repeated (%u after %u)",
				           rank, k, i, d, last);
			last = d;
			forward &= d > i;
		}
	}
	if (!forward && goalb_check_acyclic(&r, name, off, rank, e))
		return -1;
	*out = r;
	return 0;
}

int ir_goalb_rank_compact(const ir_goalb *g, uint32_t rank, ir_csched *c, ir_rank *out, ir_err *e)
{
	if (!g->v3 || rank >= g->num_ranks)
		return 1;
	return goalb3_r_rank_compact(g->v3, g->data, ir_get64(g->data + g->index_off + (uint64_t)rank * 8), rank, c,
	                             out, e);
}

int goalb_check_acyclic(const ir_rank *r, const char *name, uint64_t off, uint32_t rank, ir_err *e)
{
	uint32_t stuck = 0;
	int a = acyclic(r, &stuck);
	if (a < 0)
		return ir_errf(e, "%s: rank %u: out of memory checking %u ops", name, rank, r->nops);
	if (!a)
		return bad(name, off, e, "rank %u: dependency cycle through op %u", rank, stuck);
	return 0;
}
