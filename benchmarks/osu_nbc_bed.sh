#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# One test-bed session of the nonblocking OSU benchmarks (issue 24): on
# `netbed up 4x2 100mbit,100mbit`, osu_iallreduce and osu_ireduce_scatter
# at 16 MiB and osu_iallgather at 2 MiB per rank with -c -t 100 -f, on
# themis (this build), on each --variant (another build of the component,
# e.g. a base commit) and on coll/libnbc, then themis's blocking
# osu_allreduce, osu_allgather and osu_reduce_scatter at the same sizes.
# One line per run (OSU's -f columns: size overall compute init MPI_Test
# MPI_Wait pure_comm min max overlap%; blocking: size avg min max iters)
# and the MPI_T counters summed over the ranks (calls/fallbacks), which
# must show every timed call on themis.  Time it only on a quiet machine
# (the bed is CPU-bound): with the helpers' etiquette, under
# `cpu.sh quiet`.
#
#   benchmarks/osu_nbc_bed.sh --osu-out DIR [--out DIR] [--variant NAME=COMPONENT_DIR]...
#                             [--only BENCH] [--repeat N]
#
#   --osu-out   the --out directory of benchmarks/osu_ompi.sh (OSU 7.4 built
#               against Open MPI 4.1.4 in osu-build/, libthemis_pvar_dump.so)
#   --variant   a directory holding another mca_coll_themis.so, run as NAME
#   --out       where the runs' logs go (default a new temporary directory)
#   --only      one nonblocking benchmark (e.g. osu_iallgather) and its blocking twin
#   --repeat    run the nonblocking ones N times, alternating (default 1)
# Environment: THEMIS_NETBED_PREFIX (default nbcs), THEMIS_NETBED_STATE_DIR.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
osu_out="" out="" only="" repeat=1 variants=()
while [ $# -gt 0 ]; do
    case $1 in
        --osu-out) osu_out=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --variant) variants+=("$2"); shift 2 ;;
        --only) only=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        *) echo "usage: $0 --osu-out DIR [--out DIR] [--variant NAME=COMPONENT_DIR]..." \
                "[--only BENCH] [--repeat N]" >&2; exit 2 ;;
    esac
done
coll_dir=$osu_out/osu-build/c/mpi/collective
dump=$osu_out/libthemis_pvar_dump.so
if [ ! -x "$coll_dir/non_blocking/osu_iallreduce" ] || [ ! -f "$dump" ]; then
    echo "osu_nbc_bed: no OSU build or counter dump in '$osu_out' (run benchmarks/osu_ompi.sh --out DIR)" >&2
    exit 2
fi
[ -n "$out" ] || out=$(mktemp -d /tmp/osu_nbc_bed.XXXXXX)
mkdir -p "$out"
export THEMIS_NETBED_PREFIX=${THEMIS_NETBED_PREFIX:-nbcs}
export THEMIS_NETBED_STATE_DIR=${THEMIS_NETBED_STATE_DIR:-$out/state}
bed=$top/benchmarks/netbed/netbed
system_coll=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3

themis_args() {   # COMPONENT_DIR
    echo "--mca mca_base_component_path $1:$system_coll --mca coll themis,inter,tuned,libnbc,basic,self"
    echo "--mca coll_themis_dims 4x2 -x LD_PRELOAD=$dump"
}
libnbc_args="--mca coll inter,tuned,libnbc,basic,self"

# NAME ARGS DIR BENCH SIZE [OSU options]: one run, its line and counters.
run() {
    local name=$1 args=$2 dir=$3 bench=$4 size=$5 start=$SECONDS
    shift 5
    # shellcheck disable=SC2086  # args is a list of mpirun options
    timeout -k 10 400 "$bed" mpirun -- -np 8 --mca op ^avx $args "$coll_dir/$dir/$bench" \
        -m "$size:$size" -i 3 -x 1 -u 1 -c -f "$@" >"$out/$name.log" 2>&1 </dev/null
    echo "$name rc=$? $((SECONDS - start))s load $(cut -d' ' -f1 /proc/loadavg):" \
        "$(grep -E '^[0-9]+ ' "$out/$name.log" | tr -s ' ')"
    grep '^themis_pvars' "$out/$name.log" | python3 -c '
import collections, re, sys
total = collections.defaultdict(lambda: [0, 0])
for line in sys.stdin:
    for coll, calls, falls in re.findall(r"(\w+) (\d+)/(\d+)", line.split(":", 2)[2]):
        total[coll][0] += int(calls)
        total[coll][1] += int(falls)
items = " ".join(f"{c} {a}/{b}" for c, (a, b) in total.items() if a or b)
if items:
    print(sys.argv[1], "pvars summed over ranks:", items)' "$name"
}

echo "start $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
if ! "$bed" up 4x2 100mbit,100mbit >"$out/up.log" 2>&1; then
    echo "osu_nbc_bed: bed up failed (log $out/up.log)" >&2
    exit 1
fi
themis=$(themis_args "$top/ompi/mca/coll/themis/.libs")
for b in "osu_iallreduce 16777216" "osu_iallgather 2097152" "osu_ireduce_scatter 16777216"; do
    read -r bench size <<<"$b"
    [ -z "$only" ] || [ "$only" = "$bench" ] || continue
    for ((k = 1; k <= repeat; ++k)); do
        tag=$([ "$repeat" -gt 1 ] && echo "$k")
        run "themis$tag-$bench" "$themis" non_blocking "$bench" "$size" -t 100
        for v in "${variants[@]}"; do
            run "${v%%=*}$tag-$bench" "$(themis_args "${v#*=}")" non_blocking "$bench" "$size" -t 100
        done
        run "libnbc$tag-$bench" "$libnbc_args" non_blocking "$bench" "$size" -t 100
    done
done
for b in "osu_allreduce 16777216" "osu_allgather 2097152" "osu_reduce_scatter 16777216"; do
    read -r bench size <<<"$b"
    [ -z "$only" ] || [ "$only" = "osu_i${bench#osu_}" ] || continue
    run "themis-$bench" "$themis" blocking "$bench" "$size"
done
"$bed" down >"$out/down.log" 2>&1
echo "end $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
