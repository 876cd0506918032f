/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan bed --graph SPEC|FILE [--scale F | --budget RATE] ...`: the
 * emulated test bed's build plan (planners/network/bed_plan.h, docs/cluster.md),
 * so that benchmarks/netbed/netgraph builds the one network model without
 * a parser or router of its own.
 */
#include "themis_build_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bed_plan.h"
#include "cluster_clos.h"
#include "graph.h"
#include "link_sim.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "xfer_direct.h"
#include "xfer_ring.h"

/* What the bed shapes in all, by default: 2 shared cores forward about
 * this much before the CPU, not tc, sets the rates (benchmarks/README.md). */
#define BED_DEFAULT_BUDGET_BPS 1200000000ULL
#define SCALE_DEN 1000000000ULL

/* "0.00004": a factor > 0 with up to 9 decimals, as num / SCALE_DEN. */
static int parse_scale(const char *s, uint64_t *num)
{
    uint64_t whole = 0, frac = 0, digits = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > 1000000) {
            return -1;
        }
        whole = whole * 10 + (uint64_t) (*p - '0');
    }
    if ('.' == *p) {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (++digits > 9) {
                return -1;
            }
            frac = frac * 10 + (uint64_t) (*p - '0');
        }
    }
    for (; digits < 9; digits++) {
        frac *= 10;
    }
    *num = whole * SCALE_DEN + frac;
    return ('\0' != *p || p == s || 0 == *num) ? -1 : 0;
}

static const themis_plan_cmd_spec_t bed_cmd = {
    .name = "bed", .synopsis = "",
    .about =
    "  The test bed's build plan (docs/cluster.md, 'The test bed's plan'): every\n"
    "  node with its kind and host, every working directed link at its scaled\n"
    "  rate (bit/s) and latency (ps), every route, and 'rule' lines where a\n"
    "  pair's route leaves the destination's route tree.  Rates are scaled by F,\n"
    "  or so that all links add up to RATE (default: down to 1200Mb/s when\n"
    "  above).  --graph-out writes the scaled graph (for compare, xfer, and\n"
    "  coll_themis_graph).  --xfer: the ring or direct schedule of --coll and\n"
    "  --bytes; with --spines ALGO (greedy, parallel, exact, ecmp; --seed N for\n"
    "  ecmp's draw, default 1) on a leaf-spine each rank pair across leaves\n"
    "  goes by its flow's spine (planners/routing/cluster_clos.h), and a last line\n"
    "  'predict SCHEDULE bytes S collective_us=X' is the link simulator's time\n"
    "  on the scaled graph by exactly these routes.  --msccl writes the schedule.\n"
    "  --dim-routes --dims SHAPE: dimension-ordered routes (each coordinate\n"
    "  corrected inside its line, innermost first), 'iface' names dK, dKp, dKm\n"
    "  for the ranks' links and an 'ifroute' to every such address that\n"
    "  corrects its dimension last (planners/network/route_dims.h).\n"
    "  --packet: the bed's packets instead of the graph's (docs/cluster.md:\n"
    "  1448,66 for TCP with timestamps over IPv4 and Ethernet at MTU 1500),\n"
    "  so that the scaled graph and the prediction count their headers.\n"};

/* The schedule, its waypoints and the prediction line's time. */
static int xfer_plan(const themis_graph_t *g, int direct, const themis_plan_xfer_opts_t *xo,
                     const char *msccl_out, themis_xfer_sched_t *s, uint32_t **pair_via,
                     char *line, size_t linelen)
{
    const uint64_t bytes = xo->bytes;
    char why[256];
    uint32_t *via = NULL;
    themis_link_sim_t r;
    int rc = 0;
    themis_status_t st = direct ? themis_xfer_direct(xo->coll, g->nranks, 0, s)
                                : themis_xfer_ring(xo->coll, g->nranks, NULL, s);
    memset(&r, 0, sizeof(r));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan bed: --xfer: cannot build for %u ranks\n", g->nranks);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (0 != bytes % s->nunits) {
        fprintf(stderr, "themis-plan bed: --bytes %" PRIu64 " does not divide into %u units\n",
                bytes, s->nunits);
        return EXIT_USAGE;
    }
    if (NULL != msccl_out && 0 != (rc = themis_plan_write_msccl("bed", s, msccl_out))) {
        return rc;
    }
    if (xo->have_spines) {
        rc = themis_plan_spines_via("bed", g, s, xo->spines, xo->seed, &via, NULL);
        *pair_via = malloc((size_t) g->nranks * g->nranks * sizeof(**pair_via));
        st = (0 != rc) ? THEMIS_OK : NULL == *pair_via
                 ? THEMIS_ERR_NOMEM : themis_bed_pair_via(g, s, via, *pair_via, why, sizeof(why));
        if (0 == rc && THEMIS_OK != st) {
            fprintf(stderr, "themis-plan bed: --spines: %s\n",
                    THEMIS_ERR_NOMEM == st ? "out of memory" : why);
            rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
        if (0 != rc) {
            free(via);
            return rc;
        }
    }
    st = themis_link_sim_via(g, s, bytes / s->nunits, THEMIS_LINK_SIM_FULL_PPM, via, &r, why,
                             sizeof(why));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan bed: %s\n", why);
        rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    } else {
        uint64_t ns = (r.total_ps + 500) / 1000;
        snprintf(line, linelen, "predict %s bytes %" PRIu64 " collective_us=%" PRIu64
                 ".%03" PRIu64 " spines %s\n", s->name, bytes, ns / 1000, ns % 1000,
                 xo->have_spines ? themis_clos_algo_name(xo->spines) : "graph");
    }
    themis_link_sim_free(&r);
    free(via);
    return rc;
}

int themis_plan_cmd_bed(int argc, char **argv)
{
    themis_plan_args_t a;
    themis_plan_xfer_opts_t xo;
    uint32_t dims[THEMIS_MAX_DIMS];
    uint64_t scale_num = 0;
    int ndims, rc;

    if (0 != themis_plan_args_parse(&bed_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    if (0 != (rc = themis_plan_xfer_opts(&a, &xo))) {
        return rc;
    }
    const char *spec = a.text[TPO_GRAPH], *graph_out = a.text[TPO_GRAPH_OUT];
    const char *xfer = a.text[TPO_XFER], *msccl_out = a.text[TPO_MSCCL];
    int by_dims = THEMIS_PLAN_GIVEN(&a, TPO_DIM_ROUTES);
    uint64_t budget = a.num[TPO_BUDGET];
    if (THEMIS_PLAN_GIVEN(&a, TPO_SCALE) && 0 != parse_scale(a.text[TPO_SCALE], &scale_num)) {
        return themis_plan_args_fail(&a, TPO_SCALE, "not a factor > 0 with up to 9 decimals");
    }
    unsigned payload = 0, header = 0;
    int used = 0;
    if (THEMIS_PLAN_GIVEN(&a, TPO_PACKET)
        && (2 != sscanf(a.text[TPO_PACKET], "%u,%u%n", &payload, &header, &used)
            || '\0' != a.text[TPO_PACKET][used] || 0 == payload
            || payload > THEMIS_GRAPH_MAX_PKT_PAYLOAD || header > THEMIS_GRAPH_MAX_PKT_HEADER)) {
        return themis_plan_args_fail(&a, TPO_PACKET, "not PAYLOAD,HEADER in bytes (1448,66)");
    }
    if (NULL != xfer && 0 != strcmp("ring", xfer) && 0 != strcmp("direct", xfer)) {
        return themis_plan_args_fail(&a, TPO_XFER, "not ring or direct");
    }
    if (by_dims && (!THEMIS_PLAN_GIVEN(&a, TPO_DIMS) || NULL != xfer)) {
        fprintf(stderr, "themis-plan bed: --dim-routes needs --dims and takes no --xfer\n");
        return EXIT_USAGE;
    }
    if (NULL == spec) {
        fprintf(stderr, "themis-plan bed: want --graph SPEC|FILE and options only (try --help)\n");
        return EXIT_USAGE;
    }
    if (0 != scale_num && 0 != budget) {
        fprintf(stderr, "themis-plan bed: give --scale or --budget, not both\n");
        return EXIT_USAGE;
    }
    if ((NULL != xfer) != (xo.have_coll && 0 != xo.bytes) ||
        (NULL == xfer && (xo.have_spines || NULL != msccl_out))) {
        fprintf(stderr, "themis-plan bed: --xfer, --coll and --bytes go together; --spines and "
                "--msccl need them\n");
        return EXIT_USAGE;
    }

    themis_graph_t g0, g;
    char why[256];
    if (0 != (rc = themis_plan_args_network(&a, spec, &g0, dims, &ndims))) {
        return rc;
    }
    themis_status_t st;
    uint64_t total = themis_bed_total_bps(&g0), num = SCALE_DEN, den = SCALE_DEN;
    if (0 != scale_num) {
        num = scale_num;
    } else if (0 != budget || total > BED_DEFAULT_BUDGET_BPS) {
        num = 0 != budget ? budget : BED_DEFAULT_BUDGET_BPS;
        den = total;
    }
    st = themis_bed_scale(&g0, num, den, &g, why, sizeof(why));
    themis_graph_free(&g0);
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan bed: %s\n", why);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (0 != payload) {
        g.pkt_payload = payload;
        g.pkt_header = header;
    }
    rc = 0;
    if (NULL != graph_out) {
        FILE *f = fopen(graph_out, "w");
        if (NULL == f || 0 != themis_graph_write(&g, f) || 0 != fclose(f)) {
            fprintf(stderr, "themis-plan bed: cannot write %s\n", graph_out);
            rc = EXIT_RUNTIME;
        }
    }
    themis_xfer_sched_t s;
    uint32_t *pair_via = NULL;
    char predict[256] = "";
    memset(&s, 0, sizeof(s));
    if (0 == rc && NULL != xfer) {
        rc = xfer_plan(&g, 0 == strcmp("direct", xfer), &xo, msccl_out, &s, &pair_via, predict,
                       sizeof(predict));
    }
    if (0 == rc) {
        printf("# themis-plan bed: %s, rates x %" PRIu64 "/%" PRIu64 " (total %" PRIu64
               " bit/s before), routes by %s\n", spec, num, den, total,
               by_dims ? "dimension order" : xo.have_spines ? themis_clos_algo_name(xo.spines)
                                                            : "the graph");
        st = by_dims ? themis_bed_plan_write_dims(&g, dims, ndims, stdout, why, sizeof(why))
                     : themis_bed_plan_write(&g, pair_via, stdout, why, sizeof(why));
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan bed: %s\n", why);
            rc = THEMIS_ERR_INVALID == st ? EXIT_USAGE : EXIT_RUNTIME;
        }
    }
    if (0 == rc) {
        fputs(predict, stdout);
    }
    free(pair_via);
    themis_xfer_free(&s);
    themis_graph_free(&g);
    return rc;
}
