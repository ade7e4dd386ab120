/*
 * ibsim_otf2.c: the simulated run as an OTF2 archive (--otf2 DIR;
 * formats/results.md section 8), so that a real run (allprof --format otf2)
 * and its simulation open side by side in the same OTF2 viewer.
 *
 * The spans of --timeline become regions, one location per rank and CPU:
 * "calc" for a calc, "send" for the sender's CPU overhead with an MpiSend
 * record at its start, "recv" for a message's charge at the receiver with an
 * MpiRecv record at its start. Sender, receiver and tag are the schedule's,
 * all on MPI_COMM_WORLD, so viewers pair each send with its receive the way
 * MPI (and the engine) matches them. Events come in simulated-time order and
 * the spans of one CPU never overlap (formats/results.md section 3), so
 * each location's records are written in order as they come; a later span
 * that would start before the previous one ended is clamped (it cannot
 * happen, the clamp only keeps the archive valid). Times are picoseconds
 * (timer resolution 10^12), global offset 0.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "ibsim_otf2.h"
#include "ir_grow.h"
#include "ir_otf2.h"

enum { REG_CALC, REG_SEND, REG_RECV, NREG };

struct ibsim_otf2 {
	OTF2_Archive *ar;
	uint32_t nranks;
	OTF2_EvtWriter **w;  /* [location]: location = cpu * nranks + rank */
	uint64_t *last;
	size_t nloc, caploc, caplast;
	uint64_t tmax;
	char *dir;
};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
	(void)ud, (void)ft, (void)loc, (void)cd, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud, (void)ft, (void)loc;
	return 0;
}

static OTF2_FlushCallbacks flush_cbs = { pre_flush, post_flush };

static OTF2_EvtWriter *writer(ibsim_otf2 *x, size_t loc)
{
	if (loc >= x->nloc) {
		size_t old = x->nloc;
		if (IR_GROW(x->w, loc + 1, x->caploc) || IR_GROW(x->last, loc + 1, x->caplast))
			return NULL;
		for (size_t i = old; i <= loc; i++) {
			x->w[i] = NULL;
			x->last[i] = 0;
		}
		x->nloc = loc + 1;
	}
	if (!x->w[loc])
		x->w[loc] = OTF2_Archive_GetEvtWriter(x->ar, (OTF2_LocationRef)loc);
	return x->w[loc];
}

ibsim_otf2 *ibsim_otf2_open(const char *dir, uint32_t nranks, ir_err *e)
{
	ibsim_otf2 *x = calloc(1, sizeof *x);
	if (!x || !(x->dir = strdup(dir))) {
		free(x);
		ir_errf(e, "out of memory");
		return NULL;
	}
	x->nranks = nranks;
	ir_otf2_quiet_errors();
	if (ir_otf2_archive_exists(dir, "traces")) {
		ir_errf(e, "%s/traces.otf2: an OTF2 archive is already there", dir);
		free(x->dir);
		free(x);
		return NULL;
	}
	x->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
	                          OTF2_COMPRESSION_NONE);
	if (!x->ar) {
		ir_errf(e, "%s/traces.otf2: cannot create the OTF2 archive", dir);
		free(x->dir);
		free(x);
		return NULL;
	}
	OTF2_Archive_SetFlushCallbacks(x->ar, &flush_cbs, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(x->ar);
	OTF2_Archive_OpenEvtFiles(x->ar);
	for (uint32_t r = 0; r < nranks; r++)
		if (!writer(x, r)) {
			ir_errf(e, "%s/traces.otf2: cannot write events", dir);
			ibsim_otf2_close(x, NULL);
			return NULL;
		}
	return x;
}

