/*
 * u-storage-wb.c: the storage model's held write-back and its cold-read rate
 * (lib/ir_storage.c; docs/storage.md §4): dirty data held in the cache until a flush of
 * its file or the dirty limit, written at disk_G, and reads from the disk at disk_read_G,
 * against numbers derived by hand below. dirty_limit 0 (the default) is the model of
 * u-storage.c, where the disk writes dirty data at once.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_params.h"
#include "ir_storage.h"
#include "tap.h"

#define US 1000000ull /* ps */
#define MS 1000000000ull
#define F1 IR_STORAGE_FILE_SPAN /* file slot 1 */

static void base(ir_storage_cfg *c)
{
	ir_storage_defaults(c);
	c->cache = 1 << 20;
	c->cache_G = 1000;            /* 1 ns per byte */
	c->disk_G = 10000;            /* 10 ns per byte */
	c->disk_access = 8 * MS;
	c->disk_track_seek = 1 * MS;
	c->disk_rotation = 0;
	c->disk_track = 1 << 20;
	c->disk_sync = 500 * US;
	c->dirty_limit = 1 << 20;
}

static void held(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	base(&c);
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	is_u64(end, 1 * US, "a write: the copy into the cache, 1000 B * 1 ns");
	ir_storage_access(s, 0, 2 * US, 1, 1000, 1000, &end, &e);
	is_u64(end, 3 * US, "a second write, held beside the first");
	/* the disk has been given nothing: a read miss of file 1 starts at once, a first
	 * access: 3 us + 8 ms + 100 B * 10 ns */
	ir_storage_access(s, 0, 3 * US, 0, F1, 100, &end, &e);
	is_u64(end, 3 * US + 8 * MS + 1 * US, "a read miss does not wait behind held dirty data");
	/* the flush of file 0 at 10 ms writes its 2000 held bytes, one run (the two writes
	 * are adjacent), far from the head (at F1 + 100): 8 ms + 20 us, then disk_sync */
	ir_storage_access(s, 0, 10 * MS, 1, 0, 0, &end, &e);
	is_u64(end, 10 * MS + 8 * MS + 20 * US + 500 * US, "a flush writes the held data, then disk_sync");
	/* a write to file 1, then a flush of file 0: nothing of file 0 is held, but the
	 * server was written to since its last flush: disk_sync alone */
	ir_storage_access(s, 0, 20 * MS, 1, F1, 1000, &end, &e);
	is_u64(end, 20 * MS + 1 * US, "a write to file 1");
	ir_storage_access(s, 0, 21 * MS, 1, 0, 0, &end, &e);
	is_u64(end, 21 * MS + 500 * US, "a flush of file 0 leaves file 1's data held");
	/* file 1's flush writes it: the head is at 2000 (file 0), so a full access */
	ir_storage_access(s, 0, 22 * MS, 1, F1, 0, &end, &e);
	is_u64(end, 22 * MS + 8 * MS + 10 * US + 500 * US, "file 1's flush writes file 1's data");
	ir_storage_access(s, 0, 40 * MS, 1, F1, 0, &end, &e);
	is_u64(end, 40 * MS, "nothing held, nothing written since: a flush costs nothing");
	ir_storage_free(s);
}

static void limit(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	base(&c);
	c.dirty_limit = 1500;
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	is_u64(end, 1 * US, "1000 B held (limit 1500)");
	/* 2000 B dirty > 1500: the oldest 1000 B go to the disk when the second write is in
	 * the cache (2 us): first access 8 ms + 10 us, on disk at 8.012 ms */
	ir_storage_access(s, 0, 1 * US, 1, 5000, 1000, &end, &e);
	is_u64(end, 2 * US, "the writer does not wait for the background write");
	/* the flush of file 0 at 3 us: [5000, 6000) after the disk's queue (8.012 ms), 4000 B
	 * from the head (1000): a track-to-track seek, 1 ms + 10 us; then disk_sync */
	ir_storage_access(s, 0, 3 * US, 1, 0, 0, &end, &e);
	is_u64(end, 8 * MS + 12 * US + 1 * MS + 10 * US + 500 * US, "the flush queues behind the background write");
	ir_storage_free(s);
}

static void room(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	base(&c);
	c.cache = 4096;
	c.dirty_limit = 4096;
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	/* 1000 + 4000 dirty bytes > 4096: the held 1000 B go to the disk at 2 us (8 ms +
	 * 10 us, on disk at 8.012 ms); then the copy, 4 us */
	ir_storage_access(s, 0, 2 * US, 1, 1000, 4000, &end, &e);
	is_u64(end, 8 * MS + 12 * US + 4 * US, "a full cache gives held data to the disk and waits for it");
	ir_storage_free(s);
}

