/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The values of the correctness matrix (coll_matrix.c): the closed-form
 * input generator, the reference reduction (fold) in rank order, loading
 * and storing elements of any type under test, and the user ops.
 */
#include "coll_matrix.h"

/* ------------------------------------------------------------------ values */

uint64_t mix64(uint64_t x)
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
val_t gen(const tdesc_t *t, op_id_t op, uint64_t salt, int rank, uint64_t i, int nprocs)
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
val_t fold(const tdesc_t *t, op_id_t op, val_t a, val_t b)
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
void store(const tdesc_t *t, void *buf, size_t ei, val_t v)
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

val_t load(const tdesc_t *t, const void *buf, size_t ei)
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

int val_eq(const tdesc_t *t, val_t a, val_t b)
{
    switch (t->kind) {
    case K_FLOAT: return a.f == b.f;
    case K_COMPLEX: return a.f == b.f && a.im == b.im;
    case K_PAIR: return a.idx == b.idx && (F_NONE == t->fsub ? a.u == b.u : a.f == b.f);
    default: return a.u == b.u;
    }
}

void val_str(const tdesc_t *t, val_t v, char *s, size_t len)
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

int user_op_errors;

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

void user_add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_apply(O_USERADD, in, inout, len, dt);
}

void user_affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_apply(O_AFFINE, in, inout, len, dt);
}
