/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Module life cycle: enable (save the previous functions), lazy setup on
 * the first call (agreement, private communicator, probe), and cleanup.
 */
#include "ompi_config.h"

#include <stddef.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/info.h"
#include "opal/util/output.h"
#include "ompi/mca/pml/pml.h"

#include "coll_themis.h"
#include "cluster.h"
#include "treepack.h"

/* Slots of the agreement vector, reduced with MPI_MAX as uint64. */
enum {
    AGREE_CFG = 0,         /* hash of the parameters */
    AGREE_CFG_NOT,         /* its complement: equal everywhere iff max(h) == ~max(~h) */
    AGREE_SHAPE,           /* hash of the local shape */
    AGREE_SHAPE_NOT,
    AGREE_FAIL,            /* size - rank of the lowest rank that cannot take part */
    AGREE_FARTHEST,        /* farthest peer level of any rank */
    AGREE_LOCAL_RANKS,     /* most ranks of the comm on one node */
    AGREE_NODE_LEVEL,      /* farthest peer on one node, max over ranks */
    AGREE_LEVEL0,          /* per-dimension level, max over ranks */
    /* then one slot per rank: 1 + the lowest rank on its host, set by that
     * rank alone (coll_themis_placement.c) */
    AGREE_COUNT = AGREE_LEVEL0 + THEMIS_MAX_DIMS
};

/* Length of the agreement vector of a communicator of `size` ranks. */
static size_t agree_len(int size)
{
    return AGREE_COUNT + (size_t) size;
}

/* A nonblocking setup under way (mca_coll_themis_setup_start). */
struct mca_coll_themis_setup_t {
    mca_coll_themis_shape_t shape;
    ompi_request_t *agree_req;
    ompi_request_t *dup_req;
    ompi_communicator_t *dup;
    uint64_t agree[];      /* agree_len(size) */
};

static int themis_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);
static int themis_module_disable(mca_coll_base_module_t *module,
                                 struct ompi_communicator_t *comm);
static void themis_module_cleanup(mca_coll_themis_module_t *m);

static void themis_module_construct(mca_coll_themis_module_t *m)
{
    memset(m->prev, 0, sizeof(m->prev));
    m->state = MCA_COLL_THEMIS_STATE_NEW;
    m->in_setup = false;
    m->setup = NULL;
    m->defer_head = m->defer_tail = NULL;
    m->draining = false;
    m->cid_head = m->cid_tail = NULL;
    m->next_pending = NULL;
    m->p2p_comm = NULL;
    m->p2p_cid = 0;
    m->tag_ub = 0;
    memset(&m->topo, 0, sizeof(m->topo));
    memset(m->dim_algo, 0, sizeof(m->dim_algo));
    m->coord_to_rank = NULL;
    m->graph = NULL;
    memset(m->algo_state, 0, sizeof(m->algo_state));
    memset(m->algo_table, 0, sizeof(m->algo_table));
    mca_coll_themis_plan_cache_init(&m->cache);
    m->scratch.base = NULL;
    m->scratch.size = 0;
    memset(&m->nbc_scratch, 0, sizeof(m->nbc_scratch));

    m->super.coll_module_enable = themis_module_enable;
    m->super.coll_module_disable = themis_module_disable;
    m->super.coll_allreduce = mca_coll_themis_allreduce;
    m->super.coll_reduce_scatter = mca_coll_themis_reduce_scatter;
    m->super.coll_reduce_scatter_block = mca_coll_themis_reduce_scatter_block;
    m->super.coll_allgather = mca_coll_themis_allgather;
    m->super.coll_iallreduce = mca_coll_themis_iallreduce;
    m->super.coll_ireduce_scatter = mca_coll_themis_ireduce_scatter;
    m->super.coll_ireduce_scatter_block = mca_coll_themis_ireduce_scatter_block;
    m->super.coll_iallgather = mca_coll_themis_iallgather;
    m->super.coll_allreduce_init = mca_coll_themis_allreduce_init;
    m->super.coll_reduce_scatter_init = mca_coll_themis_reduce_scatter_init;
    m->super.coll_reduce_scatter_block_init = mca_coll_themis_reduce_scatter_block_init;
    m->super.coll_allgather_init = mca_coll_themis_allgather_init;
    m->seq = 0;
    m->nlanes = 0;
    memset(m->lane_busy, 0, sizeof(m->lane_busy));
}

static void themis_module_destruct(mca_coll_themis_module_t *m)
{
    themis_module_cleanup(m);
}

OBJ_CLASS_INSTANCE(mca_coll_themis_module_t, mca_coll_base_module_t, themis_module_construct,
                   themis_module_destruct);

