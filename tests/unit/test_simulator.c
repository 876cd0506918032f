/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Simulator (intra-dimension order), schedule hash and the LP bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "latency_model.h"
#include "scheduler.h"
#include "simulator.h"
#include "unit.h"

static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                      THEMIS_COLL_ALLGATHER};

static themis_status_t build(const themis_topology_t *t, themis_coll_t coll, uint64_t bytes,
                             uint32_t nchunks, themis_sched_kind_t kind, themis_schedule_t *s)
{
    themis_sched_params_t p;
    themis_sched_params_init(&p, coll, bytes, nchunks, kind);
    return themis_schedule_build(t, &p, s);
}

static themis_status_t simulate_mode(const themis_topology_t *t, const themis_schedule_t *s,
                                     themis_order_policy_t pol, uint32_t chunks_in_flight,
                                     themis_latency_mode_t latency, int events,
                                     themis_sim_result_t *r)
{
    themis_sim_params_t p = {.policy = pol, .chunks_in_flight = chunks_in_flight,
                             .record_events = events, .latency = latency};
    return themis_simulate(t, s, &p, r);
}

/* The default latency mode (overlapped). */
static themis_status_t simulate(const themis_topology_t *t, const themis_schedule_t *s,
                                themis_order_policy_t pol, uint32_t chunks_in_flight, int events,
                                themis_sim_result_t *r)
{
    return simulate_mode(t, s, pol, chunks_in_flight, THEMIS_LATENCY_OVERLAPPED, events, r);
}

static const themis_latency_mode_t latency_modes[] = {THEMIS_LATENCY_OVERLAPPED,
                                                      THEMIS_LATENCY_SERIALIZED};

/* One ring, 8 NPUs, 1 us steps, 8 Gb/s (1000 ps per byte), S = 8 MB:
 * 2(p-1)/p S/B + 2(p-1) alpha = 14e9 + 14e6 ps exactly: S/p is whole and
 * each phase's transfer time (7e6 bytes x 1000 ps) is an integer, so no
 * rounding enters.  The same holds for 4 chunks run 4 at a time (the
 * delays overlap, the transfers share bandwidth and end together).  With
 * one slot, serialized, the 8 phases' delays add up (+6 x 7 us);
 * overlapped, every delay but the first hides behind another chunk's
 * transfer (the ring is never idle once the first delay is over), so the
 * time is the LP bound, one delay plus the bytes (-7 us).  Busy time is
 * the whole run when delays hold a slot, the bytes' 14 ms when not. */
