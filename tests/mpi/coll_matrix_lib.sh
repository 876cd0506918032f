# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Shared by the suites that run tests/mpi/coll_matrix under mpirun
# (run_mpi_tests.sh, run_torus_tests.sh).  Source it after setting
#   suite_label   word in front of every PASS:/FAIL: line
#   suite_logs    sub-directory of the log directory
# It sets BUILD, comp_dir, ompi_comp_dir, prog, log_dir, the transport
# arrays and `run`, and fails the suite when the component or the program
# is missing (a skip would only prove that coll/tuned works).
# shellcheck shell=bash
: "${suite_label:?set suite_label before sourcing}" "${suite_logs:?set suite_logs before sourcing}"
lib_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# mpirun's options and "$MPIRUN" come from tools/launch.sh: the Open MPI
# under test is THEMIS_OMPI=PREFIX (its BUILD is then a themis build
# configured --with-ompi=PREFIX, e.g. build-ompi5 of tools/setup.sh
# --ompi5), default the one on the PATH; "$MPIRUN" takes 4.1's options
# under either series.
# shellcheck source=tools/launch.sh
. "$lib_here/../../tools/launch.sh"
BUILD=$LAUNCH_BUILD
log_dir=${THEMIS_TEST_LOG_DIR:-$BUILD/tests/logs}/$suite_logs
prog=$BUILD/tests/mpi/coll_matrix
OMPI_INFO=$LAUNCH_OMPI_INFO
THEMIS_OMPI_MAJOR=$("$OMPI_INFO" --parsable 2>/dev/null | sed -n 's/^ompi:version:full:\([0-9]*\)\..*/\1/p')
export THEMIS_OMPI_MAJOR
mapfile -t common < <(launch_opts oversubscribe themis op)
mkdir -p "$log_dir"

if [ ! -f "$comp_dir/mca_coll_themis.so" ]; then
    echo "FAIL: $suite_label: component loaded ($comp_dir/mca_coll_themis.so not found: build" \
         "it with 'make ompi/mca/coll/themis/mca_coll_themis.la' or set THEMIS_BUILD_DIR)"
    exit 1
fi
if [ ! -x "$prog" ]; then
    echo "FAIL: $suite_label: coll_matrix ($prog not found: build it with 'make check TESTS=')"
    exit 1
fi
# shellcheck disable=SC2034  # read by the sourcing suites
themis_params=$(launch_ompi_info --param coll themis --level 9 2>&1)

# The transports (used by the sourcing suites).
mapfile -t VADER < <(launch_opts vader)
mapfile -t TCP < <(launch_opts tcp)
mapfile -t OFI < <(launch_opts ofi)
: "${VADER[@]}" "${TCP[@]}" "${OFI[@]}"
# An Open MPI built without libfabric's headers (tools/setup_ompi5.sh, as
# Debian's libfabric-dev is not required) has no mtl ofi: its OFI runs are
# skipped, said in a SKIP line.
have_ofi=false
grep -q 'MCA mtl: ofi' <<<"$("$OMPI_INFO" 2>/dev/null)" && have_ofi=true
# no_ofi_here MPIRUN-OPTIONS...: true when they select mtl ofi and it is absent.
no_ofi_here() {
    local prev=""
    $have_ofi && return 1
    for a in "$@"; do
        [ "$prev" = mtl ] && [ "$a" = ofi ] && return 0
        prev=$a
    done
    return 1
}
# Every size on the themis path, and chunks as small as the counts allow,
# so that small counts exercise many chunks.
# shellcheck disable=SC2034
MIN0=(--mca coll_themis_min_bytes 0 --mca coll_themis_min_chunk_bytes 1)

# Set before each call to run:
#   opts      mpirun options of the configuration
#   args      coll_matrix arguments
#   launcher  command put in front of the program (wrapper, valgrind)
#   need      extended regexes the output must contain (the component's
#             messages for step-aside cases)
#   shun      extended regexes the output must not contain
# Suites that trim the matrix for CI time (large oversubscribed np) ask
# for their level with level_or DEFAULT: THEMIS_TEST_LEVEL=full runs the
# whole datatype/op/count matrix there instead (and every timeout of the
# suite is 8 times longer).
level_or() { echo "${THEMIS_TEST_LEVEL:-$1}"; }
# Counts no schedule's units divide (primes, powers of two, fewer elements
# than ranks), for coll_matrix --counts on rows that serve every count: a
# short list for CI, more with THEMIS_TEST_LEVEL=full, where
# any_counts_big adds 2^20 and 2^20 + 1 (for the tiny matrix: large calls
# take seconds each; empty otherwise).
any_counts() {
    if [ "${THEMIS_TEST_LEVEL:-}" = full ]; then
        echo 1,2,3,5,7,13,64,96,97,128,1000,1024,4099,65536,65537
    else
        echo 1,7,97,1024,4099
    fi
}
any_counts_big() {
    if [ "${THEMIS_TEST_LEVEL:-}" = full ]; then
        echo 1048576,1048577
    fi
}
opts=(); args=(); launcher=(); need=(); shun=()
failures=0

