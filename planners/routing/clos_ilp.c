/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The routing ILP of clos_ilp.h.  GLPK solves in floating point; every
 * value read back is an integer within round-off, rounded to the nearest,
 * and the assignment is checked by themis_clos_route_evaluate before it
 * is reported.  Bounds are rounded up (L is an integer).
 */
#include "clos_ilp.h"
#include "util.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"

/* Values within this of an integer are that integer (solver round-off). */
#define ILP_EPS 1e-6

typedef struct {
    const double *start;    /* the greedy's solution, columns 1..n */
    int offered;
    double bound;           /* best proven bound seen in the search */
    uint32_t known_lb;      /* combinatorial / LP bound, rounded up */
} ilp_cb_t;

static uint32_t ceil_u32(double v)
{
    if (v <= 0) {
        return 0;
    }
    uint32_t k = (uint32_t) v;
    return (v - (double) k > ILP_EPS) ? k + 1 : k;
}

static void ilp_callback(glp_tree *tree, void *info)
{
    ilp_cb_t *cb = info;
    themis_lp_offer_start(tree, cb->start, &cb->offered);
    int best = glp_ios_best_node(tree);
    if (0 != best) {
        double b = glp_ios_node_bound(tree, best);
        cb->bound = (b > cb->bound) ? b : cb->bound;
    }
    glp_prob *P = glp_ios_get_prob(tree);
    uint32_t lb = ceil_u32(cb->bound);
    lb = (cb->known_lb > lb) ? cb->known_lb : lb;
    /* stop once the incumbent meets the bound: nothing better exists */
    if (GLP_FEAS == glp_mip_status(P) && glp_mip_obj_val(P) < (double) lb + 0.5) {
        glp_ios_terminate(tree);
    }
}

