/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Spanning-tree packing (planners/treepack/treepack.h): the paper's values exactly
 * (p3.16xlarge 7/24 with the heuristics 1/2 and 7/16, p3.8xlarge 1/3),
 * the LP and the integer methods agree, every packing fits the
 * capacities, tori reach |E|/(n-1), MW reports an honest gap, and the
 * All-Reduce schedule of a packing passes the check and computes the sum
 * under many interleavings (vexec), roots at leaves; the link simulator
 * puts the row's p3.16xlarge schedule within 15 % of C(G) x S / B; the
 * table row runs it.
 */
#include <stdlib.h>

#include "algorithm.h"
#include "link_sim.h"
#include "plan.h"
#include "transfer.h"
#include "treepack.h"
#include "unit.h"
#include "vexec.h"
#include "xfer_run.h"

static void load(const char *spec, themis_graph_t *graph, themis_tp_graph_t *g)
{
    themis_parse_error_t e;
    char why[200] = "";
    UNIT_CHECKF(THEMIS_OK == themis_graph_load(spec, NULL, graph, &e), "%s: %s", spec,
                e.message);
    UNIT_CHECKF(THEMIS_OK == themis_tp_from_graph(graph, g, why, sizeof(why)), "%s: %s", spec,
                why);
}

static int frac_is(themis_tp_frac_t f, uint64_t num, uint64_t den)
{
    return f.num == num && f.den == den;
}

/* Every tree spans (n - 1 edges, no cycle) and, for integer packings,
 * sum_t w_t [e in t] <= q cap_e exactly. */
static void check_fits(const themis_tp_graph_t *g, const themis_tp_packing_t *p)
{
    uint32_t n = g->n, *uf = malloc(n * sizeof(*uf));
    uint64_t *load = calloc(g->m, sizeof(*load));
    for (uint32_t t = 0; t < p->ntrees; t++) {
        for (uint32_t v = 0; v < n; v++) {
            uf[v] = v;
        }
        for (uint32_t i = 0; i + 1 < n; i++) {
            uint32_t e = p->edges[(size_t) t * (n - 1) + i], a = g->u[e], b = g->v[e];
            while (uf[a] != a) {
                a = uf[a];
            }
            while (uf[b] != b) {
                b = uf[b];
            }
            UNIT_CHECKF(a != b, "tree %u has a cycle", t);
            uf[a] = b;
            if (NULL != p->w) {
                load[e] += p->w[t];
            }
        }
    }
    for (uint32_t e = 0; NULL != p->w && e < g->m; e++) {
        UNIT_CHECKF(load[e] <= p->q * g->cap[e], "edge %u: load %llu > %llu", e,
                    (unsigned long long) load[e], (unsigned long long) (p->q * g->cap[e]));
    }
    free(uf);
    free(load);
}

static void test_p3_16xlarge(void)
{
    themis_graph_t graph;
    themis_tp_graph_t g;
    themis_tp_packing_t lp, ex, mwst, chains;
    themis_tp_bounds_t b;
    char why[200] = "";
    load("p3.16xlarge", &graph, &g);
    UNIT_CHECK(8 == g.n && 16 == g.m && THEMIS_GRAPH_NVLINK_BW_BPS == g.unit_bps);
    UNIT_CHECKF(THEMIS_OK == themis_tp_lp(&g, 10000, NULL, &lp, why, sizeof(why)), "%s", why);
    UNIT_CHECK(lp.exact && frac_is(lp.value, 24, 7) && frac_is(lp.bound, 24, 7));
    themis_tp_frac_t r;
    UNIT_CHECK(NULL != lp.part && THEMIS_OK == themis_tp_partition_ratio(&g, lp.part, lp.nparts, &r)
               && frac_is(r, 24, 7));
    check_fits(&g, &lp);
    UNIT_CHECKF(THEMIS_OK == themis_tp_exact(&g, &ex, why, sizeof(why)), "%s", why);
    UNIT_CHECK(ex.exact && frac_is(ex.value, 24, 7) && 7 == ex.q && ex.bound_exact);
    check_fits(&g, &ex);
    /* Cycles: the dual-NVLink Hamiltonian cycle (weight 2) and the single
     * one (1), 16 chains, certified by the 8 singletons; what solve runs. */
    themis_tp_packing_t cy;
    UNIT_CHECKF(THEMIS_OK == themis_tp_cycles(&g, &cy, why, sizeof(why)), "%s", why);
    UNIT_CHECK(THEMIS_TP_CYCLES == cy.method && 16 == cy.ntrees && 7 == cy.q);
    UNIT_CHECK(cy.exact && frac_is(cy.value, 24, 7) && cy.bound_exact && 8 == cy.nparts);
    for (uint32_t t = 0; t < cy.ntrees; t++) {
        UNIT_CHECK((t < 8 ? 2u : 1u) == cy.w[t]);
    }
    check_fits(&g, &cy);
    themis_tp_packing_free(&cy);
    UNIT_CHECK(THEMIS_OK == themis_tp_solve(&g, &cy, why, sizeof(why))
               && THEMIS_TP_CYCLES == cy.method);
    themis_tp_packing_free(&cy);
    UNIT_CHECK(THEMIS_OK == themis_tp_bounds(&g, &b, &mwst));
    UNIT_CHECK(frac_is(b.c_mwst, 1, 2) && frac_is(b.max_c, 1, 1) && frac_is(b.c_lower, 7, 24));
    UNIT_CHECK(THEMIS_OK == themis_tp_rotated_chains(&g, &chains));
    /* C = 7/16: strength 16/7, 8 chains. */
    UNIT_CHECK(8 == chains.ntrees && frac_is(chains.value, 16, 7));
    check_fits(&g, &chains);
    check_fits(&g, &mwst);
    themis_tp_packing_free(&lp);
    themis_tp_packing_free(&ex);
    themis_tp_packing_free(&mwst);
    themis_tp_packing_free(&chains);
    themis_tp_graph_free(&g);
    themis_graph_free(&graph);
}

