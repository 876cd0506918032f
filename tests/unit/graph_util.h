/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Graph and transfer helpers the graph, cluster and link simulator tests
 * share.
 */
#ifndef THEMIS_TEST_GRAPH_UTIL_H
#define THEMIS_TEST_GRAPH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "transfer.h"

/* A spec's graph (a test's own input: an error is printed and leaves the
 * graph empty, which the checks then catch). */
static inline themis_graph_t load(const char *spec)
{
    themis_graph_t g;
    themis_parse_error_t e;
    if (THEMIS_OK != themis_graph_load(spec, NULL, &g, &e)) {
        printf("  cannot load %s: %d:%d: %s\n", spec, e.line, e.column, e.message);
    }
    return g;
}

/* The graph in its file format (malloc'ed), NULL on an error. */
static inline char *written(const themis_graph_t *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (NULL == f) {
        return NULL;
    }
    int rc = themis_graph_write(g, f);
    fclose(f);
    if (0 != rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A one-unit copy src -> dst after deps. */
static inline void add(themis_xfer_sched_t *s, uint32_t src, uint32_t dst, const uint32_t *deps,
                       uint32_t ndeps)
{
    themis_xfer_t x;
    memset(&x, 0, sizeof(x));
    x.src = src;
    x.dst = dst;
    x.kind = THEMIS_XFER_COPY;
    x.count = 1;
    themis_xfer_add(s, &x, deps, ndeps, NULL);
}

#endif
