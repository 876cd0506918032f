/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Rules files (rules.h), parsed with json-c.  json-c keeps no positions,
 * so syntax errors take their line from the tokener's offset and errors
 * in a rule or shape from a small scan of the text that finds where the
 * k-th element of the "rules" or "shapes" array starts.
 */
#include "rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "algorithm.h"
#include "hash.h"

static void say(char *msg, size_t len, int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(msg, len, "line %d: ", line);
    if (n < 0 || (size_t) n >= len) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg + n, len - (size_t) n, fmt, ap);
    va_end(ap);
}

static int line_at(const char *text, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++) {
        line += '\n' == text[i];
    }
    return line;
}

/* Line where element k of the top-level array `key` starts (1 when the
 * scan cannot tell).  Tracks strings and nesting only. */
static int element_line(const char *text, size_t len, const char *key, size_t k)
{
    int depth = 0, in_key_array = 0;
    size_t keylen = strlen(key), seen = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if ('"' == c) {
            size_t j = i + 1;
            while (j < len && '"' != text[j]) {
                j += ('\\' == text[j]) ? 2 : 1;
            }
            if (1 == depth && j - i - 1 == keylen && 0 == strncmp(text + i + 1, key, keylen)) {
                size_t t = j + 1;
                while (t < len && (' ' == text[t] || '\t' == text[t] || '\n' == text[t] ||
                                   '\r' == text[t] || ':' == text[t])) {
                    t++;
                }
                if (t < len && '[' == text[t]) {
                    in_key_array = 1;
                    depth = 2;
                    i = t;
                    continue;
                }
            }
            i = j;
            continue;
        }
        if ('{' == c || '[' == c) {
            if (in_key_array && 2 == depth) {
                if (seen++ == k) {
                    return line_at(text, i);
                }
            }
            depth++;
        } else if ('}' == c || ']' == c) {
            depth--;
            if (in_key_array && depth < 2) {
                in_key_array = 0;
            }
        }
    }
    return 1;
}

/*
 * json-c keeps the last of two equal keys of an object; a rules file must
 * not say two things at once, so a repeated key is an error.  Scans the
 * text (valid JSON by then) for the keys of each object; no object of
 * the format has more than MAX_OBJECT_KEYS, which bounds the comparisons.
 */
#define MAX_OBJECT_KEYS 16
#define MAX_NESTING 64

static themis_status_t check_duplicate_keys(const char *text, size_t len, char *msg,
                                            size_t msglen)
{
    struct {
        int object;
        int nkeys;
        size_t off[MAX_OBJECT_KEYS], len[MAX_OBJECT_KEYS];
    } *stack = calloc(MAX_NESTING, sizeof(*stack));
    int depth = -1;
    themis_status_t st = THEMIS_OK;

    if (NULL == stack) {
        return THEMIS_ERR_NOMEM;
    }
    for (size_t i = 0; THEMIS_OK == st && i < len; i++) {
        char c = text[i];
        /* json-c also takes comments and single-quoted strings. */
        if ('/' == c && i + 1 < len && '/' == text[i + 1]) {
            while (i < len && '\n' != text[i]) {
                i++;
            }
            continue;
        }
        if ('/' == c && i + 1 < len && '*' == text[i + 1]) {
            for (i += 2; i + 1 < len && !('*' == text[i] && '/' == text[i + 1]); i++) {
            }
            i++;
            continue;
        }
        if ('{' == c || '[' == c) {
            if (++depth >= MAX_NESTING) {
                say(msg, msglen, line_at(text, i), "nested more than %d deep", MAX_NESTING);
                st = THEMIS_ERR_PARSE;
                break;
            }
            stack[depth].object = '{' == c;
            stack[depth].nkeys = 0;
        } else if (('}' == c || ']' == c) && depth >= 0) {
            depth--;
        } else if ('"' == c || '\'' == c) {
            size_t j = i + 1;
            while (j < len && c != text[j]) {
                j += ('\\' == text[j]) ? 2 : 1;
            }
            if (j >= len) {
                break;      /* cannot happen in text json-c took */
            }
            size_t t = j + 1;
            while (t < len && (' ' == text[t] || '\t' == text[t] || '\n' == text[t] ||
                               '\r' == text[t])) {
                t++;
            }
            if (depth >= 0 && stack[depth].object && t < len && ':' == text[t]) {
                size_t off = i + 1, klen = j - i - 1;
                int n = stack[depth].nkeys;
                for (int k = 0; k < n; k++) {
                    if (stack[depth].len[k] == klen &&
                        0 == memcmp(text + stack[depth].off[k], text + off, klen)) {
                        say(msg, msglen, line_at(text, i), "key \"%.*s\" given twice in one "
                            "object (first on line %d)", (int) (klen < 40 ? klen : 40),
                            text + off, line_at(text, stack[depth].off[k]));
                        st = THEMIS_ERR_PARSE;
                    }
                }
                if (THEMIS_OK == st && MAX_OBJECT_KEYS == n) {
                    say(msg, msglen, line_at(text, i), "an object with more than %d keys",
                        MAX_OBJECT_KEYS);
                    st = THEMIS_ERR_PARSE;
                } else if (THEMIS_OK == st) {
                    stack[depth].off[n] = off;
                    stack[depth].len[n] = klen;
                    stack[depth].nkeys++;
                }
            }
            i = j;
        }
    }
    free(stack);
    return st;
}

