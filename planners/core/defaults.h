/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/themis' defaults and the trace format's version, written once: the
 * component uses them and themis-plan shows what a call does with them.
 */
#ifndef THEMIS_DEFAULTS_H
#define THEMIS_DEFAULTS_H

/* Most chunks per collective (coll_themis_chunks) and chunks in flight
 * per dimension (coll_themis_chunks_in_flight). */
#define THEMIS_DEFAULT_CHUNKS 1024u
#define THEMIS_DEFAULT_CHUNKS_IN_FLIGHT 2u

/* Chunks per rank of a TACOS synthesis: one keeps the synthesis and the
 * messages few (the component's tacos, themis-plan synth's default). */
#define THEMIS_DEFAULT_TACOS_CHUNKS_PER_NPU 1u

/* Automatic coll_themis_min_bytes and min_chunk_bytes for communicators
 * that span nodes and for those within one node (benchmarks/README.md). */
#define THEMIS_DEFAULT_MIN_BYTES_NETWORK (64u * 1024u)
#define THEMIS_DEFAULT_MIN_BYTES_NODE (32u * 1024u * 1024u)
#define THEMIS_DEFAULT_MIN_CHUNK_NETWORK (16u * 1024u)
#define THEMIS_DEFAULT_MIN_CHUNK_NODE (2u * 1024u * 1024u)

/* Version of the coll_themis_trace files the component writes and
 * themis-plan timeline --trace reads (it refuses newer ones). */
#define THEMIS_TRACE_VERSION 1

#endif
