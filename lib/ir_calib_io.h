/*
 * ir_calib_io.h: the storage model's disk and cache parameters fitted to a traced I/O
 * benchmark (`calib --io`; formats/calibration.md §"Storage: iocal" is the contract with
 * samples/apps/iocal.c, docs/storage.md the model, formats/params.md the keys).
 *
 * iocal marks each timed access with MPI_Pcontrol(3100 + phase); this module reads rank 0's
 * trace of one or more runs (pooled), takes per phase and size the duration of every
 * access (for the synced phases: from the write_at's call to the return of the
 * MPI_File_sync after it), their median and quartiles, fits one line base + perbyte * size
 * per phase with the same weighted least squares as the network terms (ir_calib_segments,
 * one segment, weights 1/y^2, 95 % confidence half-widths), and derives the keys:
 *
 *   cache_G          the slope of phase 1 (write into the page cache)
 *   disk_G           slope of phase 3 (write + sync, sequential) minus cache_G
 *   disk_sync        base of phase 3 minus base of phase 1 (what a flush costs)
 *   disk_track_seek  base of phase 4 (64 KiB jump) minus base of phase 3
 *   disk_access      base of phase 5 (random offset) minus base of phase 3
 *   disk_read_G      the slopes of phases 6 and 7 (reads from the disk), their mean
 *                    weighted by the inverse squares of their half-widths
 *
 * each with the root of the sum of the squared half-widths of its two terms; a difference
 * below 0 is written as 0. disk_rotation, disk_track and server_cache are not identified
 * by these measurements (the parameter file says why); the bases of the read phases are
 * written as comments.
 *
 * Why a module of its own and not more of ir_calib.c: the network calibration reads
 * message tags of two ranks, this one Pcontrol levels and file calls of one; they share
 * only the line fit, which ir_calib.h exports.
 */
#ifndef IR_CALIB_IO_H
#define IR_CALIB_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ir_calib.h"
#include "ir_err.h"
#include "ir_strbuf.h"

#define IR_CIO_LEVEL 3100 /* MPI_Pcontrol(3100 + phase) */
#define IR_CIO_PHASES 7
#define IR_CIO_MAXSIZES 64

enum ir_cio_phase { IR_CIO_WRITE, IR_CIO_HOT_READ, IR_CIO_SEQ_SYNC, IR_CIO_NEAR_SYNC, IR_CIO_FAR_SYNC,
	            IR_CIO_SEQ_READ, IR_CIO_FAR_READ };
extern const char *const ir_cio_phase_names[IR_CIO_PHASES];

typedef struct ir_cio_series {
	double *v;    /* samples, ps */
	size_t n, cap;
	double med, q1, q3;
} ir_cio_series;

typedef struct ir_cio_key {
	const char *key;
	int have;      /* fitted (else: not identified, `why` says) */
	double value;  /* ps or ps per byte */
	double ci;     /* 95 % half-width; < 0: not determined */
	int clamped;   /* the difference was below 0 and is written as 0 */
} ir_cio_key;

typedef struct ir_calib_io {
	size_t nruns;
	size_t nsizes;
	uint64_t size[IR_CIO_MAXSIZES];                 /* sorted */
	ir_cio_series s[IR_CIO_PHASES][IR_CIO_MAXSIZES];
	int fitted[IR_CIO_PHASES];
	ir_calib_pwfit fit[IR_CIO_PHASES];              /* one segment each */
	ir_cio_key cache_G, disk_G, disk_sync, disk_track_seek, disk_access, disk_read_G;
} ir_calib_io;

void ir_calib_io_init(ir_calib_io *c);
void ir_calib_io_release(ir_calib_io *c);
/* Read rank 0's trace of each run: dirs[i] is a directory of one run's traces (or a trace
 * file). Errors: not iocal's traces (no marked access), bad fields (file:line). */
int ir_calib_io_read(ir_calib_io *c, char *const *dirs, size_t n, ir_err *e);
/* Medians, lines, keys. A phase with fewer than 2 sizes is not fitted. */
int ir_calib_io_fit(ir_calib_io *c, ir_err *e);
/* The parameter file (formats/params.md keys, formats/calibration.md comments). */
int ir_calib_io_write(const ir_calib_io *c, ir_sb *out);
/* The table of medians for people (calib's standard error). */
int ir_calib_io_table(const ir_calib_io *c, ir_sb *out);

#endif
