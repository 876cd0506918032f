/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The option table of themis-plan's graph, transfer and export
 * subcommands and its parser (themis_plan_args.h).
 */
#include "themis_build_config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clos.h"
#include "cluster.h"
#include "defaults.h"
#include "link_sim.h"
#include "tacos.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "topology.h"
#include "xfer_direct.h"

/* How an option's argument is checked and converted: one rule a kind. */
typedef enum {
    ARG_FLAG,   /* no argument */
    ARG_TEXT,   /* a path or a name the subcommand checks */
    ARG_SHAPE,  /* 4x2 (themis_parse_dims) */
    ARG_SIZES,  /* S[,S...], each a size > 0 (themis_parse_size) */
    ARG_COUNTS, /* N[,N...] elements, each > 0; bytes = N x --elem-size */
    ARG_SIZE,   /* one size > 0 */
    ARG_UINT,   /* an integer in lo .. hi */
    ARG_UINTS,  /* K[,K...], each an integer in lo .. hi */
    ARG_COLL,   /* ar|rs|ag */
    ARG_BW,     /* B or B,B2: the graph's link rates */
    ARG_RATE,   /* one rate > 0 */
    ARG_LAT,    /* a latency up to THEMIS_GRAPH_MAX_LAT_PS */
    ARG_PPM,    /* a fraction in (0, 1], up to 6 decimals */
} arg_kind_t;

typedef struct {
    const char *name;
    arg_kind_t kind;
    const char *meta; /* the argument in --help */
    uint64_t lo, hi;  /* ARG_UINT */
    const char *cmds; /* the subcommands that take it, space separated */
    const char *help;
} opt_row_t;

/* Who takes a network (--graph, --dims, --bw, --lat) and a size (--bytes,
 * --count): every such subcommand, by construction of these lists. */
#define NET_CMDS "graph xfer compare synth bed msccl treepack"
#define DIM_CMDS "schedule simulate timeline topo export cycles"
#define SCHED_CMDS "schedule simulate timeline"
#define SIZE_CMDS SCHED_CMDS " cycles rules xfer compare synth bed msccl treepack export"

