/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The tree-packing LP by column generation (treepack.h, themis_tp_lp), in
 * libthemis_bound with the other GLPK code: rows are edges (load <=
 * cap), columns spanning trees, maximize sum x_T.  A tree prices in when
 * its dual weight sum_{e in T} y_e is below 1: the minimum spanning tree
 * under y (Kruskal, ties to the lower edge index) is the most attractive
 * one, so when even it weighs >= 1 the LP is optimal over all trees.
 * The final duals give the certificate partition, whose ratio is the
 * exact optimum.  Also the multiplicative-weights packing (doubles, for
 * reports only).
 */
#include <glpk.h>
#include <limits.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"
#include "treepack.h"

/* Reduced costs above this count as negative: GLPK's own tolerance. */
#define LP_PRICE_EPS 1e-9

static const double *price;

static int cmp_price(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    if (price[x] != price[y]) {
        return price[x] < price[y] ? -1 : 1;
    }
    return (x > y) - (x < y);
}

static uint32_t find(uint32_t *uf, uint32_t a)
{
    while (uf[a] != a) {
        uf[a] = uf[uf[a]];
        a = uf[a];
    }
    return a;
}

/* Minimum spanning tree under y into tree[0..n-1); its weight. */
static double mst(const themis_tp_graph_t *g, const double *y, uint32_t *order, uint32_t *uf,
                  uint32_t *tree)
{
    double w = 0.0;
    uint32_t k = 0;
    for (uint32_t e = 0; e < g->m; e++) {
        order[e] = e;
    }
    price = y;
    qsort(order, g->m, sizeof(*order), cmp_price);
    for (uint32_t v = 0; v < g->n; v++) {
        uf[v] = v;
    }
    for (uint32_t i = 0; i < g->m && k + 1 < g->n; i++) {
        uint32_t e = order[i], a = find(uf, g->u[e]), b = find(uf, g->v[e]);
        if (a != b) {
            uf[a < b ? b : a] = a < b ? a : b;
            tree[k++] = e;
            w += y[e];
        }
    }
    return w;
}

static int add_column(glp_prob *lp, const themis_tp_graph_t *g, const uint32_t *tree, int *ind,
                      double *val)
{
    int col = glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp, col, 1.0);
    for (uint32_t i = 0; i + 1 < g->n; i++) {
        ind[i + 1] = (int) tree[i] + 1;
        val[i + 1] = 1.0;
    }
    glp_set_mat_col(lp, col, (int) g->n - 1, ind, val);
    return col;
}

