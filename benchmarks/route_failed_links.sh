#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Routing around failed links (planners/routing/clos_route.h, exact): random
# permutation traffic (every host sends one flow to a host under another
# ToR; MINSTD from a fixed seed, so every machine draws the same) on
# 32x16 with 15 hosts per ToR and 64x32 with 16 (1024 hosts) and 31, where
# one failed cable matters (fewer flows per ToR than spines), against
# failed-link blocks:
# one cable, one spine lost by 8 or 32 ToRs, one ToR lost to 4 or 16
# spines, 8 ToRs x 4 spines.  Prints a markdown table: the ToR bound, the
# exact method's max load and proven optimum, the ILP's value (proven or
# not) and the greedy's, with run times.
#
# A second table: arbitrary patterns (cables failed at random, or one
# drawn cable at a share of the ToRs) on 64x32 with 1024 and 1984 hosts
# and 32x16 with 480: exact's load, its proven bound and time beside the
# ILP and the greedy.
#
# usage: benchmarks/route_failed_links.sh
# THEMIS_BUILD_DIR: build tree holding tools/themis-plan (default: repo
# root); ROUTE_ILP_MS: the ILP's time limit (default 10000);
# ROUTE_SEARCH_STEPS: exact's search limit (default 100000000);
# ROUTE_SECTIONS: "blocks", "arbitrary" or both (default).  Timings are
# printed, never asserted.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
plan="${THEMIS_BUILD_DIR:-$top}/tools/themis-plan"
tlim=${ROUTE_ILP_MS:-10000}
steps=${ROUTE_SEARCH_STEPS:-100000000}
[ -x "$plan" ] || { echo "route_failed_links: $plan not built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-route-links.XXXXXX")
trap 'rm -rf "$work"' EXIT

# perm T S H SEED DIR: a permutation of the T x H hosts, no host sending
# under its own ToR, as a traffic file of the paper's format.
perm() {
    mkdir -p "$5"
    awk -v T="$1" -v S="$2" -v H="$3" -v seed="$4" 'BEGIN {
        n = T * H; x = seed
        for (i = 0; i < n; i++) p[i] = i
        for (i = n - 1; i > 0; i--) {
            x = (x * 48271) % 2147483647; j = x % (i + 1)
            t = p[i]; p[i] = p[j]; p[j] = t
        }
        for (i = 0; i < n; i++) {
            if (int(p[i] / H) != int(i / H)) continue
            for (k = 1; k < n; k++) {
                j = (i + k) % n
                if (int(p[j] / H) != int(i / H) && int(p[i] / H) != int(j / H)) {
                    t = p[i]; p[i] = p[j]; p[j] = t; break
                }
            }
        }
        base = T + S
        for (i = 0; i < n; i++)
            printf "%d %d %d %d 0 1000 0 0\n", base + i, base + p[i], int(i / H), int(p[i] / H)
    }' >"$5/job_1-PERM.txt"
}

# block "T0-T1" "S0-S1": every cable between those ToRs and spines
block() {
    local out="" t s
    for t in $(seq "${1%-*}" "${1#*-}"); do
        for s in $(seq "${2%-*}" "${2#*-}"); do
            out="$out+$t-$s"
        done
    done
    echo "${out#+}"
}

last() { tail -n 1 <<<"$1"; }
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

