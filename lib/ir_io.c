/*
 * ir_io.c: readers with transparent zstd/gzip decompression, a line reader,
 * whole-file blobs (mmap when possible), and writers with optional zstd
 * compression and atomic rename (see ir_io.h).
 *
 * One decompressed-data buffer per reader serves read, peek and line calls.
 * Lines are found with memchr in that buffer; a line that does not fit is
 * handled by growing the buffer (doubling, up to IR_LINE_MAX), so the common
 * case copies nothing.
 */
#include "ir_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define IO_CHUNK ((size_t)1 << 18) /* 256 KiB */

struct ir_reader {
	char *name;
	int fd;          /* -1 for memory readers */
	int own_fd;
	enum ir_compression comp;
	int eof_raw;     /* raw source exhausted */
	int eof;         /* decompressed stream exhausted */
	/* raw (compressed) input */
	unsigned char *raw;
	size_t raw_pos, raw_end, raw_cap;
	const unsigned char *mem; /* memory source */
	size_t mem_len, mem_pos;
	/* decompressed data */
	unsigned char *buf;
	size_t pos, end, cap;
	unsigned long lineno;
	ZSTD_DStream *zd;
	size_t zd_left;   /* last ZSTD_decompressStream hint: 0 = frame complete */
	z_stream zs;
	int zs_init;
	int zs_ended;    /* a gzip member ended: a new one may follow */
};

static int raw_fill(ir_reader *r, ir_err *e)
{
	ssize_t n;
	if (r->raw_pos > 0 && r->raw_pos == r->raw_end)
		r->raw_pos = r->raw_end = 0;
	if (r->eof_raw)
		return 0;
	if (r->fd < 0) {
		/* memory source: hand out slices without copying would need a second
		 * pointer; a copy into raw keeps one code path and is cheap */
		size_t k = r->mem_len - r->mem_pos;
		if (k > r->raw_cap - r->raw_end)
			k = r->raw_cap - r->raw_end;
		memcpy(r->raw + r->raw_end, r->mem + r->mem_pos, k);
		r->mem_pos += k;
		r->raw_end += k;
		if (r->mem_pos == r->mem_len)
			r->eof_raw = 1;
		return (int)(k > 0);
	}
	if (r->raw_end == r->raw_cap) {
		memmove(r->raw, r->raw + r->raw_pos, r->raw_end - r->raw_pos);
		r->raw_end -= r->raw_pos;
		r->raw_pos = 0;
	}
	do
		n = read(r->fd, r->raw + r->raw_end, r->raw_cap - r->raw_end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return ir_errf_at(e, r->name, 0, "read error: %s", strerror(errno));
	if (n == 0)
		r->eof_raw = 1;
	r->raw_end += (size_t)n;
	return n > 0;
}

static ir_reader *reader_new(const char *name, ir_err *e)
{
	ir_reader *r = calloc(1, sizeof *r);
	if (!r) {
		ir_errf(e, "%s: out of memory", name);
		return NULL;
	}
	r->name = strdup(name);
	r->raw_cap = IO_CHUNK;
	r->raw = malloc(r->raw_cap);
	r->cap = IO_CHUNK;
	r->buf = malloc(r->cap + 1);
	r->fd = -1;
	if (!r->name || !r->raw || !r->buf) {
		ir_errf(e, "%s: out of memory", name);
		ir_reader_free(r);
		return NULL;
	}
	return r;
}

/* Look at the first raw bytes and pick the decompressor. */
static int detect(ir_reader *r, ir_err *e)
{
	while (r->raw_end - r->raw_pos < 4 && !r->eof_raw)
		if (raw_fill(r, e) < 0)
			return -1;
	const unsigned char *p = r->raw + r->raw_pos;
	size_t n = r->raw_end - r->raw_pos;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD) {
		r->comp = IR_ZSTD;
		r->zd_left = 1;
		r->zd = ZSTD_createDStream();
		if (!r->zd || ZSTD_isError(ZSTD_initDStream(r->zd)))
			return ir_errf_at(e, r->name, 0, "cannot initialise zstd decompression");
	} else if (n >= 2 && p[0] == 0x1F && p[1] == 0x8B) {
		r->comp = IR_GZIP;
		memset(&r->zs, 0, sizeof r->zs);
		if (inflateInit2(&r->zs, 15 + 16) != Z_OK)
			return ir_errf_at(e, r->name, 0, "cannot initialise gzip decompression");
		r->zs_init = 1;
	} else {
		r->comp = IR_PLAIN;
	}
	return 0;
}

