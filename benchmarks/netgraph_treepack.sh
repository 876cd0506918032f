#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Spanning-tree packing (optimal-message-scheduling-for-aggregation.txt)
# on the test bed built from the p3.16xlarge graph
# (benchmarks/netbed/netgraph: one tbf-shaped veth per link at the graph's
# rates, routes from `themis-plan bed`): All-Reduce per size
# with
#   treepack    coll_themis_allreduce_algorithm treepack (the optimal
#               packing: the chains of the dual-NVLink and the single
#               Hamiltonian cycle, planners/treepack/treepack.h)
#   tacos       coll_themis_allreduce_algorithm tacos (TACOS, one chunk
#               per rank)
#   themis      coll_themis_allreduce_algorithm themis (no dimensions
#               given: one dimension of 8, direct)
#   ring-ham    a ring along the dual-NVLink Hamiltonian cycle
#               0,1,3,2,6,7,5,4 (`themis-plan xfer ring`, run as MSCCL-XML)
#   ring-tuned  coll/tuned's ring (coll_tuned_allreduce_algorithm ring),
#               ranks in order 0..7: single links and routed 2-hop pairs
# beside the bound C(G) x S / B_single (C(G) = 7/24) and the link
# simulator's prediction for each (the same graph file; Themis: its
# programs exported for sw:8 with 4 chunks; ring-tuned: `xfer ring` in rank
# order, tuned's own segmentation aside).
#
# Graph: p3.16xlarge, one NVLink = RATE, a dual link 2 x RATE, latency 0
# (the bed has no netem).  32 directed links carry 48 x RATE in all: the
# default 20mbit makes 960 Mbit/s, what 2 cores shape (netbed/README).
# Calibration: iperf3 over one dual and one single link (`netgraph
# measure`); TCP over tbf delivers a fraction f of the configured rate, so
# the "cal" columns are the nominal predictions and bound divided by f.
# Sizes are rounded down to a multiple of 4 x 8 x treepack's units (96)
# bytes so that treepack and TACOS run (their vectors must divide into
# units) and Themis' exported programs divide too.
#
# Output: per (size, algorithm) the predicted ms (nominal and calibrated),
# the measured median ms, measured / calibrated prediction, measured /
# calibrated bound, and the path (MPI_T counters); per size a line
# `size=S treepack_vs_bound=X fastest_other=NAME other_vs_treepack=Y`.
# Targets (issue 12): treepack within 15% of its bound from 16 MiB and
# faster than every other algorithm.
#
# Environment: RATE (default 20mbit, in mbit), SIZES (bytes, default
# "1048576 4194304 16777216"), ITERS (timed calls, default 3), ALGOS
# (default all five), MCA_EXTRA (more mpirun arguments for every
# algorithm, e.g. "--mca btl_tcp_eager_limit 1048576 --mca
# btl_tcp_rndv_eager_limit 1048576 --mca btl_tcp_max_send_size 1048576":
# messages up to 1 MiB without the rendezvous, whose acknowledgement waits
# behind data in the other direction's tbf queue), THEMIS_NETGRAPH_PREFIX
# (default tngtp), THEMIS_BUILD_DIR, THEMIS_NETGRAPH_SMALL_FIRST=1 (htb
# with small packets first instead of tbf, netbed/README.md).  Needs
# root; wrap in `flock /tmp/themis-netbed.lock`.
set -uo pipefail
# shellcheck source=benchmarks/netgraph_lib.sh
. "$(dirname "$0")/netgraph_lib.sh"
rate=${RATE:-20mbit}
sizes=${SIZES:-"1048576 4194304 16777216"}
iters=${ITERS:-3}
algos=${ALGOS:-"treepack tacos themis ring-ham ring-tuned"}
export THEMIS_NETGRAPH_PREFIX=${THEMIS_NETGRAPH_PREFIX:-tngtp}
ham=0,1,3,2,6,7,5,4
ident=0,1,2,3,4,5,6,7

