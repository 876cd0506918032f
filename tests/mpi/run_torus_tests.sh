#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# MPI correctness suite for the HammingMesh algorithms of coll/themis
# (rings and torus2d, for MPI_Allreduce, MPI_Reduce_scatter(_block) and
# MPI_Allgather): runs tests/mpi/coll_matrix under mpirun on declared tori
# (coll_themis_torus) of 3x3 (np 9), 4x3 (np 12), 4x4 (np 16) and 4x2
# (np 8, where rings cannot run and torus2d takes over), with the
# algorithm chosen by the three coll_themis_*_algorithm parameters.
# Prints one PASS:/FAIL: line per configuration.
#
# Which algorithm ran is proven per call by the MPI_T counters
# (coll_matrix --algo): every eligible call must raise
# coll_themis_<coll>_calls and exactly the requested algorithm's
# coll_themis_<coll>_{rings,torus2d}_calls, ineligible ones (non-commutative
# ops, vector types) _fallbacks, and coll_themis_<coll>_substitutions only
# where the request cannot run as asked (rings on 4x2 -> torus2d, torus2d
# on a 3-D shape -> Themis).  auto is checked through the totals and its
# log: on a 4x3 torus the cost model picks torus2d for small and rings for
# larger vectors; without a torus (dims 3x3 of the default kind sw) it
# never picks either.  Then the failure cases: bad coll_themis_torus
# values, a torus that does not match the communicator, ranks that
# disagree.
#
# The full datatype x op matrix runs once (np 9, rings); the others run
# the reduced or tiny one (tiny/ns: without the sub-communicator rounds).
# np 8-16 on two cores is oversubscribed: every run uses --mca
# mpi_yield_when_idle 1.  Measured on the shared 2-core machine at load
# average 15-18 (other jobs running): 206-258 s (before the two periodic-program
# runs, about 105 s each idle), of which the full matrix
# takes 45-120 s; expect well under that on an idle machine.  Every run
# uses --mca op ^avx (see run_mpi_tests.sh).
#
# Environment:
#   THEMIS_BUILD_DIR      build tree holding the component and coll_matrix
#                         (default: the repository root)
#   THEMIS_TEST_LOG_DIR   where per-run logs go (default: BUILD/tests/logs)
#   THEMIS_TEST_FILTER    extended regex: run only the matching configurations
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=torus
suite_logs=torus
suite_start=$SECONDS
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
missing=""
for p in coll_themis_torus coll_themis_allreduce_algorithm \
         coll_themis_reduce_scatter_algorithm coll_themis_allgather_algorithm; do
    grep -q "MCA coll themis: parameter \"$p\"" <<<"$themis_params" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "PASS: torus: ompi_info lists coll_themis_torus and the three *_algorithm parameters"
else
    echo "FAIL: torus: ompi_info does not list:$missing"
    exit 1
fi
common+=(--mca mpi_yield_when_idle 1)

algos() {   # ALGORITHM: the same for all three collectives
    printf '%s\n' --mca coll_themis_allreduce_algorithm "$1" \
        --mca coll_themis_reduce_scatter_algorithm "$1" \
        --mca coll_themis_allgather_algorithm "$1"
}

# matrix DESCRIPTION TIMEOUT NP LEVEL ALGO-EXPECTED [mpirun options...]:
# every eligible call runs themis with ALGO-EXPECTED (a word, or
# "WORD --substituted").  A LEVEL of tiny/ns skips the sub-communicators
# (dup, reversed, halves), which the other configurations cover.
matrix() {
    local desc=$1 tmo=$2 np=$3 lvl=$4 level=${4%/ns} expect=$5
    shift 5
    opts=("${MIN0[@]}" "$@"); launcher=(); need=()
    # shellcheck disable=SC2206  # "torus2d --substituted" is two arguments
    args=(--level "$level" --algo $expect)
    [ "$lvl" = "$level" ] || args+=(--no-subcomms)
    run "$desc $lvl" "$tmo" "$np"
}
T=(--mca coll_themis_torus)
mapfile -t RINGS < <(algos rings)
mapfile -t TORUS2D < <(algos torus2d)
mapfile -t AUTO < <(algos auto)

