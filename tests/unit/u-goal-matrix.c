/*
 * u-goal-matrix.c: unit tests of the traffic matrix and size histogram of
 * lib/ir_goal_stats.c (goalc --matrix, formats/matrix.md): size classes at
 * their boundaries, rows aggregated per destination in ascending order,
 * ranks in the order they are added, totals, the 64-bit overflow error.
 * Ranks are built by hand as op records (ir_goal.h), written to a file in
 * a scratch directory and read back.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_goal_stats.h"
#include "ir_io.h"
#include "ir_strbuf.h"
#include "tap.h"

/* a rank of sends only: peers[i] and sizes[i] */
static unsigned char ops[16 * IR_OP_BYTES];
static ir_rank mkrank(const uint32_t *peers, const uint64_t *sizes, uint32_t n)
{
	ir_rank r;
	memset(ops, 0, sizeof ops);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *op = ops + i * IR_OP_BYTES;
		op[0] = IR_OP_SEND;
		ir_put32(op + 4, peers[i]);
		ir_put64(op + 16, sizes[i]);
	}
	memset(&r, 0, sizeof r);
	r.ops = ops;
	r.nops = n;
	r.ncpus = r.nnics = 1;
	return r;
}

static char *slurp(const char *path)
{
	ir_err e;
	ir_sb sb;
	ir_reader *rd = ir_reader_open(path, &e);
	ir_sb_init(&sb);
	if (!rd || ir_reader_slurp(rd, &sb, 1 << 20, &e)) {
		ir_reader_free(rd);
		ir_sb_release(&sb);
		return NULL;
	}
	ir_reader_free(rd);
	{
		char *copy = strdup(sb.buf);
		ir_sb_release(&sb);
		return copy;
	}
}

int main(void)
{
	char dir[] = "/tmp/u-goal-matrix.XXXXXX", path[64];
	ir_goal_matrix m;
	ir_writer *w;
	ir_err e;
	char *got;

	is_u64(ir_goal_matrix_bin(0), 0, "size 0: class 0");
	is_u64(ir_goal_matrix_bin(1), 1, "size 1: class 1");
	is_u64(ir_goal_matrix_bin(2), 2, "size 2: class 2");
	is_u64(ir_goal_matrix_bin(3), 2, "size 3: class 2");
	is_u64(ir_goal_matrix_bin(4), 3, "size 4: class 3");
	is_u64(ir_goal_matrix_bin(65535), 16, "size 65535: class 16");
	is_u64(ir_goal_matrix_bin(65536), 17, "size 65536: class 17");
	is_u64(ir_goal_matrix_bin(UINT64_MAX), 64, "size 2^64-1: class 64");

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/m.tsv", dir);
	w = ir_writer_open(path, 0, &e);
	ok(w != NULL, "writer opens");
	ok(ir_goal_matrix_begin(&m, w, 3, &e) == 0, "begin");
	{
		uint32_t p[] = { 2, 0, 2, 2 };
		uint64_t s[] = { 100, 7, 0, 28 };
		ir_rank r = mkrank(p, s, 4);
		ok(ir_goal_matrix_add(&m, 1, &r, &e) == 0, "rank 1 added first");
	}
	{
		uint32_t p[] = { 1 };
		uint64_t s[] = { 1 };
		ir_rank r = mkrank(p, s, 1);
		ok(ir_goal_matrix_add(&m, 0, &r, &e) == 0, "rank 0 added");
	}
	{
		ir_rank r = mkrank(NULL, NULL, 0);
		ok(ir_goal_matrix_add(&m, 2, &r, &e) == 0, "rank 2 without sends");
	}
	ok(ir_goal_matrix_finish(&m, &e) == 0, "finish");
	is_u64(m.msgs, 5, "5 messages");
	is_u64(m.bytes, 136, "136 bytes");
	is_u64(m.pairs, 3, "3 pairs");
	ok(ir_writer_close(w, &e) == 0, "close");
	ir_goal_matrix_release(&m);
	got = slurp(path);
	is_str(got,
	       "# goalc matrix 1 ranks=3\n"
	       "# traffic: one row per (src, dst) pair with messages, from the send ops\n"
	       "src\tdst\tmessages\tbytes\n"
	       "1\t0\t1\t7\n"
	       "1\t2\t3\t128\n"
	       "0\t1\t1\t1\n"
	       "\n\n"
	       "# sizes: messages per power-of-two size class, from the send ops\n"
	       "size_min\tsize_max\tmessages\tbytes\n"
	       "0\t0\t1\t0\n"
	       "1\t1\t1\t1\n"
	       "2\t3\t0\t0\n"
	       "4\t7\t1\t7\n"
	       "8\t15\t0\t0\n"
	       "16\t31\t1\t28\n"
	       "32\t63\t0\t0\n"
	       "64\t127\t1\t100\n"
	       "# total messages=5 bytes=136 pairs=3\n",
	       "file: rows per destination ascending, ranks in the order added, classes 0..7");
	free(got);

	/* the largest class and the overflow of a byte sum */
	w = ir_writer_open(path, 0, &e);
	ir_goal_matrix_begin(&m, w, 2, &e);
	{
		uint32_t p[] = { 1, 1 };
		uint64_t s[] = { UINT64_MAX, 1 };
		ir_rank r = mkrank(p, s, 2);
		ok(ir_goal_matrix_add(&m, 0, &r, &e) != 0, "2^64-1 + 1 bytes: error");
		is_str(e.msg, "rank 0: byte count of the traffic matrix exceeds 2^64-1", "error names the rank");
	}
	ir_writer_abort(w);
	ir_goal_matrix_release(&m);
	ir_goal_matrix_release(&m); /* twice is harmless */

	w = ir_writer_open(path, 0, &e);
	ir_goal_matrix_begin(&m, w, 2, &e);
	{
		uint32_t p[] = { 1 };
		uint64_t s[] = { (uint64_t)1 << 63 };
		ir_rank r = mkrank(p, s, 1);
		ok(ir_goal_matrix_add(&m, 0, &r, &e) == 0 && ir_goal_matrix_finish(&m, &e) == 0, "2^63 bytes");
	}
	ir_writer_close(w, &e);
	ir_goal_matrix_release(&m);
	got = slurp(path);
	ok(got && strstr(got, "\n9223372036854775808\t18446744073709551615\t1\t9223372036854775808\n") != NULL,
	   "class 64 is [2^63, 2^64-1]");
	free(got);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
