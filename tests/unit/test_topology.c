/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Topology strings, files, presets and value parsers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "topology.h"
#include "unit.h"

/* Parses text that must fail; checks status and the reported position. */
static void expect_error(const char *text, int line, int col, const char *needle)
{
    themis_topology_t t;
    themis_parse_error_t e;
    themis_status_t st = themis_topology_parse(text, &t, &e);
    UNIT_CHECKF(THEMIS_ERR_PARSE == st, "'%s' parsed (status %d)", text, st);
    UNIT_CHECKF(e.line == line && e.column == col, "'%s': got %d:%d (%s), want %d:%d", text,
                e.line, e.column, e.message, line, col);
    UNIT_CHECKF(NULL != strstr(e.message, needle), "'%s': message '%s' lacks '%s'", text,
                e.message, needle);
}

static void test_presets_parse(void)
{
    UNIT_CHECK(6 == themis_topology_npresets);
    for (int i = 0; i < themis_topology_npresets; i++) {
        const char *name = themis_topology_presets[i].name;
        themis_topology_t t;
        themis_parse_error_t e;
        UNIT_CHECKF(THEMIS_OK == themis_topology_parse(name, &t, &e), "%s: %s", name,
                    e.message);
        UNIT_CHECKF(1024 == themis_topology_npus(&t), "%s has %llu NPUs", name,
                    (unsigned long long) themis_topology_npus(&t));
        UNIT_CHECKF(t.ndims == name[0] - '0', "%s has %d dims", name, t.ndims);
        UNIT_CHECK(THEMIS_OK == themis_topology_check(&t, NULL, 0));
        /* Kinds follow the name: "2D-SW_SW" -> sw, sw. */
        const char *p = strchr(name, '-') + 1;
        for (int k = 0; k < t.ndims; k++) {
            themis_dim_kind_t kind = t.dims[k].kind;
            if (0 == strncmp(p, "SW", 2)) {
                UNIT_CHECKF(THEMIS_DIM_SWITCH == kind, "%s dim %d", name, k);
            } else if (0 == strncmp(p, "FC", 2)) {
                UNIT_CHECKF(THEMIS_DIM_FC == kind, "%s dim %d", name, k);
            } else {
                UNIT_CHECKF(0 == strncmp(p, "Ring", 4) &&
                                (THEMIS_DIM_RING == kind || THEMIS_DIM_BIRING == kind),
                            "%s dim %d", name, k);
            }
            p = strchr(p, '_');
            p = (NULL != p) ? p + 1 : "";
        }
        /* Bandwidth never increases outward, the outermost latency is the
         * NIC's 1700 ns. */
        for (int k = 1; k < t.ndims; k++) {
            UNIT_CHECKF(t.dims[k].bw_bps <= t.dims[k - 1].bw_bps, "%s dim %d", name, k);
        }
        UNIT_CHECK(1700000 == t.dims[t.ndims - 1].step_latency);
        /* The same string in another case is the same preset. */
        char lower[64];
        snprintf(lower, sizeof(lower), "%s", name);
        for (char *c = lower; *c; c++) {
            *c = (char) ((*c >= 'A' && *c <= 'Z') ? *c - 'A' + 'a' : *c);
        }
        themis_topology_t t2;
        UNIT_CHECK(THEMIS_OK == themis_topology_parse(lower, &t2, &e));
        UNIT_CHECK(0 == memcmp(&t, &t2, sizeof(t)));
    }
}

