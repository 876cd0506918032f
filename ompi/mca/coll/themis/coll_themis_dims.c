/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Dimensions of a communicator.
 *
 * Declared (coll_themis_dims): the shape lies on consecutive ranks,
 * dimension 0 innermost.
 *
 * Automatic: from the locality flags Open MPI already holds for every peer
 * (opal proc_flags, filled from the runtime's binding information), so no
 * sub-communicator is needed.  Candidate levels are the ranks sharing this
 * rank's NUMA domain, its socket (both only when processes are bound) and
 * its node; they are nested smallest first, and the whole communicator is
 * the outermost level.  A level group G_l, shifted to start at 0, must be
 * O_l = O_{l-1} + {0, w_l, ..., (d_l - 1) w_l}: w_l (the rank distance of
 * one step along dimension l) is the smallest offset of O_l outside
 * O_{l-1}.  The place values must form a mixed radix covering the
 * communicator, and every level group must be exactly the ranks that
 * share this rank's outer coordinates.  That accepts block mappings
 * (node-major: ranks 0..k-1 on node 0) and cyclic ones (rank r on node
 * r mod N) alike.  A level that fails is dropped; the communicator as a
 * single dimension (a plain ring) always remains.  Each rank sees only its
 * own groups; the agreement compares the resulting shapes and falls back
 * to the single dimension when they differ.
 *
 * Default rates per level (overridden by the probe, then by parameters):
 *   socket   200 Gb/s, 300 ns   shared memory inside a NUMA domain/socket
 *   node     100 Gb/s, 600 ns   shared memory across sockets
 *   network  100 Gb/s per node, shared by its ranks, 2 us
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/mca/hwloc/hwloc-internal.h"
#include "opal/util/output.h"
#include "ompi/group/group.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/proc/proc.h"

#include "coll_themis.h"
#include "cluster.h"
#include "util.h"

static const char *const level_names[] = {"socket", "node", "network"};

const char *mca_coll_themis_level_name(mca_coll_themis_level_t level)
{
    return level_names[level];
}

void mca_coll_themis_dims_default_rates(mca_coll_themis_level_t level, int sharing,
                                        uint64_t *bw_bps, themis_time_t *lat_ps)
{
    switch (level) {
    case MCA_COLL_THEMIS_LEVEL_SOCKET:
        *bw_bps = THEMIS_DEFAULT_SOCKET_BW_BPS;
        *lat_ps = THEMIS_DEFAULT_SOCKET_LAT_PS;
        break;
    case MCA_COLL_THEMIS_LEVEL_NODE:
        *bw_bps = THEMIS_DEFAULT_NODE_BW_BPS;
        *lat_ps = THEMIS_DEFAULT_NODE_LAT_PS;
        break;
    case MCA_COLL_THEMIS_LEVEL_NETWORK:
    default:
        *bw_bps = THEMIS_DEFAULT_NETWORK_BW_BPS / (uint64_t) (sharing < 1 ? 1 : sharing);
        *lat_ps = THEMIS_DEFAULT_NETWORK_LAT_PS;
        break;
    }
}

/* Locality candidates, innermost first. */
enum { CAND_NUMA = 0, CAND_SOCKET = 1, CAND_NODE = 2, NCAND = 3 };

static const mca_coll_themis_level_t cand_level[NCAND] = {
    MCA_COLL_THEMIS_LEVEL_SOCKET, MCA_COLL_THEMIS_LEVEL_SOCKET, MCA_COLL_THEMIS_LEVEL_NODE};
static const char *const cand_names[NCAND] = {"NUMA domain", "socket", "node"};

/* Locality of comm rank q seen from this rank.  Open MPI may not have
 * instantiated a peer yet (even one on this node); doing so reads its
 * locality from the runtime, as the PML would on first contact. */
static opal_hwloc_locality_t peer_flags(ompi_communicator_t *comm, int q)
{
    ompi_proc_t *proc;

    if (q == ompi_comm_rank(comm)) {
        return OPAL_PROC_ALL_LOCAL;
    }
    if (mca_coll_themis_host_map_apart(comm, q)) {
        return OPAL_PROC_NON_LOCAL;
    }
    proc = ompi_group_get_proc_ptr(comm->c_local_group, q, true);
    if (NULL == proc) {
        return OPAL_PROC_NON_LOCAL;
    }
    return proc->super.proc_flags;
}

int mca_coll_themis_placement_host(struct ompi_communicator_t *comm)
{
    const int me = ompi_comm_rank(comm);

    for (int q = 0; q < me; ++q) {
        if (OPAL_PROC_ON_LOCAL_NODE(peer_flags(comm, q))) {
            return q;
        }
    }
    return me;
}

static bool in_candidate(opal_hwloc_locality_t f, int cand)
{
    if (!OPAL_PROC_ON_LOCAL_NODE(f)) {
        return false;
    }
    switch (cand) {
    case CAND_NUMA:
        return OPAL_PROC_ON_LOCAL_NUMA(f);
    case CAND_SOCKET:
        return OPAL_PROC_ON_LOCAL_SOCKET(f);
    default:
        return true;
    }
}

static mca_coll_themis_level_t flags_level(opal_hwloc_locality_t f)
{
    if (!OPAL_PROC_ON_LOCAL_NODE(f)) {
        return MCA_COLL_THEMIS_LEVEL_NETWORK;
    }
    if (OPAL_PROC_ON_LOCAL_NUMA(f) || OPAL_PROC_ON_LOCAL_SOCKET(f)) {
        return MCA_COLL_THEMIS_LEVEL_SOCKET;
    }
    return MCA_COLL_THEMIS_LEVEL_NODE;
}

void mca_coll_themis_dims_single(mca_coll_themis_shape_t *shape, int comm_size,
                                 mca_coll_themis_level_t level)
{
    shape->valid = true;
    shape->from_graph = false;
    shape->ndims = 1;
    shape->size[0] = (uint32_t) comm_size;
    shape->place[0] = 1;
    shape->level[0] = level;
    shape->reason[0] = '\0';
}

uint64_t mca_coll_themis_shape_hash(const mca_coll_themis_shape_t *shape)
{
    uint64_t h = themis_fnv1a_u64(THEMIS_FNV_OFFSET, shape->valid ? 1 : 0);

    if (!shape->valid) {
        return h;
    }
    h = themis_fnv1a_u64(h, (uint64_t) shape->ndims);
    for (int i = 0; i < shape->ndims; ++i) {
        h = themis_fnv1a_u64(h, shape->size[i]);
        h = themis_fnv1a_u64(h, (uint64_t) shape->place[i]);
    }
    return h;
}

/* ---------------------------------------------------------------- declared */

/* The shape coll_themis_graph's hosts give (mca_coll_themis_declared_shape). */
static __thread mca_coll_themis_shape_decl_t from_graph;

const mca_coll_themis_shape_decl_t *mca_coll_themis_declared_shape(uint64_t comm_size)
{
    static __thread mca_coll_themis_shape_decl_t from_rules;
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const themis_rule_shape_t *r = themis_rules_shape(&mca_coll_themis_component.rules,
                                                      comm_size);
    if (NULL != r) {
        from_rules.comm_size = r->comm_size;
        from_rules.ndims = r->ndims;
        memcpy(from_rules.dims, r->dims, sizeof(from_rules.dims));
        return &from_rules;
    }
    for (int i = 0; i < cfg->nshapes; ++i) {
        if (cfg->shapes[i].comm_size == comm_size) {
            return &cfg->shapes[i];
        }
    }
    /* Else coll_themis_graph's placement of its ranks on hosts: ranks per
     * host x hosts (cluster.h), as themis-plan compare plans them. */
    const themis_graph_t *g = &mca_coll_themis_component.graph;
    char why[8];
    if (0 != g->nhosts && g->nranks == comm_size) {
        from_graph.comm_size = comm_size;
        from_graph.ndims = themis_graph_dims(g, from_graph.dims, why, sizeof(why));
        if ('\0' == why[0]) {
            return &from_graph;
        }
    }
    return NULL;
}

static void declared_shape(ompi_communicator_t *comm, const mca_coll_themis_shape_decl_t *decl,
                           mca_coll_themis_shape_t *shape)
{
    const int me = ompi_comm_rank(comm);
    int stride = 1;

    shape->valid = true;
    shape->declared = true;
    shape->from_graph = &from_graph == decl;
    shape->ndims = decl->ndims;
    for (int i = 0; i < decl->ndims; ++i) {
        const int d = (int) decl->dims[i];
        const int c = (me / stride) % d;
        mca_coll_themis_level_t level = MCA_COLL_THEMIS_LEVEL_SOCKET;

        /* The dimension is as slow as its farthest peer of this rank; the
         * agreement takes the maximum over ranks. */
        for (int v = 0; v < d; ++v) {
            if (v != c) {
                mca_coll_themis_level_t l = flags_level(peer_flags(comm, me + (v - c) * stride));
                if (l > level) {
                    level = l;
                }
            }
        }
        shape->size[i] = (uint32_t) d;
        shape->place[i] = stride;
        shape->level[i] = level;
        stride *= d;
    }
}

/* --------------------------------------------------------------- automatic */

typedef struct {
    int n;
    int *ranks;                    /* sorted */
    mca_coll_themis_level_t level; /* of the dimension this level adds */
    const char *name;
} level_group_t;

static bool sorted_subset(const int *a, int na, const int *b, int nb)
{
    int j = 0;
    for (int i = 0; i < na; ++i) {
        while (j < nb && b[j] < a[i]) {
            ++j;
        }
        if (j == nb || b[j] != a[i]) {
            return false;
        }
    }
    return true;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return (x > y) - (x < y);
}

/*
 * Tries the given levels (the last is the whole communicator).  Returns -1
 * when they form a valid shape, else the index of a level to drop.
 */
static int try_levels(const level_group_t *lv, int nlv, int me, int *scratch,
                      mca_coll_themis_shape_t *shape)
{
    int d[THEMIS_MAX_DIMS], w[THEMIS_MAX_DIMS], order[THEMIS_MAX_DIMS], coord[THEMIS_MAX_DIMS];
    int prev_n = 1;
    const int *prev = NULL;
    int prev_base = 0;
    int64_t product = 1;

    for (int l = 0; l < nlv; ++l) {
        const int base = lv[l].ranks[0];
        int best = -1, j = 0;

        if (0 != lv[l].n % prev_n || lv[l].n == prev_n) {
            return l;
        }
        d[l] = lv[l].n / prev_n;
        /* smallest offset of this level outside the previous one */
        for (int i = 0; i < lv[l].n && best < 0; ++i) {
            const int off = lv[l].ranks[i] - base;
            bool found = (NULL == prev) ? (0 == off) : false;
            if (NULL != prev) {
                while (j < prev_n && prev[j] - prev_base < off) {
                    ++j;
                }
                found = j < prev_n && prev[j] - prev_base == off;
            }
            if (!found) {
                best = off;
            }
        }
        if (best <= 0) {
            return l;
        }
        w[l] = best;
        product *= d[l];
        prev = lv[l].ranks;
        prev_n = lv[l].n;
        prev_base = base;
    }

    /* place values, sorted, must be a mixed radix covering every rank */
    for (int l = 0; l < nlv; ++l) {
        order[l] = l;
    }
    for (int a = 1; a < nlv; ++a) {
        for (int b = a; b > 0 && w[order[b]] < w[order[b - 1]]; --b) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    }
    {
        int64_t expect = 1;
        for (int k = 0; k < nlv; ++k) {
            if (w[order[k]] != expect) {
                return nlv > 1 ? nlv - 2 : 0;
            }
            expect *= d[order[k]];
        }
        if (expect != product || product != lv[nlv - 1].n) {
            return nlv > 1 ? nlv - 2 : 0;
        }
    }

    /* every level group = this rank with its inner coordinates varied */
    for (int l = 0; l < nlv; ++l) {
        coord[l] = (me / w[l]) % d[l];
    }
    for (int l = 0; l < nlv - 1; ++l) {
        int n = 0, idx[THEMIS_MAX_DIMS] = {0};
        int base = me;
        for (int i = 0; i <= l; ++i) {
            base -= coord[i] * w[i];
        }
        for (;;) {
            int r = base;
            for (int i = 0; i <= l; ++i) {
                r += idx[i] * w[i];
            }
            scratch[n++] = r;
            int i = 0;
            while (i <= l && ++idx[i] == d[i]) {
                idx[i++] = 0;
            }
            if (i > l) {
                break;
            }
        }
        qsort(scratch, (size_t) n, sizeof(int), cmp_int);
        if (n != lv[l].n || 0 != memcmp(scratch, lv[l].ranks, sizeof(int) * (size_t) n)) {
            return l;
        }
    }

    shape->valid = true;
    shape->ndims = nlv;
    for (int l = 0; l < nlv; ++l) {
        shape->size[l] = (uint32_t) d[l];
        shape->place[l] = w[l];
        shape->level[l] = lv[l].level;
    }
    return -1;
}

static void auto_shape(ompi_communicator_t *comm, mca_coll_themis_shape_t *shape)
{
    mca_coll_themis_component_t *c = &mca_coll_themis_component;
    const int size = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    level_group_t cand[NCAND], lv[NCAND + 1];
    int *mem = malloc(sizeof(int) * (size_t) size * (NCAND + 2));
    int *all, *scratch, nlv = 0;

    if (NULL == mem) {
        /* Local and rare: this rank proposes the single dimension, and the
         * agreement settles on it for everybody. */
        mca_coll_themis_dims_single(shape, size, MCA_COLL_THEMIS_LEVEL_NETWORK);
        snprintf(shape->reason, sizeof(shape->reason), "out of memory");
        shape->valid = false;
        return;
    }
    all = mem + (size_t) size * NCAND;
    scratch = all + size;

    for (int k = 0; k < NCAND; ++k) {
        cand[k].n = 0;
        cand[k].ranks = mem + (size_t) size * k;
        cand[k].level = cand_level[k];
        cand[k].name = cand_names[k];
    }
    for (int q = 0; q < size; ++q) {
        const opal_hwloc_locality_t f = peer_flags(comm, q);
        for (int k = 0; k < NCAND; ++k) {
            if (in_candidate(f, k)) {
                cand[k].ranks[cand[k].n++] = q;
            }
        }
        all[q] = q;
    }

    if (opal_output_get_verbosity(c->output) >= 30) {
        for (int k = 0; k < NCAND; ++k) {
            char text[160];
            size_t used = 0;
            text[0] = '\0';
            for (int i = 0; i < cand[k].n && used + 12 < sizeof(text); ++i) {
                used += (size_t) snprintf(text + used, sizeof(text) - used, " %d",
                                          cand[k].ranks[i]);
            }
            opal_output_verbose(30, c->output, "coll:themis: %s rank %d: %s group (%d):%s",
                                comm->c_name, me, cand[k].name, cand[k].n, text);
        }
    }

    /* Nest the candidates, smallest first (ties keep numa, socket, node). */
    for (int k = 0; k < NCAND; ++k) {
        int pick = -1;
        for (int j = 0; j < NCAND; ++j) {
            if (cand[j].n > 0 && (pick < 0 || cand[j].n < cand[pick].n)) {
                pick = j;
            }
        }
        if (pick < 0) {
            break;
        }
        level_group_t g = cand[pick];
        cand[pick].n = 0;
        if (g.n <= 1 || g.n == size) {
            continue;
        }
        if (nlv > 0) {
            const level_group_t *last = &lv[nlv - 1];
            if (g.n == last->n) {
                if (0 != memcmp(g.ranks, last->ranks, sizeof(int) * (size_t) g.n)) {
                    opal_output_verbose(10, c->output,
                                        "coll:themis: %s rank %d: %s and %s groups differ "
                                        "with equal size; ignoring the %s",
                                        comm->c_name, me, g.name, last->name, g.name);
                }
                continue;
            }
            if (!sorted_subset(last->ranks, last->n, g.ranks, g.n)) {
                opal_output_verbose(10, c->output,
                                    "coll:themis: %s rank %d: %s group does not contain the "
                                    "%s group; ignoring the %s",
                                    comm->c_name, me, g.name, last->name, g.name);
                continue;
            }
        }
        lv[nlv++] = g;
    }

    lv[nlv].n = size;
    lv[nlv].ranks = all;
    lv[nlv].level = shape->farthest;
    lv[nlv].name = "communicator";
    ++nlv;

    for (;;) {
        int bad = try_levels(lv, nlv, me, scratch, shape);
        if (bad < 0) {
            break;
        }
        if (1 == nlv) {
            /* unreachable: ranks 0..size-1 always form one dimension */
            mca_coll_themis_dims_single(shape, size, shape->farthest);
            break;
        }
        if (bad >= nlv - 1) {
            bad = nlv - 2;
        }
        opal_output_verbose(10, c->output,
                            "coll:themis: %s rank %d: the %s level is not a regular part of "
                            "the rank layout; dropped",
                            comm->c_name, me, lv[bad].name);
        memmove(&lv[bad], &lv[bad + 1], sizeof(lv[0]) * (size_t) (nlv - bad - 1));
        --nlv;
    }
    free(mem);
}

void mca_coll_themis_dims_local(struct ompi_communicator_t *comm,
                                const mca_coll_themis_config_t *cfg,
                                mca_coll_themis_shape_t *shape)
{
    const int size = ompi_comm_size(comm);

    memset(shape, 0, sizeof(*shape));
    shape->farthest = MCA_COLL_THEMIS_LEVEL_SOCKET;
    shape->node_level = MCA_COLL_THEMIS_LEVEL_SOCKET;
    for (int q = 0; q < size; ++q) {
        const opal_hwloc_locality_t f = peer_flags(comm, q);
        const mca_coll_themis_level_t l = flags_level(f);
        if (l > shape->farthest) {
            shape->farthest = l;
        }
        if (OPAL_PROC_ON_LOCAL_NODE(f)) {
            ++shape->local_ranks;
            if (l > shape->node_level) {
                shape->node_level = l;
            }
        }
    }

    const mca_coll_themis_shape_decl_t *decl =
        mca_coll_themis_declared_shape((uint64_t) ompi_comm_size(comm));
    if (NULL != decl) {
        declared_shape(comm, decl, shape);
    } else {
        auto_shape(comm, shape);
    }
}

/* ------------------------------------------------------------------ probe */

#define THEMIS_PROBE_TAG 0
#define THEMIS_PROBE_LAT_ITERS 20
#define THEMIS_PROBE_BW_ITERS 4
#define THEMIS_PROBE_BW_BYTES (1 << 20)

static int pingpong(ompi_communicator_t *p2p, int peer, bool initiator, char *buf, size_t bytes,
                    size_t reply_bytes, int iters, uint64_t *elapsed_ns)
{
    uint64_t t0 = 0;
    int rc = OMPI_SUCCESS;

    /* one untimed round warms up the connection */
    for (int it = -1; it < iters && OMPI_SUCCESS == rc; ++it) {
        if (0 == it) {
            t0 = themis_now_ns();
        }
        if (initiator) {
            rc = MCA_PML_CALL(send(buf, bytes, MPI_BYTE, peer, THEMIS_PROBE_TAG,
                                   MCA_PML_BASE_SEND_STANDARD, p2p));
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(recv(buf, reply_bytes, MPI_BYTE, peer, THEMIS_PROBE_TAG, p2p,
                                       MPI_STATUS_IGNORE));
            }
        } else {
            rc = MCA_PML_CALL(recv(buf, bytes, MPI_BYTE, peer, THEMIS_PROBE_TAG, p2p,
                                   MPI_STATUS_IGNORE));
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(send(buf, reply_bytes, MPI_BYTE, peer, THEMIS_PROBE_TAG,
                                       MCA_PML_BASE_SEND_STANDARD, p2p));
            }
        }
    }
    *elapsed_ns = themis_now_ns() - t0;
    return rc;
}

