/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The engine without the component: coll_themis_engine.c is compiled into
 * this MPI program, which runs programs on MPI_COMM_WORLD and checks the
 * results against values computed here.
 *   - hand-built programs (independent of the plan compiler): ring and
 *     direct allreduce on one or two queues, cross-queue deps, chunks_in_flight,
 *     reduce-scatter with uneven counts, allgather (op NULL), in place,
 *     work in scratch, split messages, tag wrap-around, a datatype with a
 *     non-zero lower bound, scratch sizes and reuse, the scratch pool of
 *     nonblocking calls, rejected programs;
 *   - programs from themis_program_build_hier (planners/themis/plan.c) for
 *     Themis and baseline schedules on 1-3 dimensional grids.
 * Usage: mpirun -np P engine_harness [LABEL]; prints PASS:/FAIL:/SKIP:
 * lines from rank 0, names prefixed with LABEL.  THEMIS_ENGINE_BIG=1 adds
 * a transfer of more than 2^31 elements (2 ranks, 2 GiB each);
 * THEMIS_ENGINE_MAX_MSG=BYTES sets the engine's message split for it.
 */
#include "ompi_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_themis_engine.h"
#include "mpi.h"
#include "coll_themis_engine_impl.h"
#include "ompi/mca/pml/base/base.h"
#include "opal/runtime/opal_progress.h"
#include "plan.h"
#include "scheduler.h"
#include "simulator.h"
#include "topology.h"

static int rank, nprocs, tag_ub_world;
static const char *label = "engine";
static mca_coll_themis_scratch_t scratch;
static char why[256];

