#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The link-level simulator against real traffic: a ring All-Reduce on a
# graph, predicted by `themis-plan xfer ring` and measured on the test bed
# built from the same graph (benchmarks/netbed/netgraph: one tbf-shaped
# veth per link, at the graph's rates, routes from `themis-plan
# bed`).  The measured ring is the very schedule that was simulated:
# themis-plan writes it as MSCCL-XML and coll/themis runs it
# (coll_themis_allreduce_schedule), proven by the MPI_T path column.
#
# Graph: p3.16xlarge (optimal-message-scheduling-for-aggregation.txt) with
# one NVLink = RATE (dual links 2 x RATE); latency 0 (the bed has no
# netem).  Ring orders:
#   hamiltonian  0,1,3,2,6,7,5,4: every hop a dual link
#   identity     0..7: single links and routed two-hop pairs, links shared
# Output per (order, size): predicted and measured time and their ratio;
# last line `worst_ratio=X orders=N sizes=M` (measured / predicted, the
# one farthest from 1).  The issue's target: within 15%.
#
# Environment: RATE (default 50mbit), SIZES (bytes, default "4194304
# 16777216"), ITERS (default 5), THEMIS_BUILD_DIR.  Needs root.
set -uo pipefail
# shellcheck source=benchmarks/netgraph_lib.sh
. "$(dirname "$0")/netgraph_lib.sh"
rate=${RATE:-50mbit}
sizes=${SIZES:-"4194304 16777216"}
iters=${ITERS:-5}
export THEMIS_NETGRAPH_PREFIX=${THEMIS_NETGRAPH_PREFIX:-tngring}

mapfile -t common < <(launch_opts themis op)
for f in "$plan" "$bench" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || { echo "netgraph_ring: $f missing (make; make check TESTS=)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/netgraph-ring.XXXXXX")
cleanup() { "$ng" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

"$plan" bed --graph "p3.16xlarge,bw=$rate,lat=0ns" --scale 1 --graph-out "$work/graph.txt" >"$work/bed.plan" || exit 1
"$ng" up "$work/bed.plan" || exit 1
"$ng" check >/dev/null || { echo "netgraph_ring: bed check failed" >&2; exit 1; }

echo "# ring All-Reduce on p3.16xlarge, one NVLink = $rate, $iters timed calls per size"
printf '%-12s %-10s %14s %14s %8s %8s\n' "# order" "bytes" "predicted_ms" "measured_ms" "ratio" "path"
worst=1.0 norders=0
for spec in hamiltonian:0,1,3,2,6,7,5,4 identity:0,1,2,3,4,5,6,7; do
    name=${spec%%:*} order=${spec#*:}
    norders=$((norders + 1))
    for size in $sizes; do
        pred=$("$plan" xfer ring --graph "$work/graph.txt" --coll ar --bytes "$size" \
                   --order "$order" --msccl "$work/$name.xml" | tail -1 |
               sed -n 's/^collective_us=\([0-9.]*\) .*/\1/p')
        out=$(timeout -k 10 900 "$ng" mpirun -- "${common[@]}" \
                  --mca coll_themis_allreduce_schedule "$work/$name.xml" \
                  --mca coll_themis_min_bytes 0 --mca mpi_yield_when_idle 1 \
                  "$bench" --coll allreduce --min "$size" --max "$size" --iters "$iters" \
                  --warmup 1 2>&1)
        line=$(grep -E "^$size " <<<"$out")
        if [ -z "$line" ] || [ -z "$pred" ]; then
            echo "netgraph_ring: $name $size: no result" >&2
            echo "$out" | tail -5 >&2
            exit 1
        fi
        read -r _ _ _ _ _ valid path med <<<"$line"
        ratio=$(awk -v m="$med" -v p="$pred" 'BEGIN { printf "%.3f", m / p }')
        worst=$(awk -v w="$worst" -v r="$ratio" \
                    'BEGIN { d = r > 1 ? r - 1 : 1 - r; dw = w > 1 ? w - 1 : 1 - w;
                             print (d > dw ? r : w) }')
        printf '%-12s %-10s %14.1f %14.1f %8s %8s\n' "$name" "$size" \
            "$(awk -v p="$pred" 'BEGIN { print p / 1000 }')" \
            "$(awk -v m="$med" 'BEGIN { print m / 1000 }')" "$ratio" "$path/$valid"
    done
done
echo "worst_ratio=$worst orders=$norders sizes=$(wc -w <<<"$sizes")"
