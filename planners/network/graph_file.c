/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The graph file format (graph.h): its parser and the messages the
 * spec parser (graph_spec.c) shares.
 */
#include "graph.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph_text.h"
#include "util.h"

const char *themis_graph_show(const char *p, size_t len, char buf[THEMIS_GRAPH_SHOW_MAX + 1])
{
    return themis_show_field(p, len, buf, THEMIS_GRAPH_SHOW_MAX);
}

int themis_graph_tok_is(const themis_token_t *t, const char *s)
{
    return strlen(s) == t->len && 0 == strncasecmp(t->p, s, t->len);
}

/* ------------------------------------------------------------ file format */

/* An unsigned decimal of at most `max`, from a whole token. */
themis_status_t themis_graph_parse_uint(const themis_token_t *t, int line, uint64_t max,
                                        const char *what, uint64_t *v, themis_parse_error_t *err)
{
    char shown[THEMIS_GRAPH_SHOW_MAX + 1];
    uint64_t x = 0;
    if (0 == t->len) {
        themis_set_parse_error(err, line, t->col, "missing %s", what);
        return THEMIS_ERR_PARSE;
    }
    for (size_t i = 0; i < t->len; i++) {
        if (!isdigit((unsigned char) t->p[i])) {
            themis_set_parse_error(err, line, t->col + (int) i, "%s '%s' is not a number", what,
                    themis_graph_show(t->p, t->len, shown));
            return THEMIS_ERR_PARSE;
        }
        x = x * 10 + (uint64_t) (t->p[i] - '0');
        if (x > max) {
            themis_set_parse_error(err, line, t->col, "%s '%s' is too large (at most %llu)", what,
                    themis_graph_show(t->p, t->len, shown), (unsigned long long) max);
            return THEMIS_ERR_PARSE;
        }
    }
    *v = x;
    return THEMIS_OK;
}

