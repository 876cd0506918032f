#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Routing on a Clos, on real traffic (issue 13, "On real traffic"): two
# concurrent data-parallel jobs, each an All-Reduce ring of 4 ranks over
# Open MPI ob1/tcp (coll/tuned's ring, coll_tuned_allreduce_algorithm 4),
# on a netgraph bed of the Clos 4 ToRs x 2 spines, 2 hosts per ToR
# (`themis-plan bed --graph leafspine:8x1,leaves=4,spines=2,ubw=RATE`:
# ranks 0-7, NICs 8-15, ToRs 16-19, spines 20-21), every ToR-spine
# direction shaped to RATE, host links at HOST_RATE (default 1Gbit):
#   job A  hosts 0,2,4,6   (ToRs 0,1,2,3)
#   job B  hosts 1,5,3,7   (ToRs 0,2,1,3)
# Every ring neighbour is under another ToR: 8 inter-ToR flows, two leaving
# and two entering every ToR (D = 2 = S).  Routed by
#   ecmp  one random spine per flow, as ECMP's hash would pick
#         (`themis-plan route --algo ecmp --draws 1 --seed RUN`);
#   plan  `themis-plan route --algo exact` on the same flows.
# Either is installed as the bed's plan: each flow's route by its spine and
# a source rule at its ToR (netgraph, "rule" lines); `netgraph check`
# follows every route.  Rounds alternate plan, ecmp, ecmp so that machine
# noise hits both alike.
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
# directions), both by benchmarks/netgraph_clos_report.py (which also
# redraws them from a results file alone).
# Environment: RATE (default 50mbit), HOST_RATE (default 1Gbit), SIZE
# (bytes, default 4194304), ITERS (default 8), ROUNDS (default 4),
# THEMIS_BUILD_DIR, THEMIS_NETGRAPH_PREFIX (default nclos).  Needs root;
# holds /tmp/themis-netbed.lock for the whole run.
set -uo pipefail
if [ -z "${NETCLOS_LOCKED:-}" ]; then
    exec env NETCLOS_LOCKED=1 flock /tmp/themis-netbed.lock bash "$0" "$@"
fi
# shellcheck source=benchmarks/netgraph_lib.sh
. "$(dirname "$0")/netgraph_lib.sh"
rate=${RATE:-50mbit}
host_rate=${HOST_RATE:-1Gbit}
size=${SIZE:-4194304}
iters=${ITERS:-8}
rounds=${ROUNDS:-4}
day=$(date +%Y-%m-%d)
out=${OUT:-$here/results/clos_bed_$day.txt}
svg=${OUT_SVG:-$here/results/clos_bed_links_$day.svg}
export THEMIS_NETGRAPH_PREFIX=${THEMIS_NETGRAPH_PREFIX:-nclos}
jobs=("0,2,4,6" "1,5,3,7")

for f in "$plan" "$bench"; do
    [ -x "$f" ] || { echo "netgraph_clos_routing: $f missing (make; make check TESTS=)" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "netgraph_clos_routing: gnuplot missing (tools/setup.sh)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/netgraph-clos-routing.XXXXXX")
