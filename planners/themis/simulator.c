/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Event simulation in integer picoseconds.
 *
 * A phase on a dimension spends the dimension's fixed delay, then
 * transfers: its work is the latency-model transfer time at full
 * bandwidth, and the n phases transferring on a dimension each progress at
 * 1/n of it.  Where the delay sits is the latency mode (simulator.h):
 * serialized, the phase takes a slot and then waits out its delay in it
 * (no bandwidth, but the slot); overlapped, the delay runs from the phase's
 * arrival on the dimension and holds nothing, and the phase takes a slot
 * only to transfer, so the policy chooses among phases whose delay is over.  Processor sharing is tracked with a per-dimension virtual
 * clock V that advances L/n per picosecond, L = lcm(1..chunks_in_flight), so every
 * advance is an exact integer; a transfer that joins at V0 with work w ends
 * when V reaches V0 + w*L.  The real end time is rounded up to the next
 * picosecond, the only rounding in the model.
 *
 * Fixed delays are the same for every phase of a dimension, so the phases
 * in their delay leave it in the order they entered it (a FIFO of at most
 * chunks_in_flight phases when serialized, of nchunks when overlapped).  Waiting phases sit in
 * a binary heap per dimension ordered by the policy key, so a simulation
 * of E phases costs O(E (log E + N + chunks_in_flight)).
 */
#include "simulator.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#include "latency_model.h"

#define NONE UINT64_MAX

typedef unsigned __int128 u128;

typedef struct {
    uint32_t *heap;        /* chunk ids of phases waiting for this dim */
    uint32_t nheap;
    uint32_t active;       /* slots in use */
    uint32_t *lat_chunk;   /* ring buffer: phases in their fixed delay */
    themis_time_t *lat_end;
    uint32_t lat_head, lat_n, lat_cap;
    uint32_t xfer_chunk[THEMIS_MAX_CHUNKS_IN_FLIGHT]; /* phases transferring */
    u128 xfer_finish[THEMIS_MAX_CHUNKS_IN_FLIGHT];    /* virtual finish tags */
    uint32_t nxfer;
    u128 vclock;
    themis_time_t busy_since;
    themis_time_t fixed;
} dim_state_t;

typedef struct {
    const themis_sim_params_t *params;
    uint32_t nstages;
    uint64_t lcm;
    /* per phase (chunk * nstages + stage) */
    themis_time_t *work;
    uint64_t *resident;
    uint64_t *sent;
    themis_time_t *start;
    /* per chunk */
    uint32_t *cur_stage;
    themis_time_t *ready;
    dim_state_t dims[THEMIS_MAX_DIMS];
} sim_t;

const char *themis_latency_mode_name(themis_latency_mode_t m)
{
    return (THEMIS_LATENCY_SERIALIZED == m) ? "serialized" : "overlapped";
}

themis_status_t themis_latency_mode_parse(const char *s, themis_latency_mode_t *m)
{
    if (NULL == s || NULL == m) {
        return THEMIS_ERR_INVALID;
    }
    if (0 == strcmp(s, "overlapped")) {
        *m = THEMIS_LATENCY_OVERLAPPED;
        return THEMIS_OK;
    }
    if (0 == strcmp(s, "serialized")) {
        *m = THEMIS_LATENCY_SERIALIZED;
        return THEMIS_OK;
    }
    return THEMIS_ERR_PARSE;
}

const char *themis_order_policy_name(themis_order_policy_t p)
{
    return (THEMIS_ORDER_SCF == p) ? "scf" : "fifo";
}

themis_status_t themis_order_policy_parse(const char *s, themis_order_policy_t *p)
{
    if (NULL == s || NULL == p) {
        return THEMIS_ERR_INVALID;
    }
    if (0 == strcmp(s, "fifo")) {
        *p = THEMIS_ORDER_FIFO;
        return THEMIS_OK;
    }
    if (0 == strcmp(s, "scf")) {
        *p = THEMIS_ORDER_SCF;
        return THEMIS_OK;
    }
    return THEMIS_ERR_PARSE;
}

