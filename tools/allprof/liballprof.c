/*
 * liballprof.c: the per-rank machinery of the PMPI tracer: trace buffer and
 * file, clock, handle maps, record encoders and the text formatter, clock
 * synchronisation, and the exits (Finalize, exit(), MPI_Abort, signals).
 *
 * Records are binary in memory and text on disk. In the application's
 * thread a wrapper only stores values: ap_begin() writes a record header
 * (kind, length, the static name's address, t_call), each f_* encoder
 * appends one field as a separator byte, a tag byte and raw values (looked
 * up at that moment: datatype size and extent, communicator id, rank and
 * size, request ids), ap_end() stores t_return and commits the record by
 * advancing the buffer's length. The text of formats/trace.md is produced
 * only when the buffer is flushed: when a record does not fit (spill), at
 * MPI_Finalize, exit(), MPI_Abort, SIGTERM/SIGINT and fatal signals. Lines
 * that are text from the start (headers, clock lines, "# comm" member
 * lines) are stored as raw text records.
 *
 * Cost model. A wrapper reads the clock twice (vDSO clock_gettime, about
 * 20 ns each) and stores a few words per field (no formatting, no stdio,
 * no malloc). Handles are looked up in open-addressing hash maps (one
 * multiply and usually one probe). Formatting costs a few ns per field at
 * flush time, through a fixed text buffer; with compression the text goes
 * through a zstd stream. Memory stays bounded: the record buffer
 * (ALLPROF_BUFSIZE, default 1 MiB; it grows only to hold one record larger
 * than itself), the text buffer, the pending poll and the live handles; once a
 * buffer has filled, a read-back buffer of the same size.
 *
 * Spill (formats/trace.md 3.8). A full buffer is not formatted during the run:
 * its records are written raw to a spill file (opened beside the trace and
 * unlinked at once) and formatted at the end, in order. Formatting took 220 ns
 * a line (1.5-1.8 ms a buffer of 1 MiB) and a partner waiting for this rank's
 * message polled all that time; the raw write takes 0.3 ms. ALLPROF_SPILL=0,
 * or a spill that cannot be made or written, formats at once as before.
 * A background writer thread was considered and rejected: it would add a
 * hand-off per flush and a thread to every rank, and on cores shared by the
 * ranks its formatting would still take their time.
 *
 * Safety. Only committed (complete) records are formatted, so the signal
 * handler can format and write the spill and the buffer at any point: the
 * formatter uses nothing but memcpy, strlen, the put_* helpers, pread(2) and
 * write(2) (no malloc, no stdio, no locks). If a signal interrupts a flush, the records formatted
 * before it are not written twice, the one being formatted may be
 * (best effort). An exit that is not MPI_Finalize (exit() without
 * Finalize, MPI_Abort, SIGTERM, SIGINT, a fatal signal) ends the trace with
 * "# incomplete <why>" instead of the "# end" line, so readers can tell a
 * cut-short trace from a complete one.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "liballprof.h"

/* the format version in the header: 2 with CPU times (formats/trace.md section 3.6), else 1,
 * whose layout version 2 keeps */
#define AP_FORMAT_VERSION "1"
#define AP_FORMAT_VERSION_CPU "2"
/* a poll joins the collapsed line of the same poll only if it was called less than this
 * long after that one's last return (formats/trace.md 3.2, "# collapse gap:") */
#define AP_COLLAPSE_GAP_NS 1000
#define AP_STR_(x) #x
#define AP_STR(x) AP_STR_(x)
#ifndef IR_VERSION
#define IR_VERSION "1.0"
#endif

struct ap_state ap;
__thread int ap_depth __attribute__((tls_model("initial-exec")));
/* With ALLPROF_CPUTIME: the thread's CPU time (ns) at the last two ap_now() calls; a wrapper
 * reads the clock at entry and at return, then begins its record, which takes the pair. */
static __thread uint64_t cpu_prev __attribute__((tls_model("initial-exec")));
static __thread uint64_t cpu_cur __attribute__((tls_model("initial-exec")));
static __thread int cpu_in __attribute__((tls_model("initial-exec"))); /* the next ap_now() is a return */
/* the CPU clock's system calls (cpu_read), summed, ns; its value at the last return's reading
 * of the monotonic clock; and what was read between that and the current call's entry: the
 * tracer's own time in the gap, which the collapse gap leaves out (ap_poll_end) */
static __thread uint64_t cpu_read_ns __attribute__((tls_model("initial-exec")));
static __thread uint64_t cpu_read_at_ret __attribute__((tls_model("initial-exec")));
static __thread uint64_t cpu_read_gap __attribute__((tls_model("initial-exec")));

/*
 * Record encoding (native byte order, unaligned; memory only, never on disk):
 *   call record  'C' len:8 name:8 t_call:8 fields... t_return:8
 *   poll record  'P' len:8 name:8 t_call:8 fields... count:8 t_return:8
 *   text record  'T' len:8 bytes...
 * and with CPU times (ALLPROF_CPUTIME), the same with the thread's CPU time at the call and
 * at the return before t_return:
 *   'c' len:8 name:8 t_call:8 fields... cpu_call:8 cpu_return:8 t_return:8
 *   'p' len:8 name:8 t_call:8 fields... count:8 cpu_call:8 cpu_return:8 t_return:8
 * len counts the whole record. name is the address of a static string. A
 * field is <sep><tag><value>: sep is the character written before the value
 * (':' as encoded; list helpers overwrite it with ',' or ';'), tag one of
 * the FT_* below.
 */
enum { RK_CALL = 'C', RK_POLL = 'P', RK_TEXT = 'T', RK_CALLC = 'c', RK_POLLC = 'p' };
enum { REC_HDR = 1 + 8 + 8 + 8, TEXT_HDR = 1 + 8 };
enum {
	FT_I64 = 1, /* int64: decimal */
	FT_U64,     /* uint64: decimal */
	FT_DASH,    /* nothing: "-" */
	FT_TRIPLE,  /* 3 x int64: "a,b,c" (datatype, communicator, status) */
	FT_GROUP,   /* 2 x int64: "g<id>,<size>" */
	FT_REQ,     /* uint64: "r<id>" */
	FT_MSG,     /* uint64: "m<id>" */
	FT_LIST,    /* n:4, n x int32: "v0,v1,..." (n > 0) */
	FT_REQS,    /* n:4, n x uint64: "r<id>,r<id>,..." (n > 0) */
	FT_STR,     /* address of a static string: the string */
};

/* The signal handler reads what the application thread writes: a record's
 * bytes are in memory before the length that commits it (the compiler may
 * not move stores across this fence; the handler runs in the same thread). */
#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Text buffer of the formatter; one step of formatting writes at most TB_STEP bytes. */
enum { TB_CAP = 256 * 1024, TB_STEP = 128 };

/* Everything below is private to this file. */
static struct {
	char *buf;            /* committed records are buf[0..len) */
	size_t len, cap;
	size_t fmt_pos;       /* records in buf[0..fmt_pos) are formatted (during a flush) */
	char *rec_end;        /* the end of the room ap_begin reserved for the open record */
	char *tb;             /* formatted text not yet written is tb[0..tlen) */
	size_t tlen;
	uint64_t tc_sec;      /* the seconds of the last time formatted, */
	char tc_txt[24];      /* their digits */
	unsigned tc_n;
	int fd;
	char path[4096];
	uint64_t base_ns;     /* realtime - monotonic at start */
	uint64_t records;     /* call lines written */
	uint64_t calls;       /* intercepted calls (a collapsed poll line counts each call) */
	uint64_t self_ns;     /* the tracer's own time after the calls' returns (formats/trace.md 3.8):
	                       * 8 x that of every 8th call, less its flushes, */
	uint64_t flush_ns;    /* plus the flushes' time, measured whole */
	uint64_t flush_mark;  /* flush_ns at the end of the last call */
	uint64_t flush_lined; /* of flush_ns, what "# flush:" lines say (formats/trace.md 3.8) */
	uint64_t self_k;      /* the calls self_time has seen */
	uint64_t unseen_ns;   /* per call, the tracer's time no reading sees (measure_unseen) */
	uint64_t polls_collapsed;
	uint64_t text_bytes;  /* text handed to write(2) or zstd so far */
	uint64_t flushes;
	int write_failed;
	/* the spill (ALLPROF_SPILL, on by default): a full buffer's records go raw to an
	 * unlinked file next to the trace and are formatted at the end (drain_spill) */
	int spill;            /* spill full buffers (else format them at once, as before) */
	int spill_fd;         /* -1: none open yet (or given up) */
	uint64_t spill_end;   /* whole buffers in it: bytes [0, spill_end) */
	uint64_t spill_old;   /* spill_end before the buffer being spilled */
	int spilling;         /* a buffer is being written to it */
	uint64_t drain_pos;   /* spill bytes whose records are formatted (their text in tb or out) */
	char *rbuf;           /* records read back from the spill, rcap >= cap */
	size_t rcap;
	ZSTD_CCtx *zc;
	char *zout;
	size_t zcap;
	pthread_mutex_t mu;
	/* pending poll: a poll record without count and t_return, not yet in buf */
	char *poll;
	size_t poll_len, poll_cap;
	uint64_t poll_n, poll_t1;
	uint64_t poll_fl;     /* flush_ns when the last poll returned (ap_poll_end) */
	uint64_t poll_c0, poll_c1;  /* its CPU times (first call, last return) */
	uint64_t rec_c0, rec_c1;    /* CPU times of the record being written */
	uint64_t scr_c0, scr_c1;    /* ... of the poll record in scratch */
	uint64_t fin_c0;            /* CPU time at MPI_Finalize's call */
	uint64_t init_c0;           /* ... at the start of the tracer's start-up (MPI_Init's call) */
	int poll_active;
	size_t poll_done_at;  /* the length that commits the pending poll, while it is being moved */
	uint64_t last_t1;     /* t_return of the last line (lines never go back in time) */
	/* scratch for a poll record being encoded */
	char *scratch;
	size_t scratch_cap;
	char *scratch_end;
	/* maps */
	ap_map reqs, reqs2, comms, types, msgs, ops, groups, wins;
	int64_t next_group, next_win;
	uint64_t next_req, next_msg;
	int64_t next_comm, next_type;
	/* "# comm" lines waiting for the end of the current record */
	char *pend;
	size_t pend_len, pend_cap;
	MPI_Comm sync_comm;
	int64_t init_off_ns, init_rtt_ns;
	volatile sig_atomic_t in_signal;
	struct sigaction old_sa[32];
} S = { .fd = -1, .mu = PTHREAD_MUTEX_INITIALIZER };