static void test_preset_values(void)
{
    themis_topology_t t;
    themis_parse_error_t e;
    UNIT_CHECK(THEMIS_OK == themis_topology_parse("2D-SW_SW", &t, &e));
    UNIT_CHECK(2 == t.ndims && 16 == t.dims[0].size && 64 == t.dims[1].size);
    UNIT_CHECK(1200000000000ULL == t.dims[0].bw_bps && 800000000000ULL == t.dims[1].bw_bps);
    UNIT_CHECK(700000 == t.dims[0].step_latency && 1700000 == t.dims[1].step_latency);

    UNIT_CHECK(THEMIS_OK == themis_topology_parse("3D-FC_Ring_SW", &t, &e));
    UNIT_CHECK(8 == t.dims[0].size && 16 == t.dims[1].size && 8 == t.dims[2].size);
    UNIT_CHECK(THEMIS_DIM_FC == t.dims[0].kind && THEMIS_DIM_BIRING == t.dims[1].kind);
    UNIT_CHECK(1400000000000ULL == t.dims[0].bw_bps && 400000000000ULL == t.dims[2].bw_bps);

    UNIT_CHECK(THEMIS_OK == themis_topology_parse("4D-Ring_FC_Ring_SW", &t, &e));
    UNIT_CHECK(4 == t.dims[0].size && 8 == t.dims[1].size && 4 == t.dims[2].size &&
               8 == t.dims[3].size);
    UNIT_CHECK(THEMIS_DIM_RING == t.dims[0].kind && THEMIS_DIM_BIRING == t.dims[2].kind);
    UNIT_CHECK(3000000000000ULL == t.dims[0].bw_bps && 20000 == t.dims[0].step_latency);

    UNIT_CHECK(THEMIS_OK == themis_topology_parse("4D-Ring_SW_SW_SW", &t, &e));
    UNIT_CHECK(4 == t.dims[0].size && 4 == t.dims[1].size && 8 == t.dims[2].size);
    UNIT_CHECK(2000000000000ULL == t.dims[0].bw_bps && 1600000000000ULL == t.dims[1].bw_bps);
}

static void test_compact_parse(void)
{
    themis_topology_t t;
    themis_parse_error_t e;
    UNIT_CHECK(THEMIS_OK ==
               themis_topology_parse("ring:4:1.5Gb:0.5us,FC:2:100mbit:10ps_biring:3:7b:0s", &t, &e));
    UNIT_CHECK(3 == t.ndims && 24 == themis_topology_npus(&t));
    UNIT_CHECK(THEMIS_DIM_RING == t.dims[0].kind && 4 == t.dims[0].size);
    UNIT_CHECK(1500000000ULL == t.dims[0].bw_bps && 500000 == t.dims[0].step_latency);
    UNIT_CHECK(THEMIS_DIM_FC == t.dims[1].kind && 100000000ULL == t.dims[1].bw_bps &&
               10 == t.dims[1].step_latency);
    UNIT_CHECK(THEMIS_DIM_BIRING == t.dims[2].kind && 7 == t.dims[2].bw_bps &&
               0 == t.dims[2].step_latency);
    /* Surrounding whitespace and a trailing comment are fine. */
    UNIT_CHECK(THEMIS_OK == themis_topology_parse("  sw:8:1Tb:1ms  # pod\n", &t, &e));
    UNIT_CHECK(1 == t.ndims && 1000000000000ULL == t.dims[0].bw_bps &&
               1000000000ULL == t.dims[0].step_latency);
}

static void test_format_roundtrip(void)
{
    const char *specs[] = {"ring:4:1.5Gb:0.5us_fc:2:100mbit:10ps_biring:3:7b:0s",
                           "sw:1:1Kb:1s", "3D-SW_SW_SW_hetero"};
    for (int i = 0; i < themis_topology_npresets + 3; i++) {
        const char *s = (i < 3) ? specs[i] : themis_topology_presets[i - 3].spec;
        themis_topology_t a, b;
        themis_parse_error_t e;
        char buf[256];
        UNIT_CHECK(THEMIS_OK == themis_topology_parse(s, &a, &e));
        int n = themis_topology_format(&a, buf, sizeof(buf));
        UNIT_CHECKF(n > 0 && (size_t) n < sizeof(buf), "%s", s);
        UNIT_CHECKF(THEMIS_OK == themis_topology_parse(buf, &b, &e), "%s -> %s: %s", s, buf,
                    e.message);
        UNIT_CHECKF(0 == memcmp(&a, &b, sizeof(a)), "%s -> %s", s, buf);
        /* Length query without a buffer, and truncation keeps a NUL. */
        UNIT_CHECK(n == themis_topology_format(&a, NULL, 0));
        char small[8];
        UNIT_CHECK(n == themis_topology_format(&a, small, sizeof(small)));
        UNIT_CHECK(strlen(small) == sizeof(small) - 1);
    }
    themis_topology_t t;
    themis_parse_error_t e;
    char buf[128];
    UNIT_CHECK(THEMIS_OK == themis_topology_parse("2D-SW_SW", &t, &e));
    themis_topology_format(&t, buf, sizeof(buf));
    UNIT_CHECKF(0 == strcmp(buf, "sw:16:1200Gb:700ns_sw:64:800Gb:1700ns"), "%s", buf);
}