/* Record the first local failure reason. */
static int fail(const char *fmt, ...)
{
    if ('\0' == why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* Every rank's verdict -> one line from rank 0. */
static void report(const char *name, int ok)
{
    int all, first_bad = ok ? nprocs : rank, bad;
    char msg[256];
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&first_bad, &bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (bad == rank && 0 != rank) {
            MPI_Send(why, sizeof(why), MPI_CHAR, 0, 99, MPI_COMM_WORLD);
        }
        if (0 == rank) {
            if (0 == bad) {
                memcpy(msg, why, sizeof(msg));
            } else {
                MPI_Recv(msg, sizeof(msg), MPI_CHAR, bad, 99, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            }
        }
    }
    if (0 == rank) {
        if (all) {
            printf("PASS: %s/%s np=%d\n", label, name, nprocs);
        } else {
            printf("FAIL: %s/%s np=%d (rank %d: %s)\n", label, name, nprocs, bad, msg);
        }
        fflush(stdout);
    }
    why[0] = '\0';
}

/* ------------------------------------------------------------ builder */

/* A program under construction; a step's tag is its global index, which
 * is equal on all ranks because all build the same structure. */
typedef struct {
    themis_program_t p;
    uint32_t cap_ops, cap_steps, cap_in, cap_out;
    uint32_t *qlen;
    uint32_t **qlist;
} hb_t;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (NULL == q) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return q;
}

static void hb_init(hb_t *b, uint32_t nqueues, uint32_t chunks_in_flight)
{
    memset(b, 0, sizeof(*b));
    b->p.nqueues = nqueues;
    b->p.chunks_in_flight = chunks_in_flight;
    b->qlen = calloc(nqueues, sizeof(*b->qlen));
    b->qlist = calloc(nqueues, sizeof(*b->qlist));
}

/* Op `op` waits for `dep` only (a new entry; earlier ones stay unused). */
static void set_dep(themis_program_t *p, uint32_t op, uint32_t dep)
{
    p->op_deps = xrealloc(p->op_deps, (p->nop_deps + 1) * sizeof(*p->op_deps));
    p->op_deps[p->nop_deps] = dep;
    p->ops[op].dep_first = p->nop_deps++;
    p->ops[op].ndeps = 1;
}

static uint32_t hb_op(hb_t *b, uint32_t queue, int32_t dep)
{
    if (b->p.nops == b->cap_ops) {
        b->cap_ops = b->cap_ops ? 2 * b->cap_ops : 16;
        b->p.ops = xrealloc(b->p.ops, b->cap_ops * sizeof(*b->p.ops));
    }
    uint32_t i = b->p.nops++;
    b->p.ops[i] = (themis_op_t) {.queue = queue, .first_step = b->p.nsteps};
    if (dep >= 0) {
        set_dep(&b->p, i, (uint32_t) dep);
    }
    b->qlist[queue] = xrealloc(b->qlist[queue], (b->qlen[queue] + 1) * sizeof(uint32_t));
    b->qlist[queue][b->qlen[queue]++] = i;
    return i;
}

static void hb_step(hb_t *b, int sp, uint64_t so, uint64_t sc, int rp, uint64_t ro, uint64_t rc,
                    int mode, int after_prev)
{
    if (b->p.nsteps == b->cap_steps) {
        b->cap_steps = b->cap_steps ? 2 * b->cap_steps : 64;
        b->p.steps = xrealloc(b->p.steps, b->cap_steps * sizeof(*b->p.steps));
    }
    themis_step_t *s = &b->p.steps[b->p.nsteps];
    *s = (themis_step_t) {.send_peer = sp, .send_off = so, .send_count = sc, .recv_peer = rp,
                          .recv_off = ro, .recv_count = rc, .tag = b->p.nsteps,
                          .recv_mode = (uint8_t) mode, .after_prev = (uint8_t) after_prev};
    b->p.nsteps++;
    b->p.ops[b->p.nops - 1].nsteps++;
}

static void hb_copy(hb_t *b, int out, uint64_t src, uint64_t dst, uint64_t count)
{
    uint32_t *n = out ? &b->p.ncopy_out : &b->p.ncopy_in;
    themis_copy_t **a = out ? &b->p.copy_out : &b->p.copy_in;
    *a = xrealloc(*a, (*n + 1) * sizeof(**a));
    (*a)[(*n)++] = (themis_copy_t) {.src_off = src, .dst_off = dst, .count = count};
}

static void hb_finish(hb_t *b, uint64_t work_count, int work_is_output)
{
    b->p.work_count = work_count;
    b->p.work_is_output = work_is_output;
    b->p.queue_first = xrealloc(NULL, (b->p.nqueues + 1) * sizeof(uint32_t));
    b->p.queue_ops = xrealloc(NULL, b->p.nops * sizeof(uint32_t));
    uint32_t k = 0;
    for (uint32_t q = 0; q < b->p.nqueues; ++q) {
        b->p.queue_first[q] = k;
        for (uint32_t i = 0; i < b->qlen[q]; ++i) {
            b->p.queue_ops[k++] = b->qlist[q][i];
        }
        free(b->qlist[q]);
    }
    b->p.queue_first[b->p.nqueues] = k;
    free(b->qlist);
    free(b->qlen);
    for (uint32_t i = 0; i < b->p.nsteps; ++i) {
        const themis_step_t *s = &b->p.steps[i];
        if (THEMIS_RECV_REDUCE == s->recv_mode && s->recv_count > b->p.max_recv_count) {
            b->p.max_recv_count = s->recv_count;
        }
    }
}

static void hb_free(hb_t *b)
{
    free(b->p.ops);
    free(b->p.op_deps);
    free(b->p.steps);
    free(b->p.queue_first);
    free(b->p.queue_ops);
    free(b->p.copy_in);
    free(b->p.copy_out);
}

/* ------------------------------------------------------------ algorithms */

typedef struct {
    uint64_t off, count;
} blk_t;

static int mod(int a, int p)
{
    return ((a % p) + p) % p;
}

/* Ring phases: member j ends RS owning blks[j] and starts AG from it. */
static void ring_rs(hb_t *b, const blk_t *blks)
{
    int p = nprocs, r = rank;
    for (int s = 0; s < p - 1; ++s) {
        const blk_t *sb = &blks[mod(r - s - 1, p)], *rb = &blks[mod(r - s - 2, p)];
        hb_step(b, mod(r + 1, p), sb->off, sb->count, mod(r - 1, p), rb->off, rb->count,
                THEMIS_RECV_REDUCE, s > 0);
    }
}

static void ring_ag(hb_t *b, const blk_t *blks)
{
    int p = nprocs, r = rank;
    for (int s = 0; s < p - 1; ++s) {
        const blk_t *sb = &blks[mod(r - s, p)], *rb = &blks[mod(r - s - 1, p)];
        hb_step(b, mod(r + 1, p), sb->off, sb->count, mod(r - 1, p), rb->off, rb->count,
                THEMIS_RECV_COPY, s > 0);
    }
}

/* Direct phases: p-1 concurrent exchanges. */
static void direct_rs(hb_t *b, const blk_t *blks)
{
    int p = nprocs, r = rank;
    for (int k = 1; k < p; ++k) {
        const blk_t *sb = &blks[mod(r + k, p)];
        hb_step(b, mod(r + k, p), sb->off, sb->count, mod(r - k, p), blks[r].off,
                blks[r].count, THEMIS_RECV_REDUCE, 0);
    }
}

static void direct_ag(hb_t *b, const blk_t *blks)
{
    int p = nprocs, r = rank;
    for (int k = 1; k < p; ++k) {
        const blk_t *rb = &blks[mod(r - k, p)];
        hb_step(b, mod(r + k, p), blks[r].off, blks[r].count, mod(r - k, p), rb->off,
                rb->count, THEMIS_RECV_COPY, 0);
    }
}

/* Even split of [off, off + n) into p blocks. */
static void split(uint64_t off, uint64_t n, int p, blk_t *blks)
{
    for (int i = 0; i < p; ++i) {
        uint64_t c = n / p + ((uint64_t) i < n % p);
        blks[i] = (blk_t) {off, c};
        off += c;
    }
}

enum { LAYOUT_ONE_QUEUE, LAYOUT_PHASE_QUEUES, LAYOUT_CROSSED };

/*
 * Allreduce of n elements in nchunks chunks.  Layouts:
 *   ONE_QUEUE     queue 0: RS0 AG0 RS1 AG1 ...
 *   PHASE_QUEUES  queue 0: RS of every chunk; queue 1: AG (dep its RS)
 *   CROSSED       even chunks RS on 0 / AG on 1, odd chunks the reverse
 */
static void build_allreduce(hb_t *b, uint64_t n, int nchunks, int layout, int direct,
                            uint32_t chunks_in_flight, int work_is_output)
{
    blk_t chunks[64], *blks = calloc(nprocs, sizeof(*blks));
    split(0, n, nchunks, chunks);
    hb_init(b, LAYOUT_ONE_QUEUE == layout ? 1 : 2, chunks_in_flight);
    hb_copy(b, 0, 0, 0, n);
    for (int c = 0; c < nchunks; ++c) {
        uint32_t qrs = 0, qag = LAYOUT_ONE_QUEUE == layout ? 0 : 1;
        if (LAYOUT_CROSSED == layout && (c & 1)) {
            qrs = 1;
            qag = 0;
        }
        split(chunks[c].off, chunks[c].count, nprocs, blks);
        uint32_t rs = hb_op(b, qrs, -1);
        (direct ? direct_rs : ring_rs)(b, blks);
        hb_op(b, qag, (int32_t) rs);
        (direct ? direct_ag : ring_ag)(b, blks);
    }
    if (!work_is_output) {
        hb_copy(b, 1, 0, 0, n);
    }
    hb_finish(b, n, work_is_output);
    free(blks);
}

/* ------------------------------------------------------------ data */

static int val(int r, uint64_t i)
{
    return (int) ((r + 1) * (int) (i % 11 + 1) + (int) (i % 3) - 1);
}

static int check_sum_int(const int *out, uint64_t first, uint64_t n, const char *what)
{
    for (uint64_t i = 0; i < n; ++i) {
        long long want = 0;
        for (int r = 0; r < nprocs; ++r) {
            want += val(r, first + i);
        }
        if (out[i] != want) {
            return fail("%s[%llu] = %d, want %lld", what, (unsigned long long) (first + i),
                        out[i], want);
        }
    }
    return 1;
}

static int run(const themis_program_t *p, const void *in, void *out, MPI_Datatype dt,
               MPI_Op op, int tag_ub, int *rc_out)
{
    mca_coll_themis_engine_layout_t layout;
    mca_coll_themis_engine_args_t a = {.prog = p, .layout = &layout, .input = in,
                                       .output = out, .dtype = dt,
                                       .op = MPI_OP_NULL == op ? NULL : op,
                                       .p2p_comm = MPI_COMM_WORLD, .tag_ub = tag_ub,
                                       .scratch = &scratch};
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* As the plan cache does: checked and laid out, then run. */
    int rc = mca_coll_themis_engine_prepare(p, size, &layout);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_themis_engine_run(&a);
        mca_coll_themis_engine_layout_free(&layout);
    }
    if (NULL != rc_out) {
        *rc_out = rc;
    }
    return OMPI_SUCCESS == rc ? 1 : fail("engine returned %d", rc);
}

/* Allreduce of ints with a hand-built program; in_place: input == output. */
static void case_allreduce(const char *name, uint64_t n, int nchunks, int layout, int direct,
                           uint32_t chunks_in_flight, int work_is_output, int in_place)
{
    hb_t b;
    int *in = malloc((n + 1) * sizeof(int)), *out = malloc((n + 1) * sizeof(int));
    int ok = 1;
    build_allreduce(&b, n, nchunks, layout, direct, chunks_in_flight, work_is_output);
    for (int rep = 0; rep < 2 && ok; ++rep) {   /* twice: scratch reuse */
        for (uint64_t i = 0; i < n; ++i) {
            in[i] = val(rank, i);
            out[i] = in_place ? in[i] : -7;
        }
        ok = run(&b.p, in_place ? out : in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL)
            && check_sum_int(out, 0, n, "out");
    }
    report(name, ok);
    hb_free(&b);
    free(in);
    free(out);
}

