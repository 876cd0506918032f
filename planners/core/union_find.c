/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "union_find.h"

void themis_uf_init(uint32_t *uf, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uf[i] = i;
    }
}

uint32_t themis_uf_parts(uint32_t *uf, uint32_t n, uint32_t *part, uint32_t *map)
{
    uint32_t np = 0;
    for (uint32_t v = 0; v < n; v++) {
        map[v] = UINT32_MAX;
    }
    for (uint32_t v = 0; v < n; v++) {
        uint32_t r = themis_uf_find(uf, v);
        if (UINT32_MAX == map[r]) {
            map[r] = np++;
        }
        part[v] = map[r];
    }
    return np;
}
