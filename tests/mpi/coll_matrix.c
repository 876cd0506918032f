/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Correctness matrix for coll/themis through the public MPI API:
 * MPI_Allreduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block and
 * MPI_Allgather over the predefined datatypes with every op the MPI
 * standard allows for them (MPI-3.1 sec. 5.9.2), user ops (commutative and
 * not), contiguous and vector derived datatypes, in place and not, and
 * counts around the chunking boundaries.
 *
 * Every rank computes the expected result itself from a closed-form input
 * generator gen(rank, element) chosen so that no sum or product overflows
 * and every floating result is exact in any reduction order.  Each case
 * also checks that the send buffer is unchanged and that nothing past the
 * result (nor in the gaps of a vector type) was written.
 *
 * Which path ran is proven with coll/themis' MPI_T counters:
 *   --expect themis    eligible calls (commutative op,
 *                      size >= coll_themis_min_bytes) must raise the
 *                      *_calls counter, ineligible ones *_fallbacks;
 *   --expect fallback  no call may run themis, and some must fall back
 *                      (ranks disagree, bad parameters);
 *   --expect none      no counter checks (default colls; also forced by
 *                      THEMIS_TEST_NO_PVARS=1).
 * --algo NAME (a row of the component's algorithm table, found through its
 * counters; with --expect themis) also requires every themis-path call on a
 * communicator of the world's shape to raise exactly that algorithm's
 * coll_themis_<coll>_NAME_calls and no other algorithm's, and
 * coll_themis_<coll>_substitutions only with --substituted (the component
 * ran it in place of another request).  Rank 0 then prints a
 * "coll_matrix algorithms: rank 0 A/B/.../substitutions: coll=a/b/.../s"
 * line with its totals of those counters, in the table's order.
 * --level full|reduced|tiny|minbytes picks the matrix, --big adds
 * 1000003-element cases for a few representative types.
 * --coll allreduce|reduce_scatter|allgather runs one collective (both
 * reduce-scatter calls for reduce_scatter; reduce_scatter_v and
 * reduce_scatter_block name one of them), and --count-unit N multiplies
 * every count by N and keeps reduce-scatter counts even.  --counts
 * A,B,... replaces the level's counts (at most 16; the level still picks
 * types and ops) and runs every reduce-scatter distribution (even, skewed
 * with empty blocks, all on one rank) at each: counts the schedules'
 * units do not divide (primes, powers of two) for the rows that must
 * serve them all.
 *
 * --shard I/N runs only the cases numbered I, I+N, I+2N, ... in the order
 * the matrix enumerates them (identical on every rank), so that N runs
 * of a long matrix (the full level at large counts) cover it exactly
 * once; --list prints the selected cases ("case: ..." lines from rank 0)
 * without running them, which is how the suites check that partition.
 * --ring-check (blocking allreduce): each rank computes the expected
 * values of its 1/p of the elements only and compares the rest with its
 * neighbour's result, which makes 2^20-element cases p times cheaper.
 *
 * Output: "error: ..." lines for failures (first few per rank) and one
 * summary line from rank 0; exit status 0 only when every rank passed.
 * The suite script turns that into PASS:/FAIL: lines.
 *
 * Run with `--mca op ^avx`: op/avx in Open MPI 4.1.4 saturates 8/16-bit
 * integer sums (ompi#8045).  The inputs here never overflow, so saturation
 * cannot change a result, but the suite runs on the same op component as
 * every other themis test.
 *
 * This file holds the levels (which types, ops and counts) and main; the
 * ops and datatypes are in coll_matrix_types.c, the input generator and
 * reference reduction in coll_matrix_values.c, one case's buffers, call and
 * checks in coll_matrix_case.c, --nonblocking in coll_matrix_nb.c.
 */
#include "coll_matrix.h"

/* ------------------------------------------------------------------ levels */

typedef enum { L_FULL, L_REDUCED, L_TINY, L_MINBYTES } level_t;

#define OPS_REDUCED (OPBIT(O_SUM) | OPBIT(O_PROD) | OPBIT(O_MAX) | OPBIT(O_LXOR) | OPBIT(O_BAND) \
                     | OPBIT(O_MINLOC) | OPBIT(O_USERADD) | OPBIT(O_AFFINE))