static void test_ring_closed_form(void)
{
    themis_topology_t t = unit_topology("ring:8:8Gb:1us");
    const uint64_t S = 8000000;
    const themis_time_t bytes_ps = 2 * 7 * (S / 8) * 1000;
    const themis_time_t closed = bytes_ps + 2 * 7 * 1000000ULL;
    struct {
        uint32_t nchunks, chunks_in_flight;
        themis_latency_mode_t latency;
        themis_time_t want;
    } v[] = {{1, 1, THEMIS_LATENCY_SERIALIZED, closed},
             {4, 4, THEMIS_LATENCY_SERIALIZED, closed},
             {4, 1, THEMIS_LATENCY_SERIALIZED, closed + 6 * 7 * 1000000ULL},
             {1, 1, THEMIS_LATENCY_OVERLAPPED, closed},
             {4, 4, THEMIS_LATENCY_OVERLAPPED, closed},
             {4, 1, THEMIS_LATENCY_OVERLAPPED, closed - 7 * 1000000ULL}};
    for (int i = 0; i < 6; i++) {
        themis_schedule_t s;
        themis_sim_result_t r;
        const int serialized = (THEMIS_LATENCY_SERIALIZED == v[i].latency);
        UNIT_CHECK(THEMIS_OK == build(&t, THEMIS_COLL_ALLREDUCE, S, v[i].nchunks, THEMIS_SCHED_THEMIS, &s));
        UNIT_CHECK(THEMIS_OK == simulate_mode(&t, &s, THEMIS_ORDER_FIFO, v[i].chunks_in_flight,
                                              v[i].latency, 0, &r));
        UNIT_CHECKF(v[i].want == r.stats.total_time, "%u chunks x %u %s: %llu != %llu",
                    v[i].nchunks, v[i].chunks_in_flight, themis_latency_mode_name(v[i].latency),
                    (unsigned long long) r.stats.total_time, (unsigned long long) v[i].want);
        UNIT_CHECK(2 * 7 * (S / 8) == r.stats.bytes_sent[0]);
        UNIT_CHECK((serialized ? r.stats.total_time : bytes_ps) == r.stats.busy[0]);
        themis_sim_result_free(&r);
        themis_schedule_free(&s);
    }
    /* S not divisible by p: the model pads to the largest block, so a
     * phase may send up to p-1 bytes more than (p-1)/p S (RS) or (p-1) x
     * that (AG); the time exceeds the closed form by at most that. */
    const uint64_t S2 = 8000003;
    themis_schedule_t s;
    themis_sim_result_t r;
    UNIT_CHECK(THEMIS_OK == build(&t, THEMIS_COLL_ALLREDUCE, S2, 1, THEMIS_SCHED_BASELINE, &s));
    UNIT_CHECK(THEMIS_OK == simulate(&t, &s, THEMIS_ORDER_FIFO, 1, 0, &r));
    double exact = 2.0 * 7.0 / 8.0 * (double) S2 * 1000.0 + 14e6;
    double diff = (double) r.stats.total_time - exact;
    UNIT_CHECKF(diff >= 0.0 && diff <= (7.0 + 7.0 * 7.0) * 1000.0, "diff %.1f ps", diff);
    themis_sim_result_free(&r);
    themis_schedule_free(&s);
}

/* Two dims of 4 (4 bytes/ns and 1 byte/ns, no delays), reduce-scatter of
 * three 4000-byte chunks: chunk 0 takes dim 0 then 1, chunks 1 and 2 take
 * dim 1 then 0.  Dim 1 runs chunk 1 (3000 bytes, 0..3000 ns); chunk 0
 * reaches it at 750 ns with 1000 bytes left while chunk 2 (4000 bytes)
 * waits since 0.  FIFO then picks chunk 2, SCF chunk 0.
 *   FIFO: dim 1: c2 3000-6000, c0 6000-6750; dim 0: c2 6000-6187.5 -> 6750 ns
 *   SCF:  dim 1: c0 3000-3750, c2 3750-6750; dim 0: c2 -6937.5    -> 6937.5 ns */
static void test_fifo_vs_scf(void)
{
    themis_topology_t t = unit_topology("sw:4:32Gb:0ns_sw:4:8Gb:0ns");
    uint64_t cb[3] = {4000, 4000, 4000};
    themis_stage_t st[6] = {{0, THEMIS_PHASE_RS}, {1, THEMIS_PHASE_RS}, {1, THEMIS_PHASE_RS},
                            {0, THEMIS_PHASE_RS}, {1, THEMIS_PHASE_RS}, {0, THEMIS_PHASE_RS}};
    themis_schedule_t s = {THEMIS_COLL_REDUCE_SCATTER, 2, 3, 2, cb, st, 0};
    const uint32_t want[2][3] = {{1, 2, 0}, {1, 0, 2}};
    const themis_time_t want_t[2] = {6750000, 6937500};
    for (int pol = 0; pol < 2; pol++) {
        themis_sim_result_t r;
        UNIT_CHECK(THEMIS_OK == simulate(&t, &s, (themis_order_policy_t) pol, 1, 1, &r));
        UNIT_CHECK(3 == r.order.count[1] && 3 == r.order.count[0]);
        for (int i = 0; i < 3; i++) {
            UNIT_CHECKF(want[pol][i] == r.order.entries[1][i].chunk, "%s: dim 1 entry %d = %u",
                        themis_order_policy_name((themis_order_policy_t) pol), i,
                        r.order.entries[1][i].chunk);
        }
        UNIT_CHECKF(want_t[pol] == r.stats.total_time, "%s: %llu",
                    themis_order_policy_name((themis_order_policy_t) pol),
                    (unsigned long long) r.stats.total_time);
        themis_sim_result_free(&r);
    }
}

