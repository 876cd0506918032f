/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan rules FILE [--coll C --comm-size N --bytes B]`: checks a
 * rules file exactly as coll/themis reads it (planners/algorithms/rules.h) and, for a
 * call, prints the rule that applies and what it sets; what it leaves out
 * comes from the coll_themis_* parameters.  Without a call: every rule and
 * shape.
 */
#include "themis_build_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "algorithm.h"
#include "rules.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"


static void print_rule(const themis_rule_t *r)
{
    printf("rule at line %d:", r->line);
    for (int c = 0; c < 3; c++) {
        if (0 != (r->colls & THEMIS_COLL_BIT(c))) {
            printf(" %s", themis_coll_name((themis_coll_t) c));
        }
    }
    printf(", comm_size %" PRIu64 "..%" PRIu64 ", bytes %" PRIu64 "..%" PRIu64 "\n",
           r->size_lo, r->size_hi, r->bytes_lo, r->bytes_hi);
    printf("  algorithm:        %s\n", THEMIS_RULE_UNSET == r->algorithm ? "(parameter)"
                                       : THEMIS_ALGO_AUTO == r->algorithm
                                           ? "auto"
                                           : themis_algorithm_get(r->algorithm)->name);
    if (0 != r->chunks) {
        printf("  chunks:           %u\n", r->chunks);
    } else {
        printf("  chunks:           (parameter)\n");
    }
    if (0 != r->chunks_in_flight) {
        printf("  chunks_in_flight: %u\n", r->chunks_in_flight);
    } else {
        printf("  chunks_in_flight: (parameter)\n");
    }
    if (THEMIS_RULE_UNSET != r->min_bytes) {
        printf("  min_bytes:        %" PRId64 "\n", r->min_bytes);
    } else {
        printf("  min_bytes:        (parameter)\n");
    }
}

static const themis_plan_cmd_spec_t rules_cmd = {
    .name = "rules", .synopsis = "FILE",
    .about = "  Checks a coll_themis_rules_filename file; with a call (--coll, --comm-size\n"
             "  and --bytes or --count together), prints the rule that applies to it\n"
             "  (the bytes of the full vector, e.g. 1M).\n",
    .zero_bytes = 1,
    .min_pos = 1,
    .max_pos = 1};

int themis_plan_cmd_rules(int argc, char **argv)
{
    themis_plan_args_t a;
    char msg[512];
    int rc;

    if (0 != themis_plan_args_parse(&rules_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const themis_coll_t coll = a.coll;
    const uint64_t comm_size = a.num[TPO_COMM_SIZE], bytes = a.bytes[0];
    const int have_call = THEMIS_PLAN_GIVEN(&a, TPO_COLL) + THEMIS_PLAN_GIVEN(&a, TPO_COMM_SIZE)
                          + (0 < a.nbytes);
    const int pos = a.first_pos;
    if (0 != have_call && 3 != have_call) {
        fprintf(stderr, "themis-plan rules: --coll, --comm-size and --bytes together or not at "
                        "all\n");
        return EXIT_USAGE;
    }
    themis_rules_t rules;
    themis_status_t st = themis_rules_load(argv[pos], &rules, msg, sizeof(msg));
    if (THEMIS_OK != st) {
        fprintf(stderr, "themis-plan rules: %s: %s\n", argv[pos], msg);
        return THEMIS_ERR_NOMEM == st ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (0 == have_call) {
        printf("%s: %zu rules, %zu shapes, hash %016" PRIx64 "\n", argv[pos], rules.nrules,
               rules.nshapes, rules.hash);
        for (size_t i = 0; i < rules.nrules; i++) {
            print_rule(&rules.rules[i]);
        }
        for (size_t i = 0; i < rules.nshapes; i++) {
            const themis_rule_shape_t *s = &rules.shapes[i];
            printf("shape at line %d: comm_size %" PRIu64 ": ", s->line, s->comm_size);
            for (int d = 0; d < s->ndims; d++) {
                printf("%s%u", 0 == d ? "" : "x", s->dims[d]);
            }
            printf("\n");
        }
    } else {
        const themis_rule_t *r = themis_rules_match(&rules, coll, comm_size, bytes);
        printf("%s of %" PRIu64 " bytes on %" PRIu64 " ranks: ", themis_coll_name(coll), bytes,
               comm_size);
        if (NULL == r) {
            printf("no rule applies: the coll_themis_* parameters decide\n");
        } else {
            print_rule(r);
        }
    }
    themis_rules_free(&rules);
    return 0;
}