#define OPS_TINY (OPBIT(O_SUM) | OPBIT(O_MAX) | OPBIT(O_MAXLOC) | OPBIT(O_USERADD) | OPBIT(O_AFFINE))

static int type_in_level(const tdesc_t *t, level_t level)
{
    switch (level) {
    case L_FULL: return 1;
    case L_REDUCED: return 0 != (t->levels & IN_REDUCED);
    case L_TINY: return 0 != (t->levels & IN_TINY);
    default: return 0 == strcmp(t->name, "MPI_INT");
    }
}

static unsigned ops_in_level(level_t level)
{
    switch (level) {
    case L_FULL: return ~0u;
    case L_REDUCED: return OPS_REDUCED;
    case L_TINY: return OPS_TINY;
    default: return OPBIT(O_SUM);
    }
}

static size_t build_counts(level_t level, int p, uint64_t chunks, uint64_t min_bytes,
                           size_t count_unit, size_t *counts)
{
    /* With --count-unit every count is multiplied by the unit (usually p),
     * so chunks + 1 units already spread over many chunks; chunks * p units
     * would grow the reduce-scatter input as p^3 (27 ranks: 1 GiB each). */
    size_t n = 0, cp = (size_t) chunks * (count_unit > 1 ? 1 : (size_t) p);
    switch (level) {
    case L_FULL:
        counts[n++] = 0; counts[n++] = 1; counts[n++] = p - 1; counts[n++] = p;
        counts[n++] = 7; counts[n++] = cp - 1; counts[n++] = cp + 1;
        break;
    case L_REDUCED:
        counts[n++] = 0; counts[n++] = 1; counts[n++] = p - 1; counts[n++] = 7;
        counts[n++] = cp + 1;
        break;
    case L_TINY:
        counts[n++] = 1; counts[n++] = 7; counts[n++] = cp + 1;
        break;
    default:
        /* One int, and enough ints that even one rank's block reaches min_bytes. */
        counts[n++] = 1;
        counts[n++] = (size_t) (min_bytes / sizeof(int)) * p + p;
        break;
    }
    /* Drop duplicates (p-1 == 1 when p == 2, ...). */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < m; j++) {
            dup |= (counts[j] == counts[i]);
        }
        if (!dup) {
            counts[m++] = counts[i];
        }
    }
    return m;
}

/* --coll: reduce_scatter names both reduce-scatters. */
static int coll_selected(const ctx_t *cx, int coll)
{
    return 0 != (cx->colls & (1u << coll));
}

static void run_matrix_cases(ctx_t *cx, level_t level, const size_t *counts, size_t ncounts,
                             int big)
{
    const int p = cx->nprocs;
    unsigned opmask = ops_in_level(level);
    for (int coll = C_ALLREDUCE; coll <= C_ALLGATHER; coll++) {
        if (!coll_selected(cx, coll)) {
            continue;
        }
        for (int ti = 0; ti < ntypes; ti++) {
            const tdesc_t *t = &types[ti];
            if (!type_in_level(t, level)) {
                continue;
            }
            for (int op = 0; op < O_COUNT; op++) {
                if (C_ALLGATHER == coll ? (O_NONE != op)
                    : (O_NONE == op || !(t->ops & opmask & OPBIT(op)))) {
                    continue;
                }
                for (size_t ci = 0; ci < ncounts; ci++) {
                    for (int inplace = 0; inplace < 2; inplace++) {
                        case_t c = { (coll_t) coll, t, (op_id_t) op,
                                     counts[ci] * cx->count_unit, inplace, D_EVEN };
                        if (L_MINBYTES == level && inplace) {
                            continue;
                        }
                        if (C_REDUCE_SCATTER != coll) {
                            submit(cx, &c);
                            continue;
                        }
                        for (int d = 0; d < D_NDISTS; d++) {
                            if (cx->explicit_counts ? 1
                                : cx->count_unit > 1 ? D_EVEN == d
                                : (L_FULL == level || (L_REDUCED == level && D_SKEW == d)
                                   || (L_REDUCED != level && D_EVEN == d))) {
                                c.dist = (dist_t) d;
                                submit(cx, &c);
                            }
                        }
                    }
                }
            }
        }
    }
    if (!big) {
        return;
    }
    /* A few representative types at a large odd count. */
    static const struct { const char *type; op_id_t op; int inplace; } bigs[] = {
        { "MPI_INT", O_SUM, 0 }, { "MPI_DOUBLE", O_SUM, 1 }, { "MPI_INT8_T", O_MAX, 0 },
    };
    for (int coll = C_ALLREDUCE; coll <= C_ALLGATHER; coll++) {
        for (size_t i = 0; i < sizeof(bigs) / sizeof(bigs[0]); i++) {
            if (C_ALLGATHER == coll && i > 0) {
                break;
            }
            case_t c = { (coll_t) coll, find_type(bigs[i].type),
                         C_ALLGATHER == coll ? O_NONE : bigs[i].op, BIG_COUNT, bigs[i].inplace,
                         D_SKEW };
            if (C_REDUCE_SCATTER_BLOCK == coll || C_ALLGATHER == coll) {
                c.count = BIG_COUNT / p;
            }
            submit(cx, &c);
        }
    }
}