cleanup() { "$ng" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The jobs' flows in the paper's traffic-file format (`themis-plan route`
# node ids: ToRs 0-3, spines 4-5, hosts 6-13).
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
"$plan" bed --graph "leafspine:8x1,leaves=4,spines=2,ubw=$rate,bw=$host_rate,pcie=$host_rate" \
    --scale 1 >"$work/graph.plan" || exit 1

# bed_plan ROUTE.json OUT: the bed's plan with every flow of ROUTE.json
# (route ids: host h = h + 6, spine s) on its spine: bed ids rank h, NIC
# 8 + h, ToR 16 + h / 2, spine 20 + s.
bed_plan() {
    /usr/bin/python3 - "$work/graph.plan" "$1" >"$2" <<'PY' || return 1
import json, sys
flows = {}
for f in json.load(open(sys.argv[2]))['flows']:
    a, b = f['src'] - 6, f['dst'] - 6
    if f['spine'] is not None:
        flows[(a, b)] = (16 + a // 2, 20 + f['spine'], 16 + b // 2)
for line in open(sys.argv[1]):
    t = line.split()
    if t[:1] == ['route'] and (int(t[1]), int(t[2])) in flows:
        a, b = int(t[1]), int(t[2])
        ta, sp, tb = flows[(a, b)]
        line = 'route %d %d %d %d %d %d %d %d\n' % (a, b, 8 + a, ta, sp, tb, 8 + b, b)
    sys.stdout.write(line)
for (a, b), (ta, sp, _) in sorted(flows.items()):
    print('rule %d %d %d %d' % (ta, a, b, sp))
PY
}

# bed MODE SEED: the bed up with MODE's routes, checked.
bed() {
    local json=$work/plan.json
    if [ "$1" = ecmp ]; then
        json=$work/ecmp.json
        route --algo ecmp --draws 1 --seed "$2" --json "$json" >/dev/null || return 1
    fi
    bed_plan "$json" "$work/bed.plan" || return 1
    "$ng" down >/dev/null 2>&1
    "$ng" up "$work/bed.plan" >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; return 1; }
    "$ng" check >"$work/check.log" || { cat "$work/check.log" >&2; return 1; }
}

mapfile -t op < <(launch_opts op)
mpi_args=(--mca coll "tuned,libnbc,basic,self" --mca coll_tuned_use_dynamic_rules 1
          --mca coll_tuned_allreduce_algorithm 4 "${op[@]}"
          "$bench" --coll allreduce --min "$size" --max "$size" --iters "$iters" --warmup 1)

# ToR-spine bytes, "up T S BYTES" (T0S0 T0S1 .. T3S1) then "down T S
# BYTES" (S0T0 .. S1T3).
tor_spine_bytes() {
    "$ng" link-bytes | awk '$1 == "link" { b[$2" "$3] = $5 }
        END {
            for (t = 0; t < 4; t++) for (s = 0; s < 2; s++) print "up", t, s, b[16 + t" "20 + s]
            for (s = 0; s < 2; s++) for (t = 0; t < 4; t++) print "down", t, s, b[20 + s" "16 + t]
        }'
}

# One run: both jobs at once; prints "A_ms B_ms" and leaves the link-bytes
# difference in $work/delta.
one_run() {
    tor_spine_bytes >"$work/before" || return 1
    for j in 0 1; do
        timeout -k 10 900 "$ng" mpirun --hosts "${jobs[j]}" -- "${mpi_args[@]}" \
            >"$work/job$j.out" 2>&1 &
    done
    wait
    tor_spine_bytes >"$work/after" || return 1
    awk 'NR == FNR { if ($1 == "up" || $1 == "down") b[$1" "$2" "$3] = $4; next }
         ($1 == "up" || $1 == "down") { print $1, $2, $3, $4 - b[$1" "$2" "$3] }' \
        "$work/before" "$work/after" >"$work/delta"
    local t=()
    for j in 0 1; do
        local line
        line=$(grep -E "^$size " "$work/job$j.out")
        if [ -z "$line" ]; then
            echo "netgraph_clos_routing: job $j: no result" >&2
            tail -5 "$work/job$j.out" >&2
            return 1
        fi
        t+=("$(awk '{ printf "%.1f", $8 / 1000 }' <<<"$line")")
    done
    echo "${t[*]}"
}

bed plan 0 || exit 1
{
    echo "# netgraph_clos_routing.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): Clos 4x2, 2 hosts per ToR, ToR-spine $rate each way, host links $host_rate"
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
        bed "$mode" "$run" || exit 1
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

/usr/bin/python3 "$here/netgraph_clos_report.py" "$out" "$svg" | tee -a "$out"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
