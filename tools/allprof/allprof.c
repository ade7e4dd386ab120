/*
 * allprof: run an MPI command with liballprof.so preloaded into every rank,
 * then say where the traces are, how many calls and bytes they hold, and
 * which ranks' traces are incomplete or missing.
 *
 * The launcher only sets the environment (LD_PRELOAD, ALLPROF_DIR,
 * ALLPROF_COMPRESS, and Open MPI's mca_base_env_list so that mpirun
 * forwards them to ranks on other hosts; MPICH's hydra forwards the whole
 * environment anyway), runs the command, and waits. It never parses the
 * command's options: `allprof mpirun -np 4 ./app` and `allprof ./script.sh`
 * work the same. The exit status is the command's (128+N when it died of
 * signal N); when the command succeeded but a trace is missing or
 * incomplete it is 1.
 *
 * There is one library per MPI (liballprof.so for Open MPI,
 * liballprof-mpich.so for MPICH: the ABIs differ, MPICH's handles are ints),
 * and one built for the other MPI must never be preloaded. --mpi auto picks
 * it by looking, without running anything: first at the command's name
 * along its chain of symbolic links (mpirun -> /etc/alternatives/mpirun ->
 * mpirun.openmpi -> orterun), then at each argument that names a file
 * (directly or through PATH) for an ELF program needing an MPI library
 * (DT_NEEDED libmpi.so.N: Open MPI; libmpich.so.N: MPICH) or a launcher's
 * name, and when nothing tells, at the system's mpirun, then Open MPI.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
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
#include "ir_endian.h"
#include "ir_err.h"
#include "ir_grow.h"
#include "ir_io.h"
#include "ir_otf2.h"
#include "ir_trace.h"

#ifndef ALLPROF_BUILD_LIB
#define ALLPROF_BUILD_LIB ""
#endif

#ifndef ALLPROF_BUILD_LIB_MPICH
#define ALLPROF_BUILD_LIB_MPICH ""
#endif

static const char usage_text[] =
	"Usage: allprof [-o DIR] [-z] [-q] [--cpu-time] [--span] [--format FORMAT] [--] COMMAND [ARG...]\n"
	"   or: allprof --print-lib [--mpi MPI] [--] [COMMAND [ARG...]]\n"
	"Run COMMAND (usually mpirun ...) with the PMPI tracer preloaded into every\n"
	"MPI rank; each rank writes DIR/rank-<N>.trace.\n"
	"\n"
	"  -o, --output DIR   directory for the traces (default allprof-<date>-<time>)\n"
	"  -z, --compress     compress the traces with zstd (rank-<N>.trace.zst)\n"
	"  -q, --quiet        no summary on standard error\n"
	"      --cpu-time     also record each thread's CPU time at every call and\n"
	"                     return (trace2goal --calc cpu); the clock is read once 20 us\n"
	"                     have passed, else advanced with the wall clock\n"
	"                     (ALLPROF_CPUTIME_EXACT=1: read at every call)\n"
	"      --span         record MPI_Init and MPI_Finalize only: the run's time with\n"
	"                     nothing traced in between (cmp-real; not for trace2goal)\n"
	"      --format FORMAT  text (default), otf2 (the OTF2 archive DIR/traces.otf2\n"
	"                     made from the text traces after the run, which are then\n"
	"                     removed) or both\n"
	"      --mpi MPI      the MPI the job uses: openmpi, mpich or auto (default):\n"
	"                     by the launcher's name, else the MPI library the\n"
	"                     program needs, else the system's mpirun\n"
	"      --print-lib    print the tracer library that COMMAND would get, and exit\n"
	"  -h, --help         show this help and exit\n"
	"      --version      show the version and exit\n"
	"\n"
	"Environment: ALLPROF_LIB, a tracer library to preload whatever the MPI.\n";

/* The MPIs there is a tracer library for. */
enum { K_NONE, K_OMPI, K_MPICH };
static const char *const kind_name[] = { "none", "Open MPI", "MPICH" };
static const char *const kind_lib[] = { "", "liballprof.so", "liballprof-mpich.so" };
static const char *const kind_build[] = { "", ALLPROF_BUILD_LIB, ALLPROF_BUILD_LIB_MPICH };
static const char *const kind_hint[] = { "", "it is built with Open MPI's mpicc",
					 "it is built when MPICH's mpicc.mpich is installed" };

static pid_t child = -1;

