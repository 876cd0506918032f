/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Sec. 4.4 of themis.txt: time of one chunk phase on one dimension =
 *     number_of_steps(kind, p) x step_latency  +  bytes_sent x per-byte latency
 * where B is the chunk size resident on the NPU before the phase:
 *     RS sends (p-1)/p x B,  AG sends (p-1) x B.
 * Steps: ring and biring p-1, fc 1, switch ceil(log2 p); 0 when p = 1.
 *
 * Rounding (integers only): RS sends B - floor(B/p) = ceil((p-1)/p x B)
 * (the busiest NPU when p does not divide B); RS leaves ceil(B/p); the
 * transfer time is ceil(bytes x 8e12 / bw) ps, computed in 128 bits.
 * Results beyond 64 bits saturate at UINT64_MAX.
 */
#ifndef THEMIS_LATENCY_MODEL_H
#define THEMIS_LATENCY_MODEL_H

#include "topology.h"

uint32_t themis_lm_steps(const themis_dim_t *dim);
themis_time_t themis_lm_fixed_delay(const themis_dim_t *dim);
/* Bytes one NPU sends for the phase on a chunk of `bytes` bytes. */
uint64_t themis_lm_bytes_sent(const themis_dim_t *dim, themis_phase_t phase, uint64_t bytes);
/* Pure transfer time of `bytes` at the dimension's bandwidth. */
themis_time_t themis_lm_transfer_time(const themis_dim_t *dim, uint64_t bytes);
/* Fixed delay + transfer time of the bytes sent. */
themis_time_t themis_lm_phase_time(const themis_dim_t *dim, themis_phase_t phase,
                                   uint64_t bytes);
/* Chunk size after the phase: RS divides by p (rounding up), AG multiplies. */
uint64_t themis_lm_size_after(const themis_dim_t *dim, themis_phase_t phase, uint64_t bytes);

#endif
