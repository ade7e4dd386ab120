/*
 * ir_goal.c: loading GOAL schedules (ir_sched_load) and streaming them to a
 * sink (ir_goal_read), whichever form they come in (see ir_goal.h).
 *
 * The form is decided by content: the first 8 bytes after decompression are
 * the GOAL binary magic number or the file is text. Binary input from a plain
 * regular file is mapped and used in place (the ir_rank pointers point into
 * the mapping); from a pipe or a compressed file it is read into memory first,
 * since sections are located through the index at the end. Text is compiled
 * by ir_goal_parse into one growing buffer holding each rank's ops and edges
 * back to back in the binary section layout, so the simulator sees the same
 * thing either way. With IR_SCHED_COMPACT each rank is also read into the
 * compact form (ir_csched, lib/ir_goal_compact.c) as soon as it is validated,
 * and the mapping's pages before the current section are let go in windows
 * of 32 MiB (ir_blob_drop): the run never reads the file again, so the pages
 * would only count in memory (the whole file, 1.1 GB for a million ranks).
 * Rejected: reading sections with pread into a buffer (a million small
 * reads), or converting in the engine (the file would be resident until then).
 */
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_grow.h"
#include "ir_io.h"

typedef struct ent {
	uint32_t rank, nops, nedges, ncpus, nnics;
	size_t off;        /* ops in data; edges follow */
	uint64_t lab_base; /* first op's slot in lab_off */
} ent;

struct ir_sched_priv {
	ir_blob blob;
	ir_goalb *g;
	ir_sb data;         /* text: ops and edges of every rank */
	ent *ents;
	size_t nents, ents_cap;
	uint32_t *order;
	/* labels (text input with IR_SCHED_LABELS) */
	int keep_labels;
	ir_sb lab_arena;
	uint64_t *lab_off;  /* per op over all ranks, in file order; UINT64_MAX = none */
	size_t nlab_off, lab_off_cap;
	uint64_t *rank_lab_base; /* by rank number */
	ir_csched cs;       /* IR_SCHED_COMPACT */
};

/* IR_SCHED_COMPACT on a mapped file: the pages of the sections already read are let
 * go in windows of this many bytes (one madvise per window) */
#define DROP_WINDOW ((uint64_t)32 << 20)

/* The compact form's layout the flags ask for (else init's choice, by the rank count). */
static void layout(ir_csched *c, int flags)
{
	if (flags & IR_SCHED_TILED)
		c->tile = 1;
	else if (flags & IR_SCHED_RANK_MAJOR)
		c->tile = 0;
}

/* The compact form of every rank, in file order (text input: from its buffer). */
static int compact_text(ir_sched *s, int flags, ir_err *e)
{
	ir_sched_priv *v = s->priv;
	if (ir_csched_init(&v->cs, s->nranks, s->nops, s->nedges, e))
		return -1;
	layout(&v->cs, flags);
	for (uint32_t i = 0; i < s->nranks; i++)
		if (ir_csched_add(&v->cs, v->order[i], &s->rank[v->order[i]], e))
			return -1;
	if (ir_csched_finish(&v->cs, e))
		return -1;
	s->compact = &v->cs;
	return 0;
}

/* Open `path` and tell its form. On binary, *is_bin is set and the reader is
 * left positioned at the start (peek does not consume). */
static ir_reader *open_detect(const char *path, int *is_bin, ir_err *e)
{
	const unsigned char *p;
	long n;
	ir_reader *r = ir_reader_open(path, e);
	if (!r)
		return NULL;
	n = ir_reader_peek(r, &p, 8, e);
	if (n < 0) {
		ir_reader_free(r);
		return NULL;
	}
	/* 0x89 never starts GOAL text (it is not ASCII): a damaged magic number
	 * is then reported as such rather than as a text syntax error */
	*is_bin = n > 0 && p[0] == 0x89;
	return r;
}

