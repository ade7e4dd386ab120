/*
 * allprof: run an MPI command with liballprof.so preloaded into every rank,
 * then say where the traces are, how many calls and bytes they hold, and
 * which ranks' traces are incomplete or missing.
 *
 * The launcher only sets the environment (LD_PRELOAD, ALLPROF_DIR,
 * ALLPROF_COMPRESS, and Open MPI's mca_base_env_list so that mpirun
 * forwards them to ranks on other hosts; MPICH's hydra forwards the whole
 * environment anyway), runs the command, and waits. It never parses the
 * command: `allprof mpirun -np 4 ./app` and `allprof ./script.sh` work the
 * same. The exit status is the command's (128+N when it died of signal N);
 * when the command succeeded but a trace is missing or incomplete it is 1.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir_cli.h"
#include "ir_err.h"
#include "ir_io.h"

#ifndef ALLPROF_BUILD_LIB
#define ALLPROF_BUILD_LIB ""
#endif

static const char usage_text[] =
	"Usage: allprof [-o DIR] [-z] [-q] [--] COMMAND [ARG...]\n"
	"   or: allprof --print-lib\n"
	"Run COMMAND (usually mpirun ...) with the PMPI tracer preloaded into every\n"
	"MPI rank; each rank writes DIR/rank-<N>.trace.\n"
	"\n"
	"  -o, --output DIR   directory for the traces (default allprof-<date>-<time>)\n"
	"  -z, --compress     compress the traces with zstd (rank-<N>.trace.zst)\n"
	"  -q, --quiet        no summary on standard error\n"
	"      --print-lib    print the path of liballprof.so and exit\n"
	"  -h, --help         show this help and exit\n"
	"      --version      show the version and exit\n";

static pid_t child = -1;

static void forward_signal(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* liballprof.so: $ALLPROF_LIB, else <dir of this program>/../lib, else the build tree. */
static int find_lib(char *out, size_t n)
{
	const char *env = getenv("ALLPROF_LIB");
	if (env && *env) {
		snprintf(out, n, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 64);
	if (len > 0) {
		exe[len] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			if (snprintf(out, n, "%.4000s/../lib/liballprof.so", exe) >= (int)n)
				return -1;
			if (access(out, R_OK) == 0) {
				char real[PATH_MAX];
				if (realpath(out, real))
					snprintf(out, n, "%s", real);
				return 0;
			}
		}
	}
	snprintf(out, n, "%s", ALLPROF_BUILD_LIB);
	return *out && access(out, R_OK) == 0 ? 0 : -1;
}