# ------------------------------------------------------------ every table row
# The algorithm table's own list (themis-plan algorithms), not a copy of it:
# each row requested for all three collectives on a 3x3 torus, where every
# row applies, runs as itself and gives correct results.
# `schedule` runs a user's file: tests/mpi/run_msccl_tests.sh; `treepack`
# needs coll_themis_graph: tests/mpi/run_treepack_tests.sh; `tacos` needs
# vectors that divide into its units: tests/mpi/run_tacos_tests.sh.
for name in $("$BUILD/tools/themis-plan" algorithms --names); do
    [ "$name" = schedule ] || [ "$name" = treepack ] || [ "$name" = tacos ] && continue
    mapfile -t ROW < <(algos "$name")
    matrix "3x3 vader table row $name" 180 9 tiny/ns "$name" "${VADER[@]}" "${T[@]}" 3x3 \
        "${ROW[@]}"
done

# ------------------------------------------------------------ explicit algorithms
matrix "3x3 vader rings" 300 9 full rings "${VADER[@]}" "${T[@]}" 3x3 "${RINGS[@]}"
matrix "3x3 tcp torus2d chunks=8 in-flight=1" 180 9 tiny torus2d "${TCP[@]}" "${T[@]}" 3x3 \
    "${TORUS2D[@]}" --mca coll_themis_chunks 8 --mca coll_themis_chunks_in_flight 1
matrix "4x3 vader rings chunks=64" 180 12 tiny/ns rings "${VADER[@]}" "${T[@]}" 4x3 "${RINGS[@]}" \
    --mca coll_themis_chunks 64
matrix "4x3 vader torus2d chunks=4" 180 12 reduced torus2d "${VADER[@]}" "${T[@]}" 4x3 \
    "${TORUS2D[@]}" --mca coll_themis_chunks 4
matrix "4x4 vader rings" 240 16 tiny/ns rings "${VADER[@]}" "${T[@]}" 4x4 "${RINGS[@]}"
matrix "4x4 vader torus2d in-flight=4" 240 16 tiny/ns torus2d "${VADER[@]}" "${T[@]}" 4x4 \
    "${TORUS2D[@]}" --mca coll_themis_chunks_in_flight 4
# 4 rows of 2: no Hamiltonian cycle pair, so rings is replaced by torus2d.
matrix "4x2 vader rings -> torus2d" 180 8 reduced "torus2d --substituted" "${VADER[@]}" \
    "${T[@]}" 4x2 "${RINGS[@]}"
matrix "4x2 tcp torus2d" 180 8 tiny/ns torus2d "${TCP[@]}" "${T[@]}" 4x2 "${TORUS2D[@]}"
# rings/torus2d on any 2-D shape, also one that is not declared a torus.
matrix "dims=3x3 (kind sw) vader torus2d" 180 9 tiny torus2d "${VADER[@]}" \
    --mca coll_themis_dims 3x3 "${TORUS2D[@]}"
# Not 2-D: Themis runs instead, counted as a substitution.
matrix "dims=2x2x2 vader torus2d -> themis" 180 8 tiny "themis --substituted" "${VADER[@]}" \
    --mca coll_themis_dims 2x2x2 "${TORUS2D[@]}"

# ------------------------------------------------------------ periodic programs
# Counts that make many chunks (256 asked, up to 64 a quarter): a
# pipeline's repeated slots are kept once (program_runs.h) and the engine
# runs the copies from the stored slot; the plan lines count the runs, so
# that this fails if they stop forming (and the matrix if a copy runs
# wrong).  About 105 s each on an idle machine.
for a in rings torus2d; do
    mapfile -t ROW < <(algos "$a")
    opts=("${MIN0[@]}" "${VADER[@]}" "${T[@]}" 3x3 "${ROW[@]}" --mca coll_themis_chunks 256
          --mca coll_themis_verbose 10)
    args=(--level tiny --no-subcomms --algo "$a" --counts "65539,589859"); launcher=()
    need=()
    for c in allreduce reduce_scatter allgather; do
        need+=("planned $c \\($a\\) of [0-9]+ elements x [0-9]+ bytes: [0-9]+ ops \\([0-9]+ stored, [1-9][0-9]* runs\\)")
    done
    run "3x3 vader $a chunks=256, larger counts: periodic programs" 900 9
done

# ------------------------------------------------------------ auto
# A 4x3 torus: the model has rings win large messages (bandwidth on the
# longer dimension's links), torus2d small ones (fewer steps).  At 1 Gb/s
# and 30 ns per step the crossover is ~800 bytes (`themis-plan cycles
# --costs --topo biring:3:1Gb:30ns_biring:4:1Gb:30ns`), inside the tiny
# matrix's counts: 7 ints (28 bytes) -> torus2d, 193 doubles (1544) -> rings.
# (At the default rates it is ~1.7 MiB.)  16 chunks, as in that estimate:
# the per-chunk step latencies of a much larger count would make Themis
# win both sizes.  The choice is logged.
opts=("${MIN0[@]}" "${VADER[@]}" "${T[@]}" 4x3 "${AUTO[@]}" --mca coll_themis_verbose 10
      --mca coll_themis_dim_bandwidths 1Gb --mca coll_themis_dim_latencies 30ns
      --mca coll_themis_chunks 16)