static const opt_row_t rows[TPO_N] = {
    [TPO_GRAPH] = {"graph", ARG_TEXT, "SPEC|FILE", 0, 0, NET_CMDS " " DIM_CMDS,
                   "the network: a graph spec (torus2d:4x4, leafspine:4x2, ...) or a graph "
                   "file (themis-plan graph --help); where dimensions are planned, its "
                   "ranks' dimensions at the --dim-* rates"},
    [TPO_TOPO] = {"topo", ARG_TEXT, "SPEC", 0, 0, DIM_CMDS,
                  "dimensions KIND:SIZE:BW:LAT joined by _ (sw:4:100Gb:1us_sw:2:100Gb:2us) "
                  "or a preset (themis-plan presets)"},
    [TPO_TOPO_FILE] = {"topo-file", ARG_TEXT, "FILE", 0, 0, DIM_CMDS, "a topology file"},
    [TPO_DIMS] = {"dims", ARG_SHAPE, "SHAPE", 0, 0, NET_CMDS " " DIM_CMDS,
                  "the ranks' dimensions, innermost first (4x2), as coll_themis_dims; with "
                  "--graph they must hold its ranks (default: ranks per host x hosts)"},
    [TPO_DIM_BW] = {"dim-bandwidths", ARG_TEXT, "B[,B...]", 0, 0, DIM_CMDS,
                    "with --dims: one rate per dimension or one for all (default 100Gb)"},
    [TPO_DIM_LAT] = {"dim-latencies", ARG_TEXT, "L[,L...]", 0, 0, DIM_CMDS,
                     "with --dims: one latency per dimension or one for all (default 2us)"},
    [TPO_DIM_KINDS] = {"dim-kinds", ARG_TEXT, "K[,K...]", 0, 0, DIM_CMDS,
                       "with --dims: ring, biring, fc or sw per dimension or for all "
                       "(default sw)"},
    [TPO_BW] = {"bw", ARG_BW, "B[,B2]", 0, 0, NET_CMDS " route",
                "link rate where the spec gives none (B2: the second class of links); "
                "compare: the dimensions' rate; route: the links' and hosts'"},
    [TPO_LAT] = {"lat", ARG_LAT, "L", 0, 0, NET_CMDS,
                 "link latency where the spec gives none (up to 1s); compare: the "
                 "dimensions' latency"},
    [TPO_DEGREE] = {"degree", ARG_UINT, "D", 1, THEMIS_GRAPH_MAX_NODES, "graph xfer",
                    "degree where the spec gives none"},
    [TPO_COLL] = {"coll", ARG_COLL, "ar|rs|ag", 0, 0,
                  SCHED_CMDS " cycles rules algorithms xfer compare synth bed export",
                  "the collective: allreduce, reduce_scatter, allgather (default allreduce)"},
    [TPO_BYTES] = {"bytes", ARG_SIZES, "S[,S...]", 0, 0, SIZE_CMDS,
                   "the vector's size: 65536, 64K, 4MiB, 1.5MB (K/M/G binary, KB/MB/GB "
                   "decimal)"},
    [TPO_COUNT] = {"count", ARG_COUNTS, "N[,N...]", 0, 0, SIZE_CMDS,
                   "instead of --bytes: elements of 4 bytes (compare: of --elem-size)"},
    [TPO_ELEM_SIZE] = {"elem-size", ARG_UINT, "E", 1, 64, "compare",
                       "bytes of one element (default 4)"},
    [TPO_COMM_SIZE] = {"comm-size", ARG_SIZE, "N", 0, 0, "rules", "ranks of the call"},
    [TPO_ALGORITHM] = {"algorithm", ARG_TEXT, "NAME", 0, 0, "export",
                       "an algorithm that plans (themis-plan algorithms; default the first)"},
    [TPO_CHUNKS] = {"chunks", ARG_UINTS, "K[,K...]", 1, THEMIS_PLAN_MAX_CHUNKS,
                    SCHED_CMDS " cycles compare export",
                    "chunks per call (default: coll/themis' coll_themis_chunks and floors)"},
    [TPO_CHUNKS_PER_NPU] = {"chunks-per-npu", ARG_UINT, "K", 1, THEMIS_PLAN_MAX_CHUNKS, "synth",
                            "chunks each rank's block is cut into (default as "
                            "coll/themis' tacos)"},
    [TPO_TORUS_CHUNKS] = {"torus-chunks", ARG_UINT, "K", 1, THEMIS_PLAN_MAX_CHUNKS, "cycles",
                          "torus2d's chunks"},
    [TPO_CHUNKS_IN_FLIGHT] = {"chunks-in-flight", ARG_UINT, "F", 1, THEMIS_MAX_CHUNKS_IN_FLIGHT,
                              SCHED_CMDS " cycles compare export",
                              "chunks in flight (coll_themis_chunks_in_flight)"},
    [TPO_MIN_CHUNK] = {"min-chunk", ARG_SIZE, "S", 0, 0, SCHED_CMDS,
                       "make --chunks a maximum: each chunk at least S (chunking.h)"},
    [TPO_MIN_CHUNK_BYTES] = {"min-chunk-bytes", ARG_SIZE, "S", 0, 0, "compare",
                             "smallest chunk (coll_themis_min_chunk_bytes)"},
    [TPO_SCHEDULER] = {"scheduler", ARG_TEXT, "baseline|themis", 0, 0, "schedule",
                       "the scheduler (default themis)"},
    [TPO_ORDER] = {"order", ARG_TEXT, "fifo|scf|R,R,...", 0, 0, "schedule xfer",
                   "schedule: intra-dimension policy (default scf); xfer: the ring's rank "
                   "order"},
    [TPO_THRESHOLD] = {"threshold", ARG_UINT, "PERMILLE", 0, 1000000, SCHED_CMDS,
                       "Algorithm 1 threshold, per mille of the paper's (default 1000)"},
    [TPO_LATENCY] = {"latency", ARG_TEXT, "overlapped|serialized", 0, 0, SCHED_CMDS,
                     "whether a step's latency holds its slot (default overlapped)"},
    [TPO_LOAD] = {"load", ARG_TEXT, "bandwidth|phase", 0, 0, SCHED_CMDS,
                  "Dim Load Tracker model (default bandwidth)"},
    [TPO_XFER] = {"xfer", ARG_TEXT, "ring|direct", 0, 0, "bed",
                  "also plan this transfer schedule and predict its time"},
    [TPO_XY] = {"xy", ARG_UINT, "W", 1, THEMIS_XFER_DIRECT_MAX_RANKS, "xfer",
                "direct: dimension-ordered routes on rows of W"},
    [TPO_DUPLEX] = {"duplex", ARG_PPM, "F", 0, 0, "xfer synth msccl",
                    "a link whose reverse also sends runs at F of its rate (default 1)"},
    [TPO_SPINES] = {"spines", ARG_TEXT, "ALGO", 0, 0, "xfer bed",
                    "route Clos flows by greedy, parallel, exact or ecmp"},
    [TPO_SEED] = {"seed", ARG_UINT, "N", 0, UINT64_MAX, "xfer bed route",
                  "ecmp's draw (default 1)"},
    [TPO_SEEDS] = {"seeds", ARG_UINT, "N", 1, THEMIS_TACOS_MAX_SEEDS, "synth",
                   "greedy runs (default auto)"},
    [TPO_ILP] = {"ilp", ARG_FLAG, NULL, 0, 0, "synth", "TACOS-ILP instead of the greedy"},
    [TPO_TIME_LIMIT] = {"time-limit", ARG_TEXT, "T", 0, 0, "synth route",
                        "the ILP's time: synth, seconds or a time such as 500ms; route, ms"},
    [TPO_ILP_CLUSTER] = {"ilp-cluster", ARG_UINT, "N", 1, 1u << 16, "synth",
                         "with --ilp: steps per ILP"},
    [TPO_METHOD] = {"method", ARG_TEXT, "auto|lp|exact|cycles|torus|mw", 0, 0, "treepack",
                    "how to pack (default auto)"},
    [TPO_TREES] = {"trees", ARG_UINT, "N", 0, UINT32_MAX, "treepack",
                   "trees to print (default 32)"},
    [TPO_SCALE] = {"scale", ARG_TEXT, "F", 0, 0, "bed", "rates x F (up to 9 decimals)"},
    [TPO_BUDGET] = {"budget", ARG_RATE, "R", 0, 0, "bed", "scale the rates to sum to R"},
    [TPO_DIM_ROUTES] = {"dim-routes", ARG_FLAG, NULL, 0, 0, "bed",
                        "dimension-ordered routes on --dims, not the graph's"},
    [TPO_PACKET] = {"packet", ARG_TEXT, "PAYLOAD,HEADER", 0, 0, "bed",
                    "the bed's packets (bytes), in the scaled graph: 1448,66 for TCP"},
    [TPO_LIST] = {"list", ARG_FLAG, NULL, 0, 0, "cycles", "plain text: CYCLE STEP ROW COL"},
    [TPO_SWEEP] = {"sweep", ARG_TEXT, "MIN:MAX", 0, 0, "cycles",
                   "build and verify every size MIN..MAX x MIN..MAX"},
    [TPO_COSTS] = {"costs", ARG_FLAG, NULL, 0, 0, "cycles",
                   "themis, rings and torus2d's predicted times on --topo"},
    [TPO_NAMES] = {"names", ARG_FLAG, NULL, 0, 0, "algorithms",
                   "one name per line (with --coll: those serving it)"},
    [TPO_MARKDOWN] = {"markdown", ARG_FLAG, NULL, 0, 0, "algorithms",
                      "the table of docs/coll_themis.md"},
    [TPO_CLOS] = {"clos", ARG_TEXT, "TxS", 0, 0, "route",
                  "a 2-layer Clos of T ToRs and S spines (64x32)"},
    [TPO_HOSTS_PER_TOR] = {"hosts-per-tor", ARG_UINT, "H", 1, THEMIS_CLOS_MAX_HOSTS, "route",
                           "hosts under each ToR"},
    [TPO_PAIRS] = {"pairs", ARG_TEXT, "DIR", 0, 0, "route",
                   "the flows of every *.txt traffic file of DIR"},
    [TPO_RING] = {"ring", ARG_TEXT, "H,H,...", 0, 0, "route",
                  "the flows of an All-Reduce ring, rank i on host H_i"},
    [TPO_SCHEDULE] = {"schedule", ARG_TEXT, "FILE.xml", 0, 0, "route",
                      "the flows of an MSCCL-XML schedule (with --hosts)"},
    [TPO_HOSTS] = {"hosts", ARG_TEXT, "H,H,...", 0, 0, "route", "rank i on host H_i"},
    [TPO_TOR_AWARE] = {"tor-aware", ARG_FLAG, NULL, 0, 0, "route", "order the ring by ToR"},
    [TPO_FAILED_SPINES] = {"failed-spines", ARG_UINT, "F", 0, THEMIS_CLOS_MAX_SPINES, "route",
                           "fail the F highest spines"},
    [TPO_FAILED_LINKS] = {"failed-links", ARG_TEXT, "T-S+T-S...", 0, 0, "route",
                          "fail these ToR-spine links"},
    [TPO_ALGO] = {"algo", ARG_TEXT, "greedy|parallel|exact|ilp|ecmp", 0, 0, "route",
                  "how to route (default greedy)"},
    [TPO_DRAWS] = {"draws", ARG_UINT, "N", 1, 1000000, "route", "ecmp's random choices"},
    [TPO_THREADS] = {"threads", ARG_UINT, "N", 1, 256, "route", "parallel's threads"},
    [TPO_SEARCH_STEPS] = {"search-steps", ARG_UINT, "N", 0, UINT32_MAX, "route",
                          "exact's search bound"},
    [TPO_TRACE] = {"trace", ARG_TEXT, "FILE", 0, 0, "timeline",
                   "a call traced by coll/themis (coll_themis_trace)"},
    [TPO_CALL] = {"call", ARG_UINT, "N", 0, UINT32_MAX, "timeline",
                  "with --trace: the N-th call of the file, from 0"},
    [TPO_GRAPH_OUT] = {"graph-out", ARG_TEXT, "FILE", 0, 0, "bed", "write the scaled graph"},
    [TPO_WRITE_GRAPH] = {"write-graph", ARG_TEXT, "FILE", 0, 0, "synth",
                         "write the graph synthesized on"},
    [TPO_MSCCL] = {"msccl", ARG_TEXT, "OUT.xml", 0, 0, "xfer synth bed export",
                   "write the schedule as MSCCL-XML"},
    [TPO_OUT] = {"out", ARG_TEXT, "OUT.xml", 0, 0, "msccl", "export: the file to write"},
    [TPO_EXPORT] = {"export", ARG_TEXT, "DIR", 0, 0, "synth",
                    "write the schedule as coll/themis' files into DIR"},
    [TPO_JSON] = {"json", ARG_TEXT, "FILE|-", 0, 0, "schedule cycles route",
                  "write JSON to FILE ('-': standard output)"},
    [TPO_CSV] = {"csv", ARG_FLAG, NULL, 0, 0, "simulate", "one CSV row per method"},
    [TPO_PNG] = {"png", ARG_TEXT, "OUT.png", 0, 0, "timeline", "the picture to write"},
    [TPO_ROUTES] = {"routes", ARG_FLAG, NULL, 0, 0, "graph", "print every route instead"},
    [TPO_HELP] = {"help", ARG_FLAG, NULL, 0, 0, "*", "this text"},
};

