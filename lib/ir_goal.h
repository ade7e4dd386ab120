/*
 * ir_goal.h: GOAL schedules in memory, and their loading from GOAL text or
 * GOAL binary (formats/goal.md, formats/goalb.md).
 *
 * A loaded schedule is the binary format's per-rank sections, used in place:
 * a binary file is mapped and read without copying; GOAL text is compiled in
 * memory by the same code goalc uses, into the same layout. The simulator
 * asks for a compact form besides (IR_SCHED_COMPACT, ir_csched below), built
 * while each section is validated, the file's pages let go behind it. Each rank is an
 * array of fixed-size op records plus a CSR array of dependents, so a
 * simulator counts unmet predecessors and walks dependents without searching.
 *
 * Op record (IR_OP_BYTES = 24 bytes, little-endian, read through the
 * accessors below, never by struct cast):
 *
 *   offset size field
 *   0      1    type       IR_OP_SEND, IR_OP_RECV, IR_OP_CALC; version 2 adds IR_OP_READ,
 *                          IR_OP_WRITE (a storage server's disk access, ir_storage.h)
 *   1      1    cpu        0..255
 *   2      1    nic        0..255 (0 for calc)
 *   3      1    reserved   must be 0
 *   4      4    peer       send: destination rank; recv: source rank or IR_ANY; calc: 0;
 *                          read/write: bits 0..31 of the server-local address
 *   8      4    tag        send: 0..2^31-1; recv: 0..2^31-1 or IR_ANY; calc: 0;
 *                          read/write: bits 32..63 of the address
 *   12     4    succ_first index of this op's first dependent in the rank's edge array;
 *                          its dependents are edges[succ_first(i) .. succ_first(i+1))
 *                          (the last op's end is nedges); non-decreasing
 *   16     8    size       send/recv/read/write: bytes; calc: picoseconds
 *
 * Edge (4 bytes): bits 0..30 the dependent op's index in the same rank; bit 31
 * set when the dependent `irequires` this op (needs it started), clear when it
 * `requires` it (needs it done). Edges of one op are sorted by dependent index.
 *
 * Ownership: ir_sched_load() returns an opaque-owning ir_sched; the caller
 * reads the public fields and frees it with ir_sched_free().
 */
#ifndef IR_GOAL_H
#define IR_GOAL_H

#include <stdint.h>

#include "ir_endian.h"
#include "ir_err.h"

enum ir_op_type { IR_OP_SEND = 0, IR_OP_RECV = 1, IR_OP_CALC = 2, IR_OP_READ = 3, IR_OP_WRITE = 4 };

/* GOAL versions (formats/goal.md, formats/goalb.md): 2 adds read and write. */
#define IR_GOAL_VERSION_MAX 2

#define IR_ANY ((uint32_t)0xFFFFFFFFu) /* recv source or tag: matches anything */
#define IR_OP_BYTES 24
#define IR_EDGE_IREQ ((uint32_t)0x80000000u)
#define IR_EDGE_INDEX ((uint32_t)0x7FFFFFFFu)
#define IR_MAX_OPS_PER_RANK ((uint32_t)0x7FFFFFFFu)

static inline unsigned ir_op_type(const unsigned char *op) { return op[0]; }
static inline unsigned ir_op_cpu(const unsigned char *op) { return op[1]; }
static inline unsigned ir_op_nic(const unsigned char *op) { return op[2]; }
static inline uint32_t ir_op_peer(const unsigned char *op) { return ir_get32(op + 4); }
static inline uint32_t ir_op_tag(const unsigned char *op) { return ir_get32(op + 8); }
static inline uint32_t ir_op_succ_first(const unsigned char *op) { return ir_get32(op + 12); }
static inline uint64_t ir_op_size(const unsigned char *op) { return ir_get64(op + 16); }
/* read, write: the server-local address (peer low, tag high) */
static inline uint64_t ir_op_addr(const unsigned char *op) { return (uint64_t)ir_get32(op + 4) | (uint64_t)ir_get32(op + 8) << 32; }
static inline int ir_op_is_io(unsigned type) { return type == IR_OP_READ || type == IR_OP_WRITE; }

typedef struct ir_rank {
	const unsigned char *ops;   /* nops * IR_OP_BYTES */
	const unsigned char *edges; /* nedges * 4 */
	uint32_t nops;
	uint32_t nedges;
	uint32_t ncpus;             /* 1 + largest cpu used (at least 1) */
	uint32_t nnics;             /* 1 + largest nic used (at least 1) */
} ir_rank;

