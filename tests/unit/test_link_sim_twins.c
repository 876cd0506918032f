/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Twin parts (planners/network/link_sim_twins.h): found where they are
 * alike (two equal chains; HammingMesh's four rings on tori of one link
 * rate), not where a rate, a latency or a dependency differs; and the
 * total (themis_link_sim_total, which simulates one part of each set of
 * twins) equal to the full simulation's on every one of those, rings on
 * several shapes with one link slowed in turn included.
 */
#include <stdlib.h>
#include <string.h>

#include "graph_util.h"
#include "hamiltonian.h"
#include "link_sim.h"
#include "link_sim_twins.h"
#include "unit.h"
#include "xfer_ring.h"

/* s's routes on g (themis_graph_route) and its twins: parts, skipped. */
static void twins_of(const themis_graph_t *g, const themis_xfer_sched_t *s, uint32_t *parts,
                     uint32_t *skipped)
{
    uint32_t *first = calloc((size_t) s->nxfers + 1, sizeof(*first));
    uint32_t *nhops = calloc((size_t) s->nxfers + 1, sizeof(*nhops));
    uint32_t *route = malloc(((size_t) s->nxfers * g->nnodes + 1) * sizeof(*route));
    uint8_t *skip = malloc((size_t) s->nxfers + 1);
    uint32_t n = 0;
    *parts = *skipped = UINT32_MAX;
    UNIT_CHECK(NULL != first && NULL != nhops && NULL != route && NULL != skip);
    for (uint32_t i = 0; NULL != route && i < s->nxfers; ++i) {
        first[i] = n;
        if (s->xfers[i].src != s->xfers[i].dst) {
            UNIT_CHECK(THEMIS_OK == themis_graph_route(g, s->xfers[i].src, s->xfers[i].dst,
                                                       &route[n], &nhops[i]));
        }
        n += nhops[i];
    }
    UNIT_CHECK(THEMIS_OK == themis_link_sim_twins(g, s, first, nhops, route, NULL, skip, parts,
                                                  skipped));
    /* the same with the dependents' offsets given (as the simulator does) */
    uint32_t *dep_first = calloc((size_t) s->nxfers + 2, sizeof(*dep_first));
    uint8_t *skip2 = malloc((size_t) s->nxfers + 1);
    uint32_t parts2 = UINT32_MAX, skipped2 = UINT32_MAX;
    UNIT_CHECK(NULL != dep_first && NULL != skip2);
    for (uint32_t i = 0; NULL != dep_first && i < s->nxfers; ++i) {
        for (uint32_t d = 0; d < s->xfers[i].ndeps; ++d) {
            dep_first[s->deps[s->xfers[i].dep_first + d] + 1]++;
        }
    }
    for (uint32_t i = 0; NULL != dep_first && i < s->nxfers; ++i) {
        dep_first[i + 1] += dep_first[i];
    }
    UNIT_CHECK(THEMIS_OK == themis_link_sim_twins(g, s, first, nhops, route, dep_first, skip2,
                                                  &parts2, &skipped2));
    UNIT_CHECKF(parts2 == *parts && skipped2 == *skipped
                    && 0 == memcmp(skip, skip2, (size_t) s->nxfers),
                "with dependents given: %u parts, %u skipped; found here: %u, %u", parts2,
                skipped2, *parts, *skipped);
    free(dep_first);
    free(skip2);
    free(first);
    free(nhops);
    free(route);
    free(skip);
}

/* The total replayed or simulated by parts equals the full simulation's,
 * at several unit sizes (the first simulates, later ones replay). */
static int same_totals(const themis_graph_t *g, const themis_xfer_sched_t *s)
{
    static const uint64_t units[] = {4, 1000, 65536, 1048576};
    themis_link_order_t order;
    char why[160];
    int bad = 0;
    memset(&order, 0, sizeof(order));
    for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); ++k) {
        themis_link_sim_t r;
        themis_time_t total = 0;
        UNIT_CHECKF(THEMIS_OK == themis_link_sim_total(g, s, units[k], &order, &total, why,
                                                       sizeof(why)), "%s", why);
        UNIT_CHECKF(THEMIS_OK == themis_link_sim(g, s, units[k], &r, why, sizeof(why)), "%s",
                    why);
        if (r.total_ps != total) {
            printf("  unit %llu: total %llu, simulated %llu\n", (unsigned long long) units[k],
                   (unsigned long long) total, (unsigned long long) r.total_ps);
            bad++;
        }
        themis_link_sim_free(&r);
    }
    themis_link_order_free(&order);
    return bad;
}