/* A bandwidth or latency token through the project's value parsers. */
themis_status_t themis_graph_parse_rate(const themis_token_t *t, int line, int is_bw, uint64_t *v,
                                        themis_parse_error_t *err)
{
    char buf[128], shown[THEMIS_GRAPH_SHOW_MAX + 1];
    const char *end = buf;
    themis_status_t st = THEMIS_ERR_PARSE;
    if (t->len < sizeof(buf)) {
        memcpy(buf, t->p, t->len);
        buf[t->len] = '\0';
        st = is_bw ? themis_parse_bandwidth(buf, v, &end) : themis_parse_latency(buf, v, &end);
        if (THEMIS_OK == st && '\0' != *end) {
            st = THEMIS_ERR_PARSE;
        }
    }
    if (THEMIS_OK != st && is_bw && t->len < sizeof(buf) && '\0' == *end &&
        isdigit((unsigned char) buf[strspn(buf, ".")])
        && !isdigit((unsigned char) buf[strspn(buf, "0.")])) {
        themis_set_parse_error(err, line, t->col, "bandwidth '%s' must be > 0", themis_graph_show(t->p, t->len, shown));
        return THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK != st) {
        /* A number too large for 64 bits (may be longer than buf) is out
         * of range, not malformed. */
        char *whole = malloc(t->len + 1);
        const char *why = NULL;
        if (NULL != whole) {
            memcpy(whole, t->p, t->len);
            whole[t->len] = '\0';
            why = themis_parse_value_why(whole, is_bw);
            free(whole);
        }
        if (NULL != why && 0 == strcmp(why, "number too large")) {
            themis_set_parse_error(err, line, t->col, "%s '%s': number out of range (too large)",
                    is_bw ? "bandwidth" : "latency", themis_graph_show(t->p, t->len, shown));
            return THEMIS_ERR_PARSE;
        }
        themis_set_parse_error(err, line, t->col + (int) (end - buf), "%s '%s' is not %s", is_bw ? "bandwidth"
                : "latency", themis_graph_show(t->p, t->len, shown), is_bw
                ? "a rate > 0 (e.g. 100Gb, 25GB/s)" : "a time (e.g. 500ns, 2us)");
        return THEMIS_ERR_PARSE;
    }
    if (!is_bw && *v > THEMIS_GRAPH_MAX_LAT_PS) {
        themis_set_parse_error(err, line, t->col, "latency '%s' is above 1 s", themis_graph_show(t->p, t->len, shown));
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

typedef struct {
    int line, col;
} pos_t;

typedef struct {
    uint32_t src, dst;
    pos_t at;
} fail_link_t;

/* The parser's state: the graph under construction holds every id
 * (THEMIS_GRAPH_MAX_NODES nodes) until the real count is known. */
typedef struct {
    themis_graph_t *g;
    pos_t *link_pos;
    fail_link_t *fails;
    uint32_t nfails, cap_fails;
    uint64_t declared;          /* 0: no "nodes" line */
    int packet_line;            /* 0: no "packet" line */
    int *decl_line;             /* [THEMIS_GRAPH_MAX_NODES] line declaring a node, or NULL */
    int first_decl, first_host; /* lines of the first declaration, the first with a host */
    uint32_t max_id;
    pos_t max_at;               /* where max_id first appeared */
    int any_id;
} parse_state_t;

static themis_status_t use_id(parse_state_t *ps, const themis_token_t *t, int line, uint32_t *id,
                              themis_parse_error_t *err)
{
    uint64_t v = 0;
    if (THEMIS_OK != themis_graph_parse_uint(t, line, THEMIS_GRAPH_MAX_NODES - 1, "node", &v, err)) {
        return THEMIS_ERR_PARSE;
    }
    if (0 != ps->declared && v >= ps->declared) {
        themis_set_parse_error(err, line, t->col, "node %llu out of range (nodes %llu)", (unsigned long long) v,
                (unsigned long long) ps->declared);
        return THEMIS_ERR_PARSE;
    }
    if (!ps->any_id || v > ps->max_id) {
        ps->max_id = (uint32_t) v;
        ps->max_at.line = line;
        ps->max_at.col = t->col;
        ps->any_id = 1;
    }
    *id = (uint32_t) v;
    return THEMIS_OK;
}

static themis_status_t add_parsed_link(parse_state_t *ps, uint32_t a, uint32_t b, uint64_t bw,
                                       themis_time_t lat, pos_t at, themis_parse_error_t *err)
{
    themis_graph_t *g = ps->g;
    uint32_t old_cap = g->cap_links;
    themis_status_t st = themis_graph_add_link(g, a, b, bw, lat);
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, at.line, at.col, THEMIS_ERR_NOMEM == st ? "out of memory"
                : "more than %u links", THEMIS_GRAPH_MAX_LINKS);
        return THEMIS_ERR_NOMEM == st ? st : THEMIS_ERR_PARSE;
    }
    if (g->cap_links != old_cap) {
        pos_t *n = realloc(ps->link_pos, (size_t) g->cap_links * sizeof(*n));
        if (NULL == n) {
            themis_set_parse_error(err, at.line, at.col, "out of memory");
            return THEMIS_ERR_NOMEM;
        }
        ps->link_pos = n;
    }
    ps->link_pos[g->nlinks - 1] = at;
    return THEMIS_OK;
}

