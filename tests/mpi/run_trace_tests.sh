#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# What a call did: coll_themis_trace, `themis-plan timeline --trace`, and
# the tiny-messages warning.  tests/mpi/repro makes a known sequence of
# calls per rank (COUNT REPS: REPS float allreduces of COUNT elements, an
# 8-byte-per-rank allgather, REPS reduce_scatter_blocks, another allgather
# and a 4-byte allreduce), so the trace must hold 2 REPS + 3 call records
# when every size runs on themis.  No timing assertions: the machine may be
# loaded.  Field checks need python3 (SKIP without it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=trace
suite_logs=trace
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
prog=$BUILD/tests/mpi/repro
plan=$BUILD/tools/themis-plan
for f in "$prog" "$plan"; do
    if [ ! -x "$f" ]; then
        echo "FAIL: trace: program ($f not found: build it with 'make check TESTS=')"
        exit 1
    fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-trace.XXXXXX")
trap 'rm -rf "$work"' EXIT
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

pass() { echo "PASS: trace $1"; }
fail() { failures=$((failures + 1)); echo "FAIL: trace $1 ($2)"; }

# launch NAME NP COUNT REPS [mpirun options...]: repro under mpirun; the
# output goes to $log, the exit status to $rc.
launch() {
    local name=$1 np=$2 count=$3 reps=$4 tmp
    shift 4
    log="$log_dir/$name.log"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/themis-trace-run.XXXXXX")
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 600 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" "$@" \
        "$prog" "$count" "$reps" >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
}

# themis_calls COLL: what repro's MPI_T counters say rank 0 ran on themis.
themis_calls() {
    sed -n "s/^repro: $1 .* themis_calls=\([0-9]*\)\$/\1/p" "$log"
}

REPS=3
CALLS=$((2 * REPS + 3))
COUNT=1048576   # 4 MiB of floats: 16 chunks of 256 KiB below
SETTINGS=(--mca coll_themis_dims 2x2 --mca coll_themis_chunks 16
          --mca coll_themis_min_chunk_bytes 65536)

# --- every call traced, one file per rank ("%r")
dir_a=$work/a
mkdir -p "$dir_a"
launch traced 4 "$COUNT" "$REPS" "${VADER[@]}" "${SETTINGS[@]}" \
    --mca coll_themis_min_bytes 0 --mca coll_themis_trace "$dir_a/trace.%r.jsonl"
if [ "$rc" -ne 0 ]; then
    fail "np=4 traced run" "exit $rc; log $log"
else
    pass "np=4 traced run (repro, 2x2, min_bytes 0)"
fi

nfiles=$(find "$dir_a" -name 'trace.*.jsonl' | wc -l)
if [ "$nfiles" -eq 4 ] && [ -s "$dir_a/trace.0.jsonl" ] && [ -s "$dir_a/trace.3.jsonl" ]; then
    pass "one file per rank (4)"
else
    fail "one file per rank" "$nfiles files: $(ls "$dir_a")"
fi

why=""
ar_calls=$(themis_calls allreduce)
for r in 0 1 2 3; do
    f=$dir_a/trace.$r.jsonl
    [ -f "$f" ] || { why="$why rank $r: no file;"; continue; }
    n=$(grep -c '^{"type":"call",' "$f")
    nfb=$(grep -c '^{"type":"fallback",' "$f")
    n_ar=$(grep '^{"type":"call",' "$f" | grep -c '"coll":"allreduce","bytes":4194304,')
    [ "$n" -eq "$CALLS" ] || why="$why rank $r: $n call records, want $CALLS;"
    [ "$nfb" -eq 0 ] || why="$why rank $r: $nfb fallback records at min_bytes 0;"
    [ "$n_ar" -eq "${ar_calls:-x}" ] 2>/dev/null \
        || why="$why rank $r: $n_ar 4 MiB allreduce records, MPI_T says ${ar_calls:-?};"
done
if [ -z "$why" ]; then
    pass "one record per themis call ($CALLS per rank; allreduces = MPI_T calls counter)"
else
    fail "one record per themis call" "$why"
fi

