/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The generators' transfer sink (xfer_sink.h).
 */
#include "xfer_sink.h"

#include <stdlib.h>

#include "util.h"

/* Tag idx (and the sink's label) for the slice's next transfer. */
static themis_status_t slice_tag(themis_xfer_sink_t *k, uint32_t idx)
{
    themis_xfer_slice_t *sl = k->sl;
    uint32_t cap = sl->s.nxfers < sl->cap_tag ? sl->cap_tag
                   : 0 == sl->cap_tag         ? 64
                                              : 2 * sl->cap_tag;
    if (cap != sl->cap_tag) {
        uint32_t *t = realloc(sl->tag, (size_t) cap * sizeof(*t));
        if (NULL == t) {
            return THEMIS_ERR_NOMEM;
        }
        sl->tag = t;
    }
    if (k->labelled && (cap != sl->cap_tag || NULL == sl->label)) {
        uint64_t *l = realloc(sl->label, (size_t) cap * sizeof(*l));
        if (NULL == l) {
            return THEMIS_ERR_NOMEM;
        }
        sl->label = l;
    }
    sl->cap_tag = cap;
    sl->tag[sl->s.nxfers] = idx;
    if (k->labelled) {
        sl->label[sl->s.nxfers] = k->label;
    }
    return THEMIS_OK;
}

/* Transfer x with transfer k->stamp_from's dependencies, stamp_shift on. */
static themis_status_t stamp_add(themis_xfer_sink_t *k, const themis_xfer_t *x)
{
    themis_xfer_tracker_t *tr = &k->tr;
    const themis_xfer_sched_t *s = tr->s;
    if (k->stamp_from >= s->nxfers) {
        return THEMIS_ERR_INVALID;
    }
    const themis_xfer_t *from = &s->xfers[k->stamp_from++];
    if (0 != themis_grow((void **) &tr->deps, from->ndeps, &tr->cap_deps, sizeof(*tr->deps),
                         16u)) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t d = 0; d < from->ndeps; d++) {
        tr->deps[d] = s->deps[from->dep_first + d] + k->stamp_shift;
    }
    k->stamp_left--;
    return k->stamp_unnoted ? themis_xfer_add(tr->s, x, tr->deps, from->ndeps, NULL)
                            : themis_xfer_tracker_append(tr, x, tr->deps, from->ndeps);
}

themis_status_t themis_xfer_sink_add(themis_xfer_sink_t *k, uint32_t src, uint32_t dst,
                                     uint8_t kind, uint8_t src_buf, uint64_t src_off,
                                     uint8_t dst_buf, uint64_t dst_off, uint64_t count)
{
    themis_xfer_slice_t *sl = k->sl;
    uint32_t idx = k->next++;
    const themis_xfer_t x = {.src = src, .dst = dst, .kind = kind, .src_buf = src_buf,
                             .dst_buf = dst_buf, .src_off = src_off, .dst_off = dst_off,
                             .count = count};
    if (0 < k->stamp_left && NULL == sl) {
        return stamp_add(k, &x);
    }
    if (NULL != sl) {
        if (src != sl->rank && dst != sl->rank) {
            return THEMIS_OK;
        }
        themis_status_t st = slice_tag(k, idx);
        if (THEMIS_OK != st) {
            return st;
        }
    }
    return themis_xfer_tracker_add_xfer(&k->tr, &x, UINT32_MAX, NULL);
}

static int watched(const themis_xfer_sink_t *k, uint8_t buf, uint64_t off, uint64_t count)
{
    return buf == k->watch_buf && off < k->watch_hi && off + count > k->watch_lo;
}

/* Copy c of run r's stored slot, noted in the tracker under ids from id
 * on (periodic slices keep it out of the list): all of it, or its
 * transfers that touch the watched units (none watched: nothing). */
static themis_status_t note_copy(themis_xfer_sink_t *k, const themis_xfer_slice_run_t *r,
                                 uint32_t c, uint32_t id, int all)
{
    themis_status_t st = THEMIS_OK;
    if (!all && k->watch_lo >= k->watch_hi) {
        return st;
    }
    uint64_t sh[THEMIS_NBUFS];
    for (int b = 0; b < THEMIS_NBUFS; b++) {
        sh[b] = c * themis_xfer_slice_run_shift(r, (uint8_t) b);
    }
    const themis_xfer_t *slot = &k->sl->s.xfers[r->store];
    for (uint32_t i = 0; i < r->len && THEMIS_OK == st; i++) {
        const themis_xfer_t *y = &slot[i];
        const uint64_t so = y->src_off + sh[y->src_buf], dso = y->dst_off + sh[y->dst_buf];
        if (all || watched(k, y->src_buf, so, y->count) || watched(k, y->dst_buf, dso, y->count)) {
            themis_xfer_t x = *y;
            x.src_off = so;
            x.dst_off = dso;
            st = themis_xfer_tracker_note(&k->tr, &x, id + i);
        }
    }
    return st;
}

/* themis_xfer_sink_repeat of a periodic slice (transfer_slice.h): the
 * slot joins the last run where it is its next copy, else opens a run
 * whose copy 0 is the previous slot, stored at the list's tail.  first,
 * keep and reach are ids (logical indices). */
