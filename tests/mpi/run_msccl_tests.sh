#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# MSCCL-XML schedules under mpirun (coll_themis_<coll>_schedule): the three
# example files of tests/data/msccl (a 3-rank ring All-Reduce, a 4-rank
# all-pairs All-Reduce with nop steps, scratch and cross-thread-block
# dependencies, TE-CCL's 32-rank All-Gather) run coll_matrix's datatype x op
# matrix for their collective with counts that divide into their chunks;
# every call must be bit-exact and raise coll_themis_<coll>_schedule_calls
# (and nothing else); counts that do not divide into their chunks
# (any_counts) run them too, in units of uneven size.  Then the cases a
# schedule cannot serve, each with its message and every call falling back
# (counted): another number of ranks, another collective, and files that
# do not load (a cycle, a chunk nobody wrote, broken XML).  Also Themis'
# own programs, exported with `themis-plan export --msccl`, run through
# the files they were written to.
#
# np 32 on two cores is oversubscribed: that run uses the tiny matrix and
# mpi_yield_when_idle; its timeout is generous, nothing here is timed.
#
# Environment: THEMIS_BUILD_DIR, THEMIS_TEST_LOG_DIR, THEMIS_TEST_FILTER
# (see coll_matrix_lib.sh); THEMIS_TACCL_DIR (TACCL's plans, below).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=msccl
suite_logs=msccl
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
data=$here/../data/msccl

if ! grep -q 'coll_themis_allreduce_schedule' <<<"$themis_params"; then
    echo "FAIL: msccl: ompi_info lists coll_themis_allreduce_schedule"
    exit 1
fi

YIELD=(--mca mpi_yield_when_idle 1)
sched() { echo --mca "coll_themis_$1_schedule" "$data/$2"; }

# Correct schedules: the whole path is the schedule row.
# shellcheck disable=SC2207
for t in VADER TCP OFI; do
    declare -n tr=$t
    opts=("${tr[@]}" "${MIN0[@]}" $(sched allreduce allreduce_ring_3.xml))
    args=(--coll allreduce --count-unit 3 --algo schedule --no-subcomms --level full)
    run "ring_3 allreduce ${t,,}" 300 3
    opts=("${tr[@]}" "${MIN0[@]}" $(sched allreduce allreduce_allpairs_4.xml))
    args=(--coll allreduce --count-unit 16 --algo schedule --no-subcomms)
    [ "$t" = VADER ] && args+=(--level full)
    run "allpairs_4 allreduce ${t,,}" 300 4
done
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" $(sched allgather teccl_amd_32.xml))
args=(--coll allgather --count-unit 2 --algo schedule --no-subcomms --level tiny)
run "teccl_amd_32 allgather vader" 900 32
# Counts that do not divide into the chunks: units of uneven size.
for f in allreduce_ring_3.xml:3 allreduce_allpairs_4.xml:4; do
    # shellcheck disable=SC2207
    opts=("${VADER[@]}" "${MIN0[@]}" $(sched allreduce "${f%:*}"))
    args=(--coll allreduce --counts "$(any_counts)" --algo schedule --no-subcomms
          --level "$(level_or tiny)")
    run "${f%:*} allreduce counts $(any_counts)" 600 "${f#*:}"
done
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" $(sched allreduce pairs_2.xml))
args=(--coll allreduce --count-unit 2 --algo schedule --no-subcomms)
run "pairs_2 allreduce vader" 300 2
# Dead transfers (TACCL's idiom: scratch nobody wrote is sent and what
# arrives is never used): skipped, said once at coll_themis_verbose 1.
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" $(sched allreduce dead_scratch_2.xml) --mca coll_themis_verbose 1)
args=(--coll allreduce --count-unit 2 --algo schedule --no-subcomms)
need=('allreduce schedule .*dead_scratch_2.xml: 4 dead transfers, skipped')
run "dead_scratch_2 allreduce vader" 300 2
need=()
# TACCL's published All-Reduce plans (github.com/mcrl/TACCL-experiment-
# codebase, taccl-exp-synthesis-plans/*/allreduce.*.xml, 2-16 ranks): no
# licence covers them, so they are not in the tree; with THEMIS_TACCL_DIR
# pointing at a copy, each runs bit-exact on the schedule row.
if [ -n "${THEMIS_TACCL_DIR:-}" ]; then
    for f in "$THEMIS_TACCL_DIR"/allreduce.*.xml; do
        [ -e "$f" ] || continue
        np=$(sed -n '1s/.* ngpus="\([0-9]*\)".*/\1/p' "$f")
        unit=$(sed -n '1s/.* nchunksperloop="\([0-9]*\)".*/\1/p' "$f")
        opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" --mca coll_themis_allreduce_schedule "$f")
        args=(--coll allreduce --count-unit "$unit" --algo schedule --no-subcomms --level tiny)
        run "taccl $(basename "$f" .xml) vader" 900 "$np"
    done
