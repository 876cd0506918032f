/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Graph generators (dimension shapes, meshes, tori, presets) and the
 * specs that name them, and themis_graph_load (a spec or a file).
 */
#include "graph.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster.h"
#include "graph_text.h"

/* ------------------------------------------------------------ generators */

typedef enum {
    PAT_RING,       /* k -> k+1 mod p */
    PAT_NEIGH,      /* k <-> k+1, and p-1 <-> 0 when wrapping with p >= 3 */
    PAT_SHIFT,      /* k -> k+1 .. k+d mod p */
    PAT_ALL         /* every ordered pair */
} pattern_t;

static uint64_t pattern_links(pattern_t pat, uint64_t p, uint64_t d, int wrap)
{
    if (p < 2) {
        return 0;
    }
    switch (pat) {
    case PAT_RING:
        return p;
    case PAT_NEIGH:
        return 2 * (p - 1) + ((wrap && p >= 3) ? 2 : 0);
    case PAT_SHIFT:
        return p * d;
    case PAT_ALL:
        return p * (p - 1);
    }
    return 0;
}

static uint32_t node_at(uint64_t base, uint32_t k, uint64_t stride)
{
    return (uint32_t) (base + (uint64_t) k * stride);
}

/* One dimension's links in every group of a grid (sizes[0] innermost),
 * group by group in the order of their first node.  Pairs of a link and
 * its reverse come together (the file writes them as one "both" line). */
static themis_status_t gen_dim(themis_graph_t *g, const uint32_t *sizes, int ndims, int dim,
                               pattern_t pat, uint32_t d, int wrap, uint64_t bw,
                               themis_time_t lat)
{
    uint64_t stride = 1, total = 1;
    for (int i = 0; i < ndims; i++) {
        if (i < dim) {
            stride *= sizes[i];
        }
        total *= sizes[i];
    }
    uint32_t p = sizes[dim];
    themis_status_t st = THEMIS_OK;
    if (p < 2) {
        return THEMIS_OK;
    }
    for (uint64_t base = 0; base < total && THEMIS_OK == st; base++) {
        if (0 != (base / stride) % p) {
            continue;
        }
        for (uint32_t k = 0; k < p && THEMIS_OK == st; k++) {
            uint32_t here = node_at(base, k, stride);
            uint32_t next = node_at(base, (k + 1) % p, stride);
            switch (pat) {
            case PAT_RING:
                st = themis_graph_add_link(g, here, next, bw, lat);
                break;
            case PAT_NEIGH:
                if (k + 1 < p || (wrap && p >= 3)) {
                    st = themis_graph_add_link(g, here, next, bw, lat);
                    if (THEMIS_OK == st) {
                        st = themis_graph_add_link(g, next, here, bw, lat);
                    }
                }
                break;
            case PAT_SHIFT:
                for (uint32_t s = 1; s <= d && THEMIS_OK == st; s++) {
                    st = themis_graph_add_link(g, here, node_at(base, (k + s) % p, stride), bw,
                                               lat);
                }
                break;
            case PAT_ALL:
                for (uint32_t j = k + 1; j < p && THEMIS_OK == st; j++) {
                    st = themis_graph_add_link(g, here, node_at(base, j, stride), bw, lat);
                    if (THEMIS_OK == st) {
                        st = themis_graph_add_link(g, node_at(base, j, stride), here, bw, lat);
                    }
                }
                break;
            }
        }
    }
    return st;
}

/* Link pattern and per-link bandwidth of one topology dimension: the
 * NPU's aggregate split evenly over its links there. */
static void dim_links(const themis_dim_t *dm, uint32_t degree, pattern_t *pat, uint32_t *d,
                      uint64_t *bw)
{
    uint32_t p = dm->size;
    *d = 0;
    switch (dm->kind) {
    case THEMIS_DIM_RING:
        *pat = PAT_RING;
        *bw = dm->bw_bps;
        return;
    case THEMIS_DIM_BIRING:
        *pat = PAT_NEIGH;
        *bw = (p > 2) ? dm->bw_bps / 2 : dm->bw_bps;
        return;
    case THEMIS_DIM_FC:
        *pat = PAT_ALL;
        *bw = (p > 1) ? dm->bw_bps / (p - 1) : dm->bw_bps;
        return;
    case THEMIS_DIM_SWITCH:
        *pat = PAT_SHIFT;
        *d = (0 == degree || degree > p - 1) ? p - 1 : degree;
        *bw = (*d > 0) ? dm->bw_bps / *d : dm->bw_bps;
        return;
    }
}

