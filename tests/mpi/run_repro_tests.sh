#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Reproducible reductions: tests/mpi/repro repeats float MPI_Allreduce and
# MPI_Reduce_scatter_block on order-sensitive inputs.  Each configuration
# runs three times; it passes when every call of a run gives the same bits,
# all runs give the same hash, the results are within rounding of the exact
# sum, and every call ran on the themis path (MPI_T counter).  Shapes with a
# dimension of 3 or more ranks are the ones whose receives arrive in any
# order (direct exchanges).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=repro
suite_logs=repro
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
prog=$BUILD/tests/mpi/repro
if [ ! -x "$prog" ]; then
    echo "FAIL: repro: program ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi

# case DESCRIPTION NP COUNT REPS [mpirun options...]
case_() {
    local desc=$1 np=$2 count=$3 reps=$4
    shift 4
    local hashes=() why="" log tmp rc
    for run_no in 1 2 3; do
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-repro.XXXXXX")
        log="$log_dir/$(printf '%s' "np$np $desc run$run_no" | tr -c 'A-Za-z0-9=.+-' '_').log"
        mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
        timeout -k 10 300 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" "$@" \
            "$prog" "$count" "$reps" >"$log" 2>&1
        rc=$?
        rm -rf "$tmp"
        if [ "$rc" -ne 0 ]; then
            why="run $run_no exited $rc: $(grep -m1 '^error: ' "$log")"
            break
        fi
        for coll in allreduce reduce_scatter_block; do
            line=$(grep "^repro: $coll " "$log")
            if ! grep -q "distinct=1 themis_calls=$reps\$" <<<"$line"; then
                why="run $run_no: $coll: ${line:-no summary line} (want distinct=1 themis_calls=$reps)"
                break 2
            fi
        done
        hashes+=("$(grep '^repro: ' "$log" | sed 's/.* hash=\([0-9a-f]*\).*/\1/' | paste -sd, -)")
    done
    if [ -z "$why" ] && [ "$(printf '%s\n' "${hashes[@]}" | sort -u | wc -l)" -ne 1 ]; then
        why="runs differ: ${hashes[*]}"
    fi
    if [ -z "$why" ]; then
        echo "PASS: repro np=$np $desc (3 runs x $reps calls, one result: ${hashes[0]})"
    else
        failures=$((failures + 1))
        echo "FAIL: repro np=$np $desc ($why; log $log)"
    fi
}

SMALL=(--mca coll_themis_min_bytes 0 --mca coll_themis_min_chunk_bytes 16384)
case_ "4x2 vader" 8 1000000 6 "${VADER[@]}" "${SMALL[@]}" --mca coll_themis_dims 4x2
case_ "3x2 vader" 6 1000000 6 "${VADER[@]}" "${SMALL[@]}" --mca coll_themis_dims 3x2
case_ "3x2 tcp" 6 300000 4 "${TCP[@]}" "${SMALL[@]}" --mca coll_themis_dims 3x2
case_ "automatic vader" 4 1000000 6 "${VADER[@]}" "${SMALL[@]}"
# Default settings on one node: 36 MB is above the automatic 32 MiB threshold.
case_ "automatic vader defaults 9M floats" 4 9000000 3 "${VADER[@]}"

[ "$failures" -eq 0 ]
