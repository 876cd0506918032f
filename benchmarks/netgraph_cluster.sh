#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# A cluster file on the test bed (issue 25): the bed is built from
# `themis-plan bed`'s plan of the file (benchmarks/netbed/netgraph: one
# namespace per rank, NIC and switch, every link a tbf-shaped veth at the
# plan's scaled rate, the plan's routes), and each measured time is put
# beside the link simulator's prediction on the same scaled graph.
#
#   netgraph_cluster.sh cluster   All-Reduce on GRAPH (default
#       docs/examples/cluster_4x4_2nic.graph: 4 hosts x 4 ranks, every
#       pair of a host linked, 2 NICs per host into one switch), np = its
#       ranks: `auto` (the row the component logs at coll_themis_verbose
#       10) and every row of ROWS, predicted by `themis-plan compare`.
#   netgraph_cluster.sh clos      the direct Allgather (MSCCL-XML from the
#       plan) on GRAPH (default docs/examples/cluster_leafspine_8x2.graph:
#       8 hosts of 2 ranks under 4 leaves, 2 spines), routed by each of
#       SPINES (graph: the graph's routes, every cross-leaf flow on the
#       lowest spine; exact: the Clos planner; ecmp: one draw of SEED, as
#       the simulator models ECMP), one bed per routing.
#
# Output: one line per run (rows or routings), predicted and measured ms
# (median call time, averaged over ranks), their ratio, the mean count of
# runnable tasks during the run (2 cores: above 2, ranks wait for a CPU),
# what the bed lost during the run (TCP segments retransmitted, TCP
# retransmission timeouts, packets the shapers dropped), the busiest
# link's bytes per call (headers, ACKs and retransmits included) as ms at
# its rate (beside the measured ms: how busy the bed kept it) and the path
# the MPI_T counters saw; the load average before and after.  Rates are the
# plan's: all links together BUDGET (default 1200Mb/s, what 2 cores
# forward) unless SCALE is set.
#
# The scaled graph carries the bed's packets (PACKET, default 1448,66: TCP
# with timestamps over IPv4 and Ethernet at MTU 1500, `themis-plan bed
# --packet`), so predictions count the headers the shapers count.  In
# cluster mode the shapers' queues are 500 ms unless
# THEMIS_NETGRAPH_QUEUE_MS says otherwise: the rates are scaled down
# ~16,000 times but a queue of 50 ms then holds 38 KB at a NIC port that up
# to 24 TCP flows share, and the bed's time goes to loss recovery that the
# cluster's fabric does not have (benchmarks/README.md).
#
# Environment: GRAPH, BYTES (default 1048576), ITERS (default 3), SCHEDULE
# (an All-Reduce MSCCL-XML file: the row `schedule` in ROWS runs it,
# predicted by `themis-plan msccl simulate` on the scaled graph), EXTRA_MCA
# (more mpirun options, e.g. eager limits), THEMIS_NETGRAPH_SMALL_FIRST=1
# (htb with small packets first instead of tbf), THEMIS_NETGRAPH_QUEUE_MS
# (each shaper's queue: cluster 500 ms, clos netgraph's 50 ms), PACKET, ROWS
# (default "themis rings torus2d treepack tacos"), SPINES (default "graph
# exact ecmp"), SEED (default 1), BUDGET, SCALE, THEMIS_BUILD_DIR.  Needs
# root; run it under `flock /tmp/themis-mpi.lock` without nice.
set -uo pipefail
# shellcheck source=benchmarks/netgraph_lib.sh
. "$(dirname "$0")/netgraph_lib.sh"
mode=${1:-}
top=$(cd "$here/.." && pwd)
bytes=${BYTES:-1048576}
iters=${ITERS:-3}
rows=${ROWS:-"themis rings torus2d treepack tacos"}
spines=${SPINES:-"graph exact ecmp"}
seed=${SEED:-1}
export THEMIS_NETGRAPH_PREFIX=${THEMIS_NETGRAPH_PREFIX:-tngcl}

case $mode in
    cluster) graph=${GRAPH:-$top/docs/examples/cluster_4x4_2nic.graph}
             export THEMIS_NETGRAPH_QUEUE_MS=${THEMIS_NETGRAPH_QUEUE_MS:-500} ;;
    clos) graph=${GRAPH:-$top/docs/examples/cluster_leafspine_8x2.graph} ;;
    *) echo "usage: netgraph_cluster.sh cluster|clos (see the header)" >&2; exit 2 ;;
