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
 * reduce-scatter calls for reduce_scatter), and --count-unit N multiplies
 * every count by N and keeps reduce-scatter counts even.  --counts
 * A,B,... replaces the level's counts (at most 16; the level still picks
 * types and ops) and runs every reduce-scatter distribution (even, skewed
 * with empty blocks, all on one rank) at each: counts the schedules'
 * units do not divide (primes, powers of two) for the rows that must
 * serve them all.
 *
 * Output: "error: ..." lines for failures (first few per rank) and one
 * summary line from rank 0; exit status 0 only when every rank passed.
 * The suite script turns that into PASS:/FAIL: lines.
 *
 * Run with `--mca op ^avx`: op/avx in Open MPI 4.1.4 saturates 8/16-bit
 * integer sums (ompi#8045).  The inputs here never overflow, so saturation
 * cannot change a result, but the suite runs on the same op component as
 * every other themis test.
 */
#include <mpi.h>

#include <complex.h>
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <wchar.h>

#include "themis_counters.h"

#define BIG_COUNT 1000003
#define SENTINEL 0xA5
#define GUARD_BYTES 64
#ifndef MAX_ERRORS_PRINTED
#define MAX_ERRORS_PRINTED 8
#endif
#define USER_MOD 65521u

/* ------------------------------------------------------------------ ops */

typedef enum {
    O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR,
    O_MINLOC, O_MAXLOC,
    O_USERADD,   /* commutative user op: integer add mod USER_MOD, float add */
    O_AFFINE,    /* non-commutative user op: composition of affine maps */
    O_NONE,      /* allgather: data movement only */
    O_COUNT
} op_id_t;

#define OPBIT(o) (1u << (o))
#define OPS_CINT (OPBIT(O_SUM) | OPBIT(O_PROD) | OPBIT(O_MIN) | OPBIT(O_MAX) | OPBIT(O_LAND) \
                  | OPBIT(O_LOR) | OPBIT(O_LXOR) | OPBIT(O_BAND) | OPBIT(O_BOR) | OPBIT(O_BXOR))
#define OPS_MULTILANG (OPS_CINT & ~(OPBIT(O_LAND) | OPBIT(O_LOR) | OPBIT(O_LXOR)))
#define OPS_FLOAT (OPBIT(O_SUM) | OPBIT(O_PROD) | OPBIT(O_MIN) | OPBIT(O_MAX))
#define OPS_COMPLEX (OPBIT(O_SUM) | OPBIT(O_PROD))
#define OPS_BOOL (OPBIT(O_LAND) | OPBIT(O_LOR) | OPBIT(O_LXOR))
#define OPS_BYTE (OPBIT(O_BAND) | OPBIT(O_BOR) | OPBIT(O_BXOR))
#define OPS_PAIR (OPBIT(O_MINLOC) | OPBIT(O_MAXLOC))

static const char *const op_names[O_COUNT] = {
    "SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR",
    "MINLOC", "MAXLOC", "user_add", "user_affine(noncomm)", "-"
};
static MPI_Op op_handles[O_COUNT];

/* ------------------------------------------------------------------ types */

typedef enum { K_SINT, K_UINT, K_FLOAT, K_COMPLEX, K_BOOL, K_BYTE, K_CHAR, K_PAIR } kind_t;
typedef enum { F_NONE, F_FLOAT, F_DOUBLE, F_LDOUBLE } fsub_t;

/* Level flags of a type: which matrices include it. */
#define IN_REDUCED 1
#define IN_TINY 2

typedef struct tdesc {
    const char *name;
    MPI_Datatype dt;
    kind_t kind;
    int size;            /* bytes of the (value part of the) element */
    fsub_t fsub;         /* floating sub-type of K_FLOAT, K_COMPLEX, float pairs */
    size_t extent;       /* C sizeof of one element */
    size_t idx_off;      /* K_PAIR: offset of the int index */
    unsigned ops;        /* valid ops */
    int levels;
    /* Derived types: element k holds nblk base elements at base index
     * k * span + pos[b]; predefined types are their own base. */
    const struct tdesc *base;
    int nblk, span, pos[4];
    int gapped;          /* MPI size != extent (padding or gaps) */
    int minmax_nonneg;   /* MIN/MAX inputs kept >= 0: Open MPI op bug, see below */
    int derived;
} tdesc_t;

typedef struct { float v; int i; } pair_float_int_t;
typedef struct { double v; int i; } pair_double_int_t;
typedef struct { long v; int i; } pair_long_int_t;
typedef struct { int v; int i; } pair_2int_t;
typedef struct { short v; int i; } pair_short_int_t;
typedef struct { long double v; int i; } pair_ldouble_int_t;

#define MAX_TYPES 48
static tdesc_t types[MAX_TYPES];
static int ntypes;

static tdesc_t *add_type(const char *name, MPI_Datatype dt, kind_t kind, int size, fsub_t fsub,
                         size_t extent, unsigned ops, int levels)
{
    tdesc_t *t = &types[ntypes++];
    memset(t, 0, sizeof(*t));
    t->name = name;
    t->dt = dt;
    t->kind = kind;
    t->size = size;
    t->fsub = fsub;
    t->extent = extent;
    t->ops = ops;
    t->levels = levels;
    t->base = t;
    t->nblk = 1;
    t->span = 1;
    return t;
}

#define INT_TYPE(DT, CT, KIND, OPS, LV) add_type(#DT, DT, KIND, sizeof(CT), F_NONE, sizeof(CT), OPS, LV)
#define PAIR_TYPE(DT, ST, FS, LV)                                                      \
    do {                                                                               \
        tdesc_t *t_ = add_type(#DT, DT, K_PAIR, sizeof(((ST *) 0)->v), FS, sizeof(ST), \
                               OPS_PAIR, LV);                                          \
        t_->idx_off = offsetof(ST, i);                                                 \
    } while (0)

static tdesc_t *find_type(const char *name)
{
    for (int i = 0; i < ntypes; i++) {
        if (0 == strcmp(types[i].name, name)) {
            return &types[i];
        }
    }
    return NULL;
}

static const tdesc_t *find_type_by_dt(MPI_Datatype dt)
{
    for (int i = 0; i < ntypes; i++) {
        if (types[i].dt == dt) {
            return &types[i];
        }
    }
    return NULL;
}

static tdesc_t *add_derived(const char *name, MPI_Datatype dt, const char *base_name,
                            int nblk, int span, const int *pos, unsigned ops, int levels)
{
    tdesc_t *base = find_type(base_name);
    tdesc_t *t = add_type(name, dt, base->kind, base->size, base->fsub,
                          base->extent * span, ops, levels);
    t->base = base;
    t->nblk = nblk;
    t->span = span;
    memcpy(t->pos, pos, nblk * sizeof(int));
    t->derived = 1;
    return t;
}

