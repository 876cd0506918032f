#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# MPI-4 persistent collectives next to coll/themis (tests/mpi/persistent):
# six persistent requests alive at once (allreduce, reduce_scatter,
# reduce_scatter_block, allgather; in place and not), started many times
# with a blocking allreduce in flight, every element checked; coll/themis
# must run the blocking calls and leave the persistent ones to coll/libnbc
# (MPI_T counters).  Open MPI 4.1 has no MPI_Allreduce_init: SKIP there.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=persistent
suite_logs=persistent
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
if [ "${THEMIS_OMPI_MAJOR:-0}" -lt 5 ]; then
    echo "SKIP: persistent (Open MPI $THEMIS_OMPI_MAJOR has no MPI-4 persistent collectives)"
    exit 0
fi
prog=$BUILD/tests/mpi/persistent
if [ ! -x "$prog" ]; then
    echo "FAIL: persistent: program ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi

one() {  # DESCRIPTION NP COUNT REPS [mpirun options...]
    local desc=$1 np=$2 count=$3 reps=$4 tmp log rc
    shift 4
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-persistent.XXXXXX")
    log="$log_dir/$(printf '%s' "np$np $desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    timeout -k 10 300 "$MPIRUN" -np "$np" "${common[@]}" --mca orte_tmpdir_base "$tmp" \
        "${MIN0[@]}" "$@" "$prog" "$count" "$reps" >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
    if grep -q '^persistent: SKIP' "$log"; then
        echo "SKIP: persistent np=$np $desc ($(sed -n 's/^persistent: SKIP (\(.*\))/\1/p' "$log"))"
    elif [ "$rc" -eq 0 ] && grep -q '^persistent: .* ok' "$log"; then
        echo "PASS: persistent np=$np $desc ($(sed -n 's/^persistent: //p' "$log"))"
    else
        failures=$((failures + 1))
        echo "FAIL: persistent np=$np $desc (exit $rc$([ "$rc" -eq 124 ] && echo ', timed out'); log $log)"
        grep '^error: ' "$log" | head -n 8 | sed 's/^/    | /'
        tail -n 8 "$log" | sed 's/^/    | /'
    fi
}

one "2x2 vader" 4 1000 20 "${VADER[@]}" --mca coll_themis_dims 2x2
one "3 tcp automatic" 3 777 10 "${TCP[@]}"
one "4x2 vader" 8 257 10 "${VADER[@]}" --mca coll_themis_dims 4x2 --mca mpi_yield_when_idle 1
[ "$failures" -eq 0 ]