static void test_p3_8xlarge_and_small(void)
{
    static const struct {
        const char *spec;
        uint64_t num, den;
    } cases[] = {{"p3.8xlarge", 3, 1}, {"mesh2d:3x3", 3, 2}, {"fc:5", 5, 2},
                 {"mesh2d:4x4", 8, 5}, {"ring:4", 1, 1}, {"biring:5", 5, 4}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        themis_graph_t graph;
        themis_tp_graph_t g;
        themis_tp_packing_t lp, ex;
        char why[200] = "";
        themis_parse_error_t e;
        UNIT_CHECK(THEMIS_OK == themis_graph_load(cases[i].spec, NULL, &graph, &e));
        themis_status_t st = themis_tp_from_graph(&graph, &g, why, sizeof(why));
        if (0 == strcmp(cases[i].spec, "ring:4")) {
            /* One-way links: no edge can carry reduce and broadcast. */
            UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == st);
            themis_graph_free(&graph);
            continue;
        }
        UNIT_CHECKF(THEMIS_OK == st, "%s: %s", cases[i].spec, why);
        UNIT_CHECKF(THEMIS_OK == themis_tp_lp(&g, 10000, NULL, &lp, why, sizeof(why)), "%s", why);
        UNIT_CHECKF(THEMIS_OK == themis_tp_solve(&g, &ex, why, sizeof(why)), "%s", why);
        UNIT_CHECKF(lp.exact && frac_is(lp.value, cases[i].num, cases[i].den),
                    "%s: lp %llu/%llu", cases[i].spec, (unsigned long long) lp.value.num,
                    (unsigned long long) lp.value.den);
        UNIT_CHECKF(frac_is(ex.value, cases[i].num, cases[i].den), "%s: exact %llu/%llu",
                    cases[i].spec, (unsigned long long) ex.value.num,
                    (unsigned long long) ex.value.den);
        check_fits(&g, &ex);
        /* Hamiltonian cycles: fc:5 two, biring:5 one; the others have
         * nodes of odd capacity degree (p3.8xlarge, mesh2d:4x4) or no
         * Hamiltonian cycle (mesh2d:3x3, 9 nodes, bipartite). */
        themis_tp_packing_t cy;
        int decomposes = 0 == strcmp(cases[i].spec, "fc:5")
                         || 0 == strcmp(cases[i].spec, "biring:5");
        st = themis_tp_cycles(&g, &cy, why, sizeof(why));
        UNIT_CHECKF(decomposes ? THEMIS_OK == st : THEMIS_ERR_UNSUPPORTED == st,
                    "%s: cycles %d", cases[i].spec, (int) st);
        if (THEMIS_OK == st) {
            UNIT_CHECK(frac_is(cy.value, cases[i].num, cases[i].den) && cy.bound_exact);
            check_fits(&g, &cy);
            themis_tp_packing_free(&cy);
        }
        themis_tp_packing_free(&lp);
        themis_tp_packing_free(&ex);
        themis_tp_graph_free(&g);
        themis_graph_free(&graph);
    }
}

