/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "themis_types.h"

#include <string.h>

const char *themis_status_string(themis_status_t st)
{
    switch (st) {
    case THEMIS_OK:
        return "ok";
    case THEMIS_ERR_PARSE:
        return "parse error";
    case THEMIS_ERR_INVALID:
        return "invalid argument";
    case THEMIS_ERR_NOMEM:
        return "out of memory";
    case THEMIS_ERR_UNSUPPORTED:
        return "unsupported";
    case THEMIS_ERR_IO:
        return "I/O error";
    }
    return "unknown status";
}

/* The one name table of the planner collectives (MSCCL-XML's coll
 * attribute, MCA parameter names, messages). */
static const char *const coll_names[THEMIS_NCOLLS] = {
    [THEMIS_COLL_ALLREDUCE] = "allreduce",
    [THEMIS_COLL_REDUCE_SCATTER] = "reduce_scatter",
    [THEMIS_COLL_ALLGATHER] = "allgather",
};

const char *themis_coll_name(themis_coll_t coll)
{
    return (unsigned) coll < THEMIS_NCOLLS ? coll_names[coll] : "unknown";
}

themis_status_t themis_coll_parse(const char *s, themis_coll_t *coll)
{
    static const struct {
        const char *name;
        themis_coll_t coll;
    } names[] = {
        {"allreduce", THEMIS_COLL_ALLREDUCE},        {"ar", THEMIS_COLL_ALLREDUCE},
        {"reduce_scatter", THEMIS_COLL_REDUCE_SCATTER},
        {"reduce-scatter", THEMIS_COLL_REDUCE_SCATTER}, {"rs", THEMIS_COLL_REDUCE_SCATTER},
        {"allgather", THEMIS_COLL_ALLGATHER},        {"ag", THEMIS_COLL_ALLGATHER},
    };
    if (NULL == s || NULL == coll) {
        return THEMIS_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (0 == strcmp(s, names[i].name)) {
            *coll = names[i].coll;
            return THEMIS_OK;
        }
    }
    return THEMIS_ERR_PARSE;
}

const char *themis_phase_name(themis_phase_t phase)
{
    return (THEMIS_PHASE_RS == phase) ? "RS" : "AG";
}
