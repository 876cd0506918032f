#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# netbed correctness smoke test: brings up an emulated 2x2 network at
# 100mbit,100mbit, checks that plain Open MPI runs on it (plumbing), then
# runs All-Reduce and Reduce-Scatter checks under coll/themis over both
# transports (ob1 and libfabric tcp), proving with MPI_T counters that the
# themis path ran, and always tears the bed down.
#
# Prints PASS:/FAIL: lines; prints "SKIP: netbed smoke (reason)" only when
# network namespaces cannot be created here (not root, or no netns).
#   THEMIS_BUILD_DIR   build tree holding ompi/mca/coll/themis (default: repo root)
#   NETBED_SMOKE_TIMEOUT  seconds per mpirun (default 120)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
netbed=$top/benchmarks/netbed/netbed
build=${THEMIS_BUILD_DIR:-$top}
per_run=${NETBED_SMOKE_TIMEOUT:-120}
shape=2x2
rates=100mbit,100mbit
failed=0

# A prefix and state directory of our own: never touches a developer's bed.
export THEMIS_NETBED_PREFIX=tsmk$$
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-netbed-smoke.XXXXXX")
export THEMIS_NETBED_STATE_DIR=$work/state

# shellcheck source=tests/netbed/netbed_lib.sh
. "$top/tests/netbed/netbed_lib.sh"
netbed_cleanup_on_exit "$netbed" "$work"
netbed_need_netns "netbed smoke" "$THEMIS_NETBED_PREFIX"
netbed_need_tools "netbed smoke" mpicc mpirun tc

prog=$work/netbed_smoke
if ! mpicc -std=gnu11 -O2 -Wall -o "$prog" "$top/tests/netbed/netbed_smoke.c" >"$work/cc.log" 2>&1; then
    cat "$work/cc.log"
    echo "FAIL: netbed smoke program builds with mpicc"
    exit 1
fi

if "$netbed" up "$shape" "$rates" >"$work/up.log" 2>&1; then
    echo "PASS: netbed up $shape $rates"
else
    cat "$work/up.log"
    echo "FAIL: netbed up $shape $rates"
    exit 1
fi

if "$netbed" check >"$work/check.log" 2>&1; then
    echo "PASS: netbed routes follow the planner's dimension-ordered routes"
else
    cat "$work/check.log"
    echo "FAIL: netbed routes follow the planner's dimension-ordered routes"
    failed=1
fi

# run NAME MPIRUN-OPTIONS... -- PROGRAM-ARGS...: one bounded mpirun; its
# PASS/FAIL lines pass through, and a run that dies without reporting a
# failure is one.
run() {
    local name=$1 opts=() log rc=0
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    log=$work/run.$RANDOM.log
    timeout -k 10 "$per_run" "$netbed" mpirun "${opts[@]}" "$prog" "$@" >"$log" 2>&1 || rc=$?
    grep -E '^(PASS|FAIL|SKIP): ' "$log"
    grep -q '^FAIL: ' "$log" && failed=1
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$log"; then
        failed=1
        grep -vE '^(PASS|SKIP): ' "$log" | tail -n 25
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "FAIL: netbed $name (timed out after ${per_run}s)"
        else
            echo "FAIL: netbed $name (mpirun exited $rc)"
        fi
    elif [ "$rc" -ne 0 ]; then
        grep -vE '^(PASS|FAIL|SKIP): ' "$log" | grep -v '^-*$' | tail -n 25
    fi
}

# Plumbing: Open MPI's own collectives on the bed.  If this fails, the bed
# (or Open MPI) is broken, not coll/themis.
run "tuned ob1" --transport ob1 -- --label "tuned ob1 (plumbing)" --pvars off

# The beds run the PATH's Open MPI 4.1 (tools/launch.sh).
# shellcheck source=tools/launch.sh
THEMIS_OMPI='' THEMIS_BUILD_DIR=$build . "$top/tools/launch.sh"
mapfile -t themis < <(launch_opts themis)
if [ ! -f "$comp_dir/mca_coll_themis.so" ]; then
    echo "FAIL: netbed smoke: no $comp_dir/mca_coll_themis.so (build themis or set THEMIS_BUILD_DIR)"
    failed=1
else
    for transport in ob1 ofi; do
        run "themis $transport" --transport "$transport" \
            "${themis[@]}" \
            --mca coll_themis_dims "$shape" --mca coll_themis_min_bytes 0 \
            -- --label "themis $transport" --pvars on
    done
fi

if "$netbed" down >"$work/down.log" 2>&1 && ! ip netns list | grep -q "^$THEMIS_NETBED_PREFIX-"; then
    echo "PASS: netbed down leaves no namespace behind"
else
    cat "$work/down.log"
    echo "FAIL: netbed down leaves no namespace behind ($(ip netns list | grep "^$THEMIS_NETBED_PREFIX-" | tr '\n' ' '))"
    failed=1
fi
exit "$failed"
