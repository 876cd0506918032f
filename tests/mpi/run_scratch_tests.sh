#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Memory held after one large call (tests/mpi/scratch_mem.c, np 2, 320 MiB
# vectors): with the default coll_themis_scratch_max (64 MiB) the large
# reduce-scatter and allgather run in segments, and a rank's resident set
# must not grow by more than 64 + 16 MiB once the user's buffers are freed.
# The same run with scratch_max 0 (unbounded: one segment) must show the
# whole scratch kept (growth >= 200 MiB after reduce-scatter), which proves
# that the measurement sees it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=scratch_mem
suite_logs=scratch
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
prog=$BUILD/tests/mpi/scratch_mem
if [ ! -x "$prog" ]; then
    echo "FAIL: scratch_mem: program ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi
BYTES=335544320

go() {  # LOGNAME [mpirun options...]
    local name=$1 tmp
    shift
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-scratch.XXXXXX")
    timeout -k 10 300 mpirun -np 2 "${common[@]}" --mca orte_tmpdir_base "$tmp" "${VADER[@]}" \
        --mca coll_themis_min_bytes 0 "$@" "$prog" "$BYTES" >"$log_dir/$name.log" 2>&1
    local rc=$?
    rm -rf "$tmp"
    return $rc
}
growth() {  # LOGNAME COLL -> MiB, or empty when the line is missing
    grep "^scratch_mem: $2 bytes=.* themis=1\$" "$log_dir/$1.log" | sed 's/.*growth_mib=\(-\?[0-9]*\).*/\1/'
}

if go default; then
    for coll in reduce_scatter_block allreduce allgather; do
        g=$(growth default "$coll")
        if [ -n "$g" ] && [ "$g" -le 80 ]; then
            echo "PASS: scratch_mem default scratch_max: $coll of 320 MiB leaves +${g} MiB"
        else
            failures=$((failures + 1))
            echo "FAIL: scratch_mem default scratch_max: $coll of 320 MiB leaves +${g:-?} MiB" \
                 "(limit 80; log $log_dir/default.log)"
        fi
    done
else
    failures=$((failures + 1))
    echo "FAIL: scratch_mem default scratch_max (run failed; log $log_dir/default.log)"
    tail -n 10 "$log_dir/default.log" | sed 's/^/    | /'
fi

if go keep --mca coll_themis_scratch_max 0; then
    g=$(growth keep reduce_scatter_block)
    if [ -n "$g" ] && [ "$g" -ge 200 ]; then
        echo "PASS: scratch_mem scratch_max 0 (unbounded): reduce-scatter scratch kept (+${g} MiB)"
    else
        failures=$((failures + 1))
        echo "FAIL: scratch_mem scratch_max 0 (unbounded): expected the scratch kept, +${g:-?} MiB" \
             "(log $log_dir/keep.log)"
    fi
else
    failures=$((failures + 1))
    echo "FAIL: scratch_mem scratch_max 0 (unbounded) (run failed; log $log_dir/keep.log)"
fi
[ "$failures" -eq 0 ]