static themis_status_t topology_graph(const themis_topology_t *t, uint32_t degree,
                                      themis_graph_t *g, char *why, size_t len)
{
    uint32_t sizes[THEMIS_MAX_DIMS];
    uint64_t nodes = 1, links = 0;
    memset(g, 0, sizeof(*g));
    if (THEMIS_OK != themis_topology_check(t, why, len)) {
        return THEMIS_ERR_INVALID;
    }
    for (int i = 0; i < t->ndims; i++) {
        sizes[i] = t->dims[i].size;
        nodes *= sizes[i];
    }
    if (nodes > THEMIS_GRAPH_MAX_NODES) {
        snprintf(why, len, "too many nodes: %llu (at most %u)", (unsigned long long) nodes,
                 THEMIS_GRAPH_MAX_NODES);
        return THEMIS_ERR_INVALID;
    }
    for (int i = 0; i < t->ndims; i++) {
        pattern_t pat;
        uint32_t d;
        uint64_t bw;
        dim_links(&t->dims[i], degree, &pat, &d, &bw);
        if (0 == bw) {
            snprintf(why, len, "dimension %d: %llu bit/s split over its links rounds to 0", i,
                     (unsigned long long) t->dims[i].bw_bps);
            return THEMIS_ERR_INVALID;
        }
        links += pattern_links(pat, sizes[i], d, 1) * (nodes / sizes[i]);
    }
    if (links > THEMIS_GRAPH_MAX_LINKS) {
        snprintf(why, len, "too many links: %llu (at most %u)", (unsigned long long) links,
                 THEMIS_GRAPH_MAX_LINKS);
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = themis_graph_init(g, (uint32_t) nodes);
    for (int i = 0; i < t->ndims && THEMIS_OK == st; i++) {
        pattern_t pat;
        uint32_t d;
        uint64_t bw;
        dim_links(&t->dims[i], degree, &pat, &d, &bw);
        st = gen_dim(g, sizes, t->ndims, i, pat, d, 1, bw, t->dims[i].step_latency);
    }
    return themis_graph_build_end(g, st, why, len);
}

/* lines:TOPOLOGY: every dimension line (the ranks that differ only in
 * that dimension's coordinate) is one switch node, after the ranks, lines
 * dimension by dimension and by their first rank; each rank is linked
 * both ways to each of its lines' switches at the dimension's per-NPU
 * bandwidth, as a port of that rate.  Dimensions of size 1 have no line. */
static themis_status_t lines_graph(const themis_topology_t *t, themis_graph_t *g, char *why,
                                   size_t len)
{
    uint64_t nranks = 1, nodes, links = 0;
    memset(g, 0, sizeof(*g));
    if (THEMIS_OK != themis_topology_check(t, why, len)) {
        return THEMIS_ERR_INVALID;
    }
    for (int i = 0; i < t->ndims; i++) {
        if (THEMIS_DIM_SWITCH != t->dims[i].kind) {
            snprintf(why, len, "lines: dimension %d is %s; every line is a switch (sw)", i,
                     themis_dim_kind_name(t->dims[i].kind));
            return THEMIS_ERR_INVALID;
        }
        nranks *= t->dims[i].size;
    }
    nodes = nranks;
    for (int i = 0; i < t->ndims && nranks <= THEMIS_GRAPH_MAX_NODES; i++) {
        if (t->dims[i].size > 1) {
            nodes += nranks / t->dims[i].size;
            links += 2 * nranks;
        }
    }
    if (nranks > THEMIS_GRAPH_MAX_NODES || nodes > THEMIS_GRAPH_MAX_NODES ||
        links > THEMIS_GRAPH_MAX_LINKS) {
        snprintf(why, len, "lines: too many nodes or links (at most %u, %u)",
                 THEMIS_GRAPH_MAX_NODES, THEMIS_GRAPH_MAX_LINKS);
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = themis_graph_init(g, (uint32_t) nodes);
    uint32_t sw = (uint32_t) nranks;
    uint64_t stride = 1;
    for (int i = 0; i < t->ndims && THEMIS_OK == st; i++) {
        const themis_dim_t *dm = &t->dims[i];
        for (uint64_t base = 0; dm->size > 1 && base < nranks && THEMIS_OK == st; base++) {
            if (0 != (base / stride) % dm->size) {
                continue;
            }
            st = themis_graph_set_node(g, sw, THEMIS_NODE_SWITCH, THEMIS_GRAPH_NO_HOST);
            for (uint32_t k = 0; k < dm->size && THEMIS_OK == st; k++) {
                uint32_t r = node_at(base, k, stride);
                st = themis_graph_add_link(g, r, sw, dm->bw_bps, dm->step_latency);
                if (THEMIS_OK == st) {
                    st = themis_graph_add_link(g, sw, r, dm->bw_bps, dm->step_latency);
                }
            }
            sw++;
        }
        stride *= dm->size;
    }
    return themis_graph_build_end(g, st, why, len);
}

themis_status_t themis_graph_from_topology(const themis_topology_t *t, uint32_t degree,
                                           themis_graph_t *g)
{
    char why[8];
    return topology_graph(t, degree, g, why, sizeof(why));
}

/* p3 instances: NVLink pairs, 2 = a dual link. */
typedef struct {
    uint8_t a, b, mult;
} nvlink_t;

static const nvlink_t p3_16xlarge[] = {
    {0, 1, 2}, {0, 4, 2}, {1, 3, 2}, {2, 3, 2}, {2, 6, 2}, {4, 5, 2}, {5, 7, 2}, {6, 7, 2},
    {0, 2, 1}, {0, 3, 1}, {1, 2, 1}, {1, 5, 1}, {3, 7, 1}, {4, 6, 1}, {4, 7, 1}, {5, 6, 1},
};
static const nvlink_t p3_8xlarge[] = {
    {0, 1, 2}, {1, 3, 2}, {2, 3, 2}, {0, 2, 1}, {0, 3, 1}, {1, 2, 1},
};

typedef enum {
    SP_RING, SP_BIRING, SP_FC, SP_SWITCH, SP_MESH2D, SP_TORUS2D, SP_MESH3D, SP_TORUS3D,
    SP_HETERO, SP_DIMS, SP_LINES, SP_P3_16, SP_P3_8
} spec_kind_t;

static const struct {
    const char *name;
    spec_kind_t kind;
    int nsizes;     /* sizes after ':'; 0: none (presets), -1: a topology */
} spec_names[] = {
    {"ring", SP_RING, 1},          {"biring", SP_BIRING, 1},    {"fc", SP_FC, 1},
    {"switch", SP_SWITCH, 1},      {"sw", SP_SWITCH, 1},        {"mesh2d", SP_MESH2D, 2},
    {"torus2d", SP_TORUS2D, 2},    {"mesh3d", SP_MESH3D, 3},    {"torus3d", SP_TORUS3D, 3},
    {"mesh2d_hetero", SP_HETERO, 2}, {"dims", SP_DIMS, -1},     {"lines", SP_LINES, -1},
    {"p3.16xlarge", SP_P3_16, 0}, {"p3.8xlarge", SP_P3_8, 0},
};
#define NSPECS ((int) (sizeof(spec_names) / sizeof(spec_names[0])))

/* Everything a spec says, with where it said it (columns in the spec). */
typedef struct {
    int which;                  /* index into spec_names */
    uint32_t sizes[3];
    int nsizes;
    int args_col;
    themis_topology_t topo;
    themis_graph_opts_t o;
    int bw_col, bw2_col, lat_col, degree_col;
    uint32_t *fail_nodes;
    int *fail_node_cols;
    uint32_t nfail_nodes;
    uint32_t (*fail_links)[2];
    int *fail_link_cols;
    uint32_t nfail_links;
} spec_t;

static void spec_free(spec_t *sp)
{
    free(sp->fail_nodes);
    free(sp->fail_node_cols);
    free(sp->fail_links);
    free(sp->fail_link_cols);
}

static int spec_lookup(const char *s, size_t len)
{
    for (int i = 0; i < NSPECS; i++) {
        if (strlen(spec_names[i].name) == len && 0 == strncasecmp(spec_names[i].name, s, len)) {
            return i;
        }
    }
    return -1;
}

/* "N", "WxH" or "XxYxZ" from s[0 .. len), column col. */
static themis_status_t parse_sizes(const char *s, size_t len, int col, spec_t *sp,
                                   themis_parse_error_t *err)
{
    const char *name = spec_names[sp->which].name;
    int want = spec_names[sp->which].nsizes;
    static const char *forms[] = {"", "N", "WxH", "XxYxZ"};
    uint64_t nodes = 1;
    size_t i = 0;
    sp->nsizes = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && 'x' != s[e] && 'X' != s[e]) {
            e++;
        }
        themis_token_t t = {s + i, e - i, 1, col + (int) i};
        uint64_t v = 0;
        if (sp->nsizes == want) {
            themis_set_parse_error(err, 1, col + (int) i - 1, "%s takes %s", name, forms[want]);
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK != themis_graph_parse_uint(&t, 1, THEMIS_GRAPH_MAX_NODES, "size", &v, err)) {
            return THEMIS_ERR_PARSE;
        }
        if (0 == v) {
            themis_set_parse_error(err, 1, t.col, "%s: a size must be >= 1", name);
            return THEMIS_ERR_PARSE;
        }
        nodes *= v;
        if (nodes > THEMIS_GRAPH_MAX_NODES) {
            themis_set_parse_error(err, 1, col, "%s: too many nodes (at most %u)", name,
                    THEMIS_GRAPH_MAX_NODES);
            return THEMIS_ERR_PARSE;
        }
        sp->sizes[sp->nsizes++] = (uint32_t) v;
        i = e + 1;
    }
    if (sp->nsizes != want) {
        themis_set_parse_error(err, 1, col + (int) len, "%s takes %s", name, forms[want]);
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

/* "K+K+..." (pairs: "A-B+A-B...") into a growing array. */
static themis_status_t parse_id_list(const char *s, size_t len, int col, int pairs,
                                     spec_t *sp, themis_parse_error_t *err)
{
    size_t i = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && '+' != s[e]) {
            e++;
        }
        uint64_t v[2] = {0, 0};
        size_t dash = i;
        while (pairs && dash < e && '-' != s[dash]) {
            dash++;
        }
        if (pairs && dash == e) {
            themis_set_parse_error(err, 1, col + (int) i, "faillink wants SRC-DST pairs joined by '+'");
            return THEMIS_ERR_PARSE;
        }
        themis_token_t a = {s + i, (pairs ? dash : e) - i, 1, col + (int) i};
        themis_token_t b = {s + dash + 1, pairs ? e - dash - 1 : 0, 1, col + (int) dash + 1};
        if (THEMIS_OK != themis_graph_parse_uint(&a, 1, THEMIS_GRAPH_MAX_NODES - 1, "node", &v[0], err) ||
            (pairs &&
             THEMIS_OK != themis_graph_parse_uint(&b, 1, THEMIS_GRAPH_MAX_NODES - 1, "node", &v[1], err))) {
            return THEMIS_ERR_PARSE;
        }
        uint32_t n = pairs ? sp->nfail_links : sp->nfail_nodes;
        int *cols = realloc(pairs ? sp->fail_link_cols : sp->fail_node_cols,
                            ((size_t) n + 1) * sizeof(int));
        if (NULL == cols) {
            return THEMIS_ERR_NOMEM;
        }
        if (pairs) {
            sp->fail_link_cols = cols;
            uint32_t (*fl)[2] = realloc(sp->fail_links, ((size_t) n + 1) * sizeof(*fl));
            if (NULL == fl) {
                return THEMIS_ERR_NOMEM;
            }
            sp->fail_links = fl;
            fl[n][0] = (uint32_t) v[0];
            fl[n][1] = (uint32_t) v[1];
            sp->nfail_links++;
        } else {
            sp->fail_node_cols = cols;
            uint32_t *fn = realloc(sp->fail_nodes, ((size_t) n + 1) * sizeof(*fn));
            if (NULL == fn) {
                return THEMIS_ERR_NOMEM;
            }
            sp->fail_nodes = fn;
            fn[n] = (uint32_t) v[0];
            sp->nfail_nodes++;
        }
        cols[n] = col + (int) i;
        i = e + 1;
    }
    return THEMIS_OK;
}