/* ---------------------------------------------------------------- clock */

/*
 * The thread's CPU clock is a system call (0.2-0.6 us; 0.53 us on a 2-core VM), and reading
 * it twice per MPI call made HPCC on 4 ranks of 2 cores run 1.9 s instead of 1.2 s untraced,
 * and an exchange around a ring of 4 ranks 11 us an iteration instead of 3. So the clock is
 * read only when CPU_EXACT_NS or more of wall time have passed since its last reading; a
 * reading in between is the previous one plus the wall time since it (formats/trace.md 3.6).
 * A gap or a call that lasts CPU_EXACT_NS or more therefore ends with the clock, and one
 * that is shorter is off by at most the time the thread spent off its CPU within the
 * CPU_EXACT_NS since the clock's last reading. ALLPROF_CPUTIME_EXACT=1 reads it every time.
 * (A perf task-clock event whose user page shows when the thread was scheduled back in
 * finds those switches, but it makes every context switch dearer: HPCC took 2.2 s.)
 */
enum { CPU_EXACT_NS = 20000 };
static __thread uint64_t cpu_exact_w __attribute__((tls_model("initial-exec"))); /* wall time of the last clock reading, 0: none yet */
static __thread uint64_t cpu_exact_v __attribute__((tls_model("initial-exec"))); /* and its value */
static int cpu_every = -1; /* ALLPROF_CPUTIME_EXACT=1: the clock at every reading */

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_read(void)
{
	struct timespec c;
	uint64_t v, w = mono_ns();
	if (cpu_exact_w && w - cpu_exact_w < CPU_EXACT_NS && !cpu_every) {
		/* from the clock's last reading, not from the last value: a value that ran
		 * ahead of the clock must not carry its excess on */
		v = cpu_exact_v + (w - cpu_exact_w);
	} else {
		uint64_t w2;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
		v = (uint64_t)c.tv_sec * 1000000000u + (uint64_t)c.tv_nsec;
		cpu_exact_v = v;
		/* the clock was read somewhere inside its system call: its middle */
		w2 = mono_ns();
		cpu_exact_w = w + (w2 - w) / 2;
		cpu_read_ns += w2 - w;
	}
	if (v < cpu_cur) /* a value ran ahead of the clock: stay there until it catches up */
		v = cpu_cur;
	cpu_prev = cpu_cur;
	cpu_cur = v;
}

uint64_t ap_now(void)
{
	struct timespec ts;
	if (__builtin_expect(ap.cpu, 0)) {
		/* The CPU clock is a system call, not the vDSO (about 170 ns here): it is read
		 * before t_call and after t_return, so that its cost falls in the gaps, which a
		 * replay keeps as computation, not in the calls, which it replaces by a model. */
		int ret = cpu_in;
		cpu_in = !ret;
		if (!ret) {
			cpu_read();
			cpu_read_gap = cpu_read_ns - cpu_read_at_ret;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ret) {
			cpu_read_at_ret = cpu_read_ns;
			cpu_read();
		}
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + S.base_ns;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* realtime - monotonic. Reading the two clocks one after the other can be
 * split by a preemption (it once shifted a rank by 19 us), so realtime is
 * read between two monotonic readings, a few times, and the reading with
 * the smallest monotonic gap is kept, against the gap's midpoint. */
static void clock_base(void)
{
	uint64_t best = UINT64_MAX, base = 0;
	for (int i = 0; i < 5; i++) {
		struct timespec m0, rt, m1;
		clock_gettime(CLOCK_MONOTONIC, &m0);
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		uint64_t a = ts_ns(&m0), r = ts_ns(&rt), b = ts_ns(&m1);
		if (b < a || b - a >= best)
			continue;
		best = b - a;
		uint64_t mid = a + (b - a) / 2;
		base = r > mid ? r - mid : 0;
	}
	S.base_ns = base;
}

void ap_lock(void)
{
	if (ap.mt)
		pthread_mutex_lock(&S.mu);
}

void ap_unlock(void)
{
	if (ap.mt)
		pthread_mutex_unlock(&S.mu);
}

/* ---------------------------------------------------------------- numbers */

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
	1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
	100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
	1000000000000000000u, 10000000000000000000u,
};

/* Decimal digits of v (v | 1 has as many: 10^k - 1 is odd). */
static inline unsigned ndigits(uint64_t v)
{
	v |= 1;
	unsigned t = (unsigned)(64 - __builtin_clzll(v)) * 1233 >> 12; /* ~log10 */
	return t + 1 - (v < pow10_tab[t]);
}

/* The w-digit decimal of v < 10^w (w <= 9), zero-padded, written backwards
 * to end at e (32-bit arithmetic: two 8-digit halves of a 64-bit number
 * are converted independently). */
static inline void put_digits(char *e, uint32_t v, unsigned w)
{
	while (w >= 2) {
		e -= 2;
		memcpy(e, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
		w -= 2;
	}
	if (w)
		e[-1] = (char)('0' + v);
}

static char *put_u64(char *p, uint64_t v)
{
	unsigned n = ndigits(v);
	char *e = p + n;
	if (n <= 8) {
		put_digits(e, (uint32_t)v, n);
		return e;
	}
	put_digits(e, (uint32_t)(v % 100000000u), 8);
	v /= 100000000u;
	if (n <= 16) {
		put_digits(e - 8, (uint32_t)v, n - 8);
		return e;
	}
	put_digits(e - 8, (uint32_t)(v % 100000000u), 8);
	put_digits(e - 16, (uint32_t)(v / 100000000u), n - 16);
	return e;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* nanoseconds as microseconds with three decimals */
static char *put_time(char *p, uint64_t ns)
{
	p = put_u64(p, ns / 1000);
	unsigned f = (unsigned)(ns % 1000);
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	p[2] = (char)('0' + f / 10 % 10);
	p[3] = (char)('0' + f % 10);
	return p + 4;
}

static char *put_stime(char *p, int64_t ns)
{
	if (ns < 0) {
		*p++ = '-';
		return put_time(p, (uint64_t)0 - (uint64_t)ns);
	}
	return put_time(p, (uint64_t)ns);
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

/* ---------------------------------------------------------------- maps */

static uint64_t hkey_bits(const void *h, size_t n)
{
	uint64_t k = 0;
	memcpy(&k, h, n < sizeof k ? n : sizeof k);
	return k ? k : ~(uint64_t)0;
}
#define HKEY(h) hkey_bits(&(h), sizeof(h))

static size_t hslot(uint64_t k, size_t cap)
{
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static ap_ent *map_find(ap_map *m, uint64_t k)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hslot(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->e[i].key == k)
			return &m->e[i];
		if (!m->e[i].key)
			return NULL;
	}
}

static ap_ent *map_put(ap_map *m, uint64_t k)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		ap_ent *ne = calloc(nc, sizeof *ne);
		if (!ne)
			abort(); /* out of memory in the tracer: nothing sane to do */
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->e[i].key)
				continue;
			size_t j = hslot(m->e[i].key, nc);
			while (ne[j].key)
				j = (j + 1) & (nc - 1);
			ne[j] = m->e[i];
		}
		free(m->e);
		m->e = ne;
		m->cap = nc;
	}
	size_t i = hslot(k, m->cap);
	while (m->e[i].key && m->e[i].key != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->e[i].key) {
		m->n++;
		m->e[i].key = k;
	}
	return &m->e[i];
}

