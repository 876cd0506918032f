#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# netgraph smoke test (benchmarks/netbed/netgraph: a bed built from the
# plan `themis-plan bed` writes for a graph).  For four graphs, written
# here by hand:
#   ring4      4-node bidirectional ring, 100mbit, the graph's routes
#   ring4 + edited routes   the same plan with 0 -> 2 and 2 -> 0 sent the
#              other way round (via 3): the bed installs what the plan
#              says, it routes nothing itself
#   p38        p3.8xlarge-like: GPUs 0-3, (0,1) (1,3) (2,3) dual NVLink,
#              (0,2) (0,3) (1,2) single, both directions; 25GB/s per
#              NVLink, planned with --scale 0.00025 (dual 100, single 50)
#   directed   a one-way ring 0->1->2->3->0 plus 0<->2 with 2->0 failed,
#              and a failed node 4: some directions are blocked
#   clos       leafspine:4x1 (ranks 0-3, NICs 4-7, leaves 8-9, spines
#              10-11) at 50Mb/s, the direct allgather's flows routed by the
#              Clos planner: 0 -> 2 and back by spine 11, not the graph's
#              spine 10 (source rules at the leaves); then Open MPI's
#              collectives as a job on rank nodes 3,0,2 (mpirun --hosts),
#              none of its bytes on rank node 1's links
# it runs `up`, `check`, and netgraph_stream (one-way MPI stream between
# two ranks) checking with `link-bytes` that the pair's bytes went over
# exactly the links of its route and nowhere else; on ring4 and p38 it
# also runs tests/netbed/netbed_smoke.c (Allreduce, Reduce_scatter) with
# Open MPI's own collectives, then `down`, and checks that no namespace is
# left.  Rates are printed, never asserted.
#
# Prints PASS:/FAIL: lines; "SKIP: netgraph smoke (reason)" only when
# network namespaces cannot be created here.
#   NETBED_SMOKE_TIMEOUT  seconds per mpirun (default 120)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ng=$top/benchmarks/netbed/netgraph
plan=${THEMIS_BUILD_DIR:-$top}/tools/themis-plan
per_run=${NETBED_SMOKE_TIMEOUT:-120}
failed=0

# A prefix and state directory of our own: never touches anyone's bed.
export THEMIS_NETGRAPH_PREFIX=tgsm$$
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-netgraph-smoke.XXXXXX")
export THEMIS_NETGRAPH_STATE_DIR=$work/state

# shellcheck source=tests/netbed/netbed_lib.sh
. "$top/tests/netbed/netbed_lib.sh"
netbed_cleanup_on_exit "$ng" "$work"
netbed_need_netns "netgraph smoke" "$THEMIS_NETGRAPH_PREFIX"
netbed_need_tools "netgraph smoke" mpicc mpirun tc iperf3 pyroute2

smoke=$work/netbed_smoke
stream=$work/netgraph_stream
for p in "$smoke:tests/netbed/netbed_smoke.c" "$stream:tests/netbed/netgraph_stream.c"; do
    if ! mpicc -std=gnu11 -O2 -Wall -o "${p%%:*}" "$top/${p#*:}" >"$work/cc.log" 2>&1; then
        cat "$work/cc.log"
        echo "FAIL: netgraph smoke: ${p#*:} builds with mpicc"
        exit 1
    fi
done

cat >"$work/ring4" <<'EOF'
# 4-node bidirectional ring
0 1 100mbit 1us both
1 2 100mbit 1us both
2 3 100mbit 1us both
3 0 100mbit 1us both
EOF
cat >"$work/p38" <<'EOF'
# p3.8xlarge-like: 4 GPUs; one NVLink = 25GB/s, dual = 50GB/s
nodes 4
0 1 50GB/s 500ns both
1 3 50GB/s 500ns both
2 3 50GB/s 500ns both
0 2 25GB/s 500ns both
0 3 25GB/s 500ns both
1 2 25GB/s 500ns both
EOF
cat >"$work/directed" <<'EOF'
# one-way ring plus 0<->2 (2->0 failed); node 4 failed
nodes 5
0 1 40mbit 1us
1 2 40mbit 1us
2 3 40mbit 1us
3 0 40mbit 1us
0 2 20mbit 2us both
4 0 10mbit 1us both
fail node 4
fail link 2 0
EOF

verdict() {   # rc message...
    local rc=$1
    shift
    if [ "$rc" -eq 0 ]; then echo "PASS: $*"; else echo "FAIL: $*"; failed=1; fi
}

