/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Deterministic event simulation of a schedule.  Each dimension is a
 * resource that runs up to `chunks_in_flight` chunk phases at once; phases that
 * share a dimension share its bandwidth equally (processor sharing), while
 * their fixed delays overlap.  A dimension that frees a slot takes the next
 * ready phase by the intra-dimension policy:
 *   FIFO: earliest ready time first, ties by chunk id;
 *   SCF:  smallest resident chunk first, ties by ready time, then chunk id.
 * The order in which each dimension starts phases is the intra-dimension
 * order that the runtime enforces (Sec. 4.6.2 of themis.txt).
 *
 * A phase spends the dimension's fixed delay (steps x step latency, no
 * bandwidth), then its transfer (latency-model transfer time at full
 * bandwidth, stretched by sharing).  The latency mode says what the delay
 * holds:
 *   overlapped (default): nothing.  The delay runs from the phase's arrival
 *     on the dimension (its previous phase's end); the phase then waits for a
 *     slot, and holds it only while its bytes move.  Latency is propagation
 *     and software time that other transfers overlap (Sec. 4.4 charges it
 *     per collective and dimension), so the policy chooses when a transfer
 *     starts, among the phases whose delay is over.
 *   serialized: the slot.  The phase takes a slot, waits out its delay in
 *     it, then transfers; with one slot, a dimension's delays add up.
 * Times are integer ps; a transfer's end is rounded up to a whole ps.
 * chunks_in_flight is 1..32.  events[] is indexed by chunk * nstages + stage;
 * an event and the busy time span a phase's slot (overlapped: its transfer,
 * serialized: its delay and transfer).
 */
#ifndef THEMIS_SIMULATOR_H
#define THEMIS_SIMULATOR_H

#include "scheduler.h"

typedef enum {
    THEMIS_ORDER_FIFO = 0,
    THEMIS_ORDER_SCF = 1
} themis_order_policy_t;

typedef enum {
    THEMIS_LATENCY_OVERLAPPED = 0,
    THEMIS_LATENCY_SERIALIZED = 1
} themis_latency_mode_t;

/* One phase start/end, for timelines (Fig. 10). */
typedef struct {
    uint32_t chunk;
    uint16_t stage;
    uint8_t dim;
    themis_time_t start, end;
} themis_sim_event_t;

typedef struct {
    themis_time_t total_time;
    themis_time_t busy[THEMIS_MAX_DIMS];       /* >= 1 phase holds a slot */
    uint64_t bytes_sent[THEMIS_MAX_DIMS];      /* per NPU */
    /* Bandwidth utilization in parts per million: transfer time of the
     * bytes sent / total_time; average weighted by bandwidth (Sec. 3). */
    uint32_t util_ppm[THEMIS_MAX_DIMS];
    uint32_t avg_util_ppm;
} themis_sim_stats_t;

/* Per-dimension execution order: entries (chunk, stage) in start order. */
typedef struct {
    uint32_t chunk;
    uint16_t stage;
} themis_order_entry_t;

typedef struct {
    int ndims;
    uint32_t count[THEMIS_MAX_DIMS];
    themis_order_entry_t *entries[THEMIS_MAX_DIMS];
} themis_intra_order_t;

typedef struct {
    themis_order_policy_t policy;
    uint32_t chunks_in_flight;        /* >= 1 phases at once per dimension */
    int record_events;        /* fill events[] */
    themis_latency_mode_t latency;    /* zero (memset) is the default */
} themis_sim_params_t;

typedef struct {
    themis_sim_stats_t stats;
    themis_intra_order_t order;
    themis_sim_event_t *events;   /* [nevents] when record_events */
    uint32_t nevents;
} themis_sim_result_t;

themis_status_t themis_simulate(const themis_topology_t *topo, const themis_schedule_t *sched,
                                const themis_sim_params_t *params, themis_sim_result_t *out);
void themis_sim_result_free(themis_sim_result_t *r);
const char *themis_order_policy_name(themis_order_policy_t p);
const char *themis_latency_mode_name(themis_latency_mode_t m);
themis_status_t themis_latency_mode_parse(const char *s, themis_latency_mode_t *m);
themis_status_t themis_order_policy_parse(const char *s, themis_order_policy_t *p);

/* 64-bit FNV-1a over the schedule and intra-dimension order, in a fixed
 * little-endian serialization: equal on every machine for equal inputs. */
uint64_t themis_schedule_hash(const themis_schedule_t *s, const themis_intra_order_t *o);

#endif