static themis_status_t repeat_run(themis_xfer_sink_t *k, uint32_t first, uint32_t keep,
                                  uint32_t keep_shift, uint32_t reach, uint32_t tag_span,
                                  uint64_t unit_shift, uint64_t scratch_shift, int noted)
{
    themis_xfer_slice_t *sl = k->sl;
    themis_xfer_sched_t *s = &sl->s;
    themis_xfer_tracker_t *tr = &k->tr;
    const uint32_t lend = s->nxfers + tr->id_shift;
    if (first > lend || first == lend || keep > reach || reach > first) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    const uint32_t len = lend - first;
    themis_xfer_slice_run_t *r = 0 < sl->nruns ? &sl->runs[sl->nruns - 1] : NULL;
    themis_status_t st = THEMIS_OK;
    if (NULL != r && r->at + (uint64_t) r->len * r->count == lend && r->len == len
        && r->unit_shift == unit_shift && r->scratch_shift == scratch_shift
        && r->tag_span == tag_span && r->keep == keep && r->keep_shift == keep_shift) {
        st = note_copy(k, r, r->count, lend, noted);
        r->count++;
    } else {
        if (first < tr->id_shift || (NULL != r && first - tr->id_shift < r->store + r->len)) {
            return THEMIS_ERR_UNSUPPORTED;   /* the previous slot is not stored */
        }
        const uint32_t store = first - tr->id_shift;
        for (uint32_t i = store; i < s->nxfers; i++) {
            const themis_xfer_t *x = &s->xfers[i];
            for (uint32_t d = 0; d < x->ndeps; d++) {
                uint32_t dep = s->deps[x->dep_first + d];
                if ((dep >= keep && dep < reach) || (dep < keep && dep + keep_shift >= keep)) {
                    return THEMIS_ERR_UNSUPPORTED;
                }
            }
        }
        if (0 != themis_grow((void **) &sl->runs, sl->nruns, &sl->cap_runs, sizeof(*sl->runs),
                             16u)) {
            return THEMIS_ERR_NOMEM;
        }
        sl->runs[sl->nruns++] = (themis_xfer_slice_run_t) {
            .at = first, .store = store, .len = len, .count = 2, .keep = keep,
            .keep_shift = keep_shift, .tag_span = tag_span, .unit_shift = unit_shift,
            .scratch_shift = scratch_shift};
        st = note_copy(k, &sl->runs[sl->nruns - 1], 1, lend, noted);
    }
    tr->id_shift += len;
    k->next += tag_span;
    return st;
}

themis_status_t themis_xfer_sink_repeat(themis_xfer_sink_t *k, uint32_t first, uint32_t keep,
                                        uint32_t keep_shift, uint32_t reach, uint32_t tag_span,
                                        uint64_t unit_shift, uint64_t scratch_shift, int noted)
{
    themis_xfer_slice_t *sl = k->sl;
    if (NULL != sl && sl->periodic && !k->labelled) {
        return repeat_run(k, first, keep, keep_shift, reach, tag_span, unit_shift, scratch_shift,
                          noted);
    }
    if (NULL == sl || k->labelled || first > sl->s.nxfers || keep > reach || reach > first) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_xfer_sched_t *s = &sl->s;
    const uint32_t end = s->nxfers, len = end - first;
    for (uint32_t i = first; i < end; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        for (uint32_t d = 0; d < x->ndeps; d++) {
            uint32_t dep = s->deps[x->dep_first + d];
            if ((dep >= keep && dep < reach) || (dep < keep && dep + keep_shift >= keep)) {
                return THEMIS_ERR_UNSUPPORTED;   /* a slot of another length, or past the copies */
            }
        }
    }
    themis_xfer_tracker_t *tr = &k->tr;
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = first; i < end && THEMIS_OK == st; i++) {
        themis_xfer_t x = s->xfers[i];   /* a copy: appending may move the list */
        tr->ndeps = 0;
        for (uint32_t d = 0; d < x.ndeps && THEMIS_OK == st; d++) {
            if (0 != themis_grow((void **) &tr->deps, tr->ndeps, &tr->cap_deps,
                                 sizeof(*tr->deps), 16u)) {
                st = THEMIS_ERR_NOMEM;
                break;
            }
            uint32_t dep = s->deps[x.dep_first + d];
            tr->deps[tr->ndeps++] = dep >= reach ? dep + len : dep + keep_shift;
        }
        x.src_off += THEMIS_BUF_SCRATCH == x.src_buf ? scratch_shift : unit_shift;
        x.dst_off += THEMIS_BUF_SCRATCH == x.dst_buf ? scratch_shift : unit_shift;
        if (THEMIS_OK == st) {
            st = slice_tag(k, sl->tag[i] + tag_span);
        }
        if (THEMIS_OK == st) {
            st = themis_xfer_tracker_append(tr, &x, tr->deps, tr->ndeps);
        }
    }
    k->next += tag_span;
    return st;
}

themis_status_t themis_xfer_slice_reserve(themis_xfer_slice_t *sl, uint64_t n)
{
    if (NULL == sl) {
        return THEMIS_OK;
    }
    n = n < UINT32_MAX / 4 ? n : UINT32_MAX / 4;
    n = 0 == n ? 1 : n;
    sl->tag = malloc((size_t) n * sizeof(*sl->tag));
    if (NULL == sl->tag) {
        return THEMIS_ERR_NOMEM;
    }
    sl->cap_tag = (uint32_t) n;
    return themis_xfer_reserve(&sl->s, n, 3 * n);
}

themis_status_t themis_xfer_slice_done(themis_xfer_slice_t *sl, themis_status_t st)
{
    if (THEMIS_OK != st) {
        themis_xfer_slice_free(sl);
    }
    return st;
}