static void test_file_format(void)
{
    char path[] = "/tmp/themis_topo_XXXXXX";
    int fd = mkstemp(path);
    UNIT_CHECK(fd >= 0);
    if (fd < 0) {
        return;
    }
    const char *text = "# a 3D test network\n"
                       "\n"
                       "sw     16  1200Gb  700ns   # node\n"
                       "  ring  4   400gbit 1.7us\n"
                       "fc 2 1Tb 20ns\n";
    UNIT_CHECK((ssize_t) strlen(text) == write(fd, text, strlen(text)));
    close(fd);
    themis_topology_t t;
    themis_parse_error_t e;
    UNIT_CHECKF(THEMIS_OK == themis_topology_load_file(path, &t, &e), "%d:%d %s", e.line,
                e.column, e.message);
    UNIT_CHECK(3 == t.ndims && 128 == themis_topology_npus(&t));
    UNIT_CHECK(THEMIS_DIM_RING == t.dims[1].kind && 400000000000ULL == t.dims[1].bw_bps &&
               1700000 == t.dims[1].step_latency);

    /* An error in the file reports the file's line and column. */
    fd = open(path, O_WRONLY | O_TRUNC);
    const char *bad = "sw 16 1200Gb 700ns\n\n# x\nring 4 400Gb 1.7xs\n";
    UNIT_CHECK((ssize_t) strlen(bad) == write(fd, bad, strlen(bad)));
    close(fd);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_topology_load_file(path, &t, &e));
    UNIT_CHECKF(4 == e.line && 17 == e.column, "%d:%d %s", e.line, e.column, e.message);
    unlink(path);

    UNIT_CHECK(THEMIS_ERR_IO == themis_topology_load_file("/nonexistent/topo", &t, &e));
    UNIT_CHECK(NULL != strstr(e.message, "cannot open"));
}

/* Writes text then pad bytes of filler to a new file; returns its path. */
static int write_file(char *path, const char *text, size_t pad, char filler)
{
    int fd = mkstemp(path);
    if (fd < 0) {
        return -1;
    }
    int ok = (ssize_t) strlen(text) == write(fd, text, strlen(text));
    char block[4096];
    memset(block, filler, sizeof(block));
    while (ok && pad > 0) {
        size_t k = pad < sizeof(block) ? pad : sizeof(block);
        ok = (ssize_t) k == write(fd, block, k);
        pad -= k;
    }
    close(fd);
    return ok ? 0 : -1;
}

/* Files up to 1 MiB are read whole, whatever their size; larger ones and
 * binary ones are refused. */
