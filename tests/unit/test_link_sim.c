/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Link-level simulator (planners/network/link_sim.h) on cases computed by hand
 * (the duplex rate too),
 * and the ring generator (planners/schedule/xfer_ring.h): its shape, its
 * dependencies, a symbolic run of its result, its time on ring:P against
 * 2(P-1)/P N 8/B + 2(P-1) lat, and the p3.16xlarge ring on dual links;
 * the routes' chain bound (route_table.h) exact on a chain and never above
 * the simulated time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "graph_util.h"
#include "link_sim.h"
#include "route_table.h"
#include "unit.h"
#include "xfer_ring.h"

#define GB 1000000000ULL
#define US 1000000ULL

static themis_graph_t graph(const char *text)
{
    themis_graph_t g;
    themis_parse_error_t e;
    if (THEMIS_OK != themis_graph_parse(text, &g, &e)) {
        printf("  cannot parse graph: %d:%d: %s\n", e.line, e.column, e.message);
    }
    return g;
}

/* 1000-byte units: 1 us on an 8 Gb/s link. */
static themis_status_t sim(const themis_graph_t *g, themis_xfer_sched_t *s, themis_link_sim_t *r,
                           char *why, size_t len)
{
    return themis_link_sim(g, s, 1000, r, why, len);
}

