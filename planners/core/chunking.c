/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "chunking.h"

uint64_t themis_chunk_latency_floor(const themis_topology_t *topo)
{
    const unsigned __int128 npus = themis_topology_npus(topo);
    uint64_t floor = 0;

    for (int k = 0; k < topo->ndims; ++k) {
        const themis_dim_t *d = &topo->dims[k];
        /* bytes = NPUs x latency[ps] x bw[bit/s] / 8e12, rounded up; the
         * first product fits 128 bits, the second may not: saturate. */
        const unsigned __int128 a = npus * d->step_latency;
        uint64_t v = UINT64_MAX;
        if (0 == d->bw_bps || a <= ~(unsigned __int128) 0 / d->bw_bps) {
            const unsigned __int128 b = (a * d->bw_bps + 7999999999999ULL) / 8000000000000ULL;
            v = b > UINT64_MAX ? UINT64_MAX : (uint64_t) b;
        }
        if (v > floor) {
            floor = v;
        }
    }
    return floor;
}

uint32_t themis_chunk_count(const themis_topology_t *topo, uint64_t bytes, uint64_t elems,
                            uint32_t max_chunks, uint64_t min_chunk)
{
    uint64_t floor = themis_chunk_latency_floor(topo);
    uint64_t n;

    if (min_chunk > floor) {
        floor = min_chunk;
    }
    n = 0 == floor ? bytes : bytes / floor;
    if (n > max_chunks) {
        n = max_chunks;
    }
    if (n > elems) {
        n = elems;
    }
    return 0 == n ? 1 : (uint32_t) n;
}
