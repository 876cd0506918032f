/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: the value parsers (themis_parse_bandwidth,
 * themis_parse_latency, themis_parse_size) on any text, each against a
 * slow reference written from the documented grammar: digits are moved
 * into an integer as a string, so the reference has no cleverness to
 * share with the parser.
 */
#include "fuzz_common.h"

#include <ctype.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const char *name;
    int exp10;       /* bandwidth and latency units: 10^exp10 */
    uint64_t mult;   /* sizes, and byte rates (bit/s per unit) */
} ref_unit_t;

static const ref_unit_t bw_units[] = {
    {"b", 0, 0},     {"bit", 0, 0},   {"Kb", 3, 0},    {"kb", 3, 0},    {"Kbit", 3, 0},
    {"kbit", 3, 0},  {"Mb", 6, 0},    {"mb", 6, 0},    {"Mbit", 6, 0},  {"mbit", 6, 0},
    {"Gb", 9, 0},    {"gb", 9, 0},    {"Gbit", 9, 0},  {"gbit", 9, 0},  {"Tb", 12, 0},
    {"tb", 12, 0},   {"Tbit", 12, 0}, {"tbit", 12, 0}, {"bps", 0, 0},   {"Kbps", 3, 0},
    {"kbps", 3, 0},  {"Mbps", 6, 0},  {"mbps", 6, 0},  {"Gbps", 9, 0},  {"gbps", 9, 0},
    {"Tbps", 12, 0}, {"tbps", 12, 0}, {"b/s", 0, 0},   {"Kb/s", 3, 0},  {"Mb/s", 6, 0},
    {"Gb/s", 9, 0},  {"Tb/s", 12, 0},
    {"B/s", 0, 8ULL},               {"KB/s", 0, 8000ULL},      {"kB/s", 0, 8000ULL},
    {"MB/s", 0, 8000000ULL},        {"GB/s", 0, 8000000000ULL}, {"TB/s", 0, 8000000000000ULL},
    {"KiB/s", 0, 8ULL << 10},       {"MiB/s", 0, 8ULL << 20},  {"GiB/s", 0, 8ULL << 30},
    {"TiB/s", 0, 8ULL << 40},       {NULL, 0, 0},
};
static const ref_unit_t lat_units[] = {
    {"ps", 0, 0}, {"ns", 3, 0}, {"us", 6, 0}, {"ms", 9, 0}, {"s", 12, 0}, {NULL, 0, 0},
};
static const ref_unit_t size_units[] = {
    {"", 0, 1ULL},           {"B", 0, 1ULL},          {"KB", 0, 1000ULL},
    {"MB", 0, 1000000ULL},   {"GB", 0, 1000000000ULL}, {"TB", 0, 1000000000000ULL},
    {"KiB", 0, 1ULL << 10},  {"MiB", 0, 1ULL << 20},  {"GiB", 0, 1ULL << 30},
    {"TiB", 0, 1ULL << 40},  {"K", 0, 1ULL << 10},    {"M", 0, 1ULL << 20},
    {"G", 0, 1ULL << 30},    {"T", 0, 1ULL << 40},    {NULL, 0, 0},
};

/* NUMBER = DIGITS ['.' DIGITS] with at least one digit; the rest is the
 * unit.  Returns 0 when s does not start with a number. */
static int split_number(const char *s, const char **ie, const char **f0, const char **fe)
{
    const char *p = s;
    while (isdigit((unsigned char) *p)) {
        p++;
    }
    *ie = p;
    *f0 = p;
    if ('.' == *p) {
        *f0 = ++p;
        while (isdigit((unsigned char) *p)) {
            p++;
        }
    }
    *fe = p;
    return *ie != s || *fe != *f0;
}

/* Decimal digit string (no leading zeros) to a value, or 0 when it does
 * not fit in 64 bits. */
static int digits_value(const char *d, size_t n, uint64_t *v)
{
    unsigned __int128 x = 0;
    if (n > 20) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        x = x * 10 + (unsigned) (d[i] - '0');
    }
    if (x > UINT64_MAX) {
        return 0;
    }
    *v = (uint64_t) x;
    return 1;
}

/* Byte rates: all the number's digits (the point dropped) times mult, by
 * schoolbook multiplication on the digit string; the fraction's digits
 * must then be zeros. */
static int ref_rate(const char *s, const char *ie, const char *f0, const char *fe,
                    uint64_t mult, uint64_t *v)
{
    size_t ni = (size_t) (ie - s), nf = (size_t) (fe - f0), n = ni + nf + 20;
    char *d = malloc(n + 1);
    FUZZ_CHECK(NULL != d);
    memset(d, '0', 20);
    memcpy(d + 20, s, ni);
    memcpy(d + 20 + ni, f0, nf);
    uint64_t carry = 0;
    for (size_t i = n; i > 0; i--) {
        uint64_t x = (uint64_t) (d[i - 1] - '0') * mult + carry;
        d[i - 1] = (char) ('0' + x % 10);
        carry = x / 10;
    }
    FUZZ_CHECK(0 == carry);
    int ok = 1;
    for (size_t i = n - nf; i < n; i++) {
        ok = ok && '0' == d[i];
    }
    size_t z = 0;
    while (z < n - nf && '0' == d[z]) {
        z++;
    }
    ok = ok && digits_value(d + z, n - nf - z, v);
    free(d);
    return ok;
}