/* Where each collective's function and module sit in the communicator's
 * table, by mca_coll_themis_coll_id_t. */
static const struct {
    size_t fn, module;
} prev_slot[MCA_COLL_THEMIS_NCOLLS] = {
    [MCA_COLL_THEMIS_ALLREDUCE] = {offsetof(mca_coll_base_comm_coll_t, coll_allreduce),
                                   offsetof(mca_coll_base_comm_coll_t, coll_allreduce_module)},
    [MCA_COLL_THEMIS_REDUCE_SCATTER] =
        {offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter),
         offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_module)},
    [MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK] =
        {offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_block),
         offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_block_module)},
    [MCA_COLL_THEMIS_ALLGATHER] = {offsetof(mca_coll_base_comm_coll_t, coll_allgather),
                                   offsetof(mca_coll_base_comm_coll_t, coll_allgather_module)},
    [MCA_COLL_THEMIS_IALLREDUCE] = {offsetof(mca_coll_base_comm_coll_t, coll_iallreduce),
                                    offsetof(mca_coll_base_comm_coll_t, coll_iallreduce_module)},
    [MCA_COLL_THEMIS_IREDUCE_SCATTER] =
        {offsetof(mca_coll_base_comm_coll_t, coll_ireduce_scatter),
         offsetof(mca_coll_base_comm_coll_t, coll_ireduce_scatter_module)},
    [MCA_COLL_THEMIS_IREDUCE_SCATTER_BLOCK] =
        {offsetof(mca_coll_base_comm_coll_t, coll_ireduce_scatter_block),
         offsetof(mca_coll_base_comm_coll_t, coll_ireduce_scatter_block_module)},
    [MCA_COLL_THEMIS_IALLGATHER] = {offsetof(mca_coll_base_comm_coll_t, coll_iallgather),
                                    offsetof(mca_coll_base_comm_coll_t, coll_iallgather_module)},
    [MCA_COLL_THEMIS_PALLREDUCE] =
        {offsetof(mca_coll_base_comm_coll_t, coll_allreduce_init),
         offsetof(mca_coll_base_comm_coll_t, coll_allreduce_init_module)},
    [MCA_COLL_THEMIS_PREDUCE_SCATTER] =
        {offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_init),
         offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_init_module)},
    [MCA_COLL_THEMIS_PREDUCE_SCATTER_BLOCK] =
        {offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_block_init),
         offsetof(mca_coll_base_comm_coll_t, coll_reduce_scatter_block_init_module)},
    [MCA_COLL_THEMIS_PALLGATHER] =
        {offsetof(mca_coll_base_comm_coll_t, coll_allgather_init),
         offsetof(mca_coll_base_comm_coll_t, coll_allgather_init_module)},
};

/* Our function for a nonblocking or persistent collective, in the
 * module's table. */
static void **own_fn(mca_coll_themis_module_t *m, int coll)
{
    static const size_t slot[MCA_COLL_THEMIS_NCOLLS - MCA_COLL_THEMIS_NBLOCKING] = {
        offsetof(mca_coll_base_module_t, coll_iallreduce),
        offsetof(mca_coll_base_module_t, coll_ireduce_scatter),
        offsetof(mca_coll_base_module_t, coll_ireduce_scatter_block),
        offsetof(mca_coll_base_module_t, coll_iallgather),
        offsetof(mca_coll_base_module_t, coll_allreduce_init),
        offsetof(mca_coll_base_module_t, coll_reduce_scatter_init),
        offsetof(mca_coll_base_module_t, coll_reduce_scatter_block_init),
        offsetof(mca_coll_base_module_t, coll_allgather_init)};
    return (void **) ((char *) &m->super + slot[coll - MCA_COLL_THEMIS_NBLOCKING]);
}

static void release_prev(mca_coll_themis_module_t *m)
{
    for (int i = 0; i < MCA_COLL_THEMIS_NCOLLS; ++i) {
        if (NULL != m->prev[i].module) {
            OBJ_RELEASE(m->prev[i].module);
        }
        m->prev[i].module = NULL;
        m->prev[i].fn.any = NULL;
    }
}

/* Fail-safe: without every previous implementation there is nothing to
 * fall back to, so coll/themis must rank above a complete component. */
