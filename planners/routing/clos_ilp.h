/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The min-max routing ILP on a Clos with failed spines and failed links
 * (the paper's optimum), solved with GLPK.  In libthemis_bound with the
 * other GLPK code: the CLI and the tests link it, the component does not.
 *
 * Flows with the same (source ToR, destination ToR) are interchangeable,
 * so the ILP has one integer y(p, s) >= 0 per ToR pair p and spine s
 * usable at both ends (how many of p's flows take s) and an integer L:
 *   minimise L  subject to
 *     sum_s y(p, s) = n_p                         every pair
 *     sum_{p leaving t} y(p, s) <= L              every up link (t, s)
 *     sum_{p entering t} y(p, s) <= L             every down link (s, t)
 * The greedy's assignment is offered as the first incumbent; the search
 * stops at time_limit_ms, or as soon as the incumbent meets the lower
 * bound (the larger of the ToR bound, the rounded-up LP relaxation and
 * the branch-and-bound's best open node).  Pair p's flows take their
 * spines in flow order, lowest spine ids first.
 */
#ifndef THEMIS_CLOS_ILP_H
#define THEMIS_CLOS_ILP_H

#include "clos_route.h"

/* r->optimal when proven, r->lower_bound the proven bound, r->gap_ppm the
 * relative gap.  time_limit_ms >= 1.  THEMIS_ERR_INVALID when some flow
 * cannot be routed; THEMIS_ERR_NOMEM; THEMIS_ERR_UNSUPPORTED when GLPK
 * fails. */
themis_status_t themis_clos_route_ilp(const themis_clos_t *c, const themis_clos_flows_t *f,
                                      uint32_t time_limit_ms, themis_clos_route_t *r);

#endif