/* Whether the space-separated list holds word. */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = NULL == list ? NULL : strstr(list, word); NULL != p;
         p = strstr(p + 1, word)) {
        if ((p == list || ' ' == p[-1]) && (' ' == p[n] || '\0' == p[n])) {
            return 1;
        }
    }
    return 0;
}

int themis_plan_args_takes(const char *cmd, themis_plan_opt_id_t id)
{
    return 0 == strcmp("*", rows[id].cmds) || in_list(rows[id].cmds, cmd);
}

int themis_plan_args_fail(const themis_plan_args_t *a, themis_plan_opt_id_t id, const char *why)
{
    fprintf(stderr, "themis-plan %s: --%s: %s\n", a->cmd, rows[id].name, why);
    return EXIT_USAGE;
}

/* One option's help: its name and argument, then the text wrapped to 79
 * columns from column 29. */
static void usage_row(FILE *f, const opt_row_t *r)
{
    enum { TEXT_COL = 29, WIDTH = 79 };
    int col = fprintf(f, "  --%s%s%s", r->name, NULL != r->meta ? " " : "",
                      NULL != r->meta ? r->meta : "");
    const char *p = r->help;
    while ('\0' != *p) {
        size_t word = strcspn(p, " ");
        if (col >= TEXT_COL && col + 1 + (int) word > WIDTH) {
            fprintf(f, "\n");
            col = 0;
        }
        col += fprintf(f, "%*s%.*s", col < TEXT_COL ? TEXT_COL - col : 1, "", (int) word, p);
        p += word + (' ' == p[word]);
    }
    fprintf(f, "\n");
}

