/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Transfer schedules (transfer.h): construction and hashing.
 */
#include "transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "radix.h"

void themis_xfer_init(themis_xfer_sched_t *s, themis_coll_t coll, uint32_t nranks,
                      uint32_t nunits)
{
    memset(s, 0, sizeof(*s));
    s->coll = coll;
    s->nranks = nranks;
    s->nunits = nunits;
    s->result_buf = THEMIS_BUF_OUTPUT;
}

themis_status_t themis_xfer_add_full(themis_xfer_sched_t *s, const themis_xfer_t *x,
                                     const uint32_t *deps, uint32_t ndeps, uint32_t *idx)
{
    if (s->nxfers == s->cap_xfers) {
        uint32_t cap = s->cap_xfers ? 2 * s->cap_xfers : 64;
        themis_xfer_t *n = realloc(s->xfers, (size_t) cap * sizeof(*n));
        if (NULL == n || cap <= s->cap_xfers) {
            return THEMIS_ERR_NOMEM;
        }
        s->xfers = n;
        s->cap_xfers = cap;
    }
    if (ndeps > UINT32_MAX - s->ndeps) {
        return THEMIS_ERR_NOMEM;
    }
    if (s->ndeps + ndeps > s->cap_deps) {
        uint32_t cap = s->cap_deps ? s->cap_deps : 64;
        while (cap < s->ndeps + ndeps) {
            if (cap > UINT32_MAX / 2) {
                return THEMIS_ERR_NOMEM;
            }
            cap *= 2;
        }
        uint32_t *n = realloc(s->deps, (size_t) cap * sizeof(*n));
        if (NULL == n) {
            return THEMIS_ERR_NOMEM;
        }
        s->deps = n;
        s->cap_deps = cap;
    }
    themis_xfer_t *t = &s->xfers[s->nxfers];
    *t = *x;
    t->dep_first = s->ndeps;
    t->ndeps = ndeps;
    /* a few each (most lists): a loop, not memcpy's call */
    for (uint32_t d = 0; d < ndeps; d++) {   /* deps may be NULL while ndeps is 0 */
        s->deps[s->ndeps + d] = deps[d];
    }
    s->ndeps += ndeps;
    if (NULL != idx) {
        *idx = s->nxfers;
    }
    s->nxfers++;
    return THEMIS_OK;
}

/* *v (of *cap elements of `size` bytes) with room for n: 0, else -1. */
static int room_for(void **v, uint32_t *cap, uint64_t n, size_t size)
{
    if (n > *cap) {
        void *r = n <= UINT32_MAX ? realloc(*v, (size_t) n * size) : NULL;
        if (NULL == r) {
            return -1;
        }
        *v = r;
        *cap = (uint32_t) n;
    }
    return 0;
}

