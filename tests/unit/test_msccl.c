/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML import and export (planners/msccl/msccl.h): the example files of
 * tests/data/msccl (THEMIS_MSCCL_DATA) import with their counts, give
 * schedules whose dependencies point backwards, order every conflicting
 * pair and compute the collective when run in list order on symbolic
 * values, and survive export -> import with the same hash; the 3-rank ring
 * gives exactly the hand-checked transfer list; malformed files give
 * their messages.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "msccl.h"
#include "unit.h"

#ifndef THEMIS_MSCCL_DATA
#define THEMIS_MSCCL_DATA "tests/data/msccl"
#endif

static int have_file(const char *name, char *path, size_t len)
{
    const char *dir = getenv("THEMIS_MSCCL_DATA");
    snprintf(path, len, "%s/%s", NULL != dir ? dir : THEMIS_MSCCL_DATA, name);
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        return 0;
    }
    fclose(f);
    return 1;
}

/* Dependencies point backwards, ascending, without duplicates. */
static int deps_backwards(const themis_xfer_sched_t *s)
{
    for (uint32_t i = 0; i < s->nxfers; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        for (uint32_t k = 0; k < x->ndeps; k++) {
            uint32_t d = s->deps[x->dep_first + k];
            if (d >= i || (k > 0 && d <= s->deps[x->dep_first + k - 1])) {
                printf("  transfer %u: dependency %u\n", i, d);
                return 0;
            }
        }
    }
    return 1;
}

/* Every two transfers touching overlapping units of one rank's buffer, one
 * writing, are ordered by the transitive dependencies. */
static int race_free(const themis_xfer_sched_t *s)
{
    uint32_t n = s->nxfers;
    size_t words = ((size_t) n + 63) / 64;
    uint64_t *anc = calloc((size_t) n * words + 1, sizeof(uint64_t));
    int ok = 1;
    for (uint32_t i = 0; i < n; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        for (uint32_t k = 0; k < x->ndeps; k++) {
            uint32_t d = s->deps[x->dep_first + k];
            for (size_t w = 0; w < words; w++) {
                anc[i * words + w] |= anc[d * words + w];
            }
            anc[i * words + d / 64] |= 1ull << (d % 64);
        }
    }
    for (uint32_t j = 0; j < n && ok; j++) {
        const themis_xfer_t *b = &s->xfers[j];
        for (uint32_t i = 0; i < j && ok; i++) {
            const themis_xfer_t *a = &s->xfers[i];
            /* accesses: (rank, buf, off, write) of each side */
            const struct { uint32_t r, buf; uint64_t off; int w; } acc[2][2] = {
                {{a->src, a->src_buf, a->src_off, 0}, {a->dst, a->dst_buf, a->dst_off, 1}},
                {{b->src, b->src_buf, b->src_off, 0}, {b->dst, b->dst_buf, b->dst_off, 1}}};
            for (int p = 0; p < 2; p++) {
                for (int q = 0; q < 2; q++) {
                    if (acc[0][p].r == acc[1][q].r && acc[0][p].buf == acc[1][q].buf &&
                        (acc[0][p].w || acc[1][q].w) &&
                        acc[0][p].off < acc[1][q].off + b->count &&
                        acc[1][q].off < acc[0][p].off + a->count &&
                        0 == ((anc[j * words + i / 64] >> (i % 64)) & 1)) {
                        printf("  transfers %u and %u conflict unordered\n", i, j);
                        ok = 0;
                    }
                }
            }
        }
    }
    free(anc);
    return ok;
}

/* Runs the schedule in list order on symbolic values: (global unit,
 * contributing ranks); checks the collective's result (at most 64 ranks). */
typedef struct {
    int64_t gu;
    uint64_t mask;
} sym_t;

