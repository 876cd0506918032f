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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "coll_themis.h"
#include "msccl.h"

/* Defaults.  min_bytes and min_chunk_bytes are automatic (-1 and 0): the
 * module resolves them per communicator from where its ranks are. */
#define THEMIS_DEFAULT_PRIORITY 40
#define THEMIS_DEFAULT_MIN_BYTES (-1)
#define THEMIS_DEFAULT_DIRECT_MAX 8
#define THEMIS_DEFAULT_SCRATCH_MAX ((size_t) 256 << 20)
#define THEMIS_PARAM_MAX_CHUNKS 4096

const char *mca_coll_themis_algorithm_name(int index)
{
    const themis_algorithm_t *a = themis_algorithm_get(index);
    return THEMIS_ALGO_AUTO == index ? "auto" : NULL == a ? "?" : a->name;
}

/* One parameter of coll/themis: no enumerator, no flags; storage holds the
 * default before and the value after. */
static void register_var(const mca_base_component_t *comp, const char *name, const char *desc,
                         mca_base_var_type_t type, mca_base_var_info_lvl_t level,
                         mca_base_var_scope_t scope, void *storage)
{
    (void) mca_base_component_var_register(comp, name, desc, type, NULL, 0, 0, level, scope,
                                           storage);
}

/* "auto, themis, rings or torus2d": the values coll_themis_<coll>_algorithm
 * takes, from the algorithm table. */
static void algorithm_values(themis_coll_t coll, char *buf, size_t len)
{
    int last = -1;
    for (int i = 0; i < themis_nalgorithms(); ++i) {
        if (themis_algorithm_serves(i, coll)) {
            last = i;
        }
    }
    snprintf(buf, len, "auto");
    for (int i = 0; i <= last; ++i) {
        if (themis_algorithm_serves(i, coll)) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", i == last ? " or " : ", ",
                     themis_algorithm_get(i)->name);
        }
    }
}

/* coll_themis_<coll>_algorithm, its text from the algorithm table. */
static void register_algorithm_param(const mca_base_component_t *comp, themis_coll_t coll)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    char name[64], desc[2048], values[256];
    size_t used;

    algorithm_values(coll, values, sizeof(values));
    snprintf(name, sizeof(name), "%s_algorithm", themis_coll_name(coll));
    used = (size_t) snprintf(desc, sizeof(desc),
                             "Algorithm of MPI_%s%s: %s. auto: the least predicted time "
                             "(cost model, logged at coll_themis_verbose 10) among those "
                             "that run on the communicator's shape; Themis alone needs no "
                             "prediction.",
                             themis_coll_name(coll),
                             THEMIS_COLL_REDUCE_SCATTER == coll ? " and MPI_Reduce_scatter_block"
                                                                : "",
                             values);
    for (int i = 0; i < themis_nalgorithms() && used < sizeof(desc); ++i) {
        const themis_algorithm_t *a = themis_algorithm_get(i);
        if (!themis_algorithm_serves(i, coll)) {
            continue;
        }
        used += (size_t) snprintf(desc + used, sizeof(desc) - used, " %s: %s%s%s.", a->name,
                                  a->summary, NULL == a->substitute ? "" : "; where it cannot "
                                  "run, ", NULL == a->substitute ? "" : a->substitute);
    }
    if (used < sizeof(desc)) {
        snprintf(desc + used, sizeof(desc) - used,
                 " A substitution is reported once and counted in "
                 "coll_themis_%s_substitutions.", themis_coll_name(coll));
    }
    c->algorithm_param[coll] = "auto";
    register_var(comp, name, desc, MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
                 &c->algorithm_param[coll]);
}

/* coll_themis_<coll>_schedule. */
static void register_schedule_param(const mca_base_component_t *comp, themis_coll_t coll)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    char name[64], desc[640];

    snprintf(name, sizeof(name), "%s_schedule", themis_coll_name(coll));
    snprintf(desc, sizeof(desc),
             "MSCCL-XML file (as MSCCL, TACCL and TE-CCL write them) whose schedule runs "
             "MPI_%s%s: the `schedule` algorithm, which coll_themis_%s_algorithm=auto then "
             "takes. Every rank must read the same schedule (its hash is part of the setup "
             "agreement). A file that cannot run (malformed, a race or cycle, a step that "
             "reads what nobody wrote) or a call it does not fit (another number of ranks, "
             "another collective) is reported and the call goes to the next component, "
             "counted in coll_themis_%s_fallbacks. Any count runs (chunks of uneven size). "
             "Check a file with `themis-plan msccl check FILE`. Empty: none.",
             themis_coll_name(coll),
             THEMIS_COLL_REDUCE_SCATTER == coll ? " and MPI_Reduce_scatter_block" : "",
             themis_coll_name(coll), themis_coll_name(coll));
    c->schedule_param[coll] = "";
    register_var(comp, name, desc, MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
                 &c->schedule_param[coll]);
}

