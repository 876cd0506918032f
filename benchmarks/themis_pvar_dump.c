/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/themis' MPI_T counters of an unmodified MPI program: preloaded
 * (LD_PRELOAD, e.g. mpirun -x LD_PRELOAD=libthemis_pvar_dump.so), it
 * starts the counters right after MPI_Init (a handle counts from its
 * allocation) and prints each rank's at MPI_Finalize, one line:
 *   themis_pvars: rank R: allreduce C/F reduce_scatter C/F ... (calls/fallbacks)
 * benchmarks/osu_ompi.sh runs the OSU Micro-Benchmarks under it.
 */
#include <mpi.h>
#include <stdio.h>

#include "themis_counters.h"

static int dump_ready;

static void dump_start(void)
{
    char err[256];
    int n = tc_init(err, sizeof(err));
    if (n < 0) {
        fprintf(stderr, "themis_pvars: %s\n", err);
        return;
    }
    dump_ready = 1;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (MPI_SUCCESS == rc) {
        dump_start();
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (MPI_SUCCESS == rc) {
        dump_start();
    }
    return rc;
}

int MPI_Finalize(void)
{
    if (dump_ready) {
        tc_snapshot_t s;
        int rank = -1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (0 == tc_read(&s)) {
            char line[512];
            int used = snprintf(line, sizeof(line), "themis_pvars: rank %d:", rank);
            for (int c = 0; c < TC_NCOLLS && used > 0 && used < (int) sizeof(line); ++c) {
                used += snprintf(line + used, sizeof(line) - (size_t) used, " %s %llu/%llu",
                                 tc_coll_name((tc_coll_t) c), (unsigned long long) s.calls[c],
                                 (unsigned long long) s.fallbacks[c]);
            }
            printf("%s (calls/fallbacks)\n", line);
            fflush(stdout);
        }
        tc_fini();
        dump_ready = 0;
    }
    return PMPI_Finalize();
}
