/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan graph SPEC|FILE [--bw B[,B2]] [--lat L] [--degree D] [--routes]`:
 * a graph topology (planners/network/graph.h) in its file format, or every route.
 * `themis-plan xfer ring --graph SPEC|FILE --coll C --bytes S [--order ...]`:
 * the ring transfer schedule (planners/schedule/xfer_ring.h) through the link
 * simulator (planners/network/link_sim.h).
 */
#include "themis_build_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_clos.h"
#include "graph.h"
#include "link_sim.h"
#include "msccl.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "xfer_direct.h"
#include "xfer_ring.h"


/* --routes prints nodes^2 lines from one table of next hops. */
#define ROUTES_MAX_NODES 4096u

/* Largest exact unit, as the graph file writes rates. */
static void fmt_bw(char *buf, size_t len, uint64_t bps)
{
    static const char *const units[] = {"b", "Kb", "Mb", "Gb", "Tb"};
    int u = 0;
    while (u < 4 && 0 != bps && 0 == bps % 1000) {
        bps /= 1000;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 "%s", bps, units[u]);
}

static void print_summary(const themis_graph_t *g)
{
    uint32_t failed_nodes = 0, failed_links = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    char lob[32] = "-", hib[32] = "-";
    for (uint32_t v = 0; v < g->nnodes; v++) {
        failed_nodes += g->node_failed[v];
    }
    for (uint32_t l = 0; l < g->nlinks; l++) {
        failed_links += g->links[l].failed;
        lo = (g->links[l].bw_bps < lo) ? g->links[l].bw_bps : lo;
        hi = (g->links[l].bw_bps > hi) ? g->links[l].bw_bps : hi;
    }
    if (0 != g->nlinks) {
        fmt_bw(lob, sizeof(lob), lo);
        fmt_bw(hib, sizeof(hib), hi);
    }
    /* a comment, so that the whole output parses back */
    printf("# nodes=%u links=%u failed_nodes=%u failed_links=%u min_bw=%s max_bw=%s",
           g->nnodes, g->nlinks, failed_nodes, failed_links, lob, hib);
    if (g->nranks != g->nnodes || 0 != g->nhosts) {
        printf(" ranks=%u hosts=%u", g->nranks, g->nhosts);
    }
    printf("\n");
}

/* "SRC DST n1 n2 ... DST" for every ordered pair of working nodes, by
 * source then destination; "SRC DST -" when there is no route. */
static int print_routes(const themis_graph_t *g)
{
    uint32_t n = g->nnodes;
    if (n > ROUTES_MAX_NODES) {
        fprintf(stderr, "themis-plan graph: --routes: %u nodes, at most %u\n", n,
                ROUTES_MAX_NODES);
        return EXIT_USAGE;
    }
    uint32_t *next = malloc((size_t) n * n * sizeof(*next));
    if (NULL == next) {
        fprintf(stderr, "themis-plan graph: out of memory\n");
        return EXIT_RUNTIME;
    }
    /* next[dst * n + src]: one backward search per destination */
    for (uint32_t d = 0; d < n; d++) {
        if (!g->node_failed[d] && THEMIS_OK != themis_graph_routes_to(g, d, &next[(size_t) d * n])) {
            free(next);
            fprintf(stderr, "themis-plan graph: out of memory\n");
            return EXIT_RUNTIME;
        }
    }
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t d = 0; d < n; d++) {
            if (s == d || g->node_failed[s] || g->node_failed[d]) {
                continue;
            }
            const uint32_t *nx = &next[(size_t) d * n];
            printf("%u %u", s, d);
            if (UINT32_MAX == nx[s]) {
                printf(" -");
            }
            for (uint32_t v = s; v != d && UINT32_MAX != nx[v]; v = g->links[nx[v]].dst) {
                printf(" %u", g->links[nx[v]].dst);
            }
            printf("\n");
        }
    }
    free(next);
    return 0;
}

static const themis_plan_cmd_spec_t graph_cmd = {
    .name = "graph", .synopsis = "SPEC|FILE",
    .about =
    "  Prints the graph in its file format (it reads back), then a comment\n"
    "  '# nodes=N links=L failed_nodes=F failed_links=G min_bw=.. max_bw=..'.\n"
    "  SPEC: ring:N biring:N fc:N switch:N mesh2d:WxH torus2d:WxH\n"
    "  mesh3d:XxYxZ torus3d:XxYxZ mesh2d_hetero:WxH dims:TOPOLOGY p3.16xlarge\n"
    "  p3.8xlarge, options ,bw= ,bw2= ,lat= ,degree= ,fail=K+K ,faillink=A-B+C-D\n"
    "  (planners/network/graph.h); clusters of hosts, NICs and switches cluster:HxR\n"
    "  leafspine:HxR rail:HxR, options ,nics= ,intra= ,ibw= ,ilat= ,pcie= ,bw=\n"
    "  ,ubw= ,lat= ,leaves= ,spines= (docs/cluster.md; the comment then adds\n"
    "  ranks=R hosts=H).  --bw/--lat/--degree set what the spec leaves out.\n"
    "  The graph is the argument or --graph.\n"
    "  --routes: 'SRC DST n1 .. DST' (the nodes after SRC) for every ordered\n"
    "  pair of working nodes, 'SRC DST -' when unreachable.\n",
    .max_pos = 1};

int themis_plan_cmd_graph(int argc, char **argv)
{
    themis_plan_args_t a;
    uint32_t dims[THEMIS_MAX_DIMS];
    int ndims, rc;
    if (0 != themis_plan_args_parse(&graph_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const char *spec = a.first_pos < argc ? argv[a.first_pos] : a.text[TPO_GRAPH];
    if ((a.first_pos < argc) == THEMIS_PLAN_GIVEN(&a, TPO_GRAPH)) {
        fprintf(stderr, "themis-plan graph: want one SPEC or FILE (try --help)\n");
        return EXIT_USAGE;
    }
    themis_graph_t g;
    if (0 != (rc = themis_plan_args_network(&a, spec, &g, dims, &ndims))) {
        return rc;
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_ROUTES)) {
        rc = print_routes(&g);
    } else {
        rc = (0 == themis_graph_write(&g, stdout)) ? 0 : EXIT_RUNTIME;
        print_summary(&g);
    }
    themis_graph_free(&g);
    return rc;
}

/* X.XXX from an integer count of thousandths, rounded to the nearest. */
static void print_milli(const char *name, uint64_t num, uint64_t den_per_milli)
{
    uint64_t m = num / den_per_milli + ((num % den_per_milli) * 2 >= den_per_milli ? 1 : 0);
    printf("%s=%" PRIu64 ".%03" PRIu64, name, m / 1000, m % 1000);
}

int themis_plan_link_sim_report(const char *cmd, const themis_graph_t *g,
                                const themis_xfer_sched_t *s, uint64_t bytes,
                                uint32_t duplex_ppm, const uint32_t *via)
{
    themis_link_sim_t r;
    char why[256];
    int rc = 0;

    if (0 != bytes % s->nunits) {
        fprintf(stderr, "themis-plan %s: --bytes %" PRIu64 " does not divide into %u units\n",
                cmd, bytes, s->nunits);
        return EXIT_USAGE;
    }
    themis_status_t st = themis_link_sim_via(g, s, bytes / s->nunits, duplex_ppm, via, &r, why,
                                             sizeof(why));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan %s: %s\n", cmd, why);
        rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    } else {
        printf("schedule: %s, %u ranks, %u units of %" PRIu64 " bytes\n", s->name, s->nranks,
               s->nunits, bytes / s->nunits);
        printf("graph: %u nodes, %u links, hash %016" PRIx64 "\n", g->nnodes, g->nlinks,
               themis_graph_hash(g));
        if (UINT32_MAX != r.busiest_link) {
            const themis_link_t *l = &g->links[r.busiest_link];
            printf("busiest link: %u -> %u, %" PRIu64 " bytes\n", l->src, l->dst,
                   r.link_bytes[r.busiest_link]);
        }
        print_milli("collective_us", r.total_ps, 1000);
        print_milli(" busiest_link_util", r.busiest_util_ppm, 1000);
        printf(" transfers=%u\n", s->nxfers);
    }
    themis_link_sim_free(&r);
    return rc;
}

int themis_plan_write_msccl(const char *cmd, const themis_xfer_sched_t *s, const char *path)
{
    FILE *f = fopen(path, "w");
    themis_status_t st = NULL == f ? THEMIS_ERR_IO : themis_msccl_write(s, f);
    if ((NULL != f && 0 != fclose(f)) || THEMIS_OK != st) {
        fprintf(stderr, "themis-plan %s: cannot write %s\n", cmd, path);
        return EXIT_RUNTIME;
    }
    return 0;
}

int themis_plan_spines_via(const char *cmd, const themis_graph_t *g, const themis_xfer_sched_t *s,
                           themis_clos_algo_t algo, uint64_t seed, uint32_t **via, FILE *summary)
{
    themis_clos_route_t r;
    char why[256];
    memset(&r, 0, sizeof(r));
    *via = malloc(((size_t) s->nxfers + 1) * sizeof(**via));
    themis_status_t st = NULL == *via ? THEMIS_ERR_NOMEM
                                      : themis_clos_graph_via(g, s, algo, seed, *via, &r, why,
                                                              sizeof(why));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan %s: --spines: %s\n", cmd,
                THEMIS_ERR_NOMEM == st ? "out of memory" : why);
    } else if (NULL != summary) {
        fprintf(summary, "spines: %s max_load=%u lower_bound=%u\n", themis_clos_algo_name(algo),
                r.max_load, r.lower_bound);
    }
    themis_clos_route_free(&r);
    return THEMIS_OK == st ? 0 : THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
}

static const themis_plan_cmd_spec_t xfer_cmd = {
    .name = "xfer", .synopsis = "ring|direct",
    .about =
    "  ring: the unidirectional ring over the ranks in --order (default 0..P-1,\n"
    "  P the graph's nodes); direct: every rank sends each other rank its block\n"
    "  straight (planners/schedule/xfer_direct.h).  A transfer schedule of P units of\n"
    "  S/P bytes (S: the whole vector), simulated link by link on the graph's\n"
    "  shortest routes; direct --xy W: dimension-ordered routes on a mesh or\n"
    "  torus of rows of W (x first, forwarded at the turn).  The last\n"
    "  line is 'collective_us=X busiest_link_util=Y transfers=N'.  --msccl\n"
    "  also writes the schedule as MSCCL-XML (coll_themis_<coll>_schedule runs it).\n"
    "  --duplex F: a link whose reverse also sends runs at F of its rate\n"
    "  (TCP over one connection both ways; default 1).  --spines ALGO on a\n"
    "  leaf-spine graph (leafspine:HxR, docs/cluster.md): each rank pair across\n"
    "  leaves is a Clos flow routed by ALGO (greedy, parallel, exact, or ecmp:\n"
    "  one draw of --seed N, default 1) and its transfers go by that spine\n"
    "  (planners/routing/cluster_clos.h); a line 'spines: ALGO max_load=M\n"
    "  lower_bound=B' comes first.  --graph, --coll and --bytes (or --count)\n"
    "  are required.\n",
    .min_pos = 1,
    .max_pos = 1};

int themis_plan_xfer_opts(const themis_plan_args_t *a, themis_plan_xfer_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->coll = a->coll;
    o->have_coll = THEMIS_PLAN_GIVEN(a, TPO_COLL);
    o->spines = THEMIS_CLOS_GREEDY;
    o->seed = THEMIS_PLAN_GIVEN(a, TPO_SEED) ? a->num[TPO_SEED] : 1;
    o->bytes = a->nbytes > 0 ? a->bytes[0] : 0;
    o->have_spines = THEMIS_PLAN_GIVEN(a, TPO_SPINES);
    if (o->have_spines
        && (THEMIS_OK != themis_clos_algo_parse(a->text[TPO_SPINES], &o->spines)
            || THEMIS_CLOS_ILP == o->spines)) {
        return themis_plan_args_fail(a, TPO_SPINES, "not greedy, parallel, exact or ecmp");
    }
    return 0;
}

int themis_plan_cmd_xfer(int argc, char **argv)
{
    themis_plan_args_t a;
    themis_plan_xfer_opts_t xo;
    uint32_t dims[THEMIS_MAX_DIMS];
    int ndims, rc;
    if (0 != themis_plan_args_parse(&xfer_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    if (0 != (rc = themis_plan_xfer_opts(&a, &xo))) {
        return rc;
    }
    const char *spec = a.text[TPO_GRAPH], *order_text = a.text[TPO_ORDER];
    const char *msccl_out = a.text[TPO_MSCCL];
    uint32_t xy_width = (uint32_t) a.num[TPO_XY];
    uint32_t duplex_ppm = THEMIS_PLAN_GIVEN(&a, TPO_DUPLEX) ? (uint32_t) a.num[TPO_DUPLEX]
                                                            : THEMIS_LINK_SIM_FULL_PPM;
    const int direct = 0 == strcmp("direct", argv[a.first_pos]);
    if (!direct && 0 != strcmp("ring", argv[a.first_pos])) {
        fprintf(stderr, "themis-plan xfer: want the generator 'ring' or 'direct' (try --help)\n");
        return EXIT_USAGE;
    }
    if ((direct && NULL != order_text) || (!direct && 0 != xy_width)) {
        fprintf(stderr, "themis-plan xfer: --order goes with the ring, --xy with direct\n");
        return EXIT_USAGE;
    }
    if (NULL == spec || !xo.have_coll || 0 == xo.bytes) {
        fprintf(stderr, "themis-plan xfer: --graph, --coll and --bytes are required\n");
        return EXIT_USAGE;
    }
    themis_graph_t g;
    if (0 != (rc = themis_plan_args_network(&a, spec, &g, dims, &ndims))) {
        return rc;
    }
    themis_status_t st;
    uint32_t *order = NULL, p = g.nranks;
    rc = 0;
    /* a permutation of 0 .. p-1, checked by themis_xfer_ring */
    if (NULL != order_text && EXIT_USAGE == (rc = themis_plan_parse_u32_list(
                                                 order_text, THEMIS_XFER_RING_MAX_RANKS - 1,
                                                 UINT32_MAX, &order, &p))) {
        fprintf(stderr, "themis-plan xfer: --order: '%s' is not a list of ranks such as "
                "0,1,3,2\n", order_text);
    }
    themis_xfer_sched_t s;
    memset(&s, 0, sizeof(s));
    if (0 == rc && (p > g.nranks || p > THEMIS_XFER_RING_MAX_RANKS)) {
        fprintf(stderr, "themis-plan xfer: %u ranks, but the graph has %u %s (the ring "
                "takes at most %u)\n", p, g.nranks, g.nranks == g.nnodes ? "nodes" : "ranks",
                THEMIS_XFER_RING_MAX_RANKS);
        rc = EXIT_USAGE;
    }
    if (0 == rc && direct) {
        st = themis_xfer_direct(xo.coll, p, xy_width, &s);
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan xfer: direct: cannot build for %u ranks (--xy %u)\n", p,
                    xy_width);
            rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
    } else if (0 == rc) {
        st = themis_xfer_ring(xo.coll, p, order, &s);
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan xfer: --order: not a permutation of 0..%u\n", p - 1);
            rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
    }
    if (0 == rc && NULL != msccl_out) {
        rc = themis_plan_write_msccl("xfer", &s, msccl_out);
    }
    uint32_t *via = NULL;
    if (0 == rc && xo.have_spines) {
        rc = themis_plan_spines_via("xfer", &g, &s, xo.spines, xo.seed, &via, stdout);
    }
    if (0 == rc) {
        rc = themis_plan_link_sim_report("xfer", &g, &s, xo.bytes, duplex_ppm, via);
    }
    free(via);
    themis_xfer_free(&s);
    free(order);
    themis_graph_free(&g);
    return rc;
}
