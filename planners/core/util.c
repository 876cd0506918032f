/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Small shared helpers (util.h).
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t themis_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

uint64_t themis_gcd(uint64_t a, uint64_t b)
{
    while (0 != b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int themis_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return (x > y) - (x < y);
}

int themis_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

int themis_grow_full(void **v, uint32_t *cap, size_t size, uint32_t first)
{
    if (*cap > UINT32_MAX / 2) {
        return -1;
    }
    const uint32_t c = 0 == *cap ? first : 2 * *cap;
    void *r = realloc(*v, (size_t) c * size);
    if (NULL == r) {
        return -1;
    }
    *v = r;
    *cap = c;
    return 0;
}

const char *themis_show_field(const char *p, size_t len, char *buf, size_t max)
{
    if (len > max) {
        snprintf(buf, max + 1, "%.*s...", (int) (max - 3), p);
    } else {
        memcpy(buf, p, len);
        buf[len] = '\0';
    }
    return buf;
}

uint64_t themis_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void themis_set_parse_error(themis_parse_error_t *err, int line, int col, const char *fmt, ...)
{
    va_list ap;
    if (NULL == err) {
        return;
    }
    err->line = line;
    err->column = col;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

/* What a path that is not a regular file is, for the message. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "a special file";
}

int themis_open_regular(const char *path, uint64_t *size, themis_parse_error_t *err)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (MPI_Init
     * would hang); fstat then refuses everything that is not a regular
     * file before a byte is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        themis_set_parse_error(err, 0, 0, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat sb;
    if (0 != fstat(fd, &sb)) {
        themis_set_parse_error(err, 0, 0, "cannot read: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        themis_set_parse_error(err, 0, 0, "%s, not a regular file: not read",
                               file_kind(sb.st_mode));
        close(fd);
        return -1;
    }
    *size = (uint64_t) sb.st_size;
    return fd;
}

themis_status_t themis_read_text_file(const char *path, size_t max_bytes, const char *what,
                                      char **text, themis_parse_error_t *err)
{
    uint64_t size = 0;
    *text = NULL;
    int fd = themis_open_regular(path, &size, err);
    if (fd < 0) {
        return THEMIS_ERR_IO;
    }
    if (size > (uint64_t) max_bytes) {
        themis_set_parse_error(err, 0, 0, "larger than %zu bytes, not a %s", max_bytes, what);
        close(fd);
        return THEMIS_ERR_PARSE;
    }
    /* The size is known, but the file may still change: read at most one
     * byte more than max_bytes, which tells a file that grew too large. */
    size_t cap = (size_t) size + 1;
    char *buf = malloc(cap + 1);
    size_t n = 0;
    if (NULL == buf) {
        close(fd);
        themis_set_parse_error(err, 0, 0, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    for (;;) {
        if (n == cap) {
            if (cap > max_bytes) {
                break;
            }
            size_t grown_cap = 2 * cap > max_bytes + 1 ? max_bytes + 1 : 2 * cap;
            char *grown = realloc(buf, grown_cap + 1);
            if (NULL == grown) {
                free(buf);
                close(fd);
                themis_set_parse_error(err, 0, 0, "out of memory");
                return THEMIS_ERR_NOMEM;
            }
            buf = grown;
            cap = grown_cap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && EINTR == errno) {
            continue;
        }
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            themis_set_parse_error(err, 0, 0, "cannot read: %s", strerror(e));
            return THEMIS_ERR_IO;
        }
        if (0 == got) {
            break;
        }
        n += (size_t) got;
    }
    close(fd);
    if (n > max_bytes) {
        free(buf);
        themis_set_parse_error(err, 0, 0, "larger than %zu bytes, not a %s", max_bytes, what);
        return THEMIS_ERR_PARSE;
    }
    /* A UTF-8 byte order mark (some editors write one) is not part of
     * the text, in every format alike. */
    size_t skip = (n >= 3 && 0 == memcmp(buf, "\xEF\xBB\xBF", 3)) ? 3 : 0;
    if (NULL != memchr(buf, '\0', n)) {
        free(buf);
        themis_set_parse_error(err, 0, 0, "binary file, not a %s", what);
        return THEMIS_ERR_PARSE;
    }
    memmove(buf, buf + skip, n - skip);
    buf[n - skip] = '\0';
    *text = buf;
    return THEMIS_OK;
}
