#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Input that must not hang startup, blow up memory or go unnoticed, under
# mpirun and the CLI alike:
# - coll_themis_graph, coll_themis_allreduce_schedule and
#   coll_themis_rules_filename naming a FIFO (no writer: opening it used
#   to block MPI_Init forever), a directory and a file over the size limit
#   (sparse: refused by its size, never read): each run ends with the
#   message, every call correct and falling back (counted); `themis-plan`
#   refuses the same paths with exit 2, and takes a UTF-8 byte order mark
#   in graph, rules and MSCCL files alike;
# - a 130-digit coll_themis_dim_latencies: "number out of range";
# - an MSCCL file with a DOCTYPE and 5,000 references to a 100 KB entity
#   (minutes and 500 MB before) and a 1024-gpu x 4096-chunk file without
#   transfers (588 MB per rank before): refused, every rank's peak RSS
#   under 50 MB (coll_matrix --max-rss-mb; memory, not time, is asserted);
#   the 1024-gpu file on 4 ranks by its start tag alone, never parsed, and
#   a 4-gpu x 65536-chunk one, which 4 ranks do parse (measured on 2 shared
#   cores: each mpirun 0-1 s in all; peak RSS of the worst rank 18 MB for
#   the 1024-gpu file, 23 MB for the 4-gpu one, 17 MB for the entity file);
# - an erroneous program whose last rank passes a larger count: it ends
#   with MPI_ERR_TRUNCATE like stock Open MPI, no rank returns MPI_SUCCESS.
# Timeouts only catch hangs (generous, nothing is timed).
#
# Environment: THEMIS_BUILD_DIR, THEMIS_TEST_LOG_DIR, THEMIS_TEST_FILTER
# (see coll_matrix_lib.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=input
suite_logs=input
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
plan=$BUILD/tools/themis-plan
tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-input.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
truncate -s $(((64 << 20) + 1)) "$tmp/big"       # graph and schedule limit: 64 MiB
truncate -s $(((1 << 20) + 1)) "$tmp/big_rules"  # rules limit: 1 MiB
declare -A kind_msg=([fifo]='a FIFO, not a regular file' [dir]='a directory, not a regular file'
                     [big]='larger than 67108864 bytes' [big_rules]='larger than 1048576 bytes')

# The CLI: exit 2 and the reason, in seconds (timeout: a hang).
cli() {   # NAME EXPECTED-MESSAGE COMMAND...
    local name=$1 msg=$2 rc
    shift 2
    timeout -k 5 60 "$@" >"$log_dir/cli_$name.out" 2>"$log_dir/cli_$name.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$msg" "$log_dir/cli_$name.err"; then
        echo "PASS: $suite_label cli $name"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label cli $name (exit $rc, want 2 and '$msg': $(head -c 300 "$log_dir/cli_$name.err"))"
    fi
}
for k in fifo dir big; do
    cli "graph_$k" "${kind_msg[$k]}" "$plan" graph "$tmp/$k"
    cli "msccl_$k" "${kind_msg[$k]}" "$plan" msccl check "$tmp/$k"
    r=$k; [ "$k" = big ] && r=big_rules
    cli "rules_$k" "${kind_msg[$r]}" "$plan" rules "$tmp/$r"
done
# A UTF-8 byte order mark is taken alike in graph, rules and MSCCL files.
printf '\xef\xbb\xbfnodes 2\n0 1 10Gb 1us\n1 0 10Gb 1us\n' >"$tmp/bom_graph"
printf '\xef\xbb\xbf{ "rules": [] }\n' >"$tmp/bom_rules.json"
{ printf '\xef\xbb\xbf'; cat "$here/../data/msccl/allreduce_ring_3.xml"; } >"$tmp/bom.xml"
for f in "graph $tmp/bom_graph" "rules $tmp/bom_rules.json" "msccl check $tmp/bom.xml"; do
    # shellcheck disable=SC2086  # the command and its file
    if timeout -k 5 60 "$plan" $f >"$log_dir/cli_bom.out" 2>&1; then
        echo "PASS: $suite_label cli byte order mark: ${f%% *}"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label cli byte order mark: $f ($(head -c 300 "$log_dir/cli_bom.out"))"
    fi
done
cli trace_fifo "${kind_msg[fifo]}" "$plan" timeline --trace "$tmp/fifo" --png "$tmp/t.png"
cli rules_missing "cannot open" "$plan" rules "$tmp/missing.json"
cli msccl_missing "cannot open" "$plan" msccl check "$tmp/missing.xml"