/*
 * What transfer schedules need, on real messages: a local copy puts the
 * input in place, one op reduce-scatters 4 chunks as 4 concurrent ring
 * chains, the allgather op joins (waits for the local copy and the
 * reduce-scatter), and a local reduce adds the rank's input again.
 * Expected: the sum over ranks plus the rank's own value.
 */
static void case_chains_joins_local(void)
{
    const uint64_t n = 4 * 7 * (uint64_t) nprocs + 3;
    const int nch = 4;
    blk_t chunks[4], *blks = calloc(nprocs, sizeof(*blks));
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    hb_t b;
    int ok = 1;

    hb_init(&b, 2, 2);
    hb_copy(&b, 0, 0, n, n);            /* input -> work[n, 2n) and [2n, 3n) */
    hb_copy(&b, 0, 0, 2 * n, n);
    uint32_t copy = hb_op(&b, 0, -1);
    hb_step(&b, -1, n, n, -1, 0, n, THEMIS_LOCAL_COPY, 0);
    split(0, n, nch, chunks);
    uint32_t rs = hb_op(&b, 0, (int32_t) copy);
    for (int c = 0; c < nch; ++c) {
        uint32_t first = b.p.nsteps;
        split(chunks[c].off, chunks[c].count, nprocs, blks);
        ring_rs(&b, blks);
        for (uint32_t i = first; i < b.p.nsteps; ++i) {
            b.p.steps[i].chain = (uint8_t) c;
        }
    }
    uint32_t ag = hb_op(&b, 1, (int32_t) rs);
    b.p.op_deps = xrealloc(b.p.op_deps, (b.p.nop_deps + 2) * sizeof(*b.p.op_deps));
    b.p.op_deps[b.p.nop_deps] = copy;
    b.p.op_deps[b.p.nop_deps + 1] = rs;
    b.p.ops[ag].dep_first = b.p.nop_deps;
    b.p.ops[ag].ndeps = 2;
    b.p.nop_deps += 2;
    for (int c = 0; c < nch; ++c) {
        uint32_t first = b.p.nsteps;
        split(chunks[c].off, chunks[c].count, nprocs, blks);
        ring_ag(&b, blks);
        for (uint32_t i = first; i < b.p.nsteps; ++i) {
            b.p.steps[i].chain = (uint8_t) (nch - 1 - c);
        }
    }
    hb_op(&b, 0, (int32_t) ag);
    hb_step(&b, -1, 2 * n, n, -1, 0, n, THEMIS_LOCAL_REDUCE, 0);
    hb_copy(&b, 1, 0, 0, n);
    hb_finish(&b, 3 * n, 0);
    b.p.max_op_reduce_recvs = nch;
    for (int rep = 0; rep < 2 && ok; ++rep) {
        for (uint64_t i = 0; i < n; ++i) {
            in[i] = val(rank, i);
            out[i] = -7;
        }
        ok = run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL);
        for (uint64_t i = 0; ok && i < n; ++i) {
            int want = val(rank, i);
            for (int r = 0; r < nprocs; ++r) {
                want += val(r, i);
            }
            if (out[i] != want) {
                ok = fail("out[%llu] = %d, want %d", (unsigned long long) i, out[i], want);
            }
        }
    }
    report("chains_joins_local", ok);
    hb_free(&b);
    free(blks);
    free(in);
    free(out);
}

/* Allreduce on doubles and MAX on ints: the op and datatype reach
 * ompi_op_reduce unchanged. */
static void case_ops(void)
{
    const uint64_t n = 1000;
    hb_t b;
    double *din = malloc(n * sizeof(double)), *dout = malloc(n * sizeof(double));
    int *iin = malloc(n * sizeof(int)), *iout = malloc(n * sizeof(int));
    int ok = 1;
    build_allreduce(&b, n, 3, LAYOUT_PHASE_QUEUES, 0, 2, 1);
    for (uint64_t i = 0; i < n; ++i) {
        din[i] = 0.5 * val(rank, i);
        iin[i] = (int) ((rank * 7919 + i * 31) % 1009);
    }
    ok = run(&b.p, din, dout, MPI_DOUBLE, MPI_SUM, tag_ub_world, NULL);
    for (uint64_t i = 0; ok && i < n; ++i) {
        double want = 0;
        for (int r = 0; r < nprocs; ++r) {
            want += 0.5 * val(r, i);
        }
        if (dout[i] != want) {
            ok = fail("double[%llu] = %g, want %g", (unsigned long long) i, dout[i], want);
        }
    }
    report("double_sum", ok);
    ok = run(&b.p, iin, iout, MPI_INT, MPI_MAX, tag_ub_world, NULL);
    for (uint64_t i = 0; ok && i < n; ++i) {
        int want = 0;
        for (int r = 0; r < nprocs; ++r) {
            int v = (int) ((r * 7919 + i * 31) % 1009);
            want = v > want ? v : want;
        }
        if (iout[i] != want) {
            ok = fail("max[%llu] = %d, want %d", (unsigned long long) i, iout[i], want);
        }
    }
    report("int_max", ok);
    hb_free(&b);
    free(din);
    free(dout);
    free(iin);
    free(iout);
}

/* Reduce-scatter with uneven counts (some zero): work in scratch, copy_out
 * of this rank's segment; ring RS per chunk over non-contiguous blocks. */
static void case_reduce_scatter(int nchunks, uint32_t chunks_in_flight)
{
    uint64_t *rc = malloc(nprocs * sizeof(*rc)), *displ = malloc(nprocs * sizeof(*displ));
    uint64_t total = 0;
    blk_t *blks = malloc(nprocs * sizeof(*blks));
    hb_t b;
    for (int r = 0; r < nprocs; ++r) {
        rc[r] = (r % 3 == 1) ? 0 : 37 * (r + 1) + 5;
        displ[r] = total;
        total += rc[r];
    }
    hb_init(&b, 1, chunks_in_flight);
    hb_copy(&b, 0, 0, 0, total);
    for (int c = 0; c < nchunks; ++c) {
        for (int r = 0; r < nprocs; ++r) {
            blk_t parts[64];
            split(displ[r], rc[r], nchunks, parts);
            blks[r] = parts[c];
        }
        hb_op(&b, 0, -1);
        ring_rs(&b, blks);
    }
    hb_copy(&b, 1, displ[rank], 0, rc[rank]);
    hb_finish(&b, total, 0);

    int *in = malloc(total * sizeof(int)), *out = malloc((rc[rank] + 1) * sizeof(int));
    for (uint64_t i = 0; i < total; ++i) {
        in[i] = val(rank, i);
    }
    int ok = run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL)
        && check_sum_int(out, displ[rank], rc[rank], "out");
    char name[64];
    snprintf(name, sizeof(name), "reduce_scatter_c%d_i%u", nchunks, chunks_in_flight);
    report(name, ok);
    hb_free(&b);
    free(in);
    free(out);
    free(rc);
    free(displ);
    free(blks);
}