static int themis_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const char *table = (const char *) comm->c_coll;

    for (int i = 0; i < MCA_COLL_THEMIS_NCOLLS; ++i) {
        memcpy(&m->prev[i].fn.any, table + prev_slot[i].fn, sizeof(void *));
        memcpy(&m->prev[i].module, table + prev_slot[i].module, sizeof(void *));
        if (i >= MCA_COLL_THEMIS_NBLOCKING
            && (NULL == m->prev[i].fn.any || NULL == m->prev[i].module)) {
            /* No nonblocking or persistent form below us (coll/libnbc
             * left out): we do not offer it either (the table is copied
             * after enable). */
            m->prev[i].fn.any = NULL;
            m->prev[i].module = NULL;
            *own_fn(m, i) = NULL;
            continue;
        }
        if (NULL == m->prev[i].fn.any || NULL == m->prev[i].module) {
            opal_output_verbose(1, mca_coll_themis_component.output,
                                "coll:themis: %s: no lower-priority %s to fall back to; "
                                "disabled", comm->c_name,
                                mca_coll_themis_coll_name((mca_coll_themis_coll_id_t) i));
            m->prev[i].module = NULL;
            release_prev(m);
            return OMPI_ERR_NOT_FOUND;
        }
        OBJ_RETAIN(m->prev[i].module);
    }
    return OMPI_SUCCESS;
}

static int themis_module_disable(mca_coll_base_module_t *module,
                                 struct ompi_communicator_t *comm)
{
    themis_module_cleanup((mca_coll_themis_module_t *) module);
    return OMPI_SUCCESS;
}

/* Idempotent: Open MPI may call disable once per function we provide and
 * the destructor runs afterwards. */
static void themis_module_cleanup(mca_coll_themis_module_t *m)
{
    release_prev(m);

    if (NULL != m->setup) {
        /* Freed with its setup under way (MPI_Finalize of an erroneous
         * program): the requests still own the buffers. */
        ompi_request_wait(&m->setup->agree_req, MPI_STATUS_IGNORE);
        ompi_request_wait(&m->setup->dup_req, MPI_STATUS_IGNORE);
        if (NULL != m->setup->dup && MPI_COMM_NULL != m->setup->dup) {
            ompi_comm_free(&m->setup->dup);
        }
        free(m->setup);
        m->setup = NULL;
    }

    mca_coll_themis_private_comm_free(&m->p2p_comm, m->p2p_cid);
    mca_coll_themis_plan_cache_clear(&m->cache);
    mca_coll_themis_engine_scratch_release(&m->scratch);
    mca_coll_themis_scratch_pool_clear(&m->nbc_scratch);
    free(m->coord_to_rank);
    m->coord_to_rank = NULL;
    if (NULL != m->graph) {
        themis_graph_free(m->graph);
        free(m->graph);
        m->graph = NULL;
    }
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != m->algo_state[a] && NULL != themis_algorithm_get(a)->state_free) {
            themis_algorithm_get(a)->state_free(m->algo_state[a]);
        }
        m->algo_state[a] = NULL;
    }
    memset(m->algo_table, 0, sizeof(m->algo_table));
    m->state = MCA_COLL_THEMIS_STATE_ASIDE;
}

/* ------------------------------------------------------------------ setup */

static bool is_rank0(ompi_communicator_t *comm)
{
    return 0 == ompi_comm_rank(comm);
}

/* Whether this process already showed a help topic: an application with
 * many communicators gets each kind of message once. */
static bool topic_shown(const char *topic)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const char *shown[8];
    static int nshown = 0;
    bool found = false;

    pthread_mutex_lock(&lock);
    for (int i = 0; i < nshown && !found; ++i) {
        found = 0 == strcmp(shown[i], topic);
    }
    if (!found && nshown < (int) (sizeof(shown) / sizeof(shown[0]))) {
        shown[nshown++] = topic;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static void step_aside(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                       const char *topic, const char *why)
{
    m->state = MCA_COLL_THEMIS_STATE_ASIDE;
    /* The decision is the same on every rank: rank 0 reports it. */
    if (NULL != topic && is_rank0(comm) && !topic_shown(topic)) {
        mca_coll_themis_show_help(topic, comm->c_name, ompi_comm_size(comm), why);
    }
    opal_output_verbose(1, mca_coll_themis_component.output,
                        "coll:themis: %s (rank %d): stepping aside: %s", comm->c_name,
                        ompi_comm_rank(comm), why);
}

static void format_shape(const mca_coll_themis_shape_t *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->ndims && used < len; ++i) {
        int n = snprintf(buf + used, len - used, "%s%u(%s, place %d)", 0 == i ? "" : " x ",
                         s->size[i], mca_coll_themis_level_name(s->level[i]), s->place[i]);
        if (n < 0) {
            break;
        }
        used += (size_t) n;
    }
}

/* Drops dimensions of size 1 (they move no data) with their per-dim
 * parameters, keeping positions of lists given per dimension. */
