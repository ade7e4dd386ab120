/*
 * ir_storage.c: the storage model (ir_storage.h; docs/storage.md is the specification):
 * its parameter keys, the striping of file bytes over servers, and each server's cache
 * and disk during a run.
 *
 * A server's state is small: where its disk's last access ended and when the disk is
 * free (one FIFO queue: requests are served in the order they reach the server), a FIFO
 * of dirty extents waiting for the disk with the time each will be on it, and the cache's
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
	                                "disk_track_seek", "disk_rotation", "disk_track", "disk_sync", NULL };

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
	dirty *d;           /* dirty data not yet on disk, oldest first, from dh */
	size_t dh, dn, dcap;
	uint64_t ndirty;
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
static uint64_t disk(ir_storage *S, srv *v, uint64_t addr, uint64_t len)
{
	uint64_t pos = ir_storage_position(&S->c, v->has_last, v->last, addr);
	if (pos == 0)
		S->st.sequential++;
	else if (pos == S->c.disk_track_seek + S->c.disk_rotation / 2 && v->has_last)
		S->st.short_seeks++;
	else
		S->st.seeks++;
	v->has_last = 1;
	v->last = addr + len;
	S->st.disk_bytes += len;
	return sadd(S, pos, smul(S, len, S->c.disk_G));
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
		v->ndirty -= v->d[v->dh].n;
		v->dh++;
		v->dn--;
	}
	if (!v->dn)
		v->dh = 0;
	if (write && len == 0) {
		/* a flush (MPI_File_sync, docs/storage.md §4): done when the disk has written
		 * everything it was given, plus disk_sync if anything was written since the last */
		uint64_t start = v->disk_free > t ? v->disk_free : t;
		S->st.flushes++;
		*end = v->unflushed ? sadd(S, start, S->c.disk_sync) : start;
		v->disk_free = *end;
		v->unflushed = 0;
	} else if (write) {
		uint64_t in = t, start, done;
		S->st.writes++;
		v->unflushed = 1;
		if (S->c.cache && len <= S->c.cache) {
			/* wait for room: the oldest dirty extents reach the disk in order */
			size_t i = v->dh;
			uint64_t nd = v->ndirty;
			while (nd + len > S->c.cache && i < v->dh + v->dn) {
				nd -= v->d[i].n;
				if (v->d[i].end > in)
					in = v->d[i].end;
				i++;
			}
			in = sadd(S, in, copy);
			start = v->disk_free > in ? v->disk_free : in;
			done = sadd(S, start, disk(S, v, addr, len));
			v->disk_free = done;
			if (v->dh && v->dh + v->dn == v->dcap) {
				memmove(v->d, v->d + v->dh, v->dn * sizeof *v->d);
				v->dh = 0;
			}
			if (IR_GROW(v->d, v->dh + v->dn + 1, v->dcap))
				return ir_errf(e, "out of memory for a storage server's cache");
			v->d[v->dh + v->dn].end = done;
			v->d[v->dh + v->dn].n = len;
			v->dn++;
			v->ndirty += len;
			*end = in;
		} else {
			/* no cache, or larger than it: write-through */
			start = v->disk_free > t ? v->disk_free : t;
			done = sadd(S, start, disk(S, v, addr, len));
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
			uint64_t done = sadd(S, start, disk(S, v, addr, len));
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
