/*
 * ir_storage.c: the storage model (ir_storage.h; docs/storage.md is the specification):
 * its parameter keys, the striping of file bytes over servers, and each server's cache
 * and disk during a run.
 *
 * A server's state is small: where its disk's last access ended and when the disk is
 * free (one FIFO queue: requests are served in the order they reach the server), a FIFO
 * of dirty extents given to the disk with the time each will be on it, the dirty extents
 * held in the cache and not yet given to it (until a flush of their file, the dirty
 * limit or a full cache: Linux's write-back; a list in write order, filtered per file at a
 * flush, which costs O(held extents) per flush and is capped at STOR_EXTENTS), and the cache's
 * contents as a FIFO of extents (oldest evicted first; a new extent that continues the
 * newest one extends it, so a sequential stream costs one entry). A read hits when one
 * cached extent holds all of it; a partial hit counts as a miss (docs/storage.md §4). The
 * extent list is capped (STOR_EXTENTS): beyond it the oldest extent goes even when the
 * cache has room, which bounds the cost of a lookup on random small accesses.
 *
 * States are made on a server's first request, so ranks without I/O cost one NULL pointer.
 */
#include "ir_storage.h"

#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_params.h"

#define STOR_EXTENTS 4096

const char *const ir_storage_keys[] = { "storage_servers", "stripe_size", "stripe_count", "cb_nodes",
	                                "server_cache", "cache_G", "disk_G", "disk_access",
	                                "disk_track_seek", "disk_rotation", "disk_track", "disk_sync", "disk_read_G",
	                                "dirty_limit", "flush_on_close", "romio_ds_read", "romio_ds_write",
	                                "ind_rd_buffer_size", "ind_wr_buffer_size", NULL };

void ir_storage_defaults(ir_storage_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->stripe_size = 64 * 1024;
	c->cache = 64ull << 20;
	c->cache_G = 500;                  /* 2 GB/s */
	c->disk_G = 10000;                 /* 100 MB/s */
	c->disk_access = 8000000000ull;    /* 8 ms */
	c->disk_track_seek = 1000000000ull; /* 1 ms */
	c->disk_rotation = 8333333000ull;  /* 7200 rpm */
	c->disk_track = 1 << 20;
	c->disk_read_G = IR_STORAGE_AS_WRITE;
	c->ds_wr_buf = 512 * 1024;    /* ROMIO's defaults */
	c->ds_rd_buf = 4 * 1024 * 1024;
}

static int bad(const ir_params *ps, const char *key, const char *expect, ir_err *e)
{
	char o[300], q[160];
	const char *v = ir_params_get(ps, key);
	size_t n = ir_params_count(ps);
	o[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(ir_params_key(ps, i), key) == 0)
			ir_params_origin(ps, i, o, sizeof o);
	return ir_errf(e, "%s: invalid %s '%s' (expected %s)", o, key, ir_err_quote(q, sizeof q, v, strlen(v)),
	               expect);
}

/* ROMIO's data sieving hints: enable and automatic (ROMIO's default: sieve noncontiguous
 * accesses) sieve, disable does not. */
static int ds_hint(const ir_params *ps, const char *key, int *on, ir_err *e)
{
	const char *v = ir_params_get(ps, key);
	if (!v)
		return 0;
	if (strcmp(v, "enable") == 0 || strcmp(v, "automatic") == 0)
		*on = 1;
	else if (strcmp(v, "disable") == 0)
		*on = 0;
	else
		return bad(ps, key, "enable, disable or automatic", e);
	return 0;
}

