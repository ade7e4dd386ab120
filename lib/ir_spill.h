/*
 * ir_spill.h: the largest arrays of a run in files instead of anonymous memory, so that a
 * schedule larger than memory runs (ibsim --spill DIR; docs/design.md section 8).
 *
 * What goes there: the schedule's compact form (8 bytes per op, 4 per dependency, 4 per
 * rank: ir_goal_compact.c) and the engine's arrays per op (its state, and where asked
 * for its earliest start, pending receives and numbers for people: ir_engine.c), 12 to 24
 * bytes per op of the 13 to 18 a LogGOPS run holds per op. Each such array is a mapping
 * of its own file (MAP_SHARED), unlinked at once, in the directory named; the kernel
 * writes its pages back and drops them under memory pressure as it does for any file,
 * and reads them again on the next touch. Nothing else changes: the results are the same
 * to the byte. The engine reaches the ops of one round of a collective together, so a
 * schedule in the tiled layout (docs/design.md section 7), whose ops of one round lie
 * side by side, reads its pages nearly in order; a rank-by-rank layout at many ranks
 * touches a page per rank and round.
 *
 * The directory is one setting for the process (ir_spill_dir), as an allocator is: tools
 * set it from an option before they load a schedule; the library's default is none
 * (ir_spill_alloc is calloc). Arrays below IR_SPILL_MIN bytes stay in memory, as do all
 * when IR_SPILL_MAX mappings are in use.
 */
#ifndef IR_SPILL_H
#define IR_SPILL_H

#include <stddef.h>

#include "ir_err.h"

#define IR_SPILL_MIN ((size_t)1 << 20)
#define IR_SPILL_MAX 32

/* Put large arrays under dir from now on (NULL: in memory). Checks that a file can be made
 * there: -1 with a message naming dir and the reason otherwise. */
int ir_spill_dir(const char *dir, ir_err *e);
/* n * size bytes, zeroed; NULL (e set, naming `what`) when it cannot be had. */
void *ir_spill_calloc(size_t n, size_t size, const char *what, ir_err *e);
void ir_spill_free(void *p); /* NULL is a no-op */
/* Bytes now mapped from files (for --stats). */
size_t ir_spill_bytes(void);

#endif
