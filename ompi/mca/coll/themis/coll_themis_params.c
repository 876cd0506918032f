/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MCA parameters: registration (ompi_info --param coll themis --level 9),
 * parsing into mca_coll_themis_config_t, and the configuration hash that
 * the agreement compares across ranks.
 */
#include "ompi_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "coll_themis.h"

/* Defaults.  min_bytes and min_chunk_bytes are automatic (-1 and 0): the
 * module resolves them per communicator from where its ranks are. */
#define THEMIS_DEFAULT_PRIORITY 40
#define THEMIS_DEFAULT_CHUNKS 1024
#define THEMIS_DEFAULT_INFLIGHT 2
#define THEMIS_DEFAULT_MIN_BYTES (-1)
#define THEMIS_DEFAULT_DIRECT_MAX 8
#define THEMIS_DEFAULT_SCRATCH_MAX ((size_t) 256 << 20)
#define THEMIS_PARAM_MAX_CHUNKS 4096
#define THEMIS_PARAM_MAX_INFLIGHT 32 /* the simulator runs 1..32 */

static const char *const algorithm_names[] = {"auto", "themis", "rings", "torus2d"};

const char *mca_coll_themis_algorithm_name(mca_coll_themis_algorithm_t a)
{
    if ((unsigned) a < sizeof(algorithm_names) / sizeof(algorithm_names[0])) {
        return algorithm_names[a];
    }
    return "?";
}

uint64_t mca_coll_themis_hash_u64(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= 1099511628211ULL;
    }
    return h;
}