/* One "key=value" option. */
static themis_status_t parse_option(const char *s, size_t len, int col, spec_t *sp,
                                    themis_parse_error_t *err)
{
    char shown[THEMIS_GRAPH_SHOW_MAX + 1];
    const char *eq = memchr(s, '=', len);
    size_t klen = (size_t) (eq - s);
    themis_token_t v = {eq + 1, len - klen - 1, 1, col + (int) klen + 1};
    uint64_t x = 0;
    if (4 == klen && 0 == strncmp(s, "fail", 4)) {
        return parse_id_list(v.p, v.len, v.col, 0, sp, err);
    }
    if (8 == klen && 0 == strncmp(s, "faillink", 8)) {
        return parse_id_list(v.p, v.len, v.col, 1, sp, err);
    }
    if (2 == klen && 0 == strncmp(s, "bw", 2)) {
        sp->bw_col = col;
        return themis_graph_parse_rate(&v, 1, 1, &sp->o.bw_bps, err);
    }
    if (3 == klen && 0 == strncmp(s, "bw2", 3)) {
        sp->bw2_col = col;
        return themis_graph_parse_rate(&v, 1, 1, &sp->o.bw2_bps, err);
    }
    if (3 == klen && 0 == strncmp(s, "lat", 3)) {
        sp->lat_col = col;
        return themis_graph_parse_rate(&v, 1, 0, &sp->o.lat_ps, err);
    }
    if (6 == klen && 0 == strncmp(s, "degree", 6)) {
        if (THEMIS_OK != themis_graph_parse_uint(&v, 1, THEMIS_GRAPH_MAX_NODES, "degree", &x, err)) {
            return THEMIS_ERR_PARSE;
        }
        sp->degree_col = col;     /* degree=0: all peers, as graph.h says */
        sp->o.degree = (uint32_t) x;
        return THEMIS_OK;
    }
    themis_set_parse_error(err, 1, col, "unknown option '%s' (bw, bw2, lat, degree, fail, faillink)",
            themis_graph_show(s, klen, shown));
    return THEMIS_ERR_PARSE;
}

