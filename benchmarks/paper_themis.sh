#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Reproduces the microbenchmark results of themis.txt (Sec. 6.1) with our
# planners' simulator, through themis-plan:
#   1. Fig. 8 / Fig. 11: All-Reduce of 100MB, 250MB, 500MB, 1GB with 64 chunks
#      on the six Table 2 topologies: time and average BW utilization of
#      Baseline, Themis+FIFO, Themis+SCF and Ideal (the LP lower bound); Ideal's
#      x is over Baseline-LP, the same LP bound for the baseline order, so it
#      is the real limit of the speedup, not one over a simulated baseline.
#   2. Fig. 10 (chunk granularity): 1GB All-Reduce with 4..512 chunks on
#      3D-SW_SW_SW_hetero and 4D-Ring_FC_Ring_SW.
#   3. Fig. 10 (activity timeline): 1GB on 3D-SW_SW_SW_homo, as a PNG.
# The last line is the summary over part 1:
#   themis_fifo_speedup=X.XX themis_scf_speedup=Y.YY util_baseline=A.A% util_scf=B.B% fraction_of_limit=F.FFF
# (speedup = baseline time / Themis time, averaged arithmetically over all
# topologies and sizes; utilizations are plain averages; fraction_of_limit
# = Ideal (LP) time / Themis+SCF time, averaged; the line before gives its
# minimum over the points).
#
# Environment:
#   THEMIS_BUILD_DIR   build tree holding tools/themis-plan (default: repo root)
#   THEMIS_BENCH_OUT   where CSV files and the PNG go (default benchmarks/out)
#   THEMIS_CHUNKS_IN_FLIGHT    phases at once per dimension (default 1, the paper's)
#   THEMIS_LATENCY     simulator latency mode: overlapped (default) or serialized
#                      (with it the previous model's load tracker, --load phase)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${THEMIS_BUILD_DIR:-$top}
plan="$build/tools/themis-plan"
out=${THEMIS_BENCH_OUT:-$top/benchmarks/out}

if [ ! -x "$plan" ]; then
    if [ "$(cd "$build" && pwd)" = "$top" ]; then
        echo "paper_themis: $plan is missing; building with tools/setup.sh" >&2
        bash "$top/tools/setup.sh" >&2
    fi
    if [ ! -x "$plan" ]; then
        echo "paper_themis: $plan not found: build it (make tools/themis-plan in $build)" >&2
        exit 1
    fi
fi
mkdir -p "$out"
# The paper's setting is one chunk operation in flight per dimension
# (themis-plan's default is coll/themis' 2).
chunks_in_flight=(--chunks-in-flight "${THEMIS_CHUNKS_IN_FLIGHT:-1}")
case ${THEMIS_LATENCY:-overlapped} in
    overlapped) model=(--latency overlapped --load bandwidth) ;;
    serialized) model=(--latency serialized --load phase) ;;
    *) echo "paper_themis: THEMIS_LATENCY must be overlapped or serialized" >&2; exit 2 ;;
esac
chunks_in_flight+=("${model[@]}")

# ---------------------------------------------------------------- Fig. 8 / 11
sizes=100MB,250MB,500MB,1GB
presets=$("$plan" presets | awk 'NR > 1 { print $1 }')
main_csv="$out/paper_fig8.csv"
first=1
for p in $presets; do
    if [ $first -eq 1 ]; then
        "$plan" simulate --topo "$p" --bytes "$sizes" --chunks 64 "${chunks_in_flight[@]}" --csv \
            | cut -d, -f1-10 >"$main_csv"
        first=0
    else
        "$plan" simulate --topo "$p" --bytes "$sizes" --chunks 64 "${chunks_in_flight[@]}" --csv \
            | tail -n +2 | cut -d, -f1-10 >>"$main_csv"
    fi
done

