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

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "algorithm.h"
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

int themis_plan_cmd_algorithms(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"names", no_argument, NULL, 'n'},
        {"coll", required_argument, NULL, 'c'},
        {"markdown", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int names = 0, markdown = 0, c, have_coll = 0;
    themis_coll_t coll = THEMIS_COLL_ALLREDUCE;

    optind = 1;
    while (-1 != (c = getopt_long(argc, argv, "nc:mh", longopts, NULL))) {
        switch (c) {
        case 'n':
            names = 1;
            break;
        case 'c':
            if (THEMIS_OK != themis_coll_parse(optarg, &coll)) {
                fprintf(stderr, "themis-plan algorithms: --coll: unknown collective '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            have_coll = 1;
            break;
        case 'm':
            markdown = 1;
            break;
        case 'h':
            printf("usage: themis-plan algorithms [--names [--coll C]] [--markdown]\n"
                   "  the algorithm table: name, collectives, substitute, summary\n"
                   "  --names     one name per line (with --coll: those serving C)\n"
                   "  --markdown  the table of docs/coll_themis.md\n");
            return 0;
        default:
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "themis-plan algorithms: unexpected argument '%s'\n", argv[optind]);
        return EXIT_USAGE;
    }
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
