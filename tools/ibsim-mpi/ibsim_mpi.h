/*
 * ibsim_mpi.h: what tools/ibsim/ibsim.c, compiled with -DIBSIM_MPI into
 * bin/ibsim-mpi, calls of the MPI side (ibsim_mpi.c). One source for the
 * options, the parameters and the results of both programs, so that they
 * cannot drift apart; only this side links MPI, so plain ibsim does not.
 */
#ifndef IBSIM_MPI_H
#define IBSIM_MPI_H

#include <stdint.h>

#include "ir_engine.h"
#include "ir_goal.h"
#include "ir_net_ib.h"
#include "ir_par.h"

typedef struct par_result {
	uint64_t *end, *calc, *msgs, *bytes; /* [nranks], on process 0 */
	ir_engine_stats st;                  /* over every process; oversize: the first by key */
	ir_par_plan plan;
	uint64_t windows, sent;
	double wall;                         /* the slowest process's simulation */
	uint32_t nprocs;
	int local_rc;                        /* 1: this process's ranks cannot finish */
	ir_ib_stats fab;                     /* --net ib: the fabric's, over every process */
	int has_fab;
	uint64_t cut_links;                  /* --net ib: link directions between processes */
} par_result;

/* --net ib (docs/ib-model.md section 13): the network's configuration (par_run gives it the
 * partition before the engine builds the fabric) and where the engine's instance is kept. */
typedef struct par_fabric {
	ir_ib_cfg *cfg;
	ir_ib **inst;
} par_fabric;

uint32_t par_me(void);
uint32_t par_nprocs(void);
/* Standard error of every process but 0 is silent while options and the schedule are read
 * (every process would say the same); par_loud() gives it back for the run. */
void par_loud(void);
/* Plan, run and gather: 0, 1 (some process's ranks cannot finish: *en holds this
 * process's engine for its report), -1 (this process failed: message in e). */
int par_run(const ir_sched *s, ir_engine_cfg *cfg, const double *weights, uint32_t host_ranks, const par_fabric *fab,
            ir_engine **en, par_result *res, ir_err *e);
void par_result_release(par_result *res);
/* This process failed alone: end every process with this status. */
void par_abort(int status);

#endif