static void test_chains(void)
{
    /* two chains of two hops: 0 -> 2 then 2 -> 0, and 3 -> 5 then 5 -> 3 */
    static const char *text[] = {
        "0 1 8Gb 1us\n1 2 8Gb 1us\n2 1 8Gb 1us\n1 0 8Gb 1us\n"
        "3 4 8Gb 1us\n4 5 8Gb 1us\n5 4 8Gb 1us\n4 3 8Gb 1us\n",
        /* the second chain's last link slower, or longer */
        "0 1 8Gb 1us\n1 2 8Gb 1us\n2 1 8Gb 1us\n1 0 8Gb 1us\n"
        "3 4 8Gb 1us\n4 5 8Gb 1us\n5 4 8Gb 1us\n4 3 4Gb 1us\n",
        "0 1 8Gb 1us\n1 2 8Gb 1us\n2 1 8Gb 1us\n1 0 8Gb 1us\n"
        "3 4 8Gb 1us\n4 5 8Gb 1us\n5 4 8Gb 1us\n4 3 8Gb 3us\n",
    };
    for (int t = 0; t < 3; ++t) {
        themis_graph_t g;
        themis_parse_error_t e;
        UNIT_CHECK(THEMIS_OK == themis_graph_parse(text[t], &g, &e));
        for (int dep = 0; dep < 3; ++dep) {
            themis_xfer_sched_t s;
            uint32_t parts = 0, skipped = 0;
            static const uint32_t d0[] = {0}, d2[] = {2};
            themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 6, 1);
            add(&s, 0, 2, NULL, 0);
            add(&s, 2, 0, d0, 1);
            add(&s, 3, 5, NULL, 0);
            add(&s, 5, 3, 1 == dep ? NULL : d2, 1 == dep ? 0 : 1);   /* 1: not after 3 -> 5 */
            if (2 == dep) {
                add(&s, 5, 5, NULL, 0);   /* a part of its own, without hops */
            }
            twins_of(&g, &s, &parts, &skipped);
            const uint32_t want = 0 == t ? 1 : 0;   /* 1: the two lone transfers alike */
            UNIT_CHECKF((2 == dep ? 3u : 1 == dep ? 3u : 2u) == parts && want == skipped,
                        "graph %d deps %d: %u parts, %u skipped", t, dep, parts, skipped);
            UNIT_CHECKF(0 == same_totals(&g, &s), "graph %d deps %d", t, dep);
            themis_xfer_free(&s);
        }
        themis_graph_free(&g);
    }
}

/* The rings' list on an r x c torus: four twins at one link rate; with a
 * link slowed, the totals still the full simulation's (its ring is no
 * longer a twin of the others). */
static void test_rings(void)
{
    static const uint32_t shapes[][2] = {{3, 3}, {4, 4}, {4, 6}, {5, 3}, {6, 6}};
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); ++k) {
        const uint32_t rows = shapes[k][0], cols = shapes[k][1];
        char spec[64];
        themis_ham_t ham;
        snprintf(spec, sizeof(spec), "torus2d:%ux%u", cols, rows);
        themis_graph_t g = load(spec);
        memset(&ham, 0, sizeof(ham));
        UNIT_CHECK(THEMIS_OK == themis_ham_build(rows, cols, &ham, NULL, 0));
        for (int c = 0; c < 3; ++c) {
            themis_xfer_sched_t s;
            uint32_t parts = 0, skipped = 0;
            UNIT_CHECK(THEMIS_OK == themis_xfer_rings(colls[c], &ham, NULL, 2, &s));
            twins_of(&g, &s, &parts, &skipped);
            /* four rings, and the local copies on their own */
            UNIT_CHECKF(4 <= parts && 3 == skipped, "%s %s: %u parts, %u skipped", spec,
                        themis_coll_name(colls[c]), parts, skipped);
            UNIT_CHECKF(0 == same_totals(&g, &s), "%s %s", spec, themis_coll_name(colls[c]));
            /* one link at a time slowed (every 13th, to keep it short) */
            for (uint32_t l = k % 5; l < g.nlinks; l += 13) {
                const uint64_t bw = g.links[l].bw_bps;
                g.links[l].bw_bps = bw / 2;
                twins_of(&g, &s, &parts, &skipped);
                UNIT_CHECKF(4 <= parts && 2 == skipped, "%s %s link %u slow: %u parts, "
                            "%u skipped", spec, themis_coll_name(colls[c]), l, parts, skipped);
                UNIT_CHECKF(0 == same_totals(&g, &s), "%s %s link %u slow", spec,
                            themis_coll_name(colls[c]), l);
                g.links[l].bw_bps = bw;
            }
            themis_xfer_free(&s);
        }
        themis_ham_free(&ham);
        themis_graph_free(&g);
    }
}

int main(void)
{
    UNIT_RUN(test_chains);
    UNIT_RUN(test_rings);
    UNIT_EXIT();
}
