#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Datatype paths (tests/mpi/dtype_paths.c): MPI_BOTTOM with absolute
# addresses and a user op; allgather where rank 0 describes its data with
# another layout than the others (must not hang: every rank takes the same
# path); a user op on a non-contiguous type.  Over three shapes and
# transports; a run that hangs is killed by the timeout and fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=dtype_paths
suite_logs=dtype
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
prog=$BUILD/tests/mpi/dtype_paths
if [ ! -x "$prog" ]; then
    echo "FAIL: dtype_paths: program ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi

one() {  # DESCRIPTION NP [mpirun options...]
    local desc=$1 np=$2 tmp log rc
    shift 2
    if no_ofi_here "$@"; then
        echo "SKIP: dtype_paths np=$np $desc (this Open MPI has no mtl ofi)"
        return 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-dtype.XXXXXX")
    log="$log_dir/$(printf '%s' "np$np $desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 180 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        "${MIN0[@]}" "$@" "$prog" 1000 >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
    grep -E '^(PASS|FAIL): ' "$log" | sed "s/\$/ [$desc]/"
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$log"; then
        failures=$((failures + 1))
        echo "FAIL: dtype_paths np=$np $desc (exit $rc$([ "$rc" -eq 124 ] && echo ', hung'); log $log)"
        tail -n 10 "$log" | sed 's/^/    | /'
    fi
    grep -q '^FAIL: ' "$log" && failures=$((failures + 1))
}

one "2x2 vader" 4 "${VADER[@]}" --mca coll_themis_dims 2x2
one "3x2 tcp" 6 "${TCP[@]}" --mca coll_themis_dims 3x2
one "automatic ofi" 3 "${OFI[@]}"
[ "$failures" -eq 0 ]
