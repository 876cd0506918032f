/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis-plan timeline --trace: reads and checks a call traced by
 * coll/themis and draws it beside the simulator's prediction.
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
#include "defaults.h"
#include "topology.h"
#include "themis_plan_cmds.h"
#include "themis_plan_opts.h"

static const char *prog = "themis-plan";

/* ------------------------------------------------------------ timeline --trace */

/*
 * A call recorded by coll/themis (coll_themis_trace; the format is in
 * docs/coll_themis.md), drawn as it ran beside the simulator's prediction
 * for the same topology, schedule settings and chunks.  Every field is
 * checked before use: a malformed trace is reported with its line number
 * and exit status 2.
 */

#define TRACE_FORMAT "coll_themis_trace"
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
                           && version > THEMIS_TRACE_VERSION) {
                    rc = trace_error(t, "trace format version %" PRIu64 " (this %s reads up to "
                                     "%d)", version, prog, THEMIS_TRACE_VERSION);
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
        themis_plan_gp_quote(f, dat);
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
            return themis_plan_status_exit(st);
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
            return themis_plan_status_exit(st);
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

int themis_plan_timeline_trace(const cli_opts_t *o)
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
    unit = themis_plan_time_unit(tmax, &div);
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
    if (NULL == (f = themis_plan_gp_script(f, dat, gp))) {
        goto out;
    }
    themis_topology_format(&t.topo, spec, sizeof(spec));
    themis_plan_format_size(t.bytes, sz, sizeof(sz));
    {
        const uint32_t rows = t.nqueues > nrows_pred ? t.nqueues : nrows_pred;
        char title[1400];
        size_t used;

        fprintf(f, "set terminal pngcairo noenhanced size 1100,%u font 'sans,10'\n",
                200 + 2 * (80 + 30 * (rows < 64 ? rows : 64)));
        fprintf(f, "set output ");
        themis_plan_gp_quote(f, o->png_path);
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
                                          themis_plan_pct(pred.sim.stats.busy[k], pred.total));
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
    int gp_rc = themis_plan_gp_finish(f, gp, dir);
    if (0 != gp_rc) {
        have_dir = 2 != gp_rc; /* 2: the input kept */
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
                printf(" d%d %5.1f%%", k, themis_plan_pct(pred.sim.stats.busy[k], pred.total));
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