static int build_types(char *err, size_t errlen)
{
    const int R = IN_REDUCED, RT = IN_REDUCED | IN_TINY;
    ntypes = 0;
    INT_TYPE(MPI_CHAR, char, K_CHAR, 0, 0);
    INT_TYPE(MPI_SIGNED_CHAR, signed char, K_SINT, OPS_CINT, 0);
    INT_TYPE(MPI_UNSIGNED_CHAR, unsigned char, K_UINT, OPS_CINT, 0);
    INT_TYPE(MPI_SHORT, short, K_SINT, OPS_CINT, 0);
    INT_TYPE(MPI_UNSIGNED_SHORT, unsigned short, K_UINT, OPS_CINT, R);
    INT_TYPE(MPI_INT, int, K_SINT, OPS_CINT, RT);
    INT_TYPE(MPI_UNSIGNED, unsigned, K_UINT, OPS_CINT, 0);
    INT_TYPE(MPI_LONG, long, K_SINT, OPS_CINT, 0);
    /* Open MPI 4.1.4's own MIN/MAX compare MPI_UNSIGNED_LONG as signed
     * (ompi#10525, fixed in 4.1.5) and MPI_OFFSET as unsigned; coll/themis
     * reduces with the same ompi_op_reduce, so those inputs stay >= 0. */
    INT_TYPE(MPI_UNSIGNED_LONG, unsigned long, K_UINT, OPS_CINT, 0)->minmax_nonneg = 1;
    INT_TYPE(MPI_LONG_LONG, long long, K_SINT, OPS_CINT, R);
    INT_TYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long, K_UINT, OPS_CINT, 0);
    INT_TYPE(MPI_INT8_T, int8_t, K_SINT, OPS_CINT, R);
    INT_TYPE(MPI_INT16_T, int16_t, K_SINT, OPS_CINT, 0);
    INT_TYPE(MPI_INT32_T, int32_t, K_SINT, OPS_CINT, 0);
    INT_TYPE(MPI_INT64_T, int64_t, K_SINT, OPS_CINT, 0);
    INT_TYPE(MPI_UINT8_T, uint8_t, K_UINT, OPS_CINT, 0);
    INT_TYPE(MPI_UINT16_T, uint16_t, K_UINT, OPS_CINT, 0);
    INT_TYPE(MPI_UINT32_T, uint32_t, K_UINT, OPS_CINT | OPBIT(O_USERADD), R);
    INT_TYPE(MPI_UINT64_T, uint64_t, K_UINT, OPS_CINT | OPBIT(O_AFFINE), RT);
    INT_TYPE(MPI_AINT, MPI_Aint, K_SINT, OPS_MULTILANG, 0);
    INT_TYPE(MPI_OFFSET, MPI_Offset, K_SINT, OPS_MULTILANG, 0)->minmax_nonneg = 1;
    INT_TYPE(MPI_COUNT, MPI_Count, K_SINT, OPS_MULTILANG, 0);
    INT_TYPE(MPI_WCHAR, wchar_t, K_CHAR, 0, 0);
    INT_TYPE(MPI_BYTE, unsigned char, K_BYTE, OPS_BYTE, R);
    INT_TYPE(MPI_C_BOOL, _Bool, K_BOOL, OPS_BOOL, R);
    add_type("MPI_FLOAT", MPI_FLOAT, K_FLOAT, sizeof(float), F_FLOAT, sizeof(float), OPS_FLOAT, R);
    add_type("MPI_DOUBLE", MPI_DOUBLE, K_FLOAT, sizeof(double), F_DOUBLE, sizeof(double),
             OPS_FLOAT | OPBIT(O_USERADD), RT);
    add_type("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, K_FLOAT, sizeof(long double), F_LDOUBLE,
             sizeof(long double), OPS_FLOAT, R);
    add_type("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, K_COMPLEX, sizeof(float complex),
             F_FLOAT, sizeof(float complex), OPS_COMPLEX, 0);
    add_type("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, K_COMPLEX, sizeof(double complex),
             F_DOUBLE, sizeof(double complex), OPS_COMPLEX, R);
    add_type("MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, K_COMPLEX,
             sizeof(long double complex), F_LDOUBLE, sizeof(long double complex), OPS_COMPLEX, 0);
    PAIR_TYPE(MPI_FLOAT_INT, pair_float_int_t, F_FLOAT, R);
    PAIR_TYPE(MPI_DOUBLE_INT, pair_double_int_t, F_DOUBLE, R);
    PAIR_TYPE(MPI_LONG_INT, pair_long_int_t, F_NONE, 0);
    PAIR_TYPE(MPI_2INT, pair_2int_t, F_NONE, RT);
    PAIR_TYPE(MPI_SHORT_INT, pair_short_int_t, F_NONE, 0);
    PAIR_TYPE(MPI_LONG_DOUBLE_INT, pair_ldouble_int_t, F_LDOUBLE, 0);

    /* Derived: contiguous and vector (staged by the component). */
    static const int pos3[3] = { 0, 1, 2 }, pos2[2] = { 0, 1 }, posv[2] = { 0, 2 };
    MPI_Datatype contig_int, contig_double, vector_int;
    MPI_Type_contiguous(3, MPI_INT, &contig_int);
    MPI_Type_commit(&contig_int);
    MPI_Type_contiguous(2, MPI_DOUBLE, &contig_double);
    MPI_Type_commit(&contig_double);
    /* Two ints with a one-int gap: extent 3 ints, elements tile with gaps. */
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_int);
    MPI_Type_commit(&vector_int);
    /* Open MPI 4.1 rejects predefined ops on any derived type (MPI_ERR_OP,
     * ompi_op_is_valid) before a coll component is called, so derived
     * types are reduced with the user op only. */
    add_derived("contig(3,MPI_INT)", contig_int, "MPI_INT", 3, 3, pos3, OPBIT(O_USERADD), R);
    add_derived("contig(2,MPI_DOUBLE)", contig_double, "MPI_DOUBLE", 2, 2, pos2,
                OPBIT(O_USERADD), R);
    add_derived("vector(2,1,2,MPI_INT)", vector_int, "MPI_INT", 2, 3, posv,
                OPBIT(O_USERADD), RT);

    /* The C layouts above must be MPI's, or every check would be wrong. */
    for (int i = 0; i < ntypes; i++) {
        tdesc_t *t = &types[i];
        MPI_Aint lb, extent, true_lb, true_extent;
        int size;
        MPI_Type_get_extent(t->dt, &lb, &extent);
        MPI_Type_get_true_extent(t->dt, &true_lb, &true_extent);
        MPI_Type_size(t->dt, &size);
        if (0 != lb || (size_t) extent != t->extent) {
            snprintf(err, errlen, "%s: MPI lb %ld extent %ld, C extent %zu", t->name, (long) lb,
                     (long) extent, t->extent);
            return -1;
        }
        t->gapped = !(size == extent && 0 == true_lb && true_extent == extent);
    }
    return 0;
}

/* ------------------------------------------------------------------ values */

/* One element, kind-independent: integers as 64-bit two's complement
 * (sign-extended for signed kinds), floats and complex as long double. */
typedef struct {
    uint64_t u;
    long double f, im;
    int idx;
} val_t;

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t salt, int rank, uint64_t i)
{
    return mix64(salt ^ mix64(((uint64_t) rank << 44) ^ i));
}

static int float_mant(fsub_t f)
{
    return F_FLOAT == f ? FLT_MANT_DIG : F_DOUBLE == f ? DBL_MANT_DIG : LDBL_MANT_DIG;
}

static uint64_t sign_extend(uint64_t u, int size)
{
    if (size >= 8) {
        return u;
    }
    int shift = 64 - 8 * size;
    return (uint64_t) (((int64_t) (u << shift)) >> shift);
}

static uint64_t truncate_bits(uint64_t u, int size)
{
    return size >= 8 ? u : u & ((UINT64_C(1) << (8 * size)) - 1);
}

