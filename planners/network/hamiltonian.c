/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Edge-disjoint Hamiltonian cycles on a 2D torus (hamiltonian.h explains
 * the constructions).  GROWN works on an edge colouring: hc[u] is the
 * cycle (0/1) of the edge from node u to its right neighbour, vc[u] of the
 * edge to the node below; the cycles are traced from it at the end.
 */
#include "hamiltonian.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_msg(char *msg, size_t len, const char *fmt, ...)
{
    if (NULL == msg || 0 == len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

int themis_ham_bae_applies(uint32_t rows, uint32_t cols)
{
    return rows >= 3 && cols >= 3 && 0 == rows % cols && 1 == themis_gcd(rows, cols - 1);
}

const char *themis_ham_method_name(themis_ham_method_t m)
{
    switch (m) {
    case THEMIS_HAM_BAE:
        return "bae";
    case THEMIS_HAM_BAE_TRANSPOSED:
        return "bae-transposed";
    case THEMIS_HAM_GROWN:
        return "grown";
    }
    return "unknown";
}

/* ------------------------------------------------------------ torus edges */

/* The edge between u and v as (vertical, index of its upper/left node);
 * 0 when they are not torus neighbours.  Needs rows, cols >= 3 so that the
 * two neighbours along a dimension differ. */
static int torus_edge(uint32_t rows, uint32_t cols, uint32_t u, uint32_t v, int *vertical,
                      uint32_t *at)
{
    uint32_t ua = u / cols, uj = u % cols, va = v / cols, vj = v % cols;
    if (ua == va) {
        *vertical = 0;
        if ((uj + 1) % cols == vj) {
            *at = u;
            return 1;
        }
        if ((vj + 1) % cols == uj) {
            *at = v;
            return 1;
        }
    } else if (uj == vj) {
        *vertical = 1;
        if ((ua + 1) % rows == va) {
            *at = u;
            return 1;
        }
        if ((va + 1) % rows == ua) {
            *at = v;
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ verifier */

themis_status_t themis_ham_verify(uint32_t rows, uint32_t cols, const uint32_t *const cycle[2],
                                  char *msg, size_t len)
{
    if (rows < 3 || cols < 3) {
        set_msg(msg, len, "%ux%u torus: a dimension below 3 has no two distinct neighbours", rows,
                cols);
        return THEMIS_ERR_UNSUPPORTED;
    }
    if ((uint64_t)rows * cols > THEMIS_HAM_MAX_NODES || NULL == cycle || NULL == cycle[0] ||
        NULL == cycle[1]) {
        set_msg(msg, len, "%ux%u torus: too large or no cycles", rows, cols);
        return THEMIS_ERR_INVALID;
    }
    uint32_t n = rows * cols;
    uint8_t *seen = calloc(n, 1);
    uint8_t *used = calloc(2 * (size_t)n, 1); /* [2u] right edge of u, [2u+1] down edge */
    if (NULL == seen || NULL == used) {
        free(seen);
        free(used);
        set_msg(msg, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    for (int k = 0; k < 2 && THEMIS_OK == st; k++) {
        memset(seen, 0, n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u = cycle[k][i], v = cycle[k][(i + 1) % n];
            int vertical;
            uint32_t at;
            if (u >= n || v >= n) {
                set_msg(msg, len, "cycle %d: step %u names node %u of %u", k, i,
                        (u >= n) ? u : v, n);
                st = THEMIS_ERR_INVALID;
            } else if (seen[u]) {
                set_msg(msg, len, "cycle %d: node %u (row %u, col %u) visited twice", k, u,
                        u / cols, u % cols);
                st = THEMIS_ERR_INVALID;
            } else if (!torus_edge(rows, cols, u, v, &vertical, &at)) {
                set_msg(msg, len, "cycle %d: step %u: nodes %u and %u are not torus neighbours",
                        k, i, u, v);
                st = THEMIS_ERR_INVALID;
            } else if (used[2 * (size_t)at + vertical]) {
                set_msg(msg, len, "cycle %d: edge %u-%u already used by cycle %d", k, u, v,
                        used[2 * (size_t)at + vertical] - 1);
                st = THEMIS_ERR_INVALID;
            }
            if (THEMIS_OK != st) {
                break;
            }
            seen[u] = 1;
            used[2 * (size_t)at + vertical] = (uint8_t)(k + 1);
        }
    }
    /* Passing means 2n neighbour steps over 2n distinct edges, and the
     * torus has exactly 2n edges: each is used once, by one cycle. */
    free(seen);
    free(used);
    return st;
}

/* ------------------------------------------------------------ BAE */

/* The two cycles on the torus, or on its transpose mapped back. */
static void bae_fill(uint32_t rows, uint32_t cols, int transposed, uint32_t *c0, uint32_t *c1)
{
    uint32_t r = transposed ? cols : rows, c = transposed ? rows : cols;
    uint32_t n = r * c;
    for (uint32_t x = 0; x < n; x++) {
        uint32_t x1 = x / c, x0 = x % c;
        uint64_t diag = (uint64_t)x1 * (c - 1) + x0;
        uint32_t a0 = x1, j0 = (uint32_t)(diag % c);  /* (row, col) on the r x c torus */
        uint32_t a1 = (uint32_t)(diag % r), j1 = x1 % c;
        if (transposed) {
            c0[x] = j0 * cols + a0;
            c1[x] = j1 * cols + a1;
        } else {
            c0[x] = a0 * cols + j0;
            c1[x] = a1 * cols + j1;
        }
    }
}

/* ------------------------------------------------------------ colourings */

typedef struct {
    uint32_t rows, cols;
    uint8_t *hc, *vc;   /* [rows * cols] */
} colouring_t;

static void col_free(colouring_t *g)
{
    free(g->hc);
    free(g->vc);
    memset(g, 0, sizeof(*g));
}

static themis_status_t col_alloc(colouring_t *g, uint32_t rows, uint32_t cols)
{
    g->rows = rows;
    g->cols = cols;
    g->hc = calloc((size_t)rows * cols, 1);
    g->vc = calloc((size_t)rows * cols, 1);
    if (NULL == g->hc || NULL == g->vc) {
        col_free(g);
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

/* Colour the edges of cycles c0, c1 (already known to be neighbour walks). */
static void col_from_cycles(colouring_t *g, const uint32_t *c0, const uint32_t *c1)
{
    uint32_t n = g->rows * g->cols;
    const uint32_t *cyc[2] = {c0, c1};
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < n; i++) {
            int vertical = 0;
            uint32_t at = 0;
            if (torus_edge(g->rows, g->cols, cyc[k][i], cyc[k][(i + 1) % n], &vertical, &at)) {
                (vertical ? g->vc : g->hc)[at] = (uint8_t)k;
            }
        }
    }
}

/* Right and down edges swap roles on the transposed torus. */
static themis_status_t col_transpose(const colouring_t *g, colouring_t *t)
{
    themis_status_t st = col_alloc(t, g->cols, g->rows);
    if (THEMIS_OK != st) {
        return st;
    }
    for (uint32_t a = 0; a < g->rows; a++) {
        for (uint32_t j = 0; j < g->cols; j++) {
            t->hc[j * g->rows + a] = g->vc[a * g->cols + j];
            t->vc[j * g->rows + a] = g->hc[a * g->cols + j];
        }
    }
    return THEMIS_OK;
}

/* Insert `pairs` row pairs (hamiltonian.h) after the last row pair whose
 * vertical edges are in both cycles. */
static themis_status_t col_grow_rows(const colouring_t *g, uint32_t pairs, colouring_t *out)
{
    uint32_t r = g->rows, c = g->cols, a = r;
    for (uint32_t i = r; i-- > 0;) {
        uint32_t zeros = 0;
        for (uint32_t j = 0; j < c; j++) {
            zeros += (0 == g->vc[i * c + j]);
        }
        if (zeros > 0 && zeros < c) {
            a = i;
            break;
        }
    }
    if (a == r) {
        return THEMIS_ERR_INVALID; /* no mixed row pair: cannot happen for our bases */
    }
    themis_status_t st = col_alloc(out, r + 2 * pairs, c);
    if (THEMIS_OK != st) {
        return st;
    }
    const uint8_t *colr = &g->vc[a * c];
    size_t head = (size_t)(a + 1) * c, tail = (size_t)(r - a - 1) * c;
    memcpy(out->hc, g->hc, head);
    memcpy(out->vc, g->vc, head);
    for (uint32_t k = 0; k < pairs; k++) {
        uint8_t *h1 = &out->hc[(a + 1 + 2 * k) * (size_t)c], *v1 = &out->vc[(a + 1 + 2 * k) * (size_t)c];
        for (uint32_t j = 0; j < c; j++) {
            h1[j] = (uint8_t)(1 - colr[j]);
            v1[j] = colr[(j + c - 1) % c];
            h1[c + j] = (uint8_t)(1 - colr[j]);
            v1[c + j] = colr[j];
        }
    }
    memcpy(out->hc + head + 2 * (size_t)pairs * c, g->hc + head, tail);
    memcpy(out->vc + head + 2 * (size_t)pairs * c, g->vc + head, tail);
    return THEMIS_OK;
}

static themis_status_t col_grow_cols(const colouring_t *g, uint32_t pairs, colouring_t *out)
{
    colouring_t t, tg;
    memset(&tg, 0, sizeof(tg));
    themis_status_t st = col_transpose(g, &t);
    if (THEMIS_OK == st) {
        st = col_grow_rows(&t, pairs, &tg);
        col_free(&t);
    }
    if (THEMIS_OK == st) {
        st = col_transpose(&tg, out);
    }
    col_free(&tg);
    return st;
}

/* Trace cycle k from node 0 (first step: right, down, left, up, whichever
 * edge is in k); 0 when it is a Hamiltonian cycle. */
static int col_trace(const colouring_t *g, int k, uint32_t *cyc)
{
    uint32_t r = g->rows, c = g->cols, n = r * c, prev = UINT32_MAX, u = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = u / c, j = u % c;
        uint32_t nb[4] = {a * c + (j + 1) % c, ((a + 1) % r) * c + j, a * c + (j + c - 1) % c,
                          ((a + r - 1) % r) * c + j};
        int in[4] = {g->hc[u] == k, g->vc[u] == k, g->hc[nb[2]] == k, g->vc[nb[3]] == k};
        if (2 != in[0] + in[1] + in[2] + in[3]) {
            return -1;
        }
        cyc[i] = u;
        uint32_t next = UINT32_MAX;
        for (int d = 0; d < 4 && UINT32_MAX == next; d++) {
            if (in[d] && nb[d] != prev) {
                next = nb[d];
            }
        }
        prev = u;
        u = next;
        if (UINT32_MAX == u || (0 == u && i + 1 < n)) {
            return -1; /* closed early: more than one cycle */
        }
    }
    return (0 == u) ? 0 : -1;
}

/* ------------------------------------------------------------ 4x3 base */

typedef struct {
    colouring_t *g;
    uint32_t *path;
    uint8_t *on_path;
    uint32_t *scratch;
    uint64_t visits;
} search_t;

static void search_neighbours(const colouring_t *g, uint32_t u, uint32_t nb[4])
{
    uint32_t r = g->rows, c = g->cols, a = u / c, j = u % c;
    nb[0] = a * c + (j + 1) % c;
    nb[1] = ((a + 1) % r) * c + j;
    nb[2] = a * c + (j + c - 1) % c;
    nb[3] = ((a + r - 1) % r) * c + j;
}

/* Closed path -> colouring with the path as cycle 0; 0 when the rest is a
 * Hamiltonian cycle too. */
static int search_complete(search_t *s)
{
    colouring_t *g = s->g;
    uint32_t n = g->rows * g->cols;
    memset(g->hc, 1, n);
    memset(g->vc, 1, n);
    for (uint32_t i = 0; i < n; i++) {
        int vertical;
        uint32_t at;
        if (!torus_edge(g->rows, g->cols, s->path[i], s->path[(i + 1) % n], &vertical, &at)) {
            return -1;
        }
        (vertical ? g->vc : g->hc)[at] = 0;
    }
    return col_trace(g, 1, s->scratch);
}

static int search_dfs(search_t *s, uint32_t depth)
{
    uint32_t n = s->g->rows * s->g->cols, nb[4];
    s->visits++;
    if (depth == n) {
        return search_complete(s);
    }
    search_neighbours(s->g, s->path[depth - 1], nb);
    for (int d = 0; d < 4; d++) {
        if (!s->on_path[nb[d]]) {
            s->on_path[nb[d]] = 1;
            s->path[depth] = nb[d];
            if (0 == search_dfs(s, depth + 1)) {
                return 0;
            }
            s->on_path[nb[d]] = 0;
        }
    }
    return -1;
}

/* The first decomposition in depth-first order (neighbours right, down,
 * left, up; cycle 0 from node 0) of a small torus.  Only used for the
 * fixed 4x3 base: 12 nodes, so the search is bounded and instant. */
static themis_status_t search_base(uint32_t rows, uint32_t cols, colouring_t *g)
{
    uint32_t n = rows * cols;
    themis_status_t st = col_alloc(g, rows, cols);
    if (THEMIS_OK != st) {
        return st;
    }
    search_t s = {.g = g, .path = calloc(n, sizeof(uint32_t)), .on_path = calloc(n, 1),
                  .scratch = calloc(n, sizeof(uint32_t))};
    if (NULL == s.path || NULL == s.on_path || NULL == s.scratch) {
        st = THEMIS_ERR_NOMEM;
    } else {
        s.path[0] = 0;
        s.on_path[0] = 1;
        st = (0 == search_dfs(&s, 1)) ? THEMIS_OK : THEMIS_ERR_INVALID;
    }
    free(s.path);
    free(s.on_path);
    free(s.scratch);
    if (THEMIS_OK != st) {
        col_free(g);
    }
    return st;
}

/* ------------------------------------------------------------ GROWN */

static themis_status_t grown_base(uint32_t r0, uint32_t c0, colouring_t *g)
{
    if (r0 == c0) { /* 3x3, 4x4: BAE */
        uint32_t n = r0 * c0;
        uint32_t *c0s = malloc(n * sizeof(uint32_t)), *c1s = malloc(n * sizeof(uint32_t));
        themis_status_t st = (NULL == c0s || NULL == c1s) ? THEMIS_ERR_NOMEM
                                                          : col_alloc(g, r0, c0);
        if (THEMIS_OK == st) {
            bae_fill(r0, c0, 0, c0s, c1s);
            col_from_cycles(g, c0s, c1s);
        }
        free(c0s);
        free(c1s);
        return st;
    }
    if (4 == r0) {
        return search_base(4, 3, g);
    }
    colouring_t b;
    themis_status_t st = search_base(4, 3, &b);
    if (THEMIS_OK == st) {
        st = col_transpose(&b, g);
        col_free(&b);
    }
    return st;
}

static themis_status_t grown_build(uint32_t rows, uint32_t cols, uint32_t *c0, uint32_t *c1)
{
    uint32_t r0 = (rows & 1) ? 3 : 4, c0n = (cols & 1) ? 3 : 4;
    colouring_t g, t;
    memset(&t, 0, sizeof(t));
    themis_status_t st = grown_base(r0, c0n, &g);
    if (THEMIS_OK != st) {
        return st;
    }
    if (rows > r0) {
        st = col_grow_rows(&g, (rows - r0) / 2, &t);
        col_free(&g);
        g = t;
        memset(&t, 0, sizeof(t));
    }
    if (THEMIS_OK == st && cols > c0n) {
        st = col_grow_cols(&g, (cols - c0n) / 2, &t);
        col_free(&g);
        g = t;
    }
    if (THEMIS_OK == st && (0 != col_trace(&g, 0, c0) || 0 != col_trace(&g, 1, c1))) {
        st = THEMIS_ERR_INVALID;
    }
    col_free(&g);
    return st;
}

/* ------------------------------------------------------------ public */

themis_status_t themis_ham_build(uint32_t rows, uint32_t cols, themis_ham_t *out, char *msg,
                                 size_t len)
{
    if (NULL == out) {
        set_msg(msg, len, "no output");
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    if (rows < 3 || cols < 3) {
        set_msg(msg, len,
                "%ux%u torus: no two edge-disjoint Hamiltonian cycles (each dimension needs size "
                ">= 3; size 2 has a double edge, size 1 none); use torus2d or Themis",
                rows, cols);
        return THEMIS_ERR_UNSUPPORTED;
    }
    if ((uint64_t)rows * cols > THEMIS_HAM_MAX_NODES) {
        set_msg(msg, len, "%ux%u torus: more than %u nodes", rows, cols, THEMIS_HAM_MAX_NODES);
        return THEMIS_ERR_INVALID;
    }
    uint32_t n = rows * cols;
    out->rows = rows;
    out->cols = cols;
    out->cycle[0] = malloc(n * sizeof(uint32_t));
    out->cycle[1] = malloc(n * sizeof(uint32_t));
    if (NULL == out->cycle[0] || NULL == out->cycle[1]) {
        themis_ham_free(out);
        set_msg(msg, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    if (themis_ham_bae_applies(rows, cols)) {
        out->method = THEMIS_HAM_BAE;
        bae_fill(rows, cols, 0, out->cycle[0], out->cycle[1]);
    } else if (themis_ham_bae_applies(cols, rows)) {
        out->method = THEMIS_HAM_BAE_TRANSPOSED;
        bae_fill(rows, cols, 1, out->cycle[0], out->cycle[1]);
    } else {
        out->method = THEMIS_HAM_GROWN;
        st = grown_build(rows, cols, out->cycle[0], out->cycle[1]);
    }
    if (THEMIS_OK == st) {
        st = themis_ham_verify(rows, cols, (const uint32_t *const *)out->cycle, msg, len);
    } else {
        set_msg(msg, len, "%ux%u torus: %s construction failed: %s", rows, cols,
                themis_ham_method_name(out->method), themis_status_string(st));
    }
    if (THEMIS_OK != st) {
        themis_ham_free(out);
    }
    return st;
}

void themis_ham_free(themis_ham_t *h)
{
    if (NULL == h) {
        return;
    }
    free(h->cycle[0]);
    free(h->cycle[1]);
    memset(h, 0, sizeof(*h));
}
