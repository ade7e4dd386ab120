/*
 * ir_spill.c: large arrays in unlinked files (ir_spill.h).
 */
#include "ir_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *spill_dir;
static struct {
	void *p;
	size_t len;
} maps[IR_SPILL_MAX];
static size_t mapped;

/* An unlinked file of len bytes (zeros) under spill_dir: its descriptor, or -1 (errno). */
static int spill_file(size_t len)
{
	int fd;
#ifdef O_TMPFILE
	fd = open(spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
#endif
	{
		size_t n = strlen(spill_dir) + 32;
		char *path = malloc(n);
		if (!path)
			return -1;
		snprintf(path, n, "%s/ibreplay-spill.XXXXXX", spill_dir);
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
		free(path);
		if (fd < 0)
			return -1;
	}
	if (ftruncate(fd, (off_t)len) != 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int ir_spill_dir(const char *dir, ir_err *e)
{
	char *d = NULL;
	int fd;
	if (dir) {
		if (!*dir)
			return ir_errf(e, "--spill: an empty directory name");
		if (!(d = strdup(dir)))
			return ir_errf(e, "out of memory");
	}
	free(spill_dir);
	spill_dir = d;
	if (!d)
		return 0;
	fd = spill_file(4096);
	if (fd < 0) {
		int err = errno;
		free(spill_dir);
		spill_dir = NULL;
		return ir_errf(e, "%s: cannot make a file there for --spill: %s", dir, strerror(err));
	}
	close(fd);
	return 0;
}

void *ir_spill_calloc(size_t n, size_t size, const char *what, ir_err *e)
{
	size_t len;
	void *p;
	int fd, slot = -1;
	if (n == 0)
		n = 1;
	if (size && n > SIZE_MAX / size) {
		ir_errf(e, "out of memory for %s (%zu x %zu bytes)", what, n, size);
		return NULL;
	}
	len = n * size;
	for (int i = 0; spill_dir && len >= IR_SPILL_MIN && i < IR_SPILL_MAX; i++)
		if (!maps[i].p) {
			slot = i;
			break;
		}
	if (slot < 0) {
		if (!(p = calloc(n, size)))
			ir_errf(e, "out of memory for %s (%zu x %zu bytes)", what, n, size);
		return p;
	}
	fd = spill_file(len);
	if (fd < 0) {
		ir_errf(e, "%s: cannot make a file of %zu bytes for %s: %s", spill_dir, len, what, strerror(errno));
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		ir_errf(e, "%s: cannot map a file of %zu bytes for %s: %s", spill_dir, len, what, strerror(errno));
		return NULL;
	}
	maps[slot].p = p;
	maps[slot].len = len;
	mapped += len;
	return p;
}

void ir_spill_free(void *p)
{
	if (!p)
		return;
	for (int i = 0; i < IR_SPILL_MAX; i++)
		if (maps[i].p == p) {
			munmap(p, maps[i].len);
			mapped -= maps[i].len;
			maps[i].p = NULL;
			return;
		}
	free(p);
}

size_t ir_spill_bytes(void) { return mapped; }
