/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: themis_rules_parse (coll_themis_rules_filename) on any
 * bytes.  Accepted files must hold what rules.h promises: ordered ranges,
 * known algorithms, shapes that multiply to their size, and at most one
 * rule per call (each rule matches its own corner); refused ones must say
 * "line N:" with N inside the text, and leave nothing allocated.
 */
#include "fuzz_common.h"

#include "algorithm.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    themis_rules_t r;
    char msg[512];
    themis_status_t st = themis_rules_parse((const char *) data, size, &r, msg, sizeof(msg));

    if (THEMIS_OK != st) {
        int line = 0, lines = 1;
        FUZZ_CHECK(THEMIS_ERR_PARSE == st);
        FUZZ_CHECK(1 == sscanf(msg, "line %d:", &line));
        for (size_t i = 0; i < size; i++) {
            lines += '\n' == data[i];
        }
        FUZZ_CHECK(line >= 1 && line <= lines);
        FUZZ_CHECK(NULL == r.rules && NULL == r.shapes && 0 == r.nrules && 0 == r.nshapes);
        return 0;
    }
    for (size_t i = 0; i < r.nrules; i++) {
        const themis_rule_t *x = &r.rules[i];
        FUZZ_CHECK(0 != x->colls && x->size_lo <= x->size_hi && x->bytes_lo <= x->bytes_hi);
        FUZZ_CHECK(THEMIS_RULE_UNSET == x->algorithm || THEMIS_ALGO_AUTO == x->algorithm ||
                   NULL != themis_algorithm_get(x->algorithm));
        FUZZ_CHECK(x->chunks <= THEMIS_RULES_MAX_CHUNKS && x->chunks_in_flight <= THEMIS_RULES_MAX_CHUNKS_IN_FLIGHT);
        for (int c = 0; c < 3; c++) {
            if (0 != (x->colls & THEMIS_COLL_BIT(c))) {
                FUZZ_CHECK(x == themis_rules_match(&r, (themis_coll_t) c, x->size_lo,
                                                   x->bytes_lo));
                /* the upper corner is x's unless a rule that starts there
                 * meets x (ranges may meet: the boundary belongs to the
                 * range that starts at it) */
                const themis_rule_t *m = themis_rules_match(&r, (themis_coll_t) c, x->size_hi,
                                                            x->bytes_hi);
                FUZZ_CHECK(x == m || (NULL != m && (m->size_lo == x->size_hi ||
                                                    m->bytes_lo == x->bytes_hi)));
            }
        }
    }
    for (size_t i = 0; i < r.nshapes; i++) {
        uint64_t prod = 1;
        for (int d = 0; d < r.shapes[i].ndims; d++) {
            prod *= r.shapes[i].dims[d];
        }
        FUZZ_CHECK(prod == r.shapes[i].comm_size &&
                   &r.shapes[i] == themis_rules_shape(&r, r.shapes[i].comm_size));
    }
    themis_rules_free(&r);
    return 0;
}
