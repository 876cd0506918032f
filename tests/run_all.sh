#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The whole test suite: builds (installing missing packages), runs every
# unit test, every MPI test and short fuzz runs of the parsers on Debian's
# Open MPI 4.1.4, then the unit tests and the MPI correctness suites on
# Open MPI 5.0.9 (built once), and ends with "N passed, M failed".
# Every suite prints PASS:/FAIL:/SKIP: lines; this script counts them.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log_dir=${THEMIS_TEST_LOG_DIR:-$top/tests/logs}
mkdir -p "$log_dir"

passed=0; failed=0; skipped=0
count() {   # count PASS/FAIL/SKIP lines of a suite's output file
    local f=$1 p fl s
    p=$(grep -c '^PASS: ' "$f" || true)
    fl=$(grep -c '^FAIL: ' "$f" || true)
    s=$(grep -c '^SKIP: ' "$f" || true)
    passed=$((passed + p)); failed=$((failed + fl)); skipped=$((skipped + s))
}
run_suite() {  # name, command...: a suite that crashes or prints nothing fails
    local name=$1; shift
    local out="$log_dir/$name.log"
    local t0=$SECONDS
    echo "== $name"
    "$@" >"$out" 2>&1
    local rc=$?
    echo "   ($name: $((SECONDS - t0)) s)"
    grep -E '^(PASS|FAIL|SKIP): ' "$out" | sed 's/^/   /'
    grep -E '^FAIL: ' "$out" >/dev/null && grep -vE '^(PASS|SKIP): ' "$out" | tail -n 40 | sed 's/^/   | /'
    if ! grep -qE '^(PASS|FAIL|SKIP): ' "$out" || { [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$out"; }; then
        echo "FAIL: $name exited $rc without reporting a failure" | tee -a "$out"
        tail -n 20 "$out" | sed 's/^/   | /'
    fi
    count "$out"
}

echo "== build"
if ! bash tools/setup.sh >"$log_dir/build.log" 2>&1; then
    tail -n 40 "$log_dir/build.log"
    echo "FAIL: build"
    echo "0 passed, 1 failed"
    exit 1
fi

for t in tests/unit/test_*; do
    [ -x "$t" ] && [ -f "$t.c" ] || continue
    run_suite "$(basename "$t")" "$t"
done
for s in tests/mpi/run_*.sh tests/netbed/run_*.sh tests/fuzz/run_*.sh; do
    [ -f "$s" ] || continue
    run_suite "$(basename "$s" .sh)" bash "$s"
done

# Open MPI 5.0.9 (THEMIS_OMPI5=0 leaves it out): built once into
# /opt/ompi-5.0.9 and reused, themis built for it in build-ompi5/, then
# the unit tests of that build and the MPI correctness suites at CI
# level, launched by 5.0's mpirun (tests/mpi/mpirun.sh).
ompi5_suites=(run_mpi_tests run_dtype_tests run_repro_tests run_msccl_tests
              run_tacos_tests run_torus_tests run_persistent_tests run_input_tests
              run_place_tests)
ompi5_tar=${THEMIS_OMPI5_TARBALL:-$top/../shared/ompi/openmpi-5.0.9-src.tar.xz}
if [ "${THEMIS_OMPI5:-1}" = 0 ]; then
    :
elif [ ! -f "$ompi5_tar" ] && [ ! -x /opt/ompi-5.0.9/bin/mpirun ]; then
    echo "SKIP: Open MPI 5.0.9 suites (neither $ompi5_tar nor /opt/ompi-5.0.9)"
    skipped=$((skipped + 1))
else
    echo "== build (Open MPI 5.0.9)"
    t0=$SECONDS
    if bash tools/setup.sh --ompi5 >"$log_dir/build-ompi5.log" 2>&1; then
        echo "   (build-ompi5: $((SECONDS - t0)) s)"
        b5=$top/build-ompi5
        for t in "$b5"/tests/unit/test_*; do
            [ -x "$t" ] && [ -f "$t.c" ] || continue
            run_suite "ompi5-$(basename "$t")" "$t"
        done
        for s in "${ompi5_suites[@]}"; do
            run_suite "ompi5-$s" env THEMIS_OMPI=/opt/ompi-5.0.9 THEMIS_BUILD_DIR="$b5" \
                THEMIS_TEST_LOG_DIR="$log_dir/ompi5" bash "tests/mpi/$s.sh"
        done
    else
        tail -n 40 "$log_dir/build-ompi5.log"
        echo "FAIL: build (Open MPI 5.0.9; log $log_dir/build-ompi5.log)"
        failed=$((failed + 1))
    fi
fi

echo
echo "tests took $SECONDS s"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