# The three parameters under mpirun: a message, every call falls back.
for k in fifo dir big; do
    r=$k; [ "$k" = big ] && r=big_rules
    opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_graph "$tmp/$k")
    args=(--coll allreduce --expect fallback --no-subcomms --level tiny)
    need=("coll_themis_graph = \"$tmp/$k\"" "${kind_msg[$k]}")
    run "coll_themis_graph is a $k" 300 2
    opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_rules_filename "$tmp/$r")
    need=("coll_themis_rules_filename = \"$tmp/$r\"" "${kind_msg[$r]}")
    run "coll_themis_rules_filename is a $k" 300 2
    opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_allreduce_schedule "$tmp/$k")
    need=("cannot use the allreduce schedule file" "${kind_msg[$k]}")
    run "coll_themis_allreduce_schedule is a $k" 300 2
done

# A number out of range is said to be one.
opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_dim_latencies "$(printf '1%.0s' $(seq 130))ns")
args=(--coll allreduce --expect fallback --no-subcomms --level tiny)
need=("coll_themis_dim_latencies" "number out of range for a latency")
run "a 130-digit latency is out of range" 300 2

# Schedules that cost minutes or gigabytes before: refused, memory bounded.
{
    echo '<?xml version="1.0"?>'
    printf '<!DOCTYPE algo [\n<!ENTITY a "%s">\n]>\n' "$(head -c 100000 /dev/zero | tr '\0' x)"
    printf '<algo name="'
    for _ in $(seq 5000); do printf '&a;'; done
    echo '" coll="allreduce" ngpus="2" nchunksperloop="2" proto="Simple" inplace="1">'
    echo '<gpu id="0" i_chunks="2" o_chunks="0" s_chunks="0"/>'
    echo '<gpu id="1" i_chunks="2" o_chunks="0" s_chunks="0"/></algo>'
} >"$tmp/entity.xml"
{
    echo '<algo name="big" proto="Simple" nchannels="1" nchunksperloop="4096" ngpus="1024"' \
         'coll="allreduce" inplace="1">'
    for g in $(seq 0 1023); do
        echo "<gpu id=\"$g\" i_chunks=\"4096\" o_chunks=\"0\" s_chunks=\"0\"/>"
    done
    echo '</algo>'
} >"$tmp/gpus1024.xml"
{
    echo '<algo name="wide" proto="Simple" nchannels="1" nchunksperloop="65536" ngpus="4"' \
         'coll="allreduce" inplace="1">'
    for g in 0 1 2 3; do
        echo "<gpu id=\"$g\" i_chunks=\"65536\" o_chunks=\"0\" s_chunks=\"0\"/>"
    done
    echo '</algo>'
} >"$tmp/gpus4.xml"
cli entity "a DOCTYPE declaration" "$plan" msccl check "$tmp/entity.xml"
cli gpus1024 "the result cannot be complete" "$plan" msccl check "$tmp/gpus1024.xml"
opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_allreduce_schedule "$tmp/entity.xml")
args=(--coll allreduce --expect fallback --no-subcomms --level tiny --max-rss-mb 50)
need=("cannot use the allreduce schedule file" "a DOCTYPE declaration: MSCCL-XML has no DTD")
run "entity expansion file refused, RSS under 50 MB" 300 2
# A communicator of another size than the file's ngpus never parses it.
opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_allreduce_schedule "$tmp/gpus1024.xml")
need=("cannot run the given schedule" "schedule big is for 1024 ranks, the communicator has 4")
shun=("result cannot be complete")
run "1024 gpus x 4096 chunks refused by its size, unparsed, RSS under 50 MB" 300 4
shun=()
opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_allreduce_schedule "$tmp/gpus4.xml")
need=("cannot use the allreduce schedule file" "not the full sum of block 0")
run "4 gpus x 65536 chunks parsed and refused, RSS under 50 MB" 300 4
need=()

