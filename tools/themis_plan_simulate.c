/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * themis-plan simulate and timeline: the simulator's subcommands (the
 * baseline / Themis+FIFO / Themis+SCF / Ideal table, and the per-dimension
 * activity PNG; timeline --trace is themis_plan_timeline.c).
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

/* ------------------------------------------------------------ simulate */

static void about_simulate(FILE *f)
{
    fprintf(f,
        "  Simulates Baseline, Themis+FIFO and Themis+SCF and computes Ideal (the LP lower\n"
        "  bound of any dimension-by-dimension schedule) and Baseline-LP (the same bound\n"
        "  for the baseline order alone) for every size and chunk count.  --dims as in\n"
        "  schedule --help.  --bytes and --chunks take lists (sizes default to\n"
        "  100MB,250MB,500MB,1GB, chunks to coll/themis' as schedule --help says);\n"
        "  --min-chunk makes --chunks a maximum, as coll/themis does.  --latency\n"
        "  overlapped (default: a step's latency delays its data but holds no slot) or\n"
        "  serialized (it holds the slot); --load: the Dim Load Tracker, bandwidth\n"
        "  (default, Sec. 4.4) or phase (fixed delay in every phase's term);\n"
        "  --chunks-in-flight default %u.\n"
        "Columns: time, speedup over Baseline, bandwidth-weighted average utilization,\n"
        "per-dimension busy time (>= 1 phase active) and the schedule hash.\n",
        THEMIS_DEFAULT_CHUNKS_IN_FLIGHT);
}

static const themis_plan_cmd_spec_t simulate_cmd = {
    .name = "simulate", .synopsis = "(--topo SPEC | --topo-file FILE | --dims SHAPE)",
    .about_fn = about_simulate, .lists = "bytes count chunks"};

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
        st = themis_plan_simulate_one(o, bytes, nchunks, methods[m].kind, methods[m].policy, 0,
                                      &sched, &res);
        if (THEMIS_OK != st) {
            return themis_plan_status_exit(st);
        }
        memset(&rows[m], 0, sizeof(rows[m]));
        rows[m].have_time = 1;
        rows[m].time = res.stats.total_time;
        rows[m].util_pct = res.stats.avg_util_ppm / 1e4;
        for (int k = 0; k < o->topo.ndims; k++) {
            rows[m].busy_pct[k] = themis_plan_pct(res.stats.busy[k], res.stats.total_time);
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
        return themis_plan_status_exit(st);
    }
    rows[NMETHODS].have_time = 1;
    rows[NMETHODS].time = bound.time;
    rows[NMETHODS].util_pct = themis_plan_bound_util_pct(&o->topo, &bound);
    /* The baseline's bytes at its own bound: as Baseline sends them. */
    rows[NMETHODS + 1].have_time = 1;
    rows[NMETHODS + 1].time = bound.baseline_time;
    rows[NMETHODS + 1].util_pct =
        0 == bound.baseline_time ? 0.0
                                 : rows[0].util_pct * (double) rows[0].time / (double) bound.baseline_time;
    return 0;
}

