/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis-plan export --msccl OUT.xml: a themis algorithm's transfer list
 * for one call (the themis row's cut for the call, one unit per element:
 * what every rank's slice comes from; another row's its xfer hook gives),
 * written as MSCCL-XML (msccl.h).  The file is read back and compiled
 * again: the round trip must give the same schedule and the same programs
 * (hashes printed), and coll_themis_<coll>_schedule runs it.
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

/* coll_themis_direct_max's default */
#define EXPORT_DIRECT_MAX 8
/* Elements of an export: one unit each. */
#define EXPORT_MAX_UNITS (1u << 20)

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

/* *s = a copy of *list (its own arrays); -1: out of memory. */
static int copy_list(const themis_xfer_sched_t *list, themis_xfer_sched_t *s)
{
    *s = *list;
    s->unit_off = NULL;
    s->xfers = malloc(((size_t) list->nxfers + 1) * sizeof(*s->xfers));
    s->deps = malloc(((size_t) list->ndeps + 1) * sizeof(*s->deps));
    if (NULL != list->unit_off) {
        s->unit_off = malloc(((size_t) list->nunits + 1) * sizeof(*s->unit_off));
    }
    if (NULL == s->xfers || NULL == s->deps || (NULL != list->unit_off && NULL == s->unit_off)) {
        themis_xfer_free(s);
        return -1;
    }
    memcpy(s->xfers, list->xfers, (size_t) list->nxfers * sizeof(*s->xfers));
    memcpy(s->deps, list->deps, (size_t) list->ndeps * sizeof(*s->deps));
    if (NULL != list->unit_off) {
        memcpy(s->unit_off, list->unit_off, ((size_t) list->nunits + 1) * sizeof(*s->unit_off));
    }
    s->cap_xfers = list->nxfers + 1;
    s->cap_deps = list->ndeps + 1;
    return 0;
}

/* The algorithm's transfer list for the call, as the component plans it
 * (*out, the schedule's own copy). */
static int build_list(const themis_topology_t *t, themis_coll_t coll, int algo, uint64_t count,
                      uint32_t chunks, uint32_t in_flight, themis_xfer_sched_t *out)
{
    void *state = NULL;
    themis_xfer_sched_t tmp;
    const themis_xfer_sched_t *list = NULL;
    uint32_t p = (uint32_t) themis_topology_npus(t);
    uint64_t *recvcounts = calloc(p, sizeof(*recvcounts));
    themis_algo_cost_params_t params;
    themis_algo_choice_t ch;
    themis_plan_request_t req;
    char why[256] = "";

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
    themis_status_t st = THEMIS_OK;
    memset(&tmp, 0, sizeof(tmp));
    memset(out, 0, sizeof(*out));
    if (0 == ch.index) {
        st = themis_algo_themis_xfer(&in, &req, 1, &tmp);
        list = &tmp;
    } else if (NULL == (list = a->xfer(&in, &tmp, why, sizeof(why)))) {
        st = THEMIS_ERR_UNSUPPORTED;
    }
    if (THEMIS_OK == st && 0 != copy_list(list, out)) {
        st = THEMIS_ERR_NOMEM;
    }
    themis_xfer_free(&tmp);
    if (NULL != a->state_free) {
        a->state_free(state);
    }
    free(recvcounts);
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan export: %s: %s\n", a->name,
                '\0' != why[0] ? why : themis_status_string(st));
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    return 0;
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
    "  The transfer list every rank's program comes from, for one call of N\n"
    "  elements per rank's input\n"
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
                         || bytes / sizeof(float) > EXPORT_MAX_UNITS)) {
        snprintf(msg, sizeof(msg), "1 .. %u elements (a multiple of 4 bytes: floats)",
                 EXPORT_MAX_UNITS);
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
    themis_xfer_sched_t s, back;
    uint64_t total = THEMIS_COLL_ALLREDUCE == coll ? count : (uint64_t) count * p;
    memset(&back, 0, sizeof(back));
    memset(&s, 0, sizeof(s));
    rc = build_list(&t, coll, algo, count, chunks, in_flight, &s);
    if (0 == rc) {
        snprintf(s.name, sizeof(s.name), "themis_%s_%s_%u", algo_name, themis_coll_name(coll),
                 p);
        themis_status_t st = themis_xfer_check(&s, why, sizeof(why));
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
    themis_xfer_free(&s);
    themis_xfer_free(&back);
    return rc;
}
