/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * How many chunks a collective of `bytes` is split into.  More chunks
 * balance the dimensions better and shorten the pipeline's fill and drain;
 * each chunk costs one message per step.  A chunk is kept large enough
 * that its smallest message (bytes / NPUs, after reduce-scattering over
 * every dimension) takes at least one step latency to transfer on every
 * dimension (latency_model.h), and at least `min_chunk` bytes (a floor for
 * per-message costs the model does not see, e.g. CPU copies through
 * shared memory).  Integers only: every rank computes the same count.
 */
#ifndef THEMIS_CHUNKING_H
#define THEMIS_CHUNKING_H

#include "topology.h"

/* Smallest chunk by the latency model: max over dims of
 * NPUs x step_latency x bandwidth (bytes, rounded up, saturating). */
uint64_t themis_chunk_latency_floor(const themis_topology_t *topo);

/* min(max_chunks, max(1, bytes / max(min_chunk, latency floor))), and no
 * more chunks than `elems` (every chunk carries data; 1 when elems is 0). */
uint32_t themis_chunk_count(const themis_topology_t *topo, uint64_t bytes, uint64_t elems,
                            uint32_t max_chunks, uint64_t min_chunk);

#endif
