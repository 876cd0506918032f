#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# netclos smoke test (benchmarks/netbed/netclos: a 2-layer Clos of
# namespaces, ECMP or the planner's per-flow spine as policy routes).
# On a 2x2 Clos with 2 hosts per ToR (hosts 0,1 under ToR 0, 2,3 under
# ToR 1), 100mbit per ToR-spine direction:
#   1. up, check with ECMP: every inter-ToR pair can leave on both spines
#      (ip route get over 32 TCP source ports);
#   2. themis-plan route --algo exact for the ring 0,2,1,3 (4 inter-ToR
#      flows, D = 2 = S: one flow per link), routes plan, check: every
#      planned pair leaves on its spine;
#   3. one iperf3 stream (4 MiB) per planned flow, one at a time: the flow's
#      up link ToR -> spine and down link spine -> ToR carry >= 2 MB (the
#      client may end with data still queued), the other spine's up link
#      from that ToR < 256 KiB;
#   4. the same with every flow's spine swapped (a second plan): the
#      bytes move with it, so they follow the rules, not the hash;
#   5. Open MPI's own Allreduce/Reduce_scatter (tests/netbed/netbed_smoke.c)
#      over the ring's 4 hosts (netclos mpirun --hosts);
#   6. down: no namespace with our prefix is left.
# Holds /tmp/themis-netbed.lock (one bed at a time).  Prints PASS:/FAIL:
# lines; "SKIP: netclos smoke (reason)" only when network namespaces
# cannot be created here.  NETBED_SMOKE_TIMEOUT: seconds per mpirun (120).
set -uo pipefail
if [ -z "${NETCLOS_SMOKE_LOCKED:-}" ]; then
    exec env NETCLOS_SMOKE_LOCKED=1 flock /tmp/themis-netbed.lock bash "$0" "$@"
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${THEMIS_BUILD_DIR:-$top}
nc=$top/benchmarks/netbed/netclos
plan=$build/tools/themis-plan
per_run=${NETBED_SMOKE_TIMEOUT:-120}
failed=0

export THEMIS_NETCLOS_PREFIX=tcsm$$
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-netclos-smoke.XXXXXX")
export THEMIS_NETCLOS_STATE_DIR=$work/state

# shellcheck source=tests/netbed/netbed_lib.sh
. "$top/tests/netbed/netbed_lib.sh"
netbed_cleanup_on_exit "$nc" "$work"
netbed_need_netns "netclos smoke" "$THEMIS_NETCLOS_PREFIX"
netbed_need_tools "netclos smoke" mpicc mpirun tc iperf3 pyroute2
if [ ! -x "$plan" ]; then
    echo "FAIL: netclos smoke ($plan missing: make)"
    exit 1
fi

verdict() {
    if [ "$1" -eq 0 ]; then
        echo "PASS: $2"
    else
        echo "FAIL: $2"
        failed=1
    fi
}

smoke=$work/netbed_smoke
if ! mpicc -std=gnu11 -O2 -Wall -o "$smoke" "$top/tests/netbed/netbed_smoke.c" >"$work/cc.log" 2>&1; then
    cat "$work/cc.log"
    echo "FAIL: netclos smoke: tests/netbed/netbed_smoke.c builds with mpicc"
    exit 1
fi

if ! "$nc" up 2x2 --hosts-per-tor 2 --rate 100mbit >"$work/up.log" 2>&1; then
    cat "$work/up.log"
    verdict 1 "netclos up 2x2 --hosts-per-tor 2 --rate 100mbit"
    exit 1
fi
verdict 0 "netclos up 2x2 ($(sed -n 's/.*, \([0-9.]* s\) (state.*/\1/p' "$work/up.log"))"
out=$("$nc" check 2>&1)
verdict $? "netclos check, ECMP: $out"

# Planner ids: ToRs 0-1, spines 2-3, hosts 4-7 (host h = id - 4).
"$plan" route --clos 2x2 --hosts-per-tor 2 --bw 100mbit --ring 4,6,5,7 --algo exact \
    --json "$work/plan.json" >"$work/plan.log" 2>&1