/* NAME[:ARGS][,key=value...]: dims' ARGS may hold ',' (a topology's
 * dimension separator), so ARGS run to the first part with a '='. */
static themis_status_t parse_spec(const char *s, spec_t *sp, themis_parse_error_t *err)
{
    char shown[THEMIS_GRAPH_SHOW_MAX + 1];
    size_t len = strlen(s);
    size_t name_len = strcspn(s, ":,");
    size_t args_end = len;
    sp->which = spec_lookup(s, name_len);
    int nsizes = spec_names[sp->which].nsizes;
    for (size_t i = name_len; i < len; i++) {
        if (',' == s[i]) {
            size_t e = i + 1 + strcspn(s + i + 1, ",");
            if (NULL != memchr(s + i + 1, '=', e - i - 1) || nsizes >= 0) {
                args_end = i;
                break;
            }
        }
    }
    if (0 == nsizes && name_len < args_end) {
        themis_set_parse_error(err, 1, (int) name_len + 1, "%s takes no size", spec_names[sp->which].name);
        return THEMIS_ERR_PARSE;
    }
    if (0 != nsizes && (name_len >= args_end || name_len + 1 == args_end)) {
        themis_set_parse_error(err, 1, (int) name_len + 1, "%s needs %s", spec_names[sp->which].name,
                nsizes < 0 ? ":TOPOLOGY" : 1 == nsizes ? ":N" : 2 == nsizes ? ":WxH" : ":XxYxZ");
        return THEMIS_ERR_PARSE;
    }
    sp->args_col = (int) name_len + 2;
    if (nsizes > 0) {
        if (THEMIS_OK != parse_sizes(s + name_len + 1, args_end - name_len - 1, sp->args_col,
                                     sp, err)) {
            return THEMIS_ERR_PARSE;
        }
    } else if (nsizes < 0) {
        size_t tlen = args_end - name_len - 1;
        char *topo = malloc(tlen + 1);
        if (NULL == topo) {
            return THEMIS_ERR_NOMEM;
        }
        memcpy(topo, s + name_len + 1, tlen);
        topo[tlen] = '\0';
        themis_status_t st = themis_topology_parse(topo, &sp->topo, err);
        free(topo);
        if (THEMIS_OK != st) {
            if (NULL != err) {
                err->line = 1;
                err->column += sp->args_col - 1;
            }
            return THEMIS_ERR_PARSE;
        }
    }
    size_t i = args_end;
    while (i < len) {
        size_t e = i + 1 + strcspn(s + i + 1, ",");
        int col = (int) i + 2;
        if (NULL == memchr(s + i + 1, '=', e - i - 1)) {
            themis_set_parse_error(err, 1, col, "unexpected '%s' (options are key=value)",
                    themis_graph_show(s + i + 1, e - i - 1, shown));
            return THEMIS_ERR_PARSE;
        }
        themis_status_t st = parse_option(s + i + 1, e - i - 1, col, sp, err);
        if (THEMIS_OK != st) {
            return st;
        }
        i = e;
    }
    return THEMIS_OK;
}

