/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The planners' stable sort of records by a 64-bit key, written once:
 * THEMIS_RADIX_DEFINE(NAME, TYPE, KEY, SMALL) defines
 *   TYPE *NAME(TYPE *a, TYPE *tmp, uint32_t n)
 * which sorts a[0..n) by KEY(const TYPE *) ascending, equal keys in their
 * order, and returns where the result is: a, or tmp (n records of
 * scratch).  Up to SMALL records by insertion; more by one counting pass
 * per key byte that differs among them, least significant first, so a
 * key of few distinct bytes (an index and a class) takes two or three
 * passes of O(n + 256).  A macro, as heap.h, so the key reads inline.
 */
#ifndef THEMIS_RADIX_H
#define THEMIS_RADIX_H

#include <stdint.h>

#define THEMIS_RADIX_DEFINE(NAME, TYPE, KEY, SMALL)                                         \
    static inline TYPE *NAME(TYPE *a, TYPE *tmp, uint32_t n)                                \
    {                                                                                       \
        if (n <= (SMALL)) {                                                                 \
            for (uint32_t i_ = 1; i_ < n; ++i_) {                                           \
                const TYPE e_ = a[i_];                                                      \
                uint32_t j_ = i_;                                                           \
                for (; j_ > 0 && KEY(&e_) < KEY(&a[j_ - 1]); --j_) {                        \
                    a[j_] = a[j_ - 1];                                                      \
                }                                                                           \
                a[j_] = e_;                                                                 \
            }                                                                               \
            return a;                                                                       \
        }                                                                                   \
        uint64_t any_ = 0, all_ = UINT64_MAX;                                               \
        for (uint32_t i_ = 0; i_ < n; ++i_) {                                               \
            any_ |= KEY(&a[i_]);                                                            \
            all_ &= KEY(&a[i_]);                                                            \
        }                                                                                   \
        TYPE *src_ = a, *dst_ = tmp;                                                        \
        for (uint32_t sh_ = 0; sh_ < 64; sh_ += 8) {                                        \
            if (0 == (((any_ ^ all_) >> sh_) & 0xffu)) {                                    \
                continue; /* the same byte in every key */                                  \
            }                                                                               \
            uint32_t count_[257] = {0};                                                     \
            for (uint32_t i_ = 0; i_ < n; ++i_) {                                           \
                count_[((KEY(&src_[i_]) >> sh_) & 0xffu) + 1]++;                            \
            }                                                                               \
            /* no byte is above that of all keys or-ed */                                   \
            for (uint32_t d_ = 0, top_ = (any_ >> sh_) & 0xffu; d_ < top_; ++d_) {         \
                count_[d_ + 1] += count_[d_];                                               \
            }                                                                               \
            for (uint32_t i_ = 0; i_ < n; ++i_) {                                           \
                dst_[count_[(KEY(&src_[i_]) >> sh_) & 0xffu]++] = src_[i_];                 \
            }                                                                               \
            TYPE *t_ = src_;                                                                \
            src_ = dst_;                                                                    \
            dst_ = t_;                                                                      \
        }                                                                                   \
        return src_;                                                                        \
    }

#endif
