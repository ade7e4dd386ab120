/*
 * ir_model.h: what a message costs, one definition for every tool.
 *
 * Two models share the LogGOPS parameter struct (formats/params.md, "Keys"
 * and "The piecewise model"):
 *
 *   - the LogGOPS rule (LogGOPSim's): the sender's CPU pays o + (s-1)*O_send,
 *     the message arrives o + L after its send started, the receiver's CPU
 *     pays o + (s-1)*max(O, G); o_rndv and O_rndv above S;
 *   - the piecewise model, used when the parameter file sets send_o, recv_o
 *     and net_L (calib writes them): the sender's CPU pays send_o(s), the
 *     message arrives net_L(s) after its send started (it may arrive before
 *     the sender's call is over: over TCP the kernel delivers it inside the
 *     sender's system call), the receiver's CPU pays recv_o(s). Each is a function of the size made of
 *     segments `from:base+perbyte`; the segments are what calib's fit found
 *     (eager and rendezvous are segments too; S still decides the protocol).
 *
 * Two more piecewise functions price work that is no message at all:
 *   - copy(s): a message a rank sends to itself (and the copy of a rank's own
 *     block in a collective, unless coll_copy is set) is a local memory copy:
 *     when `copy` is set the sender's CPU pays copy(s), nothing crosses the
 *     network, the receiver pays nothing. Without it a message to oneself is a
 *     network message, as in LogGOPSim.
 *   - coll_copy(s): the copy of a rank's own block inside a collective, which
 *     the library makes with its own copy routine, no message: trace2goal
 *     charges it as computation (ir_t2g_coll.c).
 *   - reduce(s): combining s bytes of a reduction's incoming data with the
 *     local data (trace2goal turns it into computation).
 *
 * Why integers: results must be identical on every machine and equal to
 * LogGOPSim's to the picosecond where the LogGOPS rule applies; a per-byte
 * slope is kept in femtoseconds per byte (0.001 ps), so a slope of 85.3 ps/B
 * is exact and a product rounds once, half up.
 *
 * Alternatives rejected: a table of measured points with interpolation
 * (SimGrid's SMPI factors are piecewise constant factors of one affine
 * model; a per-segment affine function says the same with fewer numbers and
 * extrapolates beyond the largest measured size along the last segment),
 * and floating point (not reproducible to the picosecond).
 */
#ifndef IR_MODEL_H
#define IR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"

#define IR_PW_MAX 32 /* segments per function */

/* A piecewise affine function of the message size: segment i holds for sizes in
 * [from[i], from[i+1]) and costs base + size * fs / 1000 picoseconds. n == 0: unset. */
typedef struct ir_pw {
	uint32_t n;
	struct ir_pw_seg {
		uint64_t from; /* bytes; the first segment starts at 0 */
		uint64_t base; /* ps */
		uint64_t fs;   /* femtoseconds per byte */
	} seg[IR_PW_MAX];
} ir_pw;

/* "0:1.2us+85.3ps; 4033:2us+120ps/B": segments separated by ';', each
 * SIZE ':' TIME [ '+' PERBYTE ], PERBYTE a decimal with at most 3 decimals in
 * ps (default) or ns per byte, optionally followed by "/B". The first segment
 * starts at 0, the others in increasing order. Errors quote the bad segment;
 * `what` names the field ("'send_o'"). */
int ir_pw_parse(ir_pw *f, const char *s, const char *what, ir_err *e);
/* Value at `size` in picoseconds (saturates at UINT64_MAX). f->n must be > 0. */
uint64_t ir_pw_eval(const ir_pw *f, uint64_t size);
/* Append the text form ir_pw_parse reads back. */
int ir_pw_format(const ir_pw *f, ir_sb *o);

/* A piecewise linear function of the gap since the rank's last protocol step: how much a
 * send's overhead lies above (or below) send_o(s) (formats/params.md, "A send after a
 * gap"). Point i is (gap[i], d[i]), gaps increasing; linear between points, d[0] below the
 * first, d[n-1] beyond the last. n == 0: unset. */