static int symbolic_ok(const themis_xfer_sched_t *s)
{
    uint32_t P = s->nranks;
    sym_t *v[64][THEMIS_NBUFS];
    int ok = 1;
    if (P > 64) {
        return 0;
    }
    for (uint32_t r = 0; r < P; r++) {
        for (int b = 0; b < THEMIS_NBUFS; b++) {
            v[r][b] = malloc((s->buf_units[b] + 1) * sizeof(sym_t));
            for (uint64_t k = 0; k < s->buf_units[b]; k++) {
                int64_t gu = THEMIS_COLL_ALLGATHER == s->coll
                                 ? (int64_t) (r * s->buf_units[0] + k) : (int64_t) k;
                v[r][b][k] = THEMIS_BUF_INPUT == b ? (sym_t) {gu, 1ull << r} : (sym_t) {-1, 0};
            }
        }
    }
    for (uint32_t i = 0; i < s->nxfers && ok; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        for (uint64_t k = 0; k < x->count && ok; k++) {
            sym_t a = v[x->src][x->src_buf][x->src_off + k];
            sym_t *d = &v[x->dst][x->dst_buf][x->dst_off + k];
            if (a.gu < 0 || (THEMIS_XFER_REDUCE == x->kind &&
                             (d->gu != a.gu || 0 != (d->mask & a.mask)))) {
                printf("  transfer %u: bad operands\n", i);
                ok = 0;
            } else if (THEMIS_XFER_REDUCE == x->kind) {
                d->mask |= a.mask;
            } else {
                *d = a;
            }
        }
    }
    uint64_t all = 64 == P ? ~0ull : (1ull << P) - 1;
    for (uint32_t r = 0; r < P && ok; r++) {
        const sym_t *res = v[r][s->result_buf];
        uint64_t n = s->buf_units[s->result_buf];
        for (uint64_t k = 0; k < n && ok; k++) {
            int64_t gu = THEMIS_COLL_REDUCE_SCATTER == s->coll ? (int64_t) (r * n + k)
                                                               : (int64_t) k;
            uint64_t m = THEMIS_COLL_ALLGATHER == s->coll
                             ? 1ull << (k / s->buf_units[THEMIS_BUF_INPUT]) : all;
            if (res[k].gu != gu || res[k].mask != m) {
                printf("  rank %u result unit %" PRIu64 ": wrong value\n", r, k);
                ok = 0;
            }
        }
    }
    for (uint32_t r = 0; r < P; r++) {
        for (int b = 0; b < THEMIS_NBUFS; b++) {
            free(v[r][b]);
        }
    }
    return ok;
}

