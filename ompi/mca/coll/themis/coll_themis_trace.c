/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll_themis_trace: what each call did, as JSON lines (the format is
 * documented field by field in docs/coll_themis.md; `themis-plan timeline
 * --trace` reads it).  Written with fprintf: the component does not link a
 * JSON library.
 *
 * One file per process, opened at the first traced call and kept open
 * until the component closes; each record is written under one lock (calls
 * on several communicators may run in several threads) and flushed, so a
 * crash loses at most the record being written.  A file that cannot be
 * opened is reported once and tracing stays off for the process.  Nothing
 * here decides anything: a call takes the same path traced or not.
 */
#include "ompi_config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opal/util/proc.h"
#include "ompi/communicator/communicator.h"

#include "coll_themis.h"

/* Bumped when a field changes meaning; new fields do not bump it. */

enum { TRACE_UNTRIED = 0, TRACE_OPEN = 1, TRACE_FAILED = 2 };

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_file;           /* under trace_lock */
static int trace_state;            /* TRACE_*; written under trace_lock */
static uint64_t trace_calls;       /* call records written; under trace_lock */

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; NULL != s && '\0' != *s; ++s) {
        unsigned char ch = (unsigned char) *s;
        if ('"' == ch || '\\' == ch) {
            fputc('\\', f);
            fputc(ch, f);
        } else if (ch < 0x20 || 0x7f == ch) {
            fprintf(f, "\\u%04x", ch);
        } else {
            fputc(ch, f);
        }
    }
    fputc('"', f);
}

/* The name with every "%r" replaced by the world rank, or ".<rank>"
 * appended when it has none.  NULL when out of memory. */
static char *trace_path(const char *name, int rank)
{
    char r[16];
    size_t n = 0, rlen, count = 0;
    char *path, *out;

    rlen = (size_t) snprintf(r, sizeof(r), "%d", rank);
    for (const char *p = strstr(name, "%r"); NULL != p; p = strstr(p + 2, "%r")) {
        ++count;
    }
    n = strlen(name) + 1 + (0 == count ? 1 + rlen : count * rlen);
    path = malloc(n);
    if (NULL == path) {
        return NULL;
    }
    if (0 == count) {
        snprintf(path, n, "%s.%s", name, r);
        return path;
    }
    out = path;
    while ('\0' != *name) {
        if ('%' == name[0] && 'r' == name[1]) {
            memcpy(out, r, rlen);
            out += rlen;
            name += 2;
        } else {
            *out++ = *name++;
        }
    }
    *out = '\0';
    return path;
}

/* Under trace_lock, once per process (until the component closes). */
static void trace_open(const char *name)
{
    const int rank = ompi_comm_rank(&ompi_mpi_comm_world.comm);
    char *path = trace_path(name, rank);
    int err = ENOMEM;

    trace_state = TRACE_FAILED;
    if (NULL != path) {
        trace_file = fopen(path, "we");
        err = errno;
    }
    if (NULL == trace_file) {
        mca_coll_themis_show_help("trace-open", opal_process_info.nodename,
                                  NULL == path ? name : path, strerror(err));
        free(path);
        return;
    }
    fprintf(trace_file, "{\"type\":\"header\",\"format\":\"coll_themis_trace\",\"version\":%d,"
            "\"world_rank\":%d,\"pid\":%ld,\"host\":", THEMIS_TRACE_VERSION, rank, (long) getpid());
    put_string(trace_file, opal_process_info.nodename);
    fprintf(trace_file, ",\"file\":");
    put_string(trace_file, path);
    fprintf(trace_file, "}\n");
    fflush(trace_file);
    free(path);
    __atomic_store_n(&trace_state, TRACE_OPEN, __ATOMIC_RELEASE);
}

bool mca_coll_themis_trace_on(void)
{
    const char *name = mca_coll_themis_component.trace_param;
    int state;

    if (NULL == name || '\0' == name[0]) {
        return false;
    }
    state = __atomic_load_n(&trace_state, __ATOMIC_ACQUIRE);
    if (TRACE_UNTRIED == state) {
        pthread_mutex_lock(&trace_lock);
        if (TRACE_UNTRIED == trace_state) {
            trace_open(name);
        }
        state = trace_state;
        pthread_mutex_unlock(&trace_lock);
    }
    return TRACE_OPEN == state;
}

