/*
 * ir_otf2.h: reading an OTF2 archive (Score-P and the tools built on it)
 * as the per-rank traces of one run.
 *
 * The reader does not convert OTF2 to GOAL itself: it turns each MPI rank's
 * event stream into the text of an allprof trace (formats/trace.md), held in
 * memory, so that trace2goal's whole conversion (collectives, --sync,
 * --durations, --from/--to, the checks across ranks) runs unchanged on it.
 * formats/trace.md section 7 gives the mapping: which events are read, the
 * fields OTF2 lacks (datatypes: every count is in MPI_BYTE; reduction
 * operations: SUM; buffers: 0) and the calls an archive cannot express,
 * which are counted and reported, never guessed.
 *
 * Costs: the text of every rank is held in memory at once (about 80 bytes
 * per MPI call), because OTF2 delivers a receive's source, tag and size only
 * at its completion while an allprof line names them at the MPI_Irecv; the
 * alternative, temporary files, would leave names of files the user never
 * gave in the messages. Times are exact: ticks become picoseconds since the
 * archive's global offset, written with six decimals of microseconds.
 */
#ifndef IR_OTF2_H
#define IR_OTF2_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_trace.h"

/* 1 if path names an OTF2 archive: a file whose name ends in ".otf2", or a directory holding
 * one (the first by name) and no allprof text traces (rank-*.trace*: `allprof --format both`
 * leaves both, and the text is the fuller record); *anchor is then the malloc'd path of the
 * anchor file. Else 0. */
int ir_otf2_detect(const char *path, char **anchor);

typedef struct ir_otf2_stats {
	uint64_t ranks, events, calls;
	/* calls the reader did not convert, by MPI function, in order of first sight */
	struct ir_otf2_skip { char *name; uint64_t count; } *skipped;
	size_t nskipped;
} ir_otf2_stats;

void ir_otf2_stats_release(ir_otf2_stats *st);

/* Read the archive with anchor file `anchor` into out (one ir_trace_file per MPI rank, each
 * with its allprof text in data/len; path "<anchor>[rank N]"). Errors: "<anchor>: message". */
int ir_otf2_load(ir_trace_files *out, const char *anchor, ir_otf2_stats *st, ir_err *e);

/* libotf2 prints its errors on stderr unless told otherwise: after this call it reports them to
 * the library, which keeps the last one for its messages (every function here calls it). */
void ir_otf2_quiet_errors(void);
/* 1 if dir/<name>.otf2 or dir/<name> exists (libotf2 will not write an archive over them). */
int ir_otf2_archive_exists(const char *dir, const char *name);

/* Write the allprof traces `files` as the OTF2 archive dir/<name>.otf2 (with dir/<name>.def and
 * dir/<name>/), times with the traces' clock corrections unless no_clock (formats/trace.md
 * section 7.2). The archive must not exist. Errors: "file:line: message" for a trace. */
int ir_otf2_write(const ir_trace_files *files, const char *dir, const char *name, int no_clock, ir_err *e);

#endif
