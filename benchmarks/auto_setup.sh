#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# What `auto` costs on a graph, beside what it cost before, in one run:
# benchmarks/bench_auto of this tree (the cost table built once per
# communicator, then a lookup and one rank's program per new size), the
# same source built against the planners of BEFORE (default 26187aa: the
# cost table before its setup was made cheap, issue 21; several revisions
# comma-separated, each measured in the same run), and built with
# -DBENCH_BASELINE against the planners of BASE (default c7233bc: every
# plan-cache miss costs every row at its size on the graph, without row
# states).  Process CPU time, medians (the machine is shared).  Run it one
# at a time machine-wide:
#   flock /tmp/themis-mpi.lock nice -n 5 benchmarks/auto_setup.sh
# usage: auto_setup.sh [BEFORE [BASE [REPS]]]   (THEMIS_BUILD_DIR: the build
# tree; BASE - : none; REPS for every run but BASE's at 256 ranks, default 3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${THEMIS_BUILD_DIR:-$top}
before=${1:-26187aa}
base=${2:-c7233bc}
reps=${3:-3}
bench="$build/benchmarks/bench_auto"
[ -x "$bench" ] || { echo "build $bench first (make benchmarks/bench_auto)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build_at() {   # REV OUT [CFLAGS...]: bench_auto.c against REV's planners
    local rev=$1 out=$2 f srcs=() incs=() cflags libs
    shift 2
    mkdir -p "$tmp/$rev"
    git -C "$top" archive "$rev" planners | tar -x -C "$tmp/$rev"
    # planners/ is flat in older trees and in folders by concept since
    # the relayout: every .c below it, every folder on the include path
    while IFS= read -r f; do
        case ${f##*/} in
            bound.c|lp.c|clos_ilp.c|treepack_lp.c|tacos_ilp.c) ;;   # GLPK: not linked here
            *) srcs+=("$f") ;;
        esac
    done < <(find "$tmp/$rev/planners" -name '*.c' | sort)
    while IFS= read -r f; do
        incs+=(-I"$f")
    done < <(find "$tmp/$rev/planners" -type d | sort)
    read -r -a cflags <<<"$(pkg-config --cflags json-c libxml-2.0)"
    # planners before periodic programs (issue 21) build plain ones
    grep -rqs 'int periodic;' --include=plan.h "$tmp/$rev/planners" || cflags+=(-DBENCH_PLAIN)
    read -r -a libs <<<"$(pkg-config --libs json-c libxml-2.0)"
    gcc -O2 -std=gnu11 -w "$@" "${incs[@]}" "${cflags[@]}" \
        -o "$out" "$here/bench_auto.c" "${srcs[@]}" "${libs[@]}" -lm
}
IFS=, read -r -a befores <<<"$before"
for rev in "${befores[@]}"; do
    build_at "$rev" "$tmp/bench_before_$rev"
done
[ "$base" = - ] || build_at "$base" "$tmp/bench_base" -DBENCH_BASELINE
# the first size is the first call (its program), the others new sizes
# (of three TACOS synthesis groups); BASE's misses at the first two only
# (a miss at 256 MiB takes 40 s at 64 ranks)
sizes=1048576,16777216,268435456,4096
base_sizes=1048576,16777216
one() {   # GRAPH SHAPE COLL REPS_NOW REPS_BASE
    echo "== $1 $3, sizes $sizes"
    "$bench" "$1" "$2" "$3" "$sizes" "$4" | sed 's/^/  now:  /'
    for rev in "${befores[@]}"; do
        "$tmp/bench_before_$rev" "$1" "$2" "$3" "$sizes" "$4" | sed "s/^/  $rev: /"
    done
    [ "$base" = - ] || "$tmp/bench_base" "$1" "$2" "$3" "$base_sizes" "$5" | sed "s/^/  $base: /"
}
uptime
for coll in allreduce reduce_scatter allgather; do
    one torus2d:8x8 8x8 "$coll" "$reps" "$reps"
done
# 256 ranks: BASE's miss once (it takes minutes), the others REPS times
for coll in allreduce reduce_scatter allgather; do
    one torus2d:16x16 16x16 "$coll" "$reps" 1
done
uptime
