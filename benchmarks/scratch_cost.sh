#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# What bounding the engine scratch costs (issue: memory held after large
# calls).  MPI_Reduce_scatter_block and MPI_Allgather of 64 MiB and 1 GiB
# (full vector) on np 2 over shared memory, with
#   default    coll_themis_scratch_max 256 MiB: calls above it run in
#              segments (4 at 1 GiB), a rank keeps at most ~256 MiB
#   small      coll_themis_scratch_max 64 MiB (16 segments at 1 GiB)
#   unbounded  coll_themis_scratch_max 0: one segment, the whole vector's
#              scratch kept for the life of the communicator
# in alternating rounds (so that all see the same machine), then the
# median latency of each and the ratios to unbounded.  Target: default
# within 10% at 1 GiB (each segment adds a pipeline fill and drain); at
# 64 MiB all are one segment, so the ratios are the A/A noise.
#
#   scratch_cost.sh [--rounds N] [--out DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
out=$top/benchmarks/out
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "usage: $0 [--rounds N] [--out DIR]" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
bin=$top/benchmarks/osu_coll_latency
[ -x "$bin" ] || { echo "build first: make check TESTS=" >&2; exit 1; }
# shellcheck source=tools/launch.sh
THEMIS_BUILD_DIR=$top . "$top/tools/launch.sh"
mapfile -t common < <(launch_opts oversubscribe themis op vader)
csv=$out/scratch_cost.csv
echo "round,coll,bytes,variant,median_us" >"$csv"

one() {  # COLL BYTES VARIANT SCRATCH_MAX
    local tmp iters=10 tmpo
    [ "$2" -gt 100000000 ] && iters=4
    tmp=$(mktemp -d)
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    med=$("$MPIRUN" -np 2 "${common[@]}" "${tmpo[@]}" --bind-to core --mca coll_themis_min_bytes 0 \
        --mca coll_themis_scratch_max "$4" \
        "$bin" --coll "$1" --min "$2" --max "$2" --iters "$iters" --warmup 1 \
        --budget 100000000000 2>&1 | awk '/^ *[0-9]/ && $6 == "Pass" { print $NF }')
    rm -rf "$tmp"
    [ -n "$med" ] || { echo "run failed: $1 $2 $3" >&2; exit 1; }
    echo "$r,$1,$2,$3,$med" >>"$csv"
}

for r in $(seq 1 "$rounds"); do
    for coll in reduce_scatter_block allgather; do
        for bytes in 67108864 1073741824; do
            one "$coll" "$bytes" default 268435456
            one "$coll" "$bytes" small 67108864
            one "$coll" "$bytes" unbounded 0
        done
    done
done

echo "# scratch_cost: np 2, vader, $rounds rounds; median of per-round medians (us)"
median() {  # COLL BYTES VARIANT
    awk -F, -v c="$1" -v n="$2" -v v="$3" '$2 == c && $3 == n && $4 == v { print $5 }' "$csv" \
        | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
printf '%-22s %12s %12s %12s %12s %9s %9s\n' coll bytes default small unbounded \
    default/u small/u
for coll in reduce_scatter_block allgather; do
    for bytes in 67108864 1073741824; do
        d=$(median "$coll" "$bytes" default)
        s=$(median "$coll" "$bytes" small)
        u=$(median "$coll" "$bytes" unbounded)
        printf '%-22s %12s %12.1f %12.1f %12.1f %9.3f %9.3f\n' "$coll" "$bytes" "$d" "$s" "$u" \
            "$(awk -v a="$d" -v b="$u" 'BEGIN { print a / b }')" \
            "$(awk -v a="$s" -v b="$u" 'BEGIN { print a / b }')"
    done
done
