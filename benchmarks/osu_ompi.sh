#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The OSU Micro-Benchmarks 7.x, unmodified, on coll/themis: builds
# osu_allreduce, osu_reduce_scatter and osu_allgather and the nonblocking
# osu_iallreduce, osu_ireduce_scatter and osu_iallgather (which also report
# pure communication time and overlap) from an OSU source
# tree with the mpicc of the Open MPI under test, runs each with -c
# (validation) on coll/themis, and reads coll/themis' MPI_T counters of
# every rank at MPI_Finalize through a preloaded PMPI library
# (benchmarks/themis_pvar_dump.c).  PASS when every size validates and the
# counters show the calls on the themis path (coll_themis_min_bytes 0
# puts every size there: within one node the default sends calls under
# 32 MiB to the previous component), for the nonblocking ones with no
# fallback (each is the first call on MPI_COMM_WORLD: the nonblocking
# setup).
#
#   benchmarks/osu_ompi.sh --osu DIR [--np 4] [--dims 2x2] [--out DIR] [--iters N]
#
#   --osu DIR   OSU source tree (a release tarball's directory, or a git
#               checkout holding the generated configure)
#   THEMIS_OMPI=PREFIX   the Open MPI (default: mpicc/mpirun on the PATH);
#   THEMIS_BUILD_DIR     the themis build for it (default: this checkout)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
osu='' np=4 dims=2x2 out='' iters=50
while [ $# -gt 0 ]; do
    case $1 in
        --osu) osu=$2; shift 2 ;;
        --np) np=$2; shift 2 ;;
        --dims) dims=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        *) echo "usage: $0 --osu DIR [--np N] [--dims DIMS] [--out DIR] [--iters N]" >&2; exit 2 ;;
    esac
done
[ -n "$osu" ] && [ -x "$osu/configure" ] || { echo "osu_ompi: --osu DIR must hold OSU's configure" >&2; exit 2; }
osu=$(cd "$osu" && pwd)
build=${THEMIS_BUILD_DIR:-$top}
bin=${THEMIS_OMPI:+$THEMIS_OMPI/bin/}
out=${out:-$build/benchmarks/out/osu_ompi}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# shellcheck source=tools/launch.sh
THEMIS_BUILD_DIR=$build . "$top/tools/launch.sh"
mapfile -t common < <(launch_opts oversubscribe themis op)
version=$("${bin}ompi_info" --parsable 2>/dev/null | sed -n 's/^ompi:version:full://p')
[ -f "$comp_dir/mca_coll_themis.so" ] || { echo "FAIL: osu: $comp_dir/mca_coll_themis.so not built"; exit 1; }

echo "osu_ompi: Open MPI $version, OSU from $osu, np $np, dims $dims"
# OSU, out of its source tree, once per Open MPI (the binaries link it).
ob=$out/osu-build
if [ ! -x "$ob/c/mpi/collective/non_blocking/osu_iallgather" ]; then
    mkdir -p "$ob"
    if ! (cd "$ob" && "$osu/configure" CC="${bin}mpicc" CXX="${bin}mpicxx" >"$out/osu-configure.log" 2>&1 \
          && make -C c/mpi/collective/blocking osu_allreduce osu_reduce_scatter osu_allgather \
             >"$out/osu-make.log" 2>&1 \
          && make -C c/mpi/collective/non_blocking osu_iallreduce osu_ireduce_scatter \
             osu_iallgather >>"$out/osu-make.log" 2>&1); then
        echo "FAIL: osu: build (logs $out/osu-configure.log, $out/osu-make.log)"
        exit 1
    fi
fi
dump=$out/libthemis_pvar_dump.so
if ! "${bin}mpicc" -shared -fPIC -std=gnu11 -O2 -I"$top/tests/mpi" -o "$dump" \
        "$top/benchmarks/themis_pvar_dump.c" "$top/tests/mpi/themis_counters.c" >"$out/dump-cc.log" 2>&1; then
    echo "FAIL: osu: themis_pvar_dump builds (log $out/dump-cc.log)"
    exit 1
fi

failures=0
for pair in blocking/osu_allreduce:allreduce blocking/osu_reduce_scatter:reduce_scatter \
            blocking/osu_allgather:allgather non_blocking/osu_iallreduce:iallreduce \
            non_blocking/osu_ireduce_scatter:ireduce_scatter non_blocking/osu_iallgather:iallgather; do
    dir=${pair%%/*} b=${pair#*/} b=${b%%:*} coll=${pair#*:}
    log=$out/$b.log tmp=$(mktemp -d)
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 900 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        --mca coll_themis_dims "$dims" --mca coll_themis_min_bytes 0 \
        -x LD_PRELOAD="$dump" \
        "$ob/c/mpi/collective/$dir/$b" -c -i "$iters" -x 5 >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
    sizes=$(grep -cE '^[0-9]+ ' "$log")
    bad=$(grep -E '^[0-9]+ ' "$log" | grep -vc 'Pass')
    # Column "coll C/F" of every rank's themis_pvars line: sum of C.
    calls=$(sed -n "s/.* $coll \([0-9]*\)\/\([0-9]*\).*/\1/p" "$log" | awk '{s += $1} END {print s + 0}')
    fallbacks=$(sed -n "s/.* $coll \([0-9]*\)\/\([0-9]*\).*/\2/p" "$log" | awk '{s += $1} END {print s + 0}')
    [ "$dir" = blocking ] && fallbacks=0   # blocking rows: calls checked only, as before
    ranks=$(grep -c '^themis_pvars: rank' "$log")
    if [ "$rc" -eq 0 ] && [ "$sizes" -gt 0 ] && [ "$bad" -eq 0 ] && [ "$ranks" -eq "$np" ] \
       && [ "$calls" -gt 0 ] && [ "$fallbacks" -eq 0 ]; then
        echo "PASS: osu $b -c: $sizes sizes validated, coll_themis_${coll}_calls $calls over $ranks ranks, 0 fallbacks"
    else
        failures=$((failures + 1))
        echo "FAIL: osu $b -c (exit $rc, $sizes sizes, $bad not Pass, counters of $ranks/$np ranks, ${coll}_calls $calls, fallbacks $fallbacks; log $log)"
        tail -n 15 "$log" | sed 's/^/    | /'
    fi
    grep -E '^(#|[0-9]+ )' "$log" | sed 's/^/    /'
    grep '^themis_pvars: rank 0' "$log" | sed 's/^/    /'
done
[ "$failures" -eq 0 ]
