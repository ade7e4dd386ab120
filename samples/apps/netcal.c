/*
 * netcal: the measurements calib fits the piecewise cost model to
 * (formats/calibration.md describes the phases, their tags and what calib
 * takes from each; calib finds them by these tags in the traces allprof
 * writes, so the program itself needs to print nothing).
 *
 *   netcal [-m MAXBYTES] [-n MAXREPS] [-t SECONDS] [-P POOLBYTES] [-q]
 *
 * Ranks 0 and 1 take part; further ranks only wait in the final barrier.
 * The sizes are 0, the powers of two, 1/64 below each from 64 bytes (protocol
 * limits are powers of two minus a header) and 3/2 of each from 1 KiB, up to
 * MAXBYTES (default 64 MiB). The phases, in order:
 *
 *   pool    rank 0 sends its whole cold-buffer pool to rank 1, chunk by chunk
 *           (tag 30000): every pool page is mapped and has been through MPI
 *           once, so a cold exchange later pays for cold caches and TLB but
 *           not for a first use;
 *   pilot   three warm exchanges per size (tag 30000), not fitted;
 *   first   FIRST_REPS rounds, each after a pulse and visiting the sizes in a new
 *           order: one exchange per size on a freshly mapped, written buffer
 *           (tag 30003), unmapped after it: the first-use data (calib takes
 *           each size's median, so that one preempted exchange is no
 *           registration);
 *   ping-pong  warm (one reused buffer, tag 30001) and cold (tag 30002: the
 *           next slot of a pool several times the last-level cache, untouched
 *           since long) exchanges, sizes interleaved: repetition after
 *           repetition, each in a different order;
 *   late    rank 0 writes s bytes and sends them (tag 30004); rank 1 writes
 *           as many and busy-waits max(20 us, 4 x the size's one-way time)
 *           outside MPI before its MPI_Recv, so the message has arrived, then
 *           answers with 0 bytes (tag 30005);
 *   progress  the same with tag 30007, but rank 1 waits inside the library
 *           (PMPI_Iprobe for tag 30009, which is never sent; untraced): a
 *           send that completes once the receiver makes progress (Open MPI's
 *           shared memory above 256 bytes) returns at once, and only one
 *           that needs its matching receive waits; calib's S comes from
 *           these sends, recv_o from the late receiver's receives, which
 *           must still read the data themselves;
 *   train   rank 0 receives a 0-byte answer from rank 1 (tag 30050), computes
 *           G us (working through the cold pool, a cache line at a time, as
 *           an application's computation evicts the library's data from the
 *           caches), sends s bytes (tag 30010 + the gap's
 *           index), computes G us again and sends s bytes (tag 30030 + the
 *           gap's index), for G = 0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000
 *           and 2000 and the sizes 8, 512, 4032 and 32768 (those up to
 *           MAXBYTES), in a new order every repetition; rank 1 waits outside the
 *           library until both have arrived, receives them and answers: what a
 *           send costs G after a receive and G after a send
 *           (send_o_after_recv, send_o_after_send);
 *   exchange  both ranks write s bytes, line up with a 0-byte MPI_Sendrecv
 *           (tag 30052), then send them to each other at once with one
 *           MPI_Sendrecv (tag 30051): the sender's own work, which a
 *           ping-pong hides (calib raises send_o above S to it);
 *   nbc     ranks 0 and 1 on a communicator of their own: blocks of 16
 *           MPI_Ibarrier followed by MPI_Wait and of 16 MPI_Barrier,
 *           alternately (each one exchange of two ranks); what the first costs
 *           more in its calls is nbc_o, the schedule of a nonblocking collective;
 *   self    MPI_Sendrecv of s bytes from rank 0 to itself (tag 30006), each
 *           followed by an MPI_Alltoall of s bytes on MPI_COMM_SELF (the
 *           library's local copy, as of a rank's own block in a collective);
 *   reduce  MPI_Reduce_local of s bytes of MPI_DOUBLE with MPI_SUM, s from 8.
 *
 * Pulses: before every repetition of the phases ranks 0 and 1 make together
 * (ping-pong, late, progress, train, exchange; every block of the nbc phase)
 * and after each of those phases' last, PULSE_N exchanges of 0 bytes (tag
 * 30053): the machine's state at that moment. calib sets aside what was
 * measured between two pulses that both found the machine slowed
 * (formats/calibration.md, "Machine state"). Right before and right after each pulse,
 * in one series with it, an untraced block: BARE_N exchanges of 0 bytes through PMPI_Send
 * and PMPI_Recv (tag 30056), which allprof does not see, bracketed on rank 0 by a traced
 * MPI_Iprobe for tag 30054 and one for tag 30055 (never sent): calib compares the pulse's
 * one-way time with the blocks', what tracing adds to a message, and takes it off every
 * time it fits (formats/calibration.md, "The tracer's share").
 *
 * Repetitions: at least 5 per size and phase, at most MAXREPS (default 1000);
 * between the two a time budget (-t, default 30 s, shared out over the
 * phases and sizes) decides, so large sizes get fewer and the whole run stays
 * short. Rank 0 decides and tells rank 1 which sizes the next repetition has
 * (a plan message, tag 30008), so the ranks never disagree.
 *
 * Rank 0 prints "<bytes> <reps> <warm one-way us> <cold one-way us> <first
 * use one-way us, the median of the rounds>" per size unless -q.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bytes-arg.h"
#include "median.h"

enum {
	TAG_POOL = 30000, /* pool pass and pilot: not fitted */
	TAG_WARM = 30001,
	TAG_COLD = 30002,
	TAG_FIRST = 30003,
	TAG_LATE = 30004,
	TAG_LATE_ACK = 30005,
	TAG_SELF = 30006,
	TAG_PROGRESS = 30007,
	TAG_PLAN = 30008,
	TAG_POLL = 30009, /* probed for, never sent */
	TAG_TRAIN_RECV = 30010, /* + the gap's index: a send after a receive */
	TAG_TRAIN_SEND = 30030, /* + the gap's index: a send after a send */
	TAG_TRAIN_ACK = 30050,
	TAG_EXCH = 30051,
	TAG_EXCH_SYNC = 30052,
	TAG_PULSE = 30053, /* calib: IR_NETCAL_TAG_PULSE */
	TAG_BARE = 30054,  /* probed for, never sent: an untraced block starts (calib: IR_NETCAL_TAG_BARE) */
	TAG_BARE_END = 30055, /* the same: it ends */
	TAG_BARE_PP = 30056,  /* the untraced block's exchanges (PMPI: not in the trace) */
	PULSE_N = 8,       /* exchanges per pulse */
	BARE_N = 8,        /* exchanges per untraced block, as many as a pulse's (calib: IR_NETCAL_BARE_N) */
	TRAIN_GAPS = 12,   /* calib: IR_NETCAL_TRAIN_GAPS */
	TRAIN_SIZES = 4,
	TRAIN_REPS = 100,
	POLLS_PER_LINE = 100,
	PROGRESS_REPS = 100,
	NBC_BLOCK = 16, /* calls of one kind in a row in the nbc phase (calib: IR_NETCAL_NBC_BLOCK) */
	MIN_REPS = 5,
	FIRST_REPS = 5, /* rounds of the first-use phase */
	MAX_SIZES = 256,
};