themis_status_t themis_xfer_reserve(themis_xfer_sched_t *s, uint64_t nxfers, uint64_t ndeps)
{
    if (nxfers > UINT32_MAX || ndeps > UINT32_MAX
        || 0 != room_for((void **) &s->xfers, &s->cap_xfers, nxfers, sizeof(*s->xfers))
        || 0 != room_for((void **) &s->deps, &s->cap_deps, ndeps, sizeof(*s->deps))) {
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

typedef struct {
    uint64_t key;
    uint32_t index;
} sort_item_t;

/* items by key, ties in index order (stable: items start in index order),
 * as qsort by (key, index) gave, in O(n) passes rather than n log n
 * comparisons through a callback. */
#define SORT_ITEM_KEY(it) ((it)->key)
THEMIS_RADIX_DEFINE(radix_sort, sort_item_t, SORT_ITEM_KEY, 32u)

themis_status_t themis_xfer_sort(themis_xfer_sched_t *s, const uint64_t *key)
{
    uint32_t n = s->nxfers;
    sort_item_t *items = malloc(2 * ((size_t) n + 1) * sizeof(*items));
    uint32_t *pos = malloc(((size_t) n + 1) * sizeof(*pos));
    themis_xfer_t *xf = malloc(((size_t) n + 1) * sizeof(*xf));
    uint32_t *deps = malloc(((size_t) s->ndeps + 1) * sizeof(*deps));
    themis_status_t st = THEMIS_ERR_NOMEM;
    if (NULL == items || NULL == pos || NULL == xf || NULL == deps) {
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        items[i] = (sort_item_t) {.key = key[i], .index = i};
    }
    const sort_item_t *sorted = radix_sort(items, items + n + 1, n);
    for (uint32_t k = 0; k < n; k++) {
        pos[sorted[k].index] = k;
    }
    uint32_t nd = 0;
    st = THEMIS_OK;
    for (uint32_t k = 0; k < n && THEMIS_OK == st; k++) {
        const themis_xfer_t *t = &s->xfers[sorted[k].index];
        xf[k] = *t;
        xf[k].dep_first = nd;
        for (uint32_t d = 0; d < t->ndeps; d++) {
            uint32_t to = pos[s->deps[t->dep_first + d]];
            st = to < k ? THEMIS_OK : THEMIS_ERR_INVALID;
            deps[nd++] = to;
        }
    }
    /* memcpy with a NULL pointer is undefined even for 0 bytes. */
    if (THEMIS_OK == st && n > 0) {
        memcpy(s->xfers, xf, (size_t) n * sizeof(*xf));
    }
    if (THEMIS_OK == st && nd > 0) {
        memcpy(s->deps, deps, (size_t) nd * sizeof(*deps));
    }
out:
    free(items);
    free(pos);
    free(xf);
    free(deps);
    return st;
}

themis_status_t themis_xfer_copy(const themis_xfer_sched_t *s, themis_xfer_sched_t *out)
{
    *out = *s;
    out->cap_xfers = s->nxfers;
    out->cap_deps = s->ndeps;
    out->xfers = 0 < s->nxfers ? malloc((size_t) s->nxfers * sizeof(*out->xfers)) : NULL;
    out->deps = 0 < s->ndeps ? malloc((size_t) s->ndeps * sizeof(*out->deps)) : NULL;
    out->unit_off = NULL != s->unit_off
                        ? malloc(((size_t) s->nunits + 1) * sizeof(*out->unit_off))
                        : NULL;
    if ((0 < s->nxfers && NULL == out->xfers) || (0 < s->ndeps && NULL == out->deps)
        || (NULL != s->unit_off && NULL == out->unit_off)) {
        themis_xfer_free(out);
        return THEMIS_ERR_NOMEM;
    }
    if (0 < s->nxfers) {
        memcpy(out->xfers, s->xfers, (size_t) s->nxfers * sizeof(*out->xfers));
    }
    if (0 < s->ndeps) {
        memcpy(out->deps, s->deps, (size_t) s->ndeps * sizeof(*out->deps));
    }
    if (NULL != s->unit_off) {
        memcpy(out->unit_off, s->unit_off, ((size_t) s->nunits + 1) * sizeof(*out->unit_off));
    }
    return THEMIS_OK;
}

void themis_xfer_free(themis_xfer_sched_t *s)
{
    if (NULL != s) {
        free(s->xfers);
        free(s->deps);
        free(s->unit_off);
        memset(s, 0, sizeof(*s));
    }
}

uint64_t themis_xfer_hash(const themis_xfer_sched_t *s)
{
    uint64_t h = THEMIS_FNV_OFFSET;
    h = themis_fnv1a_u64(h, (uint64_t) s->coll);
    h = themis_fnv1a_u64(h, s->nranks);
    h = themis_fnv1a_u64(h, s->nunits);
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        h = themis_fnv1a_u64(h, s->buf_units[b]);
    }
    h = themis_fnv1a_u64(h, (uint64_t) s->result_buf);
    /* The flat layout hashes as it did before nested ones existed. */
    for (uint32_t l = 0; l < s->nsplit && l < THEMIS_XFER_MAX_SPLIT; ++l) {
        h = themis_fnv1a_u64(h, s->split[l]);
        h = 0 != s->split_alt_from ? themis_fnv1a_u64(h, s->split_alt[l]) : h;
    }
    h = 0 != s->split_alt_from ? themis_fnv1a_u64(h, s->split_alt_from) : h;
    for (uint32_t g = 0; NULL != s->unit_off && g <= s->nunits; ++g) {
        h = themis_fnv1a_u64(h, s->unit_off[g]);
    }
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        h = themis_fnv1a_u64(h, ((uint64_t) x->src << 32) | x->dst);
        h = themis_fnv1a_u64(h, ((uint64_t) x->kind << 16) | ((uint64_t) x->src_buf << 8)
                                    | x->dst_buf);
        h = themis_fnv1a_u64(h, x->src_off);
        h = themis_fnv1a_u64(h, x->dst_off);
        h = themis_fnv1a_u64(h, x->count);
        h = themis_fnv1a_u64(h, x->ndeps);
        for (uint32_t k = 0; k < x->ndeps; ++k) {
            h = themis_fnv1a_u64(h, s->deps[x->dep_first + k]);
        }
    }
    return h;
}

