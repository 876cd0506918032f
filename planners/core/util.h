/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Small helpers every part uses (planners, CLI, component), written once:
 * the monotonic clock, gcd, parse errors and the reader of input files.
 */
#ifndef THEMIS_UTIL_H
#define THEMIS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "themis_types.h"

/* CLOCK_MONOTONIC in ns: for run times and deadlines, never for what a
 * schedule contains. */
uint64_t themis_now_ns(void);

/* gcd(a, b); gcd(a, 0) = a. */
uint64_t themis_gcd(uint64_t a, uint64_t b);

/* qsort/bsearch comparators of uint32_t and uint64_t, ascending. */
int themis_cmp_u32(const void *a, const void *b);
int themis_cmp_u64(const void *a, const void *b);

/* Room for one more element in the growing array *v (n used of *cap, each
 * size bytes): the capacity starts at first and doubles.  0, else -1 (out
 * of memory, or a capacity past 2^31; *v and *cap unchanged).  Inline, so
 * that the common case (room left) costs no call in the hot loops that
 * append (the link simulator's events, the conflict tracker); the
 * doubling is themis_grow_full's. */
int themis_grow_full(void **v, uint32_t *cap, size_t size, uint32_t first);
static inline int themis_grow(void **v, uint32_t n, uint32_t *cap, size_t size, uint32_t first)
{
    return n < *cap ? 0 : themis_grow_full(v, cap, size, first);
}

/* A field as an error message echoes it, in buf (max + 1 bytes): a field
 * longer than max is cut to max - 3 characters and "...", so that the
 * reason after it still fits the message. */
const char *themis_show_field(const char *p, size_t len, char *buf, size_t max);

/* splitmix64 (Steele, Lea, Flood 2014): the next draw of the stream whose
 * state is *x.  The planners' one PRNG: a fixed seed gives the same stream
 * on every machine, never seeded from time. */
uint64_t themis_splitmix64(uint64_t *x);

/* Error detail: 1-based line and column where parsing stopped (the start
 * of the offending field, or of its unit for unit errors; for a missing
 * field, just past the last one).  0:0 for I/O errors. */
typedef struct {
    int line;
    int column;
    char message[160];
} themis_parse_error_t;

/* Sets err (when not NULL) to line:col and the formatted message. */
void themis_set_parse_error(themis_parse_error_t *err, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The one reader of every input file (graph, schedule, rules, topology,
 * traffic): a whole text file of at most max_bytes, NUL-terminated (free
 * *text), a leading UTF-8 byte order mark dropped.  Only a regular file is
 * read, and opening never blocks: a FIFO, directory, socket or device is
 * THEMIS_ERR_IO like a file that cannot be opened or read; THEMIS_ERR_PARSE
 * when it is too large (told by its size, before reading) or binary ("not
 * a <what>"); THEMIS_ERR_NOMEM.  The message in err (0:0). */
#define THEMIS_INPUT_MAX_FILE (64u << 20) /* graph and schedule files, bytes */
/* Its first half for readers of their own (line by line): a read-only
 * descriptor of a regular file, opened without blocking, and its size;
 * -1 with the message in err (0:0) otherwise. */
int themis_open_regular(const char *path, uint64_t *size, themis_parse_error_t *err);
themis_status_t themis_read_text_file(const char *path, size_t max_bytes, const char *what,
                                      char **text, themis_parse_error_t *err);

#endif
