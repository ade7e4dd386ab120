/*
 * ibsim: simulate a GOAL schedule under the LogGOPS model and print per-rank
 * end times (formats/results.md).
 *
 * main() parses options, builds the parameter set (defaults, then the -p
 * file, then command-line options, so the command line wins), loads the
 * schedule (text or binary, detected), runs the engine (lib/ir_engine.c) with
 * the chosen network, and writes results. The optional outputs (-v trace,
 * --msglog, --timeline) are engine hooks defined here: the library never
 * prints. A schedule that cannot finish prints the engine's deadlock report
 * and exits 1 without results, because end times of a deadlocked run are not
 * true.
 *
 * Compiled with -DIBSIM_MPI this file is also bin/ibsim-mpi's (tools/ibsim-mpi/build.mk):
 * the same options, parameters and results, the run split over MPI processes by
 * par_run() (tools/ibsim-mpi/ibsim_mpi.c, lib/ir_par.c) instead of ir_engine_run(), with
 * --net ib's fabric split over the processes too (docs/ib-model.md section 13); only
 * --progress is not available there.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibsim_otf2.h"
#include "ir_cli.h"
#include "ir_engine.h"
#include "ir_goal.h"
#include "ir_io.h"
#include "ir_net.h"
#include "ir_net_ib.h"
#include "ir_node.h"
#include "ir_num.h"
#include "ir_params.h"
#include "ir_spill.h"
#include "ir_strbuf.h"
#ifdef IBSIM_MPI
#include "ibsim_mpi.h"
#define PROG "ibsim-mpi"
#else
#define PROG "ibsim"
#endif

#define OUTBUF (1 << 16)

static void usage(void)
{
#ifdef IBSIM_MPI
	printf("Usage: ibsim-mpi [options] SCHEDULE\n"
	       "Run under mpirun (mpirun -np N ibsim-mpi ...): simulate a GOAL schedule like ibsim,\n"
	       "its ranks partitioned over the N MPI processes, with the results, -v, --msglog,\n"
	       "--timeline and --otf2 of ibsim --ties key to the picosecond (no --progress).\n"
	       "\n"
	       "Parallel run (docs/design.md section 9):\n"
	       "      --weights W1,...,WN  shares of the ops per process (default: equal)\n"
	       "  The partition, its cut (messages and bytes between processes), the lookahead and\n"
	       "  the number of windows go to the summary line and to --stats. With --net ib the\n"
	       "  fabric is split too: the ranks of the hosts cabled to one switch stay together,\n"
	       "  and the lookahead is the least delay of a link between processes\n"
	       "  (docs/ib-model.md section 13; not with rndv=loggopsim, routing ugal or ugal-g,\n"
	       "  path=random).\n"
	       "\n");
#else
	printf("Usage: ibsim [options] SCHEDULE\n"
	       "Simulate a GOAL schedule (text or binary, detected; '-' is standard input) under\n"
	       "the LogGOPS model and print each rank's end time as TSV on standard output.\n"
	       "\n");
#endif
	printf("Parameters (times: integer picoseconds or a unit ps ns us ms s; sizes: bytes\n"
	       "or a unit B K M G T). The command line overrides the -p file.\n"
	       "  -p, --params FILE   parameter file (key = value  # comment); its keys send_o,\n"
	       "                      recv_o, net_L (the piecewise model calib fits) and copy\n"
	       "                      (messages to oneself) replace the LogGOPS costs below;\n"
	       "                      with copy a rendezvous message's data leaves at its\n"
	       "                      match (rndv_handshake = no: not; rndv_copy: the\n"
	       "                      receiver's work on it; recv_o_cross: an eager message\n"
	       "                      that arrived during its receiver's own send; formats/params.md)\n"
	       "  -L T                latency (default 2500)\n"
	       "  -o T                CPU overhead per message (default 1500)\n"
	       "  -g T                NIC gap per message (default 1000)\n"
	       "  -G T                NIC gap per byte (default 6)\n"
	       "  -O T                CPU overhead per byte (default 0)\n"
	       "  -S SIZE             largest eager message; larger ones use rendezvous (default 65535)\n"
	       "      --o-rndv T      o for rendezvous messages (default: o)\n"
	       "      --O-rndv T      O for rendezvous messages (default: O)\n"
	       "      --O-send T      O the sender pays (default: O, as LogGOPSim)\n"
	       "      --O-send-rndv T O the sender of a rendezvous message pays (default: O_rndv)\n"
	       "      --async-progress handle a message when it arrives and start a send when it is\n"
	       "                      ready, adding their overhead to the CPU's work (default:\n"
	       "                      when the CPU is idle, as LogGOPSim)\n"
	       "      --no-spread     every message at send_o and recv_o as they are (default: a\n"
	       "                      factor of send_o_spread and recv_o_spread, drawn with --seed,\n"
	       "                      where the parameters have them; formats/params.md)\n"
	       "  -n, --net NAME      network model: loggops (default) or ib\n"
	       "      --ties ORDER    items of one time in the order they were first queued (seq,\n"
	       "                      default, LogGOPSim's) or by (time made, maker, maker's count)\n"
	       "                      (key: the order ibsim-mpi computes, docs/loggops-semantics.md\n"
	       "                      section 2; with --net ib each fabric event an item of its\n"
	       "                      node, docs/ib-model.md section 12)\n"
	       "      --op-layout L   ops in memory rank by rank (rank) or, in tiles of 512 ranks\n"
	       "                      that run one program, side by side (tiled); auto, the default,\n"
	       "                      tiles from 4096 ranks up (docs/design.md section 7); the\n"
	       "                      results are the same\n"
	       "      --spill DIR     keep the schedule's ops and the arrays per op in files under\n"
	       "                      DIR, so that a schedule larger than memory runs (the kernel\n"
	       "                      pages them; docs/design.md section 8); the results are the same\n"
	       "\n"
	       "Nodes, compute and noise (docs/loggops-semantics.md section 8):\n"
	       "      --cores N       cores per host, shared by its ranks (default: unlimited)\n"
	       "      --ranks-per-host N  ranks N*h .. N*h+N-1 are host h (default 1; --net ib:\n"
	       "                      the hosts of --placement)\n"
	       "      --cpu-wait MODE a rank blocked in MPI gives its core up (block, default,\n"
	       "                      as MPI libraries do on an oversubscribed host) or keeps it (spin)\n"
	       "      --cpu-bind B    block: a rank runs on any core of its host (none, default)\n"
	       "                      or only on core (position mod cores) (core: mpirun --bind-to\n"
	       "                      core:overload-allowed)\n"
	       "      --quantum T     round-robin time slice of shared cores (default 4ms)\n"
	       "      --cpu-yield T   block: one waiting rank's turn on a shared core; a message\n"
	       "                      that wakes a waiting rank, or the release of a waiting\n"
	       "                      rendezvous sender, costs it (ranks-cores)/cores turns\n"
	       "                      (default 0; calib --yield measures it)\n"
	       "      --cpu-wake T    block: what each such wake-up costs on top of the turns\n"
	       "                      (default 0; calib --yield measures it)\n"
	       "      --cpu-scale F   every calc takes F times as long (default 1)\n"
	       "      --noise FILE    detours per host (formats/noise.md)\n"
	       "      --noise-loggopsim FILE  detours in LogGOPSim's format, on every host\n"
	       "      --perturb A     each calc times a factor uniform on [1-A, 1+A) (default 0)\n"
	       "      --seed N        seed of the perturbation and of the spread's draws (default 1)\n"
	       "\n"
	       "InfiniBand network (--net ib; more in formats/params.md and docs/ib-model.md):\n"
	       "      --topo SPEC     topology: a generator (star:N, fattree2:K, ...) or a file\n"
	       "      --routing NAME  minhop, updn, ftree or lft:FILE\n"
	       "      --placement P   rank to host mapping: seq, random[:SEED] or FILE\n"
	       "      --link L        link width and speed, e.g. 4xDDR\n"
	       "      --mtu N         MTU in bytes, 256..4096\n"
	       "      --rndv MODE     rendezvous: fabric (RTS/CTS cross the network) or loggopsim\n"
	       "      --ib KEY=VALUE  any other key of the table below\n"
	       "      --linkstats FILE  TSV per link direction: bytes, packets, busy and stall time\n"
	       "      --dump-lft FILE   write the forwarding tables in OpenSM's LFT dump layout\n"
	       "                      (read back with --routing lft:FILE)\n"
	       "      --dump-netfile FILE  write the topology as a net file of ibsim-utils'\n"
	       "                      fabric simulator (/usr/bin/ibsim; pipelines/opensm.mk)\n"
	       "      --route-stats FILE  TSV per link direction: host pairs routed through it,\n"
	       "                      and a summary of the links between switches\n"
	       "  key             default  meaning\n");
	{
		ir_sb sb = IR_SB_INIT;
		int bad = 0;
		for (size_t i = 0; ir_net_type_at(i); i++)
			if (ir_net_type_at(i)->help)
				bad |= ir_net_type_at(i)->help(&sb);
		if (!bad)
			fputs(sb.buf, stdout);
		ir_sb_release(&sb);
	}
	printf("\n"
	       "Outputs:\n"
	       "      --msglog FILE   one TSV line per matched message\n"
	       "      --timeline FILE Chrome/Perfetto trace-event JSON of spans and messages\n"
	       "      --otf2 DIR      the simulated run as the OTF2 archive DIR/traces.otf2: calcs,\n"
	       "                      sends and message charges as regions, with the messages\n"
	       "      --stats FILE    run statistics (seconds, events per second) as TSV\n"
	       "  -v, --verbose       trace every event on standard error\n"
	       "      --progress      always show a progress bar on standard error\n"
	       "  -q, --quiet         no progress bar and no summary line\n"
	       "  -h, --help          show this help and exit\n"
	       "      --version       show the version and exit\n"
	       "\n"
	       "Differences from LogGOPSim (results agree elsewhere): ready ops keep program\n"
	       "order; an op never starts before its predecessors on other CPUs finished;\n"
	       "zero-byte messages cost no per-byte time; the protocol follows the message\n"
	       "size; a schedule that cannot finish is an error (exit 1) with a report.\n"
	       "\n"
	       "Exit status: 0 ok, 1 bad input or the schedule cannot finish, 2 usage error.\n");
}

/* ---- outputs ---- */

