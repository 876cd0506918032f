#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Runs tests/mpi/engine_harness (the engine compiled into a plain MPI
# program, no component) on 2..5 ranks over shared memory, and on 3 ranks
# over ob1/tcp and cm/ofi (libfabric tcp provider).  Prints the harness's
# PASS:/FAIL:/SKIP: lines, plus a FAIL line for a run that crashes or
# times out.
#   THEMIS_BUILD_DIR   build tree holding tests/mpi/engine_harness
#                      (default: the repository root, an in-tree build)
#   THEMIS_ENGINE_BIG=1  also run the 2^31-element transfer (2 GiB per rank)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${THEMIS_BUILD_DIR:-$top}
bin=$build/tests/mpi/engine_harness
if [ ! -x "$bin" ]; then
    echo "FAIL: engine_harness (not built: $bin; run make check TESTS= in $build)"
    exit 1
fi
# shellcheck source=tools/launch.sh
. "$top/tools/launch.sh"
big=${THEMIS_ENGINE_BIG:-}
unset THEMIS_ENGINE_BIG   # only the dedicated run below gets it

status=0
run() {   # label, np, extra mpirun arguments...
    local label=$1 np=$2; shift 2
    local tmp out rc opts
    tmp=$(mktemp -d)
    mapfile -t opts < <(launch_opts oversubscribe tmpdir "$tmp")
    out=$(timeout 120 "$MPIRUN" "${opts[@]}" \
          --mca coll ^themis -np "$np" "$@" "$bin" "$label" 2>&1)
    rc=$?
    rm -rf "$tmp"
    echo "$out" | grep -E '^(PASS|FAIL|SKIP): '
    if [ $rc -ne 0 ] || ! echo "$out" | grep -qE '^(PASS|FAIL|SKIP): '; then
        echo "FAIL: $label/run np=$np (mpirun exited $rc)"
        echo "$out" | grep -vE '^(PASS|SKIP): ' | tail -n 15
        status=1
    fi
    echo "$out" | grep -q '^FAIL: ' && status=1
}

for np in 2 3 4 5; do
    run shm "$np"
done
run tcp 3 --mca pml ob1 --mca btl tcp,self
run ofi 3 --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_exclude none -x FI_PROVIDER=tcp
if [ -n "$big" ]; then
    run big 2 -x THEMIS_ENGINE_BIG=1
else
    echo "SKIP: big/big_transfer np=2 (2^31-element transfer: set THEMIS_ENGINE_BIG=1)"
fi
exit $status