/* ------------------------------------------------------------------ check */

#define WHY(...) (snprintf(why, len, __VA_ARGS__), THEMIS_ERR_INVALID)

static const char *buf_name(uint8_t b)
{
    static const char *names[THEMIS_NBUFS] = {"input", "output", "scratch"};
    return b < THEMIS_NBUFS ? names[b] : "?";
}

/* Buffer sizes the collective needs (transfer.h, "Buffers"). */
static themis_status_t check_shape(const themis_xfer_sched_t *s, char *why, size_t len)
{
    const uint64_t *b = s->buf_units;
    uint32_t p = s->nranks;

    if (0 == p || 0 == s->nunits) {
        return WHY("a schedule needs ranks (%u) and units (%u)", p, s->nunits);
    }
    if (THEMIS_BUF_INPUT != s->result_buf && THEMIS_BUF_OUTPUT != s->result_buf) {
        return WHY("the result must be in the input or the output buffer");
    }
    switch (s->coll) {
    case THEMIS_COLL_ALLREDUCE:
        if (b[THEMIS_BUF_INPUT] != s->nunits
            || (THEMIS_BUF_OUTPUT == s->result_buf && b[THEMIS_BUF_OUTPUT] != s->nunits)) {
            return WHY("allreduce over %u units needs input and result buffers of %u units "
                       "(input %llu, output %llu)", s->nunits, s->nunits,
                       (unsigned long long) b[THEMIS_BUF_INPUT],
                       (unsigned long long) b[THEMIS_BUF_OUTPUT]);
        }
        break;
    case THEMIS_COLL_ALLGATHER:
    case THEMIS_COLL_REDUCE_SCATTER: {
        int ag = THEMIS_COLL_ALLGATHER == s->coll;
        uint64_t small = ag ? b[THEMIS_BUF_INPUT] : b[THEMIS_BUF_OUTPUT];
        uint64_t whole = ag ? b[THEMIS_BUF_OUTPUT] : b[THEMIS_BUF_INPUT];
        if (0 != s->nunits % p || small != s->nunits / p || whole != s->nunits
            || THEMIS_BUF_OUTPUT != s->result_buf) {
            return WHY("%s over %u ranks and %u units needs an %s of %u units per rank and "
                       "an %s of %u units, result in the output (it has %llu and %llu)",
                       themis_coll_name(s->coll), p, s->nunits, ag ? "input" : "output",
                       s->nunits / p, ag ? "output" : "input", s->nunits,
                       (unsigned long long) small, (unsigned long long) whole);
        }
        break;
    }
    default:
        return WHY("unknown collective %d", (int) s->coll);
    }
    uint64_t per = THEMIS_COLL_ALLREDUCE == s->coll ? s->nunits : s->nunits / p, levels = 1;
    uint64_t alt = 1;
    for (uint32_t l = 0; l < s->nsplit && l < THEMIS_XFER_MAX_SPLIT && levels <= per
                         && alt <= per; ++l) {
        levels *= s->split[l];
        alt *= 0 == l ? s->split[0] : s->split_alt[l];
    }
    if (s->nsplit > THEMIS_XFER_MAX_SPLIT || (0 != s->nsplit && levels != per)
        || (0 != s->nsplit && 0 != s->split_alt_from && alt != per)) {
        return WHY("%u split levels do not make the %llu units of a block", s->nsplit,
                   (unsigned long long) per);
    }
    return THEMIS_OK;
}

