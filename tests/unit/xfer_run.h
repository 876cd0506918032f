/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * One way for the unit tests to prove a transfer schedule: check it,
 * compile it, run every rank's program under vexec, compare the result.
 */
#ifndef THEMIS_TEST_XFER_RUN_H
#define THEMIS_TEST_XFER_RUN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "transfer.h"
#include "unit.h"
#include "vexec.h"

static void sum_i64(void *inout, const void *in, uint64_t n)
{
    int64_t *a = inout;
    const int64_t *b = in;
    for (uint64_t i = 0; i < n; i++) {
        a[i] += b[i];
    }
}

/* Checks s, compiles it for every rank, runs the programs under `seeds`
 * interleavings and compares every rank's output with the collective
 * computed directly (int64 sums of distinct inputs).  counts: the
 * reduce-scatter's recvcounts (NULL: total split evenly). */
static inline void xfer_run_counts(const themis_xfer_sched_t *s, uint64_t total, const uint64_t *counts,
                            uint32_t in_flight, uint32_t seeds)
{
    char why[256] = "";
    uint32_t p = s->nranks;
    uint64_t in_count = s->coll == THEMIS_COLL_ALLGATHER ? total / p : total;
    themis_program_t *progs = calloc(p, sizeof(*progs));
    themis_program_t **pp = calloc(p, sizeof(*pp));
    int64_t **in = calloc(p, sizeof(*in)), **out = calloc(p, sizeof(*out));
    uint64_t *out_count = calloc(p, sizeof(*out_count)), *displ = calloc(p, sizeof(*displ));

    UNIT_CHECKF(THEMIS_OK == themis_xfer_check(s, why, sizeof(why)), "%s", why);
    for (uint32_t r = 0; r < p; r++) {
        out_count[r] = total;
        if (s->coll == THEMIS_COLL_REDUCE_SCATTER) {
            out_count[r] = NULL != counts ? counts[r] : total / p + (r < total % p);
        }
        displ[r] = 0 == r ? 0 : displ[r - 1] + out_count[r - 1];
        UNIT_CHECKF(THEMIS_OK == themis_xfer_compile(s, (int)r, total, counts, in_flight,
                                                     &progs[r], why, sizeof(why)),
                    "%s", why);
        pp[r] = &progs[r];
        in[r] = malloc((in_count + 1) * sizeof(int64_t));
        out[r] = malloc((out_count[r] + 1) * sizeof(int64_t));
        for (uint64_t i = 0; i < in_count; i++) {
            in[r][i] = (int64_t)(1000 * r + i * 7 + 1);
        }
    }
    for (uint32_t seed = 1; seed <= seeds && !unit_case_failed; seed++) {
        char err[512];
        for (uint32_t r = 0; r < p; r++) {
            memset(out[r], 0xab, out_count[r] * sizeof(int64_t));
        }
        int rc = vexec_run((int)p, pp, (const void *const *)in, (void *const *)out,
                           sizeof(int64_t), sum_i64, seed, err, sizeof(err));
        UNIT_CHECKF(0 == rc, "%s seed %u: %s", s->name, seed, err);
        for (uint32_t r = 0; 0 == rc && r < p; r++) {
            for (uint64_t i = 0; i < out_count[r]; i++) {
                int64_t want = 0;
                if (THEMIS_COLL_ALLGATHER == s->coll) {
                    want = in[i / in_count][i % in_count];
                } else {
                    uint64_t g = THEMIS_COLL_REDUCE_SCATTER == s->coll ? displ[r] + i : i;
                    for (uint32_t q = 0; q < p; q++) {
                        want += in[q][g];
                    }
                }
                UNIT_CHECKF(out[r][i] == want, "%s seed %u rank %u element %llu: %lld, want %lld",
                            s->name, seed, r, (unsigned long long)i, (long long)out[r][i],
                            (long long)want);
            }
        }
    }
    for (uint32_t r = 0; r < p; r++) {
        themis_program_free(&progs[r]);
        free(in[r]);
        free(out[r]);
    }
    free(progs);
    free(pp);
    free(in);
    free(out);
    free(out_count);
    free(displ);
}

static inline void xfer_run_schedule(const themis_xfer_sched_t *s, uint64_t total, uint32_t in_flight,
                              uint32_t seeds)
{
    xfer_run_counts(s, total, NULL, in_flight, seeds);
}

#endif
