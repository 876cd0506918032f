#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# themis-plan smoke tests (no MPI needed; it lives here because the suite
# runner picks up tests/mpi/run_*.sh).  Prints PASS:/FAIL:/SKIP: lines.
# THEMIS_BUILD_DIR: build tree holding tools/themis-plan (default: repo root).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${THEMIS_BUILD_DIR:-$top}
plan="$build/tools/themis-plan"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$plan" ]; then
    echo "FAIL: cli_binary ($plan not built)"
    exit 1
fi

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1 ($2)"; }
# run NAME CMD...: runs CMD, stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, status in $rc
run() {
    local name=$1; shift
    timeout 120 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

# --- presets: the six Table 2 topologies, each 1024 NPUs
run presets "$plan" presets
n=$(awk 'NR > 1 && $2 == 1024' "$tmp/presets.out" | wc -l)
if [ $rc -eq 0 ] && [ "$n" -eq 6 ] && grep -q '^3D-SW_SW_SW_homo ' "$tmp/presets.out"; then
    pass cli_presets
else
    fail cli_presets "rc=$rc, $n presets with 1024 NPUs"
fi

# --- topo: a preset parses to 3 dims and 1024 NPUs
run topo "$plan" topo 3D-SW_SW_SW_homo
if [ $rc -eq 0 ] && grep -q '^NPUs: 1024$' "$tmp/topo.out" && grep -q '^dims: 3 ' "$tmp/topo.out"
then
    pass cli_topo_preset
else
    fail cli_topo_preset "rc=$rc: $(head -c 200 "$tmp/topo.out" "$tmp/topo.err")"
fi

# --- topo: a parse error names its position and exits 2
run topo_err "$plan" topo 'sw:16:800Gb:700ns_sw:8:800Qb:700ns'
if [ $rc -eq 2 ] && grep -Eq 'line [0-9]+, column [0-9]+' "$tmp/topo_err.err"; then
    pass cli_topo_parse_error
else
    fail cli_topo_parse_error "rc=$rc: $(head -c 200 "$tmp/topo_err.err")"
fi

# --- topo from a file equals the same spec
printf '# two dims\nsw 4 400Gb 1us\n\nring 8 100Gb 2us\n' >"$tmp/t.topo"
run topo_file "$plan" topo --topo-file "$tmp/t.topo"
run topo_spec "$plan" topo 'sw:4:400Gb:1us_ring:8:100Gb:2us'
if [ $rc -eq 0 ] && grep -q '^NPUs: 32$' "$tmp/topo_file.out" \
   && cmp -s "$tmp/topo_file.out" "$tmp/topo_spec.out"; then
    pass cli_topo_file
else
    fail cli_topo_file "file and spec disagree or wrong NPU count"
fi

# --- bad usage exits 2
bad=""
run u1 "$plan" simulate --topo 2D-SW_SW --bytes 12XB;           [ $rc -eq 2 ] || bad="$bad size:$rc"
run u2 "$plan" simulate --bytes 1GB;                            [ $rc -eq 2 ] || bad="$bad notopo:$rc"
run u3 "$plan" schedule --topo 2D-SW_SW --frobnicate;           [ $rc -eq 2 ] || bad="$bad opt:$rc"
run u4 "$plan" schedule --topo 2D-SW_SW --scheduler best;       [ $rc -eq 2 ] || bad="$bad sched:$rc"
run u5 "$plan" schedule --topo 2D-SW_SW --chunks 0;             [ $rc -eq 2 ] || bad="$bad chunks:$rc"
run u6 "$plan" nosuchcommand;                                   [ $rc -eq 2 ] || bad="$bad cmd:$rc"
run u7 "$plan" timeline --topo 2D-SW_SW;                        [ $rc -eq 2 ] || bad="$bad nopng:$rc"
run u8 "$plan" simulate --topo 2D-SW_SW --png x.png;            [ $rc -eq 2 ] || bad="$bad png:$rc"
run u9 "$plan" simulate --topo 2D-SW_SW --bytes 1.5B;           [ $rc -eq 2 ] || bad="$bad frac:$rc"
run u10 "$plan" simulate --topo torus2d:4x4;                   [ $rc -eq 2 ] &&
    grep -q "msccl simulate take --graph" "$tmp/u10.err" || bad="$bad graph-as-topo:$rc"
run h1 "$plan" --help;                                          [ $rc -eq 0 ] || bad="$bad help:$rc"
run h2 "$plan" simulate --help;                                 [ $rc -eq 0 ] || bad="$bad shelp:$rc"
if [ -z "$bad" ]; then
    pass cli_exit_codes
else
    fail cli_exit_codes "wrong status:$bad"
fi

# --- --count N is --bytes 4N wherever a size is taken; not both
run cnt "$plan" simulate --topo 2D-SW_SW --count 1M,2M --chunks 4 --csv
run cntb "$plan" simulate --topo 2D-SW_SW --bytes 4MiB,8MiB --chunks 4 --csv
run cnt2 "$plan" simulate --topo 2D-SW_SW --count 1M --bytes 4MiB
if [ $rc -eq 2 ] && cmp -s "$tmp/cnt.out" "$tmp/cntb.out" && [ -s "$tmp/cnt.out" ]; then
    pass cli_count
else
    fail cli_count "rc=$rc (want 2 for both), or --count 1M,2M differs from --bytes 4MiB,8MiB"
fi

# --- cycles --costs: --chunks and --torus-chunks have the other subcommands'
# bound (10^9 chunks used to plan for minutes); out of range is rejected at
# once (10 s is only a hang guard) with the range in the message.
bad=""
for opt in --chunks --torus-chunks; do
    timeout 10 "$plan" cycles --costs --topo biring:4:100Gb:1us_biring:4:100Gb:1us \
        "$opt" 1000000000 >"$tmp/cc.out" 2>"$tmp/cc.err"
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q "cycles: $opt: '1000000000' is not an integer in 1 \.\. 1048576" "$tmp/cc.err"
    then
        bad="$bad $opt: rc=$rc $(head -c 200 "$tmp/cc.err")"
    fi
done
run cc_max "$plan" cycles --costs --topo biring:4:100Gb:1us_biring:4:100Gb:1us \
    --chunks 1048576 --bytes 1K
[ $rc -eq 0 ] || bad="$bad 1048576: rc=$rc $(head -c 200 "$tmp/cc_max.err")"
if [ -z "$bad" ]; then
    pass cli_cycles_chunks_bound
else
    fail cli_cycles_chunks_bound "$bad"
fi

# --- schedule: text output, deterministic, and sizes in binary and plain bytes agree
run s1 "$plan" schedule --topo 3D-SW_SW_SW_homo --bytes 1GiB --chunks 16 --order fifo
run s2 "$plan" schedule --topo 3D-SW_SW_SW_homo --bytes 1073741824 --chunks 16 --order fifo
h1=$(sed -n 's/^schedule hash: //p' "$tmp/s1.out")
h2=$(sed -n 's/^schedule hash: //p' "$tmp/s2.out")
rows=$(awk '/^ *chunk +bytes/ { on = 1; next } on && NF == 0 { on = 0 } on' "$tmp/s1.out" | wc -l)
if [ $rc -eq 0 ] && [ -n "$h1" ] && [ "$h1" = "$h2" ] && [ "$rows" -eq 16 ] \
   && grep -q '^  d2 ' "$tmp/s1.out"; then
    pass cli_schedule_text
else
    fail cli_schedule_text "rc=$rc hash '$h1' vs '$h2', $rows chunk rows"
fi

# --- schedule: baseline chunks all take d0>d1>d2 and come back d2>d1>d0
run sb "$plan" schedule --topo 3D-SW_SW_SW_homo --bytes 100MB --chunks 8 --scheduler baseline
n=$(grep -Ec '^ +[0-9]+ +[0-9]+  d0>d1>d2 +d2>d1>d0 *$' "$tmp/sb.out")
if [ $rc -eq 0 ] && [ "$n" -eq 8 ]; then
    pass cli_schedule_baseline
else
    fail cli_schedule_baseline "rc=$rc, $n of 8 chunks in baseline order"
fi

# --- schedule --json: valid JSON with the chunks, dims and the same hash as the text
run j1 "$plan" schedule --topo 3D-SW_SW_SW_homo --bytes 1GiB --chunks 16 --order fifo --json -
run j2 "$plan" schedule --topo 3D-SW_SW_SW_homo --bytes 1GiB --chunks 16 --order fifo \
    --json "$tmp/sched.json"
if [ $have_python -eq 0 ]; then
    echo "SKIP: cli_schedule_json (python3 not installed)"
else
    chk=$(python3 - "$tmp/j1.out" "$tmp/sched.json" "$h1" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
errs = []
if a != b: errs.append("stdout and file differ")
if a.get("hash") != sys.argv[3]: errs.append("hash %s != text %s" % (a.get("hash"), sys.argv[3]))
if len(a.get("chunks", [])) != 16: errs.append("chunks: %d" % len(a.get("chunks", [])))
if len(a.get("dims", [])) != 3: errs.append("dims: %d" % len(a.get("dims", [])))
if sum(c["bytes"] for c in a["chunks"]) != a["bytes"]: errs.append("chunk bytes do not sum")
for c in a["chunks"]:
    if sorted(c["rs_order"]) != [0, 1, 2] or c["ag_order"] != c["rs_order"][::-1]:
        errs.append("chunk %d orders %s %s" % (c["id"], c["rs_order"], c["ag_order"])); break
for d in a["dims"]:
    if len(d["order"]) != 32: errs.append("dim %d has %d ops" % (d["index"], len(d["order"])))
print("; ".join(errs) if errs else "ok")
EOF
)
    if [ $rc -eq 0 ] && [ "$chk" = "ok" ]; then
        pass cli_schedule_json
    else
        fail cli_schedule_json "rc=$rc: $chk $(head -c 200 "$tmp/j2.err")"
    fi
fi

# --- simulate: four rows; Ideal is a lower bound; Themis beats the baseline on homo
run sim "$plan" simulate --topo 3D-SW_SW_SW_homo --bytes 1GB --chunks 64
n=$(grep -Ec '^  (Baseline|Themis\+FIFO|Themis\+SCF|Ideal) ' "$tmp/sim.out")
if [ $rc -eq 0 ] && [ "$n" -eq 4 ]; then
    pass cli_simulate_rows
else
    fail cli_simulate_rows "rc=$rc, $n rows: $(head -c 300 "$tmp/sim.err")"
fi
run csv "$plan" simulate --topo 3D-SW_SW_SW_homo --bytes 100MB,1GB --chunks 64 --csv
chk=$(awk -F, 'NR == 1 { if ($6 != "method" || $7 != "time_ps") bad = "header" ; next }
    { n++; t[$3, $6] = $7; seen[$3] = 1 }
    END {
        if (n != 10) bad = bad " rows=" n
        for (k in t) { split(k, a, SUBSEP); if (t[a[1], "Ideal"] > t[k]) bad = bad " ideal>" a[2] }
        for (b in seen) if (t[b, "Baseline-LP"] > t[b, "Baseline"]) bad = bad " baseline-lp>baseline"
        if (t[1000000000, "Themis+SCF"] >= t[1000000000, "Baseline"]) bad = bad " scf>=baseline"
        print bad == "" ? "ok" : bad
    }' "$tmp/csv.out")
if [ $rc -eq 0 ] && [ "$chk" = "ok" ]; then
    pass cli_simulate_csv
else
    fail cli_simulate_csv "rc=$rc:$chk"
fi

# --- simulate --latency: the serialized mode (a step's latency holds the
# slot) is never faster than the overlapped default; a bad mode is a usage error.
run lato "$plan" simulate --topo 2D-SW_SW --bytes 100MB --chunks 64 --chunks-in-flight 1 --csv
run lats "$plan" simulate --topo 2D-SW_SW --bytes 100MB --chunks 64 --chunks-in-flight 1 --csv \
    --latency serialized --load phase
chk=$(awk -F, 'FNR > 1 && $6 == "Baseline" { t[FILENAME] = $7 } END { n = 0; for (f in t) n++;
    print (n == 2 && t[ARGV[1]] < t[ARGV[2]]) ? "ok" : "bad" }' "$tmp/lato.out" "$tmp/lats.out")
run latbad "$plan" simulate --topo 2D-SW_SW --latency none
if [ "$chk" = "ok" ] && [ $rc -eq 2 ] && grep -q "simulate: --latency: 'none' is not" "$tmp/latbad.err"; then
    pass cli_simulate_latency
else
    fail cli_simulate_latency "$chk rc=$rc: $(head -c 200 "$tmp/latbad.err")"
fi

# --- simulate --min-chunk: --chunks becomes a maximum, as in coll/themis.
# 8 NPUs x 32 us x 91 Mbit/s: a 2912-byte latency floor under 64 KiB, so
# 1 MiB makes 16 chunks and 64 MiB the maximum, 1024.
run mc "$plan" simulate --topo fc:4:91Mb:32us_fc:2:89Mb:17us --bytes 1MiB,64MiB --chunks 1024 \
    --min-chunk 64KiB --csv
chk=$(awk -F, 'NR > 1 && $6 == "Themis+SCF" { printf "%s:%s ", $3, $4 }' "$tmp/mc.out")
if [ $rc -eq 0 ] && [ "$chk" = "1048576:16 67108864:1024 " ]; then
    pass cli_simulate_min_chunk
else
    fail cli_simulate_min_chunk "rc=$rc, bytes:chunks $chk$(head -c 200 "$tmp/mc.err")"
fi
run mcbad "$plan" simulate --topo 2D-SW_SW --min-chunk 0
if [ $rc -eq 2 ] && grep -q "simulate: --min-chunk: '0' is not a size" "$tmp/mcbad.err"; then
    pass cli_simulate_min_chunk_bad
else
    fail cli_simulate_min_chunk_bad "rc=$rc: $(head -c 200 "$tmp/mcbad.err")"
fi

# --- timeline: a real PNG
run tl "$plan" timeline --topo 3D-SW_SW_SW_homo --bytes 100MB --chunks 16 --png "$tmp/t l.png"
magic=$(head -c 8 "$tmp/t l.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
if [ $rc -eq 0 ] && [ "$magic" = "89504e470d0a1a0a" ]; then
    pass cli_timeline_png
else
    fail cli_timeline_png "rc=$rc magic='$magic': $(head -c 300 "$tmp/tl.err")"
fi

# --- algorithms: the table, and the docs' copy of it is the CLI's
run al "$plan" algorithms --names --coll allreduce
if [ $rc -eq 0 ] && [ "$(head -n 1 "$tmp/al.out")" = themis ] && grep -qx rings "$tmp/al.out"; then
    pass cli_algorithms_names
else
    fail cli_algorithms_names "rc=$rc: $(tr '\n' ' ' <"$tmp/al.out")"
fi
run md "$plan" algorithms --markdown
docs=$(dirname "$0")/../../docs/coll_themis.md
if [ $rc -eq 0 ] && grep -qFf "$tmp/md.out" "$docs" \
   && [ "$(grep -cFxf "$tmp/md.out" "$docs")" -eq "$(wc -l <"$tmp/md.out")" ]; then
    pass cli_algorithms_docs_table
else
    fail cli_algorithms_docs_table "docs/coll_themis.md does not hold the table of" \
         "'themis-plan algorithms --markdown' (rc=$rc)"
fi

# --- rules: the rule for a call, and a malformed file with its line
printf '{ "rules": [\n { "collective": "allreduce", "bytes": [0, "1M"], "chunks": 8 } ] }\n' \
    >"$tmp/rules.json"
run ru "$plan" rules "$tmp/rules.json" --coll allreduce --comm-size 8 --bytes 64KiB
run ru2 "$plan" rules "$tmp/rules.json" --coll allreduce --comm-size 8 --bytes 2M
if [ $rc -eq 0 ] && grep -q "rule at line 2" "$tmp/ru.out" && grep -q "chunks: *8" "$tmp/ru.out" \
   && grep -q "no rule applies" "$tmp/ru2.out"; then
    pass cli_rules_match
else
    fail cli_rules_match "rc=$rc: $(head -c 300 "$tmp/ru.out") / $(head -c 200 "$tmp/ru2.out")"
fi
printf '{ "rules": [\n { "collective": "allreduce",\n "chunks": -1 } ] }\n' >"$tmp/bad.json"
run rb "$plan" rules "$tmp/bad.json"
if [ $rc -eq 2 ] && grep -q 'line 2: "chunks" must be' "$tmp/rb.err"; then
    pass cli_rules_malformed
else
    fail cli_rules_malformed "rc=$rc: $(head -c 300 "$tmp/rb.err")"
fi

# --- msccl: the example files check and survive export -> import; errors exit 2
msccl_data=${THEMIS_MSCCL_DATA:-$top/tests/data/msccl}
if [ -f "$msccl_data/allreduce_ring_3.xml" ]; then
    run mc "$plan" msccl check "$msccl_data/allreduce_ring_3.xml"
    if [ $rc -eq 0 ] && grep -q '^ok$' "$tmp/mc.out" && grep -q '^transfers: 15,' "$tmp/mc.out" \
       && grep -q 'allreduce (in place), 3 gpus' "$tmp/mc.out"; then
        pass cli_msccl_check
    else
        fail cli_msccl_check "rc=$rc: $(head -c 300 "$tmp/mc.out" "$tmp/mc.err")"
    fi
    ok=1
    for f in allreduce_ring_3 allreduce_allpairs_4 teccl_amd_32; do
        run me "$plan" msccl export "$msccl_data/$f.xml" --out "$tmp/$f.xml"
        h=$(awk '/schedule hash/ {print $NF}' "$tmp/me.out" | sort -u | wc -l)
        if [ $rc -ne 0 ] || [ "$h" -ne 1 ] || ! grep -q 'round trip: same' "$tmp/me.out"; then
            ok=0
            fail cli_msccl_export "$f: rc=$rc: $(head -c 300 "$tmp/me.out" "$tmp/me.err")"
        fi
    done
    [ $ok -eq 1 ] && pass cli_msccl_export
    run md "$plan" msccl draw "$msccl_data/allreduce_ring_3.xml"
    if [ $rc -eq 0 ] && [ "$(grep -c '^rank ' "$tmp/md.out")" -eq 3 ] \
       && grep -Eq '^  #9 +recv <- 2 +input\[0\.\.1\) -> input\[0\.\.1\) copy  deps: 1,8$' "$tmp/md.out"
    then
        pass cli_msccl_draw
    else
        fail cli_msccl_draw "rc=$rc: $(head -c 300 "$tmp/md.out" "$tmp/md.err")"
    fi
else
    echo "SKIP: cli_msccl_check ($msccl_data/allreduce_ring_3.xml not found)"
fi
# --- msccl simulate: the 3-rank ring on a 100 Mbit/s ring: 2 x 2/3 x 3 MB x 8 / 10^8 s
run ms "$plan" msccl simulate "$msccl_data/allreduce_ring_3.xml" --graph "ring:3,bw=100mbit,lat=0ns" \
    --bytes 3MB
if [ $rc -eq 0 ] && [ "$(tail -1 "$tmp/ms.out")" = \
     "collective_us=320000.000 busiest_link_util=1.000 transfers=15" ]; then
    pass cli_msccl_simulate
else
    fail cli_msccl_simulate "rc=$rc: $(tail -c 300 "$tmp/ms.out" "$tmp/ms.err")"
fi

# --- --duplex F (link_sim.h): a one-way ring has no rank pair both ways,
# so 0.5 changes nothing; TACOS on a 3x3 mesh sends both ways between
# neighbours, so 0.9 is slower and 1 is the default; out of range: exit 2
ok=1
run dr "$plan" xfer ring --graph "ring:3,bw=100mbit,lat=0ns" --coll ar --bytes 3MB --duplex 0.5
[ $rc -eq 0 ] && [ "$(tail -1 "$tmp/dr.out")" = \
    "collective_us=320000.000 busiest_link_util=1.000 transfers=15" ] ||
    { ok=0; fail cli_duplex "ring: rc=$rc: $(tail -c 200 "$tmp/dr.out" "$tmp/dr.err")"; }
us_of() { tail -1 "$tmp/$1.out" | sed -n 's/^collective_us=\([0-9.]*\).*/\1/p'; }
for d in none 1 0.9; do
    extra=(); [ "$d" = none ] || extra=(--duplex "$d")
    run "ds_$d" "$plan" synth --graph "mesh2d:3x3,bw=40mbit,lat=0ns" --coll ar --bytes 18MiB \
        --chunks-per-npu 1 "${extra[@]}"
    [ $rc -eq 0 ] || { ok=0; fail cli_duplex "synth --duplex $d: rc=$rc"; }
done
if [ "$(us_of ds_none)" != "$(us_of ds_1)" ] ||
   ! awk -v a="$(us_of ds_none)" -v b="$(us_of ds_0.9)" 'BEGIN { exit !(b > a) }'; then
    ok=0
    fail cli_duplex "synth: $(us_of ds_none) / $(us_of ds_1) / $(us_of ds_0.9) us (none / 1 / 0.9)"
fi
# synth's chunks per NPU default to the component's tacos (one): the
# same schedule as --chunks-per-npu 1
run sk_default "$plan" synth --graph "mesh2d:3x3,bw=40mbit,lat=0ns" --coll ar --bytes 18MiB
if [ $rc -eq 0 ] && [ "$(us_of sk_default)" = "$(us_of ds_none)" ]; then
    pass cli_synth_default_chunks
else
    fail cli_synth_default_chunks "rc=$rc: $(us_of sk_default) us, want $(us_of ds_none)"
fi
for bad in 0 1.5 0.1234567 x; do
    run dbad "$plan" msccl simulate "$msccl_data/allreduce_ring_3.xml" --graph ring:3 \
        --bytes 3MB --duplex "$bad"
    [ $rc -eq 2 ] && grep -q "is not a fraction in (0, 1]" "$tmp/dbad.err" ||
        { ok=0; fail cli_duplex "--duplex $bad: rc=$rc, want 2 and a message"; }
done
[ $ok -eq 1 ] && pass cli_duplex

# --- export --msccl: every planning algorithm's programs, read back the same
ok=1
for c in "themis sw:4:100Gb:1us_sw:2:100Gb:2us ar 12" "themis ring:3:100Gb:1us_fc:2:100Gb:1us ag 5" \
         "rings biring:3:100Gb:1us_biring:3:100Gb:1us ar 18" \
         "torus2d biring:4:100Gb:1us_biring:2:100Gb:1us rs 6"; do
    read -r a topo coll n <<<"$c"
    run ex "$plan" export --msccl "$tmp/ex.xml" --topo "$topo" --coll "$coll" --count "$n" \
        --algorithm "$a"
    if [ $rc -ne 0 ] || ! grep -q '^round_trip=same$' "$tmp/ex.out"; then
        ok=0
        fail cli_export_msccl "$a $topo $coll: rc=$rc: $(tail -c 300 "$tmp/ex.out" "$tmp/ex.err")"
    fi
done
run ex "$plan" export --msccl "$tmp/ex.xml" --topo sw:4:100Gb:1us --coll ar --count 8 \
    --algorithm schedule
[ $rc -eq 2 ] || { ok=0; fail cli_export_msccl "--algorithm schedule: rc=$rc, want 2"; }
# one limit for chunks in flight, the component's (coll_themis_chunks_in_flight 1..32)
run ex "$plan" export --msccl "$tmp/ex.xml" --topo sw:4:100Gb:1us --coll ar --count 8 \
    --chunks-in-flight 33
[ $rc -eq 2 ] && grep -q '1 \.\. 32' "$tmp/ex.err" || { ok=0; fail cli_export_msccl "--chunks-in-flight 33: rc=$rc"; }
run ex "$plan" simulate --topo sw:4:100Gb:1us --chunks-in-flight 33
[ $rc -eq 2 ] && grep -q "simulate: --chunks-in-flight: '33' is not an integer in 1 \.\. 32" "$tmp/ex.err" || { ok=0; fail cli_export_msccl "simulate --chunks-in-flight 33: rc=$rc"; }
# the other subcommands' network and size options: --dims 4x2 is the
# component's sw:4_sw:2 at the across-nodes rates, --bytes 48 is 12 floats
run ex "$plan" export --msccl "$tmp/ex_topo.xml" --topo sw:4:100Gb:2us_sw:2:100Gb:2us --coll ar \
    --count 12
run ex2 "$plan" export --msccl "$tmp/ex_dims.xml" --dims 4x2 --coll ar --bytes 48
[ $rc -eq 0 ] && cmp -s "$tmp/ex_topo.xml" "$tmp/ex_dims.xml" ||
    { ok=0; fail cli_export_msccl "--dims 4x2 --bytes 48: rc=$rc, or not --topo's --count 12"; }
[ $ok -eq 1 ] && pass cli_export_msccl

printf '<algo coll="allreduce" ngpus="2" nchunksperloop="2">\n<gpu id="0" i_chunks="2" o_chunks="2" s_chunks="0"/>\n</algo>\n' \
    >"$tmp/bad.xml"
run mb "$plan" msccl check "$tmp/bad.xml"
run mx "$plan" msccl check "$tmp/missing.xml"
if [ $rc -eq 2 ] && grep -q 'cannot open' "$tmp/mx.err" \
   && grep -q 'ngpus=2 but 1 <gpu> elements' "$tmp/mb.err" && ! grep -q '^ok' "$tmp/mb.out"; then
    run mb "$plan" msccl check "$tmp/bad.xml"
    [ $rc -eq 2 ] && pass cli_msccl_malformed || fail cli_msccl_malformed "rc=$rc for a bad file"
else
    fail cli_msccl_malformed "rc=$rc: $(head -c 300 "$tmp/mb.err" "$tmp/mx.err")"
fi

# --- --dims: coll/themis' shape syntax gives the same topology as its spec
run dm "$plan" schedule --dims 4x2 --dim-bandwidths 400Gb,100Gbps --dim-latencies 700ns,1.7us \
    --bytes 64M --chunks 16
run ds "$plan" schedule --topo sw:4:400Gb:700ns_sw:2:100Gb:1700ns --bytes 64MiB --chunks 16
hd=$(sed -n 's/^schedule hash: //p' "$tmp/dm.out")
hs=$(sed -n 's/^schedule hash: //p' "$tmp/ds.out")
run db "$plan" simulate --dims 4x2 --dim-latencies 1us,2us,3us
if [ -n "$hd" ] && [ "$hd" = "$hs" ] && [ $rc -eq 2 ] && grep -q "dim-latencies" "$tmp/db.err"; then
    pass cli_dims_syntax
else
    fail cli_dims_syntax "hashes '$hd' '$hs', bad list rc=$rc: $(head -c 200 "$tmp/db.err")"
fi

# --- graph: a spec in the file format, its summary, and the output reads back
run gr "$plan" graph 'torus2d:4x4,bw=25GB/s,fail=5,faillink=0-1'
cp "$tmp/gr.out" "$tmp/gr.graph"
run gr2 "$plan" graph "$tmp/gr.graph"
if [ $rc -eq 0 ] && grep -qx 'nodes 16' "$tmp/gr.out" && grep -qx 'fail node 5' "$tmp/gr.out" \
   && grep -qx 'fail link 0 1' "$tmp/gr.out" \
   && grep -qx '# nodes=16 links=64 failed_nodes=1 failed_links=1 min_bw=200Gb max_bw=200Gb' \
       "$tmp/gr.out" \
   && cmp -s "$tmp/gr.out" "$tmp/gr2.out"; then
    pass cli_graph_round_trip
else
    fail cli_graph_round_trip "rc=$rc: $(tail -n 1 "$tmp/gr.out") / $(head -c 200 "$tmp/gr2.err")"
fi

# --- graph --routes: every ordered pair of working nodes, fewest hops
run grr "$plan" graph 'torus2d:4x4,fail=5' --routes
n=$(wc -l <"$tmp/grr.out")
if [ $rc -eq 0 ] && [ "$n" -eq $((15 * 14)) ] && grep -qx '0 1 1' "$tmp/grr.out" \
   && grep -qx '4 6 7 6' "$tmp/grr.out" && ! grep -q '^5 \| 5$' "$tmp/grr.out"; then
    pass cli_graph_routes
else
    fail cli_graph_routes "rc=$rc, $n lines: $(grep '^4 6 ' "$tmp/grr.out")"
fi

# --- graph: bad specs and options name the problem and exit 2
bad=""
run g1 "$plan" graph 'torus2d:4x0'
[ $rc -eq 2 ] && grep -q 'column 11: torus2d: a size must be >= 1' "$tmp/g1.err" || bad="$bad size:$rc"
run g2 "$plan" graph 'frob:4'
[ $rc -eq 2 ] && grep -q "unknown graph 'frob'" "$tmp/g2.err" || bad="$bad name:$rc"
run g3 "$plan" graph 'torus2d:300x300'
[ $rc -eq 2 ] && grep -q 'too many nodes' "$tmp/g3.err" || bad="$bad nodes:$rc"
run g4 "$plan" graph 'ring:4' --bw 12XB/s
[ $rc -eq 2 ] && grep -q -- '--bw' "$tmp/g4.err" || bad="$bad bw:$rc"
run g5 "$plan" graph "$tmp/missing.graph"
[ $rc -eq 2 ] && grep -q 'cannot open' "$tmp/g5.err" || bad="$bad file:$rc"
printf 'nodes 3\n0 1 100Gb 1us\n1 2 100Qb 1us\n' >"$tmp/bad.graph"
run g6 "$plan" graph "$tmp/bad.graph"
[ $rc -eq 2 ] && grep -q 'line 3, column 8' "$tmp/g6.err" || bad="$bad line:$rc"
run g7 "$plan" graph 'switch:8' --degree 0
[ $rc -eq 2 ] || bad="$bad degree:$rc"
if [ -z "$bad" ]; then
    pass cli_graph_errors
else
    fail cli_graph_errors "$bad"
fi

# --- xfer ring: 2(P-1)/P N 8/B + 2(P-1) lat on ring:8 (8 MB at 100 Gb/s, 1 us:
# 14 x (80 us + 1 us)); on p3.16xlarge the ring 0-1-3-2-6-7-5-4 (dual links,
# 400 Gb/s, 700 ns) takes 14 x 20.7 us
run xr "$plan" xfer ring --graph 'ring:8,lat=1us' --coll ar --bytes 8MB
run xp "$plan" xfer ring --graph p3.16xlarge --coll allreduce --bytes 8MB --order 0,1,3,2,6,7,5,4
last_r=$(tail -n 1 "$tmp/xr.out")
last_p=$(tail -n 1 "$tmp/xp.out")
if [ "$last_r" = "collective_us=1134.000 busiest_link_util=0.988 transfers=120" ] \
   && [ "$last_p" = "collective_us=289.800 busiest_link_util=0.966 transfers=120" ]; then
    pass cli_xfer_ring
else
    fail cli_xfer_ring "'$last_r' / '$last_p'"
fi
bad=""
run x1 "$plan" xfer ring --graph ring:8 --coll ar --bytes 1001
[ $rc -eq 2 ] && grep -q 'does not divide' "$tmp/x1.err" || bad="$bad divide:$rc"
run x2 "$plan" xfer ring --graph 'ring:8,fail=3' --coll ag --bytes 8MB
[ $rc -eq 2 ] && grep -q 'node 3 failed' "$tmp/x2.err" || bad="$bad failed:$rc"
run x3 "$plan" xfer ring --graph ring:8 --coll ar --bytes 8MB --order 0,1,1
[ $rc -eq 2 ] && grep -q 'permutation' "$tmp/x3.err" || bad="$bad order:$rc"
run x4 "$plan" xfer ring --graph ring:8 --coll xx --bytes 8MB
[ $rc -eq 2 ] || bad="$bad coll:$rc"
run x5 "$plan" xfer ring --graph ring:8 --coll rs --bytes 8XB
[ $rc -eq 2 ] || bad="$bad bytes:$rc"
run x6 "$plan" xfer tree --graph ring:8 --coll rs --bytes 8MB
[ $rc -eq 2 ] || bad="$bad generator:$rc"
run x7 "$plan" xfer ring --graph 'mesh2d:2x2,faillink=0-1+2-3' --coll rs --bytes 8MB
[ $rc -eq 2 ] && grep -q 'no route' "$tmp/x7.err" || bad="$bad route:$rc"
if [ -z "$bad" ]; then
    pass cli_xfer_errors
else
    fail cli_xfer_errors "$bad"
fi

# --- route: 7 ToRs x 2 spines, 2 hosts each (hosts 9 + 2 ToR + slot).  Flows
# ToR 0->1, 4->5, 4->6, 0->6: the greedy puts 0->1, 4->5 on spine 0, 4->6 on
# 1, and 0->6 ties (1, 1) to spine 0: max load 2; the optimum is
# ceil(D / S) = 1 (tests/unit/test_clos.c computes the same case)
mkdir -p "$tmp/pairs"
printf '#src dst src_tor dst_tor start_time flow_size compute_time stage_index\n9 11 0 1 0 1 0 0\n17 19 4 5 0 1 0 0\n18 21 4 6 0 1 0 0\n10 22 0 6 0 1 0 0\n' \
    >"$tmp/pairs/job_0-TEST.txt"
run rg "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo greedy
last_g=$(tail -n 1 "$tmp/rg.out")
run rx "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo exact --json "$tmp/r.json"
last_x=$(tail -n 1 "$tmp/rx.out")
run ri "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo ilp
last_i=$(tail -n 1 "$tmp/ri.out")
json_ok=1
if [ $have_python -eq 1 ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["flows"]; sys.exit(0 if len(f) == 4 and d["max_load"] == 1 and all(x["spine"] in (0, 1) for x in f) and f[0]["spine"] != f[3]["spine"] else 1)' "$tmp/r.json" || json_ok=0
fi
if [[ "$last_g" =~ ^max_load=2\ optimum=1\ slowest_flow_share=0\.500\ run_ms=[0-9]+\.[0-9]{3}$ ]] \
   && [[ "$last_x" =~ ^max_load=1\ optimum=1\ slowest_flow_share=1\.000\ run_ms= ]] \
   && [[ "$last_i" =~ ^max_load=1\ optimum=1\  ]] && grep -q 'optimal=1' "$tmp/ri.out" \
   && [ $json_ok -eq 1 ]; then
    pass cli_route
else
    fail cli_route "'$last_g' / '$last_x' / '$last_i' json=$json_ok"
fi

# --- route: failed spines (the highest ids), failed links, ECMP's seed, placement
bad=""
run rf "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo exact --failed-spines 1
grep -q '^max_load=2 optimum=2 ' "$tmp/rf.out" && grep -q '(1 working)' "$tmp/rf.out" || bad="$bad spines"
run rl "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo exact --failed-links 0-1
grep -q '^max_load=2 optimum=2 ' "$tmp/rl.out" || bad="$bad exact_links:$rc"
# cables (0, 1) and (4, 0): not one block of ToRs x spines (NP-hard in
# general): certified by the ToR bound, ToR 0 sends 2 flows on 1 link
run rl3 "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo exact --failed-links 0-1+4-0
grep -q '^max_load=2 optimum=2 ' "$tmp/rl3.out" && grep -q '^exact: failed links not one block: construction 2' "$tmp/rl3.out" \
    || bad="$bad exact_nonblock:$rc"
# 4x3, ToRs keep spines {0,2} {0,1} {1,2} {0,1}: 1->3 must take 1 (1->0
# has only 0) and 0 (2->3 has only 1): load 2 although every ToR side
# alone fits load 1; spine 0's split condition proves it, no search.
mkdir -p "$tmp/pairs43"
printf '10 17 1 3 0 1 0 0\n16 11 3 1 0 1 0 0\n8 15 0 2 0 1 0 0\n11 9 1 0 0 1 0 0\n14 18 2 3 0 1 0 0\n17 12 3 1 0 1 0 0\n' \
    >"$tmp/pairs43/job_0-TEST.txt"
run rl4 "$plan" route --clos 4x3 --hosts-per-tor 3 --pairs "$tmp/pairs43" --algo exact --failed-links 0-1+1-2+2-0+3-2 --search-steps 0
grep -q '^max_load=2 optimum=2 ' "$tmp/rl4.out" && ! grep -q 'not proven' "$tmp/rl4.out" || bad="$bad exact_split:$rc"
# 4x4, a chain of forced choices no bound sees (tests/unit/test_clos.c has
# the argument): the search proves 2; without it the gap is printed.
mkdir -p "$tmp/pairs44"
printf '8 17 0 2 0 1 0 0\n12 21 1 3 0 1 0 0\n16 13 2 1 0 1 0 0\n20 9 3 0 0 1 0 0\n9 22 0 3 0 1 0 0\n13 18 1 2 0 1 0 0\n17 10 2 0 0 1 0 0\n21 14 3 1 0 1 0 0\n10 23 0 3 0 1 0 0\n22 11 3 0 0 1 0 0\n' \
    >"$tmp/pairs44/job_0-TEST.txt"
run rl5 "$plan" route --clos 4x4 --hosts-per-tor 4 --pairs "$tmp/pairs44" --algo exact --failed-links 0-1+1-0+2-3+3-2
grep -q '^max_load=2 optimum=2 ' "$tmp/rl5.out" && grep -q 'search steps [1-9]' "$tmp/rl5.out" \
    && ! grep -q 'not proven' "$tmp/rl5.out" || bad="$bad exact_search:$rc"
run rl6 "$plan" route --clos 4x4 --hosts-per-tor 4 --pairs "$tmp/pairs44" --algo exact --failed-links 0-1+1-0+2-3+3-2 --search-steps 0
grep -q '^exact: load 2, bound 1, not proven optimal' "$tmp/rl6.out" && grep -q '^max_load=2 optimum=1 ' "$tmp/rl6.out" \
    || bad="$bad exact_gap:$rc"
run rl7 "$plan" route --clos 4x4 --hosts-per-tor 4 --pairs "$tmp/pairs44" --algo ilp --failed-links 0-1+1-0+2-3+3-2
grep -q '^max_load=2 optimum=2 ' "$tmp/rl7.out" || bad="$bad ilp_search:$rc"
run rl2 "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo ilp --failed-links 0-1
grep -q '^max_load=2 optimum=2 ' "$tmp/rl2.out" || bad="$bad ilp_links"
run re1 "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo ecmp --draws 50 --seed 3
run re2 "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo ecmp --draws 50 --seed 3
[ "$(grep '^ecmp:' "$tmp/re1.out")" = "$(grep '^ecmp:' "$tmp/re2.out")" ] \
    && grep -q '^ecmp: draws=50 seed=3 mean_max_load=' "$tmp/re1.out" || bad="$bad ecmp_seed"
run rr "$plan" route --clos 4x2 --hosts-per-tor 2 --ring 6,8,7,9 --tor-aware --algo greedy
grep -q 'inter-ToR flows 4 in rank order, 2 ToR-aware (2 removed)' "$tmp/rr.out" || bad="$bad ring"
# Themis's 4x2 allreduce as exported: each rank talks to its 3 d1 peers and
# 1 d2 peer (32 flows); d1 groups spread over the 4 ToRs: 24 inter-ToR, D=6.
run rs0 "$plan" export --msccl "$tmp/th8.xml" --topo fc:4:100Gb:1us_fc:2:100Gb:1us --coll ar --count 64
run rs "$plan" route --clos 4x2 --hosts-per-tor 2 --schedule "$tmp/th8.xml" --hosts 6,8,10,12,7,9,11,13 --algo exact
grep -q '^flows: 32 (24 inter-ToR), D=6,' "$tmp/rs.out" && grep -q '^max_load=3 optimum=3 ' "$tmp/rs.out" \
    || bad="$bad schedule"
run rs2 "$plan" route --clos 4x2 --hosts-per-tor 2 --schedule "$tmp/th8.xml" --hosts 6,7
[ $rc -eq 2 ] && grep -q 'has 8 ranks, --hosts places 2' "$tmp/rs2.err" || bad="$bad schedule_hosts:$rc"
run rs3 "$plan" route --clos 4x2 --hosts-per-tor 2 --schedule "$tmp/th8.xml"; [ $rc -eq 2 ] || bad="$bad schedule_nohosts:$rc"
run b1 "$plan" route --clos 64 --pairs "$tmp/pairs";                        [ $rc -eq 2 ] || bad="$bad clos:$rc"
run b2 "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --algo best; [ $rc -eq 2 ] || bad="$bad algo:$rc"
run b3 "$plan" route --clos 7x2;                                            [ $rc -eq 2 ] || bad="$bad noflows:$rc"
run b4 "$plan" route --clos 7x2 --pairs "$tmp/nowhere";                     [ $rc -eq 2 ] || bad="$bad dir:$rc"
run b5 "$plan" route --clos 7x2 --pairs "$tmp/pairs";                       # 32 hosts per ToR: ToR columns disagree
[ $rc -eq 2 ] && grep -q 'line 2' "$tmp/b5.err" || bad="$bad tor:$rc"
run b6 "$plan" route --clos 7x2 --hosts-per-tor 2 --pairs "$tmp/pairs" --failed-spines 3; [ $rc -eq 2 ] || bad="$bad fail:$rc"
if [ -z "$bad" ]; then
    pass cli_route_options
else
    fail cli_route_options "$bad"
fi

# --- compare: every row's time or why it cannot serve, and auto's choice;
# 17 elements on 16 ranks: tacos (one unit per rank) and treepack (96
# units) serve it in units of uneven size, tacos fastest; bad input exits 2
bad=""
run cmp "$plan" compare --graph mesh2d:4x4 --dims 4x4 --coll ar --bytes 68,4MiB
[ $rc -eq 0 ] || bad="$bad rc:$rc"
[ "$(grep -c '^auto: allreduce of ' "$tmp/cmp.out")" -eq 2 ] || bad="$bad lines"
grep -q '^auto: allreduce of 68 bytes (17 elements) -> tacos (link simulator' \
    "$tmp/cmp.out" || bad="$bad choice"
for r in themis rings torus2d treepack tacos; do
    grep -q "^  $r  *[0-9][0-9.]* us" "$tmp/cmp.out" || bad="$bad time_$r"
done
grep -q '^  schedule .*no coll_themis_allreduce_schedule is set' "$tmp/cmp.out" || bad="$bad schedule"
run cmp1 "$plan" compare --graph mesh2d:4x4 --dims 4x3 --coll ar --bytes 1MiB; [ $rc -eq 2 ] || bad="$bad dims:$rc"
run cmp2 "$plan" compare --graph mesh2d:4x4 --coll xx --bytes 1MiB;          [ $rc -eq 2 ] || bad="$bad coll:$rc"
run cmp3 "$plan" compare --graph mesh2d:4x4 --coll ar --bytes 0;             [ $rc -eq 2 ] || bad="$bad bytes:$rc"
run cmp4 "$plan" compare --graph nosuchgraph --coll ar --bytes 1MiB;         [ $rc -eq 2 ] || bad="$bad graph:$rc"
if [ -z "$bad" ]; then
    pass cli_compare
else
    fail cli_compare "$bad: $(head -c 400 "$tmp/cmp.out" "$tmp/cmp.err")"
fi

# --- treepack: the runtime's packing beside the LP's C(G), with the ratio
# (K12: 6 disjoint trees, the optimum; the old runtime's single tree was
# 6x) and, where the unit budget stops short (8x8 torus at 64 ranks), the
# runtime's own certified bound.
run tp "$plan" treepack --graph fc:12 --trees 0
run tp2 "$plan" treepack --graph torus2d:8x8 --trees 0
if [ $rc -eq 0 ] && grep -q '^runtime(union): C(G)=1/6 ' "$tmp/tp.out" \
   && grep -q '^runtime/lp: C=1/6 beside C(G)=1/6: ratio 1.0000$' "$tmp/tp.out" \
   && grep -q '^runtime(union): C=32/65 .* bound C>=63/128 (ratio<=1.0002)' "$tmp/tp2.out" \
   && grep -q '^runtime/lp: C=32/65 beside C(G)=63/128: ratio 1.0002$' "$tmp/tp2.out"; then
    pass cli_treepack_runtime_vs_lp
else
    fail cli_treepack_runtime_vs_lp "rc=$rc: $(grep -h '^runtime' "$tmp/tp.out" "$tmp/tp2.out" | tr '\n' ' ')"
fi

# --- bed: the test bed's plan (docs/cluster.md): the default budget, the
# scaled graph written beside it, a Clos routing's source rules and the
# simulator's time by those routes (= xfer --spines on the scaled graph).
bad=""
run bed "$plan" bed --graph "$top/docs/examples/cluster_leafspine_8x2.graph" --graph-out "$tmp/bed.graph" \
    --xfer direct --coll ag --bytes 1MiB --spines exact --msccl "$tmp/bed.xml"
[ $rc -eq 0 ] || bad="$bad rc:$rc"
grep -q '^bed nodes 30 ranks 16 hosts 8 links 80 total_bps 1199999968$' "$tmp/bed.out" || bad="$bad head"
[ "$(grep -c '^route ' "$tmp/bed.out")" -eq 870 ] || bad="$bad routes"
grep -q '^rule 24 0 14 29$' "$tmp/bed.out" || bad="$bad rule"
grep -q '^link 24 28 8223684 500000$' "$tmp/bed.out" || bad="$bad rate"
pred=$(sed -n 's/^predict direct allgather bytes 1048576 collective_us=\([0-9.]*\) spines exact$/\1/p' "$tmp/bed.out")
run bedx "$plan" xfer direct --graph "$tmp/bed.graph" --coll ag --bytes 1MiB --spines exact
[ -n "$pred" ] && grep -q "^collective_us=$pred " "$tmp/bedx.out" || bad="$bad predict:$pred"
[ -s "$tmp/bed.xml" ] || bad="$bad msccl"
run bed1 "$plan" bed --graph cluster:2x2 --scale 0.5 --budget 1Gb/s;   [ $rc -eq 2 ] || bad="$bad both:$rc"
run bed2 "$plan" bed --graph cluster:2x2 --spines exact;               [ $rc -eq 2 ] || bad="$bad spines:$rc"
run bed3 "$plan" bed --graph cluster:2x2 --xfer direct --coll ag --bytes 4KiB --spines ecmp
[ $rc -eq 2 ] && grep -q 'not a leaf-spine' "$tmp/bed3.err" || bad="$bad not_clos:$rc"
if [ -z "$bad" ]; then
    pass cli_bed_plan
else
    fail cli_bed_plan "$bad: $(head -c 300 "$tmp/bed.err")"
fi

# --- one option table: every subcommand that takes a size takes --bytes and
# --count (elements of 4 bytes, compare: of --elem-size), every one that
# takes a network --graph and --dims (checked against the graph's ranks);
# --help lists them; bad values name the option and the subcommand, exit 2
bad=""
ring3="$msccl_data/allreduce_ring_3.xml"
# NAME|ARGS with --bytes|the same with --count
while IFS='|' read -r name with_bytes with_count; do
    # shellcheck disable=SC2086  # the arguments are words
    run "cb_$name" "$plan" $with_bytes
    rb=$rc
    # shellcheck disable=SC2086
    run "cc_$name" "$plan" $with_count
    # wall times (synthesis_ms=, ms=) differ from run to run
    if [ $rb -ne 0 ] || [ $rc -ne 0 ] || [ ! -s "$tmp/cb_$name.out" ] \
       || [ "$(sed 's/ms=[0-9.]*//g' "$tmp/cb_$name.out")" != "$(sed 's/ms=[0-9.]*//g' "$tmp/cc_$name.out")" ]
    then
        bad="$bad count_$name:$rb/$rc"
    fi
done <<LIST
xfer|xfer ring --graph ring:8 --coll ar --bytes 8MiB|xfer ring --graph ring:8 --coll ar --count 2M
compare|compare --graph mesh2d:2x2 --coll ar --bytes 64KiB --elem-size 8|compare --graph mesh2d:2x2 --coll ar --count 8K --elem-size 8
synth|synth --graph mesh2d:2x2 --coll ag --bytes 4MiB|synth --graph mesh2d:2x2 --coll ag --count 1M
msccl|msccl simulate $ring3 --graph ring:3 --bytes 3MiB|msccl simulate $ring3 --graph ring:3 --count 786432
bed|bed --graph cluster:2x2 --xfer ring --coll ar --bytes 64KiB|bed --graph cluster:2x2 --xfer ring --coll ar --count 16K
treepack|treepack --graph torus2d:3x3 --bytes 9MiB|treepack --graph torus2d:3x3 --count 2359296
export|export --msccl $tmp/eb.xml --topo sw:4:100Gb:1us --coll ar --bytes 48|export --msccl $tmp/eb.xml --topo sw:4:100Gb:1us --coll ar --count 12
LIST
# --dims: the graph's shape is taken, another with as many ranks is warned
# about, one with other ranks refused by name
for c in "graph torus2d:4x4" "xfer ring --graph torus2d:4x4 --coll ar --bytes 16MiB" \
         "synth --graph torus2d:4x4 --coll ar --bytes 16MiB" "treepack --graph torus2d:4x4" \
         "bed --graph torus2d:4x4" "msccl simulate $ring3 --graph ring:3 --bytes 3MiB"; do
    sub=${c%% *}
    n=16; [ "$sub" = msccl ] && n=3
    # shellcheck disable=SC2086
    run dg "$plan" $c --dims "$n"
    [ $rc -eq 0 ] || bad="$bad dims_$sub:$rc"
    # shellcheck disable=SC2086
    run dgx "$plan" $c --dims 5x2
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: --dims 5x2 has 10 ranks, the graph $n" \
        "$tmp/dgx.err" || bad="$bad dims_bad_$sub:$rc"
    # shellcheck disable=SC2086
    run dgs "$plan" $c --dims 4xq
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: --dims: '4xq' is not a shape" "$tmp/dgs.err" \
        || bad="$bad dims_syntax_$sub:$rc"
    run dh "$plan" "$sub" --help
    for o in graph dims bw lat; do
        grep -q "^  --$o " "$tmp/dh.out" || bad="$bad help_${sub}_$o"
    done
done
run gg "$plan" graph --graph ring:5
[ $rc -eq 0 ] && grep -q '^# nodes=5 ' "$tmp/gg.out" || bad="$bad graph_option:$rc"
for sub in xfer compare synth bed msccl treepack export; do
    run sh "$plan" "$sub" --help
    { [ $rc -eq 0 ] && grep -q '^  --bytes S' "$tmp/sh.out" && grep -q '^  --count N' "$tmp/sh.out"; } \
        || bad="$bad help_size_$sub:$rc"
    run s0 "$plan" "$sub" --count 0
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: --count: '0' is not a count" "$tmp/s0.err" \
        || bad="$bad count0_$sub:$rc"
    run s1 "$plan" "$sub" --bytes 1K --count 1
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: give --bytes or --count, not both" "$tmp/s1.err" \
        || bad="$bad both_$sub:$rc"
    run s2 "$plan" "$sub" --frobnicate
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: unknown option '--frobnicate'" "$tmp/s2.err" \
        || bad="$bad unknown_$sub:$rc"
    run s3 "$plan" "$sub" --bytes
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: option '--bytes' needs a value" "$tmp/s3.err" \
        || bad="$bad novalue_$sub:$rc"
done
run s4 "$plan" xfer ring --graph ring:8 --coll ar --count 1M,2M
[ $rc -eq 2 ] && grep -q '^themis-plan xfer: --count: one value here' "$tmp/s4.err" || bad="$bad one_size:$rc"
run s5 "$plan" compare --graph ring:4 --coll ar --count 99999999999999999999
[ $rc -eq 2 ] && grep -q -- '--count' "$tmp/s5.err" || bad="$bad count_huge:$rc"
if [ -z "$bad" ]; then
    pass cli_option_table
else
    fail cli_option_table "$bad"
fi

# --- one size syntax for the CLI and the benchmarks: `themis-plan size`
# (what the netbed scripts call) and bench_auto take what --bytes takes
bad=""
run sz "$plan" size 64K 4MiB,1.5MB 65536 16M 1G
[ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$tmp/sz.out")" = "65536 4194304 1500000 65536 16777216 1073741824 " ] \
    || bad="$bad size:$rc:$(tr '\n' ' ' <"$tmp/sz.out")"
for s in 0 12XB 1.5B K; do
    run szb "$plan" size "$s"
    [ $rc -eq 2 ] && grep -q "'$s' is not a size" "$tmp/szb.err" || bad="$bad size_bad_$s:$rc"
done
auto="$build/benchmarks/bench_auto"
if [ -x "$auto" ]; then
    run ba "$auto" mesh2d:2x2 2x2 ar 64K,1MiB 1
    [ $rc -eq 0 ] && grep -q '^new_size_ms\[1048576\]=' "$tmp/ba.out" || bad="$bad bench_auto:$rc"
    run ba2 "$auto" mesh2d:2x2 2x2 ar 64X 1
    [ $rc -eq 2 ] || bad="$bad bench_auto_bad:$rc"
fi
if [ -z "$bad" ]; then
    pass cli_size_syntax
else
    fail cli_size_syntax "$bad"
fi

# --- --graph where dimensions are planned: the graph's ranks per host x
# hosts (cluster:4x2: 2x4), the same as --dims 2x4; --dims is checked
# against it; a graph is not also a --topo
bad=""
for c in "schedule --bytes 64M --chunks 16" "simulate --bytes 64M --chunks 16 --csv" \
         "topo" "export --msccl $tmp/gd.xml --coll ar --count 12"; do
    sub=${c%% *}
    # shellcheck disable=SC2086  # the arguments are words
    run gd_g "$plan" $c --graph cluster:4x2
    rg=$rc
    # shellcheck disable=SC2086
    run gd_d "$plan" $c --dims 2x4
    { [ $rg -eq 0 ] && [ $rc -eq 0 ] && [ -s "$tmp/gd_g.out" ] && cmp -s "$tmp/gd_g.out" "$tmp/gd_d.out"; } \
        || bad="$bad graph_$sub:$rg/$rc"
    # shellcheck disable=SC2086
    run gd_x "$plan" $c --graph cluster:4x2 --dims 3x3
    [ $rc -eq 2 ] && grep -q "^themis-plan $sub: --dims 3x3 has 9 ranks, the graph 8" "$tmp/gd_x.err" \
        || bad="$bad graph_dims_$sub:$rc"
done
for sub in schedule simulate timeline topo export cycles; do
    run gdh "$plan" "$sub" --help
    for o in graph dims topo topo-file; do
        grep -q "^  --$o " "$tmp/gdh.out" || bad="$bad help_${sub}_$o"
    done
done
for sub in schedule simulate timeline cycles rules; do
    run gdh "$plan" "$sub" --help
    { grep -q '^  --bytes S' "$tmp/gdh.out" && grep -q '^  --count N' "$tmp/gdh.out"; } \
        || bad="$bad help_size_$sub"
done
run gd_t "$plan" simulate --graph cluster:4x2 --topo 2D-SW_SW
[ $rc -eq 2 ] || bad="$bad graph_topo:$rc"
run gd_n "$plan" schedule --graph nosuchgraph:4
[ $rc -eq 2 ] && grep -q "^themis-plan schedule: nosuchgraph:4: " "$tmp/gd_n.err" || bad="$bad graph_bad:$rc"
if [ -z "$bad" ]; then
    pass cli_graph_dims_commands
else
    fail cli_graph_dims_commands "$bad"
fi