echo "All-Reduce, 64 chunks per collective, chunks_in_flight ${THEMIS_CHUNKS_IN_FLIGHT:-1}, latency ${THEMIS_LATENCY:-overlapped}"
echo "time in ms; util = bandwidth-weighted average BW utilization; x = speedup over Baseline"
echo "(Ideal: the LP bound, its x over Baseline-LP, the baseline order's LP bound; f = Ideal / T+SCF)"
# CSV columns: topology,coll,bytes,chunks,chunks_in_flight,method,time_ps,speedup,util_pct,hash
awk -F, '
function sz(b) { return b >= 1e9 ? sprintf("%gGB", b / 1e9) : sprintf("%gMB", b / 1e6) }
NR == 1 { next }
{
    key = $1 SUBSEP $3
    if (!(key in seen)) { seen[key] = 1; order[++n] = key; topo[n] = $1; bytes[n] = $3 }
    t[key, $6] = $7 / 1e9; u[key, $6] = $9
}
END {
    printf "%-20s %6s | %8s %6s | %8s %6s %5s | %8s %6s %5s | %8s %6s %5s %6s\n",
        "topology", "size", "Baseline", "util", "T+FIFO", "util", "x", "T+SCF", "util", "x",
        "Ideal", "util", "x", "f"
    for (i = 1; i <= n; i++) {
        k = order[i]; b = t[k, "Baseline"]; f = t[k, "Ideal"] / t[k, "Themis+SCF"]
        printf "%-20s %6s | %8.3f %5.1f%% | %8.3f %5.1f%% %5.2f | %8.3f %5.1f%% %5.2f | %8.3f %5.1f%% %5.2f %6.3f\n",
            topo[i], sz(bytes[i]), b, u[k, "Baseline"],
            t[k, "Themis+FIFO"], u[k, "Themis+FIFO"], b / t[k, "Themis+FIFO"],
            t[k, "Themis+SCF"], u[k, "Themis+SCF"], b / t[k, "Themis+SCF"],
            t[k, "Ideal"], u[k, "Ideal"], t[k, "Baseline-LP"] / t[k, "Ideal"], f
        sf += b / t[k, "Themis+FIFO"]; ss += b / t[k, "Themis+SCF"]
        si += t[k, "Baseline-LP"] / t[k, "Ideal"]; sfl += f
        ub += u[k, "Baseline"]; uf += u[k, "Themis+FIFO"]; us += u[k, "Themis+SCF"]
        ui += u[k, "Ideal"]
    }
    printf "%-27s | %8s %5.1f%% | %8s %5.1f%% %5.2f | %8s %5.1f%% %5.2f | %8s %5.1f%% %5.2f %6.3f\n",
        "average (" n " points)", "", ub / n, "", uf / n, sf / n, "", us / n, ss / n,
        "", ui / n, si / n, sfl / n
}' "$main_csv"

# ---------------------------------------------------------------- Fig. 10 sweep
echo
echo "Chunk granularity: 1GB All-Reduce, average BW utilization (%)"
sweep_csv="$out/paper_fig10_chunks.csv"
first=1
for p in 3D-SW_SW_SW_hetero 4D-Ring_FC_Ring_SW; do
    if [ $first -eq 1 ]; then
        "$plan" simulate --topo "$p" --bytes 1GB --chunks 4,8,16,32,64,128,256,512 \
            "${chunks_in_flight[@]}" --csv | cut -d, -f1-10 >"$sweep_csv"
        first=0
    else
        "$plan" simulate --topo "$p" --bytes 1GB --chunks 4,8,16,32,64,128,256,512 \
            "${chunks_in_flight[@]}" --csv | tail -n +2 | cut -d, -f1-10 >>"$sweep_csv"
    fi
done
awk -F, '
NR == 1 { next }
{
    if (!($1 in tseen)) { tseen[$1] = 1; topos[++nt] = $1 }
    if (!($4 in cseen)) { cseen[$4] = 1; chunks[++nc] = $4 }
    u[$1, $4, $6] = $9
}
END {
    printf "%7s", "chunks"
    for (i = 1; i <= nt; i++) printf " | %-33s", topos[i]
    printf " | %s\n", "average of the two"
    printf "%7s", ""
    for (i = 1; i <= nt; i++) printf " | %10s %10s %11s", "Baseline", "T+FIFO", "T+SCF"
    printf " | %8s %8s %8s\n", "Baseline", "T+FIFO", "T+SCF"
    for (j = 1; j <= nc; j++) {
        c = chunks[j]; ab = af = as = 0
        printf "%7s", c
        for (i = 1; i <= nt; i++) {
            t = topos[i]
            printf " | %9.1f%% %9.1f%% %10.1f%%", u[t, c, "Baseline"], u[t, c, "Themis+FIFO"],
                u[t, c, "Themis+SCF"]
            ab += u[t, c, "Baseline"]; af += u[t, c, "Themis+FIFO"]; as += u[t, c, "Themis+SCF"]
        }
        printf " | %7.1f%% %7.1f%% %7.1f%%\n", ab / nt, af / nt, as / nt
    }
}' "$sweep_csv"