/* export -> import gives the same hash */
static int round_trip(const themis_xfer_sched_t *s)
{
    char *text = NULL, why[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    themis_xfer_sched_t again;
    int ok = 0;
    if (NULL == f || THEMIS_OK != themis_msccl_write(s, f) || 0 != fclose(f)) {
        free(text);
        return 0;
    }
    if (THEMIS_OK == themis_msccl_parse(text, len, &again, NULL, why, sizeof(why))) {
        ok = themis_xfer_hash(&again) == themis_xfer_hash(s);
        themis_xfer_free(&again);
    } else {
        printf("  re-import: %s\n", why);
    }
    free(text);
    return ok;
}

static void check_file(const char *name, themis_coll_t coll, uint32_t ngpus, uint32_t nsteps,
                       uint32_t ntbs, uint32_t nxfers)
{
    char path[512], why[256];
    themis_xfer_sched_t s;
    themis_msccl_info_t info;
    if (!have_file(name, path, sizeof(path))) {
        printf("  %s not found\n", path);
        UNIT_CHECK(0);
        return;
    }
    themis_status_t st = themis_msccl_load(path, &s, &info, why, sizeof(why));
    UNIT_CHECKF(THEMIS_OK == st, "%s", why);
    if (THEMIS_OK != st) {
        return;
    }
    UNIT_CHECK(coll == info.coll && coll == s.coll);
    UNIT_CHECK(ngpus == info.ngpus && ngpus == s.nranks);
    UNIT_CHECKF(nsteps == info.nsteps, "%u steps", info.nsteps);
    UNIT_CHECKF(ntbs == info.ntbs, "%u tbs", info.ntbs);
    UNIT_CHECKF(nxfers == info.nxfers && nxfers == s.nxfers, "%u transfers", s.nxfers);
    UNIT_CHECK(info.nchunksperloop == s.nunits);
    UNIT_CHECK(deps_backwards(&s));
    UNIT_CHECK(race_free(&s));
    UNIT_CHECK(symbolic_ok(&s));
    UNIT_CHECK(round_trip(&s));
    themis_xfer_free(&s);
}

static void test_ring_3(void)
{
    check_file("allreduce_ring_3.xml", THEMIS_COLL_ALLREDUCE, 3, 15, 3, 15);
}

static void test_allpairs_4(void)
{
    check_file("allreduce_allpairs_4.xml", THEMIS_COLL_ALLREDUCE, 4, 140, 16, 72);
}

static void test_teccl_32(void)
{
    /* 1910 messages and one in-place input copy per gpu (its <copy>
     * elements copy each input chunk onto itself) */
    check_file("teccl_amd_32.xml", THEMIS_COLL_ALLGATHER, 32, 3886, 532, 1942);
}

/* The ring, checked by hand: rrs receives into scratch 0 and reduces the
 * rank's chunk into it; receives that overwrite a chunk the rank sent
 * earlier wait for that send. */
static void test_ring_exact(void)
{
    enum { I = THEMIS_BUF_INPUT, S = THEMIS_BUF_SCRATCH, C = THEMIS_XFER_COPY,
           R = THEMIS_XFER_REDUCE };
    static const struct {
        uint32_t src, dst, kind, sb, so, db, dof, d0, d1;
    } want[15] = {
        {2, 0, C, I, 2, S, 0, ~0u, ~0u}, {0, 1, C, I, 0, S, 0, ~0u, ~0u},
        {1, 2, C, I, 1, S, 0, ~0u, ~0u}, {0, 0, R, I, 2, S, 0, 0, ~0u},
        {1, 1, R, I, 0, S, 0, 1, ~0u},   {2, 2, R, I, 1, S, 0, 2, ~0u},
        {2, 0, R, S, 0, I, 1, 5, ~0u},   {0, 1, R, S, 0, I, 2, 3, ~0u},
        {1, 2, R, S, 0, I, 0, 4, ~0u},   {2, 0, C, I, 0, I, 0, 1, 8},
        {0, 1, C, I, 1, I, 1, 2, 6},     {1, 2, C, I, 2, I, 2, 0, 7},
        {2, 0, C, I, 2, I, 2, 3, 11},    {0, 1, C, I, 0, I, 0, 4, 9},
        {1, 2, C, I, 1, I, 1, 5, 10},
    };
    char path[512], why[256];
    themis_xfer_sched_t s;
    themis_msccl_info_t info;
    if (!have_file("allreduce_ring_3.xml", path, sizeof(path))) {
        UNIT_CHECK(0);
        return;
    }
    UNIT_CHECKF(THEMIS_OK == themis_msccl_load(path, &s, &info, why, sizeof(why)), "%s", why);
    UNIT_CHECK(15 == s.nxfers && 3 == s.nunits && THEMIS_BUF_INPUT == s.result_buf);
    UNIT_CHECK(3 == s.buf_units[0] && 0 == s.buf_units[1] && 1 == s.buf_units[2]);
    UNIT_CHECK(1 == info.extra_scratch && 0 == info.nredirects);
    for (uint32_t i = 0; i < s.nxfers && i < 15; i++) {
        const themis_xfer_t *x = &s.xfers[i];
        uint32_t nd = (~0u != want[i].d0) + (~0u != want[i].d1);
        UNIT_CHECKF(want[i].src == x->src && want[i].dst == x->dst && want[i].kind == x->kind &&
                    want[i].sb == x->src_buf && want[i].so == x->src_off &&
                    want[i].db == x->dst_buf && want[i].dof == x->dst_off && 1 == x->count &&
                    nd == x->ndeps &&
                    (nd < 1 || want[i].d0 == s.deps[x->dep_first]) &&
                    (nd < 2 || want[i].d1 == s.deps[x->dep_first + 1]),
                    "transfer %u", i);
    }
    themis_xfer_free(&s);
}

static themis_status_t parse(const char *text, themis_xfer_sched_t *s,
                             themis_msccl_info_t *info, char *why, size_t len)
{
    return themis_msccl_parse(text, strlen(text), s, info, why, len);
}

#define ALGO2 "<algo name=\"t\" coll=\"allreduce\" ngpus=\"2\" nchunksperloop=\"2\" inplace=\"1\">"
#define GPU(id) "<gpu id=\"" #id "\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"1\">"
#define STEP(k, t, sb, so, db, dof, cnt, depid, deps)                                       \
    "<step s=\"" #k "\" type=\"" t "\" srcbuf=\"" sb "\" srcoff=\"" #so "\" dstbuf=\"" db \
    "\" dstoff=\"" #dof "\" cnt=\"" #cnt "\" depid=\"" #depid "\" deps=\"" #deps "\"/>"

/* Two ranks swapping input chunk 0 in place: each receive overwrites what
 * the rank sends, with no order to the peer's send, so both go through a
 * scratch temporary and a local copy. */
static const char *const swap_xml =
    ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">"
    STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) STEP(1, "r", "i", 0, "i", 0, 1, -1, -1)
    "</tb></gpu>" GPU(1) "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">"
    STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) STEP(1, "r", "i", 0, "i", 0, 1, -1, -1)
    "</tb></gpu></algo>";

