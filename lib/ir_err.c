/*
 * ir_err.c: formatting of library error messages (see ir_err.h).
 */
#include "ir_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ir_errf(ir_err *e, const char *fmt, ...)
{
	va_list ap;
	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int ir_errf_at(ir_err *e, const char *file, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (!e)
		return -1;
	if (line)
		n = snprintf(e->msg, sizeof e->msg, "%s:%lu: ", file ? file : "-", line);
	else
		n = snprintf(e->msg, sizeof e->msg, "%s: ", file ? file : "-");
	if (n < 0 || (size_t)n >= sizeof e->msg)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int ir_err_prefix(ir_err *e, const char *file)
{
	char tmp[IR_ERR_MAX];
	size_t fl;
	if (!e || !file)
		return -1;
	fl = strlen(file);
	if (strncmp(e->msg, file, fl) == 0 && e->msg[fl] == ':')
		return -1;
	if (snprintf(tmp, sizeof tmp, "%s: %s", file, e->msg) < 0)
		return -1;
	memcpy(e->msg, tmp, sizeof tmp);
	return -1;
}

char *ir_err_quote(char *out, size_t outsz, const char *s, size_t n)
{
	size_t o = 0, i;
	size_t max = outsz > 16 ? (outsz - 16) / 4 : 0;
	if (!outsz)
		return out;
	for (i = 0; i < n && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
		} else {
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
		}
	}
	if (i < n && o + 4 < outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}