themis_status_t themis_tp_lp(const themis_tp_graph_t *g, uint32_t max_rounds,
                             const themis_tp_packing_t *seed, themis_tp_packing_t *out, char *why,
                             size_t len)
{
    uint32_t n = g->n, m = g->m;
    memset(out, 0, sizeof(*out));
    if (n < 2 || 0 == m) {
        snprintf(why, len, "needs 2 or more nodes");
        return THEMIS_ERR_INVALID;
    }
    size_t cap_cols = 64 + (NULL != seed ? seed->ntrees : 0);
    uint32_t *cols = malloc(cap_cols * (n - 1) * sizeof(*cols));
    uint32_t *order = malloc((size_t) m * sizeof(*order)), *uf = malloc((size_t) n * sizeof(*uf));
    double *y = calloc(m, sizeof(*y)), *val = malloc((size_t) n * sizeof(*val));
    int *ind = malloc((size_t) n * sizeof(*ind));
    uint32_t *tree = malloc((size_t) n * sizeof(*tree));
    themis_status_t st = THEMIS_OK;
    glp_prob *lp = NULL;
    uint32_t ncols = 0, rounds = 0;
    if (NULL == cols || NULL == order || NULL == uf || NULL == y || NULL == val || NULL == ind
        || NULL == tree) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, (int) m);
    for (uint32_t e = 0; e < m; e++) {
        glp_set_row_bnds(lp, (int) e + 1, GLP_UP, 0.0, (double) g->cap[e]);
    }
    /* Start from the best single tree: capacity as a negative price. */
    for (uint32_t e = 0; e < m; e++) {
        y[e] = -(double) g->cap[e];
    }
    mst(g, y, order, uf, tree);
    add_column(lp, g, tree, ind, val);
    memcpy(cols, tree, (n - 1) * sizeof(*cols));
    ncols = 1;
    /* The seed's trees as columns too: pricing still proves optimality
     * over all trees, it only starts nearer. */
    for (uint32_t t = 0; NULL != seed && seed->n == n && t < seed->ntrees; t++) {
        add_column(lp, g, &seed->edges[(size_t) t * (n - 1)], ind, val);
        memcpy(&cols[(size_t) ncols * (n - 1)], &seed->edges[(size_t) t * (n - 1)],
               (n - 1) * sizeof(*cols));
        ncols++;
    }
    int prev_term = glp_term_out(GLP_OFF);
    for (;;) {
        int rc = themis_lp_simplex(lp, INT_MAX);
        if (0 != rc || GLP_OPT != glp_get_status(lp)) {
            snprintf(why, len, "GLPK: simplex failed (rc %d, status %d)", rc,
                     glp_get_status(lp));
            st = THEMIS_ERR_UNSUPPORTED;
            break;
        }
        for (uint32_t e = 0; e < m; e++) {
            y[e] = glp_get_row_dual(lp, (int) e + 1);
            y[e] = y[e] < 0.0 ? 0.0 : y[e];
        }
        if (mst(g, y, order, uf, tree) >= 1.0 - LP_PRICE_EPS) {
            break;
        }
        if (++rounds > max_rounds) {
            snprintf(why, len, "no optimum after %u pricing rounds", max_rounds);
            st = THEMIS_ERR_UNSUPPORTED;
            break;
        }
        if (ncols == cap_cols) {
            uint32_t *more = realloc(cols, 2 * cap_cols * (n - 1) * sizeof(*cols));
            if (NULL == more) {
                st = THEMIS_ERR_NOMEM;
                break;
            }
            cols = more;
            cap_cols *= 2;
        }
        add_column(lp, g, tree, ind, val);
        memcpy(&cols[(size_t) ncols * (n - 1)], tree, (n - 1) * sizeof(*cols));
        ncols++;
        /* Keep the basis: the next solve starts warm. */
    }
    glp_term_out(prev_term);
    if (THEMIS_OK != st) {
        goto out;
    }
    /* The trees in use. */
    uint32_t nused = 0;
    for (uint32_t c = 0; c < ncols; c++) {
        nused += glp_get_col_prim(lp, (int) c + 1) > LP_PRICE_EPS;
    }
    uint32_t *part = malloc((size_t) n * sizeof(*part));
    if (NULL == part) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    memset(out, 0, sizeof(*out));
    out->method = THEMIS_TP_LP;
    out->n = n;
    out->edges = malloc(((size_t) nused * (n - 1) + 1) * sizeof(*out->edges));
    out->x = malloc(((size_t) nused + 1) * sizeof(*out->x));
    if (NULL == out->edges || NULL == out->x) {
        free(part);
        themis_tp_packing_free(out);
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    for (uint32_t c = 0; c < ncols; c++) {
        double x = glp_get_col_prim(lp, (int) c + 1);
        if (x > LP_PRICE_EPS) {
            memcpy(&out->edges[(size_t) out->ntrees * (n - 1)], &cols[(size_t) c * (n - 1)],
                   (n - 1) * sizeof(*cols));
            out->x[out->ntrees++] = x;
        }
    }
    out->value_f = glp_get_obj_val(lp);
    out->iterations = rounds;
    themis_tp_frac_t r;
    uint32_t np = 0;
    st = themis_tp_partition_from_prices(g, y, part, &np, &r);
    if (THEMIS_OK != st) {
        free(part);
        themis_tp_packing_free(out);
        goto out;
    }
    out->part = part;
    out->nparts = np;
    out->bound = r;
    out->bound_f = (double) r.num / (double) r.den;
    out->bound_exact = 1;
    /* The partition bounds every packing; the LP's reaches it: exact. */
    double diff = out->bound_f - out->value_f;
    if ((diff < 0.0 ? -diff : diff) <= 1e-9 * out->bound_f) {
        out->exact = 1;
        out->value = r;
    }
out:
    if (NULL != lp) {
        glp_delete_prob(lp);
    }
    free(cols);
    free(order);
    free(uf);
    free(y);
    free(val);
    free(ind);
    free(tree);
    return st;
}