static void drop_unit_dims(mca_coll_themis_shape_t *s, uint64_t *bw, themis_time_t *lat,
                           themis_dim_kind_t *kind)
{
    int out = 0;
    for (int i = 0; i < s->ndims; ++i) {
        if (1 == s->size[i]) {
            continue;
        }
        s->size[out] = s->size[i];
        s->place[out] = s->place[i];
        s->level[out] = s->level[i];
        bw[out] = bw[i];
        lat[out] = lat[i];
        kind[out] = kind[i];
        ++out;
    }
    s->ndims = out;
}

/* The info of every private communicator: keep coll/themis off the
 * duplicate (Open MPI honours this key at selection) and mark it so that
 * comm_query refuses it regardless.  NULL without memory. */
static opal_info_t *private_info(void)
{
    opal_info_t *info = OBJ_NEW(opal_info_t);

    if (NULL != info) {
        opal_info_set(info, "ompi_comm_coll_preference", "^themis");
        opal_info_set(info, MCA_COLL_THEMIS_PRIVATE_INFO_KEY, "true");
    }
    return info;
}

/* Name, index and MPI_TAG_UB of a new private communicator (made by
 * mca_coll_themis_private_comm or by the nonblocking setup's idup). */
static void private_comm_label(ompi_communicator_t *dup, const char *name, uint32_t *index,
                               int *tag_ub)
{
    void *attr = NULL;
    int flag = 0, rc;

    *index = mca_coll_themis_comm_index(dup);
    snprintf(dup->c_name, MPI_MAX_OBJECT_NAME, "%s", name);
    rc = PMPI_Comm_get_attr(dup, MPI_TAG_UB, &attr, &flag);
    if (MPI_SUCCESS == rc && flag && NULL != attr) {
        *tag_ub = *(int *) attr;
    } else {
        *tag_ub = mca_pml.pml_max_tag;
    }
}

int mca_coll_themis_private_comm(ompi_communicator_t *comm, const char *name,
                                 ompi_communicator_t **dup, uint32_t *index, int *tag_ub)
{
    opal_info_t *info = private_info();
    int rc;

    if (NULL == info) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = ompi_comm_dup_with_info(comm, info, dup);
    OBJ_RELEASE(info);
    if (OMPI_SUCCESS != rc) {
        *dup = NULL;
        return rc;
    }
    private_comm_label(*dup, name, index, tag_ub);
    return OMPI_SUCCESS;
}

void mca_coll_themis_private_comm_free(ompi_communicator_t **dup, uint32_t index)
{
    if (NULL == *dup) {
        return;
    }
    /* At MPI_Finalize Open MPI releases leftover communicators in
     * context-id order, so a private one may already be gone when its
     * owner lets go: free it only while its slot still holds it (nothing
     * creates communicators during finalize). */
    if (opal_pointer_array_get_item(&ompi_mpi_communicators, (int) index) == (void *) *dup) {
        ompi_comm_free(dup);
    }
    *dup = NULL;
}

/* The name of the module's private communicator. */
static void p2p_comm_name(ompi_communicator_t *comm, char name[MPI_MAX_OBJECT_NAME])
{
    snprintf(name, MPI_MAX_OBJECT_NAME, "coll/themis p2p of %.40s", comm->c_name);
}

static int create_p2p_comm(mca_coll_themis_module_t *m, ompi_communicator_t *comm)
{
    char name[MPI_MAX_OBJECT_NAME];

    p2p_comm_name(comm, name);
    return mca_coll_themis_private_comm(comm, name, &m->p2p_comm, &m->p2p_cid, &m->tag_ub);
}

/* Identity maps need no table; otherwise linear coordinate index ->
 * communicator rank through the place values, unless the placement set
 * the map already. */
static int build_rank_map(mca_coll_themis_module_t *m, const mca_coll_themis_shape_t *s,
                          int comm_size)
{
    int stride = 1;
    bool identity = true;

    if (NULL != m->coord_to_rank) {
        return OMPI_SUCCESS;
    }

    for (int i = 0; i < s->ndims; ++i) {
        if (s->place[i] != stride) {
            identity = false;
        }
        stride *= (int) s->size[i];
    }
    if (identity) {
        m->coord_to_rank = NULL;
        return OMPI_SUCCESS;
    }
    m->coord_to_rank = malloc(sizeof(int) * (size_t) comm_size);
    if (NULL == m->coord_to_rank) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int idx = 0; idx < comm_size; ++idx) {
        int rest = idx, rank = 0;
        for (int i = 0; i < s->ndims; ++i) {
            rank += (rest % (int) s->size[i]) * s->place[i];
            rest /= (int) s->size[i];
        }
        m->coord_to_rank[idx] = rank;
    }
    return OMPI_SUCCESS;
}

/* Row treepack's packing of coll_themis_graph against the bound it
 * certifies (a partition's ratio), and the C of the schedule the row runs
 * (the packing rounded to units and chunks) against the same bound: what
 * the row's time is within of C(G), at verbose 1, once per communicator. */