/* Allgather (op NULL): ring or direct per chunk, work is the output; in
 * place the input is the rank's block of the output and copy_in is a
 * no-op. */
static void case_allgather(const char *name, int direct, int in_place)
{
    const uint64_t m = 301;
    const int nchunks = 3;
    hb_t b;
    blk_t *blks = malloc(nprocs * sizeof(*blks));
    hb_init(&b, 2, 2);
    hb_copy(&b, 0, 0, rank * m, m);
    for (int c = 0; c < nchunks; ++c) {
        for (int r = 0; r < nprocs; ++r) {
            blk_t parts[64];
            split(r * m, m, nchunks, parts);
            blks[r] = parts[c];
        }
        hb_op(&b, c & 1, -1);
        (direct ? direct_ag : ring_ag)(&b, blks);
    }
    hb_finish(&b, m * nprocs, 1);
    int *in = malloc(m * sizeof(int)), *out = malloc(m * nprocs * sizeof(int));
    for (uint64_t i = 0; i < m * nprocs; ++i) {
        out[i] = -1;
    }
    for (uint64_t i = 0; i < m; ++i) {
        (in_place ? out + rank * m : in)[i] = val(rank, i);
    }
    int ok = run(&b.p, in_place ? (void *) (out + rank * m) : in, out, MPI_INT, MPI_OP_NULL,
                 tag_ub_world, NULL);
    for (int r = 0; ok && r < nprocs; ++r) {
        for (uint64_t i = 0; ok && i < m; ++i) {
            if (out[r * m + i] != val(r, i)) {
                ok = fail("out[%d][%llu] = %d", r, (unsigned long long) i, out[r * m + i]);
            }
        }
    }
    report(name, ok);
    hb_free(&b);
    free(in);
    free(out);
    free(blks);
}

/* The state machine driven as the progress callback drives it: advance's
 * events add up to the messages the rank's program posts (each message is
 * found complete once), the count that keeps opal_progress from yielding
 * the core after a round that did work. */
static void case_events(void)
{
    const uint64_t n = 3001;
    hb_t b;
    mca_coll_themis_engine_layout_t layout;
    mca_coll_themis_engine_t *e = NULL;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    int events = 0, ok;
    long want = 0;
    bool done = false;
    build_allreduce(&b, n, 5, LAYOUT_CROSSED, 0, 3, 1);
    for (uint32_t s = 0; s < b.p.nsteps; ++s) {
        want += step_has_send(&b.p.steps[s]) + step_has_recv(&b.p.steps[s]);
    }
    for (uint64_t i = 0; i < n; ++i) {
        in[i] = val(rank, i);
    }
    mca_coll_themis_engine_args_t a = {.prog = &b.p, .layout = &layout, .input = in,
                                       .output = out, .dtype = MPI_INT, .op = MPI_SUM,
                                       .p2p_comm = MPI_COMM_WORLD, .tag_ub = tag_ub_world,
                                       .scratch = &scratch};
    int rc = mca_coll_themis_engine_prepare(&b.p, nprocs, &layout);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_themis_engine_start(&a, &e);
        while (OMPI_SUCCESS == rc && !done) {
            rc = mca_coll_themis_engine_advance(e, &done, &events);
            if (!done) {
                opal_progress();
            }
        }
        mca_coll_themis_engine_free(e);
        mca_coll_themis_engine_layout_free(&layout);
    }
    ok = OMPI_SUCCESS == rc ? check_sum_int(out, 0, n, "out") : fail("engine returned %d", rc);
    if (ok && events != want) {
        ok = fail("advance reported %d events for %ld messages", events, want);
    }
    report("events", ok);
    hb_free(&b);
    free(in);
    free(out);
}

/* Messages split into pieces of a few elements; REDUCE pieces are reduced
 * one by one. */
static void case_split(void)
{
    size_t saved = mca_coll_themis_engine_max_message_bytes;
    mca_coll_themis_engine_max_message_bytes = 12;   /* 3 ints */
    case_allreduce("split_ring", 2000, 3, LAYOUT_PHASE_QUEUES, 0, 2, 1, 0);
    case_allreduce("split_direct", 1003, 2, LAYOUT_CROSSED, 1, 2, 0, 0);
    mca_coll_themis_engine_max_message_bytes = 1;    /* below one element */
    case_allreduce("split_one_elem", 97, 1, LAYOUT_ONE_QUEUE, 1, 1, 1, 0);
    mca_coll_themis_engine_max_message_bytes = saved;
}

/* tag_ub far below the tags: tags wrap modulo tag_ub + 1, safe here
 * because one queue with chunks_in_flight 1 orders every pair's messages.  And a
 * tag near UINT32_MAX with the real tag_ub. */
static void case_tags(void)
{
    const uint64_t n = 500;
    hb_t b;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    int ok;
    build_allreduce(&b, n, 4, LAYOUT_ONE_QUEUE, 0, 1, 1);
    for (uint64_t i = 0; i < n; ++i) {
        in[i] = val(rank, i);
    }
    ok = run(&b.p, in, out, MPI_INT, MPI_SUM, 2, NULL) && check_sum_int(out, 0, n, "out");
    report("tag_wrap", ok);
    for (uint32_t i = 0; i < b.p.nsteps; ++i) {
        b.p.steps[i].tag = UINT32_MAX - i;
    }
    ok = run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL)
        && check_sum_int(out, 0, n, "out");
    report("tag_large", ok);
    hb_free(&b);
    free(in);
    free(out);
}

/* Ops without steps, steps without peers (and a junk mode where there is
 * no receive), a copy-only program, and a zero-count receive. */
static void case_degenerate(void)
{
    const uint64_t n = 64;
    hb_t b;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    for (uint64_t i = 0; i < n; ++i) {
        in[i] = val(rank, i);
    }
    hb_init(&b, 2, 1);
    uint32_t a = hb_op(&b, 0, -1);
    hb_op(&b, 1, (int32_t) a);          /* no steps */
    hb_step(&b, -1, 0, 0, -1, 0, 0, 7, 0);
    hb_step(&b, -1, 5, 0, -1, 0, 0, 0, 1);
    hb_op(&b, 0, 1);
    hb_step(&b, mod(rank + 1, nprocs), 0, 0, mod(rank - 1, nprocs), 3, 0, THEMIS_RECV_REDUCE,
            0);
    hb_copy(&b, 0, 0, 0, n);
    hb_copy(&b, 1, 0, 0, n);
    hb_finish(&b, n, 0);
    int ok = run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL);
    for (uint64_t i = 0; ok && i < n; ++i) {
        if (out[i] != val(rank, i)) {
            ok = fail("copy-only out[%llu] = %d", (unsigned long long) i, out[i]);
        }
    }
    report("degenerate_ops", ok);
    hb_free(&b);
    free(in);
    free(out);
}