static void test_file_sizes(void)
{
    static const char *dim = "sw 4 1Gb 1us\n#";
    const size_t mib = 1 << 20;
    themis_topology_t t;
    themis_parse_error_t e;
    char path[] = "/tmp/themis_topo_XXXXXX";

    UNIT_CHECK(0 == write_file(path, dim, 100000, ' '));
    UNIT_CHECKF(THEMIS_OK == themis_topology_load_file(path, &t, &e), "%s", e.message);
    UNIT_CHECK(1 == t.ndims && 4 == t.dims[0].size);
    unlink(path);

    strcpy(path, "/tmp/themis_topo_XXXXXX");
    UNIT_CHECK(0 == write_file(path, dim, mib - strlen(dim), ' '));
    UNIT_CHECKF(THEMIS_OK == themis_topology_load_file(path, &t, &e), "%s", e.message);
    unlink(path);

    strcpy(path, "/tmp/themis_topo_XXXXXX");
    UNIT_CHECK(0 == write_file(path, dim, mib - strlen(dim) + 1, ' '));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_topology_load_file(path, &t, &e));
    UNIT_CHECKF(NULL != strstr(e.message, "larger than"), "%s", e.message);
    unlink(path);

    strcpy(path, "/tmp/themis_topo_XXXXXX");
    UNIT_CHECK(0 == write_file(path, dim, 5000, '\0'));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_topology_load_file(path, &t, &e));
    UNIT_CHECKF(NULL != strstr(e.message, "binary file"), "%s", e.message);
    unlink(path);
}

/* Only regular files are read, and nothing blocks: a FIFO without a
 * writer, a directory and a device are refused at once; a file larger
 * than the limit is refused by its size, before a byte is read (the sparse
 * file here would take seconds to read); a UTF-8 byte order mark is not
 * part of the text. */
