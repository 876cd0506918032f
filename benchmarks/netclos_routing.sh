#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Routing on a Clos, on real traffic (issue 13, "On real traffic"): two
# concurrent data-parallel jobs, each an All-Reduce ring of 4 ranks over
# Open MPI ob1/tcp (coll/tuned's ring, coll_tuned_allreduce_algorithm 4),
# on the netclos bed 4 ToRs x 2 spines, 2 hosts per ToR, every ToR-spine
# direction shaped to RATE:
#   job A  hosts 0,2,4,6   (ToRs 0,1,2,3)
#   job B  hosts 1,5,3,7   (ToRs 0,2,1,3)
# Every ring neighbour is under another ToR: 8 inter-ToR flows, two leaving
# and two entering every ToR (D = 2 = S).  Routed by
#   ecmp  multipath routes, layer-4 hash (fib_multipath_hash_policy 1),
#         hash seed = the run number (fib_multipath_hash_seed), and the
#         connections' ephemeral ports decide too;
#   plan  `themis-plan route --algo exact` on the same flows, installed as
#         one policy route per flow (netclos routes plan).
# Rounds alternate plan, ecmp, ecmp so that machine noise hits both alike.
# Per run: each job's median call time (osu_coll_latency, medians over
# its calls, averaged over ranks), tx bytes of all 16 ToR-spine
# directions, and the max link load the run really had (bytes on the
# busiest direction / bytes per flow, rounded).  Predicted slowdown =
# max load (ECMP) / max load (plan): per run from its own loads, and the
# planner's ECMP mean over 100000 draws; measured slowdown = slower job's
# time (ECMP) / the same under plan (median of the plan runs).
#
# Writes OUT (default benchmarks/results/clos_bed_DATE.txt) and
# OUT_SVG (default benchmarks/results/clos_bed_links_DATE.svg, per-link
# bytes: plan vs the ECMP runs with the most and the fewest shared
# directions), both by benchmarks/netclos_report.py (which also redraws
# them from a results file alone).
# Environment: RATE (default 50mbit), SIZE (bytes, default 4194304),
# ITERS (default 8), ROUNDS (default 4), THEMIS_BUILD_DIR,
# THEMIS_NETCLOS_PREFIX (default nclos).  Needs root; holds
# /tmp/themis-netbed.lock for the whole run.
set -uo pipefail
if [ -z "${NETCLOS_LOCKED:-}" ]; then
    exec env NETCLOS_LOCKED=1 flock /tmp/themis-netbed.lock bash "$0" "$@"
fi
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${THEMIS_BUILD_DIR:-$(cd "$here/.." && pwd)}
plan=$BUILD/tools/themis-plan
bench=$BUILD/benchmarks/osu_coll_latency
nc=$here/netbed/netclos
rate=${RATE:-50mbit}
size=${SIZE:-4194304}
iters=${ITERS:-8}
rounds=${ROUNDS:-4}
day=$(date +%Y-%m-%d)
out=${OUT:-$here/results/clos_bed_$day.txt}
svg=${OUT_SVG:-$here/results/clos_bed_links_$day.svg}
export THEMIS_NETCLOS_PREFIX=${THEMIS_NETCLOS_PREFIX:-nclos}
jobs=("0,2,4,6" "1,5,3,7")

for f in "$plan" "$bench"; do
    [ -x "$f" ] || { echo "netclos_routing: $f missing (make; make check TESTS=)" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "netclos_routing: gnuplot missing (tools/setup.sh)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/netclos-routing.XXXXXX")