/* Processor sharing and overlapping delays on one switch dim of 2 (1
 * step of 1 us), 8 Gb/s: a 4000-byte and a 2000-byte reduce-scatter chunk
 * send 2000 and 1000 bytes (2 us and 1 us of work).  Two slots: both
 * delays overlap (0-1 us), then they share: the small one ends at 3 us,
 * the large at 4 us, in either latency mode; a slot (event, busy time)
 * starts at 0 when it holds the delay, at 1 us when it does not.  One
 * slot, serialized: 1+2 = 3 us, then 3+1+1 = 5 us. */
static void test_processor_sharing(void)
{
    themis_topology_t t = unit_topology("sw:2:8Gb:1us");
    uint64_t cb[2] = {4000, 2000};
    themis_stage_t st[2] = {{0, THEMIS_PHASE_RS}, {0, THEMIS_PHASE_RS}};
    themis_schedule_t s = {THEMIS_COLL_REDUCE_SCATTER, 1, 2, 1, cb, st, 0};
    themis_sim_result_t r;
    for (int m = 0; m < 2; m++) {
        const themis_time_t t0 = (THEMIS_LATENCY_SERIALIZED == latency_modes[m]) ? 0 : 1000000;
        UNIT_CHECK(THEMIS_OK == simulate_mode(&t, &s, THEMIS_ORDER_FIFO, 2, latency_modes[m], 1, &r));
        UNIT_CHECK(4000000 == r.events[0].end && 3000000 == r.events[1].end);
        UNIT_CHECK(t0 == r.events[0].start && t0 == r.events[1].start);
        UNIT_CHECK(4000000 == r.stats.total_time && 4000000 - t0 == r.stats.busy[0]);
        UNIT_CHECK(750000 == r.stats.util_ppm[0]); /* 3 us of transfer in 4 us */
        themis_sim_result_free(&r);
    }
    UNIT_CHECK(THEMIS_OK == simulate_mode(&t, &s, THEMIS_ORDER_FIFO, 1, THEMIS_LATENCY_SERIALIZED,
                                          1, &r));
    UNIT_CHECK(3000000 == r.events[0].end && 5000000 == r.events[1].end);
    themis_sim_result_free(&r);
    /* Three transfers sharing: completion times round up to whole ps. */
    uint64_t cb3[3] = {2, 2, 2};
    themis_stage_t st3[3] = {{0, THEMIS_PHASE_RS}, {0, THEMIS_PHASE_RS}, {0, THEMIS_PHASE_RS}};
    themis_schedule_t s3 = {THEMIS_COLL_REDUCE_SCATTER, 1, 3, 1, cb3, st3, 0};
    themis_topology_t t3 = unit_topology("sw:2:3Tb:0ns"); /* 1 byte = 8/3 ps -> 3 ps */
    UNIT_CHECK(THEMIS_OK == simulate(&t3, &s3, THEMIS_ORDER_FIFO, 3, 1, &r));
    UNIT_CHECKF(9 == r.stats.total_time, "%llu", (unsigned long long) r.stats.total_time);
    themis_sim_result_free(&r);
}

/* The same two phases on one slot with the latency overlapped: both
 * delays run 0-1 us and hold nothing, so neither waits for the other's.
 * FIFO (equal ready times, chunk id): chunk 0 1-3 us, chunk 1 3-4 us.
 * SCF decides when the slot frees at 1 us, among phases whose delay is
 * over: chunk 1 (2000 bytes) 1-2 us, chunk 0 2-4 us.  Serialized SCF would
 * take 5 us (chunk 1's delay and transfer 0-2, chunk 0's 2-5). */