/* A contiguous datatype whose data starts 8 bytes after the buffer
 * pointer: scratch pointers and copies must honour the true lower bound.
 * Ring allgather through a scratch work buffer, whose data must start at
 * the scratch start (m ints are a multiple of 64 bytes: no slack). */
static void case_lower_bound(void)
{
    const uint64_t m = 48;
    MPI_Datatype st, dt;
    int len = 1;
    MPI_Aint disp = 8;
    MPI_Datatype base = MPI_INT;
    MPI_Type_create_struct(1, &len, &disp, &base, &st);
    MPI_Type_create_resized(st, 8, sizeof(int), &dt);
    MPI_Type_commit(&dt);
    mca_coll_themis_engine_scratch_release(&scratch);   /* measure this program alone */
    hb_t b;
    blk_t *blks = malloc(nprocs * sizeof(*blks));
    hb_init(&b, 1, 1);
    hb_copy(&b, 0, 0, rank * m, m);
    for (int r = 0; r < nprocs; ++r) {
        blks[r] = (blk_t) {r * m, m};
    }
    hb_op(&b, 0, -1);
    ring_ag(&b, blks);
    hb_copy(&b, 1, 0, 0, m * nprocs);
    hb_finish(&b, m * nprocs, 0);
    int *in = malloc(m * sizeof(int) + 8), *out = malloc(m * nprocs * sizeof(int) + 8);
    int *ind = (int *) ((char *) in + 8), *outd = (int *) ((char *) out + 8);
    for (uint64_t i = 0; i < m; ++i) {
        ind[i] = val(rank, i);
    }
    int ok = run(&b.p, in, out, dt, MPI_OP_NULL, tag_ub_world, NULL);
    for (int r = 0; ok && r < nprocs; ++r) {
        for (uint64_t i = 0; ok && i < m; ++i) {
            if (outd[r * m + i] != val(r, i)) {
                ok = fail("out[%d][%llu] = %d", r, (unsigned long long) i, outd[r * m + i]);
            }
        }
    }
    const int *sw = (const int *) scratch.base;
    if (ok && (scratch.size != m * nprocs * sizeof(int) || sw[0] != val(0, 0)
               || sw[m * nprocs - 1] != val(nprocs - 1, m - 1))) {
        ok = fail("work data not at the scratch start (size %zu)", scratch.size);
    }
    report("lower_bound_dtype", ok);
    MPI_Type_free(&dt);
    MPI_Type_free(&st);
    hb_free(&b);
    free(in);
    free(out);
    free(blks);
}

static size_t align64(size_t x)
{
    return (x + 63) / 64 * 64;
}

/* Scratch size equals the documented bound, computed here by hand. */
static void case_scratch_size(void)
{
    const uint64_t n = 1200;
    const int nchunks = 5;
    hb_t b;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    blk_t chunks[8], *blks = malloc(nprocs * sizeof(*blks));
    split(0, n, nchunks, chunks);
    for (uint64_t i = 0; i < n; ++i) {
        in[i] = val(rank, i);
    }
    int ok = 1;
    for (int direct = 0; direct < 2; ++direct) {
        mca_coll_themis_engine_scratch_release(&scratch);
        build_allreduce(&b, n, nchunks, LAYOUT_PHASE_QUEUES, direct, 3, 0);
        /* RS queue: 3 op slots; a ring op holds one receive at a time (the
         * largest it receives), a direct op all p-1 receives of its own
         * block; the AG queue only copies. */
        uint64_t peak = 0;
        for (int c = 0; c < nchunks; ++c) {
            split(chunks[c].off, chunks[c].count, nprocs, blks);
            uint64_t pk = direct ? (nprocs - 1) * blks[rank].count : 0;
            for (int s = 0; !direct && s < nprocs - 1; ++s) {
                uint64_t got = blks[mod(rank - s - 2, nprocs)].count;
                pk = got > pk ? got : pk;
            }
            peak = pk > peak ? pk : peak;
        }
        size_t want = align64(n * sizeof(int)) + align64(3 * peak * sizeof(int));
        if (!run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL)
            || !check_sum_int(out, 0, n, "out")) {
            ok = 0;
        } else if (scratch.size != want) {
            ok = fail("%s scratch %zu bytes, want %zu", direct ? "direct" : "ring",
                      scratch.size, want);
        }
        char *base = scratch.base;
        if (ok && (!run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL)
                   || scratch.base != base || scratch.size != want)) {
            ok = fail("scratch not reused");
        }
        hb_free(&b);
    }
    report("scratch_size", ok);
    free(in);
    free(out);
    free(blks);
}

/* A buffer of `size` bytes for the pool (it frees what it drops). */
static mca_coll_themis_scratch_t pool_buf(size_t size)
{
    mca_coll_themis_scratch_t sc = {.base = xrealloc(NULL, size), .size = size};
    return sc;
}

/* The pool's kept sizes, largest first, taken out one by one (emptying it)
 * and compared with want[0..n-1]. */
static int pool_drains_to(mca_coll_themis_scratch_pool_t *pool, const size_t *want, int n,
                          const char *what)
{
    for (int i = 0; i <= n; ++i) {
        mca_coll_themis_scratch_t sc = {NULL, 0};
        mca_coll_themis_scratch_pool_take(pool, &sc);
        size_t got = sc.size, w = i < n ? want[i] : 0;
        mca_coll_themis_engine_scratch_release(&sc);
        if (got != w) {
            return fail("%s: take %d gave %zu bytes, want %zu", what, i, got, w);
        }
    }
    return 1;
}

/* The scratch pool of nonblocking calls: largest first, a bounded number
 * of buffers and bytes, smaller ones dropped first; and a program run
 * twice on scratch from the pool reuses the buffer of the first run. */
