#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# HammingMesh allreduce: rings vs torus2d (hammingmesh.txt Sec. V-A2, Fig. 13)
# in two models, side by side, on square and non-square 2D tori:
#
#   paper  the closed forms of Sec. V-A2, with alpha = step latency and
#          beta = time per byte of one link (one direction):
#            T_rings = 2 p alpha + (S/2) beta
#            T_torus = 4 sqrt(p) alpha + S beta (1 + 2 sqrt(p)) / (4 sqrt(p))
#                    = 4 sqrt(p) alpha + (S/2) beta + S beta / (4 sqrt(p))
#          so rings win from S* = 4 sqrt(p) (2 p - 4 sqrt(p)) alpha / beta.
#          Written for square tori; for r x c we use sqrt(p) as the paper does.
#   ours   `themis-plan cycles --costs` (planners/themis/algo_cost.h): the same
#          latency model and event simulator as Themis, with exact per-link
#          bytes: rings move (S/2)(1 - 1/p) per link, torus2d
#          (S/2)(1 - 1/c)(1 + 1/r) on a row link and (S/2)(1 - 1/r)(1 + 1/c)
#          on a column link; chunks as the runtime uses them (Themis
#          --chunks, rings/torus2d --chunks/4 per quarter).  Its `themis`
#          column gives Themis both directions of each biring dimension;
#          the runtime's Themis program uses one (see benchmarks/README.md),
#          and the runtime's auto prices it so.
#
#   hammingmesh_costs.sh [--link BW] [--alpha LAT] [--chunks N] [--chunks-in-flight N]
#                        [--bytes LIST] [ROWSxCOLS ...]
#
# Defaults: 400 Gb/s per directed link (Table III, one plane), 500 ns per
# step, 16 chunks, 2 in flight (the component's defaults), tori 8x8 16x16
# 32x32 (square) and 16x4 64x4 32x8 4x3 (non-square).  Prints a table per
# torus and a summary of the crossovers; CSV in benchmarks/out/hammingmesh/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${THEMIS_BUILD_DIR:-$top}
plan=$BUILD/tools/themis-plan
out=$top/benchmarks/out/hammingmesh

die() { echo "hammingmesh_costs: $*" >&2; exit 2; }

link=400Gb alpha=500ns chunks=16 chunks_in_flight=2
bytes=64K,256K,1M,4M,16M,64M,256M,1G,4G,16G
tori=()
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        --link | --alpha | --chunks | --chunks-in-flight | --bytes)
            [ $# -ge 2 ] || die "$1 needs a value"
            case $1 in
                --link) link=$2 ;;
                --alpha) alpha=$2 ;;
                --chunks) chunks=$2 ;;
                --chunks-in-flight) chunks_in_flight=$2 ;;
                --bytes) bytes=$2 ;;
            esac
            shift 2 ;;
        [0-9]*x[0-9]*) tori+=("$1"); shift ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done
[ ${#tori[@]} -gt 0 ] || tori=(8x8 16x16 32x32 16x4 64x4 32x8 4x3)
[ -x "$plan" ] || die "missing $plan (build first; THEMIS_BUILD_DIR=$BUILD)"
[[ $link =~ ^([0-9]+)(G|M)b$ ]] || die "--link wants e.g. 400Gb or 25Mb"
link_bps=$((BASH_REMATCH[1] * 1000000))
[ "${BASH_REMATCH[2]}" = G ] && link_bps=$((link_bps * 1000))
[[ $alpha =~ ^([0-9]+)(ns|us)$ ]] || die "--alpha wants e.g. 500ns or 300us"
alpha_ns=${BASH_REMATCH[1]}
[ "${BASH_REMATCH[2]}" = us ] && alpha_ns=$((alpha_ns * 1000))
torus_chunks=$((chunks / 4 > 0 ? chunks / 4 : 1))
mkdir -p "$out"
csv=$out/costs.csv
echo "torus,bytes,ours_themis_us,ours_rings_us,ours_torus2d_us,ours_best,paper_rings_us,paper_torus_us,paper_best" >"$csv"
summary=()

echo "# link $link per direction (biring $((2 * link_bps / 1000000000)) Gb/s aggregate), alpha $alpha per step,"
echo "# Themis $chunks chunks, rings/torus2d $torus_chunks chunk(s) per quarter, $chunks_in_flight in flight"
for t in "${tori[@]}"; do
    [[ $t =~ ^([0-9]+)x([0-9]+)$ ]] || die "bad torus '$t'"
    r=${BASH_REMATCH[1]} c=${BASH_REMATCH[2]}
    # biring bandwidth = both directions' aggregate (algo_cost.h)
    topo="biring:$c:$((2 * link_bps))b:$alpha_ns""ns_biring:$r:$((2 * link_bps))b:$alpha_ns""ns"
    res=$("$plan" cycles --costs --topo "$topo" --bytes "$bytes" --chunks "$chunks" \
        --torus-chunks "$torus_chunks" --chunks-in-flight "$chunks_in_flight" 2>&1) || die "themis-plan: $res"
    echo
    echo "== $t torus (rows x cols, p = $((r * c)))"
    printf '%14s | %12s %12s %12s %-8s | %12s %12s %-8s\n' bytes "ours themis" "ours rings" \
        "ours torus2d" best "paper rings" "paper torus" best
    awk -v p="$((r * c))" -v a="$alpha_ns" -v bw="$link_bps" -v t="$t" -v csv="$csv" '
        /^ *[0-9]/ {
            S = $1; sq = sqrt(p); beta = 8e6 / bw          # us per byte of one link
            pr = 2 * p * a / 1000 + S / 2 * beta
            pt = 4 * sq * a / 1000 + S * beta * (1 + 2 * sq) / (4 * sq)
            pb = (pr < pt) ? "rings" : "torus"
            printf "%14s | %12s %12s %12s %-8s | %12.2f %12.2f %-8s\n", S, $2, $3, $4, $5, pr, pt, pb
            printf "%s,%s,%s,%s,%s,%s,%.3f,%.3f,%s\n", t, S, $2, $3, $4, $5, pr, pt, pb >> csv
        }' <<<"$res"
    ours=$(sed -n 's/^# crossover: //p; s/^# rings beat torus2d already/already/p' <<<"$res")
    paper=$(awk -v p="$((r * c))" -v a="$alpha_ns" -v bw="$link_bps" 'BEGIN {
        sq = sqrt(p); s = 4 * sq * (2 * p - 4 * sq) * (a * 1e-9) * bw / 8
        if (s <= 0) print "never (p <= 4)"
        else if (s < 1048576) printf "rings win from %.0f KiB", s / 1024
        else printf "rings win from %.1f MiB", s / 1048576 }')
    echo "   ours:  $ours"
    echo "   paper: $paper"
    summary+=("$(printf '%-7s ours: %-58s paper: %s' "$t" "$ours" "$paper")")
done
echo
echo "# crossover summary (rings faster than torus2d from)"
printf '%s\n' "${summary[@]}"
echo "# CSV: $csv"
