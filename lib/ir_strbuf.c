/*
 * ir_strbuf.c: growable buffer (see ir_strbuf.h for the invariants).
 */
#include "ir_strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char ir_sb_empty[1];

void ir_sb_init(ir_sb *sb)
{
	sb->buf = ir_sb_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void ir_sb_release(ir_sb *sb)
{
	if (sb->alloc)
		free(sb->buf);
	ir_sb_init(sb);
}

int ir_sb_grow(ir_sb *sb, size_t extra)
{
	size_t need, na;
	char *nb;
	if (extra > (size_t)-1 - sb->len - 1)
		return -1;
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	if (need > (size_t)PTRDIFF_MAX)
		return -1; /* no allocator can give this; asking would abort under ASan */
	na = sb->alloc ? sb->alloc : 64;
	while (na < need)
		na = na > (size_t)-1 / 2 ? need : na * 2;
	nb = sb->alloc ? realloc(sb->buf, na) : malloc(na);
	if (!nb)
		return -1;
	if (!sb->alloc)
		nb[0] = '\0';
	sb->buf = nb;
	sb->alloc = na;
	return 0;
}

int ir_sb_add(ir_sb *sb, const void *data, size_t n)
{
	if (ir_sb_grow(sb, n))
		return -1;
	if (n)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int ir_sb_adds(ir_sb *sb, const char *s)
{
	return ir_sb_add(sb, s, strlen(s));
}

int ir_sb_addch(ir_sb *sb, int c)
{
	char ch = (char)c;
	return ir_sb_add(sb, &ch, 1);
}

int ir_sb_vaddf(ir_sb *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if (sb->alloc && (size_t)n < sb->alloc - sb->len) {
		sb->len += (size_t)n;
		return 0;
	}
	if (ir_sb_grow(sb, (size_t)n))
		return -1;
	vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int ir_sb_addf(ir_sb *sb, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = ir_sb_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

void ir_sb_reset(ir_sb *sb)
{
	ir_sb_setlen(sb, 0);
}

void ir_sb_setlen(ir_sb *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

char *ir_sb_detach(ir_sb *sb, size_t *len)
{
	char *r;
	if (len)
		*len = sb->len;
	if (!sb->alloc) {
		r = malloc(1);
		if (r)
			r[0] = '\0';
	} else {
		r = sb->buf;
	}
	ir_sb_init(sb);
	return r;
}
