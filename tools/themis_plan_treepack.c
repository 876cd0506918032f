/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan treepack --graph SPEC|FILE [--method M] [--bytes S]
 *  [--trees N]`: the optimal spanning-tree packing of a graph
 * (planners/treepack/treepack.h): C(G) as an exact fraction, the trees with their
 * shares, the certificate partition, the runtime's packing with its C
 * beside C(G) and their ratio, the C of the schedule row treepack runs
 * (after rounding to units and chunks) beside C(G) and its ratio, Lemma
 * 2.1's bounds and the paper's two heuristics with the optimum's gain
 * over each.  --bytes: the
 * runtime's transfer schedule through the link simulator.
 */
#include "themis_build_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "link_sim.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "treepack.h"
#include "util.h"

/* Above this many nodes the LP is not tried unless asked for (column
 * generation slows down fast; tori and MW cover large graphs). */
#define LP_AUTO_MAX_NODES 64u
#define LP_MAX_ROUNDS 100000u
#define MW_EPS 0.02
#define MW_MAX_ITERS 20000u

/* Trees of large graphs are cut short: the line stays readable. */
#define TREE_MAX_EDGES_SHOWN 32u

static void print_tree(const themis_tp_graph_t *g, const uint32_t *edges)
{
    for (uint32_t i = 0; i + 1 < g->n && i < TREE_MAX_EDGES_SHOWN; i++) {
        uint32_t e = edges[i];
        printf(" %u-%u", g->u[e], g->v[e]);
    }
    printf("%s\n", g->n - 1 > TREE_MAX_EDGES_SHOWN ? " .." : "");
}

/* C = 1 / value: C(G) where the packing meets its bound (optimal). */
static void print_packing(const char *label, const themis_tp_graph_t *g,
                          const themis_tp_packing_t *p, double ms, uint32_t show)
{
    if (p->exact) {
        int optimal = p->bound_exact && p->bound.num == p->value.num
                      && p->bound.den == p->value.den;
        printf("%s: %s=%" PRIu64 "/%" PRIu64 " (%.6f) strength%s%" PRIu64 "/%" PRIu64
               " trees=%u ms=%.3f",
               label, optimal ? "C(G)" : "C", p->value.den, p->value.num,
               (double) p->value.den / p->value.num, optimal ? "=" : ">=", p->value.num,
               p->value.den, p->ntrees, ms);
        if (!optimal && p->bound_exact) {
            printf(" bound C>=%" PRIu64 "/%" PRIu64 " (ratio<=%.4f)", p->bound.den,
                   p->bound.num,
                   (double) p->bound.num * p->value.den / ((double) p->bound.den * p->value.num));
        }
    } else {
        printf("%s: C=%.6f strength>=%.6f trees=%u ms=%.3f", label, 1.0 / p->value_f,
               p->value_f, p->ntrees, ms);
    }
    if (THEMIS_TP_LP == p->method || THEMIS_TP_MW == p->method || THEMIS_TP_UNION == p->method) {
        printf(" rounds=%u", p->iterations);
    }
    if (THEMIS_TP_MW == p->method) {
        printf(" bound=%.6f gap=%.4f%%", 1.0 / p->bound_f,
               100.0 * (1.0 - p->value_f / p->bound_f));
    }
    printf("\n");
    double sum = p->value_f;
    for (uint32_t t = 0; t < p->ntrees && t < show; t++) {
        if (NULL != p->w) {
            printf("  tree %u share=%" PRIu64 "/%" PRIu64 " alpha=%.6f:", t, p->w[t],
                   (uint64_t) (p->value.num * p->q / p->value.den), p->x[t] / sum);
        } else {
            printf("  tree %u x=%.6f alpha=%.6f:", t, p->x[t], p->x[t] / sum);
        }
        print_tree(g, &p->edges[(size_t) t * (g->n - 1)]);
    }
    if (p->ntrees > show) {
        printf("  ... %u more trees (--trees N)\n", p->ntrees - show);
    }
}

static void print_partition(const themis_tp_packing_t *p, uint32_t n)
{
    if (NULL == p->part) {
        printf("certificate: none found (the exact method is optimal by Nash-Williams)\n");
        return;
    }
    printf("certificate: %u parts, strength <= %" PRIu64 "/%" PRIu64 ":", p->nparts,
           p->bound.num, p->bound.den);
    for (uint32_t k = 0; k < p->nparts && k < 64; k++) {
        printf(" {");
        const char *sep = "";
        uint32_t shown = 0;
        for (uint32_t v = 0; v < n; v++) {
            if (p->part[v] == k) {
                if (shown++ < 16) {
                    printf("%s%u", sep, v);
                    sep = ",";
                }
            }
        }
        printf("%s}", shown > 16 ? ",.." : "");
    }
    printf("%s\n", p->nparts > 64 ? " .." : "");
}

/* What row treepack runs (its schedule: the packing rounded to units and
 * chunks) and the rate that implies, beside C(G) where ref is the LP's
 * optimum, else beside ref's certified bound. */
static void print_row_rate(const themis_graph_t *graph, const themis_tp_graph_t *g,
                           const themis_tp_packing_t *ref)
{
    themis_xfer_sched_t sched, *s = &sched;
    themis_tp_frac_t c;
    char why[256] = "";
    double t0 = (themis_now_ns() / 1e6);
    themis_status_t st = themis_tp_runtime_schedule(graph, s, why, sizeof(why));
    double ms = (themis_now_ns() / 1e6) - t0;
    if (THEMIS_OK == st) {
        st = themis_tp_schedule_rate(graph, s, g->unit_bps, &c, why, sizeof(why));
    }
    if (THEMIS_OK != st) {
        printf("row: no schedule: %s\n", why);
        themis_xfer_free(s);
        return;
    }
    int lp = THEMIS_TP_LP == ref->method;
    themis_tp_frac_t opt = lp ? ref->value : ref->bound;
    printf("row: C=%" PRIu64 "/%" PRIu64 " (%.6f) as scheduled (%u units, %u transfers, "
           "ms=%.3f) beside %s=%" PRIu64 "/%" PRIu64 ": ratio %.4f\n",
           c.num, c.den, (double) c.num / (double) c.den, s->nunits, s->nxfers, ms,
           lp ? "C(G)" : "certified C(G)>=", opt.den, opt.num,
           (double) c.num * (double) opt.num / ((double) c.den * (double) opt.den));
    themis_xfer_free(s);
}

static void about(FILE *f)
{
    fprintf(f, "  The optimal spanning-tree packing (optimal-message-scheduling-for-\n"
               "  aggregation.txt): C(G) exact, the trees and shares, the certificate\n"
               "  partition, Lemma 2.1, the best single tree and the rotated chains.\n"
               "  C is in units of S / B, B the graph's capacity unit (unit=).  auto:\n"
               "  the LP (up to %u nodes), the runtime's packing (torus, cycles or\n"
               "  union) with its ratio to the LP's C(G), MW where neither applies.\n"
               "  --bytes S (or --count N): the runtime's All-Reduce schedule of S bytes\n"
               "  through the link simulator.\n",
            LP_AUTO_MAX_NODES);
}

static const themis_plan_cmd_spec_t treepack_cmd = {.name = "treepack", .synopsis = "",
                                                    .about_fn = about};

int themis_plan_cmd_treepack(int argc, char **argv)
{
    themis_plan_args_t a;
    uint32_t dims[THEMIS_MAX_DIMS];
    int ndims, rc;
    if (0 != themis_plan_args_parse(&treepack_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const char *spec = a.text[TPO_GRAPH];
    const char *method = THEMIS_PLAN_GIVEN(&a, TPO_METHOD) ? a.text[TPO_METHOD] : "auto";
    const uint64_t bytes = 1 == a.nbytes ? a.bytes[0] : 0;
    const uint32_t show = THEMIS_PLAN_GIVEN(&a, TPO_TREES) ? (uint32_t) a.num[TPO_TREES] : 32;
    int want_lp = 0 == strcmp(method, "lp"), want_exact = 0 == strcmp(method, "exact");
    int want_torus = 0 == strcmp(method, "torus"), want_mw = 0 == strcmp(method, "mw");
    int want_cycles = 0 == strcmp(method, "cycles");
    int is_auto = 0 == strcmp(method, "auto");
    if (NULL == spec
        || !(want_lp || want_exact || want_cycles || want_torus || want_mw || is_auto)) {
        fprintf(stderr, "themis-plan treepack: want --graph SPEC|FILE and --method "
                "auto|lp|exact|cycles|torus|mw (try --help)\n");
        return EXIT_USAGE;
    }
    themis_graph_t graph;
    if (0 != (rc = themis_plan_args_network(&a, spec, &graph, dims, &ndims))) {
        return rc;
    }
    themis_tp_graph_t g;
    char why[256] = "";
    themis_status_t st = themis_tp_from_graph(&graph, &g, why, sizeof(why));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan treepack: %s: %s\n", spec, why);
        themis_graph_free(&graph);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    uint64_t capsum = 0;
    for (uint32_t k = 0; k < g.m; k++) {
        capsum += g.cap[k];
    }
    printf("graph=%s nodes=%u edges=%u unit_bps=%" PRIu64 " capacity=%" PRIu64 "\n", spec, g.n,
           g.m, g.unit_bps, capsum);

    /* The optimum, by every method asked for; best: the one to compare. */
    themis_tp_packing_t best;
    int have_best = 0;
    memset(&best, 0, sizeof(best));
    if (want_lp || (is_auto && g.n <= LP_AUTO_MAX_NODES)) {
        themis_tp_packing_t p;
        double t0 = (themis_now_ns() / 1e6);
        st = themis_tp_lp(&g, LP_MAX_ROUNDS, NULL, &p, why, sizeof(why));
        double ms = (themis_now_ns() / 1e6) - t0;
        if (THEMIS_OK == st) {
            print_packing("lp", &g, &p, ms, show);
            print_partition(&p, g.n);
            best = p;
            have_best = 1;
        } else {
            printf("lp: %s\n", why);
            rc = EXIT_RUNTIME;
        }
    }
    if (want_torus || want_exact || want_cycles || is_auto) {
        themis_tp_packing_t p;
        double t0 = (themis_now_ns() / 1e6);
        st = want_torus   ? themis_tp_torus(&g, &p, why, sizeof(why))
             : want_exact ? themis_tp_exact(&g, &p, why, sizeof(why))
             : want_cycles ? themis_tp_cycles(&g, &p, why, sizeof(why))
                          : themis_tp_solve(&g, &p, why, sizeof(why));
        double ms = (themis_now_ns() / 1e6) - t0;
        if (THEMIS_OK == st) {
            char label[32];
            snprintf(label, sizeof(label), "runtime(%s)", themis_tp_method_name(p.method));
            print_packing(label, &g, &p, ms, have_best ? 0 : show);
            if (!have_best) {
                print_partition(&p, g.n);
            }
            if (have_best && best.exact) {
                /* C(runtime) / C(G) = strength / value; a runtime packing
                 * above the optimum would be a bug in one of the two. */
                double ratio = (double) best.value.num * p.value.den
                               / ((double) best.value.den * p.value.num);
                printf("runtime/lp: C=%" PRIu64 "/%" PRIu64 " beside C(G)=%" PRIu64 "/%" PRIu64
                       ": ratio %.4f\n", p.value.den, p.value.num, best.value.den,
                       best.value.num, ratio);
                if ((unsigned __int128) p.value.num * best.value.den
                    > (unsigned __int128) best.value.num * p.value.den) {
                    printf("runtime(%s): above the LP optimum\n",
                           themis_tp_method_name(p.method));
                    rc = EXIT_RUNTIME;
                }
            }
            if (!want_torus && !want_exact && !want_cycles) {
                print_row_rate(&graph, &g, have_best && best.exact ? &best : &p);
            }
            if (bytes > 0) {
                themis_xfer_sched_t s;
                uint32_t cpw = themis_tp_chunks_for(&p, 96);
                if (THEMIS_OK == themis_tp_allreduce_schedule(&g, &p, cpw, &s, why, sizeof(why))) {
                    printf("schedule: %u units, %u transfers\n", s.nunits, s.nxfers);
                    int r = themis_plan_link_sim_report("treepack", &graph, &s,
                                                        bytes / s.nunits * s.nunits,
                                                        THEMIS_LINK_SIM_FULL_PPM, NULL);
                    rc = 0 != r ? r : rc;
                    themis_xfer_free(&s);
                } else {
                    printf("schedule: %s\n", why);
                }
            }
            if (!have_best) {
                best = p;
                have_best = 1;
            } else {
                themis_tp_packing_free(&p);
            }
        } else {
            printf("runtime: %s\n", why);
            rc = (want_torus || want_exact || want_cycles) ? EXIT_RUNTIME : rc;
        }
    }
    if (want_mw || (is_auto && !have_best)) {
        themis_tp_packing_t p;
        double t0 = (themis_now_ns() / 1e6);
        st = themis_tp_mw(&g, MW_EPS, MW_MAX_ITERS, &p);
        double ms = (themis_now_ns() / 1e6) - t0;
        if (THEMIS_OK == st) {
            print_packing("mw", &g, &p, ms, 0);
            themis_tp_packing_free(&p);
        } else {
            printf("mw: %s\n", themis_status_string(st));
            rc = EXIT_RUNTIME;
        }
    }

    themis_tp_bounds_t b;
    themis_tp_packing_t mwst, chains;
    if (THEMIS_OK == themis_tp_bounds(&g, &b, &mwst)) {
        char cg[64] = " (not exact)";
        if (have_best && best.exact) {
            snprintf(cg, sizeof(cg), "=%" PRIu64 "/%" PRIu64, best.value.den, best.value.num);
        }
        printf("lemma2.1: max_c=%" PRIu64 "/%" PRIu64 " >= C(T_mwst)=%" PRIu64 "/%" PRIu64
               " >= C(G)%s >= (n-1)/sum_cap=%" PRIu64 "/%" PRIu64 "\n",
               b.max_c.num, b.max_c.den, b.c_mwst.num, b.c_mwst.den, cg, b.c_lower.num,
               b.c_lower.den);
        printf("heuristic mwst: C=%" PRIu64 "/%" PRIu64 ":", b.c_mwst.num, b.c_mwst.den);
        print_tree(&g, mwst.edges);
        if (have_best && best.exact) {
            printf("gain mwst: %.4fx\n", (double) best.value.num * b.c_mwst.num
                                             / ((double) best.value.den * b.c_mwst.den));
        }
        themis_tp_packing_free(&mwst);
    }
    if (THEMIS_OK == themis_tp_rotated_chains(&g, &chains)) {
        printf("heuristic chains: C=%" PRIu64 "/%" PRIu64 " (%u chains of one Hamiltonian "
               "cycle):", chains.value.den, chains.value.num, chains.ntrees);
        print_tree(&g, chains.edges);
        if (have_best && best.exact) {
            printf("gain chains: %.4fx\n",
                   (double) best.value.num * chains.value.den
                       / ((double) best.value.den * chains.value.num));
        }
        themis_tp_packing_free(&chains);
    } else {
        printf("heuristic chains: no Hamiltonian cycle found (up to %u nodes)\n",
               THEMIS_TP_CHAINS_MAX_NODES);
    }
    themis_tp_packing_free(&best);
    themis_tp_graph_free(&g);
    themis_graph_free(&graph);
    return rc;
}