static themis_status_t check_transfer(const themis_xfer_sched_t *s, uint32_t i, char *why,
                                      size_t len)
{
    const themis_xfer_t *x = &s->xfers[i];
    if (x->src >= s->nranks || x->dst >= s->nranks) {
        return WHY("transfer %u: rank %u -> %u outside 0..%u", i, x->src, x->dst,
                   s->nranks - 1);
    }
    if (x->kind > THEMIS_XFER_REDUCE || x->src_buf >= THEMIS_NBUFS
        || x->dst_buf >= THEMIS_NBUFS) {
        return WHY("transfer %u: unknown kind or buffer", i);
    }
    if (0 == x->count) {
        return WHY("transfer %u (rank %u -> %u): empty", i, x->src, x->dst);
    }
    if (x->src_off > s->buf_units[x->src_buf]
        || x->count > s->buf_units[x->src_buf] - x->src_off
        || x->dst_off > s->buf_units[x->dst_buf]
        || x->count > s->buf_units[x->dst_buf] - x->dst_off) {
        return WHY("transfer %u (rank %u -> %u): %s units %llu..%llu -> %s units %llu..%llu "
                   "outside the buffers (%llu, %llu units)", i, x->src, x->dst,
                   buf_name(x->src_buf), (unsigned long long) x->src_off,
                   (unsigned long long) (x->src_off + x->count - 1), buf_name(x->dst_buf),
                   (unsigned long long) x->dst_off,
                   (unsigned long long) (x->dst_off + x->count - 1),
                   (unsigned long long) s->buf_units[x->src_buf],
                   (unsigned long long) s->buf_units[x->dst_buf]);
    }
    if (x->src == x->dst && x->src_buf == x->dst_buf && x->src_off < x->dst_off + x->count
        && x->dst_off < x->src_off + x->count) {
        return WHY("transfer %u: local %s on rank %u overlaps itself", i,
                   THEMIS_XFER_COPY == x->kind ? "copy" : "reduce", x->src);
    }
    if (x->dep_first > s->ndeps || x->ndeps > s->ndeps - x->dep_first) {
        return WHY("transfer %u: dependencies outside the list", i);
    }
    for (uint32_t k = 0; k < x->ndeps; ++k) {
        uint32_t d = s->deps[x->dep_first + k];
        if (d >= i) {
            return WHY("transfer %u depends on transfer %u, which is not earlier in the list "
                       "(a cycle, or not in a topological order)", i, d);
        }
        for (uint32_t m = 0; m < k; ++m) {
            if (s->deps[x->dep_first + m] == d) {
                return WHY("transfer %u lists dependency %u twice", i, d);
            }
        }
    }
    return THEMIS_OK;
}

/* Per (rank, buffer, unit): who wrote it last, who read it since. */
typedef struct {
    uint32_t writer;            /* UINT32_MAX: nobody in the schedule */
    uint32_t nreaders, cap;
    uint32_t *readers;
} unit_use_t;

typedef struct {
    const themis_xfer_sched_t *s;
    uint64_t *reach;            /* [n][words]: transitive dependencies */
    size_t words;
    unit_use_t *use;
    uint64_t base[THEMIS_NBUFS];/* unit index of each buffer within a rank */
    uint64_t per_rank;
} race_t;

static int reaches(const race_t *r, uint32_t later, uint32_t earlier)
{
    return (r->reach[(size_t) later * r->words + earlier / 64] >> (earlier % 64)) & 1;
}

static unit_use_t *use_of(race_t *r, uint32_t rank, uint8_t buf, uint64_t unit)
{
    return &r->use[rank * r->per_rank + r->base[buf] + unit];
}

static themis_status_t race_msg(const race_t *r, uint32_t a, uint32_t b, uint32_t rank,
                                uint8_t buf, uint64_t unit, char *why, size_t len)
{
    const themis_xfer_t *x = &r->s->xfers[a], *y = &r->s->xfers[b];
    return WHY("race: transfers %u (rank %u -> %u) and %u (rank %u -> %u) both touch %s unit "
               "%llu of rank %u, one writing, and neither depends on the other", a, x->src,
               x->dst, b, y->src, y->dst, buf_name(buf), (unsigned long long) unit, rank);
}

