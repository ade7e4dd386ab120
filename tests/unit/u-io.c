/*
 * u-io.c: unit tests of lib/ir_io: readers (plain, gzip and zstd detected by
 * magic, multi-frame zstd, multi-member gzip, truncated and corrupt input),
 * the line reader (CRLF, NUL bytes, very long lines, a missing final
 * newline, empty input, line numbers), read/peek/slurp, blobs, and writers
 * (-z and .zst round trips, atomic rename, abort, write errors on
 * /dev/full).
 *
 * Without arguments it prints TAP. With arguments it is the driver of
 * tests/t0100-lib-io.sh, which feeds it files made by the zstd and gzip
 * commands and through pipes:
 *   u-io lines FILE|-      "lineno len text" per line
 *   u-io cat FILE|-        the decompressed bytes
 *   u-io comp FILE|-       plain, gzip or zstd
 *   u-io write [-z] OUT    standard input through an ir_writer to OUT
 *   u-io abort OUT         the same, then ir_writer_abort
 * Errors go to stderr as "u-io: message", exit 1.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "ir_io.h"
#include "tap.h"

/* ---- driver mode ---- */

static int die(const ir_err *e)
{
	fprintf(stderr, "u-io: %s\n", e->msg);
	return 1;
}

static int driver(int argc, char **argv)
{
	ir_err e = { "" };
	const char *cmd = argv[1];
	if ((!strcmp(cmd, "lines") || !strcmp(cmd, "cat") || !strcmp(cmd, "comp")) && argc == 3) {
		ir_reader *r = ir_reader_open(argv[2], &e);
		int rc = 0;
		if (!r)
			return die(&e);
		if (!strcmp(cmd, "comp")) {
			static const char *const names[] = { "plain", "gzip", "zstd" };
			printf("%s\n", names[ir_reader_compression(r)]);
		} else if (!strcmp(cmd, "lines")) {
			char *line;
			size_t len;
			int k;
			while ((k = ir_reader_line(r, &line, &len, &e)) == 1) {
				printf("%lu %zu ", ir_reader_lineno(r), len);
				fwrite(line, 1, len, stdout);
				putchar('\n');
			}
			if (k < 0)
				rc = die(&e);
		} else {
			char buf[65536];
			long n;
			while ((n = ir_reader_read(r, buf, sizeof buf, &e)) > 0)
				fwrite(buf, 1, (size_t)n, stdout);
			if (n < 0)
				rc = die(&e);
		}
		ir_reader_free(r);
		if (fflush(stdout) != 0)
			rc = 1;
		return rc;
	}
	if (!strcmp(cmd, "write") || !strcmp(cmd, "abort")) {
		int z = argc == 4 && !strcmp(argv[2], "-z");
		if (argc != 3 + z)
			goto usage;
		ir_writer *w = ir_writer_open(argv[2 + z], z ? IR_W_ZSTD : 0, &e);
		char buf[65536];
		size_t n;
		if (!w)
			return die(&e);
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
			if (ir_writer_write(w, buf, n, &e)) {
				ir_writer_abort(w);
				return die(&e);
			}
		}
		if (!strcmp(cmd, "abort")) {
			ir_writer_abort(w);
			return 0;
		}
		if (ir_writer_close(w, &e))
			return die(&e);
		return 0;
	}
usage:
	fprintf(stderr, "usage: u-io lines|cat|comp FILE | write [-z] OUT | abort OUT\n");
	return 2;
}

/* ---- helpers for the unit tests ---- */

static char tmpdir[256];

static unsigned char *zstd_frame(const void *src, size_t n, size_t *out)
{
	size_t cap = ZSTD_compressBound(n);
	unsigned char *d = malloc(cap);
	*out = ZSTD_compress(d, cap, src, n, 3);
	return d;
}

static unsigned char *gzip_member(const void *src, size_t n, size_t *out)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	size_t cap = deflateBound(&zs, (uLong)n) + 64;
	unsigned char *d = malloc(cap);
	zs.next_in = (unsigned char *)(uintptr_t)src;
	zs.avail_in = (uInt)n;
	zs.next_out = d;
	zs.avail_out = (uInt)cap;
	deflate(&zs, Z_FINISH);
	*out = cap - zs.avail_out;
	deflateEnd(&zs);
	return d;
}