/* ------------------------------------------------------------ MW */

themis_status_t themis_tp_mw(const themis_tp_graph_t *g, double eps, uint32_t max_iters,
                             themis_tp_packing_t *out)
{
    uint32_t n = g->n, m = g->m;
    memset(out, 0, sizeof(*out));
    if (n < 2 || 0 == max_iters || !(eps > 0.0 && eps < 1.0)) {
        return THEMIS_ERR_INVALID;
    }
    double *y = malloc((size_t) m * sizeof(*y)), *load = calloc(m, sizeof(*load));
    uint32_t *order = malloc((size_t) m * sizeof(*order)), *uf = malloc((size_t) n * sizeof(*uf));
    themis_status_t st = THEMIS_OK;
    out->method = THEMIS_TP_MW;
    out->n = n;
    out->edges = malloc((size_t) max_iters * (n - 1) * sizeof(*out->edges));
    out->x = calloc(max_iters, sizeof(*out->x));
    if (NULL == y || NULL == load || NULL == order || NULL == uf || NULL == out->edges
        || NULL == out->x) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    /* Garg-Koenemann: lengths start at delta / cap; each round routes the
     * bottleneck of the shortest (minimum spanning) tree and lengthens its
     * edges by (1 + eps f / cap); D / alpha bounds the optimum from
     * above at every round. */
    /* delta = (1 + eps) / ((1 + eps) m)^(1 / eps), by repeated
     * multiplication (no libm), kept above the smallest doubles. */
    double delta = 1.0 + eps;
    for (double k = 0.0; k < 1.0 / eps && delta > 1e-250; k += 1.0) {
        delta /= (1.0 + eps) * m;
    }
    for (uint32_t e = 0; e < m; e++) {
        y[e] = delta / (double) g->cap[e];
    }
    double ub = DBL_MAX;
    uint32_t it = 0;
    price = y;
    for (; it < max_iters; it++) {
        double D = 0.0, alpha = 0.0;
        for (uint32_t e = 0; e < m; e++) {
            D += (double) g->cap[e] * y[e];
            order[e] = e;
        }
        uint32_t *tree = &out->edges[(size_t) it * (n - 1)];
        mst(g, y, order, uf, tree);
        uint64_t f = UINT64_MAX;
        for (uint32_t i = 0; i + 1 < n; i++) {
            alpha += y[tree[i]];
            f = g->cap[tree[i]] < f ? g->cap[tree[i]] : f;
        }
        ub = D / alpha < ub ? D / alpha : ub;
        if (D >= 1.0) {
            break;
        }
        out->x[it] = (double) f;
        for (uint32_t i = 0; i + 1 < n; i++) {
            uint32_t e = tree[i];
            y[e] *= 1.0 + eps * (double) f / (double) g->cap[e];
            load[e] += (double) f;
        }
    }
    out->ntrees = it;
    double worst = 0.0;
    for (uint32_t e = 0; e < m; e++) {
        worst = load[e] / (double) g->cap[e] > worst ? load[e] / (double) g->cap[e] : worst;
    }
    double sum = 0.0;
    for (uint32_t t = 0; t < it; t++) {
        out->x[t] /= worst;
        sum += out->x[t];
    }
    out->value_f = sum;
    out->bound_f = ub;
    out->iterations = it;
out:
    free(y);
    free(load);
    free(order);
    free(uf);
    if (THEMIS_OK != st) {
        themis_tp_packing_free(out);
    }
    return st;
}
