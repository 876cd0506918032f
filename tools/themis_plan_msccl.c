/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan msccl check|export|draw FILE`: MSCCL-XML files as transfer
 * schedules (planners/msccl/msccl.h).  check prints what the file holds and
 * "ok"; export writes the schedule back as MSCCL-XML and loads that again
 * (both hashes, equal for a faithful round trip); draw lists each rank's
 * transfers in list order.
 */
#include "themis_build_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "link_sim.h"
#include "msccl.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"


static const char *const buf_names[THEMIS_NBUFS] = {"input", "output", "scratch"};

static const themis_plan_cmd_spec_t msccl_cmd = {
    .name = "msccl", .synopsis = "check|export|draw|simulate FILE",
    .about =
    "  check: load an MSCCL-XML file as a transfer schedule, print it, 'ok'\n"
    "  export (--out OUT.xml): write the schedule as MSCCL-XML, load it again,\n"
    "    print both hashes\n"
    "  draw: each rank's transfers in list order (peer, units, dependencies)\n"
    "  simulate (--graph, --bytes or --count): its time on a graph (themis-plan\n"
    "    graph), link by link, for a whole vector of S bytes; last line as\n"
    "    `themis-plan xfer`; --duplex F: a link whose reverse also sends runs at\n"
    "    F of its rate (default 1)\n"
    "  Every action first checks the schedule as coll/themis does (races, the\n"
    "  collective's result): a file that fails is reported, exit 2.\n",
    .min_pos = 2,
    .max_pos = 2};

static int load(const char *path, themis_xfer_sched_t *s, themis_msccl_info_t *info)
{
    char why[512];
    themis_status_t st = themis_msccl_load(path, s, info, why, sizeof(why));
    if (THEMIS_OK == st && THEMIS_OK != (st = themis_xfer_check(s, why, sizeof(why)))) {
        themis_xfer_free(s);
    }
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan msccl: %s: %s\n", path, why);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    return 0;
}

static void print_info(const themis_msccl_info_t *i, const themis_xfer_sched_t *s)
{
    printf("name: %s\n", i->name);
    printf("collective: %s%s, %u gpus, %u chunks per loop, %u channels, proto %s, redop %s\n",
           themis_coll_name(i->coll), i->inplace ? " (in place)" : "", i->ngpus,
           i->nchunksperloop, i->nchannels, '\0' == i->proto[0] ? "-" : i->proto,
           '\0' == i->redop[0] ? "-" : i->redop);
    if (0 != i->min_bytes || UINT64_MAX != i->max_bytes) {
        printf("bytes: %" PRIu64 "..%" PRIu64 "\n", i->min_bytes, i->max_bytes);
    }
    printf("steps: %u, thread blocks: %u, copies: %u\n", i->nsteps, i->ntbs, i->ncopies);
    printf("transfers: %u, dependencies: %u, redirected receives: %u, extra scratch units: %"
           PRIu64 "\n", i->nxfers, s->ndeps, i->nredirects, i->extra_scratch);
    if (0 != i->ndead) {
        printf("%u dead transfers, skipped (their data derives from units nobody wrote and "
               "reaches no result)\n", i->ndead);
    }
    printf("units: %u; per rank input %" PRIu64 ", output %" PRIu64 ", scratch %" PRIu64
           "; result in %s\n", s->nunits, s->buf_units[THEMIS_BUF_INPUT],
           s->buf_units[THEMIS_BUF_OUTPUT], s->buf_units[THEMIS_BUF_SCRATCH],
           buf_names[s->result_buf]);
    printf("schedule hash: %016" PRIx64 "\n", themis_xfer_hash(s));
}

static void draw(const themis_xfer_sched_t *s)
{
    for (uint32_t r = 0; r < s->nranks; r++) {
        printf("rank %u:\n", r);
        for (uint32_t i = 0; i < s->nxfers; i++) {
            const themis_xfer_t *x = &s->xfers[i];
            if (x->src != r && x->dst != r) {
                continue;
            }
            char what[32];
            if (x->src == x->dst) {
                snprintf(what, sizeof(what), "local");
            } else if (x->src == r) {
                snprintf(what, sizeof(what), "send -> %u", x->dst);
            } else {
                snprintf(what, sizeof(what), "recv <- %u", x->src);
            }
            printf("  #%-5u %-12s %s[%" PRIu64 "..%" PRIu64 ") -> %s[%" PRIu64 "..%" PRIu64
                   ") %s  deps:", i, what, buf_names[x->src_buf], x->src_off,
                   x->src_off + x->count, buf_names[x->dst_buf], x->dst_off,
                   x->dst_off + x->count, THEMIS_XFER_COPY == x->kind ? "copy" : "reduce");
            for (uint32_t k = 0; k < x->ndeps; k++) {
                printf("%s%u", 0 == k ? " " : ",", s->deps[x->dep_first + k]);
            }
            printf("%s\n", 0 == x->ndeps ? " -" : "");
        }
    }
}

static int simulate(const char *path, const themis_plan_args_t *a)
{
    themis_xfer_sched_t s;
    themis_graph_t g;
    uint32_t dims[THEMIS_MAX_DIMS];
    int ndims;

    if (!THEMIS_PLAN_GIVEN(a, TPO_GRAPH) || 0 == a->nbytes) {
        fprintf(stderr, "themis-plan msccl simulate: --graph and --bytes (or --count) are "
                "required\n");
        return EXIT_USAGE;
    }
    int rc = load(path, &s, NULL);
    if (0 != rc) {
        return rc;
    }
    if (0 != (rc = themis_plan_args_network(a, a->text[TPO_GRAPH], &g, dims, &ndims))) {
        themis_xfer_free(&s);
        return rc;
    }
    if (g.nranks != s.nranks) {
        fprintf(stderr, "themis-plan msccl simulate: the schedule has %u ranks, the graph %u "
                "%s\n", s.nranks, g.nranks, g.nranks == g.nnodes ? "nodes" : "ranks");
        rc = EXIT_USAGE;
    } else {
        uint32_t duplex_ppm = THEMIS_PLAN_GIVEN(a, TPO_DUPLEX) ? (uint32_t) a->num[TPO_DUPLEX]
                                                               : THEMIS_LINK_SIM_FULL_PPM;
        rc = themis_plan_link_sim_report("msccl simulate", &g, &s, a->bytes[0], duplex_ppm,
                                         NULL);
    }
    themis_graph_free(&g);
    themis_xfer_free(&s);
    return rc;
}

static int do_export(const char *path, const char *outp)
{
    themis_xfer_sched_t s, again;
    themis_msccl_info_t info;
    int rc = load(path, &s, &info);
    if (0 != rc) {
        return rc;
    }
    FILE *f = fopen(outp, "w");
    if (NULL == f) {
        fprintf(stderr, "themis-plan msccl: cannot write %s\n", outp);
        themis_xfer_free(&s);
        return EXIT_RUNTIME;
    }
    themis_status_t st = themis_msccl_write(&s, f);
    if (0 != fclose(f) && THEMIS_OK == st) {
        st = THEMIS_ERR_IO;
    }
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan msccl: writing %s: %s\n", outp, themis_status_string(st));
        themis_xfer_free(&s);
        return EXIT_RUNTIME;
    }
    rc = load(outp, &again, NULL);
    if (0 == rc) {
        uint64_t h1 = themis_xfer_hash(&s), h2 = themis_xfer_hash(&again);
        printf("%s: schedule hash %016" PRIx64 "\n", path, h1);
        printf("%s: schedule hash %016" PRIx64 "\n", outp, h2);
        printf("%s\n", h1 == h2 ? "round trip: same schedule" : "round trip: DIFFERENT schedule");
        rc = h1 == h2 ? 0 : EXIT_RUNTIME;
        themis_xfer_free(&again);
    }
    themis_xfer_free(&s);
    return rc;
}

int themis_plan_cmd_msccl(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc;

    if (0 != themis_plan_args_parse(&msccl_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const char *outp = a.text[TPO_OUT];
    const char *action = argv[a.first_pos], *path = argv[a.first_pos + 1];
    if (0 == strcmp(action, "export")) {
        if (NULL == outp) {
            fprintf(stderr, "themis-plan msccl export: --out OUT.xml is required\n");
            return EXIT_USAGE;
        }
        return do_export(path, outp);
    }
    if (0 == strcmp(action, "simulate")) {
        return simulate(path, &a);
    }
    if (0 != strcmp(action, "check") && 0 != strcmp(action, "draw")) {
        fprintf(stderr, "themis-plan msccl: unknown action '%s' (try --help)\n", action);
        return EXIT_USAGE;
    }
    themis_xfer_sched_t s;
    themis_msccl_info_t info;
    rc = load(path, &s, &info);
    if (0 != rc) {
        return rc;
    }
    if ('c' == action[0]) {
        print_info(&info, &s);
        printf("ok\n");
    } else {
        draw(&s);
    }
    themis_xfer_free(&s);
    return 0;
}