static void test_file_kinds(void)
{
    char dir[] = "/tmp/themis_kinds_XXXXXX";
    char path[64], *text = NULL;
    themis_parse_error_t e;

    UNIT_CHECK(NULL != mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/fifo", dir);
    UNIT_CHECK(0 == mkfifo(path, 0600));
    UNIT_CHECK(THEMIS_ERR_IO == themis_read_text_file(path, 100, "test file", &text, &e));
    UNIT_CHECKF(NULL != strstr(e.message, "a FIFO, not a regular file"), "%s", e.message);
    UNIT_CHECK(NULL == text);
    unlink(path);

    UNIT_CHECK(THEMIS_ERR_IO == themis_read_text_file(dir, 100, "test file", &text, &e));
    UNIT_CHECKF(NULL != strstr(e.message, "a directory, not a regular file"), "%s", e.message);
    UNIT_CHECK(THEMIS_ERR_IO == themis_read_text_file("/dev/null", 100, "test file", &text, &e));
    UNIT_CHECKF(NULL != strstr(e.message, "a character device"), "%s", e.message);

    snprintf(path, sizeof(path), "%s/big", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    UNIT_CHECK(fd >= 0 && 0 == ftruncate(fd, (off_t) THEMIS_INPUT_MAX_FILE + 1));
    close(fd);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_read_text_file(path, THEMIS_INPUT_MAX_FILE, "test file",
                                                         &text, &e));
    UNIT_CHECKF(NULL != strstr(e.message, "larger than 67108864 bytes, not a test file"), "%s",
                e.message);

    fd = open(path, O_WRONLY | O_TRUNC);
    UNIT_CHECK(fd >= 0 && 9 == write(fd, "\xEF\xBB\xBFsw 4 1", 9));
    close(fd);
    UNIT_CHECK(THEMIS_OK == themis_read_text_file(path, 100, "test file", &text, &e));
    UNIT_CHECKF(NULL != text && 0 == strcmp(text, "sw 4 1"), "'%s'", text);
    free(text);
    unlink(path);
    rmdir(dir);
}

static void test_parse_errors(void)
{
    expect_error("xx:4:1Gb:1us", 1, 1, "unknown dimension kind 'xx'");
    expect_error("sw:4:1Gb:1us_torus:4:1Gb:1us", 1, 14, "unknown dimension kind");
    expect_error("sw:4:1Gb", 1, 9, "missing field LATENCY");
    expect_error("sw:4", 1, 5, "missing field BANDWIDTH");
    expect_error("sw:4:1GB:1us", 1, 7, "bad unit");
    expect_error("sw:4:1Gbs:1us", 1, 7, "bad unit");
    /* The one unit syntax: bit/s as Gb, Gbit or Gbps; sizes as 1M (MiB). */
    themis_topology_t gbps;
    themis_parse_error_t gbps_err;
    uint64_t b = 0;
    UNIT_CHECK(THEMIS_OK == themis_topology_parse("sw:4:100Gbps:1us", &gbps, &gbps_err) &&
               100000000000ULL == gbps.dims[0].bw_bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("1M", &b) && (1ULL << 20) == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("1MB", &b) && 1000000ULL == b);
    expect_error("sw:4:1Gb:10", 1, 12, "missing unit");
    expect_error("sw:4:1Gb:10 us", 1, 13, "has no spaces");
    expect_error("sw:4:Gb:1us", 1, 6, "expected a number");
    expect_error("sw:4:1.5b:1us", 1, 6, "whole number");
    expect_error("sw:4:0Gb:1us", 1, 6, "> 0");
    expect_error("sw:0:1Gb:1us", 1, 4, "size must be an integer >= 1");
    expect_error("sw:-2:1Gb:1us", 1, 4, "not an integer");
    expect_error("sw:4:1Gb:1us:9", 1, 14, "too many fields");
    expect_error("sw:4:1Gb:1001ms", 1, 10, "above 1 s");
    expect_error("sw:4:1Gb:1us__sw:4:1Gb:1us", 1, 14, "empty dimension");
    expect_error("sw:65536:1Gb:1us_sw:65536:1Gb:1us", 1, 21, "more than");
    expect_error("", 1, 1, "empty topology");
    expect_error("# only a comment\n\n", 1, 1, "empty topology");
    expect_error("sw 4 1Gb 1us\nsw 4 1Gb\n", 2, 9, "missing field LATENCY");
    expect_error("sw 4 1Gb 1us extra\n", 1, 14, "extra field");
    expect_error("sw 4 1Gb 1us\n  mesh 4 1Gb 1us\n", 2, 3, "unknown dimension kind 'mesh'");
    /* Nine dimensions: the ninth is reported. */
    expect_error("sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us_"
                 "sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us_sw:2:1Gb:1us",
                 1, 105, "too many dimensions");
    expect_error("fc 2 1Gb 1ns\nfc 2 1Gb 1ns\nfc 2 1Gb 1ns\nfc 2 1Gb 1ns\nfc 2 1Gb 1ns\n"
                 "fc 2 1Gb 1ns\nfc 2 1Gb 1ns\nfc 2 1Gb 1ns\nfc 2 1Gb 1ns\n",
                 9, 1, "too many dimensions");

    themis_topology_t t;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_topology_parse(NULL, &t, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_topology_parse("bogus", &t, NULL));
}

static void test_value_parsers(void)
{
    uint64_t bps = 0;
    themis_time_t ps = 0;
    const char *end = NULL;
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("400Gb", &bps, NULL) &&
               400000000000ULL == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("100mbit", &bps, NULL) && 100000000ULL == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("2.5Kb", &bps, NULL) && 2500 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("18446744073709551615b", &bps, NULL) &&
               UINT64_MAX == bps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("18446744073709551616b", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("100000000Tb", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("400", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("400Gb ", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("0b", &bps, NULL));
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("400Gb,next", &bps, &end) && ',' == *end);
    UNIT_CHECK(THEMIS_OK == themis_parse_latency("700ns", &ps, NULL) && 700000 == ps);
    UNIT_CHECK(THEMIS_OK == themis_parse_latency("1.25us", &ps, NULL) && 1250000 == ps);
    UNIT_CHECK(THEMIS_OK == themis_parse_latency("3s", &ps, NULL) && 3000000000000ULL == ps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("0.5ps", &ps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("5min", &ps, &end) && 'm' == *end);
}

/* Byte rates: x8 exactly, decimal and binary; a fraction of a bit/s or
 * more than 2^64 bit/s is rejected. */
static void test_value_byte_rates(void)
{
    uint64_t bps = 0;
    const char *end = NULL;
    themis_topology_t t;
    themis_parse_error_t e;

    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("25GB/s", &bps, NULL) &&
               200000000000ULL == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("1B/s", &bps, NULL) && 8 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("3KB/s", &bps, NULL) && 24000 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("3kB/s", &bps, NULL) && 24000 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("12.5MB/s", &bps, NULL) && 100000000 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("2TB/s", &bps, NULL) &&
               16000000000000ULL == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("1KiB/s", &bps, NULL) && 8192 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("1MiB/s", &bps, NULL) && (8ULL << 20) == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("1.5GiB/s", &bps, NULL) &&
               (12ULL << 30) == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("1TiB/s", &bps, NULL) && (8ULL << 40) == bps);
    /* 0.125 B/s is one bit/s; 2^-33 GiB/s too (33 decimals, exact). */
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("0.125B/s", &bps, NULL) && 1 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("0.000000000116415321826934814453125GiB/s",
                                                   &bps, NULL) && 1 == bps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("0.1B/s", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("0.0625B/s", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("0.0000000001GiB/s", &bps, NULL));
    /* 2^61 B/s is 2^64 bit/s: one too many. */
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("2305843009213693951B/s", &bps, NULL) &&
               UINT64_MAX - 7 == bps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("2305843009213693952B/s", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("2097152TiB/s", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("0GB/s", &bps, NULL));
    /* Gb stays gigabit; GB alone, gb/s, GB/x are no units. */
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("25Gb", &bps, NULL) && 25000000000ULL == bps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("25GB", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("25gb/s", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("25GB/x", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("25GB/", &bps, NULL));
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("25GB/s,x", &bps, &end) && ',' == *end);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("25Gb/7", &bps, &end) && '/' == *end);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("25Gb/s", &bps, NULL) && 25000000000ULL == bps);
    /* In topology strings and files, and formatted back as bits. */
    UNIT_CHECKF(THEMIS_OK == themis_topology_parse("sw:8:25GB/s:1us", &t, &e), "%s", e.message);
    UNIT_CHECK(200000000000ULL == t.dims[0].bw_bps);
    UNIT_CHECKF(THEMIS_OK == themis_topology_parse("ring 4 1GiB/s 1us\nfc 2 1Gb 1us\n", &t, &e),
                "%s", e.message);
    UNIT_CHECK(2 == t.ndims && (8ULL << 30) == t.dims[0].bw_bps);
    char buf[64];
    themis_topology_parse("sw:8:25GB/s:1us", &t, &e);
    themis_topology_format(&t, buf, sizeof(buf));
    UNIT_CHECKF(0 == strcmp("sw:8:200Gb:1us", buf), "%s", buf);
    expect_error("sw:4:0.1B/s:1us", 1, 6, "not a whole number");
}

/* PRE, then N copies of C, then POST, in buf (cut to len). */
static const char *digits(char *buf, size_t len, const char *pre, char c, int n,
                          const char *post)
{
    size_t k = (size_t) snprintf(buf, len, "%s", pre);
    for (int i = 0; i < n && k + 1 < len; i++) {
        buf[k++] = c;
    }
    snprintf(buf + k, len - k, "%s", post);
    return buf;
}

/* Any number of digits is exact or rejected: 10^digits used to wrap to 0
 * (SIGFPE from 128 fraction digits, wrong results from 39). */
static void test_value_long_digits(void)
{
    char s[1024];
    uint64_t bps = 0;
    themis_time_t ps = 0;
    const char *end = NULL;

    /* 0.(130 zeros)5 s: not a whole ps, with or without an end pointer
     * (coll_themis_params.c passes one). */
    digits(s, sizeof(s), "0.", '0', 130, "5s");
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency(s, &ps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency(s, &ps, &end) && s == end);
    digits(s, sizeof(s), "0.", '0', 130, "5Gb");
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth(s, &bps, &end) && s == end);
    digits(s, sizeof(s), "0.", '0', 38, "1Tb");
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth(s, &bps, NULL));
    /* Trailing zeros after the unit's last whole digit are exact. */
    digits(s, sizeof(s), "0.5", '0', 500, "us");
    UNIT_CHECK(THEMIS_OK == themis_parse_latency(s, &ps, NULL) && 500000 == ps);
    digits(s, sizeof(s), "1.", '0', 300, "b");
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth(s, &bps, NULL) && 1 == bps);
    digits(s, sizeof(s), "2.000000000001", '0', 100, "Tb");
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth(s, &bps, NULL) && 2000000000001ULL == bps);
    digits(s, sizeof(s), "2.0000000000001", '0', 100, "Tb");
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth(s, &bps, NULL));
    /* Leading zeros do not count towards the size. */
    digits(s, sizeof(s), "", '0', 400, "7ns");
    UNIT_CHECK(THEMIS_OK == themis_parse_latency(s, &ps, NULL) && 7000 == ps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth(".5Kb", &bps, NULL) && 500 == bps);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("5.Kb", &bps, NULL) && 5000 == bps);
}

