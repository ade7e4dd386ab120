/*
 * replay.c: a plain main() for the libFuzzer targets in fuzz/, so their
 * corpora replay in `make check` without clang: every file named on the
 * command line (or every file of every directory named) goes once through
 * LLVMFuzzerTestOneInput. Prints TAP, one test point per file. A crash or a
 * sanitizer report fails the run; the targets themselves assert nothing
 * beyond "no crash, no leak, no hang".
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int n;

static void one(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, k;
	if (!f) {
		printf("not ok %d - cannot open %s\n", ++n, path);
		return;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		k = fread(buf + len, 1, cap - len, f);
		len += k;
	} while (k);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	printf("ok %d - %s\n", ++n, path);
	fflush(stdout);
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			char **names = NULL;
			size_t nn = 0;
			while (d && (de = readdir(d))) {
				if (de->d_name[0] == '.')
					continue;
				names = realloc(names, (nn + 1) * sizeof *names);
				names[nn] = malloc(strlen(argv[i]) + strlen(de->d_name) + 2);
				sprintf(names[nn], "%s/%s", argv[i], de->d_name);
				nn++;
			}
			if (d)
				closedir(d);
			qsort(names, nn, sizeof *names, cmp);
			for (size_t j = 0; j < nn; j++) {
				one(names[j]);
				free(names[j]);
			}
			free(names);
		} else {
			one(argv[i]);
		}
	}
	printf("1..%d\n", n);
	return 0;
}
