#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# What the component's shared object holds (needs a build): Open MPI sees
# only the component structure (`nm -D`), and none of the code built for
# the CLI and the tests (libthemis_offline: Clos routing, the ring/direct
# builders, the MSCCL-XML writer, the bed plan; libthemis_bound: GLPK) is
# linked into it.  The .so is built -fvisibility=hidden, so `nm` (the
# whole symbol table) is checked, not only `nm -D`; ldd shows no GLPK.
# Prints one PASS:/FAIL: line per check, the offending symbols after a FAIL.
#   THEMIS_BUILD_DIR   the build to check (default: this tree)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${THEMIS_BUILD_DIR:-$top}
so=$BUILD/ompi/mca/coll/themis/.libs/mca_coll_themis.so
offline=("$BUILD/planners/.libs/libthemis_offline.a" "$BUILD/planners/.libs/libthemis_bound.a")
failed=0

for f in "$so" "${offline[@]}"; do
    if [ ! -f "$f" ]; then
        echo "FAIL: symbols: $f not found (build first: tools/setup.sh)"
        exit 1
    fi
done

# Open MPI finds the component through its one exported symbol.
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u)
if [ "$exported" = mca_coll_themis_component ]; then
    echo "PASS: symbols: nm -D shows only mca_coll_themis_component"
else
    echo "FAIL: symbols: nm -D shows more than mca_coll_themis_component"
    sed 's/^/    | /' <<<"$exported" | head -n 20
    failed=1
fi

# Every global function or object the offline libraries define, looked up
# among all symbols of the .so (local ones included).
offline_syms=$(nm -g --defined-only "${offline[@]}" 2>/dev/null \
               | awk 'NF == 3 && $2 ~ /^[TDRB]$/ {print $3}' | sort -u)
so_syms=$(nm "$so" | awk 'NF == 3 {print $3}' | sort -u)
both=$(comm -12 <(printf '%s\n' "$offline_syms") <(printf '%s\n' "$so_syms"))
if [ -z "$offline_syms" ]; then
    echo "FAIL: symbols: no symbols in ${offline[*]}"
    failed=1
elif [ -z "$both" ]; then
    echo "PASS: symbols: none of the $(wc -l <<<"$offline_syms") offline-library symbols" \
         "is in mca_coll_themis.so"
else
    echo "FAIL: symbols: $(wc -l <<<"$both") offline-library symbols are in mca_coll_themis.so"
    sed 's/^/    | /' <<<"$both" | head -n 20
    failed=1
fi

# The MSCCL-XML writer by name: it once sat in the runtime library, where
# the check above cannot see it.
writer=$(grep -E '^themis_msccl_write$' <<<"$so_syms")
if [ -z "$writer" ]; then
    echo "PASS: symbols: no MSCCL-XML writer in mca_coll_themis.so"
else
    echo "FAIL: symbols: the MSCCL-XML writer (themis_msccl_write) is in mca_coll_themis.so"
    failed=1
fi

if ldd "$so" | grep -q 'libglpk'; then
    echo "FAIL: symbols: mca_coll_themis.so links GLPK (ldd)"
    ldd "$so" | grep libglpk | sed 's/^/    | /'
    failed=1
else
    echo "PASS: symbols: ldd shows no GLPK in mca_coll_themis.so"
fi
exit $failed
