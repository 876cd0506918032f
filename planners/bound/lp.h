/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What the GLPK solvers share (the LP bound, the Clos and TACOS ILPs, the
 * tree-packing LP), written once: the constraint matrix as it is built,
 * quiet simplex and branch-and-cut runs with a time limit, and offering a
 * starting solution to the branch-and-cut.
 */
#ifndef THEMIS_LP_H
#define THEMIS_LP_H

#include <stdint.h>

#include <glpk.h>

#include "themis_types.h"

/* Matrix triplets, 1-based as glp_load_matrix wants them. */
typedef struct {
    int *ia, *ja;
    double *ar;
    uint32_t n, cap;
} themis_lp_nz_t;

/* One more entry (row, col) = v; THEMIS_ERR_NOMEM leaves z as it was. */
themis_status_t themis_lp_nz_add(themis_lp_nz_t *z, int row, int col, double v);
/* The entries into P (none: nothing to load). */
void themis_lp_nz_load(const themis_lp_nz_t *z, glp_prob *P);
void themis_lp_nz_free(themis_lp_nz_t *z);

/* glp_simplex without messages, stopping after tm_lim_ms (INT_MAX: no
 * limit); GLPK's return code. */
int themis_lp_simplex(glp_prob *P, int tm_lim_ms);
/* glp_intopt without messages, stopping after tm_lim_ms, with the callback
 * cb(tree, info) (NULL: none); GLPK's return code. */
int themis_lp_intopt(glp_prob *P, int tm_lim_ms, void (*cb)(glp_tree *, void *), void *info);
/* In a branch-and-cut callback: offers start (columns 1..n; NULL: none)
 * as a heuristic solution, once (*offered). */
void themis_lp_offer_start(glp_tree *tree, const double *start, int *offered);

#endif
