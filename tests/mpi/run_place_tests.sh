#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Where the ranks run (coll_themis_placement.c): the setup agreement
# gathers every rank's host, and coll_themis_graph's hosts take the
# runtime's nodes in rank order.  On one machine every rank shares a
# node, so coll_themis_host_map (documented as for testing) stands in for
# the runtime's locality, through the same agreement.
#   - docs/examples/cluster_4x4_2nic.graph (4 hosts x 4 ranks), np 16:
#     block placement keeps the graph's numbering; round-robin (--map-by
#     node) renumbers its rank nodes (graph host h's j-th rank node is
#     rank 4j + h) and the dims follow (4 across hosts, place 1, x 4 in a
#     host, place 4); 2 hosts of 8 ranks cannot match: one warning naming
#     both shapes, the graph used as given.  Every call bit-exact, on
#     themis (coll_matrix --expect themis).
#   - cluster:4x2 (np 8) under a placement no place values describe
#     (hosts {0,5} {1,4} {2,7} {3,6}): the dims go through a rank map
#     (themis forced: auto prefers the graph's rows there); auto's times
#     of the rows on dimensions are the block placement's (themis-plan
#     compare on the graph as given): they are costed where their ranks
#     are, not at the graph's numbering.
#   - no graph, round-robin over 4 hosts (np 8): the automatic dims take
#     the mapped hosts (2 in a host, place 4, x 4 across hosts, place 1).
# Nothing here is timed; np 16 on two cores is oversubscribed (yield).
#
# Environment: THEMIS_BUILD_DIR, THEMIS_TEST_LOG_DIR, THEMIS_TEST_FILTER
# (see coll_matrix_lib.sh).
# shellcheck disable=SC2054  # commas separate counts and MCA values, not array elements
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=place
suite_logs=place
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"

suite_start=$SECONDS
cluster=$(cd "$here/../../docs/examples" && pwd)/cluster_4x4_2nic.graph
# host_map NP FORMULA: the host of each rank r < NP, by a shell expression of r.
host_map() {
    local np=$1 expr=$2 r out=""
    for ((r = 0; r < np; r++)); do
        out+="${out:+,}$((expr))"
    done
    echo "$out"
}
base=("${VADER[@]}" "${MIN0[@]}" --mca mpi_yield_when_idle 1 --mca coll_themis_verbose 10)
args=(--coll allreduce --expect themis --no-subcomms --level tiny --counts "$(any_counts)")
all_colls=(--expect themis --no-subcomms --level tiny --counts 7,1024)

opts=("${base[@]}" --mca coll_themis_graph "$cluster"
      --mca coll_themis_host_map "$(host_map 16 'r / 4')")
need=('placement from coll_themis_host_map: 4 hosts of 4 ranks: \[0 1 2 3\] \[4 5 6 7\] \[8 9 10 11\] \[12 13 14 15\]'
      "coll_themis_graph's 4 hosts matched to the runtime's nodes \(rank node i is rank i\)"
      'ready, 16 ranks, dims 4\(node, place 1\) x 4\(network, place 4\)')
shun=('warning')
run "cluster 4x4 block" 1200 16

opts=("${base[@]}" --mca coll_themis_graph "$cluster"
      --mca coll_themis_host_map "$(host_map 16 'r % 4')")
need=('placement from coll_themis_host_map: 4 hosts of 4 ranks: \[0 4 8 12\] \[1 5 9 13\] \[2 6 10 14\] \[3 7 11 15\]'
      "coll_themis_graph's 4 hosts matched to the runtime's nodes; its rank nodes renumbered"
      'graph rank node -> rank: 0 4 8 12 1 5 9 13 2 6 10 14 3 7 11 15$'
      'ready, 16 ranks, dims 4\(network, place 1\) x 4\(node, place 4\)')
run "cluster 4x4 round-robin" 1200 16
saved=("${args[@]}")
args=("${all_colls[@]}")
run "cluster 4x4 round-robin, every collective" 1200 16
opts+=(--mca coll_themis_allreduce_algorithm torus2d)
args=("${saved[@]}" --algo torus2d)
run "cluster 4x4 round-robin, torus2d" 1200 16
args=("${saved[@]}")

