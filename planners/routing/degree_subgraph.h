/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A degree-bounded subgraph of a bipartite multigraph: given edge classes
 * k (left vertex el[k], right vertex er[k], mult[k] parallel edges) and
 * per vertex bounds lo <= hi, how many edges x[k] <= mult[k] of each class
 * to take so that every vertex has between lo and hi taken edges.  A
 * circulation with lower bounds, solved as one maximum flow (Dinic) from
 * a super source to a super sink: feasible exactly when that flow
 * saturates the lower bounds (Hoffman's circulation theorem), and the
 * flow is integral, so the answer is exact.  Deterministic: arcs are
 * scanned in class order.
 */
#ifndef THEMIS_DEGREE_SUBGRAPH_H
#define THEMIS_DEGREE_SUBGRAPH_H

#include <stdint.h>

/* Vertices: left 0 .. nl-1 (lo[v], hi[v]), right 0 .. nr-1 (lo[nl + v],
 * hi[nl + v]).  1 and x[0 .. m) when such a subgraph exists, 0 when none
 * does, -1 when out of memory. */
int themis_degree_subgraph(uint32_t nl, uint32_t nr, uint32_t m, const uint32_t *el,
                           const uint32_t *er, const uint32_t *mult, const uint32_t *lo,
                           const uint32_t *hi, uint32_t *x);

#endif
