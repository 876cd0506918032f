/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The plan compiler's test world (test_plan.c): a case (collective, shape,
 * schedule source, element type), every rank's program built from it, run
 * together in vexec and checked against results computed from the inputs.
 */
#ifndef THEMIS_PLAN_WORLD_H
#define THEMIS_PLAN_WORLD_H

#include "plan_builder.h"
#include "scheduler.h"
#include "simulator.h"

typedef enum { ELEM_I64_SUM, ELEM_I32_MAX, ELEM_U16 } elem_kind_t;

typedef enum { SCHED_BASELINE, SCHED_THEMIS, SCHED_ROTATE, SCHED_PERMUTE } sched_src_t;

typedef struct {
    themis_coll_t coll;
    int ndims;
    uint32_t size[THEMIS_MAX_DIMS];
    uint64_t count;          /* AR: elements; AG: per rank; RS: base segment */
    int uneven;              /* RS: uneven segments with zeros */
    uint32_t nchunks;
    sched_src_t sched;
    /* real schedules: simulator policy; hand ones: FIFO = chunks in
     * ascending order per stage, SCF = descending */
    themis_order_policy_t policy;
    uint32_t chunks_in_flight;
    int algo;                /* 0 ring, 1 direct, 2 ring on even dims, direct on odd,
                              * 3 biring */
    int permuted;            /* non-identity coord_to_rank */
    int in_place;
    elem_kind_t elem;
    uint32_t seed;
} plan_case_t;

typedef struct {
    const plan_case_t *c;
    uint32_t nranks;
    size_t es;
    int *coord_to_rank;
    uint64_t *recvcounts, *displ;
    uint64_t total;              /* RS: sum of segments */
    themis_schedule_t sched;
    themis_intra_order_t order;
    themis_program_t *progs;
    unsigned char **in, **out, **expect;
    const void **inputs;
    uint64_t *out_count;         /* allocated output elements */
    uint64_t *result_count;      /* elements to check */
} world_t;

void describe(const plan_case_t *c, char *buf, size_t len);
uint32_t case_nranks(const plan_case_t *c);
int hand_order(const themis_schedule_t *s, int descending, themis_intra_order_t *o);
void order_free(themis_intra_order_t *o);
void world_free(world_t *w);
void case_request(const world_t *w, int rank, themis_plan_request_t *req);
int world_init(world_t *w, const plan_case_t *c, char *why, size_t len);
int world_execute(world_t *w, uint32_t seed, char *why, size_t len);
int world_check(const world_t *w, char *why, size_t len);
int run_case(const plan_case_t *c, char *why, size_t len);

#endif