static void forward_signal(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The tracer library for MPI k: <dir of this program>/../lib/<name>, else the
 * build tree. 0, or -1 with the places tried in `tried`. */
static int find_lib(int k, char *out, size_t n, char *tried, size_t tn)
{
	char exe[PATH_MAX];
	tried[0] = 0;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 64);
	if (len > 0) {
		exe[len] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			if (snprintf(out, n, "%.4000s/../lib/%s", exe, kind_lib[k]) >= (int)n)
				return -1;
			if (access(out, R_OK) == 0) {
				char real[PATH_MAX];
				if (realpath(out, real))
					snprintf(out, n, "%s", real);
				return 0;
			}
			snprintf(tried, tn, "%.2000s", out);
		}
	}
	snprintf(out, n, "%s", kind_build[k]);
	if (*out && access(out, R_OK) == 0)
		return 0;
	if (*out) {
		size_t l = strlen(tried);
		snprintf(tried + l, tn - l, "%s%.2000s", l ? ", " : "", out);
	}
	return -1;
}

/* ------------------------------------------------------------------ which MPI */

/* PATH lookup as execvp does it: a name with a slash as is, else the first
 * executable regular file of that name in $PATH. 0 on success. */
static int path_lookup(const char *name, char *out, size_t n)
{
	struct stat st;
	if (!*name)
		return -1;
	if (strchr(name, '/')) {
		if (snprintf(out, n, "%s", name) >= (int)n)
			return -1;
		return stat(out, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t dl = e ? (size_t)(e - p) : strlen(p);
		int w = dl ? snprintf(out, n, "%.*s/%s", (int)dl, p, name) : snprintf(out, n, "./%s", name);
		if (w > 0 && w < (int)n && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(out, X_OK) == 0)
			return 0;
		if (!e)
			break;
		p = e;
	}
	return -1;
}

/* The MPI a launcher's file name belongs to. */
static int kind_of_name(const char *base)
{
	if (strstr(base, "mpich") || strstr(base, "hydra"))
		return K_MPICH;
	if (strstr(base, "openmpi") || !strcmp(base, "orterun") || !strcmp(base, "prterun"))
		return K_OMPI;
	return K_NONE;
}

/* The names along path's chain of symbolic links (at most 40 links). */
static int kind_of_chain(const char *path)
{
	char cur[PATH_MAX], link[PATH_MAX];
	if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
		return K_NONE;
	for (int hop = 0; hop < 40; hop++) {
		const char *base = strrchr(cur, '/');
		int k = kind_of_name(base ? base + 1 : cur);
		if (k != K_NONE)
			return k;
		ssize_t l = readlink(cur, link, sizeof link - 1);
		if (l <= 0)
			break;
		link[l] = 0;
		if (link[0] == '/' || !base) {
			memcpy(cur, link, (size_t)l + 1);
		} else {
			size_t dl = (size_t)(base - cur) + 1;
			if (dl + (size_t)l >= sizeof cur)
				break;
			memcpy(cur + dl, link, (size_t)l + 1);
		}
	}
	return K_NONE;
}

/* The MPI of a DT_NEEDED entry: libmpi.so.N and Open MPI's own libraries, or
 * libmpich.so.N (and libmpichfort, libmpichcxx). */
static int kind_of_needed(const char *lib)
{
	if (!strncmp(lib, "libmpich", 8))
		return K_MPICH;
	if (!strncmp(lib, "libmpi.so", 9) || !strncmp(lib, "libmpi_", 7) ||
	    !strncmp(lib, "libopen-rte.so", 14) || !strncmp(lib, "libopen-pal.so", 14) ||
	    !strncmp(lib, "libprrte.so", 11))
		return K_OMPI;
	return K_NONE;
}

static int rd(int fd, void *buf, size_t n, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX)
		return -1;
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static uint64_t get(const unsigned char *p, int wide)
{
	return wide ? ir_get64(p) : ir_get32(p);
}

/* The MPI an ELF file needs, from the DT_NEEDED entries of its dynamic
 * section: K_OMPI, K_MPICH, K_NONE (an ELF file needing neither), or -1 (not
 * a little-endian ELF file, or unreadable). Every size and offset read from
 * the file is checked, so a damaged file is just "not ELF". needed: the
 * library that decided, for messages. */
static int kind_of_elf(const char *path, char *needed, size_t nn)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int kind = -1;
	unsigned char eh[64], *ph = NULL, *dyn = NULL;
	if (rd(fd, eh, 52, 0) != 0 || memcmp(eh, "\177ELF", 4) != 0 || eh[5] != 1 ||
	    (eh[4] != 1 && eh[4] != 2))
		goto out;
	int wide = eh[4] == 2;
	if (wide && rd(fd, eh, 64, 0) != 0)
		goto out;
	uint64_t phoff = wide ? ir_get64(eh + 32) : ir_get32(eh + 28);
	size_t phent = ir_get16(eh + (wide ? 54 : 42)), phnum = ir_get16(eh + (wide ? 56 : 44));
	size_t phmin = wide ? 56 : 32, dsz = wide ? 16 : 8;
	kind = K_NONE;
	if (phent < phmin || phnum == 0 || phnum > 4096)
		goto out;
	ph = malloc(phent * phnum);
	if (!ph || rd(fd, ph, phent * phnum, phoff) != 0)
		goto out;
	uint64_t doff = 0, dlen = 0;
	for (size_t i = 0; i < phnum; i++) {
		const unsigned char *q = ph + i * phent;
		if (ir_get32(q) == 2 /* PT_DYNAMIC */) {
			doff = get(q + (wide ? 8 : 4), wide);
			dlen = get(q + (wide ? 32 : 16), wide);
		}
	}
	if (dlen < dsz || dlen > (1u << 20))
		goto out; /* static, or not a sane dynamic section */
	dyn = malloc(dlen);
	if (!dyn || rd(fd, dyn, dlen, doff) != 0)
		goto out;
	uint64_t strtab = 0, need[256];
	size_t nneed = 0, nd = dlen / dsz;
	for (size_t i = 0; i < nd; i++) {
		uint64_t tag = get(dyn + i * dsz, wide), val = get(dyn + i * dsz + dsz / 2, wide);
		if (tag == 0 /* DT_NULL */)
			break;
		if (tag == 1 /* DT_NEEDED */ && nneed < 256)
			need[nneed++] = val;
		else if (tag == 5 /* DT_STRTAB */)
			strtab = val;
	}
	/* DT_STRTAB is an address: the file offset is that of the PT_LOAD holding it. */
	uint64_t stroff = UINT64_MAX;
	for (size_t i = 0; i < phnum; i++) {
		const unsigned char *q = ph + i * phent;
		uint64_t off = get(q + (wide ? 8 : 4), wide), va = get(q + (wide ? 16 : 8), wide);
		uint64_t fsz = get(q + (wide ? 32 : 16), wide);
		if (ir_get32(q) == 1 /* PT_LOAD */ && strtab >= va && strtab - va < fsz) {
			stroff = off + (strtab - va);
			break;
		}
	}
	if (stroff == UINT64_MAX)
		goto out;
	for (size_t i = 0; i < nneed && kind == K_NONE; i++) {
		char name[128];
		ssize_t got = stroff + need[i] < stroff ? -1
			: pread(fd, name, sizeof name - 1, (off_t)(stroff + need[i]));
		if (got <= 0)
			continue;
		name[got] = 0;
		kind = kind_of_needed(name);
		if (kind != K_NONE && needed)
			snprintf(needed, nn, "%s", name);
	}
out:
	free(ph);
	free(dyn);
	close(fd);
	return kind;
}

