/*
 * ir_node.h: the node model of ibsim's engine: hosts with a number of cores shared by
 * their ranks, computation scaled by a factor, noise from a file of detours and a seeded
 * random perturbation of every calc (docs/loggops-semantics.md section 8 specifies the
 * rules; formats/params.md the keys; formats/noise.md the noise files).
 *
 * This module holds what is parsed (the keys, the noise files) and the per-host detour
 * lists the engine looks up; the rules themselves run in lib/ir_engine.c, which applies
 * them only when ir_node_active() says one of them is in effect, so a run without them
 * pays nothing per event.
 */
#ifndef IR_NODE_H
#define IR_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_io.h"

struct ir_params;

/* What a rank blocked in MPI does with its core. */
enum ir_cpu_wait { IR_WAIT_SPIN = 0, IR_WAIT_BLOCK = 1 };

/* A detour: the host's cores do no work of its ranks on [start, end). */
typedef struct ir_detour {
	uint64_t start, end;
} ir_detour;

/* A parsed noise file: detours by sections, each for a range of hosts. */
typedef struct ir_noise_sec {
	uint64_t lo, hi; /* hosts, inclusive */
	size_t first, n; /* its detours in d[] */
} ir_noise_sec;

typedef struct ir_noise {
	ir_detour *d;
	size_t nd, capd;
	ir_noise_sec *sec;
	size_t nsec, capsec;
} ir_noise;

#define IR_NOISE_SECTIONS_MAX 65536 /* host lines in one file */

void ir_noise_init(ir_noise *nz);
void ir_noise_release(ir_noise *nz);
/* Read a noise file: ibreplay's format, or LogGOPSim's (`loggopsim`: "<start>\t<duration>"
 * in nanoseconds, one list for every host). Errors: "file:line: message". */
int ir_noise_read(ir_noise *nz, ir_reader *r, int loggopsim, ir_err *e);
int ir_noise_load(ir_noise *nz, const char *path, int loggopsim, ir_err *e);
/* The detours of host h, sorted, overlapping ones merged, empty ones dropped, in a new
 * array (*out NULL when there are none). */
int ir_noise_host(const ir_noise *nz, uint64_t h, ir_detour **out, size_t *n, ir_err *e);

typedef struct ir_node_cfg {
	uint32_t cores;          /* cores per host; 0: as many as ranks (no sharing) */
	uint32_t ranks_per_host; /* ranks h*P .. h*P+P-1 are host h */
	int ranks_per_host_set;  /* given: it wins over the network's placement */
	int wait;                /* enum ir_cpu_wait */
	int bind;                /* block: a rank runs only on core (position mod cores) */
	uint64_t quantum;        /* round-robin time slice, ps */
	uint64_t yield;          /* block: one waiting rank's turn on a core (a context switch and
	                          * a poll); waking a rank of a shared host costs (n-k)/k of them */
	uint64_t wake;           /* block: and, on top of those turns, this much per wake-up */
	double cpu_scale;        /* every calc takes this factor as long */
	double perturb;          /* A: each calc times a factor uniform on [1-A, 1+A) */
	uint64_t seed;           /* of the perturbation */
	const char *noise;       /* noise file (formats/noise.md), or NULL */
	int noise_loggopsim;     /* it is in LogGOPSim's format */
	const ir_noise *nz;      /* the parsed file, set by the caller; NULL: none */
} ir_node_cfg;

/* No cores limit, one rank per host, block, quantum 4 ms, scale 1, no noise, seed 1. */
void ir_node_defaults(ir_node_cfg *c);
/* Defaults, then the keys of the set (ir_node_keys); errors name the origin of the value.
 * Does not read the noise file (c->noise names it). */
int ir_node_load(ir_node_cfg *c, const struct ir_params *ps, ir_err *e);
extern const char *const ir_node_keys[];
/* Some rule of the node model changes the run of `nranks` ranks. */
int ir_node_active(const ir_node_cfg *c, uint32_t nranks);
/* Some host of `nranks` ranks has more ranks than cores, with ranks_per_host (a
 * network's placement may put more ranks on one host: the engine looks at that). */
int ir_node_shared(const ir_node_cfg *c, uint32_t nranks);

/* The perturbation factor of op `op` of rank `rank`: 1 - A + 2*A*u with u uniform on [0, 1)
 * from splitmix64 of (seed, rank, op); 1 when A = 0. */
double ir_node_factor(const ir_node_cfg *c, uint32_t rank, uint32_t op);
/* A 64-bit draw for (seed, rank, op, salt): splitmix64 of them, as the perturbation's (salt 0
 * gives the perturbation's own); the spread of a message's costs draws with (sender, its send
 * op, IR_DRAW_SEND or IR_DRAW_RECV) (formats/params.md, "The spread of a call's cost"). */
enum { IR_DRAW_SEND = 1, IR_DRAW_RECV = 2 };
uint64_t ir_node_draw(const ir_node_cfg *c, uint32_t rank, uint32_t op, uint32_t salt);

#endif