int ir_storage_load(ir_storage_cfg *c, const ir_params *ps, ir_err *e)
{
	uint64_t x;
	int k;
	ir_storage_defaults(c);
	if ((k = ir_params_u64(ps, "storage_servers", &x, e)) < 0)
		return -1;
	if (k) {
		if (x > 65536)
			return bad(ps, "storage_servers", "a whole number from 0 to 65536", e);
		c->servers = (uint32_t)x;
	}
	if ((k = ir_params_size(ps, "stripe_size", &c->stripe_size, e)) < 0)
		return -1;
	if (c->stripe_size < 1 || c->stripe_size > IR_STORAGE_FILE_SPAN)
		return bad(ps, "stripe_size", "a size from 1 byte to 1T", e);
	c->stripe_count = c->servers;
	if ((k = ir_params_u64(ps, "stripe_count", &x, e)) < 0)
		return -1;
	if (k) {
		if (x < 1 || x > c->servers)
			return bad(ps, "stripe_count", "a whole number from 1 to storage_servers", e);
		c->stripe_count = (uint32_t)x;
	}
	if ((k = ir_params_u64(ps, "cb_nodes", &x, e)) < 0)
		return -1;
	if (k) {
		if (x < 1 || x > UINT32_MAX)
			return bad(ps, "cb_nodes", "a whole number of at least 1", e);
		c->cb_nodes = (uint32_t)x;
	}
	if (ir_params_size(ps, "server_cache", &c->cache, e) < 0 || ir_params_time(ps, "cache_G", &c->cache_G, e) < 0 ||
	    ir_params_time(ps, "disk_G", &c->disk_G, e) < 0 ||
	    ir_params_time(ps, "disk_access", &c->disk_access, e) < 0 ||
	    ir_params_time(ps, "disk_track_seek", &c->disk_track_seek, e) < 0 ||
	    ir_params_time(ps, "disk_rotation", &c->disk_rotation, e) < 0 ||
	    ir_params_size(ps, "disk_track", &c->disk_track, e) < 0 ||
	    ir_params_time(ps, "disk_sync", &c->disk_sync, e) < 0)
		return -1;
	if (c->disk_track_seek > c->disk_access)
		return bad(ps, "disk_track_seek", "a time no longer than disk_access", e);
	if ((k = ir_params_time(ps, "disk_read_G", &c->disk_read_G, e)) < 0 ||
	    ir_params_size(ps, "dirty_limit", &c->dirty_limit, e) < 0)
		return -1;
	if (k && c->disk_read_G == IR_STORAGE_AS_WRITE)
		return bad(ps, "disk_read_G", "a time per byte below 2^64 ps", e);
	if ((k = ir_params_u64(ps, "flush_on_close", &x, e)) < 0)
		return -1;
	if (k) {
		if (x > 1)
			return bad(ps, "flush_on_close", "0 or 1", e);
		c->flush_on_close = (int)x;
	}
	if (ds_hint(ps, "romio_ds_read", &c->ds_read, e) || ds_hint(ps, "romio_ds_write", &c->ds_write, e) ||
	    ir_params_size(ps, "ind_rd_buffer_size", &c->ds_rd_buf, e) < 0 ||
	    ir_params_size(ps, "ind_wr_buffer_size", &c->ds_wr_buf, e) < 0)
		return -1;
	if (c->ds_rd_buf < 1 || c->ds_rd_buf > IR_STORAGE_FILE_SPAN)
		return bad(ps, "ind_rd_buffer_size", "a size from 1 byte to 1T", e);
	if (c->ds_wr_buf < 1 || c->ds_wr_buf > IR_STORAGE_FILE_SPAN)
		return bad(ps, "ind_wr_buffer_size", "a size from 1 byte to 1T", e);
	return 0;
}

int ir_storage_stripe(const ir_storage_cfg *c, uint32_t slot, uint64_t off, uint64_t len,
                      int (*fn)(void *ctx, const ir_stripe_piece *p), void *ctx)
{
	uint32_t cnt = c->stripe_count ? c->stripe_count : c->servers;
	if (!c->servers || !cnt)
		return 0;
	while (len) {
		uint64_t k = off / c->stripe_size, in = off % c->stripe_size;
		uint64_t n = c->stripe_size - in;
		ir_stripe_piece p;
		int rc;
		if (n > len)
			n = len;
		p.server = (uint32_t)(((uint64_t)slot + k % cnt) % c->servers);
		p.addr = (uint64_t)slot * IR_STORAGE_FILE_SPAN + (k / cnt) * c->stripe_size + in;
		p.len = n;
		if ((rc = fn(ctx, &p)))
			return rc;
		off += n;
		len -= n;
	}
	return 0;
}