static void test_swap_redirect(void)
{
    char why[256];
    themis_xfer_sched_t s;
    themis_msccl_info_t info;
    UNIT_CHECKF(THEMIS_OK == parse(swap_xml, &s, &info, why, sizeof(why)), "%s", why);
    UNIT_CHECKF(2 == info.nredirects && 4 == s.nxfers, "%u redirects, %u transfers",
                info.nredirects, s.nxfers);
    UNIT_CHECK(1 == info.extra_scratch && 2 == s.buf_units[THEMIS_BUF_SCRATCH]);
    for (uint32_t i = 0; i < s.nxfers; i++) {
        const themis_xfer_t *x = &s.xfers[i];
        if (x->src != x->dst) {
            UNIT_CHECK(0 == x->ndeps && THEMIS_BUF_SCRATCH == x->dst_buf && 1 == x->dst_off);
        } else {
            UNIT_CHECK(2 == x->ndeps && THEMIS_BUF_SCRATCH == x->src_buf);
        }
    }
    UNIT_CHECK(deps_backwards(&s));
    UNIT_CHECK(race_free(&s));
    UNIT_CHECK(round_trip(&s));
    themis_xfer_free(&s);
}

/* A two-rank allreduce, one chunk each: reduce-scatter then allgather,
 * with a nop joining two thread blocks. */
static const char *const ar2_xml =
    ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">"
    STEP(0, "s", "i", 1, "i", 1, 1, -1, -1) STEP(1, "nop", "i", -1, "o", -1, 0, 1, 0)
    STEP(2, "s", "i", 0, "i", 0, 1, -1, -1) "</tb>"
    "<tb id=\"1\" send=\"-1\" recv=\"1\" chan=\"0\">"
    STEP(0, "rrc", "i", 0, "i", 0, 1, -1, -1) STEP(1, "r", "i", 1, "i", 1, 1, -1, -1)
    "</tb></gpu>" GPU(1) "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">"
    STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) STEP(1, "rrc", "i", 1, "i", 1, 1, -1, -1)
    STEP(2, "s", "i", 1, "i", 1, 1, -1, -1) STEP(3, "r", "i", 0, "i", 0, 1, -1, -1)
    "</tb></gpu></algo>";

