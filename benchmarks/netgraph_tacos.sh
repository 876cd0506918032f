#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# TACOS All-Reduce on the test bed built from a 3x3 mesh graph
# (benchmarks/netbed/netgraph: one tbf-shaped veth per link at RATE,
# routes from `themis-plan bed`), against Open MPI's ring
# (coll/tuned, dynamic rules, allreduce algorithm 4 = ring), Themis
# (coll_themis_allreduce_algorithm themis on 3x3 biring dimensions, the
# closest dimensions to a 3x3 mesh) and the lower bound, per size, each
# beside the link simulator's prediction:
#   tacos   `themis-plan synth` on the same graph file, k = 1 and the
#           default seeds, as row tacos synthesizes it (coll_themis_graph);
#   ring    `themis-plan xfer ring` in rank order (tuned's ring: rank r
#           sends to r + 1, P blocks, reduce-scatter then all-gather);
#   themis  `themis-plan export` of Themis's programs for the same
#           dimensions, chunks and chunks in flight, simulated on the graph
#           by `themis-plan msccl simulate`;
#   bound   `themis-plan synth`'s lower_bound_us (no measurement).
# Each prediction is given twice: the link simulator as it is, and with
# the duplex rate measured on the bed at that size (benchmarks/duplex_calib:
# one message of size/9 bytes, TACOS's and the ring's message, between the
# neighbour pairs 0-1, 3-4, 6-7 and 2-5, one way and both ways at once,
# CALIB_REPS times each): `--duplex F`, F = min(1, two-way rate / RATE).
# TCP runs both directions of a rank pair over one connection, and a
# direction whose ACKs queue behind the other's data slows down; one-way
# transfers keep the nominal rate (the ring checks that model).  The ratio
# and the target are on the calibrated prediction.
# Sizes must divide into 9 units (tacos) and the export's 1152 elements
# (one MSCCL chunk per element): the defaults are 9/8, 9/2 and 18 MiB.
# Output per (algorithm, size): predicted (nominal, calibrated) and
# measured time, measured / calibrated and measured / nominal, the MPI_T
# path; last line `worst_ratio=X runs=N` (measured / calibrated
# prediction, farthest from 1; target within 15%).
#
# Environment: RATE (default 40mbit: 24 directed links, ~1 Gbit/s in all),
# SIZES, ITERS (default 3), CALIB_REPS (default 9), EXTRA_MCA (more mpirun options for every run,
# e.g. "--mca btl_tcp_rdma_pipeline_frag_size 131072"), THEMIS_BUILD_DIR,
# THEMIS_NETGRAPH_PREFIX (default ntgtacos), THEMIS_NETGRAPH_SMALL_FIRST=1
# (htb with small packets first instead of tbf, netbed/README.md).  Needs
# root; run it under `flock /tmp/themis-netbed.lock` on a shared machine.
set -uo pipefail
# shellcheck source=benchmarks/netgraph_lib.sh
. "$(dirname "$0")/netgraph_lib.sh"
rate=${RATE:-40mbit}
sizes=${SIZES:-"1179648 4718592 18874368"}
iters=${ITERS:-3}
export THEMIS_NETGRAPH_PREFIX=${THEMIS_NETGRAPH_PREFIX:-ntgtacos}
units=1152

calib=$BUILD/benchmarks/duplex_calib
for f in "$plan" "$bench" "$calib" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || { echo "netgraph_tacos: $f missing (make; make check TESTS=)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/netgraph-tacos.XXXXXX")
cleanup() { "$ng" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

us() { sed -n 's/^collective_us=\([0-9.]*\).*/\1/p'; }
"$plan" bed --graph "mesh2d:3x3,bw=$rate,lat=0ns" --scale 1 --graph-out "$work/graph.txt" >"$work/bed.plan" || exit 1
dims="biring:3:$rate:0ns_biring:3:$rate:0ns"
"$plan" export --msccl "$work/themis.xml" --topo "$dims" --coll ar --count $units \
    --algorithm themis --chunks 4 --chunks-in-flight 2 >/dev/null || exit 1
"$ng" up "$work/bed.plan" || exit 1
"$ng" check >/dev/null || { echo "netgraph_tacos: bed check failed" >&2; exit 1; }

mapfile -t common < <(launch_opts path op)
# shellcheck disable=SC2206
common+=(--mca mpi_yield_when_idle 1 ${EXTRA_MCA:-})
mapfile -t themis_coll < <(launch_opts coll)
themis_coll+=(--mca coll_themis_min_bytes 0)
declare -A args
args[tacos]="${themis_coll[*]} --mca coll_themis_allreduce_algorithm tacos --mca coll_themis_graph $work/graph.txt"
args[ring]="--mca coll tuned,inter,libnbc,basic,self --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4"
args[themis]="${themis_coll[*]} --mca coll_themis_allreduce_algorithm themis --mca coll_themis_dims 3x3 --mca coll_themis_dim_kinds biring,biring --mca coll_themis_chunks 4 --mca coll_themis_chunks_in_flight 2"

# predict ALGO SIZE F: the link simulator's last line for ALGO at --duplex F.
predict() {
    case $1 in
        tacos) "$plan" synth --graph "$work/graph.txt" --coll ar --bytes "$2" --chunks-per-npu 1 \
                   --duplex "$3" ;;
        ring) "$plan" xfer ring --graph "$work/graph.txt" --coll ar --bytes "$2" --duplex "$3" ;;
        themis) "$plan" msccl simulate "$work/themis.xml" --graph "$work/graph.txt" --bytes "$2" \
                    --duplex "$3" ;;
    esac | tail -1
}
rate_bps=$("$plan" graph "$work/graph.txt" | sed -n 's/^0 1 \([0-9]*\)Mb .*/\1000000/p')
[ -n "$rate_bps" ] || { echo "netgraph_tacos: cannot read the link rate of $work/graph.txt" >&2; exit 1; }
echo "# All-Reduce on a 3x3 mesh, every link $rate each way, $iters timed calls per size${EXTRA_MCA:+, $EXTRA_MCA}"
printf '%-8s %-10s %12s %12s %12s %8s %8s %12s\n' "# algo" "bytes" "nominal_ms" "calib_ms" \
    "measured_ms" "ratio" "r_nom" "path"
