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
suite_label=coll_matrix
suite_logs=mpi
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"
if grep -q 'coll_themis_min_bytes' <<<"$themis_params"; then
    echo "PASS: component loaded (ompi_info lists coll/themis from $comp_dir)"
else
    echo "FAIL: component loaded (ompi_info does not list coll/themis from $comp_dir:" \
         "$(head -n 3 <<<"$themis_params" | tr '\n' ' '))"
    exit 1
fi

# Installed for one user (configure --with-component-dir=user): Open MPI
# searches $HOME/.openmpi/components by default, so ompi_info and mpirun
# find the component with no mca_base_component_path.
user_home=$(mktemp -d "${TMPDIR:-/tmp}/themis-home.XXXXXX")
user_dir=$user_home/.openmpi/components
if ! make -C "$BUILD" -s install-componentLTLIBRARIES install-data-hook componentdir="$user_dir" \
        >"$log_dir/user_install.log" 2>&1; then
    echo "FAIL: per-user install (make install-componentLTLIBRARIES componentdir=$user_dir:" \
         "$(tail -n 2 "$log_dir/user_install.log" | tr '\n' ' '))"
elif [ "$(ls "$user_dir")" != mca_coll_themis.so ]; then
    echo "FAIL: per-user install ($user_dir holds $(ls "$user_dir" | tr '\n' ' '), not only the .so)"
elif ! HOME=$user_home "$OMPI_INFO" --param coll themis --level 9 2>&1 | grep -q coll_themis_min_bytes; then
    echo "FAIL: per-user install (ompi_info with HOME=$user_home does not list coll_themis_*)"
else
    echo "PASS: per-user install (ompi_info lists coll/themis from \$HOME/.openmpi/components)"
    saved_common=("${common[@]}")
    mapfile -t common < <(launch_opts oversubscribe coll op)
    opts=("${MIN0[@]}" "${VADER[@]}"); args=(--level tiny); launcher=(); need=()
    HOME=$user_home run "per-user install, no component path, vader tiny" 120 2
    common=("${saved_common[@]}")
fi
rm -rf "$user_home"

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
# The previous simulator model (coll_themis_latency_model) still plans correctly.
matrix "4x2 vader themis/scf latency_model=serialized" 180 8 tiny "${VADER[@]}" "${D[@]}" 4x2 \
    "${S[@]}" themis "${O[@]}" scf --mca coll_themis_latency_model serialized
matrix "3x2 ofi baseline/fifo" 180 6 tiny "${OFI[@]}" "${D[@]}" 3x2 "${S[@]}" baseline "${O[@]}" fifo

# Large reduce-scatters and allgathers in segments (coll_themis_scratch_max
# 1 MiB: the 1000003-element cases run as several), uneven and in place.
opts=("${MIN0[@]}" "${VADER[@]}" "${D[@]}" 3x2 --mca coll_themis_scratch_max 1048576)
args=(--level reduced --big); launcher=(); need=()
run "3x2 vader scratch_max=1MiB: large calls in segments" 300 6

# ------------------------------------------------------------ fallbacks
# Default min_bytes: one int falls back, a large vector runs themis, with
# the automatic chunk floor of a single node.
opts=("${VADER[@]}" "${D[@]}" 2x2 --mca coll_themis_verbose 1); args=(--level minbytes)
launcher=(); need=('ready, 4 ranks.*min_bytes 33554432, chunks of >= 2097152 bytes')
mb_log="$log_dir/np4_2x2_vader_default_min_bytes__small_calls_fall_back.log"
rm -f "$mb_log"
if run "2x2 vader default min_bytes: small calls fall back" 300 4 && [ -f "$mb_log" ]; then
    # Verbose 1 is for decisions about communicators: no per-process banner.
    banner=$(grep -c 'coll:themis: open:' "$mb_log")
    if [ "$banner" -ne 0 ]; then
        failures=$((failures + 1))
        echo "FAIL: coll_matrix np=4 verbose 1: $banner per-process 'open:' lines (want 0)"
    fi
fi

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

# Shapes apply to communicators of their size; others get an automatic
# shape, said once per process (at most one line per rank in the log).
opts=("${MIN0[@]}" "${VADER[@]}" "${D[@]}" 3x3); args=(--level tiny)
launcher=(); need=('uses an automatic shape' 'coll_themis_dims: *3x3')
as_log="$log_dir/np4_vader_dims=3x3_on_4_ranks__automatic_shape__said_once.log"
rm -f "$as_log"
if run "vader dims=3x3 on 4 ranks: automatic shape, said once" 120 4 && [ -f "$as_log" ]; then
    said=$(grep -c "uses an automatic shape" "$as_log")
    if [ "$said" -gt 4 ]; then
        failures=$((failures + 1))
        echo "FAIL: coll_matrix np=4 dims=3x3: the automatic-shape message came $said times"
    fi
fi
opts=("${MIN0[@]}" "${VADER[@]}" "${D[@]}" "8:4x2,4:2x2" --mca coll_themis_verbose 1)
args=(--level tiny); launcher=(); need=('ready, 4 ranks, dims 2\(.*\) x 2\(')
run "vader dims=8:4x2,4:2x2: the 4-rank shape" 120 4