/* With --nonblocking the first call on a fresh communicator is
 * nonblocking: the setup runs without blocking and the call, waiting
 * behind it, takes the path of any call of its size (docs/coll_themis.md).
 * A blocking call follows before the matrix. */
static void nb_setup(ctx_t *cx)
{
    tc_snapshot_t before, after;
    MPI_Request r;
    int one = 1, sum = 0, err;

    if (0 == cx->nb) {
        return;
    }
    tc_read(&before);
    err = MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, cx->comm, &r);
    if (MPI_SUCCESS == err) {
        err = MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    tc_read(&after);
    if (MPI_SUCCESS != err || sum != cx->nprocs) {
        report(cx, NULL, "first MPI_Iallreduce: %d, sum %d", err, sum);
    }
    const int themis = sizeof(int) >= cx->min_bytes;
    if (EXPECT_THEMIS == cx->expect && cx->comm_is_world_like
        && (after.calls[TC_IALLREDUCE] != before.calls[TC_IALLREDUCE] + (themis ? 1 : 0)
            || after.fallbacks[TC_IALLREDUCE] != before.fallbacks[TC_IALLREDUCE]
                                                      + (themis ? 0 : 1))) {
        report(cx, NULL, "the first call on a communicator, nonblocking: "
               "coll_themis_iallreduce_calls +%" PRIu64 ", _fallbacks +%" PRIu64
               ", expected %s", after.calls[TC_IALLREDUCE] - before.calls[TC_IALLREDUCE],
               after.fallbacks[TC_IALLREDUCE] - before.fallbacks[TC_IALLREDUCE],
               themis ? "themis" : "a fallback (below coll_themis_min_bytes)");
    }
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, cx->comm);
}

/* One MPI_INT with MPI_MAX or MPI_MIN is also what Open MPI's
 * communicator-id agreement sends through coll/themis (which runs those
 * apart, coll_themis_cid_agreements): the user's own such calls, with an
 * MPI_Comm_idup (an agreement) in flight on the same communicator, must
 * give the right values and count as the user's MPI_Iallreduce calls. */
static void nb_cid_shape(ctx_t *cx)
{
    tc_snapshot_t before, after;
    MPI_Request r[3];
    MPI_Comm dup = MPI_COMM_NULL;
    int mine = 3 * cx->rank + 1, most = -1, least = -1, err;

    if (0 == cx->nb) {
        return;
    }
    tc_read(&before);
    err = MPI_Comm_idup(cx->comm, &dup, &r[0]);
    if (MPI_SUCCESS == err) {
        err = MPI_Iallreduce(&mine, &most, 1, MPI_INT, MPI_MAX, cx->comm, &r[1]);
    }
    if (MPI_SUCCESS == err) {
        err = MPI_Iallreduce(&mine, &least, 1, MPI_INT, MPI_MIN, cx->comm, &r[2]);
    }
    for (int i = 0; i < 3 && MPI_SUCCESS == err; i++) {
        /* Completed in an order that differs between ranks. */
        err = MPI_Wait(&r[(i + cx->rank) % 3], MPI_STATUS_IGNORE);
    }
    tc_read(&after);
    if (MPI_SUCCESS != err || most != 3 * (cx->nprocs - 1) + 1 || least != 1) {
        report(cx, NULL, "one-int MPI_MAX/MPI_MIN MPI_Iallreduce beside MPI_Comm_idup: %d, "
               "max %d, min %d", err, most, least);
    }
    const uint64_t dc = after.calls[TC_IALLREDUCE] - before.calls[TC_IALLREDUCE];
    const uint64_t df = after.fallbacks[TC_IALLREDUCE] - before.fallbacks[TC_IALLREDUCE];
    if (EXPECT_NONE != cx->expect && cx->comm_is_world_like && 2 != dc + df) {
        report(cx, NULL, "one-int MPI_MAX/MPI_MIN MPI_Iallreduce: coll_themis_iallreduce_calls "
               "+%" PRIu64 ", _fallbacks +%" PRIu64 ", expected 2 in all (taken for Open "
               "MPI's communicator-id agreement?)", dc, df);
    }
    if (MPI_COMM_NULL != dup) {
        MPI_Comm_free(&dup);
    }
}

