/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Where the communicator's ranks run, and coll_themis_graph's hosts.
 *
 * Each rank names the lowest communicator rank on its own node (from the
 * runtime's locality, coll_themis_dims.c); the setup agreement gathers
 * these into one vector equal on every rank, and everything here is
 * decided from that vector and the parameters alone.  Nodes are numbered
 * by their lowest rank.
 *
 * A graph placing its ranks on hosts is matched to it: node k to graph
 * host k, the node's ranks in rank order to the host's rank nodes in node
 * order, so a job mapped round-robin (--map-by node) or block gets the
 * links between the ranks that really share a host.  The module then
 * plans on a copy of the graph whose rank node i is rank i (m->graph).  A
 * partition of another shape (host count or ranks per host) cannot be
 * matched: said once, and the graph is used as given (rank node i = rank
 * i), the component's behaviour without placement.
 *
 * coll_themis_host_map replaces the runtime's answer for tests on one
 * machine: it names the host of every MPI_COMM_WORLD rank (by its process
 * name's vpid), and the same agreement runs behind it.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "ompi/group/group.h"
#include "ompi/proc/proc.h"

#include "coll_themis.h"
#include "util.h"

/* coll_themis_host_map parsed: host of each MPI_COMM_WORLD rank. */
static uint32_t *host_map = NULL;
static uint32_t host_map_len = 0;

void mca_coll_themis_host_map_free(void)
{
    free(host_map);
    host_map = NULL;
    host_map_len = 0;
}

bool mca_coll_themis_host_map_parse(const char *text, uint64_t *hash, char *why, size_t len)
{
    const char *p = text;
    uint32_t n = 0, cap = 0;
    uint32_t *v = NULL;

    mca_coll_themis_host_map_free();
    *hash = 0;
    if (NULL == text || '\0' == *text) {
        return true;
    }
    for (;;) {
        char *end;
        unsigned long h = strtoul(p, &end, 10);
        if (end == p || h > INT32_MAX || ('\0' != *end && ',' != *end)) {
            snprintf(why, len, "expected a comma-separated list of host numbers (one per "
                     "MPI_COMM_WORLD rank) at \"%.20s\"", p);
            free(v);
            return false;
        }
        if (0 != themis_grow((void **) &v, n, &cap, sizeof(*v), 64)) {
            snprintf(why, len, "out of memory");
            free(v);
            return false;
        }
        v[n++] = (uint32_t) h;
        if ('\0' == *end) {
            break;
        }
        p = end + 1;
    }
    host_map = v;
    host_map_len = n;
    *hash = themis_fnv1a(themis_fnv1a_u64(THEMIS_FNV_OFFSET, n), v, sizeof(uint32_t) * n);
    return true;
}

/* The mapped host of a process; a process past the map's end is a host
 * of its own (listed hosts are below 2^31). */
static uint64_t mapped_host(ompi_proc_t *proc)
{
    const uint32_t vpid = (uint32_t) proc->super.proc_name.vpid;
    return vpid < host_map_len ? host_map[vpid] : (1ULL << 31) + vpid;
}

bool mca_coll_themis_host_map_apart(struct ompi_communicator_t *comm, int q)
{
    ompi_proc_t *peer;

    if (NULL == host_map) {
        return false;
    }
    peer = ompi_group_get_proc_ptr(comm->c_local_group, q, true);
    return NULL == peer || mapped_host(peer) != mapped_host(ompi_proc_local());
}

/* Nodes of the agreed vector: node k's ranks are rank[first[k] ..
 * first[k + 1]), in rank order; nodes by lowest rank. */
typedef struct {
    int nnodes;
    int *first; /* [nnodes + 1] */
    int *rank;  /* [size] */
} nodes_t;

/* false when the vector is not a partition (every entry names a rank at
 * or below it that names itself), or without memory (*oom). */
static bool nodes_build(const uint64_t *host, int size, nodes_t *n, bool *oom)
{
    int *index = NULL;

    memset(n, 0, sizeof(*n));
    *oom = false;
    for (int r = 0; r < size; ++r) {
        if (0 == host[r] || host[r] - 1 > (uint64_t) r || host[host[r] - 1] != host[r]) {
            return false;
        }
    }
    n->first = malloc(sizeof(int) * (size_t) (size + 1));
    n->rank = malloc(sizeof(int) * (size_t) size);
    index = malloc(sizeof(int) * (size_t) size);
    if (NULL == n->first || NULL == n->rank || NULL == index) {
        *oom = true;
        free(index);
        return false;
    }
    /* index[lowest rank] = node number; count, then place in rank order */
    for (int r = 0; r < size; ++r) {
        if (host[r] - 1 == (uint64_t) r) {
            index[r] = n->nnodes;
            n->first[n->nnodes++] = 0;
        }
    }
    n->first[n->nnodes] = 0;
    for (int r = 0; r < size; ++r) {
        ++n->first[index[host[r] - 1] + 1];
    }
    for (int k = 0; k < n->nnodes; ++k) {
        n->first[k + 1] += n->first[k];
    }
    {
        int *fill = malloc(sizeof(int) * (size_t) n->nnodes);
        if (NULL == fill) {
            *oom = true;
            free(index);
            return false;
        }
        memcpy(fill, n->first, sizeof(int) * (size_t) n->nnodes);
        for (int r = 0; r < size; ++r) {
            n->rank[fill[index[host[r] - 1]]++] = r;
        }
        free(fill);
    }
    free(index);
    return true;
}

static void nodes_free(nodes_t *n)
{
    free(n->first);
    free(n->rank);
    memset(n, 0, sizeof(*n));
}

/* "H hosts of R ranks", or "H hosts of R0/R1/... ranks" when uneven. */
static void shape_text(int nhosts, const int *count, char *buf, size_t len)
{
    bool even = true;
    size_t used;

    for (int k = 1; k < nhosts; ++k) {
        even = even && count[k] == count[0];
    }
    used = (size_t) snprintf(buf, len, "%d host%s of ", nhosts, 1 == nhosts ? "" : "s");
    for (int k = 0; k < (even ? 1 : nhosts) && used < len; ++k) {
        used += (size_t) snprintf(buf + used, len - used, "%s%d", 0 == k ? "" : "/", count[k]);
    }
    if (used < len) {
        snprintf(buf + used, len - used, " ranks");
    }
}

/* Verbose 10, lowest rank: the nodes and their ranks. */
static void log_nodes(ompi_communicator_t *comm, const nodes_t *n, const int *count)
{
    char text[512], shape[96];
    size_t used = 0;

    text[0] = '\0';
    for (int k = 0; k < n->nnodes && used + 16 < sizeof(text); ++k) {
        used += (size_t) snprintf(text + used, sizeof(text) - used, " [");
        for (int i = n->first[k]; i < n->first[k + 1] && used + 16 < sizeof(text); ++i) {
            used += (size_t) snprintf(text + used, sizeof(text) - used, "%s%d",
                                      i == n->first[k] ? "" : " ", n->rank[i]);
        }
        used += (size_t) snprintf(text + used, sizeof(text) - used, "]");
    }
    shape_text(n->nnodes, count, shape, sizeof(shape));
    opal_output_verbose(10, mca_coll_themis_component.output,
                        "coll:themis: %s: placement from %s: %s:%s", comm->c_name,
                        NULL != host_map ? "coll_themis_host_map" : "the runtime's locality",
                        shape, text);
}

/* g with rank node v renumbered to_rank[v] (other nodes keep theirs), its
 * links in the same order: the same network, indexed by comm rank. */
static int renumber(const themis_graph_t *g, const int *to_rank, themis_graph_t *out)
{
    themis_status_t st;
    char why[160];

#define NEW_ID(v) ((v) < g->nranks ? (uint32_t) to_rank[(v)] : (v))
    memset(out, 0, sizeof(*out));
    st = themis_graph_init(out, g->nnodes);
    for (uint32_t v = 0; THEMIS_OK == st && v < g->nnodes; ++v) {
        st = themis_graph_set_node(out, NEW_ID(v),
                                   NULL != g->kind ? (themis_node_kind_t) g->kind[v]
                                                   : THEMIS_NODE_RANK,
                                   NULL != g->host ? g->host[v] : THEMIS_GRAPH_NO_HOST);
    }
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        const themis_link_t *k = &g->links[l];
        st = themis_graph_add_link(out, NEW_ID(k->src), NEW_ID(k->dst), k->bw_bps, k->lat_ps);
        if (THEMIS_OK == st) {
            out->links[out->nlinks - 1].failed = k->failed;
        }
    }
    for (uint32_t v = 0; THEMIS_OK == st && v < g->nnodes; ++v) {
        out->node_failed[NEW_ID(v)] = g->node_failed[v];
    }
#undef NEW_ID
    out->pkt_payload = g->pkt_payload;
    out->pkt_header = g->pkt_header;
    st = themis_graph_build_end(out, st, why, sizeof(why));
    return THEMIS_OK == st ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

/*
 * The graph's dims (R ranks per host x H hosts, both > 1 here: a placement
 * that renumbers has both) on the runtime's hosts.  Where the placement is
 * a mixed radix of the ranks (block, round-robin: rank of host h's j-th
 * rank = j * pj + h * ph), the dims take those place values, ordered by
 * them, so that a coordinate index is the rank: every row's cost on the
 * renumbered graph takes coordinates as ranks.  Else the coordinates go
 * through *order = to_rank (the rows run right; the link simulator then
 * costs the dimension rows at the graph's own numbering).
 */
static void place_graph_dims(int *to_rank, int per_host, int nhosts,
                             mca_coll_themis_level_t node_level, mca_coll_themis_shape_t *shape,
                             int **order)
{
    const int pj = to_rank[1] - to_rank[0], ph = to_rank[per_host] - to_rank[0];
    bool regular = 0 == to_rank[0];

    for (int h = 0; regular && h < nhosts; ++h) {
        for (int j = 0; regular && j < per_host; ++j) {
            regular = to_rank[h * per_host + j] == j * pj + h * ph;
        }
    }
    shape->level[0] = node_level;
    shape->level[1] = MCA_COLL_THEMIS_LEVEL_NETWORK;
    if (!regular) {
        shape->place[0] = 1;
        shape->place[1] = per_host;
        *order = to_rank;
        return;
    }
    shape->place[0] = pj;
    shape->place[1] = ph;
    if (pj > ph) {
        const uint32_t size = shape->size[0];
        shape->size[0] = shape->size[1];
        shape->size[1] = size;
        shape->place[0] = ph;
        shape->place[1] = pj;
        shape->level[0] = MCA_COLL_THEMIS_LEVEL_NETWORK;
        shape->level[1] = node_level;
    }
}

int mca_coll_themis_placement_apply(mca_coll_themis_module_t *m,
                                    struct ompi_communicator_t *comm, const uint64_t *host,
                                    mca_coll_themis_level_t node_level,
                                    mca_coll_themis_shape_t *shape, int **order)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    const themis_graph_t *g = &c->graph;
    const int size = ompi_comm_size(comm);
    const bool lowest = 0 == ompi_comm_rank(comm);
    int *count = NULL, *gcount = NULL, *to_rank = NULL;
    char have[96], want[96];
    bool oom, match = true, identity = true;
    nodes_t n;
    int rc = OMPI_SUCCESS;

    *order = NULL;
    if (!nodes_build(host, size, &n, &oom)) {
        if (oom) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        /* The runtime's locality is symmetric; only an inconsistent view
         * gets here, and nothing depends on the placement then. */
        if (lowest) {
            opal_output_verbose(10, c->output, "coll:themis: %s: the ranks' views of their "
                                "hosts do not form a partition; placement not used",
                                comm->c_name);
        }
        return OMPI_SUCCESS;
    }
    count = malloc(sizeof(int) * (size_t) n.nnodes);
    if (NULL == count) {
        nodes_free(&n);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int k = 0; k < n.nnodes; ++k) {
        count[k] = n.first[k + 1] - n.first[k];
    }
    if (lowest && opal_output_get_verbosity(c->output) >= 10) {
        log_nodes(comm, &n, count);
    }
    if (0 == g->nhosts || (uint64_t) size != g->nranks) {
        goto out;
    }

    /* Graph host k's rank nodes, in node order, take node k's ranks. */
    gcount = calloc(g->nhosts, sizeof(int));
    to_rank = malloc(sizeof(int) * (size_t) size);
    if (NULL == gcount || NULL == to_rank) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    for (uint32_t v = 0; v < g->nranks; ++v) {
        ++gcount[g->host[v]];
    }
    match = (uint32_t) n.nnodes == g->nhosts;
    for (int k = 0; match && k < n.nnodes; ++k) {
        match = count[k] == gcount[k];
    }
    if (!match) {
        shape_text(n.nnodes, count, have, sizeof(have));
        shape_text((int) g->nhosts, gcount, want, sizeof(want));
        if (lowest) {
            /* Once per process: every communicator of the graph's size
             * would say the same. */
            static bool said = false;
            if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED)) {
                opal_output(0, "coll:themis: %s: warning: coll_themis_graph places its %d "
                            "ranks as %s, but %s runs them as %s; using the graph's placement "
                            "as given (its rank node i is rank i) (said once)",
                            comm->c_name, size, want,
                            NULL != host_map ? "coll_themis_host_map" : "the runtime", have);
            }
        }
        goto out;
    }
    memset(gcount, 0, sizeof(int) * g->nhosts);
    for (uint32_t v = 0; v < g->nranks; ++v) {
        const uint32_t h = g->host[v];
        to_rank[v] = n.rank[n.first[h] + gcount[h]++];
        identity = identity && to_rank[v] == (int) v;
    }
    if (lowest) {
        opal_output_verbose(10, c->output, "coll:themis: %s: coll_themis_graph's %u hosts "
                            "matched to the runtime's nodes%s", comm->c_name, g->nhosts,
                            identity ? " (rank node i is rank i)" : "; its rank nodes renumbered");
    }
    if (identity) {
        goto out;
    }
    m->graph = calloc(1, sizeof(*m->graph));
    if (NULL == m->graph || OMPI_SUCCESS != (rc = renumber(g, to_rank, m->graph))) {
        free(m->graph);
        m->graph = NULL;
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    if (lowest && opal_output_get_verbosity(c->output) >= 10) {
        char text[512];
        size_t used = 0;
        for (int v = 0; v < size && used + 12 < sizeof(text); ++v) {
            used += (size_t) snprintf(text + used, sizeof(text) - used, " %d", to_rank[v]);
        }
        opal_output_verbose(10, c->output, "coll:themis: %s: graph rank node -> rank:%s",
                            comm->c_name, text);
    }
    if (shape->from_graph && 2 == shape->ndims) {
        place_graph_dims(to_rank, count[0], n.nnodes, node_level, shape, order);
        if (NULL != *order) {
            to_rank = NULL;
        }
    }

out:
    free(to_rank);
    free(gcount);
    free(count);
    nodes_free(&n);
    return rc;
}