/* All lines of a memory reader joined with '\n' (each line followed by one). */
static int read_lines(const void *data, size_t n, ir_sb *out, unsigned long *nlines, ir_err *e)
{
	ir_reader *r = ir_reader_open_mem(data, n, "mem", e);
	char *line;
	size_t len;
	int k;
	if (!r)
		return -1;
	ir_sb_reset(out);
	while ((k = ir_reader_line(r, &line, &len, e)) == 1) {
		ir_sb_add(out, line, len);
		ir_sb_addch(out, '\n');
	}
	*nlines = ir_reader_lineno(r);
	ir_reader_free(r);
	return k;
}

static void write_file(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(d, 1, n, f);
	fclose(f);
}

static char *path_in(const char *name)
{
	static char buf[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", tmpdir, name);
	return buf[i];
}

static int count_entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

static int file_equals(const char *path, const void *d, size_t n)
{
	ir_blob b;
	ir_err e;
	int eq;
	if (ir_blob_load(&b, path, (size_t)1 << 30, &e))
		return 0;
	eq = b.len == n && memcmp(b.data, d, n) == 0;
	ir_blob_release(&b);
	return eq;
}

static void test_lines(void)
{
	ir_sb got = IR_SB_INIT;
	ir_err e = { "" };
	unsigned long nl;
	static const struct {
		const char *in;
		size_t n;
		const char *want; /* every line followed by \n */
		size_t wn;
		unsigned long lines;
		const char *title;
	} cases[] = {
		{ "a\nb\nc\n", 6, "a\nb\nc\n", 6, 3, "three lines" },
		{ "a\nb\nc", 5, "a\nb\nc\n", 6, 3, "missing final newline" },
		{ "a\r\nb\r\nc\r\n", 9, "a\nb\nc\n", 6, 3, "CRLF" },
		{ "a\r\nb\nc\r", 7, "a\nb\nc\n", 6, 3, "mixed LF and CRLF, CR at the very end" },
		{ "a\rb\n", 4, "a\rb\n", 4, 1, "a CR inside a line is kept" },
		{ "x\r\r\n", 4, "x\r\n", 3, 1, "only the last CR goes" },
		{ "", 0, "", 0, 0, "empty input: no line" },
		{ "\n", 1, "\n", 1, 1, "one empty line" },
		{ "\r\n", 2, "\n", 1, 1, "one empty CRLF line" },
		{ "\n\n\n", 3, "\n\n\n", 3, 3, "three empty lines" },
		{ "a\0b\n", 4, "a\0b\n", 4, 1, "a NUL byte inside a line" },
		{ "x", 1, "x\n", 2, 1, "one byte, no newline" },
		{ "\x28\xb5\x2f", 3, "\x28\xb5\x2f\n", 4, 1, "three bytes of the zstd magic are plain text" },
		{ "\x1f", 1, "\x1f\n", 2, 1, "one byte of the gzip magic is plain text" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int k = read_lines(cases[i].in, cases[i].n, &got, &nl, &e);
		ok(k == 0 && got.len == cases[i].wn && memcmp(got.buf, cases[i].want, cases[i].wn) == 0 &&
		   nl == cases[i].lines, "lines: %s", cases[i].title);
	}

	/* line numbers as they go, and lineno after the end */
	{
		const char *t = "one\ntwo\r\n\nfour";
		ir_reader *r = ir_reader_open_mem(t, strlen(t), "mem", &e);
		char *line;
		size_t len;
		ok(ir_reader_lineno(r) == 0, "lineno is 0 before the first line");
		int good = 1;
		const char *want[] = { "one", "two", "", "four" };
		for (unsigned long i = 1; i <= 4; i++)
			if (ir_reader_line(r, &line, &len, &e) != 1 || ir_reader_lineno(r) != i || strcmp(line, want[i - 1]) ||
			    len != strlen(want[i - 1]))
				good = 0;
		ok(good, "lines 1..4 numbered from 1");
		ok(ir_reader_line(r, &line, &len, &e) == 0 && ir_reader_lineno(r) == 4, "end: 0, lineno stays 4");
		ok(ir_reader_line(r, &line, &len, &e) == 0, "end again: 0");
		ir_reader_free(r);
	}

	/* a very long line (5 MiB), then a short one; and a long last line without newline */
	{
		size_t big = (size_t)5 << 20;
		char *d = malloc(big + 16);
		for (size_t i = 0; i < big; i++)
			d[i] = (char)('a' + i % 26);
		memcpy(d + big, "\r\nshort\n", 8);
		ir_reader *r = ir_reader_open_mem(d, big + 8, "mem", &e);
		char *line;
		size_t len;
		ok(ir_reader_line(r, &line, &len, &e) == 1 && len == big && line[big - 1] == d[big - 1] &&
		   line[big] == '\0' && memcmp(line, d, big) == 0, "a 5 MiB line with CRLF");
		ok(ir_reader_line(r, &line, &len, &e) == 1 && strcmp(line, "short") == 0 && ir_reader_lineno(r) == 2,
		   "the line after it");
		ir_reader_free(r);
		r = ir_reader_open_mem(d, big, "mem", &e);
		ok(ir_reader_line(r, &line, &len, &e) == 1 && len == big && line[big] == '\0' &&
		   ir_reader_line(r, &line, &len, &e) == 0, "a 5 MiB last line without newline");
		ir_reader_free(r);
		free(d);
	}

	/* many lines across the buffer boundaries */
	{
		ir_sb in = IR_SB_INIT;
		for (int i = 0; i < 100000; i++)
			ir_sb_addf(&in, "line %d%s\n", i, i % 3 == 0 ? "\r" : "");
		ir_reader *r = ir_reader_open_mem(in.buf, in.len, "mem", &e);
		char *line, want[32];
		size_t len;
		int good = 1, i = 0, k;
		while ((k = ir_reader_line(r, &line, &len, &e)) == 1) {
			snprintf(want, sizeof want, "line %d", i);
			if (strcmp(line, want) || len != strlen(want) || ir_reader_lineno(r) != (unsigned long)i + 1)
				good = 0;
			i++;
		}
		ok(good && k == 0 && i == 100000, "100000 lines across buffer boundaries");
		ir_reader_free(r);
		ir_sb_release(&in);
	}
	ir_sb_release(&got);
}

static void test_compressed(void)
{
	ir_sb text = IR_SB_INIT, got = IR_SB_INIT, two = IR_SB_INIT;
	ir_err e = { "" };
	unsigned long nl;
	size_t n1, n2;
	for (int i = 0; i < 50000; i++)
		ir_sb_addf(&text, "rank %d op %d\r\n", i % 64, i);
	ir_sb plain = IR_SB_INIT; /* text with CRLF -> LF, as the line reader gives it */
	for (int i = 0; i < 50000; i++)
		ir_sb_addf(&plain, "rank %d op %d\n", i % 64, i);

	unsigned char *z1 = zstd_frame(text.buf, text.len, &n1);
	ir_reader *r = ir_reader_open_mem(z1, n1, "mem", &e);
	ok(r && ir_reader_compression(r) == IR_ZSTD, "zstd is detected by its magic");
	ir_reader_free(r);
	ok(read_lines(z1, n1, &got, &nl, &e) == 0 && got.len == plain.len && !memcmp(got.buf, plain.buf, plain.len) &&
	   nl == 50000, "zstd: lines");

	/* two frames */
	unsigned char *z2 = zstd_frame("tail 1\ntail 2\n", 14, &n2);
	ir_sb_add(&two, z1, n1);
	ir_sb_add(&two, z2, n2);
	ok(read_lines(two.buf, two.len, &got, &nl, &e) == 0 && nl == 50002 &&
	   !memcmp(got.buf + plain.len, "tail 1\ntail 2\n", 14), "zstd: two frames read as one stream");

	/* truncated */
	ok(read_lines(z1, n1 - 3, &got, &nl, &e) == -1, "zstd: truncated input fails");
	is_str(e.msg, "mem: truncated zstd data", "zstd: truncated: message");
	ok(read_lines(two.buf, two.len - 1, &got, &nl, &e) == -1, "zstd: truncated second frame fails");
	ok(read_lines(z1, 4, &got, &nl, &e) == -1, "zstd: only the magic fails");
	/* garbage after a frame */
	{
		ir_sb g = IR_SB_INIT;
		ir_sb_add(&g, z2, n2);
		ir_sb_add(&g, "garbage!", 8);
		ok(read_lines(g.buf, g.len, &got, &nl, &e) == -1 && strncmp(e.msg, "mem: corrupt zstd data: ", 24) == 0,
		   "zstd: garbage after a frame is corrupt data (%s)", e.msg);
		ir_sb_release(&g);
	}

	/* gzip */
	size_t g1, g2;
	unsigned char *gz1 = gzip_member(text.buf, text.len, &g1);
	unsigned char *gz2 = gzip_member("tail 1\ntail 2\n", 14, &g2);
	r = ir_reader_open_mem(gz1, g1, "mem", &e);
	ok(r && ir_reader_compression(r) == IR_GZIP, "gzip is detected by its magic");
	ir_reader_free(r);
	ok(read_lines(gz1, g1, &got, &nl, &e) == 0 && got.len == plain.len && !memcmp(got.buf, plain.buf, plain.len),
	   "gzip: lines");
	ir_sb_reset(&two);
	ir_sb_add(&two, gz1, g1);
	ir_sb_add(&two, gz2, g2);
	ok(read_lines(two.buf, two.len, &got, &nl, &e) == 0 && nl == 50002 &&
	   !memcmp(got.buf + plain.len, "tail 1\ntail 2\n", 14), "gzip: two members read as one stream");
	ok(read_lines(gz1, g1 - 4, &got, &nl, &e) == -1, "gzip: truncated input fails");
	is_str(e.msg, "mem: truncated gzip data", "gzip: truncated: message");
	ok(read_lines("\x1f\x8b", 2, &got, &nl, &e) == -1, "gzip: only the magic fails (%s)", e.msg);
	{
		unsigned char bad[32];
		memcpy(bad, gz2, 10);
		bad[2] = 7; /* compression method 7: not deflate */
		memset(bad + 10, 0xAA, sizeof bad - 10);
		ok(read_lines(bad, sizeof bad, &got, &nl, &e) == -1 && !strncmp(e.msg, "mem: corrupt gzip data: ", 24),
		   "gzip: a bad header is corrupt data (%s)", e.msg);
	}

	/* read and peek on compressed data */
	{
		r = ir_reader_open_mem(z1, n1, "mem", &e);
		const unsigned char *p;
		char buf[10];
		ok(ir_reader_peek(r, &p, 6, &e) == 6 && !memcmp(p, "rank 0", 6), "peek 6 bytes");
		ok(ir_reader_read(r, buf, 5, &e) == 5 && !memcmp(buf, "rank ", 5), "read consumes from the start");
		char *line;
		size_t len;
		ok(ir_reader_line(r, &line, &len, &e) == 1 && !strcmp(line, "0 op 0"), "a line after read");
		ir_sb all = IR_SB_INIT;
		ok(ir_reader_slurp(r, &all, (size_t)1 << 30, &e) == 0 && all.len == text.len - 13 &&
		   !memcmp(all.buf, text.buf + 13, all.len), "slurp the rest");
		ok(ir_reader_read(r, buf, 10, &e) == 0, "read at the end gives 0");
		ir_reader_free(r);
		r = ir_reader_open_mem(z1, n1, "mem", &e);
		ir_sb_reset(&all);
		ok(ir_reader_slurp(r, &all, 1000, &e) == -1, "slurp over the limit fails");
		is_str(e.msg, "mem: input larger than 1000 bytes", "slurp: message");
		ir_reader_free(r);
		ir_sb_release(&all);
		r = ir_reader_open_mem("abc", 3, "mem", &e);
		ok(ir_reader_peek(r, &p, 100, &e) == 3 && !memcmp(p, "abc", 3), "peek past the end gives what there is");
		ok(ir_reader_peek(r, &p, (size_t)1 << 20, &e) == 3, "peek of more than the buffer grows it");
		ir_reader_free(r);
	}
	free(z1);
	free(z2);
	free(gz1);
	free(gz2);
	ir_sb_release(&text);
	ir_sb_release(&plain);
	ir_sb_release(&got);
	ir_sb_release(&two);
}

static void test_files(void)
{
	ir_err e = { "" };
	ir_blob b;
	const char *t = "hello\nworld\n";
	size_t zn;
	unsigned char *z = zstd_frame(t, strlen(t), &zn);

	ok(ir_reader_open(path_in("nope"), &e) == NULL, "open of a missing file fails");
	{
		char want[600];
		snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path_in("nope"));
		is_str(e.msg, want, "missing file: message");
		ok(ir_reader_open(tmpdir, &e) == NULL, "open of a directory fails");
		snprintf(want, sizeof want, "%s: is a directory", tmpdir);
		is_str(e.msg, want, "directory: message");
	}
	write_file(path_in("p.txt"), t, strlen(t));
	write_file(path_in("z.txt.zst"), z, zn);
	write_file(path_in("empty"), "", 0);
	ir_reader *r = ir_reader_open(path_in("p.txt"), &e);
	is_str(ir_reader_name(r), path_in("p.txt"), "reader name is the path");
	ir_reader_free(r);
	ir_reader_free(NULL);
	ok(1, "ir_reader_free(NULL) is a no-op");

	ok(ir_blob_load(&b, path_in("p.txt"), 100, &e) == 0 && b.priv_map && b.len == strlen(t) &&
	   !memcmp(b.data, t, b.len), "blob of a plain file is mapped");
	ir_blob_release(&b);
	ok(ir_blob_load(&b, path_in("z.txt.zst"), 100, &e) == 0 && !b.priv_map && b.len == strlen(t) &&
	   !memcmp(b.data, t, b.len), "blob of a zstd file is decompressed");
	ir_blob_release(&b);
	ok(ir_blob_load(&b, path_in("p.txt"), 5, &e) == -1, "blob over the limit fails");
	{
		char want[600];
		snprintf(want, sizeof want, "%s: file larger than 5 bytes", path_in("p.txt"));
		is_str(e.msg, want, "blob over the limit: message");
	}
	ok(ir_blob_load(&b, path_in("z.txt.zst"), 5, &e) == -1, "decompressed blob over the limit fails");
	ok(ir_blob_load(&b, path_in("empty"), 5, &e) == 0 && b.len == 0, "blob of an empty file");
	ir_blob_release(&b);
	free(z);
	unlink(path_in("p.txt"));
	unlink(path_in("z.txt.zst"));
	unlink(path_in("empty"));
}

static void test_writers(void)
{
	ir_err e = { "" };
	ir_sb big = IR_SB_INIT;
	for (int i = 0; i < 200000; i++)
		ir_sb_addf(&big, "%d: send %db to %d tag 0\n", i, i * 7, i % 13);

	int before = count_entries();
	ir_writer *w = ir_writer_open(path_in("out.txt"), 0, &e);
	ok(w != NULL, "writer opens");
	ok(ir_writer_write(w, big.buf, big.len, &e) == 0 && ir_writer_puts(w, "end\n", &e) == 0, "write and puts");
	is_u64(ir_writer_count(w), big.len + 4, "count is the bytes handed over");
	ok(access(path_in("out.txt"), F_OK) != 0, "nothing at the final name before close");
	ok(ir_writer_close(w, &e) == 0, "close");
	ir_sb_adds(&big, "end\n");
	ok(file_equals(path_in("out.txt"), big.buf, big.len), "the file holds what was written");
	is_u64(count_entries(), before + 1, "no temporary left beside it");

	/* zstd by flag and by name */
	w = ir_writer_open(path_in("z.bin"), IR_W_ZSTD, &e);
	ir_writer_write(w, big.buf, big.len, &e);
	ok(ir_writer_close(w, &e) == 0, "zstd writer closes");
	{
		ir_reader *r = ir_reader_open(path_in("z.bin"), &e);
		ok(r && ir_reader_compression(r) == IR_ZSTD, "IR_W_ZSTD output is zstd");
		ir_reader_free(r);
		struct stat st;
		ok(stat(path_in("z.bin"), &st) == 0 && (size_t)st.st_size < big.len / 4, "and smaller");
	}
	ok(file_equals(path_in("z.bin"), big.buf, big.len), "zstd output round-trips through the reader");
	w = ir_writer_open(path_in("n.goal.zst"), 0, &e);
	ir_writer_write(w, big.buf, big.len, &e);
	ir_writer_close(w, &e);
	{
		ir_reader *r = ir_reader_open(path_in("n.goal.zst"), &e);
		ok(r && ir_reader_compression(r) == IR_ZSTD, "a .zst name compresses without the flag");
		ir_reader_free(r);
	}
	ok(file_equals(path_in("n.goal.zst"), big.buf, big.len), ".zst output round-trips");
	w = ir_writer_open(path_in("empty.zst"), 0, &e);
	ok(ir_writer_close(w, &e) == 0 && file_equals(path_in("empty.zst"), "", 0), "an empty zstd output round-trips");

	/* printf longer than its stack buffer */
	w = ir_writer_open(path_in("pf.txt"), 0, &e);
	{
		char s[2000];
		memset(s, 'w', sizeof s - 1);
		s[sizeof s - 1] = '\0';
		ok(ir_writer_printf(w, &e, "<%s>%d", s, 7) == 0 && ir_writer_close(w, &e) == 0, "printf of 2 KB");
		ir_sb want = IR_SB_INIT;
		ir_sb_addf(&want, "<%s>%d", s, 7);
		ok(file_equals(path_in("pf.txt"), want.buf, want.len), "printf output");
		ir_sb_release(&want);
	}

	/* abort: no new file, no temporary; an existing file is kept as it was */
	before = count_entries();
	w = ir_writer_open(path_in("gone.txt"), 0, &e);
	ir_writer_write(w, big.buf, big.len, &e);
	ir_writer_abort(w);
	ok(access(path_in("gone.txt"), F_OK) != 0, "abort: no file at the final name");
	is_u64(count_entries(), before, "abort: no temporary left");
	w = ir_writer_open(path_in("out.txt"), IR_W_ZSTD, &e);
	ir_writer_write(w, "other", 5, &e);
	ir_writer_abort(w);
	ok(file_equals(path_in("out.txt"), big.buf, big.len), "abort leaves an existing file untouched");
	ir_writer_abort(NULL);
	ok(1, "ir_writer_abort(NULL) is a no-op");

	/* errors */
	ok(ir_writer_open(path_in("no/such/x"), 0, &e) == NULL, "a missing directory fails");
	{
		char want[600];
		snprintf(want, sizeof want, "%s: cannot create: No such file or directory", path_in("no/such/x"));
		is_str(e.msg, want, "missing directory: message");
	}
	w = ir_writer_open("/dev/full", 0, &e);
	ok(w != NULL, "/dev/full opens");
	if (w) {
		int k = ir_writer_write(w, big.buf, big.len, &e);
		ok(k == -1, "writing 5 MB to /dev/full fails");
		is_str(e.msg, "/dev/full: write error: No space left on device", "/dev/full: message");
		ok(ir_writer_write(w, "x", 1, &e) == -1, "a writer that failed keeps failing");
		ok(ir_writer_close(w, &e) == -1, "close after a failure fails");
		is_str(e.msg, "/dev/full: write error", "close: message");
	}
	w = ir_writer_open("/dev/full", IR_W_ZSTD, &e);
	ok(w && ir_writer_write(w, "small", 5, &e) == 0 && ir_writer_close(w, &e) == -1,
	   "a small zstd write to /dev/full fails at close");
	is_str(e.msg, "/dev/full: write error: No space left on device", "close on /dev/full: message");
	{
		struct stat st;
		ok(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode), "/dev/full is still a device");
		ok(access("/dev/full.tmp.0", F_OK) != 0, "and nothing was created beside it");
	}
	w = ir_writer_open("/dev/null", 0, &e);
	ok(w && ir_writer_write(w, big.buf, big.len, &e) == 0 && ir_writer_close(w, &e) == 0,
	   "/dev/null takes everything");
	{
		struct stat st;
		ok(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is still a device");
	}
	unlink(path_in("out.txt"));
	unlink(path_in("z.bin"));
	unlink(path_in("n.goal.zst"));
	unlink(path_in("empty.zst"));
	unlink(path_in("pf.txt"));
	ir_sb_release(&big);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return driver(argc, argv);
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/u-io.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	test_lines();
	test_compressed();
	test_files();
	test_writers();
	ok(count_entries() == 0, "every test file was removed");
	rmdir(tmpdir);
	return tap_done();
}
