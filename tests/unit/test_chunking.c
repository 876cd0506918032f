/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * planners/core/chunking: the latency-model floor and the chunk count.
 */
#include <stdint.h>
#include <stdio.h>

#include "chunking.h"
#include "topology.h"
#include "unit.h"

static themis_topology_t topo(const char *spec)
{
    themis_topology_t t = {0};
    themis_parse_error_t e;
    if (THEMIS_OK != themis_topology_parse(spec, &t, &e)) {
        printf("  cannot parse %s: %s\n", spec, e.message);
    }
    return t;
}

/* 8 NPUs x 32 us x 91 Mbit/s / 8 = 2912 bytes on d0; d1 is smaller. */
static void latency_floor_is_npus_latency_bandwidth(void)
{
    themis_topology_t t = topo("fc:4:91Mb:32us_fc:2:89Mb:17us");
    UNIT_CHECKF(2912 == themis_chunk_latency_floor(&t), "%llu",
                (unsigned long long) themis_chunk_latency_floor(&t));
    /* Rounded up: 2 NPUs x 1 ps x 1 bit/s is a fraction of a byte. */
    t = topo("fc:2:1b:1ps");
    UNIT_CHECK(1 == themis_chunk_latency_floor(&t));
}

static void count_follows_the_larger_floor(void)
{
    themis_topology_t t = topo("fc:4:91Mb:32us_fc:2:89Mb:17us");
    /* min_chunk 64 KiB above the 2912-byte model floor. */
    UNIT_CHECK(16 == themis_chunk_count(&t, 1 << 20, 1 << 18, 1024, 65536));
    UNIT_CHECK(1024 == themis_chunk_count(&t, 64u << 20, 16u << 20, 1024, 65536));
    UNIT_CHECK(256 == themis_chunk_count(&t, 64u << 20, 16u << 20, 256, 65536));
    /* min_chunk 1: the model floor decides (1 MiB / 2912 = 360). */
    UNIT_CHECK(360 == themis_chunk_count(&t, 1 << 20, 1 << 18, 4096, 1));
    /* Below one floor: one chunk. */
    UNIT_CHECK(1 == themis_chunk_count(&t, 1000, 250, 1024, 65536));
}

static void count_never_exceeds_elements(void)
{
    themis_topology_t t = topo("sw:2:100Gb:0ps_sw:2:100Gb:0ps");
    UNIT_CHECK(0 == themis_chunk_latency_floor(&t));
    UNIT_CHECK(7 == themis_chunk_count(&t, 28, 7, 64, 1));
    UNIT_CHECK(64 == themis_chunk_count(&t, 1 << 20, 1 << 18, 64, 0));
    UNIT_CHECK(1 == themis_chunk_count(&t, 0, 0, 64, 1));
}

/* 1024 NPUs x 1 s x 1000 Tbit/s: 1.28e17 bytes, one chunk even for 1 PiB;
 * a product beyond 128 bits saturates. */
static void huge_floors(void)
{
    themis_topology_t t = topo("sw:1024:1000Tb:1000000000000ps");
    UNIT_CHECKF(128000000000000000ULL == themis_chunk_latency_floor(&t), "%llu",
                (unsigned long long) themis_chunk_latency_floor(&t));
    UNIT_CHECK(1 == themis_chunk_count(&t, 1ULL << 50, 1ULL << 48, 4096, 1));
    t.dims[0].size = 1u << 31;
    t.dims[0].step_latency = UINT64_MAX;
    t.dims[0].bw_bps = UINT64_MAX;
    UNIT_CHECK(UINT64_MAX == themis_chunk_latency_floor(&t));
}

int main(void)
{
    UNIT_RUN(latency_floor_is_npus_latency_bandwidth);
    UNIT_RUN(count_follows_the_larger_floor);
    UNIT_RUN(count_never_exceeds_elements);
    UNIT_RUN(huge_floors);
    UNIT_EXIT();
}
