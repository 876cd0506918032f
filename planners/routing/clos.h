/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A 2-layer Clos (routing-for-large-ml-models.txt, Sec. 3.3 and 4): T ToRs,
 * S spines, every ToR linked to every spine (one link each way at
 * link_bps), hosts under ToRs (host_bps each way).  A flow between hosts
 * under different ToRs takes one spine: up ToR -> spine, down spine -> ToR.
 *
 * Node ids follow the paper's traffic files: ToRs 0 .. T-1, spines
 * T .. T+S-1, hosts from host_base = T+S on.  Host h (a node id) hangs off
 * ToR (h - host_base) / hosts_per_tor, or off host_tor[h - host_base] when
 * a host map is set.  Spines are named by index 0 .. S-1 (node T + s).
 *
 * Failures: a failed spine carries nothing; a failed link (ToR t, spine s)
 * is the cable, both directions.  Indices never move.
 *
 * Flows (commodities, one unit of demand each, as in the paper's analysis)
 * come from the paper's traffic files (themis_clos_flows_load_pairs) or
 * from a transfer schedule on a rank -> host placement
 * (themis_clos_flows_from_xfer).  Routing them: clos_route.h.
 */
#ifndef THEMIS_CLOS_H
#define THEMIS_CLOS_H

#include "themis_types.h"
#include "topology.h"
#include "transfer.h"

/* Bounds that keep every count and table index in 32 bits. */
#define THEMIS_CLOS_MAX_TORS 4096u
#define THEMIS_CLOS_MAX_SPINES 1024u
#define THEMIS_CLOS_MAX_HOSTS (1u << 20)
#define THEMIS_CLOS_MAX_FLOWS (1u << 22)
/* No spine: an intra-ToR flow, or a flow not routed. */
#define THEMIS_CLOS_NO_SPINE UINT32_MAX

typedef struct {
    uint32_t ntors, nspines;
    uint32_t host_base;         /* node id of the first host: ntors + nspines */
    uint32_t nhosts;
    uint32_t hosts_per_tor;     /* 0 when host_tor maps hosts */
    uint32_t *host_tor;         /* [nhosts] or NULL */
    uint64_t link_bps;          /* each ToR-spine link, each way */
    uint64_t host_bps;          /* each host-ToR link, each way */
    uint8_t *spine_failed;      /* [nspines] */
    uint8_t *link_failed;       /* [ntors * nspines], index t * nspines + s */
} themis_clos_t;

typedef struct {
    uint32_t src, dst;          /* host node ids */
    uint32_t src_tor, dst_tor;
} themis_clos_flow_t;

typedef struct {
    uint32_t n, cap;
    themis_clos_flow_t *flows;  /* routing order: file order, schedule order */
} themis_clos_flows_t;

/* hosts_per_tor hosts under each ToR, rates at THEMIS_DEFAULT_NETWORK_BW_BPS,
 * nothing failed.  THEMIS_ERR_INVALID beyond the bounds above or zeros;
 * THEMIS_ERR_NOMEM. */
themis_status_t themis_clos_init(themis_clos_t *c, uint32_t ntors, uint32_t nspines,
                                 uint32_t hosts_per_tor);
/* Replaces hosts_per_tor by a map: host host_base + h under tor_of[h]. */
themis_status_t themis_clos_set_host_map(themis_clos_t *c, uint32_t nhosts,
                                         const uint32_t *tor_of);
void themis_clos_free(themis_clos_t *c);
/* The ToR of host node `host`, or UINT32_MAX when it is not a host. */
uint32_t themis_clos_host_tor(const themis_clos_t *c, uint32_t host);
/* Spine s and both directions of the cable (t, s) are up. */
int themis_clos_usable(const themis_clos_t *c, uint32_t tor, uint32_t spine);
/* Fails the k highest spine ids (S-k .. S-1): the CLI's deterministic
 * choice for --failed-spines k.  THEMIS_ERR_INVALID when k > S. */
themis_status_t themis_clos_fail_top_spines(themis_clos_t *c, uint32_t k);
uint32_t themis_clos_working_spines(const themis_clos_t *c);

void themis_clos_flows_init(themis_clos_flows_t *f);
void themis_clos_flows_free(themis_clos_flows_t *f);
/* Appends host src -> host dst (ToRs from the Clos).  THEMIS_ERR_INVALID
 * for a node that is not a host of c, THEMIS_ERR_NOMEM. */
themis_status_t themis_clos_flows_add(themis_clos_flows_t *f, const themis_clos_t *c,
                                      uint32_t src, uint32_t dst);

/* A (source, destination) pair and the index of its flow or transfer;
 * sorted with themis_clos_pair_cmp (pair, then index) equal pairs are
 * runs in index order. */
typedef struct {
    uint32_t a, b, i;
} themis_clos_pair_t;
int themis_clos_pair_cmp(const void *x, const void *y);

/* One traffic file of the paper (columns src dst src_tor dst_tor
 * start_time flow_size compute_time stage_index; '#' starts a comment):
 * its flows appended in file order.  The ToR columns must agree with the
 * Clos; a flow from a node to itself is refused.  Errors name the line
 * (err). */
themis_status_t themis_clos_flows_load_file(themis_clos_flows_t *f, const themis_clos_t *c,
                                            const char *path, themis_parse_error_t *err);
/* Every *.txt file of a directory (concurrent_jobs_J/ring_size_R/), in
 * natural name order (job_2 before job_10), as one set of concurrent
 * flows: all jobs' All-Reduce phases at once, the paper's controller input
 * when they overlap.  err->message names the file on errors. */
themis_status_t themis_clos_flows_load_pairs(themis_clos_flows_t *f, const themis_clos_t *c,
                                             const char *dir, themis_parse_error_t *err);
/* The flows of a transfer schedule with rank r on host node host_of[r]:
 * one flow per distinct ordered (src, dst) rank pair with src != dst, in
 * the order of the pair's first transfer (a ring's connections: each pair
 * carries every step of the collective, so its flows are concurrent). */
themis_status_t themis_clos_flows_from_xfer(themis_clos_flows_t *f, const themis_clos_t *c,
                                            const themis_xfer_sched_t *s,
                                            const uint32_t *host_of);

/* ToR-aware ring order of ranks 0 .. n-1 placed on host_of[]: ranks sorted
 * by (ToR, rank), so that ring neighbours share a ToR wherever they can; a
 * ring then crosses ToRs once per ToR it uses (none when there is one),
 * the least any ring over those hosts can.  *before / *after: inter-ToR
 * flows (ring edges whose ends sit under different ToRs) of the ring in
 * rank order and in the new order.  order holds n entries. */
themis_status_t themis_clos_ring_order(const themis_clos_t *c, const uint32_t *host_of,
                                       uint32_t n, uint32_t *order, uint32_t *before,
                                       uint32_t *after);

#endif