void mca_coll_themis_trace_close(void)
{
    pthread_mutex_lock(&trace_lock);
    if (NULL != trace_file) {
        fclose(trace_file);
        trace_file = NULL;
    }
    trace_calls = 0;
    __atomic_store_n(&trace_state, TRACE_UNTRIED, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&trace_lock);
}

/* Fields every record about a call has. */
static void put_call_head(FILE *f, ompi_communicator_t *comm, mca_coll_themis_coll_id_t coll,
                          uint64_t bytes)
{
    fprintf(f, "\"comm\":");
    put_string(f, comm->c_name);
    fprintf(f, ",\"comm_rank\":%d,\"comm_size\":%d,\"coll\":\"%s\",\"bytes\":%llu",
            ompi_comm_rank(comm), ompi_comm_size(comm), mca_coll_themis_coll_name(coll),
            (unsigned long long) bytes);
}

void mca_coll_themis_trace_fallback(ompi_communicator_t *comm, mca_coll_themis_coll_id_t coll,
                                    uint64_t bytes, const char *why)
{
    pthread_mutex_lock(&trace_lock);
    if (NULL != trace_file) {
        fprintf(trace_file, "{\"type\":\"fallback\",");
        put_call_head(trace_file, comm, coll, bytes);
        fprintf(trace_file, ",\"reason\":");
        put_string(trace_file, why);
        fprintf(trace_file, "}\n");
        fflush(trace_file);
    }
    pthread_mutex_unlock(&trace_lock);
}

static const char *dim_algo_name(themis_dim_algo_t a)
{
    switch (a) {
    case THEMIS_DIM_ALGO_DIRECT:
        return "direct";
    case THEMIS_DIM_ALGO_BIRING:
        return "biring";
    case THEMIS_DIM_ALGO_RING:
    default:
        return "ring";
    }
}


static void put_topology(FILE *f, const mca_coll_themis_module_t *m)
{
    char spec[512];

    if (themis_topology_format(&m->topo, spec, sizeof(spec)) < 0) {
        spec[0] = '\0';
    }
    fprintf(f, "\"topology\":{\"spec\":");
    put_string(f, spec);
    fprintf(f, ",\"dims\":[");
    for (int k = 0; k < m->topo.ndims; ++k) {
        const themis_dim_t *d = &m->topo.dims[k];
        fprintf(f, "%s{\"size\":%u,\"kind\":\"%s\",\"algo\":\"%s\",\"bw_bps\":%llu,"
                "\"latency_ps\":%llu}", 0 == k ? "" : ",", d->size,
                themis_dim_kind_name(d->kind), dim_algo_name(m->dim_algo[k]),
                (unsigned long long) d->bw_bps, (unsigned long long) d->step_latency);
    }
    fprintf(f, "]}");
}

/* A Themis program's ops carry their chunk, phase and dimension (plan.h,
 * compiled from the plan's transfer list): each chunk's dimension orders
 * are its phases' dimensions in the order its ops first name them. */
static void put_chunk_orders(FILE *f, const themis_program_t *p, uint32_t nchunks)
{
    enum { NPH = 2, W = THEMIS_MAX_DIMS };
    uint8_t *dims = calloc((size_t) nchunks * NPH * (W + 1) + 1, 1);
    fprintf(f, ",\"chunk_orders\":[");
    for (uint32_t i = 0; NULL != dims && i < p->nops; ++i) {
        const themis_op_t ov = themis_program_op(p, i), *o = &ov;
        int ph = THEMIS_PHASE_AG == o->phase ? 1 : 0;
        uint8_t *l = &dims[((size_t) o->chunk * NPH + ph) * (W + 1)];
        int seen = 0;
        for (int k = 0; k < l[0]; ++k) {
            seen |= l[1 + k] == o->dim;
        }
        if (!seen && l[0] < W) {
            l[1 + l[0]++] = o->dim;
        }
    }
    for (uint32_t c = 0; NULL != dims && c < nchunks; ++c) {
        fprintf(f, "%s{\"chunk\":%u", 0 == c ? "" : ",", c);
        for (int ph = 0; ph < NPH; ++ph) {
            const uint8_t *l = &dims[((size_t) c * NPH + ph) * (W + 1)];
            fprintf(f, ",\"%s\":[", 0 == ph ? "rs" : "ag");
            for (int k = 0; k < l[0]; ++k) {
                fprintf(f, "%s%u", 0 == k ? "" : ",", l[1 + k]);
            }
            fprintf(f, "]");
        }
        fprintf(f, "}");
    }
    fprintf(f, "]");
    free(dims);
}

