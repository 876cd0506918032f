/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "themis_counters.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *const coll_names[TC_NCOLLS] = {
    "allreduce",  "reduce_scatter",  "reduce_scatter_block",  "allgather",
    "iallreduce", "ireduce_scatter", "ireduce_scatter_block", "iallgather",
    "pallreduce", "preduce_scatter", "preduce_scatter_block", "pallgather"
};

typedef struct {
    int found;
    MPI_T_pvar_handle handle;
    MPI_Datatype type;
    int count;
} counter_t;

static int tc_ready;
static MPI_T_pvar_session tc_session;
/* [0] calls, [1] fallbacks, [2] substitutions, then one per algorithm */
#define TC_FIXED_KINDS 3
#define TC_MAX_KINDS (TC_FIXED_KINDS + TC_MAX_ALGOS)
static char kind_suffix[TC_MAX_KINDS][80] = {"calls", "fallbacks", "substitutions"};
static int tc_nkinds = TC_FIXED_KINDS;
static char tc_algos[TC_MAX_ALGOS][64];
static int tc_nalgo;
static counter_t tc_counters[TC_MAX_KINDS][TC_NCOLLS];

const char *tc_coll_name(tc_coll_t coll)
{
    return (coll >= 0 && coll < TC_NCOLLS) ? coll_names[coll] : "?";
}

/* Integer value of one MPI_T buffer element; -1 for types we do not read. */
static int to_u64(MPI_Datatype type, const void *buf, uint64_t *v)
{
    if (MPI_UNSIGNED_LONG_LONG == type || MPI_UINT64_T == type) {
        unsigned long long x;
        memcpy(&x, buf, sizeof(x));
        *v = x;
    } else if (MPI_LONG_LONG == type || MPI_INT64_T == type || MPI_COUNT == type) {
        long long x;
        memcpy(&x, buf, sizeof(x));
        *v = (uint64_t) x;
    } else if (MPI_UNSIGNED_LONG == type || MPI_AINT == type) {
        unsigned long x;
        memcpy(&x, buf, sizeof(x));
        *v = x;
    } else if (MPI_LONG == type) {
        long x;
        memcpy(&x, buf, sizeof(x));
        *v = (uint64_t) x;
    } else if (MPI_UNSIGNED == type || MPI_UINT32_T == type) {
        unsigned x;
        memcpy(&x, buf, sizeof(x));
        *v = x;
    } else if (MPI_INT == type || MPI_INT32_T == type) {
        int x;
        memcpy(&x, buf, sizeof(x));
        *v = (uint64_t) (int64_t) x;
    } else {
        return -1;
    }
    return 0;
}

/* Index of the performance variable called `name`, or -1.  Searching by
 * name keeps the test independent of the class the component chose. */
static int find_pvar(const char *name, int *bind, int *continuous)
{
    int n = 0;
    if (MPI_SUCCESS != MPI_T_pvar_get_num(&n)) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char nm[256], desc[256];
        int nlen = sizeof(nm), dlen = sizeof(desc);
        int verbosity, var_class, readonly, atomic;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_SUCCESS != MPI_T_pvar_get_info(i, nm, &nlen, &verbosity, &var_class, &type,
                                               &enumtype, desc, &dlen, bind, &readonly,
                                               continuous, &atomic)) {
            continue;   /* deregistered variables leave holes */
        }
        if (0 == strcmp(nm, name)) {
            return i;
        }
    }
    return -1;
}

/* The algorithms: every coll_themis_allreduce_<name>_calls, in the order
 * the component registered them (its table's). */
static void discover_algorithms(void)
{
    static const char prefix[] = "coll_themis_allreduce_", suffix[] = "_calls";
    const size_t lp = sizeof(prefix) - 1, ls = sizeof(suffix) - 1;
    int n = 0;

    tc_nalgo = 0;
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n && tc_nalgo < TC_MAX_ALGOS; i++) {
        char nm[256], desc[256];
        int nlen = sizeof(nm), dlen = sizeof(desc), verbosity, var_class, bind, readonly,
            continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_SUCCESS != MPI_T_pvar_get_info(i, nm, &nlen, &verbosity, &var_class, &type,
                                               &enumtype, desc, &dlen, &bind, &readonly,
                                               &continuous, &atomic)) {
            continue;
        }
        size_t len = strlen(nm);
        if (len > lp + ls && 0 == strncmp(nm, prefix, lp) && 0 == strcmp(nm + len - ls, suffix)
            && len - lp - ls < sizeof(tc_algos[0])) {
            memcpy(tc_algos[tc_nalgo], nm + lp, len - lp - ls);
            tc_algos[tc_nalgo][len - lp - ls] = '\0';
            snprintf(kind_suffix[TC_FIXED_KINDS + tc_nalgo], sizeof(kind_suffix[0]), "%s_calls",
                     tc_algos[tc_nalgo]);
            tc_nalgo++;
        }
    }
    tc_nkinds = TC_FIXED_KINDS + tc_nalgo;
}

int tc_nalgos(void)
{
    return tc_nalgo;
}

const char *tc_algo_name(int index)
{
    return (index >= 0 && index < tc_nalgo) ? tc_algos[index] : "?";
}

int tc_algo_index(const char *name)
{
    for (int a = 0; NULL != name && a < tc_nalgo; a++) {
        if (0 == strcmp(name, tc_algos[a])) {
            return a;
        }
    }
    return -1;
}