# An erroneous program: the last rank passes a larger count.  Stock Open
# MPI 4.1.4 (coll tuned) aborts with MPI_ERR_TRUNCATE under
# MPI_ERRORS_ARE_FATAL; under MPI_ERRORS_RETURN its larger rank returns
# MPI_SUCCESS with wrong data, and with rendezvous-sized messages ob1's
# truncated get writes past the receive buffer ("double free or
# corruption", then a hang).  coll/themis: the job ends with MPI_ERR_TRUNCATE
# (fatal), or every rank returns an error (return); no rank crashes,
# hangs or returns MPI_SUCCESS.  Rendezvous-sized messages used to
# segfault in btl/vader (the same overflow), and with 1-byte chunks,
# where the ranks' programs differ in shape, hang.
mismatch() {   # DESCRIPTION NP COUNT EXTRA COLL fatal|return [MPIRUN-OPTION...]
    local desc=$1 np=$2 count=$3 extra=$4 coll=$5 mode=$6 t log rc why=""
    shift 6
    if [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=$np $desc"; then
        return 0
    fi
    t=$(mktemp -d "$tmp/ompi.XXXXXX")
    log="$log_dir/mismatch_$(printf '%s' "$desc" | tr -c 'A-Za-z0-9=.+-' '_').log"
    mapfile -t tmpo < <(launch_opts tmpdir "$t")
    timeout -k 10 300 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        "${VADER[@]}" --mca coll_themis_min_bytes 0 "$@" \
        "$BUILD/tests/mpi/count_mismatch" "$count" "$extra" "$coll" "$mode" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        why="timed out (a hang)"
    elif grep -Eq 'Segmentation fault|signal 11|Process received signal|corruption' "$log"; then
        why="a rank crashed"
    elif grep -q 'returned 0 (MPI_SUCCESS' "$log"; then
        why="a rank returned MPI_SUCCESS"
    elif ! grep -q 'MPI_ERR_TRUNCATE' "$log"; then
        why="no MPI_ERR_TRUNCATE"
    elif [ "$mode" = fatal ] && [ $rc -eq 0 ]; then
        why="exit 0"
    elif [ "$mode" = return ] && [ "$(grep -c 'count_mismatch: rank .* returned' "$log")" -ne "$np" ]; then
        why="not every rank returned (exit $rc)"
    fi
    if [ -z "$why" ]; then
        echo "PASS: $suite_label np=$np $desc"
    else
        failures=$((failures + 1))
        echo "FAIL: $suite_label np=$np $desc ($why, exit $rc; log $log)"
        tail -n 10 "$log" | sed 's/^/    | /'
    fi
}
chunk1=(--mca coll_themis_min_chunk_bytes 1)
mismatch "allreduce, one rank's count 7 larger: MPI_ERR_TRUNCATE" 4 1000 7 allreduce fatal "${chunk1[@]}"
mismatch "allgather, one rank's count 1 larger: MPI_ERR_TRUNCATE" 4 1000 1 allgather fatal "${chunk1[@]}"
# Rendezvous-sized: 65536 ints, the last rank 4096 more.
mismatch "allgather of 256 KiB, one rank's 16 KiB larger: MPI_ERR_TRUNCATE" \
    4 65536 4096 allgather fatal
mismatch "allgather of 256 KiB in 1-byte chunks, one rank's larger: MPI_ERR_TRUNCATE" \
    4 65536 4096 allgather fatal "${chunk1[@]}"
mismatch "allreduce of 256 KiB, one rank's larger, errors returned: all fail" \
    4 65536 4096 allreduce return
mismatch "reduce_scatter in 1-byte chunks, one rank's larger, errors returned: all fail" \
    4 65536 4096 reduce_scatter return "${chunk1[@]}"
mismatch "reduce_scatter_block, rings, one rank's larger: MPI_ERR_TRUNCATE" \
    4 65536 4096 reduce_scatter_block fatal --mca coll_themis_reduce_scatter_algorithm rings
if [ "${THEMIS_TEST_LEVEL:-}" = full ]; then
    for coll in allreduce allgather reduce_scatter_block reduce_scatter; do
        for size in "1000 7" "65536 4096"; do
            for mode in fatal return; do
                # shellcheck disable=SC2086  # COUNT EXTRA
                mismatch "$coll $size $mode" 4 $size "$coll" "$mode"
                # shellcheck disable=SC2086  # COUNT EXTRA
                mismatch "$coll $size $mode, 1-byte chunks" 4 $size "$coll" "$mode" "${chunk1[@]}"
            done
        done
    done
    for algo in rings tacos; do
        mismatch "allreduce 65536 4096 fatal, $algo" 4 65536 4096 allreduce fatal \
            --mca coll_themis_allreduce_algorithm "$algo"
        mismatch "allgather 65536 4096 return, $algo" 4 65536 4096 allgather return \
            --mca coll_themis_allgather_algorithm "$algo"
    done
fi

[ "$failures" -eq 0 ]
