/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis-plan: command-line front end of the planners.
 *   schedule   one schedule, human-readable or JSON (json-c)
 *   simulate   baseline / Themis+FIFO / Themis+SCF / Ideal table (or CSV)
 *   timeline   per-dimension activity PNG (Fig. 10 of themis.txt), gnuplot;
 *              with --trace, a call traced by coll/themis beside its prediction
 *              (simulate and timeline: themis_plan_simulate.c; --trace:
 *              themis_plan_timeline.c)
 *   presets    the Table 2 topologies
 *   topo       parse and print a topology
 * Exit status: 0 success, 1 runtime failure, 2 bad usage or input.
 * Floating point appears only in what is printed; every number that feeds
 * a schedule comes from the planners' integer arithmetic.
 */
#include "themis_build_config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "algo_cost.h"
#include "algorithm.h"
#include "bound.h"
#include "chunking.h"
#include "latency_model.h"
#include "scheduler.h"
#include "simulator.h"
#include "defaults.h"
#include "topology.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "themis_plan_opts.h"

static const char *prog = "themis-plan";

/* ------------------------------------------------------------ options */

/* The chunk count a call of `bytes` gets: with a floor (--min-chunk, or
 * the defaults), the component's (themis_chunk_count); else `chunks`. */
uint32_t themis_plan_chunks_for(const cli_opts_t *o, uint32_t chunks, uint64_t bytes)
{
    return 0 == o->min_chunk ? chunks
                             : themis_chunk_count(&o->topo, bytes, bytes, chunks, o->min_chunk);
}

/* Print a topology parse error with its position; for one-line text also
 * echo the text with a caret under the column. */
static void report_parse_error(const char *cmd, const char *what, const char *text,
                               const themis_parse_error_t *err)
{
    fprintf(stderr, "%s %s: %s: parse error at line %d, column %d: %s\n", prog, cmd, what,
            err->line, err->column, err->message);
    if (NULL != text && NULL == strchr(text, '\n') && err->line <= 1 && err->column >= 1
        && (size_t) err->column <= strlen(text) + 1) {
        fprintf(stderr, "  %s\n  %*s^\n", text, err->column - 1, "");
    }
}