ir_reader *ir_reader_open(const char *path, ir_err *e)
{
	int is_stdin = !path || strcmp(path, "-") == 0;
	ir_reader *r = reader_new(is_stdin ? "<stdin>" : path, e);
	if (!r)
		return NULL;
	if (is_stdin) {
		r->fd = 0;
	} else {
		struct stat st;
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) {
			ir_errf(e, "%s: cannot open: %s", path, strerror(errno));
			ir_reader_free(r);
			return NULL;
		}
		r->own_fd = 1;
		if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			ir_errf(e, "%s: is a directory", path);
			ir_reader_free(r);
			return NULL;
		}
	}
	if (detect(r, e)) {
		ir_reader_free(r);
		return NULL;
	}
	return r;
}

ir_reader *ir_reader_open_mem(const void *data, size_t len, const char *name, ir_err *e)
{
	ir_reader *r = reader_new(name ? name : "<memory>", e);
	if (!r)
		return NULL;
	r->mem = data;
	r->mem_len = len;
	if (len == 0)
		r->eof_raw = 1;
	if (detect(r, e)) {
		ir_reader_free(r);
		return NULL;
	}
	return r;
}

void ir_reader_free(ir_reader *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->zd)
		ZSTD_freeDStream(r->zd);
	if (r->zs_init)
		inflateEnd(&r->zs);
	free(r->raw);
	free(r->buf);
	free(r->name);
	free(r);
}

const char *ir_reader_name(const ir_reader *r) { return r->name; }
enum ir_compression ir_reader_compression(const ir_reader *r) { return r->comp; }
unsigned long ir_reader_lineno(const ir_reader *r) { return r->lineno; }

/* Append decompressed bytes to buf[end..cap). Returns >0 if bytes were added,
 * 0 at end of stream, -1 on error. */
static int fill(ir_reader *r, ir_err *e)
{
	if (r->eof)
		return 0;
	if (r->end == r->cap)
		return 1; /* caller compacts or grows first */
	for (;;) {
		if (r->raw_pos == r->raw_end) {
			int k = raw_fill(r, e);
			if (k < 0)
				return -1;
			if (k == 0 && r->raw_pos == r->raw_end) {
				/* no more raw input */
				if (r->comp == IR_ZSTD && r->zd_left != 0)
					return ir_errf_at(e, r->name, 0, "truncated zstd data");
				if (r->comp == IR_GZIP && !r->zs_ended)
					return ir_errf_at(e, r->name, 0, "truncated gzip data");
				r->eof = 1;
				return 0;
			}
		}
		if (r->comp == IR_PLAIN) {
			size_t k = r->raw_end - r->raw_pos;
			if (k > r->cap - r->end)
				k = r->cap - r->end;
			memcpy(r->buf + r->end, r->raw + r->raw_pos, k);
			r->raw_pos += k;
			r->end += k;
			return 1;
		}
		if (r->comp == IR_ZSTD) {
			ZSTD_inBuffer in = { r->raw, r->raw_end, r->raw_pos };
			ZSTD_outBuffer out = { r->buf, r->cap, r->end };
			size_t rc = ZSTD_decompressStream(r->zd, &out, &in);
			if (ZSTD_isError(rc))
				return ir_errf_at(e, r->name, 0, "corrupt zstd data: %s", ZSTD_getErrorName(rc));
			r->zd_left = rc;
			r->raw_pos = in.pos;
			if (out.pos > r->end) {
				r->end = out.pos;
				return 1;
			}
			continue;
		}
		/* gzip, possibly several members */
		if (r->zs_ended) {
			if (inflateReset(&r->zs) != Z_OK)
				return ir_errf_at(e, r->name, 0, "corrupt gzip data");
			r->zs_ended = 0;
		}
		r->zs.next_in = r->raw + r->raw_pos;
		r->zs.avail_in = (uInt)(r->raw_end - r->raw_pos);
		r->zs.next_out = r->buf + r->end;
		r->zs.avail_out = (uInt)(r->cap - r->end);
		int zr = inflate(&r->zs, Z_NO_FLUSH);
		size_t got = (size_t)(r->zs.next_out - (r->buf + r->end));
		r->raw_pos = (size_t)(r->zs.next_in - r->raw);
		r->end += got;
		if (zr == Z_STREAM_END) {
			r->zs_ended = 1;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			return ir_errf_at(e, r->name, 0, "corrupt gzip data: %s",
			                  r->zs.msg ? r->zs.msg : "inflate failed");
		}
		if (got)
			return 1;
	}
}