typedef struct out {
	const ir_sched *s;
	ir_writer *msglog, *timeline;
	ibsim_otf2 *otf2;
	int verbose;
	ir_sb buf;       /* pending bytes of the timeline */
	uint64_t nspans;
	ir_progress prog;
	int progress_on;
} out;

static const char *name_of(const out *o, uint32_t r, uint32_t op, char *b, size_t n)
{
	const char *l = op == IR_NO_OP ? NULL : ir_sched_label(o->s, r, op);
	if (op == IR_NO_OP)
		snprintf(b, n, "-");
	else if (l)
		snprintf(b, n, "'%.200s'", l);
	else
		snprintf(b, n, "#%" PRIu32, op);
	return b;
}

static const char *any(uint32_t v, char *b, size_t n)
{
	if (v == IR_ANY)
		snprintf(b, n, "any");
	else
		snprintf(b, n, "%" PRIu32, v);
	return b;
}

static void trace_event(const out *o, const ir_ev *ev)
{
	char a[256], p[24], t[24];
	switch (ev->kind) {
	case IR_EV_CALC:
		fprintf(stderr, "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": calc %s cpu %u runs until %" PRIu64 "\n",
		        ev->t, ev->seq, ev->rank, name_of(o, ev->rank, ev->op, a, sizeof a), ev->cpu, ev->end);
		break;
	case IR_EV_SEND:
		fprintf(stderr,
		        "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": send %s %" PRIu64 " bytes to %" PRIu32 " tag %" PRIu32
		        " cpu %u nic %u%s; message %" PRIu64 "; cpu busy until %" PRIu64 "\n",
		        ev->t, ev->seq, ev->rank, name_of(o, ev->rank, ev->op, a, sizeof a), ev->size, ev->peer, ev->tag, ev->cpu,
		        ev->nic, ev->rndv ? " (rendezvous)" : "", ev->msg, ev->end);
		break;
	case IR_EV_RECV:
		fprintf(stderr, "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": recv %s %" PRIu64 " bytes from %s tag %s %s",
		        ev->t, ev->seq, ev->rank, name_of(o, ev->rank, ev->op, a, sizeof a), ev->size,
		        any(ev->peer, p, sizeof p), any(ev->tag, t, sizeof t),
		        ev->matched ? "matches unexpected message" : "posted");
		if (ev->matched)
			fprintf(stderr, " %" PRIu64, ev->msg);
		fputc('\n', stderr);
		break;
	case IR_EV_MSG:
		fprintf(stderr,
		        "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": message %" PRIu64 " from %" PRIu32 " tag %" PRIu32
		        " %" PRIu64 " bytes%s charged until %" PRIu64 "; %s%s\n",
		        ev->t, ev->seq, ev->rank, ev->msg, ev->peer, ev->tag, ev->size, ev->rndv ? " (rendezvous)" : "",
		        ev->end, ev->matched ? "matches recv " : "unexpected",
		        ev->matched ? name_of(o, ev->rank, ev->op, a, sizeof a) : "");
		break;
	case IR_EV_PUTBACK:
		fprintf(stderr, "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": %s%s busy, put back to %" PRIu64 "\n", ev->t,
		        ev->seq, ev->rank, ev->op == IR_NO_OP ? "message" : "op ",
		        ev->op == IR_NO_OP ? "" : name_of(o, ev->rank, ev->op, a, sizeof a), ev->end);
		break;
	case IR_EV_DATA:
		fprintf(stderr,
		        "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": data of message %" PRIu64 " from %" PRIu32
		        " arrived%s%.0" PRIu64 "; recv %s and the send complete\n",
		        ev->t, ev->seq, ev->rank, ev->msg, ev->peer, ev->end > ev->t ? ", charged until " : "",
		        ev->end > ev->t ? ev->end : 0, name_of(o, ev->rank, ev->op, a, sizeof a));
		break;
	case IR_EV_IO:
		fprintf(stderr,
		        "%" PRIu64 " seq %" PRIu64 " rank %" PRIu32 ": disk %s %s %" PRIu64 " bytes at %" PRIu64
		        " done at %" PRIu64 "\n",
		        ev->t, ev->seq, ev->rank, ev->tag ? (ev->size ? "write" : "flush") : "read",
		        name_of(o, ev->rank, ev->op, a, sizeof a), ev->size, ev->msg, ev->end);
		break;
	default:
		if (ev->net[0])
			fprintf(stderr, "%" PRIu64 " seq %" PRIu64 ": network: %s\n", ev->t, ev->seq, ev->net);
		else
			fprintf(stderr, "%" PRIu64 " seq %" PRIu64 ": network callback %" PRIu64 "\n", ev->t, ev->seq, ev->msg);
		break;
	}
}