args=(--level tiny --no-subcomms); launcher=()
need=('coll_matrix algorithms: rank 0 themis/rings/torus2d/schedule/([a-z0-9_]+/)*substitutions: allreduce=[0-9]+/[1-9][0-9]*/[1-9][0-9]*/0/(0/)*0 '
      'auto: allreduce of 1544 bytes \(193 elements\) -> rings'
      'auto: allreduce of 28 bytes \(7 elements\) -> torus2d')
run "4x3 vader auto: cost model picks rings and torus2d" 180 12
# Same ranks without a torus (kind sw): auto never picks rings/torus2d.
opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_dims 3x3 "${AUTO[@]}")
args=(--level tiny --algo themis); launcher=()
need=('coll_matrix algorithms: rank 0 themis/rings/torus2d/schedule/([a-z0-9_]+/)*substitutions: allreduce=[1-9][0-9]*/0/0/0/(0/)*0 reduce_scatter=[1-9][0-9]*/0/0/0/(0/)*0 reduce_scatter_block=[1-9][0-9]*/0/0/0/(0/)*0 allgather=[1-9][0-9]*/0/0/0/(0/)*0')
run "dims=3x3 (kind sw) vader auto: Themis only" 180 9

# ------------------------------------------------------------ failures
# Bad values: a clear message, then correct results through the fallback.
bad() {   # DESCRIPTION NP REGEX... -- [mpirun options...]
    local desc=$1 np=$2
    shift 2
    need=()
    while [ "$1" != -- ]; do need+=("$1"); shift; done
    shift
    opts=("${MIN0[@]}" "${VADER[@]}" "$@"); args=(--level tiny --expect fallback --no-subcomms)
    launcher=()
    run "$desc" 120 "$np"
}
bad "torus=9 (one size): bad parameter steps aside" 9 'invalid MCA parameter' \
    'coll_themis_torus = "9": want ROWSxCOLS' -- "${T[@]}" 9
bad "torus=3x1: bad parameter steps aside" 3 'coll_themis_torus = "3x1": want ROWSxCOLS with both sizes >= 2' \
    -- "${T[@]}" 3x1
bad "torus=3x4 with dims=3x4: conflict steps aside" 12 \
    'coll_themis_torus = "3x4": a 3x4 torus has the shape coll_themis_dims=4x3' \
    -- "${T[@]}" 3x4 --mca coll_themis_dims 3x4
bad "torus=3x3 with dim_kinds=sw: conflict steps aside" 9 \
    'coll_themis_torus = "3x3": torus links go both ways' \
    -- "${T[@]}" 3x3 --mca coll_themis_dim_kinds sw
bad "allgather_algorithm=ring: bad parameter steps aside" 4 \
    'coll_themis_allgather_algorithm = "ring": must be auto, themis, rings, torus2d,? (schedule|[a-z0-9_, ]+ or [a-z0-9_]+)' \
    -- --mca coll_themis_allgather_algorithm ring
# A torus of another size than the communicator: an automatic shape (not a
# torus, so auto runs Themis), said once.
opts=("${MIN0[@]}" "${VADER[@]}" "${T[@]}" 3x4 "${AUTO[@]}")
args=(--level tiny --algo themis --no-subcomms); launcher=()
need=('uses an automatic shape')
run "torus=3x4 on 9 ranks: automatic shape, Themis" 120 9

# Ranks that disagree on the torus or on an algorithm step aside together.
opts=("${MIN0[@]}" "${VADER[@]}" "${T[@]}" 3x3 "${RINGS[@]}")
args=(--level tiny --expect fallback --no-subcomms)
launcher=("$here/rank_env.sh" 4 OMPI_MCA_coll_themis_reduce_scatter_algorithm=torus2d --)
need=('given different coll.themis parameters')
run "3x3 rank 4 reduce_scatter_algorithm=torus2d: disagreement steps aside" 120 9
opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_dims 3x3 "${TORUS2D[@]}")
launcher=("$here/rank_env.sh" 2 OMPI_MCA_coll_themis_torus=3x3 --)
run "dims=3x3, rank 2 also torus=3x3: disagreement steps aside" 120 9

echo "torus suite: $((SECONDS - suite_start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failures" -eq 0 ]