typedef struct ir_gapfn {
	uint32_t n;
	uint64_t gap[IR_PW_MAX]; /* ps */
	int64_t d[IR_PW_MAX];    /* ps */
} ir_gapfn;

/* "0:-1.5us; 20us:-1.1us; 2ms:+1.3us": points GAP:TIME separated by ';', gaps increasing,
 * TIME signed. Errors quote the bad point; `what` names the field. */
int ir_gapfn_parse(ir_gapfn *f, const char *s, const char *what, ir_err *e);
/* Value at gap `g` in picoseconds (rounded half away from zero). f->n must be > 0. */
int64_t ir_gapfn_eval(const ir_gapfn *f, uint64_t g);
/* Append the text form ir_gapfn_parse reads back. */
int ir_gapfn_format(const ir_gapfn *f, ir_sb *o);

/* The spread of a call's cost (formats/params.md, "The spread of a call's cost"): n equally
 * likely factors (calib writes the means of n equal shares of the measured costs over their
 * size's mean, so their mean is 1); a message's draw picks one. n = 0: none. */
#define IR_SPREAD_MAX 64
typedef struct ir_spread {
	uint32_t n;
	double f[IR_SPREAD_MAX];
} ir_spread;

/* Parse "F1,F2,...,Fn" (1 <= n <= IR_SPREAD_MAX, each a decimal number above 0 and at most
 * 1000): 0, or -1 with the error naming `what`. */
int ir_spread_parse(ir_spread *s, const char *v, const char *what, ir_err *e);
/* Append the text form ir_spread_parse reads back. */
int ir_spread_format(const ir_spread *s, ir_sb *o);

/* LogGOPS parameters, all picoseconds except S (bytes). Messages of more than
 * S bytes use the rendezvous protocol and the overheads o_rndv, O_rndv.
 * O_send and O_send_rndv are the per-byte CPU overheads the sender pays (eager,
 * rendezvous); LogGOPSim charges the sender O like the receiver, so they
 * default to O and O_rndv. A ping-pong measures only the per-byte time on its
 * path, which LogGOPS puts at the receiver: calib writes O_send = 0.
 * send_o, recv_o, net_L (all three or none): the piecewise model; copy,
 * reduce, coll_copy: local work (see above). */
typedef struct ir_loggops {
	uint64_t L, o, g, G, O, S;
	uint64_t o_rndv, O_rndv;
	uint64_t O_send, O_send_rndv;
	ir_pw send_o, recv_o, net_L;
	ir_pw copy, reduce;
	/* the copy of a rank's own block inside a collective: the library's local copy, not a
	 * message (formats/params.md, "coll_copy"); unset: copy prices it */
	ir_pw coll_copy;
	/* CPU time of starting a nonblocking collective beyond its messages (the library's
	 * schedule: Open MPI's libnbc); trace2goal's plain conversion charges it as a calc at
	 * the call (formats/params.md, "nbc_o"); 0 by default */
	uint64_t nbc_o;
	/* the intra-node model: messages between two ranks of one host (all three or none) */
	ir_pw intra_send_o, intra_recv_o, intra_net_L;
	uint64_t intra_S; /* their eager limit (default S) */
	/* piecewise model only: an eager network send costs send_o(s) plus after_send(gap) when
	 * the rank's last protocol step was a send, plus after_recv(gap) when it was a message it
	 * handled; gap from the end of that step's overhead (formats/params.md, "A send after a
	 * gap") */
	ir_gapfn after_send, after_recv;
	/* piecewise model with copy or rndv_copy: a rendezvous message's data leaves at its match
	 * and the receiver's CPU pays only its work on the data (formats/params.md, "The
	 * rendezvous protocol"); key rndv_handshake, yes (1, the default) or no */
	uint8_t rndv_hs;
	/* that work where it is not a copy (key rndv_copy, set by the user; calib does not
	 * write it); unset: copy */
	ir_pw rndv_copy;
	/* piecewise model only: the spread of send_o and recv_o around their values (keys
	 * send_o_spread, recv_o_spread; ibsim draws a factor per message; unset: none) */
	ir_spread send_spread, recv_spread;
	/* piecewise model only: what an eager message costs its receiver's CPU instead of
	 * recv_o(s) when it arrived while the receiver's CPU was in the overhead of a send of
	 * its own: the two messages of an exchange cross (formats/params.md, "Crossing
	 * messages"); unset: recv_o */
	ir_pw recv_o_cross;
} ir_loggops;