if [ "$have_python" -eq 0 ]; then
    echo "SKIP: trace record fields (python3 not installed)"
else
    chk=$(python3 - "$dir_a" 16 <<'EOF'
import json, sys, glob
errs = []
want_chunks = int(sys.argv[2])
stages = {"allreduce": 4, "reduce_scatter_block": 2, "allgather": 2}   # per chunk on 2x2
for path in sorted(glob.glob(sys.argv[1] + "/trace.*.jsonl")):
    lines = open(path).read().splitlines()
    head = json.loads(lines[0])
    if head.get("type") != "header" or head.get("format") != "coll_themis_trace":
        errs.append("%s: no header" % path)
    for no, line in enumerate(lines[1:], 2):
        r = json.loads(line)
        if r["type"] != "call":
            continue
        where = "%s:%d" % (path, no)
        for k in ("comm", "comm_size", "coll", "bytes", "dtype_size", "algorithm", "chunks",
                  "program_chunks", "scheduler", "intra_order", "chunks_in_flight", "topology",
                  "chunk_orders", "program_hash", "engine_ns", "ops"):
            if k not in r:
                errs.append("%s: no %s" % (where, k))
        if errs:
            break
        if r["algorithm"] != "themis" or r["comm_size"] != 4:
            errs.append("%s: algorithm %s on %d ranks" % (where, r["algorithm"], r["comm_size"]))
        # 16 chunks for the 4 MiB calls (coll_themis_chunks), one for the small ones
        want = want_chunks if r["bytes"] == 4194304 else 1
        if r["chunks"] != want or r["program_chunks"] != want or len(r["chunk_orders"]) != want:
            errs.append("%s: %s of %d bytes: chunks %d/%d, %d orders, want %d" % (
                where, r["coll"], r["bytes"], r["chunks"], r["program_chunks"],
                len(r["chunk_orders"]), want))
        if [d["size"] for d in r["topology"]["dims"]] != [2, 2]:
            errs.append("%s: topology %s" % (where, r["topology"]))
        if (r["scheduler"], r["intra_order"], r["chunks_in_flight"]) != ("themis", "scf", 2):
            errs.append("%s: settings %s %s %s" % (where, r["scheduler"], r["intra_order"],
                                                    r["chunks_in_flight"]))
        # an op per transfer, each labelled with its chunk's stage
        ops = r["ops"]
        labels = set((o[2], o[3], o[1]) for o in ops)
        if len(labels) != want * stages[r["coll"]]:
            errs.append("%s: %d ops in %d stages, want %d stages" % (
                where, len(ops), len(labels), want * stages[r["coll"]]))
        if sorted(set(o[2] for o in ops)) != list(range(want)):
            errs.append("%s: op chunks %s" % (where, sorted(set(o[2] for o in ops))))
        for o in ops:
            if not (0 <= o[4] <= o[5] <= r["engine_ns"]) or o[3] not in ("RS", "AG") \
                    or not 0 <= o[1] < len(r["topology"]["dims"]):
                errs.append("%s: bad op %s (engine_ns %d)" % (where, o, r["engine_ns"]))
                break
print("ok" if not errs else "; ".join(errs[:4]))
EOF
)
    if [ "$chk" = "ok" ]; then
        pass "record fields (algorithm, chunks, orders, topology, every op end >= start)"
    else
        fail "record fields" "$chk"
    fi
fi

# --- themis-plan timeline --trace: PNG and summary for a traced call
png=$work/call0.png
timeout 300 "$plan" timeline --trace "$dir_a/trace.0.jsonl" --call 0 --png "$png" \
    >"$work/tl.out" 2>"$work/tl.err"
rc=$?
magic=$(head -c 4 "$png" 2>/dev/null | od -An -c | tr -d ' ')
if [ "$rc" -eq 0 ] && [ "$magic" = '211PNG' ] && grep -q '^measured: ' "$work/tl.out" \
    && grep -q '^predicted: .*busy d0 .* d1 ' "$work/tl.out" \
    && grep -q 'dimension orders match the trace (16 chunks)' "$work/tl.out"; then
    pass "timeline --trace writes a PNG and the summary"
    sed 's/^/    | /' "$work/tl.out"