static void case_scratch_pool(void)
{
    mca_coll_themis_scratch_pool_t pool;
    mca_coll_themis_scratch_t sc;
    int ok = 1;

    memset(&pool, 0, sizeof(pool));
    sc.base = NULL;
    sc.size = 0;
    mca_coll_themis_scratch_pool_take(&pool, &sc);
    if (NULL != sc.base) {
        ok = fail("an empty pool gave a buffer");
    }
    const size_t sizes[] = {100, 300, 200};
    for (int i = 0; i < 3; ++i) {
        sc = pool_buf(sizes[i]);
        mca_coll_themis_scratch_pool_give(&pool, &sc, 0);
        if (NULL != sc.base) {
            ok = fail("give left the buffer with the caller");
        }
    }
    const size_t order[] = {300, 200, 100};
    ok = ok && pool_drains_to(&pool, order, 3, "largest first");

    /* Full: a larger buffer pushes out the smallest, a smaller one is dropped. */
    for (size_t i = 1; i <= MCA_COLL_THEMIS_SCRATCH_KEEP; ++i) {
        sc = pool_buf(1000 * i);
        mca_coll_themis_scratch_pool_give(&pool, &sc, 0);
    }
    sc = pool_buf(500);
    mca_coll_themis_scratch_pool_give(&pool, &sc, 0);
    sc = pool_buf(10000);
    mca_coll_themis_scratch_pool_give(&pool, &sc, 0);
    size_t full[MCA_COLL_THEMIS_SCRATCH_KEEP];
    full[0] = 10000;
    for (int i = 1; i < MCA_COLL_THEMIS_SCRATCH_KEEP; ++i) {
        full[i] = 1000 * (size_t) (MCA_COLL_THEMIS_SCRATCH_KEEP - i + 1);
    }
    ok = ok && pool_drains_to(&pool, full, MCA_COLL_THEMIS_SCRATCH_KEEP, "full pool");

    /* At most max_bytes kept: 400 + 300 fit 800, 500 drops 300 and 400. */
    const size_t bounded[] = {400, 300, 500};
    for (int i = 0; i < 3; ++i) {
        sc = pool_buf(bounded[i]);
        mca_coll_themis_scratch_pool_give(&pool, &sc, 800);
    }
    const size_t kept[] = {500};
    ok = ok && pool_drains_to(&pool, kept, 1, "bounded bytes");
    sc = pool_buf(900);
    mca_coll_themis_scratch_pool_give(&pool, &sc, 800);
    ok = ok && pool_drains_to(&pool, NULL, 0, "larger than the bound");

    /* Two calls through the pool, as coll_themis_nbc.c runs them. */
    const uint64_t n = 3000;
    hb_t b;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    build_allreduce(&b, n, 4, LAYOUT_PHASE_QUEUES, 0, 2, 0);
    mca_coll_themis_engine_scratch_release(&scratch);
    for (int rep = 0; rep < 2 && ok; ++rep) {
        for (uint64_t i = 0; i < n; ++i) {
            in[i] = val(rank, i);
            out[i] = -7;
        }
        mca_coll_themis_scratch_pool_take(&pool, &scratch);
        char *given = scratch.base;
        if (1 == rep && NULL == given) {
            ok = fail("the pool kept nothing of the first call");
        }
        ok = ok && run(&b.p, in, out, MPI_INT, MPI_SUM, tag_ub_world, NULL)
             && check_sum_int(out, 0, n, "out");
        if (ok && 1 == rep && scratch.base != given) {
            ok = fail("the second call did not run in the first one's scratch");
        }
        mca_coll_themis_scratch_pool_give(&pool, &scratch, 0);
    }
    mca_coll_themis_scratch_pool_clear(&pool);
    report("scratch_pool", ok);
    hb_free(&b);
    free(in);
    free(out);
}

/* Inconsistent programs: every rank gets the same bad program and must
 * return OMPI_ERR_BAD_PARAM without communicating or touching scratch. */
static void case_bad_programs(void)
{
    const uint64_t n = 100;
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    static const char *names[] = {"send_range", "recv_peer", "dep_cycle", "dep_later",
                                  "op_unlisted", "op_twice", "reduce_no_op", "inflight0",
                                  "copy_out_range", "steps_range", "tag_ub", "recv_mode",
                                  "offset_overflow"};
    const int ncases = (int) (sizeof(names) / sizeof(names[0]));
    int ok = 1;
    for (int k = 0; k < ncases; ++k) {
        hb_t b;
        MPI_Op op = MPI_SUM;
        int tag_ub = tag_ub_world, rc = OMPI_SUCCESS;
        build_allreduce(&b, n, 2, LAYOUT_PHASE_QUEUES, 0, 2, 1);
        themis_program_t *p = &b.p;
        switch (k) {
        case 0: p->steps[0].send_count = n + 1; break;
        case 1: p->steps[p->nsteps - 1].recv_peer = nprocs; break;
        case 2: set_dep(p, 0, 1); break;                    /* RS0 <-> AG0 */
        case 3: set_dep(p, 0, 2); break;                    /* RS0 after RS1, same queue */
        case 4: p->queue_first[p->nqueues]--; break;
        case 5: p->queue_ops[1] = p->queue_ops[0]; break;
        case 6: op = MPI_OP_NULL; break;
        case 7: p->chunks_in_flight = 0; break;
        case 8: p->copy_out = xrealloc(p->copy_out, sizeof(themis_copy_t));
                p->ncopy_out = 1;
                p->copy_out[0] = (themis_copy_t) {.src_off = 1, .dst_off = 0, .count = n};
                break;
        case 9: p->ops[p->nops - 1].nsteps++; break;
        case 10: tag_ub = -1; break;
        case 11: p->steps[0].recv_mode = THEMIS_RECV_NONE; break;
        case 12: p->steps[0].recv_off = UINT64_MAX - 1; break;
        }
        size_t before = scratch.size;
        run(p, in, out, MPI_INT, op, tag_ub, &rc);
        if (OMPI_ERR_BAD_PARAM != rc) {
            ok = fail("%s: returned %d, want OMPI_ERR_BAD_PARAM", names[k], rc);
        } else if (scratch.size != before) {
            ok = fail("%s: scratch changed", names[k]);
        }
        hb_free(&b);
    }
    report("bad_programs", ok);
    free(in);
    free(out);
}

/* More than INT_MAX elements in one transfer (split by the engine): rank 0
 * sends 2^31 + 77 bytes to rank 1 as MPI_BYTE COPY (2 GiB per rank). */
