/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Edge-disjoint Hamiltonian cycles (hamiltonian.h): every size 3..16 in
 * both dimensions builds and verifies, the methods are the documented
 * ones, sizes below 3 are refused, and the verifier rejects corrupted
 * cycles.
 */
#include <stdlib.h>
#include <string.h>

#include "hamiltonian.h"
#include "unit.h"

static themis_ham_method_t expected_method(uint32_t r, uint32_t c)
{
    if (themis_ham_bae_applies(r, c)) {
        return THEMIS_HAM_BAE;
    }
    return themis_ham_bae_applies(c, r) ? THEMIS_HAM_BAE_TRANSPOSED : THEMIS_HAM_GROWN;
}

static void test_all_sizes_3_to_16(void)
{
    char msg[256];
    int ngrown = 0;
    for (uint32_t r = 3; r <= 16; r++) {
        for (uint32_t c = 3; c <= 16; c++) {
            themis_ham_t h;
            msg[0] = '\0';
            themis_status_t st = themis_ham_build(r, c, &h, msg, sizeof(msg));
            UNIT_CHECKF(THEMIS_OK == st, "%ux%u: %s", r, c, msg);
            if (THEMIS_OK != st) {
                continue;
            }
            /* verify independently of the build's own check */
            st = themis_ham_verify(r, c, (const uint32_t *const *)h.cycle, msg, sizeof(msg));
            UNIT_CHECKF(THEMIS_OK == st, "%ux%u verify: %s", r, c, msg);
            UNIT_CHECKF(h.method == expected_method(r, c), "%ux%u method %s", r, c,
                        themis_ham_method_name(h.method));
            UNIT_CHECK(h.rows == r && h.cols == c && 0 == h.cycle[0][0] && 0 == h.cycle[1][0]);
            ngrown += (THEMIS_HAM_GROWN == h.method);
            themis_ham_free(&h);
        }
    }
    /* most sizes are outside the Bae family: the general method matters */
    UNIT_CHECKF(ngrown > 100, "only %d grown sizes", ngrown);
}

/* The sizes of Fig. 16 are in the paper's family; Bae's cycle 0 has one
 * vertical edge per row pair, its cycle 1 one horizontal edge per row. */
static void test_fig16_sizes_use_bae(void)
{
    static const uint32_t sizes[][2] = {{4, 4}, {8, 4}, {9, 3}, {16, 8}};
    for (int i = 0; i < 4; i++) {
        uint32_t r = sizes[i][0], c = sizes[i][1], n = r * c;
        themis_ham_t h;
        UNIT_CHECK(THEMIS_OK == themis_ham_build(r, c, &h, NULL, 0));
        UNIT_CHECKF(THEMIS_HAM_BAE == h.method, "%ux%u", r, c);
        uint32_t vertical0 = 0, horizontal1 = 0;
        for (uint32_t x = 0; x < n && NULL != h.cycle[0]; x++) {
            vertical0 += (h.cycle[0][x] / c != h.cycle[0][(x + 1) % n] / c);
            horizontal1 += (h.cycle[1][x] / c == h.cycle[1][(x + 1) % n] / c);
        }
        UNIT_CHECKF(r == vertical0 && r == horizontal1, "%ux%u: %u vertical, %u horizontal", r,
                    c, vertical0, horizontal1);
        themis_ham_free(&h);
    }
}

static void test_larger_and_skewed_sizes(void)
{
    static const uint32_t sizes[][2] = {{17, 16}, {16, 17}, {31, 6}, {3, 40}, {32, 32},
                                        {64, 63}, {100, 3}, {4, 99}, {50, 22}};
    char msg[256];
    for (int i = 0; i < 9; i++) {
        themis_ham_t h;
        themis_status_t st = themis_ham_build(sizes[i][0], sizes[i][1], &h, msg, sizeof(msg));
        UNIT_CHECKF(THEMIS_OK == st, "%ux%u: %s", sizes[i][0], sizes[i][1], msg);
        themis_ham_free(&h);
    }
}