int mca_coll_themis_params_register(void)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    const mca_base_component_t *comp = &c->super.collm_version;

    c->priority = THEMIS_DEFAULT_PRIORITY;
    (void) mca_base_component_var_register(
        comp, "priority",
        "Priority of coll/themis (it handles allreduce, reduce_scatter, reduce_scatter_block "
        "and allgather; anything else, and every call it declines, goes to the next "
        "component). A negative value disables it.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &c->priority);

    c->dims_param = "";
    (void) mca_base_component_var_register(
        comp, "dims",
        "Shape imposed on consecutive ranks, innermost dimension first, e.g. \"4x2\" or "
        "\"2x2x2\"; the product must equal the communicator size (other communicators do not "
        "use coll/themis). Empty: automatic, from the ranks sharing a NUMA domain/socket "
        "(when bound), a node, and the network.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->dims_param);

    c->bandwidths_param = "";
    (void) mca_base_component_var_register(
        comp, "dim_bandwidths",
        "Per-rank bandwidth of each dimension, innermost first, comma separated, with units "
        "b|Kb|Mb|Gb|Tb (bit/s) or mbit/gbit, e.g. \"400Gb,100Gb\". One value applies to all "
        "dimensions. Empty: defaults per level (socket 200Gb, node 100Gb, network 100Gb "
        "shared by the ranks of a node) or the probe.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->bandwidths_param);

    c->latencies_param = "";
    (void) mca_base_component_var_register(
        comp, "dim_latencies",
        "Step latency of each dimension, innermost first, comma separated, with units "
        "ps|ns|us|ms|s, e.g. \"700ns,1700ns\". One value applies to all dimensions. Empty: "
        "defaults per level (socket 300ns, node 600ns, network 2us) or the probe.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->latencies_param);

    c->kinds_param = "";
    (void) mca_base_component_var_register(
        comp, "dim_kinds",
        "Kind of each dimension, innermost first, comma separated: ring, biring, fc or sw. "
        "ring runs the ring algorithm, biring a ring in each direction on half of the "
        "data, fc the direct one, sw the direct one up to "
        "coll_themis_direct_max peers and the ring above. One value applies to all "
        "dimensions. Empty: sw.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->kinds_param);

    c->chunks_param = THEMIS_DEFAULT_CHUNKS;
    (void) mca_base_component_var_register(
        comp, "chunks",
        "Most chunks per collective (1..4096). More chunks balance the dimensions better and "
        "shorten the pipeline's fill and drain; each chunk costs messages. A call uses fewer: "
        "each chunk at least coll_themis_min_chunk_bytes, and large enough that its smallest "
        "message (chunk / ranks) takes one step latency on every dimension (latency model).",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->chunks_param);

    c->scheduler_param = "themis";
    (void) mca_base_component_var_register(
        comp, "scheduler",
        "Inter-dimension scheduler: themis (greedy dimension load balancing) or baseline "
        "(every chunk reduce-scatters over dim 0..N-1 and gathers back).",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->scheduler_param);

    c->intra_order_param = "scf";
    (void) mca_base_component_var_register(
        comp, "intra_order",
        "Intra-dimension order of chunk operations: scf (smallest chunk first) or fifo.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->intra_order_param);

    c->inflight_param = THEMIS_DEFAULT_INFLIGHT;
    (void) mca_base_component_var_register(
        comp, "chunks_in_flight",
        "Chunk operations each dimension runs at once (1..32).",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->inflight_param);

    c->min_chunk_bytes_param = 0;
    (void) mca_base_component_var_register(
        comp, "min_chunk_bytes",
        "Smallest chunk (bytes of the full vector), on top of the latency model's floor (see "
        "coll_themis_chunks). 0 (default): automatic, 16 KiB when the communicator spans "
        "nodes, 2 MiB when all its ranks share one node (shared-memory transfers cost CPU "
        "copies per message; measured in benchmarks/README.md).",
        MCA_BASE_VAR_TYPE_SIZE_T, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->min_chunk_bytes_param);

    c->scratch_max_param = THEMIS_DEFAULT_SCRATCH_MAX;
    (void) mca_base_component_var_register(
        comp, "scratch_max",
        "Most bytes of engine scratch a communicator keeps between calls. A call that "
        "needs more (reduce-scatter and allgather need about the whole vector) allocates "
        "it and frees it when it ends, so one large call does not hold its memory for the "
        "life of the communicator; smaller scratch is reused, saving the page faults of "
        "a fresh allocation (cost measured in benchmarks/README.md). 0: free after "
        "every call.",
        MCA_BASE_VAR_TYPE_SIZE_T, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL,
        &c->scratch_max_param);

    c->min_bytes_param = THEMIS_DEFAULT_MIN_BYTES;
    (void) mca_base_component_var_register(
        comp, "min_bytes",
        "Smallest message (bytes of the full vector) run by coll/themis; smaller calls go to "
        "the next component. -1 (default): automatic, 64 KiB when the communicator spans "
        "nodes, 32 MiB when all its ranks share one node (there every dimension shares one "
        "memory system, so Themis has no link to balance and coll/tuned's single algorithm "
        "is as fast below that size; measured in benchmarks/README.md). 0: every size.",
        MCA_BASE_VAR_TYPE_LONG, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->min_bytes_param);

    c->algorithm_param = "auto";
    (void) mca_base_component_var_register(
        comp, "allreduce_algorithm",
        "Allreduce algorithm. themis: the Themis schedule over all dimensions. rings "
        "(HammingMesh): four pipelined rings, the two edge-disjoint Hamiltonian cycles of a "
        "2-D torus in both directions, each reducing a quarter of the data over all ranks; "
        "needs both dimensions >= 3. torus2d (HammingMesh): reduce-scatter along the rows, "
        "allreduce along the columns, allgather along the rows, on half the data, and the "
        "same on the transposed torus for the other half, both directions at once; any 2-D "
        "shape. auto: the fastest of the three by the cost model for the message size on a "
        "torus, i.e. a 2-D shape whose two dimensions are of kind biring (coll_themis_torus "
        "declares one; ring dimensions have one link direction, which the four rings "
        "need both of), Themis on every other shape; each choice is logged with the "
        "predicted times at coll_themis_verbose 10. A request that cannot run runs "
        "something that can, reported once and counted in coll_themis_<coll>_substitutions: "
        "rings with a dimension < 3 runs torus2d, rings/torus2d on a shape that is not 2-D "
        "run Themis. rings/torus2d split each quarter into max(1, chunks/4) (the call's chunks) "
        "pipelined chunks.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->algorithm_param);

    c->rs_algorithm_param = "auto";
    (void) mca_base_component_var_register(
        comp, "reduce_scatter_algorithm",
        "Algorithm of MPI_Reduce_scatter and MPI_Reduce_scatter_block: auto, themis, rings "
        "(ring reduce-scatter on the four directed Hamiltonian rings) or torus2d (the first "
        "half of the torus2d allreduce: reduce-scatter along one dimension, then the other, "
        "so that each rank ends with its own reduced block). Choice, substitution and "
        "chunks as for coll_themis_allreduce_algorithm.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->rs_algorithm_param);

    c->ag_algorithm_param = "auto";
    (void) mca_base_component_var_register(
        comp, "allgather_algorithm",
        "Algorithm of MPI_Allgather: auto, themis, rings (ring allgather on the four "
        "directed Hamiltonian rings) or torus2d (the last half of the torus2d allreduce: "
        "allgather along one dimension, then the other). Choice, substitution and chunks "
        "as for coll_themis_allreduce_algorithm.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->ag_algorithm_param);

    c->torus_param = "";
    (void) mca_base_component_var_register(
        comp, "torus",
        "Declares the communicator a 2-D torus of ROWSxCOLS ranks (HammingMesh), e.g. "
        "\"4x3\": rank = row * COLS + col, so a row is COLS consecutive ranks, and every rank "
        "has bidirectional links to its left/right (dimension 0) and up/down (dimension 1) "
        "neighbours, with wrap-around. The same as coll_themis_dims=COLSxROWS with "
        "coll_themis_dim_kinds=biring (either may be given too if it agrees). Both sizes >= "
        "2; communicators of another size do not use coll/themis. Empty: no torus.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->torus_param);

    c->verbose = 0;
    (void) mca_base_component_var_register(
        comp, "verbose",
        "Verbosity of coll/themis: 1 setup decisions, 10 details, 20 per call.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_LOCAL,
        &c->verbose);

    c->trace_param = "";
    (void) mca_base_component_var_register(
        comp, "trace",
        "Trace file name. Each process writes one JSON line per call that coll/themis ran "
        "(communicator, collective, bytes, algorithm, chunks, topology, schedule, and the "
        "start and end of every engine operation) and one per call it handed to the next "
        "component (collective, bytes, reason), to this name with \"%r\" replaced by its "
        "rank in MPI_COMM_WORLD, or with \".<rank>\" appended when the name has no \"%r\". "
        "Opened at the first call, flushed after each call, closed with the component; "
        "tracing does not change which path a call takes. \"themis-plan timeline --trace "
        "FILE\" draws a traced call beside the simulator's prediction. Format: "
        "docs/coll_themis.md. Empty (default): no trace.",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_LOCAL,
        &c->trace_param);

    c->probe_param = false;
    (void) mca_base_component_var_register(
        comp, "probe",
        "Measure bandwidth and latency of every dimension once per communicator with "
        "point-to-point ping-pongs at setup (the slowest rank's values are used); "
        "explicit coll_themis_dim_bandwidths/latencies still win.",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->probe_param);

    c->direct_max_param = THEMIS_DEFAULT_DIRECT_MAX;
    (void) mca_base_component_var_register(
        comp, "direct_max",
        "Switch (sw) dimensions with at most this many ranks use the direct algorithm "
        "(concurrent pairwise exchanges); larger ones use the ring.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &c->direct_max_param);

    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ parsing */

/* Collects the problems; mca_coll_themis_params_report() shows them. */
static void report(const char *param, const char *value, const char *why)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    size_t used = strlen(c->config_errors);

    snprintf(c->config_errors + used, sizeof(c->config_errors) - used,
             "  %s = \"%s\": %s\n", param, NULL == value ? "" : value, why);
}

static void report_int(const char *param, int value, const char *why)
{
    char text[24];
    snprintf(text, sizeof(text), "%d", value);
    report(param, text, why);
}

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char) *s)) {
        ++s;
    }
    return s;
}

static bool is_empty(const char *s)
{
    return NULL == s || '\0' == *skip_space(s);
}

/* "4x2x2" -> {4, 2, 2} */
static bool parse_dims(const char *s, mca_coll_themis_config_t *cfg, char *why, size_t len)
{
    cfg->ndims = 0;
    if (is_empty(s)) {
        return true;
    }
    for (;;) {
        char *end;
        unsigned long v;

        s = skip_space(s);
        if (!isdigit((unsigned char) *s)) {
            snprintf(why, len, "expected a dimension size at \"%s\"", s);
            return false;
        }
        errno = 0;
        v = strtoul(s, &end, 10);
        if (0 != errno || 0 == v || v > INT32_MAX) {
            snprintf(why, len, "dimension sizes must be between 1 and %d", INT32_MAX);
            return false;
        }
        if (THEMIS_MAX_DIMS == cfg->ndims) {
            snprintf(why, len, "at most %d dimensions", THEMIS_MAX_DIMS);
            return false;
        }
        cfg->dims[cfg->ndims++] = (uint32_t) v;
        s = skip_space(end);
        if ('\0' == *s) {
            return true;
        }
        if ('x' != *s && 'X' != *s) {
            snprintf(why, len, "expected 'x' between dimension sizes at \"%s\"", s);
            return false;
        }
        ++s;
    }
}

typedef themis_status_t (*value_parser_t)(const char *s, uint64_t *out, const char **end);

static themis_status_t parse_bw(const char *s, uint64_t *out, const char **end)
{
    return themis_parse_bandwidth(s, out, end);
}

static themis_status_t parse_lat(const char *s, uint64_t *out, const char **end)
{
    themis_time_t t;
    themis_status_t st = themis_parse_latency(s, &t, end);
    *out = t;
    return st;
}

/* Kind names as the topology strings take them: case-insensitive, and
 * "switch" for sw. */
static themis_status_t parse_kind(const char *s, uint64_t *out, const char **end)
{
    size_t n = 0;
    while (isalpha((unsigned char) s[n])) {
        ++n;
    }
    for (int k = THEMIS_DIM_RING; k <= THEMIS_DIM_SWITCH; ++k) {
        const char *name = themis_dim_kind_name((themis_dim_kind_t) k);
        if (NULL != name && strlen(name) == n && 0 == strncasecmp(s, name, n)) {
            *out = (uint64_t) k;
            *end = s + n;
            return THEMIS_OK;
        }
    }
    if (6 == n && 0 == strncasecmp(s, "switch", n)) {
        *out = (uint64_t) THEMIS_DIM_SWITCH;
        *end = s + n;
        return THEMIS_OK;
    }
    return THEMIS_ERR_PARSE;
}

/* Comma separated values; each must be consumed entirely by `parse`. */
static bool parse_list(const char *s, value_parser_t parse, const char *what, uint64_t *vals,
                       int *n, char *why, size_t len)
{
    *n = 0;
    if (is_empty(s)) {
        return true;
    }
    for (;;) {
        const char *end = NULL;
        uint64_t v = 0;

        s = skip_space(s);
        if (THEMIS_MAX_DIMS == *n) {
            snprintf(why, len, "at most %d values", THEMIS_MAX_DIMS);
            return false;
        }
        if (THEMIS_OK != parse(s, &v, &end) || NULL == end || end == s) {
            snprintf(why, len, "\"%s\" does not start with a valid %s", s, what);
            return false;
        }
        if (0 == v && parse != parse_kind) {
            snprintf(why, len, "%s values must be positive", what);
            return false;
        }
        vals[(*n)++] = v;
        s = skip_space(end);
        if ('\0' == *s) {
            return true;
        }
        if (',' != *s) {
            snprintf(why, len, "expected ',' between values at \"%s\"", s);
            return false;
        }
        ++s;
    }
}

static bool parse_algorithm(const char *s, mca_coll_themis_algorithm_t *a)
{
    for (unsigned i = 0; i < sizeof(algorithm_names) / sizeof(algorithm_names[0]); ++i) {
        if (NULL != s && 0 == strcmp(s, algorithm_names[i])) {
            *a = (mca_coll_themis_algorithm_t) i;
            return true;
        }
    }
    return false;
}

/* coll_themis_torus "RxC": sets the torus and, through it, the declared
 * shape {C, R} and biring kinds; checks that explicit coll_themis_dims and
 * coll_themis_dim_kinds agree.  Runs after those two are parsed. */
static bool parse_torus(const char *s, mca_coll_themis_config_t *cfg, char *why, size_t len)
{
    mca_coll_themis_config_t t;

    if (is_empty(s)) {
        return true;
    }
    memset(&t, 0, sizeof(t));
    if (!parse_dims(s, &t, why, len)) {
        return false;
    }
    if (2 != t.ndims || t.dims[0] < 2 || t.dims[1] < 2) {
        snprintf(why, len, "want ROWSxCOLS with both sizes >= 2, e.g. 4x3");
        return false;
    }
    if (0 != cfg->ndims
        && (2 != cfg->ndims || cfg->dims[0] != t.dims[1] || cfg->dims[1] != t.dims[0])) {
        snprintf(why, len,
                 "a %ux%u torus has the shape coll_themis_dims=%ux%u (rows of %u consecutive "
                 "ranks), but coll_themis_dims is \"%s\"",
                 t.dims[0], t.dims[1], t.dims[1], t.dims[0], t.dims[1],
                 mca_coll_themis_component.dims_param);
        return false;
    }
    for (int i = 0; i < cfg->nkinds; ++i) {
        if (THEMIS_DIM_BIRING != cfg->kinds[i]) {
            snprintf(why, len,
                     "torus links go both ways (kind biring), but coll_themis_dim_kinds is "
                     "\"%s\"", mca_coll_themis_component.kinds_param);
            return false;
        }
    }
    cfg->torus_rows = t.dims[0];
    cfg->torus_cols = t.dims[1];
    cfg->ndims = 2;
    cfg->dims[0] = cfg->torus_cols;
    cfg->dims[1] = cfg->torus_rows;
    if (0 == cfg->nkinds) {
        cfg->nkinds = 1;
        cfg->kinds[0] = THEMIS_DIM_BIRING;
    }
    return true;
}

static uint64_t config_hash(const mca_coll_themis_config_t *cfg)
{
    uint64_t h = MCA_COLL_THEMIS_FNV_OFFSET;

    h = mca_coll_themis_hash_u64(h, 2);   /* layout version of this hash */
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->ndims);
    for (int i = 0; i < cfg->ndims; ++i) {
        h = mca_coll_themis_hash_u64(h, cfg->dims[i]);
    }
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->nbw);
    for (int i = 0; i < cfg->nbw; ++i) {
        h = mca_coll_themis_hash_u64(h, cfg->bw_bps[i]);
    }
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->nlat);
    for (int i = 0; i < cfg->nlat; ++i) {
        h = mca_coll_themis_hash_u64(h, cfg->lat_ps[i]);
    }
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->nkinds);
    for (int i = 0; i < cfg->nkinds; ++i) {
        h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->kinds[i]);
    }
    h = mca_coll_themis_hash_u64(h, cfg->chunks);
    h = mca_coll_themis_hash_u64(h, cfg->min_chunk_bytes);
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->scheduler);
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->order);
    h = mca_coll_themis_hash_u64(h, cfg->inflight);
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->min_bytes);
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->algorithm);
    h = mca_coll_themis_hash_u64(h, cfg->probe ? 1 : 0);
    h = mca_coll_themis_hash_u64(h, cfg->direct_max);
    h = mca_coll_themis_hash_u64(h, cfg->torus_rows);
    h = mca_coll_themis_hash_u64(h, cfg->torus_cols);
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->rs_algorithm);
    h = mca_coll_themis_hash_u64(h, (uint64_t) cfg->ag_algorithm);
    return h;
}

