/*
 * ir_coll.h: MPI collectives as point-to-point algorithms, one rank at a time.
 *
 * A converter that replays a trace sees each collective from one rank's side
 * and must emit exactly the messages this rank sends and receives under a
 * chosen algorithm, such that the programs of all ranks match message for
 * message. ir_coll_build() writes that rank's part as a small task graph
 * (ir_cg): sends, receives and calcs in the collective's communicator's
 * ranks, and "requires" edges inside the collective that always point from an
 * earlier op to a later one (so the graph is acyclic by construction). The
 * converter maps peers to world ranks, tags the messages and links the graph
 * into the rank's chain.
 *
 * All messages of one collective call carry one tag, so two messages between
 * the same pair in the same direction are always emitted in the same order on
 * both sides, and repeated receives from one peer are chained (ring, chain).
 *
 * Sizes (bytes) per kind, in ir_coll_args:
 *   barrier                      none (1-byte messages)
 *   bcast reduce allreduce scan exscan   s = count * type size
 *   allgather alltoall gather scatter    s = one rank's block
 *   allgatherv reduce_scatter(_block)    block[i] = rank i's block, known on every rank
 *   gatherv (root) scatterv (root)       block[i] = rank i's block; other ranks: s
 *   alltoallv alltoallw                  sblock[i] sent to i, rblock[i] received from i
 * Zero-byte blocks of the v-variants send no message (both sides agree).
 *
 * Local work (ir_coll_args.copy and .reduce, piecewise functions of the size
 * from ir_model.h; NULL: none, and the graph is exactly the one without them)
 * becomes IR_OP_CALC ops whose size is the time in picoseconds:
 *   - copy: the copy of a rank's own block, which no message carries: in
 *     alltoall(v/w) (its own block, sblock[r]), allgather(v) (its own block)
 *     and at the root of gather(v) and scatter(v) (the root's block), priced
 *     copy(bytes) (the converter passes coll_copy when the parameters have it,
 *     else copy: ir_model.h), as op 0 with no dependency (MPI libraries copy first and
 *     nothing waits for it but the end of the call). A zero-byte block costs
 *     nothing (no op). The converter passes no copy for a call in place.
 *   - reduce: every time the algorithm combines a received contribution of b
 *     bytes with local data, a calc of reduce(b) right after that receive,
 *     required by whatever needs the combined data (the next send of it, or
 *     the end of the call). Binomial and linear reduce: after each receive,
 *     chained (one accumulator), the send to the parent requires the last one;
 *     recursive doubling allreduce: after the pre-phase receive and after
 *     each exchange, the next exchange (send and receive) requires it;
 *     dissemination allreduce: after each receive, the next send requires it;
 *     ring allreduce and ring reduce_scatter: after each receive of the
 *     reduce-scatter phase, the next send (which forwards the combined block)
 *     requires it, the allgather phase starts after the last one;
 *     reduce_bcast and reduce_scatterv: the binomial reduce's, the broadcast
 *     or scatter at the root requires the last combine, or every receive when
 *     combining is not modelled; linear scan: after the
 *     receive from r-1, the send to r+1 requires it (exscan: only on ranks
 *     that forward, the last rank's result is the received data as is);
 *     recursive doubling scan and exscan: after each receive, the next send
 *     requires it. Combining zero bytes costs nothing (no op).
 * Only the kinds above use the functions; the others ignore them.
 *
 * Communicator creation (comm_create: Comm_dup, Comm_dup_with_info, Comm_create; comm_split:
 * Comm_split, Comm_split_type) is collective over the parent communicator: the members agree
 * on a context id. Algorithms, each phase requiring the previous one's last ops:
 *   ompi   Open MPI 4.1 (ompi_comm_nextcid, ompi_comm_activate): comm_split first gathers
 *          every rank's (color, key), an allgather of 8 bytes per rank (ring); then three
 *          allreduces of 4 bytes through coll/libnbc (binomial reduce to rank 0 + broadcast,
 *          reduce_bcast): the proposed id (MAX), the agreement (MIN), the activation.
 *   mpich  MPICH (MPIR_Get_contextid_sparse): the same allgather for comm_split, then one
 *          allreduce of the 256-byte context mask (recursive doubling).
 *   local  no messages: the call's time stays computation (trace2goal before this model).
 * No local work (the combines of 4-byte ids are left out).
 */
#ifndef IR_COLL_H
#define IR_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_model.h"

