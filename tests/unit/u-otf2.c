/*
 * u-otf2.c: the OTF2 reader (lib/ir_otf2.c) on archives written here with
 * libotf2's writer, and the writer of those archives for the shell tests.
 *
 *   u-otf2                      TAP: write the archives to a temporary directory, read them back
 *   u-otf2 --write KIND DIR     write archive KIND into DIR (anchor DIR/traces.otf2):
 *                               "run" (three ranks, the calls of tests/t4014-trace2goal-otf2/text),
 *                               "nompi" (one location, a user region only)
 *
 * The "run" archive holds the same calls as the hand-written allprof traces in
 * tests/t4014-trace2goal-otf2/text/ (which t4013 converts side by side), plus
 * an MPI_Comm_rank that OTF2 records without its arguments, which the reader
 * must count as not converted. Times: a 1 GHz tick, global offset 1000000
 * ticks, so tick = 1000000 + 1000 * (microseconds in the text traces).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "ir_otf2.h"
#include "ir_trace.h"
#include "tap.h"

#define OFF 1000000ull
#define US(x) (OFF + (uint64_t)((x) * 1000.0 + 0.5))

/* libotf2 3.0 leaks its archive handle when OTF2_Reader_Open fails on a corrupt anchor file
 * (otf2_archive_open, otf2_file_posix_open); not ours to free, so LeakSanitizer is told. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2.so\n";
}

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

enum { R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_WAITALL, R_TEST, R_ALLREDUCE, R_BCAST,
       R_GATHER, R_BARRIER, R_COMM_RANK, R_USER, NREG };
static const char *regname[NREG] = { "MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
	                             "MPI_Wait", "MPI_Waitall", "MPI_Test", "MPI_Allreduce", "MPI_Bcast",
	                             "MPI_Gather", "MPI_Barrier", "MPI_Comm_rank", "compute" };

/* communicators: 0 world, 1 {0,2} */
static void call(OTF2_EvtWriter *w, int reg, double tc, double tr)
{
	OTF2_EvtWriter_Enter(w, NULL, US(tc), (OTF2_RegionRef)reg);
	(void)tr;
}

static void ret(OTF2_EvtWriter *w, int reg, double tr)
{
	OTF2_EvtWriter_Leave(w, NULL, US(tr), (OTF2_RegionRef)reg);
}

static void coll(OTF2_EvtWriter *w, int reg, double tc, double tr, OTF2_CollectiveOp op, OTF2_CommRef c,
                 uint32_t root, uint64_t sent, uint64_t recvd)
{
	call(w, reg, tc, tr);
	OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, US(tc));
	OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, US(tr), op, c, root, sent, recvd);
	ret(w, reg, tr);
}

