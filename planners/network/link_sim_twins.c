/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Twin parts of a routed schedule (link_sim_twins.h): the parts by
 * union-find over dependencies and shared links, then parts of one size
 * compared transfer by transfer with the first of each form.
 */
#include "link_sim_twins.h"

#include <stdlib.h>
#include <string.h>

#include "union_find.h"
#include "util.h"

#define NONE UINT32_MAX

typedef struct {
    const themis_graph_t *g;
    const themis_xfer_sched_t *s;
    const uint32_t *route_first, *nhops, *route;
    const uint32_t *first, *members;   /* part p: members[first[p] .. first[p + 1]) */
    const uint32_t *pos;               /* [nxfers] a transfer's position in its part, NONE: loose */
    const uint32_t *lpos;              /* [nlinks] a link's number in its part */
} parts_t;

/* 1 where parts a and b are twins: equal sizes, and transfer by transfer
 * the same count, dependencies' positions, and links (numbers, rates). */
static int twins(const parts_t *pt, uint32_t a, uint32_t b)
{
    const themis_xfer_sched_t *s = pt->s;
    if (pt->first[a + 1] - pt->first[a] != pt->first[b + 1] - pt->first[b]) {
        return 0;
    }
    for (uint32_t k = 0; k < pt->first[a + 1] - pt->first[a]; ++k) {
        const uint32_t i = pt->members[pt->first[a] + k], j = pt->members[pt->first[b] + k];
        const themis_xfer_t *x = &s->xfers[i], *y = &s->xfers[j];
        if (x->count != y->count || x->ndeps != y->ndeps || pt->nhops[i] != pt->nhops[j]) {
            return 0;
        }
        for (uint32_t d = 0; d < x->ndeps; ++d) {
            if (pt->pos[s->deps[x->dep_first + d]] != pt->pos[s->deps[y->dep_first + d]]) {
                return 0;
            }
        }
        for (uint32_t q = 0; q < pt->nhops[i]; ++q) {
            const uint32_t l = pt->route[pt->route_first[i] + q];
            const uint32_t m = pt->route[pt->route_first[j] + q];
            if (pt->lpos[l] != pt->lpos[m] || pt->g->links[l].bw_bps != pt->g->links[m].bw_bps
                || pt->g->links[l].lat_ps != pt->g->links[m].lat_ps) {
                return 0;
            }
        }
    }
    return 1;
}

/* Root r (NONE: none yet) joined with earlier transfer j's: the least. */
static inline uint32_t join(uint32_t *uf, uint32_t r, uint32_t j)
{
    const uint32_t rj = themis_uf_find(uf, j);
    if (NONE == r || r == rj) {
        return rj;
    }
    if (r < rj) {
        uf[rj] = r;
        return r;
    }
    uf[r] = rj;
    return rj;
}

/* At most this many distinct forms of one size are compared against (a
 * part unlike all of them is simulated): parts unlike each other mostly
 * differ early, and few forms keep a schedule of many small parts from
 * taking parts squared. */
#define TWIN_FORMS 8u