uint64_t ir_storage_position(const ir_storage_cfg *c, int has_last, uint64_t last, uint64_t addr)
{
	uint64_t d;
	if (has_last && addr == last)
		return 0;
	d = addr > last ? addr - last : last - addr;
	if (has_last && d <= c->disk_track)
		return c->disk_track_seek + c->disk_rotation / 2;
	return c->disk_access + c->disk_rotation / 2;
}

typedef struct ext {
	uint64_t a, n;
} ext;

typedef struct dirty {
	uint64_t end, n; /* on disk at `end` */
} dirty;

typedef struct srv {
	int has_last;
	uint64_t last;      /* where the disk's last access ended */
	uint64_t disk_free; /* when the disk is done with what it was given */
	ext *x;             /* cache contents, oldest first, from xh */
	size_t xh, xn, xcap;
	uint64_t cached;    /* bytes in x */
	dirty *d;           /* dirty data given to the disk, not yet on it, oldest first, from dh */
	size_t dh, dn, dcap;
	uint64_t ninfl;     /* bytes in d */
	ext *h;             /* dirty data held in the cache (not given to the disk), oldest first */
	size_t hn, hcap;
	uint64_t nheld;     /* bytes in h */
	int unflushed;      /* written since the last flush */
} srv;

struct ir_storage {
	ir_storage_cfg c;
	uint32_t nranks;
	srv **s;
	ir_storage_stats st;
	int ovf;
};

static uint64_t sadd(ir_storage *S, uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		S->ovf = 1;
		return UINT64_MAX;
	}
	return r;
}

static uint64_t smul(ir_storage *S, uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_mul_overflow(a, b, &r)) {
		S->ovf = 1;
		return UINT64_MAX;
	}
	return r;
}

ir_storage *ir_storage_new(const ir_storage_cfg *c, uint32_t nranks, ir_err *e)
{
	ir_storage *S = calloc(1, sizeof *S);
	if (!S || !(S->s = calloc(nranks ? nranks : 1, sizeof *S->s))) {
		free(S);
		ir_errf(e, "out of memory for the storage servers");
		return NULL;
	}
	S->c = *c;
	S->nranks = nranks;
	return S;
}

void ir_storage_free(ir_storage *S)
{
	if (!S)
		return;
	for (uint32_t r = 0; r < S->nranks; r++) {
		if (S->s[r]) {
			free(S->s[r]->x);
			free(S->s[r]->d);
			free(S->s[r]->h);
			free(S->s[r]);
		}
	}
	free(S->s);
	free(S);
}

/* Drop the oldest cache extents (or their front) until `need` more bytes fit. */
static void evict(srv *v, uint64_t cap, uint64_t need)
{
	while (v->xn && (v->cached + need > cap || v->xn >= STOR_EXTENTS)) {
		ext *o = &v->x[v->xh];
		uint64_t over = v->cached + need > cap ? v->cached + need - cap : o->n;
		if (v->xn >= STOR_EXTENTS || over >= o->n) {
			v->cached -= o->n;
			v->xh++;
			v->xn--;
		} else {
			o->a += over;
			o->n -= over;
			v->cached -= over;
		}
	}
	if (!v->xn)
		v->xh = 0;
}

static int cache_put(srv *v, uint64_t cap, uint64_t a, uint64_t n, ir_err *e)
{
	if (!cap || n > cap)
		return 0;
	if (v->xn) {
		ext *l = &v->x[v->xh + v->xn - 1];
		if (l->a + l->n == a) {
			evict(v, cap, n);
			if (v->xn) {
				l = &v->x[v->xh + v->xn - 1];
				if (l->a + l->n == a) {
					l->n += n;
					v->cached += n;
					return 0;
				}
			}
		}
	}
	evict(v, cap, n);
	if (v->xh && v->xh + v->xn == v->xcap) {
		memmove(v->x, v->x + v->xh, v->xn * sizeof *v->x);
		v->xh = 0;
	}
	if (IR_GROW(v->x, v->xh + v->xn + 1, v->xcap))
		return ir_errf(e, "out of memory for a storage server's cache");
	v->x[v->xh + v->xn].a = a;
	v->x[v->xh + v->xn].n = n;
	v->xn++;
	v->cached += n;
	return 0;
}