/* Linear probing deletion by backward shift (no tombstones). */
static void map_del(ap_map *m, ap_ent *e)
{
	size_t i = (size_t)(e - m->e), mask = m->cap - 1;
	m->e[i].key = 0;
	m->n--;
	for (size_t j = (i + 1) & mask; m->e[j].key; j = (j + 1) & mask) {
		size_t h = hslot(m->e[j].key, m->cap);
		/* can entry j move to the hole at i? yes if h is not in (i, j] cyclically */
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			m->e[i] = m->e[j];
			m->e[j].key = 0;
			i = j;
		}
	}
}

/* ---------------------------------------------------------------- encoding */

static inline char *st64(char *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static inline uint64_t ld64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* <':'><tag> of a field */
static inline char *ftag(char *p, int tag)
{
	p[0] = ':';
	p[1] = (char)tag;
	return p + 2;
}

static inline char *f_triple(char *p, int64_t a, int64_t b, int64_t c)
{
	p = ftag(p, FT_TRIPLE);
	p = st64(p, (uint64_t)a);
	p = st64(p, (uint64_t)b);
	return st64(p, (uint64_t)c);
}

/* ---------------------------------------------------------------- output */

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			S.write_failed = 1;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Hand bytes to the file, through zstd when compressing; end the frame if `end`. */
static void out_bytes(const char *p, size_t n, int end)
{
	if (S.fd < 0)
		return;
	S.text_bytes += n;
	if (!S.zc) {
		write_all(S.fd, p, n);
		return;
	}
	ZSTD_inBuffer in = { p, n, 0 };
	for (;;) {
		ZSTD_outBuffer out = { S.zout, S.zcap, 0 };
		size_t r = ZSTD_compressStream2(S.zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(r)) {
			S.write_failed = 1;
			return;
		}
		write_all(S.fd, S.zout, out.pos);
		if (end ? r == 0 : in.pos == in.size)
			break;
	}
}

/* ---------------------------------------------------------------- formatter */

/*
 * Text is formatted into S.tb through a cursor q. tb_room() makes sure that
 * TB_STEP bytes fit after q, writing the text out if not; tb_bytes() copies
 * a string of any length. S.tlen is brought up to date after each record
 * (and set to 0 whenever the text is handed out), so that a signal handler
 * interrupting a flush finds the text of whole records in tb[0..tlen).
 * Async-signal-safe: memcpy, strlen, put_*, write(2).
 */
static char *tb_room(char *q)
{
	size_t n = (size_t)(q - S.tb);
	if (n + TB_STEP <= TB_CAP)
		return q;
	S.tlen = 0;
	out_bytes(S.tb, n, 0);
	return S.tb;
}

static char *tb_bytes(char *q, const char *s, size_t n)
{
	while (n) {
		size_t room = TB_CAP - (size_t)(q - S.tb);
		if (!room) {
			S.tlen = 0;
			out_bytes(S.tb, TB_CAP, 0);
			q = S.tb;
			room = TB_CAP;
		}
		size_t k = n < room ? n : room;
		memcpy(q, s, k);
		q += k;
		s += k;
		n -= k;
	}
	return q;
}

/* The fields in f[0..e) as text. */
static char *fmt_fields(char *q, const char *f, const char *e)
{
	while (e - f >= 2) {
		q = tb_room(q);
		*q++ = f[0];
		int tag = (unsigned char)f[1];
		f += 2;
		size_t left = (size_t)(e - f);
		switch (tag) {
		case FT_I64:
			if (left < 8)
				return q;
			q = put_i64(q, (int64_t)ld64(f));
			f += 8;
			break;
		case FT_U64:
			if (left < 8)
				return q;
			q = put_u64(q, ld64(f));
			f += 8;
			break;
		case FT_DASH:
			*q++ = '-';
			break;
		case FT_TRIPLE:
			if (left < 24)
				return q;
			q = put_i64(q, (int64_t)ld64(f));
			*q++ = ',';
			q = put_i64(q, (int64_t)ld64(f + 8));
			*q++ = ',';
			q = put_i64(q, (int64_t)ld64(f + 16));
			f += 24;
			break;
		case FT_GROUP:
			if (left < 16)
				return q;
			*q++ = 'g';
			q = put_i64(q, (int64_t)ld64(f));
			*q++ = ',';
			q = put_i64(q, (int64_t)ld64(f + 8));
			f += 16;
			break;
		case FT_REQ:
		case FT_MSG:
			if (left < 8)
				return q;
			*q++ = tag == FT_REQ ? 'r' : 'm';
			q = put_u64(q, ld64(f));
			f += 8;
			break;
		case FT_LIST:
		case FT_REQS: {
			size_t w = tag == FT_LIST ? 4 : 8;
			if (left < 4)
				return q;
			size_t n = ld32(f);
			f += 4;
			if ((size_t)(e - f) / w < n)
				return q;
			for (size_t i = 0; i < n; i++, f += w) {
				if (i) {
					q = tb_room(q);
					*q++ = ',';
				}
				if (tag == FT_LIST) {
					q = put_i64(q, (int32_t)ld32(f));
				} else {
					*q++ = 'r';
					q = put_u64(q, ld64(f));
				}
			}
			break;
		}
		case FT_STR: {
			if (left < 8)
				return q;
			const char *s = (const char *)(uintptr_t)ld64(f);
			f += 8;
			q = tb_bytes(q, s, strlen(s));
			break;
		}
		default: /* not written by any encoder */
			return q;
		}
	}
	return q;
}

/* put_time() for the formatter: the digits of the seconds are kept from
 * one time to the next (not in the signal handler, which may have
 * interrupted their update). */
static char *fmt_time(char *q, uint64_t ns)
{
	uint64_t sec = ns / 1000000000u;
	uint32_t rem = (uint32_t)(ns % 1000000000u);
	if (!sec || S.in_signal)
		return put_time(q, ns);
	if (sec != S.tc_sec) {
		S.tc_n = (unsigned)(put_u64(S.tc_txt, sec) - S.tc_txt);
		S.tc_sec = sec;
	}
	memcpy(q, S.tc_txt, sizeof S.tc_txt); /* fixed size: the bytes after tc_n are overwritten */
	q += S.tc_n;
	put_digits(q + 6, rem / 1000, 6);
	q[6] = '.';
	put_digits(q + 10, rem % 1000, 3);
	return q + 10;
}

/* A CPU time: microseconds with three decimals. */
static char *fmt_cpu(char *q, uint64_t ns)
{
	q = put_u64(q, ns / 1000);
	*q++ = '.';
	put_digits(q + 3, ns % 1000, 3);
	return q + 3;
}

/* One call or poll line: NAME:t_call<fields>[:count]:t_return[:c<cpu_call>,<cpu_return>]\n
 * (cpu: the record has CPU times at c[0], c[1]) */
static char *fmt_line(char *q, const char *hdr, const char *f, const char *e, int poll,
		      uint64_t n, uint64_t t1, const char *c)
{
	const char *name = (const char *)(uintptr_t)ld64(hdr + 9);
	q = tb_bytes(q, name, strlen(name));
	q = tb_room(q);
	*q++ = ':';
	q = fmt_time(q, ld64(hdr + 17));
	q = fmt_fields(q, f, e);
	q = tb_room(q);
	if (poll) {
		*q++ = ':';
		q = put_u64(q, n);
	}
	*q++ = ':';
	q = fmt_time(q, t1);
	if (c) {
		q = tb_room(q);
		*q++ = ':';
		*q++ = 'c';
		q = fmt_cpu(q, ld64(c));
		*q++ = ',';
		q = fmt_cpu(q, ld64(c + 8));
	}
	*q++ = '\n';
	return q;
}

/* Format the whole records in [b, end), leaving the text in S.tb; *pos (an offset) moves
 * past each record as its text is complete in S.tb, so that a signal handler finds the
 * text of whole records in tb[0..tlen) and where the next record begins. Returns the
 * bytes of whole records formatted. */
static size_t fmt_range(const char *b, const char *end, uint64_t *pos)
{
	char *q = S.tb + S.tlen;
	const char *b0 = b;
	while (end - b >= TEXT_HDR) {
		uint64_t len = ld64(b + 1);
		if (len < TEXT_HDR || len > (uint64_t)(end - b))
			break; /* a record cut by the end of the range (a spill read) */
		const char *e = b + len;
		if (b[0] == RK_TEXT)
			q = tb_bytes(q, b + TEXT_HDR, len - TEXT_HDR);
		else if (b[0] == RK_CALL && len >= REC_HDR + 8)
			q = fmt_line(q, b, b + REC_HDR, e - 8, 0, 0, ld64(e - 8), NULL);
		else if (b[0] == RK_POLL && len >= REC_HDR + 16)
			q = fmt_line(q, b, b + REC_HDR, e - 16, 1, ld64(e - 16), ld64(e - 8), NULL);
		else if (b[0] == RK_CALLC && len >= REC_HDR + 24)
			q = fmt_line(q, b, b + REC_HDR, e - 24, 0, 0, ld64(e - 8), e - 24);
		else if (b[0] == RK_POLLC && len >= REC_HDR + 32)
			q = fmt_line(q, b, b + REC_HDR, e - 32, 1, ld64(e - 32), ld64(e - 8), e - 24);
		b = e;
		*pos += len;
		S.tlen = (size_t)(q - S.tb);
	}
	return (size_t)(b - b0);
}

/* Format the committed records from S.fmt_pos to `live` (S.len, or 0 when a signal finds
 * them spilled already), leaving the text in S.tb. */
static void fmt_records_to(size_t live)
{
	uint64_t pos = S.fmt_pos;
	if (live > S.fmt_pos)
		fmt_range(S.buf + S.fmt_pos, S.buf + live, &pos);
	S.fmt_pos = (size_t)pos;
}

static void fmt_records(void)
{
	fmt_records_to(S.len);
}

/* Write out the text already formatted. */
static void tb_out(void)
{
	size_t n = S.tlen;
	S.tlen = 0;
	if (n)
		out_bytes(S.tb, n, 0);
}

/* Write n bytes at offset off of fd; 0, or -1 (errno) */
static int pwrite_all(int fd, const char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Format the spilled records not formatted yet, in order, and write their text
 * (formats/trace.md 3.8). Async-signal-safe: pread(2), write(2) and the formatter. */
static void drain_spill(void)
{
	uint64_t rd, end = S.spill_end;
	size_t have = 0;
	if (S.spill_fd < 0 || !S.rbuf)
		return;
	rd = S.drain_pos;
	while (rd < end || have) {
		size_t n = S.rcap - have;
		if ((uint64_t)n > end - rd)
			n = (size_t)(end - rd);
		while (n) {
			ssize_t r = pread(S.spill_fd, S.rbuf + have, n, (off_t)rd);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) { /* cannot happen: the file holds what was written */
				S.write_failed = 1;
				return;
			}
			have += (size_t)r;
			rd += (uint64_t)r;
			n -= (size_t)r;
		}
		size_t c = fmt_range(S.rbuf, S.rbuf + have, &S.drain_pos);
		if (!c) { /* a record larger than rbuf: cannot happen (rcap >= cap) */
			if (have)
				S.write_failed = 1;
			return;
		}
		memmove(S.rbuf, S.rbuf + c, have - c);
		have -= c;
	}
}

/* Open the spill: an unlinked file beside the trace; 0 ok, -1 (spilling given up). */
static int spill_open(void)
{
	char sp[sizeof S.path + 8];
	snprintf(sp, sizeof sp, "%s.spill", S.path);
	S.rbuf = malloc(S.cap);
	S.spill_fd = S.rbuf ? open(sp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
	if (S.spill_fd < 0) {
		free(S.rbuf);
		S.rbuf = NULL;
		S.spill = 0;
		return -1;
	}
	unlink(sp);
	S.rcap = S.cap;
	return 0;
}

/* The spill written out so far and then the buffer, formatted; the buffer emptied. */
static void format_out(void)
{
	drain_spill();
	fmt_records();
	tb_out();
	S.len = 0;
	S.fmt_pos = 0;
}

/* A full buffer during the run: its records raw to the spill (a write of the buffer, where
 * formatting it took 220 ns a line: 1.7 ms a buffer of 1 MiB, in which a partner polled
 * for this rank's messages), or formatted and written when spilling is off or failed. */
static void spill_buf(void)
{
	if (!S.len)
		return;
	uint64_t t0 = mono_ns();
	if (S.spill && (S.spill_fd >= 0 || spill_open() == 0)) {
		S.spill_old = S.spill_end;
		S.spilling = 1;
		SIGNAL_FENCE();
		if (pwrite_all(S.spill_fd, S.buf, S.len, S.spill_end) == 0) {
			S.spill_end += S.len;
			SIGNAL_FENCE();
			S.len = 0;
			S.fmt_pos = 0;
			SIGNAL_FENCE();
			S.spilling = 0;
		} else { /* no room for it: what is spilled first, then no more spilling */
			S.spilling = 0;
			S.spill = 0;
			format_out();
		}
	} else {
		format_out();
	}
	S.flushes++;
	S.flush_ns += mono_ns() - t0;
}

/* The spill's file closed (its name was unlinked when it was opened) */
static void spill_close(void)
{
	if (S.spill_fd >= 0 && S.rbuf)
		close(S.spill_fd);
	S.spill_fd = -1;
	free(S.rbuf);
	S.rbuf = NULL;
}

/* At the end: the spill and the buffer formatted and written, the buffer emptied. */
static void flush_buf(void)
{
	uint64_t t0 = mono_ns();
	if (!S.len && S.drain_pos >= S.spill_end)
		return;
	format_out();
	S.flushes++;
	S.flush_ns += mono_ns() - t0;
}

/* Make room for n more bytes after the committed records. */
static void reserve(size_t n)
{
	if (S.len + n <= S.cap)
		return;
	spill_buf();
	if (n > S.cap) { /* one record larger than the buffer: grow to fit it */
		char *nb = realloc(S.buf, n);
		if (!nb)
			abort();
		S.buf = nb;
		S.cap = n;
		if (S.rbuf) { /* the spill's read-back holds any record */
			nb = realloc(S.rbuf, n);
			if (!nb)
				abort();
			S.rbuf = nb;
			S.rcap = n;
		}
	}
}

/* A raw text record. */
static void put_line(const char *s, size_t n)
{
	reserve(n + TEXT_HDR);
	char *p = S.buf + S.len;
	p[0] = RK_TEXT;
	st64(p + 1, n + TEXT_HDR);
	memcpy(p + TEXT_HDR, s, n);
	SIGNAL_FENCE();
	S.len += n + TEXT_HDR;
}

/* An encoder wrote past the room its record reserved: a bound in a wrapper is wrong. */
static void overrun(const char *rec)
{
	static const char msg[] = "liballprof: internal error: a record exceeds its bound: ";
	const char *name = (const char *)(uintptr_t)ld64(rec + 9);
	write_all(2, msg, sizeof msg - 1);
	write_all(2, name, strlen(name));
	write_all(2, "\n", 1);
	abort();
}

/* Move the pending poll into the buffer as a poll record. */
static void poll_close(void)
{
	if (!S.poll_active)
		return;
	size_t n = S.poll_len + (ap.cpu ? 32 : 16);
	reserve(n);
	char *p = S.buf + S.len, *q;
	memcpy(p, S.poll, S.poll_len);
	st64(p + 1, n);
	q = st64(p + S.poll_len, S.poll_n);
	if (ap.cpu) {
		p[0] = RK_POLLC;
		q = st64(st64(q, S.poll_c0), S.poll_c1);
	}
	st64(q, S.poll_t1);
	S.poll_done_at = S.len + n; /* a signal from here on: committed or not, never twice */
	SIGNAL_FENCE();
	S.len += n;
	SIGNAL_FENCE();
	S.records++;
	S.poll_active = 0;
}

static inline char *rec_head(char *p, int kind, const char *name, uint64_t t0)
{
	p[0] = (char)kind;
	memcpy(p + 9, &name, sizeof name);
	return st64(p + 17, t0);
}

char *ap_begin(size_t bound, const char *name, uint64_t t0)
{
	if (S.poll_active)
		poll_close();
	reserve(bound + 80);
	char *p = S.buf + S.len;
	S.rec_end = p + bound + 64 - 8;
	S.rec_c0 = cpu_prev;
	S.rec_c1 = cpu_cur;
	return rec_head(p, ap.cpu ? RK_CALLC : RK_CALL, name, t0);
}

static void pend_flush(void)
{
	if (!S.pend_len)
		return;
	size_t n = S.pend_len;
	S.pend_len = 0;
	put_line(S.pend, n);
}

/* Threads (MPI_THREAD_MULTIPLE) read t_return before they take the lock, so
 * a line can reach the buffer after a line with a later t_return: its
 * t_return is raised to that one's (by the lock hand-off time, well under a
 * microsecond), so t_return never goes back within a rank. */
static uint64_t t_ret(uint64_t t1)
{
	if (t1 < S.last_t1)
		t1 = S.last_t1;
	S.last_t1 = t1;
	return t1;
}

/* The tracer's own time after a call's return t1, read when the wrapper is about to return
 * to the program (formats/trace.md 3.8): the flushes its reserve made are timed whole
 * (flush_buf), and the rest, its record, only at every 8th call and counted 8 times, since a
 * clock reading at every call (22 ns) would add a fifth to what tracing a call costs. */
static inline void self_time(uint64_t t1)
{
	uint64_t fl = S.flush_ns - S.flush_mark;
	S.flush_mark = S.flush_ns;
	if (fl && !S.poll_active) {
		/* the flush lies in the gap after this call: a line right after its record says how
		 * long it took (inside a run of collapsed polls it goes to the "# tracer:" total) */
		char line[48], *q = put_str(line, "# flush: ");
		q = put_u64(q, fl);
		q = put_str(q, " ns\n");
		put_line(line, (size_t)(q - line));
		S.flush_lined += fl;
	}
	if ((++S.self_k & 7) != 0)
		return;
	uint64_t now = mono_ns() + S.base_ns; /* t1's clock (ap_now) */
	if (now > t1 + fl)
		S.self_ns += 8 * (now - t1 - fl);
}

void ap_end(char *p, uint64_t t1)
{
	char *r = S.buf + S.len;
	if (p > S.rec_end)
		overrun(r);
	if (r[0] == RK_CALLC)
		p = st64(st64(p, S.rec_c0), S.rec_c1);
	p = st64(p, t_ret(t1));
	st64(r + 1, (uint64_t)(p - r));
	SIGNAL_FENCE();
	S.len = (size_t)(p - S.buf); /* commit */
	S.records++;
	S.calls++;
	if (S.pend_len)
		pend_flush();
	self_time(t1);
}

char *ap_poll_begin(size_t bound, const char *name, uint64_t t0)
{
	if (bound + 64 > S.scratch_cap) {
		char *n = realloc(S.scratch, bound + 64);
		if (!n)
			abort();
		S.scratch = n;
		S.scratch_cap = bound + 64;
	}
	S.scratch_end = S.scratch + bound + 64 - 16;
	S.scr_c0 = cpu_prev;
	S.scr_c1 = cpu_cur;
	return rec_head(S.scratch, RK_POLL, name, t0);
}

/* Same call and same fields (the names are static strings: usually the same address). */
static int poll_same(size_t len)
{
	if (S.poll_len != len ||
	    memcmp(S.poll + REC_HDR, S.scratch + REC_HDR, len - REC_HDR) != 0)
		return 0;
	const char *a = (const char *)(uintptr_t)ld64(S.poll + 9);
	const char *b = (const char *)(uintptr_t)ld64(S.scratch + 9);
	return a == b || strcmp(a, b) == 0;
}

void ap_poll_end(char *p, uint64_t t1, int success)
{
	if (p > S.scratch_end)
		overrun(S.scratch);
	size_t len = (size_t)(p - S.scratch);
	t1 = t_ret(t1);
	S.calls++;
	if (!success && ap.collapse) {
		/* the same poll again, called less than the collapse gap after the last one's
		 * return, not counting the tracer's own time in between (its CPU clock readings
		 * and flushes; formats/trace.md 3.2): a run with work between its polls keeps one
		 * line a poll */
		if (S.poll_active && poll_same(len) &&
		    ld64(S.scratch + 17) < S.poll_t1 + AP_COLLAPSE_GAP_NS + cpu_read_gap + (S.flush_ns - S.poll_fl)) {
			S.poll_n++;
			S.poll_t1 = t1;
			S.poll_c1 = S.scr_c1;
			S.polls_collapsed++;
			self_time(t1);
			S.poll_fl = S.flush_ns;
			return;
		}
		poll_close();
		if (len > S.poll_cap) {
			char *n = realloc(S.poll, len);
			if (!n)
				abort();
			S.poll = n;
			S.poll_cap = len;
		}
		memcpy(S.poll, S.scratch, len);
		S.poll_len = len;
		S.poll_n = 1;
		S.poll_t1 = t1;
		S.poll_c0 = S.scr_c0;
		S.poll_c1 = S.scr_c1;
		S.poll_done_at = SIZE_MAX;
		SIGNAL_FENCE();
		S.poll_active = 1;
		if (S.pend_len)
			pend_flush();
		self_time(t1);
		S.poll_fl = S.flush_ns;
		return;
	}
	poll_close();
	size_t n = len + (ap.cpu ? 32 : 16);
	reserve(n);
	char *q = S.buf + S.len, *w;
	memcpy(q, S.scratch, len);
	st64(q + 1, n);
	w = st64(q + len, 1);
	if (ap.cpu) {
		q[0] = RK_POLLC;
		w = st64(st64(w, S.scr_c0), S.scr_c1);
	}
	st64(w, t1);
	SIGNAL_FENCE();
	S.len += n;
	S.records++;
	if (S.pend_len)
		pend_flush();
	self_time(t1);
}

/* ---------------------------------------------------------------- fields */

char *f_int(char *p, int64_t v)
{
	return st64(ftag(p, FT_I64), (uint64_t)v);
}

char *f_u64(char *p, uint64_t v)
{
	return st64(ftag(p, FT_U64), v);
}

char *f_ptr(char *p, const void *ptr)
{
	return st64(ftag(p, FT_U64), (uint64_t)(uintptr_t)ptr);
}

char *f_buf(char *p, const void *ptr)
{
	if (ptr == MPI_IN_PLACE)
		return f_int(p, -1);
	return f_ptr(p, ptr);
}

char *f_peer(char *p, int rank)
{
	if (rank == MPI_ANY_SOURCE)
		rank = -1;
	else if (rank == MPI_PROC_NULL)
		rank = -2;
	return f_int(p, rank);
}

char *f_tag(char *p, int tag)
{
	return f_int(p, tag == MPI_ANY_TAG ? -1 : tag);
}

char *f_str(char *p, const char *s)
{
	return st64(ftag(p, FT_STR), (uint64_t)(uintptr_t)s);
}

static void type_register(MPI_Datatype t, int64_t id)
{
	if (t == MPI_DATATYPE_NULL)
		return;
	int sz = 0;
	MPI_Aint lb = 0, ext = 0;
	if (PMPI_Type_size(t, &sz) != MPI_SUCCESS)
		return;
	PMPI_Type_get_extent(t, &lb, &ext);
	ap_ent *e = map_put(&S.types, HKEY(t));
	e->a = id;
	e->b = sz;
	e->c = ext;
}

static void types_predefined(void)
{
	MPI_Datatype list[] = {
		MPI_INT, MPI_INTEGER, MPI_LONG, MPI_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
		MPI_UNSIGNED_SHORT, MPI_FLOAT, MPI_REAL, MPI_DOUBLE, MPI_DOUBLE_PRECISION,
		MPI_LONG_DOUBLE, MPI_BYTE, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT,
		MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_LOGICAL, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
		/* 23.. */
		MPI_CHAR, MPI_UNSIGNED_CHAR, MPI_SIGNED_CHAR, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,
		MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
		MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
		MPI_PACKED, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_WCHAR, MPI_CHARACTER, MPI_2REAL,
		MPI_2DOUBLE_PRECISION, MPI_2INTEGER,
	};
	/* Later entries never overwrite earlier ones (aliases keep the first id). */
	for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
		if (list[i] == MPI_DATATYPE_NULL || map_find(&S.types, HKEY(list[i])))
			continue;
		type_register(list[i], (int64_t)i + 1);
	}
	S.next_type = 1000;
}

void ap_type_new(MPI_Datatype t)
{
	type_register(t, S.next_type++);
}

void ap_type_free(MPI_Datatype t)
{
	ap_ent *e = map_find(&S.types, HKEY(t));
	if (e && e->a >= 1000)
		map_del(&S.types, e);
}

char *f_type(char *p, MPI_Datatype t)
{
	if (t == MPI_DATATYPE_NULL)
		return f_triple(p, 0, 0, 0);
	ap_ent *e = map_find(&S.types, HKEY(t));
	if (!e) {
		type_register(t, S.next_type++);
		e = map_find(&S.types, HKEY(t));
		if (!e)
			return f_triple(p, 0, 0, 0);
	}
	return f_triple(p, e->a, e->b, e->c);
}

char *f_types(char *p, const MPI_Datatype *t, int n)
{
	p = f_ptr(p, t);
	if (!t || n <= 0)
		return f_nostatus(p);
	for (int i = 0; i < n; i++) {
		char *q = p;
		p = f_type(p, t[i]);
		if (i)
			*q = ';'; /* list entries are separated by ';' */
	}
	return p;
}

static void ops_predefined(void)
{
	MPI_Op list[] = { MPI_MIN, MPI_MAX, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
			  MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE,
			  MPI_NO_OP };
	for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
		map_put(&S.ops, HKEY(list[i]))->a = (int64_t)i + 1;
}

char *f_op(char *p, MPI_Op op)
{
	ap_ent *e = map_find(&S.ops, HKEY(op));
	return f_int(p, e ? e->a : 0);
}

/* ---------------------------------------------------------------- communicators */

static void pend_reserve(size_t n)
{
	if (S.pend_len + n <= S.pend_cap)
		return;
	size_t nc = (S.pend_len + n) * 2;
	char *b = realloc(S.pend, nc);
	if (!b)
		abort();
	S.pend = b;
	S.pend_cap = nc;
}

/* Queue "# comm <id> <world ranks of members>" (and "# remote" for an
 * intercommunicator's remote group). */
static void comm_line(MPI_Comm c, int64_t id)
{
	int inter = 0;
	PMPI_Comm_test_inter(c, &inter);
	for (int side = 0; side <= inter; side++) {
		MPI_Group g, wg;
		int n = 0;
		if (side == 0)
			PMPI_Comm_group(c, &g);
		else
			PMPI_Comm_remote_group(c, &g);
		PMPI_Comm_group(MPI_COMM_WORLD, &wg);
		PMPI_Group_size(g, &n);
		int *in = malloc(sizeof(int) * (size_t)(n ? n : 1));
		int *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
		if (!in || !out)
			abort();
		for (int i = 0; i < n; i++)
			in[i] = i;
		PMPI_Group_translate_ranks(g, n, in, wg, out);
		pend_reserve(64 + (size_t)n * 12);
		char *p = S.pend + S.pend_len;
		p = put_str(p, side ? "# remote " : "# comm ");
		p = put_i64(p, id);
		*p++ = ' ';
		for (int i = 0; i < n; i++) {
			if (i)
				*p++ = ',';
			p = put_i64(p, out[i] == MPI_UNDEFINED ? -1 : out[i]);
		}
		*p++ = '\n';
		S.pend_len = (size_t)(p - S.pend);
		free(in);
		free(out);
		PMPI_Group_free(&g);
		PMPI_Group_free(&wg);
	}
}

/* Register handle c under id; rank, size and members are read from `like`
 * (c itself, or for MPI_Comm_idup the communicator it duplicates: the new
 * one must not be used before its request completes). */
static ap_ent *comm_register_as(MPI_Comm c, MPI_Comm like, int64_t id)
{
	int r = -1, n = 0;
	PMPI_Comm_rank(like, &r);
	PMPI_Comm_size(like, &n);
	ap_ent *e = map_put(&S.comms, HKEY(c));
	e->a = id;
	e->b = r;
	e->c = n;
	comm_line(like, id);
	return e;
}

static ap_ent *comm_register(MPI_Comm c, int64_t id)
{
	return comm_register_as(c, c, id);
}

static char *put_comm(char *p, const ap_ent *e)
{
	return f_triple(p, e->a, e->b, e->c);
}

char *f_comm(char *p, MPI_Comm c)
{
	if (c == MPI_COMM_NULL)
		return f_triple(p, -1, -1, 0);
	ap_ent *e = map_find(&S.comms, HKEY(c));
	if (!e) /* made by a call allprof does not record: number it now */
		e = comm_register(c, S.next_comm++);
	return put_comm(p, e);
}

char *f_newcomm(char *p, MPI_Comm c)
{
	if (c == MPI_COMM_NULL)
		return f_triple(p, -1, -1, 0);
	return put_comm(p, comm_register(c, S.next_comm++));
}

char *f_newcomm_like(char *p, MPI_Comm c, MPI_Comm like)
{
	if (c == MPI_COMM_NULL || like == MPI_COMM_NULL)
		return f_triple(p, -1, -1, 0);
	return put_comm(p, comm_register_as(c, like, S.next_comm++));
}

/* ---------------------------------------------------------------- groups */

/* Groups are numbered per rank in order of creation from 2; 1 is
 * MPI_GROUP_EMPTY, 0 MPI_GROUP_NULL. Field: g<id>,<size>. */
char *f_group(char *p, MPI_Group g)
{
	int64_t id = 0, n = 0;
	if (g != MPI_GROUP_NULL) {
		if (g == MPI_GROUP_EMPTY) {
			id = 1;
		} else {
			ap_ent *e = map_find(&S.groups, HKEY(g));
			if (!e) { /* made by a call allprof does not record */
				e = map_put(&S.groups, HKEY(g));
				e->a = S.next_group++;
			}
			id = e->a;
		}
		int sz = 0;
		PMPI_Group_size(g, &sz);
		n = sz;
	}
	p = ftag(p, FT_GROUP);
	p = st64(p, (uint64_t)id);
	return st64(p, (uint64_t)n);
}

char *f_newgroup(char *p, MPI_Group g)
{
	if (g != MPI_GROUP_NULL && g != MPI_GROUP_EMPTY) {
		ap_ent *e = map_put(&S.groups, HKEY(g));
		e->a = S.next_group++;
	}
	return f_group(p, g);
}

void ap_group_free(MPI_Group g)
{
	ap_ent *e = g == MPI_GROUP_NULL || g == MPI_GROUP_EMPTY ? NULL : map_find(&S.groups, HKEY(g));
	if (e)
		map_del(&S.groups, e);
}

/* ---------------------------------------------------------------- windows */

/* Windows (MPI-3 one-sided communication) are numbered per rank from 1 in order of
 * creation, 0 for MPI_WIN_NULL or a window made by a call allprof does not record; a freed
 * window's number is not reused. Window creation is collective, so the ranks of one window
 * create it in the same order on its communicator (formats/trace.md, section 3.3). */
char *f_win(char *p, MPI_Win w)
{
	ap_ent *e = w == MPI_WIN_NULL ? NULL : map_find(&S.wins, HKEY(w));
	return f_int(p, e ? e->a : 0);
}

char *f_newwin(char *p, MPI_Win w)
{
	if (w == MPI_WIN_NULL)
		return f_int(p, 0);
	ap_ent *e = map_put(&S.wins, HKEY(w));
	e->a = S.next_win++;
	return f_int(p, e->a);
}

void ap_win_free(MPI_Win w)
{
	ap_ent *e = w == MPI_WIN_NULL ? NULL : map_find(&S.wins, HKEY(w));
	if (e)
		map_del(&S.wins, e);
}

void ap_comm_free(MPI_Comm c)
{
	ap_ent *e = map_find(&S.comms, HKEY(c));
	if (e && e->a > 1)
		map_del(&S.comms, e);
}

int ap_comm_size(MPI_Comm c)
{
	ap_ent *e = map_find(&S.comms, HKEY(c));
	if (e)
		return (int)e->c;
	int n = 0;
	PMPI_Comm_size(c, &n);
	return n;
}

void ap_nbr_counts(MPI_Comm c, int *in, int *out)
{
	int kind = MPI_UNDEFINED, r = 0;
	*in = *out = 0;
	PMPI_Topo_test(c, &kind);
	if (kind == MPI_CART) {
		int nd = 0;
		PMPI_Cartdim_get(c, &nd);
		*in = *out = 2 * nd;
	} else if (kind == MPI_GRAPH) {
		PMPI_Comm_rank(c, &r);
		PMPI_Graph_neighbors_count(c, r, in);
		*out = *in;
	} else if (kind == MPI_DIST_GRAPH) {
		int w = 0;
		PMPI_Dist_graph_neighbors_count(c, in, out, &w);
	}
}

/* ---------------------------------------------------------------- requests */

/*
 * Requests are numbered when created and looked up by handle. Open MPI
 * hands out one shared, already complete request object for sends that
 * finished at once (and for MPI_PROC_NULL), so several live requests can
 * have the same handle. Then the address of the application's MPI_Request
 * variable tells them apart: the primary map (key: handle) holds the
 * newest id and the number of live requests with that handle (c); when it
 * is above one, the secondary map (key: handle mixed with the variable's
 * address) holds each one's id. A request copied to another variable is
 * still found by handle as long as its handle is unique (the usual case).
 */
static uint64_t req2key(uint64_t hk, const void *var)
{
	uint64_t k = hk ^ ((uint64_t)(uintptr_t)var * 0xD6E8FEB86659FD93ull);
	return k ? k : 1;
}

uint64_t ap_req_new(MPI_Request r, const void *var, int persistent)
{
	(void)persistent; /* a persistent request stays mapped until it is freed */
	if (r == MPI_REQUEST_NULL)
		return 0;
	uint64_t hk = HKEY(r), id = ++S.next_req;
	ap_ent *e = map_find(&S.reqs, hk);
	if (e && e->c > 0) {
		if (e->c == 1 && !map_find(&S.reqs2, req2key(hk, (const void *)(uintptr_t)e->b))) {
			/* second live request on this handle: file the first one too */
			ap_ent *o = map_put(&S.reqs2, req2key(hk, (const void *)(uintptr_t)e->b));
			o->a = e->a;
			o->b = e->b;
		}
		ap_ent *n = map_put(&S.reqs2, req2key(hk, var));
		n->a = (int64_t)id;
		n->b = (int64_t)(uintptr_t)var;
		e->c++;
	} else {
		e = map_put(&S.reqs, hk);
		e->c = 1;
	}
	e->a = (int64_t)id;
	e->b = (int64_t)(uintptr_t)var;
	return id;
}

uint64_t ap_req_id(MPI_Request r, const void *var)
{
	if (r == MPI_REQUEST_NULL)
		return 0;
	uint64_t hk = HKEY(r);
	ap_ent *e = map_find(&S.reqs, hk);
	if (!e)
		return ap_req_new(r, var, 0); /* made by a call allprof does not record */
	if (S.reqs2.n) {
		ap_ent *o = map_find(&S.reqs2, req2key(hk, var));
		if (o)
			return (uint64_t)o->a;
	}
	return (uint64_t)e->a;
}

void ap_req_done(MPI_Request r, const void *var, uint64_t id)
{
	if (!id)
		return;
	uint64_t hk = HKEY(r);
	ap_ent *e = map_find(&S.reqs, hk);
	if (!e)
		return;
	ap_ent *o = S.reqs2.n ? map_find(&S.reqs2, req2key(hk, var)) : NULL;
	if (o && (uint64_t)o->a == id)
		map_del(&S.reqs2, o);
	else if ((uint64_t)e->a != id)
		return;
	if (--e->c <= 0)
		map_del(&S.reqs, e);
}

char *f_req(char *p, uint64_t id)
{
	return st64(ftag(p, FT_REQ), id);
}

char *f_reqs(char *p, const uint64_t *ids, int n)
{
	if (n <= 0)
		return f_nostatus(p);
	p = ftag(p, FT_REQS);
	uint32_t k = (uint32_t)n;
	memcpy(p, &k, 4);
	memcpy(p + 4, ids, (size_t)n * 8);
	return p + 4 + (size_t)n * 8;
}

uint64_t ap_msg_new(MPI_Message m)
{
	if (m == MPI_MESSAGE_NULL)
		return 0;
	if (m == MPI_MESSAGE_NO_PROC)
		return 0;
	ap_ent *e = map_put(&S.msgs, HKEY(m));
	e->a = (int64_t)++S.next_msg;
	return (uint64_t)e->a;
}

uint64_t ap_msg_take(MPI_Message m)
{
	if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
		return 0;
	ap_ent *e = map_find(&S.msgs, HKEY(m));
	if (!e)
		return 0;
	uint64_t id = (uint64_t)e->a;
	map_del(&S.msgs, e);
	return id;
}

char *f_msg(char *p, uint64_t id)
{
	return st64(ftag(p, FT_MSG), id);
}

/* ---------------------------------------------------------------- statuses, lists */

char *f_status(char *p, const MPI_Status *s)
{
	int n = 0;
	int64_t bytes;
	if (PMPI_Get_count(s, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) {
		bytes = n;
	} else { /* more than INT_MAX bytes */
		MPI_Count c = 0;
		PMPI_Get_elements_x(s, MPI_BYTE, &c);
		bytes = (int64_t)c;
	}
	int src = s->MPI_SOURCE;
	if (src == MPI_ANY_SOURCE)
		src = -1;
	else if (src == MPI_PROC_NULL)
		src = -2;
	return f_triple(p, src, s->MPI_TAG == MPI_ANY_TAG ? -1 : s->MPI_TAG, bytes);
}

char *f_nostatus(char *p)
{
	return ftag(p, FT_DASH);
}

char *f_list(char *p, const int *v, int n)
{
	if (!v || n <= 0)
		return f_nostatus(p);
	p = ftag(p, FT_LIST);
	uint32_t k = (uint32_t)n;
	memcpy(p, &k, 4);
	memcpy(p + 4, v, (size_t)n * 4);
	return p + 4 + (size_t)n * 4;
}

char *f_ints(char *p, const int *v, int n)
{
	p = f_ptr(p, v);
	return f_list(p, v, n);
}

/* ---------------------------------------------------------------- start and stop */

__attribute__((constructor)) static void ap_ctor(void)
{
	clock_base();
}

/* Each rank measures its offset to rank 0 by ping-pong and keeps the
 * exchange with the smallest round trip: off = t_rank0 - midpoint, so
 * t_rank0 = t_local + off. Rank 0 serves the ranks one after the other. */
static void clock_sync(int64_t *off, int64_t *rtt)
{
	enum { ROUNDS = 16, TAG_PING = 7, TAG_PONG = 8 };
	MPI_Comm c = S.sync_comm;
	char x = 0;
	*off = 0;
	*rtt = 0;
	if (ap.size < 2 || c == MPI_COMM_NULL)
		return;
	if (ap.rank == 0) {
		for (int r = 1; r < ap.size; r++) {
			for (int k = 0; k < ROUNDS; k++) {
				PMPI_Recv(&x, 1, MPI_BYTE, r, TAG_PING, c, MPI_STATUS_IGNORE);
				uint64_t t = ap_now();
				PMPI_Send(&t, 1, MPI_UINT64_T, r, TAG_PONG, c);
			}
		}
		return;
	}
	int64_t best = INT64_MAX;
	for (int k = 0; k < ROUNDS; k++) {
		uint64_t t0 = 0, t1 = ap_now();
		PMPI_Send(&x, 1, MPI_BYTE, 0, TAG_PING, c);
		PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, TAG_PONG, c, MPI_STATUS_IGNORE);
		uint64_t t2 = ap_now();
		int64_t d = (int64_t)(t2 - t1);
		if (d < best) {
			best = d;
			*off = (int64_t)t0 - (int64_t)(t1 + (uint64_t)d / 2);
		}
	}
	*rtt = best;
}

static void clock_lines(const char *when, int64_t off, int64_t rtt)
{
	char line[160];
	char *p = put_str(line, "# ");
	p = put_str(p, when);
	p = put_str(p, " clockdiff: ");
	p = put_stime(p, off);
	p = put_str(p, "\n# ");
	p = put_str(p, when);
	p = put_str(p, " clockrtt: ");
	p = put_stime(p, rtt);
	*p++ = '\n';
	put_line(line, (size_t)(p - line));
}

static void close_trace(const char *why);

static void on_exit_hook(void)
{
	if (ap.open)
		close_trace("exit");
}

static const int ap_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
				  SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGUSR1, SIGUSR2 };

