/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Rules files (planners/algorithms/rules.h): a valid file and its matches, and
 * malformed ones, each refused with the right line and reason.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "rules.h"
#include "unit.h"

static const char *valid =
    "{\n"
    "  \"rules\": [\n"
    "    { \"collective\": \"allreduce\", \"comm_size\": [2, 8], \"bytes\": [0, \"1MiB\"],\n"
    "      \"algorithm\": \"themis\", \"chunks\": 16, \"chunks_in_flight\": 1 },\n"
    "    { \"collective\": \"allreduce\", \"comm_size\": [2, 8], \"bytes\": [1048577, "
    "\"1TiB\"],\n"
    "      \"chunks\": 256, \"min_bytes\": \"4MB\" },\n"
    "    { \"collective\": \"reduce_scatter_block\", \"algorithm\": \"torus2d\" }\n"
    "  ],\n"
    "  \"shapes\": [ { \"comm_size\": 8, \"dims\": \"4x2\" } ]\n"
    "}\n";

static void test_valid(void)
{
    themis_rules_t r;
    char msg[256] = "";
    UNIT_CHECKF(THEMIS_OK == themis_rules_parse(valid, strlen(valid), &r, msg, sizeof(msg)),
                "%s", msg);
    UNIT_CHECK(3 == r.nrules && 1 == r.nshapes && 0 != r.hash);
    const themis_rule_t *a = themis_rules_match(&r, THEMIS_COLL_ALLREDUCE, 8, 1 << 20);
    UNIT_CHECK(NULL != a && 16 == a->chunks && 1 == a->chunks_in_flight && 3 == a->line &&
               themis_algorithm_index("themis") == a->algorithm &&
               THEMIS_RULE_UNSET == a->min_bytes);
    const themis_rule_t *b = themis_rules_match(&r, THEMIS_COLL_ALLREDUCE, 4, (1 << 20) + 1);
    UNIT_CHECK(NULL != b && 256 == b->chunks && 4000000 == b->min_bytes &&
               THEMIS_RULE_UNSET == b->algorithm && 5 == b->line);
    UNIT_CHECK(NULL == themis_rules_match(&r, THEMIS_COLL_ALLREDUCE, 9, 100));
    UNIT_CHECK(NULL == themis_rules_match(&r, THEMIS_COLL_ALLGATHER, 4, 100));
    const themis_rule_t *c = themis_rules_match(&r, THEMIS_COLL_REDUCE_SCATTER, 1000, 1);
    UNIT_CHECK(NULL != c && themis_algorithm_index("torus2d") == c->algorithm);
    const themis_rule_shape_t *s = themis_rules_shape(&r, 8);
    UNIT_CHECK(NULL != s && 2 == s->ndims && 4 == s->dims[0] && 2 == s->dims[1]);
    UNIT_CHECK(NULL == themis_rules_shape(&r, 6));
    themis_rules_free(&r);
}

/* Ranges that meet at their natural boundary load; the boundary belongs
 * to the range that starts there, in either dimension and file order. */
static void test_boundaries(void)
{
    static const char *text =
        "{ \"rules\": [\n"
        "  { \"collective\": \"allreduce\", \"bytes\": [\"8MiB\", \"1GiB\"], \"chunks\": 2 },\n"
        "  { \"collective\": \"allreduce\", \"bytes\": [0, \"8MiB\"], \"chunks\": 1 },\n"
        "  { \"collective\": \"allgather\", \"comm_size\": [2, 64], \"chunks\": 3 },\n"
        "  { \"collective\": \"allgather\", \"comm_size\": [64, 128], \"chunks\": 4 }\n"
        "] }\n";
    const uint64_t mib8 = 8u << 20;
    themis_rules_t r;
    char msg[256] = "";
    UNIT_CHECKF(THEMIS_OK == themis_rules_parse(text, strlen(text), &r, msg, sizeof(msg)),
                "%s", msg);
    const themis_rule_t *a = themis_rules_match(&r, THEMIS_COLL_ALLREDUCE, 8, mib8 - 1);
    const themis_rule_t *b = themis_rules_match(&r, THEMIS_COLL_ALLREDUCE, 8, mib8);
    const themis_rule_t *c = themis_rules_match(&r, THEMIS_COLL_ALLGATHER, 63, 100);
    const themis_rule_t *d = themis_rules_match(&r, THEMIS_COLL_ALLGATHER, 64, 100);
    UNIT_CHECK(NULL != a && 1 == a->chunks);
    UNIT_CHECK(NULL != b && 2 == b->chunks);
    UNIT_CHECK(NULL != c && 3 == c->chunks);
    UNIT_CHECK(NULL != d && 4 == d->chunks);
    themis_rules_free(&r);
}

/* Refused, with "line N:" and a word of the reason in the message. */
/* len SIZE_MAX: strlen(text). */
static void refused(const char *name, const char *text, size_t len, int line, const char *word)
{
    len = SIZE_MAX == len ? strlen(text) : len;
    themis_rules_t r;
    char msg[512] = "", want[32];
    themis_status_t st = themis_rules_parse(text, len, &r, msg, sizeof(msg));
    snprintf(want, sizeof(want), "line %d:", line);
    UNIT_CHECKF(THEMIS_ERR_PARSE == st && 0 == strncmp(msg, want, strlen(want)) &&
                    NULL != strstr(msg, word) && NULL == r.rules && NULL == r.shapes,
                "%s: status %d, message \"%s\" (want \"%s ... %s\")", name, (int) st, msg, want,
                word);
    themis_rules_free(&r);
}