/* Picoseconds as exact microseconds for the trace-event format. */
static int add_us(ir_sb *b, uint64_t ps)
{
	return ir_sb_addf(b, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
}

static int add_json_str(ir_sb *b, const char *s)
{
	int rc = ir_sb_addch(b, '"');
	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rc = ir_sb_addch(b, '\\') || ir_sb_addch(b, (char)c);
		else if (c < 0x20 || c >= 0x7f)
			rc = ir_sb_addf(b, "\\u%04x", c);
		else
			rc = ir_sb_addch(b, (char)c);
	}
	return rc || ir_sb_addch(b, '"');
}

static int tl_flush(out *o, int force, ir_err *e)
{
	if (o->buf.len && (force || o->buf.len >= OUTBUF)) {
		if (ir_writer_write(o->timeline, o->buf.buf, o->buf.len, e))
			return -1;
		ir_sb_reset(&o->buf);
	}
	return 0;
}

/* The timeline's thread of a storage server's disk (formats/results.md §3). */
#define IBSIM_TL_DISK 65535u

static int tl_span(out *o, const char *name, const ir_ev *ev, uint64_t end)
{
	ir_sb *b = &o->buf;
	const char *l = ev->op == IR_NO_OP ? NULL : ir_sched_label(o->s, ev->rank, ev->op);
	int rc = ir_sb_adds(b, o->nspans++ ? ",\n{\"name\":\"" : "\n{\"name\":\"");
	rc |= ir_sb_adds(b, name);
	rc |= ir_sb_addf(b, "\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%u,\"ts\":", name, ev->rank,
	                 ev->kind == IR_EV_IO ? IBSIM_TL_DISK : ev->cpu);
	rc |= add_us(b, ev->t);
	rc |= ir_sb_adds(b, ",\"dur\":");
	rc |= add_us(b, end - ev->t);
	rc |= ir_sb_adds(b, ",\"args\":{");
	if (ev->op != IR_NO_OP) {
		rc |= ir_sb_addf(b, "\"op\":%" PRIu32 ",", ev->op);
		if (l) {
			rc |= ir_sb_adds(b, "\"label\":");
			rc |= add_json_str(b, l);
			rc |= ir_sb_addch(b, ',');
		}
	}
	if (ev->kind == IR_EV_CALC)
		rc |= ir_sb_addf(b, "\"ps\":%" PRIu64 "}}", ev->size);
	else if (ev->kind == IR_EV_IO)
		rc |= ir_sb_addf(b, "\"bytes\":%" PRIu64 ",\"addr\":%" PRIu64 "}}", ev->size, ev->msg);
	else
		rc |= ir_sb_addf(b, "\"peer\":%" PRIu32 ",\"tag\":%" PRIu32 ",\"bytes\":%" PRIu64 ",\"msg\":%" PRIu64 "}}",
		                 ev->peer, ev->tag, ev->size, ev->msg);
	return rc;
}

static int tl_flow(out *o, const ir_ev *ev, int start)
{
	ir_sb *b = &o->buf;
	int rc = ir_sb_addf(b, ",\n{\"name\":\"msg\",\"cat\":\"msg\",\"ph\":\"%s\",\"id\":%" PRIu64
	                       ",\"pid\":%" PRIu32 ",\"tid\":%u,\"ts\":",
	                    start ? "s" : "f\",\"bp\":\"e", ev->msg, ev->rank, ev->cpu);
	rc |= add_us(b, ev->t);
	return rc | ir_sb_addch(b, '}');
}

static int on_event(void *ctx, const ir_ev *ev, ir_err *e)
{
	out *o = ctx;
	if (o->verbose)
		trace_event(o, ev);
	if (o->otf2 && ibsim_otf2_event(o->otf2, ev, e))
		return -1;
	if (!o->timeline)
		return 0;
	if (ev->kind == IR_EV_CALC) {
		if (tl_span(o, "calc", ev, ev->end))
			return ir_errf(e, "out of memory");
	} else if (ev->kind == IR_EV_SEND) {
		if (tl_span(o, "send", ev, ev->end) || tl_flow(o, ev, 1))
			return ir_errf(e, "out of memory");
	} else if (ev->kind == IR_EV_MSG) {
		if (tl_span(o, "recv", ev, ev->end) || tl_flow(o, ev, 0))
			return ir_errf(e, "out of memory");
	} else if (ev->kind == IR_EV_IO) {
		if (tl_span(o, ev->tag ? (ev->size ? "write" : "flush") : "read", ev, ev->end))
			return ir_errf(e, "out of memory");
	}
	return tl_flush(o, 0, e);
}

static int on_message(void *ctx, const ir_msg_rec *m, ir_err *e)
{
	out *o = ctx;
	return ir_writer_printf(o->msglog, e,
	                        "%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	                        "\t%" PRIu64 "\t%s\t%" PRIu32 "\t%" PRIu32 "\n",
	                        m->id, m->src, m->dst, m->tag, m->size, m->inject, m->arrive, m->matched,
	                        m->rndv ? "rndv" : "eager", m->send_op, m->recv_op);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	out *o = ctx;
	ir_progress_update(&o->prog, done, total);
}

/* --stats FILE (formats/results.md section 7): the figures of this run that are not
 * a function of its inputs, kept out of the results. */
#ifdef IBSIM_MPI
#define IBSIM_PAR 1
#define PARINFO (&pr)
#define RANK_COL(f, en, r) pr.f[r]
#define PAR_LOCAL_RC pr.local_rc
#define PAR_ME par_me()
#else
#define PAR_LOCAL_RC 1
#define PAR_ME 0
#define IBSIM_PAR 0
#define PARINFO NULL
#define RANK_COL(f, en, r) ir_engine_rank_##f(en, r)
typedef struct par_result par_result;
#endif