/* Bandwidths and latencies: the whole string is NUMBER UNIT and the value
 * is a whole number of base units below 2^64. */
static int ref_decimal(const char *s, const ref_unit_t *units, uint64_t *v)
{
    const char *ie, *f0, *fe;
    const ref_unit_t *u = NULL;
    if (!split_number(s, &ie, &f0, &fe)) {
        return 0;
    }
    for (int i = 0; NULL != units[i].name; i++) {
        if (0 == strcmp(fe, units[i].name)) {
            u = &units[i];
        }
    }
    if (NULL == u) {
        return 0;
    }
    if (0 != u->mult) {
        return ref_rate(s, ie, f0, fe, u->mult, v);
    }
    while (fe > f0 && '0' == fe[-1]) {
        fe--;
    }
    if (fe - f0 > u->exp10) {
        return 0;
    }
    /* integer digits, fraction digits, then zeros up to the unit */
    size_t n = (size_t) (ie - s) + (size_t) (fe - f0) + (size_t) u->exp10 - (size_t) (fe - f0);
    char *d = malloc(n + 1);
    FUZZ_CHECK(NULL != d);
    memcpy(d, s, (size_t) (ie - s));
    memcpy(d + (ie - s), f0, (size_t) (fe - f0));
    memset(d + (ie - s) + (fe - f0), '0', (size_t) u->exp10 - (size_t) (fe - f0));
    size_t z = 0;
    while (z < n && '0' == d[z]) {
        z++;
    }
    int ok = digits_value(d + z, n - z, v);
    free(d);
    return ok;
}

/* Sizes: NUMBER with at most 6 decimals, a case-insensitive unit (or
 * none), a whole number of bytes below 2^64. */
static int ref_size(const char *s, uint64_t *v)
{
    const char *ie, *f0, *fe;
    const ref_unit_t *u = NULL;
    if (!split_number(s, &ie, &f0, &fe) || fe - f0 > 6) {
        return 0;
    }
    for (int i = 0; NULL != size_units[i].name; i++) {
        if (0 == strcasecmp(fe, size_units[i].name)) {
            u = &size_units[i];
        }
    }
    if (NULL == u) {
        return 0;
    }
    const char *p = s;
    while (p < ie && '0' == *p) {
        p++;
    }
    uint64_t ipart;
    if (!digits_value(p, (size_t) (ie - p), &ipart)) {
        return 0;
    }
    unsigned __int128 num = ipart, scale = 1;
    for (const char *q = f0; q < fe; q++) {
        num = num * 10 + (unsigned) (*q - '0');
        scale *= 10;
    }
    num *= u->mult;
    if (0 != num % scale || num / scale > UINT64_MAX) {
        return 0;
    }
    *v = (uint64_t) (num / scale);
    return 1;
}

/* One decimal parser against its reference: the whole string, then with
 * an end pointer (the value must be the longest prefix the reference
 * takes as a number and a unit). */
static void check_decimal(const char *s, const ref_unit_t *units, int is_bw)
{
    uint64_t v = 0, rv = 0;
    const char *end = NULL;
    themis_status_t st;
    if (is_bw) {
        st = themis_parse_bandwidth(s, &v, NULL);
    } else {
        st = themis_parse_latency(s, &v, NULL);
    }
    int ref_ok = ref_decimal(s, units, &rv) && (!is_bw || 0 != rv);
    FUZZ_CHECK(ref_ok == (THEMIS_OK == st));
    FUZZ_CHECK(!ref_ok || v == rv);

    uint64_t v2 = 0;
    if (is_bw) {
        st = themis_parse_bandwidth(s, &v2, &end);
    } else {
        st = themis_parse_latency(s, &v2, &end);
    }
    FUZZ_CHECK(end >= s && end <= s + strlen(s));
    if (ref_ok) {
        FUZZ_CHECK(THEMIS_OK == st && '\0' == *end && v2 == v);
    }
    if (THEMIS_OK == st) {
        /* the unit is taken whole: no letter right after it */
        FUZZ_CHECK(end > s && !isalpha((unsigned char) *end));
        char *prefix = strndup(s, (size_t) (end - s));
        FUZZ_CHECK(NULL != prefix);
        FUZZ_CHECK(ref_decimal(prefix, units, &rv) && rv == v2);
        free(prefix);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstring(data, size);
    check_decimal(s, bw_units, 1);
    check_decimal(s, lat_units, 0);

    uint64_t v = 0, rv = 0;
    int ref_ok = ref_size(s, &rv);
    themis_status_t st = themis_parse_size(s, &v);
    FUZZ_CHECK(ref_ok == (THEMIS_OK == st));
    FUZZ_CHECK(!ref_ok || v == rv);
    free(s);
    return 0;
}