static void test_one_link(void)
{
    themis_graph_t g = graph("0 1 8Gb 500ns\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 2, 1);
    add(&s, 0, 1, NULL, 0);
    UNIT_CHECKF(THEMIS_OK == sim(&g, &s, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECK(0 == r.start_ps[0] && 1500000 == r.finish_ps[0] && 1500000 == r.total_ps);
    UNIT_CHECK(1000 == r.link_bytes[0] && US == r.link_busy_ps[0] && 0 == r.busiest_link &&
               666666 == r.busiest_util_ppm);
    themis_link_sim_free(&r);
    /* bytes x 8 / bw rounds up to a whole ps: 1 byte at 3 b/s */
    g.links[0].bw_bps = 3;
    UNIT_CHECK(THEMIS_OK == themis_link_sim(&g, &s, 1, &r, why, sizeof(why)) &&
               2666666666667ULL + 500000 == r.finish_ps[0]);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

static void test_shared_link(void)
{
    themis_graph_t g = graph("0 1 8Gb 500ns\n2 3 8Gb 500ns\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    uint32_t d0 = 0;
    /* t0 local, t1 after it (ready 0), t2 and t3 ready 0: index order */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 0, NULL, 0);
    add(&s, 0, 1, &d0, 1);
    add(&s, 0, 1, NULL, 0);
    add(&s, 0, 1, NULL, 0);
    add(&s, 2, 3, NULL, 0);
    UNIT_CHECKF(THEMIS_OK == sim(&g, &s, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECK(0 == r.start_ps[0] && 0 == r.finish_ps[0]);
    UNIT_CHECK(0 == r.start_ps[1] && 1500000 == r.finish_ps[1]);
    UNIT_CHECK(US == r.start_ps[2] && 2500000 == r.finish_ps[2]);
    UNIT_CHECK(2 * US == r.start_ps[3] && 3500000 == r.finish_ps[3]);
    /* a different link overlaps */
    UNIT_CHECK(0 == r.start_ps[4] && 1500000 == r.finish_ps[4]);
    UNIT_CHECK(3500000 == r.total_ps && 3000 == r.link_bytes[0] && 1000 == r.link_bytes[1]);
    UNIT_CHECK(0 == r.busiest_link && 3 * US * 1000000 / 3500000 == r.busiest_util_ppm);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

/* A link takes the transfer that reached it first, not the lowest index. */
static void test_fifo(void)
{
    themis_graph_t g = graph("0 1 8Gb 0ps\n2 0 16Gb 0ps\n3 0 80Gb 0ps\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 1, NULL, 0);     /* link 0 -> 1 busy [0, 1 us) */
    add(&s, 2, 1, NULL, 0);     /* reaches node 0 at 0.5 us */
    add(&s, 3, 1, NULL, 0);     /* reaches node 0 at 0.1 us */
    UNIT_CHECKF(THEMIS_OK == sim(&g, &s, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECK(US == r.finish_ps[0]);
    UNIT_CHECK(0 == r.start_ps[2] && 2 * US == r.finish_ps[2]);
    UNIT_CHECK(0 == r.start_ps[1] && 3 * US == r.finish_ps[1]);
    UNIT_CHECK(3000 == r.link_bytes[0] && 1000 == r.link_bytes[1] && 1000 == r.link_bytes[2]);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

static void test_multi_hop_and_deps(void)
{
    themis_graph_t g = graph("0 1 8Gb 500ns both\n1 2 8Gb 500ns both\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    uint32_t d;
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 1);
    add(&s, 0, 2, NULL, 0);     /* two hops: 2 x (1 us + 0.5 us) */
    d = 0;
    add(&s, 2, 1, &d, 1);       /* after t0: 3 us .. 4.5 us */
    d = 1;
    add(&s, 1, 1, &d, 1);       /* local: no time */
    add(&s, 1, 0, &d, 1);       /* 4.5 us .. 6 us */
    UNIT_CHECKF(THEMIS_OK == sim(&g, &s, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECK(0 == r.start_ps[0] && 3 * US == r.finish_ps[0]);
    UNIT_CHECK(3 * US == r.start_ps[1] && 4500000 == r.finish_ps[1]);
    UNIT_CHECK(4500000 == r.start_ps[2] && 4500000 == r.finish_ps[2]);
    UNIT_CHECK(4500000 == r.start_ps[3] && 6 * US == r.finish_ps[3] && 6 * US == r.total_ps);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

/* Duplex rate: 0 -> 1 (2 units) alone until 2 -> 1 -> 0 reaches node 1 at
 * 1 us; from there both directions of 0 <-> 1 run at half rate: 0 -> 1
 * has 1 us of work left (2 us at half), 1 -> 0 one unit (2 us).  Only
 * the two directions of one rank pair slow each other down. */
static void test_duplex(void)
{
    themis_graph_t g = graph("0 1 8Gb 0ps both\n2 1 8Gb 0ps\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r, full;
    char why[160];
    themis_xfer_t x;
    uint32_t d = 1;
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 2);
    memset(&x, 0, sizeof(x));
    x.src = 0;
    x.dst = 1;
    x.count = 2;
    themis_xfer_add(&s, &x, NULL, 0, NULL);
    add(&s, 2, 1, NULL, 0);
    add(&s, 1, 0, &d, 1);
    UNIT_CHECKF(THEMIS_OK == themis_link_sim_duplex(&g, &s, 1000, 500000, &r, why, sizeof(why)),
                "%s", why);
    UNIT_CHECK(3 * US == r.finish_ps[0] && US == r.finish_ps[1] && US == r.start_ps[2] &&
               3 * US == r.finish_ps[2] && 3 * US == r.total_ps);
    /* busy is time serving, at whatever rate */
    UNIT_CHECK(3 * US == r.link_busy_ps[0] && 2 * US == r.link_busy_ps[1]);
    themis_link_sim_free(&r);
    /* the full rate is themis_link_sim */
    UNIT_CHECK(THEMIS_OK == themis_link_sim_duplex(&g, &s, 1000, THEMIS_LINK_SIM_FULL_PPM, &r,
                                                   why, sizeof(why)));
    UNIT_CHECK(THEMIS_OK == sim(&g, &s, &full, why, sizeof(why)));
    UNIT_CHECK(2 * US == r.total_ps && full.total_ps == r.total_ps &&
               full.finish_ps[2] == r.finish_ps[2] && 2 * US == full.finish_ps[2]);
    themis_link_sim_free(&r);
    themis_link_sim_free(&full);
    /* one direction's end speeds the other up again: 0.8 while both run */
    UNIT_CHECK(THEMIS_OK == themis_link_sim_duplex(&g, &s, 1000, 800000, &r, why, sizeof(why)));
    /* from 1 us both at 0.8: 1 -> 0 needs 1.25 us (ends 2.25), 0 -> 1 has
     * 1 us left, sends 1.25 x 0.8 = 1 us of it by 2.25: both end at 2.25 */
    UNIT_CHECK(2250000 == r.finish_ps[2] && 2250000 == r.finish_ps[0]);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    /* 2 -> 0 goes 2 -> 1 -> 0, beside 0 -> 1: another rank pair, full rate */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 2);
    themis_xfer_add(&s, &x, NULL, 0, NULL);
    add(&s, 2, 0, NULL, 0);
    UNIT_CHECK(THEMIS_OK == themis_link_sim_duplex(&g, &s, 1000, 500000, &r, why, sizeof(why)));
    UNIT_CHECK(2 * US == r.finish_ps[0] && 2 * US == r.finish_ps[1]);
    themis_link_sim_free(&r);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_link_sim_duplex(&g, &s, 1000, 0, &r, why,
                                                            sizeof(why)));
    themis_link_sim_free(&r);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_link_sim_duplex(&g, &s, 1000, 1000001, &r, why,
                                                            sizeof(why)));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

static void test_errors(void)
{
    themis_graph_t g = graph("0 1 8Gb 500ns\n1 2 8Gb 500ns\nfail node 3\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    uint32_t d = 1;

    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 1);
    add(&s, 2, 0, NULL, 0);
    UNIT_CHECK(THEMIS_ERR_INVALID == sim(&g, &s, &r, why, sizeof(why)) &&
               NULL != strstr(why, "transfer 0 (rank 2 -> 0): no route"));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);

    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 1, NULL, 0);
    add(&s, 0, 3, NULL, 0);
    UNIT_CHECK(THEMIS_ERR_INVALID == sim(&g, &s, &r, why, sizeof(why)) &&
               NULL != strstr(why, "transfer 1 (rank 0 -> 3): node 3 failed"));
    themis_link_sim_free(&r);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_link_sim(&g, &s, 0, &r, why, sizeof(why)));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);

    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 5, 1);
    UNIT_CHECK(THEMIS_ERR_INVALID == sim(&g, &s, &r, why, sizeof(why)) &&
               NULL != strstr(why, "5 ranks"));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);

    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 1);
    add(&s, 0, 1, &d, 1);
    add(&s, 0, 1, NULL, 0);
    UNIT_CHECK(THEMIS_ERR_INVALID == sim(&g, &s, &r, why, sizeof(why)) &&
               NULL != strstr(why, "not earlier"));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);

    /* no transfers: nothing to do, no busiest link */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 1);
    UNIT_CHECK(THEMIS_OK == sim(&g, &s, &r, why, sizeof(why)) && 0 == r.total_ps &&
               UINT32_MAX == r.busiest_link);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

/* ------------------------------------------------------------ the ring */

/* reach[j * n + i]: transfer i precedes j through dependencies. */
static uint8_t *closure(const themis_xfer_sched_t *s)
{
    uint32_t n = s->nxfers;
    uint8_t *reach = calloc((size_t) n * n, 1);
    for (uint32_t j = 0; NULL != reach && j < n; j++) {
        for (uint32_t k = 0; k < s->xfers[j].ndeps; k++) {
            uint32_t d = s->deps[s->xfers[j].dep_first + k];
            for (uint32_t i = 0; i < n; i++) {
                reach[j * n + i] |= reach[d * n + i];
            }
            reach[j * n + d] = 1;
        }
    }
    return reach;
}

static int touches(const themis_xfer_t *x, uint32_t rank, int buf, uint64_t u, int *writes)
{
    int hit = 0;
    *writes = 0;
    if (x->src == rank && x->src_buf == buf && u >= x->src_off && u < x->src_off + x->count) {
        hit = 1;
    }
    if (x->dst == rank && x->dst_buf == buf && u >= x->dst_off && u < x->dst_off + x->count) {
        hit = 1;
        *writes = 1;
    }
    return hit;
}

/* transfer.h's rules, for the ring's buffers: dependencies backwards and
 * without duplicates, no unordered conflicting pair, and the result of a
 * symbolic run (unit, contributing ranks as a bit mask). */
static int check_ring(const themis_xfer_sched_t *s, themis_coll_t coll, uint32_t p)
{
    typedef struct {
        int64_t unit;       /* -1: never written */
        uint64_t mask;
    } sym_t;
    int bad = 0;
    uint32_t n = s->nxfers;
    for (uint32_t j = 0; j < n; j++) {
        const themis_xfer_t *x = &s->xfers[j];
        for (uint32_t k = 0; k < x->ndeps; k++) {
            uint32_t d = s->deps[x->dep_first + k];
            bad += (d >= j) + (k > 0 && d <= s->deps[x->dep_first + k - 1]);
        }
        bad += (0 == x->count) + (x->src >= p) + (x->dst >= p);
        bad += (x->src_off + x->count > s->buf_units[x->src_buf]) +
               (x->dst_off + x->count > s->buf_units[x->dst_buf]);
    }
    uint8_t *reach = closure(s);
    for (uint32_t r = 0; NULL != reach && r < p; r++) {
        for (int b = 0; b < THEMIS_NBUFS; b++) {
            for (uint64_t u = 0; u < s->buf_units[b]; u++) {
                for (uint32_t i = 0; i < n; i++) {
                    int wi, wj;
                    if (!touches(&s->xfers[i], r, b, u, &wi)) {
                        continue;
                    }
                    for (uint32_t j = i + 1; j < n; j++) {
                        if (touches(&s->xfers[j], r, b, u, &wj) && (wi || wj) &&
                            !reach[j * n + i]) {
                            bad++;
                        }
                    }
                }
            }
        }
    }
    free(reach);

    sym_t *v = calloc((size_t) p * THEMIS_NBUFS * p, sizeof(*v));
    if (NULL == v) {
        return 1;
    }
#define CELL(r, b, u) v[((size_t) (r) * THEMIS_NBUFS + (b)) * p + (u)]
    for (uint32_t r = 0; r < p; r++) {
        for (int b = 0; b < THEMIS_NBUFS; b++) {
            for (uint32_t u = 0; u < p; u++) {
                CELL(r, b, u).unit = -1;
            }
        }
        for (uint64_t u = 0; u < s->buf_units[THEMIS_BUF_INPUT]; u++) {
            int64_t global = (THEMIS_COLL_ALLGATHER == coll) ? (int64_t) r : (int64_t) u;
            CELL(r, THEMIS_BUF_INPUT, u).unit = global;
            CELL(r, THEMIS_BUF_INPUT, u).mask = 1ULL << r;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        const themis_xfer_t *x = &s->xfers[j];
        for (uint64_t u = 0; u < x->count; u++) {
            sym_t from = CELL(x->src, x->src_buf, x->src_off + u);
            sym_t *to = &CELL(x->dst, x->dst_buf, x->dst_off + u);
            bad += (from.unit < 0);
            if (THEMIS_XFER_REDUCE == x->kind) {
                bad += (to->unit != from.unit) + (0 != (to->mask & from.mask));
                to->mask |= from.mask;
            } else {
                *to = from;
            }
        }
    }
    uint64_t all = (64 == p) ? UINT64_MAX : (1ULL << p) - 1;
    for (uint32_t r = 0; r < p; r++) {
        if (THEMIS_COLL_REDUCE_SCATTER == coll) {
            bad += (r != CELL(r, THEMIS_BUF_OUTPUT, 0).unit) +
                   (all != CELL(r, THEMIS_BUF_OUTPUT, 0).mask);
            continue;
        }
        for (uint32_t u = 0; u < p; u++) {
            uint64_t want = (THEMIS_COLL_ALLGATHER == coll) ? 1ULL << u : all;
            bad += (u != CELL(r, THEMIS_BUF_OUTPUT, u).unit) +
                   (want != CELL(r, THEMIS_BUF_OUTPUT, u).mask);
        }
    }
#undef CELL
    free(v);
    return bad;
}

static void test_ring_shape(void)
{
    static const uint32_t order[] = {2, 0, 3, 1, 4};
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (int c = 0; c < 3; c++) {
        for (uint32_t p = 1; p <= 6; p++) {
            for (int o = 0; o < 2; o++) {
                themis_xfer_sched_t s;
                const uint32_t *ord = (1 == o && 5 == p) ? order : NULL;
                uint32_t want = (THEMIS_COLL_ALLREDUCE == colls[c]) ? p + 2 * p * (p - 1)
                                : (THEMIS_COLL_REDUCE_SCATTER == colls[c]) ? 2 * p + p * (p - 1)
                                                                           : p + p * (p - 1);
                UNIT_CHECK(THEMIS_OK == themis_xfer_ring(colls[c], p, ord, &s));
                UNIT_CHECKF(want == s.nxfers && p == s.nunits && p == s.nranks,
                            "%s P=%u: %u transfers", themis_coll_name(colls[c]), p, s.nxfers);
                int bad = check_ring(&s, colls[c], p);
                UNIT_CHECKF(0 == bad, "%s P=%u order %d: %d violations",
                            themis_coll_name(colls[c]), p, o, bad);
                /* ring steps go to the next rank of the order */
                for (uint32_t j = 0; j < s.nxfers; j++) {
                    uint32_t a = s.xfers[j].src, b = s.xfers[j].dst, ia = 0, ib = 0;
                    for (uint32_t i = 0; i < p; i++) {
                        ia = ((ord ? ord[i] : i) == a) ? i : ia;
                        ib = ((ord ? ord[i] : i) == b) ? i : ib;
                    }
                    UNIT_CHECK(a == b || (ia + 1) % p == ib);
                }
                themis_xfer_free(&s);
            }
        }
    }
    themis_xfer_sched_t s;
    static const uint32_t dup[] = {0, 1, 1};
    static const uint32_t big[] = {0, 1, 3};
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 0, NULL, &s));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 3, dup, &s));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 3, big, &s));
    UNIT_CHECK(THEMIS_ERR_INVALID ==
               themis_xfer_ring(THEMIS_COLL_ALLREDUCE, THEMIS_XFER_RING_MAX_RANKS + 1, NULL, &s));
    UNIT_CHECK(0 == s.nxfers && NULL == s.xfers);
}

