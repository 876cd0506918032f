/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Everything that differs between the Open MPI series coll/themis builds
 * against, 4.1.x (coll API 2.0.0 with the 2.3.0 module) and 5.0.x (coll
 * API 2.4.0), decided at compile time from ompi_config.h.  The rest of the
 * component is written once against the names defined here.
 *
 * What 5.0 changed that the component uses:
 *   - the component version macro (coll 2.4.0);
 *   - opal_info_get returns an opal_cstring_t object instead of filling a
 *     caller's buffer;
 *   - a communicator's c_contextid became a 128-bit extended id: the index
 *     into ompi_mpi_communicators is c_index (ompi_comm_get_local_cid).
 * What needs nothing here: the persistent entry points (coll_<coll>_init,
 * coll_themis_persistent.c) have the same slots and signatures in both -
 * MPI-4's MPI_Allreduce_init ... in 5.0, the pcollreq extension's
 * MPIX_Allreduce_init ... in 4.1 - and coll_module_disable, which 4.1
 * already had.
 */
#ifndef MCA_COLL_THEMIS_COMPAT_H
#define MCA_COLL_THEMIS_COMPAT_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stdint.h>

#include "opal/util/info.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"

#if !defined(OMPI_MAJOR_VERSION) || OMPI_MAJOR_VERSION < 4 \
    || (4 == OMPI_MAJOR_VERSION && OMPI_MINOR_VERSION < 1) || OMPI_MAJOR_VERSION > 5
#error "coll/themis builds against Open MPI 4.1.x or 5.0.x"
#endif

#if OMPI_MAJOR_VERSION >= 5
#define MCA_COLL_THEMIS_OMPI5 1
#define MCA_COLL_THEMIS_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
#else
#define MCA_COLL_THEMIS_OMPI5 0
#define MCA_COLL_THEMIS_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
#endif

/* Index of the communicator in ompi_mpi_communicators (what
 * opal_pointer_array_get_item takes); process-local. */
static inline uint32_t mca_coll_themis_comm_index(const ompi_communicator_t *comm)
{
#if MCA_COLL_THEMIS_OMPI5
    return ompi_comm_get_local_cid(comm);
#else
    return comm->c_contextid;
#endif
}

/* Whether KEY is set in INFO (any value); false on any error. */
static inline bool mca_coll_themis_info_has(opal_info_t *info, const char *key)
{
    int flag = 0;

    if (NULL == info) {
        return false;
    }
#if MCA_COLL_THEMIS_OMPI5
    opal_cstring_t *value = NULL;
    if (OPAL_SUCCESS != opal_info_get(info, key, &value, &flag)) {
        return false;
    }
    if (NULL != value) {
        OBJ_RELEASE(value);
    }
#else
    char value[8];
    if (OPAL_SUCCESS != opal_info_get(info, key, (int) sizeof(value) - 1, value, &flag)) {
        return false;
    }
#endif
    return 0 != flag;
}

#endif /* MCA_COLL_THEMIS_COMPAT_H */
