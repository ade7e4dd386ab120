/*
 * ir_net.h: the interface between the LogGOPS engine (ir_engine.c) and a
 * network model (ir_net_loggops.c, the InfiniBand model ir_net_ib*.c), and
 * the registry through which tools find a network by name (end of file).
 *
 * The engine owns everything that happens on ranks: CPUs and NIC gaps,
 * readiness, put-backs, matching and the rendezvous protocol. A network owns
 * only the path of a message from the sender's NIC to the receiver: the
 * engine hands it a message when its send starts, and the network tells the
 * engine, sooner or later, at what time the message has arrived. Nothing else
 * crosses this line, so a new network plugs in without touching the engine.
 *
 * Contract (what a network may rely on, and what it must do):
 *
 *  1. init() is called once, before the run, with the rank count and the
 *     LogGOPS parameters; `arg` is the network's own configuration (the tool
 *     parses it; the engine passes it through untouched). init() stores the
 *     engine pointer if it needs the services below.
 *  2. inject(msg, m, t) is called while the engine processes the event at
 *     time t that starts a send. `msg` is the engine's handle of the message;
 *     `m` describes it (valid only during the call). The network must, during
 *     this call or later, call ir_engine_deliver(en, msg, t_arrive) exactly
 *     once, with t_arrive >= the engine's current time. The time is the one at
 *     which the receiver may start charging the message (LogGOPS: t + o + L).
 *  3. A network with internal events (packets, credits) asks the engine to
 *     call it back with ir_engine_call_at(en, t, cookie), t >= now. The engine
 *     calls wakeup(t, cookie) when the simulation reaches that time. Callbacks
 *     and the engine's own events form one queue ordered by (time, sequence
 *     number): an item's sequence number is given when it is queued, so items
 *     at equal times run in the order they were queued, whoever queued them.
 *     From inside wakeup() the network may deliver messages and queue further
 *     callbacks (at the current time or later).
 *  4. ir_engine_deliver() and ir_engine_call_at() may be called only from
 *     inside inject() or wakeup() (that is, while the engine runs).
 *  5. A callback returning -1 (with `e` filled) stops the run with that error.
 *  6. `flags`: IR_NET_MODELS_BYTES means the network itself models the time
 *     the bytes take on the wire, so the receiver is charged o + s1*O on its
 *     CPU and no per-byte gap on its NIC. Without it (the LogGOPS network) the
 *     receiver is charged o + max(s1*O, s1*G) on its CPU and g + s1*G on the
 *     NIC, as LogGOPSim does.
 *  7. free() releases the network's state (NULL state is allowed).
 *  8. `flags`: IR_NET_RNDV_HANDSHAKE means the network carries rendezvous
 *     messages (m->rndv) as request-to-send, clear-to-send and data, and
 *     wants the match in between. For such a message, ir_engine_deliver()
 *     reports the arrival of the request-to-send; the engine charges and
 *     matches it exactly as any message (put-backs, RQ/UQ, FIFO order), and
 *     when it meets its receive, at time t, calls matched(msg, t). The
 *     network then moves the clear-to-send and the data and calls
 *     ir_engine_complete(en, msg, t_done) exactly once, t_done >= now, when
 *     the data has arrived: only then do the receive and the send complete
 *     (the sender's CPU and NIC of the send are held until t_done, as a
 *     blocking rendezvous send is held until the match in LogGOPS, and so is
 *     the receiver's CPU that was charged for the message); or, instead,
 *     ir_engine_complete_at(en, msg, t_done, t_send): the receive completes at
 *     t_done, the send at t_send >= t_done (when the sender learns that the
 *     data is in, as InfiniBand's acknowledgement tells it). Without the flag the engine
 *     never calls matched() and a rendezvous message arrives whole, as in
 *     LogGOPSim.
 *
 *  9. An engine that orders items of one time by key (IR_TIES_KEY, ir_engine.h) gives
 *     each item the key (time made, maker, maker's count): a network that runs its own
 *     events as callbacks, one event each, and names their makers (nmakers, maker) gets
 *     an order of its events that depends only on what each maker did, which a
 *     partitioned run can reproduce (docs/ib-model.md section 12);
 *     ir_engine_keyed() says whether the engine does.
 * 10. describe(), when given, names what a callback does without the network's own
 *     indices (which differ between the processes of a partitioned run), so that the
 *     events people read are the same however the run is split.
 *
 * A message handle stays valid until the engine has matched the message (with
 * IR_NET_RNDV_HANDSHAKE and a rendezvous message: until ir_engine_complete() or
 * ir_engine_complete_at());
 * a network must not use it afterwards.
 */
#ifndef IR_NET_H
#define IR_NET_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_model.h" /* ir_loggops: the parameters and what a message costs */
#include "ir_strbuf.h"

typedef struct ir_engine ir_engine;

/* A message as the network sees it. */
typedef struct ir_net_msg {
	uint32_t src, dst;   /* ranks */
	uint32_t tag;
	unsigned cpu, nic;   /* the send op's cpu and nic */
	int rndv;            /* size > S: rendezvous protocol */
	uint64_t size;       /* bytes */
	uint64_t id;         /* creation order, 0-based (the message log's id) */
} ir_net_msg;

