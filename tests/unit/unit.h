/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Minimal test harness: each test case prints "PASS: name" or
 * "FAIL: name (reason)"; tests/run_all.sh counts those lines.  The exit
 * status is non-zero when any case failed.
 */
#ifndef THEMIS_UNIT_H
#define THEMIS_UNIT_H

#include <stdio.h>
#include <string.h>

#include "topology.h"

static int unit_failed_cases;
static int unit_case_failed;

#define UNIT_CHECK(cond)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            if (!unit_case_failed) {                                              \
                printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            }                                                                     \
            unit_case_failed = 1;                                                 \
        }                                                                         \
    } while (0)

#define UNIT_CHECKF(cond, ...)                                          \
    do {                                                                \
        if (!(cond)) {                                                  \
            if (!unit_case_failed) {                                    \
                printf("  %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
                printf(__VA_ARGS__);                                    \
                printf("\n");                                           \
            }                                                           \
            unit_case_failed = 1;                                       \
        }                                                               \
    } while (0)

#define UNIT_RUN(fn)                                     \
    do {                                                 \
        unit_case_failed = 0;                            \
        fn();                                            \
        printf("%s: %s\n", unit_case_failed ? "FAIL" : "PASS", #fn); \
        fflush(stdout);                                  \
        unit_failed_cases += unit_case_failed;           \
    } while (0)

#define UNIT_EXIT() return (0 == unit_failed_cases) ? 0 : 1

/* The topology of a spec (a test's own input: a parse error is printed
 * and leaves it empty, which the test's checks then catch). */
static inline themis_topology_t unit_topology(const char *spec)
{
    themis_topology_t t;
    themis_parse_error_t e;
    memset(&t, 0, sizeof(t));
    if (THEMIS_OK != themis_topology_parse(spec, &t, &e)) {
        printf("  cannot parse %s: %s\n", spec, e.message);
    }
    return t;
}

#endif
