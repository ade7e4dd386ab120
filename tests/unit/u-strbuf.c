/*
 * u-strbuf.c: unit tests of lib/ir_strbuf: the invariants of ir_strbuf.h
 * (buf never NULL, buf[len] == '\0', NUL bytes allowed, the shared empty
 * string never written), growth, formatted appends across the allocation
 * boundary, reset, setlen, detach and the refusal of impossible sizes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_strbuf.h"
#include "tap.h"

static int invariant(const ir_sb *sb)
{
	return sb->buf != NULL && sb->buf[sb->len] == '\0' && (sb->alloc == 0 || sb->len < sb->alloc) &&
	       (sb->alloc != 0 || (sb->buf == ir_sb_empty && sb->len == 0));
}

int main(void)
{
	ir_sb sb = IR_SB_INIT, other;

	ok(sb.buf == ir_sb_empty && sb.len == 0 && sb.alloc == 0 && sb.buf[0] == '\0',
	   "IR_SB_INIT is the shared empty string");
	ir_sb_init(&other);
	ok(other.buf == ir_sb_empty && other.len == 0 && other.alloc == 0, "ir_sb_init is the same");

	ok(ir_sb_add(&sb, "", 0) == 0 && invariant(&sb), "adding nothing keeps the invariants");
	ok(ir_sb_adds(&sb, "hello") == 0 && sb.len == 5 && invariant(&sb), "adds");
	is_str(sb.buf, "hello", "adds: content");
	ok(ir_sb_addch(&sb, ' ') == 0 && ir_sb_addf(&sb, "%d-%s", 42, "x") == 0, "addch and addf");
	is_str(sb.buf, "hello 42-x", "addch and addf: content");
	ok(invariant(&sb), "invariants after appends");

	/* NUL bytes inside */
	ok(ir_sb_add(&sb, "a\0b", 3) == 0 && sb.len == 13 && memcmp(sb.buf + 10, "a\0b", 3) == 0 &&
	   invariant(&sb), "NUL bytes are kept and len counts them");

	/* formatted appends across every allocation boundary */
	{
		ir_sb a = IR_SB_INIT;
		char want[16384];
		size_t wl = 0;
		int good = 1;
		for (int i = 0; i < 300 && good; i++) {
			char piece[64];
			int n = snprintf(piece, sizeof piece, "%0*d|", i % 40, i);
			if (ir_sb_addf(&a, "%0*d|", i % 40, i) != 0)
				good = 0;
			if (wl + (size_t)n < sizeof want) {
				memcpy(want + wl, piece, (size_t)n);
				wl += (size_t)n;
			}
			if (!invariant(&a) || a.len != wl || memcmp(a.buf, want, wl) != 0)
				good = 0;
		}
		ok(good, "300 formatted appends of 1..40 bytes match, invariants hold");
		ir_sb_release(&a);
	}
	{
		ir_sb a = IR_SB_INIT;
		char big[5000];
		memset(big, 'q', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		ok(ir_sb_addf(&a, "%s", big) == 0 && a.len == 4999 && a.buf[4998] == 'q' && invariant(&a),
		   "one addf much larger than the first allocation");
		ok(ir_sb_addf(&a, "%s", "") == 0 && a.len == 4999, "an empty addf");
		ir_sb_release(&a);
		ok(ir_sb_addf(&a, "%s", "") == 0 && invariant(&a) && a.len == 0, "an empty addf on a new buffer");
		ir_sb_release(&a);
	}

	/* growth */
	{
		ir_sb g = IR_SB_INIT;
		ok(ir_sb_grow(&g, 1000) == 0 && g.alloc >= 1001 && g.len == 0 && g.buf[0] == '\0',
		   "grow reserves len+extra+1 and keeps the string empty");
		char *keep = g.buf;
		size_t alloc = g.alloc;
		ok(ir_sb_grow(&g, 500) == 0 && g.buf == keep && g.alloc == alloc, "grow within the allocation does nothing");
		ok(ir_sb_grow(&g, SIZE_MAX) == -1 && g.buf == keep && g.alloc == alloc, "grow by SIZE_MAX fails, unchanged");
		ok(ir_sb_grow(&g, SIZE_MAX - 1) == -1, "grow by SIZE_MAX-1 fails");
		ir_sb_adds(&g, "abc");
		ok(ir_sb_grow(&g, SIZE_MAX - 3) == -1 && g.len == 3 && strcmp(g.buf, "abc") == 0,
		   "grow that would wrap len+extra+1 fails, content kept");
		ir_sb_release(&g);
		ok(g.buf == ir_sb_empty && g.len == 0 && g.alloc == 0, "release re-initialises");
		ir_sb_release(&g);
		ok(g.buf == ir_sb_empty, "release twice is harmless");
	}

	/* reset and setlen */
	{
		char *keep = sb.buf;
		size_t alloc = sb.alloc;
		ir_sb_reset(&sb);
		ok(sb.len == 0 && sb.buf == keep && sb.alloc == alloc && sb.buf[0] == '\0', "reset keeps the allocation");
		ir_sb_adds(&sb, "abcdef");
		ir_sb_setlen(&sb, 3);
		is_str(sb.buf, "abc", "setlen shortens and terminates");
		ir_sb e = IR_SB_INIT;
		ir_sb_setlen(&e, 0);
		ir_sb_reset(&e);
		ok(e.buf == ir_sb_empty && e.len == 0, "setlen and reset on an unallocated buffer are no-ops");
	}

	/* detach */
	{
		size_t len = 0;
		char *s = ir_sb_detach(&sb, &len);
		ok(s && len == 3 && strcmp(s, "abc") == 0, "detach hands over the string");
		ok(sb.buf == ir_sb_empty && sb.len == 0 && sb.alloc == 0, "detach re-initialises");
		free(s);
		s = ir_sb_detach(&sb, &len);
		ok(s && len == 0 && s[0] == '\0' && s != ir_sb_empty, "detach of an empty buffer gives a fresh \"\"");
		free(s);
		s = ir_sb_detach(&sb, NULL);
		ok(s != NULL, "detach with a NULL length");
		free(s);
	}

	/* vaddf through addf with many arguments */
	{
		ir_sb f = IR_SB_INIT;
		ir_sb_addf(&f, "%s=%llu %c %5.2f", "k", (unsigned long long)UINT64_MAX, 'z', 1.5);
		is_str(f.buf, "k=18446744073709551615 z  1.50", "addf formats like printf");
		ir_sb_release(&f);
	}

	ok(ir_sb_empty[0] == '\0', "the shared empty string was never written");
	ir_sb_release(&sb);
	return tap_done();
}
