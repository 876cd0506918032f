/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan synth --graph SPEC|FILE --coll ag|rs|ar --bytes S
 * --chunks-per-npu K [--bw B[,B2]] [--lat L] [--seeds N] [--ilp
 * [--time-limit T] [--ilp-cluster STEPS]] [--export DIR | --msccl FILE]
 * [--write-graph FILE]`: a TACOS schedule (planners/tacos/tacos.h, with --ilp
 * planners/tacos/tacos_ilp.h) synthesized on the graph's working part, checked,
 * and timed by the link simulator beside the lower bound.
 */
#include "themis_build_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cluster.h"
#include "defaults.h"
#include "cut_bound.h"
#include "graph.h"
#include "link_sim.h"
#include "msccl.h"
#include "tacos.h"
#include "tacos_ilp.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "util.h"

static void about(FILE *f)
{
    fprintf(f, "  TACOS (tacos.txt): greedy link-chunk matching on the graph's working nodes\n"
           "  (rank r = the r-th working node; --write-graph writes that graph, whose\n"
           "  file coll_themis_graph takes), best of N seeds (default: %llu / (links x\n"
           "  chunks), %u to %u; seeds alternate the paper's FIFO choice, matched\n"
           "  choices and the public code's matching).  S is the collective's vector (allgather output, reduce-scatter\n"
           "  input); chunks are floor(S / (ranks x K)) bytes (K: default %u, as coll/themis' tacos).  The schedule is checked (up to %u transfers)\n"
           "  and simulated link by link; --msccl writes it as MSCCL-XML, --export DIR\n"
           "  writes DIR/schedule.xml (MSCCL-XML, for coll_themis_<coll>_schedule) and\n"
           "  DIR/graph (the working graph, for coll_themis_graph).\n"
           "  --ilp: TACOS-ILP (Sec. V, GLPK) on graphs of up to %u NPUs, the greedy as\n"
           "  its first incumbent, T seconds in all (default %u; e.g. 30, 500ms), then\n"
           "  shortest paths for what is missing; the faster of its schedule and the\n"
           "  greedy's is returned (line 'returned:'); --ilp-cluster: TENs of STEPS steps one\n"
           "  after another (Sec. V-C).  --duplex F: simulate links whose reverse also\n"
           "  sends at F of their rate (TCP over one connection both ways; the\n"
           "  synthesis does not use it).  The last line is 'collective_us=X\n"
           "  lower_bound_us=Y cut_bound_us=C synthesis_ms=Z' (Z: wall time; Y: each\n"
           "  node's links; C: planners/bound/cut_bound.h, every cut up to %u nodes, else a\n"
           "  family, the line 'cut bound:' says which).\n",
           (unsigned long long) THEMIS_TACOS_AUTO_WORK, THEMIS_TACOS_DEFAULT_SEEDS,
           THEMIS_TACOS_AUTO_MAX_SEEDS, THEMIS_DEFAULT_TACOS_CHUNKS_PER_NPU, THEMIS_XFER_CHECK_MAX,
           THEMIS_TACOS_ILP_MAX_NODES,
           60u, THEMIS_CUT_EXACT_NODES);
}

/* --time-limit: seconds ("30", "2.5") or a latency such as 500ms; at least
 * 1 ms. */
static int parse_limit(const char *arg, uint32_t *ms)
{
    char *end = NULL;
    themis_time_t ps = 0;
    errno = 0;
    double sec = strtod(arg, &end);
    if (0 == errno && end != arg && '\0' == *end && sec >= 0.001 && sec <= 86400.0) {
        *ms = (uint32_t) (sec * 1000.0 + 0.5);
        return 0;
    }
    if (THEMIS_OK == themis_parse_latency(arg, &ps, NULL) && ps >= 1000000000ull
        && ps <= 86400ull * 1000000000000ull) {
        *ms = (uint32_t) (ps / 1000000000ull);
        return 0;
    }
    fprintf(stderr, "themis-plan synth: --time-limit: '%s' is not a time from 1 ms to a day "
            "(e.g. 30, 2.5 or 500ms): the ILP needs time to run\n", arg);
    return EXIT_USAGE;
}

/* X.XXX of a count of thousandths, rounded to the nearest. */
static void milli(char *buf, size_t len, uint64_t num, uint64_t per_milli)
{
    uint64_t m = num / per_milli + ((num % per_milli) * 2 >= per_milli ? 1 : 0);
    snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, m / 1000, m % 1000);
}

static int write_outputs(const char *msccl_out, const char *graph_out, const char *dir,
                         const themis_xfer_sched_t *s, const themis_graph_t *g)
{
    FILE *f;
    char path[4096];
    if (NULL != dir) {
        if (0 != mkdir(dir, 0777) && EEXIST != errno) {
            fprintf(stderr, "themis-plan synth: --export: cannot create %s: %s\n", dir,
                    strerror(errno));
            return EXIT_RUNTIME;
        }
        snprintf(path, sizeof(path), "%s/schedule.xml", dir);
        int rc = write_outputs(path, NULL, NULL, s, g);
        snprintf(path, sizeof(path), "%s/graph", dir);
        if (0 == rc) {
            rc = write_outputs(NULL, path, NULL, s, g);
        }
        if (0 != rc) {
            return rc;
        }
    }
    if (NULL != msccl_out) {
        f = fopen(msccl_out, "w");
        if (NULL == f || 0 != themis_msccl_write(s, f) || 0 != fclose(f)) {
            fprintf(stderr, "themis-plan synth: cannot write %s\n", msccl_out);
            return EXIT_RUNTIME;
        }
    }
    if (NULL != graph_out) {
        f = fopen(graph_out, "w");
        if (NULL == f || 0 != themis_graph_write(g, f) || 0 != fclose(f)) {
            fprintf(stderr, "themis-plan synth: cannot write %s\n", graph_out);
            return EXIT_RUNTIME;
        }
    }
    return 0;
}

typedef struct {
    themis_coll_t coll;
    uint64_t bytes;
    uint32_t k, seeds;
    uint32_t duplex_ppm;        /* the simulation's (link_sim.h), not the synthesis's */
    const char *msccl_out, *graph_out, *dir;
    int ilp;
    themis_tacos_ilp_opts_t ilp_opts;
} synth_args_t;

static int synth(const themis_graph_t *full, const synth_args_t *a)
{
    themis_coll_t coll = a->coll;
    uint32_t k = a->k;
    uint64_t bytes = a->bytes;
    themis_tacos_ilp_info_t info;
    themis_graph_t g;
    uint32_t *node_of_rank = calloc(full->nnodes, sizeof(*node_of_rank)), n = 0;
    themis_status_t st = NULL == node_of_rank ? THEMIS_ERR_NOMEM
                                              : themis_tacos_working(full, &g, node_of_rank, &n);
    char why[256] = "", tb[32], lb[32], sb[32];
    themis_xfer_sched_t s;
    themis_link_sim_t sim;
    uint64_t t0 = 0, t1 = 0;
    int rc = 0;

    memset(&s, 0, sizeof(s));
    memset(&sim, 0, sizeof(sim));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan synth: %s\n",
                THEMIS_ERR_NOMEM == st ? "out of memory" : "no working node");
        free(node_of_rank);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    uint64_t chunk = bytes / ((uint64_t) n * k);
    if (0 == chunk) {
        fprintf(stderr, "themis-plan synth: --bytes %" PRIu64 " is less than a byte per chunk "
                "(%u ranks x %u chunks)\n", bytes, n, k);
        rc = EXIT_USAGE;
    }
    if (0 == rc && n != full->nnodes) {
        printf("ranks: %u working nodes of %u; rank r = node", n, full->nnodes);
        for (uint32_t r = 0; r < n; ++r) {
            printf(" %u", node_of_rank[r]);
        }
        printf("\n");
    }
    if (0 == rc) {
        t0 = themis_now_ns();
        if (a->ilp) {
            themis_tacos_ilp_opts_t o = a->ilp_opts;
            o.greedy_seeds = a->seeds;
            st = themis_tacos_ilp_synthesize(&g, coll, k, chunk, &o, &s, &info, why, sizeof(why));
        } else {
            st = themis_tacos_synthesize(&g, coll, k, chunk, a->seeds, &s, why, sizeof(why));
        }
        t1 = themis_now_ns();
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan synth: %s\n", why);
            rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
    }
    if (0 == rc && s.nxfers <= THEMIS_XFER_CHECK_MAX) {
        if (THEMIS_OK != themis_xfer_check(&s, why, sizeof(why))) {
            fprintf(stderr, "themis-plan synth: the schedule fails its check: %s\n", why);
            rc = EXIT_RUNTIME;
        }
    }
    if (0 == rc) {
        st = themis_link_sim_duplex(&g, &s, chunk, a->duplex_ppm, &sim, why, sizeof(why));
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan synth: %s\n", why);
            rc = EXIT_RUNTIME;
        }
    }
    if (0 == rc) {
        rc = write_outputs(a->msccl_out, a->graph_out, a->dir, &s, &g);
    }
    if (0 == rc) {
        uint64_t ns = t1 - t0;
        printf("schedule: %s, %u ranks, %u units of %" PRIu64 " bytes, %u transfers, %s\n",
               s.name, s.nranks, s.nunits, chunk, s.nxfers,
               s.nxfers <= THEMIS_XFER_CHECK_MAX ? "checked" : "too large to check");
        if (a->ilp) {
            milli(tb, sizeof(tb), info.step_ps, 1000);
            printf("ilp: step %s us, %u steps (lower bound %u, greedy retimed %u), %s, %u ILPs "
                   "(largest %u binary columns), %u sends by shortest paths, link order %s\n",
                   tb, info.steps, info.lower_steps, info.greedy_steps,
                   info.optimal ? "optimal in steps" : "not proven optimal", info.solves,
                   info.max_cols, info.recovered, info.link_order ? "kept" : "free");
            milli(tb, sizeof(tb), info.ilp_ps, 1000);
            milli(lb, sizeof(lb), info.greedy_ps, 1000);
            printf("returned: the %s schedule (ILP %s us, greedy %s us)\n",
                   info.greedy_won ? "greedy's" : "ILP's", tb, lb);
        }
        themis_cut_bound_t cut;
        char cb[32] = "?";
        if (THEMIS_OK == themis_cut_bound(&g, coll, k, chunk, &cut)) {
            milli(cb, sizeof(cb), cut.time_ps, 1000);
            printf("cut bound: %s us, %s (%" PRIu64 " cuts), binding side %u of %u nodes\n", cb,
                   cut.exact ? "exact: every cut" : "a family of cuts: nodes, sweeps", cut.cuts,
                   cut.side, n);
        }
        milli(tb, sizeof(tb), sim.total_ps, 1000);
        milli(lb, sizeof(lb), themis_tacos_lower_bound(&g, coll, k, chunk), 1000);
        milli(sb, sizeof(sb), ns, 1000);
        printf("collective_us=%s lower_bound_us=%s cut_bound_us=%s synthesis_ms=%s\n", tb, lb,
               cb, sb);
    }
    themis_link_sim_free(&sim);
    themis_xfer_free(&s);
    themis_graph_free(&g);
    free(node_of_rank);
    return rc;
}

static const themis_plan_cmd_spec_t synth_cmd = {.name = "synth", .synopsis = "",
                                                 .about_fn = about};

int themis_plan_cmd_synth(int argc, char **argv)
{
    themis_plan_args_t o;
    synth_args_t a = {.coll = THEMIS_COLL_ALLREDUCE, .k = THEMIS_DEFAULT_TACOS_CHUNKS_PER_NPU,
                      .seeds = THEMIS_TACOS_SEEDS_AUTO,
                      .duplex_ppm = THEMIS_LINK_SIM_FULL_PPM};
    uint32_t dims[THEMIS_MAX_DIMS];
    int ndims, rc = 0;

    if (0 != themis_plan_args_parse(&synth_cmd, argc, argv, &o, &rc)) {
        return rc;
    }
    themis_tacos_ilp_opts_default(&a.ilp_opts);
    const char *spec = o.text[TPO_GRAPH];
    const int have_limit = THEMIS_PLAN_GIVEN(&o, TPO_TIME_LIMIT);
    const int have_cluster = THEMIS_PLAN_GIVEN(&o, TPO_ILP_CLUSTER);
    a.coll = o.coll;
    a.bytes = o.nbytes > 0 ? o.bytes[0] : 0;
    if (THEMIS_PLAN_GIVEN(&o, TPO_CHUNKS_PER_NPU)) {
        a.k = (uint32_t) o.num[TPO_CHUNKS_PER_NPU];
    }
    a.seeds = THEMIS_PLAN_GIVEN(&o, TPO_SEEDS) ? (uint32_t) o.num[TPO_SEEDS] : a.seeds;
    a.duplex_ppm = THEMIS_PLAN_GIVEN(&o, TPO_DUPLEX) ? (uint32_t) o.num[TPO_DUPLEX]
                                                     : a.duplex_ppm;
    a.msccl_out = o.text[TPO_MSCCL];
    a.graph_out = o.text[TPO_WRITE_GRAPH];
    a.dir = o.text[TPO_EXPORT];
    a.ilp = THEMIS_PLAN_GIVEN(&o, TPO_ILP);
    if (have_cluster) {
        a.ilp_opts.cluster_steps = (uint32_t) o.num[TPO_ILP_CLUSTER];
    }
    if (have_limit && 0 != parse_limit(o.text[TPO_TIME_LIMIT], &a.ilp_opts.time_limit_ms)) {
        return EXIT_USAGE;
    }
    if (NULL == spec || !THEMIS_PLAN_GIVEN(&o, TPO_COLL) || 0 == a.bytes) {
        fprintf(stderr, "themis-plan synth: --graph, --coll and --bytes (or --count) are "
                "required (try --help)\n");
        return EXIT_USAGE;
    }
    if ((have_limit || have_cluster) && !a.ilp) {
        fprintf(stderr, "themis-plan synth: --time-limit and --ilp-cluster go with --ilp\n");
        return EXIT_USAGE;
    }
    if (NULL != a.dir && NULL != a.msccl_out) {
        fprintf(stderr, "themis-plan synth: --export DIR or --msccl FILE, not both\n");
        return EXIT_USAGE;
    }
    themis_graph_t g;
    themis_status_t st;
    if (0 != (rc = themis_plan_args_network(&o, spec, &g, dims, &ndims))) {
        return rc;
    }
    if (g.nranks != g.nnodes) {
        /* TACOS' nodes are ranks: the switches unwound (cluster.h). */
        themis_graph_t ranks;
        char why[160];
        st = themis_graph_unwind(&g, 0, &ranks, why, sizeof(why));
        themis_graph_free(&g);
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan synth: %s: %s\n", spec, why);
            return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
        printf("unwound: %u ranks, %u links (switches as TACOS Sec. IV-D)\n", ranks.nnodes,
               ranks.nlinks);
        g = ranks;
    }
    rc = synth(&g, &a);
    themis_graph_free(&g);
    return rc;
}