/* Options that do not apply to this spec are errors, whether the spec or
 * the caller's defaults (the CLI's --bw ...) give them; columns 1 for the
 * latter. */
static themis_status_t check_keys(const spec_t *sp, const themis_graph_opts_t *def,
                                  themis_parse_error_t *err)
{
    spec_kind_t k = spec_names[sp->which].kind;
    const char *name = spec_names[sp->which].name;
    if ((0 != sp->bw2_col || 0 != def->bw2_bps) && SP_HETERO != k) {
        themis_set_parse_error(err, 1, sp->bw2_col ? sp->bw2_col : 1, "bw2 applies to mesh2d_hetero only");
        return THEMIS_ERR_PARSE;
    }
    if ((0 != sp->degree_col || 0 != def->degree) && SP_SWITCH != k && SP_DIMS != k) {
        themis_set_parse_error(err, 1, sp->degree_col ? sp->degree_col : 1,
                "degree applies to switch and dims only, not %s", name);
        return THEMIS_ERR_PARSE;
    }
    if ((SP_DIMS == k || SP_LINES == k) && (0 != sp->bw_col || 0 != sp->lat_col || 0 != def->bw_bps ||
                         UINT64_MAX != def->lat_ps)) {
        themis_set_parse_error(err, 1, sp->bw_col ? sp->bw_col : sp->lat_col ? sp->lat_col : 1,
                "%s: the topology string gives bandwidths and latencies", name);
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

static themis_status_t build_spec(spec_t *sp, const themis_graph_opts_t *def, themis_graph_t *g,
                                  themis_parse_error_t *err)
{
    spec_kind_t k = spec_names[sp->which].kind;
    int preset = (SP_P3_16 == k || SP_P3_8 == k);
    uint64_t bw = sp->o.bw_bps ? sp->o.bw_bps : def->bw_bps;
    themis_time_t lat = (UINT64_MAX != sp->o.lat_ps) ? sp->o.lat_ps : def->lat_ps;
    uint32_t degree = sp->degree_col ? sp->o.degree : def->degree;
    char why[128];
    themis_status_t st = THEMIS_OK;

    if (0 == bw) {
        bw = preset ? THEMIS_GRAPH_NVLINK_BW_BPS : THEMIS_DEFAULT_NETWORK_BW_BPS;
    }
    if (UINT64_MAX == lat) {
        lat = preset ? THEMIS_GRAPH_NVLINK_LAT_PS : THEMIS_DEFAULT_NETWORK_LAT_PS;
    }
    if (lat > THEMIS_GRAPH_MAX_LAT_PS) {
        themis_set_parse_error(err, 1, sp->lat_col, "latency above 1 s");
        return THEMIS_ERR_PARSE;
    }
    uint64_t bw2 = sp->o.bw2_bps ? sp->o.bw2_bps : def->bw2_bps;
    if (0 == bw2) {
        bw2 = bw / 2;
    }
    if (SP_LINES == k) {
        st = lines_graph(&sp->topo, g, why, sizeof(why));
        if (THEMIS_OK != st) {
            themis_set_parse_error(err, 1, sp->args_col, "%s", why);
        }
        return st;
    }
    if (SP_RING == k || SP_BIRING == k || SP_FC == k || SP_SWITCH == k || SP_DIMS == k) {
        if (SP_DIMS != k) {
            static const themis_dim_kind_t kinds[] = {THEMIS_DIM_RING, THEMIS_DIM_BIRING,
                                                      THEMIS_DIM_FC, THEMIS_DIM_SWITCH};
            memset(&sp->topo, 0, sizeof(sp->topo));
            sp->topo.ndims = 1;
            sp->topo.dims[0].kind = kinds[k - SP_RING];
            sp->topo.dims[0].size = sp->sizes[0];
            sp->topo.dims[0].bw_bps = bw;
            sp->topo.dims[0].step_latency = lat;
        }
        st = topology_graph(&sp->topo, degree, g, why, sizeof(why));
        if (THEMIS_OK != st) {
            themis_set_parse_error(err, 1, sp->args_col, "%s", why);
        }
        return st;
    }
    if (preset) {
        const nvlink_t *pairs = (SP_P3_16 == k) ? p3_16xlarge : p3_8xlarge;
        size_t npairs = (SP_P3_16 == k) ? sizeof(p3_16xlarge) / sizeof(p3_16xlarge[0])
                                        : sizeof(p3_8xlarge) / sizeof(p3_8xlarge[0]);
        if (bw > UINT64_MAX / 2) {
            themis_set_parse_error(err, 1, sp->bw_col, "bandwidth too large for a dual link");
            return THEMIS_ERR_PARSE;
        }
        st = themis_graph_init(g, (SP_P3_16 == k) ? 8 : 4);
        for (size_t i = 0; i < npairs && THEMIS_OK == st; i++) {
            st = themis_graph_add_link(g, pairs[i].a, pairs[i].b, pairs[i].mult * bw, lat);
            if (THEMIS_OK == st) {
                st = themis_graph_add_link(g, pairs[i].b, pairs[i].a, pairs[i].mult * bw, lat);
            }
        }
    } else {
        int wrap = (SP_TORUS2D == k || SP_TORUS3D == k);
        uint64_t nodes = 1, links = 0;
        for (int i = 0; i < sp->nsizes; i++) {
            nodes *= sp->sizes[i];
        }
        for (int i = 0; i < sp->nsizes; i++) {
            links += pattern_links(PAT_NEIGH, sp->sizes[i], 0, wrap) * (nodes / sp->sizes[i]);
        }
        if (links > THEMIS_GRAPH_MAX_LINKS) {
            themis_set_parse_error(err, 1, sp->args_col, "too many links: %llu (at most %u)",
                    (unsigned long long) links, THEMIS_GRAPH_MAX_LINKS);
            return THEMIS_ERR_PARSE;
        }
        st = themis_graph_init(g, (uint32_t) nodes);
        for (int i = 0; i < sp->nsizes && THEMIS_OK == st; i++) {
            uint64_t b = (SP_HETERO == k && 1 == i) ? bw2 : bw;
            if (0 == b) {
                themis_set_parse_error(err, 1, sp->args_col, "bw2 (half of bw by default) is 0");
                themis_graph_free(g);
                return THEMIS_ERR_PARSE;
            }
            st = gen_dim(g, sp->sizes, sp->nsizes, i, PAT_NEIGH, 0, wrap, b, lat);
        }
    }
    if (THEMIS_OK == st) {
        st = themis_graph_finish(g, why, sizeof(why));
    } else {
        snprintf(why, sizeof(why), "out of memory");
    }
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, 1, 1, "%s", why);
        themis_graph_free(g);
    }
    return st;
}

