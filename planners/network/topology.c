/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Topology strings and files.  Numbers are parsed exactly (decimal
 * mantissa times a power-of-ten unit) so that "1.5Gb" is 1500000000 bit/s
 * on every machine; a value that is not a whole number of bit/s or ps is
 * rejected rather than rounded.
 */
#include "topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Table 2 of themis.txt.  Aggregate BW/NPU is the per-NPU bandwidth and the
 * network latency the step latency.  A "Ring" with more than two links per
 * NPU is modelled as a bidirectional ring (3D-FC_Ring_SW dim 2, 4 links;
 * 4D-Ring_FC_Ring_SW dim 3, 6 links); the 2-link package rings stay rings. */
const themis_topology_preset_t themis_topology_presets[] = {
    {"2D-SW_SW", "sw:16:1200Gb:700ns_sw:64:800Gb:1700ns"},
    {"3D-SW_SW_SW_homo", "sw:16:800Gb:700ns_sw:8:800Gb:700ns_sw:8:800Gb:1700ns"},
    {"3D-SW_SW_SW_hetero", "sw:16:1600Gb:700ns_sw:8:800Gb:700ns_sw:8:400Gb:1700ns"},
    {"3D-FC_Ring_SW", "fc:8:1400Gb:700ns_biring:16:800Gb:700ns_sw:8:400Gb:1700ns"},
    {"4D-Ring_SW_SW_SW",
     "ring:4:2000Gb:20ns_sw:4:1600Gb:700ns_sw:8:800Gb:700ns_sw:8:400Gb:1700ns"},
    {"4D-Ring_FC_Ring_SW",
     "ring:4:3000Gb:20ns_fc:8:1400Gb:700ns_biring:4:1200Gb:700ns_sw:8:800Gb:1700ns"},
};
const int themis_topology_npresets =
    (int) (sizeof(themis_topology_presets) / sizeof(themis_topology_presets[0]));

/* Largest number of NPUs: ranks are C ints. */
#define THEMIS_MAX_NPUS 2147483647ULL
/* Keeps every phase time far below 2^64 ps. */
#define THEMIS_MAX_STEP_LATENCY 1000000000000ULL

typedef themis_token_t tok_t;

typedef struct {
    const char *name;
    uint64_t mult;
} unit_t;

/* parse_quantity needs 10 * mult < 2^64; themis_topology_format picks
 * bit units by index (bw_order), so new units go at the end. */
static const unit_t bw_units[] = {
    {"b", 1ULL},              {"bit", 1ULL},
    {"Kb", 1000ULL},          {"kb", 1000ULL},          {"Kbit", 1000ULL},
    {"kbit", 1000ULL},        {"Mb", 1000000ULL},       {"mb", 1000000ULL},
    {"Mbit", 1000000ULL},     {"mbit", 1000000ULL},     {"Gb", 1000000000ULL},
    {"gb", 1000000000ULL},    {"Gbit", 1000000000ULL},  {"gbit", 1000000000ULL},
    {"Tb", 1000000000000ULL}, {"tb", 1000000000000ULL}, {"Tbit", 1000000000000ULL},
    {"tbit", 1000000000000ULL},
    {"bps", 1ULL},            {"Kbps", 1000ULL},        {"kbps", 1000ULL},
    {"Mbps", 1000000ULL},     {"mbps", 1000000ULL},     {"Gbps", 1000000000ULL},
    {"gbps", 1000000000ULL},  {"Tbps", 1000000000000ULL}, {"tbps", 1000000000000ULL},
    {"b/s", 1ULL},            {"Kb/s", 1000ULL},        {"Mb/s", 1000000ULL},
    {"Gb/s", 1000000000ULL},  {"Tb/s", 1000000000000ULL},
    /* byte rates: decimal and binary bytes/s, 8 bits each */
    {"B/s", 8ULL},            {"KB/s", 8000ULL},        {"kB/s", 8000ULL},
    {"MB/s", 8000000ULL},     {"GB/s", 8000000000ULL},  {"TB/s", 8000000000000ULL},
    {"KiB/s", 8ULL << 10},    {"MiB/s", 8ULL << 20},    {"GiB/s", 8ULL << 30},
    {"TiB/s", 8ULL << 40},
};