static int write_stats(const char *path, double load, double wall, const ir_engine_stats *st, uint32_t tiled,
                       const ir_ib_stats *fs, const par_result *pr, ir_err *e)
{
	ir_sb b = IR_SB_INIT;
	ir_writer *w;
	int rc = ir_sb_addf(&b, "# ibsim " IR_VERSION " stats\nload_s\t%.6f\nwall_s\t%.6f\nevents\t%" PRIu64
	                        "\nev_per_s\t%.0f\nranks_tiled\t%" PRIu32 "\nspill_bytes\t%zu\n",
	                    load, wall, st->events, wall > 0 ? (double)st->events / wall : 0, tiled, ir_spill_bytes());
	if (fs)
		rc |= ir_sb_addf(&b, "packet_hops\t%" PRIu64 "\npacket_hops_per_s\t%.0f\nfabric_events\t%" PRIu64
		                     "\nfabric_ev_per_s\t%.0f\n",
		                 fs->packet_hops, wall > 0 ? (double)fs->packet_hops / wall : 0, fs->events,
		                 wall > 0 ? (double)fs->events / wall : 0);
	if (fs)
		rc |= ir_sb_addf(&b, "nonminimal\t%" PRIu64 "\n", fs->nonminimal);
	if (fs && fs->path_other)
		rc |= ir_sb_addf(&b, "path_other\t%" PRIu64 "\n", fs->path_other);
	if (fs && (fs->fecn || fs->becn))
		rc |= ir_sb_addf(&b, "fecn\t%" PRIu64 "\nbecn\t%" PRIu64 "\nccti_max\t%" PRIu64 "\n", fs->fecn, fs->becn,
		                 fs->ccti_max);
#ifdef IBSIM_MPI
	rc |= ir_sb_addf(&b, "procs\t%" PRIu32 "\nwindows\t%" PRIu64 "\nlookahead_ps\t%" PRIu64 "\ncut_msgs\t%" PRIu64
	                     "\ncut_bytes\t%" PRIu64 "\nmsgs\t%" PRIu64 "\nbytes\t%" PRIu64 "\nsets\t%" PRIu32 "\n",
	                 pr->nprocs, pr->windows, pr->plan.lookahead == UINT64_MAX ? 0 : pr->plan.lookahead,
	                 pr->plan.cut_msgs, pr->plan.cut_bytes, pr->plan.msgs, pr->plan.bytes, pr->plan.groups);
	if (pr->has_fab)
		rc |= ir_sb_addf(&b, "cut_links\t%" PRIu64 "\n", pr->cut_links);
	for (uint32_t q = 0; q < pr->nprocs; q++)
		rc |= ir_sb_addf(&b, "proc%" PRIu32 "_ranks\t%" PRIu32 "\nproc%" PRIu32 "_ops\t%" PRIu64 "\n", q,
		                 pr->plan.ranks[q], q, pr->plan.ops[q]);
#else
	(void)pr;
#endif
	if (rc) {
		ir_sb_release(&b);
		return ir_errf(e, "out of memory");
	}
	w = ir_writer_open(path, 0, e);
	if (!w || ir_writer_write(w, b.buf, b.len, e)) {
		ir_writer_abort(w);
		ir_sb_release(&b);
		return -1;
	}
	ir_sb_release(&b);
	return ir_writer_close(w, e);
}

/* ---- parameters ---- */

/* Keys ibsim reads, and keys of other tools (trace2goal's pinning cost, written by
 * calib) that it ignores without a warning, so one params file serves all tools. */
/* the keys ibsim reads beside the model's (ir_loggops_keys) and the networks' own */
static const char *const known_keys[] = { "net", "async_progress",
	                                      "pin_a", "pin_b", "cores", "ranks_per_host", "cpu_wait", "cpu_bind", "quantum", "cpu_scale", "cpu_yield", "cpu_wake",
	                                      "perturb", "seed", "noise", "noise_loggopsim",
	                                      /* the storage model (ir_storage_keys) */
	                                      "storage_servers", "stripe_size", "stripe_count", "cb_nodes", "server_cache",
	                                      "cache_G", "disk_G", "disk_access", "disk_track_seek", "disk_rotation",
	                                      "disk_track", "disk_sync", "disk_read_G", "dirty_limit", "flush_on_close",
	                                      "romio_ds_read", "romio_ds_write", "ind_rd_buffer_size", "ind_wr_buffer_size", NULL };

static int is_key(const char *const *list, const char *k)
{
	for (; *list; list++)
		if (strcmp(*list, k) == 0)
			return 1;
	return 0;
}

static int get_params(const ir_params *ps, ir_loggops *p, const char **net, ir_err *e)
{
	ir_node_cfg nc;
	if (ir_loggops_load(p, ps, e) || ir_node_load(&nc, ps, e))
		return -1;
	*net = ir_params_get(ps, "net");
	if (!*net)
		*net = "loggops";
	return 0;
}

/* ---- main ---- */

enum {
	OPT_ORNDV = 256, OPT_ORNDV_BIG, OPT_OSEND, OPT_OSEND_RNDV, OPT_ASYNC, OPT_MSGLOG, OPT_TIMELINE, OPT_OTF2, OPT_PROGRESS, OPT_VERSION, OPT_TOPO, OPT_ROUTING,
	OPT_PLACEMENT, OPT_LINK, OPT_MTU, OPT_IB, OPT_LINKSTATS, OPT_DUMPLFT, OPT_DUMPNET, OPT_ROUTESTATS, OPT_RNDV, OPT_STATS,
	OPT_CORES, OPT_RPH, OPT_CPUWAIT, OPT_CPUBIND, OPT_QUANTUM, OPT_CPUYIELD, OPT_CPUWAKE, OPT_CPUSCALE, OPT_NOISE, OPT_NOISE_LG, OPT_PERTURB, OPT_SEED,
	OPT_WEIGHTS, OPT_TIES, OPT_LAYOUT, OPT_SPILL, OPT_NOSPREAD
};
#define MAXSET 64