static void test_malformed(void)
{
    size_t half = strlen(valid) / 2;
    refused("truncated", valid, half, 5, "end of the file");
    refused("empty", "", 0, 1, "end of the file");
    refused("not an object", "[1, 2]", SIZE_MAX, 1, "JSON object");
    refused("trailing text", "{\"rules\": []} x", SIZE_MAX, 1, "after the JSON value");
    /* A complete value at the very end is not "truncated". */
    refused("null", "null", SIZE_MAX, 1, "JSON null");
    refused("null and newline", "\n null\n", SIZE_MAX, 2, "JSON null");
    refused("number at the end", "5", SIZE_MAX, 1, "JSON object");
    /* json-c would keep the last of two equal keys. */
    refused("duplicate top-level key", "{\"rules\": [],\n \"rules\": []}", SIZE_MAX, 2,
            "key \"rules\" given twice in one object (first on line 1)");
    /* json-c takes comments and single quotes: the key scan must too
     * (a quote or brace inside them used to send it out of its stack). */
    refused("duplicate single-quoted key", "{'rules': [] /* } \" { */,\n \"rules\": []}",
            SIZE_MAX, 2, "key \"rules\" given twice");
    refused("fuzz: single-quoted braces", "'\"a\"}chunks_i{_flight\"ll\"\"'", SIZE_MAX, 1,
            "JSON object");
    refused("duplicate rule key",
            "{\"rules\": [\n {\"collective\": \"allreduce\", \"chunks\": 4,\n"
            "  \"chunks\": 8}]}", SIZE_MAX, 3, "key \"chunks\" given twice");
    refused("wrong type chunks",
            "{\"rules\": [\n {\"collective\": \"allreduce\", \"chunks\": \"many\"}]}", SIZE_MAX, 2,
            "\"chunks\"");
    refused("wrong type range",
            "{\"rules\": [{\"collective\": \"allgather\"},\n {\"collective\": \"allreduce\", "
            "\"bytes\": 5}]}",
            SIZE_MAX, 2, "\"bytes\"");
    refused("reversed range",
            "{\"rules\": [{\"collective\": \"allreduce\", \"comm_size\": [8, 2]}]}", SIZE_MAX, 1,
            "comm_size");
    refused("unknown algorithm",
            "{\n\"rules\": [\n{\"collective\": \"allreduce\"},\n\n{\"collective\": \"allgather\", "
            "\"algorithm\": \"ring\"}]}",
            SIZE_MAX, 5, "unknown algorithm \"ring\"");
    refused("unknown key",
            "{\"rules\": [{\"collective\": \"allreduce\", \"chunk\": 4}]}", SIZE_MAX, 1, "\"chunk\"");
    refused("no collective", "{\"rules\": [{\"chunks\": 4}]}", SIZE_MAX, 1, "\"collective\"");
    /* A product of dims beyond 64 bits is not a match (found by fuzz_rules). */
    refused("dims product overflow",
            "{ \"shapes\": [ { \"comm_size\": 6, \"dims\": "
            "\"2147483647x2147483647x2147483647x2\" } ] }", SIZE_MAX, 1, "do not multiply");
    refused("overlap",
            "{\"rules\": [\n{\"collective\": \"allreduce\", \"bytes\": [0, 100]},\n"
            "{\"collective\": \"all\", \"bytes\": [99, 200]}]}",
            SIZE_MAX, 3, "overlaps the rule of line 2");
    /* A one-point range at another's start is that start: both claim it. */
    refused("overlap at a point",
            "{\"rules\": [\n{\"collective\": \"allreduce\", \"bytes\": [100, 100]},\n"
            "{\"collective\": \"all\", \"bytes\": [100, 200]}]}",
            SIZE_MAX, 3, "overlaps the rule of line 2");
    refused("chunks_in_flight range",
            "{\"rules\": [{\"collective\": \"allreduce\", \"chunks_in_flight\": 33}]}", SIZE_MAX, 1,
            "chunks_in_flight");
    refused("shape product", "{\"shapes\": [{\"comm_size\": 8, \"dims\": \"3x2\"}]}", SIZE_MAX, 1,
            "multiply");
    refused("two shapes",
            "{\"shapes\": [{\"comm_size\": 4, \"dims\": \"2x2\"},\n{\"comm_size\": 4, \"dims\": "
            "\"4\"}]}",
            SIZE_MAX, 2, "second shape");
    refused("unknown top key", "{\"rule\": []}", SIZE_MAX, 1, "\"rule\"");
    refused("NUL byte", "{\"rules\"\0: []}", 14, 1, "NUL");

    /* 1 MB of garbage: refused quickly, no crash. */
    size_t n = 1000000;
    char *g = malloc(n);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g[i] = (char) (' ' + x % 95);
    }
    themis_rules_t r;
    char msg[256] = "";
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_rules_parse(g, n, &r, msg, sizeof(msg)) &&
               0 == strncmp(msg, "line ", 5));
    free(g);
    UNIT_CHECK(THEMIS_ERR_IO == themis_rules_load("/nonexistent/rules.json", &r, msg,
                                                  sizeof(msg)));
}

int main(void)
{
    UNIT_RUN(test_valid);
    UNIT_RUN(test_boundaries);
    UNIT_RUN(test_malformed);
    UNIT_EXIT();
}