/* 64-bit range: the integer part, the unit multiplication and the
 * fraction each overflow on their own. */
static void test_value_overflow(void)
{
    char s[256];
    uint64_t bps = 0;
    themis_time_t ps = 0;

    digits(s, sizeof(s), "1", '0', 99, "b");
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth(s, &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("99999999999999999999b", &bps, NULL));
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("18446744073709551Kb", &bps, NULL) &&
               18446744073709551000ULL == bps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("18446744073709552Kb", &bps, NULL));
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("18446744.073709551615Tb", &bps, NULL) &&
               UINT64_MAX == bps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("18446744.073709551616Tb", &bps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_bandwidth("18446745Tb", &bps, NULL));
    UNIT_CHECK(THEMIS_OK == themis_parse_latency("18446744s", &ps, NULL) &&
               18446744000000000000ULL == ps);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("18446745s", &ps, NULL));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("18446744.1s", &ps, NULL));
}

/* No number, or a number followed by something that is not its unit. */
static void test_value_junk(void)
{
    static const char *bad[] = {"",     ".",      "Gb",    ".Gb",    "+1Gb",  "-1Gb", " 1Gb",
                                "1 Gb", "1Gbx",   "1Gb!",  "1e9b",   "1.5.5Gb", "1..5Gb",
                                "0x10Gb", "1,5Gb", "\x80" "1Gb", "1Gb\x80"};
    uint64_t bps = 0;
    themis_time_t ps = 0;
    const char *end = NULL;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        UNIT_CHECKF(THEMIS_ERR_PARSE == themis_parse_bandwidth(bad[i], &bps, NULL), "'%s'",
                    bad[i]);
    }
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("", &ps, &end));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("us", &ps, &end));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_latency("1usx", &ps, &end));
    /* With an end pointer the value stops before characters that are no
     * part of it. */
    UNIT_CHECK(THEMIS_OK == themis_parse_latency("1us!", &ps, &end) && '!' == *end);
    UNIT_CHECK(THEMIS_OK == themis_parse_bandwidth("1Gb 2Gb", &bps, &end) && ' ' == *end);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_parse_latency(NULL, &ps, &end));
}