# ---------------------------------------------------------------- Fig. 10 timeline
echo
png="$out/fig10_timeline_3D-SW_SW_SW_homo.png"
"$plan" timeline --topo 3D-SW_SW_SW_homo --bytes 1GB --chunks 64 "${chunks_in_flight[@]}" --png "$png" \
    | sed 's/^/timeline: /'

# ---------------------------------------------------------------- chunks_in_flight
# Phases at once per dimension, and the latency mode: serialized, a phase
# holds its slot through its fixed delay (steps x step latency), so with
# one slot a dimension's delays add up; overlapped, delays hold nothing.
# The paper runs several chunks per dimension when one cannot saturate it
# (Sec. 4.3).  Same 24 points, averaged.
echo
echo "Sensitivity to --chunks-in-flight and the latency mode (Fig. 8 points, averages)"
printf "%10s %9s %12s %12s %12s %14s %10s %10s %9s\n" latency chunks_in_flight fifo_speedup \
    scf_speedup ideal_speedup util_baseline util_fifo util_scf fraction
for mode in overlapped serialized; do
    case $mode in
        overlapped) m=(--latency overlapped --load bandwidth) ;;
        serialized) m=(--latency serialized --load phase) ;;
    esac
    for i in 1 2 4 8; do
        for p in $presets; do
            "$plan" simulate --topo "$p" --bytes "$sizes" --chunks 64 --chunks-in-flight "$i" "${m[@]}" \
                --csv | tail -n +2 | cut -d, -f1-10
        done | awk -F, -v chunks_in_flight="$i" -v mode="$mode" '
        { t[$1, $3, $6] = $7; u[$1, $3, $6] = $9; if (!(($1, $3) in seen)) { seen[$1, $3] = 1; k[++n] = $1 SUBSEP $3 } }
        END {
            for (j = 1; j <= n; j++) {
                split(k[j], a, SUBSEP); b = t[a[1], a[2], "Baseline"]
                sf += b / t[a[1], a[2], "Themis+FIFO"]; ss += b / t[a[1], a[2], "Themis+SCF"]
                si += t[a[1], a[2], "Baseline-LP"] / t[a[1], a[2], "Ideal"]
                fl += t[a[1], a[2], "Ideal"] / t[a[1], a[2], "Themis+SCF"]
                ub += u[a[1], a[2], "Baseline"]; uf += u[a[1], a[2], "Themis+FIFO"]
                us += u[a[1], a[2], "Themis+SCF"]
            }
            printf "%10s %9s %12.2f %12.2f %12.2f %13.1f%% %9.1f%% %9.1f%% %9.3f\n", mode,
                chunks_in_flight, sf / n, ss / n, si / n, ub / n, uf / n, us / n, fl / n
        }'
    done
done

# ---------------------------------------------------------------- summary
echo
awk -F, '
NR == 1 { next }
{ t[$1, $3, $6] = $7; u[$1, $3, $6] = $9; if (!(($1, $3) in seen)) { seen[$1, $3] = 1; k[++n] = $1 SUBSEP $3 } }
END {
    for (i = 1; i <= n; i++) {
        split(k[i], a, SUBSEP)
        b = t[a[1], a[2], "Baseline"]; f = t[a[1], a[2], "Ideal"] / t[a[1], a[2], "Themis+SCF"]
        sf += b / t[a[1], a[2], "Themis+FIFO"]; ss += b / t[a[1], a[2], "Themis+SCF"]
        si += t[a[1], a[2], "Baseline-LP"] / t[a[1], a[2], "Ideal"]
        ub += u[a[1], a[2], "Baseline"]; uf += u[a[1], a[2], "Themis+FIFO"]
        us += u[a[1], a[2], "Themis+SCF"]; ui += u[a[1], a[2], "Ideal"]
        fl += f
        if (i == 1 || f < fmin) { fmin = f; fwhere = a[1] " " a[2] / 1e6 "MB" }
    }
    printf "also: ideal_speedup=%.2f util_fifo=%.1f%% util_ideal=%.1f%% min_fraction_of_limit=%.3f (%s) (paper: util_fifo=87.7%%)\n",
        si / n, uf / n, ui / n, fmin, fwhere
    printf "themis_fifo_speedup=%.2f themis_scf_speedup=%.2f util_baseline=%.1f%% util_scf=%.1f%% fraction_of_limit=%.3f\n",
        sf / n, ss / n, ub / n, us / n, fl / n
}' "$main_csv"