static void test_overlapped_latency(void)
{
    themis_topology_t t = unit_topology("sw:2:8Gb:1us");
    uint64_t cb[2] = {4000, 2000};
    themis_stage_t st[2] = {{0, THEMIS_PHASE_RS}, {0, THEMIS_PHASE_RS}};
    themis_schedule_t s = {THEMIS_COLL_REDUCE_SCATTER, 1, 2, 1, cb, st, 0};
    const themis_time_t want[2][2][2] = {{{1000000, 3000000}, {3000000, 4000000}},
                                         {{2000000, 4000000}, {1000000, 2000000}}};
    for (int pol = 0; pol < 2; pol++) {
        themis_sim_result_t r;
        UNIT_CHECK(THEMIS_OK == simulate(&t, &s, (themis_order_policy_t) pol, 1, 1, &r));
        for (int c = 0; c < 2; c++) {
            UNIT_CHECKF(want[pol][c][0] == r.events[c].start && want[pol][c][1] == r.events[c].end,
                        "%s chunk %d: %llu-%llu", themis_order_policy_name((themis_order_policy_t) pol),
                        c, (unsigned long long) r.events[c].start,
                        (unsigned long long) r.events[c].end);
        }
        UNIT_CHECK(4000000 == r.stats.total_time && 3000000 == r.stats.busy[0]);
        UNIT_CHECK((uint32_t) (pol ? 1 : 0) == r.order.entries[0][0].chunk);
        themis_sim_result_free(&r);
    }
    themis_sim_result_t r;
    UNIT_CHECK(THEMIS_OK == simulate_mode(&t, &s, THEMIS_ORDER_SCF, 1, THEMIS_LATENCY_SERIALIZED,
                                          0, &r));
    UNIT_CHECK(5000000 == r.stats.total_time && 1 == r.order.entries[0][0].chunk);
    themis_sim_result_free(&r);

    /* The latency of a chunk's next phase starts when its previous phase
     * ends, on the next dim, while the first dim serves others: two dims
     * of 2 (1 us step each, 8 Gb/s), one 4000-byte RS chunk takes dim 0
     * (2 us of bytes after 1 us) then dim 1 (1000 bytes: 1 us after 1 us):
     * 3 + 2 = 5 us, as serialized; the LP bound is one delay plus dim 0's
     * bytes, 3 us. */
    themis_topology_t t2 = unit_topology("sw:2:8Gb:1us_sw:2:8Gb:1us");
    uint64_t cb2[1] = {4000};
    themis_stage_t st2[2] = {{0, THEMIS_PHASE_RS}, {1, THEMIS_PHASE_RS}};
    themis_schedule_t s2 = {THEMIS_COLL_REDUCE_SCATTER, 2, 1, 2, cb2, st2, 0};
    UNIT_CHECK(THEMIS_OK == simulate(&t2, &s2, THEMIS_ORDER_FIFO, 1, 1, &r));
    UNIT_CHECK(1000000 == r.events[0].start && 3000000 == r.events[0].end);
    UNIT_CHECK(4000000 == r.events[1].start && 5000000 == r.events[1].end);
    themis_sim_result_free(&r);
}

/* Invariants of every simulation: order and events consistent, slots
 * respected, stats coherent, result deterministic. */
