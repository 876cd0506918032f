/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Union-find over nodes 0..n-1 with path halving.  The smaller root
 * survives a union, so a component is named by its least node: every
 * caller (treepack's forests, link_sim_twins' parts) relies on that for
 * deterministic numbering.
 */
#ifndef THEMIS_UNION_FIND_H
#define THEMIS_UNION_FIND_H

#include <stdint.h>

/* inline: called per edge or transfer in hot loops */
static inline uint32_t themis_uf_find(uint32_t *uf, uint32_t a)
{
    while (uf[a] != a) {
        uf[a] = uf[uf[a]];
        a = uf[a];
    }
    return a;
}

/* 1 when a and b were apart. */
static inline int themis_uf_union(uint32_t *uf, uint32_t a, uint32_t b)
{
    a = themis_uf_find(uf, a);
    b = themis_uf_find(uf, b);
    if (a == b) {
        return 0;
    }
    if (a < b) {
        uf[b] = a;
    } else {
        uf[a] = b;
    }
    return 1;
}

/* Every node alone. */
void themis_uf_init(uint32_t *uf, uint32_t n);
/* The components of uf as parts 0.. in order of their least node into
 * part[0..n) (map: scratch of n); returns how many. */
uint32_t themis_uf_parts(uint32_t *uf, uint32_t n, uint32_t *part, uint32_t *map);

#endif