void mca_coll_themis_trace_call(const mca_coll_themis_trace_call_t *c)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const themis_program_t *p = c->prog;
    uint32_t nchunk_ids = 0;
    FILE *f;

    pthread_mutex_lock(&trace_lock);
    f = trace_file;
    if (NULL == f) {
        pthread_mutex_unlock(&trace_lock);
        return;
    }
    fprintf(f, "{\"type\":\"call\",\"call\":%llu,", (unsigned long long) trace_calls++);
    put_call_head(f, c->comm, c->coll, c->bytes);
    fprintf(f, ",\"dtype_size\":%zu", c->dtype_size);
    if (NULL == p) {
        /* 0 bytes: completes without a program */
        fprintf(f, ",\"algorithm\":\"none\",\"chunks\":0,\"ops\":[]}\n");
        fflush(f);
        pthread_mutex_unlock(&trace_lock);
        return;
    }
    for (uint32_t i = 0; i < p->nops; ++i) {
        const uint32_t chunk = themis_program_op(p, i).chunk;
        nchunk_ids = chunk >= nchunk_ids ? chunk + 1 : nchunk_ids;
    }
    fprintf(f, ",\"elem_size\":%zu,\"algorithm\":\"%s\",\"substituted\":%s,\"chunks\":%u,"
            "\"program_chunks\":%u,\"scheduler\":\"%s\",\"intra_order\":\"%s\","
            "\"latency_model\":\"%s\","
            "\"chunks_in_flight\":%u,\"min_chunk_bytes\":%llu,\"messages\":%llu,"
            "\"message_bytes\":%llu,",
            c->elem_size, mca_coll_themis_algorithm_name(c->choice->algo),
            c->choice->substituted ? "true" : "false", c->choice->nchunks, nchunk_ids,
            themis_sched_kind_name(cfg->scheduler), themis_order_policy_name(cfg->order),
            themis_latency_mode_name(cfg->latency),
            p->chunks_in_flight, (unsigned long long) c->module->min_chunk_bytes,
            (unsigned long long) c->choice->messages,
            (unsigned long long) c->choice->message_bytes);
    put_topology(f, c->module);
    fprintf(f, ",\"queues\":%u,\"program_hash\":\"0x%016llx\"", p->nqueues,
            (unsigned long long) themis_program_hash(p));
    if (0 != (themis_algorithm_get(c->choice->algo)->flags & THEMIS_ALGO_FLAG_DIM_ORDERS)) {
        put_chunk_orders(f, p, nchunk_ids);
    }
    fprintf(f, ",\"engine_ns\":%llu,\"ops\":[",
            (unsigned long long) (c->end_ns - c->start_ns));
    /* ops on a dimension where the plan has them (the timeline's rows) */
    const int by_dim = 0 != (themis_algorithm_get(c->choice->algo)->flags
                             & THEMIS_ALGO_FLAG_DIM_ORDERS);
    for (uint32_t i = 0; NULL != c->op_ns && i < p->nops; ++i) {
        const themis_op_t ov = themis_program_op(p, i), *o = &ov;
        fprintf(f, "%s[%u,%u,%u,\"%s\",%lld,%lld]", 0 == i ? "" : ",", i,
                by_dim ? o->dim : o->queue, o->chunk,
                themis_phase_name((themis_phase_t) o->phase),
                (long long) (c->op_ns[2 * (size_t) i] - c->start_ns),
                (long long) (c->op_ns[2 * (size_t) i + 1] - c->start_ns));
    }
    fprintf(f, "]}\n");
    fflush(f);
    pthread_mutex_unlock(&trace_lock);
}
