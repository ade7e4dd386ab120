/*
 * u-goal.c: the GOAL library: ir_sched_load on text (fields, CSR, labels,
 * forward references, file order) and on binary (same bytes, no labels), the
 * streaming parser and its labels, statistics, and the binary reader's
 * field-level checks: each corruption below is made behind a valid checksum
 * (the section and index checksums are recomputed), so the check that fires
 * is the field's own, with its exact message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_goal.h"
#include "ir_hash.h"
#include "ir_io.h"
#include "tap.h"

static char dir[] = "/tmp/u-goal.XXXXXX";

static const char *tmpfile_with(const char *name, const char *text)
{
	static char path[4][256];
	static int k;
	char *p = path[k++ & 3];
	FILE *f;
	snprintf(p, 256, "%s/%s", dir, name);
	f = fopen(p, "wb");
	fputs(text, f);
	fclose(f);
	return p;
}

static const char small_text[] = "num_ranks 2\n"
                                 "rank 1 {\n"
                                 "recv 8b from 0 tag 3\n"
                                 "}\n"
                                 "rank 0 {\n"
                                 "a requires b\n" /* both labels used before they are defined */
                                 "a: send 8b to 1 tag 3\n"
                                 "b: calc 100\n"
                                 "}\n";

/* ---- the binary file in memory, and re-sealing it after a change ---- */
static unsigned char *bin, *orig;
static size_t binlen;

static void load_bin(const char *path)
{
	FILE *f = fopen(path, "rb");
	free(bin);
	bin = malloc(4096);
	binlen = fread(bin, 1, 4096, f);
	fclose(f);
}

static void reseal(void)
{
	/* every section's checksum, then the index checksum */
	uint64_t index_off = ir_get64(bin + binlen - 32);
	uint32_t n = ir_get32(bin + 12);
	for (uint32_t r = 0; r < n; r++) {
		/* the section positions of the file as written, not of a corrupted index */
		uint64_t off = ir_get64(orig + index_off + 8 * r);
		unsigned char *s = bin + off;
		uint64_t eb = (uint64_t)ir_get32(s + 8) * 4, size = 32 + (uint64_t)ir_get32(s + 4) * 24 + eb;
		size += (8 - (size & 7)) & 7;
		if (size > index_off - off)
			size = index_off - off;
		static const unsigned char z[8];
		ir_xxh64_state st;
		ir_xxh64_init(&st, 0);
		ir_xxh64_update(&st, s, 16);
		ir_xxh64_update(&st, z, 8);
		ir_xxh64_update(&st, s + 24, size - 24);
		ir_put64(s + 16, ir_xxh64_digest(&st));
	}
	ir_put64(bin + binlen - 16, ir_xxh64(bin + index_off, 8 * (size_t)n, 0));
}

/* Open and validate every rank; the error message, or "" when valid. */
static const char *check(void)
{
	static ir_err e;
	ir_goalb *g = ir_goalb_open(bin, binlen, "m", &e);
	if (!g)
		return e.msg;
	for (uint32_t r = 0; r < ir_goalb_num_ranks(g); r++) {
		ir_rank rk;
		if (ir_goalb_rank(g, r, &rk, &e)) {
			ir_goalb_free(g);
			return e.msg;
		}
	}
	ir_goalb_free(g);
	return "";
}

static void restore(void) { memcpy(bin, orig, binlen); }

/* ---- a sink that records labels ---- */
typedef struct rec {
	char labels[256];
	uint32_t begin_n, ranks;
} rec;
static int rec_begin(void *c, uint32_t n, unsigned version, ir_err *e)
{
	(void)e;
	(void)version;
	((rec *)c)->begin_n = n;
	return 0;
}
static int rec_rank(void *c, uint32_t rank, const ir_rank *r, const ir_goal_parser *p, ir_err *e)
{
	rec *R = c;
	(void)e;
	R->ranks++;
	for (uint32_t i = 0; i < r->nops; i++) {
		const char *l = ir_goal_parser_label(p, i);
		size_t n = strlen(R->labels);
		snprintf(R->labels + n, sizeof R->labels - n, "%u:%s ", rank, l ? l : "-");
	}
	return 0;
}

