/*
 * ir_t2g_poll.c: what unsuccessful polls cost on another network
 * (docs/trace2goal.md §2.1; the cost of one poll: formats/params.md, key `poll`).
 *
 * A program that polls (MPI_Iprobe, MPI_Test and its siblings that find nothing)
 * spends the polls' time in the MPI library, and that time depends on the network:
 * over TCP every poll asks the kernel about the sockets (0.4 us on this project's
 * reference machine), over shared memory it reads a queue (0.05 us). Without a
 * poll cost trace2goal counts the polls' recorded time as computation, as it
 * always did: a replay on the traced network is right, another network's is not
 * (MUMPS on two ranks spends 9 ms in 87,000 polls over shared memory and 17 ms in
 * 37,000 over TCP). With both poll costs (`--poll-from`, `--poll-to`, or the
 * `poll` key of -p for the side -p describes) a run of unsuccessful polls with no
 * other call in between (calls that produce nothing do not break it) is one of two
 * things, told apart by the call that ends it:
 *
 *  - a wait: it ends in a successful MPI_Iprobe or MPI_Improbe, or in a call that
 *    blocks for a message or a request (Recv, Sendrecv, Probe, Mprobe, Mrecv, the
 *    Waits). A probe asks whether a message has come, with no receive posted: a
 *    program loops on it to wait for a message it cannot yet receive, and how long
 *    it looped is how long that message took on the traced network. The run's span
 *    (first poll's call to last poll's return) leaves the computation, and the
 *    simulated dataflow decides the wait; the computation before the first poll and
 *    after the last one stays.
 *  - a wait as well, with --poll-tests wait, and with auto (the default) in a rank that
 *    ends every run of Tests in a completion (tests_leave; docs/trace2goal.md §2.1):
 *    a run ended by a successful Test, Testany, Testall or Testsome with nothing but
 *    polling in it. allprof writes the collapse gap in the header (formats/trace.md
 *    §3.2): no collapsed line holds two polls that far apart, so when no gap between the
 *    run's lines (nor the one before the successful call) reaches it either, the rank
 *    only polled until its request completed: a wait written as a loop. Not with
 *    --durations (test_wait).
 *  - with --poll-tests overlap, such a run leaves the computation as with wait, and its n
 *    polls at poll_to run beside the wait as a calc on CPU 1 that the Test's completion
 *    requires (t2g_poll_overlap): the loop lasts the longer of its polls and the wait.
 *  - work: anything else ends it: a send, a collective, the end of the trace, and a
 *    successful Test, Testany, Testall or Testsome (with --poll-tests wait: after work
 *    between the polls, or in a trace that does not give the collapse gap; with auto also
 *    in a rank that leaves some run of Tests before a completion: it tests between pieces
 *    of work, and its polls are as many on any network). Testing a
 *    posted request between pieces of work is how a program overlaps communication with
 *    computation (HPCC's
 *    RandomAccess updates its table between MPI_Test calls); the polls sat between
 *    pieces of work, and the same work polls as often on any network: each of the
 *    run's n polls (allprof's collapsed count, formats/trace.md §3.2) costs poll_to
 *    instead of poll_from, so the run's computation changes by
 *    n * (poll_to - poll_from).
 *
 * With --calc cpu (docs/trace2goal.md §2) the gap is CPU time, so a wait's span is its
 * CPU span (the CPU time from its first poll's call to its last poll's return): the wall
 * span would take from the gap the time the rank was off its CPU as well, which the CPU
 * gap never held, out of the computation around the run. Rejected there: pricing a work
 * run's polls at poll_to in place of their CPU time, although on a host whose ranks
 * outnumber its cores a poll that finds nothing also gives the core up (a sched_yield
 * and a context switch: 4.6 us of CPU a poll in nonblock's Testsome loops at 4 ranks on
 * 2 cores, against 0.076 us for a poll alone): a collapsed line's CPU times spanned the work
 * between its polls too (before the collapse gap, formats/trace.md §3.2), and HPCC's
 * RandomAccess, which works between its MPI_Test calls, came out 81 % too short
 * (docs/validation.md, "Programs of 50 ms, an untraced nodecal, and wake-ups of ranks that
 * ran", item 3 and after). With --poll-tests wait nonblock's loops are waits.
 *
 * Rejected, on the cross-network runs of docs/validation.md: dropping all poll time
 * (a work poll's cost is real; MUMPS's workers poll as often on both networks and
 * their polls make most of its slowdown over TCP); pricing every poll at poll_to
 * (a waiting rank polls as long as it waits, not a fixed number of times: MUMPS's
 * master polls 2.4x as often over shared memory, and the prediction for TCP came
 * out 27 % too long); taking every run that ends in a successful Test as a wait
 * (HPCC's replay on its own network fell from 1.4 % to 21 % too short: the work
 * between its tests left with the wait; the collapse gap now tells such runs apart).
 * liballprof traces record a poll's flag as an address, so its polls cannot be told
 * successful or not: the model leaves them as they were.
 */
#include "ir_t2g_internal.h"