die() { echo "netgraph_treepack: $*" >&2; exit 1; }
[[ $rate =~ ^[0-9]+mbit$ ]] || die "RATE '$rate': want Nmbit"
rate_bps=$((${rate%mbit} * 1000000))
for f in "$plan" "$bench" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || die "$f missing (make; make check TESTS=)"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/netgraph-treepack.XXXXXX")
cleanup() { "$ng" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

g=$work/graph.txt
"$plan" bed --graph "p3.16xlarge,bw=$rate,lat=0ns" --scale 1 --graph-out "$g" >"$work/bed.plan" || exit 1
"$ng" up "$work/bed.plan" >/dev/null || die "bed up failed"
"$ng" check >/dev/null || die "bed check failed"

tp=$("$plan" treepack --graph "$g" --bytes 1M) || die "themis-plan treepack failed"
units=$(sed -n 's/^schedule: \([0-9]*\) units.*/\1/p' <<<"$tp")
cg=$(sed -n 's/^runtime([a-z]*): C(G)=\([0-9]*\/[0-9]*\) .*/\1/p' <<<"$tp")
if [ -z "$units" ] || [ -z "$cg" ]; then
    die "no schedule units or C(G) in: $tp"
fi
"$plan" xfer ring --graph "$g" --coll ar --bytes 1M --order "$ham" --msccl "$work/ham.xml" \
    >/dev/null || die "ring export failed"
# Themis' programs for a call of 8 x units elements (4 chunks of 8 blocks).
"$plan" export --msccl "$work/themis.xml" --topo "sw:8:${rate%mbit}Mb:1us" --coll ar \
    --count $((8 * units)) --algorithm themis --chunks 4 >/dev/null || die "themis export failed"

# Calibration: the fraction of the configured rate TCP gets over tbf.
f_sum=0
for pair in "0 1" "0 2"; do
    # shellcheck disable=SC2086
    m=$("$ng" measure $pair --seconds 3) || die "measure $pair failed"
    pct=$(sed -n 's/.*(\([0-9.]*\)%)$/\1/p' <<<"$m")
    [ -n "$pct" ] || die "measure $pair: $m"
    echo "# calibration: $m"
    f_sum=$(awk -v s="$f_sum" -v p="$pct" 'BEGIN { print s + p / 200 }')
done
cal=$f_sum

us_of() { sed -n 's/^collective_us=\([0-9.]*\) .*/\1/p' | tail -1; }
predict() { # algo bytes -> us
    case $1 in
        treepack) "$plan" treepack --graph "$g" --bytes "$2" | us_of ;;
        tacos) "$plan" synth --graph "$g" --coll ar --bytes "$2" --chunks-per-npu 1 | us_of ;;
        themis) "$plan" msccl simulate "$work/themis.xml" --graph "$g" --bytes "$2" | us_of ;;
        ring-ham) "$plan" xfer ring --graph "$g" --coll ar --bytes "$2" --order "$ham" | us_of ;;
        ring-tuned) "$plan" xfer ring --graph "$g" --coll ar --bytes "$2" --order "$ident" | us_of ;;
    esac
}
mca_of() { # algo -> mpirun MCA arguments
    local themis
    mapfile -t themis < <(launch_opts themis op)
    themis+=(--mca coll_themis_min_bytes 0)
    case $1 in
        treepack|tacos)
            echo "${themis[@]}" --mca coll_themis_allreduce_algorithm "$1" \
                --mca coll_themis_graph "$g" ;;
        themis) echo "${themis[@]}" --mca coll_themis_allreduce_algorithm themis ;;
        ring-ham) echo "${themis[@]}" --mca coll_themis_allreduce_schedule "$work/ham.xml" ;;
        ring-tuned)
            echo --mca coll tuned,libnbc,basic,self --mca coll_tuned_use_dynamic_rules 1 \
                --mca coll_tuned_allreduce_algorithm ring ;;
    esac
}

echo "# All-Reduce on p3.16xlarge, one NVLink = $rate (dual 2x), C(G) = $cg," \
     "treepack units $units, calibration f = $cal, $iters timed calls per size"
printf '%-10s %-10s %10s %10s %11s %9s %9s %8s\n' "# algo" "bytes" "pred_ms" "pred_cal" \
    "measured_ms" "vs_pred" "vs_bound" "path"
for size in $sizes; do
    s=$((size - size % (32 * units)))
    [ "$s" -gt 0 ] || die "size $size below one unit per element"
    bound=$(awk -v c="$cg" -v s="$s" -v r="$rate_bps" -v f="$cal" \
                'BEGIN { split(c, q, "/"); print q[1] / q[2] * s * 8 / r * 1000 / f }')
    printf '%-10s %-10s %10s %10.1f %11s %9s %9s %8s\n' "bound" "$s" \
        "$(awk -v b="$bound" -v f="$cal" 'BEGIN { printf "%.1f", b * f }')" "$bound" - - - -
    best_other="" best_ms=0 tp_ms=0
    for algo in $algos; do
        pred=$(predict "$algo" "$s")
        [ -n "$pred" ] || die "$algo $s: no prediction"
        # shellcheck disable=SC2046,SC2086
        out=$(timeout -k 10 1800 "$ng" mpirun -- $(mca_of "$algo") \
                  --mca mpi_yield_when_idle 1 ${MCA_EXTRA:-} \
                  "$bench" --coll allreduce --min "$s" --max "$s" --iters "$iters" \
                  --warmup 1 2>&1)
        line=$(grep -E "^$s " <<<"$out")
        if [ -z "$line" ] || grep -qi "substitut" <<<"$out"; then
            echo "netgraph_treepack: $algo $s: no result or substituted" >&2
            echo "$out" | tail -8 >&2
            exit 1
        fi
        read -r _ _ _ _ _ valid path med <<<"$line"
        ms=$(awk -v m="$med" 'BEGIN { printf "%.1f", m / 1000 }')
        pcal=$(awk -v p="$pred" -v f="$cal" 'BEGIN { printf "%.1f", p / 1000 / f }')
        printf '%-10s %-10s %10.1f %10s %11s %9.3f %9.3f %8s\n' "$algo" "$s" \
            "$(awk -v p="$pred" 'BEGIN { print p / 1000 }')" "$pcal" "$ms" \
            "$(awk -v m="$ms" -v p="$pcal" 'BEGIN { print m / p }')" \
            "$(awk -v m="$ms" -v b="$bound" 'BEGIN { print m / b }')" "$path/$valid"
        if [ "$algo" = treepack ]; then
            tp_ms=$ms
        elif [ -z "$best_other" ] || awk -v a="$ms" -v b="$best_ms" 'BEGIN { exit !(a < b) }'
        then
            best_other=$algo best_ms=$ms
        fi
    done
    if [ "$tp_ms" != 0 ] && [ -n "$best_other" ]; then
        echo "size=$s treepack_vs_bound=$(awk -v m="$tp_ms" -v b="$bound" \
                 'BEGIN { printf "%.3f", m / b }') fastest_other=$best_other" \
             "other_vs_treepack=$(awk -v o="$best_ms" -v t="$tp_ms" \
                 'BEGIN { printf "%.3f", o / t }')"
    fi
done