/* Does waiting chunk a start before chunk b? */
static int before(const sim_t *sim, uint32_t a, uint32_t b)
{
    if (THEMIS_ORDER_SCF == sim->params->policy) {
        uint64_t ra = sim->resident[(size_t) a * sim->nstages + sim->cur_stage[a]];
        uint64_t rb = sim->resident[(size_t) b * sim->nstages + sim->cur_stage[b]];
        if (ra != rb) {
            return ra < rb;
        }
    }
    if (sim->ready[a] != sim->ready[b]) {
        return sim->ready[a] < sim->ready[b];
    }
    return a < b;
}

static void heap_push(const sim_t *sim, dim_state_t *d, uint32_t c)
{
    uint32_t i = d->nheap++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!before(sim, c, d->heap[parent])) {
            break;
        }
        d->heap[i] = d->heap[parent];
        i = parent;
    }
    d->heap[i] = c;
}

static uint32_t heap_pop(const sim_t *sim, dim_state_t *d)
{
    uint32_t top = d->heap[0];
    uint32_t last = d->heap[--d->nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        uint32_t mc = last;
        if (l < d->nheap && before(sim, d->heap[l], mc)) {
            m = l;
            mc = d->heap[l];
        }
        if (r < d->nheap && before(sim, d->heap[r], mc)) {
            m = r;
        }
        if (m == i) {
            break;
        }
        d->heap[i] = d->heap[m];
        i = m;
    }
    if (d->nheap > 0) {
        d->heap[i] = last;
    }
    return top;
}

static void sim_free(sim_t *sim)
{
    free(sim->work);
    free(sim->resident);
    free(sim->sent);
    free(sim->start);
    free(sim->cur_stage);
    free(sim->ready);
    for (int k = 0; k < THEMIS_MAX_DIMS; k++) {
        free(sim->dims[k].heap);
        free(sim->dims[k].lat_chunk);
        free(sim->dims[k].lat_end);
    }
}

void themis_sim_result_free(themis_sim_result_t *r)
{
    if (NULL == r) {
        return;
    }
    for (int k = 0; k < THEMIS_MAX_DIMS; k++) {
        free(r->order.entries[k]);
    }
    free(r->events);
    memset(r, 0, sizeof(*r));
}

/* Schedule consistent with the topology: stage dims in range, each chunk's
 * stage list a valid collective (every dim once per phase kind). */
static int schedule_ok(const themis_topology_t *topo, const themis_schedule_t *s)
{
    int n = topo->ndims;
    if (s->ndims != n || NULL == s->stages || NULL == s->chunk_bytes || 0 == s->nchunks ||
        s->nchunks > THEMIS_MAX_CHUNKS) {
        return 0;
    }
    uint32_t want = (THEMIS_COLL_ALLREDUCE == s->coll) ? 2 * (uint32_t) n : (uint32_t) n;
    if (s->nstages != want) {
        return 0;
    }
    for (uint32_t c = 0; c < s->nchunks; c++) {
        unsigned seen[2] = {0, 0};
        const themis_stage_t *st = &s->stages[(size_t) c * s->nstages];
        for (uint32_t i = 0; i < s->nstages; i++) {
            /* RS stages first (all of them for reduce-scatter), then AG. */
            unsigned want_phase = (THEMIS_COLL_ALLGATHER == s->coll ||
                                   (THEMIS_COLL_ALLREDUCE == s->coll && i >= (uint32_t) n))
                                      ? THEMIS_PHASE_AG
                                      : THEMIS_PHASE_RS;
            if (st[i].dim >= n || st[i].phase != want_phase ||
                ((seen[want_phase] >> st[i].dim) & 1U)) {
                return 0;
            }
            seen[want_phase] |= 1U << st[i].dim;
        }
    }
    return 1;
}