else
    fail "timeline --trace" "rc=$rc magic=$magic: $(head -c 400 "$work/tl.out" "$work/tl.err")"
fi
timeout 300 "$plan" timeline --trace "$dir_a/trace.2.jsonl" --call $((REPS + 1)) \
    --png "$work/rs.png" >"$work/rs.out" 2>"$work/rs.err"
rc=$?
if [ "$rc" -eq 0 ] && [ -s "$work/rs.png" ] && grep -q '^call: reduce_scatter_block ' "$work/rs.out"
then
    pass "timeline --trace of a reduce_scatter_block on rank 2"
else
    fail "timeline --trace reduce_scatter_block" "rc=$rc: $(head -c 400 "$work/rs.err")"
fi

# --- an algorithm without a Themis schedule: the program's hash instead of
# chunk orders, and the cost model's total as the prediction
dir_t=$work/torus
mkdir -p "$dir_t"
launch torus2d 4 "$COUNT" 1 "${VADER[@]}" --mca coll_themis_torus 2x2 \
    --mca coll_themis_allreduce_algorithm torus2d --mca coll_themis_chunks 16 \
    --mca coll_themis_min_chunk_bytes 65536 --mca coll_themis_min_bytes 0 \
    --mca coll_themis_trace "$dir_t/trace.%r.jsonl"
rec=$(grep -m1 '"coll":"allreduce","bytes":4194304,' "$dir_t/trace.0.jsonl" 2>/dev/null)
timeout 300 "$plan" timeline --trace "$dir_t/trace.0.jsonl" --png "$work/torus.png" \
    >"$work/torus.out" 2>"$work/torus.err"
rc_tl=$?
if [ "$rc" -eq 0 ] && grep -q '"algorithm":"torus2d",.*"chunks":16,"program_chunks":[1-9][0-9]*,' <<<"$rec" \
    && grep -q '"queues":4,"program_hash":"0x[0-9a-f]\{16\}"' <<<"$rec" \
    && ! grep -q chunk_orders <<<"$rec" \
    && [ "$rc_tl" -eq 0 ] && [ -s "$work/torus.png" ] \
    && grep -q '^predicted: .*(cost model, torus2d' "$work/torus.out"; then
    pass "torus2d call: program hash, 4 queues, cost-model prediction"
else
    fail "torus2d call" "run rc=$rc, timeline rc=$rc_tl: $(head -c 300 "$work/torus.err"); \
record: ${rec:0:300}"
fi

# --- malformed traces: a message naming the line, exit status 2, no PNG
good=$dir_a/trace.0.jsonl
second=$(sed -n 2p "$good")
{ sed -n 1p "$good"; printf '%s\n' "${second:0:900}"; } >"$work/truncated.jsonl"
sed '2s/"chunks":16,/"chunks":"16",/' "$good" >"$work/string_chunks.jsonl"
sed -E '2s/"ops":\[\[([0-9]+),([0-9]+),([0-9]+),"RS",/"ops":[[\1,\2,\3,7,/' "$good" \
    >"$work/number_phase.jsonl"
sed -E '2s/"ops":\[\[0,0,0,"RS",([0-9]+),([0-9]+)\]/"ops":[[0,0,0,"RS",\2,\1]/' "$good" \
    >"$work/reversed_op.jsonl"