static void usage(const themis_plan_cmd_spec_t *cmd, FILE *f)
{
    fprintf(f, "usage: themis-plan %s%s%s [options]\n", cmd->name,
            '\0' != cmd->synopsis[0] ? " " : "", cmd->synopsis);
    if (NULL != cmd->about_fn) {
        cmd->about_fn(f);
    } else {
        fputs(cmd->about, f);
    }
    fprintf(f, "options:\n");
    for (int i = 0; i < TPO_N; i++) {
        if (themis_plan_args_takes(cmd->name, (themis_plan_opt_id_t) i)) {
            usage_row(f, &rows[i]);
        }
    }
}

/* One item of a --bytes or --count list into *v. */
static int list_value(const themis_plan_args_t *a, themis_plan_opt_id_t id, const char *tok,
                      uint64_t *v)
{
    char why[160];
    const int zero_ok = TPO_BYTES == id && a->spec->zero_bytes;
    if (THEMIS_OK == themis_parse_size(tok, v) && (0 != *v || zero_ok)) {
        return 0;
    }
    snprintf(why, sizeof(why), "'%s' is not %s %s 0 (e.g. 65536, 64K, 4MiB, 1.5MB)", tok,
             TPO_COUNT == id ? "a count of elements" : "a size", zero_ok ? ">=" : ">");
    return themis_plan_args_fail(a, id, why);
}

