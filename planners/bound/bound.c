/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The LP of bound.h, one column per RS dimension order plus T.  The LP
 * is solved in floating point (GLPK's simplex) with coefficients scaled
 * to at most 1; T is then recomputed from the solution and rounded up to
 * a picosecond, except that a value within solver round-off (1e-12
 * relative) of an integer is that integer, so that an exact integer
 * optimum is not pushed up by one.
 */
#include "bound.h"

#include <glpk.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "latency_model.h"
#include "lp.h"

/* N! columns: 120 at N = 5; beyond that the enumeration is refused. */
#define THEMIS_BOUND_MAX_DIMS 5

/* A time from the solution rounded up to a picosecond (without libm:
 * times are far below 2^63 ps), except that a value within solver
 * round-off of an integer is that integer. */
static themis_time_t round_up_ps(double t)
{
    themis_time_t lo = (themis_time_t) t;
    double tol = 1e-12 * t + 1e-6;
    return (t - (double) lo <= tol) ? lo : lo + 1;
}

/* Next permutation in lexicographic order; 0 after the last one. */
static int next_perm(uint8_t *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1]) {
        i--;
    }
    if (i < 0) {
        return 0;
    }
    int j = n - 1;
    while (a[j] <= a[i]) {
        j--;
    }
    uint8_t t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

themis_status_t themis_bound_compute(const themis_topology_t *topo, themis_coll_t coll,
                                     uint64_t bytes, themis_bound_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    if (THEMIS_OK != themis_topology_check(topo, NULL, 0) || 0 == bytes ||
        (THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll &&
         THEMIS_COLL_ALLGATHER != coll)) {
        return THEMIS_ERR_INVALID;
    }
    const int n = topo->ndims;
    if (n > THEMIS_BOUND_MAX_DIMS) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    int norders = 1;
    for (int i = 2; i <= n; i++) {
        norders *= i;
    }

    /* bytes_k(o) per NPU and the matching transfer time in ps. */
    const double mult = (THEMIS_COLL_ALLREDUCE == coll) ? 2.0 : 1.0;
    double *cbytes = malloc(sizeof(double) * (size_t) norders * n);
    double *ctime = malloc(sizeof(double) * (size_t) norders * n);
    int nnz = norders * (n + 1) + n;
    int *ia = malloc(sizeof(int) * (size_t) (nnz + 1));
    int *ja = malloc(sizeof(int) * (size_t) (nnz + 1));
    double *ar = malloc(sizeof(double) * (size_t) (nnz + 1));
    if (NULL == cbytes || NULL == ctime || NULL == ia || NULL == ja || NULL == ar) {
        free(cbytes);
        free(ctime);
        free(ia);
        free(ja);
        free(ar);
        return THEMIS_ERR_NOMEM;
    }
    uint8_t perm[THEMIS_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        perm[i] = (uint8_t) i;
    }
    double scale = 0.0;
    for (int o = 0; o < norders; o++) {
        double before = 1.0;
        for (int pos = 0; pos < n; pos++) {
            const themis_dim_t *d = &topo->dims[perm[pos]];
            double p = (double) d->size;
            double b = mult * (p - 1.0) / p * (double) bytes / before;
            cbytes[o * n + perm[pos]] = b;
            ctime[o * n + perm[pos]] = b * 8e12 / (double) d->bw_bps;
            if (ctime[o * n + perm[pos]] > scale) {
                scale = ctime[o * n + perm[pos]];
            }
            before *= p;
        }
        next_perm(perm, n);
    }
    double fixed[THEMIS_MAX_DIMS];
    for (int k = 0; k < n; k++) {
        fixed[k] = (double) themis_lm_fixed_delay(&topo->dims[k]);
        if (fixed[k] > scale) {
            scale = fixed[k];
        }
    }
    if (scale <= 0.0) {
        scale = 1.0;
    }

    /* Rows 1..n: sum_o t_ko x_o - T <= -fixed_k; row n+1: sum_o x_o = 1.
     * Column 1 is T, columns 2.. the orders. */
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, n + 1);
    for (int k = 0; k < n; k++) {
        glp_set_row_bnds(lp, k + 1, GLP_UP, 0.0, -fixed[k] / scale);
    }
    glp_set_row_bnds(lp, n + 1, GLP_FX, 1.0, 1.0);
    glp_add_cols(lp, norders + 1);
    glp_set_col_bnds(lp, 1, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp, 1, 1.0);
    for (int o = 0; o < norders; o++) {
        glp_set_col_bnds(lp, o + 2, GLP_LO, 0.0, 0.0);
    }
    int e = 0;
    for (int k = 0; k < n; k++) {
        e++;
        ia[e] = k + 1;
        ja[e] = 1;
        ar[e] = -1.0;
    }
    for (int o = 0; o < norders; o++) {
        for (int k = 0; k < n; k++) {
            e++;
            ia[e] = k + 1;
            ja[e] = o + 2;
            ar[e] = ctime[o * n + k] / scale;
        }
        e++;
        ia[e] = n + 1;
        ja[e] = o + 2;
        ar[e] = 1.0;
    }
    glp_load_matrix(lp, e, ia, ja, ar);

    int prev_term = glp_term_out(GLP_OFF);
    int rc = themis_lp_simplex(lp, INT_MAX);
    glp_term_out(prev_term);

    themis_status_t st = THEMIS_OK;
    if (0 != rc || GLP_OPT != glp_get_status(lp)) {
        st = THEMIS_ERR_INVALID;
    } else {
        double t = 0.0;
        double b[THEMIS_MAX_DIMS] = {0};
        double xsum = 0.0;
        for (int o = 0; o < norders; o++) {
            double x = glp_get_col_prim(lp, o + 2);
            xsum += (x > 0.0) ? x : 0.0;
        }
        for (int o = 0; o < norders; o++) {
            /* Normalized: the fractions of a real split of the data. */
            double x = glp_get_col_prim(lp, o + 2) / xsum;
            if (x <= 0.0) {
                continue;
            }
            for (int k = 0; k < n; k++) {
                b[k] += x * cbytes[o * n + k];
            }
        }
        /* Column 0 is the identity order, the baseline's (its AG, the
         * reverse, is allgather's baseline order too). */
        double tb = 0.0;
        for (int k = 0; k < n; k++) {
            double tk = fixed[k] + b[k] * 8e12 / (double) topo->dims[k].bw_bps;
            if (tk > t) {
                t = tk;
            }
            if (fixed[k] + ctime[k] > tb) {
                tb = fixed[k] + ctime[k];
            }
            out->bytes[k] = (uint64_t) (b[k] + 0.5);
        }
        out->time = round_up_ps(t);
        out->baseline_time = round_up_ps(tb);
    }
    glp_delete_prob(lp);
    free(cbytes);
    free(ctime);
    free(ia);
    free(ja);
    free(ar);
    return st;
}