blocks() {
echo "# random permutations (MINSTD seed S), failed-link blocks ToRs x spines, ILP limit ${tlim} ms"
echo
echo "| Clos | hosts/ToR | seed | failed spines | failed block | ToR bound | exact | exact optimum | exact ms | ilp | ilp proven | ilp ms | greedy |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
cases=0; agree=0; ilp_short=0
for setup in 32x16:15:1:0 32x16:15:2:0 32x16:15:3:0 64x32:16:1:0 64x32:16:1:4 64x32:31:1:0; do
    IFS=: read -r clos hpt seed fs <<<"$setup"
    T=${clos%x*} S=${clos#*x}
    dir=$work/$clos-$hpt-$seed
    perm "$T" "$S" "$hpt" "$seed" "$dir"
    for b in "3-3 5-5" "0-7 5-5" "0-$((T / 2 - 1)) 5-5" "3-3 0-3" "7-7 0-$((S / 2 - 1))" "1-8 3-6"; do
        read -r tors spines <<<"$b"
        links=$(block "$tors" "$spines")
        args=(route --clos "$clos" --hosts-per-tor "$hpt" --pairs "$dir" --failed-spines "$fs"
              --failed-links "$links")
        x=$("$plan" "${args[@]}" --algo exact)
        i=$("$plan" "${args[@]}" --algo ilp --time-limit "$tlim")
        g=$("$plan" "${args[@]}" --algo greedy)
        xl=$(field max_load "$(last "$x")"); xo=$(field optimum "$(last "$x")")
        il=$(field max_load "$(last "$i")"); gl=$(field max_load "$(last "$g")")
        proven=$(sed -n 's/.*optimal=\([01]\).*/\1/p' <<<"$i")
        echo "| $clos | $hpt | $seed | $fs | ToRs $tors x spines $spines | $(field optimum "$(last "$g")") |" \
             "$xl | $xo | $(field run_ms "$(last "$x")") | $il | $proven |" \
             "$(field run_ms "$(last "$i")") | $gl |"
        cases=$((cases + 1))
        # exact at its proven optimum, never above the ILP, equal to a proven ILP
        if [ "$xl" = "$xo" ] && [ "$xl" -le "$il" ] && { [ "$proven" = 0 ] || [ "$il" = "$xl" ]; }; then
            agree=$((agree + 1))
        fi
        [ "$proven" = 0 ] && [ "$il" -gt "$xl" ] && ilp_short=$((ilp_short + 1))
    done
done
echo
echo "cases=$cases exact_optimal_and_consistent_with_ilp=$agree ilp_stopped_above_the_optimum=$ilp_short"
}

# scatter T S PERMILLE SEED [ONE]: each cable fails with probability
# PERMILLE / 1000 (MINSTD from SEED), or with ONE=1 every ToR loses one
# cable with that probability, to a drawn spine: arbitrary patterns.
scatter() {
    awk -v T="$1" -v S="$2" -v p="$3" -v seed="$4" -v one="${5:-0}" 'BEGIN {
        x = seed; out = ""
        for (t = 0; t < T; t++) {
            if (one) {
                x = (x * 48271) % 2147483647
                if (x % 1000 >= p) continue
                x = (x * 48271) % 2147483647
                out = out "+" t "-" (x % S)
                continue
            }
            for (s = 0; s < S; s++) {
                x = (x * 48271) % 2147483647
                if (x % 1000 < p) out = out "+" t "-" s
            }
        }
        print substr(out, 2)
    }'
}