/* Uniform integer in [-b, b] from h, without signed overflow.  b is
 * capped at INT64_MAX so that -b fits and 2b + 1 does not wrap (long
 * double's 2^63 bound did: m was always 0, so every value was -2^63 and
 * its negation undefined). */
static int64_t centered(uint64_t h, uint64_t b)
{
    if (b > (uint64_t) INT64_MAX) {
        b = (uint64_t) INT64_MAX;
    }
    uint64_t m = h % (2 * b + 1);
    return m >= b ? (int64_t) (m - b) : -(int64_t) (b - m);
}

/* Largest magnitude of an integer kind. */
static uint64_t int_max(const tdesc_t *t)
{
    int bits = 8 * t->size - (K_SINT == t->kind ? 1 : 0);
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* A float that is k/2 with |k| <= 2^(mant-1)/divisor: exact, and so are
 * all sums of `divisor` of them. */
static long double gen_half(uint64_t h, fsub_t f, int divisor)
{
    uint64_t b = (UINT64_C(1) << (float_mant(f) - 1)) / (uint64_t) divisor;
    return (long double) centered(h, b) / 2.0L;
}

/*
 * gen(rank, element): the input.  Chosen per op so that the exact result
 * is representable: sums bounded by max/P, products of +-1, 2, 1/2 with a
 * bounded number of factors 2, logical inputs with both outcomes likely.
 */
static val_t gen(const tdesc_t *t, op_id_t op, uint64_t salt, int rank, uint64_t i, int nprocs)
{
    uint64_t h = hash3(salt, rank, i), h2 = mix64(h ^ 0x5bd1e995u);
    val_t v = { 0, 0.0L, 0.0L, 0 };
    int is_int = (K_SINT == t->kind || K_UINT == t->kind || K_CHAR == t->kind
                  || K_BYTE == t->kind);

    if (K_PAIR == t->kind) {
        /* Few distinct values so ties (index tie-break) are common. */
        uint64_t vv = (O_NONE == op) ? h : h % (uint64_t) (nprocs / 2 + 1);
        if (F_NONE == t->fsub) {
            v.u = sign_extend(truncate_bits(vv, t->size), t->size);
        } else {
            v.f = (O_NONE == op) ? gen_half(h, t->fsub, 1) : (long double) vv / 2.0L;
        }
        v.idx = (int) (h2 % 7) - 2;
        return v;
    }
    if (K_BOOL == t->kind) {
        switch (op) {
        case O_LAND: v.u = (0 != h % (2 * nprocs)); break;
        case O_LOR: v.u = (0 == h % (2 * nprocs)); break;
        default: v.u = h & 1; break;
        }
        return v;
    }
    if (K_FLOAT == t->kind || K_COMPLEX == t->kind) {
        static const long double prod_re[8] = { 1, -1, 0, 0, 1, 1, 2, 0 };
        static const long double prod_im[8] = { 0, 0, 1, -1, 1, -1, 0, 0.5L };
        static const long double prod_f[6] = { 1, -1, 2, -2, 0.5L, -0.5L };
        switch (op) {
        case O_SUM:
        case O_USERADD:
            v.f = gen_half(h, t->fsub, nprocs);
            v.im = gen_half(h2, t->fsub, nprocs);
            break;
        case O_PROD:
            if (K_COMPLEX == t->kind) {
                v.f = prod_re[h % 8];
                v.im = prod_im[h % 8];
            } else {
                v.f = prod_f[h % 6];
            }
            break;
        default:
            v.f = gen_half(h, t->fsub, 1);
            v.im = gen_half(h2, t->fsub, 1);
            break;
        }
        if (K_FLOAT == t->kind) {
            v.im = 0;
        }
        return v;
    }
    if (is_int) {
        int sgn = (K_SINT == t->kind);
        uint64_t nz = (h2 >> 8) % 5 + 1;   /* a nonzero logical input */
        uint64_t x;
        /* Factors 2 only on the first 8*size-2 ranks: |product| < 2^(8*size-2). */
        int may_double = rank < 8 * t->size - 2;
        switch (op) {
        case O_SUM: {
            uint64_t b = int_max(t) / (uint64_t) nprocs;
            x = sgn ? (uint64_t) centered(h, b) : h % (b + 1);
            break;
        }
        case O_PROD:
            if (0 == (h >> 20) % 97) {
                x = 0;
            } else if (may_double && 0 == h % 4) {
                x = 2;
            } else {
                x = (sgn && (h & 8)) ? (uint64_t) -1 : 1;
            }
            break;
        case O_LAND: x = (0 != h % (2 * nprocs)) ? nz : 0; break;
        case O_LOR: x = (0 == h % (2 * nprocs)) ? nz : 0; break;
        case O_LXOR: x = (h & 1) ? nz : 0; break;
        case O_BAND: x = h | h2 | mix64(h2); break;      /* each bit 0 w.p. 1/8 */
        case O_BOR: x = h & h2 & mix64(h2); break;       /* each bit 1 w.p. 1/8 */
        case O_USERADD: x = h % USER_MOD; break;
        default: x = h; break;                           /* MIN, MAX, BXOR, AFFINE, NONE */
        }
        if (t->minmax_nonneg && (O_MIN == op || O_MAX == op)) {
            x &= (uint64_t) INT64_MAX >> (64 - 8 * t->size);
        }
        if (sgn && (O_LAND == op || O_LOR == op || O_LXOR == op) && (h2 & 1)) {
            x = (uint64_t) -(int64_t) x;
        }
        x = truncate_bits(x, t->size);
        v.u = sgn ? sign_extend(x, t->size) : x;
        return v;
    }
    return v;
}

/* (x0 o x1)(y) = x0(x1(y)) for y -> a*y + b mod 2^32, packed a:b. */
static uint64_t affine_compose(uint64_t x0, uint64_t x1)
{
    uint32_t a0 = (uint32_t) (x0 >> 32), b0 = (uint32_t) x0;
    uint32_t a1 = (uint32_t) (x1 >> 32), b1 = (uint32_t) x1;
    return ((uint64_t) (uint32_t) (a0 * a1) << 32) | (uint32_t) (a0 * b1 + b0);
}

/* a op b, in rank order (a from lower ranks). */
static val_t fold(const tdesc_t *t, op_id_t op, val_t a, val_t b)
{
    val_t r = a;
    int sgn = (K_SINT == t->kind);
    if (K_PAIR == t->kind) {
        int cmp;
        if (F_NONE == t->fsub) {
            int64_t x = (int64_t) a.u, y = (int64_t) b.u;
            cmp = (x < y) ? -1 : (x > y);
        } else {
            cmp = (a.f < b.f) ? -1 : (a.f > b.f);
        }
        if (O_MAXLOC == op) {
            cmp = -cmp;
        }
        if (cmp > 0) {
            r = b;
        } else if (0 == cmp && b.idx < a.idx) {
            r.idx = b.idx;
        }
        return r;
    }
    if (K_FLOAT == t->kind || K_COMPLEX == t->kind) {
        switch (op) {
        case O_SUM:
        case O_USERADD:
            r.f = a.f + b.f;
            r.im = a.im + b.im;
            break;
        case O_PROD:
            r.f = a.f * b.f - a.im * b.im;
            r.im = a.f * b.im + a.im * b.f;
            break;
        case O_MIN: r.f = (b.f < a.f) ? b.f : a.f; break;
        case O_MAX: r.f = (b.f > a.f) ? b.f : a.f; break;
        default: break;
        }
        return r;
    }
    int64_t x = (int64_t) a.u, y = (int64_t) b.u;
    switch (op) {
    case O_SUM: r.u = a.u + b.u; break;
    case O_PROD: r.u = a.u * b.u; break;
    case O_MIN: r.u = sgn ? (uint64_t) (x < y ? x : y) : (a.u < b.u ? a.u : b.u); break;
    case O_MAX: r.u = sgn ? (uint64_t) (x > y ? x : y) : (a.u > b.u ? a.u : b.u); break;
    case O_LAND: r.u = (0 != a.u) && (0 != b.u); break;
    case O_LOR: r.u = (0 != a.u) || (0 != b.u); break;
    case O_LXOR: r.u = (0 != a.u) != (0 != b.u); break;
    case O_BAND: r.u = a.u & b.u; break;
    case O_BOR: r.u = a.u | b.u; break;
    case O_BXOR: r.u = a.u ^ b.u; break;
    case O_USERADD: r.u = (a.u + b.u) % USER_MOD; break;
    case O_AFFINE: r.u = affine_compose(a.u, b.u); break;
    default: break;
    }
    return r;
}

static void store_float(void *p, fsub_t f, long double x)
{
    if (F_FLOAT == f) {
        float y = (float) x;
        memcpy(p, &y, sizeof(y));
    } else if (F_DOUBLE == f) {
        double y = (double) x;
        memcpy(p, &y, sizeof(y));
    } else {
        memcpy(p, &x, sizeof(x));
    }
}

static long double load_float(const void *p, fsub_t f)
{
    if (F_FLOAT == f) {
        float y;
        memcpy(&y, p, sizeof(y));
        return y;
    } else if (F_DOUBLE == f) {
        double y;
        memcpy(&y, p, sizeof(y));
        return y;
    }
    long double y;
    memcpy(&y, p, sizeof(y));
    return y;
}

static void store_int(void *p, int size, uint64_t u)
{
    switch (size) {
    case 1: { uint8_t y = (uint8_t) u; memcpy(p, &y, 1); break; }
    case 2: { uint16_t y = (uint16_t) u; memcpy(p, &y, 2); break; }
    case 4: { uint32_t y = (uint32_t) u; memcpy(p, &y, 4); break; }
    default: memcpy(p, &u, 8); break;
    }
}

static uint64_t load_int(const void *p, int size, int sgn)
{
    uint64_t u = 0;
    switch (size) {
    case 1: { uint8_t y; memcpy(&y, p, 1); u = y; break; }
    case 2: { uint16_t y; memcpy(&y, p, 2); u = y; break; }
    case 4: { uint32_t y; memcpy(&y, p, 4); u = y; break; }
    default: memcpy(&u, p, 8); break;
    }
    return sgn ? sign_extend(u, size) : u;
}

/* Base element `ei` of buffer `buf` (t is a base type). */
static void store(const tdesc_t *t, void *buf, size_t ei, val_t v)
{
    char *p = (char *) buf + ei * t->extent;
    switch (t->kind) {
    case K_FLOAT:
        store_float(p, t->fsub, v.f);
        break;
    case K_COMPLEX: {
        size_t half = t->size / 2;
        store_float(p, t->fsub, v.f);
        store_float(p + half, t->fsub, v.im);
        break;
    }
    case K_BOOL: {
        _Bool b = (0 != v.u);
        memcpy(p, &b, sizeof(b));
        break;
    }
    case K_PAIR:
        if (F_NONE == t->fsub) {
            store_int(p, t->size, v.u);
        } else {
            store_float(p, t->fsub, v.f);
        }
        memcpy(p + t->idx_off, &v.idx, sizeof(int));
        break;
    default:
        store_int(p, t->size, v.u);
        break;
    }
}

static val_t load(const tdesc_t *t, const void *buf, size_t ei)
{
    const char *p = (const char *) buf + ei * t->extent;
    val_t v = { 0, 0.0L, 0.0L, 0 };
    switch (t->kind) {
    case K_FLOAT:
        v.f = load_float(p, t->fsub);
        break;
    case K_COMPLEX:
        v.f = load_float(p, t->fsub);
        v.im = load_float(p + t->size / 2, t->fsub);
        break;
    case K_BOOL: {
        unsigned char b;
        memcpy(&b, p, 1);
        v.u = b;
        break;
    }
    case K_PAIR:
        if (F_NONE == t->fsub) {
            v.u = load_int(p, t->size, 1);
        } else {
            v.f = load_float(p, t->fsub);
        }
        memcpy(&v.idx, p + t->idx_off, sizeof(int));
        break;
    default:
        v.u = load_int(p, t->size, K_SINT == t->kind);
        break;
    }
    return v;
}

static int val_eq(const tdesc_t *t, val_t a, val_t b)
{
    switch (t->kind) {
    case K_FLOAT: return a.f == b.f;
    case K_COMPLEX: return a.f == b.f && a.im == b.im;
    case K_PAIR: return a.idx == b.idx && (F_NONE == t->fsub ? a.u == b.u : a.f == b.f);
    default: return a.u == b.u;
    }
}

static void val_str(const tdesc_t *t, val_t v, char *s, size_t len)
{
    switch (t->kind) {
    case K_FLOAT: snprintf(s, len, "%.21Lg", v.f); break;
    case K_COMPLEX: snprintf(s, len, "(%.21Lg,%.21Lg)", v.f, v.im); break;
    case K_PAIR:
        if (F_NONE == t->fsub) {
            snprintf(s, len, "(%" PRId64 ",%d)", (int64_t) v.u, v.idx);
        } else {
            snprintf(s, len, "(%.21Lg,%d)", v.f, v.idx);
        }
        break;
    case K_SINT: snprintf(s, len, "%" PRId64, (int64_t) v.u); break;
    default: snprintf(s, len, "0x%" PRIx64, v.u); break;
    }
}

/* ------------------------------------------------------------------ user ops */

static int user_op_errors;

/* Applies fold() element-wise on the base elements of whatever (known)
 * datatype MPI hands us, touching only the type map (not vector gaps). */
static void user_apply(op_id_t op, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const tdesc_t *t = find_type_by_dt(*dt);
    if (NULL == t) {
        user_op_errors++;
        return;
    }
    for (int k = 0; k < *len; k++) {
        for (int b = 0; b < t->nblk; b++) {
            size_t ei = (size_t) k * t->span + t->pos[b];
            store(t->base, inout, ei, fold(t->base, op, load(t->base, in, ei),
                                           load(t->base, inout, ei)));
        }
    }
}

static void user_add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_apply(O_USERADD, in, inout, len, dt);
}