/* ring:P at B, N bytes: 2(P-1)/P x N x 8/B + 2(P-1) lat, exactly. */
static void test_ring_time(void)
{
    static const uint32_t sizes[] = {2, 3, 8, 16};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t p = sizes[k];
        uint64_t bytes = 24000000;      /* divides by P: N / P bytes per unit */
        themis_time_t lat = US;
        char spec[64], why[160];
        snprintf(spec, sizeof(spec), "ring:%u,bw=100Gb,lat=1us", p);
        themis_graph_t g;
        themis_parse_error_t e;
        UNIT_CHECK(THEMIS_OK == themis_graph_load(spec, NULL, &g, &e));
        static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                              THEMIS_COLL_ALLGATHER};
        for (int c = 0; c < 3; c++) {
            themis_xfer_sched_t s;
            themis_link_sim_t r;
            uint64_t steps = (THEMIS_COLL_ALLREDUCE == colls[c]) ? 2 * (p - 1) : p - 1;
            /* 80 ps per byte at 100 Gb/s */
            themis_time_t want = steps * (bytes / p) * 80 + steps * lat;
            if (0 == bytes % p) {
                UNIT_CHECK(THEMIS_OK == themis_xfer_ring(colls[c], p, NULL, &s));
                UNIT_CHECKF(THEMIS_OK == themis_link_sim(&g, &s, bytes / p, &r, why, sizeof(why)),
                            "%s", why);
                UNIT_CHECKF(want == r.total_ps, "%s P=%u: %llu ps, want %llu",
                            themis_coll_name(colls[c]), p, (unsigned long long) r.total_ps,
                            (unsigned long long) want);
                /* every link carries `steps` units and is the busiest in turn */
                for (uint32_t l = 0; l < g.nlinks; l++) {
                    UNIT_CHECK(steps * (bytes / p) == r.link_bytes[l]);
                }
                UNIT_CHECK(0 == r.busiest_link);
                themis_link_sim_free(&r);
                themis_xfer_free(&s);
            }
        }
        themis_graph_free(&g);
    }
}