themis_status_t themis_link_sim_twins(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                      const uint32_t *route_first, const uint32_t *nhops,
                                      const uint32_t *route, const uint32_t *dep_first,
                                      uint8_t *skip, uint32_t *parts, uint32_t *skipped)
{
    const uint32_t n = s->nxfers;
    uint32_t nparts = 0, nskipped = 0;
    memset(skip, 0, (size_t) n);
    uint32_t *uf = malloc(((size_t) n + 1) * sizeof(*uf));
    uint32_t *owner = malloc(((size_t) g->nlinks + 1) * sizeof(*owner));
    uint8_t *loose = calloc((size_t) n + 1, 1);
    uint32_t *part = NULL, *pos = NULL;   /* once there are parts to compare */
    if (NULL == uf || NULL == owner || NULL == loose) {
        free(uf);
        free(owner);
        free(loose);
        return THEMIS_ERR_NOMEM;
    }
    /* Loose: a transfer without hops and without dependencies (done at 0)
     * or without dependents (done when its last dependency is, within the
     * total): it ties no parts together; a dependency on one is told by
     * its being loose alone (pos NONE).  Never skipped (a sink of skipped
     * parts just never runs). */
    for (uint32_t i = 0; NULL == dep_first && i < n; ++i) {
        for (uint32_t d = 0; d < s->xfers[i].ndeps; ++d) {
            loose[s->deps[s->xfers[i].dep_first + d]] = 1;   /* has a dependent */
        }
    }
    uint32_t nloose = 0;
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        owner[l] = NONE;
    }
    /* Union-find in list order: what transfer i joins (its dependencies,
     * the first users of its links) is earlier, so i starts alone and
     * takes the least root it meets (the smaller root survives, as
     * themis_uf_union: a part is named by its first transfer).  Its
     * dependencies are loose or not already; it is so here. */
    for (uint32_t i = 0; i < n; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        const int dependents = NULL != dep_first ? dep_first[i + 1] != dep_first[i] : loose[i];
        loose[i] = 0 == nhops[i] && (0 == x->ndeps || !dependents);
        nloose += loose[i];
        uint32_t r = NONE;
        for (uint32_t d = 0; !loose[i] && d < x->ndeps; ++d) {
            if (!loose[s->deps[x->dep_first + d]]) {
                r = join(uf, r, s->deps[x->dep_first + d]);
            }
        }
        for (uint32_t q = 0; q < nhops[i]; ++q) {
            const uint32_t l = route[route_first[i] + q];
            if (NONE == owner[l]) {
                owner[l] = i;
            } else {
                r = join(uf, r, owner[l]);
            }
        }
        uf[i] = NONE == r ? i : r;
    }
    for (uint32_t i = 0; i < n; ++i) {
        nparts += uf[i] == i;
    }
    /* a loose transfer is a part alone: twins need two parts besides */
    const int some = nparts - nloose > 1;
    uint32_t *first = some ? calloc((size_t) nparts + 1, sizeof(*first)) : NULL;
    uint32_t *members = uf;   /* the parts are known: uf serves again */
    /* a part's size << 32 | the part, to sort by size, then part */
    uint64_t *sized = some ? malloc((size_t) (nparts - nloose) * sizeof(*sized)) : NULL;
    themis_status_t st = THEMIS_OK;
    if (some) {
        part = malloc((size_t) n * sizeof(*part));
        pos = malloc((size_t) n * sizeof(*pos));
        st = NULL == first || NULL == sized || NULL == part || NULL == pos ? THEMIS_ERR_NOMEM
                                                                           : THEMIS_OK;
    }
    if (some && THEMIS_OK == st) {
        /* parts numbered in the order of their first transfers (as
         * themis_uf_parts), which are their roots: the smaller root
         * survives, so uf[i] <= i (finds only halve paths) and i's part
         * is that of uf[i], numbered already; members by part, list
         * order kept; positions; links numbered by first use in their
         * part's order (a link is one part's alone) */
        for (uint32_t i = 0, np = 0; i < n; ++i) {
            part[i] = uf[i] == i ? np++ : part[uf[i]];
            first[part[i] + 1]++;
        }
        for (uint32_t p = 0; p < nparts; ++p) {
            first[p + 1] += first[p];
        }
        for (uint32_t i = 0; i < n; ++i) {
            pos[i] = first[part[i]]++;
            members[pos[i]] = i;
        }
        for (uint32_t p = nparts; p > 0; --p) {
            first[p] = first[p - 1];
        }
        first[0] = 0;
        for (uint32_t l = 0; l < g->nlinks; ++l) {
            owner[l] = NONE;   /* from here a link's number in its part */
        }
        for (uint32_t p = 0; p < nparts; ++p) {
            uint32_t nl = 0;
            for (uint32_t k = first[p]; k < first[p + 1]; ++k) {
                const uint32_t i = members[k];
                pos[i] = loose[i] ? NONE : k - first[p];
                for (uint32_t q = 0; q < nhops[i]; ++q) {
                    const uint32_t l = route[route_first[i] + q];
                    owner[l] = NONE == owner[l] ? nl++ : owner[l];
                }
            }
        }
        const parts_t pt = {g, s, route_first, nhops, route, first, members, pos, owner};
        uint32_t nsized = 0;
        for (uint32_t p = 0; p < nparts; ++p) {
            if (!loose[members[first[p]]]) {   /* loose ones are never compared */
                sized[nsized++] = (uint64_t) (first[p + 1] - first[p]) << 32 | p;
            }
        }
        /* a form's first part is the earliest */
        qsort(sized, nsized, sizeof(*sized), themis_cmp_u64);
        for (uint32_t a = 0, run = 0; a < nsized; a = run) {
            uint32_t forms[TWIN_FORMS], nforms = 0;
            for (run = a; run < nsized && sized[run] >> 32 == sized[a] >> 32; ++run) {
                const uint32_t p = (uint32_t) sized[run];
                uint32_t f = 0;
                while (f < nforms && !twins(&pt, forms[f], p)) {
                    ++f;
                }
                if (f < nforms) {
                    nskipped++;
                    for (uint32_t k = first[p]; k < first[p + 1]; ++k) {
                        skip[members[k]] = 1;
                    }
                } else if (nforms < TWIN_FORMS) {
                    forms[nforms++] = p;
                }
            }
        }
    }
    if (NULL != parts) {
        *parts = nparts;
    }
    if (NULL != skipped) {
        *skipped = nskipped;
    }
    free(uf);
    free(part);
    free(pos);
    free(owner);
    free(loose);
    free(first);
    free(sized);
    return st;
}
