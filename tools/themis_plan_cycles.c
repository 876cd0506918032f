/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan cycles`: the two edge-disjoint Hamiltonian cycles of an
 * r x c torus (planners/network/hamiltonian.h) as a grid like Fig. 16 of
 * hammingmesh.txt, as a plain list or JSON (json-c); the build cost over a
 * range of sizes (--sweep); and the predicted times of Themis, rings and
 * torus2d with their crossover (--costs, planners/themis/algo_cost.h).
 */
#include "themis_build_config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "algorithm.h"
#include "hamiltonian.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "themis_plan_opts.h"
#include "topology.h"
#include "util.h"

#define MAX_SIZES 64

static void about(FILE *f)
{
    fprintf(f,
        "       themis-plan cycles --sweep MIN:MAX\n"
        "       themis-plan cycles --costs --topo SPEC [--coll C] [--bytes LIST] ...\n"
        "  Two edge-disjoint Hamiltonian cycles of a ROWS x COLS torus (default: the\n"
        "  Fig. 16 sizes 4x4 8x4 9x3 16x8).  Node index = row * COLS + col (col is\n"
        "  dimension 0).  Grid cells show each node's position in cycle 0 / cycle 1;\n"
        "  cycle 0 edges are drawn - and |, cycle 1 edges = and :, and the edges after\n"
        "  the last column and row wrap around to the first.  --list: plain text;\n"
        "  --json: JSON.  --sweep: build and verify every size, method and time.\n"
        "  --costs: predicted allreduce (or --coll) time of themis, rings and torus2d\n"
        "  on --topo (two biring dims, dim 0 = COLS) per --bytes (default\n"
        "  1K,4K,...,16G), and the size from which rings beat torus2d.\n");
}

/* "A<sep>B" with two unsigned numbers. */
static int parse_pair(const char *s, const char *seps, uint32_t *a, uint32_t *b)
{
    char *end;
    errno = 0;
    unsigned long r = strtoul(s, &end, 10);
    if (end == s || '-' == s[0] || '\0' == *end || NULL == strchr(seps, *end) || 0 != errno ||
        r > UINT32_MAX) {
        return -1;
    }
    const char *p = end + 1;
    unsigned long c = strtoul(p, &end, 10);
    if (end == p || '-' == *p || '\0' != *end || 0 != errno || c > UINT32_MAX) {
        return -1;
    }
    *a = (uint32_t)r;
    *b = (uint32_t)c;
    return 0;
}

/* "RxC" (or "RXC"). */
static int parse_size(const char *s, uint32_t *rows, uint32_t *cols)
{
    return parse_pair(s, "xX", rows, cols);
}

/* "MIN:MAX". */
static int parse_range(const char *s, uint32_t *lo, uint32_t *hi)
{
    return parse_pair(s, ":", lo, hi);
}

/* ------------------------------------------------------------ output */

static unsigned digits(uint32_t v)
{
    unsigned d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* Step index of every node in each cycle, and the cycle (0/1) of each
 * node's right and down edge. */
static void index_cycles(const themis_ham_t *h, uint32_t *pos[2], uint8_t *right, uint8_t *down)
{
    uint32_t n = h->rows * h->cols, c = h->cols, r = h->rows;
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u = h->cycle[k][i], v = h->cycle[k][(i + 1) % n];
            pos[k][u] = i;
            uint32_t ua = u / c, uj = u % c, va = v / c, vj = v % c;
            if (ua == va) {
                right[((uj + 1) % c == vj) ? u : v] = (uint8_t)k;
            } else {
                down[((ua + 1) % r == va) ? u : v] = (uint8_t)k;
            }
        }
    }
}

static void print_grid(const themis_ham_t *h)
{
    uint32_t r = h->rows, c = h->cols, n = r * c;
    uint32_t *pos[2] = {malloc(n * sizeof(uint32_t)), malloc(n * sizeof(uint32_t))};
    uint8_t *right = malloc(n), *down = malloc(n);
    if (NULL == pos[0] || NULL == pos[1] || NULL == right || NULL == down) {
        fprintf(stderr, "themis-plan cycles: out of memory\n");
    } else {
        index_cycles(h, pos, right, down);
        unsigned d = digits(n - 1), w = 2 * d + 1;
        printf("%ux%u torus (rows x cols), %s: cycle 0 edges - |, cycle 1 edges = :\n", r, c,
               themis_ham_method_name(h->method));
        for (uint32_t a = 0; a < r; a++) {
            for (uint32_t j = 0; j < c; j++) {
                uint32_t u = a * c + j;
                printf("%*u/%-*u %c%c ", d, pos[0][u], d, pos[1][u], right[u] ? '=' : '-',
                       right[u] ? '=' : '-');
            }
            printf("\n");
            for (uint32_t j = 0; j < c; j++) {
                printf("%*c%*s", d + 1, down[a * c + j] ? ':' : '|', w - d - 1 + 4, "");
            }
            printf("\n");
        }
    }
    free(pos[0]);
    free(pos[1]);
    free(right);
    free(down);
}

static void print_list(const themis_ham_t *h)
{
    uint32_t n = h->rows * h->cols;
    printf("# %ux%u %s: cycle step row col\n", h->rows, h->cols, themis_ham_method_name(h->method));
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < n; i++) {
            printf("%d %u %u %u\n", k, i, h->cycle[k][i] / h->cols, h->cycle[k][i] % h->cols);
        }
    }
}

static json_object *torus_json(const themis_ham_t *h)
{
    json_object *o = json_object_new_object(), *cycles = json_object_new_array();
    json_object_object_add(o, "rows", json_object_new_int64(h->rows));
    json_object_object_add(o, "cols", json_object_new_int64(h->cols));
    json_object_object_add(o, "method", json_object_new_string(themis_ham_method_name(h->method)));
    json_object_object_add(o, "node_index", json_object_new_string("row * cols + col"));
    uint32_t n = h->rows * h->cols;
    for (int k = 0; k < 2; k++) {
        json_object *nodes = json_object_new_array();
        for (uint32_t i = 0; i < n; i++) {
            json_object_array_add(nodes, json_object_new_int64(h->cycle[k][i]));
        }
        json_object_array_add(cycles, nodes);
    }
    json_object_object_add(o, "cycles", cycles);
    return o;
}

/* ------------------------------------------------------------ modes */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Build + verify every size in [lo, hi]^2.  A build includes its own
 * verification; its time is the median of repeats, so that other load on
 * the machine does not show up as cost. */
static int run_sweep(uint32_t lo, uint32_t hi)
{
    enum { REPS = 21 };
    int counts[3] = {0, 0, 0}, failed = 0;
    double worst = 0, sum = 0, t[REPS];
    uint32_t worst_r = 0, worst_c = 0;
    printf("%5s %5s %-15s %10s %12s\n", "rows", "cols", "method", "build_us", "cycles_bytes");
    for (uint32_t r = lo; r <= hi; r++) {
        for (uint32_t c = lo; c <= hi; c++) {
            themis_ham_t h;
            char msg[256] = "";
            themis_status_t st = THEMIS_OK;
            for (int i = 0; i < REPS && THEMIS_OK == st; i++) {
                double t0 = (themis_now_ns() / 1e3);
                st = themis_ham_build(r, c, &h, msg, sizeof(msg));
                t[i] = (themis_now_ns() / 1e3) - t0;
                if (THEMIS_OK == st && i + 1 < REPS) {
                    themis_ham_free(&h);
                }
            }
            qsort(t, REPS, sizeof(double), cmp_double);
            double us = t[REPS / 2];
    if (THEMIS_OK != st) {
                printf("%5u %5u %-15s %s\n", r, c, "-", msg);
                failed += (r >= 3 && c >= 3);
                continue;
            }
            counts[h.method]++;
            sum += us;
            if (us > worst) {
                worst = us;
                worst_r = r;
                worst_c = c;
            }
            printf("%5u %5u %-15s %10.2f %12zu\n", r, c, themis_ham_method_name(h.method), us,
                   2 * (size_t)r * c * sizeof(uint32_t));
            themis_ham_free(&h);
        }
    }
    printf("# %d bae, %d bae-transposed, %d grown, %d failed; median build: mean %.2f us, "
           "largest %.2f us (%ux%u)\n",
           counts[0], counts[1], counts[2], failed,
           sum / (counts[0] + counts[1] + counts[2] + (0 == counts[0] + counts[1] + counts[2])),
           worst, worst_r, worst_c);
    return failed ? EXIT_RUNTIME : 0;
}

typedef struct {
    themis_topology_t topo;
    int have_topo;
    themis_coll_t coll;
    uint64_t bytes[THEMIS_PLAN_ARGS_MAX_SIZES];
    int nbytes;
    themis_algo_cost_params_t params;
} costs_opts_t;

/* rings faster than torus2d at `bytes`?  -1 when either cannot be costed. */
static int rings_win(const themis_topology_t *t, const costs_opts_t *o, uint64_t bytes)
{
    themis_time_t a, b;
    if (THEMIS_OK != themis_algo_cost(t, themis_algorithm_index("rings"), o->coll, bytes,
                                      &o->params, &a) ||
        THEMIS_OK != themis_algo_cost(t, themis_algorithm_index("torus2d"), o->coll, bytes,
                                      &o->params, &b)) {
        return -1;
    }
    return a < b;
}

static int run_costs(const costs_opts_t *o)
{
    const themis_topology_t t = o->topo;
    if (2 != t.ndims) {
        fprintf(stderr, "themis-plan cycles: --costs needs a 2D torus (two biring dims)\n");
        return EXIT_USAGE;
    }
    char spec[256];
    themis_topology_format(&t, spec, sizeof(spec));
    printf("# %s on %s (%ux%u torus, rows x cols), times in us\n", themis_coll_name(o->coll), spec,
           t.dims[1].size, t.dims[0].size);
    printf("%14s", "bytes");
    for (int a = 0; a < themis_nalgorithms(); a++) {
        printf(" %12s", themis_algorithm_get(a)->name);
    }
    printf("  %s\n", "best");
    for (int i = 0; i < o->nbytes; i++) {
        themis_algo_costs_t c;
        themis_status_t st = themis_algo_costs(&t, o->coll, o->bytes[i], &o->params, &c);
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan cycles: %" PRIu64 " bytes: %s\n", o->bytes[i],
                    themis_status_string(st));
            return EXIT_RUNTIME;
        }
        printf("%14" PRIu64, o->bytes[i]);
        for (int a = 0; a < themis_nalgorithms(); a++) {
            if (THEMIS_OK == c.status[a]) {
                printf(" %12.2f", (double)c.time[a] / 1e6);
            } else {
                printf(" %12s", "n/a");
            }
        }
        printf("  %s\n", themis_algorithm_get(c.best)->name);
    }
    /* the crossover: bisection between the first listed size where rings
     * win and the one before it (times grow monotonically in bytes) */
    for (int i = 0; i < o->nbytes; i++) {
        int w = rings_win(&t, o, o->bytes[i]);
        if (w < 0) {
            printf("# crossover: rings or torus2d not applicable here\n");
            return 0;
        }
        if (w) {
            uint64_t lo = (0 == i) ? 1 : o->bytes[i - 1], hi = o->bytes[i];
            if (1 == rings_win(&t, o, lo)) {
                printf("# rings beat torus2d already at %" PRIu64 " bytes\n", lo);
                return 0;
            }
            while (hi - lo > 1 && hi - lo > lo / 1000) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (1 == rings_win(&t, o, mid)) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            printf("# crossover: rings beat torus2d from ~%" PRIu64 " bytes (%.1f MiB)\n", hi,
                   (double)hi / 1048576.0);
            return 0;
        }
    }
    printf("# crossover: torus2d is not slower than rings at any listed size\n");
    return 0;
}

/* ------------------------------------------------------------ entry */

static const themis_plan_cmd_spec_t cycles_cmd = {
    .name = "cycles", .synopsis = "[ROWSxCOLS ...]", .about_fn = about,
    .lists = "bytes count", .max_pos = INT_MAX};

int themis_plan_cmd_cycles(int argc, char **argv)
{
    themis_plan_args_t a;
    uint32_t sweep_lo = 0, sweep_hi = 0;
    costs_opts_t co;
    int rc;
    memset(&co, 0, sizeof(co));
    themis_algo_cost_params_init(&co.params);

    if (0 != themis_plan_args_parse(&cycles_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    const int list = THEMIS_PLAN_GIVEN(&a, TPO_LIST);
    const char *json_out = a.text[TPO_JSON];
    char label[1024];
    if (0 != (rc = themis_plan_topology(&a, &co.topo, label, sizeof(label), &co.have_topo))) {
        return rc;
    }
    co.coll = a.coll;
    co.nbytes = a.nbytes;
    memcpy(co.bytes, a.bytes, sizeof(co.bytes));
    if (THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS)) {
        co.params.themis_chunks = (uint32_t) a.num[TPO_CHUNKS];
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_TORUS_CHUNKS)) {
        co.params.torus_chunks = (uint32_t) a.num[TPO_TORUS_CHUNKS];
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS_IN_FLIGHT)) {
        co.params.chunks_in_flight = (uint32_t) a.num[TPO_CHUNKS_IN_FLIGHT];
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_SWEEP)) {
        if (0 != parse_range(a.text[TPO_SWEEP], &sweep_lo, &sweep_hi) || 0 == sweep_lo
            || sweep_lo > sweep_hi || sweep_hi > 1024) {
            return themis_plan_args_fail(&a, TPO_SWEEP, "not MIN:MAX with 1 <= MIN <= MAX "
                                         "<= 1024");
        }
        return run_sweep(sweep_lo, sweep_hi);
    }
    if (THEMIS_PLAN_GIVEN(&a, TPO_COSTS)) {
        if (!co.have_topo) {
            fprintf(stderr, "themis-plan cycles: --costs needs --topo, --dims or --graph\n");
            return EXIT_USAGE;
        }
        if (0 == co.nbytes) {
            for (uint64_t b = 1024; b <= (16ULL << 30); b *= 4) {
                co.bytes[co.nbytes++] = b;
            }
        }
        return run_costs(&co);
    }

    uint32_t rows[MAX_SIZES], cols[MAX_SIZES];
    int nsizes = 0;
    for (int i = a.first_pos; i < argc; i++) {
        if (nsizes >= MAX_SIZES || 0 != parse_size(argv[i], &rows[nsizes], &cols[nsizes])) {
            fprintf(stderr, "themis-plan cycles: '%s' is not ROWSxCOLS\n", argv[i]);
            return EXIT_USAGE;
        }
        nsizes++;
    }
    if (0 == nsizes) {
        static const uint32_t fig16[4][2] = {{4, 4}, {8, 4}, {9, 3}, {16, 8}};
        for (; nsizes < 4; nsizes++) {
            rows[nsizes] = fig16[nsizes][0];
            cols[nsizes] = fig16[nsizes][1];
        }
    }
    json_object *root = (NULL != json_out) ? json_object_new_object() : NULL;
    json_object *tori = (NULL != root) ? json_object_new_array() : NULL;
    for (int i = 0; i < nsizes && 0 == rc; i++) {
        themis_ham_t h;
        char msg[256] = "";
        themis_status_t st = themis_ham_build(rows[i], cols[i], &h, msg, sizeof(msg));
        if (THEMIS_OK != st) {
            fprintf(stderr, "themis-plan cycles: %s\n", msg);
            rc = (THEMIS_ERR_UNSUPPORTED == st || THEMIS_ERR_INVALID == st) ? EXIT_USAGE
                                                                            : EXIT_RUNTIME;
            break;
        }
        if (NULL != tori) {
            json_object_array_add(tori, torus_json(&h));
        } else if (list) {
            print_list(&h);
        } else {
            print_grid(&h);
            printf("\n");
        }
        themis_ham_free(&h);
    }
    if (NULL != root) {
        json_object_object_add(root, "tori", tori);
        if (0 == rc) {
            int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
            int fail = (0 == strcmp("-", json_out)) ? (0 > printf("%s\n",
                                                        json_object_to_json_string_ext(root, flags)))
                                                    : (0 != json_object_to_file_ext(json_out, root,
                                                                                    flags));
            if (fail) {
                fprintf(stderr, "themis-plan cycles: cannot write %s\n", json_out);
                rc = EXIT_RUNTIME;
            }
        }
        json_object_put(root);
    }
    return rc;
}
