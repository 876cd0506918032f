#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The one place that builds mpirun command lines: test suites, benchmarks
# and the emulated test beds take their options from here.  Source it
# from bash, or run it:
#   launch.sh mpirun ARGS...   mpirun of the Open MPI under test, taking
#                              4.1's options under either series
#   launch.sh opts KIND...     print the options of each KIND, one a line
#   launch.sh bed-mpirun NS NP HOSTFILE AGENT TMP IFS TRANSPORT
#                        [BED-OPTS...] -- ARGS...
#                              mpirun in a bed's head namespace NS
# Environment:
#   THEMIS_OMPI=PREFIX  Open MPI installed under PREFIX (default: mpirun on
#                       the PATH, Debian's 4.1.4)
#   THEMIS_BUILD_DIR    the themis build whose component runs (default:
#                       this checkout)
# KINDs (launch_opts):
#   oversubscribe  more ranks than cores
#   tmpdir DIR     a private session directory per run (concurrent runs
#                  of several users collide in the shared one)
#   path           the component's directory, then Open MPI's own
#   coll           coll/themis first in the coll list, Open MPI's after
#   themis         path and coll
#   op             op ^avx: Open MPI 4.1.4's op/avx saturates 8/16-bit sums
#   vader|tcp|ofi  the suites' transports on one host
#   bed HOSTFILE AGENT TMP IFS TRANSPORT   an emulated bed (netgraph,
#                  netbed): ORTE's daemons over the management network,
#                  MPI's TCP over IFS, TRANSPORT ob1 or ofi
# As root mpirun is allowed to run as root.  Under 5.0 (PRRTE's mpirun)
# launch_mpirun rewrites what 4.1's ORTE spelled differently:
#   --oversubscribe                 --map-by :OVERSUBSCRIBE
#   --mca orte_tmpdir_base DIR      --prtemca prte_tmpdir_base DIR, and
#                                   TMPDIR=DIR for PMIx's rendezvous files
# Everything else (--mca, -x, -np, btl vader = 5.0's btl sm alias) is the
# same in both.
# shellcheck shell=bash

launch_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034  # LAUNCH, MPIRUN: for the sourcing scripts
LAUNCH=$launch_here/launch.sh
LAUNCH_BUILD=${THEMIS_BUILD_DIR:-$(cd "$launch_here/.." && pwd)}
LAUNCH_OMPI_INFO=${THEMIS_OMPI:+$THEMIS_OMPI/bin/}ompi_info
# Executable: suites run "$MPIRUN" -np N ... as they would mpirun.
# shellcheck disable=SC2034
MPIRUN=$launch_here/../tests/mpi/mpirun.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# launch_ompi_dirs: sets comp_dir (the component) and ompi_comp_dir (Open
# MPI's own components), the two halves of `path`; a script that sources
# this file has them set, and its `mapfile -t X < <(launch_opts ...)`
# reuse them.
launch_ompi_dirs() {
    comp_dir=$LAUNCH_BUILD/ompi/mca/coll/themis/.libs
    if [ -z "${ompi_comp_dir:-}" ]; then
        ompi_comp_dir=$("$LAUNCH_OMPI_INFO" --path pkglibdir 2>/dev/null | sed 's/.*: *//')
        [ -d "$ompi_comp_dir" ] || ompi_comp_dir=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
    fi
}

launch_opts() {   # KIND [ARGS]... ...
    local ifs transport
    while [ $# -gt 0 ]; do
        case $1 in
            oversubscribe) printf '%s\n' --oversubscribe ;;
            tmpdir) printf '%s\n' --mca orte_tmpdir_base "$2"; shift ;;
            themis) launch_opts coll path ;;
            path)
                launch_ompi_dirs
                printf '%s\n' --mca mca_base_component_path "$comp_dir:$ompi_comp_dir" ;;
            coll) printf '%s\n' --mca coll themis,inter,tuned,libnbc,basic,self ;;
            op) printf '%s\n' --mca op ^avx ;;
            vader) printf '%s\n' --mca pml ob1 --mca btl vader,self ;;
            tcp) printf '%s\n' --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo ;;
            ofi) printf '%s\n' --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_exclude none \
                               -x FI_PROVIDER=tcp ;;
            bed)
                ifs=$5 transport=$6
                printf '%s\n' --hostfile "$2" \
                    --mca plm_rsh_agent "$3" --mca plm_rsh_no_tree_spawn 1 \
                    --mca orte_tmpdir_base "$4" \
                    --mca oob_tcp_if_include mgmt \
                    --mca btl tcp,self --mca btl_tcp_if_include "$ifs" \
                    --bind-to none --mca mpi_yield_when_idle 1
                case $transport in
                    ob1)
                        # Exchanges in both directions at once get 55-75% per
                        # direction with the default 2 MiB RDMA pipeline
                        # fragments and 85-92% with 32 KiB ones
                        # (benchmarks/netbed/README.md).
                        printf '%s\n' --mca pml ob1 --mca btl_tcp_rdma_pipeline_frag_size 32768 ;;
                    ofi)
                        # The tcp provider listens on one interface; the bed's
                        # routes carry traffic whatever interface the address
                        # belongs to.
                        printf '%s\n' --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp \
                            -x FI_PROVIDER=tcp -x "FI_TCP_IFACE=${ifs%%,*}" ;;
                    *) echo "launch.sh: bad transport '$transport' (ob1 or ofi)" >&2; return 2 ;;
                esac
                shift 5 ;;
            *) echo "launch.sh: unknown option kind '$1'" >&2; return 2 ;;
        esac
        shift
    done
}