static void run_matrix(ctx_t *cx, level_t level, const size_t *counts, size_t ncounts, int big)
{
    nb_setup(cx);
    nb_cid_shape(cx);
    run_matrix_cases(cx, level, counts, ncounts, big);
    batch_flush(cx);
}

/* ------------------------------------------------------------------ main */

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--level full|reduced|tiny|minbytes] "
            "[--expect themis|fallback|none] [--algo NAME [--substituted]] "
            "[--big] [--no-subcomms] "
            "[--coll allreduce|reduce_scatter|reduce_scatter_v|reduce_scatter_block|allgather] "
            "[--count-unit N] [--counts A,B,...] [--max-rss-mb N] [--nonblocking N] "
            "[--shard I/N] [--list] [--ring-check]\n", argv0);
}

int main(int argc, char **argv)
{
    level_t level = L_REDUCED;
    expect_mode_t expect = EXPECT_THEMIS;
    int big = 0, subcomms = 1, substituted = 0;
    const char *algo = NULL;
    char err[256];
    unsigned colls = 0xfu;   /* bit c: coll_t c runs */
    size_t count_unit = 1;
    size_t counts[16], ncounts = 0;
    int bad_counts = 0, nb = 0, list = 0, ring_check = 0;
    unsigned shard_i = 0, shard_n = 1;
    long max_rss_mb = 0;

    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--level") && i + 1 < argc) {
            const char *l = argv[++i];
            level = !strcmp(l, "full") ? L_FULL : !strcmp(l, "tiny") ? L_TINY
                    : !strcmp(l, "minbytes") ? L_MINBYTES : L_REDUCED;
        } else if (0 == strcmp(argv[i], "--expect") && i + 1 < argc) {
            const char *e = argv[++i];
            expect = !strcmp(e, "none") ? EXPECT_NONE : !strcmp(e, "fallback") ? EXPECT_FALLBACK
                     : EXPECT_THEMIS;
        } else if (0 == strcmp(argv[i], "--algo") && i + 1 < argc) {
            algo = argv[++i];   /* checked against the counters after tc_init */
        } else if (0 == strcmp(argv[i], "--substituted")) {
            substituted = 1;
        } else if (0 == strcmp(argv[i], "--big")) {
            big = 1;
        } else if (0 == strcmp(argv[i], "--nonblocking") && i + 1 < argc) {
            nb = atoi(argv[++i]);
            bad_counts |= nb < 1 || nb > MAX_BATCH;
        } else if (0 == strcmp(argv[i], "--no-subcomms")) {
            subcomms = 0;
        } else if (0 == strcmp(argv[i], "--coll") && i + 1 < argc) {
            const char *c = argv[++i];
            colls = !strcmp(c, "allreduce") ? 1u << C_ALLREDUCE
                    : !strcmp(c, "reduce_scatter")
                        ? 1u << C_REDUCE_SCATTER | 1u << C_REDUCE_SCATTER_BLOCK
                    : !strcmp(c, "reduce_scatter_v") ? 1u << C_REDUCE_SCATTER
                    : !strcmp(c, "reduce_scatter_block") ? 1u << C_REDUCE_SCATTER_BLOCK
                    : !strcmp(c, "allgather") ? 1u << C_ALLGATHER : 0;
        } else if (0 == strcmp(argv[i], "--count-unit") && i + 1 < argc) {
            count_unit = strtoull(argv[++i], NULL, 10);
        } else if (0 == strcmp(argv[i], "--counts") && i + 1 < argc) {
            char *s = argv[++i], *end = s;
            do {
                if (ncounts == sizeof(counts) / sizeof(counts[0])) {
                    bad_counts = 1;
                    break;
                }
                counts[ncounts++] = strtoull(',' == *end ? end + 1 : end, &end, 10);
            } while (',' == *end);
            bad_counts |= '\0' != *end;
        } else if (0 == strcmp(argv[i], "--shard") && i + 1 < argc) {
            char *end;
            shard_i = (unsigned) strtoul(argv[++i], &end, 10);
            shard_n = '/' == *end ? (unsigned) strtoul(end + 1, &end, 10) : 0;
            bad_counts |= '\0' != *end || 0 == shard_n || shard_i >= shard_n;
        } else if (0 == strcmp(argv[i], "--list")) {
            list = 1;
        } else if (0 == strcmp(argv[i], "--ring-check")) {
            ring_check = 1;
        } else if (0 == strcmp(argv[i], "--max-rss-mb") && i + 1 < argc) {
            max_rss_mb = atol(argv[++i]);
        } else {
            usage(argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    const char *nopv = getenv("THEMIS_TEST_NO_PVARS");
    if ((NULL != nopv && 0 == strcmp(nopv, "1")) || list) {
        expect = EXPECT_NONE;
    }
    if (list) {
        nb = 0;   /* nothing runs, not even --nonblocking's setup calls */
    }

    ctx_t cx;
    memset(&cx, 0, sizeof(cx));
    cx.comm = MPI_COMM_WORLD;
    cx.comm_name = "MPI_COMM_WORLD";
    cx.comm_is_world_like = 1;
    cx.expect = expect;
    cx.algo = -1;
    cx.substituted = substituted;
    cx.colls = colls;
    cx.count_unit = count_unit;
    cx.explicit_counts = ncounts > 0;
    cx.nb = nb;
    cx.shard_i = shard_i;
    cx.shard_n = shard_n;
    cx.list = list;
    cx.ring_check = ring_check;
    if (0 == colls || 0 == count_unit || bad_counts) {
        usage(argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &cx.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cx.nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (cx.nprocs < 2 || cx.nprocs > 64) {
        if (0 == cx.rank) {
            printf("error: needs 2..64 ranks, got %d\n", cx.nprocs);
        }
        MPI_Finalize();
        return 1;
    }

    /* Setup errors are reported like case errors. */
    if (0 != build_types(err, sizeof(err))) {
        report(&cx, NULL, "datatype layout: %s", err);
    }
    op_handles[O_SUM] = MPI_SUM; op_handles[O_PROD] = MPI_PROD;
    op_handles[O_MIN] = MPI_MIN; op_handles[O_MAX] = MPI_MAX;
    op_handles[O_LAND] = MPI_LAND; op_handles[O_LOR] = MPI_LOR; op_handles[O_LXOR] = MPI_LXOR;
    op_handles[O_BAND] = MPI_BAND; op_handles[O_BOR] = MPI_BOR; op_handles[O_BXOR] = MPI_BXOR;
    op_handles[O_MINLOC] = MPI_MINLOC; op_handles[O_MAXLOC] = MPI_MAXLOC;
    op_handles[O_NONE] = MPI_OP_NULL;
    MPI_Op_create(user_add_fn, 1, &op_handles[O_USERADD]);
    MPI_Op_create(user_affine_fn, 0, &op_handles[O_AFFINE]);

    int nfound = 0;
    if (EXPECT_NONE != expect) {
        nfound = tc_init(err, sizeof(err));
        if (nfound < 0) {
            report(&cx, NULL, "MPI_T: %s", err);
        } else if (2 * TC_NCOLLS != nfound) {
            report(&cx, NULL, "MPI_T: found %d of the %d coll_themis_* counters: is "
                   "mca_coll_themis loaded (mca_base_component_path, --mca coll themis,...)?",
                   nfound, 2 * TC_NCOLLS);
        } else if (NULL != algo && EXPECT_THEMIS == expect) {
            cx.algo = tc_algo_index(algo);
            if (cx.algo < 0) {
                report(&cx, NULL, "MPI_T: --algo %s: no counter coll_themis_<coll>_%s_calls "
                       "(the component's algorithms: themis-plan algorithms)", algo, algo);
            }
        }
    }

    /* Counts follow coll_themis_chunks (rank 0's value, so that ranks given
     * different values still make matching calls). */
    uint64_t chunks = 64, min_bytes = 0;
    const char *env_chunks = getenv("OMPI_MCA_coll_themis_chunks");
    if (0 != tc_cvar_read_u64("coll_themis_chunks", &chunks) && NULL != env_chunks) {
        chunks = strtoull(env_chunks, NULL, 10);
    }
    if (0 != tc_cvar_read_u64("coll_themis_min_bytes", &min_bytes) && EXPECT_NONE != expect) {
        report(&cx, NULL, "MPI_T: control variable coll_themis_min_bytes not found");
    }
    if (chunks < 1 || chunks > 4096) {
        chunks = 64;
    }
    if (UINT64_MAX == min_bytes) {
        /* -1, automatic: the documented thresholds for one node and for
         * several (docs/coll_themis.md). */
        MPI_Comm node;
        int node_size;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &node_size);
        MPI_Comm_free(&node);
        min_bytes = node_size == cx.nprocs ? 32u << 20 : 64u << 10;
    }
    MPI_Bcast(&chunks, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(&min_bytes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    cx.min_bytes = min_bytes;
    if (L_MINBYTES == level && EXPECT_THEMIS == expect && 0 == min_bytes) {
        report(&cx, NULL, "coll_themis_min_bytes is 0: small messages cannot fall back");
    }

    if (0 == ncounts) {
        ncounts = build_counts(level, cx.nprocs, chunks, min_bytes, count_unit, counts);
    }
    tc_read(&cx.first);

    if (0 == cx.nerrors) {
        run_matrix(&cx, level, counts, ncounts, big);
    }
    if (0 == cx.nerrors && nb > 0 && L_MINBYTES != level && cx.min_bytes <= 4099 * sizeof(int)) {
        nb_cancel_and_free(&cx);   /* on themis: another component's requests are not ours */
    }

    /* Other communicators: a duplicate (same shape as world), and splits
     * that reverse and halve the ranks (correctness only: whether themis
     * takes them is the component's decision). */
    if (0 == cx.nerrors && subcomms && L_MINBYTES != level) {
        MPI_Comm dup, rev, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(MPI_COMM_WORLD, 0, cx.nprocs - cx.rank, &rev);
        MPI_Comm_split(MPI_COMM_WORLD, cx.rank < cx.nprocs / 2, cx.rank, &half);
        struct { MPI_Comm comm; const char *name; int world_like; } subs[] = {
            { dup, "dup(MPI_COMM_WORLD)", 1 },
            { rev, "split(reversed ranks)", 0 },
            { half, "split(halves)", 0 },
        };
        size_t sub_counts[3] = { 1, 7, (size_t) chunks * cx.nprocs + 1 };
        for (size_t s = 0; s < sizeof(subs) / sizeof(subs[0]); s++) {
            ctx_t sub = cx;
            sub.comm = subs[s].comm;
            sub.comm_name = subs[s].name;
            sub.comm_is_world_like = subs[s].world_like;
            MPI_Comm_set_errhandler(sub.comm, MPI_ERRORS_RETURN);
            MPI_Comm_rank(sub.comm, &sub.rank);
            MPI_Comm_size(sub.comm, &sub.nprocs);
            if (sub.nprocs >= 2) {
                run_matrix(&sub, L_TINY, sub_counts, 3, 0);
            }
            cx.ncases = sub.ncases;
            cx.nerrors = sub.nerrors;
            cx.nprinted = sub.nprinted;
            cx.seq = sub.seq;
        }
        MPI_Comm_free(&dup);
        MPI_Comm_free(&rev);
        MPI_Comm_free(&half);
    }

    /* Totals over the run. */
    tc_snapshot_t last;
    tc_read(&last);
    uint64_t calls = 0, fallbacks = 0;
    char tot[256];
    int off = 0;
    /* The counters of this run's mode (blocking, or --nonblocking). */
    const int kfirst = nb > 0 ? TC_NBLOCKING : 0, klast = kfirst + TC_NBLOCKING;
    for (int k = kfirst; k < klast; k++) {
        uint64_t dc = last.calls[k] - cx.first.calls[k];
        uint64_t df = last.fallbacks[k] - cx.first.fallbacks[k];
        calls += dc;
        fallbacks += df;
        off += snprintf(tot + off, sizeof(tot) - off, " %s=%" PRIu64 "/%" PRIu64,
                        tc_coll_name((tc_coll_t) k), dc, df);
        int ran = 0;
        for (int c = C_ALLREDUCE; c <= C_ALLGATHER; c++) {
            ran |= (int) coll_counter[c] + kfirst == k && coll_selected(&cx, c);
        }
        if (EXPECT_THEMIS == expect && L_MINBYTES != level && ran && 0 == dc && 0 == cx.nerrors) {
            report(&cx, NULL, "coll_themis_%s_calls never rose", tc_coll_name((tc_coll_t) k));
        }
    }
    if (EXPECT_FALLBACK == expect && 0 == fallbacks) {
        report(&cx, NULL, "no coll_themis_*_fallbacks counted: themis was not even consulted");
    }

    /* --max-rss-mb: every rank's peak resident memory (what a schedule or
     * graph file cost it, e.g.) must stay under the bound. */
    struct rusage ru;
    long rss_kb = 0 == getrusage(RUSAGE_SELF, &ru) ? ru.ru_maxrss : 0, most_kb = 0;
    MPI_Reduce(&rss_kb, &most_kb, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 < max_rss_mb && rss_kb > max_rss_mb * 1024) {
        report(&cx, NULL, "peak RSS %ld MB, more than --max-rss-mb %ld", rss_kb / 1024,
               max_rss_mb);
    }
    if (0 == cx.rank && 0 < max_rss_mb) {
        printf("coll_matrix: peak RSS %ld MB (the most of any rank)\n", most_kb / 1024);
    }

    /* Collect the verdict with a collective themis does not implement. */
    int errs = cx.nerrors, all_errs = 0, all_cases = 0;
    MPI_Reduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cx.ncases, &all_cases, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == cx.rank) {
        printf("coll_matrix: np=%d chunks=%" PRIu64 " min_bytes=%" PRIu64 ": %d cases on rank 0"
               ", %d errors on all ranks; rank 0 themis calls/fallbacks:%s\n",
               cx.nprocs, chunks, min_bytes, cx.ncases, all_errs, EXPECT_NONE == expect
               ? " (not checked)" : tot);
        if (EXPECT_NONE != expect && 0 < tc_nalgos()) {
            /* "NAME1/NAME2/.../substitutions: coll=n1/n2/.../s ..." */
            char names[256] = "";
            size_t noff = 0;
            for (int a = 0; a < tc_nalgos(); a++) {
                noff += (size_t) snprintf(names + noff, sizeof(names) - noff, "%s/",
                                          tc_algo_name(a));
            }
            off = 0;
            for (int k = kfirst; k < klast; k++) {
                off += snprintf(tot + off, sizeof(tot) - off, " %s=", tc_coll_name((tc_coll_t) k));
                for (int a = 0; a < tc_nalgos(); a++) {
                    off += snprintf(tot + off, sizeof(tot) - off, "%" PRIu64 "/",
                                    last.algo[a][k] - cx.first.algo[a][k]);
                }
                off += snprintf(tot + off, sizeof(tot) - off, "%" PRIu64,
                                last.substitutions[k] - cx.first.substitutions[k]);
            }
            printf("coll_matrix algorithms: rank 0 %ssubstitutions:%s\n", names, tot);
        }
        fflush(stdout);
    }
    if (EXPECT_NONE != expect) {
        tc_fini();
    }
    for (int i = 0; i < ntypes; i++) {
        if (types[i].derived) {
            MPI_Type_free(&types[i].dt);
        }
    }
    MPI_Op_free(&op_handles[O_USERADD]);
    MPI_Op_free(&op_handles[O_AFFINE]);
    MPI_Finalize();
    return (0 == cx.rank && 0 != all_errs) || 0 != errs ? 1 : 0;
}
