#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# `auto` on a graph (coll_themis_graph, planners/algorithms/algorithm.h
# themis_algorithm_plan): every call the coll_matrix makes runs on themis,
# bit-exact, with 0 fallbacks, although the fastest rows (tacos, treepack)
# cannot serve most of its counts (--big: 1000003 elements, where the
# packing is fastest but its 96 units do not divide the vector): auto runs
# the fastest row that can.
# Then each "auto:" line the component logged at coll_themis_verbose 10
# (lowest rank, once per decision) must equal, character for character,
# the one `themis-plan compare` prints for the same call: the same times,
# the same reasons, the same choice.  mesh2d:4x4 (np 16, allreduce, 4x4
# dims; --big adds reduce-scatters and an allgather), a 6-node ring
# (np 6, allgather), and docs/examples/cluster_4x4_2nic.graph (np 16,
# allreduce: 4 hosts of 4 ranks, 2 NICs per host into a switch, docs/
# cluster.md), whose dims both sides take from the graph's placement.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=auto
suite_logs=auto
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"

suite_start=$SECONDS
plan="$BUILD/tools/themis-plan"
# The shape and rates the CLI assumes, stated for the component too.
RATES=(--mca coll_themis_dim_bandwidths 100Gb --mca coll_themis_dim_latencies 600ns)

# compare NAME GRAPH DIMS LOG: the auto: lines of a run's log against
# themis-plan compare, one CLI call per collective and element size; DIMS
# - : the graph's own.
compare() {
    local name=$1 graph=$2 dims=$3 log=$4
    local got="$log_dir/$name.component" want="$log_dir/$name.cli" bad="" dimopt=()
    [ "$dims" = - ] || dimopt=(--dims "$dims")
    sed -n 's/.*coll:themis: MPI_COMM_WORLD: \(auto: .*\)$/\1/p' "$log" | sort -u >"$got"
    if [ ! -s "$got" ]; then
        failures=$((failures + 1))
        echo "FAIL: $suite_label $name: CLI = component (no auto: lines in $log)"
        return
    fi
    : >"$want"
    # "coll bytes elements" -> "coll element-size bytes,bytes,..."
    while read -r coll esize sizes; do
        "$plan" compare --graph "$graph" "${dimopt[@]}" --coll "$coll" --bytes "$sizes" \
            --elem-size "$esize" --min-chunk-bytes 1 --bw 100Gb --lat 600ns \
            2>>"$want.err" | grep '^auto: ' >>"$want" || bad="themis-plan compare failed"
    done < <(sed -n 's/^auto: \([a-z_]*\) of \([0-9]*\) bytes (\([0-9]*\) elements).*/\1 \2 \3/p' "$got" \
             | awk '{ k = $1 " " $2 / $3; if (k in s) s[k] = s[k] "," $2; else s[k] = $2 }
                    END { for (k in s) print k, s[k] }')
    sort -u -o "$want" "$want"
    if [ -z "$bad" ] && cmp -s "$got" "$want"; then
        echo "PASS: $suite_label $name: CLI = component ($(wc -l <"$got") decisions)"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label $name: CLI = component (${bad:-differs}; diff $got $want)"
        diff "$got" "$want" | head -n 6 | sed 's/^/    | /'
    fi
}

opts=("${VADER[@]}" "${MIN0[@]}" "${RATES[@]}" --mca mpi_yield_when_idle 1
      --mca coll_themis_graph mesh2d:4x4 --mca coll_themis_dims 4x4 --mca coll_themis_verbose 10)
args=(--coll allreduce --expect themis --no-subcomms --big --level "$(level_or tiny)")
if run "mesh2d:4x4 allreduce auto, 0 fallbacks" 1200 16; then
    compare mesh4x4_ar mesh2d:4x4 4x4 "$log_dir/np16_mesh2d_4x4_allreduce_auto__0_fallbacks.log"
fi

opts=("${VADER[@]}" "${MIN0[@]}" "${RATES[@]}"
      --mca coll_themis_graph ring:6 --mca coll_themis_dims 6 --mca coll_themis_verbose 10)
args=(--coll allgather --expect themis --no-subcomms --level "$(level_or tiny)")
if run "ring:6 allgather auto, 0 fallbacks" 600 6; then
    compare ring6_ag ring:6 6 "$log_dir/np6_ring_6_allgather_auto__0_fallbacks.log"
fi

cluster=$(cd "$here/../../docs/examples" && pwd)/cluster_4x4_2nic.graph
opts=("${VADER[@]}" "${MIN0[@]}" "${RATES[@]}" --mca mpi_yield_when_idle 1
      --mca coll_themis_graph "$cluster" --mca coll_themis_verbose 10)
args=(--coll allreduce --expect themis --no-subcomms --level "$(level_or tiny)")
if run "cluster 4x4 2nic allreduce auto, 0 fallbacks" 1200 16; then
    log="$log_dir/np16_cluster_4x4_2nic_allreduce_auto__0_fallbacks.log"
    compare cluster4x4_ar "$cluster" - "$log"
    # the graph's dims, and no warning that declared ones disagree
    if grep -q 'declared dims 4x4' "$log" && ! grep -q 'disagree with the graph' "$log"; then
        echo "PASS: $suite_label cluster4x4: dims 4x4 from the graph"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label cluster4x4: dims 4x4 from the graph (log $log)"
    fi
fi

# declared dims that do not cut along the graph's hosts: said once
opts=("${VADER[@]}" "${MIN0[@]}" "${RATES[@]}" --mca mpi_yield_when_idle 1
      --mca coll_themis_graph "$cluster" --mca coll_themis_dims 2x8)
args=(--coll allreduce --expect themis --no-subcomms --level tiny)
if run "cluster 4x4 2nic dims 2x8 warned" 600 16; then
    log="$log_dir/np16_cluster_4x4_2nic_dims_2x8_warned.log"
    if [ 1 -eq "$(grep -c 'warning: coll_themis_dims 2x8 disagree with the graph: 4 hosts of 4 ranks (dims 4x4)' "$log")" ]; then
        echo "PASS: $suite_label cluster4x4: dims 2x8 warned once"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label cluster4x4: dims 2x8 warned once (log $log)"
    fi
fi

echo "auto suite: $((SECONDS - suite_start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failures" -eq 0 ]