static const unit_t lat_units[] = {
    {"ps", 1ULL}, {"ns", 1000ULL}, {"us", 1000000ULL}, {"ms", 1000000000ULL},
    {"s", 1000000000000ULL},
};

/* Exact decimal value times unit, from s[0 .. len).  The fraction is
 * taken from its last digit back: S = (digit * mult + S') / 10 is
 * mult x (the fraction's tail), below mult, and whole at every digit when
 * the whole fraction is (S' = 10 S - digit * mult), so any number of
 * digits is exact in 64-bit integers, whatever the unit (GiB/s = 2^33).
 * A unit is letters with an optional "/letters" ("GB/s").
 * On failure *end points at the offending character and *msg says why. */
static themis_status_t parse_quantity(const char *s, size_t len, const unit_t *units,
                                      size_t nunits, uint64_t *value, const char **end,
                                      const char **msg)
{
    const char *lim = s + len;
    const char *p = s;

    while (p < lim && isdigit((unsigned char) *p)) {
        p++;
    }
    const char *int_end = p;
    const char *frac = p;
    if (p < lim && '.' == *p) {
        frac = ++p;
        while (p < lim && isdigit((unsigned char) *p)) {
            p++;
        }
    }
    const char *frac_end = p;
    if (int_end == s && frac_end == frac) {
        *msg = "expected a number";
        *end = s;
        return THEMIS_ERR_PARSE;
    }
    const char *u = p;
    while (p < lim && isalpha((unsigned char) *p)) {
        p++;
    }
    if (u != p && p + 1 < lim && '/' == *p && isalpha((unsigned char) p[1])) {
        p++;
        while (p < lim && isalpha((unsigned char) *p)) {
            p++;
        }
    }
    if (u == p) {
        *msg = "missing unit";
        *end = u;
        return THEMIS_ERR_PARSE;
    }
    const unit_t *unit = NULL;
    for (size_t i = 0; i < nunits; i++) {
        if (strlen(units[i].name) == (size_t) (p - u) &&
            0 == strncmp(units[i].name, u, (size_t) (p - u))) {
            unit = &units[i];
            break;
        }
    }
    if (NULL == unit) {
        *msg = "bad unit";
        *end = u;
        return THEMIS_ERR_PARSE;
    }

    uint64_t v = 0;
    for (const char *q = s; q < int_end; q++) {
        uint64_t d = (uint64_t) (*q - '0');
        if (v > (UINT64_MAX - d) / 10) {
            *msg = "number too large";
            *end = s;
            return THEMIS_ERR_PARSE;
        }
        v = v * 10 + d;
    }
    if (v > UINT64_MAX / unit->mult) {
        *msg = "number too large";
        *end = s;
        return THEMIS_ERR_PARSE;
    }
    v *= unit->mult;
    uint64_t tail = 0;
    for (const char *q = frac_end; q > frac; q--) {
        uint64_t t = (uint64_t) (q[-1] - '0') * unit->mult + tail;
        if (0 != t % 10) {
            *msg = "not a whole number of base units";
            *end = s;
            return THEMIS_ERR_PARSE;
        }
        tail = t / 10;
    }
    if (v > UINT64_MAX - tail) {
        *msg = "number too large";
        *end = s;
        return THEMIS_ERR_PARSE;
    }
    v += tail;
    *value = v;
    *end = p;
    return THEMIS_OK;
}

/* With end == NULL the whole string must be the value. */
static themis_status_t parse_value(const char *s, const unit_t *units, size_t nunits,
                                   uint64_t *value, const char **end)
{
    const char *e = s;
    const char *m = NULL;
    if (NULL == s || NULL == value) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = parse_quantity(s, strlen(s), units, nunits, value, &e, &m);
    if (THEMIS_OK == st && NULL == end && '\0' != *e) {
        st = THEMIS_ERR_PARSE;
    }
    if (NULL != end) {
        *end = e;
    }
    return st;
}

themis_status_t themis_parse_bandwidth(const char *s, uint64_t *bps, const char **end)
{
    uint64_t v = 0;
    themis_status_t st =
        parse_value(s, bw_units, sizeof(bw_units) / sizeof(bw_units[0]), &v, end);
    if (THEMIS_OK == st && 0 == v) {
        return THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK == st) {
        *bps = v;
    }
    return st;
}