themis_status_t themis_clos_route_ilp(const themis_clos_t *c, const themis_clos_flows_t *f,
                                      uint32_t time_limit_ms, themis_clos_route_t *r)
{
    /* freeable on every return */
    memset(r, 0, sizeof(*r));
    if (0 == time_limit_ms || time_limit_ms > INT32_MAX) {
        return THEMIS_ERR_INVALID;
    }
    uint64_t t0 = themis_now_ns();
    themis_status_t st = themis_clos_route_greedy(c, f, r);
    if (THEMIS_OK != st) {
        return st;
    }
    r->algo = THEMIS_CLOS_ILP;
    uint32_t greedy_load = r->max_load, lb = r->lower_bound;
    if (greedy_load == lb) {
        /* the greedy already meets the ToR bound: proven optimal */
        r->run_ns = themis_now_ns() - t0;
        r->optimal = 1;
        r->gap_ppm = 0;
        return THEMIS_OK;
    }
    uint32_t S = c->nspines, T = c->ntors;
    size_t nl = (size_t) T * S;
    /* inter-ToR flows by (src ToR, dst ToR, index): pairs are runs */
    themis_clos_pair_t *k = malloc(((size_t) f->n + 1) * sizeof(*k));
    uint32_t *row_of = calloc(2 * nl, sizeof(*row_of));
    uint32_t nk = 0;
    if (NULL == k || NULL == row_of) {
        free(k);
        free(row_of);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->flows[i].src_tor != f->flows[i].dst_tor) {
            k[nk++] = (themis_clos_pair_t) {f->flows[i].src_tor, f->flows[i].dst_tor, i};
        }
    }
    qsort(k, nk, sizeof(*k), themis_clos_pair_cmp);

    glp_prob *P = glp_create_prob();
    glp_set_obj_dir(P, GLP_MIN);
    int colL = glp_add_cols(P, 1);
    glp_set_col_kind(P, colL, GLP_IV);
    glp_set_col_bnds(P, colL, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(P, colL, 1.0);
    /* the matrix: at most 3 entries per y column plus one L entry per
     * link row */
    themis_lp_nz_t z = {0};
    st = THEMIS_OK;
    for (uint32_t lo = 0; lo < nk && THEMIS_OK == st;) {
        uint32_t hi = lo;
        while (hi < nk && k[hi].a == k[lo].a && k[hi].b == k[lo].b) {
            hi++;
        }
        int prow = glp_add_rows(P, 1);
        glp_set_row_bnds(P, prow, GLP_FX, (double) (hi - lo), (double) (hi - lo));
        for (uint32_t s = 0; s < S && THEMIS_OK == st; s++) {
            if (!themis_clos_usable(c, k[lo].a, s) || !themis_clos_usable(c, k[lo].b, s)) {
                continue;
            }
            int col = glp_add_cols(P, 1);
            glp_set_col_kind(P, col, GLP_IV);
            glp_set_col_bnds(P, col, GLP_DB, 0.0, (double) (hi - lo));
            size_t lu = (size_t) k[lo].a * S + s, ld = nl + (size_t) k[lo].b * S + s;
            for (int side = 0; side < 2 && THEMIS_OK == st; side++) {
                size_t l = (0 == side) ? lu : ld;
                if (0 == row_of[l]) {
                    row_of[l] = (uint32_t) glp_add_rows(P, 1);
                    glp_set_row_bnds(P, (int) row_of[l], GLP_UP, 0.0, 0.0);
                    st = themis_lp_nz_add(&z, (int) row_of[l], colL, -1.0);
                }
                if (THEMIS_OK == st) {
                    st = themis_lp_nz_add(&z, (int) row_of[l], col, 1.0);
                }
            }
            if (THEMIS_OK == st) {
                st = themis_lp_nz_add(&z, prow, col, 1.0);
            }
        }
        lo = hi;
    }
    int ncols = glp_get_num_cols(P);
    double *start = (THEMIS_OK == st) ? calloc((size_t) ncols + 1, sizeof(*start)) : NULL;
    if (THEMIS_OK == st && NULL == start) {
        st = THEMIS_ERR_NOMEM;
    }
    if (THEMIS_OK == st) {
        themis_lp_nz_load(&z, P);
        /* the greedy's solution in the same column order */
        start[colL] = (double) greedy_load;
        int col = colL;
        for (uint32_t lo = 0; lo < nk;) {
            uint32_t hi = lo;
            while (hi < nk && k[hi].a == k[lo].a && k[hi].b == k[lo].b) {
                hi++;
            }
            for (uint32_t s = 0; s < S; s++) {
                if (!themis_clos_usable(c, k[lo].a, s) || !themis_clos_usable(c, k[lo].b, s)) {
                    continue;
                }
                col++;
                for (uint32_t j = lo; j < hi; j++) {
                    start[col] += (r->spine[k[j].i] == s);
                }
            }
            lo = hi;
        }
        uint64_t spent_ms = (themis_now_ns() - t0) / 1000000u;
        int left = (spent_ms >= time_limit_ms) ? 1 : (int) (time_limit_ms - spent_ms);
        ilp_cb_t cb = {start, 0, 0.0, lb};
        if (0 == themis_lp_simplex(P, left) && GLP_OPT == glp_get_status(P)) {
            uint32_t lp = ceil_u32(glp_get_obj_val(P));
            cb.known_lb = (lp > cb.known_lb) ? lp : cb.known_lb;
        }
        spent_ms = (themis_now_ns() - t0) / 1000000u;
        left = (spent_ms >= time_limit_ms) ? 1 : (int) (time_limit_ms - spent_ms);
        int ret = (GLP_OPT == glp_get_status(P)) ? themis_lp_intopt(P, left, ilp_callback, &cb)
                                                 : GLP_EFAIL;
        int ms = glp_mip_status(P);
        uint32_t bound = cb.known_lb;
        if (0 == ret && GLP_OPT == ms) {
            /* search finished: the incumbent is optimal */
            bound = ceil_u32(glp_mip_obj_val(P) - 0.5);
        } else {
            uint32_t b = ceil_u32(cb.bound);
            bound = (b > bound) ? b : bound;
        }
        if ((GLP_OPT == ms || GLP_FEAS == ms) && glp_mip_obj_val(P) < (double) greedy_load - 0.5) {
            /* a better assignment than the greedy's: pair by pair, flows
             * in order onto spines in id order, y(p, s) each */
            uint32_t *sp = malloc(((size_t) f->n + 1) * sizeof(*sp));
            if (NULL == sp) {
                st = THEMIS_ERR_NOMEM;
            } else {
                memcpy(sp, r->spine, (size_t) f->n * sizeof(*sp));
                col = colL;
                int ok = 1;
                for (uint32_t lo = 0; lo < nk;) {
                    uint32_t hi = lo, j = lo;
                    while (hi < nk && k[hi].a == k[lo].a && k[hi].b == k[lo].b) {
                        hi++;
                    }
                    for (uint32_t s = 0; s < S; s++) {
                        if (!themis_clos_usable(c, k[lo].a, s) ||
                            !themis_clos_usable(c, k[lo].b, s)) {
                            continue;
                        }
                        double v = glp_mip_col_val(P, ++col);
                        uint32_t y = (v > 0) ? (uint32_t) (v + 0.5) : 0;
                        for (; y > 0 && j < hi; y--) {
                            sp[k[j++].i] = s;
                        }
                        ok &= (0 == y);
                    }
                    ok &= (j == hi);
                    lo = hi;
                }
                if (ok) {
                    memcpy(r->spine, sp, (size_t) f->n * sizeof(*sp));
                }
                free(sp);
            }
        }
        if (THEMIS_OK == st) {
            char why[160];
            st = themis_clos_route_evaluate(c, f, r, why, sizeof(why));
            bound = (bound > r->lower_bound) ? bound : r->lower_bound;
            bound = (bound > r->max_load) ? r->max_load : bound;
            r->lower_bound = bound;
            r->optimal = (r->max_load == bound);
            r->gap_ppm = (0 == r->max_load)
                             ? 0
                             : (uint32_t) ((uint64_t) (r->max_load - bound) * 1000000u /
                                           r->max_load);
        }
    }
    r->run_ns = themis_now_ns() - t0;
    glp_delete_prob(P);
    free(start);
    themis_lp_nz_free(&z);
    free(k);
    free(row_of);
    return st;
}
