#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# MPI correctness suite for coll/themis: runs tests/mpi/coll_matrix under
# mpirun over process counts (2..8, 8 oversubscribed), declared shapes
# (2x2, 3x2, 2x3, 4x2, 2x2x2) and automatic ones, both schedulers, both
# intra-dimension orders and three transports (ob1+vader, ob1+tcp,
# cm+ofi/tcp), then the fallback cases (default min_bytes, ranks that
# disagree, bad parameters) and one small run under valgrind.  Prints one
# PASS:/FAIL: line per (program, configuration).
#
# The full datatype x op matrix runs once (np 4, 2x2, vader, with the
# 1000003-element cases); every other configuration runs a reduced matrix
# of representative types, so the suite takes about two minutes on two
# cores.  Every run uses --mca op ^avx: op/avx in Open MPI 4.1.4 saturates
# 8/16-bit integer sums (ompi#8045); coll_matrix's inputs never overflow,
# so this only keeps all themis tests on the same op component.
#
# Environment:
#   THEMIS_BUILD_DIR      build tree holding the component and the test
#                         programs (default: the repository root)
#   THEMIS_TEST_LOG_DIR   where per-run logs go (default: BUILD/tests/logs)
#   THEMIS_TEST_VALGRIND  0 skips the valgrind run
#   THEMIS_TEST_FILTER    extended regex: run only the configurations whose
#                         description matches (for debugging)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${THEMIS_BUILD_DIR:-$top}
log_dir=${THEMIS_TEST_LOG_DIR:-$BUILD/tests/logs}/mpi
comp_dir=$BUILD/ompi/mca/coll/themis/.libs
prog=$BUILD/tests/mpi/coll_matrix
ompi_comp_dir=$(ompi_info --path pkglibdir 2>/dev/null | sed 's/.*: *//')
[ -d "$ompi_comp_dir" ] || ompi_comp_dir=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
mkdir -p "$log_dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# ------------------------------------------------------------ preconditions
# A missing component is a failure, not a skip: every later PASS would
# otherwise only prove that coll/tuned works.
if [ ! -f "$comp_dir/mca_coll_themis.so" ]; then
    echo "FAIL: component loaded ($comp_dir/mca_coll_themis.so not found: build it with" \
         "'make ompi/mca/coll/themis/mca_coll_themis.la' or set THEMIS_BUILD_DIR)"
    exit 1
fi
if [ ! -x "$prog" ]; then
    echo "FAIL: coll_matrix ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi
# (ompi_info takes the component path from the environment, not --mca.)
info=$(OMPI_MCA_mca_base_component_path="$comp_dir:$ompi_comp_dir" \
       ompi_info --param coll themis --level 9 2>&1)
if grep -q 'coll_themis_min_bytes' <<<"$info"; then
    echo "PASS: component loaded (ompi_info lists coll/themis from $comp_dir)"
else
    echo "FAIL: component loaded (ompi_info does not list coll/themis from $comp_dir:" \
         "$(head -n 3 <<<"$info" | tr '\n' ' '))"
    exit 1
fi

# ------------------------------------------------------------ one run
# shellcheck disable=SC2054  # the commas separate MCA component names
common=(--oversubscribe
        --mca coll themis,inter,tuned,libnbc,basic,self
        --mca mca_base_component_path "$comp_dir:$ompi_comp_dir"
        --mca op ^avx)
# shellcheck disable=SC2054
VADER=(--mca pml ob1 --mca btl vader,self)
# shellcheck disable=SC2054
TCP=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
OFI=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_exclude none -x FI_PROVIDER=tcp)
MIN0=(--mca coll_themis_min_bytes 0)

# Set before each call to run:
#   opts      mpirun options of the configuration
#   args      coll_matrix arguments
#   launcher  command put in front of the program (wrapper, valgrind)
#   need      extended regexes the output must contain (the component's
#             messages for step-aside cases)
opts=(); args=(); launcher=(); need=()
failures=0