/* Drop consumed bytes so that free space sits at the end. */
static void compact(ir_reader *r)
{
	if (r->pos == 0)
		return;
	memmove(r->buf, r->buf + r->pos, r->end - r->pos);
	r->end -= r->pos;
	r->pos = 0;
}

static int grow(ir_reader *r, size_t need, ir_err *e)
{
	size_t nc = r->cap;
	unsigned char *nb;
	if (need > IR_LINE_MAX + 2)
		return ir_errf_at(e, r->name, r->lineno + 1, "line longer than %zu bytes", (size_t)IR_LINE_MAX);
	while (nc < need)
		nc *= 2;
	nb = realloc(r->buf, nc + 1);
	if (!nb)
		return ir_errf_at(e, r->name, r->lineno + 1, "out of memory for a line of %zu bytes", need);
	r->buf = nb;
	r->cap = nc;
	return 0;
}

long ir_reader_read(ir_reader *r, void *dst, size_t n, ir_err *e)
{
	size_t got = 0;
	while (got < n) {
		if (r->pos == r->end) {
			int k;
			r->pos = r->end = 0;
			/* large plain reads could bypass the buffer; the copy costs little next to parsing */
			k = fill(r, e);
			if (k < 0)
				return -1;
			if (k == 0)
				break;
			continue;
		}
		size_t k = r->end - r->pos;
		if (k > n - got)
			k = n - got;
		memcpy((unsigned char *)dst + got, r->buf + r->pos, k);
		r->pos += k;
		got += k;
	}
	return (long)got;
}

long ir_reader_peek(ir_reader *r, const unsigned char **p, size_t n, ir_err *e)
{
	if (n > r->cap) {
		compact(r);
		if (grow(r, n, e))
			return -1;
	}
	while (r->end - r->pos < n && !r->eof) {
		if (r->end == r->cap)
			compact(r);
		if (fill(r, e) < 0)
			return -1;
	}
	*p = r->buf + r->pos;
	return (long)(r->end - r->pos < n ? r->end - r->pos : n);
}

int ir_reader_line(ir_reader *r, char **line, size_t *len, ir_err *e)
{
	size_t scanned = 0;
	for (;;) {
		unsigned char *start = r->buf + r->pos;
		unsigned char *nl = memchr(start + scanned, '\n', r->end - r->pos - scanned);
		if (nl) {
			size_t l = (size_t)(nl - start);
			r->pos += l + 1;
			r->lineno++;
			if (l > IR_LINE_MAX)
				return ir_errf_at(e, r->name, r->lineno, "line longer than %zu bytes", (size_t)IR_LINE_MAX);
			if (l && start[l - 1] == '\r')
				l--;
			start[l] = '\0';
			*line = (char *)start;
			*len = l;
			return 1;
		}
		scanned = r->end - r->pos;
		if (r->eof) {
			size_t l = scanned;
			if (l == 0)
				return 0;
			/* last line without newline: there is always room for the NUL (cap+1 bytes) */
			r->pos = r->end;
			r->lineno++;
			if (l && start[l - 1] == '\r')
				l--;
			start[l] = '\0';
			*line = (char *)start;
			*len = l;
			return 1;
		}
		if (r->end == r->cap) {
			if (r->pos > 0)
				compact(r);
			else if (grow(r, r->cap * 2, e))
				return -1;
		}
		if (fill(r, e) < 0)
			return -1;
	}
}

int ir_reader_slurp(ir_reader *r, ir_sb *out, size_t max, ir_err *e)
{
	for (;;) {
		size_t k = r->end - r->pos;
		if (k) {
			if (out->len + k > max || out->len + k < out->len)
				return ir_errf_at(e, r->name, 0, "input larger than %zu bytes", max);
			if (ir_sb_add(out, r->buf + r->pos, k))
				return ir_errf_at(e, r->name, 0, "out of memory reading %zu bytes", out->len + k);
			r->pos = r->end;
		}
		r->pos = r->end = 0;
		int f = fill(r, e);
		if (f < 0)
			return -1;
		if (f == 0)
			return 0;
	}
}