bool mca_coll_themis_params_parse(void)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    mca_coll_themis_config_t *cfg = &c->config;
    uint64_t vals[THEMIS_MAX_DIMS];
    char why[200];
    bool ok = true;
    int n;

    memset(cfg, 0, sizeof(*cfg));
    c->config_errors[0] = '\0';
    c->config_reported = false;

    if (!parse_dims(c->dims_param, cfg, why, sizeof(why))) {
        report("coll_themis_dims", c->dims_param, why);
        ok = false;
    }

    if (parse_list(c->bandwidths_param, parse_bw, "bandwidth (e.g. 100Gb)", vals, &n, why,
                   sizeof(why))) {
        cfg->nbw = n;
        memcpy(cfg->bw_bps, vals, sizeof(uint64_t) * (size_t) n);
    } else {
        report("coll_themis_dim_bandwidths", c->bandwidths_param, why);
        ok = false;
    }

    if (parse_list(c->latencies_param, parse_lat, "latency (e.g. 700ns)", vals, &n, why,
                   sizeof(why))) {
        cfg->nlat = n;
        for (int i = 0; i < n; ++i) {
            cfg->lat_ps[i] = vals[i];
        }
    } else {
        report("coll_themis_dim_latencies", c->latencies_param, why);
        ok = false;
    }

    if (parse_list(c->kinds_param, parse_kind, "kind (ring, biring, fc, sw)", vals, &n, why,
                   sizeof(why))) {
        cfg->nkinds = n;
        for (int i = 0; i < n; ++i) {
            cfg->kinds[i] = (themis_dim_kind_t) vals[i];
        }
    } else {
        report("coll_themis_dim_kinds", c->kinds_param, why);
        ok = false;
    }

    if (ok && !parse_torus(c->torus_param, cfg, why, sizeof(why))) {
        report("coll_themis_torus", c->torus_param, why);
        ok = false;
    }

    /* With a declared shape the lists can be checked now. */
    if (ok && 0 < cfg->ndims) {
        const char *bad = NULL, *value = NULL;
        if (cfg->nbw > 1 && cfg->nbw != cfg->ndims) {
            bad = "coll_themis_dim_bandwidths";
            value = c->bandwidths_param;
        } else if (cfg->nlat > 1 && cfg->nlat != cfg->ndims) {
            bad = "coll_themis_dim_latencies";
            value = c->latencies_param;
        } else if (cfg->nkinds > 1 && cfg->nkinds != cfg->ndims) {
            bad = "coll_themis_dim_kinds";
            value = c->kinds_param;
        }
        if (NULL != bad) {
            snprintf(why, sizeof(why),
                     "coll_themis_dims has %d dimensions: give one value per dimension or "
                     "one for all", cfg->ndims);
            report(bad, value, why);
            ok = false;
        }
    }

    if (c->chunks_param < 1 || c->chunks_param > THEMIS_PARAM_MAX_CHUNKS) {
        snprintf(why, sizeof(why), "must be between 1 and %d", THEMIS_PARAM_MAX_CHUNKS);
        report_int("coll_themis_chunks", c->chunks_param, why);
        ok = false;
    } else {
        cfg->chunks = (uint32_t) c->chunks_param;
    }

    if (NULL == c->scheduler_param
        || THEMIS_OK != themis_sched_kind_parse(c->scheduler_param, &cfg->scheduler)) {
        report("coll_themis_scheduler", c->scheduler_param, "must be themis or baseline");
        ok = false;
    }
    if (NULL == c->intra_order_param
        || THEMIS_OK != themis_order_policy_parse(c->intra_order_param, &cfg->order)) {
        report("coll_themis_intra_order", c->intra_order_param, "must be scf or fifo");
        ok = false;
    }

    if (c->inflight_param < 1 || c->inflight_param > THEMIS_PARAM_MAX_INFLIGHT) {
        snprintf(why, sizeof(why), "must be between 1 and %d", THEMIS_PARAM_MAX_INFLIGHT);
        report_int("coll_themis_chunks_in_flight", c->inflight_param, why);
        ok = false;
    } else {
        cfg->inflight = (uint32_t) c->inflight_param;
    }

    if (c->min_bytes_param < -1) {
        char text[24];
        snprintf(text, sizeof(text), "%ld", c->min_bytes_param);
        report("coll_themis_min_bytes", text, "must be -1 (automatic) or a size in bytes");
        ok = false;
    } else {
        cfg->min_bytes = (int64_t) c->min_bytes_param;
    }
    cfg->min_chunk_bytes = (uint64_t) c->min_chunk_bytes_param;

    if (!parse_algorithm(c->algorithm_param, &cfg->algorithm)) {
        report("coll_themis_allreduce_algorithm", c->algorithm_param,
               "must be auto, themis, rings or torus2d");
        ok = false;
    }
    if (!parse_algorithm(c->rs_algorithm_param, &cfg->rs_algorithm)) {
        report("coll_themis_reduce_scatter_algorithm", c->rs_algorithm_param,
               "must be auto, themis, rings or torus2d");
        ok = false;
    }
    if (!parse_algorithm(c->ag_algorithm_param, &cfg->ag_algorithm)) {
        report("coll_themis_allgather_algorithm", c->ag_algorithm_param,
               "must be auto, themis, rings or torus2d");
        ok = false;
    }

    cfg->probe = c->probe_param;

    if (c->direct_max_param < 0) {
        report_int("coll_themis_direct_max", c->direct_max_param, "must not be negative");
        ok = false;
    } else {
        cfg->direct_max = (uint32_t) c->direct_max_param;
    }

    c->config_hash = config_hash(cfg);
    if (ok) {
        char torus[48] = "none";
        if (0 != cfg->torus_rows) {
            snprintf(torus, sizeof(torus), "%u rows x %u cols", cfg->torus_rows,
                     cfg->torus_cols);
        }
        opal_output_verbose(1, c->output,
                            "coll:themis: algorithms: allreduce %s, reduce_scatter %s, "
                            "allgather %s; torus %s",
                            mca_coll_themis_algorithm_name(cfg->algorithm),
                            mca_coll_themis_algorithm_name(cfg->rs_algorithm),
                            mca_coll_themis_algorithm_name(cfg->ag_algorithm), torus);
    }
    return ok;
}

void mca_coll_themis_params_report(void)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;

    if (c->config_ok || c->config_reported) {
        return;
    }
    c->config_reported = true;
    mca_coll_themis_show_help("bad-param", opal_process_info.nodename, c->config_errors);
}
