/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis-plan export --msccl OUT.xml: a themis algorithm's programs for
 * one call, as every rank of the component would build them, written as
 * MSCCL-XML (planners/schedule/xfer_programs.h, msccl.h).  The file is read back
 * and compiled again: the round trip must give the same schedule and the
 * same programs (hashes printed), and coll_themis_<coll>_schedule runs it.
 */
#include "themis_build_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "defaults.h"
#include "hash.h"
#include "msccl.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "themis_plan_opts.h"
#include "xfer_programs.h"

/* coll_themis_direct_max's default */
#define EXPORT_DIRECT_MAX 8

/* Writes s to path as MSCCL-XML and reads it back (checked) into back. */
static int write_read(const char *path, const themis_xfer_sched_t *s, themis_xfer_sched_t *back)
{
    char why[256];
    FILE *f = fopen(path, "w");
    themis_status_t st = NULL == f ? THEMIS_ERR_IO : themis_msccl_write(s, f);
    if ((NULL != f && 0 != fclose(f)) || THEMIS_OK != st) {
        fprintf(stderr, "themis-plan export: cannot write %s\n", path);
        return EXIT_RUNTIME;
    }
    st = themis_msccl_load(path, back, NULL, why, sizeof(why));
    if (THEMIS_OK == st) {
        st = themis_xfer_check(back, why, sizeof(why));
    }
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan export: reading %s back: %s\n", path, why);
        return EXIT_RUNTIME;
    }
    return 0;
}

/* Hash of every rank's program of the schedule compiled for `total`. */
static int programs_hash(const themis_xfer_sched_t *s, uint64_t total, uint32_t in_flight,
                         uint64_t *h)
{
    char why[256];
    *h = THEMIS_FNV_OFFSET;
    for (uint32_t r = 0; r < s->nranks; r++) {
        themis_program_t p;
        if (THEMIS_OK
            != themis_xfer_compile(s, (int) r, total, NULL, in_flight, &p, why, sizeof(why))) {
            fprintf(stderr, "themis-plan export: compiling rank %u: %s\n", r, why);
            return EXIT_RUNTIME;
        }
        *h = themis_fnv1a_u64(*h, themis_program_hash(&p));
        themis_program_free(&p);
    }
    return 0;
}

/* Every rank's program of the algorithm, as the component builds them. */
static int build_all(const themis_topology_t *t, themis_coll_t coll, int algo, uint64_t count,
                     uint32_t chunks, uint32_t in_flight, themis_program_t *progs)
{
    uint32_t p = (uint32_t) themis_topology_npus(t);
    uint64_t *recvcounts = calloc(p, sizeof(*recvcounts));
    themis_algo_cost_params_t params;
    themis_algo_choice_t ch;
    themis_plan_request_t req;
    void *state = NULL;
    int rc = 0;

    if (NULL == recvcounts) {
        return EXIT_RUNTIME;
    }
    for (uint32_t r = 0; r < p; r++) {
        recvcounts[r] = count;
    }
    uint64_t elems = THEMIS_COLL_ALLREDUCE == coll ? count : count * p;
    themis_algo_cost_params_from_chunks(&params, chunks, in_flight, THEMIS_ORDER_SCF,
                                        THEMIS_SCHED_THEMIS);
    themis_algo_input_t in = {.topo = t, .coll = coll, .bytes = elems * sizeof(float),
                              .params = &params, .state = &state};
    if (THEMIS_OK != themis_algorithm_choose(algo, &in, &ch)) {
        fprintf(stderr, "themis-plan export: %s cannot run here\n",
                themis_algorithm_get(algo)->name);
        free(recvcounts);
        return EXIT_USAGE;
    }
    if (ch.substituted) {
        fprintf(stderr, "themis-plan export: %s runs in place of %s: %s\n",
                themis_algorithm_get(ch.index)->name, themis_algorithm_get(algo)->name, ch.why);
    }
    memset(&req, 0, sizeof(req));
    req.coll = coll;
    req.ndims = t->ndims;
    for (int i = 0; i < t->ndims; i++) {
        req.dim_size[i] = t->dims[i].size;
        req.dim_algo[i] = themis_dim_algo_for(t->dims[i].kind, t->dims[i].size,
                                              EXPORT_DIRECT_MAX);
    }
    req.count = THEMIS_COLL_REDUCE_SCATTER == coll ? 0 : count;
    req.recvcounts = recvcounts;
    req.chunks_in_flight = in_flight;
    const themis_algorithm_t *a = themis_algorithm_get(ch.index);
    for (uint32_t r = 0; r < p && 0 == rc; r++) {
        req.rank = (int) r;
        themis_status_t st = a->build(&in, &req, &progs[r]);
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan export: %s, rank %u: %s\n", a->name, r,
                    themis_status_string(st));
            rc = THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
        }
    }
    if (NULL != a->state_free) {
        a->state_free(state);
    }
    free(recvcounts);
    return rc;
}

