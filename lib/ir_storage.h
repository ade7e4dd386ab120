/*
 * ir_storage.h: the storage model: file data striped over storage servers, and each
 * server's cache and disk (docs/storage.md specifies the model, formats/params.md its
 * keys).
 *
 * Two tools use it. trace2goal stripes each file access of the traces over the servers
 * (ir_storage_stripe) and writes, for every piece, messages between the client and the
 * server's rank and a GOAL `read` or `write` operation on the server (formats/goal.md,
 * version 2) carrying the server-local address and the byte count. ibsim's engine runs
 * those operations through ir_storage_access, which keeps each server's disk and cache
 * state: where the disk's last access ended (a seek unless the next one continues there),
 * when the disk is free, what the cache holds and how much of it is dirty.
 *
 * Why the servers are ranks of the schedule and not a model inside the network: the
 * requests and their data then cross the same network model as every other message
 * (loggops or ib, placement included), with no second path for storage traffic; the only
 * thing the engine adds is the disk, a resource of its own next to the CPUs and NICs. The
 * rejected alternative, one GOAL operation per file access expanded by ibsim, would have
 * made the engine create messages at run time, which nothing else in it does.
 *
 * Times are picoseconds, sizes bytes. The library never prints; errors fill ir_err.
 */
#ifndef IR_STORAGE_H
#define IR_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"

struct ir_params;

/* A server-local address: file slot (the order in which trace2goal first met the file)
 * times 2^40, plus the offset in the file's object on that server. */
#define IR_STORAGE_FILE_SPAN ((uint64_t)1 << 40)

typedef struct ir_storage_cfg {
	/* trace2goal: where the bytes go */
	uint32_t servers;      /* storage_servers: 0 = MPI-IO calls stay computation */
	uint64_t stripe_size;  /* bytes per stripe unit */
	uint32_t stripe_count; /* servers a file is striped over (<= servers) */
	uint32_t cb_nodes;     /* aggregators of collective I/O; 0 = every rank of the file's communicator */
	/* ibsim: what a server does with them */
	uint64_t cache;        /* cache bytes per server (0: no cache, write-through) */
	uint64_t cache_G;      /* ps per byte into or out of the cache */
	uint64_t disk_G;       /* ps per byte of sequential transfer */
	uint64_t disk_access;  /* average seek time */
	uint64_t disk_track_seek; /* seek to a nearby track */
	uint64_t disk_rotation;   /* one revolution */
	uint64_t disk_track;   /* bytes: a jump of at most this far is a track-to-track seek */
	uint64_t disk_sync;    /* what a flush costs beyond writing the dirty data (0: nothing) */
	uint64_t disk_read_G;  /* ps per byte of a read from the disk; IR_STORAGE_AS_WRITE: disk_G */
	uint64_t dirty_limit;  /* bytes of dirty data a server holds before its disk writes the
	                        * oldest (0: the disk writes dirty data at once) */
	/* trace2goal: how the client library accesses the file */
	int flush_on_close;    /* MPI_File_close is a flush of the file, as MPI_File_sync */
	int ds_write, ds_read; /* ROMIO's data sieving of independent noncontiguous accesses */
	uint64_t ds_wr_buf, ds_rd_buf; /* its buffers: ind_wr_buffer_size, ind_rd_buffer_size */
} ir_storage_cfg;

/* disk_read_G when the parameters do not set it: reads cost disk_G, as writes */
#define IR_STORAGE_AS_WRITE UINT64_MAX

extern const char *const ir_storage_keys[]; /* NULL-terminated */

void ir_storage_defaults(ir_storage_cfg *c);
/* Defaults, then the keys of the set; a bad value names its origin. */
int ir_storage_load(ir_storage_cfg *c, const struct ir_params *ps, ir_err *e);

/* One piece of a striped access. */
typedef struct ir_stripe_piece {
	uint32_t server;  /* 0 .. servers-1 */
	uint64_t addr;    /* server-local address (IR_STORAGE_FILE_SPAN * slot + object offset) */
	uint64_t len;
} ir_stripe_piece;

/* Split [off, off+len) of the file in slot `slot` into pieces, one per stripe unit
 * touched, in file order (docs/storage.md §2): stripe unit k = off / stripe_size lives on
 * server (slot + k mod stripe_count) mod servers, at object offset
 * (k / stripe_count) * stripe_size + off mod stripe_size. Calls `fn` for each piece; stops
 * and returns its non-zero value. */
int ir_storage_stripe(const ir_storage_cfg *c, uint32_t slot, uint64_t off, uint64_t len,
                      int (*fn)(void *ctx, const ir_stripe_piece *p), void *ctx);

/* The disk's positioning time for an access at `addr` after the last one ended at
 * `last` (has_last 0: the first access: a full average access). */
uint64_t ir_storage_position(const ir_storage_cfg *c, int has_last, uint64_t last, uint64_t addr);

/* The servers' state during a run. */
typedef struct ir_storage ir_storage;
ir_storage *ir_storage_new(const ir_storage_cfg *c, uint32_t nranks, ir_err *e);
void ir_storage_free(ir_storage *s); /* NULL is a no-op */
/* A request of rank `rank` (its server) arriving at t: returns (in *end) when the
 * server has done it (a write: in the cache, or on disk when it does not fit; a read: from
 * the cache or the disk; a write of 0 bytes is a flush of the file whose slot `addr` lies
 * in: its dirty data written, then disk_sync). Requests must come in non-decreasing t per
 * server. */
int ir_storage_access(ir_storage *s, uint32_t rank, uint64_t t, int write, uint64_t addr, uint64_t len,
                      uint64_t *end, ir_err *e);

typedef struct ir_storage_stats {
	uint64_t reads, writes, read_hits, seeks, short_seeks, sequential, disk_bytes, flushes;
} ir_storage_stats;
void ir_storage_get_stats(const ir_storage *s, ir_storage_stats *st);

#endif