/* --mpi auto: the MPI of the command argv[0..argc) (see the top of this
 * file), with the reason in why. */
static int choose_mpi(int argc, char **argv, char *why, size_t wn)
{
	char path[PATH_MAX], needed[128];
	int k;
	if (argc > 0 && path_lookup(argv[0], path, sizeof path) == 0 &&
	    (k = kind_of_chain(path)) != K_NONE) {
		snprintf(why, wn, "the launcher %.200s is %s's", argv[0], kind_name[k]);
		return k;
	}
	for (int i = 0; i < argc; i++) {
		if (i > 0 && argv[i][0] == '-')
			continue;
		if (path_lookup(argv[i], path, sizeof path) != 0)
			continue;
		if ((k = kind_of_elf(path, needed, sizeof needed)) > 0) {
			snprintf(why, wn, "%.200s needs %s", argv[i], needed);
			return k;
		}
		if (i > 0 && (k = kind_of_chain(path)) != K_NONE) {
			snprintf(why, wn, "the launcher %.200s is %s's", argv[i], kind_name[k]);
			return k;
		}
	}
	if (path_lookup("mpirun", path, sizeof path) == 0 &&
	    ((k = kind_of_chain(path)) != K_NONE || (k = kind_of_elf(path, needed, sizeof needed)) > 0)) {
		snprintf(why, wn, "nothing in the command tells, and the system's mpirun is %s's",
			 kind_name[k]);
		return k;
	}
	snprintf(why, wn, "nothing in the command tells, and there is no mpirun");
	return K_OMPI;
}