static void check_invariants(const themis_topology_t *t, const themis_schedule_t *s,
                             themis_order_policy_t pol, uint32_t chunks_in_flight,
                             themis_latency_mode_t latency, const char *what)
{
    themis_sim_result_t r, r2;
    const int overlapped = (THEMIS_LATENCY_OVERLAPPED == latency);
    if (THEMIS_OK != simulate_mode(t, s, pol, chunks_in_flight, latency, 1, &r)) {
        UNIT_CHECKF(0, "%s: simulate failed", what);
        return;
    }
    int n = t->ndims;
    size_t nph = (size_t) s->nchunks * s->nstages;
    UNIT_CHECK(r.nevents == nph && r.order.ndims == n);
    /* Each (chunk, stage) once, in its own dim's order; starts ascend. */
    char *seen = calloc(nph, 1);
    uint64_t bytes[THEMIS_MAX_DIMS] = {0};
    for (int k = 0; k < n; k++) {
        UNIT_CHECKF(r.order.count[k] == s->nchunks * (s->nstages / (uint32_t) n), "%s", what);
        for (uint32_t i = 0; i < r.order.count[k]; i++) {
            const themis_order_entry_t *e = &r.order.entries[k][i];
            size_t ph = (size_t) e->chunk * s->nstages + e->stage;
            UNIT_CHECKF(e->chunk < s->nchunks && e->stage < s->nstages && !seen[ph] &&
                            s->stages[ph].dim == k,
                        "%s dim %d entry %u", what, k, i);
            seen[ph] = 1;
            if (i > 0) {
                const themis_order_entry_t *p = &r.order.entries[k][i - 1];
                UNIT_CHECKF(r.events[(size_t) p->chunk * s->nstages + p->stage].start <=
                                r.events[ph].start,
                            "%s dim %d entry %u starts early", what, k, i);
            }
        }
    }
    free(seen);
    themis_time_t maxend = 0;
    for (uint32_t c = 0; c < s->nchunks; c++) {
        for (uint32_t st = 0; st < s->nstages; st++) {
            size_t ph = (size_t) c * s->nstages + st;
            const themis_sim_event_t *ev = &r.events[ph];
            const themis_dim_t *d = &t->dims[s->stages[ph].dim];
            uint64_t b = themis_schedule_stage_bytes(t, s, c, st);
            uint64_t sent = themis_lm_bytes_sent(d, (themis_phase_t) s->stages[ph].phase, b);
            bytes[s->stages[ph].dim] += sent;
            UNIT_CHECKF(ev->chunk == c && ev->stage == st && ev->dim == s->stages[ph].dim, "%s",
                        what);
            /* A phase takes at least its delay plus its share of the work;
             * overlapped, the delay runs before the slot, from the end of
             * the chunk's previous phase. */
            const themis_time_t arrival = (st > 0) ? r.events[ph - 1].end : 0;
            const themis_time_t delay = themis_lm_fixed_delay(d);
            UNIT_CHECKF(ev->end >= ev->start + (overlapped ? 0 : delay) +
                                       themis_lm_transfer_time(d, sent) / chunks_in_flight,
                        "%s chunk %u stage %u too fast", what, c, st);
            UNIT_CHECKF(ev->start >= arrival + (overlapped ? delay : 0), "%s chunk %u stage %u",
                        what, c, st);
            if (ev->end > maxend) {
                maxend = ev->end;
            }
        }
    }
    UNIT_CHECKF(maxend == r.stats.total_time, "%s", what);
    /* Slots: at each phase start, at most `chunks_in_flight` phases of that dim
     * are running (start <= t < end). */
    for (int k = 0; k < n; k++) {
        for (uint32_t i = 0; i < r.order.count[k]; i++) {
            const themis_order_entry_t *e = &r.order.entries[k][i];
            themis_time_t t0 = r.events[(size_t) e->chunk * s->nstages + e->stage].start;
            uint32_t running = 0;
            for (uint32_t j = 0; j <= i; j++) {
                const themis_order_entry_t *f = &r.order.entries[k][j];
                const themis_sim_event_t *ev = &r.events[(size_t) f->chunk * s->nstages + f->stage];
                running += (ev->start <= t0 && t0 < ev->end) ? 1 : 0;
            }
            UNIT_CHECKF(running <= chunks_in_flight, "%s dim %d: %u running", what, k, running);
        }
    }
    unsigned __int128 wsum = 0, bwsum = 0;
    for (int k = 0; k < n; k++) {
        UNIT_CHECKF(bytes[k] == r.stats.bytes_sent[k], "%s dim %d bytes", what, k);
        UNIT_CHECKF(r.stats.busy[k] <= r.stats.total_time, "%s", what);
        UNIT_CHECKF(themis_lm_transfer_time(&t->dims[k], r.stats.bytes_sent[k]) <= r.stats.busy[k],
                    "%s dim %d busy", what, k);
        UNIT_CHECKF(r.stats.util_ppm[k] <= 1000000, "%s", what);
        wsum += (unsigned __int128) r.stats.util_ppm[k] * t->dims[k].bw_bps;
        bwsum += t->dims[k].bw_bps;
    }
    /* The weighted average of the (truncated) per-dim figures is within a
     * ppm of the exact average. */
    uint32_t avg = (uint32_t) (wsum / bwsum);
    UNIT_CHECKF(avg <= r.stats.avg_util_ppm && r.stats.avg_util_ppm <= avg + 1, "%s: %u vs %u",
                what, avg, r.stats.avg_util_ppm);

    UNIT_CHECK(THEMIS_OK == simulate_mode(t, s, pol, chunks_in_flight, latency, 0, &r2));
    UNIT_CHECKF(themis_schedule_hash(s, &r.order) == themis_schedule_hash(s, &r2.order) &&
                    0 == memcmp(&r.stats, &r2.stats, sizeof(r.stats)) && NULL == r2.events,
                "%s: not deterministic", what);
    themis_sim_result_free(&r2);
    themis_sim_result_free(&r);
}

