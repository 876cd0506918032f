#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# TACOS (tacos.txt) reproduced with `themis-plan synth` and the link
# simulator: Fig. 6 (Ring, Direct and the synthesized All-Reduce on a
# bidirectional ring, a fully connected graph and a 10x10 mesh), synthesis
# times (8x8x8 torus All-Gather of 1 GiB with one chunk per NPU; 10x10 mesh
# with 64), homogeneous meshes and tori against the lower bound, Table I
# (Ring_FC_Switch, 8 to 512 NPUs), Table III (greedy vs TACOS-ILP on the
# 4x4 mesh without NPUs 7 and 9).  benchmarks/README.md ("TACOS")
# discusses the numbers.  ILP_LIMIT (default 600) is the ILP's time limit
# in seconds.
# Synthesis times are wall times of this machine (2 shared cores).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
plan=${THEMIS_PLAN:-$top/tools/themis-plan}
last() { tail -n 1; }
us() { sed -n 's/.*collective_us=\([0-9.]*\).*/\1/p'; }

# Fig. 6: 100 NPUs, 100 GB/s links, 0.5 us.  The paper gives no collective
# size: 1 GB (10^9 bytes, so that 100 ranks and 6400 chunks divide it).
fig6=(--bw 100GB/s --lat 500ns)
S=1000000000
# A Hamiltonian cycle of the 10x10 mesh (node x + 10 y): row 0 to the
# right, rows 1..9 snaking over columns 1..9, back up column 0.
order="$(seq -s, 0 9)"
for y in $(seq 1 9); do
    if [ $((y % 2)) -eq 1 ]; then xs=$(seq 9 -1 1); else xs=$(seq 1 9); fi
    for x in $xs; do order+=",$((x + 10 * y))"; done
done
for y in $(seq 9 -1 1); do order+=",$((10 * y))"; done
echo "== Fig. 6: All-Reduce of 1 GB, 100 NPUs, 100 GB/s, 0.5 us"
# The paper's Ring system is bidirectional: biring's bw is the NPU's
# aggregate, 2 x 100 GB/s.
ring_bi=$("$plan" xfer ring --graph biring:100 --bw 200GB/s --lat 500ns --coll ar --bytes $S | last | us)
direct_bi=$("$plan" xfer direct --graph biring:100 --bw 200GB/s --lat 500ns --coll ar --bytes $S | last | us)
syn_bi=$("$plan" synth --graph biring:100 --bw 200GB/s --lat 500ns --coll ar --bytes $S --chunks-per-npu 1 | last | us)
echo "biring:100: ring ${ring_bi} us, direct ${direct_bi} us, tacos ${syn_bi} us"
direct_mesh=$("$plan" xfer direct --graph mesh2d:10x10 "${fig6[@]}" --coll ar --bytes $S | last | us)
direct_xy=$("$plan" xfer direct --graph mesh2d:10x10 "${fig6[@]}" --coll ar --bytes $S --xy 10 | last | us)
echo "mesh2d:10x10: direct on the graph's routes ${direct_mesh} us, direct xy-routed ${direct_xy} us"
ring_rows=$("$plan" xfer ring --graph mesh2d:10x10 "${fig6[@]}" --coll ar --bytes $S | last | us)
ring_mesh=$("$plan" xfer ring --graph mesh2d:10x10 "${fig6[@]}" --coll ar --bytes $S --order "$order" | last | us)
ring_ring=$("$plan" xfer ring --graph ring:100 "${fig6[@]}" --coll ar --bytes $S | last | us)
for k in 1 4; do
    out=$("$plan" synth --graph mesh2d:10x10 "${fig6[@]}" --coll ar --bytes $S --chunks-per-npu $k | last)
    syn=$(us <<<"$out")
    echo "mesh2d:10x10 k=$k: ring in rank order ${ring_rows} us, ring on a Hamiltonian cycle ${ring_mesh} us, tacos ${syn} us ($out)"
done
syn_ring=$("$plan" synth --graph ring:100 "${fig6[@]}" --coll ar --bytes $S --chunks-per-npu 1 | last | us)
echo "ring:100: ring ${ring_ring} us, tacos ${syn_ring} us"
# fc:100: bw is the NPU's aggregate, 99 x 100 GB/s.
ring_fc=$("$plan" xfer ring --graph fc:100 --bw 9900GB/s --lat 500ns --coll ar --bytes $S | last | us)
direct_fc=$("$plan" xfer direct --graph fc:100 --bw 9900GB/s --lat 500ns --coll ar --bytes $S | last | us)
syn_fc=$("$plan" synth --graph fc:100 --bw 9900GB/s --lat 500ns --coll ar --bytes $S --chunks-per-npu 1 | last | us)
echo "fc:100: ring ${ring_fc} us, direct ${direct_fc} us, tacos ${syn_fc} us"

