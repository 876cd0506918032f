/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis-plan: command-line front end of the planners.
 *   schedule   one schedule, human-readable or JSON (json-c)
 *   simulate   baseline / Themis+FIFO / Themis+SCF / Ideal table (or CSV)
 *   timeline   per-dimension activity PNG (Fig. 10 of themis.txt), gnuplot;
 *              with --trace, a call traced by coll/themis beside its prediction
 *   presets    the Table 2 topologies
 *   topo       parse and print a topology
 * Exit status: 0 success, 1 runtime failure, 2 bad usage or input.
 * Floating point appears only in what is printed; every number that feeds
 * a schedule comes from the planners' integer arithmetic.
 */
#include "themis_build_config.h"

#include <errno.h>
#include <getopt.h>
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
#include "topology.h"
#include "themis_plan_cmds.h"


#define MAX_LIST 64              /* entries of --bytes / --chunks lists */
/* coll/themis' defaults, so that themis-plan shows what a call does: at
 * most 1024 chunks, none smaller than the across-nodes floor (16 KiB) or
 * the latency model's (chunking.h), two chunks in flight per dimension.
 * An explicit --chunks without --min-chunk is an exact count. */
#define DEFAULT_CHUNKS_IN_FLIGHT 2u
#define DEFAULT_CHUNKS 1024u
#define DEFAULT_MIN_CHUNK (16u * 1024u)

static const char *prog = "themis-plan";

/* ------------------------------------------------------------ options */

enum {
    OPT_TOPO = 1 << 0,
    OPT_TOPO_FILE = 1 << 1,
    OPT_COLL = 1 << 2,
    OPT_BYTES = 1 << 3,
    OPT_CHUNKS = 1 << 4,
    OPT_SCHEDULER = 1 << 5,
    OPT_ORDER = 1 << 6,
    OPT_CHUNKS_IN_FLIGHT = 1 << 7,
    OPT_THRESHOLD = 1 << 8,
    OPT_JSON = 1 << 9,
    OPT_CSV = 1 << 10,
    OPT_PNG = 1 << 11,
    OPT_HELP = 1 << 12,
    OPT_MIN_CHUNK = 1 << 13,
    OPT_TRACE = 1 << 14,
    OPT_CALL = 1 << 15,
    OPT_DIMS = 1 << 16,
    OPT_DIM_BW = 1 << 17,
    OPT_DIM_LAT = 1 << 18,
    OPT_DIM_KINDS = 1 << 19,
    OPT_LATENCY = 1 << 20,
    OPT_LOAD = 1 << 21
};

/* The topology options: a preset or spec, a file, or coll/themis' shape
 * syntax (--dims 4x2 with optional per-dimension lists). */
#define OPT_TOPOLOGY (OPT_TOPO | OPT_TOPO_FILE | OPT_DIMS | OPT_DIM_BW | OPT_DIM_LAT | OPT_DIM_KINDS)

static const struct option long_options[] = {
    {"topo", required_argument, NULL, OPT_TOPO},
    {"topo-file", required_argument, NULL, OPT_TOPO_FILE},
    {"coll", required_argument, NULL, OPT_COLL},
    {"bytes", required_argument, NULL, OPT_BYTES},
    {"chunks", required_argument, NULL, OPT_CHUNKS},
    {"scheduler", required_argument, NULL, OPT_SCHEDULER},
    {"order", required_argument, NULL, OPT_ORDER},
    {"chunks-in-flight", required_argument, NULL, OPT_CHUNKS_IN_FLIGHT},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"png", required_argument, NULL, OPT_PNG},
    {"help", no_argument, NULL, OPT_HELP},
    {"min-chunk", required_argument, NULL, OPT_MIN_CHUNK},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"call", required_argument, NULL, OPT_CALL},
    {"dims", required_argument, NULL, OPT_DIMS},
    {"dim-bandwidths", required_argument, NULL, OPT_DIM_BW},
    {"dim-latencies", required_argument, NULL, OPT_DIM_LAT},
    {"dim-kinds", required_argument, NULL, OPT_DIM_KINDS},
    {"latency", required_argument, NULL, OPT_LATENCY},
    {"load", required_argument, NULL, OPT_LOAD},
    {NULL, 0, NULL, 0}
};

typedef struct {
    themis_topology_t topo;
    int have_topo;
    char topo_label[1024];       /* what the user named: preset, spec or file */
    themis_coll_t coll;
    uint64_t bytes[MAX_LIST];
    int nbytes;
    uint32_t chunks[MAX_LIST];
    int nchunks;
    themis_sched_kind_t kind;
    themis_order_policy_t order;
    uint32_t chunks_in_flight;
    uint32_t threshold_permille;
    int have_threshold;
    themis_latency_mode_t latency;   /* simulator latency mode */
    themis_load_model_t load;        /* scheduler Dim Load Tracker model */
    const char *json_path;
    int csv;
    const char *png_path;
    int help;
    uint64_t min_chunk;          /* > 0: --chunks is a maximum (chunking.h) */
    const char *trace_path;      /* timeline --trace */
    uint32_t call;               /* timeline --call: index of the traced call */
    unsigned given;              /* OPT_* bits that were on the command line */
} cli_opts_t;

/* The chunk count a call of `bytes` gets: with a floor (--min-chunk, or
 * the defaults), the component's (themis_chunk_count); else `chunks`. */
static uint32_t chunks_for(const cli_opts_t *o, uint32_t chunks, uint64_t bytes)
{
    return 0 == o->min_chunk ? chunks
                             : themis_chunk_count(&o->topo, bytes, bytes, chunks, o->min_chunk);
}

static const char *option_name(int id)
{
    for (int i = 0; NULL != long_options[i].name; i++) {
        if (id == long_options[i].val) {
            return long_options[i].name;
        }
    }
    return "?";
}

/* Print a topology parse error with its position; for one-line text also
 * echo the text with a caret under the column. */
static void report_parse_error(const char *what, const char *text,
                               const themis_parse_error_t *err)
{
    fprintf(stderr, "%s: %s: parse error at line %d, column %d: %s\n", prog, what,
            err->line, err->column, err->message);
    if (NULL != text && NULL == strchr(text, '\n') && err->line <= 1 && err->column >= 1
        && (size_t) err->column <= strlen(text) + 1) {
        fprintf(stderr, "  %s\n  %*s^\n", text, err->column - 1, "");
    }
}

