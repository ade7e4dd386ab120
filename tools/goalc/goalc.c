/*
 * goalc: the GOAL compiler. GOAL text -> GOAL binary (default), any GOAL ->
 * canonical text (-d), statistics (--stats), or validation only (--check);
 * with any of them, --matrix FILE also writes the traffic matrix and the
 * message-size histogram (formats/matrix.md).
 *
 * Everything streams through ir_goal_read(): one rank block is in memory at
 * a time, and the binary writer emits each section as its block closes, so
 * memory follows the largest rank, not the file, and the output may be a
 * pipe. The work is all in lib/ (ir_goal_*.c); this is option handling.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ir_cli.h"
#include "ir_goal.h"
#include "ir_goal_stats.h"
#include "ir_io.h"

static void usage(void)
{
	printf("Usage: goalc [-z] [-f] [--goalb-version=V] [-o OUT] [FILE|-]\n"
	       "   or: goalc -d [-z] [-o OUT] [FILE|-]\n"
	       "   or: goalc --stats [-o OUT] [FILE|-]\n"
	       "   or: goalc --check [FILE|-]\n"
	       "   or: goalc --stats --matrix MFILE [FILE|-]\n"
	       "Compile a GOAL schedule (text, or binary to re-check it) to GOAL binary;\n"
	       "with -d write canonical GOAL text instead. FILE may be compressed (zstd, gzip);\n"
	       "no FILE or '-' reads standard input.\n"
	       "\n"
	       "  -o, --output=OUT   write to OUT instead of standard output (.zst: compressed)\n"
	       "  -z, --zstd         compress the output with zstd\n"
	       "  -f, --force        write binary output even to a terminal\n"
	       "      --goalb-version=V  GOAL binary format to write: 3 (default: variable-\n"
	       "                     length ops, at most 16 bytes per op) or 1 (fixed 24-byte\n"
	       "                     records a reader uses in place; written as version 2\n"
	       "                     when the schedule has read or write ops)\n"
	       "  -d, --decompile    write canonical GOAL text (labels l0, l1, ...)\n"
	       "      --stats        print ranks, ops by type, edges, bytes, largest fan-in/out\n"
	       "  -c, --check        validate the schedule, write nothing\n"
	       "      --matrix=MFILE also write the traffic matrix and message-size histogram\n"
	       "                     to MFILE (TSV, formats/matrix.md; with any mode)\n"
	       "      --progress     show a progress bar on standard error\n"
	       "  -q, --quiet        never show a progress bar\n"
	       "  -h, --help         show this help and exit\n"
	       "      --version      show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 bad input or failed output, 2 usage error.\n");
}

enum mode { M_COMPILE, M_DECOMPILE, M_STATS, M_CHECK };

typedef struct run {
	enum mode mode;
	ir_writer *w;
	ir_goalb_writer *bw;
	ir_goal_stats st;
	ir_writer *mw;       /* --matrix */
	ir_goal_matrix mx;
	unsigned format;     /* --goalb-version */
	ir_progress prog;
	uint32_t num_ranks, done;
} run;

static int on_begin(void *ctx, uint32_t num_ranks, unsigned version, ir_err *e)
{
	run *R = ctx;
	R->num_ranks = num_ranks;
	if (R->mw && ir_goal_matrix_begin(&R->mx, R->mw, num_ranks, e))
		return -1;
	switch (R->mode) {
	case M_COMPILE:
		R->bw = ir_goalb_writer_new_format(R->w, num_ranks, version, R->format, e);
		return R->bw ? 0 : -1;
	case M_DECOMPILE:
		return ir_goal_text_begin_v(R->w, num_ranks, version, e);
	case M_STATS:
		ir_goal_stats_init(&R->st, num_ranks);
		return 0;
	default:
		return 0;
	}
}

static int on_rank(void *ctx, uint32_t rank, const ir_rank *r, const ir_goal_parser *p, ir_err *e)
{
	run *R = ctx;
	int rc = 0;
	(void)p;
	if (R->mw && ir_goal_matrix_add(&R->mx, rank, r, e))
		return -1;
	switch (R->mode) {
	case M_COMPILE:
		rc = ir_goalb_writer_rank(R->bw, rank, r, e);
		break;
	case M_DECOMPILE:
		rc = ir_goal_text_rank(R->w, rank, r, e);
		break;
	case M_STATS:
		rc = ir_goal_stats_add(&R->st, rank, r, e);
		break;
	default:
		break;
	}
	ir_progress_update(&R->prog, ++R->done, R->num_ranks);
	return rc;
}

