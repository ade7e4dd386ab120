/*
 * goalgen: write GOAL schedules of common communication patterns
 * (dissemination, binomial broadcast and reduce, chained ring, ping-pong,
 * pairwise all-to-all, recursive-doubling allreduce, random DAG), the
 * "pattern mode" of LogGOPSim's Schedgen. Benchmarks and tests of the other
 * tools use it to make schedules of any size; docs/man/goalgen.1 states the
 * rules of every pattern.
 *
 * main() parses and cross-checks the options (every value is validated
 * before the first byte is written, so a usage error never leaves partial
 * output), opens the writer (-o, -z, .zst) and hands over to gg_generate().
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goalgen-emit.h"
#include "ir_cli.h"
#include "ir_goal.h"
#include "ir_io.h"
#include "ir_num.h"

#define MAX_RANKS 2147483647ULL
#define MAX_TAG 2147483647ULL
#define MAX_RANDOM_OPS (1ULL << 24)   /* ranks x --ops kept in memory by random */
#define MAX_STEPS (1ULL << 29)        /* 3 ops per step stays below 2^31 per rank */
#define RANDOM_CALC_DEFAULT 1000000   /* 1us: random calcs last 0..this */

static const char *const pattern_names[GG_NPATTERNS] = {
	[GG_DISSEMINATION] = "dissemination", [GG_BCAST] = "bcast",       [GG_REDUCE] = "reduce",
	[GG_RING] = "ring",                   [GG_PINGPONG] = "pingpong", [GG_ALLTOALL] = "alltoall",
	[GG_ALLREDUCE] = "allreduce",         [GG_RANDOM] = "random",
};

enum { OPT_SIZE = 256, OPT_CALC, OPT_TAG, OPT_ROOT, OPT_STEPS, OPT_REPS, OPT_SEED, OPT_OPS, OPT_VERSION };

/* Which pattern takes which pattern-specific option. */
static const struct {
	int opt;
	const char *name;
	unsigned patterns; /* bit per enum gg_pattern */
} specific[] = {
	{ OPT_ROOT, "--root", 1u << GG_BCAST | 1u << GG_REDUCE },
	{ OPT_STEPS, "--steps", 1u << GG_RING },
	{ OPT_REPS, "--reps", 1u << GG_PINGPONG },
	{ OPT_SEED, "--seed", 1u << GG_RANDOM },
	{ OPT_OPS, "--ops", 1u << GG_RANDOM },
};