static themis_status_t apply_failures(const spec_t *sp, themis_graph_t *g,
                                      themis_parse_error_t *err)
{
    for (uint32_t i = 0; i < sp->nfail_nodes; i++) {
        if (sp->fail_nodes[i] >= g->nnodes) {
            themis_set_parse_error(err, 1, sp->fail_node_cols[i], "fail: node %u out of range (%u nodes)",
                    sp->fail_nodes[i], g->nnodes);
            return THEMIS_ERR_PARSE;
        }
        g->node_failed[sp->fail_nodes[i]] = 1;
    }
    for (uint32_t i = 0; i < sp->nfail_links; i++) {
        uint32_t l = themis_graph_find_link(g, sp->fail_links[i][0], sp->fail_links[i][1]);
        if (UINT32_MAX == l) {
            themis_set_parse_error(err, 1, sp->fail_link_cols[i], "faillink: no link %u -> %u",
                    sp->fail_links[i][0], sp->fail_links[i][1]);
            return THEMIS_ERR_PARSE;
        }
        g->links[l].failed = 1;
    }
    return THEMIS_OK;
}

themis_status_t themis_graph_load(const char *spec_or_path, const themis_graph_opts_t *opts,
                                  themis_graph_t *g, themis_parse_error_t *err)
{
    themis_graph_opts_t def;
    char shown[THEMIS_GRAPH_SHOW_MAX + 1];
    themis_set_parse_error(err, 0, 0, "%s", "");
    memset(g, 0, sizeof(*g));
    if (NULL == spec_or_path) {
        themis_set_parse_error(err, 0, 0, "no graph given");
        return THEMIS_ERR_INVALID;
    }
    themis_graph_opts_default(&def);
    if (NULL != opts) {
        def = *opts;
    }
    const char *s = spec_or_path;
    size_t name_len = strcspn(s, ":,");
    if (themis_cluster_is_spec(s, name_len)) {
        return themis_cluster_load(s, &def, g, err);
    }
    if (spec_lookup(s, name_len) < 0) {
        char *text = NULL;
        if (0 != def.bw_bps || 0 != def.bw2_bps || UINT64_MAX != def.lat_ps || 0 != def.degree) {
            themis_set_parse_error(err, 0, 0, "bandwidth, latency and degree options do not apply to a file");
            return THEMIS_ERR_INVALID;
        }
        themis_status_t st = themis_read_text_file(s, THEMIS_GRAPH_MAX_FILE_BYTES, "graph file",
                                                   &text, err);
        if (THEMIS_ERR_IO == st && NULL != strchr(s, ':')) {
            themis_set_parse_error(err, 1, 1, "unknown graph '%s' (ring biring fc switch mesh2d torus2d "
                    "mesh3d torus3d mesh2d_hetero dims lines p3.16xlarge p3.8xlarge cluster leafspine "
                    "rail)",
                    themis_graph_show(s, name_len, shown));
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK == st) {
            st = themis_graph_parse(text, g, err);
            free(text);
        }
        return st;
    }
    spec_t sp;
    memset(&sp, 0, sizeof(sp));
    themis_graph_opts_default(&sp.o);
    themis_status_t st = parse_spec(s, &sp, err);
    if (THEMIS_OK == st) {
        st = check_keys(&sp, &def, err);
    }
    if (THEMIS_OK == st) {
        st = build_spec(&sp, &def, g, err);
    }
    if (THEMIS_OK == st) {
        st = apply_failures(&sp, g, err);
        if (THEMIS_OK != st) {
            themis_graph_free(g);
        }
    }
    if (THEMIS_ERR_NOMEM == st) {
        themis_set_parse_error(err, 0, 0, "out of memory");
    }
    spec_free(&sp);
    return st;
}