#ifdef IBSIM_MPI
int ibsim_main(int argc, char **argv);
int ibsim_main(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
	static const struct option longopts[] = {
		{ "params", required_argument, NULL, 'p' },
		{ "o-rndv", required_argument, NULL, OPT_ORNDV },
		{ "O-rndv", required_argument, NULL, OPT_ORNDV_BIG },
		{ "O-send", required_argument, NULL, OPT_OSEND },
		{ "O-send-rndv", required_argument, NULL, OPT_OSEND_RNDV },
		{ "async-progress", no_argument, NULL, OPT_ASYNC },
		{ "no-spread", no_argument, NULL, OPT_NOSPREAD },
		{ "net", required_argument, NULL, 'n' },
		{ "msglog", required_argument, NULL, OPT_MSGLOG },
		{ "timeline", required_argument, NULL, OPT_TIMELINE },
		{ "otf2", required_argument, NULL, OPT_OTF2 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "topo", required_argument, NULL, OPT_TOPO },
		{ "routing", required_argument, NULL, OPT_ROUTING },
		{ "placement", required_argument, NULL, OPT_PLACEMENT },
		{ "link", required_argument, NULL, OPT_LINK },
		{ "mtu", required_argument, NULL, OPT_MTU },
		{ "ib", required_argument, NULL, OPT_IB },
		{ "linkstats", required_argument, NULL, OPT_LINKSTATS },
		{ "dump-lft", required_argument, NULL, OPT_DUMPLFT },
		{ "dump-netfile", required_argument, NULL, OPT_DUMPNET },
		{ "route-stats", required_argument, NULL, OPT_ROUTESTATS },
		{ "rndv", required_argument, NULL, OPT_RNDV },
		{ "stats", required_argument, NULL, OPT_STATS },
		{ "cores", required_argument, NULL, OPT_CORES },
		{ "ranks-per-host", required_argument, NULL, OPT_RPH },
		{ "cpu-wait", required_argument, NULL, OPT_CPUWAIT },
		{ "cpu-bind", required_argument, NULL, OPT_CPUBIND },
		{ "quantum", required_argument, NULL, OPT_QUANTUM },
		{ "cpu-yield", required_argument, NULL, OPT_CPUYIELD },
		{ "cpu-wake", required_argument, NULL, OPT_CPUWAKE },
		{ "cpu-scale", required_argument, NULL, OPT_CPUSCALE },
		{ "noise", required_argument, NULL, OPT_NOISE },
		{ "noise-loggopsim", required_argument, NULL, OPT_NOISE_LG },
		{ "perturb", required_argument, NULL, OPT_PERTURB },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "ties", required_argument, NULL, OPT_TIES },
		{ "op-layout", required_argument, NULL, OPT_LAYOUT },
		{ "spill", required_argument, NULL, OPT_SPILL },
#ifdef IBSIM_MPI
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
#endif
		{ NULL, 0, NULL, 0 },
	};
	struct { const char *key, *val, *opt; char buf[80]; } set[MAXSET];
	const char *linkstats = NULL;
	const char *net_opt = NULL, *net_key = NULL; /* the first network option given, and its key */
	const ir_net_type *nt = NULL;
	void *ncfg = NULL;  /* the network's configuration (nt->cfg_new) */
	ir_ib_cfg ibc = { 0 }; /* a copy of it for the summary line when the network is ib */
	ir_ib *ib = NULL;
	int nset = 0, c, status = IR_EXIT_BAD, verbose = 0, progress = -1, quiet = 0, rc, load_flags = 0;
	int no_spread = 0;
	const char *pfile = NULL, *msglog = NULL, *timeline = NULL, *otf2 = NULL, *path, *net = NULL, *stats = NULL;
	ir_params *ps = NULL;
	ir_sched *s = NULL;
	ir_engine *en = NULL;
	ir_engine_cfg cfg;
	ir_node_cfg node;
	ir_storage_cfg stor;
	const char *spill = NULL;
#ifdef IBSIM_MPI
	const char *weights_spec = NULL;
	double *weights = NULL;
	par_result pr;
	memset(&pr, 0, sizeof pr);
#endif
	ir_noise noise;
	ir_err e;
	out o;
	double t0, tl, t1;
	ir_sb sb = IR_SB_INIT;

	ir_cli_init(argv[0]);
	memset(&o, 0, sizeof o);
	ir_sb_init(&o.buf);
	memset(&cfg, 0, sizeof cfg);
	ir_noise_init(&noise);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:L:o:g:G:O:S:n:vqh", longopts, NULL)) != -1) {
		const char *key = NULL, *opt = NULL;
		switch (c) {
		case 'p':
			pfile = optarg;
			break;
		case 'L': key = "L"; opt = "-L"; break;
		case 'o': key = "o"; opt = "-o"; break;
		case 'g': key = "g"; opt = "-g"; break;
		case 'G': key = "G"; opt = "-G"; break;
		case 'O': key = "O"; opt = "-O"; break;
		case 'S': key = "S"; opt = "-S"; break;
		case OPT_ORNDV: key = "o_rndv"; opt = "--o-rndv"; break;
		case OPT_ORNDV_BIG: key = "O_rndv"; opt = "--O-rndv"; break;
		case OPT_OSEND: key = "O_send"; opt = "--O-send"; break;
		case OPT_OSEND_RNDV: key = "O_send_rndv"; opt = "--O-send-rndv"; break;
		case OPT_ASYNC: key = "async_progress"; opt = "--async-progress"; optarg = (char *)"yes"; break;
		case 'n': key = "net"; opt = "--net"; break;
		case OPT_TOPO: key = "topo"; opt = "--topo"; break;
		case OPT_ROUTING: key = "routing"; opt = "--routing"; break;
		case OPT_PLACEMENT: key = "placement"; opt = "--placement"; break;
		case OPT_LINK: key = "link"; opt = "--link"; break;
		case OPT_MTU: key = "mtu"; opt = "--mtu"; break;
		case OPT_DUMPLFT: key = "dump_lft"; opt = "--dump-lft"; break;
		case OPT_DUMPNET: key = "dump_netfile"; opt = "--dump-netfile"; break;
		case OPT_ROUTESTATS: key = "route_stats"; opt = "--route-stats"; break;
		case OPT_RNDV: key = "rndv"; opt = "--rndv"; break;
		case OPT_CORES: key = "cores"; opt = "--cores"; break;
		case OPT_RPH: key = "ranks_per_host"; opt = "--ranks-per-host"; break;
		case OPT_CPUWAIT: key = "cpu_wait"; opt = "--cpu-wait"; break;
		case OPT_CPUBIND: key = "cpu_bind"; opt = "--cpu-bind"; break;
		case OPT_QUANTUM: key = "quantum"; opt = "--quantum"; break;
		case OPT_CPUYIELD: key = "cpu_yield"; opt = "--cpu-yield"; break;
		case OPT_CPUWAKE: key = "cpu_wake"; opt = "--cpu-wake"; break;
		case OPT_CPUSCALE: key = "cpu_scale"; opt = "--cpu-scale"; break;
		case OPT_NOISE: key = "noise"; opt = "--noise"; break;
		case OPT_NOISE_LG: key = "noise_loggopsim"; opt = "--noise-loggopsim"; break;
		case OPT_PERTURB: key = "perturb"; opt = "--perturb"; break;
		case OPT_SEED: key = "seed"; opt = "--seed"; break;
		case OPT_IB: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || (size_t)(eq - optarg) >= sizeof set[0].buf)
				return ir_cli_usage("--ib needs KEY=VALUE, got '%s'", optarg);
			if (nset == MAXSET)
				return ir_cli_usage("too many parameter options (at most %d)", MAXSET);
			memcpy(set[nset].buf, optarg, (size_t)(eq - optarg));
			set[nset].buf[eq - optarg] = '\0';
			key = set[nset].buf;
			optarg = (char *)eq + 1;
			opt = "--ib";
			break;
		}
		case OPT_LINKSTATS:
			linkstats = optarg;
			break;
		case OPT_NOSPREAD:
			no_spread = 1;
			break;
		case OPT_MSGLOG:
			msglog = optarg;
			break;
		case OPT_OTF2:
			otf2 = optarg;
			break;
		case OPT_TIMELINE:
			timeline = optarg;
			break;
		case OPT_STATS:
			stats = optarg;
			break;
		case OPT_SPILL:
			if (!*optarg)
				return ir_cli_usage("--spill takes a directory, got ''");
			spill = optarg;
			break;
		case OPT_LAYOUT:
			if (strcmp(optarg, "tiled") == 0)
				load_flags = IR_SCHED_TILED;
			else if (strcmp(optarg, "rank") == 0)
				load_flags = IR_SCHED_RANK_MAJOR;
			else if (strcmp(optarg, "auto") == 0)
				load_flags = 0;
			else
				return ir_cli_usage("--op-layout takes auto, rank or tiled, got '%s'", optarg);
			break;
		case OPT_TIES:
			if (strcmp(optarg, "key") == 0)
				cfg.ties = IR_TIES_KEY;
			else if (strcmp(optarg, "seq") == 0)
				cfg.ties = IR_TIES_SEQ;
			else
				return ir_cli_usage("--ties takes seq or key, got '%s'", optarg);