int ir_blob_load(ir_blob *b, const char *path, size_t max, ir_err *e)
{
	memset(b, 0, sizeof *b);
	ir_sb_init(&b->priv_sb);
	if (path && strcmp(path, "-") != 0) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		unsigned char magic[4];
		if (fd < 0)
			return ir_errf(e, "%s: cannot open: %s", path, strerror(errno));
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 4 &&
		    pread(fd, magic, 4, 0) == 4 &&
		    !(magic[0] == 0x28 && magic[1] == 0xB5 && magic[2] == 0x2F && magic[3] == 0xFD) &&
		    !(magic[0] == 0x1F && magic[1] == 0x8B)) {
			if ((uint64_t)st.st_size > max) {
				close(fd);
				return ir_errf(e, "%s: file larger than %zu bytes", path, max);
			}
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (m != MAP_FAILED) {
				close(fd);
				b->priv_map = m;
				b->priv_maplen = (size_t)st.st_size;
				b->data = m;
				b->len = (size_t)st.st_size;
				return 0;
			}
		}
		close(fd);
	}
	ir_reader *r = ir_reader_open(path, e);
	if (!r)
		return -1;
	if (ir_reader_slurp(r, &b->priv_sb, max, e)) {
		ir_reader_free(r);
		ir_sb_release(&b->priv_sb);
		return -1;
	}
	ir_reader_free(r);
	b->data = (const unsigned char *)b->priv_sb.buf;
	b->len = b->priv_sb.len;
	return 0;
}

void ir_blob_drop(const ir_blob *b, size_t off, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), lo, hi;
	if (!b->priv_map || off >= b->priv_maplen || pg == 0 || pg == (size_t)-1)
		return;
	if (len > b->priv_maplen - off)
		len = b->priv_maplen - off;
	lo = (off + pg - 1) / pg * pg;
	hi = (off + len) / pg * pg;
	if (hi > lo)
		(void)madvise((char *)b->priv_map + lo, hi - lo, MADV_DONTNEED);
}

void ir_blob_release(ir_blob *b)
{
	if (b->priv_map)
		munmap(b->priv_map, b->priv_maplen);
	ir_sb_release(&b->priv_sb);
	memset(b, 0, sizeof *b);
	ir_sb_init(&b->priv_sb);
}

/* ---- writers ---- */

struct ir_writer {
	char *name;      /* shown in messages */
	char *final;     /* path to rename to, NULL for stdout */
	char *tmp;       /* temporary path */
	int fd;
	int is_stdout;
	unsigned char *buf;
	size_t len, cap;
	uint64_t count;
	ZSTD_CStream *zc;
	unsigned char *zbuf;
	size_t zcap;
	int failed;
};

int ir_is_terminal_output(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return isatty(1);
	return 0;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

ir_writer *ir_writer_open(const char *path, int flags, ir_err *e)
{
	int to_stdout = !path || strcmp(path, "-") == 0;
	ir_writer *w;
	if (to_stdout && (flags & IR_W_BINARY) && !(flags & (IR_W_FORCE | IR_W_ZSTD)) && isatty(1)) {
		ir_errf(e, "refusing to write binary data to a terminal (use -o FILE, a pipe, or -f)");
		return NULL;
	}
	if (to_stdout && (flags & IR_W_ZSTD) && !(flags & IR_W_FORCE) && isatty(1)) {
		ir_errf(e, "refusing to write compressed data to a terminal (use -o FILE, a pipe, or -f)");
		return NULL;
	}
	w = calloc(1, sizeof *w);
	if (!w) {
		ir_errf(e, "out of memory");
		return NULL;
	}
	w->fd = -1;
	w->cap = IO_CHUNK;
	w->buf = malloc(w->cap);
	w->name = strdup(to_stdout ? "<stdout>" : path);
	if (!w->buf || !w->name)
		goto oom;
	if (!to_stdout && ends_with(path, ".zst"))
		flags |= IR_W_ZSTD;
	if (flags & IR_W_ZSTD) {
		w->zc = ZSTD_createCStream();
		w->zcap = ZSTD_CStreamOutSize();
		w->zbuf = malloc(w->zcap);
		if (!w->zc || !w->zbuf)
			goto oom;
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, 3);
	}
	if (to_stdout) {
		w->fd = 1;
		w->is_stdout = 1;
	} else {
		size_t n = strlen(path) + 32;
		struct stat st;
		w->final = strdup(path);
		w->tmp = malloc(n);
		if (!w->final || !w->tmp)
			goto oom;
		snprintf(w->tmp, n, "%s.tmp.%ld", path, (long)getpid());
		/* An existing non-regular file (/dev/null, /dev/full, a FIFO) is written
		 * in place: renaming a temporary over it would replace the device. */
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
			w->fd = -1;
		else
			w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (w->fd < 0) {
			/* a path we cannot create a sibling for (e.g. /dev/null): write in place */
			free(w->tmp);
			w->tmp = NULL;
			w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
			if (w->fd < 0) {
				ir_errf(e, "%s: cannot create: %s", path, strerror(errno));
				ir_writer_abort(w);
				return NULL;
			}
		}
	}
	return w;
oom:
	ir_errf(e, "out of memory");
	ir_writer_abort(w);
	return NULL;
}