static int parse_uint(themis_plan_args_t *a, themis_plan_opt_id_t id, const char *arg,
                      uint64_t *v);

/* S[,S...] or K[,K...]: one value unless the subcommand lists the option
 * as taking several. */
static int parse_list(themis_plan_args_t *a, themis_plan_opt_id_t id, const char *arg)
{
    char buf[1024], why[96];
    int n = 0;
    uint64_t v;
    if (strlen(arg) >= sizeof(buf)) {
        return themis_plan_args_fail(a, id, "list too long");
    }
    strcpy(buf, arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); NULL != tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (THEMIS_PLAN_ARGS_MAX_SIZES == n) {
            snprintf(why, sizeof(why), "at most %d values", THEMIS_PLAN_ARGS_MAX_SIZES);
            return themis_plan_args_fail(a, id, why);
        }
        if (0 != (ARG_UINTS == rows[id].kind ? parse_uint(a, id, tok, &v)
                                             : list_value(a, id, tok, &v))) {
            return EXIT_USAGE;
        }
        if (ARG_UINTS == rows[id].kind) {
            a->chunks[n] = (uint32_t) v; /* hi <= UINT32_MAX */
        } else {
            a->bytes[n] = v;
        }
        n++;
    }
    if (0 == n) {
        return themis_plan_args_fail(a, id, "empty list");
    }
    if (n > 1 && !in_list(a->spec->lists, rows[id].name)) {
        return themis_plan_args_fail(a, id, "one value here");
    }
    *(ARG_UINTS == rows[id].kind ? &a->nchunks : &a->nbytes) = n;
    a->num[id] = ARG_UINTS == rows[id].kind ? a->chunks[0] : a->bytes[0];
    return 0;
}

