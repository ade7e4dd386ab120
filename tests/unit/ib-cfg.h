/*
 * tests/unit/ib-cfg.h: the InfiniBand unit tests' fabric settings from
 * "key=value" strings ("topo=star:2", "lmc=2", ...), through
 * ir_ib_config_set() as ibsim's --ib does. Shared by u-ib.c and
 * u-ib-multipath.c.
 */
#ifndef IR_TEST_IB_CFG_H
#define IR_TEST_IB_CFG_H

#include <string.h>

#include "ir_net_ib.h"

/* c: initialised; kv: NULL-terminated, each "key=value" (key < 64 bytes). 0, or -1
 * with c released and e filled. */
static inline int ib_cfg_from(ir_ib_cfg *c, const char *const *kv, ir_err *e)
{
	for (; kv && *kv; kv++) {
		char k[64];
		const char *eq = strchr(*kv, '=');
		memcpy(k, *kv, (size_t)(eq - *kv));
		k[eq - *kv] = 0;
		if (ir_ib_config_set(c, k, eq + 1, e)) {
			ir_ib_config_release(c);
			return -1;
		}
	}
	return 0;
}

#endif