/* The file holds a step per chunk and peer: a few chunks keep it small
 * (the component's 1024 would give every element its own). */
#define EXPORT_DEFAULT_CHUNKS 4u

static const themis_plan_cmd_spec_t export_cmd = {
    .name = "export", .synopsis = "",
    .about =
    "  --msccl OUT.xml, --coll, --bytes S or --count N, and --topo SPEC or\n"
    "  --dims 4x2 [--dim-bandwidths B,..] [--dim-latencies L,..] [--dim-kinds K,..]\n"
    "  (coll/themis' shape syntax, as in themis-plan schedule --help) are required.\n"
    "  --bytes S: N = S / 4 (floats).\n"
    "  The programs of every rank for one call of N elements per rank's input\n"
    "  (allreduce: the vector; allgather: the block; reduce-scatter: each rank's\n"
    "  block) with the algorithm (default themis, as coll_themis_<coll>_algorithm),\n"
    "  K chunks (default 4) and F in flight (default 2) on the topology SPEC\n"
    "  (topology.h: e.g. sw:4:100Gb:1us_sw:2:100Gb:2us, or a Table 2 preset),\n"
    "  as MSCCL-XML with one chunk per element.  Read back, the file must give\n"
    "  the same schedule and the same programs; the last line says so.\n"};