const char *themis_parse_value_why(const char *s, int bandwidth)
{
    const unit_t *units = bandwidth ? bw_units : lat_units;
    size_t n = bandwidth ? sizeof(bw_units) / sizeof(bw_units[0])
                         : sizeof(lat_units) / sizeof(lat_units[0]);
    const char *e = s, *m = NULL;
    uint64_t v = 0;
    if (NULL == s) {
        return "no value";
    }
    if (THEMIS_OK != parse_quantity(s, strlen(s), units, n, &v, &e, &m)) {
        return m;
    }
    return (bandwidth && 0 == v) ? "must be positive" : NULL;
}

themis_status_t themis_parse_latency(const char *s, themis_time_t *ps, const char **end)
{
    uint64_t v = 0;
    themis_status_t st =
        parse_value(s, lat_units, sizeof(lat_units) / sizeof(lat_units[0]), &v, end);
    if (THEMIS_OK == st) {
        *ps = v;
    }
    return st;
}

/* A decimal number with at most 6 decimals and one of units[] (case
 * insensitive; "" for none) whose value times the unit is whole, into
 * *out.  The whole string must be the value. */
static themis_status_t parse_decimal(const char *s, const unit_t *units, size_t nunits,
                                     uint64_t *out)
{
    uint64_t ipart = 0;
    uint64_t fpart = 0;
    uint64_t fscale = 1;
    const char *p = s;
    int ndigits = 0;

    if (NULL == s || NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    while (isdigit((unsigned char) *p)) {
        uint64_t d = (uint64_t) (*p - '0');
        if (ipart > (UINT64_MAX - d) / 10) {
            return THEMIS_ERR_PARSE;
        }
        ipart = ipart * 10 + d;
        p++;
        ndigits++;
    }
    if ('.' == *p) {
        p++;
        while (isdigit((unsigned char) *p)) {
            /* a size has at most 6 decimals, so fpart * mult fits below */
            if (fscale >= 1000000) {
                return THEMIS_ERR_PARSE;
            }
            fpart = fpart * 10 + (uint64_t) (*p - '0');
            fscale *= 10;
            p++;
            ndigits++;
        }
    }
    if (0 == ndigits) {
        return THEMIS_ERR_PARSE;
    }
    for (size_t i = 0; i < nunits; i++) {
        if (0 != strcasecmp(p, units[i].name)) {
            continue;
        }
        uint64_t m = units[i].mult;
        if (ipart > UINT64_MAX / m || 0 != (fpart * m) % fscale) {
            return THEMIS_ERR_PARSE;
        }
        uint64_t frac = fpart * m / fscale;
        if (ipart * m > UINT64_MAX - frac) {
            return THEMIS_ERR_PARSE;
        }
        *out = ipart * m + frac;
        return THEMIS_OK;
    }
    return THEMIS_ERR_PARSE;
}

themis_status_t themis_parse_size(const char *s, uint64_t *bytes)
{
    static const unit_t units[] = {
        {"", 1ULL},       {"B", 1ULL},
        {"KB", 1000ULL},  {"MB", 1000000ULL},  {"GB", 1000000000ULL},  {"TB", 1000000000000ULL},
        {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20}, {"GiB", 1ULL << 30}, {"TiB", 1ULL << 40},
        {"K", 1ULL << 10},   {"M", 1ULL << 20},   {"G", 1ULL << 30},   {"T", 1ULL << 40},
    };
    return parse_decimal(s, units, sizeof(units) / sizeof(units[0]), bytes);
}

themis_status_t themis_parse_ppm(const char *s, uint64_t *ppm)
{
    static const unit_t none[] = {{"", 1000000ULL}};
    return parse_decimal(s, none, 1, ppm);
}

const char *themis_dim_kind_name(themis_dim_kind_t kind)
{
    switch (kind) {
    case THEMIS_DIM_RING:
        return "ring";
    case THEMIS_DIM_BIRING:
        return "biring";
    case THEMIS_DIM_FC:
        return "fc";
    case THEMIS_DIM_SWITCH:
        return "sw";
    }
    return "unknown";
}

static int tok_eq(const tok_t *t, const char *s)
{
    return strlen(s) == t->len && 0 == strncasecmp(t->p, s, t->len);
}

/* A field as messages echo it: a long one is cut, so that the reason
 * after it still fits in themis_parse_error_t.message. */
enum { SHOW_MAX = 32 };

static const char *tok_show(const char *p, size_t len, char buf[SHOW_MAX + 1])
{
    return themis_show_field(p, len, buf, SHOW_MAX);
}

static themis_status_t parse_value_field(const tok_t *t, const unit_t *units, size_t nunits,
                                         const char *what, uint64_t *value,
                                         themis_parse_error_t *err)
{
    const char *end = t->p;
    const char *msg = NULL;
    themis_status_t st = parse_quantity(t->p, t->len, units, nunits, value, &end, &msg);
    if (THEMIS_OK == st && end != t->p + t->len) {
        msg = "trailing characters";
        st = THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK != st) {
        char shown[SHOW_MAX + 1];
        const char *hint = (units == bw_units)
                               ? "b Kb Mb Gb Tb, Gbit, Gbps (bit/s); B/s KB/s GB/s GiB/s (bytes/s)"
                               : "ps, ns, us, ms or s";
        themis_set_parse_error(err, t->line, t->col + (int) (end - t->p),
                               "%s '%s': %s (units: %s)", what, tok_show(t->p, t->len, shown),
                               msg, hint);
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

static themis_status_t parse_dim(const tok_t f[4], themis_dim_t *d, themis_parse_error_t *err)
{
    static const struct {
        const char *name;
        themis_dim_kind_t kind;
    } kinds[] = {
        {"ring", THEMIS_DIM_RING}, {"biring", THEMIS_DIM_BIRING}, {"fc", THEMIS_DIM_FC},
        {"sw", THEMIS_DIM_SWITCH}, {"switch", THEMIS_DIM_SWITCH},
    };
    char shown[SHOW_MAX + 1];
    int found = 0;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (tok_eq(&f[0], kinds[i].name)) {
            d->kind = kinds[i].kind;
            found = 1;
            break;
        }
    }
    if (!found) {
        themis_set_parse_error(err, f[0].line, f[0].col,
                               "unknown dimension kind '%s' (expected ring, biring, fc or sw)",
                               tok_show(f[0].p, f[0].len, shown));
        return THEMIS_ERR_PARSE;
    }

    uint64_t size = 0;
    for (size_t i = 0; i < f[1].len; i++) {
        if (!isdigit((unsigned char) f[1].p[i])) {
            themis_set_parse_error(err, f[1].line, f[1].col + (int) i,
                                   "dimension size '%s' is not an integer",
                                   tok_show(f[1].p, f[1].len, shown));
            return THEMIS_ERR_PARSE;
        }
        size = size * 10 + (uint64_t) (f[1].p[i] - '0');
        if (size > THEMIS_MAX_NPUS) {
            themis_set_parse_error(err, f[1].line, f[1].col, "dimension size '%s' is too large",
                                   tok_show(f[1].p, f[1].len, shown));
            return THEMIS_ERR_PARSE;
        }
    }
    if (0 == f[1].len || 0 == size) {
        themis_set_parse_error(err, f[1].line, f[1].col, "dimension size must be an integer >= 1");
        return THEMIS_ERR_PARSE;
    }
    d->size = (uint32_t) size;

    if (THEMIS_OK != parse_value_field(&f[2], bw_units, sizeof(bw_units) / sizeof(bw_units[0]),
                                       "bandwidth", &d->bw_bps, err)) {
        return THEMIS_ERR_PARSE;
    }
    if (0 == d->bw_bps) {
        themis_set_parse_error(err, f[2].line, f[2].col, "bandwidth must be > 0");
        return THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK != parse_value_field(&f[3], lat_units, sizeof(lat_units) / sizeof(lat_units[0]),
                                       "latency", &d->step_latency, err)) {
        return THEMIS_ERR_PARSE;
    }
    if (d->step_latency > THEMIS_MAX_STEP_LATENCY) {
        themis_set_parse_error(err, f[3].line, f[3].col, "step latency above 1 s");
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

static themis_status_t add_dim(themis_topology_t *topo, const tok_t f[4], const tok_t *where,
                               themis_parse_error_t *err)
{
    themis_dim_t d;
    if (topo->ndims >= THEMIS_MAX_DIMS) {
        themis_set_parse_error(err, where->line, where->col, "too many dimensions (at most %d)",
                               THEMIS_MAX_DIMS);
        return THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK != parse_dim(f, &d, err)) {
        return THEMIS_ERR_PARSE;
    }
    uint64_t npus = themis_topology_npus(topo) * d.size;
    if (npus > THEMIS_MAX_NPUS) {
        themis_set_parse_error(err, f[1].line, f[1].col, "topology has more than %llu NPUs",
                               (unsigned long long) THEMIS_MAX_NPUS);
        return THEMIS_ERR_PARSE;
    }
    topo->dims[topo->ndims++] = d;
    return THEMIS_OK;
}

/* "KIND:SIZE:BW:LAT_KIND:..." or a preset name, as one token. */
static themis_status_t parse_compact(const tok_t *t, themis_topology_t *topo,
                                     themis_parse_error_t *err)
{
    for (int i = 0; i < themis_topology_npresets; i++) {
        if (tok_eq(t, themis_topology_presets[i].name)) {
            const char *spec = themis_topology_presets[i].spec;
            tok_t ps = {spec, strlen(spec), 1, 1};
            return parse_compact(&ps, topo, err);
        }
    }
    char shown[SHOW_MAX + 1];
    size_t pos = 0;
    while (pos <= t->len) {
        size_t dend = pos;
        while (dend < t->len && '_' != t->p[dend] && ',' != t->p[dend]) {
            dend++;
        }
        tok_t dim = {t->p + pos, dend - pos, t->line, t->col + (int) pos};
        if (0 == dim.len) {
            themis_set_parse_error(err, t->line, dim.col,
                                   "empty dimension (expected KIND:SIZE:BANDWIDTH:LATENCY)");
            return THEMIS_ERR_PARSE;
        }
        tok_t f[4];
        int nf = 0;
        size_t fpos = 0;
        while (fpos <= dim.len) {
            size_t fend = fpos;
            while (fend < dim.len && ':' != dim.p[fend]) {
                fend++;
            }
            if (nf >= 4) {
                themis_set_parse_error(err, t->line, dim.col + (int) fpos,
                                       "too many fields in dimension '%s' (expected "
                                       "KIND:SIZE:BANDWIDTH:LATENCY)",
                                       tok_show(dim.p, dim.len, shown));
                return THEMIS_ERR_PARSE;
            }
            f[nf].p = dim.p + fpos;
            f[nf].len = fend - fpos;
            f[nf].line = t->line;
            f[nf].col = dim.col + (int) fpos;
            nf++;
            fpos = fend + 1;
        }
        if (nf < 4) {
            static const char *names[] = {"KIND", "SIZE", "BANDWIDTH", "LATENCY"};
            themis_set_parse_error(err, t->line, dim.col + (int) dim.len,
                                   "missing field %s in dimension '%s' (expected "
                                   "KIND:SIZE:BANDWIDTH:LATENCY)",
                                   names[nf], tok_show(dim.p, dim.len, shown));
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK != add_dim(topo, f, &dim, err)) {
            return THEMIS_ERR_PARSE;
        }
        pos = dend + 1;
    }
    return THEMIS_OK;
}

int themis_split_ws(const char *p, size_t len, int line, themis_token_t *toks, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char) p[i])) {
            i++;
        }
        if (i >= len) {
            break;
        }
        size_t s = i;
        while (i < len && !isspace((unsigned char) p[i])) {
            i++;
        }
        if (n < max) {
            toks[n].p = p + s;
            toks[n].len = i - s;
            toks[n].line = line;
            toks[n].col = (int) s + 1;
        }
        n++;
    }
    return n;
}

