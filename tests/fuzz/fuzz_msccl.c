/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: themis_msccl_parse (MSCCL-XML) on any bytes.  An
 * accepted file must give a schedule whose dependencies point backwards,
 * that themis_xfer_check takes or refuses (within the fuzzer's memory and
 * time limits) and that survives export -> import with the same hash; a refused one
 * must say why with a format, program or limit status and leave nothing
 * allocated.
 */
#include "fuzz_common.h"

#include "msccl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    themis_xfer_sched_t s, again;
    themis_msccl_info_t info;
    char why[512];
    themis_status_t st = themis_msccl_parse((const char *) data, size, &s, &info, why,
                                            sizeof(why));

    if (THEMIS_OK != st) {
        FUZZ_CHECK(THEMIS_ERR_PARSE == st || THEMIS_ERR_INVALID == st ||
                   THEMIS_ERR_UNSUPPORTED == st);
        FUZZ_CHECK(NULL != memchr(why, '\0', sizeof(why)) && '\0' != why[0]);
        FUZZ_CHECK(NULL == s.xfers && NULL == s.deps && 0 == s.nxfers);
        return 0;
    }
    FUZZ_CHECK(info.nxfers == s.nxfers && info.ngpus == s.nranks);
    /* The component's check too: bounded in memory (THEMIS_XFER_CHECK_MAX_BYTES)
     * and time whatever the file declares. */
    st = themis_xfer_check(&s, why, sizeof(why));
    FUZZ_CHECK(THEMIS_OK == st || THEMIS_ERR_INVALID == st || THEMIS_ERR_UNSUPPORTED == st);
    for (uint32_t i = 0; i < s.nxfers; i++) {
        const themis_xfer_t *x = &s.xfers[i];
        FUZZ_CHECK(x->src < s.nranks && x->dst < s.nranks && x->count > 0);
        FUZZ_CHECK(x->src_off + x->count <= s.buf_units[x->src_buf]);
        FUZZ_CHECK(x->dst_off + x->count <= s.buf_units[x->dst_buf]);
        for (uint32_t k = 0; k < x->ndeps; k++) {
            FUZZ_CHECK(s.deps[x->dep_first + k] < i);
            FUZZ_CHECK(0 == k || s.deps[x->dep_first + k - 1] < s.deps[x->dep_first + k]);
        }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(NULL != f);
    st = themis_msccl_write(&s, f);
    FUZZ_CHECK(0 == fclose(f));
    if (THEMIS_OK == st) {
        st = themis_msccl_parse(text, len, &again, NULL, why, sizeof(why));
        if (THEMIS_OK != st) {
            fprintf(stderr, "re-import: %s\n", why);
        }
        FUZZ_CHECK(THEMIS_OK == st);
        FUZZ_CHECK(themis_xfer_hash(&again) == themis_xfer_hash(&s));
        themis_xfer_free(&again);
    }
    free(text);
    themis_xfer_free(&s);
    return 0;
}