worst=1.0 runs=0
for size in $sizes; do
    # shellcheck disable=SC2086
    cal=$(timeout -k 10 600 "$ng" mpirun -- "${common[@]}" "$calib" --pairs 0-1,3-4,6-7,2-5 \
              --bytes $((size / 9)) --reps "${CALIB_REPS:-9}" 2>&1)
    calline=$(grep '^DUPLEX ' <<<"$cal")
    bps=$(sed -n 's/.* twoway_bps=\([0-9]*\).*/\1/p' <<<"$calline")
    if [ -z "$bps" ] || [ "$bps" -le 0 ]; then
        echo "netgraph_tacos: calibration at $size bytes failed" >&2
        echo "$cal" | tail -5 >&2
        exit 1
    fi
    duplex=$(awk -v b="$bps" -v r="$rate_bps" 'BEGIN { f = b / r; printf "%.6f", f < 1 ? f : 1 }')
    echo "# calibration: $calline -> --duplex $duplex"
    declare -A pred cpred
    for algo in tacos ring themis; do
        pred[$algo]=$(predict "$algo" "$size" 1 | us)
        cpred[$algo]=$(predict "$algo" "$size" "$duplex" | us)
    done
    bound=$(predict tacos "$size" 1 | sed -n 's/.*lower_bound_us=\([0-9.]*\).*/\1/p')
    printf '%-8s %-10s %12.1f %12s %12s %8s %8s %12s\n' bound "$size" \
        "$(awk -v p="$bound" 'BEGIN { print p / 1000 }')" - - - - -
    for algo in tacos themis ring; do
        # shellcheck disable=SC2086
        out=$(timeout -k 10 1200 "$ng" mpirun -- "${common[@]}" ${args[$algo]} \
                  "$bench" --coll allreduce --min "$size" --max "$size" --iters "$iters" \
                  --warmup 1 2>&1)
        line=$(grep -E "^$size " <<<"$out")
        if [ -z "$line" ] || [ -z "${pred[$algo]}" ] || [ -z "${cpred[$algo]}" ]; then
            echo "netgraph_tacos: $algo $size: no result" >&2
            echo "$out" | tail -5 >&2
            exit 1
        fi
        read -r _ _ _ _ _ valid path med <<<"$line"
        ratio=$(awk -v m="$med" -v p="${cpred[$algo]}" 'BEGIN { printf "%.3f", m / p }')
        rnom=$(awk -v m="$med" -v p="${pred[$algo]}" 'BEGIN { printf "%.3f", m / p }')
        worst=$(awk -v w="$worst" -v r="$ratio" \
                    'BEGIN { d = r > 1 ? r - 1 : 1 - r; dw = w > 1 ? w - 1 : 1 - w;
                             print (d > dw ? r : w) }')
        runs=$((runs + 1))
        printf '%-8s %-10s %12.1f %12.1f %12.1f %8s %8s %12s\n' "$algo" "$size" \
            "$(awk -v p="${pred[$algo]}" 'BEGIN { print p / 1000 }')" \
            "$(awk -v p="${cpred[$algo]}" 'BEGIN { print p / 1000 }')" \
            "$(awk -v m="$med" 'BEGIN { print m / 1000 }')" "$ratio" "$rnom" "$path/$valid"
    done
done
echo "worst_ratio=$worst runs=$runs"