int ibsim_otf2_event(ibsim_otf2 *x, const ir_ev *ev, ir_err *e)
{
	size_t loc;
	OTF2_EvtWriter *w;
	uint64_t t = ev->t, end = ev->end;
	int reg;
	if (ev->kind == IR_EV_CALC)
		reg = REG_CALC;
	else if (ev->kind == IR_EV_SEND)
		reg = REG_SEND;
	else if (ev->kind == IR_EV_MSG)
		reg = REG_RECV;
	else
		return 0;
	loc = (size_t)ev->cpu * x->nranks + ev->rank;
	if (!(w = writer(x, loc)))
		return ir_errf(e, "%s/traces.otf2: cannot write events", x->dir);
	if (t < x->last[loc])
		t = x->last[loc];
	if (end < t)
		end = t;
	x->last[loc] = end;
	if (end > x->tmax)
		x->tmax = end;
	OTF2_EvtWriter_Enter(w, NULL, t, (OTF2_RegionRef)reg);
	if (reg == REG_SEND)
		OTF2_EvtWriter_MpiSend(w, NULL, t, ev->peer, 0, ev->tag, ev->size);
	else if (reg == REG_RECV)
		OTF2_EvtWriter_MpiRecv(w, NULL, t, ev->peer, 0, ev->tag, ev->size);
	OTF2_EvtWriter_Leave(w, NULL, end, (OTF2_RegionRef)reg);
	return 0;
}

int ibsim_otf2_close(ibsim_otf2 *x, ir_err *e)
{
	static const char *const names[NREG] = { "calc", "send", "recv" };
	OTF2_GlobalDefWriter *gw;
	int rc = 0;
	if (!x)
		return 0;
	for (size_t i = 0; i < x->nloc; i++)
		if (x->w[i])
			OTF2_Archive_CloseEvtWriter(x->ar, x->w[i]);
	OTF2_Archive_CloseEvtFiles(x->ar);
	OTF2_Archive_OpenDefFiles(x->ar);
	for (size_t i = 0; i < x->nloc; i++)
		if (x->w[i]) {
			OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(x->ar, (OTF2_LocationRef)i);
			if (dw)
				OTF2_Archive_CloseDefWriter(x->ar, dw);
		}
	OTF2_Archive_CloseDefFiles(x->ar);
	gw = OTF2_Archive_GetGlobalDefWriter(x->ar);
	if (gw) {
		uint64_t *m = malloc((x->nranks ? x->nranks : 1) * sizeof *m);
		OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000000ull, 0, x->tmax, OTF2_UNDEFINED_TIMESTAMP);
		OTF2_GlobalDefWriter_WriteString(gw, 0, "");
		for (int i = 0; i < NREG; i++)
			OTF2_GlobalDefWriter_WriteString(gw, (OTF2_StringRef)(1 + i), names[i]);
		OTF2_GlobalDefWriter_WriteString(gw, 4, "simulated machine");
		OTF2_GlobalDefWriter_WriteString(gw, 5, "MPI Rank");
		OTF2_GlobalDefWriter_WriteString(gw, 6, "CPU");
		OTF2_GlobalDefWriter_WriteString(gw, 7, "MPI_COMM_WORLD");
		for (int i = 0; i < NREG; i++)
			OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)i, (OTF2_StringRef)(1 + i), (OTF2_StringRef)(1 + i),
			                                 0, i == REG_CALC ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_POINT2POINT,
			                                 i == REG_CALC ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
			                                 OTF2_REGION_FLAG_NONE, 0, 0, 0);
		OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 4, 4, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
		for (uint32_t r = 0; r < x->nranks; r++)
			OTF2_GlobalDefWriter_WriteLocationGroup(gw, r, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
			                                        OTF2_UNDEFINED_LOCATION_GROUP);
		for (size_t i = 0; i < x->nloc; i++)
			if (x->w[i])
				OTF2_GlobalDefWriter_WriteLocation(gw, (OTF2_LocationRef)i, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 0,
				                                   (OTF2_LocationGroupRef)(i % x->nranks));
		if (m) {
			for (uint32_t r = 0; r < x->nranks; r++)
				m[r] = r;
			OTF2_GlobalDefWriter_WriteGroup(gw, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
			                                OTF2_GROUP_FLAG_NONE, x->nranks, m);
			OTF2_GlobalDefWriter_WriteGroup(gw, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
			                                OTF2_GROUP_FLAG_NONE, x->nranks, m);
			OTF2_GlobalDefWriter_WriteComm(gw, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
			free(m);
		} else if (e) {
			rc = ir_errf(e, "out of memory");
		}
	} else if (e) {
		rc = ir_errf(e, "%s/traces.otf2: cannot write the definitions", x->dir);
	}
	if (OTF2_Archive_Close(x->ar) != OTF2_SUCCESS && e && rc == 0)
		rc = ir_errf(e, "%s/traces.otf2: cannot close the OTF2 archive", x->dir);
	free(x->w);
	free(x->last);
	free(x->dir);
	free(x);
	return rc;
}