#ifdef IBSIM_MPI
			if (cfg.ties != IR_TIES_KEY)
				return ir_cli_usage("ibsim-mpi orders ties by key only (--ties key)");
#endif
			break;
#ifdef IBSIM_MPI
		case OPT_WEIGHTS:
			weights_spec = optarg;
			break;
#endif
		case 'v':
			verbose = 1;
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case 'q':
			quiet = 1;
			progress = 0;
			break;
		case 'h':
			usage();
			return ir_cli_finish(IR_EXIT_OK);
		case OPT_VERSION:
			ir_cli_version();
			return ir_cli_finish(IR_EXIT_OK);
		default:
			return ir_cli_getopt_error(c, argv);
		}
		if (key) {
			int k;
			for (k = 0; k < nset; k++)
				if (strcmp(set[k].key, key) == 0)
					break;
			if (k == MAXSET)
				return ir_cli_usage("too many parameter options (at most %d)", MAXSET);
			if (k == nset)
				nset++;
			if (key != set[k].buf) {
				snprintf(set[k].buf, sizeof set[k].buf, "%s", key);
				key = set[k].buf;
			}
			set[k].key = key;
			set[k].val = optarg;
			set[k].opt = opt;
			if (!is_key(known_keys, key) && !is_key(ir_loggops_keys, key) && !net_opt) {
				net_opt = opt;
				net_key = key;
			}
		}
	}
	if (optind == argc)
		return ir_cli_usage("missing SCHEDULE");
	if (optind + 1 < argc)
		return ir_cli_usage("unexpected operand '%s'", argv[optind + 1]);
	path = argv[optind];
#ifdef IBSIM_MPI
	{
		if (progress == 1)
			return ir_cli_usage("--progress is not available in ibsim-mpi");
		progress = 0;
		if (weights_spec) {
			if (!(weights = calloc(par_nprocs(), sizeof *weights)))
				return ir_cli_failf("out of memory");
			if (ir_par_weights(weights_spec, par_nprocs(), weights, &e)) {
				free(weights);
				return ir_cli_usage("%s", e.msg);
			}
		}
	}
