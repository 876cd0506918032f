/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Twin parts of a routed schedule, for the link simulator at the full
 * rate (link_sim.h).  A part is a set of transfers closed under
 * dependencies and under sharing a link: two parts touch no common link
 * and wait for nothing of each other, so each runs at the full rate as if
 * alone, and a schedule's total is the most of its parts' totals.  Two
 * parts are twins when, their transfers taken in list order, they agree
 * transfer by transfer on the count, the dependencies (by position in the
 * part), and the route's links (numbered by first use in the part, with
 * equal rates and latencies): the simulator then times them alike (it
 * reads nothing else, and ties go by list order, which the positions
 * keep).  So only the first part of each set of twins needs simulating
 * for the total: HammingMesh's four rings on a torus of one link rate are
 * four twins.  A transfer without hops that has no dependencies (done at
 * 0) or no dependents (done with its last dependency, which the total
 * counts already) ties nothing together: it is a part of its own (loose),
 * never skipped, and a dependency on it is compared as on a loose one.
 */
#ifndef THEMIS_LINK_SIM_TWINS_H
#define THEMIS_LINK_SIM_TWINS_H

#include "graph.h"
#include "transfer.h"

/* s with its routes (transfer i: links route[route_first[i] ..
 * + nhops[i]]) on g: skip[i] = 1 where transfer i's part is a twin of an
 * earlier part (by its first transfer), else 0; *parts and *skipped
 * count the parts and the parts skipped (may be NULL).  dep_first: where
 * the simulator has them, transfer i's dependents are dep_first[i] ..
 * dep_first[i + 1] (only whether it has any is read); NULL: found here.
 * THEMIS_ERR_NOMEM. */
themis_status_t themis_link_sim_twins(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                      const uint32_t *route_first, const uint32_t *nhops,
                                      const uint32_t *route, const uint32_t *dep_first,
                                      uint8_t *skip, uint32_t *parts, uint32_t *skipped);

#endif