/* Every earlier conflicting access to the units must be an ancestor. */
static themis_status_t race_access(race_t *r, uint32_t i, uint32_t rank, uint8_t buf,
                                   uint64_t off, uint64_t count, int writes, char *why,
                                   size_t len)
{
    for (uint64_t u = off; u < off + count; ++u) {
        unit_use_t *use = use_of(r, rank, buf, u);
        if (UINT32_MAX != use->writer && use->writer != i && !reaches(r, i, use->writer)) {
            return race_msg(r, use->writer, i, rank, buf, u, why, len);
        }
        if (!writes) {
            if (use->nreaders == use->cap) {
                uint32_t cap = use->cap ? 2 * use->cap : 4;
                uint32_t *n = realloc(use->readers, cap * sizeof(*n));
                if (NULL == n) {
                    return THEMIS_ERR_NOMEM;
                }
                use->readers = n;
                use->cap = cap;
            }
            use->readers[use->nreaders++] = i;
            continue;
        }
        for (uint32_t k = 0; k < use->nreaders; ++k) {
            uint32_t rd = use->readers[k];
            if (rd != i && !reaches(r, i, rd)) {
                return race_msg(r, rd, i, rank, buf, u, why, len);
            }
        }
        use->nreaders = 0;
        use->writer = i;
    }
    return THEMIS_OK;
}

static themis_status_t check_races(const themis_xfer_sched_t *s, char *why, size_t len)
{
    race_t r = {.s = s, .words = ((size_t) s->nxfers + 63) / 64};
    themis_status_t st = THEMIS_OK;

    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        r.base[b] = r.per_rank;
        r.per_rank += s->buf_units[b];
    }
    r.reach = calloc((size_t) s->nxfers * r.words + 1, sizeof(*r.reach));
    r.use = calloc((size_t) s->nranks * r.per_rank + 1, sizeof(*r.use));
    if (NULL == r.reach || NULL == r.use) {
        free(r.reach);
        free(r.use);
        return THEMIS_ERR_NOMEM;
    }
    for (size_t u = 0; u < (size_t) s->nranks * r.per_rank; ++u) {
        r.use[u].writer = UINT32_MAX;
    }
    for (uint32_t i = 0; THEMIS_OK == st && i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        uint64_t *mine = &r.reach[(size_t) i * r.words];
        for (uint32_t k = 0; k < x->ndeps; ++k) {
            uint32_t d = s->deps[x->dep_first + k];
            const uint64_t *theirs = &r.reach[(size_t) d * r.words];
            for (size_t w = 0; w <= d / 64; ++w) {
                mine[w] |= theirs[w];
            }
            mine[d / 64] |= 1ULL << (d % 64);
        }
        st = race_access(&r, i, x->src, x->src_buf, x->src_off, x->count, 0, why, len);
        if (THEMIS_OK == st && THEMIS_XFER_REDUCE == x->kind) {
            st = race_access(&r, i, x->dst, x->dst_buf, x->dst_off, x->count, 0, why, len);
        }
        if (THEMIS_OK == st) {
            st = race_access(&r, i, x->dst, x->dst_buf, x->dst_off, x->count, 1, why, len);
        }
    }
    for (size_t u = 0; u < (size_t) s->nranks * r.per_rank; ++u) {
        free(r.use[u].readers);
    }
    free(r.use);
    free(r.reach);
    return st;
}

/*
 * Symbolic execution: a unit's value is the global unit it is a piece of
 * and the set of ranks whose contributions it sums (allgather: the owner).
 */
typedef struct {
    uint32_t gid;               /* UINT32_MAX: undefined */
} sym_t;

typedef struct {
    const themis_xfer_sched_t *s;
    size_t words;               /* per contributor set */
    uint64_t base[THEMIS_NBUFS], per_rank;
    sym_t *val;
    uint64_t *set;
} symx_t;

static size_t sym_index(const symx_t *m, uint32_t rank, uint8_t buf, uint64_t unit)
{
    return (size_t) (rank * m->per_rank + m->base[buf] + unit);
}