# launch_ompi_info ARGS...: ompi_info of the Open MPI under test, seeing the
# component (it takes the path from the environment, not from --mca).
launch_ompi_info() {
    launch_ompi_dirs
    OMPI_MCA_mca_base_component_path="$comp_dir:$ompi_comp_dir" timeout 120 "$LAUNCH_OMPI_INFO" "$@"
}

# launch_major: THEMIS_OMPI_MAJOR (exported), the series under test.
launch_major() {
    if [ -z "${THEMIS_OMPI_MAJOR:-}" ]; then
        THEMIS_OMPI_MAJOR=$("${THEMIS_OMPI:+$THEMIS_OMPI/bin/}mpirun" --version 2>/dev/null \
                            | sed -n 's/.*Open MPI[^0-9]*\([0-9][0-9]*\)\..*/\1/p' | head -n 1)
    fi
    export THEMIS_OMPI_MAJOR
}

launch_mpirun() {   # ARGS...: exec mpirun with 4.1's options translated
    local mpirun=${THEMIS_OMPI:+$THEMIS_OMPI/bin/}mpirun args=()
    launch_major
    if [ "${THEMIS_OMPI_MAJOR:-4}" -lt 5 ]; then
        exec "$mpirun" "$@"
    fi
    [ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
    while [ $# -gt 0 ]; do
        case $1 in
            --oversubscribe)
                args+=(--map-by :OVERSUBSCRIBE); shift ;;
            --mca)
                if [ $# -lt 3 ]; then
                    args+=("$@"); break
                elif [ "$2" = orte_tmpdir_base ]; then
                    args+=(--prtemca prte_tmpdir_base "$3")
                    export TMPDIR=$3
                else
                    args+=("$1" "$2" "$3")
                fi
                shift 3 ;;
            *)
                args+=("$1"); shift ;;
        esac
    done
    exec "$mpirun" "${args[@]}"
}

# launch_bed_mpirun NS NP HOSTFILE AGENT TMP IFS TRANSPORT [BED-OPTS...] --
# ARGS...: exec mpirun in namespace NS with the bed's options and BED-OPTS,
# less those ARGS set again (mpirun refuses an MCA parameter given twice:
# the caller's win), and -np NP unless ARGS give one.
launch_bed_mpirun() {
    local ns=$1 np=$2 all=() opts=() i a prev="" has_np=0 user_mca=" "
    all=("$(launch_opts bed "$3" "$4" "$5" "$6" "$7")") || exit 2
    mapfile -t all <<<"${all[0]}"
    shift 7
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        all+=("$1")
        shift
    done
    shift
    for a in "$@"; do
        case $a in -np | -n | --np | -c | --n) has_np=1 ;; esac
        case $prev in -mca | --mca | -gmca | --gmca) user_mca="$user_mca$a " ;; esac
        prev=$a
    done
    for ((i = 0; i < ${#all[@]}; i++)); do
        if [ "${all[i]}" = --mca ] && [[ $user_mca == *" ${all[i + 1]} "* ]]; then
            i=$((i + 2))
            continue
        fi
        opts+=("${all[i]}")
    done
    [ "$has_np" = 1 ] || opts+=(-np "$np")
    # The beds run the PATH's Open MPI 4.1: their agent and ORTE options.
    exec ip netns exec "$ns" mpirun "${opts[@]}" "$@"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
    launch_ompi_dirs
else
    set -u
    case ${1:-} in
        mpirun) shift; launch_mpirun "$@" ;;
        opts) shift; launch_opts "$@" ;;
        bed-mpirun)
            shift
            [ $# -ge 8 ] || { echo "usage: $0 bed-mpirun NS NP HOSTFILE AGENT TMP IFS TRANSPORT [OPTS...] -- ARGS..." >&2; exit 2; }
            launch_bed_mpirun "$@" ;;
        *) echo "usage: $0 mpirun ARGS... | opts KIND... | bed-mpirun ..." >&2; exit 2 ;;
    esac
fi
