/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan algorithms`: the algorithm table (planners/algorithms/algorithm.h) as
 * text, as names for scripts (--names [--coll C]), or as the Markdown
 * table of docs/coll_themis.md (--markdown; the test suite checks that
 * the docs hold exactly this).
 */
#include "themis_build_config.h"

#include <stdio.h>
#include <string.h>

#include "algorithm.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"


static void colls_text(const themis_algorithm_t *a, char *buf, size_t len)
{
    static const themis_coll_t all[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                        THEMIS_COLL_ALLGATHER};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (0 != (a->colls & THEMIS_COLL_BIT(all[i]))) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "", themis_coll_name(all[i]));
        }
    }
}

static const themis_plan_cmd_spec_t algorithms_cmd = {
    .name = "algorithms", .synopsis = "",
    .about = "  The algorithm table: name, collectives, substitute, summary.\n"};

int themis_plan_cmd_algorithms(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc;

    if (0 != themis_plan_args_parse(&algorithms_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const int names = THEMIS_PLAN_GIVEN(&a, TPO_NAMES);
    const int markdown = THEMIS_PLAN_GIVEN(&a, TPO_MARKDOWN);
    const int have_coll = THEMIS_PLAN_GIVEN(&a, TPO_COLL);
    const themis_coll_t coll = a.coll;
    if (markdown) {
        printf("| algorithm | collectives | runs instead where it does not apply | what it does |\n");
        printf("| --- | --- | --- | --- |\n");
    }
    for (int i = 0; i < themis_nalgorithms(); i++) {
        const themis_algorithm_t *a = themis_algorithm_get(i);
        char colls[128];
        if (have_coll && !themis_algorithm_serves(i, coll)) {
            continue;
        }
        colls_text(a, colls, sizeof(colls));
        if (names) {
            printf("%s\n", a->name);
        } else if (markdown) {
            printf("| `%s` | %s | %s | %s |\n", a->name, colls,
                   NULL == a->substitute
                       ? (0 == i ? "applies everywhere" : "none: the call falls back")
                       : a->substitute,
                   a->summary);
        } else {
            printf("%-8s %-40s substitute: %-8s\n         %s\n", a->name, colls,
                   NULL == a->substitute ? "-" : a->substitute, a->summary);
        }
    }
    return 0;
}