static void usage(void)
{
	printf("Usage: goalgen PATTERN N [options]\n"
	       "Write a GOAL schedule of N ranks (1..2147483647) for a communication pattern.\n"
	       "\n"
	       "Patterns:\n"
	       "  dissemination  round k: send to r+2^k, receive from r-2^k (mod N); a round's\n"
	       "                 send requires the previous round's receive\n"
	       "  bcast          binomial tree broadcast from --root\n"
	       "  reduce         binomial tree reduction to --root\n"
	       "  ring           --steps steps of send to r+1 and receive from r-1; each step\n"
	       "                 requires the previous step's receive (N >= 2)\n"
	       "  pingpong       --reps round trips between ranks 0 and 1 (N >= 2)\n"
	       "  alltoall       pairwise exchange: step i sends to r+i, receives from r-i\n"
	       "  allreduce      recursive doubling (any N)\n"
	       "  random         random DAG of --ops ops per rank, matched messages (--seed)\n"
	       "\n"
	       "Options:\n"
	       "      --size S     bytes per message, units B K M G T (default 8; random: 1..S)\n"
	       "      --calc T     a calc of T between dependent steps, units ps ns us ms s\n"
	       "                   (random: calcs of 0..T, default 1us)\n"
	       "      --tag T      message tag, 0..2147483647 (default 0; random: the first)\n"
	       "      --root R     root rank of bcast and reduce (default 0)\n"
	       "      --steps S    ring steps (default N-1)\n"
	       "      --reps R     pingpong round trips (default 1)\n"
	       "      --seed X     random: seed (default 1)\n"
	       "      --ops K      random: operations per rank (default 16)\n"
	       "  -o, --output FILE  write to FILE (atomically) instead of standard output\n"
	       "  -z, --zstd       compress with zstd (also when FILE ends in .zst)\n"
	       "  -h, --help       show this help and exit\n"
	       "      --version    show the version and exit\n"
	       "\n"
	       "Exit status: 0 ok, 1 write error, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "calc", required_argument, NULL, OPT_CALC },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "steps", required_argument, NULL, OPT_STEPS },
		{ "reps", required_argument, NULL, OPT_REPS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "output", required_argument, NULL, 'o' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	gg_params p;
	const char *out_path = NULL, *root_arg = NULL;
	unsigned given = 0; /* bit per specific[] entry */
	int wflags = 0, c, status = IR_EXIT_OK;
	ir_err e = { "" };
	ir_writer *w = NULL;
	gg_out o;
	int o_init = 0;

	ir_cli_init(argv[0]);
	memset(&p, 0, sizeof p);
	p.size = 8;
	p.reps = 1;
	p.seed = 1;
	p.ops = 16;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:zh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SIZE:
			if (ir_parse_size(optarg, &p.size, "--size", &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case OPT_CALC:
			if (ir_parse_time(optarg, &p.calc, "--calc", &e))
				return ir_cli_usage("%s", e.msg);
			p.has_calc = 1;
			break;
		case OPT_TAG:
			if (ir_parse_range(optarg, 0, MAX_TAG, &p.tag, "--tag", &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case OPT_ROOT:
			root_arg = optarg; /* checked against N below */
			break;
		case OPT_STEPS:
			if (ir_parse_range(optarg, 1, MAX_STEPS, &p.steps, "--steps", &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case OPT_REPS:
			if (ir_parse_range(optarg, 1, MAX_STEPS, &p.reps, "--reps", &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case OPT_SEED:
			if (ir_parse_u64(optarg, &p.seed, "--seed", &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case OPT_OPS:
			if (ir_parse_range(optarg, 1, MAX_RANDOM_OPS, &p.ops, "--ops", &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'z':
			wflags |= IR_W_ZSTD;
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
		for (size_t i = 0; i < sizeof specific / sizeof specific[0]; i++)
			if (specific[i].opt == c)
				given |= 1u << i;
	}
	if (argc - optind < 2)
		return ir_cli_usage(argc == optind ? "missing PATTERN and N" : "missing N");
	if (argc - optind > 2)
		return ir_cli_usage("unexpected operand '%s'", argv[optind + 2]);

	for (p.pattern = 0; p.pattern < GG_NPATTERNS; p.pattern++)
		if (strcmp(argv[optind], pattern_names[p.pattern]) == 0)
			break;
	if (p.pattern == GG_NPATTERNS) {
		char q[160];
		ir_err_quote(q, sizeof q, argv[optind], strlen(argv[optind]));
		return ir_cli_usage("unknown pattern '%s' (expected dissemination, bcast, reduce, ring, "
		                    "pingpong, alltoall, allreduce or random)", q);
	}
	if (ir_parse_range(argv[optind + 1], 1, MAX_RANKS, &p.n, "N", &e))
		return ir_cli_usage("%s", e.msg);
	for (size_t i = 0; i < sizeof specific / sizeof specific[0]; i++)
		if ((given >> i & 1) && !(specific[i].patterns >> p.pattern & 1))
			return ir_cli_usage("%s does not apply to pattern '%s'", specific[i].name,
			                    pattern_names[p.pattern]);
	if ((p.pattern == GG_RING || p.pattern == GG_PINGPONG) && p.n < 2)
		return ir_cli_usage("pattern '%s' needs N >= 2, got %llu", pattern_names[p.pattern],
		                    (unsigned long long)p.n);
	if (root_arg && ir_parse_range(root_arg, 0, p.n - 1, &p.root, "--root", &e))
		return ir_cli_usage("%s", e.msg);
	if (p.pattern == GG_RING && !p.steps)
		p.steps = p.n - 1; /* too many for a huge N: the per-rank limit below says so */
	if (p.pattern == GG_RANDOM) {
		if (!p.has_calc)
			p.calc = RANDOM_CALC_DEFAULT;
		if (p.n * p.ops > MAX_RANDOM_OPS) /* both <= 2^31: no overflow */
			return ir_cli_usage("random keeps N x --ops operations in memory: %llu x %llu is more "
			                    "than %llu", (unsigned long long)p.n, (unsigned long long)p.ops,
			                    (unsigned long long)MAX_RANDOM_OPS);
		if (p.tag + p.ops - 1 > MAX_TAG)
			return ir_cli_usage("random gives every message of a rank its own tag: --tag %llu "
			                    "plus --ops %llu passes %llu", (unsigned long long)p.tag,
			                    (unsigned long long)p.ops, MAX_TAG);
	}
	if (gg_max_ops_per_rank(&p) > IR_MAX_OPS_PER_RANK)
		return ir_cli_usage("pattern '%s' with N = %llu has %llu operations per rank (at most %lu)",
		                    pattern_names[p.pattern], (unsigned long long)p.n,
		                    (unsigned long long)gg_max_ops_per_rank(&p),
		                    (unsigned long)IR_MAX_OPS_PER_RANK);

	w = ir_writer_open(out_path, wflags, &e);
	if (!w) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (gg_out_init(&o, w, (size_t)4 << 20)) {
		status = ir_cli_fail(&o.err);
		goto done;
	}
	o_init = 1;
	if (gg_generate(&p, &o, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (ir_writer_close(w, &e)) {
		w = NULL;
		status = ir_cli_fail(&e);
		goto done;
	}
	w = NULL;
done:
	if (w)
		ir_writer_abort(w);
	if (o_init)
		gg_out_release(&o);
	return ir_cli_finish(status);
}