/* "KIND K[-L] [host H]". */
static themis_status_t parse_decl(parse_state_t *ps, uint32_t kind, const themis_token_t *t, int n,
                                  int line, themis_parse_error_t *err)
{
    char shown[THEMIS_GRAPH_SHOW_MAX + 1];
    uint32_t a, b;
    uint64_t host = THEMIS_GRAPH_NO_HOST;
    if (n < 2 || 3 == n || n > 4 || (4 == n && !themis_graph_tok_is(&t[2], "host"))) {
        int k = n < 2 ? 0 : 3 == n ? 2 : n > 4 ? 4 : 2;
        themis_set_parse_error(err, line, n < 2 ? t[0].col + (int) t[0].len : t[k].col,
                "expected '%s K' or '%s K-L', then optionally 'host H'", themis_graph_kind_names[kind],
                themis_graph_kind_names[kind]);
        return THEMIS_ERR_PARSE;
    }
    const char *dash = memchr(t[1].p, '-', t[1].len);
    themis_token_t lo = t[1], hi = t[1];
    if (NULL != dash) {
        lo.len = (size_t) (dash - t[1].p);
        hi.p = dash + 1;
        hi.len = t[1].len - lo.len - 1;
        hi.col = t[1].col + (int) lo.len + 1;
    }
    if (THEMIS_OK != use_id(ps, &lo, line, &a, err) || THEMIS_OK != use_id(ps, &hi, line, &b, err)) {
        return THEMIS_ERR_PARSE;
    }
    if (b < a) {
        themis_set_parse_error(err, line, t[1].col, "node range '%s' runs backwards",
                themis_graph_show(t[1].p, t[1].len, shown));
        return THEMIS_ERR_PARSE;
    }
    if (4 == n && THEMIS_OK != themis_graph_parse_uint(&t[3], line, THEMIS_GRAPH_MAX_NODES - 1, "host", &host,
                                          err)) {
        return THEMIS_ERR_PARSE;
    }
    if (NULL == ps->decl_line) {
        ps->decl_line = calloc(THEMIS_GRAPH_MAX_NODES, sizeof(int));
        if (NULL == ps->decl_line) {
            themis_set_parse_error(err, line, t[0].col, "out of memory");
            return THEMIS_ERR_NOMEM;
        }
    }
    for (uint32_t v = a; v <= b; v++) {
        if (0 != ps->decl_line[v]) {
            themis_set_parse_error(err, line, t[1].col, "node %u declared twice (first at line %d)", v,
                    ps->decl_line[v]);
            return THEMIS_ERR_PARSE;
        }
        ps->decl_line[v] = line;
        ps->first_decl = 0 == ps->first_decl ? line : ps->first_decl;
        ps->first_host = (0 == ps->first_host && 4 == n) ? line : ps->first_host;
        if (THEMIS_OK != themis_graph_set_node(ps->g, v, (themis_node_kind_t) kind,
                                               (uint32_t) host)) {
            themis_set_parse_error(err, line, t[0].col, "out of memory");
            return THEMIS_ERR_NOMEM;
        }
    }
    return THEMIS_OK;
}