int tc_init(char *err, size_t errlen)
{
    int provided, nfound = 0;
    err[0] = '\0';
    if (MPI_SUCCESS != MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)) {
        snprintf(err, errlen, "MPI_T_init_thread failed");
        return -1;
    }
    tc_ready = 1;
    if (MPI_SUCCESS != MPI_T_pvar_session_create(&tc_session)) {
        snprintf(err, errlen, "MPI_T_pvar_session_create failed");
        return -1;
    }
    discover_algorithms();
    for (int kind = 0; kind < tc_nkinds; kind++) {
        for (int c = 0; c < TC_NCOLLS; c++) {
            char name[256];
            int bind = -1, continuous = 0;
            counter_t *ctr = &tc_counters[kind][c];
            snprintf(name, sizeof(name), "coll_themis_%s_%.79s", coll_names[c], kind_suffix[kind]);
            int index = find_pvar(name, &bind, &continuous);
            if (index < 0) {
                continue;
            }
            if (MPI_T_BIND_NO_OBJECT != bind) {
                snprintf(err, errlen, "pvar %s is bound to an object (bind %d), expected "
                         "MPI_T_BIND_NO_OBJECT", name, bind);
                return -1;
            }
            char nm[256], desc[256];
            int nlen = sizeof(nm), dlen = sizeof(desc), verbosity, var_class, readonly, atomic;
            MPI_T_enum enumtype;
            MPI_T_pvar_get_info(index, nm, &nlen, &verbosity, &var_class, &ctr->type, &enumtype,
                                desc, &dlen, &bind, &readonly, &continuous, &atomic);
            if (MPI_SUCCESS != MPI_T_pvar_handle_alloc(tc_session, index, NULL, &ctr->handle,
                                                       &ctr->count) || ctr->count < 1) {
                snprintf(err, errlen, "MPI_T_pvar_handle_alloc(%s) failed", name);
                return -1;
            }
            /* Continuous counters run from the start; others need a start. */
            if (!continuous && MPI_SUCCESS != MPI_T_pvar_start(tc_session, ctr->handle)) {
                snprintf(err, errlen, "MPI_T_pvar_start(%s) failed", name);
                return -1;
            }
            uint64_t probe;
            unsigned char buf[16 * 8];
            if (ctr->count > 16 || MPI_SUCCESS != MPI_T_pvar_read(tc_session, ctr->handle, buf)
                || 0 != to_u64(ctr->type, buf, &probe)) {
                snprintf(err, errlen, "pvar %s cannot be read as an integer counter", name);
                return -1;
            }
            ctr->found = 1;
            if (kind < 2) {
                nfound++;
            }
        }
    }
    return nfound;
}

int tc_read(tc_snapshot_t *snap)
{
    memset(snap, 0, sizeof(*snap));
    for (int kind = 0; kind < tc_nkinds; kind++) {
        for (int c = 0; c < TC_NCOLLS; c++) {
            counter_t *ctr = &tc_counters[kind][c];
            unsigned char buf[16 * 8];
            uint64_t v = 0;
            if (!ctr->found) {
                continue;
            }
            if (MPI_SUCCESS != MPI_T_pvar_read(tc_session, ctr->handle, buf)
                || 0 != to_u64(ctr->type, buf, &v)) {
                return -1;
            }
            if (0 == kind) {
                snap->calls[c] = v;
            } else if (1 == kind) {
                snap->fallbacks[c] = v;
            } else if (2 == kind) {
                snap->substitutions[c] = v;
            } else {
                snap->algo[kind - TC_FIXED_KINDS][c] = v;
            }
        }
    }
    return 0;
}

void tc_fini(void)
{
    if (!tc_ready) {
        return;
    }
    for (int kind = 0; kind < tc_nkinds; kind++) {
        for (int c = 0; c < TC_NCOLLS; c++) {
            if (tc_counters[kind][c].found) {
                MPI_T_pvar_handle_free(tc_session, &tc_counters[kind][c].handle);
                tc_counters[kind][c].found = 0;
            }
        }
    }
    MPI_T_pvar_session_free(&tc_session);
    MPI_T_finalize();
    tc_ready = 0;
}

int tc_cvar_read_u64(const char *name, uint64_t *value)
{
    int provided, n = 0, rc = -1;
    if (MPI_SUCCESS != MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)) {
        return -1;
    }
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n && rc < 0; i++) {
        char nm[256], desc[256];
        int nlen = sizeof(nm), dlen = sizeof(desc), verbosity, bind, scope, count = 0;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        MPI_T_cvar_handle handle;
        unsigned char buf[64];
        if (MPI_SUCCESS != MPI_T_cvar_get_info(i, nm, &nlen, &verbosity, &type, &enumtype,
                                               desc, &dlen, &bind, &scope)
            || 0 != strcmp(nm, name)) {
            continue;
        }
        if (MPI_T_BIND_NO_OBJECT != bind
            || MPI_SUCCESS != MPI_T_cvar_handle_alloc(i, NULL, &handle, &count)) {
            break;
        }
        if (1 == count && MPI_SUCCESS == MPI_T_cvar_read(handle, buf)
            && 0 == to_u64(type, buf, value)) {
            rc = 0;
        }
        MPI_T_cvar_handle_free(&handle);
        break;
    }
    MPI_T_finalize();
    return rc;
}