int main(int argc, char **argv)
{
	enum { OPT_STATS = 256, OPT_VERSION, OPT_PROGRESS, OPT_MATRIX, OPT_GOALB };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "force", no_argument, NULL, 'f' },
		{ "decompile", no_argument, NULL, 'd' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "check", no_argument, NULL, 'c' },
		{ "matrix", required_argument, NULL, OPT_MATRIX },
		{ "goalb-version", required_argument, NULL, OPT_GOALB },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "-", *in = "-", *mode_opt = NULL, *matrix = NULL;
	int zstd = 0, force = 0, progress = -1, c, status = IR_EXIT_BAD, wflags, goalb_opt = 0;
	run R;
	ir_err e;
	ir_goal_sink sink;

	ir_cli_init(argv[0]);
	memset(&R, 0, sizeof R);
	R.mode = M_COMPILE;
	R.format = IR_GOALB_FORMAT_DEFAULT;
	while ((c = getopt_long(argc, argv, "o:zfdcqh", longopts, NULL)) != -1) {
		enum mode m = R.mode;
		const char *name = NULL;
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'z':
			zstd = 1;
			break;
		case 'f':
			force = 1;
			break;
		case 'd':
			m = M_DECOMPILE, name = "-d";
			break;
		case OPT_STATS:
			m = M_STATS, name = "--stats";
			break;
		case 'c':
			m = M_CHECK, name = "--check";
			break;
		case OPT_MATRIX:
			matrix = optarg;
			break;
		case OPT_GOALB:
			if (strcmp(optarg, "3") == 0)
				R.format = IR_GOALB_FORMAT_V3;
			else if (strcmp(optarg, "1") == 0 || strcmp(optarg, "2") == 0)
				R.format = IR_GOALB_FORMAT_FIXED;
			else
				return ir_cli_usage("--goalb-version: '%s' is not 1, 2 or 3", optarg);
			goalb_opt = 1;
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case 'q':
			progress = 0;
			break;
		case 'h':
			usage();
			return ir_cli_finish(IR_EXIT_OK);
		case OPT_VERSION:
			ir_cli_version();
			return ir_cli_finish(IR_EXIT_OK);
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n", ir_cli_prog());
			return IR_EXIT_USAGE;
		}
		if (name) {
			if (mode_opt && strcmp(mode_opt, name) != 0)
				return ir_cli_usage("options %s and %s cannot be used together", mode_opt, name);
			mode_opt = name;
			R.mode = m;
		}
	}
	if (argc - optind > 1)
		return ir_cli_usage("too many operands: '%s' (one input FILE at most)", argv[optind + 1]);
	if (optind < argc)
		in = argv[optind];
	if (R.mode == M_CHECK && strcmp(out, "-") != 0)
		return ir_cli_usage("--check writes nothing: -o cannot be used with it");
	if (R.mode == M_CHECK && zstd)
		return ir_cli_usage("--check writes nothing: -z cannot be used with it");
	if (goalb_opt && R.mode != M_COMPILE)
		return ir_cli_usage("--goalb-version applies to binary output only (not with %s)", mode_opt);
	if (matrix && !*matrix)
		return ir_cli_usage("--matrix needs a file name");
	if (matrix && R.mode != M_CHECK && strcmp(matrix, "-") == 0 && strcmp(out, "-") == 0)
		return ir_cli_usage("--matrix - and the output cannot both go to standard output");

	if (R.mode != M_CHECK) {
		wflags = (zstd ? IR_W_ZSTD : 0) | (R.mode == M_COMPILE ? IR_W_BINARY : 0) | (force ? IR_W_FORCE : 0);
		R.w = ir_writer_open(out, wflags, &e);
		if (!R.w)
			return ir_cli_fail(&e);
	}
	if (matrix) {
		R.mw = ir_writer_open(matrix, 0, &e);
		if (!R.mw) {
			ir_writer_abort(R.w);
			return ir_cli_fail(&e);
		}
	}
	ir_progress_init(&R.prog, progress, "ranks");
	sink.ctx = &R;
	sink.begin = on_begin;
	sink.rank = on_rank;
	if (ir_goal_read(in, &sink, &e))
		goto fail;
	if (R.mode == M_COMPILE) {
		ir_goalb_writer *bw = R.bw;
		R.bw = NULL;
		if (ir_goalb_writer_finish(bw, &e))
			goto fail;
	} else if (R.mode == M_STATS) {
		if (ir_goal_stats_write(R.w, &R.st, &e))
			goto fail;
	}
	if (R.mw && ir_goal_matrix_finish(&R.mx, &e))
		goto fail;
	ir_progress_end(&R.prog);
	if (R.mw) {
		ir_writer *w = R.mw;
		R.mw = NULL;
		if (ir_writer_close(w, &e))
			goto fail;
	}
	if (R.w) {
		ir_writer *w = R.w;
		R.w = NULL;
		if (ir_writer_close(w, &e))
			goto fail;
	}
	status = IR_EXIT_OK;
	goto done;
fail:
	ir_progress_end(&R.prog);
	ir_cli_fail(&e);
	ir_goalb_writer_free(R.bw);
	ir_writer_abort(R.w);
	ir_writer_abort(R.mw);
done:
	ir_goal_stats_release(&R.st);
	ir_goal_matrix_release(&R.mx);
	return ir_cli_finish(status);
}
