/*
 * ir_goal_stats.h: the traffic matrix and message-size histogram of a GOAL
 * schedule (goalc --matrix FILE, formats/matrix.md), for the heat maps and
 * histograms of pipelines/plot/. The summary statistics of the same module
 * (goalc --stats) are declared in ir_goal.h with the rest of the schedule API.
 *
 * Like everything that reads schedules, the matrix streams: ranks are added
 * one at a time in file order (an ir_goal_sink's rank() callback), the rows
 * of a sending rank are written as soon as it has been added, and only the
 * histogram (65 power-of-two bins) is kept to the end. Memory is that of the
 * largest rank's sends, never N x N.
 */
#ifndef IR_GOAL_STATS_H
#define IR_GOAL_STATS_H

#include <stdint.h>

#include "ir_err.h"
#include "ir_goal.h"
#include "ir_io.h"

#define IR_MATRIX_BINS 65 /* size 0, then [2^(k-1), 2^k - 1] for k = 1..64 */

typedef struct ir_goal_matrix {
	ir_writer *w;          /* not owned */
	uint32_t nranks;
	uint64_t msgs, bytes;  /* all sends so far */
	uint64_t pairs;        /* (src, dst) rows written */
	uint64_t hist_msgs[IR_MATRIX_BINS];
	uint64_t hist_bytes[IR_MATRIX_BINS];
	uint64_t *priv_scratch; /* (peer, size) pairs of the rank being added */
	uint64_t priv_cap;
} ir_goal_matrix;

/* The histogram bin of a message of `size` bytes: 0 for 0, else 1 + floor(log2 size). */
unsigned ir_goal_matrix_bin(uint64_t size);

/* Start the file on `w`: the header and the column names of the traffic section. */
int ir_goal_matrix_begin(ir_goal_matrix *m, ir_writer *w, uint32_t num_ranks, ir_err *e);
/* Add rank `rank`'s sends: one row per destination it sends to, ascending. */
int ir_goal_matrix_add(ir_goal_matrix *m, uint32_t rank, const ir_rank *r, ir_err *e);
/* Write the histogram section and the totals (does not close the writer). */
int ir_goal_matrix_finish(ir_goal_matrix *m, ir_err *e);
void ir_goal_matrix_release(ir_goal_matrix *m); /* frees the scratch; safe on a zeroed struct */

#endif
