/*
 * u-goal-v3.c: GOAL binary version 3 (formats/goalb.md, Version 3) in the
 * library: the writer's bytes for a small schedule (inline attributes on first
 * use, the table on the second, distances of peers and dependents), the same
 * ops and edges as version 1 once read, the compact form built from it, and the
 * reader's field-level checks behind a valid section checksum (recomputed here:
 * XXH64 seeded with the rank), each with its exact message and offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_goal.h"
#include "ir_hash.h"
#include "ir_io.h"
#include "tap.h"

static char dir[] = "/tmp/u-goal-v3.XXXXXX";
static unsigned char *bin, *orig;
static size_t binlen;

/* rank 0's section is bytes 32..56 (formats/goalb.md's example, tests/t1004) */
#define S0 32
#define S0_END 57

static void fix(void)
{
	ir_put64(bin + S0, ir_xxh64(bin + S0 + 8, S0_END - S0 - 8, 0));
}

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

static const char *poke(size_t off, unsigned char v)
{
	memcpy(bin, orig, binlen);
	bin[off] = v;
	fix();
	return check();
}

static int write_as(const ir_sched *t, const char *path, unsigned format)
{
	ir_err e;
	ir_writer *w = ir_writer_open(path, IR_W_BINARY, &e);
	ir_goalb_writer *bw = w ? ir_goalb_writer_new_format(w, t->nranks, 1, format, &e) : NULL;
	int ok = bw != NULL;
	for (uint32_t r = 0; ok && r < t->nranks; r++)
		ok = ir_goalb_writer_rank(bw, r, &t->rank[r], &e) == 0;
	ok = ok && ir_goalb_writer_finish(bw, &e) == 0;
	if (w)
		ok = ir_writer_close(w, &e) == 0 && ok;
	return ok ? 0 : -1;
}

