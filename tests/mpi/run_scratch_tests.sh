#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Memory held after one large call (tests/mpi/scratch_mem.c, np 2, 320 MiB
# vectors): with coll_themis_scratch_max 64 MiB the large reduce-scatter
# and allgather run in segments, and a rank's resident set must not grow by
# more than 64 + 16 MiB once the user's buffers are freed; with the default
# (256 MiB: two segments here) by no more than 256 + 16 MiB.  The same run
# with scratch_max 0 (unbounded: one segment) must show the whole scratch
# kept (growth >= 300 MiB after reduce-scatter), which proves that the
# measurement sees it.  Transfer schedules (tacos on a 2-node graph) work
# in input, output and scratch units, a few times the vector, allreduce
# too: their segments follow that work buffer, so the same 64 MiB bound
# holds for all three collectives.
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
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 300 "$MPIRUN" -np 2 "${common[@]}" "${tmpo[@]}" "${VADER[@]}" \
        --mca coll_themis_min_bytes 0 "$@" "$prog" "$BYTES" >"$log_dir/$name.log" 2>&1
    local rc=$?
    rm -rf "$tmp"
    return $rc
}
growth() {  # LOGNAME COLL -> MiB, or empty when the line is missing
    grep "^scratch_mem: $2 bytes=.* themis=1\$" "$log_dir/$1.log" | sed 's/.*growth_mib=\(-\?[0-9]*\).*/\1/'
}

bounded() {  # LOGNAME LIMIT_MIB DESCRIPTION [mpirun options...]
    local name=$1 limit=$2 desc=$3
    shift 3
    if go "$name" "$@"; then
        for coll in reduce_scatter_block allreduce allgather; do
            g=$(growth "$name" "$coll")
            if [ -n "$g" ] && [ "$g" -le "$limit" ]; then
                echo "PASS: scratch_mem $desc: $coll of 320 MiB leaves +${g} MiB"
            else
                failures=$((failures + 1))
                echo "FAIL: scratch_mem $desc: $coll of 320 MiB leaves +${g:-?} MiB" \
                     "(limit $limit; log $log_dir/$name.log)"
            fi
        done
    else
        failures=$((failures + 1))
        echo "FAIL: scratch_mem $desc (run failed; log $log_dir/$name.log)"
        tail -n 10 "$log_dir/$name.log" | sed 's/^/    | /'
    fi
}
bounded small 80 "scratch_max 64 MiB" --mca coll_themis_scratch_max 67108864
bounded default 272 "default scratch_max (256 MiB)"
bounded tacos 80 "tacos, scratch_max 64 MiB" --mca coll_themis_scratch_max 67108864 \
    --mca coll_themis_graph ring:2 --mca coll_themis_allreduce_algorithm tacos \
    --mca coll_themis_reduce_scatter_algorithm tacos --mca coll_themis_allgather_algorithm tacos

if go keep --mca coll_themis_scratch_max 0; then
    g=$(growth keep reduce_scatter_block)
    if [ -n "$g" ] && [ "$g" -ge 300 ]; then
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