static void rank_events(OTF2_EvtWriter *w, int r)
{
	call(w, R_INIT, 0, 5);
	ret(w, R_INIT, 5);
	if (r == 0) {
		call(w, R_SEND, 10, 12);
		OTF2_EvtWriter_MpiSend(w, NULL, US(11), 1, 0, 7, 8);
		ret(w, R_SEND, 12);
		call(w, R_IRECV, 20, 21);
		OTF2_EvtWriter_MpiIrecvRequest(w, NULL, US(20.5), 4711);
		ret(w, R_IRECV, 21);
		call(w, R_WAIT, 30, 35);
		OTF2_EvtWriter_MpiIrecv(w, NULL, US(34), 2, 0, 3, 16, 4711);
		ret(w, R_WAIT, 35);
	} else if (r == 1) {
		call(w, R_RECV, 10, 15);
		OTF2_EvtWriter_MpiRecv(w, NULL, US(14), 0, 0, 7, 8);
		ret(w, R_RECV, 15);
		call(w, R_ISEND, 16, 17);
		OTF2_EvtWriter_MpiIsend(w, NULL, US(16.5), 2, 0, 9, 32, 99);
		ret(w, R_ISEND, 17);
		call(w, R_TEST, 18, 19);
		OTF2_EvtWriter_MpiRequestTest(w, NULL, US(18.5), 99);
		ret(w, R_TEST, 19);
		call(w, R_TEST, 20, 21);
		OTF2_EvtWriter_MpiIsendComplete(w, NULL, US(20.5), 99);
		ret(w, R_TEST, 21);
	} else {
		call(w, R_ISEND, 11, 12);
		OTF2_EvtWriter_MpiIsend(w, NULL, US(11.5), 0, 0, 3, 16, 1);
		ret(w, R_ISEND, 12);
		call(w, R_IRECV, 13, 14);
		OTF2_EvtWriter_MpiIrecvRequest(w, NULL, US(13.5), 2);
		ret(w, R_IRECV, 14);
		call(w, R_USER, 15, 21); /* a user region between MPI calls: computation */
		ret(w, R_USER, 21);
		call(w, R_WAITALL, 22, 30);
		OTF2_EvtWriter_MpiIsendComplete(w, NULL, US(25), 1);
		OTF2_EvtWriter_MpiIrecv(w, NULL, US(29), 1, 0, 9, 32, 2);
		ret(w, R_WAITALL, 30);
	}
	/* MPI_Allreduce of 8 bytes: Score-P counts N * 8 sent and received */
	coll(w, R_ALLREDUCE, 40, 50, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 24, 24);
	/* MPI_Gather of 4 bytes to rank 1: every rank sends 4, the root receives N * 4 */
	coll(w, R_GATHER, 52, 55, OTF2_COLLECTIVE_OP_GATHER, 0, 1, 4, r == 1 ? 12 : 0);
	if (r == 0) {
		call(w, R_COMM_RANK, 56, 57); /* OTF2 has no event for it: not converted */
		ret(w, R_COMM_RANK, 57);
	}
	/* MPI_Bcast of 100 bytes from rank 0 of {0,2}: the root counts N * 100 sent, everyone 100 received */
	if (r == 0)
		coll(w, R_BCAST, 60, 70, OTF2_COLLECTIVE_OP_BCAST, 1, 0, 200, 100);
	else if (r == 2)
		coll(w, R_BCAST, 60, 70, OTF2_COLLECTIVE_OP_BCAST, 1, 0, 0, 100);
	coll(w, R_BARRIER, 80, 90, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 0);
	call(w, R_FINALIZE, 100, 101);
	ret(w, R_FINALIZE, 101);
}