enum ir_coll_kind {
	IR_COLL_BARRIER,
	IR_COLL_BCAST,
	IR_COLL_REDUCE,
	IR_COLL_ALLREDUCE,
	IR_COLL_ALLGATHER,
	IR_COLL_ALLGATHERV,
	IR_COLL_ALLTOALL,
	IR_COLL_ALLTOALLV, /* also alltoallw */
	IR_COLL_GATHER,
	IR_COLL_GATHERV,
	IR_COLL_SCATTER,
	IR_COLL_SCATTERV,
	IR_COLL_REDUCE_SCATTER,
	IR_COLL_REDUCE_SCATTER_BLOCK,
	IR_COLL_SCAN,
	IR_COLL_EXSCAN,
	IR_COLL_COMM_CREATE, /* MPI_Comm_dup, _dup_with_info, _create: agreeing on the new context id */
	IR_COLL_COMM_SPLIT,  /* MPI_Comm_split, _split_type: exchanging (color, key), then the above */
	IR_COLL_NKINDS
};

/* A selection names a kind and whether the call is blocking: sel = kind for the blocking
 * collective, kind + IR_COLL_NKINDS for its nonblocking form ("iallreduce"). MPI libraries
 * implement the two with different algorithms (Open MPI: coll/tuned and coll/libnbc). */
#define IR_COLL_NSEL (2 * IR_COLL_NKINDS)

enum ir_coll_alg {
	IR_ALG_DEFAULT = 0, /* the kind's default (ir_coll_default) */
	IR_ALG_LINEAR,
	IR_ALG_BINOMIAL,
	IR_ALG_DISSEMINATION,
	IR_ALG_RECDOUB,
	IR_ALG_RING,
	IR_ALG_BRUCK,
	IR_ALG_CHAIN,
	IR_ALG_PAIRWISE,
	IR_ALG_REDUCE_BCAST,
	IR_ALG_REDUCE_SCATTERV,
	IR_ALG_OMPI,  /* communicator creation as Open MPI 4.1 does it */
	IR_ALG_MPICH, /* ... as MPICH does it */
	IR_ALG_LOCAL, /* ... as local work (no messages) */
	IR_ALG_NALGS
};

/* One op of a rank's part of a collective. type is IR_OP_SEND/RECV/CALC (ir_goal.h). */
typedef struct ir_cop {
	uint8_t type;
	uint32_t peer; /* rank in the communicator */
	uint64_t size; /* bytes (calc: picoseconds) */
} ir_cop;

typedef struct ir_cdep {
	uint32_t from, to; /* op `to` requires op `from`; from < to */
} ir_cdep;

typedef struct ir_cg {
	ir_cop *op;
	size_t nop, capop;
	ir_cdep *dep;
	size_t ndep, capdep;
} ir_cg;

void ir_cg_init(ir_cg *g);
void ir_cg_release(ir_cg *g);
void ir_cg_reset(ir_cg *g);

typedef struct ir_coll_args {
	uint32_t p, r, root;
	uint64_t s;
	const uint64_t *block;  /* [p] */
	const uint64_t *sblock; /* [p] alltoallv */
	const uint64_t *rblock; /* [p] alltoallv */
	const ir_pw *copy;      /* the copy of the own block (NULL: not modelled) */
	const ir_pw *reduce;    /* combining received data (NULL: not modelled) */
} ir_coll_args;

/* Rank r's part of collective `kind` under `alg` (IR_ALG_DEFAULT: the default). The graph is
 * reset first. Errors: algorithm not available for the kind, missing block arrays,
 * r or root >= p, out of memory. */
int ir_coll_build(ir_cg *g, enum ir_coll_kind kind, enum ir_coll_alg alg, const ir_coll_args *a,
                  ir_err *e);

enum ir_coll_alg ir_coll_default(enum ir_coll_kind kind);
/* The algorithm Open MPI 4.1's coll/libnbc picks for the nonblocking form of `kind` on p ranks,
 * s bytes per rank (the kind's block size of ir_coll_args), in_place: the call is MPI_IN_PLACE
 * (docs/trace2goal.md, "Collectives"). */
enum ir_coll_alg ir_coll_default_nb(enum ir_coll_kind kind, uint32_t p, uint64_t s, int in_place);
/* 1 if `kind` has a nonblocking form that --coll can select (not communicator creation). */
int ir_coll_has_nb(enum ir_coll_kind kind);
/* 1 if `alg` is implemented for `kind`. */
int ir_coll_has(enum ir_coll_kind kind, enum ir_coll_alg alg);
const char *ir_coll_kind_name(enum ir_coll_kind kind); /* "allreduce" */
const char *ir_coll_alg_name(enum ir_coll_alg alg);    /* "ring" */
int ir_coll_kind_parse(const char *name, size_t len);  /* -1 if unknown */
int ir_coll_alg_parse(const char *name, size_t len);   /* -1 if unknown */
/* "allreduce=ring,bcast=binomial,iallreduce=recdoub": sets algs[sel] (a name with a leading
 * "i" selects the nonblocking form); errors name the bad item and list the algorithms the
 * collective has. */
int ir_coll_parse_spec(const char *spec, enum ir_coll_alg algs[IR_COLL_NSEL], ir_err *e);

#endif
