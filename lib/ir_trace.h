/*
 * ir_trace.h: reading the per-rank MPI traces of one run (liballprof 0.9,
 * "collprof 0.9" and 1, and allprof's superset of that layout).
 *
 * Two parts. Discovery turns a directory or a list of files into one file per
 * MPI_COMM_WORLD rank: the rank comes from the file's base name through a
 * PCRE2 pattern (default: the last integer in the name), and the ranks must be
 * exactly 0..N-1, each once. The stream reader then delivers one rank's trace
 * record by record: calls with their argument fields split (not interpreted:
 * the meaning of an argument depends on the call, which is the converter's
 * business) and their call/return times in integer picoseconds, relative to
 * a common epoch and put on rank 0's clock; and allprof's `# comm` lines with
 * their member lists. A trace is never loaded whole: memory is one line.
 *
 * Clock correction (formats/trace.md section 2): t_rank0 = t_local + offset,
 * the offset (microseconds) interpolated linearly in local time between the
 * value measured at MPI_Init and the one measured at MPI_Finalize. The
 * Finalize value sits at the end of the file, so opening a trace looks there
 * first: a plain file's last 64 KiB are read directly; a compressed file is
 * scanned once (only lines that start with '#' or "MPI_Finalize" are looked
 * at); standard input cannot be scanned twice and uses the Init value alone.
 *
 * Times: liballprof writes microseconds since the epoch (16 digits; in
 * picoseconds that no longer fits 64 bits), so every time is returned as
 * signed picoseconds since `epoch_us`, which the caller chooses for the whole
 * set (ir_trace_epoch() gives the usual one: rank 0's MPI_Init return).
 *
 * Ownership: ir_trace_files is caller-owned (init by discovery, release);
 * ir_trace is opaque (open/free). A record's strings point into the reader's
 * line buffer and stay valid until the next ir_trace_next() call.
 */
#ifndef IR_TRACE_H
#define IR_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"

/* ---- discovery ---- */

#define IR_TRACE_DEFAULT_PATTERN "(\\d+)\\D*$"

typedef struct ir_trace_file {
	char *path;
	uint32_t rank;
	char *data; /* NULL: read the file at path; else the trace's text (an OTF2 archive's rank,
	             * ir_otf2.h), len bytes, path only names it in messages; freed on release */
	size_t len;
} ir_trace_file;

typedef struct ir_trace_files {
	ir_trace_file *f; /* sorted by rank; f[i].rank == i after a successful discovery */
	size_t n;
} ir_trace_files;

/* Each of args[0..nargs) is a directory (every non-hidden regular file in it
 * whose base name the pattern matches is a trace) or a file (its name must
 * match). The pattern's first capture group (or the whole match) is the rank.
 * pattern NULL: IR_TRACE_DEFAULT_PATTERN. Errors: no traces, a file name without
 * a rank, duplicate ranks, missing ranks, a bad pattern. */
int ir_trace_discover(ir_trace_files *out, char *const *args, size_t nargs, const char *pattern,
                      ir_err *e);
void ir_trace_files_release(ir_trace_files *f);

/* ---- one rank's stream ---- */

enum ir_trace_flavor {
	IR_TRACE_LIBALLPROF = 0, /* liballprof 0.9 / collprof 0.9 / 1 and anything unlabelled */
	IR_TRACE_ALLPROF = 1     /* first header line starts with "# allprof" */
};

enum ir_rec_kind {
	IR_REC_CALL = 1,
	IR_REC_COMM = 2 /* allprof: "# comm <id> <world rank>,<world rank>,..." */
};

#define IR_TRACE_MAXF 128    /* argument fields per call */
/* The largest rate at which two clocks drift apart (1,000 ppm: quartz clocks
 * drift by 100 ppm at most, NTP slews by 500 at most); a larger change between
 * a trace's Init and Finalize offsets is an error of measurement
 * (formats/trace.md §2, clock offsets). */
#define IR_TRACE_MAX_DRIFT 1e-3
#define IR_TIME_NONE INT64_MIN