static inline const unsigned char *ir_rank_op(const ir_rank *r, uint32_t i)
{
	return r->ops + (uint64_t)i * IR_OP_BYTES;
}
/* Dependents of op i: edge indices [*b, *e). */
static inline void ir_rank_succ(const ir_rank *r, uint32_t i, uint32_t *b, uint32_t *e)
{
	*b = ir_op_succ_first(ir_rank_op(r, i));
	*e = i + 1 < r->nops ? ir_op_succ_first(ir_rank_op(r, i + 1)) : r->nedges;
}
static inline uint32_t ir_rank_edge(const ir_rank *r, uint32_t k) { return ir_get32(r->edges + (uint64_t)k * 4); }

typedef struct ir_sched_priv ir_sched_priv;

typedef struct ir_sched {
	uint32_t nranks;
	ir_rank *rank;         /* [nranks], indexed by rank number */
	uint64_t nops;         /* over all ranks */
	uint64_t nedges;
	int from_text;         /* compiled from GOAL text (labels may be available) */
	const struct ir_csched *compact; /* IR_SCHED_COMPACT: the simulator's form (ir_csched), else NULL */
	ir_sched_priv *priv;
} ir_sched;

enum {
	IR_SCHED_LABELS = 1, /* text input: keep the labels for messages (ir_sched_label) */
	IR_SCHED_COMPACT = 2, /* build the compact form (ir_csched) as each rank is validated; the
	                      * pages of a mapped binary file are let go behind it, so memory is
	                      * that of the compact form (rank pointers stay valid for versions 1
	                      * and 2: the pages are read again from the file if used; a version-3
	                      * file's ranks have ops and edges NULL: only the compact form holds
	                      * them, and nops, nedges, ncpus, nnics are set) */
	IR_SCHED_TILED = 4,  /* with IR_SCHED_COMPACT: tile every block of ranks that can be (ir_cs_gid) */
	IR_SCHED_RANK_MAJOR = 8 /* with IR_SCHED_COMPACT: never tile; neither flag: tile from
	                         * IR_CS_TILE_AUTO ranks up */
};

/* Load a schedule from `path` ("-": stdin): GOAL text or binary, plain or
 * compressed, detected by content. Binary input is fully validated
 * (formats/goalb.md) before it is returned. */
int ir_sched_load(ir_sched **out, const char *path, int flags, ir_err *e);
void ir_sched_free(ir_sched *s); /* NULL is a no-op */
/* The label op `op` of `rank` had in the text, or NULL (binary input, or no labels kept). */
const char *ir_sched_label(const ir_sched *s, uint32_t rank, uint32_t op);

/* ---- Streaming access (formats/goal.md, formats/goalb.md) ----
 *
 * Every consumer of schedules that must not hold the whole file (goalc, stats)
 * reads them through a sink: begin() once with num_ranks, then rank() once per
 * rank block (text) or section (binary), in file order. The ir_rank passed to
 * rank() and the labels are valid only during the call. Memory is that of the
 * largest rank, plus the label table of the rank being parsed.
 */
typedef struct ir_goal_parser ir_goal_parser;

typedef struct ir_goal_sink {
	void *ctx;
	/* version: the file's GOAL version (1 or 2) */
	int (*begin)(void *ctx, uint32_t num_ranks, unsigned version, ir_err *e);
	/* `p` is the text parser (for labels), NULL for binary input */
	int (*rank)(void *ctx, uint32_t rank, const ir_rank *r, const ir_goal_parser *p, ir_err *e);
} ir_goal_sink;

/* Parse GOAL text from `in` (an ir_reader from ir_io.h) into the sink. */
struct ir_reader;
int ir_goal_parse(struct ir_reader *in, const ir_goal_sink *sink, ir_err *e);
/* During rank(): the label of op `op` in the text, or NULL if it had none. */
const char *ir_goal_parser_label(const ir_goal_parser *p, uint32_t op);

/* Read `path` ("-": stdin), text or binary (detected by the magic number, any
 * compression), into the sink. Binary sections are validated one by one. */
int ir_goal_read(const char *path, const ir_goal_sink *sink, ir_err *e);

/* True if the bytes start with the GOAL binary magic number (needs 8 bytes). */
int ir_goalb_is_magic(const unsigned char *p, size_t n);