/* An integer, or a string in the size syntax. */
static int get_size(json_object *v, uint64_t *out)
{
    if (json_type_int == json_object_get_type(v)) {
        errno = 0;
        int64_t x = json_object_get_int64(v);
        if (x < 0 || (INT64_MAX == x && 0 != errno)) {
            return 0;
        }
        *out = (uint64_t) x;
        return 1;
    }
    if (json_type_string == json_object_get_type(v)) {
        return THEMIS_OK == themis_parse_size(json_object_get_string(v), out);
    }
    return 0;
}

/* [lo, hi] of sizes, lo <= hi. */
static int get_range(json_object *v, uint64_t *lo, uint64_t *hi)
{
    return json_type_array == json_object_get_type(v) && 2 == json_object_array_length(v) &&
           get_size(json_object_array_get_idx(v, 0), lo) &&
           get_size(json_object_array_get_idx(v, 1), hi) && *lo <= *hi;
}

static int get_count(json_object *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t x;
    if (json_type_int != json_object_get_type(v) || !get_size(v, &x) || x < lo || x > hi) {
        return 0;
    }
    *out = (uint32_t) x;
    return 1;
}

static themis_status_t parse_colls(const char *s, uint32_t *colls)
{
    themis_coll_t c;
    if (0 == strcmp(s, "all")) {
        *colls = THEMIS_COLLS_ALL;
        return THEMIS_OK;
    }
    if (0 == strcmp(s, "reduce_scatter_block")) {
        s = "reduce_scatter";   /* shares reduce_scatter's rules */
    }
    if (THEMIS_OK != themis_coll_parse(s, &c)) {
        return THEMIS_ERR_PARSE;
    }
    *colls = THEMIS_COLL_BIT(c);
    return THEMIS_OK;
}

