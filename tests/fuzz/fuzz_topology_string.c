/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: themis_topology_parse on any text (compact strings,
 * preset names, the line format).  tests/fuzz/run_fuzz.sh builds it.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    themis_topology_t t;
    themis_parse_error_t e;
    themis_status_t st = themis_topology_parse(text, &t, &e);
    fuzz_check_topology(text, st, &t, &e);
    /* No error detail wanted: the same outcome. */
    themis_topology_t t2;
    FUZZ_CHECK(st == themis_topology_parse(text, &t2, NULL));
    free(text);
    return 0;
}