/* The whole binary input in `b`: mapped when plain and named, else read. */
static int load_binary(ir_blob *b, const char *path, ir_reader *r, ir_err *e)
{
	if (path && strcmp(path, "-") != 0 && ir_reader_compression(r) == IR_PLAIN) {
		ir_reader_free(r);
		return ir_blob_load(b, path, SIZE_MAX, e);
	}
	memset(b, 0, sizeof *b);
	ir_sb_init(&b->priv_sb);
	if (ir_reader_slurp(r, &b->priv_sb, SIZE_MAX, e)) {
		ir_reader_free(r);
		ir_sb_release(&b->priv_sb);
		return -1;
	}
	ir_reader_free(r);
	b->data = (const unsigned char *)b->priv_sb.buf;
	b->len = b->priv_sb.len;
	return 0;
}

int ir_goal_read(const char *path, const ir_goal_sink *sink, ir_err *e)
{
	int is_bin = 0, rc = -1;
	ir_blob b;
	ir_goalb *g;
	ir_reader *r = open_detect(path, &is_bin, e);
	if (!r)
		return -1;
	if (!is_bin) {
		rc = ir_goal_parse(r, sink, e);
		ir_reader_free(r);
		return rc;
	}
	const char *name = path && strcmp(path, "-") ? path : "<stdin>";
	if (load_binary(&b, path, r, e))
		return -1;
	g = ir_goalb_open(b.data, b.len, name, e);
	if (!g)
		goto out;
	if (sink->begin && sink->begin(sink->ctx, ir_goalb_num_ranks(g), ir_goalb_goal_version(g), e))
		goto out;
	for (uint32_t i = 0; i < ir_goalb_num_ranks(g); i++) {
		ir_rank rk;
		uint32_t rank = ir_goalb_section_rank(g, i);
		if (ir_goalb_rank(g, rank, &rk, e))
			goto out;
		if (sink->rank && sink->rank(sink->ctx, rank, &rk, NULL, e))
			goto out;
	}
	rc = 0;
out:
	ir_goalb_free(g);
	ir_blob_release(&b);
	return rc;
}

/* ---- ir_sched_load ---- */

typedef struct load_ctx {
	ir_sched *s;
	const char *name;
} load_ctx;

static int load_begin(void *ctx, uint32_t num_ranks, unsigned version, ir_err *e)
{
	(void)e;
	(void)version;
	((load_ctx *)ctx)->s->nranks = num_ranks;
	return 0;
}

static int load_rank(void *ctx, uint32_t rank, const ir_rank *r, const ir_goal_parser *p, ir_err *e)
{
	load_ctx *lc = ctx;
	ir_sched_priv *v = lc->s->priv;
	size_t ob = (size_t)r->nops * IR_OP_BYTES, eb = (size_t)r->nedges * 4, pad = (8 - (eb & 7)) & 7;
	static const unsigned char z[8];
	ent *en;
	if (IR_GROW(v->ents, v->nents + 1, v->ents_cap))
		return ir_errf(e, "%s: out of memory", lc->name);
	en = &v->ents[v->nents];
	en->rank = rank;
	en->nops = r->nops;
	en->nedges = r->nedges;
	en->ncpus = r->ncpus;
	en->nnics = r->nnics;
	en->off = v->data.len;
	en->lab_base = v->nlab_off;
	if (ir_sb_add(&v->data, r->ops, ob) || ir_sb_add(&v->data, r->edges, eb) || ir_sb_add(&v->data, z, pad))
		return ir_errf(e, "%s: out of memory loading rank %u (%u ops)", lc->name, rank, r->nops);
	if (v->keep_labels) {
		if (IR_GROW(v->lab_off, v->nlab_off + r->nops, v->lab_off_cap))
			return ir_errf(e, "%s: out of memory for labels", lc->name);
		for (uint32_t i = 0; i < r->nops; i++) {
			const char *l = p ? ir_goal_parser_label(p, i) : NULL;
			if (!l) {
				v->lab_off[v->nlab_off++] = UINT64_MAX;
				continue;
			}
			v->lab_off[v->nlab_off++] = v->lab_arena.len;
			if (ir_sb_add(&v->lab_arena, l, strlen(l) + 1))
				return ir_errf(e, "%s: out of memory for labels", lc->name);
		}
	}
	v->nents++;
	return 0;
}

