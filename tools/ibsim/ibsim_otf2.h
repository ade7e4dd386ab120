/*
 * ibsim_otf2.h: ibsim --otf2 DIR, the simulated run as an OTF2 archive
 * (formats/results.md section 8).
 */
#ifndef IBSIM_OTF2_H
#define IBSIM_OTF2_H

#include <stdint.h>

#include "ir_engine.h"
#include "ir_err.h"

typedef struct ibsim_otf2 ibsim_otf2;

/* Create DIR/traces.otf2 for a schedule of nranks ranks. */
ibsim_otf2 *ibsim_otf2_open(const char *dir, uint32_t nranks, ir_err *e);
/* One engine event (the --timeline hook's events: calcs, sends, message charges). */
int ibsim_otf2_event(ibsim_otf2 *x, const ir_ev *ev, ir_err *e);
/* Write the definitions and close; frees x even on error. NULL is a no-op (0). */
int ibsim_otf2_close(ibsim_otf2 *x, ir_err *e);

#endif