static void user_affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_apply(O_AFFINE, in, inout, len, dt);
}

/* ------------------------------------------------------------------ cases */

typedef enum { C_ALLREDUCE, C_REDUCE_SCATTER, C_REDUCE_SCATTER_BLOCK, C_ALLGATHER } coll_t;
static const tc_coll_t coll_counter[4] = {
    TC_ALLREDUCE, TC_REDUCE_SCATTER, TC_REDUCE_SCATTER_BLOCK, TC_ALLGATHER
};

typedef enum { D_EVEN, D_SKEW, D_ONE, D_NDISTS } dist_t;
static const char *const dist_names[D_NDISTS] = { "even", "skewed-with-zeros", "all-on-one" };

typedef enum { EXPECT_NONE, EXPECT_THEMIS, EXPECT_FALLBACK } expect_mode_t;
/* What a single call must do to the counters. */
typedef enum { PATH_THEMIS, PATH_FALLBACK, PATH_COUNTED, PATH_ANY } path_t;

typedef struct {
    MPI_Comm comm;
    const char *comm_name;
    int comm_is_world_like;     /* same eligibility as MPI_COMM_WORLD */
    int algo;                   /* --algo: -1 unchecked, else tc_algo_name() index */
    int only_coll;              /* --coll: -1 all, else the first coll_t it names */
    size_t count_unit;          /* --count-unit, 1 by default */
    int explicit_counts;        /* --counts given */
    int substituted;            /* --substituted */
    int nb;                     /* --nonblocking N: calls in flight per batch, 0 blocking */
    int rank, nprocs;
    expect_mode_t expect;
    uint64_t min_bytes;
    int ncases, nerrors, nprinted;
    tc_snapshot_t first;
} ctx_t;

