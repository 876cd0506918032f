/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis's TACOS against the public TACOS on one graph (run by
 * benchmarks/tacos_vs_public.sh; not a test).
 *
 *   tacos_vs_public links SPEC
 *     the graph's links for benchmarks/tacos_public_driver (GiB/s, us).
 *   tacos_vs_public compare SPEC K CHUNK_BYTES PUBLIC_OUT
 *     one line: the public schedules of PUBLIC_OUT (the driver's) timed as
 *     the public code reports them and re-timed validly by the link
 *     simulator (link_sim.h: no chunk leaves a node before it arrived
 *     there, each link one chunk at a time), the best of the runs, in free
 *     order or each link's order, whichever is faster; the public
 *     synthesis time (mean of the unlogged runs); themis's All-Gather
 *     (the default seeds) and its synthesis time; both lower bounds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cut_bound.h"
#include "graph.h"
#include "link_sim.h"
#include "tacos.h"
#include "util.h"

static int load(const char *spec, themis_graph_t *g)
{
    themis_graph_opts_t o;
    themis_parse_error_t e;
    themis_graph_opts_default(&o);
    if (THEMIS_OK != themis_graph_load(spec, &o, g, &e)) {
        fprintf(stderr, "%s: %s\n", spec, e.message);
        return 1;
    }
    return 0;
}

static uint32_t link_of(const themis_graph_t *g, uint32_t u, uint32_t v)
{
    for (uint32_t i = g->out_first[u]; i < g->out_first[u + 1]; ++i) {
        if (g->links[g->out_links[i]].dst == v) {
            return g->out_links[i];
        }
    }
    return UINT32_MAX;
}

static int cmp_start(const void *a, const void *b)
{
    const themis_tacos_send_t *x = a, *y = b;
    if (x->start_ps != y->start_ps) {
        return x->start_ps < y->start_ps ? -1 : 1;
    }
    return (x->arrive_ps > y->arrive_ps) - (x->arrive_ps < y->arrive_ps);
}

/* The public code lets a link deliver, in place of a chunk its far end
 * already got, one its near end received during the transfer (chunk
 * replacement): such a send is moved to start when its chunk arrives, and
 * whatever it forwards with it, so that the list is in a causal order
 * (at: [node * nchunks + chunk] scratch). */
static void causal(const themis_graph_t *g, themis_tacos_ag_t *ag, themis_time_t *at)
{
    uint32_t n = ag->nnodes, nc = ag->nchunks;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < (size_t) n * nc; ++i) {
            at[i] = UINT64_MAX;
        }
        for (uint32_t c = 0; c < nc; ++c) {
            at[(size_t) (c / ag->k) * nc + c] = 0;
        }
        for (uint32_t i = 0; i < ag->nsends; ++i) {
            themis_tacos_send_t *x = &ag->sends[i];
            at[(size_t) g->links[x->link].dst * nc + x->chunk] = x->arrive_ps;
        }
        for (uint32_t i = 0; i < ag->nsends; ++i) {
            themis_tacos_send_t *x = &ag->sends[i];
            themis_time_t have = at[(size_t) g->links[x->link].src * nc + x->chunk];
            if (have > x->start_ps) {
                x->arrive_ps += have - x->start_ps;
                x->start_ps = have;
                changed = 1;
            }
        }
    }
}

/* The public schedule ag re-timed: the faster of free and link order. */
static themis_time_t retime(const themis_graph_t *g, themis_tacos_ag_t *ag, uint64_t chunk)
{
    themis_time_t best = UINT64_MAX;
    for (int order = 0; order < 2; ++order) {
        themis_xfer_sched_t s;
        char why[256] = "no schedule";
        ag->link_order = (uint8_t) order;
        if (THEMIS_OK != themis_tacos_schedule(g, NULL, ag, THEMIS_COLL_ALLGATHER, &s)
            || THEMIS_OK != themis_xfer_check(&s, why, sizeof(why))) {
            fprintf(stderr, "public schedule refused: %s\n", why);
            exit(1);
        }
        themis_time_t t = themis_tacos_simulated(g, &s, chunk);
        best = t < best ? t : best;
        themis_xfer_free(&s);
    }
    return best;
}