static void test_ring_p3(void)
{
    static const uint32_t order[] = {0, 1, 3, 2, 6, 7, 5, 4};
    themis_graph_t g;
    themis_parse_error_t e;
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    UNIT_CHECK(THEMIS_OK == themis_graph_load("p3.16xlarge", NULL, &g, &e));
    UNIT_CHECK(THEMIS_OK == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 8, order, &s));
    UNIT_CHECKF(THEMIS_OK == themis_link_sim(&g, &s, 1000000, &r, why, sizeof(why)), "%s", why);
    int used = 0;
    for (uint32_t l = 0; l < g.nlinks; l++) {
        if (0 != r.link_bytes[l]) {
            used++;
            UNIT_CHECK(2 * THEMIS_GRAPH_NVLINK_BW_BPS == g.links[l].bw_bps);
            UNIT_CHECK(14000000 == r.link_bytes[l]);
        }
    }
    UNIT_CHECK(8 == used);
    /* 14 steps of 1 MB at 400 Gb/s (20 us) and 700 ns */
    UNIT_CHECK(14 * (20 * US + THEMIS_GRAPH_NVLINK_LAT_PS) == r.total_ps);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);

    /* the plain order 0..7 needs single links and two-hop routes: slower */
    UNIT_CHECK(THEMIS_OK == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 8, NULL, &s));
    UNIT_CHECK(THEMIS_OK == themis_link_sim(&g, &s, 1000000, &r, why, sizeof(why)) &&
               r.total_ps > 14 * (20 * US + THEMIS_GRAPH_NVLINK_LAT_PS));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