int themis_plan_cmd_export(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc;
    char msg[96];

    if (0 != themis_plan_args_parse(&export_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const char *outp = a.text[TPO_MSCCL];
    themis_topology_t t;
    char label[1024];
    int have_topo;
    if (0 != (rc = themis_plan_topology(&a, &t, label, sizeof(label), &have_topo))) {
        return rc;
    }
    const char *algo_name = THEMIS_PLAN_GIVEN(&a, TPO_ALGORITHM)
                                ? a.text[TPO_ALGORITHM]
                                : themis_algorithm_get(0)->name;
    const themis_plan_opt_id_t size_opt =
        THEMIS_PLAN_GIVEN(&a, TPO_COUNT) ? TPO_COUNT : TPO_BYTES;
    const uint64_t bytes = 1 == a.nbytes ? a.bytes[0] : 0;
    const themis_coll_t coll = a.coll;
    uint32_t chunks = THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS) ? (uint32_t) a.num[TPO_CHUNKS]
                                                        : EXPORT_DEFAULT_CHUNKS;
    uint32_t in_flight = THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS_IN_FLIGHT)
                             ? (uint32_t) a.num[TPO_CHUNKS_IN_FLIGHT]
                             : THEMIS_DEFAULT_CHUNKS_IN_FLIGHT;

    if (a.nbytes > 0 && (0 != bytes % sizeof(float)
                         || bytes / sizeof(float) > THEMIS_XFER_PROGRAMS_MAX_UNITS)) {
        snprintf(msg, sizeof(msg), "1 .. %u elements (a multiple of 4 bytes: floats)",
                 THEMIS_XFER_PROGRAMS_MAX_UNITS);
        return themis_plan_args_fail(&a, size_opt, msg);
    }
    const uint32_t count = (uint32_t) (bytes / sizeof(float));
    if (NULL == outp || !have_topo
        || !THEMIS_PLAN_GIVEN(&a, TPO_COLL) || 0 == count) {
        fprintf(stderr, "themis-plan export: --msccl, --coll, --bytes (or --count) and one of "
                "--topo and --dims (or --graph) are required (try --help)\n");
        return EXIT_USAGE;
    }
    int algo = themis_algorithm_index(algo_name);
    if (algo < 0 || 0 != (themis_algorithm_get(algo)->flags & THEMIS_ALGO_FLAG_GIVEN)) {
        fprintf(stderr, "themis-plan export: --algorithm: '%s' is not an algorithm that "
                "plans (themis-plan algorithms)\n", algo_name);
        return EXIT_USAGE;
    }
    char why[256];
    if (THEMIS_OK != themis_topology_check(&t, why, sizeof(why))) {
        fprintf(stderr, "themis-plan export: %s: %s\n", label, why);
        return EXIT_USAGE;
    }
    uint32_t p = (uint32_t) themis_topology_npus(&t);
    if (p > 1024) {
        fprintf(stderr, "themis-plan export: %u ranks: at most 1024\n", p);
        return EXIT_USAGE;
    }
    themis_program_t *progs = calloc(p, sizeof(*progs));
    themis_xfer_sched_t s, back;
    uint64_t in_count = THEMIS_COLL_REDUCE_SCATTER == coll ? (uint64_t) count * p : count;
    uint64_t out_count = THEMIS_COLL_ALLGATHER == coll ? (uint64_t) count * p : count;
    uint64_t total = THEMIS_COLL_ALLREDUCE == coll ? count : (uint64_t) count * p;
    rc = NULL == progs ? EXIT_RUNTIME : build_all(&t, coll, algo, count, chunks, in_flight,
                                                      progs);
    memset(&s, 0, sizeof(s));
    memset(&back, 0, sizeof(back));
    if (0 == rc) {
        themis_status_t st = themis_xfer_from_programs(coll, p, progs, in_count, out_count, &s,
                                                       why, sizeof(why));
        if (THEMIS_OK == st) {
            snprintf(s.name, sizeof(s.name), "themis_%s_%s_%u", algo_name,
                     themis_coll_name(coll), p);
            st = themis_xfer_check(&s, why, sizeof(why));
        }
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan export: %s\n", why);
            rc = EXIT_RUNTIME;
        }
    }
    /* MSCCL-XML orders a receive only after steps of its own rank: where
     * the schedule had a receive wait for another rank's step, reading it
     * routes the receive through a scratch temporary.  The file holds that
     * reading (written, read, written again), so what reads it back is
     * exactly what the file says. */
    themis_xfer_sched_t canon;
    memset(&canon, 0, sizeof(canon));
    if (0 == rc) {
        rc = write_read(outp, &s, &canon);
    }
    if (0 == rc) {
        rc = write_read(outp, &canon, &back);
    }
    uint64_t h1 = 0, h2 = 0;
    if (0 == rc) {
        rc = programs_hash(&canon, total, in_flight, &h1);
    }
    if (0 == rc) {
        rc = programs_hash(&back, total, in_flight, &h2);
    }
    if (0 == rc) {
        int same = themis_xfer_hash(&canon) == themis_xfer_hash(&back) && h1 == h2;
        printf("%s: %s %s of %u elements on %u ranks: %u transfers (%u as planned, %u "
               "receives through temporaries), %u units\n", outp, algo_name,
               themis_coll_name(coll), count, p, back.nxfers, s.nxfers,
               back.nxfers - s.nxfers, s.nunits);
        printf("schedule hash %016" PRIx64 " written, %016" PRIx64 " read back\n",
               themis_xfer_hash(&canon), themis_xfer_hash(&back));
        printf("programs hash %016" PRIx64 " written, %016" PRIx64 " read back\n", h1, h2);
        printf("round_trip=%s\n", same ? "same" : "DIFFERENT");
        rc = same ? 0 : EXIT_RUNTIME;
    }
    themis_xfer_free(&canon);
    for (uint32_t r = 0; NULL != progs && r < p; r++) {
        themis_program_free(&progs[r]);
    }
    free(progs);
    themis_xfer_free(&s);
    themis_xfer_free(&back);
    return rc;
}