static themis_status_t sym_step(symx_t *m, uint32_t i, char *why, size_t len)
{
    const themis_xfer_t *x = &m->s->xfers[i];
    for (uint64_t u = 0; u < x->count; ++u) {
        size_t a = sym_index(m, x->src, x->src_buf, x->src_off + u);
        size_t b = sym_index(m, x->dst, x->dst_buf, x->dst_off + u);
        uint64_t *sa = &m->set[a * m->words], *sb = &m->set[b * m->words];
        if (UINT32_MAX == m->val[a].gid) {
            return WHY("transfer %u (rank %u -> %u) reads %s unit %llu of rank %u, which "
                       "nobody wrote", i, x->src, x->dst, buf_name(x->src_buf),
                       (unsigned long long) (x->src_off + u), x->src);
        }
        if (THEMIS_XFER_COPY == x->kind) {
            m->val[b] = m->val[a];
            memcpy(sb, sa, m->words * sizeof(*sa));
            continue;
        }
        if (THEMIS_COLL_ALLGATHER == m->s->coll) {
            return WHY("transfer %u reduces, but an allgather only moves data", i);
        }
        if (UINT32_MAX == m->val[b].gid) {
            return WHY("transfer %u (rank %u -> %u) reduces into %s unit %llu of rank %u, "
                       "which nobody wrote", i, x->src, x->dst, buf_name(x->dst_buf),
                       (unsigned long long) (x->dst_off + u), x->dst);
        }
        if (m->val[a].gid != m->val[b].gid) {
            return WHY("transfer %u (rank %u -> %u) reduces block %u into block %u", i, x->src,
                       x->dst, m->val[a].gid, m->val[b].gid);
        }
        for (size_t w = 0; w < m->words; ++w) {
            if (0 != (sa[w] & sb[w])) {
                return WHY("transfer %u (rank %u -> %u) adds a rank's contribution to block %u "
                           "twice", i, x->src, x->dst, m->val[a].gid);
            }
            sb[w] |= sa[w];
        }
    }
    return THEMIS_OK;
}

/* The result rank r must hold in result unit k, as (gid, everyone?). */
static themis_status_t sym_final(const symx_t *m, char *why, size_t len)
{
    const themis_xfer_sched_t *s = m->s;
    uint64_t nres = THEMIS_COLL_REDUCE_SCATTER == s->coll ? s->nunits / s->nranks : s->nunits;
    uint32_t in_units = (uint32_t) s->buf_units[THEMIS_BUF_INPUT];

    for (uint32_t r = 0; r < s->nranks; ++r) {
        for (uint64_t k = 0; k < nres; ++k) {
            size_t a = sym_index(m, r, (uint8_t) s->result_buf, k);
            uint32_t want = (uint32_t) (THEMIS_COLL_REDUCE_SCATTER == s->coll ? r * nres + k : k);
            const uint64_t *set = &m->set[a * m->words];
            int full = 1;
            if (THEMIS_COLL_ALLGATHER == s->coll) {
                uint32_t owner = (uint32_t) (k / in_units);
                full = 0 != ((set[owner / 64] >> (owner % 64)) & 1);
            } else {
                for (uint32_t q = 0; q < s->nranks; ++q) {
                    full &= (int) ((set[q / 64] >> (q % 64)) & 1);
                }
            }
            if (m->val[a].gid != want || !full) {
                if (UINT32_MAX == m->val[a].gid) {
                    return WHY("rank %u ends without result unit %llu (nobody wrote it)", r,
                               (unsigned long long) k);
                }
                return WHY("rank %u ends with %s of block %u in result unit %llu, not %s of "
                           "block %u", r, full ? "data" : "a partial sum", m->val[a].gid,
                           (unsigned long long) k,
                           THEMIS_COLL_ALLGATHER == s->coll ? "the data" : "the full sum", want);
            }
        }
    }
    return THEMIS_OK;
}

static themis_status_t check_symbolic(const themis_xfer_sched_t *s, char *why, size_t len)
{
    symx_t m = {.s = s, .words = ((size_t) s->nranks + 63) / 64};
    themis_status_t st = THEMIS_OK;
    uint64_t in_units = s->buf_units[THEMIS_BUF_INPUT];

    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        m.base[b] = m.per_rank;
        m.per_rank += s->buf_units[b];
    }
    size_t n = (size_t) s->nranks * m.per_rank;
    m.val = malloc((n + 1) * sizeof(*m.val));
    m.set = calloc(n * m.words + 1, sizeof(*m.set));
    if (NULL == m.val || NULL == m.set) {
        free(m.val);
        free(m.set);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < s->nranks; ++r) {
        for (uint64_t u = 0; u < m.per_rank; ++u) {
            size_t a = (size_t) (r * m.per_rank + u);
            m.val[a].gid = UINT32_MAX;
            if (u < in_units) {
                m.val[a].gid = (uint32_t) (THEMIS_COLL_ALLGATHER == s->coll ? r * in_units + u : u);
                m.set[a * m.words + r / 64] |= 1ULL << (r % 64);
            }
        }
    }
    for (uint32_t i = 0; THEMIS_OK == st && i < s->nxfers; ++i) {
        st = sym_step(&m, i, why, len);
    }
    if (THEMIS_OK == st) {
        st = sym_final(&m, why, len);
    }
    free(m.val);
    free(m.set);
    return st;
}