static themis_status_t parse_rule(json_object *o, int line, themis_rule_t *r, char *msg,
                                  size_t len)
{
    memset(r, 0, sizeof(*r));
    r->size_hi = UINT64_MAX;
    r->bytes_hi = UINT64_MAX;
    r->algorithm = THEMIS_RULE_UNSET;
    r->min_bytes = THEMIS_RULE_UNSET;
    r->line = line;
    if (json_type_object != json_object_get_type(o)) {
        say(msg, len, line, "a rule must be an object");
        return THEMIS_ERR_PARSE;
    }
    json_object_object_foreach(o, key, v) {
        if (0 == strcmp(key, "collective")) {
            if (json_type_string != json_object_get_type(v) ||
                THEMIS_OK != parse_colls(json_object_get_string(v), &r->colls)) {
                say(msg, len, line, "\"collective\" must be allreduce, reduce_scatter, "
                    "reduce_scatter_block, allgather or all");
                return THEMIS_ERR_PARSE;
            }
        } else if (0 == strcmp(key, "comm_size")) {
            if (!get_range(v, &r->size_lo, &r->size_hi)) {
                say(msg, len, line, "\"comm_size\" must be [lo, hi] with 0 <= lo <= hi");
                return THEMIS_ERR_PARSE;
            }
        } else if (0 == strcmp(key, "bytes")) {
            if (!get_range(v, &r->bytes_lo, &r->bytes_hi)) {
                say(msg, len, line, "\"bytes\" must be [lo, hi] (sizes, lo <= hi)");
                return THEMIS_ERR_PARSE;
            }
        } else if (0 == strcmp(key, "algorithm")) {
            const char *name = json_type_string == json_object_get_type(v)
                                   ? json_object_get_string(v) : NULL;
            int is_auto = NULL != name && 0 == strcmp(name, "auto");
            int index = themis_algorithm_index(name);
            r->algorithm = is_auto ? THEMIS_ALGO_AUTO : index;
            if (!is_auto && index < 0) {
                say(msg, len, line, "unknown algorithm %s%s%s (themis-plan algorithms lists "
                    "them)", NULL == name ? "" : "\"", NULL == name ? "(not a string)" : name,
                    NULL == name ? "" : "\"");
                return THEMIS_ERR_PARSE;
            }
        } else if (0 == strcmp(key, "chunks")) {
            if (!get_count(v, 1, THEMIS_RULES_MAX_CHUNKS, &r->chunks)) {
                say(msg, len, line, "\"chunks\" must be an integer from 1 to %u",
                    THEMIS_RULES_MAX_CHUNKS);
                return THEMIS_ERR_PARSE;
            }
        } else if (0 == strcmp(key, "chunks_in_flight")) {
            if (!get_count(v, 1, THEMIS_RULES_MAX_CHUNKS_IN_FLIGHT, &r->chunks_in_flight)) {
                say(msg, len, line, "\"chunks_in_flight\" must be an integer from 1 to %d",
                    THEMIS_RULES_MAX_CHUNKS_IN_FLIGHT);
                return THEMIS_ERR_PARSE;
            }
        } else if (0 == strcmp(key, "min_bytes")) {
            uint64_t x;
            if (!get_size(v, &x) || x > INT64_MAX) {
                say(msg, len, line, "\"min_bytes\" must be a size");
                return THEMIS_ERR_PARSE;
            }
            r->min_bytes = (int64_t) x;
        } else {
            say(msg, len, line, "unknown key \"%s\" in a rule", key);
            return THEMIS_ERR_PARSE;
        }
    }
    if (0 == r->colls) {
        say(msg, len, line, "a rule needs \"collective\"");
        return THEMIS_ERR_PARSE;
    }
    for (int c = 0; c < 3; c++) {
        if ((r->colls & THEMIS_COLL_BIT(c)) && THEMIS_RULE_UNSET != r->algorithm &&
            THEMIS_ALGO_AUTO != r->algorithm && !themis_algorithm_serves(r->algorithm, c)) {
            say(msg, len, line, "algorithm %s does not implement %s",
                themis_algorithm_get(r->algorithm)->name, themis_coll_name(c));
            return THEMIS_ERR_PARSE;
        }
    }
    return THEMIS_OK;
}

