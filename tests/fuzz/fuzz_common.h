/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Shared by the libFuzzer targets: the input as a C string, and a check
 * that aborts (a finding for libFuzzer) with the failed condition.
 */
#ifndef THEMIS_FUZZ_COMMON_H
#define THEMIS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

#define FUZZ_CHECK(cond)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                 \
        }                                                                            \
    } while (0)

/* data[0 .. size) and a NUL; the parsers take C strings, so an embedded
 * NUL simply ends the text early. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(NULL != s);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* What every topology parse must satisfy, whatever the text: a result
 * the planners accept that survives format -> parse unchanged, or a
 * parse error with a message and a position inside the text (a missing
 * field is reported just past the end of its line). */
static inline void fuzz_check_topology(const char *text, themis_status_t st,
                                       const themis_topology_t *t, const themis_parse_error_t *e)
{
    if (THEMIS_OK == st) {
        char msg[128], buf[1024];
        themis_topology_t again;
        themis_parse_error_t e2;
        FUZZ_CHECK(THEMIS_OK == themis_topology_check(t, msg, sizeof(msg)));
        int n = themis_topology_format(t, buf, sizeof(buf));
        FUZZ_CHECK(n > 0 && (size_t) n < sizeof(buf));
        FUZZ_CHECK(n == themis_topology_format(t, NULL, 0));
        FUZZ_CHECK(THEMIS_OK == themis_topology_parse(buf, &again, &e2));
        FUZZ_CHECK(again.ndims == t->ndims);
        for (int i = 0; i < t->ndims; i++) {
            FUZZ_CHECK(again.dims[i].size == t->dims[i].size);
            FUZZ_CHECK(again.dims[i].kind == t->dims[i].kind);
            FUZZ_CHECK(again.dims[i].bw_bps == t->dims[i].bw_bps);
            FUZZ_CHECK(again.dims[i].step_latency == t->dims[i].step_latency);
        }
        return;
    }
    FUZZ_CHECK(THEMIS_ERR_PARSE == st);
    FUZZ_CHECK(NULL != memchr(e->message, '\0', sizeof(e->message)));
    FUZZ_CHECK('\0' != e->message[0]);
    /* the line e->line of text, 1-based */
    const char *line = text;
    FUZZ_CHECK(e->line >= 1);
    for (int l = 1; l < e->line; l++) {
        line = strchr(line, '\n');
        FUZZ_CHECK(NULL != line);
        line++;
    }
    const char *nl = strchr(line, '\n');
    size_t len = (NULL != nl) ? (size_t) (nl - line) : strlen(line);
    FUZZ_CHECK(e->column >= 1 && (size_t) e->column <= len + 1);
}

#endif
