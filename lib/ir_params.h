/*
 * ir_params.h: parameter files (formats/params.md): `key = value  # comment`
 * lines, values with units, as calib writes them and ibsim, trace2goal and
 * calib read them.
 *
 * A parameter set is a list of (key, value) strings that remembers where each
 * value came from (file and line, or a command-line option), so a value that
 * fails to parse is reported where the user wrote it:
 *   "cluster.params:3: invalid time for 'L': '2.5xs' (expected ...)"
 *   "invalid time for -L: '2.5xs' (expected ...)"
 * Values are kept as text and parsed by the typed getters, so one file can
 * carry keys for several tools. Keys are case-sensitive (g and G differ);
 * '-' and '_' in keys are the same character (o-rndv = o_rndv).
 *
 * Setting a key that is already set replaces its value (a later file or a
 * command-line option overrides), except that a key repeated within one file
 * is an error. The caller owns the set: ir_params_new() / ir_params_free().
 */
#ifndef IR_PARAMS_H
#define IR_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"

#define IR_PARAMS_KEY_MAX 64      /* longest key */
#define IR_PARAMS_VALUE_MAX 4096  /* longest value */
#define IR_PARAMS_MAX 4096        /* most keys in a set */

typedef struct ir_params ir_params;

ir_params *ir_params_new(void); /* NULL if out of memory */
void ir_params_free(ir_params *p); /* NULL is a no-op */

/* Read a parameter file ("-": stdin; compressed files are detected). */
int ir_params_load(ir_params *p, const char *path, ir_err *e);
/* The same from memory; `name` is used in messages. */
int ir_params_parse(ir_params *p, const void *text, size_t len, const char *name, ir_err *e);
/* Set `key` from a command-line option; `opt` names it in messages ("-L"). */
int ir_params_set(ir_params *p, const char *key, const char *value, const char *opt, ir_err *e);

size_t ir_params_count(const ir_params *p);
const char *ir_params_key(const ir_params *p, size_t i);   /* normalized: '-' written '_' */
const char *ir_params_value(const ir_params *p, size_t i);
/* Where entry i came from, "file:line" or "-L" (for messages). */
const char *ir_params_origin(const ir_params *p, size_t i, char *buf, size_t n);
/* The value of `key`, or NULL. */
const char *ir_params_get(const ir_params *p, const char *key);

/* Typed getters: 1 when the key is set and its value parses (stored in *out),
 * 0 when it is not set (*out unchanged), -1 when the value is bad (e names the
 * origin, the key and the value). */
int ir_params_time(const ir_params *p, const char *key, uint64_t *out, ir_err *e);
int ir_params_size(const ir_params *p, const char *key, uint64_t *out, ir_err *e);
int ir_params_u64(const ir_params *p, const char *key, uint64_t *out, ir_err *e);
int ir_params_double(const ir_params *p, const char *key, double *out, ir_err *e);

/* The first key at or after entry *i that is not in `known` (NULL-terminated
 * list of normalized keys): returns its index and sets *i past it, or -1 when
 * there is none. For "unknown parameter" warnings or errors. */
long ir_params_next_unknown(const ir_params *p, const char *const *known, size_t *i);

/* Append the set as a parameter file ("key = value\n" in insertion order). */
int ir_params_write(const ir_params *p, ir_sb *out);

#endif