/* themis_link_sim_total equals themis_link_sim at every unit size: the
 * recorded service order replayed where it holds, simulated afresh where
 * the transfers reach a link in another order. */
static void test_total_replay(void)
{
    /* A (0 -> 2) reaches link 1 -> 2 after a fast hop with a long latency,
     * B (1 -> 2) after C (3 -> 1) on a slow one with a short latency:
     * small units B first, large ones A first. */
    themis_graph_t g = graph("0 1 80Gb 10us\n1 2 8Gb 1us\n3 1 8Gb 1us\n");
    themis_xfer_sched_t s;
    themis_link_order_t order;
    char why[160];
    static const uint32_t c[] = {1};
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 2, NULL, 0);
    add(&s, 3, 1, NULL, 0);
    add(&s, 1, 2, c, 1);
    memset(&order, 0, sizeof(order));
    static const uint64_t units[] = {1000, 2000, 100000, 200000, 1000};
    for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); ++k) {
        themis_link_sim_t r;
        themis_time_t total = 0;
        UNIT_CHECKF(THEMIS_OK == themis_link_sim_total(&g, &s, units[k], &order, &total, why,
                                                       sizeof(why)), "%s", why);
        UNIT_CHECK(THEMIS_OK == themis_link_sim(&g, &s, units[k], &r, why, sizeof(why)));
        UNIT_CHECKF(r.total_ps == total, "unit %llu: %llu, simulated %llu",
                    (unsigned long long) units[k], (unsigned long long) total,
                    (unsigned long long) r.total_ps);
        themis_link_sim_free(&r);
    }
    /* simulated at 1000, 100000 and 1000 again; replayed at the others */
    UNIT_CHECKF(3 == order.sims && 2 == order.replays, "%llu simulations, %llu replays",
                (unsigned long long) order.sims, (unsigned long long) order.replays);
    themis_link_order_free(&order);
    themis_xfer_free(&s);

    /* a ring on p3.16xlarge (two-hop routes) at unit sizes 1 to 10^8:
     * the same totals, mostly replayed */
    themis_graph_t p3;
    themis_parse_error_t e;
    UNIT_CHECK(THEMIS_OK == themis_graph_load("p3.16xlarge", NULL, &p3, &e));
    UNIT_CHECK(THEMIS_OK == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 8, NULL, &s));
    for (uint64_t u = 1; u <= 100000000; u *= 10) {
        themis_link_sim_t r;
        themis_time_t total = 0;
        UNIT_CHECK(THEMIS_OK == themis_link_sim_total(&p3, &s, u, &order, &total, why,
                                                      sizeof(why)));
        UNIT_CHECK(THEMIS_OK == themis_link_sim(&p3, &s, u, &r, why, sizeof(why))
                   && r.total_ps == total);
        themis_link_sim_free(&r);
    }
    UNIT_CHECKF(9 == order.sims + order.replays && order.replays >= 6,
                "%llu simulations, %llu replays", (unsigned long long) order.sims,
                (unsigned long long) order.replays);
    themis_link_order_free(&order);
    themis_xfer_free(&s);
    themis_graph_free(&p3);
    themis_graph_free(&g);
}