static void log_packing(mca_coll_themis_module_t *m, ompi_communicator_t *comm)
{
    const themis_graph_t *graph = mca_coll_themis_graph_of(m);
    themis_tp_graph_t g;
    themis_tp_packing_t p;
    themis_xfer_sched_t s;
    themis_tp_frac_t c = {0, 1};
    char why[200] = "", run[160] = "";

    if (THEMIS_OK != themis_tp_from_graph(graph, &g, why, sizeof(why))) {
        return;
    }
    if (THEMIS_OK == themis_tp_solve(&g, &p, why, sizeof(why))) {
        if (THEMIS_OK == themis_tp_runtime_schedule(graph, &s, why, sizeof(why))
            && THEMIS_OK == themis_tp_schedule_rate(graph, &s, g.unit_bps, &c, why, sizeof(why))) {
            snprintf(run, sizeof(run), "; as scheduled (%u units) C %llu/%llu, within %.4fx",
                     s.nunits, (unsigned long long) c.num, (unsigned long long) c.den,
                     (double) c.num * (double) p.bound.num / ((double) c.den * (double) p.bound.den));
        }
        themis_xfer_free(&s);
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: treepack packs %u trees (%s): C %llu/%llu x S/B, "
                            "certified C(G) >= %llu/%llu, so within %.4fx of the optimum%s",
                            comm->c_name, p.ntrees, themis_tp_method_name(p.method),
                            (unsigned long long) p.value.den, (unsigned long long) p.value.num,
                            (unsigned long long) p.bound.den, (unsigned long long) p.bound.num,
                            (double) p.bound.num * (double) p.value.den
                                / ((double) p.bound.den * (double) p.value.num), run);
        themis_tp_packing_free(&p);
    }
    themis_tp_graph_free(&g);
}

static void dims_list_text(const uint32_t *v, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; ++i) {
        int k = snprintf(buf + used, len - used, "%s%u", 0 == i ? "" : "x", v[i]);
        if (k < 0) {
            break;
        }
        used += (size_t) k;
    }
}

/* This rank's entries of the agreement vector and its local shape. */
static void agree_local(ompi_communicator_t *comm, mca_coll_themis_shape_t *shape,
                        uint64_t *agree)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;

    memset(shape, 0, sizeof(*shape));
    memset(agree, 0, sizeof(uint64_t) * agree_len(ompi_comm_size(comm)));
    if (c->config_ok) {
        mca_coll_themis_dims_local(comm, &c->config, shape);
        agree[AGREE_CFG] = c->config_hash;
        agree[AGREE_SHAPE] = mca_coll_themis_shape_hash(shape);
        agree[AGREE_FARTHEST] = (uint64_t) shape->farthest;
        agree[AGREE_LOCAL_RANKS] = (uint64_t) shape->local_ranks;
        agree[AGREE_NODE_LEVEL] = (uint64_t) shape->node_level;
        agree[AGREE_COUNT + ompi_comm_rank(comm)] =
            1 + (uint64_t) mca_coll_themis_placement_host(comm);
        for (int i = 0; shape->valid && i < shape->ndims; ++i) {
            agree[AGREE_LEVEL0 + i] = (uint64_t) shape->level[i];
        }
    } else {
        agree[AGREE_FAIL] = (uint64_t) (ompi_comm_size(comm) - ompi_comm_rank(comm));
    }
    agree[AGREE_CFG_NOT] = ~agree[AGREE_CFG];
    agree[AGREE_SHAPE_NOT] = ~agree[AGREE_SHAPE];
}

static int setup_decide(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                        const uint64_t *agree, mca_coll_themis_shape_t shape);

/*
 * Runs once per communicator, on the first call of any of our collectives
 * when it is blocking (all ranks make that call, whatever its size).
 * Everything that can differ between ranks goes into one MPI_MAX
 * allreduce through the previous module; every decision after it uses
 * only reduced values, so all ranks decide alike.  A nonblocking first
 * call sets up without blocking instead (mca_coll_themis_setup_start).
 */
