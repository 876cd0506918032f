#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# themis's TACOS against the public TACOS (github.com/astra-sim/tacos
# v1.3.0) on uniform and heterogeneous 2-D/3-D meshes and tori, All-Gather,
# side by side in one run: the public code is built unmodified from
# TACOS_SRC (a checkout of v1.3.0) with its Release flags, driven by
# benchmarks/tacos_public_driver.cpp, which records the schedules it finds;
# benchmarks/tacos_vs_public re-times them validly in the link simulator
# (no chunk leaves a node before it arrived, a link carries one chunk at a
# time; best of RUNS runs, free or per-link order) and synthesizes themis's
# on the same graph.  Prints a markdown table (benchmarks/README.md,
# "TACOS against the public code").  Run under
#   flock /tmp/themis-mpi.lock nice -n 5 bash benchmarks/tacos_vs_public.sh
# RUNS (default 5): public runs per graph (it seeds from random_device).
# WORK=DIR REUSE=1: take the public schedules of an earlier run in DIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=${TACOS_SRC:-/work/tacos-ref}
work=${WORK:-$(mktemp -d)}
runs=${RUNS:-5}
cmp=$top/benchmarks/tacos_vs_public
[ -x "$cmp" ] || make -C "$top" benchmarks/tacos_vs_public >/dev/null
if [ ! -d "$src/src/synthesizer" ]; then
    echo "tacos_vs_public: no public TACOS source in $src (set TACOS_SRC to a checkout" \
         "of astra-sim/tacos v1.3.0; these machines reach no git host)" >&2
    exit 2
fi
mkdir -p "$work/obj"
[ -n "${REUSE:-}" ] || while IFS= read -r -d '' f; do
    g++ -O3 -DNDEBUG -std=c++17 -I"$src/include" -I"$src/include/tacos" -c "$f" \
        -o "$work/obj/$(basename "$f" .cpp).o"
done < <(find "$src/src" -name '*.cpp' ! -name main.cpp -print0)
[ -n "${REUSE:-}" ] || g++ -O3 -DNDEBUG -std=c++17 -I"$src/include" -I"$src/include/tacos" \
    "$top/benchmarks/tacos_public_driver.cpp" "$work"/obj/*.o \
    -Wl,--wrap=_ZN5tacos19TimeExpandedNetwork8timestepEd \
    -Wl,--wrap=_ZN5tacos19TimeExpandedNetwork16transferFinishedEii -o "$work/driver"

# graph, chunks per NPU, chunk bytes (1 MiB unless given)
rows=(
    "mesh2d:4x4,bw=100GiB/s,lat=500ns 1"
    "mesh2d:6x6,bw=100GiB/s,lat=500ns 2"
    "torus2d:4x4,bw=100GiB/s,lat=500ns 1"
    "torus2d:6x6,bw=100GiB/s,lat=500ns 2"
    "mesh3d:3x3x3,bw=100GiB/s,lat=500ns 1"
    "torus3d:3x3x3,bw=100GiB/s,lat=500ns 2"
    "torus3d:4x4x4,bw=100GiB/s,lat=500ns 1"
    "torus3d:4x4x6,bw=100GiB/s,lat=500ns 1"
    "mesh2d_hetero:3x3,bw=100GiB/s,bw2=30GiB/s,lat=500ns 2"
    "mesh2d_hetero:4x4,bw=100GiB/s,bw2=30GiB/s,lat=500ns 2"
    "mesh2d_hetero:6x6,bw=100GiB/s,bw2=30GiB/s,lat=500ns 2"
    "mesh2d_hetero:6x6,bw=100GiB/s,bw2=50GiB/s,lat=500ns 1"
    "mesh2d_hetero:6x6,bw=80GiB/s,bw2=35GiB/s,lat=500ns 3"
    "mesh2d_hetero:6x6,bw=40GiB/s,bw2=25GiB/s,lat=500ns 4"
    "mesh2d_hetero:4x8,bw=100GiB/s,bw2=10GiB/s,lat=500ns 2"
    "mesh2d_hetero:5x5,bw=50GiB/s,bw2=75GiB/s,lat=500ns 1 $((1024 * 1048576 / 25))"
    "mesh2d_hetero:8x5,bw=80GiB/s,bw2=35GiB/s,lat=1us 2 $((1024 * 1048576 / 80))"
    "mesh2d_hetero:7x10,bw=16GiB/s,bw2=73GiB/s,lat=1500ns 3 $((4096 * 1048576 / 210))"
    "dims:biring:4:200GiB/s:500ns_biring:4:60GiB/s:500ns 2"
    "dims:biring:6:200GiB/s:500ns_biring:6:50GiB/s:500ns 1"
    "dims:biring:4:200GiB/s:500ns_biring:4:100GiB/s:500ns_biring:4:50GiB/s:500ns 1"
    "dims:biring:3:200GiB/s:500ns_biring:3:60GiB/s:500ns_biring:3:60GiB/s:500ns 4"
)
echo "| graph | K | public (reported) | public re-timed | themis | themis / public | cut bound | public synthesis | themis synthesis |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
i=0
for row in "${rows[@]}"; do
    read -r spec k chunk <<<"$row"
    chunk=${chunk:-1048576}
    i=$((i + 1))
    "$cmp" links "$spec" >"$work/$i.links"
    if [ -z "${REUSE:-}" ] || [ ! -s "$work/$i.out" ]; then
        "$work/driver" "$work/$i.links" "$k" "$chunk" "$runs" "$work/$i.out"
    fi
    line=$("$cmp" compare "$spec" "$k" "$chunk" "$work/$i.out")
    val() { sed -n "s/.*[ ^]$1=\([^ ]*\).*/\1/p" <<<" $line"; }
    pub=$(val public_valid_us)
    ours=$(val themis_us)
    ratio=$(awk -v a="$ours" -v b="$pub" 'BEGIN { printf "%.3f", a / b }')
    echo "| \`$spec\` | $k | $(val public_reported_us) us | $pub us | $ours us | $ratio |" \
         "$(val cut_bound_us) us ($(val cut)) | $(val public_synth_ms) ms | $(val themis_synth_ms) ms |"
done
echo "(public: best of $runs runs; chunks of 1 MiB unless the public tests' sizes: 1 GiB / 25," \
     "1 GiB / 80, 4 GiB / 210; $(date -u +%Y-%m-%d))"