/* Async-signal-safe: write(2) of committed text, no locks, no stdio. With
 * compression the zstd stream is ended from here too (zstd allocates
 * nothing once its context is set up: best effort). */
static void on_signal(int sig)
{
	if (ap.open && !S.in_signal) {
		S.in_signal = 1;
		ap.on = 0;
		/* text of whole records formatted before the signal, then the spill's rest (a
		 * buffer that was being spilled is there once the spill's end has moved past it),
		 * then the buffer's */
		size_t live = S.spilling && S.spill_end != S.spill_old ? 0 : S.len;
		if (S.drain_pos < S.spill_end)
			drain_spill();
		fmt_records_to(live);
		char *q = S.tb + S.tlen;
		if (S.poll_active && S.len != S.poll_done_at) {
			uint64_t c[2] = { S.poll_c0, S.poll_c1 };
			q = fmt_line(q, S.poll, S.poll + REC_HDR, S.poll + S.poll_len, 1, S.poll_n,
				     S.poll_t1, ap.cpu ? (const char *)c : NULL);
			S.poll_active = 0;
		}
		S.tlen = (size_t)(q - S.tb);
		tb_out();
		S.len = S.fmt_pos = 0;
		char tail[96], *p = tail;
		p = put_str(p, "# incomplete signal ");
		p = put_u64(p, (uint64_t)sig);
		*p++ = '\n';
		out_bytes(tail, (size_t)(p - tail), 1);
		close(S.fd);
		S.fd = -1;
		if (S.spill_fd >= 0 && S.rbuf)
			close(S.spill_fd);
		ap.open = 0;
	}
	if (sig >= 0 && sig < 32)
		sigaction(sig, &S.old_sa[sig], NULL);
	raise(sig);
}