static void case_big(void)
{
    if (NULL == getenv("THEMIS_ENGINE_BIG")) {
        return;   /* run_engine_harness.sh reports the skip once */
    }
    if (2 != nprocs) {
        if (0 == rank) {
            printf("SKIP: %s/big_transfer np=%d (needs 2 ranks)\n", label, nprocs);
        }
        return;
    }
    const uint64_t n = ((uint64_t) 1 << 31) + 77;
    size_t saved = mca_coll_themis_engine_max_message_bytes;
    if (NULL != getenv("THEMIS_ENGINE_MAX_MSG")) {   /* probe transports' limits */
        mca_coll_themis_engine_max_message_bytes = strtoull(getenv("THEMIS_ENGINE_MAX_MSG"),
                                                            NULL, 0);
    }
    unsigned char *buf = malloc(n);
    int ok = NULL != buf ? 1 : fail("no memory");
    hb_t b;
    hb_init(&b, 1, 1);
    hb_op(&b, 0, -1);
    if (0 == rank) {
        hb_step(&b, 1, 0, n, -1, 0, 0, THEMIS_RECV_NONE, 0);
    } else {
        hb_step(&b, -1, 0, 0, 0, 0, n, THEMIS_RECV_COPY, 0);
    }
    hb_finish(&b, n, 1);
    if (ok) {
        for (uint64_t i = 0; i < n; ++i) {
            buf[i] = 0 == rank ? (unsigned char) (i * 7 + i / 4099) : 0;
        }
        ok = run(&b.p, NULL, buf, MPI_BYTE, MPI_OP_NULL, tag_ub_world, NULL);
        for (uint64_t i = 0; ok && i < n; ++i) {
            if (buf[i] != (unsigned char) (i * 7 + i / 4099)) {
                ok = fail("byte %llu is %u", (unsigned long long) i, buf[i]);
            }
        }
    }
    mca_coll_themis_engine_max_message_bytes = saved;
    report("big_transfer", ok);
    hb_free(&b);
    free(buf);
}

/* A transfer that fails: rank 0 sends 10 ints where rank 1 expects 5.
 * Rank 1 also waits for a message nobody sends and sends 1 MiB nobody
 * receives; it must return the truncation error after cancelling and
 * draining (detaching what cannot finish) instead of hanging, keeping its
 * scratch (the send reads the output), and rank 0 must succeed.  Runs on
 * a private duplicate of MPI_COMM_WORLD; rank 0 takes the orphaned send
 * afterwards, as a transport cannot shut down with it pending. */
static void case_error(void)
{
    static int buf[262144 + 16];   /* static: a detached send may still read it */
    MPI_Comm comm;
    hb_t b;
    int rc = OMPI_SUCCESS, ok = 1;
    const char *pml = mca_pml_base_selected_component.pmlm_version.mca_component_name;
    if (0 == strcmp(pml, "cm")) {
        /* Seen with mtl/ofi over the libfabric tcp provider (Open MPI
         * 4.1.4): after a truncated receive, later messages between the two
         * ranks can be lost.  Not an engine matter; the test would hang. */
        if (0 == rank) {
            printf("SKIP: %s/error_truncate np=%d (pml cm: a truncated receive can break "
                   "later traffic)\n", label, nprocs);
        }
        return;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    hb_init(&b, 1, 1);
    if (rank <= 1) {
        hb_op(&b, 0, -1);
    }
    if (0 == rank) {
        hb_step(&b, 1, 0, 10, -1, 0, 0, THEMIS_RECV_NONE, 0);
    } else if (1 == rank) {
        hb_step(&b, -1, 0, 0, 0, 0, 5, THEMIS_RECV_COPY, 0);
        hb_step(&b, -1, 0, 0, 0, 8, 4, THEMIS_RECV_COPY, 0);
        hb_step(&b, 0, 16, 262144, -1, 0, 0, THEMIS_RECV_NONE, 0);
    }
    hb_finish(&b, 262144 + 16, 1);
    mca_coll_themis_engine_layout_t layout;
    mca_coll_themis_engine_args_t a = {.prog = &b.p, .layout = &layout, .output = buf,
                                       .dtype = MPI_INT, .p2p_comm = comm,
                                       .tag_ub = tag_ub_world, .scratch = &scratch};
    char *scratch_before = scratch.base;
    double t0 = MPI_Wtime();
    int size;
    MPI_Comm_size(comm, &size);
    rc = mca_coll_themis_engine_prepare(&b.p, size, &layout);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_themis_engine_run(&a);
        mca_coll_themis_engine_layout_free(&layout);
    }
    double dt = MPI_Wtime() - t0;
    if (1 == rank && OMPI_SUCCESS == rc) {
        ok = fail("truncated receive returned success");
    } else if (1 != rank && OMPI_SUCCESS != rc) {
        ok = fail("returned %d", rc);
    } else if (dt > 30) {
        ok = fail("took %.1f s", dt);
    } else if (scratch.base != scratch_before) {
        ok = fail("scratch given up though no request used it");
    }
    /* Once rank 1 has given up on its send, receive it (tag = its step
     * index 2) so that nothing stays pending into MPI_Finalize. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == rank) {
        MPI_Recv(buf, 262144, MPI_INT, 1, 2, comm, MPI_STATUS_IGNORE);
    }
    report("error_truncate", ok);
    hb_free(&b);
    MPI_Comm_free(&comm);
}

/* ------------------------------------------------------------ compiled */

/* Grid shapes for this many ranks, innermost first. */
static int shapes_for(int p, uint32_t shapes[][3], int *ndims)
{
    int k = 0;
    shapes[k][0] = p; ndims[k++] = 1;
    for (int a = 2; a < p; ++a) {
        if (0 == p % a) {
            shapes[k][0] = a; shapes[k][1] = p / a; ndims[k++] = 2;
        }
    }
    if (8 == p) {
        shapes[k][0] = 2; shapes[k][1] = 2; shapes[k][2] = 2; ndims[k++] = 3;
    }
    return k;
}

static int compiled_one(themis_coll_t coll, const uint32_t *shape, int ndims,
                        themis_sched_kind_t kind, themis_order_policy_t policy, int algo_mix,
                        uint32_t nchunks, uint32_t chunks_in_flight, int permute, uint64_t count)
{
    themis_topology_t topo;
    themis_schedule_t sched;
    themis_sim_result_t sim;
    themis_program_t prog;
    themis_sched_params_t sp;
    themis_sim_params_t simp = {.policy = policy, .chunks_in_flight = chunks_in_flight};
    uint64_t *rcounts = NULL, total;
    int *c2r = NULL, ok = 1;

    memset(&topo, 0, sizeof(topo));
    topo.ndims = ndims;
    for (int d = 0; d < ndims; ++d) {
        topo.dims[d] = (themis_dim_t) {.size = shape[d], .kind = (d + algo_mix) % 2
                                           ? THEMIS_DIM_FC : THEMIS_DIM_RING,
                                       .bw_bps = 100000000000ULL >> d,
                                       .step_latency = 1000000};
    }
    if (THEMIS_COLL_REDUCE_SCATTER == coll) {
        rcounts = malloc(nprocs * sizeof(*rcounts));
        total = 0;
        for (int r = 0; r < nprocs; ++r) {
            rcounts[r] = 1 == r ? 0 : count + (r * 13) % 7;   /* rank 1: empty */
            total += rcounts[r];
        }
    } else {
        total = THEMIS_COLL_ALLGATHER == coll ? count * nprocs : count;
    }
    themis_sched_params_init(&sp, coll, total * sizeof(int), nchunks, kind);
    if (THEMIS_OK != themis_schedule_build(&topo, &sp, &sched)) {
        free(rcounts);
        return fail("schedule_build failed");
    }
    if (THEMIS_OK != themis_simulate(&topo, &sched, &simp, &sim)) {
        themis_schedule_free(&sched);
        free(rcounts);
        return fail("simulate failed");
    }
    if (permute) {   /* coordinates reversed against ranks */
        c2r = malloc(nprocs * sizeof(*c2r));
        for (int i = 0; i < nprocs; ++i) {
            c2r[i] = nprocs - 1 - i;
        }
    }
    themis_plan_request_t req = {.coll = coll, .ndims = ndims, .rank = rank,
                                 .coord_to_rank = c2r, .count = count, .recvcounts = rcounts,
                                 .chunks_in_flight = chunks_in_flight};
    for (int d = 0; d < ndims; ++d) {
        req.dim_size[d] = shape[d];
        req.dim_algo[d] = THEMIS_DIM_FC == topo.dims[d].kind ? THEMIS_DIM_ALGO_DIRECT
                                                             : THEMIS_DIM_ALGO_RING;
    }
    themis_status_t st = themis_program_build_hier(&req, &sched, &sim.order, &prog);
    if (THEMIS_OK != st) {
        ok = fail("program_build_hier: %s", themis_status_string(st));
    }

    uint64_t in_n = THEMIS_COLL_ALLGATHER == coll ? count : total;
    uint64_t out_n = THEMIS_COLL_REDUCE_SCATTER == coll ? rcounts[rank] : total;
    uint64_t first = 0;
    for (int r = 0; THEMIS_COLL_REDUCE_SCATTER == coll && r < rank; ++r) {
        first += rcounts[r];
    }
    int *in = malloc((in_n + 1) * sizeof(int)), *out = malloc((out_n + 1) * sizeof(int));
    for (uint64_t i = 0; i < in_n; ++i) {
        in[i] = val(rank, i);
    }
    for (uint64_t i = 0; i < out_n; ++i) {
        out[i] = -3;
    }
    if (ok) {
        ok = run(&prog, in, out, MPI_INT,
                 THEMIS_COLL_ALLGATHER == coll ? MPI_OP_NULL : MPI_SUM, tag_ub_world, NULL);
    }
    if (ok && THEMIS_COLL_ALLGATHER == coll) {
        for (int r = 0; ok && r < nprocs; ++r) {
            for (uint64_t i = 0; ok && i < count; ++i) {
                if (out[r * count + i] != val(r, i)) {
                    ok = fail("allgather out[%d][%llu] = %d", r, (unsigned long long) i,
                              out[r * count + i]);
                }
            }
        }
    } else if (ok) {
        ok = check_sum_int(out, first, out_n, "out");
    }
    if (THEMIS_OK == st) {
        themis_program_free(&prog);
    }
    themis_sim_result_free(&sim);
    themis_schedule_free(&sched);
    free(in);
    free(out);
    free(rcounts);
    free(c2r);
    return ok;
}

static void case_compiled(void)
{
    uint32_t shapes[16][3];
    int ndims[16];
    int nshapes = shapes_for(nprocs, shapes, ndims);
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    static const char *cname[] = {"ar", "rs", "ag"};
    for (int s = 0; s < nshapes; ++s) {
        for (int c = 0; c < 3; ++c) {
            int ok = 1;
            int v = 0;
            /* variants: scheduler x order policy x algorithms x chunks_in_flight */
            for (int kind = 0; ok && kind < 2; ++kind) {
                for (int mix = 0; ok && mix < 2; ++mix, ++v) {
                    ok = compiled_one(colls[c], shapes[s], ndims[s],
                                      kind ? THEMIS_SCHED_THEMIS : THEMIS_SCHED_BASELINE,
                                      (v & 1) ? THEMIS_ORDER_SCF : THEMIS_ORDER_FIFO, mix,
                                      4 + (uint32_t) v, 1 + (uint32_t) (v % 3), v & 1,
                                      997 + 16 * v);
                }
            }
            ok = ok && compiled_one(colls[c], shapes[s], ndims[s], THEMIS_SCHED_THEMIS,
                                    THEMIS_ORDER_SCF, 0, 3, 2, 0, 2);   /* tiny chunks */
            char name[64];
            snprintf(name, sizeof(name), "compiled_%s_%ud", cname[c], ndims[s]);
            for (int d = 0; d < ndims[s]; ++d) {
                snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s%u",
                         d ? "x" : "_", shapes[s][d]);
            }
            report(name, ok);
        }
    }
}

