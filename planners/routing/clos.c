/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Clos model, its flows and the ToR-aware ring order (clos.h).
 */
#include "clos.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"
#include "util.h"

/* Largest traffic file read: the paper's biggest is about 70 KB. */
#define PAIRS_FILE_MAX_BYTES (64u << 20)
/* Files of one directory: the paper's have at most 5. */
#define PAIRS_MAX_FILES 4096u

themis_status_t themis_clos_init(themis_clos_t *c, uint32_t ntors, uint32_t nspines,
                                 uint32_t hosts_per_tor)
{
    memset(c, 0, sizeof(*c));
    if (0 == ntors || ntors > THEMIS_CLOS_MAX_TORS || 0 == nspines ||
        nspines > THEMIS_CLOS_MAX_SPINES || 0 == hosts_per_tor ||
        (uint64_t) ntors * hosts_per_tor > THEMIS_CLOS_MAX_HOSTS) {
        return THEMIS_ERR_INVALID;
    }
    c->ntors = ntors;
    c->nspines = nspines;
    c->host_base = ntors + nspines;
    c->hosts_per_tor = hosts_per_tor;
    c->nhosts = ntors * hosts_per_tor;
    c->link_bps = THEMIS_DEFAULT_NETWORK_BW_BPS;
    c->host_bps = THEMIS_DEFAULT_NETWORK_BW_BPS;
    c->spine_failed = calloc(nspines, 1);
    c->link_failed = calloc((size_t) ntors * nspines, 1);
    if (NULL == c->spine_failed || NULL == c->link_failed) {
        themis_clos_free(c);
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

themis_status_t themis_clos_set_host_map(themis_clos_t *c, uint32_t nhosts,
                                         const uint32_t *tor_of)
{
    if (0 == nhosts || nhosts > THEMIS_CLOS_MAX_HOSTS || NULL == tor_of) {
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t h = 0; h < nhosts; h++) {
        if (tor_of[h] >= c->ntors) {
            return THEMIS_ERR_INVALID;
        }
    }
    uint32_t *map = malloc((size_t) nhosts * sizeof(*map));
    if (NULL == map) {
        return THEMIS_ERR_NOMEM;
    }
    memcpy(map, tor_of, (size_t) nhosts * sizeof(*map));
    free(c->host_tor);
    c->host_tor = map;
    c->nhosts = nhosts;
    c->hosts_per_tor = 0;
    return THEMIS_OK;
}

void themis_clos_free(themis_clos_t *c)
{
    free(c->host_tor);
    free(c->spine_failed);
    free(c->link_failed);
    memset(c, 0, sizeof(*c));
}

uint32_t themis_clos_host_tor(const themis_clos_t *c, uint32_t host)
{
    if (host < c->host_base || host - c->host_base >= c->nhosts) {
        return UINT32_MAX;
    }
    uint32_t h = host - c->host_base;
    return (NULL != c->host_tor) ? c->host_tor[h] : h / c->hosts_per_tor;
}

int themis_clos_usable(const themis_clos_t *c, uint32_t tor, uint32_t spine)
{
    return !c->spine_failed[spine] && !c->link_failed[(size_t) tor * c->nspines + spine];
}

themis_status_t themis_clos_fail_top_spines(themis_clos_t *c, uint32_t k)
{
    if (k > c->nspines) {
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t s = c->nspines - k; s < c->nspines; s++) {
        c->spine_failed[s] = 1;
    }
    return THEMIS_OK;
}

uint32_t themis_clos_working_spines(const themis_clos_t *c)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < c->nspines; s++) {
        n += !c->spine_failed[s];
    }
    return n;
}

void themis_clos_flows_init(themis_clos_flows_t *f)
{
    memset(f, 0, sizeof(*f));
}

void themis_clos_flows_free(themis_clos_flows_t *f)
{
    free(f->flows);
    memset(f, 0, sizeof(*f));
}