bed_up() {   # name graph [sed-script] [themis-plan bed options...]
    local name=$1 graph=$2 edit=${3:-}
    shift 2
    [ $# -gt 0 ] && shift
    if ! "$plan" bed --graph "$graph" "$@" >"$work/plan" 2>"$work/up.log"; then
        sed 's/^/    | /' "$work/up.log"
        echo "FAIL: themis-plan bed $name"
        failed=1
        return 1
    fi
    [ -z "$edit" ] || sed -i "$edit" "$work/plan"
    if "$ng" up "$work/plan" >"$work/up.log" 2>&1; then
        echo "PASS: netgraph up $name ($(sed -n 's/^netgraph: up [^:]*: //p' "$work/up.log"))"
    else
        sed 's/^/    | /' "$work/up.log"
        echo "FAIL: netgraph up $name"
        failed=1
        return 1
    fi
    local out rc=0
    out=$("$ng" check 2>&1) || rc=$?
    [ "$rc" -eq 0 ] || sed 's/^/    | /' <<<"$out"
    verdict "$rc" "netgraph check $name (${out##*check: })"
}

bed_down() {   # name
    local name=$1
    "$ng" down >"$work/down.log" 2>&1
    local left
    left=$(ip netns list | grep "^$THEMIS_NETGRAPH_PREFIX-" | cut -d' ' -f1 | tr '\n' ' ')
    if [ -z "$left" ] && [ ! -e "$THEMIS_NETGRAPH_STATE_DIR" ]; then
        echo "PASS: netgraph down $name leaves no namespace and no state behind"
    else
        sed 's/^/    | /' "$work/down.log"
        echo "FAIL: netgraph down $name (left: ${left:-state dir})"
        failed=1
    fi
}

mpi() {   # log [--hosts R,... --] program args...: one bounded mpirun with Open MPI's collectives
    local log=$1 rc=0 ngo=()
    shift
    if [ "$1" = --hosts ]; then
        ngo=("$1" "$2" "$3")
        shift 3
    fi
    timeout -k 10 "$per_run" "$ng" mpirun "${ngo[@]}" --mca coll tuned,libnbc,basic,self "$@" >"$log" 2>&1 || rc=$?
    grep -E '^(PASS|FAIL): ' "$log"
    grep -q '^FAIL: ' "$log" && failed=1
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$log"; then
        grep -vE '^(PASS|SKIP): ' "$log" | tail -n 20 | sed 's/^/    | /'
        echo "FAIL: netgraph mpirun $(basename "$1") (exit $rc$([ "$rc" -eq 124 ] && echo ", timed out after ${per_run}s"))"
        failed=1
    fi
    return "$rc"
}

# stream NAME FROM TO "ON-LINKS" "BACK-LINKS" "OFF-LINKS": FROM sends 4 MiB
# to TO; every directed link "s>d" of ON-LINKS (the route) must carry
# >= 4 MiB, every one of BACK-LINKS (the route back, which carries TCP's
# acknowledgements, about 100 KB) < 1 MiB, every one of OFF-LINKS < 64 KiB.
stream() {
    local name=$1 from=$2 to=$3 on=$4 back=$5 off=$6 rc=0 bad="" l b
    "$ng" link-bytes >"$work/lb0"
    mpi "$work/stream.log" "$stream" --from "$from" --to "$to" --bytes 1048576 --count 4 || rc=$?
    "$ng" link-bytes >"$work/lb1"
    paste -d' ' "$work/lb0" "$work/lb1" | awk '$1 == "link" { print $2 ">" $3, $12 - $5 }' >"$work/delta"
    for l in $on; do
        b=$(awk -v l="$l" '$1 == l { print $2 }' "$work/delta")
        [ "${b:-0}" -ge 4194304 ] || bad="$bad $l:${b:-none}(want >= 4 MiB)"
    done
    for l in $back; do
        b=$(awk -v l="$l" '$1 == l { print $2 }' "$work/delta")
        [ "${b:-0}" -lt 1048576 ] || bad="$bad $l:$b(want < 1 MiB)"
    done
    for l in $off; do
        b=$(awk -v l="$l" '$1 == l { print $2 }' "$work/delta")
        [ "${b:-0}" -lt 65536 ] || bad="$bad $l:$b(want < 64 KiB)"
    done
    [ "$rc" -eq 0 ] && [ -z "$bad" ]
    verdict $? "netgraph $name: $from -> $to stays on its route ($(tr '\n' ' ' <"$work/delta" | sed 's/ $//'))${bad:+; wrong:$bad}"
}

# ----------------------------------------------------------------- ring4, the graph's routes
if bed_up ring4 "$work/ring4"; then
    mpi "$work/smoke.log" "$smoke" --label "netgraph ring4 tuned" --pvars off
    # The graph's routes: fewest hops, then lowest next-hop id: 0 -> 2 via 1.
    stream ring4 0 2 "0>1 1>2" "2>1 1>0" "0>3 3>2 3>0 2>3"
    "$ng" measure 0 1 --seconds 2 2>&1 | sed 's/^/INFO: /'
fi
bed_down ring4

# ----------------------------------------------------------------- ring4, edited routes
if bed_up "ring4 edited" "$work/ring4" 's/^route 0 2 1 2$/route 0 2 3 2/; s/^route 2 0 1 0$/route 2 0 3 0/'; then
    stream "ring4 edited" 0 2 "0>3 3>2" "2>3 3>0" "0>1 1>2 1>0 2>1"
fi
bed_down "ring4 edited"

# ----------------------------------------------------------------- p3.8xlarge-like
if bed_up "p38 --scale 0.00025" "$work/p38" "" --scale 0.00025; then
    "$ng" link-bytes >"$work/lb0"
    mpi "$work/smoke.log" "$smoke" --label "netgraph p38 tuned" --pvars off
    "$ng" link-bytes >"$work/lb1"
    echo "INFO: p38 smoke bytes per directed link: $(paste -d' ' "$work/lb0" "$work/lb1" |
        awk '$1 == "link" { printf "%s>%s:%.1fMB ", $2, $3, ($12 - $5) / 1e6 }
             $1 == "if" && $3 == "mgmt" { m += $9 - $4 } END { printf "(mgmt, all nodes: %.0f KB)", m / 1e3 }')"
    stream "p38 dual" 0 1 "0>1" "1>0" "0>2 0>3 2>1 3>1 1>2 1>3"
    stream "p38 single" 0 2 "0>2" "2>0" "0>1 0>3 1>2 3>2 2>1 2>3"
fi
bed_down p38

# ----------------------------------------------------------------- directed, failed
if bed_up directed "$work/directed"; then
    # 1 -> 0 is absent: the route goes round 1-2-3-0; the reply path 0 -> 1
    # is the direct link.
    stream directed 1 0 "1>2 2>3 3>0" "0>1" "1>0 0>2 0>3 2>1 3>2 2>0"
fi
bed_down directed

# ----------------------------------------------------------------- clos, planned spines
if bed_up clos 'leafspine:4x1,leaves=2,spines=2,bw=50Mb/s,pcie=50Mb/s' "" --scale 1 \
        --xfer direct --coll ag --bytes 4KiB --spines exact; then
    grep -q '^rule 8 0 2 11$' "$work/plan"
    verdict $? "themis-plan bed clos: 0 -> 2 by spine 11, a rule at leaf 8"
    stream clos 0 2 "0>4 4>8 8>11 11>9 9>6 6>2" "2>6 6>9 9>11 11>8 8>4 4>0" "8>10 10>9 9>10 10>8"
    # A job on some rank nodes, in another order (mpirun --hosts): Open
    # MPI's collectives pass, rank node 3 sends, rank node 1 stays idle.
    "$ng" link-bytes >"$work/lb0"
    mpi "$work/smoke.log" --hosts 3,0,2 -- "$smoke" --label "netgraph clos --hosts 3,0,2" --pvars off
    rc=$?
    "$ng" link-bytes >"$work/lb1"
    used=$(paste -d' ' "$work/lb0" "$work/lb1" | awk '$1 == "link" && $2 == 3 && $3 == 7 { print $12 - $5 }')
    idle=$(paste -d' ' "$work/lb0" "$work/lb1" |
           awk '$1 == "link" && ($2 == 1 || $3 == 1) { s += $12 - $5 } END { print s + 0 }')
    [ "$rc" -eq 0 ] && [ "${used:-0}" -ge 1048576 ] && [ "$idle" -lt 65536 ]
    verdict $? "netgraph clos mpirun --hosts 3,0,2: link 3>7 ${used:-none} B (want >= 1 MiB), node 1's links $idle B (want < 64 KiB)"
fi
bed_down clos

exit "$failed"