/* A 32x32 torus: 2048 chains, |E|/(n-1) = 2048/1023, certified by the
 * singletons; more units than a schedule of 1024 ranks affords, so the
 * runtime packs 4 trees at L = 2 (2/1 of 2048/1023) instead.  The
 * exact method agrees on a 4x4 torus. */
static void test_torus(void)
{
    themis_graph_t graph;
    themis_tp_graph_t g;
    themis_tp_packing_t p, ex;
    char why[200] = "";
    load("torus2d:32x32", &graph, &g);
    UNIT_CHECKF(THEMIS_OK == themis_tp_torus(&g, &p, why, sizeof(why)), "%s", why);
    UNIT_CHECK(THEMIS_TP_TORUS == p.method && 2048 == p.ntrees && frac_is(p.value, 2048, 1023)
               && p.bound_exact && frac_is(p.bound, 2048, 1023) && 1024 == p.nparts);
    check_fits(&g, &p);
    themis_tp_packing_free(&p);
    UNIT_CHECKF(THEMIS_OK == themis_tp_solve(&g, &p, why, sizeof(why)), "%s", why);
    UNIT_CHECKF(THEMIS_TP_UNION == p.method && frac_is(p.value, 2, 1)
                    && frac_is(p.bound, 2048, 1023) && 5 == themis_tp_units_budget(g.n),
                "%s %llu/%llu", themis_tp_method_name(p.method), (unsigned long long) p.value.num,
                (unsigned long long) p.value.den);
    check_fits(&g, &p);
    themis_tp_packing_free(&p);
    themis_tp_graph_free(&g);
    themis_graph_free(&graph);

    load("torus2d:4x4", &graph, &g);
    UNIT_CHECK(THEMIS_OK == themis_tp_torus(&g, &p, why, sizeof(why)));
    UNIT_CHECK(THEMIS_OK == themis_tp_exact(&g, &ex, why, sizeof(why)));
    UNIT_CHECK(frac_is(p.value, 32, 15) && frac_is(ex.value, 32, 15));
    check_fits(&g, &ex);
    themis_tp_packing_free(&p);
    themis_tp_packing_free(&ex);
    themis_tp_graph_free(&g);
    themis_graph_free(&graph);
}

/* MW: a feasible packing below its own dual bound, and the LP optimum in
 * between. */
static void test_mw(void)
{
    themis_graph_t graph;
    themis_tp_graph_t g;
    themis_tp_packing_t mw, lp;
    char why[200] = "";
    load("mesh2d_hetero:5x4", &graph, &g);
    UNIT_CHECK(THEMIS_OK == themis_tp_mw(&g, 0.05, 20000, &mw));
    UNIT_CHECK(THEMIS_OK == themis_tp_lp(&g, 10000, NULL, &lp, why, sizeof(why)) && lp.exact);
    check_fits(&g, &mw);
    UNIT_CHECKF(mw.value_f <= lp.value_f * (1 + 1e-9) && lp.value_f <= mw.bound_f * (1 + 1e-9),
                "mw %f lp %f bound %f", mw.value_f, lp.value_f, mw.bound_f);
    UNIT_CHECKF(mw.value_f >= 0.9 * mw.bound_f, "gap %f", 1 - mw.value_f / mw.bound_f);
    themis_tp_packing_free(&mw);
    themis_tp_packing_free(&lp);
    themis_tp_graph_free(&g);
    themis_graph_free(&graph);
}



/* The schedule of each runtime packing: checked, run, shares exact,
 * every root a leaf of its chunk's tree (it sends the sum to one rank)
 * and, with the chains of Hamiltonian cycles, every node a root of
 * nunits / n chunks (give or take one). */