/* a request argument of nothing but MPI_REQUEST_NULL ("r0", "r0,r0", formats/trace.md 3.4) */
static int all_null(const char *f)
{
	for (;;) {
		if (f[0] != 'r' || f[1] != '0')
			return 0;
		f += 2;
		if (*f != ',')
			return *f == 0;
		f++;
	}
}

/* 0: not a poll (or not decidable), 1: a poll that found nothing, 2: one that found something,
 * 3: MPI_Test or MPI_Testall of null requests only, which set the flag, complete nothing and
 * do not enter the library's progress: like a local call they neither end a run nor count
 * as one of its polls (HPCC's RandomAccess tests its send request, null until it has sent,
 * after each of its Testany loops; taken for a completion it made the bounded polling loop
 * before a send a wait). */
static int poll_state(int flavor, const ir_rec *r, const callinfo *ci)
{
	int64_t v = 0, idx = 0;
	unsigned f;
	if (flavor != IR_TRACE_ALLPROF)
		return 0;
	switch (ci->k) {
	case C_IPROBE:
		f = F_MPI_Iprobe_flag;
		break;
	case C_IMPROBE:
		f = F_MPI_Improbe_flag;
		break;
	case C_TEST:
		if (all_null(r->f[F_MPI_Test_request]))
			return 3;
		f = F_MPI_Test_flag;
		break;
	case C_TESTALL:
		if (all_null(r->f[F_MPI_Testall_requests]))
			return 3;
		f = F_MPI_Testall_flag;
		break;
	case C_TESTANY:
		/* flag 1 with MPI_UNDEFINED: no active request, nothing found */
		if (ir_tf_int(r->f[F_MPI_Testany_index], &idx))
			return 0;
		f = F_MPI_Testany_flag;
		break;
	case C_TESTSOME: /* the outcount */
		f = F_MPI_Testsome_outcount;
		break;
	default:
		return 0;
	}
	if (ir_tf_int(r->f[f], &v))
		return 0;
	return v > 0 && idx >= 0 ? 2 : 1;
}

/* calls that block until a message or a request is there */
static int is_wait(const callinfo *ci)
{
	switch (ci->k) {
	case C_RECV:
	case C_SENDRECV:
	case C_SENDRECV_REPLACE:
	case C_WAIT:
	case C_WAITALL:
	case C_WAITANY:
	case C_WAITSOME:
	case C_PROBE:
	case C_MPROBE:
	case C_MRECV:
		return 1;
	default:
		return 0;
	}
}

/* The time from the run's last return to r's call (a poll of it, or the call that ends it),
 * less the tracer's time in between (its flushes there and its mean time after a return,
 * docs/trace2goal.md 7): with --calc cpu the CPU time when it is less (a rank descheduled
 * there did no work). */
static int64_t run_gap(const gstate *g, const rstate *R, const ir_rec *r)
{
	int64_t gap = r->t_call - R->prun_end;
	if (g->o->calc_cpu && r->cpu_call != IR_TIME_NONE && R->prun_c1 != IR_TIME_NONE &&
	    r->cpu_call - R->prun_c1 < gap)
		gap = r->cpu_call - R->prun_c1;
	gap -= r->tracer_ps > 0 ? r->tracer_ps : 0;
	if (R->self_ps > 0 && !g->o->keep_tracer)
		gap -= (int64_t)(R->self_ps + 0.5);
	return gap;
}

static int is_test(const callinfo *ci)
{
	return ci->k == C_TEST || ci->k == C_TESTANY || ci->k == C_TESTALL || ci->k == C_TESTSOME;
}

/* --poll-tests auto: read rank R's whole trace once (a second reader of the same file) and
 * set R->tloop to 2 if some run of unsuccessful polls with a Test among them ends otherwise
 * than in a completion (a successful Test, Testany, Testall or Testsome, or a call that
 * blocks for a message or request, is_wait), 1 if none does. The runs are t2g_poll_step's:
 * calls that produce nothing, null-request Tests and unknown calls do not break them; the
 * end of the trace ends one. The whole trace, not only the --from/--to phase: a loop's
 * nature is the program's. Stops at the first run that leaves. */
static int tests_leave(rstate *R, ir_err *e)
{
	ir_trace *t;
	ir_rec r;
	int rc, run = 0, trun = 0;
	R->tloop = 1;
	if (!(t = ir_trace_open_file(R->tf, &R->topts, e)))
		return -1;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		const callinfo *ci;
		int s;
		if (r.kind == IR_REC_COMM || !(ci = t2g_find_call(r.name)) || ci->k == C_LOCAL)
			continue;
		s = poll_state(ir_trace_flavor(t), &r, ci);
		if (s == 3)
			continue;
		if (s == 1) {
			run = 1;
			trun |= is_test(ci);
			continue;
		}
		if (run && trun && !is_wait(ci) && !(s == 2 && is_test(ci)))
			break;
		run = trun = 0;
	}
	ir_trace_free(t);
	if (rc < 0)
		return -1;
	if (rc == 1 || trun)
		R->tloop = 2;
	return 0;
}

