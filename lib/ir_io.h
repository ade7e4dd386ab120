/*
 * ir_io.h: input and output streams of every tool.
 *
 * Readers take a path or "-" (standard input) and decompress on the fly:
 * zstd and gzip are detected by their magic numbers, anything else is read
 * as is. On top of the byte stream sits a line reader that strips "\n" and
 * "\r\n", accepts a last line without newline, counts lines from 1 and
 * handles lines of any length up to IR_LINE_MAX (longer lines are an error,
 * not unbounded memory).
 *
 * Writers take a path or "-" (standard output) and compress with zstd when
 * asked (IR_W_ZSTD) or when the path ends in ".zst". A named output is
 * written to a temporary file beside it and renamed on a successful
 * ir_writer_close(), so a failed run never leaves a half-written file;
 * ir_writer_abort() discards it. Binary output is refused on a terminal
 * unless IR_W_FORCE is given.
 *
 * ir_blob loads a whole file for readers that want random access: plain
 * regular files are mapped (no copy), compressed files and pipes are read
 * into memory.
 */
#ifndef IR_IO_H
#define IR_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"

#define IR_LINE_MAX ((size_t)1 << 30) /* longest accepted line: 1 GiB */

enum ir_compression { IR_PLAIN = 0, IR_GZIP = 1, IR_ZSTD = 2 };

typedef struct ir_reader ir_reader;

/* Open `path` ("-" or NULL: standard input). The name used in messages is
 * the path, or "<stdin>". */
ir_reader *ir_reader_open(const char *path, ir_err *e);
/* Read from memory (not copied; must outlive the reader). Compressed data is detected too. */
ir_reader *ir_reader_open_mem(const void *data, size_t len, const char *name, ir_err *e);
void ir_reader_free(ir_reader *r); /* NULL is a no-op; closes the file unless it is stdin */

const char *ir_reader_name(const ir_reader *r);
enum ir_compression ir_reader_compression(const ir_reader *r);

/* Up to `n` decompressed bytes into buf: returns the count, 0 at end of input, -1 on error. */
long ir_reader_read(ir_reader *r, void *buf, size_t n, ir_err *e);
/* Make at least min(n, rest of input) bytes available without consuming them.
 * *p points at them, valid until the next call on r. Returns the count, -1 on error. */
long ir_reader_peek(ir_reader *r, const unsigned char **p, size_t n, ir_err *e);
/* Next line without its "\n" or "\r\n", NUL-terminated, writable, valid until the next
 * call. Returns 1 for a line, 0 at end of input, -1 on error (line too long, I/O, corrupt
 * compressed data). */
int ir_reader_line(ir_reader *r, char **line, size_t *len, ir_err *e);
/* Number of the line last returned by ir_reader_line (1-based; 0 before the first). */
unsigned long ir_reader_lineno(const ir_reader *r);
/* Append the rest of the input to `out`; fails if it would exceed `max` bytes. */
int ir_reader_slurp(ir_reader *r, ir_sb *out, size_t max, ir_err *e);

/* A whole file in memory. */
typedef struct ir_blob {
	const unsigned char *data;
	size_t len;
	void *priv_map;   /* mmap base, or NULL */
	size_t priv_maplen;
	ir_sb priv_sb;    /* heap copy when not mapped */
} ir_blob;

/* Load `path` ("-": stdin); decompresses; at most `max` bytes after decompression. */
int ir_blob_load(ir_blob *b, const char *path, size_t max, ir_err *e);
void ir_blob_release(ir_blob *b);
/* A hint that [off, off + len) of a mapped blob will not be needed soon: its whole
 * pages are let go (madvise MADV_DONTNEED on the read-only private mapping), so
 * they no longer count in the process's memory; the bytes stay readable and are
 * read again from the file if used. A heap copy is left alone. */
void ir_blob_drop(const ir_blob *b, size_t off, size_t len);

/* Writers. */
enum {
	IR_W_ZSTD = 1,   /* compress with zstd */
	IR_W_BINARY = 2, /* output is binary: refuse a terminal */
	IR_W_FORCE = 4   /* write binary to a terminal anyway */
};
typedef struct ir_writer ir_writer;

ir_writer *ir_writer_open(const char *path, int flags, ir_err *e);
const char *ir_writer_name(const ir_writer *w);
int ir_writer_write(ir_writer *w, const void *data, size_t n, ir_err *e);
int ir_writer_puts(ir_writer *w, const char *s, ir_err *e);
int ir_writer_printf(ir_writer *w, ir_err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Bytes handed to the writer so far (before compression). */
uint64_t ir_writer_count(const ir_writer *w);
/* Flush, end the zstd frame, close, rename into place. Frees w even on error. */
int ir_writer_close(ir_writer *w, ir_err *e);
/* Discard: removes the temporary file of a named output. Frees w. NULL is a no-op. */
void ir_writer_abort(ir_writer *w);

/* True if `path` names a terminal-backed standard stream or device. */
int ir_is_terminal_output(const char *path);

#endif
