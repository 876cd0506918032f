/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MPI_T performance variables coll_themis_<coll>_calls (the themis path
 * ran; <coll> is also a nonblocking one, iallreduce ..., or a persistent
 * one, pallreduce ..., counted per start) and coll_themis_<coll>_fallbacks
 * (a user call, or a persistent request at init, went to the previous
 * component).  Of the calls, coll_themis_<coll>_<algorithm>_calls ran
 * each row of the algorithm table (algorithm.h), and
 * coll_themis_<coll>_substitutions ran another algorithm than the one
 * requested, which cannot run on the shape.  coll_themis_tiny_message_calls
 * counts the themis-path calls of any collective whose program makes too
 * many small messages (coll_themis_colls.c).  Process-wide counters: read-only,
 * continuous, bound to no object.  Calls made internally during setup are
 * not counted.
 */
#include "ompi_config.h"

#include <stdio.h>

#include "opal/mca/base/mca_base_pvar.h"

#include "coll_themis.h"

static unsigned long long themis_calls[MCA_COLL_THEMIS_NCOLLS];
static unsigned long long themis_fallbacks[MCA_COLL_THEMIS_NCOLLS];
static unsigned long long themis_algo_calls[MCA_COLL_THEMIS_NCOLLS][THEMIS_MAX_ALGORITHMS];
static unsigned long long themis_substitutions[MCA_COLL_THEMIS_NCOLLS];
static unsigned long long themis_tiny;
static unsigned long long themis_cid;

/* The MPI entry points: the blocking four (in mca_coll_themis_coll_id_t's
 * order), then their nonblocking (i) and persistent (p) forms. */
#define COLL_FORMS(p) p "allreduce", p "reduce_scatter", p "reduce_scatter_block", p "allgather"
static const char *const coll_names[MCA_COLL_THEMIS_NCOLLS] = {COLL_FORMS(""), COLL_FORMS("i"),
                                                              COLL_FORMS("p")};

const char *mca_coll_themis_coll_name(mca_coll_themis_coll_id_t coll)
{
    return coll_names[coll];
}

void mca_coll_themis_count_call(mca_coll_themis_coll_id_t coll)
{
    __atomic_fetch_add(&themis_calls[coll], 1ULL, __ATOMIC_RELAXED);
}

void mca_coll_themis_count_fallback(mca_coll_themis_coll_id_t coll)
{
    __atomic_fetch_add(&themis_fallbacks[coll], 1ULL, __ATOMIC_RELAXED);
}

void mca_coll_themis_count_tiny(void)
{
    __atomic_fetch_add(&themis_tiny, 1ULL, __ATOMIC_RELAXED);
}

void mca_coll_themis_count_cid(void)
{
    __atomic_fetch_add(&themis_cid, 1ULL, __ATOMIC_RELAXED);
}

void mca_coll_themis_count_algorithm(mca_coll_themis_coll_id_t coll,
                                     const mca_coll_themis_plan_choice_t *choice)
{
    if (choice->algo >= 0 && choice->algo < themis_nalgorithms()) {
        __atomic_fetch_add(&themis_algo_calls[coll][choice->algo], 1ULL, __ATOMIC_RELAXED);
    }
    if (choice->substituted) {
        __atomic_fetch_add(&themis_substitutions[coll], 1ULL, __ATOMIC_RELAXED);
    }
}

static int read_counter(const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    const unsigned long long *counter = (const unsigned long long *) pvar->ctx;
    *(unsigned long long *) value = __atomic_load_n(counter, __ATOMIC_RELAXED);
    return OPAL_SUCCESS;
}

/* One read-only, continuous counter of the component. */
static void register_counter(const mca_base_component_t *comp, const char *name,
                             const char *desc, unsigned long long *counter)
{
    (void) mca_base_component_pvar_register(
        comp, name, desc, OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_COUNTER,
        MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL, MCA_BASE_VAR_BIND_NO_OBJECT,
        MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, read_counter, NULL, NULL,
        counter);
}

int mca_coll_themis_pvars_register(void)
{
    const mca_base_component_t *comp = &mca_coll_themis_component.super.collm_version;
    char name[64], desc[320];

    for (int i = 0; i < MCA_COLL_THEMIS_NCOLLS; ++i) {
        const bool persistent = i >= 2 * MCA_COLL_THEMIS_NBLOCKING;
        const char *blocking = coll_names[i % MCA_COLL_THEMIS_NBLOCKING];
        snprintf(name, sizeof(name), "%s_calls", coll_names[i]);
        if (persistent) {
            snprintf(desc, sizeof(desc), "Starts of persistent MPI_%s_init requests that "
                     "coll/themis ran itself (counted when complete)", blocking);
        } else {
            snprintf(desc, sizeof(desc), "MPI_%s calls that coll/themis ran itself "
                     "(nonblocking: counted when complete)", coll_names[i]);
        }
        register_counter(comp, name, desc, &themis_calls[i]);

        snprintf(name, sizeof(name), "%s_fallbacks", coll_names[i]);
        if (persistent) {
            snprintf(desc, sizeof(desc), "MPI_%s_init requests that coll/themis handed to "
                     "the previous component at init (their starts run there)", blocking);
        } else {
            snprintf(desc, sizeof(desc),
                     "MPI_%s calls that coll/themis handed to the previous component (small, "
                     "non-commutative, non-contiguous, unsupported, or stepped aside)",
                     coll_names[i]);
        }
        register_counter(comp, name, desc, &themis_fallbacks[i]);

        for (int a = 0; a < themis_nalgorithms(); ++a) {
            const themis_algorithm_t *alg = themis_algorithm_get(a);
            snprintf(name, sizeof(name), "%s_%s_calls", coll_names[i], alg->name);
            snprintf(desc, sizeof(desc),
                     "MPI_%s calls that coll/themis ran with the %s algorithm (part of "
                     "%s_calls)", coll_names[i], alg->name, coll_names[i]);
            register_counter(comp, name, desc, &themis_algo_calls[i][a]);
        }

        snprintf(name, sizeof(name), "%s_substitutions", coll_names[i]);
        snprintf(desc, sizeof(desc),
                 "MPI_%s calls that coll/themis ran with another algorithm than the one "
                 "requested, as it cannot run on the communicator's shape (each algorithm "
                 "names its substitute in ompi_info's coll_themis_<coll>_algorithm)",
                 coll_names[i]);
        register_counter(comp, name, desc, &themis_substitutions[i]);
    }

    register_counter(
        comp, "tiny_message_calls",
        "Calls (any collective) that coll/themis ran with a program of many small messages: "
        "more than 1000 transfers sent and received by this process, averaging below 16 KiB "
        "within one node or below 1 KiB across nodes (the tiny-messages warning, shown once)",
        &themis_tiny);
    register_counter(
        comp, "cid_agreements",
        "MPI_Iallreduce calls of one MPI_INT with MPI_MAX or MPI_MIN (Open MPI's "
        "communicator-id agreement, also of coll/themis' own nonblocking setup) run by "
        "coll/themis' point-to-point id agreement; not counted in "
        "coll_themis_iallreduce_calls or _fallbacks",
        &themis_cid);
    return OMPI_SUCCESS;
}