static themis_status_t parse_line(parse_state_t *ps, const themis_token_t *t, int n, int line,
                                  themis_parse_error_t *err)
{
    char shown[THEMIS_GRAPH_SHOW_MAX + 1];
    uint32_t a, b;
    for (uint32_t k = 0; k < THEMIS_GRAPH_NKINDS; k++) {
        if (themis_graph_tok_is(&t[0], themis_graph_kind_names[k])) {
            return parse_decl(ps, k, t, n, line, err);
        }
    }
    if (themis_graph_tok_is(&t[0], "nodes")) {
        uint64_t v = 0;
        if (n != 2) {
            themis_set_parse_error(err, line, n < 2 ? t[0].col + (int) t[0].len : t[2].col,
                    "expected 'nodes N'");
            return THEMIS_ERR_PARSE;
        }
        if (0 != ps->declared) {
            themis_set_parse_error(err, line, t[0].col, "'nodes' given twice");
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK != themis_graph_parse_uint(&t[1], line, THEMIS_GRAPH_MAX_NODES, "node count", &v, err)) {
            return THEMIS_ERR_PARSE;
        }
        if (0 == v) {
            themis_set_parse_error(err, line, t[1].col, "node count must be >= 1");
            return THEMIS_ERR_PARSE;
        }
        if (ps->any_id && ps->max_id >= v) {
            themis_set_parse_error(err, line, t[1].col, "nodes %llu, but line %d names node %u",
                    (unsigned long long) v, ps->max_at.line, ps->max_id);
            return THEMIS_ERR_PARSE;
        }
        ps->declared = v;
        return THEMIS_OK;
    }
    if (themis_graph_tok_is(&t[0], "packet")) {
        uint64_t payload = 0, header = 0;
        if (3 != n) {
            themis_set_parse_error(err, line, n < 3 ? t[n - 1].col + (int) t[n - 1].len : t[3].col,
                    "expected 'packet PAYLOAD HEADER' (bytes, e.g. 'packet 1448 66')");
            return THEMIS_ERR_PARSE;
        }
        if (0 != ps->packet_line) {
            themis_set_parse_error(err, line, t[0].col, "'packet' given twice (line %d)",
                    ps->packet_line);
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK != themis_graph_parse_uint(&t[1], line, THEMIS_GRAPH_MAX_PKT_PAYLOAD,
                                                 "packet payload", &payload, err) ||
            THEMIS_OK != themis_graph_parse_uint(&t[2], line, THEMIS_GRAPH_MAX_PKT_HEADER,
                                                 "packet header", &header, err)) {
            return THEMIS_ERR_PARSE;
        }
        if (0 == payload) {
            themis_set_parse_error(err, line, t[1].col, "packet payload must be >= 1 byte");
            return THEMIS_ERR_PARSE;
        }
        ps->packet_line = line;
        ps->g->pkt_payload = (uint32_t) payload;
        ps->g->pkt_header = (uint32_t) header;
        return THEMIS_OK;
    }
    if (themis_graph_tok_is(&t[0], "fail")) {
        if (n >= 3 && themis_graph_tok_is(&t[1], "node")) {
            if (n > 3) {
                themis_set_parse_error(err, line, t[3].col, "extra field '%s' (expected 'fail node K')",
                        themis_graph_show(t[3].p, t[3].len, shown));
                return THEMIS_ERR_PARSE;
            }
            if (THEMIS_OK != use_id(ps, &t[2], line, &a, err)) {
                return THEMIS_ERR_PARSE;
            }
            ps->g->node_failed[a] = 1;
            return THEMIS_OK;
        }
        if (n >= 4 && themis_graph_tok_is(&t[1], "link")) {
            if (n > 4) {
                themis_set_parse_error(err, line, t[4].col,
                        "extra field '%s' (expected 'fail link SRC DST')",
                        themis_graph_show(t[4].p, t[4].len, shown));
                return THEMIS_ERR_PARSE;
            }
            if (THEMIS_OK != use_id(ps, &t[2], line, &a, err) ||
                THEMIS_OK != use_id(ps, &t[3], line, &b, err)) {
                return THEMIS_ERR_PARSE;
            }
            if (0 != themis_grow((void **) &ps->fails, ps->nfails, &ps->cap_fails,
                                 sizeof(*ps->fails), 16)) {
                themis_set_parse_error(err, line, t[0].col, "out of memory");
                return THEMIS_ERR_NOMEM;
            }
            fail_link_t *f = &ps->fails[ps->nfails++];
            f->src = a;
            f->dst = b;
            f->at.line = line;
            f->at.col = t[0].col;
            return THEMIS_OK;
        }
        themis_set_parse_error(err, line, n > 1 ? t[1].col : t[0].col + (int) t[0].len,
                "expected 'fail node K' or 'fail link SRC DST'");
        return THEMIS_ERR_PARSE;
    }
    if (!isdigit((unsigned char) t[0].p[0])) {
        themis_set_parse_error(err, line, t[0].col,
                "unexpected '%s' (expected nodes, rank, host, nic, switch, fail, packet, or a link "
                "SRC DST BW LAT [both])",
                themis_graph_show(t[0].p, t[0].len, shown));
        return THEMIS_ERR_PARSE;
    }
    if (n < 4) {
        static const char *names[] = {"SRC", "DST", "BW", "LAT"};
        themis_set_parse_error(err, line, t[n - 1].col + (int) t[n - 1].len,
                "missing %s (expected SRC DST BW LAT [both])", names[n]);
        return THEMIS_ERR_PARSE;
    }
    if (n > 5 || (5 == n && !themis_graph_tok_is(&t[4], "both"))) {
        int k = (5 == n) ? 4 : 5;
        themis_set_parse_error(err, line, t[k].col, "unexpected '%s' (expected SRC DST BW LAT [both])",
                themis_graph_show(t[k].p, t[k].len, shown));
        return THEMIS_ERR_PARSE;
    }
    uint64_t bw = 0;
    themis_time_t lat = 0;
    if (THEMIS_OK != use_id(ps, &t[0], line, &a, err) ||
        THEMIS_OK != use_id(ps, &t[1], line, &b, err) ||
        THEMIS_OK != themis_graph_parse_rate(&t[2], line, 1, &bw, err) ||
        THEMIS_OK != themis_graph_parse_rate(&t[3], line, 0, &lat, err)) {
        return THEMIS_ERR_PARSE;
    }
    pos_t at = {line, t[0].col};
    themis_status_t st = add_parsed_link(ps, a, b, bw, lat, at, err);
    if (THEMIS_OK == st && 5 == n) {
        st = add_parsed_link(ps, b, a, bw, lat, at, err);
    }
    return st;
}