static void test_two_rank_allreduce(void)
{
    char why[256];
    themis_xfer_sched_t s;
    themis_msccl_info_t info;
    UNIT_CHECKF(THEMIS_OK == parse(ar2_xml, &s, &info, why, sizeof(why)), "%s", why);
    UNIT_CHECK(4 == s.nxfers && 0 == info.nredirects && 9 == info.nsteps);
    UNIT_CHECK(deps_backwards(&s));
    UNIT_CHECK(race_free(&s));
    UNIT_CHECK(symbolic_ok(&s));
    UNIT_CHECK(round_trip(&s));
    themis_xfer_free(&s);
}

static void expect_error(const char *text, themis_status_t want, const char *msg)
{
    char why[256];
    themis_xfer_sched_t s;
    themis_status_t st = parse(text, &s, NULL, why, sizeof(why));
    UNIT_CHECKF(want == st && NULL != strstr(why, msg), "status %d, '%s' (want '%s')", (int) st,
                why, msg);
    UNIT_CHECK(NULL == s.xfers && 0 == s.nxfers);
}

/* ar2_xml plus a garbage exchange on channel 1: each gpu sends scratch 0,
 * which nobody wrote, and the other receives it into scratch 0 (DEAD_R),
 * data no result depends on.  Both swap scratch 0 in place, so each
 * receive goes through a temporary (a network and a local transfer): 4
 * dead transfers, skipped. */
#define DEAD_X(tb, peer, recv_step)                                                         \
    "<tb id=\"" #tb "\" send=\"" #peer "\" recv=\"" #peer "\" chan=\"1\">"                 \
    STEP(0, "s", "s", 0, "s", 0, 1, -1, -1) recv_step "</tb>"
#define DEAD_R STEP(1, "r", "s", 0, "s", 0, 1, -1, -1)
/* gpu 1's receive of the garbage: recv1 */
#define AR2_DEAD(recv1)                                                                     \
    ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">"                        \
    STEP(0, "s", "i", 1, "i", 1, 1, -1, -1) STEP(1, "nop", "i", -1, "o", -1, 0, 1, 0)         \
    STEP(2, "s", "i", 0, "i", 0, 1, -1, -1) "</tb>"                                         \
    "<tb id=\"1\" send=\"-1\" recv=\"1\" chan=\"0\">"                                     \
    STEP(0, "rrc", "i", 0, "i", 0, 1, -1, -1) STEP(1, "r", "i", 1, "i", 1, 1, -1, -1)         \
    "</tb>" DEAD_X(2, 1, DEAD_R) "</gpu>" GPU(1)                                            \
    "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">"                                      \
    STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) STEP(1, "rrc", "i", 1, "i", 1, 1, -1, -1)         \
    STEP(2, "s", "i", 1, "i", 1, 1, -1, -1) STEP(3, "r", "i", 0, "i", 0, 1, -1, -1)           \
    "</tb>" DEAD_X(1, 0, recv1) "</gpu></algo>"