static void test_schedules(void)
{
    static const char *const specs[] = {"p3.16xlarge", "p3.8xlarge", "torus2d:3x3", "fc:5"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        themis_graph_t graph;
        themis_tp_graph_t g;
        themis_tp_packing_t p;
        themis_xfer_sched_t s;
        char why[256] = "";
        load(specs[i], &graph, &g);
        UNIT_CHECKF(THEMIS_OK == themis_tp_solve(&g, &p, why, sizeof(why)), "%s", why);
        uint32_t cpw = themis_tp_chunks_for(&p, 24);
        UNIT_CHECKF(THEMIS_OK == themis_tp_allreduce_schedule(&g, &p, cpw, &s, why, sizeof(why)),
                    "%s: %s", specs[i], why);
        /* Roots: the rank that sends a unit down without receiving it. */
        uint32_t *roots = calloc(g.n, sizeof(*roots));
        uint8_t *got = calloc((size_t) g.n * s.nunits, 1);
        for (uint32_t x = 0; x < s.nxfers; x++) {
            const themis_xfer_t *t = &s.xfers[x];
            if (t->src != t->dst && THEMIS_BUF_OUTPUT == t->dst_buf) {
                got[(size_t) t->dst * s.nunits + t->dst_off] = 1;
            }
        }
        for (uint32_t u = 0; u < s.nunits; u++) {
            uint32_t without = 0, root = 0;
            for (uint32_t r = 0; r < g.n; r++) {
                if (!got[(size_t) r * s.nunits + u]) {
                    without++;
                    root = r;
                }
            }
            UNIT_CHECK(1 == without);
            roots[root]++;
            uint32_t sends = 0;
            for (uint32_t x = 0; x < s.nxfers; x++) {
                const themis_xfer_t *t = &s.xfers[x];
                sends += t->src == root && t->dst != root && t->src_off == u;
            }
            UNIT_CHECKF(1 == sends, "%s: unit %u: root %u sends %u", specs[i], u, root, sends);
        }
        int chains = THEMIS_TP_TORUS == p.method || THEMIS_TP_CYCLES == p.method;
        for (uint32_t r = 0; r < g.n && chains; r++) {
            UNIT_CHECKF(roots[r] * g.n + g.n >= s.nunits && roots[r] * g.n <= s.nunits + g.n,
                        "%s: rank %u root of %u of %u units", specs[i], r, roots[r], s.nunits);
        }
        xfer_run_schedule(&s, s.nunits, 1, 4);
        xfer_run_schedule(&s, 2 * (uint64_t) s.nunits, 3, 4);
        free(roots);
        free(got);
        themis_xfer_free(&s);
        themis_tp_packing_free(&p);
        themis_tp_graph_free(&g);
        themis_graph_free(&graph);
    }
}

/* The row's schedules through the link simulator against the bound
 * C(G) x S / B_unit: within 15 % on both p3 presets from 16 MiB (chains
 * rooted at their ends keep both directions of every link busy). */
static void test_simulated_ratio(void)
{
    static const struct {
        const char *spec;
        uint64_t mib, max_permille;
    } cases[] = {{"p3.16xlarge", 16, 1150}, {"p3.16xlarge", 64, 1150},
                 {"p3.8xlarge", 16, 1150}, {"p3.8xlarge", 64, 1150}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        themis_graph_t graph;
        themis_tp_graph_t g;
        themis_tp_packing_t p;
        themis_xfer_sched_t s;
        themis_link_sim_t sim;
        char why[256] = "";
        load(cases[i].spec, &graph, &g);
        UNIT_CHECKF(THEMIS_OK == themis_tp_solve(&g, &p, why, sizeof(why)), "%s", why);
        UNIT_CHECKF(THEMIS_OK == themis_tp_allreduce_schedule(&g, &p, themis_tp_chunks_for(&p, 96),
                                                              &s, why, sizeof(why)),
                    "%s", why);
        uint64_t bytes = cases[i].mib << 20, unit = bytes / s.nunits;
        UNIT_CHECKF(THEMIS_OK == themis_link_sim(&graph, &s, unit, &sim, why, sizeof(why)), "%s",
                    why);
        /* bound_ps = (1 / value) x bytes x 8 x 10^12 / unit_bps, exactly. */
        unsigned __int128 bound = (unsigned __int128) p.value.den * (unit * s.nunits) * 8
                                  * 1000000000000ull
                                  / ((unsigned __int128) p.value.num * g.unit_bps);
        UNIT_CHECKF((unsigned __int128) sim.total_ps * 1000 <= bound * cases[i].max_permille,
                    "%s %llu MiB: %llu ps, bound %llu ps", cases[i].spec,
                    (unsigned long long) cases[i].mib, (unsigned long long) sim.total_ps,
                    (unsigned long long) bound);
        themis_link_sim_free(&sim);
        themis_xfer_free(&s);
        themis_tp_packing_free(&p);
        themis_tp_graph_free(&g);
        themis_graph_free(&graph);
    }
}