static themis_status_t parse_shape(json_object *o, int line, themis_rule_shape_t *s, char *msg,
                                   size_t len)
{
    json_object *size = NULL, *dims = NULL;
    char why[160];
    uint64_t prod = 1;

    memset(s, 0, sizeof(*s));
    s->line = line;
    if (json_type_object != json_object_get_type(o)) {
        say(msg, len, line, "a shape must be an object");
        return THEMIS_ERR_PARSE;
    }
    json_object_object_foreach(o, key, v) {
        if (0 == strcmp(key, "comm_size")) {
            size = v;
        } else if (0 == strcmp(key, "dims")) {
            dims = v;
        } else {
            say(msg, len, line, "unknown key \"%s\" in a shape", key);
            return THEMIS_ERR_PARSE;
        }
    }
    if (NULL == size || json_type_int != json_object_get_type(size) ||
        !get_size(size, &s->comm_size) || s->comm_size < 2) {
        say(msg, len, line, "a shape needs \"comm_size\", an integer >= 2");
        return THEMIS_ERR_PARSE;
    }
    if (NULL == dims || json_type_string != json_object_get_type(dims) ||
        THEMIS_OK != themis_parse_dims(json_object_get_string(dims), s->dims, &s->ndims, why,
                                       sizeof(why))) {
        say(msg, len, line, "\"dims\" must be a shape such as \"4x2\"%s%s",
            NULL == dims ? "" : ": ", NULL == dims ? "" : why);
        return THEMIS_ERR_PARSE;
    }
    int overflow = 0;
    for (int i = 0; i < s->ndims; i++) {
        overflow |= __builtin_mul_overflow(prod, (uint64_t) s->dims[i], &prod);
    }
    if (0 == s->ndims || overflow || prod != s->comm_size) {
        say(msg, len, line, "dims \"%s\" do not multiply to comm_size %llu",
            json_object_get_string(dims), (unsigned long long) s->comm_size);
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

/* x ends at v where y starts, and keeps points below v: v belongs to y,
 * so that ranges meet at their natural boundary ([0, "8MiB"] and
 * ["8MiB", ...]) without overlapping. */
static int yields(uint64_t v, uint64_t x_lo, uint64_t x_hi, uint64_t y_lo)
{
    return x_lo < x_hi && v == x_hi && v == y_lo;
}

/* Inclusive ranges that share a point other than such a boundary. */
static int overlap(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi)
{
    if (yields(a_hi, a_lo, a_hi, b_lo) || yields(b_hi, b_lo, b_hi, a_lo)) {
        return 0;
    }
    return a_lo <= b_hi && b_lo <= a_hi;
}

void themis_rules_free(themis_rules_t *r)
{
    if (NULL != r) {
        free(r->rules);
        free(r->shapes);
        memset(r, 0, sizeof(*r));
    }
}

themis_status_t themis_rules_parse(const char *text, size_t len, themis_rules_t *out, char *msg,
                                   size_t msglen)
{
    themis_status_t st = THEMIS_OK;
    json_tokener *tok;
    json_object *root;

    memset(out, 0, sizeof(*out));
    if (len > THEMIS_RULES_MAX_FILE) {
        say(msg, msglen, 1, "the file is larger than %u bytes", THEMIS_RULES_MAX_FILE);
        return THEMIS_ERR_PARSE;
    }
    if (NULL != memchr(text, '\0', len)) {
        say(msg, msglen, line_at(text, (size_t) ((const char *) memchr(text, '\0', len) - text)),
            "a NUL byte: not a JSON text file");
        return THEMIS_ERR_PARSE;
    }
    tok = json_tokener_new();
    if (NULL == tok) {
        return THEMIS_ERR_NOMEM;
    }
    root = json_tokener_parse_ex(tok, text, (int) len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t at = (size_t) json_tokener_get_parse_end(tok);
    if (NULL == root && json_tokener_continue == jerr && at == len) {
        /* A value at the very end (`null`, `5` without a newline) is only
         * complete once something follows: tell it from a truncated file. */
        root = json_tokener_parse_ex(tok, " ", 1);
        jerr = json_tokener_success == json_tokener_get_error(tok) ? json_tokener_success
                                                                  : json_tokener_continue;
    }
    if (NULL == root && json_tokener_success == jerr) {
        say(msg, msglen, line_at(text, strspn(text, " \t\r\n")),
            "the file is JSON null, not an object with \"rules\" and/or \"shapes\"");
        json_tokener_free(tok);
        return THEMIS_ERR_PARSE;
    }
    /* Trailing text after a complete value is an error too; white space
     * is not. */
    while (json_tokener_success == jerr && at < len &&
           (' ' == text[at] || '\n' == text[at] || '\t' == text[at] || '\r' == text[at])) {
        at++;
    }
    if (NULL == root || json_tokener_success != jerr || at < len) {
        say(msg, msglen, line_at(text, at < len ? at : len), "%s",
            json_tokener_success == jerr ? "text after the JSON value"
            : json_tokener_continue == jerr ? "unexpected end of the file (truncated?)"
                                            : json_tokener_error_desc(jerr));
        json_object_put(root);
        json_tokener_free(tok);
        return THEMIS_ERR_PARSE;
    }
    json_tokener_free(tok);
    if (THEMIS_OK != (st = check_duplicate_keys(text, len, msg, msglen))) {
        json_object_put(root);
        return st;
    }

    if (json_type_object != json_object_get_type(root)) {
        say(msg, msglen, 1, "the file must be a JSON object with \"rules\" and/or \"shapes\"");
        json_object_put(root);
        return THEMIS_ERR_PARSE;
    }
    json_object_object_foreach(root, key, v) {
        int is_rules = 0 == strcmp(key, "rules");
        if (!is_rules && 0 != strcmp(key, "shapes")) {
            say(msg, msglen, 1, "unknown top-level key \"%s\" (rules, shapes)", key);
            st = THEMIS_ERR_PARSE;
            break;
        }
        if (json_type_array != json_object_get_type(v)) {
            say(msg, msglen, 1, "\"%s\" must be an array", key);
            st = THEMIS_ERR_PARSE;
            break;
        }
        size_t n = json_object_array_length(v);
        if (is_rules) {
            out->rules = calloc(n > 0 ? n : 1, sizeof(*out->rules));
        } else {
            out->shapes = calloc(n > 0 ? n : 1, sizeof(*out->shapes));
        }
        if ((is_rules && NULL == out->rules) || (!is_rules && NULL == out->shapes)) {
            st = THEMIS_ERR_NOMEM;
            break;
        }
        for (size_t k = 0; THEMIS_OK == st && k < n; k++) {
            int line = element_line(text, len, key, k);
            json_object *e = json_object_array_get_idx(v, k);
            if (is_rules) {
                st = parse_rule(e, line, &out->rules[k], msg, msglen);
                out->nrules += THEMIS_OK == st;
            } else {
                st = parse_shape(e, line, &out->shapes[k], msg, msglen);
                out->nshapes += THEMIS_OK == st;
            }
        }
        if (THEMIS_OK != st) {
            break;
        }
    }
    json_object_put(root);

    for (size_t i = 0; THEMIS_OK == st && i < out->nrules; i++) {
        for (size_t j = 0; THEMIS_OK == st && j < i; j++) {
            const themis_rule_t *a = &out->rules[j], *b = &out->rules[i];
            if (0 != (a->colls & b->colls) &&
                overlap(a->size_lo, a->size_hi, b->size_lo, b->size_hi) &&
                overlap(a->bytes_lo, a->bytes_hi, b->bytes_lo, b->bytes_hi)) {
                say(msg, msglen, b->line, "this rule overlaps the rule of line %d (same "
                    "collective, communicator sizes and bytes)", a->line);
                st = THEMIS_ERR_PARSE;
            }
        }
    }
    for (size_t i = 0; THEMIS_OK == st && i < out->nshapes; i++) {
        for (size_t j = 0; THEMIS_OK == st && j < i; j++) {
            if (out->shapes[i].comm_size == out->shapes[j].comm_size) {
                say(msg, msglen, out->shapes[i].line, "a second shape for comm_size %llu "
                    "(the first is on line %d)",
                    (unsigned long long) out->shapes[i].comm_size, out->shapes[j].line);
                st = THEMIS_ERR_PARSE;
            }
        }
    }
    if (THEMIS_OK != st) {
        themis_rules_free(out);
        return st;
    }
    out->hash = themis_fnv1a(THEMIS_FNV_OFFSET, text, len);
    return THEMIS_OK;
}

themis_status_t themis_rules_load(const char *path, themis_rules_t *out, char *msg,
                                  size_t msglen)
{
    themis_parse_error_t e;
    char *buf;

    memset(out, 0, sizeof(*out));
    themis_status_t st = themis_read_text_file(path, THEMIS_RULES_MAX_FILE, "rules file", &buf,
                                               &e);
    if (THEMIS_OK != st) {
        snprintf(msg, msglen, "%s", e.message);
        return st;
    }
    st = themis_rules_parse(buf, strlen(buf), out, msg, msglen);
    free(buf);
    return st;
}

const themis_rule_t *themis_rules_match(const themis_rules_t *r, themis_coll_t coll,
                                        uint64_t comm_size, uint64_t bytes)
{
    const themis_rule_t *best = NULL;
    for (size_t i = 0; NULL != r && i < r->nrules; i++) {
        const themis_rule_t *x = &r->rules[i];
        if (0 != (x->colls & THEMIS_COLL_BIT(coll)) && x->size_lo <= comm_size &&
            comm_size <= x->size_hi && x->bytes_lo <= bytes && bytes <= x->bytes_hi) {
            /* Two rules match only on a boundary they meet at: the one
             * that starts there takes it. */
            if (NULL == best || yields(comm_size, best->size_lo, best->size_hi, x->size_lo) ||
                yields(bytes, best->bytes_lo, best->bytes_hi, x->bytes_lo)) {
                best = x;
            }
        }
    }
    return best;
}

const themis_rule_shape_t *themis_rules_shape(const themis_rules_t *r, uint64_t comm_size)
{
    for (size_t i = 0; NULL != r && i < r->nshapes; i++) {
        if (r->shapes[i].comm_size == comm_size) {
            return &r->shapes[i];
        }
    }
    return NULL;
}