themis_status_t themis_topology_parse(const char *text, themis_topology_t *topo,
                                      themis_parse_error_t *err)
{
    themis_topology_t t;
    char shown[SHOW_MAX + 1];
    if (NULL != err) {
        err->line = 0;
        err->column = 0;
        err->message[0] = '\0';
    }
    if (NULL == text || NULL == topo) {
        themis_set_parse_error(err, 0, 0, "no topology given");
        return THEMIS_ERR_INVALID;
    }
    memset(&t, 0, sizeof(t));

    /* One pass to classify: a single token is a compact string or preset,
     * anything else is the line format. */
    int content_lines = 0;
    int single_token = 0;
    tok_t first = {NULL, 0, 0, 0};
    const char *p = text;
    for (int line = 1; '\0' != *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t len = (NULL != nl) ? (size_t) (nl - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        size_t clen = (NULL != hash) ? (size_t) (hash - p) : len;
        tok_t toks[1];
        int n = themis_split_ws(p, clen, line, toks, 1);
        if (n > 0) {
            if (0 == content_lines) {
                first = toks[0];
                single_token = (1 == n);
            }
            content_lines++;
        }
        p += len + ((NULL != nl) ? 1 : 0);
    }
    if (0 == content_lines) {
        themis_set_parse_error(err, 1, 1, "empty topology");
        return THEMIS_ERR_PARSE;
    }
    if (1 == content_lines && single_token) {
        if (THEMIS_OK != parse_compact(&first, &t, err)) {
            return THEMIS_ERR_PARSE;
        }
        *topo = t;
        return THEMIS_OK;
    }

    p = text;
    for (int line = 1; '\0' != *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t len = (NULL != nl) ? (size_t) (nl - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        size_t clen = (NULL != hash) ? (size_t) (hash - p) : len;
        tok_t toks[5];
        int n = themis_split_ws(p, clen, line, toks, 5);
        if (n > 0) {
            if (n > 1 && NULL != memchr(toks[0].p, ':', toks[0].len)) {
                themis_set_parse_error(
                    err, line, toks[1].col,
                    "unexpected '%s': a compact KIND:SIZE:BANDWIDTH:LATENCY string "
                    "has no spaces",
                    tok_show(toks[1].p, toks[1].len, shown));
                return THEMIS_ERR_PARSE;
            }
            if (n < 4) {
                static const char *names[] = {"KIND", "SIZE", "BANDWIDTH", "LATENCY"};
                int col = toks[n - 1].col + (int) toks[n - 1].len;
                themis_set_parse_error(err, line, col,
                                       "missing field %s (expected: KIND SIZE BANDWIDTH LATENCY)", names[n]);
                return THEMIS_ERR_PARSE;
            }
            if (n > 4) {
                themis_set_parse_error(err, line, toks[4].col,
                                       "extra field '%s' (expected: KIND SIZE BANDWIDTH LATENCY)",
                                       tok_show(toks[4].p, toks[4].len, shown));
                return THEMIS_ERR_PARSE;
            }
            if (THEMIS_OK != add_dim(&t, toks, &toks[0], err)) {
                return THEMIS_ERR_PARSE;
            }
        }
        p += len + ((NULL != nl) ? 1 : 0);
    }
    *topo = t;
    return THEMIS_OK;
}

themis_status_t themis_topology_load_file(const char *path, themis_topology_t *topo,
                                          themis_parse_error_t *err)
{
    char *buf;
    if (NULL == path || NULL == topo) {
        themis_set_parse_error(err, 0, 0, "no topology file given");
        return THEMIS_ERR_INVALID;
    }
    /* Topology files are a few lines; anything bigger is not one. */
    themis_status_t st = themis_read_text_file(path, 1u << 20, "topology file", &buf, err);
    if (THEMIS_OK == st) {
        st = themis_topology_parse(buf, topo, err);
        free(buf);
    }
    return st;
}

/* Largest unit that represents v exactly. */
static int format_quantity(char *buf, size_t len, uint64_t v, const unit_t *units,
                           const int *order, int norder)
{
    if (0 == v) {
        return snprintf(buf, len, "0%s", units[order[norder - 1]].name);
    }
    for (int i = 0; i < norder; i++) {
        const unit_t *u = &units[order[i]];
        if (0 == v % u->mult) {
            return snprintf(buf, len, "%llu%s", (unsigned long long) (v / u->mult), u->name);
        }
    }
    return snprintf(buf, len, "%llu%s", (unsigned long long) v, units[order[norder - 1]].name);
}

int themis_topology_format(const themis_topology_t *topo, char *buf, size_t len)
{
    static const int bw_order[] = {14, 10, 6, 2, 0}; /* Tb Gb Mb Kb b */
    static const int lat_order[] = {4, 3, 2, 1, 0};       /* s ms us ns ps */
    size_t used = 0;
    if (NULL == topo || topo->ndims < 1 || topo->ndims > THEMIS_MAX_DIMS ||
        (NULL == buf && 0 != len)) {
        return -1;
    }
    for (int i = 0; i < topo->ndims; i++) {
        const themis_dim_t *d = &topo->dims[i];
        char bw[32], lat[32];
        format_quantity(bw, sizeof(bw), d->bw_bps, bw_units, bw_order, 5);
        format_quantity(lat, sizeof(lat), d->step_latency, lat_units, lat_order, 5);
        int n = snprintf((used < len) ? buf + used : NULL, (used < len) ? len - used : 0,
                         "%s%s:%u:%s:%s", (i > 0) ? "_" : "", themis_dim_kind_name(d->kind),
                         d->size, bw, lat);
        if (n < 0) {
            return -1;
        }
        used += (size_t) n;
    }
    return (int) used;
}

uint64_t themis_topology_npus(const themis_topology_t *topo)
{
    uint64_t n = 1;
    for (int i = 0; i < topo->ndims; i++) {
        n *= topo->dims[i].size;
    }
    return n;
}

themis_status_t themis_topology_check(const themis_topology_t *topo, char *msg, size_t len)
{
    char dummy[8];
    if (NULL == msg) {
        msg = dummy;
        len = sizeof(dummy);
    }
    if (NULL == topo) {
        snprintf(msg, len, "no topology");
        return THEMIS_ERR_INVALID;
    }
    if (topo->ndims < 1 || topo->ndims > THEMIS_MAX_DIMS) {
        snprintf(msg, len, "%d dimensions (must be 1..%d)", topo->ndims, THEMIS_MAX_DIMS);
        return THEMIS_ERR_INVALID;
    }
    uint64_t npus = 1;
    for (int i = 0; i < topo->ndims; i++) {
        const themis_dim_t *d = &topo->dims[i];
        if (0 == d->size || 0 == d->bw_bps || d->kind < THEMIS_DIM_RING ||
            d->kind > THEMIS_DIM_SWITCH) {
            snprintf(msg, len, "dimension %d: size, kind or bandwidth invalid", i);
            return THEMIS_ERR_INVALID;
        }
        if (d->step_latency > THEMIS_MAX_STEP_LATENCY) {
            snprintf(msg, len, "dimension %d: step latency above 1 s", i);
            return THEMIS_ERR_INVALID;
        }
        npus *= d->size;
        if (npus > THEMIS_MAX_NPUS) {
            snprintf(msg, len, "more than %llu NPUs", (unsigned long long) THEMIS_MAX_NPUS);
            return THEMIS_ERR_INVALID;
        }
    }
    msg[0] = '\0';
    return THEMIS_OK;
}

themis_status_t themis_parse_dims(const char *s, uint32_t *dims, int *ndims, char *why,
                                  size_t len)
{
    *ndims = 0;
    while (NULL != s && isspace((unsigned char) *s)) {
        ++s;
    }
    if (NULL == s || '\0' == *s) {
        return THEMIS_OK;
    }
    for (;;) {
        char *end;
        unsigned long v;

        while (isspace((unsigned char) *s)) {
            ++s;
        }
        if (!isdigit((unsigned char) *s)) {
            snprintf(why, len, "expected a dimension size at \"%s\"", s);
            return THEMIS_ERR_PARSE;
        }
        errno = 0;
        v = strtoul(s, &end, 10);
        if (0 != errno || 0 == v || v > INT32_MAX) {
            snprintf(why, len, "dimension sizes must be between 1 and %d", INT32_MAX);
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_MAX_DIMS == *ndims) {
            snprintf(why, len, "at most %d dimensions", THEMIS_MAX_DIMS);
            return THEMIS_ERR_PARSE;
        }
        dims[(*ndims)++] = (uint32_t) v;
        s = end;
        while (isspace((unsigned char) *s)) {
            ++s;
        }
        if ('\0' == *s) {
            return THEMIS_OK;
        }
        if ('x' != *s && 'X' != *s) {
            snprintf(why, len, "expected 'x' between dimension sizes at \"%s\"", s);
            return THEMIS_ERR_PARSE;
        }
        ++s;
    }
}
