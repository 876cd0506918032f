#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Short libFuzzer runs of the input parsers, one target per input format:
#   fuzz_topology_string  themis_topology_parse (compact strings, presets, lines)
#   fuzz_topology_file    themis_topology_load_file
#   fuzz_quantity         themis_parse_bandwidth / _latency / _size
#   fuzz_rules            themis_rules_parse (coll_themis_rules_filename)
#   fuzz_msccl            themis_msccl_parse (MSCCL-XML; libxml2)
#   fuzz_graph            themis_graph_parse (coll_themis_graph, --graph files)
# Each target is built with clang from its source, planners/network/topology.c
# and planners/core/util.c
# (fuzz_rules: the planner library's sources and json-c; the autotools
# build does not need clang), then run from a fresh copy of
# its seed corpus (tests/fuzz/corpus/TARGET) for a bounded time.  Prints
# PASS:/FAIL: per target, or SKIP: when clang's fuzzer runtime is missing.
# A finding is left in LOG_DIR/fuzz/artifacts; tests/fuzz/README.md says
# how to reproduce it and how to fuzz for longer.
#
# Environment:
#   THEMIS_TEST_LOG_DIR  where builds, logs and artifacts go (default tests/logs)
#   THEMIS_FUZZ_TIME     seconds per target (default 20)
#   THEMIS_FUZZ_RUNS     most inputs per target (default 2000000)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${THEMIS_TEST_LOG_DIR:-$top/tests/logs}/fuzz
secs=${THEMIS_FUZZ_TIME:-20}
runs=${THEMIS_FUZZ_RUNS:-2000000}
targets=(topology_string topology_file quantity rules msccl graph)
mkdir -p "$work/artifacts"

CC=${FUZZ_CC:-clang}
# unsigned-integer-overflow on top of UBSan: the parsers' 64-bit arithmetic
# must never wrap (an unsigned wrap is what used to divide by zero).
# shellcheck disable=SC2054  # the commas separate sanitizer names
CFLAGS=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra
        -fsanitize=fuzzer,address,undefined,unsigned-integer-overflow
        -fno-sanitize-recover=all)
# the planners' folders, each on the include path as the build has them
for d in "$top"/planners/*/; do
    CFLAGS+=(-I"$d")
done

skip_all() {
    for t in "${targets[@]}"; do
        echo "SKIP: fuzz_$t ($1)"
    done
    exit 0
}
command -v "$CC" >/dev/null 2>&1 \
    || skip_all "no $CC: apt-get install clang libclang-rt-14-dev"
probe=$work/probe
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }' \
    >"$probe.c"
"$CC" "${CFLAGS[@]}" "$probe.c" -o "$probe" >"$probe.log" 2>&1 \
    || skip_all "$CC cannot link -fsanitize=fuzzer: apt-get install libclang-rt-14-dev; $(grep -m1 -E 'error|cannot find' "$probe.log")"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failures=0
for t in "${targets[@]}"; do
    bin=$work/fuzz_$t
    log=$work/fuzz_$t.log
    srcs=("$top/planners/network/topology.c" "$top/planners/core/util.c")
    libs=()
    # shellcheck disable=SC2207  # pkg-config output is whitespace-separated flags
    xml=($(pkg-config --cflags --libs libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2 -lxml2))
    if [ "$t" = rules ]; then
        # the rules name algorithms: the whole library, without the GLPK
        # solvers (libthemis_bound: the files that include glpk.h)
        mapfile -t srcs < <(grep -L 'glpk\.h' "$top"/planners/*/*.c)
        libs=(-ljson-c "${xml[@]}")
    fi
    if [ "$t" = msccl ]; then
        srcs=("$top"/planners/{msccl/msccl,msccl/msccl_import,msccl/msccl_layout}.c
              "$top"/planners/msccl/msccl_export.c
              "$top"/planners/{schedule/transfer,core/hash,core/themis_types,network/topology,core/util}.c)
        libs=("${xml[@]}")
    fi
    if [ "$t" = graph ]; then
        srcs=("$top"/planners/{network/graph,network/graph_file,network/graph_spec,network/cluster}.c
              "$top"/planners/{network/topology,core/util,core/hash,core/themis_types}.c)
    fi
    # MSCCL files that cost memory (many gpus x chunks) are larger than
    # the 4 KB the other formats need: the seeds must fit.
    max_len=4096
    [ "$t" = msccl ] && max_len=65536
    dict=$here/$t.dict
    [ -f "$dict" ] || dict=$here/themis.dict
    if ! "$CC" "${CFLAGS[@]}" "$here/fuzz_$t.c" "${srcs[@]}" "${libs[@]}" -o "$bin" \
         >"$work/fuzz_$t.build.log" 2>&1; then
        echo "FAIL: fuzz_$t (build failed: $(grep -m1 'error' "$work/fuzz_$t.build.log"))"
        failures=$((failures + 1))
        continue
    fi
    # libFuzzer adds what it finds to the first corpus directory: a scratch
    # copy, so that the seeds in git stay as they are.
    rm -rf "$work/corpus_$t" "$work/artifacts/$t-"*
    mkdir -p "$work/corpus_$t"
    timeout -k 10 $((secs + 120)) "$bin" -max_total_time="$secs" -runs="$runs" \
        -rss_limit_mb=1024 -timeout=10 -max_len="$max_len" -dict="$dict" \
        -artifact_prefix="$work/artifacts/$t-" -print_final_stats=1 \
        "$work/corpus_$t" "$here/corpus/$t" >"$log" 2>&1
    rc=$?
    done_line=$(grep -m1 -oE 'Done [0-9]+ runs in [0-9]+ second' "$log")
    found=$(compgen -G "$work/artifacts/$t-*" | head -n 1)
    if [ "$rc" -eq 0 ] && [ -z "$found" ] && [ -n "$done_line" ]; then
        echo "PASS: fuzz_$t (${done_line#Done }s, no finding)"
        continue
    fi
    failures=$((failures + 1))
    why=$(grep -m1 -E 'check failed|runtime error|ERROR: (AddressSanitizer|libFuzzer)' "$log")
    [ "$rc" -eq 124 ] && why="timed out after $((secs + 120))s"
    echo "FAIL: fuzz_$t (exit $rc: ${why:-see $log}; input $found; reproduce: $bin $found)"
    grep -E 'check failed|runtime error|ERROR:|SUMMARY|^    #[0-9]+ ' "$log" | head -n 20 \
        | sed 's/^/    | /'
done
[ "$failures" -eq 0 ]
