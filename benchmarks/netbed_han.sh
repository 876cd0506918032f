#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# coll/themis against coll/han, Open MPI's hierarchical component, on the
# emulated network with several ranks per emulated host (root needed):
# the inner dimension is shared memory (vader) inside one namespace, the
# outer ones are shaped links between namespaces.  On one real host han
# turns itself off; here every namespace has its own host name, so han
# sees 2 or 4 nodes and runs.
#
# Beds (benchmarks/netbed/netbed, one namespace per host, PPN ranks each):
#   4x2     2 hosts x 4 ranks, one 100mbit link per host
#   2x2x2   4 hosts (2x2, 60mbit per dimension) x 2 ranks
# Variants per size (osu_coll_latency MPI_Allreduce, order rotated):
#   themis     coll/themis, dims PPNxHOSTS.., the measured link rates
#              shared by the host's ranks (per-rank aggregate = rate / PPN),
#              shared memory RATE_SHM
#   baseline   the same with coll_themis_scheduler=baseline
#   tuned      coll/tuned's own choice
#   han        coll/han with its defaults (coll_han_priority raised so that
#              it is selected; its default is 0)
#   han_best   the best of han's allreduce settings per size: its defaults,
#              and segment size 64K / 1M / 4M x up module libnbc / adapt x
#              simple or not
# Prints per size the times, themis/han ratios (x = other / themis) and the
# LP bound of the topology (`themis-plan simulate`, Ideal row).  Last line:
#   themis_vs_han_min=X themis_vs_han_best_min=Y (over beds and sizes)
#
# Environment: SIZES (default "1M 4M 16M 64M"), ITERS (5), RATE_SHM (40Gb),
# THEMIS_BUILD_DIR, THEMIS_NETBED_PREFIX (default nbhan).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${THEMIS_BUILD_DIR:-$(cd "$here/.." && pwd)}
NETBED=$here/netbed/netbed
bench=$BUILD/benchmarks/osu_coll_latency
plan=$BUILD/tools/themis-plan
top=$(cd "$here/.." && pwd)
# The beds run the PATH's Open MPI 4.1 (tools/launch.sh).
# shellcheck source=tools/launch.sh
THEMIS_OMPI='' THEMIS_BUILD_DIR=$BUILD . "$top/tools/launch.sh"
mapfile -t common < <(launch_opts oversubscribe op)
mapfile -t THEMIS < <(launch_opts themis)
THEMIS+=(--mca coll_themis_min_bytes 0)
export THEMIS_NETBED_PREFIX=${THEMIS_NETBED_PREFIX:-nbhan}
sizes=${SIZES:-"1M 4M 16M 64M"}
iters=${ITERS:-5}
shm=${RATE_SHM:-40Gb}

for f in "$bench" "$plan" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || { echo "netbed_han: $f missing (make; make check TESTS=)" >&2; exit 1; }
done
bytes_of() { "$plan" size "$1"; }   # themis-plan's size syntax, one parser
cleanup() { "$NETBED" down >/dev/null 2>&1; }
trap cleanup EXIT

# run VARIANT-NAME BYTES MPIRUN-OPTIONS...: prints "median_us validation path"
run() {
    local name=$1 bytes=$2 out line
    shift 2
    out=$(timeout -k 10 900 "$NETBED" mpirun -np "$np" "${common[@]}" --map-by "ppr:$ppn:node" \
              --mca btl tcp,vader,self "$@" \
              "$bench" --coll allreduce --min "$bytes" --max "$bytes" --iters "$iters" \
              --warmup 1 2>&1)
    line=$(grep -E "^$bytes " <<<"$out")
    if [ -z "$line" ]; then
        echo "netbed_han: $name $bytes: no result" >&2
        tail -3 <<<"$out" >&2
        echo "FAIL Fail -"
        return
    fi
    read -r _ _ _ _ _ valid path med <<<"$line"
    echo "$med $valid $path"
}

