#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Routing on a Clos (routing-for-large-ml-models.txt): every directory of
# the paper's traffic_pairs x F failed spines in {0, 1, 4, 8} (the F
# highest spine ids), 64 ToRs x 32 spines, all flows of a directory at
# once.  Prints a markdown table of the max load per algorithm beside the
# optimum (proven lower bound), the run times, the greedy's cases above
# the optimum, and the exact method's run times on the largest input.
#
# usage: benchmarks/route_paper.sh [TRAFFIC_PAIRS_DIR]
#   default: $THEMIS_ROUTING_DATA, else /work/shared/data/routing/traffic_pairs
# THEMIS_BUILD_DIR: build tree holding tools/themis-plan (default: repo root).
# Timings are printed, never asserted.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
plan="${THEMIS_BUILD_DIR:-$top}/tools/themis-plan"
data=${1:-${THEMIS_ROUTING_DATA:-/work/shared/data/routing/traffic_pairs}}
draws=${ROUTE_DRAWS:-1000}
tlim=${ROUTE_ILP_MS:-10000}
[ -x "$plan" ] || { echo "route_paper: $plan not built" >&2; exit 1; }
[ -d "$data" ] || { echo "route_paper: no traffic_pairs directory at $data" >&2; exit 1; }

mapfile -t dirs < <(find "$data" -mindepth 2 -maxdepth 2 -type d | LC_ALL=C sort -V)
echo "# ${#dirs[@]} directories under $data, F in {0,1,4,8}, ECMP $draws draws (seed 1), ILP limit ${tlim} ms"
echo
echo "| jobs/ring | flows | F | D | optimum | greedy | parallel | exact | ilp | ECMP mean | ECMP worst | greedy ms | exact ms | ilp ms | ECMP ms/draw |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"

last() { tail -n 1 <<<"$1"; }
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
above="" ; cases=0 ; exact_opt=0 ; ilp_opt=0
for d in "${dirs[@]}"; do
    name=$(basename "$(dirname "$d")" | sed 's/concurrent_jobs_//')/$(basename "$d" | sed 's/ring_size_//')
    for F in 0 1 4 8; do
        args=(route --clos 64x32 --pairs "$d" --failed-spines "$F")
        g=$("$plan" "${args[@]}" --algo greedy)
        p=$("$plan" "${args[@]}" --algo parallel)
        x=$("$plan" "${args[@]}" --algo exact)
        i=$("$plan" "${args[@]}" --algo ilp --time-limit "$tlim")
        e=$("$plan" "${args[@]}" --algo ecmp --draws "$draws")
        flows=$(sed -n 's/^flows: \([0-9]*\).*/\1/p' <<<"$x")
        D=$(sed -n 's/.* D=\([0-9]*\).*/\1/p' <<<"$x")
        opt=$(field optimum "$(last "$x")")
        gl=$(field max_load "$(last "$g")"); pl=$(field max_load "$(last "$p")")
        xl=$(field max_load "$(last "$x")"); il=$(field max_load "$(last "$i")")
        emean=$(sed -n 's/.*mean_max_load=\([^ ]*\).*/\1/p' <<<"$e")
        ew=$(field max_load "$(last "$e")")
        ems=$(field run_ms "$(last "$e")")
        eper=$(awk -v t="$ems" -v n="$draws" 'BEGIN { printf "%.4f", t / n }')
        echo "| $name | $flows | $F | $D | $opt | $gl | $pl | $xl | $il | $emean | $ew |" \
             "$(field run_ms "$(last "$g")") | $(field run_ms "$(last "$x")") |" \
             "$(field run_ms "$(last "$i")") | $eper |"
        cases=$((cases + 1))
        [ "$xl" = "$opt" ] && exact_opt=$((exact_opt + 1))
        grep -q 'optimal=1' <<<"$i" && ilp_opt=$((ilp_opt + 1))
        [ "$gl" != "$opt" ] && above="$above $name:F=$F:$gl>$opt"
        [ "$pl" = "$gl" ] || echo "route_paper: parallel $pl != greedy $gl on $name F=$F" >&2
    done
done
echo
echo "cases=$cases exact_optimal=$exact_opt ilp_proven_optimal=$ilp_opt"
echo "greedy above the optimum:${above:- none}"

# the largest input (most flows): the exact method's run time, 20 runs
big=$(for d in "${dirs[@]}"; do echo "$(cat "$d"/*.txt | grep -vc '^#') $d"; done | sort -n | tail -n 1)
bigdir=${big#* }
for F in 0 8; do
    ts=$(for _ in $(seq 20); do
             "$plan" route --clos 64x32 --pairs "$bigdir" --failed-spines "$F" --algo exact \
                 | tail -n 1 | sed 's/.*run_ms=//'
         done | sort -n)
    echo "exact on the largest input ($(basename "$(dirname "$bigdir")")/$(basename "$bigdir"), ${big%% *} flows, F=$F): run_ms min=$(head -n 1 <<<"$ts") median=$(sed -n 10p <<<"$ts") max=$(tail -n 1 <<<"$ts")"
done
