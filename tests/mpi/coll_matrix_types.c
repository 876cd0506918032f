/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The ops and datatypes of the correctness matrix (coll_matrix.c): which
 * ops the MPI standard allows on each predefined type, and the derived
 * types, checked against MPI's own layout.
 */
#include "coll_matrix.h"

/* ------------------------------------------------------------------ ops */

const char *const op_names[O_COUNT] = {
    "SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR",
    "MINLOC", "MAXLOC", "user_add", "user_affine(noncomm)", "-"
};
MPI_Op op_handles[O_COUNT];

/* ------------------------------------------------------------------ types */

typedef struct { float v; int i; } pair_float_int_t;
typedef struct { double v; int i; } pair_double_int_t;
typedef struct { long v; int i; } pair_long_int_t;
typedef struct { int v; int i; } pair_2int_t;
typedef struct { short v; int i; } pair_short_int_t;
typedef struct { long double v; int i; } pair_ldouble_int_t;

tdesc_t types[MAX_TYPES];
int ntypes;

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

tdesc_t *find_type(const char *name)
{
    for (int i = 0; i < ntypes; i++) {
        if (0 == strcmp(types[i].name, name)) {
            return &types[i];
        }
    }
    return NULL;
}

const tdesc_t *find_type_by_dt(MPI_Datatype dt)
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

int build_types(char *err, size_t errlen)
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