/* After the last line: the node count, the checks that need every link,
 * the failed links. */
static themis_status_t parse_finish(parse_state_t *ps, themis_parse_error_t *err)
{
    themis_graph_t *g = ps->g;
    char why[128];
    uint32_t bad, bad_node;
    if (0 == ps->declared && !ps->any_id) {
        themis_set_parse_error(err, 1, 1, "empty graph (expected 'nodes N' or links SRC DST BW LAT)");
        return THEMIS_ERR_PARSE;
    }
    g->nnodes = (uint32_t) (0 != ps->declared ? ps->declared : (uint64_t) ps->max_id + 1);
    themis_status_t st = themis_graph_finish_at(g, &bad, &bad_node, why, sizeof(why));
    if (THEMIS_OK != st) {
        pos_t at = (UINT32_MAX != bad) ? ps->link_pos[bad] : (pos_t) {0, 0};
        if (UINT32_MAX == bad && 0 != ps->first_decl) {
            /* a node error: its declaration, else where the placement
             * (a rank without a host, a host without a rank) begins */
            at.line = (UINT32_MAX != bad_node && 0 != ps->decl_line[bad_node])
                          ? ps->decl_line[bad_node]
                          : 0 != ps->first_host ? ps->first_host : ps->first_decl;
            at.col = 1;
        }
        themis_set_parse_error(err, at.line, at.col, "%s", why);
        return st;
    }
    for (uint32_t i = 0; i < ps->nfails; i++) {
        const fail_link_t *f = &ps->fails[i];
        uint32_t l = themis_graph_find_link(g, f->src, f->dst);
        if (UINT32_MAX == l) {
            themis_set_parse_error(err, f->at.line, f->at.col, "fail link %u %u: no such link", f->src,
                    f->dst);
            return THEMIS_ERR_PARSE;
        }
        g->links[l].failed = 1;
    }
    return THEMIS_OK;
}

themis_status_t themis_graph_parse(const char *text, themis_graph_t *g,
                                   themis_parse_error_t *err)
{
    themis_set_parse_error(err, 0, 0, "%s", "");
    if (NULL == text || NULL == g) {
        themis_set_parse_error(err, 0, 0, "no graph given");
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = themis_graph_init(g, THEMIS_GRAPH_MAX_NODES);
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, 0, 0, "out of memory");
        return st;
    }
    parse_state_t ps;
    memset(&ps, 0, sizeof(ps));
    ps.g = g;
    const char *p = text;
    for (int line = 1; THEMIS_OK == st && '\0' != *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t len = (NULL != nl) ? (size_t) (nl - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        size_t clen = (NULL != hash) ? (size_t) (hash - p) : len;
        themis_token_t toks[6];
        int n = themis_split_ws(p, clen, line, toks, 6);
        if (n > 6) {
            themis_set_parse_error(err, line, toks[5].col, "too many fields");
            st = THEMIS_ERR_PARSE;
        } else if (n > 0) {
            st = parse_line(&ps, toks, n, line, err);
        }
        p += len + ((NULL != nl) ? 1 : 0);
    }
    if (THEMIS_OK == st) {
        st = parse_finish(&ps, err);
    }
    free(ps.link_pos);
    free(ps.fails);
    free(ps.decl_line);
    if (THEMIS_OK != st) {
        themis_graph_free(g);
    }
    return st;
}