sed -n '2,$p' "$good" >"$work/no_header.jsonl"
printf 'not json\n' >"$work/garbage.jsonl"
for bad in truncated:2 string_chunks:2 number_phase:2 reversed_op:2 no_header:1 garbage:1; do
    name=${bad%%:*}
    line=${bad##*:}
    rm -f "$work/bad.png"
    timeout 120 "$plan" timeline --trace "$work/$name.jsonl" --png "$work/bad.png" \
        >"$work/bad.out" 2>"$work/bad.err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "$name.jsonl:$line: " "$work/bad.err" && [ ! -e "$work/bad.png" ]
    then
        pass "malformed trace ($name): $(head -n 1 "$work/bad.err" | sed 's/.*jsonl://')"
    else
        fail "malformed trace ($name)" "rc=$rc, want 2 and a message for line $line: \
$(head -c 300 "$work/bad.err")"
    fi
done

# --- fallbacks are recorded on lines of their own: the 32-byte allgathers
# and the 4-byte allreduce are below min_bytes here
dir_b=$work/b
mkdir -p "$dir_b"
launch fallbacks 4 "$COUNT" "$REPS" "${VADER[@]}" "${SETTINGS[@]}" \
    --mca coll_themis_min_bytes 1024 --mca coll_themis_trace "$dir_b/trace"
f=$dir_b/trace.1
nfb=$(grep -c '^{"type":"fallback",.*"reason":"below coll_themis_min_bytes"}$' "$f" 2>/dev/null)
ncall=$(grep -c '^{"type":"call",' "$f" 2>/dev/null)
nag=$(grep -c '^{"type":"fallback",.*"coll":"allgather","bytes":32,' "$f" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ "${nfb:-0}" -eq 3 ] && [ "${nag:-0}" -eq 2 ] \
    && [ "${ncall:-0}" -eq $((2 * REPS)) ]; then
    pass "fallbacks below min_bytes on lines of their own (3 per rank; \".<rank>\" appended)"
else
    fail "fallback records" "rc=$rc, ${nfb:-no} fallbacks (want 3), ${nag:-no} allgathers, \
${ncall:-no} calls (want $((2 * REPS))) in $f; log $log"
fi

# --- a trace file that cannot be opened: one message per process, the
# calls run as without a trace
launch unopenable 4 "$COUNT" 1 "${VADER[@]}" "${SETTINGS[@]}" --mca coll_themis_min_bytes 0 \
    --mca coll_themis_trace "$work/no/such/dir/trace"
nmsg=$(grep -c 'cannot open its trace file' "$log")
if [ "$rc" -eq 0 ] && [ "$nmsg" -eq 4 ] && [ "$(themis_calls allreduce)" = 1 ]; then
    pass "unopenable trace file: one message per process, calls still on themis"
else
    fail "unopenable trace file" "rc=$rc, $nmsg messages (want 4), allreduce themis_calls \
$(themis_calls allreduce); log $log"
fi

# --- the tiny-messages warning: a 4 MiB allreduce at np 4 with chunks of at
# least 1 byte makes 139 chunks of ~7.5 KiB transfers, 1668 per rank
TINY='runs a collective as thousands of small messages'
launch tiny 4 "$COUNT" 1 "${VADER[@]}" --mca coll_themis_min_bytes 0 \
    --mca coll_themis_min_chunk_bytes 1 --mca coll_themis_dims 4
n=$(grep -c "$TINY" "$log")
if [ "$rc" -eq 0 ] && [ "$n" -eq 1 ] && grep -q 'coll_themis_min_chunk_bytes = 1$' "$log" \
    && [ "$(themis_calls allreduce)" = 1 ]; then
    pass "tiny-messages warning once (min_chunk_bytes 1, 4 MiB, np 4)"
    grep -A4 "$TINY" "$log" | sed 's/^/    | /'
else
    fail "tiny-messages warning" "rc=$rc, shown $n times (want 1); log $log"
fi
launch defaults 4 "$COUNT" 1 "${VADER[@]}"
n=$(grep -c "$TINY" "$log")
launch defaults_themis 4 "$COUNT" 1 "${VADER[@]}" --mca coll_themis_min_bytes 0
n2=$(grep -c "$TINY" "$log")
if [ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && [ "$n2" -eq 0 ] && [ "$(themis_calls allreduce)" = 1 ]
then
    pass "no tiny-messages warning with default settings (fallback sizes, and on themis)"
else
    fail "no tiny-messages warning with defaults" "rc=$rc, shown $n and $n2 times; log $log"
fi

if grep -q 'parameter "coll_themis_trace"' <<<"$themis_params" \
    && grep -q 'performance "coll_themis_tiny_message_calls"' <<<"$themis_params"; then
    pass "ompi_info documents coll_themis_trace and coll_themis_tiny_message_calls"
else
    fail "ompi_info" "coll_themis_trace or coll_themis_tiny_message_calls not listed"
fi

[ "$failures" -eq 0 ]
