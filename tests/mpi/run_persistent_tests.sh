#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Persistent collectives on the themis path (tests/mpi/persistent): nine
# requests alive at once (allreduce, reduce_scatter, reduce_scatter_block,
# allgather; in place and not; a prime and a power-of-two count; a strided
# vector type), started REPS times with new inputs, in a different order on
# odd ranks, with a blocking and a nonblocking allreduce in flight, every
# element checked; the MPI_T counters must show every start on the themis
# path (coll_themis_p<coll>_calls) and the one planned fallback.  Open MPI
# 4.1 runs the MPIX_*_init forms of its pcollreq extension.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=persistent
suite_logs=persistent
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
prog=$BUILD/tests/mpi/persistent
if [ ! -x "$prog" ]; then
    echo "FAIL: persistent: program ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi

# Small calls on the themis path, in chunks of a few hundred bytes: enough
# chunks to split the counts unevenly, few enough messages to stay quick.
CHUNKS=(--mca coll_themis_min_bytes 0 --mca coll_themis_min_chunk_bytes 256)

one() {  # DESCRIPTION NP A B REPS [mpirun options...]
    local desc=$1 np=$2 a=$3 b=$4 reps=$5 tmp log rc
    shift 5
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-persistent.XXXXXX")
    log="$log_dir/$(printf '%s' "np$np $desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 300 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        "${CHUNKS[@]}" "$@" "$prog" "$a" "$b" "$reps" >"$log" 2>&1
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

one "2x2 vader" 4 1009 1024 50 "${VADER[@]}" --mca coll_themis_dims 2x2
one "4x2 vader" 8 257 256 20 "${VADER[@]}" --mca coll_themis_dims 4x2 --mca mpi_yield_when_idle 1
# Above coll_themis_scratch_max (1 MiB, its least) the starts run in
# segments from progress (coll_themis_segment.c); they fell back before.
one "2x2 vader scratch_max 1 MiB segments" 4 393241 262144 3 "${VADER[@]}" \
    --mca coll_themis_dims 2x2 --mca coll_themis_scratch_max 1048576
if [ "$(level_or ci)" = full ]; then
    one "3 tcp automatic" 3 7919 4096 50 "${TCP[@]}"
    one "2x2x2 vader" 8 65537 32768 10 "${VADER[@]}" --mca coll_themis_dims 2x2x2 \
        --mca mpi_yield_when_idle 1
fi
[ "$failures" -eq 0 ]