/* Every op of every rank of s (loaded from text, so its records are kept) decodes from the
 * compact form at ir_cs_gid to its record, and its edges to its dependents' global ids; *ne
 * counts the edges. */
static int compact_matches(const ir_sched *s, uint64_t *ne)
{
	const ir_csched *c = s->compact;
	int same = 1;
	for (uint32_t r = 0; r < s->nranks; r++) {
		const ir_rank *rk = &s->rank[r];
		for (uint32_t i = 0; i < rk->nops; i++) {
			const unsigned char *op = ir_rank_op(rk, i);
			uint32_t g = ir_cs_gid(c->base[r], i), lo, hi;
			ir_dop d;
			ir_csched_op(c, r, g, &d);
			ir_rank_succ(rk, i, &lo, &hi);
			same &= d.type == ir_op_type(op) && d.cpu == ir_op_cpu(op) && d.nic == ir_op_nic(op) &&
			        d.peer == ir_op_peer(op) && d.tag == ir_op_tag(op) && d.size == ir_op_size(op) &&
			        ir_csched_type(c, g) == ir_op_type(op) && c->op[g + 1].s - c->op[g].s == hi - lo &&
			        ir_cs_index(c->base[r], g) == i;
			for (uint32_t q = lo; q < hi; q++, (*ne)++) {
				uint32_t ed = ir_rank_edge(rk, q), ce = c->edge[c->op[g].s + q - lo];
				same &= (ce & IR_EDGE_IREQ) == (ed & IR_EDGE_IREQ) &&
				        (ce & IR_EDGE_INDEX) == ir_cs_gid(c->base[r], ed & IR_EDGE_INDEX);
			}
		}
	}
	return same;
}

/* The tiled layout (ir_goal.h, IR_CS_TILE): 1,539 ranks of one program (a receive and a
 * send whose peers and sizes vary by rank, a calc, an irequires edge), but rank 700 has a
 * calc where the others receive and rank 1100's calc is 1 ps longer: the first tile is
 * tiled, the second (rank 700), the third (rank 1100) and the 3 ranks after them are not. */
static void test_tiles(void)
{
	const uint32_t n = 1539;
	char path[64];
	FILE *f;
	ir_sched *s = NULL;
	ir_err e;
	uint64_t ne = 0;
	uint32_t flagged = 0, tiled = 0;
	int ok_flags = 1;
	snprintf(path, sizeof path, "%s/tiles.goal", dir);
	f = fopen(path, "w");
	fprintf(f, "num_ranks %u\n", n);
	for (uint32_t r = 0; r < n; r++) {
		fprintf(f, "rank %u {\n", r);
		if (r == 700)
			fprintf(f, "a: calc 5\n");
		else
			fprintf(f, "a: recv %ub from %u tag 1\n", 8 + r % 3, (r + n - 1) % n);
		fprintf(f, "b: calc %u\nc: send %ub to %u tag 1\nb requires a\nc irequires a\nc requires b\n}\n",
		        r == 1100 ? 101 : 100, 8 + (r + 1) % 3, (r + 1) % n);
	}
	fclose(f);
	/* rank 700 sends to 701 but 701 receives from 700: every message still matches */
	ok(ir_sched_load(&s, path, IR_SCHED_COMPACT | IR_SCHED_TILED, &e) == 0 && s && s->compact,
	   "tiles: loaded with IR_SCHED_TILED");
	if (!s || !s->compact)
		return;
	for (uint32_t r = 0; r < n; r++) {
		int want = r < IR_CS_TILE;
		flagged += (s->compact->base[r] & IR_CS_TILED) != 0;
		ok_flags &= ((s->compact->base[r] & IR_CS_TILED) != 0) == want;
	}
	tiled = s->compact->ntiled;
	ok(ok_flags && flagged == IR_CS_TILE && tiled == IR_CS_TILE,
	   "tiles: only the first tile is tiled (%u flagged, ntiled %u)", flagged, tiled);
	ok(compact_matches(s, &ne) && ne == 3 * (uint64_t)n, "tiles: every op and edge decodes to its record");
	/* the tile's op i of its ranks lie side by side */
	ok(ir_cs_gid(s->compact->base[5], 2) == ir_cs_gid(s->compact->base[4], 2) + 1 &&
	   ir_cs_gid(s->compact->base[4], 1) == ir_cs_gid(s->compact->base[4], 0) + IR_CS_TILE,
	   "tiles: op i of consecutive ranks side by side, a rank's ops a tile apart");
	ir_sched_free(s);
	s = NULL;
	ok(ir_sched_load(&s, path, IR_SCHED_COMPACT | IR_SCHED_RANK_MAJOR, &e) == 0 && s && s->compact &&
	   s->compact->ntiled == 0 && compact_matches(s, &ne), "tiles: IR_SCHED_RANK_MAJOR tiles nothing");
	ir_sched_free(s);
	s = NULL;
	ok(ir_sched_load(&s, path, IR_SCHED_COMPACT, &e) == 0 && s && s->compact && s->compact->ntiled == 0,
	   "tiles: by default, not below IR_CS_TILE_AUTO ranks");
	ir_sched_free(s);
}

