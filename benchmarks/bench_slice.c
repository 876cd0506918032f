/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-rank planning time of the rings and torus2d rows: the plan_torus
 * programs they ran before (plan_torus.h), their transfer list's slice
 * for the rank compiled (transfer_slice.h, what they run now), and the
 * whole list compiled for one rank (what slices replace).  Prints the
 * mean milliseconds of CPU per rank of each (CPU time: the machine may be
 * shared).  A benchmark, not a test: timing
 * depends on the machine.
 *
 * usage: bench_slice [ROWS [COLS [CHUNKS [COUNT [WHOLE_RANKS]]]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hamiltonian.h"
#include "plan_torus.h"
#include "xfer_ring.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    uint32_t rows = argc > 1 ? (uint32_t) strtoul(argv[1], NULL, 10) : 8;
    uint32_t cols = argc > 2 ? (uint32_t) strtoul(argv[2], NULL, 10) : 8;
    uint32_t k = argc > 3 ? (uint32_t) strtoul(argv[3], NULL, 10) : 4;
    uint64_t count = argc > 4 ? strtoull(argv[4], NULL, 10) : 1u << 20;
    uint32_t whole_ranks = argc > 5 ? (uint32_t) strtoul(argv[5], NULL, 10) : 2;
    uint32_t n = rows * cols;
    themis_ham_t ham;
    char why[256];
    if (THEMIS_OK != themis_ham_build(rows, cols, &ham, NULL, 0)) {
        fprintf(stderr, "no Hamiltonian cycles for %ux%u\n", rows, cols);
        return 1;
    }
    for (int rings = 1; rings >= 0; rings--) {
        themis_plan_request_t req;
        memset(&req, 0, sizeof(req));
        req.coll = THEMIS_COLL_ALLREDUCE;
        req.ndims = 2;
        req.dim_size[0] = cols;
        req.dim_size[1] = rows;
        req.count = count;
        req.chunks_in_flight = 2;
        double t0 = now_ms();
        for (uint32_t r = 0; r < n; r++) {
            themis_program_t p;
            req.rank = (int) r;
            themis_status_t st = rings ? themis_program_build_rings(&req, &ham, k, &p)
                                       : themis_program_build_torus2d(&req, k, &p);
            if (THEMIS_OK != st) {
                fprintf(stderr, "plan_torus: %s\n", themis_status_string(st));
                return 1;
            }
            themis_program_free(&p);
        }
        double t1 = now_ms();
        for (uint32_t r = 0; r < n; r++) {
            themis_xfer_slice_t sl;
            themis_program_t p;
            themis_status_t st = rings ? themis_xfer_rings_slice(req.coll, &ham, NULL, k, r, &sl)
                                       : themis_xfer_torus2d_slice(req.coll, rows, cols, NULL, k,
                                                                   r, &sl);
            if (THEMIS_OK == st) {
                st = themis_xfer_slice_compile(&sl, count, NULL, 2, 0, &p, why, sizeof(why));
            }
            if (THEMIS_OK != st) {
                fprintf(stderr, "slice: %s\n", themis_status_string(st));
                return 1;
            }
            themis_program_free(&p);
            themis_xfer_slice_free(&sl);
        }
        double t2 = now_ms(), whole = -1.0;
        themis_xfer_sched_t s;
        themis_status_t st = rings ? themis_xfer_rings(req.coll, &ham, NULL, k, &s)
                                   : themis_xfer_torus2d(req.coll, rows, cols, NULL, k, &s);
        double t3 = now_ms();
        uint32_t done = 0;
        for (uint32_t r = 0; THEMIS_OK == st && r < n && done < whole_ranks; r += n / whole_ranks) {
            themis_program_t p;
            if (THEMIS_OK == themis_xfer_compile(&s, (int) r, count, NULL, 2, &p, why,
                                                 sizeof(why))) {
                themis_program_free(&p);
                done++;
            }
        }
        if (done > 0) {
            whole = (now_ms() - t3) / done;
        }
        printf("%s %ux%u chunks %u count %llu: plan_torus_ms_per_rank=%.3f "
               "slice_ms_per_rank=%.3f whole_list_ms=%.1f whole_compile_ms_per_rank=%.1f%s\n",
               rings ? "rings" : "torus2d", rows, cols, k, (unsigned long long) count,
               (t1 - t0) / n, (t2 - t1) / n, THEMIS_OK == st ? t3 - t2 : -1.0, whole,
               THEMIS_OK == st ? "" : " (whole list refused)");
        if (THEMIS_OK == st) {
            themis_xfer_free(&s);
        }
    }
    themis_ham_free(&ham);
    return 0;
}
