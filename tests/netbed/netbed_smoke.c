/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Correctness smoke test on the emulated network (run by
 * run_netbed_smoke.sh under `netbed mpirun`): All-Reduce and
 * Reduce-Scatter results are checked element by element, and with
 * --pvars on the MPI_T performance variables coll_themis_allreduce_calls,
 * coll_themis_reduce_scatter_calls and coll_themis_reduce_scatter_block_calls
 * must have grown on every rank,
 * which proves the calls went through coll/themis rather than a fallback
 * component.
 *
 * Usage: netbed_smoke --label NAME --pvars on|off
 * Rank 0 prints PASS:/FAIL: lines.  Results are gathered with
 * MPI_Reduce, which coll/themis does not implement, so the check does not
 * depend on the component under test.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Overridable at build time only to exercise the MPI_T code against
 * another component's counters (README.md in benchmarks/netbed). */
#ifndef SMOKE_ALLREDUCE_PVAR
#define SMOKE_ALLREDUCE_PVAR "coll_themis_allreduce_calls"
#endif
#ifndef SMOKE_REDUCE_SCATTER_PVAR
#define SMOKE_REDUCE_SCATTER_PVAR "coll_themis_reduce_scatter_calls"
#endif
#ifndef SMOKE_REDUCE_SCATTER_BLOCK_PVAR
#define SMOKE_REDUCE_SCATTER_BLOCK_PVAR "coll_themis_reduce_scatter_block_calls"
#endif

static int rank, nranks;
static const char *label = "";
static int failures;

/* Every rank's flag must be 1; rank 0 reports. */
static void report(const char *name, int ok, const char *why)
{
    int all = 0;
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        if (all) {
            printf("PASS: netbed %s: %s\n", label, name);
        } else {
            printf("FAIL: netbed %s: %s (%s)\n", label, name,
                   (ok || '\0' == why[0]) ? "failed on another rank; see its stderr" : why);
            failures++;
        }
        fflush(stdout);
    }
}

/* Integer-valued inputs so that double sums are exact in any order. */
static int in_val(int r, size_t i)
{
    return (r + 1) * (int) (i % 97 + 1) - (int) (i % 5);
}

static int max_val(int r, size_t i)
{
    return (int) ((i * 31 + (size_t) r * 7919) % 1000);
}

static int expect_sum(size_t i)
{
    int s = 0;
    for (int r = 0; r < nranks; r++) {
        s += in_val(r, i);
    }
    return s;
}

static int expect_max(size_t i)
{
    int m = max_val(0, i);
    for (int r = 1; r < nranks; r++) {
        m = max_val(r, i) > m ? max_val(r, i) : m;
    }
    return m;
}

static const int counts[] = {1, 7, 1000, 65539, 262144};
#define NCOUNTS ((int) (sizeof(counts) / sizeof(counts[0])))

