/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: themis_topology_load_file on any file content.  A file
 * without NUL bytes must give exactly what themis_topology_parse gives
 * for its text (without a leading UTF-8 byte order mark, which the file
 * reader drops); one with a NUL is refused as binary.
 */
#include "fuzz_common.h"

#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[] = "/tmp/themis-fuzz-topo.XXXXXX";
static int fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        fd = mkstemp(path);
        FUZZ_CHECK(fd >= 0);
        /* one file for the whole run, gone when the process ends */
        unlink(path);
    }
    FUZZ_CHECK(0 == ftruncate(fd, 0));
    FUZZ_CHECK((ssize_t) size == pwrite(fd, data, size, 0));

    /* the open descriptor's file, by a path the loader can open */
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    themis_topology_t t;
    themis_parse_error_t e;
    themis_status_t st = themis_topology_load_file(proc, &t, &e);

    if (NULL != memchr(data, '\0', size)) {
        FUZZ_CHECK(THEMIS_ERR_PARSE == st && 0 == e.line && 0 == e.column);
        FUZZ_CHECK(NULL != strstr(e.message, "binary file"));
        return 0;
    }
    size_t bom = (size >= 3 && 0 == memcmp(data, "\xEF\xBB\xBF", 3)) ? 3 : 0;
    char *text = fuzz_cstring(data + bom, size - bom);
    fuzz_check_topology(text, st, &t, &e);
    themis_topology_t t2;
    themis_parse_error_t e2;
    themis_status_t st2 = themis_topology_parse(text, &t2, &e2);
    FUZZ_CHECK(st == st2);
    if (THEMIS_OK == st) {
        FUZZ_CHECK(t.ndims == t2.ndims);
        FUZZ_CHECK(0 == memcmp(t.dims, t2.dims, sizeof(t.dims[0]) * (size_t) t.ndims));
    } else {
        FUZZ_CHECK(e.line == e2.line && e.column == e2.column);
        FUZZ_CHECK(0 == strcmp(e.message, e2.message));
    }
    free(text);
    return 0;
}
