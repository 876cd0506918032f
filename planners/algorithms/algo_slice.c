/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The build of a row that slices its transfer schedule (algorithm.h's
 * xfer_slice): the rank's slice, compiled for the call.
 */
#include "algorithm.h"

#include <stdio.h>
#include <string.h>

#include "plan_builder.h"

themis_status_t themis_algo_slice_build(const themis_algorithm_t *row,
                                        const themis_algo_input_t *in,
                                        const themis_plan_request_t *req, themis_program_t *out)
{
    themis_xfer_slice_t sl;
    char why[200] = "";
    memset(out, 0, sizeof(*out));
    memset(&sl, 0, sizeof(sl));
    if (NULL == req || req->rank < 0) {
        return THEMIS_ERR_INVALID;
    }
    sl.periodic = req->periodic;
    themis_status_t st = row->xfer_slice(in, (uint32_t) req->rank, req->coord_to_rank, &sl);
    if (THEMIS_OK == st) {
        uint64_t total = themis_request_elements(req, sl.s.nranks);
        st = themis_xfer_slice_compile(&sl, total,
                                       THEMIS_COLL_REDUCE_SCATTER == in->coll ? req->recvcounts
                                                                              : NULL,
                                       req->chunks_in_flight, req->periodic, out, why,
                                       sizeof(why));
    } else {
        snprintf(why, sizeof(why), "no slice for rank %d: %s", req->rank,
                 themis_status_string(st));
    }
    if (THEMIS_OK != st && NULL != in->why) {
        snprintf(in->why, in->why_len, "%s: %s", row->name, why);
    }
    themis_xfer_slice_free(&sl);
    return st;
}
