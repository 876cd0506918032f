#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# coll/themis under AddressSanitizer + UndefinedBehaviorSanitizer: builds
# the component and tests/mpi/coll_matrix with -fsanitize=address,undefined
# in a separate VPATH build (the in-tree build is untouched), then runs a
# few correctness configurations under mpirun (np 4: the full matrix on
# 2x2, the reduced one on shape 4, an automatic shape and a 2x2 torus with
# torus2d).  Prints one PASS:/FAIL: line per
# configuration: FAIL when the results are wrong or there is any sanitizer
# report (each is shown with its frames, marked when they include our
# code: the component, the planners or coll_matrix).
#
# The source is copied (tracked and new files of the working tree) to
# LOG_DIR/sanitizer/src, because an in-place configured tree refuses VPATH
# builds; only changed files are copied, so a second run only rebuilds
# what changed.  mpirun and orted are not instrumented: the ranks get
# libasan and libubsan through LD_PRELOAD.  Leaks are not checked (Open
# MPI's own are not ours; the valgrind run in run_mpi_tests.sh counts
# definite leaks through coll/themis).  ASan reports go to
# LOG_DIR/sanitizer/reports/CASE/asan.PID; UBSan's (which ignores log_path
# beside ASan) are taken from the run's log into .../CASE/stderr.
#
# Before the MPI runs, the planners without MPI: `make check` (the unit
# tests, leaks counted) and themis-plan on good and bad input, built in
# the same tree; any report fails.
#
# On two cores at load 13: 1-2 minutes for a fresh build (seconds when
# little changed), about 65 s for make check and 70 s for the MPI runs.
#
# Environment:
#   THEMIS_TEST_LOG_DIR   where the build, logs and reports go (default tests/logs)
#   THEMIS_TEST_FILTER    extended regex: run only the matching configurations
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export THEMIS_TEST_LOG_DIR=${THEMIS_TEST_LOG_DIR:-$top/tests/logs}
san=$THEMIS_TEST_LOG_DIR/sanitizer
src=$san/src
build=$san/build
mkdir -p "$src" "$build"

libasan=$(gcc -print-file-name=libasan.so)
libubsan=$(gcc -print-file-name=libubsan.so)
if [ ! -e "$libasan" ] || [ ! -e "$libubsan" ]; then
    echo "SKIP: sanitizer (gcc's libasan.so/libubsan.so not found: apt-get install build-essential)"
    exit 0
fi
if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    echo "SKIP: sanitizer (not a git checkout: the source copy lists files with git)"
    exit 0
fi

# ------------------------------------------------------------ build
build_start=$SECONDS
(
    set -e
    cd "$top"
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        if [ -f "$f" ] && ! cmp -s "$f" "$src/$f"; then
            mkdir -p "$src/$(dirname "$f")"
            cp "$f" "$src/$f"
        fi
    done
    cd "$src"
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] \
       || [ tests/tests.mk -nt Makefile.in ]; then
        autoreconf -fi
    fi
    cd "$build"
    if [ ! -f Makefile ] || [ "$src/configure" -nt config.status ]; then
        "$src/configure" --quiet \
            CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
            LDFLAGS="-fsanitize=address,undefined"
    fi
    make -j2 ompi/mca/coll/themis/mca_coll_themis.la tests/mpi/coll_matrix tools/themis-plan
    make -j2 check TESTS=
) >"$san/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: sanitizer: ASan+UBSan build (exit $rc; log $san/build.log)"
    tail -n 15 "$san/build.log" | sed 's/^/    | /'
    exit 1
fi
echo "PASS: sanitizer: ASan+UBSan build of coll/themis and coll_matrix in $build" \
     "($((SECONDS - build_start))s)"

# ------------------------------------------------- make check and the CLI
# The planners under the sanitizers without MPI: `make check-unit` (the
# unit tests; leaks count there) and themis-plan on good and bad input.  Any
# report fails (halt_on_error; UBSan reports go to the test's log).
san_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
         UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
