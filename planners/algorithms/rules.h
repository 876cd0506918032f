/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Rules files (coll_themis_rules_filename, `themis-plan rules`), as
 * coll/tuned's dynamic rules: JSON read with json-c.
 *
 *   {
 *     "rules": [
 *       { "collective": "allreduce",          required: allreduce,
 *                                             reduce_scatter (also _block),
 *                                             allgather, or "all"
 *         "comm_size": [2, 64],               inclusive range, default all
 *         "bytes": [0, 1048576],              full-vector bytes, default all
 *         "algorithm": "themis",              a row of algorithm.h or "auto"
 *         "chunks": 64,                       1 .. 1048576
 *         "chunks_in_flight": 2,              1 .. 32
 *         "min_bytes": 65536 },               below: the previous component
 *       ...
 *     ],
 *     "shapes": [ { "comm_size": 8, "dims": "4x2" }, ... ]
 *   }
 *
 * Every value a rule leaves out is taken from the MCA parameters.  Sizes
 * are integers or strings in the one size syntax ("1M", "64KiB":
 * themis_parse_size).  Two rules of one collective whose communicator
 * sizes and byte ranges both overlap are an error, so at most one rule
 * matches a call and the file's order does not matter.  Ranges may meet
 * at a boundary ([0, "8MiB"] and ["8MiB", "1GiB"]): the boundary belongs
 * to the range that starts there.  A shape gives the
 * dims of communicators of that size (innermost first, as
 * coll_themis_dims), one per size.  Unknown keys are errors (a misspelt
 * key must not be silently ignored).  Errors name the line and the reason.
 */
#ifndef THEMIS_RULES_H
#define THEMIS_RULES_H

#include "topology.h"

#define THEMIS_RULE_UNSET (-2)     /* algorithm / min_bytes not given */
#define THEMIS_RULES_MAX_CHUNKS (1u << 20)
#define THEMIS_RULES_MAX_CHUNKS_IN_FLIGHT THEMIS_MAX_CHUNKS_IN_FLIGHT
#define THEMIS_RULES_MAX_FILE (1u << 20)

typedef struct {
    uint32_t colls;                  /* THEMIS_COLL_BIT()s */
    uint64_t size_lo, size_hi;       /* communicator size, inclusive */
    uint64_t bytes_lo, bytes_hi;     /* full-vector bytes, inclusive */
    int algorithm;                   /* row index, THEMIS_ALGO_AUTO or THEMIS_RULE_UNSET */
    uint32_t chunks;                 /* 0: not given */
    uint32_t chunks_in_flight;               /* 0: not given */
    int64_t min_bytes;               /* THEMIS_RULE_UNSET: not given */
    int line;                        /* where the rule starts */
} themis_rule_t;

typedef struct {
    uint64_t comm_size;
    int ndims;
    uint32_t dims[THEMIS_MAX_DIMS];
    int line;
} themis_rule_shape_t;

typedef struct {
    themis_rule_t *rules;
    size_t nrules;
    themis_rule_shape_t *shapes;
    size_t nshapes;
    uint64_t hash;                   /* FNV-1a of the file's bytes */
} themis_rules_t;

/* THEMIS_OK, or THEMIS_ERR_PARSE / THEMIS_ERR_IO / THEMIS_ERR_NOMEM with
 * "line N: reason" in msg; *out is empty (and freeable) on error. */
themis_status_t themis_rules_parse(const char *text, size_t len, themis_rules_t *out, char *msg,
                                   size_t msglen);
themis_status_t themis_rules_load(const char *path, themis_rules_t *out, char *msg,
                                  size_t msglen);
void themis_rules_free(themis_rules_t *r);

/* The rule for a call, NULL when none matches. */
const themis_rule_t *themis_rules_match(const themis_rules_t *r, themis_coll_t coll,
                                        uint64_t comm_size, uint64_t bytes);
/* The shape for communicators of comm_size, NULL when none. */
const themis_rule_shape_t *themis_rules_shape(const themis_rules_t *r, uint64_t comm_size);

#endif
