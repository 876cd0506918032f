/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan route --clos TxS (--pairs DIR | --ring H,H,... | --schedule
 * FILE.xml --hosts H,H,...) [...]`: one
 * spine per flow on a 2-layer Clos (planners/routing/clos_route.h, clos_ilp.h).
 * The last line is exactly
 *   max_load=X optimum=Y slowest_flow_share=Z run_ms=T
 * (optimum: the proven lower bound, which is the optimum for exact and
 * for an ilp that finished; Z: the slowest flow's rate over the link
 * rate).  --failed-spines F fails the F highest spine ids, S-F .. S-1: a
 * deterministic choice that keeps spine ids of the working ones stable.
 */
#include "themis_build_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clos.h"
#include "clos_failed_links.h"
#include "clos_ilp.h"
#include "clos_route.h"
#include "msccl.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "xfer_ring.h"

#define ROUTE_DEFAULT_HOSTS_PER_TOR 32u
#define ROUTE_DEFAULT_DRAWS 1000u
#define ROUTE_MAX_DRAWS 1000000u
#define ROUTE_DEFAULT_TIME_LIMIT_MS 10000u
#define ROUTE_DEFAULT_THREADS 2u

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (0 != errno || end == s || '\0' != *end || '-' == s[0] || '+' == s[0] || x < lo ||
        x > hi) {
        return -1;
    }
    *v = (uint32_t) x;
    return 0;
}

/* "64x32" */
static int parse_clos(const char *s, uint32_t *t, uint32_t *sp)
{
    const char *x = strchr(s, 'x');
    char buf[32];
    if (NULL == x || (size_t) (x - s) >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, (size_t) (x - s));
    buf[x - s] = '\0';
    return (0 == parse_u32(buf, 1, THEMIS_CLOS_MAX_TORS, t) &&
            0 == parse_u32(x + 1, 1, THEMIS_CLOS_MAX_SPINES, sp)) ? 0 : -1;
}

/* "T-S+T-S": cables ToR T - spine S. */
static int fail_links(themis_clos_t *c, const char *s)
{
    char *copy = strdup(s), *save = NULL;
    int rc = (NULL == copy) ? EXIT_RUNTIME : 0;
    for (char *tok = (NULL != copy) ? strtok_r(copy, "+", &save) : NULL; NULL != tok && 0 == rc;
         tok = strtok_r(NULL, "+", &save)) {
        char *dash = strchr(tok, '-');
        uint32_t t, sp;
        if (NULL == dash) {
            rc = EXIT_USAGE;
            break;
        }
        *dash = '\0';
        if (0 != parse_u32(tok, 0, c->ntors - 1, &t) ||
            0 != parse_u32(dash + 1, 0, c->nspines - 1, &sp)) {
            rc = EXIT_USAGE;
            break;
        }
        c->link_failed[(size_t) t * c->nspines + sp] = 1;
    }
    if (EXIT_USAGE == rc) {
        fprintf(stderr, "themis-plan route: --failed-links: '%s' is not TOR-SPINE+TOR-SPINE... "
                "(indices, e.g. 3-0+5-7)\n", s);
    }
    free(copy);
    return rc;
}

/* "96,130,131": rank i on host node H_i. */
static int parse_hosts(const char *opt, const char *s, uint32_t **hosts, uint32_t *n)
{
    int rc = themis_plan_parse_u32_list(s, UINT32_MAX, THEMIS_XFER_RING_MAX_RANKS, hosts, n);
    if (EXIT_USAGE == rc) {
        fprintf(stderr, "themis-plan route: %s: '%s' is not a list of at most %u host node ids "
                "such as 96,97,130\n", opt, s, THEMIS_XFER_RING_MAX_RANKS);
    }
    return rc;
}

/* The ring All-Reduce's flows over hosts[] (rank i on hosts[i]); with
 * tor_aware, in the ToR-aware rank order, reporting what it saves. */
static int check_hosts(const char *opt, const themis_clos_t *c, const uint32_t *hosts,
                       uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        if (UINT32_MAX == themis_clos_host_tor(c, hosts[r])) {
            fprintf(stderr, "themis-plan route: %s: %u is not a host node (hosts are %u .. "
                    "%u)\n", opt, hosts[r], c->host_base, c->host_base + c->nhosts - 1);
            return EXIT_USAGE;
        }
    }
    return 0;
}

static int ring_flows(const themis_clos_t *c, const uint32_t *hosts, uint32_t n, int tor_aware,
                      themis_clos_flows_t *f)
{
    if (0 != check_hosts("--ring", c, hosts, n)) {
        return EXIT_USAGE;
    }
    uint32_t *order = malloc((size_t) n * sizeof(*order)), before = 0, after = 0;
    if (NULL == order || THEMIS_OK != themis_clos_ring_order(c, hosts, n, order, &before, &after)) {
        free(order);
        return EXIT_RUNTIME;
    }
    themis_xfer_sched_t s;
    themis_status_t st = themis_xfer_ring(THEMIS_COLL_ALLREDUCE, n, tor_aware ? order : NULL, &s);
    if (THEMIS_OK == st) {
        st = themis_clos_flows_from_xfer(f, c, &s, hosts);
        themis_xfer_free(&s);
    }
    free(order);
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan route: --ring: %s\n", themis_status_string(st));
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    printf("placement: ring of %u ranks, inter-ToR flows %u in rank order, %u ToR-aware (%u "
           "removed)%s\n", n, before, after, before - after, tor_aware ? ", using ToR-aware" : "");
    return 0;
}

/* The flows of any transfer schedule in MSCCL-XML (also what `themis-plan
 * export --msccl` writes for Themis, rings, torus2d): one flow per ordered
 * pair of ranks that exchange data, rank i on hosts[i]. */
static int schedule_flows(const themis_clos_t *c, const char *path, const uint32_t *hosts,
                          uint32_t n, themis_clos_flows_t *f)
{
    if (0 != check_hosts("--hosts", c, hosts, n)) {
        return EXIT_USAGE;
    }
    themis_xfer_sched_t s;
    char why[256] = "";
    themis_status_t st = themis_msccl_load(path, &s, NULL, why, sizeof(why));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan route: --schedule %s: %s\n", path,
                '\0' != why[0] ? why : themis_status_string(st));
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    int rc = 0;
    if (s.nranks != n) {
        fprintf(stderr, "themis-plan route: --schedule %s has %u ranks, --hosts places %u\n",
                path, s.nranks, n);
        rc = EXIT_USAGE;
    } else if (THEMIS_OK != (st = themis_clos_flows_from_xfer(f, c, &s, hosts))) {
        fprintf(stderr, "themis-plan route: --schedule: %s\n", themis_status_string(st));
        rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    } else {
        printf("placement: schedule %s of %u ranks, %u transfers\n", s.name, n, s.nxfers);
    }
    themis_xfer_free(&s);
    return rc;
}

/* X.XXX from millionths, rounded to the nearest thousandth. */
static void print_ppm(const char *name, uint64_t ppm)
{
    uint64_t m = (ppm + 500) / 1000;
    printf("%s=%" PRIu64 ".%03" PRIu64, name, m / 1000, m % 1000);
}

static int route_run(themis_clos_t *c, themis_clos_flows_t *f, themis_clos_algo_t algo,
                     uint32_t draws, uint64_t seed, uint32_t time_limit_ms, uint32_t threads,
                     uint32_t search_steps, const char *json_path)
{
    themis_clos_route_t r;
    themis_status_t st;
    memset(&r, 0, sizeof(r));
    switch (algo) {
    case THEMIS_CLOS_GREEDY:
        st = themis_clos_route_greedy(c, f, &r);
        break;
    case THEMIS_CLOS_PARALLEL:
        st = themis_clos_route_parallel(c, f, threads, &r);
        break;
    case THEMIS_CLOS_EXACT:
        st = themis_clos_route_exact_limit(c, f, search_steps, &r);
        break;
    case THEMIS_CLOS_ILP:
        st = themis_clos_route_ilp(c, f, time_limit_ms, &r);
        break;
    default:
        st = themis_clos_route_ecmp(c, f, draws, seed, &r);
        break;
    }
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan route: %s: %s\n", themis_clos_algo_name(algo),
                THEMIS_ERR_INVALID == st ? "an inter-ToR flow has no usable spine"
                                         : themis_status_string(st));
        themis_clos_route_free(&r);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    printf("flows: %u (%u inter-ToR), D=%u, working spines %u\n", f->n, r.inter_tor, r.tor_demand,
           r.working_spines);
    printf("algorithm: %s\n", themis_clos_algo_name(algo));
    if (THEMIS_CLOS_PARALLEL == algo) {
        printf("parallel: components=%u threads=%u\n", r.components, threads);
    }
    if (THEMIS_CLOS_ILP == algo) {
        printf("ilp: optimal=%d bound=%u value=%u", r.optimal, r.lower_bound, r.max_load);
        print_ppm(" gap", r.gap_ppm);
        printf(" time_limit_ms=%u\n", time_limit_ms);
    }
    if (THEMIS_CLOS_EXACT == algo && r.searched) {
        /* failed links that are not one block: certified, not guaranteed */
        printf("exact: failed links not one block: construction %u, search steps %" PRIu64
               " of %u\n", r.heuristic_load, r.search_steps, search_steps);
        if (!r.optimal) {
            printf("exact: load %u, bound %u, not proven optimal (search limit reached; "
                   "--search-steps or --algo ilp may close the gap)\n", r.max_load,
                   r.lower_bound);
        }
    }
    if (THEMIS_CLOS_ECMP == algo) {
        printf("ecmp: draws=%u seed=%" PRIu64 " mean_max_load=%" PRIu64 ".%03" PRIu64
               " worst=%u histogram", r.draws, r.seed, r.mean_milli / 1000, r.mean_milli % 1000,
               r.worst);
        for (uint32_t m = 0; m <= r.worst; m++) {
            if (0 != r.hist[m]) {
                printf(" %u:%u", m, r.hist[m]);
            }
        }
        printf(" (max_load below: the worst draw)\n");
    }
    int rc = 0;
    if (NULL != json_path) {
        FILE *out = fopen(json_path, "w");
        if (NULL == out || 0 != themis_clos_route_write_json(c, f, &r, out)) {
            fprintf(stderr, "themis-plan route: cannot write %s\n", json_path);
            rc = EXIT_RUNTIME;
        }
        if (NULL != out && 0 != fclose(out)) {
            fprintf(stderr, "themis-plan route: cannot write %s\n", json_path);
            rc = EXIT_RUNTIME;
        }
    }
    printf("max_load=%u optimum=%u", r.max_load, r.lower_bound);
    print_ppm(" slowest_flow_share", r.slowest_share_ppm);
    printf(" run_ms=%" PRIu64 ".%03" PRIu64 "\n", r.run_ns / 1000000u, (r.run_ns / 1000u) % 1000u);
    themis_clos_route_free(&r);
    return rc;
}

static void about(FILE *f)
{
    fprintf(f,
            "  One spine per flow on a 2-layer Clos of T ToRs and S spines, node ids as\n"
            "  in the routing paper's traffic files (ToRs 0.., spines T.., hosts T+S..,\n"
            "  H per ToR, default %u; links --bw, default 100Gb).  --pairs: every *.txt\n"
            "  file of DIR, all flows at once.  --ring: an All-Reduce ring, rank i on\n"
            "  host H_i; --tor-aware orders ranks by ToR.  --schedule: the flows of\n"
            "  an MSCCL-XML schedule (themis-plan export --msccl writes Themis's),\n"
            "  rank i on --hosts H_i.  --failed-spines F fails\n"
            "  spines S-F .. S-1.  greedy: Algorithm 1; parallel: Sec. 3.4.3 on\n"
            "  --threads (default %u); exact: the optimum by edge colouring and a\n"
            "  max-flow (failed links: one block, ToRs x spines); other failed-link\n"
            "  patterns (NP-hard in general): a bound, a construction and a search of\n"
            "  at most --search-steps (default %u), optimal when proven, else the\n"
            "  gap is printed (\"load L, bound B, not proven optimal\"); ilp: GLPK within\n"
            "  --time-limit ms (default %u); ecmp: --draws\n"
            "  (default %u) random choices from --seed (default 1).  --json: the spine\n"
            "  per flow.  Last line: max_load=X optimum=Y slowest_flow_share=Z run_ms=T\n",
            ROUTE_DEFAULT_HOSTS_PER_TOR, ROUTE_DEFAULT_THREADS,
            (uint32_t) THEMIS_CLOS_SEARCH_STEPS, ROUTE_DEFAULT_TIME_LIMIT_MS,
            ROUTE_DEFAULT_DRAWS);
}

static const themis_plan_cmd_spec_t route_cmd = {
    .name = "route",
    .synopsis = "--clos TxS (--pairs DIR | --ring H,H,... |\n"
                "         --schedule FILE.xml --hosts H,H,...)",
    .about_fn = about};

int themis_plan_cmd_route(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc;

    if (0 != themis_plan_args_parse(&route_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const char *clos_spec = a.text[TPO_CLOS], *pairs = a.text[TPO_PAIRS];
    const char *ring = a.text[TPO_RING];
    const char *links = a.text[TPO_FAILED_LINKS], *json = a.text[TPO_JSON];
    const char *sched = a.text[TPO_SCHEDULE], *sched_hosts = a.text[TPO_HOSTS];
    const uint32_t failed = (uint32_t) a.num[TPO_FAILED_SPINES];
    uint32_t hpt = ROUTE_DEFAULT_HOSTS_PER_TOR, draws = ROUTE_DEFAULT_DRAWS;
    uint32_t tlim = ROUTE_DEFAULT_TIME_LIMIT_MS, threads = ROUTE_DEFAULT_THREADS, seed32 = 1;
    uint32_t steps = (uint32_t) THEMIS_CLOS_SEARCH_STEPS;
    const uint64_t bw = THEMIS_PLAN_GIVEN(&a, TPO_BW) ? a.num[TPO_BW] : 0;
    const int tor_aware = THEMIS_PLAN_GIVEN(&a, TPO_TOR_AWARE);
    themis_clos_algo_t algo = THEMIS_CLOS_GREEDY;

    hpt = THEMIS_PLAN_GIVEN(&a, TPO_HOSTS_PER_TOR) ? (uint32_t) a.num[TPO_HOSTS_PER_TOR] : hpt;
    draws = THEMIS_PLAN_GIVEN(&a, TPO_DRAWS) ? (uint32_t) a.num[TPO_DRAWS] : draws;
    threads = THEMIS_PLAN_GIVEN(&a, TPO_THREADS) ? (uint32_t) a.num[TPO_THREADS] : threads;
    if (THEMIS_PLAN_GIVEN(&a, TPO_SEARCH_STEPS)) {
        steps = (uint32_t) a.num[TPO_SEARCH_STEPS];
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_BW) && NULL != strchr(a.text[TPO_BW], ',')) {
        return themis_plan_args_fail(&a, TPO_BW, "one rate here (links and hosts)");
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_ALGO)
        && THEMIS_OK != themis_clos_algo_parse(a.text[TPO_ALGO], &algo)) {
        return themis_plan_args_fail(&a, TPO_ALGO, "not greedy, parallel, exact, ilp or ecmp");
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_SEED)) {
        if (a.num[TPO_SEED] > UINT32_MAX) {
            return themis_plan_args_fail(&a, TPO_SEED, "at most 4294967295 here");
        }
        seed32 = (uint32_t) a.num[TPO_SEED];
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_TIME_LIMIT)
        && 0 != parse_u32(a.text[TPO_TIME_LIMIT], 1, 3600000u, &tlim)) {
        return themis_plan_args_fail(&a, TPO_TIME_LIMIT, "not 1 .. 3600000 (ms)");
    }
    uint32_t ntors = 0, nspines = 0;
    if (NULL == clos_spec

        || 1 != (NULL != pairs) + (NULL != ring) + (NULL != sched)
        || (NULL == sched) != (NULL == sched_hosts)) {
        fprintf(stderr, "themis-plan route: want --clos TxS and one of --pairs DIR, --ring "
                "H,H,... or --schedule FILE.xml --hosts H,H,... (try --help)\n");
        return EXIT_USAGE;
    }
    if (0 != parse_clos(clos_spec, &ntors, &nspines)) {
        fprintf(stderr, "themis-plan route: --clos: '%s' is not TORSxSPINES such as 64x32\n",
                clos_spec);
        return EXIT_USAGE;
    }
    themis_clos_t clos;
    themis_status_t st = themis_clos_init(&clos, ntors, nspines, hpt);
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan route: --clos %s with %u hosts per ToR: %s\n", clos_spec,
                hpt, themis_status_string(st));
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (0 != bw) {
        clos.link_bps = bw;
        clos.host_bps = bw;
    }
    if (THEMIS_OK != themis_clos_fail_top_spines(&clos, failed)) {
        fprintf(stderr, "themis-plan route: --failed-spines %u: the Clos has %u spines\n", failed,
                nspines);
        rc = EXIT_USAGE;
    }
    if (0 == rc && NULL != links) {
        rc = fail_links(&clos, links);
    }
    if (0 == rc) {
        uint32_t nf = 0;
        for (uint32_t l = 0; l < ntors * nspines; l++) {
            nf += clos.link_failed[l];
        }
        printf("clos: %u ToRs x %u spines (%u working), %u hosts, failed links %u\n", ntors,
               nspines, themis_clos_working_spines(&clos), clos.nhosts, nf);
    }
    themis_clos_flows_t f;
    themis_clos_flows_init(&f);
    if (0 == rc && NULL != pairs) {
        themis_parse_error_t e;
        memset(&e, 0, sizeof(e));
        st = themis_clos_flows_load_pairs(&f, &clos, pairs, &e);
        if (THEMIS_OK != st) {
            if (0 != e.line) {
                fprintf(stderr, "themis-plan route: %s: line %d, column %d: %s\n", pairs,
                        e.line, e.column, e.message);
            } else {
                fprintf(stderr, "themis-plan route: %s: %s\n", pairs, e.message);
            }
            rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
    }
    if (0 == rc && NULL != ring) {
        uint32_t *hosts = NULL, n = 0;
        rc = parse_hosts("--ring", ring, &hosts, &n);
        if (0 == rc) {
            rc = ring_flows(&clos, hosts, n, tor_aware, &f);
        }
        free(hosts);
    }
    if (0 == rc && NULL != sched) {
        uint32_t *hosts = NULL, n = 0;
        rc = parse_hosts("--hosts", sched_hosts, &hosts, &n);
        if (0 == rc) {
            rc = schedule_flows(&clos, sched, hosts, n, &f);
        }
        free(hosts);
    }
    if (0 == rc) {
        rc = route_run(&clos, &f, algo, draws, seed32, tlim, threads, steps, json);
    }
    themis_clos_flows_free(&f);
    themis_clos_free(&clos);
    return rc;
}