typedef struct {
    coll_t coll;
    const tdesc_t *t;
    op_id_t op;
    size_t count;     /* AR/RS: total elements; RSB/AG: elements per rank */
    int inplace;
    dist_t dist;
} case_t;

static void case_name(const ctx_t *cx, const case_t *c, char *s, size_t len)
{
    static const char *const cn[4] = {
        "allreduce", "reduce_scatter", "reduce_scatter_block", "allgather"
    };
    snprintf(s, len, "%s %s %s count=%zu%s%s%s [%s]", cn[c->coll], c->t->name,
             op_names[c->op], c->count, c->inplace ? " in-place" : "",
             C_REDUCE_SCATTER == c->coll ? " recvcounts=" : "",
             C_REDUCE_SCATTER == c->coll ? dist_names[c->dist] : "", cx->comm_name);
}

static void report(ctx_t *cx, const case_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(ctx_t *cx, const case_t *c, const char *fmt, ...)
{
    cx->nerrors++;
    if (cx->nprinted >= MAX_ERRORS_PRINTED) {
        return;
    }
    cx->nprinted++;
    char name[256], msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (NULL != c) {
        case_name(cx, c, name, sizeof(name));
    } else {
        snprintf(name, sizeof(name), "%s", cx->comm_name);
    }
    printf("error: rank %d: %s: %s\n", cx->rank, name, msg);
    fflush(stdout);
}

static uint64_t case_salt(const case_t *c)
{
    uint64_t s = (uint64_t) (c->t - types) * 1000003u + (uint64_t) c->op * 131u
                 + (uint64_t) c->coll * 7u + (uint64_t) c->inplace;
    return mix64(s ^ ((uint64_t) c->count << 20) ^ ((uint64_t) c->dist << 56));
}

static void make_recvcounts(dist_t dist, size_t total, int p, int *rc)
{
    long w[64], wsum = 0;
    int last = 0;
    for (int r = 0; r < p; r++) {
        switch (dist) {
        case D_EVEN: w[r] = 1; break;
        case D_SKEW: w[r] = (1 == r % 3) ? 0 : r + 1; break;
        default: w[r] = (r == p / 2); break;
        }
        wsum += w[r];
        if (w[r]) {
            last = r;
        }
    }
    size_t given = 0;
    for (int r = 0; r < p; r++) {
        rc[r] = (int) (total * (size_t) w[r] / (size_t) wsum);
        given += rc[r];
    }
    /* Remainder: one each to the nonzero ranks from the top (even: spread). */
    for (int r = p - 1; given < total; r = (r + p - 1) % p) {
        if (w[r] && (D_EVEN == dist || r == last)) {
            size_t add = (D_EVEN == dist) ? 1 : total - given;
            rc[r] += (int) add;
            given += add;
        }
    }
}

/* Which path the call must take, from the public view of eligibility:
 * commutative op and message at least min_bytes (non-contiguous types
 * are staged, never a reason to fall back). */
static path_t expected_path(const ctx_t *cx, const case_t *c, size_t total_elems)
{
    if (0 == total_elems) {
        return PATH_ANY;          /* may return before any counting */
    }
    if (!cx->comm_is_world_like) {
        return PATH_ANY;          /* shape of a sub-communicator is the component's call */
    }
    int commutative = (O_AFFINE != c->op);
    if (!commutative && C_ALLGATHER != c->coll) {
        return PATH_FALLBACK;
    }
    /* The size the component compares with min_bytes could be the whole
     * vector or one rank's block: decide only when both agree. */
    int size;
    MPI_Type_size(c->t->dt, &size);
    uint64_t total = (uint64_t) total_elems * size;
    uint64_t block = total / (uint64_t) cx->nprocs;
    uint64_t lo = (C_ALLREDUCE == c->coll) ? total : block;
    if (lo >= cx->min_bytes) {
        return PATH_THEMIS;
    }
    if (total < cx->min_bytes) {
        return PATH_FALLBACK;
    }
    return PATH_COUNTED;
}

/* A themis-path call must have run the --algo algorithm and no other of
 * the component's (its counters name them; a call without data, PATH_ANY,
 * is counted without running a program). */
/* The counters of a case's collective in this run's mode. */
static tc_coll_t case_counter(const ctx_t *cx, const case_t *c)
{
    return (tc_coll_t) (coll_counter[c->coll] + (cx->nb > 0 ? TC_NBLOCKING : 0));
}

static void check_algorithm(ctx_t *cx, const case_t *c, path_t path, const tc_snapshot_t *before,
                            const tc_snapshot_t *after)
{
    tc_coll_t k = case_counter(cx, c);
    uint64_t dc = after->calls[k] - before->calls[k];
    uint64_t ds = after->substitutions[k] - before->substitutions[k];
    if (cx->algo < 0 || 0 == dc || !cx->comm_is_world_like || PATH_ANY == path) {
        return;
    }
    int bad = ds != (cx->substituted ? dc : 0);
    char seen[256] = "";
    size_t off = 0;
    for (int a = 0; a < tc_nalgos() && off < sizeof(seen); a++) {
        uint64_t d = after->algo[a][k] - before->algo[a][k];
        bad |= d != (a == cx->algo ? dc : 0);
        off += (size_t) snprintf(seen + off, sizeof(seen) - off, ", _%s_calls +%" PRIu64,
                                 tc_algo_name(a), d);
    }
    if (bad) {
        report(cx, c, "expected %s%s: coll_themis_%s_calls +%" PRIu64 "%s, _substitutions +%"
               PRIu64, tc_algo_name(cx->algo), cx->substituted ? " (substituted)" : "",
               tc_coll_name(k), dc, seen, ds);
    }
}

static void check_counters(ctx_t *cx, const case_t *c, path_t path, const tc_snapshot_t *before,
                           const tc_snapshot_t *after)
{
    tc_coll_t k = case_counter(cx, c);
    uint64_t dc = after->calls[k] - before->calls[k];
    uint64_t df = after->fallbacks[k] - before->fallbacks[k];
    if (EXPECT_NONE == cx->expect) {
        return;
    }
    if (EXPECT_FALLBACK == cx->expect) {
        /* A split need not contain the rank that disagrees. */
        if (0 != dc && cx->comm_is_world_like) {
            report(cx, c, "coll_themis_%s_calls rose by %" PRIu64 " but themis must have "
                   "stepped aside", tc_coll_name(k), dc);
        }
        return;
    }
    check_algorithm(cx, c, path, before, after);
    switch (path) {
    case PATH_THEMIS:
        if (0 == dc || 0 != df) {
            report(cx, c, "expected the themis path: coll_themis_%s_calls +%" PRIu64
                   ", _fallbacks +%" PRIu64, tc_coll_name(k), dc, df);
        }
        break;
    case PATH_FALLBACK:
        if (0 != dc || 0 == df) {
            report(cx, c, "expected a fallback: coll_themis_%s_calls +%" PRIu64
                   ", _fallbacks +%" PRIu64, tc_coll_name(k), dc, df);
        }
        break;
    case PATH_COUNTED:
        if (0 == dc + df) {
            report(cx, c, "call not counted: coll_themis_%s_calls and _fallbacks unchanged",
                   tc_coll_name(k));
        }
        break;
    default:
        break;
    }
}

/* One case from its buffers to its check (several are in flight with
 * --nonblocking). */
typedef struct {
    case_t c;
    int rc[64];
    size_t in_n, out_n, sbytes, rbytes;
    char *sbuf, *scopy, *rbuf, *expect;
    int err, uerr;
    MPI_Request req;
} pending_t;

static void case_free(pending_t *pc)
{
    free(pc->sbuf);
    free(pc->scopy);
    free(pc->rbuf);
    free(pc->expect);
    pc->sbuf = pc->scopy = pc->rbuf = pc->expect = NULL;
}

/* Buffers, input and expected output; 0 when the case can run. */
static int case_setup(ctx_t *cx, pending_t *pc)
{
    const case_t *c = &pc->c;
    const tdesc_t *t = c->t, *bt = t->base;
    const int p = cx->nprocs, me = cx->rank, nb = t->nblk;
    const uint64_t salt = case_salt(c);
    int *rc = pc->rc;
    size_t in_n, out_n, out_start = 0, region_n;

    cx->ncases++;
    for (int r = 0; r < p; r++) {
        rc[r] = (int) c->count;
    }
    switch (c->coll) {
    case C_ALLREDUCE:
        in_n = out_n = c->count;
        break;
    case C_REDUCE_SCATTER:
        make_recvcounts(c->dist, c->count, p, rc);
        in_n = c->count;
        out_n = rc[me];
        break;
    case C_REDUCE_SCATTER_BLOCK:
        in_n = c->count * p;
        out_n = c->count;
        break;
    default:
        in_n = c->count;
        out_n = c->count * p;
        break;
    }
    for (int r = 0; r < me && C_ALLGATHER != c->coll && C_ALLREDUCE != c->coll; r++) {
        out_start += rc[r];
    }
    /* The receive buffer: in place it holds the input first. */
    region_n = (c->inplace && C_ALLGATHER != c->coll) ? in_n : out_n;
    size_t ext = t->extent;
    size_t sbytes = in_n * ext, rbytes = region_n * ext;
    char *sbuf = malloc(sbytes + 1), *scopy = malloc(sbytes + 1);
    char *rbuf = malloc(rbytes + GUARD_BYTES), *expect = malloc(out_n * ext + 1);
    pc->sbuf = sbuf;
    pc->scopy = scopy;
    pc->rbuf = rbuf;
    pc->expect = expect;
    pc->in_n = in_n;
    pc->out_n = out_n;
    pc->sbytes = sbytes;
    pc->rbytes = rbytes;
    pc->req = MPI_REQUEST_NULL;
    if (NULL == sbuf || NULL == scopy || NULL == rbuf || NULL == expect) {
        report(cx, c, "out of memory");
        case_free(pc);
        return -1;
    }
    memset(sbuf, SENTINEL, sbytes);
    memset(rbuf, SENTINEL, rbytes + GUARD_BYTES);

    /* Input: element j of this rank = gen(me, j); allgather in place puts
     * it at this rank's block of the receive buffer. */
    char *in = (c->inplace && C_ALLGATHER != c->coll) ? rbuf
               : (c->inplace ? rbuf + (size_t) me * c->count * ext : sbuf);
    for (size_t j = 0; j < in_n; j++) {
        for (int b = 0; b < nb; b++) {
            store(bt, in, j * t->span + t->pos[b], gen(bt, c->op, salt, me, j * nb + b, p));
        }
    }
    memcpy(scopy, sbuf, sbytes);

    /* Expected output, from every rank's generator. */
    for (size_t j = 0; j < out_n; j++) {
        for (int b = 0; b < nb; b++) {
            val_t acc;
            if (C_ALLGATHER == c->coll) {
                size_t src = j / c->count, jj = j % c->count;
                acc = gen(bt, c->op, salt, (int) src, jj * nb + b, p);
            } else {
                uint64_t gi = (out_start + j) * nb + b;
                acc = gen(bt, c->op, salt, 0, gi, p);
                for (int r = 1; r < p; r++) {
                    acc = fold(bt, c->op, acc, gen(bt, c->op, salt, r, gi, p));
                }
            }
            store(bt, expect, j * t->span + t->pos[b], acc);
        }
    }
    return 0;
}

/* The call, blocking or (with cx->nb) started into pc->req. */
static int case_issue(const ctx_t *cx, pending_t *pc)
{
    const case_t *c = &pc->c;
    const tdesc_t *t = c->t;
    const void *sarg = c->inplace ? MPI_IN_PLACE : pc->sbuf;
    MPI_Op op = op_handles[c->op];
    MPI_Request *r = &pc->req;
    void *rbuf = pc->rbuf;
    int n = (int) c->count;

    pc->uerr = user_op_errors;
    switch (c->coll) {
    case C_ALLREDUCE:
        return cx->nb ? MPI_Iallreduce(sarg, rbuf, n, t->dt, op, cx->comm, r)
                      : MPI_Allreduce(sarg, rbuf, n, t->dt, op, cx->comm);
    case C_REDUCE_SCATTER:
        return cx->nb ? MPI_Ireduce_scatter(sarg, rbuf, pc->rc, t->dt, op, cx->comm, r)
                      : MPI_Reduce_scatter(sarg, rbuf, pc->rc, t->dt, op, cx->comm);
    case C_REDUCE_SCATTER_BLOCK:
        return cx->nb ? MPI_Ireduce_scatter_block(sarg, rbuf, n, t->dt, op, cx->comm, r)
                      : MPI_Reduce_scatter_block(sarg, rbuf, n, t->dt, op, cx->comm);
    default:
        return cx->nb ? MPI_Iallgather(sarg, n, t->dt, rbuf, n, t->dt, cx->comm, r)
                      : MPI_Allgather(sarg, n, t->dt, rbuf, n, t->dt, cx->comm);
    }
}

/* The result, buffers and (before/after not NULL) counters of a
 * completed case. */
static void case_check(ctx_t *cx, pending_t *pc, const tc_snapshot_t *before,
                       const tc_snapshot_t *after)
{
    const case_t *c = &pc->c;
    const tdesc_t *t = c->t, *bt = t->base;
    const int nb = t->nblk;
    const size_t out_n = pc->out_n, rbytes = pc->rbytes;
    char *rbuf = pc->rbuf, *expect = pc->expect;
    int err = pc->err, uerr = pc->uerr;

    if (MPI_SUCCESS != err) {
        char es[MPI_MAX_ERROR_STRING];
        int elen;
        MPI_Error_string(err, es, &elen);
        report(cx, c, "returned %d (%s)", err, es);
    } else {
        size_t bad = 0;
        for (size_t j = 0; j < out_n; j++) {
            for (int b = 0; b < nb; b++) {
                size_t ei = j * t->span + t->pos[b];
                val_t got = load(bt, rbuf, ei), want = load(bt, expect, ei);
                if (!val_eq(bt, got, want) && 0 == bad++) {
                    char gs[96], ws[96];
                    val_str(bt, got, gs, sizeof(gs));
                    val_str(bt, want, ws, sizeof(ws));
                    report(cx, c, "element %zu (block %d): got %s, expected %s", j, b, gs, ws);
                }
            }
            /* Gaps of a vector type are outside the type map. */
            for (int g = 0; g < t->span && t->derived && t->gapped; g++) {
                int in_map = 0;
                for (int b = 0; b < nb; b++) {
                    in_map |= (t->pos[b] == g);
                }
                const unsigned char *gp = (unsigned char *) rbuf + (j * t->span + g) * bt->extent;
                for (size_t q = 0; !in_map && q < bt->extent; q++) {
                    if (SENTINEL != gp[q] && 0 == bad++) {
                        report(cx, c, "gap of element %zu was written", j);
                    }
                }
            }
        }
        if (bad > 1) {
            report(cx, c, "%zu wrong elements in all", bad);
        }
        for (size_t q = 0; q < GUARD_BYTES; q++) {
            if (SENTINEL != (unsigned char) rbuf[rbytes + q]) {
                report(cx, c, "wrote past the end of the receive buffer (byte %zu)", q);
                break;
            }
        }
        if (!c->inplace && 0 != memcmp(pc->sbuf, pc->scopy, pc->sbytes)) {
            report(cx, c, "modified the send buffer");
        }
        if (user_op_errors != uerr) {
            report(cx, c, "user op called with an unknown datatype");
        }
        size_t total = (C_ALLGATHER == c->coll) ? out_n : pc->in_n;
        if (NULL != before) {
            check_counters(cx, c, expected_path(cx, c, total), before, after);
        }
    }
    case_free(pc);
}

static void run_case(ctx_t *cx, const case_t *c)
{
    pending_t pc = {.c = *c};
    tc_snapshot_t before, after;

    if (0 != case_setup(cx, &pc)) {
        return;
    }
    tc_read(&before);
    pc.err = case_issue(cx, &pc);
    tc_read(&after);
    case_check(cx, &pc, &before, &after);
}



/* ------------------------------------------------------------ nonblocking */

/* --nonblocking N: cases start in batches of N calls in flight, with a
 * blocking collective or point-to-point on the same communicator between
 * starts, and complete in an order drawn per batch and rank (seeded, not
 * from time): MPI_Waitall, MPI_Waitany, MPI_Test on random requests, or
 * MPI_Wait in a shuffled order. */
#define MAX_BATCH 64
static pending_t batch[MAX_BATCH];
static int nbatch;
static unsigned nbatches;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fffu;
}