# shellcheck disable=SC2054  # the commas separate Open MPI component names
HAN=(--mca coll han,inter,tuned,libnbc,basic,self --mca coll_han_priority 100)
worst=99 worst_best=99
for bed in "4x2 2 100mbit" "2x2x2 2x2 60mbit,60mbit"; do
    read -r dims shape rates <<<"$bed"
    ppn=${dims%%x*}
    "$NETBED" up "$shape" "$rates" >/dev/null || exit 1
    "$NETBED" calibrate >/dev/null 2>&1 || { echo "netbed_han: calibrate failed" >&2; exit 1; }
    # The measured per-link rates, split among the host's ranks.
    # shellcheck disable=SC1090
    cal=$(grep -o 'coll_themis_dim_bandwidths=[^ ]*' "/run/themis-netbed/$THEMIS_NETBED_PREFIX/calibration.env" |
          cut -d= -f2)
    lat=$(grep -o 'coll_themis_dim_latencies=[^ ]*' "/run/themis-netbed/$THEMIS_NETBED_PREFIX/calibration.env" |
          cut -d= -f2)
    bws="$shm" lats="1us" kinds="fc" topo="fc:$ppn:$shm:1us"
    IFS=, read -ra cb <<<"$cal"
    IFS=, read -ra cl <<<"$lat"
    IFS=x read -ra hs <<<"$shape"
    for i in "${!cb[@]}"; do
        per=$(awk -v r="${cb[i]%Mb}" -v p="$ppn" 'BEGIN { printf "%dMb", r / p }')
        bws="$bws,$per" lats="$lats,${cl[i]}" kinds="$kinds,fc" topo="${topo}_fc:${hs[i]}:$per:${cl[i]}"
    done
    np=$((ppn * $(tr 'x' '*' <<<"$shape" | bc)))
    T=("${THEMIS[@]}" --mca coll_themis_dims "$dims" --mca coll_themis_dim_bandwidths "$bws"
       --mca coll_themis_dim_latencies "$lats" --mca coll_themis_dim_kinds "$kinds")
    echo
    echo "=== $dims: $((np / ppn)) hosts x $ppn ranks, links $rates (measured $cal), topology $topo"
    printf '  %-6s %10s %10s %10s %10s %10s %9s | %7s %7s %7s %7s | %s\n' size themis baseline tuned \
        han han_best "bound" "x base" "x tuned" "x han" "x hbest" "han_best setting"
    for s in $sizes; do
        b=$(bytes_of "$s")
        bound=$("$plan" simulate --topo "$topo" --coll allreduce --bytes "$b" --csv 2>/dev/null |
                awk -F, '$6 == "Ideal" { printf "%.1f", $7 / 1e9; exit }')
        read -r th tv tp < <(run themis "$b" "${T[@]}")
        read -r ba _ _ < <(run baseline "$b" "${T[@]}" --mca coll_themis_scheduler baseline)
        read -r tu _ _ < <(run tuned "$b" --mca coll tuned,inter,libnbc,basic,self)
        read -r ha hv _ < <(run han "$b" "${HAN[@]}")
        best="" best_set=""
        if [ "$ha" != FAIL ] && [ "$hv" = Pass ]; then
            best=$ha best_set="defaults"
        fi
        for seg in 65536 1048576 4194304; do
            for up in 0 1; do
                for simple in false true; do
                    read -r v vv _ < <(run han_best "$b" "${HAN[@]}" --mca coll_han_allreduce_segsize "$seg" \
                        --mca coll_han_allreduce_up_module "$up" --mca coll_han_use_simple_allreduce "$simple")
                    if [ "$v" != FAIL ] && [ "$vv" = Pass ] &&
                       { [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
                        best=$v best_set="seg $seg up $up simple $simple"
                    fi
                done
            done
        done
        row=$(awk -v th="$th" -v ba="$ba" -v tu="$tu" -v ha="$ha" -v hb="$best" '
            function ms(u) { return (u == "" || u == "FAIL") ? "-" : sprintf("%.1f", u / 1000) }
            function x(o) { return (o == "" || o == "FAIL" || th == "FAIL") ? "-" : sprintf("%.2f", o / th) }
            BEGIN { print ms(th), ms(ba), ms(tu), ms(ha), ms(hb), x(ba), x(tu), x(ha), x(hb) }')
        read -r mth mba mtu mha mhb xba xtu xha xhb <<<"$row"
        printf '  %-6s %10s %10s %10s %10s %10s %9s | %7s %7s %7s %7s | %s (themis %s %s, han %s)\n' \
            "$s" "$mth" "$mba" "$mtu" "$mha" "$mhb" "${bound:--}" "$xba" "$xtu" "$xha" "$xhb" \
            "$best_set" "$tv" "$tp" "$hv"
        worst=$(awk -v w="$worst" -v x="$xha" 'BEGIN { print (x != "-" && x < w) ? x : w }')
        worst_best=$(awk -v w="$worst_best" -v x="$xhb" 'BEGIN { print (x != "-" && x < w) ? x : w }')
    done
    echo "  (ms: median over calls, averaged over ranks; x = other / themis; bound: LP ideal of the topology)"
    "$NETBED" down >/dev/null
done
echo "themis_vs_han_min=$worst themis_vs_han_best_min=$worst_best"