static void test_invariants(void)
{
    for (int i = 0; i < themis_topology_npresets; i++) {
        themis_topology_t t = unit_topology(themis_topology_presets[i].name);
        for (int ci = 0; ci < 3; ci++) {
            for (int kind = 0; kind < 2; kind++) {
                themis_schedule_t s;
                UNIT_CHECK(THEMIS_OK == build(&t, colls[ci], 64ULL << 20, 32,
                                              (themis_sched_kind_t) kind, &s));
                for (int pol = 0; pol < 2; pol++) {
                    for (uint32_t chunks_in_flight = 1; chunks_in_flight <= 3; chunks_in_flight += 2) {
                        for (int m = 0; m < 2; m++) {
                            char what[160];
                            snprintf(what, sizeof(what), "%s %s %s %s x%u %s",
                                     themis_topology_presets[i].name, themis_coll_name(colls[ci]),
                                     themis_sched_kind_name((themis_sched_kind_t) kind),
                                     themis_order_policy_name((themis_order_policy_t) pol),
                                     chunks_in_flight, themis_latency_mode_name(latency_modes[m]));
                            check_invariants(&t, &s, (themis_order_policy_t) pol, chunks_in_flight,
                                             latency_modes[m], what);
                        }
                    }
                }
                themis_schedule_free(&s);
            }
        }
    }
}

static void test_order_hash(void)
{
    themis_topology_t t = unit_topology("3D-SW_SW_SW_homo");
    themis_schedule_t s;
    themis_sim_result_t fifo, scf;
    UNIT_CHECK(THEMIS_OK == build(&t, THEMIS_COLL_ALLREDUCE, 1ULL << 30, 64, THEMIS_SCHED_THEMIS, &s));
    UNIT_CHECK(THEMIS_OK == simulate(&t, &s, THEMIS_ORDER_FIFO, 1, 0, &fifo));
    UNIT_CHECK(THEMIS_OK == simulate(&t, &s, THEMIS_ORDER_SCF, 1, 0, &scf));
    uint64_t hf = themis_schedule_hash(&s, &fifo.order);
    UNIT_CHECK(hf != themis_schedule_hash(&s, &scf.order));
    UNIT_CHECK(hf != themis_schedule_hash(&s, NULL));
    /* Swapping two entries of one dim's order changes the hash. */
    themis_order_entry_t e = fifo.order.entries[2][3];
    fifo.order.entries[2][3] = fifo.order.entries[2][4];
    fifo.order.entries[2][4] = e;
    UNIT_CHECK(hf != themis_schedule_hash(&s, &fifo.order));
    themis_sim_result_free(&fifo);
    themis_sim_result_free(&scf);
    themis_schedule_free(&s);
}

