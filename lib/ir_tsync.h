/*
 * ir_tsync.h: zero-cost replay times for trace2goal --sync.
 *
 * --sync replays a call's duration from the moment the ranks it waits for
 * had all arrived, so it needs, for every receive, wait and collective, the
 * time at which a replay on a network that costs nothing would complete it,
 * given that every rank enters its calls at their real (clock-corrected)
 * entry times. That time is a max over a small dataflow graph that spans
 * ranks: an op is posted at max(its call's entry, the completion of the ops
 * it requires inside the call); an eager send completes when posted; a
 * receive completes at max(its post, the post of the send it matches); a
 * rendezvous send completes at max(its post, the post of the receive that
 * matches it) (docs/loggops-semantics.md section 4: the sender is released
 * when the receive is posted). With the model's costs (ir_ts_send_cost) a
 * receive waits for the arrival of its message, not the send's post, and a
 * rendezvous send for the handling of its message (docs/trace2goal.md
 * section 9).
 *
 * Nodes: each node has a time (the max of its floor and of its inputs' times)
 * and resolves when its last input has resolved and its creator released it;
 * then a callback (for nodes marked with ir_ts_notify) reports the time, so
 * the converter can write the calc whose length depends on it. Nodes are
 * reference counted (the creator's reference, each input's reference to its
 * waiting dependents, channel entries, and whatever the caller takes with
 * ir_ts_ref) and recycled when the count drops to zero, so memory is bounded
 * by what is in flight, not by the trace length.
 *
 * Channels match sends and receives point to point in posting order per
 * (source, destination, tag), as MPI's non-overtaking rule and ibsim's queues
 * do. Resolution is iterative (a work stack), so long chains that resolve at
 * once do not recurse.
 *
 * Not modelled: ibsim handles an arriving message only when the receiving
 * CPU is free, so an op that waits for a receive inside a nonblocking call
 * (inner steps of nonblocking collectives, the release of a rendezvous
 * sender) can run later there, at the latest when the rank blocks in the
 * call completing the request; a replay can therefore end later than the
 * model says, by at most the sum over such calls of the largest (completing
 * call's entry - starting call's entry) among the ranks involved
 * (tests/t4006-trace2goal-recorded.sh derives and checks the bound). Exact
 * agreement would need each rank's calc boundaries and ibsim's event order.
 *
 * Ownership: ir_ts is opaque (ir_ts_new / ir_ts_free). Errors: running out of
 * memory (functions return -1; the engine is then unusable) and a failing
 * callback: the first callback that returns -1 stops all later callbacks, and
 * ir_ts_error() then reports its message (as ferror does for a stream), so
 * callers check it after the calls that may resolve nodes.
 */
#ifndef IR_TSYNC_H
#define IR_TSYNC_H

#include <stdint.h>

#include "ir_err.h"

typedef struct ir_ts ir_ts;
typedef uint32_t ir_tn; /* node handle; 0 = none */

/* on_done(ctx, time, user0, user1, e) for every notified node when it resolves; returns 0,
 * or -1 with e filled (ir_ts_error). */
typedef int (*ir_ts_done_fn)(void *ctx, int64_t t, uint64_t user0, uint64_t user1, ir_err *e);

ir_ts *ir_ts_new(ir_ts_done_fn fn, void *ctx);
/* -1 and the first failing callback's message in e (if not NULL) once a callback failed;
 * 0 otherwise. */
int ir_ts_error(const ir_ts *s, ir_err *e);
void ir_ts_free(ir_ts *s); /* NULL is a no-op */

/* A new open node with time `floor`: the caller holds one reference and the
 * open hold; it cannot resolve before ir_ts_release(). 0 when out of memory. */
ir_tn ir_ts_node(ir_ts *s, int64_t floor);
/* n waits for `in` (n must not be resolved yet). */
int ir_ts_input(ir_ts *s, ir_tn n, ir_tn in);
/* n waits for `in`'s time plus d (through a delay node of its own when d != 0). */
int ir_ts_input_after(ir_ts *s, ir_tn n, ir_tn in, int64_t d);
/* Report n's time through the callback when it resolves (now, if it already has). */
void ir_ts_notify(ir_ts *s, ir_tn n, uint64_t user0, uint64_t user1);
/* Add / drop a hold that keeps n open. Releasing the last one resolves n once its inputs have. */
void ir_ts_hold(ir_ts *s, ir_tn n);
void ir_ts_release(ir_ts *s, ir_tn n);
void ir_ts_ref(ir_ts *s, ir_tn n);
void ir_ts_unref(ir_ts *s, ir_tn n);
int ir_ts_resolved(const ir_ts *s, ir_tn n);
int64_t ir_ts_time(const ir_ts *s, ir_tn n); /* the final time once resolved */

/* Channels. `src`, `dst` world ranks, `tag` the GOAL tag. A send gives its post node and its
 * done node: for an eager send done == post; for a rendezvous send done is a separate open
 * node whose open hold the channel releases at the match (after adding the receive's post as
 * its input). A receive gives its post node and an open done node handled the same way. */
int ir_ts_send(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done);
int ir_ts_recv(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done);
/* A send on a network that costs time (trace2goal --sync priced by the model, ir_model.h):
 * the matching receive's done waits for post + d_arr (the message's arrival); a rendezvous
 * send's done (done != post) waits for post + d_done and for the receive's post + d_rpost
 * (delays may be negative: a node's time is then its input's minus the amount). All three
 * 0 is ir_ts_send, the zero-cost rule. */
int ir_ts_send_cost(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done, int64_t d_arr,
                    int64_t d_done, int64_t d_rpost);
/* The floor of a node that only its inputs place in time. */
#define IR_TS_NEVER (INT64_MIN / 4)

/* Release every entry still waiting in a channel (unmatched messages: their done nodes resolve
 * without a partner). Returns how many there were. */
uint64_t ir_ts_finish(ir_ts *s);

/* Nodes alive (for tests: everything released and dropped leaves 0). */
uint64_t ir_ts_live(const ir_ts *s);

#endif