static long sizes[MAX_SIZES];
static int nsizes;

static void die(const char *msg)
{
	fprintf(stderr, "netcal: %s\n", msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

static void make_sizes(long maxb)
{
	sizes[nsizes++] = 0;
	for (long p = 1; p <= maxb && nsizes < MAX_SIZES - 3; p *= 2) {
		if (p >= 64)
			sizes[nsizes++] = p - p / 64;
		sizes[nsizes++] = p;
		if (p >= 1024 && p + p / 2 <= maxb)
			sizes[nsizes++] = p + p / 2;
	}
	qsort(sizes, (size_t)nsizes, sizeof *sizes, cmp_long);
}

/* The last-level cache's size, for the cold pool (32 MiB when unknown). */
static long llc_bytes(void)
{
	long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
	v = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (v <= 0)
		v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return v > 0 ? v : 32L << 20;
}

/* The same pseudo-random order on every call with the same seed (xorshift). */
static void shuffle(int *v, int n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (int i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int j = (int)(x % (uint64_t)(i + 1));
		int t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* One exchange of 0 bytes through the profiling interface, which allprof does not see. */
static void bare_exchange(int rank)
{
	if (rank == 0) {
		PMPI_Send(NULL, 0, MPI_BYTE, 1, TAG_BARE_PP, MPI_COMM_WORLD);
		PMPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_BARE_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		PMPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_BARE_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		PMPI_Send(NULL, 0, MPI_BYTE, 0, TAG_BARE_PP, MPI_COMM_WORLD);
	}
}

/* An untraced block: BARE_N exchanges of 0 bytes that allprof does not see, which rank 0
 * brackets with two traced MPI_Iprobe for tags nobody sends (TAG_BARE, TAG_BARE_END; two
 * tags, so that allprof does not fold them into one line); `first`: one exchange before
 * them brings rank 1 into the series. calib compares the pulse between two blocks with
 * their mean: what tracing adds to a message (formats/calibration.md, "The tracer's
 * share"). */
static void bare(int rank, int first)
{
	int flag;
	if (first)
		bare_exchange(rank);
	if (rank == 0)
		MPI_Iprobe(1, TAG_BARE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	for (int i = 0; i < BARE_N; i++)
		bare_exchange(rank);
	if (rank == 0)
		MPI_Iprobe(1, TAG_BARE_END, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* A pulse: PULSE_N exchanges of 0 bytes between ranks 0 and 1 (tag TAG_PULSE), whose round
 * trips tell calib the state of the machine (formats/calibration.md, "Machine state"),
 * between two untraced blocks (bare) of as many exchanges, in one series: the pulse's
 * exchanges are the middle third, so that a trend along the series (the first exchanges of
 * a series are slower) weighs on the blocks' mean as on the pulse. */
static void pulse(int rank)
{
	bare(rank, 1);
	for (int i = 0; i < PULSE_N; i++)
		if (rank == 0) {
			MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_PULSE, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_PULSE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_PULSE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_PULSE, MPI_COMM_WORLD);
		}
	bare(rank, 0);
}

/* The plan of repetition `rep`: the sizes (indices) still under their budget,
 * in a new order. Rank 0 decides and sends it to rank 1; plan[0] is the count. */
static int plan_rep(int rank, int rep, int maxreps, const double *spent, double share, const int *ok, int *plan)
{
	pulse(rank);
	if (rank == 0) {
		int n = 0;
		for (int k = 0; k < nsizes; k++)
			if (ok[k] && rep < maxreps && (rep < MIN_REPS || spent[k] < share))
				plan[1 + n++] = k;
		shuffle(plan + 1, n, (uint64_t)rep + 1);
		plan[0] = n;
		MPI_Send(plan, nsizes + 1, MPI_INT, 1, TAG_PLAN, MPI_COMM_WORLD);
	} else {
		MPI_Recv(plan, nsizes + 1, MPI_INT, 0, TAG_PLAN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	return plan[0];
}

/* One ping-pong of b bytes on buf with `tag`; rank 0 gets the round trip in seconds. */
static double exchange(int rank, char *buf, long b, int tag)
{
	double t = MPI_Wtime();
	if (rank == 0) {
		MPI_Send(buf, (int)b, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
		MPI_Recv(buf, (int)b, MPI_BYTE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(buf, (int)b, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, (int)b, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
	}
	return MPI_Wtime() - t;
}

/* A phase of planned repetitions (plan_rep): one(k, rep, i, arg) makes one exchange of size
 * index k, the i-th of repetition rep; its time is added to spent[k], which restarts at 0. */
static void planned(int rank, int maxreps, double share, double *spent, const int *ok, int *plan,
                    void (*one)(int rank, int k, int rep, int i, void *arg), void *arg)
{
	for (int k = 0; k < nsizes; k++)
		spent[k] = 0;
	for (int rep = 0; plan_rep(rank, rep, maxreps, spent, share, ok, plan) > 0; rep++)
		for (int i = 1; i <= plan[0]; i++) {
			double t = MPI_Wtime();
			one(rank, plan[i], rep, i, arg);
			spent[plan[i]] += MPI_Wtime() - t;
		}
}

struct late_arg {
	int tag, inside;
	const double *wait;
	char *buf;
};

/* The late receiver (tag TAG_LATE) or the progress phase (TAG_PROGRESS): rank 0 sends each
 * planned size to rank 1, which waits wait[k] first, outside the library (busy on MPI_Wtime)
 * or inside it (inside: untraced PMPI_Iprobe of TAG_POLL, which nobody sends), then
 * receives and answers with 0 bytes. */
static void late_one(int rank, int k, int rep, int i, void *arg)
{
	const struct late_arg *a = arg;
	long b = sizes[k];
	double t = MPI_Wtime();
	/* both write the buffer first: rank 0 sends data it has just written, as a
	 * program sends what it computed (on shared memory the receiver's copy of
	 * such data costs up to 3x that of data the sender has not touched since
	 * it was last sent: docs/validation.md, "The sender's buffer"); rank 1
	 * writes as much so that its wait starts as late as rank 0's send */
	memset(a->buf, rep + i, (size_t)b);
	if (rank == 0) {
		MPI_Send(a->buf, (int)b, MPI_BYTE, 1, a->tag, MPI_COMM_WORLD);
		MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_LATE_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		while (MPI_Wtime() - t < a->wait[k]) {
			int flag;
			if (a->inside)
				PMPI_Iprobe(0, TAG_POLL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		}
		MPI_Recv(a->buf, (int)b, MPI_BYTE, 0, a->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_LATE_ACK, MPI_COMM_WORLD);
	}
}

static void late_phase(int rank, int tag, int inside, int maxreps, double share, const double *wait, char *buf,
                       double *spent, const int *ok, int *plan)
{
	struct late_arg a = { tag, inside, wait, buf };
	planned(rank, maxreps, share, spent, ok, plan, late_one, &a);
}

static void busy(double s)
{
	double t = MPI_Wtime();
	while (MPI_Wtime() - t < s)
		;
}

/* s seconds of an application's computation between two calls: it works through memory,
 * a cache line at a time from where the last such gap stopped (*cur) in the len bytes of
 * mem, so that the next call meets caches holding the computation's data, not its own
 * (busy, spinning on the clock, leaves the library's code and data in the caches: over TCP
 * loopback a send after 20 us to 1 ms of this costs 0.6-3.3 us more than after busy;
 * formats/calibration.md, "A send after a gap") */
static volatile unsigned char walk_sink;
static void compute(double s, unsigned char *mem, long len, long *cur)
{
	double t = MPI_Wtime();
	unsigned char acc = 0;
	while (MPI_Wtime() - t < s)
		for (int i = 0; i < 64; i++) {
			acc += mem[*cur]++;
			*cur = *cur + 64 < len ? *cur + 64 : 0;
		}
	walk_sink = acc;
}

/* The train phase: per repetition every (size, gap) cell once, in a new order that rank 0
 * sends to rank 1 (tag TAG_PLAN; a count of 0 ends the phase), which answers, so that
 * every cell starts after a receive. wait[] is the late receiver's wait of the size
 * (seconds); rank 1 waits twice that plus both gaps. Rank 0's gaps are computation through
 * the cold pool (compute), whose cold exchanges are over by then. */
static void train_phase(int rank, int maxreps, double budget, const double *wait, char *buf, char *b2,
                        unsigned char *mem, long len)
{
	long cur = 0;
	static const double gaps[TRAIN_GAPS] = { 0,      1e-6,   2e-6,   5e-6,   10e-6, 20e-6,
		                                 50e-6, 100e-6, 200e-6, 500e-6, 1e-3,  2e-3 };
	static const long want[TRAIN_SIZES] = { 8, 512, 4032, 32768 };
	int ks[TRAIN_SIZES], nk = 0, cells[TRAIN_SIZES * TRAIN_GAPS + 1];
	double spent = 0;
	for (int w = 0; w < TRAIN_SIZES; w++)
		for (int k = 0; k < nsizes; k++)
			if (sizes[k] == want[w])
				ks[nk++] = k;
	for (int rep = 0;; rep++) {
		pulse(rank);
		if (rank == 0) {
			int n = 0;
			if (rep < (maxreps < TRAIN_REPS ? maxreps : TRAIN_REPS) && (rep < MIN_REPS || spent < budget))
				for (int c = 0; c < nk * TRAIN_GAPS; c++)
					cells[1 + n++] = c;
			shuffle(cells + 1, n, (uint64_t)rep + 3000);
			cells[0] = n;
			MPI_Send(cells, n + 1, MPI_INT, 1, TAG_PLAN, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_TRAIN_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(cells, TRAIN_SIZES * TRAIN_GAPS + 1, MPI_INT, 0, TAG_PLAN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_TRAIN_ACK, MPI_COMM_WORLD);
		}
		if (!cells[0])
			return;
		for (int i = 1; i <= cells[0]; i++) {
			int k = ks[cells[i] / TRAIN_GAPS], j = cells[i] % TRAIN_GAPS;
			long b = sizes[k];
			double t = MPI_Wtime();
			if (rank == 0) {
				memset(buf, rep + i, (size_t)b);
				compute(gaps[j], mem, len, &cur);
				MPI_Send(buf, (int)b, MPI_BYTE, 1, TAG_TRAIN_RECV + j, MPI_COMM_WORLD);
				compute(gaps[j], mem, len, &cur);
				MPI_Send(buf, (int)b, MPI_BYTE, 1, TAG_TRAIN_SEND + j, MPI_COMM_WORLD);
				MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_TRAIN_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				busy(2 * gaps[j] + 2 * wait[k]);
				MPI_Recv(buf, (int)b, MPI_BYTE, 0, TAG_TRAIN_RECV + j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Recv(b2, (int)b, MPI_BYTE, 0, TAG_TRAIN_SEND + j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_TRAIN_ACK, MPI_COMM_WORLD);
			}
			spent += MPI_Wtime() - t;
		}
	}
}

/* The exchange phase: per planned size, both ranks write their buffer, line up with a
 * 0-byte MPI_Sendrecv (TAG_EXCH_SYNC), then send s bytes to each other at once with one
 * MPI_Sendrecv (TAG_EXCH), receiving into the second buffer. calib takes the shorter of the
 * two calls: what an exchange costs, against which the ping-pong's one-way time shows the
 * sender's own work (over TCP the kernel's copy into the socket), which a ping-pong hides. */
static void exch_one(int rank, int k, int rep, int i, void *arg)
{
	char **buf = arg;
	int peer = 1 - rank;
	long b = sizes[k];
	memset(buf[0], rep + i, (size_t)b);
	MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, TAG_EXCH_SYNC, NULL, 0, MPI_BYTE, peer, TAG_EXCH_SYNC, MPI_COMM_WORLD,
	             MPI_STATUS_IGNORE);
	MPI_Sendrecv(buf[0], (int)b, MPI_BYTE, peer, TAG_EXCH, buf[1], (int)b, MPI_BYTE, peer, TAG_EXCH, MPI_COMM_WORLD,
	             MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	int maxreps = 1000, quiet = 0, c, rank, np;
	long maxb = 64L << 20, pool = 0;
	double budget = 30;
	MPI_Init(&argc, &argv);
	while ((c = getopt(argc, argv, "m:n:t:P:q")) != -1) {
		if (c == 'm')
			maxb = parse_bytes(optarg, "-m");
		else if (c == 'n')
			maxreps = atoi(optarg);
		else if (c == 't')
			budget = atof(optarg);
		else if (c == 'P')
			pool = parse_bytes(optarg, "-P");
		else if (c == 'q')
			quiet = 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (maxb < 1 || maxb > (1L << 30))
		die("-m: expected a size from 1 byte to 1 GiB");
	if (maxreps < MIN_REPS)
		maxreps = MIN_REPS;
	if (np < 2) {
		if (rank == 0)
			fprintf(stderr, "netcal: needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	make_sizes(maxb);
	/* the nbc phase's communicator: ranks 0 and 1 (every rank takes part in the split) */
	MPI_Comm pair;
	MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
	if (rank > 1) {
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Finalize();
		return 0;
	}

	/* Buffers: the warm one (reused), a second one for self copies and
	 * reductions, and the cold pool, all written once here (never a fresh
	 * page in a measured exchange except in the first-use phase). */
	if (pool <= 0) {
		/* Four times the last-level cache, but never more than the cold phase can walk
		 * (every repetition's slots, each a fresh page) plus one cache: slots are never
		 * reused then, and the first ones were last touched a whole cache ago. Small runs
		 * (tests, -m 64K) then take a cache's worth of memory, not 4x (on a VM that reports
		 * the host's 480 MB L3 as its own: 0.5 GB per rank, not 1.9). */
		long llc = llc_bytes(), walk = 0;
		for (int k = 0; k < nsizes; k++)
			walk += ((sizes[k] + 4095) / 4096 + 1) * 4096;
		pool = 4 * llc;
		if (walk <= (4L << 30) / maxreps && pool > llc + walk * maxreps)
			pool = llc + walk * maxreps;
		if (pool < 4 * maxb)
			pool = 4 * maxb;
		if (pool > (2L << 30))
			pool = 2L << 30;
	}
	if (pool < maxb + 8192)
		pool = maxb + 8192;
	size_t bufsz = (size_t)maxb + 64;
	char *warm = xmalloc(bufsz), *warm2 = xmalloc(bufsz), *cold = xmalloc((size_t)pool);
	memset(warm, 1, bufsz);
	memset(warm2, 2, bufsz);
	memset(cold, 3, (size_t)pool);
	int *plan = xmalloc((size_t)(nsizes + 1) * sizeof *plan), *ok = xmalloc((size_t)nsizes * sizeof *ok);
	double *spent = xmalloc((size_t)nsizes * sizeof *spent);
	double *wait = xmalloc((size_t)nsizes * sizeof *wait);
	double *warm_s = xmalloc((size_t)nsizes * (size_t)maxreps * sizeof *warm_s);
	double *cold_s = xmalloc((size_t)nsizes * (size_t)maxreps * sizeof *cold_s);
	double *first_s = xmalloc((size_t)nsizes * FIRST_REPS * sizeof *first_s);
	int *nrep = xmalloc((size_t)nsizes * sizeof *nrep);
	double share;

	/* pool: through MPI once, chunk by chunk */
	for (long off = 0; off < pool; off += maxb) {
		long b = pool - off < maxb ? pool - off : maxb;
		exchange(rank, cold + off, b, TAG_POOL);
	}
	/* pilot: connections set up, protocols warmed */
	for (int k = 0; k < nsizes; k++)
		for (int i = 0; i < 3; i++)
			exchange(rank, warm, sizes[k], TAG_POOL);
	/* first use: a fresh buffer, written as an application's data would be; mapped and
	 * unmapped here, so that no round reuses pages (malloc's heap would) */
	for (int rep = 0; rep < FIRST_REPS; rep++) {
		for (int k = 0; k < nsizes; k++)
			plan[1 + k] = k;
		shuffle(plan + 1, nsizes, (uint64_t)rep + 5000); /* the same order on both ranks */
		pulse(rank);
		for (int i = 1; i <= nsizes; i++) {
			int k = plan[i];
			size_t len = (size_t)sizes[k] + 1;
			char *fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (fresh == MAP_FAILED)
				die("out of memory (mmap of a first-use buffer)");
			memset(fresh, 4 + rep, len);
			first_s[(size_t)k * FIRST_REPS + (size_t)rep] = exchange(rank, fresh, sizes[k], TAG_FIRST);
			munmap(fresh, len);
		}
	}

	/* warm and cold ping-pongs, interleaved */
	long cursor = 0;
	share = budget * 0.50 / nsizes;
	for (int k = 0; k < nsizes; k++) {
		ok[k] = 1;
		spent[k] = 0;
		nrep[k] = 0;
	}
	for (int rep = 0; plan_rep(rank, rep, maxreps, spent, share, ok, plan) > 0; rep++) {
		for (int i = 1; i <= plan[0]; i++) {
			int k = plan[i];
			long b = sizes[k];
			long step = ((b + 4095) / 4096 + 1) * 4096; /* a new page, and one skipped: no prefetch */
			double tw, tc;
			if (cursor + b + 64 > pool)
				cursor = 0;
			if (rep % 2) {
				tc = exchange(rank, cold + cursor, b, TAG_COLD);
				tw = exchange(rank, warm, b, TAG_WARM);
			} else {
				tw = exchange(rank, warm, b, TAG_WARM);
				tc = exchange(rank, cold + cursor, b, TAG_COLD);
			}
			cursor += step;
			warm_s[(size_t)k * (size_t)maxreps + (size_t)nrep[k]] = tw;
			cold_s[(size_t)k * (size_t)maxreps + (size_t)nrep[k]] = tc;
			nrep[k]++;
			spent[k] += tw + tc;
		}
	}

	/* late receiver: rank 1 waits until the message must have arrived: 4 one-way times,
	 * at least 20 us (calib's test for a send that waited relies on it: formats/calibration.md,
	 * "S") */
	for (int k = 0; k < nsizes; k++) {
		double v[1024];
		int n = nrep[k] < 1024 ? nrep[k] : 1024;
		memcpy(v, warm_s + (size_t)k * (size_t)maxreps, (size_t)n * sizeof *v);
		wait[k] = 4 * median(v, n) / 2;
		if (wait[k] < 20e-6)
			wait[k] = 20e-6;
	}
	if (rank == 0)
		MPI_Send(wait, nsizes, MPI_DOUBLE, 1, TAG_PLAN, MPI_COMM_WORLD);
	else
		MPI_Recv(wait, nsizes, MPI_DOUBLE, 0, TAG_PLAN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	late_phase(rank, TAG_LATE, 0, maxreps, budget * 0.20 / nsizes, wait, warm, spent, ok, plan);
	/* progress: the late receiver again, waiting inside the library; a size's protocol
	 * is clear from a few sends: at most PROGRESS_REPS */
	late_phase(rank, TAG_PROGRESS, 1, maxreps < PROGRESS_REPS ? maxreps : PROGRESS_REPS, budget * 0.05 / nsizes, wait,
	           warm, spent, ok, plan);
	/* train: a send right after another */
	train_phase(rank, maxreps, budget * 0.1, wait, warm, warm2, (unsigned char *)cold, pool);
	/* exchange: both ranks send to each other at once */
	{
		char *bufs[2] = { warm, warm2 };
		planned(rank, maxreps, budget * 0.05 / nsizes, spent, ok, plan, exch_one, bufs);
	}

	/* nonblocking collectives: a few untraced rounds first (the library sets up its
	 * nonblocking machinery on first use), then blocks of NBC_BLOCK MPI_Barrier and of
	 * NBC_BLOCK MPI_Ibarrier + MPI_Wait alternately, as a loop of either settles into its
	 * own rhythm, ending with an MPI_Ibarrier block, so that every measured MPI_Barrier lies
	 * between two MPI_Ibarrier (calib counts only those) */
	for (int i = 0; i < 10; i++) {
		MPI_Request q;
		PMPI_Ibarrier(pair, &q);
		PMPI_Wait(&q, MPI_STATUS_IGNORE);
		PMPI_Barrier(pair);
	}
	for (int rep = 0; rep < maxreps; rep += NBC_BLOCK) {
		pulse(rank);
		for (int i = 0; i < NBC_BLOCK; i++) {
			MPI_Request q;
			MPI_Ibarrier(pair, &q);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
		}
		for (int i = 0; i < NBC_BLOCK; i++)
			MPI_Barrier(pair);
	}
	for (int i = 0; i < NBC_BLOCK; i++) {
		MPI_Request q;
		MPI_Ibarrier(pair, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
	}
	pulse(rank);
	MPI_Comm_free(&pair);

	/* self copies and reductions: rank 0 alone */
	if (rank == 0) {
		share = budget * 0.1 / nsizes;
		for (int k = 0; k < nsizes; k++)
			spent[k] = 0;
		for (int rep = 0; rep < maxreps; rep++) {
			int n = 0;
			for (int k = 0; k < nsizes; k++)
				if (rep < MIN_REPS || spent[k] < share)
					plan[1 + n++] = k;
			if (!n)
				break;
			shuffle(plan + 1, n, (uint64_t)rep + 1000);
			for (int i = 1; i <= n; i++) {
				int k = plan[i];
				double t = MPI_Wtime();
				MPI_Sendrecv(warm, (int)sizes[k], MPI_BYTE, 0, TAG_SELF, warm2, (int)sizes[k], MPI_BYTE, 0, TAG_SELF,
				             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				/* the library's own copy, which a collective makes of a rank's own block */
				MPI_Alltoall(warm, (int)sizes[k], MPI_BYTE, warm2, (int)sizes[k], MPI_BYTE, MPI_COMM_SELF);
				spent[k] += MPI_Wtime() - t;
			}
		}
		/* MPI_DOUBLE, so only whole doubles: sizes of 8 bytes and more that 8 divides */
		double *in = (double *)warm, *inout = (double *)warm2;
		for (long i = 0; i < maxb / 8; i++)
			in[i] = inout[i] = 1.0;
		for (int k = 0; k < nsizes; k++) {
			spent[k] = 0;
			ok[k] = sizes[k] >= 8 && sizes[k] % 8 == 0;
		}
		for (int rep = 0; rep < maxreps; rep++) {
			int n = 0;
			for (int k = 0; k < nsizes; k++)
				if (ok[k] && (rep < MIN_REPS || spent[k] < share))
					plan[1 + n++] = k;
			if (!n)
				break;
			shuffle(plan + 1, n, (uint64_t)rep + 2000);
			for (int i = 1; i <= n; i++) {
				int k = plan[i];
				double t = MPI_Wtime();
				MPI_Reduce_local(in, inout, (int)(sizes[k] / 8), MPI_DOUBLE, MPI_SUM);
				spent[k] += MPI_Wtime() - t;
			}
		}
	}

	/* polls: rank 0 alone (rank 1 waits in the final barrier, its connection open), lines of
	 * POLLS_PER_LINE unsuccessful MPI_Iprobe that allprof collapses into one line each; the
	 * MPI_Comm_rank between them ends a line */
	if (rank == 0)
		for (int rep = 0; rep < maxreps; rep++) {
			int flag, me;
			for (int i = 0; i < POLLS_PER_LINE; i++)
				MPI_Iprobe(MPI_ANY_SOURCE, TAG_POLL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
			MPI_Comm_rank(MPI_COMM_WORLD, &me);
		}

	if (rank == 0 && !quiet)
		for (int k = 0; k < nsizes; k++) {
			size_t o = (size_t)k * (size_t)maxreps;
			printf("%ld %d %.3f %.3f %.3f\n", sizes[k], nrep[k], median(warm_s + o, nrep[k]) / 2 * 1e6,
			       median(cold_s + o, nrep[k]) / 2 * 1e6, median(first_s + (size_t)k * FIRST_REPS, FIRST_REPS) / 2 * 1e6);
		}
	MPI_Barrier(MPI_COMM_WORLD);
	free(warm);
	free(warm2);
	free(cold);
	free(plan);
	free(ok);
	free(spent);
	free(wait);
	free(warm_s);
	free(cold_s);
	free(first_s);
	free(nrep);
	MPI_Finalize();
	return 0;
}
