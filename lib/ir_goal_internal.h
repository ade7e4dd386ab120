/*
 * ir_goal_internal.h: what the parts of the GOAL binary format share
 * (lib/ir_goal_bin.c: the file's frame, versions 1 and 2's fixed records;
 * lib/ir_goal_bin3.c: version 3's variable-length sections and attribute
 * table). Only those two files include it. formats/goalb.md is the
 * specification; the names here are its names.
 */
#ifndef IR_GOAL_INTERNAL_H
#define IR_GOAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_goal.h"
#include "ir_strbuf.h"

#define GOALB_V3 3
#define GOALB_FLAG_GOAL2 1u /* version 3: the schedule is GOAL version 2 (read, write ops) */
#define GOALB_SECTION_HEADER 32
#define GOALB_ATTR_FOOTER 32
#define GOALB3_MIN_SECTION 12 /* checksum and four one-byte varints */

/* A version-3 section's header (formats/goalb.md, Version 3's section). */
typedef struct goalb3_hdr {
	uint32_t nops, nedges, ncpus, nnics;
	uint64_t nbytes; /* payload */
	unsigned hlen;   /* header bytes (checksum included) */
} goalb3_hdr;
/* Reads and checks the header of rank `rank`'s section at `off` with `room` bytes up to
 * the attribute table; returns the section's size, or 0 with e filled. */
uint64_t goalb3_section(const unsigned char *d, uint64_t off, uint64_t room, uint32_t rank, const char *name,
                        goalb3_hdr *h, ir_err *e);

/* ---- version 3 writer: a section's bytes, the attribute table ---- */
typedef struct goalb3_w goalb3_w;
goalb3_w *goalb3_w_new(uint32_t num_ranks, unsigned goal_version);
void goalb3_w_free(goalb3_w *w); /* NULL is a no-op */
/* Rank `rank`'s whole section (header, payload, padding) into `out` (reset first). */
int goalb3_w_section(goalb3_w *w, uint32_t rank, const ir_rank *r, ir_sb *out, const char *name, ir_err *e);
/* The attribute table and its footer (formats/goalb.md, Attribute table) into `out`. */
int goalb3_w_attrs(goalb3_w *w, ir_sb *out, const char *name, ir_err *e);

/* ---- version 3 reader ---- */
typedef struct goalb3_r goalb3_r;
/* Checks and decodes the attribute table whose footer ends at `index_off`; sets
 * *sections_end to its first byte. */
goalb3_r *goalb3_r_open(const unsigned char *d, uint64_t index_off, uint32_t num_ranks, unsigned goal_version,
                        const char *name, uint64_t *sections_end, ir_err *e);
void goalb3_r_free(goalb3_r *r); /* NULL is a no-op */
uint32_t goalb3_r_nattr(const goalb3_r *r);
/* Validates the section at `off` (its header already checked by goalb3_section) and
 * decodes it into `out`, whose ops and edges stay valid until the next call or
 * goalb3_r_free. */
int goalb3_r_rank(goalb3_r *r, const unsigned char *d, uint64_t off, uint32_t rank, ir_rank *out, ir_err *e);

/* The same checks, decoding the section straight into the compact form c (ir_csched_reserve,
 * ir_csched_commit) with no op records in between; `out` gets the counts (ops and edges
 * NULL). Returns 0; 1 when the section is not one this path takes whole (anything wrong
 * with it, or a rank c refuses): nothing was added to c but perhaps attributes, and
 * goalb3_r_rank and ir_csched_add give the answer, the error's message included; -1 with
 * e filled (out of memory, a dependency cycle). */
int goalb3_r_rank_compact(goalb3_r *r, const unsigned char *d, uint64_t off, uint32_t rank, ir_csched *c,
                          ir_rank *out, ir_err *e);

/* The section checks both versions share: every edge, acyclicity (forward: every
 * edge goes to a later op, already known). */
int goalb_check_acyclic(const ir_rank *r, const char *name, uint64_t off, uint32_t rank, ir_err *e);

#endif
