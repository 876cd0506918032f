/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A row's transfer lists per collective and key (xfer_memo.h): a linked
 * list, so that a kept list never moves.
 */
#include "xfer_memo.h"

#include <stdlib.h>
#include <string.h>

struct themis_xfer_memo_entry {
    themis_xfer_memo_entry_t *next;
    themis_coll_t coll;
    uint64_t key;
    themis_xfer_sched_t s;
};

const themis_xfer_sched_t *themis_xfer_memo_find(const themis_xfer_memo_t *m, themis_coll_t coll,
                                                 uint64_t key)
{
    for (const themis_xfer_memo_entry_t *e = NULL != m ? m->first : NULL; NULL != e;
         e = e->next) {
        if (e->coll == coll && e->key == key) {
            return &e->s;
        }
    }
    return NULL;
}

const themis_xfer_sched_t *themis_xfer_memo_keep(themis_xfer_memo_t *m, themis_coll_t coll,
                                                 uint64_t key, themis_xfer_sched_t *s)
{
    themis_xfer_memo_entry_t *e = NULL != m ? calloc(1, sizeof(*e)) : NULL;
    if (NULL == e) {
        return s;
    }
    e->coll = coll;
    e->key = key;
    e->s = *s;
    memset(s, 0, sizeof(*s));
    e->next = m->first;
    m->first = e;
    return &e->s;
}

void themis_xfer_memo_free(themis_xfer_memo_t *m)
{
    while (NULL != m && NULL != m->first) {
        themis_xfer_memo_entry_t *e = m->first;
        m->first = e->next;
        themis_xfer_free(&e->s);
        free(e);
    }
}