/* ---- GOAL binary writer: streams, so the output may be a pipe ---- */
typedef struct ir_goalb_writer ir_goalb_writer;
struct ir_writer;
/* The binary format versions (formats/goalb.md): 1 and 2 (2 = 1 with read and write
 * ops) have fixed 24-byte op records a reader can use in place; 3 has variable-length
 * ops and a table of attributes, at most 16 bytes per op, what goalc writes. */
#define IR_GOALB_FORMAT_FIXED 1
#define IR_GOALB_FORMAT_V3 3
#define IR_GOALB_FORMAT_DEFAULT IR_GOALB_FORMAT_V3
/* Writes the file header at once. ir_goalb_writer_new: format 1; ir_goalb_writer_new_v:
 * format `version` 1 or 2 (version 2 allows read and write ops); ir_goalb_writer_new_format:
 * a schedule of GOAL version `goal_version` (1, or 2 with read and write ops) in `format`
 * IR_GOALB_FORMAT_FIXED (written as 1 or 2 by goal_version) or IR_GOALB_FORMAT_V3. */
ir_goalb_writer *ir_goalb_writer_new(struct ir_writer *w, uint32_t num_ranks, ir_err *e);
ir_goalb_writer *ir_goalb_writer_new_v(struct ir_writer *w, uint32_t num_ranks, unsigned version, ir_err *e);
ir_goalb_writer *ir_goalb_writer_new_format(struct ir_writer *w, uint32_t num_ranks, unsigned goal_version,
                                            unsigned format, ir_err *e);
/* One rank's section; ranks in any order, each once. */
int ir_goalb_writer_rank(ir_goalb_writer *bw, uint32_t rank, const ir_rank *r, ir_err *e);
/* Checks every rank was written, writes index and trailer, frees bw (not w). */
int ir_goalb_writer_finish(ir_goalb_writer *bw, ir_err *e);
void ir_goalb_writer_free(ir_goalb_writer *bw); /* NULL is a no-op */

/* ---- GOAL binary reader over bytes in memory (zero-copy) ---- */
typedef struct ir_goalb ir_goalb;
/* Validates header, trailer, index and section headers (not section contents).
 * `data` must stay valid and 8-byte aligned while the ir_goalb is used. */
ir_goalb *ir_goalb_open(const unsigned char *data, size_t len, const char *name, ir_err *e);
void ir_goalb_free(ir_goalb *g);
uint32_t ir_goalb_num_ranks(const ir_goalb *g);
unsigned ir_goalb_version(const ir_goalb *g);      /* of the format: 1, 2 or 3 */
unsigned ir_goalb_goal_version(const ir_goalb *g); /* of the schedule: 1, or 2 (read and write ops) */
/* Rank number of the i-th section in file order. */
uint32_t ir_goalb_section_rank(const ir_goalb *g, uint32_t i);
/* Byte offset of the i-th section in file order (increasing with i). */
uint64_t ir_goalb_section_offset(const ir_goalb *g, uint32_t i);
/* nops and nedges over all sections as their headers say (checked against the file
 * size by ir_goalb_open, not yet validated). */
void ir_goalb_totals(const ir_goalb *g, uint64_t *nops, uint64_t *nedges);
/* ir_goalb_open on a blob (ir_io.h), letting go of the pages of a mapped file as the
 * walk over the section headers passes them (ir_blob_drop). */
struct ir_blob;
ir_goalb *ir_goalb_open_blob(const struct ir_blob *b, const char *name, ir_err *e);
/* Validate rank `rank`'s section fully (checksum, every op and edge, acyclic) and
 * point `out` into the data (versions 1 and 2), or into the reader's buffer, where
 * version 3's section is decoded to the records above: valid until the next call
 * or ir_goalb_free. */
int ir_goalb_rank(const ir_goalb *g, uint32_t rank, ir_rank *out, ir_err *e);

/* For IR_SCHED_COMPACT: validate rank `rank`'s section as ir_goalb_rank does and decode it
 * straight into the compact form c (version 3; no 24-byte records in between), `out` taking
 * its counts (ops and edges NULL). Returns 0; 1 when this path does not take the section
 * (versions 1 and 2, or anything wrong with it): ir_goalb_rank and ir_csched_add then give
 * the answer or the error; -1 with e filled. */
struct ir_csched;
int ir_goalb_rank_compact(const ir_goalb *g, uint32_t rank, struct ir_csched *c, ir_rank *out, ir_err *e);

/* ---- Canonical GOAL text (goalc -d) ---- */
int ir_goal_text_begin(struct ir_writer *w, uint32_t num_ranks, ir_err *e);
/* The same with `version 2` first when version is 2. */
int ir_goal_text_begin_v(struct ir_writer *w, uint32_t num_ranks, unsigned version, ir_err *e);
int ir_goal_text_rank(struct ir_writer *w, uint32_t rank, const ir_rank *r, ir_err *e);

