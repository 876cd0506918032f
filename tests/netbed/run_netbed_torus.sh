#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# netbed torus mode with the HammingMesh algorithms: brings up a 3x3 torus
# (`netbed up torus 3x3 25mbit`: four point-to-point links per rank),
# checks its routes, runs tests/mpi/coll_matrix (tiny matrix) with
# coll_themis_torus=3x3 and all three collectives on rings, then on
# torus2d, over ob1, proving per call with the MPI_T counters that the
# algorithm ran (coll_matrix --algo), and with the links' byte counters
# that every rank sent on all four of its links.  Always tears the bed down.
#
# Prints PASS:/FAIL: lines; "SKIP: netbed torus (reason)" only when network
# namespaces cannot be created here.
#   THEMIS_BUILD_DIR       build tree with the component and tests/mpi/coll_matrix
#   NETBED_SMOKE_TIMEOUT   seconds per mpirun (default 180)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
netbed=$top/benchmarks/netbed/netbed
build=${THEMIS_BUILD_DIR:-$top}
per_run=${NETBED_SMOKE_TIMEOUT:-180}
prog=$build/tests/mpi/coll_matrix
# The beds run the PATH's Open MPI 4.1 (tools/launch.sh).
# shellcheck source=tools/launch.sh
THEMIS_OMPI='' THEMIS_BUILD_DIR=$build . "$top/tools/launch.sh"
mapfile -t themis < <(launch_opts themis op)
failed=0

export THEMIS_NETBED_PREFIX=ttor$$
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-netbed-torus.XXXXXX")
export THEMIS_NETBED_STATE_DIR=$work/state

# shellcheck source=tests/netbed/netbed_lib.sh
. "$top/tests/netbed/netbed_lib.sh"
netbed_cleanup_on_exit "$netbed" "$work"
netbed_need_netns "netbed torus" "$THEMIS_NETBED_PREFIX"
for f in "$comp_dir/mca_coll_themis.so" "$prog"; do
    if [ ! -e "$f" ]; then
        echo "FAIL: netbed torus ($f not found: build first or set THEMIS_BUILD_DIR)"
        exit 1
    fi
done

if "$netbed" up torus 3x3 25mbit >"$work/up.log" 2>&1; then
    echo "PASS: netbed up torus 3x3 25mbit"
else
    sed 's/^/    | /' "$work/up.log"
    echo "FAIL: netbed up torus 3x3 25mbit"
    exit 1
fi
if out=$("$netbed" check 2>&1); then
    echo "PASS: netbed torus routes: the planner's dimension-ordered ones, over neighbour links ($out)"
else
    while IFS= read -r line; do echo "    | $line"; done <<<"$out"
    echo "FAIL: netbed torus routes"
    failed=1
fi

tx_bytes() {   # -> "rank dev bytes" for every rank's four links
    local r d
    for ((r = 0; r < 9; r++)); do
        for d in d1p d1m d2p d2m; do
            echo "$r $d $("$netbed" exec "$r" cat "/sys/class/net/$d/statistics/tx_bytes")"
        done
    done
}

for algo in rings torus2d; do
    log=$work/$algo.log
    tx_bytes >"$work/tx0"
    rc=0
    timeout -k 10 "$per_run" "$netbed" mpirun \
        "${themis[@]}" \
        --mca coll_themis_min_bytes 0 --mca coll_themis_torus 3x3 \
        --mca coll_themis_allreduce_algorithm "$algo" \
        --mca coll_themis_reduce_scatter_algorithm "$algo" \
        --mca coll_themis_allgather_algorithm "$algo" \
        "$prog" --level tiny --no-subcomms --algo "$algo" >"$log" 2>&1 || rc=$?
    tx_bytes >"$work/tx1"
    if [ "$rc" -eq 0 ] && ! grep -q '^error: ' "$log" && grep -q '^coll_matrix: ' "$log"; then
        echo "PASS: netbed torus ob1 $algo: coll_matrix tiny, every eligible call ran $algo ($(grep -o '[0-9]* cases on rank 0' "$log"))"
    else
        echo "FAIL: netbed torus ob1 $algo: coll_matrix (exit $rc)"
        { grep '^error: ' "$log" || tail -n 15 "$log"; } | head -n 12 | sed 's/^/    | /'
        failed=1
    fi
    # Every rank sent on each of its four links (the four directed rings,
    # or the four quarters of torus2d).
    idle=$(paste "$work/tx0" "$work/tx1" | awk '$6 - $3 < 4096 { printf " r%s:%s", $1, $2 }')
    if [ -z "$idle" ]; then
        echo "PASS: netbed torus ob1 $algo: all 36 directed links carried traffic"
    else
        echo "FAIL: netbed torus ob1 $algo: links that carried < 4 KiB:$idle"
        failed=1
    fi
done

"$netbed" down >/dev/null 2>&1
left=$(ip netns list | grep -c "^$THEMIS_NETBED_PREFIX-" || true)
if [ "$left" -eq 0 ]; then
    echo "PASS: netbed torus down leaves no namespace behind"
else
    echo "FAIL: netbed torus down left $left namespaces"
    failed=1
fi
exit "$failed"
