/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * GLPK helpers of the solvers (lp.h).
 */
#include "lp.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

themis_status_t themis_lp_nz_add(themis_lp_nz_t *z, int row, int col, double v)
{
    if (z->n + 1 >= z->cap) {
        uint32_t cap = 0 == z->cap ? 4096 : 2 * z->cap;
        int *ia = realloc(z->ia, (size_t) cap * sizeof(*ia));
        if (NULL != ia) {
            z->ia = ia;
        }
        int *ja = realloc(z->ja, (size_t) cap * sizeof(*ja));
        if (NULL != ja) {
            z->ja = ja;
        }
        double *ar = realloc(z->ar, (size_t) cap * sizeof(*ar));
        if (NULL != ar) {
            z->ar = ar;
        }
        if (NULL == ia || NULL == ja || NULL == ar || cap <= z->cap) {
            return THEMIS_ERR_NOMEM;
        }
        z->cap = cap;
    }
    ++z->n; /* GLPK's arrays start at 1 */
    z->ia[z->n] = row;
    z->ja[z->n] = col;
    z->ar[z->n] = v;
    return THEMIS_OK;
}

void themis_lp_nz_load(const themis_lp_nz_t *z, glp_prob *P)
{
    if (z->n > 0) {
        glp_load_matrix(P, (int) z->n, z->ia, z->ja, z->ar);
    }
}

void themis_lp_nz_free(themis_lp_nz_t *z)
{
    free(z->ia);
    free(z->ja);
    free(z->ar);
    memset(z, 0, sizeof(*z));
}

int themis_lp_simplex(glp_prob *P, int tm_lim_ms)
{
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    sm.tm_lim = tm_lim_ms;
    return glp_simplex(P, &sm);
}

int themis_lp_intopt(glp_prob *P, int tm_lim_ms, void (*cb)(glp_tree *, void *), void *info)
{
    glp_iocp io;
    glp_init_iocp(&io);
    io.msg_lev = GLP_MSG_OFF;
    io.tm_lim = tm_lim_ms;
    io.cb_func = cb;
    io.cb_info = info;
    return glp_intopt(P, &io);
}

void themis_lp_offer_start(glp_tree *tree, const double *start, int *offered)
{
    if (GLP_IHEUR == glp_ios_reason(tree) && NULL != start && !*offered) {
        *offered = 1;
        glp_ios_heur_sol(tree, start);
    }
}