static int test_allreduce(void)
{
    int calls = 0, ok = 1;
    char why[160] = "";
    for (int c = 0; c < NCOUNTS && ok; c++) {
        size_t n = (size_t) counts[c];
        int *si = malloc(n * sizeof(int)), *ri = malloc(n * sizeof(int));
        double *sd = malloc(n * sizeof(double)), *rd = malloc(n * sizeof(double));
        if (NULL == si || NULL == ri || NULL == sd || NULL == rd) {
            fprintf(stderr, "netbed_smoke: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (size_t i = 0; i < n; i++) {
            si[i] = in_val(rank, i);
            sd[i] = (double) in_val(rank, i);
        }
        MPI_Allreduce(si, ri, (int) n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(sd, rd, (int) n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        calls += 2;
        for (size_t i = 0; i < n && ok; i++) {
            if (ri[i] != expect_sum(i) || rd[i] != (double) expect_sum(i)) {
                snprintf(why, sizeof(why), "count %zu element %zu: int %d double %.0f expected %d", n, i,
                         ri[i], rd[i], expect_sum(i));
                ok = 0;
            }
        }
        /* In place, and a second commutative op. */
        for (size_t i = 0; i < n; i++) {
            ri[i] = max_val(rank, i);
        }
        MPI_Allreduce(MPI_IN_PLACE, ri, (int) n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        calls++;
        for (size_t i = 0; i < n && ok; i++) {
            if (ri[i] != expect_max(i)) {
                snprintf(why, sizeof(why), "in-place MAX count %zu element %zu: %d expected %d", n, i,
                         ri[i], expect_max(i));
                ok = 0;
            }
        }
        free(si);
        free(ri);
        free(sd);
        free(rd);
    }
    if (!ok) {
        fprintf(stderr, "rank %d: allreduce: %s\n", rank, why);
    }
    report("allreduce int/double SUM and in-place MAX, 1..262144 elements", ok, "wrong result; see stderr");
    return calls;
}

/* Counts MPI_Reduce_scatter calls in *rs_calls and
 * MPI_Reduce_scatter_block calls in *rsb_calls. */
static void test_reduce_scatter(int *rs_calls, int *rsb_calls)
{
    int ok = 1;
    *rs_calls = *rsb_calls = 0;
    char why[160] = "";
    for (int c = 0; c < NCOUNTS && ok; c++) {
        /* Uneven blocks: rank r gets base + r elements (base may be 0 for
         * r = 0 only when counts[c] is tiny, which is legal). */
        int base = counts[c] / nranks;
        int *rc = malloc(nranks * sizeof(int));
        size_t total = 0, off = 0;
        for (int r = 0; r < nranks; r++) {
            rc[r] = base + r;
            total += (size_t) rc[r];
        }
        for (int r = 0; r < rank; r++) {
            off += (size_t) rc[r];
        }
        int *s = malloc(total * sizeof(int)), *out = malloc(((size_t) rc[rank] + 1) * sizeof(int));
        int *sb = malloc((size_t) (base + 1) * nranks * sizeof(int)), *ob = malloc((size_t) (base + 1) * sizeof(int));
        if (NULL == s || NULL == out || NULL == sb || NULL == ob) {
            fprintf(stderr, "netbed_smoke: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (size_t i = 0; i < total; i++) {
            s[i] = in_val(rank, i);
        }
        MPI_Reduce_scatter(s, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        (*rs_calls)++;
        for (int i = 0; i < rc[rank] && ok; i++) {
            if (out[i] != expect_sum(off + (size_t) i)) {
                snprintf(why, sizeof(why), "reduce_scatter count %zu element %d: %d expected %d", total, i,
                         out[i], expect_sum(off + (size_t) i));
                ok = 0;
            }
        }
        int blk = base + 1;
        for (size_t i = 0; i < (size_t) blk * nranks; i++) {
            sb[i] = in_val(rank, i);
        }
        MPI_Reduce_scatter_block(sb, ob, blk, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        (*rsb_calls)++;
        for (int i = 0; i < blk && ok; i++) {
            size_t g = (size_t) rank * blk + (size_t) i;
            if (ob[i] != expect_sum(g)) {
                snprintf(why, sizeof(why), "reduce_scatter_block %d per rank element %d: %d expected %d", blk, i,
                         ob[i], expect_sum(g));
                ok = 0;
            }
        }
        free(rc);
        free(s);
        free(out);
        free(sb);
        free(ob);
    }
    if (!ok) {
        fprintf(stderr, "rank %d: %s\n", rank, why);
    }
    report("reduce_scatter and reduce_scatter_block SUM, uneven blocks", ok, "wrong result; see stderr");
}

/* ------------------------------------------------------------ MPI_T */
typedef struct {
    const char *name;
    int found;
    MPI_T_pvar_handle handle;
    MPI_Datatype type;
    int count;
} pvar_t;

static MPI_T_pvar_session session;

static int pvar_open(pvar_t *pv, char *why, size_t len)
{
    int num = 0;
    pv->found = 0;
    MPI_T_pvar_get_num(&num);
    for (int i = 0; i < num; i++) {
        char name[256], desc[256];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, cls, bind, readonly, continuous, atomic;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_SUCCESS != MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind,
                                               &readonly, &continuous, &atomic)) {
            continue;
        }
        if (0 != strcmp(name, pv->name)) {
            continue;
        }
        MPI_Comm comm = MPI_COMM_WORLD;
        void *obj = (MPI_T_BIND_MPI_COMM == bind) ? (void *) &comm : NULL;
        if (MPI_T_BIND_NO_OBJECT != bind && MPI_T_BIND_MPI_COMM != bind) {
            snprintf(why, len, "%s is bound to object kind %d, expected none or a communicator", pv->name, bind);
            return 0;
        }
        if (MPI_SUCCESS != MPI_T_pvar_handle_alloc(session, i, obj, &pv->handle, &pv->count)) {
            snprintf(why, len, "MPI_T_pvar_handle_alloc(%s) failed", pv->name);
            return 0;
        }
        if (!continuous && MPI_SUCCESS != MPI_T_pvar_start(session, pv->handle)) {
            snprintf(why, len, "MPI_T_pvar_start(%s) failed", pv->name);
            return 0;
        }
        pv->type = dt;
        pv->found = 1;
        return 1;
    }
    snprintf(why, len, "no MPI_T pvar named %s (is coll/themis loaded?)", pv->name);
    return 0;
}

/* Sum of the variable's elements, or -1 when it cannot be read. */
static long long pvar_value(pvar_t *pv)
{
    if (!pv->found || pv->count < 1 || pv->count > 64) {
        return -1;
    }
    union {
        unsigned long long ull[64];
        unsigned long ul[64];
        unsigned u[64];
        int i[64];
        long long ll[64];
        double d[64];
    } buf;
    memset(&buf, 0, sizeof(buf));
    if (MPI_SUCCESS != MPI_T_pvar_read(session, pv->handle, &buf)) {
        return -1;
    }
    long long sum = 0;
    for (int k = 0; k < pv->count; k++) {
        if (MPI_UNSIGNED_LONG_LONG == pv->type || MPI_UINT64_T == pv->type) {
            sum += (long long) buf.ull[k];
        } else if (MPI_UNSIGNED_LONG == pv->type) {
            sum += (long long) buf.ul[k];
        } else if (MPI_UNSIGNED == pv->type) {
            sum += buf.u[k];
        } else if (MPI_INT == pv->type) {
            sum += buf.i[k];
        } else if (MPI_LONG_LONG == pv->type || MPI_COUNT == pv->type) {
            sum += buf.ll[k];
        } else if (MPI_DOUBLE == pv->type) {
            sum += (long long) buf.d[k];
        } else {
            return -1;
        }
    }
    return sum;
}

int main(int argc, char **argv)
{
    int pvars = 1, provided;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--label") && i + 1 < argc) {
            label = argv[++i];
        } else if (0 == strcmp(argv[i], "--pvars") && i + 1 < argc) {
            pvars = (0 == strcmp(argv[++i], "on"));
        } else {
            fprintf(stderr, "usage: netbed_smoke --label NAME --pvars on|off\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    /* Each counter must grow on every rank while its collective runs. */
    struct {
        pvar_t pv;
        const char *coll;
        int calls;
        long long before;
        int ok;
        char why[200];
    } chk[] = {
        {.pv = {.name = SMOKE_ALLREDUCE_PVAR}, .coll = "allreduce"},
        {.pv = {.name = SMOKE_REDUCE_SCATTER_PVAR}, .coll = "reduce_scatter"},
        {.pv = {.name = SMOKE_REDUCE_SCATTER_BLOCK_PVAR}, .coll = "reduce_scatter_block"},
    };
    const int nchk = (int) (sizeof(chk) / sizeof(chk[0]));
    if (pvars) {
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        MPI_T_pvar_session_create(&session);
        for (int c = 0; c < nchk; c++) {
            chk[c].ok = pvar_open(&chk[c].pv, chk[c].why, sizeof(chk[c].why));
            chk[c].before = pvar_value(&chk[c].pv);
        }
    }

    chk[0].calls = test_allreduce();
    test_reduce_scatter(&chk[1].calls, &chk[2].calls);

    if (pvars) {
        for (int c = 0; c < nchk; c++) {
            long long after = pvar_value(&chk[c].pv), grew = after - chk[c].before;
            char name[160];
            if (chk[c].ok && (chk[c].before < 0 || after < 0)) {
                snprintf(chk[c].why, sizeof(chk[c].why), "cannot read %s", chk[c].pv.name);
                chk[c].ok = 0;
            } else if (chk[c].ok && grew < 1) {
                snprintf(chk[c].why, sizeof(chk[c].why), "%s grew by %lld over %d calls", chk[c].pv.name, grew,
                         chk[c].calls);
                chk[c].ok = 0;
            }
            if (0 == rank && chk[c].ok) {
                printf("netbed %s: rank 0: %s ran the themis path in %lld of %d calls\n", label, chk[c].coll,
                       grew, chk[c].calls);
            }
            snprintf(name, sizeof(name), "themis path taken for %s (MPI_T %s)", chk[c].coll, chk[c].pv.name);
            report(name, chk[c].ok, chk[c].why);
            if (chk[c].pv.found) {
                MPI_T_pvar_handle_free(session, &chk[c].pv.handle);
            }
        }
        MPI_T_pvar_session_free(&session);
        MPI_T_finalize();
    } else if (0 == rank) {
        printf("netbed %s: counters not checked (--pvars off)\n", label);
    }
    MPI_Finalize();
    return (0 == rank && failures > 0) ? 1 : 0;
}
