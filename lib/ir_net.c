/*
 * ir_net.c: the registry of networks (see the end of ir_net.h).
 *
 * One table, in the order --help lists them; the first entry is the default.
 * The table names the networks' entries, each defined next to its network's
 * code, so that code and its options stay in one place and the callers
 * (ibsim, calib, ir_calib) include no network's header to choose one. A
 * static table rather than run-time registration: the set is fixed at build
 * time, and a table needs no constructor-order tricks.
 */
#include "ir_net.h"

#include <string.h>

static const ir_net_type *const registry[] = { &ir_net_type_loggops, &ir_net_type_ib };
#define NREG (sizeof registry / sizeof registry[0])

const ir_net_type *ir_net_type_at(size_t i) { return i < NREG ? registry[i] : NULL; }

const ir_net_type *ir_net_find(const char *name, ir_err *e)
{
	char q[160];
	ir_sb list = IR_SB_INIT;
	for (size_t i = 0; i < NREG; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	for (size_t i = 0; i < NREG; i++)
		if (ir_sb_addf(&list, "%s%s", i == 0 ? "" : i + 1 == NREG ? " or " : ", ", registry[i]->name))
			break;
	ir_errf(e, "unknown network '%s' (expected %s)", ir_err_quote(q, sizeof q, name, strlen(name)),
	        list.buf);
	ir_sb_release(&list);
	return NULL;
}

int ir_net_accepts(const ir_net_type *t, const char *key)
{
	char k[64];
	size_t n = strlen(key);
	const char *const *list;
	if (!t->keys || n >= sizeof k)
		return 0;
	for (size_t i = 0; i <= n; i++)
		k[i] = key[i] == '-' ? '_' : key[i];
	for (list = t->keys(); *list; list++)
		if (strcmp(*list, k) == 0)
			return 1;
	return 0;
}

const ir_net_type *ir_net_owner(const char *key)
{
	for (size_t i = 0; i < NREG; i++)
		if (ir_net_accepts(registry[i], key))
			return registry[i];
	return NULL;
}