static int parse_uint(themis_plan_args_t *a, themis_plan_opt_id_t id, const char *arg,
                      uint64_t *out)
{
    char *end = NULL, why[160];
    uint64_t hi = rows[id].hi;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (0 != errno || end == arg || '\0' != *end || '-' == arg[0] || '+' == arg[0] ||
        v < rows[id].lo || v > hi) {
        snprintf(why, sizeof(why), "'%s' is not an integer in %" PRIu64 " .. %" PRIu64, arg,
                 rows[id].lo, hi);
        return themis_plan_args_fail(a, id, why);
    }
    *out = v;
    return 0;
}

/* B or B,B2 into the graph's defaults. */
static int parse_bw(themis_plan_args_t *a, const char *arg)
{
    const char *end = NULL;
    char why[160];
    themis_status_t st = themis_parse_bandwidth(arg, &a->graph_opts.bw_bps, &end);
    if (THEMIS_OK == st && ',' == *end) {
        st = themis_parse_bandwidth(end + 1, &a->graph_opts.bw2_bps, NULL);
    } else if (THEMIS_OK == st && '\0' != *end) {
        st = THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK != st) {
        snprintf(why, sizeof(why),
                 "'%s' is not B or B,B2 (rates such as 100Gb, 25GB/s or "
                 "80GiB/s)",
                 arg);
        return themis_plan_args_fail(a, TPO_BW, why);
    }
    a->num[TPO_BW] = a->graph_opts.bw_bps;
    return 0;
}

/* The argument of option id by its row's kind. */
static int parse_arg(themis_plan_args_t *a, themis_plan_opt_id_t id, const char *arg)
{
    char why[200];
    uint32_t dims[THEMIS_MAX_DIMS];
    int n = 0;
    themis_time_t ps = 0;

    a->text[id] = arg;
    switch (rows[id].kind) {
    case ARG_FLAG:
    case ARG_TEXT:
        return 0;
    case ARG_SHAPE:
        if (THEMIS_OK != themis_parse_dims(arg, dims, &n, why, sizeof(why)) || 0 == n) {
            char msg[260];
            snprintf(msg, sizeof(msg), "'%s' is not a shape like 4x4: %s", arg,
                     0 == n ? "empty" : why);
            return themis_plan_args_fail(a, id, msg);
        }
        return 0;
    case ARG_SIZES:
    case ARG_COUNTS:
    case ARG_UINTS:
        return parse_list(a, id, arg);
    case ARG_SIZE:
        return list_value(a, id, arg, &a->num[id]);
    case ARG_UINT:
        return parse_uint(a, id, arg, &a->num[id]);
    case ARG_COLL:
        /* MPI's name for the block variant: the same schedule */
        if (THEMIS_OK !=
            themis_coll_parse(0 == strcmp("reduce_scatter_block", arg) ? "reduce_scatter" : arg,
                              &a->coll)) {
            snprintf(why, sizeof(why), "unknown collective '%s' (ar, rs, ag)", arg);
            return themis_plan_args_fail(a, id, why);
        }
        return 0;
    case ARG_BW:
        return parse_bw(a, arg);
    case ARG_RATE:
        if (THEMIS_OK != themis_parse_bandwidth(arg, &a->num[id], NULL) || 0 == a->num[id]) {
            snprintf(why, sizeof(why), "'%s' is not a rate (e.g. 1200Mb/s)", arg);
            return themis_plan_args_fail(a, id, why);
        }
        return 0;
    case ARG_LAT:
        if (THEMIS_OK != themis_parse_latency(arg, &ps, NULL) || ps > THEMIS_GRAPH_MAX_LAT_PS) {
            snprintf(why, sizeof(why), "'%s' is not a latency up to 1s (e.g. 500ns)", arg);
            return themis_plan_args_fail(a, id, why);
        }
        a->graph_opts.lat_ps = ps;
        a->num[id] = ps;
        return 0;
    case ARG_PPM:
        if (THEMIS_OK != themis_parse_ppm(arg, &a->num[id]) || 0 == a->num[id] ||
            a->num[id] > THEMIS_LINK_SIM_FULL_PPM) {
            snprintf(why, sizeof(why),
                     "'%s' is not a fraction in (0, 1] with up to 6 "
                     "decimals (e.g. 0.9)",
                     arg);
            return themis_plan_args_fail(a, id, why);
        }
        return 0;
    }
    return EXIT_USAGE;
}