/* A graph's packets: each link carries a transfer's bytes plus a header
 * per packet (1 byte = 1 ns at 8 Gb/s), in the simulation and its
 * replay alike; without a packet line, as before. */
static void test_packets(void)
{
    themis_graph_t g = graph("packet 1000 100\n0 1 8Gb 500ns\n1 2 8Gb 0ns\n");
    themis_graph_t plain = graph("0 1 8Gb 500ns\n1 2 8Gb 0ns\n");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    themis_link_order_t order;
    themis_time_t total = 0;
    char why[160];
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 1);
    add(&s, 0, 2, NULL, 0);
    /* 2500 bytes: 3 packets, 2800 bytes a hop */
    UNIT_CHECKF(THEMIS_OK == themis_link_sim(&g, &s, 2500, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECKF(2800000 + 500000 + 2800000 == r.finish_ps[0], "%llu",
                (unsigned long long) r.finish_ps[0]);
    UNIT_CHECK(2800 == r.link_bytes[0] && 2800 == r.link_bytes[1]
               && 2800000 == r.link_busy_ps[0]);
    themis_link_sim_free(&r);
    /* exactly one packet */
    UNIT_CHECK(THEMIS_OK == themis_link_sim(&g, &s, 1000, &r, why, sizeof(why))
               && 1100000 + 500000 + 1100000 == r.finish_ps[0] && 1100 == r.link_bytes[0]);
    themis_link_sim_free(&r);
    UNIT_CHECK(THEMIS_OK == themis_link_sim(&plain, &s, 2500, &r, why, sizeof(why))
               && 2500000 + 500000 + 2500000 == r.finish_ps[0] && 2500 == r.link_bytes[0]);
    themis_link_sim_free(&r);
    /* the replay counts the headers too: simulated once, then replayed */
    memset(&order, 0, sizeof(order));
    static const uint64_t units[] = {2500, 1000, 2500, 100001};
    for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); ++k) {
        UNIT_CHECK(THEMIS_OK == themis_link_sim_total(&g, &s, units[k], &order, &total, why,
                                                      sizeof(why)));
        UNIT_CHECK(THEMIS_OK == themis_link_sim(&g, &s, units[k], &r, why, sizeof(why))
                   && r.total_ps == total);
        themis_link_sim_free(&r);
    }
    UNIT_CHECK(1 == order.sims && 3 == order.replays
               && 2 * (100001 + 101 * 100) * 1000 + 500000 == total);
    themis_link_order_free(&order);
    /* a replay past 2^64 ps is no replay: the simulation says why (one
     * hop of 1.8e16 bytes fits 64 bits, two do not) */
    memset(&order, 0, sizeof(order));
    UNIT_CHECK(THEMIS_OK == themis_link_sim_total(&plain, &s, 2500, &order, &total, why,
                                                  sizeof(why)));
    UNIT_CHECKF(THEMIS_ERR_INVALID == themis_link_sim_total(&plain, &s, 18000000000000000ULL,
                                                            &order, &total, why, sizeof(why))
                && NULL != strstr(why, "2^64"), "%s", why);
    themis_link_order_free(&order);
    /* headers that take a size past 64 bits */
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_link_sim(&g, &s, UINT64_MAX - 10, &r, why,
                                                     sizeof(why))
               && NULL != strstr(why, "packet headers"));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
    themis_graph_free(&plain);
}