static int make_dir(const char *dir)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(tmp, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* rank-<digits>.trace or rank-<digits>.trace.zst: returns the rank, or -1. */
static long trace_rank(const char *name)
{
	if (strncmp(name, "rank-", 5) != 0)
		return -1;
	const char *p = name + 5;
	if (*p < '0' || *p > '9')
		return -1;
	char *end;
	long r = strtol(p, &end, 10);
	if (strcmp(end, ".trace") != 0 && strcmp(end, ".trace.zst") != 0)
		return -1;
	return r;
}

static int has_traces(const char *dir, char *first, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while ((de = readdir(d))) {
		if (trace_rank(de->d_name) >= 0) {
			snprintf(first, n, "%s", de->d_name);
			found = 1;
			break;
		}
	}
	closedir(d);
	return found;
}

typedef struct trace_info {
	long rank;
	char name[256];
	int complete;          /* "# end" seen as last line */
	char why[128];         /* "# incomplete <why>", or "" */
	unsigned long long calls, text_bytes, disk_bytes;
	long world;            /* from "# rank: r of N", or -1 */
} trace_info;

/* Read a trace's header and its last lines. Plain files: only the first and
 * the last 64 KiB; compressed ones are streamed through. */
static void inspect(const char *dir, trace_info *t)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%.3800s/%.255s", dir, t->name) >= (int)sizeof path)
		return;
	struct stat st;
	if (stat(path, &st) == 0)
		t->disk_bytes = (unsigned long long)st.st_size;
	ir_err e;
	ir_reader *r = ir_reader_open(path, &e);
	if (!r)
		return;
	char *line;
	size_t len;
	char last[512] = "";
	int is_zst = ir_reader_compression(r) != IR_PLAIN;
	int n = 0;
	while (ir_reader_line(r, &line, &len, &e) == 1) {
		n++;
		if (t->world < 0 && strncmp(line, "# rank: ", 8) == 0) {
			long a, b;
			if (sscanf(line + 8, "%ld of %ld", &a, &b) == 2)
				t->world = b;
		}
		if (line[0] == '#' || !is_zst)
			snprintf(last, sizeof last, "%.500s", line);
		else
			last[0] = 0;
		if (!is_zst && n > 40 && st.st_size > 131072)
			break; /* header read; the tail is read below */
	}
	ir_reader_free(r);
	if (!is_zst && st.st_size > 131072) {
		FILE *f = fopen(path, "rb");
		if (f) {
			static char tail[65536 + 1];
			fseek(f, -65536, SEEK_END);
			size_t got = fread(tail, 1, 65536, f);
			fclose(f);
			tail[got] = 0;
			while (got && tail[got - 1] == '\n')
				tail[--got] = 0;
			char *nl = strrchr(tail, '\n');
			snprintf(last, sizeof last, "%.500s", nl ? nl + 1 : tail);
		}
	}
	unsigned long long a, b;
	if (sscanf(last, "# end %llu %llu", &a, &b) == 2) {
		t->complete = 1;
		t->calls = a;
		t->text_bytes = b;
	} else if (strncmp(last, "# incomplete ", 13) == 0) {
		snprintf(t->why, sizeof t->why, "%.120s", last + 13);
	} else {
		snprintf(t->why, sizeof t->why, "cut short");
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const trace_info *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The summary; returns 0 if every rank's trace is there and complete. */
static int summarise(const char *dir, int quiet)
{
	DIR *d = opendir(dir);
	if (!d)
		return ir_cli_failf("cannot read directory '%s': %s", dir, strerror(errno));
	trace_info *t = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		long r = trace_rank(de->d_name);
		if (r < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			trace_info *nt = realloc(t, cap * sizeof *t);
			if (!nt) {
				closedir(d);
				free(t);
				return ir_cli_failf("out of memory");
			}
			t = nt;
		}
		memset(&t[n], 0, sizeof t[n]);
		t[n].rank = r;
		t[n].world = -1;
		snprintf(t[n].name, sizeof t[n].name, "%s", de->d_name);
		n++;
	}
	closedir(d);
	if (n == 0) {
		free(t);
		ir_cli_failf("no traces written in '%s' (is the command an MPI program?)", dir);
		return 1;
	}
	qsort(t, n, sizeof *t, cmp_rank);
	unsigned long long calls = 0, text = 0, disk = 0;
	long world = -1;
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		inspect(dir, &t[i]);
		calls += t[i].calls;
		text += t[i].text_bytes;
		disk += t[i].disk_bytes;
		if (t[i].world > world)
			world = t[i].world;
	}
	if (!quiet)
		fprintf(stderr, "%s: traces in %s: %zu rank%s, %llu calls, %llu bytes of text, %llu bytes on disk\n",
			ir_cli_prog(), dir, n, n == 1 ? "" : "s", calls, text, disk);
	for (size_t i = 0; i < n; i++) {
		if (!t[i].complete) {
			bad = 1;
			fprintf(stderr, "%s: incomplete trace: %s/%s (%s)\n", ir_cli_prog(), dir,
				t[i].name, t[i].why);
		}
	}
	if (world > 0) {
		size_t j = 0;
		for (long r = 0; r < world; r++) {
			while (j < n && t[j].rank < r)
				j++;
			if (j < n && t[j].rank == r)
				continue;
			bad = 1;
			fprintf(stderr, "%s: missing trace of rank %ld\n", ir_cli_prog(), r);
		}
	}
	free(t);
	return bad;
}