enum { IR_NET_MODELS_BYTES = 1, IR_NET_RNDV_HANDSHAKE = 2 };

typedef struct ir_net_ops {
	const char *name;
	unsigned flags;
	int (*init)(void **state, ir_engine *en, uint32_t nranks, const ir_loggops *p, const void *arg,
	            ir_err *e);
	int (*inject)(void *state, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e);
	int (*wakeup)(void *state, uint64_t t, uint64_t cookie, ir_err *e); /* may be NULL if never used */
	void (*free)(void *state);
	/* IR_NET_RNDV_HANDSHAKE only: rendezvous message `msg` met its receive at t. */
	int (*matched)(void *state, uint32_t msg, uint64_t t, ir_err *e);
	/* May be NULL: the host the network placed `rank` on (after init), for the engine's
	 * node model (docs/loggops-semantics.md section 8). */
	uint32_t (*host_of)(const void *state, uint32_t rank);
	/* May be NULL (the network is one maker). An engine that orders ties by key
	 * (IR_TIES_KEY, contract 9) asks after init() how many makers the network has, and,
	 * for each callback it pops, which of them it belongs to (0 .. nmakers - 1): the items
	 * queued while it runs are that maker's. */
	uint32_t (*nmakers)(const void *state);
	uint32_t (*maker)(const void *state, uint64_t cookie);
	/* May be NULL: what callback `cookie` does, in a few words (at most n - 1 bytes), for
	 * people (ibsim -v); called before wakeup() with the same cookie (contract 10). */
	void (*describe)(const void *state, uint64_t cookie, char *buf, size_t n);
} ir_net_ops;

/* Services of the engine to its network (see the contract above). */
uint64_t ir_engine_now(const ir_engine *en);
int ir_engine_keyed(const ir_engine *en); /* items of one time ordered by key (contract 9) */
int ir_engine_deliver(ir_engine *en, uint32_t msg, uint64_t t, ir_err *e);
int ir_engine_call_at(ir_engine *en, uint64_t t, uint64_t cookie, ir_err *e);
/* IR_NET_RNDV_HANDSHAKE: the data of matched rendezvous message `msg` has arrived at t. */
int ir_engine_complete(ir_engine *en, uint32_t msg, uint64_t t, ir_err *e);
/* The same, the send completing at t_send >= t (the acknowledgement's return). */
int ir_engine_complete_at(ir_engine *en, uint32_t msg, uint64_t t, uint64_t t_send, ir_err *e);

/* The LogGOPS network: arrival at t + o + L (o_rndv for rendezvous messages). */
extern const ir_net_ops ir_net_loggops;

/* ---- the registry of networks (ir_net.c) ----
 *
 * Tools and library code choose a network by name: ir_net_find("ib") gives
 * its entry, an unknown name an error that lists the registered ones. An
 * entry says what the network is (name, one-line description), which options
 * it accepts (its keys, for validation, and its table of keys, defaults and
 * meanings, for --help), and how to build it: a configuration made with
 * cfg_new, filled key by key with cfg_set, passed to the engine as net_arg of
 * `ops` (whose init() is the constructor). A network without options has
 * NULL for all of these. So a tool names no network in its code, and a new
 * network is one entry in ir_net.c's table. */
typedef struct ir_net_type {
	const char *name;
	const char *desc;              /* one line, no final period */
	const ir_net_ops *ops;
	/* The keys it accepts ('_' form; NULL-terminated), and its --help table. */
	const char *const *(*keys)(void);
	int (*help)(ir_sb *out);
	/* Its configuration: the defaults (NULL: out of memory); set a key (a key
	 * or its option name, '-' for '_') to a value as the user typed it: 0, -1
	 * (e set) on a bad value, -2 (e set) for a key it does not have; free
	 * (NULL is a no-op). */
	void *(*cfg_new)(void);
	int (*cfg_set)(void *cfg, const char *key, const char *value, ir_err *e);
	void (*cfg_free)(void *cfg);
	/* Optional: keep the instance init() builds from this configuration for
	 * the caller (statistics after the run): init() stores it in *inst and the
	 * network's free() leaves it; the caller frees it with inst_free. */
	void (*cfg_keep)(void *cfg, void **inst);
	void (*inst_free)(void *inst);
} ir_net_type;

/* The registered networks (each defined next to its network's code). */
extern const ir_net_type ir_net_type_loggops;
extern const ir_net_type ir_net_type_ib;

/* Entry i of the registry (0: the default network), NULL past the end. */
const ir_net_type *ir_net_type_at(size_t i);
/* The network called `name`; NULL with e set ("unknown network 'x' (expected
 * loggops or ib)") if none is. */
const ir_net_type *ir_net_find(const char *name, ir_err *e);
/* Does network t accept option `key` ('-' or '_')? */
int ir_net_accepts(const ir_net_type *t, const char *key);
/* The first registered network that accepts `key`, NULL if none does. */
const ir_net_type *ir_net_owner(const char *key);

#endif
