/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Serialization (all integers little-endian, fixed width):
 *   u32 coll, u32 ndims, u32 nchunks, u32 nstages, u32 nfallbacks,
 *   u64 chunk_bytes[nchunks], {u8 dim, u8 phase}[nchunks * nstages],
 *   then u32 1 and, per dim, u32 count + {u32 chunk, u16 stage}[count]
 *   when an order is given, else u32 0.
 * Hashing bytes rather than structs keeps padding and host byte order out.
 */
#include "hash.h"
#include "simulator.h"

uint64_t themis_schedule_hash(const themis_schedule_t *s, const themis_intra_order_t *o)
{
    uint64_t h = THEMIS_FNV_OFFSET;
    if (NULL != s) {
        h = themis_fnv1a_le(h, (uint64_t) s->coll, 4);
        h = themis_fnv1a_le(h, (uint64_t) s->ndims, 4);
        h = themis_fnv1a_le(h, s->nchunks, 4);
        h = themis_fnv1a_le(h, s->nstages, 4);
        h = themis_fnv1a_le(h, s->nfallbacks, 4);
        for (uint32_t c = 0; NULL != s->chunk_bytes && c < s->nchunks; c++) {
            h = themis_fnv1a_le(h, s->chunk_bytes[c], 8);
        }
        size_t n = (size_t) s->nchunks * s->nstages;
        for (size_t i = 0; NULL != s->stages && i < n; i++) {
            uint8_t b[2] = {s->stages[i].dim, s->stages[i].phase};
            h = themis_fnv1a(h, b, 2);
        }
    }
    h = themis_fnv1a_le(h, (NULL != o) ? 1 : 0, 4);
    if (NULL != o) {
        for (int k = 0; k < o->ndims && k < THEMIS_MAX_DIMS; k++) {
            h = themis_fnv1a_le(h, o->count[k], 4);
            for (uint32_t i = 0; NULL != o->entries[k] && i < o->count[k]; i++) {
                h = themis_fnv1a_le(h, o->entries[k][i].chunk, 4);
                h = themis_fnv1a_le(h, o->entries[k][i].stage, 2);
            }
        }
    }
    return h;
}