static int finish_text(ir_sched *s, const char *name, ir_err *e)
{
	ir_sched_priv *v = s->priv;
	s->rank = calloc(s->nranks ? s->nranks : 1, sizeof *s->rank);
	v->order = malloc((s->nranks ? s->nranks : 1) * sizeof *v->order);
	if (v->keep_labels)
		v->rank_lab_base = malloc((s->nranks ? s->nranks : 1) * sizeof *v->rank_lab_base);
	if (!s->rank || !v->order || (v->keep_labels && !v->rank_lab_base))
		return ir_errf(e, "%s: out of memory", name);
	for (size_t i = 0; i < v->nents; i++) {
		const ent *en = &v->ents[i];
		ir_rank *r = &s->rank[en->rank];
		r->ops = (const unsigned char *)v->data.buf + en->off;
		r->edges = r->ops + (size_t)en->nops * IR_OP_BYTES;
		r->nops = en->nops;
		r->nedges = en->nedges;
		r->ncpus = en->ncpus;
		r->nnics = en->nnics;
		v->order[i] = en->rank;
		if (v->keep_labels)
			v->rank_lab_base[en->rank] = en->lab_base;
		s->nops += en->nops;
		s->nedges += en->nedges;
	}
	free(v->ents);
	v->ents = NULL;
	return 0;
}