static void env_append(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name);
	if (!old || !*old) {
		setenv(name, value, 1);
		return;
	}
	size_t n = strlen(old) + strlen(value) + strlen(sep) + 1;
	char *v = malloc(n);
	if (!v)
		return;
	snprintf(v, n, "%s%s%s", value, sep, old);
	setenv(name, v, 1);
	free(v);
}

int main(int argc, char **argv)
{
	enum { OPT_VERSION = 256, OPT_PRINT_LIB };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "compress", no_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "print-lib", no_argument, NULL, OPT_PRINT_LIB },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	int compress = 0, quiet = 0, print_lib = 0, c;
	char lib[PATH_MAX];

	ir_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "+o:zqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return ir_cli_usage("empty output directory");
			dir = optarg;
			break;
		case 'z':
			compress = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_PRINT_LIB:
			print_lib = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return ir_cli_finish(IR_EXIT_OK);
		case OPT_VERSION:
			ir_cli_version();
			return ir_cli_finish(IR_EXIT_OK);
		default:
			return ir_cli_usage("unknown option");
		}
	}
	if (find_lib(lib, sizeof lib) != 0)
		return ir_cli_failf("cannot find liballprof.so (tried $ALLPROF_LIB, <prefix>/lib, %s)",
				    *ALLPROF_BUILD_LIB ? ALLPROF_BUILD_LIB : "the build tree");
	if (print_lib) {
		if (optind < argc)
			return ir_cli_usage("--print-lib takes no command");
		printf("%s\n", lib);
		return ir_cli_finish(IR_EXIT_OK);
	}
	if (optind >= argc)
		return ir_cli_usage("no command given");

	char dflt[64];
	if (!dir) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(dflt, sizeof dflt, "allprof-%Y%m%d-%H%M%S", &tm);
		dir = dflt;
	}
	if (make_dir(dir) != 0)
		return ir_cli_failf("cannot create directory '%s': %s", dir, strerror(errno));
	char absdir[PATH_MAX], first[256];
	if (!realpath(dir, absdir))
		return ir_cli_failf("cannot resolve '%s': %s", dir, strerror(errno));
	if (access(absdir, W_OK) != 0)
		return ir_cli_failf("cannot write to directory '%s': %s", dir, strerror(errno));
	if (has_traces(absdir, first, sizeof first))
		return ir_cli_failf("'%s' already holds traces (%s); remove them or use another -o DIR",
				    dir, first);

	env_append("LD_PRELOAD", lib, ":");
	setenv("ALLPROF_DIR", absdir, 1);
	setenv("ALLPROF_COMPRESS", compress ? "1" : "0", 1);
	env_append("OMPI_MCA_mca_base_env_list", "LD_PRELOAD;ALLPROF_DIR;ALLPROF_COMPRESS", ";");

	fflush(NULL);
	child = fork();
	if (child < 0)
		return ir_cli_failf("cannot fork: %s", strerror(errno));
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s: cannot run '%s': %s\n", ir_cli_prog(), argv[optind],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* Like system(): the terminal's SIGINT/SIGQUIT reach the command, not us;
	 * SIGTERM and SIGHUP sent to us are passed on. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	int status = 0;
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return ir_cli_failf("waitpid: %s", strerror(errno));
	}
	int rc;
	if (WIFEXITED(status))
		rc = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		rc = 128 + WTERMSIG(status);
	else
		rc = 1;
	if (rc == 126 || rc == 127) {
		char tmp[256];
		if (!has_traces(absdir, tmp, sizeof tmp))
			return rc; /* the command did not run: nothing to summarise */
	}
	int bad = summarise(absdir, quiet);
	if (rc == 0 && bad)
		rc = IR_EXIT_BAD;
	return ir_cli_finish(rc);
}