static int cache_has(const srv *v, uint64_t a, uint64_t n)
{
	for (size_t i = v->xh + v->xn; i-- > v->xh;)
		if (v->x[i].a <= a && a + n <= v->x[i].a + v->x[i].n)
			return 1;
	return 0;
}

/* Disk time of an access, from when the disk starts it; moves the head. */
static uint64_t disk(ir_storage *S, srv *v, int write, uint64_t addr, uint64_t len)
{
	uint64_t pos = ir_storage_position(&S->c, v->has_last, v->last, addr);
	uint64_t g = write || S->c.disk_read_G == IR_STORAGE_AS_WRITE ? S->c.disk_G : S->c.disk_read_G;
	if (pos == 0)
		S->st.sequential++;
	else if (pos == S->c.disk_track_seek + S->c.disk_rotation / 2 && v->has_last)
		S->st.short_seeks++;
	else
		S->st.seeks++;
	v->has_last = 1;
	v->last = addr + len;
	S->st.disk_bytes += len;
	return sadd(S, pos, smul(S, len, g));
}

/* Give dirty extent [a, a+n) to the disk from time `from`: queued behind what it has. */
static int to_disk(ir_storage *S, srv *v, uint64_t from, uint64_t a, uint64_t n, ir_err *e)
{
	uint64_t start = v->disk_free > from ? v->disk_free : from;
	uint64_t done = sadd(S, start, disk(S, v, 1, a, n));
	v->disk_free = done;
	if (v->dh && v->dh + v->dn == v->dcap) {
		memmove(v->d, v->d + v->dh, v->dn * sizeof *v->d);
		v->dh = 0;
	}
	if (IR_GROW(v->d, v->dh + v->dn + 1, v->dcap))
		return ir_errf(e, "out of memory for a storage server's cache");
	v->d[v->dh + v->dn].end = done;
	v->d[v->dh + v->dn].n = n;
	v->dn++;
	v->ninfl += n;
	return 0;
}

/* The oldest held extent to the disk, from `from`. */
static int hand_oldest(ir_storage *S, srv *v, uint64_t from, ir_err *e)
{
	ext o = v->h[0];
	memmove(v->h, v->h + 1, (v->hn - 1) * sizeof *v->h);
	v->hn--;
	v->nheld -= o.n;
	return to_disk(S, v, from, o.a, o.n, e);
}

static int cmp_ext(const void *x, const void *y)
{
	const ext *p = x, *q = y;
	return p->a < q->a ? -1 : p->a > q->a;
}

/* A flush of the file in slot `slot` from t: its held extents to the disk in address
 * order, overlapping and adjacent ones merged (a page written twice is written once). */
static int flush_file(ir_storage *S, srv *v, uint64_t t, uint64_t slot, int *wrote, ir_err *e)
{
	size_t k = 0, m = v->hn, w;
	ext *f;
	*wrote = 0;
	for (size_t i = 0; i < v->hn; i++)
		if (v->h[i].a / IR_STORAGE_FILE_SPAN == slot)
			k++;
	if (!k)
		return 0;
	if (!(f = malloc(k * sizeof *f)))
		return ir_errf(e, "out of memory for a storage server's cache");
	k = 0;
	w = 0;
	for (size_t i = 0; i < m; i++) {
		if (v->h[i].a / IR_STORAGE_FILE_SPAN == slot) {
			f[k++] = v->h[i];
			v->nheld -= v->h[i].n;
		} else {
			v->h[w++] = v->h[i];
		}
	}
	v->hn = w;
	qsort(f, k, sizeof *f, cmp_ext);
	w = 0;
	for (size_t i = 0; i < k; i++) {
		if (w && f[w - 1].a + f[w - 1].n >= f[i].a) {
			if (f[i].a + f[i].n > f[w - 1].a + f[w - 1].n)
				f[w - 1].n = f[i].a + f[i].n - f[w - 1].a;
		} else {
			f[w++] = f[i];
		}
	}
	for (size_t i = 0; i < w; i++)
		if (to_disk(S, v, t, f[i].a, f[i].n, e)) {
			free(f);
			return -1;
		}
	free(f);
	*wrote = 1;
	return 0;
}

