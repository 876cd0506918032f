#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# HammingMesh algorithms on an emulated 2D torus (benchmarks/netbed, torus
# mode): MPI_Allreduce with coll/themis' rings and torus2d, coll/themis'
# Themis schedule, and Open MPI's coll/tuned, per message size.
#
#   netbed_torus.sh [options]
#
#  1. `netbed up torus RxC RATE`: every rank has four point-to-point links
#     (left/right along its row, up/down along its column, with wrap-around),
#     each direction shaped to RATE by tbf; non-neighbours are reached over
#     dimension-ordered shortest routes (forwarded by the ranks in between).
#  2. `netbed calibrate` measures one directed link per dimension and writes
#     coll_themis_torus, coll_themis_dim_bandwidths (2 x a link: the biring
#     aggregate) and _latencies; every themis variant runs with them
#     (`netbed mpirun --calibrated`).
#  3. For every size, benchmarks/osu_coll_latency once per variant, in an
#     order rotated per size:
#       rings    coll_themis_allreduce_algorithm=rings (two edge-disjoint
#                Hamiltonian cycles, both directions: four rings)
#       torus2d  coll_themis_allreduce_algorithm=torus2d
#       themis   coll_themis_allreduce_algorithm=themis (Themis schedule on
#                the two biring dimensions)
#       auto     coll_themis_allreduce_algorithm=auto (cost model)
#       tuned    --mca coll tuned,inter,libnbc,basic,self (its own choice;
#                it does not know the torus, so its ring/recursive-doubling
#                peers are often two or more hops apart)
#     The themis variants run with coll_themis_verbose 10, and the log must
#     show the program the component planned ("planned allreduce (rings)"),
#     so every number is proven to come from the algorithm it is named after.
#  4. Prints time, bus bandwidth, fraction of the link bound and the
#     speedups.  bound = (S/2)(1 - 1/p) / RATE: an allreduce makes every rank
#     send at least 2 S (p-1)/p bytes, over at most four links of RATE.
#
# Options:
#   --torus RxC          default 3x3 (rows x cols, as coll_themis_torus)
#   --rate RATE          tc rate of every directed link (default 25mbit: 9 ranks
#                        x 4 links x 25 Mbit/s = 0.9 Gbit/s, what 2 cores carry)
#   --sizes LIST         default 1M,4M,16M (K/M binary)
#   --variants LIST      default rings,torus2d,themis,tuned (also: auto)
#   --budget BYTES       timed calls per size = max(--min-iters, min(--iters,
#                        budget / size)); default 32M
#   --iters N            default 3
#   --min-iters N        default 2
#   --transport ob1|ofi  default ob1
#   --calib-seconds S    default 1
#   --themis-opt "ARGS"  more mpirun arguments for the coll/themis variants, e.g.
#                        "--mca coll_themis_chunks 256"
#   --timeout S          per mpirun (default 600)
#   --out DIR            default benchmarks/out/netbed_torus
# Environment: THEMIS_BUILD_DIR (default: the repository root) holds
# benchmarks/osu_coll_latency and the component; THEMIS_NETBED_PREFIX
# (default nbtor) and THEMIS_NETBED_STATE_DIR name the bed, so it never
# touches another bed.
#
# The last line is
#   torus2d_vs_tuned=X rings_vs_tuned=Y torus2d_vs_themis=Z fraction_of_bound=F
# at the largest size (F for the faster of rings and torus2d).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${THEMIS_BUILD_DIR:-$top}
NETBED=$top/benchmarks/netbed/netbed
bench=$BUILD/benchmarks/osu_coll_latency
plan=$BUILD/tools/themis-plan
# The beds run the PATH's Open MPI 4.1 (tools/launch.sh).
# shellcheck source=tools/launch.sh
THEMIS_OMPI='' THEMIS_BUILD_DIR=$BUILD . "$top/tools/launch.sh"
mapfile -t themis < <(launch_opts themis)
mapfile -t op < <(launch_opts op)
export THEMIS_NETBED_PREFIX=${THEMIS_NETBED_PREFIX:-nbtor}
bed_state=${THEMIS_NETBED_STATE_DIR:-/run/themis-netbed/$THEMIS_NETBED_PREFIX}

die() { echo "netbed_torus: $*" >&2; exit 2; }

torus=3x3 rate=25mbit sizes=1M,4M,16M variants=rings,torus2d,themis,tuned budget=32M
iters=3 min_iters=2 transport=ob1 calib_seconds=1 tmo=600 out=$top/benchmarks/out/netbed_torus
themis_opt=""
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    esac
    [ $# -ge 2 ] || die "$1 needs a value (see --help)"
    case $1 in
        --torus) torus=$2 ;;
        --rate) rate=$2 ;;
        --sizes) sizes=$2 ;;
        --variants) variants=$2 ;;
        --budget) budget=$2 ;;
        --iters) iters=$2 ;;
        --min-iters) min_iters=$2 ;;
        --transport) transport=$2 ;;
        --calib-seconds) calib_seconds=$2 ;;
        --themis-opt) themis_opt=$2 ;;
        --timeout) tmo=$2 ;;
        --out) out=$2 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift 2
