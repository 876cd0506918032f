/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The transfer lists rows make while the cost table is built, per
 * collective and key (what the row makes a list from, e.g. its capped
 * chunk count): the table asks every row for its list at every
 * message-size class, and rings' or torus2d's list, made anew each time,
 * took longer than simulating it (10^5 transfers at 256 ranks).  A kept
 * list stays, at the same address, until the memo is freed with the
 * table's cache (algorithm.h themis_algo_input_t.lists), which keys what
 * it simulated by that address.
 */
#ifndef THEMIS_XFER_MEMO_H
#define THEMIS_XFER_MEMO_H

#include "transfer.h"

typedef struct themis_xfer_memo_entry themis_xfer_memo_entry_t;
typedef struct {
    themis_xfer_memo_entry_t *first;
} themis_xfer_memo_t;

/* The list kept for (coll, key), or NULL (m may be NULL). */
const themis_xfer_sched_t *themis_xfer_memo_find(const themis_xfer_memo_t *m, themis_coll_t coll,
                                                 uint64_t key);
/* *s kept for (coll, key) (s is emptied) and returned; s itself when m is
 * NULL or out of memory (then the caller frees it as before). */
const themis_xfer_sched_t *themis_xfer_memo_keep(themis_xfer_memo_t *m, themis_coll_t coll,
                                                 uint64_t key, themis_xfer_sched_t *s);
void themis_xfer_memo_free(themis_xfer_memo_t *m);

#endif
