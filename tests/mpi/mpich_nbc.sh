#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# MPICH's nonblocking collective tests (test/mpi/coll of
# https://github.com/pmodels/mpich: nonblocking, nonblocking2,
# nonblocking3, iallred, redscat and redscat3 with -nonblocking, at the
# process counts of its testlist, 10 ranks capped to 8) against coll/themis
# with its path forced (coll_themis_min_bytes 0).  Each test must print
# MPICH's "No Errors", and the trace (coll_themis_trace, one record per
# themis-path call and per fallback, as the coll_themis_<coll>_calls and
# _fallbacks counters count) must show nonblocking calls that ran on
# themis and no nonblocking fallback (every call these programs make is
# one a row serves: commutative predefined ops on predefined types); the
# line lists the themis-path calls per collective.  Their communicators
# see nonblocking calls first: the nonblocking setup is what lets them
# reach themis.  Not part of the CI suite: it needs the MPICH sources
# (skipped, said so, without them).
#   MPICH_SRC   an MPICH source tree (its test/mpi is used)
#   THEMIS_BUILD_DIR, THEMIS_TEST_LOG_DIR as for coll_matrix_lib.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite_label=mpich_nbc
suite_logs=mpich_nbc
# shellcheck source=tests/mpi/coll_matrix_lib.sh
. "$here/coll_matrix_lib.sh"

src=${MPICH_SRC:-}
if [ -z "$src" ] || [ ! -f "$src/test/mpi/coll/nonblocking.c" ]; then
    echo "SKIP: $suite_label (MPICH_SRC is not an MPICH source tree: nothing run)"
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/themis-mpich.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$src"/test/mpi/include/{mpitest.h,mpicolltest.h,mtest_common.h,mpithreadtest.h} \
   "$src"/test/mpi/util/{mtest.c,mtest_common.c,mtest_single.c,run_mpitests.c} "$work"/
: >"$work/mtest_mpix.h"   # what MPICH's test autogen.sh does outside MPICH
cat >"$work/mpitestconf.h" <<'CONF'
/* What MPICH's test configure finds on Linux, for the files used here. */
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
CONF
MPICC=${MPICC:-${THEMIS_OMPI:+$THEMIS_OMPI/bin/}mpicc}
for f in mtest mtest_common mtest_single run_mpitests; do
    if ! "$MPICC" -c -I"$work" "$work/$f.c" -o "$work/$f.o" >"$log_dir/build_$f.log" 2>&1; then
        echo "FAIL: $suite_label build $f (log $log_dir/build_$f.log)"
        exit 1
    fi
done

status=0
mpich() {   # TEST NP [ARG]
    local t=$1 np=$2 arg=${3:-} tmp log rc start=$SECONDS objs counts fallbacks
    objs=("$work/mtest.o" "$work/mtest_common.o" "$work/mtest_single.o")
    # Tests written as run(arg) get their main from run_mpitests.c.
    grep -q 'int run(const char' "$src/test/mpi/coll/$t.c" && objs+=("$work/run_mpitests.o")
    log="$log_dir/${t}_np${np}${arg//[^a-z]/_}.log"
    if ! "$MPICC" -I"$work" "$src/test/mpi/coll/$t.c" "${objs[@]}" -o "$work/$t" >"$log" 2>&1; then
        echo "FAIL: $suite_label $t (build; log $log)"
        status=1
        return
    fi
    tmp=$(mktemp -d "$work/run.XXXXXX")
    mapfile -t tmpo < <(launch_opts tmpdir "$tmp")
    timeout -k 10 600 "$MPIRUN" -np "$np" "${common[@]}" "${tmpo[@]}" \
        "${VADER[@]}" "${MIN0[@]}" --mca coll_themis_trace "$tmp/trace.%r" \
        "$work/$t" $arg >>"$log" 2>&1
    rc=$?
    counts=""
    for c in iallreduce ireduce_scatter ireduce_scatter_block iallgather; do
        n=$(cat "$tmp"/trace.* 2>/dev/null | grep -c "\"type\":\"call\".*\"coll\":\"$c\"")
        [ "$n" -gt 0 ] && counts+=" $c=$n"
    done
    fallbacks=$(cat "$tmp"/trace.* 2>/dev/null | grep '"type":"fallback"' \
        | grep -cE '"coll":"i(allreduce|reduce_scatter|reduce_scatter_block|allgather)"')
    cat "$tmp"/trace.* 2>/dev/null | grep '"type":"fallback"' >"$log.fallbacks"
    if [ "$fallbacks" -gt 0 ]; then
        counts+="; $fallbacks nonblocking fallbacks ($log.fallbacks)"
    fi
    if [ "$rc" -eq 0 ] && grep -q '^ *No Errors' "$log" && [ -n "$counts" ] \
       && [ "$fallbacks" -eq 0 ]; then
        echo "PASS: $suite_label $t np=$np $arg (themis-path calls, all ranks:$counts;" \
             "$((SECONDS - start))s)"
    else
        echo "FAIL: $suite_label $t np=$np $arg (exit $rc;${counts:- no nonblocking call on themis}; log $log)"
        tail -n 5 "$log" | sed 's/^/    | /'
        status=1
    fi
}
mpich nonblocking 4
mpich nonblocking 5
mpich nonblocking 8
mpich nonblocking2 4
mpich nonblocking2 5
mpich nonblocking3 4
mpich nonblocking3 5
mpich nonblocking3 8
mpich iallred 2
mpich redscat 4 -nonblocking
mpich redscat 8 -nonblocking
mpich redscat3 8 -nonblocking
exit $status
