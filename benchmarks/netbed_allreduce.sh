#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# All-Reduce on an emulated multi-dimensional network (benchmarks/netbed):
# coll/themis against its own baseline order and Open MPI's tuned
# component, with the LP bound and the planner's prediction alongside.
#
#   netbed_allreduce.sh [options] [SHAPE RATES]...
#
# Without SHAPE RATES it runs the three default beds
#   4x2    100mbit,100mbit          (bound ~1.7x over the baseline order)
#   4x2    100mbit,50mbit           (~1.3x)
#   2x2x2  60mbit,60mbit,60mbit     (equal rates, three dimensions)
# For every bed and transport (ob1 = TCP BTL, ofi = libfabric tcp) it
#  1. measures the links (`netbed calibrate`) and gives the component the
#     MEASURED rates and latencies (`netbed mpirun --calibrated`);
#  2. for every size runs benchmarks/osu_coll_latency once per variant, in
#     an order rotated per size:
#       themis    coll/themis, coll_themis_scheduler=themis, intra order scf
#       prev      themis with coll_themis_latency_model=serialized (the
#                 planners' model before 2026-11-24; not in the default list)
#       baseline  coll/themis, coll_themis_scheduler=baseline
#       tuned     --mca coll tuned,inter,libnbc,basic,self (its own choice)
#       ring      tuned forced to its ring allreduce (algorithm 4)
#  3. prints time and bus bandwidth per variant, themis' speedup over each
#     other variant, fraction_of_bound = bound / themis time, and the
#     planner's predicted themis and baseline times (measured / predicted).
# The bound and the prediction come from `themis-plan simulate --csv` (its
# Ideal, Baseline and Themis+SCF rows) on a topology built from the shape
# and the measured rates and latencies, with the component's chunk count
# and chunks in flight.  Each dimension of a netbed is one switch per line
# with a port of rate R (tbf, both directions) per rank: every rank's
# sends on that dimension share R, which is the planners' per-NPU
# aggregate bandwidth.  The planners' sw and fc kinds differ only in the
# step count of the latency model (sw: ceil(log2 p), halving-doubling; fc:
# 1).  On dimensions of up to coll_themis_direct_max ranks the engine runs
# the direct algorithm (all p-1 exchanges at once through the switch, one
# step), so those are modelled as fc; larger ones run the ring (p-1 steps)
# and are modelled as ring.  The component gets the same kinds
# (coll_themis_dim_kinds), so component, prediction and bound all use one
# topology.  For 2-rank dimensions sw, fc and ring are the same.
#
# Seeing it (--timeline, on by default for ob1): one extra run each of
# baseline and themis at --timeline-size while a sampler in every rank
# namespace reads /sys/class/net/dK/statistics/tx_bytes every 50 ms; the
# per-dimension utilization (achieved / configured rate, all ranks) is
# drawn with gnuplot into OUT/timeline_SHAPE_RATES.png.
#
# Fault check (--loss DIM:PCT, default 1:1, on the first bed): `netbed
# loss DIM PCT` drops ~PCT% of the packets on dimension DIM; the variants
# run again at --loss-size and must validate; the slowdown against the run
# without loss is printed with the filters' drop counts.
#
# Settings, measured in benchmarks/README.md ("Emulated network (netbed)"):
#   - chunks: the component's defaults (at most 1024 chunks, each >= 16 KiB
#     and >= the latency model's floor): 64 at 1 MiB, 1024 from 16 MiB.
#     Measured on 2x2x2 at 64 MiB: 64 chunks (1 MiB) reach 0.82 of the
#     bound, 256 chunks 0.90, 1024 chunks 1.07; the tail of the pipeline
#     (fill and drain) and long messages hurt more than the model says;
#   - ob1: btl_tcp_eager_limit = btl_tcp_rndv_eager_limit =
#     btl_tcp_max_send_size = 1 MiB (--ob1-eager) for every variant and for
#     the calibration, passed as OMPI_MCA_* environment variables.  With
#     Open MPI's 64 KiB the rendezvous round trips of every message stall
#     on 8 ranks polling on 2 cores.
#   - ofi: FI_OFI_RXM_BUFFER_SIZE=65536 (--ofi-eager) for every variant and
#     the calibration, in mpirun's environment (netbed's launch agent and
#     so every rank inherit it): ofi_rxm sends messages that fit eagerly,
#     larger ones by rendezvous, which moves about one direction at a time
#     per peer pair.  Memory grows with it: the 8 ranks held 1.2 GB with the
#     default, 3.5 GB with 64 KiB, 12.7 GB with 256 KiB, and 1 MiB ran the
#     machine out of memory.
#
# Options:
#   --quick              4x2 100mbit,100mbit, 16 MiB, ob1, themis/baseline/tuned,
#                        no timeline, no loss check (about a minute; demo.sh)
#   --chunks N|default   coll_themis_chunks for themis and baseline, with
#                        coll_themis_min_chunk_bytes 1 so that N is the count
#                        (default: the component's own choice)
#   --ob1-eager B|default  ob1 eager limits (default 1M; "default": Open MPI's)
#   --ofi-eager B|default  FI_OFI_RXM_BUFFER_SIZE (default 64K; "default": libfabric's)
#   --sizes LIST         default 1M,4M,16M,64M (K/M/G binary)
#   --transports LIST    default ob1,ofi
#   --variants LIST      default themis,baseline,tuned,ring (also: prev)
#   --iters N            timed calls per size at most (default 10); sizes above
#                        --budget / N bytes get budget / size, at least --min-iters
#   --budget BYTES       default 64M
#   --min-iters N        default 3
#   --reps R             runs per variant and size, interleaved; the time is the
#                        smallest of their averages (default 1)
#   --calib-seconds S    seconds per calibration test (default 1.5)
#   --timeline | --no-timeline, --timeline-size BYTES (default 16M)
#   --loss DIM:PCT | --no-loss, --loss-size BYTES (default 16M)
#   --themis-opt "ARGS"  more mpirun arguments for the themis variants
#   --timeout S          per mpirun (default 600)
#   --out DIR            results (default benchmarks/out/netbed)
# Environment: THEMIS_BUILD_DIR (default: the repository root) holds
# benchmarks/osu_coll_latency, tools/themis-plan and the component;
# THEMIS_NETBED_PREFIX (default nbar) names the bed's namespaces.
#
# The last line is
#   speedup_vs_baseline=X.XX speedup_vs_tuned=Y.YY fraction_of_bound=Z.ZZ
# for 16 MiB on 4x2 100mbit,100mbit over ob1 (n/a when that point did not run).
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
export THEMIS_NETBED_PREFIX=${THEMIS_NETBED_PREFIX:-nbar}
bed_state=${THEMIS_NETBED_STATE_DIR:-/run/themis-netbed/$THEMIS_NETBED_PREFIX}