int ir_storage_access(ir_storage *S, uint32_t rank, uint64_t t, int write, uint64_t addr, uint64_t len,
                      uint64_t *end, ir_err *e)
{
	srv *v;
	uint64_t copy = smul(S, len, S->c.cache_G);
	if (rank >= S->nranks)
		return ir_errf(e, "storage request on rank %u (the schedule has %u)", rank, S->nranks);
	if (!(v = S->s[rank])) {
		if (!(v = S->s[rank] = calloc(1, sizeof *v)))
			return ir_errf(e, "out of memory for a storage server");
	}
	/* dirty data already on disk at t leaves the queue */
	while (v->dn && v->d[v->dh].end <= t) {
		v->ninfl -= v->d[v->dh].n;
		v->dh++;
		v->dn--;
	}
	if (!v->dn)
		v->dh = 0;
	if (write && len == 0) {
		/* a flush (MPI_File_sync, docs/storage.md §4): the file's held data to the disk;
		 * done when the disk has written everything it was given, plus disk_sync if the
		 * flush wrote something or the server was written to since the last flush */
		int wrote;
		uint64_t start;
		if (flush_file(S, v, t, addr / IR_STORAGE_FILE_SPAN, &wrote, e))
			return -1;
		start = v->disk_free > t ? v->disk_free : t;
		S->st.flushes++;
		*end = v->unflushed || wrote ? sadd(S, start, S->c.disk_sync) : start;
		v->disk_free = *end;
		v->unflushed = 0;
	} else if (write) {
		uint64_t in = t, done;
		S->st.writes++;
		v->unflushed = 1;
		if (S->c.cache && len <= S->c.cache) {
			uint64_t nd = v->ninfl + v->nheld;
			if (nd + len > S->c.cache) {
				/* wait for room: held data goes to the disk, oldest first, until what
				 * the disk has been given covers what must leave; then the oldest dirty
				 * extents reach the disk in order */
				uint64_t need = nd + len - S->c.cache, freed = 0;
				while (v->ninfl < need && v->hn)
					if (hand_oldest(S, v, t, e))
						return -1;
				for (size_t i = v->dh; freed < need && i < v->dh + v->dn; i++) {
					freed += v->d[i].n;
					if (v->d[i].end > in)
						in = v->d[i].end;
				}
			}
			in = sadd(S, in, copy);
			if (v->hn && v->h[v->hn - 1].a + v->h[v->hn - 1].n == addr) {
				v->h[v->hn - 1].n += len;
			} else {
				if (IR_GROW(v->h, v->hn + 1, v->hcap))
					return ir_errf(e, "out of memory for a storage server's cache");
				v->h[v->hn].a = addr;
				v->h[v->hn].n = len;
				v->hn++;
			}
			v->nheld += len;
			/* beyond the dirty limit (or the extent cap) the oldest goes to the disk, from
			 * when this write is in the cache; dirty_limit 0: every write at once */
			while (v->hn && (v->nheld > S->c.dirty_limit || v->hn > STOR_EXTENTS))
				if (hand_oldest(S, v, in, e))
					return -1;
			*end = in;
		} else {
			/* no cache, or larger than it: write-through */
			uint64_t start = v->disk_free > t ? v->disk_free : t;
			done = sadd(S, start, disk(S, v, 1, addr, len));
			v->disk_free = done;
			*end = done;
		}
		if (cache_put(v, S->c.cache, addr, len, e))
			return -1;
	} else {
		S->st.reads++;
		if (S->c.cache && cache_has(v, addr, len)) {
			S->st.read_hits++;
			*end = sadd(S, t, copy);
		} else {
			uint64_t start = v->disk_free > t ? v->disk_free : t;
			uint64_t done = sadd(S, start, disk(S, v, 0, addr, len));
			v->disk_free = done;
			*end = done;
			if (cache_put(v, S->c.cache, addr, len, e))
				return -1;
		}
	}
	if (S->ovf)
		return ir_errf(e, "storage time beyond 2^64 ps");
	return 0;
}

void ir_storage_get_stats(const ir_storage *S, ir_storage_stats *st)
{
	*st = S->st;
}