/*
 * Before anything is allocated per unit: every unit of every rank's result
 * that does not start with its final value must be written by a transfer,
 * so the units written there add up to at least as many.  In time and
 * memory of the transfers, this refuses a schedule that leaves results
 * out (e.g. a large file with few transfers) before the checks that grow
 * with ranks x units.
 */
static themis_status_t check_coverage(const themis_xfer_sched_t *s, char *why, size_t len)
{
    uint64_t nres = THEMIS_COLL_REDUCE_SCATTER == s->coll ? s->nunits / s->nranks : s->nunits;
    uint64_t ready = 0;      /* result units that start final on each rank */

    if (1 == s->nranks) {
        return THEMIS_OK;
    }
    if (THEMIS_BUF_INPUT == s->result_buf && THEMIS_COLL_ALLGATHER == s->coll) {
        ready = s->buf_units[THEMIS_BUF_INPUT];
    }
    uint64_t *written = calloc(s->nranks, sizeof(*written));
    if (NULL == written) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        if (x->dst_buf == s->result_buf) {
            written[x->dst] += x->count;
        }
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t r = 0; THEMIS_OK == st && r < s->nranks; ++r) {
        if (written[r] + ready < nres) {
            st = WHY("rank %u: transfers write %llu units of its result buffer, which has %llu "
                     "to fill: the result cannot be complete", r,
                     (unsigned long long) written[r], (unsigned long long) (nres - ready));
        }
    }
    free(written);
    return st;
}

themis_status_t themis_xfer_check(const themis_xfer_sched_t *s, char *why, size_t len)
{
    themis_status_t st = check_shape(s, why, len);
    if (THEMIS_OK != st) {
        return st;
    }
    if (s->nxfers > THEMIS_XFER_CHECK_MAX) {
        snprintf(why, len, "%u transfers: more than the %u this check takes", s->nxfers,
                 THEMIS_XFER_CHECK_MAX);
        return THEMIS_ERR_UNSUPPORTED;
    }
    uint64_t per_rank = 0;
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        if (s->buf_units[b] > UINT32_MAX) {
            return WHY("%s buffer of %llu units: too large", buf_name((uint8_t) b),
                       (unsigned long long) s->buf_units[b]);
        }
        per_rank += s->buf_units[b];
    }
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        if (THEMIS_OK != (st = check_transfer(s, i, why, len))) {
            return st;
        }
    }
    /* What the checks below allocate: per unit of every rank its use and
     * symbolic value with a set of ranks; per transfer its ancestors.  When
     * that is more than a little, the cheap necessary check comes first
     * (for small schedules the precise messages below are better). */
    uint64_t units = per_rank * s->nranks;
    uint64_t need = units * (sizeof(unit_use_t) + sizeof(sym_t) +
                             8 * (((uint64_t) s->nranks + 63) / 64)) +
                    (uint64_t) s->nxfers * 8 * (((uint64_t) s->nxfers + 63) / 64);
    if (need > (16u << 20) && THEMIS_OK != (st = check_coverage(s, why, len))) {
        return st;
    }
    if (need > THEMIS_XFER_CHECK_MAX_BYTES) {
        snprintf(why, len, "%u ranks x %llu units per rank and %u transfers: checking would "
                 "take %llu MiB (limit %u MiB)", s->nranks, (unsigned long long) per_rank,
                 s->nxfers, (unsigned long long) (need >> 20), THEMIS_XFER_CHECK_MAX_BYTES >> 20);
        return THEMIS_ERR_UNSUPPORTED;
    }
    st = check_races(s, why, len);
    if (THEMIS_OK == st) {
        st = check_symbolic(s, why, len);
    }
    return st;
}
