/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A multi-dimensional network: dimension 0 is the innermost (fastest
 * varying rank coordinate, usually the highest bandwidth).
 *
 * Compact string: dimensions separated by '_' (or ','), each
 *     KIND:SIZE:BANDWIDTH:LATENCY      e.g.  "sw:16:1200Gb:700ns_sw:64:800Gb:1700ns"
 *   KIND      ring | biring | fc | sw
 *   SIZE      integer >= 1 (number of peers on that dimension)
 *   BANDWIDTH per-NPU aggregate, unidirectional: number + b|Kb|Mb|Gb|Tb
 *             (bit/s, decimal; "mbit"/"gbit" as in tc, "Gbps" and "Gb/s"
 *             are accepted too),
 *             or a byte rate B/s|KB/s|MB/s|GB/s|TB/s (decimal) or
 *             KiB/s|MiB/s|GiB/s|TiB/s (binary): "25GB/s" = 200Gb
 *   LATENCY   step latency: number + ps|ns|us|ms|s
 * A preset name (see themis_topology_presets) is also a valid string.
 * Kinds and preset names are case-insensitive ("switch" = "sw"); numbers
 * may have a fraction ("1.5Gb") but must come to a whole bit/s or ps.
 *
 * File format: one dimension per line, "KIND SIZE BANDWIDTH LATENCY",
 * '#' starts a comment, blank lines ignored.
 *
 * themis_topology_parse takes either form: text whose only content is one
 * token (surrounding blanks and comments allowed) is a compact string or
 * preset name, anything else the line format.  load_file reads a file and
 * parses it the same way.
 */
#ifndef THEMIS_TOPOLOGY_H
#define THEMIS_TOPOLOGY_H

#include "themis_types.h"
#include "util.h"

typedef enum {
    THEMIS_DIM_RING = 0,   /* unidirectional ring: ring algorithm */
    THEMIS_DIM_BIRING = 1, /* bidirectional ring: two counter-rotating rings */
    THEMIS_DIM_FC = 2,     /* fully connected: direct algorithm */
    THEMIS_DIM_SWITCH = 3  /* switch: halving-doubling (direct when small) */
} themis_dim_kind_t;

typedef struct {
    uint32_t size;             /* peers on this dimension */
    themis_dim_kind_t kind;
    uint64_t bw_bps;           /* per-NPU aggregate bandwidth, bit/s, > 0 */
    themis_time_t step_latency;/* ps */
} themis_dim_t;

typedef struct {
    int ndims;
    themis_dim_t dims[THEMIS_MAX_DIMS];
} themis_topology_t;

/* Rates coll/themis assumes for a dimension crossing a socket, a node or
 * the network when none are given (the network's is shared by the ranks
 * of a node); themis-plan --dims uses the network's. */
#define THEMIS_DEFAULT_SOCKET_BW_BPS 200000000000ULL
#define THEMIS_DEFAULT_SOCKET_LAT_PS 300000ULL
#define THEMIS_DEFAULT_NODE_BW_BPS 100000000000ULL
#define THEMIS_DEFAULT_NODE_LAT_PS 600000ULL
#define THEMIS_DEFAULT_NETWORK_BW_BPS 100000000000ULL
#define THEMIS_DEFAULT_NETWORK_LAT_PS 2000000ULL


themis_status_t themis_topology_parse(const char *text, themis_topology_t *topo,
                                      themis_parse_error_t *err);
themis_status_t themis_topology_load_file(const char *path, themis_topology_t *topo,
                                          themis_parse_error_t *err);
/* A token of a line-oriented file: not NUL terminated, 1-based line and
 * column (for error positions). */
typedef struct {
    const char *p;
    size_t len;
    int line;
    int col;
} themis_token_t;
/* Splits one line (comment already removed) into whitespace tokens: the
 * first max in toks; returns how many there are. */
int themis_split_ws(const char *p, size_t len, int line, themis_token_t *toks, int max);

/* Canonical compact string (round-trips through themis_topology_parse),
 * largest exact units, '_' separators.  Returns the length it needs, like
 * snprintf (-1 on bad input). */
int themis_topology_format(const themis_topology_t *topo, char *buf, size_t len);
uint64_t themis_topology_npus(const themis_topology_t *topo);
/* THEMIS_OK when topo is usable by the planners: 1..THEMIS_MAX_DIMS dims,
 * sizes >= 1, bandwidths > 0, at most 2^31-1 NPUs, step latency <= 1 s.
 * Otherwise THEMIS_ERR_INVALID with a reason in msg (may be NULL). */
themis_status_t themis_topology_check(const themis_topology_t *topo, char *msg, size_t len);

/* Value parsers shared with the MCA glue: "400Gb", "100mbit", "25GB/s"
 * (bytes/s x 8, exact: a rate that is not a whole bit/s is rejected),
 * "700ns".
 * With end == NULL the whole string must be the value; otherwise *end is
 * set past the value (or at the offending character on error).  A
 * bandwidth must be > 0. */
themis_status_t themis_parse_bandwidth(const char *s, uint64_t *bps, const char **end);
themis_status_t themis_parse_latency(const char *s, themis_time_t *ps, const char **end);
/* Why themis_parse_bandwidth (bandwidth != 0) or themis_parse_latency
 * refuses the value at the start of s ("number too large", "bad unit",
 * ...), NULL when it takes it: for messages. */
const char *themis_parse_value_why(const char *s, int bandwidth);
/* Sizes, as themis-plan takes them: "1GB", "4MiB", "1.5KB", "65536".
 * KB/MB/GB/TB are decimal, KiB/MiB/GiB/TiB and K/M/G/T binary (as dd and
 * the OSU benchmarks take them), no unit or B means
 * bytes (units case-insensitive); at most 6 decimals; the result must be
 * a whole number of bytes.  The whole string must be the size. */
themis_status_t themis_parse_size(const char *s, uint64_t *bytes);
/* A plain decimal number in millionths: "0.9" -> 900000, "1" -> 1000000;
 * at most 6 decimals, no unit.  The whole string must be the number. */
themis_status_t themis_parse_ppm(const char *s, uint64_t *ppm);
/* A shape "4x2x2" (innermost first, as coll_themis_dims): sizes 1 ..
 * INT32_MAX, at most THEMIS_MAX_DIMS; an empty string is 0 dims.  On
 * THEMIS_ERR_PARSE, why says what is wrong. */
themis_status_t themis_parse_dims(const char *s, uint32_t *dims, int *ndims, char *why,
                                  size_t len);

const char *themis_dim_kind_name(themis_dim_kind_t kind);

/* The six Table 2 topologies of themis.txt, by name ("2D-SW_SW", ...). */
typedef struct {
    const char *name;
    const char *spec;
} themis_topology_preset_t;
extern const themis_topology_preset_t themis_topology_presets[];
extern const int themis_topology_npresets;

#endif