/* what: how the user gave spec ("--topo", or "topology" for topo SPEC). */
static int load_topology(const char *cmd, const char *what, themis_topology_t *t, char *label,
                         size_t len, const char *spec, const char *file)
{
    themis_parse_error_t err;
    themis_status_t st;

    memset(&err, 0, sizeof(err));
    if (NULL != file) {
        st = themis_topology_load_file(file, t, &err);
        snprintf(label, len, "%s", file);
        if (THEMIS_ERR_IO == st) {
            fprintf(stderr, "%s %s: --topo-file: cannot read %s: %s\n", prog, cmd, file,
                    '\0' != err.message[0] ? err.message : themis_status_string(st));
            return EXIT_USAGE;
        }
        if (THEMIS_OK != st) {
            report_parse_error(cmd, file, NULL, &err);
            return EXIT_USAGE;
        }
    } else {
        st = themis_topology_parse(spec, t, &err);
        snprintf(label, len, "%s", spec);
        if (THEMIS_OK != st) {
            themis_graph_t g;
            themis_parse_error_t gerr;
            report_parse_error(cmd, what, spec, &err);
            /* A graph ("torus2d:4x4") given where dimensions are wanted:
             * say which subcommands take it. */
            memset(&g, 0, sizeof(g));
            if (THEMIS_OK == themis_graph_load(spec, NULL, &g, &gerr)) {
                fprintf(stderr, "  '%s' is a graph: give it as --graph SPEC|FILE (here: its "
                        "ranks' dimensions at the --dim-* rates);\n"
                        "  graph, xfer, compare, synth, treepack and msccl simulate take "
                        "--graph\n", spec);
            }
            themis_graph_free(&g);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* Item k of a comma-separated list with one value for all or one per
 * dimension, into buf; NULL list: none given. */
static int list_item(const char *list, int k, int ndims, char *buf, size_t len)
{
    int n = 1;
    for (const char *p = list; '\0' != *p; p++) {
        n += ',' == *p;
    }
    if (1 != n && ndims != n) {
        return -1;
    }
    const char *p = list;
    for (int i = 0; i < (1 == n ? 0 : k); i++) {
        p = strchr(p, ',') + 1;
    }
    size_t l = strcspn(p, ",");
    if (0 == l || l >= len) {
        return -1;
    }
    memcpy(buf, p, l);
    buf[l] = '\0';
    return 0;
}

/* Item i of a --dim-* list (one value per dimension or one for all) by
 * parse (themis_parse_bandwidth or themis_parse_latency) into *v; 0 or -1. */
static int dim_value(const char *list, int i, int n,
                     themis_status_t (*parse)(const char *, uint64_t *, const char **),
                     uint64_t *v)
{
    char item[64];
    const char *end = "";
    return NULL == list || (0 == list_item(list, i, n, item, sizeof(item))
                            && THEMIS_OK == parse(item, v, &end) && '\0' == *end)
               ? 0
               : -1;
}

/* EXIT_USAGE after "CMD: --OPT: 'TEXT' is not WANT". */
static int fail_not(const themis_plan_args_t *a, themis_plan_opt_id_t id, const char *want)
{
    char why[300];
    snprintf(why, sizeof(why), "'%s' is not %s", a->text[id], want);
    return themis_plan_args_fail(a, id, why);
}

/* --dims 4x2 [--dim-bandwidths A[,B]] [--dim-latencies X[,Y]]
 * [--dim-kinds K[,L]]: coll/themis' syntax for its coll_themis_dims and
 * coll_themis_dim_* parameters, the same parsers; rates default to the
 * component's across-nodes ones, kinds to sw. */
static int dims_topology(const themis_plan_args_t *a, themis_topology_t *t, const char *dims)
{
    static const char *const kind_names[] = {"ring", "biring", "fc", "sw"};
    static const themis_dim_kind_t kind_values[] = {THEMIS_DIM_RING, THEMIS_DIM_BIRING,
                                                    THEMIS_DIM_FC, THEMIS_DIM_SWITCH};
    const char *kinds = a->text[TPO_DIM_KINDS];
    uint32_t sizes[THEMIS_MAX_DIMS];
    char why[200], item[64];
    int n = 0;

    if (NULL == dims) {
        fprintf(stderr, "%s %s: --dim-bandwidths, --dim-latencies and --dim-kinds go with "
                "--dims\n", prog, a->cmd);
        return EXIT_USAGE;
    }
    if (THEMIS_OK != themis_parse_dims(dims, sizes, &n, why, sizeof(why)) || 0 == n) {
        return themis_plan_args_fail(a, TPO_DIMS, 0 == n ? "empty" : why);
    }
    memset(t, 0, sizeof(*t));
    t->ndims = n;
    for (int i = 0; i < n; i++) {
        themis_dim_t *d = &t->dims[i];
        d->size = sizes[i];
        d->kind = THEMIS_DIM_SWITCH;
        d->bw_bps = THEMIS_DEFAULT_NETWORK_BW_BPS;
        d->step_latency = THEMIS_DEFAULT_NETWORK_LAT_PS;
        if (0 != dim_value(a->text[TPO_DIM_BW], i, n, themis_parse_bandwidth, &d->bw_bps)) {
            return fail_not(a, TPO_DIM_BW, "one rate per dimension or one for all, e.g. "
                            "400Gb,100Gbps");
        }
        if (0 != dim_value(a->text[TPO_DIM_LAT], i, n, themis_parse_latency,
                           &d->step_latency)) {
            return fail_not(a, TPO_DIM_LAT, "one latency per dimension or one for all, e.g. "
                            "700ns,1.7us");
        }
        if (NULL != kinds) {
            int found = -1;
            if (0 == list_item(kinds, i, n, item, sizeof(item))) {
                for (int k = 0; k < 4; k++) {
                    found = 0 == strcmp(item, kind_names[k]) ? k : found;
                }
            }
            if (found < 0) {
                return fail_not(a, TPO_DIM_KINDS, "ring, biring, fc or sw, one per dimension "
                                "or one for all");
            }
            d->kind = kind_values[found];
        }
    }
    if (THEMIS_OK != themis_topology_check(t, why, sizeof(why))) {
        fprintf(stderr, "%s %s: --dims %s: %s\n", prog, a->cmd, dims, why);
        return EXIT_USAGE;
    }
    return 0;
}

int themis_plan_topology(const themis_plan_args_t *a, themis_topology_t *t, char *label,
                         size_t len, int *have)
{
    const char *topo_spec = a->text[TPO_TOPO], *topo_file = a->text[TPO_TOPO_FILE];
    const char *dims = a->text[TPO_DIMS], *dim_bw = a->text[TPO_DIM_BW];
    const char *dim_lat = a->text[TPO_DIM_LAT], *dim_kinds = a->text[TPO_DIM_KINDS];
    char shape[128];
    int rc;

    *have = 0;
    if ((NULL != topo_spec) + (NULL != topo_file) + (NULL != dims || NULL != a->text[TPO_GRAPH])
        > 1) {
        fprintf(stderr, "%s %s: give one of --topo, --topo-file and --dims or --graph\n", prog,
                a->cmd);
        return EXIT_USAGE;
    }
    /* a graph: its ranks' dimensions (--dims checked against it) */
    if (NULL != a->text[TPO_GRAPH]) {
        if (0 != (rc = themis_plan_args_graph_shape(a, shape, sizeof(shape)))) {
            return rc;
        }
        dims = shape;
    }
    if (NULL != dims || NULL != dim_bw || NULL != dim_lat || NULL != dim_kinds) {
        if (NULL != topo_spec || NULL != topo_file) {
            fprintf(stderr, "%s %s: --dim-* options go with --dims\n", prog, a->cmd);
            return EXIT_USAGE;
        }
        if (0 != (rc = dims_topology(a, t, dims))) {
            return rc;
        }
        themis_topology_format(t, label, len);
    } else if (NULL == topo_spec && NULL == topo_file) {
        return 0;
    } else {
        rc = load_topology(a->cmd, "--topo", t, label, len, topo_spec, topo_file);
        if (0 != rc) {
            return rc;
        }
    }
    *have = 1;
    return 0;
}




/* An enum option's text into *v by its planner parser; 0, or EXIT_USAGE
 * after a message naming the option. */
#define PARSE_ENUM(a, id, parse, v, names)                                   \
    (!THEMIS_PLAN_GIVEN(a, id) || THEMIS_OK == parse((a)->text[id], v) ? 0 \
                                                                       : fail_not(a, id, names))

/* The dimension topology subcommands (schedule, simulate, timeline, topo):
 * the table's options (themis_plan_args.h) into o, with the planners'
 * defaults; the topology from --topo, --topo-file or --dims. */
int themis_plan_parse_options(const themis_plan_cmd_spec_t *spec, int argc, char **argv,
                              cli_opts_t *o, int *rc)
{
    themis_plan_args_t a;

    memset(o, 0, sizeof(*o));
    o->coll = THEMIS_COLL_ALLREDUCE;
    o->kind = THEMIS_SCHED_THEMIS;
    o->order = THEMIS_ORDER_SCF;
    o->chunks_in_flight = THEMIS_DEFAULT_CHUNKS_IN_FLIGHT;
    o->chunks[0] = THEMIS_DEFAULT_CHUNKS;
    o->nchunks = 1;
    if (0 != themis_plan_args_parse(spec, argc, argv, &a, rc)) {
        return 1;
    }
    *rc = EXIT_USAGE;
    if (0 != PARSE_ENUM(&a, TPO_SCHEDULER, themis_sched_kind_parse, &o->kind,
                        "baseline or themis")
        || 0 != PARSE_ENUM(&a, TPO_ORDER, themis_order_policy_parse, &o->order, "fifo or scf")
        || 0 != PARSE_ENUM(&a, TPO_LATENCY, themis_latency_mode_parse, &o->latency,
                           "overlapped or serialized")
        || 0 != PARSE_ENUM(&a, TPO_LOAD, themis_load_model_parse, &o->load,
                           "bandwidth or phase")) {
        return 1;
    }
    memcpy(o->given, a.given, sizeof(o->given));
    o->first_pos = a.first_pos;
    o->coll = a.coll;
    o->nbytes = a.nbytes;
    memcpy(o->bytes, a.bytes, sizeof(o->bytes));
    if (0 < a.nchunks) {
        o->nchunks = a.nchunks;
        memcpy(o->chunks, a.chunks, sizeof(o->chunks));
    }
    o->chunks_in_flight = THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS_IN_FLIGHT)
                              ? (uint32_t) a.num[TPO_CHUNKS_IN_FLIGHT] : o->chunks_in_flight;
    o->threshold_permille = (uint32_t) a.num[TPO_THRESHOLD];
    o->have_threshold = THEMIS_PLAN_GIVEN(&a, TPO_THRESHOLD);
    o->json_path = a.text[TPO_JSON];
    o->csv = THEMIS_PLAN_GIVEN(&a, TPO_CSV);
    o->png_path = a.text[TPO_PNG];
    o->trace_path = a.text[TPO_TRACE];
    o->call = (uint32_t) a.num[TPO_CALL];
    /* without --chunks or --min-chunk: the component's defaults */
    o->min_chunk = THEMIS_PLAN_GIVEN(&a, TPO_MIN_CHUNK) ? a.num[TPO_MIN_CHUNK]
                   : THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS) ? 0
                                                       : THEMIS_DEFAULT_MIN_CHUNK_NETWORK;

    *rc = themis_plan_topology(&a, &o->topo, o->topo_label, sizeof(o->topo_label),
                               &o->have_topo);
    return 0 != *rc;
}


/* ------------------------------------------------------------ formatting */

void themis_plan_format_size(uint64_t b, char *buf, size_t len)
{
    static const struct {
        const char *unit;
        uint64_t mult;
    } units[] = {
        {"TB", 1000000000000ull}, {"GB", 1000000000ull}, {"MB", 1000000ull}, {"KB", 1000ull},
        {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (b >= units[i].mult && 0 == b % units[i].mult) {
            snprintf(buf, len, "%" PRIu64 "%s", b / units[i].mult, units[i].unit);
            return;
        }
    }
    snprintf(buf, len, "%" PRIu64 "B", b);
}

/* A display unit for times around `ref` picoseconds. */
const char *themis_plan_time_unit(themis_time_t ref, double *div)
{
    if (ref >= 1000000000000ull) {
        *div = 1e12;
        return "s";
    }
    if (ref >= 1000000000ull) {
        *div = 1e9;
        return "ms";
    }
    if (ref >= 1000000ull) {
        *div = 1e6;
        return "us";
    }
    *div = 1e3;
    return "ns";
}

double themis_plan_pct(uint64_t part, uint64_t whole)
{
    return 0 == whole ? 0.0 : 100.0 * (double) part / (double) whole;
}

void themis_plan_print_topology_header(FILE *f, const cli_opts_t *o)
{
    char spec[1024];

    themis_topology_format(&o->topo, spec, sizeof(spec));
    if (0 == strcmp(spec, o->topo_label)) {
        fprintf(f, "topology: %s (%" PRIu64 " NPUs)\n", spec, themis_topology_npus(&o->topo));
    } else {
        fprintf(f, "topology: %s = %s (%" PRIu64 " NPUs)\n", o->topo_label, spec,
                themis_topology_npus(&o->topo));
    }
}

int themis_plan_status_exit(themis_status_t st)
{
    return (THEMIS_ERR_INVALID == st || THEMIS_ERR_PARSE == st
            || THEMIS_ERR_UNSUPPORTED == st) ? EXIT_USAGE : EXIT_RUNTIME;
}

int themis_plan_need_topology(const cli_opts_t *o, const char *cmd)
{
    if (!o->have_topo) {
        fprintf(stderr, "%s %s: --topo SPEC, --topo-file FILE or --dims SHAPE is required "
                "(try --help)\n",
                prog, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

int themis_plan_need_single(const cli_opts_t *o, const char *cmd)
{
    if (o->nbytes > 1 || o->nchunks > 1) {
        fprintf(stderr, "%s %s: --bytes and --chunks take one value here\n", prog, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

/* ------------------------------------------------------------ planning */

/* Build and simulate one schedule.  On success the caller frees both. */
themis_status_t themis_plan_simulate_one(const cli_opts_t *o, uint64_t bytes, uint32_t nchunks,
                                         themis_sched_kind_t kind, themis_order_policy_t policy,
                                         int record_events, themis_schedule_t *sched,
                                         themis_sim_result_t *res)
{
    themis_sched_params_t sp;
    themis_sim_params_t simp;
    themis_status_t st;

    if (bytes < nchunks) {
        fprintf(stderr, "%s: %" PRIu64 " bytes cannot make %u chunks of at least one byte\n",
                prog, bytes, nchunks);
        return THEMIS_ERR_INVALID;
    }
    themis_sched_params_init(&sp, o->coll, bytes, nchunks, kind);
    if (o->have_threshold) {
        sp.threshold_permille = o->threshold_permille;
    }
    sp.load = o->load;
    memset(sched, 0, sizeof(*sched));
    memset(res, 0, sizeof(*res));
    st = themis_schedule_build(&o->topo, &sp, sched);
    if (THEMIS_OK != st) {
        fprintf(stderr, "%s: building the %s schedule failed: %s\n", prog,
                themis_sched_kind_name(kind), themis_status_string(st));
        return st;
    }
    memset(&simp, 0, sizeof(simp));
    simp.policy = policy;
    simp.chunks_in_flight = o->chunks_in_flight;
    simp.record_events = record_events;
    simp.latency = o->latency;
    st = themis_simulate(&o->topo, sched, &simp, res);
    if (THEMIS_OK != st) {
        fprintf(stderr, "%s: simulating the %s schedule (%s, chunks_in_flight %u) failed: %s\n", prog,
                themis_sched_kind_name(kind), themis_order_policy_name(policy), o->chunks_in_flight,
                themis_status_string(st));
        themis_schedule_free(sched);
        return st;
    }
    return THEMIS_OK;
}

/* Bandwidth-weighted utilization of the Ideal (LP bound) run, the same
 * definition as the simulator's avg_util_ppm. */
double themis_plan_bound_util_pct(const themis_topology_t *topo, const themis_bound_t *b)
{
    double num = 0.0, den = 0.0;

    if (0 == b->time) {
        return 0.0;
    }
    for (int k = 0; k < topo->ndims; k++) {
        double bw = (double) topo->dims[k].bw_bps;
        double t = (double) themis_lm_transfer_time(&topo->dims[k], b->bytes[k]);
        num += bw * t / (double) b->time;
        den += bw;
    }
    return 0.0 == den ? 0.0 : 100.0 * num / den;
}

/* ------------------------------------------------------------ schedule */

static void dims_of_phase(const themis_schedule_t *s, uint32_t chunk, themis_phase_t phase,
                          char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (uint32_t st = 0; st < s->nstages; st++) {
        const themis_stage_t *g = &s->stages[(size_t) chunk * s->nstages + st];
        if (phase != g->phase || used >= len) {
            continue;
        }
        used += (size_t) snprintf(buf + used, len - used, "%sd%u", 0 == used ? "" : ">",
                                  (unsigned) g->dim);
    }
    if (0 == used) {
        snprintf(buf, len, "-");
    }
}

static void print_schedule_text(const cli_opts_t *o, uint64_t bytes, uint32_t nchunks,
                                const themis_schedule_t *s, const themis_sim_result_t *r,
                                uint64_t hash)
{
    char sz[32], rs[64], ag[64];
    double div;
    const char *unit = themis_plan_time_unit(r->stats.total_time, &div);

    themis_plan_format_size(bytes, sz, sizeof(sz));
    themis_plan_print_topology_header(stdout, o);
    printf("collective: %s, %s (%" PRIu64 " bytes) per NPU, %u chunks\n",
           themis_coll_name(o->coll), sz, bytes, nchunks);
    printf("scheduler: %s, intra-dimension order: %s, chunks_in_flight %u",
           themis_sched_kind_name(o->kind), themis_order_policy_name(o->order), o->chunks_in_flight);
    if (THEMIS_SCHED_THEMIS == o->kind) {
        printf(", threshold fallbacks %u of %u chunks", s->nfallbacks, s->nchunks);
    }
    printf("\nsimulated time: %.3f %s, avg BW utilization %.1f%%\n",
           (double) r->stats.total_time / div, unit, r->stats.avg_util_ppm / 1e4);
    printf("\n%6s %14s  %-24s %s\n", "chunk", "bytes", "RS order", "AG order");
    for (uint32_t c = 0; c < s->nchunks; c++) {
        dims_of_phase(s, c, THEMIS_PHASE_RS, rs, sizeof(rs));
        dims_of_phase(s, c, THEMIS_PHASE_AG, ag, sizeof(ag));
        printf("%6u %14" PRIu64 "  %-24s %s\n", c, s->chunk_bytes[c], rs, ag);
    }
    printf("\nintra-dimension order (chunk.phase, in start order):\n");
    for (int k = 0; k < r->order.ndims; k++) {
        int col = printf("  d%d (%u):", k, r->order.count[k]);
        for (uint32_t i = 0; i < r->order.count[k]; i++) {
            const themis_order_entry_t *e = &r->order.entries[k][i];
            const themis_stage_t *g = &s->stages[(size_t) e->chunk * s->nstages + e->stage];
            char item[32];
            int n = snprintf(item, sizeof(item), " %u.%s", e->chunk,
                             themis_phase_name((themis_phase_t) g->phase));
            if (col + n > 100) {
                printf("\n         ");
                col = 9;
            }
            fputs(item, stdout);
            col += n;
        }
        printf("\n");
    }
    printf("\nschedule hash: 0x%016" PRIx64 "\n", hash);
}

static json_object *json_u64(uint64_t v)
{
    return json_object_new_uint64(v);
}

static json_object *schedule_to_json(const cli_opts_t *o, uint64_t bytes, uint32_t nchunks,
                                     const themis_schedule_t *s, const themis_sim_result_t *r,
                                     uint64_t hash)
{
    char spec[1024], hex[32];
    json_object *root = json_object_new_object();
    json_object *jtopo = json_object_new_object();
    json_object *jdims = json_object_new_array();
    json_object *jchunks = json_object_new_array();

    themis_topology_format(&o->topo, spec, sizeof(spec));
    json_object_object_add(jtopo, "spec", json_object_new_string(spec));
    json_object_object_add(jtopo, "npus", json_u64(themis_topology_npus(&o->topo)));
    json_object_object_add(root, "topology", jtopo);
    json_object_object_add(root, "collective", json_object_new_string(themis_coll_name(o->coll)));
    json_object_object_add(root, "bytes", json_u64(bytes));
    json_object_object_add(root, "nchunks", json_u64(nchunks));
    json_object_object_add(root, "scheduler",
                           json_object_new_string(themis_sched_kind_name(o->kind)));
    json_object_object_add(root, "order",
                           json_object_new_string(themis_order_policy_name(o->order)));
    json_object_object_add(root, "chunks_in_flight", json_u64(o->chunks_in_flight));
    json_object_object_add(root, "nfallbacks", json_u64(s->nfallbacks));
    json_object_object_add(root, "simulated_time_ps", json_u64(r->stats.total_time));
    json_object_object_add(root, "avg_util_ppm", json_u64(r->stats.avg_util_ppm));
    /* A string: JSON readers often hold numbers as doubles (53-bit). */
    snprintf(hex, sizeof(hex), "0x%016" PRIx64, hash);
    json_object_object_add(root, "hash", json_object_new_string(hex));

    for (uint32_t c = 0; c < s->nchunks; c++) {
        json_object *jc = json_object_new_object();
        json_object *jrs = json_object_new_array();
        json_object *jag = json_object_new_array();
        json_object *jst = json_object_new_array();
        for (uint32_t st = 0; st < s->nstages; st++) {
            const themis_stage_t *g = &s->stages[(size_t) c * s->nstages + st];
            json_object *js = json_object_new_object();
            json_object_array_add(THEMIS_PHASE_RS == g->phase ? jrs : jag,
                                  json_object_new_int(g->dim));
            json_object_object_add(js, "dim", json_object_new_int(g->dim));
            json_object_object_add(js, "phase", json_object_new_string(
                                       themis_phase_name((themis_phase_t) g->phase)));
            json_object_object_add(js, "resident_bytes",
                                   json_u64(themis_schedule_stage_bytes(&o->topo, s, c, st)));
            json_object_array_add(jst, js);
        }
        json_object_object_add(jc, "id", json_u64(c));
        json_object_object_add(jc, "bytes", json_u64(s->chunk_bytes[c]));
        json_object_object_add(jc, "rs_order", jrs);
        json_object_object_add(jc, "ag_order", jag);
        json_object_object_add(jc, "stages", jst);
        json_object_array_add(jchunks, jc);
    }
    json_object_object_add(root, "chunks", jchunks);

    for (int k = 0; k < o->topo.ndims; k++) {
        const themis_dim_t *d = &o->topo.dims[k];
        json_object *jd = json_object_new_object();
        json_object *jorder = json_object_new_array();
        json_object_object_add(jd, "index", json_object_new_int(k));
        json_object_object_add(jd, "kind", json_object_new_string(themis_dim_kind_name(d->kind)));
        json_object_object_add(jd, "size", json_u64(d->size));
        json_object_object_add(jd, "bw_bps", json_u64(d->bw_bps));
        json_object_object_add(jd, "step_latency_ps", json_u64(d->step_latency));
        json_object_object_add(jd, "busy_ps", json_u64(r->stats.busy[k]));
        json_object_object_add(jd, "bytes_sent", json_u64(r->stats.bytes_sent[k]));
        json_object_object_add(jd, "util_ppm", json_u64(r->stats.util_ppm[k]));
        for (uint32_t i = 0; k < r->order.ndims && i < r->order.count[k]; i++) {
            const themis_order_entry_t *e = &r->order.entries[k][i];
            const themis_stage_t *g = &s->stages[(size_t) e->chunk * s->nstages + e->stage];
            json_object *je = json_object_new_object();
            json_object_object_add(je, "chunk", json_u64(e->chunk));
            json_object_object_add(je, "stage", json_u64(e->stage));
            json_object_object_add(je, "phase", json_object_new_string(
                                       themis_phase_name((themis_phase_t) g->phase)));
            json_object_array_add(jorder, je);
        }
        json_object_object_add(jd, "order", jorder);
        json_object_array_add(jdims, jd);
    }
    json_object_object_add(root, "dims", jdims);
    return root;
}

static void about_schedule(FILE *f)
{
    fprintf(f,
        "  Builds one schedule, simulates it for the intra-dimension order, and prints\n"
        "  per chunk its size and RS/AG dimension orders, per dimension the start order,\n"
        "  and the 64-bit schedule hash (--json: as JSON instead of text).  --dims 4x2\n"
        "  [--dim-bandwidths 400Gb,100Gb] [--dim-latencies 700ns,1.7us] [--dim-kinds\n"
        "  sw,ring]: coll/themis' shape syntax (rates default to its across-nodes ones,\n"
        "  100Gb and 2us; kinds to sw).  --bytes: per NPU (default 1GB).  Without\n"
        "  --chunks and --min-chunk, coll/themis' defaults: at most %u chunks, floors of\n"
        "  16 KiB and the latency model; --chunks-in-flight %u.\n",
        THEMIS_DEFAULT_CHUNKS, THEMIS_DEFAULT_CHUNKS_IN_FLIGHT);
}

static const themis_plan_cmd_spec_t schedule_cmd = {
    .name = "schedule", .synopsis = "(--topo SPEC | --topo-file FILE | --dims SHAPE)",
    .about_fn = about_schedule};

static int cmd_schedule(int argc, char **argv)
{
    cli_opts_t o;
    themis_schedule_t sched;
    themis_sim_result_t res;
    themis_status_t st;
    uint64_t hash, bytes;
    int rc;

    if (themis_plan_parse_options(&schedule_cmd, argc, argv, &o, &rc)) {
        return rc;
    }
    if (0 != (rc = themis_plan_need_topology(&o, "schedule")) ||
        0 != (rc = themis_plan_need_single(&o, "schedule"))) {
        return rc;
    }
    bytes = o.nbytes > 0 ? o.bytes[0] : 1000000000ull;
    const uint32_t nch = themis_plan_chunks_for(&o, o.chunks[0], bytes);
    st = themis_plan_simulate_one(&o, bytes, nch, o.kind, o.order, 0, &sched, &res);
    if (THEMIS_OK != st) {
        return themis_plan_status_exit(st);
    }
    hash = themis_schedule_hash(&sched, &res.order);
    rc = 0;
    if (NULL != o.json_path) {
        json_object *root = schedule_to_json(&o, bytes, nch, &sched, &res, hash);
        int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                    | JSON_C_TO_STRING_NOSLASHESCAPE;
        if (0 == strcmp("-", o.json_path)) {
            const char *txt = json_object_to_json_string_ext(root, flags);
            if (NULL == txt || EOF == puts(txt)) {
                fprintf(stderr, "%s: writing JSON to stdout failed\n", prog);
                rc = EXIT_RUNTIME;
            }
        } else if (0 != json_object_to_file_ext(o.json_path, root, flags)) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, o.json_path,
                    json_util_get_last_err());
            rc = EXIT_RUNTIME;
        }
        json_object_put(root);
    } else {
        print_schedule_text(&o, bytes, nch, &sched, &res, hash);
    }
    themis_sim_result_free(&res);
    themis_schedule_free(&sched);
    return rc;
}

/* ------------------------------------------------------------ presets, topo */

static void print_dims(const themis_topology_t *t)
{
    printf("  %-4s %-7s %6s %12s %12s %6s %14s\n", "dim", "kind", "size", "bandwidth",
           "step lat.", "steps", "fixed delay");
    for (int k = 0; k < t->ndims; k++) {
        const themis_dim_t *d = &t->dims[k];
        printf("  d%-3d %-7s %6u %9.1f Gb %9.1f ns %6u %11.1f ns\n", k,
               themis_dim_kind_name(d->kind), d->size, (double) d->bw_bps / 1e9,
               (double) d->step_latency / 1e3, themis_lm_steps(d),
               (double) themis_lm_fixed_delay(d) / 1e3);
    }
}

static const themis_plan_cmd_spec_t presets_cmd = {
    .name = "presets", .synopsis = "",
    .about = "  Lists the Table 2 topologies of themis.txt; each name is a valid --topo "
             "SPEC.\n"};

static int cmd_presets(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc;
    if (0 != themis_plan_args_parse(&presets_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    printf("%-20s %6s  %s\n", "name", "NPUs", "spec");
    for (int i = 0; i < themis_topology_npresets; i++) {
        themis_topology_t t;
        themis_parse_error_t err;
        const themis_topology_preset_t *p = &themis_topology_presets[i];
        if (THEMIS_OK != themis_topology_parse(p->spec, &t, &err)) {
            fprintf(stderr, "%s: preset %s does not parse: %s\n", prog, p->name, err.message);
            return EXIT_RUNTIME;
        }
        printf("%-20s %6" PRIu64 "  %s\n", p->name, themis_topology_npus(&t), p->spec);
    }
    return 0;
}

static const themis_plan_cmd_spec_t topo_cmd = {
    .name = "topo", .synopsis = "SPEC | --topo-file FILE | --dims SHAPE",
    .about = "  Parses a topology and prints it.  SPEC is a preset name or\n"
             "  KIND:SIZE:BANDWIDTH:LATENCY dimensions joined by '_', e.g.\n"
             "  sw:16:1200Gb:700ns_sw:64:800Gb:1700ns (KIND ring|biring|fc|sw).\n"
             "  Parse errors are reported with their position; exit status 2.\n",
    .max_pos = 1};

static int cmd_topo(int argc, char **argv)
{
    cli_opts_t o;
    char spec[1024];
    int rc;

    if (0 != themis_plan_parse_options(&topo_cmd, argc, argv, &o, &rc)) {
        return rc;
    }
    const int pos = o.first_pos;
    if (pos < argc) {
        if (o.have_topo) {
            fprintf(stderr, "%s topo: give one SPEC or --topo-file FILE\n", prog);
            return EXIT_USAGE;
        }
        rc = load_topology("topo", "topology", &o.topo, o.topo_label, sizeof(o.topo_label),
                           argv[pos], NULL);
        if (0 != rc) {
            return rc;
        }
        o.have_topo = 1;
    }
    if (0 != (rc = themis_plan_need_topology(&o, "topo"))) {
        return rc;
    }
    themis_topology_format(&o.topo, spec, sizeof(spec));
    printf("spec: %s\nNPUs: %" PRIu64 "\ndims: %d (d0 innermost)\n", spec,
           themis_topology_npus(&o.topo), o.topo.ndims);
    print_dims(&o.topo);
    return 0;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: %s COMMAND [options]     (%s COMMAND --help for details)\n"
        "commands:\n"
        "  schedule   print one schedule (text or --json FILE|-)\n"
        "  simulate   Baseline / Themis+FIFO / Themis+SCF / Ideal table (or --csv)\n"
        "  timeline   per-dimension activity PNG (--png OUT.png), as Fig. 10;\n"
        "             --trace FILE: a call traced by coll/themis beside its prediction\n"
        "  presets    list the Table 2 topologies\n"
        "  topo       parse and print a topology\n"
        "  cycles     HammingMesh: two edge-disjoint Hamiltonian cycles of a torus,\n"
        "             build cost (--sweep), every algorithm's cost (--costs)\n"
        "  algorithms the algorithm table (--names, --markdown)\n"
        "  rules      check a rules file; which rule applies to a call\n"
        "  graph      a graph topology (torus2d:4x4, p3.16xlarge, a file); --routes\n"
        "  xfer       a transfer schedule (ring) through the link-level simulator\n"
        "  msccl      check, re-export, draw or simulate an MSCCL-XML schedule\n"
        "  export     an algorithm's programs as MSCCL-XML (--msccl OUT.xml)\n"
        "  route      one spine per flow on a 2-layer Clos (greedy, exact, ilp, ecmp)\n"
        "  treepack   the optimal spanning-tree packing of a graph, C(G) exact\n"
        "  synth      TACOS: synthesize an ag/rs/ar schedule for a graph, simulate it\n"
        "  compare    every algorithm's predicted time on a graph per size, auto's choice\n"
        "  bed        the emulated test bed's build plan: scaled links, routes, prediction\n"
        "  size       sizes in bytes, as every --bytes takes them (for scripts)\n"
        "exit status: 0 success, 1 runtime failure, 2 bad usage or input\n",
        prog, prog);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"schedule", cmd_schedule},
        {"simulate", themis_plan_cmd_simulate},
        {"timeline", themis_plan_cmd_timeline},
        {"presets", cmd_presets},
        {"topo", cmd_topo},
        {"cycles", themis_plan_cmd_cycles},
        {"algorithms", themis_plan_cmd_algorithms},
        {"rules", themis_plan_cmd_rules},
        {"graph", themis_plan_cmd_graph},
        {"xfer", themis_plan_cmd_xfer},
        {"msccl", themis_plan_cmd_msccl},
        {"export", themis_plan_cmd_export},
        {"route", themis_plan_cmd_route},
        {"treepack", themis_plan_cmd_treepack},
        {"synth", themis_plan_cmd_synth},
        {"compare", themis_plan_cmd_compare},
        {"bed", themis_plan_cmd_bed},
        {"size", themis_plan_cmd_size}
    };

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (0 == strcmp("--help", argv[1]) || 0 == strcmp("-h", argv[1])
        || 0 == strcmp("help", argv[1])) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        if (0 == strcmp(cmds[i].name, argv[1])) {
            return cmds[i].fn(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