/* Many transfers ready at one time but queued in the reverse of their
 * order (D_j waits for A_(n-1-j), and the A's all finish together, in
 * order): the one link they share serves them in list order all the
 * same, at the full rate and a duplex one.  The events of one time are
 * sorted where they come out of order: by insertion for a few, by radix
 * over one or two key bytes for more. */
static void test_many_at_once(void)
{
    static const uint32_t sizes[] = {5, 40, 300};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); ++z) {
        const uint32_t n = sizes[z];
        char *text = malloc((size_t) (n + 1) * 32);
        size_t len = 0;
        for (uint32_t k = 1; NULL != text && k <= n; ++k) {
            len += (size_t) sprintf(text + len, "%u 0 8Gb 500ns\n", k);
        }
        if (NULL == text) {
            UNIT_CHECK(NULL != text);
            return;
        }
        sprintf(text + len, "0 %u 8Gb 500ns\n", n + 1);
        themis_graph_t g = graph(text);
        themis_xfer_sched_t s;
        themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, n + 2, 1);
        for (uint32_t k = 0; k < n; ++k) {
            add(&s, k + 1, 0, NULL, 0);
        }
        for (uint32_t j = 0; j < n; ++j) {
            const uint32_t dep = n - 1 - j;
            add(&s, 0, n + 1, &dep, 1);
        }
        for (uint32_t duplex = 0; duplex < 2; ++duplex) {
            themis_link_sim_t r;
            char why[160];
            UNIT_CHECKF(THEMIS_OK == themis_link_sim_duplex(&g, &s, 1000,
                                                            duplex ? 500000 : 1000000, &r, why,
                                                            sizeof(why)),
                        "%s", why);
            int bad = 0;
            for (uint32_t j = 0; j < n; ++j) {
                /* A's finish at 1.5 us; D_j is served j-th: (j + 1) us more and the latency */
                bad += 1500000 + (uint64_t) (j + 1) * US + 500000 != r.finish_ps[n + j];
            }
            UNIT_CHECKF(0 == bad && r.total_ps == 2000000 + (uint64_t) n * US,
                        "%u transfers at once (duplex %u): %d served out of order", n, duplex,
                        bad);
            themis_link_sim_free(&r);
        }
        themis_xfer_free(&s);
        themis_graph_free(&g);
        free(text);
    }
}

