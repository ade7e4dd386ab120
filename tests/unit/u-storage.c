/*
 * u-storage.c: the storage model (lib/ir_storage.c; docs/storage.md): which server and
 * which server-local address each byte of a file gets (striping, §2), and the disk's and
 * the cache's times against the formulas of §4, with the numbers derived by hand below.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_storage.h"
#include "tap.h"

typedef struct got {
	ir_stripe_piece p[16];
	int n;
} got;

static int on(void *ctx, const ir_stripe_piece *p)
{
	got *g = ctx;
	if (g->n < 16)
		g->p[g->n] = *p;
	g->n++;
	return 0;
}

static void striping(void)
{
	ir_storage_cfg c;
	got g;
	ir_storage_defaults(&c);
	c.servers = 3;
	c.stripe_count = 2;
	c.stripe_size = 100;
	/* file slot 1: stripe units 0,1,2,3 on servers (1+0)%3=1, (1+1)%3=2, 1, 2; object
	 * offsets 0, 0, 100, 100 (unit k at (k / 2) * 100) */
	memset(&g, 0, sizeof g);
	ir_storage_stripe(&c, 1, 50, 300, on, &g);
	is_u64(g.n, 4, "bytes 50..349 touch four stripe units");
	is_u64(g.p[0].server, 1, "unit 0 on server 1");
	is_u64(g.p[0].addr, IR_STORAGE_FILE_SPAN + 50, "at object offset 50 of slot 1");
	is_u64(g.p[0].len, 50, "50 bytes");
	is_u64(g.p[1].server, 2, "unit 1 on server 2");
	is_u64(g.p[1].addr, IR_STORAGE_FILE_SPAN + 0, "at object offset 0");
	is_u64(g.p[2].server, 1, "unit 2 back on server 1 (stripe_count 2)");
	is_u64(g.p[2].addr, IR_STORAGE_FILE_SPAN + 100, "after unit 0 in its object");
	is_u64(g.p[3].server, 2, "unit 3 on server 2");
	is_u64(g.p[3].len, 50, "its first 50 bytes");
}

static void disk(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	ir_storage_defaults(&c);
	c.cache = 0;               /* write-through: the disk alone */
	c.disk_G = 10000;          /* 10 ns per byte */
	c.disk_access = 8000000000ull;
	c.disk_track_seek = 1000000000ull;
	c.disk_rotation = 8000000000ull;
	c.disk_track = 1 << 20;
	s = ir_storage_new(&c, 1, &e);
	/* first access: average access 8 ms + half a turn 4 ms + 1000 B * 10 ns = 12.01 ms */
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	is_u64(end, 12010000000ull, "first access: seek + rotation/2 + transfer");
	/* continues where the last ended: transfer only, 10 us, queued after the first */
	ir_storage_access(s, 0, 0, 1, 1000, 1000, &end, &e);
	is_u64(end, 12020000000ull, "sequential: no positioning");
	/* 498000 B away (within a track's 1 MiB): track-to-track 1 ms + 4 ms + 10 us */
	ir_storage_access(s, 0, 0, 1, 500000, 1000, &end, &e);
	is_u64(end, 17030000000ull, "near: track-to-track seek + rotation/2");
	/* another file (1 TiB away): a full average access again */
	ir_storage_access(s, 0, 0, 0, IR_STORAGE_FILE_SPAN, 1000, &end, &e);
	is_u64(end, 29040000000ull, "far: average access + rotation/2");
	/* a request arriving after the disk is idle starts at its arrival */
	ir_storage_access(s, 0, 40000000000ull, 0, IR_STORAGE_FILE_SPAN + 1000, 1000, &end, &e);
	is_u64(end, 40010000000ull, "idle disk: starts at arrival, sequential");
	ir_storage_free(s);
}

static void cache(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	ir_storage_defaults(&c);
	c.cache = 4096;
	c.cache_G = 1000; /* 1 ns per byte */
	c.disk_G = 10000;
	c.disk_access = 8000000000ull;
	c.disk_rotation = 8000000000ull;
	s = ir_storage_new(&c, 1, &e);
	/* a write that fits: done when copied into the cache, 1000 B * 1 ns */
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	is_u64(end, 1000000ull, "write-back: the copy into the cache");
	/* reading it back hits: 1 us */
	ir_storage_access(s, 0, 2000000ull, 0, 0, 1000, &end, &e);
	is_u64(end, 3000000ull, "read hit: the copy out of the cache");
	/* 4000 B more do not fit beside 1000 dirty bytes: wait until the first write is on
	 * disk (1 us + 12 ms + 10 us = 12.011 ms), then copy 4 us */
	ir_storage_access(s, 0, 3000000ull, 1, 1000, 4000, &end, &e);
	is_u64(end, 12011000000ull + 4000000ull, "a full cache: wait for the disk");
	/* a read that misses goes to the disk, after the queued flush */
	ir_storage_access(s, 0, 3000000ull, 0, 100000, 10, &end, &e);
	ok(end > 12015000000ull, "a miss waits behind the dirty data");
	ir_storage_free(s);
}

/* A 0-byte write is a flush (MPI_File_sync, docs/storage.md §4). */
static void flush(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	ir_storage_defaults(&c);
	c.cache = 1 << 20;
	c.cache_G = 1000;     /* 1 ns per byte */
	c.disk_G = 10000;     /* 10 ns per byte */
	c.disk_access = 8000000000ull;
	c.disk_rotation = 0;
	c.disk_sync = 500000000ull; /* 0.5 ms */
	s = ir_storage_new(&c, 1, &e);
	/* nothing written: a flush costs nothing */
	ir_storage_access(s, 0, 1000, 1, 0, 0, &end, &e);
	is_u64(end, 1000, "a flush with nothing written ends at once");
	/* 1000 B: in the cache at 1 us; on disk at 1 us + 8 ms + 10 us */
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	is_u64(end, 1000000ull, "write-back");
	ir_storage_access(s, 0, 2000000ull, 1, 0, 0, &end, &e);
	is_u64(end, 8011000000ull + 500000000ull, "a flush waits for the disk, then disk_sync");
	/* a second flush: nothing written since */
	ir_storage_access(s, 0, 9000000000ull, 1, 0, 0, &end, &e);
	is_u64(end, 9000000000ull, "a second flush has nothing to do");
	ir_storage_free(s);
}

int main(void)
{
	striping();
	disk();
	cache();
	flush();
	return tap_done();
}