/* Brings a dimension's virtual clock from `from` to `to`. */
static void advance(sim_t *sim, dim_state_t *d, themis_time_t from, themis_time_t to)
{
    if (d->nxfer > 0 && to > from) {
        d->vclock += (u128) (to - from) * (sim->lcm / d->nxfer);
    }
}

static themis_time_t next_event(const sim_t *sim, const dim_state_t *d, themis_time_t now)
{
    themis_time_t t = NONE;
    if (d->lat_n > 0) {
        t = d->lat_end[d->lat_head];
    }
    if (d->nxfer > 0) {
        u128 fmin = d->xfer_finish[0];
        for (uint32_t i = 1; i < d->nxfer; i++) {
            if (d->xfer_finish[i] < fmin) {
                fmin = d->xfer_finish[i];
            }
        }
        u128 dv = (fmin > d->vclock) ? fmin - d->vclock : 0;
        u128 dt = (dv * d->nxfer + sim->lcm - 1) / sim->lcm;
        themis_time_t te = now + (themis_time_t) dt;
        if (te < t) {
            t = te;
        }
    }
    return t;
}

static void start_transfer(sim_t *sim, dim_state_t *d, uint32_t c)
{
    size_t ph = (size_t) c * sim->nstages + sim->cur_stage[c];
    d->xfer_chunk[d->nxfer] = c;
    d->xfer_finish[d->nxfer] = d->vclock + (u128) sim->work[ph] * sim->lcm;
    d->nxfer++;
}

/* Chunk c waits out the dimension's fixed delay from `now`. */
static void start_delay(dim_state_t *d, uint32_t c, themis_time_t now)
{
    uint32_t slot = (d->lat_head + d->lat_n++) % d->lat_cap;
    d->lat_chunk[slot] = c;
    d->lat_end[slot] = now + d->fixed;
}

/* Chunk c reaches its next phase's dimension at `now`: overlapped, its
 * delay starts at once; serialized, it waits for a slot first. */
static void arrive(sim_t *sim, dim_state_t *d, uint32_t c, themis_time_t now)
{
    sim->ready[c] = now;
    if (THEMIS_LATENCY_OVERLAPPED == sim->params->latency && 0 != d->fixed) {
        start_delay(d, c, now);
    } else {
        heap_push(sim, d, c);
    }
}