int main(void)
{
	static const char text[] = "num_ranks 2\nrank 0 {\na: send 8b to 1 tag 3\nb: calc 100\nc: send 8b to 1 tag 3\n"
	                           "a requires b\n}\nrank 1 {\nrecv 8b from 0 tag 3\nrecv 8b from 0 tag 3\n}\n";
	/* op 0 inline (send, peer +1, tag 3, 8 bytes, no dependents), op 1 inline (calc 100, one
	 * dependent: op 0, backward), op 2 the table's entry 0 */
	static const unsigned char payload0[] = { 0, 0, 2, 4, 8, 0, 0, 2, 100, 1, 2, 1, 0 };
	char p1[300], p3[300], pt[300];
	ir_sched *t = NULL, *s1 = NULL, *s3 = NULL;
	ir_err e;
	FILE *f;
	ir_blob b;

	if (!mkdtemp(dir))
		return 1;
	snprintf(pt, sizeof pt, "%s/s.goal", dir);
	snprintf(p1, sizeof p1, "%s/s1.goalb", dir);
	snprintf(p3, sizeof p3, "%s/s3.goalb", dir);
	f = fopen(pt, "w");
	fputs(text, f);
	fclose(f);
	ok(ir_sched_load(&t, pt, 0, &e) == 0, "load the text");
	ok(t && write_as(t, p1, IR_GOALB_FORMAT_FIXED) == 0 && write_as(t, p3, IR_GOALB_FORMAT_V3) == 0,
	   "written as versions 1 and 3");
	ok(ir_blob_load(&b, p3, SIZE_MAX, &e) == 0, "read back");
	binlen = b.len;
	bin = malloc(binlen);
	orig = malloc(binlen);
	memcpy(orig, b.data, binlen);
	memcpy(bin, b.data, binlen);
	ir_blob_release(&b);
	is_u64(binlen, 165, "file size");
	is_u64(ir_get16(orig + 8), 3, "version 3");
	is_u64(orig[40] << 24 | orig[41] << 16 | orig[42] << 8 | orig[43], 0x0301000d,
	       "rank 0: nops 3, nedges 1, one cpu and nic, 13 bytes of payload");
	ok(memcmp(orig + 44, payload0, sizeof payload0) == 0, "rank 0's ops: inline, inline, the table's entry 0");
	is_u64(ir_get64(orig + S0), ir_xxh64(orig + S0 + 8, S0_END - S0 - 8, 0), "rank 0's checksum");
	is_u64(ir_get32(orig + 85), 2, "two attributes in the table (the send's, the receive's)");
	is_str(check(), "", "valid");

	/* version 1 and version 3 give the same records; the compact forms agree */
	ok(ir_sched_load(&s1, p1, 0, &e) == 0 && ir_sched_load(&s3, p3, 0, &e) == 0, "both load");
	if (s1 && s3) {
		int same = s1->nranks == s3->nranks && s1->nops == s3->nops && s1->nedges == s3->nedges;
		for (uint32_t r = 0; same && r < s1->nranks; r++) {
			const ir_rank *a = &s1->rank[r], *c = &s3->rank[r];
			same = a->nops == c->nops && a->nedges == c->nedges && a->ncpus == c->ncpus && a->nnics == c->nnics &&
			       memcmp(a->ops, c->ops, (size_t)a->nops * IR_OP_BYTES) == 0 &&
			       memcmp(a->edges, c->edges, (size_t)a->nedges * 4) == 0;
		}
		ok(same, "version 3 reads to version 1's records");
	}
	ir_sched_free(s3);
	s3 = NULL;
	ok(ir_sched_load(&s3, p3, IR_SCHED_COMPACT, &e) == 0 && s3->compact && s3->compact->nops == 5 &&
	   s3->compact->nedges == 1 && s3->rank[0].ops == NULL && s3->rank[0].nops == 3 && s3->rank[1].ncpus == 1,
	   "compact load: the compact form only, counts kept");
	if (s3 && s3->compact) {
		ir_dop d;
		ir_csched_op(s3->compact, 1, s3->compact->base[1] + 1, &d);
		ok(d.type == IR_OP_RECV && d.peer == 0 && d.tag == 3 && d.size == 8, "compact: rank 1's op 1 from the table");
	}

	/* field-level checks behind a valid checksum */
	is_str(poke(46, 3), "m: offset 46: rank 0, op 0: peer code 3 out of range (1..2)", "send's peer code");
	is_str(poke(46, 0), "m: offset 46: rank 0, op 0: peer code 0 out of range (1..2)", "send from any source");
	is_str(poke(47, 0), "m: offset 47: rank 0, op 0: tag code 0 out of range (1..2147483648)", "send with any tag");
	is_str(poke(45, 8), "m: offset 44: rank 0, op 0: cpu 1 out of range (ncpus is 1)", "cpu");
	is_str(poke(45, 5), "m: offset 45: rank 0, op 0: type, cpu and nic 0x5 out of range (type 0..2, cpu and nic 0..255)",
	       "type 5; read and write need GOAL version 2");
	is_str(poke(55, 5), "m: offset 55: rank 0, op 2: attribute 4 out of range (the table has 2)", "attribute reference");
	is_str(poke(54, 4), "m: offset 54: rank 0, edge 0 of op 1: op index 3 out of range (nops is 3)", "dependent");
	is_str(poke(54, 6), "m: offset 54: rank 0, edge 0 of op 1: op index out of range (before op 0)",
	       "dependent before op 0");
	is_str(poke(53, 2), "m: offset 53: rank 0, op 1: 2 dependents, only 1 of nedges 1 left", "too many dependents");
	is_str(poke(41, 2), "m: offset 40: rank 0: nedges 2, but the ops have 1 dependents", "fewer dependents than nedges");
	is_str(poke(53, 0), "m: offset 56: rank 0, edge 0 of op 2: op index 3 out of range (nops is 3)",
	       "a count off by one shifts every byte after it");
	is_str(poke(44, 0x80), "m: offset 44: rank 0, op 0: attribute reference: bad varint (not minimal, or above 2^64)",
	       "not minimal");
	is_str(poke(56, 2), "m: offset 56: rank 0, op 2: 2 dependents, only 0 of nedges 1 left", "last op");
	is_str(poke(42, 1), "m: offset 40: rank 0: ncpus 2, but the largest cpu used is 0", "ncpus not exact");

	ir_sched_free(t);
	ir_sched_free(s1);
	ir_sched_free(s3);
	free(bin);
	free(orig);
	unlink(pt);
	unlink(p1);
	unlink(p3);
	rmdir(dir);
	return tap_done();
}