static void interleave(ctx_t *cx, int i)
{
    const int p = cx->nprocs, me = cx->rank;
    if (1 == i % 3) {
        int v[7], sum[7];
        for (int k = 0; k < 7; k++) {
            v[k] = me + k;
        }
        int err = MPI_Allreduce(v, sum, 7, MPI_INT, MPI_SUM, cx->comm);
        for (int k = 0; k < 7 && MPI_SUCCESS == err; k++) {
            if (sum[k] != p * (p - 1) / 2 + p * k) {
                report(cx, NULL, "blocking MPI_Allreduce among nonblocking calls: element %d "
                       "is %d, expected %d", k, sum[k], p * (p - 1) / 2 + p * k);
                break;
            }
        }
        if (MPI_SUCCESS != err) {
            report(cx, NULL, "blocking MPI_Allreduce among nonblocking calls returned %d", err);
        }
    } else if (2 == i % 3) {
        int out = me * 1000 + i, in = -1, from = (me + p - 1) % p;
        int err = MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % p, 77 + i, &in, 1, MPI_INT, from,
                               77 + i, cx->comm, MPI_STATUS_IGNORE);
        if (MPI_SUCCESS != err || in != from * 1000 + i) {
            report(cx, NULL, "MPI_Sendrecv among nonblocking calls: %d, got %d", err, in);
        }
    }
}

