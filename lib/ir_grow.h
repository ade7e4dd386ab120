/*
 * ir_grow.h: the one growth helper of the library (as git's ALLOC_GROW).
 *
 * Every growable array in lib/ is a pointer, a count the caller keeps, and a
 * capacity. ir_grow() makes room for `need` elements: when the capacity is
 * smaller it reallocates to the larger of `need` and 1.5x the capacity plus
 * 16, so n appends cost O(n) copies in total. The multiplication is checked:
 * a capacity whose byte size would overflow size_t is refused, never
 * wrapped. On failure (-1) the array and its capacity are unchanged and still
 * owned by the caller, so the caller frees them on its one error path.
 *
 * IR_GROW(arr, need, cap) is the form callers write: `arr` any object
 * pointer lvalue, `cap` a size_t lvalue.
 */
#ifndef IR_GROW_H
#define IR_GROW_H

#include <stddef.h>

int ir_grow(void *arrp, size_t need, size_t *cap, size_t esz);

#define IR_GROW(arr, need, cap) ir_grow(&(arr), (need), &(cap), sizeof *(arr))

#endif