int main(void)
{
	ir_err e;
	ir_sched *s = NULL;
	const char *txt, *msg;
	char path[300];

	if (!mkdtemp(dir))
		return 1;
	txt = tmpfile_with("small.goal", small_text);

	/* ---- text ---- */
	ok(ir_sched_load(&s, txt, IR_SCHED_LABELS, &e) == 0, "load text");
	if (!s) {
		printf("# %s\n", e.msg);
		return tap_done();
	}
	is_u64(s->nranks, 2, "nranks");
	is_u64(s->nops, 3, "nops over all ranks");
	is_u64(s->nedges, 1, "nedges over all ranks");
	ok(s->from_text, "from_text set");
	is_u64(ir_sched_order(s)[0], 1, "file order: rank 1 first");
	is_u64(ir_sched_order(s)[1], 0, "file order: rank 0 second");
	{
		const ir_rank *r0 = &s->rank[0];
		const unsigned char *a = ir_rank_op(r0, 0), *b = ir_rank_op(r0, 1);
		uint32_t lo, hi;
		is_u64(r0->nops, 2, "rank 0 has 2 ops");
		is_u64(ir_op_type(a), IR_OP_SEND, "op 0 is a send");
		is_u64(ir_op_peer(a), 1, "send peer");
		is_u64(ir_op_tag(a), 3, "send tag");
		is_u64(ir_op_size(a), 8, "send size");
		is_u64(ir_op_type(b), IR_OP_CALC, "op 1 is a calc");
		is_u64(ir_op_size(b), 100, "calc time");
		ir_rank_succ(r0, 0, &lo, &hi);
		is_u64(hi - lo, 0, "the send has no dependents");
		ir_rank_succ(r0, 1, &lo, &hi);
		is_u64(hi - lo, 1, "the calc has one dependent");
		is_u64(ir_rank_edge(r0, lo), 0, "... the send, by requires");
		is_u64(r0->ncpus, 1, "ncpus");
		is_u64(r0->nnics, 1, "nnics");
		is_str(ir_sched_label(s, 0, 0), "a", "label of rank 0 op 0");
		is_str(ir_sched_label(s, 0, 1), "b", "label of rank 0 op 1");
		ok(ir_sched_label(s, 1, 0) == NULL, "an op without a label");
		ok(ir_sched_label(s, 0, 2) == NULL, "an op out of range has no label");
		ok(ir_sched_label(s, 9, 0) == NULL, "a rank out of range has no label");
		is_u64(ir_op_peer(ir_rank_op(&s->rank[1], 0)), 0, "recv source");
	}
	ir_sched_free(s);
	s = NULL;
	ok(ir_sched_load(&s, txt, 0, &e) == 0 && ir_sched_label(s, 0, 0) == NULL, "labels only on request");
	ir_sched_free(s);
	s = NULL;
	ir_sched_free(NULL);
	ok(1, "ir_sched_free(NULL) is a no-op");

	/* ---- the compact form: every op decodes to its record, shared attributes ---- */
	{
		static const char ctext[] = "num_ranks 3\n"
		                            "rank 2 {\n"
		                            "s: send 5b to 0 tag 7\n"       /* peer wraps: +1 mod 3 */
		                            "r: recv 9b from -1 tag -1\n"    /* any source, any tag */
		                            "c: calc 3000000000 cpu 1\n"     /* long, on cpu 1: an entry */
		                            "d: calc 12\n"                   /* inline */
		                            "s irequires d\nr requires s\nc requires r\n"
		                            "}\n"
		                            "rank 0 {\ns: send 5b to 1 tag 7\nr: recv 5b from 2 tag 7\nr requires s\n}\n"
		                            "rank 1 {\ns: send 5b to 2 tag 7 nic 1\nr: recv 5b from 0 tag 7\n}\n";
		const char *paths[2];
		paths[0] = tmpfile_with("c.goal", ctext);
		snprintf(path, sizeof path, "%s/c.goalb", dir);
		paths[1] = path;
		{
			ir_sched *t = NULL;
			ir_writer *w;
			ir_goalb_writer *bw = NULL;
			int wok = ir_sched_load(&t, paths[0], 0, &e) == 0 && (w = ir_writer_open(path, IR_W_BINARY, &e)) != NULL &&
			          (bw = ir_goalb_writer_new(w, 3, &e)) != NULL;
			for (uint32_t r = 0; wok && r < 3; r++)
				wok = ir_goalb_writer_rank(bw, r, &t->rank[r], &e) == 0;
			ok(wok && ir_goalb_writer_finish(bw, &e) == 0 && ir_writer_close(w, &e) == 0, "compact: binary written");
			ir_sched_free(t);
		}
		for (int k = 0; k < 2; k++) {
			const ir_csched *c;
			int same = 1;
			uint64_t ne = 0;
			ok(ir_sched_load(&s, paths[k], IR_SCHED_COMPACT, &e) == 0 && s->compact, "compact: %s loaded",
			   k ? "binary" : "text");
			if (!s || !s->compact)
				break;
			c = s->compact;
			is_u64(c->nops, 8, "compact: nops");
			is_u64(c->nedges, 4, "compact: nedges");
			same = compact_matches(s, &ne);
			ok(same && ne == 4, "compact: every op and edge decodes to its record");
			/* sends to +1 of 5b tag 7 on nic 0 (ranks 0 and 2), on nic 1 (rank 1), receives
			 * from -1 (ranks 0 and 1), the wildcard receive, the long calc */
			is_u64(c->nattr, 5, "compact: attributes shared across ranks (peer as a distance)");
			ok(c->op[c->base[2] + 3].a == (IR_COP_INLINE | 12), "compact: a short calc is inline");
			ir_sched_free(s);
			s = NULL;
		}
	}

	/* ---- errors from the library name the file ---- */
	txt = tmpfile_with("bad.goal", "num_ranks 1\nrank 0 {\na: calc 1\na requires l9\n}\n");
	ok(ir_sched_load(&s, txt, 0, &e) == -1 && s == NULL, "unknown label fails");
	snprintf(path, sizeof path, "%s/bad.goal:4: unknown label 'l9' in rank 0", dir);
	is_str(e.msg, path, "message with file and line");

	/* ---- the streaming parser and its labels ---- */
	{
		rec R;
		ir_goal_sink sink = { &R, rec_begin, rec_rank };
		memset(&R, 0, sizeof R);
		ir_reader *rd = ir_reader_open_mem(small_text, strlen(small_text), "mem", &e);
		ok(ir_goal_parse(rd, &sink, &e) == 0, "parse from memory");
		ir_reader_free(rd);
		is_u64(R.begin_n, 2, "begin gets num_ranks");
		is_u64(R.ranks, 2, "one rank call per block");
		is_str(R.labels, "1:- 0:a 0:b ", "labels during the rank call");
	}

	/* ---- binary: written by the writer, loaded in place ---- */
	snprintf(path, sizeof path, "%s/small.goalb", dir);
	{
		ir_sched *t = NULL;
		ir_writer *w = ir_writer_open(path, IR_W_BINARY | IR_W_FORCE, &e);
		ir_goalb_writer *bw = w ? ir_goalb_writer_new(w, 2, &e) : NULL;
		ok(ir_sched_load(&t, tmpfile_with("small2.goal", small_text), 0, &e) == 0, "load for writing");
		ok(bw && ir_goalb_writer_rank(bw, 0, &t->rank[0], &e) == 0 && ir_goalb_writer_rank(bw, 1, &t->rank[1], &e) == 0,
		   "write two sections");
		ok(ir_goalb_writer_finish(bw, &e) == 0 && ir_writer_close(w, &e) == 0, "finish and close");
		ok(ir_sched_load(&s, path, IR_SCHED_LABELS, &e) == 0, "load binary");
		ok(s && !s->from_text, "from_text clear");
		ok(s && ir_sched_label(s, 0, 0) == NULL, "no labels from binary");
		ok(s && s->rank[0].nops == 2 && memcmp(s->rank[0].ops, t->rank[0].ops, 48) == 0 &&
		       memcmp(s->rank[0].edges, t->rank[0].edges, 4) == 0,
		   "binary ops and edges equal the compiled text's");
		ok(s && ir_sched_order(s)[0] == 0 && ir_sched_order(s)[1] == 1, "binary order is the section order");
		ir_sched_free(s);
		s = NULL;
		ir_sched_free(t);
	}
	{
		/* a writer missing a rank refuses to finish */
		char p2[300];
		snprintf(p2, sizeof p2, "%s/partial.goalb", dir);
		ir_writer *w = ir_writer_open(p2, IR_W_BINARY | IR_W_FORCE, &e);
		ir_goalb_writer *bw = ir_goalb_writer_new(w, 2, &e);
		ok(ir_goalb_writer_finish(bw, &e) == -1, "finish with missing ranks fails");
		ir_writer_abort(w);
		ok(strstr(e.msg, "missing rank 0 (num_ranks is 2)") != NULL, "... naming the rank");
	}

	/* ---- field-level corruption behind valid checksums ---- */
	snprintf(path, sizeof path, "%s/small.goalb", dir);
	load_bin(path);
	orig = malloc(binlen);
	memcpy(orig, bin, binlen);
	is_u64(binlen, 224, "small binary is 224 bytes");
	is_str(check(), "", "valid as written");
#define CASE(stmt, want, title)                                                                                        \
	do {                                                                                                               \
		restore();                                                                                                     \
		stmt;                                                                                                          \
		reseal();                                                                                                      \
		msg = check();                                                                                                 \
		is_str(msg, want, title);                                                                                      \
	} while (0)
	/* rank 0: op 0 (send) at 64, op 1 (calc) at 88, edge at 112, pad at 116; rank 1 at 120 */
	CASE(bin[64] = 3, "m: offset 64: rank 0, op 0: type 3 out of range (0 send, 1 recv, 2 calc)", "op type");
	CASE(bin[67] = 1, "m: offset 67: rank 0, op 0: reserved byte is not zero", "op reserved byte");
	CASE(bin[65] = 1, "m: offset 65: rank 0, op 0: cpu 1 out of range (ncpus is 1)", "cpu beyond ncpus");
	CASE(bin[66] = 1, "m: offset 66: rank 0, op 0: nic 1 out of range (nnics is 1)", "nic beyond nnics");
	CASE(ir_put32(bin + 68, 5), "m: offset 68: rank 0, op 0: peer 5 out of range (num_ranks is 2)", "peer range");
	CASE(ir_put32(bin + 68, IR_ANY), "m: offset 68: rank 0, op 0: peer 4294967295 out of range (num_ranks is 2)",
	     "send to any is invalid");
	CASE(ir_put32(bin + 72, IR_ANY), "m: offset 72: rank 0, op 0: tag 4294967295 out of range (0..2147483647)",
	     "send tag any is invalid");
	CASE(ir_put32(bin + 152 + 8, 0x80000000u),
	     "m: offset 160: rank 1, op 0: tag 2147483648 out of range (0..2147483647 or 0xffffffff)", "recv tag range");
	CASE((ir_put32(bin + 152 + 4, IR_ANY), ir_put32(bin + 152 + 8, IR_ANY)), "", "recv from any with any tag is valid");
	CASE(ir_put32(bin + 92, 1), "m: offset 92: rank 0, op 1: calc with peer 1 (must be 0)", "calc peer");
	CASE(ir_put32(bin + 96, 1), "m: offset 96: rank 0, op 1: calc with tag 1 (must be 0)", "calc tag");
	CASE((bin[90] = 1, ir_put16(bin + 46, 2)), "m: offset 90: rank 0, op 1: calc with nic 1 (must be 0)", "calc nic");
	CASE(ir_put32(bin + 76, 1), "m: offset 76: rank 0, op 0: succ_first 1 is not 0 for the first op",
	     "first succ_first");
	CASE(ir_put32(bin + 100, 2), "m: offset 100: rank 0, op 1: succ_first 2 out of range (nedges is 1)",
	     "succ_first beyond nedges");
	CASE(ir_put32(bin + 112, 7), "m: offset 112: rank 0, edge 0 of op 1: op index 7 out of range (nops is 2)",
	     "edge index range");
	CASE(ir_put32(bin + 112, 1), "m: offset 112: rank 0, edge 0: op 1 depends on itself", "self edge");
	CASE(ir_put32(bin + 112, IR_EDGE_IREQ | 0), "", "irequires flag is valid");
	CASE(bin[116] = 1, "m: offset 116: rank 0: padding is not zero", "padding");
	CASE(ir_put16(bin + 44, 2), "m: offset 44: rank 0: ncpus 2, but the largest cpu used is 0", "ncpus too large");
	CASE(ir_put16(bin + 46, 3), "m: offset 46: rank 0: nnics 3, but the largest nic used is 0", "nnics too large");
	CASE(ir_put64(bin + 176, 33),
	     "m: offset 176: index entry of rank 0: section offset 33 out of range (32..144, a multiple of 8)",
	     "unaligned section offset");
	CASE(ir_put64(bin + 176, 176),
	     "m: offset 176: index entry of rank 0: section offset 176 out of range (32..144, a multiple of 8)",
	     "section offset at the index");
	CASE((ir_put64(bin + 176, 120), ir_put64(bin + 184, 32)),
	     "m: offset 120: section rank 1 differs from its index entry (rank 0)", "swapped index entries");
	CASE(ir_put32(bin + 32 + 8, 3), "m: offset 120: section of rank 1 overlaps the section before it",
	     "section longer than its space (overlaps the next)");
	CASE(ir_put32(bin + 32 + 4, 1), "m: offset 96: 24 bytes before the section of rank 1 belong to no section",
	     "section shorter than its space");
	CASE(ir_put32(bin + 32 + 8, 0), "m: offset 112: 8 bytes before the section of rank 1 belong to no section",
	     "gap between sections");

	/* cycles and unsorted dependents, written through the writer from hand-made ranks */
	{
		unsigned char ops[3 * IR_OP_BYTES], edges[8];
		ir_rank r = { ops, edges, 2, 2, 1, 1 };
		memset(ops, 0, sizeof ops);
		for (int i = 0; i < 3; i++)
			ops[i * IR_OP_BYTES] = IR_OP_CALC;
		ir_put32(ops + 12, 0);
		ir_put32(ops + IR_OP_BYTES + 12, 1);
		ir_put32(edges, 1);
		ir_put32(edges + 4, 0); /* 0 -> 1 and 1 -> 0 */
		snprintf(path, sizeof path, "%s/cycle.goalb", dir);
		ir_writer *w = ir_writer_open(path, IR_W_BINARY | IR_W_FORCE, &e);
		ir_goalb_writer *bw = ir_goalb_writer_new(w, 1, &e);
		ok(ir_goalb_writer_rank(bw, 0, &r, &e) == 0 && ir_goalb_writer_finish(bw, &e) == 0 &&
		       ir_writer_close(w, &e) == 0,
		   "write a cyclic rank");
		load_bin(path);
		is_str(check(), "m: offset 32: rank 0: dependency cycle through op 0", "binary cycle is refused");

		r.nops = 3;
		ir_put32(ops + IR_OP_BYTES + 12, 2);
		ir_put32(ops + 2 * IR_OP_BYTES + 12, 2);
		ir_put32(edges, 2);
		ir_put32(edges + 4, 1); /* op 0 -> 2, 1: unsorted */
		snprintf(path, sizeof path, "%s/unsorted.goalb", dir);
		w = ir_writer_open(path, IR_W_BINARY | IR_W_FORCE, &e);
		bw = ir_goalb_writer_new(w, 1, &e);
		ok(ir_goalb_writer_rank(bw, 0, &r, &e) == 0 && ir_goalb_writer_finish(bw, &e) == 0 &&
		       ir_writer_close(w, &e) == 0,
		   "write unsorted dependents");
		load_bin(path);
		is_str(check(), "m: offset 140: rank 0, edge 1 of op 0: dependents not sorted or repeated (1 after 2)",
		       "unsorted dependents are refused");
	}

	/* ---- statistics ---- */
	{
		ir_goal_stats st;
		ok(ir_sched_load(&s, tmpfile_with("st.goal", "num_ranks 2\nrank 0 {\nc: calc 5\ns1: send 10b to 1\n"
		                                              "s2: send 20b to 1 tag 1\ns1 requires c\ns2 irequires c\n}\n"
		                                              "rank 1 {\nr1: recv 10b from -1\nr2: recv 20b from 0 tag -1\n"
		                                              "x: calc 7\nx requires r1\nx requires r2\n}\n"),
		                   0, &e) == 0,
		   "load a schedule for statistics");
		ir_goal_stats_init(&st, s->nranks);
		for (uint32_t r = 0; r < s->nranks; r++)
			ir_goal_stats_add(&st, r, &s->rank[r], &e);
		is_u64(st.nops, 6, "stats: ops");
		is_u64(st.nsend, 2, "stats: sends");
		is_u64(st.nrecv, 2, "stats: recvs");
		is_u64(st.ncalc, 2, "stats: calcs");
		is_u64(st.nedges, 4, "stats: edges");
		is_u64(st.nireq, 1, "stats: irequires");
		is_u64(st.bytes_sent, 30, "stats: bytes sent");
		is_u64(st.calc_ps, 12, "stats: calc time");
		is_u64(st.recv_any_src, 1, "stats: recv from any source");
		is_u64(st.recv_any_tag, 1, "stats: recv with any tag");
		is_u64(st.max_fanout, 2, "stats: largest fan-out");
		is_u64(st.max_fanout_rank, 0, "stats: ... in rank 0");
		is_u64(st.max_fanin, 2, "stats: largest fan-in");
		is_u64(st.max_fanin_rank, 1, "stats: ... in rank 1");
		is_u64(st.max_fanin_op, 2, "stats: ... op 2");
		is_u64(st.nroots, 3, "stats: roots");
		ir_goal_stats_release(&st);
		ir_sched_free(s);
	}
	test_tiles();
	free(bin);
	free(orig);
	{
		char cmd[400];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return tap_done();
}