int ir_sched_load(ir_sched **out, const char *path, int flags, ir_err *e)
{
	ir_sched *s;
	ir_sched_priv *v;
	int is_bin = 0;
	ir_reader *r;
	const char *name = path && strcmp(path, "-") ? path : "<stdin>";
	*out = NULL;
	s = calloc(1, sizeof *s);
	v = calloc(1, sizeof *v);
	if (!s || !v) {
		free(s);
		free(v);
		return ir_errf(e, "%s: out of memory", name);
	}
	s->priv = v;
	ir_sb_init(&v->data);
	ir_sb_init(&v->lab_arena);
	ir_sb_init(&v->blob.priv_sb);
	r = open_detect(path, &is_bin, e);
	if (!r)
		goto fail;
	if (!is_bin) {
		load_ctx lc = { s, name };
		ir_goal_sink sink = { &lc, load_begin, load_rank };
		s->from_text = 1;
		v->keep_labels = (flags & IR_SCHED_LABELS) != 0;
		if (ir_goal_parse(r, &sink, e)) {
			ir_reader_free(r);
			goto fail;
		}
		ir_reader_free(r);
		if (finish_text(s, name, e))
			goto fail;
		if ((flags & IR_SCHED_COMPACT) && compact_text(s, flags, e))
			goto fail;
		*out = s;
		return 0;
	}
	if (load_binary(&v->blob, path, r, e))
		goto fail;
	v->g = (flags & IR_SCHED_COMPACT) ? ir_goalb_open_blob(&v->blob, name, e)
	                                  : ir_goalb_open(v->blob.data, v->blob.len, name, e);
	if (!v->g)
		goto fail;
	s->nranks = ir_goalb_num_ranks(v->g);
	s->rank = calloc(s->nranks, sizeof *s->rank);
	v->order = malloc((size_t)s->nranks * sizeof *v->order);
	if (!s->rank || !v->order) {
		ir_errf(e, "%s: out of memory", name);
		goto fail;
	}
	if (flags & IR_SCHED_COMPACT) {
		uint64_t no, ne;
		ir_goalb_totals(v->g, &no, &ne);
		if (ir_csched_init(&v->cs, s->nranks, no, ne, e))
			goto fail;
		layout(&v->cs, flags);
	}
	uint64_t dropped = 0; /* the mapping's pages before this offset were let go */
	int decoded = ir_goalb_version(v->g) >= 3; /* sections decoded into the reader's buffer */
	for (uint32_t i = 0; i < s->nranks; i++) {
		uint32_t rk = ir_goalb_section_rank(v->g, i);
		ir_rank *R = &s->rank[rk];
		v->order[i] = rk;
		if (decoded && (flags & IR_SCHED_COMPACT)) {
			/* version 3 straight into the compact form; a section it does not take
			 * goes the general way below, which names what is wrong with it */
			int k = ir_goalb_rank_compact(v->g, rk, &v->cs, R, e);
			if (k < 0)
				goto fail;
			if (k == 0) {
				s->nops += R->nops;
				s->nedges += R->nedges;
				goto placed;
			}
		}
		if (ir_goalb_rank(v->g, rk, R, e))
			goto fail;
		s->nops += R->nops;
		s->nedges += R->nedges;
		if (decoded && !(flags & IR_SCHED_COMPACT)) {
			/* kept: copied as text's ranks are, placed by finish_decoded */
			load_ctx lc = { s, name };
			if (load_rank(&lc, rk, R, NULL, e))
				goto fail;
		}
		if (!(flags & IR_SCHED_COMPACT))
			continue;
		if (ir_csched_add(&v->cs, rk, R, e))
			goto fail;
		if (decoded)
			R->ops = R->edges = NULL; /* the decoded records are gone with the next rank */
	placed:
		if (i + 1 < s->nranks && ir_goalb_section_offset(v->g, i + 1) - dropped >= DROP_WINDOW) {
			uint64_t at = ir_goalb_section_offset(v->g, i + 1);
			ir_blob_drop(&v->blob, (size_t)dropped, (size_t)(at - dropped));
			dropped = at;
		}
	}
	if (flags & IR_SCHED_COMPACT) {
		if (ir_csched_finish(&v->cs, e))
			goto fail;
		s->compact = &v->cs;
		ir_blob_drop(&v->blob, (size_t)dropped, v->blob.len - (size_t)dropped);
	}
	if (decoded && !(flags & IR_SCHED_COMPACT)) {
		for (size_t i = 0; i < v->nents; i++) {
			const ent *en = &v->ents[i];
			ir_rank *R = &s->rank[en->rank];
			R->ops = (const unsigned char *)v->data.buf + en->off;
			R->edges = R->ops + (size_t)en->nops * IR_OP_BYTES;
		}
		free(v->ents);
		v->ents = NULL;
	}
	/* the index's order is not needed once every section is located */
	ir_goalb_free(v->g);
	v->g = NULL;
	*out = s;
	return 0;
fail:
	ir_sched_free(s);
	return -1;
}

void ir_sched_free(ir_sched *s)
{
	ir_sched_priv *v;
	if (!s)
		return;
	v = s->priv;
	if (v) {
		ir_goalb_free(v->g);
		ir_blob_release(&v->blob);
		ir_sb_release(&v->blob.priv_sb);
		ir_sb_release(&v->data);
		ir_sb_release(&v->lab_arena);
		ir_csched_release(&v->cs);
		free(v->ents);
		free(v->order);
		free(v->lab_off);
		free(v->rank_lab_base);
		free(v);
	}
	free(s->rank);
	free(s);
}

const char *ir_sched_label(const ir_sched *s, uint32_t rank, uint32_t op)
{
	const ir_sched_priv *v;
	uint64_t o;
	if (!s || !s->priv || rank >= s->nranks)
		return NULL;
	v = s->priv;
	if (!v->keep_labels || !v->rank_lab_base || op >= s->rank[rank].nops)
		return NULL;
	o = v->lab_off[v->rank_lab_base[rank] + op];
	return o == UINT64_MAX ? NULL : v->lab_arena.buf + o;
}

const uint32_t *ir_sched_order(const ir_sched *s) { return s->priv->order; }