/* A run ended by a successful Test, Testany, Testall or Testsome is a wait when nothing but
 * polling happened in it: the trace says how far apart a collapsed line's polls can be
 * ("# collapse gap:", formats/trace.md 3.2) and no gap between its lines reached that; with
 * --poll-tests auto, only in a rank that never leaves such a run before a completion
 * (tests_leave). Not with --durations: no call's duration replays what such a wait lasted
 * beyond the model, so the replay of the traced network would lose it (HPCC over TCP: 51 %
 * short with --sync). 1: a wait, 0: not, -1: error. */
static int test_wait(const gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	int64_t cg = ir_trace_collapse_gap_ps(R->t), gap;
	if (g->o->poll_test_wait == IR_T2G_POLL_WORK || cg <= 0 || g->o->durations || !is_test(ci))
		return 0;
	gap = run_gap(g, R, r);
	if ((gap > R->prun_gap ? gap : R->prun_gap) >= cg)
		return 0;
	if (g->o->poll_test_wait == IR_T2G_POLL_AUTO && !R->tloop && tests_leave(R, e))
		return -1;
	return g->o->poll_test_wait != IR_T2G_POLL_AUTO || R->tloop == 1;
}

int t2g_poll_step(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, uint64_t n, ir_err *e)
{
	int s, tw = 0;
	if (R->povl_ps && ci->k != C_LOCAL) {
		/* overlapped polls the call that ended their run did not take (it completed
		 * nothing known): work after all, in the gap before this call */
		R->gap_start -= (int64_t)R->povl_ps;
		R->povl_ps = 0;
	}
	if (!g->poll_model || ci->k == C_LOCAL)
		return 0;
	s = poll_state(R->flavor, r, ci);
	if (s == 3)
		return 0;
	if (s == 1) {
		if (!R->prun) {
			R->prun = 1;
			R->prun_start = r->t_call;
			R->prun_n = 0;
			R->prun_c0 = r->cpu_call;
			R->prun_gap = 0;
			R->prun_flush = 0;
		} else {
			if (g->o->poll_test_wait != IR_T2G_POLL_WORK) { /* test_wait's gaps */
				int64_t gap = run_gap(g, R, r);
				if (gap > R->prun_gap)
					R->prun_gap = gap;
			}
			R->prun_flush += r->tracer_ps > 0 ? r->tracer_ps : 0;
		}
		R->prun_n += n ? n : 1;
		R->prun_end = r->t_ret;
		R->prun_c1 = r->cpu_ret;
		return 0;
	}
	if (!R->prun)
		return 0;
	R->prun = 0;
	if (s == 2 && (tw = test_wait(g, R, r, ci, e)) < 0)
		return -1;
	if (is_wait(ci) || (s == 2 && (ci->k == C_IPROBE || ci->k == C_IMPROBE || tw))) {
		/* a wait: its span leaves the computation (never past the gap's start) */
		int64_t span = R->prun_end - R->prun_start;
		if (g->o->calc_cpu && R->prun_c0 != IR_TIME_NONE && R->prun_c1 != IR_TIME_NONE)
			span = R->prun_c1 - R->prun_c0; /* the CPU time it held */
		/* the tracer's flushes inside it leave the gap as the tracer's time (t2g_gap_self),
		 * not a second time with the span */
		span -= R->prun_flush;
		if (span > 0 && R->prun_start >= R->gap_start) {
			R->gap_start += span;
			/* and the tracer's time after all but the last of its polls with it */
			R->gap_base += R->prun_n > 1 ? R->prun_n - 1 : 0;
			g->poll_waits++;
			g->poll_wait_ps += (uint64_t)span;
			/* --poll-tests overlap: a loop of Tests lasts as long as its polls or as the
			 * wait, whichever is longer: the polls at the target's cost run beside it */
			if (g->o->poll_test_wait == IR_T2G_POLL_OVERLAP && s == 2 && ci->k != C_IPROBE && ci->k != C_IMPROBE) {
				R->povl_ps = scale_calc(g, (double)R->prun_n * (double)g->poll_to);
				g->poll_ovl++;
			}
		}
		return 0;
	}
	/* work: each poll at the target network's cost; the gap never below 0 */
	{
		double d = (double)R->prun_n * ((double)g->poll_to - (double)g->poll_from);
		int64_t room = r->t_call - R->gap_start; /* the gap as it stands */
		int64_t dd = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
		if (dd < -room)
			dd = room > 0 ? -room : 0;
		R->gap_start -= dd;
		g->poll_work += R->prun_n;
	}
	return 0;
}

int t2g_poll_overlap(rstate *R, uint32_t gap, uint32_t done, ir_err *e)
{
	uint32_t l;
	if (!R->povl_ps)
		return 0;
	l = new_label(R);
	if (def_calc_cpu(R, l, R->povl_ps, 1) || edge(R, l, gap, 0) || edge(R, done, l, 0))
		return ir_errf(e, "out of memory");
	R->povl_ps = 0;
	return 0;
}