int themis_plan_cmd_simulate(int argc, char **argv)
{
    cli_opts_t o;
    sim_row_t rows[NROWS];
    int rc;

    if (themis_plan_parse_options(&simulate_cmd, argc, argv, &o, &rc)) {
        return rc;
    }
    if (0 != (rc = themis_plan_need_topology(&o, "simulate"))) {
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
        themis_plan_print_topology_header(stdout, &o);
        printf("collective: %s, chunks_in_flight %u\n", themis_coll_name(o.coll), o.chunks_in_flight);
    }
    for (int b = 0; b < o.nbytes; b++) {
        for (int c = 0; c < o.nchunks; c++) {
            /* With --min-chunk, the count coll/themis would use. */
            const uint32_t nch = themis_plan_chunks_for(&o, o.chunks[c], o.bytes[b]);
            char sz[32];
            double div;
            const char *unit;

            rc = simulate_point(&o, o.bytes[b], nch, rows);
            if (0 != rc) {
                return rc;
            }
            themis_plan_format_size(o.bytes[b], sz, sizeof(sz));
            unit = themis_plan_time_unit(rows[0].time, &div);
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

static void about_timeline(FILE *f)
{
    fprintf(f,
        "  Per-dimension activity over time (a dimension is active while at least one\n"
        "  chunk phase runs on it) for Baseline, Themis+FIFO and Themis+SCF, stacked as in\n"
        "  Fig. 10 of themis.txt.  Needs gnuplot (%s).  --dims as in schedule --help;\n"
        "  --bytes default 1GB; --chunks default at most %u, as coll/themis (schedule\n"
        "  --help); --chunks-in-flight default %u.\n"
        "With --trace, a call recorded by coll/themis (MCA parameter coll_themis_trace,\n"
        "one file per process): what ran, one bar per engine operation on its queue\n"
        "(dimension), above the simulator's prediction for the same topology, size,\n"
        "chunks and settings, on the same time axis; prints measured and predicted\n"
        "times and busy fractions.  The trace gives everything else; --call N: the\n"
        "N-th call record of the file, from 0 (default 0).\n",
        THEMIS_GNUPLOT, THEMIS_DEFAULT_CHUNKS, THEMIS_DEFAULT_CHUNKS_IN_FLIGHT);
}

static const themis_plan_cmd_spec_t timeline_cmd = {
    .name = "timeline",
    .synopsis = "(--topo SPEC | --topo-file FILE | --dims SHAPE | --trace FILE) --png OUT.png",
    .about_fn = about_timeline};

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
void themis_plan_gp_quote(FILE *f, const char *s)
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

FILE *themis_plan_gp_script(FILE *data, const char *dat, const char *gp)
{
    FILE *f;
    if (0 != fclose(data)) {
        fprintf(stderr, "%s: writing %s failed\n", prog, dat);
        return NULL;
    }
    if (NULL == (f = fopen(gp, "w"))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, gp, strerror(errno));
    }
    return f;
}

int themis_plan_gp_finish(FILE *script, const char *gp, const char *dir)
{
    if (0 != fclose(script)) {
        fprintf(stderr, "%s: writing %s failed\n", prog, gp);
        return 1;
    }
    if (0 != themis_plan_run_gnuplot(gp)) {
        fprintf(stderr, "%s: gnuplot input kept in %s\n", prog, dir);
        return 2;
    }
    return 0;
}

int themis_plan_run_gnuplot(const char *script)
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

int themis_plan_cmd_timeline(int argc, char **argv)
{
    cli_opts_t o;
    themis_schedule_t sched[NMETHODS];
    themis_sim_result_t res[NMETHODS];
    char dir[] = "/tmp/themis-plan-XXXXXX";
    char dat[64], gp[64], sz[32];
    themis_time_t tmax = 0;
    uint64_t bytes;
    FILE *f;
    int rc, nplanned = 0;
    double div;
    const char *unit;

    if (themis_plan_parse_options(&timeline_cmd, argc, argv, &o, &rc)) {
        return rc;
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
        int others = 0;
        for (int i = 0; i < TPO_N; i++) {
            others |= o.given[i] && TPO_TRACE != i && TPO_CALL != i && TPO_PNG != i;
        }
        if (others) {
            fprintf(stderr, "%s timeline: with --trace only --call and --png apply (the trace "
                    "gives the topology and the settings)\n", prog);
            return EXIT_USAGE;
        }
        return themis_plan_timeline_trace(&o);
    }
    if (THEMIS_PLAN_GIVEN(&o, TPO_CALL)) {
        fprintf(stderr, "%s timeline: --call needs --trace FILE\n", prog);
        return EXIT_USAGE;
    }
    if (0 != (rc = themis_plan_need_topology(&o, "timeline")) ||
        0 != (rc = themis_plan_need_single(&o, "timeline"))) {
        return rc;
    }
    bytes = o.nbytes > 0 ? o.bytes[0] : 1000000000ull;

    for (int m = 0; m < NMETHODS; m++) {
        themis_status_t st =
            themis_plan_simulate_one(&o, bytes, themis_plan_chunks_for(&o, o.chunks[0], bytes),
                                     methods[m].kind, methods[m].policy, 1, &sched[m], &res[m]);
        if (THEMIS_OK != st) {
            rc = themis_plan_status_exit(st);
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
    unit = themis_plan_time_unit(tmax, &div);

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
    if (NULL == (f = themis_plan_gp_script(f, dat, gp))) {
        goto cleanup;
    }
    themis_plan_format_size(bytes, sz, sizeof(sz));
    {
        char spec[1024];
        static const char *colors[] = {"#4c72b0", "#dd8452", "#55a868"};
        int height = 180 + NMETHODS * (70 + 28 * o.topo.ndims);

        themis_topology_format(&o.topo, spec, sizeof(spec));
        fprintf(f, "set terminal pngcairo noenhanced size 1100,%d font 'sans,10'\n", height);
        fprintf(f, "set output ");
        themis_plan_gp_quote(f, o.png_path);
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
                        themis_plan_pct(res[m].stats.busy[k], res[m].stats.total_time));
            }
            fprintf(f, "\"\nplot ");
            themis_plan_gp_quote(f, dat);
            fprintf(f, " index %d using 1:2:3:4 with boxxyerror lc rgb '%s'\n", m, colors[m]);
        }
        fprintf(f, "unset multiplot\n");
    }
    switch (themis_plan_gp_finish(f, gp, dir)) {
    case 1:
        goto cleanup;
    case 2:
        goto out; /* the input kept */
    }
    {
        struct stat sb;
        if (0 != stat(o.png_path, &sb) || 0 == sb.st_size) {
            fprintf(stderr, "%s: gnuplot wrote no %s\n", prog, o.png_path);
            goto cleanup;
        }
    }
    themis_plan_print_topology_header(stdout, &o);
    for (int m = 0; m < NMETHODS; m++) {
        printf("%-12s %9.3f %s  util %5.1f%%  busy", methods[m].name,
               (double) res[m].stats.total_time / div, unit, res[m].stats.avg_util_ppm / 1e4);
        for (int k = 0; k < o.topo.ndims; k++) {
            printf(" d%d %5.1f%%", k,
                   themis_plan_pct(res[m].stats.busy[k], res[m].stats.total_time));
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