/* A batch's counters: each case's path is known only within bounds, as
 * the calls overlap. */
static void batch_counters(ctx_t *cx, const tc_snapshot_t *before, const tc_snapshot_t *after)
{
    if (EXPECT_NONE == cx->expect) {
        return;
    }
    for (int coll = C_ALLREDUCE; coll <= C_ALLGATHER; coll++) {
        tc_coll_t k = (tc_coll_t) (coll_counter[coll] + TC_NBLOCKING);
        uint64_t n[4] = {0, 0, 0, 0};
        int any = 0;
        for (int i = 0; i < nbatch; i++) {
            const pending_t *pc = &batch[i];
            if ((int) pc->c.coll == coll) {
                size_t total = (C_ALLGATHER == coll) ? pc->out_n : pc->in_n;
                n[expected_path(cx, &pc->c, total)]++;
                any = 1;
            }
        }
        uint64_t dc = after->calls[k] - before->calls[k];
        uint64_t df = after->fallbacks[k] - before->fallbacks[k];
        if (!any) {
            continue;
        }
        if (EXPECT_FALLBACK == cx->expect) {
            if (0 != dc && cx->comm_is_world_like) {
                report(cx, NULL, "coll_themis_%s_calls rose by %" PRIu64 " but themis must "
                       "have stepped aside", tc_coll_name(k), dc);
            }
            continue;
        }
        uint64_t t = n[PATH_THEMIS], f = n[PATH_FALLBACK], e = n[PATH_COUNTED], a = n[PATH_ANY];
        if (dc < t || df < f || dc + df < t + f + e || dc > t + e + a || df > f + e + a) {
            report(cx, NULL, "batch of %d: coll_themis_%s_calls +%" PRIu64 ", _fallbacks +%"
                   PRIu64 "; expected %" PRIu64 " themis, %" PRIu64 " fallbacks, %" PRIu64
                   " either, %" PRIu64 " either or none", nbatch, tc_coll_name(k), dc, df, t, f,
                   e, a);
        }
        if (cx->algo < 0 || !cx->comm_is_world_like) {
            continue;
        }
        /* --algo: calls with data ran that row and no other (empty calls
         * count no row). */
        uint64_t ds = after->substitutions[k] - before->substitutions[k], rows = 0, mine = 0;
        for (int r = 0; r < tc_nalgos(); r++) {
            uint64_t d = after->algo[r][k] - before->algo[r][k];
            rows += d;
            mine += r == cx->algo ? d : 0;
        }
        if (mine != rows || rows + a < dc || ds != (cx->substituted ? mine : 0)) {
            report(cx, NULL, "batch of %d: coll_themis_%s_calls +%" PRIu64 ", of them %s +%"
                   PRIu64 ", any row +%" PRIu64 ", substitutions +%" PRIu64, nbatch,
                   tc_coll_name(k), dc, tc_algo_name(cx->algo), mine, rows, ds);
        }
    }
}