check_start=$SECONDS
check_failed=0
if [ -z "${THEMIS_TEST_FILTER:-}" ] || grep -Eq -- "$THEMIS_TEST_FILTER" <<<"make check"; then
    (cd "$build" && env "${san_env[@]}" make -j2 check-unit) >"$san/check.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -qE 'runtime error:|ERROR: [A-Za-z]+Sanitizer' \
            "$san/check.log" "$build"/tests/unit/*.log 2>/dev/null; then
        echo "PASS: sanitizer make check ($(grep -c '^PASS: ' "$san/check.log") unit tests," \
             "$((SECONDS - check_start))s)"
    else
        echo "FAIL: sanitizer make check (exit $rc; log $san/check.log and $build/tests/unit/*.log)"
        grep -hE '^FAIL|runtime error:|ERROR: [A-Za-z]+Sanitizer|^ *#[0-9]+ ' "$san/check.log" \
            "$build"/tests/unit/*.log 2>/dev/null | head -n 30 | sed 's/^/    | /'
        check_failed=1
    fi
fi
# cli WANT-EXIT NAME ARGS...: themis-plan ARGS exits WANT-EXIT, no report.
cli_failed=0
cli_tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-san-cli.XXXXXX")
mkfifo "$cli_tmp/fifo"
printf '{ "rules": [ { "collective": "allreduce", "chunks": 8 } ] }\n' >"$cli_tmp/rules.json"
cli() {
    local want=$1 name=$2 rc
    shift 2
    env "${san_env[@]}" timeout -k 5 600 "$build/tools/themis-plan" "$@" \
        >"$san/cli_$name.log" 2>&1
    rc=$?
    if [ $rc -ne "$want" ] || grep -qE 'runtime error:|ERROR: [A-Za-z]+Sanitizer' \
            "$san/cli_$name.log"; then
        echo "FAIL: sanitizer cli $name (exit $rc, want $want; log $san/cli_$name.log)"
        grep -E 'runtime error:|Sanitizer|^ *#[0-9]+ ' "$san/cli_$name.log" | head -n 20 \
            | sed 's/^/    | /'
        cli_failed=1
    fi
}
if [ -z "${THEMIS_TEST_FILTER:-}" ] || grep -Eq -- "$THEMIS_TEST_FILTER" <<<"cli"; then
    cli_start=$SECONDS
    cli 0 synth_ar synth --graph torus2d:3x3 --coll ar --bytes 1M --chunks-per-npu 2
    cli 0 synth_ag synth --graph mesh2d:2x3 --coll ag --bytes 64K --chunks-per-npu 1 \
        --msccl "$cli_tmp/ag.xml"
    cli 0 msccl_ag msccl check "$cli_tmp/ag.xml"
    cli 0 msccl_teccl msccl check "$src/tests/data/msccl/teccl_amd_32.xml"
    cli 0 msccl_simulate msccl simulate "$src/tests/data/msccl/allreduce_allpairs_4.xml" \
        --graph fc:4 --bytes 1M
    cli 0 export export --msccl "$cli_tmp/ex.xml" --topo sw:4:100Gb:1us_sw:2:100Gb:2us \
        --coll allreduce --count 16
    cli 0 graph graph torus2d:4x4
    cli 0 treepack treepack --graph torus2d:3x3
    cli 0 rules rules "$cli_tmp/rules.json" --coll allreduce --comm-size 8 --bytes 1M
    cli 0 simulate simulate --topo sw:4:100Gb:1us_sw:2:100Gb:2us --coll allreduce --bytes 1M
    cli 2 msccl_bad msccl check "$src/tests/data/msccl/bad_unwritten_2.xml"
    cli 2 msccl_fifo msccl check "$cli_tmp/fifo"
    cli 2 rules_dir rules "$cli_tmp"
    cli 2 graph_fifo graph "$cli_tmp/fifo"
    [ "$cli_failed" -eq 0 ] && echo "PASS: sanitizer cli (14 commands, $((SECONDS - cli_start))s)"
fi
rm -rf "$cli_tmp"

# ------------------------------------------------------------ runs
export THEMIS_BUILD_DIR=$build
suite_label=sanitizer
suite_logs=sanitizer
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
common+=(--mca mpi_yield_when_idle 1)

# Our code in a report's frames: the component, the planners, coll_matrix.
ours='mca_coll_themis|coll_themis_[a-z_]+\.c|/planners/[a-z_/]+\.c|coll_matrix\.c'
failed=0

# case_run DESCRIPTION [mpirun options...]: coll_matrix (args, default
# --level reduced) on 4 ranks, every size on the themis path.  Any report
# fails the case: with halt_on_error the rank stops there, so the results
# are incomplete whoever is at fault.
case_run() {
    local desc=$1 reports out rc f log
    shift
    [ ${#args[@]} -gt 0 ] || args=(--level reduced)
    if [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=4 $desc"; then
        args=()
        return 0
    fi
    reports=$san/reports/$(printf '%s' "$desc" | tr -c 'A-Za-z0-9=.+-' '_')
    rm -rf "$reports"
    mkdir -p "$reports"
    opts=("${MIN0[@]}" "${VADER[@]}"
          -x "LD_PRELOAD=$libasan:$libubsan"
          -x "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:log_path=$reports/asan"
          -x "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
          "$@")
    launcher=(); need=()
    out=$(run "$desc" 600 4)
    rc=$?
    args=()
    # UBSan beside ASan ignores log_path: its reports are in the run's log
    # (the name run gives it).
    log="$log_dir/$(printf '%s' "np4 $desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    if grep -qE 'runtime error:|==ERROR: [A-Za-z]+Sanitizer' "$log" 2>/dev/null; then
        grep -E 'runtime error:|Sanitizer|^ *#[0-9]+ 0x' "$log" >"$reports/stderr"
    fi
    if [ -z "$(ls -A "$reports")" ]; then
        [ $rc -eq 0 ] || failed=$((failed + 1))
        echo "${out%)}; no sanitizer report)"
        return $rc
    fi
    failed=$((failed + 1))
    local n mine
    n=$(find "$reports" -type f | wc -l)
    mine=$(grep -lE "$ours" "$reports"/* | wc -l)
    echo "FAIL: sanitizer np=4 $desc ($n sanitizer report(s), $mine through our code; reports" \
         "in $reports; $(head -n 1 <<<"$out" | sed 's/.*(\(.*\))$/\1/'))"
    # The first report whole (what, where, allocated where); of the others
    # (mostly the same on other ranks) the kind and our first frame.
    for f in "$reports"/*; do
        if [ "$f" = "$(find "$reports" -type f | sort | head -n 1)" ]; then
            grep -E 'ERROR|runtime error|READ|WRITE|located|allocated|freed|SUMMARY|^ *#[0-9]+ ' \
                "$f" | head -n 40 | sed "s/^/    | $(basename "$f"): /"
        else
            { grep -m1 -E 'ERROR|runtime error' "$f"; grep -m1 -E "$ours" "$f"; } \
                | sed "s/^/    | $(basename "$f"): /"
        fi
    done
    return 1
}

D=(--mca coll_themis_dims)
args=(--level full)
case_run "2x2 themis/scf full" "${D[@]}" 2x2 --mca coll_themis_scheduler themis \
    --mca coll_themis_intra_order scf
case_run "4 (one dimension) themis/fifo chunks=5" "${D[@]}" 4 --mca coll_themis_intra_order fifo \
    --mca coll_themis_chunks 5
case_run "auto baseline in-flight=4" --mca coll_themis_scheduler baseline \
    --mca coll_themis_chunks_in_flight 4
args=(--level reduced --algo torus2d)
case_run "torus 2x2 torus2d" --mca coll_themis_torus 2x2 \
    --mca coll_themis_allreduce_algorithm torus2d \
    --mca coll_themis_reduce_scatter_algorithm torus2d \
    --mca coll_themis_allgather_algorithm torus2d

[ "$failed" -eq 0 ] && [ "$check_failed" -eq 0 ] && [ "$cli_failed" -eq 0 ]