fi

# Themis' own programs exported as MSCCL-XML (themis-plan export --msccl)
# run again through the file, on the 4x2 shape they were planned for.
plan=$BUILD/tools/themis-plan
gen=$(mktemp -d "${TMPDIR:-/tmp}/themis-msccl.XXXXXX")
for c in allreduce:16 reduce_scatter:128 allgather:16; do
    coll=${c%%:*} unit=${c#*:}
    if ! "$plan" export --msccl "$gen/$coll.xml" --topo sw:4:100Gb:1us_sw:2:100Gb:2us \
            --coll "$coll" --count 16 >"$log_dir/export_$coll.log" 2>&1 ||
       ! grep -q '^round_trip=same$' "$log_dir/export_$coll.log"; then
        failures=$((failures + 1))
        echo "FAIL: msccl themis-plan export --msccl $coll (log $log_dir/export_$coll.log)"
        continue
    fi
    opts=("${VADER[@]}" "${MIN0[@]}" "${YIELD[@]}" --mca "coll_themis_${coll}_schedule" "$gen/$coll.xml")
    args=(--coll "$coll" --count-unit "$unit" --algo schedule --no-subcomms --level tiny)
    run "exported themis $coll 4x2" 600 8
    # Any count, reduce_scatter with unequal and empty blocks too.
    args=(--coll "$coll" --counts "$(any_counts)" --algo schedule --no-subcomms --level tiny)
    run "exported themis $coll 4x2 counts $(any_counts)" 600 8
done
rm -rf "$gen"

# coll_themis_graph: auto ranks every algorithm, the given schedule too, by
# the link simulator on the graph; a graph of another size is not used; a
# malformed graph is a bad parameter.
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" $(sched allreduce allreduce_ring_3.xml)
      --mca coll_themis_graph "ring:3,bw=10Gb,lat=1us" --mca coll_themis_verbose 10)
args=(--coll allreduce --count-unit 3 --no-subcomms --level tiny)
need=('auto: allreduce of [0-9]+ bytes \([0-9]+ elements\) -> (themis|schedule|tacos|treepack) \(link simulator on coll_themis_graph: themis [0-9.]+ us; .*schedule [0-9.]+ us')
run "graph ring:3: auto ranks themis and the schedule by the link simulator" 300 3
opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_graph "torus2d:3x3" --mca coll_themis_verbose 10)
args=(--level tiny --no-subcomms)
need=('coll_themis_graph has 9 nodes, the communicator 4 ranks')
run "graph of another size is not used" 300 4
opts=("${VADER[@]}" "${MIN0[@]}" --mca coll_themis_graph "torus2d:3xq")
args=(--level tiny --expect fallback --no-subcomms)
need=('coll_themis_graph = "torus2d:3xq"')
run "malformed graph: bad parameter" 300 4
need=()

# What a schedule cannot serve: message, and every call falls back.
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" $(sched allreduce allreduce_ring_3.xml))
args=(--coll allreduce --expect fallback --no-subcomms --level tiny)
need=('schedule allreduce_ring_inplace is for 3 ranks, the communicator has 4')
run "ring_3 on 4 ranks falls back" 300 4
# shellcheck disable=SC2207
opts=("${VADER[@]}" "${MIN0[@]}" $(sched allgather allreduce_ring_3.xml))
args=(--coll allgather --expect fallback --no-subcomms --level tiny)
need=('it is an allreduce schedule, given for allgather')
run "allreduce file as allgather falls back" 300 3
for bad in "bad_cycle_2.xml:cycle" "bad_unwritten_2.xml:nobody wrote" \
           "bad_truncated.xml:(XML|xml|parse)"; do
    # shellcheck disable=SC2207
    opts=("${VADER[@]}" "${MIN0[@]}" $(sched allreduce "${bad%%:*}"))
    args=(--coll allreduce --expect fallback --no-subcomms --level tiny)
    need=("cannot use the allreduce schedule file" "${bad#*:}")
    run "${bad%%:*} falls back" 300 2
done
need=()

if [ "$failures" -ne 0 ]; then
    exit 1
fi
