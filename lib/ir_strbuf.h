/*
 * ir_strbuf.h: the one growable byte buffer of the library.
 *
 * Invariants (as git's strbuf): `buf` is never NULL (it points at a shared
 * empty string until the first growth), `buf[len] == '\0'` always, and the
 * buffer may hold NUL bytes (use `len`, not strlen). The caller owns the
 * struct: ir_sb_init() / ir_sb_release(). Allocation failure is reported as
 * -1 from the functions that grow; the buffer is then unchanged.
 */
#ifndef IR_STRBUF_H
#define IR_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ir_sb {
	char *buf;
	size_t len;
	size_t alloc; /* 0 while buf points at the shared empty string */
} ir_sb;

#define IR_SB_INIT { ir_sb_empty, 0, 0 }
extern char ir_sb_empty[1];

void ir_sb_init(ir_sb *sb);
void ir_sb_release(ir_sb *sb);
int ir_sb_grow(ir_sb *sb, size_t extra);            /* room for len+extra+1 bytes */
int ir_sb_add(ir_sb *sb, const void *data, size_t n);
int ir_sb_adds(ir_sb *sb, const char *s);
int ir_sb_addch(ir_sb *sb, int c);
int ir_sb_addf(ir_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ir_sb_vaddf(ir_sb *sb, const char *fmt, va_list ap);
void ir_sb_reset(ir_sb *sb);                          /* len = 0, keeps the allocation */
void ir_sb_setlen(ir_sb *sb, size_t len);             /* len <= alloc-1 */
char *ir_sb_detach(ir_sb *sb, size_t *len);           /* caller frees; sb is re-initialised */

#endif