static void test_invalid(void)
{
    themis_topology_t t = unit_topology("sw:4:8Gb:1us_sw:4:8Gb:1us");
    themis_schedule_t s;
    themis_sim_result_t r;
    UNIT_CHECK(THEMIS_OK == build(&t, THEMIS_COLL_ALLREDUCE, 1 << 20, 8, THEMIS_SCHED_THEMIS, &s));
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate(&t, &s, THEMIS_ORDER_FIFO, 0, 0, &r));
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate(&t, &s, THEMIS_ORDER_FIFO, 33, 0, &r));
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate(&t, &s, (themis_order_policy_t) 5, 1, 0, &r));
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate_mode(&t, &s, THEMIS_ORDER_FIFO, 1,
                                                   (themis_latency_mode_t) 2, 0, &r));
    UNIT_CHECK(NULL == r.order.entries[0] && NULL == r.events);
    /* Stages that visit a dim twice, AG before RS, or a foreign topology. */
    s.stages[1].dim = s.stages[0].dim;
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate(&t, &s, THEMIS_ORDER_FIFO, 1, 0, &r));
    s.stages[1].dim = (uint8_t) (1 - s.stages[0].dim);
    s.stages[0].phase = THEMIS_PHASE_AG;
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate(&t, &s, THEMIS_ORDER_FIFO, 1, 0, &r));
    s.stages[0].phase = THEMIS_PHASE_RS;
    UNIT_CHECK(THEMIS_OK == simulate(&t, &s, THEMIS_ORDER_FIFO, 1, 0, &r));
    themis_sim_result_free(&r);
    themis_topology_t t3 = unit_topology("sw:4:8Gb:1us_sw:4:8Gb:1us_sw:2:8Gb:1us");
    UNIT_CHECK(THEMIS_ERR_INVALID == simulate(&t3, &s, THEMIS_ORDER_FIFO, 1, 0, &r));
    themis_schedule_free(&s);
    themis_order_policy_t p;
    UNIT_CHECK(THEMIS_OK == themis_order_policy_parse("scf", &p) && THEMIS_ORDER_SCF == p);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_order_policy_parse("lifo", &p));
    themis_latency_mode_t m;
    UNIT_CHECK(THEMIS_OK == themis_latency_mode_parse("serialized", &m) &&
               THEMIS_LATENCY_SERIALIZED == m);
    UNIT_CHECK(THEMIS_OK == themis_latency_mode_parse("overlapped", &m) &&
               THEMIS_LATENCY_OVERLAPPED == m);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_latency_mode_parse("none", &m));
}

/* LP bound, hand-checked: one ring (no choice): (p-1) alpha + 2(p-1)/p S/B.
 * Fig. 5 network without delays, 256 MB: a fraction x in baseline order
 * loads dim 1 by 8x + 2(1-x) and dim 2 by 4x + 16(1-x) units of 48 ms;
 * equal at x = 7/9: T = 20/3 units = 320 ms.  The baseline's bound (x = 1)
 * is 8 units, 384 ms; the ring's is its only order's. */
