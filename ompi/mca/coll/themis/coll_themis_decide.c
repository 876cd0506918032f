/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The one place where a call's size threshold, algorithm, chunk count and
 * chunks in flight are chosen: the rule of coll_themis_rules_filename that
 * matches (collective, communicator size, bytes), and for what it leaves
 * out the parameters (min_bytes as resolved for the communicator at
 * setup).  (Where `auto` runs a coll_themis_<coll>_schedule file,
 * themis_algorithm_plan decides: the row is flagged as the user's.)  Its inputs are equal on every rank (agreed parameters and file
 * hash, MPI's counts), so every rank decides alike; and since the decision
 * is a function of (collective, bytes) on a communicator, the plan cache's
 * key, which contains both, also identifies the decision.
 */
#include "ompi_config.h"

#include "coll_themis.h"

void mca_coll_themis_decide(const mca_coll_themis_module_t *m, int comm_size,
                            themis_coll_t coll, uint64_t bytes,
                            mca_coll_themis_decision_t *d)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const themis_rule_t *r = themis_rules_match(&mca_coll_themis_component.rules, coll,
                                                (uint64_t) comm_size, bytes);

    d->rule = r;
    d->min_bytes = m->min_bytes;
    d->algorithm = cfg->algorithm[coll];
    d->max_chunks = cfg->chunks;
    d->chunks_in_flight = cfg->chunks_in_flight;
    if (NULL == r) {
        return;
    }
    if (THEMIS_RULE_UNSET != r->min_bytes) {
        d->min_bytes = (uint64_t) r->min_bytes;
    }
    if (THEMIS_RULE_UNSET != r->algorithm) {
        d->algorithm = r->algorithm;
    }
    if (0 != r->chunks) {
        d->max_chunks = r->chunks;
    }
    if (0 != r->chunks_in_flight) {
        d->chunks_in_flight = r->chunks_in_flight;
    }
}