static void test_chain_bound(void)
{
    /* A (0 -> 2, two hops) then B (2 -> 1): 2 x (1 + 0.5) + (1 + 0.5) us
     * without contention, the bound exactly */
    themis_graph_t g = graph("0 1 8Gb 500ns\n1 2 8Gb 500ns\n2 1 8Gb 500ns\n");
    themis_route_table_t rt;
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    themis_time_t lb = 0;
    char why[160];
    static const uint32_t a[] = {0};
    UNIT_CHECK(THEMIS_OK == themis_route_table_build(&g, &rt));
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 3, 1);
    add(&s, 0, 2, NULL, 0);
    add(&s, 2, 1, a, 1);
    UNIT_CHECK(THEMIS_OK == sim(&g, &s, &r, why, sizeof(why)) && 4500000 == r.total_ps);
    UNIT_CHECKF(THEMIS_OK == themis_route_chain_bound(&rt, &s, 1000, &lb) && 4500000 == lb,
                "bound %llu", (unsigned long long) lb);
    themis_link_sim_free(&r);
    /* a dependency that does not point backwards: the simulator refuses it */
    s.deps[0] = 1;
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == themis_route_chain_bound(&rt, &s, 1000, &lb));
    themis_xfer_free(&s);
    themis_route_table_free(&rt);
    themis_graph_free(&g);

    /* rings' and torus2d's lists on torus2d:4x4 and the ring on
     * p3.16xlarge (two-hop routes): at most the simulated time */
    static const char *specs[] = {"torus2d:4x4", "p3.16xlarge"};
    for (int k = 0; k < 2; ++k) {
        themis_parse_error_t e;
        themis_ham_t ham;
        UNIT_CHECK(THEMIS_OK == themis_graph_load(specs[k], NULL, &g, &e));
        UNIT_CHECK(THEMIS_OK == themis_route_table_build(&g, &rt));
        for (int form = 0; form < 3; ++form) {
            themis_status_t st = THEMIS_ERR_UNSUPPORTED;
            if (0 == k && 0 == form && THEMIS_OK == themis_ham_build(4, 4, &ham, NULL, 0)) {
                st = themis_xfer_rings(THEMIS_COLL_ALLREDUCE, &ham, NULL, 2, &s);
                themis_ham_free(&ham);
            } else if (0 == k && 1 == form) {
                st = themis_xfer_torus2d(THEMIS_COLL_REDUCE_SCATTER, 4, 4, NULL, 2, &s);
            } else if (1 == k && 2 == form) {
                st = themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 8, NULL, &s);
            }
            for (uint64_t u = 1; THEMIS_OK == st && u <= 100000000; u *= 100) {
                UNIT_CHECK(THEMIS_OK == themis_link_sim(&g, &s, u, &r, why, sizeof(why)));
                UNIT_CHECKF(THEMIS_OK == themis_route_chain_bound(&rt, &s, u, &lb)
                                && 0 < lb && lb <= r.total_ps,
                            "%s form %d unit %llu: bound %llu, simulated %llu", specs[k], form,
                            (unsigned long long) u, (unsigned long long) lb,
                            (unsigned long long) r.total_ps);
                themis_link_sim_free(&r);
            }
            if (THEMIS_OK == st) {
                themis_xfer_free(&s);
            }
        }
        themis_route_table_free(&rt);
        themis_graph_free(&g);
    }
}

int main(void)
{
    UNIT_RUN(test_one_link);
    UNIT_RUN(test_shared_link);
    UNIT_RUN(test_fifo);
    UNIT_RUN(test_multi_hop_and_deps);
    UNIT_RUN(test_errors);
    UNIT_RUN(test_duplex);
    UNIT_RUN(test_ring_shape);
    UNIT_RUN(test_ring_time);
    UNIT_RUN(test_ring_p3);
    UNIT_RUN(test_total_replay);
    UNIT_RUN(test_packets);
    UNIT_RUN(test_chain_bound);
    UNIT_RUN(test_many_at_once);
    UNIT_EXIT();
}
