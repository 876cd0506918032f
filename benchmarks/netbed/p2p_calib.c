/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Point-to-point calibration of an emulated multi-dimensional network
 * (benchmarks/netbed).  For every dimension it measures, between
 * dimension peers only:
 *   - small-message one-way latency (half the ping-pong round trip),
 *   - one-way bandwidth of one pair,
 *   - two-way bandwidth of one pair (both directions at once),
 *   - concurrent bandwidth: every rank sends to its successor on that
 *     dimension's line and receives from its predecessor, all at once,
 * and finally every dimension loaded at once.  Rank 0 samples /proc/stat
 * around each test to show how idle the machine was (on a shared 2-core
 * machine the CPU, not tbf, can be the limit).
 *
 * Usage: p2p_calib --dims 4x2 --rates BPS,BPS [--seconds S] [--msg BYTES]
 * Dimension 1 (d1) is innermost: consecutive ranks, as in coll_themis_dims.
 * The last lines are machine-readable:
 *   CALIB dim=K bw_bps=B lat_ns=L conf_bps=C
 * with B the concurrent per-rank rate, which is what collectives see.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 8
#define WINDOW 4       /* messages in flight per flow */
#define MAX_FLOWS (2 * MAX_DIMS)
#define LAT_WARMUP 50
#define LAT_BATCHES 9 /* the median batch resists other jobs' bursts */
#define LAT_ITERS 50

typedef struct {
    int ndims;
    int size[MAX_DIMS];
    int stride[MAX_DIMS];
    double rate_bps[MAX_DIMS];
    double seconds;
    size_t msg;
} config_t;

/* One direction of traffic with one peer: nmsg messages of msg bytes. */
typedef struct {
    int peer;
    int is_send;
    int tag;
    long nmsg;
    long posted;
    long done;
    size_t msg;
    char *buf[WINDOW];
    double t_done;
} flow_t;

static int rank, nranks;

static int coord(const config_t *c, int r, int k)
{
    return (r / c->stride[k]) % c->size[k];
}

/* The rank whose coordinate k is moved by delta (mod size): a dim-k peer. */
static int shift(const config_t *c, int r, int k, int delta)
{
    int ck = coord(c, r, k);
    int nk = ((ck + delta) % c->size[k] + c->size[k]) % c->size[k];
    return r + (nk - ck) * c->stride[k];
}

static int parse_args(int argc, char **argv, config_t *c)
{
    memset(c, 0, sizeof(*c));
    c->seconds = 1.5;
    c->msg = 1 << 20;
    const char *dims = NULL, *rates = NULL;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--dims") && i + 1 < argc) {
            dims = argv[++i];
        } else if (0 == strcmp(argv[i], "--rates") && i + 1 < argc) {
            rates = argv[++i];
        } else if (0 == strcmp(argv[i], "--seconds") && i + 1 < argc) {
            c->seconds = atof(argv[++i]);
        } else if (0 == strcmp(argv[i], "--msg") && i + 1 < argc) {
            c->msg = (size_t) strtoull(argv[++i], NULL, 10);
        } else {
            return -1;
        }
    }
    if (NULL == dims || NULL == rates || c->seconds <= 0 || c->msg < 1024) {
        return -1;
    }
    int prod = 1;
    for (const char *p = dims; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 2 || MAX_DIMS == c->ndims) {
            return -1;
        }
        c->stride[c->ndims] = prod;
        c->size[c->ndims++] = (int) v;
        prod *= (int) v;
        p = end;
        if ('x' == *p) {
            p++;
        } else if ('\0' != *p) {
            return -1;
        }
    }
    int k = 0;
    for (const char *p = rates; *p && k < c->ndims; k++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || v <= 0) {
            return -1;
        }
        c->rate_bps[k] = v;
        p = (',' == *end) ? end + 1 : end;
    }
    if (k != c->ndims || prod != nranks) {
        return -2;
    }
    return 0;
}

/* Idle and total jiffies of all cores. */
static void cpu_sample(unsigned long long *idle, unsigned long long *total)
{
    unsigned long long v[10] = {0};
    *idle = *total = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (NULL == f) {
        return;
    }
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    for (int i = 0; i < n && i < 8; i++) { /* guest time is already in user */
        *total += v[i];
    }
    *idle = v[3] + v[4];
}

static unsigned long long cpu_idle0, cpu_total0;

static void cpu_begin(void)
{
    if (0 == rank) {
        cpu_sample(&cpu_idle0, &cpu_total0);
    }
}

static double cpu_idle_pct(void)
{
    unsigned long long idle, total;
    cpu_sample(&idle, &total);
    if (total <= cpu_total0) {
        return -1;
    }
    return 100.0 * (double) (idle - cpu_idle0) / (double) (total - cpu_total0);
}

