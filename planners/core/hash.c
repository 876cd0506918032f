/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * 64-bit FNV-1a (hash.h).
 */
#include "hash.h"

#define FNV_PRIME 1099511628211ULL

/* FNV multiplies modulo 2^64 on purpose; the fuzz targets' check for
 * unsigned wrap-around (clang only) is told so. */
#if defined(__clang__)
#define WRAPS_ON_PURPOSE __attribute__((no_sanitize("unsigned-integer-overflow")))
#else
#define WRAPS_ON_PURPOSE
#endif

WRAPS_ON_PURPOSE uint64_t themis_fnv1a(uint64_t h, const void *data, size_t len)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t themis_fnv1a_le(uint64_t h, uint64_t v, int width)
{
    uint8_t b[8];
    for (int i = 0; i < width && i < 8; i++) {
        b[i] = (uint8_t) (v >> (8 * i));
    }
    return themis_fnv1a(h, b, (size_t) (width < 8 ? width : 8));
}

uint64_t themis_fnv1a_u64(uint64_t h, uint64_t v)
{
    return themis_fnv1a_le(h, v, 8);
}
