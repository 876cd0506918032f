/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The one hash of the project: 64-bit FNV-1a.  Schedules, programs, the
 * component's agreement and rules files all hash through it, so equal
 * inputs give equal hashes on every rank and in every tool.
 */
#ifndef THEMIS_HASH_H
#define THEMIS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define THEMIS_FNV_OFFSET 14695981039346656037ULL

uint64_t themis_fnv1a(uint64_t h, const void *data, size_t len);
/* The low `width` bytes of v, little-endian first (width 1..8). */
uint64_t themis_fnv1a_le(uint64_t h, uint64_t v, int width);
/* All 8 bytes of v. */
uint64_t themis_fnv1a_u64(uint64_t h, uint64_t v);

#endif