cleanup() { "$nc" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The jobs' flows in the paper's traffic-file format (planner node ids:
# ToRs 0-3, spines 4-5, hosts 6-13).
mkdir -p "$work/pairs"
for j in 0 1; do
    IFS=, read -r -a hs <<<"${jobs[j]}"
    for ((i = 0; i < ${#hs[@]}; i++)); do
        a=${hs[i]} b=${hs[(i + 1) % ${#hs[@]}]}
        echo "$((a + 6)) $((b + 6)) $((a / 2)) $((b / 2)) 0 $size 0 0"
    done >"$work/pairs/job_$j.txt"
done
route() { "$plan" route --clos 4x2 --hosts-per-tor 2 --bw "$rate" --pairs "$work/pairs" "$@"; }
exact=$(route --algo exact --json "$work/plan.json") || exit 1
ecmp=$(route --algo ecmp --draws 100000) || exit 1

"$nc" up 4x2 --hosts-per-tor 2 --rate "$rate" >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; exit 1; }
"$nc" check >"$work/check.log" || { cat "$work/check.log" >&2; exit 1; }

mpi_args=(--mca coll "tuned,libnbc,basic,self" --mca coll_tuned_use_dynamic_rules 1
          --mca coll_tuned_allreduce_algorithm 4 --mca op ^avx
          "$bench" --coll allreduce --min "$size" --max "$size" --iters "$iters" --warmup 1)

# One run: both jobs at once; prints "A_ms B_ms" and leaves the link-bytes
# difference in $work/delta.
one_run() {
    "$nc" link-bytes >"$work/before" || return 1
    for j in 0 1; do
        timeout -k 10 900 "$nc" mpirun --hosts "${jobs[j]}" -- "${mpi_args[@]}" \
            >"$work/job$j.out" 2>&1 &
    done
    wait
    "$nc" link-bytes >"$work/after" || return 1
    awk 'NR == FNR { if ($1 == "up" || $1 == "down") b[$1" "$2" "$3] = $4; next }
         ($1 == "up" || $1 == "down") { print $1, $2, $3, $4 - b[$1" "$2" "$3] }' \
        "$work/before" "$work/after" >"$work/delta"
    local t=()
    for j in 0 1; do
        local line
        line=$(grep -E "^$size " "$work/job$j.out")
        if [ -z "$line" ]; then
            echo "netclos_routing: job $j: no result" >&2
            tail -5 "$work/job$j.out" >&2
            return 1
        fi
        t+=("$(awk '{ printf "%.1f", $8 / 1000 }' <<<"$line")")
    done
    echo "${t[*]}"
}

{
    echo "# netclos_routing.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): Clos 4x2, 2 hosts per ToR, ToR-spine $rate each way"
    echo "# jobs: A hosts ${jobs[0]}, B hosts ${jobs[1]}; ring All-Reduce (coll/tuned algorithm 4), $size bytes,"
    echo "#   $iters timed calls + 1 warm-up each, ob1/tcp; time = median call (ms), mean over ranks"
    echo "# planner (themis-plan route --clos 4x2 --hosts-per-tor 2 --bw $rate --pairs ...):"
    while read -r l; do echo "#   exact: $l"; done <<<"$exact"
    while read -r l; do echo "#   ecmp:  $l"; done <<<"$ecmp"
    sed 's/^/# /' "$work/check.log"
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# run mode seed A_ms B_ms slower_ms max_load  MB on up T-S (T0S0 T0S1 .. T3S1) | down S-T (S0T0 .. S1T3)"
} | tee "$out"

run=0
for ((r = 0; r < rounds; r++)); do
    for mode in plan ecmp ecmp; do
        run=$((run + 1))
        if [ "$mode" = plan ]; then
            "$nc" routes plan "$work/plan.json" --seed "$run" >/dev/null || exit 1
            "$nc" check >"$work/check.log" || { cat "$work/check.log" >&2; exit 1; }
        else
            "$nc" routes ecmp --seed "$run" >/dev/null || exit 1
        fi
        times=$(one_run) || exit 1
        read -r ta tb <<<"$times"
        # Bytes per flow: all up-link bytes over the 8 flows.
        awk -v run="$run" -v mode="$mode" -v seed="$run" -v ta="$ta" -v tb="$tb" '
            { key[NR] = $1; mb[NR] = $4 / 1e6; if ($1 == "up") tot += $4; n = NR }
            END {
                f = tot / 8; ml = 0
                for (i = 1; i <= n; i++) { l = int(mb[i] * 1e6 / f + 0.5); if (l > ml) ml = l }
                printf "run %d %s %d %s %s %s %d ", run, mode, seed, ta, tb, (ta > tb ? ta : tb), ml
                for (i = 1; i <= n; i++) {
                    if (i > 1 && key[i] != key[i - 1]) printf " |"
                    printf " %.1f", mb[i]
                }
                printf "\n"
            }' "$work/delta" | tee -a "$out"
    done
done

/usr/bin/python3 "$here/netclos_report.py" "$out" "$svg" | tee -a "$out"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