static themis_status_t flows_push(themis_clos_flows_t *f, const themis_clos_flow_t *fl)
{
    if (f->n == f->cap) {
        if (f->cap >= THEMIS_CLOS_MAX_FLOWS) {
            return THEMIS_ERR_INVALID;
        }
        if (0 != themis_grow((void **) &f->flows, f->n, &f->cap, sizeof(*f->flows), 256u)) {
            return THEMIS_ERR_NOMEM;
        }
    }
    f->flows[f->n++] = *fl;
    return THEMIS_OK;
}

themis_status_t themis_clos_flows_add(themis_clos_flows_t *f, const themis_clos_t *c,
                                      uint32_t src, uint32_t dst)
{
    themis_clos_flow_t fl = {src, dst, themis_clos_host_tor(c, src), themis_clos_host_tor(c, dst)};
    if (UINT32_MAX == fl.src_tor || UINT32_MAX == fl.dst_tor) {
        return THEMIS_ERR_INVALID;
    }
    return flows_push(f, &fl);
}

/* A decimal token below 2^32 (the node and ToR columns). */
static int token_u32(const themis_token_t *t, uint32_t *v)
{
    uint64_t x = 0;
    if (0 == t->len || t->len > 10) {
        return -1;
    }
    for (size_t i = 0; i < t->len; i++) {
        if (!isdigit((unsigned char) t->p[i])) {
            return -1;
        }
        x = 10 * x + (uint64_t) (t->p[i] - '0');
    }
    if (x > UINT32_MAX) {
        return -1;
    }
    *v = (uint32_t) x;
    return 0;
}

themis_status_t themis_clos_flows_load_file(themis_clos_flows_t *f, const themis_clos_t *c,
                                            const char *path, themis_parse_error_t *err)
{
    char *text = NULL;
    themis_status_t st = themis_read_text_file(path, PAIRS_FILE_MAX_BYTES, "traffic file",
                                               &text, err);
    if (THEMIS_OK != st) {
        return st;
    }
    int line = 0;
    for (const char *p = text; '\0' != *p && THEMIS_OK == st;) {
        const char *eol = strchr(p, '\n');
        size_t len = (NULL != eol) ? (size_t) (eol - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        size_t use = (NULL != hash) ? (size_t) (hash - p) : len;
        themis_token_t tok[8];
        line++;
        int n = themis_split_ws(p, use, line, tok, 8);
        p += len + (NULL != eol);
        if (0 == n) {
            continue;
        }
        if (n < 4) {
            themis_set_parse_error(err, line, 1, "want src dst src_tor dst_tor ...%s", "");
            st = THEMIS_ERR_PARSE;
            break;
        }
        uint32_t v[4];
        for (int i = 0; i < 4; i++) {
            if (0 != token_u32(&tok[i], &v[i])) {
                if (NULL != err) {
                    err->line = line;
                    err->column = tok[i].col;
                    snprintf(err->message, sizeof(err->message), "not a node id: '%.*s'",
                             (int) (tok[i].len > 40 ? 40 : tok[i].len), tok[i].p);
                }
                st = THEMIS_ERR_PARSE;
                break;
            }
        }
        if (THEMIS_OK != st) {
            break;
        }
        themis_clos_flow_t fl = {v[0], v[1], themis_clos_host_tor(c, v[0]),
                                 themis_clos_host_tor(c, v[1])};
        if (v[0] == v[1]) {
            /* a host's traffic to itself never leaves it: not a flow */
            themis_set_parse_error(err, line, tok[1].col, "a flow from a node to itself%s", "");
            st = THEMIS_ERR_PARSE;
        } else if (UINT32_MAX == fl.src_tor || UINT32_MAX == fl.dst_tor) {
            themis_set_parse_error(err, line, tok[UINT32_MAX == fl.src_tor ? 0 : 1].col,
                                   "not a host of the Clos%s", "");
            st = THEMIS_ERR_PARSE;
        } else if (fl.src_tor != v[2] || fl.dst_tor != v[3]) {
            themis_set_parse_error(err, line, tok[fl.src_tor != v[2] ? 2 : 3].col,
                                   "ToR column disagrees with the Clos's host map%s", "");
            st = THEMIS_ERR_PARSE;
        } else {
            st = flows_push(f, &fl);
        }
    }
    free(text);
    return st;
}

/* Natural order: digit runs compare as numbers (job_2 before job_10),
 * then byte order, so the order is total and deterministic. */
static int natural_cmp(const void *pa, const void *pb)
{
    const char *a = *(const char *const *) pa, *b = *(const char *const *) pb;
    while ('\0' != *a && '\0' != *b) {
        if (isdigit((unsigned char) *a) && isdigit((unsigned char) *b)) {
            while ('0' == *a) {
                a++;
            }
            while ('0' == *b) {
                b++;
            }
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char) a[la])) {
                la++;
            }
            while (isdigit((unsigned char) b[lb])) {
                lb++;
            }
            if (la != lb) {
                return la < lb ? -1 : 1;
            }
            int d = strncmp(a, b, la);
            if (0 != d) {
                return d;
            }
            a += la;
            b += lb;
        } else {
            if (*a != *b) {
                return (unsigned char) *a < (unsigned char) *b ? -1 : 1;
            }
            a++;
            b++;
        }
    }
    if ('\0' != *a || '\0' != *b) {
        return '\0' == *a ? -1 : 1;
    }
    return strcmp(*(const char *const *) pa, *(const char *const *) pb);
}

