/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: themis_graph_parse (the graph file format of
 * coll_themis_graph and every --graph option) on any bytes.  A refused
 * file must say where and why and leave nothing allocated; an accepted one
 * must hold links within its nodes and limits, write back to a file that
 * parses to the same hash, and route between its first and last node
 * without touching anything out of range.
 */
#include "fuzz_common.h"

#include "graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    FUZZ_CHECK(NULL != text);
    memcpy(text, data, size);
    text[size] = '\0';
    themis_graph_t g, again;
    themis_parse_error_t err;
    memset(&err, 0, sizeof(err));
    themis_status_t st = themis_graph_parse(text, &g, &err);
    free(text);
    if (THEMIS_OK != st) {
        FUZZ_CHECK(THEMIS_ERR_PARSE == st || THEMIS_ERR_INVALID == st ||
                   THEMIS_ERR_UNSUPPORTED == st);
        FUZZ_CHECK(err.line >= 1 && err.column >= 1);
        FUZZ_CHECK(NULL != memchr(err.message, '\0', sizeof(err.message)) &&
                   '\0' != err.message[0]);
        FUZZ_CHECK(NULL == g.links && 0 == g.nlinks);
        return 0;
    }
    FUZZ_CHECK(g.nnodes >= 1 && g.nnodes <= THEMIS_GRAPH_MAX_NODES);
    for (uint32_t i = 0; i < g.nlinks; i++) {
        const themis_link_t *l = &g.links[i];
        FUZZ_CHECK(l->src < g.nnodes && l->dst < g.nnodes && l->src != l->dst);
        FUZZ_CHECK(l->bw_bps > 0 && l->lat_ps <= THEMIS_GRAPH_MAX_LAT_PS);
    }
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    FUZZ_CHECK(NULL != f);
    FUZZ_CHECK(0 == themis_graph_write(&g, f));
    FUZZ_CHECK(0 == fclose(f));
    memset(&err, 0, sizeof(err));
    st = themis_graph_parse(out, &again, &err);
    if (THEMIS_OK != st) {
        fprintf(stderr, "re-parse: %d:%d: %s\n%s", err.line, err.column, err.message, out);
    }
    FUZZ_CHECK(THEMIS_OK == st);
    FUZZ_CHECK(themis_graph_hash(&again) == themis_graph_hash(&g));
    themis_graph_free(&again);
    free(out);
    if (g.nnodes <= 4096) {
        uint32_t *route = malloc((size_t) g.nnodes * sizeof(*route)), nhops = 0;
        FUZZ_CHECK(NULL != route);
        if (THEMIS_OK == themis_graph_route(&g, 0, g.nnodes - 1, route, &nhops)) {
            uint32_t at = 0;
            for (uint32_t h = 0; h < nhops; h++) {
                FUZZ_CHECK(route[h] < g.nlinks && g.links[route[h]].src == at);
                FUZZ_CHECK(themis_graph_link_working(&g, route[h]));
                at = g.links[route[h]].dst;
            }
            FUZZ_CHECK(at == g.nnodes - 1);
        }
        free(route);
    }
    themis_graph_free(&g);
    return 0;
}