static void install_signals(void)
{
	for (size_t i = 0; i < sizeof ap_signals / sizeof ap_signals[0]; i++) {
		int sig = ap_signals[i];
		struct sigaction sa, old;
		if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		if (sigaction(sig, &sa, &S.old_sa[sig]) != 0)
			continue;
	}
}

static size_t env_size(const char *name, size_t dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (*end == 'K' || *end == 'k')
		n <<= 10;
	else if (*end == 'M' || *end == 'm')
		n <<= 20;
	if (n < 65536)
		n = 65536;
	if (n > (1ull << 30))
		n = 1ull << 30;
	return (size_t)n;
}

static int env_flag(const char *name, int dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	return !(strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0);
}
/* The tracer's time per call that neither a record nor self_time sees (formats/trace.md
 * 3.8): the wrapper's entry before its t_call reading and its exit after self_time's. Timed
 * at start-up as what K traced MPI_Comm_rank cost more than K untraced ones, less one clock
 * reading per call (the part inside [t_call, t_return]) and less what self_time counted of
 * them; the median of ROUNDS rounds. Their records are taken back (they are in the buffer
 * only; nothing is measured when it could not hold them all). */
static void measure_unseen(void)
{
	enum { K = 200, ROUNDS = 7 };
	uint64_t v[ROUNDS];
	int me, n = 0;
	size_t len0 = S.len;
	uint64_t records0 = S.records, calls0 = S.calls, self0 = S.self_ns, k0 = S.self_k, last0 = S.last_t1;
	if (S.cap - S.len < (size_t)K * 256 || S.poll_active)
		return;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t = mono_ns(), bare, wrapped, cread, self = S.self_ns;
		for (int i = 0; i < K; i++)
			PMPI_Comm_rank(MPI_COMM_WORLD, &me);
		bare = mono_ns() - t;
		t = mono_ns();
		for (int i = 0; i < K; i++)
			MPI_Comm_rank(MPI_COMM_WORLD, &me);
		wrapped = mono_ns() - t;
		self = S.self_ns - self;
		t = mono_ns();
		for (int i = 0; i < K; i++)
			(void)ap_now();
		cread = mono_ns() - t;
		S.len = len0; /* the records back */
		v[n++] = wrapped > bare + cread + self ? (wrapped - bare - cread - self) / K : 0;
	}
	S.records = records0;
	S.calls = calls0;
	S.self_ns = self0;
	S.self_k = k0;
	S.last_t1 = last0;
	for (int i = 1; i < n; i++) /* insertion sort: a handful */
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	S.unseen_ns = v[n / 2];
}


