#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# TACOS (planners/tacos/tacos.h, row `tacos`): schedules synthesized for the
# communicator's graph run the coll_matrix for allreduce, reduce_scatter and
# allgather, bit-exact, and the MPI_T counters prove that tacos ran: a 4x4
# mesh (np 16), the 4x4 mesh without nodes 7 and 9 (np 14, its working
# part from `themis-plan synth --write-graph`), a 3x3x3 torus (np 27, tiny
# level), a 4x4 torus whose slow links with latency make the held-link
# seeds win (np 16: their link-order dependencies under MPI); and a
# TACOS-ILP All-Reduce on a 2x3 mesh (np 6, `themis-plan
# synth --ilp --export`, run as coll_themis_allreduce_schedule: its
# link-order dependencies under MPI).  --count-unit P makes every vector
# divide into the schedule's P units (one chunk per rank); counts that do
# not (any_counts, reduce-scatters with unequal and empty blocks) run tacos
# too on the 4x4 mesh.  Oversubscribed: mpi_yield_when_idle and generous
# timeouts.
# shellcheck disable=SC2054  # commas separate counts and MCA values, not array elements
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=tacos
suite_logs=tacos
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"

suite_start=$SECONDS
YIELD=(--mca mpi_yield_when_idle 1)
tacos_opts() {   # GRAPH: the graph, tacos for all three collectives
    printf '%s\n' --mca coll_themis_graph "$1" \
        --mca coll_themis_allreduce_algorithm tacos \
        --mca coll_themis_reduce_scatter_algorithm tacos \
        --mca coll_themis_allgather_algorithm tacos
}

gen=$(mktemp -d "${TMPDIR:-/tmp}/themis-tacos.XXXXXX")
if ! "$BUILD/tools/themis-plan" synth --graph mesh2d:4x4,fail=7+9 --coll ar --bytes 14MiB \
        --chunks-per-npu 1 --write-graph "$gen/mesh4x4_fail_7_9.txt" \
        >"$log_dir/synth_faulty.log" 2>&1; then
    echo "FAIL: tacos: themis-plan synth --write-graph (log: $log_dir/synth_faulty.log)"
    failures=$((failures + 1))
fi

for c in allreduce reduce_scatter allgather; do
    mapfile -t T16 < <(tacos_opts mesh2d:4x4)
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${T16[@]}")
    args=(--coll "$c" --count-unit 16 --algo tacos --no-subcomms --level "$(level_or tiny)")
    run "mesh2d:4x4 $c" 900 16
    mapfile -t T14 < <(tacos_opts "$gen/mesh4x4_fail_7_9.txt")
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${T14[@]}")
    args=(--coll "$c" --count-unit 14 --algo tacos --no-subcomms --level "$(level_or tiny)")
    run "mesh2d:4x4 without 7 and 9 $c" 900 14
    mapfile -t T27 < <(tacos_opts torus3d:3x3x3)
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${T27[@]}")
    args=(--coll "$c" --count-unit 27 --algo tacos --no-subcomms --level "$(level_or tiny)")
    run "torus3d:3x3x3 $c" 2400 27
done
# A torus with slow links and latency: the held-link seeds win (each link's
# sends kept in order by dependencies), for both halves of the allreduce.
for c in allreduce allgather; do
    mapfile -t TH < <(tacos_opts "torus2d:4x4,lat=500ns,bw=100Mb")
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${TH[@]}")
    args=(--coll "$c" --count-unit 16 --algo tacos --no-subcomms --level "$(level_or tiny)")
    run "torus2d:4x4 held links $c" 900 16
done
if "$BUILD/tools/themis-plan" synth --graph mesh2d:2x3 --coll ar --bytes 6MiB --chunks-per-npu 1 \
        --ilp --time-limit 120 --export "$gen/ilp" >"$log_dir/synth_ilp.log" 2>&1; then
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}"
          --mca coll_themis_allreduce_schedule "$gen/ilp/schedule.xml")
    args=(--coll allreduce --count-unit 6 --algo schedule --no-subcomms --level tiny)
    run "mesh2d:2x3 TACOS-ILP allreduce" 900 6
else
    echo "FAIL: tacos: themis-plan synth --ilp --export (log: $log_dir/synth_ilp.log)"
    failures=$((failures + 1))
fi
# Counts that do not divide into the units: tacos on every call (units of
# uneven size, planners/schedule/transfer.h); reduce_scatter runs even, skewed (with
# empty blocks) and all-on-one receive counts.
mapfile -t T16 < <(tacos_opts mesh2d:4x4)
opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" "${T16[@]}")
for c in allreduce reduce_scatter allgather; do
    args=(--coll "$c" --counts "$(any_counts)" --algo tacos --no-subcomms
          --level "$(level_or tiny)")
    run "mesh2d:4x4 $c counts $(any_counts)" 1800 16
    if [ -n "$(any_counts_big)" ]; then
        args=(--coll "$c" --counts "$(any_counts_big)" --algo tacos --no-subcomms --level tiny)
        run "mesh2d:4x4 $c counts $(any_counts_big)" 1800 16
    fi
done
# coll_matrix --shard, with which the full level at large counts runs in
# pieces: the shards list every case of a matrix exactly once.
check_shards 2 3 --level reduced --big
# Full level: counts sampled across 1 .. 2^20 + 1 for all three
# collectives (reduce_scatter: even, skewed and all-on-one blocks).
if [ "${THEMIS_TEST_LEVEL:-}" = full ]; then
    for c in allreduce reduce_scatter allgather; do
        args=(--coll "$c" --counts 3,251,65521,262147,1048577 --algo tacos --no-subcomms
              --level tiny)
        run "mesh2d:4x4 $c sampled counts to 2^20+1" 1800 16
    done
    # Every datatype and op at large counts (2^20 + 1 elements, 2^20 for
    # the reduce-scatter block and allgather vectors): about an hour on
    # two cores, so only in pieces, THEMIS_TEST_SHARD=I/N (verdicts of
    # 2026-11-28: benchmarks/results/tacos_full_matrix_2026-11-28.txt).
    if [ -n "${THEMIS_TEST_SHARD:-}" ]; then
        for cc in allreduce:65521,262144,1048577 reduce_scatter_v:65521,262144,1048577 \
                  reduce_scatter_block:65521,65536 allgather:65521,65536; do
            args=(--coll "${cc%%:*}" --counts "${cc#*:}" --algo tacos --no-subcomms --level full
                  --ring-check)
            run "mesh2d:4x4 ${cc%%:*} every type and op at ${cc#*:}" 1800 16
        done
    fi
fi
rm -rf "$gen"

echo "tacos suite: $((SECONDS - suite_start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failures" -eq 0 ]