int mca_coll_themis_params_register(void)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    const mca_base_component_t *comp = &c->super.collm_version;

    c->priority = THEMIS_DEFAULT_PRIORITY;
    register_var(
        comp, "priority",
        "Priority of coll/themis (it handles allreduce, reduce_scatter, reduce_scatter_block "
        "and allgather; anything else, and every call it declines, goes to the next "
        "component). A negative value disables it.",
        MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY, &c->priority);

    c->dims_param = "";
    register_var(
        comp, "dims",
        "Shape imposed on consecutive ranks, innermost dimension first, e.g. \"4x2\" or "
        "\"2x2x2\": it applies to communicators of its size (the product). Several, one per "
        "size, as SIZE:SHAPE, e.g. \"8:4x2,4:2x2\" (a rules file's \"shapes\" come first). "
        "Communicators of a size without a shape get an automatic one (said once per "
        "process). Empty: automatic, from the ranks sharing a NUMA domain/socket (when "
        "bound), a node, and the network.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->dims_param);

    c->rules_param = "";
    register_var(
        comp, "rules_filename",
        "JSON rules file (as coll_tuned_dynamic_rules_filename): rules map a collective, a "
        "communicator size range and a message size range to an algorithm, chunks, chunks "
        "in flight and min_bytes, and \"shapes\" give dims per communicator size; see "
        "docs/coll_themis.md and `themis-plan rules`. Every rank must read the same content "
        "(its hash is part of the setup agreement); a malformed file is reported with its "
        "line and coll/themis steps aside. Empty: the parameters alone.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->rules_param);

    c->bandwidths_param = "";
    register_var(
        comp, "dim_bandwidths",
        "Per-rank bandwidth of each dimension, innermost first, comma separated, with units "
        "b|Kb|Mb|Gb|Tb (bit/s) or mbit/gbit, e.g. \"400Gb,100Gb\". One value applies to all "
        "dimensions. Empty: defaults per level (socket 200Gb, node 100Gb, network 100Gb "
        "shared by the ranks of a node) or the probe.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->bandwidths_param);

    c->latencies_param = "";
    register_var(
        comp, "dim_latencies",
        "Step latency of each dimension, innermost first, comma separated, with units "
        "ps|ns|us|ms|s, e.g. \"700ns,1700ns\". One value applies to all dimensions. Empty: "
        "defaults per level (socket 300ns, node 600ns, network 2us) or the probe.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->latencies_param);

    c->kinds_param = "";
    register_var(
        comp, "dim_kinds",
        "Kind of each dimension, innermost first, comma separated: ring, biring, fc or sw. "
        "ring runs the ring algorithm, biring a ring in each direction on half of the "
        "data, fc the direct one, sw the direct one up to "
        "coll_themis_direct_max peers and the ring above. One value applies to all "
        "dimensions. Empty: sw.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->kinds_param);

    c->chunks_param = THEMIS_DEFAULT_CHUNKS;
    register_var(
        comp, "chunks",
        "Most chunks per collective (1..4096). More chunks balance the dimensions better and "
        "shorten the pipeline's fill and drain; each chunk costs messages. A call uses fewer: "
        "each chunk at least coll_themis_min_chunk_bytes, and large enough that its smallest "
        "message (chunk / ranks) takes one step latency on every dimension (latency model).",
        MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->chunks_param);

    c->scheduler_param = "themis";
    register_var(
        comp, "scheduler",
        "Inter-dimension scheduler: themis (greedy dimension load balancing) or baseline "
        "(every chunk reduce-scatters over dim 0..N-1 and gathers back).",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->scheduler_param);

    c->intra_order_param = "scf";
    register_var(
        comp, "intra_order",
        "Intra-dimension order of chunk operations: scf (smallest chunk first) or fifo.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->intra_order_param);

    c->latency_model_param = "overlapped";
    register_var(
        comp, "latency_model",
        "How the planners' simulator charges a step's fixed delay (latency): overlapped "
        "(it delays the data but holds no link; other phases use the dimension meanwhile; "
        "the Dim Load Tracker counts bandwidth terms, as themis.txt Sec. 4.4) or serialized "
        "(each phase holds its dimension for its steps' latency too, with the phase load "
        "tracker: the model before 2026-11-24). It shapes Themis' dimension orders and "
        "intra-dimension order and the costs auto compares.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->latency_model_param);

    c->chunks_in_flight_param = THEMIS_DEFAULT_CHUNKS_IN_FLIGHT;
    register_var(
        comp, "chunks_in_flight",
        "Chunk operations each dimension runs at once (1..32).",
        MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->chunks_in_flight_param);

    c->nbc_chunks_in_flight_param = MCA_COLL_THEMIS_NBC_CHUNKS_IN_FLIGHT;
    register_var(
        comp, "nbc_chunks_in_flight",
        "Chunk operations each dimension runs at once in nonblocking and persistent calls, "
        "when more than coll_themis_chunks_in_flight: one number for every collective, or "
        "per collective as \"allreduce:N,reduce_scatter:N,allgather:N\" (reduce_scatter "
        "covers reduce_scatter_block; a collective not named keeps its default). N is "
        "0..1024, 0: as blocking calls. Such a call moves only while the application is "
        "inside MPI (e.g. its MPI_Test calls): between two of them only what was posted can "
        "move, so it keeps more of its schedule in flight than a blocking call, which "
        "advances continuously. Costs one receive temporary per operation in flight. An "
        "invalid value is reported and the default used. Part of the setup agreement.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->nbc_chunks_in_flight_param);

    c->min_chunk_bytes_param = 0;
    register_var(
        comp, "min_chunk_bytes",
        "Smallest chunk (bytes of the full vector), on top of the latency model's floor (see "
        "coll_themis_chunks). 0 (default): automatic, 16 KiB when the communicator spans "
        "nodes, 2 MiB when all its ranks share one node (shared-memory transfers cost CPU "
        "copies per message; measured in benchmarks/README.md).",
        MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->min_chunk_bytes_param);

    c->scratch_max_param = THEMIS_DEFAULT_SCRATCH_MAX;
    register_var(
        comp, "scratch_max",
        "Most engine scratch (bytes) a call may use. Reduce-scatter and allgather programs "
        "work in scratch about as large as the whole vector; a larger call runs as "
        "consecutive segments that fit, so the scratch a communicator keeps between calls "
        "stays below this (plus receive temporaries of a few chunks) and a large call "
        "neither holds its size in memory afterwards nor allocates it anew each time "
        "(cost measured in benchmarks/README.md). At least 1 MiB; 0: unbounded (one "
        "segment). Must be equal on all ranks.",
        MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->scratch_max_param);

    c->min_bytes_param = THEMIS_DEFAULT_MIN_BYTES;
    register_var(
        comp, "min_bytes",
        "Smallest message (bytes of the full vector) run by coll/themis; smaller calls go to "
        "the next component. -1 (default): automatic, 64 KiB when the communicator spans "
        "nodes, 32 MiB when all its ranks share one node (there every dimension shares one "
        "memory system, so Themis has no link to balance and coll/tuned's single algorithm "
        "is as fast below that size; measured in benchmarks/README.md). 0: every size.",
        MCA_BASE_VAR_TYPE_LONG, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->min_bytes_param);

    for (int k = 0; k < MCA_COLL_THEMIS_NALGO_COLLS; ++k) {
        register_algorithm_param(comp, (themis_coll_t) k);
        register_schedule_param(comp, (themis_coll_t) k);
    }

    c->graph_param = "";
    register_var(
        comp, "graph",
        "The network as a graph of the communicator's ranks (and hosts, NICs, switches), "
        "per-link bandwidth and latency: a spec (ring:8, torus2d:4x4, "
        "mesh2d_hetero:8x5,bw=100Gb,bw2=50Gb, p3.16xlarge, dims:TOPOLOGY, cluster:4x4,nics=2, "
        "leafspine:8x2,leaves=4, ...) or a file of SRC DST BW LAT lines and node declarations; "
        "see `themis-plan graph` and docs/cluster.md. On communicators of its rank count, auto "
        "then ranks every algorithm (a coll_themis_<coll>_schedule too) by the link-level "
        "simulator on this graph (logged at coll_themis_verbose 10); a graph placing its ranks "
        "on hosts gives them dims (ranks per host x hosts) where none are declared, and declared "
        "dims that do not cut along its hosts are warned about. Part of the setup agreement. "
        "Empty: none.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->graph_param);

    c->host_map_param = "";
    register_var(
        comp, "host_map",
        "For testing on one machine: the host of every MPI_COMM_WORLD rank, in rank order "
        "(\"0,0,1,1\": ranks 0 and 1 on host 0, 2 and 3 on host 1), used instead of the "
        "runtime's locality wherever coll/themis asks which ranks share a node: the automatic "
        "dims, the levels of declared ones, and the placement of coll_themis_graph's ranks on "
        "its hosts. Ranks past the list's end are a host each. A real run leaves it empty and "
        "uses locality. Part of the setup agreement. Empty: none.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY, &c->host_map_param);

    c->torus_param = "";
    register_var(
        comp, "torus",
        "Declares the communicator a 2-D torus of ROWSxCOLS ranks (HammingMesh), e.g. "
        "\"4x3\": rank = row * COLS + col, so a row is COLS consecutive ranks, and every rank "
        "has bidirectional links to its left/right (dimension 0) and up/down (dimension 1) "
        "neighbours, with wrap-around. The same as coll_themis_dims=COLSxROWS with "
        "coll_themis_dim_kinds=biring (either may be given too if it agrees). Both sizes >= "
        "2; communicators of another size do not use coll/themis. Empty: no torus.",
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->torus_param);

    c->verbose = 0;
    register_var(
        comp, "verbose",
        "Verbosity of coll/themis: 1 setup decisions, 10 details, 20 per call.",
        MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_LOCAL, &c->verbose);

    c->trace_param = "";
    register_var(
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
        MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_LOCAL, &c->trace_param);

    c->probe_param = false;
    register_var(
        comp, "probe",
        "Measure bandwidth and latency of every dimension once per communicator with "
        "point-to-point ping-pongs at setup (the slowest rank's values are used); "
        "explicit coll_themis_dim_bandwidths/latencies still win.",
        MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &c->probe_param);

    c->direct_max_param = THEMIS_DEFAULT_DIRECT_MAX;
    register_var(
        comp, "direct_max",
        "Switch (sw) dimensions with at most this many ranks use the direct algorithm "
        "(concurrent pairwise exchanges); larger ones use the ring.",
        MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY, &c->direct_max_param);

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

/* Adds a shape for its communicator size; one per size. */
static bool add_shape(mca_coll_themis_config_t *cfg, const uint32_t *dims, int ndims,
                      char *why, size_t len)
{
    uint64_t size = 1;
    for (int i = 0; i < ndims; ++i) {
        size *= dims[i];   /* < 2^31 each, at most 8: checked below */
        if (size > INT32_MAX) {
            snprintf(why, len, "a shape of more than %d ranks", INT32_MAX);
            return false;
        }
    }
    for (int i = 0; i < cfg->nshapes; ++i) {
        if (cfg->shapes[i].comm_size == size) {
            snprintf(why, len, "two shapes for communicators of %llu ranks",
                     (unsigned long long) size);
            return false;
        }
    }
    if (MCA_COLL_THEMIS_MAX_SHAPES == cfg->nshapes) {
        snprintf(why, len, "at most %d shapes", MCA_COLL_THEMIS_MAX_SHAPES);
        return false;
    }
    mca_coll_themis_shape_decl_t *d = &cfg->shapes[cfg->nshapes++];
    d->comm_size = size;
    d->ndims = ndims;
    memcpy(d->dims, dims, sizeof(uint32_t) * (size_t) ndims);
    return true;
}

/* coll_themis_nbc_chunks_in_flight: "N" for every collective, or
 * "COLL:N,..." (themis_coll_parse's names) over the windows already in w. */
static bool parse_nbc_window(const char *s, uint32_t *w, char *why, size_t len)
{
    bool named = NULL != strchr(s, ':');
    bool seen[THEMIS_NCOLLS] = {false};
    char item[64];

    if (is_empty(s)) {
        snprintf(why, len, "an empty value");
        return false;
    }
    while (!is_empty(s)) {
        size_t n = strcspn(s, ",");
        const char *num = item;
        themis_coll_t coll = THEMIS_COLL_ALLREDUCE;
        char *end;
        long v;

        if (n >= sizeof(item)) {
            snprintf(why, len, "an item of more than %zu characters", sizeof(item) - 1);
            return false;
        }
        memcpy(item, s, n);
        item[n] = '\0';
        if (named) {
            char *colon = strchr(item, ':');
            char *name = (char *) skip_space(item);
            if (NULL == colon) {
                snprintf(why, len, "expected COLLECTIVE:N at \"%s\"", item);
                return false;
            }
            *colon = '\0';
            for (char *e = colon; e > name && isspace((unsigned char) e[-1]); --e) {
                e[-1] = '\0';
            }
            if (THEMIS_OK != themis_coll_parse(name, &coll)) {
                snprintf(why, len, "\"%s\" is not allreduce, reduce_scatter or allgather",
                         name);
                return false;
            }
            if (seen[coll]) {
                snprintf(why, len, "%s given twice", themis_coll_name(coll));
                return false;
            }
            seen[coll] = true;
            num = colon + 1;
        } else if (',' == s[n]) {
            snprintf(why, len, "a list needs COLLECTIVE:N items");
            return false;
        }
        errno = 0;
        v = strtol(num, &end, 10);
        if (0 != errno || end == skip_space(num) || !is_empty(end) || v < 0
            || v > MCA_COLL_THEMIS_MAX_NBC_CHUNKS_IN_FLIGHT) {
            snprintf(why, len, "\"%s\" is not a number between 0 and %d", skip_space(num),
                     MCA_COLL_THEMIS_MAX_NBC_CHUNKS_IN_FLIGHT);
            return false;
        }
        for (int k = 0; k < THEMIS_NCOLLS; ++k) {
            if (!named || k == (int) coll) {
                w[k] = (uint32_t) v;
            }
        }
        s += n;
        if (',' == *s) {
            ++s;
        }
    }
    return true;
}

/* "4x2x2", or shapes per communicator size "8:4x2,4:2x2" (the size
 * prefix, when given, must be the product). */
static bool parse_dims(const char *s, mca_coll_themis_config_t *cfg, char *why, size_t len)
{
    char item[128];

    cfg->nshapes = 0;
    while (!is_empty(s)) {
        size_t n = strcspn(s, ",");
        uint32_t dims[THEMIS_MAX_DIMS];
        int ndims = 0;
        unsigned long size = 0;
        const char *shape = item;

        if (n >= sizeof(item)) {
            snprintf(why, len, "a shape of more than %zu characters", sizeof(item) - 1);
            return false;
        }
        memcpy(item, s, n);
        item[n] = '\0';
        if (NULL != strchr(item, ':')) {
            char *end;
            errno = 0;
            size = strtoul(skip_space(item), &end, 10);
            if (0 != errno || ':' != *skip_space(end) || 0 == size) {
                snprintf(why, len, "expected SIZE:SHAPE at \"%s\"", item);
                return false;
            }
            shape = skip_space(end) + 1;
        }
        if (THEMIS_OK != themis_parse_dims(shape, dims, &ndims, why, len)) {
            return false;
        }
        if (0 == ndims) {
            snprintf(why, len, "an empty shape at \"%s\"", item);
            return false;
        }
        if (!add_shape(cfg, dims, ndims, why, len)) {
            return false;
        }
        if (0 != size && cfg->shapes[cfg->nshapes - 1].comm_size != size) {
            snprintf(why, len, "\"%s\" is a shape of %llu ranks, not %lu", shape,
                     (unsigned long long) cfg->shapes[cfg->nshapes - 1].comm_size, size);
            return false;
        }
        s += n + (',' == s[n]);
    }
    return true;
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
            /* The parser's reason when there is one: a 130-digit number is
             * out of range, not "not a valid latency". */
            const char *m = parse == parse_bw    ? themis_parse_value_why(s, 1)
                          : parse == parse_lat ? themis_parse_value_why(s, 0) : NULL;
            if (NULL != m && 0 == strcmp(m, "number too large")) {
                snprintf(why, len, "\"%.32s%s\": number out of range for a %s", s,
                         strlen(s) > 32 ? "..." : "", what);
            } else if (NULL != m) {
                snprintf(why, len, "\"%.32s%s\" is not a valid %s: %s", s,
                         strlen(s) > 32 ? "..." : "", what, m);
            } else {
                snprintf(why, len, "\"%s\" does not start with a valid %s", s, what);
            }
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

static bool parse_algorithm(const char *s, themis_coll_t coll, int *index)
{
    if (NULL != s && 0 == strcmp(s, "auto")) {
        *index = THEMIS_ALGO_AUTO;
        return true;
    }
    *index = themis_algorithm_index(s);
    return *index >= 0 && themis_algorithm_serves(*index, coll);
}

/* coll_themis_torus "RxC": sets the torus and, through it, the declared
 * shape {C, R} and biring kinds; checks that explicit coll_themis_dims and
 * coll_themis_dim_kinds agree.  Runs after those two are parsed. */
static bool parse_torus(const char *s, mca_coll_themis_config_t *cfg, char *why, size_t len)
{
    uint32_t rc[THEMIS_MAX_DIMS];   /* rows, cols */
    int n = 0;

    if (is_empty(s)) {
        return true;
    }
    if (THEMIS_OK != themis_parse_dims(s, rc, &n, why, len)) {
        return false;
    }
    if (2 != n || rc[0] < 2 || rc[1] < 2) {
        snprintf(why, len, "want ROWSxCOLS with both sizes >= 2, e.g. 4x3");
        return false;
    }
    const uint32_t shape[2] = {rc[1], rc[0]};
    for (int i = 0; i < cfg->nshapes; ++i) {
        const mca_coll_themis_shape_decl_t *d = &cfg->shapes[i];
        if (d->comm_size == (uint64_t) rc[0] * rc[1]
            && (2 != d->ndims || d->dims[0] != shape[0] || d->dims[1] != shape[1])) {
            snprintf(why, len,
                     "a %ux%u torus has the shape coll_themis_dims=%ux%u (rows of %u "
                     "consecutive ranks), but coll_themis_dims is \"%s\"",
                     rc[0], rc[1], rc[1], rc[0], rc[1],
                     mca_coll_themis_component.dims_param);
            return false;
        }
    }
    for (int i = 0; i < cfg->nkinds; ++i) {
        if (THEMIS_DIM_BIRING != cfg->kinds[i]) {
            snprintf(why, len,
                     "torus links go both ways (kind biring), but coll_themis_dim_kinds is "
                     "\"%s\"", mca_coll_themis_component.kinds_param);
            return false;
        }
    }
    cfg->torus_rows = rc[0];
    cfg->torus_cols = rc[1];
    bool declared = false;
    for (int i = 0; i < cfg->nshapes; ++i) {
        declared |= cfg->shapes[i].comm_size == (uint64_t) rc[0] * rc[1];
    }
    if (!declared && !add_shape(cfg, shape, 2, why, len)) {
        return false;
    }
    if (0 == cfg->nkinds) {
        cfg->nkinds = 1;
        cfg->kinds[0] = THEMIS_DIM_BIRING;
        cfg->torus_kinds = true;
    }
    return true;
}

static void schedule_unusable(themis_coll_t coll)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    if (0 == opal_process_info.my_local_rank) {
        mca_coll_themis_show_help("schedule-unusable", themis_coll_name(coll),
                                  opal_process_info.nodename, c->schedule_param[coll],
                                  c->schedule_error[coll], themis_coll_name(coll));
    }
}

/*
 * coll_themis_<coll>_schedule: at MPI_Init only its bytes are read (a
 * regular file, bounded) and hashed for the agreement: equal bytes parse
 * alike on every rank; and its <algo> start tag is read for its ngpus
 * (themis_msccl_header, a cost that does not grow with the file).
 * Parsing and checking wait for the first call of a communicator of that
 * many ranks (mca_coll_themis_schedule_get), so a process that never runs
 * it pays nothing, and one that does pays once.  A file that cannot be
 * read is not a parameter error (the other collectives and algorithms are
 * fine): its calls fall back, and it is said once here.
 */
static void load_schedule(themis_coll_t coll, mca_coll_themis_config_t *cfg)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    char *err = c->schedule_error[coll];
    const size_t len = sizeof(c->schedule_error[coll]);
    const char *path = c->schedule_param[coll];
    themis_parse_error_t e;

    themis_xfer_free(&c->schedule[coll]);
    free(c->schedule_text[coll]);
    c->schedule_text[coll] = NULL;
    c->schedule_ngpus[coll] = 0;
    c->schedule_name[coll][0] = '\0';
    err[0] = '\0';
    cfg->schedule_set[coll] = !is_empty(path);
    if (!cfg->schedule_set[coll]) {
        return;
    }
    if (THEMIS_OK == themis_read_text_file(path, THEMIS_MSCCL_MAX_FILE, "MSCCL-XML file",
                                           &c->schedule_text[coll], &e)) {
        const size_t size = strlen(c->schedule_text[coll]);
        themis_msccl_info_t head;
        cfg->schedule_hash[coll] = themis_fnv1a(THEMIS_FNV_OFFSET, c->schedule_text[coll], size);
        if (THEMIS_OK == themis_msccl_header(c->schedule_text[coll], size, &head)) {
            c->schedule_ngpus[coll] = head.ngpus;
            snprintf(c->schedule_name[coll], sizeof(c->schedule_name[coll]), "%s", head.name);
        }
        return;
    }
    snprintf(err, len, "%s", e.message);
    cfg->schedule_hash[coll] = themis_fnv1a(themis_fnv1a(THEMIS_FNV_OFFSET, path, strlen(path)),
                                            err, strlen(err));
    schedule_unusable(coll);
}

const themis_xfer_sched_t *mca_coll_themis_schedule_get(themis_coll_t coll, int nranks,
                                                        char *why, size_t len)
{
    /* Calls on several communicators may run in several threads. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    themis_xfer_sched_t *s = &c->schedule[coll];
    char *err = c->schedule_error[coll];
    const size_t err_len = sizeof(c->schedule_error[coll]);

    why[0] = '\0';
    if (0 != c->schedule_ngpus[coll] && (uint32_t) nranks != c->schedule_ngpus[coll]) {
        /* As algo_schedule.c says it of a parsed file; nothing parsed. */
        snprintf(why, len, "schedule %s is for %u ranks, the communicator has %d",
                 c->schedule_name[coll], c->schedule_ngpus[coll], nranks);
        return NULL;
    }
    pthread_mutex_lock(&lock);
    char *text = c->schedule_text[coll];
    if (NULL != text) {
        c->schedule_text[coll] = NULL;
        themis_msccl_info_t info;
        memset(&info, 0, sizeof(info));
        themis_status_t st = themis_msccl_parse(text, strlen(text), s, &info, err, err_len);
        free(text);
        if (THEMIS_OK == st && s->coll != coll) {
            snprintf(err, err_len, "it is an %s schedule, given for %s", themis_coll_name(s->coll),
                     themis_coll_name(coll));
            st = THEMIS_ERR_INVALID;
        }
        if (THEMIS_OK == st) {
            st = themis_xfer_check(s, err, err_len);
        }
        if (THEMIS_OK != st) {
            themis_xfer_free(s);
            schedule_unusable(coll);
        } else if (0 != info.ndead && 0 == opal_process_info.my_local_rank) {
            opal_output_verbose(1, c->output, "coll:themis: %s schedule %s: %u dead transfers, "
                                "skipped (their data derives from units nobody wrote and "
                                "reaches no result)", themis_coll_name(coll),
                                c->schedule_param[coll], info.ndead);
        }
    }
    pthread_mutex_unlock(&lock);
    return 0 < s->nxfers ? s : NULL;
}

static uint64_t config_hash(const mca_coll_themis_config_t *cfg)
{
    uint64_t h = THEMIS_FNV_OFFSET;

    h = themis_fnv1a_u64(h, 2);   /* layout version of this hash */
    h = themis_fnv1a_u64(h, (uint64_t) cfg->nshapes);
    for (int k = 0; k < cfg->nshapes; ++k) {
        h = themis_fnv1a_u64(h, cfg->shapes[k].comm_size);
        h = themis_fnv1a_u64(h, (uint64_t) cfg->shapes[k].ndims);
        for (int i = 0; i < cfg->shapes[k].ndims; ++i) {
            h = themis_fnv1a_u64(h, cfg->shapes[k].dims[i]);
        }
    }
    h = themis_fnv1a_u64(h, cfg->torus_kinds);
    h = themis_fnv1a_u64(h, cfg->rules_hash);
    h = themis_fnv1a_u64(h, (uint64_t) cfg->nbw);
    for (int i = 0; i < cfg->nbw; ++i) {
        h = themis_fnv1a_u64(h, cfg->bw_bps[i]);
    }
    h = themis_fnv1a_u64(h, (uint64_t) cfg->nlat);
    for (int i = 0; i < cfg->nlat; ++i) {
        h = themis_fnv1a_u64(h, cfg->lat_ps[i]);
    }
    h = themis_fnv1a_u64(h, (uint64_t) cfg->nkinds);
    for (int i = 0; i < cfg->nkinds; ++i) {
        h = themis_fnv1a_u64(h, (uint64_t) cfg->kinds[i]);
    }
    h = themis_fnv1a_u64(h, cfg->chunks);
    h = themis_fnv1a_u64(h, cfg->min_chunk_bytes);
    h = themis_fnv1a_u64(h, (uint64_t) cfg->scheduler);
    h = themis_fnv1a_u64(h, (uint64_t) cfg->order);
    h = themis_fnv1a_u64(h, (uint64_t) cfg->latency);
    h = themis_fnv1a_u64(h, cfg->chunks_in_flight);
    for (int k = 0; k < THEMIS_NCOLLS; ++k) {
        h = themis_fnv1a_u64(h, cfg->nbc_chunks_in_flight[k]);
    }
    h = themis_fnv1a_u64(h, (uint64_t) cfg->min_bytes);
    for (int k = 0; k < MCA_COLL_THEMIS_NALGO_COLLS; ++k) {
        h = themis_fnv1a_u64(h, (uint64_t) (int64_t) cfg->algorithm[k]);
    }
    h = themis_fnv1a_u64(h, cfg->probe ? 1 : 0);
    h = themis_fnv1a_u64(h, cfg->direct_max);
    h = themis_fnv1a_u64(h, cfg->scratch_max);
    h = themis_fnv1a_u64(h, cfg->torus_rows);
    h = themis_fnv1a_u64(h, cfg->torus_cols);
    for (int k = 0; k < MCA_COLL_THEMIS_NALGO_COLLS; ++k) {
        h = themis_fnv1a_u64(h, cfg->schedule_set[k]);
        h = themis_fnv1a_u64(h, cfg->schedule_hash[k]);
    }
    h = themis_fnv1a_u64(h, cfg->graph_hash);
    h = themis_fnv1a_u64(h, cfg->host_map_hash);
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

    themis_rules_free(&c->rules);
    cfg->rules_hash = 0;
    if (!is_empty(c->rules_param)) {
        char msg[256];
        if (THEMIS_OK != themis_rules_load(c->rules_param, &c->rules, msg, sizeof(msg))) {
            report("coll_themis_rules_filename", c->rules_param, msg);
            ok = false;
        } else {
            cfg->rules_hash = c->rules.hash;
        }
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

    /* With one declared shape the lists can be checked now (with several,
     * setup checks them against each communicator's). */
    if (ok && 1 == cfg->nshapes) {
        const char *bad = NULL, *value = NULL;
        const int nd = cfg->shapes[0].ndims;
        if (cfg->nbw > 1 && cfg->nbw != nd) {
            bad = "coll_themis_dim_bandwidths";
            value = c->bandwidths_param;
        } else if (cfg->nlat > 1 && cfg->nlat != nd) {
            bad = "coll_themis_dim_latencies";
            value = c->latencies_param;
        } else if (cfg->nkinds > 1 && cfg->nkinds != nd) {
            bad = "coll_themis_dim_kinds";
            value = c->kinds_param;
        }
        if (NULL != bad) {
            snprintf(why, sizeof(why),
                     "coll_themis_dims has %d dimensions: give one value per dimension or "
                     "one for all", nd);
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
    if (NULL == c->latency_model_param
        || THEMIS_OK != themis_latency_mode_parse(c->latency_model_param, &cfg->latency)) {
        report("coll_themis_latency_model", c->latency_model_param,
               "must be overlapped or serialized");
        ok = false;
    }

    if (c->chunks_in_flight_param < 1 ||
        c->chunks_in_flight_param > (int) THEMIS_MAX_CHUNKS_IN_FLIGHT) {
        snprintf(why, sizeof(why), "must be between 1 and %u", THEMIS_MAX_CHUNKS_IN_FLIGHT);
        report_int("coll_themis_chunks_in_flight", c->chunks_in_flight_param, why);
        ok = false;
    } else {
        cfg->chunks_in_flight = (uint32_t) c->chunks_in_flight_param;
    }
    /* A bad window is no reason to step aside: every rank given one runs
     * the default (equal on every rank, so still agreed), said once per
     * node. */
    if (!parse_nbc_window(MCA_COLL_THEMIS_NBC_CHUNKS_IN_FLIGHT, cfg->nbc_chunks_in_flight, why,
                          sizeof(why))) {
        report("default coll_themis_nbc_chunks_in_flight", MCA_COLL_THEMIS_NBC_CHUNKS_IN_FLIGHT,
               why);
        ok = false;
    } else if (NULL != c->nbc_chunks_in_flight_param
               && 0 != strcmp(c->nbc_chunks_in_flight_param,
                              MCA_COLL_THEMIS_NBC_CHUNKS_IN_FLIGHT)) {
        uint32_t w[THEMIS_NCOLLS];
        memcpy(w, cfg->nbc_chunks_in_flight, sizeof(w));
        if (parse_nbc_window(c->nbc_chunks_in_flight_param, w, why, sizeof(why))) {
            memcpy(cfg->nbc_chunks_in_flight, w, sizeof(w));
        } else if (0 == opal_process_info.my_local_rank) {
            mca_coll_themis_show_help("bad-nbc-window", opal_process_info.nodename,
                                      c->nbc_chunks_in_flight_param, why,
                                      MCA_COLL_THEMIS_NBC_CHUNKS_IN_FLIGHT);
        }
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

    for (int k = 0; k < MCA_COLL_THEMIS_NALGO_COLLS; ++k) {
        if (!parse_algorithm(c->algorithm_param[k], (themis_coll_t) k, &cfg->algorithm[k])) {
            char param[64], values[256], why[272];
            snprintf(param, sizeof(param), "coll_themis_%s_algorithm",
                     themis_coll_name((themis_coll_t) k));
            algorithm_values((themis_coll_t) k, values, sizeof(values));
            snprintf(why, sizeof(why), "must be %s", values);
            report(param, c->algorithm_param[k], why);
            ok = false;
        }
    }

    cfg->probe = c->probe_param;

    for (int k = 0; k < MCA_COLL_THEMIS_NALGO_COLLS; ++k) {
        load_schedule((themis_coll_t) k, cfg);
    }

    themis_graph_free(&c->graph);
    cfg->graph_hash = 0;
    if (!is_empty(c->graph_param)) {
        themis_graph_opts_t go;
        themis_parse_error_t e;
        themis_graph_opts_default(&go);
        if (THEMIS_OK != themis_graph_load(c->graph_param, &go, &c->graph, &e)) {
            snprintf(why, sizeof(why), "%d:%d: %s", e.line, e.column, e.message);
            report("coll_themis_graph", c->graph_param, why);
            ok = false;
        } else {
            cfg->graph_hash = themis_graph_hash(&c->graph);
        }
    }

    if (!mca_coll_themis_host_map_parse(c->host_map_param, &cfg->host_map_hash, why,
                                        sizeof(why))) {
        report("coll_themis_host_map", c->host_map_param, why);
        ok = false;
    }

    if (0 != c->scratch_max_param && c->scratch_max_param < ((size_t) 1 << 20)) {
        char text[24];
        snprintf(text, sizeof(text), "%zu", c->scratch_max_param);
        report("coll_themis_scratch_max", text, "must be 0 (unbounded) or at least 1048576");
        ok = false;
    } else {
        cfg->scratch_max = (uint64_t) c->scratch_max_param;
    }

    if (c->direct_max_param < 0) {
        report_int("coll_themis_direct_max", c->direct_max_param, "must not be negative");
        ok = false;
    } else {
        cfg->direct_max = (uint32_t) c->direct_max_param;
    }

    c->config_hash = config_hash(cfg);
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