# THEMIS_TEST_SHARD=I/N runs the I-th of N pieces of every matrix
# (coll_matrix --shard; check_shards below proves that they partition
# it), for matrices too long for one run.
# run DESCRIPTION TIMEOUT NP
run() {
    local desc=$1 tmo=$2 np=$3
    local tmp log rc why="" start=$SECONDS
    local margs=("${args[@]}")
    if [ -n "${THEMIS_TEST_SHARD:-}" ]; then
        margs+=(--shard "$THEMIS_TEST_SHARD")
        desc+=" shard $THEMIS_TEST_SHARD"
    fi
    [ "${THEMIS_TEST_LEVEL:-}" = full ] && tmo=$((tmo * 8))
    if [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=$np $desc"; then
        return 0
    fi
    if no_ofi_here "${opts[@]}"; then
        echo "SKIP: $suite_label np=$np $desc (this Open MPI has no mtl ofi)"
        return 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-$suite_logs.XXXXXX")
    log="$log_dir/$(printf '%s' "np$np $desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 "$tmo" "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        "${opts[@]}" "${launcher[@]}" "$prog" "${margs[@]}" >"$log" 2>&1
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
        for re in "${shun[@]}"; do
            if grep -Eq -- "$re" "$log"; then
                why="unexpected message /$re/ in the output"
                break
            fi
        done
    fi
    if [ -z "$why" ]; then
        echo "PASS: $suite_label np=$np $desc ($((SECONDS - start))s)"
        return 0
    fi
    failures=$((failures + 1))
    echo "FAIL: $suite_label np=$np $desc ($why; log $log)"
    if grep -q '^error: ' "$log"; then
        grep '^error: ' "$log" | head -n 12 | sed 's/^/    | /'
    else
        grep -E '^coll_matrix' "$log" | sed 's/^/    | /'
        tail -n 15 "$log" | sed 's/^/    | /'
    fi
    return 1
}

# check_shards NP N ARGS...: coll_matrix --shard 0/N .. N-1/N with ARGS
# list (--list) every case of the matrix that ARGS list without a shard,
# each exactly once, and every shard lists some.  The full-level pieces
# at large counts rely on it.
check_shards() {
    local np=$1 n=$2 i tmp out all shards why=""
    shift 2
    if [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=$np shards"; then
        return 0
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-$suite_logs.XXXXXX")
    out="$log_dir/np${np}_shards_of_${n}.log"
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    : >"$out"
    for i in all $(seq 0 $((n - 1))); do
        local sh=()
        [ "$i" = all ] || sh=(--shard "$i/$n")
        if ! timeout -k 10 600 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" "$prog" \
                --list "${sh[@]}" "$@" >"$tmp/$i" 2>&1; then
            why="coll_matrix --list ${sh[*]} failed"
        elif [ "$i" != all ] && ! grep -q '^case: ' "$tmp/$i"; then
            why="shard $i/$n lists no case"
        fi
        sed "s|^|$i: |" "$tmp/$i" >>"$out"
    done
    all=$(grep '^case: ' "$tmp/all" | sort)
    shards=$(for i in $(seq 0 $((n - 1))); do grep '^case: ' "$tmp/$i"; done | sort)
    if [ -z "$why" ] && [ -z "$all" ]; then
        why="the matrix lists no case"
    elif [ -z "$why" ] && [ "$all" != "$shards" ]; then
        why="the shards list $(wc -l <<<"$shards") cases, the matrix $(wc -l <<<"$all")"
        why+=", $(diff <(echo "$all") <(echo "$shards") | grep -c '^[<>]') differ"
    fi
    rm -rf "$tmp"
    if [ -z "$why" ]; then
        echo "PASS: $suite_label np=$np $n shards of coll_matrix $* cover it once" \
             "($(wc -l <<<"$all") cases)"
        return 0
    fi
    failures=$((failures + 1))
    echo "FAIL: $suite_label np=$np $n shards of coll_matrix $* ($why; log $out)"
    return 1
}