static void test_dead_transfers(void)
{
    char why[256], path[512];
    themis_xfer_sched_t s;
    themis_msccl_info_t info;
    const char *live = AR2_DEAD(DEAD_R);
    themis_status_t st = parse(live, &s, &info, why, sizeof(why));
    UNIT_CHECKF(THEMIS_OK == st, "%s", why);
    if (THEMIS_OK == st) {
        /* the live part is ar2_xml's, transfer for transfer */
        themis_xfer_sched_t ref;
        UNIT_CHECK(THEMIS_OK == parse(ar2_xml, &ref, NULL, why, sizeof(why)));
        UNIT_CHECKF(4 == info.ndead && 4 == s.nxfers, "%u dead, %u transfers", info.ndead,
                    s.nxfers);
        /* scratch aside: the dead receives' temporaries stay allocated */
        UNIT_CHECK(s.buf_units[THEMIS_BUF_SCRATCH] >= ref.buf_units[THEMIS_BUF_SCRATCH]);
        uint64_t scratch = s.buf_units[THEMIS_BUF_SCRATCH];
        s.buf_units[THEMIS_BUF_SCRATCH] = ref.buf_units[THEMIS_BUF_SCRATCH];
        UNIT_CHECK(themis_xfer_hash(&ref) == themis_xfer_hash(&s));
        s.buf_units[THEMIS_BUF_SCRATCH] = scratch;
        UNIT_CHECK(deps_backwards(&s) && race_free(&s) && symbolic_ok(&s) && round_trip(&s));
        themis_xfer_free(&ref);
        themis_xfer_free(&s);
    }
    /* gpu 1 receives the garbage into input unit 0 after its last step:
     * it reaches result unit 0 (in place), refused as before */
    expect_error(AR2_DEAD(STEP(1, "r", "s", 0, "i", 0, 1, 0, 3)),
                 THEMIS_ERR_INVALID, "gpu 0 tb 2 step 0 reads scratch unit 0 of gpu 0, which "
                 "nobody wrote, and that data reaches result unit 0 of gpu 1");
    /* the file the MPI test runs: 4 dead transfers (two garbage hops) */
    if (have_file("dead_scratch_2.xml", path, sizeof(path))) {
        st = themis_msccl_load(path, &s, &info, why, sizeof(why));
        UNIT_CHECKF(THEMIS_OK == st && 4 == info.ndead && 4 == s.nxfers, "%s", why);
        UNIT_CHECK(THEMIS_OK != st || symbolic_ok(&s));
        themis_xfer_free(&s);
    } else {
        UNIT_CHECKF(0, "%s not found", path);
    }
}

static void test_errors_format(void)
{
    expect_error("hello", THEMIS_ERR_PARSE, "not XML: line 1");
    expect_error("", THEMIS_ERR_PARSE, "not XML");
    expect_error("<algo><gpu></algo>", THEMIS_ERR_PARSE, "not XML");
    expect_error("<foo/>", THEMIS_ERR_PARSE, "root element is <foo>, want <algo>");
    expect_error("<algo coll=\"allreduce\"/>", THEMIS_ERR_PARSE, "<algo>: missing attribute ngpus");
    expect_error("<algo ngpus=\"2\"/>", THEMIS_ERR_PARSE, "missing attribute coll");
    expect_error("<algo coll=\"allreduce\" ngpus=\"x\"/>", THEMIS_ERR_PARSE,
                 "ngpus=\"x\" is not an integer in 1..1024");
    expect_error("<algo coll=\"allreduce\" ngpus=\"5000\"/>", THEMIS_ERR_PARSE,
                 "is not an integer in 1..1024");
    expect_error("<algo coll=\"alltoall\" ngpus=\"2\"/>", THEMIS_ERR_UNSUPPORTED,
                 "collective 'alltoall' is not supported");
    expect_error(ALGO2 GPU(0) "</gpu></algo>", THEMIS_ERR_PARSE, "ngpus=2 but 1 <gpu> elements");
    expect_error(ALGO2 GPU(0) "</gpu>" GPU(2) "</gpu></algo>", THEMIS_ERR_PARSE,
                 "gpu ids must be 0..1 (ngpus=2): gpu id 2");
    expect_error(ALGO2 GPU(0) "</gpu>" GPU(0) "</gpu></algo>", THEMIS_ERR_PARSE,
                 "duplicate gpu id 0");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "zz", "i", 0, "i", 1, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_PARSE, "gpu 0 tb 0 step 0: unknown step type 'zz'");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "cpy", "q", 0, "i", 1, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_PARSE, "unknown buffer srcbuf=\"q\"");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(1, "cpy", "i", 0, "i", 1, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_PARSE, "step 1 out of order");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 "<step s=\"0\" type=\"cpy\"/></tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_PARSE, "gpu 0 tb 0 step 0: missing attribute cnt");
    expect_error(ALGO2 GPU(0) "<tb id=\"1\" send=\"-1\" recv=\"-1\"></tb></gpu>" GPU(1)
                 "</gpu></algo>", THEMIS_ERR_PARSE, "gpu 0: tb ids must be 0..0 (tb id 1)");
    expect_error(ALGO2 GPU(0) "<bogus/></gpu>" GPU(1) "</gpu></algo>", THEMIS_ERR_PARSE,
                 "gpu 0: unexpected element <bogus>");
    /* No DTD: a DOCTYPE stops the parse before an entity is declared or
     * expanded (a few KB of references to one large entity took minutes). */
    expect_error("<?xml version=\"1.0\"?>\n<!DOCTYPE algo [\n<!ENTITY a \"xxxx\">\n]>\n"
                 "<algo name=\"&a;&a;\" coll=\"allreduce\" ngpus=\"2\"/>", THEMIS_ERR_PARSE,
                 "line 2: a DOCTYPE declaration: MSCCL-XML has no DTD or entities");
    expect_error("<!DOCTYPE algo SYSTEM \"algo.dtd\"><algo/>", THEMIS_ERR_PARSE,
                 "line 1: a DOCTYPE declaration");
    /* libxml2's nesting limit, without its advice to use an option. */
    char deep[300 * 7 + 32] = "<algo>";
    for (int i = 0; i < 300; i++) {
        strcat(deep, "<a>");
    }
    expect_error(deep, THEMIS_ERR_PARSE, "depth in document: 256 (a limit of this reader)");
}