typedef struct ir_rec {
	int kind;
	unsigned long line;
	/* IR_REC_CALL */
	const char *name;      /* "MPI_Send" (NUL-terminated) */
	int64_t t_call, t_ret; /* ps since the epoch on rank 0's clock; IR_TIME_NONE for '-' */
	int64_t cpu_call, cpu_ret; /* the thread's CPU time at the call and the return, ps (format
	                        * version 2, allprof --cpu-time); IR_TIME_NONE when the line has none */
	unsigned nf;           /* argument fields, between the call and the return time */
	int64_t tracer_ps;     /* the tracer's flushes in the gap before this call ("# flush:" lines
	                        * since the call before, formats/trace.md 3.8), ps; 0 when none */
	char *f[IR_TRACE_MAXF];
	/* IR_REC_COMM */
	uint64_t comm_id;
	const uint32_t *members;
	size_t nmembers;
} ir_rec;

typedef struct ir_trace_opts {
	int64_t epoch_us;  /* times are relative to this (integer microseconds since 1970) */
	int no_clock;      /* 1: do not apply clock offsets */
} ir_trace_opts;

typedef struct ir_trace ir_trace;

ir_trace *ir_trace_open(const char *path, const ir_trace_opts *o, ir_err *e);
/* Open a trace held in memory (fuzzing, tests); no tail scan unless the data is plain. */
ir_trace *ir_trace_open_mem(const void *data, size_t len, const char *name, const ir_trace_opts *o,
                            ir_err *e);
/* Open tf: its file, or its text when tf->data is set. */
ir_trace *ir_trace_open_file(const ir_trace_file *tf, const ir_trace_opts *o, ir_err *e);
void ir_trace_free(ir_trace *t); /* NULL is a no-op */

/* Next record: 1, 0 at the end of the trace, -1 on error (message "file:line: ...").
 * At the end of an allprof trace without its "# end" line: -1, "cut short". */
int ir_trace_next(ir_trace *t, ir_rec *r, ir_err *e);

const char *ir_trace_name(const ir_trace *t);
enum ir_trace_flavor ir_trace_flavor(const ir_trace *t);
/* 1 when the header read so far says "# span:" (allprof --span, formats/trace.md 3.7: only
 * MPI_Init and MPI_Finalize were recorded). */
int ir_trace_span(const ir_trace *t);
/* The tracer's mean own time after a call's return, ps, from the tail's "# tracer:" line
 * (formats/trace.md 3.8); -1 when the trace has none (or its data was not scanned). */
double ir_trace_self_ps(const ir_trace *t);
/* The header's "# collapse gap:" (formats/trace.md 3.2), ps: a collapsed line of polls has
 * no gap this long between two of its polls; 0 when the header has none (the lines read so far). */
int64_t ir_trace_collapse_gap_ps(const ir_trace *t);
/* Clock offsets read from the header and the tail, microseconds (0 when absent). */
double ir_trace_offset_init(const ir_trace *t);
double ir_trace_offset_fini(const ir_trace *t);
int ir_trace_has_fini_offset(const ir_trace *t);
/* The round trips of the clock exchanges at MPI_Init and MPI_Finalize ("# Init clockrtt:",
 * "# Finalize clockrtt:"), microseconds, -1 when absent: the machine's state at both ends of
 * the run (formats/trace.md §2; cmp-real --state-ref). Rank 0's are 0. */
double ir_trace_rtt_init(const ir_trace *t);
double ir_trace_rtt_fini(const ir_trace *t);
/* The usual epoch for a set: the integer microseconds of the first time in rank 0's trace
 * (its MPI_Init return), uncorrected; 0 if it has no timed call. */
int ir_trace_epoch(const char *rank0_path, int64_t *epoch_us, ir_err *e);
/* The same for a trace given as an ir_trace_file (its file or its text). */
int ir_trace_epoch_file(const ir_trace_file *rank0, int64_t *epoch_us, ir_err *e);

/* ---- field helpers for converters (all strict: the whole field must parse) ---- */

/* Decimal integer (sign allowed). */
int ir_tf_int(const char *f, int64_t *v);
/* Unsigned decimal (addresses, ids). "r17" is accepted with *is_id = 1 (allprof request ids). */
int ir_tf_handle(const char *f, uint64_t *v, int *is_id);
/* "<a>,<b>,<c>" integers (datatype id,size,extent; comm handle,rank,size; status src,tag,bytes). */
int ir_tf_triple(const char *f, int64_t *a, int64_t *b, int64_t *c);
/* Comma list of non-negative integers into v[0..max); returns the count or -1. */
long ir_tf_list(const char *f, uint64_t *v, size_t max);
/* Parse a time in microseconds ("1302767374554038", "1237666046950835.000000") relative to
 * epoch_us into picoseconds. Fractions beyond 6 digits are cut. */
int ir_tf_time(const char *f, size_t len, int64_t epoch_us, int64_t *ps);

#endif