static void test_deterministic(void)
{
    themis_ham_t a, b;
    UNIT_CHECK(THEMIS_OK == themis_ham_build(7, 10, &a, NULL, 0));
    UNIT_CHECK(THEMIS_OK == themis_ham_build(7, 10, &b, NULL, 0));
    for (int k = 0; k < 2 && NULL != a.cycle[k] && NULL != b.cycle[k]; k++) {
        UNIT_CHECK(0 == memcmp(a.cycle[k], b.cycle[k], 70 * sizeof(uint32_t)));
    }
    themis_ham_free(&a);
    themis_ham_free(&b);
}

static void test_unsupported_below_3(void)
{
    static const uint32_t sizes[][2] = {{2, 4}, {4, 2}, {2, 2}, {1, 7}, {7, 1}, {0, 5}};
    for (int i = 0; i < 6; i++) {
        themis_ham_t h;
        char msg[256] = "";
        UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == themis_ham_build(sizes[i][0], sizes[i][1], &h, msg,
                                                              sizeof(msg)));
        UNIT_CHECK(NULL == h.cycle[0] && NULL == h.cycle[1]);
        UNIT_CHECKF(NULL != strstr(msg, "torus2d"), "message: %s", msg);
    }
    const uint32_t dummy[8] = {0, 1, 2, 3, 7, 6, 5, 4};
    const uint32_t *cyc[2] = {dummy, dummy};
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == themis_ham_verify(2, 4, cyc, NULL, 0));
}

/* Copies of a good 5x4 decomposition, corrupted one way each. */
static void test_verify_rejects_corruption(void)
{
    const uint32_t r = 5, c = 4, n = 20;
    themis_ham_t h;
    UNIT_CHECK(THEMIS_OK == themis_ham_build(r, c, &h, NULL, 0));
    if (NULL == h.cycle[0]) {
        return;
    }
    uint32_t a[20], b[20];
    const uint32_t *cyc[2] = {a, b};
    char msg[256];
    for (int kind = 0; kind < 7; kind++) {
        memcpy(a, h.cycle[0], sizeof(a));
        memcpy(b, h.cycle[1], sizeof(b));
        switch (kind) {
        case 0: /* untouched, and cycle 1 reversed: both valid */
            break;
        case 1:
            for (uint32_t i = 0; i < n; i++) {
                b[i] = h.cycle[1][(n - i) % n];
            }
            break;
        case 2: { /* two nodes swapped: some step is no longer a neighbour step */
            uint32_t t = a[3];
            a[3] = a[11];
            a[11] = t;
            break;
        }
        case 3: /* a node twice */
            a[7] = a[8];
            break;
        case 4: /* the same cycle twice: every edge shared */
            memcpy(b, a, sizeof(b));
            break;
        case 5: /* same edges, other start: still shared */
            for (uint32_t i = 0; i < n; i++) {
                b[i] = h.cycle[0][(i + 5) % n];
            }
            break;
        case 6: /* out of range */
            b[19] = n;
            break;
        }
        msg[0] = '\0';
        themis_status_t st = themis_ham_verify(r, c, cyc, msg, sizeof(msg));
        if (kind < 2) {
            UNIT_CHECKF(THEMIS_OK == st, "kind %d: %s", kind, msg);
        } else {
            UNIT_CHECKF(THEMIS_ERR_INVALID == st && '\0' != msg[0], "kind %d accepted", kind);
        }
    }
    themis_ham_free(&h);
}

int main(void)
{
    UNIT_RUN(test_all_sizes_3_to_16);
    UNIT_RUN(test_fig16_sizes_use_bae);
    UNIT_RUN(test_larger_and_skewed_sizes);
    UNIT_RUN(test_deterministic);
    UNIT_RUN(test_unsupported_below_3);
    UNIT_RUN(test_verify_rejects_corruption);
    UNIT_EXIT();
}