static void test_errors_program(void)
{
    expect_error("<algo coll=\"allreduce\" ngpus=\"1\" nchunksperloop=\"3\">"
                 "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"3\" s_chunks=\"0\"/></algo>",
                 THEMIS_ERR_INVALID, "wants i_chunks=3 o_chunks=3; gpu 0 has 2 and 3");
    expect_error("<algo coll=\"allgather\" ngpus=\"2\" nchunksperloop=\"3\">"
                 "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"3\" s_chunks=\"0\"/>"
                 "<gpu id=\"1\" i_chunks=\"2\" o_chunks=\"3\" s_chunks=\"0\"/></algo>",
                 THEMIS_ERR_INVALID, "nchunksperloop=3 does not divide by ngpus=2");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "cpy", "i", 1, "s", 0, 2, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "gpu 0 tb 0 step 0: i[1] + 2 chunks is outside the buffer");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "cpy", "i", 0, "s", 0, 1, 3, 0) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "depends on tb 3 step 0, which does not exist");
    /* two thread blocks waiting for each other */
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "nop", "i", -1, "o", -1, 0, 1, 0) "</tb>"
                 "<tb id=\"1\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "nop", "i", -1, "o", -1, 0, 0, 0) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "dependency cycle of 2 steps");
    /* both ranks receive before they send */
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"1\">"
                 STEP(0, "r", "i", 0, "s", 0, 1, -1, -1) STEP(1, "s", "i", 1, "s", 0, 1, -1, -1)
                 "</tb></gpu>" GPU(1) "<tb id=\"0\" send=\"0\" recv=\"0\">"
                 STEP(0, "r", "i", 0, "s", 0, 1, -1, -1) STEP(1, "s", "i", 1, "s", 0, 1, -1, -1)
                 "</tb></gpu></algo>", THEMIS_ERR_INVALID, "dependency cycle");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"-1\">"
                 STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "gpu 0 tb 0 sends to gpu 1 on channel 0, which has no "
                 "thread block receiving");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"-1\">"
                 STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) STEP(1, "s", "i", 1, "i", 1, 1, -1, -1)
                 "</tb></gpu>" GPU(1) "<tb id=\"0\" send=\"-1\" recv=\"0\">"
                 STEP(0, "r", "i", 0, "s", 0, 1, -1, -1) "</tb></gpu></algo>",
                 THEMIS_ERR_INVALID, "gpu 0 sends 2 messages to gpu 1 on channel 0 (tb 0), "
                 "gpu 1 receives 1");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"1\" recv=\"-1\">"
                 STEP(0, "s", "i", 0, "i", 0, 2, -1, -1) "</tb></gpu>" GPU(1)
                 "<tb id=\"0\" send=\"-1\" recv=\"0\">" STEP(0, "r", "i", 0, "s", 0, 1, -1, -1)
                 "</tb></gpu></algo>", THEMIS_ERR_INVALID,
                 "gpu 0 tb 0 step 0 sends 2 chunks, its receive gpu 1 tb 0 step 0 takes 1");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "s", "i", 0, "i", 0, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "s sends, but the thread block has no send peer");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "cpy", "s", 0, "i", 0, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "gpu 0 tb 0 step 0 reads scratch unit 0 of gpu 0, which "
                 "nobody wrote");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "cpy", "i", 0, "s", 0, 1, -1, -1) "</tb>"
                 "<tb id=\"1\" send=\"-1\" recv=\"-1\">" STEP(0, "cpy", "i", 1, "s", 0, 1, -1, -1)
                 "</tb></gpu>" GPU(1) "</gpu></algo>", THEMIS_ERR_INVALID,
                 "race on gpu 0 scratch unit 0: gpu 0 tb 0 step 0 and gpu 0 tb 1 step 0");
    expect_error(ALGO2 GPU(0) "<tb id=\"0\" send=\"-1\" recv=\"-1\">"
                 STEP(0, "re", "i", 0, "i", 0, 1, -1, -1) "</tb></gpu>" GPU(1) "</gpu></algo>",
                 THEMIS_ERR_INVALID, "overlap their source");
}