arbitrary() {
echo "# random permutations (MINSTD seed 1), arbitrary failed links (not one block),"
echo "# exact = bound + construction + search (limit ${steps} steps), ILP limit ${tlim} ms"
echo
echo "| Clos | hosts/ToR | failed cables | pattern | ToR bound | exact | exact bound | proven | exact ms | search steps | ilp | ilp proven | ilp ms | greedy |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
cases=0; proven_n=0; agree=0; worst=0
for setup in 64x32:16:10:0 64x32:16:50:0 64x32:16:100:0 64x32:16:200:0 64x32:16:500:1 \
             64x32:16:1000:1 64x32:31:10:0 64x32:31:50:0 64x32:31:250:1 64x32:31:1000:1 \
             32x16:15:50:0 32x16:15:1000:1; do
    IFS=: read -r clos hpt pm one <<<"$setup"
    T=${clos%x*} S=${clos#*x}
    dir=$work/arb-$clos-$hpt
    [ -d "$dir" ] || perm "$T" "$S" "$hpt" 1 "$dir"
    links=$(scatter "$T" "$S" "$pm" "$((pm + 7))" "$one")
    n=$(tr '+' '\n' <<<"$links" | grep -c .)
    if [ "$one" = 1 ]; then pat="one cable at $(awk -v p="$pm" 'BEGIN{printf "%g", p / 10}')% of ToRs"
    else pat="each cable $(awk -v p="$pm" 'BEGIN{printf "%g", p / 10}')%"; fi
    args=(route --clos "$clos" --hosts-per-tor "$hpt" --pairs "$dir" --failed-links "$links")
    x=$("$plan" "${args[@]}" --algo exact --search-steps "$steps")
    i=$("$plan" "${args[@]}" --algo ilp --time-limit "$tlim")
    g=$("$plan" "${args[@]}" --algo greedy)
    xl=$(field max_load "$(last "$x")"); xo=$(field optimum "$(last "$x")")
    il=$(field max_load "$(last "$i")"); gl=$(field max_load "$(last "$g")")
    iproven=$(sed -n 's/.*optimal=\([01]\).*/\1/p' <<<"$i")
    xsteps=$(sed -n 's/.*search steps \([0-9]*\).*/\1/p' <<<"$x")
    xms=$(field run_ms "$(last "$x")")
    xproven=$([ "$xl" = "$xo" ] && echo 1 || echo 0)
    echo "| $clos | $hpt | $n | $pat | $(field optimum "$(last "$g")") | $xl | $xo | $xproven |" \
         "$xms | ${xsteps:-0} | $il | $iproven | $(field run_ms "$(last "$i")") | $gl |"
    cases=$((cases + 1))
    proven_n=$((proven_n + xproven))
    # exact never above a proven ILP, its bound never above the ILP's value
    if [ "$xo" -le "$il" ] && { [ "$iproven" = 0 ] || [ "$xl" = "$il" ] || [ "$xproven" = 0 ]; }; then
        agree=$((agree + 1))
    fi
    worst=$(awk -v a="$worst" -v b="$xms" 'BEGIN{print (b > a) ? b : a}')
done
# ToRs 0-3 keep only spines {0,2,3} {1,2,3} {0,1,2} {0,1,3} and carry
# tests/unit/test_clos.c's 4x4 flows (optimum 2, every bound 1); the
# other ToRs a permutation: the search has to prove 2 at full size.
gdir=$work/gadget
mkdir -p "$gdir"
awk 'BEGIN { T = 64; S = 32; H = 16; base = T + S; x = 1
    split("0 2,1 3,2 1,3 0,0 3,1 2,2 0,3 1,0 3,3 0", g, ",")
    for (k = 1; k <= 10; k++) {
        split(g[k], p, " ")
        printf "%d %d %d %d 0 1 0 0\n", base + p[1] * H + k, base + p[2] * H + k, p[1], p[2]
    }
    n = 60 * H
    for (i = 0; i < n; i++) q[i] = i
    for (i = n - 1; i > 0; i--) {
        x = (x * 48271) % 2147483647; j = x % (i + 1); t = q[i]; q[i] = q[j]; q[j] = t
    }
    for (i = 0; i < n; i++) {
        a = 4 * H + i; b = 4 * H + q[i]
        if (int(a / H) != int(b / H))
            printf "%d %d %d %d 0 1 0 0\n", base + a, base + b, int(a / H), int(b / H)
    }
}' >"$gdir/job_1-GADGET.txt"
glinks=$(awk 'BEGIN { split("0 2 3,1 2 3,0 1 2,0 1 3", keep, ","); out = ""
    for (t = 0; t < 4; t++)
        for (s = 0; s < 32; s++)
            if (index(" " keep[t + 1] " ", " " s " ") == 0) out = out "+" t "-" s
    print substr(out, 2) }')
args=(route --clos 64x32 --hosts-per-tor 16 --pairs "$gdir" --failed-links "$glinks")
x=$("$plan" "${args[@]}" --algo exact --search-steps "$steps")
i=$("$plan" "${args[@]}" --algo ilp --time-limit "$tlim")
g=$("$plan" "${args[@]}" --algo greedy)
xl=$(field max_load "$(last "$x")"); xo=$(field optimum "$(last "$x")")
echo "| 64x32 | 16 | 116 | 4x4 search case at ToRs 0-3 | $(field optimum "$(last "$g")") | $xl | $xo |" \
     "$([ "$xl" = "$xo" ] && echo 1 || echo 0) | $(field run_ms "$(last "$x")") |" \
     "$(sed -n 's/.*search steps \([0-9]*\).*/\1/p' <<<"$x") | $(field max_load "$(last "$i")") |" \
     "$(sed -n 's/.*optimal=\([01]\).*/\1/p' <<<"$i") | $(field run_ms "$(last "$i")") |" \
     "$(field max_load "$(last "$g")") |"
echo
echo "cases=$cases exact_proven=$proven_n consistent_with_ilp=$agree exact_max_ms=$worst (permutation rows)"
}

case "${ROUTE_SECTIONS:-blocks arbitrary}" in
*blocks*) blocks ;;
esac
case "${ROUTE_SECTIONS:-blocks arbitrary}" in
*arbitrary*) echo; arbitrary ;;
esac