static void batch_flush(ctx_t *cx)
{
    const int n = nbatch;
    unsigned seed = 2654435761u * ++nbatches + 40503u * (unsigned) cx->rank;
    MPI_Request reqs[MAX_BATCH];
    MPI_Status st[MAX_BATCH];
    int done[MAX_BATCH], left = n, order[MAX_BATCH];
    tc_snapshot_t before, after;

    if (0 == n) {
        return;
    }
    tc_read(&before);
    for (int i = 0; i < n; i++) {
        batch[i].err = case_issue(cx, &batch[i]);
        reqs[i] = MPI_SUCCESS == batch[i].err ? batch[i].req : MPI_REQUEST_NULL;
        done[i] = 0;
        order[i] = i;
        interleave(cx, i);
    }
    switch (next_rand(&seed) % 4) {
    case 0: {
        int rc = MPI_Waitall(n, reqs, st);
        for (int i = 0; i < n && MPI_SUCCESS != rc; i++) {
            if (MPI_SUCCESS == batch[i].err) {
                batch[i].err = MPI_ERR_IN_STATUS == rc ? st[i].MPI_ERROR : rc;
            }
        }
        break;
    }
    case 1:
        for (;;) {
            int idx = MPI_UNDEFINED;
            int rc = MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
            if (MPI_UNDEFINED == idx) {
                break;
            }
            if (MPI_SUCCESS != rc && MPI_SUCCESS == batch[idx].err) {
                batch[idx].err = rc;
            }
        }
        break;
    case 2:
        while (left > 0) {
            int i = (int) (next_rand(&seed) % (unsigned) n), flag = 0;
            if (done[i]) {
                continue;
            }
            int rc = MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
            if (MPI_SUCCESS != rc) {
                batch[i].err = MPI_SUCCESS == batch[i].err ? rc : batch[i].err;
                flag = 1;
            }
            if (flag) {
                done[i] = 1;
                left--;
            }
        }
        break;
    default:
        for (int i = n - 1; i > 0; i--) {
            int j = (int) (next_rand(&seed) % (unsigned) (i + 1)), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        for (int i = 0; i < n; i++) {
            int rc = MPI_Wait(&reqs[order[i]], MPI_STATUS_IGNORE);
            if (MPI_SUCCESS != rc && MPI_SUCCESS == batch[order[i]].err) {
                batch[order[i]].err = rc;
            }
        }
        break;
    }
    tc_read(&after);
    batch_counters(cx, &before, &after);
    for (int i = 0; i < n; i++) {
        case_check(cx, &batch[i], NULL, NULL);
    }
    nbatch = 0;
}

static void submit(ctx_t *cx, const case_t *c)
{
    if (0 == cx->nb) {
        run_case(cx, c);
        return;
    }
    pending_t *pc = &batch[nbatch];
    memset(pc, 0, sizeof(*pc));
    pc->c = *c;
    if (0 == case_setup(cx, pc) && ++nbatch == cx->nb) {
        batch_flush(cx);
    }
}

/* MPI_Cancel of a collective request does nothing (the call completes
 * and is not cancelled); MPI_Request_free of an active one lets it
 * complete: its result appears while progress runs. */
static void nb_cancel_and_free(ctx_t *cx)
{
    const int n = 4099, p = cx->nprocs;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(n * sizeof(int));
    MPI_Request r;
    MPI_Status st;
    int flag = 1, rc, ok = 0;

    if (NULL == a || NULL == b || NULL == c) {
        report(cx, NULL, "out of memory");
        free(a); free(b); free(c);
        return;
    }
    for (int k = 0; k < n; k++) {
        a[k] = cx->rank + k;
        b[k] = c[k] = -1;
    }
    cx->ncases += 2;
    rc = MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, cx->comm, &r);
    if (MPI_SUCCESS == rc && MPI_SUCCESS != MPI_Cancel(&r)) {
        report(cx, NULL, "MPI_Cancel of an MPI_Iallreduce request failed");
    }
    if (MPI_SUCCESS == rc) {
        rc = MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &flag);
    }
    if (MPI_SUCCESS != rc || flag) {
        report(cx, NULL, "MPI_Iallreduce after MPI_Cancel: %d, cancelled %d", rc, flag);
    }
    for (int k = 0; k < n; k++) {
        if (b[k] != p * (p - 1) / 2 + p * k) {
            report(cx, NULL, "MPI_Iallreduce after MPI_Cancel: element %d is %d", k, b[k]);
            break;
        }
    }

    rc = MPI_Iallreduce(a, c, n, MPI_INT, MPI_SUM, cx->comm, &r);
    if (MPI_SUCCESS == rc) {
        rc = MPI_Request_free(&r);
    }
    if (MPI_SUCCESS != rc || MPI_REQUEST_NULL != r) {
        report(cx, NULL, "MPI_Request_free of an active MPI_Iallreduce request: %d", rc);
    }
    /* No timing assertion: a generous bound only turns a hang into an error. */
    for (double t0 = MPI_Wtime(); !ok && MPI_Wtime() - t0 < 600;) {
        int f;
        MPI_Iprobe(MPI_ANY_SOURCE, 999, cx->comm, &f, MPI_STATUS_IGNORE);
        ok = 1;
        for (int k = 0; k < n && ok; k++) {
            ok = c[k] == p * (p - 1) / 2 + p * k;
        }
    }
    if (!ok) {
        report(cx, NULL, "a freed active MPI_Iallreduce never completed");
    }
    MPI_Barrier(cx->comm);
    free(a);
    free(b);
    free(c);
}

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
    return cx->only_coll < 0 || coll == cx->only_coll
           || (C_REDUCE_SCATTER == cx->only_coll && C_REDUCE_SCATTER_BLOCK == coll);
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
            "[--big] [--no-subcomms] [--coll allreduce|reduce_scatter|allgather] "
            "[--count-unit N] [--counts A,B,...] [--max-rss-mb N] [--nonblocking N]\n", argv0);
}

int main(int argc, char **argv)
{
    level_t level = L_REDUCED;
    expect_mode_t expect = EXPECT_THEMIS;
    int big = 0, subcomms = 1, substituted = 0;
    const char *algo = NULL;
    char err[256];
    int only_coll = -1;
    size_t count_unit = 1;
    size_t counts[16], ncounts = 0;
    int bad_counts = 0, nb = 0;
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
            only_coll = !strcmp(c, "allreduce") ? C_ALLREDUCE
                        : !strcmp(c, "reduce_scatter") ? C_REDUCE_SCATTER
                        : !strcmp(c, "allgather") ? C_ALLGATHER : -2;
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
        } else if (0 == strcmp(argv[i], "--max-rss-mb") && i + 1 < argc) {
            max_rss_mb = atol(argv[++i]);
        } else {
            usage(argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    const char *nopv = getenv("THEMIS_TEST_NO_PVARS");
    if (NULL != nopv && 0 == strcmp(nopv, "1")) {
        expect = EXPECT_NONE;
    }

    ctx_t cx;
    memset(&cx, 0, sizeof(cx));
    cx.comm = MPI_COMM_WORLD;
    cx.comm_name = "MPI_COMM_WORLD";
    cx.comm_is_world_like = 1;
    cx.expect = expect;
    cx.algo = -1;
    cx.substituted = substituted;
    cx.only_coll = only_coll;
    cx.count_unit = count_unit;
    cx.explicit_counts = ncounts > 0;
    cx.nb = nb;
    if (-2 == only_coll || 0 == count_unit || bad_counts) {
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
        int ran = cx.only_coll < 0;
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