const char *ir_writer_name(const ir_writer *w) { return w->name; }
uint64_t ir_writer_count(const ir_writer *w) { return w->count; }

static int write_all(ir_writer *w, const unsigned char *p, size_t n, ir_err *e)
{
	while (n) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->failed = 1;
			return ir_errf(e, "%s: write error: %s", w->name, k < 0 ? strerror(errno) : "short write");
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int flush_buf(ir_writer *w, int end, ir_err *e)
{
	if (!w->zc) {
		int r = write_all(w, w->buf, w->len, e);
		w->len = 0;
		return r;
	}
	ZSTD_inBuffer in = { w->buf, w->len, 0 };
	for (;;) {
		ZSTD_outBuffer out = { w->zbuf, w->zcap, 0 };
		size_t rem = ZSTD_compressStream2(w->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(rem)) {
			w->failed = 1;
			return ir_errf(e, "%s: zstd compression failed: %s", w->name, ZSTD_getErrorName(rem));
		}
		if (out.pos && write_all(w, w->zbuf, out.pos, e))
			return -1;
		if (end ? rem == 0 : in.pos == in.size)
			break;
	}
	w->len = 0;
	return 0;
}

int ir_writer_write(ir_writer *w, const void *data, size_t n, ir_err *e)
{
	const unsigned char *p = data;
	if (w->failed)
		return ir_errf(e, "%s: write error", w->name);
	w->count += n;
	while (n) {
		size_t k = w->cap - w->len;
		if (k > n)
			k = n;
		memcpy(w->buf + w->len, p, k);
		w->len += k;
		p += k;
		n -= k;
		if (w->len == w->cap && flush_buf(w, 0, e))
			return -1;
	}
	return 0;
}

int ir_writer_puts(ir_writer *w, const char *s, ir_err *e)
{
	return ir_writer_write(w, s, strlen(s), e);
}

int ir_writer_printf(ir_writer *w, ir_err *e, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ir_errf(e, "%s: formatting error", w->name);
	if ((size_t)n < sizeof small)
		return ir_writer_write(w, small, (size_t)n, e);
	ir_sb sb = IR_SB_INIT;
	va_start(ap, fmt);
	int r = ir_sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (r == 0)
		r = ir_writer_write(w, sb.buf, sb.len, e);
	else
		ir_errf(e, "out of memory");
	ir_sb_release(&sb);
	return r;
}

static void writer_free(ir_writer *w)
{
	if (w->zc)
		ZSTD_freeCStream(w->zc);
	free(w->zbuf);
	free(w->buf);
	free(w->name);
	free(w->final);
	free(w->tmp);
	free(w);
}

int ir_writer_close(ir_writer *w, ir_err *e)
{
	int r = 0;
	if (!w)
		return 0;
	if (w->failed)
		r = ir_errf(e, "%s: write error", w->name);
	else if (flush_buf(w, 1, e))
		r = -1;
	if (!w->is_stdout) {
		if (w->fd >= 0 && close(w->fd) != 0 && r == 0)
			r = ir_errf(e, "%s: write error: %s", w->name, strerror(errno));
		w->fd = -1;
		if (w->tmp) {
			if (r == 0 && rename(w->tmp, w->final) != 0)
				r = ir_errf(e, "%s: cannot rename into place: %s", w->name, strerror(errno));
			if (r != 0)
				unlink(w->tmp);
		}
	}
	writer_free(w);
	return r;
}

void ir_writer_abort(ir_writer *w)
{
	if (!w)
		return;
	if (!w->is_stdout && w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	writer_free(w);
}