/* --count N: N elements of --elem-size bytes (4, a float, by default). */
static int count_to_bytes(themis_plan_args_t *a)
{
    uint64_t elem = THEMIS_PLAN_GIVEN(a, TPO_ELEM_SIZE) ? a->num[TPO_ELEM_SIZE] : sizeof(float);
    for (int i = 0; i < a->nbytes; i++) {
        if (a->bytes[i] > UINT64_MAX / elem) {
            return themis_plan_args_fail(a, TPO_COUNT, "too many elements");
        }
        a->bytes[i] *= elem;
    }
    return 0;
}

/* getopt_long's value of row i: clear of '?', ':' and 'h'. */
#define VAL_BASE 256

int themis_plan_args_parse(const themis_plan_cmd_spec_t *cmd, int argc, char **argv,
                           themis_plan_args_t *a, int *rc)
{
    struct option longopts[TPO_N + 1];
    int n = 0, c;

    memset(a, 0, sizeof(*a));
    a->cmd = cmd->name;
    a->spec = cmd;
    a->coll = THEMIS_COLL_ALLREDUCE;
    themis_graph_opts_default(&a->graph_opts);
    for (int i = 0; i < TPO_N; i++) {
        if (themis_plan_args_takes(cmd->name, (themis_plan_opt_id_t) i)) {
            longopts[n++] = (struct option){
                rows[i].name, ARG_FLAG == rows[i].kind ? no_argument : required_argument, NULL,
                VAL_BASE + i};
        }
    }
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    *rc = EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while (-1 != (c = getopt_long(argc, argv, ":h", longopts, NULL))) {
        if ('h' == c) {
            c = VAL_BASE + TPO_HELP;
        }
        if (':' == c || '?' == c) {
            fprintf(stderr, "themis-plan %s: %s '%s'%s (try --help)\n", cmd->name,
                    ':' == c ? "option" : "unknown option", argv[optind - 1],
                    ':' == c ? " needs a value" : "");
            return 1;
        }
        c -= VAL_BASE;
        if ((TPO_COUNT == c && THEMIS_PLAN_GIVEN(a, TPO_BYTES)) ||
            (TPO_BYTES == c && THEMIS_PLAN_GIVEN(a, TPO_COUNT))) {
            fprintf(stderr, "themis-plan %s: give --bytes or --count, not both\n", cmd->name);
            return 1;
        }
        a->given[c] = 1;
        if (0 != parse_arg(a, (themis_plan_opt_id_t) c, optarg)) {
            return 1;
        }
    }
    if (THEMIS_PLAN_GIVEN(a, TPO_HELP)) {
        usage(cmd, stdout);
        *rc = 0;
        return 1;
    }
    if (THEMIS_PLAN_GIVEN(a, TPO_COUNT) && 0 != count_to_bytes(a)) {
        return 1;
    }
    a->first_pos = optind;
    if (argc - optind > cmd->max_pos) {
        fprintf(stderr, "themis-plan %s: unexpected argument '%s' (try --help)\n", cmd->name,
                argv[optind + cmd->max_pos]);
        return 1;
    }
    if (argc - optind < cmd->min_pos) {
        fprintf(stderr, "themis-plan %s: want %s (try --help)\n", cmd->name, cmd->synopsis);
        return 1;
    }
    *rc = 0;
    return 0;
}