/* ---- Statistics (goalc --stats) ---- */
typedef struct ir_goal_stats {
	uint32_t nranks;
	uint32_t ranks_seen;
	uint64_t nops, nsend, nrecv, ncalc;
	uint64_t recv_any_src, recv_any_tag;
	uint64_t nedges, nireq;
	uint64_t bytes_sent, bytes_recv, calc_ps;
	uint64_t max_ops; uint32_t max_ops_rank;
	uint32_t max_cpus, max_nics;
	uint64_t max_fanout; uint32_t max_fanout_rank, max_fanout_op;
	uint64_t max_fanin; uint32_t max_fanin_rank, max_fanin_op;
	uint64_t nroots;               /* ops without predecessors */
	uint32_t *priv_cnt;            /* scratch: predecessors per op */
	uint32_t priv_cap;
} ir_goal_stats;
void ir_goal_stats_init(ir_goal_stats *st, uint32_t num_ranks);
int ir_goal_stats_add(ir_goal_stats *st, uint32_t rank, const ir_rank *r, ir_err *e);
int ir_goal_stats_write(struct ir_writer *w, const ir_goal_stats *st, ir_err *e);
void ir_goal_stats_release(ir_goal_stats *st);

/* ---- The compact form: the simulator's in-memory schedule (lib/ir_goal_compact.c) ----
 *
 * The binary format's 24-byte records are read once, at loading, into 8 bytes
 * per op: a word naming the op's attributes and the index of its first
 * dependent. What ops share (type, cpu, nic, tag, size and the peer as a
 * distance from the op's own rank, modulo num_ranks) is stored once in a table
 * of attributes: a dissemination or a ring of a million ranks has a few dozen
 * of them. A calc of cpu 0 shorter than 2^31 ps needs no entry: its duration
 * is the word itself (IR_COP_INLINE). Ops of all ranks are numbered globally
 * (ir_cs_gid below: the rank's base + index, or interleaved in a tiled block),
 * and edges name global ids, so a walk over dependents needs nothing of the
 * rank. Memory: 8 bytes per op, 4 per edge, 4 per rank,
 * 24 per distinct attribute (at most one per op), and while building a hash
 * table of the attributes.
 */
#define IR_COP_INLINE ((uint32_t)0x80000000u)

typedef struct ir_csop {
	uint32_t a; /* IR_COP_INLINE | calc ps, or index into attr */
	uint32_t s; /* global index of the first dependent in edge; the op's are [s, next op's s) */
} ir_csop;

typedef struct ir_cattr {
	uint64_t size;
	uint32_t peer;          /* rel: (peer - rank) mod num_ranks; else the peer (IR_ANY, or 0 for calc) */
	uint32_t tag;
	uint8_t type, cpu, nic, rel;
	uint32_t pad;           /* 0 (entries are compared whole) */
} ir_cattr;

typedef struct ir_csched {
	uint32_t nranks;
	uint32_t nops;          /* below 2^31 */
	uint32_t nedges;        /* below 2^32 */
	ir_csop *op;             /* [nops + 1]: op[nops].s = nedges */
	uint32_t *edge;         /* [nedges] global id of the dependent | IR_EDGE_IREQ */
	uint32_t *base;         /* [nranks] global id of each rank's op 0, | IR_CS_TILED in a tile */
	ir_cattr *attr;
	uint32_t nattr;
	size_t attr_cap;
	uint32_t *priv_hash;    /* building: attribute slots + 1, 0 empty */
	size_t priv_hcap;
	uint32_t priv_ranks;    /* ranks added */
	uint32_t priv_cap_ops, priv_cap_edges; /* building: the room counted by init */
	uint32_t ntiled;        /* ranks whose ops lie in a tile */
	int tile;               /* building: lay blocks of IR_CS_TILE ranks out tiled (init: by nranks) */
	uint32_t priv_t_first, priv_t_n, priv_t_m, priv_t_g0, priv_t_e0; /* building: the block being added */
	void *priv_t_buf;       /* building: a block's ops and edges while they are tiled */
	size_t priv_t_cap;
} ir_csched;