static int compare(const char *spec, uint32_t k, uint64_t chunk, const char *path)
{
    themis_graph_t g;
    if (0 != load(spec, &g)) {
        return 1;
    }
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        perror(path);
        return 1;
    }
    uint32_t n = g.nnodes, nchunks = n * k, need = n * (nchunks - k);
    uint8_t *got = malloc((size_t) n * nchunks);
    themis_time_t *at = malloc((size_t) n * nchunks * sizeof(*at));
    themis_tacos_ag_t ag = {.nnodes = n, .k = k, .nchunks = nchunks, .nsends = need};
    ag.sends = malloc(need * sizeof(*ag.sends));
    double rep_best = 1e300, synth_sum = 0, x;
    themis_time_t valid_best = UINT64_MAX;
    int runs = 0, synths = 0, r;
    size_t ns;
    char word[16];
    while (1 == fscanf(f, "%15s", word)) {
        if (0 == strcmp(word, "synth")) {
            if (2 != fscanf(f, "%d %lf", &r, &x)) {
                break;
            }
            synth_sum += x / 1e3;
            synths++;
            continue;
        }
        double rep, syn;
        if (0 != strcmp(word, "run") || 4 != fscanf(f, "%d %lf %lf %zu", &r, &rep, &syn, &ns)
            || ns != need) {
            fprintf(stderr, "%s: run %d: %zu sends, not %u\n", path, r, ns, need);
            return 1;
        }
        memset(got, 0, (size_t) n * nchunks);
        for (size_t i = 0; i < ns; ++i) {
            unsigned u, v, c;
            double s, e;
            if (5 != fscanf(f, "%u %u %u %lf %lf", &u, &v, &c, &s, &e) || u >= n || v >= n
                || c >= nchunks || UINT32_MAX == link_of(&g, u, v) || got[(size_t) v * nchunks + c]
                || v == c / k) {
                fprintf(stderr, "%s: run %d: send %zu is not a link of %s or repeats\n", path, r,
                        i, spec);
                return 1;
            }
            got[(size_t) v * nchunks + c] = 1;
            ag.sends[i] = (themis_tacos_send_t) {.link = link_of(&g, u, v), .chunk = c,
                                                 .start_ps = (themis_time_t) (s * 1e6 + 0.5),
                                                 .arrive_ps = (themis_time_t) (e * 1e6 + 0.5)};
        }
        causal(&g, &ag, at);
        qsort(ag.sends, need, sizeof(*ag.sends), cmp_start);
        themis_time_t t = retime(&g, &ag, chunk);
        valid_best = t < valid_best ? t : valid_best;
        rep_best = rep < rep_best ? rep : rep_best;
        runs++;
    }
    fclose(f);
    free(got);
    free(at);
    themis_tacos_ag_free(&ag);
    if (0 == runs) {
        fprintf(stderr, "%s: no run\n", path);
        return 1;
    }
    themis_xfer_sched_t s;
    char why[256];
    double t0 = (themis_now_ns() / 1e6);
    if (THEMIS_OK != themis_tacos_synthesize(&g, THEMIS_COLL_ALLGATHER, k, chunk,
                                             THEMIS_TACOS_SEEDS_AUTO, &s, why, sizeof(why))) {
        fprintf(stderr, "themis: %s\n", why);
        return 1;
    }
    double t1 = (themis_now_ns() / 1e6);
    themis_time_t ours = themis_tacos_simulated(&g, &s, chunk);
    themis_xfer_free(&s);
    themis_cut_bound_t cut;
    if (THEMIS_OK != themis_cut_bound(&g, THEMIS_COLL_ALLGATHER, k, chunk, &cut)) {
        fprintf(stderr, "cut bound failed\n");
        return 1;
    }
    printf("public_reported_us=%.3f public_valid_us=%.3f public_synth_ms=%.2f runs=%d "
           "themis_us=%.3f themis_synth_ms=%.2f lower_bound_us=%.3f cut_bound_us=%.3f cut=%s\n",
           rep_best, (double) valid_best / 1e6, synths ? synth_sum / synths : 0.0, runs,
           (double) ours / 1e6, t1 - t0,
           (double) themis_tacos_lower_bound(&g, THEMIS_COLL_ALLGATHER, k, chunk) / 1e6,
           (double) cut.time_ps / 1e6, cut.exact ? "exact" : "family");
    themis_graph_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    if (3 == argc && 0 == strcmp(argv[1], "links")) {
        themis_graph_t g;
        if (0 != load(argv[2], &g)) {
            return 1;
        }
        printf("%u\n", g.nnodes);
        for (uint32_t l = 0; l < g.nlinks; ++l) {
            const themis_link_t *x = &g.links[l];
            if (themis_graph_link_working(&g, l)) {
                printf("%u %u %.9f %.6f\n", x->src, x->dst,
                       (double) x->bw_bps / 8.0 / 1073741824.0, (double) x->lat_ps / 1e6);
            }
        }
        themis_graph_free(&g);
        return 0;
    }
    if (6 == argc && 0 == strcmp(argv[1], "compare")) {
        return compare(argv[2], (uint32_t) strtoul(argv[3], NULL, 10),
                       strtoull(argv[4], NULL, 10), argv[5]);
    }
    fprintf(stderr, "usage: %s links SPEC | compare SPEC K CHUNK_BYTES PUBLIC_OUT\n", argv[0]);
    return 2;
}