static void test_bound_exact(void)
{
    themis_bound_t b;
    themis_topology_t ring = unit_topology("ring:8:8Gb:1us");
    UNIT_CHECK(THEMIS_OK == themis_bound_compute(&ring, THEMIS_COLL_ALLREDUCE, 8000000, &b));
    UNIT_CHECKF(14000000000ULL + 7000000ULL == b.time, "%llu", (unsigned long long) b.time);
    UNIT_CHECK(b.time == b.baseline_time);
    UNIT_CHECK(14000000 == b.bytes[0]);
    UNIT_CHECK(THEMIS_OK == themis_bound_compute(&ring, THEMIS_COLL_REDUCE_SCATTER, 8000000, &b));
    UNIT_CHECK(7000000000ULL + 7000000ULL == b.time);

    themis_topology_t fig5 = unit_topology("sw:4:8Gb:0ns_sw:4:4Gb:0ns");
    UNIT_CHECK(THEMIS_OK == themis_bound_compute(&fig5, THEMIS_COLL_ALLREDUCE, 256000000, &b));
    UNIT_CHECKF(320000000000ULL == b.time, "%llu", (unsigned long long) b.time);
    UNIT_CHECKF(384000000000ULL == b.baseline_time, "%llu", (unsigned long long) b.baseline_time);

    themis_topology_t six = unit_topology("sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us_"
                                    "sw:2:1Gb:1us_sw:2:1Gb:1us");
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == themis_bound_compute(&six, THEMIS_COLL_ALLREDUCE, 1000, &b));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_bound_compute(&ring, THEMIS_COLL_ALLREDUCE, 0, &b));
}

/* No simulated schedule beats the bound: presets, all collectives, both
 * schedulers and policies, 1 and 4 slots, bandwidth- and latency-bound
 * sizes. */
static void test_bound_below_simulation(void)
{
    const uint64_t sizes[2] = {1ULL << 30, 64ULL << 10};
    for (int i = 0; i < themis_topology_npresets; i++) {
        themis_topology_t t = unit_topology(themis_topology_presets[i].name);
        for (int ci = 0; ci < 3; ci++) {
            for (int si = 0; si < 2; si++) {
                themis_bound_t b;
                UNIT_CHECK(THEMIS_OK == themis_bound_compute(&t, colls[ci], sizes[si], &b));
                for (int kind = 0; kind < 2; kind++) {
                    themis_schedule_t s;
                    UNIT_CHECK(THEMIS_OK == build(&t, colls[ci], sizes[si], si ? 16 : 64,
                                                  (themis_sched_kind_t) kind, &s));
                    for (int pol = 0; pol < 2; pol++) {
                        for (uint32_t chunks_in_flight = 1; chunks_in_flight <= 4; chunks_in_flight += 3) {
                            for (int m = 0; m < 2; m++) {
                                themis_sim_result_t r;
                                UNIT_CHECK(THEMIS_OK == simulate_mode(&t, &s, (themis_order_policy_t) pol,
                                                                      chunks_in_flight, latency_modes[m],
                                                                      0, &r));
                                UNIT_CHECKF(b.time <= r.stats.total_time,
                                            "%s %s %llu %s %s x%u %s: bound %llu > %llu",
                                            themis_topology_presets[i].name,
                                            themis_coll_name(colls[ci]),
                                            (unsigned long long) sizes[si],
                                            themis_sched_kind_name((themis_sched_kind_t) kind),
                                            themis_order_policy_name((themis_order_policy_t) pol),
                                            chunks_in_flight,
                                            themis_latency_mode_name(latency_modes[m]),
                                            (unsigned long long) b.time,
                                            (unsigned long long) r.stats.total_time);
                                /* The baseline's own bound holds for it. */
                                UNIT_CHECK(THEMIS_SCHED_BASELINE != kind ||
                                           b.baseline_time <= r.stats.total_time);
                                themis_sim_result_free(&r);
                            }
                        }
                    }
                    themis_schedule_free(&s);
                }
            }
        }
    }
}

int main(void)
{
    UNIT_RUN(test_ring_closed_form);
    UNIT_RUN(test_fifo_vs_scf);
    UNIT_RUN(test_processor_sharing);
    UNIT_RUN(test_overlapped_latency);
    UNIT_RUN(test_invariants);
    UNIT_RUN(test_order_hash);
    UNIT_RUN(test_invalid);
    UNIT_RUN(test_bound_exact);
    UNIT_RUN(test_bound_below_simulation);
    UNIT_EXIT();
}
