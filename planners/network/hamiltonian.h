/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Two edge-disjoint Hamiltonian cycles on an r x c torus that use only
 * torus-neighbour edges (HammingMesh, Sec. V-A2 and Appendix A-D of
 * hammingmesh.txt).  Together they use every one of the 2rc torus edges
 * exactly once, so the four directed rings they give (each cycle, both
 * ways) keep all four links of every node busy.
 *
 * Coordinates: dimension 0 is the innermost, so a node is (row, col) with
 * col along dim 0 (size c = cols) and row along dim 1 (size r = rows), and
 * its index is row * cols + col: the linear coordinate index of plan.h.
 *
 * Methods, tried in this order:
 *   BAE             Bae, AlBdaiwi and Bose (2004), for rows = k * cols and
 *                   gcd(rows, cols - 1) = 1.  With X = x1 * cols + x0
 *                   (0 <= x1 < rows, 0 <= x0 < cols) the X-th nodes are
 *                     cycle 0:  (x1,                         (x1 (c-1) + x0) mod c)
 *                     cycle 1:  ((x1 (c-1) + x0) mod r,      x1 mod c)
 *                   Cycle 0 walks each row but one edge and steps down;
 *                   cycle 1 walks c-1 down a column and steps right.  It
 *                   is a cycle exactly when c | r and gcd(r, c-1) = 1, and
 *                   it then takes precisely the edges cycle 0 leaves.
 *   BAE_TRANSPOSED  the same on the transposed torus (cols = k * rows,
 *                   gcd(cols, rows - 1) = 1).
 *   GROWN           every other size with rows, cols >= 3 (Kotzig: every
 *                   product of two cycles has such a decomposition).  A
 *                   base of the same parities, 3 or 4 per dimension (3x3
 *                   and 4x4 by BAE; 4x3 by a depth-first search with a
 *                   fixed neighbour order; 3x4 its transpose), is grown two
 *                   rows, then two columns, at a time.  Two rows go in
 *                   between rows a and a+1 whose c vertical edges are not
 *                   all in one cycle: with col_j the cycle of edge
 *                   (a,j)-(a+1,j), the new rows R1, R2 get
 *                     (a,j)-(R1,j), (R2,j)-(a+1,j)     in cycle col_j,
 *                     (R1,j)-(R2,j)                    in cycle col_{j-1},
 *                     (Rx,j)-(Rx,j+1), x = 1, 2        in cycle 1 - col_j.
 *                   Every node keeps two edges of each cycle, and each old
 *                   edge (a,j)-(a+1,j) becomes a path: a straight one
 *                   through (R1,j), (R2,j), or, where col_{j-1} differs,
 *                   a U through the preceding run of the other cycle's
 *                   columns in R1 and back in R2.  So both stay
 *                   Hamiltonian, and the new row pairs are mixed again.
 *                   Columns go in the same way on the transpose.
 *   Cost: BAE O(rc) time and space.  GROWN O(rc) time and space: one byte
 *   per edge for the colouring, at most three colourings alive while
 *   transposing, plus the fixed 4x3 search (12 nodes, first solution after
 *   29 DFS nodes).  The output is 8 rc bytes; the verifier, which every
 *   build runs, takes 3 rc bytes and O(rc) time.  Measured with
 *   `themis-plan cycles --sweep 3:16` (median of 21 builds incl. verify, on
 *   the 2-core dev box): all 196 sizes build (21 bae, 7 bae-transposed,
 *   168 grown), mean ~7 us, largest ~18 us (16x15).
 * Sizes with rows < 3 or cols < 3 have no decomposition into two simple
 * Hamiltonian cycles (a size-2 dimension's two neighbours coincide, size 1
 * has none): THEMIS_ERR_UNSUPPORTED, so the runtime uses torus2d or Themis.
 */
#ifndef THEMIS_HAMILTONIAN_H
#define THEMIS_HAMILTONIAN_H

#include "themis_types.h"

typedef enum {
    THEMIS_HAM_BAE = 0,
    THEMIS_HAM_BAE_TRANSPOSED = 1,
    THEMIS_HAM_GROWN = 2
} themis_ham_method_t;

typedef struct {
    uint32_t rows, cols;
    themis_ham_method_t method;
    /* [rows * cols] node indices in visiting order; cycle[k][0] = 0. */
    uint32_t *cycle[2];
} themis_ham_t;

/* Largest rows * cols accepted (node indices and ring ranks stay int). */
#define THEMIS_HAM_MAX_NODES (1u << 24)

/* THEMIS_ERR_UNSUPPORTED for rows or cols < 3, THEMIS_ERR_INVALID above
 * THEMIS_HAM_MAX_NODES; msg (may be NULL) says why.  The result passed
 * themis_ham_verify. */
themis_status_t themis_ham_build(uint32_t rows, uint32_t cols, themis_ham_t *out, char *msg,
                                 size_t len);
void themis_ham_free(themis_ham_t *h);

/* Each cycle visits every node once and closes, consecutive nodes are
 * torus neighbours, and the two together use every torus edge exactly once
 * (2 rows cols edges; so they share none).  THEMIS_ERR_INVALID with the
 * first violation in msg; THEMIS_ERR_UNSUPPORTED for rows or cols < 3. */
themis_status_t themis_ham_verify(uint32_t rows, uint32_t cols, const uint32_t *const cycle[2],
                                  char *msg, size_t len);

/* Whether the Bae-AlBdaiwi-Bose construction covers rows x cols as is. */
int themis_ham_bae_applies(uint32_t rows, uint32_t cols);
const char *themis_ham_method_name(themis_ham_method_t m);

#endif