opts=("${base[@]}" --mca coll_themis_graph "$cluster"
      --mca coll_themis_host_map "$(host_map 16 'r / 8')")
need=('placement from coll_themis_host_map: 2 hosts of 8 ranks'
      'ready, 16 ranks, dims 4\(node, place 1\) x 4\(network, place 4\)')
shun=('renumbered')
log="$log_dir/np16_cluster_4x4_on_2_hosts_of_8__warned.log"
rm -f "$log"
if run "cluster 4x4 on 2 hosts of 8: warned" 1200 16 && [ -f "$log" ]; then
    said=$(grep -c "warning: coll_themis_graph places its 16 ranks as 4 hosts of 4 ranks, but coll_themis_host_map runs them as 2 hosts of 8 ranks; using the graph's placement as given" "$log")
    if [ "$said" -eq 1 ]; then
        echo "PASS: $suite_label mismatch said once"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label mismatch said once ($said times; log $log)"
    fi
fi
shun=()

opts=("${base[@]}" --mca coll_themis_graph cluster:4x2
      --mca coll_themis_host_map 0,1,2,3,1,0,3,2)
need=('placement from coll_themis_host_map: 4 hosts of 2 ranks: \[0 5\] \[1 4\] \[2 7\] \[3 6\]'
      'graph rank node -> rank: 0 5 1 4 2 7 3 6$'
      'ready, 8 ranks, dims 2\(node, place 1\) x 4\(network, place 2\)')
run "cluster:4x2 irregular placement" 900 8
args=("${all_colls[@]}")
run "cluster:4x2 irregular placement, every collective" 900 8
# the dimension rows through the rank map (auto prefers tacos here)
opts+=(--mca coll_themis_allreduce_algorithm themis --mca coll_themis_allgather_algorithm themis
       --mca coll_themis_reduce_scatter_algorithm themis)
args=("${all_colls[@]}" --algo themis)
run "cluster:4x2 irregular placement, themis" 900 8

# the rows on dimensions are costed where their ranks are: their times
# under this placement are the block placement's (the graph as given,
# `themis-plan compare`), not the graph's numbering's
plan=$BUILD/tools/themis-plan
opts=("${base[@]}" --mca coll_themis_graph cluster:4x2
      --mca coll_themis_host_map 0,1,2,3,1,0,3,2)
# (themis at 4 KiB, one chunk whatever the decision; torus2d at two of
# the cost table's sizes, which are not interpolated)
need=()
for b in 4096 262144; do
    line=$("$plan" compare --graph cluster:4x2 --coll ar --bytes "$b" --min-chunk-bytes 1 |
           grep '^auto: ')
    th=$(sed -n 's/.* themis \([0-9.]*\) us;.*/\1/p' <<<"$line")
    t2=$(sed -n 's/.* torus2d \([0-9.]*\) us;.*/\1/p' <<<"$line")
    [ "$b" = 4096 ] && th="${th//./\\.}" || th='[0-9.]+'
    need+=("auto: allreduce of $b bytes \($((b / 4)) elements\) -> [a-z0-9]+ \(link simulator on coll_themis_graph: themis $th us; .*; torus2d ${t2//./\\.} us;")
done
args=(--coll allreduce --expect themis --no-subcomms --level tiny --counts 1024,65536)
run "cluster:4x2 irregular placement: dimension rows costed where their ranks are" 900 8

opts=("${base[@]}" --mca coll_themis_host_map "$(host_map 8 'r % 4')")
need=('placement from coll_themis_host_map: 4 hosts of 2 ranks: \[0 4\] \[1 5\] \[2 6\] \[3 7\]'
      'ready, 8 ranks, dims 2\(node, place 4\) x 4\(network, place 1\)')
shun=('graph rank node')
args=("${saved[@]}")
run "no graph, round-robin: automatic dims" 900 8

echo "place suite: $((SECONDS - suite_start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failures" -eq 0 ]