echo "== synthesis time (All-Gather, 100 GB/s, 0.5 us)"
echo "torus3d:8x8x8 1 GiB k=1 1 seed: $("$plan" synth --graph torus3d:8x8x8 "${fig6[@]}" --coll ag --bytes 1GiB --chunks-per-npu 1 --seeds 1 | last)"
echo "torus3d:8x8x8 1 GiB k=1 4 seeds: $("$plan" synth --graph torus3d:8x8x8 "${fig6[@]}" --coll ag --bytes 1GiB --chunks-per-npu 1 | last)"
echo "mesh2d:10x10 1 GB k=64 1 seed: $("$plan" synth --graph mesh2d:10x10 "${fig6[@]}" --coll ag --bytes $S --chunks-per-npu 64 --seeds 1 | last)"

echo "== homogeneous meshes and tori vs the lower bound (All-Gather, 1 MiB chunks)"
for g in mesh2d:4x4 mesh2d:8x8 mesh2d:10x10 mesh3d:4x4x4 torus2d:4x4 torus2d:4x8 torus2d:6x6 torus2d:8x8 torus3d:3x3x3 torus3d:4x4x4; do
    for lat in 0ns 500ns; do
        for k in 1 4; do
            n=$("$plan" graph "$g" | sed -n 's/^# nodes=\([0-9]*\).*/\1/p')
            echo "$g lat=$lat k=$k: $("$plan" synth --graph "$g" --bw 100GB/s --lat $lat --coll ag --bytes $((n * k * 1048576)) --chunks-per-npu $k | last)"
        done
    done
done

echo "== Table III: 4x4 mesh without NPUs 7 and 9 (14 NPUs), 100 GB/s, 0.5 us, 1 MiB chunks"
limit=${ILP_LIMIT:-600}
for coll in ag ar; do
    echo "greedy $coll: $("$plan" synth --graph mesh2d:4x4,fail=7+9 "${fig6[@]}" --coll $coll --bytes 14MiB --chunks-per-npu 1 | last)"
    "$plan" synth --graph mesh2d:4x4,fail=7+9 "${fig6[@]}" --coll $coll --bytes 14MiB --chunks-per-npu 1 --ilp --time-limit "$limit" | tail -n 2 | sed "s/^/ilp $coll: /"
done
# Its Ring and Direct baselines on the 14 working NPUs.
"$plan" synth --graph mesh2d:4x4,fail=7+9 "${fig6[@]}" --coll ar --bytes 14MiB --chunks-per-npu 1 --write-graph /tmp/tacos_paper_t3.$$ >/dev/null
echo "ring ar: $("$plan" xfer ring --graph /tmp/tacos_paper_t3.$$ --coll ar --bytes 14MiB | last)"
echo "direct ar: $("$plan" xfer direct --graph /tmp/tacos_paper_t3.$$ --coll ar --bytes 14MiB | last)"
rm -f /tmp/tacos_paper_t3.$$

echo "== TACOS-ILP where the greedy misses the bound (All-Reduce, 1 MiB chunks, 100 GB/s, 0.5 us)"
for g in torus2d:4x4 mesh2d:2x3; do
    echo "greedy $g: $("$plan" synth --graph $g "${fig6[@]}" --coll ar --bytes 16MiB --chunks-per-npu 1 | last)"
    "$plan" synth --graph $g "${fig6[@]}" --coll ar --bytes 16MiB --chunks-per-npu 1 --ilp --time-limit "$limit" | tail -n 2 | sed "s/^/ilp $g: /"
done

echo "== Table I: Ring_FC_Switch (2 x 4 per node, 200/100/50 GB/s, switch unwound to a ring), All-Reduce of 1 GiB, k=1, 0.5 us"
for n in 1 2 4 8 16 32 64; do
    g="dims:ring:2:200GB/s:500ns_fc:4:300GB/s:500ns_sw:$n:50GB/s:500ns,degree=1"
    out=$("$plan" synth --graph "$g" --coll ar --bytes 1GiB --chunks-per-npu 1 | last)
    ring=$("$plan" xfer ring --graph "$g" --coll ar --bytes 1GiB | last | us)
    direct=$("$plan" xfer direct --graph "$g" --coll ar --bytes 1GiB | last | us)
    echo "$((8 * n)) NPUs: greedy $out ring_us=$ring direct_us=$direct"
    if [ "$n" -le 2 ]; then
        "$plan" synth --graph "$g" --coll ar --bytes 1GiB --chunks-per-npu 1 --ilp --time-limit "$limit" | tail -n 2 | sed "s/^/  ilp: /"
    fi
done