die() { echo "netbed_allreduce: $*" >&2; exit 2; }
say() { echo "$*"; }

sizes=1M,4M,16M,64M transports=ob1,ofi variants=themis,baseline,tuned,ring
iters=10 budget=64M min_iters=3 reps=1 calib_seconds=1.5 timeline=1 timeline_size=16M
loss=1:1 loss_size=16M themis_opt="" tmo=600 out=$top/benchmarks/out/netbed quick=0
chunks_opt=default ob1_eager=1M ofi_eager=64K
beds=()
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) sed -n '4,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        --quick) quick=1; shift; continue ;;
        --timeline) timeline=1; shift; continue ;;
        --no-timeline) timeline=0; shift; continue ;;
        --no-loss) loss=""; shift; continue ;;
        -*) [ $# -ge 2 ] || die "$1 needs a value" ;;
        *) [ $# -ge 2 ] || die "a SHAPE needs its RATES (e.g. 4x2 100mbit,40mbit)"
           beds+=("$1 $2"); shift 2; continue ;;
    esac
    case $1 in
        --sizes) sizes=$2 ;;
        --transports) transports=$2 ;;
        --variants) variants=$2 ;;
        --iters) iters=$2 ;;
        --budget) budget=$2 ;;
        --min-iters) min_iters=$2 ;;
        --reps) reps=$2 ;;
        --calib-seconds) calib_seconds=$2 ;;
        --timeline-size) timeline_size=$2 ;;
        --loss) loss=$2 ;;
        --loss-size) loss_size=$2 ;;
        --themis-opt) themis_opt=$2 ;;
        --chunks) chunks_opt=$2 ;;
        --ob1-eager) ob1_eager=$2 ;;
        --ofi-eager) ofi_eager=$2 ;;
        --timeout) tmo=$2 ;;
        --out) out=$2 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift 2
