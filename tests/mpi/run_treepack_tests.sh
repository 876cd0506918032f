#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The treepack row under mpirun (planners/treepack/treepack.h, algo_treepack.c):
# All-Reduce over the optimal spanning-tree packing of coll_themis_graph.
# np 8 on p3.16xlarge (cycles packing: 16 chains, shares 1/12 and 1/24)
# and np 4 on p3.8xlarge (union packing: 3 trees), np 6 on a 6-node
# clique: coll_matrix's datatype x op matrix for allreduce with counts
# that are multiples of the schedule's 96 units, every call bit-exact and
# raising coll_themis_allreduce_treepack_calls (and nothing else).  Counts
# that do not divide into the units (any_counts: primes, powers of two,
# fewer elements than ranks) run treepack too, on both presets, on a
# 12-node graph file and on a 6-node clique of uneven links whose trees
# carry chunks of several units (tests/data/graphs).  Then what it cannot serve:
# without a graph (and on a graph of another size) Themis runs instead,
# counted as a substitution.
#
# Two cores: np 8 is oversubscribed, hence mpi_yield_when_idle and
# generous timeouts; nothing here is timed.
#
# Environment: THEMIS_BUILD_DIR, THEMIS_TEST_LOG_DIR, THEMIS_TEST_FILTER
# (see coll_matrix_lib.sh).
# shellcheck disable=SC2054  # commas separate counts and MCA values, not array elements
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=treepack
suite_logs=treepack
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"

YIELD=(--mca mpi_yield_when_idle 1)
TP=(--mca coll_themis_allreduce_algorithm treepack)
graph() { echo --mca coll_themis_graph "$1"; }

# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph p3.16xlarge))
args=(--coll allreduce --algo treepack --count-unit 96 --no-subcomms --level "$(level_or reduced)")
run "p3.16xlarge allreduce vader" 900 8
# shellcheck disable=SC2207
opts=("${TCP[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph p3.16xlarge)
      --mca coll_themis_chunks_in_flight 1)
args=(--coll allreduce --algo treepack --count-unit 96 --no-subcomms --level tiny)
run "p3.16xlarge allreduce tcp in-flight=1" 900 8
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph p3.8xlarge))
args=(--coll allreduce --algo treepack --count-unit 96 --no-subcomms --level "$(level_or reduced)")
run "p3.8xlarge allreduce vader" 900 4
# shellcheck disable=SC2207
opts=("${TCP[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph p3.8xlarge))
args=(--coll allreduce --algo treepack --count-unit 96 --no-subcomms --level tiny)
run "p3.8xlarge allreduce tcp" 900 4
# A 3x3 torus graph: the Hamiltonian chains (18 shares, 72 units).
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph torus2d:3x3))
args=(--coll allreduce --algo treepack --count-unit 72 --no-subcomms --level tiny)
run "torus2d:3x3 allreduce vader" 900 9
# A 6-node clique: the union packing (3 disjoint trees, the optimum),
# whose C against its certified bound verbose 1 prints once.
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${TP[@]}" $(graph fc:6) --mca coll_themis_verbose 1)
args=(--coll allreduce --algo treepack --count-unit 96 --no-subcomms --level tiny)
need=('treepack packs 3 trees \(union\): C 1/3 x S/B, certified C\(G\) >= 1/3, so within 1.0000x of the optimum; as scheduled \(96 units\) C 1/3, within 1.0000x')
run "fc:6 allreduce vader (union packing)" 600 6
need=()

# Any count: units of uneven size (planners/schedule/transfer.h), treepack on every call.
# clique6_uneven: trees of several weights, chunks of several units.
for g in p3.16xlarge:8 p3.8xlarge:4 "$here/../data/graphs/ring12_chords.txt:12" \
         "$here/../data/graphs/clique6_uneven.txt:6"; do
    # shellcheck disable=SC2207
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph "${g%:*}"))
    args=(--coll allreduce --algo treepack --counts "$(any_counts)" --no-subcomms
          --level "$(level_or tiny)")
    run "$(basename "${g%:*}") allreduce counts $(any_counts)" 900 "${g##*:}"
    if [ -n "$(any_counts_big)" ]; then
        args=(--coll allreduce --algo treepack --counts "$(any_counts_big)" --no-subcomms
              --level tiny)
        run "$(basename "${g%:*}") allreduce counts $(any_counts_big)" 900 "${g##*:}"
    fi
done

# Full level: counts sampled across 1 .. 2^20 + 1 (primes, a power of
# two, odd ones near 2^20) with every datatype and op, in place and not.
if [ "${THEMIS_TEST_LEVEL:-}" = full ]; then
    # shellcheck disable=SC2207
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TP[@]}" $(graph p3.8xlarge))
    args=(--coll allreduce --algo treepack --counts 3,251,4096,65521,262147,1048575,1048577
          --no-subcomms --level full)
    run "p3.8xlarge allreduce sampled counts to 2^20+1, every type and op" 900 4
fi

# Where it cannot run: Themis instead (substituted).
opts=("${VADER[@]}" "${MIN0[@]}" "${TP[@]}")
args=(--coll allreduce --algo themis --substituted --no-subcomms --level tiny)
run "no graph: themis substitutes" 600 4

if [ "$failures" -ne 0 ]; then
    exit 1
fi