themis_status_t themis_clos_flows_load_pairs(themis_clos_flows_t *f, const themis_clos_t *c,
                                             const char *dir, themis_parse_error_t *err)
{
    DIR *d = opendir(dir);
    if (NULL == d) {
        themis_set_parse_error(err, 0, 0, "cannot open directory: %s", strerror(errno));
        return THEMIS_ERR_IO;
    }
    char **names = NULL;
    uint32_t n = 0;
    themis_status_t st = THEMIS_OK;
    struct dirent *e;
    while (NULL != (e = readdir(d)) && THEMIS_OK == st) {
        size_t len = strlen(e->d_name);
        if (len < 5 || 0 != strcmp(e->d_name + len - 4, ".txt") || '.' == e->d_name[0]) {
            continue;
        }
        char **p = (n < PAIRS_MAX_FILES) ? realloc(names, (n + 1) * sizeof(*names)) : NULL;
        if (NULL == p) {
            st = (n < PAIRS_MAX_FILES) ? THEMIS_ERR_NOMEM : THEMIS_ERR_INVALID;
            break;
        }
        names = p;
        if (NULL == (names[n] = strdup(e->d_name))) {
            st = THEMIS_ERR_NOMEM;
            break;
        }
        n++;
    }
    closedir(d);
    if (THEMIS_OK == st && 0 == n) {
        themis_set_parse_error(err, 0, 0, "no *.txt traffic files in the directory%s", "");
        st = THEMIS_ERR_IO;
    }
    if (THEMIS_OK == st) {
        qsort(names, n, sizeof(*names), natural_cmp);
    }
    for (uint32_t i = 0; i < n && THEMIS_OK == st; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        if (NULL == path) {
            st = THEMIS_ERR_NOMEM;
            break;
        }
        snprintf(path, len, "%s/%s", dir, names[i]);
        st = themis_clos_flows_load_file(f, c, path, err);
        if (THEMIS_OK != st && NULL != err) {
            char msg[sizeof(err->message)];
            snprintf(msg, sizeof(msg), "%s", err->message);
            snprintf(err->message, sizeof(err->message), "%.60s: %.95s", names[i], msg);
        }
        free(path);
    }
    for (uint32_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    return st;
}

int themis_clos_pair_cmp(const void *pa, const void *pb)
{
    const themis_clos_pair_t *x = pa, *y = pb;
    if (x->a != y->a) {
        return x->a < y->a ? -1 : 1;
    }
    if (x->b != y->b) {
        return x->b < y->b ? -1 : 1;
    }
    return (x->i > y->i) - (x->i < y->i);
}

static int index_cmp(const void *pa, const void *pb)
{
    const themis_clos_pair_t *x = pa, *y = pb;
    return (x->i > y->i) - (x->i < y->i);
}

themis_status_t themis_clos_flows_from_xfer(themis_clos_flows_t *f, const themis_clos_t *c,
                                            const themis_xfer_sched_t *s,
                                            const uint32_t *host_of)
{
    if (NULL == s || NULL == host_of) {
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t r = 0; r < s->nranks; r++) {
        if (UINT32_MAX == themis_clos_host_tor(c, host_of[r])) {
            return THEMIS_ERR_INVALID;
        }
    }
    themis_clos_pair_t *p = malloc((size_t) (s->nxfers + 1) * sizeof(*p));
    if (NULL == p) {
        return THEMIS_ERR_NOMEM;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nxfers; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        if (x->src != x->dst && x->src < s->nranks && x->dst < s->nranks) {
            p[n++] = (themis_clos_pair_t) {x->src, x->dst, i};
        }
    }
    /* sort by pair, keep each pair's first transfer, back to that order */
    qsort(p, n, sizeof(*p), themis_clos_pair_cmp);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (0 == m || p[m - 1].a != p[i].a || p[m - 1].b != p[i].b) {
            p[m++] = p[i];
        }
    }
    qsort(p, m, sizeof(*p), index_cmp);
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = 0; i < m && THEMIS_OK == st; i++) {
        st = themis_clos_flows_add(f, c, host_of[p[i].a], host_of[p[i].b]);
    }
    free(p);
    return st;
}