int mca_coll_themis_lazy_setup(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm)
{
    mca_coll_themis_shape_t shape;
    const size_t len = agree_len(ompi_comm_size(comm));
    uint64_t *agree = malloc(sizeof(uint64_t) * len);
    int rc;

    if (NULL == agree) {
        step_aside(m, comm, NULL, "out of memory for the setup");
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    m->in_setup = true;
    agree_local(comm, &shape, agree);
    rc = m->prev[MCA_COLL_THEMIS_ALLREDUCE].fn.allreduce(
        MPI_IN_PLACE, agree, (int) len, MPI_UINT64_T, MPI_MAX, comm,
        m->prev[MCA_COLL_THEMIS_ALLREDUCE].module);
    if (OMPI_SUCCESS != rc) {
        step_aside(m, comm, NULL, "the agreement allreduce failed");
    } else {
        rc = setup_decide(m, comm, agree, shape);
    }
    free(agree);
    m->in_setup = false;
    return rc;
}

/* The nonblocking setup: the agreement allreduce through the previous
 * component's nonblocking allreduce and the private communicator through
 * MPI_Comm_idup's machinery, both started by the first call (a point in
 * the call order that is the same on every rank) and finished by
 * mca_coll_themis_setup_test from progress.  The probe measures with
 * blocking ping-pongs: it needs a blocking first call. */

int mca_coll_themis_setup_start(mca_coll_themis_module_t *m, ompi_communicator_t *comm)
{
    const size_t len = agree_len(ompi_comm_size(comm));
    struct mca_coll_themis_setup_t *s = calloc(1, sizeof(*s) + sizeof(uint64_t) * len);
    opal_info_t *info = NULL;
    int rc;

    if (NULL == s) {
        step_aside(m, comm, NULL, "out of memory for the setup");
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    agree_local(comm, &s->shape, s->agree);
    rc = m->prev[MCA_COLL_THEMIS_IALLREDUCE].fn.iallreduce(
        MPI_IN_PLACE, s->agree, (int) len, MPI_UINT64_T, MPI_MAX, comm, &s->agree_req,
        m->prev[MCA_COLL_THEMIS_IALLREDUCE].module);
    if (OMPI_SUCCESS == rc) {
        info = private_info();
        rc = NULL == info ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS == rc) {
        /* mca_coll_themis_private_comm's duplicate, without blocking. */
        rc = ompi_comm_idup_with_info(comm, info, &s->dup, &s->dup_req);
        OBJ_RELEASE(info);
    }
    if (OMPI_SUCCESS != rc) {
        /* A local failure of a collective start: this rank errors out. */
        if (NULL != s->agree_req) {
            ompi_request_wait(&s->agree_req, MPI_STATUS_IGNORE);
        }
        free(s);
        step_aside(m, comm, NULL, "could not start the nonblocking setup");
        return rc;
    }
    m->setup = s;
    m->state = MCA_COLL_THEMIS_STATE_PENDING;
    return OMPI_SUCCESS;
}

/* Completion without progress: the caller is progress. */
static bool request_done(ompi_request_t *req)
{
    return REQUEST_COMPLETE(req);
}

int mca_coll_themis_setup_test(mca_coll_themis_module_t *m, ompi_communicator_t *comm, bool *done)
{
    struct mca_coll_themis_setup_t *s = m->setup;
    int rc, rc_dup;

    *done = MCA_COLL_THEMIS_STATE_PENDING != m->state;
    if (*done || !request_done(s->agree_req) || !request_done(s->dup_req)) {
        return OMPI_SUCCESS;
    }
    *done = true;
    m->setup = NULL;
    rc = s->agree_req->req_status.MPI_ERROR;
    rc_dup = s->dup_req->req_status.MPI_ERROR;
    ompi_request_free(&s->agree_req);
    ompi_request_free(&s->dup_req);
    if (OMPI_SUCCESS == rc_dup && MPI_COMM_NULL != s->dup && NULL != s->dup) {
        char name[MPI_MAX_OBJECT_NAME];

        m->p2p_comm = s->dup;
        p2p_comm_name(comm, name);
        private_comm_label(m->p2p_comm, name, &m->p2p_cid, &m->tag_ub);
    }
    if (OMPI_SUCCESS != rc) {
        step_aside(m, comm, NULL, "the agreement allreduce failed");
    } else if (NULL == m->p2p_comm) {
        rc = OMPI_SUCCESS != rc_dup ? rc_dup : OMPI_ERROR;
        step_aside(m, comm, NULL, "could not duplicate the communicator");
    } else {
        rc = setup_decide(m, comm, s->agree, s->shape);
    }
    free(s);
    return rc;
}

/* After the agreement: every decision from reduced values.  The private
 * communicator exists already after a nonblocking setup. */
static int setup_decide(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                        const uint64_t *agree, mca_coll_themis_shape_t shape)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    const mca_coll_themis_config_t *cfg = &c->config;
    const int size = ompi_comm_size(comm);
    uint64_t bw[THEMIS_MAX_DIMS];
    themis_time_t lat[THEMIS_MAX_DIMS];
    themis_dim_kind_t kind[THEMIS_MAX_DIMS];
    char why[320], text[256];
    int rc;

    if (0 != agree[AGREE_FAIL]) {
        /* One report: by the lowest rank with invalid parameters. */
        if ((uint64_t) (size - ompi_comm_rank(comm)) == agree[AGREE_FAIL]) {
            mca_coll_themis_params_report();
        }
        step_aside(m, comm, NULL, "a rank has invalid coll_themis parameters");
        return OMPI_SUCCESS;
    }
    if (agree[AGREE_CFG] != ~agree[AGREE_CFG_NOT]) {
        step_aside(m, comm, "disagree",
                   "the ranks were given different coll_themis parameters");
        return OMPI_SUCCESS;
    }

    if (agree[AGREE_SHAPE] != ~agree[AGREE_SHAPE_NOT]) {
        /* Only automatic shapes can differ (a declared shape is part of
         * the parameters): use the always-valid single dimension. */
        opal_output_verbose(1, c->output,
                            "coll:themis: %s: ranks see different layouts (rank %d: %s); "
                            "using one dimension of %d ranks",
                            comm->c_name, ompi_comm_rank(comm),
                            shape.valid ? "regular" : shape.reason, size);
        mca_coll_themis_dims_single(&shape, size,
                                    (mca_coll_themis_level_t) agree[AGREE_FARTHEST]);
    } else if (!shape.valid) {
        step_aside(m, comm, "bad-shape", shape.reason);
        return OMPI_SUCCESS;
    } else {
        for (int i = 0; i < shape.ndims; ++i) {
            shape.level[i] = (mca_coll_themis_level_t) agree[AGREE_LEVEL0 + i];
        }
    }
    /* Where the ranks run, against coll_themis_graph's hosts. */
    rc = mca_coll_themis_placement_apply(m, comm, agree + AGREE_COUNT,
                                         (mca_coll_themis_level_t) agree[AGREE_NODE_LEVEL],
                                         &shape, &m->coord_to_rank);
    if (OMPI_SUCCESS != rc) {
        /* Local failure after a collective decision: this rank errors out. */
        step_aside(m, comm, NULL, "out of memory for the placement");
        return rc;
    }
    /* Declared dims the graph's placement does not cut along hosts: the
     * programs are planned for one network, `auto` simulates another. */
    if (shape.declared && !shape.from_graph && (uint64_t) size == c->graph.nranks
        && is_rank0(comm)) {
        char disagree[256];
        if (!themis_graph_dims_agree(&c->graph, shape.size, shape.ndims, disagree,
                                     sizeof(disagree))
            && !topic_shown("dims-graph")) {
            opal_output(0, "coll:themis: %s: warning: coll_themis_%s: `auto` simulates every "
                        "algorithm on the graph, but plans for these dims (said once)",
                        comm->c_name, disagree);
        }
    }
    /* Shapes were declared, none for this size: automatic, said once. */
    if (!shape.declared && (0 < cfg->nshapes || 0 < c->rules.nshapes) && is_rank0(comm)
        && !topic_shown("shape-automatic")) {
        mca_coll_themis_show_help("shape-automatic", comm->c_name, size,
                                  '\0' == *c->dims_param ? "(none)" : c->dims_param,
                                  '\0' == *c->rules_param ? "(none)" : c->rules_param);
    }

    /* Rates and kinds: parameters given per dimension (or one for all)
     * override the defaults of each dimension's level. */
    if ((cfg->nbw > 1 && cfg->nbw != shape.ndims) || (cfg->nlat > 1 && cfg->nlat != shape.ndims)
        || (cfg->nkinds > 1 && cfg->nkinds != shape.ndims)) {
        snprintf(why, sizeof(why),
                 "coll_themis_dim_bandwidths/latencies/kinds list %d/%d/%d values, but the "
                 "communicator has %d dimensions (give one value per dimension, or one for all)",
                 cfg->nbw, cfg->nlat, cfg->nkinds, shape.ndims);
        step_aside(m, comm, "bad-lists", why);
        return OMPI_SUCCESS;
    }
    {
        /* Ranks that share one node's network interface. */
        int sharing = 1;
        for (int i = 0; i < shape.ndims; ++i) {
            if (MCA_COLL_THEMIS_LEVEL_NETWORK != shape.level[i]) {
                sharing *= (int) shape.size[i];
            }
        }
        if (1 == shape.ndims && MCA_COLL_THEMIS_LEVEL_NETWORK == shape.level[0]) {
            sharing = (int) agree[AGREE_LOCAL_RANKS];
        }
        for (int i = 0; i < shape.ndims; ++i) {
            mca_coll_themis_dims_default_rates(shape.level[i], sharing, &bw[i], &lat[i]);
            kind[i] = THEMIS_DIM_SWITCH;
        }
    }

    rc = NULL != m->p2p_comm ? OMPI_SUCCESS : create_p2p_comm(m, comm);
    if (OMPI_SUCCESS != rc) {
        step_aside(m, comm, NULL, "could not duplicate the communicator");
        return rc;
    }

    if (cfg->probe) {
        rc = mca_coll_themis_dims_probe(m, comm, &shape, bw, lat);
        if (OMPI_SUCCESS != rc) {
            step_aside(m, comm, NULL, "the bandwidth/latency probe failed");
            return rc;
        }
    }
    for (int i = 0; i < shape.ndims; ++i) {
        if (0 != cfg->nbw) {
            bw[i] = cfg->bw_bps[1 == cfg->nbw ? 0 : i];
        }
        if (0 != cfg->nlat) {
            lat[i] = cfg->lat_ps[1 == cfg->nlat ? 0 : i];
        }
        if (0 != cfg->nkinds && (shape.declared || !cfg->torus_kinds)) {
            kind[i] = cfg->kinds[1 == cfg->nkinds ? 0 : i];
        }
    }
    drop_unit_dims(&shape, bw, lat, kind);
    if (0 == shape.ndims) {
        step_aside(m, comm, NULL, "every dimension has size 1");
        return OMPI_SUCCESS;
    }

    m->topo.ndims = shape.ndims;
    for (int i = 0; i < shape.ndims; ++i) {
        m->topo.dims[i].size = shape.size[i];
        m->topo.dims[i].kind = kind[i];
        m->topo.dims[i].bw_bps = bw[i];
        m->topo.dims[i].step_latency = lat[i];
        m->dim_algo[i] = themis_dim_algo_for(kind[i], shape.size[i], cfg->direct_max);
    }
    if (THEMIS_OK != themis_topology_check(&m->topo, text, sizeof(text))) {
        step_aside(m, comm, "bad-lists", text);
        return OMPI_SUCCESS;
    }
    rc = build_rank_map(m, &shape, size);
    if (OMPI_SUCCESS != rc) {
        /* Local failure after a collective decision: this rank errors out
         * rather than running a different path from the others. */
        step_aside(m, comm, NULL, "out of memory for the rank map");
        return rc;
    }

    /* Thresholds: within one node every dimension shares one memory system
     * (no link for Themis to balance) and every message is a CPU copy (and,
     * oversubscribed, a context switch), so both are larger there than
     * across nodes, where the NIC moves the bytes.  The farthest level is
     * reduced, so all ranks agree. */
    {
        const bool spans_nodes = MCA_COLL_THEMIS_LEVEL_NETWORK
                                 == (mca_coll_themis_level_t) agree[AGREE_FARTHEST];
        m->min_bytes = 0 <= cfg->min_bytes ? (uint64_t) cfg->min_bytes
                       : spans_nodes       ? THEMIS_DEFAULT_MIN_BYTES_NETWORK
                                           : THEMIS_DEFAULT_MIN_BYTES_NODE;
        m->min_chunk_bytes = 0 != cfg->min_chunk_bytes ? cfg->min_chunk_bytes
                             : spans_nodes             ? THEMIS_DEFAULT_MIN_CHUNK_NETWORK
                                                       : THEMIS_DEFAULT_MIN_CHUNK_NODE;
        m->spans_nodes = spans_nodes;
    }

    m->state = MCA_COLL_THEMIS_STATE_READY;

    if (is_rank0(comm) && (opal_output_get_verbosity(c->output) >= 1)) {
        format_shape(&shape, why, sizeof(why));
        if (THEMIS_OK > themis_topology_format(&m->topo, text, sizeof(text))) {
            text[0] = '\0';
        }
        opal_output_verbose(1, c->output,
                            "coll:themis: %s (cid %u): ready, %d ranks, dims %s, topology %s, "
                            "tag_ub %d, min_bytes %llu, chunks of >= %llu bytes%s",
                            comm->c_name, (unsigned) mca_coll_themis_comm_index(comm), size, why, text,
                            m->tag_ub, (unsigned long long) m->min_bytes,
                            (unsigned long long) m->min_chunk_bytes,
                            cfg->probe ? " (probed rates)" : "");
    }
    if (is_rank0(comm) && (opal_output_get_verbosity(c->output) >= 1)
        && (uint32_t) size == c->graph.nranks) {
        log_packing(m, comm);
    }
    const mca_coll_themis_shape_decl_t *decl = mca_coll_themis_declared_shape((uint64_t) size);
    if (NULL != decl && (opal_output_get_verbosity(c->output) >= 10)) {
        dims_list_text(decl->dims, decl->ndims, text, sizeof(text));
        opal_output_verbose(10, c->output, "coll:themis: %s: declared dims %s",
                            comm->c_name, text);
    }
    return OMPI_SUCCESS;
}