/* The tiled layout (docs/design.md §7). Ops are numbered rank by rank, except in a block of
 * IR_CS_TILE consecutive ranks with as many ops each, added one after the other, when the
 * compact form is built with `tile` set: there op i of the block's rank j is the block's
 * record i * IR_CS_TILE + j, so the ops that ranks in step reach at one instant share cache
 * lines, and base[r] has IR_CS_TILED set. Edges lie in the order of the records in either
 * layout, so an op's dependents are always edge[op[g].s .. op[g + 1].s). init sets `tile`
 * when nranks >= IR_CS_TILE_AUTO: below that the ranks' own lines stay cached between two
 * visits and the rank-by-rank layout streams better. */
#define IR_CS_TILE_SHIFT 9
#define IR_CS_TILE (1u << IR_CS_TILE_SHIFT)
#define IR_CS_TILED 0x80000000u
#define IR_CS_TILE_AUTO 4096u
/* The global id of op i of the rank whose base word is b (c->base[rank]). */
static inline uint32_t ir_cs_gid(uint32_t b, uint32_t i)
{
	/* a branch, not a shift by a computed count: it costs nothing where the layout is one
	 * for all ranks (the common case: either few ranks or one program) */
	return __builtin_expect((b & IR_CS_TILED) != 0, 0) ? (b & ~IR_CS_TILED) + (i << IR_CS_TILE_SHIFT) : b + i;
}
/* The index in its rank of op g of the rank whose base word is b. */
static inline uint32_t ir_cs_index(uint32_t b, uint32_t g)
{
	return __builtin_expect((b & IR_CS_TILED) != 0, 0) ? (g - (b & ~IR_CS_TILED)) >> IR_CS_TILE_SHIFT : g - b;
}

/* The op as the engine uses it. */
typedef struct ir_dop {
	unsigned type, cpu, nic;
	uint32_t peer, tag;
	uint64_t size;
} ir_dop;

/* Room for `nops` ops and `nedges` edges over `nranks` ranks (exact: no growth later).
 * Fails when nops >= 2^31 or nedges >= 2^32. */
int ir_csched_init(ir_csched *c, uint32_t nranks, uint64_t nops, uint64_t nedges, ir_err *e);
/* Add rank `rank` (a validated ir_rank); ranks in any order, each once. */
int ir_csched_add(ir_csched *c, uint32_t rank, const ir_rank *r, ir_err *e);
/* For a decoder writing a rank's compact ops in place (lib/ir_goal_bin3.c): checks rank
 * `rank` may be added with nops and nedges (as ir_csched_add does) and sets *g0 and *e0,
 * where its ops (op[*g0 ..]) and edges (edge[*e0 ..], global ids) go; then
 * ir_csched_commit adds the rank. */
int ir_csched_reserve(ir_csched *c, uint32_t rank, uint32_t nops, uint32_t nedges, uint32_t *g0, uint32_t *e0,
                      ir_err *e);
void ir_csched_commit(ir_csched *c, uint32_t rank, uint32_t nops, uint32_t nedges);
/* The word ir_csop.a of an op with the attributes x (pad 0; with rel, peer a distance):
 * the inline calc, or the index of x in the table (added if new); UINT32_MAX when out
 * of memory. The ops of ir_csched_add get theirs the same way. */
uint32_t ir_csched_word(ir_csched *c, const ir_cattr *x);
/* After every rank was added: checks the counts, frees the build's hash table. */
int ir_csched_finish(ir_csched *c, ir_err *e);
void ir_csched_release(ir_csched *c);

static inline void ir_csched_op(const ir_csched *c, uint32_t rank, uint32_t g, ir_dop *o)
{
	uint32_t a = c->op[g].a;
	const ir_cattr *x;
	if (a & IR_COP_INLINE) {
		o->type = IR_OP_CALC;
		o->cpu = o->nic = 0;
		o->peer = o->tag = 0;
		o->size = a & ~IR_COP_INLINE;
		return;
	}
	x = &c->attr[a];
	o->type = x->type;
	o->cpu = x->cpu;
	o->nic = x->nic;
	o->tag = x->tag;
	o->size = x->size;
	if (x->rel) {
		uint32_t p = rank + x->peer; /* both below 2^31 */
		o->peer = p >= c->nranks ? p - c->nranks : p;
	} else {
		o->peer = x->peer;
	}
}
static inline unsigned ir_csched_type(const ir_csched *c, uint32_t g)
{
	uint32_t a = c->op[g].a;
	return (a & IR_COP_INLINE) ? IR_OP_CALC : c->attr[a].type;
}

/* Ranks of a loaded schedule in the order of the file (text blocks or binary sections). */
const uint32_t *ir_sched_order(const ir_sched *s);

#endif