esac
for f in "$plan" "$bench" "$comp_dir/mca_coll_themis.so"; do
    [ -e "$f" ] || { echo "netgraph_cluster: $f missing (make; make check TESTS=)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/netgraph-cluster.XXXXXX")
cleanup() { "$ng" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 143' INT TERM

scaling=(--budget "${BUDGET:-1200Mb/s}")
[ -z "${SCALE:-}" ] || scaling=(--scale "$SCALE")
packet=${PACKET-1448,66}
[ -z "$packet" ] || scaling+=(--packet "$packet")
mapfile -t common < <(launch_opts themis op)
common+=(--mca coll_themis_min_bytes 0
        --mca coll_themis_graph "$work/scaled.graph" --mca coll_themis_verbose 10)
# shellcheck disable=SC2206  # EXTRA_MCA: words of MCA options
common+=(${EXTRA_MCA:-})

# bed_up PLAN-OPTIONS...: plans GRAPH, writes the scaled graph, builds the bed.
bed_up() {
    "$plan" bed --graph "$graph" "${scaling[@]}" --graph-out "$work/scaled.graph" "$@" \
        >"$work/bed.plan" || exit 1
    "$ng" up "$work/bed.plan" >&2 || exit 1
    "$ng" check >/dev/null || { echo "netgraph_cluster: bed check failed" >&2; exit 1; }
}

# bed_counters: "RETRANS TIMEOUTS DROPS" so far, summed over the bed:
# TCP segments retransmitted and retransmission timeouts of every rank,
# packets every shaper dropped (its queue full).
bed_counters() {
    local x
    for x in $(awk '"node" == $1 { print $2 }' "$work/bed.plan"); do
        "$ng" exec "$x" sh -c 'nstat -asz TcpRetransSegs TcpExtTCPTimeouts; tc -s qdisc show'
    done | awk '/^TcpRetransSegs/ { r += $2 } /^TcpExtTCPTimeouts/ { t += $2 }
                /dropped/ { for (i = 1; i < NF; i++) if ("(dropped" == $i) d += $(i + 1) }
                END { print r + 0, t + 0, d + 0 }'
}

# measure COLL NAME PREDICTED_US MCA...: one run, one output line.
worst=1.0
measure() {
    local coll=$1 name=$2 pred=$3 out line med valid path ratio chose sampler rq c0 c1 busy
    shift 3
    read -r -a c0 <<<"$(bed_counters)"
    "$ng" link-bytes >"$work/lb0"
    # Runnable tasks machine-wide (/proc/loadavg's 4th field, less the
    # sampler's own cut), twice a second: above the cores, ranks wait for a
    # CPU rather than for the links.
    (while :; do cut -d' ' -f4 /proc/loadavg; sleep 0.5; done) >"$work/rq" &
    sampler=$!
    out=$(timeout -k 10 1200 "$ng" mpirun -- "${common[@]}" "$@" \
              "$bench" --coll "$coll" --min "$bytes" --max "$bytes" --iters "$iters" \
              --warmup 2 2>&1)
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    read -r -a c1 <<<"$(bed_counters)"
    "$ng" link-bytes >"$work/lb1"
    # The busiest link's bytes per call (headers, ACKs and retransmits
    # included) at its rate: osu_coll_latency makes 2 warm-up calls, the
    # timed ones and 1 validation call.
    busy=$(awk -v calls=$((iters + 3)) '
        FILENAME == ARGV[1] { if ("link" == $1) rate[$2 " " $3] = $4; next }
        FILENAME == ARGV[2] { if ("link" == $1) b0[$2 " " $3] = $5; next }
        "link" == $1 && ($2 " " $3) in rate {
            t = ($5 - b0[$2 " " $3]) / calls * 8 / rate[$2 " " $3] * 1000
            if (t > m) { m = t; l = $2 "->" $3 } }
        END { printf "%.1f@%s", m, l }' "$work/bed.plan" "$work/lb0" "$work/lb1")
    rq=$(awk -F/ '{ s += $1 - 1; n++ } END { printf "%.1f", n ? s / n : 0 }' "$work/rq")
    line=$(grep -E "^$bytes " <<<"$out")
    if [ -z "$line" ] || [ -z "$pred" ]; then
        echo "netgraph_cluster: $name: no result" >&2
        tail -5 <<<"$out" >&2
        exit 1
    fi
    read -r _ _ _ _ _ valid path med <<<"$line"
    chose=$(sed -n 's/.*coll:themis: MPI_COMM_WORLD: auto: [a-z_]* of [0-9]* bytes ([0-9]* elements) -> \([a-z0-9_]*\).*/\1/p' <<<"$out" | sort -u | tr '\n' ' ')
    ratio=$(awk -v m="$med" -v p="$pred" 'BEGIN { printf "%.3f", m / p }')
    worst=$(awk -v w="$worst" -v r="$ratio" \
                'BEGIN { d = r > 1 ? r - 1 : 1 - r; dw = w > 1 ? w - 1 : 1 - w;
                         print (d > dw ? r : w) }')
    printf '%-10s %14.1f %14.1f %8s %9s %16s %16s %10s %s\n' "$name" \
        "$(awk -v p="$pred" 'BEGIN { print p / 1000 }')" \
        "$(awk -v m="$med" 'BEGIN { print m / 1000 }')" "$ratio" "$rq" \
        "$((c1[0] - c0[0]))/$((c1[1] - c0[1]))/$((c1[2] - c0[2]))" "$busy" "$path/$valid" \
        "${chose:+auto chose: $chose}"
}

echo "# $(basename "$graph"), $mode, $bytes bytes, $iters timed calls${EXTRA_MCA:+, $EXTRA_MCA}${THEMIS_NETGRAPH_SMALL_FIRST:+, small-first}${THEMIS_NETGRAPH_QUEUE_MS:+, queue ${THEMIS_NETGRAPH_QUEUE_MS}ms}${packet:+, packets $packet}, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ clos = "$mode" ]; then
    printf '%-10s %14s %14s %8s %9s %16s %16s %10s\n' "# routes" "predicted_ms" "measured_ms" \
        "ratio" "runnable" "rexmit/rto/drop" "busiest_ms@link" "path"
    for sp in $spines; do
        opts=(--xfer direct --coll ag --bytes "$bytes" --msccl "$work/direct.xml")
        [ graph = "$sp" ] || opts+=(--spines "$sp" --seed "$seed")
        bed_up "${opts[@]}"
        pred=$(sed -n 's/^predict .* collective_us=\([0-9.]*\) .*/\1/p' "$work/bed.plan")
        echo "# $sp: $(grep -c '^rule ' "$work/bed.plan") source rules"
        measure allgather "$sp" "$pred" --mca coll_themis_allgather_algorithm schedule \
            --mca coll_themis_allgather_schedule "$work/direct.xml"
        "$ng" down >/dev/null
    done
else
    bed_up
    cmp=$("$plan" compare --graph "$work/scaled.graph" --coll ar --bytes "$bytes") || exit 1
    auto=$(sed -n 's/^auto: .* -> \([a-z0-9_]*\) .*/\1/p' <<<"$cmp")
    echo "# themis-plan compare on the scaled graph: auto -> $auto"
    printf '%-10s %14s %14s %8s %9s %16s %16s %10s\n' "# row" "predicted_ms" "measured_ms" "ratio" \
        "runnable" "rexmit/rto/drop" "busiest_ms@link" "path"
    for row in auto $rows; do
        r=$row
        [ auto != "$row" ] || r=$auto
        pred=$(sed -n "s/^  $r  *\([0-9.]*\) us\$/\1/p" <<<"$cmp")
        opts=(--mca coll_themis_allreduce_algorithm "$row")
        if [ schedule = "$row" ] && [ -n "${SCHEDULE:-}" ]; then
            # the link simulator's time of the file on the same scaled graph
            pred=$("$plan" msccl simulate "$SCHEDULE" --graph "$work/scaled.graph" \
                       --bytes "$bytes" | sed -n 's/^collective_us=\([0-9.]*\) .*/\1/p')
            opts+=(--mca coll_themis_allreduce_schedule "$SCHEDULE")
        fi
        if [ -z "$pred" ]; then
            echo "# $row: not run, compare says: $(sed -n "s/^  $r  *-  //p" <<<"$cmp")"
            continue
        fi
        measure allreduce "$row" "$pred" "${opts[@]}"
    done
fi
echo "worst_ratio=$worst load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