/* The start tag alone: what the component decides a communicator size by.
 * The text after it is never looked at (here: not even XML). */
static void test_header(void)
{
    themis_msccl_info_t info;
    const char *ok = "<?xml version=\"1.0\"?>\n<!-- a comment -->\n"
                     "<algo name=\"big\" coll=\"allreduce\" ngpus=\"1024\" nchunksperloop=\"4\">"
                     "<gpu id=\"0\" <<< not XML";
    UNIT_CHECK(THEMIS_OK == themis_msccl_header(ok, strlen(ok), &info));
    UNIT_CHECK(1024 == info.ngpus && 0 == strcmp(info.name, "big"));
    const char *bad[] = {
        "<algo coll=\"allreduce\" ngpus=\"1025\"/>",   /* over THEMIS_MSCCL_MAX_GPUS */
        "<algo coll=\"allreduce\" ngpus=\"4x\"/>",
        "<algo coll=\"allreduce\"/>",
        "<algorithm ngpus=\"4\"/>",
        "<!DOCTYPE algo [<!ENTITY a \"x\">]><algo ngpus=\"4\" name=\"&a;\"/>",
        "not XML",
        "",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        UNIT_CHECK(THEMIS_ERR_PARSE == themis_msccl_header(bad[i], strlen(bad[i]), &info));
        UNIT_CHECK(0 == info.ngpus);
    }
}

int main(void)
{
    UNIT_RUN(test_ring_3);
    UNIT_RUN(test_allpairs_4);
    UNIT_RUN(test_teccl_32);
    UNIT_RUN(test_ring_exact);
    UNIT_RUN(test_swap_redirect);
    UNIT_RUN(test_two_rank_allreduce);
    UNIT_RUN(test_dead_transfers);
    UNIT_RUN(test_errors_format);
    UNIT_RUN(test_errors_program);
    UNIT_RUN(test_header);
    UNIT_EXIT();
}
