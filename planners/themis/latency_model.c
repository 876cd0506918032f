/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Rounding (all integer, so every rank computes the same numbers):
 *   RS bytes sent   = B - floor(B/p) = ceil((p-1)/p x B): what the busiest
 *                     NPU of a ring sends when B does not divide by p;
 *   size after RS   = ceil(B/p) (the largest block), after AG = p x B;
 *   transfer time   = ceil(bytes x 8 x 10^12 / bw) ps, computed in 128 bits
 *                     (never underestimates, exact when it divides);
 *   results that do not fit 64 bits saturate at UINT64_MAX, which the
 *   scheduler and simulator reject as too large.
 */
#include "latency_model.h"

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128) a * b;
    return (r > UINT64_MAX) ? UINT64_MAX : (uint64_t) r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return (a > UINT64_MAX - b) ? UINT64_MAX : a + b;
}

uint32_t themis_lm_steps(const themis_dim_t *dim)
{
    uint32_t p = dim->size;
    if (p <= 1) {
        return 0;
    }
    switch (dim->kind) {
    case THEMIS_DIM_RING:
    case THEMIS_DIM_BIRING:
        return p - 1;
    case THEMIS_DIM_FC:
        return 1;
    case THEMIS_DIM_SWITCH: {
        uint32_t steps = 0;
        while ((1ULL << steps) < p) {
            steps++;
        }
        return steps;
    }
    }
    return p - 1;
}

themis_time_t themis_lm_fixed_delay(const themis_dim_t *dim)
{
    return sat_mul(themis_lm_steps(dim), dim->step_latency);
}

uint64_t themis_lm_bytes_sent(const themis_dim_t *dim, themis_phase_t phase, uint64_t bytes)
{
    uint64_t p = dim->size;
    if (THEMIS_PHASE_RS == phase) {
        return bytes - bytes / p;
    }
    return sat_mul(p - 1, bytes);
}

themis_time_t themis_lm_transfer_time(const themis_dim_t *dim, uint64_t bytes)
{
    if (0 == dim->bw_bps) {
        return UINT64_MAX;
    }
    unsigned __int128 num = (unsigned __int128) bytes * 8000000000000ULL;
    unsigned __int128 t = (num + dim->bw_bps - 1) / dim->bw_bps;
    return (t > UINT64_MAX) ? UINT64_MAX : (themis_time_t) t;
}

themis_time_t themis_lm_phase_time(const themis_dim_t *dim, themis_phase_t phase,
                                   uint64_t bytes)
{
    return sat_add(themis_lm_fixed_delay(dim),
                   themis_lm_transfer_time(dim, themis_lm_bytes_sent(dim, phase, bytes)));
}

uint64_t themis_lm_size_after(const themis_dim_t *dim, themis_phase_t phase, uint64_t bytes)
{
    uint64_t p = dim->size;
    if (THEMIS_PHASE_RS == phase) {
        return bytes / p + ((0 != bytes % p) ? 1 : 0);
    }
    return sat_mul(p, bytes);
}