done

[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
for f in "$bench" "$plan" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || die "missing $f (build first; THEMIS_BUILD_DIR=$BUILD)"
done
[[ $torus =~ ^([0-9]+)x([0-9]+)$ ]] || die "bad --torus '$torus' (want RxC)"
nranks=$((BASH_REMATCH[1] * BASH_REMATCH[2]))
case $transport in ob1 | ofi) ;; *) die "bad --transport '$transport'" ;; esac
for n in "$iters" "$min_iters" "$tmo"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "bad count '$n'"
done
to_bytes() {   # 16M -> 16777216: themis-plan's size syntax, one parser
    "$plan" size "$1" 2>/dev/null || die "bad byte count '$1' (themis-plan size --help)"
}
human() {
    local b=$1
    if [ $((b % 1048576)) -eq 0 ]; then echo "$((b / 1048576))MiB"
    elif [ $((b % 1024)) -eq 0 ]; then echo "$((b / 1024))KiB"
    else echo "${b}B"; fi
}
read -ra themis_opt_arr <<<"$themis_opt"
size_list=()
IFS=, read -ra tmp <<<"$sizes"
for s in "${tmp[@]}"; do size_list+=("$(to_bytes "$s")") || exit 2; done
budget_b=$(to_bytes "$budget") || exit 2
IFS=, read -ra variant_list <<<"$variants"
for v in "${variant_list[@]}"; do
    case $v in rings | torus2d | themis | auto | tuned) ;; *) die "bad variant '$v'" ;; esac
done
rate_bps=$(awk -v r="$rate" 'BEGIN { m = 1; if (r ~ /gbit$/) m = 1e9; else if (r ~ /mbit$/) m = 1e6; else if (r ~ /kbit$/) m = 1e3
    sub(/[a-z]+$/, "", r); printf "%.0f", r * m }')
[ "$rate_bps" -gt 0 ] || die "bad --rate '$rate'"

mkdir -p "$out" || die "cannot create $out"
csv=$out/results.csv
echo "torus,rate,transport,bytes,variant,avg_us,min_us,max_us,median_us,iters,validation,path,algorithm,load1" >"$csv"
load1() { cut -d' ' -f1 /proc/loadavg; }