int themis_plan_args_network(const themis_plan_args_t *a, const char *spec, themis_graph_t *g,
                             uint32_t dims[THEMIS_MAX_DIMS], int *ndims)
{
    themis_parse_error_t e;
    themis_status_t st = themis_graph_load(spec, &a->graph_opts, g, &e);
    char why[256];

    if (THEMIS_OK != st) {
        if (0 == e.line) {
            fprintf(stderr, "themis-plan %s: %s: %s\n", a->cmd, spec, e.message);
        } else {
            fprintf(stderr, "themis-plan %s: %s: parse error at line %d, column %d: %s\n",
                    a->cmd, spec, e.line, e.column, e.message);
            if (NULL == strchr(spec, '\n') && 1 == e.line && e.column >= 1 &&
                (size_t) e.column <= strlen(spec) + 1) {
                fprintf(stderr, "  %s\n  %*s^\n", spec, e.column - 1, "");
            }
        }
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (!THEMIS_PLAN_GIVEN(a, TPO_DIMS)) {
        *ndims = themis_graph_dims(g, dims, NULL, 0);
        return 0;
    }
    uint64_t ranks = 1;
    themis_parse_dims(a->text[TPO_DIMS], dims, ndims, why, sizeof(why));
    for (int i = 0; i < *ndims && ranks <= UINT32_MAX; i++) {
        ranks *= dims[i]; /* < 2^32 x 2^31: no overflow */
    }
    if (ranks != g->nranks) {
        fprintf(stderr, "themis-plan %s: --dims %s has %" PRIu64 " ranks, the graph %u\n",
                a->cmd, a->text[TPO_DIMS], ranks, g->nranks);
        themis_graph_free(g);
        return EXIT_USAGE;
    }
    if (!themis_graph_dims_agree(g, dims, *ndims, why, sizeof(why))) {
        /* as coll/themis warns: planned for the dims given, which the
         * graph's hosts cut otherwise */
        fprintf(stderr, "themis-plan %s: warning: --%s; planned for the dims as given%s\n",
                a->cmd, why,
                0 == strcmp("compare", a->cmd) ? ", the times simulated on the graph" : "");
    }
    return 0;
}

int themis_plan_parse_u32_list(const char *s, uint32_t max, uint32_t max_n, uint32_t **out,
                               uint32_t *n)
{
    uint64_t cap = 1;
    for (const char *p = s; '\0' != *p; p++) {
        cap += (',' == *p);
    }
    *n = 0;
    *out = NULL;
    if (cap > max_n) {
        return EXIT_USAGE;
    }
    *out = malloc((size_t) cap * sizeof(**out));
    if (NULL == *out) {
        return EXIT_RUNTIME;
    }
    for (const char *p = s;; p++) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (0 != errno || end == p || '-' == *p || '+' == *p || ' ' == *p || v > max ||
            (',' != *end && '\0' != *end)) {
            return EXIT_USAGE;
        }
        (*out)[(*n)++] = (uint32_t) v;
        if ('\0' == *end) {
            return 0;
        }
        p = end;
    }
}

static const themis_plan_cmd_spec_t size_cmd = {
    .name = "size",
    .synopsis = "S[,S...] ...",
    .about = "  Prints each size in bytes, one a line, as --bytes takes it: 65536, 64K,\n"
             "  16M, 1G (K/M/G/T and KiB/MiB/GiB/TiB binary), 1.5MB (KB/MB/GB/TB\n"
             "  decimal), up to 6 decimals where the result is whole bytes; > 0.\n"
             "  For scripts: benchmarks take their sizes through it.\n",
    .lists = "bytes count",
    .min_pos = 1,
    .max_pos = INT_MAX};

int themis_plan_cmd_size(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc;
    if (0 != themis_plan_args_parse(&size_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    for (int i = a.first_pos; i < argc; i++) {
        /* the --bytes rule: one parser of sizes */
        if (0 != parse_list(&a, TPO_BYTES, argv[i])) {
            return EXIT_USAGE;
        }
        for (int k = 0; k < a.nbytes; k++) {
            printf("%" PRIu64 "\n", a.bytes[k]);
        }
    }
    return 0;
}

int themis_plan_args_graph_shape(const themis_plan_args_t *a, char *shape, size_t len)
{
    themis_graph_t g;
    uint32_t dims[THEMIS_MAX_DIMS];
    int ndims, rc = themis_plan_args_network(a, a->text[TPO_GRAPH], &g, dims, &ndims);
    size_t used = 0;
    if (0 != rc) {
        return rc;
    }
    themis_graph_free(&g);
    shape[0] = '\0';
    for (int i = 0; i < ndims && used < len; i++) {
        used += (size_t) snprintf(shape + used, len - used, "%s%u", 0 == i ? "" : "x", dims[i]);
    }
    return 0;
}