/* L=2500 o=1500 g=1000 G=6 O=0 S=65535 (LogGOPSim's defaults); o_rndv = o, O_rndv = O,
 * O_send = O, O_send_rndv = O_rndv; no piecewise functions. */
void ir_loggops_defaults(ir_loggops *p);

struct ir_params;
/* Defaults, then every model key the set holds (formats/params.md). Errors name the
 * file and line of the bad value; send_o, recv_o and net_L must come together. */
int ir_loggops_load(ir_loggops *p, const struct ir_params *ps, ir_err *e);
/* The parameters of a message between two ranks of one host: p with send_o, recv_o, net_L
 * and S replaced by the intra_ ones (formats/params.md, "The intra-node model"); the rest
 * (copy, reduce, g, G) as in p. Only meaningful when ir_model_intra(p). */
void ir_loggops_intra(const ir_loggops *p, ir_loggops *q);
static inline int ir_model_intra(const ir_loggops *p) { return p->intra_send_o.n != 0; }
/* The keys ir_loggops_load reads (NULL-terminated), for tools' unknown-key warnings. */
extern const char *const ir_loggops_keys[];

static inline int ir_model_pw(const ir_loggops *p) { return p->send_o.n != 0; }
static inline int ir_model_self_copy(const ir_loggops *p, uint32_t src, uint32_t dst)
{
	return src == dst && p->copy.n != 0;
}

/* The three costs of a message are on the engine's event loop (once per send and per
 * message handled): inline, so that the LogGOPS rule stays a few instructions. */
static inline uint64_t ir_model_sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static inline uint64_t ir_model_sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* The LogGOPS rule alone (no piecewise function set): the engine takes these directly when
 * the parameters set none, so LogGOPSim-exact runs pay nothing for the other models. */
static inline uint64_t ir_model_lg_send_cpu(const ir_loggops *p, uint64_t size)
{
	int rndv = size > p->S;
	return ir_model_sat_add(rndv ? p->o_rndv : p->o,
	                        ir_model_sat_mul(size ? size - 1 : 0, rndv ? p->O_send_rndv : p->O_send));
}
static inline uint64_t ir_model_lg_recv_cpu(const ir_loggops *p, uint64_t size, int bytes_modelled)
{
	int rndv = size > p->S;
	uint64_t O = rndv ? p->O_rndv : p->O;
	if (!bytes_modelled && p->G > O)
		O = p->G;
	return ir_model_sat_add(rndv ? p->o_rndv : p->o, ir_model_sat_mul(size ? size - 1 : 0, O));
}

/* CPU time the sender of a message of `size` bytes pays (copy for a self copy). */
static inline uint64_t ir_model_send_cpu(const ir_loggops *p, uint64_t size, int self)
{
	if (self && p->copy.n)
		return ir_pw_eval(&p->copy, size);
	if (p->send_o.n)
		return ir_pw_eval(&p->send_o, size);
	return ir_model_lg_send_cpu(p, size);
}

static inline int ir_model_gap(const ir_loggops *p) { return p->after_send.n || p->after_recv.n; }

/* c times the factor of s that `draw` picks (draw mod n), rounded; c when s has none. */
static inline uint64_t ir_spread_apply(const ir_spread *s, uint64_t c, uint64_t draw)
{
	double v;
	if (!s->n || !c)
		return c;
	v = (double)c * s->f[draw % s->n];
	return v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(v + 0.5);
}
/* The sender's CPU time of an eager network send of `size` bytes that starts `gap` after the
 * end of the rank's last protocol step, a send (after_send) or a message handled: send_o(s)
 * plus that function's value, never below 0. */