# Rules files: one that sends every call to the previous component, one
# whose rule picks the algorithm (seen in the plan), and malformed ones: each
# gets its line and reason, and correct results through the fallback.
rules_dir=$(mktemp -d "${TMPDIR:-/tmp}/themis-rules.XXXXXX")
cat >"$rules_dir/all_fall_back.json" <<'JSON'
{ "rules": [ { "collective": "all", "min_bytes": "1TiB" } ] }
JSON
cat >"$rules_dir/chunks.json" <<'JSON'
{ "rules": [ { "collective": "allreduce", "comm_size": [4, 4], "chunks": 3,
               "algorithm": "torus2d" } ],
  "shapes": [ { "comm_size": 4, "dims": "2x2" } ] }
JSON
opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_latency_model fast)
args=(--level tiny --expect fallback); launcher=()
need=('coll_themis_latency_model = "fast": must be overlapped or serialized')
run "vader latency_model=fast: bad parameter steps aside" 120 4
opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_rules_filename "$rules_dir/all_fall_back.json")
args=(--level tiny --expect fallback); launcher=(); need=()
run "vader rules: min_bytes 1TiB sends every call to the previous component" 120 4
opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_rules_filename "$rules_dir/chunks.json"
      --mca coll_themis_verbose 10)
args=(--level tiny); launcher=(); need=('planned allreduce \(torus2d\) of 4097 elements'
                                         'dims 2\(.*\) x 2\(')
run "vader rules: a rule's algorithm and a shape" 120 4
printf '{ "rules": [ { "collective": "allreduce",\n  "chunks": 4 ' >"$rules_dir/truncated.json"
printf '{ "rules": [\n {"collective": "allgather"},\n {"collective": "allreduce", "chunks": "x"} ] }' \
    >"$rules_dir/wrong_type.json"
printf '{ "rules": [\n {"collective": "allreduce", "bytes": [0, 100]},\n {"collective": "all"} ] }' \
    >"$rules_dir/overlap.json"
printf '{ "rules": [ {"collective": "allreduce", "algorithm": "ring"} ] }' >"$rules_dir/unknown_algo.json"
head -c 1000000 /dev/urandom >"$rules_dir/garbage.json"
for bad in "truncated:line 2.*end of the file" "wrong_type:line 3.*chunks" \
           "overlap:line 3.*overlaps the rule of line 2" "unknown_algo:line 1.*unknown algorithm" \
           "garbage:binary file, not a rules file"; do
    name=${bad%%:*}
    opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_rules_filename "$rules_dir/$name.json")
    args=(--level tiny --expect fallback); launcher=()
    need=('invalid MCA parameter' "coll_themis_rules_filename.*${bad#*:}")
    run "vader rules file $name: message with its line, fallback" 120 4
done
rm -rf "$rules_dir"

# Bad values: a clear message and correct results through the fallback.

opts=("${MIN0[@]}" "${VADER[@]}" "${S[@]}" bogus); args=(--level tiny --expect fallback)
launcher=(); need=('invalid MCA parameter' 'coll_themis_scheduler.*bogus')
run "vader scheduler=bogus: bad parameter steps aside" 120 4

opts=("${VADER[@]}" --mca coll_themis_min_bytes -5); args=(--level tiny --expect fallback)
launcher=(); need=('invalid MCA parameter' 'coll_themis_min_bytes.*-5')
run "vader min_bytes=-5: bad parameter steps aside" 120 2

# 130 fraction digits: 10^digits used to wrap to 0 (SIGFPE in MPI_Init).
frac130=0.$(printf '%0130d' 0)5
opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_dim_latencies "${frac130}s")
args=(--level tiny --expect fallback); launcher=()
need=('invalid MCA parameter' 'coll_themis_dim_latencies = "0\.0{130}5s".* valid latency')
run "vader dim_latencies=0.(130 digits)5s: bad parameter steps aside" 120 2

opts=("${MIN0[@]}" "${VADER[@]}" --mca coll_themis_dim_bandwidths "${frac130}Gb")
args=(--level tiny --expect fallback); launcher=()
need=('invalid MCA parameter' 'coll_themis_dim_bandwidths = "0\.0{130}5Gb".* valid bandwidth')
run "vader dim_bandwidths=0.(130 digits)5Gb: bad parameter steps aside" 120 2

# ------------------------------------------------------------ valgrind
# Errors or definite leaks whose stack goes through coll/themis fail; Open
# MPI's own startup leaks are only counted.  dlclose is disabled so that
# the component's frames keep their names.
if [ "${THEMIS_TEST_VALGRIND:-1}" = 0 ]; then
    echo "SKIP: valgrind (THEMIS_TEST_VALGRIND=0)"
elif ! command -v valgrind >/dev/null; then
    echo "SKIP: valgrind (not installed: apt-get install valgrind)"
elif [ -n "${THEMIS_TEST_FILTER:-}" ] && ! grep -Eq -- "$THEMIS_TEST_FILTER" <<<"np=2 vader under valgrind"; then
    :   # filtered out, like every other case
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