static void rewrite(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	ir_storage_stats st;
	base(&c);
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	ir_storage_access(s, 0, 2 * US, 1, 0, 1000, &end, &e);
	ir_storage_access(s, 0, 5 * US, 1, 0, 0, &end, &e);
	is_u64(end, 5 * US + 8 * MS + 10 * US + 500 * US, "bytes written twice before the flush are written once");
	ir_storage_get_stats(s, &st);
	is_u64(st.disk_bytes, 1000, "1000 bytes reached the disk");
	ir_storage_free(s);
}

/* Blocks of 100 B written out of order (two interleaved writers): at the flush, in
 * address order, one run of 800 B. */
static void order(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	ir_storage_stats st;
	base(&c);
	s = ir_storage_new(&c, 1, &e);
	static const uint64_t at[8] = { 0, 700, 200, 500, 400, 300, 600, 100 }; /* all of [0, 800) */
	for (int i = 0; i < 8; i++)
		ir_storage_access(s, 0, (uint64_t)i * US, 1, at[i], 100, &end, &e);
	ir_storage_access(s, 0, 10 * US, 1, 0, 0, &end, &e);
	is_u64(end, 10 * US + 8 * MS + 8 * US + 500 * US, "written in address order: one access, 800 B");
	ir_storage_get_stats(s, &st);
	is_u64(st.seeks + st.short_seeks, 1, "one positioning");
	ir_storage_free(s);
}

static void eager(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	base(&c);
	c.dirty_limit = 0;
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 1, 0, 1000, &end, &e);
	is_u64(end, 1 * US, "dirty_limit 0: the write is done when in the cache");
	/* ... but the disk writes it at once (1 us + 8 ms + 10 us), and a read miss waits */
	ir_storage_access(s, 0, 2 * US, 0, F1, 100, &end, &e);
	is_u64(end, 1 * US + 8 * MS + 10 * US + 8 * MS + 1 * US, "dirty_limit 0: a read miss waits behind the dirty data");
	ir_storage_free(s);
}

static void cold_read(void)
{
	ir_storage_cfg c;
	ir_storage *s;
	ir_err e;
	uint64_t end;
	base(&c);
	ok(c.disk_read_G == IR_STORAGE_AS_WRITE, "disk_read_G: unset by default");
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 0, 0, 1000, &end, &e);
	is_u64(end, 8 * MS + 10 * US, "unset: a read from the disk costs disk_G (10 ns per byte)");
	ir_storage_free(s);
	c.disk_read_G = 25000;
	s = ir_storage_new(&c, 1, &e);
	ir_storage_access(s, 0, 0, 0, 0, 1000, &end, &e);
	is_u64(end, 8 * MS + 25 * US, "disk_read_G 25 ns per byte");
	ir_storage_access(s, 0, 9 * MS, 0, 0, 1000, &end, &e);
	is_u64(end, 9 * MS + 1 * US, "read again: a hit, the copy (cache_G)");
	ir_storage_access(s, 0, 10 * MS, 1, F1, 1000, &end, &e);
	ir_storage_access(s, 0, 11 * MS, 1, F1, 0, &end, &e);
	is_u64(end, 11 * MS + 8 * MS + 10 * US + 500 * US, "writes still cost disk_G");
	ir_storage_free(s);
}

static void keys(void)
{
	ir_params *p = ir_params_new();
	ir_storage_cfg c;
	ir_err e;
	const char *txt = "disk_read_G = 948\ndirty_limit = 2G\nflush_on_close = 1\nromio_ds_write = automatic\n"
	                  "romio_ds_read = disable\nind_wr_buffer_size = 1M\n";
	ok(ir_params_parse(p, txt, strlen(txt), "k.params", &e) == 0, "parse");
	ok(ir_storage_load(&c, p, &e) == 0, "load");
	is_u64(c.disk_read_G, 948, "disk_read_G");
	is_u64(c.dirty_limit, 2ull << 30, "dirty_limit 2G");
	is_u64((uint64_t)c.flush_on_close, 1, "flush_on_close");
	is_u64((uint64_t)c.ds_write, 1, "romio_ds_write automatic: sieve");
	is_u64((uint64_t)c.ds_read, 0, "romio_ds_read disable");
	is_u64(c.ds_wr_buf, 1 << 20, "ind_wr_buffer_size");
	is_u64(c.ds_rd_buf, 4 << 20, "ind_rd_buffer_size: ROMIO's 4M");
	ir_params_free(p);
	p = ir_params_new();
	txt = "romio_ds_write = yes\n";
	ir_params_parse(p, txt, strlen(txt), "k.params", &e);
	ok(ir_storage_load(&c, p, &e) < 0 && strcmp(e.msg, "k.params:1: invalid romio_ds_write 'yes' (expected enable, "
	                                                  "disable or automatic)") == 0,
	   "a bad hint names its line");
	ir_params_free(p);
}

int main(void)
{
	held();
	limit();
	room();
	rewrite();
	order();
	eager();
	cold_read();
	keys();
	return tap_done();
}
