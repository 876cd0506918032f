#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The whole test suite: builds (installing missing packages), runs the
# static checks (tests/check_static.sh: bash -n, shellcheck, clang-format),
# every unit test, every MPI test and short fuzz runs of the parsers on Debian's
# Open MPI 4.1.4, then the unit tests and the MPI correctness suites on
# Open MPI 5.0.9 (built once), and ends with "N passed, M failed".
# Every program prints PASS:/FAIL:/SKIP: lines; `make check` runs them under
# tests/suite_driver.sh (a log and a result per case), this script adds up.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log_dir=${THEMIS_TEST_LOG_DIR:-$top/tests/logs}
mkdir -p "$log_dir"

export THEMIS_TEST_LOG_DIR=$log_dir

# `make check` runs every program under tests/suite_driver.sh, which prints
# each case's PASS:/FAIL:/SKIP: line and writes one result per case into
# the program's .trs; the counts below are those results.
passed=0; failed=0; skipped=0
count() {   # DIR: add the results of the .trs files `make check` left there
    local d=$1 p fl s
    local trs=()
    # the suites' own logs (tests/logs) may hold builds of their own: not ours
    mapfile -t trs < <(find "$d/tests" -path "$d/tests/logs" -prune -o -name '*.trs' -print)
    p=$(cat /dev/null "${trs[@]}" | grep -c '^:test-result: PASS' || true)
    fl=$(cat /dev/null "${trs[@]}" | grep -cE '^:test-result: (FAIL|ERROR)' || true)
    s=$(cat /dev/null "${trs[@]}" | grep -c '^:test-result: SKIP' || true)
    passed=$((passed + p)); failed=$((failed + fl)); skipped=$((skipped + s))
}
clean_results() {   # DIR: results of an earlier run must not count again
    find "$1/tests" -path "$1/tests/logs" -prune -o -name '*.trs' -exec rm -f {} + 2>/dev/null || true
    rm -f "$1/test-suite.log"
}

echo "== build"
if ! bash tools/setup.sh >"$log_dir/build.log" 2>&1; then
    tail -n 40 "$log_dir/build.log"
    echo "FAIL: build"
    echo "0 passed, 1 failed"
    exit 1
fi

# a suite that tests.mk does not list would never run
for s in tests/mpi/run_*.sh tests/netbed/run_*.sh tests/fuzz/run_*.sh tests/*.sh; do
    case $s in tests/run_all.sh | tests/suite_driver.sh) continue ;; esac
    [ -f "$s" ] || continue
    if ! grep -q "$s" tests/tests.mk; then
        echo "FAIL: $s is not among the SUITES of tests/tests.mk"
        failed=$((failed + 1))
    fi
done

echo "== make check"
clean_results "$top"
# streamed, so that a long run shows how far it got
make -s check 2>&1 | tee "$log_dir/make-check.log" | grep -vE '^(make|Making)|^=+$' | sed 's/^/   /'
count "$top"

# Open MPI 5.0.9 (THEMIS_OMPI5=0 leaves it out): built once into
# /opt/ompi-5.0.9 and reused, themis built for it in build-ompi5/
# (configured --with-ompi, so its suites launch 5.0's mpirun), then
# `make check-ompi5` there: the unit tests and the MPI correctness suites.
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
        echo "== make check-ompi5"
        clean_results "$b5"
        THEMIS_TEST_LOG_DIR="$log_dir/ompi5" make -s -C "$b5" check-ompi5 2>&1 \
            | tee "$log_dir/make-check-ompi5.log" | grep -vE '^(make|Making)|^=+$' \
            | sed 's/^/   ompi5 /'
        count "$b5"
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