/* Inter-ToR edges of the ring order[0] -> order[1] -> ... -> order[0]. */
static uint32_t ring_crossings(const themis_clos_t *c, const uint32_t *host_of,
                               const uint32_t *order, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; n > 1 && i < n; i++) {
        uint32_t a = order[i], b = order[(i + 1) % n];
        k += themis_clos_host_tor(c, host_of[a]) != themis_clos_host_tor(c, host_of[b]);
    }
    return k;
}

themis_status_t themis_clos_ring_order(const themis_clos_t *c, const uint32_t *host_of,
                                       uint32_t n, uint32_t *order, uint32_t *before,
                                       uint32_t *after)
{
    if (NULL == host_of || NULL == order || 0 == n) {
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (UINT32_MAX == themis_clos_host_tor(c, host_of[r])) {
            return THEMIS_ERR_INVALID;
        }
    }
    /* counting sort by ToR: stable, so ranks stay in rank order within a
     * ToR and ToRs come in id order (the deterministic tie-break) */
    uint32_t *start = calloc((size_t) c->ntors + 1, sizeof(*start));
    if (NULL == start) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < n; r++) {
        start[themis_clos_host_tor(c, host_of[r]) + 1]++;
    }
    for (uint32_t t = 0; t < c->ntors; t++) {
        start[t + 1] += start[t];
    }
    for (uint32_t r = 0; r < n; r++) {
        order[start[themis_clos_host_tor(c, host_of[r])]++] = r;
    }
    free(start);
    if (NULL != before) {
        uint32_t *id = malloc((size_t) n * sizeof(*id));
        if (NULL == id) {
            return THEMIS_ERR_NOMEM;
        }
        for (uint32_t r = 0; r < n; r++) {
            id[r] = r;
        }
        *before = ring_crossings(c, host_of, id, n);
        free(id);
    }
    if (NULL != after) {
        *after = ring_crossings(c, host_of, order, n);
    }
    return THEMIS_OK;
}