int main(int argc, char **argv)
{
    int flag, *ub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    tag_ub_world = flag ? *ub : 32767;
    if (argc > 1) {
        label = argv[1];
    }
    if (0 == rank) {
        printf("# %s: %d ranks, MPI_TAG_UB %d\n", label, nprocs, tag_ub_world);
    }

    case_allreduce("ring_1q_i1", 1000, 4, LAYOUT_ONE_QUEUE, 0, 1, 1, 0);
    case_allreduce("ring_1q_i2", 1000, 4, LAYOUT_ONE_QUEUE, 0, 2, 1, 0);
    case_allreduce("ring_2q_i2", 4099, 7, LAYOUT_PHASE_QUEUES, 0, 2, 1, 0);
    case_allreduce("ring_crossed_i3", 3001, 9, LAYOUT_CROSSED, 0, 3, 1, 0);
    case_allreduce("direct_2q_i2", 2048, 4, LAYOUT_PHASE_QUEUES, 1, 2, 1, 0);
    case_allreduce("direct_crossed_i4", 777, 6, LAYOUT_CROSSED, 1, 4, 1, 0);
    case_allreduce("ring_tiny_chunks", 3, 2, LAYOUT_PHASE_QUEUES, 0, 2, 1, 0);
    case_allreduce("ring_in_place", 1500, 3, LAYOUT_PHASE_QUEUES, 0, 2, 1, 1);
    case_allreduce("direct_in_place", 1500, 3, LAYOUT_CROSSED, 1, 2, 1, 1);
    case_allreduce("ring_scratch_work", 1234, 3, LAYOUT_PHASE_QUEUES, 0, 2, 0, 0);
    case_allreduce("direct_scratch_work", 1234, 5, LAYOUT_CROSSED, 1, 3, 0, 0);
    case_allreduce("ring_large_1MiB", 262144, 8, LAYOUT_CROSSED, 0, 2, 1, 0);
    case_ops();
    case_reduce_scatter(1, 1);
    case_reduce_scatter(4, 3);
    case_allgather("allgather_ring", 0, 0);
    case_allgather("allgather_direct_in_place", 1, 1);
    case_events();
    case_split();
    case_tags();
    case_degenerate();
    case_lower_bound();
    case_scratch_size();
    case_scratch_pool();
    case_bad_programs();
    case_big();
    case_compiled();
    case_chains_joins_local();
    case_error();

    mca_coll_themis_engine_scratch_release(&scratch);
    MPI_Finalize();
    return 0;
}