static int load_topology(cli_opts_t *o, const char *spec, const char *file)
{
    themis_parse_error_t err;
    themis_status_t st;

    memset(&err, 0, sizeof(err));
    if (NULL != file) {
        st = themis_topology_load_file(file, &o->topo, &err);
        snprintf(o->topo_label, sizeof(o->topo_label), "%s", file);
        if (THEMIS_ERR_IO == st) {
            fprintf(stderr, "%s: cannot read topology file %s: %s\n", prog, file,
                    '\0' != err.message[0] ? err.message : themis_status_string(st));
            return EXIT_USAGE;
        }
        if (THEMIS_OK != st) {
            report_parse_error(file, NULL, &err);
            return EXIT_USAGE;
        }
    } else {
        st = themis_topology_parse(spec, &o->topo, &err);
        snprintf(o->topo_label, sizeof(o->topo_label), "%s", spec);
        if (THEMIS_OK != st) {
            report_parse_error("topology", spec, &err);
            return EXIT_USAGE;
        }
    }
    o->have_topo = 1;
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

/* --dims 4x2 [--dim-bandwidths A[,B]] [--dim-latencies X[,Y]]
 * [--dim-kinds K[,L]]: coll/themis' syntax for its coll_themis_dims and
 * coll_themis_dim_* parameters, the same parsers; rates default to the
 * component's across-nodes ones, kinds to sw. */
static int dims_topology(cli_opts_t *o, const char *dims, const char *bws, const char *lats,
                         const char *kinds)
{
    static const char *const kind_names[] = {"ring", "biring", "fc", "sw"};
    static const themis_dim_kind_t kind_values[] = {THEMIS_DIM_RING, THEMIS_DIM_BIRING,
                                                    THEMIS_DIM_FC, THEMIS_DIM_SWITCH};
    uint32_t sizes[THEMIS_MAX_DIMS];
    char why[160], item[64];
    int n = 0;

    if (NULL == dims) {
        fprintf(stderr, "%s: --dim-bandwidths, --dim-latencies and --dim-kinds go with --dims\n",
                prog);
        return EXIT_USAGE;
    }
    if (THEMIS_OK != themis_parse_dims(dims, sizes, &n, why, sizeof(why)) || 0 == n) {
        fprintf(stderr, "%s: bad --dims '%s': %s\n", prog, dims, 0 == n ? "empty" : why);
        return EXIT_USAGE;
    }
    memset(&o->topo, 0, sizeof(o->topo));
    o->topo.ndims = n;
    for (int i = 0; i < n; i++) {
        themis_dim_t *d = &o->topo.dims[i];
        const char *end = "";
        d->size = sizes[i];
        d->kind = THEMIS_DIM_SWITCH;
        d->bw_bps = THEMIS_DEFAULT_NETWORK_BW_BPS;
        d->step_latency = THEMIS_DEFAULT_NETWORK_LAT_PS;
        if (NULL != bws && (0 != list_item(bws, i, n, item, sizeof(item))
                            || THEMIS_OK != themis_parse_bandwidth(item, &d->bw_bps, &end)
                            || '\0' != *end)) {
            fprintf(stderr, "%s: bad --dim-bandwidths '%s' (one per dimension or one for all, "
                    "e.g. 400Gb,100Gbps)\n", prog, bws);
            return EXIT_USAGE;
        }
        if (NULL != lats && (0 != list_item(lats, i, n, item, sizeof(item))
                             || THEMIS_OK != themis_parse_latency(item, &d->step_latency, &end)
                             || '\0' != *end)) {
            fprintf(stderr, "%s: bad --dim-latencies '%s' (one per dimension or one for all, "
                    "e.g. 700ns,1.7us)\n", prog, lats);
            return EXIT_USAGE;
        }
        if (NULL != kinds) {
            int found = -1;
            if (0 == list_item(kinds, i, n, item, sizeof(item))) {
                for (int k = 0; k < 4; k++) {
                    found = 0 == strcmp(item, kind_names[k]) ? k : found;
                }
            }
            if (found < 0) {
                fprintf(stderr, "%s: bad --dim-kinds '%s' (ring, biring, fc or sw, one per "
                        "dimension or one for all)\n", prog, kinds);
                return EXIT_USAGE;
            }
            d->kind = kind_values[found];
        }
    }
    if (THEMIS_OK != themis_topology_check(&o->topo, why, sizeof(why))) {
        fprintf(stderr, "%s: --dims %s: %s\n", prog, dims, why);
        return EXIT_USAGE;
    }
    themis_topology_format(&o->topo, o->topo_label, sizeof(o->topo_label));
    o->have_topo = 1;
    return 0;
}

static int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end = NULL;
    unsigned long long v;

    if ('\0' == *s || '-' == *s || '+' == *s) {
        return -1;
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (0 != errno || '\0' != *end || v < min || v > max) {
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* Comma-separated list; each item parsed by parse_one into out[i]. */
static int parse_list(const char *s, const char *what, int (*parse_one)(const char *, void *),
                      void *out, size_t elem, int *count)
{
    char buf[1024];
    char *save = NULL;
    int n = 0;

    if (strlen(s) >= sizeof(buf)) {
        fprintf(stderr, "%s: --%s: list too long\n", prog, what);
        return -1;
    }
    strcpy(buf, s);
    for (char *tok = strtok_r(buf, ",", &save); NULL != tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= MAX_LIST) {
            fprintf(stderr, "%s: --%s: at most %d values\n", prog, what, MAX_LIST);
            return -1;
        }
        if (0 != parse_one(tok, (char *) out + (size_t) n * elem)) {
            return -1;
        }
        n++;
    }
    if (0 == n) {
        fprintf(stderr, "%s: --%s: empty list\n", prog, what);
        return -1;
    }
    *count = n;
    return 0;
}

static int parse_one_size(const char *tok, void *out)
{
    uint64_t v;
    if (THEMIS_OK != themis_parse_size(tok, &v) || 0 == v) {
        fprintf(stderr, "%s: bad size '%s' (want e.g. 1GB, 250MB, 4MiB, 65536; > 0)\n", prog,
                tok);
        return -1;
    }
    *(uint64_t *) out = v;
    return 0;
}

static int parse_one_chunks(const char *tok, void *out)
{
    if (0 != parse_u32(tok, 1, THEMIS_PLAN_MAX_CHUNKS, (uint32_t *) out)) {
        fprintf(stderr, "%s: bad chunk count '%s' (1..%u)\n", prog, tok,
                THEMIS_PLAN_MAX_CHUNKS);
        return -1;
    }
    return 0;
}

/* Parses argv (argv[0] is the subcommand) into o; `allowed` is the mask of
 * options the subcommand takes.  Positional arguments are left in
 * argv[*first_pos .. argc-1]. Returns 0 or an exit status. */
static int parse_options(int argc, char **argv, unsigned allowed, cli_opts_t *o,
                         int *first_pos)
{
    const char *topo_spec = NULL, *topo_file = NULL;
    const char *dims = NULL, *dim_bw = NULL, *dim_lat = NULL, *dim_kinds = NULL;
    int c;

    memset(o, 0, sizeof(*o));
    o->coll = THEMIS_COLL_ALLREDUCE;
    o->kind = THEMIS_SCHED_THEMIS;
    o->order = THEMIS_ORDER_SCF;
    o->chunks_in_flight = DEFAULT_CHUNKS_IN_FLIGHT;
    o->chunks[0] = DEFAULT_CHUNKS;
    o->nchunks = 1;

    optind = 1;
    opterr = 0;
    while (-1 != (c = getopt_long(argc, argv, ":h", long_options, NULL))) {
        if ('h' == c) {
            c = OPT_HELP;
        }
        if (':' == c) {
            fprintf(stderr, "%s %s: option '%s' needs a value\n", prog, argv[0],
                    argv[optind - 1]);
            return EXIT_USAGE;
        }
        if ('?' == c) {
            fprintf(stderr, "%s %s: unknown option '%s' (try --help)\n", prog, argv[0],
                    argv[optind - 1]);
            return EXIT_USAGE;
        }
        if (0 == (allowed & (unsigned) c)) {
            fprintf(stderr, "%s %s: option --%s does not apply here (try --help)\n", prog,
                    argv[0], option_name(c));
            return EXIT_USAGE;
        }
        o->given |= (unsigned) c;
        switch (c) {
        case OPT_TOPO:
            topo_spec = optarg;
            break;
        case OPT_TOPO_FILE:
            topo_file = optarg;
            break;
        case OPT_DIMS:
            dims = optarg;
            break;
        case OPT_DIM_BW:
            dim_bw = optarg;
            break;
        case OPT_DIM_LAT:
            dim_lat = optarg;
            break;
        case OPT_DIM_KINDS:
            dim_kinds = optarg;
            break;
        case OPT_COLL:
            if (THEMIS_OK != themis_coll_parse(optarg, &o->coll)) {
                fprintf(stderr, "%s: bad --coll '%s' (allreduce|reduce_scatter|allgather)\n",
                        prog, optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_BYTES:
            if (0 != parse_list(optarg, "bytes", parse_one_size, o->bytes, sizeof(o->bytes[0]),
                                &o->nbytes)) {
                return EXIT_USAGE;
            }
            break;
        case OPT_CHUNKS:
            if (0 != parse_list(optarg, "chunks", parse_one_chunks, o->chunks,
                                sizeof(o->chunks[0]), &o->nchunks)) {
                return EXIT_USAGE;
            }
            break;
        case OPT_SCHEDULER:
            if (THEMIS_OK != themis_sched_kind_parse(optarg, &o->kind)) {
                fprintf(stderr, "%s: bad --scheduler '%s' (baseline|themis)\n", prog, optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_ORDER:
            if (THEMIS_OK != themis_order_policy_parse(optarg, &o->order)) {
                fprintf(stderr, "%s: bad --order '%s' (fifo|scf)\n", prog, optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_CHUNKS_IN_FLIGHT:
            if (0 != parse_u32(optarg, 1, THEMIS_MAX_CHUNKS_IN_FLIGHT, &o->chunks_in_flight)) {
                fprintf(stderr, "%s: bad --chunks-in-flight '%s' (1..%u)\n", prog, optarg,
                        THEMIS_MAX_CHUNKS_IN_FLIGHT);
                return EXIT_USAGE;
            }
            break;
        case OPT_THRESHOLD:
            if (0 != parse_u32(optarg, 0, 1000000, &o->threshold_permille)) {
                fprintf(stderr, "%s: bad --threshold '%s' (per mille of the paper's default, "
                        "0..1000000)\n", prog, optarg);
                return EXIT_USAGE;
            }
            o->have_threshold = 1;
            break;
        case OPT_LATENCY:
            if (THEMIS_OK != themis_latency_mode_parse(optarg, &o->latency)) {
                fprintf(stderr, "%s: bad --latency '%s' (overlapped|serialized)\n", prog, optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_LOAD:
            if (THEMIS_OK != themis_load_model_parse(optarg, &o->load)) {
                fprintf(stderr, "%s: bad --load '%s' (bandwidth|phase)\n", prog, optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_JSON:
            o->json_path = optarg;
            break;
        case OPT_CSV:
            o->csv = 1;
            break;
        case OPT_PNG:
            o->png_path = optarg;
            break;
        case OPT_HELP:
            o->help = 1;
            break;
        case OPT_MIN_CHUNK:
            if (0 != parse_one_size(optarg, &o->min_chunk)) {
                return EXIT_USAGE;
            }
            break;
        case OPT_TRACE:
            o->trace_path = optarg;
            break;
        case OPT_CALL:
            if (0 != parse_u32(optarg, 0, UINT32_MAX, &o->call)) {
                fprintf(stderr, "%s: bad --call '%s' (a call index from 0)\n", prog, optarg);
                return EXIT_USAGE;
            }
            break;
        default:
            return EXIT_USAGE;
        }
    }
    *first_pos = optind;
    if (o->help) {
        return 0;
    }
    if (0 == (o->given & (OPT_CHUNKS | OPT_MIN_CHUNK))) {
        o->min_chunk = DEFAULT_MIN_CHUNK;   /* the component's defaults */
    }
    if ((NULL != topo_spec) + (NULL != topo_file) + (NULL != dims) > 1) {
        fprintf(stderr, "%s %s: give one of --topo, --topo-file and --dims\n", prog, argv[0]);
        return EXIT_USAGE;
    }
    if (NULL != dims || NULL != dim_bw || NULL != dim_lat || NULL != dim_kinds) {
        if (NULL != topo_spec || NULL != topo_file) {
            fprintf(stderr, "%s %s: --dim-* options go with --dims\n", prog, argv[0]);
            return EXIT_USAGE;
        }
        return dims_topology(o, dims, dim_bw, dim_lat, dim_kinds);
    }
    if (NULL != topo_spec || NULL != topo_file) {
        return load_topology(o, topo_spec, topo_file);
    }
    return 0;
}

/* ------------------------------------------------------------ formatting */

static void format_size(uint64_t b, char *buf, size_t len)
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
static const char *time_unit(themis_time_t ref, double *div)
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

static double pct(uint64_t part, uint64_t whole)
{
    return 0 == whole ? 0.0 : 100.0 * (double) part / (double) whole;
}

static void print_topology_header(FILE *f, const cli_opts_t *o)
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

static int status_exit(themis_status_t st)
{
    return (THEMIS_ERR_INVALID == st || THEMIS_ERR_PARSE == st
            || THEMIS_ERR_UNSUPPORTED == st) ? EXIT_USAGE : EXIT_RUNTIME;
}

static int need_topology(const cli_opts_t *o, const char *cmd)
{
    if (!o->have_topo) {
        fprintf(stderr, "%s %s: --topo SPEC, --topo-file FILE or --dims SHAPE is required "
                "(try --help)\n",
                prog, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

static int need_single(const cli_opts_t *o, const char *cmd)
{
    if (o->nbytes > 1 || o->nchunks > 1) {
        fprintf(stderr, "%s %s: --bytes and --chunks take one value here\n", prog, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

/* ------------------------------------------------------------ planning */

/* The three simulated scheduling configurations of Table 3. */
typedef struct {
    const char *name;
    themis_sched_kind_t kind;
    themis_order_policy_t policy;
} method_t;

static const method_t methods[] = {
    {"Baseline", THEMIS_SCHED_BASELINE, THEMIS_ORDER_FIFO},
    {"Themis+FIFO", THEMIS_SCHED_THEMIS, THEMIS_ORDER_FIFO},
    {"Themis+SCF", THEMIS_SCHED_THEMIS, THEMIS_ORDER_SCF}
};
#define NMETHODS ((int) (sizeof(methods) / sizeof(methods[0])))

/* Build and simulate one schedule.  On success the caller frees both. */
static themis_status_t plan_one(const cli_opts_t *o, uint64_t bytes, uint32_t nchunks,
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
static double bound_util_pct(const themis_topology_t *topo, const themis_bound_t *b)
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
    const char *unit = time_unit(r->stats.total_time, &div);

    format_size(bytes, sz, sizeof(sz));
    print_topology_header(stdout, o);
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

static void usage_schedule(FILE *f)
{
    fprintf(f,
        "usage: %s schedule (--topo SPEC | --topo-file FILE | --dims SHAPE) [options]\n"
        "  --dims 4x2 [--dim-bandwidths 400Gb,100Gb] [--dim-latencies 700ns,1.7us]\n"
        "    [--dim-kinds sw,ring]: coll/themis' shape syntax (rates default to its\n"
        "    across-nodes ones, 100Gb and 2us; kinds to sw)\n"
        "  Builds one schedule, simulates it for the intra-dimension order, and prints\n"
        "  per chunk its size and RS/AG dimension orders, per dimension the start order,\n"
        "  and the 64-bit schedule hash.\n"
        "  --coll allreduce|reduce_scatter|allgather   (default allreduce)\n"
        "  --bytes SIZE          per-NPU vector size, e.g. 1GB, 250MB, 64MiB (default 1GB)\n"
        "  --chunks N            chunks per collective; without --chunks and --min-chunk\n"
        "                        coll/themis' defaults: at most %u, floors of 16 KiB\n"
        "                        and the latency model (--min-chunk)\n"
        "  --scheduler baseline|themis   (default themis)\n"
        "  --order fifo|scf      intra-dimension policy (default scf)\n"
        "  --chunks-in-flight N  phases at once per dimension (default %u)\n"
        "  --threshold PERMILLE  Algorithm 1 threshold, per mille of the paper's (default 1000)\n"
        "  --latency MODE        overlapped (default) or serialized (simulate --help)\n"
        "  --load MODEL          bandwidth (default) or phase (simulate --help)\n"
        "  --json FILE|-         write the schedule as JSON instead of text\n",
        prog, DEFAULT_CHUNKS, DEFAULT_CHUNKS_IN_FLIGHT);
}

static int cmd_schedule(int argc, char **argv)
{
    cli_opts_t o;
    themis_schedule_t sched;
    themis_sim_result_t res;
    themis_status_t st;
    uint64_t hash, bytes;
    int pos, rc;

    rc = parse_options(argc, argv, OPT_TOPOLOGY | OPT_COLL | OPT_BYTES | OPT_CHUNKS
                       | OPT_SCHEDULER | OPT_ORDER | OPT_CHUNKS_IN_FLIGHT | OPT_THRESHOLD | OPT_LATENCY | OPT_LOAD | OPT_JSON
                       | OPT_MIN_CHUNK | OPT_HELP, &o, &pos);
    if (o.help) {
        usage_schedule(stdout);
        return 0;
    }
    if (0 != rc) {
        return rc;
    }
    if (pos < argc) {
        fprintf(stderr, "%s schedule: unexpected argument '%s'\n", prog, argv[pos]);
        return EXIT_USAGE;
    }
    if (0 != (rc = need_topology(&o, "schedule")) || 0 != (rc = need_single(&o, "schedule"))) {
        return rc;
    }
    bytes = o.nbytes > 0 ? o.bytes[0] : 1000000000ull;
    const uint32_t nch = chunks_for(&o, o.chunks[0], bytes);
    st = plan_one(&o, bytes, nch, o.kind, o.order, 0, &sched, &res);
    if (THEMIS_OK != st) {
        return status_exit(st);
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

/* ------------------------------------------------------------ simulate */

static void usage_simulate(FILE *f)
{
    fprintf(f,
        "usage: %s simulate (--topo SPEC | --topo-file FILE | --dims SHAPE) [options]\n"
        "  --dims 4x2 [--dim-bandwidths 400Gb,100Gb] [--dim-latencies 700ns,1.7us]\n"
        "    [--dim-kinds sw,ring]: coll/themis' shape syntax (rates default to its\n"
        "    across-nodes ones, 100Gb and 2us; kinds to sw)\n"
        "  Simulates Baseline, Themis+FIFO and Themis+SCF and computes Ideal (the LP lower\n"
        "  bound of any dimension-by-dimension schedule) and Baseline-LP (the same bound\n"
        "  for the baseline order alone) for every size and chunk count.\n"
        "  --coll allreduce|reduce_scatter|allgather   (default allreduce)\n"
        "  --bytes LIST          sizes, e.g. 100MB,250MB,500MB,1GB (the default)\n"
        "  --chunks LIST         chunk counts, e.g. 4,8,16 (default: as coll/themis, below)\n"
        "  --min-chunk SIZE      make --chunks a maximum, as coll/themis does: each chunk\n"
        "                        at least SIZE and the latency model's floor (chunking.h)\n"
        "  --chunks-in-flight N  phases at once per dimension (default %u)\n"
        "  --threshold PERMILLE  Algorithm 1 threshold, per mille of the paper's (default 1000)\n"
        "  --latency MODE        overlapped (default: a step's latency delays its data\n"
        "                        but holds no slot) or serialized (it holds the slot)\n"
        "  --load MODEL          Dim Load Tracker: bandwidth (default, Sec. 4.4) or phase\n"
        "                        (fixed delay in every phase's term)\n"
        "  --csv                 machine-readable output, one row per method\n"
        "Columns: time, speedup over Baseline, bandwidth-weighted average utilization,\n"
        "per-dimension busy time (>= 1 phase active) and the schedule hash.\n",
        prog, DEFAULT_CHUNKS_IN_FLIGHT);
}

typedef struct {
    int have_time;           /* 0: Ideal not computable for this topology */
    themis_time_t time;
    double util_pct;
    double busy_pct[THEMIS_MAX_DIMS];
    int have_busy;
    uint64_t hash;
    int have_hash;
} sim_row_t;

/* Rows of a point: the simulated methods, then Ideal and Baseline-LP. */
#define NROWS (NMETHODS + 2)

static int simulate_point(const cli_opts_t *o, uint64_t bytes, uint32_t nchunks,
                          sim_row_t rows[NROWS])
{
    themis_bound_t bound;
    themis_status_t st;

    for (int m = 0; m < NMETHODS; m++) {
        themis_schedule_t sched;
        themis_sim_result_t res;
        st = plan_one(o, bytes, nchunks, methods[m].kind, methods[m].policy, 0, &sched, &res);
        if (THEMIS_OK != st) {
            return status_exit(st);
        }
        memset(&rows[m], 0, sizeof(rows[m]));
        rows[m].have_time = 1;
        rows[m].time = res.stats.total_time;
        rows[m].util_pct = res.stats.avg_util_ppm / 1e4;
        for (int k = 0; k < o->topo.ndims; k++) {
            rows[m].busy_pct[k] = pct(res.stats.busy[k], res.stats.total_time);
        }
        rows[m].have_busy = 1;
        rows[m].hash = themis_schedule_hash(&sched, &res.order);
        rows[m].have_hash = 1;
        themis_sim_result_free(&res);
        themis_schedule_free(&sched);
    }
    memset(&bound, 0, sizeof(bound));
    memset(&rows[NMETHODS], 0, 2 * sizeof(rows[NMETHODS]));
    st = themis_bound_compute(&o->topo, o->coll, bytes, &bound);
    if (THEMIS_ERR_UNSUPPORTED == st) {
        /* The LP enumerates dimension orders; too many dims is not an error
         * of the simulation, so the table just lacks the Ideal row. */
        fprintf(stderr, "%s: no Ideal bound for %d dimensions (LP too large)\n", prog,
                o->topo.ndims);
        return 0;
    }
    if (THEMIS_OK != st) {
        fprintf(stderr, "%s: computing the Ideal bound failed: %s\n", prog,
                themis_status_string(st));
        return status_exit(st);
    }
    rows[NMETHODS].have_time = 1;
    rows[NMETHODS].time = bound.time;
    rows[NMETHODS].util_pct = bound_util_pct(&o->topo, &bound);
    /* The baseline's bytes at its own bound: as Baseline sends them. */
    rows[NMETHODS + 1].have_time = 1;
    rows[NMETHODS + 1].time = bound.baseline_time;
    rows[NMETHODS + 1].util_pct =
        0 == bound.baseline_time ? 0.0
                                 : rows[0].util_pct * (double) rows[0].time / (double) bound.baseline_time;
    return 0;
}

static int cmd_simulate(int argc, char **argv)
{
    cli_opts_t o;
    sim_row_t rows[NROWS];
    int pos, rc;

    rc = parse_options(argc, argv, OPT_TOPOLOGY | OPT_COLL | OPT_BYTES | OPT_CHUNKS
                       | OPT_CHUNKS_IN_FLIGHT | OPT_THRESHOLD | OPT_LATENCY | OPT_LOAD | OPT_CSV | OPT_MIN_CHUNK | OPT_HELP, &o,
                       &pos);
    if (o.help) {
        usage_simulate(stdout);
        return 0;
    }
    if (0 != rc) {
        return rc;
    }
    if (pos < argc) {
        fprintf(stderr, "%s simulate: unexpected argument '%s'\n", prog, argv[pos]);
        return EXIT_USAGE;
    }
    if (0 != (rc = need_topology(&o, "simulate"))) {
        return rc;
    }
    if (0 == o.nbytes) {
        static const uint64_t paper_sizes[] = {100000000ull, 250000000ull, 500000000ull,
                                               1000000000ull};
        for (int i = 0; i < 4; i++) {
            o.bytes[i] = paper_sizes[i];
        }
        o.nbytes = 4;
    }

    if (o.csv) {
        printf("topology,coll,bytes,chunks,chunks_in_flight,method,time_ps,speedup,util_pct,hash");
        for (int k = 0; k < o.topo.ndims; k++) {
            printf(",busy_pct_d%d", k);
        }
        printf("\n");
    } else {
        print_topology_header(stdout, &o);
        printf("collective: %s, chunks_in_flight %u\n", themis_coll_name(o.coll), o.chunks_in_flight);
    }
    for (int b = 0; b < o.nbytes; b++) {
        for (int c = 0; c < o.nchunks; c++) {
            /* With --min-chunk, the count coll/themis would use. */
            const uint32_t nch = chunks_for(&o, o.chunks[c], o.bytes[b]);
            char sz[32];
            double div;
            const char *unit;

            rc = simulate_point(&o, o.bytes[b], nch, rows);
            if (0 != rc) {
                return rc;
            }
            format_size(o.bytes[b], sz, sizeof(sz));
            unit = time_unit(rows[0].time, &div);
            if (!o.csv) {
                printf("\n%s, %u chunks\n", sz, nch);
                printf("  %-12s %12s %8s %7s  ", "method", "time", "speedup", "util");
                for (int k = 0; k < o.topo.ndims; k++) {
                    printf(" busy_d%d", k);
                }
                printf("  %s\n", "hash");
            }
            for (int m = 0; m < NROWS; m++) {
                const char *name = m < NMETHODS ? methods[m].name
                                   : (NMETHODS == m) ? "Ideal" : "Baseline-LP";
                double speedup = 0 == rows[m].time ? 0.0
                                 : (double) rows[0].time / (double) rows[m].time;
                if (!rows[m].have_time) {
                    if (o.csv) {
                        printf("%s,%s,%" PRIu64 ",%u,%u,%s,,,,", o.topo_label,
                               themis_coll_name(o.coll), o.bytes[b], nch, o.chunks_in_flight,
                               name);
                        for (int k = 0; k < o.topo.ndims; k++) {
                            printf(",");
                        }
                        printf("\n");
                    } else {
                        printf("  %-12s %12s\n", name, "n/a");
                    }
                    continue;
                }
                if (o.csv) {
                    printf("%s,%s,%" PRIu64 ",%u,%u,%s,%" PRIu64 ",%.4f,%.2f,", o.topo_label,
                           themis_coll_name(o.coll), o.bytes[b], nch, o.chunks_in_flight, name,
                           rows[m].time, speedup, rows[m].util_pct);
                    if (rows[m].have_hash) {
                        printf("0x%016" PRIx64, rows[m].hash);
                    }
                    for (int k = 0; k < o.topo.ndims; k++) {
                        if (rows[m].have_busy) {
                            printf(",%.2f", rows[m].busy_pct[k]);
                        } else {
                            printf(",");
                        }
                    }
                    printf("\n");
                    continue;
                }
                printf("  %-12s %9.3f %-2s %7.2fx %6.1f%%  ", name,
                       (double) rows[m].time / div, unit, speedup, rows[m].util_pct);
                for (int k = 0; k < o.topo.ndims; k++) {
                    if (rows[m].have_busy) {
                        printf(" %6.1f%%", rows[m].busy_pct[k]);
                    } else {
                        printf(" %7s", "-");
                    }
                }
                if (rows[m].have_hash) {
                    printf("  0x%016" PRIx64 "\n", rows[m].hash);
                } else {
                    printf("  %s\n", "(LP bound)");
                }
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------ timeline */

static void usage_timeline(FILE *f)
{
    fprintf(f,
        "usage: %s timeline (--topo SPEC | --topo-file FILE | --dims SHAPE) --png OUT.png\n"
        "       [options]   (--dims as in schedule --help)\n"
        "       %s timeline --trace FILE [--call N] --png OUT.png\n"
        "  Per-dimension activity over time (a dimension is active while at least one\n"
        "  chunk phase runs on it) for Baseline, Themis+FIFO and Themis+SCF, stacked as in\n"
        "  Fig. 10 of themis.txt.  Needs gnuplot (%s).\n"
        "  --coll allreduce|reduce_scatter|allgather   (default allreduce)\n"
        "  --bytes SIZE          (default 1GB)\n"
        "  --chunks N            (default: at most %u, as coll/themis, see schedule --help)\n"
        "  --chunks-in-flight N  (default %u)\n"
        "  --threshold PERMILLE  (default 1000)\n"
        "  --latency MODE        overlapped (default) or serialized (simulate --help)\n"
        "  --load MODEL          bandwidth (default) or phase (simulate --help)\n"
        "With --trace, a call recorded by coll/themis (MCA parameter coll_themis_trace,\n"
        "one file per process): what ran, one bar per engine operation on its queue\n"
        "(dimension), above the simulator's prediction for the same topology, size,\n"
        "chunks and settings, on the same time axis; prints measured and predicted\n"
        "times and busy fractions.  The trace gives everything else.\n"
        "  --call N              the N-th call record of the file, from 0 (default 0)\n",
        prog, prog, THEMIS_GNUPLOT, DEFAULT_CHUNKS, DEFAULT_CHUNKS_IN_FLIGHT);
}

typedef struct {
    themis_time_t start, end;
} interval_t;

static int cmp_interval(const void *a, const void *b)
{
    const interval_t *x = a, *y = b;
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    return x->end < y->end ? -1 : (x->end > y->end ? 1 : 0);
}

/* Union of the phase intervals of one dimension, written as gnuplot
 * boxxyerror rows (x, y, dx, dy). */
static int write_activity(FILE *f, const themis_sim_result_t *r, int dim, double div)
{
    interval_t *iv = malloc(sizeof(*iv) * (r->nevents ? r->nevents : 1));
    uint32_t n = 0;

    if (NULL == iv) {
        return -1;
    }
    for (uint32_t i = 0; i < r->nevents; i++) {
        if (dim == r->events[i].dim && r->events[i].end > r->events[i].start) {
            iv[n].start = r->events[i].start;
            iv[n].end = r->events[i].end;
            n++;
        }
    }
    qsort(iv, n, sizeof(*iv), cmp_interval);
    for (uint32_t i = 0; i < n;) {
        themis_time_t s = iv[i].start, e = iv[i].end;
        for (i++; i < n && iv[i].start <= e; i++) {
            if (iv[i].end > e) {
                e = iv[i].end;
            }
        }
        fprintf(f, "%.6f %d %.6f 0.35\n", ((double) s + (double) e) / 2.0 / div, dim,
                ((double) e - (double) s) / 2.0 / div);
    }
    free(iv);
    return 0;
}

/* A path as a gnuplot single-quoted string ('' stands for a quote). */
static void gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; '\0' != *s; s++) {
        if ('\'' == *s) {
            fputc('\'', f);
        }
        fputc(*s, f);
    }
    fputc('\'', f);
}

static int run_gnuplot(const char *script)
{
    pid_t pid = fork();
    int status;

    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
        return -1;
    }
    if (0 == pid) {
        execl(THEMIS_GNUPLOT, "gnuplot", script, (char *) NULL);
        fprintf(stderr, "%s: cannot run %s: %s (install gnuplot-nox)\n", prog, THEMIS_GNUPLOT,
                strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (EINTR != errno) {
            fprintf(stderr, "%s: waitpid: %s\n", prog, strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status) || 0 != WEXITSTATUS(status)) {
        fprintf(stderr, "%s: %s failed (status %d)\n", prog, THEMIS_GNUPLOT, status);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ timeline --trace */

/*
 * A call recorded by coll/themis (coll_themis_trace; the format is in
 * docs/coll_themis.md), drawn as it ran beside the simulator's prediction
 * for the same topology, schedule settings and chunks.  Every field is
 * checked before use: a malformed trace is reported with its line number
 * and exit status 2.
 */

#define TRACE_FORMAT "coll_themis_trace"
#define TRACE_VERSION 1
#define TRACE_MAX_QUEUES 1024u   /* rows drawn; programs have one per dimension or 4 */
#define TRACE_MAX_LANES 64       /* bars side by side in one row */

typedef struct {
    uint32_t queue;
    int phase;                   /* themis_phase_t */
    int64_t start, end;          /* ns from the engine's start */
} trace_op_t;

typedef struct {
    const char *path;
    int line;                    /* of the record being read */
    uint64_t ncalls, nfallbacks; /* records in the file */
    json_object *rec;            /* the selected call record */
    /* decoded from rec */
    uint64_t index;
    const char *comm, *coll_name;
    uint64_t comm_rank, comm_size;
    themis_coll_t coll;
    int algo;                    /* row of the algorithm table */
    uint64_t bytes;
    uint32_t chunks, chunks_in_flight, nqueues;
    themis_sched_kind_t kind;
    themis_order_policy_t order;
    themis_topology_t topo;
    uint64_t engine_ns;
    trace_op_t *ops;
    uint32_t nops;
    json_object *orders;         /* chunk_orders (Themis only), or NULL */
} trace_call_t;

/* The trace records (and a prediction rebuilds) the chunks' dimension
 * orders of rows that have them (THEMIS_ALGO_FLAG_DIM_ORDERS). */
static int dim_orders(int algo)
{
    const themis_algorithm_t *a = themis_algorithm_get(algo);
    return NULL != a && 0 != (a->flags & THEMIS_ALGO_FLAG_DIM_ORDERS);
}

static int trace_error(const trace_call_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int trace_error(const trace_call_t *t, const char *fmt, ...)
{
    va_list ap;

    if (t->line > 0) {
        fprintf(stderr, "%s: %s:%d: ", prog, t->path, t->line);
    } else {
        fprintf(stderr, "%s: %s: ", prog, t->path);
    }
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

static const char *json_kind(json_type type)
{
    switch (type) {
    case json_type_int:
        return "an integer";
    case json_type_double:
        return "a fraction";
    case json_type_string:
        return "a string";
    case json_type_array:
        return "an array";
    case json_type_object:
        return "an object";
    case json_type_boolean:
        return "a boolean";
    case json_type_null:
    default:
        return "null";
    }
}

/* `what` names the value in messages (a field, or an array element). */
static int trace_typed(const trace_call_t *t, json_object *v, const char *what, json_type type)
{
    if (NULL == v) {
        return trace_error(t, "%s is missing", what);
    }
    if (!json_object_is_type(v, type)) {
        return trace_error(t, "%s must be %s, not %s", what, json_kind(type),
                           json_kind(json_object_get_type(v)));
    }
    return 0;
}

static int trace_get(const trace_call_t *t, json_object *o, const char *key, json_type type,
                     json_object **out)
{
    char what[64];

    snprintf(what, sizeof(what), "field \"%s\"", key);
    *out = NULL;
    json_object_object_get_ex(o, key, out);
    return trace_typed(t, *out, what, type);
}

static int trace_int_value(const trace_call_t *t, json_object *v, const char *what, int64_t min,
                           int64_t max, int64_t *out)
{
    int rc = trace_typed(t, v, what, json_type_int);

    if (0 != rc) {
        return rc;
    }
    *out = json_object_get_int64(v);
    if (*out < min || *out > max) {
        return trace_error(t, "%s is %" PRId64 ", outside %" PRId64 "..%" PRId64, what, *out,
                           min, max);
    }
    return 0;
}

static int trace_uint(const trace_call_t *t, json_object *o, const char *key, uint64_t min,
                      uint64_t max, uint64_t *out)
{
    char what[64];
    json_object *v = NULL;
    int64_t x;
    int rc;

    snprintf(what, sizeof(what), "field \"%s\"", key);
    json_object_object_get_ex(o, key, &v);
    rc = trace_int_value(t, v, what, (int64_t) min, (int64_t) max, &x);
    *out = (uint64_t) x;
    return rc;
}

static int trace_u32(const trace_call_t *t, json_object *o, const char *key, uint32_t min,
                     uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    int rc = trace_uint(t, o, key, min, max, &v);
    *out = (uint32_t) v;
    return rc;
}

static int trace_str(const trace_call_t *t, json_object *o, const char *key, const char **out)
{
    json_object *v;
    int rc = trace_get(t, o, key, json_type_string, &v);
    *out = 0 == rc ? json_object_get_string(v) : NULL;
    return rc;
}

static int trace_topology(trace_call_t *t, json_object *rec)
{
    json_object *jt, *jdims;
    char why[160];
    size_t n;
    int rc;

    if (0 != (rc = trace_get(t, rec, "topology", json_type_object, &jt))
        || 0 != (rc = trace_get(t, jt, "dims", json_type_array, &jdims))) {
        return rc;
    }
    n = json_object_array_length(jdims);
    if (n < 1 || n > THEMIS_MAX_DIMS) {
        return trace_error(t, "topology has %zu dimensions (1..%d)", n, THEMIS_MAX_DIMS);
    }
    memset(&t->topo, 0, sizeof(t->topo));
    t->topo.ndims = (int) n;
    for (size_t k = 0; k < n; k++) {
        json_object *jd = json_object_array_get_idx(jdims, k);
        themis_dim_t *d = &t->topo.dims[k];
        const char *kind;
        uint64_t v;
        int found = 0;

        snprintf(why, sizeof(why), "topology dimension %zu", k);
        if (0 != (rc = trace_typed(t, jd, why, json_type_object))
            || 0 != (rc = trace_uint(t, jd, "size", 1, INT32_MAX, &v))) {
            return rc;
        }
        d->size = (uint32_t) v;
        if (0 != (rc = trace_uint(t, jd, "bw_bps", 1, INT64_MAX, &d->bw_bps))
            || 0 != (rc = trace_uint(t, jd, "latency_ps", 0, INT64_MAX, &d->step_latency))
            || 0 != (rc = trace_str(t, jd, "kind", &kind))) {
            return rc;
        }
        for (int c = THEMIS_DIM_RING; c <= THEMIS_DIM_SWITCH && !found; c++) {
            if (0 == strcasecmp(kind, themis_dim_kind_name((themis_dim_kind_t) c))) {
                d->kind = (themis_dim_kind_t) c;
                found = 1;
            }
        }
        if (!found) {
            return trace_error(t, "topology dimension %zu: unknown kind \"%s\"", k, kind);
        }
    }
    if (THEMIS_OK != themis_topology_check(&t->topo, why, sizeof(why))) {
        return trace_error(t, "topology: %s", why);
    }
    return 0;
}

static int trace_ops(trace_call_t *t, json_object *rec)
{
    json_object *jops;
    size_t n;
    int rc;

    if (0 != (rc = trace_get(t, rec, "ops", json_type_array, &jops))) {
        return rc;
    }
    n = json_object_array_length(jops);
    if (0 == n) {
        return trace_error(t, "call %" PRIu64 " lists no ops (the engine's times were not "
                           "recorded)", t->index);
    }
    if (n > UINT32_MAX) {
        return trace_error(t, "too many ops (%zu)", n);
    }
    t->ops = calloc(n, sizeof(*t->ops));
    if (NULL == t->ops) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_RUNTIME;
    }
    t->nops = (uint32_t) n;
    for (size_t i = 0; i < n; i++) {
        json_object *jo = json_object_array_get_idx(jops, i), *ph;
        trace_op_t *op = &t->ops[i];
        char what[64];
        int64_t v[6];

        snprintf(what, sizeof(what), "ops[%zu]", i);
        if (0 != (rc = trace_typed(t, jo, what, json_type_array))) {
            return rc;
        }
        if (6 != json_object_array_length(jo)) {
            return trace_error(t, "ops[%zu] has %zu values, want 6 (op, queue, chunk, phase, "
                               "start_ns, end_ns)", i, json_object_array_length(jo));
        }
        for (int k = 0; k < 6; k++) {
            if (3 == k) {
                continue;
            }
            snprintf(what, sizeof(what), "ops[%zu][%d]", i, k);
            rc = trace_int_value(t, json_object_array_get_idx(jo, (size_t) k), what, 0,
                                 k < 3 ? UINT32_MAX : INT64_MAX, &v[k]);
            if (0 != rc) {
                return rc;
            }
        }
        ph = json_object_array_get_idx(jo, 3);
        snprintf(what, sizeof(what), "ops[%zu][3] (phase)", i);
        if (0 != (rc = trace_typed(t, ph, what, json_type_string))) {
            return rc;
        }
        if (0 == strcmp("RS", json_object_get_string(ph))) {
            op->phase = THEMIS_PHASE_RS;
        } else if (0 == strcmp("AG", json_object_get_string(ph))) {
            op->phase = THEMIS_PHASE_AG;
        } else {
            return trace_error(t, "ops[%zu]: phase \"%s\" is neither RS nor AG", i,
                               json_object_get_string(ph));
        }
        if ((uint64_t) v[1] >= t->nqueues) {
            return trace_error(t, "ops[%zu]: queue %" PRId64 " of %u queues", i, v[1],
                               t->nqueues);
        }
        if (v[5] < v[4]) {
            return trace_error(t, "ops[%zu]: ends (%" PRId64 " ns) before it starts (%" PRId64
                               " ns)", i, v[5], v[4]);
        }
        op->queue = (uint32_t) v[1];
        op->start = v[4];
        op->end = v[5];
    }
    return 0;
}

/* The selected call record into t (its line is t->line). */
static int trace_decode(trace_call_t *t)
{
    json_object *rec = t->rec;
    const char *s;
    int rc;

    if (0 != (rc = trace_uint(t, rec, "call", 0, INT64_MAX, &t->index))
        || 0 != (rc = trace_str(t, rec, "comm", &t->comm))
        || 0 != (rc = trace_uint(t, rec, "comm_rank", 0, INT32_MAX, &t->comm_rank))
        || 0 != (rc = trace_uint(t, rec, "comm_size", 1, INT32_MAX, &t->comm_size))
        || 0 != (rc = trace_str(t, rec, "coll", &t->coll_name))
        || 0 != (rc = trace_uint(t, rec, "bytes", 0, INT64_MAX, &t->bytes))
        || 0 != (rc = trace_str(t, rec, "algorithm", &s))) {
        return rc;
    }
    if (0 == strcmp("none", s)) {
        return trace_error(t, "call %" PRIu64 " (%s) moved no data: nothing to draw", t->index,
                           t->coll_name);
    }
    if ((t->algo = themis_algorithm_index(s)) < 0) {
        return trace_error(t, "unknown algorithm \"%s\"", s);
    }
    /* reduce_scatter_block runs the reduce-scatter planners */
    if (0 == strcmp("reduce_scatter_block", t->coll_name)) {
        t->coll = THEMIS_COLL_REDUCE_SCATTER;
    } else if (THEMIS_OK != themis_coll_parse(t->coll_name, &t->coll)) {
        return trace_error(t, "unknown collective \"%s\"", t->coll_name);
    }
    if (0 != (rc = trace_u32(t, rec, "chunks", 1, THEMIS_PLAN_MAX_CHUNKS, &t->chunks))
        || 0 != (rc = trace_u32(t, rec, "chunks_in_flight", 1, THEMIS_MAX_CHUNKS_IN_FLIGHT,
                                   &t->chunks_in_flight))
        || 0 != (rc = trace_u32(t, rec, "queues", 1, TRACE_MAX_QUEUES, &t->nqueues))
        || 0 != (rc = trace_uint(t, rec, "engine_ns", 0, INT64_MAX, &t->engine_ns))
        || 0 != (rc = trace_str(t, rec, "scheduler", &s))) {
        return rc;
    }
    if (THEMIS_OK != themis_sched_kind_parse(s, &t->kind)) {
        return trace_error(t, "unknown scheduler \"%s\"", s);
    }
    if (0 != (rc = trace_str(t, rec, "intra_order", &s))) {
        return rc;
    }
    if (THEMIS_OK != themis_order_policy_parse(s, &t->order)) {
        return trace_error(t, "unknown intra_order \"%s\"", s);
    }
    if (t->bytes < t->chunks) {
        return trace_error(t, "%" PRIu64 " bytes cannot make %u chunks", t->bytes, t->chunks);
    }
    if (0 != (rc = trace_topology(t, rec))) {
        return rc;
    }
    if (dim_orders(t->algo)
        && 0 != (rc = trace_get(t, rec, "chunk_orders", json_type_array, &t->orders))) {
        return rc;
    }
    return trace_ops(t, rec);
}

/* Reads every line (each must be a JSON object with a "type"), counts the
 * records and keeps call record `want`. */
static int trace_load(trace_call_t *t, uint64_t want)
{
    themis_parse_error_t e;
    uint64_t size;
    int fd = themis_open_regular(t->path, &size, &e);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    json_tokener *tok;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0, nrec = 0, want_line = 0;

    if (NULL == f) {
        fprintf(stderr, "%s: cannot read trace %s: %s\n", prog, t->path,
                fd < 0 ? e.message : strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return EXIT_USAGE;
    }
    tok = json_tokener_new();
    if (NULL == tok) {
        fclose(f);
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_RUNTIME;
    }
    t->line = 0;
    while (0 == rc && (len = getline(&line, &cap, f)) >= 0) {
        json_object *obj, *jtype;
        enum json_tokener_error jerr;
        const char *type;
        size_t end;

        t->line++;
        if ((size_t) len == strspn(line, " \t\r\n")) {
            continue;
        }
        if (len > INT_MAX) {
            rc = trace_error(t, "line too long (%zd bytes)", len);
            break;
        }
        json_tokener_reset(tok);
        obj = json_tokener_parse_ex(tok, line, (int) len);
        jerr = json_tokener_get_error(tok);
        end = json_tokener_get_parse_end(tok);
        if (json_tokener_continue == jerr) {
            rc = trace_error(t, "truncated record (the line ends inside a JSON value)");
            break;
        }
        if (json_tokener_success != jerr) {
            rc = trace_error(t, "not valid JSON at column %zu: %s", end + 1,
                             json_tokener_error_desc(jerr));
            break;
        }
        if ((size_t) len > end && (size_t) len - end != strspn(line + end, " \t\r\n")) {
            rc = trace_error(t, "text after the record at column %zu", end + 1);
        } else if (0 == (rc = trace_typed(t, obj, "a record", json_type_object))
                   && 0 == (rc = trace_get(t, obj, "type", json_type_string, &jtype))) {
            type = json_object_get_string(jtype);
            if (0 == nrec++) {
                json_object *format = NULL;
                uint64_t version = 0;
                json_object_object_get_ex(obj, "format", &format);
                if (0 != strcmp("header", type) || !json_object_is_type(format, json_type_string)
                    || 0 != strcmp(TRACE_FORMAT, json_object_get_string(format))) {
                    rc = trace_error(t, "not a coll/themis trace: the first record must be its "
                                     "header, {\"type\":\"header\",\"format\":\"%s\",...}",
                                     TRACE_FORMAT);
                } else if (0 == (rc = trace_uint(t, obj, "version", 1, INT32_MAX, &version))
                           && version > TRACE_VERSION) {
                    rc = trace_error(t, "trace format version %" PRIu64 " (this %s reads up to "
                                     "%d)", version, prog, TRACE_VERSION);
                }
            } else if (0 == strcmp("call", type)) {
                if (t->ncalls++ == want) {
                    t->rec = json_object_get(obj);
                    want_line = t->line;
                }
            } else if (0 == strcmp("fallback", type)) {
                t->nfallbacks++;
            }
        }
        json_object_put(obj);
    }
    if (0 == rc && ferror(f)) {
        rc = trace_error(t, "read error: %s", strerror(errno));
    }
    free(line);
    json_tokener_free(tok);
    fclose(f);
    if (0 != rc) {
        return rc;
    }
    t->line = 0;
    if (0 == nrec) {
        return trace_error(t, "empty trace");
    }
    if (NULL == t->rec) {
        return trace_error(t, "no call %" PRIu64 " (the trace has %" PRIu64 " call records, "
                           "numbered from 0)", want, t->ncalls);
    }
    t->line = want_line;
    return 0;
}

/* Chunks whose traced dimension orders differ from the rebuilt schedule's
 * (the whole count when the lists do not even correspond); -1 after a
 * malformed entry (reported). */
static int64_t trace_order_mismatches(const trace_call_t *t, const themis_schedule_t *s)
{
    size_t n = json_object_array_length(t->orders);
    int64_t bad = 0;

    if (n != s->nchunks) {
        return s->nchunks;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *jc = json_object_array_get_idx(t->orders, i);
        const themis_stage_t *st = &s->stages[i * s->nstages];
        char what[48];
        int differs = 0;

        snprintf(what, sizeof(what), "chunk_orders[%zu]", i);
        if (0 != trace_typed(t, jc, what, json_type_object)) {
            return -1;
        }
        for (int ph = THEMIS_PHASE_RS; ph <= THEMIS_PHASE_AG; ph++) {
            json_object *list;
            size_t k = 0;
            if (0 != trace_get(t, jc, THEMIS_PHASE_RS == ph ? "rs" : "ag", json_type_array,
                               &list)) {
                return -1;
            }
            for (uint32_t g = 0; g < s->nstages; g++) {
                int64_t dim;
                if (ph != st[g].phase) {
                    continue;
                }
                snprintf(what, sizeof(what), "chunk_orders[%zu].%s[%zu]", i,
                         THEMIS_PHASE_RS == ph ? "rs" : "ag", k);
                if (k >= json_object_array_length(list)) {
                    differs = 1;
                    break;
                }
                if (0 != trace_int_value(t, json_object_array_get_idx(list, k), what, 0,
                                         THEMIS_MAX_DIMS - 1, &dim)) {
                    return -1;
                }
                differs |= dim != st[g].dim;
                k++;
            }
            differs |= k != json_object_array_length(list);
        }
        bad += differs;
    }
    return bad;
}

/* Text inside a gnuplot double-quoted string (which takes backslash
 * escapes): a traced communicator name may hold anything. */
static void gp_escape(FILE *f, const char *s)
{
    for (; '\0' != *s; s++) {
        if ('"' == *s || '\\' == *s) {
            fputc('\\', f);
        }
        fputc(' ' <= *s || *s < 0 ? *s : ' ', f);
    }
}

typedef struct {
    double start, end;           /* display units */
    uint32_t row;
    int phase;
    int lane;
} bar_t;

static int cmp_bar(const void *a, const void *b)
{
    const bar_t *x = a, *y = b;
    if (x->row != y->row) {
        return x->row < y->row ? -1 : 1;
    }
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    return x->end < y->end ? -1 : (x->end > y->end ? 1 : 0);
}

/* Sorts the bars and writes them as one gnuplot data block: each row is
 * split into as many lanes as bars overlap there (first free lane), so
 * concurrent ops stay visible.  busy[row] (busy may be NULL) gets the
 * length of the union of the row's bars. */
static void write_bars(FILE *f, bar_t *bars, uint32_t n, uint32_t nrows, double *busy)
{
    static const unsigned colors[2] = {0x4c72b0, 0xdd8452};   /* RS, AG */

    qsort(bars, n, sizeof(*bars), cmp_bar);
    for (uint32_t r = 0; NULL != busy && r < nrows; r++) {
        busy[r] = 0.0;
    }
    for (uint32_t i = 0, j; i < n; i = j) {
        double lane_end[TRACE_MAX_LANES], cover_start = bars[i].start, cover_end = bars[i].end;
        int nlanes = 0;

        for (j = i; j < n && bars[j].row == bars[i].row; j++) {
            int l = 0;
            while (l < nlanes && lane_end[l] > bars[j].start) {
                l++;
            }
            if (l == nlanes) {
                if (nlanes < TRACE_MAX_LANES) {
                    nlanes++;
                } else {
                    l = (int) (j % TRACE_MAX_LANES);
                }
            }
            lane_end[l] = bars[j].end;
            bars[j].lane = l;
            if (bars[j].start > cover_end) {
                if (NULL != busy) {
                    busy[bars[i].row] += cover_end - cover_start;
                }
                cover_start = bars[j].start;
            }
            if (bars[j].end > cover_end) {
                cover_end = bars[j].end;
            }
        }
        if (NULL != busy) {
            busy[bars[i].row] += cover_end - cover_start;
        }
        for (uint32_t k = i; k < j; k++) {
            double h = 0.8 / nlanes;
            fprintf(f, "%.6f %.6f %.6f %.6f %u\n", (bars[k].start + bars[k].end) / 2.0,
                    bars[k].row - 0.4 + (bars[k].lane + 0.5) * h,
                    (bars[k].end - bars[k].start) / 2.0, 0.45 * h, colors[bars[k].phase]);
        }
    }
    fprintf(f, "\n\n");   /* gnuplot: next index */
}

/* One panel: rows labelled by `labels`, the bars of data block `index`
 * (none: an empty panel), times 0..xmax. */
static void gp_panel(FILE *f, const char *dat, const char *title, double xmax,
                     uint32_t nrows, char (*labels)[48], int index)
{
    fprintf(f, "set title \"%s\"\nset xrange [0:%.6f]\n", title, xmax);
    fprintf(f, "set yrange [%u.6:-0.6]\nset ytics (", nrows - 1);
    for (uint32_t r = 0; r < nrows; r++) {
        fprintf(f, "%s\"%s\" %u", 0 == r ? "" : ", ", labels[r], r);
    }
    fprintf(f, ")\n");
    if (index < 0) {
        fprintf(f, "plot -1e9 notitle\n");   /* off the y range: axes only */
    } else {
        fprintf(f, "plot ");
        gp_quote(f, dat);
        fprintf(f, " index %d using 1:2:3:4:5 with boxxyerror lc rgb variable\n", index);
    }
}

/* Busy time in display units (times div: ps) as a percentage of ns. */
static double busy_pct(double busy, double div, uint64_t total_ns)
{
    return 0 == total_ns ? 0.0 : 100.0 * busy * div / (1000.0 * (double) total_ns);
}

typedef struct {
    int have;                    /* 0: no prediction for this algorithm */
    int have_events;             /* a simulator timeline (Themis) */
    themis_time_t total;         /* ps */
    themis_schedule_t sched;
    themis_sim_result_t sim;
    int64_t mismatches;          /* Themis: chunks whose orders differ from the trace */
    char what[96];
} prediction_t;

static int predict(const trace_call_t *t, prediction_t *p)
{
    themis_status_t st;

    memset(p, 0, sizeof(*p));
    if (dim_orders(t->algo)) {
        themis_sched_params_t sp;
        themis_sim_params_t simp;

        themis_sched_params_init(&sp, t->coll, t->bytes, t->chunks, t->kind);
        st = themis_schedule_build(&t->topo, &sp, &p->sched);
        if (THEMIS_OK != st) {
            fprintf(stderr, "%s: rebuilding the schedule of call %" PRIu64 " failed: %s\n", prog,
                    t->index, themis_status_string(st));
            return status_exit(st);
        }
        memset(&simp, 0, sizeof(simp));
        simp.policy = t->order;
        simp.chunks_in_flight = t->chunks_in_flight;
        simp.record_events = 1;
        st = themis_simulate(&t->topo, &p->sched, &simp, &p->sim);
        if (THEMIS_OK != st) {
            themis_schedule_free(&p->sched);
            fprintf(stderr, "%s: simulating call %" PRIu64 " failed: %s\n", prog, t->index,
                    themis_status_string(st));
            return status_exit(st);
        }
        p->mismatches = trace_order_mismatches(t, &p->sched);
        if (p->mismatches < 0) {
            themis_sim_result_free(&p->sim);
            themis_schedule_free(&p->sched);
            return EXIT_USAGE;
        }
        p->have = p->have_events = 1;
        p->total = p->sim.stats.total_time;
        snprintf(p->what, sizeof(p->what), "simulator: %s scheduler, %s order, chunks_in_flight %u",
                 themis_sched_kind_name(t->kind), themis_order_policy_name(t->order),
                 t->chunks_in_flight);
        return 0;
    }
    /* rings/torus2d: no schedule to simulate, only the cost model's total
     * (which needs biring dimensions). */
    {
        themis_algo_cost_params_t cp;
        themis_algo_cost_params_from_chunks(&cp, t->chunks, t->chunks_in_flight, t->order, t->kind);
        st = themis_algo_cost(&t->topo, t->algo, t->coll, t->bytes, &cp, &p->total);
        p->have = THEMIS_OK == st;
        snprintf(p->what, sizeof(p->what), "cost model, %s: %s", themis_algorithm_get(t->algo)->name,
                 p->have ? "no per-operation timeline" : themis_status_string(st));
    }
    return 0;
}

static int timeline_trace(const cli_opts_t *o)
{
    trace_call_t t;
    prediction_t pred;
    bar_t *bars = NULL;
    double *busy_meas = NULL;   /* display units per queue */
    char dir[] = "/tmp/themis-plan-XXXXXX";
    char dat[64], gp[64], spec[1024], sz[32];
    char (*labels)[48] = NULL;
    themis_time_t tmax;
    double div;
    const char *unit;
    uint32_t nbars = 0, nrows_pred = 0;
    FILE *f;
    int rc, have_dir = 0;

    memset(&t, 0, sizeof(t));
    memset(&pred, 0, sizeof(pred));
    t.path = o->trace_path;
    rc = trace_load(&t, o->call);
    if (0 == rc) {
        rc = trace_decode(&t);
    }
    if (0 == rc) {
        rc = predict(&t, &pred);
    }
    if (0 != rc) {
        goto out;
    }
    t.line = 0;

    tmax = t.engine_ns * 1000;
    if (pred.total > tmax) {
        tmax = pred.total;
    }
    if (0 == tmax) {
        tmax = 1000;   /* gnuplot refuses an empty x range */
    }
    unit = time_unit(tmax, &div);
    nrows_pred = (uint32_t) t.topo.ndims;
    rc = EXIT_RUNTIME;
    bars = malloc(sizeof(*bars) * ((size_t) t.nops + (pred.have_events ? pred.sim.nevents : 0)));
    busy_meas = calloc(t.nqueues, sizeof(*busy_meas));
    labels = calloc(t.nqueues > nrows_pred ? t.nqueues : nrows_pred, sizeof(*labels));
    if (NULL == bars || NULL == busy_meas || NULL == labels) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto out;
    }
    if (NULL == mkdtemp(dir)) {
        fprintf(stderr, "%s: mkdtemp: %s\n", prog, strerror(errno));
        goto out;
    }
    have_dir = 1;
    snprintf(dat, sizeof(dat), "%s/trace.dat", dir);
    snprintf(gp, sizeof(gp), "%s/trace.gp", dir);

    f = fopen(dat, "w");
    if (NULL == f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, dat, strerror(errno));
        goto out;
    }
    for (uint32_t i = 0; i < t.nops; i++) {
        bars[nbars++] = (bar_t){.start = (double) t.ops[i].start * 1000.0 / div,
                                .end = (double) t.ops[i].end * 1000.0 / div,
                                .row = t.ops[i].queue, .phase = t.ops[i].phase};
    }
    write_bars(f, bars, nbars, t.nqueues, busy_meas);
    if (pred.have_events) {
        nbars = 0;
        for (uint32_t i = 0; i < pred.sim.nevents; i++) {
            const themis_sim_event_t *ev = &pred.sim.events[i];
            const themis_stage_t *g =
                &pred.sched.stages[(size_t) ev->chunk * pred.sched.nstages + ev->stage];
            bars[nbars++] = (bar_t){.start = (double) ev->start / div,
                                    .end = (double) ev->end / div, .row = ev->dim,
                                    .phase = g->phase};
        }
        write_bars(f, bars, nbars, nrows_pred, NULL);
    }
    if (0 != fclose(f)) {
        fprintf(stderr, "%s: writing %s failed\n", prog, dat);
        goto out;
    }

    f = fopen(gp, "w");
    if (NULL == f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, gp, strerror(errno));
        goto out;
    }
    themis_topology_format(&t.topo, spec, sizeof(spec));
    format_size(t.bytes, sz, sizeof(sz));
    {
        const uint32_t rows = t.nqueues > nrows_pred ? t.nqueues : nrows_pred;
        char title[1400];
        size_t used;

        fprintf(f, "set terminal pngcairo noenhanced size 1100,%u font 'sans,10'\n",
                200 + 2 * (80 + 30 * (rows < 64 ? rows : 64)));
        fprintf(f, "set output ");
        gp_quote(f, o->png_path);
        fprintf(f, "\nset multiplot layout 2,1 title \"call %" PRIu64 ": %s of %s on ", t.index,
                t.coll_name, sz);
        gp_escape(f, t.comm);
        fprintf(f, " (%" PRIu64 " ranks), %s, %u chunk%s\\n%s\"\n", t.comm_size,
                themis_algorithm_get(t.algo)->name, t.chunks, 1 == t.chunks ? "" : "s", spec);
        fprintf(f, "set xlabel 'time (%s); RS blue, AG orange'\n", unit);
        fprintf(f, "set grid xtics\nset style fill solid 1.0 noborder\nunset key\n");
        for (uint32_t q = 0; q < t.nqueues; q++) {
            if (dim_orders(t.algo) && q < nrows_pred) {
                snprintf(labels[q], sizeof(labels[q]), "dim %u (%s:%u)", q,
                         themis_dim_kind_name(t.topo.dims[q].kind), t.topo.dims[q].size);
            } else {
                snprintf(labels[q], sizeof(labels[q]), "queue %u", q);
            }
        }
        used = (size_t) snprintf(title, sizeof(title), "measured on rank %" PRIu64 ": %.3f %s, "
                                 "busy", t.comm_rank, (double) t.engine_ns * 1000.0 / div,
                                 unit);
        for (uint32_t q = 0; q < t.nqueues && used < sizeof(title); q++) {
            used += (size_t) snprintf(title + used, sizeof(title) - used, " %s%u %.0f%%",
                                      dim_orders(t.algo) ? "d" : "q", q,
                                      busy_pct(busy_meas[q], div, t.engine_ns));
        }
        gp_panel(f, dat, title, (double) (0 == t.engine_ns ? tmax : t.engine_ns * 1000) / div,
                 t.nqueues, labels, 0);
        for (uint32_t k = 0; k < nrows_pred; k++) {
            snprintf(labels[k], sizeof(labels[k]), "dim %u (%s:%u)", k,
                     themis_dim_kind_name(t.topo.dims[k].kind), t.topo.dims[k].size);
        }
        if (pred.have_events) {
            used = (size_t) snprintf(title, sizeof(title), "predicted (%s): %.3f %s, busy",
                                     pred.what, (double) pred.total / div, unit);
            for (int k = 0; k < t.topo.ndims && used < sizeof(title); k++) {
                used += (size_t) snprintf(title + used, sizeof(title) - used, " d%d %.0f%%", k,
                                          pct(pred.sim.stats.busy[k], pred.total));
            }
        } else if (pred.have) {
            snprintf(title, sizeof(title), "predicted (%s): %.3f %s", pred.what,
                     (double) pred.total / div, unit);
        } else {
            snprintf(title, sizeof(title), "no prediction (%s)", pred.what);
        }
        gp_panel(f, dat, title, (double) (0 == pred.total ? tmax : pred.total) / div,
                 nrows_pred, labels, pred.have_events ? 1 : -1);
        fprintf(f, "unset multiplot\n");
    }
    if (0 != fclose(f)) {
        fprintf(stderr, "%s: writing %s failed\n", prog, gp);
        goto out;
    }
    if (0 != run_gnuplot(gp)) {
        fprintf(stderr, "%s: gnuplot input kept in %s\n", prog, dir);
        have_dir = 0;
        goto out;
    }
    {
        struct stat sb;
        if (0 != stat(o->png_path, &sb) || 0 == sb.st_size) {
            fprintf(stderr, "%s: gnuplot wrote no %s\n", prog, o->png_path);
            goto out;
        }
    }

    printf("trace: %s, call %" PRIu64 " of %" PRIu64 " (%" PRIu64 " fallbacks in the file)\n",
           t.path, t.index, t.ncalls, t.nfallbacks);
    printf("call: %s of %" PRIu64 " bytes on %s (rank %" PRIu64 " of %" PRIu64 "), %s, %u "
           "chunk%s, scheduler %s, order %s, chunks_in_flight %u\n", t.coll_name, t.bytes, t.comm,
           t.comm_rank, t.comm_size, themis_algorithm_get(t.algo)->name, t.chunks,
           1 == t.chunks ? "" : "s", themis_sched_kind_name(t.kind),
           themis_order_policy_name(t.order), t.chunks_in_flight);
    printf("topology: %s (%" PRIu64 " NPUs)\n", spec, themis_topology_npus(&t.topo));
    if (dim_orders(t.algo)) {
        if (0 == pred.mismatches) {
            printf("schedule: the rebuilt dimension orders match the trace (%u chunks)\n",
                   pred.sched.nchunks);
        } else {
            printf("schedule: the rebuilt dimension orders differ from the trace in %" PRId64
                   " of %u chunks: the prediction is not of the schedule that ran\n",
                   pred.mismatches, pred.sched.nchunks);
        }
    }
    printf("measured:  %10.3f %-2s  busy", (double) t.engine_ns * 1000.0 / div, unit);
    for (uint32_t q = 0; q < t.nqueues; q++) {
        printf(" %s%u %5.1f%%", dim_orders(t.algo) ? "d" : "q", q,
               busy_pct(busy_meas[q], div, t.engine_ns));
    }
    printf("\n");
    if (pred.have) {
        printf("predicted: %10.3f %-2s", (double) pred.total / div, unit);
        if (pred.have_events) {
            printf("  busy");
            for (int k = 0; k < t.topo.ndims; k++) {
                printf(" d%d %5.1f%%", k, pct(pred.sim.stats.busy[k], pred.total));
            }
        }
        printf("  (%s)\n", pred.what);
        if (pred.total > 0) {
            printf("measured / predicted: %.2f\n",
                   (double) t.engine_ns * 1000.0 / (double) pred.total);
        }
    } else {
        printf("predicted: n/a (%s)\n", pred.what);
    }
    printf("wrote %s\n", o->png_path);
    rc = 0;

out:
    if (have_dir) {
        unlink(dat);
        unlink(gp);
        rmdir(dir);
    }
    if (pred.have_events) {
        themis_sim_result_free(&pred.sim);
        themis_schedule_free(&pred.sched);
    }
    free(bars);
    free(busy_meas);
    free(labels);
    free(t.ops);
    json_object_put(t.rec);
    return rc;
}

static int cmd_timeline(int argc, char **argv)
{
    cli_opts_t o;
    themis_schedule_t sched[NMETHODS];
    themis_sim_result_t res[NMETHODS];
    char dir[] = "/tmp/themis-plan-XXXXXX";
    char dat[64], gp[64], sz[32];
    themis_time_t tmax = 0;
    uint64_t bytes;
    FILE *f;
    int pos, rc, nplanned = 0;
    double div;
    const char *unit;

    rc = parse_options(argc, argv, OPT_TOPOLOGY | OPT_COLL | OPT_BYTES | OPT_CHUNKS
                       | OPT_CHUNKS_IN_FLIGHT | OPT_THRESHOLD | OPT_LATENCY | OPT_LOAD | OPT_PNG | OPT_TRACE | OPT_CALL
                       | OPT_MIN_CHUNK | OPT_HELP, &o, &pos);
    if (o.help) {
        usage_timeline(stdout);
        return 0;
    }
    if (0 != rc) {
        return rc;
    }
    if (pos < argc) {
        fprintf(stderr, "%s timeline: unexpected argument '%s'\n", prog, argv[pos]);
        return EXIT_USAGE;
    }
    if (NULL == o.png_path || '\0' == o.png_path[0]) {
        fprintf(stderr, "%s timeline: --png OUT.png is required\n", prog);
        return EXIT_USAGE;
    }
    if (NULL != strpbrk(o.png_path, "\n\r")) {
        fprintf(stderr, "%s timeline: --png path must not contain a line break\n", prog);
        return EXIT_USAGE;
    }
    if (NULL != o.trace_path) {
        if (0 != (o.given & ~(unsigned) (OPT_TRACE | OPT_CALL | OPT_PNG))) {
            fprintf(stderr, "%s timeline: with --trace only --call and --png apply (the trace "
                    "gives the topology and the settings)\n", prog);
            return EXIT_USAGE;
        }
        return timeline_trace(&o);
    }
    if (0 != (o.given & OPT_CALL)) {
        fprintf(stderr, "%s timeline: --call needs --trace FILE\n", prog);
        return EXIT_USAGE;
    }
    if (0 != (rc = need_topology(&o, "timeline")) || 0 != (rc = need_single(&o, "timeline"))) {
        return rc;
    }
    bytes = o.nbytes > 0 ? o.bytes[0] : 1000000000ull;

    for (int m = 0; m < NMETHODS; m++) {
        themis_status_t st = plan_one(&o, bytes, chunks_for(&o, o.chunks[0], bytes), methods[m].kind,
                                      methods[m].policy, 1, &sched[m], &res[m]);
        if (THEMIS_OK != st) {
            rc = status_exit(st);
            goto out;
        }
        nplanned++;
        if (0 == res[m].nevents) {
            fprintf(stderr, "%s: the simulator recorded no events for %s\n", prog,
                    methods[m].name);
            rc = EXIT_RUNTIME;
            goto out;
        }
        if (res[m].stats.total_time > tmax) {
            tmax = res[m].stats.total_time;
        }
    }
    unit = time_unit(tmax, &div);

    if (NULL == mkdtemp(dir)) {
        fprintf(stderr, "%s: mkdtemp: %s\n", prog, strerror(errno));
        rc = EXIT_RUNTIME;
        goto out;
    }
    snprintf(dat, sizeof(dat), "%s/activity.dat", dir);
    snprintf(gp, sizeof(gp), "%s/timeline.gp", dir);

    rc = EXIT_RUNTIME;
    f = fopen(dat, "w");
    if (NULL == f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, dat, strerror(errno));
        goto cleanup;
    }
    for (int m = 0; m < NMETHODS; m++) {
        fprintf(f, "# %s\n", methods[m].name);
        for (int k = 0; k < o.topo.ndims; k++) {
            if (0 != write_activity(f, &res[m], k, div)) {
                fclose(f);
                fprintf(stderr, "%s: out of memory\n", prog);
                goto cleanup;
            }
        }
        fprintf(f, "\n\n");   /* gnuplot: next index */
    }
    if (0 != fclose(f)) {
        fprintf(stderr, "%s: writing %s failed\n", prog, dat);
        goto cleanup;
    }

    f = fopen(gp, "w");
    if (NULL == f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, gp, strerror(errno));
        goto cleanup;
    }
    format_size(bytes, sz, sizeof(sz));
    {
        char spec[1024];
        static const char *colors[] = {"#4c72b0", "#dd8452", "#55a868"};
        int height = 180 + NMETHODS * (70 + 28 * o.topo.ndims);

        themis_topology_format(&o.topo, spec, sizeof(spec));
        fprintf(f, "set terminal pngcairo noenhanced size 1100,%d font 'sans,10'\n", height);
        fprintf(f, "set output ");
        gp_quote(f, o.png_path);
        fprintf(f, "\nset multiplot layout %d,1 title ", NMETHODS);
        {
            char title[1400];
            snprintf(title, sizeof(title),
                     "Per-dimension activity: %s %s, %u chunks, chunks_in_flight %u\\n%s", sz,
                     themis_coll_name(o.coll), o.chunks[0], o.chunks_in_flight, o.topo_label);
            fprintf(f, "\"");
            for (const char *p = title; '\0' != *p; p++) {
                if ('"' == *p) {
                    fputc('\\', f);
                }
                fputc(*p, f);
            }
            fprintf(f, "\"\n");
        }
        fprintf(f, "set xrange [0:%.6f]\n", (double) tmax / div);
        /* dim 0 on top, as in Fig. 10 */
        fprintf(f, "set yrange [%d.6:-0.6]\n", o.topo.ndims - 1);
        fprintf(f, "set ytics (");
        for (int k = 0; k < o.topo.ndims; k++) {
            fprintf(f, "%s\"dim %d (%s:%u)\" %d", 0 == k ? "" : ", ", k,
                    themis_dim_kind_name(o.topo.dims[k].kind), o.topo.dims[k].size, k);
        }
        fprintf(f, ")\nset xlabel 'time (%s)'\n", unit);
        fprintf(f, "set grid xtics\nset style fill solid 1.0 noborder\nunset key\n");
        for (int m = 0; m < NMETHODS; m++) {
            fprintf(f, "set title \"%s: %.3f %s, avg BW utilization %.1f%%, busy", methods[m].name,
                    (double) res[m].stats.total_time / div, unit,
                    res[m].stats.avg_util_ppm / 1e4);
            for (int k = 0; k < o.topo.ndims; k++) {
                fprintf(f, " d%d %.0f%%", k,
                        pct(res[m].stats.busy[k], res[m].stats.total_time));
            }
            fprintf(f, "\"\nplot ");
            gp_quote(f, dat);
            fprintf(f, " index %d using 1:2:3:4 with boxxyerror lc rgb '%s'\n", m, colors[m]);
        }
        fprintf(f, "unset multiplot\n");
    }
    if (0 != fclose(f)) {
        fprintf(stderr, "%s: writing %s failed\n", prog, gp);
        goto cleanup;
    }
    if (0 != run_gnuplot(gp)) {
        fprintf(stderr, "%s: gnuplot input kept in %s\n", prog, dir);
        goto out;
    }
    {
        struct stat sb;
        if (0 != stat(o.png_path, &sb) || 0 == sb.st_size) {
            fprintf(stderr, "%s: gnuplot wrote no %s\n", prog, o.png_path);
            goto cleanup;
        }
    }
    print_topology_header(stdout, &o);
    for (int m = 0; m < NMETHODS; m++) {
        printf("%-12s %9.3f %s  util %5.1f%%  busy", methods[m].name,
               (double) res[m].stats.total_time / div, unit, res[m].stats.avg_util_ppm / 1e4);
        for (int k = 0; k < o.topo.ndims; k++) {
            printf(" d%d %5.1f%%", k, pct(res[m].stats.busy[k], res[m].stats.total_time));
        }
        printf("\n");
    }
    printf("wrote %s\n", o.png_path);
    rc = 0;

cleanup:
    unlink(dat);
    unlink(gp);
    rmdir(dir);
out:
    for (int m = 0; m < nplanned; m++) {
        themis_sim_result_free(&res[m]);
        themis_schedule_free(&sched[m]);
    }
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

static int cmd_presets(int argc, char **argv)
{
    if (argc > 1) {
        if (0 == strcmp("--help", argv[1]) || 0 == strcmp("-h", argv[1])) {
            printf("usage: %s presets\n  Lists the Table 2 topologies of themis.txt; each name "
                   "is a valid --topo SPEC.\n", prog);
            return 0;
        }
        fprintf(stderr, "%s presets: unexpected argument '%s'\n", prog, argv[1]);
        return EXIT_USAGE;
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

static int cmd_topo(int argc, char **argv)
{
    cli_opts_t o;
    char spec[1024];
    int pos, rc;

    rc = parse_options(argc, argv, OPT_TOPOLOGY | OPT_HELP, &o, &pos);
    if (o.help) {
        printf("usage: %s topo SPEC | --topo-file FILE\n"
               "  Parses a topology and prints it.  SPEC is a preset name or\n"
               "  KIND:SIZE:BANDWIDTH:LATENCY dimensions joined by '_', e.g.\n"
               "  sw:16:1200Gb:700ns_sw:64:800Gb:1700ns (KIND ring|biring|fc|sw).\n"
               "  Parse errors are reported with their position; exit status 2.\n", prog);
        return 0;
    }
    if (0 != rc) {
        return rc;
    }
    if (pos < argc) {
        if (o.have_topo || pos + 1 < argc) {
            fprintf(stderr, "%s topo: give one SPEC or --topo-file FILE\n", prog);
            return EXIT_USAGE;
        }
        rc = load_topology(&o, argv[pos], NULL);
        if (0 != rc) {
            return rc;
        }
    }
    if (0 != (rc = need_topology(&o, "topo"))) {
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
        {"simulate", cmd_simulate},
        {"timeline", cmd_timeline},
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
        {"bed", themis_plan_cmd_bed}
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