static void flow_init(flow_t *f, int peer, int is_send, int tag, double bytes, size_t msg)
{
    memset(f, 0, sizeof(*f));
    f->peer = peer;
    f->is_send = is_send;
    f->tag = tag;
    f->msg = msg;
    f->nmsg = (long) (bytes / (double) msg + 0.5);
    if (f->nmsg < 2) {
        f->nmsg = 2;
    }
    for (int w = 0; w < WINDOW; w++) {
        f->buf[w] = malloc(msg);
        if (NULL == f->buf[w]) {
            fprintf(stderr, "p2p_calib: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(f->buf[w], rank & 0xff, msg);
    }
}

static void flow_free(flow_t *f)
{
    for (int w = 0; w < WINDOW; w++) {
        free(f->buf[w]);
    }
}

static void post(flow_t *f, int w, MPI_Request *req)
{
    if (f->is_send) {
        MPI_Isend(f->buf[w], (int) f->msg, MPI_BYTE, f->peer, f->tag, MPI_COMM_WORLD, req);
    } else {
        MPI_Irecv(f->buf[w], (int) f->msg, MPI_BYTE, f->peer, f->tag, MPI_COMM_WORLD, req);
    }
    f->posted++;
}

/* Runs the flows to completion, keeping WINDOW messages in flight per
 * flow; each flow's t_done is relative to t0. */
static void run_flows(flow_t *flows, int nflows, double t0)
{
    MPI_Request req[MAX_FLOWS * WINDOW];
    for (int i = 0; i < MAX_FLOWS * WINDOW; i++) {
        req[i] = MPI_REQUEST_NULL;
    }
    long pending = 0;
    for (int f = 0; f < nflows; f++) {
        for (int w = 0; w < WINDOW && flows[f].posted < flows[f].nmsg; w++) {
            post(&flows[f], w, &req[f * WINDOW + w]);
            pending++;
        }
    }
    while (pending > 0) {
        int idx;
        MPI_Waitany(nflows * WINDOW, req, &idx, MPI_STATUS_IGNORE);
        pending--;
        flow_t *f = &flows[idx / WINDOW];
        if (++f->done == f->nmsg) {
            f->t_done = MPI_Wtime() - t0;
        }
        if (f->posted < f->nmsg) {
            post(f, idx % WINDOW, &req[idx]);
            pending++;
        }
    }
}

static size_t msg_for(const config_t *c, double bytes)
{
    size_t m = c->msg;
    while (m > 65536 && bytes / (double) m < 8) {
        m /= 2;
    }
    return m;
}

/* Median (and in *best the minimum) over batches of the half round trip
 * of small messages between a and b, in seconds, on rank a. */
static double latency(int a, int b, double *best)
{
    char buf[8] = {0};
    double batch[LAT_BATCHES];
    int peer = (rank == a) ? b : a;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == a || rank == b) {
        for (int bt = -1; bt < LAT_BATCHES; bt++) {
            int iters = (bt < 0) ? LAT_WARMUP : LAT_ITERS;
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (rank == a) {
                    MPI_Send(buf, sizeof(buf), MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, sizeof(buf), MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, sizeof(buf), MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, sizeof(buf), MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                }
            }
            if (bt >= 0) {
                batch[bt] = (MPI_Wtime() - t0) / (2.0 * iters);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != a) {
        return 0;
    }
    for (int i = 1; i < LAT_BATCHES; i++) { /* insertion sort: 9 values */
        double v = batch[i];
        int j = i - 1;
        for (; j >= 0 && batch[j] > v; j--) {
            batch[j + 1] = batch[j];
        }
        batch[j + 1] = v;
    }
    *best = batch[0];
    return batch[LAT_BATCHES / 2];
}

/* Pair test between a and b on dimension k; two_way sends both ways.
 * Returns (on rank a) the mean received rate per direction, bit/s. */
static double pair_bw(const config_t *c, int k, int a, int b, int two_way)
{
    double bytes = c->rate_bps[k] * c->seconds / 8.0;
    size_t msg = msg_for(c, bytes);
    flow_t flows[2];
    int nflows = 0;
    if (rank == a) {
        flow_init(&flows[nflows++], b, 1, 2, bytes, msg);
        if (two_way) {
            flow_init(&flows[nflows++], b, 0, 2, bytes, msg);
        }
    } else if (rank == b) {
        flow_init(&flows[nflows++], a, 0, 2, bytes, msg);
        if (two_way) {
            flow_init(&flows[nflows++], a, 1, 2, bytes, msg);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run_flows(flows, nflows, t0);
    /* The receiver's completion time is when the data arrived. */
    double rate = 0;
    for (int f = 0; f < nflows; f++) {
        if (!flows[f].is_send) {
            rate = (double) flows[f].nmsg * (double) flows[f].msg * 8.0 / flows[f].t_done;
        }
    }
    double peer_rate = 0;
    if (rank == b) {
        MPI_Send(&rate, 1, MPI_DOUBLE, a, 3, MPI_COMM_WORLD);
    } else if (rank == a && two_way) {
        MPI_Recv(&peer_rate, 1, MPI_DOUBLE, b, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == a) {
        MPI_Recv(&rate, 1, MPI_DOUBLE, b, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int f = 0; f < nflows; f++) {
        flow_free(&flows[f]);
    }
    return two_way ? (rate + peer_rate) / 2.0 : rate;
}

/* Every rank sends to its successor and receives from its predecessor on
 * each dimension whose mask bit is set, all at once.  Per dimension,
 * avg[k]/min[k] (rank 0) are the received rates over all ranks, bit/s. */
static void ring_bw(const config_t *c, unsigned mask, double *avg, double *min)
{
    flow_t flows[MAX_FLOWS];
    int nflows = 0;
    for (int k = 0; k < c->ndims; k++) {
        if (mask & (1u << k)) {
            double bytes = c->rate_bps[k] * c->seconds / 8.0;
            size_t msg = msg_for(c, bytes);
            flow_init(&flows[nflows++], shift(c, rank, k, +1), 1, 10 + k, bytes, msg);
            flow_init(&flows[nflows++], shift(c, rank, k, -1), 0, 10 + k, bytes, msg);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run_flows(flows, nflows, t0);
    double mine[MAX_DIMS] = {0}, sum[MAX_DIMS], lo[MAX_DIMS];
    for (int f = 0; f < nflows; f++) {
        if (!flows[f].is_send) {
            int k = flows[f].tag - 10;
            mine[k] = (double) flows[f].nmsg * (double) flows[f].msg * 8.0 / flows[f].t_done;
        }
    }
    MPI_Reduce(mine, sum, c->ndims, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, lo, c->ndims, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    for (int k = 0; k < c->ndims; k++) {
        avg[k] = sum[k] / nranks;
        min[k] = lo[k];
    }
    for (int f = 0; f < nflows; f++) {
        flow_free(&flows[f]);
    }
}

static void print_bw(const char *what, double bps, double conf, double idle)
{
    printf("  %-44s %8.1f Mbit/s  %5.1f%% of configured   cpu idle %3.0f%%\n", what, bps / 1e6,
           100.0 * bps / conf, idle);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    config_t c;
    int rc = parse_args(argc, argv, &c);
    if (0 != rc) {
        if (0 == rank) {
            if (-2 == rc) {
                fprintf(stderr, "p2p_calib: --dims does not match %d ranks or --rates has the wrong count\n",
                        nranks);
            } else {
                fprintf(stderr, "usage: p2p_calib --dims 4x2 --rates BPS,BPS [--seconds S] [--msg BYTES]\n");
            }
        }
        MPI_Finalize();
        return 2;
    }
    double lat[MAX_DIMS], conc[MAX_DIMS];
    char what[96];
    for (int k = 0; k < c.ndims; k++) {
        int a = 0, b = shift(&c, 0, k, +1);
        double conf = c.rate_bps[k];
        if (0 == rank) {
            printf("d%d: size %d, configured %.1f Mbit/s (pair: rank %d and rank %d)\n", k + 1,
                   c.size[k], conf / 1e6, a, b);
            fflush(stdout);
        }
        double best = 0;
        lat[k] = latency(a, b, &best);
        if (0 == rank) {
            printf("  %-44s %8.1f us  (best batch %.1f us)\n", "latency (8 B one-way, median of 9x50)",
                   lat[k] * 1e6, best * 1e6);
        }
        cpu_begin();
        double bw = pair_bw(&c, k, a, b, 0);
        if (0 == rank) {
            snprintf(what, sizeof(what), "one-way   %d -> %d", a, b);
            print_bw(what, bw, conf, cpu_idle_pct());
        }
        cpu_begin();
        bw = pair_bw(&c, k, a, b, 1);
        if (0 == rank) {
            snprintf(what, sizeof(what), "two-way   %d <-> %d (per direction)", a, b);
            print_bw(what, bw, conf, cpu_idle_pct());
        }
        double avg[MAX_DIMS], min[MAX_DIMS];
        cpu_begin();
        ring_bw(&c, 1u << k, avg, min);
        conc[k] = avg[k];
        if (0 == rank) {
            snprintf(what, sizeof(what), "concurrent all %d ranks (per rank, min %.1f)", nranks,
                     min[k] / 1e6);
            print_bw(what, avg[k], conf, cpu_idle_pct());
            fflush(stdout);
        }
    }
    if (c.ndims > 1) {
        double avg[MAX_DIMS], min[MAX_DIMS];
        cpu_begin();
        ring_bw(&c, (1u << c.ndims) - 1, avg, min);
        if (0 == rank) {
            double idle = cpu_idle_pct();
            printf("all dimensions at once (per rank):\n");
            for (int k = 0; k < c.ndims; k++) {
                snprintf(what, sizeof(what), "d%d concurrent (min %.1f)", k + 1, min[k] / 1e6);
                print_bw(what, avg[k], c.rate_bps[k], idle);
            }
        }
    }
    if (0 == rank) {
        for (int k = 0; k < c.ndims; k++) {
            printf("CALIB dim=%d bw_bps=%.0f lat_ns=%.0f conf_bps=%.0f\n", k + 1, conc[k], lat[k] * 1e9,
                   c.rate_bps[k]);
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