verdict $? "themis-plan route --algo exact on the ring 0,2,1,3: $(tail -1 "$work/plan.log")"
# The flows (host a, host b, spine) of a plan.
flows() {
    /usr/bin/python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["flows"]:
    if f["spine"] is not None:
        print(f["src"] - 4, f["dst"] - 4, f["spine"])' "$1"
}
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["flows"]:
    if f["spine"] is not None:
        f["spine"] = 1 - f["spine"]
        f["spine_node"] = 2 + f["spine"]
json.dump(d, open(sys.argv[2], "w"))' "$work/plan.json" "$work/swapped.json"
nflows=$(flows "$work/plan.json" | wc -l)
spines=$(flows "$work/plan.json" | awk '{ print $3 }' | sort -u | tr '\n' ' ')
[ "$nflows" -eq 4 ] && [ "$spines" = "0 1 " ]
verdict $? "the plan routes 4 inter-ToR flows over both spines (flows $nflows, spines ${spines% })"

addr() { echo "198.18.$((64 + $1 / 2)).$(($1 % 2 + 1))"; }
bytes() { "$nc" link-bytes | awk -v d="$1" -v t="$2" -v s="$3" '$1 == d && $2 == t && $3 == s { print $4 }'; }

# One 4 MiB iperf3 stream per flow of plan FILE; checks the bytes' links.
stream_plan() {
    local name=$1 file=$2 a b s out
    out=$("$nc" routes plan "$file" 2>&1) && out=$("$nc" check 2>&1)
    verdict $? "netclos routes plan + check ($name): $out"
    while read -r a b s; do
        local ta=$((a / 2)) tb=$((b / 2)) o=$((1 - s))
        local up0 down0 other0 up1 down1 other1 rc=0
        up0=$(bytes up "$ta" "$s") down0=$(bytes down "$tb" "$s") other0=$(bytes up "$ta" "$o")
        "$nc" exec "h$b" iperf3 -s -1 -B "$(addr "$b")" >/dev/null 2>&1 &
        local srv=$!
        sleep 0.5
        timeout 30 "$nc" exec "h$a" iperf3 -c "$(addr "$b")" -B "$(addr "$a")" -n 4M \
            >"$work/iperf.log" 2>&1 || rc=$?
        wait "$srv" 2>/dev/null
        sleep 0.3               # let the shaper's queue drain
        up1=$(bytes up "$ta" "$s") down1=$(bytes down "$tb" "$s") other1=$(bytes up "$ta" "$o")
        local u=$((up1 - up0)) d=$((down1 - down0)) x=$((other1 - other0))
        [ "$rc" -eq 0 ] && [ "$u" -ge 2000000 ] && [ "$d" -ge 2000000 ] && [ "$x" -lt 262144 ]
        verdict $? "$name: host $a -> host $b on spine $s: up T$ta-S$s $u B, down S$s-T$tb $d B, other spine's up $x B${rc:+ (iperf3 exit $rc)}"
    done < <(flows "$file")
}
stream_plan "exact plan" "$work/plan.json"
stream_plan "swapped plan" "$work/swapped.json"

out=$("$nc" routes ecmp 2>&1) && out=$("$nc" check 2>&1)
verdict $? "netclos routes ecmp + check: $out"
timeout -k 10 "$per_run" "$nc" mpirun --hosts 0,2,1,3 -- --mca coll tuned,libnbc,basic,self \
    "$smoke" --label "netclos 2x2 tuned" --pvars off >"$work/smoke.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL)' "$work/smoke.log"
[ "$rc" -eq 0 ] && ! grep -q '^FAIL' "$work/smoke.log" && grep -q '^PASS' "$work/smoke.log"
verdict $? "netclos mpirun --hosts 0,2,1,3: Open MPI collectives over the Clos (exit $rc)"
[ "$rc" -eq 0 ] || tail -5 "$work/smoke.log"

out=$("$nc" down 2>&1)
left=$(ip netns list | grep -c "^$THEMIS_NETCLOS_PREFIX-" || true)
[ "$left" -eq 0 ]
verdict $? "netclos down: $out; namespaces left: $left"
exit "$failed"