/*
 * Each dimension in turn: ranks pair with the neighbour whose coordinate
 * differs in the lowest bit, all pairs at once (as the dimension is used).
 * The lower coordinate measures: latency = half the round trip of 8 bytes,
 * bandwidth = 1 MiB one way (minus the round trip of the small reply).
 * One allreduce through the previous module then takes the largest latency
 * and the smallest bandwidth of every dimension, so all ranks agree.
 */
int mca_coll_themis_dims_probe(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                               const mca_coll_themis_shape_t *shape, uint64_t *bw_bps,
                               themis_time_t *lat_ps)
{
    const int me = ompi_comm_rank(comm);
    const int *map = m->coord_to_rank;
    uint64_t v[2 * THEMIS_MAX_DIMS];
    char *buf = malloc(THEMIS_PROBE_BW_BYTES);
    int rc = OMPI_SUCCESS, rc2, idx = me, stride = 1;

    /* With a rank map, coordinates are those of this rank's index in it
     * (place values then are the index's strides). */
    for (int k = 0; NULL != map && k < ompi_comm_size(comm); ++k) {
        if (me == map[k]) {
            idx = k;
        }
    }
    memset(v, 0, sizeof(v));
    for (int i = 0; i < shape->ndims && OMPI_SUCCESS == rc && NULL != buf;
         stride *= (int) shape->size[i], ++i) {
        const int place = NULL != map ? stride : shape->place[i];
        const int c = (idx / place) % (int) shape->size[i];
        const int pc = c ^ 1;
        uint64_t lat_ns, bw_ns;

        if (pc >= (int) shape->size[i]) {
            continue;
        }
        const int peer_idx = idx + (pc - c) * place;
        const int peer = NULL != map ? map[peer_idx] : peer_idx;
        const bool initiator = c < pc;

        rc = pingpong(m->p2p_comm, peer, initiator, buf, 8, 8, THEMIS_PROBE_LAT_ITERS, &lat_ns);
        if (OMPI_SUCCESS == rc) {
            rc = pingpong(m->p2p_comm, peer, initiator, buf, THEMIS_PROBE_BW_BYTES, 8,
                          THEMIS_PROBE_BW_ITERS, &bw_ns);
        }
        if (OMPI_SUCCESS == rc && initiator) {
            const uint64_t rtt_ns = lat_ns / THEMIS_PROBE_LAT_ITERS;
            uint64_t one_way_ns = bw_ns / THEMIS_PROBE_BW_ITERS;
            uint64_t bps;

            one_way_ns = one_way_ns > rtt_ns ? one_way_ns - rtt_ns : one_way_ns;
            if (0 == one_way_ns) {
                one_way_ns = 1;
            }
            bps = (uint64_t) THEMIS_PROBE_BW_BYTES * 8ULL * 1000000000ULL / one_way_ns;
            v[i] = (rtt_ns / 2) * 1000ULL;                    /* ps, max over ranks */
            v[THEMIS_MAX_DIMS + i] = UINT64_MAX - (0 == bps ? 1 : bps); /* min bw */
        }
    }
    free(buf);
    if (NULL == buf && OMPI_SUCCESS == rc) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }

    /* Every rank joins the agreement even after a local failure, so that no
     * rank is left waiting; the failure then shows in the result. */
    if (OMPI_SUCCESS != rc) {
        v[0] = UINT64_MAX;
    }
    rc2 = m->prev[MCA_COLL_THEMIS_ALLREDUCE].fn.allreduce(
        MPI_IN_PLACE, v, 2 * THEMIS_MAX_DIMS, MPI_UINT64_T, MPI_MAX, comm,
        m->prev[MCA_COLL_THEMIS_ALLREDUCE].module);
    if (OMPI_SUCCESS != rc2) {
        return rc2;
    }
    if (UINT64_MAX == v[0]) {
        return OMPI_SUCCESS == rc ? OMPI_ERROR : rc;
    }
    for (int i = 0; i < shape->ndims; ++i) {
        if (0 != v[i]) {
            lat_ps[i] = v[i];
        }
        if (0 != v[THEMIS_MAX_DIMS + i]) {
            bw_bps[i] = UINT64_MAX - v[THEMIS_MAX_DIMS + i];
        }
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: probe dim %d (%u ranks): %llu bit/s, %llu ps",
                            comm->c_name, i, shape->size[i], (unsigned long long) bw_bps[i],
                            (unsigned long long) lat_ps[i]);
    }
    return OMPI_SUCCESS;
}