themis_status_t themis_simulate(const themis_topology_t *topo, const themis_schedule_t *sched,
                                const themis_sim_params_t *params, themis_sim_result_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    if (NULL == topo || NULL == sched || NULL == params ||
        THEMIS_OK != themis_topology_check(topo, NULL, 0) || !schedule_ok(topo, sched) ||
        params->chunks_in_flight < 1 || params->chunks_in_flight > THEMIS_MAX_CHUNKS_IN_FLIGHT ||
        (THEMIS_ORDER_FIFO != params->policy && THEMIS_ORDER_SCF != params->policy) ||
        (THEMIS_LATENCY_OVERLAPPED != params->latency &&
         THEMIS_LATENCY_SERIALIZED != params->latency)) {
        return THEMIS_ERR_INVALID;
    }

    sim_t sim;
    memset(&sim, 0, sizeof(sim));
    const int n = topo->ndims;
    const uint32_t nchunks = sched->nchunks;
    const uint32_t nstages = sched->nstages;
    const size_t nphases = (size_t) nchunks * nstages;
    const uint32_t per_dim = nchunks * (nstages / (uint32_t) n);
    const uint32_t chunks_in_flight = params->chunks_in_flight;
    const int overlapped = (THEMIS_LATENCY_OVERLAPPED == params->latency);
    themis_status_t st = THEMIS_ERR_NOMEM;

    sim.params = params;
    sim.nstages = nstages;
    sim.lcm = 1;
    for (uint64_t i = 2; i <= chunks_in_flight; i++) {
        sim.lcm = sim.lcm / themis_gcd(sim.lcm, i) * i;
    }
    sim.work = malloc(sizeof(themis_time_t) * nphases);
    sim.resident = malloc(sizeof(uint64_t) * nphases);
    sim.sent = malloc(sizeof(uint64_t) * nphases);
    sim.start = malloc(sizeof(themis_time_t) * nphases);
    sim.cur_stage = calloc(nchunks, sizeof(uint32_t));
    sim.ready = calloc(nchunks, sizeof(themis_time_t));
    if (NULL == sim.work || NULL == sim.resident || NULL == sim.sent || NULL == sim.start ||
        NULL == sim.cur_stage || NULL == sim.ready) {
        goto done;
    }
    out->order.ndims = n;
    for (int k = 0; k < n; k++) {
        dim_state_t *d = &sim.dims[k];
        d->heap = malloc(sizeof(uint32_t) * nchunks);
        /* Serialized, only phases holding a slot wait out a delay;
         * overlapped, every chunk may (one phase per chunk at a time). */
        d->lat_cap = overlapped ? nchunks : chunks_in_flight;
        d->lat_chunk = malloc(sizeof(uint32_t) * d->lat_cap);
        d->lat_end = malloc(sizeof(themis_time_t) * d->lat_cap);
        out->order.entries[k] = malloc(sizeof(themis_order_entry_t) * per_dim);
        if (NULL == d->heap || NULL == d->lat_chunk || NULL == d->lat_end ||
            NULL == out->order.entries[k]) {
            goto done;
        }
        d->fixed = themis_lm_fixed_delay(&topo->dims[k]);
    }
    if (params->record_events) {
        out->events = malloc(sizeof(themis_sim_event_t) * nphases);
        if (NULL == out->events) {
            goto done;
        }
        out->nevents = (uint32_t) nphases;
    }

    /* Per-phase sizes and transfer work, from the same latency model the
     * scheduler used; the clock must not be able to overflow. */
    u128 total_work = 0;
    for (uint32_t c = 0; c < nchunks; c++) {
        for (uint32_t s = 0; s < nstages; s++) {
            size_t ph = (size_t) c * nstages + s;
            const themis_stage_t *sg = &sched->stages[ph];
            const themis_dim_t *dim = &topo->dims[sg->dim];
            uint64_t b = (0 == s) ? themis_schedule_stage_bytes(topo, sched, c, 0)
                                  : themis_lm_size_after(&topo->dims[sched->stages[ph - 1].dim],
                                                         (themis_phase_t) sched->stages[ph - 1].phase,
                                                         sim.resident[ph - 1]);
            sim.resident[ph] = b;
            sim.sent[ph] = themis_lm_bytes_sent(dim, (themis_phase_t) sg->phase, b);
            sim.work[ph] = themis_lm_transfer_time(dim, sim.sent[ph]);
            total_work += (u128) sim.work[ph] + sim.dims[sg->dim].fixed;
        }
    }
    if (total_work > ((u128) 1 << 62)) {
        st = THEMIS_ERR_INVALID;
        goto done;
    }

    for (uint32_t c = 0; c < nchunks; c++) {
        arrive(&sim, &sim.dims[sched->stages[(size_t) c * nstages].dim], c, 0);
    }

    themis_time_t now = 0;
    size_t completed = 0;
    uint32_t done_list[THEMIS_MAX_DIMS * THEMIS_MAX_CHUNKS_IN_FLIGHT];
    for (;;) {
        /* Start waiting phases on free slots, in policy order. */
        for (int k = 0; k < n; k++) {
            dim_state_t *d = &sim.dims[k];
            while (d->active < chunks_in_flight && d->nheap > 0) {
                uint32_t c = heap_pop(&sim, d);
                size_t ph = (size_t) c * nstages + sim.cur_stage[c];
                themis_order_entry_t *e = &out->order.entries[k][out->order.count[k]++];
                e->chunk = c;
                e->stage = (uint16_t) sim.cur_stage[c];
                sim.start[ph] = now;
                if (0 == d->active++) {
                    d->busy_since = now;
                }
                if (overlapped || 0 == d->fixed) {
                    start_transfer(&sim, d, c);
                } else {
                    start_delay(d, c, now);
                }
            }
        }
        if (completed == nphases) {
            break;
        }

        themis_time_t t = NONE;
        for (int k = 0; k < n; k++) {
            themis_time_t te = next_event(&sim, &sim.dims[k], now);
            if (te < t) {
                t = te;
            }
        }
        if (NONE == t) {
            st = THEMIS_ERR_INVALID; /* unreachable: a waiting phase always has a slot */
            goto done;
        }
        for (int k = 0; k < n; k++) {
            advance(&sim, &sim.dims[k], now, t);
        }
        now = t;

        /* Delays that end now start transferring (serialized) or let the
         * phase compete for a slot (overlapped); transfers whose virtual
         * finish tag the clock reached complete. */
        uint32_t ndone = 0;
        for (int k = 0; k < n; k++) {
            dim_state_t *d = &sim.dims[k];
            while (d->lat_n > 0 && d->lat_end[d->lat_head] <= now) {
                uint32_t c = d->lat_chunk[d->lat_head];
                if (overlapped) {
                    heap_push(&sim, d, c);
                } else {
                    start_transfer(&sim, d, c);
                }
                d->lat_head = (d->lat_head + 1) % d->lat_cap;
                d->lat_n--;
            }
            uint32_t i = 0;
            while (i < d->nxfer) {
                if (d->xfer_finish[i] <= d->vclock) {
                    done_list[ndone++] = d->xfer_chunk[i];
                    d->nxfer--;
                    d->xfer_chunk[i] = d->xfer_chunk[d->nxfer];
                    d->xfer_finish[i] = d->xfer_finish[d->nxfer];
                    if (0 == --d->active) {
                        out->stats.busy[k] += now - d->busy_since;
                    }
                } else {
                    i++;
                }
            }
            if (0 == d->nxfer) {
                d->vclock = 0; /* idle: restart the virtual clock near zero */
            }
        }
        for (uint32_t i = 0; i < ndone; i++) {
            uint32_t c = done_list[i];
            size_t ph = (size_t) c * nstages + sim.cur_stage[c];
            uint8_t dim = sched->stages[ph].dim;
            out->stats.bytes_sent[dim] += sim.sent[ph];
            if (NULL != out->events) {
                themis_sim_event_t *ev = &out->events[ph];
                ev->chunk = c;
                ev->stage = (uint16_t) sim.cur_stage[c];
                ev->dim = dim;
                ev->start = sim.start[ph];
                ev->end = now;
            }
            completed++;
            if (++sim.cur_stage[c] < nstages) {
                arrive(&sim, &sim.dims[sched->stages[ph + 1].dim], c, now);
            }
        }
    }

    out->stats.total_time = now;
    if (now > 0) {
        /* util = (bits/bw) / total; the average weights each dim by bw, so
         * it is sum(bits) / (sum(bw) x total).  Transfer times first, in
         * ps, so nothing overflows 128 bits; the truncation is < 1 ps. */
        u128 sum_bits_ps = 0, sum_bw = 0;
        for (int k = 0; k < n; k++) {
            u128 bits_ps = (u128) out->stats.bytes_sent[k] * 8 * 1000000000000ULL;
            sum_bits_ps += bits_ps;
            sum_bw += topo->dims[k].bw_bps;
            out->stats.util_ppm[k] =
                (uint32_t) (bits_ps / topo->dims[k].bw_bps * 1000000U / now);
        }
        out->stats.avg_util_ppm = (uint32_t) (sum_bits_ps / sum_bw * 1000000U / now);
    }
    st = THEMIS_OK;

done:
    sim_free(&sim);
    if (THEMIS_OK != st) {
        themis_sim_result_free(out);
    }
    return st;
}