done
if [ "$quick" = 1 ]; then
    [ ${#beds[@]} -gt 0 ] || beds=("4x2 100mbit,100mbit")
    sizes=16M transports=ob1 variants=themis,baseline,tuned timeline=0 loss="" calib_seconds=1
    iters=3
fi
[ ${#beds[@]} -gt 0 ] ||
    beds=("4x2 100mbit,100mbit" "4x2 100mbit,50mbit" "2x2x2 60mbit,60mbit,60mbit")

# ------------------------------------------------------------ checks
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
for f in "$bench" "$plan" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || die "missing $f (build first; THEMIS_BUILD_DIR=$BUILD)"
done
command -v gnuplot >/dev/null || timeline=0
for n in "$iters" "$min_iters" "$reps" "$tmo"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "bad count '$n'"
done
[[ $calib_seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad --calib-seconds '$calib_seconds'"
if [ -n "$loss" ]; then
    [[ $loss =~ ^[1-8]:[0-9]+(\.[0-9]+)?$ ]] || die "--loss wants DIM:PERCENT, e.g. 1:1"
fi
to_bytes() {   # 16M -> 16777216: themis-plan's size syntax, one parser
    "$plan" size "$1" 2>/dev/null || die "bad byte count '$1' (themis-plan size --help)"
}
human() {   # 16777216 -> 16MiB
    local b=$1
    if [ $((b % 1048576)) -eq 0 ]; then echo "$((b / 1048576))MiB"
    elif [ $((b % 1024)) -eq 0 ]; then echo "$((b / 1024))KiB"
    else echo "${b}B"; fi
}
size_list=()
IFS=, read -ra tmp <<<"$sizes"
for s in "${tmp[@]}"; do size_list+=("$(to_bytes "$s")") || exit 2; done
budget_b=$(to_bytes "$budget") || exit 2
timeline_b=$(to_bytes "$timeline_size") || exit 2
loss_b=$(to_bytes "$loss_size") || exit 2
# Calibration messages: half the eager limit, so that they are eager like
# the collectives' (Open MPI's ob1/tcp default 64 KiB, ofi_rxm's 16 KiB).
declare -A calib_msg=([ob1]=32768 [ofi]=8192)
ob1_env=()
if [ "$ob1_eager" != default ]; then
    eb=$(to_bytes "$ob1_eager") || exit 2
    ob1_env=("OMPI_MCA_btl_tcp_eager_limit=$eb" "OMPI_MCA_btl_tcp_rndv_eager_limit=$eb"
        "OMPI_MCA_btl_tcp_max_send_size=$eb")
    calib_msg[ob1]=$((eb / 2 < 1024 ? 1024 : eb / 2))
fi
ofi_env=()
if [ "$ofi_eager" != default ]; then
    eb=$(to_bytes "$ofi_eager") || exit 2
    [ "$eb" -le 262144 ] || die "--ofi-eager above 256K: ofi_rxm's buffers would take gigabytes per rank"
    ofi_env=("FI_OFI_RXM_BUFFER_SIZE=$eb")
    calib_msg[ofi]=$((eb / 2 < 1024 ? 1024 : eb / 2))
fi
if [ "$chunks_opt" != default ] && ! [[ $chunks_opt =~ ^[1-9][0-9]*$ ]]; then
    die "bad --chunks '$chunks_opt'"
fi
IFS=, read -ra transport_list <<<"$transports"
for t in "${transport_list[@]}"; do
    case $t in ob1 | ofi) ;; *) die "bad transport '$t' (ob1, ofi)" ;; esac
done
IFS=, read -ra variant_list <<<"$variants"
for v in "${variant_list[@]}"; do
    case $v in themis | prev | baseline | tuned | ring) ;; *) die "bad variant '$v'" ;; esac
done

# The component's settings for themis and baseline: its registered
# defaults (ompi_info), then ours (chunks, intra order scf), then
# --themis-opt.  topt holds what we pass; param what the component uses.
declare -A param topt
while IFS=: read -r _ _ _ _ name _ value; do
    param[$name]=$value
done < <(launch_ompi_info --param coll themis --level 9 --parsable 2>/dev/null | grep ':value:' | grep -v enumerator)
topt[coll_themis_intra_order]=scf
read -ra themis_opt_arr <<<"$themis_opt"
themis_extra=()
for ((i = 0; i < ${#themis_opt_arr[@]}; i++)); do
    a=${themis_opt_arr[i]}
    if { [ "$a" = --mca ] || [ "$a" = -mca ]; } && [ $((i + 2)) -lt $((${#themis_opt_arr[@]} + 1)) ]; then
        topt[${themis_opt_arr[i + 1]}]=${themis_opt_arr[i + 2]:-}
        i=$((i + 2))
    else
        themis_extra+=("$a")
    fi
done
[ -n "${topt[coll_themis_scheduler]:-}" ] && die "--themis-opt must not set coll_themis_scheduler (the variants do)"
for k in "${!topt[@]}"; do param[$k]=${topt[$k]}; done
[ -n "${topt[coll_themis_chunks]:-}" ] && chunks_opt=${topt[coll_themis_chunks]}
unset 'topt[coll_themis_chunks]'
default_chunks=${param[coll_themis_chunks]:-}
chunks_in_flight=${param[coll_themis_chunks_in_flight]:-}
direct_max=${param[coll_themis_direct_max]:-}
intra=${param[coll_themis_intra_order]:-}
if [ -z "$default_chunks" ] || [ -z "$chunks_in_flight" ] || [ -z "$direct_max" ]; then
    die "cannot read coll/themis defaults with ompi_info from $comp_dir"
fi
sim_themis_row=Themis+SCF
[ "$intra" = fifo ] && sim_themis_row=Themis+FIFO

mkdir -p "$out" || die "cannot create $out"
csv=$out/results.csv
echo "shape,rates,transport,loss,bytes,variant,rep,avg_us,min_us,max_us,iters,validation,path,load1,cpu_idle_pct" >"$csv"
summary=$out/summary.csv
echo "shape,rates,transport,bytes,chunks,themis_ms,baseline_ms,tuned_ms,ring_ms,bound_ms,x_baseline,x_tuned,x_ring,fraction_of_bound,sim_themis_ms,sim_baseline_ms,themis_meas_over_sim,baseline_meas_over_sim,topology" >"$summary"
load1() { cut -d' ' -f1 /proc/loadavg; }
cpu_times() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }

bed_up=0
cleanup() {
    [ "$bed_up" = 1 ] && "$NETBED" down >/dev/null 2>&1
    bed_up=0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

chunk_text="$chunks_opt (coll_themis_min_chunk_bytes 1)"
[ "$chunks_opt" = default ] && chunk_text="component default: at most $default_chunks, >= 16 KiB and the latency floor"
say "# netbed All-Reduce: coll/themis (chunks $chunk_text, in flight $chunks_in_flight, intra order $intra) vs baseline order vs coll/tuned"
say "# ob1: ${ob1_env[*]:-Open MPI defaults} (and netbed's btl_tcp_rdma_pipeline_frag_size 32768); ofi: ${ofi_env[*]:-libfabric defaults}"
say "# osu_coll_latency: up to $iters timed calls per size (budget $(human "$budget_b"), >= $min_iters), reps $reps, Avg over calls and ranks"
say "# start $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"

# ------------------------------------------------------------ one run
# themis-plan simulate options that give the chunk count coll/themis uses
# (the automatic floor of a communicator that spans nodes: 16 KiB).
sim_chunk_args() {
    if [ "$chunks_opt" = default ]; then
        echo "--chunks $default_chunks --min-chunk 16384"
    else
        echo "--chunks $chunks_opt"
    fi
}

variant_args() {   # VARIANT BYTES -> mpirun arguments (one per line)
    case $1 in
        themis | baseline | prev)
            # prev: Themis planned with the simulator model before 2026-11-24
            printf '%s\n' --calibrated "${themis[@]}" \
                --mca coll_themis_scheduler "$([ "$1" = baseline ] && echo baseline || echo themis)"
            [ "$1" = prev ] && printf '%s\n' --mca coll_themis_latency_model serialized
            # An explicit count is the count: no chunk floor.
            [ "$chunks_opt" = default ] ||
                printf '%s\n' --mca coll_themis_chunks "$chunks_opt" --mca coll_themis_min_chunk_bytes 1
            [ -n "${topt[coll_themis_dim_kinds]:-}" ] || printf '%s\n' --mca coll_themis_dim_kinds "$kinds"
            for k in "${!topt[@]}"; do printf '%s\n' --mca "$k" "${topt[$k]}"; done
            [ ${#themis_extra[@]} -eq 0 ] || printf '%s\n' "${themis_extra[@]}"
            ;;
        tuned) printf '%s\n' --mca coll tuned,inter,libnbc,basic,self ;;
        ring)
            printf '%s\n' --mca coll tuned,inter,libnbc,basic,self \
                --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4 ;;
    esac
}

transport_env() {   # TRANSPORT -> envs (the variables for mpirun's environment)
    if [ "$1" = ob1 ]; then envs=("${ob1_env[@]}"); else envs=("${ofi_env[@]}"); fi
}

iters_for() {   # BYTES -> timed calls
    local it=$iters
    if [ "$1" -gt $((budget_b / iters)) ]; then
        it=$((budget_b / $1))
        [ "$it" -lt "$min_iters" ] && it=$min_iters
    fi
    echo "$it"
}

# run_osu TRANSPORT VARIANT BYTES ITERS LOGFILE: prints "avg min max iters
# validation path idle" (avg/min/max in us; "FAIL - - - Fail rc=N" when no
# result; idle: % of all cores idle during the mpirun, from /proc/stat).
run_osu() {
    local transport=$1 variant=$2 bytes=$3 it=$4 log=$5 args=() rc=0
    mapfile -t args < <(variant_args "$variant" "$bytes")
    # --calibrated is a netbed option: it goes before the mpirun arguments.
    local nb=(--transport "$transport") mp=()
    for a in "${args[@]}"; do
        if [ "$a" = --calibrated ]; then nb+=(--calibrated); else mp+=("$a"); fi
    done
    local envs=()
    transport_env "$transport"
    local cmd=(env "${envs[@]}" timeout -k 10 "$tmo" "$NETBED" mpirun "${nb[@]}" "${mp[@]}"
        "$bench" --min "$bytes" --max "$bytes" --iters "$it" --min-iters "$it"
        --budget "$((bytes * it))")
    echo "# ${cmd[*]}" >"$log"
    local c0 c1 idle
    c0=$(cpu_times)
    "${cmd[@]}" >>"$log" 2>&1 || rc=$?
    c1=$(cpu_times)
    idle=$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x, " "); split(b, y, " ")
        t = y[2] - x[2]; printf "%.0f", (t > 0 ? 100 * (y[1] - x[1]) / t : 0) }')
    local row
    row=$(awk -v b="$bytes" '$1 == b { print $2, $3, $4, $5, $6, $7 }' "$log")
    if [ -z "$row" ]; then
        echo "FAIL - - - Fail rc=$rc $idle"
    else
        echo "$row $idle"
    fi
}

# ------------------------------------------------------------ model
# Sets topo (the themis-plan topology string) and kinds (the component's
# coll_themis_dim_kinds) from calibration.env; see the header for the kinds.
build_topology() {   # CALFILE
    local f=$1 bw lat dims k kind dsz=() bws=() lats=()
    dims=$(sed -n 's/^coll_themis_dims=//p' "$f")
    bw=$(sed -n 's/^coll_themis_dim_bandwidths=//p' "$f")
    lat=$(sed -n 's/^coll_themis_dim_latencies=//p' "$f")
    IFS=x read -ra dsz <<<"$dims"
    IFS=, read -ra bws <<<"$bw"
    IFS=, read -ra lats <<<"$lat"
    kinds="" topo=""
    for ((k = 0; k < ${#dsz[@]}; k++)); do
        kind="ring"
        [ "${dsz[k]}" -le "$direct_max" ] && kind="fc"
        kinds="${kinds:+$kinds,}$kind"
        topo="${topo:+${topo}_}$kind:${dsz[k]}:${bws[k]}:${lats[k]}"
    done
}

# ------------------------------------------------------------ timeline
# One sampler per rank namespace: "epoch_seconds tx_d1 tx_d2 ..." every 50 ms.
# read -t on a private pipe sleeps without forking.
sampler_pids=()
start_samplers() {   # DIR NRANKS NDIMS
    local dir=$1 n=$2 nd=$3 r
    sampler_pids=()
    for ((r = 0; r < n; r++)); do
        # shellcheck disable=SC2016  # the loop runs in the namespace's bash
        ip netns exec "$THEMIS_NETBED_PREFIX-r$r" bash -c '
            nd=$1; exec 3<> <(:)
            while :; do
                line=$EPOCHREALTIME
                for ((k = 1; k <= nd; k++)); do
                    read -r v </sys/class/net/d$k/statistics/tx_bytes; line="$line $v"
                done
                echo "$line"
                read -r -t 0.05 -u 3 _
            done' sampler "$nd" >"$dir/tx_r$r.txt" 2>/dev/null &
        sampler_pids+=($!)
    done
}
stop_samplers() {
    local p
    for p in "${sampler_pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${sampler_pids[@]}"; do wait "$p" 2>/dev/null; done
    sampler_pids=()
}

# Per-dimension utilization in 100 ms bins: bytes of every rank's dK (each
# interval's bytes to the bin of its midpoint) / (ranks x bin x rate).
# Time 0 = the first bin with traffic in either run of the pair (T0 arg).
utilization() {   # DIR NRANKS NDIMS RATES_BPS(comma) T0 -> "t u1 u2 ..." lines
    local dir=$1 n=$2 nd=$3 rates=$4 t0=$5
    local r
    for ((r = 0; r < n; r++)); do
        awk -v r="$r" '{ print r, $0 }' "$dir/tx_r$r.txt"
    done | awk -v n="$n" -v nd="$nd" -v rates="$rates" -v t0="$t0" '
        BEGIN { split(rates, R, ","); w = 0.1; maxb = -1 }
        {
            r = $1; t = $2
            if (r in last) {
                b = int(((t + last[r]) / 2 - t0) / w)
                if (b >= 0) {
                    for (k = 1; k <= nd; k++) { bytes[b, k] += $(k + 2) - prev[r, k] }
                    if (b > maxb) maxb = b
                }
            }
            last[r] = t
            for (k = 1; k <= nd; k++) prev[r, k] = $(k + 2)
        }
        END {
            for (b = 0; b <= maxb; b++) {
                line = sprintf("%.2f", (b + 0.5) * w)
                for (k = 1; k <= nd; k++) line = line sprintf(" %.1f", 100 * bytes[b, k] * 8 / (n * w * R[k]))
                print line
            }
        }'
}

first_traffic() {   # DIR -> epoch of the first sample whose bytes grew by > 64 KiB
    local r best=""
    for f in "$1"/tx_r*.txt; do
        r=$(awk '{ s = 0; for (k = 2; k <= NF; k++) s += $k; if (NR > 1 && s - p > 65536) { print $1; exit } p = s }' "$f")
        if [ -n "$r" ] && { [ -z "$best" ] || awk -v a="$r" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
            best=$r
        fi
    done
    echo "$best"
}

draw_timeline() {   # SHAPE RATES NRANKS NDIMS RATES_BPS TIMES(baseline themis)
    local shape=$1 rates=$2 n=$3 nd=$4 rbps=$5 tb=$6 tt=$7 tag v t0 png k
    tag="${shape}_$(echo "$rates" | tr ',' '_')"
    for v in baseline themis; do
        t0=$(first_traffic "$out/timeline_$tag/$v")
        [ -n "$t0" ] || { say "  timeline: no traffic recorded for $v"; return; }
        t0=$(awk -v t="$t0" 'BEGIN { printf "%.6f", t - 0.2 }')
        utilization "$out/timeline_$tag/$v" "$n" "$nd" "$rbps" "$t0" >"$out/timeline_$tag/$v.dat"
    done
    png=$out/timeline_$tag.png
    local plots_b="" plots_t="" colors=("#1f77b4" "#d62728" "#2ca02c" "#9467bd")
    for ((k = 1; k <= nd; k++)); do
        plots_b="$plots_b${plots_b:+, }'$out/timeline_$tag/baseline.dat' using 1:$((k + 1)) with lines lw 2 lc rgb '${colors[k - 1]}' title 'd$k'"
        plots_t="$plots_t${plots_t:+, }'$out/timeline_$tag/themis.dat' using 1:$((k + 1)) with lines lw 2 lc rgb '${colors[k - 1]}' title 'd$k'"
    done
    local xmax
    xmax=$(cat "$out/timeline_$tag/baseline.dat" "$out/timeline_$tag/themis.dat" | awk '$1 > m { m = $1 } END { print m + 0.2 }')
    gnuplot <<EOF || { say "  timeline: gnuplot failed"; return; }
set terminal pngcairo size 1000,620 font ",10"
set output '$png'
set multiplot layout 2,1 title "All-Reduce $(human "$timeline_b") on netbed $shape $rates (ob1): per-dimension utilization (tx bytes / configured rate, all ranks, 100 ms bins)"
set yrange [0:110]
set xrange [0:$xmax]
set ylabel "utilization %"
set grid
set key outside right
set title "baseline order: $tb s per call"
plot $plots_b
set title "themis (scf): $tt s per call"
set xlabel "time (s) from the first traffic (warm-up calls included)"
plot $plots_t
unset multiplot
EOF
    say "  timeline: $png"
}

# ------------------------------------------------------------ main loop
final_line="speedup_vs_baseline=n/a speedup_vs_tuned=n/a fraction_of_bound=n/a"
bed_index=0
for bed in "${beds[@]}"; do
    read -r shape rates <<<"$bed"
    bed_index=$((bed_index + 1))
    say
    say "=== bed $shape $rates"
    "$NETBED" down >/dev/null 2>&1
    "$NETBED" up "$shape" "$rates" || { say "  netbed up failed; skipping"; continue; }
    bed_up=1
    IFS=x read -ra D <<<"$shape"
    nranks=1
    for d in "${D[@]}"; do nranks=$((nranks * d)); done
    nd=${#D[@]}
    IFS=, read -ra RT <<<"$rates"
    rbps=""
    for r in "${RT[@]}"; do
        rbps="${rbps:+$rbps,}$(awk -v r="$r" 'BEGIN {
            m = 1; if (r ~ /gbit$/) m = 1e9; else if (r ~ /mbit$/) m = 1e6; else if (r ~ /kbit$/) m = 1e3
            sub(/[a-z]+$/, "", r); printf "%.0f", r * m }')"
    done
    tag="${shape}_$(echo "$rates" | tr ',' '_')"
    for transport in "${transport_list[@]}"; do
        say
        say "--- $shape $rates over $transport (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        # The bed's calibration.env is what `netbed mpirun --calibrated` reads.
        cal=$out/calibration_${tag}_$transport.env
        transport_env "$transport"
        if ! env "${envs[@]}" "$NETBED" calibrate --seconds "$calib_seconds" --transport "$transport" \
            --msg "${calib_msg[$transport]}" \
            >"$out/calibration_${tag}_$transport.log" 2>&1; then
            say "  calibration failed (log $out/calibration_${tag}_$transport.log); skipping $transport"
            continue
        fi
        cp "$bed_state/calibration.env" "$cal"
        build_topology "$cal"
        say "  measured: $(grep -v '^#' "$cal" | tr '\n' ' ')"
        say "  topology: $topo (kinds $kinds; in flight $chunks_in_flight)"
        simcsv=$out/sim_${tag}_$transport.csv
        : >"$simcsv"
        for bytes in "${size_list[@]}"; do
            # shellcheck disable=SC2046  # sim_chunk_args is meant to split
            if ! "$plan" simulate --topo "$topo" --bytes "$bytes" $(sim_chunk_args) \
                --chunks-in-flight "$chunks_in_flight" --csv >"$simcsv.tmp" 2>&1; then
                say "  themis-plan simulate failed: $(head -2 "$simcsv.tmp")"
            fi
            if [ -s "$simcsv" ]; then tail -n +2 "$simcsv.tmp" >>"$simcsv"; else cat "$simcsv.tmp" >"$simcsv"; fi
        done
        rm -f "$simcsv.tmp"

        declare -A T=() V=() P=() IDLE=()
        rot=0
        for bytes in "${size_list[@]}"; do
            n=${#variant_list[@]}
            for ((rep = 0; rep < reps; rep++)); do
                for ((j = 0; j < n; j++)); do
                    v=${variant_list[(j + rot) % n]}
                    log=$out/run_${tag}_${transport}_${bytes}_${v}_$rep.log
                    ld=$(load1)
                    read -r avg mn mx it val path idle < <(run_osu "$transport" "$v" "$bytes" "$(iters_for "$bytes")" "$log")
                    echo "$shape,\"$rates\",$transport,none,$bytes,$v,$rep,$avg,$mn,$mx,$it,$val,$path,$ld,$idle" >>"$csv"
                    IDLE[$v]="${IDLE[$v]:-}$idle "
                    if [ "$avg" != FAIL ]; then
                        prev=${T[$bytes,$v]:-}
                        if [ -z "$prev" ] || awk -v a="$avg" -v b="$prev" 'BEGIN { exit !(a < b) }'; then
                            T[$bytes,$v]=$avg
                        fi
                    fi
                    [ "$val" = Pass ] || V[$bytes]="${V[$bytes]:-}$v:$val "
                    case $v in themis | baseline)
                        [ "$path" = themis ] || P[$bytes]="${P[$bytes]:-}$v:path=$path " ;;
                    esac
                done
                rot=$((rot + 1))
            done
        done

        say
        printf '  %-11s | %-17s | %-10s %-10s %-10s | %8s | %6s %6s %6s %6s | %-17s %-17s | %s\n' \
            size/chunks "themis ms (busbw)" baseline tuned ring "bound ms" "x base" "x tune" "x ring" "f_bound" \
            "sim themis (m/s)" "sim base (m/s)" "valid"
        for bytes in "${size_list[@]}"; do
            bound=$(awk -F, -v b="$bytes" '$3 == b && $6 == "Ideal" { printf "%.1f", $7 / 1e9 }' "$simcsv")
            nch=$(awk -F, -v b="$bytes" '$3 == b && $6 == "Themis+SCF" { print $4 }' "$simcsv")
            simt=$(awk -F, -v b="$bytes" -v m="$sim_themis_row" '$3 == b && $6 == m { printf "%.1f", $7 / 1e9 }' "$simcsv")
            simb=$(awk -F, -v b="$bytes" '$3 == b && $6 == "Baseline" { printf "%.1f", $7 / 1e9 }' "$simcsv")
            row=$(awk -v b="$bytes" -v n="$nranks" -v th="${T[$bytes,themis]:-}" -v ba="${T[$bytes,baseline]:-}" \
                -v tu="${T[$bytes,tuned]:-}" -v ri="${T[$bytes,ring]:-}" -v bo="$bound" -v st="$simt" -v sb="$simb" '
                function ms(us) { return us == "" ? "-" : sprintf("%.1f", us / 1000) }
                function x(o) { return (o == "" || th == "") ? "-" : sprintf("%.2f", o / th) }
                function q(a, b) { return (a == "" || b == "") ? "-" : sprintf("%.2f", a / b) }
                BEGIN {
                    busbw = th == "" ? "-" : sprintf("%.1f", b * 8 * 2 * (n - 1) / n / th)
                    fb = (th == "" || bo == "") ? "-" : sprintf("%.2f", bo * 1000 / th)
                    printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", ms(th), busbw, ms(ba), ms(tu), ms(ri),
                        bo == "" ? "-" : bo, x(ba), x(tu), x(ri), fb, st == "" ? "-" : st, q(th / 1000, st),
                        sb == "" ? "-" : sb, q(ba / 1000, sb), "" }')
            IFS='|' read -r th bw ba tu ri bo xb xt xr fb st qt sb qb _ <<<"$row"
            valid="Pass"
            [ -n "${V[$bytes]:-}" ] && valid="FAIL ${V[$bytes]}"
            [ -n "${P[$bytes]:-}" ] && valid="$valid (${P[$bytes]% })"
            printf '  %-11s | %9s (%5s) | %-10s %-10s %-10s | %8s | %6s %6s %6s %6s | %7s (%5s)   %7s (%5s)   | %s\n' \
                "$(human "$bytes")/$nch" "$th" "$bw" "$ba" "$tu" "$ri" "$bo" "$xb" "$xt" "$xr" "$fb" "$st" "$qt" "$sb" "$qb" "$valid"
            echo "$shape,\"$rates\",$transport,$bytes,$nch,$th,$ba,$tu,$ri,$bo,$xb,$xt,$xr,$fb,$st,$sb,$qt,$qb,$topo" >>"$summary"
            if [ "$shape $rates $transport $bytes" = "4x2 100mbit,100mbit ob1 16777216" ]; then
                final_line="speedup_vs_baseline=$xb speedup_vs_tuned=$xt fraction_of_bound=$fb"
            fi
        done
        if [[ " ${variant_list[*]} " == *" prev "* ]]; then
            line=""
            for bytes in "${size_list[@]}"; do
                line="$line $(human "$bytes") $(awk -v p="${T[$bytes,prev]:-}" -v t="${T[$bytes,themis]:-}" \
                    'BEGIN { if (p == "" || t == "") print "-"; else printf "%.2f", p / t }'),"
            done
            say "  prev (coll_themis_latency_model=serialized) / themis:${line%,}"
        fi
        say "  (ms = Avg of osu_coll_latency; busbw = size x 2(n-1)/n / time in Mbit/s; x = other / themis;"
        say "   f_bound = bound / themis; sim = themis-plan $sim_themis_row and Baseline, m/s = measured / simulated)"
        # Ranks busy-poll while they wait, so idle is low whenever MPI runs;
        # what matters is whether the shaped links or the CPUs set the pace.
        line=""
        for v in "${variant_list[@]}"; do
            [ -n "${IDLE[$v]:-}" ] || continue
            line="$line $v $(awk '{ s = 0; m = 101; for (i = 1; i <= NF; i++) { s += $i; if ($i < m) m = $i }
                printf "%.0f%% (min %d%%)", s / NF, m }' <<<"${IDLE[$v]}"),"
        done
        [ -z "$line" ] || say "  CPU idle during the runs (all cores, mean over sizes):${line%,}"

        # --------------------------------------------------- timeline
        if [ "$timeline" = 1 ] && [ "$transport" = ob1 ]; then
            declare -A TL=()
            for v in baseline themis; do
                d=$out/timeline_$tag/$v
                rm -rf "$d"; mkdir -p "$d"
                start_samplers "$d" "$nranks" "$nd"
                read -r avg _ _ _ val _ _ < <(run_osu ob1 "$v" "$timeline_b" 2 "$d/osu.log")
                stop_samplers
                TL[$v]=$(awk -v a="$avg" 'BEGIN { if (a == "FAIL") print "?"; else printf "%.2f", a / 1e6 }')
            done
            draw_timeline "$shape" "$rates" "$nranks" "$nd" "$rbps" "${TL[baseline]}" "${TL[themis]}"
            for v in baseline themis; do
                awk -v v="$v" -v nd="$nd" '
                    { busy = 0; for (k = 2; k <= nd + 1; k++) if ($k > 5) busy = 1
                      if (busy) { nb++; for (k = 2; k <= nd + 1; k++) s[k] += $k } }
                    END { line = sprintf("  %-8s mean utilization while any dim is busy:", v)
                          for (k = 2; k <= nd + 1; k++) line = line sprintf(" d%d %.0f%%", k - 1, nb ? s[k] / nb : 0)
                          print line }' "$out/timeline_$tag/$v.dat"
            done
        fi

        # --------------------------------------------------- fault check
        if [ -n "$loss" ] && [ "$bed_index" = 1 ]; then
            ldim=${loss%%:*} lpct=${loss#*:}
            if [ "$ldim" -le "$nd" ]; then
                say
                say "  fault check: netbed loss $ldim $lpct, $(human "$loss_b")"
                "$NETBED" loss "$ldim" "$lpct" >/dev/null
                for v in "${variant_list[@]}"; do
                    log=$out/run_${tag}_${transport}_${loss_b}_${v}_loss.log
                    read -r avg mn mx it val path idle < <(run_osu "$transport" "$v" "$loss_b" "$(iters_for "$loss_b")" "$log")
                    echo "$shape,\"$rates\",$transport,d$ldim:$lpct%,$loss_b,$v,0,$avg,$mn,$mx,$it,$val,$path,$(load1),$idle" >>"$csv"
                    ref=${T[$loss_b,$v]:-}
                    printf '    %-8s %10s ms  validation %-4s  slowdown vs no loss %s\n' "$v" \
                        "$(awk -v a="$avg" 'BEGIN { if (a == "FAIL") print "FAIL"; else printf "%.1f", a / 1000 }')" "$val" \
                        "$(awk -v a="$avg" -v r="$ref" 'BEGIN { if (a == "FAIL" || r == "") print "-"; else printf "%.2fx", a / r }')"
                done
                "$NETBED" loss-stats | awk -v d="d$ldim" '$2 == d { p += $4; x += $6 } END {
                    printf "    filters on %s: %d packets, %d dropped (%.2f%%)\n", d, p, x, p ? 100 * x / p : 0 }'
                "$NETBED" loss "$ldim" 0 >/dev/null
            fi
        fi
        unset T V P
    done
    "$NETBED" down >/dev/null 2>&1
    bed_up=0
done
say
say "# end $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg); results in $out (results.csv, summary.csv)"
echo "$final_line"