void ap_start(int provided)
{
	if (ap.on || ap.open || env_flag("ALLPROF_DISABLE", 0))
		return;
	ap.cpu = env_flag("ALLPROF_CPUTIME", 0);
	ap.span = env_flag("ALLPROF_SPAN", 0);
	cpu_every = env_flag("ALLPROF_CPUTIME_EXACT", 0);
	if (ap.cpu)
		cpu_read(); /* MPI_Init's cpu_call: the tracer's start-up begins */
	S.init_c0 = cpu_cur;
	PMPI_Comm_rank(MPI_COMM_WORLD, &ap.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &ap.size);
	ap.mt = provided == MPI_THREAD_MULTIPLE;
	ap.compress = env_flag("ALLPROF_COMPRESS", 0);
	ap.collapse = env_flag("ALLPROF_COLLAPSE", 1);
	const char *dir = getenv("ALLPROF_DIR");
	if (!dir || !*dir)
		dir = ".";
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "liballprof: rank %d: cannot create directory '%s': %s; not tracing\n",
			ap.rank, dir, strerror(errno));
		return;
	}
	int digits = 1;
	for (int n = ap.size; n >= 10; n /= 10)
		digits++;
	snprintf(S.path, sizeof S.path, "%s/rank-%0*d.trace%s", dir, digits, ap.rank,
		 ap.compress ? ".zst" : "");
	S.fd = open(S.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (S.fd < 0) {
		fprintf(stderr, "liballprof: rank %d: cannot create '%s': %s; not tracing\n", ap.rank,
			S.path, strerror(errno));
		return;
	}
	S.cap = env_size("ALLPROF_BUFSIZE", (size_t)1 << 20);
	S.spill = env_flag("ALLPROF_SPILL", 1);
	S.spill_fd = -1;
	S.buf = malloc(S.cap);
	S.tb = malloc(TB_CAP);
	if (!S.buf || !S.tb)
		abort();
	if (ap.compress) {
		S.zc = ZSTD_createCCtx();
		S.zcap = ZSTD_CStreamOutSize();
		S.zout = malloc(S.zcap);
		if (!S.zc || !S.zout)
			abort();
		ZSTD_CCtx_setParameter(S.zc, ZSTD_c_compressionLevel, 3);
		/* start the stream now: zstd allocates its workspace on the first
		 * call, which must not be in a signal handler */
		out_bytes("", 0, 0);
	}
	types_predefined();
	ops_predefined();
	comm_register(MPI_COMM_WORLD, 0);
	comm_register(MPI_COMM_SELF, 1);
	S.next_comm = 2;
	S.next_group = 2;
	S.next_win = 1;
	S.sync_comm = MPI_COMM_NULL;
	PMPI_Comm_dup(MPI_COMM_WORLD, &S.sync_comm);
	clock_sync(&S.init_off_ns, &S.init_rtt_ns);

	char hdr[2048];
	struct utsname u;
	char host[256] = "unknown";
	time_t now = time(NULL);
	struct tm tm;
	char date[64] = "";
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	gethostname(host, sizeof host - 1);
	localtime_r(&now, &tm);
	strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y", &tm);
	int n = snprintf(hdr, sizeof hdr,
			 "# allprof %s trace format %s\n"
			 "# time: %s\n"
			 "# hostname: %s\n"
			 "# uname: %s %s %s %s %s\n"
			 "# rank: %d of %d\n"
			 "# pid: %ld\n"
			 "# thread level: %d%s\n"
			 "# clock: monotonic, microseconds, epoch-aligned at start\n%s%s%s",
			 IR_VERSION, ap.cpu ? AP_FORMAT_VERSION_CPU : AP_FORMAT_VERSION, date, host, u.sysname, u.nodename, u.release,
			 u.version, u.machine, ap.rank, ap.size, (long)getpid(), provided,
			 ap.mt ? " (locked)" : "",
			 !ap.cpu     ? ""
			 : cpu_every ? "# cpu: thread, microseconds\n# cpu read: every call\n"
				     : "# cpu: thread, microseconds\n# cpu read: 20 us\n",
			 ap.collapse && !ap.span ? "# collapse gap: " AP_STR(AP_COLLAPSE_GAP_NS) " ns\n" : "",
			 ap.span ? "# span: MPI_Init and MPI_Finalize only\n" : "");
	if (n < 0 || (size_t)n >= sizeof hdr)
		n = (int)strlen(hdr);
	put_line(hdr, (size_t)n);
	clock_lines("Init", S.init_off_ns, S.init_rtt_ns);
	pend_flush();
	install_signals();
	atexit(on_exit_hook);
	ap.open = 1;
	ap.on = 1;
	if (!ap.span) {
		char line[96], *q;
		measure_unseen();
		q = put_str(line, "# tracer unseen: ");
		q = put_u64(q, S.unseen_ns);
		q = put_str(q, " ns a call\n");
		put_line(line, (size_t)(q - line));
	}
	/* The ranks leave the start-up together (rank 0 served the clock
	 * exchanges one rank after the other), so that the MPI_Init return
	 * time, taken after this, holds none of the tracer's waiting. */
	if (S.sync_comm != MPI_COMM_NULL)
		PMPI_Barrier(S.sync_comm);
	cpu_in = 1; /* the next reading is MPI_Init's return */
}

