#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Nonblocking collectives on the themis engine: coll_matrix --nonblocking N
# starts N MPI_Iallreduce / MPI_Ireduce_scatter(_block) / MPI_Iallgather
# calls at a time, with blocking collectives and point-to-point on the
# same communicator between the starts, completes them in a seeded random
# order (Waitall, Waitany, Test loops, Wait in shuffled order), checks
# every result and, through the coll_themis_i<coll>_* counters, that they
# ran on themis (and with --algo, on that row); then MPI_Cancel (no effect)
# and MPI_Request_free of an active request (completes anyway).  Over
# vader at np 4 (2x2) and np 8 (4x2) for the rows that serve those
# shapes, plus the default thresholds (small calls fall back to
# coll/libnbc, counted).  Prints one PASS:/FAIL: line per configuration.
# Environment: THEMIS_BUILD_DIR, THEMIS_TEST_LOG_DIR, THEMIS_TEST_FILTER,
# THEMIS_TEST_LEVEL (see coll_matrix_lib.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=nbc
suite_logs=nbc
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"

D=(--mca coll_themis_dims)
algo() {   # ROW: that row for the three collectives
    printf '%s\n' --mca coll_themis_allreduce_algorithm "$1" \
        --mca coll_themis_reduce_scatter_algorithm "$1" --mca coll_themis_allgather_algorithm "$1"
}

opts=("${VADER[@]}" "${MIN0[@]}" "${D[@]}" 2x2)
args=(--nonblocking 8 --level "$(level_or reduced)")
run "2x2 vader auto 8 in flight" 600 4

# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${D[@]}" 4x2 $(algo themis))
args=(--nonblocking 16 --algo themis --level "$(level_or tiny)")
run "4x2 vader themis 16 in flight" 600 8

# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${D[@]}" 4x2 $(algo torus2d))
args=(--nonblocking 5 --algo torus2d --no-subcomms --level "$(level_or tiny)")
run "4x2 vader torus2d 5 in flight" 600 8

# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${D[@]}" 2x2 $(algo tacos))
args=(--nonblocking 3 --algo tacos --no-subcomms --level "$(level_or tiny)")
run "2x2 vader tacos 3 in flight" 600 4

# coll_themis_nbc_chunks_in_flight per collective (coll/themis' open line
# at verbose 10 shows the windows, allreduce/reduce_scatter/allgather),
# then a bad value: reported, the default used, and every call still on
# themis (the counters) and correct.
NBCW=(--mca coll_themis_verbose 10 --mca coll_themis_nbc_chunks_in_flight)
opts=("${VADER[@]}" "${MIN0[@]}" "${D[@]}" 2x2 "${NBCW[@]}" "allreduce:3,rs:4,allgather:5")
args=(--nonblocking 4 --level tiny)
need=('chunks in flight 2 \(nonblocking 3/4/5\)'); shun=('invalid coll_themis')
run "2x2 vader nbc_chunks_in_flight per collective" 600 4
opts=("${VADER[@]}" "${MIN0[@]}" "${D[@]}" 2x2 "${NBCW[@]}" "allreduce:3,reduce_scatter:x")
need=('invalid coll_themis_nbc_chunks_in_flight' 'Problem: +"x" is not a number'
      'chunks in flight 2 \(nonblocking 8/4/8\)'); shun=()
run "2x2 vader nbc_chunks_in_flight bad value" 600 4
need=()

# Below coll_themis_min_bytes the nonblocking calls go to coll/libnbc
# (counted as fallbacks), above it to themis.  1 MiB rather than the
# default 32 MiB: above coll_themis_scratch_max (the level's allgather and
# reduce-scatter-block at 32 MiB per rank) a nonblocking call falls back.
opts=("${VADER[@]}" "${D[@]}" 2x2 --mca coll_themis_min_bytes 1048576)
args=(--nonblocking 4 --level minbytes)
run "2x2 vader min_bytes 1 MiB" 600 4

# Above coll_themis_scratch_max (1 MiB, its least) reduce-scatters and
# allgathers run as consecutive segments, each its own program, started
# one after another from progress: a prime count (1.5 MiB of ints; the
# allgather's 6 MiB) gives segments of two sizes and, skewed, of changing
# block counts, in place and not, 6 in flight.  Transfer schedules
# (tacos) also run a large allreduce in slices.  The counters must show
# themis (before, these calls fell back).
SEG=(--mca coll_themis_min_bytes 0 --mca coll_themis_scratch_max 1048576)
opts=("${VADER[@]}" "${D[@]}" 2x2 "${SEG[@]}")
args=(--nonblocking 6 --level tiny --counts 393241)
run "2x2 vader scratch_max 1 MiB segments 6 in flight" 600 4

# shellcheck disable=SC2207
opts=("${VADER[@]}" "${D[@]}" 2x2 "${SEG[@]}" $(algo tacos))
args=(--nonblocking 4 --algo tacos --no-subcomms --level tiny --coll allreduce --counts 262147)
run "2x2 vader tacos allreduce scratch_max 1 MiB segments 4 in flight" 600 4

# MPI_THREAD_MULTIPLE: threads on their own communicators drive progress
# at once (tests/mpi/nbc_threads; its own summary line).
threads() {   # NP DESCRIPTION [ARGS...]
    local np=$1 desc=$2 tmp log rc start=$SECONDS tmo=600
    shift 2
    if [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=$np $desc"; then
        return 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-$suite_logs.XXXXXX")
    log="$log_dir/np${np}_$(printf '%s' "$desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 "$tmo" "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        "${VADER[@]}" "${MIN0[@]}" "$BUILD/tests/mpi/nbc_threads" "$@" >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
    if [ "$rc" -eq 0 ] && grep -q '^nbc_threads: ' "$log" && ! grep -q '^error: ' "$log"; then
        echo "PASS: $suite_label np=$np $desc ($((SECONDS - start))s)"
        return 0
    fi
    failures=$((failures + 1))
    echo "FAIL: $suite_label np=$np $desc (exit $rc; log $log)"
    grep -E '^(error|nbc_threads)' "$log" | head -n 12 | sed 's/^/    | /'
}
threads 4 "MPI_THREAD_MULTIPLE vader"
# The first call on each thread's new communicator is nonblocking: the
# setup runs without blocking, the calls wait behind it and run on themis.
threads 4 "MPI_THREAD_MULTIPLE vader nonblocking first calls" --fresh

[ "$failures" -eq 0 ]