#endif
	if (pfile && strcmp(pfile, "-") == 0 && strcmp(path, "-") == 0)
		return ir_cli_usage("the parameter file and the schedule cannot both be standard input");

	/* Parameters: defaults < file < command line. Bad values on the command
	 * line are usage errors; bad values in the file are bad input. */
	ps = ir_params_new();
	if (!ps)
		return ir_cli_failf("out of memory");
	for (int k = 0; k < nset; k++) {
		ir_params *one = ir_params_new();
		ir_loggops tmp;
		const char *nn;
		if (!one || ir_params_set(one, set[k].key, set[k].val, set[k].opt, &e) ||
		    get_params(one, &tmp, &nn, &e)) {
			ir_params_free(one);
			ir_params_free(ps);
			return ir_cli_usage("%s", e.msg);
		}
		ir_params_free(one);
		if (!is_key(known_keys, set[k].key) && !is_key(ir_loggops_keys, set[k].key)) {
			/* a network's option: the first network that has the key checks the value */
			int r = -2;
			for (size_t i = 0; r == -2 && ir_net_type_at(i); i++) {
				const ir_net_type *t = ir_net_type_at(i);
				void *scratch;
				if (!t->cfg_new)
					continue;
				scratch = t->cfg_new();
				r = scratch ? t->cfg_set(scratch, set[k].key, set[k].val, &e) : ir_errf(&e, "out of memory");
				t->cfg_free(scratch);
			}
			if (r) {
				ir_params_free(ps);
				return ir_cli_usage("%s", e.msg);
			}
		}
	}
	if (pfile && ir_params_load(ps, pfile, &e)) {
		ir_params_free(ps);
		return ir_cli_fail(&e);
	}
	{
		size_t i = 0;
		long k;
		char orig[300];
		while ((k = ir_params_next_unknown(ps, known_keys, &i)) >= 0)
			if (!ir_net_owner(ir_params_key(ps, (size_t)k)) && !is_key(ir_loggops_keys, ir_params_key(ps, (size_t)k)))
				ir_cli_warnf("%s: unknown parameter '%s' ignored", ir_params_origin(ps, (size_t)k, orig, sizeof orig),
			             ir_params_key(ps, (size_t)k));
	}
	for (int k = 0; k < nset; k++)
		if (ir_params_set(ps, set[k].key, set[k].val, set[k].opt, &e)) {
			ir_params_free(ps);
			return ir_cli_usage("%s", e.msg);
		}
	if (get_params(ps, &cfg.p, &net, &e) || ir_node_load(&node, ps, &e) || ir_storage_load(&stor, ps, &e)) {
		ir_params_free(ps);
		return ir_cli_fail(&e);
	}
	if (no_spread)
		cfg.p.send_spread.n = cfg.p.recv_spread.n = 0;

	{
		const char *ap = ir_params_get(ps, "async_progress");
		if (ap && strcmp(ap, "yes") == 0) {
			cfg.progress = IR_PROGRESS_ARRIVAL;
		} else if (ap && strcmp(ap, "no") != 0) {
			char orig[300] = "", q[160];
			for (size_t i = 0; i < ir_params_count(ps); i++)
				if (strcmp(ir_params_key(ps, i), "async_progress") == 0)
					ir_params_origin(ps, i, orig, sizeof orig);
			ir_err_quote(q, sizeof q, ap, strlen(ap));
			ir_params_free(ps);
			return ir_cli_failf("%s: invalid async_progress '%s' (expected yes or no)", orig, q);
		}
	}
	/* The network, by name through the registry (ir_net.h). */
	nt = ir_net_find(net, &e);
	if (!nt) {
		char orig[300] = "";
		int from_cli = 0;
		for (int k = 0; k < nset; k++)
			from_cli |= strcmp(set[k].key, "net") == 0;
		for (size_t i = 0; i < ir_params_count(ps); i++)
			if (strcmp(ir_params_key(ps, i), "net") == 0)
				ir_params_origin(ps, i, orig, sizeof orig);
		ir_params_free(ps);
		if (from_cli)
			return ir_cli_usage("%s", e.msg);
		return ir_cli_failf("%s: %s", orig, e.msg);
	}
	{
		/* an option of another network, or --linkstats (a kept instance) elsewhere */
		int bad_opt = net_opt && !ir_net_accepts(nt, net_key);
		if (bad_opt || (linkstats && !nt->cfg_keep)) {
			const ir_net_type *owner;
			for (size_t i = 0; (owner = ir_net_type_at(i)) != NULL; i++)
				if (bad_opt ? ir_net_accepts(owner, net_key) : owner->cfg_keep != NULL)
					break;
			ir_params_free(ps);
			return ir_cli_usage("%s applies to --net %s only", bad_opt ? net_opt : "--linkstats",
			                    owner ? owner->name : "(none)");
		}
	}
	if (nt->cfg_new) {
		ncfg = nt->cfg_new();
		if (!ncfg) {
			ir_params_free(ps);
			return ir_cli_failf("out of memory");
		}
		/* Every key of the network in the parameter set, file values then options. */
		for (size_t i = 0; i < ir_params_count(ps); i++) {
			const char *k = ir_params_key(ps, i);
			if (is_key(known_keys, k))
				continue;
			if (nt->cfg_set(ncfg, k, ir_params_value(ps, i), &e) == -1) {
				char orig[300];
				status = ir_cli_failf("%s: %s", ir_params_origin(ps, i, orig, sizeof orig), e.msg);
				ir_params_free(ps);
				nt->cfg_free(ncfg);
				return ir_cli_finish(status);
			}
		}
		if (nt->cfg_keep) { /* the ib network: its instance stays for --linkstats and the summary */
			nt->cfg_keep(ncfg, (void **)&ib);
			ibc = *(const ir_ib_cfg *)ncfg;
		}
	}
	cfg.net = nt->ops;
	cfg.net_arg = ncfg;

	if (node.noise) {
		if (ir_noise_load(&noise, node.noise, node.noise_loggopsim, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
		node.nz = &noise;
	}
	cfg.node = &node;
	cfg.storage = &stor;

	if (spill && ir_spill_dir(spill, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	/* Load. */
	t0 = ir_now();
	if (ir_sched_load(&s, path, IR_SCHED_LABELS | IR_SCHED_COMPACT | load_flags, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	o.s = s;
	o.verbose = verbose;
	if (msglog && PAR_ME == 0) {
		o.msglog = ir_writer_open(msglog, 0, &e);
		if (!o.msglog || ir_writer_puts(o.msglog, "# ibsim " IR_VERSION " msglog\nid\tsrc\tdst\ttag\tsize\tinject_ps\tarrive_ps\tmatched_ps\tprotocol\tsend_op\trecv_op\n", &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	}
	if (timeline && PAR_ME == 0) {
		o.timeline = ir_writer_open(timeline, 0, &e);
		if (!o.timeline || ir_writer_puts(o.timeline, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"ibsim " IR_VERSION "\"},\"traceEvents\":[", &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	}
	if (otf2 && PAR_ME == 0 && !(o.otf2 = ibsim_otf2_open(otf2, s->nranks, &e))) {
		status = ir_cli_fail(&e);
		goto done;
	}
	cfg.hooks.ctx = &o;
	cfg.hooks.event = (verbose || timeline || otf2) ? on_event : NULL;
	cfg.hooks.message = msglog ? on_message : NULL;
	ir_progress_init(&o.prog, progress, "simulating");
	cfg.hooks.progress = o.prog.mode ? on_progress : NULL;
	tl = ir_now();
#ifdef IBSIM_MPI
	par_loud();
	{
		/* --net ib: the fabric is split over the processes (docs/ib-model.md section 13) */
		par_fabric fab = { .cfg = ncfg, .inst = &ib };
		rc = par_run(s, &cfg, weights, node.cores || ir_model_intra(&cfg.p) ? node.ranks_per_host : 0,
		             nt->cfg_keep ? &fab : NULL, &en, &pr, &e);
	}
	if (rc == -2) { /* the plan: every process fails alike */
		if (par_me() == 0)
			status = ir_cli_failf("%s", e.msg);
		else
			status = IR_EXIT_BAD;
		goto done;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: process %u: %s\n", ir_cli_prog(), par_me(), e.msg);
		par_abort(IR_EXIT_BAD);
	}
	if (par_me() != 0 && rc == 0) {
		/* process 0 writes the results */
		status = IR_EXIT_OK;
		goto done;
	}
	t1 = tl + pr.wall;
#else
	en = ir_engine_new(s, &cfg, &e);
	if (!en) {
		status = ir_cli_fail(&e);
		goto done;
	}
	rc = ir_engine_run(en, &e);
	t1 = ir_now();
#endif
	ir_progress_end(&o.prog);
	if (rc < 0) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (o.timeline && (ir_sb_adds(&o.buf, "\n]}\n") || tl_flush(&o, 1, &e) || ir_writer_close(o.timeline, &e))) {
		o.timeline = NULL;
		status = ir_cli_fail(&e);
		goto done;
	}
	o.timeline = NULL;
	{
		ibsim_otf2 *x = o.otf2;
		o.otf2 = NULL;
		if (ibsim_otf2_close(x, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	}
	if (linkstats && ib) {
		ir_writer *w = ir_writer_open(linkstats, 0, &e);
		ir_sb ls = IR_SB_INIT;
		if (!w || ir_ib_linkstats(ib, &ls) || ir_writer_write(w, ls.buf, ls.len, &e) || ir_writer_close(w, &e)) {
			ir_sb_release(&ls);
			status = ir_cli_fail(&e);
			goto done;
		}
		ir_sb_release(&ls);
	}
	if (o.msglog) {
		ir_writer *w = o.msglog;
		o.msglog = NULL;
		if (ir_writer_close(w, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	}
	{
#ifdef IBSIM_MPI
		const ir_engine_stats *st = &pr.st;
#else
		const ir_engine_stats *st = ir_engine_get_stats(en);
#endif
		if (st->oversize && !PAR_ME) {
			char a[256];
			ir_cli_warnf("%" PRIu64 " message%s larger than the receive that matched %s; first: %" PRIu64
			             " bytes from rank %" PRIu32 " into recv %s (%" PRIu64 " bytes) on rank %" PRIu32,
			             st->oversize, st->oversize == 1 ? "" : "s", st->oversize == 1 ? "it" : "them",
			             st->over_msg_size, st->over_src, name_of(&o, st->over_rank, st->over_recv, a, sizeof a),
			             st->over_recv_size, st->over_rank);
		}
		if (rc == 1) {
			const char *p, *q;
			if (IBSIM_PAR && PAR_LOCAL_RC == 0) {
				status = IR_EXIT_BAD; /* another process's ranks cannot finish: it reports them */
				goto done;
			}
			if (ir_engine_deadlock(en, &sb, 10)) {
				status = ir_cli_failf("deadlock (out of memory for the report)");
				goto done;
			}
			for (p = sb.buf; *p; p = q + 1) {
				q = strchr(p, '\n');
				fprintf(stderr, "%s: %.*s\n", ir_cli_prog(), (int)(q - p), p);
			}
			status = IR_EXIT_BAD;
			goto done;
		}
		{
			double wall = t1 - tl, eps = wall > 0 ? (double)st->events / wall : 0;
			char tb[64], osend[640] = "";
			if (cfg.p.O_send != cfg.p.O || cfg.p.O_send_rndv != cfg.p.O_rndv)
				snprintf(osend, sizeof osend, " O_send=%" PRIu64 " O_send_rndv=%" PRIu64, cfg.p.O_send,
				         cfg.p.O_send_rndv);
			if (ir_model_pw(&cfg.p))
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " model=piecewise");
			if (cfg.p.copy.n)
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " copy=yes");
			/* the piecewise model's rendezvous protocol: on loggops, and within a host */
			if ((!ib && ir_model_rndv_hs(&cfg.p)) || (ir_model_intra(&cfg.p) && cfg.p.copy.n && cfg.p.rndv_hs))
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " rndv=handshake");
			if (cfg.progress == IR_PROGRESS_ARRIVAL)
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " async_progress=yes");
			if (node.cores) {
				char rph[32] = "placement"; /* the network placed the ranks on its hosts */
				if (node.ranks_per_host_set || !nt->ops->host_of)
					snprintf(rph, sizeof rph, "%" PRIu32, node.ranks_per_host);
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend),
				         " cores=%" PRIu32 " ranks_per_host=%s cpu_wait=%s quantum=%" PRIu64, node.cores, rph,
				         node.wait == IR_WAIT_BLOCK ? "block" : "spin", node.quantum);
				if (node.bind && node.wait == IR_WAIT_BLOCK)
					snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " cpu_bind=core");
				if (node.yield)
					snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " cpu_yield=%" PRIu64,
					         node.yield);
				if (node.wake)
					snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " cpu_wake=%" PRIu64,
					         node.wake);
			}
			if (ir_model_intra(&cfg.p)) {
				char rph[32] = "placement";
				if (node.ranks_per_host_set || !nt->ops->host_of)
					snprintf(rph, sizeof rph, "%" PRIu32, node.ranks_per_host);
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " intra=piecewise%s%s",
				         node.cores ? "" : " ranks_per_host=", node.cores ? "" : rph);
			}
			if (node.cpu_scale != 1.0)
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " cpu_scale=%g", node.cpu_scale);
			if (node.nz)
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " noise=%s detours=%zu",
				         node.noise_loggopsim ? "loggopsim" : "yes", noise.nd);
			if (node.perturb > 0)
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " perturb=%g seed=%" PRIu64,
				         node.perturb, node.seed);
			if (stor.servers)
				snprintf(osend + strlen(osend), sizeof osend - strlen(osend), " storage_servers=%" PRIu32,
				         stor.servers);
			char fab[160] = "";
#ifdef IBSIM_MPI
			const ir_ib_stats *fs = pr.has_fab ? &pr.fab : NULL;
#else
			const ir_ib_stats *fs = ib ? ir_ib_get_stats(ib) : NULL;
#endif
			if (fs)
				snprintf(fab, sizeof fab, " packets=%" PRIu64 " packet_hops=%" PRIu64 " fabric_events=%" PRIu64,
				         fs->packets, fs->packet_hops, fs->events);
			/* Wall-clock figures vary from run to run: they go to their own file, so the
			 * results stay a pure function of the schedule and the parameters. */
			if (stats && write_stats(stats, tl - t0, wall, st, s->compact ? s->compact->ntiled : 0, fs, PARINFO, &e)) {
				status = ir_cli_fail(&e);
				goto done;
			}
			printf("# ibsim %s net=%s%s%s L=%" PRIu64 " o=%" PRIu64 " g=%" PRIu64 " G=%" PRIu64 " O=%" PRIu64
			       " S=%" PRIu64 " o_rndv=%" PRIu64 " O_rndv=%" PRIu64 "%s ranks=%" PRIu32 " events=%" PRIu64
			       "%s\n",
			       IR_VERSION, net, ib ? " topo=" : "", ib ? (ibc.topo ? ibc.topo : "star") : "", cfg.p.L, cfg.p.o, cfg.p.g, cfg.p.G, cfg.p.O, cfg.p.S, cfg.p.o_rndv, cfg.p.O_rndv,
			       osend, s->nranks, st->events, fab);
			printf("rank\tend_ps\tcalc_ps\tmsgs_sent\tbytes_sent\n");
			for (uint32_t r = 0; r < s->nranks; r++)
				printf("%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", r, RANK_COL(end, en, r),
				       RANK_COL(calc, en, r), RANK_COL(msgs, en, r), RANK_COL(bytes, en, r));
			if (!quiet)
				fprintf(stderr,
				        "%s: %" PRIu32 " ranks, %" PRIu64 " ops, %" PRIu64 " messages, %" PRIu64
				        " put-backs; ends at %s (%" PRIu64 " ps); loaded in %.3f s; %" PRIu64
				        " events in %.3f s (%.1f M events/s)\n",
				        ir_cli_prog(), s->nranks, st->ops, st->msgs, st->putbacks,
				        ir_fmt_time(tb, sizeof tb, st->end), st->end, tl - t0, st->events, wall, eps / 1e6);
			if (!quiet && fs)
				fprintf(stderr,
				        "%s: fabric: %" PRIu64 " packets, %" PRIu64 " packet hops, %" PRIu64
				        " fabric events in the same %.3f s (%.1f M packet hops/s, %.1f M fabric events/s)\n",
				        ir_cli_prog(), fs->packets, fs->packet_hops, fs->events, wall,
				        wall > 0 ? (double)fs->packet_hops / wall / 1e6 : 0, wall > 0 ? (double)fs->events / wall / 1e6 : 0);
#ifdef IBSIM_MPI
			if (!quiet) {
				char la[64] = "none (no message between processes)", links[64] = "";
				if (pr.plan.lookahead != UINT64_MAX)
					snprintf(la, sizeof la, "%" PRIu64 " ps", pr.plan.lookahead);
				else if (pr.has_fab)
					snprintf(la, sizeof la, "none (no link between processes)");
				if (pr.has_fab)
					snprintf(links, sizeof links, ", %" PRIu64 " link directions", pr.cut_links);
				fprintf(stderr,
				        "%s: %" PRIu32 " processes; cut %" PRIu64 " of %" PRIu64 " messages, %" PRIu64 " of %" PRIu64
				        " bytes%s; lookahead %s; %" PRIu64 " windows\n",
				        ir_cli_prog(), pr.nprocs, pr.plan.cut_msgs, pr.plan.msgs, pr.plan.cut_bytes, pr.plan.bytes, links,
				        la, pr.windows);
			}
#endif
		}
	}
	status = IR_EXIT_OK;
done:
	if (o.timeline) {
		/* A failed or deadlocked run still leaves valid JSON of what happened. */
		ir_err e2;
		if (ir_sb_adds(&o.buf, "\n]}\n") || tl_flush(&o, 1, &e2) || ir_writer_close(o.timeline, &e2))
			status = ir_cli_fail(&e2);
	}
	if (o.msglog) {
		ir_err e2;
		if (ir_writer_close(o.msglog, &e2))
			status = ir_cli_fail(&e2);
	}
	if (o.otf2) {
		/* like the timeline: what was simulated before a failure stays readable */
		ir_err e2;
		if (ibsim_otf2_close(o.otf2, &e2))
			status = ir_cli_fail(&e2);
	}
	ir_sb_release(&o.buf);
	ir_sb_release(&sb);
	ir_engine_free(en);
	if (nt && nt->inst_free)
		nt->inst_free(ib);
	if (nt && nt->cfg_free)
		nt->cfg_free(ncfg);
	ir_sched_free(s);
	ir_params_free(ps);
	ir_noise_release(&noise);
#ifdef IBSIM_MPI
	par_result_release(&pr);
	free(weights);
#endif
	return ir_cli_finish(status);
}