/* The library to preload: $ALLPROF_LIB, else the one for the MPI chosen. */
static int pick_lib(int k, int argc, char **argv, char *lib, size_t n)
{
	const char *env = getenv("ALLPROF_LIB");
	if (env && *env) {
		if (snprintf(lib, n, "%s", env) >= (int)n || access(lib, R_OK) != 0)
			return ir_cli_failf("cannot find liballprof.so: ALLPROF_LIB is '%s' (%s)", env,
					    strerror(errno ? errno : ENAMETOOLONG));
		return 0;
	}
	char why[512], tried[4200];
	if (k == K_NONE)
		k = choose_mpi(argc, argv, why, sizeof why);
	else
		snprintf(why, sizeof why, "--mpi %s", k == K_OMPI ? "openmpi" : "mpich");
	if (find_lib(k, lib, n, tried, sizeof tried) != 0)
		return ir_cli_failf("cannot find %s, the tracer for %s (%s): tried %s; %s",
				    kind_lib[k], kind_name[k], why, *tried ? tried : "nothing",
				    kind_hint[k]);
	/* A library that names another MPI is refused: its handles would be wrong. */
	char needed[128];
	int lk = kind_of_elf(lib, needed, sizeof needed);
	if (lk > 0 && lk != k)
		return ir_cli_failf("%s was built for %s (it needs %s), but the job uses %s (%s)",
				    lib, kind_name[lk], needed, kind_name[k], why);
	return 0;
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
		if (IR_GROW(t, n + 1, cap)) {
			closedir(d);
			free(t);
			return ir_cli_failf("out of memory");
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

/* --format otf2/both: the complete text traces of the run become DIR/traces.otf2
 * (lib/ir_otf2_write.c; formats/trace.md section 7.2); with otf2 alone the text traces are
 * then removed. Converting after the run keeps libotf2 out of the preloaded tracer. */
static int to_otf2(const char *absdir, const char *dir, int keep_text, int quiet)
{
	ir_trace_files f = { NULL, 0 };
	char *args[1] = { (char *)absdir };
	ir_err e;
	if (ir_trace_discover(&f, args, 1, NULL, &e) || ir_otf2_write(&f, absdir, "traces", 0, &e)) {
		ir_cli_fail(&e);
		ir_trace_files_release(&f);
		return -1;
	}
	if (!keep_text)
		for (size_t i = 0; i < f.n; i++)
			unlink(f.f[i].path);
	if (!quiet)
		fprintf(stderr, "%s: OTF2 archive: %s/traces.otf2\n", ir_cli_prog(), dir);
	ir_trace_files_release(&f);
	return 0;
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
	enum { OPT_VERSION = 256, OPT_PRINT_LIB, OPT_MPI, OPT_FORMAT, OPT_CPU, OPT_SPAN };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "compress", no_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "mpi", required_argument, NULL, OPT_MPI },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "cpu-time", no_argument, NULL, OPT_CPU },
		{ "span", no_argument, NULL, OPT_SPAN },
		{ "print-lib", no_argument, NULL, OPT_PRINT_LIB },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	int compress = 0, quiet = 0, cputime = 0, span = 0, print_lib = 0, mpi = K_NONE, c, text = 1, otf2 = 0;
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
		case OPT_CPU:
			cputime = 1;
			break;
		case OPT_SPAN:
			span = 1;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				text = 1, otf2 = 0;
			else if (!strcmp(optarg, "otf2"))
				text = 0, otf2 = 1;
			else if (!strcmp(optarg, "both"))
				text = 1, otf2 = 1;
			else
				return ir_cli_usage("unknown format '%s' (text, otf2 or both)", optarg);
			break;
		case OPT_MPI:
			if (!strcmp(optarg, "openmpi"))
				mpi = K_OMPI;
			else if (!strcmp(optarg, "mpich"))
				mpi = K_MPICH;
			else if (!strcmp(optarg, "auto"))
				mpi = K_NONE;
			else
				return ir_cli_usage("unknown MPI '%s' (openmpi, mpich or auto)", optarg);
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
	if (!print_lib && optind >= argc)
		return ir_cli_usage("no command given");
	if (pick_lib(mpi, argc - optind, argv + optind, lib, sizeof lib) != 0)
		return IR_EXIT_BAD;
	if (print_lib) {
		printf("%s\n", lib);
		return ir_cli_finish(IR_EXIT_OK);
	}

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
	setenv("ALLPROF_CPUTIME", cputime ? "1" : "0", 1);
	setenv("ALLPROF_SPAN", span ? "1" : "0", 1);
	env_append("OMPI_MCA_mca_base_env_list", "LD_PRELOAD;ALLPROF_DIR;ALLPROF_COMPRESS;ALLPROF_CPUTIME;ALLPROF_SPAN", ";");
	if (getenv("ALLPROF_CPUTIME_EXACT"))
		env_append("OMPI_MCA_mca_base_env_list", "ALLPROF_CPUTIME_EXACT", ";");

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
	if (otf2 && !bad && to_otf2(absdir, dir, text, quiet))
		rc = IR_EXIT_BAD;
	return ir_cli_finish(rc);
}
