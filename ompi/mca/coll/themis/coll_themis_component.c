/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Component structure, open/close, and the per-communicator query.
 */
#include "ompi_config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "coll_themis.h"

static int themis_open(void);
static int themis_close(void);
static int themis_register(void);

mca_coll_themis_component_t mca_coll_themis_component = {
    .super = {
        .collm_version = {
            MCA_COLL_THEMIS_BASE_VERSION,
            .mca_component_name = "themis",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_open_component = themis_open,
            .mca_close_component = themis_close,
            .mca_register_component_params = themis_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = mca_coll_themis_init_query,
        .collm_comm_query = mca_coll_themis_comm_query,
    },
    .output = -1,
};

static int themis_register(void)
{
    int rc = mca_coll_themis_params_register();
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return mca_coll_themis_pvars_register();
}

static int themis_open(void)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;

    c->output = opal_output_open(NULL);
    opal_output_set_verbosity(c->output, c->verbose);

    /* Installed help text, then the source tree's copy for uninstalled
     * builds; the help functions try the directories in order. */
    (void) opal_show_help_add_dir(THEMIS_HELP_DIR);
    (void) opal_show_help_add_dir(THEMIS_SRC_HELP_DIR);

    c->config_ok = mca_coll_themis_params_parse();
    /* One line per process, at the level of details: level 1 is kept for
     * the decisions about each communicator. */
    if (c->config_ok) {
        const mca_coll_themis_config_t *cfg = &c->config;
        opal_output_verbose(10, c->output,
                            "coll:themis: open: priority %d, dims '%s', rules '%s', chunks %u, "
                            "scheduler %s, intra order %s, chunks in flight %u (nonblocking "
                            "%u/%u/%u), min_bytes %lld, "
                            "algorithms %s/%s/%s (allreduce/reduce_scatter/allgather), torus "
                            "%ux%u, probe %d, direct_max %u, scratch_max %llu",
                            c->priority, c->dims_param, c->rules_param, cfg->chunks,
                            themis_sched_kind_name(cfg->scheduler),
                            themis_order_policy_name(cfg->order), cfg->chunks_in_flight,
                            cfg->nbc_chunks_in_flight[THEMIS_COLL_ALLREDUCE],
                            cfg->nbc_chunks_in_flight[THEMIS_COLL_REDUCE_SCATTER],
                            cfg->nbc_chunks_in_flight[THEMIS_COLL_ALLGATHER],
                            (long long) cfg->min_bytes,
                            mca_coll_themis_algorithm_name(cfg->algorithm[THEMIS_COLL_ALLREDUCE]),
                            mca_coll_themis_algorithm_name(
                                cfg->algorithm[THEMIS_COLL_REDUCE_SCATTER]),
                            mca_coll_themis_algorithm_name(cfg->algorithm[THEMIS_COLL_ALLGATHER]),
                            cfg->torus_rows, cfg->torus_cols, (int) cfg->probe, cfg->direct_max,
                            (unsigned long long) cfg->scratch_max);
    }
    return OMPI_SUCCESS;
}

void mca_coll_themis_show_help(const char *topic, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, topic);
    msg = opal_show_help_vstring(MCA_COLL_THEMIS_HELP_FILE, topic, true, ap);
    va_end(ap);
    if (NULL != msg) {
        opal_output(0, "%s", msg);
        free(msg);
    }
}

static int themis_close(void)
{
    themis_rules_free(&mca_coll_themis_component.rules);
    for (int k = 0; k < MCA_COLL_THEMIS_NALGO_COLLS; ++k) {
        themis_xfer_free(&mca_coll_themis_component.schedule[k]);
        free(mca_coll_themis_component.schedule_text[k]);
        mca_coll_themis_component.schedule_text[k] = NULL;
    }
    themis_graph_free(&mca_coll_themis_component.graph);
    mca_coll_themis_host_map_free();
    mca_coll_themis_nbc_fini();
    mca_coll_themis_trace_close();
    if (0 <= mca_coll_themis_component.output) {
        opal_output_close(mca_coll_themis_component.output);
        mca_coll_themis_component.output = -1;
    }
    return OMPI_SUCCESS;
}

int mca_coll_themis_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    return OMPI_SUCCESS;
}

static bool is_private_comm(ompi_communicator_t *comm)
{
    return mca_coll_themis_info_has(comm->super.s_info, MCA_COLL_THEMIS_PRIVATE_INFO_KEY);
}

mca_coll_base_module_t *mca_coll_themis_comm_query(struct ompi_communicator_t *comm,
                                                   int *priority)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    mca_coll_themis_module_t *m;

    *priority = c->priority;
    if (c->priority < 0) {
        return NULL;
    }
    if (OMPI_COMM_IS_INTER(comm)) {
        opal_output_verbose(20, c->output, "coll:themis: comm_query: %s is an intercommunicator",
                            comm->c_name);
        return NULL;
    }
    if (ompi_comm_size(comm) < 2) {
        opal_output_verbose(20, c->output, "coll:themis: comm_query: %s has size %d",
                            comm->c_name, ompi_comm_size(comm));
        return NULL;
    }
    if (is_private_comm(comm)) {
        return NULL;
    }

    m = OBJ_NEW(mca_coll_themis_module_t);
    if (NULL == m) {
        return NULL;
    }
    return &m->super;
}