bed_up=0
cleanup() {
    [ "$bed_up" = 1 ] && "$NETBED" down >/dev/null 2>&1
    bed_up=0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "# netbed torus $torus at $rate per directed link, $transport: coll/themis rings, torus2d, themis vs coll/tuned (MPI_Allreduce, MPI_FLOAT)"
[ -n "$themis_opt" ] && echo "# coll/themis variants also get: $themis_opt"
echo "# start $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$NETBED" up torus "$torus" "$rate" || die "netbed up failed"
bed_up=1
"$NETBED" check || die "netbed check failed"
echo "# calibrating ($calib_seconds s per test)"
"$NETBED" calibrate --seconds "$calib_seconds" --transport "$transport" >"$out/calibration.log" 2>&1 ||
    die "calibration failed (log $out/calibration.log)"
cp "$bed_state/calibration.env" "$out/calibration.env"
echo "# component gets: $(grep -v '^#' "$out/calibration.env" | tr '\n' ' ')"
grep -E '^(d[0-9]|dim|  d)' "$out/calibration.log" | head -n 8 | sed 's/^/#   /'

variant_args() {   # VARIANT -> mpirun arguments (one per line)
    case $1 in
        tuned) printf '%s\n' --mca coll tuned,inter,libnbc,basic,self ;;
        *) printf '%s\n' "${themis[@]}" \
               --mca coll_themis_allreduce_algorithm "$1" --mca coll_themis_verbose 10
           [ ${#themis_opt_arr[@]} -gt 0 ] && printf '%s\n' "${themis_opt_arr[@]}" ;;
    esac
}

iters_for() {   # BYTES -> timed calls
    local it=$((budget_b / $1))
    [ "$it" -gt "$iters" ] && it=$iters
    [ "$it" -lt "$min_iters" ] && it=$min_iters
    echo "$it"
}

# run_osu VARIANT BYTES ITERS LOG: prints "avg min max median iters validation path algorithm"
run_osu() {
    local v=$1 bytes=$2 it=$3 log=$4 args=() nb=(--transport "$transport") rc=0
    mapfile -t args < <(variant_args "$v")
    [ "$v" = tuned ] || nb+=(--calibrated)
    timeout -k 10 "$tmo" "$NETBED" mpirun "${nb[@]}" "${args[@]}" "${op[@]}" \
        "$bench" --min "$bytes" --max "$bytes" --iters "$it" --min-iters "$it" --warmup 1 \
        --budget "$((bytes * it))" >"$log" 2>&1 || rc=$?
    local row algo=-
    if [ "$v" != tuned ]; then
        # The program the component planned for this size (rank 0's line).
        algo=$(sed -n 's/.*planned allreduce (\([a-z0-9]*\)) of.*/\1/p' "$log" | sort -u | paste -sd/ -)
        [ -n "$algo" ] || algo=none
    fi
    row=$(awk -v b="$bytes" '$1 == b { print $2, $3, $4, $8, $5, $6, $7 }' "$log")
    if [ -z "$row" ]; then
        echo "FAIL - - - - Fail rc=$rc $algo"
    else
        echo "$row $algo"
    fi
}

declare -A T=() A=() V=()
rot=0
for bytes in "${size_list[@]}"; do
    n=${#variant_list[@]}
    for ((j = 0; j < n; j++)); do
        v=${variant_list[(j + rot) % n]}
        ld=$(load1)
        read -r avg mn mx med it val path algo < <(run_osu "$v" "$bytes" "$(iters_for "$bytes")" \
            "$out/run_${bytes}_$v.log")
        echo "$torus,$rate,$transport,$bytes,$v,$avg,$mn,$mx,$med,$it,$val,$path,$algo,$ld" >>"$csv"
        T[$bytes,$v]=$avg
        A[$bytes,$v]=$algo
        V[$bytes,$v]=$val
        echo "#   $(human "$bytes") $v: avg $avg us ($it calls, validation $val, path $path, program $algo, load $ld)"
    done
    rot=$((rot + 1))
done

echo
printf '%-7s | %9s |' size "bound ms"
for v in "${variant_list[@]}"; do printf ' %-9s %5s |' "$v ms" busbw; done
printf ' %s\n' "speedups / fraction of bound"
final="torus2d_vs_tuned=n/a rings_vs_tuned=n/a torus2d_vs_themis=n/a fraction_of_bound=n/a"
for bytes in "${size_list[@]}"; do
    bound=$(awk -v b="$bytes" -v n="$nranks" -v r="$rate_bps" 'BEGIN { printf "%.1f", 1000 * (b * 8 / 2) * (1 - 1 / n) / r }')
    printf '%-7s | %9s |' "$(human "$bytes")" "$bound"
    for v in "${variant_list[@]}"; do
        t=${T[$bytes,$v]:-FAIL}
        awk -v t="$t" -v b="$bytes" -v n="$nranks" -v ok="${V[$bytes,$v]:-}" 'BEGIN {
            if (t == "FAIL" || t == "-") { printf " %-9s %5s |", "FAIL", "-"; exit }
            printf " %-9.1f %5.1f |", t / 1000, b * 8 * 2 * (n - 1) / n / t }' | tr -d '\n'
        [ "${V[$bytes,$v]:-}" = Pass ] || printf '(!%s)' "${V[$bytes,$v]:-?}"
    done
    line=$(awk -v tt="${T[$bytes,tuned]:-}" -v tr="${T[$bytes,rings]:-}" -v td="${T[$bytes,torus2d]:-}" \
        -v th="${T[$bytes,themis]:-}" -v bo="$bound" '
        function ok(x) { return x != "" && x != "FAIL" && x != "-" }
        function q(a, b) { return (ok(a) && ok(b)) ? sprintf("%.2f", a / b) : "n/a" }
        BEGIN {
            best = ""; if (ok(tr)) best = tr; if (ok(td) && (best == "" || td < best)) best = td
            f = (best == "") ? "n/a" : sprintf("%.2f", bo * 1000 / best)
            printf "torus2d_vs_tuned=%s rings_vs_tuned=%s torus2d_vs_themis=%s fraction_of_bound=%s",
                q(tt, td), q(tt, tr), q(th, td), f }')
    printf ' %s\n' "$line"
    final=$line
done
echo "(ms = Avg of osu_coll_latency over calls and ranks; busbw = size x 2(p-1)/p / time in Mbit/s;"
echo " X_vs_Y = time of Y / time of X; fraction_of_bound = bound / faster of rings and torus2d)"
for bytes in "${size_list[@]}"; do
    for v in "${variant_list[@]}"; do
        [ "$v" = tuned ] && continue
        want=$v
        [ "$v" = auto ] && continue
        [ "${A[$bytes,$v]:-}" = "$want" ] ||
            echo "WARNING: $(human "$bytes") $v: the component planned '${A[$bytes,$v]:-none}', not $want"
    done
    [ -n "${A[$bytes,auto]:-}" ] && echo "# auto chose ${A[$bytes,auto]} at $(human "$bytes")"
done
echo "# end $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg); results in $out"
echo "$final"