/* Long fields in a topology: parsed whole (they used to be cut at 63
 * characters), and the reason stays in the message. */
static void test_long_fields(void)
{
    char s[1024], f[512];
    themis_topology_t t;
    themis_parse_error_t e;

    snprintf(s, sizeof(s), "sw:4:1Gb:%s", digits(f, sizeof(f), "0.", '0', 130, "5s"));
    expect_error(s, 1, 10, "not a whole number");
    snprintf(s, sizeof(s), "sw 4 %s 1us\n", digits(f, sizeof(f), "0.", '0', 130, "5Gb"));
    expect_error(s, 1, 6, "not a whole number");
    snprintf(s, sizeof(s), "sw:4:1Gb:%s", digits(f, sizeof(f), "1", '0', 200, "ps"));
    expect_error(s, 1, 10, "number too large");
    snprintf(s, sizeof(s), "sw:4:1Gb:1us%s", digits(f, sizeof(f), "", 'x', 200, ""));
    expect_error(s, 1, 11, "bad unit");
    snprintf(s, sizeof(s), "sw:%s:1Gb:1us", digits(f, sizeof(f), "", '9', 200, ""));
    expect_error(s, 1, 4, "is too large");
    snprintf(s, sizeof(s), "%s:4:1Gb:1us", digits(f, sizeof(f), "", 'q', 200, ""));
    expect_error(s, 1, 1, "(expected ring, biring, fc or sw)");

    snprintf(s, sizeof(s), "sw:4:%s:%s", digits(f, sizeof(f), "1.", '0', 300, "Gb"), "0.25us");
    UNIT_CHECKF(THEMIS_OK == themis_topology_parse(s, &t, &e), "%s", e.message);
    UNIT_CHECK(1 == t.ndims && 1000000000ULL == t.dims[0].bw_bps &&
               250000 == t.dims[0].step_latency);
}