static inline uint64_t ir_model_send_cpu_gap(const ir_loggops *p, uint64_t size, int after_send, uint64_t gap)
{
	const ir_gapfn *f = after_send ? &p->after_send : &p->after_recv;
	uint64_t c = ir_pw_eval(&p->send_o, size);
	int64_t d;
	if (!f->n)
		return c;
	d = ir_gapfn_eval(f, gap);
	if (d >= 0)
		return ir_model_sat_add(c, (uint64_t)d);
	return c > (uint64_t)-d ? c - (uint64_t)-d : 0;
}

/* Time from the start of the send to the arrival at the receiver, LogGOPS network
 * (o + L, o_rndv + L; piecewise: net_L; self copy: copy). */
static inline uint64_t ir_model_arrival(const ir_loggops *p, uint64_t size, int self)
{
	if (self && p->copy.n)
		return ir_pw_eval(&p->copy, size);
	if (p->send_o.n)
		return ir_pw_eval(&p->net_L, size);
	return ir_model_sat_add(size > p->S ? p->o_rndv : p->o, p->L);
}

/* CPU time the receiver pays for an arrived message when the network does not model
 * the bytes (LogGOPS: o + (s-1)*max(O, G)); `bytes_modelled`: the network moved the
 * bytes itself (o + (s-1)*O). Piecewise: recv_o(s); self copy: 0. */
static inline uint64_t ir_model_recv_cpu(const ir_loggops *p, uint64_t size, int self, int bytes_modelled)
{
	if (self && p->copy.n)
		return 0;
	if (p->recv_o.n)
		return ir_pw_eval(&p->recv_o, size);
	return ir_model_lg_recv_cpu(p, size, bytes_modelled);
}
/* The rendezvous protocol of the piecewise model (formats/params.md, "The rendezvous
 * protocol"; docs/loggops-semantics.md section 6.2 item 10): in effect when the piecewise
 * model and rndv_copy or copy are set and rndv_handshake is not no. A rendezvous message's
 * request then costs its receiver nothing when it arrives (net_L(s) after the send
 * started); at the match its data leaves and arrives rndv_wait(s) later, when the
 * receiver's CPU pays rndv_copy(s) (the key, else copy(s); at most recv_o(s)). The two add
 * up to recv_o(s), the late receive calib measured. */
static inline int ir_model_rndv_hs(const ir_loggops *p)
{
	return p->send_o.n && (p->rndv_copy.n || p->copy.n) && p->rndv_hs;
}
static inline uint64_t ir_model_rndv_copy(const ir_loggops *p, uint64_t size)
{
	uint64_t c = ir_pw_eval(p->rndv_copy.n ? &p->rndv_copy : &p->copy, size), r = ir_pw_eval(&p->recv_o, size);
	return c < r ? c : r;
}
static inline uint64_t ir_model_rndv_wait(const ir_loggops *p, uint64_t size)
{
	return ir_pw_eval(&p->recv_o, size) - ir_model_rndv_copy(p, size);
}

/* What the model says a blocking send call lasts when its receive is posted and its receiver
 * idle (trace2goal --durations): the sender's CPU time, except a rendezvous send under the
 * piecewise model, which returns when the receiver's charge is over: max(send_o(s),
 * net_L(s) + recv_o(s)). */
uint64_t ir_model_send_call(const ir_loggops *p, uint64_t size, int self);
/* What the model says a receive call lasts when its sender starts at the same moment, beyond
 * the sender's own overhead (trace2goal --durations): LogGOPS L + o + (s-1)*max(O, G) (o_rndv,
 * O_rndv above S); piecewise max(0, net_L(s) - send_o(s)) + recv_o(s); self copy 0. */
uint64_t ir_model_recv_call(const ir_loggops *p, uint64_t size, int self);

#endif