static int write_archive(const char *dir, const char *kind)
{
	int nompi = !strcmp(kind, "nompi");
	int nr = nompi ? 1 : 3;
	OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
	                                     OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	OTF2_GlobalDefWriter *gw;
	if (!ar)
		return -1;
	OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(ar);
	OTF2_Archive_OpenEvtFiles(ar);
	for (int r = 0; r < nr; r++) {
		OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)r);
		if (nompi) {
			call(w, R_USER, 0, 10);
			ret(w, R_USER, 10);
		} else {
			rank_events(w, r);
		}
		OTF2_Archive_CloseEvtWriter(ar, w);
	}
	OTF2_Archive_CloseEvtFiles(ar);
	OTF2_Archive_OpenDefFiles(ar);
	for (int r = 0; r < nr; r++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)r);
		OTF2_Archive_CloseDefWriter(ar, dw);
	}
	OTF2_Archive_CloseDefFiles(ar);
	gw = OTF2_Archive_GetGlobalDefWriter(ar);
	OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, OFF, US(101) - OFF, OTF2_UNDEFINED_TIMESTAMP);
	OTF2_GlobalDefWriter_WriteString(gw, 0, "");
	for (int i = 0; i < NREG; i++)
		OTF2_GlobalDefWriter_WriteString(gw, (OTF2_StringRef)(1 + i), regname[i]);
	OTF2_GlobalDefWriter_WriteString(gw, 20, "node");
	OTF2_GlobalDefWriter_WriteString(gw, 21, "MPI Rank");
	OTF2_GlobalDefWriter_WriteString(gw, 22, "Master thread");
	OTF2_GlobalDefWriter_WriteString(gw, 23, "MPI_COMM_WORLD");
	OTF2_GlobalDefWriter_WriteString(gw, 24, "sub");
	for (int i = 0; i < NREG; i++)
		OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)i, (OTF2_StringRef)(1 + i), (OTF2_StringRef)(1 + i), 0,
		                                 i == R_USER ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_FUNCTION,
		                                 i == R_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
		                                 0, 0, 0);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 20, 20, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (int r = 0; r < nr; r++) {
		OTF2_GlobalDefWriter_WriteLocationGroup(gw, (OTF2_LocationGroupRef)r, 21, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
		                                        OTF2_UNDEFINED_LOCATION_GROUP);
		OTF2_GlobalDefWriter_WriteLocation(gw, (OTF2_LocationRef)r, 22, OTF2_LOCATION_TYPE_CPU_THREAD, 100,
		                                   (OTF2_LocationGroupRef)r);
	}
	if (!nompi) {
		uint64_t locs[3] = { 0, 1, 2 }, all[3] = { 0, 1, 2 }, sub[2] = { 0, 2 };
		OTF2_GlobalDefWriter_WriteGroup(gw, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
		                                OTF2_GROUP_FLAG_NONE, 3, locs);
		OTF2_GlobalDefWriter_WriteGroup(gw, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
		                                3, all);
		OTF2_GlobalDefWriter_WriteGroup(gw, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
		                                2, sub);
		OTF2_GlobalDefWriter_WriteComm(gw, 0, 23, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
		OTF2_GlobalDefWriter_WriteComm(gw, 1, 24, 2, 0, OTF2_COMM_FLAG_NONE);
	}
	return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/u-otf2-XXXXXX", dir[64], anchor[96];
	ir_trace_files f;
	ir_otf2_stats st;
	ir_err e;
	if (argc == 4 && !strcmp(argv[1], "--write"))
		return write_archive(argv[3], argv[2]) ? 1 : 0;
	if (!mkdtemp(tmp))
		return 1;
	snprintf(dir, sizeof dir, "%s/run", tmp);
	ok(write_archive(dir, "run") == 0, "an archive is written");
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
	if (!ok(ir_otf2_load(&f, anchor, &st, &e) == 0, "it reads back"))
		printf("# %s\n", e.msg);
	is_u64(f.n, 3, "three ranks");
	is_u64(st.nskipped, 1, "one kind of call not converted");
	if (st.nskipped) {
		is_str(st.skipped[0].name, "MPI_Comm_rank", "MPI_Comm_rank");
		is_u64(st.skipped[0].count, 1, "once");
	}
	if (f.n == 3) {
		ok(strstr(f.f[0].data, "MPI_Irecv:20.000000:0:16:13,1,1:2:3:0,0,3:r1:21.000000\n") != NULL,
		   "an Irecv line gets source, tag and size from its completion");
		ok(strstr(f.f[1].data, "MPI_Test:18.000000:r1:0:-:1:19.000000\n") != NULL, "an unsuccessful test");
		ok(strstr(f.f[2].data, "MPI_Bcast:60.000000:0:100:13,1,1:0:3,1,2:70.000000\n") != NULL,
		   "a collective on a sub-communicator");
		ok(strstr(f.f[2].data, "# comm 3 0,2\n") != NULL, "the sub-communicator's members");
		ok(strstr(f.f[1].data, "MPI_Gather:52.000000:0:4:13,1,1:0:4:13,1,1:1:0,1,3:55.000000\n") != NULL,
		   "the root of a gather");
		ok(!strcmp(f.f[0].path + strlen(f.f[0].path) - 8, "[rank 0]"), "a rank's name");
	}
	ir_trace_files_release(&f);
	ir_otf2_stats_release(&st);
	snprintf(dir, sizeof dir, "%s/nompi", tmp);
	ok(write_archive(dir, "nompi") == 0, "an archive without MPI is written");
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
	ok(ir_otf2_load(&f, anchor, &st, &e) == -1 && strstr(e.msg, "no MPI calls"), "it has no MPI calls: %s", e.msg);
	ok(ir_otf2_load(&f, "/nonexistent/traces.otf2", &st, &e) == -1 && strstr(e.msg, "no such file"),
	   "a missing archive: %s", e.msg);
	{
		char cmd[200];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			return 1;
	}
	return tap_done();
}
