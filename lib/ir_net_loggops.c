/*
 * ir_net_loggops.c: the LogGOPS network of ibsim (--net loggops, the default).
 *
 * The network of the LogGOPS model has no state: a message whose send starts
 * at t reaches its destination at t + o + L, whatever else is in flight
 * (contention is modelled only by the NIC gaps g and G, which the engine
 * charges). This is exactly LogGOPSim's rule, so results agree with it.
 * Rendezvous messages use o_rndv, the overhead of their protocol. With the
 * piecewise model the message arrives net_L(s) after its send started
 * (ir_model_arrival, formats/params.md).
 */
#include "ir_net.h"

#include <stdlib.h>
#include <string.h>

void ir_loggops_defaults(ir_loggops *p)
{
	memset(p, 0, sizeof *p);
	p->L = 2500;
	p->intra_S = 65535; /* S */
	p->o = 1500;
	p->g = 1000;
	p->G = 6;
	p->O = 0;
	p->S = 65535;
	p->o_rndv = p->o;
	p->O_rndv = p->O;
	p->O_send = p->O;
	p->O_send_rndv = p->O_rndv;
	p->rndv_hs = 1; /* only with the piecewise model and copy (ir_model_rndv_hs) */
}

typedef struct lg_state {
	ir_engine *en;
	ir_loggops p;
} lg_state;

static int lg_init(void **state, ir_engine *en, uint32_t nranks, const ir_loggops *p, const void *arg,
                   ir_err *e)
{
	lg_state *s = malloc(sizeof *s);
	(void)nranks;
	(void)arg;
	if (!s)
		return ir_errf(e, "out of memory for the loggops network");
	s->en = en;
	s->p = *p;
	*state = s;
	return 0;
}

static int lg_inject(void *state, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	lg_state *s = state;
	uint64_t d = ir_model_arrival(&s->p, m->size, 0);
	if (t > UINT64_MAX - d)
		return ir_errf(e, "time overflow: message %llu injected at %llu ps arrives after 2^64 ps",
		               (unsigned long long)m->id, (unsigned long long)t);
	return ir_engine_deliver(s->en, msg, t + d, e);
}

static void lg_free(void *state) { free(state); }

const ir_net_ops ir_net_loggops = {
	.name = "loggops",
	.flags = 0,
	.init = lg_init,
	.inject = lg_inject,
	.wakeup = NULL,
	.free = lg_free,
};

const ir_net_type ir_net_type_loggops = {
	.name = "loggops",
	.desc = "LogGOPS: a message arrives o + L after its send starts; contention only at the NICs",
	.ops = &ir_net_loggops,
};