# run DESCRIPTION TIMEOUT NP
run() {
    local desc=$1 tmo=$2 np=$3
    local tmp log rc why="" start=$SECONDS
    if [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=$np $desc"; then
        return 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-mpi.XXXXXX")
    log="$log_dir/$(printf '%s' "np$np $desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    timeout -k 10 "$tmo" mpirun -np "$np" "${common[@]}" --mca orte_tmpdir_base "$tmp" \
        "${opts[@]}" "${launcher[@]}" "$prog" "${args[@]}" >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        why="timed out after ${tmo}s"
    elif grep -q '^error: ' "$log"; then
        why="$(grep -c '^error: ' "$log") error lines, exit $rc"
    elif [ "$rc" -ne 0 ]; then
        why="exit $rc"
    elif ! grep -q '^coll_matrix: ' "$log"; then
        why="no summary line"
    fi
    if [ -z "$why" ]; then
        for re in "${need[@]}"; do
            if ! grep -Eq -- "$re" "$log"; then
                why="expected message /$re/ not in the output"
                break
            fi
        done
    fi
    if [ -z "$why" ]; then
        echo "PASS: coll_matrix np=$np $desc ($((SECONDS - start))s)"
        return 0
    fi
    failures=$((failures + 1))
    echo "FAIL: coll_matrix np=$np $desc ($why; log $log)"
    if grep -q '^error: ' "$log"; then
        grep '^error: ' "$log" | head -n 12 | sed 's/^/    | /'
    else
        tail -n 15 "$log" | sed 's/^/    | /'
    fi
    return 1
}

# ------------------------------------------------------------ themis path
# Each configuration: transport, shape, scheduler/order, matrix.  Eligible
# calls must run on themis (min_bytes 0 so that small counts do too).
matrix() {  # DESCRIPTION TIMEOUT NP LEVEL [extra mpirun options...]
    local desc=$1 tmo=$2 np=$3 level=$4
    shift 4
    opts=("${MIN0[@]}" "$@"); args=(--level "$level"); launcher=(); need=()
    [ "$level" = full ] && args+=(--big)
    run "$desc $level" "$tmo" "$np"
}
S=(--mca coll_themis_scheduler)
O=(--mca coll_themis_intra_order)
D=(--mca coll_themis_dims)

matrix "2x2 vader themis/fifo" 300 4 full "${VADER[@]}" "${D[@]}" 2x2 "${S[@]}" themis "${O[@]}" fifo
matrix "auto vader themis/scf chunks=1" 120 2 reduced "${VADER[@]}" "${S[@]}" themis "${O[@]}" scf \
    --mca coll_themis_chunks 1
matrix "auto tcp baseline/fifo" 120 3 reduced "${TCP[@]}" "${S[@]}" baseline "${O[@]}" fifo
matrix "auto vader baseline/scf in-flight=1" 120 4 reduced "${VADER[@]}" "${S[@]}" baseline \
    "${O[@]}" scf --mca coll_themis_chunks_in_flight 1
matrix "2x2 tcp themis/scf" 120 4 reduced "${TCP[@]}" "${D[@]}" 2x2 "${S[@]}" themis "${O[@]}" scf
matrix "auto vader themis/fifo chunks=5" 120 5 reduced "${VADER[@]}" "${S[@]}" themis \
    "${O[@]}" fifo --mca coll_themis_chunks 5
matrix "3x2 vader themis/scf in-flight=4" 120 6 reduced "${VADER[@]}" "${D[@]}" 3x2 \
    "${S[@]}" themis "${O[@]}" scf --mca coll_themis_chunks_in_flight 4
matrix "2x3 tcp baseline/fifo" 120 6 reduced "${TCP[@]}" "${D[@]}" 2x3 "${S[@]}" baseline \
    "${O[@]}" fifo
matrix "4x2 vader themis/fifo chunks=64" 180 8 reduced "${VADER[@]}" "${D[@]}" 4x2 \
    "${S[@]}" themis "${O[@]}" fifo --mca coll_themis_chunks 64
matrix "2x2x2 vader baseline/scf" 180 8 reduced "${VADER[@]}" "${D[@]}" 2x2x2 "${S[@]}" baseline \
    "${O[@]}" scf
matrix "2x2 ofi themis/scf" 180 4 reduced "${OFI[@]}" "${D[@]}" 2x2 "${S[@]}" themis "${O[@]}" scf
matrix "3x2 ofi baseline/fifo" 180 6 tiny "${OFI[@]}" "${D[@]}" 3x2 "${S[@]}" baseline "${O[@]}" fifo

# ------------------------------------------------------------ fallbacks
# Default min_bytes: one int falls back, a large vector runs themis.
opts=("${VADER[@]}" "${D[@]}" 2x2); args=(--level minbytes); launcher=(); need=()
run "2x2 vader default min_bytes: small calls fall back" 120 4

# Ranks that disagree step aside: correct results, no themis call, some
# fallbacks, the component's message, no hang.
opts=("${MIN0[@]}" "${VADER[@]}" "${D[@]}" 2x2); args=(--level tiny --expect fallback)
launcher=("$here/rank_env.sh" 1 OMPI_MCA_coll_themis_chunks=8 --)
need=('given different coll.themis parameters')
run "2x2 vader rank 1 chunks=8: disagreement steps aside" 120 4

opts=("${MIN0[@]}" "${TCP[@]}"); args=(--level tiny --expect fallback)
launcher=("$here/rank_env.sh" 2 OMPI_MCA_coll_themis_scheduler=baseline --)
need=('given different coll.themis parameters')
run "auto tcp rank 2 scheduler=baseline: disagreement steps aside" 120 3

# Bad values: a clear message and correct results through the fallback.
opts=("${MIN0[@]}" "${VADER[@]}" "${D[@]}" 3x3); args=(--level tiny --expect fallback)
launcher=(); need=('cannot use the requested shape' 'coll_themis_dims.*3x3')
run "vader dims=3x3 on 4 ranks: bad shape steps aside" 120 4

opts=("${MIN0[@]}" "${VADER[@]}" "${S[@]}" bogus); args=(--level tiny --expect fallback)
launcher=(); need=('invalid MCA parameter' 'coll_themis_scheduler.*bogus')
run "vader scheduler=bogus: bad parameter steps aside" 120 4

# ------------------------------------------------------------ valgrind
# Errors or definite leaks whose stack goes through coll/themis fail; Open
# MPI's own startup leaks are only counted.  dlclose is disabled so that
# the component's frames keep their names.
if [ "${THEMIS_TEST_VALGRIND:-1}" = 0 ]; then
    echo "SKIP: valgrind (THEMIS_TEST_VALGRIND=0)"
elif ! command -v valgrind >/dev/null; then
    echo "SKIP: valgrind (not installed: apt-get install valgrind)"
else
    vg_dir=$(mktemp -d "${TMPDIR:-/tmp}/themis-vg.XXXXXX")
    supp=()
    [ -f /usr/share/openmpi/openmpi-valgrind.supp ] \
        && supp=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
    opts=("${MIN0[@]}" "${VADER[@]}" --mca mca_base_component_disable_dlclose 1)
    args=(--level tiny); need=()
    launcher=(valgrind --leak-check=full --show-leak-kinds=definite --num-callers=40
              "${supp[@]}" "--log-file=$vg_dir/vg.%q{OMPI_COMM_WORLD_RANK}.log")
    if run "vader under valgrind" 400 2; then
        if vg_out=$(bash "$here/valgrind_check.sh" "$vg_dir"/vg.*.log 2>&1); then
            # One line: "vg.0.log: 4 error and 19 definite-leak records, ...; vg.1.log: ..."
            # shellcheck disable=SC2001
            summary=$(sed 's/^valgrind: .*\/\(vg\.[^:]*\): /\1: /' <<<"$vg_out" | paste -sd ';' -)
            echo "PASS: valgrind: no errors or definite leaks in coll/themis ($summary)"
            rm -rf "$vg_dir"
        else
            failures=$((failures + 1))
            echo "FAIL: valgrind: records in coll/themis (logs in $vg_dir)"
            echo "$vg_out" | head -n 60 | sed 's/^/    | /'
        fi
    else
        echo "    | valgrind logs in $vg_dir"
    fi
fi

[ "$failures" -eq 0 ]