void ap_init_record(const char *name, uint64_t t0, uint64_t t1, const void *argc,
		    const void *argv, int with_thread, int required, int provided)
{
	if (!ap.on)
		return;
	char *p = ap_begin(AP_B, name, t0);
	S.rec_c0 = S.init_c0;
	p = f_ptr(p, argc);
	p = f_ptr(p, argv);
	if (with_thread) {
		p = f_int(p, required);
		p = f_int(p, provided);
	}
	ap_end(p, t1);
}

void ap_finalize_begin(void)
{
	if (!ap.on)
		return;
	int64_t off = 0, rtt = 0;
	S.fin_c0 = cpu_cur; /* read with MPI_Finalize's t_call, before the clock exchange */
	clock_sync(&off, &rtt);
	if (S.sync_comm != MPI_COMM_NULL)
		PMPI_Comm_free(&S.sync_comm);
	ap_lock();
	poll_close();
	clock_lines("Finalize", off, rtt);
	ap_unlock();
}

void ap_finalize_end(uint64_t t0, uint64_t t1)
{
	if (!ap.on)
		return;
	ap_lock();
	char *p = ap_begin(AP_B, "MPI_Finalize", t0);
	S.rec_c0 = S.fin_c0;
	ap_end(p, t1);
	ap.on = 0;
	char line[256];
	for (int i = 0; i < ap_pass_n; i++) {
		if (!ap_pass_counts[i])
			continue;
		p = put_str(line, "# uncovered ");
		p = put_str(p, ap_pass_names[i]);
		*p++ = ' ';
		p = put_u64(p, ap_pass_counts[i]);
		*p++ = '\n';
		put_line(line, (size_t)(p - line));
	}
	p = put_str(line, "# tracer: ");
	p = put_u64(p, S.self_ns + (S.flush_ns - S.flush_lined) + S.unseen_ns * S.calls);
	p = put_str(p, " ns after ");
	p = put_u64(p, S.calls);
	p = put_str(p, " returns\n");
	put_line(line, (size_t)(p - line));
	p = put_str(line, "# calls ");
	p = put_u64(p, S.calls);
	p = put_str(p, " records ");
	p = put_u64(p, S.records);
	p = put_str(p, " collapsed ");
	p = put_u64(p, S.polls_collapsed);
	p = put_str(p, " flushes ");
	p = put_u64(p, S.flushes);
	*p++ = '\n';
	put_line(line, (size_t)(p - line));
	flush_buf();
	p = put_str(line, "# end ");
	p = put_u64(p, S.records);
	*p++ = ' ';
	p = put_u64(p, S.text_bytes);
	*p++ = '\n';
	out_bytes(line, (size_t)(p - line), 1);
	if (S.fd >= 0 && close(S.fd) != 0)
		S.write_failed = 1;
	S.fd = -1;
	spill_close();
	ap.open = 0;
	if (S.write_failed)
		fprintf(stderr, "liballprof: rank %d: writing '%s' failed; the trace is incomplete\n",
			ap.rank, S.path);
	ap_unlock();
}

/* End the trace without the end line: "# incomplete <why>". */
static void close_trace(const char *why)
{
	ap.on = 0;
	poll_close();
	char line[128];
	char *p = put_str(line, "# incomplete ");
	p = put_str(p, why);
	*p++ = '\n';
	put_line(line, (size_t)(p - line));
	flush_buf();
	out_bytes("", 0, 1);
	if (S.fd >= 0)
		close(S.fd);
	S.fd = -1;
	spill_close();
	ap.open = 0;
}

void ap_abort(MPI_Comm comm, int code, uint64_t t0)
{
	if (!ap.open)
		return;
	ap_lock();
	if (ap.on) {
		char *p = ap_begin(AP_B, "MPI_Abort", t0);
		p = f_comm(p, comm);
		p = f_int(p, code);
		ap_end(p, ap_now());
	}
	close_trace("MPI_Abort");
	ap_unlock();
}
