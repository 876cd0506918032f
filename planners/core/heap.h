/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The planners' priority queue, written once: a d-ary min-heap in a
 * growing array.  THEMIS_HEAP_DEFINE(NAME, TYPE, CTX, LESS, ARITY, FIRST)
 * defines, for elements of TYPE ordered by LESS(CTX ctx, const TYPE *a,
 * const TYPE *b):
 *   int  NAME_push(CTX ctx, TYPE **h, uint32_t *n, uint32_t *cap, TYPE e)
 *        0, or -1 when out of memory (the heap is then unchanged); the
 *        array grows from FIRST elements by doubling;
 *   TYPE NAME_pop(CTX ctx, TYPE *h, uint32_t *n)   (*n > 0).
 * LESS must be a strict total order (ties broken by an id), so what pops
 * next never depends on the heap's shape or ARITY: ARITY only trades
 * levels for comparisons (link_sim's event queue takes 4).  A macro, not
 * a function over void *, so the comparisons inline in the hot loops.
 */
#ifndef THEMIS_HEAP_H
#define THEMIS_HEAP_H

#include <stdint.h>
#include <stdlib.h>

#define THEMIS_HEAP_DEFINE(NAME, TYPE, CTX, LESS, ARITY, FIRST)                           \
    static inline int NAME##_push(CTX ctx, TYPE **hp, uint32_t *n, uint32_t *cap, TYPE e) \
    {                                                                                     \
        if (*n == *cap) {                                                                 \
            uint32_t c_ = 0 == *cap ? (FIRST) : 2 * *cap;                                 \
            TYPE *r_ = c_ > *cap ? realloc(*hp, (size_t) c_ * sizeof(TYPE)) : NULL;       \
            if (NULL == r_) {                                                             \
                return -1;                                                                \
            }                                                                             \
            *hp = r_;                                                                     \
            *cap = c_;                                                                    \
        }                                                                                 \
        TYPE *h = *hp;                                                                    \
        uint32_t i = (*n)++;                                                              \
        while (i > 0 && LESS(ctx, &e, &h[(i - 1) / (ARITY)])) {                           \
            h[i] = h[(i - 1) / (ARITY)];                                                  \
            i = (i - 1) / (ARITY);                                                        \
        }                                                                                 \
        h[i] = e;                                                                         \
        return 0;                                                                         \
    }                                                                                     \
                                                                                          \
    static inline TYPE NAME##_pop(CTX ctx, TYPE *h, uint32_t *n)                          \
    {                                                                                     \
        TYPE top = h[0];                                                                  \
        TYPE last = h[--*n];                                                              \
        uint32_t i = 0;                                                                   \
        for (;;) {                                                                        \
            uint32_t c = (ARITY) *i + 1;                                                  \
            if (c >= *n) {                                                                \
                break;                                                                    \
            }                                                                             \
            const uint32_t end = c + (ARITY) < *n ? c + (ARITY) : *n;                     \
            for (uint32_t j = c + 1; j < end; ++j) {                                      \
                c = LESS(ctx, &h[j], &h[c]) ? j : c;                                      \
            }                                                                             \
            if (!LESS(ctx, &h[c], &last)) {                                               \
                break;                                                                    \
            }                                                                             \
            h[i] = h[c];                                                                  \
            i = c;                                                                        \
        }                                                                                 \
        if (*n > 0) {                                                                     \
            h[i] = last;                                                                  \
        }                                                                                 \
        return top;                                                                       \
    }

#endif
