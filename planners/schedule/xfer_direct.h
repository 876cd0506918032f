/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Direct algorithm (tacos.txt Sec. II-A, Fig. 6) as a transfer
 * schedule (transfer.h): every rank sends each other rank its share
 * straight, over whatever route the network takes (the link simulator:
 * themis_graph_route's shortest paths), P units (one block each).
 *
 *   reduce_scatter  INPUT P, SCRATCH P-1, OUTPUT 1: rank r copies its own
 *                   block INPUT r -> OUTPUT 0 and sends block q to rank q's
 *                   SCRATCH slot for r, which q folds into OUTPUT 0;
 *   allgather       INPUT 1, OUTPUT P: rank r copies INPUT -> OUTPUT r and
 *                   sends it to every other rank's OUTPUT r;
 *   allreduce       INPUT P, SCRATCH P-1, OUTPUT P: the reduce-scatter
 *                   into OUTPUT r, then its all-gather from there.
 * Sends are listed in rounds: in round s = 1 .. P-1 rank r sends to rank
 * r + s mod P, so that every rank sends and receives once per round.
 * Dependencies come from the conflict tracker (xfer_tracker.h).
 *
 * Routes: the link simulator routes each send over themis_graph_route's
 * shortest path.  With width W > 0 the ranks are a mesh or torus of rows
 * of W (rank x + W y) and each send goes dimension-ordered (tacos.txt
 * Fig. 6: xy-routing): first along the source's row to the node in the
 * destination's column, which keeps it in a SCRATCH slot and forwards it
 * along that column (a leg inside one row or column of a mesh has one
 * shortest path).  Those slots follow the P-1 above, as many as the most
 * any rank forwards.
 */
#ifndef THEMIS_XFER_DIRECT_H
#define THEMIS_XFER_DIRECT_H

#include "transfer.h"

/* 2 P (P - 1) + 2 P transfers at most: bounds time and memory. */
#define THEMIS_XFER_DIRECT_MAX_RANKS 1024u

/* xy_width: 0, or W dividing nranks (see Routes).  THEMIS_ERR_INVALID
 * for 0 or more than THEMIS_XFER_DIRECT_MAX_RANKS ranks, a width that does
 * not divide them, an unknown collective; THEMIS_ERR_NOMEM.  On error out
 * is empty. */
themis_status_t themis_xfer_direct(themis_coll_t coll, uint32_t nranks, uint32_t xy_width,
                                   themis_xfer_sched_t *out);

#endif