/* The row: needs a graph of the communicator's size; builds through the
 * table what the schedule compiles to, keeping it per graph. */
static void test_row(void)
{
    int a = themis_algorithm_index("treepack");
    UNIT_CHECK(a > 0);
    const themis_algorithm_t *row = themis_algorithm_get(a);
    themis_topology_t t = unit_topology("sw:8:100Gb:1us");
    themis_algo_cost_params_t params;
    themis_algo_cost_params_init(&params);
    themis_graph_t graph, small;
    themis_parse_error_t e;
    UNIT_CHECK(THEMIS_OK == themis_graph_load("p3.16xlarge", NULL, &graph, &e));
    UNIT_CHECK(THEMIS_OK == themis_graph_load("p3.8xlarge", NULL, &small, &e));
    void *state = NULL;
    char why[256] = "";
    themis_algo_input_t in = {.topo = &t, .coll = THEMIS_COLL_ALLREDUCE, .bytes = 96 * 8,
                              .params = &params, .state = &state, .why = why,
                              .why_len = sizeof(why)};
    UNIT_CHECK(!row->applies(&in, why, sizeof(why)) && NULL != strstr(why, "coll_themis_graph"));
    in.graph = &small;
    UNIT_CHECK(!row->applies(&in, why, sizeof(why)));
    in.graph = &graph;
    UNIT_CHECKF(row->applies(&in, why, sizeof(why)), "%s", why);
    UNIT_CHECK(!themis_algorithm_serves(a, THEMIS_COLL_ALLGATHER));
    themis_algo_choice_t ch;
    UNIT_CHECK(THEMIS_OK == themis_algorithm_choose(a, &in, &ch) && a == ch.index);
    in.graph = NULL;
    UNIT_CHECK(THEMIS_OK == themis_algorithm_choose(a, &in, &ch) && 0 == ch.index
               && ch.substituted);
    in.graph = &graph;
    themis_time_t time = 0;
    UNIT_CHECK(THEMIS_OK == row->cost(&in, &time) && time > 0);

    themis_plan_request_t req;
    memset(&req, 0, sizeof(req));
    req.coll = THEMIS_COLL_ALLREDUCE;
    req.ndims = 1;
    req.dim_size[0] = 8;
    req.rank = 3;
    req.count = 96 * 4;
    req.chunks_in_flight = 2;
    themis_program_t via, direct;
    UNIT_CHECKF(THEMIS_OK == row->build(&in, &req, &via), "%s", why);
    UNIT_CHECK(NULL != state);
    themis_tp_graph_t g;
    themis_tp_packing_t p;
    themis_xfer_sched_t s;
    UNIT_CHECK(THEMIS_OK == themis_tp_from_graph(&graph, &g, why, sizeof(why)));
    UNIT_CHECK(THEMIS_OK == themis_tp_solve(&g, &p, why, sizeof(why)));
    UNIT_CHECK(THEMIS_OK == themis_tp_allreduce_schedule(&g, &p, themis_tp_chunks_for(&p, 96),
                                                         &s, why, sizeof(why)));
    UNIT_CHECK(96 == s.nunits);
    UNIT_CHECK(THEMIS_OK
               == themis_xfer_compile(&s, 3, 96 * 4, NULL, 2, &direct, why, sizeof(why)));
    UNIT_CHECK(via.nops == direct.nops && via.nsteps == direct.nsteps
               && 0 == memcmp(via.steps, direct.steps, via.nsteps * sizeof(*via.steps)));
    themis_program_free(&via);
    /* Counts that do not divide into the units run the same schedule. */
    themis_program_free(&direct);
    for (uint64_t count = 1; count <= 1025; count = 2 * count + 1) {
        xfer_run_schedule(&s, count, 2, 2);
    }
    xfer_run_schedule(&s, 1024, 1, 2);
    themis_xfer_free(&s);
    themis_tp_packing_free(&p);
    themis_tp_graph_free(&g);
    row->state_free(state);
    themis_graph_free(&graph);
    themis_graph_free(&small);
}

int main(void)
{
    UNIT_RUN(test_p3_16xlarge);
    UNIT_RUN(test_p3_8xlarge_and_small);
    UNIT_RUN(test_torus);
    UNIT_RUN(test_mw);
    UNIT_RUN(test_schedules);
    UNIT_RUN(test_simulated_ratio);
    UNIT_RUN(test_row);
    UNIT_EXIT();
}