/* Sizes (themis-plan --bytes, --min-chunk) and millionths. */
static void test_size_parser(void)
{
    uint64_t b = 0;
    UNIT_CHECK(THEMIS_OK == themis_parse_size("65536", &b) && 65536 == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("1GB", &b) && 1000000000ULL == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("4mib", &b) && 4194304ULL == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("1.5KB", &b) && 1500 == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("0.5KiB", &b) && 512 == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("1.000001GB", &b) && 1000001000ULL == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_size("16777215TiB", &b) && 16777215ULL << 40 == b);
    /* The whole 64-bit range: the last ten values used to be refused. */
    UNIT_CHECK(THEMIS_OK == themis_parse_size("18446744073709551615B", &b) && UINT64_MAX == b);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("18446744073709551616", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("16777216TiB", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("18446744073709551.616KB", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("1.5B", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("1.0000001GB", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size(".", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("12XB", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("1GB ", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_size("-1", &b));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_parse_size(NULL, &b));
    /* Millionths (themis-plan --duplex): the same decimals, no unit. */
    UNIT_CHECK(THEMIS_OK == themis_parse_ppm("0.9", &b) && 900000 == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_ppm("1", &b) && 1000000 == b);
    UNIT_CHECK(THEMIS_OK == themis_parse_ppm("0.000001", &b) && 1 == b);
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_ppm("0.0000001", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_ppm("0.9MB", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_ppm("x", &b));
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_parse_ppm("-0.5", &b));
}

static void test_check(void)
{
    themis_topology_t t;
    char msg[96];
    memset(&t, 0, sizeof(t));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_topology_check(&t, msg, sizeof(msg)));
    UNIT_CHECK(THEMIS_OK == themis_topology_parse("sw:4:1Gb:1us", &t, NULL));
    UNIT_CHECK(THEMIS_OK == themis_topology_check(&t, msg, sizeof(msg)));
    t.dims[0].bw_bps = 0;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_topology_check(&t, msg, sizeof(msg)));
    UNIT_CHECK(NULL != strstr(msg, "dimension 0"));
}

int main(void)
{
    UNIT_RUN(test_presets_parse);
    UNIT_RUN(test_preset_values);
    UNIT_RUN(test_compact_parse);
    UNIT_RUN(test_format_roundtrip);
    UNIT_RUN(test_file_format);
    UNIT_RUN(test_file_sizes);
    UNIT_RUN(test_file_kinds);
    UNIT_RUN(test_parse_errors);
    UNIT_RUN(test_value_parsers);
    UNIT_RUN(test_value_byte_rates);
    UNIT_RUN(test_value_long_digits);
    UNIT_RUN(test_value_overflow);
    UNIT_RUN(test_value_junk);
    UNIT_RUN(test_long_fields);
    UNIT_RUN(test_size_parser);
    UNIT_RUN(test_check);
    UNIT_EXIT();
}
